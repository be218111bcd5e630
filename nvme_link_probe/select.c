// SPDX-License-Identifier: MIT
/*
 * select.c: nvme_link_probe's selection. An item of --dev names a device by
 * its name (nvme0, mlx5_0) or PCI address; an item of -s is lspci's selector
 * ([[[[domain]:]bus]:][slot][.[func]], hex, a part left out or * matching
 * any); an item of --slot names a slot by number (SltCap) or kernel name
 * (bays_by_number()). A device any of them names is kept. An item that
 * names none is recorded with why (o->misses): the caller reports it and
 * exits 1, the command line being well formed; a malformed selector is a
 * usage error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bays.h"
#include "nbw.h"
#include "parse.h"
#include "select.h"

/* lspci's selector: each part -1 for any. */
struct selector {
	long domain, bus, slot, func;
};

/* One hex part of a selector ("" or "*": any) no greater than max: 0 or -EINVAL. */
static int sel_part(const char *s, size_t len, long max, long *out)
{
	char buf[16], *end;

	*out = -1;
	if (!len || (len == 1 && *s == '*'))
		return 0;
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (strspn(buf, "0123456789abcdefABCDEF") != len)
		return -EINVAL;
	*out = strtol(buf, &end, 16);
	return *end || *out > max ? -EINVAL : 0;
}

/* "[[[[domain]:]bus]:][slot][.[func]]" as lspci -s reads it: 0 or -EINVAL. */
static int sel_parse(const char *s, struct selector *sel)
{
	const char *dot = strchr(s, '.'), *end = dot ? dot : s + strlen(s), *start;
	long *field[3] = {&sel->slot, &sel->bus, &sel->domain};
	const long max[3] = {0x1f, 0xff, 0xffff};
	int i;

	sel->bus = sel->domain = -1;
	if (sel_part(dot ? dot + 1 : "", dot ? strlen(dot + 1) : 0, 7, &sel->func))
		return -EINVAL;
	/* From the right: slot, bus, domain, each after the previous colon. */
	for (i = 0; i < 3; i++) {
		for (start = end; start > s && start[-1] != ':'; start--)
			;
		if (sel_part(start, (size_t)(end - start), max[i], field[i]))
			return -EINVAL;
		if (start == s)
			return 0;
		end = start - 1;
	}
	return -EINVAL; /* more than three parts before the dot */
}

static bool sel_matches(const struct selector *sel, const char *bdf)
{
	unsigned d, b, s, f;

	if (sscanf(bdf, "%x:%x:%x.%x", &d, &b, &s, &f) != 4)
		return false;
	return (sel->domain < 0 || sel->domain == d) && (sel->bus < 0 || sel->bus == b) &&
	       (sel->slot < 0 || sel->slot == s) && (sel->func < 0 || sel->func == f);
}

/* A --dev item: a name, else an address; -s items are selectors only. */
static bool dev_matches(const struct probe_dev *p, const char *item, bool lspci)
{
	struct selector sel;
	char bdf[16];

	if (!lspci && p->name[0] && !strcmp(p->name, item))
		return true;
	if (!p->bdf[0])
		return false;
	if (!lspci && !pcie_bdf_normalise(item, bdf))
		return !strcmp(bdf, p->bdf);
	return !sel_parse(item, &sel) && sel_matches(&sel, p->bdf);
}

/* What a PCI class is, in lspci's words, for the few a wrong address lands on. */
static const char *class_name(uint32_t class_code)
{
	switch (class_code >> 8) {
	case 0x0108:
		return "a non-volatile memory controller";
	case 0x0200:
		return "an Ethernet controller";
	case 0x0300:
		return "a VGA compatible controller";
	case 0x0600:
		return "a host bridge";
	case 0x0601:
		return "an ISA bridge";
	case 0x0604:
		return "a PCI bridge";
	case 0x0c03:
		return "a USB controller";
	default:
		return "a PCI function";
	}
}

