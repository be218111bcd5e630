// SPDX-License-Identifier: MIT
/*
 * tests/probe/test_judge.c: nvme_link_probe's judging (nvme_link_probe/judge.c),
 * linked from the probe's library, on devices built by hand: each verdict
 * rule the probe names (training, path, device, an idle NIC, no link), the
 * narrowest hop and the slot's, the expectations (--expect*) and a NIC's
 * port against its PCIe ceiling. No sysfs, no dump: input structures in,
 * verdict out.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "judge.h"
#include "p2p.h"

/* One end of a link: its maxima (LnkCap = LnkCap2) and what it trained at. */
struct end {
	const char *bdf;
	enum pcie_role role;
	double max;
	unsigned max_width;
	double now;
	unsigned now_width;
};

static struct pcie_fn end_fn(const struct end *e)
{
	struct pcie_fn f;

	pcie_fn_init(&f, 0, 0, 0, 0);
	snprintf(f.bdf, sizeof(f.bdf), "%s", e->bdf);
	f.role = e->role;
	f.class_code = e->role == PCIE_ROLE_ENDPOINT ? 0x010802 : 0x060400;
	f.cap_speed = f.max_speed = f.target_speed = e->max;
	f.cap_width = f.max_width = e->max_width;
	f.speed = e->now;
	f.width = e->now_width;
	f.mps = 256;
	f.mrrs = 512;
	f.known = PCIE_K_ROLE | PCIE_K_LNKCAP | PCIE_K_MAX | PCIE_K_LNKSTA | PCIE_K_LNKCTL2 |
		  PCIE_K_MPS | PCIE_K_MRRS;
	return f;
}

/* A discovered device: the hops hop[0..n) from the device up, nothing judged yet. */
static void discovered(struct probe_dev *p, enum dev_kind kind, struct pcie_fn *hop, int n)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->net_gbits = NAN;
	p->fn = &hop[0];
	snprintf(p->bdf, sizeof(p->bdf), "%s", hop[0].bdf);
	for (i = 0; i < n; i++)
		p->path.hop[i] = &hop[i];
	p->path.nhops = n;
	p->have_path = true;
}

/*
 * drive (Gen4 x4) <- switch downstream <- switch upstream (trained Gen2 x4)
 * <- root port, discovered into p with its functions in hop[4].
 */
static void behind_slow_switch(struct probe_dev *p, struct pcie_fn hop[4])
{
	static const struct end ends[] = {
		{"0000:03:00.0", PCIE_ROLE_ENDPOINT, 16, 4, 16, 4},
		{"0000:02:01.0", PCIE_ROLE_SWITCH_DOWN, 16, 4, 16, 4},
		{"0000:01:00.0", PCIE_ROLE_SWITCH_UP, 16, 4, 5, 4},
		{"0000:00:01.0", PCIE_ROLE_ROOT_PORT, 16, 4, 5, 4},
	};
	int i;

	for (i = 0; i < 4; i++)
		hop[i] = end_fn(&ends[i]);
	discovered(p, KIND_NVME, hop, 4);
}

/* Both ends can do Gen4 x4, the link trained at Gen3: "training", and no expectation holds. */
static void test_training(void)
{
	static const struct end ends[] = {
		{"0000:01:00.0", PCIE_ROLE_ENDPOINT, 16, 4, 8, 4},
		{"0000:00:01.0", PCIE_ROLE_ROOT_PORT, 16, 4, 8, 4},
	};
	struct pcie_fn hop[2] = {end_fn(&ends[0]), end_fn(&ends[1])};
	struct probe_expect gen3 = {8, 4};
	struct probe_dev p;

	discovered(&p, KIND_NVME, hop, 2);
	judge_device(&p);
	CHECK_STR(pcie_verdict_name(judge_verdict(&p)), "downgraded");
	CHECK_STR(pcie_limit_name(judge_limited_by(&p)), "training");
	CHECK(strstr(judge_reason(&p), "8 GT/s x4") != NULL);
	CHECK_STR(judge_bottleneck_bdf(&p), "0000:01:00.0");
	/* Gen3 x4 is what it runs, but a downgraded link never meets an expectation. */
	judge_expect(&gen3, &p);
	CHECK(!p.expect_ok);
	CHECK(!strncmp(p.expect_msg, "downgraded: ", 12));
}

/*
 * Behind the slow switch the drive's own link is fine and the hop further
 * up narrower: "path", and that hop is the narrowest.
 */
