/* SPDX-License-Identifier: MIT */
/*
 * steps.h: the conversation between a source and the sink (ctrl.h draws it)
 * as one table of steps (steps.c): in each step, who sends which message
 * and where each leads. The sink's session and door, and the source's talk,
 * keep to views of this one table:
 *  - the sink takes in a step the source's messages of it, and the source's
 *    ERROR once it is admitted (from ACCEPT on; a stranger's text is not
 *    read); ctrl_step_allows() gives them as the inbox's mask;
 *  - the source takes the sink's messages of the step and an ERROR in any
 *    step, and sends its own (and an ERROR) in any step.
 * An ERROR, or a message the step does not hold, ends the conversation.
 */
#ifndef NBW_STEPS_H
#define NBW_STEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "ctrl.h"

enum ctrl_step {
	CTRL_STEP_AUTH,	   /* the nonces (AUTH both ways) */
	CTRL_STEP_PROOF,   /* with a key: the proofs (AUTH both ways) */
	CTRL_STEP_HELLO,   /* the source's parameters (HELLO) */
	CTRL_STEP_ACCEPT,  /* the sink's ACCEPT (or its refusal, an ERROR) */
	CTRL_STEP_QPS,	   /* verbs mode: the source's QPs (QPS) */
	CTRL_STEP_SLICES,  /* the sink's SLICES (-R: once the source's connections came) */
	CTRL_STEP_CANARY,  /* the source's canary table (CANARY) */
	CTRL_STEP_START,   /* the sink's START, once every session is ready */
	CTRL_STEP_WINDOW,  /* heartbeats (PROGRESS), then RESULT; the sink's DONE stops it */
	CTRL_STEP_TABLE,   /* --verify full: the source's slot table (VERIFY) */
	CTRL_STEP_VERDICT, /* the sink's DONE */
	CTRL_STEP_END,	   /* nothing but an ERROR */
	CTRL_STEP_MAX = CTRL_STEP_END,
};

/* The step's name ("window"); "unknown" out of range. */
const char *ctrl_step_name(unsigned step);
/* The types by (CTRL_BY_SOURCE or CTRL_BY_SINK) sends in step, ERROR aside, as 1 << type. */
uint32_t ctrl_step_sends(unsigned step, unsigned by);
/*
 * The sink's inbox in step: the types a source may send, as a mask of
 * 1 << type (0 for a step out of range).
 */
uint32_t ctrl_step_allows(unsigned step);
/* May side (CTRL_BY_SINK or CTRL_BY_SOURCE) receive a message of type in step? */
bool ctrl_step_takes(unsigned step, unsigned side, unsigned type);
/* May side send a message of type in step? */
bool ctrl_step_may_send(unsigned step, unsigned side, unsigned type);
/*
 * The step after a message of type (either side's) in step, for a sink with
 * a key or not, in verbs mode or not (-R), with --verify full or not;
 * CTRL_STEP_END after an ERROR or a message the step does not hold.
 */
enum ctrl_step ctrl_step_next(unsigned step, unsigned type, bool key, bool verbs, bool full);
/*
 * As ctrl_step_next() for a source's message, then past the sink's own
 * answers (ACCEPT, SLICES, START, DONE) as if sent: the next step in which
 * the sink waits for the source.
 */
enum ctrl_step ctrl_step_sink_next(unsigned step, unsigned type, bool key, bool verbs, bool full);

#endif
