// SPDX-License-Identifier: MIT
/*
 * test_health.c: the NVMe health log's parser, comparison, findings and
 * one-line description (common/storage/health.c) on the fixture pages of
 * tests/fixtures/nvme/ (their README says what each holds), and a drive's
 * log around a window as the tools print it (common/storage/health_watch.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "health.h"
#include "health_watch.h"
#include "report.h"

static const char *fixture_dir(void)
{
	const char *top = getenv("abs_top_srcdir");

	return top ? top : ".";
}

/* Load a sparse page ("len N", "fill XX", "@OFF XX ..."); returns its length or -1. */
static long load(const char *name, uint8_t *buf, size_t cap)
{
	char path[4096], line[1024];
	long len = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/nvme/%s", fixture_dir(), name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		unsigned long off, v;

		if (sscanf(line, "len %ld", &len) == 1) {
			if (len < 0 || (size_t)len > cap)
				len = -1;
			else
				memset(buf, 0, (size_t)len);
		} else if (sscanf(line, "fill %lx", &v) == 1 && len > 0) {
			memset(buf, (int)v, (size_t)len);
		} else if (line[0] == '@' && len > 0) {
			off = strtoul(p + 1, &end, 10);
			for (p = end; (v = strtoul(p, &end, 16)), end != p; p = end)
				if (off < (unsigned long)len)
					buf[off++] = (uint8_t)v;
		}
	}
	fclose(f);
	return len;
}

static int parse(const char *name, struct health_log *h, char *why, size_t whylen)
{
	static uint8_t buf[8192];
	long len = load(name, buf, sizeof(buf));

	CHECK(len >= 0);
	return health_parse_log(buf, len < 0 ? 0 : (size_t)len, h, why, whylen);
}

static void limits(struct health_limits *lim)
{
	static uint8_t buf[8192];
	char why[200] = "";
	long len = load("idctrl.page", buf, sizeof(buf));

	CHECK_U64(health_parse_limits(buf, (size_t)len, lim, why, sizeof(why)), 0);
	CHECK_U64(lim->warning_k, 348);
	CHECK_U64(lim->critical_k, 358);
	CHECK_U64(health_celsius(lim->warning_k), 75);
}

static void healthy_case(const struct health_limits *lim)
{
	struct health_log h;
	struct health_delta d;
	char why[200] = "", text[400];

	CHECK_U64(parse("healthy.page", &h, why, sizeof(why)), 0);
	CHECK_U64(h.critical_warning, 0);
	CHECK_U64(h.composite_k, 310);
	CHECK_U64(health_celsius(h.composite_k), 37);
	CHECK_U64(h.spare_pct, 100);
	CHECK_U64(h.spare_threshold_pct, 10);
	CHECK_U64(h.used_pct, 3);
	CHECK_U64(h.data_units_read, 1000000);
	CHECK_U64(h.power_on_hours, 1234);
	CHECK_U64(h.error_log_entries, 7);
	CHECK_U64(h.sensor_k[0], 312);
	CHECK_U64(h.sensor_k[1], 0);
	health_compare(&h, &h, &d);
	CHECK_U64(health_findings(&d, &h, lim), 0);
	CHECK_U64(health_describe(&d, &h, lim, text, sizeof(text)), 0);
	CHECK_STR(text, "");
}

