// SPDX-License-Identifier: MIT
/*
 * source/talk.c: the source's conversation with the sink over the control
 * channel: connect (a sink still starting refuses: retry), AUTH, HELLO and
 * ACCEPT (then the rails), QPS, SLICES, CANARY and START, the RESULT with
 * its table (--verify full) and the sink's VERIFY. Below run.c, above
 * workers.c (state.h).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire_conv.h"
#include "ctrl_auth.h"
#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "result.h"
#include "validity.h"
#include "rails.h"
#include "remote.h"
#include "target.h"
#include "timing.h"
#include "waits.h"
#include "watchdog.h"
#include "window.h"
#include "state.h"

/* ---- the steps (proto/steps.h): what may come and go, and where it leads ------------ */

static void stepped(struct source *s, unsigned type)
{
	/* From HELLO on, the sink's key changes no step. */
	s->step = ctrl_step_next(s->step, type, false, s->o->conn == CTRL_CONN_VERBS,
				 s->o->verify == CTRL_VERIFY_FULL);
}

int source_expect(struct source *s, unsigned type, void **p, uint32_t *len, int timeout_ms,
		  char *err, size_t errlen)
{
	int rc;

	*p = NULL;
	if (!ctrl_step_takes(s->step, CTRL_BY_SOURCE, type)) {
		snprintf(err, errlen, "%s is not awaited in step %s", ctrl_type_name(type),
			 ctrl_step_name(s->step));
		return -EBADMSG;
	}
	rc = ctrl_expect(s->cfd, &s->mac, type, p, len, timeout_ms, err, errlen);
	stepped(s, rc ? CTRL_ERROR : type); /* whatever failed, the conversation ends */
	return rc;
}

/* As source_expect(), decoded into msg (ctrl_await()). */
static int source_await(struct source *s, unsigned type, void *msg, int timeout_ms, char *err,
			size_t errlen)
{
	uint32_t len;
	void *p;
	int rc = source_expect(s, type, &p, &len, timeout_ms, err, errlen);

	if (!rc)
		rc = ctrl_decode(type, p, len, msg);
	free(p);
	return rc;
}

int source_send(struct source *s, unsigned type, struct ctrl_buf *b, int enc, int timeout_ms)
{
	int rc;

	if (!enc && !ctrl_step_may_send(s->step, CTRL_BY_SOURCE, type))
		enc = -EPROTO; /* out of turn: freed, not sent */
	rc = ctrl_send_free(s->cfd, &s->mac, b, enc, timeout_ms);
	if (!rc) /* a send that failed leaves the step: the sink may have said why, to be read */
		stepped(s, type);
	return rc;
}

/* Tell the sink why this side stops (best effort). Returns 1. */
int source_tell_sink(struct source *s, const char *msg)
{
	struct ctrl_buf b;

	if (s->cfd >= 0)
		source_send(s, CTRL_ERROR, &b, ctrl_encode_error(&b, msg),
			    wait_ms(s->o, WAIT_TELL));
	return NBW_EXIT_FAIL;
}

/* Connect the control channel: a sink that is still starting refuses, so retry. */
static int control_connect(struct source *s)
{
	const struct options *o = s->o;
	uint64_t deadline = nbw_now_ns() + wait_ns(o, WAIT_CONNECT);

	for (;;) {
		uint64_t now = nbw_now_ns();

		s->cfd = ctrl_connect(o->source.peer, o->port,
				      now < deadline ? (int)((deadline - now) / 1000000) + 1 : 1);
		if (s->cfd != -ECONNREFUSED || nbw_now_ns() + 200000000ULL >= deadline)
			break;
		if (nbw_signal_wait(200000000ULL))
			break;
	}
	if (s->cfd >= 0)
		return 0;
	source_fail(s, "%s port %u: %s", o->source.peer, o->port, ctrl_strerror(s->cfd));
	s->cfd = -1;
	return NBW_EXIT_FAIL;
}

/* Handshakes before ACCEPT that a reset may end, each starting over. */
#define HANDSHAKE_TRIES 4

