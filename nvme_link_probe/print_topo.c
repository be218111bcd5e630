// SPDX-License-Identifier: MIT
/*
 * print_topo.c: nvme_link_probe's printer of the affinity matrix and the
 * peer-to-peer audit (--topology), text and JSON through common/base/report,
 * and the --expect p2p lines on stderr. What the values mean is topo.c's and
 * p2p.c's; this file lays them out. Every name and reason a sysfs tree
 * gave is printed through nbw_printable() in the text, as nbw_err() prints
 * a line on stderr (a crafted device name cannot write to the terminal);
 * JSON escapes its own.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nbw.h"
#include "print.h"

/* Room for n bytes of a tree's words as nbw_printable() writes them (\xNN: 4 each). */
#define SHOWN(n) (4 * (n))

static void opt_int(struct report *r, const char *key, long long v)
{
	if (v >= 0)
		report_i64(r, key, NULL, v);
	else
		report_null(r, key, NULL);
}

void print_fn_acs(struct report *r, const struct pcie_fn *f)
{
	char buf[96];

	if (!(f->known & PCIE_K_EXTCFG)) {
		report_null(r, "acs", NULL);
		return;
	}
	report_obj_begin(r, "acs");
	report_str(r, "capability", NULL,
		   f->acs_pos ? pcie_acs_names(f->acs_cap, buf, sizeof(buf)) : NULL);
	report_str(r, "control", NULL,
		   f->acs_pos ? pcie_acs_names(f->acs_ctl, buf, sizeof(buf)) : NULL);
	report_obj_end(r);
}

static void print_node(struct report *r, const struct topo_node *x)
{
	char numa[16], name[SHOWN(sizeof(x->name))], drv[SHOWN(sizeof(x->driver))];
	char via[SHOWN(sizeof(x->via))];

	snprintf(numa, sizeof(numa), x->numa_node >= 0 ? "%d" : "-", x->numa_node);
	report_obj_begin(r, NULL);
	report_str(r, "name", NULL, x->name);
	report_str(r, "kind", NULL, topo_kind_name(x->kind));
	report_str(r, "bdf", NULL, x->bdf);
	print_opt_str(r, "via", x->via);
	print_opt_str(r, "driver", x->driver);
	opt_int(r, "numa_node", x->numa_node);
	report_str(r, "host_bridge", NULL, x->host);
	if (x->kind == TOPO_RDMA)
		opt_int(r, "ports_active", x->ports_active);
	else
		report_null(r, "ports_active", NULL);
	opt_int(r, "iommu_group", x->iommu_group);
	print_opt_str(r, "iommu_type", x->iommu_type);
	opt_int(r, "p2pmem_bytes", x->p2pmem_published ? x->p2pmem : -1);
	report_obj_end(r);
	report_text(r, "  %-13s %-5s %-12s %4s %-8s %-12s%s%s%s\n",
		    nbw_printable(x->name, name, sizeof(name)), topo_kind_name(x->kind), x->bdf,
		    numa, x->host,
		    x->driver[0] ? nbw_printable(x->driver, drv, sizeof(drv))
		    : x->kind == TOPO_GPU && x->fn && !x->fn->driver[0] ? "(no driver)"
									: "-",
		    x->via[0] ? " over " : "", nbw_printable(x->via, via, sizeof(via)),
		    x->kind == TOPO_RDMA && x->ports_active <= 0 ? " (no ACTIVE port)" : "");
}

/* The matrix as text: a row per node, the relation in each column. */
static void print_grid(struct report *r, const struct topology *tp)
{
	char name[SHOWN(sizeof(tp->node[0].name))];
	int i, j;

	report_text(r, "\n  %-13s", "");
	for (j = 0; j < tp->n; j++)
		report_text(r, " %-13s", nbw_printable(tp->node[j].name, name, sizeof(name)));
	report_text(r, "\n");
	for (i = 0; i < tp->n; i++) {
		report_text(r, "  %-13s", nbw_printable(tp->node[i].name, name, sizeof(name)));
		for (j = 0; j < tp->n; j++)
			report_text(r, " %-13s",
				    i == j ? "X" : pcie_rel_name(topo_pair_of(tp, i, j)->r.rel));
		report_text(r, "\n");
	}
	report_text(r,
		    "  X the same function; PIX one switch at most, PXB several, both below one\n"
		    "  root port; PHB meet at the host bridge; NODE another root complex of the\n"
		    "  NUMA node; SYS another NUMA node\n");
}

