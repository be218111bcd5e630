// SPDX-License-Identifier: MIT
/* wire_conv.c: wire structs <-> the tool's own (see wire_conv.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_conv.h"
#include "options.h"
#include "result.h"

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

static void reading_to_wire(const struct health_log *l, struct ctrl_health_reading *c)
{
	*c = (struct ctrl_health_reading){
		.critical_warning = l->critical_warning,
		.composite_k = l->composite_k,
		.spare_pct = l->spare_pct,
		.spare_threshold_pct = l->spare_threshold_pct,
		.used_pct = l->used_pct,
		.power_on_hours = l->power_on_hours,
		.unsafe_shutdowns = l->unsafe_shutdowns,
		.media_errors = l->media_errors,
		.error_log_entries = l->error_log_entries,
		.warning_temp_minutes = l->warning_temp_minutes,
		.critical_temp_minutes = l->critical_temp_minutes,
		.tmt1_transitions = l->tmt_transitions[0],
		.tmt2_transitions = l->tmt_transitions[1],
		.tmt1_seconds = l->tmt_seconds[0],
		.tmt2_seconds = l->tmt_seconds[1],
	};
}

static void reading_from_wire(const struct ctrl_health_reading *c, struct health_log *l)
{
	*l = (struct health_log){
		.critical_warning = c->critical_warning,
		.composite_k = c->composite_k,
		.spare_pct = c->spare_pct,
		.spare_threshold_pct = c->spare_threshold_pct,
		.used_pct = c->used_pct,
		.power_on_hours = c->power_on_hours,
		.unsafe_shutdowns = c->unsafe_shutdowns,
		.media_errors = c->media_errors,
		.error_log_entries = c->error_log_entries,
		.warning_temp_minutes = c->warning_temp_minutes,
		.critical_temp_minutes = c->critical_temp_minutes,
		.tmt_transitions = {c->tmt1_transitions, c->tmt2_transitions},
		.tmt_seconds = {c->tmt1_seconds, c->tmt2_seconds},
	};
}

/* A rate in bytes/s as the wire's integer (NAN, negative: 0). */
static uint64_t bps(double rate)
{
	return isfinite(rate) && rate > 0 && rate < 1.8e19 ? (uint64_t)rate : 0;
}

void conv_drive_health_to_wire(const struct window_shape *sh, const struct health_watch *hw,
			       struct ctrl_drive_health *c)
{
	memset(c, 0, sizeof(*c));
	c->low_second = c->cv_milli_pct = CTRL_NONE;
	if (sh && sh->n && sh->n <= CTRL_MAX_SECONDS) {
		c->seconds = sh->n;
		c->min_bps = bps(sh->min);
		c->max_bps = bps(sh->max);
		c->median_bps = bps(sh->median);
		if (isfinite(sh->cv) && sh->cv >= 0 && sh->cv < 4e6)
			c->cv_milli_pct = (uint32_t)(sh->cv * 1000 + 0.5);
		if (sh->low >= 0 && bps(sh->low_rate) < c->median_bps) {
			c->low_second = (uint32_t)sh->low;
			c->low_bps = bps(sh->low_rate);
			c->low_bps = c->low_bps < c->min_bps ? c->min_bps : c->low_bps;
		}
	}
	snprintf(c->why, sizeof(c->why), "%s", hw->why);
	snprintf(c->ctrl, sizeof(c->ctrl), "%s", hw->ctrl);
	c->namespaces = hw->namespaces < CTRL_MAX_NAMESPACES ? hw->namespaces : CTRL_MAX_NAMESPACES;
	c->have_before = hw->have_before;
	c->have_after = hw->have_before && hw->have_after;
	c->warning_k = hw->lim.warning_k;
	c->critical_k = hw->lim.critical_k;
	if (c->have_before)
		reading_to_wire(&hw->before, &c->before);
	if (c->have_after)
		reading_to_wire(&hw->after, &c->after);
}

/* The source's seconds' shape, its variation judged here with max_cv. */
static void shape_from_wire(const struct ctrl_drive_health *c, double max_cv,
			    struct window_shape *sh)
{
	*sh = (struct window_shape){.n = c->seconds,
				    .min = (double)c->min_bps,
				    .max = (double)c->max_bps,
				    .median = (double)c->median_bps,
				    .cv = c->cv_milli_pct == CTRL_NONE ? NAN
								       : c->cv_milli_pct / 1000.0,
				    .low = -1};
	sh->cv_over = isfinite(sh->cv) && sh->cv > max_cv;
	if (c->low_second != CTRL_NONE && (double)c->low_bps < WINDOW_LOW_FRACTION * sh->median) {
		sh->low = (int)c->low_second;
		sh->low_rate = (double)c->low_bps;
	}
	sh->unsteady = sh->cv_over || sh->low >= 0;
}

void conv_drive_health_from_wire(const struct ctrl_drive_health *c, double max_cv,
				 struct result_drive *d)
{
	struct health_limits lim = {.warning_k = c->warning_k, .critical_k = c->critical_k};
	struct health_log before, after;

	if (c->seconds) {
		d->has_shape = true;
		shape_from_wire(c, max_cv, &d->shape);
	}
	memset(&d->health, 0, sizeof(d->health));
	snprintf(d->health.ctrl, sizeof(d->health.ctrl), "%s", c->ctrl);
	d->health.namespaces = c->namespaces;
	reading_from_wire(&c->before, &before);
	reading_from_wire(&c->after, &after);
	health_watch_set(&d->health, c->have_before ? &before : NULL, c->have_after ? &after : NULL,
			 &lim, c->why[0] ? c->why : NULL);
	d->has_health = true;
}
