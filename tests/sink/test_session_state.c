// SPDX-License-Identifier: MIT
/*
 * test_session_state: a sink session's states, the sink's view of the
 * conversation's table (nvme_write_bw_remote/proto/steps.c, walked whole by
 * tests/proto/test_steps): which messages a source may send in each step
 * of a session, and where each message leads, in verbs mode and with -R,
 * with and without --verify full; and the live rate between heartbeats
 * (sink/session_state.c).
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "session_state.h"

/* May a source send type in step st: the sink's view. */
static bool takes(enum ctrl_step st, unsigned type)
{
	return ctrl_step_takes(st, CTRL_BY_SINK, type);
}

/* What each state takes, as a set of message types. */
static void states(void)
{
	printf("the messages each state takes\n");
	CHECK(takes(CTRL_STEP_QPS, CTRL_QPS));
	CHECK(takes(CTRL_STEP_QPS, CTRL_ERROR));
	CHECK(!takes(CTRL_STEP_QPS, CTRL_CANARY));
	CHECK(!takes(CTRL_STEP_QPS, CTRL_HELLO));
	CHECK(takes(CTRL_STEP_CANARY, CTRL_CANARY));
	CHECK(!takes(CTRL_STEP_CANARY, CTRL_QPS));
	CHECK(!takes(CTRL_STEP_CANARY, CTRL_PROGRESS));
	/* Before START and while the connections come: nothing but an ERROR. */
	CHECK(takes(CTRL_STEP_START, CTRL_ERROR));
	CHECK(!takes(CTRL_STEP_START, CTRL_PROGRESS));
	CHECK(!takes(CTRL_STEP_START, CTRL_RESULT));
	CHECK(!takes(CTRL_STEP_SLICES, CTRL_QPS));
	CHECK(!takes(CTRL_STEP_ACCEPT, CTRL_QPS));
	CHECK(takes(CTRL_STEP_WINDOW, CTRL_PROGRESS));
	CHECK(takes(CTRL_STEP_WINDOW, CTRL_RESULT));
	CHECK(!takes(CTRL_STEP_WINDOW, CTRL_VERIFY));
	CHECK(!takes(CTRL_STEP_WINDOW, CTRL_CANARY));
	CHECK(takes(CTRL_STEP_TABLE, CTRL_VERIFY));
	CHECK(!takes(CTRL_STEP_TABLE, CTRL_RESULT));
	CHECK(takes(CTRL_STEP_END, CTRL_ERROR));
	CHECK(!takes(CTRL_STEP_END, CTRL_DONE)); /* DONE is the sink's word */
	CHECK(!takes(CTRL_STEP_END, CTRL_PROGRESS));
	CHECK(!takes(CTRL_STEP_END, CTRL_RESULT));
	CHECK(!takes(CTRL_STEP_WINDOW, 40)); /* no such type */
}

/*
 * A whole conversation, step by step. The sink's own messages are steps of
 * the table too: after the source's QPS comes the sink's SLICES (the
 * session then waits for the canary), after RESULT (or the slot table) the
 * sink's verdict, DONE, in which a source may send nothing but its ERROR.
 */
static void steps(void)
{
	printf("where each message leads\n");
	/* verbs: QPS, then the sink's slices; the canary taken, START (the sink's). */
	CHECK_U64(ctrl_step_next(CTRL_STEP_QPS, CTRL_QPS, false, true, false), CTRL_STEP_SLICES);
	CHECK_U64(ctrl_step_next(CTRL_STEP_CANARY, CTRL_CANARY, false, true, false),
		  CTRL_STEP_START);
	CHECK_U64(ctrl_step_next(CTRL_STEP_CANARY, CTRL_CANARY, true, false, true),
		  CTRL_STEP_START);
	/* heartbeats keep the window; RESULT ends it, into the table with --verify full. */
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_PROGRESS, false, true, false),
		  CTRL_STEP_WINDOW);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_RESULT, false, true, false),
		  CTRL_STEP_VERDICT);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_RESULT, false, false, true),
		  CTRL_STEP_TABLE);
	CHECK_U64(ctrl_step_next(CTRL_STEP_TABLE, CTRL_VERIFY, false, true, true),
		  CTRL_STEP_VERDICT);
	CHECK_U64(ctrl_step_allows(CTRL_STEP_VERDICT), ctrl_step_allows(CTRL_STEP_END));
	/* an ERROR, or a message out of turn, ends the conversation. */
	CHECK_U64(ctrl_step_next(CTRL_STEP_QPS, CTRL_ERROR, false, true, false), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_ERROR, false, true, true), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_CANARY, false, true, false), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_CANARY, CTRL_RESULT, false, true, false), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_START, CTRL_PROGRESS, false, true, false),
		  CTRL_STEP_END);
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
	states();
	steps();
	beat_rate();
	return check_done("test_session_state");
}
