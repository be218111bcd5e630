/* SPDX-License-Identifier: MIT */
/*
 * source/steps.h: the source's side of the conversation as steps, as
 * session_state.h is the sink's: in each step, the sink's messages it may
 * receive and its own it may send, and where each leads (source_steps.c,
 * pure). source_talk.c awaits and sends through it; AUTH before HELLO is
 * ctrl_auth.h's.
 */
#ifndef NBW_SOURCE_STEPS_H
#define NBW_SOURCE_STEPS_H

#include <stdbool.h>

#include "ctrl.h"

/* Where the source is; an ERROR either way, or a message out of turn, ends it. */
enum source_step {
	SOURCE_HELLO,	/* connected, AUTH passed: its HELLO goes out */
	SOURCE_ACCEPT,	/* HELLO sent: the sink's ACCEPT (or its refusal, an ERROR) */
	SOURCE_QPS,	/* verbs mode, accepted: its QPS goes out */
	SOURCE_SLICES,	/* QPS sent (-R: accepted, connecting): the sink's SLICES */
	SOURCE_CANARY,	/* its canaries written: CANARY goes out */
	SOURCE_START,	/* CANARY sent: the sink's START */
	SOURCE_WINDOW,	/* heartbeats (PROGRESS), then RESULT; the sink speaks only to stop it */
	SOURCE_TABLE,	/* --verify full: RESULT sent, its slot table (VERIFY) goes out */
	SOURCE_VERDICT, /* all sent: the sink's DONE */
	SOURCE_END,	/* the verdict came, or the conversation ended: only an ERROR */
	SOURCE_STEP_MAX = SOURCE_END,
};

/* May the sink's message of type come in step st? */
bool source_takes(enum source_step st, unsigned type);
/* May the source send a message of type in step st? */
bool source_sends(enum source_step st, unsigned type);
/*
 * The step after a message of type (received or sent) in st, in verbs mode
 * or not (-R), with --verify full or not; SOURCE_END after an ERROR or a
 * message st neither takes nor sends.
 */
enum source_step source_next(enum source_step st, unsigned type, bool verbs, bool full);
/* The step's name ("window"), for messages and tests. */
const char *source_step_name(enum source_step st);

#endif
