/* SPDX-License-Identifier: MIT */
/*
 * validity.h: the judge of a set of streams, the same in every mode. A
 * stream's overlap is the share of its own window (the RDMA source's, in
 * this process's clock) during which the reference window was open too:
 * the sink's window on the sink (one source or --sources N), the sending
 * direction's window with --bidir. The sum rule: every stream complete and
 * verified, every overlap >= --min-overlap, every variation <= --max-cv,
 * the sources together within the sink's ports. Ideal: every drive, here
 * and on each source, at the mean local per-drive rate of the window, only
 * when every source's drives are known and none sends from memory.
 */
#ifndef NBW_STREAMS_H
#define NBW_STREAMS_H

#include "result.h"

/* How long two windows (open, close; any one clock, ns) ran at the same time; >= 0. */
double window_common_ns(double a_open, double a_close, double b_open, double b_close);

/*
 * The share (%) of the window [open, close) inside [ref_open, ref_close);
 * NAN when either window is not known (not longer than 0).
 */
double streams_overlap_pct(double open, double close, double ref_open, double ref_close);

/* A stream's rate in bytes/s; NAN when it has no figure. */
double streams_bps(const struct result_stream *st);

/*
 * Judge x (--bidir; a source's only gets its sums): each stream's overlap
 * and start offset, the sums, and whether the total may be read as a sum
 * (x->sum; --bidir: x->sum.overlap_pct too). The sink's results (one source,
 * --sources N) are the sink's to judge (sink/judge.c: judge_sink) by the
 * same rule, streams_fault().
 */
void streams_judge(struct result *x);

/*
 * What keeps stream st (label: "RDMA from HOST", "receive") out of the sum,
 * into why ("" if nothing): a failed verification, no window, an overlap
 * with ref ("the sink's"; NULL: st is the reference) under --min-overlap, a
 * variation over --max-cv.
 */
void streams_fault(const struct options *o, const char *label, const char *ref,
		   const struct result_stream *st, char *why, size_t len);

/* Append part to the sum's reason ("; " between parts). */
void streams_add_why(struct result_sum *s, const char *part);

/*
 * The line rate (Gb/s) every source's rails into this sink can carry: per
 * sink port, its rails' rates added, at most the port's own; 0 when one is
 * unknown.
 */
double streams_rails_gbits(const struct result *x);

/* -a's curve: its verdict (common/base/sweep.h) against the rails' line rate, into c. */
void streams_curve(struct result_curve *c);

#endif
