// SPDX-License-Identifier: MIT
/*
 * body.c: the body of one role's report, after its window (see parts.h):
 * the sink's with one source, the source's and fan-in's: the drives, the
 * rails, the totals, the streams, what the hardware counted and the
 * verdicts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "attrib_drive.h"
#include "counters_rows.h"
#include "nbw.h"
#include "parts.h"
#include "rows.h"

/* ---- the sink, one source ------------------------------------------------------------ */

static void print_sink_drives(struct report *r, const struct result *x)
{
	const struct result_stream *st = &x->streams[0];
	int i;

	print_drives_head(r);
	report_arr_begin(r, "drives");
	print_locals(r, x);
	for (i = 0; i < st->ndrives; i++)
		print_drive(r, &st->drives[i], "rdma", NULL, st->seconds, x->o.chunk,
			    x->o.sink.max_cv);
	report_arr_end(r);
	print_drive_notes(r, x->local, x->nlocal, x->o.sink.max_cv, NULL);
	print_drive_notes(r, st->drives, st->ndrives, x->o.sink.max_cv, st->peer);
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
	report_text(r,
		    " (ideal = every drive at the mean local per-drive rate of this window, when "
		    "the source's drives are the sink's model)\n");
	if (st->from == RDMA_FROM_HEARTBEAT)
		report_text(
			r, " (* RDMA: as of the source's last heartbeat; its result never came)\n");
	print_sink_validity(r, x);
}

/*
 * The drives explained, each against its peers: the stream's (st, NULL for
 * none: a source's, whose links are watched here only on the source itself)
 * and, with local, this sink's own.
 */
static void print_drives_explained(struct report *r, const struct result *x,
				   const struct result_stream *st, bool local)
{
	struct attrib_drive *a = calloc(ATTRIB_DRIVE_MAX, sizeof(*a));
	int n = 0;

	if (!a)
		return;
	/* a source's drives at the sink are the source's, named so: never the sink's own */
	if (st)
		n = attrib_drives(st->drives, st->ndrives, x->mode == RESULT_SOURCE ? x->ll : NULL,
				  x->o.sink.max_cv, "rdma",
				  x->mode == RESULT_SOURCE ? NULL : st->peer, a, ATTRIB_DRIVE_MAX);
	if (local)
		n += attrib_drives(x->local, x->nlocal, x->ll, x->o.sink.max_cv, "local", NULL,
				   a + n, ATTRIB_DRIVE_MAX - n);
	attrib_drives_print(r, a, n);
	free(a);
}

/*
 * What the hardware counted: the ports' counter deltas over span (unless the
 * result says what they cover), the PCIe links and AER counts under load, and
 * the attribution (one stream: st's; fan-in: every source's); a rule after
 * them when there was any.
 */
static void print_evidence(struct report *r, const struct result *x, const char *span,
			   const struct result_stream *st)
{
	print_counters(r, x, x->ctr_span[0] ? x->ctr_span : span);
	linkload_print(r, x->ll);
	if (st)
		print_attribution(r, x, st);
	else if (x->mode == RESULT_FANIN)
		print_attribution_all(r, x);
	print_drives_explained(r, x, x->mode == RESULT_FANIN ? NULL : st, x->mode != RESULT_SOURCE);
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

/* The source's choice of ports per drive (--rail-affinity) and why. */
static void print_rail_affinity(struct report *r, const struct result_stream *st)
{
	if (!st->rail_affinity[0])
		return;
	report_obj_begin(r, "rail_affinity");
	report_str(r, "mode", " Rails by        : %s", st->rail_affinity);
	report_str(r, "reason", " (%s)\n", st->rail_affinity_why);
	report_obj_end(r);
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
	print_rail_affinity(r, st);
	print_ports(r, x);
	print_rule(r);
	print_drives_head(r);
	report_arr_begin(r, "drives");
	for (k = 0; k < st->ndrives; k++)
		print_drive(r, &st->drives[k], "rdma", NULL, st->seconds, o->chunk, o->sink.max_cv);
	report_arr_end(r);
	print_drive_notes(r, st->drives, st->ndrives, o->sink.max_cv, NULL);
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
			print_drive(r, &st->drives[j], "rdma", st->peer, st->seconds, x->o.chunk,
				    x->o.sink.max_cv);
	}
	report_arr_end(r);
	print_drive_notes(r, x->local, x->nlocal, x->o.sink.max_cv, NULL);
	for (i = 0; i < x->nstreams; i++)
		print_drive_notes(r, x->streams[i].drives, x->streams[i].ndrives, x->o.sink.max_cv,
				  x->streams[i].peer);
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
	print_drives_explained(r, x, st, false); /* a source's drives, under its row */
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
	report_text(r,
		    " (ideal = every drive, here and on each source, at the mean local per-drive "
		    "rate of this window, when the sources' drives are the sink's model)\n");
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

/* The body after the window. */
void print_body(struct report *r, const struct result *x)
{
	if (x->mode == RESULT_SINK)
		print_sink(r, x);
	else if (x->mode == RESULT_SOURCE)
		print_source(r, x);
	else if (x->mode == RESULT_FANIN)
		print_fanin(r, x);
}
