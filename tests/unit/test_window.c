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
#include "report.h"
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

/*
 * One window on the steady counter. What the host's scheduler decides (the
 * window's length, the samples' count, their variation) is judged here and
 * returned; what must hold whatever the load is CHECKed. A sampling bug holds
 * in every attempt, a late wake-up on a busy host in one: main() takes three.
 */
static int timed_window(struct window *w, struct ctx *c)
{
	uint64_t *a = w->start, *b = w->end;
	double cv;
	int steady;

	*c = (struct ctx){.t0 = nbw_now_ns()};
	w->ctx = c;
	CHECK(samples_init(&c->s, w->duration, w->sample_s) == 0);
	CHECK(window_run(w) == WINDOW_DONE && w->measured);
	CHECK(w->seconds >= 0.45); /* never shorter than asked */
	cv = nbw_cv_pct(c->s.rate, c->s.n);
	/* The window's bytes are its length at 1e9 bytes per second (warm-up excluded). */
	steady = fabs((double)(*b - *a) / 1e9 - w->seconds) < 0.01 && w->seconds < 0.7 &&
		 c->samples <= 6 && c->samples >= 4 && c->lives >= 2 && c->s.n >= 3 &&
		 cv < 5 &&			      /* a steady counter varies little */
		 fabs(c->s.rate[0] / 1e9 - 1) < 0.05; /* 1e9 bytes per second */
	printf("window %.3f s, %d samples, %d live lines, cv %.3f%%, first %.4g B/s%s\n",
	       w->seconds, c->samples, c->lives, cv, c->s.n ? c->s.rate[0] : 0.0,
	       steady ? "" : " (late: the host is busy)");
	samples_free(&c->s);
	return steady;
}

/* The shape of a window: a collapse named by its second, a steady one not, the cap counted. */
static void shapes(void)
{
	const double collapse[] = {8.6e9, 8.4e9, 1.2e9, 8.5e9, 8.7e9,
				   8.6e9, 8.5e9, 8.4e9, 8.6e9, 8.5e9};
	const double steady[] = {8.6e9, 8.4e9, 8.5e9, 8.7e9};
	const double wobbly[] = {8.58e9, 4.97e9, 9.60e9, 9.80e9, 8.43e9};
	double small[10];
	struct window_shape sh;
	struct samples s;
	char why[160];
	unsigned i;

	window_shape(collapse, 10, 50, &sh);
	CHECK(sh.unsteady && !sh.cv_over && sh.low == 2);
	CHECK(sh.min == 1.2e9 && sh.max == 8.7e9 && sh.median == 8.5e9);
	window_shape_why(&sh, 50, why, sizeof(why));
	CHECK_STR(why, "second 3 at 1.20 GB/s, under half the median 8.50 GB/s");
	/* An emulated fabric's few MB/s: two significant digits, never 0.00. */
	for (i = 0; i < 10; i++)
		small[i] = collapse[i] * 5e-4;
	window_shape(small, 10, 50, &sh);
	window_shape_why(&sh, 50, why, sizeof(why));
	CHECK_STR(why, "second 3 at 0.00060 GB/s, under half the median 0.0043 GB/s");
	CHECK(report_decimals(0.0042, 2) == 4 && report_decimals(0.05, 2) == 3);
	CHECK(report_decimals(0.1, 2) == 2 && report_decimals(3.57, 2) == 2);
	CHECK(report_decimals(0, 2) == 2 && report_decimals(NAN, 2) == 2);
	CHECK(report_decimals(-0.0042, 1) == 4 && report_decimals(1e-30, 2) == 9);
	window_shape(steady, 4, 10, &sh);
	CHECK(!sh.unsteady && sh.low == -1 && sh.median == 8.55e9 && sh.cv < 2);
	CHECK(window_shape_why(&sh, 10, why, sizeof(why)) == 0 && !why[0]);
	/* The window: no second under half its median, but a cv of 23.5%. */
	window_shape(wobbly, 5, 10, &sh);
	CHECK(sh.unsteady && sh.cv_over && sh.low == -1);
	window_shape_why(&sh, 10, why, sizeof(why));
	CHECK_STR(why, "cv 23.5% above 10%");
	window_shape(wobbly, 1, 10, &sh);
	CHECK(!sh.unsteady && isnan(sh.cv) && sh.min == 8.58e9);
	window_shape(NULL, 0, 10, &sh);
	CHECK(!sh.unsteady && isnan(sh.min) && isnan(sh.median));
	/* A window of two hours keeps its first hour of seconds and counts the rest. */
	CHECK(samples_init(&s, 7200, 1.0) == 0 && s.max == SAMPLES_MAX);
	for (i = 0; i <= 7200; i++)
		samples_add(&s, (uint64_t)i * 1000, i, 1.0);
	CHECK(s.n == SAMPLES_MAX && s.dropped == 7200 - SAMPLES_MAX && s.rate[0] == 1000);
	samples_free(&s);
}

int main(void)
{
	double flat[4] = {5, 5, 5, 5}, ramp[3] = {1, 2, 3};
	struct ctx c = {.t0 = nbw_now_ns()};
	uint64_t a, b, called;
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
	int tries, steady = 0;

	CHECK(nbw_cv_pct(flat, 4) == 0);
	CHECK(fabs(nbw_cv_pct(ramp, 3) - 50.0) < 1e-9); /* stdev 1 (n-1) over mean 2 */
	CHECK(isnan(nbw_cv_pct(ramp, 1)));
	shapes();
	window_start = &a;
	for (tries = 0; tries < 3 && !steady; tries++)
		steady = timed_window(&w, &c);
	CHECK(steady);

	/* The warm-up runs from origin_ns: set-up done since is absorbed by it. */
	c = (struct ctx){.t0 = nbw_now_ns()};
	w.sample = NULL;
	w.warmup = 0.5;
	w.duration = 0.1;
	w.origin_ns = nbw_now_ns() - nbw_s_to_ns(0.4); /* 0.4 s of set-up since START */
	CHECK(window_run(&w) == WINDOW_DONE && w.measured);
	CHECK(w.open_ns - w.origin_ns >= nbw_s_to_ns(0.5));
	CHECK(w.open_ns - w.origin_ns < nbw_s_to_ns(0.8)); /* not 0.9 s after START */
	w.origin_ns = nbw_now_ns() - nbw_s_to_ns(2); /* set-up past the warm-up: open at once */
	called = nbw_now_ns();
	CHECK(window_run(&w) == WINDOW_DONE && w.open_ns - called < nbw_s_to_ns(0.3));
	w.origin_ns = 0;
	w.warmup = 0.1;
	w.duration = 0.45;

	/* check() stops the window: its value is kept. */
	c = (struct ctx){.t0 = nbw_now_ns(), .stop_after = 12};
	CHECK(window_run(&w) == WINDOW_STOPPED && w.stopped_by == 7);
	return check_done("test_window");
}
