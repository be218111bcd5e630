// SPDX-License-Identifier: MIT
/*
 * discover.c: nvme_link_probe's discovery. Which NVMe controllers and RDMA
 * devices there are (sysfs classes, or class codes and vendors in a dump),
 * what sysfs says of each (model, firmware, transport, port rate and state),
 * the PCI function behind each, and its path up to the root port
 * (pcitree_hops() in common/pci/pcitree.c). Reads only; judges nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"
#include "nbw.h"
#include "sysfs.h"

/* A software RDMA device's network interface's PCI function (root/class/net/IF). */
static void carrier_address(const char *root, const char *ifname, const struct pcitree *t,
			    char bdf[16])
{
	char dir[PATH_MAX];

	bdf[0] = 0;
	if (!ifname[0] || strchr(ifname, '/') || ifname[0] == '.')
		return;
	snprintf(dir, sizeof(dir), "%s/class/net/%s", root, ifname);
	pcitree_sysfs_fn(t, dir, 2, bdf);
}

/* "40 Gb/sec (4X QDR)" -> 32 (data rate: SDR, DDR and QDR are 8b/10b). */
static double rate_data_gbits(const char *text)
{
	double v;

	if (sscanf(text, "%lf", &v) != 1 || v <= 0)
		return NAN;
	if (strstr(text, "SDR") || strstr(text, "DDR") || strstr(text, "QDR"))
		v *= 0.8;
	return v;
}

static int cmp_dev(const void *a, const void *b)
{
	const struct probe_dev *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->name[0] && y->name[0])
		return strverscmp(x->name, y->name);
	return strcmp(x->bdf, y->bdf);
}

/* ACTIVE ports under an RDMA device's sysfs directory (ports/N/state), -1 if none readable. */
static int active_ports(const char *ibdir)
{
	char dir[PATH_MAX + 16], sub[PATH_MAX + 300], state[64];
	struct dirent *e;
	int active = 0, read = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/ports", ibdir);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (sysfs_read_attr(sub, "state", state, sizeof(state)))
			continue;
		read++;
		/* "4: ACTIVE" */
		if (strstr(state, "ACTIVE") && !strstr(state, "INACTIVE"))
			active++;
	}
	closedir(d);
	return read ? active : -1;
}

static int discover_class(const char *root, const char *cls, enum dev_kind kind,
			  const struct pcitree *t, struct probe_dev *out, int n)
{
	char dir[PATH_MAX], sub[PATH_MAX + 64];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/class/%s", root, cls);
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? n : -errno;
	while ((e = readdir(d)) && n < MAX_DEVS) {
		struct probe_dev *p = &out[n];

		if (e->d_name[0] == '.')
			continue;
		memset(p, 0, sizeof(*p));
		p->kind = kind;
		p->net_gbits = NAN;
		snprintf(p->name, sizeof(p->name), "%s", e->d_name);
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (kind == KIND_NVME) {
			sysfs_read_attr(sub, "transport", p->transport, sizeof(p->transport));
			sysfs_read_attr(sub, "model", p->model, sizeof(p->model));
			sysfs_read_attr(sub, "firmware_rev", p->firmware, sizeof(p->firmware));
			if (strcmp(p->transport, "pcie") || !pcitree_sysfs_fn(t, sub, 0, p->bdf)) {
				p->bdf[0] = 0;
				snprintf(p->why_no_link, sizeof(p->why_no_link),
					 "no PCIe link: NVMe over %s (a fabric controller)",
					 p->transport[0] ? p->transport : "an unknown transport");
			}
		} else {
			char port[PATH_MAX + 80];

			snprintf(port, sizeof(port), "%s/ports/1", sub);
			sysfs_read_attr(port, "rate", p->rate_text, sizeof(p->rate_text));
			sysfs_read_attr(port, "link_layer", p->link_layer, sizeof(p->link_layer));
			p->net_gbits = p->rate_text[0] ? rate_data_gbits(p->rate_text) : NAN;
			p->ports_active = active_ports(sub);
			if (!pcitree_sysfs_fn(t, sub, 0, p->bdf)) {
				p->bdf[0] = 0;
				sysfs_read_attr(sub, "parent", p->soft_parent,
						sizeof(p->soft_parent));
				carrier_address(root, p->soft_parent, t, p->carrier_bdf);
				snprintf(p->why_no_link, sizeof(p->why_no_link),
					 "no PCIe link of its own: software RDMA%s%s",
					 p->soft_parent[0] ? " over " : "", p->soft_parent);
			}
		}
		if (p->bdf[0])
			p->fn = pcitree_find(t, p->bdf);
		n++;
	}
	closedir(d);
	return n;
}

/* Dump mode: NVMe by class code 01:08:02; RDMA by InfiniBand class or RDMA NIC vendors. */
static bool dump_kind(const struct pcitree *t, const struct pcie_fn *f, enum dev_kind *kind)
{
	static const uint16_t rdma_vendors[] = {0x15b3 /* Mellanox/NVIDIA */, 0x1425 /* Chelsio */,
						0x1077 /* QLogic */, 0x1fc1 /* QLogic IB */,
						0x8086 /* Intel */};
	uint16_t vendor = f->vendor;
	size_t i;

	if (f->class_code == 0x010802) {
		*kind = KIND_NVME;
		return true;
	}
	if ((f->class_code >> 8) == 0x0207) {
		*kind = KIND_RDMA;
		return true;
	}
	if ((f->class_code >> 8) != 0x0200)
		return false;
	if (f->is_vf) {
		const struct pcie_fn *pf = pcitree_find(t, f->pf_bdf);

		vendor = pf ? pf->vendor : vendor;
	}
	for (i = 0; i < NBW_ARRAY_SIZE(rdma_vendors); i++)
		if (vendor == rdma_vendors[i] && vendor != 0x8086) {
			*kind = KIND_RDMA;
			return true;
		}
	return false;
}

/* The hops of every device's path; the verdict is judge_device()'s. */
static void walk_paths(const struct pcitree *t, struct probe_dev *d, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!d[i].fn)
			continue;
		pcitree_hops(t, d[i].fn, &d[i].path);
		d[i].have_path = true;
	}
}

int discover_devices(const struct options *o, const struct pcitree *t, struct probe_dev *out)
{
	int n = 0, i;

	if (o->dump) {
		for (i = 0; i < t->n && n < MAX_DEVS; i++) {
			enum dev_kind kind;

			if (!dump_kind(t, &t->fn[i], &kind))
				continue;
			memset(&out[n], 0, sizeof(out[n]));
			out[n].kind = kind;
			out[n].net_gbits = NAN;
			out[n].ports_active = -1;
			out[n].fn = &t->fn[i];
			snprintf(out[n].bdf, sizeof(out[n].bdf), "%s", t->fn[i].bdf);
			snprintf(out[n].transport, sizeof(out[n].transport), "%s",
				 kind == KIND_NVME ? "pcie" : "");
			n++;
		}
	} else {
		n = discover_class(o->cc.sysfs_root, "nvme", KIND_NVME, t, out, 0);
		if (n >= 0)
			n = discover_class(o->cc.sysfs_root, "infiniband", KIND_RDMA, t, out, n);
		if (n < 0)
			return n;
	}
	qsort(out, (size_t)n, sizeof(*out), cmp_dev);
	walk_paths(t, out, n);
	return n;
}
