// SPDX-License-Identifier: MIT
/*
 * hall.c: the sink's hall (see hall.h). Owns one locked DRAM buffer: the
 * first part feeds its own drive readers (local.c), the rest is cut into
 * one slice per remote worker of every source, each registered by its
 * session as its own MR so a worker can reach its slice and nothing else.
 *
 * The run: hall_open -> hall_admit (the door, then a session per source)
 * -> session_run for each (session.c, session_window.c) -> hall_window
 * (N sources) -> hall_destroy. Calls go down: hall -> session -> verify,
 * judge, gate, local -> common.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hall.h"
#include "judge.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "remote.h"
#include "result.h"
#include "share.h"
#include "timing.h"
#include "waits.h"
#include "watchdog.h"
#include "wire_conv.h"

/* The hall failed: say why here (and keep it for the report). Returns 1. */
#define hall_fail(h, ...) nbw_fail((h)->failure, sizeof((h)->failure), __VA_ARGS__)

/* ---- set-up --------------------------------------------------------------------- */

/* The DRAM buffer, locked. 0 or an exit status. */
static int hall_dram(struct hall *h)
{
	const struct options *o = h->o;
	char a[32], b[32], why[320];
	int rc, lock_errno;

	if ((uint64_t)h->loc.nt * o->threads * o->chunk >= o->sink.dram) {
		return nbw_usage_err(
			"--dram %s leaves nothing for slices after %d local drive%s x %u "
			"threads x %s",
			format_size(o->sink.dram, a, sizeof(a)), h->loc.nt,
			h->loc.nt == 1 ? "" : "s", o->threads, format_size(o->chunk, b, sizeof(b)));
	}
	/* registered for RDMA and locked: a limit too low fails before anything starts */
	if (buffer_lock_need(buffer_span(o->sink.dram), buffer_lock_limit(), buffer_lock_exempt(),
			     why, sizeof(why)))
		return hall_fail(h, "--dram %s: %s (or lower --dram)",
				 format_size(o->sink.dram, a, sizeof(a)), why);
	rc = buffer_alloc_locked(o->sink.dram, 4096, (void **)&h->dram, &lock_errno);
	if (!rc)
		return 0;
	h->dram = NULL;
	if (lock_errno)
		return hall_fail(h,
				 "cannot lock %s of DRAM: %s (raise 'ulimit -l', or lower --dram)",
				 format_size(o->sink.dram, a, sizeof(a)), strerror(lock_errno));
	return hall_fail(h,
			 "cannot allocate %s of DRAM: %s (lower --dram; 'ulimit -l' must allow "
			 "locking it too)",
			 format_size(o->sink.dram, a, sizeof(a)), strerror(-rc));
}

/* The door and the rdma_cm listener on its addresses. 0 or an exit status. */
static int hall_listen(struct hall *h)
{
	const struct options *o = h->o;
	const char *const *addrs;
	int rc, n;

	h->door = door_open(o, h->ports, h->nports);
	if (!h->door)
		return hall_fail(h, "cannot listen on port %u", o->port);
	snprintf(h->where, sizeof(h->where), "%s", door_where(h->door));
	n = door_addrs(h->door, &addrs);
	h->gate = gate_open(o, addrs, n, o->port, &rc);
	if (!h->gate)
		return hall_fail(h, "rdma_cm %s port %u: %s", door_where(h->door), o->port,
				 strerror(-rc));
	return 0;
}

struct hall *hall_create(const struct options *o)
{
	struct hall *h = nbw_zalloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->o = o;
	return h;
}

int hall_open(struct hall *h)
{
	int rc;

	h->nports = remote_select_ports(h->o, h->ports);
	if (h->nports < 0) { /* said on stderr; kept for the JSON */
		snprintf(h->failure, sizeof(h->failure), "no usable RDMA port");
		return h->nports == -NBW_EXIT_USAGE ? NBW_EXIT_USAGE : NBW_EXIT_FAIL;
	}
	rc = local_open(&h->loc, h->o, true);
	if (rc == -ENOMEM)
		return hall_fail(h, "out of memory");
	if (!rc)
		local_watch(&h->loc, h->ports, h->nports);
	rc = rc ?: hall_dram(h) ?: hall_listen(h);
	h->env = (struct session_env){.o = h->o,
				      .dram = h->dram,
				      .lay = &h->lay,
				      .ports = h->ports,
				      .nports = h->nports,
				      .gate = h->o->conn == CTRL_CONN_CM ? h->gate : NULL};
	return rc;
}

void hall_waiting(const struct hall *h, int n)
{
	fprintf(stderr, "%s: sink: waiting for %s on %s port %u (%s)\n", nbw_prog,
		n > 1 ? "the sources" : "a source", h->where, h->o->port,
		h->o->key.len ? "pre-shared key required" : "open: no pre-shared key");
}

/* ---- admission -------------------------------------------------------------------- */

