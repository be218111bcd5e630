// SPDX-License-Identifier: MIT
/*
 * sink.c: the receiving side of nvme_write_bw_remote. Owns one locked DRAM
 * buffer: the first part feeds its own drive readers, the rest is cut into
 * one slice per remote worker, each registered as its own MR so a worker can
 * reach its slice and nothing else. The sink posts no receives and polls no
 * completions for the data: after the handshake its CPU only reads its own
 * drives, watches the control channel and, at the end, checks what landed.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "remote.h"
#include "timing.h"

struct lreader {
	pthread_t tid;
	bool started;
	struct sink *k;
	struct target *t;
	int tindex;
	struct region reg;
	void *buf;
	_Atomic uint64_t bytes;
	int err;
	uint64_t err_offset;
};

struct sink {
	const struct options *o;
	struct report *r;
	struct target t[MAX_DRIVES];
	int nt;
	unsigned char *dram;
	struct slice_layout lay;
	struct rdma_listener lis;
	bool listening;
	int lfd, cfd;
	char peer[64];
	struct ctrl_hello hello; /* the source's */
	uint64_t session;
	struct rdma_conn *conns;
	struct lreader *lr;
	int nlr;
	atomic_bool stop;
	atomic_bool failed;
	struct ctrl_chunk *canary;
	uint32_t ncanary;
	int verdict;	     /* 1 pass, 0 fail, 2 off, -1 not reached */
	char vdetail[256];
	uint64_t *lstart, *lend; /* per local target */
	double lseconds;
	struct ctrl_result res;
	bool have_res;
	/* The source's heartbeat (PROGRESS) during and after the window. */
	uint32_t progress_ms;
	uint64_t last_heard; /* monotonic ns of the last message from the source */
	struct ctrl_progress prog, prog_line; /* the latest; the one of the last live line */
	bool have_prog;
	uint64_t *lprev; /* --interval: local counters at the previous line */
	char peer_err[CTRL_MAX_STR];
	const char *failure; /* why the run failed, for the output */
};

/* Why the window was cut short (sink_check()). */
enum {
	SINK_CLOSED = 1,  /* the source closed the control connection */
	SINK_RESULT,	  /* its RESULT arrived (its window ended) */
	SINK_LOCAL_FAIL,  /* a local read failed */
	SINK_RDMA_LOST,	  /* an RDMA connection went down */
	SINK_PEER_ERROR,  /* the source sent ERROR (text in peer_err) */
	SINK_BAD_MESSAGE, /* something that is not PROGRESS or RESULT */
	SINK_SILENT,	  /* nothing from the source for --timeout */
};

static uint64_t slice_addr(const struct sink *k, uint32_t w)
{
	return (uint64_t)(uintptr_t)k->dram + k->lay.slices_off + (uint64_t)w * k->lay.slice_len;
}

static unsigned char *slice_ptr(const struct sink *k, uint32_t w)
{
	return k->dram + k->lay.slices_off + (uint64_t)w * k->lay.slice_len;
}

/* Tell the source why (best effort), then say it here. */
static int refuse(struct sink *k, const char *msg)
{
	struct ctrl_buf b;

	if (k->cfd >= 0)
		ctrl_send_free(k->cfd, &b, ctrl_encode_error(&b, msg), 1000);
	nbw_err("%s", msg);
	k->failure = msg;
	return NBW_EXIT_FAIL;
}

/* ---- local readers ----------------------------------------------------------- */

static void *lreader_main(void *arg)
{
	struct lreader *lr = arg;
	const struct options *o = lr->k->o;
	struct reader rd;
	struct reader_chunk c;
	int rc;

	rc = reader_open(&rd, lr->t->fd, o->engine, 1, o->chunk, lr->t->d.lbs, lr->t->d.size,
			 lr->reg, lr->buf);
	if (rc) {
		lr->err = rc;
		atomic_store(&lr->k->failed, true);
		return NULL;
	}
	while (!atomic_load_explicit(&lr->k->stop, memory_order_relaxed)) {
		rc = reader_next(&rd, &c, 100);
		if (rc == -ETIMEDOUT)
			continue;
		if (rc) {
			lr->err = rc;
			lr->err_offset = c.offset;
			atomic_store(&lr->k->failed, true);
			break;
		}
		atomic_fetch_add_explicit(&lr->bytes, c.len, memory_order_relaxed);
		reader_release(&rd, c.slot);
	}
	reader_close(&rd);
	return NULL;
}

