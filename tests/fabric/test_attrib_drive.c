// SPDX-License-Identifier: MIT
/*
 * test_attrib_drive: the drives' own account in the explanation
 * (print/attrib_drive.c) on drives built in memory: a drive low against its
 * peers that throttled is named with what its health log counted; one whose
 * log was read and whose link was watched, with nothing counted, is "the
 * drive itself"; one whose log was not read says so, never "the drive
 * itself"; an unsteady window and a critical warning are named on a drive
 * that is not low; a steady, healthy drive at its peers' rate is not named;
 * the text and the JSON say the same.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib_drive.h"
#include "check.h"

static const struct health_limits lim = {.warning_k = 348, .critical_k = 358}; /* 75 C, 85 C */

/* A drive of bytes whose log was read around its window (after: before with tweaks). */
static void drive(struct result_drive *d, const char *path, uint64_t bytes,
		  const struct health_log *after)
{
	struct health_log before = {
		.composite_k = 313, .spare_pct = 100, .spare_threshold_pct = 10};
	double rates[3] = {1e9, 1e9, 1e9};

	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->bytes = bytes;
	d->has_shape = true;
	window_shape(rates, 3, 10, &d->shape);
	d->has_health = true;
	snprintf(d->health.ctrl, sizeof(d->health.ctrl), "nvme9");
	health_watch_set(&d->health, &before, after ? after : &before, &lim, NULL);
}

static void test_low_throttled(void)
{
	struct health_log hot = {.composite_k = 354,
				 .spare_pct = 100,
				 .spare_threshold_pct = 10,
				 .tmt_transitions = {3, 0},
				 .tmt_seconds = {12, 0}};
	struct result_drive d[3];
	struct attrib_drive a[4];
	int n;

	drive(&d[0], "/dev/nvme0n1", 10000, NULL);
	drive(&d[1], "/dev/nvme1n1", 5800, &hot);
	drive(&d[2], "/dev/nvme2n1", 10000, NULL);
	n = attrib_drives(d, 3, NULL, 10, "local", NULL, a, 4);
	CHECK_U64(n, 1);
	CHECK_STR(a[0].name, "nvme1n1");
	CHECK(fabs(a[0].below_pct - 42.0) < 1e-9);
	CHECK_U64(a[0].rules, 1u << ADR_THROTTLED | 1u << ADR_HOT);
	CHECK_U64(a[0].none, ADN_NONE);
	CHECK(strstr(a[0].text, "drive nvme1n1: 42% below its peers; throttled in the window: "
				"thermal management T1 +3 transitions, 12 s in T1") != NULL);
	CHECK(strstr(a[0].text, "81 C at the close (warning at 75 C)") != NULL);
	CHECK(strstr(a[0].text, "the drive itself") == NULL);
	if (check_failures)
		fprintf(stderr, "%s\n", a[0].text);
}

static void test_low_itself(void)
{
	struct linkload *ll = linkload_new();
	struct result_drive d[3];
	struct attrib_drive a[4];
	int n;

	CHECK(ll != NULL);
	if (!ll)
		return;
	ll->n = 1;
	snprintf(ll->d[0].name, sizeof(ll->d[0].name), "nvme2n1");
	snprintf(ll->d[0].kind, sizeof(ll->d[0].kind), "nvme");
	drive(&d[0], "/dev/nvme0n1", 10000, NULL);
	drive(&d[1], "/dev/nvme1n1", 10000, NULL);
	drive(&d[2], "/dev/nvme2n1", 7000, NULL);
	n = attrib_drives(d, 3, ll, 10, "local", NULL, a, 4);
	CHECK_U64(n, 1);
	CHECK_U64(a[0].rules, 0);
	CHECK_U64(a[0].none, ADN_ITSELF);
	CHECK_STR(a[0].text, "drive nvme2n1: 30% below its peers; no thermal, error or link change "
			     "counted: the drive itself");
	/* its link not watched on this side (a source's drive at the sink): said */
	n = attrib_drives(d, 3, NULL, 10, "local", NULL, a, 4);
	CHECK_U64(a[0].none, ADN_NO_LINK);
	CHECK(strstr(a[0].text, "(its link not watched on this side): the drive itself") != NULL);
	/* its log not read: never "the drive itself" */
	health_watch_set(&d[2].health, NULL, NULL, NULL,
			 "not read: needs CAP_SYS_ADMIN (/dev/nvme9)");
	n = attrib_drives(d, 3, ll, 10, "local", NULL, a, 4);
	CHECK_U64(n, 1);
	CHECK_U64(a[0].none, ADN_NOT_READ);
	CHECK_STR(a[0].text,
		  "drive nvme2n1: 30% below its peers; its health log was not read (not "
		  "read: needs CAP_SYS_ADMIN (/dev/nvme9)): whether it throttled cannot be "
		  "told");
	/* 5% below: within the noise, not named */
	drive(&d[2], "/dev/nvme2n1", 9500, NULL);
	CHECK_U64(attrib_drives(d, 3, ll, 10, "local", NULL, a, 4), 0);
	linkload_free(ll);
}

