// SPDX-License-Identifier: MIT
/*
 * pcitree_dump.c: pcitree's dump method (see pcitree_method.h): an `lspci
 * -xxx` dump checked line by line (pcidump.c) and handed to libpci's dump
 * access as a private copy of the checked bytes; parents from the bridges'
 * secondary bus numbers and VFs from their physical function's SR-IOV
 * capability (a dump has no sysfs links, NUMA nodes or drivers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pcidump.h"
#include "pcitree_method.h"

static int cmp_bridge(const void *a, const void *b, void *arg)
{
	const struct pcie_fn *fn = arg;
	const struct pcie_fn *x = &fn[*(const int *)a], *y = &fn[*(const int *)b];

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->secondary != y->secondary)
		return x->secondary < y->secondary ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/*
 * dump: parent = the bridge whose secondary bus is ours (the first in address
 * order when several claim it). Bridges are indexed by (domain, secondary),
 * so this is n log n. Only a bridge whose secondary bus number is above its
 * own bus number can be a parent, so dump parents never form a cycle.
 */
static int dump_parents(struct pcitree *t)
{
	int *br = malloc((size_t)(t->n ? t->n : 1) * sizeof(*br));
	int nb = 0, i;

	if (!br)
		return -ENOMEM;
	for (i = 0; i < t->n; i++)
		if (t->fn[i].bridge && t->fn[i].secondary > t->fn[i].bus)
			br[nb++] = i;
	qsort_r(br, (size_t)nb, sizeof(*br), cmp_bridge, t->fn);
	for (i = 0; i < t->n; i++) {
		struct pcie_fn *f = &t->fn[i];
		int lo = 0, hi = nb;

		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			const struct pcie_fn *b = &t->fn[br[mid]];

			if (b->domain < f->domain ||
			    (b->domain == f->domain && b->secondary < f->bus))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nb && t->fn[br[lo]].domain == f->domain &&
		    t->fn[br[lo]].secondary == f->bus)
			f->parent = br[lo];
	}
	free(br);
	return 0;
}

/* Mark fn[j] a virtual function of fn[i]. */
static void mark_vf(struct pcitree *t, int i, int j)
{
	if (j == i)
		return;
	t->fn[j].is_vf = true;
	snprintf(t->fn[j].pf_bdf, sizeof(t->fn[j].pf_bdf), "%s", t->fn[i].bdf);
}

static unsigned rid_of(const struct pcie_fn *f)
{
	return (unsigned)(f->bus << 8 | f->dev << 3 | f->func);
}

/*
 * dump: the VFs of physical function i, routing IDs first + k * stride for
 * k < NumVFs (within the 16-bit RID space of its domain). Whichever is
 * shorter is walked: the VF numbers (a binary search each) or the functions
 * of the dump inside the RID range, so a dump of many PFs with many VFs each
 * is linked without comparing every function with every VF.
 */
static void dump_vfs_of(struct pcitree *t, int i)
{
	const struct pcie_fn *pf = &t->fn[i];
	unsigned first = rid_of(pf) + pf->sriov_offset, stride = pf->sriov_stride;
	unsigned long last, num = pf->sriov_num_vfs;
	char lo_bdf[16], hi_bdf[16];
	int lo, hi, j;
	unsigned long k;

	if (first > 0xffff)
		return;
	if (stride == 0)
		num = 1;
	else if (num > (0xffffUL - first) / stride + 1)
		num = (0xffffUL - first) / stride + 1;
	last = first + (num - 1) * stride;
	snprintf(lo_bdf, sizeof(lo_bdf), "%04x:%02x:%02x.%u", pf->domain & 0xffff, first >> 8,
		 (first >> 3) & 0x1f, first & 7);
	snprintf(hi_bdf, sizeof(hi_bdf), "%04x:%02x:%02x.%u", pf->domain & 0xffff,
		 (unsigned)(last >> 8), (unsigned)(last >> 3) & 0x1f, (unsigned)last & 7);
	lo = pcitree_lower_bound(t, lo_bdf);
	hi = pcitree_lower_bound(t, hi_bdf);
	if (hi < t->n && !strcmp(t->fn[hi].bdf, hi_bdf))
		hi++;
	if ((unsigned long)(hi - lo) < num) {
		for (j = lo; j < hi; j++) {
			unsigned r = rid_of(&t->fn[j]);

			if (stride ? (r - first) % stride == 0 : r == first)
				mark_vf(t, i, j);
		}
		return;
	}
	for (k = 0; k < num; k++) {
		unsigned long v = first + k * stride;
		char bdf[16];

		snprintf(bdf, sizeof(bdf), "%04x:%02lx:%02lx.%lu", pf->domain & 0xffff, v >> 8,
			 (v >> 3) & 0x1f, v & 7);
		j = pcitree_lower_bound(t, bdf);
		if (j < t->n && !strcmp(t->fn[j].bdf, bdf))
			mark_vf(t, i, j);
	}
}

static int dump_relations(struct pcitree *t)
{
	int i, rc = dump_parents(t);

	for (i = 0; !rc && i < t->n; i++)
		if (t->fn[i].sriov_pos && t->fn[i].sriov_num_vfs)
			dump_vfs_of(t, i);
	return rc;
}

/*
 * Read and check the dump (pcidump.c), then hand libpci a private copy of the
 * checked bytes: a memfd named through /proc/self/fd, so that what libpci
 * parses is what was checked (and a pipe can be read twice). Without memfd
 * or /proc, libpci reads the file itself after the check. 0 or -errno.
 */
static int dump_prepare(struct pcitree *t, struct pcitree_src *s, char *err, size_t errlen)
{
	const char *file = s->file;
	struct pcidump_err e = {0, ""};
	size_t len, done = 0;
	char *buf;
	int rc;

	(void)t;
	s->fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", file);
	rc = pcidump_read(file, &buf, &len, &e);
	if (!rc)
		rc = pcidump_check(buf, len, &e);
	if (rc) {
		if (e.reason[0] && e.line)
			snprintf(err, errlen, "%s:%u: %s", file, e.line, e.reason);
		else
			snprintf(err, errlen, "%s: %s", file,
				 e.reason[0] ? e.reason : strerror(-rc));
		if (buf)
			free(buf);
		return rc;
	}
	s->fd = memfd_create("nbw-pcidump", MFD_CLOEXEC);
	while (s->fd >= 0 && done < len) {
		ssize_t n = write(s->fd, buf + done, len - done);

		if (n <= 0) {
			close(s->fd);
			s->fd = -1;
			break;
		}
		done += (size_t)n;
	}
	free(buf);
	if (s->fd >= 0) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", s->fd);
		if (!access(proc, R_OK))
			snprintf(s->name, sizeof(s->name), "%s", proc);
	}
	return 0;
}

static void dump_setup(struct pcitree_src *s, struct pci_access *pacc)
{
	pacc->method = PCI_ACCESS_DUMP;
	pci_set_param(pacc, "dump.name", s->name);
}

const struct pcitree_method pcitree_dump_method = {
	.prepare = dump_prepare,
	.setup = dump_setup,
	.relate = dump_relations,
};
