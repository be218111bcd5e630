// SPDX-License-Identifier: MIT
/*
 * print.c: nvme_link_probe's printers. One row per device (every hop and
 * link with -v) or the JSON document, each value printed once through
 * common/base/report with its JSON key and its text format; then, on stderr,
 * the lines of the audit. What a value means is judge.c's; this file only
 * lays it out.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bays.h"
#include "health_watch.h"
#include "judge.h"
#include "nbw.h"
#include "print.h"
#include "project.h"
#include "spec.h"

static void report_numa(struct report *r, const char *key, int node)
{
	if (node >= 0)
		report_i64(r, key, NULL, node);
	else
		report_null(r, key, NULL);
}

/* The registers of one function (JSON), as decoded. */
static void report_fn_fields(struct report *r, const struct pcie_fn *f)
{
	unsigned c;

	report_str(r, "bdf", NULL, f->bdf);
	report_str(r, "role", NULL, pcie_role_name(f->role));
	print_speed(r, "lnkcap_speed_gts", (f->known & PCIE_K_LNKCAP) ? f->cap_speed : 0);
	if (f->known & PCIE_K_LNKCAP)
		report_u64(r, "lnkcap_width", NULL, f->cap_width);
	else
		report_null(r, "lnkcap_width", NULL);
	if (f->known & PCIE_K_LNKCAP2) {
		report_arr_begin(r, "supported_speeds_gts");
		for (c = 1; c <= 7; c++)
			if (f->speeds_vector & (1u << (c - 1)))
				report_double(r, NULL, NULL, pcie_speed_gts(c));
		report_arr_end(r);
	} else {
		report_null(r, "supported_speeds_gts", NULL);
	}
	print_speed(r, "max_speed_gts", (f->known & PCIE_K_MAX) ? f->max_speed : 0);
	if (f->known & PCIE_K_MAX)
		report_u64(r, "max_width", NULL, f->max_width);
	else
		report_null(r, "max_width", NULL);
	print_speed(r, "target_speed_gts", (f->known & PCIE_K_LNKCTL2) ? f->target_speed : 0);
	print_speed(r, "speed_gts", (f->known & PCIE_K_LNKSTA) ? f->speed : 0);
	if (f->known & PCIE_K_LNKSTA)
		report_u64(r, "width", NULL, f->width);
	else
		report_null(r, "width", NULL);
	if (f->known & PCIE_K_DLL)
		report_bool(r, "dll_active", NULL, f->dll_active);
	else
		report_null(r, "dll_active", NULL);
	if (f->known & PCIE_K_MPS) {
		report_u64(r, "mps", NULL, f->mps);
		report_u64(r, "mrrs", NULL, f->mrrs);
	} else {
		report_null(r, "mps", NULL);
		report_null(r, "mrrs", NULL);
	}
	report_numa(r, "numa_node", f->numa_node);
	print_opt_str(r, "driver", f->driver);
	print_fn_acs(r, f);
}

static const char *link_text(double gts, unsigned width, bool known, char *buf, size_t len)
{
	char s[16];

	if (!known)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s GT/s x%u", pcie_speed_str(gts, s, sizeof(s)), width);
	return buf;
}

