/* SPDX-License-Identifier: MIT */
/*
 * lathist.h: a latency histogram with bounded memory and no allocation, for
 * one reader's completion latencies (nanoseconds), merged at the end.
 *
 * Log-linear buckets: values below LATHIST_LINEAR (256 ns) each have their
 * own bucket; above, every power of two is cut into LATHIST_SUB (128) equal
 * buckets, so a bucket is at most 1/128 (0.8%) of its values wide. Values
 * from 2^LATHIST_MAX_EXP ns (about 4.9 hours) up land in the last bucket.
 * min, max, count and the sum (for the mean) are kept exactly beside the
 * counts. A percentile is the highest value of the bucket holding that rank
 * (never below the true value, at most 0.8% above it), clamped to [min, max].
 * Recording is a few shifts and one increment; the struct is about 38 KiB
 * and may live in a calloc'd worker (all zero is an empty histogram).
 */
#ifndef NBW_LATHIST_H
#define NBW_LATHIST_H

#include <stdint.h>

#define LATHIST_LINEAR_BITS 8
#define LATHIST_LINEAR (1u << LATHIST_LINEAR_BITS)
#define LATHIST_SUB (LATHIST_LINEAR / 2)
#define LATHIST_MAX_EXP 44
#define LATHIST_BUCKETS (LATHIST_LINEAR + (LATHIST_MAX_EXP - LATHIST_LINEAR_BITS) * LATHIST_SUB)

struct lathist {
	uint64_t count;
	uint64_t sum; /* ns; wraps only after 584 years of latency */
	uint64_t min, max;
	uint64_t bucket[LATHIST_BUCKETS];
};

/* The percentiles every report shows, in this order. */
#define LATHIST_NPCT 5
extern const double lathist_pcts[LATHIST_NPCT];		 /* 50, 90, 99, 99.9, 99.99 */
extern const char *const lathist_pct_keys[LATHIST_NPCT]; /* "p50", ..., "p99.99" */

/* Bucket index of a value, and the lowest and highest value of a bucket. */
unsigned lathist_bucket(uint64_t ns);
uint64_t lathist_bucket_low(unsigned b);
uint64_t lathist_bucket_high(unsigned b);

static inline void lathist_record(struct lathist *h, uint64_t ns)
{
	if (!h->count || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->count++;
	h->sum += ns;
	h->bucket[lathist_bucket(ns)]++;
}

/* dst += src. */
void lathist_merge(struct lathist *dst, const struct lathist *src);
/* The value at percentile pct (0 < pct <= 100), ns; 0 for an empty histogram. */
uint64_t lathist_percentile(const struct lathist *h, double pct);
/* Mean in ns; NAN for an empty histogram. */
double lathist_mean(const struct lathist *h);

#endif
