/* SPDX-License-Identifier: MIT */
/*
 * pcitree.h: every PCI function of a machine, read through libpci, with the
 * upstream bridge of each, so that a device's path to its root port can be
 * walked. Three sources:
 *	live         libpci's linux-sysfs method on /sys
 *	sysfs root   the same method on a captured tree (DIR/bus/pci/devices)
 *	dump         libpci's dump method on `lspci -xxx` (or -xxxx) output
 * Parents come from the sysfs device path (live, sysfs root) or from the
 * bridges' secondary bus numbers (dump). Without root the sysfs config file
 * holds only the 64-byte header; the link fields then come from the sysfs
 * attributes (current_link_speed, max_link_width, ...) and the rest stays
 * unknown.
 */
#ifndef NBW_PCITREE_H
#define NBW_PCITREE_H

#include <stdbool.h>

#include "pcilink.h"

struct pcitree {
	struct pcie_fn *fn;
	int n;
	bool from_dump;
	bool header_only; /* some config space was cut to the header (no root) */
	char sysfs_root[4096];
};

/*
 * Read every function. dump_file non-NULL: from that dump; else from
 * sysfs_root ("/sys" live). Returns 0 or -errno; on error err holds a
 * message naming the source.
 */
int pcitree_load(struct pcitree *t, const char *sysfs_root, const char *dump_file, char *err,
		 size_t errlen);
void pcitree_free(struct pcitree *t);

/* The function at bdf ("0000:01:00.0" or "01:00.0"), or NULL. */
const struct pcie_fn *pcitree_find(const struct pcitree *t, const char *bdf);
/*
 * The function of t that the sysfs directory dir's "device" link resolves
 * to, or the nearest one at most up levels above it (a virtio-net
 * interface's device is the virtio device its PCI function carries: up 1).
 * true and bdf filled, or false and bdf empty.
 */
bool pcitree_sysfs_fn(const struct pcitree *t, const char *dir, int up, char bdf[16]);

/*
 * Fill p->hop[] from f (a VF is replaced by its physical function) up to the
 * root port; nothing else of p is set (the rest zero). Returns the hop
 * count, or -ENOENT when a VF's physical function is not in the tree (p
 * then empty).
 */
int pcitree_hops(const struct pcitree *t, const struct pcie_fn *f, struct pcie_path *p);

/*
 * pcitree_hops(), then judge the path (pcie_judge_path). Returns the hop
 * count, or -ENOENT when f has no PCIe port above it.
 */
int pcitree_path(const struct pcitree *t, const struct pcie_fn *f, const char *who, bool may_idle,
		 struct pcie_path *p);

/*
 * Usable GB/s (10^9 bytes/s) of the narrowest PCIe link between the device
 * at bdf and its root port; NAN when it cannot be known. The bandwidth tools
 * load the tree once per run and ask this per drive.
 */
double pcitree_usable_ceiling(const struct pcitree *t, const char *bdf);

/*
 * The kernel's name of the slot holding the function at bdf: the directory
 * of SYSFS_ROOT/bus/pci/slots whose "address" file holds the function's
 * DDDD:BB:DD (ACPI or hotplug slots), into name. Returns 0, -ENOENT when no
 * slot holds it, -ENODATA for a dump (which has no slot names).
 */
int pcitree_slot_name(const struct pcitree *t, const char *bdf, char *name, size_t len);

#endif
