// SPDX-License-Identifier: MIT
/*
 * judge.c: nvme_link_probe's judging. Applies the link and path rules of
 * common/pci/pcilink.c to each discovered device, names what binds it (the
 * verdict, what limits it, the narrowest hop, the slot's), holds it against
 * --expect* and the site slot specification (a link a bay expects to run
 * below both ends' best is accepted), and sets a
 * NIC's network port against its PCIe ceiling. Pure: no system reads, no
 * output.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bays.h"
#include "judge.h"
#include "spec.h"

/* What was expected, only what was given: "16 GT/s x8", "16 GT/s" or "x8". */
static const char *expected_str(const struct probe_expect *e, char *buf, size_t len)
{
	char sp[16];

	if (e->speed > 0 && e->width)
		snprintf(buf, len, "%s GT/s x%u", pcie_speed_str(e->speed, sp, sizeof(sp)),
			 e->width);
	else if (e->speed > 0)
		snprintf(buf, len, "%s GT/s", pcie_speed_str(e->speed, sp, sizeof(sp)));
	else
		snprintf(buf, len, "x%u", e->width);
	return buf;
}
static const char *who_of(const struct probe_dev *p)
{
	return p->kind == KIND_NVME ? "drive" : "NIC";
}

void judge_device(struct probe_dev *p)
{
	if (!p->have_path)
		return;
	/*
	 * No hops: a VF whose physical function is not in the tree. Its link is
	 * the PF's, which cannot be read: unknown, with no ceiling, not "ok".
	 */
	if (!p->path.nhops) {
		p->path.verdict = PCIE_UNKNOWN;
		p->path.bottleneck = -1;
		p->path.raw = p->path.usable = NAN;
		snprintf(p->path.reason, sizeof(p->path.reason),
			 "virtual function of %s, which is not in the PCI tree: its link cannot be "
			 "read",
			 p->fn && p->fn->is_vf ? p->fn->pf_bdf : "?");
		return;
	}
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
	char a[16], b[32];

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
			 "link %s GT/s x%u is below the expected %s",
			 pcie_speed_str(speed, a, sizeof(a)), width, expected_str(e, b, sizeof(b)));
	}
}

/* The link a bay delivers is judged; a training verdict it expects becomes ok. */
static void judge_bay(const struct site_spec *s, const struct bay_spec *b, struct probe_dev *p)
{
	struct pcie_path *pa = &p->path;
	struct pcie_link *l = pa->nlinks ? &pa->link[0] : NULL;
	char a[16], c[16], bay[80];
	double speed;
	unsigned width;

	p->spec = b;
	p->spec_ok = false;
	spec_bay_name(b, bay, sizeof(bay));
	if (!l || pa->verdict == PCIE_LINK_DOWN || pa->verdict == PCIE_UNKNOWN) {
		snprintf(p->spec_msg, sizeof(p->spec_msg), "%s: expected %s GT/s x%u (%s:%d), %s",
			 bay, pcie_speed_str(b->speed, a, sizeof(a)), b->width, s->file, b->line,
			 !l ? "no PCIe link" : pa->reason);
		return;
	}
	speed = pa->verdict == PCIE_MAYBE_IDLE ? l->exp_speed : l->speed;
	width = pa->verdict == PCIE_MAYBE_IDLE ? l->exp_width : l->width;
	if (speed < b->speed - 0.01 || width < b->width) {
		snprintf(p->spec_msg, sizeof(p->spec_msg),
			 "%s: expected %s GT/s x%u (%s:%d), %s%s%s%s runs at %s GT/s x%u", bay,
			 pcie_speed_str(b->speed, a, sizeof(a)), b->width, s->file, b->line,
			 p->name, p->name[0] ? " (" : "", p->bdf, p->name[0] ? ")" : "",
			 pcie_speed_str(speed, c, sizeof(c)), width);
		return;
	}
	p->spec_ok = true;
	if (pa->verdict == PCIE_DOWNGRADED && pa->limited_by == PCIE_LIMIT_TRAINING) {
		p->spec_accepted = true;
		pa->verdict = l->verdict = PCIE_OK;
		snprintf(
			l->reason, sizeof(l->reason),
			"link at %s GT/s x%u, below the %s GT/s x%u both ends support, as the site "
			"specification expects (%s:%d)",
			pcie_speed_str(l->speed, a, sizeof(a)), l->width,
			pcie_speed_str(l->exp_speed, c, sizeof(c)), l->exp_width, s->file, b->line);
		snprintf(pa->reason, sizeof(pa->reason), "%s", l->reason);
	}
}

/* Every device against its bay's line of s; false if a bay falls short. */
static bool judge_site(struct site_spec *s, struct probe_dev *d, int n, bool selected)
{
	bool met = true;
	int i, j;

	for (j = 0; j < s->n; j++) {
		struct bay_spec *b = &s->bay[j];
		bool by_number = bays_by_number(d, n, b->key);

		for (i = 0; i < n; i++) {
			if (!spec_names(b, &d[i], by_number))
				continue;
			b->matched = true;
			judge_bay(s, b, &d[i]);
			met &= d[i].spec_ok;
		}
		/* An empty bay falls short, unless --dev/--slot chose other devices. */
		if (!b->matched && !selected)
			met = false;
	}
	return met;
}

const struct pcie_link *judge_payload_link(const struct probe_dev *p)
{
	int i;

	for (i = 0; p->have_path && i < p->path.nlinks; i++)
		if (p->path.link[i].payload[0])
			return &p->path.link[i];
	return NULL;
}

/* --expect mps: a payload finding on the path falls short (after the link's own test). */
static void judge_expect_payload(struct probe_dev *p)
{
	const struct pcie_link *l = judge_payload_link(p);

	if (!l || !p->expect_ok)
		return;
	p->expect_ok = false;
	snprintf(p->expect_msg, sizeof(p->expect_msg), "link %s <- %s: %s", l->port->bdf,
		 l->dev->bdf, l->payload);
}

bool judge_audit(const struct options *o, struct site_spec *spec, struct probe_dev *d, int n)
{
	bool met = true;
	int i;

	if (o->expect_file)
		met = judge_site(spec, d, n, o->devs || o->slots);
	for (i = 0; i < n; i++) {
		d[i].expect_ok = true;
		if (o->expect.speed > 0 || o->expect.width)
			judge_expect(&o->expect, &d[i]);
		if (o->expect_mps)
			judge_expect_payload(&d[i]);
		met &= d[i].expect_ok;
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
