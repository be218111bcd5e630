// SPDX-License-Identifier: MIT
/*
 * bays.c: nvme_link_probe's slot side. The slot each device sits in (the
 * physical slot number of its port's SltCap, the kernel's slot name), the
 * slot ceiling, the sort by slot, the site slot specification
 * (--expect-file: what each bay must deliver) and the upgrade projection
 * (--project). The arithmetic is pcie_what_if() in common/pci/pcilink.c.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bays.h"
#include "nbw.h"
#include "parse.h"
#include "print.h"

/* The port above the device's own link, or NULL. */
static const struct pcie_fn *slot_port(const struct probe_dev *p)
{
	return p->have_path && p->path.nlinks ? p->path.link[0].port : NULL;
}

void bays_find_slot(const struct pcitree *t, struct probe_dev *p)
{
	const struct pcie_fn *port = slot_port(p);
	int rc;

	p->slot_number = -1;
	p->slot_ceiling.raw = p->slot_ceiling.usable = NAN;
	p->slot_ceiling.bottleneck = -1;
	if (!port) {
		snprintf(p->slot_reason, sizeof(p->slot_reason), "%s",
			 p->why_no_link[0] ? p->why_no_link : "no PCIe port above the device");
		return;
	}
	pcie_slot_ceiling(&p->path, &p->slot_ceiling);
	snprintf(p->slot_port, sizeof(p->slot_port), "%s", port->bdf);
	if ((port->known & PCIE_K_SLOT) && port->slot_implemented)
		p->slot_number = (int)port->slot_number;
	rc = pcitree_slot_name(t, p->path.hop[0]->bdf, p->slot_name, sizeof(p->slot_name));
	if (rc)
		p->slot_name[0] = 0;
	p->have_slot = p->slot_number >= 0 || p->slot_name[0];
	if (p->have_slot)
		return;
	if (port->known & PCIE_K_SLOT)
		snprintf(
			p->slot_reason, sizeof(p->slot_reason),
			"port %s implements no slot (Slot Implemented clear): the link is wired on "
			"the board%s",
			port->bdf, t->from_dump ? "" : ", and no kernel slot holds it");
	else
		snprintf(p->slot_reason, sizeof(p->slot_reason),
			 "port %s: Slot Implemented unknown (config space beyond the header needs "
			 "root)%s",
			 port->bdf, t->from_dump ? "" : ", and no kernel slot holds it");
}

const char *bays_slot_label(const struct probe_dev *p, char *buf, size_t len)
{
	if (p->slot_number >= 0)
		snprintf(buf, len, "slot %d", p->slot_number);
	else if (p->slot_name[0])
		snprintf(buf, len, "slot %s", p->slot_name);
	else if (p->slot_port[0])
		snprintf(buf, len, "port %s", p->slot_port);
	else
		snprintf(buf, len, "%s", p->bdf[0] ? p->bdf : p->name);
	return buf;
}

/* NUMA node of a device, -1 unknown (software RDMA, single-node machines). */
static int dev_node(const struct probe_dev *p)
{
	return p->fn ? p->fn->numa_node : -1;
}

void bays_rdma_locality(struct probe_dev *d, int n, bool known)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (d[i].kind != KIND_NVME)
			continue;
		d[i].local_rdma = known ? 0 : -1;
		for (j = 0; known && j < n; j++) {
			int a = dev_node(&d[i]), b = dev_node(&d[j]);

			if (d[j].kind != KIND_RDMA || d[j].ports_active <= 0)
				continue;
			/* An unknown node counts as local: one node, or a software device. */
			if (a < 0 || b < 0 || a == b)
				d[i].local_rdma += d[j].ports_active;
		}
	}
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool bays_by_number(const struct probe_dev *d, int n, const char *item)
{
	int i;

	if (!all_digits(item))
		return false;
	for (i = 0; i < n; i++)
		if (d[i].slot_number >= 0 && strtol(item, NULL, 10) == d[i].slot_number)
			return true;
	return false;
}

bool bays_slot_matches(const struct probe_dev *p, const char *item, bool by_number)
{
	if (by_number)
		return p->slot_number >= 0 && strtol(item, NULL, 10) == p->slot_number;
	return p->slot_name[0] && !strcmp(p->slot_name, item);
}

