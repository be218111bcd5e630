// SPDX-License-Identifier: MIT
/*
 * printer_demo.c: results of every mode of nvme_write_bw_remote built in
 * memory (no RDMA device: the figures a run would have measured), judged by
 * validity.c (the sink's by judge.c) and printed by printer.c, for tests/remote/printer.sh to
 *check.
 *
 *	printer_demo [--json] [--stream] sink|sink-over|sink-late|sink-fail|sink-live|sink-cv|
 *		sink-hostile|source|source-lat|fanin|fanin-missing|fanin-cv|bidir|sizes|
 *		sizes-brief
 *
 * --stream prints as during a run (the header at result_begin, each run of
 * -a at result_end, the rest at the end); without it the whole result at once.
 * sink-live is sink with a live line (--interval) told after the header;
 * source-lat is source with --latency's histogram; sink-cv and fanin-cv have
 * a source whose 1 s samples varied 3.456% (over --max-cv 2); sink-over a rail
 * faster than its line rate (3.2x: an emulated port); sizes is -a
 * with --verbose (each size's whole report), sizes-brief without (a line each);
 * sink-hostile a source whose words carry control bytes (its drive's name,
 * model, unsteady seconds and health reasons, its rail's device).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "nbw.h"
#include "parse.h"
#include "printer.h"
#include "result.h"
#include "validity.h"

#define S 1e9 /* one second in ns */

static struct options demo_options(bool json, bool sink)
{
	struct options o = {
		.source.peer = sink ? NULL : "10.77.0.1",
		.port = 18515,
		.timeout = 10,
		.sink.wait = 60,
		.chunk = 1 << 20,
		.depth = 4,
		.threads = 2,
		.sink.dram = 1ULL << 30,
		.verify = CTRL_VERIFY_CANARY,
		.sink.min_overlap = 99,
		.sink.max_cv = 2,
		.sink.sources = 1,
	};

	cli_common_init(&o.cc);
	o.cc.json = json;
	o.cc.warmup = 2;
	o.cc.duration = 6;
	return o;
}

static void drive(struct result_drive *d, const char *path, uint64_t bytes, uint32_t workers)
{
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->model, sizeof(d->model), "QEMU NVMe Ctrl");
	d->numa_node = 0;
	d->workers = workers;
	d->bytes = bytes;
}

/* A source's stream as the sink saw it: its RESULT, one drive, one rail. */
static void stream(struct result_stream *st, const char *peer, uint64_t bytes, double open_s,
		   double cv)
{
	snprintf(st->peer, sizeof(st->peer), "%s", peer);
	st->workers = 4;
	st->source = CTRL_SOURCE_DISK;
	st->slice_len = 4 << 20;
	st->bytes = bytes;
	st->seconds = 6;
	st->from = RDMA_FROM_RESULT;
	st->has_result = st->drives_known = true;
	st->drives = calloc(1, sizeof(*st->drives));
	st->ndrives = 1;
	drive(st->drives, "/dev/nvme0n1", bytes, 4);
	st->rails = calloc(1, sizeof(*st->rails));
	st->nrails = 1;
	*st->rails = (struct rail){.local_dev = "rxe0",
				   .local_port = 1,
				   .remote_dev = "rxe0",
				   .remote_port = 1,
				   .qps = 4,
				   .bytes = bytes,
				   .line_rate_gbits = 10};
	st->have_window = true;
	st->open_ns = open_s * S;
	st->close_ns = (open_s + 6) * S;
	st->cv = cv;
	st->verdict = VERDICT_PASS;
	snprintf(st->vdetail, sizeof(st->vdetail), "4 canary chunks match");
}

/* The sink's own: two drives (0.5 and 0.4 GB/s) in its window from 1 s to 7 s. */
static void sink_own(struct result *x)
{
	result_locals(x, 2);
	drive(&x->local[0], "/dev/nvme0n1", 3000000000ULL, 2);
	drive(&x->local[1], "/dev/nvme1n1", 2400000000ULL, 2);
	x->lseconds = 6;
	x->lcv = 0.5;
	x->open_ns = 1 * S;
	x->cpu_s = 1.5;
	x->local_len = 64 << 20;
	x->ports_gbits = 10;
	snprintf(x->where, sizeof(x->where), "10.77.0.1");
}

/* One source into the sink: 2.4 GB in 6 s, its window opened late_s after the sink's. */
static void one_source(struct result *x, double late_s, bool fail)
{
	sink_own(x);
	result_streams(x, 1);
	stream(&x->streams[0], "10.77.0.2", 2400000000ULL, 1 + late_s, 1.0);
	x->source = CTRL_SOURCE_DISK;
	x->verdict = fail ? VERDICT_FAIL : VERDICT_PASS;
	snprintf(x->vdetail, sizeof(x->vdetail), "%s",
		 fail ? "canary chunk 2 differs" : "4 canary chunks match");
	x->rc = fail;
	x->streams[0].rc = fail;
	x->streams[0].verdict = x->verdict;
	if (fail)
		snprintf(x->failure, sizeof(x->failure), "RDMA data verification failed");
}

