// SPDX-License-Identifier: MIT
/*
 * fuzz_ctrl.c: fuzz target for every decoder of the control protocol
 * (proto/ctrl.c). The first byte chooses what reads the rest:
 *	0           ctrl_parse_header (12 bytes)
 *	1 .. 10     the payload decoder of that message type (HELLO .. PROGRESS;
 *	            CANARY and VERIFY share ctrl_decode_chunks)
 *	11 .. 0xdf  a whole message: header, then its payload's decoder when
 *	            the header is good and the length matches
 *	0xf0 ..     a conversation: the rest is the byte stream a source sends,
 *	            read by the sink's side of the session through a socketpair
 *	            (ctrl_inbox_pump), step by step (ctrl_step_allows, ctrl_step_sink_next);
 *	            the selector's low bits choose key / verbs / --verify full.
 *	            No message is taken outside its phase, none allocated past
 *	            its limit or (at the door) off its exact size, and the
 *	            sink's checks (judge.c) run on what is taken
 *	0xe0 .. 0xef a conversation after a keyed AUTH (proto/ctrl_mac.h): the
 *	            sink's inbox with its MACs on, from HELLO; bit 3 set, the
 *	            harness seals each message of the rest (cut at its header's
 *	            length) with the source's key, so that mutated payloads reach
 *	            the decoders behind the check; clear, the bytes go as they
 *	            are (a forged or altered trailer is refused, never handed over).
 *	            Every message handed over passed its check (one sequence
 *	            number each); bits 1-2 choose verbs / --verify full
 * A decoded HELLO is also compared with a sink's parameters, strings must
 * come back NUL-terminated within their buffers, and every payload that
 * decodes (ctrl_decode(), the table-driven codec) must encode back to the
 * same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctrl_io.h"
#include "ctrl_mac.h"
#include "judge.h"
#include "steps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_write_corpus(const char *dir);

static void must(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz_ctrl: %s\n", what);
		abort();
	}
}

static void decode_hello(const uint8_t *p, size_t n)
{
	static const struct ctrl_hello sink = {
		.chunk = 1 << 20,
		.depth = 4,
		.workers = 1,
		.warmup_ms = 3000,
		.duration_ms = 20000,
		.verify = CTRL_VERIFY_CANARY,
		.source = CTRL_SOURCE_DISK,
	};
	struct ctrl_hello m;
	char why[256];

	if (!ctrl_decode_hello(p, n, &m))
		ctrl_hello_mismatch(&sink, &m, why, sizeof(why));
}

static void decode_result(const uint8_t *p, size_t n)
{
	struct ctrl_result m;
	uint32_t i;

	memset(&m, 0, sizeof(m));
	if (ctrl_decode_result(p, n, &m))
		return;
	for (i = 0; i < m.ndrives; i++)
		must(memchr(m.drives[i].path, 0, sizeof(m.drives[i].path)) &&
			     memchr(m.drives[i].model, 0, sizeof(m.drives[i].model)),
		     "RESULT drive string not terminated");
	ctrl_result_free(&m);
}

/* The decoder of message type t on payload p[0..n). */
static void decode(unsigned t, const uint8_t *p, size_t n)
{
	static struct ctrl_accept acc;
	struct ctrl_error err;
	struct ctrl_slice *s = NULL;
	struct ctrl_chunk *c = NULL;
	struct ctrl_start st;
	struct ctrl_done done;
	struct ctrl_progress pr;
	struct ctrl_auth au;
	struct ctrl_wqp *q = NULL;
	uint32_t cnt = 0;

	switch (t) {
	case CTRL_AUTH:
		ctrl_decode_auth(p, n, &au);
		break;
	case CTRL_QPS:
		if (!ctrl_decode_qps(p, n, &q, &cnt))
			must(cnt == 0 || q, "QPS: a count without entries");
		free(q);
		break;
	case CTRL_HELLO:
		decode_hello(p, n);
		break;
	case CTRL_ACCEPT:
		ctrl_decode(CTRL_ACCEPT, p, n, &acc);
		break;
	case CTRL_ERROR:
		if (!ctrl_decode_error(p, n, &err))
			must(memchr(err.msg, 0, sizeof(err.msg)) != NULL, "ERROR not terminated");
		break;
	case CTRL_SLICES:
		if (!ctrl_decode_slices(p, n, &s, &cnt))
			must(cnt == 0 || s, "SLICES: a count without entries");
		free(s);
		break;
	case CTRL_CANARY:
	case CTRL_VERIFY:
		if (!ctrl_decode_chunks(p, n, &c, &cnt))
			must(cnt == 0 || c, "CANARY/VERIFY: a count without entries");
		free(c);
		break;
	case CTRL_START:
		ctrl_decode(CTRL_START, p, n, &st);
		break;
	case CTRL_RESULT:
		decode_result(p, n);
		break;
	case CTRL_DONE:
		ctrl_decode(CTRL_DONE, p, n, &done);
		break;
	case CTRL_PROGRESS:
		ctrl_decode_progress(p, n, &pr);
		break;
	}
}