/*
 * A reset before ACCEPT: a busy door may have given our place up to another.
 * True (s->again set, nothing said) when the handshake should start over.
 */
static bool handshake_reset(struct source *s, int rc)
{
	if ((rc != -ECONNRESET && rc != -EPIPE) || !s->may_retry)
		return false;
	s->again = true;
	return true;
}

/* AUTH (ctrl_auth.h): with a key, the sink proved it before any parameter is sent. */
static int authenticate(struct source *s)
{
	char why[CTRL_MAX_STR + 256];
	int rc = ctrl_auth_source(s->cfd, &s->o->key, &s->mac, s->o->source.peer,
				  wait_ms(s->o, WAIT_AUTH), why, sizeof(why));

	if (rc && !handshake_reset(s, rc))
		return source_fail(s, "%s", why);
	return rc ? NBW_EXIT_FAIL : 0;
}

/* One try: connect, AUTH, HELLO, ACCEPT. 0 or an exit status (s->again: try once more). */
static int greet(struct source *s)
{
	const struct options *o = s->o;
	struct ctrl_hello h = conv_hello(o);
	char err[CTRL_MAX_STR] = "";
	struct ctrl_buf b;
	int rc;

	s->step = CTRL_STEP_HELLO;
	if (control_connect(s) || authenticate(s))
		return NBW_EXIT_FAIL;
	h.workers = s->nw;
	h.source = (uint8_t)o->source.feed;
	rc = source_send(s, CTRL_HELLO, &b, ctrl_encode_hello(&b, &h), wait_ms(o, WAIT_HELLO));
	if (!rc)
		rc = source_await(s, CTRL_ACCEPT, &s->acc, wait_ms(o, WAIT_HELLO), err,
				  sizeof(err));
	if (handshake_reset(s, rc))
		return NBW_EXIT_FAIL;
	if (rc == -ECONNABORTED)
		return source_fail(s, "%s: the sink refused: %s", o->source.peer, err);
	if (rc)
		return source_fail(s, "%s: handshake: %s", o->source.peer,
				   err[0] ? err : ctrl_strerror(rc));
	if (!s->acc.nports)
		return source_fail(s, "%s: the sink advertised no RDMA port", o->source.peer);
	s->session = s->acc.session;
	return source_assign_rails(s);
}

/* The handshake, started over (a moment later) after a reset before ACCEPT. */
int source_handshake(struct source *s)
{
	int tries = HANDSHAKE_TRIES, rc;

	for (;;) {
		s->again = false;
		s->may_retry = --tries > 0;
		rc = greet(s);
		if (!s->again)
			return rc;
		close(s->cfd);
		s->cfd = -1;
		nbw_warn("%s: the sink reset the handshake; trying again", s->o->source.peer);
		if (nbw_signal_wait(200000000ULL))
			return source_fail(s, "interrupted");
	}
}

/* Verbs mode: every worker's rail and QP, for the sink to make its own QPs. */
int source_send_qps(struct source *s)
{
	struct ctrl_wqp *q = calloc(s->nw, sizeof(*q));
	struct ctrl_buf b;
	uint32_t i;
	int rc;

	if (!q)
		return source_tell_sink(s, "out of memory");
	for (i = 0; i < s->nw; i++) {
		const struct sworker *w = &s->w[i];

		q[i].sink_port = (uint16_t)w->sink_port;
		snprintf(q[i].dev, sizeof(q[i].dev), "%s", w->port->dev);
		q[i].port = w->port->port;
		q[i].qp = conv_qp_to_wire(&w->qp_local);
	}
	rc = source_send(s, CTRL_QPS, &b, ctrl_encode_qps(&b, q, s->nw), wait_ms(s->o, WAIT_QPS));
	free(q);
	if (rc)
		return source_fail(s, "%s: sending the QPs: %s", s->o->source.peer,
				   ctrl_strerror(rc));
	return 0;
}

