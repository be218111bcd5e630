// SPDX-License-Identifier: MIT
/*
 * fanin.c: --sources N, many sources into one sink. The hall (hall.c) admits
 * N sources through its one door and cuts its DRAM by what each asks for;
 * each source then gets a session of its own in a thread of its own (its own
 * slices, keys, canary and verification). Every session holds its START
 * until all are ready, and the hall opens the sink's own window over its
 * local drives at the same moment: one window, in one clock. This file runs
 * the sessions and prints the combined picture: a row per source and per
 * source drive (host:/dev/nvmeXnY), local, RDMA (the sum), total, ideal, and
 * whether the total may be read as a sum.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "nbw.h"
#include "parse.h"
#include "remote.h"
#include "hall.h"
#include "sink.h"
#include "window.h"

/* One source's session, and what the combined report says of it. */
struct fan_source {
	struct session *k;
	pthread_t tid;
	bool started;
	struct meeting *m;
	int rc;
	struct sink_outcome x;
	double overlap_pct, start_offset_s; /* against the hall's window; NAN unknown */
};

struct fanin {
	const struct options *o;
	struct report *r;
	struct hall *hall;
	struct sink_outcome hx;
	struct fan_source *s;
	int n, got; /* --sources, and how many came */
	int hall_rc;
	bool printed; /* the report is begun */
	bool valid;
	char why[1024];
};

static void *session_main(void *arg)
{
	struct fan_source *f = arg;

	f->rc = session_run(f->k, f->m);
	return NULL;
}

/* Every session in its thread, the hall's window here; then what each saw. */
static void fanin_run(struct fanin *fi)
{
	struct meeting m;
	int i, err;

	meeting_init(&m, (unsigned)fi->got);
	for (i = 0; i < fi->got; i++) {
		fi->s[i].m = &m;
		fi->s[i].rc = NBW_EXIT_FAIL;
		err = pthread_create(&fi->s[i].tid, NULL, session_main, &fi->s[i]);
		fi->s[i].started = !err;
		if (err) {
			nbw_err("%s: cannot start its session: %s", fi->s[i].x.peer, strerror(err));
			meeting_arrive(&m);
		}
	}
	fi->hall_rc = hall_window(fi->hall, &m);
	for (i = 0; i < fi->got; i++)
		if (fi->s[i].started)
			pthread_join(fi->s[i].tid, NULL);
	meeting_destroy(&m);
	sink_outcome(fi->hall, NULL, &fi->hx);
	for (i = 0; i < fi->got; i++)
		sink_outcome(fi->hall, fi->s[i].k, &fi->s[i].x);
}

/* ---- may the total be read as a sum ------------------------------------------------ */

/* Each source's window against the hall's, in this process's one clock. */
static void fanin_overlaps(struct fanin *fi)
{
	double k_open = fi->hx.win_open_ns, k_close = k_open + fi->hx.lseconds * 1e9;
	int i;

	for (i = 0; i < fi->got; i++) {
		struct fan_source *f = &fi->s[i];
		double len = f->x.src_close_ns - f->x.src_open_ns;

		f->overlap_pct = NAN;
		f->start_offset_s = NAN;
		if (!f->x.have_window || len <= 0 || fi->hx.lseconds <= 0)
			continue;
		f->overlap_pct =
			window_common_ns(f->x.src_open_ns, f->x.src_close_ns, k_open, k_close) /
			len * 100;
		f->start_offset_s = (f->x.src_open_ns - k_open) / 1e9;
	}
}

/* What, if anything, keeps source f's stream out of the sum, into why ("" if nothing). */
static void source_fault(const struct options *o, const struct fan_source *f, char *why, size_t len)
{
	why[0] = '\0';
	if (f->x.verdict == VERDICT_FAIL)
		snprintf(why, len, "RDMA from %s: its data failed verification", f->x.peer);
	else if (f->rc || isnan(f->overlap_pct))
		snprintf(why, len, "RDMA from %s: no window (%s)", f->x.peer,
			 f->x.failure[0] ? f->x.failure : "it failed");
	else
		stream_fault(o, f->x.peer, f->overlap_pct, f->start_offset_s, f->x.rcv, why, len);
}

