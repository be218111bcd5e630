// SPDX-License-Identifier: MIT
/*
 * memceil.c: the theoretical bandwidth of the memory behind the staging
 * buffers, from what sysfs says and nothing else: EDAC's DIMM locations give
 * the populated channels, the SMBIOS memory devices the kernel exposes give
 * each DIMM's configured speed and data width. Any gap leaves the ceiling
 * unknown, with the reason; no figure is ever assumed.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "membw.h"
#include "sysfs.h"

#define MEMCEIL_MAX_CHANNELS 256
#define SMBIOS_RAW_MAX 512

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

/*
 * SMBIOS type 17 (Memory Device): size at 0x0C (0: no DIMM in the slot),
 * data width at 0x0A, speed at 0x15, configured speed at 0x20; a speed of
 * 0xFFFF is given in full by the extended fields at 0x54 and 0x58.
 */
bool memceil_smbios17(const uint8_t *raw, size_t len, unsigned *mts, unsigned *bits)
{
	unsigned speed = 0, conf = 0, w;

	if (len < 0x17 || raw[0] != 17 || raw[1] < 0x17 || raw[1] > len)
		return false;
	len = raw[1];
	if (le16(raw + 0x0C) == 0)
		return false;
	w = le16(raw + 0x0A);
	speed = le16(raw + 0x15);
	if (speed == 0xFFFF)
		speed = len >= 0x58 ? le32(raw + 0x54) : 0;
	if (len >= 0x22)
		conf = le16(raw + 0x20);
	if (conf == 0xFFFF)
		conf = len >= 0x5C ? le32(raw + 0x58) : 0;
	*mts = conf ? conf : speed;
	*bits = w == 0xFFFF ? 0 : w;
	return true;
}

/* String number idx (1-based) of the set after the formatted part; NULL if absent. */
static const char *smbios_string(const uint8_t *raw, size_t len, unsigned idx)
{
	size_t off = raw[1];
	unsigned i;

	if (!idx)
		return NULL;
	for (i = 1; off < len && raw[off]; i++) {
		const uint8_t *end = memchr(raw + off, 0, len - off);

		if (!end)
			return NULL;
		if (i == idx)
			return (const char *)raw + off;
		off = (size_t)(end - raw) + 1;
	}
	return NULL;
}

/* "channel" and the name after it in loc, lower case, into out; false without one. */
static bool locator_channel(const char *loc, char *out, size_t outlen)
{
	const char *w = loc ? strcasestr(loc, "channel") : NULL, *id;
	size_t n, i;

	if (!w)
		return false;
	id = w + 7;
	while (*id == ' ' || *id == '_' || *id == '-')
		id++;
	if (!isalnum((unsigned char)*id))
		return false;
	while (isalnum((unsigned char)*id))
		id++;
	n = (size_t)(id - loc) < outlen ? (size_t)(id - loc) : outlen - 1;
	for (i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)loc[i]);
	out[n] = 0;
	return true;
}

bool memceil_smbios17_channel(const uint8_t *raw, size_t len, char *out, size_t outlen)
{
	if (len < 0x12 || raw[0] != 17 || raw[1] < 0x12 || raw[1] > len || !outlen)
		return false;
	return locator_channel(smbios_string(raw, len, raw[0x11]), out, outlen) ||
	       locator_channel(smbios_string(raw, len, raw[0x10]), out, outlen);
}

static int read_raw(const char *path, uint8_t *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	rc = n < 0 ? -errno : (int)n;
	close(fd);
	return rc;
}

/* The channels the DIMMs' SMBIOS locators name; all: every populated DIMM names one. */
struct loc_channels {
	char (*names)[96];
	unsigned n;
	bool all;
};

static bool seen(char (*names)[96], unsigned n, const char *name);

static void loc_add(struct loc_channels *lc, const uint8_t *raw, size_t len)
{
	char ch[96];

	if (!memceil_smbios17_channel(raw, len, ch, sizeof(ch))) {
		lc->all = false;
		return;
	}
	if (!seen(lc->names, lc->n, ch) && lc->n < MEMCEIL_MAX_CHANNELS)
		snprintf(lc->names[lc->n++], sizeof(lc->names[0]), "%s", ch);
}

/*
 * Every DIMM of the SMBIOS table into c (dimms, slowest speed, width) and
 * the channels its locators name into lc, the first gap that leaves the
 * ceiling unknown into *gap; 0 or -errno.
 */
static int smbios_dimms(const char *root, struct memceil *c, const char **gap,
			struct loc_channels *lc)
{
	char dir[512], path[600];
	uint8_t raw[SMBIOS_RAW_MAX];
	struct dirent *e;
	unsigned mts, bits;
	DIR *d;
	int n;

	snprintf(dir, sizeof(dir), "%s/firmware/dmi/entries", root);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "17-", 3))
			continue;
		snprintf(path, sizeof(path), "%s/%s/raw", dir, e->d_name);
		n = read_raw(path, raw, sizeof(raw));
		if (n < 0) {
			closedir(d);
			return n;
		}
		if (!memceil_smbios17(raw, (size_t)n, &mts, &bits))
			continue;
		loc_add(lc, raw, (size_t)n);
		c->dimms++;
		if (!*gap)
			*gap = !mts    ? "a DIMM does not give its speed"
			       : !bits ? "a DIMM does not give its data width"
			       : c->bus_bits && bits != c->bus_bits
				       ? "the DIMMs' data widths differ"
				       : NULL;
		c->bus_bits = bits;
		if (mts && (!c->mts || mts < c->mts))
			c->mts = mts;
	}
	closedir(d);
	return 0;
}

