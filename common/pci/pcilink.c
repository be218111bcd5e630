// SPDX-License-Identifier: MIT
/*
 * pcilink.c: PCIe link math (speeds, encodings, ceilings), decoding of the
 * PCI Express capability from raw configuration bytes, and the verdict on a
 * link and on a device's path to its root port. Pure: no I/O here (where the
 * bytes come from is pcitree.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nbw.h"
#include "parse.h"
#include "pcilink.h"

static const double speed_table[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 128.0};

double pcie_speed_gts(unsigned code)
{
	return code < sizeof(speed_table) / sizeof(speed_table[0]) ? speed_table[code] : 0;
}

unsigned pcie_speed_code(double gts)
{
	unsigned c;

	for (c = 1; c < sizeof(speed_table) / sizeof(speed_table[0]); c++)
		if (fabs(speed_table[c] - gts) < 0.01)
			return c;
	return 0;
}

unsigned pcie_speed_gen(double gts)
{
	return pcie_speed_code(gts);
}

double pcie_encoding_efficiency(double gts)
{
	if (gts <= 0)
		return NAN;
	if (gts < 8.0)
		return 8.0 / 10.0;
	if (gts < 64.0)
		return 128.0 / 130.0;
	return 236.0 / 256.0;
}

const char *pcie_encoding_name(double gts)
{
	if (gts <= 0)
		return "unknown";
	return gts < 8.0 ? "8b/10b" : gts < 64.0 ? "128b/130b" : "Flit";
}

double pcie_raw_gb_per_s(double gts, unsigned width)
{
	if (gts <= 0 || width == 0)
		return NAN;
	return gts * width * pcie_encoding_efficiency(gts) / 8.0;
}

double pcie_usable_gb_per_s(double gts, unsigned width, unsigned mps)
{
	if (mps == 0)
		return NAN;
	return pcie_raw_gb_per_s(gts, width) * mps / (mps + PCIE_TLP_OVERHEAD);
}

const char *pcie_speed_str(double gts, char *buf, size_t len)
{
	if (gts <= 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%g", gts);
	return buf;
}

const char *pcie_role_name(enum pcie_role role)
{
	static const char *const names[] = {PCIE_ROLES(NBW_ENUM_NAME)};

	return nbw_name(names, NBW_ARRAY_SIZE(names), role, "unknown");
}

bool pcie_role_is_downstream_port(enum pcie_role role)
{
	return role == PCIE_ROLE_ROOT_PORT || role == PCIE_ROLE_SWITCH_DOWN;
}

const char *pcie_known_names(unsigned mask, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{PCIE_K_ROLE, "port type"},
		{PCIE_K_LNKCAP, "LnkCap"},
		{PCIE_K_MAX, "maximum speed/width"},
		{PCIE_K_LNKSTA, "LnkSta"},
		{PCIE_K_LNKCAP2, "LnkCap2"},
		{PCIE_K_LNKCTL2, "LnkCtl2 target speed"},
		{PCIE_K_MPS, "MPS"},
		{PCIE_K_MRRS, "MRRS"},
		{PCIE_K_DLL, "data-link active"},
	};
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < NBW_ARRAY_SIZE(names); i++) {
		if (!(mask & names[i].bit))
			continue;
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s",
					off ? ", " : "", names[i].name);
		if (off >= len)
			break;
	}
	return buf;
}

void pcie_fn_init(struct pcie_fn *f, int domain, int bus, int dev, int func)
{
	memset(f, 0, sizeof(*f));
	f->domain = domain;
	f->bus = bus;
	f->dev = dev;
	f->func = func;
	snprintf(f->bdf, sizeof(f->bdf), "%04x:%02x:%02x.%d", domain & 0xffff, bus & 0xff,
		 dev & 0x1f, func & 7);
	f->secondary = f->subordinate = -1;
	f->numa_node = -1;
	f->parent = -1;
}

/* ---- configuration space ------------------------------------------------ */

#define CFG_HEADER 64
#define CFG_LEGACY 256
#define CFG_EXT 4096

#define CAP_ID_EXP 0x10
#define EXT_CAP_ID_SRIOV 0x0010

