// SPDX-License-Identifier: MIT
/*
 * test_wire: the control protocol's wire layout, byte by byte. One sample of
 * every message (each field a value of its own) is encoded and compared
 * with the bytes the hand-written codec of protocol version 3 produced
 * (recorded below with `test_wire --dump` before the codec became a table),
 * so a field that moves, grows or changes its order fails here; a few
 * fields are also checked at their offsets by name. The recorded bytes
 * decode back to the sample; every truncation and an extra byte are
 * refused; the payload limits are today's. The conversions between the
 * wire's structs and the tool's (wire_conv.c) go there and back. RESULT's
 * optional part (the source's drives' seconds and health log) is sent only
 * when there is one, taken when absent (the recorded bytes of version 3),
 * checked when present: cut short, another count than the drives', a
 * reading after without one before, seconds out of order are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ctrl.h"
#include "options.h"
#include "result.h"
#include "steps.h"
#include "wire_conv.h"

static struct ctrl_hello s_hello(void)
{
	return (struct ctrl_hello){
		.chunk = 0x0102030405060708ull,
		.depth = 0x090a0b0c,
		.workers = 515,
		.warmup_ms = 0x1112131415161718ull,
		.duration_ms = 0x2122232425262728ull,
		.verify = CTRL_VERIFY_FULL,
		.source = CTRL_SOURCE_MEM,
		.conn = CTRL_CONN_CM,
		.mtu = 5,
		.sl = 15,
		.tclass = 0x3c,
	};
}

static void s_accept(struct ctrl_accept *a)
{
	unsigned i;

	memset(a, 0, sizeof(*a));
	a->session = 0x3132333435363738ull;
	a->nports = 2;
	snprintf(a->ports[0].dev, sizeof(a->ports[0].dev), "mlx5_0");
	a->ports[0].port = 1;
	a->ports[0].link = 2;
	a->ports[0].lid = 0x4142;
	for (i = 0; i < 16; i++)
		a->ports[0].gid[i] = (uint8_t)(0x50 + i);
	snprintf(a->ports[0].addr, sizeof(a->ports[0].addr), "10.0.0.1");
	a->ports[0].prefix_len = 24;
	a->ports[0].numa_node = -1;
	a->ports[0].rate_mbps = 100000;
	a->ports[0].mtu = 5;
	snprintf(a->ports[1].dev, sizeof(a->ports[1].dev), "rxe0");
	a->ports[1].port = 2;
	a->ports[1].link = 1;
	a->ports[1].lid = 7;
	a->ports[1].numa_node = 1;
	a->ports[1].mtu = 3;
	a->ports[1].software = 1;
}

static struct ctrl_qp s_qp(uint8_t k)
{
	struct ctrl_qp q = {.lid = (uint16_t)(0x6100 + k),
			    .qpn = 0x00abcd00u + k,
			    .psn = 0x00123400u + k,
			    .mtu = 4};
	unsigned i;

	for (i = 0; i < 16; i++)
		q.gid[i] = (uint8_t)(0xa0 + k + i);
	return q;
}

static void s_slices(struct ctrl_slice s[2])
{
	s[0] = (struct ctrl_slice){
		.addr = 0x7071727374757677ull, .len = 0x100000, .rkey = 0x78797a7b, .qp = s_qp(0)};
	s[1] = (struct ctrl_slice){
		.addr = 0x7071727374857677ull, .len = 0x200000, .rkey = 0x0102a0b0, .qp = s_qp(1)};
}

static void s_chunks(struct ctrl_chunk c[2])
{
	c[0] = (struct ctrl_chunk){.worker = 0x01020304,
				   .slot = 0x05060708,
				   .offset = 0x1112131415161718ull,
				   .len = 0x21222324,
				   .digest = 0x3132333435363738ull};
	c[1] = (struct ctrl_chunk){.worker = 1, .slot = 2, .offset = 3, .len = 4, .digest = 5};
}

static struct ctrl_start s_start(void)
{
	return (struct ctrl_start){.warmup_ms = 0x0102030405060708ull,
				   .duration_ms = 0x1112131415161718ull,
				   .progress_ms = 250};
}

static struct ctrl_progress s_progress(void)
{
	return (struct ctrl_progress){.elapsed_ns = 0x0102030405060708ull,
				      .bytes = 0x1112131415161718ull,
				      .window_ns = 0x0002030405060708ull,
				      .window_bytes = 0x0012131415161718ull};
}

static struct ctrl_auth s_auth(void)
{
	struct ctrl_auth a = {.has_key = 1};
	unsigned i;

	for (i = 0; i < CTRL_NONCE_LEN; i++)
		a.nonce[i] = (uint8_t)i;
	for (i = 0; i < CTRL_MAC_LEN; i++)
		a.mac[i] = (uint8_t)(0x80 + i);
	return a;
}

static void s_qps(struct ctrl_wqp q[2])
{
	memset(q, 0, 2 * sizeof(*q));
	q[0].sink_port = 0x0102;
	snprintf(q[0].dev, sizeof(q[0].dev), "rxe1");
	q[0].port = 1;
	q[0].qp = s_qp(2);
	q[1].sink_port = 3;
	snprintf(q[1].dev, sizeof(q[1].dev), "mlx5_1");
	q[1].port = 2;
	q[1].qp = s_qp(3);
}

static struct ctrl_drive s_drive = {.path = "/dev/nvme0n1",
				    .model = "QEMU NVMe Ctrl",
				    .numa_node = -1,
				    .workers = 0x0a0b0c0d,
				    .bytes = 0x4142434445464748ull};
static struct ctrl_rail s_rails[2] = {
	{.dev = "mlx5_0",
	 .port = 1,
	 .sink_port = 0x0203,
	 .qps = 0x04050607,
	 .bytes = 0x5152535455565758ull,
	 .line_mbps = 200000},
	{.dev = "rxe0", .port = 2, .sink_port = 1, .qps = 1, .bytes = 9, .line_mbps = 0},
};

static struct ctrl_result s_result(void)
{
	return (struct ctrl_result){.ok = 1,
				    .bytes = 0x6162636465666768ull,
				    .window_ns = 0x7172737475767778ull,
				    .ndrives = 1,
				    .drives = &s_drive,
				    .nrails = 2,
				    .rails = s_rails,
				    .open_ns = 0x0102030405060708ull,
				    .cv_milli_pct = 0x11223344};
}

/* Encode the sample of one message type (CANARY and VERIFY: of 2 and 1 chunks). */
static int encode_sample(unsigned type, struct ctrl_buf *b)
{
	static struct ctrl_accept acc;
	struct ctrl_slice sl[2];
	struct ctrl_chunk ch[2];
	struct ctrl_wqp q[2];
	union {
		struct ctrl_hello h;
		struct ctrl_start s;
		struct ctrl_progress p;
		struct ctrl_auth a;
		struct ctrl_result r;
		struct ctrl_done d;
	} m;

	switch (type) {
	case CTRL_HELLO:
		return m.h = s_hello(), ctrl_encode_hello(b, &m.h);
	case CTRL_ACCEPT:
		return s_accept(&acc), ctrl_encode_accept(b, &acc);
	case CTRL_ERROR:
		return ctrl_encode_error(b, "no drive");
	case CTRL_SLICES:
		return s_slices(sl), ctrl_encode_slices(b, sl, 2);
	case CTRL_CANARY:
		return s_chunks(ch), ctrl_encode_chunks(b, CTRL_CANARY, ch, 2);
	case CTRL_VERIFY:
		return s_chunks(ch), ctrl_encode_chunks(b, CTRL_VERIFY, ch + 1, 1);
	case CTRL_START:
		return m.s = s_start(), ctrl_encode_start(b, &m.s);
	case CTRL_RESULT:
		return m.r = s_result(), ctrl_encode_result(b, &m.r);
	case CTRL_DONE:
		return m.d = (struct ctrl_done){.verify = 1}, ctrl_encode_done(b, &m.d);
	case CTRL_PROGRESS:
		return m.p = s_progress(), ctrl_encode_progress(b, &m.p);
	case CTRL_AUTH:
		return m.a = s_auth(), ctrl_encode_auth(b, &m.a);
	case CTRL_QPS:
		return s_qps(q), ctrl_encode_qps(b, q, 2);
	}
	return -EINVAL;
}

