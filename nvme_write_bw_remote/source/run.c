// SPDX-License-Identifier: MIT
/*
 * source/run.c: the sending side of nvme_write_bw_remote. Per drive, --threads
 * workers, each with its own RC QP on an ACTIVE port NUMA-local to the drive,
 * its own --depth registered staging slots read with O_DIRECT (or filled
 * once, --source mem) and the posting loop of fabric/writer.c keeping that many
 * RDMA WRITEs in flight into its slice of the sink's DRAM.
 *
 * The run: source_setup -> handshake -> start the workers -> line 1 (all
 * connected) -> SLICES -> line 2 (canaries written) -> CANARY, START ->
 * source_window -> RESULT (VERIFY) -> DONE -> the result (result.h) -> source_close.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctrl_auth.h"
#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "rails.h"
#include "remote.h"
#include "result.h"
#include "source.h"
#include "state.h"
#include "target.h"
#include "timing.h"
#include "validity.h"
#include "waits.h"
#include "watchdog.h"
#include "window.h"
#include "wire_conv.h"

/* ---- the window ------------------------------------------------------------------ */

/* Each drive's seconds: its workers' completions at `at` into the window. */
static void drive_seconds(struct source *s, const uint64_t *per_worker, double at)
{
	uint64_t per_drive[TARGET_MAX] = {0};
	uint32_t i;
	int k;

	if (!s->dsec)
		return;
	for (i = 0; i < s->nw; i++)
		if (s->w[i].tindex >= 0 && s->w[i].tindex < TARGET_MAX)
			per_drive[s->w[i].tindex] += per_worker[i];
	for (k = 0; k < s->nt && k < TARGET_MAX; k++)
		samples_add(&s->dsec[k], per_drive[k], at, 1.0);
}

static void snapshot(void *ctx, uint64_t *out)
{
	struct source *s = ctx;
	uint32_t i;

	if (out == s->wstart)
		s->t_window = nbw_now_ns();
	atomic_store_explicit(&s->lat_on, out == s->wstart, memory_order_relaxed);
	for (i = 0; i < s->nw; i++)
		out[i] = atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);
	if (out == s->wstart) {
		memcpy(s->lprev, out, s->nw * sizeof(uint64_t));
		samples_add(&s->rdma_samples, source_bytes_sum(out, s->nw), 0, 1.0); /* the base */
		drive_seconds(s, out, 0);
	}
	/* The ports' counters, right after the bytes: at the window's opening and close. */
	if (out == s->wstart) {
		free(s->ctr_open);
		s->ctr_open = remote_counters_read(s->o, s->ports, s->nports);
		linkload_open(s->ll);
	} else if (out == s->wend && s->ctr_open) {
		remote_counters_delta(s->o, s->ports, s->nports, s->ctr_open,
				      nbw_ns_to_s(nbw_now_ns() - s->t_window), &s->ctr, &s->nctr);
	}
	if (out == s->wend)
		linkload_close(s->ll, nbw_ns_to_s(nbw_now_ns() - s->t_window));
}

/* What the window counted so far (or in all once it closed) into pr. */
static void progress_window(const struct source *s, uint64_t now, struct ctrl_progress *pr)
{
	uint64_t w0;

	if (!s->win || !s->win->measured)
		return;
	w0 = source_bytes_sum(s->win->start, s->nw);
	if (s->win->seconds > 0) {
		pr->window_bytes = source_bytes_sum(s->win->end, s->nw) - w0;
		pr->window_ns = nbw_s_to_ns(s->win->seconds);
	} else {
		pr->window_bytes = pr->bytes - w0;
		pr->window_ns = now - s->t_window;
	}
	if (pr->window_ns > pr->elapsed_ns)
		pr->window_ns = pr->elapsed_ns;
	if (pr->window_bytes > pr->bytes)
		pr->window_bytes = pr->bytes;
}

/* Send a PROGRESS when its period is due. 0 or -errno. */
static int heartbeat(struct source *s)
{
	struct ctrl_progress pr = {0};
	uint64_t now = nbw_now_ns();
	struct ctrl_buf b;
	uint32_t i;

	if (!s->hb_period || now < s->hb_next)
		return 0;
	s->hb_next = now + s->hb_period;
	for (i = 0; i < s->nw; i++)
		pr.bytes += atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);
	pr.elapsed_ns = now - s->t_start;
	progress_window(s, now, &pr);
	return source_send(s, CTRL_PROGRESS, &b, ctrl_encode_progress(&b, &pr),
			   wait_ms(s->o, WAIT_SILENCE));
}