static unsigned cfg_w(const uint8_t *c, size_t pos)
{
	return (unsigned)c[pos] | (unsigned)c[pos + 1] << 8;
}

static uint32_t cfg_l(const uint8_t *c, size_t pos)
{
	return (uint32_t)cfg_w(c, pos) | (uint32_t)cfg_w(c, pos + 2) << 16;
}

static enum pcie_role role_of_type(unsigned type)
{
	switch (type) {
	case 0x0:
		return PCIE_ROLE_ENDPOINT;
	case 0x1:
		return PCIE_ROLE_LEGACY_ENDPOINT;
	case 0x4:
		return PCIE_ROLE_ROOT_PORT;
	case 0x5:
		return PCIE_ROLE_SWITCH_UP;
	case 0x6:
		return PCIE_ROLE_SWITCH_DOWN;
	case 0x7:
		return PCIE_ROLE_PCIE_TO_PCI;
	case 0x8:
		return PCIE_ROLE_PCI_TO_PCIE;
	case 0x9:
		return PCIE_ROLE_RC_ENDPOINT;
	case 0xa:
		return PCIE_ROLE_RC_EVENT;
	}
	return PCIE_ROLE_UNKNOWN;
}

/* Highest speed in a LnkCap2 Supported Link Speeds vector (bit 0 = 2.5 GT/s). */
static double vector_max_speed(unsigned vector)
{
	unsigned c, best = 0;

	for (c = 1; c <= 7; c++)
		if (vector & (1u << (c - 1)))
			best = c;
	return pcie_speed_gts(best);
}

/* Offsets in the PCI Express capability (PCIe Base Specification, 7.5.3). */
enum {
	EXP_FLAGS = 0x02,
	EXP_DEVCAP = 0x04,
	EXP_DEVCTL = 0x08,
	EXP_LNKCAP = 0x0c,
	EXP_LNKSTA = 0x12,
	EXP_SLTCAP = 0x14,
	EXP_LNKCAP2 = 0x2c,
	EXP_LNKCTL2 = 0x30,
	EXP_V2_END = 0x3c,
};

static void decode_express(const uint8_t *c, size_t len, unsigned pos, struct pcie_fn *f)
{
	unsigned flags = cfg_w(c, pos + EXP_FLAGS);
	uint32_t devcap = cfg_l(c, pos + EXP_DEVCAP), lnkcap;
	unsigned devctl = cfg_w(c, pos + EXP_DEVCTL), lnksta;

	f->cap_version = flags & 0xf;
	f->role = role_of_type((flags >> 4) & 0xf);
	f->known |= PCIE_K_ROLE;
	f->mps_supported = 128u << (devcap & 7);
	f->mps = 128u << ((devctl >> 5) & 7);
	f->mrrs = 128u << ((devctl >> 12) & 7);
	f->known |= PCIE_K_MPS | PCIE_K_MRRS;
	if (pcie_role_is_downstream_port(f->role)) {
		f->slot_implemented = flags & (1u << 8);
		if (f->slot_implemented)
			f->slot_number = pcie_sltcap_slot_number(cfg_l(c, pos + EXP_SLTCAP));
		f->known |= PCIE_K_SLOT;
	}
	if (f->role == PCIE_ROLE_RC_ENDPOINT || f->role == PCIE_ROLE_RC_EVENT)
		return; /* no link registers */

	lnkcap = cfg_l(c, pos + EXP_LNKCAP);
	f->cap_speed = pcie_speed_gts(lnkcap & 0xf);
	f->cap_width = (lnkcap >> 4) & 0x3f;
	f->dll_reporting = lnkcap & (1u << 20);
	f->known |= PCIE_K_LNKCAP;
	lnksta = cfg_w(c, pos + EXP_LNKSTA);
	f->speed = pcie_speed_gts(lnksta & 0xf);
	f->width = (lnksta >> 4) & 0x3f;
	f->training = lnksta & (1u << 11);
	f->dll_active = lnksta & (1u << 13);
	f->autonomous_bw = lnksta & (1u << 15);
	f->known |= PCIE_K_LNKSTA;
	if (f->dll_reporting)
		f->known |= PCIE_K_DLL;

	f->max_speed = f->cap_speed;
	if (f->cap_version >= 2 && pos + EXP_V2_END <= len) {
		unsigned ctl2 = cfg_w(c, pos + EXP_LNKCTL2);

		f->speeds_vector = (cfg_l(c, pos + EXP_LNKCAP2) >> 1) & 0x7f;
		f->known |= PCIE_K_LNKCAP2;
		/* An empty vector means "use LnkCap" (pre-3.0 devices). */
		if (f->speeds_vector)
			f->max_speed = vector_max_speed(f->speeds_vector);
		f->target_speed = pcie_speed_gts(ctl2 & 0xf);
		f->hw_autonomous_disabled = ctl2 & (1u << 5);
		f->known |= PCIE_K_LNKCTL2;
	}
	f->max_width = f->cap_width;
	if (f->max_speed > 0 && f->max_width > 0)
		f->known |= PCIE_K_MAX;
}

