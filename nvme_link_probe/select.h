/* SPDX-License-Identifier: MIT */
/* select.h: the devices the user asked for with --dev and --slot (select.c). */
#ifndef NBW_SELECT_H
#define NBW_SELECT_H

#include "probe.h"

/*
 * Keep in d[] only the devices an item of --dev or of --slot names, in their
 * order. The count, or minus an exit status after one printed line (an item
 * that names nothing is a usage error).
 */
int select_devs(const struct options *o, struct probe_dev *d, int n);

#endif
