// SPDX-License-Identifier: MIT
/*
 * test_lies: the sink's answers to what an admitted source may say that is
 * well-formed and false, on slices in memory, without a socket:
 *
 *	verdict:  canary and full-table entries of length 0 or of a part of the
 *	          chunk differ (a disk source's worker may name one short chunk,
 *	          not two); every worker has its canary; a table that covers
 *	          fewer slots than the RESULT's bytes filled, or none, fails
 *	figure:   a source whose RESULT says it failed gives no RDMA figure, not
 *	          its heartbeat's either
 *	text:     a peer's bidi and zero-width characters reach the terminal as
 *	          \xNN bytes and the JSON as \u escapes
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "digest.h"
#include "judge.h"
#include "nbw.h"
#include "report.h"
#include "verify.h"

#define CHUNK 8192u
#define SLOTS 5u
#define WORKERS 2u

static unsigned char dram[WORKERS * SLOTS * CHUNK];

static struct landing land(uint8_t source, uint64_t wrote)
{
	return (struct landing){.slices = dram,
				.slice_len = SLOTS * CHUNK,
				.slots = SLOTS,
				.workers = WORKERS,
				.chunk = CHUNK,
				.timeout_s = 5,
				.source = source,
				.wrote = wrote};
}

/* The entry of worker w's slot s, len bytes of it, as an honest source would send it. */
static struct ctrl_chunk entry(uint32_t w, uint32_t s, uint64_t offset, uint32_t len)
{
	const unsigned char *p = dram + (uint64_t)w * SLOTS * CHUNK + (uint64_t)s * CHUNK;

	return (struct ctrl_chunk){.worker = w,
				   .slot = s,
				   .offset = offset,
				   .len = len,
				   .digest = len ? digest_add(0, offset, p, len) : 0};
}

static void canary(void)
{
	struct landing mem = land(CTRL_SOURCE_MEM, 0), disk = land(CTRL_SOURCE_DISK, 0);
	struct ctrl_chunk c[2] = {entry(0, 0, 0, 0), entry(1, 0, 1 << 20, 0)};
	struct verdict_note v;

	printf("verdict: the canary\n");
	/* Length 0, digest 0: "matched" whatever landed. */
	verify_canary(&mem, CTRL_VERIFY_CANARY, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "2 of 2 canary chunks differ, first: worker 0; 2 not a whole chunk");
	/* Part of a chunk: never from a memory source; from a drive, its region's end. */
	c[0] = entry(0, 0, 0, 4096);
	c[1] = entry(1, 0, 1 << 20, CHUNK);
	verify_canary(&mem, CTRL_VERIFY_CANARY, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "1 of 2 canary chunks differ, first: worker 0; 1 not a whole chunk");
	verify_canary(&disk, CTRL_VERIFY_CANARY, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_PASS);
	/* As many entries as workers, worker 0's twice: worker 1's canary was never compared. */
	c[1] = entry(0, 0, 0, 4096);
	dram[SLOTS * CHUNK + 7] ^= 0xff;
	verify_canary(&disk, CTRL_VERIFY_CANARY, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "no canary of worker 1 at its slot 0 among 2 for 2 workers");
	dram[SLOTS * CHUNK + 7] ^= 0xff;
	/* A canary named at a ring slot is not its canary. */
	c[0] = entry(0, 0, 0, CHUNK);
	c[1] = entry(1, 2, 1 << 20, CHUNK);
	verify_canary(&mem, CTRL_VERIFY_CANARY, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "no canary of worker 1 at its slot 0 among 2 for 2 workers");
}

static void full(void)
{
	struct landing mem = land(CTRL_SOURCE_MEM, 0), disk = land(CTRL_SOURCE_DISK, 0);
	struct ctrl_chunk c[4] = {entry(0, 1, 0, CHUNK), entry(0, 2, 8192, CHUNK),
				  entry(1, 1, 4096, CHUNK), entry(1, 2, 1 << 20, CHUNK)};
	struct verdict_note v = {.verdict = VERDICT_PASS};

	printf("verdict: the full table\n");
	verify_full(&mem, c, 4, 2, NULL, &v);
	CHECK_STR(v.detail, "2 canary chunks and 4 slice slots match");
	/* Length 0 at worker 0 slot 2. */
	c[1] = entry(0, 2, 8192, 0);
	verify_full(&mem, c, 4, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail,
		  "canaries match; 1 of 4 slice slots differ, first: worker 0 slot 2; 1 not a "
		  "whole chunk");
	/* A drive's worker: one short chunk (its region's last) in two slots, then a second. */
	v.verdict = VERDICT_PASS;
	c[0] = entry(0, 1, 40960, 4096);
	c[1] = entry(0, 2, 40960, 4096);
	verify_full(&disk, c, 4, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_PASS);
	c[1] = entry(0, 2, 8192, 4096);
	verify_full(&disk, c, 4, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail,
		  "canaries match; 2 of 4 slice slots differ, first: worker 0 slot 1; 2 not a "
		  "whole chunk");
}

