// SPDX-License-Identifier: MIT
/*
 * printer.c: every report of nvme_write_bw_remote, from a result (result.h)
 * through common/base/report.c: the header, the drives, the rails, the totals,
 * the streams and the verdicts, of the sink, the source and fan-in.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters_rows.h"
#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "printer.h"
#include "rows.h"
#include "validity.h"
#include "window.h"

/* ---- the sink, one source ------------------------------------------------------------ */

static void print_sink_drives(struct report *r, const struct result *x)
{
	const struct result_stream *st = &x->streams[0];
	int i;

	print_drives_head(r);
	report_arr_begin(r, "drives");
	print_locals(r, x);
	for (i = 0; i < st->ndrives; i++)
		print_drive(r, &st->drives[i], "rdma", NULL, st->seconds, x->o.chunk);
	report_arr_end(r);
}

/* The streams' overlap and variation, and whether the total may be read as a sum. */
static void print_sink_validity(struct report *r, const struct result *x)
{
	const struct result_stream *st = &x->streams[0];

	if (!x->sum.judged) {
		report_null(r, "total_valid", NULL);
		return;
	}
	report_arr_begin(r, "streams");
	if (x->nlocal)
		print_stream(r, NULL, NAN, x->lcv, NAN, true);
	else
		report_text(r, " Streams         :");
	print_stream(r, st->peer, st->overlap_pct, st->cv, st->start_offset_s, true);
	report_arr_end(r);
	print_sum_rule(r, &x->o, x->sum.valid, x->sum.why);
}

/* local, RDMA, total, ideal and % of ideal. */
static void print_sink_totals(struct report *r, const struct result *x)
{
	const struct result_stream *st = &x->streams[0];
	uint64_t lbytes = x->sum.local_bytes;
	double lsec = x->lseconds, rsec = st->seconds;
	char lab[64];

	print_totals_head(r);
	print_local_row(r, x);
	report_text(r, "\n");
	snprintf(lab, sizeof(lab), "RDMA (%u QPs)%s", st->workers,
		 st->from == RDMA_FROM_HEARTBEAT ? "*" : "");
	print_bw_row(r, "rdma", lab, st->bytes, rsec, x->o.chunk);
	report_text(r, "\n");
	report_str(r, "rdma_reported_by", NULL, rdma_from_name(st->from));
	print_rdma_check(r, st);
	report_obj_begin(r, "total");
	report_text(r, " %-22s", "total");
	report_u64(r, "bytes", " %16llu", lbytes + st->bytes);
	report_double(r, "seconds", " %9.2f", lsec > rsec ? lsec : rsec);
	report_bw(r, "gb_per_s", " %9.2f\n", x->sum.total_bps);
	report_double(r, "cpu_s", NULL, x->cpu_s);
	report_double(r, "cpu_s_per_gib", " CPU (sink)             %.3f s per GiB landed",
		      nbw_cpu_per_gib(x->cpu_s, lbytes + st->bytes));
	report_text(r, " (%.2f s user + system; RDMA costs the sink none)\n", x->cpu_s);
	report_obj_end(r);
	print_ideal(r, x);
	report_text(r, "%% of ideal)\n");
	report_text(r, " (ideal = every drive at the mean local per-drive rate of this window)\n");
	if (st->from == RDMA_FROM_HEARTBEAT)
		report_text(
			r, " (* RDMA: as of the source's last heartbeat; its result never came)\n");
	print_sink_validity(r, x);
}

/*
 * What the hardware counted: the ports' counter deltas (span: what they
 * cover, unless the result says) and the PCIe links and AER counts under
 * load; a rule after them when there was any.
 */
/* The counters over span, the links under load, and the attribution (one stream: st's; fan-in:
 * all). */
