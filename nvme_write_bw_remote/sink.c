// SPDX-License-Identifier: MIT
/*
 * sink.c: the sink with one source (run_sink): a hall with N = 1 (hall.c)
 * whose one session (session.c) carries the hall's drives in its window,
 * and the sink's report around it. The sink's outcome for --sources N
 * (fanin.c) is copied here too.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hall.h"
#include "judge.h"
#include "nbw.h"
#include "rails.h"
#include "remote.h"
#include "sink.h"

/* ---- the report ------------------------------------------------------------------- */

/* "result", "heartbeat" or NULL: JSON rdma_reported_by. */
static const char *rdma_from_name(enum rdma_from from)
{
	return from == RDMA_FROM_RESULT	     ? "result"
	       : from == RDMA_FROM_HEARTBEAT ? "heartbeat"
					     : NULL;
}

/* The RDMA figure: the source's RESULT if ok and plausible, else a plausible heartbeat's. */
static enum rdma_from rdma_figure(const struct session *k, uint64_t *bytes, double *sec)
{
	return judge_rdma_from(k->have_res ? &k->res : NULL, k->res_rejected,
			       k->have_prog ? &k->prog : NULL, k->o->cc.duration,
			       session_ports_rate(k->env), bytes, sec);
}

static void print_drives(struct report *r, const struct session *k, double lsec, double rsec)
{
	uint32_t i;
	int j;

	report_text(r, " %-6s %-16s %16s %9s %9s\n", "side", "drive", "bytes", "seconds",
		    report_bw_unit(r));
	report_arr_begin(r, "drives");
	for (j = 0; j < k->loc->nt; j++)
		print_drive(r, &k->loc->t[j].d, "local", k->loc->lend[j] - k->loc->lstart[j], lsec,
			    k->o->threads);
	for (i = 0; k->have_res && !k->res_rejected && i < k->res.ndrives; i++) {
		struct drive d = {0};

		snprintf(d.path, sizeof(d.path), "%s", k->res.drives[i].path);
		snprintf(d.model, sizeof(d.model), "%s", k->res.drives[i].model);
		d.numa_node = k->res.drives[i].numa_node;
		print_drive(r, &d, "rdma", k->res.drives[i].bytes, rsec, k->res.drives[i].workers);
	}
	report_arr_end(r);
}

/* The streams' overlap and variation, and whether the total may be read as a sum. */
static void print_validity(struct report *r, const struct session *k)
{

	if (!k->have_validity) {
		report_null(r, "total_valid", NULL);
		return;
	}
	report_arr_begin(r, "streams");
	if (k->loc->nt)
		print_stream(r, NULL, NAN, k->lcv, NAN, true);
	else
		report_text(r, " Streams         :");
	print_stream(r, k->peer, k->overlap_pct, k->rcv, k->start_offset_s, true);
	report_arr_end(r);
	print_sum_rule(r, k->o, k->valid, k->valid_why);
}

/* local, RDMA, total, ideal and % of ideal. */
static void print_totals(struct report *r, const struct session *k, uint64_t lbytes, double lsec,
			 uint64_t rbytes, double rsec, enum rdma_from from)
{
	int ndr = k->have_res && !k->res_rejected ? (int)k->res.ndrives : 0;
	double total_bps, ideal = NAN;
	char lab[64];

	report_text(r, " %-22s %16s %9s %9s\n", "", "bytes", "seconds", report_bw_unit(r));
	snprintf(lab, sizeof(lab), "local (%d drive%s)", k->loc->nt, k->loc->nt == 1 ? "" : "s");
	print_bw_row(r, "local", lab, lbytes, lsec);
	report_text(r, "\n");
	snprintf(lab, sizeof(lab), "RDMA (%u QPs)%s", k->hello.workers,
		 from == RDMA_FROM_HEARTBEAT ? "*" : "");
	print_bw_row(r, "rdma", lab, rbytes, rsec);
	report_text(r, "\n");
	report_str(r, "rdma_reported_by", NULL, rdma_from_name(from));
	/* Rates add: each side's bytes over its own window of the same length. */
	total_bps = (lsec > 0 ? lbytes / lsec : 0) + (rsec > 0 ? rbytes / rsec : 0);
	report_obj_begin(r, "total");
	report_text(r, " %-22s", "total");
	report_u64(r, "bytes", " %16llu", lbytes + rbytes);
	report_double(r, "seconds", " %9.2f", lsec > rsec ? lsec : rsec);
	report_bw(r, "gb_per_s", " %9.2f\n", total_bps);
	report_double(r, "cpu_s", NULL, k->cpu_s);
	report_double(r, "cpu_s_per_gib", " CPU (sink)             %.3f s per GiB landed",
		      nbw_cpu_per_gib(k->cpu_s, lbytes + rbytes));
	report_text(r, " (%.2f s user + system; RDMA costs the sink none)\n", k->cpu_s);
	report_obj_end(r);
	if (k->loc->nt > 0 && lsec > 0 && (k->hello.source == CTRL_SOURCE_DISK || !k->have_res))
		ideal = lbytes / lsec / k->loc->nt * (k->loc->nt + ndr);
	report_bw(r, "ideal_gb_per_s", " ideal                  %36.2f", ideal);
	report_double(r, "percent_of_ideal", "   (%.1f", total_bps / ideal * 100);
	report_text(r, "%% of ideal)\n");
	report_text(r, " (ideal = every drive at the mean local per-drive rate of this window)\n");
	if (from == RDMA_FROM_HEARTBEAT)
		report_text(
			r, " (* RDMA: as of the source's last heartbeat; its result never came)\n");
	print_validity(r, k);
}

