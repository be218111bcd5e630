// SPDX-License-Identifier: MIT
/*
 * test_randoff.c: the readers' random offsets (common/base/rng.c, region.c):
 * every offset chunk-aligned, block-aligned and with its whole chunk inside
 * the region; uniform over 10^5 draws (chi-square over 16 bins, and every
 * slot of a small region drawn); one seed and stream give one sequence,
 * another seed or stream another; a region smaller than a chunk.
 */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "region.h"

#define DRAWS 100000
#define BINS 16

/*
 * Chi-square of DRAWS offsets over BINS equal parts of the slots. With 15
 * degrees of freedom the 99.99th percentile is about 44; a generator that
 * favours part of the region (say, modulo of a small range, or only even
 * slots) lands in the thousands.
 */
static double chi_square(struct rand_offsets *ro)
{
	uint64_t bins[BINS] = {0};
	double e = (double)DRAWS / BINS, chi = 0;
	int i;

	for (i = 0; i < DRAWS; i++) {
		uint64_t k = (rand_offsets_next(ro) - ro->base) / ro->chunk;

		bins[k * BINS / ro->count]++;
	}
	for (i = 0; i < BINS; i++)
		chi += ((double)bins[i] - e) * ((double)bins[i] - e) / e;
	return chi;
}

static void aligned_inside(void)
{
	/* a region as region_split() makes them: 4 KiB aligned, not 1 MiB aligned */
	struct region reg = {.start = 3 * 4096 + (5ULL << 20), .len = (1ULL << 30) + 4096};
	uint64_t chunk = 1 << 20, bad = 0, lo = UINT64_MAX, hi = 0;
	struct rand_offsets ro;
	int i;

	CHECK(rand_offsets_init(&ro, reg, chunk, 1, 0) == 0);
	CHECK_U64(ro.base, 6ULL << 20); /* the first 1 MiB boundary inside */
	CHECK_U64(ro.count, 1024 - 1);	/* whole chunks between 6 MiB and the end */
	for (i = 0; i < DRAWS; i++) {
		uint64_t off = rand_offsets_next(&ro);

		if (off % chunk || off % 4096 || off < reg.start ||
		    off + chunk > reg.start + reg.len)
			bad++;
		lo = off < lo ? off : lo;
		hi = off > hi ? off : hi;
	}
	CHECK_U64(bad, 0);
	CHECK_U64(lo, ro.base); /* 10^5 draws over 1023 slots reach both ends */
	CHECK_U64(hi, ro.base + (ro.count - 1) * chunk);
	CHECK(rand_offsets_init(&ro, (struct region){0, 0}, chunk, 1, 0) == -EINVAL);
	CHECK(rand_offsets_init(&ro, reg, 0, 1, 0) == -EINVAL);
}

static void uniform(void)
{
	struct region reg = {.start = 0, .len = 10ULL << 30};
	struct rand_offsets ro;
	uint64_t seen[37] = {0}, missing = 0;
	double chi;
	int i;

	CHECK(rand_offsets_init(&ro, reg, 4096, 7, 3) == 0);
	CHECK_U64(ro.count, (10ULL << 30) / 4096);
	chi = chi_square(&ro);
	if (chi >= 44)
		fprintf(stderr, "chi-square %.1f over %d bins\n", chi, BINS);
	CHECK(chi < 44);
	/* a small region: 37 slots, each drawn about 2700 times */
	CHECK(rand_offsets_init(&ro, (struct region){0, 37 * 8192}, 8192, 7, 0) == 0);
	for (i = 0; i < DRAWS; i++)
		seen[rand_offsets_next(&ro) / 8192]++;
	for (i = 0; i < 37; i++)
		missing += seen[i] < DRAWS / 37 * 9 / 10 || seen[i] > DRAWS / 37 * 11 / 10;
	CHECK_U64(missing, 0);
}

/* The bound is not vacuous: a biased sequence (the slot squared, scaled) fails it. */
static void bound_bites(void)
{
	uint64_t bins[BINS] = {0};
	double e = (double)DRAWS / BINS, chi = 0;
	struct rng g;
	int i;

	rng_seed(&g, 1, 0);
	for (i = 0; i < DRAWS; i++) {
		uint64_t x = rng_below(&g, 1000);

		bins[x * x / 1000 * BINS / 1000]++;
	}
	for (i = 0; i < BINS; i++)
		chi += ((double)bins[i] - e) * ((double)bins[i] - e) / e;
	CHECK(chi > 44);
}

static void repeatable(void)
{
	struct region reg = {.start = 1 << 20, .len = 1ULL << 34};
	struct rand_offsets a, b, c, d;
	uint64_t same_ab = 0, same_ac = 0, same_ad = 0;
	int i;

	rand_offsets_init(&a, reg, 4096, 42, 5);
	rand_offsets_init(&b, reg, 4096, 42, 5);
	rand_offsets_init(&c, reg, 4096, 43, 5); /* another seed */
	rand_offsets_init(&d, reg, 4096, 42, 6); /* another reader */
	for (i = 0; i < 1000; i++) {
		uint64_t x = rand_offsets_next(&a);

		same_ab += x == rand_offsets_next(&b);
		same_ac += x == rand_offsets_next(&c);
		same_ad += x == rand_offsets_next(&d);
	}
	CHECK_U64(same_ab, 1000);
	CHECK(same_ac < 5);
	CHECK(same_ad < 5);
}

/* A region holding no whole aligned chunk: its start, the read clipped by the reader. */
static void small_region(void)
{
	struct rand_offsets ro;

	CHECK(rand_offsets_init(&ro, (struct region){4096, 8192}, 1 << 20, 1, 0) == 0);
	CHECK_U64(ro.base, 4096);
	CHECK_U64(ro.count, 1);
	CHECK_U64(rand_offsets_next(&ro), 4096);
	/* exactly one aligned chunk */
	CHECK(rand_offsets_init(&ro, (struct region){1 << 20, 1 << 20}, 1 << 20, 1, 0) == 0);
	CHECK_U64(ro.base, 1 << 20);
	CHECK_U64(ro.count, 1);
}

int main(void)
{
	aligned_inside();
	uniform();
	bound_bites();
	repeatable();
	small_region();
	return check_done("test_randoff");
}
