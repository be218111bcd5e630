// SPDX-License-Identifier: MIT
/*
 * verbs.c: RC connections without rdma_cm, as perftest makes them by default:
 * each side creates its QP on the port it chose, the two exchange LID, GID,
 * QPN, PSN and MTU over the control channel, and each moves its QP through
 * INIT -> RTR -> RTS. Works on native InfiniBand without IPoIB and on RoCE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rdma.h"

#define RETRIES 7

/* Open the device called name. NULL if there is none (errno set). */
static struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx && !errno)
		errno = ENODEV;
	return ctx;
}

static int qp_init(struct fab_conn *c, uint8_t port, bool remote_write)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
		.qp_access_flags = remote_write ? IBV_ACCESS_REMOTE_WRITE : 0,
	};

	if (ibv_modify_qp(c->qp, &a,
			  IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return fab_conn_fail(c, -errno, "ibv_modify_qp (INIT)");
	return 0;
}

int fab_qp_open(struct fab_conn *c, const struct fab_port *p, unsigned depth, void *buf, size_t len,
		bool remote_write, struct fab_qp_attr *local)
{
	int rc, access = IBV_ACCESS_LOCAL_WRITE | (remote_write ? IBV_ACCESS_REMOTE_WRITE : 0);
	uint32_t psn;

	memset(c, 0, sizeof(*c));
	snprintf(c->dev, sizeof(c->dev), "%s", p->dev);
	c->port = p->port;
	c->ctx = open_named(p->dev);
	if (!c->ctx)
		return fab_conn_fail(c, -errno, "ibv_open_device");
	rc = fab_conn_setup_qp(c, c->ctx, depth);
	if (rc)
		return rc;
	c->mr = ibv_reg_mr(c->pd, buf, len, access);
	if (!c->mr)
		return fab_conn_fail(c, -errno,
				     remote_write ? "ibv_reg_mr (slice)"
						  : "ibv_reg_mr (staging buffer)");
	rc = qp_init(c, p->port, remote_write);
	if (rc)
		return rc;
	if (getrandom(&psn, sizeof(psn), 0) != sizeof(psn))
		psn = (uint32_t)c->qp->qp_num * 2654435761u;
	*local = (struct fab_qp_attr){
		.lid = p->lid,
		.qpn = c->qp->qp_num,
		.psn = psn & 0xffffff,
		.mtu = p->active_mtu,
	};
	memcpy(local->gid, p->gid, sizeof(local->gid));
	return 0;
}

/* The path to the peer: its LID on InfiniBand, its GID (routed) on RoCE. */
static void address_of(const struct fab_port *p, const struct fab_qp_attr *remote,
		       const struct fab_link_opts *lo, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->port_num = p->port;
	ah->sl = lo->sl;
	ah->dlid = remote->lid;
	if (p->link == FAB_LINK_IB && remote->lid)
		return;
	ah->is_global = 1;
	memcpy(ah->grh.dgid.raw, remote->gid, sizeof(ah->grh.dgid.raw));
	ah->grh.sgid_index = (uint8_t)(p->gid_index < 0 ? 0 : p->gid_index);
	ah->grh.hop_limit = 64;
	ah->grh.traffic_class = lo->tclass;
}

int fab_qp_connect(struct fab_conn *c, const struct fab_port *p, const struct fab_qp_attr *local,
		   const struct fab_qp_attr *remote, const struct fab_link_opts *lo)
{
	uint8_t mtu = local->mtu < remote->mtu ? local->mtu : remote->mtu;
	struct ibv_qp_attr a = {0};

	if (lo->mtu && lo->mtu < mtu)
		mtu = lo->mtu;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)(mtu ? mtu : IBV_MTU_1024);
	a.dest_qp_num = remote->qpn;
	a.rq_psn = remote->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	address_of(p, remote, lo, &a.ah_attr);
	if (ibv_modify_qp(c->qp, &a,
			  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return fab_conn_fail(c, -errno, "ibv_modify_qp (RTR)");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = fab_ack_timeout(lo);
	a.retry_cnt = RETRIES;
	a.rnr_retry = RETRIES;
	a.sq_psn = local->psn;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(c->qp, &a,
			  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return fab_conn_fail(c, -errno, "ibv_modify_qp (RTS)");
	c->connected = true;
	return 0;
}
