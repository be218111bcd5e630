// SPDX-License-Identifier: MIT
/*
 * session.c: one source's conversation (see session.h), the handshake part:
 * ACCEPT, the QPs (verbs) or the RDMA connections (-R, through the hall's
 * gate), the slices and the canary. The window and the end of the
 * conversation are in session_window.c. The sink posts no receives and
 * polls no completions for the data: after the handshake its CPU only
 * reads its own drives, watches the control channel and, at the end,
 * checks what landed (verify.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "judge.h"
#include "nbw.h"
#include "remote.h"
#include "session.h"
#include "timing.h"
#include "verify.h"
#include "waits.h"
#include "watchdog.h"
#include "wire_conv.h"

/* ---- the handshake ------------------------------------------------------------ */

/* ACCEPT: the session and every port the sink accepts on. 0 or a ctrl error. */
static int send_accept(struct session *s, struct ctrl_buf *b)
{
	struct ctrl_accept *a = calloc(1, sizeof(*a));
	int i, rc;

	if (!a)
		return -ENOMEM;
	a->session = s->id;
	for (i = 0; i < s->env->nports && i < CTRL_MAX_PORTS; i++)
		conv_port_to_wire(&s->env->ports[i], &a->ports[a->nports++]);
	rc = ctrl_send_free(s->cfd, &s->mac, b, ctrl_encode_accept(b, a),
			    wait_ms(s->o, WAIT_HELLO));
	free(a);
	return rc;
}

/* Verbs mode, one worker: a QP on the port the source chose, its slice's MR, RTR/RTS. */
static int make_qp(struct session *s, uint32_t w, const struct ctrl_wqp *q, struct ctrl_qp *mine)
{
	const struct fab_port *p = &s->env->ports[q->sink_port];
	struct fab_qp_attr local, remote = conv_qp_from_wire(&q->qp);
	struct fab_conn *c = &s->conns[w];
	int rc;

	rc = fab_qp_open(c, p, 1, session_slice(s, w), s->env->lay->slice_len, true, &local);
	if (!rc)
		rc = fab_qp_connect(c, p, &local, &remote, &s->o->lo);
	if (rc)
		return session_refuse(s, "worker %u on %s:%u: %s", w, p->dev, p->port, c->why);
	*mine = conv_qp_to_wire(&local);
	s->wport[w] = q->sink_port;
	snprintf(s->wsrc[w], sizeof(s->wsrc[w]), "%s:%u", q->dev, q->port);
	return 0;
}

/* Verbs mode: the source's QPS, then one QP per worker where it asked. 0 or an exit status. */
static int make_qps(struct session *s)
{
	char err[CTRL_MAX_STR];
	struct ctrl_wqp *q = NULL;
	uint32_t len, n = 0, i;
	void *p;
	int rc;

	s->conns = calloc(s->hello.workers, sizeof(*s->conns));
	s->sqp = calloc(s->hello.workers, sizeof(*s->sqp));
	if (!s->conns || !s->sqp)
		return session_refuse(s, "out of memory");
	rc = session_expect(s, CTRL_QPS, &p, &len, wait_ms(s->o, WAIT_QPS), err, sizeof(err));
	if (!rc) {
		rc = ctrl_decode_qps(p, len, &q, &n);
		free(p);
	}
	if (rc)
		return session_refuse(s, "%s: waiting for the QPs: %s", s->peer,
				      rc == -ECONNABORTED || rc == -EBADMSG ? err
									    : ctrl_strerror(rc));
	if (judge_qps_refused(q, n, s->hello.workers, s->env->nports, err, sizeof(err)))
		rc = session_refuse(s, "%s: %s", s->peer, err);
	for (i = 0; !rc && i < n; i++)
		if (s->env->ports[q[i].sink_port].link == FAB_LINK_ETH &&
		    !judge_gid_allowed(q[i].qp.gid, s->o->sink.allow, s->o->sink.nallow))
			rc = session_refuse(s, "%s: worker %u: its GID is outside --allow", s->peer,
					    i);
	for (i = 0; !rc && i < n; i++)
		rc = make_qp(s, i, &q[i], &s->sqp[i]);
	free(q);
	return rc;
}

/* The place in the ports of the port an rdma_cm connection landed on; -1 if none. */
static int port_index(const struct session *s, const struct fab_conn *c)
{
	int i;

	for (i = 0; i < s->env->nports; i++)
		if (!strcmp(s->env->ports[i].dev, c->dev) && s->env->ports[i].port == c->port)
			return i;
	return -1;
}

/* -R: one rdma_cm connection per worker, through the hall's gate, each with its slice's MR. */
static int connect_workers(struct session *s)
{
	uint64_t deadline = nbw_now_ns() + wait_ns(s->o, WAIT_RDMA);
	uint32_t done = 0;

	s->conns = calloc(s->hello.workers, sizeof(*s->conns));
	if (!s->conns)
		return session_refuse(s, "out of memory");
	while (done < s->hello.workers) {
		struct rdma_cm_id *id;
		struct fab_hello h;
		int rc = gate_next(s->env->gate, s->id, deadline, &id, &h);

		if (rc == -ETIMEDOUT)
			return session_refuse(s,
					      "%s: %u of %u RDMA connections arrived within "
					      "%g s (--timeout)",
					      s->peer, done, s->hello.workers,
					      wait_s(s->o, WAIT_RDMA));
		if (rc)
			return session_refuse(s, "interrupted while the RDMA connections came");
		if (h.worker >= s->hello.workers || s->conns[h.worker].connected) {
			fprintf(stderr,
				"%s: RDMA connect request of another session or worker %u: "
				"rejected\n",
				nbw_prog, h.worker);
			fab_listener_reject(id);
			continue;
		}
		rc = fab_conn_accept(&s->conns[h.worker], id, session_slice(s, h.worker),
				     s->env->lay->slice_len, wait_ms(s->o, WAIT_RDMA));
		if (rc)
			return session_refuse(s, "worker %u: %s", h.worker, s->conns[h.worker].why);
		s->wport[h.worker] = port_index(s, &s->conns[h.worker]);
		done++;
	}
	return 0;
}

