// SPDX-License-Identifier: MIT
/*
 * pcitree.c: the PCI functions of a machine through libpci (live sysfs, a
 * captured sysfs tree, or an `lspci -xxx` dump), their upstream bridges and
 * virtual-function parents, and the path of a device to its root port. How
 * each source is read is its access method's file behind a small table
 * (pcitree_method.h), as pciutils splits its own: pcitree_sysfs.c (with
 * what only sysfs knows: a directory's function, slot names) and
 * pcitree_dump.c.
 *
 * Every input is hostile: a dump is checked line by line (pcidump.c) before
 * libpci reads it; a sysfs tree with a FIFO where libpci opens a file is
 * refused; parent links that form a cycle are cut; every walk up the tree is
 * iterative and bounded; lookups are binary searches over the sorted
 * functions, so VF matching is n log n.
 *
 * libpci reports fatal errors through a callback that must not return; it
 * is answered with a longjmp back into pcitree_load(), so that no error
 * ends the process from here.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/pci.h>

#include "pcitree_method.h"

/* Longest parent chain walked (a real one has a handful of hops). */
#define PCITREE_MAX_DEPTH 64

/* Per thread: a process may load trees from two threads (--bidir's two roles). */
static _Thread_local jmp_buf pci_jmp;
static _Thread_local char pci_errmsg[256];

static void __attribute__((noreturn)) pci_error_cb(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_errmsg, sizeof(pci_errmsg), msg, ap);
	va_end(ap);
	longjmp(pci_jmp, 1);
}

static void pci_quiet_cb(char *msg, ...)
{
	(void)msg;
}

int pcitree_lower_bound(const struct pcitree *t, const char *bdf)
{
	int lo = 0, hi = t->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(t->fn[mid].bdf, bdf) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct pcie_fn *pcitree_find(const struct pcitree *t, const char *bdf)
{
	char want[16];
	int i;

	if (pcie_bdf_normalise(bdf, want))
		return NULL;
	i = pcitree_lower_bound(t, want);
	return i < t->n && !strcmp(t->fn[i].bdf, want) ? &t->fn[i] : NULL;
}

/*
 * A device that is its own ancestor (a crafted sysfs tree whose device sits
 * under a directory named with its own address, or two that sit under each
 * other) loses the parent link that closes the cycle. Each function is
 * walked once (0 = unseen, 1 = on the current walk, 2 = done): linear, no
 * recursion.
 */
static int break_cycles(struct pcitree *t)
{
	unsigned char *state = calloc(t->n ? (size_t)t->n : 1, 1);
	int i, j, prev;

	if (!state)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		for (prev = -1, j = i; j >= 0 && !state[j]; prev = j, j = t->fn[j].parent)
			state[j] = 1;
		if (j >= 0 && state[j] == 1 && prev >= 0)
			t->fn[prev].parent = -1;
		for (j = i; j >= 0 && state[j] == 1; j = t->fn[j].parent)
			state[j] = 2;
	}
	free(state);
	return 0;
}

/* A header-only function's role from its parent's (parent NULL: it has none). */
static enum pcie_role role_below(const struct pcie_fn *f, const enum pcie_role *parent)
{
	if (!f->bridge)
		return (f->known & (PCIE_K_MAX | PCIE_K_LNKSTA)) ? PCIE_ROLE_ENDPOINT
								 : PCIE_ROLE_UNKNOWN;
	if (!parent)
		return PCIE_ROLE_ROOT_PORT;
	switch (*parent) {
	case PCIE_ROLE_ROOT_PORT:
	case PCIE_ROLE_SWITCH_DOWN:
		return PCIE_ROLE_SWITCH_UP;
	case PCIE_ROLE_SWITCH_UP:
		return PCIE_ROLE_SWITCH_DOWN;
	default:
		return PCIE_ROLE_UNKNOWN;
	}
}

/*
 * Header-only functions (no root): a bridge's role follows from its place,
 * root port on a root bus, then switch upstream and downstream alternating.
 * Iterative: each function's chain is collected upwards (at most
 * PCITREE_MAX_DEPTH, beyond which the role stays unknown) to the first one
 * already settled, then settled downwards. Parents must be acyclic.
 */
static int infer_roles(struct pcitree *t)
{
	unsigned char *done = calloc(t->n ? (size_t)t->n : 1, 1);
	int chain[PCITREE_MAX_DEPTH];
	int i, j, d;

	if (!done)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		enum pcie_role above = PCIE_ROLE_UNKNOWN;
		bool top;

		for (d = 0, j = i; j >= 0 && !done[j] && d < PCITREE_MAX_DEPTH; j = t->fn[j].parent)
			chain[d++] = j;
		top = j < 0;
		if (j >= 0 && done[j])
			above = t->fn[j].role;
		while (d--) {
			struct pcie_fn *f = &t->fn[chain[d]];

			if (!(f->known & PCIE_K_ROLE))
				f->role = role_below(f, top ? NULL : &above);
			done[chain[d]] = 1;
			above = f->role;
			top = false;
		}
	}
	free(done);
	return 0;
}

