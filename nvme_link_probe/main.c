// SPDX-License-Identifier: MIT
/*
 * nvme_link_probe: PCIe link audit of NVMe drives and RDMA devices. This
 * file wires the parts (probe.h lists them): the options, then load the PCI
 * tree, discover, judge, find the slots, select, sort, audit, print. The
 * decoding, ceilings and link verdicts live in common/pci/pcilink.c and
 * common/pci/pcitree.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bays.h"
#include "cli.h"
#include "discover.h"
#include "judge.h"
#include "nbw.h"
#include "parse.h"
#include "pcilink.h"
#include "pcitree.h"
#include "p2p.h"
#include "print.h"
#include "probe.h"
#include "report.h"
#include "select.h"
#include "spec.h"
#include "topo.h"
#include "watchdog.h"

/* The whole run's budget (said in --help): past it, the step it was stuck in, exit 1. */
#define PROBE_BUDGET_S 60.0

static const struct cli_spec cmdline;

static void usage(void)
{
	printf("Usage: %s [options]\n", nbw_prog);
	printf("\nAudit the PCIe links of NVMe drives and RDMA devices: each link on the path\n"
	       "to the root port is judged from both of its ends, with the bandwidth ceiling\n"
	       "of the narrowest hop; with --topology, which NIC each drive sits nearest to\n"
	       "and whether they could move data peer-to-peer. Reads only.\n");
	cli_help(&cmdline);
	printf("\nVerdicts: ok, downgraded (limited_by device, port, training or path),\n"
	       "maybe_idle, link_down, no_link, unknown.\n"
	       "Relations (--topology, as nvidia-smi topo -m): PIX one switch at most, PXB\n"
	       "several, both below one root port; PHB the host bridge; NODE another root\n"
	       "complex of the NUMA node; SYS another NUMA node. Peer-to-peer: direct,\n"
	       "via_root, no, unknown.\n"
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
	OPT_TOPOLOGY,
};

/* clang-format off */
#define O struct options
#define ROW(name, has, val) CLI_NAME(name, has, val)
static const struct cli_opt opts[] = {
	{ROW("dev", required_argument, OPT_DEV), .type = CLI_T_TEXT, .field = CLI_AT(O, devs),
	 .arg = "LIST", .sect = "Devices:",
	 .help = "comma-separated PCI addresses or names (nvme0, mlx5_0); default: every NVMe "
		 "controller and RDMA device"},
	{ROW("select", required_argument, 's'), .type = CLI_T_TEXT, .field = CLI_AT(O, sel),
	 .arg = "SEL", .help = "lspci's -s: [[[[domain]:]bus]:][slot][.[func]] in hex, a part "
			       "left out or * matching any (-s 03:, -s .0); a comma list"},
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
	{ROW("expect", required_argument, OPT_EXPECT), .arg = "GENxW|p2p|mps",
	 .help = "both at once: gen4x4, gen3, x8; exit 3 if a device is below it, downgraded, "
		 "down or unknown; p2p: exit 3 if a drive cannot move data peer-to-peer with "
		 "its nearest ACTIVE RDMA device (implies --topology); mps: exit 3 if a link "
		 "runs a smaller MPS than both ends support, or an MRRS below it; repeatable"},
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
	{ROW("topology", no_argument, OPT_TOPOLOGY), .type = CLI_T_FLAG,
	 .field = CLI_AT(O, topology),
	 .help = "affinity matrix of drives, RDMA devices and GPUs (PIX PXB PHB NODE SYS), "
		 "each drive's nearest ACTIVE RDMA device, and the peer-to-peer audit of each "
		 "pair: ACS, the kernel's host-bridge rule, IOMMU, p2pmem, GPUDirect (on by "
		 "itself when only GPUs are found)"},
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

/* "gen4x4", "gen3", "x8", "p2p", "mps" (case-insensitive). */
static int parse_expect(const char *s, struct options *o)
{
	char buf[32], *x;
	unsigned long gen;
	int rc;

	if (!strcasecmp(s, "p2p")) {
		o->expect_p2p = true;
		o->topology = true;
		return 0;
	}
	if (!strcasecmp(s, "mps")) {
		o->expect_mps = true;
		return 0;
	}
	if (strlen(s) >= sizeof(buf) || !*s)
		return -EINVAL;
	for (rc = 0; s[rc]; rc++)
		buf[rc] = (char)tolower((unsigned char)s[rc]);
	buf[rc] = 0;
	x = strchr(buf, 'x');
	if (x) {
		*x = 0;
		rc = pcie_parse_width(x + 1, &o->expect.width);
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
	o->expect.speed = pcie_speed_gts((unsigned)gen);
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
		rc = parse_speed(arg, &o->expect.speed);
		return rc ? bad_value("expected speed (GT/s)", arg, rc) : CLI_NEXT;
	case OPT_EXPECT_WIDTH:
		rc = pcie_parse_width(arg, &o->expect.width);
		return rc ? bad_value("expected width", arg, rc) : CLI_NEXT;
	case OPT_EXPECT:
		rc = parse_expect(arg, o);
		return rc ? bad_value("expectation (genNxW, genN, xW, p2p or mps)", arg, rc)
			  : CLI_NEXT;
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
	if (first < argc && cli_json_operand(&o->cc, argv[first]))
		return nbw_usage_err("unexpected argument '%s': --json takes its file with '=' "
				     "(--json=%s)",
				     argv[first], argv[first]);
	if (first < argc)
		return nbw_usage_err("unexpected argument '%s' (devices go in --dev)", argv[first]);
	return -1;
}

/*
 * Each NVMe controller's health log now (read-only admin passthrough on
 * /dev/NAME): only on this machine's own sysfs, never for a dump or a tree.
 */
static void probe_health(const struct options *o, struct probe_dev *devs, int n)
{
	bool live = !o->dump && !strcmp(o->cc.sysfs_root, "/sys");
	char dev[96];
	int i;

	for (i = 0; i < n; i++) {
		struct probe_dev *p = &devs[i];

		if (p->kind != KIND_NVME)
			continue;
		if (!live || !p->name[0]) {
			snprintf(p->health_why, sizeof(p->health_why), "not read: %s",
				 o->dump ? "a dump holds no controller"
					 : "not this machine's sysfs");
			continue;
		}
		snprintf(dev, sizeof(dev), "/dev/%s", p->name);
		p->have_health = !health_read(dev, &p->health, &p->health_lim, p->health_why,
					      sizeof(p->health_why));
	}
}

/*
 * --topology: the matrix of every device (before --dev/--slot choose) and
 * its peer-to-peer audit. 0 or minus an exit status.
 */
static int probe_topology(const struct options *o, const struct pcitree *t,
			  const struct probe_dev *devs, int n, struct topology *tp,
			  struct p2p_system *sys)
{
	if (topo_build(t, devs, n, tp)) {
		nbw_err("out of memory for the affinity matrix");
		return -NBW_EXIT_FAIL;
	}
	p2p_read(t, !o->dump && !strcmp(o->cc.sysfs_root, "/sys"), sys, tp);
	p2p_judge_all(sys, tp);
	return 0;
}

/*
 * No drive and no RDMA device: the GPUs alone get the matrix and its audit
 * (as with --topology), said on stderr. With no GPU either, nothing to audit:
 * said, and the (empty) document is still written; the exit status is 1.
 */
static void probe_nothing(struct options *o, const struct topology *tp)
{
	const char *where = o->dump ? o->dump : o->cc.sysfs_root;

	if (tp->n > 0) {
		if (!o->topology)
			nbw_warn("no NVMe controllers or RDMA devices found %s %s: the %d GPU%s "
				 "audited as with --topology",
				 o->dump ? "in" : "under", where, tp->n, tp->n == 1 ? "" : "s");
		o->topology = true;
		return;
	}
	nbw_err("no NVMe controllers, RDMA devices or GPUs found %s %s: nothing to audit",
		o->dump ? "in" : "under", where);
	o->nothing = true;
}

/*
 * Load the tree, find and judge every device (RDMA locality and the matrix
 * need them all), keep those of --dev/--slot, sort by slot. The count or
 * minus an exit status; none: the GPUs alone, or nothing (probe_nothing()).
 */
static int probe_collect(struct options *o, struct pcitree *t, struct probe_dev *devs,
			 struct topology *tp, struct p2p_system *sys)
{
	char err[512];
	int n, rc, i;

	rc = pcitree_load(t, o->cc.sysfs_root, o->dump, err, sizeof(err));
	if (rc) {
		nbw_err("%s", err); /* a missing file is the machine's, not the command line's */
		return -NBW_EXIT_FAIL;
	}
	n = discover_devices(o, t, devs);
	if (n < 0) {
		nbw_err("%s/class: %s", o->cc.sysfs_root, strerror(-n));
		n = -NBW_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		judge_device(&devs[i]);
		bays_find_slot(t, &devs[i]);
	}
	if (n > 0)
		bays_rdma_locality(devs, n, !o->dump);
	if (n >= 0 && (o->topology || o->project || !n) && probe_topology(o, t, devs, n, tp, sys))
		n = -NBW_EXIT_FAIL;
	if (n > 0 && (o->devs || o->sel || o->slots))
		n = select_devs(o, t, devs, n);
	if (n > 0) {
		bays_sort(devs, n);
		probe_health(o, devs, n);
	}
	if (n == 0 && !o->misses->n)
		probe_nothing(o, tp);
	if (n < 0) {
		topo_free(tp);
		pcitree_free(t);
	}
	return n;
}

/* The watchdog's last word: where the run was stuck, then exit 1 at once. */
static void give_up(const char *why)
{
	nbw_err("%s", why);
	fflush(stdout);
	_exit(NBW_EXIT_FAIL);
}

/* The devices' identity (a dump's are another machine's: none). */
static void probe_provenance(const struct options *o, const struct probe_dev *devs, int n)
{
	int i;

	for (i = 0; i < n && !o->dump; i++) {
		if (!devs[i].name[0])
			continue;
		if (devs[i].kind == KIND_NVME)
			prov_add_nvme(o->prov, o->cc.sysfs_root, "", devs[i].name);
		else
			prov_add_rdma(o->prov, o->cc.sysfs_root, devs[i].name, 0);
	}
}

int main(int argc, char **argv)
{
	static struct probe_dev devs[MAX_DEVS];
	static struct provenance prov;
	static struct probe_misses misses;
	struct site_spec spec = {0};
	struct topology tp = {0};
	struct p2p_system sys;
	struct options o;
	struct pcitree t;
	struct report r;
	FILE *out;
	bool all_met;
	int n, rc;

	nbw_set_prog(argv[0]);
	prov_init(&prov, argc, argv);
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	o.prov = &prov;
	o.misses = &misses;
	/* Reading sysfs and config space takes milliseconds; a wedged device, longer. */
	if (nbw_watchdog_start(PROBE_BUDGET_S, give_up))
		nbw_warn("no watchdog thread: the run's budget is not enforced");
	nbw_watchdog_phase("reading sysfs and the PCI config space");
	if (o.expect_file) {
		rc = spec_load(o.expect_file, &spec);
		if (rc)
			return rc;
	}
	n = probe_collect(&o, &t, devs, &tp, &sys);
	if (n < 0) {
		spec_free(&spec);
		return -n;
	}
	all_met = judge_audit(&o, &spec, devs, n);
	probe_provenance(&o, devs, n);
	if (o.expect_p2p)
		all_met &= p2p_expect_met(&tp, devs, n);
	out = cli_open_output(&o.cc);
	if (!out) {
		topo_free(&tp);
		pcitree_free(&t);
		spec_free(&spec);
		return NBW_EXIT_FAIL;
	}
	report_init(&r, out, o.cc.json, false);
	print_report(&r, &o, &t, o.expect_file ? &spec : NULL, devs, n,
		     o.topology || o.project ? &tp : NULL, &sys);
	print_audit_lines(&t, o.expect_file ? &spec : NULL, devs, n);
	if (o.expect_p2p)
		print_p2p_lines(&tp, devs, n);
	print_miss_lines(&misses);
	cli_close_output(out);
	topo_free(&tp);
	pcitree_free(&t);
	spec_free(&spec);
	/* An item that named nothing: well formed, missing on the machine. */
	return misses.n || o.nothing ? NBW_EXIT_FAIL : all_met ? NBW_EXIT_OK : NBW_EXIT_EXPECT;
}
