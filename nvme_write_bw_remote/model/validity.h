/* SPDX-License-Identifier: MIT */
/*
 * validity.h: whether a set of streams adds up, one rule for every mode. A
 * stream's overlap is the share of its own window (the RDMA source's, in
 * this process's clock) during which the reference window was open too:
 * the sink's window on the sink (one source or --sources N), the sending
 * direction's window with --bidir. The sum rule: every stream complete and
 * verified, every overlap >= --min-overlap, every variation <= --max-cv,
 * the sources together within the sink's ports (the sink's judge says
 * whether they are). Ideal: every drive, here and on each source, at the
 * mean local per-drive rate of the window, only when every source's drives
 * are known, none sends from memory and each is of a model the sink's own
 * drives are (another model's rate is not the sink's to assume); otherwise
 * the reason instead (x->sum.ideal_why).
 */
#ifndef NBW_STREAMS_H
#define NBW_STREAMS_H

#include "result.h"

/* A stream's rate in bytes/s; NAN when it has no figure. */
double streams_bps(const struct result_stream *st);

/*
 * Judge x, any mode: each stream's overlap with its reference window and its
 * start offset, the sums and ideal, and whether the total may be read as a
 * sum (x->sum; --bidir: x->sum.overlap_pct too), every stream that breaks
 * the rule named. A source's result only gets its sums.
 */
void streams_judge(struct result *x);
/*
 * streams_judge() with the sink's word on its sources' figures together
 * (claims: why they are more than its ports carry, sink/judge.c's
 * judge_sum_refused(); NULL: nothing), the last of the reasons.
 */
void streams_judge_claims(struct result *x, const char *claims);

/*
 * The line rate (Gb/s) every source's rails into this sink can carry: per
 * sink port, its rails' rates added, at most the port's own; 0 when one is
 * unknown.
 */
double streams_rails_gbits(const struct result *x);

/* -a's curve: its verdict (common/base/sweep.h) against the rails' line rate, into c. */
void streams_curve(struct result_curve *c);

#endif
