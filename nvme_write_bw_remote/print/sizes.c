// SPDX-License-Identifier: MIT
/*
 * sizes.c: -a's document (see parts.h): a run per message size, whole
 * (--verbose, JSON) or a line each as ib_write_bw -a prints, what was
 * verified, then the curve of the RDMA rate against the size and its verdict.
 */
#include <math.h>
#include <stdio.h>

#include "digest.h"
#include "parse.h"
#include "parts.h"
#include "rows.h"
#include "validity.h"

/* ---- -a: a run per message size, then the curve ----------------------------------- */

/* -a's document's opening, once. */
static void print_sizes_open(struct report *r, struct result *a)
{
	if (a->opened)
		return;
	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "role", NULL, a->o.source.peer ? "source" : "sink");
	report_arr_begin(r, "sizes");
	a->opened = true;
}

/* A run of -a: the document's opening before the first, its heading. */
void print_size_open(struct report *r, struct result *x)
{
	char b[32];

	if (x->opened)
		return;
	print_sizes_open(r, x->parent);
	report_text(r, "\n -a: message size %s (%llu bytes)\n",
		    format_size(x->o.chunk, b, sizeof(b)), (unsigned long long)x->o.chunk);
	x->opened = true;
}

/* -a's text without --verbose: a line per size, as ib_write_bw -a prints. */
bool sizes_brief(const struct report *r, const struct result *a)
{
	return !r->json && !a->o.verbose;
}

/* Decimals for a bandwidth of -a's lines: 2, or 3 significant digits below 0.1 (0.0000970). */
static int bw_digits(double v)
{
	int d = v > 0 && v < 0.1 ? 2 - (int)floor(log10(v)) : 2;

	return d > 9 ? 9 : d;
}

/*
 * A run of -a in one line: #bytes (the message size), #iterations (the
 * WRITEs that landed in the window), BW peak and average, MsgRate (Mpps).
 * The result keeps no per-second samples of the RDMA rate: the peak printed
 * is the average (said in the man page), never a figure it did not measure.
 * The bandwidth in perftest's units, for scripts that read its columns:
 * MB/sec of 2^20 bytes, or with --report_gbits Gb/sec (10^9 bits).
 */
static void print_size_row(struct report *r, struct result *x)
{
	const struct result_stream *st = x->nstreams ? &x->streams[0] : NULL;
	uint64_t bytes = x->mode == RESULT_FANIN ? x->sum.rdma_bytes : st ? st->bytes : 0;
	double bps = x->mode == RESULT_FANIN ? x->sum.rdma_bps : st ? streams_bps(st) : NAN;
	double k = r->gbits ? 8 / 1e9 : 1 / 1048576.0;
	uint64_t chunk = x->o.chunk;

	if (x == &x->parent->parts[0])
		report_text(r, " %-10s %-14s %-18s %-21s %s\n", "#bytes", "#iterations",
			    r->gbits ? "BW peak[Gb/sec]" : "BW peak[MB/sec]",
			    r->gbits ? "BW average[Gb/sec]" : "BW average[MB/sec]",
			    "MsgRate[Mpps]");
	if (!isfinite(bps) || !(bps > 0)) {
		report_text(r, " %-10llu %-14s %-18s %-21s %s\n", (unsigned long long)chunk, "-",
			    "-", "-", "-");
	} else {
		int d = bw_digits(bps * k);

		report_text(r, " %-10llu %-14llu %-18.*f %-21.*f %.6f\n", (unsigned long long)chunk,
			    (unsigned long long)(bytes / chunk), d, bps * k, d, bps * k,
			    bps / (double)chunk / 1e6);
	}
	if (x->rc && x->failure[0])
		report_text(r, " (%llu bytes: %s)\n", (unsigned long long)chunk, x->failure);
}

/* A run of -a, whole or what is left of it after its header, once. */
void print_size(struct report *r, struct result *x)
{
	if (x->printed)
		return;
	if (sizes_brief(r, x->parent)) {
		print_size_row(r, x);
		x->printed = true;
		return;
	}
	print_size_open(r, x);
	print_role(r, x);
	x->printed = true;
}

/*
 * A size's % of the rails' line rate; above 100% of that exact ceiling, flagged
 * "above ceiling" as the ladder does, with no percentage.
 */
static void print_point_pct(struct report *r, double gb_per_s, double line)
{
	bool over = sweep_above_at(gb_per_s, line, 100.0);

	if (over)
		report_text(r, " %13s", "above ceiling");
	report_double(r, "percent_of_line_rate", over ? NULL : " %13.1f",
		      over ? NAN : sweep_pct_held(gb_per_s, line));
	report_bool(r, "above_line_rate", NULL, over);
}

