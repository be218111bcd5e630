// SPDX-License-Identifier: MIT
/*
 * modes.c: the modes of nvme_read_bw and their tables: a plain run, --baseline
 * (each drive alone, then all together) and --sweep (1, 2, ... N drives),
 * each with total / ideal / % of ideal, and --list.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "read_bw.h"
#include "sweep.h"
#include "window.h"

static const char *rule =
	"---------------------------------------------------------------------------------------\n";

/*
 * The drives' table and its notes. A path and a model are a file's or
 * sysfs's words: printable only (nbw_printable), as every line prints them.
 */
static void text_drives(struct report *r, const struct target *t, int n)
{
	char a[32], path[4 * PATH_MAX], model[4 * sizeof(t->d.model)];
	int i;

	report_text(r, "   %-16s %-6s %-24s %5s %6s %10s  %s\n", "path", "kind", "model", "numa",
		    "lbs", "size", "pci");
	for (i = 0; i < n; i++) {
		const struct drive *d = &t[i].d;

		report_text(r, "   %-16s %-6s %-24.24s %5d %6u %10s  %s\n",
			    nbw_printable(d->path, path, sizeof(path)), drive_kind_name(d->kind),
			    d->model[0] ? nbw_printable(d->model, model, sizeof(model)) : "-",
			    d->numa_node, d->lbs, format_size(d->size, a, sizeof(a)),
			    d->bdf[0] ? d->bdf : "-");
	}
	for (i = 0; i < n; i++) {
		nbw_printable(t[i].d.path, path, sizeof(path));
		if (t[i].d.kind == DRIVE_FILE)
			report_text(r,
				    " note: %s is a regular file, not an NVMe drive; O_DIRECT "
				    "bypasses the page cache, the file system stays in the path\n",
				    path);
		else if (t[i].d.kind == DRIVE_BLOCK)
			report_text(r,
				    " note: %s is not an NVMe namespace (a generic block device)\n",
				    path);
	}
}

void print_header(struct report *r, const struct options *o, const struct target *t, int n)
{
	bool mem = o->mode == MODE_MEMORY; /* no reads: engine, span, pattern do not apply */
	char a[32];

	report_str(r, "tool", NULL, "nvme_read_bw");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_text(r, "%s", rule);
	report_text(r, "                    NVMe read bandwidth (O_DIRECT, read only)\n");
	report_text(r, " Tool/version    : nvme_read_bw %s\n", PACKAGE_VERSION);
	prov_text_line(r, o->prov);
	report_obj_begin(r, "params");
	snprintf(a, sizeof(a), "%s%s%s", reader_engine_name(o->engine), o->iopoll ? " iopoll" : "",
		 o->sqpoll ? " sqpoll" : "");
	if (!mem)
		report_str(r, NULL, " Engine          : %-14s", a);
	report_str(r, "engine", NULL, reader_engine_name(o->engine));
	report_bool(r, "iopoll", NULL, o->iopoll);
	report_bool(r, "sqpoll", NULL, o->sqpoll);
	report_u64(r, "depth", mem ? NULL : " Reads in flight : %llu per thread\n", o->depth);
	report_u64(r, "threads", " Threads/drive   : %-14llu", o->threads);
	report_u64(r, "chunk", NULL, o->chunk);
	report_text(r, " Chunk           : %s\n", format_size(o->chunk, a, sizeof(a)));
	if (o->span)
		report_u64(r, "span", NULL, o->span);
	else
		report_null(r, "span", NULL);
	if (!mem)
		report_text(r, " Span            : %-14s",
			    o->span ? format_size(o->span, a, sizeof(a)) : "whole drive");
	report_str(r, "numa", " NUMA            : %s\n",
		   o->numa_policy == PLACEMENT_AUTO ? "auto"
		   : o->numa_policy == PLACEMENT_OFF
			   ? "off"
			   : (snprintf(a, sizeof(a), "%d", o->numa_policy), a));
	report_double(r, "warmup_s", NULL, o->cc.warmup);
	report_double(r, "duration_s", NULL, o->cc.duration);
	snprintf(a, sizeof(a), "%g s", o->cc.warmup);
	report_text(r, " Warm-up         : %-14s Duration        : %g s\n", a, o->cc.duration);
	if (o->cc.interval > 0)
		report_double(r, "interval_s", NULL, o->cc.interval);
	report_double(r, "max_cv_pct", NULL, o->max_cv);
	report_str(r, "mode", " Mode            : %s\n",
		   o->mode == MODE_BASELINE	   ? "baseline"
		   : o->mode == MODE_SWEEP	   ? "sweep"
		   : o->mode == MODE_SWEEP_THREADS ? "sweep-threads"
		   : o->mode == MODE_SWEEP_CHUNK   ? "sweep-chunk"
		   : o->mode == MODE_SWEEP_DEPTH   ? "sweep-depth"
		   : o->mode == MODE_MEMORY	   ? "memory"
						   : "plain");
	report_str(r, "pattern", mem ? NULL : " Pattern         : %-14s",
		   o->random ? "rand" : "seq");
	report_u64(r, "seed", NULL, o->seed);
	if (o->random && !mem)
		report_text(r, " Seed            : %llu\n", (unsigned long long)o->seed);
	else if (!mem)
		report_text(r, "\n");
	report_bool(r, "latency", mem ? NULL : " Latency         : %s\n", o->latency);
	report_bool(r, "checksum", NULL, o->checksum);
	buffers_header(r, o);
	report_obj_end(r);
	if (mem && !n) {
		report_text(r, "%s", rule);
		return;
	}
	report_text(r, " Drives          : %d%s\n", n, mem ? " (they place the buffers)" : "");
	text_drives(r, t, n);
	report_text(r, "%s", rule);
}

