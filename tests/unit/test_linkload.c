// SPDX-License-Identifier: MIT
/*
 * test_linkload DIR: the PCIe links and AER counts of devices during a window
 * (common/pci/linkload.c) on the tree tests/fixtures/sysfs/mklinks.py wrote
 * into DIR (tests/unit/linkload.sh). The test rewrites the drive's link files
 * between samples, as a link that trains down under load and back, and its
 * AER counts, as errors counted in the window; the NIC keeps no AER count;
 * the hostile device's files (a FIFO, too long, negative, no counts) are
 * read without a hang and kept as unknown. And the parser of an AER file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "linkload.h"
#include "report.h"

static const char *root;

/* Rewrite ROOT/bus/pci/devices/BDF/FILE with text. */
static void put(const char *bdf, const char *file, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/%s", root, bdf, file);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%s\n", text);
		fclose(f);
	}
}

static void parse(void)
{
	uint64_t v = 99;

	CHECK(linkload_parse_aer("RxErr 1\nBadTLP 2\nTOTAL_ERR_COR 7", "TOTAL_ERR_COR", &v) == 0);
	CHECK_U64(v, 7); /* the kernel's total, not the sum of the lines above it */
	CHECK(linkload_parse_aer("RxErr 1\nBadTLP 2", "TOTAL_ERR_COR", &v) == 0);
	CHECK_U64(v, 3); /* no total line: the sum */
	CHECK(linkload_parse_aer("", "TOTAL_ERR_COR", &v) == -EINVAL);
	CHECK(linkload_parse_aer("RxErr", "TOTAL_ERR_COR", &v) == -EINVAL);
	CHECK(linkload_parse_aer("RxErr -1", "TOTAL_ERR_COR", &v) == -EINVAL);
	CHECK(linkload_parse_aer("RxErr 1x", "TOTAL_ERR_COR", &v) == -EINVAL);
	CHECK(linkload_parse_aer("Rx\x1b[2J 1", "TOTAL_ERR_COR", &v) == -EINVAL);
	CHECK(linkload_parse_aer("RxErr 99999999999999999999999", "TOTAL_ERR_COR", &v) == -EINVAL);
	CHECK(linkload_parse_aer("A 18446744073709551615\nB 1", "TOTAL_ERR_COR", &v) == -EINVAL);
	CHECK(linkload_parse_aer("TOTAL_ERR_FATAL 4", "TOTAL_ERR_FATAL", &v) == 0);
	CHECK_U64(v, 4);
}

/* What linkload_text_dev prints for d, into buf. */
static void text_of(const struct ll_dev *d, char *buf, size_t len)
{
	struct report r;
	FILE *f;

	memset(buf, 0, len);
	f = fmemopen(buf, len, "w");

	report_init(&r, f, false, false);
	linkload_text_dev(&r, d, "");
	report_finish(&r);
	fclose(f);
}

/* d's lines with a crafted name (an escape sequence, a newline): escaped, as every line is. */
static void hostile_name(const struct ll_dev *d)
{
	struct ll_dev h = *d;
	char text[1024];

	snprintf(h.name, sizeof(h.name), "nv\033[2Jme\n0n1");
	text_of(&h, text, sizeof(text));
	CHECK(strstr(text, "nv\\x1b[2Jme\\x0a0n1 (0000:01:00.0): link dropped under load") != NULL);
	CHECK(strstr(text, "nv\\x1b[2Jme\\x0a0n1 (0000:01:00.0): AER correctable +7") != NULL);
	CHECK(!strchr(text, '\033'));
	if (check_failures)
		fprintf(stderr, "text: %s", text);
}

