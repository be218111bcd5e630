// SPDX-License-Identifier: MIT
/*
 * source/workers.c: the source's workers. The plan (QPs per drive, each a
 * region of its drive, or --source mem's QPs), each worker's rail from the
 * sink's advertised ports, its registered staging slots, the chunk supplies
 * of the posting loop (O_DIRECT reads or memory filled once) and the worker
 * thread: prepare, write its canary, pass the start line, post until the
 * window ends. Below talk.c and run.c (state.h).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire_conv.h"
#include "ctrl_auth.h"
#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "result.h"
#include "validity.h"
#include "rails.h"
#include "remote.h"
#include "target.h"
#include "timing.h"
#include "waits.h"
#include "watchdog.h"
#include "window.h"
#include "state.h"

const char *sworker_name(const struct sworker *w, char *buf, size_t len)
{
	snprintf(buf, len, "worker %u (%s via %s:%u)", w->index,
		 w->tindex >= 0 ? w->s->t[w->tindex].d.path : "memory",
		 w->port ? w->port->dev : "?", w->port ? w->port->port : 0);
	return buf;
}

/* ---- chunk supplies for the posting loop -------------------------------------- */

static int disk_next(void *ctx, struct write_item *it)
{
	struct sworker *w = ctx;
	struct reader_chunk c;
	/*
	 * An engine that waits for completions (io_uring) keeps every free slot
	 * reading and waits briefly, so that the posting loop goes back to reaping
	 * WRITE completions (which free slots for the next reads) without stalling
	 * on the drive; psync blocks in pread and takes no timeout.
	 */
	int rc = reader_next(&w->rd, &c, 1);

	if (rc == -ETIMEDOUT)
		return -EAGAIN;
	if (rc == -EAGAIN)
		return rc;
	if (rc) {
		char at[64];

		snprintf(at, sizeof(at), "%llu", (unsigned long long)c.offset);
		wfail(w, rc, "read at offset %s failed", at);
		return rc;
	}
	*it = (struct write_item){.slot = c.slot, .buf = c.buf, .len = c.len, .offset = c.offset};
	if (w->table)
		it->digest = digest_add(0, c.offset, c.buf, c.len);
	return 0;
}

static void record(struct sworker *w, const struct write_item *it)
{
	struct ctrl_chunk *e;

	if (!w->table)
		return;
	e = &w->table[it->dst_slot];
	e->worker = w->index;
	e->slot = it->dst_slot;
	e->offset = it->offset;
	e->len = (uint32_t)it->len; /* 0: failed, not vouched for */
	e->digest = it->digest;
}

static void disk_done(void *ctx, const struct write_item *it)
{
	struct sworker *w = ctx;

	record(w, it);
	reader_release(&w->rd, it->slot);
}

static int mem_next(void *ctx, struct write_item *it)
{
	struct sworker *w = ctx;
	const struct options *o = w->s->o;
	unsigned i;

	for (i = 0; i < o->depth; i++) {
		if (w->mem_busy[i])
			continue;
		w->mem_busy[i] = true;
		*it = (struct write_item){
			.slot = i,
			.buf = w->buf + (size_t)i * o->chunk,
			.len = o->chunk,
			.offset = w->reg.start + (uint64_t)i * o->chunk,
			.digest = w->mem_digest[i],
		};
		return 0;
	}
	return -EAGAIN;
}

static void mem_done(void *ctx, const struct write_item *it)
{
	struct sworker *w = ctx;

	record(w, it);
	w->mem_busy[it->slot] = false;
}

/* Memory source: every 8-byte word names its worker and offset. */
static void mem_fill(struct sworker *w)
{
	const struct options *o = w->s->o;
	uint64_t *p = (uint64_t *)w->buf;
	size_t i, n = w->buflen / 8;
	unsigned k;

	for (i = 0; i < n; i++)
		p[i] = 0x4dULL << 56 | (uint64_t)w->index << 40 | (w->reg.start + i * 8);
	for (k = 0; k < o->depth; k++)
		w->mem_digest[k] = digest_add(0, w->reg.start + (uint64_t)k * o->chunk,
					      w->buf + (size_t)k * o->chunk, o->chunk);
}

