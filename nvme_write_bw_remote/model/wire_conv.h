/* SPDX-License-Identifier: MIT */
/*
 * wire_conv.h: the conversions between the control protocol's wire structs
 * (ctrl.h) and the tool's own (the fabric's ports and QPs, the options),
 * in one place: what a sink says of its ports, what either side says of
 * its QPs, the parameters both sides compare in HELLO, and what a source's
 * drives said of themselves (RESULT).
 */
#ifndef NBW_CONV_H
#define NBW_CONV_H

#include "ctrl.h"
#include "health_watch.h"
#include "rdma.h"
#include "window.h"

struct options;
struct result_drive;

/* A port for ACCEPT: the line rate in Mb/s, the link as 1 InfiniBand, 2 Ethernet. */
void conv_port_to_wire(const struct fab_port *p, struct ctrl_port *c);
/* A sink port of ACCEPT as the fabric's (active; its rate in Gb/s). */
void conv_port_from_wire(const struct ctrl_port *c, struct fab_port *p);
/* A QP's attributes for QPS or SLICES, and back. */
struct ctrl_qp conv_qp_to_wire(const struct fab_qp_attr *a);
struct fab_qp_attr conv_qp_from_wire(const struct ctrl_qp *q);
/* A drive's seconds' shape (its 1 s rates judged) and health log around the window for
 * RESULT's optional part. */
void conv_drive_health_to_wire(const struct window_shape *sh, const struct health_watch *hw,
			       struct ctrl_drive_health *c);
/*
 * The source's word on its drive into d: its seconds' shape judged with
 * max_cv, its two readings compared here (the source's findings are not
 * taken, its counters are).
 */
void conv_drive_health_from_wire(const struct ctrl_drive_health *c, double max_cv,
				 struct result_drive *d);

/* The HELLO parameters of o that both sides compare (workers and source are the source's). */
struct ctrl_hello conv_hello(const struct options *o);

#endif