static void print_pair(struct report *r, const struct topology *tp, const struct topo_pair *p)
{
	char a[SHOWN(sizeof(tp->node[0].name))], b[sizeof(a)], why[SHOWN(sizeof(p->reason))];

	report_obj_begin(r, NULL);
	report_str(r, "a", NULL, tp->node[p->a].name);
	report_str(r, "b", NULL, tp->node[p->b].name);
	report_str(r, "relation", NULL, pcie_rel_name(p->r.rel));
	report_i64(r, "switches", NULL, p->r.switches);
	report_str(r, "meet_bdf", NULL, p->r.meet ? p->r.meet->bdf : NULL);
	report_bool(r, "numa_unknown", NULL, p->r.numa_unknown);
	report_obj_begin(r, "narrowest");
	report_str(r, "bdf", NULL, p->r.narrow_bdf);
	report_double(r, "raw_gb_per_s", NULL, p->r.raw);
	report_double(r, "usable_gb_per_s", NULL, p->r.usable);
	report_obj_end(r);
	if (p->audited) {
		report_obj_begin(r, "p2p");
		report_str(r, "verdict", NULL, p2p_verdict_name(p->p2p));
		report_bool(r, "memory", NULL, p->memory);
		report_bool(r, "can", NULL, p->can);
		print_opt_str(r, "acs", p->acs);
		print_opt_str(r, "acs_fix", p->acs_fix);
		report_str(r, "host_rule", NULL, p2p_host_rule_name(p->host_rule));
		report_str(r, "reason", NULL, p->reason);
		report_obj_end(r);
		report_text(r, "  %-13s %-13s %-4s %-8s %-3s %s\n",
			    nbw_printable(tp->node[p->a].name, a, sizeof(a)),
			    nbw_printable(tp->node[p->b].name, b, sizeof(b)),
			    pcie_rel_name(p->r.rel), p2p_verdict_name(p->p2p),
			    p->can ? "yes" : "no", nbw_printable(p->reason, why, sizeof(why)));
		if (p->acs_fix[0])
			report_text(r, "  %-27s fix: %s\n", "", p->acs_fix);
	} else {
		report_null(r, "p2p", NULL);
	}
	report_obj_end(r);
}

static void print_nearest(struct report *r, const struct topology *tp)
{
	char name[SHOWN(sizeof(tp->node[0].name))], rdma[sizeof(name)];
	int i, j;

	for (i = 0; i < tp->n && tp->node[i].kind != TOPO_NVME; i++)
		;
	report_text(r, "\nnearest ACTIVE RDMA device of each drive:%s\n",
		    i < tp->n ? "" : " no drive is placed");
	report_arr_begin(r, "nearest_rdma");
	for (i = 0; i < tp->n; i++) {
		const struct topo_pair *p;
		int b = tp->nearest[i];

		if (tp->node[i].kind != TOPO_NVME)
			continue;
		report_obj_begin(r, NULL);
		report_str(r, "name", NULL, tp->node[i].name);
		report_str(r, "rdma", NULL, b >= 0 ? tp->node[b].name : NULL);
		if (b < 0) {
			report_null(r, "relation", NULL);
			report_text(r, "  %-13s none: no ACTIVE RDMA device is placed\n",
				    nbw_printable(tp->node[i].name, name, sizeof(name)));
		} else {
			p = topo_pair_of(tp, i, b);
			report_str(r, "relation", NULL, pcie_rel_name(p->r.rel));
			report_text(r, "  %-13s %-13s %-4s narrowest %s (%.2f GB/s %s)",
				    nbw_printable(tp->node[i].name, name, sizeof(name)),
				    nbw_printable(tp->node[b].name, rdma, sizeof(rdma)),
				    pcie_rel_name(p->r.rel),
				    p->r.narrow_bdf ? p->r.narrow_bdf : "-",
				    isfinite(p->r.usable) ? p->r.usable : p->r.raw,
				    isfinite(p->r.usable) ? "usable" : "raw");
		}
		report_arr_begin(r, "equally_near");
		for (j = 0; b >= 0 && j < tp->n; j++)
			if (tp->tied[i][j] && j != b) {
				report_str(r, NULL, NULL, tp->node[j].name);
				report_text(r, ", as near: %s",
					    nbw_printable(tp->node[j].name, name, sizeof(name)));
			}
		report_arr_end(r);
		if (b >= 0)
			report_text(r, "\n");
		report_obj_end(r);
	}
	report_arr_end(r);
}