unsigned pcie_sltcap_slot_number(uint32_t sltcap)
{
	return (sltcap >> 19) & 0x1fff;
}

static void decode_sriov(const uint8_t *c, size_t len, struct pcie_fn *f)
{
	unsigned pos = 0x100, ttl = (CFG_EXT - 0x100) / 4;

	while (pos >= 0x100 && pos + 0x18 <= len && ttl--) {
		uint32_t h = cfg_l(c, pos);

		if (h == 0 || h == 0xffffffff)
			return;
		if ((h & 0xffff) == EXT_CAP_ID_SRIOV) {
			f->sriov_pos = (int)pos;
			f->sriov_num_vfs = cfg_w(c, pos + 0x10);
			f->sriov_offset = cfg_w(c, pos + 0x14);
			f->sriov_stride = cfg_w(c, pos + 0x16);
			return;
		}
		pos = (h >> 20) & 0xffc;
	}
}

int pcie_decode_config(const uint8_t *c, size_t len, struct pcie_fn *f)
{
	unsigned pos, ttl = 48;

	if (len < CFG_HEADER)
		return -ENODATA;
	f->vendor = (uint16_t)cfg_w(c, 0x00);
	f->device = (uint16_t)cfg_w(c, 0x02);
	f->class_code = (uint32_t)c[0x0b] << 16 | (uint32_t)c[0x0a] << 8 | c[0x09];
	f->bridge = (c[0x0e] & 0x7f) == 1;
	if (f->bridge) {
		f->secondary = c[0x19];
		f->subordinate = c[0x1a];
	}
	if (len < CFG_LEGACY)
		return 0; /* capabilities beyond the header are not readable */
	if (!(cfg_w(c, 0x06) & 0x10)) {
		f->role = PCIE_ROLE_PCI;
		f->known |= PCIE_K_ROLE;
		return 0;
	}
	pos = c[0x34] & 0xfc;
	while (pos >= 0x40 && pos + 2 <= len && ttl--) {
		if (c[pos] == CAP_ID_EXP) {
			if (pos + 0x24 <= len)
				decode_express(c, len, pos, f);
			break;
		}
		pos = c[pos + 1] & 0xfc;
	}
	if (!(f->known & PCIE_K_ROLE)) {
		f->role = PCIE_ROLE_PCI;
		f->known |= PCIE_K_ROLE;
	}
	if (len >= CFG_EXT)
		decode_sriov(c, len, f);
	return 0;
}

/* ---- verdicts --------------------------------------------------------------- */

const char *pcie_verdict_name(enum pcie_verdict v)
{
	static const char *const names[] = {PCIE_VERDICTS(NBW_ENUM_NAME)};

	return nbw_name(names, NBW_ARRAY_SIZE(names), v, "unknown");
}

const char *pcie_limit_name(enum pcie_limit l)
{
	static const char *const names[] = {
		[PCIE_LIMIT_NONE] = "none", [PCIE_LIMIT_DEVICE] = "device",
		[PCIE_LIMIT_PORT] = "port", [PCIE_LIMIT_TRAINING] = "training",
		[PCIE_LIMIT_PATH] = "path",
	};

	return nbw_name(names, NBW_ARRAY_SIZE(names), l, "none");
}