static int cmp_slot(const void *a, const void *b)
{
	const struct probe_dev *x = a, *y = b;
	int rx = x->slot_number >= 0 ? 0 : x->slot_name[0] ? 1 : 2;
	int ry = y->slot_number >= 0 ? 0 : y->slot_name[0] ? 1 : 2;

	if (rx != ry)
		return rx - ry;
	if (rx == 0 && x->slot_number != y->slot_number)
		return x->slot_number - y->slot_number;
	if (rx == 1 && strverscmp(x->slot_name, y->slot_name))
		return strverscmp(x->slot_name, y->slot_name);
	return x->order - y->order;
}

void bays_sort(struct probe_dev *d, int n)
{
	int i;

	for (i = 0; i < n; i++)
		d[i].order = i;
	qsort(d, (size_t)n, sizeof(*d), cmp_slot);
}

/* ---- site slot specification ------------------------------------------------ */

static int spec_err(const struct site_spec *s, int line, const char *why, const char *tok)
{
	nbw_err("%s:%d: %s%s%s%s", s->file, line, why, tok ? " '" : "", tok ? tok : "",
		tok ? "'" : "");
	return NBW_EXIT_USAGE;
}

/* One non-blank line "KEY GEN WIDTH" (comment already cut) into b. */
static int spec_line(struct site_spec *s, char *text, int line, struct bay_spec *b)
{
	char *tok[4], *save = NULL;
	unsigned long gen;
	int k = 0, i;

	for (char *t = strtok_r(text, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save))
		if (k < 4)
			tok[k++] = t;
		else
			k++;
	if (k != 3)
		return spec_err(s, line,
				"expected 'slot-or-bdf gen width', found a different "
				"number of fields",
				NULL);
	memset(b, 0, sizeof(*b));
	b->line = line;
	if (strchr(tok[0], ':')) {
		if (pcie_bdf_normalise(tok[0], b->key))
			return spec_err(s, line, "not a PCI address", tok[0]);
		b->is_bdf = true;
	} else if (strlen(tok[0]) >= sizeof(b->key)) {
		return spec_err(s, line, "slot name too long", tok[0]);
	} else {
		snprintf(b->key, sizeof(b->key), "%s", tok[0]);
	}
	if (parse_uint(tok[1], 1, 6, &gen))
		return spec_err(s, line, "not a PCIe generation (1-6)", tok[1]);
	b->speed = pcie_speed_gts((unsigned)gen);
	if (pcie_parse_width(tok[2], &b->width))
		return spec_err(s, line, "not a PCIe link width (1 2 4 8 12 16 32)", tok[2]);
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->bay[i].key, b->key))
			return spec_err(s, line, "bay already specified on an earlier line",
					tok[0]);
	return 0;
}

int bays_spec_load(const char *file, struct site_spec *s)
{
	char buf[512];
	int line = 0, rc = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->file = file;
	f = fopen(file, "r");
	if (!f) {
		nbw_err("%s: %s", file, strerror(errno));
		return NBW_EXIT_USAGE;
	}
	s->bay = calloc(MAX_DEVS, sizeof(*s->bay));
	if (!s->bay) {
		fclose(f);
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	while (!rc && fgets(buf, sizeof(buf), f)) {
		char *hash = strchr(buf, '#'), *p;

		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			rc = spec_err(s, line, "line too long", NULL);
			break;
		}
		if (hash)
			*hash = 0;
		buf[strcspn(buf, "\n")] = 0;
		for (p = buf; *p && isspace((unsigned char)*p); p++)
			;
		if (!*p)
			continue;
		if (s->n >= MAX_DEVS)
			rc = spec_err(s, line, "too many bays", NULL);
		else if (!(rc = spec_line(s, p, line, &s->bay[s->n])))
			s->n++;
	}
	fclose(f);
	if (rc)
		bays_spec_free(s);
	return rc;
}

void bays_spec_free(struct site_spec *s)
{
	free(s->bay);
	*s = (struct site_spec){.file = s->file};
}

static bool spec_matches(const struct bay_spec *b, const struct probe_dev *p, bool by_number)
{
	if (b->is_bdf)
		return p->bdf[0] && !strcmp(b->key, p->bdf);
	return bays_slot_matches(p, b->key, by_number);
}

/* "slot 33" or "0000:01:00.0": the bay as the site file names it. */
static const char *bay_name(const struct bay_spec *b, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", b->is_bdf ? "" : "slot ", b->key);
	return buf;
}

