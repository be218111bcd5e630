// SPDX-License-Identifier: MIT
/*
 * test_ctrl: the control-channel protocol of nvme_write_bw_remote without
 * the network: every message round-trips; every truncation of every message
 * and a set of malformed ones are clean errors; then the socket half over a
 * socketpair (timeouts, a peer that closes, garbage instead of a header).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "ctrl_io.h"
#include "timing.h"

/* Strip and check the header of an encoded message; returns the payload. */
static const uint8_t *payload_of(const struct ctrl_buf *b, unsigned want_type, uint32_t *len)
{
	unsigned type, version;

	CHECK(b->len >= CTRL_HDR_LEN);
	CHECK(ctrl_parse_header(b->data, &type, len, &version) == 0);
	CHECK(type == want_type);
	CHECK(version == CTRL_VERSION);
	CHECK(*len == b->len - CTRL_HDR_LEN);
	return b->data + CTRL_HDR_LEN;
}

typedef int (*decode_fn)(const void *p, size_t len);

/* Every strict prefix of a payload must be rejected, and so must one extra byte. */
static void check_truncations(const uint8_t *p, uint32_t len, decode_fn dec)
{
	uint8_t *copy = malloc(len + 1);
	uint32_t k;

	for (k = 0; k < len; k++) {
		memcpy(copy, p, k);
		CHECK(dec(copy, k) == -EBADMSG);
	}
	memcpy(copy, p, len);
	copy[len] = 0;
	CHECK(dec(copy, len + 1) == -EBADMSG);
	free(copy);
}

static int dec_hello(const void *p, size_t len)
{
	struct ctrl_hello m;

	return ctrl_decode_hello(p, len, &m);
}

static int dec_accept(const void *p, size_t len)
{
	struct ctrl_accept m;

	return ctrl_decode(CTRL_ACCEPT, p, len, &m);
}

static int dec_error(const void *p, size_t len)
{
	struct ctrl_error m;

	return ctrl_decode_error(p, len, &m);
}

static int dec_slices(const void *p, size_t len)
{
	struct ctrl_slice *s;
	uint32_t n;
	int rc = ctrl_decode_slices(p, len, &s, &n);

	free(s);
	return rc;
}

static int dec_chunks(const void *p, size_t len)
{
	struct ctrl_chunk *c;
	uint32_t n;
	int rc = ctrl_decode_chunks(p, len, &c, &n);

	free(c);
	return rc;
}

static int dec_start(const void *p, size_t len)
{
	struct ctrl_start m;

	return ctrl_decode(CTRL_START, p, len, &m);
}

static int dec_result(const void *p, size_t len)
{
	struct ctrl_result m;
	int rc = ctrl_decode_result(p, len, &m);

	ctrl_result_free(&m);
	return rc;
}

static int dec_done(const void *p, size_t len)
{
	struct ctrl_done m;

	return ctrl_decode(CTRL_DONE, p, len, &m);
}

static int dec_progress(const void *p, size_t len)
{
	struct ctrl_progress m;

	return ctrl_decode_progress(p, len, &m);
}

static const struct ctrl_hello hello = {
	.chunk = 1 << 20,
	.depth = 4,
	.workers = 12,
	.warmup_ms = 3000,
	.duration_ms = 20000,
	.verify = CTRL_VERIFY_FULL,
	.source = CTRL_SOURCE_MEM,
	.conn = CTRL_CONN_CM,
	.mtu = 4,
	.sl = 3,
	.tclass = 106,
};

