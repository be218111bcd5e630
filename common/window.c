// SPDX-License-Identifier: MIT
/* window.c: signals, the start line, the measured window and live lines (see window.h). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>

#include "timing.h"
#include "window.h"

#define TICK_NS (100 * 1000000ULL)

/* ---- signals --------------------------------------------------------------------- */

/* Sticky: once Ctrl-C or SIGTERM came, every later wait returns at once. */
static atomic_bool interrupted;

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

void nbw_signals_init(void)
{
	sigset_t set;

	stop_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool nbw_signal_wait(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / NBW_NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NBW_NSEC_PER_SEC),
	};
	sigset_t set;

	if (atomic_load(&interrupted))
		return true;
	stop_set(&set);
	if (sigtimedwait(&set, NULL, &ts) > 0)
		atomic_store(&interrupted, true);
	return atomic_load(&interrupted);
}

bool nbw_interrupted(void)
{
	return nbw_signal_wait(0);
}

/* ---- the start line ---------------------------------------------------------------- */

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

int line_gather(struct start_line *l, int phase, unsigned n)
{
	int rc = 0;

	pthread_mutex_lock(&l->lock);
	while (l->ready[phase] < n && !rc) {
		uint64_t until = nbw_now_ns() + TICK_NS;
		struct timespec ts = {
			.tv_sec = (time_t)(until / NBW_NSEC_PER_SEC),
			.tv_nsec = (long)(until % NBW_NSEC_PER_SEC),
		};

		pthread_cond_timedwait(&l->cond, &l->lock, &ts);
		if (nbw_interrupted())
			rc = -EINTR;
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
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

/* ---- the window -------------------------------------------------------------------- */

double nbw_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return NAN;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
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

enum window_end window_run(struct window *w)
{
	uint64_t t_end, t_prev, now;
	enum window_end end;

	w->measured = false;
	w->seconds = 0;
	w->stopped_by = 0;
	end = window_wait(w, nbw_now_ns() + nbw_s_to_ns(w->warmup));
	w->end_reason = end;
	if (end != WINDOW_DONE)
		return end;
	w->open_ns = nbw_now_ns();
	w->cpu_s = nbw_cpu_seconds();
	w->snapshot(w->ctx, w->start);
	w->measured = true;
	t_end = w->open_ns + nbw_s_to_ns(w->duration);
	t_prev = w->open_ns;
	for (;;) {
		uint64_t next = t_end;

		if (w->interval > 0 && w->live && t_prev + nbw_s_to_ns(w->interval) < t_end)
			next = t_prev + nbw_s_to_ns(w->interval);
		end = window_wait(w, next);
		now = nbw_now_ns();
		if (end != WINDOW_DONE || now >= t_end)
			break;
		w->live(w->ctx, nbw_ns_to_s(now - w->open_ns), nbw_ns_to_s(now - t_prev));
		t_prev = now;
	}
	w->snapshot(w->ctx, w->end);
	w->seconds = nbw_ns_to_s(now - w->open_ns);
	w->cpu_s = nbw_cpu_seconds() - w->cpu_s;
	if (end == WINDOW_DONE && w->interval > 0 && w->live)
		w->live(w->ctx, w->seconds, nbw_ns_to_s(now - t_prev));
	w->end_reason = end;
	return end;
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
			fprintf(out, "  %s %.2f", v[i].label, v[i].bytes_per_s * scale);
		else
			fprintf(out, "  %s -", v[i].label);
	}
	if (note)
		fprintf(out, "  %s\n", note);
	else
		fprintf(out, " %s\n", gbits ? "Gb/s" : "GB/s");
	fflush(out);
}
