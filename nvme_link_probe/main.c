// SPDX-License-Identifier: MIT
/*
 * nvme_link_probe: PCIe link audit of NVMe drives and RDMA devices. Finds the
 * devices (sysfs classes, or class codes in a dump), walks each one's path
 * to its root port, judges every link from both ends and prints one row per
 * device (every hop with -v) or the JSON document. The decoding, ceilings and
 * verdicts live in common/pci/pcilink.c and common/pci/pcitree.c; slots, the site
 * slot specification and the upgrade projection in bays.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"
#include "cli.h"
#include "nbw.h"
#include "parse.h"
#include "pcilink.h"
#include "pcitree.h"
#include "probe.h"
#include "report.h"
#include "watchdog.h"

/* The whole run's budget (said in --help): past it, the step it was stuck in, exit 1. */
#define PROBE_BUDGET_S 60.0

static const struct cli_spec cmdline;

static void usage(void)
{
	printf("Usage: %s [options]\n", nbw_prog);
	printf("\nAudit the PCIe links of NVMe drives and RDMA devices: each link on the path\n"
	       "to the root port is judged from both of its ends, with the bandwidth ceiling\n"
	       "of the narrowest hop. Reads only.\n");
	cli_help(&cmdline);
	printf("\nVerdicts: ok, downgraded (limited_by device, port, training or path),\n"
	       "maybe_idle, link_down, no_link, unknown.\n"
	       "A run has a budget of 60 s; past it the tool says the step it was stuck in and\n"
	       "exits 1.\n"
	       "Exit status: 0 ok, 1 runtime failure, 2 usage error, 3 expectation not met.\n");
}

enum {
	OPT_DEV = CLI_OPT_TOOL,
	OPT_PCI_DUMP,
	OPT_EXPECT_SPEED,
	OPT_EXPECT_WIDTH,
	OPT_EXPECT,
	OPT_SLOT,
	OPT_EXPECT_FILE,
	OPT_PROJECT,
};

/* clang-format off */
#define O struct options
#define ROW(name, has, val) CLI_NAME(name, has, val)
static const struct cli_opt opts[] = {
	{ROW("dev", required_argument, OPT_DEV), .type = CLI_T_TEXT, .field = CLI_AT(O, devs),
	 .arg = "LIST", .sect = "Devices:",
	 .help = "comma-separated PCI addresses or names (nvme0, mlx5_0); default: every NVMe "
		 "controller and RDMA device"},
	{ROW("slot", required_argument, OPT_SLOT), .type = CLI_T_TEXT, .field = CLI_AT(O, slots),
	 .arg = "LIST", .help = "comma-separated slot numbers or kernel slot names (with --dev: "
				"devices matching either)"},
	CLI_ROW_SYSFS("read a captured sysfs tree instead of /sys",
		      .sect = "Sources (default: the live system through libpci):"),
	{ROW("pci-dump", required_argument, OPT_PCI_DUMP), .type = CLI_T_TEXT,
	 .field = CLI_AT(O, dump), .arg = "FILE",
	 .help = "read `lspci -xxx` (or -xxxx) output captured elsewhere"},
	{ROW("expect-speed", required_argument, OPT_EXPECT_SPEED), .arg = "GTS", .sect = "Audit:",
	 .help = "lowest acceptable link speed (2.5 5 8 16 32 64)"},
	{ROW("expect-width", required_argument, OPT_EXPECT_WIDTH), .arg = "N",
	 .help = "lowest acceptable link width (1 2 4 8 16 32)"},
	{ROW("expect", required_argument, OPT_EXPECT), .arg = "GENxW",
	 .help = "both at once: gen4x4, gen3, x8; exit 3 if a device is below it, downgraded, "
		 "down or unknown"},
	{ROW("expect-file", required_argument, OPT_EXPECT_FILE), .type = CLI_T_TEXT,
	 .field = CLI_AT(O, expect_file), .arg = "FILE",
	 .help = "site slot specification, lines 'slot-or-bdf gen width' (e.g. '33 4 4'; # "
		 "comments): exit 3 and one line per bay that falls short; a lower link it "
		 "expects is ok"},
	{ROW("verbose", no_argument, 'v'), .type = CLI_T_FLAG, .field = CLI_AT(O, verbose),
	 .sect = "Output:", .help = "every hop of every path, and each link's verdict"},
	{ROW("project", no_argument, OPT_PROJECT), .type = CLI_T_FLAG, .field = CLI_AT(O, project),
	 .help = "upgrade projection: the drives' summed ceilings as they are, all Gen4 x4, all "
		 "Gen5 x4, with the slots as they are and with every slot at the drive's speed"},
	CLI_ROWS_OUTPUT,
	CLI_END,
};
#undef ROW
#undef O
/* clang-format on */

