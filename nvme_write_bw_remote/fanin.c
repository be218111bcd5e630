// SPDX-License-Identifier: MIT
/*
 * fanin.c: --sources N, many sources into one sink. The hall (sink.c) admits
 * N sources through its one door and cuts its DRAM by what each asks for;
 * each source then gets a session of its own in a thread of its own (its own
 * slices, keys, canary and verification). Every session holds its START
 * until all are ready, and the hall opens the sink's own window over its
 * local drives at the same moment: one window, in one clock. This file runs
 * the sessions and fills the combined result (printer.c prints it: a row
 * per source and per source drive, local, RDMA (the sum), total, ideal), and
 * judges whether the total may be read as a sum.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "nbw.h"
#include "parse.h"
#include "printer.h"
#include "remote.h"
#include "sink.h"
#include "window.h"

/* One source's session; what it saw is the result's stream of the same index. */
struct fan_source {
	struct sink *k;
	pthread_t tid;
	bool started;
	struct meeting *m;
	int rc;
	struct result_stream *x;
};

struct fanin {
	const struct options *o;
	struct report *r;
	struct sink *hall;
	struct result res; /* the hall's, and a stream per source that came */
	struct fan_source *s;
	int n, got; /* --sources, and how many came */
	int hall_rc;
};

/* What the hall and each session saw, into the result. */
static void fanin_collect(struct fanin *fi)
{
	int i, err = sink_result(fi->hall, &fi->res, NULL);

	for (i = 0; i < fi->got; i++) {
		err |= sink_result(fi->s[i].k, NULL, fi->s[i].x);
		fi->s[i].x->rc = fi->s[i].rc;
	}
	if (err)
		nbw_err("out of memory");
}

static void *session_main(void *arg)
{
	struct fan_source *f = arg;

	f->rc = sink_session(f->k, f->m);
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
			nbw_err("%s: cannot start its session: %s", fi->s[i].x->peer,
				strerror(err));
			meeting_arrive(&m);
		}
	}
	fi->hall_rc = sink_session(fi->hall, &m);
	for (i = 0; i < fi->got; i++)
		if (fi->s[i].started)
			pthread_join(fi->s[i].tid, NULL);
	meeting_destroy(&m);
	fanin_collect(fi);
}

/* ---- may the total be read as a sum ------------------------------------------------ */

/* Each source's window against the hall's, in this process's one clock. */
static void fanin_overlaps(struct fanin *fi)
{
	double k_open = fi->res.open_ns, k_close = k_open + fi->res.lseconds * 1e9;
	int i;

	for (i = 0; i < fi->got; i++) {
		struct result_stream *x = fi->s[i].x;
		double len = x->close_ns - x->open_ns;

		x->overlap_pct = NAN;
		x->start_offset_s = NAN;
		if (!x->have_window || len <= 0 || fi->res.lseconds <= 0)
			continue;
		x->overlap_pct =
			window_common_ns(x->open_ns, x->close_ns, k_open, k_close) / len * 100;
		x->start_offset_s = (x->open_ns - k_open) / 1e9;
	}
}

/* What, if anything, keeps source f's stream out of the sum, into why ("" if nothing). */
static void source_fault(const struct options *o, const struct fan_source *f, char *why, size_t len)
{
	const struct result_stream *x = f->x;

	why[0] = '\0';
	if (x->verdict == VERDICT_FAIL)
		snprintf(why, len, "RDMA from %s: its data failed verification", x->peer);
	else if (f->rc || isnan(x->overlap_pct))
		snprintf(why, len, "RDMA from %s: no window (%s)", x->peer,
			 x->failure[0] ? x->failure : "it failed");
	else
		stream_fault(o, x->peer, x->overlap_pct, x->start_offset_s, x->cv, why, len);
}

/* Append part to fi's reason ("; " between parts). */
static void add_why(struct fanin *fi, const char *part)
{
	char *why = fi->res.sum.why;
	size_t n = strlen(why);

	if (part[0] && n < sizeof(fi->res.sum.why) - 1)
		snprintf(why + n, sizeof(fi->res.sum.why) - n, "%s%s", n ? "; " : "", part);
}

