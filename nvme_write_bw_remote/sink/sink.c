// SPDX-License-Identifier: MIT
/*
 * sink.c: the sink with one source (run_sink): a hall with N = 1 (hall.c)
 * whose one session (session.c) carries the hall's drives in its window;
 * and what the hall and a session saw, into the result (result.h) for
 * run_sink and for --sources N (fanin.c). main.c prints it (print/).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hall.h"
#include "judge.h"
#include "nbw.h"
#include "options.h"
#include "sink.h"
#include "validity.h"
#include "wire_conv.h"

/* ---- the result ------------------------------------------------------------------- */

/*
 * The RDMA figure: the source's RESULT if ok and plausible, else a plausible
 * heartbeat's; none at all after a RESULT refused as implausible.
 */
static enum rdma_from rdma_figure(const struct session *k, uint64_t *bytes, double *sec)
{
	if (k->res_implausible) {
		*bytes = 0;
		*sec = 0;
		return RDMA_FROM_NONE;
	}
	return judge_rdma_from(k->have_res ? &k->res : NULL, k->res_rejected,
			       k->have_prog ? &k->prog : NULL, k->o->cc.duration,
			       session_ports_rate(k->env), bytes, sec);
}

/* A stream no source came for: the hall's failure, no figure, no verdict. */
static void no_stream(const struct hall *h, struct result_stream *st)
{
	st->slice_len = h->lay.slice_len;
	st->from = RDMA_FROM_NONE;
	st->cv = NAN;
	st->verdict = VERDICT_NONE;
	snprintf(st->failure, sizeof(st->failure), "%s", h->failure);
}

/* Session k's RDMA stream: its figure, drives, rails, window and verdict. */
static int session_stream(const struct session *k, double max_cv, struct result_stream *st)
{
	bool res = k->have_res && !k->res_rejected;
	uint32_t i;

	snprintf(st->peer, sizeof(st->peer), "%s", k->peer);
	st->workers = k->hello.workers;
	st->source = (enum ctrl_source)k->hello.source;
	st->slice_len = k->env->lay->slice_len;
	st->from = rdma_figure(k, &st->bytes, &st->seconds);
	st->has_result = k->have_res;
	st->check = k->have_res && k->res.ok ? k->check : RDMA_CHECK_NONE;
	st->rcv_bytes = k->rcv_bytes;
	st->unchecked = k->unchecked;
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
		/* what the source's drive said of itself (a source of an earlier build: nothing) */
		if (k->res.nhealth == k->res.ndrives)
			conv_drive_health_from_wire(&k->res.health[i], max_cv, d);
	}
	st->ndrives = res ? (int)k->res.ndrives : 0;
	if (k->nrails)
		memcpy(st->rails, k->rails, sizeof(*st->rails) * (size_t)k->nrails);
	st->nrails = k->nrails;
	st->have_window = k->have_window;
	st->open_ns = k->src_open_ns;
	st->close_ns = k->src_close_ns;
	st->cv = k->have_window ? k->rcv : NAN;
	st->verdict = k->vnote.verdict;
	snprintf(st->vdetail, sizeof(st->vdetail), "%s", k->vnote.detail);
	snprintf(st->failure, sizeof(st->failure), "%s", k->failure);
	return 0;
}

/*
 * The sink's ports' counters into x: with one source its session's (START
 * to its RESULT, or to the session's end without one), with N the hall's
 * own (from before the sources' START to the last one's end). 0 or -ENOMEM.
 */
static int hall_counters(const struct hall *h, const struct session *k, bool one, struct result *x)
{
	const struct ctr_deltas *c = one ? k->ctr : h->ctr;
	int n = one ? k->nctr : h->nctr;

	free(x->ctr);
	x->ctr = n ? calloc((size_t)n, sizeof(*x->ctr)) : NULL;
	x->nctr = x->ctr ? n : 0;
	if (n && !x->ctr)
		return -ENOMEM;
	if (x->ctr)
		memcpy(x->ctr, c, sizeof(*x->ctr) * (size_t)n);
	snprintf(x->ctr_span, sizeof(x->ctr_span), "%s",
		 !one		     ? ""
		 : !k->ctr_at_result ? "from START to the session's end (no result taken)"
		 : k->ctr_window     ? "from the window's start to the source's result"
				     : "");
	return 0;
}

