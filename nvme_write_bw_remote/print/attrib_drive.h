/* SPDX-License-Identifier: MIT */
/*
 * attrib_drive.h: the drives' own account in the explanation (attrib_drive.c):
 * a drive that throttled, crossed its warning temperature, logged new media
 * errors, raised a critical warning or was unsteady in its window is named
 * with that evidence; a drive ATTRIB_RAIL_LOW_PCT below its peers' median
 * with none of it, and no change of its PCIe link counted, is the drive
 * itself. Pure: built from a result's drives (their health log around the
 * window and their seconds' shape, read here or sent by the source) and the
 * links watched under load.
 */
#ifndef NBW_ATTRIB_DRIVE_H
#define NBW_ATTRIB_DRIVE_H

#include <stdbool.h>

#include "linkload.h"
#include "report.h"
#include "result.h"

#define ATTRIB_DRIVE_MAX 32 /* drives named in one explanation */

/* The drive rules, in the order the text says them. */
enum attrib_drive_rule {
	ADR_THROTTLED, /* thermal management transitions or time in the window */
	ADR_HOT,       /* at or above its warning temperature, or minutes there */
	ADR_MEDIA,     /* new media and data integrity errors */
	ADR_CRITICAL,  /* a critical warning bit set at the close */
	ADR_UNSTEADY,  /* its seconds: cv above --max-cv, or one under half the median */
	ADR_LINK,      /* its PCIe link dropped under load, or an AER count moved */
	ADR_N,
};

/* How a low drive with no rule fired is explained. */
enum attrib_drive_none {
	ADN_NONE,     /* a rule fired, or it is not low */
	ADN_ITSELF,   /* health read, link watched: nothing counted, the drive itself */
	ADN_NO_LINK,  /* health read, its link not watched on this side */
	ADN_NOT_READ, /* its health log was not read: it cannot be told */
};

struct attrib_drive {
	char path[PATH_MAX];
	char name[64];	  /* the path's base name */
	char side[8];	  /* "local" (the sink's own) or "rdma" (a source's) */
	char source[96];  /* the source a sink was told of this drive by; "": this node's own */
	double below_pct; /* % below its peers' median; NAN: not compared or not low */
	unsigned rules;	  /* 1 << enum attrib_drive_rule */
	enum attrib_drive_none none;
	char text[768];
};

/*
 * The drives of d[0..n) to name: each with a rule fired, and each
 * ATTRIB_RAIL_LOW_PCT or more below its peers' median (two drives or more);
 * ll: the links watched on this side (NULL: none), matched by the drive's
 * name; max_cv: the variation above which a window is unsteady; side: "local"
 * or "rdma"; source: the source that told a sink of these drives (its text
 * says "drive NAME of source PEER": never taken for the sink's own drive of
 * that name), NULL for this node's own. Returns the count written into out
 * (at most max).
 */
int attrib_drives(const struct result_drive *d, int n, const struct linkload *ll, double max_cv,
		  const char *side, const char *source, struct attrib_drive *out, int max);

/* "drive_attribution": a line each under " Drives explained:" and an object each; nothing for
 * none. */
void attrib_drives_print(struct report *r, const struct attrib_drive *a, int n);

#endif
