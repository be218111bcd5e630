// SPDX-License-Identifier: MIT
/*
 * sink.c: the receiving side of nvme_write_bw_remote. Owns one locked DRAM
 * buffer: the first part feeds its own drive readers, the rest is cut into
 * one slice per remote worker, each registered as its own MR so a worker can
 * reach its slice and nothing else. The sink posts no receives and polls no
 * completions for the data: after the handshake its CPU only reads its own
 * drives, watches the control channel and, at the end, checks what landed.
 *
 * The run: sink_open -> sink_admit (door.c) -> ACCEPT -> make_qps or
 * connect_workers -> send_slices -> receive_canary -> sink_window ->
 * (verify) -> DONE -> the result (result.h) -> sink_close. With --sources N (fanin.c)
 * the sink that owns the door, DRAM and drives is the hall; each source
 * gets a session of its own (a follower) with its share of the slices.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "digest.h"
#include "door.h"
#include "judge.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "streams.h"
#include "rails.h"
#include "remote.h"
#include "sink.h"
#include "target.h"
#include "timing.h"
#include "watchdog.h"
#include "window.h"

static int sink_targets(struct sink *k);

/* One local reader thread: a region of one of the sink's own drives. */
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

/* Why the window was cut short (sink_check()). */
enum sink_stop {
	SINK_RUNNING = 0,
	SINK_CLOSED,	  /* the source closed the control connection */
	SINK_RESULT,	  /* its RESULT arrived (its window ended) */
	SINK_LOCAL_FAIL,  /* a local read failed */
	SINK_RDMA_LOST,	  /* an RDMA connection went down */
	SINK_PEER_ERROR,  /* the source sent ERROR (text in peer_err) */
	SINK_BAD_MESSAGE, /* something that is not PROGRESS or RESULT */
	SINK_SILENT,	  /* nothing from the source for --timeout */
};

/* Whole messages taken from a source per tick of the window: a flood waits its turn. */
#define SINK_MSGS_PER_TICK 16

struct sink {
	const struct options *o;
	struct target t[TARGET_MAX];
	int nt;
	unsigned char *dram;
	struct slice_layout lay;
	struct fab_port ports[FAB_MAX_PORTS];
	int nports;
	struct door *door;
	char where[1024]; /* the addresses the door listened on, for the header */
	struct fab_listener lis;
	bool listening;
	int cfd;
	struct ctrl_inbox in; /* the control channel during the window: a message in part */
	bool trusted;	      /* the source proved the key (or the sink is open) */
	char peer[64];
	struct ctrl_hello hello; /* the source's */
	uint64_t session;
	struct fab_conn *conns;
	struct ctrl_qp *sqp;		 /* verbs mode: the sink's QP of each worker */
	int wport[CTRL_MAX_WORKERS];	 /* each worker's port: its place in ports[] */
	char wsrc[CTRL_MAX_WORKERS][72]; /* verbs mode: the source port of each worker */
	struct rail rails[CTRL_MAX_RAILS];
	int nrails;
	struct lreader *lr;
	int nlr;
	atomic_bool stop;
	atomic_bool failed;
	struct ctrl_chunk *canary;
	uint32_t ncanary;
	enum verdict verdict;
	char vdetail[256];
	uint64_t *lstart, *lend, *lprev; /* per local target; lprev: --interval */
	double lseconds;
	double cpu_s;		 /* this process, user + system, inside the window */
	struct samples lsamples; /* the local stream, per second of the window: its variation */
	uint64_t start_sent_ns;	 /* when START left (sink clock) */
	uint64_t win_open_ns;	 /* the sink's window opened (sink clock) */
	int64_t delay_min_ns;	 /* least START -> heartbeat delay beyond the source's clock */
	double rcv;		 /* the source's variation (its RESULT), NAN unknown */
	bool have_window;	 /* its window is known (an accepted RESULT) */
	double src_open_ns, src_close_ns; /* the source's window in the sink's clock */
	struct ctrl_result res;
	bool have_res;
	bool res_rejected; /* the RESULT failed the plausibility checks: not a figure */
	/* The source's heartbeat (PROGRESS) during and after the window. */
	uint64_t last_heard;		      /* monotonic ns of the last message from the source */
	struct ctrl_progress prog, prog_line; /* the latest; the one of the last live line */
	bool have_prog;
	char peer_err[CTRL_MAX_STR];
	char failure[CTRL_MAX_STR + 256]; /* why the run failed, for the output ("" = it did not) */
	/* --sources N: a follower is one source's session; it borrows the hall's DRAM and ports. */
	bool follower;
	uint32_t wbase;	     /* this source's first slice among all the sources' */
	struct meeting *fan; /* every session ready before any START */

	struct meeting *sync; /* --bidir: this node's source's (the run state), else NULL */
};

static uint64_t slice_addr(const struct sink *k, uint32_t w)
{
	return (uint64_t)(uintptr_t)k->dram + k->lay.slices_off +
	       (uint64_t)(k->wbase + w) * k->lay.slice_len;
}

static unsigned char *slice_ptr(const struct sink *k, uint32_t w)
{
	return k->dram + k->lay.slices_off + (uint64_t)(k->wbase + w) * k->lay.slice_len;
}

/* The run failed: say why here (and keep it for the report). Returns 1. */
#define sink_fail(k, ...) nbw_fail((k)->failure, sizeof((k)->failure), __VA_ARGS__)

/* After sink_fail(): tell the source why, too (best effort). Returns rc. */
static int sink_tell(struct sink *k, int rc)
{
	struct ctrl_buf b;

	if (k->cfd >= 0)
		ctrl_send_free(k->cfd, &b, ctrl_encode_error(&b, k->failure), 1000);
	return rc;
}

/* As sink_fail(), and tell the source why. */
#define sink_refuse(k, ...) sink_tell((k), sink_fail((k), __VA_ARGS__))

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

/* Plan one reader per region of each local drive, each with its chunk of the DRAM. */
static int lreaders_plan(struct sink *k)
{
	const struct options *o = k->o;
	struct region *regs = calloc(o->threads, sizeof(*regs));
	int i, j, n = 0;

	k->nlr = k->nt * (int)o->threads;
	k->lr = calloc((size_t)k->nlr + 1, sizeof(*k->lr));
	if (!k->lr || !regs) {
		free(regs);
		return -ENOMEM;
	}
	for (i = 0; i < k->nt; i++) {
		target_regions(&k->t[i], o->threads, regs);
		for (j = 0; j < (int)o->threads; j++, n++) {
			struct lreader *lr = &k->lr[n];

			lr->k = k;
			lr->t = &k->t[i];
			lr->tindex = i;
			lr->reg = regs[j];
			lr->buf = k->dram + (uint64_t)n * o->chunk;
		}
	}
	free(regs);
	return 0;
}

