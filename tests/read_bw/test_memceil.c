// SPDX-License-Identifier: MIT
/*
 * test_memceil: the staging memory's ceiling from a sysfs tree written here
 * (EDAC's DIMM locations, SMBIOS memory devices): channels x the slowest
 * DIMM's speed x its width, and every gap leaving it unknown; and the memory
 * stream itself counting what it staged.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "membw.h"

static char root[64];

static void put(const char *path, const void *data, size_t len)
{
	char full[512], *p;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", root, path);
	for (p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(full, 0755);
		*p = '/';
	}
	f = fopen(full, "w");
	if (!f || fwrite(data, 1, len, f) != len) {
		perror(full);
		exit(99);
	}
	fclose(f);
}

/* An SMBIOS type 17 structure (length 0x5C) of size_mb, speed, configured speed, width. */
static void dimm17(int i, unsigned size_mb, unsigned speed, unsigned conf, unsigned bits)
{
	uint8_t raw[0x5C + 2] = {17, 0x5C};
	char path[64];

	raw[0x0A] = bits & 0xff, raw[0x0B] = bits >> 8;
	raw[0x0C] = size_mb & 0xff, raw[0x0D] = (size_mb >> 8) & 0x7f;
	raw[0x15] = speed & 0xff, raw[0x16] = speed >> 8;
	raw[0x20] = conf & 0xff, raw[0x21] = conf >> 8;
	if (conf == 0xFFFF)
		raw[0x58] = 8800 & 0xff, raw[0x59] = 8800 >> 8; /* extended configured speed */
	snprintf(path, sizeof(path), "firmware/dmi/entries/17-%d/raw", i);
	put(path, raw, sizeof(raw));
}

/* A type 17 structure with its strings: device locator (1), bank locator (2; NULL: none). */
static void dimm17_loc(int i, unsigned conf, const char *dev, const char *bank)
{
	uint8_t raw[0x5C + 160] = {17, 0x5C};
	size_t off = 0x5C;
	char path[64];

	raw[0x0A] = 64, raw[0x0C] = 0x00, raw[0x0D] = 0x40; /* 16 GiB, 64 bits */
	raw[0x20] = conf & 0xff, raw[0x21] = conf >> 8;
	raw[0x10] = 1;
	off += (size_t)snprintf((char *)raw + off, 64, "%s", dev) + 1;
	if (bank) {
		raw[0x11] = 2;
		off += (size_t)snprintf((char *)raw + off, 64, "%s", bank) + 1;
	}
	off++; /* the set's closing NUL */
	snprintf(path, sizeof(path), "firmware/dmi/entries/17-%d/raw", i);
	put(path, raw, off);
}

static void edac_dimm(const char *mc, int i, const char *loc, const char *size)
{
	char path[128];

	snprintf(path, sizeof(path), "devices/system/edac/mc/%s/dimm%d/dimm_location", mc, i);
	put(path, loc, strlen(loc));
	snprintf(path, sizeof(path), "devices/system/edac/mc/%s/dimm%d/size", mc, i);
	put(path, size, strlen(size));
}

static void test_smbios17(void)
{
	uint8_t raw[0x22] = {17, 0x22};
	unsigned mts = 1, bits = 1;

	raw[0x0A] = 64, raw[0x0C] = 0; /* an empty slot */
	CHECK(!memceil_smbios17(raw, sizeof(raw), &mts, &bits));
	raw[0x0C] = 16; /* 16 MB */
	raw[0x15] = 3200 & 0xff, raw[0x16] = 3200 >> 8;
	CHECK(memceil_smbios17(raw, sizeof(raw), &mts, &bits));
	CHECK_U64(mts, 3200); /* no configured speed: the speed */
	CHECK_U64(bits, 64);
	raw[0x20] = 2933 & 0xff, raw[0x21] = 2933 >> 8;
	CHECK(memceil_smbios17(raw, sizeof(raw), &mts, &bits));
	CHECK_U64(mts, 2933);
	raw[1] = 0x40; /* a length past the bytes read */
	CHECK(!memceil_smbios17(raw, sizeof(raw), &mts, &bits));
	raw[1] = 0x22, raw[0] = 16; /* another type */
	CHECK(!memceil_smbios17(raw, sizeof(raw), &mts, &bits));
}

