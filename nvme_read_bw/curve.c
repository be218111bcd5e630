// SPDX-License-Identifier: MIT
/*
 * curve.c: --sweep-threads, --sweep-chunk and --sweep-depth of nvme_read_bw:
 * one measured phase per point (every drive read together, the point's
 * threads per drive, chunk size or reads in flight per thread), then per
 * drive a table and a verdict of common/base/sweep.c: for threads and chunks GB/s
 * and % of the link ceiling, where the curve goes flat and whether that is
 * the link, the drive or the host; for depths IOPS and p99 latency, and the
 * depth where IOPS stop rising while latency keeps climbing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nbw.h"
#include "parse.h"
#include "read_bw.h"
#include "sweep.h"

struct curve {
	const struct options *o;
	struct target *t;
	int n;
	int done;     /* points measured */
	double *bps;  /* [point * n + drive] bytes/s */
	double *iops; /* [point * n + drive] reads/s */
	double *p99;  /* [point * n + drive] us, NAN without latencies */
	double total[CURVE_MAX];
	double total_iops[CURVE_MAX];
	double total_p99[CURVE_MAX];
	double cpu_per_gib[CURVE_MAX];
	char label[CURVE_MAX][32];
};

static bool curve_threads(const struct options *o)
{
	return o->mode == MODE_SWEEP_THREADS;
}

static bool curve_depth(const struct options *o)
{
	return o->mode == MODE_SWEEP_DEPTH;
}

/* The swept variable's name in tables and JSON. */
static const char *curve_what(const struct options *o)
{
	return curve_threads(o) ? "threads" : curve_depth(o) ? "depth" : "chunk";
}

/* p99 of h in us, NAN without one. */
static double p99_us(const struct lathist *h)
{
	return h && h->count ? (double)lathist_percentile(h, 99) / 1e3 : NAN;
}

/* Keep point p's figures of a measured phase. */
static void curve_keep(struct curve *c, int p, const struct phase *ph)
{
	int i;

	for (i = 0; i < c->n; i++) {
		const struct tresult *res = &ph->res[i];
		double secs = res->seconds;

		c->bps[p * c->n + i] = secs > 0 ? (double)res->bytes / secs : 0;
		c->iops[p * c->n + i] = secs > 0 ? (double)res->ios / secs : 0;
		c->p99[p * c->n + i] = p99_us(res->lat);
	}
	c->total[p] = phase_bps(ph);
	c->total_iops[p] = phase_iops(ph);
	c->total_p99[p] = p99_us(ph->lat);
	c->cpu_per_gib[p] = nbw_cpu_per_gib(ph->cpu_s, ph->total_bytes);
}

/* Measure every point until one fails or Ctrl-C; the exit status. */
static int curve_measure(struct curve *c)
{
	struct target *tp[TARGET_MAX];
	struct options po;
	struct phase ph;
	int p, rc = NBW_EXIT_OK;

	for (p = 0; p < c->n; p++)
		tp[p] = &c->t[p];
	for (p = 0; p < c->o->ncurve && !nbw_interrupted(); p++) {
		po = *c->o;
		if (curve_threads(c->o))
			po.threads = (unsigned)c->o->curve[p];
		else if (curve_depth(c->o))
			po.depth = (unsigned)c->o->curve[p];
		else
			po.chunk = c->o->curve[p];
		if (!c->o->cc.json)
			fprintf(stderr, "%s: point %d/%d: %s\n", nbw_prog, p + 1, c->o->ncurve,
				c->label[p]);
		rc = phase_run(&po, tp, c->n, &ph);
		if (rc != NBW_EXIT_OK || ph.nothing_measured || ph.interrupted) {
			if (rc == NBW_EXIT_OK)
				nbw_warn("interrupted: point %d of %d not completed", p + 1,
					 c->o->ncurve);
			phase_free(&ph);
			break;
		}
		curve_keep(c, p, &ph);
		phase_free(&ph);
		c->done++;
	}
	if (rc == NBW_EXIT_OK && !c->done) {
		nbw_err("interrupted before the first point completed: nothing was measured");
		rc = NBW_EXIT_FAIL;
	}
	return rc;
}

static void print_verdict(struct report *r, const struct sweep_verdict *v, uint64_t flat_value)
{
	report_obj_begin(r, "verdict");
	report_u64(r, "flat_from", NULL, flat_value);
	report_double(r, "max_gb_per_s", NULL, v->max_gb_per_s);
	report_double(r, "pct_of_ceiling", NULL, v->pct);
	report_str(r, "kind", NULL, sweep_kind_name(v->kind));
	report_str(r, "text", "   verdict: %s\n", v->text);
	report_obj_end(r);
}

