// SPDX-License-Identifier: MIT
/*
 * source.c: the sending side of nvme_write_bw_remote. Per drive, --threads
 * workers, each with its own RC QP on an ACTIVE port NUMA-local to the drive,
 * its own --depth registered staging slots read with O_DIRECT (or filled
 * once, --source mem) and the posting loop of common/rdma.c keeping that many
 * RDMA WRITEs in flight into its slice of the sink's DRAM.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "remote.h"
#include "timing.h"

#define FULL_RING_MAX 1024 /* slice slots used with --verify full (bounds the table) */

struct sworker {
	pthread_t tid;
	bool started;
	struct source *s;
	uint32_t index;
	int tindex; /* drive, -1 for memory */
	struct region reg;
	const struct rdma_port *port;
	unsigned char *buf;
	size_t buflen;
	struct reader rd;
	bool rd_open;
	bool *mem_busy;
	uint64_t *mem_digest;
	struct rdma_conn conn;
	struct rdma_writer wr;
	bool wr_init;
	struct ctrl_slice slice;
	_Atomic uint64_t bytes;
	struct ctrl_chunk canary;
	struct ctrl_chunk *table; /* --verify full: last chunk per slice slot */
	uint32_t ring;		  /* slice slots the writer uses */
	int err;
	char why[256];
};

/*
 * The start line: workers pass it twice (1: connected, 2: canary written)
 * and wait there until the main thread opens that phase or aborts the run;
 * an abort releases every waiter at once, so a failure anywhere (a thread
 * that could not be started, a refused handshake, a signal) cannot strand
 * the others.
 */
enum { LINE_CONNECTED = 1, LINE_CANARY = 2, LINE_PHASES };

struct start_line {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready[LINE_PHASES]; /* workers that reached each phase */
	int open;		     /* highest phase the main thread opened */
	bool abort;
};

struct source {
	const struct options *o;
	struct report *r;
	struct target t[MAX_DRIVES];
	int nt;
	struct rdma_port ports[RDMA_MAX_PORTS];
	int nports;
	struct sworker *w;
	uint32_t nw;
	int cfd;
	uint64_t session;
	struct start_line line;
	atomic_bool stop;
	atomic_bool failed;
	atomic_uint finished; /* worker threads that returned */
	uint64_t *wstart, *wend;
	uint64_t *lprev; /* --interval: counters at the previous live line */
	/* Heartbeat to the sink (PROGRESS), from START until RESULT. */
	struct window *win;
	uint64_t t_start, t_window, hb_period, hb_next;
	double seconds;
	int verdict;
	const char *failure;
};

static void wfail(struct sworker *w, int rc, const char *fmt, ...) NBW_PRINTF(3, 4);

static void wfail(struct sworker *w, int rc, const char *fmt, ...)
{
	va_list ap;

	w->err = rc ? rc : -EIO;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	atomic_store(&w->s->failed, true);
}

static const char *wname(const struct sworker *w, char *buf, size_t len)
{
	snprintf(buf, len, "worker %u (%s via %s:%u)", w->index,
		 w->tindex >= 0 ? w->s->t[w->tindex].d.path : "memory", w->port->dev, w->port->port);
	return buf;
}

/* ---- the start line ----------------------------------------------------------------- */

static void line_init(struct start_line *l)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, &ca);
	pthread_condattr_destroy(&ca);
}

static void line_destroy(struct start_line *l)
{
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->lock);
}

/* Worker: say phase is reached, wait until it opens. False: the run was aborted. */
static bool line_pass(struct start_line *l, int phase)
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

/*
 * Main: wait until n workers reached phase. Every worker step before a line
 * is bounded (--timeout), so this ends; a signal meanwhile returns 1.
 */
static int line_gather(struct start_line *l, int phase, unsigned n)
{
	sigset_t set;
	int rc = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_mutex_lock(&l->lock);
	while (l->ready[phase] < n && !rc) {
		struct timespec ts, zero = { 0, 0 };

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 100000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&l->cond, &l->lock, &ts);
		if (sigtimedwait(&set, NULL, &zero) > 0) {
			atomic_store(&g_interrupted, true);
			rc = 1;
		}
	}
	pthread_mutex_unlock(&l->lock);
	return rc;
}