static void print_evidence(struct report *r, const struct result *x, const char *span,
			   const struct result_stream *st)
{
	print_counters(r, x, x->ctr_span[0] ? x->ctr_span : span);
	linkload_print(r, x->ll);
	if (st)
		print_attribution(r, x, st);
	else if (x->mode == RESULT_FANIN)
		print_attribution_all(r, x);
	if (x->nctr || (x->ll && x->ll->opened && x->ll->n))
		print_rule(r);
}

static void print_sink(struct report *r, const struct result *x)
{
	const struct result_stream *st = &x->streams[0];

	report_text(r, " Source          : %s (%u workers, %s)\n", st->peer[0] ? st->peer : "-",
		    st->workers, st->source == CTRL_SOURCE_MEM ? "memory" : "drives");
	report_str(r, "peer", NULL, st->peer[0] ? st->peer : NULL);
	report_u64(r, "workers", NULL, st->workers);
	if (st->slice_len)
		report_u64(r, "slice_bytes", NULL, st->slice_len);
	print_rule(r);
	print_sink_drives(r, x);
	print_rule(r);
	print_rails(r, st->rails, st->nrails, st->seconds, x->o.chunk);
	print_rule(r);
	print_sink_totals(r, x);
	print_rule(r);
	print_evidence(r, x, "from START to the source's result", st);
	print_outcome(r, &x->o, x->verdict, x->vdetail[0] ? x->vdetail : NULL, x->rc == 0,
		      x->failure);
}

/* ---- the source ---------------------------------------------------------------------- */

static void print_ports(struct report *r, const struct result *x)
{
	int k;

	report_arr_begin(r, "ports");
	for (k = 0; k < x->nports; k++) {
		report_obj_begin(r, NULL);
		report_str(r, "device", " Port            : %s", x->ports[k].dev);
		report_u64(r, "port", ":%llu", x->ports[k].port);
		report_str(r, "link_layer", " %s", x->ports[k].link_layer);
		report_str(r, "address", " %s\n", x->ports[k].addr[0] ? x->ports[k].addr : NULL);
		report_obj_end(r);
	}
	report_arr_end(r);
}

static void print_source(struct report *r, const struct result *x)
{
	const struct result_stream *st = &x->streams[0];
	const struct options *o = &x->o;
	char lab[64];
	int k;

	report_text(r, " Sink            : %s port %u, %u workers (QPs)\n", o->source.peer, o->port,
		    st->workers);
	report_str(r, "peer", NULL, o->source.peer);
	report_u64(r, "workers", NULL, st->workers);
	print_ports(r, x);
	print_rule(r);
	print_drives_head(r);
	report_arr_begin(r, "drives");
	for (k = 0; k < st->ndrives; k++)
		print_drive(r, &st->drives[k], "rdma", NULL, st->seconds, o->chunk);
	report_arr_end(r);
	print_rule(r);
	print_rails(r, st->rails, st->nrails, st->seconds, x->o.chunk);
	print_rule(r);
	print_totals_head(r);
	print_bw_row(r, "local", "local (source: none)", 0, st->seconds, 0);
	report_text(r, "\n");
	snprintf(lab, sizeof(lab), "RDMA (%u QPs)", st->workers);
	print_bw_row(r, "rdma", lab, st->bytes, st->seconds, o->chunk);
	report_text(r, "\n");
	report_obj_begin(r, "total");
	report_text(r, " %-22s", "total (this side)");
	report_u64(r, "bytes", " %16llu", st->bytes);
	report_double(r, "seconds", " %9.2f", st->seconds);
	report_bw(r, "gb_per_s", " %9.2f", st->seconds > 0 ? (double)st->bytes / st->seconds : 0);
	print_msg_rate(r, st->seconds > 0 ? (double)st->bytes / st->seconds : NAN, o->chunk,
		       " %10.6f\n");
	report_double(r, "cpu_s", NULL, x->cpu_s);
	report_double(r, "cpu_s_per_gib", " CPU (source)           %.3f s per GiB sent",
		      nbw_cpu_per_gib(x->cpu_s, st->bytes));
	report_text(r, " (%.2f s user + system)\n", x->cpu_s);
	report_latency(r, st->lat, "RDMA WRITE");
	report_obj_end(r);
	print_rule(r);
	print_evidence(r, x, "over the window", st);
	print_outcome(r, o, x->verdict, NULL, x->rc == 0, x->failure);
}

