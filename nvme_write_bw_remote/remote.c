// SPDX-License-Identifier: MIT
/*
 * remote.c: what the sink and the source of nvme_write_bw_remote share: RDMA
 * port selection, the timeout, the windows' arithmetic and the meeting. It
 * calls only common/, never back into the roles or main.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nbw.h"
#include "parse.h"
#include "remote.h"
#include "timing.h"
#include "window.h"

int remote_timeout_ms(const struct options *o)
{
	return (int)(o->timeout * 1000 + 0.5);
}

uint32_t remote_share(const struct options *o)
{
	if (o->max_per_source)
		return o->max_per_source;
	return o->sources > 1 ? MAX_WORKERS / o->sources : 0;
}

struct ctrl_hello remote_hello(const struct options *o)
{
	return (struct ctrl_hello){
		.chunk = o->chunk,
		.depth = o->depth,
		.warmup_ms = (uint64_t)(o->cc.warmup * 1000 + 0.5),
		.duration_ms = (uint64_t)(o->cc.duration * 1000 + 0.5),
		.verify = (uint8_t)o->verify,
		.conn = (uint8_t)o->conn,
		.mtu = o->lo.mtu,
		.sl = o->lo.sl,
		.tclass = o->lo.tclass,
	};
}

int remote_select_ports(const struct options *o, struct fab_port *ports)
{
	char bad[128];
	int n = fab_ports_select(o->devs, o->gid_index, ports, FAB_MAX_PORTS, bad, sizeof(bad));

	if (n == -ENODEV)
		nbw_err("no RDMA device found (for Soft-RoCE: rdma link add rxe0 type rxe netdev "
			"IFACE)");
	else if (n == -ENOENT)
		nbw_err("%s: no such RDMA device or port", bad);
	else if (n == -ENETDOWN)
		nbw_err("%s: no ACTIVE port", bad);
	else if (n < 0)
		nbw_err("RDMA devices: %s", strerror(-n));
	return n < 0 ? -1 : n;
}

int remote_targets(const struct options *o, const struct target_query *q, struct target *t, int *nt)
{
	struct target_query mine = *q;
	int n;

	mine.sysfs_root = o->cc.sysfs_root;
	mine.list = o->disks;
	n = target_collect(&mine, t);
	if (n < 0)
		return -n;
	*nt = n;
	return target_prepare(t, n, o->chunk, o->span, o->threads);
}

double rail_line_rate(const struct fab_port *a, const struct fab_port *b)
{
	if (a->software || b->software || a->rate_gbits <= 0 || b->rate_gbits <= 0)
		return 0;
	return a->rate_gbits < b->rate_gbits ? a->rate_gbits : b->rate_gbits;
}

double rails_line_gbits(const struct rail *rails, int n)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (rails[i].line_rate_gbits <= 0)
			return 0;
		sum += rails[i].line_rate_gbits;
	}
	return sum;
}

/* ---- the meeting before the windows (--bidir, --sources) ------------------------ */

void meeting_init(struct meeting *m, unsigned expected)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	m->expected = expected;
	m->arrived = 0;
}

void meeting_destroy(struct meeting *m)
{
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
}

void meeting_arrive(struct meeting *m)
{
	pthread_mutex_lock(&m->lock);
	m->arrived++;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

bool meeting_await(struct meeting *m, int timeout_ms)
{
	uint64_t deadline = nbw_now_ns() + (uint64_t)timeout_ms * 1000000ULL, t;
	struct timespec ts;
	bool all;

	pthread_mutex_lock(&m->lock);
	while (m->arrived < m->expected && (t = nbw_now_ns()) < deadline && !nbw_interrupted()) {
		t = t + 100000000ULL < deadline ? t + 100000000ULL : deadline; /* 100 ms slices */
		ts = (struct timespec){.tv_sec = (time_t)(t / 1000000000ULL),
				       .tv_nsec = (long)(t % 1000000000ULL)};
		pthread_cond_timedwait(&m->cond, &m->lock, &ts);
	}
	all = m->arrived >= m->expected;
	pthread_mutex_unlock(&m->lock);
	return all;
}
