// SPDX-License-Identifier: MIT
/*
 * rdma.c: rdma_cm connections (see rdma.h): the events with their deadline,
 * connecting, the listener and its requests, accepting, a lost connection,
 * and the cleanup ladder. The posting loop over a connection is writer.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbw.h"
#include "rdma.h"
#include "signals.h"
#include "sysfs.h"
#include "timing.h"
#include "watchdog.h"

/* ---- rdma_cm events -------------------------------------------------------------- */

static int event_errno(enum rdma_cm_event_type t, int status)
{
	switch (t) {
	case RDMA_CM_EVENT_ADDR_ERROR:
		return -EADDRNOTAVAIL;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return -ENETUNREACH;
	case RDMA_CM_EVENT_UNREACHABLE:
		return -EHOSTUNREACH;
	case RDMA_CM_EVENT_REJECTED:
		return -ECONNREFUSED;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return -ECONNRESET;
	default:
		return status < 0 ? status : -ECONNABORTED;
	}
}

/*
 * Wait for the next event on ech within timeout_ms. With want set, any other
 * event is an error. The event is acked here unless ev is non-NULL.
 */
static int cm_wait(struct rdma_event_channel *ech, enum rdma_cm_event_type want, int timeout_ms,
		   struct rdma_cm_event **ev, char *why, size_t whylen)
{
	struct pollfd pfd = {.fd = ech->fd, .events = POLLIN};
	uint64_t deadline = nbw_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	struct rdma_cm_event *e;
	int n, rc = 0;

	/* In slices, so that SIGINT/SIGTERM end the wait within 200 ms. */
	for (;;) {
		uint64_t now = nbw_now_ns();
		int slice = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);

		if (nbw_interrupted()) {
			snprintf(why, whylen, "interrupted");
			return -EINTR;
		}
		n = poll(&pfd, 1, slice > 200 ? 200 : slice);
		if (n != 0 || slice <= 200)
			break;
	}
	if (n < 0 && errno == EINTR)
		n = 0;
	if (n == 0) {
		snprintf(why, whylen, "no %s within %d ms", rdma_event_str(want), timeout_ms);
		return -ETIMEDOUT;
	}
	if (n < 0 || rdma_get_cm_event(ech, &e)) {
		rc = -errno;
		snprintf(why, whylen, "rdma_get_cm_event: %s", strerror(errno));
		return rc;
	}
	if (e->event != want) {
		rc = event_errno(e->event, e->status);
		snprintf(why, whylen, "%s (status %d) while waiting for %s",
			 rdma_event_str(e->event), e->status, rdma_event_str(want));
	}
	if (ev && !rc)
		*ev = e;
	else
		rdma_ack_cm_event(e);
	return rc;
}

/* ---- connections ---------------------------------------------------------------- */

static void hello_encode(const struct fab_hello *h, uint8_t out[12])
{
	int i;

	for (i = 0; i < 8; i++)
		out[i] = (uint8_t)(h->session >> (56 - 8 * i));
	for (i = 0; i < 4; i++)
		out[8 + i] = (uint8_t)(h->worker >> (24 - 8 * i));
}

static void hello_decode(const uint8_t in[12], struct fab_hello *h)
{
	int i;

	h->session = 0;
	h->worker = 0;
	for (i = 0; i < 8; i++)
		h->session = h->session << 8 | in[i];
	for (i = 0; i < 4; i++)
		h->worker = h->worker << 8 | in[8 + i];
}

static int fail(struct fab_conn *c, int rc, const char *what)
{
	snprintf(c->why, sizeof(c->why), "%s: %s", what, strerror(-rc));
	return rc;
}

int fab_conn_fail(struct fab_conn *c, int rc, const char *what)
{
	return fail(c, rc, what);
}

/*
 * rdma_connect() (the source) or rdma_accept() (the sink) with cp, then wait
 * at most timeout_ms for the connection to be established. 0 or -errno.
 */
