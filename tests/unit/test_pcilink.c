// SPDX-License-Identifier: MIT
/*
 * test_pcilink.c: the link math of common/pci/pcilink.c for every generation and
 * width (table-driven), the capability decoder on hand-built config space,
 * the verdict of a link and of a path in each case the probe names, and the
 * slot side: SltCap decoding, the slot ceiling and the projection's what-ifs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcilink.h"
#include "pcitree.h"

static int fails, checks;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		checks++;                                                                          \
		if (!(cond)) {                                                                     \
			fails++;                                                                   \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

static bool near(double a, double b)
{
	return fabs(a - b) < 5e-4 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* Every generation x every width: raw = GT/s x lanes x encoding / 8. */
static void test_ceilings(void)
{
	static const struct {
		unsigned code;
		double gts, eff;
	} gen[] = {
		{1, 2.5, 0.8},		{2, 5.0, 0.8},		{3, 8.0, 128.0 / 130},
		{4, 16.0, 128.0 / 130}, {5, 32.0, 128.0 / 130}, {6, 64.0, 236.0 / 256},
	};
	static const unsigned widths[] = {1, 2, 4, 8, 12, 16, 32};
	static const unsigned mps[] = {128, 256, 512, 1024, 2048, 4096};
	size_t g, w, m;

	for (g = 0; g < sizeof(gen) / sizeof(gen[0]); g++) {
		CHECK(near(pcie_speed_gts(gen[g].code), gen[g].gts), "speed code %u", gen[g].code);
		CHECK(pcie_speed_code(gen[g].gts) == gen[g].code, "code of %g", gen[g].gts);
		CHECK(near(pcie_encoding_efficiency(gen[g].gts), gen[g].eff), "eff %g", gen[g].gts);
		for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			double raw = gen[g].gts * widths[w] * gen[g].eff / 8;

			CHECK(near(pcie_raw_gb_per_s(gen[g].gts, widths[w]), raw), "raw %g x%u",
			      gen[g].gts, widths[w]);
			for (m = 0; m < sizeof(mps) / sizeof(mps[0]); m++)
				CHECK(near(pcie_usable_gb_per_s(gen[g].gts, widths[w], mps[m]),
					   raw * mps[m] / (mps[m] + 24.0)),
				      "usable %g x%u mps %u", gen[g].gts, widths[w], mps[m]);
		}
	}
	/* The reference numbers of the design: Gen3 x4 = 3.94 raw, 3.6 usable at MPS 256. */
	CHECK(near(pcie_raw_gb_per_s(8, 4), 3.9385), "gen3 x4 raw %f", pcie_raw_gb_per_s(8, 4));
	CHECK(fabs(pcie_usable_gb_per_s(8, 4, 256) - 3.60) < 0.005, "gen3 x4 usable %f",
	      pcie_usable_gb_per_s(8, 4, 256));
	/* PCIe 2.0 x8: 4 GB/s raw. */
	CHECK(near(pcie_raw_gb_per_s(5, 8), 4.0), "gen2 x8");
	CHECK(isnan(pcie_raw_gb_per_s(0, 4)) && isnan(pcie_raw_gb_per_s(8, 0)), "unknown raw");
	CHECK(isnan(pcie_usable_gb_per_s(8, 4, 0)), "unknown MPS");
	CHECK(pcie_speed_code(3.0) == 0 && pcie_speed_gts(0) == 0 && pcie_speed_gts(9) == 0,
	      "bad codes");
	CHECK(pcie_speed_code(16) == 4, "gen of 16");
}

/* A config space with a PCIe capability at 0x40 (version 2 unless v1). */
static void make_cfg(uint8_t *c, unsigned type, unsigned capcode, unsigned capw, unsigned stacode,
		     unsigned staw, unsigned vec, unsigned target, bool v1)
{
	memset(c, 0, 256);
	c[0] = 0x86, c[1] = 0x80;
	c[0x06] = 0x10;
	c[0x34] = 0x40;
	c[0x40] = 0x10;
	c[0x42] = (uint8_t)((v1 ? 1 : 2) | type << 4);
	c[0x44] = 2;			    /* MPS supported 512 */
	c[0x48] = 1 << 5, c[0x49] = 2 << 4; /* MPS 256, MRRS 512 */
	c[0x4c] = (uint8_t)(capcode | (capw & 0xf) << 4);
	c[0x4d] = (uint8_t)(capw >> 4);
	c[0x4e] = 1 << 4; /* DLL active reporting */
	c[0x52] = (uint8_t)(stacode | (staw & 0xf) << 4);
	c[0x53] = (uint8_t)(staw >> 4 | 1 << 5); /* DLL active */
	if (!v1) {
		c[0x6c] = (uint8_t)(vec << 1);
		c[0x70] = (uint8_t)target;
	}
}

