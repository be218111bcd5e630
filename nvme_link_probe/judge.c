// SPDX-License-Identifier: MIT
/*
 * judge.c: nvme_link_probe's judging. Applies the link and path rules of
 * common/pci/pcilink.c to each discovered device, names what binds it (the
 * verdict, what limits it, the narrowest hop, the slot's), holds it against
 * --expect* and the site slot specification (bays_spec_check()), and sets a
 * NIC's network port against its PCIe ceiling. Pure: no system reads, no
 * output.
 */
#include <math.h>
#include <stdio.h>

#include "bays.h"
#include "judge.h"

static const char *who_of(const struct probe_dev *p)
{
	return p->kind == KIND_NVME ? "drive" : "NIC";
}

void judge_device(struct probe_dev *p)
{
	if (!p->have_path)
		return;
	/* No hops: a VF whose physical function is not in the tree; its path stays empty. */
	if (p->path.nhops)
		pcie_judge_path(&p->path, who_of(p),
				p->kind == KIND_RDMA || pcie_class_may_idle(p->fn->class_code));
	if (p->path.verdict == PCIE_NO_LINK)
		snprintf(p->why_no_link, sizeof(p->why_no_link), "%s", p->path.reason);
}

enum pcie_verdict judge_verdict(const struct probe_dev *p)
{
	return p->have_path ? p->path.verdict : PCIE_NO_LINK;
}

enum pcie_limit judge_limited_by(const struct probe_dev *p)
{
	return p->have_path ? p->path.limited_by : PCIE_LIMIT_NONE;
}

const char *judge_reason(const struct probe_dev *p)
{
	return p->have_path && p->path.verdict != PCIE_NO_LINK ? p->path.reason : p->why_no_link;
}

const char *judge_bottleneck_bdf(const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;

	return p->have_path && pa->bottleneck >= 0 ? pa->link[pa->bottleneck].dev->bdf : NULL;
}

/*
 * The slot ceiling is what the path would give a device of unlimited
 * capability. Its narrowest element is the port (the slot) or a link further
 * up, named by its lower end as judge_bottleneck_bdf() does.
 */
const char *judge_slot_bottleneck_bdf(const struct probe_dev *p)
{
	const struct pcie_what_if *w = &p->slot_ceiling;

	if (w->bottleneck == 0)
		return p->slot_port;
	if (w->bottleneck > 0)
		return p->path.link[w->bottleneck].dev->bdf;
	return NULL;
}

void judge_expect(const struct probe_expect *e, struct probe_dev *p)
{
	const struct pcie_link *l;
	double speed;
	unsigned width;
	char a[16], b[16];

	p->expect_ok = true;
	if (!p->have_path || p->path.verdict == PCIE_NO_LINK)
		return;
	switch (p->path.verdict) {
	case PCIE_DOWNGRADED:
	case PCIE_LINK_DOWN:
	case PCIE_UNKNOWN:
		p->expect_ok = false;
		snprintf(p->expect_msg, sizeof(p->expect_msg), "%s: %s",
			 pcie_verdict_name(p->path.verdict), p->path.reason);
		return;
	default:
		break;
	}
	l = &p->path.link[0];
	/* An idle NIC is judged by what its link negotiates to, not where it rests. */
	speed = p->path.verdict == PCIE_MAYBE_IDLE ? l->exp_speed : l->speed;
	width = p->path.verdict == PCIE_MAYBE_IDLE ? l->exp_width : l->width;
	if ((e->speed > 0 && speed < e->speed - 0.01) || (e->width && width < e->width)) {
		p->expect_ok = false;
		snprintf(p->expect_msg, sizeof(p->expect_msg),
			 "link %s GT/s x%u is below the expected %s GT/s x%u",
			 pcie_speed_str(speed, a, sizeof(a)), width,
			 e->speed > 0 ? pcie_speed_str(e->speed, b, sizeof(b)) : "any", e->width);
	}
}

bool judge_audit(const struct options *o, struct site_spec *spec, struct probe_dev *d, int n)
{
	bool met = true;
	int i;

	if (o->expect_file)
		met = bays_spec_check(spec, d, n, o->devs || o->slots);
	for (i = 0; i < n; i++) {
		d[i].expect_ok = true;
		if (o->expect.speed > 0 || o->expect.width) {
			judge_expect(&o->expect, &d[i]);
			met &= d[i].expect_ok;
		}
	}
	return met;
}

bool judge_network(const struct probe_dev *p, struct judge_network *nw)
{
	const struct pcie_path *pa = &p->path;
	double net = p->net_gbits / 8.0;
	double pcie = p->have_path ? (isfinite(pa->usable) ? pa->usable : pa->raw) : NAN;

	nw->net_gb_per_s = net;
	nw->pcie_gb_per_s = pcie;
	nw->pcie_ceiling = !isfinite(pcie)			  ? NULL
			   : p->have_path && isfinite(pa->usable) ? "usable"
								  : "raw";
	nw->lower = NULL;
	if (isfinite(net) && isfinite(pcie))
		nw->lower = pcie < net - 1e-9 ? "pcie" : net < pcie - 1e-9 ? "network" : "equal";
	return isfinite(net) || p->rate_text[0];
}
