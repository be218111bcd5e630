// SPDX-License-Identifier: MIT
/*
 * bidir.c: --bidir: this process is a sink and a source at once, each role in
 * its own thread with its own report: the sink receives the peer's drives into
 * its DRAM (it reads no drives of its own), the source reads this node's
 * drives and writes them into the peer's sink. Both run unchanged (sink.c,
 * source.c); this file starts them, waits, and prints both directions, their
 * sum and how much their two windows overlapped in this node's clock.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbw.h"
#include "remote.h"

/* One role: its options, its run state, its report into memory, what it measured. */
struct role_run {
	struct options o;
	struct run_state run;
	bool sink;
	FILE *out;
	char *text;
	size_t len;
	struct report r;
	struct run_figures fig;
	int rc;
};

static void *role_main(void *arg)
{
	struct role_run *x = arg;

	x->rc = x->sink ? run_sink(&x->o, &x->run, &x->r, &x->fig)
			: run_source(&x->o, &x->run, &x->r, &x->fig);
	fflush(x->out);
	return NULL;
}

static int role_init(struct role_run *x, const struct options *o, bool sink)
{
	memset(x, 0, sizeof(*x));
	x->o = *o;
	x->sink = sink;
	x->rc = NBW_EXIT_FAIL;
	x->fig.rdma_gb_per_s = NAN;
	if (sink) {
		x->o.peer = NULL;
		x->o.no_local = true;
	}
	x->out = open_memstream(&x->text, &x->len);
	if (!x->out)
		return -1;
	report_init(&x->r, x->out, o->cc.json, o->cc.gbits);
	return 0;
}

/* The two windows' common part, % of the longer one; NAN when one is unknown. */
static double windows_overlap(const struct run_figures *a, const struct run_figures *b)
{
	double la = a->win_close_ns - a->win_open_ns, lb = b->win_close_ns - b->win_open_ns;

	if (!(la > 0 && lb > 0))
		return NAN;
	return window_common_ns(a->win_open_ns, a->win_close_ns, b->win_open_ns, b->win_close_ns) /
	       fmax(la, lb) * 100;
}

/* A role's JSON document, without its trailing newline. */
static void put_doc(FILE *out, const char *key, const struct role_run *x)
{
	size_t n = x->len;

	while (n && (x->text[n - 1] == '\n' || x->text[n - 1] == ' '))
		n--;
	fprintf(out, ",\"%s\":", key);
	if (n)
		fwrite(x->text, 1, n, out);
	else
		fputs("null", out);
}

static void put_num(FILE *out, const char *key, double v)
{
	if (isfinite(v))
		fprintf(out, ",\"%s\":%.6g", key, v);
	else
		fprintf(out, ",\"%s\":null", key);
}

static void print_json(FILE *out, const struct role_run *snd, const struct role_run *rcv,
		       double sum, double overlap, bool valid, const char *why, int rc)
{
	fprintf(out, "{\"tool\":\"nvme_write_bw_remote\",\"version\":\"%s\",\"role\":\"bidir\"",
		PACKAGE_VERSION);
	put_doc(out, "send", snd);
	put_doc(out, "receive", rcv);
	fputs(",\"bidir\":{\"peer\":", out);
	json_write_string(out, snd->o.peer);
	put_num(out, "send_gb_per_s", snd->fig.rdma_gb_per_s);
	put_num(out, "receive_gb_per_s", rcv->fig.rdma_gb_per_s);
	put_num(out, "sum_gb_per_s", sum);
	put_num(out, "overlap_pct", overlap);
	fprintf(out, ",\"sum_valid\":%s,\"sum_invalid_reason\":", valid ? "true" : "false");
	if (valid)
		fputs("null", out);
	else
		json_write_string(out, why);
	fprintf(out, "},\"exit_status\":%d}\n", rc);
}

/* A rate in the table, or "-" when nothing was measured. */
static void put_rate(FILE *out, const char *label, double v, const char *tail)
{
	if (isfinite(v))
		fprintf(out, " %-26s%10.3f  %s\n", label, v, tail);
	else
		fprintf(out, " %-26s%10s  %s\n", label, "-", tail);
}

