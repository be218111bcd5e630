// SPDX-License-Identifier: MIT
/* line.c: the start line and the meeting built on it (see line.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "line.h"
#include "signals.h"
#include "timing.h"

#define TICK_NS (100 * 1000000ULL)
/* The one line a meeting counts at. */
#define MEETING_PHASE 1

void line_init(struct start_line *l)
{
	pthread_condattr_t ca;

	memset(l, 0, sizeof(*l));
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, &ca);
	pthread_condattr_destroy(&ca);
}

void line_destroy(struct start_line *l)
{
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
}

void line_reach(struct start_line *l, int phase)
{
	pthread_mutex_lock(&l->lock);
	l->ready[phase]++;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

bool line_pass(struct start_line *l, int phase)
{
	bool go;

	pthread_mutex_lock(&l->lock);
	l->ready[phase]++;
	pthread_cond_broadcast(&l->cond);
	while (l->open < phase && !l->abort)
		pthread_cond_wait(&l->cond, &l->lock);
	go = !l->abort;
	pthread_mutex_unlock(&l->lock);
	return go;
}

/* Until n reached phase: 0, -EINTR on a signal, -ETIMEDOUT at deadline (CLOCK_MONOTONIC ns). */
static int line_gather_until(struct start_line *l, int phase, unsigned n, uint64_t deadline)
{
	int rc = 0;

	pthread_mutex_lock(&l->lock);
	while (l->ready[phase] < n) {
		uint64_t now = nbw_now_ns(), until;
		struct timespec ts;

		if (nbw_interrupted()) {
			rc = -EINTR;
			break;
		}
		if (now >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		until = deadline - now > TICK_NS ? now + TICK_NS : deadline;
		ts = (struct timespec){.tv_sec = (time_t)(until / NBW_NSEC_PER_SEC),
				       .tv_nsec = (long)(until % NBW_NSEC_PER_SEC)};
		pthread_cond_timedwait(&l->cond, &l->lock, &ts);
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
}

int line_gather(struct start_line *l, int phase, unsigned n)
{
	return line_gather_until(l, phase, n, UINT64_MAX);
}

void line_open(struct start_line *l, int phase)
{
	pthread_mutex_lock(&l->lock);
	l->open = phase;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

void line_abort(struct start_line *l)
{
	pthread_mutex_lock(&l->lock);
	l->abort = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

bool line_aborted(struct start_line *l)
{
	bool a;

	pthread_mutex_lock(&l->lock);
	a = l->abort;
	pthread_mutex_unlock(&l->lock);
	return a;
}

void meeting_init(struct meeting *m, unsigned expected)
{
	line_init(&m->line);
	m->expected = expected;
}

void meeting_destroy(struct meeting *m)
{
	line_destroy(&m->line);
}

void meeting_arrive(struct meeting *m)
{
	line_reach(&m->line, MEETING_PHASE);
}

bool meeting_await(struct meeting *m, int timeout_ms)
{
	uint64_t deadline = nbw_now_ns() + (uint64_t)timeout_ms * 1000000ULL;

	return !line_gather_until(&m->line, MEETING_PHASE, m->expected, deadline);
}