static int lreaders_start(struct sink *k)
{
	const struct options *o = k->o;
	struct region regs[256];
	int i, j, n = 0;

	k->nlr = k->nt * (int)o->threads;
	if (!k->nlr)
		return 0;
	k->lr = calloc((size_t)k->nlr, sizeof(*k->lr));
	if (!k->lr)
		return -ENOMEM;
	for (i = 0; i < k->nt; i++) {
		uint32_t align = k->t[i].d.lbs > DIGEST_BLOCK ? k->t[i].d.lbs : DIGEST_BLOCK;

		region_split(k->t[i].span, o->threads, align, regs);
		for (j = 0; j < (int)o->threads; j++, n++) {
			struct lreader *lr = &k->lr[n];

			lr->k = k;
			lr->t = &k->t[i];
			lr->tindex = i;
			lr->reg = regs[j];
			lr->buf = k->dram + (uint64_t)n * o->chunk;
		}
	}
	for (n = 0; n < k->nlr; n++) {
		int err = pthread_create(&k->lr[n].tid, NULL, lreader_main, &k->lr[n]);

		if (err)
			return -err;
		k->lr[n].started = true;
	}
	return 0;
}

static void lreaders_stop(struct sink *k)
{
	int i;

	atomic_store(&k->stop, true);
	for (i = 0; i < k->nlr; i++)
		if (k->lr[i].started)
			pthread_join(k->lr[i].tid, NULL);
}

static void lsnapshot(void *ctx, uint64_t *out)
{
	struct sink *k = ctx;
	int i;

	memset(out, 0, sizeof(*out) * (size_t)(k->nt ? k->nt : 1));
	for (i = 0; i < k->nlr; i++)
		out[k->lr[i].tindex] += atomic_load_explicit(&k->lr[i].bytes, memory_order_relaxed);
	if (out == k->lstart) {
		/* The window opens: live lines count from here. */
		memcpy(k->lprev, out, sizeof(*out) * (size_t)(k->nt ? k->nt : 1));
		k->prog_line = k->prog;
	}
}

/*
 * Take one message from the source within timeout_ms: a PROGRESS updates the
 * heartbeat and returns 0, a RESULT is kept (SINK_RESULT); anything else ends
 * the run with its SINK_* reason; -ETIMEDOUT if nothing came.
 */
static int sink_take(struct sink *k, int timeout_ms)
{
	unsigned type;
	uint32_t len;
	void *p;
	int rc = ctrl_recv(k->cfd, &type, &p, &len, timeout_ms);

	if (rc == -ETIMEDOUT)
		return rc;
	if (rc) {
		snprintf(k->peer_err, sizeof(k->peer_err), "%s", ctrl_strerror(rc));
		return rc == -ECONNRESET ? SINK_CLOSED : SINK_BAD_MESSAGE;
	}
	k->last_heard = nbw_now_ns();
	if (type == CTRL_PROGRESS) {
		struct ctrl_progress pr;

		rc = ctrl_decode_progress(p, len, &pr);
		free(p);
		if (rc) {
			snprintf(k->peer_err, sizeof(k->peer_err), "malformed PROGRESS");
			return SINK_BAD_MESSAGE;
		}
		if (!k->have_prog)
			k->prog_line = (struct ctrl_progress){ 0 };
		k->prog = pr;
		k->have_prog = true;
		return 0;
	}
	if (type == CTRL_RESULT) {
		rc = ctrl_decode_result(p, len, &k->res);
		free(p);
		k->have_res = !rc;
		if (rc)
			snprintf(k->peer_err, sizeof(k->peer_err), "malformed RESULT");
		return rc ? SINK_BAD_MESSAGE : SINK_RESULT;
	}
	if (type == CTRL_ERROR) {
		struct ctrl_error e;

		if (ctrl_decode_error(p, len, &e))
			snprintf(e.msg, sizeof(e.msg), "(malformed ERROR message)");
		snprintf(k->peer_err, sizeof(k->peer_err), "%s", e.msg);
		free(p);
		return SINK_PEER_ERROR;
	}
	free(p);
	snprintf(k->peer_err, sizeof(k->peer_err), "unexpected %s", ctrl_type_name(type));
	return SINK_BAD_MESSAGE;
}

/* During the warm-up and the window, every tick: a SINK_* reason to stop, or 0. */
static int sink_check(void *ctx)
{
	struct sink *k = ctx;
	uint32_t i;
	int rc;

	if (atomic_load(&k->failed))
		return SINK_LOCAL_FAIL;
	for (;;) {
		struct pollfd pfd = { .fd = k->cfd, .events = POLLIN };

		if (poll(&pfd, 1, 0) != 1)
			break;
		rc = sink_take(k, opt_timeout_ms(k->o));
		if (rc == -ETIMEDOUT)
			break; /* part of a message: the rest comes with the next tick */
		if (rc)
			return rc;
	}
	for (i = 0; i < k->hello.workers; i++)
		if (rdma_conn_lost(&k->conns[i]))
			return SINK_RDMA_LOST;
	if (nbw_now_ns() - k->last_heard > nbw_s_to_ns(k->o->timeout))
		return SINK_SILENT;
	return 0;
}