static void test_path(void)
{
	struct pcie_fn hop[4];
	struct probe_dev p;

	behind_slow_switch(&p, hop);
	judge_device(&p);
	CHECK_U64(p.path.nlinks, 2);
	CHECK_STR(pcie_verdict_name(judge_verdict(&p)), "downgraded");
	CHECK_STR(pcie_limit_name(judge_limited_by(&p)), "path");
	CHECK_STR(judge_bottleneck_bdf(&p), "0000:01:00.0");
	CHECK(strstr(judge_reason(&p), "a hop further up is narrower") != NULL);
	/* Gen2 x4: 5 GT/s x 4 x 8/10 / 8 = 2.0 GB/s raw. */
	CHECK(fabs(p.path.raw - 2.0) < 1e-9);

	/* The same switch trained at Gen4: the path is ok and the own link the narrowest. */
	hop[2].speed = hop[3].speed = 16;
	judge_device(&p);
	CHECK_STR(pcie_verdict_name(judge_verdict(&p)), "ok");
	CHECK_STR(pcie_limit_name(judge_limited_by(&p)), "none");
	CHECK_STR(judge_bottleneck_bdf(&p), "0000:03:00.0");
}

/* An ok Gen4 x4 drive against --expect: met, or the message that says by how much. */
static void test_expect(void)
{
	static const struct end ends[] = {
		{"0000:01:00.0", PCIE_ROLE_ENDPOINT, 16, 4, 16, 4},
		{"0000:00:01.0", PCIE_ROLE_ROOT_PORT, 16, 4, 16, 4},
	};
	struct pcie_fn hop[2] = {end_fn(&ends[0]), end_fn(&ends[1])};
	struct probe_expect gen4x4 = {16, 4}, gen5 = {32, 0}, x8 = {0, 8};
	struct probe_dev p;

	discovered(&p, KIND_NVME, hop, 2);
	judge_device(&p);
	CHECK_STR(pcie_verdict_name(judge_verdict(&p)), "ok");
	judge_expect(&gen4x4, &p);
	CHECK(p.expect_ok);
	judge_expect(&gen5, &p);
	CHECK(!p.expect_ok);
	CHECK_STR(p.expect_msg, "link 16 GT/s x4 is below the expected 32 GT/s");
	judge_expect(&x8, &p);
	CHECK(!p.expect_ok);
	CHECK_STR(p.expect_msg, "link 16 GT/s x4 is below the expected x8");
}

/*
 * A NIC resting at 2.5 GT/s with autonomous speed changes: maybe_idle, held
 * to the Gen4 x16 it negotiates to; its 200 Gb/s port against that ceiling.
 */
static void test_idle_nic(void)
{
	static const struct end ends[] = {
		{"0000:41:00.0", PCIE_ROLE_ENDPOINT, 16, 16, 2.5, 16},
		{"0000:40:01.0", PCIE_ROLE_ROOT_PORT, 16, 16, 2.5, 16},
	};
	struct pcie_fn hop[2] = {end_fn(&ends[0]), end_fn(&ends[1])};
	struct probe_expect gen4x16 = {16, 16};
	struct judge_network nw;
	struct probe_dev p;

	hop[0].class_code = 0x020000;
	hop[0].autonomous_bw = true;
	discovered(&p, KIND_RDMA, hop, 2);
	judge_device(&p);
	CHECK_STR(pcie_verdict_name(judge_verdict(&p)), "maybe_idle");
	judge_expect(&gen4x16, &p);
	CHECK(p.expect_ok);

	/* 2.5 GT/s x16 at MPS 256: 4 GB/s raw, 3.66 usable, below a 200 Gb/s port. */
	p.net_gbits = 200;
	CHECK(judge_network(&p, &nw));
	CHECK(fabs(nw.net_gb_per_s - 25.0) < 1e-9);
	CHECK(fabs(nw.pcie_gb_per_s - 4.0 * 256 / 280) < 1e-9);
	CHECK_STR(nw.pcie_ceiling, "usable");
	CHECK_STR(nw.lower, "pcie");
	/* A 10 Gb/s port is the lower one. */
	p.net_gbits = 10;
	CHECK(judge_network(&p, &nw));
	CHECK_STR(nw.lower, "network");
	/* No rate at all: nothing to say. */
	p.net_gbits = NAN;
	CHECK(!judge_network(&p, &nw));
}

/* No PCI function (software RDMA) and a root-complex integrated endpoint: no_link, and why. */
static void test_no_link(void)
{
	static const struct end integrated = {"0000:00:1f.0", PCIE_ROLE_RC_ENDPOINT, 8, 1, 8, 1};
	struct pcie_fn hop[1] = {end_fn(&integrated)};
	struct probe_expect gen4 = {16, 0};
	struct judge_network nw;
	struct probe_dev p;

	memset(&p, 0, sizeof(p));
	p.kind = KIND_RDMA;
	p.net_gbits = 100;
	snprintf(p.why_no_link, sizeof(p.why_no_link), "no PCIe link of its own: software RDMA");
	judge_device(&p);
	CHECK_STR(pcie_verdict_name(judge_verdict(&p)), "no_link");
	CHECK_STR(judge_reason(&p), "no PCIe link of its own: software RDMA");
	CHECK(judge_bottleneck_bdf(&p) == NULL);
	judge_expect(&gen4, &p);
	CHECK(p.expect_ok);
	CHECK(judge_network(&p, &nw) && nw.lower == NULL && nw.pcie_ceiling == NULL);

	discovered(&p, KIND_NVME, hop, 1);
	judge_device(&p);
	CHECK_STR(pcie_verdict_name(judge_verdict(&p)), "no_link");
	CHECK(strstr(p.why_no_link, "root-complex integrated") != NULL);
	CHECK_STR(judge_reason(&p), p.why_no_link);
}