/* The rails the workers used and what each carried in the window. */
void source_count_rails(struct source *s)
{
	uint32_t i;
	int k;

	s->nrails = 0;
	for (i = 0; i < s->nw; i++) {
		const struct sworker *w = &s->w[i];
		const struct ctrl_port *kp = &s->acc.ports[w->sink_port];
		struct fab_port sink;
		struct rail *x;

		for (k = 0; k < s->nrails; k++)
			if (!strcmp(s->rails[k].local_dev, w->port->dev) &&
			    s->rails[k].local_port == w->port->port &&
			    s->rails[k].sink_index == w->sink_port)
				break;
		if (k == s->nrails && s->nrails == CTRL_MAX_RAILS)
			continue;
		x = &s->rails[k];
		if (k == s->nrails) {
			struct rail fresh = {.local_port = w->port->port,
					     .remote_port = kp->port,
					     .sink_index = w->sink_port};

			conv_port_from_wire(kp, &sink);
			fresh.line_rate_gbits = rail_line_rate(w->port, &sink);
			memcpy(fresh.local_dev, w->port->dev, sizeof(fresh.local_dev));
			memcpy(fresh.remote_dev, kp->dev, sizeof(fresh.remote_dev));
			*x = fresh;
			s->nrails++;
		}
		x->qps++;
		x->bytes += s->wend[i] - s->wstart[i];
	}
}

int source_receive_slices(struct source *s)
{
	char err[CTRL_MAX_STR] = "";
	struct ctrl_slice *sl = NULL;
	uint32_t len, n = 0, i;
	void *p;
	int rc;

	rc = source_expect(s, CTRL_SLICES, &p, &len, wait_ms(s->o, WAIT_SLICES), err, sizeof(err));
	if (!rc) {
		rc = ctrl_decode_slices(p, len, &sl, &n);
		free(p);
	}
	if (!rc && n != s->nw) {
		snprintf(err, sizeof(err), "%u slices for %u workers", n, s->nw);
		rc = -EBADMSG;
	}
	for (i = 0; !rc && i < n; i++) {
		if (sl[i].len < 2 * s->o->chunk) {
			snprintf(err, sizeof(err), "slice %u holds %llu bytes", i,
				 (unsigned long long)sl[i].len);
			rc = -EBADMSG;
		}
		s->w[i].slice = sl[i];
	}
	free(sl);
	if (rc)
		return source_fail(s, "%s: %s", s->o->source.peer,
				   err[0] ? err : ctrl_strerror(rc));
	return 0;
}

int source_send_canary(struct source *s)
{
	const struct options *o = s->o;
	struct ctrl_chunk *c = calloc(s->nw, sizeof(*c));
	char err[CTRL_MAX_STR] = "";
	struct ctrl_start st;
	struct ctrl_buf b;
	uint32_t i;
	int rc;

	if (!c)
		return source_tell_sink(s, "out of memory");
	for (i = 0; i < s->nw; i++)
		c[i] = s->w[i].canary;
	rc = source_send(
		s, CTRL_CANARY, &b,
		ctrl_encode_chunks(&b, CTRL_CANARY, c, o->verify == CTRL_VERIFY_OFF ? 0 : s->nw),
		wait_ms(o, WAIT_CANARY));
	free(c);
	if (s->sync)
		meeting_arrive(s->sync);
	if (!rc)
		rc = source_await(s, CTRL_START, &st, wait_ms(o, WAIT_START), err, sizeof(err));
	if (rc)
		return source_fail(s, "%s: waiting for the start: %s", o->source.peer,
				   err[0] ? err : ctrl_strerror(rc));
	s->t_start = nbw_now_ns();
	s->hb_period = (uint64_t)st.progress_ms * 1000000ULL;
	s->hb_next = s->t_start + s->hb_period;
	return 0;
}

/* --verify full: the last chunk of every ring slot of every worker. */
static int send_table(struct source *s)
{
	struct ctrl_chunk *all = calloc((size_t)s->nw * (FULL_RING_MAX + 1), sizeof(*all));
	struct ctrl_buf b;
	uint32_t i, k, n = 0;
	int rc;

	if (!all)
		return -ENOMEM;
	for (i = 0; i < s->nw; i++)
		for (k = 1; s->w[i].table && k < s->w[i].ring; k++)
			if (s->w[i].table[k].len)
				all[n++] = s->w[i].table[k];
	rc = source_send(s, CTRL_VERIFY, &b, ctrl_encode_chunks(&b, CTRL_VERIFY, all, n),
			 wait_ms(s->o, WAIT_RESULT));
	free(all);
	return rc;
}