static int parse_speed(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno)
		return -EINVAL;
	if (!pcie_speed_code(v))
		return -ERANGE;
	*out = v;
	return 0;
}

/* "gen4x4", "gen3", "x8" (case-insensitive). */
static int parse_expect(const char *s, struct options *o)
{
	char buf[32], *x;
	unsigned long gen;
	int rc;

	if (strlen(s) >= sizeof(buf) || !*s)
		return -EINVAL;
	for (rc = 0; s[rc]; rc++)
		buf[rc] = (char)tolower((unsigned char)s[rc]);
	buf[rc] = 0;
	x = strchr(buf, 'x');
	if (x) {
		*x = 0;
		rc = pcie_parse_width(x + 1, &o->expect_width);
		if (rc)
			return rc;
	}
	if (!buf[0])
		return x ? 0 : -EINVAL;
	if (strncmp(buf, "gen", 3))
		return -EINVAL;
	rc = parse_uint(buf + 3, 1, 6, &gen);
	if (rc)
		return rc;
	o->expect_speed = pcie_speed_gts((unsigned)gen);
	return 0;
}

static int bad_value(const char *name, const char *val, int rc)
{
	return nbw_usage_err("invalid %s '%s': %s", name, val,
			     rc == -ERANGE ? "not a PCIe value" : "malformed");
}

/* One option with a value to check: CLI_NEXT or an exit status. */
static int tool_option(int c, char *arg, void *ctx)
{
	struct options *o = ctx;
	int rc;

	switch (c) {
	case OPT_EXPECT_SPEED:
		rc = parse_speed(arg, &o->expect_speed);
		return rc ? bad_value("expected speed (GT/s)", arg, rc) : CLI_NEXT;
	case OPT_EXPECT_WIDTH:
		rc = pcie_parse_width(arg, &o->expect_width);
		return rc ? bad_value("expected width", arg, rc) : CLI_NEXT;
	case OPT_EXPECT:
		rc = parse_expect(arg, o);
		return rc ? bad_value("expectation (genNxW, genN or xW)", arg, rc) : CLI_NEXT;
	}
	return cli_try_help();
}

/* Options that contradict each other, refused with one line. */
static const struct cli_excl contradictions[] = {
	{"pci-dump", NULL, "sysfs-root", "a dump is read instead of a sysfs tree (give one)"},
	{NULL},
};

static const struct cli_spec cmdline = {
	.opts = opts,
	.tool = tool_option,
	.usage = usage,
	.excl = contradictions,
};

/* -1 to go on, or the exit status (help, version, usage error). */
static int parse_options(int argc, char **argv, struct options *o)
{
	int first, rc;

	*o = (struct options){0};
	cli_common_init(&o->cc);
	rc = cli_parse(argc, argv, &cmdline, &o->cc, o, &first);
	if (rc != CLI_NEXT)
		return rc;
	if (first < argc)
		return nbw_usage_err("unexpected argument '%s' (devices go in --dev)", argv[first]);
	return -1;
}

/* ---- discovery ------------------------------------------------------------- */

