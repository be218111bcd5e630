// SPDX-License-Identifier: MIT
/*
 * source.c: the sending side of nvme_write_bw_remote. Per drive, --threads
 * workers, each with its own RC QP on an ACTIVE port NUMA-local to the drive,
 * its own --depth registered staging slots read with O_DIRECT (or filled
 * once, --source mem) and the posting loop of common/rdma.c keeping that many
 * RDMA WRITEs in flight into its slice of the sink's DRAM.
 *
 * The run: source_setup -> handshake -> start the workers -> line 1 (all
 * connected) -> SLICES -> line 2 (canaries written) -> CANARY, START ->
 * source_window -> RESULT (VERIFY) -> DONE -> the result (result.h) -> source_close.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conv.h"
#include "ctrl_auth.h"
#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "result.h"
#include "streams.h"
#include "rails.h"
#include "remote.h"
#include "target.h"
#include "timing.h"
#include "watchdog.h"
#include "window.h"

#define FULL_RING_MAX 1024 /* slice slots used with --verify full (bounds the table) */

/* The start line's phases: workers connected, canaries written. */
enum { LINE_CONNECTED = 1, LINE_CANARY = 2 };

/* Why the window was cut short (source_check()). */
enum source_stop {
	SOURCE_RUNNING = 0,
	SOURCE_WORKER_FAILED, /* a worker failed (read, WRITE, connection) */
	SOURCE_SINK_SPOKE,    /* the sink spoke, went away, or the heartbeat could not go */
};

struct source;

struct sworker {
	pthread_t tid;
	bool started;
	struct source *s;
	uint32_t index;
	int tindex; /* drive, -1 for memory */
	struct region reg;
	const struct fab_port *port; /* this side's port of the worker's rail */
	int sink_port;		     /* index into the sink's advertised ports */
	struct fab_qp_attr qp_local; /* verbs mode: our QP, told to the sink */
	unsigned char *buf;
	size_t buflen;
	struct reader rd;
	bool rd_open;
	bool *mem_busy;
	uint64_t *mem_digest;
	struct fab_conn conn;
	struct fab_writer wr;
	bool wr_init;
	struct ctrl_slice slice;
	_Atomic uint64_t bytes;
	struct ctrl_chunk canary;
	struct ctrl_chunk *table; /* --verify full: last chunk per slice slot */
	uint32_t ring;		  /* slice slots the writer uses */
	struct reader_fault fault;
};

struct source {
	const struct options *o;
	struct meeting *sync; /* --bidir: this node's sink's (the run state), else NULL */
	struct target t[TARGET_MAX];
	int nt;
	struct fab_port ports[FAB_MAX_PORTS];
	int nports;
	struct ctrl_accept acc; /* the sink's session and ports */
	struct rail rails[CTRL_MAX_RAILS];
	int nrails;
	struct sworker *w;
	uint32_t nw, started;
	int cfd;
	bool may_retry; /* a reset before ACCEPT may be the door's: connect again */
	bool again;	/* it happened: the handshake starts over */
	uint64_t session;
	struct start_line line;
	bool line_ready;
	atomic_bool stop;
	atomic_bool failed;
	atomic_uint finished; /* worker threads that returned */
	uint64_t *wstart, *wend;
	uint64_t *lprev;	     /* --interval: counters at the previous live line */
	struct samples rdma_samples; /* per second of the window: the RDMA stream's steadiness */
	struct ctrl_drive *dr;	     /* per drive: what the window counted */
	/* Heartbeat to the sink (PROGRESS), from START until RESULT. */
	struct window *win;
	uint64_t t_start, t_window, hb_period, hb_next;
	double seconds;
	double cpu_s; /* this process, user + system, inside the window */
	enum verdict verdict;
	char failure[CTRL_MAX_STR + 256]; /* why the run failed ("" = it did not) */
	struct result *x;		  /* told the live lines */
};

#define wfail(w, rc, ...) reader_fail(&(w)->fault, &(w)->s->failed, (rc), __VA_ARGS__)

/* The run failed: say why here and keep it for the report. Returns 1. */
#define source_fail(s, ...) nbw_fail((s)->failure, sizeof((s)->failure), __VA_ARGS__)

/* Tell the sink why this side stops (best effort). Returns 1. */
static int tell_sink(struct source *s, const char *msg)
{
	struct ctrl_buf b;

	if (s->cfd >= 0)
		ctrl_send_free(s->cfd, &b, ctrl_encode_error(&b, msg), 1000);
	return NBW_EXIT_FAIL;
}

static const char *wname(const struct sworker *w, char *buf, size_t len)
{
	snprintf(buf, len, "worker %u (%s via %s:%u)", w->index,
		 w->tindex >= 0 ? w->s->t[w->tindex].d.path : "memory",
		 w->port ? w->port->dev : "?", w->port ? w->port->port : 0);
	return buf;
}

/* ---- chunk sources for the posting loop --------------------------------------- */

