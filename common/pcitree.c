// SPDX-License-Identifier: MIT
/*
 * pcitree.c: the PCI functions of a machine through libpci (live sysfs, a
 * captured sysfs tree, or an `lspci -xxx` dump), their upstream bridges and
 * virtual-function parents, and the path of a device to its root port.
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
#include <unistd.h>

#include <pci/pci.h>

#include "sysfs.h"
#include "pcitree.h"

static jmp_buf pci_jmp;
static char pci_errmsg[256];

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

const struct pcie_fn *pcitree_find(const struct pcitree *t, const char *bdf)
{
	char want[16];
	int i;

	if (pcie_bdf_normalise(bdf, want))
		return NULL;
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->fn[i].bdf, want))
			return &t->fn[i];
	return NULL;
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

/* dump: parent = the bridge whose secondary bus is ours; VFs from SR-IOV. */
static void dump_relations(struct pcitree *t)
{
	int i, j;
	unsigned k;

	for (i = 0; i < t->n; i++) {
		struct pcie_fn *f = &t->fn[i];

		for (j = 0; j < t->n; j++) {
			const struct pcie_fn *b = &t->fn[j];

			if (j != i && b->bridge && b->domain == f->domain && b->secondary == f->bus &&
			    b->secondary > b->bus) {
				f->parent = j;
				break;
			}
		}
	}
	for (i = 0; i < t->n; i++) {
		const struct pcie_fn *pf = &t->fn[i];
		unsigned rid = (unsigned)(pf->bus << 8 | pf->dev << 3 | pf->func);

		if (!pf->sriov_pos || !pf->sriov_num_vfs)
			continue;
		for (k = 0; k < pf->sriov_num_vfs; k++) {
			unsigned vrid = rid + pf->sriov_offset + k * pf->sriov_stride;
			char bdf[16];

			snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%u", pf->domain & 0xffff,
				 (vrid >> 8) & 0xff, (vrid >> 3) & 0x1f, vrid & 7);
			j = find_index(t, bdf);
			if (j >= 0 && j != i) {
				t->fn[j].is_vf = true;
				snprintf(t->fn[j].pf_bdf, sizeof(t->fn[j].pf_bdf), "%s", pf->bdf);
			}
		}
	}
}

/*
 * Header-only functions (no root): a bridge's role follows from its place,
 * root port on a root bus, then switch upstream and downstream alternating.
 */
static enum pcie_role infer_role(const struct pcitree *t, const struct pcie_fn *f)
{
	const struct pcie_fn *p;

	if (!f->bridge)
		return (f->known & (PCIE_K_MAX | PCIE_K_LNKSTA)) ? PCIE_ROLE_ENDPOINT
								  : PCIE_ROLE_UNKNOWN;
	if (f->parent < 0)
		return PCIE_ROLE_ROOT_PORT;
	p = &t->fn[f->parent];
	switch (p->role != PCIE_ROLE_UNKNOWN ? p->role : infer_role(t, p)) {
	case PCIE_ROLE_ROOT_PORT:
	case PCIE_ROLE_SWITCH_DOWN:
		return PCIE_ROLE_SWITCH_UP;
	case PCIE_ROLE_SWITCH_UP:
		return PCIE_ROLE_SWITCH_DOWN;
	default:
		return PCIE_ROLE_UNKNOWN;
	}
}

/* Read as much configuration space as the source gives: 4096, 256 or 64 bytes. */
static size_t read_config(struct pci_dev *d, uint8_t *buf)
{
	static const int sizes[] = { 4096, 256, 64 };
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
	int n = 0, i;

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
	if (t->from_dump)
		dump_relations(t);
	else
		for (i = 0; i < t->n; i++)
			sysfs_relations(t, i);
	for (i = 0; i < t->n; i++)
		if (!(t->fn[i].known & PCIE_K_ROLE))
			t->fn[i].role = infer_role(t, &t->fn[i]);
	return 0;
}

int pcitree_load(struct pcitree *t, const char *sysfs_root, const char *dump_arg, char *err,
		  size_t errlen)
{
	/* Read again after libpci's error hook longjmps back: keep it out of registers. */
	const char *volatile dump_file = dump_arg;
	struct pci_access *volatile pacc = NULL;
	char param[sizeof(t->sysfs_root) + 16];
	int rc;

	memset(t, 0, sizeof(*t));
	t->from_dump = dump_file != NULL;
	snprintf(t->sysfs_root, sizeof(t->sysfs_root), "%s", sysfs_root ? sysfs_root : "/sys");
	if (dump_file && access(dump_file, R_OK)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", dump_file, strerror(errno));
		return rc;
	}
	if (!dump_file) {
		snprintf(param, sizeof(param), "%s/bus/pci/devices", t->sysfs_root);
		if (access(param, R_OK | X_OK)) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", param, strerror(errno));
			return rc;
		}
	}
	pacc = pci_alloc();
	if (!pacc) {
		snprintf(err, errlen, "libpci: out of memory");
		return -ENOMEM;
	}
	pacc->error = pci_error_cb;
	pacc->warning = pci_quiet_cb;
	pacc->debug = pci_quiet_cb;
	if (setjmp(pci_jmp)) {
		snprintf(err, errlen, "%s: %s", dump_file ? dump_file : t->sysfs_root, pci_errmsg);
		pcitree_free(t);
		/* pci_cleanup() may call the error hook again; the access is leaked. */
		return -EIO;
	}
	if (dump_file) {
		pacc->method = PCI_ACCESS_DUMP;
		pci_set_param(pacc, "dump.name", (char *)dump_file);
	} else {
		pacc->method = PCI_ACCESS_SYS_BUS_PCI;
		snprintf(param, sizeof(param), "%s/bus/pci", t->sysfs_root);
		pci_set_param(pacc, "sysfs.path", param);
	}
	pci_init(pacc);
	rc = load_devices(t, pacc);
	pci_cleanup(pacc);
	if (rc) {
		snprintf(err, errlen, "%s", strerror(-rc));
		pcitree_free(t);
	}
	return rc;
}

void pcitree_free(struct pcitree *t)
{
	free(t->fn);
	t->fn = NULL;
	t->n = 0;
}

int pcitree_path(const struct pcitree *t, const struct pcie_fn *f, const char *who,
		  bool may_idle, struct pcie_path *p)
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
