/* SPDX-License-Identifier: MIT */
/*
 * health_watch.h: one drive's health log around a measured window: the
 * controller it is read from (and how many namespaces share it), the
 * reading before the warm-up and after the close, what moved, and both as
 * the tools print them (JSON "health"; in text only what moved or is out of
 * bounds). A drive whose log cannot be read keeps the reason, never zeros.
 * The one writer of a health log's JSON: also a controller's log now
 * (health_now_json).
 */
#ifndef NBW_HEALTH_WATCH_H
#define NBW_HEALTH_WATCH_H

#include <stdbool.h>

#include "drive.h"
#include "health.h"

struct report;

struct health_watch {
	char ctrl[32];	     /* nvme0; "" when the drive has no NVMe controller */
	char ctrl_dev[48];   /* /dev/nvme0 */
	unsigned namespaces; /* namespaces of the controller (sysfs); 0: unknown */
	char why[192];	     /* why a reading is missing: "not read: ..." */
	bool have_before, have_after;
	struct health_log before, after;
	struct health_limits lim;
	struct health_delta delta;
	unsigned findings; /* enum health_finding bits of the window */
};

/* Which controller d's log comes from, under sysfs_root ("/sys"); nothing is read yet. */
void health_watch_init(struct health_watch *hw, const struct drive *d, const char *sysfs_root);

/*
 * Read the log (before: with the thresholds; after: compared with before).
 * A failure keeps its reason in hw->why; the run goes on.
 */
void health_watch_read(struct health_watch *hw, bool after);

/*
 * Set the readings directly (tests, and a peer's word): before and after
 * (either NULL: not read, with why), the thresholds (NULL: unknown).
 */
void health_watch_set(struct health_watch *hw, const struct health_log *before,
		      const struct health_log *after, const struct health_limits *lim,
		      const char *why);

/* One line of what moved or is out of bounds, without the name; "" if none. */
size_t health_watch_describe(const struct health_watch *hw, char *buf, size_t len);

/* The "health" object of a drive's JSON entry. */
void health_watch_json(struct report *r, const struct health_watch *hw);

/*
 * A controller's log read once, now (nvme_link_probe): the "health" object
 * (log_read, why, temperature_c and warning_temp_c, critical_warning and its
 * warnings, available_spare_pct, percentage_used, media_errors, summary) and
 * in text the line "    health <summary>". log NULL: not read, why says
 * why; lim: the thresholds read with it.
 */
void health_now_json(struct report *r, const struct health_log *log,
		     const struct health_limits *lim, const char *why);

/*
 * The text: "<indent><name>: <what moved>" when something moved or is out of
 * bounds, or "<name>: health not read: <reason>" for an NVMe namespace whose
 * log could not be read. Returns the lines printed (0 or 1).
 */
int health_watch_text(struct report *r, const struct health_watch *hw, const char *name,
		      const char *indent);

#endif
