/* SPDX-License-Identifier: MIT */
/*
 * target.h: the read targets of a run, for every tool that reads drives:
 * collected from a --disks list or NVMe discovery, validated against the
 * chunk, span and thread count, opened read-only with O_DIRECT, described
 * (with the PCIe link ceiling from the PCI tree, loaded once per run) and
 * closed. One set of limits and messages for all tools.
 *
 * Nothing here prints: a target that cannot be used returns -errno and
 * fills a struct target_err with the one line the tool prints (without its
 * name) and whether the command line is at fault.
 */
#ifndef NBW_TARGET_H
#define NBW_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "drive.h"
#include "region.h"

#define TARGET_MAX 256		/* drives per run */
#define TARGET_MAX_THREADS 1024 /* readers (or workers) per drive */

struct target {
	struct drive d;
	int fd;	       /* -1 until target_prepare() */
	uint64_t span; /* bytes swept: the whole target or --span */
};

/*
 * Why the targets cannot be used: the line to print after "<prog>: ", and
 * whether it is a usage error (the tool adds the --help hint and exits 2)
 * or the machine's (exit 1). The tool's nbw_say_err() prints it.
 */
struct target_err {
	bool usage;
	char msg[1024];
};

/* What to collect: a comma list (modified in place) or, with list NULL, discovery. */
struct target_query {
	const char *sysfs_root;
	char *list;
	const char *option; /* the option the list came from, for messages ("--disks") */
	bool required;	    /* discovery must find at least one namespace */
	const char *hint;   /* appended to "no NVMe namespaces found ..." */
};

/*
 * Fill t[0..TARGET_MAX) and their link ceilings. Returns the count, or
 * -errno with e filled: a bad list (-EINVAL, -E2BIG: a usage error), a path
 * that is no target (drive_describe()'s error), no NVMe namespace found
 * where one is required (-ENOENT) or none listed (the listing's error).
 */
int target_collect(const struct target_query *q, struct target *t, struct target_err *e);

/*
 * Check each target against chunk, span (0 = whole target) and threads, and
 * open it read-only. 0, or -errno with e filled: -EINVAL when the geometry
 * does not fit (a usage error), the open's error otherwise.
 */
int target_prepare(struct target *t, int n, uint64_t chunk, uint64_t span, unsigned threads,
		   struct target_err *e);

void target_close(struct target *t, int n);

/* Alignment of a target's regions: its block size, at least the digest block. */
uint32_t target_align(const struct target *t);

/* Split t's span into threads regions (target_prepare() checked that they fit). */
int target_regions(const struct target *t, unsigned threads, struct region *out);

struct provenance;
/*
 * The targets' identity into a document's provenance: an NVMe namespace's
 * model, serial and firmware (its controller under sysfs_root), any other
 * target's path and kind.
 */
void target_provenance(const struct target *t, int n, const char *sysfs_root, struct provenance *p);

#endif
