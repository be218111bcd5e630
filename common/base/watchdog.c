// SPDX-License-Identifier: MIT
/* watchdog.c: the run's overall time budget and its current phase (see watchdog.h). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "timing.h"
#include "watchdog.h"

#define PHASE_MAX 160

/*
 * One per process (the budget is the process's): the fields are guarded by
 * lock; cond wakes the thread when the deadline moves or the run ends.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running, stopping;
	uint64_t started_ns, deadline_ns, paused_at_ns;
	uint64_t bound_until_ns; /* a step's own bound (nbw_watchdog_bound), else 0 */
	double budget_s, bound_s;
	nbw_give_up_fn give_up;
	char phase[PHASE_MAX];
	const char *stall; /* tests: a phase that hangs (NBW_TEST_STALL_PHASE) */
} wd = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static struct timespec abs_ts(uint64_t ns)
{
	return (struct timespec){
		.tv_sec = (time_t)(ns / NBW_NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NBW_NSEC_PER_SEC),
	};
}

/* The budget's deadline, or a step's own bound when that comes first. */
static uint64_t due(bool *bound)
{
	*bound = wd.bound_until_ns && wd.bound_until_ns < wd.deadline_ns;
	return *bound ? wd.bound_until_ns : wd.deadline_ns;
}

/* Sleep until the deadline (which may move, or stop while paused), then give up. */
static void *watch(void *arg)
{
	char why[PHASE_MAX + 96];
	bool bound;

	(void)arg;
	pthread_mutex_lock(&wd.lock);
	while (!wd.stopping) {
		struct timespec ts = abs_ts(due(&bound));

		if (wd.paused_at_ns || nbw_now_ns() < due(&bound)) {
			if (wd.paused_at_ns)
				pthread_cond_wait(&wd.cond, &wd.lock);
			else
				pthread_cond_timedwait(&wd.cond, &wd.lock, &ts);
			continue;
		}
		snprintf(why, sizeof(why), "stuck in %s (%.1f s after the start; %s %.0f s)",
			 wd.phase[0] ? wd.phase : "an unnamed phase",
			 nbw_ns_to_s(nbw_now_ns() - wd.started_ns),
			 bound ? "the step's own bound was" : "the run's budget was",
			 bound ? wd.bound_s : wd.budget_s);
		pthread_mutex_unlock(&wd.lock);
		wd.give_up(why);
		return NULL; /* a give_up() that returns: the watchdog is done */
	}
	pthread_mutex_unlock(&wd.lock);
	return NULL;
}

int nbw_watchdog_start(double budget_s, nbw_give_up_fn give_up)
{
	pthread_condattr_t ca;
	int rc;

	if (wd.running || !give_up || !(budget_s > 0))
		return -EINVAL;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.cond, &ca);
	pthread_condattr_destroy(&ca);
	wd.started_ns = nbw_now_ns();
	wd.deadline_ns = wd.started_ns + nbw_s_to_ns(budget_s);
	wd.budget_s = budget_s;
	wd.bound_until_ns = 0;
	wd.give_up = give_up;
	wd.stopping = false;
	wd.paused_at_ns = 0;
	wd.stall = getenv("NBW_TEST_STALL_PHASE");
	rc = pthread_create(&wd.thread, NULL, watch, NULL);
	if (rc) {
		pthread_cond_destroy(&wd.cond);
		return -rc;
	}
	wd.running = true;
	return 0;
}

/*
 * For tests of the budget (docs/testing.md): with NBW_TEST_STALL_PHASE=PREFIX in
 * the environment, the thread entering a phase that starts with PREFIX hangs
 * there, as a call into a wedged device would.
 */
static void test_stall(const char *phase, const char *prefix)
{
	if (!prefix || !*prefix || strncmp(phase, prefix, strlen(prefix)))
		return;
	for (;;)
		sleep(3600);
}

void nbw_watchdog_phase(const char *fmt, ...)
{
	char now[PHASE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(now, sizeof(now), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&wd.lock);
	memcpy(wd.phase, now, sizeof(now));
	pthread_mutex_unlock(&wd.lock);
	if (wd.running)
		test_stall(now, wd.stall);
}

void nbw_watchdog_rearm(double seconds)
{
	pthread_mutex_lock(&wd.lock);
	if (wd.running) {
		wd.deadline_ns = nbw_now_ns() + nbw_s_to_ns(seconds);
		wd.budget_s = seconds;
		wd.started_ns = nbw_now_ns();
		pthread_cond_signal(&wd.cond);
	}
	pthread_mutex_unlock(&wd.lock);
}

void nbw_watchdog_bound(double seconds)
{
	uint64_t until = nbw_now_ns() + nbw_s_to_ns(seconds);

	pthread_mutex_lock(&wd.lock);
	if (wd.running && (!wd.bound_until_ns || until < wd.bound_until_ns)) {
		wd.bound_until_ns = until;
		wd.bound_s = seconds;
		pthread_cond_signal(&wd.cond);
	}
	pthread_mutex_unlock(&wd.lock);
}

void nbw_watchdog_unbound(void)
{
	pthread_mutex_lock(&wd.lock);
	wd.bound_until_ns = 0;
	pthread_mutex_unlock(&wd.lock);
}

void nbw_watchdog_pause(void)
{
	pthread_mutex_lock(&wd.lock);
	if (wd.running && !wd.paused_at_ns)
		wd.paused_at_ns = nbw_now_ns();
	pthread_mutex_unlock(&wd.lock);
}

void nbw_watchdog_resume(void)
{
	pthread_mutex_lock(&wd.lock);
	if (wd.running && wd.paused_at_ns) {
		wd.deadline_ns += nbw_now_ns() - wd.paused_at_ns;
		wd.paused_at_ns = 0;
		pthread_cond_signal(&wd.cond);
	}
	pthread_mutex_unlock(&wd.lock);
}

void nbw_watchdog_stop(void)
{
	pthread_mutex_lock(&wd.lock);
	if (!wd.running) {
		pthread_mutex_unlock(&wd.lock);
		return;
	}
	wd.stopping = true;
	pthread_cond_signal(&wd.cond);
	pthread_mutex_unlock(&wd.lock);
	pthread_join(wd.thread, NULL);
	pthread_cond_destroy(&wd.cond);
	wd.running = false;
}

double nbw_watchdog_left(void)
{
	double left = 1e9;

	pthread_mutex_lock(&wd.lock);
	if (wd.running && !wd.paused_at_ns) {
		bool bound;

		left = nbw_ns_to_s(due(&bound)) - nbw_ns_to_s(nbw_now_ns());
	}
	pthread_mutex_unlock(&wd.lock);
	return left;
}