static int lreaders_start(struct sink *k)
{
	int n, rc = lreaders_plan(k);

	for (n = 0; !rc && n < k->nlr; n++) {
		int err = pthread_create(&k->lr[n].tid, NULL, lreader_main, &k->lr[n]);

		if (err)
			return -err;
		k->lr[n].started = true;
	}
	return rc;
}

static void lreaders_stop(struct sink *k)
{
	int i;

	atomic_store(&k->stop, true);
	for (i = 0; i < k->nlr; i++)
		if (k->lr[i].started)
			pthread_join(k->lr[i].tid, NULL);
}

static uint64_t local_sum(const struct sink *k, const uint64_t *per_target)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < k->nt; i++)
		t += per_target[i];
	return t;
}

static void lsnapshot(void *ctx, uint64_t *out)
{
	struct sink *k = ctx;
	int i;

	memset(out, 0, sizeof(*out) * (size_t)(k->nt ? k->nt : 1));
	for (i = 0; i < k->nlr; i++)
		out[k->lr[i].tindex] += atomic_load_explicit(&k->lr[i].bytes, memory_order_relaxed);
	if (out == k->lstart) {
		/* The window opens: live lines and samples count from here. */
		memcpy(k->lprev, out, sizeof(*out) * (size_t)(k->nt ? k->nt : 1));
		k->prog_line = k->prog;
		k->win_open_ns = nbw_now_ns();
		samples_add(&k->lsamples, local_sum(k, out), 0, 1.0);
	}
}

/* ---- the control channel during the window ------------------------------------------ */

static enum sink_stop take_progress(struct sink *k, const void *p, uint32_t len)
{
	struct ctrl_progress pr;

	if (ctrl_decode_progress(p, len, &pr)) {
		snprintf(k->peer_err, sizeof(k->peer_err), "malformed PROGRESS");
		return SINK_BAD_MESSAGE;
	}
	if (!k->have_prog)
		k->prog_line = (struct ctrl_progress){0};
	k->prog = pr;
	k->have_prog = true;
	/* START's way there and this heartbeat's way back: their sum bounds the delay. */
	{
		int64_t d = (int64_t)(nbw_now_ns() - k->start_sent_ns) - (int64_t)pr.elapsed_ns;

		if (d >= 0 && (k->delay_min_ns < 0 || d < k->delay_min_ns))
			k->delay_min_ns = d;
	}
	return SINK_RUNNING;
}

static enum sink_stop take_error(struct sink *k, const void *p, uint32_t len)
{
	struct ctrl_error e;

	if (ctrl_decode_error(p, len, &e))
		snprintf(e.msg, sizeof(e.msg), "(malformed ERROR message)");
	snprintf(k->peer_err, sizeof(k->peer_err), "%s", e.msg);
	return SINK_PEER_ERROR;
}

/* One whole message from the source, in the window phase (ctrl_phase_allows()). */
static int sink_take_one(void *ctx, unsigned type, const void *p, uint32_t len)
{
	struct sink *k = ctx;

	k->last_heard = nbw_now_ns();
	if (type == CTRL_PROGRESS)
		return take_progress(k, p, len);
	if (type == CTRL_ERROR)
		return take_error(k, p, len);
	k->have_res = !ctrl_decode_result(p, len, &k->res);
	if (!k->have_res)
		snprintf(k->peer_err, sizeof(k->peer_err), "malformed RESULT");
	return k->have_res ? SINK_RESULT : SINK_BAD_MESSAGE;
}

/*
 * Take what the source sent within timeout_ms (0: what is there now), at
 * most SINK_MSGS_PER_TICK messages; a message in part waits in k->in for the
 * rest. A PROGRESS updates the heartbeat, a RESULT is kept (SINK_RESULT);
 * anything else ends the run with its reason; -ETIMEDOUT if no whole
 * message came.
 */
static int sink_take(struct sink *k, int timeout_ms)
{
	struct pollfd pfd = {.fd = k->cfd, .events = POLLIN};
	unsigned taken;
	int rc;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return -ETIMEDOUT;
	k->in.allow = ctrl_phase_allows(CTRL_PHASE_WINDOW);
	rc = ctrl_inbox_pump(&k->in, k->cfd, SINK_MSGS_PER_TICK, sink_take_one, k, &taken);
	if (rc < 0) {
		snprintf(k->peer_err, sizeof(k->peer_err), "%s",
			 rc == -EBADMSG ? "a message out of turn" : ctrl_strerror(rc));
		return rc == -ECONNRESET ? SINK_CLOSED : SINK_BAD_MESSAGE;
	}
	return rc ? rc : taken ? SINK_RUNNING : -ETIMEDOUT;
}

/* During the warm-up and the window, every tick: a reason to stop, or SINK_RUNNING. */
static int sink_check(void *ctx)
{
	struct sink *k = ctx;
	uint32_t i;
	int rc;

	if (atomic_load(&k->failed))
		return SINK_LOCAL_FAIL;
	if (k->cfd < 0) /* --sources: the hall's own window, its drives only */
		return SINK_RUNNING;
	rc = sink_take(k, 0);
	if (rc > 0)
		return rc;
	for (i = 0; i < k->hello.workers; i++)
		if (fab_conn_lost(&k->conns[i]))
			return SINK_RDMA_LOST;
	if (nbw_now_ns() - k->last_heard > nbw_s_to_ns(k->o->timeout))
		return SINK_SILENT;
	return SINK_RUNNING;
}

/* Every second of the window: the local stream's bytes, for its variation. */
static void sink_sample(void *ctx, double at)
{
	struct sink *k = ctx;
	uint64_t cur[TARGET_MAX + 1] = {0};
	int i;

	for (i = 0; i < k->nlr; i++)
		cur[k->lr[i].tindex] += atomic_load_explicit(&k->lr[i].bytes, memory_order_relaxed);
	samples_add(&k->lsamples, local_sum(k, cur), at, 1.0);
}

/* --interval: local drives as read here, RDMA as the source's heartbeats say. */
static void sink_live(void *ctx, double at, double secs)
{
	struct sink *k = ctx;
	uint64_t cur[TARGET_MAX + 1];
	struct live_value v[3];
	double local = 0, rdma = NAN;
	int i, n = 0;

	lsnapshot(k, cur);
	for (i = 0; i < k->nt; i++) {
		local += (double)(cur[i] - k->lprev[i]) / secs;
		k->lprev[i] = cur[i];
	}
	if (k->have_prog && k->prog.elapsed_ns > k->prog_line.elapsed_ns) {
		rdma = (double)(k->prog.bytes - k->prog_line.bytes) /
		       nbw_ns_to_s(k->prog.elapsed_ns - k->prog_line.elapsed_ns);
		k->prog_line = k->prog;
	}
	if (k->nt)
		v[n++] = (struct live_value){"local", local};
	v[n++] = (struct live_value){"rdma", rdma};
	if (isfinite(rdma))
		v[n++] = (struct live_value){"total", local + rdma};
	live_print(cli_live_stream(&k->o->cc), at, k->o->cc.gbits, v, n,
		   isfinite(rdma) ? NULL : "(no heartbeat since the last line)");
}

