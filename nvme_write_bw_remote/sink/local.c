// SPDX-License-Identifier: MIT
/*
 * local.c: the sink's own drives during a window (see local.h): a gang of
 * readers (common/storage/gang.h, as nvme_read_bw's), one per region of each drive,
 * each reading into its chunk of the DRAM's first part.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "nbw.h"
#include "remote.h"
#include "timing.h"

/* A local reader: depth 1, its chunk of the DRAM's first part (the window's buf). */
static int lreader_setup(struct gang_worker *w, struct reader *rd, void **buf, void *ctx)
{
	struct local *l = ctx;
	const struct options *o = l->o;
	int rc;

	*buf = l->buf + (uint64_t)w->index * o->chunk;
	rc = reader_open(rd, w->t->fd, o->engine, 1, o->chunk, w->t->d.lbs, w->t->d.size, w->reg,
			 *buf);
	if (rc)
		gang_fail(w, rc, "read at offset 0");
	return rc;
}

static const struct gang_ops lreader_ops = {.setup = lreader_setup};

int local_open(struct local *l, const struct options *o, bool drives)
{
	struct target_query q = {.option = "--local-disks", .required = o->disks != NULL};
	int rc;

	l->o = o;
	if (drives && !o->sink.no_local) {
		rc = remote_targets(o, &q, l->t, &l->nt);
		if (rc)
			return rc;
	}
	if (samples_init(&l->lsamples, o->cc.duration, 1.0))
		return -ENOMEM;
	l->dsec = calloc((size_t)l->nt + 1, sizeof(*l->dsec));
	l->health = calloc((size_t)l->nt + 1, sizeof(*l->health));
	if (!l->dsec || !l->health)
		return -ENOMEM;
	for (rc = 0; rc < l->nt; rc++) {
		if (samples_init(&l->dsec[rc], o->cc.duration, 1.0))
			return -ENOMEM;
		health_watch_init(&l->health[rc], &l->t[rc].d, o->cc.sysfs_root);
	}
	/* One block: the counters at the window's open, at its close, at the last live line. */
	l->lstart = calloc(3 * ((size_t)l->nt + 1), sizeof(uint64_t));
	if (!l->lstart)
		return -ENOMEM;
	l->lend = l->lstart + l->nt + 1;
	l->lprev = l->lend + l->nt + 1;
	return 0;
}

void local_watch(struct local *l, const struct fab_port *ports, int n)
{
	linkload_free(l->ll);
	l->ll = remote_watch(l->o, l->t, l->nt, ports, n);
}

int local_start(struct local *l, unsigned char *buf)
{
	struct target *t[TARGET_MAX];
	int i, err;

	for (i = 0; i < l->nt; i++)
		t[i] = &l->t[i];
	l->buf = buf;
	for (i = 0; i < l->nt; i++) /* before the warm-up */
		health_watch_read(&l->health[i], false);
	if (gang_plan(&l->gang, t, l->nt, l->o->threads, &lreader_ops, l))
		return -ENOMEM;
	if (gang_start(&l->gang, &err) < l->gang.nw)
		return -err;
	/* Each set up (or failed): they read from here, through the warm-up (a signal: the window
	 * says). */
	gang_gather(&l->gang);
	gang_open(&l->gang);
	return 0;
}

void local_stop(struct local *l)
{
	int i;

	gang_stop(&l->gang);
	for (i = 0; i < l->nt; i++) /* after the window */
		health_watch_read(&l->health[i], true);
}

/* Bytes read so far, per drive (out: nt + 1 entries). */
static void local_count(const struct local *l, uint64_t *out)
{
	if (l->gang.w)
		gang_count(&l->gang, out, NULL);
	else
		memset(out, 0, sizeof(*out) * (size_t)(l->nt ? l->nt : 1));
}

/* The sum of per_drive[]. */
static uint64_t local_sum(const struct local *l, const uint64_t *per_drive)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < l->nt; i++)
		t += per_drive[i];
	return t;
}

bool local_snapshot(struct local *l, uint64_t *out)
{
	int i;

	local_count(l, out);
	if (out != l->lstart)
		return false;
	/* The window opens: live lines and samples count from here. */
	memcpy(l->lprev, out, sizeof(*out) * (size_t)(l->nt ? l->nt : 1));
	samples_add(&l->lsamples, local_sum(l, out), 0, 1.0);
	for (i = 0; i < l->nt; i++) {
		l->dsec[i].n = l->dsec[i].dropped = 0; /* this window's seconds */
		samples_add(&l->dsec[i], out[i], 0, 1.0);
	}
	return true;
}

void local_links(struct local *l, bool open)
{
	if (open) {
		l->ll_open_ns = nbw_now_ns();
		linkload_open(l->ll);
	} else {
		linkload_close(l->ll, nbw_ns_to_s(nbw_now_ns() - l->ll_open_ns));
	}
}

void local_sample(struct local *l, double at)
{
	uint64_t cur[TARGET_MAX + 1] = {0};

	int i;

	local_count(l, cur);
	samples_add(&l->lsamples, local_sum(l, cur), at, 1.0);
	for (i = 0; i < l->nt; i++)
		samples_add(&l->dsec[i], cur[i], at, 1.0);
	linkload_sample(l->ll, at);
}

double local_live(struct local *l, double secs)
{
	uint64_t cur[TARGET_MAX + 1];
	double rate = 0;
	int i;

	local_count(l, cur);
	for (i = 0; i < l->nt; i++) {
		rate += (double)(cur[i] - l->lprev[i]) / secs;
		l->lprev[i] = cur[i];
	}
	return rate;
}

bool local_failed(const struct local *l)
{
	return gang_failed(&l->gang);
}

void local_fault(const struct local *l, char *why, size_t len)
{
	const struct gang_worker *w = gang_fault(&l->gang);

	if (!w) {
		snprintf(why, len, "a local reader failed");
		return;
	}
	snprintf(why, len, "%s: %s: %s", w->t->d.path, w->fault.why, strerror(-w->fault.err));
}

void local_zero(struct local *l)
{
	memset(l->lend, 0, sizeof(uint64_t) * (size_t)(l->nt ? l->nt : 1));
	memset(l->lstart, 0, sizeof(uint64_t) * (size_t)(l->nt ? l->nt : 1));
}

void local_close(struct local *l)
{
	int i;

	target_close(l->t, l->nt);
	gang_free(&l->gang);
	free(l->lstart); /* and lend, lprev */
	samples_free(&l->lsamples);
	for (i = 0; l->dsec && i < l->nt; i++)
		samples_free(&l->dsec[i]);
	free(l->dsec);
	free(l->health);
	linkload_free(l->ll);
	memset(l, 0, sizeof(*l));
}
