// SPDX-License-Identifier: MIT
/*
 * test_verify: the sink's checks of what landed (nvme_write_bw_remote/
 * verify.c) on slices in memory: a canary table that matches, one that
 * differs, one of the wrong length, entries outside the slices; the full
 * table added to the canary's verdict; --verify off; the hashing's own
 * deadline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "digest.h"
#include "verify.h"

#define CHUNK 8192u
#define SLOTS 3u
#define WORKERS 2u

static unsigned char dram[WORKERS * SLOTS * CHUNK];

static const struct landing land = {.slices = dram,
				    .slice_len = SLOTS * CHUNK,
				    .slots = SLOTS,
				    .workers = WORKERS,
				    .chunk = CHUNK,
				    .timeout_s = 5};

/* The entry of worker w's slot s as the source would send it (offset: where it read). */
static struct ctrl_chunk entry(uint32_t w, uint32_t s, uint64_t offset)
{
	const unsigned char *p = dram + (uint64_t)w * SLOTS * CHUNK + (uint64_t)s * CHUNK;

	return (struct ctrl_chunk){.worker = w,
				   .slot = s,
				   .offset = offset,
				   .len = CHUNK,
				   .digest = digest_add(0, offset, p, CHUNK)};
}

static void canary(void)
{
	struct ctrl_chunk c[2] = {entry(0, 0, 0), entry(1, 0, 1 << 20)};
	struct verdict_note v = {.verdict = VERDICT_NONE};

	printf("canary\n");
	verify_canary(&land, CTRL_VERIFY_CANARY, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_PASS);
	CHECK_STR(v.detail, "2 canary chunks match");
	dram[SLOTS * CHUNK + 100] ^= 1; /* worker 1's canary differs */
	verify_canary(&land, CTRL_VERIFY_CANARY, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "1 of 2 canary chunks differ, first: worker 1");
	dram[SLOTS * CHUNK + 100] ^= 1;
	verify_canary(&land, CTRL_VERIFY_CANARY, c, 1, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "1 canaries for 2 workers");
	/* A worker past the source's own cannot be checked: it differs. */
	c[1].worker = WORKERS;
	verify_canary(&land, CTRL_VERIFY_CANARY, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "1 of 2 canary chunks differ, first: worker 2");
	verify_canary(&land, CTRL_VERIFY_OFF, c, 2, &v);
	CHECK_U64(v.verdict, VERDICT_OFF);
}

static void full(void)
{
	struct ctrl_chunk c[4] = {entry(0, 1, 0), entry(0, 2, 8192), entry(1, 1, 4096),
				  entry(1, 2, 1 << 20)};
	struct verdict_note v = {.verdict = VERDICT_PASS};

	printf("full\n");
	verify_full(&land, c, 4, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_PASS);
	CHECK_STR(v.detail, "2 canary chunks and 4 slice slots match");
	dram[2 * CHUNK + 5] ^= 0x80; /* worker 0, slot 2 */
	verify_full(&land, c, 4, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "canaries match; 1 of 4 slice slots differ, first: worker 0 slot 2");
	dram[2 * CHUNK + 5] ^= 0x80;
	/* A slot past the slice, a length past the chunk, an offset off the block: differ. */
	v.verdict = VERDICT_PASS;
	c[0].slot = SLOTS;
	c[2].len = CHUNK + 1;
	c[3].offset = 100;
	verify_full(&land, c, 4, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "canaries match; 3 of 4 slice slots differ, first: worker 0 slot 3");
	v.verdict = VERDICT_PASS;
	verify_full(&land, NULL, 0, 2, "expected VERIFY, got ERROR", &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail, "no slot table from the source: expected VERIFY, got ERROR");
}

/*
 * the hashing keeps to --timeout. With no time at all, the first 64
 * entries are hashed and every later one counts as differing; without the
 * check all 1000 would match.
 */
static void item5_deadline(void)
{
	struct landing l = land;
	struct ctrl_chunk *c = calloc(1000, sizeof(*c));
	struct verdict_note v = {.verdict = VERDICT_PASS};
	uint32_t i;

	printf("the hashing's deadline\n");
	if (!c)
		abort();
	for (i = 0; i < 1000; i++)
		c[i] = entry(i % WORKERS, i / WORKERS % SLOTS, 0);
	verify_full(&l, c, 1000, 2, NULL, &v);
	CHECK_STR(v.detail, "2 canary chunks and 1000 slice slots match");
	l.timeout_s = 0;
	v.verdict = VERDICT_PASS;
	verify_full(&l, c, 1000, 2, NULL, &v);
	CHECK_U64(v.verdict, VERDICT_FAIL);
	CHECK_STR(v.detail,
		  "canaries match; 936 of 1000 slice slots differ, first: worker 0 slot 2");
	free(c);
}

int main(void)
{
	unsigned i;

	for (i = 0; i < sizeof(dram); i++)
		dram[i] = (unsigned char)(i * 131 + (i >> 9));
	canary();
	full();
	item5_deadline();
	return check_done("test_verify");
}