/*
 * The "% of link" column and its JSON: a figure above its link ceiling gets no
 * percentage (null, "above" in the column) but above_link_ceiling true.
 */
void link_pct(struct report *r, double gb_per_s, double ceiling)
{
	bool over = sweep_above(gb_per_s, ceiling);

	if (over)
		report_text(r, " %10s", "above");
	report_double(r, "percent_of_link_ceiling", over ? NULL : " %10.1f",
		      sweep_pct_held(gb_per_s, ceiling));
	report_bool(r, "above_link_ceiling", NULL, over);
}

/* Said once under a table with a figure above its link ceiling. */
void link_above_note(struct report *r)
{
	report_text(r, " above: read faster than its link ceiling allows: the link is emulated "
		       "or its ceiling misreported; no percentage\n");
}

/* A drive's seconds in the window and their shape (JSON). */
static void json_shape(struct report *r, const struct phase *ph, const struct tresult *res)
{
	const struct window_shape *sh = &res->shape;
	char why[160];
	unsigned k;

	report_arr_begin(r, "samples_gb_per_s");
	for (k = 0; k < res->sec.n; k++)
		report_double(r, NULL, NULL, res->sec.rate[k] / 1e9);
	report_arr_end(r);
	report_u64(r, "samples_dropped", NULL, res->sec.dropped);
	report_double(r, "min_gb_per_s", NULL, sh->min / 1e9);
	report_double(r, "max_gb_per_s", NULL, sh->max / 1e9);
	report_double(r, "median_gb_per_s", NULL, sh->median / 1e9);
	report_double(r, "cv_pct", NULL, sh->cv);
	report_bool(r, "unsteady", NULL, sh->unsteady);
	window_shape_why(sh, ph->o->max_cv, why, sizeof(why));
	report_str(r, "unsteady_reason", NULL, sh->unsteady ? why : NULL);
}

/* Each drive's seconds in one line; an unsteady window named with why. */
static void text_shapes(struct report *r, const struct phase *ph)
{
	double scale = ph->o->cc.gbits ? 8e-9 : 1e-9;
	char why[160], name[4 * sizeof(ph->t[0]->d.name)];
	int i;

	for (i = 0; i < ph->nt; i++) {
		const struct window_shape *sh = &ph->res[i].shape;

		if (!sh->n)
			continue;
		report_text(r, " %-16s %u s: min %.*f max %.*f %s, cv %.1f%%",
			    nbw_printable(ph->t[i]->d.name, name, sizeof(name)), sh->n,
			    report_decimals(sh->min * scale, 2), sh->min * scale,
			    report_decimals(sh->max * scale, 2), sh->max * scale, report_bw_unit(r),
			    sh->cv);
		window_shape_why(sh, ph->o->max_cv, why, sizeof(why));
		if (sh->unsteady)
			report_text(r, "  UNSTEADY: %s", why);
		report_text(r, "\n");
	}
}