/* ---- fan-in: --sources N into one sink ------------------------------------------------ */

/* The header's lines after the parameters: who came, and how the DRAM was cut. */
static void print_split(struct report *r, const struct result *x)
{
	char a[32], b[32];
	int i;

	report_u64(r, "sources_expected", " Sources         : %llu expected,",
		   (uint64_t)x->nexpected);
	report_u64(r, "sources_admitted", " %llu came\n", (uint64_t)x->nstreams);
	report_text(r, " DRAM split      : %s in all: local readers %s",
		    format_size(x->o.sink.dram, a, sizeof(a)),
		    format_size(x->local_len, b, sizeof(b)));
	report_u64(r, "dram_local_bytes", NULL, x->local_len);
	for (i = 0; i < x->nstreams; i++) {
		const struct result_stream *st = &x->streams[i];

		report_text(r, "; %s %u x %s", st->peer, st->workers,
			    format_size(st->slice_len, a, sizeof(a)));
	}
	report_text(r, "\n");
}

/* Every drive: the sink's own, then each source's as host:/dev/nvmeXnY. */
static void print_fanin_drives(struct report *r, const struct result *x)
{
	int i, j;

	print_drives_head(r);
	report_arr_begin(r, "drives");
	print_locals(r, x);
	for (i = 0; i < x->nstreams; i++) {
		const struct result_stream *st = &x->streams[i];

		for (j = 0; j < st->ndrives; j++)
			print_drive(r, &st->drives[j], "rdma", st->peer, st->seconds, x->o.chunk);
	}
	report_arr_end(r);
}

/* One source's row: its RDMA figure, overlap, variation, verdict; its rails below. */
static void print_fanin_source(struct report *r, const struct result *x, int i)
{
	const struct result_stream *st = &x->streams[i];
	char lab[96];

	report_obj_begin(r, NULL);
	report_u64(r, "index", NULL, (uint64_t)i + 1);
	report_str(r, "peer", NULL, st->peer);
	report_u64(r, "workers", NULL, st->workers);
	report_str(r, "source", NULL, st->source == CTRL_SOURCE_MEM ? "mem" : "disk");
	report_u64(r, "dram_bytes", NULL, st->slice_len * st->workers);
	report_u64(r, "slice_bytes", NULL, st->slice_len);
	snprintf(lab, sizeof(lab), "RDMA %s (%u QPs)%s", st->peer, st->workers,
		 st->from == RDMA_FROM_HEARTBEAT ? "*" : "");
	print_bw_row(r, "rdma", lab, st->bytes, st->seconds, x->o.chunk);
	report_str(r, "rdma_reported_by", NULL, rdma_from_name(st->from));
	report_double(r, "overlap_pct", "  overlap %5.1f%%", st->overlap_pct);
	report_double(r, "cv_pct", "  cv %4.1f%%\n", st->cv);
	report_double(r, "start_offset_s", NULL, st->start_offset_s);
	print_rdma_check(r, st);
	print_verify(r, &x->o, st->verdict, st->vdetail[0] ? st->vdetail : NULL);
	print_rails(r, st->rails, st->nrails, st->seconds, x->o.chunk);
	print_attribution_source(r, x, st);
	report_bool(r, "ok", NULL, st->rc == 0);
	if (st->failure[0])
		report_str(r, "error", " FAILED: %s\n", st->failure);
	else
		report_null(r, "error", NULL);
	report_obj_end(r);
}