#include "wire_golden.h"

/* Print the samples' bytes as C arrays (to record them once, never to pass a test). */
static int dump(void)
{
	unsigned t;
	size_t i;

	for (t = 1; t <= CTRL_TYPE_MAX; t++) {
		struct ctrl_buf b;

		if (encode_sample(t, &b))
			return 1;
		printf("static const uint8_t golden_%u[] = { /* %s */", t, ctrl_type_name(t));
		for (i = 0; i < b.len; i++)
			printf("%s0x%02x,", i % 12 ? " " : "\n\t", b.data[i]);
		printf("\n};\n");
		free(b.data);
	}
	return 0;
}

static const struct {
	const uint8_t *bytes;
	size_t len;
} golden[CTRL_TYPE_MAX + 1] = {
#define G(t) [t] = {golden_##t, sizeof(golden_##t)}
	G(1), G(2), G(3), G(4), G(5), G(6), G(7), G(8), G(9), G(10), G(11), G(12),
#undef G
};

/* A payload decoded into the struct of its type and encoded again. */
static int reencode(unsigned type, const uint8_t *p, size_t len, struct ctrl_buf *b)
{
	union {
		struct ctrl_hello h;
		struct ctrl_accept a;
		struct ctrl_error e;
		struct ctrl_list l;
		struct ctrl_start s;
		struct ctrl_result r;
		struct ctrl_done d;
		struct ctrl_progress pr;
		struct ctrl_auth au;
	} *m = calloc(1, sizeof(*m));
	int rc;

	rc = ctrl_decode(type, p, len, m);
	if (!rc)
		rc = ctrl_encode(b, type, m);
	ctrl_release(type, m);
	free(m);
	return rc;
}