/* --interval: local drives as read here, RDMA as the source's heartbeats say. */
static void sink_live(void *ctx, double at, double secs)
{
	struct sink *k = ctx;
	FILE *out = live_stream(k->o);
	double scale = k->o->gbits ? 8e-9 : 1e-9, local = 0, rdma = -1;
	uint64_t *cur = calloc((size_t)k->nt + 1, sizeof(uint64_t));
	int i;

	if (!cur)
		return;
	lsnapshot(k, cur);
	for (i = 0; i < k->nt; i++) {
		local += (double)(cur[i] - k->lprev[i]) / secs;
		k->lprev[i] = cur[i];
	}
	free(cur);
	if (k->have_prog && k->prog.elapsed_ns > k->prog_line.elapsed_ns) {
		rdma = (double)(k->prog.bytes - k->prog_line.bytes) /
		       nbw_ns_to_s(k->prog.elapsed_ns - k->prog_line.elapsed_ns);
		k->prog_line = k->prog;
	}
	fprintf(out, "[%7.1fs]", at);
	if (k->nt)
		fprintf(out, "  local %.2f", local * scale);
	if (rdma >= 0)
		fprintf(out, "  rdma %.2f  total %.2f %s\n", rdma * scale, (local + rdma) * scale,
			k->o->gbits ? "Gb/s" : "GB/s");
	else
		fprintf(out, "  rdma -  (no heartbeat since the last line)\n");
	fflush(out);
}

/* ---- handshake -------------------------------------------------------------- */

/*
 * Accept control connections until one says a valid HELLO. Returns 0, or an
 * exit code; anything that does not speak the protocol is dropped and logged.
 */
static int await_source(struct sink *k)
{
	const struct options *o = k->o;
	uint64_t deadline = o->wait > 0 ? nbw_now_ns() + nbw_s_to_ns(o->wait) : 0;

	for (;;) {
		int left = -1, rc;
		unsigned type;
		void *p;
		uint32_t len;

		if (deadline) {
			uint64_t now = nbw_now_ns();

			if (now >= deadline)
				left = 0;
			else
				left = (int)((deadline - now) / 1000000) + 1;
		}
		if (atomic_load(&g_interrupted))
			return NBW_EXIT_FAIL;
		rc = ctrl_accept(k->lfd, left < 0 || left > 500 ? 500 : left, k->peer,
				 sizeof(k->peer));
		if (rc == -ETIMEDOUT) {
			sigset_t set;
			struct timespec ts = { 0, 0 };

			sigemptyset(&set);
			sigaddset(&set, SIGINT);
			sigaddset(&set, SIGTERM);
			if (sigtimedwait(&set, NULL, &ts) > 0) {
				atomic_store(&g_interrupted, true);
				nbw_err("interrupted while waiting for a source");
				k->failure = "interrupted while waiting for a source";
				return NBW_EXIT_FAIL;
			}
			if (deadline && nbw_now_ns() >= deadline) {
				nbw_err("no source connected within %g s (--wait)", o->wait);
				k->failure = "no source connected";
				return NBW_EXIT_FAIL;
			}
			continue;
		}
		if (rc < 0) {
			nbw_err("accept: %s", strerror(-rc));
			continue;
		}
		k->cfd = rc;
		rc = ctrl_recv(k->cfd, &type, &p, &len, opt_timeout_ms(o));
		if (!rc && type != CTRL_HELLO)
			rc = -EBADMSG;
		if (!rc) {
			rc = ctrl_decode_hello(p, len, &k->hello);
		}
		if (rc == -EPROTONOSUPPORT) {
			struct ctrl_buf b;
			char msg[128];

			snprintf(msg, sizeof(msg), "sink speaks protocol version %d", CTRL_VERSION);
			ctrl_send_free(k->cfd, &b, ctrl_encode_error(&b, msg), 1000);
		}
		if (rc) {
			fprintf(stderr, "%s: %s: connection dropped: %s; still waiting\n", nbw_prog,
				k->peer, ctrl_strerror(rc));
			close(k->cfd);
			k->cfd = -1;
			free(p);
			continue;
		}
		free(p);
		return 0;
	}
}

static int check_hello(struct sink *k)
{
	const struct options *o = k->o;
	struct ctrl_hello mine = {
		.chunk = o->chunk,
		.depth = o->depth,
		.warmup_ms = (uint64_t)(o->warmup * 1000 + 0.5),
		.duration_ms = (uint64_t)(o->duration * 1000 + 0.5),
		.verify = (uint8_t)o->verify,
	};
	static char msg[512];
	char why[256], a[32], b[32];
	uint64_t need;

	if (ctrl_hello_mismatch(&mine, &k->hello, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "parameter mismatch with %s: %s", k->peer, why);
		return refuse(k, msg);
	}
	if (k->hello.workers > MAX_WORKERS) {
		snprintf(msg, sizeof(msg), "%s: %u workers, the sink takes at most %u", k->peer,
			 k->hello.workers, MAX_WORKERS);
		return refuse(k, msg);
	}
	if (slice_layout(o->dram, (uint64_t)k->nt * o->threads * o->chunk, k->hello.workers,
			 o->chunk, o->depth, &k->lay, &need)) {
		snprintf(msg, sizeof(msg),
			 "sink DRAM %s is too small for %u workers x %u slots of %s (and the local "
			 "readers): it needs %s (--dram)",
			 format_size(o->dram, a, sizeof(a)), k->hello.workers, o->depth + 1,
			 format_size(o->chunk, b, sizeof(b)), format_size(need, why, sizeof(why)));
		return refuse(k, msg);
	}
	return 0;
}