/* ---- handshake -------------------------------------------------------------- */

/*
 * Why the sink cannot take this HELLO beside the before workers of the sources
 * it took already, into why; false if it can, with the DRAM laid out for all.
 */
static bool hello_unacceptable(const struct sink *k, const struct door_guest *g, uint32_t before,
			       struct slice_layout *lay, char *why, size_t len)
{
	const struct options *o = k->o;
	struct ctrl_hello mine = remote_hello(o);
	char diff[256], a[32], b[32], c[32];
	uint64_t need;

	if (ctrl_hello_mismatch(&mine, &g->hello, diff, sizeof(diff))) {
		snprintf(why, len, "parameter mismatch with %s: %s", g->peer, diff);
		return true;
	}
	if (judge_workers_refused(before, g->hello.workers, MAX_WORKERS, remote_share(o), diff,
				  sizeof(diff))) {
		snprintf(why, len, "%s: %s", g->peer, diff);
		return true;
	}
	if (slice_layout(o->dram, (uint64_t)k->nt * o->threads * o->chunk,
			 before + g->hello.workers, o->chunk, o->depth, lay, &need)) {
		snprintf(why, len,
			 "sink DRAM %s is too small for %u workers%s x %u slots of %s (and the "
			 "local readers): it needs %s (--dram)",
			 format_size(o->dram, a, sizeof(a)), before + g->hello.workers,
			 before ? " of all sources" : "", o->depth + 1,
			 format_size(o->chunk, b, sizeof(b)), format_size(need, c, sizeof(c)));
		return true;
	}
	return false;
}

/* A session of its own for one source (--sources): the hall's DRAM and ports. */
static struct sink *sink_follower(struct sink *hall)
{
	struct sink *f = sink_create(hall->o);

	if (!f)
		return NULL;
	f->follower = true;
	f->dram = hall->dram;
	memcpy(f->ports, hall->ports, sizeof(f->ports));
	f->nports = hall->nports;
	snprintf(f->where, sizeof(f->where), "%s", hall->where);
	if (sink_targets(f)) {
		sink_destroy(f);
		return NULL;
	}
	if (getrandom(&f->session, sizeof(f->session), 0) != sizeof(f->session))
		f->session = nbw_now_ns() ^ ((uint64_t)(uintptr_t)f << 16);
	return f;
}

/* Admit guest g as source i of n: into the hall itself (into_hall, the first), else a follower. */
static struct sink *admit_one(struct sink *hall, bool into_hall, struct door_guest *g, int i, int n)
{
	struct sink *k = i || !into_hall ? sink_follower(hall) : hall;

	if (!k)
		return NULL;
	k->cfd = g->fd;
	k->trusted = g->trusted;
	snprintf(k->peer, sizeof(k->peer), "%s", g->peer);
	k->hello = g->hello;
	if (n > 1)
		fprintf(stderr, "%s: sink: source %d of %d: %s (%u workers)\n", nbw_prog, i + 1, n,
			g->peer, g->hello.workers);
	return k;
}

/*
 * The first source admitted waits for its ACCEPT at most --timeout: the others
 * must come within half of that (or by deadline, if sooner).
 */
static uint64_t first_patience(const struct options *o, uint64_t deadline)
{
	uint64_t by = nbw_now_ns() + nbw_s_to_ns(o->timeout) / 2;

	return deadline && deadline < by ? deadline : by;
}

/*
 * Serve the door until n sources said a HELLO the sink can take (into_hall:
 * the first goes into the hall, the sink that owns the door, DRAM and drives).
 * A stranger, a wrong key
 * or version, a bad or unacceptable HELLO never ends the run: it is turned
 * away (told why only if trusted) and the door keeps waiting. Then the door
 * shuts and the DRAM is cut for all, each source's share by its workers. 0
 * with *got admitted (fewer than n: --wait ran out), or an exit status after
 * the message (none came, or interrupted).
 */
int sink_admit(struct sink *hall, bool into_hall, struct sink **s, int n, int *got)
{
	const struct options *o = hall->o;
	uint64_t deadline = o->wait > 0 ? nbw_now_ns() + nbw_s_to_ns(o->wait) : 0;
	struct slice_layout lay = {0}, fits;
	uint32_t workers = 0;
	struct door_guest g;
	char why[512];
	int rc = 0, i;

	for (*got = 0; *got < n;) {
		nbw_watchdog_phase("waiting for a source (%d of %d came)", *got, n);
		if (!deadline) /* --wait 0: forever, by design; the budget starts with a source */
			nbw_watchdog_pause();
		rc = door_await(hall->door, deadline, &g);
		nbw_watchdog_resume();
		if (rc)
			break;
		if (hello_unacceptable(hall, &g, workers, &fits, why, sizeof(why))) {
			door_refuse(hall->door, &g, why);
			continue;
		}
		s[*got] = admit_one(hall, into_hall, &g, *got, n);
		if (!s[*got]) {
			door_refuse(hall->door, &g, "out of memory");
			rc = -ENOMEM;
			break;
		}
		s[*got]->wbase = workers;
		workers += g.hello.workers;
		lay = fits;
		if (!(*got)++) {
			deadline = first_patience(o, deadline);
			if (n > 1) /* item 11: the admission deadline, said */
				fprintf(stderr,
					"%s: sink: the other sources must come within %.1f s "
					"(half of --timeout, or --wait), at most %u workers each\n",
					nbw_prog, nbw_ns_to_s(deadline - nbw_now_ns()),
					remote_share(o));
		}
	}
	/* The door shuts: later comers are refused at once. */
	door_close(hall->door);
	hall->door = NULL;
	hall->lay = lay;
	for (i = 0; i < *got; i++)
		s[i]->lay = lay;
	if (rc == -EINTR)
		return sink_fail(hall, "interrupted while waiting for a source");
	if (rc == -ENOMEM)
		return sink_fail(hall, "out of memory for a source's session");
	if (!*got)
		return sink_fail(hall, "no source connected within %g s (--wait)", o->wait);
	return 0;
}

/* ACCEPT: the session and every port the sink accepts on. 0 or a ctrl error. */
static int send_accept(struct sink *k, struct ctrl_buf *b)
{
	struct ctrl_accept *a = calloc(1, sizeof(*a));
	int i, rc;

	if (!a)
		return -ENOMEM;
	a->session = k->session;
	for (i = 0; i < k->nports && i < CTRL_MAX_PORTS; i++) {
		const struct fab_port *p = &k->ports[i];
		struct ctrl_port *c = &a->ports[a->nports++];

		snprintf(c->dev, sizeof(c->dev), "%s", p->dev);
		c->port = p->port;
		c->link = p->link == FAB_LINK_IB ? 1 : 2;
		c->lid = p->lid;
		memcpy(c->gid, p->gid, sizeof(c->gid));
		snprintf(c->addr, sizeof(c->addr), "%s", p->addr);
		c->prefix_len = p->prefix_len;
		c->numa_node = p->numa_node;
		c->rate_mbps = (uint32_t)(p->rate_gbits * 1000);
		c->mtu = p->active_mtu;
		c->software = p->software;
	}
	rc = ctrl_send_free(k->cfd, b, ctrl_encode_accept(b, a), remote_timeout_ms(k->o));
	free(a);
	return rc;
}

