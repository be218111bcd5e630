// SPDX-License-Identifier: MIT
/*
 * topo.c: nvme_link_probe's affinity matrix (topo.h): which devices are
 * placed (drives, RDMA devices, GPUs), the relation of every pair as
 * nvidia-smi topo -m names it, the narrowest link between two devices and
 * each drive's nearest ACTIVE RDMA device. The relation is computed from
 * the two paths alone: where they meet, how many switches lie below that
 * point, and, when they do not meet, the root complexes and NUMA nodes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

const char *topo_rel_name(enum topo_rel r)
{
	static const char *const names[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS"};

	return (unsigned)r < NBW_ARRAY_SIZE(names) ? names[r] : "?";
}

const char *topo_kind_name(enum topo_kind k)
{
	return k == TOPO_NVME ? "nvme" : k == TOPO_RDMA ? "rdma" : "gpu";
}

/* Index of f among the first n hops of p, or -1. */
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

/* The narrowest link whose lower end is among hops [0, below) of p, into pr. */
static void narrowest_below(const struct pcie_path *p, int below, struct topo_pair *pr)
{
	int k;

	for (k = 0; k < p->nlinks; k++) {
		const struct pcie_link *l = &p->link[k];
		int at = hop_index(p, l->dev);
		bool by_usable = isfinite(l->usable) && (isfinite(pr->usable) || !pr->narrow_bdf);
		double v = by_usable ? l->usable : l->raw, cur = by_usable ? pr->usable : pr->raw;

		if (at < 0 || at >= below || !isfinite(v))
			continue;
		if (!pr->narrow_bdf || !isfinite(cur) || v < cur) {
			pr->raw = l->raw;
			pr->usable = l->usable;
			pr->narrow_bdf = l->dev->bdf;
		}
	}
}

void topo_relate(const struct topo_node *a, const struct topo_node *b, struct topo_pair *pr)
{
	const struct pcie_path *pa = &a->path, *pb = &b->path;
	int ia = -1, jb = -1, i;

	pr->meet = NULL;
	pr->switches = 0;
	pr->numa_unknown = false;
	pr->raw = pr->usable = NAN;
	pr->narrow_bdf = NULL;
	for (i = 0; i < pa->nhops && ia < 0; i++) {
		jb = hop_index(pb, pa->hop[i]);
		if (jb >= 0)
			ia = i;
	}
	if (ia == 0 || (ia < 0 && a->fn && a->fn == b->fn)) {
		pr->rel = TOPO_X;
		pr->meet = a->fn;
		return;
	}
	if (ia > 0) {
		pr->meet = pa->hop[ia];
		pr->switches = switches_below(pa, ia) + switches_below(pb, jb) +
			       (pr->meet->role == PCIE_ROLE_SWITCH_UP);
		pr->rel = pr->switches <= 1 ? TOPO_PIX : TOPO_PXB;
	} else {
		ia = pa->nhops;
		jb = pb->nhops;
		if (!strcmp(a->host, b->host))
			pr->rel = TOPO_PHB;
		else if (a->numa_node < 0 || b->numa_node < 0 || a->numa_node == b->numa_node) {
			pr->rel = TOPO_NODE;
			pr->numa_unknown = a->numa_node < 0 || b->numa_node < 0;
		} else {
			pr->rel = TOPO_SYS;
		}
	}
	narrowest_below(pa, ia, pr);
	narrowest_below(pb, jb, pr);
}

const struct topo_pair *topo_pair_of(const struct topology *tp, int i, int j)
{
	int a = i < j ? i : j, b = i < j ? j : i;

	/* Pairs are in order (0,1) (0,2) ... (1,2) ...: row a starts after a rows. */
	return &tp->pair[a * tp->n - a * (a + 1) / 2 + (b - a - 1)];
}

/* The narrowest link of a pair as one number to rank by (unknown: 0). */
static double pair_width(const struct topo_pair *p)
{
	if (isfinite(p->usable))
		return p->usable;
	return isfinite(p->raw) ? p->raw : 0;
}

/* True when RDMA node c is nearer to drive i than the best so far. */
static bool nearer(const struct topology *tp, int i, int c, int best)
{
	const struct topo_pair *pc = topo_pair_of(tp, i, c), *pb;

	if (best < 0)
		return true;
	pb = topo_pair_of(tp, i, best);
	if (pc->rel != pb->rel)
		return pc->rel < pb->rel;
	return pair_width(pc) > pair_width(pb);
}

void topo_nearest(struct topology *tp)
{
	int i, j;

	for (i = 0; i < tp->n; i++) {
		int best = -1;

		tp->nearest[i] = -1;
		memset(tp->tied[i], 0, sizeof(tp->tied[i]));
		if (tp->node[i].kind != TOPO_NVME)
			continue;
		for (j = 0; j < tp->n; j++)
			if (j != i && tp->node[j].kind == TOPO_RDMA &&
			    tp->node[j].ports_active > 0 && nearer(tp, i, j, best))
				best = j;
		tp->nearest[i] = best;
		for (j = 0; best >= 0 && j < tp->n; j++)
			tp->tied[i][j] =
				j != i && tp->node[j].kind == TOPO_RDMA &&
				tp->node[j].ports_active > 0 &&
				topo_pair_of(tp, i, j)->rel == topo_pair_of(tp, i, best)->rel;
	}
}

