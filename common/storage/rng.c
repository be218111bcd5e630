// SPDX-License-Identifier: MIT
/* rng.c: seeding of the readers' generator (see rng.h). */
#include "rng.h"

void rng_seed(struct rng *g, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ rng_splitmix64(&stream);
	int i;

	for (i = 0; i < 4; i++)
		g->s[i] = rng_splitmix64(&x);
	if (!(g->s[0] | g->s[1] | g->s[2] | g->s[3])) /* the one state xoshiro cannot leave */
		g->s[0] = 1;
}