static int disk_next(void *ctx, struct write_item *it)
{
	struct sworker *w = ctx;
	struct reader_chunk c;
	/*
	 * psync blocks in pread; io_uring keeps every free slot reading and waits
	 * briefly, so that the posting loop goes back to reaping WRITE completions
	 * (which free slots for the next reads) without stalling on the drive.
	 */
	int rc = reader_next(&w->rd, &c, w->s->o->engine == ENGINE_IO_URING ? 1 : 100);

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
			      o->depth, w->buf, w->buflen, &o->lo, remote_timeout_ms(o));
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
static int worker_canary(struct sworker *w, const struct write_source *src)
{
	const struct options *o = w->s->o;
	uint64_t deadline = nbw_now_ns() + nbw_s_to_ns(o->timeout);
	struct write_item it;
	int rc;

	/* The first chunk: a drive that does not answer within --timeout fails the worker. */
	while ((rc = src->next(src->ctx, &it)) == -EAGAIN) {
		if (line_aborted(&w->s->line))
			return -ECANCELED;
		if (nbw_now_ns() >= deadline) {
			wfail(w, -ETIMEDOUT, "no chunk read for the canary within %g s (--timeout)",
			      o->timeout);
			return -ETIMEDOUT;
		}
	}
	if (rc)
		return rc;
	w->canary = (struct ctrl_chunk){
		.worker = w->index, .slot = 0, .offset = it.offset, .len = (uint32_t)it.len};
	w->canary.digest = digest_add(0, it.offset, it.buf, it.len);
	if (o->corrupt_canary)
		((unsigned char *)it.buf)[it.len / 2] ^= 0x5a;
	rc = fab_write_one(&w->wr, it.buf, it.len, 0, remote_timeout_ms(o));
	if (o->corrupt_canary)
		((unsigned char *)it.buf)[it.len / 2] ^= 0x5a;
	slot_return(w, it.slot); /* not a ring chunk: nothing to record */
	if (rc)
		wfail(w, rc, "canary WRITE: %s", w->wr.why);
	return rc;
}

/* Between line 1 and line 2: the writer on the slice, the table, the canary. */
static int worker_prepare(struct sworker *w, const struct write_source *src)
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
	if (o->verify == CTRL_VERIFY_FULL) {
		w->table = calloc(w->ring, sizeof(*w->table));
		if (!w->table) {
			wfail(w, -ENOMEM, "%s", "out of memory");
			return -ENOMEM;
		}
	}
	return o->verify != CTRL_VERIFY_OFF ? worker_canary(w, src) : 0;
}

static void *worker_main(void *arg)
{
	struct sworker *w = arg;
	struct source *s = w->s;
	struct write_source src = {
		.next = w->tindex >= 0 ? disk_next : mem_next,
		.done = w->tindex >= 0 ? disk_done : mem_done,
		.ctx = w,
	};
	int rc = worker_setup(w);

	/* Connected (or failed): the main thread receives the slices, then opens. */
	if (!line_pass(&s->line, LINE_CONNECTED))
		goto out;
	if (!rc)
		rc = worker_prepare(w, &src);
	/* Canary written (or failed): the main thread reports it and waits for START. */
	if (!line_pass(&s->line, LINE_CANARY))
		goto out;
	if (!rc) {
		rc = fab_write_loop(&w->wr, &src, &s->stop, &w->bytes, remote_timeout_ms(s->o));
		if (rc && !w->fault.err)
			wfail(w, rc, "%s", w->wr.why);
	}
out:
	atomic_fetch_add(&s->finished, 1);
	return NULL;
}

/* ---- the window ------------------------------------------------------------------ */

static uint64_t bytes_sum(const uint64_t *v, uint32_t n)
{
	uint64_t t = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		t += v[i];
	return t;
}

static void snapshot(void *ctx, uint64_t *out)
{
	struct source *s = ctx;
	uint32_t i;

	if (out == s->wstart)
		s->t_window = nbw_now_ns();
	for (i = 0; i < s->nw; i++)
		out[i] = atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);
	if (out == s->wstart) {
		memcpy(s->lprev, out, s->nw * sizeof(uint64_t));
		samples_add(&s->rdma_samples, bytes_sum(out, s->nw), 0, 1.0); /* the base */
	}
}

/* What the window counted so far (or in all once it closed) into pr. */
static void progress_window(const struct source *s, uint64_t now, struct ctrl_progress *pr)
{
	uint64_t w0;

	if (!s->win || !s->win->measured)
		return;
	w0 = bytes_sum(s->win->start, s->nw);
	if (s->win->seconds > 0) {
		pr->window_bytes = bytes_sum(s->win->end, s->nw) - w0;
		pr->window_ns = nbw_s_to_ns(s->win->seconds);
	} else {
		pr->window_bytes = pr->bytes - w0;
		pr->window_ns = now - s->t_window;
	}
	if (pr->window_ns > pr->elapsed_ns)
		pr->window_ns = pr->elapsed_ns;
	if (pr->window_bytes > pr->bytes)
		pr->window_bytes = pr->bytes;
}

