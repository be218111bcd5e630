/* SPDX-License-Identifier: MIT */
/*
 * placement.h: NUMA placement of worker threads and their buffers (libnuma),
 * and the buffers themselves: aligned, touched on the worker's node, locked.
 */
#ifndef NBW_PLACEMENT_H
#define NBW_PLACEMENT_H

#include <stddef.h>

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
void buffer_free_locked(void *p, size_t len);

#endif
