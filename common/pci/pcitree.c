// SPDX-License-Identifier: MIT
/*
 * pcitree.c: the PCI functions of a machine through libpci (live sysfs, a
 * captured sysfs tree, or an `lspci -xxx` dump), their upstream bridges and
 * virtual-function parents, and the path of a device to its root port.
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
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>

#include "pcidump.h"
#include "sysfs.h"
#include "pcitree.h"

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

static bool looks_like_bdf(const char *s)
{
	char b[16];

	return strlen(s) == 12 && !pcie_bdf_normalise(s, b);
}

/* First index whose address is not below bdf (the functions are sorted by address). */
static int lower_bound(const struct pcitree *t, const char *bdf)
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

bool pcitree_sysfs_fn(const struct pcitree *t, const char *dir, int up, char bdf[16])
{
	char path[PATH_MAX + 16], real[PATH_MAX];
	char *base;

	snprintf(path, sizeof(path), "%s/device", dir);
	if (realpath(path, real)) {
		for (; up >= 0 && (base = strrchr(real, '/')); up--) {
			if (strlen(base + 1) == 12 && !pcie_bdf_normalise(base + 1, bdf) &&
			    pcitree_find(t, bdf))
				return true;
			*base = 0;
		}
	}
	bdf[0] = 0;
	return false;
}

const struct pcie_fn *pcitree_find(const struct pcitree *t, const char *bdf)
{
	char want[16];
	int i;

	if (pcie_bdf_normalise(bdf, want))
		return NULL;
	i = lower_bound(t, want);
	return i < t->n && !strcmp(t->fn[i].bdf, want) ? &t->fn[i] : NULL;
}

static int find_index(const struct pcitree *t, const char *bdf)
{
	const struct pcie_fn *f = pcitree_find(t, bdf);

	return f ? (int)(f - t->fn) : -1;
}

/* "8.0 GT/s PCIe" -> 8.0; "Unknown" -> 0. */
static double sysfs_speed(const char *dir, const char *attr)
{
	char buf[64];
	double v;

	if (sysfs_read_attr(dir, attr, buf, sizeof(buf)) || sscanf(buf, "%lf", &v) != 1)
		return 0;
	return v;
}

static unsigned sysfs_uint(const char *dir, const char *attr)
{
	char buf[32];

	if (sysfs_read_attr(dir, attr, buf, sizeof(buf)))
		return 0;
	return (unsigned)strtoul(buf, NULL, 0);
}

/* Without the PCIe capability, take the link from the kernel's attributes. */
static void link_from_sysfs_attrs(const char *dir, struct pcie_fn *f)
{
	f->max_speed = sysfs_speed(dir, "max_link_speed");
	f->max_width = sysfs_uint(dir, "max_link_width");
	f->speed = sysfs_speed(dir, "current_link_speed");
	f->width = sysfs_uint(dir, "current_link_width");
	if (f->max_speed > 0 && f->max_width > 0)
		f->known |= PCIE_K_MAX;
	if (f->speed > 0 && f->width > 0)
		f->known |= PCIE_K_LNKSTA;
}

/* sysfs: parent from the device's canonical path, VF from its physfn link. */
static void sysfs_relations(struct pcitree *t, int i)
{
	struct pcie_fn *f = &t->fn[i];
	char path[PATH_MAX + 64], real[PATH_MAX], link[PATH_MAX];
	char *slash, *name;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s", t->sysfs_root, f->bdf);
	if (realpath(path, real)) {
		slash = strrchr(real, '/');
		if (slash) {
			*slash = 0;
			name = strrchr(real, '/');
			name = name ? name + 1 : real;
			if (looks_like_bdf(name))
				f->parent = find_index(t, name);
		}
	}
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/physfn", t->sysfs_root, f->bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		name = strrchr(link, '/');
		name = name ? name + 1 : link;
		if (looks_like_bdf(name)) {
			f->is_vf = true;
			pcie_bdf_normalise(name, f->pf_bdf);
		}
	}
}

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
	lo = lower_bound(t, lo_bdf);
	hi = lower_bound(t, hi_bdf);
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
		j = lower_bound(t, bdf);
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

/*
 * libpci's sysfs method opens these files of every device directory with a
 * blocking open(): a FIFO among them would hang it. Refuse such a tree.
 */
static int sysfs_tree_precheck(const struct pcitree *t, char *err, size_t errlen)
{
	static const char *const files[] = {
		"config",	    "resource",	 "irq",	     "vendor",
		"device",	    "class",	 "revision", "subsystem_vendor",
		"subsystem_device", "numa_node", "label",    "index",
		"acpi_index",	    "rom",	 "vpd",	     "modalias"};
	char dir[sizeof(t->sysfs_root) + 32], path[sizeof(dir) + 300];
	struct dirent *e;
	struct stat st;
	size_t k;
	DIR *d;
	int rc = 0;

	snprintf(dir, sizeof(dir), "%s/bus/pci/devices", t->sysfs_root);
	d = opendir(dir);
	if (!d) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return rc;
	}
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		for (k = 0; !rc && k < sizeof(files) / sizeof(files[0]); k++) {
			snprintf(path, sizeof(path), "%s/%.255s/%s", dir, e->d_name, files[k]);
			if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
				snprintf(err, errlen, "%s: not a regular file", path);
				rc = -EINVAL;
			}
		}
	}
	closedir(d);
	return rc;
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

