// SPDX-License-Identifier: MIT
/* gang.c: a gang of readers (see gang.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gang.h"
#include "watchdog.h"

#define GANG_POLL_MS 100
#define GANG_READY 1

/* Read until stop: the caller's chunk work, then count and give the slot back. */
static void worker_read(struct gang_worker *w, struct reader *rd)
{
	struct reader_gang *g = w->g;
	struct reader_chunk c;
	int rc;

	while (!atomic_load_explicit(&g->stop, memory_order_relaxed)) {
		rc = reader_next(rd, &c, GANG_POLL_MS);
		if (rc == -ETIMEDOUT)
			continue;
		if (rc) {
			if (g->ops->read_failed)
				g->ops->read_failed(w, rc, g->ctx);
			gang_fail(w, rc, "read at offset %llu", (unsigned long long)c.offset);
			return;
		}
		pthread_mutex_lock(&w->mark);
		if (g->ops->chunk)
			g->ops->chunk(w, &c, g->ctx);
		atomic_fetch_add_explicit(&w->bytes, c.len, memory_order_relaxed);
		atomic_fetch_add_explicit(&w->ios, 1, memory_order_relaxed);
		pthread_mutex_unlock(&w->mark);
		reader_release(rd, c.slot);
	}
}

static void *worker_main(void *arg)
{
	struct gang_worker *w = arg;
	struct reader_gang *g = w->g;
	struct reader rd;
	void *buf = NULL;
	int rc = g->ops->setup(w, &rd, &buf, g->ctx);

	/* Set up (or failed): wait for the caller to release everyone at once. */
	if (line_pass(&g->line, GANG_READY) && !rc)
		worker_read(w, &rd);
	/* Reads the device never answered may still land in buf: then it is kept. */
	if (!rc && reader_close(&rd))
		buf = NULL;
	if (g->ops->teardown)
		g->ops->teardown(w, buf, g->ctx);
	return NULL;
}

int gang_plan(struct reader_gang *g, struct target *const *t, int nt, unsigned threads,
	      const struct gang_ops *ops, void *ctx)
{
	struct region *regs = calloc(threads ? threads : 1, sizeof(*regs));
	int i, k;

	memset(g, 0, sizeof(*g));
	g->ops = ops;
	g->ctx = ctx;
	g->nt = nt;
	g->nw = nt * (int)threads;
	g->w = calloc((size_t)g->nw + 1, sizeof(*g->w));
	if (!g->w || !regs) {
		free(regs);
		return -ENOMEM;
	}
	for (i = 0; i < nt; i++) {
		target_regions(t[i], threads, regs);
		for (k = 0; k < (int)threads; k++) {
			struct gang_worker *w = &g->w[i * (int)threads + k];

			w->g = g;
			w->t = t[i];
			w->tindex = i;
			w->index = (unsigned)(i * (int)threads + k);
			w->reg = regs[k];
			w->mark = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
		}
	}
	free(regs);
	line_init(&g->line);
	return 0;
}

int gang_start(struct reader_gang *g, int *err)
{
	*err = 0;
	for (g->started = 0; g->started < g->nw; g->started++) {
		*err = pthread_create(&g->w[g->started].tid, NULL, worker_main, &g->w[g->started]);
		if (*err)
			break;
	}
	return g->started;
}

int gang_gather(struct reader_gang *g)
{
	return line_gather(&g->line, GANG_READY, (unsigned)g->started);
}

void gang_open(struct reader_gang *g)
{
	line_open(&g->line, GANG_READY);
}

void gang_stop(struct reader_gang *g)
{
	int i;

	if (!g->w)
		return;
	line_abort(&g->line);
	atomic_store(&g->stop, true);
	for (i = 0; i < g->started; i++) {
		nbw_watchdog_phase("the end of a phase: waiting for reader %d of %d's last read", i,
				   g->started);
		pthread_join(g->w[i].tid, NULL);
	}
	g->nw = g->started; /* those that never started count nothing */
	g->started = 0;
}

/*
 * Sum every worker's counters per target; with mark, each under its lock
 * and its in_window set to in_window (gang_mark()).
 */
static void gang_sum(struct reader_gang *g, bool mark, bool in_window, uint64_t *bytes,
		     uint64_t *ios)
{
	int i;

	memset(bytes, 0, sizeof(*bytes) * (size_t)(g->nt ? g->nt : 1));
	if (ios)
		memset(ios, 0, sizeof(*ios) * (size_t)(g->nt ? g->nt : 1));
	for (i = 0; i < g->nw; i++) {
		struct gang_worker *w = &g->w[i];

		if (mark) {
			pthread_mutex_lock(&w->mark);
			w->in_window = in_window;
		}
		bytes[w->tindex] += atomic_load_explicit(&w->bytes, memory_order_relaxed);
		if (ios)
			ios[w->tindex] += atomic_load_explicit(&w->ios, memory_order_relaxed);
		if (mark)
			pthread_mutex_unlock(&w->mark);
	}
}

void gang_count(const struct reader_gang *g, uint64_t *bytes, uint64_t *ios)
{
	gang_sum((struct reader_gang *)g, false, false, bytes, ios);
}

void gang_mark(struct reader_gang *g, bool in_window, uint64_t *bytes, uint64_t *ios)
{
	gang_sum(g, true, in_window, bytes, ios);
}

const struct gang_worker *gang_fault(const struct reader_gang *g)
{
	int i;

	for (i = 0; i < g->nw; i++)
		if (g->w[i].fault.err)
			return &g->w[i];
	return NULL;
}

bool gang_failed(const struct reader_gang *g)
{
	return atomic_load(&((struct reader_gang *)g)->failed);
}

void gang_free(struct reader_gang *g)
{
	if (g->w)
		line_destroy(&g->line);
	free(g->w);
	g->w = NULL;
	g->nw = 0;
}
