// SPDX-License-Identifier: MIT
/*
 * test_watchdog: the run's budget (common/base/watchdog.c). The watchdog is one per
 * process, so the cases run one after the other: it gives up at its budget,
 * naming the last phase; not while paused; sooner after a limit; later after
 * a re-arm; never once stopped.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "timing.h"
#include "watchdog.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char said[256];
static uint64_t said_at;

/* Unlike a tool's, this give_up() returns: the thread ends, the test goes on. */
static void give_up(const char *why)
{
	pthread_mutex_lock(&lock);
	snprintf(said, sizeof(said), "%s", why);
	said_at = nbw_now_ns();
	pthread_mutex_unlock(&lock);
}

static void reset(void)
{
	pthread_mutex_lock(&lock);
	said[0] = 0;
	said_at = 0;
	pthread_mutex_unlock(&lock);
}

/* Seconds from t0 until give_up() ran, or -1 if it did not within wait_s. */
static double gave_up_after(uint64_t t0, double wait_s)
{
	uint64_t end = nbw_now_ns() + nbw_s_to_ns(wait_s);
	double at = -1;

	while (nbw_now_ns() < end) {
		pthread_mutex_lock(&lock);
		if (said_at)
			at = nbw_ns_to_s(said_at - t0);
		pthread_mutex_unlock(&lock);
		if (at >= 0)
			break;
		nbw_sleep_until_ns(nbw_now_ns() + 5000000);
	}
	return at;
}

static void sleep_s(double s)
{
	nbw_sleep_until_ns(nbw_now_ns() + nbw_s_to_ns(s));
}

/* At its budget, with the phase last set. */
static void budget_names_phase(void)
{
	uint64_t t0 = nbw_now_ns();
	double at;

	reset();
	CHECK(nbw_watchdog_start(0.3, give_up) == 0);
	nbw_watchdog_phase("the window (writing to %s)", "peer");
	nbw_watchdog_phase("teardown: destroying QP %u of %s", 3, "rxe0");
	at = gave_up_after(t0, 3);
	CHECK(at >= 0.3 && at < 1.5);
	CHECK(strncmp(said, "stuck in teardown: destroying QP 3 of rxe0 (", 44) == 0);
	CHECK(strstr(said, "the run's budget was 0 s") != NULL);
	nbw_watchdog_stop();
}

/* Paused time does not count; it resumes where it was. */
static void pause_does_not_count(void)
{
	uint64_t t0 = nbw_now_ns();
	double at;

	reset();
	CHECK(nbw_watchdog_start(0.3, give_up) == 0);
	nbw_watchdog_phase("waiting for a source");
	nbw_watchdog_pause();
	CHECK(nbw_watchdog_left() > 1e6);
	sleep_s(0.6);
	CHECK(said_at == 0);
	nbw_watchdog_resume();
	at = gave_up_after(t0, 3);
	CHECK(at >= 0.9 && at < 2.0);
	CHECK(strstr(said, "stuck in waiting for a source") == said);
	nbw_watchdog_stop();
}

/* A step's bound comes before the budget while it is on; a re-arm sets a new budget. */
static void bound_and_rearm(void)
{
	uint64_t t0 = nbw_now_ns();
	double at, left;

	reset();
	CHECK(nbw_watchdog_start(30, give_up) == 0);
	nbw_watchdog_bound(60); /* later than the budget: the budget comes first */
	left = nbw_watchdog_left();
	CHECK(left > 29 && left <= 30);
	nbw_watchdog_bound(5);
	left = nbw_watchdog_left();
	CHECK(left > 4 && left <= 5);
	nbw_watchdog_unbound(); /* the step is done: the budget again */
	left = nbw_watchdog_left();
	CHECK(left > 29 && left <= 30);
	nbw_watchdog_rearm(100);
	left = nbw_watchdog_left();
	CHECK(left > 99 && left <= 100);
	nbw_watchdog_phase("teardown: joining the workers");
	nbw_watchdog_bound(0.2);
	at = gave_up_after(t0, 3);
	CHECK(at >= 0.2 && at < 1.5);
	CHECK(strstr(said, "stuck in teardown: joining the workers") == said);
	CHECK(strstr(said, "the step's own bound was 0 s") != NULL);
	nbw_watchdog_stop();
}

/* Stopped in time: nothing said. A second start is refused while one runs. */
static void stop_in_time(void)
{
	reset();
	CHECK(nbw_watchdog_start(0.3, give_up) == 0);
	CHECK(nbw_watchdog_start(0.3, give_up) < 0);
	nbw_watchdog_stop();
	sleep_s(0.5);
	CHECK(said_at == 0);
	CHECK(nbw_watchdog_start(0, give_up) < 0);
	CHECK(nbw_watchdog_left() > 1e6);
}

static void *enter_stalled_phase(void *arg)
{
	(void)arg;
	nbw_watchdog_phase("teardown: destroying QP %u of %s", 7, "rxe1");
	return NULL; /* never: the phase hangs */
}

/* The test hook: a thread entering the named phase hangs; the watchdog names it. */
static void stall_hook(void)
{
	uint64_t t0 = nbw_now_ns();
	pthread_t th;
	double at;

	reset();
	setenv("NBW_TEST_STALL_PHASE", "teardown: destroying QP", 1);
	CHECK(nbw_watchdog_start(0.3, give_up) == 0);
	nbw_watchdog_phase("teardown: joining the workers"); /* another prefix: goes on */
	CHECK(pthread_create(&th, NULL, enter_stalled_phase, NULL) == 0);
	at = gave_up_after(t0, 3);
	CHECK(at >= 0.3 && at < 1.5);
	CHECK(strstr(said, "stuck in teardown: destroying QP 7 of rxe1") == said);
	pthread_detach(th);
	nbw_watchdog_stop();
	unsetenv("NBW_TEST_STALL_PHASE");
}

int main(void)
{
	budget_names_phase();
	pause_does_not_count();
	bound_and_rearm();
	stop_in_time();
	stall_hook();
	return check_done("test_watchdog");
}
