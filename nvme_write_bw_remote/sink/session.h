/* SPDX-License-Identifier: MIT */
/*
 * session.h: one source's conversation with the sink, after the hall
 * admitted it (hall.c): ACCEPT, its QPs (verbs) or its RDMA connections
 * (-R), the slices, its canary, START, the window with its heartbeats, its
 * RESULT, --verify full and DONE. The session borrows what the hall owns
 * (the DRAM, its layout, the ports, the rdma_cm listener) through a
 * struct session_env and never calls the hall back.
 *
 * Its state (session_state.h) says which messages the source may send
 * (ctrl_step_allows() of its step, proto/steps.h); anything else
 * ends the session.
 */
#ifndef NBW_SESSION_H
#define NBW_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "session_state.h"

/*
 * A session for the source behind fd (its HELLO taken by the door, the
 * channel's MACs in mac, off without a key), with its own number; loc: the local stream its window
 * carries (NULL: none). NULL when out of memory.
 */
struct session *session_create(const struct session_env *env, int fd, const char *peer,
			       bool trusted, const struct ctrl_mac *mac,
			       const struct ctrl_hello *hello, struct local *loc);
/* ACCEPT, the QPs or RDMA connections, the slices and the canary's verdict. 0 or an exit status. */
int session_handshake(struct session *s);
/* START (with fan: once every session is ready), the window, the verdict and DONE. */
int session_conclude(struct session *s, struct meeting *fan);
/* The handshake, then (ready or failed) arrive at fan, then the rest. 0 or an exit status. */
int session_run(struct session *s, struct meeting *fan);
/* Each port's line rate as the sink knows it (0: unknown or software), into gbits[]. */
void session_port_rates(const struct session_env *env, double *gbits);
/* All ports' line rate together; 0 when one of them has none known. */
double session_ports_rate(const struct session_env *env);
/*
 * The source's latest heartbeat (PROGRESS) into beat, from any thread:
 * false (beat zeroed) before the first.
 */
bool session_beat(struct session *s, struct ctrl_progress *beat);
/* Close what it holds (the DRAM is the hall's) and free it. */
void session_destroy(struct session *s);

#endif
