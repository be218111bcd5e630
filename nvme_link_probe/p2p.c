// SPDX-License-Identifier: MIT
/*
 * p2p.c: nvme_link_probe's peer-to-peer audit (p2p.h). Reading what the
 * system says (IOMMU groups and their types, the kernel command line, the
 * functions publishing p2pmem, the nvidia_peermem module) and judging each
 * pair of the affinity matrix from it and from the ACS registers of the
 * downstream ports between the two (decoded in common/pci/pcilink_decode.c).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "p2p.h"
#include "sysfs.h"

const char *p2p_iommu_name(enum p2p_iommu m)
{
	static const char *const names[] = {"unknown", "off", "passthrough", "translated"};

	return (unsigned)m < NBW_ARRAY_SIZE(names) ? names[m] : "unknown";
}

const char *p2p_verdict_name(enum p2p_verdict v)
{
	static const char *const names[] = {"direct", "via_root", "no", "unknown"};

	return (unsigned)v < NBW_ARRAY_SIZE(names) ? names[v] : "unknown";
}

const char *p2p_host_rule_name(enum p2p_host_rule h)
{
	static const char *const names[] = {"none", "amd_zen", "allow_list", "refused", "unknown"};

	return (unsigned)h < NBW_ARRAY_SIZE(names) ? names[h] : "unknown";
}

/* Count the IOMMU groups and the types of their default domains into sys. */
static void read_groups(const char *root, struct p2p_system *sys)
{
	char dir[PATH_MAX], sub[PATH_MAX + 300], type[32];
	int identity = 0, dma = 0, unread = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/kernel/iommu_groups", root);
	d = opendir(dir);
	if (!d && errno != ENOENT) {
		sys->iommu = IOMMU_UNKNOWN;
		snprintf(sys->iommu_reason, sizeof(sys->iommu_reason), "%s: %s", dir,
			 strerror(errno));
		return;
	}
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		sys->groups++;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (sysfs_read_attr(sub, "type", type, sizeof(type)))
			unread++;
		else if (!strcmp(type, "identity"))
			identity++;
		else
			dma++; /* DMA, DMA-FQ: translated */
	}
	if (d)
		closedir(d);
	if (!sys->groups) {
		sys->iommu = IOMMU_OFF;
		snprintf(sys->iommu_reason, sizeof(sys->iommu_reason),
			 "no IOMMU groups: the IOMMU is off or absent");
	} else if (dma) {
		sys->iommu = IOMMU_TRANSLATED;
		snprintf(sys->iommu_reason, sizeof(sys->iommu_reason),
			 "%d of %d IOMMU groups translate (type DMA or DMA-FQ)", dma, sys->groups);
	} else if (identity) {
		sys->iommu = IOMMU_PASSTHROUGH;
		snprintf(sys->iommu_reason, sizeof(sys->iommu_reason),
			 "every readable IOMMU group is identity-mapped (passthrough)");
	} else {
		sys->iommu = IOMMU_UNKNOWN;
		snprintf(sys->iommu_reason, sizeof(sys->iommu_reason),
			 "%d IOMMU groups, none with a readable type", sys->groups);
	}
	if (unread && sys->iommu != IOMMU_UNKNOWN) {
		size_t used = strlen(sys->iommu_reason);

		snprintf(sys->iommu_reason + used, sizeof(sys->iommu_reason) - used,
			 "; %d without a readable type", unread);
	}
}

void p2p_parse_cpuinfo(const char *text, struct p2p_system *sys)
{
	const char *v = strstr(text, "vendor_id"), *f = strstr(text, "cpu family");
	const char *c;
	char *end;
	long fam;

	sys->cpu_amd = false;
	sys->cpu_family = 0;
	if (!v || !f || !(c = strchr(f, ':')))
		return;
	v = strchr(v, ':');
	sys->cpu_amd = v && !strncmp(v + strspn(v, ": \t"), "AuthenticAMD", 12);
	fam = strtol(c + 1, &end, 10);
	sys->cpu_family = end != c + 1 && fam > 0 && fam < 4096 ? (unsigned)fam : 0;
}