/* The link a bay delivers is judged; a training verdict it expects becomes ok. */
static void spec_judge(const struct site_spec *s, const struct bay_spec *b, struct probe_dev *p)
{
	struct pcie_path *pa = &p->path;
	struct pcie_link *l = pa->nlinks ? &pa->link[0] : NULL;
	char a[16], c[16], bay[80];
	double speed;
	unsigned width;

	p->spec = b;
	p->spec_ok = false;
	bay_name(b, bay, sizeof(bay));
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

bool bays_spec_check(struct site_spec *s, struct probe_dev *d, int n, bool selected)
{
	bool met = true;
	int i, j;

	for (j = 0; j < s->n; j++) {
		struct bay_spec *b = &s->bay[j];
		bool by_number = bays_by_number(d, n, b->key);

		for (i = 0; i < n; i++) {
			if (!spec_matches(b, &d[i], by_number))
				continue;
			b->matched = true;
			spec_judge(s, b, &d[i]);
			met &= d[i].spec_ok;
		}
		/* An empty bay falls short, unless --dev/--slot chose other devices. */
		if (!b->matched && !selected)
			met = false;
	}
	return met;
}

void bays_spec_lines(const struct site_spec *s, const struct probe_dev *d, int n)
{
	char a[16], bay[80];
	int i, j;

	for (i = 0; i < n; i++)
		if (d[i].spec && !d[i].spec_ok)
			nbw_err("%s", d[i].spec_msg);
	for (j = 0; j < s->n; j++) {
		const struct bay_spec *b = &s->bay[j];

		if (!b->matched)
			nbw_err("%s: expected %s GT/s x%u (%s:%d), no device found in it",
				bay_name(b, bay, sizeof(bay)),
				pcie_speed_str(b->speed, a, sizeof(a)), b->width, s->file, b->line);
	}
}

void bays_spec_report(struct report *r, const struct site_spec *s, const struct probe_dev *d, int n)
{
	char a[16], bay[80], msg[200];
	bool met = true;
	int i, j;

	report_obj_begin(r, "site_spec");
	report_str(r, "file", NULL, s->file);
	report_arr_begin(r, "short");
	for (i = 0; i < n; i++) {
		if (!d[i].spec || d[i].spec_ok)
			continue;
		met = false;
		report_obj_begin(r, NULL);
		report_str(r, "bay", NULL, bay_name(d[i].spec, bay, sizeof(bay)));
		report_i64(r, "line", NULL, d[i].spec->line);
		report_str(r, "reason", NULL, d[i].spec_msg);
		report_obj_end(r);
	}
	for (j = 0; j < s->n; j++) {
		if (s->bay[j].matched)
			continue;
		met = false;
		snprintf(msg, sizeof(msg), "expected %s GT/s x%u, no device found in it",
			 pcie_speed_str(s->bay[j].speed, a, sizeof(a)), s->bay[j].width);
		report_obj_begin(r, NULL);
		report_str(r, "bay", NULL, bay_name(&s->bay[j], bay, sizeof(bay)));
		report_i64(r, "line", NULL, s->bay[j].line);
		report_str(r, "reason", NULL, msg);
		report_obj_end(r);
	}
	report_arr_end(r);
	report_bool(r, "met", NULL, met);
	report_obj_end(r);
}

/* ---- upgrade projection ---------------------------------------------------------- */

static const struct scenario {
	const char *key, *text;
	double speed;
	unsigned width;
} scenarios[] = {
	{"as_is", "drives as they are", 0, 0},
	{"gen4x4", "every drive Gen4 x4", 16, 4},
	{"gen5x4", "every drive Gen5 x4", 32, 4},
};

/* Per scenario and slot state: the sums and what holds the drives back. */
struct proj_sum {
	double raw, usable;
	int ndrives;
	char held[400];	       /* "slot 3 (8 GT/s x4), hop 0000:03:00.0 (5 GT/s x16)" */
	double part[MAX_DEVS]; /* each drive's share (usable, else raw), 0 if none */
	double shared;	       /* the sum once links that several drives share are capped */
	char shared_by[200];
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
					 "%shop %s (%.2f GB/s for %d drives)",
					 s->shared_by[0] ? ", " : "", l->dev->bdf, cap, users);
		}
	}
	for (s->shared = 0, i = 0; i < n; i++)
		s->shared += part[i];
}

/* Sum one scenario over the drives; fix: every slot runs the drive's speed. */
static void project_sum(const struct probe_dev *d, int n, const struct scenario *sc, bool fix,
			struct proj_sum *s)
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

