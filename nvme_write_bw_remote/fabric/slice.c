// SPDX-License-Identifier: MIT
/* slice.c: the layout of the sink's DRAM (see slice.h). */
#include <errno.h>
#include <string.h>

#include "slice.h"

int slice_layout(uint64_t dram, uint64_t local_len, uint32_t workers, uint64_t chunk,
		 uint32_t depth, struct slice_layout *l, uint64_t *need)
{
	uint64_t slots;

	*need = 0;
	if (!chunk || !workers || !depth)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->local_len = local_len;
	l->slices_off = (local_len + 4095) & ~4095ULL;
	l->workers = workers;
	*need = l->slices_off + (uint64_t)workers * (depth + 1) * chunk;
	if (dram < *need)
		return -ENOSPC;
	slots = (dram - l->slices_off) / workers / chunk;
	if (slots > UINT32_MAX)
		slots = UINT32_MAX;
	l->slots = (uint32_t)slots;
	l->slice_len = slots * chunk;
	return 0;
}
