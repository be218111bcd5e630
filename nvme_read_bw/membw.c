// SPDX-License-Identifier: MIT
/*
 * membw.c: the staging memory's bandwidth as the tools use it. Each thread
 * runs on the buffers' NUMA node and owns one buffer of the tools' size;
 * chunk by chunk it writes every byte once (the drive's DMA into staging)
 * and reads it back once (the NIC's read out of staging), so a staged byte
 * crosses DRAM twice. Only chunks finished inside the window count.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "membw.h"
#include "nbw.h"
#include "placement.h"
#include "signals.h"
#include "timing.h"

struct membw_thread {
	const struct membw_params *p;
	pthread_t tid;
	atomic_uint_fast64_t staged; /* chunks written and read back, in bytes */
	atomic_bool *stop;
	int rc, lock_errno;
	volatile uint64_t sink; /* the reads' sum, so that they are not optimised away */
};

/* One chunk: written as the drive's DMA does, then read as the NIC does. */
static uint64_t stage_chunk(uint64_t *c, size_t words, uint64_t pass)
{
	uint64_t sum = 0;
	size_t i;

	memset(c, (int)(pass & 0xff), words * sizeof(*c));
	for (i = 0; i < words; i++)
		sum += c[i];
	return sum;
}

static void *membw_worker(void *arg)
{
	struct membw_thread *t = arg;
	const struct membw_params *p = t->p;
	size_t words = p->chunk / sizeof(uint64_t), nchunks = p->buf_bytes / p->chunk, k;
	uint64_t pass = 1, sum = 0;
	void *buf = NULL;

	t->rc = placement_pin_self(p->node);
	if (!t->rc)
		t->rc = buffer_alloc(p->buf_bytes, 4096, p->lock, &buf, &t->lock_errno);
	if (t->rc) {
		atomic_store(t->stop, true);
		return NULL;
	}
	while (!atomic_load_explicit(t->stop, memory_order_relaxed)) {
		for (k = 0; k < nchunks; k++) {
			sum += stage_chunk((uint64_t *)buf + k * words, words, pass);
			atomic_fetch_add_explicit(&t->staged, p->chunk, memory_order_relaxed);
		}
		pass++;
	}
	t->sink = sum;
	buffer_free_locked(buf, p->buf_bytes);
	return NULL;
}

static uint64_t staged_now(struct membw_thread *t, unsigned n)
{
	uint64_t s = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		s += atomic_load(&t[i].staged);
	return s;
}

/* Wait until deadline (or a stop): false when the stream must end early. */
static bool membw_wait(uint64_t deadline, atomic_bool *stop, bool *interrupted)
{
	uint64_t now;

	while ((now = nbw_now_ns()) < deadline) {
		if (atomic_load(stop))
			return false;
		if (nbw_signal_wait(deadline - now < 100000000 ? deadline - now : 100000000)) {
			*interrupted = true;
			return false;
		}
	}
	return !atomic_load(stop);
}

static int membw_check(const struct membw_params *p, char *err, size_t len)
{
	if (!p->threads || p->chunk < sizeof(uint64_t) || p->chunk % sizeof(uint64_t) ||
	    !p->buf_bytes || p->buf_bytes % p->chunk || p->duration_s <= 0)
		return snprintf(err, len, "memory stream: bad parameters"), -EINVAL;
	return 0;
}

/* The first thread's failure as the reason in err: its -errno. */
static int membw_failed(struct membw_thread *t, unsigned n, char *err, size_t len)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (!t[i].rc)
			continue;
		if (t[i].lock_errno)
			snprintf(err, len,
				 "staging buffers of %zu bytes cannot be locked: %s "
				 "(raise ulimit -l)",
				 t[i].p->buf_bytes, strerror(t[i].lock_errno));
		else
			snprintf(err, len, "memory stream on NUMA node %d: %s", t[i].p->node,
				 strerror(-t[i].rc));
		return t[i].rc;
	}
	return 0;
}

int membw_run(const struct membw_params *p, struct membw_result *res, char *err, size_t len)
{
	struct membw_thread *t;
	atomic_bool stop = false;
	uint64_t t0, b0 = 0, t1;
	unsigned i, started = 0;
	bool ok;
	int rc = membw_check(p, err, len);

	*res = (struct membw_result){0};
	if (rc)
		return rc;
	t = calloc(p->threads, sizeof(*t));
	if (!t)
		return snprintf(err, len, "memory stream: out of memory"), -ENOMEM;
	for (i = 0; i < p->threads; i++, started++) {
		t[i].p = p;
		t[i].stop = &stop;
		if (pthread_create(&t[i].tid, NULL, membw_worker, &t[i])) {
			atomic_store(&stop, true);
			break;
		}
	}
	t0 = nbw_now_ns();
	ok = started == p->threads &&
	     membw_wait(t0 + nbw_s_to_ns(p->warmup_s), &stop, &res->interrupted);
	if (ok) {
		b0 = staged_now(t, started);
		t0 = nbw_now_ns();
		membw_wait(t0 + nbw_s_to_ns(p->duration_s), &stop, &res->interrupted);
		t1 = nbw_now_ns();
		res->staged_bytes = staged_now(t, started) - b0;
		res->seconds = nbw_ns_to_s(t1 - t0);
		res->open_ns = t0;
		res->close_ns = t1;
	}
	atomic_store(&stop, true);
	for (i = 0; i < started; i++)
		pthread_join(t[i].tid, NULL);
	rc = membw_failed(t, started, err, len);
	if (!rc && started < p->threads) {
		snprintf(err, len, "memory stream: cannot start a thread");
		rc = -EAGAIN;
	}
	free(t);
	return rc;
}

double membw_dram_bps(const struct membw_result *res)
{
	return res->seconds > 0 ? 2.0 * (double)res->staged_bytes / res->seconds : 0.0;
}
