// SPDX-License-Identifier: MIT
/*
 * validity.c: whether a set of streams adds up (see validity.h): the rule
 * every mode shares (what keeps a stream out of the sum), --bidir's two
 * directions and the source's sums; the sink's streams are judged by the
 * sink (sink/judge.c) with the same rule.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validity.h"

double window_common_ns(double a_open, double a_close, double b_open, double b_close)
{
	return fmax(0, fmin(a_close, b_close) - fmax(a_open, b_open));
}

double streams_overlap_pct(double open, double close, double ref_open, double ref_close)
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

void streams_add_why(struct result_sum *s, const char *part)
{
	size_t n = strlen(s->why);

	if (part[0] && n < sizeof(s->why) - 1)
		snprintf(s->why + n, sizeof(s->why) - n, "%s%s", n ? "; " : "", part);
}

void streams_fault(const struct options *o, const char *label, const char *ref,
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
	rin.overlap_pct = in->have_window && out->have_window
				  ? streams_overlap_pct(in->open_ns, in->close_ns, out->open_ns,
							out->close_ns)
				  : NAN;
	rin.start_offset_s = (in->open_ns - out->open_ns) / 1e9;
	x->sum.overlap_pct = rin.overlap_pct;
	x->sum.rdma_bps = streams_bps(out) + streams_bps(in);
	x->sum.total_bps = x->sum.rdma_bps;
	x->sum.why[0] = '\0';
	streams_fault(&x->o, "send", NULL, &rout, part, sizeof(part));
	streams_add_why(&x->sum, part);
	streams_fault(&x->o, "receive", "the sent one's", &rin, part, sizeof(part));
	streams_add_why(&x->sum, part);
	x->sum.valid = !x->sum.why[0];
	x->sum.judged = true;
}

void streams_judge(struct result *x)
{
	const struct result_stream *st = x->nstreams ? &x->streams[0] : NULL;

	if (x->mode == RESULT_BIDIR && x->nparts == 2 && x->parts[0].nstreams &&
	    x->parts[1].nstreams) {
		judge_bidir(x);
	} else if (x->mode == RESULT_SOURCE && st) {
		x->sum.rdma_bytes = st->bytes;
		x->sum.rdma_seconds = st->seconds;
		x->sum.rdma_bps = st->seconds > 0 ? st->bytes / st->seconds : 0;
		x->sum.total_bps = x->sum.rdma_bps;
	}
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
	c->judged = c->n && !sweep_judge(c->gb_per_s, labels, c->n, ceiling, "rails' line rate",
					 "message-size", &c->verdict);
}