/* Send a PROGRESS when its period is due. 0 or -errno. */
static int heartbeat(struct source *s)
{
	struct ctrl_progress pr = {0};
	uint64_t now = nbw_now_ns();
	struct ctrl_buf b;
	uint32_t i;

	if (!s->hb_period || now < s->hb_next)
		return 0;
	s->hb_next = now + s->hb_period;
	for (i = 0; i < s->nw; i++)
		pr.bytes += atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);
	pr.elapsed_ns = now - s->t_start;
	progress_window(s, now, &pr);
	return ctrl_send_free(s->cfd, &b, ctrl_encode_progress(&b, &pr), remote_timeout_ms(s->o));
}

static int source_check(void *ctx)
{
	struct source *s = ctx;
	struct pollfd pfd = {.fd = s->cfd, .events = POLLIN};

	if (atomic_load(&s->failed))
		return SOURCE_WORKER_FAILED;
	if (poll(&pfd, 1, 0) == 1)
		return SOURCE_SINK_SPOKE;
	if (heartbeat(s))
		return SOURCE_SINK_SPOKE;
	return SOURCE_RUNNING;
}

/* Every second of the window: the RDMA completions so far, for the stream's variation. */
static void source_sample(void *ctx, double at)
{
	struct source *s = ctx;
	uint64_t cur = 0;
	uint32_t i;

	for (i = 0; i < s->nw; i++)
		cur += atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);
	samples_add(&s->rdma_samples, cur, at, 1.0);
}

/* --interval: this side's RDMA completions per drive (or memory) and in total. */
static void source_live(void *ctx, double at, double secs)
{
	struct source *s = ctx;
	struct live_value v[TARGET_MAX + 1];
	double total = 0;
	uint32_t i;
	int k, n = 0;

	for (k = 0; k < (s->nt ? s->nt : 1); k++) {
		uint64_t d = 0;

		for (i = 0; i < s->nw; i++) {
			uint64_t cur = atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);

			if (s->w[i].tindex != (s->nt ? k : -1))
				continue;
			d += cur - s->lprev[i];
			s->lprev[i] = cur;
		}
		total += (double)d / secs;
		if (s->nt > 1)
			v[n++] = (struct live_value){s->t[k].d.name, (double)d / secs};
	}
	v[n++] = (struct live_value){"rdma", total};
	result_live(s->x, &(struct result_live){at, v, n, NULL});
}

/* ---- the main thread ---------------------------------------------------------------- */

/*
 * After the window: the workers drain what is in flight (bounded by
 * --timeout); keep the heartbeat going meanwhile so that the sink does not
 * take the drain for silence, then join them.
 */
static void join_workers(struct source *s)
{
	uint32_t i;

	while (atomic_load(&s->finished) < s->started) {
		if (s->cfd >= 0 && heartbeat(s))
			s->hb_period = 0; /* the sink is gone: stop talking */
		nbw_sleep_until_ns(nbw_now_ns() + 50000000ULL);
	}
	for (i = 0; i < s->started; i++)
		pthread_join(s->w[i].tid, NULL);
	s->started = 0;
}

