// SPDX-License-Identifier: MIT
/*
 * validity.c: whether a set of streams adds up (see validity.h), in one
 * place for every mode: what keeps a stream out of the sum, the sink's
 * streams against its window (one source, --sources N), --bidir's two
 * directions and the source's sums. The sink's judge (sink/judge.c) calls it
 * with its word on what the sources claim together.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validity.h"

/* How long two windows (open, close; any one clock, ns) ran at the same time; >= 0. */
static double window_common_ns(double a_open, double a_close, double b_open, double b_close)
{
	return fmax(0, fmin(a_close, b_close) - fmax(a_open, b_open));
}

/*
 * The share (%) of the window [open, close) inside [ref_open, ref_close);
 * NAN when either window is not known (not longer than 0).
 */
static double overlap_pct(double open, double close, double ref_open, double ref_close)
{
	double len = close - open;

	if (!(len > 0) || !(ref_close - ref_open > 0))
		return NAN;
	return window_common_ns(open, close, ref_open, ref_close) / len * 100;
}

double streams_bps(const struct result_stream *st)
{
	return st->seconds > 0 ? st->bytes / st->seconds : NAN;
}

/* Append part to the sum's reason ("; " between parts). */
static void add_why(struct result_sum *s, const char *part)
{
	size_t n = strlen(s->why);

	if (part[0] && n < sizeof(s->why) - 1)
		snprintf(s->why + n, sizeof(s->why) - n, "%s%s", n ? "; " : "", part);
}

/*
 * What keeps stream st (label: "RDMA from HOST", "receive") out of the sum,
 * into why ("" if nothing): a failed verification, no window, an overlap
 * with ref ("the sink's"; NULL: st is the reference) under --min-overlap, a
 * variation over --max-cv.
 */
static void fault(const struct options *o, const char *label, const char *ref,
		  const struct result_stream *st, char *why, size_t len)
{
	double ov = st->overlap_pct, cv = st->cv;

	why[0] = '\0';
	if (st->verdict == VERDICT_FAIL)
		snprintf(why, len, "%s: its data failed verification", label);
	else if (st->rc || (ref && isnan(ov)))
		snprintf(why, len, "%s: no window (%s)", label,
			 st->failure[0] ? st->failure : "it failed");
	else if (ref && !(ov >= o->sink.min_overlap))
		snprintf(why, len,
			 "%s: its window overlapped %s %.2f%% (< %g%%; it opened %+.3f s from %s)",
			 label, ref, floor(ov * 100) / 100, o->sink.min_overlap, st->start_offset_s,
			 ref);
	else if (isnan(cv))
		snprintf(why, len, "%s: variation unknown (too few 1 s samples for --max-cv %g%%)",
			 label, o->sink.max_cv);
	else if (!(cv <= o->sink.max_cv))
		snprintf(why, len, "%s: variation %.2f%% (> %g%%)", label, ceil(cv * 100) / 100,
			 o->sink.max_cv);
}

/*
 * --bidir: the two directions of this node, each a stream; the received
 * one's window against the sent one's (this node's own source).
 */
static void judge_bidir(struct result *x)
{
	struct result_stream *in = &x->parts[0].streams[0], *out = &x->parts[1].streams[0];
	struct result_stream rin = *in, rout = *out;
	char part[CTRL_MAX_STR + 512];

	rin.rc = x->parts[0].rc;
	rout.rc = x->parts[1].rc;
	rin.verdict = x->parts[0].verdict;
	rout.verdict = x->parts[1].verdict;
	snprintf(rin.failure, sizeof(rin.failure), "%s", x->parts[0].failure);
	snprintf(rout.failure, sizeof(rout.failure), "%s", x->parts[1].failure);
	rin.overlap_pct =
		in->have_window && out->have_window
			? overlap_pct(in->open_ns, in->close_ns, out->open_ns, out->close_ns)
			: NAN;
	rin.start_offset_s = (in->open_ns - out->open_ns) / 1e9;
	x->sum.overlap_pct = rin.overlap_pct;
	x->sum.rdma_bps = streams_bps(out) + streams_bps(in);
	x->sum.total_bps = x->sum.rdma_bps;
	x->sum.why[0] = '\0';
	fault(&x->o, "send", NULL, &rout, part, sizeof(part));
	add_why(&x->sum, part);
	fault(&x->o, "receive", "the sent one's", &rin, part, sizeof(part));
	add_why(&x->sum, part);
	x->sum.valid = !x->sum.why[0];
	x->sum.judged = true;
}

