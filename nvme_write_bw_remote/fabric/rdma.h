/* SPDX-License-Identifier: MIT */
/*
 * rdma.h: the verbs and rdma_cm side of the suite. Port discovery and
 * selection (-d, -x), one RC connection per worker set up with rdma_cm on
 * InfiniBand and RoCE alike (resources created in one function and released
 * by a reverse-order ladder), the layout of the sink's DRAM into slices, and
 * the one RDMA posting loop: a stream of RDMA WRITEs from a worker's staging
 * slots into a ring in its remote slice. Ports are ports.c's, the verbs
 * calls verbs.c's, connections rdma.c's, the posting loop writer.c's.
 */
#ifndef NBW_RDMA_H
#define NBW_RDMA_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "counters.h"
#include "lathist.h"
#include "slice.h"
#include "timing.h"

#define FAB_MAX_PORTS 64
#define FAB_ADDR_LEN 64

/* Link layer of a port. */
enum fab_link { FAB_LINK_IB = 1, FAB_LINK_ETH = 2 };

/* One port of an RDMA device, as -d selects it. */
struct fab_port {
	char dev[64];		/* rxe0, mlx5_0 */
	uint8_t port;		/* 1-based */
	bool active;		/* IBV_PORT_ACTIVE */
	const char *link_layer; /* "InfiniBand", "Ethernet" */
	enum fab_link link;
	int numa_node;		 /* of the device, -1 unknown */
	int gid_index;		 /* the GID the QPs use (-x, or perftest's default), -1 none */
	uint8_t gid[16];	 /* that GID */
	uint16_t lid;		 /* InfiniBand: the port's LID */
	uint8_t active_mtu;	 /* enum ibv_mtu */
	char addr[FAB_ADDR_LEN]; /* IPv4 of the port (its GID or its netdev), "" none */
	uint8_t prefix_len;	 /* of addr's subnet, 0 unknown */
	double rate_gbits;	 /* data rate of the port (width x lane), 0 unknown */
	bool software;		 /* no PCI device of its own (rxe, siw): no real line rate */
};

/*
 * The ACTIVE ports named by list ("dev" = its ports, "dev:port" one port,
 * comma-separated; NULL = every ACTIVE port). Returns the count, or:
 * -ENODEV no RDMA device at all; -ENOENT a name that is no device (*bad set
 * to it); -ENETDOWN no selected port is ACTIVE (*bad the device named).
 */
int fab_ports_select(const char *list, int gid_index, struct fab_port *out, int max, char *bad,
		     size_t badlen);

/*
 * Can local port a (a_index-th of its side's list) reach remote port b
 * (b_index-th of its side's)? Not across link layers; by subnet where both
 * have an IPv4 address; otherwise (InfiniBand fabrics, Ethernet rails without
 * addresses) only the i-th port with the i-th: rails in the same order on
 * both sides, as rail-optimised fabrics are cabled.
 */
bool fab_ports_reachable(const struct fab_port *a, int a_index, const struct fab_port *b,
			 int b_index);

/*
 * The counters of port p as sysfs under sysfs_root shows them (counters.h):
 * 0, or -ENOENT when the device keeps none (s->n = 0). The fake fabric of
 * the fast tests keeps its own, as a NIC does.
 */
int fab_port_counters(const struct fab_port *p, const char *sysfs_root, struct ctr_set *s);

/* ---- one RC connection ------------------------------------------------------- */

/* Private data of a connect request: which session and worker it belongs to. */
struct fab_hello {
	uint64_t session;
	uint32_t worker;
};

/*
 * One RC connection, made either with rdma_cm (id set: the CM chose the
 * device and port) or with verbs alone (ctx opened here, attributes
 * exchanged over the control channel; see fab_qp_open()).
 */
struct fab_conn {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_context *ctx; /* verbs mode: opened for this QP */
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	bool connected;
	char dev[64]; /* the local device and port the QP lives on */
	uint8_t port;
	char why[160]; /* what failed, for the message */
};