/*
 * A payload that decodes encodes back to the same bytes (one table says the
 * layout both ways), within its type's limit.
 */
static void round_trip(unsigned t, const uint8_t *p, size_t n)
{
	size_t most = sizeof(struct ctrl_accept) > sizeof(struct ctrl_error)
			      ? sizeof(struct ctrl_accept)
			      : sizeof(struct ctrl_error);
	void *m = calloc(1, most); /* the largest message struct */
	struct ctrl_buf b = {0};

	if (m && !ctrl_decode(t, p, n, m)) {
		must(ctrl_encode(&b, t, m) == 0, "a decoded message does not encode");
		must(b.len == CTRL_HDR_LEN + n && !memcmp(b.data + CTRL_HDR_LEN, p, n),
		     "a decoded message encodes to other bytes");
		must(n <= ctrl_payload_max(t) && n >= wire_min(ctrl_layout(t)),
		     "a decoded payload outside its layout's limits");
		ctrl_release(t, m);
	}
	free(m);
	free(b.data);
}

/* The sink's side of one conversation, for session(). */
struct conv {
	unsigned step;
	bool key, verbs, full;
	uint32_t workers;
	struct ctrl_mac *mac; /* a MAC'd conversation: the sink's MACs */
	uint64_t taken;
};

/* The judge on what the sink took: the QPS list, the tables, the RESULT. */
static void judge(struct conv *cv, unsigned type, const uint8_t *p, uint32_t n)
{
	static const double gbits[2] = {100, 0};
	static const int wport[CTRL_MAX_WORKERS];
	struct judge_frame f = {.workers = cv->workers,
				.duration_s = 10,
				.nports = 2,
				.port_gbits = gbits,
				.wport = wport};
	struct ctrl_chunk *c = NULL;
	struct ctrl_wqp *q = NULL;
	struct ctrl_result r;
	struct ctrl_hello h;
	uint32_t cnt = 0;
	char why[256];
	uint64_t bytes;
	double sec;

	if (type == CTRL_HELLO && !ctrl_decode_hello(p, n, &h)) {
		must(h.workers >= 1 && h.workers <= CTRL_MAX_WORKERS,
		     "HELLO: workers out of range");
		cv->workers = h.workers;
	} else if (type == CTRL_QPS && !ctrl_decode_qps(p, n, &q, &cnt)) {
		must(judge_qps_refused(q, cnt, cv->workers, 2, why, sizeof(why)) ||
			     (cnt == cv->workers && cnt > 0),
		     "QPS: a count other than the workers' passed");
	} else if ((type == CTRL_CANARY || type == CTRL_VERIFY) &&
		   !ctrl_decode_chunks(p, n, &c, &cnt)) {
		must(judge_table_refused(c, cnt, cv->workers, 8, why, sizeof(why)) ||
			     cnt <= cv->workers * 8,
		     "VERIFY: a table past workers x slots passed");
	} else if (type == CTRL_RESULT && !ctrl_decode_result(p, n, &r)) {
		judge_result_refused(&r, &f, why, sizeof(why));
		if (judge_rdma_from(&r, false, NULL, 10, 100, &bytes, &sec) != RDMA_FROM_NONE)
			must(r.ok, "RESULT: ok=0 gave a figure");
		ctrl_result_free(&r);
	}
	free(q);
	free(c);
}