/* Every strict prefix of a payload, and one byte more, is refused. */
static void check_cuts(unsigned type, const uint8_t *p, size_t len)
{
	uint8_t *copy = calloc(1, len + 1);
	void *m = calloc(1, sizeof(struct ctrl_accept)); /* the largest message struct */
	size_t k;
	int bad = 0;

	memcpy(copy, p, len);
	for (k = 0; k <= len + 1; k++) {
		if (k == len)
			continue;
		if (ctrl_decode(type, copy, k, m) != -EBADMSG)
			bad++;
		ctrl_release(type, m);
	}
	CHECK(bad == 0);
	free(copy);
	free(m);
}

/* Each sample encodes to today's bytes, which decode back to them. */
static void test_golden(void)
{
	unsigned t;

	for (t = 1; t <= CTRL_TYPE_MAX; t++) {
		struct ctrl_buf b = {0}, again = {0};
		uint32_t len;
		unsigned type, version;

		CHECK(encode_sample(t, &b) == 0);
		CHECK_U64(b.len, golden[t].len);
		if (b.len != golden[t].len || memcmp(b.data, golden[t].bytes, b.len))
			fprintf(stderr, "test_wire: %s encodes to other bytes than version 3\n",
				ctrl_type_name(t));
		CHECK(b.len == golden[t].len && !memcmp(b.data, golden[t].bytes, b.len));
		CHECK(ctrl_parse_header(golden[t].bytes, &type, &len, &version) == 0);
		CHECK(type == t && len == golden[t].len - CTRL_HDR_LEN);
		CHECK(reencode(t, golden[t].bytes + CTRL_HDR_LEN, len, &again) == 0);
		CHECK(again.len == golden[t].len &&
		      !memcmp(again.data, golden[t].bytes, again.len));
		check_cuts(t, golden[t].bytes + CTRL_HDR_LEN, len);
		free(b.data);
		free(again.data);
	}
}

/* Big-endian value of n bytes at p. */
static uint64_t be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* A few fields by name at their offsets in the payload (after the 12-byte header). */
static void test_offsets(void)
{
	const uint8_t *h = golden_1 + CTRL_HDR_LEN, *a = golden_2 + CTRL_HDR_LEN;
	const uint8_t *r = golden_7 + CTRL_HDR_LEN, *au = golden_11 + CTRL_HDR_LEN;

	CHECK_U64(be(golden_1, 4), CTRL_MAGIC);
	CHECK_U64(be(golden_1 + 4, 2), CTRL_VERSION);
	CHECK_U64(be(h + 0, 8), 0x0102030405060708ull); /* chunk */
	CHECK_U64(be(h + 8, 4), 0x090a0b0c);		/* depth */
	CHECK_U64(be(h + 12, 4), 515);			/* workers */
	CHECK_U64(be(h + 32, 1), CTRL_VERIFY_FULL);	/* verify */
	CHECK_U64(be(h + 37, 1), 0x3c);			/* tclass */
	CHECK_U64(wire_offset(ctrl_layout(CTRL_HELLO), "workers"), 12);
	CHECK_U64(wire_offset(ctrl_layout(CTRL_HELLO), "tclass"), 37);
	CHECK_U64(be(a + 8, 4), 2);	      /* nports */
	CHECK_U64(be(a + 12, 2), 6);	      /* ports[0].dev length, "mlx5_0" */
	CHECK_U64(be(a + 22, 2), 0x4142);     /* ports[0].lid */
	CHECK_U64(be(a + 51, 4), 0xffffffff); /* ports[0].numa_node -1 */
	CHECK_U64(be(r + 0, 1), 1);	      /* ok */
	CHECK_U64(be(r + 17, 4), 1);	      /* ndrives */
	CHECK_U64(be(au + 1, 1), 0);	      /* nonce[0] */
	CHECK_U64(be(au + 33, 1), 0x80);      /* mac[0] */
	CHECK_U64(wire_offset(ctrl_layout(CTRL_AUTH), "mac"), 33);
	CHECK_U64(wire_offset(ctrl_layout(CTRL_START), "progress_ms"), 16);
	CHECK_U64(be(golden_6 + CTRL_HDR_LEN + 16, 4), 250); /* START's progress_ms */
}

