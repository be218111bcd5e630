// SPDX-License-Identifier: MIT
/*
 * topo.c: nvme_link_probe's affinity matrix (topo.h): which devices are
 * placed (drives, RDMA devices, GPUs), the relation of every pair as
 * nvidia-smi topo -m names it, the narrowest link between two devices and
 * each drive's nearest ACTIVE RDMA device. The relation of two paths is
 * common/pci/pcitopo.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

const char *topo_kind_name(enum topo_kind k)
{
	return k == TOPO_NVME ? "nvme" : k == TOPO_RDMA ? "rdma" : "gpu";
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
	if (isfinite(p->r.usable))
		return p->r.usable;
	return isfinite(p->r.raw) ? p->r.raw : 0;
}

/* True when RDMA node c is nearer to drive i than the best so far. */
static bool nearer(const struct topology *tp, int i, int c, int best)
{
	const struct topo_pair *pc = topo_pair_of(tp, i, c), *pb;

	if (best < 0)
		return true;
	pb = topo_pair_of(tp, i, best);
	if (pc->r.rel != pb->r.rel)
		return pc->r.rel < pb->r.rel;
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
				topo_pair_of(tp, i, j)->r.rel == topo_pair_of(tp, i, best)->r.rel;
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
	char hb[24];

	x->fn = f;
	x->iommu_group = -1;
	x->p2pmem = -1;
	snprintf(x->bdf, sizeof(x->bdf), "%s", f->bdf);
	if (pcitree_hops(t, f, &x->path) <= 0)
		return false;
	pcie_judge_path(&x->path, who, may_idle);
	pcie_path_host(&x->path, x->host);
	snprintf(hb, sizeof(hb), "%.8s:00.0", x->host);
	x->host_bridge = x->host[0] ? pcitree_find(t, hb) : NULL;
	x->numa_node = pcie_path_numa(&x->path);
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
			pcie_relate(&tp->node[i].path, tp->node[i].numa_node, &tp->node[j].path,
				    tp->node[j].numa_node, &tp->pair[k].r);
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
