/* SPDX-License-Identifier: MIT */
/*
 * placement.h: NUMA placement of worker threads and their buffers (libnuma),
 * and the buffers themselves: aligned, touched on the worker's node, locked.
 */
#ifndef NBW_PLACEMENT_H
#define NBW_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PLACEMENT_AUTO (-1) /* the drive's own node (or no pinning if unknown) */
#define PLACEMENT_OFF (-2)  /* no pinning */

/* "auto", "off" or a node number that exists here. -EINVAL, -ERANGE (no such node). */
int placement_policy_parse(const char *s, int *policy);

/* The node to run on for a device on dev_node under policy, or -1 for none. */
int placement_policy_node(int policy, int dev_node);

/* Run the calling thread on node's CPUs and prefer its memory. 0 or -errno. */
int placement_pin_self(int node);

/* Number of configured NUMA nodes (1 when libnuma says NUMA is unavailable). */
int placement_nodes(void);

/*
 * Allocate len bytes aligned to align, fault every page in (on the calling
 * thread's node) and mlock them. -ENOMEM when it cannot be allocated,
 * -EAGAIN/-EPERM/-ENOMEM from mlock when it cannot be locked (*locked_err set).
 */
int buffer_alloc_locked(size_t len, size_t align, void **out, int *lock_errno);
/* The same, locked only when lock is set. */
int buffer_alloc(size_t len, size_t align, bool lock, void **out, int *lock_errno);
/* Free either kind. */
void buffer_free_locked(void *p, size_t len);

/*
 * The bytes a buffer of len occupies (and locks): 1 MiB and more rounds up to
 * whole 2 MiB huge pages.
 */
size_t buffer_span(size_t len);

/*
 * How many of a buffer's bytes (p, len as allocated above) the kernel backs
 * with transparent huge pages now (AnonHugePages of /proc/self/smaps): what
 * was obtained, not asked. 0 when unknown.
 */
size_t buffer_huge_bytes(const void *p, size_t len);

/* RLIMIT_MEMLOCK's soft limit in bytes, UINT64_MAX unlimited. */
uint64_t buffer_lock_limit(void);

/* True when CAP_IPC_LOCK lets this process lock past RLIMIT_MEMLOCK. */
bool buffer_lock_exempt(void);

/* Whether need bytes can be locked under limit (exempt: CAP_IPC_LOCK). Pure. */
bool buffer_lock_fits(uint64_t need, uint64_t limit, bool exempt);

/*
 * Where memory must be locked (RDMA registers it): 0 when need bytes fit
 * limit (or exempt), else -ENOMEM with why = "needs N locked memory,
 * RLIMIT_MEMLOCK is L: raise it ...". Pure.
 */
int buffer_lock_need(uint64_t need, uint64_t limit, bool exempt, char *why, size_t len);

#endif