static void throttle_case(const struct health_limits *lim)
{
	struct health_log before, after;
	struct health_delta d;
	char why[200] = "", text[400];
	unsigned f;

	CHECK_U64(parse("throttle_before.page", &before, why, sizeof(why)), 0);
	CHECK_U64(parse("throttle_after.page", &after, why, sizeof(why)), 0);
	CHECK_U64(after.tmt_transitions[0], 8);
	CHECK_U64(after.tmt_seconds[0], 112);
	CHECK_U64(after.warning_temp_minutes, 11);
	health_compare(&before, &after, &d);
	CHECK_U64(d.moved[HC_TMT1_TRANSITIONS], 3);
	CHECK_U64(d.moved[HC_TMT1_SECONDS], 12);
	CHECK_U64(d.moved[HC_WARNING_TIME], 1);
	CHECK_U64(d.moved[HC_TMT2_TRANSITIONS], 0);
	f = health_findings(&d, &after, lim);
	CHECK_U64(f, HF_THROTTLED | HF_HOT);
	health_describe(&d, &after, lim, text, sizeof(text));
	CHECK_STR(text,
		  "throttled in the window: thermal management T1 +3 transitions, 12 s in T1; "
		  "1 min above the warning temperature; 81 C at the close (warning at 75 C)");
	/* Without the controller's thresholds the close's temperature is not judged. */
	health_describe(&d, &after, NULL, text, sizeof(text));
	CHECK_STR(text,
		  "throttled in the window: thermal management T1 +3 transitions, 12 s in T1; "
		  "1 min above the warning temperature");
	/* A buffer too small is cut, never overrun. */
	CHECK(health_describe(&d, &after, lim, text, 20) == 19);
	CHECK_U64(strlen(text), 19);
}

static void critical_case(const struct health_limits *lim)
{
	struct health_log healthy, crit;
	struct health_delta d;
	char why[200] = "", text[400];

	CHECK_U64(parse("healthy.page", &healthy, why, sizeof(why)), 0);
	CHECK_U64(parse("critical.page", &crit, why, sizeof(why)), 0);
	CHECK_U64(crit.critical_warning, HEALTH_CW_TEMPERATURE | HEALTH_CW_RELIABILITY);
	CHECK_U64(crit.media_errors, 2);
	health_compare(&healthy, &crit, &d);
	CHECK_U64(d.new_warnings, HEALTH_CW_TEMPERATURE | HEALTH_CW_RELIABILITY);
	CHECK_U64(d.moved[HC_MEDIA_ERRORS], 2);
	CHECK_U64(d.moved[HC_ERROR_LOG], 1);
	CHECK_U64(health_findings(&d, &crit, lim), HF_CRITICAL | HF_MEDIA_ERRORS | HF_ERROR_LOG);
	health_describe(&d, &crit, lim, text, sizeof(text));
	CHECK_STR(text, "critical warning: temperature (new), reliability_degraded (new); "
			"media errors +2; error log +1 entry");
	/* A warning present before and after is named, not called new. */
	health_compare(&crit, &crit, &d);
	health_describe(&d, &crit, lim, text, sizeof(text));
	CHECK_STR(text, "critical warning: temperature, reliability_degraded");
}

static void backwards_and_worn(const struct health_limits *lim)
{
	struct health_log healthy, back, worn;
	struct health_delta d;
	char why[200] = "", text[400];

	CHECK_U64(parse("healthy.page", &healthy, why, sizeof(why)), 0);
	CHECK_U64(parse("backwards.page", &back, why, sizeof(why)), 0);
	health_compare(&healthy, &back, &d);
	CHECK_U64(d.backwards, 1u << HC_ERROR_LOG);
	CHECK_U64(d.moved[HC_ERROR_LOG], 0);
	CHECK_U64(health_findings(&d, &back, lim), HF_BACKWARDS);
	health_describe(&d, &back, lim, text, sizeof(text));
	CHECK_STR(text, "counters went backwards (not trusted): error_log_entries");

	CHECK_U64(parse("worn.page", &worn, why, sizeof(why)), 0);
	health_compare(&worn, &worn, &d);
	CHECK_U64(health_findings(&d, &worn, lim), HF_CRITICAL | HF_WORN);
	health_describe(&d, &worn, lim, text, sizeof(text));
	CHECK_STR(text,
		  "critical warning: spare_below_threshold; spare 5% (threshold 10%), 100% used");
}

