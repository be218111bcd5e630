/* SPDX-License-Identifier: MIT */
/*
 * affinity.h: which of the source's ports each drive's workers prefer,
 * --rail-affinity (affinity.c):
 *	pcie  the ports nearest the drive in the PCIe tree (the relation
 *	      nvme_link_probe --topology gives, common/pci/pcitopo.h: PIX before
 *	      PXB, PHB, NODE, SYS), every port of that relation
 *	numa  the ports on the drive's NUMA node (any, when none is)
 *	none  every port, in turn
 * Without the option: pcie when the PCI tree is readable and places every
 * drive and a port, else numa (the reason said in the header and JSON).
 * rails_assign() (rails.h) then goes round the preferred ports.
 */
#ifndef NBW_AFFINITY_H
#define NBW_AFFINITY_H

#include <stdbool.h>
#include <stdint.h>

#include "pcitree.h"
#include "rdma.h"
#include "target.h"

/* The words of --rail-affinity, in this order. */
enum rail_affinity { RAIL_AFF_NUMA, RAIL_AFF_PCIE, RAIL_AFF_NONE };

/* "numa", "pcie", "none". */
const char *rail_affinity_name(enum rail_affinity a);

struct affinity_plan {
	enum rail_affinity mode;   /* what was applied */
	char why[256];		   /* why that mode (asked for, or the fallback's reason) */
	uint64_t mask[TARGET_MAX]; /* per drive: bit i = source port i preferred; 0 = NUMA rule */
	int rel[TARGET_MAX];	   /* pcie: the relation (enum pcie_rel) of those ports, -1 */
};

/*
 * The PCI function of RDMA device dev under sysfs_root (class/infiniband/
 * DEV/device, or for a software device the network interface it runs over),
 * into bdf; false if none is in t.
 */
bool affinity_port_bdf(const char *sysfs_root, const struct pcitree *t, const char *dev,
		       char bdf[16]);

/*
 * pcie for one drive (pure on t): bit i of the result set for the ports
 * whose function (port_bdf[i], "" none) is nearest the drive's; *rel their
 * relation. 0 when the drive or no port is in t.
 */
uint64_t affinity_pcie_mask(const struct pcitree *t, const char *drive_bdf, char (*port_bdf)[16],
			    int nports, int *rel);

/*
 * The plan for drives t[0..nt) over ports[0..nports): the mode asked for
 * (given) or chosen, and each drive's preferred ports. Reads the PCI tree
 * under sysfs_root (NULL: /sys) for pcie. Never fails: what cannot be
 * placed falls back to numa, said in plan->why.
 */
void affinity_plan(const char *sysfs_root, bool given, enum rail_affinity want,
		   const struct fab_port *ports, int nports, const struct target *t, int nt,
		   struct affinity_plan *plan);

#endif