/* One rdma_cm connection per worker, each with the MR of its own slice. */
static int connect_workers(struct sink *k)
{
	const struct options *o = k->o;
	uint64_t deadline = nbw_now_ns() + nbw_s_to_ns(o->timeout);
	static char msg[512];
	uint32_t done = 0;

	k->conns = calloc(k->hello.workers, sizeof(*k->conns));
	if (!k->conns)
		return refuse(k, "out of memory");
	while (done < k->hello.workers) {
		struct rdma_cm_id *id;
		struct rdma_hello h;
		uint64_t now = nbw_now_ns();
		int rc;

		rc = now >= deadline ? -ETIMEDOUT
				     : rdma_listener_next(&k->lis, (int)((deadline - now) / 1000000) + 1,
							  &id, &h);
		if (rc == -ETIMEDOUT) {
			snprintf(msg, sizeof(msg),
				 "%s: %u of %u RDMA connections arrived within %g s (--timeout)",
				 k->peer, done, k->hello.workers, o->timeout);
			return refuse(k, msg);
		}
		if (rc) {
			fprintf(stderr, "%s: RDMA connect request without our private data: rejected\n",
				nbw_prog);
			continue;
		}
		if (h.session != k->session || h.worker >= k->hello.workers ||
		    k->conns[h.worker].connected) {
			fprintf(stderr, "%s: RDMA connect request of another session or worker %u: "
					"rejected\n",
				nbw_prog, h.worker);
			rdma_listener_reject(id);
			continue;
		}
		rc = rdma_conn_accept(&k->conns[h.worker], id, slice_ptr(k, h.worker),
				      k->lay.slice_len, opt_timeout_ms(o));
		if (rc) {
			snprintf(msg, sizeof(msg), "worker %u: %s", h.worker, k->conns[h.worker].why);
			return refuse(k, msg);
		}
		done++;
	}
	return 0;
}

static int send_slices(struct sink *k)
{
	struct ctrl_slice *s = calloc(k->hello.workers, sizeof(*s));
	struct ctrl_buf b;
	uint32_t i;
	int rc;

	if (!s)
		return refuse(k, "out of memory");
	for (i = 0; i < k->hello.workers; i++) {
		s[i].addr = slice_addr(k, i);
		s[i].len = k->lay.slice_len;
		s[i].rkey = k->conns[i].mr->rkey;
	}
	rc = ctrl_send_free(k->cfd, &b, ctrl_encode_slices(&b, s, k->hello.workers),
			    opt_timeout_ms(k->o));
	free(s);
	if (rc) {
		nbw_err("%s: sending the slices: %s", k->peer, ctrl_strerror(rc));
		k->failure = "control channel lost";
		return NBW_EXIT_FAIL;
	}
	return 0;
}

/* Hash what landed at the chunks c[] describe; the count that differ. */
static uint32_t check_chunks(struct sink *k, const struct ctrl_chunk *c, uint32_t n,
			     uint32_t *bad_worker, uint32_t *bad_slot)
{
	uint32_t i, bad = 0;

	for (i = 0; i < n; i++) {
		uint64_t got;

		if (c[i].worker >= k->hello.workers || c[i].slot >= k->lay.slots ||
		    c[i].len > k->o->chunk || c[i].offset % DIGEST_BLOCK) {
			got = ~c[i].digest; /* an entry that cannot be checked fails */
		} else {
			got = digest_add(0, c[i].offset,
					 slice_ptr(k, c[i].worker) + (uint64_t)c[i].slot * k->o->chunk,
					 c[i].len);
		}
		if (got != c[i].digest) {
			if (!bad) {
				*bad_worker = c[i].worker;
				*bad_slot = c[i].slot;
			}
			bad++;
		}
	}
	return bad;
}