static int cm_establish(struct fab_conn *c, struct rdma_conn_param *cp, bool accept, int timeout_ms)
{
	int rc;

	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
	if (accept ? rdma_accept(c->id, cp) : rdma_connect(c->id, cp))
		return fail(c, -errno, accept ? "rdma_accept" : "rdma_connect");
	rc = cm_wait(c->ech, RDMA_CM_EVENT_ESTABLISHED, timeout_ms, NULL, c->why, sizeof(c->why));
	if (rc)
		return rc;
	c->connected = true;
	return 0;
}

/*
 * PD, completion channel, CQ and an RC QP on ctx for up to depth sends: with
 * rdma_cm on c->id when it is set, else with verbs alone.
 */
int fab_conn_setup_qp(struct fab_conn *c, struct ibv_context *ctx, unsigned depth)
{
	struct ibv_qp_init_attr qa = {0};

	c->pd = ibv_alloc_pd(ctx);
	if (!c->pd)
		return fail(c, -errno, "ibv_alloc_pd");
	c->cch = ibv_create_comp_channel(ctx);
	if (!c->cch)
		return fail(c, -errno, "ibv_create_comp_channel");
	fcntl(c->cch->fd, F_SETFL, fcntl(c->cch->fd, F_GETFL) | O_NONBLOCK);
	c->cq = ibv_create_cq(ctx, (int)depth + 1, NULL, c->cch, 0);
	if (!c->cq)
		return fail(c, -errno, "ibv_create_cq");
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = depth + 1;
	qa.cap.max_recv_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (c->id) {
		if (rdma_create_qp(c->id, c->pd, &qa))
			return fail(c, -errno, "rdma_create_qp");
		c->qp = c->id->qp;
		return 0;
	}
	c->qp = ibv_create_qp(c->pd, &qa);
	if (!c->qp)
		return fail(c, -errno, "ibv_create_qp");
	return 0;
}

/* The device and port an rdma_cm id ended up on. */
static void conn_where(struct fab_conn *c)
{
	snprintf(c->dev, sizeof(c->dev), "%s",
		 c->id && c->id->verbs ? ibv_get_device_name(c->id->verbs->device) : "?");
	c->port = c->id ? c->id->port_num : 0;
}

/* host (numeric only with AI_NUMERICHOST in flags) and port into *ss. */
static int make_sockaddr(const char *host, unsigned port, int flags, struct sockaddr_storage *ss)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_flags = flags}, *res;
	int rc = getaddrinfo(host, NULL, &hints, &res);

	if (rc)
		return -EADDRNOTAVAIL;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	freeaddrinfo(res);
	return 0;
}

int fab_sockaddr(const char *host, unsigned port, struct sockaddr_storage *ss)
{
	/* The addresses come from the peer's ACCEPT: no name is resolved. */
	return make_sockaddr(host, port, AI_NUMERICHOST, ss);
}

