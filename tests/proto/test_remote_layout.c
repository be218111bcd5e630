// SPDX-License-Identifier: MIT
/*
 * test_remote_layout: how the sink of nvme_write_bw_remote cuts its DRAM
 * (nvme_write_bw_remote/fabric/slice.h): local staging first, then equal slices of
 * whole chunks, each at least the canary slot plus a ring of depth; the ring
 * slot of the n-th chunk.
 */
#include <errno.h>
#include <stdio.h>

#include "check.h"
#include "slice.h"

#define MiB (1ULL << 20)

int main(void)
{
	struct slice_layout l;
	uint64_t need;
	uint32_t w;

	/* 64 MiB, no local part, 2 workers of 1 MiB chunks: 32 slots each. */
	CHECK(slice_layout(64 * MiB, 0, 2, MiB, 4, &l, &need) == 0);
	CHECK(l.slices_off == 0 && l.slice_len == 32 * MiB && l.slots == 32 && l.workers == 2);
	CHECK(need == 2 * 5 * MiB);

	/* A local part is rounded up to a page; slices follow it and never overlap. */
	CHECK(slice_layout(64 * MiB, 12 * MiB + 1, 3, MiB, 4, &l, &need) == 0);
	CHECK(l.local_len == 12 * MiB + 1 && l.slices_off == 12 * MiB + 4096);
	CHECK(l.slots == (64 * MiB - l.slices_off) / 3 / MiB && l.slice_len == l.slots * MiB);
	CHECK(l.slices_off + 3 * l.slice_len <= 64 * MiB);
	for (w = 0; w < 3; w++)
		CHECK(l.slices_off + w * l.slice_len >= l.local_len);

	/* Exactly enough: depth + 1 slots per worker. */
	CHECK(slice_layout(4096 + 2 * 5 * MiB, 4096, 2, MiB, 4, &l, &need) == 0 && l.slots == 5);
	/* One byte short. */
	CHECK(slice_layout(4096 + 2 * 5 * MiB - 1, 4096, 2, MiB, 4, &l, &need) == -ENOSPC);
	CHECK(need == 4096 + 2 * 5 * MiB);
	/* The default 16 GiB over 12 workers of 1 MiB with 12 x 12 local chunks. */
	CHECK(slice_layout(16ULL << 30, 144 * MiB, 12, MiB, 4, &l, &need) == 0);
	CHECK(l.slots == ((16ULL << 30) - 144 * MiB) / 12 / MiB);
	/* A chunk that is not a page multiple still gives whole-chunk slices. */
	CHECK(slice_layout(MiB, 0, 3, 12288, 2, &l, &need) == 0 && l.slice_len % 12288 == 0);

	CHECK(slice_layout(MiB, 0, 0, 4096, 4, &l, &need) == -EINVAL);
	CHECK(slice_layout(MiB, 0, 1, 0, 4, &l, &need) == -EINVAL);
	CHECK(slice_layout(MiB, 0, 1, 4096, 0, &l, &need) == -EINVAL);

	/* The ring: slots 1 .. slots-1 in turn, slot 0 (the canary) never. */
	CHECK(slice_ring_slot(0, 5) == 1 && slice_ring_slot(3, 5) == 4 &&
	      slice_ring_slot(4, 5) == 1);
	CHECK(slice_ring_slot(7, 2) == 1);

	return check_done("test_remote_layout");
}
