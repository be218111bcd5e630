/* SPDX-License-Identifier: MIT */
/*
 * pcitopo.h: how near two PCI functions sit, as nvidia-smi topo -m names it
 * (pcitopo.c), from their paths to the root port (pcitree_hops(), judged by
 * pcie_judge_path()). Pure. nvme_link_probe's matrix and the remote tool's
 * rails by affinity share it. Relations, nearest first:
 *	X     the same function (a virtual function and its physical one)
 *	PIX   the paths meet below one root port crossing at most one switch
 *	      (one switch's internal bus, or functions of one device)
 *	PXB   they meet below one root port crossing more than one switch
 *	PHB   they meet only at the host bridge: different root ports of one
 *	      root complex (the same root bus)
 *	NODE  different root complexes on one NUMA node (an unknown node, -1,
 *	      counts as the same, as a one-node machine reports it)
 *	SYS   different NUMA nodes
 */
#ifndef NBW_PCITOPO_H
#define NBW_PCITOPO_H

#include <stdbool.h>

#include "pcilink.h"

enum pcie_rel { PCIE_REL_X, PCIE_REL_PIX, PCIE_REL_PXB, PCIE_REL_PHB, PCIE_REL_NODE, PCIE_REL_SYS };

/* "X", "PIX", ... "SYS". */
const char *pcie_rel_name(enum pcie_rel r);

/* Where two paths meet, and the narrowest link between the two. */
struct pcie_relation {
	enum pcie_rel rel;
	int switches;		    /* switches crossed below the meeting point */
	const struct pcie_fn *meet; /* where the paths meet; NULL at or above the host bridge */
	bool numa_unknown;	    /* NODE only because a node is -1 */
	double raw, usable;	    /* the narrowest link between the two; NAN unknown */
	const char *narrow_bdf;	    /* its lower end; NULL when no link is between them */
};

/*
 * Relate the devices of paths a and b (hops filled, links judged), on NUMA
 * nodes numa_a and numa_b (-1 unknown).
 */
void pcie_relate(const struct pcie_path *a, int numa_a, const struct pcie_path *b, int numa_b,
		 struct pcie_relation *out);

/* The root complex of a path: "DDDD:BB", the bus of its top hop ("" without hops). */
void pcie_path_host(const struct pcie_path *p, char host[16]);

/* The NUMA node of a path's device, else of its top hop; -1 unknown. */
int pcie_path_numa(const struct pcie_path *p);

#endif
