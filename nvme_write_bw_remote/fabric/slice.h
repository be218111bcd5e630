/* SPDX-License-Identifier: MIT */
/*
 * slice.h: how the sink of nvme_write_bw_remote cuts its DRAM: its own local
 * staging first, then one slice per remote worker. Pure arithmetic.
 */
#ifndef NBW_SLICE_H
#define NBW_SLICE_H

#include <stdint.h>

/* ---- the sink's DRAM: local staging, then one slice per remote worker ------ */

struct slice_layout {
	uint64_t local_len;  /* [0, local_len): the sink's own drive readers */
	uint64_t slices_off; /* first slice, a multiple of 4096 */
	uint64_t slice_len;  /* per worker, a multiple of chunk */
	uint32_t slots;	     /* chunks per slice: slot 0 the canary, 1.. the ring */
	uint32_t workers;
};

/*
 * Lay out dram bytes: local_len for the local readers, then workers equal
 * slices of whole chunks, each with at least depth + 1 slots (the canary and
 * a ring of depth). -EINVAL for zero chunk/workers/depth, -ENOSPC when dram
 * is too small (the minimum then in *need).
 */
int slice_layout(uint64_t dram, uint64_t local_len, uint32_t workers, uint64_t chunk,
		 uint32_t depth, struct slice_layout *l, uint64_t *need);

/* Slot of the ring (1 .. slots-1) that the n-th chunk of a worker lands in. */
static inline uint32_t slice_ring_slot(uint64_t n, uint32_t slots)
{
	return 1 + (uint32_t)(n % (slots - 1));
}

#endif