static int receive_canary(struct sink *k)
{
	char err[CTRL_MAX_STR];
	static char msg[CTRL_MAX_STR + 64];
	uint32_t len, bw = 0, bs = 0, bad;
	void *p;
	int rc;

	rc = ctrl_expect(k->cfd, CTRL_CANARY, &p, &len, 2 * opt_timeout_ms(k->o), err,
			 sizeof(err));
	if (!rc)
		rc = ctrl_decode_chunks(p, len, &k->canary, &k->ncanary);
	free(p);
	if (rc == -ECONNABORTED) {
		snprintf(msg, sizeof(msg), "%s: source failed: %s", k->peer, err);
		nbw_err("%s", msg);
		k->failure = msg;
		return NBW_EXIT_FAIL;
	}
	if (rc) {
		snprintf(msg, sizeof(msg), "%s: waiting for the canary: %s", k->peer,
			 err[0] ? err : ctrl_strerror(rc));
		return refuse(k, msg);
	}
	if (k->o->verify == CTRL_VERIFY_OFF) {
		k->verdict = 2;
		return 0;
	}
	bad = check_chunks(k, k->canary, k->ncanary, &bw, &bs);
	if (k->ncanary != k->hello.workers) {
		k->verdict = 0;
		snprintf(k->vdetail, sizeof(k->vdetail), "%u canaries for %u workers", k->ncanary,
			 k->hello.workers);
	} else if (bad) {
		k->verdict = 0;
		snprintf(k->vdetail, sizeof(k->vdetail),
			 "%u of %u canary chunks differ, first: worker %u", bad, k->ncanary, bw);
	} else {
		k->verdict = 1;
		snprintf(k->vdetail, sizeof(k->vdetail), "%u canary chunks match", k->ncanary);
	}
	return 0;
}

/* --verify full: every slot the source last wrote, as it says, checked here. */
static void receive_full(struct sink *k)
{
	char err[CTRL_MAX_STR];
	struct ctrl_chunk *c = NULL;
	uint32_t len, n = 0, bw = 0, bs = 0, bad;
	void *p;
	int rc;

	rc = ctrl_expect(k->cfd, CTRL_VERIFY, &p, &len, opt_timeout_ms(k->o), err, sizeof(err));
	if (!rc)
		rc = ctrl_decode_chunks(p, len, &c, &n);
	free(p);
	if (rc) {
		k->verdict = 0;
		snprintf(k->vdetail, sizeof(k->vdetail), "no slot table from the source: %s",
			 err[0] ? err : ctrl_strerror(rc));
		return;
	}
	bad = check_chunks(k, c, n, &bw, &bs);
	if (bad) {
		k->verdict = 0;
		snprintf(k->vdetail, sizeof(k->vdetail),
			 "%s; %u of %u slice slots differ, first: worker %u slot %u",
			 k->verdict == 1 ? "canaries match" : "canary", bad, n, bw, bs);
	} else if (k->verdict == 1) {
		snprintf(k->vdetail, sizeof(k->vdetail), "%u canary chunks and %u slice slots match",
			 k->ncanary, n);
	}
	if (k->o->dump_slice) {
		/* The map of worker 0's slice: the canary, then the slots of the table. */
		char path[PATH_MAX];
		FILE *f;
		uint32_t i;

		snprintf(path, sizeof(path), "%s.map", k->o->dump_slice);
		f = fopen(path, "w");
		if (f) {
			for (i = 0; i < k->ncanary; i++)
				if (k->canary[i].worker == 0)
					fprintf(f, "%u %llu %u\n", k->canary[i].slot,
						(unsigned long long)k->canary[i].offset, k->canary[i].len);
			for (i = 0; i < n; i++)
				if (c[i].worker == 0)
					fprintf(f, "%u %llu %u\n", c[i].slot,
						(unsigned long long)c[i].offset, c[i].len);
			fclose(f);
		}
	}
	free(c);
}

static void dump_slice(struct sink *k)
{
	FILE *f = fopen(k->o->dump_slice, "w");

	if (!f || fwrite(slice_ptr(k, 0), 1, k->lay.slice_len, f) != k->lay.slice_len) {
		nbw_warn("%s: %s", k->o->dump_slice, strerror(errno));
	}
	if (f)
		fclose(f);
	if (k->o->verify != CTRL_VERIFY_FULL) {
		char path[PATH_MAX];
		uint32_t i;

		snprintf(path, sizeof(path), "%s.map", k->o->dump_slice);
		f = fopen(path, "w");
		if (!f)
			return;
		for (i = 0; i < k->ncanary; i++)
			if (k->canary[i].worker == 0)
				fprintf(f, "%u %llu %u\n", k->canary[i].slot,
					(unsigned long long)k->canary[i].offset, k->canary[i].len);
		fclose(f);
	}
}

/* ---- the run ---------------------------------------------------------------------- */

/*
 * The heartbeat period the source is asked for: at most 1 s, a quarter of
 * --timeout (so one lost beat is not silence) and half of --interval (so
 * every live line has a fresh figure).
 */
static uint32_t progress_period_ms(const struct options *o)
{
	double ms = 1000;

	if (o->timeout * 250 < ms)
		ms = o->timeout * 250;
	if (o->interval > 0 && o->interval * 500 < ms)
		ms = o->interval * 500;
	return ms < 10 ? 10 : (uint32_t)ms;
}

/*
 * After the sink's window: the source's window ends a little later (it got
 * START later) and it drains what is in flight, sending heartbeats
 * meanwhile. Wait for its RESULT; silence for --timeout, or 3 x --timeout in
 * all, ends the wait.
 */