static void print_system(struct report *r, const struct p2p_system *sys)
{
	char iommu[SHOWN(sizeof(sys->iommu_reason))], gpu[SHOWN(sizeof(sys->gpudirect_reason))];
	char cmd[SHOWN(sizeof(sys->cmdline))];

	report_obj_begin(r, "iommu");
	report_str(r, "mode", NULL, p2p_iommu_name(sys->iommu));
	if (sys->known)
		report_i64(r, "groups", NULL, sys->groups);
	else
		report_null(r, "groups", NULL);
	report_str(r, "reason", NULL, sys->iommu_reason);
	print_opt_str(r, "cmdline", sys->cmdline);
	report_obj_end(r);
	report_obj_begin(r, "p2pdma");
	if (sys->known)
		report_i64(r, "providers", NULL, sys->p2pmem_providers);
	else
		report_null(r, "providers", NULL);
	report_obj_end(r);
	report_obj_begin(r, "gpudirect");
	if (sys->known)
		report_bool(r, "nvidia_peermem", NULL, sys->peermem);
	else
		report_null(r, "nvidia_peermem", NULL);
	report_str(r, "reason", NULL, sys->gpudirect_reason);
	report_obj_end(r);
	report_text(r, "\npeer-to-peer: IOMMU %s (%s%s%s); %d function%s publish%s p2pmem; %s\n",
		    p2p_iommu_name(sys->iommu),
		    nbw_printable(sys->iommu_reason, iommu, sizeof(iommu)),
		    sys->cmdline[0] ? "; " : "", nbw_printable(sys->cmdline, cmd, sizeof(cmd)),
		    sys->p2pmem_providers, sys->p2pmem_providers == 1 ? "" : "s",
		    sys->p2pmem_providers == 1 ? "es" : "",
		    nbw_printable(sys->gpudirect_reason, gpu, sizeof(gpu)));
}

void print_topology(struct report *r, const struct topology *tp, const struct p2p_system *sys)
{
	char not_placed[SHOWN(sizeof(tp->not_placed))];
	int i, k;

	report_obj_begin(r, "topology");
	report_text(r, "\ntopology: %d device%s placed (drives, RDMA devices, GPUs)\n", tp->n,
		    tp->n == 1 ? "" : "s");
	report_text(r, "  %-13s %-5s %-12s %4s %-8s %s\n", "name", "kind", "bdf", "numa", "host",
		    "driver");
	report_arr_begin(r, "devices");
	for (i = 0; i < tp->n; i++)
		print_node(r, &tp->node[i]);
	report_arr_end(r);
	print_opt_str(r, "not_placed", tp->not_placed);
	if (tp->not_placed[0])
		report_text(r, "  not placed: %s\n",
			    nbw_printable(tp->not_placed, not_placed, sizeof(not_placed)));
	report_bool(r, "truncated", NULL, tp->truncated);
	if (tp->truncated)
		report_text(r, "  only the first %d devices are placed\n", TOPO_MAX_NODES);
	if (tp->n > 1)
		print_grid(r, tp);
	print_nearest(r, tp);
	print_system(r, sys);
	report_text(r, "  %-13s %-13s %-4s %-8s %-3s %s\n", "", "", "rel", "verdict", "can", "why");
	report_arr_begin(r, "pairs");
	for (k = 0; k < tp->npairs; k++)
		print_pair(r, tp, &tp->pair[k]);
	report_arr_end(r);
	report_obj_end(r);
}

void print_staging_hop(struct report *r, double today, const struct probe_dev *d, int n,
		       const struct topology *tp)
{
	int i, x, drives = 0, can = 0;

	for (i = 0; tp && i < n; i++) {
		if (d[i].kind != KIND_NVME ||
		    (x = topo_node_named(tp, d[i].name[0] ? d[i].name : d[i].bdf)) < 0)
			continue;
		drives++;
		can += tp->nearest[x] >= 0 && topo_pair_of(tp, x, tp->nearest[x])->can;
	}
	report_obj_begin(r, "staging_hop");
	report_i64(r, "dram_gb_per_gb", NULL, 2);
	report_double(r, "dram_gb_per_s", NULL, 2 * today);
	report_i64(r, "drives", NULL, drives);
	report_i64(r, "p2p_drives", NULL, can);
	report_obj_end(r);
	report_text(r,
		    "  staging hop: 2 GB/s of DRAM traffic per GB/s moved (the drive writes each "
		    "byte, the NIC reads it), %.2f GB/s at today's sum\n",
		    2 * today);
	if (!drives)
		report_text(r, "  p2pdma: no drive placed in the PCIe tree\n");
	else if (can == drives)
		report_text(r, "  p2pdma could remove it: every drive reaches its nearest NIC "
			       "peer-to-peer (--topology)\n");
	else
		report_text(
			r,
			"  p2pdma could remove it for %d of %d drives on this node (the others: "
			"--topology says why)\n",
			can, drives);
}

void print_p2p_lines(const struct topology *tp, const struct probe_dev *d, int n)
{
	int i, x;

	for (i = 0; i < n; i++) {
		const struct topo_pair *p;

		if (d[i].kind != KIND_NVME ||
		    (x = topo_node_named(tp, d[i].name[0] ? d[i].name : d[i].bdf)) < 0)
			continue;
		if (tp->nearest[x] < 0) {
			nbw_err("%s (%s): peer-to-peer not possible: no ACTIVE RDMA device is "
				"placed",
				tp->node[x].name, tp->node[x].bdf);
			continue;
		}
		p = topo_pair_of(tp, x, tp->nearest[x]);
		if (!p->can)
			nbw_err("%s (%s) and %s: peer-to-peer not possible (%s): %s",
				tp->node[x].name, tp->node[x].bdf, tp->node[tp->nearest[x]].name,
				p2p_verdict_name(p->p2p), p->reason);
	}
}