static void print_text(FILE *out, const struct role_run *snd, const struct role_run *rcv,
		       double sum, double overlap, bool valid, const char *why)
{
	double f = snd->o.cc.gbits ? 8 : 1;
	const char *u = snd->o.cc.gbits ? "Gb/s" : "GB/s";
	char tail[32];

	fprintf(out, "\n=== receive: %s -> this node's DRAM (sink) ===\n", snd->o.peer);
	fwrite(rcv->text, 1, rcv->len, out);
	fprintf(out, "\n=== send: this node's drives -> %s (source) ===\n", snd->o.peer);
	fwrite(snd->text, 1, snd->len, out);
	fprintf(out, "\n--bidir with %s (%s):\n", snd->o.peer, u);
	snprintf(tail, sizeof(tail), "exit %d", snd->rc);
	put_rate(out, "send (RDMA WRITE out)", snd->fig.rdma_gb_per_s * f, tail);
	snprintf(tail, sizeof(tail), "exit %d", rcv->rc);
	put_rate(out, "receive (RDMA WRITE in)", rcv->fig.rdma_gb_per_s * f, tail);
	put_rate(out, "sum of both directions", sum * f, valid ? "(valid)" : "(NOT valid)");
	if (isfinite(overlap))
		fprintf(out, " windows overlap           %9.2f%%\n", floor(overlap * 100) / 100);
	if (!valid)
		fprintf(out, " not valid: %s\n", why);
	fprintf(out, " Both directions at once stress the fabric (each port sends and receives);\n"
		     " they do not raise what the drives deliver: the drives' aggregate is the\n"
		     " same whichever way their data goes.\n");
}

/* Is the sum of both directions a figure? Both ran clean, in one window. */
static bool judge_sum(const struct role_run *snd, const struct role_run *rcv, double overlap,
		      double min_overlap, char *why, size_t n)
{
	if (snd->rc || rcv->rc)
		snprintf(why, n, "%s failed (exit %d)", snd->rc ? "send" : "receive",
			 snd->rc ? snd->rc : rcv->rc);
	else if (!(overlap >= min_overlap))
		snprintf(why, n, "the two directions' windows overlapped %.2f%% (< %g%%)",
			 isfinite(overlap) ? floor(overlap * 100) / 100 : 0.0, min_overlap);
	else
		return true;
	return false;
}

int run_bidir(const struct options *o, FILE *out)
{
	struct role_run *x = calloc(2, sizeof(*x));
	struct role_run *rcv = &x[0], *snd = &x[1];
	struct meeting sync;
	pthread_t t[2];
	char why[256] = "";
	double sum, overlap;
	bool valid;
	int i, rc, started = 0;

	if (!x || role_init(rcv, o, true) || role_init(snd, o, false)) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL; /* the process ends: nothing to give back */
	}
	meeting_init(&sync, 1);
	rcv->run.sync = snd->run.sync = &sync;
	for (i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, role_main, &x[i])) {
			nbw_err("cannot start the %s thread", i ? "source" : "sink");
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	meeting_destroy(&sync);
	for (i = 0; i < 2; i++)
		fclose(x[i].out);
	overlap = windows_overlap(&snd->fig, &rcv->fig);
	sum = snd->fig.rdma_gb_per_s + rcv->fig.rdma_gb_per_s;
	valid = started == 2 && judge_sum(snd, rcv, overlap, o->min_overlap, why, sizeof(why));
	rc = started < 2 ? NBW_EXIT_FAIL : snd->rc > rcv->rc ? snd->rc : rcv->rc;
	if (o->cc.json)
		print_json(out, snd, rcv, sum, overlap, valid, why, rc);
	else
		print_text(out, snd, rcv, sum, overlap, valid, why);
	fflush(out);
	for (i = 0; i < 2; i++)
		free(x[i].text);
	free(x);
	return rc;
}