/*
 * The message size the sink expects of this HELLO: -s; with -a the run's size
 * of the list its kind runs (a memory source from 2 bytes, drives from 64
 * KiB), the first admitted source's for the others of the round, the kind
 * seen in the first run for the later runs.
 */
static uint64_t hall_run_chunk(const struct hall *h, const struct ctrl_hello *theirs)
{
	const struct options *o = h->o;
	int kind = o->size_run.kind >= 0 ? o->size_run.kind : theirs->source;

	if (!o->all_sizes)
		return o->chunk;
	if (h->run_chunk)
		return h->run_chunk;
	return all_sizes_chunk((unsigned)kind, o->size_run.index);
}

/*
 * The sink's decision on guest g's HELLO beside the before workers of the
 * sources it took already (judge_hello(): the reason into why); the DRAM
 * laid out for all into lay when it is admitted.
 */
static enum judge_hello_verdict hello_verdict(const struct hall *h, const struct door_guest *g,
					      uint32_t before, struct slice_layout *lay, char *why,
					      size_t len)
{
	const struct options *o = h->o;
	struct ctrl_hello mine = conv_hello(o);
	struct judge_admission a;

	mine.chunk = hall_run_chunk(h, &g->hello);
	mine.verify = (uint8_t)(o->all_sizes ? all_sizes_verify(o->verify, mine.chunk) : o->verify);
	a = (struct judge_admission){
		.mine = &mine,
		.theirs = &g->hello,
		.peer = g->peer,
		.before = before,
		.max = MAX_WORKERS,
		.per_source = remote_share(o),
		.dram = o->sink.dram,
		.local_len = (uint64_t)h->loc.nt * o->threads * o->chunk,
		.chunk = mine.chunk ? mine.chunk : o->chunk,
		.depth = o->depth,
		.dram_share = share_dram_workers(o, (uint64_t)h->loc.nt * o->threads * o->chunk),
		.sources = o->sink.sources,
	};

	return judge_hello(&a, lay, why, len);
}

/* Guest g becomes source i of n: a session of its own (one source: with the hall's drives). */
static struct session *admit_one(struct hall *h, struct door_guest *g, int i, int n)
{
	struct session *s = session_create(&h->env, g->fd, g->peer, g->trusted, &g->mac, &g->hello,
					   n == 1 ? &h->loc : NULL);

	if (!s)
		return NULL;
	if (h->gate)
		gate_expect(h->gate, s->id);
	s->number = n > 1 ? i + 1 : 0;
	if (n > 1)
		fprintf(stderr, "%s: sink: source %d of %d: %s (%u workers)\n", nbw_prog, i + 1, n,
			g->peer, g->hello.workers);
	return s;
}

/*
 * The first source admitted waits for its ACCEPT at most --timeout: the others
 * must come within the table's "others" of it (or by deadline, if sooner).
 */
static uint64_t first_patience(const struct options *o, uint64_t deadline)
{
	uint64_t by = nbw_now_ns() + wait_ns(o, WAIT_OTHERS);

	return deadline && deadline < by ? deadline : by;
}

/* The first came: the others' deadline, said with N sources (the words: the row "others", T/2). */
static uint64_t first_came(const struct hall *h, uint64_t deadline, int n)
{
	deadline = first_patience(h->o, deadline);
	if (n > 1)
		fprintf(stderr,
			"%s: sink: the other sources must come within %.1f s "
			"(half of --timeout, or --wait), at most %u workers each, %u by their "
			"share of --dram\n",
			nbw_prog, nbw_ns_to_s(deadline - nbw_now_ns()), remote_share(h->o),
			share_dram_workers(h->o,
					   (uint64_t)h->loc.nt * h->o->threads * h->o->chunk));
	return deadline;
}

/* The door's next guest by deadline (the watchdog told what the sink waits for). */
static int next_guest(struct hall *h, uint64_t deadline, int got, int n, struct door_guest *g)
{
	int rc;

	nbw_watchdog_phase("waiting for a source (%d of %d came)", got, n);
	if (!deadline) /* --wait 0: forever, by design; the budget starts with a source */
		nbw_watchdog_pause();
	rc = door_await(h->door, deadline, g);
	nbw_watchdog_resume();
	return rc;
}

/*
 * Serve the door until n sources said a HELLO the sink can take. A
 * stranger, a wrong key or version, a bad or unacceptable HELLO never ends
 * the run: it is turned away (told why only if trusted) and the door keeps
 * waiting. Then the door shuts and the DRAM is cut for all, each source's
 * share by its workers.
 */