/* Append part to fi->why ("; " between parts). */
static void add_why(struct fanin *fi, const char *part)
{
	size_t n = strlen(fi->why);

	if (part[0] && n < sizeof(fi->why) - 1)
		snprintf(fi->why + n, sizeof(fi->why) - n, "%s%s", n ? "; " : "", part);
}

/* Every stream that breaks the rule, named in fi->why; fi->valid if none does. */
static void fanin_judge(struct fanin *fi)
{
	const struct options *o = fi->o;
	char part[CTRL_MAX_STR + 256];
	double bps[MAX_SOURCES];
	int i;

	fi->why[0] = '\0';
	if (fi->got < fi->n) {
		snprintf(part, sizeof(part), "%d of %d sources never came", fi->n - fi->got, fi->n);
		add_why(fi, part);
	}
	for (i = 0; i < fi->got; i++) {
		source_fault(o, &fi->s[i], part, sizeof(part));
		add_why(fi, part);
	}
	if (fi->hx.nt && stream_fault(o, NULL, NAN, NAN, fi->hx.lcv, part, sizeof(part)))
		add_why(fi, part);
	/* Each source's figure is bounded alone; all of them share the same ports. */
	for (i = 0; i < fi->got && i < MAX_SOURCES; i++)
		bps[i] = fi->s[i].x.rsec > 0 ? fi->s[i].x.rbytes / fi->s[i].x.rsec : 0;
	if (judge_sum_refused(bps, i, fi->hx.ports_gbits, part, sizeof(part)))
		add_why(fi, part);
	fi->valid = !fi->why[0];
}

/* ---- the report ------------------------------------------------------------------- */

/* The header's lines after the parameters: who came, and how the DRAM was cut. */
static void print_split(struct fanin *fi)
{
	struct report *r = fi->r;
	char a[32], b[32];
	int i;

	report_u64(r, "sources_expected", " Sources         : %llu expected,", (uint64_t)fi->n);
	report_u64(r, "sources_admitted", " %llu came\n", (uint64_t)fi->got);
	report_text(r, " DRAM split      : %s in all: local readers %s",
		    format_size(fi->o->dram, a, sizeof(a)),
		    format_size(fi->hx.local_len, b, sizeof(b)));
	report_u64(r, "dram_local_bytes", NULL, fi->hx.local_len);
	for (i = 0; i < fi->got; i++) {
		const struct sink_outcome *x = &fi->s[i].x;

		report_text(r, "; %s %u x %s", x->peer, x->workers,
			    format_size(x->slice_len, a, sizeof(a)));
	}
	report_text(r, "\n");
}

/* Every drive: the sink's own, then each source's as host:/dev/nvmeXnY. */
static void print_all_drives(struct fanin *fi)
{
	struct report *r = fi->r;
	int i, j;

	report_text(r, " %-6s %-16s %16s %9s %9s\n", "side", "drive", "bytes", "seconds",
		    report_bw_unit(r));
	report_arr_begin(r, "drives");
	for (j = 0; j < fi->hx.nt; j++)
		print_drive(r, &fi->hx.t[j].d, "local", fi->hx.lend[j] - fi->hx.lstart[j],
			    fi->hx.lseconds, fi->o->threads);
	for (i = 0; i < fi->got; i++) {
		const struct sink_outcome *x = &fi->s[i].x;

		for (j = 0; j < (int)x->ndrives; j++) {
			struct drive d = {0};

			snprintf(d.path, sizeof(d.path), "%s:%s", x->peer, x->drives[j].path);
			snprintf(d.model, sizeof(d.model), "%s", x->drives[j].model);
			d.numa_node = x->drives[j].numa_node;
			print_drive(r, &d, "rdma", x->drives[j].bytes, x->rsec,
				    x->drives[j].workers);
		}
	}
	report_arr_end(r);
}