/* The live CPU's vendor and family (the first processor's), for the kernel's rule. */
static void read_cpuinfo(struct p2p_system *sys)
{
	char text[8192];
	size_t n;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	p2p_parse_cpuinfo(text, sys);
}

/* The IOMMU words of the live kernel command line. */
static void read_cmdline(struct p2p_system *sys)
{
	static const char *const keys[] = {
		"iommu=", "intel_iommu=", "amd_iommu=", "iommu.passthrough=", "iommu.strict="};
	char line[4096], *save = NULL, *w;
	size_t used = 0, k;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	for (w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		for (k = 0; k < NBW_ARRAY_SIZE(keys); k++)
			if (!strncmp(w, keys[k], strlen(keys[k])) && used < sizeof(sys->cmdline))
				used += (size_t)snprintf(sys->cmdline + used,
							 sizeof(sys->cmdline) - used, "%s%s",
							 used ? " " : "", w);
}

/* A node's IOMMU group and its type, and the p2pmem it publishes. */
static void read_node(const char *root, struct topo_node *x)
{
	char dir[PATH_MAX], sub[PATH_MAX + 64], buf[64];
	char *end;

	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s", root, x->bdf);
	if (!sysfs_link_basename(dir, "iommu_group", buf, sizeof(buf))) {
		long g = strtol(buf, &end, 10);

		if (end != buf && !*end && g >= 0 && g < 1000000) {
			x->iommu_group = (int)g;
			snprintf(sub, sizeof(sub), "%s/kernel/iommu_groups/%ld", root, g);
			if (sysfs_read_attr(sub, "type", x->iommu_type, sizeof(x->iommu_type)))
				x->iommu_type[0] = 0;
		}
	}
	snprintf(sub, sizeof(sub), "%s/p2pmem", dir);
	if (!sysfs_read_attr(sub, "size", buf, sizeof(buf))) {
		long long v = strtoll(buf, &end, 0);

		x->p2pmem = end != buf && v >= 0 ? v : -1;
		x->p2pmem_published =
			!sysfs_read_attr(sub, "published", buf, sizeof(buf)) && !strcmp(buf, "1");
	}
}

void p2p_read(const struct pcitree *t, bool live, struct p2p_system *sys, struct topology *tp)
{
	char path[PATH_MAX + 64];
	struct stat st;
	int i;

	memset(sys, 0, sizeof(*sys));
	if (t->from_dump) {
		snprintf(sys->iommu_reason, sizeof(sys->iommu_reason),
			 "a dump holds no IOMMU groups");
		snprintf(sys->gpudirect_reason, sizeof(sys->gpudirect_reason),
			 "a dump holds no kernel modules");
		return;
	}
	sys->known = true;
	read_groups(t->sysfs_root, sys);
	if (live) {
		read_cmdline(sys);
		read_cpuinfo(sys);
	}
	for (i = 0; i < t->n; i++) {
		snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/p2pmem", t->sysfs_root,
			 t->fn[i].bdf);
		sys->p2pmem_providers += !stat(path, &st) && S_ISDIR(st.st_mode);
	}
	snprintf(path, sizeof(path), "%s/module/nvidia_peermem", t->sysfs_root);
	sys->peermem = !stat(path, &st) && S_ISDIR(st.st_mode);
	snprintf(sys->gpudirect_reason, sizeof(sys->gpudirect_reason), "%s",
		 sys->peermem ? "the nvidia_peermem module is loaded"
			      : "the nvidia_peermem module is not loaded (dma-buf registration "
				"is not probed: this tool does not link libibverbs)");
	for (i = 0; i < tp->n; i++)
		read_node(t->sysfs_root, &tp->node[i]);
}

/* Append to a bounded text. */
static void NBW_PRINTF(3, 4) add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/*
 * The downstream ports between x and the meeting point (hops 1 .. below the
 * meet) that redirect peer traffic, into pr->acs, the commands that clear
 * it into pr->acs_fix and the ports into ports (PORTS_LEN). -1 when one
 * hides its extended capabilities, else how many redirect.
 */
