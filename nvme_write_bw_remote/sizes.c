// SPDX-License-Identifier: MIT
/*
 * sizes.c: -a, as ib_write_bw -a: one complete run (handshake, window,
 * verification) at every message size from 64K to 4M on both sides, then the
 * curve of the RDMA rate against the size and its verdict (common/sweep.h)
 * against the rails' line rate: where it goes flat, and whether that is the
 * fabric's limit or below it. Each run is a part of the result (printer.c
 * prints each as it ends, then the curve).
 */
#include <math.h>

#include "nbw.h"
#include "parse.h"
#include "result.h"
#include "streams.h"
#include "window.h"

#define NSIZES 7 /* 64K .. 4M, powers of two (at most RESULT_MAX_POINTS) */

/*
 * Each run's options are o's as if -s SIZE had been given: a copy (o itself
 * never changes); what the runs measured goes into x (its parts, its curve).
 */
int run_all_sizes(const struct options *o, const struct run_state *run, struct result *x)
{
	struct result_curve *c = &x->curve;
	struct options at = *o;
	int i, rc, worst = 0;

	c->planned = NSIZES;
	if (result_parts(x, NSIZES, o->source.peer ? RESULT_SOURCE : RESULT_SINK, o)) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	x->nparts = 0; /* the runs so far */
	for (i = 0; i < NSIZES && !nbw_interrupted(); i++) {
		struct result *p = &x->parts[i];
		double bps;

		at.chunk = (64ULL << 10) << i;
		p->o.chunk = at.chunk;
		x->nparts = i + 1;
		rc = o->source.peer ? run_source(&at, run, p) : run_sink(&at, run, p);
		result_end(p);
		if (rc > worst)
			worst = rc;
		bps = p->nstreams ? streams_bps(&p->streams[0]) : NAN;
		if (rc || !isfinite(bps))
			break;
		c->size[c->n] = at.chunk;
		format_size(at.chunk, c->names[c->n], sizeof(c->names[c->n]));
		c->gb_per_s[c->n++] = bps / 1e9;
		c->line_gbits = rails_line_gbits(p->streams[0].rails, p->streams[0].nrails);
	}
	streams_curve(c);
	x->rc = worst;
	return worst;
}