/* -v: one line per hop and one per link. */
static void print_hops_text(struct report *r, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	char a[32], b[32], s[16], m[128];
	int i;

	for (i = 0; i < pa->nhops; i++) {
		const struct pcie_fn *f = pa->hop[i];

		report_text(
			r, "    %-12s %-18s LnkCap %-12s max %-12s", f->bdf,
			pcie_role_name(f->role),
			link_text(f->cap_speed, f->cap_width, f->known & PCIE_K_LNKCAP, a,
				  sizeof(a)),
			link_text(f->max_speed, f->max_width, f->known & PCIE_K_MAX, b, sizeof(b)));
		report_text(r, " target %-4s",
			    (f->known & PCIE_K_LNKCTL2)
				    ? pcie_speed_str(f->target_speed, s, sizeof(s))
				    : "-");
		report_text(r, " LnkSta %-12s",
			    link_text(f->speed, f->width, f->known & PCIE_K_LNKSTA, a, sizeof(a)));
		report_text(r, " DLL %-3s",
			    (f->known & PCIE_K_DLL) ? (f->dll_active ? "up" : "down") : "-");
		if (f->known & PCIE_K_MPS)
			report_text(r, " MPS %-4u MRRS %-4u", f->mps, f->mrrs);
		else
			report_text(r, " MPS -    MRRS -   ");
		if (f->numa_node >= 0)
			report_text(r, " NUMA %d", f->numa_node);
		if (f->driver[0])
			report_text(r, " %s", f->driver);
		report_text(r, "\n");
	}
	for (i = 0; i < pa->nlinks; i++) {
		const struct pcie_link *l = &pa->link[i];

		report_text(r, "    link %s <- %s: %s, %s%s", l->port->bdf, l->dev->bdf,
			    pcie_verdict_name(l->verdict), l->reason,
			    i == pa->bottleneck ? " [narrowest]" : "");
		if (isfinite(l->raw))
			report_text(r, "; %.2f GB/s raw, ", l->raw);
		if (isfinite(l->usable))
			report_text(r, "%.2f usable (MPS %u)", l->usable, l->mps);
		else if (isfinite(l->raw))
			report_text(r, "usable unknown");
		if (l->missing)
			report_text(r, " [missing: %s]",
				    pcie_known_names(l->missing, m, sizeof(m)));
		report_text(r, "\n");
	}
}

/* A NIC's network rate against its PCIe ceiling. */
static void print_network(struct report *r, const struct probe_dev *p)
{
	struct judge_network nw;
	double net, pcie;

	if (!judge_network(p, &nw))
		return;
	net = nw.net_gb_per_s;
	pcie = nw.pcie_gb_per_s;
	report_obj_begin(r, "network");
	print_opt_str(r, "rate", p->rate_text);
	print_opt_str(r, "link_layer", p->link_layer);
	report_double(r, "data_rate_gbits", NULL, p->net_gbits);
	report_double(r, "gb_per_s", NULL, net);
	report_double(r, "pcie_gb_per_s", NULL, pcie);
	report_str(r, "pcie_ceiling", NULL, nw.pcie_ceiling);
	report_str(r, "lower", NULL, nw.lower);
	report_obj_end(r);
	report_text(r, "    port 1: %s%s%s", p->rate_text[0] ? p->rate_text : "rate unknown",
		    p->link_layer[0] ? " " : "", p->link_layer);
	if (isfinite(net))
		report_text(r, " = %.2f GB/s of data", net);
	if (nw.lower && !strcmp(nw.lower, "pcie"))
		report_text(r, "; PCIe (%.2f GB/s %s) is lower: the slot cannot fill the port",
			    pcie, nw.pcie_ceiling);
	else if (nw.lower && !strcmp(nw.lower, "network"))
		report_text(r, "; the network port is lower than PCIe (%.2f GB/s %s)", pcie,
			    nw.pcie_ceiling);
	else if (nw.lower)
		report_text(r, "; PCIe (%s) and the network port match", nw.pcie_ceiling);
	report_text(r, "\n");
}

/* The slot it sits in: {number, name, port_bdf} or null, and why not (JSON); a column. */
static void print_slot(struct report *r, const struct probe_dev *p)
{
	char num[16];

	if (p->have_slot) {
		report_obj_begin(r, "slot");
		if (p->slot_number >= 0)
			report_i64(r, "number", NULL, p->slot_number);
		else
			report_null(r, "number", NULL);
		print_opt_str(r, "name", p->slot_name);
		report_str(r, "port_bdf", NULL, p->slot_port);
		report_obj_end(r);
		report_null(r, "slot_reason", NULL);
	} else {
		report_null(r, "slot", NULL);
		report_str(r, "slot_reason", NULL, p->slot_reason);
	}
	snprintf(num, sizeof(num), "%d", p->slot_number);
	report_text(r, " %-5s", p->slot_number >= 0 ? num : p->slot_name[0] ? p->slot_name : "-");
}

