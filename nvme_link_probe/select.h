/* SPDX-License-Identifier: MIT */
/* select.h: the devices the user asked for with --dev and --slot (select.c). */
#ifndef NBW_SELECT_H
#define NBW_SELECT_H

#include "probe.h"

#include "pcitree.h"

/*
 * Keep in d[] only the devices an item of --dev, -s or --slot names, in their
 * order; an item that names none goes to o->misses with why (t: what is at
 * an address instead). The count (0 when every item missed), or minus an
 * exit status after one printed line (a malformed list or selector).
 */
int select_devs(const struct options *o, const struct pcitree *t, struct probe_dev *d, int n);

#endif