static void test_decode(void)
{
	uint8_t c[256];
	struct pcie_fn f;

	pcie_fn_init(&f, 0, 1, 0, 0);
	CHECK(!strcmp(f.bdf, "0000:01:00.0"), "bdf %s", f.bdf);
	make_cfg(c, 4, 5, 16, 3, 8, 0x1f, 5, false);
	CHECK(pcie_decode_config(c, 256, &f) == 0, "decode");
	CHECK(f.role == PCIE_ROLE_ROOT_PORT, "role %d", f.role);
	CHECK(f.cap_speed == 32 && f.cap_width == 16, "lnkcap %g x%u", f.cap_speed, f.cap_width);
	CHECK(f.speed == 8 && f.width == 8, "lnksta %g x%u", f.speed, f.width);
	CHECK(f.max_speed == 32 && f.target_speed == 32, "max %g target %g", f.max_speed,
	      f.target_speed);
	CHECK(f.mps == 256 && f.mrrs == 512 && f.mps_supported == 512, "mps %u mrrs %u", f.mps,
	      f.mrrs);
	CHECK(f.dll_reporting && f.dll_active && (f.known & PCIE_K_DLL), "dll");

	/* LnkCap2 preferred for the maximum: LnkCap says 8, the vector reaches 16. */
	pcie_fn_init(&f, 0, 2, 0, 0);
	make_cfg(c, 0, 3, 4, 3, 4, 0x0f, 4, false);
	pcie_decode_config(c, 256, &f);
	CHECK(f.cap_speed == 8 && f.max_speed == 16, "lnkcap2 preferred: %g", f.max_speed);

	/* An empty vector and a version-1 capability fall back to LnkCap. */
	pcie_fn_init(&f, 0, 2, 0, 0);
	make_cfg(c, 0, 2, 4, 2, 4, 0, 0, false);
	pcie_decode_config(c, 256, &f);
	CHECK(f.max_speed == 5 && (f.known & PCIE_K_LNKCAP2), "empty vector: %g", f.max_speed);
	pcie_fn_init(&f, 0, 2, 0, 0);
	make_cfg(c, 0, 2, 4, 2, 4, 0, 0, true);
	pcie_decode_config(c, 256, &f);
	CHECK(f.max_speed == 5 && !(f.known & (PCIE_K_LNKCAP2 | PCIE_K_LNKCTL2)), "v1 cap");

	/* Header only (no root): no capability, nothing of the link known. */
	pcie_fn_init(&f, 0, 2, 0, 0);
	CHECK(pcie_decode_config(c, 64, &f) == 0 && !(f.known & PCIE_K_LNKCAP), "header only");
	CHECK(pcie_decode_config(c, 32, &f) == -ENODATA, "short");
}

static struct pcie_fn mk(const char *bdf, enum pcie_role role, double max, unsigned maxw,
			 double speed, unsigned width, double target)
{
	struct pcie_fn f;

	pcie_fn_init(&f, 0, 0, 0, 0);
	snprintf(f.bdf, sizeof(f.bdf), "%s", bdf);
	f.role = role;
	f.cap_speed = f.max_speed = max;
	f.cap_width = f.max_width = maxw;
	f.speed = speed;
	f.width = width;
	f.target_speed = target;
	f.mps = 256;
	f.mrrs = 512;
	f.known = PCIE_K_ROLE | PCIE_K_LNKCAP | PCIE_K_MAX | PCIE_K_LNKSTA | PCIE_K_MPS |
		  PCIE_K_MRRS | (target > 0 ? PCIE_K_LNKCTL2 : 0);
	return f;
}

