// SPDX-License-Identifier: MIT
/*
 * fake_fabric.c: the fab_* calls of fabric/rdma.h without an RDMA device, so
 * that nvme_write_bw_remote's own code (every file of the tool, unchanged)
 * runs in fast tests as tests/remote/fake_remote. Sink and source are
 * separate processes; the control channel is the tool's own TCP (loopback);
 * this file plays the NIC:
 *
 * - ports come from $NBW_FAKE_PORTS, "dev:port:link:addr/prefix:gbits[:down]
 *   [:sw][:nocnt][:nopkts][:lossy][:ecn][:still][:nd=NETDEV][:numa=N]"
 *   comma-separated (link ib or eth; addr may be "-"), default two Ethernet
 *   ports fake0 and fake1 on 127.0.1.1/24 and 127.0.2.1/24; their GID tables
 *   from $NBW_FAKE_GIDS, "dev:port=TYPE@GID+TYPE@GID..." semicolon-separated
 *   (TYPE ib, v1 or v2; the i-th is index i), else a link-local GID at 0 and
 *   (Ethernet with an address) the RoCE v2 GID of it at 1;
 * - a QP is a unix socket in $NBW_FAKE_DIR (none: "no RDMA device"). Verbs
 *   mode: the sink's QP listens at "q-QPN-PSN" (its attributes are the name),
 *   the source connects to it when it moves its QP to RTS. rdma_cm mode: the
 *   listener is "cm-ADDR-PORT" (or cm-any-PORT), a connect request carries
 *   the private data and the addresses;
 * - a WRITE is a frame (remote address, rkey, length, wr_id, then the bytes)
 *   that a thread on the sink's side checks against the MR it registered
 *   (out of range or a wrong rkey: a remote access error, as a NIC says) and
 *   copies into the sink's memory; the completion comes back on the socket.
 *
 * - each port keeps its counters as a NIC does (fab_port_counters): the
 *   sink's NIC thread counts every WRITE that arrives on its QP's port, the
 *   source counts each it posts: port_rcv_data / port_xmit_data in 4-byte
 *   words of the payload and FAKE_HEADER bytes of headers per packet of
 *   FAKE_MTU, port_rcv_packets / port_xmit_packets, and Soft-RoCE's
 *   rcvd_pkts / sent_pkts; a port whose spec says ":nocnt" keeps only the
 *   last two (no PMA, as Soft-RoCE), ":nopkts" not those two (a driver that
 *   counts no packets: with ":nocnt", no receive count at all); ":lossy"
 *   adds roce_adp_retrans and ":ecn" np_cnp_sent, each moving by one per WRITE the port carries (a
 *   congested or lossy path for the report's attribution); ":still" keeps
 *   both and port_xmit_wait and symbol_error, none of them ever moving (a
 *   port slowed by a shaper: no loss or congestion counted).
 *
 * Faults, from $NBW_FAKE_FAULT (one of, in the process that should misbehave):
 *   hang@N   the N-th WRITE of this process and every later one never completes
 *   error@N  the N-th WRITE completes in error (remote access error)
 *   die@N    the process is killed (SIGKILL) at its N-th WRITE: a peer that dies
 *   slow=MS  opening a QP (or connecting one with rdma_cm) takes MS milliseconds
 *   qp       opening a QP fails
 *   lost     the sink's QPs say the connection went away once data arrived
 *   stranger rdma_cm connect requests carry no private data of ours
 *   empty@N  from the N-th WRITE on, each goes out empty (no payload lands) as
 *            as many packets as its length in headers (FAKE_HEADER each), so
 *            the ports' data count still adds up to it; it completes as if
 *            whole: a source that counts full chunks it never wrote
 *   emptyms=MS each WRITE posted MS milliseconds or more after this process's
 *            first goes out as one packet of headers and completes as if
 *            whole: real WRITEs through a warm-up, empty ones in the window
 * The count N starts at 0 (the canaries are the first WRITEs).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ports.h"
#include "rdma.h"
#include "window.h"

#define FAKE_MAGIC 0x4e42574641424631ULL /* "NBWFABF1" */

/* A WRITE on the wire, then len bytes. */
struct frame {
	uint64_t addr;
	uint64_t wr_id;
	uint32_t rkey;
	uint32_t len;
	uint64_t pkts; /* the packets it stands for; 0: as many as len takes */
};

/* Its completion. */
struct cqe {
	uint64_t wr_id;
	int32_t status; /* enum ibv_wc_status */
	uint32_t pad;
};

/* An rdma_cm connect request: the private data and who asks whom. */
struct request {
	uint64_t magic;
	uint64_t session;
	uint32_t worker;
	char src[FAB_ADDR_LEN];
	char dst[FAB_ADDR_LEN];
};

