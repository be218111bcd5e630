// SPDX-License-Identifier: MIT
/*
 * sizes.c: -a, as ib_write_bw -a: one complete run (handshake, window,
 * verification) at every message size from 64K to 4M on both sides, then the
 * curve of the RDMA rate against the size and its verdict (common/sweep.h)
 * against the rails' line rate: where it goes flat, and whether that is the
 * fabric's limit or below it.
 */
#include <math.h>
#include <stdio.h>

#include "nbw.h"
#include "parse.h"
#include "remote.h"
#include "sweep.h"
#include "window.h"

#define NSIZES 7 /* 64K .. 4M, powers of two */

/* The curve, its verdict and the table (text) / "sweep" (JSON). */
static void print_curve(struct report *r, const uint64_t *size, const double *gbps, int n,
			double line_gbits)
{
	const char *labels[NSIZES];
	char names[NSIZES][32];
	struct sweep_verdict v;
	double ceiling = line_gbits > 0 ? line_gbits / 8 : NAN;
	int i;

	for (i = 0; i < n; i++) {
		format_size(size[i], names[i], sizeof(names[i]));
		labels[i] = names[i];
	}
	report_obj_begin(r, "sweep");
	report_text(r, " %-10s %10s %12s\n", "size", report_bw_unit(r), "% of line");
	report_arr_begin(r, "points");
	for (i = 0; i < n; i++) {
		report_obj_begin(r, NULL);
		report_u64(r, "size", NULL, size[i]);
		report_text(r, " %-10s", names[i]);
		report_bw(r, "gb_per_s", " %10.3f", gbps[i] * 1e9);
		report_double(r, "percent_of_line_rate", " %12.1f\n", gbps[i] / ceiling * 100);
		report_obj_end(r);
	}
	report_arr_end(r);
	report_double(r, "line_rate_gb_per_s", NULL, ceiling);
	if (!sweep_judge(gbps, labels, n, ceiling, "rails' line rate", "message-size", &v)) {
		report_obj_begin(r, "verdict");
		report_str(r, "flat_from", NULL, labels[v.flat_from]);
		report_double(r, "max_gb_per_s", NULL, v.max_gb_per_s);
		report_double(r, "pct_of_ceiling", NULL, v.pct);
		report_str(r, "kind", NULL, sweep_kind_name(v.kind));
		report_str(r, "text", " verdict: %s\n", v.text);
		report_obj_end(r);
	}
	report_obj_end(r);
}

int run_all_sizes(struct options *o, const struct run_state *run, struct report *r)
{
	uint64_t size[NSIZES];
	double gbps[NSIZES], line = 0;
	struct run_figures fig;
	int i, n = 0, rc, worst = 0;

	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "role", NULL, o->peer ? "source" : "sink");
	report_arr_begin(r, "sizes");
	for (i = 0; i < NSIZES && !nbw_interrupted(); i++) {
		o->chunk = (64ULL << 10) << i;
		report_text(r, "\n -a: message size %llu KiB\n",
			    (unsigned long long)(o->chunk >> 10));
		rc = o->peer ? run_source(o, run, r, &fig) : run_sink(o, run, r, &fig);
		if (rc > worst)
			worst = rc;
		if (rc || !isfinite(fig.rdma_gb_per_s))
			break;
		size[n] = o->chunk;
		gbps[n++] = fig.rdma_gb_per_s;
		line = fig.line_gbits;
	}
	report_arr_end(r);
	if (n)
		print_curve(r, size, gbps, n, line);
	if (n < NSIZES)
		report_text(r, " (-a stopped after %d of %d sizes)\n", n, NSIZES);
	report_bool(r, "complete", NULL, n == NSIZES);
	report_obj_end(r);
	report_finish(r);
	return worst;
}