/*
 * A channel's name from a DIMM's EDAC location ("channel 1 slot 0"): the
 * location without its slot or chip select; false without a channel.
 */
static bool edac_channel(const char *mc, const char *loc, char *out, size_t len)
{
	const char *s = strstr(loc, " slot "), *cs = strstr(loc, " csrow ");

	if (!strstr(loc, "channel "))
		return false;
	if (!s || (cs && cs < s))
		s = cs;
	snprintf(out, len, "%s:%.*s", mc, s ? (int)(s - loc) : (int)strlen(loc), loc);
	return true;
}

static bool seen(char (*names)[96], unsigned n, const char *name)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* The channels of one memory controller's populated DIMMs added to names[]. */
static void edac_mc_channels(const char *mcdir, const char *mc, char (*names)[96], unsigned *n)
{
	char dimm[700], loc[96], size[32], ch[96];
	struct dirent *e;
	DIR *d = opendir(mcdir);

	if (!d)
		return;
	while ((e = readdir(d)) && *n < MEMCEIL_MAX_CHANNELS) {
		if (strncmp(e->d_name, "dimm", 4) && strncmp(e->d_name, "rank", 4))
			continue;
		snprintf(dimm, sizeof(dimm), "%s/%s", mcdir, e->d_name);
		if (sysfs_read_attr(dimm, "dimm_location", loc, sizeof(loc)) ||
		    (!sysfs_read_attr(dimm, "size", size, sizeof(size)) && atol(size) == 0))
			continue;
		if (edac_channel(mc, loc, ch, sizeof(ch)) && !seen(names, *n, ch))
			snprintf(names[(*n)++], sizeof(names[0]), "%s", ch);
	}
	closedir(d);
}

/* Populated channels over every EDAC memory controller: a count, or -errno. */
static int edac_channels(const char *root)
{
	static const size_t max = MEMCEIL_MAX_CHANNELS;
	char dir[512], mcdir[800];
	char(*names)[96] = calloc(max, sizeof(*names));
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	if (!names)
		return -ENOMEM;
	snprintf(dir, sizeof(dir), "%s/devices/system/edac/mc", root);
	d = opendir(dir);
	if (!d) {
		free(names);
		return -errno;
	}
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "mc", 2)) {
			snprintf(mcdir, sizeof(mcdir), "%s/%s", dir, e->d_name);
			edac_mc_channels(mcdir, e->d_name, names, &n);
		}
	closedir(d);
	free(names);
	return (int)n;
}

void memceil_read(const char *sysfs_root, int node, int nodes, struct memceil *c)
{
	const char *root = sysfs_root ? sysfs_root : "/sys";
	struct loc_channels lc = {.all = true};
	const char *gap = NULL, *from = "EDAC, SMBIOS";
	int rc, ch;

	*c = (struct memceil){0};
	(void)node;
	lc.names = calloc(MEMCEIL_MAX_CHANNELS, sizeof(*lc.names));
	if (!lc.names) {
		snprintf(c->why, sizeof(c->why), "ceiling unknown: %s", strerror(ENOMEM));
		return;
	}
	rc = smbios_dimms(root, c, &gap, &lc);
	free(lc.names);
	if (rc) {
		snprintf(c->why, sizeof(c->why),
			 "ceiling unknown: no SMBIOS memory devices in "
			 "sysfs (%s)",
			 strerror(-rc));
		return;
	}
	if (!c->dimms || gap) {
		snprintf(c->why, sizeof(c->why), "ceiling unknown: %s",
			 c->dimms ? gap : "SMBIOS lists no installed DIMM");
		return;
	}
	ch = edac_channels(root);
	if (ch <= 0 && lc.all && lc.n) {
		ch = (int)lc.n; /* no EDAC: the channels the DIMMs' locators name */
		from = "SMBIOS locators and speeds";
	}
	if (ch <= 0) {
		snprintf(c->why, sizeof(c->why),
			 "ceiling unknown: neither EDAC nor the DIMMs' SMBIOS locators say the "
			 "memory channels (%s)",
			 ch ? strerror(-ch) : "no DIMM location");
		return;
	}
	c->channels = (unsigned)ch;
	if (nodes > 1) {
		snprintf(c->why, sizeof(c->why),
			 "ceiling unknown: %d NUMA nodes, and sysfs does "
			 "not say which memory channels serve which",
			 nodes);
		return;
	}
	c->bytes_per_s = (double)c->channels * c->mts * 1e6 * (c->bus_bits / 8);
	c->known = true;
	snprintf(c->why, sizeof(c->why), "ceiling: %u channel%s x %u MT/s x %u bits (%s)",
		 c->channels, c->channels == 1 ? "" : "s", c->mts, c->bus_bits, from);
}