#define PORTS_LEN 160

static int acs_between(const struct topo_node *x, const struct pcie_fn *meet, struct topo_pair *pr,
		       char *ports)
{
	char names[96];
	int i, redirect = 0;

	for (i = 1; i < x->path.nhops && x->path.hop[i] != meet; i++) {
		const struct pcie_fn *f = x->path.hop[i];

		if (!pcie_role_is_downstream_port(f->role))
			continue;
		if (!(f->known & PCIE_K_EXTCFG)) {
			snprintf(pr->acs, sizeof(pr->acs),
				 "port %s hides its extended capabilities (configuration space "
				 "beyond 256 bytes unreadable: not root, or a dump without -xxxx)",
				 f->bdf);
			return -1;
		}
		if (!f->acs_pos || !(f->acs_ctl & PCIE_ACS_REDIRECTS))
			continue;
		pcie_acs_names(f->acs_ctl & PCIE_ACS_REDIRECTS, names, sizeof(names));
		add(pr->acs, sizeof(pr->acs), "%sACS %s on %s", pr->acs[0] ? "; " : "", names,
		    f->bdf);
		/* The ACS Control register is at +6; the value:mask form clears only these. */
		add(pr->acs_fix, sizeof(pr->acs_fix), "%ssetpci -s %s %x.w=0000:%04x",
		    pr->acs_fix[0] ? "; " : "", f->bdf, (unsigned)f->acs_pos + 6,
		    f->acs_ctl & PCIE_ACS_REDIRECTS);
		add(ports, PORTS_LEN, "%s%s", ports[0] ? ";" : "", f->bdf);
		redirect++;
	}
	return redirect;
}

/*
 * The kernel's rule for peer traffic that crosses a host bridge (Linux,
 * drivers/pci/p2pdma.c): allowed on an AMD CPU of family 17h (Zen) or newer,
 * otherwise only when the host bridge (function 00.0 of the root bus) is one
 * the kernel lists, some of them only when both devices are below the same
 * one. On the live system the CPU is read (/proc/cpuinfo); it is not in a
 * dump or a captured tree, where an AMD host is known as Zen or newer by the
 * IDs of its root complexes (data below).
 */
struct host_id {
	uint16_t vendor, device;
	bool same_bridge_only;
};

/* The Intel host bridges of the kernel's p2pdma allow-list. */
static const struct host_id intel_allowed[] = {
	{0x8086, 0x3c00, true},	 {0x8086, 0x3c01, true},  /* Xeon E5 (Sandy Bridge-EP) */
	{0x8086, 0x2f00, true},	 {0x8086, 0x2f01, true},  /* Xeon E5 v3 (Haswell-EP) */
	{0x8086, 0x2030, false}, {0x8086, 0x2031, false}, /* Xeon Scalable (Skylake-SP) */
	{0x8086, 0x2032, false}, {0x8086, 0x2033, false},
	{0x8086, 0x2020, false}, {0x8086, 0x09a2, false}, /* 3rd Gen Xeon Scalable (Ice Lake-SP) */
};

/* AMD root complexes of Zen (family 17h) and newer CPUs. */
static const uint16_t amd_zen_roots[] = {
	0x1450, /* Zen, Zen+: Naples, Summit and Pinnacle Ridge */
	0x15d0, /* Raven Ridge, Picasso */
	0x1480, /* Zen 2: Rome, Matisse, Castle Peak */
	0x1630, /* Renoir, Cezanne */
	0x14a4, /* Zen 4: Genoa, Storm Peak */
	0x14d8, /* Raphael */
	0x14e8, /* Phoenix */
};

static const struct host_id *intel_listed(const struct pcie_fn *hb)
{
	size_t i;

	for (i = 0; hb && i < NBW_ARRAY_SIZE(intel_allowed); i++)
		if (hb->vendor == intel_allowed[i].vendor && hb->device == intel_allowed[i].device)
			return &intel_allowed[i];
	return NULL;
}

