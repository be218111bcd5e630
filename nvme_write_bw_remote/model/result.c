// SPDX-License-Identifier: MIT
/* result.c: the result structure's memory and the verdict on its data (see result.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "waits.h"

void result_init(struct result *x, enum result_mode mode, const struct options *o)
{
	memset(x, 0, sizeof(*x));
	x->mode = mode;
	x->o = *o;
	x->source = o->source.feed;
	x->nexpected = mode == RESULT_FANIN ? (int)o->sink.sources : mode == RESULT_SINK;
	x->verdict = VERDICT_NONE;
	x->lcv = NAN;
	x->sum.ideal_bps = NAN;
	x->sum.overlap_pct = NAN;
}

int result_parts(struct result *x, int n, enum result_mode mode, const struct options *o)
{
	int i;

	x->parts = calloc((size_t)n, sizeof(*x->parts));
	if (!x->parts)
		return -ENOMEM;
	x->nparts = n;
	for (i = 0; i < n; i++) {
		result_init(&x->parts[i], mode, o);
		x->parts[i].parent = x;
		x->parts[i].hook = x->hook;
	}
	return 0;
}

void result_run_size(struct result *x, uint64_t chunk, unsigned verify)
{
	if (!x->o.all_sizes)
		return;
	x->o.chunk = chunk;
	x->o.verify = (enum ctrl_verify)verify;
}

void result_begin(struct result *x)
{
	x->begun = true;
	if (x->hook.fn)
		x->hook.fn(x->hook.ctx, x, RESULT_BEGIN);
}

void result_live(struct result *x, const struct result_live *line)
{
	if (!x || !x->hook.fn)
		return;
	x->live = *line;
	x->hook.fn(x->hook.ctx, x, RESULT_LIVE);
}

void result_live_sink(struct result *x, double at, struct live_value *v, int n, bool drives,
		      double local, double rdma, const char *gap)
{
	if (drives)
		v[n++] = (struct live_value){"local", local};
	v[n++] = (struct live_value){"rdma", rdma};
	if (isfinite(rdma))
		v[n++] = (struct live_value){"total", local + rdma};
	result_live(x, &(struct result_live){at, v, n, isfinite(rdma) ? NULL : gap});
}

void result_end(struct result *x)
{
	if (x->hook.fn)
		x->hook.fn(x->hook.ctx, x, RESULT_END);
}

/* A stream with nothing known yet. */
static void stream_init(struct result_stream *st)
{
	memset(st, 0, sizeof(*st));
	st->verdict = VERDICT_NONE;
	st->cv = NAN;
	st->overlap_pct = NAN;
	st->start_offset_s = NAN;
}

int result_streams(struct result *x, int n)
{
	int i;

	for (i = 0; i < x->nstreams; i++)
		result_stream_free(&x->streams[i]);
	free(x->streams);
	x->streams = n ? calloc((size_t)n, sizeof(*x->streams)) : NULL;
	if (n && !x->streams)
		return -ENOMEM;
	x->nstreams = n;
	for (i = 0; i < n; i++)
		stream_init(&x->streams[i]);
	return 0;
}

int result_locals(struct result *x, int n)
{
	free(x->local);
	x->local = n ? calloc((size_t)n, sizeof(*x->local)) : NULL;
	x->nlocal = x->local ? n : 0;
	return n && !x->local ? -ENOMEM : 0;
}

void result_stream_free(struct result_stream *st)
{
	free(st->drives);
	free(st->rails);
	free(st->lat);
	st->drives = NULL;
	st->rails = NULL;
	st->lat = NULL;
	st->ndrives = st->nrails = 0;
}

void result_free(struct result *x)
{
	int i;

	for (i = 0; i < x->nstreams; i++)
		result_stream_free(&x->streams[i]);
	for (i = 0; i < x->nparts; i++)
		result_free(&x->parts[i]);
	free(x->streams);
	free(x->local);
	free(x->ports);
	free(x->ctr);
	linkload_free(x->ll);
	free(x->parts);
}

/* The words "--timeout / 2" are the row "others" (waits.c; test_waits holds it at T/2). */
void result_missing_why(const struct options *o, int i, int n, char *why, size_t len)
{
	snprintf(why, len,
		 "source %d of %d: none came within %g s (--wait), or %g s of the first "
		 "(--timeout / 2)",
		 i + 1, n, o->sink.wait, wait_s(o, WAIT_OTHERS));
}

const char *rdma_from_name(enum rdma_from from)
{
	return from == RDMA_FROM_RESULT	     ? "result"
	       : from == RDMA_FROM_HEARTBEAT ? "heartbeat"
					     : NULL;
}

enum verdict result_verdict(const struct result *x)
{
	int i, pass = 0;

	if (x->o.verify == CTRL_VERIFY_OFF)
		return VERDICT_OFF;
	if (x->mode != RESULT_FANIN)
		return x->verdict;
	for (i = 0; i < x->nstreams; i++) {
		if (x->streams[i].verdict == VERDICT_FAIL)
			return VERDICT_FAIL;
		pass += x->streams[i].verdict == VERDICT_PASS;
	}
	return pass == x->nexpected ? VERDICT_PASS : VERDICT_NONE;
}

/* Widen [*a, *b] by [open, close] (a first one sets it); false when the window is not one. */
static bool widen(double open, double close, double *a, double *b, bool any)
{
	if (!(open > 0) || !(close >= open))
		return any;
	if (!any || open < *a)
		*a = open;
	if (!any || close > *b)
		*b = close;
	return true;
}

bool result_window(const struct result *x, double *open_ns, double *close_ns)
{
	bool any = false;
	double a, b;
	int i;

	*open_ns = *close_ns = 0;
	if (x->lseconds > 0)
		any = widen(x->open_ns, x->open_ns + x->lseconds * 1e9, open_ns, close_ns, any);
	for (i = 0; i < x->nstreams; i++)
		if (x->streams[i].have_window)
			any = widen(x->streams[i].open_ns, x->streams[i].close_ns, open_ns,
				    close_ns, any);
	for (i = 0; i < x->nparts; i++)
		if (result_window(&x->parts[i], &a, &b))
			any = widen(a, b, open_ns, close_ns, any);
	return any;
}
