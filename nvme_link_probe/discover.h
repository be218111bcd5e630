/* SPDX-License-Identifier: MIT */
/*
 * discover.h: finding the devices to audit (discover.c). Live or from a
 * captured sysfs tree: the NVMe controllers and RDMA devices of the sysfs
 * classes; from an `lspci -xxx` dump: the functions whose class code (or
 * vendor) says so. Each device's path up to its root port is walked here;
 * nothing is judged (judge.h).
 */
#ifndef NBW_DISCOVER_H
#define NBW_DISCOVER_H

#include "pcitree.h"
#include "probe.h"

/*
 * Fill out[] (MAX_DEVS) with every device found through t and o's source
 * (--pci-dump, else --sysfs-root), sorted by kind then name (or address),
 * each with the hops of its path. The count, or -errno when the sysfs class
 * directory cannot be read.
 */
int discover_devices(const struct options *o, const struct pcitree *t, struct probe_dev *out);

#endif