static void line_open(struct start_line *l, int phase)
{
	pthread_mutex_lock(&l->lock);
	l->open = phase;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

static void line_abort(struct start_line *l)
{
	pthread_mutex_lock(&l->lock);
	l->abort = true;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

static bool line_aborted(struct start_line *l)
{
	bool a;

	pthread_mutex_lock(&l->lock);
	a = l->abort;
	pthread_mutex_unlock(&l->lock);
	return a;
}

/* ---- chunk sources for the posting loop --------------------------------------- */

static int disk_next(void *ctx, struct write_item *it)
{
	struct sworker *w = ctx;
	struct reader_chunk c;
	int rc = reader_next(&w->rd, &c, 100);

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
	*it = (struct write_item){ .slot = c.slot, .buf = c.buf, .len = c.len, .offset = c.offset };
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

static int worker_setup(struct sworker *w)
{
	struct source *s = w->s;
	const struct options *o = s->o;
	struct rdma_hello h = { .session = s->session, .worker = w->index };
	int rc, lock_errno;

	if (w->tindex >= 0) {
		rc = numa_pin_self(numa_policy_node(NUMA_POLICY_AUTO, s->t[w->tindex].d.numa_node));
		if (rc) {
			wfail(w, rc, "pin to NUMA node: %s", strerror(-rc));
			return rc;
		}
	}
	w->buflen = (size_t)o->chunk * o->depth;
	rc = buffer_alloc_locked(w->buflen, 4096, (void **)&w->buf, &lock_errno);
	if (rc) {
		w->buf = NULL;
		wfail(w, rc, "%s (raise 'ulimit -l')", lock_errno ? "cannot lock the staging buffer"
								  : "cannot allocate the staging buffer");
		return rc;
	}
	if (w->tindex >= 0) {
		struct target *t = &s->t[w->tindex];

		rc = reader_open(&w->rd, t->fd, o->engine, o->depth, o->chunk, t->d.lbs, t->d.size,
				 w->reg, w->buf);
		if (rc) {
			wfail(w, rc, "set up the reader: %s", strerror(-rc));
			return rc;
		}
		w->rd_open = true;
	} else {
		w->mem_busy = calloc(o->depth, sizeof(bool));
		w->mem_digest = calloc(o->depth, sizeof(uint64_t));
		if (!w->mem_busy || !w->mem_digest) {
			wfail(w, -ENOMEM, "%s", "out of memory");
			return -ENOMEM;
		}
		mem_fill(w);
	}
	rc = rdma_conn_connect(&w->conn, w->port->addr[0] ? w->port->addr : NULL, o->peer, o->port,
			       &h, o->depth, w->buf, w->buflen, opt_timeout_ms(o));
	if (rc)
		wfail(w, rc, "RDMA connection: %s", w->conn.why);
	return rc;
}

/* Read (or take) one real chunk, hash it, write it to slot 0 of the slice. */
static int worker_canary(struct sworker *w, const struct write_source *src)
{
	const struct options *o = w->s->o;
	uint64_t deadline = nbw_now_ns() + nbw_s_to_ns(o->timeout);
	struct write_item it;
	int rc;

	/* The first chunk: a drive that does not answer within --timeout fails the worker. */
	for (;;) {
		rc = src->next(src->ctx, &it);
		if (rc != -EAGAIN)
			break;
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
	w->canary = (struct ctrl_chunk){ .worker = w->index, .slot = 0, .offset = it.offset,
					 .len = (uint32_t)it.len };
	w->canary.digest = digest_add(0, it.offset, it.buf, it.len);
	if (o->corrupt_canary)
		((unsigned char *)it.buf)[it.len / 2] ^= 0x5a;
	rc = rdma_write_one(&w->wr, it.buf, it.len, 0, opt_timeout_ms(o));
	if (o->corrupt_canary)
		((unsigned char *)it.buf)[it.len / 2] ^= 0x5a;
	it.len = 0; /* not a ring chunk: nothing to record */
	if (w->tindex >= 0)
		reader_release(&w->rd, it.slot);
	else
		w->mem_busy[it.slot] = false;
	if (rc)
		wfail(w, rc, "canary WRITE: %s", w->wr.why);
	return rc;
}

static void *worker_main(void *arg)
{
	struct sworker *w = arg;
	struct source *s = w->s;
	const struct options *o = s->o;
	struct write_source src = {
		.next = w->tindex >= 0 ? disk_next : mem_next,
		.done = w->tindex >= 0 ? disk_done : mem_done,
		.ctx = w,
	};
	int rc;

	rc = worker_setup(w);
	/* Connected (or failed): the main thread receives the slices, then opens. */
	if (!line_pass(&s->line, LINE_CONNECTED))
		goto out;
	if (!rc) {
		uint32_t slots = (uint32_t)(w->slice.len / o->chunk);

		w->ring = slots;
		if (o->verify == CTRL_VERIFY_FULL && slots > FULL_RING_MAX + 1)
			w->ring = FULL_RING_MAX + 1;
		rc = rdma_writer_init(&w->wr, &w->conn, w->slice.addr, w->slice.rkey, w->ring,
				      o->chunk, o->depth);
		if (rc)
			wfail(w, rc, "%s", "bad slice");
		w->wr_init = !rc;
		if (!rc && o->verify == CTRL_VERIFY_FULL) {
			w->table = calloc(w->ring, sizeof(*w->table));
			if (!w->table)
				wfail(w, rc = -ENOMEM, "%s", "out of memory");
		}
		if (!rc && o->verify != CTRL_VERIFY_OFF)
			rc = worker_canary(w, &src);
	}
	/* Canary written (or failed): the main thread reports it and waits for START. */
	if (!line_pass(&s->line, LINE_CANARY))
		goto out;
	if (!rc) {
		rc = rdma_write_loop(&w->wr, &src, &s->stop, &w->bytes, opt_timeout_ms(o));
		if (rc && !w->err)
			wfail(w, rc, "%s", w->wr.why);
	}
out:
	atomic_fetch_add(&s->finished, 1);
	return NULL;
}

/* ---- the main thread ---------------------------------------------------------------- */

static void snapshot(void *ctx, uint64_t *out)
{
	struct source *s = ctx;
	uint32_t i;

	if (out == s->wstart)
		s->t_window = nbw_now_ns();
	for (i = 0; i < s->nw; i++)
		out[i] = atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);
	if (out == s->wstart)
		memcpy(s->lprev, out, s->nw * sizeof(uint64_t));
}

static uint64_t bytes_sum(const uint64_t *v, uint32_t n)
{
	uint64_t t = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		t += v[i];
	return t;
}

/* Send a PROGRESS when its period is due (or now with force). 0 or -errno. */
static int heartbeat(struct source *s, bool force)
{
	struct ctrl_progress pr = { 0 };
	uint64_t now = nbw_now_ns(), cur = 0;
	struct ctrl_buf b;
	uint32_t i;

	if (!s->hb_period || (!force && now < s->hb_next))
		return 0;
	s->hb_next = now + s->hb_period;
	for (i = 0; i < s->nw; i++)
		cur += atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);
	pr.elapsed_ns = now - s->t_start;
	pr.bytes = cur;
	if (s->win && s->win->measured) {
		/* What the window counted so far, or in all once it closed. */
		uint64_t w0 = bytes_sum(s->win->start, s->nw);

		if (s->win->seconds > 0) {
			pr.window_bytes = bytes_sum(s->win->end, s->nw) - w0;
			pr.window_ns = nbw_s_to_ns(s->win->seconds);
		} else {
			pr.window_bytes = cur - w0;
			pr.window_ns = now - s->t_window;
		}
		if (pr.window_ns > pr.elapsed_ns)
			pr.window_ns = pr.elapsed_ns;
		if (pr.window_bytes > pr.bytes)
			pr.window_bytes = pr.bytes;
	}
	return ctrl_send_free(s->cfd, &b, ctrl_encode_progress(&b, &pr), opt_timeout_ms(s->o));
}

/* 1 a worker failed, 2 the sink spoke or went away (or the heartbeat could not go). */
static int source_check(void *ctx)
{
	struct source *s = ctx;
	struct pollfd pfd = { .fd = s->cfd, .events = POLLIN };

	if (atomic_load(&s->failed))
		return 1;
	if (poll(&pfd, 1, 0) == 1)
		return 2;
	if (heartbeat(s, false))
		return 2;
	return 0;
}

/* --interval: this side's RDMA completions per drive (or memory) and in total. */
static void source_live(void *ctx, double at, double secs)
{
	struct source *s = ctx;
	FILE *out = live_stream(s->o);
	double scale = s->o->gbits ? 8e-9 : 1e-9, total = 0;
	uint32_t i;
	int k;

	fprintf(out, "[%7.1fs]", at);
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
			fprintf(out, "  %s %.2f", s->t[k].d.name, (double)d / secs * scale);
	}
	fprintf(out, "  rdma %.2f %s\n", total * scale, s->o->gbits ? "Gb/s" : "GB/s");
	fflush(out);
}

/*
 * After the window: the workers drain what is in flight (bounded by
 * --timeout); keep the heartbeat going meanwhile so that the sink does not
 * take the drain for silence, then join them.
 */
static void join_workers(struct source *s, uint32_t started)
{
	uint32_t i;

	while (atomic_load(&s->finished) < started) {
		if (s->cfd >= 0 && heartbeat(s, false))
			s->hb_period = 0; /* the sink is gone: stop talking */
		nbw_sleep_until_ns(nbw_now_ns() + 50000000ULL);
	}
	for (i = 0; i < started; i++)
		pthread_join(s->w[i].tid, NULL);
}

static const char *first_failure(struct source *s, char *buf, size_t len)
{
	char n[160];
	uint32_t i;

	for (i = 0; i < s->nw; i++)
		if (s->w[i].err) {
			snprintf(buf, len, "%s: %s", wname(&s->w[i], n, sizeof(n)), s->w[i].why);
			return buf;
		}
	return NULL;
}

static int tell_sink(struct source *s, const char *msg)
{
	struct ctrl_buf b;

	if (s->cfd >= 0)
		ctrl_send_free(s->cfd, &b, ctrl_encode_error(&b, msg), 1000);
	return NBW_EXIT_FAIL;
}

/* Ports for a drive on node: the NUMA-local ones, else all. */
static int ports_for(struct source *s, int node, const struct rdma_port **out)
{
	int i, n = 0;

	for (i = 0; i < s->nports; i++)
		if (node < 0 || s->ports[i].numa_node < 0 || s->ports[i].numa_node == node)
			out[n++] = &s->ports[i];
	if (!n)
		for (i = 0; i < s->nports; i++)
			out[n++] = &s->ports[i];
	return n;
}

static int plan_workers(struct source *s)
{
	const struct options *o = s->o;
	const struct rdma_port *pp[RDMA_MAX_PORTS];
	struct region regs[256];
	uint32_t k = 0;
	int i, j, np;

	s->nw = o->source == CTRL_SOURCE_MEM ? o->qps : (uint32_t)s->nt * o->threads;
	if (s->nw > MAX_WORKERS) {
		nbw_usage_err("%u workers: at most %u", s->nw, MAX_WORKERS);
		return NBW_EXIT_USAGE;
	}
	s->w = calloc(s->nw, sizeof(*s->w));
	s->wstart = calloc(s->nw, sizeof(uint64_t));
	s->wend = calloc(s->nw, sizeof(uint64_t));
	if (!s->w || !s->wstart || !s->wend) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	if (o->source == CTRL_SOURCE_MEM) {
		np = ports_for(s, -1, pp);
		for (k = 0; k < s->nw; k++) {
			s->w[k] = (struct sworker){ .s = s, .index = k, .tindex = -1, .port = pp[k % np] };
			s->w[k].reg.start = (uint64_t)k * o->depth * o->chunk;
			s->w[k].reg.len = (uint64_t)o->depth * o->chunk;
		}
		return 0;
	}
	for (i = 0; i < s->nt; i++) {
		uint32_t align = s->t[i].d.lbs > DIGEST_BLOCK ? s->t[i].d.lbs : DIGEST_BLOCK;

		np = ports_for(s, s->t[i].d.numa_node, pp);
		region_split(s->t[i].span, o->threads, align, regs);
		for (j = 0; j < (int)o->threads; j++, k++) {
			s->w[k] = (struct sworker){ .s = s, .index = k, .tindex = i, .reg = regs[j],
						    .port = pp[j % np] };
		}
	}
	return 0;
}

static int handshake(struct source *s)
{
	const struct options *o = s->o;
	struct ctrl_hello h = {
		.chunk = o->chunk,
		.depth = o->depth,
		.workers = s->nw,
		.warmup_ms = (uint64_t)(o->warmup * 1000 + 0.5),
		.duration_ms = (uint64_t)(o->duration * 1000 + 0.5),
		.verify = (uint8_t)o->verify,
		.source = (uint8_t)o->source,
	};
	static char msg[CTRL_MAX_STR + 64];
	char err[CTRL_MAX_STR];
	struct ctrl_accept a;
	struct ctrl_buf b;
	uint64_t deadline;
	uint32_t len;
	void *p;
	int rc;

	/* A sink that is still starting refuses: retry until the timeout. */
	deadline = nbw_now_ns() + nbw_s_to_ns(o->timeout);
	for (;;) {
		uint64_t now = nbw_now_ns();

		s->cfd = ctrl_connect(o->peer, o->port,
				      now < deadline ? (int)((deadline - now) / 1000000) + 1 : 1);
		if (s->cfd != -ECONNREFUSED || nbw_now_ns() + 200000000ULL >= deadline ||
		    atomic_load(&g_interrupted))
			break;
		nbw_sleep_until_ns(nbw_now_ns() + 200000000ULL);
	}
	if (s->cfd < 0) {
		snprintf(msg, sizeof(msg), "%s port %u: %s", o->peer, o->port, ctrl_strerror(s->cfd));
		nbw_err("%s", msg);
		s->failure = msg;
		s->cfd = -1;
		return NBW_EXIT_FAIL;
	}
	rc = ctrl_send_free(s->cfd, &b, ctrl_encode_hello(&b, &h), opt_timeout_ms(o));
	if (!rc)
		rc = ctrl_expect(s->cfd, CTRL_ACCEPT, &p, &len, opt_timeout_ms(o), err, sizeof(err));
	else
		err[0] = '\0';
	if (!rc) {
		rc = ctrl_decode_accept(p, len, &a);
		free(p);
	}
	if (rc == -ECONNABORTED)
		snprintf(msg, sizeof(msg), "%s: the sink refused: %s", o->peer, err);
	else if (rc)
		snprintf(msg, sizeof(msg), "%s: handshake: %s", o->peer,
			 err[0] ? err : ctrl_strerror(rc));
	if (rc) {
		nbw_err("%s", msg);
		s->failure = msg;
		return NBW_EXIT_FAIL;
	}
	s->session = a.session;
	return 0;
}

static int receive_slices(struct source *s)
{
	static char msg[CTRL_MAX_STR + 64];
	char err[CTRL_MAX_STR];
	struct ctrl_slice *sl = NULL;
	uint32_t len, n = 0, i;
	void *p;
	int rc;

	rc = ctrl_expect(s->cfd, CTRL_SLICES, &p, &len, opt_timeout_ms(s->o), err, sizeof(err));
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
	if (rc) {
		snprintf(msg, sizeof(msg), "%s: %s", s->o->peer, err[0] ? err : ctrl_strerror(rc));
		nbw_err("%s", msg);
		s->failure = msg;
		return NBW_EXIT_FAIL;
	}
	return 0;
}

static int send_canary_await_start(struct source *s)
{
	const struct options *o = s->o;
	static char msg[CTRL_MAX_STR + 64];
	struct ctrl_chunk *c = calloc(s->nw, sizeof(*c));
	char err[CTRL_MAX_STR];
	struct ctrl_start st;
	struct ctrl_buf b;
	uint32_t len, i;
	void *p;
	int rc;

	if (!c)
		return tell_sink(s, "out of memory");
	for (i = 0; i < s->nw; i++)
		c[i] = s->w[i].canary;
	rc = ctrl_send_free(s->cfd, &b,
			    ctrl_encode_chunks(&b, CTRL_CANARY, c,
					       o->verify == CTRL_VERIFY_OFF ? 0 : s->nw),
			    opt_timeout_ms(o));
	free(c);
	err[0] = '\0';
	if (!rc)
		rc = ctrl_expect(s->cfd, CTRL_START, &p, &len, opt_timeout_ms(o), err, sizeof(err));
	if (!rc) {
		rc = ctrl_decode_start(p, len, &st);
		free(p);
	}
	if (!rc) {
		s->t_start = nbw_now_ns();
		s->hb_period = (uint64_t)st.progress_ms * 1000000ULL;
		s->hb_next = s->t_start + s->hb_period;
	}
	if (rc) {
		snprintf(msg, sizeof(msg), "%s: waiting for the start: %s", o->peer,
			 err[0] ? err : ctrl_strerror(rc));
		nbw_err("%s", msg);
		s->failure = msg;
		return NBW_EXIT_FAIL;
	}
	return 0;
}

/* After the window: totals, the slot table, the verdict. */
static int send_result(struct source *s, bool ok, struct ctrl_drive *dr)
{
	const struct options *o = s->o;
	struct ctrl_result res = { .ok = ok, .window_ns = nbw_s_to_ns(s->seconds) };
	static char msg[CTRL_MAX_STR + 64];
	char err[CTRL_MAX_STR];
	struct ctrl_done d;
	struct ctrl_buf b;
	uint32_t i, len;
	void *p;
	int rc;

	for (i = 0; i < s->nw; i++)
		res.bytes += s->wend[i] - s->wstart[i];
	res.ndrives = (uint32_t)s->nt;
	res.drives = dr;
	rc = ctrl_send_free(s->cfd, &b, ctrl_encode_result(&b, &res), opt_timeout_ms(o));
	if (!rc && o->verify == CTRL_VERIFY_FULL) {
		struct ctrl_chunk *all;
		uint32_t n = 0, k;

		all = calloc((size_t)s->nw * (FULL_RING_MAX + 1), sizeof(*all));
		if (!all)
			return tell_sink(s, "out of memory");
		for (i = 0; i < s->nw; i++)
			for (k = 1; s->w[i].table && k < s->w[i].ring; k++)
				if (s->w[i].table[k].len)
					all[n++] = s->w[i].table[k];
		rc = ctrl_send_free(s->cfd, &b, ctrl_encode_chunks(&b, CTRL_VERIFY, all, n),
				    opt_timeout_ms(o));
		free(all);
	}
	if (!ok)
		return NBW_EXIT_FAIL;
	err[0] = '\0';
	if (!rc)
		rc = ctrl_expect(s->cfd, CTRL_DONE, &p, &len, 2 * opt_timeout_ms(o), err,
				 sizeof(err));
	if (!rc) {
		rc = ctrl_decode_done(p, len, &d);
		free(p);
	}
	if (rc) {
		snprintf(msg, sizeof(msg), "%s: no verdict from the sink: %s", o->peer,
			 err[0] ? err : ctrl_strerror(rc));
		nbw_err("%s", msg);
		s->failure = msg;
		return NBW_EXIT_FAIL;
	}
	s->verdict = d.verify;
	return s->verdict == 0 ? NBW_EXIT_FAIL : 0;
}

static void print_source(struct source *s, struct ctrl_drive *dr, int rc)
{
	struct report *r = s->r;
	const char *unit = report_bw_unit(r);
	uint64_t total = 0;
	uint32_t i;
	int k;
	char lab[64];

	for (i = 0; i < s->nw; i++)
		total += s->wend[i] - s->wstart[i];
	report_text(r, " Sink            : %s port %u, %u workers (QPs)\n", s->o->peer, s->o->port,
		    s->nw);
	report_str(r, "peer", NULL, s->o->peer);
	report_u64(r, "workers", NULL, s->nw);
	report_arr_begin(r, "ports");
	for (k = 0; k < s->nports; k++) {
		report_obj_begin(r, NULL);
		report_str(r, "device", " Port            : %s", s->ports[k].dev);
		report_u64(r, "port", ":%llu", s->ports[k].port);
		report_str(r, "link_layer", " %s", s->ports[k].link_layer);
		report_str(r, "address", " %s\n", s->ports[k].addr[0] ? s->ports[k].addr : NULL);
		report_obj_end(r);
	}
	report_arr_end(r);
	report_text(r, "%s", report_rule);
	report_text(r, " %-6s %-16s %16s %9s %9s\n", "side", "drive", "bytes", "seconds", unit);
	report_arr_begin(r, "drives");
	for (k = 0; k < s->nt; k++)
		print_drive(r, &s->t[k].d, "rdma", dr[k].bytes, s->seconds, s->o->threads);
	report_arr_end(r);
	report_text(r, "%s", report_rule);
	report_text(r, " %-22s %16s %9s %9s\n", "", "bytes", "seconds", unit);
	print_bw_row(r, "local", "local (source: none)", 0, s->seconds);
	report_text(r, "\n");
	snprintf(lab, sizeof(lab), "RDMA (%u QPs)", s->nw);
	print_bw_row(r, "rdma", lab, total, s->seconds);
	report_text(r, "\n");
	print_bw_row(r, "total", "total (this side)", total, s->seconds);
	report_text(r, "\n%s", report_rule);
	print_verify(r, s->o, s->verdict, NULL);
	report_bool(r, "ok", NULL, rc == 0);
	report_str(r, "error", NULL, s->failure);
	report_text(r, "%s", report_rule);
}

static int source_setup(struct source *s)
{
	const struct options *o = s->o;
	int n, rc;

	n = select_ports(o, s->ports);
	if (n < 0)
		return NBW_EXIT_FAIL;
	s->nports = n;
	if (o->source == CTRL_SOURCE_DISK) {
		n = targets_collect(o, o->disks, true, s->t);
		if (n < 0)
			return -n;
		s->nt = n;
		rc = targets_prepare(o, s->t, s->nt, o->threads);
		if (rc)
			return rc;
	}
	return plan_workers(s);
}

/*
 * Wait until the started workers reached phase; an interruption or a worker's
 * failure is told to the sink and said here. 0 when all went well.
 */
static int gather_workers(struct source *s, int phase, unsigned started, char *msg, size_t len)
{
	if (line_gather(&s->line, phase, started)) {
		s->failure = "interrupted";
		return tell_sink(s, "source: interrupted");
	}
	if (atomic_load(&s->failed)) {
		int rc = tell_sink(s, first_failure(s, msg, len));

		nbw_err("%s", msg);
		s->failure = msg;
		return rc;
	}
	return 0;
}

int run_source(const struct options *o, struct report *r)
{
	static struct source s;
	struct ctrl_drive *dr = NULL;
	static char msg[512];
	uint32_t i, started = 0;
	bool ok = false, line_ready = false;
	int rc;

	s.o = o;
	s.r = r;
	s.cfd = -1;
	s.verdict = -1;
	rc = source_setup(&s);
	if (!rc)
		rc = handshake(&s);
	if (rc) {
		if (o->json) {
			report_obj_begin(r, NULL);
			print_params(r, o, "source");
			report_str(r, "verify", NULL, NULL);
			report_bool(r, "ok", NULL, false);
			report_str(r, "error", NULL, s.failure);
			report_obj_end(r);
			report_finish(r);
		}
		goto out;
	}
	dr = calloc((size_t)s.nt + 1, sizeof(*dr));
	s.lprev = calloc(s.nw, sizeof(uint64_t));
	if (!dr || !s.lprev) {
		nbw_err("out of memory");
		rc = tell_sink(&s, "source: out of memory");
		goto out;
	}
	line_init(&s.line);
	line_ready = true;
	for (i = 0; i < s.nw; i++) {
		int err = pthread_create(&s.w[i].tid, NULL, worker_main, &s.w[i]);

		if (err) {
			snprintf(msg, sizeof(msg), "cannot start worker thread %u of %u: %s", i, s.nw,
				 strerror(err));
			nbw_err("%s", msg);
			s.failure = msg;
			rc = tell_sink(&s, msg);
			break;
		}
		s.w[i].started = true;
		started++;
	}
	/* Line 1: every started worker connected (or failed); then the slices. */
	if (!rc)
		rc = gather_workers(&s, LINE_CONNECTED, started, msg, sizeof(msg));
	if (!rc)
		rc = receive_slices(&s);
	if (!rc)
		line_open(&s.line, LINE_CONNECTED);
	/* Line 2: canaries written; report them and wait for the sink's START. */
	if (!rc)
		rc = gather_workers(&s, LINE_CANARY, started, msg, sizeof(msg));
	if (!rc)
		rc = send_canary_await_start(&s);
	if (rc)
		line_abort(&s.line); /* every waiting worker returns */
	else
		line_open(&s.line, LINE_CANARY);
	report_obj_begin(r, NULL);
	print_params(r, o, "source");
	if (!rc) {
		struct window w = {
			.warmup = o->warmup,
			.duration = o->duration,
			.tick_ms = s.hb_period && s.hb_period < 100000000ULL
					   ? (int)(s.hb_period / 1000000) : 100,
			.interval = o->interval,
			.check = source_check,
			.live = source_live,
			.ctx = &s,
			.snapshot = snapshot,
			.nctr = (int)s.nw,
			.start = s.wstart,
			.end = s.wend,
		};
		int wrc;

		s.win = &w;
		wrc = window_run(&w);
		s.seconds = w.seconds;
		if (!w.measured)
			memset(s.wend, 0, s.nw * sizeof(uint64_t));
		atomic_store(&s.stop, true);
		if (wrc == 2 && w.aborted == 2)
			s.hb_period = 0; /* the sink spoke or is gone: no more heartbeats */
		join_workers(&s, started);
		s.win = NULL;
		started = 0;
		ok = wrc == 0;
		if (wrc == 1) {
			s.failure = "interrupted";
			nbw_err("interrupted: the window was cut to %.2f s", w.seconds);
		} else if (wrc == 2 && w.aborted == 1) {
			nbw_err("%s", first_failure(&s, msg, sizeof(msg)));
			s.failure = msg;
		} else if (wrc == 2) {
			char err[CTRL_MAX_STR];
			void *p;
			uint32_t len;
			int e = ctrl_expect(s.cfd, CTRL_DONE, &p, &len, 100, err, sizeof(err));

			snprintf(msg, sizeof(msg), "%s: the sink %s", o->peer,
				 e == -ECONNABORTED ? err : "went away during the window");
			if (!e)
				free(p);
			nbw_err("%s", msg);
			s.failure = msg;
		}
		for (i = 0; i < s.nw; i++)
			if (s.w[i].tindex >= 0)
				dr[s.w[i].tindex].bytes += s.wend[i] - s.wstart[i];
		for (i = 0; i < (uint32_t)s.nt; i++) {
			snprintf(dr[i].path, sizeof(dr[i].path), "%s", s.t[i].d.path);
			snprintf(dr[i].model, sizeof(dr[i].model), "%s", s.t[i].d.model);
			dr[i].numa_node = s.t[i].d.numa_node;
			dr[i].workers = o->threads;
		}
		if (wrc == 2 && w.aborted == 2)
			rc = NBW_EXIT_FAIL;
		else
			rc = send_result(&s, ok && !atomic_load(&s.failed), dr);
		if (!ok && s.failure)
			tell_sink(&s, s.failure);
	} else {
		join_workers(&s, started);
		started = 0;
	}
	print_source(&s, dr, rc);
	report_obj_end(r);
	report_finish(r);
out:
	if (started) {
		line_abort(&s.line);
		join_workers(&s, started);
	}
	if (line_ready)
		line_destroy(&s.line);
	/* Reverse order of setup, per worker. */
	for (i = 0; s.w && i < s.nw; i++) {
		struct sworker *w = &s.w[i];

		if (w->wr_init)
			rdma_writer_free(&w->wr);
		rdma_conn_close(&w->conn);
		if (w->rd_open)
			reader_close(&w->rd);
		buffer_free_locked(w->buf, w->buflen);
		free(w->mem_busy);
		free(w->mem_digest);
		free(w->table);
	}
	if (s.cfd >= 0)
		close(s.cfd);
	targets_close(s.t, s.nt);
	free(s.w);
	free(s.wstart);
	free(s.wend);
	free(s.lprev);
	free(dr);
	return rc;
}