static int source_check(void *ctx)
{
	struct source *s = ctx;
	struct pollfd pfd = {.fd = s->cfd, .events = POLLIN};

	if (atomic_load(&s->failed))
		return SOURCE_WORKER_FAILED;
	if (poll(&pfd, 1, 0) == 1)
		return SOURCE_SINK_SPOKE;
	if (heartbeat(s))
		return SOURCE_SINK_SPOKE;
	return SOURCE_RUNNING;
}

/* Every second of the window: the RDMA completions so far, for the stream's variation. */
static void source_sample(void *ctx, double at)
{
	struct source *s = ctx;
	uint64_t cur = 0, *per = s->lprev + s->nw;
	uint32_t i;

	for (i = 0; i < s->nw; i++) {
		per[i] = atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);
		cur += per[i];
	}
	samples_add(&s->rdma_samples, cur, at, 1.0);
	drive_seconds(s, per, at);
	linkload_sample(s->ll, at);
}

/* --interval: this side's RDMA completions per drive (or memory) and in total. */
static void source_live(void *ctx, double at, double secs)
{
	struct source *s = ctx;
	struct live_value v[TARGET_MAX + 1];
	double total = 0;
	uint32_t i;
	int k, n = 0;

	for (k = 0; k < (s->nt ? s->nt : 1); k++) {
		uint64_t d = 0;

		for (i = 0; i < s->nw; i++) {
			uint64_t cur = atomic_load_explicit(&s->w[i].bytes, memory_order_relaxed);

			if (s->w[i].tindex != (s->nt ? k : -1))
				continue;
			d += cur - s->lprev[i];
			s->lprev[i] = cur;
		}
		total += (double)d / secs;
		if (s->nt > 1)
			v[n++] = (struct live_value){s->t[k].d.name, (double)d / secs};
	}
	v[n++] = (struct live_value){"rdma", total};
	result_live(s->x, &(struct result_live){at, v, n, NULL});
}

/* ---- the main thread ---------------------------------------------------------------- */

/*
 * After the window: the workers drain what is in flight (bounded by
 * --timeout); keep the heartbeat going meanwhile so that the sink does not
 * take the drain for silence, then join them.
 */
static void join_workers(struct source *s)
{
	uint32_t i;

	while (atomic_load(&s->finished) < s->started) {
		if (s->cfd >= 0 && heartbeat(s))
			s->hb_period = 0; /* the sink is gone: stop talking */
		nbw_sleep_until_ns(nbw_now_ns() + 50000000ULL);
	}
	for (i = 0; i < s->started; i++)
		pthread_join(s->w[i].tid, NULL);
	s->started = 0;
}

static const char *first_failure(struct source *s, char *buf, size_t len)
{
	char n[160];
	uint32_t i;

	for (i = 0; i < s->nw; i++)
		if (s->w[i].fault.err) {
			snprintf(buf, len, "%s: %s", sworker_name(&s->w[i], n, sizeof(n)),
				 s->w[i].fault.why);
			return buf;
		}
	snprintf(buf, len, "a worker failed");
	return buf;
}

/* ---- the phases of the run -------------------------------------------------------- */

/*
 * The staging buffers are registered with the RDMA device, which pins them
 * against RLIMIT_MEMLOCK: too low a limit fails here, before the header, with
 * what is needed.
 */
static int source_lock_check(struct source *s)
{
	const struct options *o = s->o;
	uint64_t need = (uint64_t)s->nw * buffer_span((size_t)o->chunk * o->depth);
	char why[320], each[32];

	if (!buffer_lock_need(need, buffer_lock_limit(), buffer_lock_exempt(), why, sizeof(why)))
		return 0;
	return source_fail(s, "%u staging buffers of %s registered for RDMA: %s", s->nw,
			   format_size((uint64_t)o->chunk * o->depth, each, sizeof(each)), why);
}

static int source_setup(struct source *s)
{
	const struct options *o = s->o;
	struct target_query q = {
		.option = "--disks", .required = true, .hint = ", or use --source mem"};
	int rc = remote_select_ports(o, s->ports);

	if (rc < 0)
		return rc == -NBW_EXIT_USAGE ? NBW_EXIT_USAGE : NBW_EXIT_FAIL;
	s->nports = rc;
	if (o->source.feed == CTRL_SOURCE_DISK) {
		rc = remote_targets(o, &q, s->t, &s->nt);
		if (rc)
			return rc;
	}
	rc = source_plan_workers(s);
	return rc ? rc : source_lock_check(s);
}

/*
 * Wait until the started workers reached phase; an interruption or a worker's
 * failure is told to the sink and said here. 0 when all went well.
 */
