/* SPDX-License-Identifier: MIT */
/*
 * wire_conv.h: the conversions between the control protocol's wire structs
 * (ctrl.h) and the tool's own (the fabric's ports and QPs, the options),
 * in one place: what a sink says of its ports, what either side says of
 * its QPs, and the parameters both sides compare in HELLO.
 */
#ifndef NBW_CONV_H
#define NBW_CONV_H

#include "ctrl.h"
#include "rdma.h"

struct options;

/* A port for ACCEPT: the line rate in Mb/s, the link as 1 InfiniBand, 2 Ethernet. */
void conv_port_to_wire(const struct fab_port *p, struct ctrl_port *c);
/* A sink port of ACCEPT as the fabric's (active; its rate in Gb/s). */
void conv_port_from_wire(const struct ctrl_port *c, struct fab_port *p);
/* A QP's attributes for QPS or SLICES, and back. */
struct ctrl_qp conv_qp_to_wire(const struct fab_qp_attr *a);
struct fab_qp_attr conv_qp_from_wire(const struct ctrl_qp *q);
/* The HELLO parameters of o that both sides compare (workers and source are the source's). */
struct ctrl_hello conv_hello(const struct options *o);

#endif
