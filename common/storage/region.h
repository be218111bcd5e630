/* SPDX-License-Identifier: MIT */
/*
 * region.h: the part of a target one reader sweeps, how a target's span is
 * split into regions (one per reader), and the random chunk offsets a random
 * reader draws from its region.
 */
#ifndef NBW_REGION_H
#define NBW_REGION_H

#include <stdint.h>

#include "rng.h"

struct region {
	uint64_t start;
	uint64_t len;
};

/*
 * Split [0, span) into n disjoint regions whose starts are multiples of
 * align (a power of two); the last region takes the remainder. -EINVAL if a
 * region would be empty (span < n * align) or align is not a power of two.
 */
int region_split(uint64_t span, unsigned n, uint32_t align, struct region *out);

/*
 * Random chunk offsets over one region: uniform over the chunk-aligned
 * offsets (multiples of chunk from the start of the target) whose whole
 * chunk lies inside the region; a region holding no such chunk has the one
 * offset reg.start (its read clipped at the region's end). As the reader's
 * chunk is a multiple of the block size, so is every offset.
 */
struct rand_offsets {
	uint64_t base;	/* first offset */
	uint64_t count; /* offsets to draw from: base + k * chunk, k < count */
	uint64_t chunk;
	struct rng g;
};

/* 0, or -EINVAL for an empty region or a zero chunk. stream: the reader's index. */
int rand_offsets_init(struct rand_offsets *ro, struct region reg, uint64_t chunk, uint64_t seed,
		      uint64_t stream);

static inline uint64_t rand_offsets_next(struct rand_offsets *ro)
{
	return ro->base + rng_below(&ro->g, ro->count) * ro->chunk;
}

#endif