/* The drives[] entries: description plus this phase's figures. */
static void print_drive_rows(struct report *r, const struct phase *ph)
{
	const char *unit = report_bw_unit(r);
	int above = 0;
	int i;

	report_text(r, " %-16s %16s %9s %9s %10s %7s %11s %10s\n", "drive", "bytes", "seconds",
		    unit, "IOPS", "zero %", "link GB/s", "% of link");
	report_arr_begin(r, "drives");
	for (i = 0; i < ph->nt; i++) {
		const struct drive *d = &ph->t[i]->d;
		const struct tresult *res = &ph->res[i];
		double bps = res->seconds > 0 ? (double)res->bytes / res->seconds : 0;

		report_obj_begin(r, NULL);
		report_str(r, "path", " %-16s", d->path);
		report_str(r, "name", NULL, d->name);
		report_str(r, "kind", NULL, drive_kind_name(d->kind));
		report_str(r, "model", NULL, d->model[0] ? d->model : NULL);
		report_str(r, "firmware", NULL, d->firmware[0] ? d->firmware : NULL);
		report_str(r, "pci_address", NULL, d->bdf[0] ? d->bdf : NULL);
		report_i64(r, "numa_node", NULL, d->numa_node);
		report_u64(r, "logical_block_size", NULL, d->lbs);
		report_u64(r, "size", NULL, d->size);
		report_u64(r, "span", NULL, ph->t[i]->span);
		report_u64(r, "bytes", " %16llu", res->bytes);
		report_double(r, "seconds", " %9.2f", res->seconds);
		report_bw(r, "gb_per_s", " %9.2f", bps);
		report_u64(r, "ios", NULL, res->ios);
		report_double(r, "iops", " %10.0f",
			      res->seconds > 0 ? (double)res->ios / res->seconds : 0);
		report_double(r, "zero_fraction", NULL, res->zero_fraction);
		report_double(r, NULL, " %7.1f", res->zero_fraction * 100);
		report_double(r, "link_ceiling_gb_per_s", " %11.2f", d->link_ceiling);
		link_pct(r, bps / 1e9, d->link_ceiling);
		above |= sweep_above(bps / 1e9, d->link_ceiling);
		report_text(r, "\n");
		report_latency(r, res->lat, "");
		if (ph->o->checksum) {
			char hex[17];

			digest_hex(res->digest, hex);
			report_obj_begin(r, "checksum");
			report_u64(r, "span", NULL, ph->t[i]->span);
			report_str(r, "digest", "   checksum %s", hex);
			report_bool(r, "complete", " (first sweep complete: %s)\n",
				    res->digested == ph->t[i]->span);
			report_obj_end(r);
		}
		linkload_json_dev(r, d->bdf[0] ? linkload_find(ph->ll, d->bdf) : NULL);
		json_shape(r, ph, res);
		health_watch_json(r, &res->health);
		report_obj_end(r);
	}
	report_arr_end(r);
	if (above)
		link_above_note(r);
	for (i = 0; ph->ll && i < ph->ll->n; i++) /* a link that dropped, an AER count that moved */
		linkload_text_dev(r, &ph->ll->d[i], " ");
	text_shapes(r, ph);
	for (i = 0; i < ph->nt; i++)
		health_watch_text(r, &ph->res[i].health, ph->t[i]->d.name, " ");
}

/* May the total be trusted: not when a drive's window was unsteady (named). */
static void print_trust(struct report *r, const struct phase *ph)
{
	int i, n = 0;

	report_arr_begin(r, "unsteady_drives");
	for (i = 0; i < ph->nt; i++)
		if (ph->res[i].shape.unsteady) {
			report_str(r, NULL, n++ ? ", %s" : " total not to be trusted: unsteady %s",
				   ph->t[i]->d.name);
		}
	report_arr_end(r);
	report_bool(r, "steady", NULL, n == 0);
	if (n)
		report_text(r, " (see each drive's seconds above)\n");
}

static void print_total(struct report *r, const struct phase *ph, const char *label)
{
	double bps = ph->seconds > 0 ? (double)ph->total_bytes / ph->seconds : 0;

	report_obj_begin(r, "total");
	report_text(r, " %-16s", label);
	report_u64(r, "bytes", " %16llu", ph->total_bytes);
	report_double(r, "seconds", " %9.2f", ph->seconds);
	report_bw(r, "gb_per_s", " %9.2f", bps);
	report_u64(r, "ios", NULL, ph->total_ios);
	report_double(r, "iops", " %10.0f\n", phase_iops(ph));
	report_latency(r, ph->lat, "");
	report_double(r, "cpu_s", NULL, ph->cpu_s);
	report_double(r, "cpu_s_per_gib", " CPU              %.3f s per GiB read",
		      nbw_cpu_per_gib(ph->cpu_s, ph->total_bytes));
	report_text(r, " (%.2f s user + system, all threads)\n", ph->cpu_s);
	report_double(r, "cpu_us_per_io", " CPU              %.2f us per read\n",
		      ph->total_ios ? ph->cpu_s * 1e6 / (double)ph->total_ios : NAN);
	print_trust(r, ph);
	report_obj_end(r);
}

