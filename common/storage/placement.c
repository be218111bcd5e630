// SPDX-License-Identifier: MIT
/*
 * placement.c: NUMA pinning (libnuma) and node-local buffers, locked or not,
 * and what the kernel gave them (huge pages, the locked-memory limit).
 */
#include <errno.h>
#include <inttypes.h>
#include <numa.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

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

size_t buffer_span(size_t len)
{
	return len >= (1u << 20) ? (len + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN : len;
}

int buffer_alloc_locked(size_t len, size_t align, void **out, int *lock_errno)
{
	return buffer_alloc(len, align, true, out, lock_errno);
}

int buffer_alloc(size_t len, size_t align, bool lock, void **out, int *lock_errno)
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
	if (lock && mlock(p, span)) {
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

/* The unsigned number after "Key:" in a /proc line, into *v. */
static bool proc_field(const char *line, const char *key, uint64_t *v)
{
	size_t k = strlen(key);

	return !strncmp(line, key, k) && sscanf(line + k, " %" SCNu64, v) == 1;
}

size_t buffer_huge_bytes(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = a + buffer_span(len), lo = 0, hi = 0;
	uint64_t kb, huge = 0;
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s0, s1;

		if (sscanf(line, "%lx-%lx ", &s0, &s1) == 2) {
			lo = s0;
			hi = s1;
		} else if (hi > a && lo < b && proc_field(line, "AnonHugePages:", &kb)) {
			/* a mapping merged with its neighbours counts at most the overlap */
			uint64_t over = (hi < b ? hi : b) - (lo > a ? lo : a);

			huge += kb * 1024 < over ? kb * 1024 : over;
		}
	}
	fclose(f);
	return huge;
}

uint64_t buffer_lock_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return rl.rlim_cur;
}

bool buffer_lock_exempt(void)
{
	char line[256];
	uint64_t cap = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %" SCNx64, &cap) == 1;
	fclose(f);
	return found && (cap >> 14 & 1); /* CAP_IPC_LOCK */
}

bool buffer_lock_fits(uint64_t need, uint64_t limit, bool exempt)
{
	return exempt || need <= limit;
}

int buffer_lock_need(uint64_t need, uint64_t limit, bool exempt, char *why, size_t len)
{
	char a[32], b[32];

	if (buffer_lock_fits(need, limit, exempt))
		return 0;
	snprintf(why, len,
		 "needs %s locked memory, RLIMIT_MEMLOCK is %s: raise it (ulimit -l %llu, in "
		 "KiB; memlock in /etc/security/limits.conf, LimitMEMLOCK= for a service) or "
		 "run with CAP_IPC_LOCK",
		 format_size(need, a, sizeof(a)), format_size(limit, b, sizeof(b)),
		 (unsigned long long)((need + 1023) / 1024));
	return -ENOMEM;
}