/* The local drives' bytes together. */
static uint64_t local_bytes(const struct result *x)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < x->nlocal; i++)
		n += x->local[i].bytes;
	return n;
}

/* Whether one of the sink's own drives is of model m. */
static bool local_model(const struct result *x, const char *m)
{
	int i;

	for (i = 0; i < x->nlocal; i++)
		if (!strcmp(x->local[i].model, m))
			return true;
	return false;
}

/*
 * Why the sink's mean local per-drive rate cannot stand for every drive of
 * the run, into x->sum.ideal_why ("" when it can): no drives of its own, a
 * source without drives (memory) or whose drives are not known, a source
 * drive of another model than the sink's (its rate is the source's to
 * measure, not the sink's to assume).
 */
static void ideal_why(struct result *x)
{
	char *why = x->sum.ideal_why;
	size_t len = sizeof(x->sum.ideal_why);
	int i, k;

	why[0] = '\0';
	if (!x->nlocal || !(x->lseconds > 0)) {
		snprintf(why, len, "the sink read no drives of its own: no per-drive rate");
		return;
	}
	for (i = 0; i < x->nstreams; i++)
		if (x->streams[i].source == CTRL_SOURCE_MEM) {
			snprintf(why, len, "%s sends from memory: no drives", x->streams[i].peer);
			return;
		}
	if (x->nstreams < x->nexpected) {
		snprintf(why, len, "%d of %d sources never came: their drives are not known",
			 x->nexpected - x->nstreams, x->nexpected);
		return;
	}
	for (i = 0; i < x->nstreams; i++)
		if (!x->streams[i].drives_known) {
			snprintf(why, len, "the drives of %s are not known (no RESULT taken)",
				 x->streams[i].peer[0] ? x->streams[i].peer : "the source");
			return;
		}
	for (i = 0; i < x->nstreams; i++)
		for (k = 0; k < x->streams[i].ndrives; k++) {
			const struct result_drive *d = &x->streams[i].drives[k];

			if (local_model(x, d->model))
				continue;
			snprintf(why, len,
				 "%s's %s (%s) is not the model of the sink's drives (%s): the "
				 "sink's per-drive rate does not apply to it",
				 x->streams[i].peer, d->path,
				 d->model[0] ? d->model : "model unknown",
				 x->local[0].model[0] ? x->local[0].model : "model unknown");
			return;
		}
}

/* Rates add: each stream's bytes over its own window of the same length. Ideal too. */
static void sink_sums(struct result *x)
{
	uint64_t lbytes = local_bytes(x);
	double lbps = x->lseconds > 0 ? lbytes / x->lseconds : 0;
	int i, ndr = 0;

	x->sum.local_bytes = lbytes;
	x->sum.rdma_bytes = 0;
	x->sum.rdma_seconds = 0;
	x->sum.rdma_bps = 0;
	for (i = 0; i < x->nstreams; i++) {
		const struct result_stream *st = &x->streams[i];

		x->sum.rdma_bytes += st->bytes;
		x->sum.rdma_seconds = fmax(x->sum.rdma_seconds, st->seconds);
		x->sum.rdma_bps += st->seconds > 0 ? st->bytes / st->seconds : 0;
		ndr += st->ndrives;
	}
	x->sum.total_bps = lbps + x->sum.rdma_bps;
	x->sum.ideal_bps = NAN;
	ideal_why(x);
	if (!x->sum.ideal_why[0])
		x->sum.ideal_bps = lbps / x->nlocal * (x->nlocal + ndr);
}

