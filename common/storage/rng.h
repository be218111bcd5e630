/* SPDX-License-Identifier: MIT */
/*
 * rng.h: a small, fast, seedable pseudo-random generator for the readers'
 * random offsets (not for anything secret): xoshiro256** (Blackman and
 * Vigna's public-domain design), its state filled by splitmix64 from a
 * 64-bit seed, so that one seed always gives one sequence.
 */
#ifndef NBW_RNG_H
#define NBW_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* splitmix64: one step of a counter through a 64-bit mixing function. */
static inline uint64_t rng_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Seed from seed and a stream number (a reader's index): distinct streams, same seed. */
void rng_seed(struct rng *g, uint64_t seed, uint64_t stream);

static inline uint64_t rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *g)
{
	uint64_t *s = g->s;
	uint64_t out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n) for n >= 1 (multiply-high: bias below n / 2^64). */
static inline uint64_t rng_below(struct rng *g, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(g) * n) >> 64);
}

#endif
