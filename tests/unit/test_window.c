// SPDX-License-Identifier: MIT
/*
 * test_window: the measured window of common/base/window.c on a counter that grows
 * at a known rate: warm-up outside the window, the window's length, samples
 * every sample_s and their variation, live lines, a check() that stops it,
 * and the coefficient of variation against worked values.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "timing.h"
#include "window.h"

struct ctx {
	uint64_t t0;
	int samples, lives, checks, stop_after;
	struct samples s;
};

/* A counter that grows 1e9 bytes per second of the monotonic clock. */
static uint64_t counter(const struct ctx *c)
{
	return nbw_now_ns() - c->t0;
}

static uint64_t *window_start;

static void snap(void *p, uint64_t *out)
{
	struct ctx *c = p;

	out[0] = counter(c);
	if (out == window_start) /* the window opens: the samples' base */
		samples_add(&c->s, out[0], 0, 0.1);
}

static void sample(void *p, double at)
{
	struct ctx *c = p;

	c->samples++;
	samples_add(&c->s, counter(c), at, 0.1);
}

static void live(void *p, double at, double secs)
{
	struct ctx *c = p;

	(void)at, (void)secs;
	c->lives++;
}

static int check(void *p)
{
	struct ctx *c = p;

	return ++c->checks == c->stop_after ? 7 : 0;
}

int main(void)
{
	double flat[4] = {5, 5, 5, 5}, ramp[3] = {1, 2, 3};
	struct ctx c = {.t0 = nbw_now_ns()};
	uint64_t a, b;
	struct window w = {
		.warmup = 0.1,
		.duration = 0.45,
		.interval = 0.2,
		.sample_s = 0.1,
		.snapshot = snap,
		.sample = sample,
		.live = live,
		.check = check,
		.ctx = &c,
		.start = &a,
		.end = &b,
		.tick_ms = 20,
	};
	double cv;

	CHECK(nbw_cv_pct(flat, 4) == 0);
	CHECK(fabs(nbw_cv_pct(ramp, 3) - 50.0) < 1e-9); /* stdev 1 (n-1) over mean 2 */
	CHECK(isnan(nbw_cv_pct(ramp, 1)));
	window_start = &a;
	CHECK(samples_init(&c.s, w.duration, w.sample_s) == 0);
	CHECK(window_run(&w) == WINDOW_DONE && w.measured);
	CHECK(w.seconds >= 0.45 && w.seconds < 0.7);
	/* The window's bytes are its length at 1e9 bytes per second (warm-up excluded). */
	CHECK(fabs((double)(b - a) / 1e9 - w.seconds) < 0.01);
	CHECK(c.samples >= 4 && c.samples <= 6);
	CHECK(c.lives >= 2);
	cv = nbw_cv_pct(c.s.rate, c.s.n);
	printf("%u samples, cv %.3f%%\n", c.s.n, cv);
	CHECK(c.s.n >= 3 && cv < 5);		   /* a steady counter varies little */
	CHECK(fabs(c.s.rate[0] / 1e9 - 1) < 0.05); /* 1e9 bytes per second */
	samples_free(&c.s);

	/* check() stops the window: its value is kept. */
	c = (struct ctx){.t0 = nbw_now_ns(), .stop_after = 12};
	w.sample = NULL;
	CHECK(window_run(&w) == WINDOW_STOPPED && w.stopped_by == 7);
	return check_done("test_window");
}
