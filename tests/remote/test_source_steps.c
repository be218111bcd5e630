// SPDX-License-Identifier: MIT
/*
 * test_source_steps: the source's steps (nvme_write_bw_remote/
 * source_steps.c): what each step takes from the sink and sends, a whole
 * conversation in verbs mode and with -R, with and without --verify full,
 * each message of it one the sink's session state (session_state.c) takes
 * when the source sends it; and every message out of turn ends it.
 */
#include <stdio.h>

#include "check.h"
#include "session_state.h"
#include "steps.h"

#define B(t) (1u << (t))

/* The sink's (takes) and the source's (sends) messages of each step, ERROR aside. */
static const struct {
	enum source_step st;
	uint32_t takes, sends;
} want[] = {
	{SOURCE_HELLO, 0, B(CTRL_HELLO)},
	{SOURCE_ACCEPT, B(CTRL_ACCEPT), 0},
	{SOURCE_QPS, 0, B(CTRL_QPS)},
	{SOURCE_SLICES, B(CTRL_SLICES), 0},
	{SOURCE_CANARY, 0, B(CTRL_CANARY)},
	{SOURCE_START, B(CTRL_START), 0},
	{SOURCE_WINDOW, B(CTRL_DONE), B(CTRL_PROGRESS) | B(CTRL_RESULT)},
	{SOURCE_TABLE, 0, B(CTRL_VERIFY)},
	{SOURCE_VERDICT, B(CTRL_DONE), 0},
	{SOURCE_END, 0, 0},
};

/* Each step's sets, type by type; the sink's messages are taken, the source's sent. */
static void table(void)
{
	unsigned i, t;

	printf("what each step takes and sends\n");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t takes = 0, sends = 0;

		for (t = 1; t <= CTRL_TYPE_MAX; t++) {
			if (t != CTRL_ERROR && source_takes(want[i].st, t))
				takes |= B(t);
			if (t != CTRL_ERROR && source_sends(want[i].st, t))
				sends |= B(t);
			if (t != CTRL_ERROR && source_takes(want[i].st, t))
				CHECK(ctrl_sender(t) == CTRL_BY_SINK);
			if (t != CTRL_ERROR && source_sends(want[i].st, t))
				CHECK(ctrl_sender(t) == CTRL_BY_SOURCE);
		}
		CHECK_U64(takes, want[i].takes);
		CHECK_U64(sends, want[i].sends);
		CHECK(source_takes(want[i].st, CTRL_ERROR));
		CHECK(source_sends(want[i].st, CTRL_ERROR));
		CHECK_U64(source_next(want[i].st, CTRL_ERROR, true, false), SOURCE_END);
	}
	CHECK(!source_takes((enum source_step)99, CTRL_ERROR));
	CHECK(!source_sends(SOURCE_WINDOW, 40)); /* no such type */
	CHECK_STR(source_step_name(SOURCE_WINDOW), "window");
	CHECK_STR(source_step_name((enum source_step)99), "unknown");
}

/*
 * One conversation, message by message: each is taken or sent in the step
 * before it, leads to the step after it, and the sink's session (its state
 * set here on its own messages, as session.c does) takes each source message.
 */
static void walk(bool verbs, bool full)
{
	struct {
		unsigned type;
		enum session_state sink; /* the sink's state when it comes (source messages) */
	} conv[16];
	enum source_step st = SOURCE_HELLO;
	int n = 0, i;

	printf("a conversation: %s, --verify %s\n", verbs ? "verbs" : "-R",
	       full ? "full" : "canary");
	conv[n++].type = CTRL_HELLO;
	conv[n++].type = CTRL_ACCEPT;
	if (verbs)
		conv[n++] = (typeof(conv[0])){CTRL_QPS, SESSION_QPS};
	conv[n++].type = CTRL_SLICES;
	conv[n++] = (typeof(conv[0])){CTRL_CANARY, SESSION_CANARY};
	conv[n++].type = CTRL_START;
	conv[n++] = (typeof(conv[0])){CTRL_PROGRESS, SESSION_WINDOW};
	conv[n++] = (typeof(conv[0])){CTRL_PROGRESS, SESSION_WINDOW};
	conv[n++] = (typeof(conv[0])){CTRL_RESULT, SESSION_WINDOW};
	if (full)
		conv[n++] = (typeof(conv[0])){CTRL_VERIFY, SESSION_VERIFY};
	conv[n++].type = CTRL_DONE;
	for (i = 0; i < n; i++) {
		unsigned t = conv[i].type;
		bool by_sink = ctrl_sender(t) == CTRL_BY_SINK;

		CHECK(by_sink ? source_takes(st, t) : source_sends(st, t));
		CHECK(by_sink ? !source_sends(st, t) : !source_takes(st, t));
		if (!by_sink && t != CTRL_HELLO) /* HELLO is the door's */
			CHECK(session_takes(conv[i].sink, t));
		st = source_next(st, t, verbs, full);
		CHECK(i == n - 1 ? st == SOURCE_END : st != SOURCE_END);
	}
}

/* Messages out of turn: each ends the conversation. */
static void out_of_turn(void)
{
	printf("a message out of turn ends it\n");
	CHECK_U64(source_next(SOURCE_ACCEPT, CTRL_START, true, false), SOURCE_END);
	CHECK_U64(source_next(SOURCE_ACCEPT, CTRL_SLICES, false, false), SOURCE_END);
	CHECK_U64(source_next(SOURCE_SLICES, CTRL_QPS, true, false), SOURCE_END);
	CHECK_U64(source_next(SOURCE_CANARY, CTRL_RESULT, true, false), SOURCE_END);
	CHECK_U64(source_next(SOURCE_START, CTRL_PROGRESS, true, false), SOURCE_END);
	CHECK_U64(source_next(SOURCE_WINDOW, CTRL_VERIFY, true, true), SOURCE_END);
	CHECK_U64(source_next(SOURCE_WINDOW, CTRL_START, true, true), SOURCE_END);
	CHECK_U64(source_next(SOURCE_TABLE, CTRL_DONE, true, true), SOURCE_END);
	CHECK_U64(source_next(SOURCE_VERDICT, CTRL_PROGRESS, true, false), SOURCE_END);
	CHECK_U64(source_next(SOURCE_END, CTRL_DONE, true, false), SOURCE_END);
	/* where the modes part: QPS only in verbs mode, the table only with --verify full */
	CHECK_U64(source_next(SOURCE_ACCEPT, CTRL_ACCEPT, true, false), SOURCE_QPS);
	CHECK_U64(source_next(SOURCE_ACCEPT, CTRL_ACCEPT, false, false), SOURCE_SLICES);
	CHECK_U64(source_next(SOURCE_WINDOW, CTRL_RESULT, true, true), SOURCE_TABLE);
	CHECK_U64(source_next(SOURCE_WINDOW, CTRL_RESULT, true, false), SOURCE_VERDICT);
	/* the sink's DONE in the window: it ended the session early */
	CHECK_U64(source_next(SOURCE_WINDOW, CTRL_DONE, true, false), SOURCE_END);
}

int main(void)
{
	table();
	walk(true, false);
	walk(true, true);
	walk(false, false);
	walk(false, true);
	out_of_turn();
	return check_done("test_source_steps");
}