static int gather_workers(struct source *s, int phase)
{
	char msg[512];

	if (line_gather(&s->line, phase, s->started)) {
		source_tell_sink(s, "source: interrupted");
		return source_fail(s, "interrupted");
	}
	if (atomic_load(&s->failed)) {
		first_failure(s, msg, sizeof(msg));
		source_tell_sink(s, msg);
		return source_fail(s, "%s", msg);
	}
	return 0;
}

/* Start every worker thread; 0, or an exit status after telling the sink. */
static int start_workers(struct source *s)
{
	uint32_t i;

	line_init(&s->line);
	s->line_ready = true;
	for (i = 0; i < s->nw; i++) {
		int err = pthread_create(&s->w[i].tid, NULL, sworker_main, &s->w[i]);

		if (err) {
			source_fail(s, "cannot start worker thread %u of %u: %s", i, s->nw,
				    strerror(err));
			return source_tell_sink(s, s->failure);
		}
		s->w[i].started = true;
		s->started++;
	}
	return 0;
}

/* Line 1 (connected), the slices, line 2 (canaries written), CANARY and START. */
static int source_lines(struct source *s)
{
	int rc;

	nbw_watchdog_phase("connecting %u QPs to %s", s->nw, s->o->source.peer);
	rc = start_workers(s);

	if (!rc)
		rc = gather_workers(s, LINE_CONNECTED);
	if (!rc && s->o->conn == CTRL_CONN_VERBS)
		rc = source_send_qps(s);
	if (!rc) {
		nbw_watchdog_phase("waiting for %s's slices", s->o->source.peer);
		rc = source_receive_slices(s);
	}
	if (!rc)
		line_open(&s->line, LINE_CONNECTED);
	if (!rc)
		rc = gather_workers(s, LINE_CANARY);
	if (!rc) {
		nbw_watchdog_phase("waiting for START from %s", s->o->source.peer);
		rc = source_send_canary(s);
	}
	if (rc)
		line_abort(&s->line); /* every waiting worker returns */
	else
		line_open(&s->line, LINE_CANARY);
	return rc;
}

/* What ended the window, said and kept; false when the sink is gone or spoke. */
static void window_outcome(struct source *s, const struct window *w)
{
	char err[CTRL_MAX_STR], msg[512];
	uint32_t len;
	void *p;
	int e;

	if (w->end_reason == WINDOW_SIGNAL) {
		snprintf(s->failure, sizeof(s->failure), "interrupted");
		nbw_err("interrupted: the window was cut to %.2f s", w->seconds);
	} else if (w->end_reason == WINDOW_STOPPED && w->stopped_by == SOURCE_WORKER_FAILED) {
		source_fail(s, "%s", first_failure(s, msg, sizeof(msg)));
	} else if (w->end_reason == WINDOW_STOPPED) {
		e = source_expect(s, CTRL_DONE, &p, &len, 100, err, sizeof(err));
		if (!e)
			free(p);
		source_fail(s, "%s: the sink %s", s->o->source.peer,
			    e == -ECONNABORTED ? err : "went away during the window");
	}
}

/* Per drive: what its workers completed inside the window. */
static void drive_totals(struct source *s)
{
	uint32_t i;
	int k;

	for (i = 0; i < s->nw; i++)
		if (s->w[i].tindex >= 0)
			s->dr[s->w[i].tindex].bytes += s->wend[i] - s->wstart[i];
	for (k = 0; k < s->nt; k++) {
		snprintf(s->dr[k].path, sizeof(s->dr[k].path), "%s", s->t[k].d.path);
		snprintf(s->dr[k].model, sizeof(s->dr[k].model), "%s", s->t[k].d.model);
		s->dr[k].numa_node = s->t[k].d.numa_node;
		s->dr[k].workers = s->o->threads;
	}
}