static void test_link_verdicts(void)
{
	static const struct {
		const char *what;
		double pmax;
		unsigned pw;
		double target, dmax;
		unsigned dw;
		double speed;
		unsigned width;
		bool idle;
		enum pcie_verdict v;
		enum pcie_limit lim;
	} t[] = {
		{"gen5 port, gen3 drive", 32, 4, 32, 8, 4, 8, 4, false, PCIE_DOWNGRADED,
		 PCIE_LIMIT_DEVICE},
		{"gen3 port, gen4 drive", 8, 4, 8, 16, 4, 8, 4, false, PCIE_DOWNGRADED,
		 PCIE_LIMIT_PORT},
		{"target caps a gen4 pair", 16, 4, 8, 16, 4, 8, 4, false, PCIE_DOWNGRADED,
		 PCIE_LIMIT_PORT},
		{"gen4 pair trained at gen3", 16, 4, 16, 16, 4, 8, 4, false, PCIE_DOWNGRADED,
		 PCIE_LIMIT_TRAINING},
		{"x4 pair at x2", 16, 4, 16, 16, 4, 16, 2, false, PCIE_DOWNGRADED,
		 PCIE_LIMIT_TRAINING},
		{"x16 port, x4 drive", 16, 16, 16, 16, 4, 16, 4, false, PCIE_DOWNGRADED,
		 PCIE_LIMIT_DEVICE},
		{"gen4 pair at gen4", 16, 4, 16, 16, 4, 16, 4, false, PCIE_OK, PCIE_LIMIT_NONE},
		{"no target (v1)", 5, 4, 0, 5, 4, 5, 4, false, PCIE_OK, PCIE_LIMIT_NONE},
		{"idle NIC", 16, 16, 16, 16, 16, 2.5, 16, true, PCIE_MAYBE_IDLE,
		 PCIE_LIMIT_TRAINING},
		{"qemu: 8x4 port, 2.5x1 drive", 8, 4, 8, 2.5, 1, 2.5, 1, false, PCIE_DOWNGRADED,
		 PCIE_LIMIT_DEVICE},
		{"down", 16, 4, 16, 16, 4, 2.5, 0, false, PCIE_LINK_DOWN, PCIE_LIMIT_NONE},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pcie_fn p = mk("0000:00:01.0", PCIE_ROLE_ROOT_PORT, t[i].pmax, t[i].pw,
				      t[i].speed, t[i].width, t[i].target);
		struct pcie_fn d = mk("0000:01:00.0", PCIE_ROLE_ENDPOINT, t[i].dmax, t[i].dw,
				      t[i].speed, t[i].width, t[i].dmax);
		struct pcie_link l;

		d.autonomous_bw = t[i].idle;
		pcie_judge_link(&p, &d, "drive", t[i].idle, &l);
		CHECK(l.verdict == t[i].v && l.limited_by == t[i].lim, "%s: %s/%s (%s)", t[i].what,
		      pcie_verdict_name(l.verdict), pcie_limit_name(l.limited_by), l.reason);
	}
	{
		struct pcie_fn p = mk("0000:00:01.0", PCIE_ROLE_ROOT_PORT, 32, 4, 8, 4, 32);
		struct pcie_fn d = mk("0000:01:00.0", PCIE_ROLE_ENDPOINT, 8, 4, 8, 4, 8);
		struct pcie_link l;

		pcie_judge_link(&p, &d, "drive", false, &l);
		CHECK(!strcmp(l.reason, "host port capable of 32 GT/s x4, drive capable of only "
					"8 GT/s x4"),
		      "reason '%s'", l.reason);
		CHECK(fabs(l.usable - 3.60) < 0.005 && near(l.raw, 3.9385), "ceil %f", l.usable);
	}
	{
		/* Without MPS and target (no root): judged, usable unknown, fields named. */
		struct pcie_fn p = mk("0000:00:01.0", PCIE_ROLE_ROOT_PORT, 16, 4, 16, 4, 0);
		struct pcie_fn d = mk("0000:01:00.0", PCIE_ROLE_ENDPOINT, 16, 4, 16, 4, 0);
		struct pcie_link l;
		char m[128];

		p.known &= ~(unsigned)(PCIE_K_MPS | PCIE_K_LNKCAP);
		d.known &= ~(unsigned)(PCIE_K_MPS | PCIE_K_LNKCAP);
		pcie_judge_link(&p, &d, "drive", false, &l);
		CHECK(l.verdict == PCIE_OK && isnan(l.usable) && !isnan(l.raw), "no root: %s",
		      pcie_verdict_name(l.verdict));
		CHECK(!strcmp(pcie_known_names(l.missing, m, sizeof(m)),
			      "LnkCtl2 target speed, MPS"),
		      "missing '%s'", m);
		d.known &= ~(unsigned)PCIE_K_MAX;
		pcie_judge_link(&p, &d, "drive", false, &l);
		CHECK(l.verdict == PCIE_UNKNOWN && strstr(l.reason, "maximum speed/width"),
		      "unknown: %s", l.reason);
	}
}

