// SPDX-License-Identifier: MIT
/*
 * verify.c: the checks of what landed (see verify.h). A table entry that
 * cannot be checked (a worker or slot outside the source's slices, a
 * length past the chunk, 0 or a part of it, an offset off the digest's
 * block) counts as one that differs; the hashing keeps to --timeout and a
 * signal.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Each worker's one short chunk, as the table names it first; a second one spoils it. */
struct tails {
	struct ctrl_chunk *first; /* per worker; len 0: none seen */
	bool *spoilt;
};

/* The short entries of c[n], worker by worker (l->workers of them). 0 or -ENOMEM. */
static int tails_find(const struct landing *l, const struct ctrl_chunk *c, uint32_t n,
		      struct tails *t)
{
	uint32_t i;

	t->first = calloc(l->workers ? l->workers : 1, sizeof(*t->first));
	t->spoilt = calloc(l->workers ? l->workers : 1, sizeof(*t->spoilt));
	if (!t->first || !t->spoilt)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct ctrl_chunk *f;

		if (c[i].worker >= l->workers || !c[i].len || c[i].len >= l->chunk)
			continue;
		f = &t->first[c[i].worker];
		if (!f->len)
			*f = c[i];
		else if (f->offset != c[i].offset || f->len != c[i].len)
			t->spoilt[c[i].worker] = true;
	}
	return 0;
}

static void tails_free(struct tails *t)
{
	free(t->first);
	free(t->spoilt);
	*t = (struct tails){0};
}

/* Does e cover its slot's whole chunk (or its worker's one short chunk, from a drive)? */
static bool whole(const struct landing *l, const struct tails *t, const struct ctrl_chunk *e)
{
	if (e->len == l->chunk)
		return true;
	if (!e->len || e->len > l->chunk || l->source != CTRL_SOURCE_DISK || !t->first)
		return false;
	return e->worker < l->workers && !t->spoilt[e->worker];
}

/* What check_chunks found. */
struct tally {
	uint32_t bad;	       /* entries that differ or cannot be checked */
	uint32_t part;	       /* of them, entries that are not a whole chunk */
	uint32_t worker, slot; /* the first that differs */
};

/* Hash what landed at the chunks c[] describe; the count that differ. */
static void check_chunks(const struct landing *l, const struct ctrl_chunk *c, uint32_t n,
			 struct tally *y)
{
	uint64_t deadline = nbw_now_ns() + nbw_s_to_ns(l->timeout_s);
	struct tails t = {0};
	uint32_t i;

	*y = (struct tally){0};
	if (tails_find(l, c, n, &t))
		tails_free(&t); /* no memory: no short chunk passes */
	for (i = 0; i < n; i++) {
		bool part = c[i].len <= l->chunk && !whole(l, &t, &c[i]);
		uint64_t got;

		/* Every 64 chunks: the clock (--timeout) and a signal end the hashing. */
		if (!(i % 64) && i && (nbw_now_ns() > deadline || nbw_interrupted())) {
			if (!y->bad) {
				y->worker = c[i].worker;
				y->slot = c[i].slot;
			}
			y->bad += n - i;
			break;
		}
		if (c[i].worker >= l->workers || c[i].slot >= l->slots || c[i].len > l->chunk ||
		    part || c[i].offset % DIGEST_BLOCK)
			got = ~c[i].digest; /* an entry that cannot be checked fails */
		else
			got = digest_add(0, c[i].offset, slot_ptr(l, c[i].worker, c[i].slot),
					 c[i].len);
		if (got != c[i].digest) {
			if (!y->bad) {
				y->worker = c[i].worker;
				y->slot = c[i].slot;
			}
			y->bad++;
			y->part += part;
		}
	}
	tails_free(&t);
}

/* What the full table's words start with: the canary's verdict. */
static const char *canary_words(const struct verdict_note *v)
{
	return v->verdict == VERDICT_PASS ? "canaries match" : "canary";
}

/* "; N not a whole chunk" when some entries were parts of one, else "". */
static const char *parts_note(const struct tally *y, char *buf, size_t len)
{
	buf[0] = '\0';
	if (y->part)
		snprintf(buf, len, "; %u not a whole chunk", y->part);
	return buf;
}

/* The first worker without its canary at slot 0 in c[n]; l->workers when none. */
static uint32_t canary_missing(const struct landing *l, const struct ctrl_chunk *c, uint32_t n)
{
	bool *seen = calloc(l->workers ? l->workers : 1, sizeof(*seen));
	uint32_t i, w = 0;

	if (!seen)
		return 0; /* no memory: no verdict of PASS */
	for (i = 0; i < n; i++)
		if (c[i].worker < l->workers && !c[i].slot)
			seen[c[i].worker] = true;
	while (w < l->workers && seen[w])
		w++;
	free(seen);
	return w;
}

void verify_canary(const struct landing *l, unsigned mode, const struct ctrl_chunk *c, uint32_t n,
		   struct verdict_note *v)
{
	struct tally y;
	char note[64];
	uint32_t missing;

	if (mode == CTRL_VERIFY_OFF) {
		v->verdict = VERDICT_OFF;
		return;
	}
	check_chunks(l, c, n, &y);
	missing = canary_missing(l, c, n);
	if (n != l->workers) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->detail, sizeof(v->detail), "%u canaries for %u workers", n, l->workers);
	} else if (y.bad) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->detail, sizeof(v->detail),
			 "%u of %u canary chunks differ, first: worker %u%s", y.bad, n, y.worker,
			 parts_note(&y, note, sizeof(note)));
	} else if (missing < l->workers) {
		/* As many entries as workers, one named twice: a worker's canary unchecked. */
		v->verdict = VERDICT_FAIL;
		snprintf(v->detail, sizeof(v->detail),
			 "no canary of worker %u at its slot 0 among %u for %u workers", missing, n,
			 l->workers);
	} else {
		v->verdict = VERDICT_PASS;
		snprintf(v->detail, sizeof(v->detail), "%u canary chunks match", n);
	}
}

/*
 * The fewest slots a table can cover when the window wrote l->wrote bytes:
 * as many chunks, at most a worker's ring (they may all be one worker's),
 * and at least one: a table of nothing compares nothing.
 */
static uint32_t slots_written(const struct landing *l)
{
	uint64_t ring = (l->slots < CTRL_FULL_RING_MAX + 1 ? l->slots : CTRL_FULL_RING_MAX + 1);
	uint64_t chunks = l->chunk ? l->wrote / l->chunk + (l->wrote % l->chunk != 0) : 0;

	ring = ring > 1 ? ring - 1 : 1;
	if (chunks > ring)
		chunks = ring;
	return chunks ? (uint32_t)chunks : 1;
}

void verify_full(const struct landing *l, const struct ctrl_chunk *c, uint32_t n, uint32_t ncanary,
		 const char *no_table, struct verdict_note *v)
{
	uint32_t least = slots_written(l);
	struct tally y;
	char note[64];

	if (no_table) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->detail, sizeof(v->detail), "no slot table from the source: %s",
			 no_table);
		return;
	}
	if (n < least) {
		snprintf(v->detail, sizeof(v->detail),
			 "%s; the slot table covers %u slots, its RESULT says at least %u were "
			 "written",
			 canary_words(v), n, least);
		v->verdict = VERDICT_FAIL;
		return;
	}
	check_chunks(l, c, n, &y);
	if (y.bad) {
		snprintf(v->detail, sizeof(v->detail),
			 "%s; %u of %u slice slots differ, first: worker %u slot %u%s",
			 canary_words(v), y.bad, n, y.worker, y.slot,
			 parts_note(&y, note, sizeof(note)));
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