/* Each drive's seconds' shape and health log for the RESULT (NULL: none kept, or no memory). */
static struct ctrl_drive_health *drives_health(const struct source *s)
{
	struct ctrl_drive_health *h;
	struct window_shape sh;
	int k;

	if (!s->dsec || !s->health || !s->nt || !(h = calloc((size_t)s->nt, sizeof(*h))))
		return NULL;
	for (k = 0; k < s->nt; k++) {
		window_shape(s->dsec[k].rate, s->dsec[k].n, s->o->sink.max_cv, &sh);
		conv_drive_health_to_wire(&sh, &s->health[k], &h[k]);
	}
	return h;
}

/* After the window: totals, the slot table, the verdict. */
int source_send_result(struct source *s, bool ok)
{
	const struct options *o = s->o;
	struct ctrl_result res = {
		.ok = ok,
		.window_ns = nbw_s_to_ns(s->seconds),
		.bytes = source_bytes_sum(s->wend, s->nw) - source_bytes_sum(s->wstart, s->nw),
		.ndrives = (uint32_t)s->nt,
		.drives = s->dr,
		.nrails = (uint32_t)s->nrails,
		.open_ns = s->t_window > s->t_start ? s->t_window - s->t_start : 0,
		.cv_milli_pct = UINT32_MAX,
	};
	double cv = nbw_cv_pct(s->rdma_samples.rate, s->rdma_samples.n);
	struct ctrl_rail cr[CTRL_MAX_RAILS];
	char err[CTRL_MAX_STR] = "";
	struct ctrl_done d;
	int k;
	struct ctrl_buf b;
	int rc;

	if (isfinite(cv) && cv < 4e6)
		res.cv_milli_pct = (uint32_t)(cv * 1000 + 0.5);
	for (k = 0; k < s->nrails; k++) {
		cr[k] = (struct ctrl_rail){.port = s->rails[k].local_port,
					   .sink_port = (uint16_t)s->rails[k].sink_index,
					   .qps = s->rails[k].qps,
					   .bytes = s->rails[k].bytes,
					   .line_mbps =
						   (uint32_t)(s->rails[k].line_rate_gbits * 1000)};
		snprintf(cr[k].dev, sizeof(cr[k].dev), "%s", s->rails[k].local_dev);
	}
	res.rails = cr;
	res.health = drives_health(s);
	res.nhealth = res.health ? (uint32_t)s->nt : 0;
	rc = ctrl_encode_result(&b, &res);
	free(res.health);
	rc = source_send(s, CTRL_RESULT, &b, rc, wait_ms(o, WAIT_RESULT));
	if (!rc && o->verify == CTRL_VERIFY_FULL)
		rc = send_table(s);
	if (rc == -ENOMEM)
		return source_tell_sink(s, "out of memory");
	if (!ok)
		return NBW_EXIT_FAIL;
	if (!rc)
		rc = source_await(s, CTRL_DONE, &d, wait_ms(o, WAIT_VERDICT), err, sizeof(err));
	if (rc)
		return source_fail(s, "%s: no verdict from the sink: %s", o->source.peer,
				   err[0] ? err : ctrl_strerror(rc));
	/* With a key, nothing may follow the verdict (a DONE replayed on the way). */
	if (s->mac.on && ctrl_expect_end(s->cfd, wait_ms(o, WAIT_END)) == CTRL_ERR_MAC)
		return source_fail(s, "%s: protocol error: bytes after the sink's verdict: %s",
				   o->source.peer, ctrl_strerror(CTRL_ERR_MAC));
	s->verdict = (enum verdict)d.verify;
	return s->verdict == VERDICT_FAIL ? NBW_EXIT_FAIL : 0;
}