static void test_path(void)
{
	/* drive(gen5 x4) <- sw2 down <- sw2 up (gen2 x16) <- sw1 down <- sw1 up <- root */
	struct pcie_fn rp = mk("0000:00:01.0", PCIE_ROLE_ROOT_PORT, 32, 16, 32, 16, 32);
	struct pcie_fn u1 = mk("0000:01:00.0", PCIE_ROLE_SWITCH_UP, 32, 16, 32, 16, 32);
	struct pcie_fn d1 = mk("0000:02:00.0", PCIE_ROLE_SWITCH_DOWN, 32, 16, 5, 16, 32);
	struct pcie_fn u2 = mk("0000:03:00.0", PCIE_ROLE_SWITCH_UP, 5, 16, 5, 16, 5);
	struct pcie_fn d2 = mk("0000:04:00.0", PCIE_ROLE_SWITCH_DOWN, 32, 4, 32, 4, 32);
	struct pcie_fn ep = mk("0000:05:00.0", PCIE_ROLE_ENDPOINT, 32, 4, 32, 4, 32);
	struct pcie_path p;

	memset(&p, 0, sizeof(p));
	p.hop[0] = &ep, p.hop[1] = &d2, p.hop[2] = &u2, p.hop[3] = &d1, p.hop[4] = &u1;
	p.hop[5] = &rp;
	p.nhops = 6;
	pcie_judge_path(&p, "drive", false);
	CHECK(p.nlinks == 3, "links %d", p.nlinks);
	CHECK(p.verdict == PCIE_DOWNGRADED && p.limited_by == PCIE_LIMIT_PATH, "path: %s/%s %s",
	      pcie_verdict_name(p.verdict), pcie_limit_name(p.limited_by), p.reason);
	CHECK(p.bottleneck == 1 && p.link[1].dev == &u2, "bottleneck %d", p.bottleneck);
	CHECK(near(p.raw, 8.0) && near(p.usable, 8.0 * 256 / 280), "path ceiling %f %f", p.raw,
	      p.usable);

	/* Same chain with a gen5 x16 second switch: the drive's own link binds, ok. */
	u2 = mk("0000:03:00.0", PCIE_ROLE_SWITCH_UP, 32, 16, 32, 16, 32);
	d1.speed = 32;
	pcie_judge_path(&p, "drive", false);
	CHECK(p.verdict == PCIE_OK && p.bottleneck == 0, "ok path: %s %d",
	      pcie_verdict_name(p.verdict), p.bottleneck);

	/* An integrated endpoint has no link. */
	ep.role = PCIE_ROLE_RC_ENDPOINT;
	p.nhops = 1;
	pcie_judge_path(&p, "drive", false);
	CHECK(p.verdict == PCIE_NO_LINK, "integrated: %s", pcie_verdict_name(p.verdict));
}

/* Slot Implemented and the Physical Slot Number (SltCap bits 31:19). */
static void test_slot_decode(void)
{
	uint8_t c[256];
	struct pcie_fn f;

	CHECK(pcie_sltcap_slot_number(33u << 19) == 33, "slot 33");
	CHECK(pcie_sltcap_slot_number(0x1fffu << 19 | 0x7ffff) == 8191, "slot 8191");
	CHECK(pcie_sltcap_slot_number(0x0007ffff) == 0, "low bits are not the number");

	pcie_fn_init(&f, 0, 0, 1, 0);
	make_cfg(c, 4, 4, 4, 4, 4, 0x0f, 4, false);
	c[0x43] |= 1;		      /* Flags bit 8: Slot Implemented */
	c[0x56] = (uint8_t)(33 << 3); /* SltCap bits 23:19 ... */
	c[0x57] = (uint8_t)(33 >> 5); /* ... and 31:24 */
	pcie_decode_config(c, 256, &f);
	CHECK((f.known & PCIE_K_SLOT) && f.slot_implemented && f.slot_number == 33,
	      "root port slot: %d %u", f.slot_implemented, f.slot_number);
	c[0x43] &= (uint8_t)~1;
	pcie_fn_init(&f, 0, 0, 1, 0);
	pcie_decode_config(c, 256, &f);
	CHECK((f.known & PCIE_K_SLOT) && !f.slot_implemented && f.slot_number == 0,
	      "no slot implemented");
	/* An endpoint has no slot field: unknown, not "no slot". */
	make_cfg(c, 0, 4, 4, 4, 4, 0x0f, 4, false);
	c[0x43] |= 1;
	pcie_fn_init(&f, 0, 1, 0, 0);
	pcie_decode_config(c, 256, &f);
	CHECK(!(f.known & PCIE_K_SLOT) && !f.slot_implemented, "endpoint: no slot decoded");
}