/*
 * The sink's own: its local drives, window, DRAM, ports, verdict. The
 * window is k's when k carried the hall's drives (one source), else the
 * hall's own (N sources; or none came).
 */
static int hall_result(const struct hall *h, const struct session *k, struct result *x)
{
	const struct local *l = &h->loc;
	bool one = k && k->loc == l;
	int j;

	if (result_locals(x, l->nt))
		return -ENOMEM;
	for (j = 0; j < l->nt; j++) {
		struct result_drive *d = &x->local[j];

		snprintf(d->path, sizeof(d->path), "%s", l->t[j].d.path);
		snprintf(d->model, sizeof(d->model), "%s", l->t[j].d.model);
		d->numa_node = l->t[j].d.numa_node;
		d->workers = h->o->threads;
		d->bytes = l->lend[j] - l->lstart[j];
		d->has_shape = true;
		window_shape(l->dsec[j].rate, l->dsec[j].n, h->o->sink.max_cv, &d->shape);
		d->has_health = true;
		d->health = l->health[j];
	}
	snprintf(x->where, sizeof(x->where), "%s", h->where);
	if (x->mode == RESULT_SINK && k)
		x->source = (enum ctrl_source)k->hello.source;
	x->lseconds = one ? k->lseconds : h->lseconds;
	x->lcv = nbw_cv_pct(l->lsamples.rate, l->lsamples.n);
	x->open_ns = (double)(one ? k->win_open_ns : h->win_open_ns);
	x->cpu_s = one ? k->cpu_s : h->cpu_s;
	x->local_len = h->lay.local_len;
	x->ports_gbits = session_ports_rate(&h->env);
	session_port_rates(&h->env, x->port_gbits);
	if (hall_counters(h, k, one, x))
		return -ENOMEM;
	linkload_free(x->ll); /* the links of the window that carried the hall's drives */
	x->ll = linkload_dup(l->ll);
	x->verdict = one ? k->vnote.verdict : VERDICT_NONE;
	snprintf(x->vdetail, sizeof(x->vdetail), "%s", one ? k->vnote.detail : "");
	snprintf(x->failure, sizeof(x->failure), "%s", one ? k->failure : h->failure);
	return 0;
}

int sink_result(const struct hall *h, const struct session *k, struct result *x,
		struct result_stream *st)
{
	if (x && hall_result(h, k, x))
		return -ENOMEM;
	if (!st)
		return 0;
	result_stream_free(st);
	if (!k) {
		no_stream(h, st);
		return 0;
	}
	return session_stream(k, h->o->sink.max_cv, st);
}

/* ---- one source ------------------------------------------------------------------- */

/*
 * One source, its header told before the window; run: what it shares (--bidir's
 * meeting). *s: its session (NULL if none came).
 */
static int sink_one(struct hall *h, const struct run_state *run, struct result *x,
		    struct session **s)
{
	int got, rc;

	hall_waiting(h, 1);
	rc = hall_admit(h, s, 1, &got);
	if (!rc) {
		(*s)->x = x;
		(*s)->sync = run->sync;
		rc = session_handshake(*s);
	}
	if (rc)
		return rc;
	if (sink_result(h, *s, x, NULL))
		return session_fail(*s, "out of memory");
	result_run_size(x, (*s)->hello.chunk, (*s)->hello.verify); /* -a: the source's */
	result_begin(x);
	return session_conclude(*s, NULL);
}

int run_sink(const struct options *o, const struct run_state *run, struct result *x)
{
	struct hall *h = hall_create(o);
	struct session *s = NULL;
	int rc;

	if (!h)
		return NBW_EXIT_FAIL;
	rc = hall_open(h);
	if (!rc)
		rc = sink_one(h, run, x, &s);
	if (result_streams(x, 1) || sink_result(h, s, x, &x->streams[0])) {
		nbw_err("out of memory");
		rc = NBW_EXIT_FAIL;
	} else {
		x->streams[0].rc = rc;
	}
	x->rc = rc;
	judge_sink(x);
	session_destroy(s);
	hall_destroy(h);
	return rc;
}
