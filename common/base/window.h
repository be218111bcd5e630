/* SPDX-License-Identifier: MIT */
/*
 * window.h: one measured run for the whole suite.
 *
 * - Signals (signals.h, included here): every wait of this module wakes
 *   within a tick (<= 100 ms) for SIGINT/SIGTERM. The start line before the
 *   window is line.h's.
 * - The window: warm-up, then the measured duration on CLOCK_MONOTONIC; the
 *   caller's completion counters are snapshotted at both ends; a check()
 *   callback can end it early; live lines every --interval.
 * - One live-line printer: "[   2.0s]  nvme0n1 1.23  total 2.46 GB/s".
 */
#ifndef NBW_WINDOW_H
#define NBW_WINDOW_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "signals.h"

/* ---- the window -------------------------------------------------------------------- */

enum window_end {
	WINDOW_DONE,	/* the duration elapsed */
	WINDOW_SIGNAL,	/* SIGINT/SIGTERM */
	WINDOW_STOPPED, /* check() returned non-zero (its value in stopped_by) */
};

/*
 * The caller fills the first block. check() is called every tick_ms (default
 * 100) from the start of the warm-up; live() every interval seconds of the
 * window (at = seconds into it, secs = since the previous line) and once at
 * its end; snapshot() fills the caller's counters (start at the opening, end
 * at the close).
 */
struct window {
	double warmup, duration, interval;
	int tick_ms;
	int (*check)(void *ctx);
	void (*live)(void *ctx, double at, double secs);
	void (*snapshot)(void *ctx, uint64_t *out);
	/* Optional: every sample_s (default 1 s) of the window and once at its close. */
	void (*sample)(void *ctx, double at);
	double sample_s;
	void *ctx;
	uint64_t *start, *end;
	/*
	 * Optional: when the warm-up began (CLOCK_MONOTONIC; 0: when window_run is
	 * called). Set-up done after it is absorbed by the warm-up: the window opens
	 * at origin_ns + warmup (at once when that has passed).
	 */
	uint64_t origin_ns;
	/* Results. */
	enum window_end end_reason;
	int stopped_by;	       /* check()'s value */
	bool measured;	       /* the window opened (warm-up passed) */
	double seconds;	       /* measured length (cut short on a stop or signal) */
	uint64_t open_ns;      /* CLOCK_MONOTONIC at the opening */
	uint64_t close_ns;     /* CLOCK_MONOTONIC at the close (0: never opened) */
	double cpu_s;	       /* CPU time of the process (user + system) inside the window */
	uint64_t live_prev_ns; /* (internal) the previous live line */
};

/* Per-sample rates of one counter (bytes/s), for its coefficient of variation. */
struct samples {
	double *rate;
	unsigned n, max;
	unsigned dropped; /* samples past the cap, counted, not kept */
	uint64_t prev;
	double prev_at;
};

/* Samples kept per counter: the first hour of a window sampled every second. */
#define SAMPLES_MAX 3600

/*
 * Room for a window of duration seconds sampled every sample_s, at most
 * SAMPLES_MAX. 0 or -ENOMEM.
 */
int samples_init(struct samples *s, double duration, double sample_s);
/*
 * counter at `at` seconds into the window (the first call, at the opening,
 * only sets the base). A sample shorter than half of min_s is left out.
 */
void samples_add(struct samples *s, uint64_t counter, double at, double min_s);
void samples_free(struct samples *s);

/*
 * Coefficient of variation (stdev / mean, in %) of n rates; NAN with fewer
 * than two or a zero mean. The streams' steadiness for "may these be added".
 */
double nbw_cv_pct(const double *rates, unsigned n);

/* The median of n values (v is left as it was); NAN with none or without memory. */
double nbw_median(const double *v, unsigned n);

/*
 * The shape of a window from its per-second rates: min, max, median and cv.
 * It is unsteady when its cv is above max_cv (%), or when a second fell
 * below WINDOW_LOW_FRACTION of the median (a collapse the cv of a long
 * window can hide).
 */
#define WINDOW_LOW_FRACTION 0.5

struct window_shape {
	unsigned n;
	double min, max, median; /* bytes/s; NAN without samples */
	double cv;		 /* %, NAN with fewer than two samples */
	bool cv_over;		 /* cv above max_cv */
	int low;		 /* the first second below the fraction of the median, -1: none */
	double low_rate;	 /* its rate */
	bool unsteady;		 /* cv_over or low >= 0 */
};

void window_shape(const double *rates, unsigned n, double max_cv, struct window_shape *out);

/*
 * Why a window is unsteady, in one clause without the drive's name: "cv
 * 31.2% above 10%; second 3 at 0.98 GB/s, under half the median 8.50 GB/s".
 * "" when it is steady. Returns the length written.
 */
size_t window_shape_why(const struct window_shape *s, double max_cv, char *buf, size_t len);

/* CPU seconds (user + system, every thread) the process has used so far. */
double nbw_cpu_seconds(void);

/* CPU seconds per GiB moved (NAN when nothing moved), for the "cpu_s_per_gib" figures. */
double nbw_cpu_per_gib(double cpu_s, uint64_t bytes);

enum window_end window_run(struct window *w);

struct cli_common;
/*
 * Bind w to one run: the timing of the generic options (--warmup,
 * -D/--duration, --interval), the callbacks' ctx and the counter arrays
 * snapshot() fills at the opening (start) and the close (end). The callbacks
 * and any other field are the caller's.
 */
void window_bind(struct window *w, const struct cli_common *cc, void *ctx, uint64_t *start,
		 uint64_t *end);

/* ---- live lines ---------------------------------------------------------------------- */

/* One figure of a live line; a NAN rate prints "-". */
struct live_value {
	const char *label;
	double bytes_per_s;
};

/*
 * "[%7.1fs]" and "  label rate" per value, then the unit (GB/s, or Gb/s
 * with gbits), or "  note" instead of the unit when note is set.
 */
void live_print(FILE *out, double at, bool gbits, const struct live_value *v, int n,
		const char *note);

#endif
