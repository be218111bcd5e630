// SPDX-License-Identifier: MIT
/*
 * bays.c: nvme_link_probe's slot side. The slot each device sits in (the
 * physical slot number of its port's SltCap, the kernel's slot name) and the
 * slot ceiling (pcie_slot_ceiling() in common/pci/pcilink.c), each drive's
 * ACTIVE RDMA ports on its NUMA node, which slot an item names, and the sort
 * by slot. The site slot specification is spec.c; the projection project.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bays.h"

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