static int take(void *ctx, unsigned type, const void *p, uint32_t n)
{
	struct conv *cv = ctx;
	unsigned prev;

	must((ctrl_step_allows(cv->step) >> type) & 1, "session: a message out of its phase");
	must(n <= ctrl_payload_max(type), "session: a payload past its limit");
	if (cv->mac)
		must(cv->mac->rx_seq == ++cv->taken, "mac: a message handed over unchecked");
	if (cv->step <= CTRL_STEP_HELLO)
		must(n == ctrl_fixed_len(type), "door: a message off its exact size");
	decode(type, p, n);
	judge(cv, type, p, n);
	prev = cv->step;
	cv->step = ctrl_step_sink_next(cv->step, type, cv->key, cv->verbs, cv->full);
	/* Another phase: stop the pump, its caller sets the next phase's in.allow. */
	return cv->step == CTRL_STEP_END ? 1 : cv->step != prev ? 2 : 0;
}

/* The MACs of both ends of the fuzzed keyed sessions: one key, fixed nonces. */
static void fuzz_macs(struct ctrl_mac *src, struct ctrl_mac *snk)
{
	struct auth_key k = {.key = "fuzz: a pre-shared key", .len = 22};
	uint8_t ns[CTRL_NONCE_LEN] = {1}, nk[CTRL_NONCE_LEN] = {2};

	must(!ctrl_mac_start(src, &k, ns, nk, CTRL_BY_SOURCE) &&
		     !ctrl_mac_start(snk, &k, ns, nk, CTRL_BY_SINK),
	     "mac: no keys");
}

/* Write p[0..n) to fd, each message (cut at its header's length) sealed with mac. */
static void write_sealed(int fd, struct ctrl_mac *mac, const uint8_t *p, size_t n)
{
	while (n >= CTRL_HDR_LEN) {
		size_t len = (size_t)p[8] << 24 | (size_t)p[9] << 16 | (size_t)p[10] << 8 | p[11];
		struct ctrl_buf b = {0};

		if (len > n - CTRL_HDR_LEN)
			len = n - CTRL_HDR_LEN;
		ctrl_put_bytes(&b, p, CTRL_HDR_LEN + len);
		if (!b.nomem && !ctrl_mac_seal(mac, &b) && write(fd, b.data, b.len) < 0)
			n = CTRL_HDR_LEN + len;
		free(b.data);
		p += CTRL_HDR_LEN + len;
		n -= CTRL_HDR_LEN + len;
	}
}