/* The limits computed from the tables are the hand sums of version 3. */
static void test_limits(void)
{
	CHECK_U64(ctrl_payload_max(CTRL_HELLO), 38);
	CHECK_U64(ctrl_payload_max(CTRL_ACCEPT), 8 + 4 + 161 * CTRL_MAX_PORTS);
	/* 2 + 1023: the hand sum said 2 + 1024, a byte that no decoder accepted. */
	CHECK_U64(ctrl_payload_max(CTRL_ERROR), 2 + CTRL_MAX_STR - 1);
	CHECK_U64(ctrl_payload_max(CTRL_SLICES), 4 + 47 * CTRL_MAX_WORKERS);
	CHECK_U64(ctrl_payload_max(CTRL_CANARY), 4 + 28 * CTRL_MAX_WORKERS);
	CHECK_U64(ctrl_payload_max(CTRL_START), 20);
	/* and the optional part: a drive's seconds and health log, 404 bytes at most each */
	CHECK_U64(ctrl_payload_max(CTRL_RESULT), 21 + 530 * CTRL_MAX_DRIVES + 4 +
							 84 * CTRL_MAX_RAILS + 12 + 4 +
							 404 * CTRL_MAX_DRIVES);
	CHECK_U64(ctrl_payload_max(CTRL_VERIFY), 4 + 28 * CTRL_MAX_WORKERS * CTRL_FULL_RING_MAX);
	CHECK_U64(ctrl_payload_max(CTRL_DONE), 1);
	CHECK_U64(ctrl_payload_max(CTRL_PROGRESS), 32);
	CHECK_U64(ctrl_payload_max(CTRL_AUTH), 65);
	CHECK_U64(ctrl_payload_max(CTRL_QPS), 4 + 95 * CTRL_MAX_WORKERS);
	CHECK_U64(ctrl_payload_max(0), 0);
	CHECK_U64(ctrl_payload_max(CTRL_TYPE_MAX + 1), 0);
	CHECK_U64(ctrl_fixed_len(CTRL_HELLO), 38);
	CHECK_U64(ctrl_fixed_len(CTRL_AUTH), 65);
	CHECK_U64(ctrl_fixed_len(CTRL_ERROR), 0);
	CHECK_U64(ctrl_fixed_len(CTRL_RESULT), 0);
	/* The phases' masks follow from the message table: version 3's, bit by bit. */
	CHECK_U64(ctrl_step_allows(CTRL_STEP_AUTH), 0x800);
	CHECK_U64(ctrl_step_allows(CTRL_STEP_PROOF), 0x800);
	CHECK_U64(ctrl_step_allows(CTRL_STEP_HELLO), 0x2);
	CHECK_U64(ctrl_step_allows(CTRL_STEP_QPS), 0x1008);
	CHECK_U64(ctrl_step_allows(CTRL_STEP_CANARY), 0x28);
	CHECK_U64(ctrl_step_allows(CTRL_STEP_WINDOW), 0x488);
	CHECK_U64(ctrl_step_allows(CTRL_STEP_TABLE), 0x108);
	CHECK_U64(ctrl_step_allows(CTRL_STEP_END), 0x8);
	CHECK_U64(ctrl_sender(CTRL_HELLO), CTRL_BY_SOURCE);
	CHECK_U64(ctrl_sender(CTRL_START), CTRL_BY_SINK);
	CHECK_U64(ctrl_sender(CTRL_AUTH), CTRL_BY_EITHER);
}

