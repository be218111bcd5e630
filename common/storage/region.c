// SPDX-License-Identifier: MIT
/* region.c: a target's span split into regions, and random offsets in one (see region.h). */
#include <errno.h>

#include "region.h"

int region_split(uint64_t span, unsigned n, uint32_t align, struct region *out)
{
	uint64_t per;
	unsigned i;

	if (n == 0 || align == 0 || (align & (align - 1)))
		return -EINVAL;
	per = span / n / align * align;
	if (per == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		out[i].start = per * i;
		out[i].len = i + 1 < n ? per : span - per * i;
	}
	return 0;
}

int rand_offsets_init(struct rand_offsets *ro, struct region reg, uint64_t chunk, uint64_t seed,
		      uint64_t stream)
{
	uint64_t first, end = reg.start + reg.len;

	if (!chunk || !reg.len)
		return -EINVAL;
	first = (reg.start + chunk - 1) / chunk * chunk;
	ro->chunk = chunk;
	if (first < end && end - first >= chunk) {
		ro->base = first;
		ro->count = (end - first) / chunk;
	} else {
		ro->base = reg.start;
		ro->count = 1;
	}
	rng_seed(&ro->g, seed, stream);
	return 0;
}
