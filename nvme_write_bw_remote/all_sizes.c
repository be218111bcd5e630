// SPDX-License-Identifier: MIT
/*
 * all_sizes.c: -a, as ib_write_bw -a: one complete run (handshake, window,
 * verification) at every message size on both sides, 2 bytes to 8 MiB from
 * memory as ib_write_bw -a, 64K to 4M from drives (a sink
 * with --sources N: a fan-in round per size, each source running -a), then the
 * curve of the RDMA rate against the size and its verdict (common/base/sweep.h)
 * against the rails' line rate: where it goes flat, and whether that is the
 * fabric's limit or below it. Each run is a part of the result (print/sizes.c
 * prints each as it ends, then the curve).
 */
#include <math.h>

#include "nbw.h"
#include "parse.h"
#include "remote.h"
#include "result.h"
#include "roles.h"
#include "validity.h"
#include "window.h"

/*
 * A run's RDMA rate (with --sources N: every source's added, as fan-in
 * adds them) and the line rate it is judged against, Gb/s (0 unknown): its
 * rails'; with N sources every source's rails, each sink port at most its own.
 */
static double run_bps(const struct result *p, double *line_gbits)
{
	if (p->mode != RESULT_FANIN) {
		*line_gbits = p->nstreams
				      ? rails_line_gbits(p->streams[0].rails, p->streams[0].nrails)
				      : 0;
		return p->nstreams ? streams_bps(&p->streams[0]) : NAN;
	}
	*line_gbits = streams_rails_gbits(p);
	return p->nstreams == p->nexpected && p->nstreams ? p->sum.rdma_bps : NAN;
}

/* One size's run: a sink (with --sources N: a fan-in round), or a source. */
static int run_one(const struct options *at, const struct run_state *run, struct result *p)
{
	if (at->source.peer)
		return run_source(at, run, p);
	return at->sink.sources > 1 ? run_fanin(at, p) : run_sink(at, run, p);
}

/*
 * Run i's options: o's with this run's size. The sizes follow the source's
 * kind (all_sizes_count/_chunk in remote.c): the source knows its own; the
 * sink learns it from the first run's HELLO (hall.c takes the source's size
 * within the list, and its local drives keep reading at -s's default) and
 * runs as many sizes from then on. Below a digest block (4 KiB) a run cannot
 * be verified: it says verification off, decided alike on both sides.
 */
static void size_options(const struct options *o, int i, struct options *at)
{
	at->size_run.index = i;
	if (o->source.peer) {
		at->chunk = all_sizes_chunk(o->source.feed, i);
		at->verify = all_sizes_verify(o->verify, at->chunk);
	}
}

/* The sink after its first run: the sources' kind, and so how many sizes. */
static void learn_kind(struct options *at, const struct result *p, struct result_curve *c)
{
	if (at->source.peer || at->size_run.kind >= 0 || !p->nstreams)
		return;
	at->size_run.kind = (int)p->streams[0].source;
	c->planned = all_sizes_count((unsigned)at->size_run.kind);
}

/*
 * Each run's options are o's as if -s SIZE had been given: a copy (o itself
 * never changes); what the runs measured goes into x (its parts, its curve).
 */
int run_all_sizes(const struct options *o, const struct run_state *run, struct result *x)
{
	struct result_curve *c = &x->curve;
	enum result_mode mode = o->source.peer	      ? RESULT_SOURCE
				: o->sink.sources > 1 ? RESULT_FANIN
						      : RESULT_SINK;
	struct options at = *o;
	int i, rc, worst = 0;

	at.size_run.kind = o->source.peer ? (int)o->source.feed : -1;
	c->planned = o->source.peer ? all_sizes_count(o->source.feed) : ALL_SIZES_MAX;
	if (result_parts(x, ALL_SIZES_MAX, mode, o)) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	x->nparts = 0; /* the runs so far */
	for (i = 0; i < c->planned && !nbw_interrupted(); i++) {
		struct result *p = &x->parts[i];
		double bps, line;

		size_options(o, i, &at);
		p->o = at;
		x->nparts = i + 1;
		rc = run_one(&at, run, p);
		learn_kind(&at, p, c);
		result_end(p);
		if (rc > worst)
			worst = rc;
		bps = run_bps(p, &line);
		if (rc || !isfinite(bps))
			break;
		c->size[c->n] = p->o.chunk;
		format_size(p->o.chunk, c->names[c->n], sizeof(c->names[c->n]));
		c->gb_per_s[c->n++] = bps / 1e9;
		c->line_gbits = line;
	}
	streams_curve(c);
	x->rc = worst;
	return worst;
}