/* One QP of this file: the socket, the MR it protects, the NIC's thread. */
struct fake_qp {
	struct ibv_qp qp; /* first: c->qp points here */
	struct ibv_mr mr;
	int lfd; /* verbs sink: listening until the source connects */
	int fd;	 /* the connection */
	char path[108];
	pthread_t nic;
	bool nic_started;
	atomic_bool lost; /* the peer went away (the sink's view) */
	atomic_bool stop;
	uint64_t completions; /* source: pending, counted by the writer */
	char dev[64];	      /* the port it lives on, whose counters it moves */
	uint8_t port;
};

/* A connect request that arrived: c->id points here. */
struct fake_id {
	struct rdma_cm_id id; /* first */
	int fd;
	struct sockaddr_in peer;
	struct request req;
};

static atomic_uint fake_qpn = 1;
static atomic_ulong fake_writes;
static atomic_uint fake_rkey = 0x1000;

/* ---- the environment ---------------------------------------------------------- */

static const char *fault_arg(const char *name)
{
	const char *f = getenv("NBW_FAKE_FAULT");
	size_t n = strlen(name);

	if (!f || strncmp(f, name, n))
		return NULL;
	return f[n] == '@' || f[n] == '=' ? f + n + 1 : f[n] ? NULL : f + n;
}

static bool fault(const char *name)
{
	return fault_arg(name) != NULL;
}

/* emptyms=MS: is a WRITE posted now MS ms or more after this process's first? */
static bool fault_empty_late(uint64_t n)
{
	static _Atomic uint64_t first_ns;
	const char *a = fault_arg("emptyms");

	if (!a)
		return false;
	if (!n)
		first_ns = nbw_now_ns();
	return first_ns && nbw_now_ns() - first_ns >= strtoull(a, NULL, 10) * 1000000ull;
}