bool pcie_class_may_idle(uint32_t class_code)
{
	unsigned base = class_code >> 16;

	return base == 0x02 || base == 0x03 || base == 0x12;
}

static double dmin(double a, double b)
{
	return a < b ? a : b;
}

/* "8 GT/s x4" into buf. */
static const char *link_str(double gts, unsigned width, char *buf, size_t len)
{
	char s[16];

	snprintf(buf, len, "%s GT/s x%u", pcie_speed_str(gts, s, sizeof(s)), width);
	return buf;
}

static unsigned min_mps(const struct pcie_fn *port, const struct pcie_fn *dev)
{
	if (!(port->known & PCIE_K_MPS) || !(dev->known & PCIE_K_MPS))
		return 0;
	return port->mps < dev->mps ? port->mps : dev->mps;
}

/*
 * Down: nothing negotiated, or the port says its data link is inactive and
 * the device below does not answer (some emulated ports report the
 * capability but never set Data Link Layer Link Active).
 */
static bool judge_down(const struct pcie_fn *port, const struct pcie_fn *dev,
		       const struct pcie_fn *sta, struct pcie_link *l)
{
	bool dll_down = (port->known & PCIE_K_DLL) && !port->dll_active;

	if (!(dll_down && dev->vendor == 0xffff && !dev->is_vf) &&
	    !((sta->known & PCIE_K_LNKSTA) && (sta->width == 0 || sta->speed <= 0)))
		return false;
	l->verdict = PCIE_LINK_DOWN;
	snprintf(l->reason, sizeof(l->reason), "link down below port %s (%s)", port->bdf,
		 dll_down ? "data link layer inactive" : "no width negotiated");
	return true;
}

/* The port advertises nothing (LnkCap 0); the device runs at its own maximum. */
static bool judge_unadvertised(const struct pcie_fn *port, const struct pcie_fn *dev,
			       const struct pcie_fn *sta, const char *who, struct pcie_link *l)
{
	char a[32];

	if ((l->missing & PCIE_K_LNKSTA) || !(dev->known & PCIE_K_MAX) ||
	    (port->known & PCIE_K_MAX) || !(port->known & PCIE_K_LNKCAP) ||
	    sta->speed < dev->max_speed - 0.01 || sta->width < dev->max_width)
		return false;
	l->speed = l->exp_speed = sta->speed;
	l->width = l->exp_width = sta->width;
	l->mps = min_mps(port, dev);
	l->raw = pcie_raw_gb_per_s(l->speed, l->width);
	l->usable = pcie_usable_gb_per_s(l->speed, l->width, l->mps);
	l->verdict = PCIE_OK;
	l->limited_by = PCIE_LIMIT_DEVICE;
	snprintf(l->reason, sizeof(l->reason),
		 "%s runs at its own maximum %s; port %s advertises no link capability "
		 "(LnkCap speed 0)",
		 who, link_str(l->speed, l->width, a, sizeof(a)), port->bdf);
	return true;
}

/* Trained below what both ends can do: an idle NIC, or a training fault. */
static void judge_below(const struct pcie_fn *port, const struct pcie_fn *dev, const char *who,
			bool may_idle, struct pcie_link *l)
{
	bool autonomous = dev->autonomous_bw || port->autonomous_bw ||
			  ((dev->known & PCIE_K_LNKCTL2) && !dev->hw_autonomous_disabled);
	char a[32], b[32];

	l->limited_by = PCIE_LIMIT_TRAINING;
	if (may_idle && autonomous) {
		l->verdict = PCIE_MAYBE_IDLE;
		snprintf(l->reason, sizeof(l->reason),
			 "%s link at %s, below the %s both ends support: may be idle "
			 "(autonomous speed changes allowed); re-check under load",
			 who, link_str(l->speed, l->width, a, sizeof(a)),
			 link_str(l->exp_speed, l->exp_width, b, sizeof(b)));
		return;
	}
	l->verdict = PCIE_DOWNGRADED;
	/* A port without a slot is wired on the board: it may route fewer lanes than it has. */
	if (l->width < l->exp_width && (port->known & PCIE_K_SLOT) && !port->slot_implemented) {
		snprintf(l->reason, sizeof(l->reason),
			 "both ends capable of %s, link at %s on a port without a slot: the board "
			 "may route only %u lanes (wiring), as likely as a training fault",
			 link_str(l->exp_speed, l->exp_width, b, sizeof(b)),
			 link_str(l->speed, l->width, a, sizeof(a)), l->width);
		return;
	}
	snprintf(l->reason, sizeof(l->reason),
		 "both ends capable of %s, link trained at %s: reseat, retrain, check the riser",
		 link_str(l->exp_speed, l->exp_width, b, sizeof(b)),
		 link_str(l->speed, l->width, a, sizeof(a)));
}

