// SPDX-License-Identifier: MIT
/*
 * bidir.c: --bidir: this process is a sink and a source at once, each role in
 * its own thread with its own result: the sink receives the peer's drives into
 * its DRAM (it reads no drives of its own), the source reads this node's
 * drives and writes them into the peer's sink. Both run unchanged (sink.c,
 * source/run.c); this file starts them, waits, and fills the result of both
 * directions (validity.c judges their sum and their windows' overlap,
 * main.c prints both reports and the sum through print/printer.c).
 */
#include <pthread.h>
#include <stdlib.h>

#include "nbw.h"
#include "result.h"
#include "roles.h"
#include "validity.h"

/* One role: its options, its run state and its result. */
struct role_run {
	struct options o;
	struct run_state run;
	bool sink;
	struct result *x;
	int rc;
};

static void *role_main(void *arg)
{
	struct role_run *w = arg;

	w->rc = w->sink ? run_sink(&w->o, &w->run, w->x) : run_source(&w->o, &w->run, w->x);
	return NULL;
}

int run_bidir(const struct options *o, struct result *x)
{
	struct role_run w[2] = {{.o = *o, .sink = true}, {.o = *o}};
	struct meeting sync;
	pthread_t t[2];
	int i, started = 0;

	/* The sink (receive) takes no drives of its own; the source (send) names its peer. */
	w[0].o.source.peer = NULL;
	w[0].o.sink.no_local = true;
	meeting_init(&sync, 1);
	w[0].run.sync = w[1].run.sync = &sync;
	if (result_parts(x, 2, RESULT_SINK, &w[0].o)) {
		nbw_err("out of memory");
		meeting_destroy(&sync);
		return NBW_EXIT_FAIL; /* the process ends: nothing to give back */
	}
	result_init(&x->parts[1], RESULT_SOURCE, &w[1].o);
	x->parts[0].key = "receive";
	x->parts[1].key = "send";
	x->parts[1].parent = x;
	for (i = 0; i < 2; i++) {
		w[i].x = &x->parts[i];
		w[i].rc = NBW_EXIT_FAIL;
		x->parts[i].rc = NBW_EXIT_FAIL;
	}
	for (i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, role_main, &w[i])) {
			nbw_err("cannot start the %s thread", i ? "source" : "sink");
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	meeting_destroy(&sync);
	x->rc = started < 2 ? NBW_EXIT_FAIL : w[1].rc > w[0].rc ? w[1].rc : w[0].rc;
	streams_judge(x);
	return x->rc;
}
