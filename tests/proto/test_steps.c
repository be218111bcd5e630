// SPDX-License-Identifier: MIT
/*
 * test_steps: the conversation's one table (nvme_write_bw_remote/proto/
 * steps.c), walked step by step: who sends which message in each step and
 * where each leads, the sink's view (the messages it takes from a source,
 * its inbox's mask) and the source's (what it takes and sends), whole
 * conversations with and without a key, in verbs mode and with -R, with
 * and without --verify full; every message out of turn ends it.
 */
#include <stdio.h>

#include "check.h"
#include "steps.h"

#define B(t) (1u << (t))

/* Each step: the source's messages, the sink's, ERROR aside. */
static const struct {
	enum ctrl_step st;
	const char *name;
	uint32_t by_source, by_sink;
} want[] = {
	{CTRL_STEP_AUTH, "auth", B(CTRL_AUTH), B(CTRL_AUTH)},
	{CTRL_STEP_PROOF, "proof", B(CTRL_AUTH), B(CTRL_AUTH)},
	{CTRL_STEP_HELLO, "hello", B(CTRL_HELLO), 0},
	{CTRL_STEP_ACCEPT, "accept", 0, B(CTRL_ACCEPT)},
	{CTRL_STEP_QPS, "qps", B(CTRL_QPS), 0},
	{CTRL_STEP_SLICES, "slices", 0, B(CTRL_SLICES)},
	{CTRL_STEP_CANARY, "canary", B(CTRL_CANARY), 0},
	{CTRL_STEP_START, "start", 0, B(CTRL_START)},
	{CTRL_STEP_WINDOW, "window", B(CTRL_PROGRESS) | B(CTRL_RESULT), B(CTRL_DONE)},
	{CTRL_STEP_TABLE, "table", B(CTRL_VERIFY), 0},
	{CTRL_STEP_VERDICT, "verdict", 0, B(CTRL_DONE)},
	{CTRL_STEP_END, "end", 0, 0},
};

/* Every step of the table: its messages by sender, both sides' views of it. */
static void table(void)
{
	unsigned i, t;

	printf("each step: who sends what, what each side takes\n");
	CHECK_U64(sizeof(want) / sizeof(want[0]), CTRL_STEP_MAX + 1);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		enum ctrl_step st = want[i].st;
		uint32_t sink_takes = 0, src_takes = 0, src_sends = 0;

		CHECK_STR(ctrl_step_name(st), want[i].name);
		CHECK_U64(ctrl_step_sends(st, CTRL_BY_SOURCE), want[i].by_source);
		CHECK_U64(ctrl_step_sends(st, CTRL_BY_SINK), want[i].by_sink);
		for (t = 1; t <= CTRL_TYPE_MAX; t++) {
			if (t == CTRL_ERROR)
				continue;
			sink_takes |= ctrl_step_takes(st, CTRL_BY_SINK, t) ? B(t) : 0;
			src_takes |= ctrl_step_takes(st, CTRL_BY_SOURCE, t) ? B(t) : 0;
			src_sends |= ctrl_step_may_send(st, CTRL_BY_SOURCE, t) ? B(t) : 0;
		}
		CHECK_U64(sink_takes, want[i].by_source);
		CHECK_U64(src_takes, want[i].by_sink);
		CHECK_U64(src_sends, want[i].by_source);
		/* A source's ERROR is read once it is admitted; the sink's always. */
		CHECK(ctrl_step_takes(st, CTRL_BY_SINK, CTRL_ERROR) == (st >= CTRL_STEP_ACCEPT));
		CHECK_U64(ctrl_step_allows(st),
			  want[i].by_source | (st >= CTRL_STEP_ACCEPT ? B(CTRL_ERROR) : 0));
		CHECK(ctrl_step_takes(st, CTRL_BY_SOURCE, CTRL_ERROR));
		CHECK(ctrl_step_may_send(st, CTRL_BY_SOURCE, CTRL_ERROR));
		CHECK_U64(ctrl_step_next(st, CTRL_ERROR, true, true, true), CTRL_STEP_END);
	}
	CHECK_STR(ctrl_step_name(99), "unknown");
	CHECK_U64(ctrl_step_allows(CTRL_STEP_MAX + 1), 0);
	CHECK(!ctrl_step_takes(99, CTRL_BY_SOURCE, CTRL_ERROR));
	CHECK(!ctrl_step_may_send(CTRL_STEP_WINDOW, CTRL_BY_SOURCE, 40)); /* no such type */
	CHECK(!ctrl_step_takes(CTRL_STEP_WINDOW, CTRL_BY_SINK, 40));
}

/*
 * One conversation, message by message: each is sent by the side the
 * table names in the step before it, taken there by the other side, and
 * leads to the step after it; the sink's view skips its own answers.
 */