static int await_result(struct sink *k)
{
	uint64_t deadline = nbw_now_ns() + 3 * nbw_s_to_ns(k->o->timeout);

	for (;;) {
		uint64_t now = nbw_now_ns();
		int rc, ms = opt_timeout_ms(k->o);

		if (now >= deadline)
			return SINK_SILENT;
		if ((uint64_t)ms * 1000000ULL > deadline - now)
			ms = (int)((deadline - now) / 1000000) + 1;
		rc = sink_take(k, ms);
		if (rc == -ETIMEDOUT)
			return SINK_SILENT;
		if (rc)
			return rc;
	}
}

static int run_window(struct sink *k)
{
	const struct options *o = k->o;
	struct ctrl_start st = {
		.warmup_ms = k->hello.warmup_ms,
		.duration_ms = k->hello.duration_ms,
		.progress_ms = progress_period_ms(o),
	};
	struct window w = {
		.warmup = o->warmup,
		.duration = o->duration,
		.interval = o->interval,
		.check = sink_check,
		.live = sink_live,
		.ctx = k,
		.snapshot = lsnapshot,
		.nctr = k->nt,
		.start = k->lstart,
		.end = k->lend,
	};
	static char msg[CTRL_MAX_STR + 128];
	struct ctrl_buf b;
	int rc, why;

	k->progress_ms = st.progress_ms;
	rc = lreaders_start(k);
	if (rc) {
		lreaders_stop(k);
		return refuse(k, "cannot start the local reader threads");
	}
	rc = ctrl_send_free(k->cfd, &b, ctrl_encode_start(&b, &st), opt_timeout_ms(o));
	k->last_heard = nbw_now_ns();
	if (!rc) {
		rc = window_run(&w);
		why = rc == 2 ? w.aborted : 0;
	} else {
		snprintf(k->peer_err, sizeof(k->peer_err), "%s", ctrl_strerror(rc));
		rc = 2, why = SINK_CLOSED;
	}
	lreaders_stop(k);
	k->lseconds = w.seconds;
	if (!w.measured)
		memset(k->lend, 0, sizeof(uint64_t) * (size_t)(k->nt ? k->nt : 1)),
			memset(k->lstart, 0, sizeof(uint64_t) * (size_t)(k->nt ? k->nt : 1));
	if (rc == 1) {
		refuse(k, "interrupted");
		return NBW_EXIT_FAIL;
	}
	if (why == SINK_LOCAL_FAIL) {
		int i;

		for (i = 0; i < k->nlr; i++)
			if (k->lr[i].err) {
				snprintf(msg, sizeof(msg), "%s: read at offset %llu: %s",
					 k->lr[i].t->d.path, (unsigned long long)k->lr[i].err_offset,
					 strerror(-k->lr[i].err));
				break;
			}
		return refuse(k, msg);
	}
	/* The window ended here: the source's RESULT comes next. */
	if (!why)
		why = await_result(k);
	switch (why) {
	case SINK_RESULT:
		break;
	case SINK_CLOSED:
	case SINK_RDMA_LOST:
		snprintf(msg, sizeof(msg), "%s: the source went away during the %s (%s)", k->peer,
			 !w.measured ? "warm-up" : w.seconds + 0.05 < o->duration ? "window" : "wait for its result",
			 why == SINK_CLOSED ? "control connection closed" : "RDMA connection lost");
		break;
	case SINK_PEER_ERROR:
		snprintf(msg, sizeof(msg), "%s: source failed: %s", k->peer, k->peer_err);
		break;
	case SINK_SILENT:
		snprintf(msg, sizeof(msg),
			 "%s: the source went silent: nothing on the control channel for %g s "
			 "(--timeout; network or source gone)",
			 k->peer, o->timeout);
		break;
	default:
		snprintf(msg, sizeof(msg), "%s: protocol error during the window: %s", k->peer,
			 k->peer_err);
		break;
	}
	if (why != SINK_RESULT) {
		if (why == SINK_BAD_MESSAGE)
			return refuse(k, msg);
		nbw_err("%s", msg);
		k->failure = msg;
		return NBW_EXIT_FAIL;
	}
	if (o->verify == CTRL_VERIFY_FULL)
		receive_full(k);
	if (!k->res.ok) {
		/* Its ERROR, if any, follows the RESULT. */
		char err[CTRL_MAX_STR];
		uint32_t len;
		void *p;

		if (ctrl_expect(k->cfd, CTRL_DONE, &p, &len, 200, err, sizeof(err)) == -ECONNABORTED)
			snprintf(msg, sizeof(msg), "%s: source failed: %s", k->peer, err);
		else
			snprintf(msg, sizeof(msg), "%s: the source did not complete its window", k->peer);
		nbw_err("%s", msg);
		k->failure = msg;
		return NBW_EXIT_FAIL;
	}
	return 0;
}

