// SPDX-License-Identifier: MIT
/*
 * steps.c: the conversation's one table (see steps.h): each step, the
 * messages in it and where each leads, and the views the sink and the
 * source take of it.
 */
#include "steps.h"

#define BIT(t) (1u << (t))

/* When an edge holds: always, or only for a sink with a key, in verbs mode, ... */
enum when { ALWAYS, KEY, NO_KEY, VERBS, CM, FULL, NOT_FULL };

static const char *const names[CTRL_STEP_MAX + 1] = {
	[CTRL_STEP_AUTH] = "auth",	 [CTRL_STEP_PROOF] = "proof",
	[CTRL_STEP_HELLO] = "hello",	 [CTRL_STEP_ACCEPT] = "accept",
	[CTRL_STEP_QPS] = "qps",	 [CTRL_STEP_SLICES] = "slices",
	[CTRL_STEP_CANARY] = "canary",	 [CTRL_STEP_START] = "start",
	[CTRL_STEP_WINDOW] = "window",	 [CTRL_STEP_TABLE] = "table",
	[CTRL_STEP_VERDICT] = "verdict", [CTRL_STEP_END] = "end",
};

/*
 * The conversation, step by step: in step, a message of type (its sender
 * is ctrl_sender()'s: AUTH goes both ways) leads to next when the run is as
 * when says. Nothing else is held in a step but an ERROR.
 */
static const struct {
	enum ctrl_step step;
	unsigned type;
	enum when when;
	enum ctrl_step next;
} edges[] = {
	{CTRL_STEP_AUTH, CTRL_AUTH, KEY, CTRL_STEP_PROOF},
	{CTRL_STEP_AUTH, CTRL_AUTH, NO_KEY, CTRL_STEP_HELLO},
	{CTRL_STEP_PROOF, CTRL_AUTH, ALWAYS, CTRL_STEP_HELLO},
	{CTRL_STEP_HELLO, CTRL_HELLO, ALWAYS, CTRL_STEP_ACCEPT},
	{CTRL_STEP_ACCEPT, CTRL_ACCEPT, VERBS, CTRL_STEP_QPS},
	{CTRL_STEP_ACCEPT, CTRL_ACCEPT, CM, CTRL_STEP_SLICES},
	{CTRL_STEP_QPS, CTRL_QPS, ALWAYS, CTRL_STEP_SLICES},
	{CTRL_STEP_SLICES, CTRL_SLICES, ALWAYS, CTRL_STEP_CANARY},
	{CTRL_STEP_CANARY, CTRL_CANARY, ALWAYS, CTRL_STEP_START},
	{CTRL_STEP_START, CTRL_START, ALWAYS, CTRL_STEP_WINDOW},
	{CTRL_STEP_WINDOW, CTRL_PROGRESS, ALWAYS, CTRL_STEP_WINDOW},
	{CTRL_STEP_WINDOW, CTRL_RESULT, FULL, CTRL_STEP_TABLE},
	{CTRL_STEP_WINDOW, CTRL_RESULT, NOT_FULL, CTRL_STEP_VERDICT},
	{CTRL_STEP_WINDOW, CTRL_DONE, ALWAYS, CTRL_STEP_END}, /* the sink stopped it */
	{CTRL_STEP_TABLE, CTRL_VERIFY, ALWAYS, CTRL_STEP_VERDICT},
	{CTRL_STEP_VERDICT, CTRL_DONE, ALWAYS, CTRL_STEP_END},
};

#define NEDGES (sizeof(edges) / sizeof(edges[0]))

static bool holds(enum when w, bool key, bool verbs, bool full)
{
	switch (w) {
	case KEY:
		return key;
	case NO_KEY:
		return !key;
	case VERBS:
		return verbs;
	case CM:
		return !verbs;
	case FULL:
		return full;
	case NOT_FULL:
		return !full;
	default:
		return true;
	}
}

const char *ctrl_step_name(unsigned step)
{
	return step <= CTRL_STEP_MAX ? names[step] : "unknown";
}

uint32_t ctrl_step_sends(unsigned step, unsigned by)
{
	uint32_t mask = 0;
	size_t i;

	for (i = 0; i < NEDGES; i++)
		if (edges[i].step == step && (ctrl_sender(edges[i].type) & by))
			mask |= BIT(edges[i].type);
	return mask;
}

uint32_t ctrl_step_allows(unsigned step)
{
	if (step > CTRL_STEP_MAX)
		return 0;
	/* A source's ERROR is read once it is admitted: a stranger's text is not. */
	return ctrl_step_sends(step, CTRL_BY_SOURCE) |
	       (step >= CTRL_STEP_ACCEPT ? BIT(CTRL_ERROR) : 0);
}

/* The other side of side. */
static unsigned peer_of(unsigned side)
{
	return side == CTRL_BY_SINK ? CTRL_BY_SOURCE : CTRL_BY_SINK;
}

bool ctrl_step_takes(unsigned step, unsigned side, unsigned type)
{
	if (step > CTRL_STEP_MAX || type >= 32)
		return false;
	if (side == CTRL_BY_SINK)
		return ctrl_step_allows(step) & BIT(type);
	return type == CTRL_ERROR || (ctrl_step_sends(step, peer_of(side)) & BIT(type));
}

bool ctrl_step_may_send(unsigned step, unsigned side, unsigned type)
{
	if (step > CTRL_STEP_MAX || type >= 32)
		return false;
	return type == CTRL_ERROR || (ctrl_step_sends(step, side) & BIT(type));
}

enum ctrl_step ctrl_step_next(unsigned step, unsigned type, bool key, bool verbs, bool full)
{
	size_t i;

	for (i = 0; i < NEDGES; i++)
		if (edges[i].step == step && edges[i].type == type &&
		    holds(edges[i].when, key, verbs, full))
			return edges[i].next;
	return CTRL_STEP_END; /* an ERROR, or a message the step does not hold */
}

enum ctrl_step ctrl_step_sink_next(unsigned step, unsigned type, bool key, bool verbs, bool full)
{
	enum ctrl_step st = ctrl_step_next(step, type, key, verbs, full);
	uint32_t mine;

	/* A step of the sink's messages alone: its answer, taken as sent. */
	while (st != CTRL_STEP_END && !ctrl_step_sends(st, CTRL_BY_SOURCE) &&
	       (mine = ctrl_step_sends(st, CTRL_BY_SINK)) != 0) {
		unsigned t = 0;

		while (!(mine & BIT(t)))
			t++;
		st = ctrl_step_next(st, t, key, verbs, full);
	}
	return st;
}
