/* SPDX-License-Identifier: MIT */
/*
 * sink.h: what the sink's hall (hall.c) and its sessions (session.c) saw,
 * into the result (result.h), for run_sink (one source, sink.c) and
 * --sources N (fanin.c).
 */
#ifndef NBW_SINK_H
#define NBW_SINK_H

#include "options.h"
#include "result.h"

struct hall;
struct session;

/*
 * What the run saw, into the result: with x, the sink's own (its drives,
 * window, DRAM, ports, verdict; the window of k if k carried the hall's
 * drives, else the hall's own); with st, session k's RDMA stream (k NULL:
 * none came, the hall's failure). 0 or -ENOMEM.
 */
int sink_result(const struct hall *h, const struct session *k, struct result *x,
		struct result_stream *st);

/*
 * The sink's entry points: each fills the result x (result.h; initialised by
 * the caller for its mode, its hook told when the header may go out),
 * prints nothing and returns the exit status. One source (sink.c):
 */
int run_sink(const struct options *o, const struct run_state *run, struct result *x);

/* --sources N (N > 1): N sources into one sink, one window (fanin.c). */
int run_fanin(const struct options *o, struct result *x);

#endif