static void coverage(void)
{
	struct ctrl_chunk c[4] = {entry(0, 1, 0, CHUNK), entry(0, 2, 8192, CHUNK),
				  entry(1, 1, 4096, CHUNK), entry(1, 2, 1 << 20, CHUNK)};
	struct landing l = land(CTRL_SOURCE_MEM, 0);
	struct verdict_note v = {.verdict = VERDICT_PASS};

	printf("verdict: the table covers what the RESULT wrote\n");
	/* An empty table compares nothing: a failure, not "0 slice slots match". */
	verify_full(&l, c, 0, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail,
		  "canaries match; the slot table covers 0 slots, its RESULT says at least 1 "
		  "were written");
	/* 3 whole chunks and a part written: 4 slots, at most a worker's ring of 4 (slots 1-4). */
	v.verdict = VERDICT_PASS;
	l.wrote = 3 * CHUNK + 1;
	verify_full(&l, c, 3, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail,
		  "canaries match; the slot table covers 3 slots, its RESULT says at least 4 "
		  "were written");
	v.verdict = VERDICT_PASS;
	verify_full(&l, c, 4, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_PASS);
	/* A terabyte written: the ring's 4 slots bound it (they may all be one worker's). */
	l.wrote = 1ULL << 40;
	verify_full(&l, c, 4, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_PASS);
	verify_full(&l, c, 2, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
}

static void figure(void)
{
	struct ctrl_result res = {.ok = 0, .bytes = 30000000000ULL, .window_ns = 10000000000ULL};
	struct ctrl_progress hb = {.elapsed_ns = 11000000000ULL,
				   .bytes = 21000000000ULL,
				   .window_ns = 10000000000ULL,
				   .window_bytes = 20000000000ULL};
	uint64_t bytes = 1;
	double sec = 1;

	printf("figure: a failed source's heartbeat\n");
	CHECK(judge_rdma_from(&res, false, &hb, 10, 200, &bytes, &sec) == RDMA_FROM_NONE);
	CHECK_U64(bytes, 0);
	/* No RESULT at all (the connection went): the checked heartbeat is the figure. */
	CHECK(judge_rdma_from(NULL, false, &hb, 10, 200, &bytes, &sec) == RDMA_FROM_HEARTBEAT);
	CHECK_U64(bytes, 20000000000ULL);
}

static void text(void)
{
	char out[128], *json = NULL;
	size_t jlen = 0;
	FILE *f;

	printf("text: bidi and zero-width characters of a peer\n");
	/* RIGHT-TO-LEFT OVERRIDE (U+202E) would show "mlx5_0" reversed after it. */
	CHECK_STR(nbw_printable("ok\342\200\2560_5xlm", out, sizeof(out)),
		  "ok\\xe2\\x80\\xae0_5xlm");
	/* ZERO WIDTH SPACE, WORD JOINER, BOM, FIRST STRONG ISOLATE, ARABIC LETTER MARK. */
	CHECK_STR(nbw_printable("a\342\200\213b\342\201\240c\357\273\277d", out, sizeof(out)),
		  "a\\xe2\\x80\\x8bb\\xe2\\x81\\xa0c\\xef\\xbb\\xbfd");
	CHECK_STR(nbw_printable("\342\201\250x\330\234", out, sizeof(out)),
		  "\\xe2\\x81\\xa8x\\xd8\\x9c");
	/* A soft hyphen, the line separator, a tag character (U+E0041). */
	CHECK_STR(nbw_printable("\xc2\xad\xe2\x80\xa8\xf3\xa0\x81\x81", out, sizeof(out)),
		  "\\xc2\\xad\\xe2\\x80\\xa8\\xf3\\xa0\\x81\\x81");
	/* Text around them, and letters of right-to-left scripts themselves, stay. */
	CHECK_STR(nbw_printable("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xc3\xa9", out, sizeof(out)),
		  "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xc3\xa9");
	f = open_memstream(&json, &jlen);
	CHECK(f != NULL);
	if (!f)
		return;
	json_write_string(f, "a\342\200\256b\363\240\201\201\303\251");
	fclose(f);
	CHECK_STR(json, "\"a\\u202eb\\udb40\\udc41\xc3\xa9\"");
	free(json);
}

int main(void)
{
	unsigned i;

	nbw_set_prog("test_lies");
	for (i = 0; i < sizeof(dram); i++)
		dram[i] = (unsigned char)(i * 131 + (i >> 9));
	canary();
	full();
	coverage();
	figure();
	text();
	return check_done("test_lies");
}
