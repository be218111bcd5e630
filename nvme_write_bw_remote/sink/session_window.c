// SPDX-License-Identifier: MIT
/*
 * session_window.c: a session's window and end (see session.h): START, the
 * window over its local stream (the hall's drives with one source, else
 * none) and the source's heartbeats, its RESULT and the checks on it
 * (judge.c), --verify full (verify.c) and DONE; and session_run, the whole
 * conversation: the handshake (session.c), then all this.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beat.h"
#include "judge.h"
#include "nbw.h"
#include "remote.h"
#include "result.h"
#include "session.h"
#include "timing.h"
#include "waits.h"
#include "watchdog.h"

/* Whole messages taken from a source per tick of the window: a flood waits its turn. */
#define SINK_MSGS_PER_TICK 16
/* The ports' counters are read at most this long before a source's window opens ... */
#define SINK_CTR_EDGE_MS 50u
/* ... as the window looks at the session every SINK_TICK_MS. */
#define SINK_TICK_MS 10

/* ---- the control channel during the window ------------------------------------------ */

static enum sink_stop take_progress(struct session *s, const void *p, uint32_t len)
{
	struct ctrl_progress pr;

	if (ctrl_decode_progress(p, len, &pr)) {
		snprintf(s->peer_err, sizeof(s->peer_err), "malformed PROGRESS");
		return SINK_BAD_MESSAGE;
	}
	if (!s->have_prog)
		s->prog_line = (struct ctrl_progress){0};
	pthread_mutex_lock(&s->beat_lock); /* the hall's live lines read it (--sources) */
	s->prog = pr;
	s->have_prog = true;
	pthread_mutex_unlock(&s->beat_lock);
	/* START's way there and this heartbeat's way back: their sum bounds the delay. */
	{
		int64_t d;

		if (beat_delay(nbw_now_ns() - s->start_sent_ns, pr.elapsed_ns, &d) &&
		    (s->delay_min_ns < 0 || d < s->delay_min_ns))
			s->delay_min_ns = d;
	}
	return SINK_RUNNING;
}

static enum sink_stop take_error(struct session *s, const void *p, uint32_t len)
{
	struct ctrl_error e;

	if (ctrl_decode_error(p, len, &e))
		snprintf(e.msg, sizeof(e.msg), "(malformed ERROR message)");
	snprintf(s->peer_err, sizeof(s->peer_err), "%s", e.msg);
	return SINK_PEER_ERROR;
}

/* One whole message from the source, of a type its state takes (ctrl_step_allows()). */
static int take_one(void *ctx, unsigned type, const void *p, uint32_t len)
{
	struct session *s = ctx;

	s->last_heard = nbw_now_ns();
	session_took(s, type);
	if (type == CTRL_PROGRESS)
		return take_progress(s, p, len);
	if (type == CTRL_ERROR)
		return take_error(s, p, len);
	s->have_res = !ctrl_decode_result(p, len, &s->res);
	if (!s->have_res)
		snprintf(s->peer_err, sizeof(s->peer_err), "malformed RESULT");
	return s->have_res ? SINK_RESULT : SINK_BAD_MESSAGE;
}

/*
 * Take what the source sent within timeout_ms (0: what is there now), at
 * most SINK_MSGS_PER_TICK messages; a message in part waits in s->in for the
 * rest. A PROGRESS updates the heartbeat, a RESULT is kept (SINK_RESULT);
 * anything else ends the run with its reason; -ETIMEDOUT if no whole
 * message came.
 */
static int take(struct session *s, int timeout_ms)
{
	struct pollfd pfd = {.fd = s->cfd, .events = POLLIN};
	unsigned taken;
	int rc;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return -ETIMEDOUT;
	s->in.allow = ctrl_step_allows(s->state);
	rc = ctrl_inbox_pump(&s->in, s->cfd, SINK_MSGS_PER_TICK, take_one, s, &taken);
	if (rc < 0) {
		snprintf(s->peer_err, sizeof(s->peer_err), "%s",
			 rc == -EBADMSG ? "a message out of turn" : ctrl_strerror(rc));
		return rc == -ECONNRESET ? SINK_CLOSED : SINK_BAD_MESSAGE;
	}
	return rc ? rc : taken ? SINK_RUNNING : -ETIMEDOUT;
}

