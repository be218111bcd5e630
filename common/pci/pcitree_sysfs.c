// SPDX-License-Identifier: MIT
/*
 * pcitree_sysfs.c: pcitree's sysfs method (see pcitree_method.h): libpci's
 * linux-sysfs access on /sys or a captured tree, refused when a FIFO sits
 * where libpci opens a file; each function's NUMA node and driver, and its
 * link from the kernel's attributes when configuration space is cut to the
 * header (no root); parents from the device's canonical path, VFs from
 * their physfn link. Also what only sysfs knows: the function behind a
 * sysfs directory and the kernel's slot names.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcitree_method.h"
#include "sysfs.h"

static bool looks_like_bdf(const char *s)
{
	char b[16];

	return strlen(s) == 12 && !pcie_bdf_normalise(s, b);
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

/* The tree must be listable, and hold no FIFO where libpci opens a file. */
static int sysfs_prepare(struct pcitree *t, struct pcitree_src *s, char *err, size_t errlen)
{
	int rc;

	snprintf(s->name, sizeof(s->name), "%s/bus/pci/devices", t->sysfs_root);
	if (access(s->name, R_OK | X_OK)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", s->name, strerror(errno));
		return rc;
	}
	rc = sysfs_tree_precheck(t, err, errlen);
	snprintf(s->name, sizeof(s->name), "%s/bus/pci", t->sysfs_root);
	return rc;
}

static void sysfs_setup(struct pcitree_src *s, struct pci_access *pacc)
{
	pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_set_param(pacc, "sysfs.path", s->name);
}

/* NUMA node and driver; the link from the attributes when only the header was read. */
static void sysfs_fill(struct pcitree *t, struct pci_dev *d, struct pcie_fn *f, size_t cfg_len)
{
	char dir[PATH_MAX + 64];
	char *drv;

	pci_fill_info(d, PCI_FILL_NUMA_NODE | PCI_FILL_DRIVER);
	f->numa_node = d->numa_node;
	drv = pci_get_string_property(d, PCI_FILL_DRIVER);
	if (drv)
		snprintf(f->driver, sizeof(f->driver), "%s", drv);
	if (cfg_len < 256) {
		t->header_only = true;
		snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", t->sysfs_root, f->bdf);
		link_from_sysfs_attrs(dir, f);
	}
}

static int sysfs_relate(struct pcitree *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		sysfs_relations(t, i);
	return 0;
}

const struct pcitree_method pcitree_sysfs_method = {
	.prepare = sysfs_prepare,
	.setup = sysfs_setup,
	.fill = sysfs_fill,
	.relate = sysfs_relate,
};

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