static void print_sink(struct report *r, const struct session *k, int rc)
{
	uint64_t lbytes = 0, rbytes;
	double rsec;
	enum rdma_from from = rdma_figure(k, &rbytes, &rsec);
	int i;

	for (i = 0; i < k->loc->nt; i++)
		lbytes += k->loc->lend[i] - k->loc->lstart[i];
	report_text(r, " Source          : %s (%u workers, %s)\n", k->peer[0] ? k->peer : "-",
		    k->hello.workers, k->hello.source == CTRL_SOURCE_MEM ? "memory" : "drives");
	report_str(r, "peer", NULL, k->peer[0] ? k->peer : NULL);
	report_u64(r, "workers", NULL, k->hello.workers);
	if (k->env->lay->slice_len)
		report_u64(r, "slice_bytes", NULL, k->env->lay->slice_len);
	print_rule(r);
	print_drives(r, k, k->lseconds, rsec);
	print_rule(r);
	print_rails(r, k->rails, k->nrails, rsec);
	print_rule(r);
	print_totals(r, k, lbytes, k->lseconds, rbytes, rsec, from);
	print_rule(r);
	print_outcome(r, k->o, k->verdict, k->vdetail[0] ? k->vdetail : NULL, rc == 0, k->failure);
}

/* A session that never came: the hall's drives, its failure, no verdict (for the report). */
static void sink_blank(const struct hall *h, struct session *b)
{
	memset(b, 0, sizeof(*b));
	b->env = &h->env;
	b->o = h->o;
	b->loc = (struct local *)&h->loc;
	b->verdict = VERDICT_NONE;
	b->delay_min_ns = -1;
	snprintf(b->failure, sizeof(b->failure), "%s", h->failure);
}

void sink_outcome(const struct hall *h, const struct session *k, struct sink_outcome *x)
{
	struct session blank;
	enum rdma_from from;
	bool res;

	if (!k) { /* the hall's own part (N sources) */
		sink_blank(h, &blank);
		blank.lseconds = h->lseconds;
		blank.cpu_s = h->cpu_s;
		blank.win_open_ns = h->win_open_ns;
		k = &blank;
	}
	from = rdma_figure(k, &x->rbytes, &x->rsec);
	res = k->have_res && !k->res_rejected;
	/* Who, and how it ended. */
	x->peer = k == &blank ? "" : k->peer;
	x->where = h->where;
	x->verdict = k->verdict;
	x->vdetail = k == &blank ? "" : k->vdetail;
	x->failure = k == &blank ? h->failure : k->failure;
	x->workers = k->hello.workers;
	x->source = (enum ctrl_source)k->hello.source;
	x->slice_len = h->lay.slice_len;
	x->ports_gbits = session_ports_rate(&h->env);
	x->local_len = h->lay.local_len;
	/* Its RDMA stream and its window. */
	x->rfrom = rdma_from_name(from);
	x->drives = res ? k->res.drives : NULL;
	x->ndrives = res ? k->res.ndrives : 0;
	x->rails = k == &blank ? NULL : k->rails;
	x->nrails = k->nrails;
	x->have_window = k->have_validity;
	x->src_open_ns = k->src_open_ns;
	x->src_close_ns = k->src_close_ns;
	x->win_open_ns = (double)k->win_open_ns;
	x->rcv = k->rcv;
	/* The local drives of the session. */
	x->lseconds = k->lseconds;
	x->cpu_s = k->cpu_s;
	x->lcv = nbw_cv_pct(k->loc->lsamples.rate, k->loc->lsamples.n);
	x->t = k->loc->t;
	x->nt = k->loc->nt;
	x->lstart = k->loc->lstart;
	x->lend = k->loc->lend;
}

/* What the run measured: the RDMA rate and the rails' line rates. */
static void sink_figures(const struct session *k, struct run_figures *fig)
{
	uint64_t bytes;
	double sec;

	fig->rdma_gb_per_s = rdma_figure(k, &bytes, &sec) != RDMA_FROM_NONE && sec > 0
				     ? (double)bytes / sec / 1e9
				     : NAN;
	fig->win_open_ns = k->have_validity ? k->src_open_ns : 0;
	fig->win_close_ns = k->have_validity ? k->src_close_ns : 0;
	fig->line_gbits = rails_line_gbits(k->rails, k->nrails);
}

/* One source, the report printed around the window. *s: its session (NULL if none came). */
static int sink_one(struct hall *h, struct report *r, struct session **s, bool *reported)
{
	struct options shown = *h->o;
	int got, rc;

	hall_waiting(h, 1);
	rc = hall_admit(h, s, 1, &got);
	if (!rc)
		rc = session_handshake(*s);
	if (rc)
		return rc;
	shown.source = (enum ctrl_source)(*s)->hello.source;
	report_obj_begin(r, NULL);
	print_params(r, &shown, "sink", h->where);
	rc = session_conclude(*s, NULL);
	print_sink(r, *s, rc);
	report_obj_end(r);
	report_finish(r);
	*reported = true;
	return rc;
}

int run_sink(const struct options *o, struct report *r, struct run_figures *fig)
{
	struct hall *h = hall_create(o);
	struct session *s = NULL, blank;
	bool reported = false;
	int rc;

	if (!h)
		return NBW_EXIT_FAIL;
	rc = hall_open(h);
	if (!rc)
		rc = sink_one(h, r, &s, &reported);
	sink_blank(h, &blank);
	if (rc && !reported && o->cc.json) {
		report_obj_begin(r, NULL);
		print_params(r, o, "sink", h->where[0] ? h->where : NULL);
		print_sink(r, s ? s : &blank, rc);
		report_obj_end(r);
		report_finish(r);
	}
	if (fig)
		sink_figures(s ? s : &blank, fig);
	session_destroy(s);
	hall_destroy(h);
	return rc;
}
