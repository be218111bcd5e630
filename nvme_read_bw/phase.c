// SPDX-License-Identifier: MIT
/*
 * phase.c: one measured phase of nvme_read_bw: a worker thread per region of
 * each target (NUMA pinned, its own locked buffer, the shared reader loop),
 * all released at once by the start line, and the window of common/base/window.c
 * over their completion counters.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "read_bw.h"
#include "timing.h"
#include "watchdog.h"

/* What a worker of the gang keeps beside its counters. */
struct worker {
	struct lathist *lat; /* latencies inside the window (NULL: not timed) */
	uint64_t zero_samples, zero_blocks;
	uint64_t digest, digested;
};

/* The reader flags of the options; a gang worker opens, reads and closes its reader itself. */
static unsigned reader_flags(const struct options *o)
{
	return READER_ONE_TASK | (o->iopoll ? READER_IOPOLL : 0) | (o->sqpoll ? READER_SQPOLL : 0);
}

/* Pin, allocate and lock the buffer, open the reader. 0 or -errno (recorded). */
static int worker_setup(struct gang_worker *gw, struct reader *rd, void **buf, void *ctx)
{
	struct phase *ph = ctx;
	const struct options *o = ph->o;
	const struct target *t = gw->t;
	size_t buflen = (size_t)o->chunk * o->depth;
	int lock_errno, rc;
	char sz[32];

	*buf = NULL;
	rc = placement_pin_self(placement_policy_node(o->numa_policy, t->d.numa_node));
	if (rc) {
		gang_fail(gw, rc, "pin to NUMA node");
		return rc;
	}
	rc = buffer_alloc(buflen, target_align(t), o->buf.lock, buf, &lock_errno);
	format_size(buflen, sz, sizeof(sz));
	if (rc && lock_errno) {
		gw->hint = " (raise 'ulimit -l')";
		gang_fail(gw, rc, "cannot lock a %s reader buffer in memory", sz);
	} else if (rc) {
		gang_fail(gw, rc, "cannot allocate a %s reader buffer", sz);
	}
	if (rc) {
		*buf = NULL;
		return rc;
	}
	rc = reader_open_flags(rd, t->fd, o->engine, o->depth, o->chunk, t->d.lbs, t->d.size,
			       gw->reg, *buf, reader_flags(o));
	if (rc) {
		gang_fail(gw, rc, "set up reader");
		return rc;
	}
	reader_set_timed(rd, ph->w[gw->index].lat != NULL);
	/* The stream is the reader's index in the phase: one seed, one set of sequences. */
	if (o->random && (rc = reader_set_random(rd, o->seed, gw->index))) {
		gang_fail(gw, rc, "set up random offsets");
		reader_close(rd);
	}
	return rc;
}

#define ZERO_SAMPLE 4096u

/* True if len bytes at p are all zero. */
static bool bytes_are_zero(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, c + i, 8);
		if (w)
			return false;
	}
	for (; i < len; i++)
		if (c[i])
			return false;
	return true;
}

/*
 * Honesty sample of a chunk: its first and last 4 KiB (one block if the chunk
 * is smaller than 8 KiB). Returns the number of blocks sampled and adds the
 * number that were all zero bytes to *zero.
 */
static unsigned zero_sample(const void *buf, size_t len, uint64_t *zero)
{
	const unsigned char *c = buf;

	if (len < 2 * ZERO_SAMPLE) {
		*zero += bytes_are_zero(c, len);
		return 1;
	}
	*zero += bytes_are_zero(c, ZERO_SAMPLE);
	*zero += bytes_are_zero(c + len - ZERO_SAMPLE, ZERO_SAMPLE);
	return 2;
}

/* Each chunk: sample for zeros, digest the first sweep, record its latency in the window. */
static void worker_chunk(struct gang_worker *gw, const struct reader_chunk *c, void *ctx)
{
	struct phase *ph = ctx;
	struct worker *w = &ph->w[gw->index];

	w->zero_samples += zero_sample(c->buf, c->len, &w->zero_blocks);
	if (ph->o->checksum && c->sweep == 0) {
		w->digest = digest_add(w->digest, c->offset, c->buf, c->len);
		w->digested += c->len;
	}
	if (w->lat && gw->in_window)
		lathist_record(w->lat, c->lat_ns);
}