/* A sink port through ACCEPT's struct and back; a QP likewise. */
static void test_conv(void)
{
	struct fab_port p = {.dev = "mlx5_0",
			     .port = 2,
			     .active = true,
			     .link = FAB_LINK_IB,
			     .numa_node = 1,
			     .lid = 0x1234,
			     .active_mtu = 5,
			     .addr = "10.0.0.2",
			     .prefix_len = 24,
			     .rate_gbits = 200,
			     .software = false},
			back;
	struct fab_qp_attr qa = {.lid = 7, .qpn = 0xabcdef, .psn = 0x123456, .mtu = 3}, qb;
	struct ctrl_port c;
	struct ctrl_qp q;
	struct options o = {0};
	struct ctrl_hello h;

	p.gid[15] = 9;
	conv_port_to_wire(&p, &c);
	CHECK(c.link == 1 && c.rate_mbps == 200000 && c.gid[15] == 9 && c.lid == 0x1234);
	conv_port_from_wire(&c, &back);
	CHECK_STR(back.dev, "mlx5_0");
	CHECK_STR(back.addr, "10.0.0.2");
	CHECK_STR(back.link_layer, "InfiniBand");
	CHECK(back.port == 2 && back.link == FAB_LINK_IB && back.numa_node == 1 &&
	      back.active_mtu == 5 && back.prefix_len == 24 && back.rate_gbits == 200 &&
	      back.gid[15] == 9 && back.active);
	p.link = FAB_LINK_ETH;
	p.software = true;
	conv_port_to_wire(&p, &c);
	CHECK(c.link == 2 && c.software == 1);
	qa.gid[0] = 0xfe;
	q = conv_qp_to_wire(&qa);
	CHECK(q.lid == 7 && q.qpn == 0xabcdef && q.psn == 0x123456 && q.mtu == 3 &&
	      q.gid[0] == 0xfe);
	qb = conv_qp_from_wire(&q);
	CHECK(!memcmp(&qa, &qb, sizeof(qa)));
	o.chunk = 1 << 20;
	o.depth = 8;
	o.cc.warmup = 1.5;
	o.cc.duration = 10.0004;
	o.verify = CTRL_VERIFY_FULL;
	o.conn = CTRL_CONN_CM;
	o.lo.sl = 3;
	h = conv_hello(&o);
	CHECK(h.chunk == 1 << 20 && h.depth == 8 && h.warmup_ms == 1500 && h.duration_ms == 10000);
	CHECK(h.verify == CTRL_VERIFY_FULL && h.conn == CTRL_CONN_CM && h.sl == 3 && !h.workers);
}

/* A throttling drive whose window collapsed in its third second. */
static void s_health(struct ctrl_drive_health *c)
{
	struct health_log before = {.composite_k = 313,
				    .spare_pct = 100,
				    .spare_threshold_pct = 10,
				    .tmt_transitions = {2, 0},
				    .tmt_seconds = {30, 0}};
	struct health_log after = before;
	struct health_limits lim = {.warning_k = 348, .critical_k = 358};
	double rates[5] = {3e9, 3e9, 0.5e9, 3e9, 3e9};
	struct health_watch hw = {.ctrl = "nvme3", .namespaces = 1};
	struct window_shape sh;

	after.composite_k = 354;
	after.tmt_transitions[0] = 5;
	after.tmt_seconds[0] = 42;
	health_watch_set(&hw, &before, &after, &lim, NULL);
	window_shape(rates, 5, 10, &sh);
	conv_drive_health_to_wire(&sh, &hw, c);
}

/* Decode r's encoding after edit() changed its health entry; the decoder's return. */
static int result_with(void (*edit)(struct ctrl_result *r, struct ctrl_drive_health *h), size_t cut)
{
	struct ctrl_drive_health h[2];
	struct ctrl_result r = s_result(), back;
	struct ctrl_buf b;
	int rc;

	s_health(&h[0]);
	h[1] = h[0];
	r.health = h;
	r.nhealth = 1;
	if (edit)
		edit(&r, h);
	if (ctrl_encode_result(&b, &r))
		return -ENOMEM;
	rc = ctrl_decode_result(b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN - cut, &back);
	if (!rc)
		ctrl_result_free(&back);
	free(b.data);
	return rc;
}

static void two_entries(struct ctrl_result *r, struct ctrl_drive_health *h)
{
	(void)h;
	r->nhealth = 2;
}

static void after_alone(struct ctrl_result *r, struct ctrl_drive_health *h)
{
	(void)r;
	h->have_before = 0;
}