/* Warn (stderr) about targets whose samples were mostly unwritten blocks. */
static void warn_zeros(const struct phase *ph)
{
	int i;

	for (i = 0; i < ph->nt; i++)
		if (ph->res[i].zero_fraction > ZERO_WARN_FRACTION)
			nbw_warn("%s: %.0f%% of sampled blocks are all zeros: unwritten blocks may "
				 "be "
				 "served without media reads; figures may not represent the media",
				 ph->t[i]->d.path, ph->res[i].zero_fraction * 100);
}

static void print_state(struct report *r, const struct phase *ph)
{
	report_bool(r, "interrupted", NULL, ph->interrupted);
	if (ph->interrupted)
		report_text(r, " (interrupted: the window was cut to %.2f s)\n", ph->seconds);
}

/* One summary row of --baseline / --sweep. */
static void summary_row(struct report *r, const char *label, int ndrives, double bps,
			double ideal_bps, double iops)
{
	report_obj_begin(r, NULL);
	report_str(r, "label", " %-22s", label);
	report_u64(r, "drives", " %6llu", (unsigned long long)ndrives);
	report_bw(r, "gb_per_s", " %12.2f", bps);
	report_bw(r, "ideal_gb_per_s", " %12.2f", ideal_bps);
	report_double(r, "percent_of_ideal", " %10.1f", bps / ideal_bps * 100);
	report_double(r, "iops", " %10.0f\n", iops);
	report_obj_end(r);
}

/* ---- modes ---------------------------------------------------------------- */

int run_plain(const struct options *o, struct report *r, struct target *t, int n)
{
	struct target *tp[TARGET_MAX];
	struct phase ph;
	int i, rc;

	for (i = 0; i < n; i++)
		tp[i] = &t[i];
	rc = phase_run(o, tp, n, &ph);
	if (rc == NBW_EXIT_OK && ph.nothing_measured) {
		nbw_err("interrupted during warm-up: nothing was measured");
		rc = NBW_EXIT_FAIL;
	}
	if (rc == NBW_EXIT_OK) {
		print_drive_rows(r, &ph);
		print_total(r, &ph, "total");
		print_state(r, &ph);
		report_text(r, "%s", rule);
		warn_zeros(&ph);
	}
	phase_free(&ph);
	return rc;
}

/*
 * A series of phases. --baseline: each drive alone, then all together; ideal
 * = sum of solos. --sweep: the first 1, 2, ... n drives together; ideal = k x
 * the 1-drive figure.
 */
struct series {
	const struct options *o;
	struct target *t;
	int n;
	int nphase, done;
	double solo[TARGET_MAX]; /* bytes/s of each drive alone, NAN if not measured */
	double *total, *ideal;	 /* per completed phase */
	double *iops;		 /* per completed phase */
	struct phase last;	 /* the last (widest) completed phase */
	bool have_last;
};

/* The drives of phase p into tp; returns their count and labels the phase. */
static int series_phase(const struct series *s, int p, struct target **tp, char *label, size_t len)
{
	int i, k;

	if (s->o->mode == MODE_BASELINE && p < s->n && s->nphase > 1) {
		tp[0] = &s->t[p];
		snprintf(label, len, "%s alone", s->t[p].d.name);
		return 1;
	}
	k = s->o->mode == MODE_SWEEP ? p + 1 : s->n;
	for (i = 0; i < k; i++)
		tp[i] = &s->t[i];
	if (s->o->mode == MODE_SWEEP)
		snprintf(label, len, "first %d drive%s", k, k == 1 ? "" : "s");
	else
		snprintf(label, len, "%d together", k);
	return k;
}

/* Run the phases until one fails or Ctrl-C; the exit status. */
static int series_measure(struct series *s)
{
	struct target *tp[TARGET_MAX];
	struct phase ph;
	char label[96];
	int p, i, k, rc = NBW_EXIT_OK;

	for (p = 0; p < s->nphase && !nbw_interrupted(); p++) {
		k = series_phase(s, p, tp, label, sizeof(label));
		if (!s->o->cc.json)
			fprintf(stderr, "%s: phase %d/%d: %d drive%s\n", nbw_prog, p + 1, s->nphase,
				k, k == 1 ? "" : "s");
		rc = phase_run(s->o, tp, k, &ph);
		if (rc != NBW_EXIT_OK || ph.nothing_measured || ph.interrupted) {
			if (rc == NBW_EXIT_OK)
				nbw_warn("interrupted: phase %d of %d not completed", p + 1,
					 s->nphase);
			phase_free(&ph);
			break;
		}
		s->total[p] = phase_bps(&ph);
		s->iops[p] = phase_iops(&ph);
		if (k == 1)
			s->solo[tp[0] - s->t] = s->total[p];
		s->ideal[p] = 0;
		for (i = 0; i < k; i++)
			s->ideal[p] +=
				s->o->mode == MODE_SWEEP ? s->solo[0] : s->solo[tp[i] - s->t];
		if (s->have_last)
			phase_free(&s->last);
		s->last = ph;
		s->have_last = true;
		s->done++;
	}
	if (rc == NBW_EXIT_OK && !s->done) {
		nbw_err("interrupted before the first phase completed: nothing was measured");
		rc = NBW_EXIT_FAIL;
	}
	return rc;
}

