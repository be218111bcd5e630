// SPDX-License-Identifier: MIT
/*
 * test_line: the start line and the meeting on it (common/base/line.c).
 * Workers that pass a line wait until it opens, or leave on an abort; the
 * main thread gathers them; a meeting counts arrivals and its wait ends
 * when all came, at its timeout, or at once after Ctrl-C/SIGTERM.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "check.h"
#include "line.h"
#include "signals.h"
#include "timing.h"

#define WORKERS 3

struct worker {
	pthread_t t;
	struct start_line *l;
	int phase;
	atomic_int *passed; /* workers that came back from line_pass() */
	bool go;	    /* what line_pass() said */
};

static void *pass(void *p)
{
	struct worker *w = p;

	w->go = line_pass(w->l, w->phase);
	atomic_fetch_add(w->passed, 1);
	return NULL;
}

static void start(struct worker *w, struct start_line *l, int phase, atomic_int *passed)
{
	for (int i = 0; i < WORKERS; i++) {
		w[i] = (struct worker){.l = l, .phase = phase, .passed = passed};
		pthread_create(&w[i].t, NULL, pass, &w[i]);
	}
}

static int join(struct worker *w)
{
	int go = 0;

	for (int i = 0; i < WORKERS; i++) {
		pthread_join(w[i].t, NULL);
		go += w[i].go;
	}
	return go;
}

/*
 * WORKERS at line phase, gathered: none is let through by the line below it
 * being opened (phase - 1) or by time alone.
 */
static void hold(struct start_line *l, struct worker *w, int phase, atomic_int *passed)
{
	line_init(l);
	start(w, l, phase, passed);
	CHECK_U64(line_gather(l, phase, WORKERS), 0);
	line_open(l, phase - 1);
	usleep(50000);
	CHECK_U64(atomic_load(passed), 0);
}

/* Opened: every worker waited at the line until then, and all go. */
static void open_line(void)
{
	struct start_line l;
	struct worker w[WORKERS];
	atomic_int passed = 0;

	hold(&l, w, 1, &passed);
	line_open(&l, 1);
	CHECK_U64(join(w), WORKERS);
	CHECK_U64(atomic_load(&passed), WORKERS);
	CHECK(!line_aborted(&l));
	line_destroy(&l);
}

/* Aborted: every waiting worker comes back with false. */
static void abort_line(void)
{
	struct start_line l;
	struct worker w[WORKERS];
	atomic_int passed = 0;

	hold(&l, w, 2, &passed);
	line_abort(&l);
	CHECK_U64(join(w), 0);
	CHECK(line_aborted(&l));
	line_destroy(&l);
}

static void *arrive(void *p)
{
	usleep(20000);
	meeting_arrive(p);
	return NULL;
}

/* A meeting: all arrived in time; one missing, the wait ends at its timeout. */
static void meetings(void)
{
	struct meeting m;
	pthread_t t[2];
	uint64_t t0, ms;

	meeting_init(&m, 2);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, arrive, &m);
	CHECK(meeting_await(&m, 5000));
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	meeting_destroy(&m);

	meeting_init(&m, 2);
	meeting_arrive(&m);
	t0 = nbw_now_ns();
	CHECK(!meeting_await(&m, 300));
	ms = (nbw_now_ns() - t0) / 1000000;
	CHECK(ms >= 300 && ms < 2000);
	meeting_destroy(&m);
}

/* After SIGTERM (blocked, pending as a Ctrl-C would be) no wait lingers. */
static void signalled(void)
{
	struct start_line l;
	struct meeting m;
	uint64_t t0, ms;

	nbw_signals_init();
	raise(SIGTERM);
	line_init(&l);
	meeting_init(&m, 1);
	t0 = nbw_now_ns();
	CHECK_U64(line_gather(&l, 1, 1), (uint64_t)-EINTR);
	CHECK(!meeting_await(&m, 10000));
	ms = (nbw_now_ns() - t0) / 1000000;
	CHECK(ms < 1000);
	line_reach(&l, 1); /* a worker that does not wait: counted, the gather ends */
	CHECK_U64(line_gather(&l, 1, 1), 0);
	meeting_destroy(&m);
	line_destroy(&l);
}

int main(void)
{
	open_line();
	abort_line();
	meetings();
	signalled();
	return check_done("test_line");
}
