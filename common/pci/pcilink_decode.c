// SPDX-License-Identifier: MIT
/*
 * pcilink_decode.c: a PCI function's link as its configuration space tells
 * it (see pcilink.h): the header (IDs, class, bridge bus numbers), the PCI
 * Express capability (role, LnkCap, LnkSta, LnkCap2, LnkCtl2, MPS, MRRS,
 * slot) and the extended capabilities SR-IOV and ACS (Access Control
 * Services: what redirects peer-to-peer traffic). Pure: the bytes come from pcitree.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pcilink.h"

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

#define CFG_HEADER 64
#define CFG_LEGACY 256
#define CFG_EXT 4096

#define CAP_ID_EXP 0x10
#define EXT_CAP_ID_ACS 0x000d
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

/* The extended capabilities this model uses: SR-IOV and ACS. */
static void decode_extended(const uint8_t *c, size_t len, struct pcie_fn *f)
{
	unsigned pos = 0x100, ttl = (CFG_EXT - 0x100) / 4;

	f->known |= PCIE_K_EXTCFG;
	while (pos >= 0x100 && pos + 0x18 <= len && ttl--) {
		uint32_t h = cfg_l(c, pos);

		if (h == 0 || h == 0xffffffff)
			return;
		if ((h & 0xffff) == EXT_CAP_ID_SRIOV && !f->sriov_pos) {
			f->sriov_pos = (int)pos;
			f->sriov_num_vfs = cfg_w(c, pos + 0x10);
			f->sriov_offset = cfg_w(c, pos + 0x14);
			f->sriov_stride = cfg_w(c, pos + 0x16);
		} else if ((h & 0xffff) == EXT_CAP_ID_ACS && !f->acs_pos) {
			f->acs_pos = (int)pos;
			f->acs_cap = cfg_w(c, pos + 0x04) & 0x7f;
			f->acs_ctl = cfg_w(c, pos + 0x06) & 0x7f;
		}
		pos = (h >> 20) & 0xffc;
	}
}

const char *pcie_acs_names(unsigned bits, char *buf, size_t len)
{
	static const char *const names[] = {"SrcValid",	   "TransBlk",	 "ReqRedir",   "CmpltRedir",
					    "UpstreamFwd", "EgressCtrl", "DirectTrans"};
	size_t used = 0, k;

	if (len)
		buf[0] = 0;
	for (k = 0; k < NBW_ARRAY_SIZE(names) && used < len; k++)
		if (bits & (1u << k))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "",
						 names[k]);
	return buf;
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
		decode_extended(c, len, f);
	return 0;
}
