// SPDX-License-Identifier: MIT
/*
 * select.c: nvme_link_probe's selection. An item of --dev names a device by
 * its name (nvme0, mlx5_0) or PCI address; an item of --slot names a slot
 * by number (SltCap) or kernel name (bays_by_number()). A device either
 * names is kept; an item that names none is a usage error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bays.h"
#include "nbw.h"
#include "parse.h"
#include "select.h"

static bool dev_matches(const struct probe_dev *p, const char *item)
{
	char bdf[16];

	if (p->name[0] && !strcmp(p->name, item))
		return true;
	return p->bdf[0] && !pcie_bdf_normalise(item, bdf) && !strcmp(bdf, p->bdf);
}

/*
 * Mark in used[] the devices that an item of list (--slot when by_slot,
 * else --dev) names. 0, or minus an exit status after the message.
 */
static int mark_devs(const struct options *o, char *list, bool by_slot, const struct probe_dev *d,
		     int n, bool *used)
{
	const char *opt = by_slot ? "--slot" : "--dev";
	char *items[MAX_DEVS];
	int k, i, j;

	k = parse_list(list, items, MAX_DEVS);
	if (k < 0) {
		nbw_usage_err("invalid %s list: %s", opt,
			      k == -E2BIG ? "too many items" : "empty item");
		return -NBW_EXIT_USAGE;
	}
	for (j = 0; j < k; j++) {
		bool found = false, by_number = by_slot && bays_by_number(d, n, items[j]);

		for (i = 0; i < n; i++) {
			if (by_slot ? !bays_slot_matches(&d[i], items[j], by_number)
				    : !dev_matches(&d[i], items[j]))
				continue;
			found = true;
			used[i] = true;
		}
		if (found)
			continue;
		if (by_slot)
			nbw_usage_err("--slot %s: no NVMe controller or RDMA device in such a "
				      "slot%s",
				      items[j], o->dump ? " in the dump" : "");
		else
			nbw_usage_err("--dev %s: no such NVMe controller or RDMA device%s",
				      items[j], o->dump ? " in the dump" : "");
		return -NBW_EXIT_USAGE;
	}
	return 0;
}

int select_devs(const struct options *o, struct probe_dev *d, int n)
{
	bool *used;
	int i, m = 0, rc = 0;

	used = calloc((size_t)n + 1, sizeof(*used));
	if (!used) {
		nbw_err("out of memory");
		return -NBW_EXIT_FAIL;
	}
	if (o->devs)
		rc = mark_devs(o, o->devs, false, d, n, used);
	if (!rc && o->slots)
		rc = mark_devs(o, o->slots, true, d, n, used);
	if (rc) {
		free(used);
		return rc;
	}
	for (i = 0; i < n; i++)
		if (used[i])
			d[m++] = d[i]; /* discovery order; m <= i, so in place */
	free(used);
	return m;
}
