// SPDX-License-Identifier: MIT
/*
 * share.c: a source's share of the sink with --sources N (see share.h).
 * Without the DRAM's share, a source within its worker share (512 of 1024
 * with N = 2) could take every slice of a DRAM that holds fewer, and the
 * others were refused for the DRAM.
 */
#include <stdio.h>

#include "parse.h"
#include "share.h"

uint32_t share_dram_workers(const struct options *o, uint64_t local_len)
{
	uint64_t off = (local_len + 4095) & ~4095ULL, per = (uint64_t)(o->depth + 1) * o->chunk;
	uint64_t fit;

	if (o->sink.sources <= 1)
		return 0;
	fit = per && o->sink.dram > off ? (o->sink.dram - off) / per : 0;
	fit /= o->sink.sources;
	if (fit > MAX_WORKERS)
		fit = MAX_WORKERS;
	return fit ? (uint32_t)fit : 1;
}

void share_words(char *why, size_t len, uint32_t asked, uint32_t most, uint64_t dram,
		 unsigned sources)
{
	char a[32];

	snprintf(why, len,
		 "%u workers, a source may have at most %u (its share of --dram %s among "
		 "--sources %u)",
		 asked, most, format_size(dram, a, sizeof(a)), sources);
}

bool share_refused(const struct options *o, uint64_t local_len, uint32_t asked, char *why,
		   size_t len)
{
	uint32_t most = share_dram_workers(o, local_len);

	if (!most || asked <= most)
		return false;
	share_words(why, len, asked, most, o->sink.dram, o->sink.sources);
	return true;
}