/* One source's row: its RDMA figure, overlap, variation, verdict; its rails below. */
static void print_source(struct fanin *fi, int i)
{
	const struct fan_source *f = &fi->s[i];
	struct report *r = fi->r;
	char lab[96];

	report_obj_begin(r, NULL);
	report_u64(r, "index", NULL, (uint64_t)i + 1);
	report_str(r, "peer", NULL, f->x.peer);
	report_u64(r, "workers", NULL, f->x.workers);
	report_str(r, "source", NULL, f->x.source == CTRL_SOURCE_MEM ? "mem" : "disk");
	report_u64(r, "dram_bytes", NULL, f->x.slice_len * f->x.workers);
	report_u64(r, "slice_bytes", NULL, f->x.slice_len);
	snprintf(lab, sizeof(lab), "RDMA %s (%u QPs)%s", f->x.peer, f->x.workers,
		 f->x.rfrom && !strcmp(f->x.rfrom, "heartbeat") ? "*" : "");
	print_bw_row(r, "rdma", lab, f->x.rbytes, f->x.rsec);
	report_str(r, "rdma_reported_by", NULL, f->x.rfrom);
	report_double(r, "overlap_pct", "  overlap %5.1f%%", f->overlap_pct);
	report_double(r, "cv_pct", "  cv %4.1f%%\n", f->x.rcv);
	report_double(r, "start_offset_s", NULL, f->start_offset_s);
	print_verify(r, fi->o, f->x.verdict, f->x.vdetail[0] ? f->x.vdetail : NULL);
	print_rails(r, f->x.rails, f->x.nrails, f->x.rsec);
	report_bool(r, "ok", NULL, f->rc == 0);
	if (f->x.failure[0])
		report_str(r, "error", " FAILED: %s\n", f->x.failure);
	else
		report_null(r, "error", NULL);
	report_obj_end(r);
}

/* Why source i (0-based) is missing, into why. */
static void missing_why(const struct fanin *fi, int i, char *why, size_t len)
{
	snprintf(why, len,
		 "source %d of %d: none came within %g s (--wait), or %g s of the first "
		 "(--timeout / 2)",
		 i + 1, fi->n, fi->o->wait, fi->o->timeout / 2);
}

/* A source that never came: named, and counted as failed. */
static void print_missing(struct fanin *fi, int i)
{
	struct report *r = fi->r;
	char why[192];

	missing_why(fi, i, why, sizeof(why));
	report_obj_begin(r, NULL);
	report_u64(r, "index", NULL, (uint64_t)i + 1);
	report_null(r, "peer", NULL);
	report_bool(r, "ok", NULL, false);
	report_str(r, "error", " MISSING: %s\n", why);
	report_obj_end(r);
}

/* local, every source, RDMA (the sum), total, ideal and % of ideal. */
static void print_sum(struct fanin *fi, uint64_t lbytes)
{
	struct report *r = fi->r;
	uint64_t rbytes = 0;
	double rbps = 0, rsec = 0, lsec = fi->hx.lseconds, total, ideal = NAN;
	int i, ndr = 0, nmem = 0, nres = 0, nbeat = 0;
	char lab[64];

	for (i = 0; i < fi->got; i++) {
		const struct sink_outcome *x = &fi->s[i].x;

		rbytes += x->rbytes;
		rbps += x->rsec > 0 ? x->rbytes / x->rsec : 0;
		rsec = x->rsec > rsec ? x->rsec : rsec;
		ndr += (int)x->ndrives;
		nmem += x->source == CTRL_SOURCE_MEM;
		nres += x->drives != NULL;
		nbeat += x->rfrom && !strcmp(x->rfrom, "heartbeat");
	}
	/* Ideal: only when every source's drives are known (all came and reported). */
	if (fi->hx.nt && lsec > 0 && !nmem && nres == fi->n)
		ideal = lbytes / lsec / fi->hx.nt * (fi->hx.nt + ndr);
	/* Rates add: each stream's bytes over its own window of the same length. */
	report_obj_begin(r, "rdma");
	snprintf(lab, sizeof(lab), "RDMA (sum of %d)", fi->got);
	report_text(r, " %-22s", lab);
	report_u64(r, "bytes", " %16llu", rbytes);
	report_double(r, "seconds", " %9.2f", rsec);
	report_bw(r, "gb_per_s", " %9.2f\n", rbps);
	report_obj_end(r);
	total = (lsec > 0 ? lbytes / lsec : 0) + rbps;
	report_obj_begin(r, "total");
	report_text(r, " %-22s", "total");
	report_u64(r, "bytes", " %16llu", lbytes + rbytes);
	report_double(r, "seconds", " %9.2f", lsec > rsec ? lsec : rsec);
	report_bw(r, "gb_per_s", " %9.2f\n", total);
	report_double(r, "cpu_s", NULL, fi->hx.cpu_s);
	report_double(r, "cpu_s_per_gib", " CPU (sink)             %.3f s per GiB landed",
		      nbw_cpu_per_gib(fi->hx.cpu_s, lbytes + rbytes));
	report_text(r, " (this process; RDMA costs the sink none)\n");
	report_obj_end(r);
	report_bw(r, "ideal_gb_per_s", " ideal                  %36.2f", ideal);
	report_double(r, "percent_of_ideal", "   (%.1f", total / ideal * 100);
	report_text(r, "%% of ideal)\n (ideal = every drive, here and on each source, at the "
		       "mean local per-drive rate of this window)\n");
	if (nbeat)
		report_text(r, " (* RDMA: as of that source's last heartbeat; its result never "
			       "came)\n");
}