/* Read as much configuration space as the source gives: 4096, 256 or 64 bytes. */
static size_t read_config(struct pci_dev *d, uint8_t *buf)
{
	static const int sizes[] = {4096, 256, 64};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(buf, 0xff, 4096);
		if (pci_read_block(d, 0, buf, sizes[i]))
			return (size_t)sizes[i];
	}
	return 0;
}

static int cmp_fn(const void *a, const void *b)
{
	return strcmp(((const struct pcie_fn *)a)->bdf, ((const struct pcie_fn *)b)->bdf);
}

/* Fill t from an initialised libpci access by method m. Runs under the longjmp guard. */
static int load_devices(struct pcitree *t, struct pci_access *pacc, const struct pcitree_method *m)
{
	static uint8_t cfg[4096];
	struct pci_dev *d;
	int n = 0, rc;

	pci_scan_bus(pacc);
	for (d = pacc->devices; d; d = d->next)
		n++;
	t->fn = calloc(n ? (size_t)n : 1, sizeof(*t->fn));
	if (!t->fn)
		return -ENOMEM;
	for (d = pacc->devices; d; d = d->next) {
		struct pcie_fn *f = &t->fn[t->n];
		size_t len;

		pcie_fn_init(f, d->domain, d->bus, d->dev, d->func);
		len = read_config(d, cfg);
		if (len)
			pcie_decode_config(cfg, len, f);
		if (m->fill)
			m->fill(t, d, f, len);
		t->n++;
	}
	/* Sorted by address; parents are indices, so sort before relating. */
	qsort(t->fn, (size_t)t->n, sizeof(*t->fn), cmp_fn);
	rc = m->relate(t);
	if (rc)
		return rc;
	rc = break_cycles(t);
	return rc ? rc : infer_roles(t);
}

int pcitree_load(struct pcitree *t, const char *sysfs_root, const char *dump_file, char *err,
		 size_t errlen)
{
	/* Live across setjmp(): volatile, so that the error hook's longjmp keeps them. */
	const struct pcitree_method *volatile m =
		dump_file ? &pcitree_dump_method : &pcitree_sysfs_method;
	struct pci_access *volatile pacc = NULL;
	struct pcitree_src src = {.file = dump_file, .fd = -1};
	int rc;

	memset(t, 0, sizeof(*t));
	t->from_dump = dump_file != NULL;
	snprintf(t->sysfs_root, sizeof(t->sysfs_root), "%s", sysfs_root ? sysfs_root : "/sys");
	rc = m->prepare(t, &src, err, errlen);
	if (rc)
		return rc;
	pacc = pci_alloc();
	if (!pacc) {
		snprintf(err, errlen, "libpci: out of memory");
		if (src.fd >= 0)
			close(src.fd);
		return -ENOMEM;
	}
	pacc->error = pci_error_cb;
	pacc->warning = pci_quiet_cb;
	pacc->debug = pci_quiet_cb;
	if (setjmp(pci_jmp)) {
		snprintf(err, errlen, "%s: %s", src.file ? src.file : t->sysfs_root, pci_errmsg);
		pcitree_free(t);
		if (src.fd >= 0)
			close(src.fd);
		/* pci_cleanup() may call the error hook again; the access is leaked. */
		return -EIO;
	}
	m->setup(&src, pacc);
	pci_init(pacc);
	rc = load_devices(t, pacc, m);
	pci_cleanup(pacc);
	if (src.fd >= 0)
		close(src.fd);
	if (rc) {
		snprintf(err, errlen, "%s", strerror(-rc));
		pcitree_free(t);
	}
	return rc;
}

void pcitree_free(struct pcitree *t)
{
	free(t->fn);
	*t = (struct pcitree){0};
}

int pcitree_hops(const struct pcitree *t, const struct pcie_fn *f, struct pcie_path *p)
{
	const struct pcie_fn *cur = f;

	memset(p, 0, sizeof(*p));
	if (f->is_vf) {
		cur = pcitree_find(t, f->pf_bdf);
		if (!cur)
			return -ENOENT;
	}
	while (cur && p->nhops < PCIE_MAX_HOPS) {
		p->hop[p->nhops++] = cur;
		if (cur->role == PCIE_ROLE_ROOT_PORT)
			break;
		cur = cur->parent >= 0 ? &t->fn[cur->parent] : NULL;
	}
	return p->nhops;
}

int pcitree_path(const struct pcitree *t, const struct pcie_fn *f, const char *who, bool may_idle,
		 struct pcie_path *p)
{
	int rc = pcitree_hops(t, f, p);

	if (rc < 0)
		return rc;
	pcie_judge_path(p, who, may_idle);
	return p->nlinks ? p->nhops : -ENOENT;
}

double pcitree_usable_ceiling(const struct pcitree *t, const char *bdf)
{
	const struct pcie_fn *f = bdf && *bdf ? pcitree_find(t, bdf) : NULL;
	struct pcie_path p;

	if (!f || pcitree_path(t, f, "device", false, &p) <= 0)
		return NAN;
	if (p.verdict == PCIE_OK || p.verdict == PCIE_DOWNGRADED || p.verdict == PCIE_MAYBE_IDLE)
		return p.usable;
	return NAN;
}
