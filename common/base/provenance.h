/* SPDX-License-Identifier: MIT */
/*
 * provenance.h: where and when a document was made, the same block in every
 * tool's JSON ("provenance") and one header line in every text report.
 *
 * The block says the host, the run's id, the command line (shell-quoted),
 * the kernel release, the suite's version and build, the UTC start and end
 * of the measured window (ISO 8601 and Unix seconds; where no window was
 * measured, the span of the tool's work), and each drive's model, serial
 * and firmware and each RDMA port's firmware and board id as sysfs tells
 * them ("not readable" where it does not, never invented). The tools add
 * their drives and ports as they find them (prov_add_nvme(),
 * prov_add_target(), prov_add_rdma()) and widen the window after each
 * measured one (prov_span()). Every call takes a NULL block as "none kept".
 */
#ifndef NBW_PROVENANCE_H
#define NBW_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

#define PROV_FORMAT 1
#define PROV_MAX_DRIVES 64
#define PROV_MAX_PORTS 32
#define PROV_CMD_MAX 4096
#define PROV_NOT_READABLE "not readable"

/* A drive's identity; model, serial and firmware "" = null (the target is no NVMe drive). */
struct prov_drive {
	char path[256];	     /* "" unknown (the probe names controllers) */
	char controller[32]; /* nvme0; "" none */
	char kind[8];	     /* nvme, block, file */
	char model[96];
	char serial[64];
	char firmware[64];
};

/* An RDMA port's identity (port 0: the device as a whole). */
struct prov_port {
	char device[64];
	unsigned port;
	char firmware[64];
	char board_id[64];
};

struct provenance {
	char run_id[40]; /* a random UUID per run; "" when no random source answered */
	char host[256];
	char kernel[128];
	char command[PROV_CMD_MAX];
	bool command_complete; /* false: cut at PROV_CMD_MAX, ending in " ..." */
	double began;	       /* Unix seconds the tool started (prov_init) */
	double start, end;     /* the measured windows' span, Unix seconds; NAN none */
	struct prov_drive drives[PROV_MAX_DRIVES];
	int ndrives;
	struct prov_port ports[PROV_MAX_PORTS];
	int nports;
};

/*
 * Fill p for this process: host name, kernel release, the command line of
 * argv, a new run id, the time the tool began; no window, drives or ports.
 */
void prov_init(struct provenance *p, int argc, char *const argv[]);

/*
 * A measured window from open_ns to close_ns (CLOCK_MONOTONIC, nbw_now_ns())
 * widens the span: the earliest opening, the latest close. A close before
 * its opening, or a zero opening (never opened), is ignored.
 */
void prov_span(struct provenance *p, uint64_t open_ns, uint64_t close_ns);

/*
 * An NVMe namespace (path, "" when unknown) behind controller ctrl ("nvme0"):
 * model, serial and firmware_rev from <sysfs_root>/class/nvme/<ctrl>, each
 * "not readable" where the read fails. Added once per path (or controller
 * when no path). 0, or -ENOSPC when the block is full.
 */
int prov_add_nvme(struct provenance *p, const char *sysfs_root, const char *path, const char *ctrl);
/* A target that is no NVMe drive (kind "block" or "file"): its path, identity null. */
int prov_add_target(struct provenance *p, const char *path, const char *kind);
/*
 * An RDMA port (port 0: the device): fw_ver and board_id from
 * <sysfs_root>/class/infiniband/<dev>. Added once per device and port.
 */
int prov_add_rdma(struct provenance *p, const char *sysfs_root, const char *dev, unsigned port);

/*
 * The block as JSON, key "provenance" (nothing in text). The window is the
 * span prov_span() saw; without one, from the start of the tool to now, and
 * "window_measured" false.
 */
void prov_report(struct report *r, const struct provenance *p);
/* The text header's line: " Host/date/kernel: HOST  DATE (UTC)  KERNEL" (nothing in JSON). */
void prov_text_line(struct report *r, const struct provenance *p);

/* ---- the pure parts (unit-tested) ----------------------------------------------------- */

/*
 * argv[0..argc) as one shell command line into buf: a word of safe
 * characters as it is, any other in single quotes ('it'\''s'), an empty one
 * as ''. Cut at a word's end with " ..." when it does not fit. true when whole.
 */
bool prov_quote_args(char *buf, size_t len, int argc, char *const argv[]);
/* Unix seconds t as ISO 8601 UTC with milliseconds ("2026-02-01T10:00:03.250Z"); "" when
 * t is not finite or out of range. Returns buf. */
const char *prov_iso8601(double t, char *buf, size_t len);
/* The Unix time of monotonic instant mono_ns, given one moment read on both clocks. */
double prov_wall_of(uint64_t mono_ns, uint64_t now_mono_ns, double now_wall);
/* 16 random bytes as a version 4 UUID (36 characters) into buf (at least 37 bytes). */
void prov_uuid_format(const uint8_t b[16], char *buf);

#endif