/* The slot ceiling's narrowest element: the slot's port, a hop further up, or unknown. */
static void test_slot_bottleneck(void)
{
	struct pcie_fn hop[4];
	struct probe_dev p;

	behind_slow_switch(&p, hop);
	judge_device(&p);
	snprintf(p.slot_port, sizeof(p.slot_port), "%s", hop[1].bdf);
	CHECK(pcie_slot_ceiling(&p.path, &p.slot_ceiling) == 0);
	CHECK_STR(judge_slot_bottleneck_bdf(&p), "0000:01:00.0");
	p.slot_ceiling.bottleneck = 0;
	CHECK_STR(judge_slot_bottleneck_bdf(&p), "0000:02:01.0");
	p.slot_ceiling.bottleneck = -1;
	CHECK(judge_slot_bottleneck_bdf(&p) == NULL);
}

/* --expect over several devices: one below it makes the audit fail. */
static void test_audit(void)
{
	static const struct end fast[] = {
		{"0000:01:00.0", PCIE_ROLE_ENDPOINT, 16, 4, 16, 4},
		{"0000:00:01.0", PCIE_ROLE_ROOT_PORT, 16, 4, 16, 4},
	};
	static const struct end slow[] = {
		{"0000:02:00.0", PCIE_ROLE_ENDPOINT, 8, 4, 8, 4},
		{"0000:00:02.0", PCIE_ROLE_ROOT_PORT, 8, 4, 8, 4},
	};
	struct pcie_fn a[2] = {end_fn(&fast[0]), end_fn(&fast[1])};
	struct pcie_fn b[2] = {end_fn(&slow[0]), end_fn(&slow[1])};
	struct options o = {.expect = {16, 4}};
	struct probe_dev d[2];

	discovered(&d[0], KIND_NVME, a, 2);
	discovered(&d[1], KIND_NVME, b, 2);
	judge_device(&d[0]);
	judge_device(&d[1]);
	CHECK(!judge_audit(&o, NULL, d, 2));
	CHECK(d[0].expect_ok && !d[1].expect_ok);
	CHECK(judge_audit(&o, NULL, d, 1));
	o.expect = (struct probe_expect){0, 0};
	CHECK(judge_audit(&o, NULL, d, 2));
}

/*
 * The kernel's host rule from the live CPU: an AMD of family 17h or newer
 * allows a pair across root complexes even when no host bridge is known;
 * without it (a tree or a dump), there is nothing to judge by.
 */
static void test_cpu_rule(void)
{
	struct topo_node a = {.kind = TOPO_NVME, .iommu_group = -1, .p2pmem = -1};
	struct topo_node b = {.kind = TOPO_RDMA, .iommu_group = -1, .p2pmem = -1};
	struct p2p_system sys = {.known = true, .iommu = IOMMU_PASSTHROUGH};
	struct topo_pair pr = {.r = {.rel = PCIE_REL_NODE}};
	const char *want = "across root complexes of an AMD Zen host (CPU family 1ah): p2pdma "
			   "allows it; IOMMU passthrough";

	snprintf(a.host, sizeof(a.host), "0000:00");
	snprintf(b.host, sizeof(b.host), "0000:40");
	p2p_parse_cpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n", &sys);
	CHECK(sys.cpu_amd);
	CHECK_U64(sys.cpu_family, 26);
	p2p_judge_pair(&sys, &a, &b, &pr);
	CHECK_STR(p2p_verdict_name(pr.p2p), "via_root");
	CHECK_STR(p2p_host_rule_name(pr.host_rule), "amd_zen");
	CHECK(!strncmp(pr.reason, want, strlen(want)));
	p2p_parse_cpuinfo("vendor_id\t: AuthenticAMD\ncpu family\t: 21\n", &sys);
	p2p_judge_pair(&sys, &a, &b, &pr);
	CHECK_STR(p2p_verdict_name(pr.p2p), "unknown");
	CHECK(strstr(pr.reason, "no host bridge at 0000:00:00.0 to judge by") != NULL);
	p2p_parse_cpuinfo("vendor_id\t: GenuineIntel\ncpu family\t: 6\n", &sys);
	CHECK(!sys.cpu_amd);
	p2p_parse_cpuinfo("garbage", &sys);
	CHECK_U64(sys.cpu_family, 0);
}

int main(void)
{
	test_cpu_rule();
	test_training();
	test_path();
	test_expect();
	test_idle_nic();
	test_no_link();
	test_slot_bottleneck();
	test_audit();
	return check_done("test_judge");
}