/* A fault counted in WRITEs: does WRITE number n trigger it? */
static bool fault_at(const char *name, uint64_t n)
{
	const char *a = fault_arg(name);

	return a && n >= strtoull(a, NULL, 10);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void fault_slow(void)
{
	const char *a = fault_arg("slow");

	if (a)
		sleep_ms(strtol(a, NULL, 10));
}

static int sock_path(struct sockaddr_un *sa, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* $NBW_FAKE_DIR/name into sa; -ENODEV without the directory. */
static int sock_path(struct sockaddr_un *sa, const char *fmt, ...)
{
	const char *dir = getenv("NBW_FAKE_DIR");
	char name[96];
	va_list ap;
	int n;

	if (!dir || !dir[0])
		return -ENODEV;
	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", dir, name);
	return n < (int)sizeof(sa->sun_path) ? 0 : -ENAMETOOLONG;
}

static int fake_listen(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	unlink(sa->sun_path);
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) || listen(fd, 64)) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

static int fake_dial(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* All of len, or -errno (-ECONNRESET at the end of the stream). */
static int full_io(int fd, void *p, size_t len, bool out)
{
	unsigned char *b = p;

	while (len) {
		ssize_t n = out ? send(fd, b, len, MSG_NOSIGNAL) : recv(fd, b, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -ECONNRESET;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static bool readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) == 1;
}

/* ---- ports ---------------------------------------------------------------------- */

#define FAKE_PORTS_DEFAULT "fake0:1:eth:127.0.1.1/24:100,fake1:1:eth:127.0.2.1/24:100"

/* The GID table of $NBW_FAKE_GIDS's "dev:port=TYPE@GID+TYPE@GID..." (TYPE ib, v1 or v2). */
static bool gids_from_env(struct fab_port_info *o)
{
	const char *env = getenv("NBW_FAKE_GIDS");
	char head[80], *copy, *save = NULL, *t, *e, *save2 = NULL, *at;

	snprintf(head, sizeof(head), "%s:%u=", o->p.dev, o->p.port);
	copy = strdup(env ? env : "");
	for (t = copy ? strtok_r(copy, ";", &save) : NULL; t; t = strtok_r(NULL, ";", &save)) {
		if (strncmp(t, head, strlen(head)))
			continue;
		for (e = strtok_r(t + strlen(head), "+", &save2); e && o->ngids < FAB_GIDS_MAX;
		     e = strtok_r(NULL, "+", &save2)) {
			struct fab_gid *g = &o->gids[o->ngids];

			at = strchr(e, '@');
			if (!at || inet_pton(AF_INET6, at + 1, g->raw) != 1)
				continue;
			g->index = o->ngids++;
			g->type = !strncmp(e, "v2", 2)	 ? FAB_GID_ROCE_V2
				  : !strncmp(e, "v1", 2) ? FAB_GID_ROCE_V1
							 : FAB_GID_IB;
		}
		free(copy);
		return true;
	}
	free(copy);
	return false;
}

/*
 * The GID table: $NBW_FAKE_GIDS's, else a link-local GID at 0 and on
 * Ethernet the RoCE v2 GID of the port's address at 1; then the GID that
 * gid_index (-x) names there, -1 if none (the default, -1: 0 on
 * InfiniBand, 1 on Ethernet, as before).
 */
static void port_gids(struct fab_port_info *o, int gid_index)
{
	struct fab_port *p = &o->p;
	int k;

	if (!gids_from_env(o)) {
		o->gids[0] = (struct fab_gid){
			.index = 0, .type = p->link == FAB_LINK_IB ? FAB_GID_IB : FAB_GID_ROCE_V1};
		o->gids[0].raw[0] = 0xfe;
		o->gids[0].raw[1] = 0x80;
		o->gids[0].raw[15] = p->port;
		o->ngids = 1;
		if (p->link == FAB_LINK_ETH && p->addr[0]) {
			o->gids[1] = (struct fab_gid){.index = 1, .type = FAB_GID_ROCE_V2};
			memcpy(o->gids[1].raw, p->gid, sizeof(p->gid));
			o->ngids = 2;
		}
	}
	if (gid_index < 0)
		return;
	p->gid_index = -1;
	for (k = 0; k < o->ngids; k++)
		if (o->gids[k].index == gid_index) {
			p->gid_index = gid_index;
			memcpy(p->gid, o->gids[k].raw, sizeof(p->gid));
		}
}

/*
 * One "dev:port:link:addr/prefix:gbits[:down][:sw][:nd=NETDEV][:numa=N]" into
 * o (":nocnt", ":lossy", ":ecn": fab_port_counters).
 */
static void port_parse(char *spec, struct fab_port_info *o, int gid_index)
{
	struct fab_port *p = &o->p;
	char *f[12] = {0}, *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(spec, ":", &save); t && n < 12; t = strtok_r(NULL, ":", &save))
		f[n++] = t;
	memset(o, 0, sizeof(*o));
	snprintf(p->dev, sizeof(p->dev), "%s", f[0] ? f[0] : "fake");
	p->port = (uint8_t)(f[1] ? atoi(f[1]) : 1);
	p->link = f[2] && !strcmp(f[2], "ib") ? FAB_LINK_IB : FAB_LINK_ETH;
	p->link_layer = p->link == FAB_LINK_IB ? "InfiniBand" : "Ethernet";
	p->active = true;
	p->numa_node = -1;
	p->gid_index = p->link == FAB_LINK_IB ? 0 : 1;
	p->active_mtu = IBV_MTU_4096;
	p->lid = p->link == FAB_LINK_IB ? (uint16_t)(p->port + 1) : 0;
	if (f[3] && strcmp(f[3], "-")) {
		char *slash = strchr(f[3], '/');

		if (slash) {
			*slash = 0;
			p->prefix_len = (uint8_t)atoi(slash + 1);
		}
		snprintf(p->addr, sizeof(p->addr), "%s", f[3]);
		/* RoCE v2: the GID maps the port's IPv4 address. */
		p->gid[10] = p->gid[11] = 0xff;
		inet_pton(AF_INET, p->addr, p->gid + 12);
	}
	p->rate_gbits = f[4] ? atof(f[4]) : 0;
	for (n = 5; n < 12 && f[n]; n++) {
		if (!strcmp(f[n], "down"))
			p->active = false;
		if (!strcmp(f[n], "sw"))
			p->software = true;
		if (!strncmp(f[n], "nd=", 3))
			snprintf(o->netdev, sizeof(o->netdev), "%s", f[n] + 3);
		if (!strncmp(f[n], "numa=", 5))
			p->numa_node = atoi(f[n] + 5);
	}
	port_gids(o, gid_index);
}

/* Every fake port of this process; 0 without $NBW_FAKE_DIR (no device). */
int fab_ports_list(struct fab_port_info *out, int max, int gid_index)
{
	const char *env = getenv("NBW_FAKE_PORTS"), *dir = getenv("NBW_FAKE_DIR");
	char *copy, *save = NULL, *t;
	int n = 0;

	if (!dir || !dir[0])
		return 0;
	copy = strdup(env ? env : FAKE_PORTS_DEFAULT);
	if (!copy)
		return -ENOMEM;
	for (t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
		port_parse(t, &out[n++], gid_index);
	free(copy);
	return n;
}

/* By subnet where both have an address, else the i-th port with the i-th. */
bool fab_ports_reachable(const struct fab_port *a, int a_index, const struct fab_port *b,
			 int b_index)
{
	struct in_addr x, y;
	uint32_t mask;

	if (a->link != b->link)
		return false;
	if (!a->addr[0] || !b->addr[0] || !a->prefix_len)
		return a_index == b_index;
	if (inet_pton(AF_INET, a->addr, &x) != 1 || inet_pton(AF_INET, b->addr, &y) != 1)
		return false;
	mask = a->prefix_len >= 32 ? 0xffffffffu : ~(0xffffffffu >> a->prefix_len);
	return (ntohl(x.s_addr) & mask) == (ntohl(y.s_addr) & mask);
}

/* ---- the ports' counters ---------------------------------------------------------- */

#define FAKE_MTU 4096u
#define FAKE_HEADER 64u /* bytes of headers per packet on the wire */

/* What a port of this process counted, in a NIC's units. */
struct fake_counts {
	char dev[64];
	uint8_t port;
	uint64_t xmit_words, rcv_words, xmit_pkts, rcv_pkts;
	uint64_t writes; /* WRITEs sent or received: ":lossy" and ":ecn" count by them */
};

static struct fake_counts fake_counts[FAB_MAX_PORTS];
static int fake_nports;
static pthread_mutex_t fake_count_lock = PTHREAD_MUTEX_INITIALIZER;

/* The counts of dev:port (made at its first use); NULL when every place is taken. */
static struct fake_counts *counts_of(const char *dev, uint8_t port)
{
	int i;

	for (i = 0; i < fake_nports; i++)
		if (fake_counts[i].port == port && !strcmp(fake_counts[i].dev, dev))
			return &fake_counts[i];
	if (fake_nports == FAB_MAX_PORTS)
		return NULL;
	snprintf(fake_counts[fake_nports].dev, sizeof(fake_counts[0].dev), "%s", dev);
	fake_counts[fake_nports].port = port;
	return &fake_counts[fake_nports++];
}

/*
 * A WRITE of len bytes that q's port received (rx) or sent: packets (given,
 * else as many as len takes), headers and payload.
 */
static void count(const struct fake_qp *q, uint32_t len, uint64_t given, bool rx)
{
	uint64_t pkts = given ? given : len ? (len + FAKE_MTU - 1) / FAKE_MTU : 1;
	uint64_t words = (len + pkts * FAKE_HEADER + 3) / 4;
	struct fake_counts *k;

	pthread_mutex_lock(&fake_count_lock);
	k = counts_of(q->dev, q->port);
	if (k)
		k->writes++;
	if (k && rx) {
		k->rcv_words += words;
		k->rcv_pkts += pkts;
	} else if (k) {
		k->xmit_words += words;
		k->xmit_pkts += pkts;
	}
	pthread_mutex_unlock(&fake_count_lock);
}

/*
 * Does the spec of dev:port in $NBW_FAKE_PORTS say flag? ":nocnt": no PMA
 * counters; ":nopkts": no driver's packet counts; ":lossy": a retransmission
 * (roce_adp_retrans) per WRITE; ":ecn": a CNP sent (np_cnp_sent) per WRITE;
 * ":still": loss and congestion counters kept that never move.
 */
static bool port_has(const char *dev, uint8_t port, const char *flag)
{
	const char *env = getenv("NBW_FAKE_PORTS");
	char *copy, *save = NULL, *t;
	bool none = false;

	if (!env || !(copy = strdup(env)))
		return false;
	for (t = strtok_r(copy, ",", &save); t && !none; t = strtok_r(NULL, ",", &save)) {
		char head[96];
		size_t n = (size_t)snprintf(head, sizeof(head), "%s:%u:", dev, port);

		none = !strncmp(t, head, n) && strstr(t, flag);
	}
	free(copy);
	return none;
}

static void put(struct ctr_set *s, const char *name, enum ctr_kind kind, uint64_t v)
{
	struct ctr_value *c = &s->c[s->n++];

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->kind = (uint8_t)kind;
	c->v = v;
}

int fab_port_counters(const struct fab_port *p, const char *sysfs_root, struct ctr_set *s)
{
	struct fake_counts k = {0}, *have;

	(void)sysfs_root;
	pthread_mutex_lock(&fake_count_lock);
	have = counts_of(p->dev, p->port);
	if (have)
		k = *have;
	pthread_mutex_unlock(&fake_count_lock);
	s->n = 0;
	s->truncated = false;
	if (!port_has(p->dev, p->port, ":nocnt")) {
		put(s, "port_rcv_data", CTR_PORT, k.rcv_words);
		put(s, "port_rcv_packets", CTR_PORT, k.rcv_pkts);
		put(s, "port_xmit_data", CTR_PORT, k.xmit_words);
		put(s, "port_xmit_packets", CTR_PORT, k.xmit_pkts);
	}
	if (!port_has(p->dev, p->port, ":nopkts")) {
		put(s, "rcvd_pkts", CTR_HW, k.rcv_pkts);
		put(s, "sent_pkts", CTR_HW, k.xmit_pkts);
	}
	/* Soft-RoCE keeps link_downed among its own counters, the PMA's name too. */
	if (port_has(p->dev, p->port, ":nocnt"))
		put(s, "link_downed", CTR_HW, 0);
	if (port_has(p->dev, p->port, ":lossy"))
		put(s, "roce_adp_retrans", CTR_HW, k.writes);
	if (port_has(p->dev, p->port, ":ecn"))
		put(s, "np_cnp_sent", CTR_HW, k.writes);
	if (port_has(p->dev, p->port, ":still")) {
		put(s, "roce_adp_retrans", CTR_HW, 0);
		put(s, "np_cnp_sent", CTR_HW, 0);
		put(s, "port_xmit_wait", CTR_PORT, 0);
		put(s, "symbol_error", CTR_PORT, 0);
	}
	return 0;
}

/* ---- the sink's NIC: WRITEs into registered memory ---------------------------------- */

static int nic_one(struct fake_qp *q)
{
	struct frame f;
	struct cqe e = {0};
	uint64_t base = (uint64_t)(uintptr_t)q->mr.addr;
	int rc = full_io(q->fd, &f, sizeof(f), false);

	if (rc)
		return rc;
	count(q, f.len, f.pkts, true);
	e.wr_id = f.wr_id;
	if (f.rkey != q->mr.rkey || f.addr < base || f.addr + f.len > base + q->mr.length) {
		static unsigned char sink[65536];
		uint32_t left = f.len;

		e.status = IBV_WC_REM_ACCESS_ERR;
		while (!rc && left) { /* the bytes go nowhere */
			uint32_t n = left < sizeof(sink) ? left : (uint32_t)sizeof(sink);

			rc = full_io(q->fd, sink, n, false);
			left -= n;
		}
	} else {
		rc = full_io(q->fd, (void *)(uintptr_t)f.addr, f.len, false);
	}
	if (!rc && fault("lost"))
		atomic_store(&q->lost, true);
	return rc ?: full_io(q->fd, &e, sizeof(e), true);
}

static void *nic_main(void *arg)
{
	struct fake_qp *q = arg;

	if (q->fd < 0) { /* verbs mode: the source connects when its QP goes to RTS */
		while (!atomic_load(&q->stop) && !readable(q->lfd, 50))
			;
		if (atomic_load(&q->stop))
			return NULL;
		q->fd = accept4(q->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (q->fd < 0)
			return NULL;
	}
	while (!atomic_load(&q->stop) && !nic_one(q))
		;
	atomic_store(&q->lost, true);
	return NULL;
}

static struct fake_qp *qp_new(void *buf, size_t len)
{
	struct fake_qp *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->lfd = q->fd = -1;
	q->mr.addr = buf;
	q->mr.length = len;
	q->mr.lkey = q->mr.rkey = atomic_fetch_add(&fake_rkey, 1);
	return q;
}

static int nic_start(struct fab_conn *c, struct fake_qp *q)
{
	int err = pthread_create(&q->nic, NULL, nic_main, q);

	if (err)
		return fab_conn_fail(c, -err, "NIC thread");
	q->nic_started = true;
	return 0;
}

int fab_conn_fail(struct fab_conn *c, int rc, const char *what)
{
	snprintf(c->why, sizeof(c->why), "%s: %s", what, strerror(-rc));
	return rc;
}

static void conn_bind(struct fab_conn *c, struct fake_qp *q, const char *dev, uint8_t port)
{
	snprintf(q->dev, sizeof(q->dev), "%s", dev);
	q->port = port;
	c->qp = &q->qp;
	c->mr = &q->mr;
	snprintf(c->dev, sizeof(c->dev), "%s", dev);
	c->port = port;
}

static struct fake_qp *qp_of(const struct fab_conn *c)
{
	return (struct fake_qp *)c->qp;
}

/* ---- verbs mode ------------------------------------------------------------------- */

int fab_qp_open(struct fab_conn *c, const struct fab_port *p, unsigned depth, void *buf, size_t len,
		bool remote_write, struct fab_qp_attr *local)
{
	struct fake_qp *q;
	struct sockaddr_un sa;
	int rc;

	(void)depth;
	fault_slow();
	if (fault("qp"))
		return fab_conn_fail(c, -EIO, "ibv_create_qp (fake fault)");
	q = qp_new(buf, len);
	if (!q)
		return fab_conn_fail(c, -ENOMEM, "QP");
	conn_bind(c, q, p->dev, p->port);
	*local = (struct fab_qp_attr){.lid = p->lid,
				      .qpn = atomic_fetch_add(&fake_qpn, 1),
				      .psn = (uint32_t)getpid() & 0xffffff,
				      .mtu = p->active_mtu};
	memcpy(local->gid, p->gid, sizeof(local->gid));
	if (!remote_write)
		return 0;
	rc = sock_path(&sa, "q-%u-%u", local->qpn, local->psn);
	if (!rc)
		rc = q->lfd = fake_listen(&sa);
	if (rc < 0)
		return fab_conn_fail(c, rc, "QP socket");
	snprintf(q->path, sizeof(q->path), "%s", sa.sun_path);
	return nic_start(c, q);
}

int fab_qp_connect(struct fab_conn *c, const struct fab_port *p, const struct fab_qp_attr *local,
		   const struct fab_qp_attr *remote, const struct fab_link_opts *lo)
{
	struct fake_qp *q = qp_of(c);
	struct sockaddr_un sa;
	int rc;

	(void)p;
	(void)local;
	(void)lo;
	if (!q)
		return fab_conn_fail(c, -EINVAL, "QP not open");
	c->connected = true;
	if (q->lfd >= 0) /* the sink's side: its NIC thread takes the source's connection */
		return 0;
	rc = sock_path(&sa, "q-%u-%u", remote->qpn, remote->psn);
	if (!rc)
		rc = q->fd = fake_dial(&sa);
	if (rc < 0) {
		c->connected = false;
		return fab_conn_fail(c, rc, "modify QP to RTR (no such remote QP)");
	}
	return 0;
}

/* ---- rdma_cm mode ----------------------------------------------------------------- */

int fab_listener_open(struct fab_listener *l, const char *const *addrs, int naddrs, unsigned port)
{
	struct sockaddr_un sa;
	int i, rc;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < (naddrs ? naddrs : 1) && i < FAB_LISTEN_MAX; i++) {
		struct fake_id *x = calloc(1, sizeof(*x));

		if (!x)
			return -ENOMEM;
		rc = sock_path(&sa, "cm-%s-%u", naddrs ? addrs[i] : "any", port);
		if (!rc)
			rc = x->fd = fake_listen(&sa);
		if (rc < 0) {
			free(x);
			fab_listener_close(l);
			return rc;
		}
		l->ids[l->n++] = &x->id;
	}
	return 0;
}

void fab_listener_close(struct fab_listener *l)
{
	int i;

	for (i = 0; i < l->n; i++) {
		struct fake_id *x = (struct fake_id *)l->ids[i];

		close(x->fd);
		free(x);
	}
	l->n = 0;
}

/* Take one request from listening socket lfd: -EPROTO if it is none of ours. */
static int take_request(int lfd, struct fake_id **out)
{
	struct fake_id *x = calloc(1, sizeof(*x));
	int rc;

	if (!x)
		return -ENOMEM;
	x->fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (x->fd < 0) {
		free(x);
		return -EAGAIN;
	}
	rc = readable(x->fd, 1000) ? full_io(x->fd, &x->req, sizeof(x->req), false) : -ETIMEDOUT;
	x->req.src[FAB_ADDR_LEN - 1] = x->req.dst[FAB_ADDR_LEN - 1] = 0;
	if (rc || x->req.magic != FAKE_MAGIC) {
		fab_listener_reject(&x->id);
		return -EPROTO;
	}
	x->peer.sin_family = AF_INET;
	if (inet_pton(AF_INET, x->req.src, &x->peer.sin_addr) != 1)
		x->peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*out = x;
	return 0;
}

int fab_listener_next(struct fab_listener *l, int timeout_ms, struct rdma_cm_id **id,
		      struct fab_hello *hello)
{
	struct pollfd p[FAB_LISTEN_MAX];
	int i, n, waited = 0;

	for (i = 0; i < l->n; i++)
		p[i] = (struct pollfd){.fd = ((struct fake_id *)l->ids[i])->fd, .events = POLLIN};
	for (;;) {
		if (nbw_interrupted())
			return -EINTR;
		n = poll(p, (nfds_t)l->n, 100);
		for (i = 0; n > 0 && i < l->n; i++) {
			struct fake_id *x;
			int rc;

			if (!(p[i].revents & POLLIN))
				continue;
			rc = take_request(p[i].fd, &x);
			if (rc == -EAGAIN)
				continue;
			if (rc)
				return rc;
			*id = &x->id;
			*hello = (struct fab_hello){.session = x->req.session,
						    .worker = x->req.worker};
			return 0;
		}
		waited += 100;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
	}
}

const struct sockaddr *fab_request_peer(struct rdma_cm_id *id)
{
	return (const struct sockaddr *)&((struct fake_id *)id)->peer;
}

void fab_listener_reject(struct rdma_cm_id *id)
{
	struct fake_id *x = (struct fake_id *)id;
	uint32_t no = 0;

	full_io(x->fd, &no, sizeof(no), true);
	close(x->fd);
	free(x);
}

/* The port of this process whose address is addr (a listener's), else the first. */
static void port_by_addr(const char *addr, struct fab_port *out)
{
	struct fab_port_info *all = calloc(FAB_MAX_PORTS, sizeof(*all));
	int n = all ? fab_ports_list(all, FAB_MAX_PORTS, -1) : 0, i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		if (!strcmp(all[i].p.addr, addr)) {
			*out = all[i].p;
			break;
		}
	if (n > 0 && !out->dev[0])
		*out = all[0].p;
	free(all);
}

int fab_conn_accept(struct fab_conn *c, struct rdma_cm_id *id, void *buf, size_t len,
		    int timeout_ms)
{
	struct fake_id *x = (struct fake_id *)id;
	struct fake_qp *q = qp_new(buf, len);
	struct fab_port p;
	uint32_t yes = 1;
	int rc;

	(void)timeout_ms;
	if (!q) {
		fab_listener_reject(id);
		return fab_conn_fail(c, -ENOMEM, "QP");
	}
	port_by_addr(x->req.dst, &p);
	conn_bind(c, q, p.dev, p.port);
	q->fd = x->fd;
	free(x);
	rc = full_io(q->fd, &yes, sizeof(yes), true);
	if (rc)
		return fab_conn_fail(c, rc, "accept");
	c->connected = true;
	return nic_start(c, q);
}

int fab_conn_connect(struct fab_conn *c, const char *src, const char *dst, unsigned port,
		     const struct fab_hello *hello, unsigned depth, void *buf, size_t len,
		     const struct fab_link_opts *lo, int timeout_ms)
{
	struct request rq = {.magic = fault("stranger") ? 0 : FAKE_MAGIC,
			     .session = hello->session,
			     .worker = hello->worker};
	struct fake_qp *q = qp_new(buf, len);
	struct fab_port p;
	struct sockaddr_un sa;
	uint32_t answer = 0;
	int rc;

	(void)depth;
	(void)lo;
	fault_slow();
	if (!q)
		return fab_conn_fail(c, -ENOMEM, "QP");
	port_by_addr(src ? src : "", &p);
	conn_bind(c, q, p.dev, p.port);
	snprintf(rq.src, sizeof(rq.src), "%s", src ? src : "127.0.0.1");
	snprintf(rq.dst, sizeof(rq.dst), "%s", dst);
	rc = sock_path(&sa, "cm-%s-%u", dst, port);
	if (!rc)
		rc = q->fd = fake_dial(&sa);
	if (rc == -ENOENT && !sock_path(&sa, "cm-any-%u", port))
		rc = q->fd = fake_dial(&sa);
	if (rc < 0)
		return fab_conn_fail(c, rc == -ENOENT ? -ECONNREFUSED : rc, "rdma_connect");
	rc = full_io(q->fd, &rq, sizeof(rq), true);
	if (!rc)
		rc = readable(q->fd, timeout_ms) ? full_io(q->fd, &answer, sizeof(answer), false)
						 : -ETIMEDOUT;
	if (!rc && !answer)
		rc = -ECONNREFUSED;
	if (rc)
		return fab_conn_fail(c, rc, "rdma_connect: rejected or no answer");
	c->connected = true;
	return 0;
}

bool fab_conn_lost(struct fab_conn *c)
{
	struct fake_qp *q = qp_of(c);

	return q && atomic_load(&q->lost);
}

void fab_conn_close(struct fab_conn *c)
{
	struct fake_qp *q = qp_of(c);

	if (!q)
		return;
	atomic_store(&q->stop, true);
	if (q->fd >= 0)
		shutdown(q->fd, SHUT_RDWR);
	if (q->nic_started)
		pthread_join(q->nic, NULL);
	if (q->fd >= 0)
		close(q->fd);
	if (q->lfd >= 0)
		close(q->lfd);
	if (q->path[0])
		unlink(q->path);
	free(q);
	c->qp = NULL;
	c->mr = NULL;
	c->connected = false;
}

/* ---- the source's posting loop ---------------------------------------------------------- */

int fab_writer_init(struct fab_writer *w, struct fab_conn *c, uint64_t raddr, uint32_t rkey,
		    uint32_t slots, size_t chunk, unsigned depth)
{
	memset(w, 0, sizeof(*w));
	if (slots < 2 || !qp_of(c))
		return -EINVAL;
	w->c = c;
	w->raddr = raddr;
	w->rkey = rkey;
	w->slots = slots;
	w->chunk = chunk;
	w->depth = depth;
	w->items = calloc(depth, sizeof(*w->items));
	w->busy = calloc(depth, sizeof(*w->busy));
	if (w->items && w->busy)
		return 0;
	fab_writer_free(w);
	return -ENOMEM;
}

void fab_writer_free(struct fab_writer *w)
{
	free(w->items);
	free(w->busy);
	w->items = NULL;
	w->busy = NULL;
}

/* Post one WRITE of buf to slot dst; faults by this process's WRITE count. */
static int post(struct fab_writer *w, uint64_t wr_id, const void *buf, size_t len, uint32_t dst)
{
	struct fake_qp *q = qp_of(w->c);
	uint64_t n = atomic_fetch_add(&fake_writes, 1);
	struct frame f = {.addr = w->raddr + (uint64_t)dst * w->chunk,
			  .wr_id = wr_id,
			  .rkey = fault_at("error", n) ? w->rkey ^ 0x80000000u : w->rkey,
			  .len = (uint32_t)len};
	int rc;

	if (fault_at("die", n))
		kill(getpid(), SIGKILL);
	if (fault_at("hang", n))
		return 0; /* posted; its completion never comes */
	/* emptyms: one packet of headers */
	if (fault_empty_late(n))
		f.len = len = 0;
	if (fault_at("empty", n) && len) { /* headers enough to count as len: no payload */
		f.pkts = (len + FAKE_HEADER - 1) / FAKE_HEADER;
		f.len = 0;
		len = 0;
	}
	count(q, f.len, f.pkts, false);
	rc = full_io(q->fd, &f, sizeof(f), true);
	if (!rc)
		rc = full_io(q->fd, (void *)(uintptr_t)buf, len, true);
	if (rc)
		snprintf(w->why, sizeof(w->why), "ibv_post_send: %s", strerror(-rc));
	return rc;
}

/* One completion within ms: 1 (in *e), 0 none, -EIO the connection is gone. */
static int poll_cqe(struct fab_writer *w, int ms, struct cqe *e)
{
	struct fake_qp *q = qp_of(w->c);

	if (!readable(q->fd, ms))
		return 0;
	if (full_io(q->fd, e, sizeof(*e), false)) {
		snprintf(w->why, sizeof(w->why),
			 "RDMA WRITE completion: transport retry counter exceeded (status %d)",
			 IBV_WC_RETRY_EXC_ERR);
		return -EIO;
	}
	return 1;
}

static const char *status_str(int status)
{
	return status == IBV_WC_SUCCESS ? "success" : "remote access error";
}

int fab_write_one(struct fab_writer *w, const void *buf, size_t len, uint32_t dst, int timeout_ms)
{
	struct cqe e;
	int rc = post(w, UINT64_MAX, buf, len, dst);

	if (rc)
		return rc;
	rc = poll_cqe(w, timeout_ms, &e);
	if (!rc) {
		snprintf(w->why, sizeof(w->why), "no completion of the canary WRITE within %d ms",
			 timeout_ms);
		return -ETIMEDOUT;
	}
	if (rc < 0)
		return rc;
	if (e.status != IBV_WC_SUCCESS) {
		snprintf(w->why, sizeof(w->why), "RDMA WRITE completion: %s (status %d)",
			 status_str(e.status), e.status);
		return -EIO;
	}
	return 0;
}

/* Take the completions there are within ms; count good bytes. 0 or -EIO. */
static int reap(struct fab_writer *w, const struct chunk_supply *sup, _Atomic uint64_t *bytes,
		int ms)
{
	struct cqe e;
	int rc = 0, n;

	while (w->inflight && (n = poll_cqe(w, ms, &e)) != 0) {
		struct write_item *it;

		if (n < 0)
			return n;
		ms = 0;
		if (e.wr_id >= w->depth || !w->busy[e.wr_id])
			continue;
		it = &w->items[e.wr_id];
		w->busy[e.wr_id] = false;
		w->inflight--;
		if (e.status != IBV_WC_SUCCESS) {
			if (!rc)
				snprintf(w->why, sizeof(w->why),
					 "RDMA WRITE completion: %s (status %d)",
					 status_str(e.status), e.status);
			rc = -EIO;
			it->len = 0;
		} else {
			atomic_fetch_add_explicit(bytes, it->len, memory_order_relaxed);
			fab_writer_timed(w, it, w->lat ? nbw_now_ns() : 0);
		}
		if (sup->done)
			sup->done(sup->ctx, it);
	}
	return rc;
}

int fab_write_loop(struct fab_writer *w, const struct chunk_supply *sup, atomic_bool *stop,
		   _Atomic uint64_t *bytes, int drain_ms, int drain_all_ms)
{
	uint64_t waited = 0;
	int rc = 0;

	while (!rc && !atomic_load_explicit(stop, memory_order_relaxed)) {
		struct write_item it;
		unsigned k;

		rc = reap(w, sup, bytes, w->inflight == w->depth ? 100 : 0);
		if (rc || w->inflight == w->depth)
			continue;
		rc = sup->next(sup->ctx, &it);
		if (rc == -EAGAIN) {
			rc = reap(w, sup, bytes, 10);
			continue;
		}
		if (rc) {
			if (!w->why[0])
				snprintf(w->why, sizeof(w->why), "source: %s", strerror(-rc));
			break;
		}
		for (k = 0; w->busy[k]; k++)
			;
		it.dst_slot = slice_ring_slot(w->posted, w->slots);
		w->items[k] = it;
		fab_writer_stamp(w, &w->items[k]);
		rc = post(w, k, it.buf, it.len, it.dst_slot);
		if (rc) {
			w->items[k].len = 0;
			if (sup->done)
				sup->done(sup->ctx, &w->items[k]);
			break;
		}
		w->busy[k] = true;
		w->inflight++;
		w->posted++;
	}
	/* Whatever is in flight still reads the staging slots: wait for it (quiet or not). */
	(void)drain_all_ms;
	while (w->inflight && waited < (uint64_t)drain_ms) {
		int r = reap(w, sup, bytes, 50);

		if (r && !rc)
			rc = r;
		if (r)
			break;
		waited += 50;
	}
	if (w->inflight && !rc) {
		snprintf(w->why, sizeof(w->why), "%u RDMA WRITEs still in flight after %d ms",
			 w->inflight, drain_ms);
		rc = -ETIMEDOUT;
	}
	return rc;
}
