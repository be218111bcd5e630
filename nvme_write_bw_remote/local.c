// SPDX-License-Identifier: MIT
/*
 * local.c: the sink's own drives during a window (see local.h). One reader
 * thread per region of each drive, reading with the suite's reader loop
 * into its chunk of the DRAM's first part and counting what completed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "nbw.h"

/* One local reader thread: a region of one of the sink's own drives. */
struct lreader {
	pthread_t tid;
	bool started;
	struct local *l;
	struct target *t;
	int tindex;
	struct region reg;
	void *buf;
	_Atomic uint64_t bytes;
	int err;
	uint64_t err_offset;
};

static void *lreader_main(void *arg)
{
	struct lreader *lr = arg;
	const struct options *o = lr->l->o;
	struct reader rd;
	struct reader_chunk c;
	int rc;

	rc = reader_open(&rd, lr->t->fd, o->engine, 1, o->chunk, lr->t->d.lbs, lr->t->d.size,
			 lr->reg, lr->buf);
	if (rc) {
		lr->err = rc;
		atomic_store(&lr->l->failed, true);
		return NULL;
	}
	while (!atomic_load_explicit(&lr->l->stop, memory_order_relaxed)) {
		rc = reader_next(&rd, &c, 100);
		if (rc == -ETIMEDOUT)
			continue;
		if (rc) {
			lr->err = rc;
			lr->err_offset = c.offset;
			atomic_store(&lr->l->failed, true);
			break;
		}
		atomic_fetch_add_explicit(&lr->bytes, c.len, memory_order_relaxed);
		reader_release(&rd, c.slot);
	}
	reader_close(&rd);
	return NULL;
}

int local_open(struct local *l, const struct options *o, bool drives)
{
	struct target_query q = {.option = "--local-disks", .required = o->disks != NULL};
	int rc;

	l->o = o;
	if (drives && !o->no_local) {
		rc = remote_targets(o, &q, l->t, &l->nt);
		if (rc)
			return rc;
	}
	if (samples_init(&l->lsamples, o->cc.duration, 1.0))
		return -ENOMEM;
	/* One block: the counters at the window's open, at its close, at the last live line. */
	l->lstart = calloc(3 * ((size_t)l->nt + 1), sizeof(uint64_t));
	if (!l->lstart)
		return -ENOMEM;
	l->lend = l->lstart + l->nt + 1;
	l->lprev = l->lend + l->nt + 1;
	return 0;
}

/* Plan one reader per region of each local drive, each with its chunk of buf. */
static int local_plan(struct local *l, unsigned char *buf)
{
	const struct options *o = l->o;
	struct region *regs = calloc(o->threads, sizeof(*regs));
	int i, j, n = 0;

	l->nlr = l->nt * (int)o->threads;
	l->lr = calloc((size_t)l->nlr + 1, sizeof(*l->lr));
	if (!l->lr || !regs) {
		free(regs);
		return -ENOMEM;
	}
	for (i = 0; i < l->nt; i++) {
		target_regions(&l->t[i], o->threads, regs);
		for (j = 0; j < (int)o->threads; j++, n++) {
			struct lreader *lr = &l->lr[n];

			lr->l = l;
			lr->t = &l->t[i];
			lr->tindex = i;
			lr->reg = regs[j];
			lr->buf = buf + (uint64_t)n * o->chunk;
		}
	}
	free(regs);
	return 0;
}

int local_start(struct local *l, unsigned char *buf)
{
	int n, rc = local_plan(l, buf);

	for (n = 0; !rc && n < l->nlr; n++) {
		int err = pthread_create(&l->lr[n].tid, NULL, lreader_main, &l->lr[n]);

		if (err)
			return -err;
		l->lr[n].started = true;
	}
	return rc;
}

void local_stop(struct local *l)
{
	int i;

	atomic_store(&l->stop, true);
	for (i = 0; i < l->nlr; i++)
		if (l->lr[i].started)
			pthread_join(l->lr[i].tid, NULL);
}

void local_count(const struct local *l, uint64_t *out)
{
	int i;

	memset(out, 0, sizeof(*out) * (size_t)(l->nt ? l->nt : 1));
	for (i = 0; i < l->nlr; i++)
		out[l->lr[i].tindex] += atomic_load_explicit(&l->lr[i].bytes, memory_order_relaxed);
}

uint64_t local_sum(const struct local *l, const uint64_t *per_drive)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < l->nt; i++)
		t += per_drive[i];
	return t;
}

bool local_snapshot(struct local *l, uint64_t *out)
{
	local_count(l, out);
	if (out != l->lstart)
		return false;
	/* The window opens: live lines and samples count from here. */
	memcpy(l->lprev, out, sizeof(*out) * (size_t)(l->nt ? l->nt : 1));
	samples_add(&l->lsamples, local_sum(l, out), 0, 1.0);
	return true;
}

void local_sample(struct local *l, double at)
{
	uint64_t cur[TARGET_MAX + 1] = {0};

	local_count(l, cur);
	samples_add(&l->lsamples, local_sum(l, cur), at, 1.0);
}

bool local_failed(const struct local *l)
{
	return atomic_load(&((struct local *)l)->failed);
}

void local_fault(const struct local *l, char *why, size_t len)
{
	int i;

	for (i = 0; i < l->nlr && !l->lr[i].err; i++)
		;
	if (i == l->nlr) {
		snprintf(why, len, "a local reader failed");
		return;
	}
	snprintf(why, len, "%s: read at offset %llu: %s", l->lr[i].t->d.path,
		 (unsigned long long)l->lr[i].err_offset, strerror(-l->lr[i].err));
}

void local_zero(struct local *l)
{
	memset(l->lend, 0, sizeof(uint64_t) * (size_t)(l->nt ? l->nt : 1));
	memset(l->lstart, 0, sizeof(uint64_t) * (size_t)(l->nt ? l->nt : 1));
}

void local_close(struct local *l)
{
	target_close(l->t, l->nt);
	free(l->lr);
	free(l->lstart); /* and lend, lprev */
	samples_free(&l->lsamples);
	memset(l, 0, sizeof(*l));
}