static void test_hello(void)
{
	struct ctrl_buf b;
	struct ctrl_hello m, other;
	const uint8_t *p;
	uint8_t *bad;
	uint32_t len;
	char why[512];

	CHECK(ctrl_encode_hello(&b, &hello) == 0);
	p = payload_of(&b, CTRL_HELLO, &len);
	CHECK(len == 38);
	CHECK(ctrl_decode_hello(p, len, &m) == 0);
	CHECK(m.conn == CTRL_CONN_CM && m.mtu == 4 && m.sl == 3 && m.tclass == 106);
	CHECK(m.chunk == 1 << 20 && m.depth == 4 && m.workers == 12 && m.warmup_ms == 3000 &&
	      m.duration_ms == 20000 && m.verify == CTRL_VERIFY_FULL &&
	      m.source == CTRL_SOURCE_MEM);
	/* Big-endian on the wire: the chunk 1 MiB is 00 00 00 00 00 10 00 00. */
	CHECK(p[5] == 0x10 && p[4] == 0 && p[6] == 0);
	check_truncations(p, len, dec_hello);

	/* Values out of their domain. */
	bad = malloc(len);
	memcpy(bad, p, len);
	bad[32] = 7; /* verify */
	CHECK(ctrl_decode_hello(bad, len, &m) == -EBADMSG);
	memcpy(bad, p, len);
	bad[33] = 9; /* source */
	CHECK(ctrl_decode_hello(bad, len, &m) == -EBADMSG);
	memcpy(bad, p, len);
	memset(bad, 0, 8); /* chunk 0 */
	CHECK(ctrl_decode_hello(bad, len, &m) == -EBADMSG);
	memcpy(bad, p, len);
	memset(bad + 8, 0, 4); /* depth 0 */
	CHECK(ctrl_decode_hello(bad, len, &m) == -EBADMSG);
	free(bad);
	free(b.data);

	/* Parameter comparison. */
	other = hello;
	CHECK(!ctrl_hello_mismatch(&hello, &other, why, sizeof(why)));
	CHECK(why[0] == '\0');
	other.workers = 3; /* the source's alone: not a mismatch */
	CHECK(!ctrl_hello_mismatch(&hello, &other, why, sizeof(why)));
	other.chunk = 2 << 20;
	CHECK(ctrl_hello_mismatch(&hello, &other, why, sizeof(why)));
	CHECK(!strcmp(why, "chunk: sink 1MiB, source 2MiB"));
	other = hello;
	other.depth = 8;
	CHECK(ctrl_hello_mismatch(&hello, &other, why, sizeof(why)));
	CHECK(!strcmp(why, "depth: sink 4, source 8"));
	other = hello;
	other.duration_ms = 6000;
	CHECK(ctrl_hello_mismatch(&hello, &other, why, sizeof(why)));
	CHECK(!strcmp(why, "duration: sink 20 s, source 6 s"));
	other = hello;
	other.warmup_ms = 500;
	CHECK(ctrl_hello_mismatch(&hello, &other, why, sizeof(why)));
	CHECK(!strcmp(why, "warm-up: sink 3 s, source 0.5 s"));
	other = hello;
	other.verify = CTRL_VERIFY_OFF;
	CHECK(ctrl_hello_mismatch(&hello, &other, why, sizeof(why)));
	CHECK(!strcmp(why, "verify: sink full, source off"));
	/* Every difference at once, in one line, not only the first. */
	other.chunk = 2 << 20;
	other.depth = 8;
	other.duration_ms = 6000;
	other.conn = CTRL_CONN_VERBS;
	other.tclass = 26;
	CHECK(ctrl_hello_mismatch(&hello, &other, why, sizeof(why)));
	CHECK_STR(why, "chunk: sink 1MiB, source 2MiB; depth: sink 4, source 8; duration: sink "
		       "20 s, source 6 s; verify: sink full, source off; connection: sink rdma_cm, "
		       "source verbs (-R/--rdma_cm on both or neither); --mtu/--sl/--tclass: "
		       "sink 4/3/106, source 4/3/26");
}

