// SPDX-License-Identifier: MIT
/* linkload.c: the PCIe link and AER counts of each device during a window (linkload.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkload.h"
#include "pcilink.h"
#include "sysfs.h"
#include "timing.h"

static const struct {
	const char *file, *total, *key;
} aer_files[LL_AER_KINDS] = {
	[LL_AER_CORRECTABLE] = {"aer_dev_correctable", "TOTAL_ERR_COR", "correctable"},
	[LL_AER_NONFATAL] = {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", "nonfatal"},
	[LL_AER_FATAL] = {"aer_dev_fatal", "TOTAL_ERR_FATAL", "fatal"},
};

struct linkload *linkload_new(void)
{
	return calloc(1, sizeof(struct linkload));
}

void linkload_free(struct linkload *ll)
{
	free(ll);
}

struct linkload *linkload_dup(const struct linkload *ll)
{
	struct linkload *c = ll ? malloc(sizeof(*c)) : NULL;

	if (c)
		memcpy(c, ll, sizeof(*c));
	return c;
}

/* "DDDD:BB:DD.F" in hexadecimal digits, nothing else (a name from a link or a peer). */
static bool is_bdf(const char *s)
{
	static const char shape[] = "hhhh:hh:hh.h";
	size_t i;

	if (strlen(s) != sizeof(shape) - 1)
		return false;
	for (i = 0; shape[i]; i++)
		if (shape[i] == 'h' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return true;
}

int linkload_add(struct linkload *ll, const char *sysfs_root, const char *name, const char *kind,
		 const char *bdf)
{
	struct ll_dev *d;

	if (!is_bdf(bdf))
		return -EINVAL;
	if (linkload_find(ll, bdf))
		return -EEXIST;
	if (ll->n == LL_MAX_DEV) {
		ll->truncated = true;
		return -ENOSPC;
	}
	d = &ll->d[ll->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
	snprintf(d->dir, sizeof(d->dir), "%s/bus/pci/devices/%s", sysfs_root ? sysfs_root : "/sys",
		 bdf);
	d->min = (struct ll_link){.speed_gts = 0, .width = -1};
	return 0;
}

const struct ll_dev *linkload_find(const struct linkload *ll, const char *bdf)
{
	int i;

	for (i = 0; ll && bdf && i < ll->n; i++)
		if (!strcmp(ll->d[i].bdf, bdf))
			return &ll->d[i];
	return NULL;
}

/* ---- the link ------------------------------------------------------------------------- */

/* The link now: "8.0 GT/s PCIe" and "4"; what is unreadable or not PCIe stays unknown. */
static struct ll_link read_link(const struct ll_dev *d, double t_s)
{
	struct ll_link l = {.t_s = t_s, .speed_gts = 0, .width = -1};
	char buf[64], *end;
	unsigned long w;
	double v;

	if (!sysfs_read_attr(d->dir, "current_link_speed", buf, sizeof(buf)) &&
	    sscanf(buf, "%lf", &v) == 1 && pcie_speed_code(v))
		l.speed_gts = v;
	if (!sysfs_read_attr(d->dir, "current_link_width", buf, sizeof(buf)) && buf[0]) {
		errno = 0;
		w = strtoul(buf, &end, 10);
		if (!errno && !*end && isdigit((unsigned char)buf[0]) && w <= 32)
			l.width = (int)w;
	}
	return l;
}

static bool same_link(const struct ll_link *a, const struct ll_link *b)
{
	return a->speed_gts == b->speed_gts && a->width == b->width;
}

/* A reading below the opening's: a known lower speed, fewer lanes (0: down). */
static bool below(const struct ll_link *l, const struct ll_link *before)
{
	return (before->speed_gts > 0 && l->speed_gts > 0 && l->speed_gts < before->speed_gts) ||
	       (before->width > 0 && l->width >= 0 && l->width < before->width);
}

/* One reading of d into its before, changes, lowest and last. */
static void take(struct ll_dev *d, const struct ll_link *l)
{
	if (!d->samples++) {
		d->has_before = true;
		d->before = *l;
	} else if (!same_link(l, &d->last)) {
		if (d->nchanges < LL_MAX_CHANGES)
			d->change[d->nchanges] = *l;
		d->nchanges++;
	}
	if (l->speed_gts > 0 && (d->min.speed_gts == 0 || l->speed_gts < d->min.speed_gts))
		d->min.speed_gts = l->speed_gts;
	if (l->width >= 0 && (d->min.width < 0 || l->width < d->min.width))
		d->min.width = l->width;
	d->last = *l;
}

/* Every device's link at t_s, within LL_SAMPLE_MS; the rest miss this sample. */
static void sample_all(struct linkload *ll, double t_s, bool last)
{
	uint64_t deadline = nbw_now_ns() + (uint64_t)LL_SAMPLE_MS * 1000000u;
	int i;

	for (i = 0; i < ll->n; i++) {
		struct ll_dev *d = &ll->d[i];
		struct ll_link l;

		if (nbw_now_ns() > deadline) {
			d->skipped++;
			continue;
		}
		l = read_link(d, t_s);
		take(d, &l);
		if (last) {
			d->has_after = true;
			d->after = l;
		}
	}
}

/* ---- AER ------------------------------------------------------------------------------ */

int linkload_parse_aer(const char *text, const char *total, uint64_t *v)
{
	uint64_t sum = 0, tot = 0, n;
	bool have_total = false;
	const char *p = text, *name;
	size_t len;
	char *end;
	int lines = 0;

	while (*p) {
		if (*p == '\n') {
			p++;
			continue;
		}
		for (name = p; isalnum((unsigned char)*p) || *p == '_'; p++)
			;
		len = (size_t)(p - name);
		if (!len || len > 47 || *p != ' ')
			return -EINVAL;
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		n = strtoull(p, &end, 10);
		if (errno || (*end && *end != '\n'))
			return -EINVAL;
		p = end;
		lines++;
		if (len == strlen(total) && !strncmp(name, total, len)) {
			have_total = true;
			tot = n;
		} else if (sum + n < sum) {
			return -EINVAL;
		} else {
			sum += n;
		}
	}
	if (!lines)
		return -EINVAL;
	*v = have_total ? tot : sum;
	return 0;
}

/* One AER count of d now: 0, or not kept (no file, too long, not "NAME COUNT" lines). */
static int read_aer(const struct ll_dev *d, enum ll_aer_kind k, uint64_t *v)
{
	char *buf = malloc(LL_AER_FILE_MAX);
	int rc = -ENOMEM;

	if (buf) {
		rc = sysfs_read_attr(d->dir, aer_files[k].file, buf, LL_AER_FILE_MAX);
		if (!rc && strlen(buf) >= LL_AER_FILE_MAX - 2)
			rc = -EFBIG; /* perhaps cut: no count */
		if (!rc)
			rc = linkload_parse_aer(buf, aer_files[k].total, v);
	}
	free(buf);
	return rc;
}

static void aer_all(struct linkload *ll, bool after)
{
	int i, k;

	for (i = 0; i < ll->n; i++)
		for (k = 0; k < LL_AER_KINDS; k++) {
			struct ll_aer *a = &ll->d[i].aer[k];

			if (after)
				a->kept_after = !read_aer(&ll->d[i], k, &a->after);
			else
				a->kept_before = !read_aer(&ll->d[i], k, &a->before);
		}
}

/* ---- the window ----------------------------------------------------------------------- */

void linkload_open(struct linkload *ll)
{
	if (!ll)
		return;
	aer_all(ll, false);
	sample_all(ll, 0, false);
	ll->opened = true;
}

void linkload_sample(struct linkload *ll, double t_s)
{
	if (ll && ll->opened && !ll->closed)
		sample_all(ll, t_s, false);
}

void linkload_close(struct linkload *ll, double t_s)
{
	if (!ll || !ll->opened || ll->closed)
		return;
	sample_all(ll, t_s, true);
	aer_all(ll, true);
	ll->closed = true;
}

const struct ll_link *linkload_first_drop(const struct ll_dev *d)
{
	int i, n = d->nchanges < LL_MAX_CHANGES ? d->nchanges : LL_MAX_CHANGES;

	if (!d->has_before)
		return NULL;
	for (i = 0; i < n; i++)
		if (below(&d->change[i], &d->before))
			return &d->change[i];
	return NULL;
}

bool linkload_dropped(const struct ll_dev *d)
{
	return d->has_before && (linkload_first_drop(d) || below(&d->min, &d->before));
}

bool linkload_aer_moved(const struct ll_dev *d)
{
	int k;

	for (k = 0; k < LL_AER_KINDS; k++)
		if (d->aer[k].kept_before && d->aer[k].kept_after &&
		    d->aer[k].after != d->aer[k].before)
			return true;
	return false;
}

const char *linkload_aer_name(enum ll_aer_kind k)
{
	return k < LL_AER_KINDS ? aer_files[k].key : "?";
}