/* ---- a worker ------------------------------------------------------------------- */

/* The staging slots: read from the drive (a reader) or filled once (memory). */
static int worker_slots(struct sworker *w)
{
	struct source *s = w->s;
	const struct options *o = s->o;
	struct target *t;
	int rc;

	if (w->tindex < 0) {
		w->mem_busy = calloc(o->depth, sizeof(bool));
		w->mem_digest = calloc(o->depth, sizeof(uint64_t));
		if (!w->mem_busy || !w->mem_digest) {
			wfail(w, -ENOMEM, "%s", "out of memory");
			return -ENOMEM;
		}
		mem_fill(w);
		return 0;
	}
	t = &s->t[w->tindex];
	rc = reader_open(&w->rd, t->fd, o->engine, o->depth, o->chunk, t->d.lbs, t->d.size, w->reg,
			 w->buf);
	if (rc) {
		wfail(w, rc, "set up the reader: %s", strerror(-rc));
		return rc;
	}
	w->rd_open = true;
	return 0;
}

static int worker_setup(struct sworker *w)
{
	struct source *s = w->s;
	const struct options *o = s->o;
	struct fab_hello h = {.session = s->session, .worker = w->index};
	int rc, lock_errno;

	if (w->tindex >= 0) {
		rc = placement_pin_self(
			placement_policy_node(PLACEMENT_AUTO, s->t[w->tindex].d.numa_node));
		if (rc) {
			wfail(w, rc, "pin to NUMA node: %s", strerror(-rc));
			return rc;
		}
	}
	w->buflen = (size_t)o->chunk * o->depth;
	rc = buffer_alloc_locked(w->buflen, 4096, (void **)&w->buf, &lock_errno);
	if (rc) {
		w->buf = NULL;
		wfail(w, rc, "%s (raise 'ulimit -l')",
		      lock_errno ? "cannot lock the staging buffer"
				 : "cannot allocate the staging buffer");
		return rc;
	}
	rc = worker_slots(w);
	if (rc)
		return rc;
	if (o->conn == CTRL_CONN_VERBS) {
		rc = fab_qp_open(&w->conn, w->port, o->depth, w->buf, w->buflen, false,
				 &w->qp_local);
		if (rc)
			wfail(w, rc, "QP on %s:%u: %s", w->port->dev, w->port->port, w->conn.why);
		return rc;
	}
	rc = fab_conn_connect(&w->conn, w->port->addr, s->acc.ports[w->sink_port].addr, o->port, &h,
			      o->depth, w->buf, w->buflen, &o->lo, wait_ms(o, WAIT_RDMA));
	if (rc)
		wfail(w, rc, "RDMA connection: %s", w->conn.why);
	return rc;
}

/* Give a slot back to where it came from. */
static void slot_return(struct sworker *w, unsigned slot)
{
	if (w->tindex >= 0)
		reader_release(&w->rd, slot);
	else
		w->mem_busy[slot] = false;
}

/* Read (or take) one real chunk, hash it, write it to slot 0 of the slice. */
static int worker_canary(struct sworker *w, const struct chunk_supply *sup)
{
	const struct options *o = w->s->o;
	uint64_t deadline = nbw_now_ns() + wait_ns(o, WAIT_CANARY_READ);
	struct write_item it;
	int rc;

	/* The first chunk: a drive that does not answer within --timeout fails the worker. */
	while ((rc = sup->next(sup->ctx, &it)) == -EAGAIN) {
		if (line_aborted(&w->s->line))
			return -ECANCELED;
		if (nbw_now_ns() >= deadline) {
			wfail(w, -ETIMEDOUT, "no chunk read for the canary within %g s (--timeout)",
			      wait_s(o, WAIT_CANARY_READ));
			return -ETIMEDOUT;
		}
	}
	if (rc)
		return rc;
	w->canary = (struct ctrl_chunk){
		.worker = w->index, .slot = 0, .offset = it.offset, .len = (uint32_t)it.len};
	w->canary.digest = digest_add(0, it.offset, it.buf, it.len);
	if (o->source.corrupt_canary)
		((unsigned char *)it.buf)[it.len / 2] ^= 0x5a;
	rc = fab_write_one(&w->wr, it.buf, it.len, 0, wait_ms(o, WAIT_CANARY_WRITE));
	if (o->source.corrupt_canary)
		((unsigned char *)it.buf)[it.len / 2] ^= 0x5a;
	slot_return(w, it.slot); /* not a ring chunk: nothing to record */
	if (rc)
		wfail(w, rc, "canary WRITE: %s", w->wr.why);
	return rc;
}