/* The curve, its verdict and the table (text) / "sweep" (JSON). */
static void print_curve(struct report *r, const struct result_curve *c)
{
	double ceiling = c->line_gbits > 0 ? c->line_gbits / 8 : NAN;
	int i;

	report_obj_begin(r, "sweep");
	report_text(r, " %-10s %10s %10s %13s\n", "size", report_bw_unit(r), "M WRITE/s",
		    "% of line");
	report_arr_begin(r, "points");
	for (i = 0; i < c->n; i++) {
		report_obj_begin(r, NULL);
		report_u64(r, "size", NULL, c->size[i]);
		report_text(r, " %-10s", c->names[i]);
		report_bw(r, "gb_per_s", " %10.3f", c->gb_per_s[i] * 1e9);
		print_msg_rate(r, c->gb_per_s[i] * 1e9, c->size[i], " %10.6f");
		print_point_pct(r, c->gb_per_s[i], ceiling);
		report_text(r, "\n");
		report_obj_end(r);
	}
	report_arr_end(r);
	report_double(r, "line_rate_gb_per_s", NULL, ceiling);
	if (c->judged) {
		report_obj_begin(r, "verdict");
		report_str(r, "flat_from", NULL, c->names[c->verdict.flat_from]);
		report_double(r, "max_gb_per_s", NULL, c->verdict.max_gb_per_s);
		report_double(r, "pct_of_ceiling", NULL, c->verdict.pct);
		report_str(r, "kind", NULL, sweep_kind_name(c->verdict.kind));
		report_str(r, "text", " verdict: %s\n", c->verdict.text);
		report_obj_end(r);
	}
	report_obj_end(r);
}

/*
 * Under -a's lines (text only; JSON has each size's verify): which sizes were
 * verified and how, which could not be (below 4 KiB), never a PASS for those.
 */
static void print_sizes_verified(struct report *r, const struct result *x)
{
	int i, n[VERDICT_NONE + 1] = {0}, small = 0;
	uint64_t lo = 0, hi = 0, slo = 0, shi = 0;

	for (i = 0; i < x->nparts; i++) {
		const struct result *p = &x->parts[i];
		enum verdict v = result_verdict(p);
		bool below = p->o.chunk % DIGEST_BLOCK && v == VERDICT_OFF;

		if (below) {
			slo = slo ? slo : p->o.chunk;
			shi = p->o.chunk;
			small++;
			continue;
		}
		n[v]++;
		lo = lo ? lo : p->o.chunk;
		hi = p->o.chunk;
	}
	if (r->json || !x->nparts)
		return;
	report_text(r, " verification: ");
	if (n[VERDICT_PASS] || n[VERDICT_FAIL] || n[VERDICT_NONE])
		report_text(r, "%s at %llu to %llu bytes (%d %s, %d %s, %d not done)",
			    verdict_word(n[VERDICT_FAIL]   ? VERDICT_FAIL
					 : n[VERDICT_NONE] ? VERDICT_NONE
							   : VERDICT_PASS),
			    (unsigned long long)lo, (unsigned long long)hi, n[VERDICT_PASS],
			    verdict_word(VERDICT_PASS), n[VERDICT_FAIL], verdict_word(VERDICT_FAIL),
			    n[VERDICT_NONE]);
	else if (n[VERDICT_OFF])
		report_text(r, "off (--no-verify)");
	if (small)
		report_text(r,
			    "%s%llu to %llu bytes not verified (%d sizes below 4 KiB: "
			    "verification hashes whole 4 KiB blocks)",
			    n[VERDICT_PASS] || n[VERDICT_FAIL] || n[VERDICT_NONE] || n[VERDICT_OFF]
				    ? "; "
				    : "",
			    (unsigned long long)slo, (unsigned long long)shi, small);
	report_text(r, "\n");
}

void print_sizes(struct report *r, struct result *x)
{
	const struct result_curve *c = &x->curve;
	int i;

	for (i = 0; i < x->nparts; i++)
		print_size(r, &x->parts[i]);
	print_sizes_open(r, x);
	report_arr_end(r);
	if (sizes_brief(r, x))
		print_sizes_verified(r, x);
	if (c->n)
		print_curve(r, c);
	if (c->n < c->planned)
		report_text(r, " (-a stopped after %d of %d sizes)\n", c->n, c->planned);
	report_bool(r, "complete", NULL, c->n == c->planned);
	print_interrupted(r, x);
	print_provenance(r, x);
	report_obj_end(r);
	report_finish(r);
}
