// SPDX-License-Identifier: MIT
/* window.c: the measured window and live lines (see window.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli.h"
#include "report.h"
#include "signals.h"
#include "timing.h"
#include "window.h"

#define TICK_NS (100 * 1000000ULL)

/* ---- the window -------------------------------------------------------------------- */

double nbw_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return NAN;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

double nbw_cpu_per_gib(double cpu_s, uint64_t bytes)
{
	return bytes ? cpu_s / ((double)bytes / (1024.0 * 1024 * 1024)) : NAN;
}

/* Wait until deadline, calling check() every tick. */
static enum window_end window_wait(struct window *w, uint64_t deadline)
{
	uint64_t tick = w->tick_ms > 0 ? (uint64_t)w->tick_ms * 1000000ULL : TICK_NS;

	for (;;) {
		uint64_t now = nbw_now_ns(), slice = tick;
		int rc;

		if (w->check && (rc = w->check(w->ctx)) != 0) {
			w->stopped_by = rc;
			return WINDOW_STOPPED;
		}
		if (now >= deadline)
			return WINDOW_DONE;
		if (deadline - now < slice)
			slice = deadline - now;
		if (nbw_signal_wait(slice))
			return WINDOW_SIGNAL;
	}
}

/* The next moment something is due: a live line, a sample, or the end. */
static uint64_t window_next(const struct window *w, uint64_t t_end, uint64_t t_prev,
			    uint64_t t_sample)
{
	uint64_t next = t_end;

	if (w->interval > 0 && w->live && t_prev + nbw_s_to_ns(w->interval) < next)
		next = t_prev + nbw_s_to_ns(w->interval);
	if (w->sample && t_sample < next)
		next = t_sample;
	return next;
}

/* The measured part: live lines and samples until the end, a stop or a signal. */
static enum window_end window_measure(struct window *w, uint64_t *now)
{
	uint64_t t_end = w->open_ns + nbw_s_to_ns(w->duration);
	uint64_t step = nbw_s_to_ns(w->sample_s > 0 ? w->sample_s : 1.0);
	uint64_t t_sample = w->open_ns + step;
	enum window_end end;

	w->live_prev_ns = w->open_ns;
	for (;;) {
		end = window_wait(w, window_next(w, t_end, w->live_prev_ns, t_sample));
		*now = nbw_now_ns();
		if (end != WINDOW_DONE || *now >= t_end)
			return end;
		if (w->sample && *now >= t_sample) {
			w->sample(w->ctx, nbw_ns_to_s(*now - w->open_ns));
			/* Late (a stopped process): one sample spans the gap, none is owed. */
			while (t_sample <= *now)
				t_sample += step;
		}
		if (w->interval > 0 && w->live &&
		    *now >= w->live_prev_ns + nbw_s_to_ns(w->interval)) {
			w->live(w->ctx, nbw_ns_to_s(*now - w->open_ns),
				nbw_ns_to_s(*now - w->live_prev_ns));
			w->live_prev_ns = *now;
		}
	}
}

enum window_end window_run(struct window *w)
{
	uint64_t now = 0;
	enum window_end end;

	w->measured = false;
	w->seconds = 0;
	w->open_ns = 0;
	w->close_ns = 0;
	w->stopped_by = 0;
	end = window_wait(w, (w->origin_ns ? w->origin_ns : nbw_now_ns()) + nbw_s_to_ns(w->warmup));
	w->end_reason = end;
	if (end != WINDOW_DONE)
		return end;
	w->open_ns = nbw_now_ns();
	w->cpu_s = nbw_cpu_seconds();
	w->snapshot(w->ctx, w->start);
	w->measured = true;
	end = window_measure(w, &now);
	w->snapshot(w->ctx, w->end);
	w->close_ns = now;
	w->seconds = nbw_ns_to_s(now - w->open_ns);
	w->cpu_s = nbw_cpu_seconds() - w->cpu_s;
	if (w->sample)
		w->sample(w->ctx, w->seconds);
	if (end == WINDOW_DONE && w->interval > 0 && w->live)
		w->live(w->ctx, w->seconds, nbw_ns_to_s(now - w->live_prev_ns));
	w->end_reason = end;
	return end;
}