static void walk(bool key, bool verbs, bool full)
{
	unsigned conv[20];
	enum ctrl_step st = CTRL_STEP_AUTH, sink = CTRL_STEP_AUTH;
	int n = 0, i;

	printf("a conversation: %s, %s, --verify %s\n", key ? "key" : "open",
	       verbs ? "verbs" : "-R", full ? "full" : "canary");
	conv[n++] = CTRL_AUTH;
	if (key)
		conv[n++] = CTRL_AUTH;
	conv[n++] = CTRL_HELLO;
	conv[n++] = CTRL_ACCEPT;
	if (verbs)
		conv[n++] = CTRL_QPS;
	conv[n++] = CTRL_SLICES;
	conv[n++] = CTRL_CANARY;
	conv[n++] = CTRL_START;
	conv[n++] = CTRL_PROGRESS;
	conv[n++] = CTRL_PROGRESS;
	conv[n++] = CTRL_RESULT;
	if (full)
		conv[n++] = CTRL_VERIFY;
	conv[n++] = CTRL_DONE;
	for (i = 0; i < n; i++) {
		unsigned t = conv[i];
		bool by_sink = ctrl_sender(t) == CTRL_BY_SINK;

		if (t == CTRL_AUTH) {
			CHECK(ctrl_step_takes(st, CTRL_BY_SINK, t));
			CHECK(ctrl_step_takes(st, CTRL_BY_SOURCE, t));
			CHECK_U64(sink, st);
			sink = ctrl_step_sink_next(sink, t, key, verbs, full);
		} else if (by_sink) {
			CHECK(ctrl_step_takes(st, CTRL_BY_SOURCE, t));
			CHECK(!ctrl_step_may_send(st, CTRL_BY_SOURCE, t));
			CHECK(!ctrl_step_takes(st, CTRL_BY_SINK, t));
		} else {
			CHECK(ctrl_step_may_send(st, CTRL_BY_SOURCE, t));
			CHECK(!ctrl_step_takes(st, CTRL_BY_SOURCE, t));
			CHECK(ctrl_step_takes(st, CTRL_BY_SINK, t));
			/* The sink waits in this very step for it. */
			CHECK_U64(sink, st);
			sink = ctrl_step_sink_next(sink, t, key, verbs, full);
		}
		st = ctrl_step_next(st, t, key, verbs, full);
		CHECK(i == n - 1 ? st == CTRL_STEP_END : st != CTRL_STEP_END);
	}
	CHECK_U64(sink, CTRL_STEP_END);
}

/* Where the modes part, and messages out of turn: each of those ends it. */
static void turns(void)
{
	printf("where the modes part; a message out of turn ends it\n");
	CHECK_U64(ctrl_step_next(CTRL_STEP_AUTH, CTRL_AUTH, true, true, false), CTRL_STEP_PROOF);
	CHECK_U64(ctrl_step_next(CTRL_STEP_AUTH, CTRL_AUTH, false, true, false), CTRL_STEP_HELLO);
	CHECK_U64(ctrl_step_next(CTRL_STEP_ACCEPT, CTRL_ACCEPT, false, true, false), CTRL_STEP_QPS);
	CHECK_U64(ctrl_step_next(CTRL_STEP_ACCEPT, CTRL_ACCEPT, false, false, false),
		  CTRL_STEP_SLICES);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_RESULT, false, true, true),
		  CTRL_STEP_TABLE);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_RESULT, false, true, false),
		  CTRL_STEP_VERDICT);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_PROGRESS, false, true, false),
		  CTRL_STEP_WINDOW);
	/* the sink's DONE in the window: it ended the session early */
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_DONE, false, true, false), CTRL_STEP_END);
	/* the sink's view: its own answers taken as sent */
	CHECK_U64(ctrl_step_sink_next(CTRL_STEP_HELLO, CTRL_HELLO, false, true, false),
		  CTRL_STEP_QPS);
	CHECK_U64(ctrl_step_sink_next(CTRL_STEP_HELLO, CTRL_HELLO, false, false, false),
		  CTRL_STEP_CANARY);
	CHECK_U64(ctrl_step_sink_next(CTRL_STEP_CANARY, CTRL_CANARY, false, true, false),
		  CTRL_STEP_WINDOW);
	CHECK_U64(ctrl_step_sink_next(CTRL_STEP_WINDOW, CTRL_RESULT, false, true, false),
		  CTRL_STEP_END);
	/* out of turn */
	CHECK_U64(ctrl_step_next(CTRL_STEP_ACCEPT, CTRL_START, true, false, false), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_ACCEPT, CTRL_SLICES, false, false, false),
		  CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_SLICES, CTRL_QPS, false, true, false), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_CANARY, CTRL_RESULT, false, true, false), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_START, CTRL_PROGRESS, false, true, false),
		  CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_VERIFY, false, true, true), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_CANARY, false, true, false), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_WINDOW, CTRL_START, false, true, true), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_TABLE, CTRL_DONE, false, true, true), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_VERDICT, CTRL_PROGRESS, false, true, false),
		  CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_END, CTRL_DONE, false, true, false), CTRL_STEP_END);
	CHECK_U64(ctrl_step_next(CTRL_STEP_HELLO, CTRL_QPS, false, true, false), CTRL_STEP_END);
}

int main(void)
{
	int m;

	table();
	for (m = 0; m < 8; m++)
		walk(m & 1, m & 2, m & 4);
	turns();
	return check_done("test_steps");
}
