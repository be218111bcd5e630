/* SPDX-License-Identifier: MIT */
/*
 * counters_rows.h: the rows of the RDMA ports' counters beside a report's
 * figures (counters_rows.c): each port's deltas (fabric/counters.h; in
 * text those that moved, every one with -W; in JSON every one, null where
 * the port keeps none) and the sink's check of a source's figure against
 * what its own ports received.
 */
#ifndef NBW_COUNTERS_ROWS_H
#define NBW_COUNTERS_ROWS_H

#include "report.h"
#include "result.h"

/*
 * "counters": x's ports' deltas, span saying over what they were read ("the
 * window"); nothing at all when no counter was read (x->nctr = 0).
 */
void print_counters(struct report *r, const struct result *x, const char *span);

/*
 * "attribution": st's rails below their peers and x's ports whose counters
 * fire a rule (attrib.h), a line each; nothing when none.
 */
void print_attribution(struct report *r, const struct result *x, const struct result_stream *st);

/*
 * Fan-in: "attribution" of one source (in its object): its rails below each
 * other (never against a line rate: the sink's ports are shared), and the
 * sink's ports it used whose counters fire a rule (their counters are the
 * whole window's, every source's traffic on them).
 */
void print_attribution_source(struct report *r, const struct result *x,
			      const struct result_stream *st);

/*
 * Fan-in: "attribution" of the total: every source's rails against all of
 * them when every source is fed from memory (a source's drives set its
 * rate), and every port of the sink whose counters fire a rule.
 */
void print_attribution_all(struct report *r, const struct result *x);

/*
 * "rdma_check", "rdma_unchecked_reason" and "rdma_received_bytes": the sink's
 * check of st's figure (nothing when it was not looked at: RDMA_CHECK_NONE):
 * "received" with the bytes its ports received, or "unchecked" and why.
 */
void print_rdma_check(struct report *r, const struct result_stream *st);

#endif