static bool amd_zen(const struct pcie_fn *hb)
{
	size_t i;

	for (i = 0; hb && hb->vendor == 0x1022 && i < NBW_ARRAY_SIZE(amd_zen_roots); i++)
		if (hb->device == amd_zen_roots[i])
			return true;
	return false;
}

/* One host bridge's part of the rule; why not into why. */
static enum p2p_host_rule host_rule_of(const struct topo_node *x, bool same, char *why, size_t len)
{
	const struct pcie_fn *hb = x->host_bridge;
	const struct host_id *id = intel_listed(hb);

	if (!hb || hb->vendor == 0xffff) {
		snprintf(why, len, "no host bridge at %s:00.0 to judge by", x->host);
		return HOST_RULE_UNKNOWN;
	}
	if (amd_zen(hb))
		return HOST_RULE_AMD_ZEN;
	if (id && (same || !id->same_bridge_only))
		return HOST_RULE_ALLOW_LIST;
	if (hb->vendor == 0x1022) {
		snprintf(why, len,
			 "AMD host bridge %04x:%04x is not known as Zen or newer (p2pdma allows "
			 "CPUs of family 17h and newer)",
			 hb->vendor, hb->device);
		return HOST_RULE_UNKNOWN;
	}
	if (id)
		snprintf(why, len,
			 "host bridge %04x:%04x is on the kernel's p2pdma allow-list only "
			 "within one host bridge",
			 hb->vendor, hb->device);
	else
		snprintf(why, len,
			 "host bridge %04x:%04x is neither an AMD Zen one nor on the kernel's "
			 "p2pdma allow-list",
			 hb->vendor, hb->device);
	return HOST_RULE_REFUSED;
}

/* Where the pair's traffic crosses the host: "across root ports", ... */
static const char *crossing(const struct topo_pair *pr, bool redirected)
{
	if (redirected)
		return "redirected up to the root port";
	return pr->r.rel == PCIE_REL_PHB    ? "across root ports"
	       : pr->r.rel == PCIE_REL_NODE ? "across root complexes"
					    : "across sockets";
}

/*
 * The verdict of a pair whose traffic crosses the host: via_root when the
 * rule allows it, no when it refuses, unknown when it cannot be told.
 */
static void judge_host(const struct p2p_system *sys, const struct topo_node *a,
		       const struct topo_node *b, bool redirected, struct topo_pair *pr)
{
	bool same = !strcmp(a->host, b->host);
	enum p2p_host_rule ra, rb;
	char wa[160] = "", wb[160] = "";
	const struct pcie_fn *hb = a->host_bridge;

	/* The live CPU is the kernel's own test: any AMD of family 17h or newer. */
	if (sys->cpu_amd && sys->cpu_family >= 0x17) {
		pr->host_rule = HOST_RULE_AMD_ZEN;
		pr->p2p = P2P_VIA_ROOT;
		add(pr->reason, sizeof(pr->reason),
		    "%s of an AMD Zen host (CPU family %xh): p2pdma allows it",
		    crossing(pr, redirected), sys->cpu_family);
		return;
	}
	ra = host_rule_of(a, same, wa, sizeof(wa));
	rb = same ? ra : host_rule_of(b, same, wb, sizeof(wb));
	if (ra == HOST_RULE_AMD_ZEN && rb == HOST_RULE_AMD_ZEN) {
		pr->host_rule = HOST_RULE_AMD_ZEN;
		pr->p2p = P2P_VIA_ROOT;
		add(pr->reason, sizeof(pr->reason),
		    "%s of an AMD Zen host (%04x:%04x): p2pdma allows it", crossing(pr, redirected),
		    hb->vendor, hb->device);
	} else if ((ra == HOST_RULE_AMD_ZEN || ra == HOST_RULE_ALLOW_LIST) &&
		   (rb == HOST_RULE_AMD_ZEN || rb == HOST_RULE_ALLOW_LIST)) {
		pr->host_rule = HOST_RULE_ALLOW_LIST;
		pr->p2p = P2P_VIA_ROOT;
		add(pr->reason, sizeof(pr->reason),
		    "%s, host bridge%s on the kernel's p2pdma allow-list (%04x:%04x%s): p2pdma "
		    "allows it",
		    crossing(pr, redirected), same ? "" : "s", hb->vendor, hb->device,
		    same ? "" : ", ...");
	} else {
		bool refused = ra == HOST_RULE_REFUSED || rb == HOST_RULE_REFUSED;

		pr->host_rule = refused ? HOST_RULE_REFUSED : HOST_RULE_UNKNOWN;
		pr->p2p = refused ? P2P_NO : P2P_UNKNOWN;
		add(pr->reason, sizeof(pr->reason), "%s: %s%s", crossing(pr, redirected),
		    ra == HOST_RULE_REFUSED || (!refused && wa[0]) ? wa : wb,
		    refused ? ": p2pdma refuses it" : "");
	}
}

