// SPDX-License-Identifier: MIT
/*
 * gate.c: the shared rdma_cm listener (see gate.h). One session at a time
 * reads the listener (a mutex); what it reads for another admitted session
 * waits in a small table until that session asks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "gate.h"
#include "nbw.h"
#include "timing.h"

/* How long one session reads the listener before it lets another. */
#define GATE_SLICE_MS 100

struct kept {
	struct rdma_cm_id *id;
	struct fab_hello h;
};

struct gate {
	const struct options *o;
	pthread_mutex_t lock;
	struct fab_listener lis;
	uint64_t sessions[GATE_MAX_SESSIONS];
	int nsessions;
	struct kept kept[GATE_MAX_KEPT];
	int nkept;
};

struct gate *gate_open(const struct options *o, const char *const *addrs, int n, unsigned port,
		       int *err)
{
	struct gate *g = nbw_zalloc(1, sizeof(*g));

	*err = -ENOMEM;
	if (!g)
		return NULL;
	g->o = o;
	*err = fab_listener_open(&g->lis, addrs, n, port);
	if (*err) {
		free(g);
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
	return g;
}

void gate_expect(struct gate *g, uint64_t session)
{
	pthread_mutex_lock(&g->lock);
	if (g->nsessions < GATE_MAX_SESSIONS)
		g->sessions[g->nsessions++] = session;
	pthread_mutex_unlock(&g->lock);
}

static bool expected(const struct gate *g, uint64_t session)
{
	int i;

	for (i = 0; i < g->nsessions; i++)
		if (g->sessions[i] == session)
			return true;
	return false;
}

/* A kept request of session, taken out of the table; false if none. */
static bool take_kept(struct gate *g, uint64_t session, struct rdma_cm_id **id, struct fab_hello *h)
{
	int i;

	for (i = 0; i < g->nkept; i++) {
		if (g->kept[i].h.session != session)
			continue;
		*id = g->kept[i].id;
		*h = g->kept[i].h;
		g->kept[i] = g->kept[--g->nkept];
		return true;
	}
	return false;
}

/* One request read from the listener: ours (1), kept or rejected (0), or an error. */
static int read_one(struct gate *g, uint64_t session, int ms, struct rdma_cm_id **id,
		    struct fab_hello *h)
{
	int rc = fab_listener_next(&g->lis, ms, id, h);

	if (rc == -ETIMEDOUT || rc == -EINTR)
		return rc;
	if (rc) {
		fprintf(stderr, "%s: RDMA connect request without our private data: rejected\n",
			nbw_prog);
		return 0;
	}
	if (g->o->sink.nallow &&
	    !netaddr_allowed(g->o->sink.allow, g->o->sink.nallow, fab_request_peer(*id))) {
		nbw_err("RDMA connect request from outside --allow: rejected");
		fab_listener_reject(*id);
		return 0;
	}
	if (h->session == session)
		return 1;
	if (expected(g, h->session) && g->nkept < GATE_MAX_KEPT) {
		g->kept[g->nkept++] = (struct kept){.id = *id, .h = *h};
		return 0;
	}
	fprintf(stderr, "%s: RDMA connect request of another session or worker %u: rejected\n",
		nbw_prog, h->worker);
	fab_listener_reject(*id);
	return 0;
}

int gate_next(struct gate *g, uint64_t session, uint64_t deadline, struct rdma_cm_id **id,
	      struct fab_hello *h)
{
	for (;;) {
		uint64_t now = nbw_now_ns();
		int rc, ms = GATE_SLICE_MS;

		if (now >= deadline)
			return -ETIMEDOUT;
		if ((deadline - now) / 1000000 < (uint64_t)ms)
			ms = (int)((deadline - now) / 1000000) + 1;
		pthread_mutex_lock(&g->lock);
		rc = take_kept(g, session, id, h) ? 1 : read_one(g, session, ms, id, h);
		pthread_mutex_unlock(&g->lock);
		if (rc == 1)
			return 0;
		if (rc == -EINTR)
			return rc;
	}
}

void gate_close(struct gate *g)
{
	int i;

	if (!g)
		return;
	for (i = 0; i < g->nkept; i++)
		fab_listener_reject(g->kept[i].id);
	fab_listener_close(&g->lis);
	pthread_mutex_destroy(&g->lock);
	free(g);
}
