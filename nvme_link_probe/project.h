/* SPDX-License-Identifier: MIT */
/* project.h: the upgrade projection, --project (project.c). */
#ifndef NBW_PROJECT_H
#define NBW_PROJECT_H

#include <stdbool.h>

#include "probe.h"

#define PROJECT_SCENARIOS 3

/* What every drive would be: its speed and width (0: as it is). */
struct project_scenario {
	const char *key, *text;
	double speed;
	unsigned width;
};

/* Per scenario and slot state: the sums and what holds the drives back. */
struct proj_sum {
	double raw, usable;
	int ndrives;
	char held[400];	       /* "slot 3 (8 GT/s x4), hop 0000:03:00.0 (5 GT/s x16)" */
	double part[MAX_DEVS]; /* each drive's share (usable, else raw), 0 if none */
	double shared;	       /* the sum once links that several drives share are capped */
	char shared_by[400];
};

struct projection {
	int drives;	     /* NVMe drives with a link to project */
	bool usable;	     /* sums in usable GB/s (else raw: an MPS unknown) */
	double today;	     /* today's path ceilings (as trained) summed, shared links capped */
	double today_summed; /* the same summed per drive, a shared link counted per drive */
	char today_by[400];  /* the shared hops that cap today's sum, "" none */
	struct {
		const struct project_scenario *scenario;
		struct proj_sum now, fixed; /* slots as they are; every slot fixed */
	} row[PROJECT_SCENARIOS];
};

/*
 * The narrowest link on drive d[i]'s path that other projected drives share
 * (its index in d[i].path.link[], the drives behind it into users), or -1
 * when it shares none: the uplink its bandwidth is split on.
 */
int project_shared_hop(const struct probe_dev *d, int n, int i, int *users);

/* The projection of the drives among d. */
void project_drives(const struct probe_dev *d, int n, struct projection *pj);

#endif