int fab_conn_connect(struct fab_conn *c, const char *src, const char *dst, unsigned port,
		     const struct fab_hello *hello, unsigned depth, void *buf, size_t len,
		     const struct fab_link_opts *lo, int timeout_ms)
{
	struct rdma_conn_param cp = {0};
	struct sockaddr_storage sa, da;
	uint8_t pdata[12];
	uint8_t tmo = fab_ack_timeout(lo);
	int rc;

	memset(c, 0, sizeof(*c));
	c->ech = rdma_create_event_channel();
	if (!c->ech)
		return fail(c, -errno, "rdma_create_event_channel");
	if (rdma_create_id(c->ech, &c->id, NULL, RDMA_PS_TCP)) {
		c->id = NULL;
		return fail(c, -errno, "rdma_create_id");
	}
	if (fab_sockaddr(dst, port, &da)) {
		snprintf(c->why, sizeof(c->why), "%s: cannot resolve the address", dst);
		return -EADDRNOTAVAIL;
	}
	if (src && fab_sockaddr(src, 0, &sa)) {
		snprintf(c->why, sizeof(c->why), "%s: cannot resolve the source address", src);
		return -EADDRNOTAVAIL;
	}
	if (rdma_resolve_addr(c->id, src ? (struct sockaddr *)&sa : NULL, (struct sockaddr *)&da,
			      timeout_ms))
		return fail(c, -errno, "rdma_resolve_addr");
	rc = cm_wait(c->ech, RDMA_CM_EVENT_ADDR_RESOLVED, timeout_ms, NULL, c->why, sizeof(c->why));
	if (rc)
		return rc;
	if (rdma_resolve_route(c->id, timeout_ms))
		return fail(c, -errno, "rdma_resolve_route");
	rc = cm_wait(c->ech, RDMA_CM_EVENT_ROUTE_RESOLVED, timeout_ms, NULL, c->why,
		     sizeof(c->why));
	if (rc)
		return rc;
	rc = fab_conn_setup_qp(c, c->id->verbs, depth);
	if (rc)
		return rc;
	conn_where(c);
	if (lo && lo->tclass)
		rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &(uint8_t){lo->tclass},
				sizeof(uint8_t));
	c->mr = ibv_reg_mr(c->pd, buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return fail(c, -errno, "ibv_reg_mr (staging buffer)");
	rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &tmo, sizeof(tmo));
	hello_encode(hello, pdata);
	cp.private_data = pdata;
	cp.private_data_len = sizeof(pdata);
	return cm_establish(c, &cp, false, timeout_ms);
}

/* One listening id on l's channel for addr (NULL = any). 0 or -errno. */
static int listen_one(struct fab_listener *l, const char *addr, unsigned port)
{
	struct sockaddr_storage sa;
	struct rdma_cm_id *id;
	int rc;

	if (l->n >= FAB_LISTEN_MAX)
		return -E2BIG;
	if (make_sockaddr(addr ? addr : "0.0.0.0", port, 0, &sa))
		return -EADDRNOTAVAIL;
	if (rdma_create_id(l->ech, &id, NULL, RDMA_PS_TCP))
		return -errno;
	if (rdma_bind_addr(id, (struct sockaddr *)&sa) || rdma_listen(id, 64)) {
		rc = -errno;
		rdma_destroy_id(id);
		return rc;
	}
	l->ids[l->n++] = id;
	return 0;
}

int fab_listener_open(struct fab_listener *l, const char *const *addrs, int naddrs, unsigned port)
{
	int i, rc = 0;

	memset(l, 0, sizeof(*l));
	l->ech = rdma_create_event_channel();
	if (!l->ech)
		return -errno;
	if (!naddrs)
		rc = listen_one(l, NULL, port);
	for (i = 0; !rc && i < naddrs; i++)
		rc = listen_one(l, addrs[i], port);
	if (rc)
		fab_listener_close(l);
	return rc;
}

void fab_listener_close(struct fab_listener *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		rdma_destroy_id(l->ids[i]);
	if (l->ech)
		rdma_destroy_event_channel(l->ech);
	memset(l, 0, sizeof(*l));
}

const struct sockaddr *fab_request_peer(struct rdma_cm_id *id)
{
	return rdma_get_peer_addr(id);
}

int fab_listener_next(struct fab_listener *l, int timeout_ms, struct rdma_cm_id **id,
		      struct fab_hello *hello)
{
	struct rdma_cm_event *e;
	char why[160];
	int rc;

	for (;;) {
		rc = cm_wait(l->ech, RDMA_CM_EVENT_CONNECT_REQUEST, timeout_ms, &e, why,
			     sizeof(why));
		if (rc == -ETIMEDOUT || rc == -EINTR)
			return rc;
		if (rc)
			continue; /* a stray event (e.g. of a rejected id) */
		break;
	}
	*id = e->id;
	if (e->param.conn.private_data_len < 12 || !e->param.conn.private_data) {
		rdma_ack_cm_event(e);
		rdma_reject(*id, NULL, 0);
		rdma_destroy_id(*id);
		*id = NULL;
		return -EPROTO;
	}
	hello_decode(e->param.conn.private_data, hello);
	rdma_ack_cm_event(e);
	return 0;
}