static void bad_pages(void)
{
	struct health_log h;
	char why[200];
	uint8_t zero[HEALTH_LOG_LEN] = {0};

	CHECK_U64(parse("short.page", &h, why, sizeof(why)), (uint64_t)-EINVAL);
	CHECK_STR(why, "health log: short, 200 of 512 bytes");
	CHECK_U64(parse("large.page", &h, why, sizeof(why)), (uint64_t)-EINVAL);
	CHECK_STR(why, "health log: 4096 bytes, expected 512");
	CHECK_U64(parse("ones.page", &h, why, sizeof(why)), (uint64_t)-EINVAL);
	CHECK_STR(why, "health log: every byte 0xFF (no page from the controller)");
	CHECK_U64(health_parse_log(zero, sizeof(zero), &h, why, sizeof(why)), (uint64_t)-EINVAL);
	CHECK_STR(why, "health log: every byte zero (no page from the controller)");
	zero[5] = 1; /* something, but no composite temperature */
	CHECK_U64(health_parse_log(zero, sizeof(zero), &h, why, sizeof(why)), (uint64_t)-EINVAL);
	CHECK_STR(why, "health log: composite temperature 0 K (not a health log)");
	CHECK_U64(health_parse_log(NULL, 0, &h, why, sizeof(why)), (uint64_t)-EINVAL);
	CHECK_STR(why, "health log: short, 0 of 512 bytes");
}

static void saturating_counters(void)
{
	uint8_t page[HEALTH_LOG_LEN] = {0};
	struct health_log h;
	char why[200];

	page[1] = 0x36;
	page[2] = 0x01;
	page[160 + 8] = 1; /* media errors = 2^64: beyond 64 bits */
	page[176] = 0xff;
	page[177] = 0xff; /* error log entries 65535 */
	CHECK_U64(health_parse_log(page, sizeof(page), &h, why, sizeof(why)), 0);
	CHECK_U64(h.media_errors, UINT64_MAX);
	CHECK_U64(h.error_log_entries, 65535);
}

static void names(void)
{
	CHECK_STR(health_counter_name(HC_TMT2_SECONDS), "tmt2_seconds");
	CHECK_STR(health_counter_name(HC_COUNT), "?");
	CHECK_STR(health_warning_name(HEALTH_CW_READ_ONLY), "read_only");
	CHECK_STR(health_warning_name(1u << 7), "reserved");
	CHECK_STR(health_finding_name(HF_THROTTLED), "throttled");
}

static void read_errors(void)
{
	struct health_log h;
	char why[200] = "";

	CHECK_U64(health_read("/nonexistent/nvme0", &h, NULL, why, sizeof(why)), (uint64_t)-ENOENT);
	CHECK_STR(why, "not read: /nonexistent/nvme0: No such file or directory");
	/* Not a controller: the passthrough ioctl is refused, the reason says so. */
	CHECK(health_read("/dev/null", &h, NULL, why, sizeof(why)) < 0);
	CHECK_STR(why, "not read: /dev/null is not an NVMe controller");
}