/* A source that never came: named, and counted as failed. */
static void print_missing(struct report *r, const struct result *x, int i)
{
	char why[192];

	result_missing_why(&x->o, i, x->nexpected, why, sizeof(why));
	report_obj_begin(r, NULL);
	report_u64(r, "index", NULL, (uint64_t)i + 1);
	report_null(r, "peer", NULL);
	report_bool(r, "ok", NULL, false);
	report_str(r, "error", " MISSING: %s\n", why);
	report_obj_end(r);
}

/* every source's RDMA (the sum), total, ideal and % of ideal. */
static void print_fanin_sum(struct report *r, const struct result *x)
{
	const struct result_sum *u = &x->sum;
	uint64_t all = u->local_bytes + u->rdma_bytes;
	int i, nbeat = 0;
	char lab[64];

	for (i = 0; i < x->nstreams; i++)
		nbeat += x->streams[i].from == RDMA_FROM_HEARTBEAT;
	report_obj_begin(r, "rdma");
	snprintf(lab, sizeof(lab), "RDMA (sum of %d)", x->nstreams);
	report_text(r, " %-22s", lab);
	report_u64(r, "bytes", " %16llu", u->rdma_bytes);
	report_double(r, "seconds", " %9.2f", u->rdma_seconds);
	report_bw(r, "gb_per_s", " %9.2f", u->rdma_bps);
	print_msg_rate(r, u->rdma_bps, x->o.chunk, " %10.6f\n");
	report_obj_end(r);
	report_obj_begin(r, "total");
	report_text(r, " %-22s", "total");
	report_u64(r, "bytes", " %16llu", all);
	report_double(r, "seconds", " %9.2f", fmax(x->lseconds, u->rdma_seconds));
	report_bw(r, "gb_per_s", " %9.2f\n", u->total_bps);
	report_double(r, "cpu_s", NULL, x->cpu_s);
	report_double(r, "cpu_s_per_gib", " CPU (sink)             %.3f s per GiB landed",
		      nbw_cpu_per_gib(x->cpu_s, all));
	report_text(r, " (this process; RDMA costs the sink none)\n");
	report_obj_end(r);
	print_ideal(r, x);
	report_text(r, "%% of ideal)\n (ideal = every drive, here and on each source, at the "
		       "mean local per-drive rate of this window)\n");
	if (nbeat)
		report_text(r, " (* RDMA: as of that source's last heartbeat; its result never "
			       "came)\n");
}

/* The streams (JSON) and the verdict on the sum (both). */
static void print_fanin_streams(struct report *r, const struct result *x)
{
	int i;

	report_arr_begin(r, "streams");
	if (x->nlocal)
		print_stream(r, NULL, NAN, x->lcv, NAN, false);
	for (i = 0; i < x->nstreams; i++)
		print_stream(r, x->streams[i].peer, x->streams[i].overlap_pct, x->streams[i].cv,
			     x->streams[i].start_offset_s, false);
	report_arr_end(r);
	print_sum_rule(r, &x->o, x->sum.valid, x->sum.why);
}

/*
 * The verdict on all the data that landed: off (--no-verify); fail if one
 * source's data differed; pass if every source came and passed; else none
 * (a source never came or ended before its verdict).
 */
static void print_verdicts(struct report *r, const struct result *x)
{
	enum verdict v = result_verdict(x);
	int i, pass = 0;

	if (v == VERDICT_OFF) {
		report_str(r, "verify", " RDMA data verification: %s", verdict_name(v));
		report_str(r, "verify_detail", " (%s)\n", verify_off_why(&x->o));
		return;
	}
	for (i = 0; i < x->nstreams; i++)
		pass += x->streams[i].verdict == VERDICT_PASS;
	report_str(r, "verify", NULL, verdict_name(v));
	report_text(r, " RDMA data verification: %s (%d of %d sources %s%s)\n", verdict_word(v),
		    pass, x->nexpected, verdict_word(VERDICT_PASS),
		    v == VERDICT_FAIL ? ", data differed" : "");
}