/* Name, kind, address, NUMA node and what the device is. */
static void print_identity(struct report *r, const struct probe_dev *p)
{
	report_str(r, "name", " %-10s", p->name[0] ? p->name : NULL);
	report_str(r, "kind", " %-5s", p->kind == KIND_NVME ? "nvme" : "rdma");
	report_str(r, "bdf", " %-12s", p->bdf[0] ? p->bdf : NULL);
	print_slot(r, p);
	report_numa(r, "numa_node", p->fn ? p->fn->numa_node : -1);
	if (!r->json) {
		if (p->fn && p->fn->numa_node >= 0)
			report_text(r, " %4d", p->fn->numa_node);
		else
			report_text(r, " %4s", "-");
	}
	print_opt_str(r, "driver", p->fn ? p->fn->driver : NULL);
	print_opt_str(r, "model", p->model);
	print_opt_str(r, "firmware", p->firmware);
	if (p->kind == KIND_NVME)
		print_opt_str(r, "transport", p->transport);
	report_bool(r, "virtual_function", NULL, p->fn && p->fn->is_vf);
	print_opt_str(r, "physical_function", p->fn && p->fn->is_vf ? p->fn->pf_bdf : NULL);
}

/* The device's own link ("link" in JSON; "link now" and "max" in text). */
static void print_own_link(struct report *r, const struct pcie_link *own, const struct pcie_fn *dev)
{
	char now[32], max[32];

	if (own) {
		report_obj_begin(r, "link");
		print_speed(r, "speed_gts", own->speed);
		report_u64(r, "width", NULL, own->width);
		print_speed(r, "max_speed_gts", dev->max_speed);
		report_u64(r, "max_width", NULL, dev->max_width);
		print_speed(r, "port_max_speed_gts", own->port->max_speed);
		report_u64(r, "port_max_width", NULL, own->port->max_width);
		print_speed(r, "target_speed_gts",
			    (own->port->known & PCIE_K_LNKCTL2) ? own->port->target_speed : 0);
		print_speed(r, "expected_speed_gts", own->exp_speed);
		report_u64(r, "expected_width", NULL, own->exp_width);
		report_obj_end(r);
	} else {
		report_null(r, "link", NULL);
	}
	report_text(r, " %-12s %-12s",
		    link_text(own ? own->speed : 0, own ? own->width : 0,
			      own && own->verdict != PCIE_UNKNOWN && own->verdict != PCIE_LINK_DOWN,
			      now, sizeof(now)),
		    link_text(dev ? dev->max_speed : 0, dev ? dev->max_width : 0,
			      dev && (dev->known & PCIE_K_MAX), max, sizeof(max)));
}

static void report_size(struct report *r, const char *key, unsigned bytes)
{
	if (bytes)
		report_u64(r, key, NULL, bytes);
	else
		report_null(r, key, NULL);
}

/* A link's payload: MPS set and supported, the endpoint's MRRS, the finding (JSON). */
static void print_payload_json(struct report *r, const struct pcie_link *l)
{
	report_size(r, "mps", l->mps);
	report_size(r, "mps_supported", l->mps_supported);
	report_size(r, "mrrs", l->mrrs);
	report_double(r, "usable_at_supported_mps_gb_per_s", NULL, l->usable_supported);
	report_double(r, "usable_reads_gb_per_s", NULL, l->usable_reads);
	report_str(r, "payload", NULL, l->payload[0] ? l->payload : NULL);
}

/* Text: a line per link of the path with a payload finding. */
static void print_payload_lines(struct report *r, const struct probe_dev *p)
{
	int i;

	for (i = 0; p->have_path && i < p->path.nlinks; i++) {
		const struct pcie_link *l = &p->path.link[i];

		if (l->payload[0])
			report_text(r, "    payload: link %s <- %s: %s\n", l->port->bdf,
				    l->dev->bdf, l->payload);
	}
}

