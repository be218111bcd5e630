// SPDX-License-Identifier: MIT
/*
 * test_session_state: a sink session's states (nvme_write_bw_remote/
 * session_state.c) against the protocol's phases: which messages a source
 * may send in each state, and where each message leads, in verbs mode and
 * with -R, with and without --verify full.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "session_state.h"

/* What each state takes, as a set of message types. */
static void takes(void)
{
	printf("the messages each state takes\n");
	CHECK(session_takes(SESSION_QPS, CTRL_QPS));
	CHECK(session_takes(SESSION_QPS, CTRL_ERROR));
	CHECK(!session_takes(SESSION_QPS, CTRL_CANARY));
	CHECK(!session_takes(SESSION_QPS, CTRL_HELLO));
	CHECK(session_takes(SESSION_CANARY, CTRL_CANARY));
	CHECK(!session_takes(SESSION_CANARY, CTRL_QPS));
	CHECK(!session_takes(SESSION_CANARY, CTRL_PROGRESS));
	/* Before START and while the connections come: nothing but an ERROR. */
	CHECK(session_takes(SESSION_READY, CTRL_ERROR));
	CHECK(!session_takes(SESSION_READY, CTRL_PROGRESS));
	CHECK(!session_takes(SESSION_READY, CTRL_RESULT));
	CHECK(!session_takes(SESSION_CONNECTING, CTRL_QPS));
	CHECK(!session_takes(SESSION_ADMITTED, CTRL_QPS));
	CHECK(session_takes(SESSION_WINDOW, CTRL_PROGRESS));
	CHECK(session_takes(SESSION_WINDOW, CTRL_RESULT));
	CHECK(!session_takes(SESSION_WINDOW, CTRL_VERIFY));
	CHECK(!session_takes(SESSION_WINDOW, CTRL_CANARY));
	CHECK(session_takes(SESSION_VERIFY, CTRL_VERIFY));
	CHECK(!session_takes(SESSION_VERIFY, CTRL_RESULT));
	CHECK(session_takes(SESSION_END, CTRL_ERROR));
	CHECK(!session_takes(SESSION_END, CTRL_DONE)); /* DONE is the sink's word */
	CHECK(!session_takes(SESSION_END, CTRL_PROGRESS));
	CHECK(!session_takes(SESSION_FAILED, CTRL_RESULT));
	CHECK(!session_takes(SESSION_WINDOW, 40)); /* no such type */
}

/* A whole conversation, step by step. */
static void steps(void)
{
	printf("where each message leads\n");
	/* verbs: QPS, then the canary; the canary taken, READY (START is the sink's). */
	CHECK_U64(session_next(SESSION_QPS, CTRL_QPS, false, true, false), SESSION_CANARY);
	CHECK_U64(session_next(SESSION_CANARY, CTRL_CANARY, false, true, false), SESSION_READY);
	CHECK_U64(session_next(SESSION_CANARY, CTRL_CANARY, true, false, true), SESSION_READY);
	/* heartbeats keep the window; RESULT ends it, into VERIFY with --verify full. */
	CHECK_U64(session_next(SESSION_WINDOW, CTRL_PROGRESS, false, true, false), SESSION_WINDOW);
	CHECK_U64(session_next(SESSION_WINDOW, CTRL_RESULT, false, true, false), SESSION_END);
	CHECK_U64(session_next(SESSION_WINDOW, CTRL_RESULT, false, false, true), SESSION_VERIFY);
	CHECK_U64(session_next(SESSION_VERIFY, CTRL_VERIFY, false, true, true), SESSION_END);
	/* an ERROR, or a message out of turn, ends the conversation. */
	CHECK_U64(session_next(SESSION_QPS, CTRL_ERROR, false, true, false), SESSION_END);
	CHECK_U64(session_next(SESSION_WINDOW, CTRL_ERROR, false, true, true), SESSION_END);
	CHECK_U64(session_next(SESSION_WINDOW, CTRL_CANARY, false, true, false), SESSION_END);
	CHECK_U64(session_next(SESSION_CANARY, CTRL_RESULT, false, true, false), SESSION_END);
	CHECK_U64(session_next(SESSION_READY, CTRL_PROGRESS, false, true, false), SESSION_END);
}

/* Each state names its phase; a state out of range takes nothing but an ERROR. */
static void phases(void)
{
	printf("the phase of each state\n");
	CHECK_U64(session_phase(SESSION_QPS), CTRL_PHASE_QPS);
	CHECK_U64(session_phase(SESSION_CANARY), CTRL_PHASE_CANARY);
	CHECK_U64(session_phase(SESSION_WINDOW), CTRL_PHASE_WINDOW);
	CHECK_U64(session_phase(SESSION_VERIFY), CTRL_PHASE_VERIFY);
	CHECK_U64(session_phase(SESSION_END), CTRL_PHASE_END);
	CHECK_U64(session_phase((enum session_state)99), CTRL_PHASE_END);
}

/* --interval: the rate between two heartbeats, and the line moved on (or kept). */
static void beat_rate(void)
{
	struct ctrl_progress line = {.bytes = 1000, .elapsed_ns = 500000000};
	struct ctrl_progress cur = {.bytes = 3001000, .elapsed_ns = 2000000000};
	double r;

	printf("the live rate between heartbeats\n");
	r = session_beat_rate(&cur, &line);
	CHECK(r > 1999999.99 && r < 2000000.01); /* 3 MB in 1.5 s */
	CHECK_U64(line.bytes, 3001000);
	CHECK_U64(line.elapsed_ns, 2000000000);
	/* no new heartbeat since: unknown, the line kept */
	CHECK(isnan(session_beat_rate(&cur, &line)));
	CHECK_U64(line.bytes, 3001000);
}

int main(void)
{
	takes();
	steps();
	phases();
	beat_rate();
	return check_done("test_session_state");
}