/* Between line 1 and line 2: the writer on the slice, the table, the canary. */
static int worker_prepare(struct sworker *w, const struct chunk_supply *sup)
{
	const struct options *o = w->s->o;
	uint32_t slots = (uint32_t)(w->slice.len / o->chunk);
	int rc;

	if (o->conn == CTRL_CONN_VERBS) {
		struct fab_qp_attr remote = conv_qp_from_wire(&w->slice.qp);

		rc = fab_qp_connect(&w->conn, w->port, &w->qp_local, &remote, &o->lo);
		if (rc) {
			wfail(w, rc, "connect the QP: %s", w->conn.why);
			return rc;
		}
	}
	w->ring = slots;
	if (o->verify == CTRL_VERIFY_FULL && slots > FULL_RING_MAX + 1)
		w->ring = FULL_RING_MAX + 1;
	rc = fab_writer_init(&w->wr, &w->conn, w->slice.addr, w->slice.rkey, w->ring, o->chunk,
			     o->depth);
	if (rc) {
		wfail(w, rc, "%s", "bad slice");
		return rc;
	}
	w->wr_init = true;
	w->wr.lat = w->lat;
	w->wr.lat_on = &w->s->lat_on;
	if (o->verify == CTRL_VERIFY_FULL) {
		w->table = calloc(w->ring, sizeof(*w->table));
		if (!w->table) {
			wfail(w, -ENOMEM, "%s", "out of memory");
			return -ENOMEM;
		}
	}
	return o->verify != CTRL_VERIFY_OFF ? worker_canary(w, sup) : 0;
}

void *sworker_main(void *arg)
{
	struct sworker *w = arg;
	struct source *s = w->s;
	struct chunk_supply sup = {
		.next = w->tindex >= 0 ? disk_next : mem_next,
		.done = w->tindex >= 0 ? disk_done : mem_done,
		.ctx = w,
	};
	int rc = worker_setup(w);

	/* Connected (or failed): the main thread receives the slices, then opens. */
	if (!line_pass(&s->line, LINE_CONNECTED))
		goto out;
	if (!rc)
		rc = worker_prepare(w, &sup);
	/* Canary written (or failed): the main thread reports it and waits for START. */
	if (!line_pass(&s->line, LINE_CANARY))
		goto out;
	if (!rc) {
		rc = fab_write_loop(&w->wr, &sup, &s->stop, &w->bytes, wait_ms(s->o, WAIT_DRAIN),
				    wait_ms(s->o, WAIT_DRAIN_ALL));
		if (rc && !w->fault.err)
			wfail(w, rc, "%s", w->wr.why);
	}
out:
	/* The reader closes in the thread that opened it (reader_close()). */
	if (w->rd_open) {
		w->rd_busy = reader_close(&w->rd) != 0;
		w->rd_open = false;
	}
	atomic_fetch_add(&s->finished, 1);
	return NULL;
}

uint64_t source_bytes_sum(const uint64_t *v, uint32_t n)
{
	uint64_t t = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		t += v[i];
	return t;
}

/* Drive workers: QPs per drive, each a region of its drive. */
static void plan_drive_workers(struct source *s, struct region *regs)
{
	uint32_t k = 0;
	int i, j;

	for (i = 0; i < s->nt; i++) {
		target_regions(&s->t[i], s->o->threads, regs);
		for (j = 0; j < (int)s->o->threads; j++, k++)
			s->w[k] = (struct sworker){.s = s, .index = k, .tindex = i, .reg = regs[j]};
	}
}