/* JSON only: the function, every hop of the path and every link on it. */
static void print_path_json(struct report *r, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	int i;

	if (p->fn) {
		report_obj_begin(r, "function");
		report_fn_fields(r, p->fn);
		report_obj_end(r);
	}
	report_arr_begin(r, "path");
	for (i = 0; p->have_path && i < pa->nhops; i++) {
		report_obj_begin(r, NULL);
		report_fn_fields(r, pa->hop[i]);
		report_obj_end(r);
	}
	report_arr_end(r);
	report_arr_begin(r, "links");
	for (i = 0; p->have_path && i < pa->nlinks; i++) {
		const struct pcie_link *l = &pa->link[i];

		report_obj_begin(r, NULL);
		report_str(r, "port_bdf", NULL, l->port->bdf);
		report_str(r, "device_bdf", NULL, l->dev->bdf);
		print_speed(r, "speed_gts", l->speed);
		report_u64(r, "width", NULL, l->width);
		print_speed(r, "expected_speed_gts", l->exp_speed);
		report_u64(r, "expected_width", NULL, l->exp_width);
		report_double(r, "raw_gb_per_s", NULL, l->raw);
		report_double(r, "usable_gb_per_s", NULL, l->usable);
		report_str(r, "verdict", NULL, pcie_verdict_name(l->verdict));
		report_str(r, "limited_by", NULL, pcie_limit_name(l->limited_by));
		report_str(r, "reason", NULL, l->reason);
		print_payload_json(r, l);
		report_obj_end(r);
	}
	report_arr_end(r);
}

/* The slot ceiling (judge_slot_bottleneck_bdf()): JSON, and a column. */
static void print_slot_ceiling(struct report *r, const struct probe_dev *p)
{
	const struct pcie_what_if *w = &p->slot_ceiling;

	report_obj_begin(r, "slot_ceiling_gb_per_s");
	report_double(r, "raw", NULL, w->raw);
	report_double(r, "usable", NULL, w->usable);
	report_obj_end(r);
	report_str(r, "slot_bottleneck_bdf", NULL, judge_slot_bottleneck_bdf(p));
	if (!r->json) {
		if (isfinite(w->usable))
			report_text(r, " %8.2f", w->usable);
		else if (isfinite(w->raw))
			report_text(r, " %7.2fr", w->raw);
		else
			report_text(r, " %8s", "-");
	}
}

/* Ceiling, narrowest hop, verdict, what limits it and why. */
static void print_verdict(struct report *r, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	enum pcie_limit limit = judge_limited_by(p);

	report_obj_begin(r, "ceiling_gb_per_s");
	report_double(r, "raw", NULL, p->have_path ? pa->raw : NAN);
	report_double(r, "usable", NULL, p->have_path ? pa->usable : NAN);
	report_obj_end(r);
	if (!r->json) {
		if (p->have_path && isfinite(pa->usable))
			report_text(r, " %7.2f", pa->usable);
		else
			report_text(r, " %7s", "-");
	}
	report_str(r, "bottleneck_bdf", NULL, judge_bottleneck_bdf(p));
	print_slot_ceiling(r, p);
	report_str(r, "verdict", " %-11s", pcie_verdict_name(judge_verdict(p)));
	report_str(r, "limited_by", NULL, pcie_limit_name(limit));
	if (!r->json && limit != PCIE_LIMIT_NONE)
		report_text(r, " (%s)", pcie_limit_name(limit));
	report_str(r, "reason", " %s", judge_reason(p));
	if (p->fn && p->fn->is_vf && p->have_path && p->path.nhops)
		report_text(r, " [virtual function: judged by its physical function %s]",
			    p->fn->pf_bdf);
	report_text(r, "\n");
}

/* The register fields that could not be read on any link of the path. */
static void print_missing(struct report *r, const struct options *o, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	unsigned missing = 0;
	char m[128];
	int i;

	for (i = 0; i < pa->nlinks; i++)
		missing |= pa->link[i].missing;
	report_arr_begin(r, "missing");
	for (i = 0; i < 9; i++)
		if (missing & (1u << i))
			report_str(r, NULL, NULL, pcie_known_names(1u << i, m, sizeof(m)));
	report_arr_end(r);
	if (missing && !o->verbose)
		report_text(r, "    missing: %s%s\n", pcie_known_names(missing, m, sizeof(m)),
			    geteuid() ? " (config space beyond the header needs root)" : "");
}