/* The window, the drain, the RESULT and the verdict. The exit status. */
static int source_window(struct source *s)
{
	const struct options *o = s->o;
	struct window w = {
		.tick_ms = s->hb_period && s->hb_period < 100000000ULL
				   ? (int)(s->hb_period / 1000000)
				   : 100,
		.check = source_check,
		.live = source_live,
		.sample = source_sample,
		.snapshot = snapshot,
	};
	bool sink_gone, ok;
	int rc;

	window_bind(&w, &o->cc, s, s->wstart, s->wend);
	/* The warm-up runs from START, as the sink's: what is read below (the drives'
	 * health logs, through their admin queues) never delays the window's opening. */
	w.origin_ns = s->t_start;
	w.warmup += o->source.late_start;
	linkload_free(s->ll);
	s->ll = remote_watch(o, s->t, s->nt, s->ports, s->nports);
	s->win = &w;
	nbw_watchdog_phase("the drives' health logs before the window");
	for (rc = 0; s->health && rc < s->nt; rc++)
		health_watch_read(&s->health[rc], false);
	nbw_watchdog_phase("the window (writing to %s)", o->source.peer);
	window_run(&w);
	s->seconds = w.seconds;
	s->cpu_s = w.cpu_s;
	if (!w.measured)
		memset(s->wend, 0, s->nw * sizeof(uint64_t));
	atomic_store(&s->stop, true);
	sink_gone = w.end_reason == WINDOW_STOPPED && w.stopped_by == SOURCE_SINK_SPOKE;
	if (sink_gone)
		s->hb_period = 0; /* the sink spoke or is gone: no more heartbeats */
	nbw_watchdog_phase("the drain (%u workers' RDMA WRITEs in flight to %s, then their "
			   "drive reads)",
			   s->nw, o->source.peer);
	join_workers(s);
	s->win = NULL;
	for (rc = 0; s->health && rc < s->nt; rc++) /* after the window */
		health_watch_read(&s->health[rc], true);
	ok = w.end_reason == WINDOW_DONE;
	window_outcome(s, &w);
	if (ok && atomic_load(&s->failed) && !sink_gone) {
		/* the window was whole, a worker failed while draining: say which */
		char msg[512];

		source_fail(s, "after the window: %s", first_failure(s, msg, sizeof(msg)));
	}
	drive_totals(s);
	source_count_rails(s);
	if (sink_gone)
		return NBW_EXIT_FAIL;
	nbw_watchdog_phase("sending RESULT to %s and waiting for its verdict", o->source.peer);
	rc = source_send_result(s, ok && !atomic_load(&s->failed));
	if ((!ok || atomic_load(&s->failed)) && s->failure[0])
		source_tell_sink(s, s->failure);
	return rc;
}

/* Reverse order of set-up, per worker. */
static void source_close(struct source *s)
{
	char name[160];
	uint32_t i;
	int k;

	/* Teardown has a bound of its own, whatever is left of the budget. */
	nbw_watchdog_bound(wait_s(s->o, WAIT_TEARDOWN));
	nbw_watchdog_phase("teardown: joining the workers");
	if (s->started) {
		line_abort(&s->line);
		join_workers(s);
	}
	if (s->line_ready)
		line_destroy(&s->line);
	for (i = 0; s->w && i < s->nw; i++) {
		struct sworker *w = &s->w[i];

		if (w->wr_init)
			fab_writer_free(&w->wr);
		nbw_watchdog_phase("teardown: worker %u of %u", i, s->nw);
		fab_conn_close(&w->conn);
		/* Reads left in flight by the worker's close may still land in buf. */
		if (w->rd_busy)
			nbw_warn("%s: reads still in flight at close; their buffer is kept",
				 sworker_name(w, name, sizeof(name)));
		else
			buffer_free_locked(w->buf, w->buflen);
		free(w->mem_busy);
		free(w->mem_digest);
		free(w->table);
		free(w->lat);
	}
	if (s->cfd >= 0)
		close(s->cfd);
	target_close(s->t, s->nt);
	free(s->w);
	free(s->wstart); /* and wend, lprev */
	free(s->dr);
	for (k = 0; s->dsec && k < s->nt; k++)
		samples_free(&s->dsec[k]);
	free(s->dsec);
	free(s->health);
	free(s->ctr_open);
	free(s->ctr);
	linkload_free(s->ll);
	samples_free(&s->rdma_samples);
	nbw_watchdog_unbound();
}

/* --latency: the workers' histograms merged into the stream's. 0 or -ENOMEM. */
static int source_latency(const struct source *s, struct result_stream *st)
{
	uint32_t i;

	if (!s->o->source.latency)
		return 0;
	st->lat = calloc(1, sizeof(*st->lat));
	if (!st->lat)
		return -ENOMEM;
	for (i = 0; s->w && i < s->nw; i++)
		if (s->w[i].lat)
			lathist_merge(st->lat, s->w[i].lat);
	return 0;
}