/* The streams (JSON) and the verdict on the sum (both). */
static void print_streams(struct fanin *fi)
{
	struct report *r = fi->r;
	int i;

	report_arr_begin(r, "streams");
	if (fi->hx.nt)
		print_stream(r, NULL, NAN, fi->hx.lcv, NAN, false);
	for (i = 0; i < fi->got; i++)
		print_stream(r, fi->s[i].x.peer, fi->s[i].overlap_pct, fi->s[i].x.rcv,
			     fi->s[i].start_offset_s, false);
	report_arr_end(r);
	print_sum_rule(r, fi->o, fi->valid, fi->why);
}

/*
 * The verdict on all the data that landed: off (--no-verify); fail if one
 * source's data differed; pass if every source came and passed; else none
 * (a source never came or ended before its verdict).
 */
static void print_verdicts(struct fanin *fi)
{
	struct report *r = fi->r;
	int i, pass = 0, fail = 0;

	for (i = 0; i < fi->got; i++) {
		pass += fi->s[i].x.verdict == VERDICT_PASS;
		fail += fi->s[i].x.verdict == VERDICT_FAIL;
	}
	if (fi->o->verify == CTRL_VERIFY_OFF) {
		report_str(r, "verify",
			   " RDMA data verification: %s (--no-verify: the data was not "
			   "checked)\n",
			   "off");
		return;
	}
	report_str(r, "verify", NULL, fail ? "fail" : pass == fi->n ? "pass" : NULL);
	report_text(r, " RDMA data verification: %s (%d of %d sources PASS%s)\n",
		    fail	    ? "FAIL"
		    : pass == fi->n ? "PASS"
				    : "incomplete",
		    pass, fi->n, fail ? ", data differed" : "");
}

/* ok, and error: the sink's own failure, else each source that failed and how many never came. */
static void print_failures(struct fanin *fi, int failed)
{
	char err[1024] = "";
	size_t n = 0;
	int i;

	report_bool(fi->r, "ok", NULL, !failed && !fi->hall_rc);
	if (!failed && !fi->hall_rc) {
		report_null(fi->r, "error", NULL);
		return;
	}
	if (fi->hall_rc)
		snprintf(err, sizeof(err), "%s", fi->hx.failure);
	for (i = 0; !fi->hall_rc && i < fi->got && n < sizeof(err) - 1; i++) {
		const struct fan_source *f = &fi->s[i];

		if (f->rc)
			n += snprintf(err + n, sizeof(err) - n, "%s%s: %s", n ? "; " : "",
				      f->x.peer,
				      f->x.failure[0]		     ? f->x.failure
				      : f->x.verdict == VERDICT_FAIL ? "verification FAIL"
								     : "failed");
	}
	if (!fi->hall_rc && fi->got < fi->n && n < sizeof(err) - 1)
		snprintf(err + n, sizeof(err) - n, "%s%d of %d sources never came", n ? "; " : "",
			 fi->n - fi->got, fi->n);
	nbw_err("%s", err);
	report_str(fi->r, "error", " error: %s\n", err);
}