/* This source: its port, one drive, one rail, 3 GB in 6 s. */
static void the_source(struct result *x, double open_s, double cv)
{
	struct result_stream *st;

	result_streams(x, 1);
	st = &x->streams[0];
	x->ports = calloc(1, sizeof(*x->ports));
	x->nports = 1;
	*x->ports = (struct result_port){
		.dev = "rxe0", .port = 1, .link_layer = "Ethernet", .addr = "10.77.0.1"};
	st->drives = calloc(1, sizeof(*st->drives));
	st->ndrives = 1;
	st->drives_known = true;
	drive(st->drives, "/dev/nvme0n1", 3000000000ULL, 2);
	st->rails = calloc(1, sizeof(*st->rails));
	st->nrails = 1;
	*st->rails = (struct rail){.local_dev = "rxe0",
				   .local_port = 1,
				   .remote_dev = "rxe0",
				   .remote_port = 1,
				   .qps = 2,
				   .bytes = 3000000000ULL,
				   .line_rate_gbits = 10};
	st->workers = 2;
	st->bytes = 3000000000ULL;
	st->seconds = 6;
	st->have_window = true;
	st->open_ns = open_s * S;
	st->close_ns = (open_s + 6) * S;
	st->cv = cv;
	x->cpu_s = 0.75;
	x->verdict = VERDICT_PASS;
}

/*
 * --latency: 1000 WRITEs, 900 at 16383 ns, 90 at 65535, 9 at 262143 and one
 * at 1048575 (each the top of its histogram bucket, so exact percentiles).
 */
static void source_latency(struct result_stream *st)
{
	static const uint64_t ns[] = {16383, 65535, 262143, 1048575};
	static const unsigned n[] = {900, 90, 9, 1};
	unsigned i, k;

	st->lat = calloc(1, sizeof(*st->lat));
	if (!st->lat)
		return;
	for (i = 0; i < 4; i++)
		for (k = 0; k < n[i]; k++)
			lathist_record(st->lat, ns[i]);
}

/* --sources 3 (or 2): b and c came; b 1.8 GB, c 1.2 GB, each in its own window. */
static void fanin(struct result *x, int expected)
{
	x->nexpected = expected;
	x->o.sink.sources = (unsigned)expected;
	sink_own(x);
	result_streams(x, 2);
	stream(&x->streams[0], "10.77.0.2", 1800000000ULL, 1.01, 1.5);
	stream(&x->streams[1], "10.77.0.3", 1200000000ULL, 1.02, 0.8);
	x->source = CTRL_SOURCE_DISK;
	x->rc = expected > 2;
	if (x->rc)
		snprintf(x->failure, sizeof(x->failure), "1 of 3 sources never came");
}

/* --bidir: received 2.4 GB from the peer (its window 0.03 s after ours), sent 3 GB. */
static void bidir(struct result *x)
{
	struct options in = x->o, out = x->o;

	in.source.peer = NULL;
	in.sink.no_local = true;
	result_parts(x, 2, RESULT_SINK, &in);
	result_init(&x->parts[1], RESULT_SOURCE, &out);
	x->parts[1].parent = x;
	x->parts[0].key = "receive";
	x->parts[1].key = "send";
	result_streams(&x->parts[0], 1);
	stream(&x->parts[0].streams[0], "10.77.0.1", 2400000000ULL, 1.03, 1.0);
	x->parts[0].lseconds = 6;
	x->parts[0].open_ns = 1 * S;
	x->parts[0].verdict = VERDICT_PASS;
	the_source(&x->parts[1], 1, 0.5);
	x->parts[0].begun = x->parts[1].begun = true;
}

/* -a from the source: three sizes ran, 64K at 0.3, 128K at 0.45, 256K at 0.5 GB/s. */
static void sizes(struct result *x)
{
	static const double gb[] = {0.3, 0.45, 0.5};
	struct result_curve *c = &x->curve;
	int i;

	c->planned = 7;
	result_parts(x, 3, RESULT_SOURCE, &x->o);
	for (i = 0; i < 3; i++) {
		struct result *p = &x->parts[i];

		p->o.chunk = (64ULL << 10) << i;
		the_source(p, 1, 0.5);
		p->streams[0].bytes = (uint64_t)(gb[i] * 6e9);
		p->begun = true;
		c->size[i] = p->o.chunk;
		format_size(p->o.chunk, c->names[i], sizeof(c->names[i]));
		c->gb_per_s[i] = gb[i];
	}
	c->n = 3;
	c->line_gbits = 10;
	streams_curve(c);
	x->rc = 1;
}