/* The drive's heading: path and link ceiling. */
static void drive_heading(struct report *r, const struct drive *d)
{
	report_str(r, "path", " %s", d->path);
	report_str(r, "name", NULL, d->name);
	report_str(r, "pci_address", NULL, d->bdf[0] ? d->bdf : NULL);
	report_double(r, "link_ceiling_gb_per_s", NULL, d->link_ceiling);
	if (isfinite(d->link_ceiling))
		report_text(r, " (link ceiling %.2f GB/s)\n", d->link_ceiling);
	else
		report_text(r, " (no known link ceiling)\n");
}

/* The depth verdict of drive i (i == c->n: all drives together). */
static void print_depth_verdict(struct report *r, const struct curve *c, int i,
				const char *const *labels)
{
	double iops[CURVE_MAX], p99[CURVE_MAX];
	struct depth_verdict v;
	int p;

	for (p = 0; p < c->done; p++) {
		iops[p] = i < c->n ? c->iops[p * c->n + i] : c->total_iops[p];
		p99[p] = i < c->n ? c->p99[p * c->n + i] : c->total_p99[p];
	}
	if (sweep_depth_judge(iops, p99, labels, c->done, &v))
		return;
	report_obj_begin(r, "verdict");
	if (v.knee >= 0)
		report_u64(r, "knee_depth", NULL, c->o->curve[v.knee]);
	else
		report_null(r, "knee_depth", NULL);
	report_str(r, "kind", NULL, depth_kind_name(v.kind));
	report_str(r, "text", "   verdict: %s\n", v.text);
	report_obj_end(r);
}

/* --sweep-depth, one drive: IOPS, GB/s and p99 per depth, and the knee. */
static void print_depth_curve(struct report *r, const struct curve *c, int i)
{
	const char *labels[CURVE_MAX];
	int p;

	report_text(r, "   %10s %10s %9s %10s\n", "depth", "IOPS", report_bw_unit(r), "p99 us");
	report_arr_begin(r, "sweep");
	for (p = 0; p < c->done; p++) {
		labels[p] = c->label[p];
		report_obj_begin(r, NULL);
		report_u64(r, "depth", "   %10llu", c->o->curve[p]);
		report_double(r, "iops", " %10.0f", c->iops[p * c->n + i]);
		report_bw(r, "gb_per_s", " %9.2f", c->bps[p * c->n + i]);
		report_double(r, "p99_us", " %10.1f\n", c->p99[p * c->n + i]);
		report_obj_end(r);
	}
	report_arr_end(r);
	print_depth_verdict(r, c, i, labels);
}

/* One drive: its points and its verdict. */
static void print_drive_curve(struct report *r, const struct curve *c, int i)
{
	const struct drive *d = &c->t[i].d;
	const char *what = curve_what(c->o);
	const char *labels[CURVE_MAX];
	double g[CURVE_MAX];
	struct sweep_verdict v;
	int above = 0;
	int p;

	report_obj_begin(r, NULL);
	drive_heading(r, d);
	if (curve_depth(c->o)) {
		print_depth_curve(r, c, i);
		report_obj_end(r);
		return;
	}
	report_text(r, "   %10s %9s %10s %10s\n", what, report_bw_unit(r), "% of link", "IOPS");
	report_arr_begin(r, "sweep");
	for (p = 0; p < c->done; p++) {
		g[p] = c->bps[p * c->n + i] / 1e9;
		labels[p] = c->label[p];
		report_obj_begin(r, NULL);
		if (curve_threads(c->o))
			report_u64(r, what, "   %10llu", c->o->curve[p]);
		else
			report_u64(r, what, NULL, c->o->curve[p]);
		if (!curve_threads(c->o)) {
			char a[32];

			report_text(r, "   %10s", format_size(c->o->curve[p], a, sizeof(a)));
		}
		report_bw(r, "gb_per_s", " %9.2f", c->bps[p * c->n + i]);
		link_pct(r, g[p], d->link_ceiling);
		above |= sweep_above(g[p], d->link_ceiling);
		report_double(r, "iops", " %10.0f\n", c->iops[p * c->n + i]);
		report_obj_end(r);
	}
	report_arr_end(r);
	if (above)
		link_above_note(r);
	sweep_judge(g, labels, c->done, d->link_ceiling, NULL,
		    curve_threads(c->o) ? "concurrency" : "request-size", &v);
	print_verdict(r, &v, c->o->curve[v.flat_from]);
	report_obj_end(r);
}