int hall_admit(struct hall *h, struct session **s, int n, int *got)
{
	const struct options *o = h->o;
	uint64_t deadline = o->sink.wait > 0 ? nbw_now_ns() + nbw_s_to_ns(o->sink.wait) : 0;
	struct slice_layout lay = {0}, fits;
	uint32_t workers = 0;
	struct door_guest g;
	char why[512];
	int rc = 0;

	for (*got = 0; *got < n;) {
		rc = next_guest(h, deadline, *got, n, &g);
		if (rc)
			break;
		if (hello_verdict(h, &g, workers, &fits, why, sizeof(why)) != JUDGE_HELLO_ADMIT) {
			door_refuse(h->door, &g, why);
			continue;
		}
		s[*got] = admit_one(h, &g, *got, n);
		if (!s[*got]) {
			door_refuse(h->door, &g, "out of memory");
			rc = -ENOMEM;
			break;
		}
		s[*got]->wbase = workers;
		workers += g.hello.workers;
		lay = fits;
		h->run_chunk = g.hello.chunk;
		if (!(*got)++)
			deadline = first_came(h, deadline, n);
	}
	h->s = s;
	h->ns = *got;
	/* The door shuts: later comers are refused at once. */
	door_close(h->door);
	h->door = NULL;
	h->lay = lay;
	if (rc == -EINTR)
		return hall_fail(h, "interrupted while waiting for a source");
	if (rc == -ENOMEM)
		return hall_fail(h, "out of memory for a source's session");
	if (!*got)
		return hall_fail(h, "no source connected within %g s (--wait)", o->sink.wait);
	return 0;
}

/* ---- its own window (N sources) ---------------------------------------------------- */

static int hall_check(void *ctx)
{
	struct hall *h = ctx;

	return local_failed(&h->loc) ? SINK_LOCAL_FAIL : SINK_RUNNING;
}

static void hall_sample(void *ctx, double at)
{
	struct hall *h = ctx;

	local_sample(&h->loc, at);
}

static void hall_snapshot(void *ctx, uint64_t *out)
{
	struct hall *h = ctx;
	int i;

	if (!local_snapshot(&h->loc, out)) {
		local_links(&h->loc, false);
		return;
	}
	h->win_open_ns = nbw_now_ns();
	for (i = 0; i < h->ns; i++) /* the live lines count from here (or from START) */
		session_beat(h->s[i], &h->line[i]);
	local_links(&h->loc, true);
}

/* --interval: each source's RDMA (s1..sN), the local drives, the RDMA sum, the total. */
static void hall_live(void *ctx, double at, double secs)
{
	struct hall *h = ctx;
	struct live_value v[MAX_SOURCES + 3];
	char name[MAX_SOURCES][16];
	double local = local_live(&h->loc, secs), rdma = 0;
	int i, n = 0;

	for (i = 0; i < h->ns; i++) {
		struct ctrl_progress b;

		snprintf(name[i], sizeof(name[i]), "s%d", i + 1);
		v[n] = (struct live_value){name[i], NAN};
		if (session_beat(h->s[i], &b))
			v[n].bytes_per_s = session_beat_rate(&b, &h->line[i]);
		rdma += v[n++].bytes_per_s; /* NAN when one is unknown: no sum */
	}
	result_live_sink(h->x, at, v, n, h->loc.nt > 0, local, rdma,
			 "(a source sent no heartbeat since the last line)");
}

int hall_window(struct hall *h, struct meeting *fan, struct result *x)
{
	const struct options *o = h->o;
	struct window w = {.check = hall_check,
			   .live = hall_live,
			   .sample = hall_sample,
			   .snapshot = hall_snapshot};
	char fault[512];

	h->x = x;
	window_bind(&w, &o->cc, h, h->loc.lstart, h->loc.lend);
	nbw_watchdog_phase("the window (%s writing)", "the sources");
	if (local_start(&h->loc, h->dram)) {
		local_stop(&h->loc);
		return hall_fail(h, "cannot start the local reader threads");
	}
	/* Its ports' counters before any session can send START (each waits for the others). */
	free(h->ctr_start);
	h->ctr_start = remote_counters_read(o, h->ports, h->nports);
	h->ctr_start_ns = nbw_now_ns();
	/* Its wait begins before the handshakes: it waits for them all (each is bounded). */
	if (fan && !meeting_await(fan, wait_ms(o, WAIT_FAN)))
		nbw_err("%s: not every source is ready: the windows may not overlap",
			"the sink's drives");
	window_run(&w);
	local_stop(&h->loc);
	h->lseconds = w.seconds;
	h->cpu_s = w.cpu_s;
	if (!w.measured)
		local_zero(&h->loc);
	if (w.end_reason == WINDOW_SIGNAL)
		return hall_fail(h, "interrupted");
	if (w.end_reason == WINDOW_STOPPED) {
		local_fault(&h->loc, fault, sizeof(fault));
		return hall_fail(h, "%s", fault);
	}
	return 0;
}

void hall_counters_end(struct hall *h)
{
	if (h->ctr_start)
		remote_counters_delta(h->o, h->ports, h->nports, h->ctr_start,
				      nbw_ns_to_s(nbw_now_ns() - h->ctr_start_ns), &h->ctr,
				      &h->nctr);
}

void hall_destroy(struct hall *h)
{
	if (!h)
		return;
	free(h->ctr_start);
	free(h->ctr);
	gate_close(h->gate);
	door_close(h->door);
	buffer_free_locked(h->dram, h->o->sink.dram);
	local_close(&h->loc);
	free(h);
}
