// SPDX-License-Identifier: MIT
/*
 * test_sweep.c: the sweep verdict (common/base/sweep.c) on fixture curves: flat at
 * the link ceiling (the reference platform's Gen3 x4 drive), flat below it,
 * still rising at the largest point, noisy but flat, without a ceiling, a
 * single point, a curve that reaches the ceiling only at its last point, and
 * one that falls after its peak.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "sweep.h"

static const char *const threads[] = {"1 thread",   "2 threads",  "4 threads",	"8 threads",
				      "12 threads", "16 threads", "24 threads", "48 threads"};

static void at_ceiling(void)
{
	const double c[] = {1.10, 2.05, 3.30, 3.55, 3.57, 3.56, 3.57, 3.56};
	struct sweep_verdict v;

	CHECK(sweep_judge(c, threads, 8, 3.6, "Gen3 x4", "concurrency", &v) == 0);
	CHECK_U64(v.flat_from, 3);
	CHECK_STR(sweep_kind_name(v.kind), "link");
	CHECK(fabs(v.max_gb_per_s - 3.57) < 1e-9);
	CHECK(fabs(v.pct - 99.1667) < 1e-3);
	CHECK_STR(v.text, "flat from 8 threads at 99% of the Gen3 x4 ceiling: a link limit, "
			  "not a concurrency limit");
}

static void below_ceiling(void)
{
	const double c[] = {0.80, 1.50, 2.17, 2.18, 2.19, 2.20, 2.19, 2.18};
	struct sweep_verdict v;

	CHECK(sweep_judge(c, threads, 8, 3.6, NULL, "concurrency", &v) == 0);
	CHECK_U64(v.flat_from, 2);
	CHECK_STR(sweep_kind_name(v.kind), "below_link");
	CHECK_STR(v.text, "flat from 4 threads at 61% of the link ceiling: the drive or the "
			  "host limits");
}

static void rising(void)
{
	const double c[] = {0.40, 0.80, 1.20, 1.60, 1.90, 2.20, 2.60, 3.10};
	struct sweep_verdict v;

	CHECK(sweep_judge(c, threads, 8, 3.6, NULL, "concurrency", &v) == 0);
	CHECK_U64(v.flat_from, 7);
	CHECK_STR(sweep_kind_name(v.kind), "rising");
	CHECK_STR(v.text, "still rising at 48 threads (3.10 GB/s, 86% of the link ceiling): "
			  "sweep further");
	CHECK(sweep_judge(c, threads, 8, NAN, NULL, "concurrency", &v) == 0);
	CHECK_STR(sweep_kind_name(v.kind), "rising");
	CHECK(isnan(v.pct));
}

static void noisy(void)
{
	/* Within 2% of the maximum from 2 threads on, up and down. */
	const double c[] = {1.90, 3.52, 3.49, 3.55, 3.50, 3.56, 3.51, 3.54};
	struct sweep_verdict v;

	CHECK(sweep_judge(c, threads, 8, 3.6, NULL, "concurrency", &v) == 0);
	CHECK_U64(v.flat_from, 1);
	CHECK_STR(sweep_kind_name(v.kind), "link");
	/* The same shape well below the ceiling: flat, not rising. */
	CHECK(sweep_judge(c, threads, 8, 7.2, NULL, "concurrency", &v) == 0);
	CHECK_U64(v.flat_from, 1);
	CHECK_STR(sweep_kind_name(v.kind), "below_link");
}