static int send_slices(struct session *s)
{
	struct ctrl_slice *sl = calloc(s->hello.workers, sizeof(*sl));
	struct ctrl_buf b;
	uint32_t i;
	int rc;

	if (!sl)
		return session_refuse(s, "out of memory");
	for (i = 0; i < s->hello.workers; i++) {
		sl[i].addr = (uint64_t)(uintptr_t)session_slice(s, i);
		sl[i].len = s->env->lay->slice_len;
		sl[i].rkey = s->conns[i].mr->rkey;
		if (s->sqp)
			sl[i].qp = s->sqp[i];
	}
	rc = ctrl_send_free(s->cfd, &s->mac, &b, ctrl_encode_slices(&b, sl, s->hello.workers),
			    wait_ms(s->o, WAIT_SLICES));
	free(sl);
	if (rc) {
		nbw_err("%s: sending the slices: %s", s->peer, ctrl_strerror(rc));
		snprintf(s->failure, sizeof(s->failure), "control channel lost");
		return NBW_EXIT_FAIL;
	}
	/* -R: no QPS came; the canary is next either way. */
	s->state = CTRL_STEP_CANARY;
	return 0;
}

static int receive_canary(struct session *s)
{
	struct landing l;
	char err[CTRL_MAX_STR];
	uint32_t len;
	void *p;
	int rc;

	rc = session_expect(s, CTRL_CANARY, &p, &len, wait_ms(s->o, WAIT_CANARY), err, sizeof(err));
	if (!rc)
		rc = ctrl_decode_chunks(p, len, &s->canary, &s->ncanary);
	free(p);
	if (rc == -ECONNABORTED)
		return session_fail(s, "%s: source failed: %s", s->peer, err);
	if (rc)
		return session_refuse(s, "%s: waiting for the canary: %s", s->peer,
				      err[0] ? err : ctrl_strerror(rc));
	session_landing(s, &l);
	s->vnote = (struct verdict_note){.verdict = VERDICT_NONE};
	verify_canary(&l, s->hello.verify, s->canary, s->ncanary, &s->vnote);
	return 0;
}

int session_handshake(struct session *s)
{
	struct ctrl_buf b;
	int rc;

	nbw_watchdog_phase("the handshake with %s", s->peer);
	rc = send_accept(s, &b);
	if (rc)
		return session_fail(s, "%s: %s", s->peer, ctrl_strerror(rc));
	if (s->o->conn == CTRL_CONN_VERBS) {
		s->state = CTRL_STEP_QPS;
		rc = make_qps(s);
	} else {
		s->state = CTRL_STEP_SLICES; /* -R: its connections come, then SLICES */
		rc = connect_workers(s);
	}
	return rc ?: send_slices(s) ?: receive_canary(s);
}

/* ---- its life ------------------------------------------------------------------ */

struct session *session_create(const struct session_env *env, int fd, const char *peer,
			       bool trusted, const struct ctrl_mac *mac,
			       const struct ctrl_hello *hello, struct local *loc)
{
	struct session *s = nbw_zalloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->env = env;
	s->o = env->o;
	s->state = CTRL_STEP_ACCEPT;
	s->cfd = fd;
	s->trusted = trusted;
	s->mac = *mac;
	s->in.mac = &s->mac;
	snprintf(s->peer, sizeof(s->peer), "%s", peer);
	s->hello = *hello;
	s->vnote.verdict = VERDICT_NONE;
	memset(s->wport, 0xff, sizeof(s->wport));
	s->delay_min_ns = -1;
	pthread_mutex_init(&s->beat_lock, NULL);
	if (getrandom(&s->id, sizeof(s->id), 0) != sizeof(s->id))
		s->id = nbw_now_ns() ^ ((uint64_t)(uintptr_t)s << 16) ^ ((uint64_t)getpid() << 32);
	s->loc = loc ? loc : &s->none;
	if (!loc && local_open(&s->none, s->o, false)) {
		local_close(&s->none);
		pthread_mutex_destroy(&s->beat_lock);
		free(s);
		return NULL;
	}
	return s;
}

void session_destroy(struct session *s)
{
	uint32_t i;

	if (!s)
		return;
	/* Teardown has a bound of its own, whatever is left of the budget. */
	nbw_watchdog_bound(wait_s(s->o, WAIT_TEARDOWN));
	for (i = 0; s->conns && i < s->hello.workers; i++) {
		nbw_watchdog_phase("teardown: worker %u of %u of %s", i, s->hello.workers, s->peer);
		fab_conn_close(&s->conns[i]);
	}
	free(s->conns);
	free(s->sqp);
	if (s->cfd >= 0)
		close(s->cfd);
	if (s->loc == &s->none)
		local_close(&s->none);
	free(s->canary);
	free(s->ctr_start);
	free(s->ctr_open);
	free(s->ctr);
	ctrl_result_free(&s->res);
	ctrl_inbox_reset(&s->in);
	nbw_watchdog_unbound();
	pthread_mutex_destroy(&s->beat_lock);
	free(s);
}

bool session_beat(struct session *s, struct ctrl_progress *beat)
{
	bool have;

	pthread_mutex_lock(&s->beat_lock);
	have = s->have_prog;
	*beat = s->prog;
	pthread_mutex_unlock(&s->beat_lock);
	return have;
}