/* A GPU: a 3D controller, or a VGA controller from a vendor whose GPUs compute. */
static bool is_gpu(const struct pcie_fn *f)
{
	if (f->is_vf)
		return false;
	if ((f->class_code >> 8) == 0x0302)
		return true;
	return (f->class_code >> 8) == 0x0300 && (f->vendor == 0x10de || f->vendor == 0x1002);
}

/* Fill the parts of a node every kind shares from its function; false if no path. */
static bool node_place(const struct pcitree *t, struct topo_node *x, const struct pcie_fn *f,
		       const char *who, bool may_idle)
{
	const struct pcie_fn *top;

	x->fn = f;
	x->iommu_group = -1;
	x->p2pmem = -1;
	snprintf(x->bdf, sizeof(x->bdf), "%s", f->bdf);
	if (pcitree_hops(t, f, &x->path) <= 0)
		return false;
	pcie_judge_path(&x->path, who, may_idle);
	top = x->path.hop[x->path.nhops - 1];
	snprintf(x->host, sizeof(x->host), "%04x:%02x", top->domain & 0xffff, top->bus & 0xff);
	x->numa_node = x->path.hop[0]->numa_node >= 0 ? x->path.hop[0]->numa_node : top->numa_node;
	return true;
}

static void note_unplaced(struct topology *tp, const char *name, const char *why)
{
	size_t used = strlen(tp->not_placed);

	if (used < sizeof(tp->not_placed) - 1)
		snprintf(tp->not_placed + used, sizeof(tp->not_placed) - used, "%s%s (%s)",
			 used ? ", " : "", name, why);
}

/* The drives and RDMA devices of d with a PCI function (their own or a carrier's). */
static void add_devices(const struct pcitree *t, const struct probe_dev *d, int n,
			struct topology *tp)
{
	int i;

	for (i = 0; i < n; i++) {
		const struct pcie_fn *f = d[i].fn;
		struct topo_node *x = &tp->node[tp->n];

		if (!f && d[i].carrier_bdf[0])
			f = pcitree_find(t, d[i].carrier_bdf);
		if (!f) {
			note_unplaced(tp, d[i].name[0] ? d[i].name : d[i].bdf,
				      d[i].why_no_link[0] ? d[i].why_no_link : "no PCI function");
			continue;
		}
		if (tp->n == TOPO_MAX_NODES) {
			tp->truncated = true;
			return;
		}
		memset(x, 0, sizeof(*x));
		x->kind = d[i].kind == KIND_NVME ? TOPO_NVME : TOPO_RDMA;
		snprintf(x->name, sizeof(x->name), "%s", d[i].name[0] ? d[i].name : d[i].bdf);
		if (!d[i].fn)
			snprintf(x->via, sizeof(x->via), "%s", d[i].soft_parent);
		snprintf(x->driver, sizeof(x->driver), "%s", f->driver);
		x->ports_active = x->kind == TOPO_RDMA ? d[i].ports_active : 0;
		if (node_place(t, x, f, x->kind == TOPO_NVME ? "drive" : "NIC",
			       x->kind == TOPO_RDMA))
			tp->n++;
		else
			note_unplaced(tp, x->name, "its physical function is not in the PCI tree");
	}
}

static void add_gpus(const struct pcitree *t, struct topology *tp)
{
	int i;

	for (i = 0; i < t->n; i++) {
		struct topo_node *x = &tp->node[tp->n];

		if (!is_gpu(&t->fn[i]))
			continue;
		if (tp->n == TOPO_MAX_NODES) {
			tp->truncated = true;
			return;
		}
		memset(x, 0, sizeof(*x));
		x->kind = TOPO_GPU;
		snprintf(x->name, sizeof(x->name), "%s", t->fn[i].bdf);
		snprintf(x->driver, sizeof(x->driver), "%s", t->fn[i].driver);
		if (node_place(t, x, &t->fn[i], "GPU", true))
			tp->n++;
	}
}

int topo_build(const struct pcitree *t, const struct probe_dev *d, int n, struct topology *tp)
{
	int i, j, k = 0;

	memset(tp, 0, sizeof(*tp));
	tp->node = calloc(TOPO_MAX_NODES, sizeof(*tp->node));
	if (!tp->node)
		return -ENOMEM;
	add_devices(t, d, n, tp);
	add_gpus(t, tp);
	tp->pair =
		calloc(tp->n > 1 ? (size_t)tp->n * (size_t)(tp->n - 1) / 2 : 1, sizeof(*tp->pair));
	if (!tp->pair) {
		topo_free(tp);
		return -ENOMEM;
	}
	for (i = 0; i < tp->n; i++)
		for (j = i + 1; j < tp->n; j++, k++) {
			tp->pair[k].a = i;
			tp->pair[k].b = j;
			topo_relate(&tp->node[i], &tp->node[j], &tp->pair[k]);
		}
	tp->npairs = k;
	topo_nearest(tp);
	return 0;
}

void topo_free(struct topology *tp)
{
	free(tp->node);
	free(tp->pair);
	tp->node = NULL;
	tp->pair = NULL;
	tp->n = tp->npairs = 0;
}

int topo_node_named(const struct topology *tp, const char *name)
{
	int i;

	for (i = 0; i < tp->n; i++)
		if (!strcmp(tp->node[i].name, name) || !strcmp(tp->node[i].bdf, name))
			return i;
	return -1;
}