/*
 * The ports' counters at the window's edge, read once within
 * SINK_CTR_EDGE_MS before the source's window can open (START's warm-up
 * after START left): its claim is held to what they count from there.
 */
static void counters_at_edge(struct session *s)
{
	uint64_t edge = s->start_sent_ns + (uint64_t)s->hello.warmup_ms * 1000000;

	if (s->ctr_open || nbw_now_ns() + SINK_CTR_EDGE_MS * 1000000ull < edge)
		return;
	s->ctr_open = remote_counters_read(s->o, s->env->ports, s->env->nports);
	s->ctr_open_ns = nbw_now_ns();
}

/* During the warm-up and the window, every tick: a reason to stop, or SINK_RUNNING. */
static int check(void *ctx)
{
	struct session *s = ctx;
	uint32_t i;
	int rc;

	counters_at_edge(s);
	if (local_failed(s->loc))
		return SINK_LOCAL_FAIL;
	rc = take(s, 0);
	if (rc > 0)
		return rc;
	for (i = 0; i < s->hello.workers; i++)
		if (fab_conn_lost(&s->conns[i]))
			return SINK_RDMA_LOST;
	if (nbw_now_ns() - s->last_heard > wait_ns(s->o, WAIT_SILENCE))
		return SINK_SILENT;
	return SINK_RUNNING;
}

/* Every second of the window: the local stream's bytes, for its variation. */
static void sample(void *ctx, double at)
{
	struct session *s = ctx;

	local_sample(s->loc, at);
}

static void snapshot(void *ctx, uint64_t *out)
{
	struct session *s = ctx;

	bool open = local_snapshot(s->loc, out);

	if (open) {
		s->prog_line = s->prog;
		s->win_open_ns = nbw_now_ns();
	}
	local_links(s->loc, open);
}

/* --interval: local drives as read here, RDMA as the source's heartbeats say. */
static void live(void *ctx, double at, double secs)
{
	struct session *s = ctx;
	struct live_value v[3];
	double local = local_live(s->loc, secs);
	double rdma = s->have_prog ? session_beat_rate(&s->prog, &s->prog_line) : NAN;

	result_live_sink(s->x, at, v, 0, s->loc->nt > 0, local, rdma,
			 "(no heartbeat since the last line)");
}

/* ---- the window ---------------------------------------------------------------------- */

/*
 * The heartbeat period the source is asked for: at most 1 s, the table's
 * "heartbeat" (a quarter of --timeout, so one lost beat is not silence) and
 * half of --interval (so every live line has a fresh figure).
 */
static uint32_t progress_period_ms(const struct options *o)
{
	double ms = 1000;

	if (wait_s(o, WAIT_HEARTBEAT) * 1000 < ms)
		ms = wait_s(o, WAIT_HEARTBEAT) * 1000;
	if (o->cc.interval > 0 && o->cc.interval * 500 < ms)
		ms = o->cc.interval * 500;
	return ms < 10 ? 10 : (uint32_t)ms;
}

/*
 * After the sink's window: the source's window ends a little later (it got
 * START later) and it drains what is in flight, sending heartbeats
 * meanwhile. Wait for its RESULT; silence ("silence", --timeout) or the
 * table's "result-all" (3 x --timeout) ends the wait.
 */
static int await_result(struct session *s)
{
	uint64_t deadline = nbw_now_ns() + wait_ns(s->o, WAIT_RESULT_ALL);

	for (;;) {
		uint64_t now = nbw_now_ns();
		int rc, ms = wait_ms(s->o, WAIT_SILENCE);

		if (now >= deadline || nbw_interrupted())
			return SINK_SILENT;
		if ((uint64_t)ms * 1000000ULL > deadline - now)
			ms = (int)((deadline - now) / 1000000) + 1;
		if (ms > 500)
			ms = 500; /* stay responsive to Ctrl-C */
		rc = take(s, ms);
		if (rc == -ETIMEDOUT) {
			if (nbw_now_ns() - s->last_heard > wait_ns(s->o, WAIT_SILENCE))
				return SINK_SILENT;
			continue;
		}
		if (rc)
			return rc;
	}
}

