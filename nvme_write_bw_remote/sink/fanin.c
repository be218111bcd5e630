// SPDX-License-Identifier: MIT
/*
 * fanin.c: --sources N, many sources into one sink. The hall (hall.c) admits
 * N sources through its one door and cuts its DRAM by what each asks for;
 * each source then gets a session of its own in a thread of its own (its own
 * slices, keys, canary and verification). Every session holds its START
 * until all are ready, and the hall opens the sink's own window over its
 * local drives at the same moment: one window, in one clock. This file runs
 * the sessions and fills the combined result (main.c prints it: a row per
 * source and per source drive, local, RDMA (the sum), total, ideal), and has
 * the sink's judge decide whether the total may be read as a sum.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "nbw.h"
#include "parse.h"
#include "hall.h"
#include "options.h"
#include "sink.h"
#include "validity.h"
#include "window.h"

/* One source's session; what it saw is the result's stream of the same index. */
struct fan_source {
	struct session *k;
	pthread_t tid;
	bool started;
	struct meeting *m;
	int rc;
	struct result_stream *x;
};

struct fanin {
	const struct options *o;
	struct hall *hall;
	struct result *res; /* the hall's, and a stream per source that came */
	struct fan_source *s;
	int n, got; /* --sources, and how many came */
	int hall_rc;
};

/* What the hall and each session saw, into the result. */
static void fanin_collect(struct fanin *fi)
{
	int i, err = sink_result(fi->hall, NULL, fi->res, NULL);

	for (i = 0; i < fi->got; i++) {
		err |= sink_result(fi->hall, fi->s[i].k, NULL, fi->s[i].x);
		fi->s[i].x->rc = fi->s[i].rc;
	}
	if (err)
		nbw_err("out of memory");
}

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
			nbw_err("%s: cannot start its session: %s", fi->s[i].x->peer,
				strerror(err));
			meeting_arrive(&m);
		}
	}
	fi->hall_rc = hall_window(fi->hall, &m, fi->res);
	for (i = 0; i < fi->got; i++)
		if (fi->s[i].started)
			pthread_join(fi->s[i].tid, NULL);
	hall_counters_end(fi->hall); /* every source's bytes have crossed the ports by now */
	meeting_destroy(&m);
	fanin_collect(fi);
}

/* ---- the outcome ------------------------------------------------------------------ */

/*
 * The exit status, and the error: the sink's own failure, else each source
 * that failed and how many never came (said here, kept for the report).
 */
static int fanin_outcome(struct fanin *fi)
{
	struct result *x = fi->res;
	char err[1024] = "", vfail[32];
	size_t n = 0;
	int i, failed = fi->n - fi->got;

	for (i = 0; i < fi->got; i++)
		failed += fi->s[i].rc != 0;
	if (!failed && !fi->hall_rc)
		return 0;
	if (fi->hall_rc)
		snprintf(err, sizeof(err), "%s", x->failure);
	snprintf(vfail, sizeof(vfail), "verification %s", verdict_word(VERDICT_FAIL));
	for (i = 0; !fi->hall_rc && i < fi->got && n < sizeof(err) - 1; i++) {
		const struct result_stream *st = fi->s[i].x;

		if (fi->s[i].rc)
			n += snprintf(err + n, sizeof(err) - n, "%s%s: %s", n ? "; " : "", st->peer,
				      st->failure[0]		    ? st->failure
				      : st->verdict == VERDICT_FAIL ? vfail
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
static int fanin_main(struct fanin *fi, struct session **s)
{
	int i, rc;

	hall_waiting(fi->hall, fi->n);
	rc = hall_admit(fi->hall, s, fi->n, &fi->got);
	if (rc)
		return rc;
	if (result_streams(fi->res, fi->got)) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	for (i = 0; i < fi->got; i++) {
		fi->s[i].k = s[i];
		fi->s[i].x = &fi->res->streams[i];
	}
	fanin_collect(fi);
	for (i = fi->got; i < fi->n; i++) { /* said now; the others run on */
		char why[192];

		result_missing_why(fi->o, i, fi->n, why, sizeof(why));
		nbw_err("%s", why);
	}
	fi->res->source = fi->got ? fi->res->streams[0].source : fi->o->source.feed;
	if (fi->got) /* -a: the round's size and verification, the sources' */
		result_run_size(fi->res, s[0]->hello.chunk, s[0]->hello.verify);
	result_begin(fi->res);
	fanin_run(fi);
	judge_sink(fi->res);
	return fanin_outcome(fi);
}

int run_fanin(const struct options *o, struct result *x)
{
	struct fanin fi = {.o = o, .res = x, .n = (int)o->sink.sources};
	struct session **s = calloc(o->sink.sources, sizeof(*s));
	int rc = NBW_EXIT_FAIL, i;

	fi.s = calloc(o->sink.sources, sizeof(*fi.s));
	if (s && fi.s)
		fi.hall = hall_create(o); /* says so when it cannot */
	else
		nbw_err("out of memory");
	if (fi.hall)
		rc = hall_open(fi.hall);
	if (!rc)
		rc = fanin_main(&fi, s);
	if (rc && !x->begun && fi.hall) /* JSON says why there is no table */
		sink_result(fi.hall, NULL, x, NULL);
	x->rc = rc;
	for (i = 0; i < fi.got; i++)
		session_destroy(s[i]);
	hall_destroy(fi.hall);
	free(fi.s);
	free(s);
	return rc;
}