/* The combined table; returns the exit status. */
static int print_fanin(struct fanin *fi)
{
	struct report *r = fi->r;
	uint64_t lbytes = 0;
	int i, failed = fi->n - fi->got;
	char lab[64];

	for (i = 0; i < fi->hx.nt; i++)
		lbytes += fi->hx.lend[i] - fi->hx.lstart[i];
	print_rule(r);
	print_all_drives(fi);
	print_rule(r);
	report_text(r, " %-22s %16s %9s %9s\n", "", "bytes", "seconds", report_bw_unit(r));
	snprintf(lab, sizeof(lab), "local (%d drive%s)", fi->hx.nt, fi->hx.nt == 1 ? "" : "s");
	print_bw_row(r, "local", lab, lbytes, fi->hx.lseconds);
	report_double(r, NULL, "  cv %4.1f%%\n", fi->hx.nt ? fi->hx.lcv : NAN);
	report_arr_begin(r, "sources");
	for (i = 0; i < fi->n; i++) {
		if (i < fi->got)
			print_source(fi, i);
		else
			print_missing(fi, i);
		failed += i < fi->got && fi->s[i].rc != 0;
	}
	report_arr_end(r);
	print_sum(fi, lbytes);
	print_streams(fi);
	print_rule(r);
	print_verdicts(fi);
	print_failures(fi, failed);
	print_rule(r);
	return failed || fi->hall_rc ? NBW_EXIT_FAIL : 0;
}

/* Admission, the header, the run, the table. 0 or an exit status. */
static int fanin_main(struct fanin *fi, struct session **s)
{
	struct options shown = *fi->o;
	int i, rc;

	hall_waiting(fi->hall, fi->n);
	rc = hall_admit(fi->hall, s, fi->n, &fi->got);
	if (rc)
		return rc;
	for (i = 0; i < fi->got; i++) {
		fi->s[i].k = s[i];
		sink_outcome(fi->hall, s[i], &fi->s[i].x);
	}
	for (i = fi->got; i < fi->n; i++) { /* said now; the others run on */
		char why[192];

		missing_why(fi, i, why, sizeof(why));
		nbw_err("%s", why);
	}
	sink_outcome(fi->hall, NULL, &fi->hx);
	if (fi->got)
		shown.source = fi->s[0].x.source;
	report_obj_begin(fi->r, NULL);
	fi->printed = true;
	print_params(fi->r, &shown, "sink", fi->hx.where);
	print_split(fi);
	fanin_run(fi);
	fanin_overlaps(fi);
	fanin_judge(fi);
	rc = print_fanin(fi);
	report_obj_end(fi->r);
	report_finish(fi->r);
	return rc;
}

int run_fanin(const struct options *o, struct report *r)
{
	struct fanin fi = {.o = o, .r = r, .n = (int)o->sources};
	struct session **s = calloc(o->sources, sizeof(*s));
	int rc = NBW_EXIT_FAIL, i;

	fi.s = calloc(o->sources, sizeof(*fi.s));
	if (s && fi.s)
		fi.hall = hall_create(o); /* says so when it cannot */
	else
		nbw_err("out of memory");
	if (fi.hall)
		rc = hall_open(fi.hall);
	if (!rc)
		rc = fanin_main(&fi, s);
	if (rc && !fi.printed && fi.hall && o->cc.json) { /* JSON says why there is no table */
		sink_outcome(fi.hall, NULL, &fi.hx);
		report_obj_begin(r, NULL);
		print_params(r, o, "sink", NULL);
		report_bool(r, "ok", NULL, false);
		report_str(r, "error", NULL, fi.hx.failure[0] ? fi.hx.failure : "failed");
		report_obj_end(r);
		report_finish(r);
	}
	for (i = 0; i < fi.got; i++)
		session_destroy(s[i]);
	hall_destroy(fi.hall);
	free(fi.s);
	free(s);
	return rc;
}