/* Why an address item named no audited device: no function there, or what it is. */
static void why_not_taken(const struct options *o, const struct pcitree *t, const char *item,
			  bool lspci, char *why, size_t len)
{
	const char *src = o->dump			     ? "in the dump"
			  : strcmp(o->cc.sysfs_root, "/sys") ? "in the sysfs tree"
							     : "on this machine";
	struct selector sel;
	char bdf[16];
	int i;

	if (!lspci && pcie_bdf_normalise(item, bdf)) {
		snprintf(why, len, "no NVMe controller or RDMA device of that name %s", src);
		return;
	}
	if (!lspci) {
		const struct pcie_fn *f = pcitree_find(t, bdf);

		if (!f) {
			snprintf(why, len, "no PCI function %s %s", bdf, src);
			return;
		}
		snprintf(why, len, "%s is %s (class %04x), not an NVMe controller or RDMA device",
			 f->bdf, class_name(f->class_code), f->class_code >> 8);
		return;
	}
	sel_parse(item, &sel);
	for (i = 0; i < t->n && !sel_matches(&sel, t->fn[i].bdf); i++)
		;
	if (i == t->n)
		snprintf(why, len, "no PCI function matches it %s", src);
	else
		snprintf(why, len, "%s is %s (class %04x), not an NVMe controller or RDMA device",
			 t->fn[i].bdf, class_name(t->fn[i].class_code), t->fn[i].class_code >> 8);
}

static void add_miss(const struct options *o, const char *opt, const char *item, const char *why)
{
	struct probe_misses *m = o->misses;

	if (!m || m->n >= PROBE_MAX_MISSES)
		return;
	snprintf(m->m[m->n].option, sizeof(m->m[m->n].option), "%s", opt);
	snprintf(m->m[m->n].item, sizeof(m->m[m->n].item), "%s", item);
	snprintf(m->m[m->n].reason, sizeof(m->m[m->n].reason), "%s", why);
	m->n++;
}

enum list_kind { BY_DEV, BY_LSPCI, BY_SLOT };

/*
 * Mark in used[] the devices an item of list names; an item naming none goes to
 * o->misses. 0, or minus an exit status after the message (a malformed list).
 */
static int mark_devs(const struct options *o, const struct pcitree *t, char *list,
		     enum list_kind kind, const struct probe_dev *d, int n, bool *used)
{
	const char *opt = kind == BY_SLOT ? "--slot" : kind == BY_LSPCI ? "-s" : "--dev";
	char *items[MAX_DEVS], why[PROBE_MISS_REASON_LEN];
	struct selector sel;
	int k, i, j;

	k = parse_list(list, items, MAX_DEVS);
	if (k < 0) {
		nbw_usage_err("invalid %s list: %s", opt,
			      k == -E2BIG ? "too many items" : "empty item");
		return -NBW_EXIT_USAGE;
	}
	for (j = 0; j < k; j++) {
		bool found = false, by_number = kind == BY_SLOT && bays_by_number(d, n, items[j]);

		if (kind == BY_LSPCI && sel_parse(items[j], &sel)) {
			nbw_usage_err("invalid lspci selector ([[[[domain]:]bus]:][slot][.[func]]) "
				      "'%s'",
				      items[j]);
			return -NBW_EXIT_USAGE;
		}
		for (i = 0; i < n; i++) {
			if (kind == BY_SLOT ? !bays_slot_matches(&d[i], items[j], by_number)
					    : !dev_matches(&d[i], items[j], kind == BY_LSPCI))
				continue;
			found = true;
			used[i] = true;
		}
		if (found)
			continue;
		if (kind == BY_SLOT)
			snprintf(why, sizeof(why),
				 "no NVMe controller or RDMA device in such a slot%s",
				 o->dump ? " in the dump" : "");
		else
			why_not_taken(o, t, items[j], kind == BY_LSPCI, why, sizeof(why));
		add_miss(o, opt, items[j], why);
	}
	return 0;
}

int select_devs(const struct options *o, const struct pcitree *t, struct probe_dev *d, int n)
{
	bool *used;
	int i, m = 0, rc = 0;

	used = calloc((size_t)n + 1, sizeof(*used));
	if (!used) {
		nbw_err("out of memory");
		return -NBW_EXIT_FAIL;
	}
	if (o->devs)
		rc = mark_devs(o, t, o->devs, BY_DEV, d, n, used);
	if (!rc && o->sel)
		rc = mark_devs(o, t, o->sel, BY_LSPCI, d, n, used);
	if (!rc && o->slots)
		rc = mark_devs(o, t, o->slots, BY_SLOT, d, n, used);
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