/* ok, and error: the sink's own failure, else each source that failed and how many never came. */
static void print_failures(struct report *r, const struct result *x)
{
	report_bool(r, "ok", NULL, x->rc == 0);
	if (x->rc == 0)
		report_null(r, "error", NULL);
	else
		report_str(r, "error", " error: %s\n", x->failure);
}

/* The combined table. */
static void print_fanin(struct report *r, const struct result *x)
{
	int i;

	print_rule(r);
	print_fanin_drives(r, x);
	print_rule(r);
	print_totals_head(r);
	print_local_row(r, x);
	report_double(r, NULL, "  cv %4.1f%%\n", x->nlocal ? x->lcv : NAN);
	report_arr_begin(r, "sources");
	for (i = 0; i < x->nexpected; i++) {
		if (i < x->nstreams)
			print_fanin_source(r, x, i);
		else
			print_missing(r, x, i);
	}
	report_arr_end(r);
	print_fanin_sum(r, x);
	print_fanin_streams(r, x);
	print_rule(r);
	print_evidence(r, x, "from before the sources' START to the last one's end", NULL);
	print_verdicts(r, x);
	print_failures(r, x);
	print_rule(r);
}

/* ---- one role's document ---------------------------------------------------------- */

static const char *role_name(const struct result *x)
{
	return x->mode == RESULT_SOURCE ? "source" : "sink";
}

/* The document's opening and the header (before the window). */
static void print_head(struct report *r, struct result *x)
{
	struct options shown = x->o;

	shown.source.feed = x->source;
	report_obj_begin(r, x->key);
	print_params(r, &shown, role_name(x), x->mode == RESULT_SOURCE ? NULL : x->where);
	if (x->mode == RESULT_FANIN)
		print_split(r, x);
	x->head_out = true;
}

/*
 * A run cut short by SIGINT/SIGTERM: said in text, "interrupted": true in
 * JSON (the key only then: a whole run's document keeps its keys).
 */
static void print_interrupted(struct report *r, const struct result *x)
{
	if (!x->interrupted)
		return;
	report_bool(r, "interrupted", NULL, true);
	report_text(r, " (interrupted: SIGINT/SIGTERM cut the run short; the figures cover only "
		       "what ran)\n");
}

/* The document's end: a newline after it (as -a's runs always had; not inside --bidir's). */
static void print_close(struct report *r, const struct result *x)
{
	if (!x->parent)
		print_interrupted(r, x);
	report_obj_end(r);
	if (!x->parent || x->parent->mode == RESULT_SIZES)
		report_finish(r);
}

/* The body after the window. */
static void print_body(struct report *r, const struct result *x)
{
	if (x->mode == RESULT_SINK)
		print_sink(r, x);
	else if (x->mode == RESULT_SOURCE)
		print_source(r, x);
	else if (x->mode == RESULT_FANIN)
		print_fanin(r, x);
}

/* A run that ended before its header: the short document (JSON only; nothing in text). */
static void print_short(struct report *r, const struct result *x)
{
	if (!r->json)
		return;
	report_obj_begin(r, x->key);
	print_params(r, &x->o, role_name(x),
		     x->mode == RESULT_SINK && x->where[0] ? x->where : NULL);
	if (x->mode == RESULT_SINK) {
		print_sink(r, x);
	} else if (x->mode == RESULT_SOURCE) {
		report_str(r, "verify", NULL, NULL);
		report_bool(r, "ok", NULL, false);
		report_str(r, "error", NULL, x->failure[0] ? x->failure : NULL);
	} else {
		report_bool(r, "ok", NULL, false);
		report_str(r, "error", NULL, x->failure[0] ? x->failure : "failed");
	}
	print_close(r, x);
}