/* What one side tells the other to connect a QP without rdma_cm. */
struct fab_qp_attr {
	uint16_t lid;
	uint8_t gid[16];
	uint32_t qpn;
	uint32_t psn;
	uint8_t mtu; /* enum ibv_mtu: the port's active MTU */
};

/* Link settings applied when a QP is connected (both modes where they can be). */
struct fab_link_opts {
	uint8_t mtu;	     /* enum ibv_mtu; 0 = the smaller of both ports' active MTU */
	uint8_t sl;	     /* service level */
	uint8_t tclass;	     /* traffic class (RoCE: DSCP << 2 | ECN) */
	uint8_t ack_timeout; /* 4.096 us x 2^N per try; 0 = FAB_ACK_TIMEOUT */
};

/* The ACK timeout's default exponent: 4.096 us x 2^16 = 268 ms per try, 7 tries. */
#define FAB_ACK_TIMEOUT 16

/* The ACK timeout's exponent that lo asks for (lo may be NULL: the default). */
static inline uint8_t fab_ack_timeout(const struct fab_link_opts *lo)
{
	return lo && lo->ack_timeout ? lo->ack_timeout : FAB_ACK_TIMEOUT;
}

/*
 * Verbs mode: open p's device, create PD, CQ and an RC QP (INIT) for depth
 * sends, register buf (remote_write: for a sink's slice) and describe the QP
 * in *local. 0 or -errno (c->why).
 */
int fab_qp_open(struct fab_conn *c, const struct fab_port *p, unsigned depth, void *buf, size_t len,
		bool remote_write, struct fab_qp_attr *local);

/* Verbs mode: move the QP to RTR with the peer's attributes, then to RTS. 0 or -errno. */
int fab_qp_connect(struct fab_conn *c, const struct fab_port *p, const struct fab_qp_attr *local,
		   const struct fab_qp_attr *remote, const struct fab_link_opts *lo);

/*
 * Source: resolve dst:port from src (NULL = let routing choose), create the
 * CQ and an RC QP for depth WRITEs, register buf (local access) and connect
 * with hello as private data, within timeout_ms. 0 or -errno, c->why says.
 */
int fab_conn_connect(struct fab_conn *c, const char *src, const char *dst, unsigned port,
		     const struct fab_hello *hello, unsigned depth, void *buf, size_t len,
		     const struct fab_link_opts *lo, int timeout_ms);

/* Sink: listen with rdma_cm on addr (NULL = any) and port. */
#define FAB_LISTEN_MAX 16

struct fab_listener {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *ids[FAB_LISTEN_MAX]; /* one per address, on one channel */
	int n;
};

/* Listen on each of addrs (none: every address) and port. 0 or -errno. */
int fab_listener_open(struct fab_listener *l, const char *const *addrs, int naddrs, unsigned port);
void fab_listener_close(struct fab_listener *l);

/*
 * The next connect request within timeout_ms: *id and its private data.
 * -ETIMEDOUT, -EINTR (SIGINT/SIGTERM), -EPROTO (a request without our
 * private data: rejected here).
 */
int fab_listener_next(struct fab_listener *l, int timeout_ms, struct rdma_cm_id **id,
		      struct fab_hello *hello);
/*
 * A numeric address (IPv4 or IPv6, never a name: no lookup is made) and
 * port into *ss. 0 or -EADDRNOTAVAIL.
 */
int fab_sockaddr(const char *host, unsigned port, struct sockaddr_storage *ss);
/* The address a connect request came from. */
const struct sockaddr *fab_request_peer(struct rdma_cm_id *id);
/* Turn a request down. */
void fab_listener_reject(struct rdma_cm_id *id);

/*
 * Sink: take a connect request: a QP that the sink never posts to, buf
 * registered for remote writes (this MR is all the peer can reach), accept
 * and wait until established. 0 or -errno (c->why).
 */
