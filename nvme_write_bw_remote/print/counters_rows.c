// SPDX-License-Identifier: MIT
/* counters_rows.c: the RDMA ports' counters and the sink's check in a report (counters_rows.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "counters_rows.h"

#define ATTRIB_MAX_HOPS 16

#define CTR_TEXT_WIDTH 78 /* a port's text line wraps past this column */
#define CTR_TEXT_INDENT 16

/* Does a counter of another kind in ds have d's name (Soft-RoCE's link_downed)? */
static bool name_clash(const struct ctr_deltas *ds, const struct ctr_delta *d)
{
	int i;

	for (i = 0; i < ds->n; i++)
		if (ds->c[i].kind != d->kind && !strcmp(ds->c[i].name, d->name))
			return true;
	return false;
}

/*
 * One counter in text: "name value", "name value+" (a floor), "name not kept";
 * a driver's counter named as a port counter is "hw:name".
 */
static void text_one(struct report *r, const struct ctr_deltas *ds, const struct ctr_delta *d,
		     int *col)
{
	const char *pre = d->kind == CTR_HW && name_clash(ds, d) ? "hw:" : "";
	char v[48];
	int n;

	if (!d->kept)
		snprintf(v, sizeof(v), "not kept");
	else
		snprintf(v, sizeof(v), "%llu%s%s", (unsigned long long)d->d,
			 d->saturated ? "+" : "", d->wrapped ? " (wrapped)" : "");
	n = (int)(strlen(pre) + strlen(d->name) + strlen(v) + 3);
	if (*col > CTR_TEXT_INDENT && *col + n > CTR_TEXT_WIDTH) {
		report_text(r, "\n%*s", CTR_TEXT_INDENT, "");
		*col = CTR_TEXT_INDENT;
	}
	report_text(r, "  %s%s %s", pre, d->name, v);
	*col += n;
}

/* One port's text line: the counters that moved (all: every one); "(none moved)". */
static void text_port(struct report *r, const struct ctr_deltas *ds, bool all)
{
	char name[80];
	int i, col, shown = 0;

	snprintf(name, sizeof(name), "%s:%u", ds->dev, ds->port);
	report_text(r, "  %-14s", name);
	col = CTR_TEXT_INDENT;
	for (i = 0; i < ds->n; i++) {
		if (!all && (!ds->c[i].kept || !ds->c[i].d))
			continue;
		text_one(r, ds, &ds->c[i], &col);
		shown++;
	}
	report_text(r, "%s%s\n", shown ? "" : "  (none moved)",
		    ds->truncated ? "  (more not read)" : "");
}

/* The names of ds's counters of kind with flag set (saturated or wrapped), a JSON array. */
static void json_flagged(struct report *r, const char *key, const struct ctr_deltas *ds,
			 bool wrapped)
{
	int i;

	report_arr_begin(r, key);
	for (i = 0; i < ds->n; i++)
		if (wrapped ? ds->c[i].wrapped : ds->c[i].saturated)
			report_str(r, NULL, NULL, ds->c[i].name);
	report_arr_end(r);
}

/* One port's object: every counter by kind, null where not kept. */
static void json_port(struct report *r, const struct ctr_deltas *ds)
{
	static const enum ctr_kind kinds[] = {CTR_PORT, CTR_HW};
	size_t k;
	int i;

	report_obj_begin(r, NULL);
	report_str(r, "device", NULL, ds->dev);
	report_u64(r, "port", NULL, ds->port);
	report_double(r, "seconds", NULL, ds->seconds);
	report_bool(r, "truncated", NULL, ds->truncated);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		report_obj_begin(r, ctr_kind_name(kinds[k]));
		for (i = 0; i < ds->n; i++) {
			if (ds->c[i].kind != kinds[k])
				continue;
			if (ds->c[i].kept)
				report_u64(r, ds->c[i].name, NULL, ds->c[i].d);
			else
				report_null(r, ds->c[i].name, NULL);
		}
		report_obj_end(r);
	}
	json_flagged(r, "saturated", ds, false);
	json_flagged(r, "wrapped", ds, true);
	report_obj_end(r);
}

void print_counters(struct report *r, const struct result *x, const char *span)
{
	int i;

	if (!x->nctr)
		return;
	report_text(r, " Port counters   : %s, %s (port_*_data in 4-byte words)\n", span,
		    x->o.report_counters ? "all of them" : "those that moved");
	report_str(r, "counters_span", NULL, span);
	report_arr_begin(r, "counters");
	for (i = 0; i < x->nctr; i++) {
		text_port(r, &x->ctr[i], x->o.report_counters);
		json_port(r, &x->ctr[i]);
	}
	report_arr_end(r);
}