/* A source's words with control bytes: its drive unsteady, its health log not read. */
static void hostile(struct result_stream *st)
{
	struct result_drive *d = st->drives;

	snprintf(d->path, sizeof(d->path), "/dev/nv\033[2Jme0n1\n forged: PASS\r");
	snprintf(d->model, sizeof(d->model), "QEMU\033]0;owned\007");
	d->has_shape = true;
	d->shape = (struct window_shape){.n = 6,
					 .min = 1e8,
					 .max = 5e8,
					 .median = 4e8,
					 .cv = 31,
					 .cv_over = true,
					 .low = -1,
					 .unsteady = true};
	d->has_health = true;
	snprintf(d->health.ctrl, sizeof(d->health.ctrl), "nvme\0330");
	snprintf(d->health.why, sizeof(d->health.why), "not read: \033[31mgone\n\tforged");
	snprintf(st->rails[0].remote_dev, sizeof(st->rails[0].remote_dev), "rxe\0330");
}

/* As the roles do: the sink's results are the sink's to judge, the others validity's. */
static void judge(struct result *x)
{
	if (x->mode == RESULT_SINK || x->mode == RESULT_FANIN)
		judge_sink(x);
	else
		streams_judge(x);
}

/* As during a run: each part judged and told, then the rest. */
static void stream_out(struct report *r, struct result *x, bool live)
{
	int i;

	printer_attach(x, r);
	for (i = 0; i < x->nparts; i++) {
		x->parts[i].hook = x->hook;
		judge(&x->parts[i]);
		if (x->mode == RESULT_SIZES) {
			result_begin(&x->parts[i]);
			result_end(&x->parts[i]);
		}
	}
	judge(x);
	if (x->mode != RESULT_SIZES && x->mode != RESULT_BIDIR && x->begun)
		result_begin(x);
	if (live) {
		struct live_value v[] = {{"local", 0.9e9}, {"rdma", NAN}};

		result_live(x,
			    &(struct result_live){1.0, v, 2, "(no heartbeat since the last line)"});
	}
	print_result(r, x);
}

int main(int argc, char **argv)
{
	bool json = argc > 1 && !strcmp(argv[1], "--json");
	bool live = argc > 1 + json && !strcmp(argv[1 + json], "--stream");
	const char *what = argc > 1 + json + live ? argv[1 + json + live] : "";
	bool sink =
		strncmp(what, "source", 6) && strncmp(what, "sizes", 5) && strcmp(what, "bidir");
	struct options o = demo_options(json, sink);
	enum result_mode mode = !strncmp(what, "fanin", 5)   ? RESULT_FANIN
				: !strcmp(what, "bidir")     ? RESULT_BIDIR
				: !strncmp(what, "sizes", 5) ? RESULT_SIZES
				: sink			     ? RESULT_SINK
							     : RESULT_SOURCE;
	struct report r;
	struct result x;
	int i;

	nbw_set_prog("printer_demo");
	o.verbose = !strcmp(what, "sizes");
	result_init(&x, mode, &o);
	report_init(&r, stdout, json, !strcmp(what, "sizes-gbits")); /* --report_gbits */
	if (!strncmp(what, "sink", 4))
		one_source(&x, !strcmp(what, "sink-late") ? 3 : 0.03, !strcmp(what, "sink-fail"));
	else if (!strcmp(what, "source") || !strcmp(what, "source-lat"))
		the_source(&x, 1, 0.5);
	else if (mode == RESULT_FANIN)
		fanin(&x, strcmp(what, "fanin-missing") ? 2 : 3);
	else if (mode == RESULT_BIDIR)
		bidir(&x);
	else if (mode == RESULT_SIZES)
		sizes(&x);
	else
		return 2;
	if (!strcmp(what, "source-lat"))
		source_latency(&x.streams[0]);
	/* A rail faster than its line rate: emulated, or misreported. */
	if (!strcmp(what, "sink-over"))
		x.streams[0].rails[0].line_rate_gbits = 1;
	if (!strcmp(what, "sink-hostile"))
		hostile(&x.streams[0]);
	if (!strcmp(what, "sink-cv") || !strcmp(what, "fanin-cv"))
		x.streams[x.nstreams - 1].cv = 3.456;
	x.begun = true;
	if (live) {
		stream_out(&r, &x, !strcmp(what, "sink-live"));
	} else {
		for (i = 0; i < x.nparts; i++)
			judge(&x.parts[i]);
		judge(&x);
		print_result(&r, &x);
	}
	result_free(&x);
	return 0;
}
