// SPDX-License-Identifier: MIT
/*
 * print_site.c: nvme_link_probe's printer of what the site asks for and what
 * it could have: the site slot specification's verdict (--expect-file: JSON,
 * and a line on stderr per bay that falls short) and the upgrade projection
 * (--project: its table and JSON, the drives without a local RDMA port).
 * What the values mean is spec.c's and project.c's; this file lays them out.
 */
#include <stdio.h>

#include "nbw.h"
#include "print.h"
#include "project.h"
#include "spec.h"

void print_spec_lines(const struct site_spec *s, const struct probe_dev *d, int n)
{
	char a[16], bay[80];
	int i, j;

	for (i = 0; i < n; i++)
		if (d[i].spec && !d[i].spec_ok)
			nbw_err("%s", d[i].spec_msg);
	for (j = 0; j < s->n; j++) {
		const struct bay_spec *b = &s->bay[j];

		if (!b->matched)
			nbw_err("%s: expected %s GT/s x%u (%s:%d), no device found in it",
				spec_bay_name(b, bay, sizeof(bay)),
				pcie_speed_str(b->speed, a, sizeof(a)), b->width, s->file, b->line);
	}
}

void print_spec(struct report *r, const struct site_spec *s, const struct probe_dev *d, int n)
{
	char a[16], bay[80], msg[200];
	bool met = true;
	int i, j;

	report_obj_begin(r, "site_spec");
	report_str(r, "file", NULL, s->file);
	report_arr_begin(r, "short");
	for (i = 0; i < n; i++) {
		if (!d[i].spec || d[i].spec_ok)
			continue;
		met = false;
		report_obj_begin(r, NULL);
		report_str(r, "bay", NULL, spec_bay_name(d[i].spec, bay, sizeof(bay)));
		report_i64(r, "line", NULL, d[i].spec->line);
		report_str(r, "reason", NULL, d[i].spec_msg);
		report_obj_end(r);
	}
	for (j = 0; j < s->n; j++) {
		if (s->bay[j].matched)
			continue;
		met = false;
		snprintf(msg, sizeof(msg), "expected %s GT/s x%u, no device found in it",
			 pcie_speed_str(s->bay[j].speed, a, sizeof(a)), s->bay[j].width);
		report_obj_begin(r, NULL);
		report_str(r, "bay", NULL, spec_bay_name(&s->bay[j], bay, sizeof(bay)));
		report_i64(r, "line", NULL, s->bay[j].line);
		report_str(r, "reason", NULL, msg);
		report_obj_end(r);
	}
	report_arr_end(r);
	report_bool(r, "met", NULL, met);
	report_obj_end(r);
}

static void print_proj_sum(struct report *r, const char *key, const struct proj_sum *s)
{
	report_obj_begin(r, key);
	report_double(r, "raw", NULL, s->raw);
	report_double(r, "usable", NULL, s->usable);
	report_str(r, "held_back_by", NULL, s->held[0] ? s->held : NULL);
	report_double(r, "shared_links_capped", NULL, s->shared);
	report_str(r, "shared_links", NULL, s->shared_by[0] ? s->shared_by : NULL);
	report_obj_end(r);
}

/* Drives with no ACTIVE RDMA port on their NUMA node. */
static void print_no_local_rdma(struct report *r, const struct probe_dev *d, int n)
{
	char lbl[100];
	int i, flagged = 0, unknown = 0, drives = 0;

	report_arr_begin(r, "no_local_rdma");
	for (i = 0; i < n; i++) {
		if (d[i].kind != KIND_NVME)
			continue;
		drives++;
		unknown += d[i].local_rdma < 0;
		if (d[i].local_rdma != 0)
			continue;
		snprintf(lbl, sizeof(lbl), "%s%s%s%s", d[i].name, d[i].name[0] ? " (" : "",
			 d[i].bdf, d[i].name[0] ? ")" : "");
		report_str(r, NULL, NULL, lbl);
		report_text(r, "  %s, NUMA node %d: no ACTIVE RDMA port on its NUMA node\n", lbl,
			    d[i].fn ? d[i].fn->numa_node : -1);
		flagged++;
	}
	report_arr_end(r);
	if (unknown)
		report_text(r, "  RDMA port state unknown for %d drive%s (no sysfs in a dump)\n",
			    unknown, unknown == 1 ? "" : "s");
	else if (!flagged && drives)
		report_text(r, "  every drive has an ACTIVE RDMA port on its NUMA node\n");
}

/* One scenario's row: JSON object and table line, then what holds it back. */
static void print_scenario(struct report *r, bool usable, const struct project_scenario *sc,
			   const struct proj_sum *now, const struct proj_sum *fixed)
{
	report_obj_begin(r, NULL);
	report_str(r, "scenario", NULL, sc->key);
	print_speed(r, "drive_speed_gts", sc->speed);
	if (sc->width)
		report_u64(r, "drive_width", NULL, sc->width);
	else
		report_null(r, "drive_width", NULL);
	print_proj_sum(r, "slots_as_they_are_gb_per_s", now);
	print_proj_sum(r, "slots_fixed_gb_per_s", fixed);
	report_obj_end(r);
	report_text(r, "  %-22s %18.2f %18.2f\n", sc->text, now->shared, fixed->shared);
	if (now->held[0])
		report_text(r, "      held back by %s\n", now->held);
	if (fixed->held[0])
		report_text(r, "      with every slot fixed, still by %s\n", fixed->held);
	if (now->shared_by[0] || fixed->shared_by[0])
		report_text(r, "      capped by shared links (summed per drive: %.2f / %.2f): %s\n",
			    usable ? now->usable : now->raw, usable ? fixed->usable : fixed->raw,
			    fixed->shared_by[0] ? fixed->shared_by : now->shared_by);
}

void print_projection(struct report *r, const struct probe_dev *d, int n, const struct topology *tp)
{
	struct projection pj;
	int k;

	project_drives(d, n, &pj);
	report_obj_begin(r, "projection");
	report_i64(r, "drives", NULL, pj.drives);
	report_str(r, "unit", NULL, pj.usable ? "usable" : "raw");
	report_double(r, "today_gb_per_s", NULL, pj.today);
	report_double(r, "today_summed_gb_per_s", NULL, pj.today_summed);
	report_str(r, "today_capped_by", NULL, pj.today_by[0] ? pj.today_by : NULL);
	report_text(r,
		    "\nprojection: %s GB/s summed over %d drive%s, shared links capped (today, "
		    "as trained: %.2f)\n",
		    pj.usable ? "usable" : "raw (MPS unknown)", pj.drives,
		    pj.drives == 1 ? "" : "s", pj.today);
	if (pj.today_by[0])
		report_text(r, "  today's %.2f summed per drive is capped to %.2f by %s\n",
			    pj.today_summed, pj.today, pj.today_by);
	report_text(r, "  %-22s %18s %18s\n", "scenario", "slots as they are", "slots fixed");
	report_arr_begin(r, "scenarios");
	for (k = 0; k < PROJECT_SCENARIOS; k++)
		print_scenario(r, pj.usable, pj.row[k].scenario, &pj.row[k].now, &pj.row[k].fixed);
	report_arr_end(r);
	print_no_local_rdma(r, d, n);
	print_staging_hop(r, pj.today, d, n, tp);
	report_obj_end(r);
}
