/* SPDX-License-Identifier: MIT */
/*
 * gate.h: the sink's rdma_cm listener (-R), one for the hall, shared by its
 * sessions. Each connect request names its session in its private data; a
 * session takes the requests of its own session only, and a request of
 * another session the hall admitted is kept for that one (a session in its
 * own thread may be a moment behind). Requests of no admitted session,
 * from outside --allow or without our private data are rejected here.
 */
#ifndef NBW_GATE_H
#define NBW_GATE_H

#include <stdint.h>

#include "options.h"

#define GATE_MAX_SESSIONS MAX_SOURCES
#define GATE_MAX_KEPT 256 /* requests waiting for their session */

struct gate;

/* Listen with rdma_cm on addrs[n] (n = 0: every address) port. NULL and *err (-errno). */
struct gate *gate_open(const struct options *o, const char *const *addrs, int n, unsigned port,
		       int *err);
/* A session the hall admitted: its requests are kept for it. */
void gate_expect(struct gate *g, uint64_t session);
/*
 * The next connect request of session within deadline (monotonic ns):
 * 0 with *id and *h, -ETIMEDOUT or -EINTR. Its id is the caller's
 * (fab_conn_accept() or fab_listener_reject()).
 */
int gate_next(struct gate *g, uint64_t session, uint64_t deadline, struct rdma_cm_id **id,
	      struct fab_hello *h);
/* Reject what is still kept and stop listening. */
void gate_close(struct gate *g);

#endif