static void min_over_median(struct ctrl_result *r, struct ctrl_drive_health *h)
{
	(void)r;
	h->min_bps = h->median_bps + 1;
}

static void low_past_the_window(struct ctrl_result *r, struct ctrl_drive_health *h)
{
	(void)r;
	h->low_second = h->seconds;
}

static void too_many_seconds(struct ctrl_result *r, struct ctrl_drive_health *h)
{
	(void)r;
	h->seconds = CTRL_MAX_SECONDS + 1;
}

static void test_drive_health(void)
{
	struct ctrl_drive_health h;
	struct ctrl_result r = s_result(), back;
	struct result_drive d = {0};
	struct ctrl_buf b, plain;
	char line[320];

	/* Sent, taken, and judged at the sink: throttled, hot, the third second fell. */
	s_health(&h);
	r.health = &h;
	r.nhealth = 1;
	CHECK(!ctrl_encode_result(&b, &r));
	CHECK(!ctrl_encode_result(&plain, &(struct ctrl_result){.ok = 1}) &&
	      plain.len == CTRL_HDR_LEN + 1 + 8 + 8 + 4 + 4 + 8 + 4); /* no optional part */
	CHECK(!ctrl_decode_result(b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN, &back));
	CHECK_U64(back.nhealth, 1);
	if (back.nhealth == 1) {
		CHECK_U64(back.health[0].seconds, 5);
		CHECK_U64(back.health[0].low_second, 2);
		CHECK_U64(back.health[0].after.tmt1_transitions, 5);
		conv_drive_health_from_wire(&back.health[0], 10, &d);
		CHECK(d.has_shape && d.shape.unsteady && d.shape.low == 2);
		CHECK(d.has_health && (d.health.findings & HF_THROTTLED) &&
		      (d.health.findings & HF_HOT));
		health_watch_describe(&d.health, line, sizeof(line));
		CHECK_STR(line,
			  "throttled in the window: thermal management T1 +3 transitions, 12 s "
			  "in T1; 81 C at the close (warning at 75 C)");
		CHECK_STR(d.health.ctrl, "nvme3");
	}
	ctrl_result_free(&back);
	free(b.data);
	free(plain.data);
	/* a source that kept nothing of a drive: its reason goes across, never zeros */
	conv_drive_health_to_wire(
		NULL, &(struct health_watch){.why = "not read: /x is a regular file"}, &h);
	r.health = &h;
	CHECK(!ctrl_encode_result(&b, &r));
	CHECK(!ctrl_decode_result(b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN, &back));
	memset(&d, 0, sizeof(d));
	if (back.nhealth == 1)
		conv_drive_health_from_wire(&back.health[0], 10, &d);
	CHECK(!d.has_shape && d.has_health && !d.health.have_before);
	CHECK_STR(d.health.why, "not read: /x is a regular file");
	ctrl_result_free(&back);
	free(b.data);
	/* the untrusted part checked */
	CHECK_U64(result_with(NULL, 0), 0);
	CHECK_U64(result_with(NULL, 1), -EBADMSG); /* cut short */
	CHECK_U64(result_with(two_entries, 0), -EBADMSG);
	CHECK_U64(result_with(after_alone, 0), -EBADMSG);
	CHECK_U64(result_with(min_over_median, 0), -EBADMSG);
	CHECK_U64(result_with(low_past_the_window, 0), -EBADMSG);
	CHECK_U64(result_with(too_many_seconds, 0), -EBADMSG);
	/* the optional part sent with no entries: an empty list is sent as nothing, so a
	 * count of 0 is a second encoding of the same message (the fuzzer's round trip) */
	CHECK(!ctrl_encode_result(&plain, &(struct ctrl_result){.ok = 1}));
	{
		uint8_t p[64] = {0}; /* the payload, then a u32 count of 0 */
		size_t n = plain.len - CTRL_HDR_LEN;

		CHECK(n + 4 <= sizeof(p));
		memcpy(p, plain.data + CTRL_HDR_LEN, n);
		CHECK_U64(ctrl_decode_result(p, n, &back), 0);
		ctrl_result_free(&back);
		CHECK_U64(ctrl_decode_result(p, n + 4, &back), -EBADMSG);
	}
	free(plain.data);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--dump"))
		return dump();
	test_golden();
	test_offsets();
	test_limits();
	test_conv();
	test_drive_health();
	return check_done("test_wire");
}