static void print_sink(struct sink *k, int rc)
{
	struct report *r = k->r;
	const char *unit = report_bw_unit(r);
	uint64_t lbytes = 0, rbytes = k->have_res ? k->res.bytes : 0;
	double rsec = k->have_res ? nbw_ns_to_s(k->res.window_ns) : 0;
	const char *rfrom = k->have_res ? "result" : NULL;
	double lsec = k->lseconds, tsec, ideal = NAN, total_bps;
	int i, ndr = k->have_res ? (int)k->res.ndrives : 0;
	char lab[64];

	if (!k->have_res && k->have_prog && k->prog.window_ns) {
		/* No result: what the source's last heartbeat said it had measured. */
		rbytes = k->prog.window_bytes;
		rsec = nbw_ns_to_s(k->prog.window_ns);
		rfrom = "heartbeat";
	}
	for (i = 0; i < k->nt; i++)
		lbytes += k->lend[i] - k->lstart[i];
	tsec = lsec > rsec ? lsec : rsec;
	report_text(r, " Source          : %s (%u workers, %s)\n", k->peer[0] ? k->peer : "-",
		    k->hello.workers, k->hello.source == CTRL_SOURCE_MEM ? "memory" : "drives");
	report_str(r, "peer", NULL, k->peer[0] ? k->peer : NULL);
	report_u64(r, "workers", NULL, k->hello.workers);
	if (k->lay.slice_len)
		report_u64(r, "slice_bytes", NULL, k->lay.slice_len);
	report_text(r, "%s", report_rule);
	report_text(r, " %-6s %-16s %16s %9s %9s\n", "side", "drive", "bytes", "seconds", unit);
	report_arr_begin(r, "drives");
	for (i = 0; i < k->nt; i++)
		print_drive(r, &k->t[i].d, "local", k->lend[i] - k->lstart[i], lsec, k->o->threads);
	for (i = 0; i < ndr; i++) {
		struct drive d = { 0 };

		snprintf(d.path, sizeof(d.path), "%s", k->res.drives[i].path);
		snprintf(d.model, sizeof(d.model), "%s", k->res.drives[i].model);
		d.numa_node = k->res.drives[i].numa_node;
		print_drive(r, &d, "rdma", k->res.drives[i].bytes, rsec, k->res.drives[i].workers);
	}
	report_arr_end(r);
	report_text(r, "%s", report_rule);
	report_text(r, " %-22s %16s %9s %9s\n", "", "bytes", "seconds", unit);
	snprintf(lab, sizeof(lab), "local (%d drive%s)", k->nt, k->nt == 1 ? "" : "s");
	print_bw_row(r, "local", lab, lbytes, lsec);
	report_text(r, "\n");
	snprintf(lab, sizeof(lab), "RDMA (%u QPs)%s", k->hello.workers,
		 rfrom && !strcmp(rfrom, "heartbeat") ? "*" : "");
	print_bw_row(r, "rdma", lab, rbytes, rsec);
	report_text(r, "\n");
	report_str(r, "rdma_reported_by", NULL, rfrom);
	total_bps = (lsec > 0 ? lbytes / lsec : 0) + (rsec > 0 ? rbytes / rsec : 0);
	/* Rates add: each side's bytes over its own window of the same length. */
	report_obj_begin(r, "total");
	report_text(r, " %-22s", "total");
	report_u64(r, "bytes", " %16llu", lbytes + rbytes);
	report_double(r, "seconds", " %9.2f", tsec);
	report_bw(r, "gb_per_s", " %9.2f\n", total_bps);
	report_obj_end(r);
	if (k->nt > 0 && lsec > 0 && (k->hello.source == CTRL_SOURCE_DISK || !k->have_res))
		ideal = lbytes / lsec / k->nt * (k->nt + ndr);
	report_bw(r, "ideal_gb_per_s", " ideal                  %36.2f", ideal);
	report_double(r, "percent_of_ideal", "   (%.1f", total_bps / ideal * 100);
	report_text(r, "%% of ideal)\n");
	report_text(r, " (ideal = every drive at the mean local per-drive rate of this window)\n");
	if (rfrom && !strcmp(rfrom, "heartbeat"))
		report_text(r, " (* RDMA: as of the source's last heartbeat; its result never came)\n");
	report_text(r, "%s", report_rule);
	print_verify(r, k->o, k->verdict, k->vdetail[0] ? k->vdetail : NULL);
	report_bool(r, "ok", NULL, rc == 0);
	report_str(r, "error", NULL, k->failure);
	report_text(r, "%s", report_rule);
}