int fab_conn_accept(struct fab_conn *c, struct rdma_cm_id *id, void *buf, size_t len,
		    int timeout_ms);

/* True if an event says the connection went away (non-blocking check). */
bool fab_conn_lost(struct fab_conn *c);

/* For verbs.c: PD, channel, CQ and QP on ctx (rdma_cm's when c->id is set); the error. */
int fab_conn_setup_qp(struct fab_conn *c, struct ibv_context *ctx, unsigned depth);
int fab_conn_fail(struct fab_conn *c, int rc, const char *what);

/* The reverse-order ladder; safe on a zeroed or partly set-up conn. */
void fab_conn_close(struct fab_conn *c);

/* ---- the posting loop ----------------------------------------------------------- */

/* A chunk to send: staging slot, its bytes, where it came from. */
struct write_item {
	unsigned slot;
	void *buf;
	size_t len;
	uint64_t offset;   /* source offset (drive byte offset) */
	uint32_t dst_slot; /* filled by the loop: slice slot it is written to */
	uint64_t digest;   /* for the caller's use */
	uint64_t post_ns;  /* filled by the loop when it times WRITEs: when it was posted */
};

/*
 * Where chunks come from. next() fills *it with a staging slot's chunk
 * (0), or returns -EAGAIN when every slot is in flight, or another -errno;
 * done() is called when the chunk's WRITE completed (the slot is free again).
 */
struct chunk_supply {
	int (*next)(void *ctx, struct write_item *it);
	void (*done)(void *ctx, const struct write_item *it);
	void *ctx;
};

struct fab_writer {
	struct fab_conn *c;
	uint64_t raddr; /* the remote slice */
	uint32_t rkey;
	uint32_t slots; /* of the slice, slot 0 = canary */
	size_t chunk;
	unsigned depth;
	uint64_t posted; /* chunks posted into the ring so far */
	unsigned inflight;
	struct write_item *items; /* depth entries, indexed by wr_id */
	bool *busy;
	/*
	 * --latency, set by the caller after fab_writer_init(): each WRITE's
	 * time from its post to its completion into lat while *lat_on (the
	 * window); lat NULL: not timed (no clock read).
	 */
	struct lathist *lat;
	const atomic_bool *lat_on;
	char why[160];
};

/* Timing a WRITE: stamp it just before its post. */
static inline void fab_writer_stamp(const struct fab_writer *w, struct write_item *it)
{
	if (w->lat)
		it->post_ns = nbw_now_ns();
}

/* Its completion, seen at now (one clock read per batch of completions). */
static inline void fab_writer_timed(const struct fab_writer *w, const struct write_item *it,
				    uint64_t now)
{
	if (w->lat && atomic_load_explicit(w->lat_on, memory_order_relaxed))
		lathist_record(w->lat, now > it->post_ns ? now - it->post_ns : 0);
}

int fab_writer_init(struct fab_writer *w, struct fab_conn *c, uint64_t raddr, uint32_t rkey,
		    uint32_t slots, size_t chunk, unsigned depth);
void fab_writer_free(struct fab_writer *w);

/*
 * Write one chunk to the slice's slot dst (0 = the canary) and wait for its
 * completion within timeout_ms. 0 or -errno (w->why).
 */
int fab_write_one(struct fab_writer *w, const void *buf, size_t len, uint32_t dst, int timeout_ms);

/*
 * The posting loop: keep up to depth WRITEs in flight from sup into the
 * ring, add each completed WRITE's length to *bytes (monotonic), until *stop;
 * then wait for what is in flight while it completes (drain_ms without a
 * completion, or drain_all_ms in all, ends the wait). 0, or -errno with
 * w->why (a failed completion, a post error, a drain timeout).
 */
int fab_write_loop(struct fab_writer *w, const struct chunk_supply *sup, atomic_bool *stop,
		   _Atomic uint64_t *bytes, int drain_ms, int drain_all_ms);

#endif