void fab_listener_reject(struct rdma_cm_id *id)
{
	rdma_reject(id, NULL, 0);
	rdma_destroy_id(id);
}

int fab_conn_accept(struct fab_conn *c, struct rdma_cm_id *id, void *buf, size_t len,
		    int timeout_ms)
{
	struct rdma_conn_param cp = {0};
	int rc;

	memset(c, 0, sizeof(*c));
	c->ech = rdma_create_event_channel();
	if (!c->ech || rdma_migrate_id(id, c->ech)) {
		rc = -errno;
		fab_listener_reject(id);
		return fail(c, rc, "rdma_migrate_id");
	}
	c->id = id;
	rc = fab_conn_setup_qp(c, c->id->verbs, 1);
	conn_where(c);
	if (rc) {
		rdma_reject(id, NULL, 0);
		return rc;
	}
	c->mr = ibv_reg_mr(c->pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr) {
		rc = -errno;
		rdma_reject(id, NULL, 0);
		return fail(c, rc, "ibv_reg_mr (slice)");
	}
	return cm_establish(c, &cp, true, timeout_ms);
}

bool fab_conn_lost(struct fab_conn *c)
{
	struct pollfd pfd = {.fd = c->ech ? c->ech->fd : -1, .events = POLLIN};
	struct rdma_cm_event *e;
	bool lost = false;

	if (!c->ech)
		return false; /* verbs mode: no CM events; the control channel tells */
	while (poll(&pfd, 1, 0) == 1 && !rdma_get_cm_event(c->ech, &e)) {
		if (e->event == RDMA_CM_EVENT_DISCONNECTED ||
		    e->event == RDMA_CM_EVENT_DEVICE_REMOVAL ||
		    e->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)
			lost = true;
		rdma_ack_cm_event(e);
		if (lost)
			c->connected = false;
	}
	return lost;
}

/* Say the teardown step (a wedged device holds the run here: the watchdog names it). */
static void step(const struct fab_conn *c, uint32_t qpn, const char *what)
{
	nbw_watchdog_phase("teardown: %s QP %u of %s", what, qpn,
			   c->dev[0] ? c->dev : "an RDMA device");
}

/*
 * In reverse order of creation, except that the QP goes first: moved to the
 * error state (its WRITEs in flight are flushed, it no longer reads or writes
 * memory) and destroyed before its memory is deregistered. A destroy call
 * that fails leaves a verbs object (and its memory) behind: one warning says so.
 */
void fab_conn_close(struct fab_conn *c)
{
	struct ibv_qp_attr err = {.qp_state = IBV_QPS_ERR};
	uint32_t qpn = c->qp ? c->qp->qp_num : 0;
	bool bad = false;

	if (c->connected && c->id) {
		step(c, qpn, "disconnecting");
		rdma_disconnect(c->id);
	}
	if (c->qp) {
		step(c, qpn, "moving to the error state");
		ibv_modify_qp(c->qp, &err, IBV_QP_STATE);
		step(c, qpn, "destroying");
	}
	if (c->qp && c->id)
		rdma_destroy_qp(c->id);
	else
		bad |= c->qp && ibv_destroy_qp(c->qp);
	c->qp = NULL;
	step(c, qpn, "deregistering the memory of");
	bad |= c->mr && ibv_dereg_mr(c->mr);
	step(c, qpn, "destroying the CQ of");
	bad |= c->cq && ibv_destroy_cq(c->cq);
	bad |= c->cch && ibv_destroy_comp_channel(c->cch);
	bad |= c->pd && ibv_dealloc_pd(c->pd);
	step(c, qpn, "destroying the rdma_cm id and closing the device of");
	bad |= c->id && rdma_destroy_id(c->id);
	if (c->ech)
		rdma_destroy_event_channel(c->ech);
	bad |= c->ctx && ibv_close_device(c->ctx);
	if (bad)
		nbw_warn("%s: an RDMA object could not be destroyed; its resources may leak",
			 c->dev[0] ? c->dev : "RDMA teardown");
	memset(c, 0, sizeof(*c));
}