void window_bind(struct window *w, const struct cli_common *cc, void *ctx, uint64_t *start,
		 uint64_t *end)
{
	w->warmup = cc->warmup;
	w->duration = cc->duration;
	w->interval = cc->interval;
	w->ctx = ctx;
	w->start = start;
	w->end = end;
}

int samples_init(struct samples *s, double duration, double sample_s)
{
	memset(s, 0, sizeof(*s));
	double want = duration / (sample_s > 0 ? sample_s : 1.0) + 3;

	s->max = want < SAMPLES_MAX ? (unsigned)want : SAMPLES_MAX;
	s->rate = calloc(s->max, sizeof(double));
	s->prev_at = -1;
	return s->rate ? 0 : -ENOMEM;
}

void samples_add(struct samples *s, uint64_t counter, double at, double min_s)
{
	if (s->prev_at >= 0 && at - s->prev_at >= min_s / 2) {
		if (s->n < s->max)
			s->rate[s->n++] = (double)(counter - s->prev) / (at - s->prev_at);
		else
			s->dropped++;
	}
	s->prev = counter;
	s->prev_at = at;
}

void samples_free(struct samples *s)
{
	free(s->rate);
	s->rate = NULL;
	s->n = 0;
}

double nbw_cv_pct(const double *rates, unsigned n)
{
	double mean = 0, var = 0;
	unsigned i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		mean += rates[i];
	mean /= n;
	if (mean <= 0)
		return NAN;
	for (i = 0; i < n; i++)
		var += (rates[i] - mean) * (rates[i] - mean);
	return sqrt(var / (n - 1)) / mean * 100;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double nbw_median(const double *v, unsigned n)
{
	double *sorted = n ? malloc(n * sizeof(double)) : NULL, m;

	if (!sorted)
		return NAN;
	memcpy(sorted, v, n * sizeof(double));
	qsort(sorted, n, sizeof(double), cmp_double);
	m = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
	return m;
}

void window_shape(const double *rates, unsigned n, double max_cv, struct window_shape *out)
{
	unsigned i;

	*out = (struct window_shape){.n = n, .min = NAN, .max = NAN, .median = NAN, .low = -1};
	out->cv = nbw_cv_pct(rates, n);
	if (!n)
		return;
	out->cv_over = out->cv > max_cv;
	out->min = out->max = rates[0];
	for (i = 1; i < n; i++) {
		out->min = rates[i] < out->min ? rates[i] : out->min;
		out->max = rates[i] > out->max ? rates[i] : out->max;
	}
	out->median = nbw_median(rates, n);
	for (i = 0; n >= 2 && out->median > 0 && i < n && out->low < 0; i++)
		if (rates[i] < WINDOW_LOW_FRACTION * out->median) {
			out->low = (int)i;
			out->low_rate = rates[i];
		}
	out->unsteady = out->cv_over || out->low >= 0;
}

size_t window_shape_why(const struct window_shape *s, double max_cv, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (s->cv_over)
		off += (size_t)snprintf(buf, len, "cv %.1f%% above %g%%", s->cv, max_cv);
	if (s->low >= 0 && off < len)
		off += (size_t)snprintf(buf + off, len - off,
					"%ssecond %d at %.*f GB/s, under %s the median %.*f GB/s",
					off ? "; " : "", s->low + 1,
					report_decimals(s->low_rate * 1e-9, 2), s->low_rate * 1e-9,
					WINDOW_LOW_FRACTION == 0.5 ? "half" : "a fraction of",
					report_decimals(s->median * 1e-9, 2), s->median * 1e-9);
	return off < len ? off : len - 1;
}

/* ---- live lines ---------------------------------------------------------------------- */

void live_print(FILE *out, double at, bool gbits, const struct live_value *v, int n,
		const char *note)
{
	double scale = gbits ? 8e-9 : 1e-9;
	int i;

	fprintf(out, "[%7.1fs]", at);
	for (i = 0; i < n; i++) {
		if (isfinite(v[i].bytes_per_s))
			fprintf(out, "  %s %.*f", v[i].label,
				report_decimals(v[i].bytes_per_s * scale, 2),
				v[i].bytes_per_s * scale);
		else
			fprintf(out, "  %s -", v[i].label);
	}
	if (note)
		fprintf(out, "  %s\n", note);
	else
		fprintf(out, " %s\n", gbits ? "Gb/s" : "GB/s");
	fflush(out);
}
