/* SPDX-License-Identifier: MIT */
/*
 * share.h: what one of --sources N sources may take of the sink: its share
 * of the workers (remote_share(): --max-workers-per-source, or 1024 / N) and,
 * since each worker holds a slice of depth + 1 chunks, its share of the DRAM
 * too. Pure arithmetic on the options, for the hall's admission.
 */
#ifndef NBW_SHARE_H
#define NBW_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

/*
 * The workers whose slices fit in --dram beside local_len bytes of the
 * sink's own staging, divided among the N sources (at least 1); 0 with
 * one source (no share).
 */
uint32_t share_dram_workers(const struct options *o, uint64_t local_len);

/*
 * Is a source of asked workers over its share of the DRAM? The reason into
 * why ("N workers, a source may have at most M (its share of --dram ...)").
 */
/* The reason a source of asked workers is over its DRAM share of most. */
void share_words(char *why, size_t len, uint32_t asked, uint32_t most, uint64_t dram,
		 unsigned sources);

bool share_refused(const struct options *o, uint64_t local_len, uint32_t asked, char *why,
		   size_t len);

#endif
