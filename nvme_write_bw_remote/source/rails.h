/* SPDX-License-Identifier: MIT */
/*
 * rails.h: which rail each of the source's workers uses. A rail is a pair
 * (source port, sink port) that can reach each other (same link layer, same
 * subnet, or the same place in both sides' lists; see fab_ports_reachable());
 * a worker takes one of the ports its drive prefers (affinity.h: nearest in
 * the PCIe tree, NUMA-local, or any), and the workers go round the pairs so
 * that every rail carries an equal share.
 */
#ifndef NBW_RAILS_H
#define NBW_RAILS_H

#include <stdbool.h>
#include <stdint.h>

#include "ctrl.h"
#include "rdma.h"

struct rail_pick {
	int src;  /* index into the source's ports */
	int sink; /* index into the sink's advertised ports */
};

/*
 * A rail for each of nw workers: worker i takes the source ports of
 * masks[i] (bit j: port j; masks NULL or 0: those on NUMA node nodes[i], -1
 * any; none there: all). cm: rdma_cm needs an IPv4 address at both ends. 0,
 * or -ENETUNREACH with why (no pair for some worker).
 */
int rails_assign(const struct fab_port *src, int nsrc, const struct ctrl_port *sink, int nsink,
		 bool cm, const int *nodes, const uint64_t *masks, uint32_t nw,
		 struct rail_pick *out, char *why, size_t len);

#endif