/* The drive's link drops to 2.5 GT/s x2 at 1 s and is back at 3 s; AER counts move. */
static void window(struct linkload *ll)
{
	const struct ll_dev *d, *nic, *bad, *gone;
	char text[1024];

	CHECK(linkload_add(ll, root, "nvme0n1", "nvme", "0000:01:00.0") == 0);
	CHECK(linkload_add(ll, root, "mlx5_0", "rdma", "0000:3b:00.0") == 0);
	CHECK(linkload_add(ll, root, "bad", "nvme", "0000:5e:00.0") == 0);
	CHECK(linkload_add(ll, root, "gone", "nvme", "0000:99:00.0") == 0);
	CHECK(linkload_add(ll, root, "again", "nvme", "0000:01:00.0") == -EEXIST);
	CHECK(linkload_add(ll, root, "dots", "nvme", "../../../etc") == -EINVAL);
	CHECK(linkload_add(ll, root, "long", "nvme", "0000:01:00.00") == -EINVAL);
	CHECK_U64(ll->n, 4);

	linkload_open(ll);
	put("0000:01:00.0", "current_link_speed", "2.5 GT/s PCIe");
	put("0000:01:00.0", "current_link_width", "2");
	linkload_sample(ll, 1.0);
	linkload_sample(ll, 2.0);
	put("0000:01:00.0", "current_link_speed", "16.0 GT/s PCIe");
	put("0000:01:00.0", "current_link_width", "4");
	linkload_sample(ll, 3.0);
	put("0000:01:00.0", "aer_dev_correctable", "RxErr 5\nBadTLP 2\nTOTAL_ERR_COR 7");
	put("0000:01:00.0", "aer_dev_fatal", "TLP 1\nTOTAL_ERR_FATAL 1");
	linkload_close(ll, 4.0);
	linkload_sample(ll, 5.0); /* after the close: nothing */

	d = linkload_find(ll, "0000:01:00.0");
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_U64(d->samples, 5);
	CHECK(d->has_before && d->before.speed_gts == 16.0 && d->before.width == 4);
	CHECK(d->min.speed_gts == 2.5 && d->min.width == 2);
	CHECK(d->has_after && d->after.speed_gts == 16.0 && d->after.width == 4);
	CHECK_U64(d->nchanges, 2);
	CHECK(d->change[0].t_s == 1.0 && d->change[0].speed_gts == 2.5 && d->change[0].width == 2);
	CHECK(d->change[1].t_s == 3.0 && d->change[1].speed_gts == 16.0);
	CHECK(linkload_dropped(d));
	CHECK(linkload_first_drop(d) == &d->change[0]);
	CHECK(d->aer[LL_AER_CORRECTABLE].kept_before && d->aer[LL_AER_CORRECTABLE].kept_after);
	CHECK_U64(d->aer[LL_AER_CORRECTABLE].before, 0);
	CHECK_U64(d->aer[LL_AER_CORRECTABLE].after, 7);
	CHECK_U64(d->aer[LL_AER_NONFATAL].after, 0);
	CHECK(d->aer[LL_AER_NONFATAL].kept_after);
	CHECK_U64(d->aer[LL_AER_FATAL].after, 1);
	CHECK(linkload_aer_moved(d));
	text_of(d, text, sizeof(text));
	CHECK(strstr(text,
		     "nvme0n1 (0000:01:00.0): link dropped under load: 16 GT/s x4 at the "
		     "opening, 2.5 GT/s x2 at 1.0 s, 16 GT/s x4 at the close (2 changes)\n") !=
	      NULL);
	CHECK(strstr(text, "AER correctable +7 (0 -> 7), nonfatal 0, fatal +1 (0 -> 1) in the "
			   "window\n") != NULL);
	if (check_failures)
		fprintf(stderr, "text: %s", text);
	hostile_name(d);

	nic = linkload_find(ll, "0000:3b:00.0");
	CHECK(nic && nic->before.speed_gts == 8.0 && nic->before.width == 16);
	CHECK(nic && !nic->nchanges && !linkload_dropped(nic) && !linkload_aer_moved(nic));
	CHECK(nic && !nic->aer[LL_AER_CORRECTABLE].kept_before); /* not kept, never 0 */
	text_of(nic, text, sizeof(text));
	CHECK_STR(text, "");

	bad = linkload_find(ll, "0000:5e:00.0");
	CHECK(bad && bad->before.speed_gts == 0 && bad->before.width == -1);
	CHECK(bad && !bad->aer[LL_AER_CORRECTABLE].kept_before);
	CHECK(bad && !bad->aer[LL_AER_NONFATAL].kept_before && !bad->aer[LL_AER_FATAL].kept_after);
	CHECK(bad && !linkload_dropped(bad));

	gone = linkload_find(ll, "0000:99:00.0");
	CHECK(gone && gone->samples == 5 && gone->before.width == -1 && !linkload_dropped(gone));
}

/* A link that flaps more often than LL_MAX_CHANGES: all counted, the first kept. */
static void flapping(void)
{
	struct linkload *ll = linkload_new();
	int i;

	CHECK(ll != NULL);
	if (!ll)
		return;
	CHECK(linkload_add(ll, root, "nvme0n1", "nvme", "0000:01:00.0") == 0);
	linkload_open(ll);
	for (i = 1; i <= 40; i++) {
		put("0000:01:00.0", "current_link_width", i % 2 ? "1" : "4");
		linkload_sample(ll, i);
	}
	linkload_close(ll, 41);
	CHECK_U64(ll->d[0].nchanges, 40);
	CHECK(ll->d[0].change[LL_MAX_CHANGES - 1].t_s == LL_MAX_CHANGES);
	CHECK(ll->d[0].min.width == 1 && ll->d[0].after.width == 4);
	/* Down: width 0, speed "Unknown". */
	linkload_free(ll);
	ll = linkload_new();
	CHECK(linkload_add(ll, root, "nvme0n1", "nvme", "0000:01:00.0") == 0);
	linkload_open(ll);
	put("0000:01:00.0", "current_link_speed", "Unknown");
	put("0000:01:00.0", "current_link_width", "0");
	linkload_close(ll, 1.5);
	CHECK(ll->d[0].after.width == 0 && ll->d[0].after.speed_gts == 0);
	CHECK(linkload_dropped(&ll->d[0]));
	linkload_free(ll);
	put("0000:01:00.0", "current_link_speed", "16.0 GT/s PCIe");
	put("0000:01:00.0", "current_link_width", "4");
}

/* More devices than LL_MAX_DEV: the rest refused, the watch says truncated. */
static void many(void)
{
	struct linkload *ll = linkload_new(), *c;
	char bdf[16];
	int i, rc = 0;

	CHECK(ll != NULL);
	if (!ll)
		return;
	for (i = 0; i < LL_MAX_DEV + 3; i++) {
		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", i + 0x10);
		rc = linkload_add(ll, root, bdf, "nvme", bdf);
	}
	CHECK(rc == -ENOSPC && ll->truncated && ll->n == LL_MAX_DEV);
	c = linkload_dup(ll);
	CHECK(c && c->n == LL_MAX_DEV && !strcmp(c->d[3].bdf, "0000:13:00.0"));
	linkload_free(c);
	linkload_free(ll);
	CHECK(linkload_dup(NULL) == NULL);
}

int main(int argc, char **argv)
{
	struct linkload *ll;

	if (argc != 2) {
		fprintf(stderr, "usage: test_linkload DIR (the tree of mklinks.py)\n");
		return 2;
	}
	root = argv[1];
	parse();
	ll = linkload_new();
	CHECK(ll != NULL);
	if (ll)
		window(ll);
	linkload_free(ll);
	flapping();
	many();
	return check_done("test_linkload");
}
