// SPDX-License-Identifier: MIT
/* placement.c: NUMA pinning (libnuma) and locked, node-local buffers. */
#include <errno.h>
#include <numa.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "parse.h"
#include "placement.h"

int placement_nodes(void)
{
	if (numa_available() < 0)
		return 1;
	return numa_max_node() + 1;
}

int placement_policy_parse(const char *s, int *policy)
{
	unsigned long node;
	int rc;

	if (!strcmp(s, "auto")) {
		*policy = PLACEMENT_AUTO;
		return 0;
	}
	if (!strcmp(s, "off")) {
		*policy = PLACEMENT_OFF;
		return 0;
	}
	rc = parse_uint(s, 0, 4095, &node);
	if (rc)
		return rc;
	if ((int)node >= placement_nodes())
		return -ERANGE;
	*policy = (int)node;
	return 0;
}

int placement_policy_node(int policy, int dev_node)
{
	if (policy == PLACEMENT_OFF)
		return -1;
	if (policy == PLACEMENT_AUTO)
		return dev_node >= 0 && dev_node < placement_nodes() ? dev_node : -1;
	return policy;
}

int placement_pin_self(int node)
{
	if (node < 0 || numa_available() < 0)
		return 0;
	if (numa_run_on_node(node))
		return -errno;
	numa_set_preferred(node);
	return 0;
}

/*
 * Buffers of 1 MiB and more come in 2 MiB-aligned huge pages where the kernel
 * has them (THP, madvise): an O_DIRECT read into physically contiguous memory
 * needs a handful of scatter-gather segments instead of one per 4 KiB page,
 * which keeps a 1 MiB read in one device request (virtio-blk, for one, allows
 * fewer segments than a 1 MiB read has pages).
 */
#define HUGE_ALIGN (2u << 20)

static size_t buffer_span(size_t len)
{
	return len >= (1u << 20) ? (len + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN : len;
}

int buffer_alloc_locked(size_t len, size_t align, void **out, int *lock_errno)
{
	size_t span = buffer_span(len);
	bool huge = len >= (1u << 20); /* not span != len: 8 MiB is already whole huge pages */
	void *p = NULL;

	*lock_errno = 0;
	if (huge && align < HUGE_ALIGN)
		align = HUGE_ALIGN;
	if (posix_memalign(&p, align, span) || !p)
		return -ENOMEM;
	if (huge)
		madvise(p, span, MADV_HUGEPAGE); /* advice only: 4 KiB pages still work */
	/*
	 * Lock before touching: mlock() checks RLIMIT_MEMLOCK before it faults a
	 * single page in, so a buffer that cannot be locked fails at once instead
	 * of growing the process to its full size first. It then faults the pages
	 * in on this thread (first touch: this thread's NUMA node).
	 */
	if (mlock(p, span)) {
		*lock_errno = errno;
		free(p);
		return -*lock_errno;
	}
	memset(p, 0, span);
	*out = p;
	return 0;
}

void buffer_free_locked(void *p, size_t len)
{
	if (!p)
		return;
	munlock(p, buffer_span(len));
	free(p);
}