/* The path's part of the verdict, its reason into pr->reason. */
static void judge_path(const struct p2p_system *sys, const struct topo_node *a,
		       const struct topo_node *b, struct topo_pair *pr)
{
	char *r = pr->reason, ports[PORTS_LEN] = "";
	size_t len = sizeof(pr->reason);
	int ra, rb;

	pr->acs[0] = pr->acs_fix[0] = 0;
	r[0] = 0;
	pr->host_rule = HOST_RULE_NONE;
	switch (pr->r.rel) {
	case PCIE_REL_X:
		pr->p2p = P2P_DIRECT;
		snprintf(r, len, "one device");
		return;
	case PCIE_REL_PHB:
	case PCIE_REL_NODE:
	case PCIE_REL_SYS:
		judge_host(sys, a, b, false, pr);
		return;
	default:
		break;
	}
	ra = acs_between(a, pr->r.meet, pr, ports);
	rb = ra < 0 ? 0 : acs_between(b, pr->r.meet, pr, ports);
	if (ra < 0 || rb < 0) {
		pr->p2p = P2P_UNKNOWN;
		pr->acs_fix[0] = 0; /* a fix for the ports read, not the whole way */
		snprintf(r, len, "%s", pr->acs);
	} else if (ra + rb) {
		snprintf(r, len, "%s: peer requests go up to the root complex; ", pr->acs);
		judge_host(sys, a, b, true, pr);
		add(pr->acs_fix, sizeof(pr->acs_fix),
		    " (as root, until reboot), or boot with pci=disable_acs_redir=%s, or turn "
		    "ACS off in the firmware's setup",
		    ports);
	} else {
		pr->p2p = P2P_DIRECT;
		snprintf(r, len, "the paths meet at %s and no port between them redirects",
			 pr->r.meet->bdf);
	}
}

/* Somewhere other than DRAM to put the data, and why (appended to the reason). */
static bool judge_memory(const struct p2p_system *sys, const struct topo_node *a,
			 const struct topo_node *b, struct topo_pair *pr)
{
	const struct topo_node *gpu = a->kind == TOPO_GPU ? a : b->kind == TOPO_GPU ? b : NULL;
	const struct topo_node *drive = a->kind == TOPO_NVME ? a : b->kind == TOPO_NVME ? b : NULL;
	const struct topo_node *nic = a->kind == TOPO_RDMA ? a : b->kind == TOPO_RDMA ? b : NULL;
	size_t len = sizeof(pr->reason);

	if (gpu && a->kind == TOPO_GPU && b->kind == TOPO_GPU && a->driver[0] && !b->driver[0])
		gpu = b; /* two GPUs: the one without a driver is named */
	if (gpu) {
		if (!gpu->driver[0]) {
			add(pr->reason, len, "; GPU %s: %s", gpu->name,
			    sys->known ? "no driver bound, its memory is not exposed"
				       : "its driver is unknown (a dump)");
			return false;
		}
		if (nic && !sys->peermem) {
			add(pr->reason, len, "; GPUDirect RDMA: %s", sys->gpudirect_reason);
			return false;
		}
		add(pr->reason, len, "; the GPU%s memory (%s%s)", a->kind == b->kind ? "s'" : "'s",
		    gpu->driver, nic ? ", nvidia_peermem loaded" : "");
		return true;
	}
	if (drive && drive->p2pmem_published) {
		add(pr->reason, len, "; %s publishes %lld MiB of p2pmem (its CMB)", drive->name,
		    drive->p2pmem >> 20);
		return true;
	}
	if (nic && nic->p2pmem_published) {
		add(pr->reason, len, "; %s publishes p2pmem", nic->name);
		return true;
	}
	add(pr->reason, len, "; %s publishes no p2pmem (no CMB, or a kernel without PCI_P2PDMA)",
	    drive ? drive->name : "neither");
	return false;
}

