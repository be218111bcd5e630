// SPDX-License-Identifier: MIT
/*
 * curve.c: --sweep-threads and --sweep-chunk of nvme_read_bw: one measured
 * phase per point (every drive read together, the point's threads per drive
 * or chunk size), then per drive a table of GB/s and % of its link ceiling
 * and the verdict of common/sweep.c: where the curve goes flat and whether
 * that is the link, the drive or the host, or whether it still rises.
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
	int done;    /* points measured */
	double *bps; /* [point * n + drive] bytes/s */
	double total[CURVE_MAX];
	double cpu_per_gib[CURVE_MAX];
	char label[CURVE_MAX][32];
};

static bool curve_threads(const struct options *o)
{
	return o->mode == MODE_SWEEP_THREADS;
}

/* Measure every point until one fails or Ctrl-C; the exit status. */
static int curve_measure(struct curve *c)
{
	struct target *tp[TARGET_MAX];
	struct options po;
	struct phase ph;
	int p, i, rc = NBW_EXIT_OK;

	for (i = 0; i < c->n; i++)
		tp[i] = &c->t[i];
	for (p = 0; p < c->o->ncurve && !nbw_interrupted(); p++) {
		po = *c->o;
		if (curve_threads(c->o))
			po.threads = (unsigned)c->o->curve[p];
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
		for (i = 0; i < c->n; i++)
			c->bps[p * c->n + i] = ph.res[i].seconds > 0
						       ? (double)ph.res[i].bytes / ph.res[i].seconds
						       : 0;
		c->total[p] = phase_bps(&ph);
		c->cpu_per_gib[p] = nbw_cpu_per_gib(ph.cpu_s, ph.total_bytes);
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

/* One drive: its points and its verdict. */
static void print_drive_curve(struct report *r, const struct curve *c, int i)
{
	const struct drive *d = &c->t[i].d;
	const char *what = curve_threads(c->o) ? "threads" : "chunk";
	const char *labels[CURVE_MAX];
	double g[CURVE_MAX];
	struct sweep_verdict v;
	int p;

	report_obj_begin(r, NULL);
	report_str(r, "path", " %s", d->path);
	report_str(r, "name", NULL, d->name);
	report_str(r, "pci_address", NULL, d->bdf[0] ? d->bdf : NULL);
	report_double(r, "link_ceiling_gb_per_s", NULL, d->link_ceiling);
	if (isfinite(d->link_ceiling))
		report_text(r, " (link ceiling %.2f GB/s)\n", d->link_ceiling);
	else
		report_text(r, " (no known link ceiling)\n");
	report_text(r, "   %10s %9s %10s\n", what, report_bw_unit(r), "% of link");
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
		report_double(r, "percent_of_link_ceiling", " %10.1f\n",
			      g[p] / d->link_ceiling * 100);
		report_obj_end(r);
	}
	report_arr_end(r);
	sweep_judge(g, labels, c->done, d->link_ceiling, NULL,
		    curve_threads(c->o) ? "concurrency" : "request-size", &v);
	print_verdict(r, &v, c->o->curve[v.flat_from]);
	report_obj_end(r);
}

static void curve_print(struct report *r, const struct curve *c)
{
	const char *what = curve_threads(c->o) ? "threads" : "chunk";
	int i, p;

	report_text(r, " sweep of %s (every drive read together at each point)\n",
		    curve_threads(c->o) ? "threads per drive" : "the chunk size");
	report_str(r, "swept", NULL, what);
	report_arr_begin(r, "drives");
	for (i = 0; i < c->n; i++)
		print_drive_curve(r, c, i);
	report_arr_end(r);
	report_text(r, " all drives together:\n   %10s %9s %10s\n", what, report_bw_unit(r),
		    "CPU s/GiB");
	report_arr_begin(r, "totals");
	for (p = 0; p < c->done; p++) {
		report_obj_begin(r, NULL);
		report_u64(r, what, NULL, c->o->curve[p]);
		report_text(r, "   %10s", c->label[p]);
		report_bw(r, "gb_per_s", " %9.2f", c->total[p]);
		report_double(r, "cpu_s_per_gib", " %10.3f\n", c->cpu_per_gib[p]);
		report_obj_end(r);
	}
	report_arr_end(r);
	if (c->done < c->o->ncurve)
		report_text(r, " (interrupted: %d of %d points completed)\n", c->done,
			    c->o->ncurve);
	report_bool(r, "interrupted", NULL, c->done < c->o->ncurve);
}

int run_curve(const struct options *o, struct report *r, struct target *t, int n)
{
	struct curve c = {.o = o, .t = t, .n = n};
	int p, i, rc;

	for (p = 0; p < o->ncurve; p++) {
		for (i = 0; i < n && !curve_threads(o); i++) {
			if (o->curve[p] % t[i].d.lbs) {
				format_size(o->curve[p], c.label[p], sizeof(c.label[p]));
				nbw_usage_err("%s: chunk %s is not a multiple of the logical block "
					      "size %u",
					      t[i].d.path, c.label[p], t[i].d.lbs);
				return NBW_EXIT_USAGE;
			}
		}
		if (curve_threads(o))
			snprintf(c.label[p], sizeof(c.label[p]), "%llu thread%s",
				 (unsigned long long)o->curve[p], o->curve[p] == 1 ? "" : "s");
		else
			format_size(o->curve[p], c.label[p], sizeof(c.label[p]));
	}
	c.bps = calloc((size_t)o->ncurve * (size_t)n, sizeof(double));
	if (!c.bps) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	rc = curve_measure(&c);
	if (rc == NBW_EXIT_OK)
		curve_print(r, &c);
	free(c.bps);
	return rc;
}