/* Every stream that breaks the rule, named in the sum's reason; valid if none does. */
static void fanin_judge(struct fanin *fi)
{
	const struct options *o = fi->o;
	char part[CTRL_MAX_STR + 256];
	double bps[MAX_SOURCES];
	int i;

	fi->res.sum.why[0] = '\0';
	if (fi->got < fi->n) {
		snprintf(part, sizeof(part), "%d of %d sources never came", fi->n - fi->got, fi->n);
		add_why(fi, part);
	}
	for (i = 0; i < fi->got; i++) {
		source_fault(o, &fi->s[i], part, sizeof(part));
		add_why(fi, part);
	}
	if (fi->res.nlocal && stream_fault(o, NULL, NAN, NAN, fi->res.lcv, part, sizeof(part)))
		add_why(fi, part);
	/* Each source's figure is bounded alone; all of them share the same ports. */
	for (i = 0; i < fi->got && i < MAX_SOURCES; i++)
		bps[i] = fi->s[i].x->seconds > 0 ? fi->s[i].x->bytes / fi->s[i].x->seconds : 0;
	if (judge_sum_refused(bps, i, fi->res.ports_gbits, part, sizeof(part)))
		add_why(fi, part);
	fi->res.sum.judged = true;
	fi->res.sum.valid = !fi->res.sum.why[0];
}

/* ---- the outcome ------------------------------------------------------------------ */

/*
 * The exit status, and the error: the sink's own failure, else each source
 * that failed and how many never came (said here, kept for the report).
 */
static int fanin_outcome(struct fanin *fi)
{
	struct result *x = &fi->res;
	char err[1024] = "";
	size_t n = 0;
	int i, failed = fi->n - fi->got;

	for (i = 0; i < fi->got; i++)
		failed += fi->s[i].rc != 0;
	x->hall_failed = fi->hall_rc != 0;
	if (!failed && !fi->hall_rc)
		return 0;
	if (fi->hall_rc)
		snprintf(err, sizeof(err), "%s", x->failure);
	for (i = 0; !fi->hall_rc && i < fi->got && n < sizeof(err) - 1; i++) {
		const struct result_stream *st = fi->s[i].x;

		if (fi->s[i].rc)
			n += snprintf(err + n, sizeof(err) - n, "%s%s: %s", n ? "; " : "", st->peer,
				      st->failure[0]		    ? st->failure
				      : st->verdict == VERDICT_FAIL ? "verification FAIL"
								    : "failed");
	}
	if (!fi->hall_rc && fi->got < fi->n && n < sizeof(err) - 1)
		snprintf(err + n, sizeof(err) - n, "%s%d of %d sources never came", n ? "; " : "",
			 fi->n - fi->got, fi->n);
	nbw_err("%s", err);
	snprintf(x->failure, sizeof(x->failure), "%s", err);
	return NBW_EXIT_FAIL;
}

/* Admission, the header, the run, the table. 0 or an exit status. */
static int fanin_main(struct fanin *fi, struct sink **s)
{
	int i, rc;

	sink_waiting(fi->hall, fi->n);
	rc = sink_admit(fi->hall, false, s, fi->n, &fi->got);
	if (rc)
		return rc;
	if (result_streams(&fi->res, fi->got)) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	for (i = 0; i < fi->got; i++) {
		fi->s[i].k = s[i];
		fi->s[i].x = &fi->res.streams[i];
	}
	fanin_collect(fi);
	for (i = fi->got; i < fi->n; i++) { /* said now; the others run on */
		char why[192];

		fanin_missing_why(fi->o, i, fi->n, why, sizeof(why));
		nbw_err("%s", why);
	}
	if (fi->got)
		fi->res.shown.source = fi->res.streams[0].source;
	else
		fi->res.shown.source = fi->o->source;
	print_begin(fi->r, &fi->res);
	fi->res.begun = true;
	fanin_run(fi);
	fanin_overlaps(fi);
	fanin_judge(fi);
	rc = fanin_outcome(fi);
	fi->res.rc = rc;
	print_end(fi->r, &fi->res);
	return rc;
}

int run_fanin(const struct options *o, struct report *r)
{
	struct fanin fi = {.o = o, .r = r, .n = (int)o->sources};
	struct sink **s = calloc(o->sources, sizeof(*s));
	int rc = NBW_EXIT_FAIL, i;

	result_init(&fi.res, RESULT_FANIN, o);
	fi.res.nexpected = fi.n;
	fi.s = calloc(o->sources, sizeof(*fi.s));
	if (s && fi.s)
		fi.hall = sink_create(o, r); /* says so when it cannot */
	else
		nbw_err("out of memory");
	if (fi.hall)
		rc = sink_open(fi.hall);
	if (!rc)
		rc = fanin_main(&fi, s);
	if (rc && !fi.res.begun && fi.hall) { /* JSON says why there is no table */
		sink_result(fi.hall, &fi.res, NULL);
		print_short(r, &fi.res);
	}
	for (i = 0; i < fi.got; i++)
		sink_destroy(s[i]);
	sink_destroy(fi.hall);
	result_free(&fi.res);
	free(fi.s);
	free(s);
	return rc;
}