/* Trained at what both ends allow: is that less than one end could do, and why. */
static void judge_capability(const struct pcie_fn *port, const struct pcie_fn *dev, const char *who,
			     struct pcie_link *l)
{
	char a[32], b[32];

	if ((port->known & PCIE_K_LNKCTL2) && port->target_speed > 0 &&
	    port->target_speed < dmin(port->max_speed, dev->max_speed) - 0.01) {
		l->verdict = PCIE_DOWNGRADED;
		l->limited_by = PCIE_LIMIT_PORT;
		snprintf(l->reason, sizeof(l->reason),
			 "port %s target speed set to %s GT/s (LnkCtl2), both ends capable of %s "
			 "GT/s",
			 port->bdf, pcie_speed_str(port->target_speed, a, sizeof(a)),
			 pcie_speed_str(dmin(port->max_speed, dev->max_speed), b, sizeof(b)));
	} else if (dev->max_speed < port->max_speed - 0.01 || dev->max_width < port->max_width) {
		l->verdict = PCIE_DOWNGRADED;
		l->limited_by = PCIE_LIMIT_DEVICE;
		snprintf(l->reason, sizeof(l->reason),
			 "host port capable of %s, %s capable of only %s",
			 link_str(port->max_speed, port->max_width, a, sizeof(a)), who,
			 link_str(dev->max_speed, dev->max_width, b, sizeof(b)));
	} else if (port->max_speed < dev->max_speed - 0.01 || port->max_width < dev->max_width) {
		l->verdict = PCIE_DOWNGRADED;
		l->limited_by = PCIE_LIMIT_PORT;
		snprintf(l->reason, sizeof(l->reason), "%s capable of %s, port capable of only %s",
			 who, link_str(dev->max_speed, dev->max_width, a, sizeof(a)),
			 link_str(port->max_speed, port->max_width, b, sizeof(b)));
	} else {
		l->verdict = PCIE_OK;
		snprintf(l->reason, sizeof(l->reason), "trained at %s, the maximum of both ends",
			 link_str(l->speed, l->width, a, sizeof(a)));
	}
}

void pcie_judge_link(const struct pcie_fn *port, const struct pcie_fn *dev, const char *who,
		     bool may_idle, struct pcie_link *l)
{
	const struct pcie_fn *sta = (dev->known & PCIE_K_LNKSTA) ? dev : port;
	const unsigned need = PCIE_K_MAX;
	char m[120];

	memset(l, 0, sizeof(*l));
	l->port = port;
	l->dev = dev;
	l->raw = l->usable = NAN;
	l->missing = (~port->known & (need | PCIE_K_MPS)) | (~dev->known & (need | PCIE_K_MPS));
	/* A version-1 capability has no LnkCtl2: absent, not unknown. */
	if (!(port->known & PCIE_K_LNKCTL2) && !(port->known & PCIE_K_LNKCAP))
		l->missing |= PCIE_K_LNKCTL2;
	if (!(sta->known & PCIE_K_LNKSTA))
		l->missing |= PCIE_K_LNKSTA;
	if (judge_down(port, dev, sta, l) || judge_unadvertised(port, dev, sta, who, l))
		return;
	if (l->missing & (need | PCIE_K_LNKSTA)) {
		l->verdict = PCIE_UNKNOWN;
		snprintf(l->reason, sizeof(l->reason), "not enough data: missing %s",
			 pcie_known_names(l->missing, m, sizeof(m)));
		return;
	}
	l->speed = sta->speed;
	l->width = sta->width;
	l->exp_speed = dmin(port->max_speed, dev->max_speed);
	if ((port->known & PCIE_K_LNKCTL2) && port->target_speed > 0)
		l->exp_speed = dmin(l->exp_speed, port->target_speed);
	l->exp_width = port->max_width < dev->max_width ? port->max_width : dev->max_width;
	l->mps = min_mps(port, dev);
	l->raw = pcie_raw_gb_per_s(l->speed, l->width);
	l->usable = pcie_usable_gb_per_s(l->speed, l->width, l->mps);
	if (l->speed < l->exp_speed - 0.01 || l->width < l->exp_width)
		judge_below(port, dev, who, may_idle, l);
	else
		judge_capability(port, dev, who, l);
}