/* The message for a window that did not end with the source's RESULT. */
static int window_failure(struct session *s, enum sink_stop why, const struct window *w)
{
	const char *when = !w->measured				   ? "warm-up"
			   : w->seconds + 0.05 < s->o->cc.duration ? "window"
								   : "wait for its result";
	char fault[512];

	switch (why) {
	case SINK_LOCAL_FAIL:
		local_fault(s->loc, fault, sizeof(fault));
		return session_refuse(s, "%s", fault);
	case SINK_CLOSED:
	case SINK_RDMA_LOST:
		return session_fail(s, "%s: the source went away during the %s (%s)", s->peer, when,
				    why == SINK_CLOSED ? "control connection closed"
						       : "RDMA connection lost");
	case SINK_PEER_ERROR:
		return session_fail(s, "%s: source failed: %s", s->peer, s->peer_err);
	case SINK_SILENT:
		return session_fail(s,
				    "%s: the source went silent: nothing on the control channel "
				    "for %g s (--timeout; network or source gone)",
				    s->peer, wait_s(s->o, WAIT_SILENCE));
	default:
		return session_refuse(s, "%s: protocol error during the window: %s", s->peer,
				      s->peer_err);
	}
}

void session_port_rates(const struct session_env *env, double *gbits)
{
	int p;

	for (p = 0; p < env->nports; p++)
		gbits[p] = env->ports[p].software || env->ports[p].rate_gbits <= 0
				   ? 0
				   : env->ports[p].rate_gbits;
}

double session_ports_rate(const struct session_env *env)
{
	double gbits[FAB_MAX_PORTS], sum = 0;
	int p;

	session_port_rates(env, gbits);
	for (p = 0; p < env->nports; p++) {
		if (gbits[p] <= 0)
			return 0;
		sum += gbits[p];
	}
	return sum;
}

