/* SPDX-License-Identifier: MIT */
/*
 * watchdog.h: a run's overall time budget, and what the run is doing now.
 *
 * Every network wait of the suite has its own timeout, but waits stack and a
 * call into a wedged device or kernel (destroying a QP, deregistering memory)
 * has none. The watchdog is the last line: a thread that sleeps until the
 * budget is spent and then hands the current phase ("teardown: destroying QP 3
 * of rxe0") to the tool's give_up() callback, which says so and exits. It is
 * process-wide by nature, like a signal handler: one per process.
 *
 * Phases are coarse steps (set outside any hot loop), from any thread; the last
 * one set is the one reported.
 */
#ifndef NBW_WATCHDOG_H
#define NBW_WATCHDOG_H

#include <stdbool.h>

/* Called once, from the watchdog's thread, with "stuck in PHASE (...)". */
typedef void (*nbw_give_up_fn)(const char *why);

/*
 * Start the watchdog: give_up() runs once budget_s seconds from now are spent
 * (plus any time spent paused). 0, or -errno when its thread cannot start.
 */
int nbw_watchdog_start(double budget_s, nbw_give_up_fn give_up);
/* What the run does now (printf-style). Cheap; without a watchdog a no-op. */
void nbw_watchdog_phase(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A new budget of seconds from now (a run made of phases, each with its own). */
void nbw_watchdog_rearm(double seconds);
/*
 * A step with a bound of its own (a teardown): from now on at most seconds
 * more, until nbw_watchdog_unbound() when the step is done (a run of several
 * windows, -a, goes on with its budget). An earlier bound that is still on
 * is kept.
 */
void nbw_watchdog_bound(double seconds);
void nbw_watchdog_unbound(void);
/* Pause while waiting for something unbounded by design (a sink's --wait 0). */
void nbw_watchdog_pause(void);
void nbw_watchdog_resume(void);
/* Stop and join the thread; the budget no longer counts. */
void nbw_watchdog_stop(void);
/* Seconds left of the budget (a large number without a watchdog): what the tests read. */
double nbw_watchdog_left(void);

#endif