/* All drives together: per point GB/s, IOPS, CPU (and p99 and the knee for depths). */
static void print_totals(struct report *r, const struct curve *c)
{
	const char *what = curve_what(c->o);
	const char *labels[CURVE_MAX];
	int p;

	report_text(r, " all drives together:\n   %10s %9s %10s %10s%s\n", what, report_bw_unit(r),
		    "CPU s/GiB", "IOPS", curve_depth(c->o) ? "     p99 us" : "");
	report_arr_begin(r, "totals");
	for (p = 0; p < c->done; p++) {
		labels[p] = c->label[p];
		report_obj_begin(r, NULL);
		report_u64(r, what, NULL, c->o->curve[p]);
		report_text(r, "   %10s", c->label[p]);
		report_bw(r, "gb_per_s", " %9.2f", c->total[p]);
		report_double(r, "cpu_s_per_gib", " %10.3f", c->cpu_per_gib[p]);
		report_double(r, "iops", " %10.0f", c->total_iops[p]);
		if (curve_depth(c->o))
			report_double(r, "p99_us", " %10.1f", c->total_p99[p]);
		report_text(r, "\n");
		report_obj_end(r);
	}
	report_arr_end(r);
	if (curve_depth(c->o) && c->n > 1)
		print_depth_verdict(r, c, c->n, labels);
}

static void curve_print(struct report *r, const struct curve *c)
{
	int i;

	report_text(r, " sweep of %s (every drive read together at each point)\n",
		    curve_threads(c->o) ? "threads per drive"
		    : curve_depth(c->o) ? "reads in flight per thread"
					: "the chunk size");
	report_str(r, "swept", NULL, curve_what(c->o));
	report_arr_begin(r, "drives");
	for (i = 0; i < c->n; i++)
		print_drive_curve(r, c, i);
	report_arr_end(r);
	print_totals(r, c);
	if (c->done < c->o->ncurve)
		report_text(r, " (interrupted: %d of %d points completed)\n", c->done,
			    c->o->ncurve);
	report_bool(r, "interrupted", NULL, c->done < c->o->ncurve);
}

/* The points' labels ("8 threads", "256K", "depth 8"); NBW_EXIT_USAGE for a bad chunk. */
static int curve_labels(struct curve *c)
{
	const struct options *o = c->o;
	int p, i;

	for (p = 0; p < o->ncurve; p++) {
		for (i = 0; i < c->n && o->mode == MODE_SWEEP_CHUNK; i++) {
			if (o->curve[p] % c->t[i].d.lbs) {
				format_size(o->curve[p], c->label[p], sizeof(c->label[p]));
				nbw_usage_err("%s: chunk %s is not a multiple of the logical block "
					      "size %u",
					      c->t[i].d.path, c->label[p], c->t[i].d.lbs);
				return NBW_EXIT_USAGE;
			}
		}
		if (curve_threads(o))
			snprintf(c->label[p], sizeof(c->label[p]), "%llu thread%s",
				 (unsigned long long)o->curve[p], o->curve[p] == 1 ? "" : "s");
		else if (curve_depth(o))
			snprintf(c->label[p], sizeof(c->label[p]), "depth %llu",
				 (unsigned long long)o->curve[p]);
		else
			format_size(o->curve[p], c->label[p], sizeof(c->label[p]));
	}
	return -1;
}

int run_curve(const struct options *o, struct report *r, struct target *t, int n)
{
	struct curve c = {.o = o, .t = t, .n = n};
	size_t np = (size_t)o->ncurve * (size_t)n;
	int rc = curve_labels(&c);

	if (rc >= 0)
		return rc;
	c.bps = calloc(np, sizeof(double));
	c.iops = calloc(np, sizeof(double));
	c.p99 = calloc(np, sizeof(double));
	if (!c.bps || !c.iops || !c.p99) {
		nbw_err("out of memory");
		rc = NBW_EXIT_FAIL;
	} else {
		rc = curve_measure(&c);
		if (rc == NBW_EXIT_OK)
			curve_print(r, &c);
	}
	free(c.bps);
	free(c.iops);
	free(c.p99);
	return rc;
}