static void project_json_sum(struct report *r, const char *key, const struct proj_sum *s)
{
	report_obj_begin(r, key);
	report_double(r, "raw", NULL, s->raw);
	report_double(r, "usable", NULL, s->usable);
	report_str(r, "held_back_by", NULL, s->held[0] ? s->held : NULL);
	report_double(r, "shared_links_capped", NULL, s->shared);
	report_str(r, "shared_links", NULL, s->shared_by[0] ? s->shared_by : NULL);
	report_obj_end(r);
}

/* Sum of today's path ceilings (as trained). */
static double today_sum(const struct probe_dev *d, int n, bool usable)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++)
		if (projected(&d[i]))
			sum += usable ? d[i].path.usable : d[i].path.raw;
	return sum;
}

/* Drives with no ACTIVE RDMA port on their NUMA node. */
static void project_rdma(struct report *r, const struct probe_dev *d, int n)
{
	char lbl[100];
	int i, flagged = 0, unknown = 0, drives = 0;

	report_arr_begin(r, "no_local_rdma");
	for (i = 0; i < n; i++) {
		if (d[i].kind != KIND_NVME)
			continue;
		drives++;
		unknown += d[i].local_rdma < 0;
		if (d[i].local_rdma != 0)
			continue;
		snprintf(lbl, sizeof(lbl), "%s%s%s%s", d[i].name, d[i].name[0] ? " (" : "",
			 d[i].bdf, d[i].name[0] ? ")" : "");
		report_str(r, NULL, NULL, lbl);
		report_text(r, "  %s, NUMA node %d: no ACTIVE RDMA port on its NUMA node\n", lbl,
			    dev_node(&d[i]));
		flagged++;
	}
	report_arr_end(r);
	if (unknown)
		report_text(r, "  RDMA port state unknown for %d drive%s (no sysfs in a dump)\n",
			    unknown, unknown == 1 ? "" : "s");
	else if (!flagged && drives)
		report_text(r, "  every drive has an ACTIVE RDMA port on its NUMA node\n");
}

void bays_project(struct report *r, const struct probe_dev *d, int n)
{
	struct proj_sum now, fixed;
	bool usable;
	size_t k;
	int i, nd = 0;

	for (i = 0; i < n; i++)
		nd += projected(&d[i]);
	project_sum(d, n, &scenarios[0], false, &now);
	usable = isfinite(now.usable);
	report_obj_begin(r, "projection");
	report_i64(r, "drives", NULL, nd);
	report_str(r, "unit", NULL, usable ? "usable" : "raw");
	report_double(r, "today_gb_per_s", NULL, today_sum(d, n, usable));
	report_text(r, "\nprojection: %s GB/s summed over %d drive%s (today, as trained: %.2f)\n",
		    usable ? "usable" : "raw (MPS unknown)", nd, nd == 1 ? "" : "s",
		    today_sum(d, n, usable));
	report_text(r, "  %-22s %18s %18s\n", "scenario", "slots as they are", "slots fixed");
	report_arr_begin(r, "scenarios");
	for (k = 0; k < NBW_ARRAY_SIZE(scenarios); k++) {
		const struct scenario *sc = &scenarios[k];

		project_sum(d, n, sc, false, &now);
		project_sum(d, n, sc, true, &fixed);
		report_obj_begin(r, NULL);
		report_str(r, "scenario", NULL, sc->key);
		print_speed(r, "drive_speed_gts", sc->speed);
		if (sc->width)
			report_u64(r, "drive_width", NULL, sc->width);
		else
			report_null(r, "drive_width", NULL);
		project_json_sum(r, "slots_as_they_are_gb_per_s", &now);
		project_json_sum(r, "slots_fixed_gb_per_s", &fixed);
		report_obj_end(r);
		report_text(r, "  %-22s %18.2f %18.2f\n", sc->text, usable ? now.usable : now.raw,
			    usable ? fixed.usable : fixed.raw);
		if (now.held[0])
			report_text(r, "      held back by %s\n", now.held);
		if (fixed.held[0])
			report_text(r, "      with every slot fixed, still by %s\n", fixed.held);
		if (now.shared_by[0] || fixed.shared_by[0])
			report_text(r, "      shared links cap the sums at %.2f / %.2f: %s\n",
				    now.shared, fixed.shared,
				    fixed.shared_by[0] ? fixed.shared_by : now.shared_by);
	}
	report_arr_end(r);
	project_rdma(r, d, n);
	report_obj_end(r);
}