/* The PCI address a sysfs "device" link resolves to, if it is a PCI function. */
static bool sysfs_pci_address(const char *dir, const struct pcitree *t, char bdf[16])
{
	char path[PATH_MAX + 16], real[PATH_MAX];
	const char *base;

	snprintf(path, sizeof(path), "%s/device", dir);
	if (!realpath(path, real))
		return false;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (strlen(base) != 12 || pcie_bdf_normalise(base, bdf))
		return false;
	return pcitree_find(t, bdf) != NULL;
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
			if (strcmp(p->transport, "pcie") || !sysfs_pci_address(sub, t, p->bdf)) {
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
			p->ports_active = bays_active_ports(sub);
			if (!sysfs_pci_address(sub, t, p->bdf)) {
				p->bdf[0] = 0;
				sysfs_read_attr(sub, "parent", p->soft_parent,
						sizeof(p->soft_parent));
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

static int discover(const struct options *o, const struct pcitree *t, struct probe_dev *out)
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
	return n;
}

static bool dev_matches(const struct probe_dev *p, const char *item)
{
	char bdf[16];

	if (p->name[0] && !strcmp(p->name, item))
		return true;
	return p->bdf[0] && !pcie_bdf_normalise(item, bdf) && !strcmp(bdf, p->bdf);
}

/*
 * Mark in used[] the devices that an item of list (--dev or --slot, by
 * bySlot) names. 0, or minus an exit status after the message.
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

/* Keep only the devices named in --dev or --slot. Returns the count or minus an exit code. */
static int select_devs(const struct options *o, struct probe_dev *d, int n)
{
	static struct probe_dev keep[MAX_DEVS];
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
			keep[m++] = d[i]; /* discovery order */
	free(used);
	memcpy(d, keep, sizeof(*d) * (size_t)m);
	return m;
}

static const char *who_of(const struct probe_dev *p)
{
	return p->kind == KIND_NVME ? "drive" : "NIC";
}

static void judge(const struct pcitree *t, struct probe_dev *p)
{
	if (!p->fn)
		return;
	pcitree_path(t, p->fn, who_of(p),
		     p->kind == KIND_RDMA || pcie_class_may_idle(p->fn->class_code), &p->path);
	p->have_path = true;
	if (p->path.verdict == PCIE_NO_LINK)
		snprintf(p->why_no_link, sizeof(p->why_no_link), "%s", p->path.reason);
}

/* ---- expectations ------------------------------------------------------------ */

static void check_expect(const struct options *o, struct probe_dev *p)
{
	const struct pcie_link *l;
	double speed;
	unsigned width;
	char a[16], b[16];

	p->expect_ok = true;
	if (!p->have_path || p->path.verdict == PCIE_NO_LINK)
		return;
	switch (p->path.verdict) {
	case PCIE_DOWNGRADED:
	case PCIE_LINK_DOWN:
	case PCIE_UNKNOWN:
		p->expect_ok = false;
		snprintf(p->expect_msg, sizeof(p->expect_msg), "%s: %s",
			 pcie_verdict_name(p->path.verdict), p->path.reason);
		return;
	default:
		break;
	}
	l = &p->path.link[0];
	/* An idle NIC is judged by what its link negotiates to, not where it rests. */
	speed = p->path.verdict == PCIE_MAYBE_IDLE ? l->exp_speed : l->speed;
	width = p->path.verdict == PCIE_MAYBE_IDLE ? l->exp_width : l->width;
	if ((o->expect_speed > 0 && speed < o->expect_speed - 0.01) ||
	    (o->expect_width && width < o->expect_width)) {
		p->expect_ok = false;
		snprintf(p->expect_msg, sizeof(p->expect_msg),
			 "link %s GT/s x%u is below the expected %s GT/s x%u",
			 pcie_speed_str(speed, a, sizeof(a)), width,
			 o->expect_speed > 0 ? pcie_speed_str(o->expect_speed, b, sizeof(b))
					     : "any",
			 o->expect_width);
	}
}

/* ---- output ------------------------------------------------------------------ */

static void report_speed(struct report *r, const char *key, double gts)
{
	if (gts > 0)
		report_double(r, key, NULL, gts);
	else
		report_null(r, key, NULL);
}

static void report_opt_str(struct report *r, const char *key, const char *s)
{
	report_str(r, key, NULL, s && s[0] ? s : NULL);
}

static void report_numa(struct report *r, const char *key, int node)
{
	if (node >= 0)
		report_i64(r, key, NULL, node);
	else
		report_null(r, key, NULL);
}

/* The registers of one function (JSON), as decoded. */
static void report_fn_fields(struct report *r, const struct pcie_fn *f)
{
	unsigned c;

	report_str(r, "bdf", NULL, f->bdf);
	report_str(r, "role", NULL, pcie_role_name(f->role));
	report_speed(r, "lnkcap_speed_gts", (f->known & PCIE_K_LNKCAP) ? f->cap_speed : 0);
	if (f->known & PCIE_K_LNKCAP)
		report_u64(r, "lnkcap_width", NULL, f->cap_width);
	else
		report_null(r, "lnkcap_width", NULL);
	if (f->known & PCIE_K_LNKCAP2) {
		report_arr_begin(r, "supported_speeds_gts");
		for (c = 1; c <= 7; c++)
			if (f->speeds_vector & (1u << (c - 1)))
				report_double(r, NULL, NULL, pcie_speed_gts(c));
		report_arr_end(r);
	} else {
		report_null(r, "supported_speeds_gts", NULL);
	}
	report_speed(r, "max_speed_gts", (f->known & PCIE_K_MAX) ? f->max_speed : 0);
	if (f->known & PCIE_K_MAX)
		report_u64(r, "max_width", NULL, f->max_width);
	else
		report_null(r, "max_width", NULL);
	report_speed(r, "target_speed_gts", (f->known & PCIE_K_LNKCTL2) ? f->target_speed : 0);
	report_speed(r, "speed_gts", (f->known & PCIE_K_LNKSTA) ? f->speed : 0);
	if (f->known & PCIE_K_LNKSTA)
		report_u64(r, "width", NULL, f->width);
	else
		report_null(r, "width", NULL);
	if (f->known & PCIE_K_DLL)
		report_bool(r, "dll_active", NULL, f->dll_active);
	else
		report_null(r, "dll_active", NULL);
	if (f->known & PCIE_K_MPS) {
		report_u64(r, "mps", NULL, f->mps);
		report_u64(r, "mrrs", NULL, f->mrrs);
	} else {
		report_null(r, "mps", NULL);
		report_null(r, "mrrs", NULL);
	}
	report_numa(r, "numa_node", f->numa_node);
	report_opt_str(r, "driver", f->driver);
}

static const char *link_text(double gts, unsigned width, bool known, char *buf, size_t len)
{
	char s[16];

	if (!known)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s GT/s x%u", pcie_speed_str(gts, s, sizeof(s)), width);
	return buf;
}

/* -v: one line per hop and one per link. */
static void print_hops_text(struct report *r, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	char a[32], b[32], s[16], m[128];
	int i;

	for (i = 0; i < pa->nhops; i++) {
		const struct pcie_fn *f = pa->hop[i];

		report_text(
			r, "    %-12s %-18s LnkCap %-12s max %-12s", f->bdf,
			pcie_role_name(f->role),
			link_text(f->cap_speed, f->cap_width, f->known & PCIE_K_LNKCAP, a,
				  sizeof(a)),
			link_text(f->max_speed, f->max_width, f->known & PCIE_K_MAX, b, sizeof(b)));
		report_text(r, " target %-4s",
			    (f->known & PCIE_K_LNKCTL2)
				    ? pcie_speed_str(f->target_speed, s, sizeof(s))
				    : "-");
		report_text(r, " LnkSta %-12s",
			    link_text(f->speed, f->width, f->known & PCIE_K_LNKSTA, a, sizeof(a)));
		report_text(r, " DLL %-3s",
			    (f->known & PCIE_K_DLL) ? (f->dll_active ? "up" : "down") : "-");
		if (f->known & PCIE_K_MPS)
			report_text(r, " MPS %-4u MRRS %-4u", f->mps, f->mrrs);
		else
			report_text(r, " MPS -    MRRS -   ");
		if (f->numa_node >= 0)
			report_text(r, " NUMA %d", f->numa_node);
		if (f->driver[0])
			report_text(r, " %s", f->driver);
		report_text(r, "\n");
	}
	for (i = 0; i < pa->nlinks; i++) {
		const struct pcie_link *l = &pa->link[i];

		report_text(r, "    link %s <- %s: %s, %s%s", l->port->bdf, l->dev->bdf,
			    pcie_verdict_name(l->verdict), l->reason,
			    i == pa->bottleneck ? " [narrowest]" : "");
		if (isfinite(l->raw))
			report_text(r, "; %.2f GB/s raw, ", l->raw);
		if (isfinite(l->usable))
			report_text(r, "%.2f usable (MPS %u)", l->usable, l->mps);
		else if (isfinite(l->raw))
			report_text(r, "usable unknown");
		if (l->missing)
			report_text(r, " [missing: %s]",
				    pcie_known_names(l->missing, m, sizeof(m)));
		report_text(r, "\n");
	}
}

/* A NIC's network rate against its PCIe ceiling. */
static void print_network(struct report *r, const struct probe_dev *p)
{
	double net = p->net_gbits / 8.0;
	double pcie =
		p->have_path ? (isfinite(p->path.usable) ? p->path.usable : p->path.raw) : NAN;
	const char *lower = NULL;
	const char *kind = p->have_path && isfinite(p->path.usable) ? "usable" : "raw";

	if (!isfinite(net) && !p->rate_text[0])
		return;
	if (isfinite(net) && isfinite(pcie))
		lower = pcie < net - 1e-9 ? "pcie" : net < pcie - 1e-9 ? "network" : "equal";
	report_obj_begin(r, "network");
	report_opt_str(r, "rate", p->rate_text);
	report_opt_str(r, "link_layer", p->link_layer);
	report_double(r, "data_rate_gbits", NULL, p->net_gbits);
	report_double(r, "gb_per_s", NULL, net);
	report_double(r, "pcie_gb_per_s", NULL, pcie);
	report_str(r, "pcie_ceiling", NULL, isfinite(pcie) ? kind : NULL);
	report_str(r, "lower", NULL, lower);
	report_obj_end(r);
	report_text(r, "    port 1: %s%s%s", p->rate_text[0] ? p->rate_text : "rate unknown",
		    p->link_layer[0] ? " " : "", p->link_layer);
	if (isfinite(net))
		report_text(r, " = %.2f GB/s of data", net);
	if (lower && !strcmp(lower, "pcie"))
		report_text(r, "; PCIe (%.2f GB/s %s) is lower: the slot cannot fill the port",
			    pcie, kind);
	else if (lower && !strcmp(lower, "network"))
		report_text(r, "; the network port is lower than PCIe (%.2f GB/s %s)", pcie, kind);
	else if (lower)
		report_text(r, "; PCIe (%s) and the network port match", kind);
	report_text(r, "\n");
}

/* The slot it sits in: {number, name, port_bdf} or null, and why not (JSON); a column. */
static void print_slot(struct report *r, const struct probe_dev *p)
{
	char num[16];

	if (p->have_slot) {
		report_obj_begin(r, "slot");
		if (p->slot_number >= 0)
			report_i64(r, "number", NULL, p->slot_number);
		else
			report_null(r, "number", NULL);
		report_opt_str(r, "name", p->slot_name);
		report_str(r, "port_bdf", NULL, p->slot_port);
		report_obj_end(r);
		report_null(r, "slot_reason", NULL);
	} else {
		report_null(r, "slot", NULL);
		report_str(r, "slot_reason", NULL, p->slot_reason);
	}
	snprintf(num, sizeof(num), "%d", p->slot_number);
	report_text(r, " %-5s", p->slot_number >= 0 ? num : p->slot_name[0] ? p->slot_name : "-");
}

/* Name, kind, address, NUMA node and what the device is. */
static void print_identity(struct report *r, const struct probe_dev *p)
{
	report_str(r, "name", " %-10s", p->name[0] ? p->name : NULL);
	report_str(r, "kind", " %-5s", p->kind == KIND_NVME ? "nvme" : "rdma");
	report_str(r, "bdf", " %-12s", p->bdf[0] ? p->bdf : NULL);
	print_slot(r, p);
	report_numa(r, "numa_node", p->fn ? p->fn->numa_node : -1);
	if (!r->json) {
		if (p->fn && p->fn->numa_node >= 0)
			report_text(r, " %4d", p->fn->numa_node);
		else
			report_text(r, " %4s", "-");
	}
	report_opt_str(r, "driver", p->fn ? p->fn->driver : NULL);
	report_opt_str(r, "model", p->model);
	report_opt_str(r, "firmware", p->firmware);
	if (p->kind == KIND_NVME)
		report_opt_str(r, "transport", p->transport);
	report_bool(r, "virtual_function", NULL, p->fn && p->fn->is_vf);
	report_opt_str(r, "physical_function", p->fn && p->fn->is_vf ? p->fn->pf_bdf : NULL);
}

/* The device's own link ("link" in JSON; "link now" and "max" in text). */
static void print_own_link(struct report *r, const struct pcie_link *own, const struct pcie_fn *dev)
{
	char now[32], max[32];

	if (own) {
		report_obj_begin(r, "link");
		report_speed(r, "speed_gts", own->speed);
		report_u64(r, "width", NULL, own->width);
		report_speed(r, "max_speed_gts", dev->max_speed);
		report_u64(r, "max_width", NULL, dev->max_width);
		report_speed(r, "port_max_speed_gts", own->port->max_speed);
		report_u64(r, "port_max_width", NULL, own->port->max_width);
		report_speed(r, "target_speed_gts",
			     (own->port->known & PCIE_K_LNKCTL2) ? own->port->target_speed : 0);
		report_speed(r, "expected_speed_gts", own->exp_speed);
		report_u64(r, "expected_width", NULL, own->exp_width);
		report_obj_end(r);
	} else {
		report_null(r, "link", NULL);
	}
	report_text(r, " %-12s %-12s",
		    link_text(own ? own->speed : 0, own ? own->width : 0,
			      own && own->verdict != PCIE_UNKNOWN && own->verdict != PCIE_LINK_DOWN,
			      now, sizeof(now)),
		    link_text(dev ? dev->max_speed : 0, dev ? dev->max_width : 0,
			      dev && (dev->known & PCIE_K_MAX), max, sizeof(max)));
}

/* JSON only: the function, every hop of the path and every link on it. */
static void print_path_json(struct report *r, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	int i;

	if (p->fn) {
		report_obj_begin(r, "function");
		report_fn_fields(r, p->fn);
		report_obj_end(r);
	}
	report_arr_begin(r, "path");
	for (i = 0; p->have_path && i < pa->nhops; i++) {
		report_obj_begin(r, NULL);
		report_fn_fields(r, pa->hop[i]);
		report_obj_end(r);
	}
	report_arr_end(r);
	report_arr_begin(r, "links");
	for (i = 0; p->have_path && i < pa->nlinks; i++) {
		const struct pcie_link *l = &pa->link[i];

		report_obj_begin(r, NULL);
		report_str(r, "port_bdf", NULL, l->port->bdf);
		report_str(r, "device_bdf", NULL, l->dev->bdf);
		report_speed(r, "speed_gts", l->speed);
		report_u64(r, "width", NULL, l->width);
		report_speed(r, "expected_speed_gts", l->exp_speed);
		report_u64(r, "expected_width", NULL, l->exp_width);
		report_double(r, "raw_gb_per_s", NULL, l->raw);
		report_double(r, "usable_gb_per_s", NULL, l->usable);
		report_str(r, "verdict", NULL, pcie_verdict_name(l->verdict));
		report_str(r, "limited_by", NULL, pcie_limit_name(l->limited_by));
		report_str(r, "reason", NULL, l->reason);
		report_obj_end(r);
	}
	report_arr_end(r);
}

/*
 * The slot ceiling: what the path would give a device of unlimited
 * capability. Its narrowest element is the port (the slot) or a link further
 * up, named by its lower end as bottleneck_bdf does.
 */
static void print_slot_ceiling(struct report *r, const struct probe_dev *p)
{
	const struct pcie_what_if *w = &p->slot_ceiling;
	const char *bdf = NULL;

	if (w->bottleneck == 0)
		bdf = p->slot_port;
	else if (w->bottleneck > 0)
		bdf = p->path.link[w->bottleneck].dev->bdf;
	report_obj_begin(r, "slot_ceiling_gb_per_s");
	report_double(r, "raw", NULL, w->raw);
	report_double(r, "usable", NULL, w->usable);
	report_obj_end(r);
	report_str(r, "slot_bottleneck_bdf", NULL, bdf);
	if (!r->json) {
		if (isfinite(w->usable))
			report_text(r, " %8.2f", w->usable);
		else if (isfinite(w->raw))
			report_text(r, " %7.2fr", w->raw);
		else
			report_text(r, " %8s", "-");
	}
}

/* Ceiling, narrowest hop, verdict, what limits it and why. */
static void print_verdict(struct report *r, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	enum pcie_verdict v = p->have_path ? pa->verdict : PCIE_NO_LINK;
	const char *reason = p->have_path && v != PCIE_NO_LINK ? pa->reason : p->why_no_link;

	report_obj_begin(r, "ceiling_gb_per_s");
	report_double(r, "raw", NULL, p->have_path ? pa->raw : NAN);
	report_double(r, "usable", NULL, p->have_path ? pa->usable : NAN);
	report_obj_end(r);
	if (!r->json) {
		if (p->have_path && isfinite(pa->usable))
			report_text(r, " %7.2f", pa->usable);
		else
			report_text(r, " %7s", "-");
	}
	report_str(r, "bottleneck_bdf", NULL,
		   p->have_path && pa->bottleneck >= 0 ? pa->link[pa->bottleneck].dev->bdf : NULL);
	print_slot_ceiling(r, p);
	report_str(r, "verdict", " %-11s", pcie_verdict_name(v));
	report_str(r, "limited_by", NULL,
		   pcie_limit_name(p->have_path ? pa->limited_by : PCIE_LIMIT_NONE));
	if (!r->json && p->have_path && pa->limited_by != PCIE_LIMIT_NONE)
		report_text(r, " (%s)", pcie_limit_name(pa->limited_by));
	report_str(r, "reason", " %s", reason);
	if (p->fn && p->fn->is_vf)
		report_text(r, " [virtual function: judged by its physical function %s]",
			    p->fn->pf_bdf);
	report_text(r, "\n");
}

/* The register fields that could not be read on any link of the path. */
static void print_missing(struct report *r, const struct options *o, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	unsigned missing = 0;
	char m[128];
	int i;

	for (i = 0; i < pa->nlinks; i++)
		missing |= pa->link[i].missing;
	report_arr_begin(r, "missing");
	for (i = 0; i < 9; i++)
		if (missing & (1u << i))
			report_str(r, NULL, NULL, pcie_known_names(1u << i, m, sizeof(m)));
	report_arr_end(r);
	if (missing && !o->verbose)
		report_text(r, "    missing: %s%s\n", pcie_known_names(missing, m, sizeof(m)),
			    geteuid() ? " (config space beyond the header needs root)" : "");
}

/* RDMA locality, the site specification's line for its bay, and (-v) the slot in words. */
static void print_device_bay(struct report *r, const struct options *o, const struct probe_dev *p)
{
	char lbl[80];

	if (p->kind == KIND_NVME && p->local_rdma >= 0)
		report_i64(r, "rdma_active_ports_on_node", NULL, p->local_rdma);
	else if (p->kind == KIND_NVME)
		report_null(r, "rdma_active_ports_on_node", NULL);
	if (p->kind == KIND_RDMA && p->ports_active >= 0)
		report_i64(r, "ports_active", NULL, p->ports_active);
	else if (p->kind == KIND_RDMA)
		report_null(r, "ports_active", NULL);
	if (p->spec) {
		report_obj_begin(r, "site_spec");
		report_i64(r, "line", NULL, p->spec->line);
		report_speed(r, "speed_gts", p->spec->speed);
		report_u64(r, "width", NULL, p->spec->width);
		report_bool(r, "met", NULL, p->spec_ok);
		report_bool(r, "accepted", NULL, p->spec_accepted);
		report_str(r, "reason", NULL, p->spec_ok ? NULL : p->spec_msg);
		report_obj_end(r);
	}
	if (!o->verbose)
		return;
	if (p->have_slot)
		report_text(r, "    %s%s%s%s below port %s", bays_slot_label(p, lbl, sizeof(lbl)),
			    p->slot_number >= 0 && p->slot_name[0] ? " (kernel slot " : "",
			    p->slot_number >= 0 ? p->slot_name : "",
			    p->slot_number >= 0 && p->slot_name[0] ? ")" : "", p->slot_port);
	else
		report_text(r, "    no slot: %s", p->slot_reason);
	if (isfinite(p->slot_ceiling.raw))
		report_text(r, "; slot ceiling %.2f GB/s raw, %.2f usable, narrowest %s",
			    p->slot_ceiling.raw, p->slot_ceiling.usable,
			    p->slot_ceiling.bottleneck > 0
				    ? p->path.link[p->slot_ceiling.bottleneck].dev->bdf
				    : p->slot_port);
	report_text(r, "\n");
}

static void print_device(struct report *r, const struct options *o, const struct probe_dev *p)
{
	const struct pcie_path *pa = &p->path;
	const struct pcie_link *own = p->have_path && pa->nlinks ? &pa->link[0] : NULL;
	const struct pcie_fn *dev = p->have_path && pa->nhops ? pa->hop[0] : p->fn;

	report_obj_begin(r, NULL);
	print_identity(r, p);
	print_own_link(r, own, dev);
	print_path_json(r, p);
	print_verdict(r, p);
	if (p->have_path && own)
		print_missing(r, o, p);
	if (p->kind == KIND_RDMA)
		print_network(r, p);
	if (o->verbose) {
		if (p->model[0])
			report_text(r, "    model %s, firmware %s\n", p->model,
				    p->firmware[0] ? p->firmware : "-");
		if (p->have_path)
			print_hops_text(r, p);
	}
	print_device_bay(r, o, p);
	if (o->expect_speed > 0 || o->expect_width) {
		report_obj_begin(r, "expectation");
		report_bool(r, "met", NULL, p->expect_ok);
		report_str(r, "reason", NULL, p->expect_ok ? NULL : p->expect_msg);
		report_obj_end(r);
	}
	report_obj_end(r);
}

/*
 * Load the tree, find and judge every device (RDMA locality needs them all),
 * keep those of --dev/--slot, sort by slot. The count or minus an exit status.
 */
static int probe_collect(const struct options *o, struct pcitree *t, struct probe_dev *devs)
{
	char err[512];
	int n, rc, i;

	rc = pcitree_load(t, o->cc.sysfs_root, o->dump, err, sizeof(err));
	if (rc) {
		nbw_err("%s", err);
		return rc == -ENOENT && (o->dump || strcmp(o->cc.sysfs_root, "/sys"))
			       ? -NBW_EXIT_USAGE
			       : -NBW_EXIT_FAIL;
	}
	n = discover(o, t, devs);
	if (n < 0) {
		nbw_err("%s/class: %s", o->cc.sysfs_root, strerror(-n));
		n = -NBW_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		judge(t, &devs[i]);
		bays_find_slot(t, &devs[i]);
	}
	if (n > 0)
		bays_rdma_locality(devs, n, !o->dump);
	if (n > 0 && (o->devs || o->slots))
		n = select_devs(o, devs, n);
	if (n > 0)
		bays_sort(devs, n);
	if (n == 0) {
		nbw_err("no NVMe controllers or RDMA devices found %s %s", o->dump ? "in" : "under",
			o->dump ? o->dump : o->cc.sysfs_root);
		n = -NBW_EXIT_FAIL;
	}
	if (n < 0)
		pcitree_free(t);
	return n;
}

/* The document: header, a row per device, the expectation. */
static void print_report(struct report *r, const struct options *o, const struct pcitree *t,
			 const struct site_spec *spec, const struct probe_dev *devs, int n)
{
	bool expect_met = true;
	int i;

	for (i = 0; i < n; i++)
		expect_met &= devs[i].expect_ok;

	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_link_probe");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "source", NULL,
		   o->dump			      ? "pci_dump"
		   : strcmp(o->cc.sysfs_root, "/sys") ? "sysfs_root"
						      : "live");
	report_bool(r, "root_access", NULL, !t->header_only);
	report_text(r, " %-10s %-5s %-12s %-5s %4s %-12s %-12s %7s %8s %-11s %s\n", "name", "kind",
		    "bdf", "slot", "numa", "link now", "max", "usable", "slot max", "verdict",
		    "reason");
	report_text(r, " %-10s %-5s %-12s %-5s %4s %-12s %-12s %7s %8s\n", "", "", "", "", "", "",
		    "", "GB/s", "GB/s");
	report_arr_begin(r, "devices");
	for (i = 0; i < n; i++)
		print_device(r, o, &devs[i]);
	report_arr_end(r);
	if (o->expect_speed > 0 || o->expect_width) {
		report_obj_begin(r, "expect");
		report_speed(r, "speed_gts", o->expect_speed);
		if (o->expect_width)
			report_u64(r, "width", NULL, o->expect_width);
		else
			report_null(r, "width", NULL);
		report_bool(r, "met", NULL, expect_met);
		report_obj_end(r);
	}
	if (spec)
		bays_spec_report(r, spec, devs, n);
	if (o->project)
		bays_project(r, devs, n);
	report_obj_end(r);
	report_finish(r);
}

/* After the document, on stderr: the no-root warning and one line per unmet expectation. */
static void print_audit_lines(const struct pcitree *t, const struct probe_dev *devs, int n)
{
	int i;

	if (t->header_only)
		nbw_warn("config space beyond the 64-byte header is readable only by root: link "
			 "fields from sysfs attributes, target speed and MPS unknown");
	for (i = 0; i < n; i++) {
		if (devs[i].have_path && devs[i].path.verdict == PCIE_NO_LINK)
			continue;
		if (!devs[i].expect_ok)
			nbw_err("%s%s%s%s: expectation not met: %s", devs[i].name,
				devs[i].name[0] ? " (" : "", devs[i].bdf,
				devs[i].name[0] ? ")" : "", devs[i].expect_msg);
	}
}

/* Judge every device against --expect* and the site file; false if one falls short. */
static bool audit(const struct options *o, struct site_spec *spec, struct probe_dev *devs, int n)
{
	bool met = true;
	int i;

	if (o->expect_file)
		met = bays_spec_check(spec, devs, n, o->devs || o->slots);
	for (i = 0; i < n; i++) {
		devs[i].expect_ok = true;
		if (o->expect_speed > 0 || o->expect_width) {
			check_expect(o, &devs[i]);
			met &= devs[i].expect_ok;
		}
	}
	return met;
}

/* The watchdog's last word: where the run was stuck, then exit 1 at once. */
static void give_up(const char *why)
{
	nbw_err("%s", why);
	fflush(stdout);
	_exit(NBW_EXIT_FAIL);
}

int main(int argc, char **argv)
{
	static struct probe_dev devs[MAX_DEVS];
	struct site_spec spec = {0};
	struct options o;
	struct pcitree t;
	struct report r;
	FILE *out;
	bool all_met;
	int n, rc;

	nbw_set_prog(argv[0]);
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	/* Reading sysfs and config space takes milliseconds; a wedged device, longer. */
	if (nbw_watchdog_start(PROBE_BUDGET_S, give_up))
		nbw_warn("no watchdog thread: the run's budget is not enforced");
	nbw_watchdog_phase("reading sysfs and the PCI config space");
	if (o.expect_file) {
		rc = bays_spec_load(o.expect_file, &spec);
		if (rc)
			return rc;
	}
	n = probe_collect(&o, &t, devs);
	if (n < 0) {
		bays_spec_free(&spec);
		return -n;
	}
	all_met = audit(&o, &spec, devs, n);
	out = cli_open_output(&o.cc);
	if (!out) {
		pcitree_free(&t);
		bays_spec_free(&spec);
		return NBW_EXIT_FAIL;
	}
	report_init(&r, out, o.cc.json, false);
	print_report(&r, &o, &t, o.expect_file ? &spec : NULL, devs, n);
	print_audit_lines(&t, devs, n);
	if (o.expect_file)
		bays_spec_lines(&spec, devs, n);
	cli_close_output(out);
	pcitree_free(&t);
	bays_spec_free(&spec);
	return all_met ? NBW_EXIT_OK : NBW_EXIT_EXPECT;
}