static void series_print(struct report *r, struct series *s)
{
	const char *unit = report_bw_unit(r);
	const char *name = s->o->mode == MODE_BASELINE ? "baseline" : "sweep";
	struct target *tp[TARGET_MAX];
	char label[96];
	int p, k;

	/* drives[] and total carry the last (widest) completed phase. */
	report_text(r, " last phase (%d drive%s together):\n", s->last.nt,
		    s->last.nt == 1 ? "" : "s");
	print_drive_rows(r, &s->last);
	print_total(r, &s->last, "total");
	report_text(r, "%s", rule);
	report_text(r, " %-22s %6s %7s %-4s %7s %-4s %10s %10s\n", name, "drives", "total", unit,
		    "ideal", unit, "% of ideal", "IOPS");
	report_arr_begin(r, name);
	for (p = 0; p < s->done; p++) {
		k = series_phase(s, p, tp, label, sizeof(label));
		summary_row(r, label, k, s->total[p], s->ideal[p], s->iops[p]);
	}
	report_arr_end(r);
	if (s->done < s->nphase)
		report_text(r, " (interrupted: %d of %d phases completed)\n", s->done, s->nphase);
	report_bool(r, "interrupted", NULL, s->done < s->nphase);
	report_text(r, "%s", rule);
	warn_zeros(&s->last);
}

int run_series(const struct options *o, struct report *r, struct target *t, int n)
{
	struct series *s = calloc(1, sizeof(*s));
	int i, rc;

	if (s) {
		s->total = calloc((size_t)n + 1, sizeof(double));
		s->ideal = calloc((size_t)n + 1, sizeof(double));
		s->iops = calloc((size_t)n + 1, sizeof(double));
	}
	if (!s || !s->total || !s->ideal || !s->iops) {
		nbw_err("out of memory");
		rc = NBW_EXIT_FAIL;
		goto out;
	}
	s->o = o;
	s->t = t;
	s->n = n;
	s->nphase = o->mode == MODE_BASELINE ? (n > 1 ? n + 1 : 1) : n;
	for (i = 0; i < n; i++)
		s->solo[i] = NAN;
	rc = series_measure(s);
	if (rc == NBW_EXIT_OK)
		series_print(r, s);
	if (s->have_last)
		phase_free(&s->last);
out:
	if (s) {
		free(s->total);
		free(s->ideal);
		free(s->iops);
	}
	free(s);
	return rc;
}

void list_targets(struct report *r, const struct target *t, int n)
{
	char a[32];
	int i;

	report_str(r, "tool", NULL, "nvme_read_bw");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_text(r, "%-16s %-6s %-24s %-14s %5s %6s %10s %5s\n", "path", "kind", "model", "pci",
		    "numa", "lbs", "size", "paths");
	report_arr_begin(r, "drives");
	for (i = 0; i < n; i++) {
		const struct drive *d = &t[i].d;

		report_obj_begin(r, NULL);
		report_str(r, "path", "%-16s", d->path);
		report_str(r, "kind", " %-6s", drive_kind_name(d->kind));
		report_str(r, "model", " %-24.24s", d->model[0] ? d->model : NULL);
		report_str(r, "pci_address", " %-14s", d->bdf[0] ? d->bdf : NULL);
		report_i64(r, "numa_node", " %5lld", d->numa_node);
		report_u64(r, "logical_block_size", " %6llu", d->lbs);
		report_u64(r, "size", NULL, d->size);
		report_text(r, " %10s", format_size(d->size, a, sizeof(a)));
		report_u64(r, "paths", " %5llu\n", d->paths);
		report_str(r, "controller", NULL, d->ctrl[0] ? d->ctrl : NULL);
		report_str(r, "transport", NULL, d->transport[0] ? d->transport : NULL);
		report_obj_end(r);
	}
	report_arr_end(r);
}