/* The rail of every worker, from the sink's advertised ports; the rails' table. */
int source_assign_rails(struct source *s)
{
	const struct source_options *so = &s->o->source;
	struct rail_pick *pick = calloc(s->nw, sizeof(*pick));
	int *nodes = calloc(s->nw, sizeof(int));
	uint64_t *masks = calloc(s->nw, sizeof(uint64_t));
	char why[256];
	uint32_t i;
	int rc = -ENOMEM;

	if (so->feed == CTRL_SOURCE_DISK && s->nt > 0) {
		affinity_plan(s->o->cc.sysfs_root, so->rail_affinity_given,
			      (enum rail_affinity)so->rail_affinity, s->ports, s->nports, s->t,
			      s->nt, &s->aff);
		s->have_aff = true;
	}
	if (pick && nodes && masks) {
		for (i = 0; i < s->nw; i++) {
			int d = s->w[i].tindex;

			nodes[i] = d >= 0 ? s->t[d].d.numa_node : -1;
			masks[i] = d >= 0 && s->have_aff ? s->aff.mask[d] : 0;
		}
		rc = rails_assign(s->ports, s->nports, s->acc.ports, (int)s->acc.nports,
				  s->o->conn == CTRL_CONN_CM, nodes, masks, s->nw, pick, why,
				  sizeof(why));
	}
	free(masks);
	for (i = 0; !rc && i < s->nw; i++) {
		s->w[i].port = &s->ports[pick[i].src];
		s->w[i].sink_port = pick[i].sink;
	}
	free(pick);
	free(nodes);
	if (rc == -ENOMEM)
		return source_fail(s, "out of memory");
	if (rc)
		return source_fail(s, "%s: %s", s->o->source.peer, why);
	return 0;
}

/* Each drive's seconds and health log. 0 or -ENOMEM. */
static int drive_samples(struct source *s)
{
	int k;

	for (k = 0; k < s->nt; k++) {
		if (samples_init(&s->dsec[k], s->o->cc.duration, 1.0))
			return -ENOMEM;
		health_watch_init(&s->health[k], &s->t[k].d, s->o->cc.sysfs_root);
	}
	return 0;
}

int source_plan_workers(struct source *s)
{
	const struct options *o = s->o;
	struct region *regs;
	uint32_t k;

	s->nw = o->source.feed == CTRL_SOURCE_MEM ? o->source.qps : (uint32_t)s->nt * o->threads;
	if (s->nw > MAX_WORKERS) {
		return nbw_usage_err("%u workers: at most %u", s->nw, MAX_WORKERS);
	}
	s->w = calloc(s->nw, sizeof(*s->w));
	/* wstart, wend, lprev and the workers' counts of a sample */
	s->wstart = calloc(4 * (size_t)s->nw, sizeof(uint64_t));
	s->dr = calloc((size_t)s->nt + 1, sizeof(*s->dr));
	s->dsec = calloc((size_t)s->nt + 1, sizeof(*s->dsec));
	s->health = calloc((size_t)s->nt + 1, sizeof(*s->health));
	regs = calloc(o->threads, sizeof(*regs));
	if (!s->w || !s->wstart || !s->dr || !s->dsec || !s->health || !regs ||
	    samples_init(&s->rdma_samples, o->cc.duration, 1.0) || drive_samples(s)) {
		free(regs);
		return source_fail(s, "out of memory");
	}
	s->wend = s->wstart + s->nw;
	s->lprev = s->wend + s->nw;
	if (o->source.feed == CTRL_SOURCE_DISK) {
		plan_drive_workers(s, regs);
	} else {
		for (k = 0; k < s->nw; k++) {
			s->w[k] = (struct sworker){.s = s, .index = k, .tindex = -1};
			s->w[k].reg.start = (uint64_t)k * o->depth * o->chunk;
			s->w[k].reg.len = (uint64_t)o->depth * o->chunk;
		}
	}
	free(regs);
	for (k = 0; o->source.latency && k < s->nw; k++) {
		s->w[k].lat = calloc(1, sizeof(*s->w[k].lat));
		if (!s->w[k].lat)
			return source_fail(s, "out of memory");
	}
	return 0;
}