/* RDMA locality, the site specification's line for its bay, and (-v) the slot in words. */
static void print_device_bay(struct report *r, const struct options *o, const struct probe_dev *p)
{
	const char *narrowest = judge_slot_bottleneck_bdf(p);
	char lbl[80];

	if (p->kind == KIND_NVME && p->local_rdma >= 0)
		report_i64(r, "rdma_active_ports_on_node", NULL, p->local_rdma);
	else if (p->kind == KIND_NVME)
		report_null(r, "rdma_active_ports_on_node", NULL);
	if (p->kind == KIND_RDMA && p->ports_active >= 0)
		report_i64(r, "ports_active", NULL, p->ports_active);
	else if (p->kind == KIND_RDMA)
		report_null(r, "ports_active", NULL);
	if (p->spec) {
		report_obj_begin(r, "site_spec");
		report_i64(r, "line", NULL, p->spec->line);
		print_speed(r, "speed_gts", p->spec->speed);
		report_u64(r, "width", NULL, p->spec->width);
		report_bool(r, "met", NULL, p->spec_ok);
		report_bool(r, "accepted", NULL, p->spec_accepted);
		report_str(r, "reason", NULL, p->spec_ok ? NULL : p->spec_msg);
		report_obj_end(r);
	}
	if (!o->verbose)
		return;
	if (p->have_slot)
		report_text(r, "    %s%s%s%s below port %s", bays_slot_label(p, lbl, sizeof(lbl)),
			    p->slot_number >= 0 && p->slot_name[0] ? " (kernel slot " : "",
			    p->slot_number >= 0 ? p->slot_name : "",
			    p->slot_number >= 0 && p->slot_name[0] ? ")" : "", p->slot_port);
	else
		report_text(r, "    no slot: %s", p->slot_reason);
	if (isfinite(p->slot_ceiling.raw))
		report_text(r, "; slot ceiling %.2f GB/s raw, %.2f usable, narrowest %s",
			    p->slot_ceiling.raw, p->slot_ceiling.usable,
			    narrowest ? narrowest : p->slot_port);
	report_text(r, "\n");
}

/* An NVMe controller's health now: JSON "health"; a text line when it was read. */
static void print_health(struct report *r, const struct probe_dev *p)
{
	if (p->kind == KIND_NVME)
		health_now_json(r, p->have_health ? &p->health : NULL, &p->health_lim,
				p->health_why);
}

/*
 * A drive whose path shares a link with other drives: the narrowest such
 * link, JSON "shared_uplink" and a line under its row (their ceilings add up
 * only to what that link carries).
 */
static void print_shared_uplink(struct report *r, const struct probe_dev *d, int n, int i)
{
	const struct pcie_link *l;
	char sp[16];
	int users, k = project_shared_hop(d, n, i, &users);

	if (k < 0) {
		report_null(r, "shared_uplink", NULL);
		return;
	}
	l = &d[i].path.link[k];
	report_obj_begin(r, "shared_uplink");
	report_str(r, "bdf", NULL, l->dev->bdf);
	print_speed(r, "speed_gts", l->speed);
	report_u64(r, "width", NULL, l->width);
	report_double(r, "raw_gb_per_s", NULL, l->raw);
	report_double(r, "usable_gb_per_s", NULL, l->usable);
	report_i64(r, "drives", NULL, users);
	report_obj_end(r);
	report_text(r,
		    "    shared uplink: hop %s (%s GT/s x%u, %.2f GB/s usable) carries %d drives: "
		    "their ceilings add up to at most that\n",
		    l->dev->bdf, pcie_speed_str(l->speed, sp, sizeof(sp)), l->width,
		    isfinite(l->usable) ? l->usable : l->raw, users);
}

static void print_device(struct report *r, const struct options *o, const struct probe_dev *d,
			 int n, int i)
{
	const struct probe_dev *p = &d[i];
	const struct pcie_path *pa = &p->path;
	const struct pcie_link *own = p->have_path && pa->nlinks ? &pa->link[0] : NULL;
	const struct pcie_fn *dev = p->have_path && pa->nhops ? pa->hop[0] : p->fn;

	report_obj_begin(r, NULL);
	print_identity(r, p);
	print_own_link(r, own, dev);
	print_path_json(r, p);
	print_verdict(r, p);
	print_shared_uplink(r, d, n, i);
	print_payload_lines(r, p);
	print_health(r, p);
	if (p->have_path && own)
		print_missing(r, o, p);
	if (p->kind == KIND_RDMA)
		print_network(r, p);
	if (o->verbose) {
		if (p->model[0])
			report_text(r, "    model %s, firmware %s\n", p->model,
				    p->firmware[0] ? p->firmware : "-");
		if (p->have_path)
			print_hops_text(r, p);
	}
	print_device_bay(r, o, p);
	if (o->expect.speed > 0 || o->expect.width || o->expect_mps) {
		report_obj_begin(r, "expectation");
		report_bool(r, "met", NULL, p->expect_ok);
		report_str(r, "reason", NULL, p->expect_ok ? NULL : p->expect_msg);
		report_obj_end(r);
	}
	report_obj_end(r);
}