/* A width below both ends on a port without a slot: wiring is named beside training. */
static void test_wired(void)
{
	struct pcie_fn p = mk("0000:00:01.0", PCIE_ROLE_ROOT_PORT, 16, 8, 16, 4, 16);
	struct pcie_fn d = mk("0000:01:00.0", PCIE_ROLE_ENDPOINT, 16, 8, 16, 4, 16);
	struct pcie_link l;

	p.known |= PCIE_K_SLOT;
	pcie_judge_link(&p, &d, "drive", false, &l);
	CHECK(l.verdict == PCIE_DOWNGRADED && l.limited_by == PCIE_LIMIT_TRAINING &&
		      strstr(l.reason, "port without a slot: the board may route only 4 lanes") &&
		      !strstr(l.reason, "reseat"),
	      "wired: %s", l.reason);
	p.slot_implemented = true;
	pcie_judge_link(&p, &d, "drive", false, &l);
	CHECK(strstr(l.reason, "reseat, retrain"), "slot: %s", l.reason);
	/* Slot unknown (no root): the usual advice. */
	p.known &= ~(unsigned)PCIE_K_SLOT;
	p.slot_implemented = false;
	pcie_judge_link(&p, &d, "drive", false, &l);
	CHECK(strstr(l.reason, "reseat, retrain"), "unknown slot: %s", l.reason);
	/* Speed below on a slotless port stays a training fault. */
	p = mk("0000:00:01.0", PCIE_ROLE_ROOT_PORT, 16, 4, 8, 4, 16);
	d = mk("0000:01:00.0", PCIE_ROLE_ENDPOINT, 16, 4, 8, 4, 16);
	p.known |= PCIE_K_SLOT;
	pcie_judge_link(&p, &d, "drive", false, &l);
	CHECK(strstr(l.reason, "reseat, retrain"), "speed: %s", l.reason);
}

/* u(GT/s, width) at MPS 256, computed here. */
static double u256(double gts, unsigned w)
{
	return gts * w * (gts < 8 ? 0.8 : 128.0 / 130) / 8 * 256 / 280;
}