/* Ceiling used to rank links: usable when known, else raw. */
static double link_rank(const struct pcie_link *l, bool use_usable)
{
	return use_usable ? l->usable : l->raw;
}

void pcie_judge_path(struct pcie_path *p, const char *who, bool may_idle)
{
	const struct pcie_link *own, *b;
	bool use_usable = true;
	char a[32];
	int i;

	p->nlinks = 0;
	p->bottleneck = -1;
	p->raw = p->usable = NAN;
	p->limited_by = PCIE_LIMIT_NONE;
	for (i = 0; i + 1 < p->nhops && p->nlinks < PCIE_MAX_HOPS; i++) {
		const struct pcie_fn *lower = p->hop[i], *upper = p->hop[i + 1];

		if (!pcie_role_is_downstream_port(upper->role))
			continue;
		pcie_judge_link(upper, lower, p->nlinks ? "switch" : who, may_idle && !p->nlinks,
				&p->link[p->nlinks]);
		p->nlinks++;
	}
	if (!p->nlinks) {
		if (p->nhops && p->hop[0]->role == PCIE_ROLE_RC_ENDPOINT) {
			p->verdict = PCIE_NO_LINK;
			snprintf(p->reason, sizeof(p->reason),
				 "root-complex integrated endpoint: no PCIe link of its own");
		} else {
			p->verdict = PCIE_UNKNOWN;
			snprintf(p->reason, sizeof(p->reason),
				 "no PCIe port found above the device");
		}
		return;
	}

	for (i = 0; i < p->nlinks; i++)
		if (isnan(p->link[i].usable))
			use_usable = false;
	for (i = 0; i < p->nlinks; i++) {
		double v = link_rank(&p->link[i], use_usable);

		if (isnan(v))
			continue;
		if (p->bottleneck < 0 || v < link_rank(&p->link[p->bottleneck], use_usable) - 1e-9)
			p->bottleneck = i;
	}
	if (p->bottleneck >= 0) {
		p->raw = p->link[p->bottleneck].raw;
		/* usable is only meaningful when every link's is known */
		p->usable = use_usable ? p->link[p->bottleneck].usable : NAN;
	}

	own = &p->link[0];
	for (i = 0; i < p->nlinks; i++) {
		if (p->link[i].verdict != PCIE_LINK_DOWN)
			continue;
		p->verdict = PCIE_LINK_DOWN;
		snprintf(p->reason, sizeof(p->reason), "%s", p->link[i].reason);
		return;
	}
	if (own->verdict != PCIE_OK) {
		p->verdict = own->verdict;
		p->limited_by = own->limited_by;
		snprintf(p->reason, sizeof(p->reason), "%s", own->reason);
		return;
	}
	b = p->bottleneck > 0 ? &p->link[p->bottleneck] : NULL;
	if (b && link_rank(b, use_usable) < link_rank(own, use_usable) - 1e-9) {
		p->verdict = PCIE_DOWNGRADED;
		p->limited_by = PCIE_LIMIT_PATH;
		snprintf(p->reason, sizeof(p->reason),
			 "a hop further up is narrower: %s (%s) runs at %s = %.2f GB/s %s, "
			 "below this link's %.2f (%s)",
			 b->dev->bdf, pcie_role_name(b->dev->role),
			 link_str(b->speed, b->width, a, sizeof(a)), link_rank(b, use_usable),
			 use_usable ? "usable" : "raw", link_rank(own, use_usable), b->reason);
		return;
	}
	p->verdict = PCIE_OK;
	p->limited_by = own->limited_by;
	snprintf(p->reason, sizeof(p->reason), "%s", own->reason);
}