/* JSON: the items of --dev, -s and --slot that named no audited device, and why. */
static void print_unmatched(struct report *r, const struct probe_misses *m)
{
	int i;

	report_arr_begin(r, "unmatched");
	for (i = 0; m && i < m->n; i++) {
		report_obj_begin(r, NULL);
		report_str(r, "option", NULL, m->m[i].option);
		report_str(r, "item", NULL, m->m[i].item);
		report_str(r, "reason", NULL, m->m[i].reason);
		report_obj_end(r);
	}
	report_arr_end(r);
}

void print_report(struct report *r, const struct options *o, const struct pcitree *t,
		  const struct site_spec *spec, const struct probe_dev *devs, int n,
		  const struct topology *tp, const struct p2p_system *sys)
{
	bool expect_met = true;
	int i;

	for (i = 0; i < n; i++)
		expect_met &= devs[i].expect_ok;

	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_link_probe");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "source", NULL,
		   o->dump			      ? "pci_dump"
		   : strcmp(o->cc.sysfs_root, "/sys") ? "sysfs_root"
						      : "live");
	report_bool(r, "root_access", NULL, !t->header_only);
	prov_text_line(r, o->prov);
	report_text(r, " %-10s %-5s %-12s %-5s %4s %-12s %-12s %7s %8s %-11s %s\n", "name", "kind",
		    "bdf", "slot", "numa", "link now", "max", "usable", "slot max", "verdict",
		    "reason");
	report_text(r, " %-10s %-5s %-12s %-5s %4s %-12s %-12s %7s %8s\n", "", "", "", "", "", "",
		    "", "GB/s", "GB/s");
	report_arr_begin(r, "devices");
	for (i = 0; i < n; i++)
		print_device(r, o, devs, n, i);
	report_arr_end(r);
	if (o->expect.speed > 0 || o->expect.width || o->expect_mps) {
		report_obj_begin(r, "expect");
		print_speed(r, "speed_gts", o->expect.speed);
		if (o->expect.width)
			report_u64(r, "width", NULL, o->expect.width);
		else
			report_null(r, "width", NULL);
		report_bool(r, "mps", NULL, o->expect_mps);
		report_bool(r, "met", NULL, expect_met);
		report_obj_end(r);
	}
	if (spec)
		print_spec(r, spec, devs, n);
	if (o->project)
		print_projection(r, devs, n, tp);
	if (tp && o->topology)
		print_topology(r, tp, sys);
	if (o->devs || o->sel || o->slots)
		print_unmatched(r, o->misses);
	prov_report(r, o->prov);
	report_obj_end(r);
	report_finish(r);
}

void print_miss_lines(const struct probe_misses *m)
{
	int i;

	for (i = 0; m && i < m->n; i++)
		nbw_err("%s %s: %s", m->m[i].option, m->m[i].item, m->m[i].reason);
}

void print_audit_lines(const struct pcitree *t, const struct site_spec *spec,
		       const struct probe_dev *devs, int n)
{
	int i;

	if (t->header_only)
		nbw_warn("config space beyond the 64-byte header is readable only by root: link "
			 "fields from sysfs attributes, target speed and MPS unknown");
	for (i = 0; i < n; i++) {
		if (devs[i].have_path && devs[i].path.verdict == PCIE_NO_LINK)
			continue;
		if (!devs[i].expect_ok)
			nbw_err("%s%s%s%s: expectation not met: %s", devs[i].name,
				devs[i].name[0] ? " (" : "", devs[i].bdf,
				devs[i].name[0] ? ")" : "", devs[i].expect_msg);
	}
	if (spec)
		print_spec_lines(spec, devs, n);
}