/* One role's whole document, or what is left of it after its header. */
static void print_role(struct report *r, struct result *x)
{
	if (!x->begun) {
		print_short(r, x);
		return;
	}
	if (!x->head_out)
		print_head(r, x);
	print_body(r, x);
	print_close(r, x);
}

/* ---- -a: a run per message size, then the curve ----------------------------------- */

/* -a's document's opening, once. */
static void print_sizes_open(struct report *r, struct result *a)
{
	if (a->opened)
		return;
	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "role", NULL, a->o.source.peer ? "source" : "sink");
	report_arr_begin(r, "sizes");
	a->opened = true;
}

/* A run of -a: the document's opening before the first, its heading. */
static void print_size_open(struct report *r, struct result *x)
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
static bool sizes_brief(const struct report *r, const struct result *a)
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
 */
static void print_size_row(struct report *r, struct result *x)
{
	const struct result_stream *st = x->nstreams ? &x->streams[0] : NULL;
	uint64_t bytes = x->mode == RESULT_FANIN ? x->sum.rdma_bytes : st ? st->bytes : 0;
	double bps = x->mode == RESULT_FANIN ? x->sum.rdma_bps : st ? streams_bps(st) : NAN;
	double k = r->gbits ? 8 / 1e9 : 1 / 1e9;
	uint64_t chunk = x->o.chunk;

	if (x == &x->parent->parts[0])
		report_text(r, " %-10s %-14s %-16s %-19s %s\n", "#bytes", "#iterations",
			    r->gbits ? "BW peak[Gb/s]" : "BW peak[GB/s]",
			    r->gbits ? "BW average[Gb/s]" : "BW average[GB/s]", "MsgRate[Mpps]");
	if (!isfinite(bps) || !(bps > 0)) {
		report_text(r, " %-10llu %-14s %-16s %-19s %s\n", (unsigned long long)chunk, "-",
			    "-", "-", "-");
	} else {
		int d = bw_digits(bps * k);

		report_text(r, " %-10llu %-14llu %-16.*f %-19.*f %.6f\n", (unsigned long long)chunk,
			    (unsigned long long)(bytes / chunk), d, bps * k, d, bps * k,
			    bps / (double)chunk / 1e6);
	}
	if (x->rc && x->failure[0])
		report_text(r, " (%llu bytes: %s)\n", (unsigned long long)chunk, x->failure);
}

/* A run of -a, whole or what is left of it after its header, once. */
static void print_size(struct report *r, struct result *x)
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

