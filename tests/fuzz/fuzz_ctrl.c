// SPDX-License-Identifier: MIT
/*
 * fuzz_ctrl.c: fuzz target for every decoder of the control protocol
 * (common/ctrl.c). The first byte chooses what reads the rest:
 *	0           ctrl_parse_header (12 bytes)
 *	1 .. 10     the payload decoder of that message type (HELLO .. PROGRESS;
 *	            CANARY and VERIFY share ctrl_decode_chunks)
 *	11 (or more) a whole message: header, then its payload's decoder when
 *	            the header is good and the length matches
 * A decoded HELLO is also compared with a sink's parameters, and strings
 * must come back NUL-terminated within their buffers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"

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
		ctrl_decode_accept(p, n, &acc);
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
		ctrl_decode_start(p, n, &st);
		break;
	case CTRL_RESULT:
		decode_result(p, n);
		break;
	case CTRL_DONE:
		ctrl_decode_done(p, n, &done);
		break;
	case CTRL_PROGRESS:
		ctrl_decode_progress(p, n, &pr);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned type, version;
	uint32_t len;

	if (size < 1)
		return 0;
	if (data[0] == 0) {
		if (size > CTRL_HDR_LEN)
			ctrl_parse_header(data + 1, &type, &len, &version);
	} else if (data[0] <= CTRL_TYPE_MAX) {
		decode(data[0], data + 1, size - 1);
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
	return rc;
}
