// SPDX-License-Identifier: MIT
/*
 * project.c: the upgrade projection (--project). Per scenario (the drives as
 * they are, all Gen4 x4, all Gen5 x4) and per slot state (as they are, or
 * every slot running the drive's speed): the drives' summed ceilings, what
 * holds them back, and the sum once links that several drives share are
 * capped. The arithmetic of one drive is pcie_what_if() in
 * common/pci/pcilink.c; print.c prints the result.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bays.h"
#include "project.h"

/* The drives as they are, then as if each were Gen4 x4, Gen5 x4. */
static const struct project_scenario scenarios[PROJECT_SCENARIOS] = {
	{"as_is", "drives as they are", 0, 0},
	{"gen4x4", "every drive Gen4 x4", 16, 4},
	{"gen5x4", "every drive Gen5 x4", 32, 4},
};

static bool projected(const struct probe_dev *p)
{
	return p->kind == KIND_NVME && p->have_path && p->path.nlinks &&
	       p->path.verdict != PCIE_LINK_DOWN;
}

/* Append "what" to the held-back list once. */
static void held_add(struct proj_sum *s, const char *what)
{
	size_t off = strlen(s->held);

	if (strstr(s->held, what))
		return;
	snprintf(s->held + off, sizeof(s->held) - off, "%s%s", off ? ", " : "", what);
}

/* What keeps device p below its scenario link, into s->held. */
static void held_by(struct proj_sum *s, const struct probe_dev *p, const struct pcie_what_if *w)
{
	const struct pcie_link *l;
	char what[120], lbl[80], sp[16];

	if (w->bottleneck > 0) {
		l = &p->path.link[w->bottleneck];
		snprintf(what, sizeof(what), "hop %s (%s GT/s x%u)", l->dev->bdf,
			 pcie_speed_str(l->speed, sp, sizeof(sp)), l->width);
	} else if (w->slot_binds) {
		snprintf(what, sizeof(what), "%s (%s GT/s x%u)",
			 bays_slot_label(p, lbl, sizeof(lbl)),
			 pcie_speed_str(w->port_speed, sp, sizeof(sp)), w->port_width);
	} else {
		return;
	}
	held_add(s, what);
}

/* Does d's path run through the link whose lower end is fn? */
static bool path_has(const struct probe_dev *d, const struct pcie_fn *fn)
{
	int k;

	for (k = 1; k < d->path.nlinks; k++)
		if (d->path.link[k].dev == fn)
			return true;
	return false;
}

/*
 * The per-drive sum counts a link further up once per drive behind it. Cap
 * it: deepest shared link first, the drives behind a link that would carry
 * more than its ceiling are scaled down to it, into s->shared.
 */
static void shared_cap(const struct probe_dev *d, int n, bool usable, struct proj_sum *s)
{
	double part[MAX_DEVS];
	char sp[16];
	int depth, i, j, k, users;

	memcpy(part, s->part, sizeof(part));
	for (depth = PCIE_MAX_HOPS; depth >= 1; depth--) {
		for (i = 0; i < n; i++) {
			const struct pcie_link *l;
			double cap, sum = 0;

			k = d[i].path.nlinks - depth;
			if (!projected(&d[i]) || k < 1)
				continue;
			l = &d[i].path.link[k];
			cap = usable ? l->usable : l->raw;
			for (j = 0, users = 0; j < n; j++)
				if (projected(&d[j]) && path_has(&d[j], l->dev)) {
					sum += part[j];
					users++;
				}
			if (!isfinite(cap) || users < 2 || sum <= cap + 1e-9)
				continue;
			for (j = 0; j < n; j++)
				if (projected(&d[j]) && path_has(&d[j], l->dev))
					part[j] *= cap / sum;
			if (!strstr(s->shared_by, l->dev->bdf))
				snprintf(s->shared_by + strlen(s->shared_by),
					 sizeof(s->shared_by) - strlen(s->shared_by),
					 "%shop %s (%s GT/s x%u: %.2f GB/s for %d drives)",
					 s->shared_by[0] ? ", " : "", l->dev->bdf,
					 pcie_speed_str(l->speed, sp, sizeof(sp)), l->width, cap,
					 users);
		}
	}
	for (s->shared = 0, i = 0; i < n; i++)
		s->shared += part[i];
}

/* Sum one scenario over the drives; fix: every slot runs the drive's speed. */
static void project_sum(const struct probe_dev *d, int n, const struct project_scenario *sc,
			bool fix, struct proj_sum *s)
{
	struct pcie_what_if w;
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n && i < MAX_DEVS; i++) {
		if (!projected(&d[i]))
			continue;
		if (pcie_what_if(&d[i].path, sc->speed, sc->width, fix, &w)) {
			s->raw = s->usable = NAN;
			continue;
		}
		s->raw += w.raw;
		s->usable += w.usable; /* NAN when an MPS is unknown */
		s->part[i] = isfinite(w.usable) ? w.usable : w.raw;
		s->ndrives++;
		held_by(s, &d[i], &w);
	}
	shared_cap(d, n, isfinite(s->usable), s);
}

/*
 * Today's path ceilings (as trained): their per-drive sum, and that sum once
 * the links several drives share are capped, with the hops that cap it.
 */
static void today_sum(const struct probe_dev *d, int n, bool usable, struct projection *pj)
{
	struct proj_sum s;
	int i;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < n && i < MAX_DEVS; i++)
		if (projected(&d[i])) {
			s.part[i] = usable ? d[i].path.usable : d[i].path.raw;
			pj->today_summed += s.part[i];
		}
	shared_cap(d, n, usable, &s);
	pj->today = s.shared;
	snprintf(pj->today_by, sizeof(pj->today_by), "%s", s.shared_by);
}

int project_shared_hop(const struct probe_dev *d, int n, int i, int *users)
{
	const struct pcie_link *l;
	double cap, best = INFINITY;
	int j, k, u, hop = -1;

	*users = 0;
	if (i < 0 || i >= n || !projected(&d[i]))
		return -1;
	for (k = 1; k < d[i].path.nlinks; k++) {
		l = &d[i].path.link[k];
		for (j = 0, u = 0; j < n; j++)
			u += projected(&d[j]) && path_has(&d[j], l->dev);
		cap = isfinite(l->usable) ? l->usable : l->raw;
		if (u < 2 || (hop >= 0 && !(cap < best)))
			continue;
		hop = k;
		best = isfinite(cap) ? cap : best;
		*users = u;
	}
	return hop;
}

void project_drives(const struct probe_dev *d, int n, struct projection *pj)
{
	int i, k;

	memset(pj, 0, sizeof(*pj));
	for (i = 0; i < n; i++)
		pj->drives += projected(&d[i]);
	for (k = 0; k < PROJECT_SCENARIOS; k++) {
		pj->row[k].scenario = &scenarios[k];
		project_sum(d, n, &scenarios[k], false, &pj->row[k].now);
		project_sum(d, n, &scenarios[k], true, &pj->row[k].fixed);
	}
	/* The unit of every sum: usable when the drives as they are all have one. */
	pj->usable = isfinite(pj->row[0].now.usable);
	today_sum(d, n, pj->usable, pj);
}