static void test_not_low_but_named(void)
{
	struct health_log warned = {.composite_k = 313,
				    .spare_pct = 100,
				    .spare_threshold_pct = 10,
				    .critical_warning = HEALTH_CW_RELIABILITY};
	double fell[4] = {1e9, 1e9, 0.2e9, 1e9};
	struct result_drive d[2];
	struct attrib_drive a[4];
	int n;

	drive(&d[0], "/dev/nvme0n1", 10000, &warned);
	drive(&d[1], "/dev/nvme1n1", 10000, NULL);
	window_shape(fell, 4, 10, &d[1].shape);
	n = attrib_drives(d, 2, NULL, 10, "local", NULL, a, 4);
	CHECK_U64(n, 2);
	CHECK_U64(a[0].rules, 1u << ADR_CRITICAL);
	CHECK(isnan(a[0].below_pct));
	CHECK(strstr(a[0].text, "drive nvme0n1: ") == a[0].text);
	CHECK(strstr(a[0].text, "reliability") != NULL);
	CHECK_U64(a[1].rules, 1u << ADR_UNSTEADY);
	CHECK(strstr(a[1].text, "drive nvme1n1: unsteady window: ") == a[1].text);
	CHECK(strstr(a[1].text, "under half the median") != NULL);
	if (check_failures)
		fprintf(stderr, "%s\n%s\n", a[0].text, a[1].text);
}

static void test_json(void)
{
	struct health_log hot = {.composite_k = 354,
				 .spare_pct = 100,
				 .spare_threshold_pct = 10,
				 .tmt_transitions = {3, 0},
				 .tmt_seconds = {12, 0}};
	struct result_drive d[2];
	struct attrib_drive a[2];
	struct report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	drive(&d[0], "/dev/nvme0n1", 10000, NULL);
	drive(&d[1], "/dev/nvme1n1", 10000, &hot);
	n = attrib_drives(d, 2, NULL, 10, "rdma", "10.0.0.2", a, 2);
	report_init(&r, f, true, false);
	report_obj_begin(&r, NULL);
	attrib_drives_print(&r, a, n);
	report_obj_end(&r);
	report_finish(&r);
	fclose(f);
	CHECK(strstr(buf, "\"drive_attribution\": [\n    {\n      \"path\": \"/dev/nvme1n1\",\n"
			  "      \"side\": \"rdma\",\n      \"source\": \"10.0.0.2\",\n"
			  "      \"below_peers_pct\": null,\n      \"rules\": [\n        {\n"
			  "          \"rule\": \"throttled\",") != NULL);
	CHECK(strstr(buf, "\"rule\": \"crossed_warning_temperature\"") != NULL);
	CHECK(strstr(buf,
		     "\"none_fired\": null,\n      \"text\": \"drive nvme1n1 of source 10.0.0.2: "
		     "throttled in the window") != NULL);
	if (check_failures)
		fprintf(stderr, "%s\n", buf);
	free(buf);
}

/*
 * A source's drive named with the sink's own drive's path that throttled: named as the
 * source's (its side, its source, "of source"), the sink's own drive of that path not.
 */
static void test_a_sources_word_is_its_own(void)
{
	struct health_log hot = {.composite_k = 354,
				 .spare_pct = 100,
				 .spare_threshold_pct = 10,
				 .tmt_transitions = {3, 0},
				 .tmt_seconds = {12, 0}};
	struct result_drive src, mine;
	struct attrib_drive a[4];
	int n;

	drive(&src, "/dev/nvme0n1", 10000, &hot);
	drive(&mine, "/dev/nvme0n1", 10000, NULL);
	n = attrib_drives(&src, 1, NULL, 10, "rdma", "10.0.0.2", a, 4);
	n += attrib_drives(&mine, 1, NULL, 10, "local", NULL, a + n, 4 - n);
	CHECK_U64(n, 1);
	CHECK_STR(a[0].side, "rdma");
	CHECK_STR(a[0].source, "10.0.0.2");
	CHECK(strstr(a[0].text, "drive nvme0n1 of source 10.0.0.2: throttled in the window") ==
	      a[0].text);
	if (check_failures)
		fprintf(stderr, "%s\n", a[0].text);
}

int main(void)
{
	test_low_throttled();
	test_low_itself();
	test_not_low_but_named();
	test_json();
	test_a_sources_word_is_its_own();
	return check_done("test_attrib_drive");
}