void print_attribution(struct report *r, const struct result *x, const struct result_stream *st)
{
	struct attrib_hop h[ATTRIB_MAX_HOPS];
	int n = attrib_explain(st->rails, st->nrails, st->seconds, st->source == CTRL_SOURCE_MEM,
			       x->ctr, x->nctr, h, ATTRIB_MAX_HOPS);

	attrib_print(r, h, n);
}

/* Does one of st's rails run through ds's port (its sink end or its source end)? */
static bool stream_uses(const struct result_stream *st, const struct ctr_deltas *ds)
{
	int i;

	for (i = 0; i < st->nrails; i++)
		if ((!strcmp(st->rails[i].local_dev, ds->dev) &&
		     st->rails[i].local_port == ds->port) ||
		    (!strcmp(st->rails[i].remote_dev, ds->dev) &&
		     st->rails[i].remote_port == ds->port))
			return true;
	return false;
}

void print_attribution_source(struct report *r, const struct result *x,
			      const struct result_stream *st)
{
	struct ctr_deltas *mine = x->nctr ? calloc((size_t)x->nctr, sizeof(*mine)) : NULL;
	struct attrib_hop h[ATTRIB_MAX_HOPS];
	int i, k = 0, n;

	for (i = 0; mine && i < x->nctr; i++)
		if (stream_uses(st, &x->ctr[i]))
			mine[k++] = x->ctr[i];
	/* its rails against each other only: the sink's ports are shared, no line rate is its own
	 */
	n = attrib_explain(st->rails, st->nrails, st->seconds, false, mine, k, h, ATTRIB_MAX_HOPS);
	free(mine);
	attrib_print(r, h, n);
}

void print_attribution_all(struct report *r, const struct result *x)
{
	struct attrib_hop h[ATTRIB_MAX_HOPS];
	struct rail *all;
	bool mem = true;
	int i, j, k = 0, nr = 0, n;

	/* the sources' rails are peers when each is fed from memory (drives differ per source) */
	for (i = 0; i < x->nstreams; i++) {
		mem = mem && x->streams[i].source == CTRL_SOURCE_MEM;
		nr += x->streams[i].nrails;
	}
	all = calloc((size_t)nr + 1, sizeof(*all));
	if (!all)
		return;
	for (i = 0; i < x->nstreams && mem; i++)
		for (j = 0; j < x->streams[i].nrails; j++)
			all[k++] = x->streams[i].rails[j];
	/* the sources' windows are judged to overlap: their rails' bytes compare as rates */
	n = attrib_explain(all, k, x->sum.rdma_seconds, false, x->ctr, x->nctr, h, ATTRIB_MAX_HOPS);
	free(all);
	attrib_print(r, h, n);
}

/* Why nothing bounds a figure's payload (enum rdma_unchecked), for text and JSON. */
static const char *unchecked_why(enum rdma_unchecked un)
{
	switch (un) {
	case RDMA_UNCHECKED_PACKETS_ONLY:
		return "the sink's ports count packets, not bytes: an empty packet counts as a "
		       "full one";
	case RDMA_UNCHECKED_NO_PACKETS:
		return "the sink's ports count bytes but no packets: their headers cannot be "
		       "told from payload";
	case RDMA_UNCHECKED_SMALL_PACKETS:
		return "the packets the sink's ports received are so small that their headers "
		       "could hide more than 1/8 of it";
	case RDMA_UNCHECKED_WARMUP:
		return "the sink's ports' counters were not read at the start of its window, "
		       "only at START: what its warm-up delivered could cover it";
	case RDMA_UNCHECKED_NO_COUNT:
	default:
		return "no receive count of a sink port it used bounds it";
	}
}

void print_rdma_check(struct report *r, const struct result_stream *st)
{
	if (st->check == RDMA_CHECK_NONE)
		return;
	if (st->check == RDMA_CHECK_RECEIVED) {
		report_str(r, "rdma_check", NULL, "received");
		report_null(r, "rdma_unchecked_reason", NULL);
		report_u64(r, "rdma_received_bytes",
			   " (RDMA checked against payload: the sink's ports received %llu"
			   " bytes, headers included, from the window's start to its result,"
			   " in packets large enough to carry it)\n",
			   st->rcv_bytes);
		return;
	}
	report_str(r, "rdma_check", NULL, "unchecked");
	report_str(r, "rdma_unchecked_reason", NULL, unchecked_why(st->unchecked));
	report_null(r, "rdma_received_bytes", NULL);
	report_text(r, " (RDMA: reported by the source, unchecked: %s)\n",
		    unchecked_why(st->unchecked));
}