static void worker_read_failed(struct gang_worker *gw, int rc, void *ctx)
{
	struct phase *ph = ctx;

	if (ph->o->iopoll && (rc == -EOPNOTSUPP || rc == -EINVAL))
		gw->hint = " (--iopoll needs poll queues, which only NVMe drives "
			   "(nvme.poll_queues=N) and virtio disks (virtio_blk.poll_queues=N) have)";
}

static void worker_teardown(struct gang_worker *gw, void *buf, void *ctx)
{
	struct phase *ph = ctx;

	(void)gw;
	buffer_free_locked(buf, (size_t)ph->o->chunk * ph->o->depth);
}

static const struct gang_ops worker_ops = {
	.setup = worker_setup,
	.chunk = worker_chunk,
	.read_failed = worker_read_failed,
	.teardown = worker_teardown,
};

/* ---- the window ------------------------------------------------------------------ */

/* Bytes and reads completed so far per target of the phase. */
static void count(const struct phase *ph, uint64_t *bytes, uint64_t *ios)
{
	gang_count(&ph->gang, bytes, ios);
}

/* The window's opening and close: counters, and latencies recorded in between. */
static void snapshot(void *ctx, uint64_t *per_target)
{
	struct phase *ph = ctx;
	size_t sz = sizeof(uint64_t) * (size_t)ph->nt;

	if (per_target == ph->win_start) {
		int i;

		gang_mark(&ph->gang, true, per_target, ph->ios_start);
		for (i = 0; i < ph->nt; i++) /* the seconds' base */
			samples_add(&ph->res[i].sec, per_target[i], 0, 1.0);
		/* live lines count from here */
		memcpy(ph->prev, per_target, sz);
		memcpy(ph->ios_prev, ph->ios_start, sz);
		ph->ll_open_ns = nbw_now_ns(); /* the links after the counters: they time nothing */
		linkload_open(ph->ll);
	} else {
		gang_mark(&ph->gang, false, per_target, ph->ios_end);
		linkload_close(ph->ll, nbw_ns_to_s(nbw_now_ns() - ph->ll_open_ns));
	}
}

/* A second of the window: each drive's rate, the drives' links. */
static void sample(void *ctx, double at)
{
	struct phase *ph = ctx;
	uint64_t cur[TARGET_MAX], ios[TARGET_MAX];
	int i;

	count(ph, cur, ios);
	for (i = 0; i < ph->nt; i++)
		samples_add(&ph->res[i].sec, cur[i], at, 1.0);
	linkload_sample(ph->ll, at);
}

static int check(void *ctx)
{
	struct phase *ph = ctx;

	return gang_failed(&ph->gang) ? 1 : 0;
}

/* The live line's IOPS, after its unit: "GB/s  IOPS nvme0n1 1234 total 1234". */
static void live_iops(const struct phase *ph, const uint64_t *ios, double secs, char *note,
		      size_t len)
{
	uint64_t total = 0;
	size_t off;
	int i;

	off = (size_t)snprintf(note, len, "%s  IOPS", ph->o->cc.gbits ? "Gb/s" : "GB/s");
	for (i = 0; i < ph->nt && off < len; i++) {
		total += ios[i] - ph->ios_prev[i];
		off += (size_t)snprintf(note + off, len - off, " %s %.0f", ph->t[i]->d.name,
					(double)(ios[i] - ph->ios_prev[i]) / secs);
	}
	if (off < len)
		snprintf(note + off, len - off, " total %.0f", (double)total / secs);
}

/* --interval: a line per target and the total. */
static void live(void *ctx, double at, double secs)
{
	struct phase *ph = ctx;
	struct live_value v[TARGET_MAX + 1];
	uint64_t cur[TARGET_MAX], ios[TARGET_MAX];
	char note[1024];
	double total = 0;
	int i;

	count(ph, cur, ios);
	live_iops(ph, ios, secs, note, sizeof(note));
	memcpy(ph->ios_prev, ios, sizeof(uint64_t) * (size_t)ph->nt);
	for (i = 0; i < ph->nt; i++) {
		double bps = (double)(cur[i] - ph->prev[i]) / secs;

		ph->prev[i] = cur[i];
		total += bps;
		v[i] = (struct live_value){ph->t[i]->d.name, bps};
	}
	v[ph->nt] = (struct live_value){"total", total};
	live_print(cli_live_stream(&ph->o->cc), at, ph->o->cc.gbits, v, ph->nt + 1, note);
}

