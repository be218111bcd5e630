// SPDX-License-Identifier: MIT
/*
 * test_lathist.c: the latency histogram (common/base/lathist.c): bucket bounds
 * that tile the range without gaps, exact percentiles of values at bucket
 * bounds, min/max/mean exact, the 0.8% bound elsewhere, and that merging two
 * histograms gives the histogram of the union.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "lathist.h"

static struct lathist a, b, u, m;

/* Every bucket starts right after the previous one ends, and values map back. */
static void bounds(void)
{
	unsigned k, bad = 0;

	CHECK_U64(lathist_bucket_low(0), 0);
	for (k = 1; k < LATHIST_BUCKETS; k++) {
		if (lathist_bucket_low(k) != lathist_bucket_high(k - 1) + 1)
			bad++;
		if (lathist_bucket(lathist_bucket_low(k)) != k ||
		    lathist_bucket(lathist_bucket_high(k - 1)) != k - 1)
			bad++;
	}
	CHECK_U64(bad, 0);
	CHECK_U64(lathist_bucket(255), 255);
	CHECK_U64(lathist_bucket(256), 256);
	CHECK_U64(lathist_bucket(257), 256); /* 256..257 share a bucket of width 2 */
	CHECK_U64(lathist_bucket_high(256), 257);
	CHECK_U64(lathist_bucket_low(384), 512);
	CHECK_U64(lathist_bucket(1ULL << 50), LATHIST_BUCKETS - 1);
	CHECK_U64(lathist_bucket_high(LATHIST_BUCKETS - 1), UINT64_MAX);
}

/*
 * 100 values, each the highest of its bucket: 1..10 us in 1 us steps ten
 * times over. Percentiles are then exact: p50 is the 50th value in order.
 */
static void exact(void)
{
	uint64_t v[100], sum = 0;
	int i;

	memset(&a, 0, sizeof(a));
	for (i = 0; i < 100; i++) {
		v[i] = lathist_bucket_high(lathist_bucket((uint64_t)(i % 10 + 1) * 1000));
		lathist_record(&a, v[i]);
		sum += v[i];
	}
	CHECK_U64(a.count, 100);
	CHECK_U64(a.min, v[0]);
	CHECK_U64(a.max, v[9]);
	CHECK(fabs(lathist_mean(&a) - (double)sum / 100) < 1e-9);
	/* sorted: v[0] x10, v[1] x10, ... so rank r is v[(r - 1) / 10] */
	CHECK_U64(lathist_percentile(&a, 50), v[4]);
	CHECK_U64(lathist_percentile(&a, 51), v[5]);
	CHECK_U64(lathist_percentile(&a, 90), v[8]);
	CHECK_U64(lathist_percentile(&a, 99), v[9]);
	CHECK_U64(lathist_percentile(&a, 99.99), v[9]);
	CHECK_U64(lathist_percentile(&a, 100), v[9]);
	CHECK_U64(lathist_percentile(&a, 0.5), v[0]);
	CHECK(v[4] >= 5000 && v[4] < 5000 * 1.008);
}

/* 1000 values 1..1000 ns: p99.9 is the 999th, through the rounding of 99.9 %. */
static void ranks(void)
{
	uint64_t x;

	memset(&a, 0, sizeof(a));
	for (x = 1; x <= 1000; x++)
		lathist_record(&a, x);
	CHECK_U64(lathist_percentile(&a, 99.9), lathist_bucket_high(lathist_bucket(999)));
	CHECK_U64(lathist_percentile(&a, 50), 501); /* 500 shares the bucket 500..501 */
	CHECK_U64(lathist_percentile(&a, 10), 100); /* exact below 256 ns */
	CHECK_U64(lathist_percentile(&a, 100), 1000);
	CHECK_U64(a.sum, 500500);
}

/* Random values: every percentile within 1/128 above the true one; merge == union. */
static void random_and_merge(void)
{
	static uint64_t v[20000];
	uint64_t seed = 12345, bad = 0;
	int i, k;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&u, 0, sizeof(u));
	for (i = 0; i < 20000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		v[i] = (seed >> 33) % 5000000 + 50; /* 50 ns .. 5 ms */
		lathist_record(i % 3 ? &a : &b, v[i]);
		lathist_record(&u, v[i]);
	}
	m = a;
	lathist_merge(&m, &b);
	CHECK(memcmp(&m, &u, sizeof(m)) == 0);
	CHECK_U64(m.count, 20000);
	/* the reverse order and an empty side give the same */
	memset(&m, 0, sizeof(m));
	lathist_merge(&m, &b);
	lathist_merge(&m, &a);
	CHECK(memcmp(&m, &u, sizeof(m)) == 0);
	for (k = 0; k < LATHIST_NPCT; k++) {
		uint64_t got = lathist_percentile(&u, lathist_pcts[k]);
		unsigned below = 0;

		/* at least pct % of the values are <= got, within the bucket bound */
		for (i = 0; i < 20000; i++)
			below += v[i] <= got;
		if ((double)below < lathist_pcts[k] / 100 * 20000 - 1e-6)
			bad++;
		for (i = 0, below = 0; i < 20000; i++)
			below += (double)v[i] * 1.0079 < (double)got;
		if ((double)below >= lathist_pcts[k] / 100 * 20000)
			bad++; /* got is more than one bucket above the true percentile */
	}
	CHECK_U64(bad, 0);
}

static void empty(void)
{
	memset(&a, 0, sizeof(a));
	CHECK_U64(lathist_percentile(&a, 99), 0);
	CHECK(isnan(lathist_mean(&a)));
	lathist_record(&a, 7);
	CHECK_U64(lathist_percentile(&a, 99.99), 7);
	CHECK_U64(a.min, 7);
	CHECK_U64(a.max, 7);
}

int main(void)
{
	bounds();
	exact();
	ranks();
	random_and_merge();
	empty();
	return check_done("test_lathist");
}
