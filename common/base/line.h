/* SPDX-License-Identifier: MIT */
/*
 * line.h: the suite's one barrier, the start line.
 *
 * Workers set themselves up and reach a numbered line: line_pass() counts
 * them and waits there until the main thread opens it (all at once) or aborts
 * the run (all are released, none is stranded); line_reach() counts them and
 * goes on. The main thread gathers n of them at a line (line_gather(): never
 * past a signal, and with a meeting bounded in time too) before it opens it.
 *
 * A meeting is the start line used only to count: threads arrive without
 * waiting and one waits, for a bounded time, until all expected are there
 * (--bidir: the source tells its sink it waits for its START; --sources N:
 * every session of the sink is ready before any START).
 */
#ifndef NBW_LINE_H
#define NBW_LINE_H

#include <pthread.h>
#include <stdbool.h>

#define LINE_PHASES 4

struct start_line {
	pthread_mutex_t lock;
	pthread_cond_t cond;	     /* CLOCK_MONOTONIC */
	unsigned ready[LINE_PHASES]; /* workers that reached each phase */
	int open;		     /* highest phase the main thread opened */
	bool abort;
};

void line_init(struct start_line *l);
void line_destroy(struct start_line *l);
/* Worker: phase (1 .. LINE_PHASES-1) reached; wait until it opens. False: aborted. */
bool line_pass(struct start_line *l, int phase);
/* Worker: phase reached (or given up on: it will not come); do not wait. */
void line_reach(struct start_line *l, int phase);
/*
 * Main: wait until n workers reached phase (each step before a line must be
 * bounded). 0, or -EINTR when SIGINT/SIGTERM came meanwhile.
 */
int line_gather(struct start_line *l, int phase, unsigned n);
void line_open(struct start_line *l, int phase);
/* Release every waiter for good; line_pass() then returns false. */
void line_abort(struct start_line *l);
bool line_aborted(struct start_line *l);

/* A start line that counts `expected` arrivals. */
struct meeting {
	struct start_line line;
	unsigned expected;
};

void meeting_init(struct meeting *m, unsigned expected);
void meeting_destroy(struct meeting *m);
/* One more is ready (or has failed and will not come): count it. */
void meeting_arrive(struct meeting *m);
/* true when all expected arrived within timeout_ms (false: timed out or interrupted) */
bool meeting_await(struct meeting *m, int timeout_ms);

#endif