/* Verbs mode, one worker: a QP on the port the source chose, its slice's MR, RTR/RTS. */
static int make_qp(struct sink *k, uint32_t w, const struct ctrl_wqp *q, struct ctrl_qp *mine)
{
	const struct fab_port *p = &k->ports[q->sink_port];
	struct fab_qp_attr local,
		remote = {.lid = q->qp.lid, .qpn = q->qp.qpn, .psn = q->qp.psn, .mtu = q->qp.mtu};
	struct fab_conn *c = &k->conns[w];
	int rc;

	memcpy(remote.gid, q->qp.gid, sizeof(remote.gid));
	rc = fab_qp_open(c, p, 1, slice_ptr(k, w), k->lay.slice_len, true, &local);
	if (!rc)
		rc = fab_qp_connect(c, p, &local, &remote, &k->o->lo);
	if (rc)
		return sink_refuse(k, "worker %u on %s:%u: %s", w, p->dev, p->port, c->why);
	*mine = (struct ctrl_qp){
		.lid = local.lid, .qpn = local.qpn, .psn = local.psn, .mtu = local.mtu};
	memcpy(mine->gid, local.gid, sizeof(mine->gid));
	k->wport[w] = q->sink_port;
	snprintf(k->wsrc[w], sizeof(k->wsrc[w]), "%s:%u", q->dev, q->port);
	return 0;
}

/* Verbs mode: the source's QPS, then one QP per worker where it asked. 0 or an exit status. */
static int make_qps(struct sink *k)
{
	char err[CTRL_MAX_STR];
	struct ctrl_wqp *q = NULL;
	uint32_t len, n = 0, i;
	void *p;
	int rc;

	k->conns = calloc(k->hello.workers, sizeof(*k->conns));
	k->sqp = calloc(k->hello.workers, sizeof(*k->sqp));
	if (!k->conns || !k->sqp)
		return sink_refuse(k, "out of memory");
	rc = ctrl_expect(k->cfd, CTRL_QPS, &p, &len, remote_timeout_ms(k->o), err, sizeof(err));
	if (!rc) {
		rc = ctrl_decode_qps(p, len, &q, &n);
		free(p);
	}
	if (rc)
		return sink_refuse(k, "%s: waiting for the QPs: %s", k->peer,
				   rc == -ECONNABORTED || rc == -EBADMSG ? err : ctrl_strerror(rc));
	if (judge_qps_refused(q, n, k->hello.workers, k->nports, err, sizeof(err)))
		rc = sink_refuse(k, "%s: %s", k->peer, err);
	for (i = 0; !rc && i < n; i++)
		if (k->ports[q[i].sink_port].link == FAB_LINK_ETH &&
		    !judge_gid_allowed(q[i].qp.gid, k->o->allow, k->o->nallow))
			rc = sink_refuse(k, "%s: worker %u: its GID is outside --allow", k->peer,
					 i);
	for (i = 0; !rc && i < n; i++)
		rc = make_qp(k, i, &q[i], &k->sqp[i]);
	free(q);
	return rc;
}

/* The place in k->ports of the port an rdma_cm connection landed on; -1 if none. */
static int port_index(const struct sink *k, const struct fab_conn *c)
{
	int i;

	for (i = 0; i < k->nports; i++)
		if (!strcmp(k->ports[i].dev, c->dev) && k->ports[i].port == c->port)
			return i;
	return -1;
}