/* The IOMMU's part of a pair crossing the host, in words. */
static const char *iommu_words(const struct p2p_system *sys, bool gpu)
{
	switch (sys->iommu) {
	case IOMMU_OFF:
		return "IOMMU off";
	case IOMMU_PASSTHROUGH:
		return "IOMMU passthrough";
	case IOMMU_TRANSLATED:
		return gpu ? "the IOMMU translates it: GPUDirect needs it off or in passthrough "
			     "(iommu=pt)"
			   : "the IOMMU translates it: p2pdma maps the peer's memory through it";
	default:
		return sys->known ? "IOMMU mode unknown" : "IOMMU mode unknown (a dump)";
	}
}

void p2p_judge_pair(const struct p2p_system *sys, const struct topo_node *a,
		    const struct topo_node *b, struct topo_pair *pr)
{
	bool gpu = a->kind == TOPO_GPU || b->kind == TOPO_GPU;

	pr->audited = true;
	judge_path(sys, a, b, pr);
	if (pr->p2p == P2P_VIA_ROOT)
		add(pr->reason, sizeof(pr->reason), "; %s", iommu_words(sys, gpu));
	pr->memory = judge_memory(sys, a, b, pr);
	pr->can = (pr->p2p == P2P_DIRECT || pr->p2p == P2P_VIA_ROOT) && pr->memory;
	/* GPUDirect needs the IOMMU off or in passthrough when the traffic crosses the host. */
	if (pr->p2p == P2P_VIA_ROOT && gpu && sys->iommu == IOMMU_TRANSLATED)
		pr->can = false;
	if (a->iommu_group >= 0 && b->iommu_group >= 0)
		add(pr->reason, sizeof(pr->reason), "; IOMMU groups %d and %d%s", a->iommu_group,
		    b->iommu_group, a->iommu_group == b->iommu_group ? " (one group)" : "");
}

/*
 * The pairs the audit covers: a drive, an RDMA device or a GPU with one of
 * another kind, and two GPUs.
 */
static bool audited_kinds(const struct topo_node *a, const struct topo_node *b)
{
	if (a->kind == b->kind)
		return a->kind == TOPO_GPU;
	return a->kind == TOPO_GPU || b->kind == TOPO_GPU ||
	       (a->kind == TOPO_NVME) != (b->kind == TOPO_NVME);
}

void p2p_judge_all(const struct p2p_system *sys, struct topology *tp)
{
	int k;

	for (k = 0; k < tp->npairs; k++) {
		struct topo_pair *pr = &tp->pair[k];

		if (audited_kinds(&tp->node[pr->a], &tp->node[pr->b]))
			p2p_judge_pair(sys, &tp->node[pr->a], &tp->node[pr->b], pr);
	}
}

bool p2p_expect_met(const struct topology *tp, const struct probe_dev *d, int n)
{
	bool met = true;
	int i, x;

	for (i = 0; i < n; i++) {
		if (d[i].kind != KIND_NVME ||
		    (x = topo_node_named(tp, d[i].name[0] ? d[i].name : d[i].bdf)) < 0)
			continue;
		met &= tp->nearest[x] >= 0 && topo_pair_of(tp, x, tp->nearest[x])->can;
	}
	return met;
}