static void test_small_messages(void)
{
	struct ctrl_buf b;
	struct ctrl_accept a;
	struct ctrl_error e;
	struct ctrl_start s;
	struct ctrl_done d;
	const uint8_t *p;
	uint8_t *bad;
	uint32_t len;
	char longmsg[2000];

	CHECK(ctrl_encode_accept(&b, &(struct ctrl_accept){.session = 0x0123456789abcdefULL}) == 0);
	p = payload_of(&b, CTRL_ACCEPT, &len);
	CHECK(ctrl_decode(CTRL_ACCEPT, p, len, &a) == 0 && a.session == 0x0123456789abcdefULL);
	check_truncations(p, len, dec_accept);
	free(b.data);

	CHECK(ctrl_encode_error(&b, "chunk: sink 1MiB, source 2MiB") == 0);
	p = payload_of(&b, CTRL_ERROR, &len);
	CHECK(ctrl_decode_error(p, len, &e) == 0 &&
	      !strcmp(e.msg, "chunk: sink 1MiB, source 2MiB"));
	check_truncations(p, len, dec_error);
	/* A NUL inside a string is malformed. */
	bad = malloc(len);
	memcpy(bad, p, len);
	bad[4] = 0;
	CHECK(ctrl_decode_error(bad, len, &e) == -EBADMSG);
	free(bad);
	free(b.data);
	/* An over-long message is cut at the protocol's limit and still decodes. */
	memset(longmsg, 'x', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = 0;
	CHECK(ctrl_encode_error(&b, longmsg) == 0);
	p = payload_of(&b, CTRL_ERROR, &len);
	CHECK(ctrl_decode_error(p, len, &e) == 0 && strlen(e.msg) == CTRL_MAX_STR - 1);
	free(b.data);

	CHECK(ctrl_encode_start(&b, &(struct ctrl_start){.warmup_ms = 6000,
							 .duration_ms = 8000,
							 .progress_ms = 250}) == 0);
	p = payload_of(&b, CTRL_START, &len);
	CHECK(len == 20);
	CHECK(ctrl_decode(CTRL_START, p, len, &s) == 0 && s.warmup_ms == 6000 &&
	      s.duration_ms == 8000 && s.progress_ms == 250);
	check_truncations(p, len, dec_start);
	/* A heartbeat period of 0 or beyond the limit is malformed. */
	bad = malloc(len);
	memcpy(bad, p, len);
	memset(bad + 16, 0, 4);
	CHECK(ctrl_decode(CTRL_START, bad, len, &s) == -EBADMSG);
	bad[17] = 0xff; /* 0x00ff0000 ms */
	CHECK(ctrl_decode(CTRL_START, bad, len, &s) == -EBADMSG);
	free(bad);
	free(b.data);

	CHECK(ctrl_encode_done(&b, &(struct ctrl_done){.verify = 1}) == 0);
	p = payload_of(&b, CTRL_DONE, &len);
	CHECK(ctrl_decode(CTRL_DONE, p, len, &d) == 0 && d.verify == 1);
	check_truncations(p, len, dec_done);
	CHECK(ctrl_decode(CTRL_DONE, (const uint8_t[]){3}, 1, &d) == -EBADMSG);
	free(b.data);
}

static void test_lists(void)
{
	struct ctrl_slice sl[3] =
		{
			{.addr = 0x7f0000001000ULL, .len = 32 << 20, .rkey = 0x1234},
			{.addr = 0x7f0002001000ULL,
			 .len = 32 << 20,
			 .rkey = 0xabcdef01,
			 .qp = {.lid = 7,
				.qpn = 0x123456,
				.psn = 0xabcdef,
				.mtu = 5,
				.gid = {0xfe, 0x80}}},
			{.addr = 1, .len = 2, .rkey = 3},
		},
			  *so;
	struct ctrl_chunk ch[2] =
		{
			{0, 0, 0, 1 << 20, 0x1111222233334444ULL},
			{5, 17, 0x40000000ULL, 4096, 0xffffffffffffffffULL},
		},
			  *co;
	struct ctrl_buf b;
	const uint8_t *p;
	uint8_t *bad;
	uint32_t len, n;

	CHECK(ctrl_encode_slices(&b, sl, 3) == 0);
	p = payload_of(&b, CTRL_SLICES, &len);
	CHECK(len == 4 + 3 * (20 + 27));
	CHECK(ctrl_decode_slices(p, len, &so, &n) == 0 && n == 3);
	CHECK(so && so[1].addr == sl[1].addr && so[1].len == sl[1].len &&
	      so[1].rkey == sl[1].rkey && so[2].rkey == 3);
	CHECK(so && so[1].qp.lid == 7 && so[1].qp.qpn == 0x123456 && so[1].qp.psn == 0xabcdef &&
	      so[1].qp.mtu == 5 && so[1].qp.gid[0] == 0xfe && so[1].qp.gid[1] == 0x80);
	free(so);
	check_truncations(p, len, dec_slices);
	/* A forged count (more entries than bytes) is rejected before any allocation. */
	bad = malloc(len);
	memcpy(bad, p, len);
	bad[0] = 0xff;
	CHECK(ctrl_decode_slices(bad, len, &so, &n) == -EBADMSG && so == NULL);
	free(bad);
	free(b.data);

	CHECK(ctrl_encode_slices(&b, NULL, 0) == 0);
	p = payload_of(&b, CTRL_SLICES, &len);
	CHECK(ctrl_decode_slices(p, len, &so, &n) == 0 && n == 0 && so == NULL);
	free(b.data);

	CHECK(ctrl_encode_chunks(&b, CTRL_CANARY, ch, 2) == 0);
	p = payload_of(&b, CTRL_CANARY, &len);
	CHECK(len == 4 + 2 * 28);
	CHECK(ctrl_decode_chunks(p, len, &co, &n) == 0 && n == 2);
	CHECK(co && co[1].worker == 5 && co[1].slot == 17 && co[1].offset == 0x40000000ULL &&
	      co[1].len == 4096 && co[1].digest == 0xffffffffffffffffULL && co[0].len == 1 << 20);
	free(co);
	check_truncations(p, len, dec_chunks);
	free(b.data);
	CHECK(ctrl_encode_chunks(&b, CTRL_VERIFY, ch, 1) == 0);
	payload_of(&b, CTRL_VERIFY, &len);
	free(b.data);
}

static int dec_qps(const void *p, size_t len)
{
	struct ctrl_wqp *q;
	uint32_t n;
	int rc = ctrl_decode_qps(p, len, &q, &n);

	free(q);
	return rc;
}

static int dec_accept_ports(const void *p, size_t len)
{
	static struct ctrl_accept a;

	return ctrl_decode(CTRL_ACCEPT, p, len, &a);
}

/* Rails: the sink's ports in ACCEPT, the source's QPs, a RESULT's rails. */
static void test_rails(void)
{
	static struct ctrl_accept a = {.session = 42, .nports = 2}, ao;
	struct ctrl_wqp q[2] =
		{
			{.sink_port = 1,
			 .dev = "mlx5_3",
			 .port = 1,
			 .qp = {.lid = 12, .qpn = 0xabc, .psn = 0x777, .mtu = 5}},
			{.sink_port = 0, .dev = "ibp29s0", .port = 2, .qp = {.qpn = 1}},
		},
			*qo;
	struct ctrl_rail rails[1] = {{"rxe1", 1, 1, 2, 123456, 100000}};
	struct ctrl_result r = {.ok = 1,
				.bytes = 123456,
				.window_ns = 1,
				.nrails = 1,
				.rails = rails,
				.open_ns = 3000000123ULL,
				.cv_milli_pct = 1234},
			   ro;
	struct ctrl_buf b;
	const uint8_t *p;
	uint32_t len, n;

	a.ports[0] = (struct ctrl_port){.dev = "mlx5_0",
					.port = 1,
					.link = 1,
					.lid = 3,
					.numa_node = 0,
					.rate_mbps = 400000,
					.mtu = 5};
	a.ports[1] = (struct ctrl_port){.dev = "rxe1",
					.port = 1,
					.link = 2,
					.addr = "10.77.1.1",
					.prefix_len = 24,
					.numa_node = -1,
					.mtu = 3,
					.software = 1};
	CHECK(ctrl_encode_accept(&b, &a) == 0);
	p = payload_of(&b, CTRL_ACCEPT, &len);
	CHECK(ctrl_decode(CTRL_ACCEPT, p, len, &ao) == 0 && ao.session == 42 && ao.nports == 2);
	CHECK(!strcmp(ao.ports[0].dev, "mlx5_0") && ao.ports[0].lid == 3 &&
	      ao.ports[0].rate_mbps == 400000 && ao.ports[0].link == 1);
	CHECK(!strcmp(ao.ports[1].addr, "10.77.1.1") && ao.ports[1].prefix_len == 24 &&
	      ao.ports[1].numa_node == -1 && ao.ports[1].software == 1);
	CHECK(len <= ctrl_payload_max(CTRL_ACCEPT));
	check_truncations(p, len, dec_accept_ports);
	free(b.data);
	a.ports[1].link = 3; /* neither InfiniBand nor Ethernet */
	CHECK(ctrl_encode_accept(&b, &a) == 0);
	p = payload_of(&b, CTRL_ACCEPT, &len);
	CHECK(ctrl_decode(CTRL_ACCEPT, p, len, &ao) == -EBADMSG);
	free(b.data);

	CHECK(ctrl_encode_qps(&b, q, 2) == 0);
	p = payload_of(&b, CTRL_QPS, &len);
	CHECK(ctrl_decode_qps(p, len, &qo, &n) == 0 && n == 2);
	CHECK(qo && qo[0].sink_port == 1 && !strcmp(qo[0].dev, "mlx5_3") && qo[0].qp.lid == 12 &&
	      qo[0].qp.qpn == 0xabc && qo[0].qp.psn == 0x777 && !strcmp(qo[1].dev, "ibp29s0"));
	free(qo);
	check_truncations(p, len, dec_qps);
	free(b.data);
	q[1].qp.qpn = 1 << 24; /* QP numbers have 24 bits */
	CHECK(ctrl_encode_qps(&b, q, 2) == 0);
	p = payload_of(&b, CTRL_QPS, &len);
	CHECK(ctrl_decode_qps(p, len, &qo, &n) == -EBADMSG && qo == NULL);
	free(b.data);

	CHECK(ctrl_encode_result(&b, &r) == 0);
	p = payload_of(&b, CTRL_RESULT, &len);
	CHECK(ctrl_decode_result(p, len, &ro) == 0 && ro.nrails == 1 && ro.ndrives == 0);
	CHECK(ro.rails && !strcmp(ro.rails[0].dev, "rxe1") && ro.rails[0].sink_port == 1 &&
	      ro.rails[0].qps == 2 && ro.rails[0].bytes == 123456 &&
	      ro.rails[0].line_mbps == 100000);
	CHECK(ro.open_ns == 3000000123ULL && ro.cv_milli_pct == 1234);
	ctrl_result_free(&ro);
	free(b.data);
}

static void test_result(void)
{
	struct ctrl_drive dr[2] = {
		{"/dev/nvme0n1", "QEMU NVMe Ctrl", 0, 12, 123456789},
		{"/dev/nvme1n1", "", -1, 12, 42},
	};
	struct ctrl_result r = {.ok = 1,
				.bytes = 123456831,
				.window_ns = 6000000001ULL,
				.ndrives = 2,
				.drives = dr},
			   o;
	struct ctrl_buf b;
	const uint8_t *p;
	uint8_t *bad;
	uint32_t len;

	CHECK(ctrl_encode_result(&b, &r) == 0);
	p = payload_of(&b, CTRL_RESULT, &len);
	CHECK(ctrl_decode_result(p, len, &o) == 0);
	CHECK(o.ok == 1 && o.bytes == r.bytes && o.window_ns == r.window_ns && o.ndrives == 2);
	CHECK(o.drives && !strcmp(o.drives[0].path, "/dev/nvme0n1") &&
	      !strcmp(o.drives[0].model, "QEMU NVMe Ctrl") && o.drives[1].numa_node == -1 &&
	      o.drives[1].bytes == 42 && o.drives[0].workers == 12 && o.drives[1].model[0] == 0);
	ctrl_result_free(&o);
	check_truncations(p, len, dec_result);
	/* A drive count far beyond the payload is rejected without allocating. */
	bad = malloc(len);
	memcpy(bad, p, len);
	memset(bad + 17, 0xff, 4);
	CHECK(ctrl_decode_result(bad, len, &o) == -EBADMSG && o.drives == NULL);
	/* ok must be 0 or 1. */
	memcpy(bad, p, len);
	bad[0] = 2;
	CHECK(ctrl_decode_result(bad, len, &o) == -EBADMSG);
	free(bad);
	free(b.data);
}

static void test_progress(void)
{
	struct ctrl_progress m = {.elapsed_ns = 4000000123ULL,
				  .bytes = 0x123456789aULL,
				  .window_ns = 1000000000ULL,
				  .window_bytes = 0x23456789ULL},
			     o;
	struct ctrl_buf b;
	const uint8_t *p;
	uint8_t *bad;
	uint32_t len;

	CHECK(ctrl_encode_progress(&b, &m) == 0);
	p = payload_of(&b, CTRL_PROGRESS, &len);
	CHECK(len == 32);
	CHECK(ctrl_decode_progress(p, len, &o) == 0);
	CHECK(o.elapsed_ns == m.elapsed_ns && o.bytes == m.bytes && o.window_ns == m.window_ns &&
	      o.window_bytes == m.window_bytes);
	/* Big-endian: bytes 0x123456789a ends ... 12 34 56 78 9a. */
	CHECK(p[8 + 3] == 0x12 && p[8 + 7] == 0x9a);
	check_truncations(p, len, dec_progress);
	/* Inconsistent figures: a window longer than the run, more window bytes than bytes. */
	bad = malloc(len);
	memcpy(bad, p, len);
	bad[16] = 0x01;
	CHECK(ctrl_decode_progress(bad, len, &o) == -EBADMSG);
	memcpy(bad, p, len);
	bad[24] = 0x01;
	CHECK(ctrl_decode_progress(bad, len, &o) == -EBADMSG);
	/* The warm-up: nothing measured yet is fine. */
	memcpy(bad, p, len);
	memset(bad + 16, 0, 16);
	CHECK(ctrl_decode_progress(bad, len, &o) == 0 && o.window_ns == 0 && o.window_bytes == 0);
	/* All zero (the first heartbeat may come before any completion). */
	memset(bad, 0, len);
	CHECK(ctrl_decode_progress(bad, len, &o) == 0);
	free(bad);
	free(b.data);
	CHECK(!strcmp(ctrl_type_name(CTRL_PROGRESS), "PROGRESS"));
}

static void test_header(void)
{
	struct ctrl_buf b;
	unsigned type, version;
	uint32_t len;
	uint8_t h[CTRL_HDR_LEN];

	CHECK(ctrl_encode_done(&b, &(struct ctrl_done){.verify = 2}) == 0);
	memcpy(h, b.data, CTRL_HDR_LEN);
	CHECK(h[0] == 'N' && h[1] == 'B' && h[2] == 'W' && h[3] == 'R');
	CHECK(ctrl_parse_header(h, &type, &len, &version) == 0 && type == CTRL_DONE && len == 1);
	h[0] = 'G'; /* "GET / HTTP/1.1" */
	CHECK(ctrl_parse_header(h, &type, &len, &version) == -EPROTO);
	memcpy(h, b.data, CTRL_HDR_LEN);
	h[5] = CTRL_VERSION_MAC + 1;
	CHECK(ctrl_parse_header(h, &type, &len, &version) == -EPROTONOSUPPORT &&
	      version == CTRL_VERSION_MAC + 1);
	h[5] = 1; /* version 1 had no PROGRESS: refused, not misread */
	CHECK(ctrl_parse_header(h, &type, &len, &version) == -EPROTONOSUPPORT && version == 1);
	memcpy(h, b.data, CTRL_HDR_LEN);
	h[7] = 0;
	CHECK(ctrl_parse_header(h, &type, &len, &version) == -EBADMSG);
	h[7] = CTRL_TYPE_MAX + 1;
	CHECK(ctrl_parse_header(h, &type, &len, &version) == -EBADMSG);
	memcpy(h, b.data, CTRL_HDR_LEN);
	h[8] = 0x7f;
	CHECK(ctrl_parse_header(h, &type, &len, &version) == -EMSGSIZE);
	free(b.data);
	CHECK(!strcmp(ctrl_type_name(CTRL_SLICES), "SLICES"));
	CHECK(!strcmp(ctrl_type_name(99), "unknown"));
}

static void test_sockets(void)
{
	struct ctrl_buf b;
	char err[256];
	uint64_t t0;
	uint32_t len;
	unsigned type;
	void *p;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	/* A whole message crosses. */
	CHECK(ctrl_send_free(sv[0], NULL, &b, ctrl_encode_hello(&b, &hello), 1000) == 0);
	CHECK(ctrl_recv(sv[1], NULL, &type, &p, &len, 1000) == 0 && type == CTRL_HELLO &&
	      len == 38);
	free(p);
	/* Nothing comes: the wait ends at its timeout. */
	t0 = nbw_now_ns();
	CHECK(ctrl_recv(sv[1], NULL, &type, &p, &len, 200) == -ETIMEDOUT);
	CHECK(nbw_now_ns() - t0 >= 190000000ULL && nbw_now_ns() - t0 < 2000000000ULL);
	/* A header and half a payload: also a timeout, not a hang. */
	CHECK(ctrl_encode_hello(&b, &hello) == 0);
	CHECK(write(sv[0], b.data, CTRL_HDR_LEN + 5) == CTRL_HDR_LEN + 5);
	CHECK(ctrl_recv(sv[1], NULL, &type, &p, &len, 200) == -ETIMEDOUT);
	free(b.data);
	/* An ERROR where something else was expected carries its text. */
	CHECK(ctrl_send_free(sv[1], NULL, &b, ctrl_encode_error(&b, "sink says no"), 1000) == 0);
	CHECK(ctrl_expect(sv[0], NULL, CTRL_ACCEPT, &p, &len, 1000, err, sizeof(err)) ==
	      -ECONNABORTED);
	CHECK(!strcmp(err, "sink says no") && p == NULL);
	/* A heartbeat crosses and is expected like any message. */
	CHECK(ctrl_send_free(sv[0], NULL, &b,
			     ctrl_encode_progress(&b, &(struct ctrl_progress){2000, 100, 1000, 50}),
			     1000) == 0);
	CHECK(ctrl_expect(sv[1], NULL, CTRL_PROGRESS, &p, &len, 1000, err, sizeof(err)) == 0 &&
	      len == 32);
	free(p);
	/* The wrong message type. */
	CHECK(ctrl_send_free(sv[1], NULL, &b, ctrl_encode_start(&b, &(struct ctrl_start){1, 2, 3}),
			     1000) == 0);
	CHECK(ctrl_expect(sv[0], NULL, CTRL_ACCEPT, &p, &len, 1000, err, sizeof(err)) == -EBADMSG);
	CHECK(!strcmp(err, "expected ACCEPT, got START"));
	close(sv[0]);
	close(sv[1]);

	/* Garbage instead of a header; then a peer that closes. */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(write(sv[0], "GET / HTTP/1.0\r\n\r\n", 18) == 18);
	CHECK(ctrl_recv(sv[1], NULL, &type, &p, &len, 1000) == -EPROTO);
	close(sv[0]);
	CHECK(ctrl_recv(sv[1], NULL, &type, &p, &len, 1000) == -ECONNRESET);
	close(sv[1]);
	CHECK(!strcmp(ctrl_strerror(-ECONNRESET), "connection closed by the peer"));
}

static void test_tcp(void)
{
	int lfd, cfd, afd;
	char peer[64];

	/* Loopback only: listen, connect, accept; a second listener on the port fails. */
	lfd = ctrl_listen("127.0.0.1", 0);
	CHECK(lfd >= 0);
	if (lfd < 0)
		return;
	{
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		unsigned port;

		getsockname(lfd, (struct sockaddr *)&ss, &sl);
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		CHECK(ctrl_listen("127.0.0.1", port) == -EADDRINUSE);
		cfd = ctrl_connect("127.0.0.1", port, 1000);
		CHECK(cfd >= 0);
		afd = ctrl_accept(lfd, 1000, peer, sizeof(peer));
		CHECK(afd >= 0 && !strcmp(peer, "127.0.0.1"));
		if (cfd >= 0)
			close(cfd);
		if (afd >= 0)
			close(afd);
		CHECK(ctrl_accept(lfd, 100, peer, sizeof(peer)) == -ETIMEDOUT);
	}
	close(lfd);
}

int main(void)
{
	test_header();
	test_hello();
	test_small_messages();
	test_lists();
	test_result();
	test_rails();
	test_progress();
	test_sockets();
	test_tcp();
	return check_done("test_ctrl");
}