/* One rdma_cm connection per worker, each with the MR of its own slice. */
static int connect_workers(struct sink *k)
{
	const struct options *o = k->o;
	uint64_t deadline = nbw_now_ns() + nbw_s_to_ns(o->timeout);
	uint32_t done = 0;

	k->conns = calloc(k->hello.workers, sizeof(*k->conns));
	if (!k->conns)
		return sink_refuse(k, "out of memory");
	while (done < k->hello.workers) {
		struct rdma_cm_id *id;
		struct fab_hello h;
		uint64_t now = nbw_now_ns();
		int rc;

		rc = now >= deadline
			     ? -ETIMEDOUT
			     : fab_listener_next(&k->lis, (int)((deadline - now) / 1000000) + 1,
						 &id, &h);
		if (rc == -ETIMEDOUT)
			return sink_refuse(k,
					   "%s: %u of %u RDMA connections arrived within "
					   "%g s (--timeout)",
					   k->peer, done, k->hello.workers, o->timeout);
		if (rc == -EINTR)
			return sink_refuse(k, "interrupted while the RDMA connections came");
		if (rc) {
			fprintf(stderr,
				"%s: RDMA connect request without our private data: rejected\n",
				nbw_prog);
			continue;
		}
		if (k->o->nallow &&
		    !netaddr_allowed(k->o->allow, k->o->nallow, fab_request_peer(id))) {
			nbw_err("RDMA connect request from outside --allow: rejected");
			fab_listener_reject(id);
			continue;
		}
		if (h.session != k->session || h.worker >= k->hello.workers ||
		    k->conns[h.worker].connected) {
			fprintf(stderr,
				"%s: RDMA connect request of another session or worker %u: "
				"rejected\n",
				nbw_prog, h.worker);
			fab_listener_reject(id);
			continue;
		}
		rc = fab_conn_accept(&k->conns[h.worker], id, slice_ptr(k, h.worker),
				     k->lay.slice_len, remote_timeout_ms(o));
		if (rc)
			return sink_refuse(k, "worker %u: %s", h.worker, k->conns[h.worker].why);
		k->wport[h.worker] = port_index(k, &k->conns[h.worker]);
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
		return sink_refuse(k, "out of memory");
	for (i = 0; i < k->hello.workers; i++) {
		s[i].addr = slice_addr(k, i);
		s[i].len = k->lay.slice_len;
		s[i].rkey = k->conns[i].mr->rkey;
		if (k->sqp)
			s[i].qp = k->sqp[i];
	}
	rc = ctrl_send_free(k->cfd, &b, ctrl_encode_slices(&b, s, k->hello.workers),
			    remote_timeout_ms(k->o));
	free(s);
	if (rc) {
		nbw_err("%s: sending the slices: %s", k->peer, ctrl_strerror(rc));
		snprintf(k->failure, sizeof(k->failure), "control channel lost");
		return NBW_EXIT_FAIL;
	}
	return 0;
}

/* ---- verification ------------------------------------------------------------ */

/* Hash what landed at the chunks c[] describe; the count that differ. */
static uint32_t check_chunks(struct sink *k, const struct ctrl_chunk *c, uint32_t n,
			     uint32_t *bad_worker, uint32_t *bad_slot)
{
	uint64_t deadline = nbw_now_ns() + nbw_s_to_ns(k->o->timeout);
	uint32_t i, bad = 0;

	for (i = 0; i < n; i++) {
		uint64_t got;

		/* Every 64 chunks: the clock (--timeout) and a signal end the hashing. */
		if (!(i % 64) && i && (nbw_now_ns() > deadline || nbw_interrupted())) {
			if (!bad) {
				*bad_worker = c[i].worker;
				*bad_slot = c[i].slot;
			}
			return bad + (n - i);
		}
		if (c[i].worker >= k->hello.workers || c[i].slot >= k->lay.slots ||
		    c[i].len > k->o->chunk || c[i].offset % DIGEST_BLOCK) {
			got = ~c[i].digest; /* an entry that cannot be checked fails */
		} else {
			got = digest_add(0, c[i].offset,
					 slice_ptr(k, c[i].worker) +
						 (uint64_t)c[i].slot * k->o->chunk,
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

/* The canary verdict from the table the source sent. */
static void judge_canary(struct sink *k)
{
	uint32_t bw = 0, bs = 0, bad;

	if (k->o->verify == CTRL_VERIFY_OFF) {
		k->verdict = VERDICT_OFF;
		return;
	}
	bad = check_chunks(k, k->canary, k->ncanary, &bw, &bs);
	if (k->ncanary != k->hello.workers) {
		k->verdict = VERDICT_FAIL;
		snprintf(k->vdetail, sizeof(k->vdetail), "%u canaries for %u workers", k->ncanary,
			 k->hello.workers);
	} else if (bad) {
		k->verdict = VERDICT_FAIL;
		snprintf(k->vdetail, sizeof(k->vdetail),
			 "%u of %u canary chunks differ, first: worker %u", bad, k->ncanary, bw);
	} else {
		k->verdict = VERDICT_PASS;
		snprintf(k->vdetail, sizeof(k->vdetail), "%u canary chunks match", k->ncanary);
	}
}

static int receive_canary(struct sink *k)
{
	char err[CTRL_MAX_STR];
	uint32_t len;
	void *p;
	int rc;

	rc = ctrl_expect(k->cfd, CTRL_CANARY, &p, &len, 2 * remote_timeout_ms(k->o), err,
			 sizeof(err));
	if (!rc)
		rc = ctrl_decode_chunks(p, len, &k->canary, &k->ncanary);
	free(p);
	if (rc == -ECONNABORTED)
		return sink_fail(k, "%s: source failed: %s", k->peer, err);
	if (rc)
		return sink_refuse(k, "%s: waiting for the canary: %s", k->peer,
				   err[0] ? err : ctrl_strerror(rc));
	judge_canary(k);
	return 0;
}

/* worker 0's slots of c[] as "slot offset length" lines. */
static void map_lines(FILE *f, const struct ctrl_chunk *c, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (c[i].worker == 0)
			fprintf(f, "%u %llu %u\n", c[i].slot, (unsigned long long)c[i].offset,
				c[i].len);
}

/* --dump-slice FILE.map: the canary, then the slots of the full table (if any). */
static void dump_map(struct sink *k, const struct ctrl_chunk *c, uint32_t n)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s.map", k->o->dump_slice);
	f = fopen(path, "w");
	if (!f)
		return;
	map_lines(f, k->canary, k->ncanary);
	map_lines(f, c, n);
	fclose(f);
}

/* --verify full: every slot the source last wrote, as it says, checked here. */
static void receive_full(struct sink *k)
{
	char err[CTRL_MAX_STR];
	struct ctrl_chunk *c = NULL;
	uint32_t len, n = 0, bw = 0, bs = 0, bad;
	void *p;
	int rc;

	nbw_watchdog_phase("verifying every slot %s wrote", k->peer);
	rc = ctrl_expect(k->cfd, CTRL_VERIFY, &p, &len, remote_timeout_ms(k->o), err, sizeof(err));
	if (!rc)
		rc = ctrl_decode_chunks(p, len, &c, &n);
	free(p);
	if (!rc && judge_table_refused(c, n, k->hello.workers, k->lay.slots, err, sizeof(err)))
		rc = -EBADMSG;
	if (rc) {
		k->verdict = VERDICT_FAIL;
		snprintf(k->vdetail, sizeof(k->vdetail), "no slot table from the source: %s",
			 err[0] ? err : ctrl_strerror(rc));
		free(c);
		return;
	}
	bad = check_chunks(k, c, n, &bw, &bs);
	if (bad) {
		snprintf(k->vdetail, sizeof(k->vdetail),
			 "%s; %u of %u slice slots differ, first: worker %u slot %u",
			 k->verdict == VERDICT_PASS ? "canaries match" : "canary", bad, n, bw, bs);
		k->verdict = VERDICT_FAIL;
	} else if (k->verdict == VERDICT_PASS) {
		snprintf(k->vdetail, sizeof(k->vdetail),
			 "%u canary chunks and %u slice slots match", k->ncanary, n);
	}
	if (k->o->dump_slice)
		dump_map(k, c, n);
	free(c);
}

static void dump_slice(struct sink *k)
{
	FILE *f = fopen(k->o->dump_slice, "w");

	if (!f || fwrite(slice_ptr(k, 0), 1, k->lay.slice_len, f) != k->lay.slice_len)
		nbw_warn("%s: %s", k->o->dump_slice, strerror(errno));
	if (f)
		fclose(f);
	if (k->o->verify != CTRL_VERIFY_FULL)
		dump_map(k, NULL, 0);
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
	if (o->cc.interval > 0 && o->cc.interval * 500 < ms)
		ms = o->cc.interval * 500;
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
		int rc, ms = remote_timeout_ms(k->o);

		if (now >= deadline || nbw_interrupted())
			return SINK_SILENT;
		if ((uint64_t)ms * 1000000ULL > deadline - now)
			ms = (int)((deadline - now) / 1000000) + 1;
		if (ms > 500)
			ms = 500; /* stay responsive to Ctrl-C */
		rc = sink_take(k, ms);
		if (rc == -ETIMEDOUT) {
			if (nbw_now_ns() - k->last_heard > nbw_s_to_ns(k->o->timeout))
				return SINK_SILENT;
			continue;
		}
		if (rc)
			return rc;
	}
}

/* The message for a window that did not end with the source's RESULT. */
static int window_failure(struct sink *k, enum sink_stop why, const struct window *w)
{
	const char *when = !w->measured				   ? "warm-up"
			   : w->seconds + 0.05 < k->o->cc.duration ? "window"
								   : "wait for its result";
	int i;

	switch (why) {
	case SINK_LOCAL_FAIL:
		for (i = 0; i < k->nlr && !k->lr[i].err; i++)
			;
		return sink_refuse(k, "%s: read at offset %llu: %s", k->lr[i].t->d.path,
				   (unsigned long long)k->lr[i].err_offset,
				   strerror(-k->lr[i].err));
	case SINK_CLOSED:
	case SINK_RDMA_LOST:
		return sink_fail(k, "%s: the source went away during the %s (%s)", k->peer, when,
				 why == SINK_CLOSED ? "control connection closed"
						    : "RDMA connection lost");
	case SINK_PEER_ERROR:
		return sink_fail(k, "%s: source failed: %s", k->peer, k->peer_err);
	case SINK_SILENT:
		return sink_fail(k,
				 "%s: the source went silent: nothing on the control channel for "
				 "%g s (--timeout; network or source gone)",
				 k->peer, k->o->timeout);
	default:
		return sink_refuse(k, "%s: protocol error during the window: %s", k->peer,
				   k->peer_err);
	}
}

/* Each port's line rate as this sink knows it (0: unknown or software), into gbits[]. */
static void port_rates(const struct sink *k, double *gbits)
{
	int p;

	for (p = 0; p < k->nports; p++)
		gbits[p] = k->ports[p].software || k->ports[p].rate_gbits <= 0
				   ? 0
				   : k->ports[p].rate_gbits;
}

/* All ports' line rate together; 0 when one of them has none known. */
static double ports_rate(const struct sink *k)
{
	double gbits[FAB_MAX_PORTS], sum = 0;
	int p;

	port_rates(k, gbits);
	for (p = 0; p < k->nports; p++) {
		if (gbits[p] <= 0)
			return 0;
		sum += gbits[p];
	}
	return sum;
}

/* The rails as the sink sees them: its port <- the source's, from the RESULT. */
static void sink_rails(struct sink *k)
{
	double gbits[FAB_MAX_PORTS];
	uint32_t i;

	port_rates(k, gbits);
	k->nrails = 0;
	for (i = 0; i < k->res.nrails && k->nrails < CTRL_MAX_RAILS; i++) {
		const struct ctrl_rail *x = &k->res.rails[i];
		const struct fab_port *p;
		struct rail *y;

		if (x->sink_port >= k->nports) /* the peer's word: not a port of ours */
			continue;
		p = &k->ports[x->sink_port];
		y = &k->rails[k->nrails++];

		*y = (struct rail){.local_port = p->port,
				   .remote_port = x->port,
				   .qps = x->qps,
				   .bytes = x->bytes,
				   .line_rate_gbits =
					   judge_line_mbps(x->line_mbps, gbits[x->sink_port]) /
					   1000.0,
				   .sink_index = x->sink_port};
		memcpy(y->local_dev, p->dev, sizeof(y->local_dev));
		snprintf(y->remote_dev, sizeof(y->remote_dev), "%s", x->dev);
	}
}

/* Why the source's totals cannot be true, into why; false when they can. */
static bool result_implausible(struct sink *k, const struct window *w, char *why, size_t len)
{
	double gbits[FAB_MAX_PORTS];
	struct judge_frame f = {.workers = k->hello.workers,
				.source = k->hello.source,
				.duration_s = k->o->cc.duration,
				.nports = k->nports,
				.port_gbits = gbits,
				.wport = k->wport};

	port_rates(k, gbits);
	if (w->end_reason != WINDOW_STOPPED)
		return judge_result_refused(&k->res, &f, why, len);
	snprintf(why, len, "its result came %.2f s into the window, before it could end",
		 w->seconds);
	return true;
}

/*
 * The source's window in the sink's clock: START left at start_sent; it
 * arrived about half the least START -> heartbeat delay later (the way there
 * and a heartbeat's way back); the source opened its window open_ns after
 * that. streams.c judges it against the sink's window.
 */
static void source_window(struct sink *k)
{
	double d = k->delay_min_ns > 0 ? k->delay_min_ns / 2.0 : 0;

	k->src_open_ns = (double)k->start_sent_ns + d + (double)k->res.open_ns;
	k->src_close_ns = k->src_open_ns + (double)k->res.window_ns;
	k->rcv = k->res.cv_milli_pct == UINT32_MAX ? NAN : k->res.cv_milli_pct / 1000.0;
	k->have_window = k->res.window_ns > 0;
}

/* After its RESULT: the full table, and whether the source completed its window. */
static int after_result(struct sink *k)
{
	char err[CTRL_MAX_STR];
	uint32_t len;
	void *p;

	if (k->o->verify == CTRL_VERIFY_FULL)
		receive_full(k);
	if (k->res.ok)
		return 0;
	/* Its ERROR, if any, follows the RESULT (CTRL_PHASE_END: nothing else may come). */
	if (!ctrl_expect(k->cfd, CTRL_ERROR, &p, &len, 200, err, sizeof(err))) {
		struct ctrl_error e;

		if (ctrl_decode_error(p, len, &e))
			snprintf(e.msg, sizeof(e.msg), "(malformed ERROR message)");
		free(p);
		return sink_fail(k, "%s: source failed: %s", k->peer, e.msg);
	}
	return sink_fail(k, "%s: the source did not complete its window", k->peer);
}

/* START, the window over the local readers and the source's heartbeat, its RESULT. */
static int sink_window(struct sink *k)
{
	const struct options *o = k->o;
	struct ctrl_start st = {
		.warmup_ms = k->hello.warmup_ms,
		.duration_ms = k->hello.duration_ms,
		.progress_ms = progress_period_ms(o),
	};
	struct window w = {
		.check = sink_check,
		.live = sink_live,
		.sample = sink_sample,
		.snapshot = lsnapshot,
	};
	enum sink_stop why = SINK_RUNNING;
	struct ctrl_buf b;
	int rc;

	window_bind(&w, &o->cc, k, k->lstart, k->lend);
	nbw_watchdog_phase("the window (%s writing)", k->cfd >= 0 ? k->peer : "the sources");
	if (lreaders_start(k)) {
		lreaders_stop(k);
		return sink_refuse(k, "cannot start the local reader threads");
	}
	if (k->sync && !meeting_await(k->sync, remote_timeout_ms(o) / 2))
		nbw_err("--bidir: this node's source is not ready: the windows may not overlap");
	/*
	 * A source waits --timeout for START after its canary; the hall, whose wait
	 * begins before the handshakes, waits for them all (each step is bounded).
	 */
	if (k->fan && !meeting_await(k->fan, remote_timeout_ms(o) * (k->cfd < 0 ? 5 : 1) / 2))
		nbw_err("%s: not every source is ready: the windows may not overlap",
			k->cfd >= 0 ? k->peer : "the sink's drives");
	k->start_sent_ns = nbw_now_ns();
	rc = k->cfd < 0
		     ? 0
		     : ctrl_send_free(k->cfd, &b, ctrl_encode_start(&b, &st), remote_timeout_ms(o));
	k->last_heard = nbw_now_ns();
	if (rc) {
		snprintf(k->peer_err, sizeof(k->peer_err), "%s", ctrl_strerror(rc));
		why = SINK_CLOSED;
	} else if (window_run(&w) == WINDOW_STOPPED) {
		why = (enum sink_stop)w.stopped_by;
	}
	lreaders_stop(k);
	k->lseconds = w.seconds;
	k->cpu_s = w.cpu_s;
	if (!w.measured) {
		memset(k->lend, 0, sizeof(uint64_t) * (size_t)(k->nt ? k->nt : 1));
		memset(k->lstart, 0, sizeof(uint64_t) * (size_t)(k->nt ? k->nt : 1));
	}
	if (w.end_reason == WINDOW_SIGNAL)
		return sink_refuse(k, "interrupted");
	if (why == SINK_RUNNING && k->cfd < 0) /* the hall: no source of its own */
		return 0;
	if (why == SINK_RUNNING) { /* the window ended here: the source's RESULT comes next */
		nbw_watchdog_phase("waiting for %s's RESULT", k->peer);
		why = await_result(k);
	}
	if (why != SINK_RESULT)
		return window_failure(k, why, &w);
	k->res_rejected = !k->res.ok; /* a failed source's figures are not figures */
	if (k->res.ok && result_implausible(k, &w, k->peer_err, sizeof(k->peer_err))) {
		k->res_rejected = true;
		return sink_refuse(k, "%s: implausible result: %s", k->peer, k->peer_err);
	}
	if (k->res.ok) {
		sink_rails(k);
		source_window(k);
	}
	return after_result(k);
}

/* ---- the result ------------------------------------------------------------------- */

/* The RDMA figure: the source's RESULT if ok and plausible, else a plausible heartbeat's. */
static enum rdma_from rdma_figure(const struct sink *k, uint64_t *bytes, double *sec)
{
	return judge_rdma_from(k->have_res ? &k->res : NULL, k->res_rejected,
			       k->have_prog ? &k->prog : NULL, k->o->cc.duration, ports_rate(k),
			       bytes, sec);
}

/* ---- set-up and tear-down ------------------------------------------------------------ */

/* The sink's own drives (unless --no-local) and its counters. 0 or an exit status. */
static int sink_targets(struct sink *k)
{
	const struct options *o = k->o;
	struct target_query q = {.option = "--local-disks", .required = o->disks != NULL};
	int rc;

	if (!o->no_local && !k->follower) {
		rc = remote_targets(o, &q, k->t, &k->nt);
		if (rc)
			return rc;
	}
	if (samples_init(&k->lsamples, o->cc.duration, 1.0))
		return sink_fail(k, "out of memory");
	/* One block: the counters at the window's open, at its close, at the last live line. */
	k->lstart = calloc(3 * ((size_t)k->nt + 1), sizeof(uint64_t));
	if (!k->lstart)
		return sink_fail(k, "out of memory");
	k->lend = k->lstart + k->nt + 1;
	k->lprev = k->lend + k->nt + 1;
	return 0;
}

/* The DRAM buffer, locked. 0 or an exit status. */
static int sink_dram(struct sink *k)
{
	const struct options *o = k->o;
	char a[32], b[32];
	int rc, lock_errno;

	if ((uint64_t)k->nt * o->threads * o->chunk >= o->dram) {
		return nbw_usage_err(
			"--dram %s leaves nothing for slices after %d local drive%s x %u "
			"threads x %s",
			format_size(o->dram, a, sizeof(a)), k->nt, k->nt == 1 ? "" : "s",
			o->threads, format_size(o->chunk, b, sizeof(b)));
	}
	rc = buffer_alloc_locked(o->dram, 4096, (void **)&k->dram, &lock_errno);
	if (!rc)
		return 0;
	k->dram = NULL;
	if (lock_errno)
		return sink_fail(k,
				 "cannot lock %s of DRAM: %s (raise 'ulimit -l', or lower --dram)",
				 format_size(o->dram, a, sizeof(a)), strerror(lock_errno));
	return sink_fail(k,
			 "cannot allocate %s of DRAM: %s (lower --dram; 'ulimit -l' must allow "
			 "locking it too)",
			 format_size(o->dram, a, sizeof(a)), strerror(-rc));
}

static int sink_listen(struct sink *k)
{
	const struct options *o = k->o;
	const char *const *addrs;
	int rc, n;

	k->door = door_open(o, k->ports, k->nports);
	if (k->door)
		snprintf(k->where, sizeof(k->where), "%s", door_where(k->door));
	if (!k->door)
		return sink_fail(k, "cannot listen on port %u", o->port);
	n = door_addrs(k->door, &addrs);
	rc = fab_listener_open(&k->lis, addrs, n, o->port);
	if (rc)
		return sink_fail(k, "rdma_cm %s port %u: %s", door_where(k->door), o->port,
				 strerror(-rc));
	k->listening = true;
	if (getrandom(&k->session, sizeof(k->session), 0) != sizeof(k->session))
		k->session = nbw_now_ns() ^ ((uint64_t)getpid() << 32);
	return 0;
}

int sink_open(struct sink *k)
{
	k->nports = remote_select_ports(k->o, k->ports);
	if (k->nports < 0) { /* said on stderr; kept for the JSON */
		snprintf(k->failure, sizeof(k->failure), "no usable RDMA port");
		return NBW_EXIT_FAIL;
	}
	return sink_targets(k) ?: sink_dram(k) ?: sink_listen(k);
}

/* Reverse order of set-up; a follower leaves the hall's DRAM to the hall. */
static void sink_close(struct sink *k)
{
	uint32_t i;

	/* Teardown has a bound of its own, whatever is left of the budget. */
	nbw_watchdog_bound(k->o->timeout + 5);
	for (i = 0; k->conns && i < k->hello.workers; i++) {
		nbw_watchdog_phase("teardown: worker %u of %u of %s", i, k->hello.workers,
				   k->cfd >= 0 ? k->peer : "the sink");
		fab_conn_close(&k->conns[i]);
	}
	free(k->conns);
	free(k->sqp);
	if (k->cfd >= 0)
		close(k->cfd);
	if (k->listening)
		fab_listener_close(&k->lis);
	door_close(k->door);
	if (!k->follower)
		buffer_free_locked(k->dram, k->o->dram);
	target_close(k->t, k->nt);
	free(k->canary);
	free(k->lr);
	free(k->lstart); /* and lend, lprev */
	samples_free(&k->lsamples);
	ctrl_result_free(&k->res);
	ctrl_inbox_reset(&k->in);
	nbw_watchdog_unbound();
}

struct sink *sink_create(const struct options *o)
{
	struct sink *k = nbw_zalloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->o = o;
	k->cfd = -1;
	k->verdict = VERDICT_NONE;
	memset(k->wport, 0xff, sizeof(k->wport));
	k->delay_min_ns = -1;
	return k;
}

void sink_destroy(struct sink *k)
{
	if (!k)
		return;
	sink_close(k);
	free(k);
}

/* After the admission: ACCEPT, the QPs, the slices and the canary's verdict. */
static int sink_handshake(struct sink *k)
{
	struct ctrl_buf b;
	int rc;

	nbw_watchdog_phase("the handshake with %s", k->peer);
	rc = send_accept(k, &b);
	if (rc)
		return sink_fail(k, "%s: %s", k->peer, ctrl_strerror(rc));
	rc = k->o->conn == CTRL_CONN_VERBS ? make_qps(k) : connect_workers(k);
	return rc ?: send_slices(k) ?: receive_canary(k);
}

/* The window, the verdict and DONE to the source. 0 or an exit status. */
static int sink_conclude(struct sink *k)
{
	struct ctrl_buf b;
	int rc = sink_window(k);

	if (!rc && k->o->dump_slice)
		dump_slice(k);
	if (!rc && k->verdict == VERDICT_FAIL)
		rc = NBW_EXIT_FAIL;
	if (k->cfd >= 0 && !k->failure[0]) {
		struct ctrl_done d = {.verify = (uint8_t)(k->verdict == VERDICT_NONE ? VERDICT_FAIL
										     : k->verdict)};

		ctrl_send_free(k->cfd, &b, ctrl_encode_done(&b, &d), 1000);
	}
	return rc;
}

int sink_session(struct sink *k, struct meeting *fan)
{
	int rc = 0;

	k->fan = fan;
	if (k->cfd >= 0) {
		rc = sink_handshake(k);
		if (fan) /* ready, or failed and not coming: the others need not wait for it */
			meeting_arrive(fan);
	}
	return rc ? rc : sink_conclude(k);
}

/* The session's RDMA stream: its figure, drives, rails, window and verdict. */
static int session_stream(const struct sink *k, struct result_stream *st)
{
	bool res = k->have_res && !k->res_rejected;
	uint32_t i;

	result_stream_free(st);
	snprintf(st->peer, sizeof(st->peer), "%s", k->peer);
	st->workers = k->hello.workers;
	st->source = (enum ctrl_source)k->hello.source;
	st->slice_len = k->lay.slice_len;
	st->from = rdma_figure(k, &st->bytes, &st->seconds);
	st->has_result = k->have_res;
	st->drives_known = res;
	st->drives = res && k->res.ndrives ? calloc(k->res.ndrives, sizeof(*st->drives)) : NULL;
	st->rails = k->nrails ? calloc((size_t)k->nrails, sizeof(*st->rails)) : NULL;
	if ((res && k->res.ndrives && !st->drives) || (k->nrails && !st->rails))
		return -ENOMEM;
	for (i = 0; res && i < k->res.ndrives; i++) {
		struct result_drive *d = &st->drives[i];

		snprintf(d->path, sizeof(d->path), "%s", k->res.drives[i].path);
		snprintf(d->model, sizeof(d->model), "%s", k->res.drives[i].model);
		d->numa_node = k->res.drives[i].numa_node;
		d->workers = k->res.drives[i].workers;
		d->bytes = k->res.drives[i].bytes;
	}
	st->ndrives = res ? (int)k->res.ndrives : 0;
	if (k->nrails)
		memcpy(st->rails, k->rails, sizeof(*st->rails) * (size_t)k->nrails);
	st->nrails = k->nrails;
	st->have_window = k->have_window;
	st->open_ns = k->src_open_ns;
	st->close_ns = k->src_close_ns;
	st->cv = k->have_window ? k->rcv : NAN;
	st->verdict = k->verdict;
	snprintf(st->vdetail, sizeof(st->vdetail), "%s", k->vdetail);
	snprintf(st->failure, sizeof(st->failure), "%s", k->failure);
	return 0;
}

/* The sink's own: its local drives, window, DRAM, ports, verdict and the sum's rule. */
static int hall_result(const struct sink *k, struct result *x)
{
	int j;

	if (result_locals(x, k->nt))
		return -ENOMEM;
	for (j = 0; j < k->nt; j++) {
		struct result_drive *d = &x->local[j];

		snprintf(d->path, sizeof(d->path), "%s", k->t[j].d.path);
		snprintf(d->model, sizeof(d->model), "%s", k->t[j].d.model);
		d->numa_node = k->t[j].d.numa_node;
		d->workers = k->o->threads;
		d->bytes = k->lend[j] - k->lstart[j];
	}
	snprintf(x->where, sizeof(x->where), "%s", k->where);
	if (x->mode == RESULT_SINK)
		x->source = (enum ctrl_source)k->hello.source;
	x->lseconds = k->lseconds;
	x->lcv = nbw_cv_pct(k->lsamples.rate, k->lsamples.n);
	x->open_ns = (double)k->win_open_ns;
	x->cpu_s = k->cpu_s;
	x->local_len = k->lay.local_len;
	x->ports_gbits = ports_rate(k);
	x->verdict = k->verdict;
	snprintf(x->vdetail, sizeof(x->vdetail), "%s", k->vdetail);
	snprintf(x->failure, sizeof(x->failure), "%s", k->failure);
	return 0;
}

int sink_result(const struct sink *k, struct result *x, struct result_stream *st)
{
	if (x && hall_result(k, x))
		return -ENOMEM;
	return st ? session_stream(k, st) : 0;
}

void sink_waiting(const struct sink *k, int n)
{
	fprintf(stderr, "%s: sink: waiting for %s on %s port %u (%s)\n", nbw_prog,
		n > 1 ? "the sources" : "a source", k->where, k->o->port,
		k->o->key.len ? "pre-shared key required" : "open: no pre-shared key");
}

/* One source, its header told before the window. */
static int sink_one(struct sink *k, struct result *x)
{
	struct sink *one[1];
	int got, rc;

	sink_waiting(k, 1);
	rc = sink_admit(k, true, one, 1, &got);
	if (!rc)
		rc = sink_handshake(k);
	if (rc)
		return rc;
	if (sink_result(k, x, NULL))
		return sink_fail(k, "out of memory");
	result_begin(x);
	return sink_conclude(k);
}

int run_sink(const struct options *o, const struct run_state *run, struct result *x)
{
	struct sink *k = sink_create(o);
	int rc;

	if (!k)
		return NBW_EXIT_FAIL;
	k->sync = run->sync;
	rc = sink_open(k);
	if (!rc)
		rc = sink_one(k, x);
	if (result_streams(x, 1) || sink_result(k, x, &x->streams[0])) {
		nbw_err("out of memory");
		rc = NBW_EXIT_FAIL;
	} else {
		x->streams[0].rc = rc;
	}
	x->rc = rc;
	streams_judge(x);
	sink_destroy(k);
	return rc;
}
