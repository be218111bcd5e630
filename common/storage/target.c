// SPDX-License-Identifier: MIT
/* target.c: collect, validate, open and close the read targets (see target.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "digest.h"
#include "nbw.h" /* NBW_PRINTF */
#include "parse.h"
#include "pcitree.h"
#include "provenance.h"
#include "target.h"

/* Fill e (the line, and whether the command line is at fault); returns rc. */
static int NBW_PRINTF(4, 5)
	target_fail(struct target_err *e, bool usage, int rc, const char *fmt, ...)
{
	va_list ap;

	e->usage = usage;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return rc;
}

/* Why the target at path cannot be used (drive_describe()'s rc); returns rc. */
static int path_error(struct target_err *e, const char *path, int rc)
{
	switch (rc) {
	case -EISDIR:
		return target_fail(e, false, rc, "%s: is a directory, not a block device or file",
				   path);
	case -ENODEV:
		return target_fail(e, false, rc, "%s: not a block device or regular file", path);
	default:
		return target_fail(e, false, rc, "%s: %s", path, strerror(-rc));
	}
}

/* The PCIe ceiling of every drive behind a PCI function, from one load of the tree. */
static void fill_ceilings(const char *sysfs_root, struct target *t, int n)
{
	struct pcitree tree;
	char err[256];
	int i;

	for (i = 0; i < n && !t[i].d.bdf[0]; i++)
		;
	if (i == n || pcitree_load(&tree, sysfs_root, NULL, err, sizeof(err)))
		return;
	for (i = 0; i < n; i++)
		if (t[i].d.bdf[0])
			t[i].d.link_ceiling = pcitree_usable_ceiling(&tree, t[i].d.bdf);
	pcitree_free(&tree);
}

static int collect_discovered(const struct target_query *q, struct target *t, struct target_err *e)
{
	static struct drive found[TARGET_MAX];
	int n, i;

	n = drive_discover_nvme(q->sysfs_root, "/dev", found, TARGET_MAX);
	if (n < 0 && q->required)
		return target_fail(e, false, n, "%s/class/block: %s", q->sysfs_root, strerror(-n));
	if (n <= 0 && q->required)
		return target_fail(
			e, false, -ENOENT,
			"no NVMe namespaces found under %s/class/block; name targets with %s%s",
			q->sysfs_root, q->option, q->hint ? q->hint : "");
	for (i = 0; i < n; i++)
		t[i].d = found[i];
	return n < 0 ? 0 : n;
}

static int collect_listed(const struct target_query *q, struct target *t, struct target_err *e)
{
	char *items[TARGET_MAX];
	int n, i, j, rc;

	n = parse_list(q->list, items, TARGET_MAX);
	if (n < 0)
		return target_fail(e, true, n, "invalid %s list: %s", q->option,
				   n == -E2BIG ? "too many targets" : "empty item");
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			if (!strcmp(items[i], items[j]))
				return target_fail(e, true, -EINVAL, "%s: named twice in %s",
						   items[i], q->option);
		}
		rc = drive_describe(q->sysfs_root, items[i], &t[i].d);
		if (rc)
			return path_error(e, items[i], rc);
	}
	return n;
}

int target_collect(const struct target_query *q, struct target *t, struct target_err *e)
{
	int n = q->list ? collect_listed(q, t, e) : collect_discovered(q, t, e);
	int i;

	for (i = 0; i < n; i++)
		t[i].fd = -1;
	if (n > 0)
		fill_ceilings(q->sysfs_root, t, n);
	return n;
}

uint32_t target_align(const struct target *t)
{
	return t->d.lbs > DIGEST_BLOCK ? t->d.lbs : DIGEST_BLOCK;
}

/* The geometry checks of one target: 0, or -EINVAL with e (a usage error). */
static int check_geometry(struct target *t, uint64_t chunk, uint64_t span, unsigned threads,
			  struct target_err *e)
{
	const struct drive *d = &t->d;
	char a[32], b[32];

	if (chunk % d->lbs)
		return target_fail(e, true, -EINVAL,
				   "%s: chunk %s is not a multiple of the logical block size %u",
				   d->path, format_size(chunk, a, sizeof(a)), d->lbs);
	if (span > d->size)
		return target_fail(e, true, -EINVAL, "%s: span %s is larger than the target (%s)",
				   d->path, format_size(span, a, sizeof(a)),
				   format_size(d->size, b, sizeof(b)));
	t->span = span ? span : d->size;
	if (chunk > t->span)
		return target_fail(e, true, -EINVAL, "%s: chunk %s is larger than the span (%s)",
				   d->path, format_size(chunk, a, sizeof(a)),
				   format_size(t->span, b, sizeof(b)));
	if (t->span / threads < target_align(t))
		return target_fail(e, true, -EINVAL,
				   "%s: span %s is too small for %u threads (each needs %u bytes)",
				   d->path, format_size(t->span, a, sizeof(a)), threads,
				   target_align(t));
	return 0;
}

int target_prepare(struct target *t, int n, uint64_t chunk, uint64_t span, unsigned threads,
		   struct target_err *e)
{
	int i, rc;

	for (i = 0; i < n; i++)
		t[i].fd = -1;
	for (i = 0; i < n; i++) {
		rc = check_geometry(&t[i], chunk, span, threads, e);
		if (rc)
			return rc;
		t[i].fd = drive_open_readonly(t[i].d.path);
		if (t[i].fd < 0)
			return target_fail(e, false, t[i].fd, "%s: %s", t[i].d.path,
					   strerror(-t[i].fd));
	}
	return 0;
}

void target_close(struct target *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (t[i].fd >= 0)
			close(t[i].fd);
		t[i].fd = -1;
	}
}

int target_regions(const struct target *t, unsigned threads, struct region *out)
{
	return region_split(t->span, threads, target_align(t), out);
}

void target_provenance(const struct target *t, int n, const char *sysfs_root, struct provenance *p)
{
	int i;

	for (i = 0; p && i < n; i++) {
		const struct drive *d = &t[i].d;

		if (d->kind == DRIVE_NVME)
			prov_add_nvme(p, sysfs_root, d->path, d->ctrl);
		else
			prov_add_target(p, d->path, drive_kind_name(d->kind));
	}
}
