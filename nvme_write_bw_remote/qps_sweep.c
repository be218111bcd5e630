// SPDX-License-Identifier: MIT
/*
 * qps_sweep.c: --sweep-qps LIST, one QP, then more: one complete run per QP
 * count on both sides (as -a runs one per size), each printed as it ends,
 * then the curve of the RDMA rate against the QPs and its verdict
 * (model/qpsweep.c): where it stops growing and what binds there.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linkload.h"
#include "nbw.h"
#include "pcilink.h"
#include "printer.h"
#include "qpsweep.h"
#include "remote.h"
#include "roles.h"
#include "target.h"
#include "validity.h"

int qps_sweep_parse(struct options *o)
{
	const char *p = o->sweep_qps_text;
	char *end;
	unsigned long v;

	o->nsweep_qps = 0;
	while (p && *p) {
		errno = 0;
		v = strtoul(p, &end, 10);
		if (end == p || errno || !v || v > MAX_WORKERS || (*end && *end != ','))
			return nbw_usage_err("invalid --sweep-qps '%s': QP counts 1 to %u, "
					     "comma-separated (e.g. 1,2,4,8,16)",
					     o->sweep_qps_text, MAX_WORKERS);
		if (o->nsweep_qps == QPSWEEP_MAX ||
		    (o->nsweep_qps && v <= o->sweep_qps[o->nsweep_qps - 1]))
			return nbw_usage_err("invalid --sweep-qps '%s': at most %d counts, each "
					     "larger than the one before",
					     o->sweep_qps_text, QPSWEEP_MAX);
		o->sweep_qps[o->nsweep_qps++] = (unsigned)v;
		p = *end ? end + 1 : end;
	}
	if (o->sweep_qps_text && !o->nsweep_qps)
		return nbw_usage_err("invalid --sweep-qps '': QP counts, e.g. 1,2,4,8,16");
	if (o->nsweep_qps &&
	    (o->all_sizes || o->bidir || o->sink.sources > 1 || o->cc.json || o->figure_only))
		return nbw_usage_err("--sweep-qps runs one role, one size, its report in text: "
				     "drop %s",
				     o->all_sizes     ? "-a"
				     : o->bidir	      ? "--bidir"
				     : o->cc.json     ? "--json"
				     : o->figure_only ? "--output"
						      : "--sources");
	return -1;
}

/* A run's RDMA rate (bytes/s, NAN none) and its rails' line rate (Gb/s, 0 unknown). */
static double run_rate(const struct result *x, double *line_gbits)
{
	const struct result_stream *st = x->nstreams ? &x->streams[0] : NULL;

	*line_gbits = st ? rails_line_gbits(st->rails, st->nrails) : 0;
	return st ? streams_bps(st) : NAN;
}

/*
 * The usable PCIe rate (Gb/s) of the RDMA devices a run watched under load
 * (result.ll: their links as they trained before the window; a function's link
 * once, whatever its ports), at an MPS of 256
 * (the link model's usual payload; the probe says each link's own); NAN when
 * none was read.
 */
static double nic_pcie_gbits(const struct linkload *ll)
{
	double sum = 0;
	int i, n = 0;

	for (i = 0; ll && i < ll->n; i++) {
		const struct ll_dev *d = &ll->d[i];
		double u;
		int j;

		if (strcmp(d->kind, "rdma") || !d->has_before || d->before.width <= 0)
			continue;
		for (j = 0; j < i && strcmp(ll->d[j].bdf, d->bdf); j++)
			; /* two ports of one function share its link: counted once */
		if (j < i)
			continue;
		u = pcie_usable_gb_per_s(d->before.speed_gts, (unsigned)d->before.width, 256);
		if (!isfinite(u))
			return NAN;
		sum += u * 8;
		n++;
	}
	return n ? sum : NAN;
}

/* Run i's options: o's with the i-th QP count (-q's meaning: per drive, in all from memory). */
static void qps_options(const struct options *o, int i, struct options *at)
{
	at->source.qps = o->sweep_qps[i];
	if (at->source.qps <= TARGET_MAX_THREADS)
		at->threads = at->source.qps;
}

int run_qps_sweep(const struct options *o, struct report *r)
{
	struct run_state alone = {0};
	struct options at = *o;
	double gbits[QPSWEEP_MAX], line = 0, pcie = NAN, l, bps;
	unsigned qps[QPSWEEP_MAX];
	struct qps_verdict v;
	int i, n = 0, rc, worst = 0;

	for (i = 0; i < o->nsweep_qps && !nbw_interrupted(); i++) {
		struct result x;

		qps_options(o, i, &at);
		result_init(&x, o->source.peer ? RESULT_SOURCE : RESULT_SINK, &at);
		printer_attach(&x, r);
		rc = o->source.peer ? run_source(&at, &alone, &x) : run_sink(&at, &alone, &x);
		if (nbw_interrupted()) {
			x.interrupted = true;
			rc = rc ? rc : NBW_EXIT_FAIL;
			x.rc = rc;
		}
		print_result(r, &x);
		bps = run_rate(&x, &l);
		if (!isfinite(pcie))
			pcie = nic_pcie_gbits(x.ll);
		result_free(&x);
		worst = rc > worst ? rc : worst;
		if (rc || !isfinite(bps))
			break;
		qps[n] = at.source.qps;
		gbits[n++] = bps * 8 / 1e9;
		line = l;
	}
	if (n && !qps_sweep_judge(qps, gbits, n, line > 0 ? line : NAN, pcie, &v))
		print_qps_sweep(r, qps, gbits, n, line, pcie, &v);
	return worst;
}