/* ---- what if: the slot ceiling and upgrade projections ---------------------- */

/* The own link at the lower of both ends, links further up as trained. */
static void what_if_rank(const struct pcie_path *p, double dev_speed, unsigned dev_width,
			 struct pcie_what_if *w)
{
	const struct pcie_link *own = &p->link[0];
	int i;

	w->speed = dmin(w->port_speed, dev_speed);
	w->width = w->port_width < dev_width ? w->port_width : dev_width;
	w->raw = pcie_raw_gb_per_s(w->speed, w->width);
	w->usable = pcie_usable_gb_per_s(w->speed, w->width, own->mps);
	w->bottleneck = 0;
	w->ranked_usable = isfinite(w->usable);
	for (i = 1; i < p->nlinks; i++)
		if (isfinite(p->link[i].raw) && !isfinite(p->link[i].usable))
			w->ranked_usable = false;
	for (i = 1; i < p->nlinks; i++) {
		const struct pcie_link *l = &p->link[i];

		if (!isfinite(l->raw))
			continue; /* down or unknown: it cannot be ranked */
		if (w->ranked_usable ? l->usable < w->usable - 1e-9 : l->raw < w->raw - 1e-9) {
			w->raw = l->raw;
			w->usable = l->usable;
			w->bottleneck = i;
		}
	}
	if (!w->ranked_usable)
		w->usable = NAN;
	w->slot_binds = w->bottleneck == 0 && (w->speed < dev_speed - 0.01 || w->width < dev_width);
}

/* Reset w; true when the path has an own link whose port's maximum is known. */
static bool what_if_start(const struct pcie_path *p, struct pcie_what_if *w)
{
	memset(w, 0, sizeof(*w));
	w->raw = w->usable = NAN;
	w->bottleneck = -1;
	return p->nlinks > 0 && (p->link[0].port->known & PCIE_K_MAX);
}

int pcie_what_if(const struct pcie_path *p, double dev_speed, unsigned dev_width, bool fix_slot,
		 struct pcie_what_if *w)
{
	const struct pcie_fn *port, *dev;

	if (!what_if_start(p, w))
		return -ENODATA;
	port = p->link[0].port;
	dev = p->link[0].dev;
	if ((dev_speed <= 0 || !dev_width) && !(dev->known & PCIE_K_MAX))
		return -ENODATA;
	if (dev_speed <= 0)
		dev_speed = dev->max_speed;
	if (!dev_width)
		dev_width = dev->max_width;
	/* As it is, a port runs no faster than its LnkCtl2 target. */
	w->port_speed = port->max_speed;
	if (!fix_slot && (port->known & PCIE_K_LNKCTL2) && port->target_speed > 0)
		w->port_speed = dmin(w->port_speed, port->target_speed);
	if (fix_slot && w->port_speed < dev_speed)
		w->port_speed = dev_speed;
	w->port_width = port->max_width;
	what_if_rank(p, dev_speed, dev_width, w);
	return 0;
}

int pcie_slot_ceiling(const struct pcie_path *p, struct pcie_what_if *w)
{
	if (!what_if_start(p, w))
		return -ENODATA;
	w->port_speed = p->link[0].port->max_speed;
	w->port_width = p->link[0].port->max_width;
	what_if_rank(p, w->port_speed, w->port_width, w);
	return 0;
}

int pcie_bdf_normalise(const char *s, char out[16])
{
	unsigned dom = 0, bus, dev, fn;
	char tail;

	if (sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4) {
		dom = 0;
		if (sscanf(s, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3)
			return -EINVAL;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, 16, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	return 0;
}

int pcie_parse_width(const char *s, unsigned *out)
{
	unsigned long n;
	int rc = parse_uint(s, 1, 32, &n);

	if (rc)
		return rc;
	if (n != 1 && n != 2 && n != 4 && n != 8 && n != 12 && n != 16 && n != 32)
		return -ERANGE;
	*out = (unsigned)n;
	return 0;
}