/* The rails as the sink sees them: its port <- the source's, from the RESULT. */
static void session_rails(struct session *s)
{
	double gbits[FAB_MAX_PORTS];
	uint32_t i;

	session_port_rates(s->env, gbits);
	s->nrails = 0;
	for (i = 0; i < s->res.nrails && s->nrails < CTRL_MAX_RAILS; i++) {
		const struct ctrl_rail *x = &s->res.rails[i];
		const struct fab_port *p;
		struct rail *y;

		if (x->sink_port >= s->env->nports) /* the peer's word: not a port of ours */
			continue;
		p = &s->env->ports[x->sink_port];
		y = &s->rails[s->nrails++];

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
static bool result_implausible(struct session *s, char *why, size_t len)
{
	double gbits[FAB_MAX_PORTS];
	struct judge_frame f = {.workers = s->hello.workers,
				.source = s->hello.source,
				.duration_s = s->o->cc.duration,
				.timeout_s = wait_s(s->o, WAIT_LATE),
				.nports = s->env->nports,
				.port_gbits = gbits,
				.wport = s->wport};

	session_port_rates(s->env, gbits);
	if (judge_result_early(nbw_ns_to_s(s->last_heard - s->start_sent_ns),
			       s->hello.warmup_ms / 1e3, s->hello.duration_ms / 1e3, why, len))
		return true;
	return judge_result_refused(&s->res, &f, why, len);
}

/*
 * When the source's window opened, in the sink's clock: START left at
 * start_sent; it arrived about half the least START -> heartbeat delay later
 * (the way there and a heartbeat's way back); the source opened its window
 * open_ns (its RESULT's word) after that.
 */
static double source_open_ns(const struct session *s)
{
	double d = s->delay_min_ns > 0 ? s->delay_min_ns / 2.0 : 0;

	return (double)s->start_sent_ns + d + (double)s->res.open_ns;
}

/* The source's window in the sink's clock; judge.c (judge_sink) judges it against the sink's. */
static void source_window(struct session *s)
{
	s->src_open_ns = source_open_ns(s);
	s->src_close_ns = s->src_open_ns + (double)s->res.window_ns;
	s->rcv = s->res.cv_milli_pct == UINT32_MAX ? NAN : s->res.cv_milli_pct / 1000.0;
	s->have_window = s->res.window_ns > 0;
}

/* --verify full: every slot the source last wrote, as it says, checked here. */
/* --dump-slice FILE: FILE for the only source, FILE.N for source N of --sources. */
static const char *dump_path(const struct session *s, char *buf, size_t len)
{
	if (!s->number)
		return s->o->sink.dump_slice;
	snprintf(buf, len, "%s.%d", s->o->sink.dump_slice, s->number);
	return buf;
}

/*
 * The full table and its verdict. 0, or a refusal when the VERIFY failed
 * its MAC (altered on the way: the verdict fails and the session ends).
 */
static int receive_full(struct session *s)
{
	char err[CTRL_MAX_STR], path[PATH_MAX];
	struct ctrl_chunk *c = NULL;
	struct landing l;
	uint32_t len, n = 0;
	void *p;
	int rc;

	nbw_watchdog_phase("verifying every slot %s wrote", s->peer);
	session_landing(s, &l);
	rc = session_expect(s, CTRL_VERIFY, &p, &len, wait_ms(s->o, WAIT_VERIFY), err, sizeof(err));
	if (!rc)
		rc = ctrl_decode_chunks(p, len, &c, &n);
	free(p);
	if (!rc && judge_table_refused(c, n, s->hello.workers, l.slots, err, sizeof(err)))
		rc = -EBADMSG;
	verify_full(&l, c, n, s->ncanary, rc ? (err[0] ? err : ctrl_strerror(rc)) : NULL,
		    &s->vnote);
	if (!rc && s->o->sink.dump_slice)
		verify_dump_map(dump_path(s, path, sizeof(path)), s->canary, s->ncanary, c, n);
	free(c);
	if (rc == CTRL_ERR_MAC || rc == CTRL_ERR_NOMAC)
		return session_refuse(s, "%s: protocol error: VERIFY: %s", s->peer,
				      ctrl_strerror(rc));
	return 0;
}

/* After its RESULT: the full table, and whether the source completed its window. */
static int after_result(struct session *s)
{
	char err[CTRL_MAX_STR];
	uint32_t len;
	void *p;

	if (s->hello.verify == CTRL_VERIFY_FULL && receive_full(s))
		return NBW_EXIT_FAIL;
	if (s->res.ok)
		return 0;
	/* Its ERROR, if any, follows the RESULT (the verdict step: nothing else may come). */
	if (!session_expect(s, CTRL_ERROR, &p, &len, 200, err, sizeof(err))) {
		struct ctrl_error e;

		if (ctrl_decode_error(p, len, &e))
			snprintf(e.msg, sizeof(e.msg), "(malformed ERROR message)");
		free(p);
		return session_fail(s, "%s: source failed: %s", s->peer, e.msg);
	}
	return session_fail(s, "%s: the source did not complete its window", s->peer);
}

/*
 * The most payload one packet into port p can carry: in verbs mode the
 * sink set each QP's path MTU itself, never above the port's active MTU;
 * with rdma_cm the path MTU comes from the source's connect request, so
 * only the largest MTU there is (4096) holds. 0: unknown.
 */
static uint32_t packet_max(const struct session *s, int p)
{
	uint8_t mtu = s->env->ports[p].active_mtu; /* enum ibv_mtu: 1 = 256 ... 5 = 4096 */

	if (s->o->conn == CTRL_CONN_CM)
		return 4096;
	return mtu >= 1 && mtu <= 5 ? 128u << mtu : 0;
}

/* Port p's receive counts added to r (a count it does not keep, or one that overflows: unknown). */
static void port_received(const struct session *s, int p, struct judge_rcv *r)
{
	uint32_t mtu = packet_max(s, p);
	uint64_t b, n;

	if (!ctr_rcv_bytes(&s->ctr[p], &b) || !judge_add(r->bytes, b, &r->bytes))
		r->bytes_known = false;
	if (!ctr_rcv_pkts(&s->ctr[p], &n) || !judge_add(r->pkts, n, &r->pkts))
		r->pkts_known = false;
	else if (!mtu || n > UINT64_MAX / mtu || !judge_add(r->pkts_bound, n * mtu, &r->pkts_bound))
		r->pkts_bound = 0; /* no bound of packets x MTU */
}

/*
 * The sink's ports' counters from its window's start to the source's
 * RESULT (its window and drain), when the source's window opened after
 * they were read there; else from START (its warm-up in: they bound its
 * claim but never check it). What the ports its QPs used received (*r;
 * none known when a QP used a port the sink does not count), for
 * judge_received_refused().
 */
static void counters_at_result(struct session *s, struct judge_rcv *r)
{
	bool used[FAB_MAX_PORTS] = {false};
	const struct ctr_set *from = s->ctr_start;
	uint64_t since = s->start_sent_ns;
	uint32_t i;
	int p;

	*r = (struct judge_rcv){0};
	s->ctr_window =
		s->ctr_open && s->res.window_ns > 0 && source_open_ns(s) >= (double)s->ctr_open_ns;
	if (s->ctr_window) {
		from = s->ctr_open;
		since = s->ctr_open_ns;
	}
	if (!from || remote_counters_delta(s->o, s->env->ports, s->env->nports, from,
					   nbw_ns_to_s(nbw_now_ns() - since), &s->ctr, &s->nctr))
		return;
	s->ctr_at_result = true;
	*r = (struct judge_rcv){.bytes_known = true, .pkts_known = true, .window = s->ctr_window};
	for (i = 0; i < s->hello.workers; i++) {
		if (s->wport[i] < 0 || s->wport[i] >= s->nctr)
			*r = (struct judge_rcv){0}; /* a QP on no port the sink counts */
		else
			used[s->wport[i]] = true;
	}
	for (p = 0; p < s->nctr; p++)
		if (used[p])
			port_received(s, p, r);
	s->rcv_bytes = r->bytes_known ? r->bytes : 0;
}

/* Its RESULT judged: a figure, or a refusal (which leaves no figure behind). */
static int take_result(struct session *s)
{
	struct judge_rcv rcv;

	s->res_rejected = !s->res.ok; /* a failed source's figures are not figures */
	counters_at_result(s, &rcv);
	if (s->res.ok && (result_implausible(s, s->peer_err, sizeof(s->peer_err)) ||
			  judge_received_refused(s->res.bytes, &rcv, &s->check, &s->unchecked,
						 s->peer_err, sizeof(s->peer_err)))) {
		s->res_rejected = true;
		s->res_implausible = true;
		return session_refuse(s, "%s: implausible result: %s", s->peer, s->peer_err);
	}
	if (s->res.ok) {
		session_rails(s);
		source_window(s);
	}
	return after_result(s);
}

/* Wait at the meetings (--bidir, --sources), then START. 0 or a ctrl error. */
static int send_start(struct session *s)
{
	const struct options *o = s->o;
	struct ctrl_start st = {
		.warmup_ms = s->hello.warmup_ms,
		.duration_ms = s->hello.duration_ms,
		.progress_ms = progress_period_ms(o),
	};
	struct ctrl_buf b;
	int rc;

	if (s->sync && !meeting_await(s->sync, wait_ms(o, WAIT_MEETING)))
		nbw_err("--bidir: this node's source is not ready: the windows may not overlap");
	/* A source waits --timeout for START after its canary. */
	if (s->fan && !meeting_await(s->fan, wait_ms(o, WAIT_MEETING)))
		nbw_err("%s: not every source is ready: the windows may not overlap", s->peer);
	free(s->ctr_start); /* the ports' counters before the source's first byte of the window */
	s->ctr_start = remote_counters_read(o, s->env->ports, s->env->nports);
	free(s->ctr_open);
	s->ctr_open = NULL;
	if (s->hello.warmup_ms <= SINK_CTR_EDGE_MS) { /* START is the window's edge too */
		s->ctr_open = remote_counters_read(o, s->env->ports, s->env->nports);
		s->ctr_open_ns = nbw_now_ns();
	}
	s->start_sent_ns = nbw_now_ns();
	rc = ctrl_send_free(s->cfd, &s->mac, &b, ctrl_encode_start(&b, &st),
			    wait_ms(o, WAIT_START));
	s->state = CTRL_STEP_WINDOW;
	s->last_heard = nbw_now_ns();
	return rc;
}

/*
 * Was the sink's own window held past its end by more than --timeout (this
 * process stopped or starved, as silence that long fails a peer)? Then its
 * streams were not side by side for most of it, whatever their overlap says.
 */
static bool held_up(const struct session *s, const struct window *w)
{
	return w->measured && w->seconds > s->o->cc.duration + wait_s(s->o, WAIT_LATE);
}

/* START, the window over the local stream and the source's heartbeat, its RESULT. */
static int session_window(struct session *s)
{
	struct window w = {
		.check = check,
		.live = live,
		.sample = sample,
		.snapshot = snapshot,
		.tick_ms = SINK_TICK_MS,
	};
	enum sink_stop why = SINK_RUNNING;
	int rc;

	window_bind(&w, &s->o->cc, s, s->loc->lstart, s->loc->lend);
	nbw_watchdog_phase("the window (%s writing)", s->peer);
	if (local_start(s->loc, s->env->dram)) {
		local_stop(s->loc);
		return session_refuse(s, "cannot start the local reader threads");
	}
	rc = send_start(s);
	if (rc) {
		snprintf(s->peer_err, sizeof(s->peer_err), "%s", ctrl_strerror(rc));
		why = SINK_CLOSED;
	} else if (window_run(&w) == WINDOW_STOPPED) {
		why = (enum sink_stop)w.stopped_by;
	}
	local_stop(s->loc);
	s->lseconds = w.seconds;
	s->cpu_s = w.cpu_s;
	if (!w.measured)
		local_zero(s->loc);
	if (w.end_reason == WINDOW_SIGNAL)
		return session_refuse(s, "interrupted");
	/* First: held up, what else went wrong meanwhile may be its consequence. */
	if (held_up(s, &w)) {
		s->res_rejected = true;
		return session_refuse(
			s,
			"the sink's window ran %.1f s where -D is %g s, more than --timeout "
			"(%g s) over: this process was held up (stopped or starved), so its "
			"figures are not taken",
			w.seconds, s->o->cc.duration, wait_s(s->o, WAIT_LATE));
	}
	if (why == SINK_RUNNING) { /* the window ended here: the source's RESULT comes next */
		nbw_watchdog_phase("waiting for %s's RESULT", s->peer);
		why = await_result(s);
	}
	if (why != SINK_RESULT)
		return window_failure(s, why, &w);
	return take_result(s);
}

/*
 * With a key, after the verdict: the source's side of the control channel
 * must end with nothing after its last message (a VERIFY or RESULT replayed or
 * inserted on the way would be there, however late). The source ends first:
 * the sink reads until then. Bytes fail the session; a source that holds its
 * side open past --timeout is only waited for. rc, or the failure.
 */
static int expect_source_end(struct session *s, int rc)
{
	int e;

	if (!s->mac.on)
		return rc;
	e = ctrl_await_end(s->cfd, wait_ms(s->o, WAIT_END));
	if (e != CTRL_ERR_MAC)
		return rc;
	session_fail(s, "%s: protocol error: bytes after its last message: %s", s->peer,
		     ctrl_strerror(e));
	return NBW_EXIT_FAIL;
}

int session_conclude(struct session *s, struct meeting *fan)
{
	char path[PATH_MAX];
	struct ctrl_buf b;
	struct landing l;
	int rc;

	s->fan = fan;
	rc = session_window(s);
	/* No RESULT taken (a failure, a signal): the counters still cover START to here. */
	if (s->ctr_start && !s->nctr)
		remote_counters_delta(s->o, s->env->ports, s->env->nports, s->ctr_start,
				      nbw_ns_to_s(nbw_now_ns() - s->start_sent_ns), &s->ctr,
				      &s->nctr);
	if (!rc && s->o->sink.dump_slice) {
		const char *dump = dump_path(s, path, sizeof(path));

		session_landing(s, &l);
		verify_dump_slice(dump, &l);
		if (s->hello.verify != CTRL_VERIFY_FULL)
			verify_dump_map(dump, s->canary, s->ncanary, NULL, 0);
	}
	if (!rc && s->vnote.verdict == VERDICT_FAIL)
		rc = NBW_EXIT_FAIL;
	if (!s->failure[0]) {
		enum verdict v = s->vnote.verdict;
		struct ctrl_done d = {.verify = (uint8_t)(v == VERDICT_NONE ? VERDICT_FAIL : v)};

		if (!ctrl_send_free(s->cfd, &s->mac, &b, ctrl_encode_done(&b, &d), 1000))
			rc = expect_source_end(s, rc);
	}
	if (rc)
		s->state = CTRL_STEP_END;
	return rc;
}

int session_run(struct session *s, struct meeting *fan)
{
	int rc = session_handshake(s);

	if (fan) /* ready, or failed and not coming: the others need not wait for it */
		meeting_arrive(fan);
	return rc ? rc : session_conclude(s, fan);
}