/* The slot ceiling and the what-ifs of the projection on one-hop and switched paths. */
static void test_what_if(void)
{
	struct pcie_fn rp = mk("0000:00:01.0", PCIE_ROLE_ROOT_PORT, 32, 4, 8, 4, 32);
	struct pcie_fn ep = mk("0000:01:00.0", PCIE_ROLE_ENDPOINT, 8, 4, 8, 4, 8);
	struct pcie_fn r2 = mk("0000:00:02.0", PCIE_ROLE_ROOT_PORT, 16, 8, 5, 8, 16);
	struct pcie_fn up = mk("0000:02:00.0", PCIE_ROLE_SWITCH_UP, 5, 8, 5, 8, 5);
	struct pcie_fn dn = mk("0000:03:00.0", PCIE_ROLE_SWITCH_DOWN, 16, 4, 16, 4, 16);
	struct pcie_fn e2 = mk("0000:04:00.0", PCIE_ROLE_ENDPOINT, 16, 4, 16, 4, 16);
	struct pcie_path p, q;
	struct pcie_what_if w;
	double sum_now, sum_fix;

	/* A Gen5 x4 slot holding a Gen3 x4 drive. */
	memset(&p, 0, sizeof(p));
	p.hop[0] = &ep, p.hop[1] = &rp, p.nhops = 2;
	pcie_judge_path(&p, "drive", false);
	CHECK(!pcie_slot_ceiling(&p, &w) && near(w.usable, u256(32, 4)) && w.bottleneck == 0,
	      "gen5 slot ceiling %f", w.usable);
	CHECK(near(w.raw, 32 * 4 * 128.0 / 130 / 8), "gen5 slot raw %f", w.raw);
	CHECK(!pcie_what_if(&p, 0, 0, false, &w) && near(w.usable, u256(8, 4)) && !w.slot_binds,
	      "as is %f", w.usable);
	CHECK(!pcie_what_if(&p, 16, 4, false, &w) && near(w.usable, u256(16, 4)) && !w.slot_binds,
	      "gen4 drive %f", w.usable);
	/* The same drive in a Gen3 slot: the slot binds; fixed, the drive does. */
	rp.max_speed = 8;
	CHECK(!pcie_what_if(&p, 32, 4, false, &w) && near(w.usable, u256(8, 4)) && w.slot_binds &&
		      w.bottleneck == 0,
	      "gen3 slot, gen5 drive %f", w.usable);
	sum_now = w.usable;
	CHECK(!pcie_what_if(&p, 32, 4, true, &w) && near(w.usable, u256(32, 4)) && !w.slot_binds,
	      "fixed slot %f", w.usable);
	sum_fix = w.usable;
	/* A target speed caps the slot as it is, not the slot ceiling. */
	rp.max_speed = 16;
	rp.target_speed = 8;
	CHECK(!pcie_what_if(&p, 16, 4, false, &w) && near(w.usable, u256(8, 4)) && w.slot_binds,
	      "target %f", w.usable);
	CHECK(!pcie_slot_ceiling(&p, &w) && near(w.usable, u256(16, 4)), "target: slot %f",
	      w.usable);

	/* A Gen2 x8 switch uplink above a Gen4 drive: the hop binds the slot ceiling. */
	memset(&q, 0, sizeof(q));
	q.hop[0] = &e2, q.hop[1] = &dn, q.hop[2] = &up, q.hop[3] = &r2, q.nhops = 4;
	pcie_judge_path(&q, "drive", false);
	CHECK(!pcie_slot_ceiling(&q, &w) && w.bottleneck == 1 && q.link[1].dev == &up &&
		      near(w.raw, 4.0) && near(w.usable, u256(5, 8)),
	      "gen2 uplink: %d %f", w.bottleneck, w.usable);
	CHECK(!pcie_what_if(&q, 32, 4, true, &w) && w.bottleneck == 1 && !w.slot_binds,
	      "fixed: the hop still binds");
	/* Projection arithmetic: two drives, Gen5 x4, slots as they are and fixed. */
	sum_now += w.usable;
	sum_fix += w.usable;
	CHECK(near(sum_now, u256(8, 4) + u256(5, 8)) && near(sum_fix, u256(32, 4) + u256(5, 8)),
	      "sums %f %f", sum_now, sum_fix);
	/* Bifurcated x2: a fixed slot gets the speed, not the lanes. */
	rp = mk("0000:00:01.0", PCIE_ROLE_ROOT_PORT, 16, 2, 16, 2, 16);
	ep = mk("0000:01:00.0", PCIE_ROLE_ENDPOINT, 16, 4, 16, 2, 16);
	pcie_judge_path(&p, "drive", false);
	CHECK(!pcie_what_if(&p, 32, 4, true, &w) && near(w.usable, u256(32, 2)) && w.slot_binds &&
		      w.width == 2,
	      "x2 fixed %f", w.usable);
	/* Unknown maxima: no answer. */
	rp.known &= ~(unsigned)PCIE_K_MAX;
	CHECK(pcie_slot_ceiling(&p, &w) == -ENODATA && isnan(w.usable), "unknown port");
}

int main(int argc, char **argv)
{
	/* --ceiling SYSFS_ROOT BDF: print pcitree_usable_ceiling() (used by tests/probe). */
	if (argc == 4 && !strcmp(argv[1], "--ceiling")) {
		struct pcitree t;
		char err[256];

		if (pcitree_load(&t, argv[2], NULL, err, sizeof(err))) {
			printf("nan\n");
			return 0;
		}
		printf("%.2f\n", pcitree_usable_ceiling(&t, argv[3]));
		pcitree_free(&t);
		return 0;
	}
	test_ceilings();
	test_decode();
	test_link_verdicts();
	test_path();
	test_slot_decode();
	test_wired();
	test_what_if();
	printf("%d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}
