// SPDX-License-Identifier: MIT
/* rails.c: the source's choice of (source port, sink port) per worker (see rails.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_conv.h"
#include "rails.h"

/*
 * The source ports a worker should use: those of its mask (affinity.h), else
 * the NUMA-local ones to node, else all.
 */
static int local_ports(const struct fab_port *src, int nsrc, int node, uint64_t mask, int *out)
{
	int i, n = 0;

	for (i = 0; i < nsrc && i < 64; i++)
		if (mask & (UINT64_C(1) << i))
			out[n++] = i;
	if (n)
		return n;
	for (i = 0; i < nsrc; i++)
		if (node < 0 || src[i].numa_node < 0 || src[i].numa_node == node)
			out[n++] = i;
	if (!n)
		for (i = 0; i < nsrc; i++)
			out[n++] = i;
	return n;
}

/* Every reachable (local port, sink port) pair for node, in port order. */
static int pairs_for(const struct fab_port *src, int nsrc, const struct fab_port *sink, int nsink,
		     bool cm, int node, uint64_t mask, struct rail_pick *out)
{
	int loc[FAB_MAX_PORTS], nloc = local_ports(src, nsrc, node, mask, loc), i, j, n = 0;

	for (i = 0; i < nloc; i++)
		for (j = 0; j < nsink; j++) {
			const struct fab_port *a = &src[loc[i]], *b = &sink[j];

			if (cm && (!a->addr[0] || !b->addr[0]))
				continue;
			if (fab_ports_reachable(a, loc[i], b, j))
				out[n++] = (struct rail_pick){loc[i], j};
		}
	return n;
}

int rails_assign(const struct fab_port *src, int nsrc, const struct ctrl_port *sink, int nsink,
		 bool cm, const int *nodes, const uint64_t *masks, uint32_t nw,
		 struct rail_pick *out, char *why, size_t len)
{
	struct fab_port *kp = calloc((size_t)nsink + 1, sizeof(*kp));
	struct rail_pick *pairs = calloc((size_t)nsrc * nsink + 1, sizeof(*pairs));
	uint32_t i;
	int j, n, rc = 0;

	if (!kp || !pairs) {
		free(kp);
		free(pairs);
		return -ENOMEM;
	}
	for (j = 0; j < nsink; j++)
		conv_port_from_wire(&sink[j], &kp[j]);
	for (i = 0; i < nw && !rc; i++) {
		n = pairs_for(src, nsrc, kp, nsink, cm, nodes[i], masks ? masks[i] : 0, pairs);
		if (!n && masks && masks[i]) /* the preferred ports reach no sink port */
			n = pairs_for(src, nsrc, kp, nsink, cm, nodes[i], 0, pairs);
		if (!n) {
			char where[32] = "";

			if (nodes[i] >= 0)
				snprintf(where, sizeof(where), " on NUMA node %d", nodes[i]);
			snprintf(why, len,
				 "no sink port is reachable from this node's ports%s (different "
				 "link "
				 "layers or subnets%s)",
				 where, cm ? ", or no IPv4 address for rdma_cm" : "");
			rc = -ENETUNREACH;
			break;
		}
		out[i] = pairs[i % (uint32_t)n];
	}
	free(kp);
	free(pairs);
	return rc;
}
