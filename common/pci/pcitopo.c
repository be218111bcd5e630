// SPDX-License-Identifier: MIT
/*
 * pcitopo.c: the relation of two PCI functions (pcitopo.h) from their paths
 * alone: where the paths meet, how many switches lie below that point, and,
 * when they do not meet, their root complexes and NUMA nodes; with the
 * narrowest link between the two.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcitopo.h"

const char *pcie_rel_name(enum pcie_rel r)
{
	static const char *const names[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS"};

	return (unsigned)r < NBW_ARRAY_SIZE(names) ? names[r] : "?";
}

/* Index of f among the hops of p, or -1. */
static int hop_index(const struct pcie_path *p, const struct pcie_fn *f)
{
	int i;

	for (i = 0; i < p->nhops; i++)
		if (p->hop[i] == f)
			return i;
	return -1;
}

/* Switches whose upstream port is among hops [0, below) of p. */
static int switches_below(const struct pcie_path *p, int below)
{
	int i, n = 0;

	for (i = 0; i < below; i++)
		n += p->hop[i]->role == PCIE_ROLE_SWITCH_UP;
	return n;
}

/* The narrowest link whose lower end is among hops [0, below) of p, into out. */
static void narrowest_below(const struct pcie_path *p, int below, struct pcie_relation *out)
{
	int k;

	for (k = 0; k < p->nlinks; k++) {
		const struct pcie_link *l = &p->link[k];
		int at = hop_index(p, l->dev);
		bool by_usable = isfinite(l->usable) && (isfinite(out->usable) || !out->narrow_bdf);
		double v = by_usable ? l->usable : l->raw, cur = by_usable ? out->usable : out->raw;

		if (at < 0 || at >= below || !isfinite(v))
			continue;
		if (!out->narrow_bdf || !isfinite(cur) || v < cur) {
			out->raw = l->raw;
			out->usable = l->usable;
			out->narrow_bdf = l->dev->bdf;
		}
	}
}

void pcie_path_host(const struct pcie_path *p, char host[16])
{
	const struct pcie_fn *top = p->nhops ? p->hop[p->nhops - 1] : NULL;

	host[0] = 0;
	if (top)
		snprintf(host, 16, "%04x:%02x", top->domain & 0xffff, top->bus & 0xff);
}

int pcie_path_numa(const struct pcie_path *p)
{
	if (!p->nhops)
		return -1;
	return p->hop[0]->numa_node >= 0 ? p->hop[0]->numa_node : p->hop[p->nhops - 1]->numa_node;
}

void pcie_relate(const struct pcie_path *pa, int numa_a, const struct pcie_path *pb, int numa_b,
		 struct pcie_relation *out)
{
	char ha[16], hb[16];
	int ia = -1, jb = -1, i;

	*out = (struct pcie_relation){.raw = NAN, .usable = NAN};
	for (i = 0; i < pa->nhops && ia < 0; i++) {
		jb = hop_index(pb, pa->hop[i]);
		if (jb >= 0)
			ia = i;
	}
	if (ia == 0) {
		out->rel = PCIE_REL_X;
		out->meet = pa->hop[0];
		return;
	}
	if (ia > 0) {
		out->meet = pa->hop[ia];
		out->switches = switches_below(pa, ia) + switches_below(pb, jb) +
				(out->meet->role == PCIE_ROLE_SWITCH_UP);
		out->rel = out->switches <= 1 ? PCIE_REL_PIX : PCIE_REL_PXB;
	} else {
		ia = pa->nhops;
		jb = pb->nhops;
		pcie_path_host(pa, ha);
		pcie_path_host(pb, hb);
		if (!strcmp(ha, hb)) {
			out->rel = PCIE_REL_PHB;
		} else if (numa_a < 0 || numa_b < 0 || numa_a == numa_b) {
			out->rel = PCIE_REL_NODE;
			out->numa_unknown = numa_a < 0 || numa_b < 0;
		} else {
			out->rel = PCIE_REL_SYS;
		}
	}
	narrowest_below(pa, ia, out);
	narrowest_below(pb, jb, out);
}