/* A conversation: the bytes a source sends, through the sink's side of a session. */
static void session(uint8_t sel, const uint8_t *p, size_t n)
{
	struct conv cv = {.key = sel & 1, .verbs = sel & 2, .full = sel & 4, .workers = 1};
	struct ctrl_mac src, snk;
	struct ctrl_inbox in = {0};
	int sv[2], rounds = 0, rc = 0, sz = 1 << 20;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (sel < 0xf0) { /* after a keyed AUTH: MAC'd from HELLO on */
		fuzz_macs(&src, &snk);
		cv = (struct conv){.key = true,
				   .verbs = sel & 2,
				   .full = sel & 4,
				   .workers = 1,
				   .step = CTRL_STEP_HELLO,
				   .mac = &snk};
		in.mac = &snk;
	}
	if (sel < 0xf0 && (sel & 8))
		write_sealed(sv[1], &src, p, n);
	else if (write(sv[1], p, n) < 0)
		n = 0;
	close(sv[1]);
	while ((!rc || rc == 2) && rounds++ < 1000) {
		in.allow = ctrl_step_allows(cv.step);
		rc = ctrl_inbox_pump(&in, sv[0], 16, take, &cv, NULL);
	}
	must(rc != 0, "session: the stream never ended");
	ctrl_inbox_reset(&in);
	close(sv[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned type, version;
	uint32_t len;

	if (size < 1)
		return 0;
	if (data[0] >= 0xe0) {
		session(data[0], data + 1, size - 1);
		return 0;
	}
	if (data[0] == 0) {
		if (size > CTRL_HDR_LEN)
			ctrl_parse_header(data + 1, &type, &len, &version);
	} else if (data[0] <= CTRL_TYPE_MAX) {
		decode(data[0], data + 1, size - 1);
		round_trip(data[0], data + 1, size - 1);
	} else if (size >= 1 + CTRL_HDR_LEN &&
		   !ctrl_parse_header(data + 1, &type, &len, &version)) {
		must(type >= 1 && type <= CTRL_TYPE_MAX, "header: a type out of range accepted");
		must(len <= CTRL_MAX_PAYLOAD, "header: a length over the limit accepted");
		if (len == size - 1 - CTRL_HDR_LEN)
			decode(type, data + 1 + CTRL_HDR_LEN, len);
	}
	return 0;
}

/* ---- the seed corpus: every message encoded validly ----------------------- */

static int save(const char *dir, const char *name, const struct ctrl_buf *b, int rc)
{
	char path[4096];
	uint8_t whole = 0xff;
	FILE *f;

	if (rc)
		return rc;
	/* As a whole message (selector 0xff), and as a bare payload (selector = type). */
	snprintf(path, sizeof(path), "%s/msg-%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(&whole, 1, 1, f);
	fwrite(b->data, 1, b->len, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/payload-%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(&b->data[7], 1, 1, f); /* the type's low byte (big-endian u16 at 6) */
	fwrite(b->data + CTRL_HDR_LEN, 1, b->len - CTRL_HDR_LEN, f);
	fclose(f);
	free(b->data);
	return 0;
}

/*
 * The same conversation after a keyed AUTH, from HELLO: sealed by the
 * source's MACs (selector 0xe6), and as plain messages for the harness to
 * seal (0xee).
 */
static int save_mac_sessions(const char *dir, const struct ctrl_hello *h, const struct ctrl_wqp *q,
			     const struct ctrl_chunk *c, const struct ctrl_progress *pr,
			     const struct ctrl_result *r)
{
	static const uint8_t sel[2] = {0xe6, 0xee};
	static const char *const name[2] = {"session-mac-sealed", "session-mac-plain"};
	struct ctrl_mac src, snk;
	struct ctrl_buf b[6];
	char path[4096];
	int rc = 0, i, k;
	FILE *f;

	for (k = 0; k < 2 && !rc; k++) {
		fuzz_macs(&src, &snk);
		rc |= ctrl_encode_hello(&b[0], h);
		rc |= ctrl_encode_qps(&b[1], q, 1);
		rc |= ctrl_encode_chunks(&b[2], CTRL_CANARY, c, 1);
		rc |= ctrl_encode_progress(&b[3], pr);
		rc |= ctrl_encode_result(&b[4], r);
		rc |= ctrl_encode_chunks(&b[5], CTRL_VERIFY, c, 1);
		for (i = 0; i < 6 && k == 0; i++)
			rc |= ctrl_mac_seal(&src, &b[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, name[k]);
		f = rc ? NULL : fopen(path, "wb");
		if (f) {
			fwrite(&sel[k], 1, 1, f);
			for (i = 0; i < 6; i++)
				fwrite(b[i].data, 1, b[i].len, f);
			fclose(f);
		}
		for (i = 0; i < 6; i++)
			free(b[i].data);
		rc |= f ? 0 : -1;
	}
	return rc;
}

/* A whole conversation of an open sink in verbs mode with --verify full (selector 0xf6). */
static int save_session(const char *dir, const struct ctrl_hello *h, const struct ctrl_wqp *q,
			const struct ctrl_chunk *c, const struct ctrl_progress *pr,
			const struct ctrl_result *r)
{
	struct ctrl_auth au = {.has_key = 0, .nonce = {7}};
	char path[4096];
	uint8_t sel = 0xf6;
	struct ctrl_buf b[7];
	int rc = 0, i;
	FILE *f;

	rc |= ctrl_encode_auth(&b[0], &au);
	rc |= ctrl_encode_hello(&b[1], h);
	rc |= ctrl_encode_qps(&b[2], q, 1);
	rc |= ctrl_encode_chunks(&b[3], CTRL_CANARY, c, 1);
	rc |= ctrl_encode_progress(&b[4], pr);
	rc |= ctrl_encode_result(&b[5], r);
	rc |= ctrl_encode_chunks(&b[6], CTRL_VERIFY, c, 1);
	snprintf(path, sizeof(path), "%s/session-verbs-full", dir);
	f = rc ? NULL : fopen(path, "wb");
	if (f) {
		fwrite(&sel, 1, 1, f);
		for (i = 0; i < 7; i++)
			fwrite(b[i].data, 1, b[i].len, f);
		fclose(f);
	}
	for (i = 0; i < 7; i++)
		free(b[i].data);
	return f ? save_mac_sessions(dir, h, q, c, pr, r) : -1;
}

int fuzz_write_corpus(const char *dir)
{
	struct ctrl_hello h = {.chunk = 1 << 20,
			       .depth = 8,
			       .workers = 2,
			       .warmup_ms = 3000,
			       .duration_ms = 20000,
			       .verify = CTRL_VERIFY_CANARY,
			       .source = CTRL_SOURCE_DISK,
			       .conn = CTRL_CONN_VERBS};
	static struct ctrl_accept a = {.session = 0x0123456789abcdefull, .nports = 2};
	struct ctrl_slice s[2] = {{.addr = 0x7f0000000000ull,
				   .len = 1 << 30,
				   .rkey = 0x1234,
				   .qp = {.lid = 1, .qpn = 0x11, .psn = 0x22, .mtu = 3}},
				  {.addr = 0x7f0040000000ull, .len = 1 << 30, .rkey = 0x5678}};
	struct ctrl_wqp q[2] = {{.sink_port = 0,
				 .dev = "mlx5_0",
				 .port = 1,
				 .qp = {.lid = 2, .qpn = 0x33, .psn = 0x44, .mtu = 5}},
				{.sink_port = 1, .dev = "rxe1", .port = 1}};
	struct ctrl_rail rl[1] = {{"mlx5_0", 1, 0, 2, 1ull << 32, 400000}};
	struct ctrl_auth au = {.has_key = 1, .nonce = {1, 2, 3}, .mac = {9}};
	struct ctrl_chunk c[2] = {{0, 3, 1 << 20, 1 << 20, 0xdeadbeefull},
				  {1, 7, 9 << 20, 1 << 20, 0xfeedfaceull}};
	struct ctrl_start st = {3000, 20000, 1000};
	struct ctrl_drive d[2] = {{"/dev/nvme0n1", "Fixture NVMe", 0, 1, 1ull << 32},
				  {"/dev/nvme1n1", "Fixture NVMe", 1, 1, 1ull << 32}};
	struct ctrl_result r = {.ok = 1,
				.bytes = 2ull << 32,
				.window_ns = 20000000000ull,
				.ndrives = 2,
				.drives = d,
				.nrails = 1,
				.rails = rl};
	struct ctrl_done dn = {1};
	struct ctrl_progress pr = {5000000000ull, 1ull << 32, 2000000000ull, 1ull << 31};
	struct ctrl_buf b;
	int rc = 0;

	a.ports[0] = (struct ctrl_port){
		.dev = "mlx5_0", .port = 1, .link = 1, .lid = 3, .rate_mbps = 400000, .mtu = 5};
	a.ports[1] = (struct ctrl_port){.dev = "rxe1",
					.port = 1,
					.link = 2,
					.addr = "10.77.1.1",
					.prefix_len = 24,
					.numa_node = -1,
					.mtu = 3,
					.software = 1};
	rc |= save(dir, "hello", &b, ctrl_encode_hello(&b, &h));
	rc |= save(dir, "accept", &b, ctrl_encode_accept(&b, &a));
	rc |= save(dir, "error", &b, ctrl_encode_error(&b, "sink: chunk: sink 1MiB, source 2MiB"));
	rc |= save(dir, "slices", &b, ctrl_encode_slices(&b, s, 2));
	rc |= save(dir, "canary", &b, ctrl_encode_chunks(&b, CTRL_CANARY, c, 2));
	rc |= save(dir, "verify", &b, ctrl_encode_chunks(&b, CTRL_VERIFY, c, 1));
	rc |= save(dir, "start", &b, ctrl_encode_start(&b, &st));
	rc |= save(dir, "result", &b, ctrl_encode_result(&b, &r));
	rc |= save(dir, "done", &b, ctrl_encode_done(&b, &dn));
	rc |= save(dir, "progress", &b, ctrl_encode_progress(&b, &pr));
	rc |= save(dir, "auth", &b, ctrl_encode_auth(&b, &au));
	rc |= save(dir, "qps", &b, ctrl_encode_qps(&b, q, 2));
	h.workers = 1;
	rc |= save_session(dir, &h, q, c, &pr, &r);
	return rc;
}