static int sink_setup(struct sink *k)
{
	const struct options *o = k->o;
	struct rdma_port ports[RDMA_MAX_PORTS];
	char a[32], b[32];
	int n, rc, lock_errno;

	n = select_ports(o, ports);
	if (n < 0)
		return NBW_EXIT_FAIL;
	if (!o->no_local) {
		n = targets_collect(o, o->disks, o->disks != NULL, k->t);
		if (n < 0)
			return -n;
		k->nt = n;
		rc = targets_prepare(o, k->t, k->nt, o->threads);
		if (rc)
			return rc;
	}
	k->lstart = calloc((size_t)k->nt + 1, sizeof(uint64_t));
	k->lend = calloc((size_t)k->nt + 1, sizeof(uint64_t));
	k->lprev = calloc((size_t)k->nt + 1, sizeof(uint64_t));
	if (!k->lstart || !k->lend || !k->lprev) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	if ((uint64_t)k->nt * o->threads * o->chunk >= o->dram) {
		nbw_usage_err("--dram %s leaves nothing for slices after %d local drive%s x %u "
			      "threads x %s",
			      format_size(o->dram, a, sizeof(a)), k->nt, k->nt == 1 ? "" : "s",
			      o->threads, format_size(o->chunk, b, sizeof(b)));
		return NBW_EXIT_USAGE;
	}
	rc = buffer_alloc_locked(o->dram, 4096, (void **)&k->dram, &lock_errno);
	if (rc) {
		if (lock_errno)
			nbw_err("cannot lock %s of DRAM: %s (raise 'ulimit -l', or lower --dram)",
				format_size(o->dram, a, sizeof(a)), strerror(lock_errno));
		else
			nbw_err("cannot allocate %s of DRAM: %s (lower --dram; 'ulimit -l' must "
				"allow locking it too)",
				format_size(o->dram, a, sizeof(a)), strerror(-rc));
		k->dram = NULL;
		return NBW_EXIT_FAIL;
	}
	k->lfd = ctrl_listen(o->bind, o->port);
	if (k->lfd < 0) {
		nbw_err("%s port %u: %s", o->bind ? o->bind : "listening on", o->port,
			strerror(-k->lfd));
		return NBW_EXIT_FAIL;
	}
	rc = rdma_listen_on(&k->lis, o->bind, o->port);
	if (rc) {
		nbw_err("rdma_cm %s port %u: %s", o->bind ? o->bind : "listening on", o->port,
			strerror(-rc));
		return NBW_EXIT_FAIL;
	}
	k->listening = true;
	if (getrandom(&k->session, sizeof(k->session), 0) != sizeof(k->session))
		k->session = nbw_now_ns() ^ ((uint64_t)getpid() << 32);
	return 0;
}

int run_sink(const struct options *o, struct report *r)
{
	static struct sink k;
	struct ctrl_buf b;
	uint32_t i;
	int rc;

	k.o = o;
	k.r = r;
	k.lfd = k.cfd = -1;
	k.verdict = -1;
	rc = sink_setup(&k);
	if (!rc) {
		fprintf(stderr, "%s: sink: waiting for a source on %s port %u\n", nbw_prog,
			o->bind ? o->bind : "every address", o->port);
		rc = await_source(&k);
	}
	if (!rc)
		rc = check_hello(&k);
	if (!rc) {
		rc = ctrl_send_free(k.cfd, &b,
				    ctrl_encode_accept(&b, &(struct ctrl_accept){ k.session }),
				    opt_timeout_ms(o));
		if (rc) {
			nbw_err("%s: %s", k.peer, ctrl_strerror(rc));
			rc = NBW_EXIT_FAIL;
		}
	}
	if (!rc)
		rc = connect_workers(&k);
	if (!rc)
		rc = send_slices(&k);
	if (!rc)
		rc = receive_canary(&k);
	if (!rc) {
		struct options shown = *o;

		shown.source = (enum ctrl_source)k.hello.source;
		report_obj_begin(r, NULL);
		print_params(r, &shown, "sink");
		rc = run_window(&k);
		if (!rc && o->dump_slice)
			dump_slice(&k);
		if (!rc && k.verdict == 0)
			rc = NBW_EXIT_FAIL;
		if (k.cfd >= 0 && !k.failure) {
			struct ctrl_done d = { .verify = (uint8_t)(k.verdict < 0 ? 0 : k.verdict) };

			ctrl_send_free(k.cfd, &b, ctrl_encode_done(&b, &d), 1000);
		}
		print_sink(&k, rc);
		report_obj_end(r);
		report_finish(r);
	} else if (o->json) {
		report_obj_begin(r, NULL);
		print_params(r, o, "sink");
		print_sink(&k, rc);
		report_obj_end(r);
		report_finish(r);
	}
	/* Reverse order of setup. */
	for (i = 0; k.conns && i < k.hello.workers; i++)
		rdma_conn_close(&k.conns[i]);
	free(k.conns);
	if (k.cfd >= 0)
		close(k.cfd);
	if (k.listening)
		rdma_listener_close(&k.lis);
	if (k.lfd >= 0)
		close(k.lfd);
	buffer_free_locked(k.dram, o->dram);
	targets_close(k.t, k.nt);
	free(k.canary);
	free(k.lr);
	free(k.lstart);
	free(k.lend);
	free(k.lprev);
	ctrl_result_free(&k.res);
	return rc;
}
