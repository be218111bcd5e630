/* SPDX-License-Identifier: MIT */
/*
 * sink.h: the sink's sessions, for run_sink (one source, sink.c) and for
 * --sources N (fanin.c). One sink, the hall, owns the door, the DRAM and the
 * local drives; it admits the sources, each into a session of its own (the
 * first into the hall itself) with its own slices, keys and verification.
 */
#ifndef NBW_SINK_H
#define NBW_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "remote.h"
#include "result.h"
#include "target.h"

struct sink;

/* A sink with nothing set up yet; NULL after the error line. */
struct sink *sink_create(const struct options *o);
/* Its ports, local drives, locked DRAM and door. 0 or an exit status. */
int sink_open(struct sink *k);
/* "waiting for the sources on ..." on stderr (n: how many). */
void sink_waiting(const struct sink *k, int n);
/*
 * Admit up to n sources through the hall's door into s[] (into_hall: the
 * first into the hall itself, else each into a session of its own), each the
 * DRAM share its workers ask for. 0 with *got admitted (fewer than n
 * when --wait ran out), or an exit status after the message.
 */
int sink_admit(struct sink *hall, bool into_hall, struct sink **s, int n, int *got);
/*
 * One session after its admission: the handshake, then (with fan, once every
 * session arrived there) START, the window, the verdict and DONE. The hall
 * without a source of its own runs the sink's window over its drives only.
 * Prints nothing but errors. 0 or an exit status.
 */
int sink_session(struct sink *k, struct meeting *fan);
/* Close what the session holds (a follower leaves the hall's DRAM alone) and free it. */
void sink_destroy(struct sink *k);

/*
 * What the run saw, into the result (result.h): with x, the sink's own (its
 * drives, window, DRAM, ports, verdict and sum rule); with st, the session's
 * RDMA stream. 0 or -ENOMEM.
 */
int sink_result(const struct sink *k, struct result *x, struct result_stream *st);

#endif
