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

/* What -a measured: the sizes that ran, each one's RDMA rate, the rails' line rate. */
struct curve {
	uint64_t size[NSIZES];
	double gbps[NSIZES];
	int n;
	double line_gbits; /* 0 unknown */
};

/* The curve, its verdict and the table (text) / "sweep" (JSON). */
static void print_curve(struct report *r, const struct curve *c)
{
	const char *labels[NSIZES];
	char names[NSIZES][32];
	struct sweep_verdict v;
	double ceiling = c->line_gbits > 0 ? c->line_gbits / 8 : NAN;
	int i;

	for (i = 0; i < c->n; i++) {
		format_size(c->size[i], names[i], sizeof(names[i]));
		labels[i] = names[i];
	}
	report_obj_begin(r, "sweep");
	report_text(r, " %-10s %10s %12s\n", "size", report_bw_unit(r), "% of line");
	report_arr_begin(r, "points");
	for (i = 0; i < c->n; i++) {
		report_obj_begin(r, NULL);
		report_u64(r, "size", NULL, c->size[i]);
		report_text(r, " %-10s", names[i]);
		report_bw(r, "gb_per_s", " %10.3f", c->gbps[i] * 1e9);
		report_double(r, "percent_of_line_rate", " %12.1f\n", c->gbps[i] / ceiling * 100);
		report_obj_end(r);
	}
	report_arr_end(r);
	report_double(r, "line_rate_gb_per_s", NULL, ceiling);
	if (!sweep_judge(c->gbps, labels, c->n, ceiling, "rails' line rate", "message-size", &v)) {
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

/*
 * This node's role, one complete run at each size in turn until one fails
 * (each run's report into "sizes"): what they measured into c, the worst
 * exit status returned. A run's options are o's as if -s SIZE had been
 * given: a copy; o itself is never changed.
 */
static int measure_sizes(const struct options *o, const struct run_state *run, struct report *r,
			 struct curve *c)
{
	struct options at = *o;
	struct run_figures fig;
	int i, rc, worst = 0;

	*c = (struct curve){0};
	for (i = 0; i < NSIZES && !nbw_interrupted(); i++) {
		at.chunk = (64ULL << 10) << i;
		report_text(r, "\n -a: message size %llu KiB\n",
			    (unsigned long long)(at.chunk >> 10));
		rc = o->peer ? run_source(&at, run, r, &fig) : run_sink(&at, run, r, &fig);
		if (rc > worst)
			worst = rc;
		if (rc || !isfinite(fig.rdma_gb_per_s))
			break;
		c->size[c->n] = at.chunk;
		c->gbps[c->n++] = fig.rdma_gb_per_s;
		c->line_gbits = fig.line_gbits;
	}
	return worst;
}

int run_all_sizes(const struct options *o, const struct run_state *run, struct report *r)
{
	struct curve c;
	int rc;

	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "role", NULL, o->peer ? "source" : "sink");
	report_arr_begin(r, "sizes");
	rc = measure_sizes(o, run, r, &c);
	report_arr_end(r);
	if (c.n)
		print_curve(r, &c);
	if (c.n < NSIZES)
		report_text(r, " (-a stopped after %d of %d sizes)\n", c.n, NSIZES);
	report_bool(r, "complete", NULL, c.n == NSIZES);
	report_obj_end(r);
	report_finish(r);
	return rc;
}