static void no_ceiling_and_edges(void)
{
	static const char *const chunks[] = {"64K", "128K", "256K", "512K"};
	const double c[] = {0.30, 0.52, 0.53, 0.52};
	const double late[] = {2.0, 2.9, 3.3, 3.5};
	struct sweep_verdict v;

	CHECK(sweep_judge(c, chunks, 4, NAN, NULL, "request-size", &v) == 0);
	CHECK_STR(sweep_kind_name(v.kind), "no_ceiling");
	CHECK_U64(v.flat_from, 1);
	CHECK_STR(v.text, "flat from 128K at 0.53 GB/s; no known link ceiling (a file or a "
			  "virtual device): a link limit cannot be told from a drive limit");
	CHECK(sweep_judge(c, chunks, 4, 0, NULL, "request-size", &v) == 0);
	CHECK_STR(sweep_kind_name(v.kind), "no_ceiling");
	/* Reaching the ceiling only at the last point is a link limit all the same. */
	CHECK(sweep_judge(late, chunks, 4, 3.6, NULL, "request-size", &v) == 0);
	CHECK_STR(sweep_kind_name(v.kind), "link");
	CHECK_U64(v.flat_from, 3);
	/* ... but it never went flat: the words name where it reached the ceiling. */
	CHECK(strstr(v.text, "flat from") == NULL);
	CHECK(strstr(v.text, "reaches") != NULL);
	/* One point: flat from it. */
	CHECK(sweep_judge(c, chunks, 1, 3.6, NULL, "request-size", &v) == 0);
	CHECK_STR(sweep_kind_name(v.kind), "below_link");
	CHECK_U64(v.flat_from, 0);
	CHECK(sweep_judge(c, chunks, 0, 3.6, NULL, "request-size", &v) == -EINVAL);
}

static void falling(void)
{
	/* A peak at 4 threads, then contention: flat from the peak, not rising. */
	const double c[] = {1.07, 1.54, 1.82, 1.81, 1.50, 1.78, 1.75, 1.33};
	struct sweep_verdict v;

	CHECK(sweep_judge(c, threads, 8, 3.6, NULL, "concurrency", &v) == 0);
	CHECK_U64(v.flat_from, 2);
	CHECK_STR(sweep_kind_name(v.kind), "below_link");
	CHECK_STR(v.text, "flat from 4 threads at 51% of the link ceiling: the drive or the host "
			  "limits; it falls to 73% of that at 48 threads");
}

/* A figure above its own ceiling (the lab's emulated links) gets no percentage. */
static void above_ceiling(void)
{
	const double c[] = {0.30, 0.55, 0.66, 0.67};
	struct sweep_verdict v;

	CHECK(sweep_above(0.67, 0.21));
	CHECK(isnan(sweep_pct_held(0.67, 0.21)));
	CHECK(!sweep_above(3.42, 3.6));
	CHECK(fabs(sweep_pct_held(3.42, 3.6) - 95.0) < 1e-9);
	CHECK(!sweep_above(10.71, 10.70)); /* 100.1%: within the margin */
	CHECK(isnan(sweep_pct_held(1.0, NAN)) && !sweep_above(1.0, NAN) && !sweep_above(1.0, 0));
	CHECK(sweep_judge(c, threads, 4, 0.21, "Gen1 x1", "concurrency", &v) == 0);
	CHECK_STR(sweep_kind_name(v.kind), "above_ceiling");
	CHECK(isnan(v.pct));
	CHECK_STR(v.text,
		  "above ceiling: flat from 4 threads at 0.67 GB/s, 3.19x the Gen1 x1 ceiling "
		  "(0.21 GB/s): the link is emulated or its ceiling misreported");
}

/*
 * -a's curve against the rails' line rate, an exact ceiling: 102% of it is above it
 * (flagged "above ceiling"), and the last point is not where it went flat.
 */
static void above_line_rate(void)
{
	static const char *const sizes[] = {"1MiB", "2MiB", "4MiB", "8MiB"};
	const double c[] = {11.80, 12.00, 12.10, 12.79}; /* line rate 12.5 GB/s */
	struct sweep_verdict v;

	CHECK(sweep_judge_at(c, sizes, 4, 12.5, "rails' line rate", "message-size", 100.0, &v) ==
	      0);
	CHECK_STR(sweep_kind_name(v.kind), "above_ceiling");
	CHECK(strstr(v.text, "above ceiling") != NULL);
	CHECK(strstr(v.text, "flat from 8MiB") == NULL);
	CHECK(sweep_above_at(12.79, 12.5, 100.0));
	CHECK(!sweep_above_at(12.49, 12.5, 100.0));
	/* flat from a point before the last: named */
	const double d[] = {11.80, 12.70, 12.75, 12.79};

	CHECK(sweep_judge_at(d, sizes, 4, 12.5, "rails' line rate", "message-size", 100.0, &v) ==
	      0);
	CHECK(strstr(v.text, "flat from 2MiB") != NULL);
}

int main(void)
{
	above_line_rate();
	above_ceiling();
	at_ceiling();
	below_ceiling();
	rising();
	noisy();
	no_ceiling_and_edges();
	falling();
	return check_done("test_sweep");
}