/* Print hw as JSON or text into buf through the report module. */
static void watch_out(const struct health_watch *hw, bool json, char *buf, size_t len)
{
	struct report r;
	FILE *f;

	memset(buf, 0, len);
	f = fmemopen(buf, len, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	report_init(&r, f, json, false);
	if (json) {
		health_watch_json(&r, hw);
	} else {
		health_watch_text(&r, hw, "nvme1n1", " ");
	}
	report_finish(&r);
	fclose(f);
}

/* JSON without its white space, to look for a piece of it. */
static void squeeze(char *s)
{
	char *w = s;

	for (; *s; s++)
		if (*s != ' ' && *s != '\n')
			*w++ = *s;
	*w = '\0';
}

/* A throttling drive around a window: JSON with both readings and the deltas; text the line. */
static void watch_case(const struct health_limits *lim)
{
	struct health_log before, after;
	struct health_watch hw;
	struct drive d = {
		.path = "/dev/nvme1n1", .name = "nvme1n1", .kind = DRIVE_NVME, .ctrl = "nvme1"};
	char why[200] = "", out[4096];

	CHECK_U64(parse("throttle_before.page", &before, why, sizeof(why)), 0);
	CHECK_U64(parse("throttle_after.page", &after, why, sizeof(why)), 0);
	health_watch_init(&hw, &d, "/nonexistent");
	CHECK_STR(hw.ctrl_dev, "/dev/nvme1");
	CHECK_U64(hw.namespaces, 0);
	health_watch_set(&hw, &before, &after, lim, NULL);
	CHECK_U64(hw.findings, HF_THROTTLED | HF_HOT);
	watch_out(&hw, false, out, sizeof(out));
	CHECK_STR(out, " nvme1n1: throttled in the window: thermal management T1 +3 transitions, "
		       "12 s in T1; 1 min above the warning temperature; 81 C at the close "
		       "(warning at 75 C)\n");
	/* Two namespaces on the controller: the text says its log counts both. */
	hw.namespaces = 2;
	watch_out(&hw, false, out, sizeof(out));
	CHECK(strstr(out, "(controller nvme1: its log counts its 2 namespaces together)\n") !=
	      NULL);
	watch_out(&hw, true, out, sizeof(out));
	CHECK(strstr(out, "\"log_read\": true") != NULL);
	CHECK(strstr(out, "\"controller_namespaces\": 2") != NULL);
	CHECK(strstr(out, "\"warning_temp_c\": 75") != NULL);
	CHECK(strstr(out, "\"tmt1_transitions\": 3") != NULL); /* the delta */
	CHECK(strstr(out, "\"tmt1_transitions\": 8") != NULL); /* the reading after */
	squeeze(out);
	CHECK(strstr(out, "\"findings\":[\"throttled\",\"hot\"]") != NULL);
	/* Not read: the reason, no reading, no zeros; the text names it for an NVMe drive. */
	health_watch_init(&hw, &d, "/nonexistent");
	health_watch_set(&hw, NULL, NULL, NULL, "not read: needs CAP_SYS_ADMIN (/dev/nvme1)");
	watch_out(&hw, true, out, sizeof(out));
	CHECK(strstr(out, "\"log_read\": false") != NULL);
	CHECK(strstr(out, "\"before\"") == NULL && strstr(out, "\"deltas\"") == NULL);
	watch_out(&hw, false, out, sizeof(out));
	CHECK_STR(out, " nvme1n1: health not read: needs CAP_SYS_ADMIN (/dev/nvme1)\n");
	/* A file: no controller, the reason in JSON, nothing in the text. */
	d = (struct drive){.path = "/tmp/x.img", .name = "x.img", .kind = DRIVE_FILE};
	health_watch_init(&hw, &d, "/nonexistent");
	health_watch_read(&hw, false);
	CHECK_STR(hw.why, "not read: /tmp/x.img is a regular file");
	watch_out(&hw, false, out, sizeof(out));
	CHECK_STR(out, "");
	/* A controller that cannot be opened: the reason, and the after-reading is not tried. */
	d = (struct drive){
		.path = "/dev/nvme9n1", .name = "nvme9n1", .kind = DRIVE_NVME, .ctrl = "nvme9"};
	health_watch_init(&hw, &d, "/nonexistent");
	snprintf(hw.ctrl_dev, sizeof(hw.ctrl_dev), "/nonexistent/nvme9");
	health_watch_read(&hw, false);
	health_watch_read(&hw, true);
	CHECK(!hw.have_before && !hw.have_after);
	CHECK_STR(hw.why, "not read: /nonexistent/nvme9: No such file or directory");
}

/* Print a controller's log now (health_now_json) as JSON or text into buf. */
static void now_out(const struct health_log *h, const struct health_limits *lim, bool json,
		    char *buf, size_t len)
{
	struct report r;
	FILE *f;

	memset(buf, 0, len);
	f = fmemopen(buf, len, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	report_init(&r, f, json, false);
	report_obj_begin(&r, NULL);
	health_now_json(&r, h, lim, "not read: not this machine's sysfs");
	report_obj_end(&r);
	report_finish(&r);
	fclose(f);
}

/* nvme_link_probe's "health": the reading now, every key; its text line; not read. */
static void now_case(const struct health_limits *lim)
{
	struct health_log h;
	struct health_limits none = {0, 0};
	char why[200] = "", out[4096];

	CHECK_U64(parse("healthy.page", &h, why, sizeof(why)), 0);
	now_out(&h, lim, true, out, sizeof(out));
	squeeze(out);
	CHECK_STR(out, "{\"health\":{\"log_read\":true,\"why\":null,\"temperature_c\":37,"
		       "\"warning_temp_c\":75,\"critical_warning\":0,\"warnings\":[],"
		       "\"available_spare_pct\":100,\"percentage_used\":3,\"media_errors\":0,"
		       "\"summary\":\"37C(warningat75C),spare100%,3%used,nocriticalwarning\"}}");
	now_out(&h, lim, false, out, sizeof(out));
	CHECK_STR(out, "    health 37 C (warning at 75 C), spare 100%, 3% used, no critical "
		       "warning\n");
	CHECK_U64(parse("critical.page", &h, why, sizeof(why)), 0);
	now_out(&h, &none, true, out, sizeof(out));
	squeeze(out);
	CHECK(strstr(out, "\"warning_temp_c\":null,") != NULL);
	CHECK(strstr(out, "\"warnings\":[\"temperature\",\"reliability_degraded\"]") != NULL);
	now_out(NULL, lim, true, out, sizeof(out));
	squeeze(out);
	CHECK_STR(out,
		  "{\"health\":{\"log_read\":false,\"why\":\"notread:notthismachine'ssysfs\"}}");
	now_out(NULL, lim, false, out, sizeof(out));
	CHECK_STR(out, "");
}

/* The current reading in one phrase (nvme_link_probe's column). */
static void summary_case(const struct health_limits *lim)
{
	struct health_log h;
	char why[200] = "", text[200];

	CHECK_U64(parse("healthy.page", &h, why, sizeof(why)), 0);
	health_summary(&h, lim, text, sizeof(text));
	CHECK_STR(text, "37 C (warning at 75 C), spare 100%, 3% used, no critical warning");
	CHECK_U64(parse("critical.page", &h, why, sizeof(why)), 0);
	health_summary(&h, NULL, text, sizeof(text));
	CHECK(strstr(text,
		     ", critical warning temperature, critical warning reliability_degraded") !=
	      NULL);
}

/*
 * Real pages: QEMU's emulated nvme in the lab (tests/lab/drive_health.sh), one with
 * smart_critical_warning=4, one whose over-temperature threshold the harness lowered.
 */
static void qemu_case(const struct health_limits *lim)
{
	struct health_log h;
	struct health_delta d;
	char why[200] = "", text[400];

	CHECK_U64(parse("qemu_reliability.page", &h, why, sizeof(why)), 0);
	CHECK_U64(h.critical_warning, HEALTH_CW_RELIABILITY);
	CHECK_U64(h.composite_k, 323);
	CHECK_U64(health_celsius(h.composite_k), 50);
	CHECK_U64(h.spare_pct, 0);
	CHECK_U64(h.spare_threshold_pct, 0);
	CHECK_U64(h.used_pct, 0);
	CHECK_U64(h.data_units_read, 1);
	CHECK_U64(h.media_errors, 0);
	health_compare(&h, &h, &d);
	CHECK_U64(health_findings(&d, &h, lim), HF_CRITICAL);
	health_describe(&d, &h, lim, text, sizeof(text));
	CHECK(strstr(text, "critical warning: reliability_degraded") != NULL);
	CHECK(strstr(text, "(new)") == NULL); /* set at boot: before the window too */
	CHECK_U64(parse("qemu_temperature.page", &h, why, sizeof(why)), 0);
	CHECK_U64(h.critical_warning, HEALTH_CW_TEMPERATURE);
	health_compare(&h, &h, &d);
	/* 50 C is under the warning temperature (75 C): the warning bit alone, not "hot" */
	CHECK_U64(health_findings(&d, &h, lim), HF_CRITICAL);
	health_describe(&d, &h, lim, text, sizeof(text));
	CHECK(strstr(text, "critical warning: temperature") != NULL);
	if (check_failures)
		fprintf(stderr, "%s\n", text);
}

int main(void)
{
	struct health_limits lim;

	limits(&lim);
	healthy_case(&lim);
	throttle_case(&lim);
	critical_case(&lim);
	backwards_and_worn(&lim);
	bad_pages();
	saturating_counters();
	names();
	read_errors();
	watch_case(&lim);
	summary_case(&lim);
	now_case(&lim);
	qemu_case(&lim);
	return check_done("test_health");
}
