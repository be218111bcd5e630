// SPDX-License-Identifier: MIT
/*
 * source/steps.c: the source's steps (steps.h), one table: what each
 * step takes from the sink, what it sends, where that leads. An ERROR may
 * come or go in every step and ends the conversation.
 */
#include "steps.h"

#define BIT(t) (1u << (t))

static const struct {
	const char *name;
	uint32_t takes;	       /* the sink's messages (besides ERROR) */
	uint32_t sends;	       /* the source's (besides ERROR) */
	enum source_step next; /* where one of them leads */
} steps[SOURCE_STEP_MAX + 1] = {
	[SOURCE_HELLO] = {"hello", 0, BIT(CTRL_HELLO), SOURCE_ACCEPT},
	[SOURCE_ACCEPT] = {"accept", BIT(CTRL_ACCEPT), 0, SOURCE_SLICES}, /* verbs: QPS first */
	[SOURCE_QPS] = {"qps", 0, BIT(CTRL_QPS), SOURCE_SLICES},
	[SOURCE_SLICES] = {"slices", BIT(CTRL_SLICES), 0, SOURCE_CANARY},
	[SOURCE_CANARY] = {"canary", 0, BIT(CTRL_CANARY), SOURCE_START},
	[SOURCE_START] = {"start", BIT(CTRL_START), 0, SOURCE_WINDOW},
	/* PROGRESS keeps the window; RESULT ends it. The sink's DONE: it ended the session. */
	[SOURCE_WINDOW] = {"window", BIT(CTRL_DONE), BIT(CTRL_PROGRESS) | BIT(CTRL_RESULT),
			   SOURCE_VERDICT},
	[SOURCE_TABLE] = {"table", 0, BIT(CTRL_VERIFY), SOURCE_VERDICT},
	[SOURCE_VERDICT] = {"verdict", BIT(CTRL_DONE), 0, SOURCE_END},
	[SOURCE_END] = {"end", 0, 0, SOURCE_END},
};

static bool known(enum source_step st, unsigned type)
{
	return st <= SOURCE_STEP_MAX && type < 32;
}

bool source_takes(enum source_step st, unsigned type)
{
	return known(st, type) && (type == CTRL_ERROR || (steps[st].takes & BIT(type)));
}

bool source_sends(enum source_step st, unsigned type)
{
	return known(st, type) && (type == CTRL_ERROR || (steps[st].sends & BIT(type)));
}

enum source_step source_next(enum source_step st, unsigned type, bool verbs, bool full)
{
	if (!known(st, type) || type == CTRL_ERROR ||
	    !((steps[st].takes | steps[st].sends) & BIT(type)))
		return SOURCE_END;
	if (type == CTRL_PROGRESS) /* as many as the window lasts */
		return SOURCE_WINDOW;
	if (type == CTRL_DONE) /* the verdict, or the sink ended the session in the window */
		return SOURCE_END;
	if (type == CTRL_ACCEPT && verbs)
		return SOURCE_QPS;
	if (type == CTRL_RESULT && full)
		return SOURCE_TABLE;
	return steps[st].next;
}

const char *source_step_name(enum source_step st)
{
	return st <= SOURCE_STEP_MAX ? steps[st].name : "unknown";
}
