// SPDX-License-Identifier: MIT
/* lathist.c: the log-linear latency histogram (see lathist.h). */
#include <math.h>

#include "lathist.h"

const double lathist_pcts[LATHIST_NPCT] = {50, 90, 99, 99.9, 99.99};
const char *const lathist_pct_keys[LATHIST_NPCT] = {"p50", "p90", "p99", "p99.9", "p99.99"};

unsigned lathist_bucket(uint64_t ns)
{
	unsigned msb, shift;

	if (ns < LATHIST_LINEAR)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns);
	if (msb >= LATHIST_MAX_EXP)
		return LATHIST_BUCKETS - 1;
	/* ns >> shift keeps the top LATHIST_LINEAR_BITS bits: SUB..2*SUB-1. */
	shift = msb - (LATHIST_LINEAR_BITS - 1);
	return LATHIST_LINEAR + (shift - 1) * LATHIST_SUB + (unsigned)(ns >> shift) - LATHIST_SUB;
}

uint64_t lathist_bucket_low(unsigned b)
{
	unsigned shift;

	if (b < LATHIST_LINEAR)
		return b;
	shift = (b - LATHIST_LINEAR) / LATHIST_SUB + 1;
	return (uint64_t)(LATHIST_SUB + (b - LATHIST_LINEAR) % LATHIST_SUB) << shift;
}

uint64_t lathist_bucket_high(unsigned b)
{
	if (b + 1 >= LATHIST_BUCKETS)
		return UINT64_MAX;
	return lathist_bucket_low(b + 1) - 1;
}

void lathist_merge(struct lathist *dst, const struct lathist *src)
{
	unsigned b;

	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (b = 0; b < LATHIST_BUCKETS; b++)
		dst->bucket[b] += src->bucket[b];
}

uint64_t lathist_percentile(const struct lathist *h, double pct)
{
	uint64_t rank, seen = 0, v;
	unsigned b;

	if (!h->count)
		return 0;
	/* The smallest value with at least pct % of the values at or below it. */
	/* (less a hair, so that 99.9 % of 1000 is rank 999 despite rounding) */
	rank = (uint64_t)ceil(pct / 100.0 * (double)h->count - 1e-9);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (b = 0; b < LATHIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank)
			break;
	}
	v = lathist_bucket_high(b);
	if (v > h->max)
		v = h->max;
	return v < h->min ? h->min : v;
}

double lathist_mean(const struct lathist *h)
{
	return h->count ? (double)h->sum / (double)h->count : NAN;
}