static void test_ceiling(void)
{
	struct memceil c;

	memceil_read(root, 0, 1, &c);
	CHECK(!c.known);
	CHECK(strstr(c.why, "no SMBIOS memory devices") != NULL);
	dimm17(0, 16384, 3200, 3200, 64);
	dimm17(1, 16384, 3200, 2933, 64); /* the slowest sets the pace */
	dimm17(2, 0, 0, 0, 0);		  /* an empty slot */
	dimm17(3, 16384, 3200, 3200, 64);
	memceil_read(root, 0, 1, &c);
	CHECK(!c.known);
	CHECK(strstr(c.why,
		     "neither EDAC nor the DIMMs' SMBIOS locators say the memory channels") !=
	      NULL);
	edac_dimm("mc0", 0, "channel 0 slot 0", "32768");
	edac_dimm("mc0", 1, "channel 0 slot 1", "32768"); /* two DIMMs, one channel */
	edac_dimm("mc0", 2, "channel 1 slot 0", "32768");
	edac_dimm("mc0", 3, "channel 2 slot 0", "0"); /* not populated */
	edac_dimm("mc1", 0, "channel 0 slot 0", "32768");
	memceil_read(root, 0, 1, &c);
	CHECK(c.known);
	CHECK_U64(c.channels, 3);
	CHECK_U64(c.mts, 2933);
	CHECK_U64(c.bus_bits, 64);
	CHECK_U64(c.dimms, 3);
	CHECK_U64((uint64_t)c.bytes_per_s, 3ULL * 2933 * 1000000 * 8);
	CHECK(strstr(c.why, "3 channels x 2933 MT/s x 64 bits") != NULL);
	memceil_read(root, 1, 2, &c); /* two nodes: whose channels is not said */
	CHECK(!c.known);
	CHECK(strstr(c.why, "2 NUMA nodes") != NULL);
	dimm17(4, 16384, 0, 0, 64); /* a DIMM that does not say its speed */
	memceil_read(root, 0, 1, &c);
	CHECK(!c.known);
	CHECK_STR(c.why, "ceiling unknown: a DIMM does not give its speed");
	dimm17(4, 16384, 3200, 3200, 32); /* a narrower one */
	memceil_read(root, 0, 1, &c);
	CHECK_STR(c.why, "ceiling unknown: the DIMMs' data widths differ");
	dimm17(4, 16384, 3200, 3200, 0xFFFF); /* width unknown */
	memceil_read(root, 0, 1, &c);
	CHECK_STR(c.why, "ceiling unknown: a DIMM does not give its data width");
	dimm17(4, 16384, 0xFFFF, 0xFFFF, 64); /* the extended fields: 8800 MT/s */
	memceil_read(root, 0, 1, &c);
	CHECK(c.known);
	CHECK_U64(c.mts, 2933);
}

/* Without EDAC, the channels every DIMM's SMBIOS locator names; one DIMM without: unknown. */
static void test_locators(void)
{
	uint8_t raw[0x5C + 64] = {17, 0x5C};
	char ch[96], saved[64];
	struct memceil c;

	memcpy(raw + 0x5C, "DIMM 0\0P0_Node0_Channel1_Dimm0\0", 32);
	raw[0x10] = 1, raw[0x11] = 2;
	CHECK(memceil_smbios17_channel(raw, sizeof(raw), ch, sizeof(ch)));
	CHECK_STR(ch, "p0_node0_channel1");
	raw[0x11] = 0; /* no bank locator: the device locator names none */
	CHECK(!memceil_smbios17_channel(raw, sizeof(raw), ch, sizeof(ch)));
	raw[0x10] = 2; /* the device locator names it */
	CHECK(memceil_smbios17_channel(raw, sizeof(raw), ch, sizeof(ch)));
	raw[0x10] = 3; /* past the strings */
	CHECK(!memceil_smbios17_channel(raw, sizeof(raw), ch, sizeof(ch)));
	raw[0x10] = 2;
	CHECK(!memceil_smbios17_channel(raw, 0x60, ch, sizeof(ch))); /* cut in its strings */

	snprintf(saved, sizeof(saved), "%s", root);
	snprintf(root, sizeof(root), "%s/loc", saved);
	mkdir(root, 0755);
	dimm17_loc(0, 3200, "DIMM 0", "P0 CHANNEL A");
	dimm17_loc(1, 3200, "DIMM 1", "P0 CHANNEL A"); /* two DIMMs, one channel */
	dimm17_loc(2, 3200, "ChannelB-DIMM0", NULL);
	memceil_read(root, 0, 1, &c);
	CHECK(c.known);
	CHECK_U64(c.channels, 2);
	CHECK_U64((uint64_t)c.bytes_per_s, 2ULL * 3200 * 1000000 * 8);
	CHECK_STR(c.why, "ceiling: 2 channels x 3200 MT/s x 64 bits (SMBIOS locators and speeds)");
	dimm17_loc(3, 3200, "DIMM 3", "BANK 3"); /* one that names no channel */
	memceil_read(root, 0, 1, &c);
	CHECK(!c.known);
	CHECK(strstr(c.why, "neither EDAC nor the DIMMs' SMBIOS locators") != NULL);
	snprintf(root, sizeof(root), "%s", saved);
}

static void test_stream(void)
{
	struct membw_params p = {.node = -1,
				 .threads = 2,
				 .chunk = 4096,
				 .buf_bytes = 16384,
				 .warmup_s = 0.05,
				 .duration_s = 0.2};
	struct membw_result res;
	char err[256] = "";

	CHECK_U64(membw_run(&p, &res, err, sizeof(err)), 0);
	CHECK(res.staged_bytes > 0 && res.staged_bytes % 4096 == 0);
	CHECK(res.seconds >= 0.19 && res.seconds < 1.0);
	CHECK(fabs(membw_dram_bps(&res) - 2.0 * res.staged_bytes / res.seconds) < 1.0);
	p.buf_bytes = 5000; /* not whole chunks */
	CHECK(membw_run(&p, &res, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "bad parameters") != NULL);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/test_memceil.XXXXXX");
	if (!mkdtemp(root))
		return 99;
	test_smbios17();
	test_ceiling();
	test_locators();
	test_stream();
	if (!check_failures) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", root);
	}
	return check_done("test_memceil");
}
