// SPDX-License-Identifier: MIT
/*
 * affinity.c: the ports each drive's workers prefer (affinity.h): the PCI
 * functions of the source's RDMA ports and drives, their relation in the
 * PCIe tree (common/pci/pcitopo.c) and the fallback to NUMA nodes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#include "pcitopo.h"
#include "sysfs.h"

const char *rail_affinity_name(enum rail_affinity a)
{
	static const char *const names[] = {"numa", "pcie", "none"};

	return (unsigned)a < NBW_ARRAY_SIZE(names) ? names[a] : "numa";
}

bool affinity_port_bdf(const char *sysfs_root, const struct pcitree *t, const char *dev,
		       char bdf[16])
{
	char dir[PATH_MAX], ifname[64];

	bdf[0] = 0;
	if (!dev[0] || strchr(dev, '/') || dev[0] == '.')
		return false;
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s", sysfs_root, dev);
	if (pcitree_sysfs_fn(t, dir, 0, bdf))
		return true;
	if (sysfs_read_attr(dir, "parent", ifname, sizeof(ifname)) || !ifname[0] ||
	    strchr(ifname, '/') || ifname[0] == '.')
		return (bdf[0] = 0, false);
	snprintf(dir, sizeof(dir), "%s/class/net/%s", sysfs_root, ifname);
	return pcitree_sysfs_fn(t, dir, 2, bdf);
}

/* The judged path of the function at bdf; false if it has none. */
static bool path_of(const struct pcitree *t, const char *bdf, bool may_idle, struct pcie_path *p)
{
	const struct pcie_fn *f = bdf[0] ? pcitree_find(t, bdf) : NULL;

	if (!f || pcitree_hops(t, f, p) <= 0)
		return false;
	pcie_judge_path(p, may_idle ? "NIC" : "drive", may_idle);
	return true;
}

uint64_t affinity_pcie_mask(const struct pcitree *t, const char *drive_bdf, char (*port_bdf)[16],
			    int nports, int *rel)
{
	struct pcie_path *dp = malloc(2 * sizeof(*dp)), *pp;
	struct pcie_relation r;
	uint64_t mask = 0;
	int i, best = -1;

	*rel = -1;
	if (!dp)
		return 0;
	pp = dp + 1;
	if (!path_of(t, drive_bdf, false, dp)) {
		free(dp);
		return 0;
	}
	for (i = 0; i < nports && i < 64; i++) {
		if (!path_of(t, port_bdf[i], true, pp))
			continue;
		pcie_relate(dp, pcie_path_numa(dp), pp, pcie_path_numa(pp), &r);
		if (best < 0 || (int)r.rel < best) {
			best = (int)r.rel;
			mask = 0;
		}
		if ((int)r.rel == best)
			mask |= UINT64_C(1) << i;
	}
	free(dp);
	*rel = best;
	return mask;
}

/* pcie: every drive's mask; false (why said) when the tree cannot place them. */
static bool plan_pcie(const char *root, const struct fab_port *ports, int nports,
		      const struct target *t, int nt, struct affinity_plan *plan)
{
	char(*pb)[16] = calloc((size_t)nports + 1, sizeof(*pb));
	struct pcitree tree;
	char err[256];
	int i, placed = 0;
	bool ok = true;

	if (!pb || pcitree_load(&tree, root, NULL, err, sizeof(err))) {
		snprintf(plan->why, sizeof(plan->why), "the PCI tree is not readable (%s)",
			 pb ? err : "out of memory");
		free(pb);
		return false;
	}
	for (i = 0; i < nports; i++)
		placed += affinity_port_bdf(root, &tree, ports[i].dev, pb[i]);
	for (i = 0; ok && i < nt; i++) {
		plan->mask[i] =
			placed ? affinity_pcie_mask(&tree, t[i].d.bdf, pb, nports, &plan->rel[i])
			       : 0;
		if (!plan->mask[i]) {
			snprintf(plan->why, sizeof(plan->why), "%s %s",
				 placed ? t[i].d.name : "no RDMA port",
				 placed ? "has no PCI function in the tree" : "is in the PCI tree");
			ok = false;
		}
	}
	pcitree_free(&tree);
	free(pb);
	return ok;
}

void affinity_plan(const char *sysfs_root, bool given, enum rail_affinity want,
		   const struct fab_port *ports, int nports, const struct target *t, int nt,
		   struct affinity_plan *plan)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	char why[256];
	int i;

	memset(plan, 0, sizeof(*plan));
	for (i = 0; i < TARGET_MAX; i++)
		plan->rel[i] = -1;
	plan->mode = given ? want : RAIL_AFF_PCIE;
	snprintf(plan->why, sizeof(plan->why), "%s",
		 given ? "asked for" : "the PCI tree places every drive and port");
	if (plan->mode == RAIL_AFF_NONE) {
		for (i = 0; i < nt; i++)
			plan->mask[i] = nports >= 64 ? UINT64_MAX : (UINT64_C(1) << nports) - 1;
		return;
	}
	if (plan->mode == RAIL_AFF_NUMA || plan_pcie(root, ports, nports, t, nt, plan))
		return;
	snprintf(why, sizeof(why), "%s", plan->why);
	memset(plan->mask, 0, sizeof(plan->mask));
	for (i = 0; i < TARGET_MAX; i++)
		plan->rel[i] = -1;
	plan->mode = RAIL_AFF_NUMA;
	snprintf(plan->why, sizeof(plan->why), "pcie%s: %s", given ? " asked for" : " not possible",
		 why);
}
