// SPDX-License-Identifier: MIT
/*
 * pcilink.c: the PCIe link model (see pcilink.h): speed codes, encodings and
 * the raw and usable ceilings of a link, the names of roles, verdicts and
 * limits, and the parsing of a BDF and a width. Decoding configuration space
 * is pcilink_decode.c, the verdicts and what-ifs pcilink_judge.c. Pure: no
 * I/O here (where the bytes come from is pcitree.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

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