/* Fill t from an initialised libpci access. Runs under the longjmp guard. */
static int load_devices(struct pcitree *t, struct pci_access *pacc)
{
	static uint8_t cfg[4096];
	struct pci_dev *d;
	int n = 0, i, rc;

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
		if (!t->from_dump) {
			char dir[PATH_MAX + 64];
			char *drv;

			pci_fill_info(d, PCI_FILL_NUMA_NODE | PCI_FILL_DRIVER);
			f->numa_node = d->numa_node;
			drv = pci_get_string_property(d, PCI_FILL_DRIVER);
			if (drv)
				snprintf(f->driver, sizeof(f->driver), "%s", drv);
			if (len < 256) {
				t->header_only = true;
				snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", t->sysfs_root,
					 f->bdf);
				link_from_sysfs_attrs(dir, f);
			}
		}
		t->n++;
	}
	/* Sorted by address; parents are indices, so sort before relating. */
	qsort(t->fn, (size_t)t->n, sizeof(*t->fn), cmp_fn);
	if (t->from_dump) {
		rc = dump_relations(t);
		if (rc)
			return rc;
	} else {
		for (i = 0; i < t->n; i++)
			sysfs_relations(t, i);
	}
	rc = break_cycles(t);
	return rc ? rc : infer_roles(t);
}

/*
 * Read and check the dump (pcidump.c), then hand libpci a private copy of the
 * checked bytes: a memfd named through /proc/self/fd, so that what libpci
 * parses is what was checked (and a pipe can be read twice). Without memfd
 * or /proc, libpci reads the file itself after the check. 0 or -errno.
 */
static int dump_prepare(const char *file, int *fd, char *name, size_t namelen, char *err,
			size_t errlen)
{
	struct pcidump_err e = {0, ""};
	size_t len, done = 0;
	char *buf;
	int rc;

	*fd = -1;
	snprintf(name, namelen, "%s", file);
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
	*fd = memfd_create("nbw-pcidump", MFD_CLOEXEC);
	while (*fd >= 0 && done < len) {
		ssize_t n = write(*fd, buf + done, len - done);

		if (n <= 0) {
			close(*fd);
			*fd = -1;
			break;
		}
		done += (size_t)n;
	}
	free(buf);
	if (*fd >= 0) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", *fd);
		if (!access(proc, R_OK))
			snprintf(name, namelen, "%s", proc);
	}
	return 0;
}

/* Name of the source in messages: the dump, or the sysfs root. */
static const char *source_name(const struct pcitree *t, const char *dump_file)
{
	return dump_file ? dump_file : t->sysfs_root;
}

int pcitree_load(struct pcitree *t, const char *sysfs_root, const char *dump_arg, char *err,
		 size_t errlen)
{
	/* Read again after libpci's error hook longjmps back: keep it out of registers. */
	const char *volatile dump_file = dump_arg;
	struct pci_access *volatile pacc = NULL;
	volatile int dump_fd = -1;
	char param[sizeof(t->sysfs_root) + 16];
	char dump_name[PATH_MAX];
	int rc, fd;

	memset(t, 0, sizeof(*t));
	t->from_dump = dump_file != NULL;
	snprintf(t->sysfs_root, sizeof(t->sysfs_root), "%s", sysfs_root ? sysfs_root : "/sys");
	if (dump_file) {
		rc = dump_prepare(dump_file, &fd, dump_name, sizeof(dump_name), err, errlen);
		if (rc)
			return rc;
		dump_fd = fd;
	} else {
		snprintf(param, sizeof(param), "%s/bus/pci/devices", t->sysfs_root);
		if (access(param, R_OK | X_OK)) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", param, strerror(errno));
			return rc;
		}
		rc = sysfs_tree_precheck(t, err, errlen);
		if (rc)
			return rc;
	}
	pacc = pci_alloc();
	if (!pacc) {
		snprintf(err, errlen, "libpci: out of memory");
		if (dump_fd >= 0)
			close(dump_fd);
		return -ENOMEM;
	}
	pacc->error = pci_error_cb;
	pacc->warning = pci_quiet_cb;
	pacc->debug = pci_quiet_cb;
	if (setjmp(pci_jmp)) {
		snprintf(err, errlen, "%s: %s", source_name(t, dump_file), pci_errmsg);
		pcitree_free(t);
		if (dump_fd >= 0)
			close(dump_fd);
		/* pci_cleanup() may call the error hook again; the access is leaked. */
		return -EIO;
	}
	if (dump_file) {
		pacc->method = PCI_ACCESS_DUMP;
		pci_set_param(pacc, "dump.name", dump_name);
	} else {
		pacc->method = PCI_ACCESS_SYS_BUS_PCI;
		snprintf(param, sizeof(param), "%s/bus/pci", t->sysfs_root);
		pci_set_param(pacc, "sysfs.path", param);
	}
	pci_init(pacc);
	rc = load_devices(t, pacc);
	pci_cleanup(pacc);
	if (dump_fd >= 0)
		close(dump_fd);
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

int pcitree_slot_name(const struct pcitree *t, const char *bdf, char *name, size_t len)
{
	char dir[sizeof(t->sysfs_root) + 32], sub[sizeof(dir) + 256], addr[32], want[16];
	struct dirent *e;
	DIR *d;
	int rc = -ENOENT;

	if (t->from_dump)
		return -ENODATA;
	if (pcie_bdf_normalise(bdf, want))
		return -EINVAL;
	want[10] = 0; /* DDDD:BB:DD, without the function */
	snprintf(dir, sizeof(dir), "%s/bus/pci/slots", t->sysfs_root);
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (sysfs_read_attr(sub, "address", addr, sizeof(addr)) || strcasecmp(addr, want))
			continue;
		snprintf(name, len, "%s", e->d_name);
		rc = 0;
		break;
	}
	closedir(d);
	return rc;
}
