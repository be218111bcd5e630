/* SPDX-License-Identifier: MIT */
/*
 * linkload.h: each drive's and NIC's PCIe link under load, and its AER
 * counts (linkload.c): the link's current speed and width read from sysfs
 * (BDF/current_link_speed, current_link_width) when a window opens, every
 * second of it and when it closes, every change kept with when it came;
 * the AER counts (BDF/aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal:
 * their TOTAL_ERR_* lines) before and after. An idle lspci snapshot does
 * not see a link that trains down only under load; this does.
 *
 * Every file is untrusted (a captured tree in tests): read non-blocking and
 * bounded in size (sysfs.h), a sample of every device stops after
 * LL_SAMPLE_MS, at most LL_MAX_CHANGES changes are kept per device. A count
 * the device does not keep (no AER capability, an older kernel) is "not
 * kept", never 0. No reader writes anything.
 *
 * The printer (linkload_rows.c) puts a device's "link_under_load" and
 * "aer" into a report, text and JSON from the same calls.
 */
#ifndef NBW_LINKLOAD_H
#define NBW_LINKLOAD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define LL_MAX_DEV 32	     /* devices watched in one window (the rest: truncated) */
#define LL_MAX_CHANGES 16    /* changes kept of one device's link (the rest: counted) */
#define LL_SAMPLE_MS 200     /* time for one sample of every device */
#define LL_AER_FILE_MAX 4096 /* an AER file longer than this is no count */

enum ll_aer_kind { LL_AER_CORRECTABLE, LL_AER_NONFATAL, LL_AER_FATAL, LL_AER_KINDS };

/* One reading of a link. */
struct ll_link {
	double t_s;	  /* seconds into the window */
	double speed_gts; /* 0: unknown (not readable; "Unknown": the link is down) */
	int width;	  /* lanes; 0: the link is down; -1 unknown */
};

/* One AER count before and after the window; not kept unless both were read. */
struct ll_aer {
	bool kept_before, kept_after;
	uint64_t before, after;
};

struct ll_dev {
	char name[64]; /* "nvme0n1", "mlx5_0" */
	char kind[8];  /* "nvme", "rdma" */
	char bdf[16];  /* "0000:01:00.0" */
	char dir[PATH_MAX];
	int samples; /* readings taken (open, each second, close) */
	int skipped; /* samples it missed: the sample's time ran out first */
	bool has_before, has_after;
	struct ll_link before, after, last;
	struct ll_link min; /* the lowest speed and the narrowest width seen (t_s unused) */
	int nchanges;	    /* changes seen; change[] keeps the first LL_MAX_CHANGES */
	struct ll_link change[LL_MAX_CHANGES];
	struct ll_aer aer[LL_AER_KINDS];
};

/* The devices of one window. */
struct linkload {
	int n;
	bool truncated; /* more than LL_MAX_DEV were added */
	bool opened, closed;
	struct ll_dev d[LL_MAX_DEV];
};

/* A new, empty watch (NULL: out of memory); linkload_free() releases it. */
struct linkload *linkload_new(void);
void linkload_free(struct linkload *ll);
/* A copy of ll (NULL: ll is NULL, or out of memory). */
struct linkload *linkload_dup(const struct linkload *ll);

/*
 * Watch the PCI function bdf ("DDDD:BB:DD.F") under sysfs_root (NULL:
 * "/sys") as name (kind "nvme" or "rdma"). 0; -EINVAL: bdf is no PCI
 * address; -EEXIST: it is watched already (two namespaces of one drive);
 * -ENOSPC: LL_MAX_DEV reached (ll->truncated).
 */
int linkload_add(struct linkload *ll, const char *sysfs_root, const char *name, const char *kind,
		 const char *bdf);

/* The window opens: every device's AER counts and its link (t_s 0). ll NULL: nothing. */
void linkload_open(struct linkload *ll);
/* A second of the window: every device's link, at t_s seconds into it. */
void linkload_sample(struct linkload *ll, double t_s);
/* The window closes at t_s: every device's link, then its AER counts. */
void linkload_close(struct linkload *ll, double t_s);

/*
 * The device of that bdf (NULL: not watched), for a drive's row; ll may be
 * NULL.
 */
const struct ll_dev *linkload_find(const struct linkload *ll, const char *bdf);

/* A reading of the window below the opening's: a lower speed, fewer lanes, the link down. */
bool linkload_dropped(const struct ll_dev *d);
/* The first such reading (NULL: none). */
const struct ll_link *linkload_first_drop(const struct ll_dev *d);
/* An AER count that is kept and moved. */
bool linkload_aer_moved(const struct ll_dev *d);
/* "correctable", "nonfatal", "fatal": the JSON key of a kind. */
const char *linkload_aer_name(enum ll_aer_kind k);

/*
 * Parse an AER file's text (aer_dev_*: "NAME COUNT" lines) into *v: the
 * line named total (TOTAL_ERR_COR ...), else the sum of the others. 0, or
 * -EINVAL when a line is not "NAME COUNT" or no line is there.
 */
int linkload_parse_aer(const char *text, const char *total, uint64_t *v);

/* ---- the rows (linkload_rows.c) ------------------------------------------------------- */

struct report;

/*
 * A device's "link_under_load" and "aer" (JSON only) into the object being
 * written; both null for d NULL (no PCI device, as a regular file).
 */
void linkload_json_dev(struct report *r, const struct ll_dev *d);
/*
 * Text lines of what moved on d, each starting with indent: a link that
 * dropped under load (when, and to what), an AER count that moved. The
 * count of lines printed.
 */
int linkload_text_dev(struct report *r, const struct ll_dev *d, const char *indent);
/*
 * Every device of ll as an array "pcie_under_load" of {name, kind,
 * pci_address, link_under_load, aer}, and its text: a heading, then what
 * moved (or that nothing did). Nothing at all for ll NULL, empty or never
 * opened (the run ended before its window).
 */
void linkload_print(struct report *r, const struct linkload *ll);

#endif