static const char *first_failure(struct source *s, char *buf, size_t len)
{
	char n[160];
	uint32_t i;

	for (i = 0; i < s->nw; i++)
		if (s->w[i].fault.err) {
			snprintf(buf, len, "%s: %s", wname(&s->w[i], n, sizeof(n)),
				 s->w[i].fault.why);
			return buf;
		}
	snprintf(buf, len, "a worker failed");
	return buf;
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
static int assign_rails(struct source *s)
{
	struct rail_pick *pick = calloc(s->nw, sizeof(*pick));
	int *nodes = calloc(s->nw, sizeof(int));
	char why[256];
	uint32_t i;
	int rc = -ENOMEM;

	if (pick && nodes) {
		for (i = 0; i < s->nw; i++)
			nodes[i] = s->w[i].tindex >= 0 ? s->t[s->w[i].tindex].d.numa_node : -1;
		rc = rails_assign(s->ports, s->nports, s->acc.ports, (int)s->acc.nports,
				  s->o->conn == CTRL_CONN_CM, nodes, s->nw, pick, why, sizeof(why));
	}
	for (i = 0; !rc && i < s->nw; i++) {
		s->w[i].port = &s->ports[pick[i].src];
		s->w[i].sink_port = pick[i].sink;
	}
	free(pick);
	free(nodes);
	if (rc == -ENOMEM)
		return source_fail(s, "out of memory");
	if (rc)
		return source_fail(s, "%s: %s", s->o->peer, why);
	return 0;
}

static int plan_workers(struct source *s)
{
	const struct options *o = s->o;
	struct region *regs;
	uint32_t k;

	s->nw = o->source == CTRL_SOURCE_MEM ? o->qps : (uint32_t)s->nt * o->threads;
	if (s->nw > MAX_WORKERS) {
		return nbw_usage_err("%u workers: at most %u", s->nw, MAX_WORKERS);
	}
	s->w = calloc(s->nw, sizeof(*s->w));
	s->wstart = calloc(3 * (size_t)s->nw, sizeof(uint64_t)); /* wstart, wend, lprev */
	s->dr = calloc((size_t)s->nt + 1, sizeof(*s->dr));
	regs = calloc(o->threads, sizeof(*regs));
	if (!s->w || !s->wstart || !s->dr || !regs ||
	    samples_init(&s->rdma_samples, o->cc.duration, 1.0)) {
		free(regs);
		return source_fail(s, "out of memory");
	}
	s->wend = s->wstart + s->nw;
	s->lprev = s->wend + s->nw;
	if (o->source == CTRL_SOURCE_DISK) {
		plan_drive_workers(s, regs);
	} else {
		for (k = 0; k < s->nw; k++) {
			s->w[k] = (struct sworker){.s = s, .index = k, .tindex = -1};
			s->w[k].reg.start = (uint64_t)k * o->depth * o->chunk;
			s->w[k].reg.len = (uint64_t)o->depth * o->chunk;
		}
	}
	free(regs);
	return 0;
}

/* Connect the control channel: a sink that is still starting refuses, so retry. */
static int control_connect(struct source *s)
{
	const struct options *o = s->o;
	uint64_t deadline = nbw_now_ns() + nbw_s_to_ns(o->timeout);

	for (;;) {
		uint64_t now = nbw_now_ns();

		s->cfd = ctrl_connect(o->peer, o->port,
				      now < deadline ? (int)((deadline - now) / 1000000) + 1 : 1);
		if (s->cfd != -ECONNREFUSED || nbw_now_ns() + 200000000ULL >= deadline)
			break;
		if (nbw_signal_wait(200000000ULL))
			break;
	}
	if (s->cfd >= 0)
		return 0;
	source_fail(s, "%s port %u: %s", o->peer, o->port, ctrl_strerror(s->cfd));
	s->cfd = -1;
	return NBW_EXIT_FAIL;
}

/* Handshakes before ACCEPT that a reset may end, each starting over (item 4 of issue 22). */
#define HANDSHAKE_TRIES 4

/*
 * A reset before ACCEPT: a busy door may have given our place up to another.
 * True (s->again set, nothing said) when the handshake should start over.
 */
static bool handshake_reset(struct source *s, int rc)
{
	if ((rc != -ECONNRESET && rc != -EPIPE) || !s->may_retry)
		return false;
	s->again = true;
	return true;
}

/* AUTH (ctrl_auth.h): with a key, the sink proved it before any parameter is sent. */
static int authenticate(struct source *s)
{
	char why[CTRL_MAX_STR + 256];
	int rc = ctrl_auth_source(s->cfd, &s->o->key, s->o->peer, remote_timeout_ms(s->o), why,
				  sizeof(why));

	if (rc && !handshake_reset(s, rc))
		return source_fail(s, "%s", why);
	return rc ? NBW_EXIT_FAIL : 0;
}

/* One try: connect, AUTH, HELLO, ACCEPT. 0 or an exit status (s->again: try once more). */
static int greet(struct source *s)
{
	const struct options *o = s->o;
	struct ctrl_hello h = conv_hello(o);
	char err[CTRL_MAX_STR] = "";
	struct ctrl_buf b;
	int rc;

	if (control_connect(s) || authenticate(s))
		return NBW_EXIT_FAIL;
	h.workers = s->nw;
	h.source = (uint8_t)o->source;
	rc = ctrl_send_free(s->cfd, &b, ctrl_encode_hello(&b, &h), remote_timeout_ms(o));
	if (!rc)
		rc = ctrl_await(s->cfd, CTRL_ACCEPT, &s->acc, remote_timeout_ms(o), err,
				sizeof(err));
	if (handshake_reset(s, rc))
		return NBW_EXIT_FAIL;
	if (rc == -ECONNABORTED)
		return source_fail(s, "%s: the sink refused: %s", o->peer, err);
	if (rc)
		return source_fail(s, "%s: handshake: %s", o->peer,
				   err[0] ? err : ctrl_strerror(rc));
	if (!s->acc.nports)
		return source_fail(s, "%s: the sink advertised no RDMA port", o->peer);
	s->session = s->acc.session;
	return assign_rails(s);
}

/* The handshake, started over (a moment later) after a reset before ACCEPT. */
static int handshake(struct source *s)
{
	int tries = HANDSHAKE_TRIES, rc;

	for (;;) {
		s->again = false;
		s->may_retry = --tries > 0;
		rc = greet(s);
		if (!s->again)
			return rc;
		close(s->cfd);
		s->cfd = -1;
		nbw_warn("%s: the sink reset the handshake; trying again", s->o->peer);
		if (nbw_signal_wait(200000000ULL))
			return source_fail(s, "interrupted");
	}
}

/* Verbs mode: every worker's rail and QP, for the sink to make its own QPs. */
static int send_qps(struct source *s)
{
	struct ctrl_wqp *q = calloc(s->nw, sizeof(*q));
	struct ctrl_buf b;
	uint32_t i;
	int rc;

	if (!q)
		return tell_sink(s, "out of memory");
	for (i = 0; i < s->nw; i++) {
		const struct sworker *w = &s->w[i];

		q[i].sink_port = (uint16_t)w->sink_port;
		snprintf(q[i].dev, sizeof(q[i].dev), "%s", w->port->dev);
		q[i].port = w->port->port;
		q[i].qp = conv_qp_to_wire(&w->qp_local);
	}
	rc = ctrl_send_free(s->cfd, &b, ctrl_encode_qps(&b, q, s->nw), remote_timeout_ms(s->o));
	free(q);
	if (rc)
		return source_fail(s, "%s: sending the QPs: %s", s->o->peer, ctrl_strerror(rc));
	return 0;
}

/* The rails the workers used and what each carried in the window. */
static void count_rails(struct source *s)
{
	uint32_t i;
	int k;

	s->nrails = 0;
	for (i = 0; i < s->nw; i++) {
		const struct sworker *w = &s->w[i];
		const struct ctrl_port *kp = &s->acc.ports[w->sink_port];
		struct fab_port sink;
		struct rail *x;

		for (k = 0; k < s->nrails; k++)
			if (!strcmp(s->rails[k].local_dev, w->port->dev) &&
			    s->rails[k].local_port == w->port->port &&
			    s->rails[k].sink_index == w->sink_port)
				break;
		if (k == s->nrails && s->nrails == CTRL_MAX_RAILS)
			continue;
		x = &s->rails[k];
		if (k == s->nrails) {
			struct rail fresh = {.local_port = w->port->port,
					     .remote_port = kp->port,
					     .sink_index = w->sink_port};

			conv_port_from_wire(kp, &sink);
			fresh.line_rate_gbits = rail_line_rate(w->port, &sink);
			memcpy(fresh.local_dev, w->port->dev, sizeof(fresh.local_dev));
			memcpy(fresh.remote_dev, kp->dev, sizeof(fresh.remote_dev));
			*x = fresh;
			s->nrails++;
		}
		x->qps++;
		x->bytes += s->wend[i] - s->wstart[i];
	}
}

static int receive_slices(struct source *s)
{
	char err[CTRL_MAX_STR] = "";
	struct ctrl_slice *sl = NULL;
	uint32_t len, n = 0, i;
	void *p;
	int rc;

	rc = ctrl_expect(s->cfd, CTRL_SLICES, &p, &len, remote_timeout_ms(s->o), err, sizeof(err));
	if (!rc) {
		rc = ctrl_decode_slices(p, len, &sl, &n);
		free(p);
	}
	if (!rc && n != s->nw) {
		snprintf(err, sizeof(err), "%u slices for %u workers", n, s->nw);
		rc = -EBADMSG;
	}
	for (i = 0; !rc && i < n; i++) {
		if (sl[i].len < 2 * s->o->chunk) {
			snprintf(err, sizeof(err), "slice %u holds %llu bytes", i,
				 (unsigned long long)sl[i].len);
			rc = -EBADMSG;
		}
		s->w[i].slice = sl[i];
	}
	free(sl);
	if (rc)
		return source_fail(s, "%s: %s", s->o->peer, err[0] ? err : ctrl_strerror(rc));
	return 0;
}

static int send_canary_await_start(struct source *s)
{
	const struct options *o = s->o;
	struct ctrl_chunk *c = calloc(s->nw, sizeof(*c));
	char err[CTRL_MAX_STR] = "";
	struct ctrl_start st;
	struct ctrl_buf b;
	uint32_t i;
	int rc;

	if (!c)
		return tell_sink(s, "out of memory");
	for (i = 0; i < s->nw; i++)
		c[i] = s->w[i].canary;
	rc = ctrl_send_free(
		s->cfd, &b,
		ctrl_encode_chunks(&b, CTRL_CANARY, c, o->verify == CTRL_VERIFY_OFF ? 0 : s->nw),
		remote_timeout_ms(o));
	free(c);
	if (s->sync)
		meeting_arrive(s->sync);
	if (!rc)
		rc = ctrl_await(s->cfd, CTRL_START, &st, remote_timeout_ms(o), err, sizeof(err));
	if (rc)
		return source_fail(s, "%s: waiting for the start: %s", o->peer,
				   err[0] ? err : ctrl_strerror(rc));
	s->t_start = nbw_now_ns();
	s->hb_period = (uint64_t)st.progress_ms * 1000000ULL;
	s->hb_next = s->t_start + s->hb_period;
	return 0;
}

/* --verify full: the last chunk of every ring slot of every worker. */
static int send_table(struct source *s)
{
	struct ctrl_chunk *all = calloc((size_t)s->nw * (FULL_RING_MAX + 1), sizeof(*all));
	struct ctrl_buf b;
	uint32_t i, k, n = 0;
	int rc;

	if (!all)
		return -ENOMEM;
	for (i = 0; i < s->nw; i++)
		for (k = 1; s->w[i].table && k < s->w[i].ring; k++)
			if (s->w[i].table[k].len)
				all[n++] = s->w[i].table[k];
	rc = ctrl_send_free(s->cfd, &b, ctrl_encode_chunks(&b, CTRL_VERIFY, all, n),
			    remote_timeout_ms(s->o));
	free(all);
	return rc;
}

/* After the window: totals, the slot table, the verdict. */
static int send_result(struct source *s, bool ok)
{
	const struct options *o = s->o;
	struct ctrl_result res = {
		.ok = ok,
		.window_ns = nbw_s_to_ns(s->seconds),
		.bytes = bytes_sum(s->wend, s->nw) - bytes_sum(s->wstart, s->nw),
		.ndrives = (uint32_t)s->nt,
		.drives = s->dr,
		.nrails = (uint32_t)s->nrails,
		.open_ns = s->t_window > s->t_start ? s->t_window - s->t_start : 0,
		.cv_milli_pct = UINT32_MAX,
	};
	double cv = nbw_cv_pct(s->rdma_samples.rate, s->rdma_samples.n);
	struct ctrl_rail cr[CTRL_MAX_RAILS];
	char err[CTRL_MAX_STR] = "";
	struct ctrl_done d;
	int k;
	struct ctrl_buf b;
	int rc;

	if (isfinite(cv) && cv < 4e6)
		res.cv_milli_pct = (uint32_t)(cv * 1000 + 0.5);
	for (k = 0; k < s->nrails; k++) {
		cr[k] = (struct ctrl_rail){.port = s->rails[k].local_port,
					   .sink_port = (uint16_t)s->rails[k].sink_index,
					   .qps = s->rails[k].qps,
					   .bytes = s->rails[k].bytes,
					   .line_mbps =
						   (uint32_t)(s->rails[k].line_rate_gbits * 1000)};
		snprintf(cr[k].dev, sizeof(cr[k].dev), "%s", s->rails[k].local_dev);
	}
	res.rails = cr;
	rc = ctrl_send_free(s->cfd, &b, ctrl_encode_result(&b, &res), remote_timeout_ms(o));
	if (!rc && o->verify == CTRL_VERIFY_FULL)
		rc = send_table(s);
	if (rc == -ENOMEM)
		return tell_sink(s, "out of memory");
	if (!ok)
		return NBW_EXIT_FAIL;
	if (!rc)
		rc = ctrl_await(s->cfd, CTRL_DONE, &d, 2 * remote_timeout_ms(o), err, sizeof(err));
	if (rc)
		return source_fail(s, "%s: no verdict from the sink: %s", o->peer,
				   err[0] ? err : ctrl_strerror(rc));
	s->verdict = (enum verdict)d.verify;
	return s->verdict == VERDICT_FAIL ? NBW_EXIT_FAIL : 0;
}

/* ---- the phases of the run -------------------------------------------------------- */

static int source_setup(struct source *s)
{
	const struct options *o = s->o;
	struct target_query q = {
		.option = "--disks", .required = true, .hint = ", or use --source mem"};
	int rc = remote_select_ports(o, s->ports);

	if (rc < 0)
		return NBW_EXIT_FAIL;
	s->nports = rc;
	if (o->source == CTRL_SOURCE_DISK) {
		rc = remote_targets(o, &q, s->t, &s->nt);
		if (rc)
			return rc;
	}
	return plan_workers(s);
}

/*
 * Wait until the started workers reached phase; an interruption or a worker's
 * failure is told to the sink and said here. 0 when all went well.
 */
static int gather_workers(struct source *s, int phase)
{
	char msg[512];

	if (line_gather(&s->line, phase, s->started)) {
		tell_sink(s, "source: interrupted");
		return source_fail(s, "interrupted");
	}
	if (atomic_load(&s->failed)) {
		first_failure(s, msg, sizeof(msg));
		tell_sink(s, msg);
		return source_fail(s, "%s", msg);
	}
	return 0;
}

/* Start every worker thread; 0, or an exit status after telling the sink. */
static int start_workers(struct source *s)
{
	uint32_t i;

	line_init(&s->line);
	s->line_ready = true;
	for (i = 0; i < s->nw; i++) {
		int err = pthread_create(&s->w[i].tid, NULL, worker_main, &s->w[i]);

		if (err) {
			source_fail(s, "cannot start worker thread %u of %u: %s", i, s->nw,
				    strerror(err));
			return tell_sink(s, s->failure);
		}
		s->w[i].started = true;
		s->started++;
	}
	return 0;
}

/* Line 1 (connected), the slices, line 2 (canaries written), CANARY and START. */
static int source_lines(struct source *s)
{
	int rc;

	nbw_watchdog_phase("connecting %u QPs to %s", s->nw, s->o->peer);
	rc = start_workers(s);

	if (!rc)
		rc = gather_workers(s, LINE_CONNECTED);
	if (!rc && s->o->conn == CTRL_CONN_VERBS)
		rc = send_qps(s);
	if (!rc) {
		nbw_watchdog_phase("waiting for %s's slices", s->o->peer);
		rc = receive_slices(s);
	}
	if (!rc)
		line_open(&s->line, LINE_CONNECTED);
	if (!rc)
		rc = gather_workers(s, LINE_CANARY);
	if (!rc) {
		nbw_watchdog_phase("waiting for START from %s", s->o->peer);
		rc = send_canary_await_start(s);
	}
	if (rc)
		line_abort(&s->line); /* every waiting worker returns */
	else
		line_open(&s->line, LINE_CANARY);
	return rc;
}

/* What ended the window, said and kept; false when the sink is gone or spoke. */
static void window_outcome(struct source *s, const struct window *w)
{
	char err[CTRL_MAX_STR], msg[512];
	uint32_t len;
	void *p;
	int e;

	if (w->end_reason == WINDOW_SIGNAL) {
		snprintf(s->failure, sizeof(s->failure), "interrupted");
		nbw_err("interrupted: the window was cut to %.2f s", w->seconds);
	} else if (w->end_reason == WINDOW_STOPPED && w->stopped_by == SOURCE_WORKER_FAILED) {
		source_fail(s, "%s", first_failure(s, msg, sizeof(msg)));
	} else if (w->end_reason == WINDOW_STOPPED) {
		e = ctrl_expect(s->cfd, CTRL_DONE, &p, &len, 100, err, sizeof(err));
		if (!e)
			free(p);
		source_fail(s, "%s: the sink %s", s->o->peer,
			    e == -ECONNABORTED ? err : "went away during the window");
	}
}

/* Per drive: what its workers completed inside the window. */
static void drive_totals(struct source *s)
{
	uint32_t i;
	int k;

	for (i = 0; i < s->nw; i++)
		if (s->w[i].tindex >= 0)
			s->dr[s->w[i].tindex].bytes += s->wend[i] - s->wstart[i];
	for (k = 0; k < s->nt; k++) {
		snprintf(s->dr[k].path, sizeof(s->dr[k].path), "%s", s->t[k].d.path);
		snprintf(s->dr[k].model, sizeof(s->dr[k].model), "%s", s->t[k].d.model);
		s->dr[k].numa_node = s->t[k].d.numa_node;
		s->dr[k].workers = s->o->threads;
	}
}

/* The window, the drain, the RESULT and the verdict. The exit status. */
static int source_window(struct source *s)
{
	const struct options *o = s->o;
	struct window w = {
		.tick_ms = s->hb_period && s->hb_period < 100000000ULL
				   ? (int)(s->hb_period / 1000000)
				   : 100,
		.check = source_check,
		.live = source_live,
		.sample = source_sample,
		.snapshot = snapshot,
	};
	bool sink_gone, ok;
	int rc;

	window_bind(&w, &o->cc, s, s->wstart, s->wend);
	w.warmup += o->late_start;
	s->win = &w;
	nbw_watchdog_phase("the window (writing to %s)", o->peer);
	window_run(&w);
	s->seconds = w.seconds;
	s->cpu_s = w.cpu_s;
	if (!w.measured)
		memset(s->wend, 0, s->nw * sizeof(uint64_t));
	atomic_store(&s->stop, true);
	sink_gone = w.end_reason == WINDOW_STOPPED && w.stopped_by == SOURCE_SINK_SPOKE;
	if (sink_gone)
		s->hb_period = 0; /* the sink spoke or is gone: no more heartbeats */
	nbw_watchdog_phase("the drain (%u workers' RDMA WRITEs in flight to %s)", s->nw, o->peer);
	join_workers(s);
	s->win = NULL;
	ok = w.end_reason == WINDOW_DONE;
	window_outcome(s, &w);
	if (ok && atomic_load(&s->failed) && !sink_gone) {
		/* the window was whole, a worker failed while draining: say which */
		char msg[512];

		source_fail(s, "after the window: %s", first_failure(s, msg, sizeof(msg)));
	}
	drive_totals(s);
	count_rails(s);
	if (sink_gone)
		return NBW_EXIT_FAIL;
	nbw_watchdog_phase("sending RESULT to %s and waiting for its verdict", o->peer);
	rc = send_result(s, ok && !atomic_load(&s->failed));
	if ((!ok || atomic_load(&s->failed)) && s->failure[0])
		tell_sink(s, s->failure);
	return rc;
}

/* Reverse order of set-up, per worker. */
static void source_close(struct source *s)
{
	uint32_t i;

	/* Teardown has a bound of its own, whatever is left of the budget. */
	nbw_watchdog_bound(s->o->timeout + 5);
	nbw_watchdog_phase("teardown: joining the workers");
	if (s->started) {
		line_abort(&s->line);
		join_workers(s);
	}
	if (s->line_ready)
		line_destroy(&s->line);
	for (i = 0; s->w && i < s->nw; i++) {
		struct sworker *w = &s->w[i];

		if (w->wr_init)
			fab_writer_free(&w->wr);
		nbw_watchdog_phase("teardown: worker %u of %u", i, s->nw);
		fab_conn_close(&w->conn);
		if (w->rd_open)
			reader_close(&w->rd);
		buffer_free_locked(w->buf, w->buflen);
		free(w->mem_busy);
		free(w->mem_digest);
		free(w->table);
	}
	if (s->cfd >= 0)
		close(s->cfd);
	target_close(s->t, s->nt);
	free(s->w);
	free(s->wstart); /* and wend, lprev */
	free(s->dr);
	samples_free(&s->rdma_samples);
	nbw_watchdog_unbound();
}

/* What the run saw, into x: its ports, drives, rails, RDMA stream and verdict. 0 or -ENOMEM. */
static int source_result(const struct source *s, struct result *x)
{
	struct result_stream *st;
	int k;

	if (result_streams(x, 1))
		return -ENOMEM;
	st = &x->streams[0];
	x->ports = s->nports ? calloc((size_t)s->nports, sizeof(*x->ports)) : NULL;
	st->drives = s->nt ? calloc((size_t)s->nt, sizeof(*st->drives)) : NULL;
	st->rails = s->nrails ? calloc((size_t)s->nrails, sizeof(*st->rails)) : NULL;
	if ((s->nports && !x->ports) || (s->nt && !st->drives) || (s->nrails && !st->rails))
		return -ENOMEM;
	for (k = 0; k < s->nports; k++) {
		snprintf(x->ports[k].dev, sizeof(x->ports[k].dev), "%s", s->ports[k].dev);
		x->ports[k].port = s->ports[k].port;
		x->ports[k].link_layer = s->ports[k].link_layer;
		snprintf(x->ports[k].addr, sizeof(x->ports[k].addr), "%s", s->ports[k].addr);
	}
	x->nports = s->nports;
	for (k = 0; s->dr && k < s->nt; k++) {
		snprintf(st->drives[k].path, sizeof(st->drives[k].path), "%s", s->t[k].d.path);
		snprintf(st->drives[k].model, sizeof(st->drives[k].model), "%s", s->t[k].d.model);
		st->drives[k].numa_node = s->t[k].d.numa_node;
		st->drives[k].workers = s->o->threads;
		st->drives[k].bytes = s->dr[k].bytes;
	}
	st->ndrives = s->dr ? s->nt : 0;
	st->drives_known = true;
	if (s->nrails)
		memcpy(st->rails, s->rails, sizeof(*st->rails) * (size_t)s->nrails);
	st->nrails = s->nrails;
	st->workers = s->nw;
	st->source = s->o->source;
	st->bytes = s->wend ? bytes_sum(s->wend, s->nw) - bytes_sum(s->wstart, s->nw) : 0;
	st->seconds = s->seconds;
	st->have_window = s->seconds > 0;
	st->cv = nbw_cv_pct(s->rdma_samples.rate, s->rdma_samples.n);
	st->open_ns = (double)s->t_window;
	st->close_ns = (double)s->t_window + s->seconds * 1e9;
	x->cpu_s = s->cpu_s;
	x->verdict = s->verdict;
	snprintf(x->failure, sizeof(x->failure), "%s", s->failure);
	return 0;
}

/* The handshake done: the header, the start line, the window. The exit status. */
static int source_run(struct source *s, struct result *x)
{
	int rc = source_lines(s);

	result_begin(x);
	if (!rc)
		rc = source_window(s);
	else
		join_workers(s);
	return rc;
}

int run_source(const struct options *o, const struct run_state *run, struct result *x)
{
	struct source *s = nbw_zalloc(1, sizeof(*s));
	int rc;

	if (!s)
		return NBW_EXIT_FAIL;
	s->cfd = -1; /* no control channel yet */
	s->o = o;
	s->sync = run->sync;
	s->x = x;
	s->verdict = VERDICT_NONE;
	nbw_watchdog_phase("setting up (drives, ports, workers)");
	rc = source_setup(s);
	if (!rc) {
		nbw_watchdog_phase("the handshake with %s", o->peer);
		rc = handshake(s);
	}
	if (!rc)
		rc = source_run(s, x);
	if (source_result(s, x)) {
		nbw_err("out of memory");
		rc = NBW_EXIT_FAIL;
	}
	x->rc = rc;
	if (x->nstreams)
		x->streams[0].rc = rc;
	streams_judge(x);
	if (s->sync) /* failed before: this node's sink need not wait */
		meeting_arrive(s->sync);
	source_close(s);
	free(s);
	return rc;
}