/* Each source's window against the sink's, in this process's one clock. */
static void sink_overlaps(struct result *x)
{
	double ref_open = x->open_ns, ref_close = x->open_ns + x->lseconds * 1e9;
	int i;

	for (i = 0; i < x->nstreams; i++) {
		struct result_stream *st = &x->streams[i];

		st->overlap_pct = st->have_window ? overlap_pct(st->open_ns, st->close_ns, ref_open,
								ref_close)
						  : NAN;
		st->start_offset_s = isnan(st->overlap_pct) ? NAN : (st->open_ns - ref_open) / 1e9;
	}
}

/* The sink's streams (one source, --sources N) against its own window. */
static void judge_sink_streams(struct result *x, const char *claims)
{
	const struct options *o = &x->o;
	char part[CTRL_MAX_STR + 512], label[96];
	int i;

	sink_overlaps(x);
	sink_sums(x);
	x->sum.why[0] = '\0';
	if (x->nstreams < x->nexpected) {
		snprintf(part, sizeof(part), "%d of %d sources never came",
			 x->nexpected - x->nstreams, x->nexpected);
		add_why(&x->sum, part);
	}
	for (i = 0; i < x->nstreams; i++) {
		snprintf(label, sizeof(label), "RDMA from %s", x->streams[i].peer);
		fault(o, label, "the sink's", &x->streams[i], part, sizeof(part));
		add_why(&x->sum, part);
	}
	if (x->nlocal && !(x->lcv <= o->sink.max_cv)) {
		struct result_stream local = {.cv = x->lcv, .verdict = VERDICT_NONE};

		fault(o, "local drives", NULL, &local, part, sizeof(part));
		add_why(&x->sum, part);
	}
	if (claims)
		add_why(&x->sum, claims);
	x->sum.valid = !x->sum.why[0];
	/* One source that gave no window: nothing to judge (total_valid null). */
	x->sum.judged = x->mode == RESULT_FANIN || (x->nstreams && x->streams[0].have_window);
}

void streams_judge_claims(struct result *x, const char *claims)
{
	const struct result_stream *st = x->nstreams ? &x->streams[0] : NULL;

	if (x->mode == RESULT_SINK || x->mode == RESULT_FANIN) {
		judge_sink_streams(x, claims);
	} else if (x->mode == RESULT_BIDIR && x->nparts == 2 && x->parts[0].nstreams &&
		   x->parts[1].nstreams) {
		judge_bidir(x);
	} else if (x->mode == RESULT_SOURCE && st) {
		x->sum.rdma_bytes = st->bytes;
		x->sum.rdma_seconds = st->seconds;
		x->sum.rdma_bps = st->seconds > 0 ? st->bytes / st->seconds : 0;
		x->sum.total_bps = x->sum.rdma_bps;
	}
}

void streams_judge(struct result *x)
{
	streams_judge_claims(x, NULL);
}

double streams_rails_gbits(const struct result *x)
{
	double into[FAB_MAX_PORTS] = {0}, all = 0;
	int i, k;

	for (i = 0; i < x->nstreams; i++)
		for (k = 0; k < x->streams[i].nrails; k++) {
			const struct rail *r = &x->streams[i].rails[k];

			if (r->line_rate_gbits <= 0 || r->sink_index < 0 ||
			    r->sink_index >= FAB_MAX_PORTS)
				return 0;
			into[r->sink_index] += r->line_rate_gbits;
		}
	for (k = 0; k < FAB_MAX_PORTS; k++)
		all += x->port_gbits[k] > 0 ? fmin(into[k], x->port_gbits[k]) : into[k];
	return all;
}

void streams_curve(struct result_curve *c)
{
	const char *labels[RESULT_MAX_POINTS];
	double ceiling = c->line_gbits > 0 ? c->line_gbits / 8 : NAN;
	int i;

	for (i = 0; i < c->n; i++)
		labels[i] = c->names[i];
	/* The line rate is exact, not an estimate: anything above 100% of it is above it. */
	c->judged = c->n && !sweep_judge_at(c->gb_per_s, labels, c->n, ceiling, "rails' line rate",
					    "message-size", 100.0, &c->verdict);
}
