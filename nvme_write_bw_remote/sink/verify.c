// SPDX-License-Identifier: MIT
/*
 * verify.c: the checks of what landed (see verify.h). A table entry that
 * cannot be checked (a worker or slot outside the source's slices, a
 * length past the chunk, an offset off the digest's block) counts as one
 * that differs; the hashing keeps to --timeout and a signal.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "digest.h"
#include "nbw.h"
#include "timing.h"
#include "verify.h"
#include "window.h"

static const unsigned char *slot_ptr(const struct landing *l, uint32_t worker, uint32_t slot)
{
	return l->slices + (uint64_t)worker * l->slice_len + (uint64_t)slot * l->chunk;
}

/* Hash what landed at the chunks c[] describe; the count that differ. */
static uint32_t check_chunks(const struct landing *l, const struct ctrl_chunk *c, uint32_t n,
			     uint32_t *bad_worker, uint32_t *bad_slot)
{
	uint64_t deadline = nbw_now_ns() + nbw_s_to_ns(l->timeout_s);
	uint32_t i, bad = 0;

	for (i = 0; i < n; i++) {
		uint64_t got;

		/* Every 64 chunks: the clock (--timeout) and a signal end the hashing. */
		if (!(i % 64) && i && (nbw_now_ns() > deadline || nbw_interrupted())) {
			if (!bad) {
				*bad_worker = c[i].worker;
				*bad_slot = c[i].slot;
			}
			return bad + (n - i);
		}
		if (c[i].worker >= l->workers || c[i].slot >= l->slots || c[i].len > l->chunk ||
		    c[i].offset % DIGEST_BLOCK)
			got = ~c[i].digest; /* an entry that cannot be checked fails */
		else
			got = digest_add(0, c[i].offset, slot_ptr(l, c[i].worker, c[i].slot),
					 c[i].len);
		if (got != c[i].digest) {
			if (!bad) {
				*bad_worker = c[i].worker;
				*bad_slot = c[i].slot;
			}
			bad++;
		}
	}
	return bad;
}

void verify_canary(const struct landing *l, unsigned mode, const struct ctrl_chunk *c, uint32_t n,
		   struct verdict_note *v)
{
	uint32_t bw = 0, bs = 0, bad;

	if (mode == CTRL_VERIFY_OFF) {
		v->verdict = VERDICT_OFF;
		return;
	}
	bad = check_chunks(l, c, n, &bw, &bs);
	if (n != l->workers) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->detail, sizeof(v->detail), "%u canaries for %u workers", n, l->workers);
	} else if (bad) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->detail, sizeof(v->detail),
			 "%u of %u canary chunks differ, first: worker %u", bad, n, bw);
	} else {
		v->verdict = VERDICT_PASS;
		snprintf(v->detail, sizeof(v->detail), "%u canary chunks match", n);
	}
}

void verify_full(const struct landing *l, const struct ctrl_chunk *c, uint32_t n, uint32_t ncanary,
		 const char *no_table, struct verdict_note *v)
{
	uint32_t bw = 0, bs = 0, bad;

	if (no_table) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->detail, sizeof(v->detail), "no slot table from the source: %s",
			 no_table);
		return;
	}
	bad = check_chunks(l, c, n, &bw, &bs);
	if (bad) {
		snprintf(v->detail, sizeof(v->detail),
			 "%s; %u of %u slice slots differ, first: worker %u slot %u",
			 v->verdict == VERDICT_PASS ? "canaries match" : "canary", bad, n, bw, bs);
		v->verdict = VERDICT_FAIL;
	} else if (v->verdict == VERDICT_PASS) {
		snprintf(v->detail, sizeof(v->detail), "%u canary chunks and %u slice slots match",
			 ncanary, n);
	}
}

/* worker 0's slots of c[] as "slot offset length" lines. */
static void map_lines(FILE *f, const struct ctrl_chunk *c, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (c[i].worker == 0)
			fprintf(f, "%u %llu %u\n", c[i].slot, (unsigned long long)c[i].offset,
				c[i].len);
}

void verify_dump_map(const char *path, const struct ctrl_chunk *canary, uint32_t ncanary,
		     const struct ctrl_chunk *c, uint32_t n)
{
	char map[PATH_MAX];
	FILE *f;

	snprintf(map, sizeof(map), "%s.map", path);
	f = fopen(map, "w");
	if (!f)
		return;
	map_lines(f, canary, ncanary);
	map_lines(f, c, n);
	fclose(f);
}

void verify_dump_slice(const char *path, const struct landing *l)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(l->slices, 1, l->slice_len, f) != l->slice_len)
		nbw_warn("%s: %s", path, strerror(errno));
	if (f)
		fclose(f);
}