/* The measured window: warm-up, then duration with optional interval lines. */
static int phase_window(struct phase *ph)
{
	const struct options *o = ph->o;
	uint64_t start[TARGET_MAX], end[TARGET_MAX];
	struct window w = {
		.check = check,
		.live = live,
		.snapshot = snapshot,
		.sample = sample,
	};
	enum window_end end_reason;
	int i;

	ph->prev = calloc((size_t)ph->nt * 4, sizeof(uint64_t));
	if (!ph->prev)
		return -ENOMEM;
	ph->ios_prev = ph->prev + ph->nt;
	ph->ios_start = ph->prev + 2 * ph->nt;
	ph->ios_end = ph->prev + 3 * ph->nt;
	ph->win_start = start;
	ph->win_end = end;
	window_bind(&w, &o->cc, ph, start, end);
	end_reason = window_run(&w);
	prov_span(o->prov, w.open_ns, w.close_ns);
	ph->win_start = NULL;
	ph->interrupted = end_reason == WINDOW_SIGNAL;
	if (!w.measured) {
		ph->nothing_measured = true;
		return 0;
	}
	ph->seconds = w.seconds;
	ph->cpu_s = w.cpu_s;
	for (i = 0; i < ph->nt; i++) {
		ph->res[i].bytes = end[i] - start[i];
		ph->res[i].ios = ph->ios_end[i] - ph->ios_start[i];
		ph->res[i].seconds = ph->seconds;
		window_shape(ph->res[i].sec.rate, ph->res[i].sec.n, o->max_cv, &ph->res[i].shape);
		ph->total_bytes += ph->res[i].bytes;
		ph->total_ios += ph->res[i].ios;
	}
	return 0;
}

/* ---- the phase ---------------------------------------------------------------------- */

void phase_free(struct phase *ph)
{
	int i;

	if (ph->res)
		for (i = 0; i < ph->nt; i++) {
			samples_free(&ph->res[i].sec);
			free(ph->res[i].lat);
		}
	if (ph->w)
		for (i = 0; i < ph->gang.nw; i++)
			free(ph->w[i].lat);
	gang_free(&ph->gang);
	free(ph->res);
	free(ph->w);
	free(ph->prev);
	free(ph->lat);
	linkload_free(ph->ll);
	ph->ll = NULL;
	ph->res = NULL;
	ph->w = NULL;
	ph->prev = NULL;
	ph->lat = NULL;
}

double phase_bps(const struct phase *ph)
{
	return ph->seconds > 0 ? (double)ph->total_bytes / ph->seconds : 0;
}

double phase_iops(const struct phase *ph)
{
	return ph->seconds > 0 ? (double)ph->total_ios / ph->seconds : 0;
}

/* Report the first worker failure; returns the exit status. */
static int phase_failure(const struct phase *ph)
{
	const struct gang_worker *w = gang_fault(&ph->gang);

	if (!w)
		return NBW_EXIT_OK;
	nbw_err("%s: %s: %s%s", w->t->d.path, w->fault.why, strerror(-w->fault.err),
		w->hint ? w->hint : "");
	return NBW_EXIT_FAIL;
}

/* --latency: a histogram per worker, per target and for the phase. 0 or -ENOMEM. */
static int phase_plan_lat(struct phase *ph)
{
	int i;

	if (!ph->o->latency)
		return 0;
	ph->lat = calloc(1, sizeof(*ph->lat));
	if (!ph->lat)
		return -ENOMEM;
	for (i = 0; i < ph->nt; i++)
		if (!(ph->res[i].lat = calloc(1, sizeof(*ph->lat))))
			return -ENOMEM;
	for (i = 0; i < ph->gang.nw; i++)
		if (!(ph->w[i].lat = calloc(1, sizeof(*ph->lat))))
			return -ENOMEM;
	return 0;
}