/* What the run saw, into x: its ports, drives, rails, RDMA stream and verdict. 0 or -ENOMEM. */
static int source_result(const struct source *s, struct result *x)
{
	struct result_stream *st;
	int k;

	if (result_streams(x, 1))
		return -ENOMEM;
	st = &x->streams[0];
	x->ports = s->nports ? calloc((size_t)s->nports, sizeof(*x->ports)) : NULL;
	st->drives = s->nt ? calloc((size_t)s->nt, sizeof(*st->drives)) : NULL;
	st->rails = s->nrails ? calloc((size_t)s->nrails, sizeof(*st->rails)) : NULL;
	if ((s->nports && !x->ports) || (s->nt && !st->drives) || (s->nrails && !st->rails) ||
	    source_latency(s, st))
		return -ENOMEM;
	for (k = 0; k < s->nports; k++) {
		snprintf(x->ports[k].dev, sizeof(x->ports[k].dev), "%s", s->ports[k].dev);
		x->ports[k].port = s->ports[k].port;
		x->ports[k].link_layer = s->ports[k].link_layer;
		snprintf(x->ports[k].addr, sizeof(x->ports[k].addr), "%s", s->ports[k].addr);
	}
	x->nports = s->nports;
	for (k = 0; s->dr && k < s->nt; k++) {
		snprintf(st->drives[k].path, sizeof(st->drives[k].path), "%s", s->t[k].d.path);
		snprintf(st->drives[k].model, sizeof(st->drives[k].model), "%s", s->t[k].d.model);
		st->drives[k].numa_node = s->t[k].d.numa_node;
		st->drives[k].workers = s->o->threads;
		st->drives[k].bytes = s->dr[k].bytes;
		if (s->dsec) {
			st->drives[k].has_shape = true;
			window_shape(s->dsec[k].rate, s->dsec[k].n, s->o->sink.max_cv,
				     &st->drives[k].shape);
		}
		if (s->health) {
			st->drives[k].has_health = true;
			st->drives[k].health = s->health[k];
		}
	}
	st->ndrives = s->dr ? s->nt : 0;
	st->drives_known = true;
	if (s->nrails)
		memcpy(st->rails, s->rails, sizeof(*st->rails) * (size_t)s->nrails);
	st->nrails = s->nrails;
	if (s->have_aff) {
		snprintf(st->rail_affinity, sizeof(st->rail_affinity), "%s",
			 rail_affinity_name(s->aff.mode));
		snprintf(st->rail_affinity_why, sizeof(st->rail_affinity_why), "%s", s->aff.why);
	}
	st->workers = s->nw;
	st->source = s->o->source.feed;
	st->bytes =
		s->wend ? source_bytes_sum(s->wend, s->nw) - source_bytes_sum(s->wstart, s->nw) : 0;
	st->seconds = s->seconds;
	st->have_window = s->seconds > 0;
	st->cv = nbw_cv_pct(s->rdma_samples.rate, s->rdma_samples.n);
	st->open_ns = (double)s->t_window;
	st->close_ns = (double)s->t_window + s->seconds * 1e9;
	x->ctr = s->nctr ? calloc((size_t)s->nctr, sizeof(*x->ctr)) : NULL;
	x->nctr = x->ctr ? s->nctr : 0;
	if (x->ctr)
		memcpy(x->ctr, s->ctr, sizeof(*x->ctr) * (size_t)s->nctr);
	linkload_free(x->ll);
	x->ll = linkload_dup(s->ll);
	x->cpu_s = s->cpu_s;
	x->verdict = s->verdict;
	snprintf(x->failure, sizeof(x->failure), "%s", s->failure);
	return 0;
}

/* The handshake done: the header, the start line, the window. The exit status. */
static int source_run(struct source *s, struct result *x)
{
	int rc = source_lines(s);

	result_begin(x);
	if (!rc)
		rc = source_window(s);
	else
		join_workers(s);
	return rc;
}

int run_source(const struct options *o, const struct run_state *run, struct result *x)
{
	struct source *s = nbw_zalloc(1, sizeof(*s));
	int rc;

	if (!s)
		return NBW_EXIT_FAIL;
	s->cfd = -1; /* no control channel yet */
	s->o = o;
	s->sync = run->sync;
	s->x = x;
	s->verdict = VERDICT_NONE;
	nbw_watchdog_phase("setting up (drives, ports, workers)");
	rc = source_setup(s);
	if (!rc) {
		nbw_watchdog_phase("the handshake with %s", o->source.peer);
		rc = source_handshake(s);
	}
	if (!rc)
		rc = source_run(s, x);
	if (source_result(s, x)) {
		nbw_err("out of memory");
		rc = NBW_EXIT_FAIL;
	}
	x->rc = rc;
	if (x->nstreams)
		x->streams[0].rc = rc;
	streams_judge(x);
	if (s->sync) /* failed before: this node's sink need not wait */
		meeting_arrive(s->sync);
	source_close(s);
	free(s);
	return rc;
}
