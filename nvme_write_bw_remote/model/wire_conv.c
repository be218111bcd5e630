// SPDX-License-Identifier: MIT
/* wire_conv.c: wire structs <-> the tool's own (see wire_conv.h). */
#include <stdio.h>
#include <string.h>

#include "wire_conv.h"
#include "options.h"

void conv_port_to_wire(const struct fab_port *p, struct ctrl_port *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->dev, sizeof(c->dev), "%s", p->dev);
	c->port = p->port;
	c->link = p->link == FAB_LINK_IB ? 1 : 2;
	c->lid = p->lid;
	memcpy(c->gid, p->gid, sizeof(c->gid));
	snprintf(c->addr, sizeof(c->addr), "%s", p->addr);
	c->prefix_len = p->prefix_len;
	c->numa_node = p->numa_node;
	c->rate_mbps = (uint32_t)(p->rate_gbits * 1000);
	c->mtu = p->active_mtu;
	c->software = p->software;
}

void conv_port_from_wire(const struct ctrl_port *c, struct fab_port *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", c->dev);
	p->port = c->port;
	p->active = true;
	p->link = c->link == 1 ? FAB_LINK_IB : FAB_LINK_ETH;
	p->link_layer = p->link == FAB_LINK_IB ? "InfiniBand" : "Ethernet";
	p->numa_node = c->numa_node;
	p->lid = c->lid;
	memcpy(p->gid, c->gid, sizeof(p->gid));
	snprintf(p->addr, sizeof(p->addr), "%s", c->addr);
	p->prefix_len = c->prefix_len;
	p->active_mtu = c->mtu;
	p->rate_gbits = c->rate_mbps / 1000.0;
	p->software = c->software;
}

struct ctrl_qp conv_qp_to_wire(const struct fab_qp_attr *a)
{
	struct ctrl_qp q = {.lid = a->lid, .qpn = a->qpn, .psn = a->psn, .mtu = a->mtu};

	memcpy(q.gid, a->gid, sizeof(q.gid));
	return q;
}

struct fab_qp_attr conv_qp_from_wire(const struct ctrl_qp *q)
{
	struct fab_qp_attr a = {.lid = q->lid, .qpn = q->qpn, .psn = q->psn, .mtu = q->mtu};

	memcpy(a.gid, q->gid, sizeof(a.gid));
	return a;
}

struct ctrl_hello conv_hello(const struct options *o)
{
	return (struct ctrl_hello){
		.chunk = o->chunk,
		.depth = o->depth,
		.warmup_ms = (uint64_t)(o->cc.warmup * 1000 + 0.5),
		.duration_ms = (uint64_t)(o->cc.duration * 1000 + 0.5),
		.verify = (uint8_t)o->verify,
		.conn = (uint8_t)o->conn,
		.mtu = o->lo.mtu,
		.sl = o->lo.sl,
		.tclass = o->lo.tclass,
	};
}