/* The curve, its verdict and the table (text) / "sweep" (JSON). */
static void print_curve(struct report *r, const struct result_curve *c)
{
	double ceiling = c->line_gbits > 0 ? c->line_gbits / 8 : NAN;
	int i;

	report_obj_begin(r, "sweep");
	report_text(r, " %-10s %10s %10s %12s\n", "size", report_bw_unit(r), "M WRITE/s",
		    "% of line");
	report_arr_begin(r, "points");
	for (i = 0; i < c->n; i++) {
		report_obj_begin(r, NULL);
		report_u64(r, "size", NULL, c->size[i]);
		report_text(r, " %-10s", c->names[i]);
		report_bw(r, "gb_per_s", " %10.3f", c->gb_per_s[i] * 1e9);
		print_msg_rate(r, c->gb_per_s[i] * 1e9, c->size[i], " %10.6f");
		print_line_pct(r, c->gb_per_s[i], ceiling, 12);
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

static void print_sizes(struct report *r, struct result *x)
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
	report_obj_end(r);
	report_finish(r);
}

/* ---- --bidir: both directions, then their sum ------------------------------------- */

/* A rate of the summary, or "-" when nothing was measured, and its tail. */
static void print_rate(struct report *r, const char *key, const char *label, double bps,
		       const char *tail)
{
	report_text(r, " %-26s", label);
	report_bw(r, key, "%10.3f", bps);
	report_text(r, "  %s\n", tail);
}

/* A direction's rate in bytes/s; NAN when it has none (or did not run). */
static double part_bps(const struct result *p)
{
	return p->nstreams ? streams_bps(&p->streams[0]) : NAN;
}

static void print_bidir_sum(struct report *r, const struct result *x)
{
	const struct result *in = &x->parts[0], *out = &x->parts[1];
	const char *peer = x->o.source.peer;
	double ov = x->sum.overlap_pct;
	char tail[32];

	report_text(r, "\n--bidir with %s (%s):\n", peer, report_bw_unit(r));
	report_obj_begin(r, "bidir");
	report_str(r, "peer", NULL, peer);
	snprintf(tail, sizeof(tail), "exit %d", out->rc);
	print_rate(r, "send_gb_per_s", "send (RDMA WRITE out)", part_bps(out), tail);
	snprintf(tail, sizeof(tail), "exit %d", in->rc);
	print_rate(r, "receive_gb_per_s", "receive (RDMA WRITE in)", part_bps(in), tail);
	print_rate(r, "sum_gb_per_s", "sum of both directions", x->sum.rdma_bps,
		   x->sum.valid ? "(valid)" : "(NOT valid)");
	report_double(r, "overlap_pct", NULL, ov);
	if (isfinite(ov))
		report_double(r, NULL, " windows overlap           %9.2f%%\n",
			      floor(ov * 100) / 100);
	report_bool(r, "sum_valid", NULL, x->sum.valid);
	report_str(r, "sum_invalid_reason", x->sum.valid ? NULL : " not valid: %s\n",
		   x->sum.valid ? NULL : x->sum.why);
	report_obj_end(r);
	report_text(r,
		    " Both directions at once stress the fabric (each port sends and receives);\n"
		    " they do not raise what the drives deliver: the drives' aggregate is the\n"
		    " same whichever way their data goes.\n");
}

static void print_bidir(struct report *r, struct result *x)
{
	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "role", NULL, "bidir");
	if (x->nparts == 2) {
		report_text(r, "\n=== receive: %s -> this node's DRAM (sink) ===\n",
			    x->o.source.peer);
		print_role(r, &x->parts[0]);
		report_text(r, "\n=== send: this node's drives -> %s (source) ===\n",
			    x->o.source.peer);
		print_role(r, &x->parts[1]);
		print_bidir_sum(r, x);
	}
	report_i64(r, "exit_status", NULL, x->rc);
	print_interrupted(r, x);
	report_obj_end(r);
	report_finish(r);
}

/* ---- the entries --------------------------------------------------------------------- */

/*
 * While the roles run: the header before each window, the live lines in it,
 * each run of -a once it ends.
 */
static void printer_event(void *ctx, struct result *x, enum result_event ev)
{
	struct report *r = ctx;
	bool part_of_a = x->parent && x->parent->mode == RESULT_SIZES;

	if (ev == RESULT_LIVE) {
		/* On stdout between the header and the body; on stderr beside JSON. */
		live_print(r->json ? stderr : r->out, x->live.at, r->gbits, x->live.v, x->live.n,
			   x->live.note);
	} else if (ev == RESULT_BEGIN && part_of_a && sizes_brief(r, x->parent)) {
		/* its one line comes at RESULT_END */
	} else if (ev == RESULT_BEGIN && x->mode != RESULT_BIDIR && (!x->parent || part_of_a)) {
		if (part_of_a)
			print_size_open(r, x);
		print_head(r, x);
	} else if (ev == RESULT_END && part_of_a) {
		print_size(r, x);
	}
}

void printer_attach(struct result *x, struct report *r)
{
	x->hook = (struct result_hook){.fn = printer_event, .ctx = r};
}

void print_result(struct report *r, struct result *x)
{
	if (x->mode == RESULT_SIZES)
		print_sizes(r, x);
	else if (x->mode == RESULT_BIDIR)
		print_bidir(r, x);
	else
		print_role(r, x);
}