/* Workers, regions and result slots of a phase. 0 or -ENOMEM. */
static int phase_plan(struct phase *ph)
{
	const struct options *o = ph->o;
	int i;

	if (gang_plan(&ph->gang, ph->t, ph->nt, o->threads, &worker_ops, ph))
		return -ENOMEM;
	ph->w = calloc((size_t)ph->gang.nw + 1, sizeof(*ph->w));
	ph->res = calloc((size_t)ph->nt, sizeof(*ph->res));
	ph->ll = linkload_new();
	if (!ph->w || !ph->res || !ph->ll || phase_plan_lat(ph))
		return -ENOMEM;
	for (i = 0; i < ph->nt; i++) { /* a drive without a PCI address (a file) has no link */
		if (ph->t[i]->d.bdf[0])
			linkload_add(ph->ll, o->cc.sysfs_root, ph->t[i]->d.name, "nvme",
				     ph->t[i]->d.bdf);
		if (samples_init(&ph->res[i].sec, o->cc.duration, 1.0))
			return -ENOMEM;
		health_watch_init(&ph->res[i].health, &ph->t[i]->d, o->cc.sysfs_root);
	}
	return 0;
}

/* Sum the workers' digests and zero samples per target. */
static void phase_collect(struct phase *ph)
{
	int i;

	for (i = 0; i < ph->gang.nw; i++) {
		struct tresult *r = &ph->res[ph->gang.w[i].tindex];
		const struct worker *w = &ph->w[i];

		r->digest += w->digest;
		r->digested += w->digested;
		r->zero_samples += w->zero_samples;
		r->zero_blocks += w->zero_blocks;
		if (w->lat) {
			lathist_merge(r->lat, w->lat);
			lathist_merge(ph->lat, w->lat);
		}
	}
	for (i = 0; i < ph->nt; i++) {
		struct tresult *r = &ph->res[i];

		r->zero_fraction =
			r->zero_samples ? (double)r->zero_blocks / (double)r->zero_samples : NAN;
	}
}

/* Each drive's health log: before the warm-up, after the window. */
static void phase_health(struct phase *ph, bool after)
{
	int i;

	nbw_watchdog_phase("reading the drives' health logs %s the window",
			   after ? "after" : "before");
	for (i = 0; i < ph->nt; i++)
		health_watch_read(&ph->res[i].health, after);
}

/* Start every worker; the count started (a failure to start is said here). */
static int phase_start(struct phase *ph)
{
	int err, started = gang_start(&ph->gang, &err);

	if (started < ph->gang.nw)
		nbw_err("cannot start reader thread %d of %d: %s", started + 1, ph->gang.nw,
			strerror(err));
	return started;
}

int phase_run(const struct options *o, struct target **t, int nt, struct phase *ph)
{
	int started, rc = NBW_EXIT_OK;

	memset(ph, 0, sizeof(*ph));
	/* Each phase has its budget: its window and PHASE_SLACK_S (main.c starts the watchdog). */
	nbw_watchdog_rearm(o->cc.warmup + o->cc.duration + PHASE_SLACK_S);
	nbw_watchdog_phase("a phase's set-up (opening %d drives, starting readers)", nt);
	ph->o = o;
	ph->t = t;
	ph->nt = nt;
	if (phase_plan(ph)) {
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	started = phase_start(ph);
	if (started < ph->gang.nw)
		rc = NBW_EXIT_FAIL;
	/* Every started worker set itself up (or failed): release them all, or none. */
	if (gang_gather(&ph->gang))
		ph->nothing_measured = ph->interrupted = true;
	if (rc == NBW_EXIT_OK && !ph->nothing_measured && !gang_failed(&ph->gang)) {
		phase_health(ph, false);
		gang_open(&ph->gang);
		nbw_watchdog_phase("the window (%d readers)", ph->gang.nw);
		if (phase_window(ph) < 0) {
			nbw_err("out of memory");
			rc = NBW_EXIT_FAIL;
		}
		if (!ph->nothing_measured)
			phase_health(ph, true);
	}
	gang_stop(&ph->gang);
	if (rc == NBW_EXIT_OK)
		rc = phase_failure(ph);
	phase_collect(ph);
	return rc;
}
