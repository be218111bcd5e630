// SPDX-License-Identifier: MIT
/*
 * health.c: the NVMe SMART / Health Information log (log page 02h) and the
 * controller's temperature thresholds: parsed from raw pages, compared
 * across a window and described in one line. Pure: health_read.c reads the
 * pages from a controller.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "health.h"

/* Offsets in the log page (NVM Express Base Specification, log page 02h). */
enum {
	OFF_WARNING = 0,
	OFF_COMPOSITE = 1,
	OFF_SPARE = 3,
	OFF_SPARE_THRESHOLD = 4,
	OFF_USED = 5,
	OFF_UNITS_READ = 32,
	OFF_UNITS_WRITTEN = 48,
	OFF_BUSY = 96,
	OFF_POWER_ON = 128,
	OFF_UNSAFE = 144,
	OFF_MEDIA = 160,
	OFF_ERROR_LOG = 176,
	OFF_WARNING_TIME = 192,
	OFF_CRITICAL_TIME = 196,
	OFF_SENSORS = 200,
	OFF_TMT_TRANSITIONS = 216,
	OFF_TMT_SECONDS = 224,
};

/* Offsets in Identify Controller. */
enum { OFF_WCTEMP = 266, OFF_CCTEMP = 268 };

static void say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A 128-bit little-endian counter, saturated to 64 bits. */
static uint64_t le128_sat(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 8; i < 16; i++)
		if (p[i])
			return UINT64_MAX;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool all_bytes(const uint8_t *p, size_t len, uint8_t value)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != value)
			return false;
	return true;
}

static int check_page(const uint8_t *page, size_t len, size_t want, const char *what, char *why,
		      size_t whylen)
{
	if (!page || len < want) {
		say(why, whylen, "%s: short, %zu of %zu bytes", what, page ? len : 0, want);
		return -EINVAL;
	}
	if (len != want) {
		say(why, whylen, "%s: %zu bytes, expected %zu", what, len, want);
		return -EINVAL;
	}
	if (all_bytes(page, len, 0xff)) {
		say(why, whylen, "%s: every byte 0xFF (no page from the controller)", what);
		return -EINVAL;
	}
	if (all_bytes(page, len, 0)) {
		say(why, whylen, "%s: every byte zero (no page from the controller)", what);
		return -EINVAL;
	}
	return 0;
}

int health_parse_log(const uint8_t *page, size_t len, struct health_log *out, char *why,
		     size_t whylen)
{
	int i, rc;

	rc = check_page(page, len, HEALTH_LOG_LEN, "health log", why, whylen);
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->critical_warning = page[OFF_WARNING];
	out->composite_k = le16(page + OFF_COMPOSITE);
	out->spare_pct = page[OFF_SPARE];
	out->spare_threshold_pct = page[OFF_SPARE_THRESHOLD];
	out->used_pct = page[OFF_USED];
	out->data_units_read = le128_sat(page + OFF_UNITS_READ);
	out->data_units_written = le128_sat(page + OFF_UNITS_WRITTEN);
	out->busy_minutes = le128_sat(page + OFF_BUSY);
	out->power_on_hours = le128_sat(page + OFF_POWER_ON);
	out->unsafe_shutdowns = le128_sat(page + OFF_UNSAFE);
	out->media_errors = le128_sat(page + OFF_MEDIA);
	out->error_log_entries = le128_sat(page + OFF_ERROR_LOG);
	out->warning_temp_minutes = le32(page + OFF_WARNING_TIME);
	out->critical_temp_minutes = le32(page + OFF_CRITICAL_TIME);
	for (i = 0; i < HEALTH_SENSORS; i++)
		out->sensor_k[i] = le16(page + OFF_SENSORS + 2 * i);
	for (i = 0; i < 2; i++) {
		out->tmt_transitions[i] = le32(page + OFF_TMT_TRANSITIONS + 4 * i);
		out->tmt_seconds[i] = le32(page + OFF_TMT_SECONDS + 4 * i);
	}
	if (!out->composite_k) {
		say(why, whylen, "health log: composite temperature 0 K (not a health log)");
		return -EINVAL;
	}
	return 0;
}

int health_parse_limits(const uint8_t *idctrl, size_t len, struct health_limits *out, char *why,
			size_t whylen)
{
	int rc;

	rc = check_page(idctrl, len, HEALTH_IDCTRL_LEN, "identify controller", why, whylen);
	if (rc)
		return rc;
	out->warning_k = le16(idctrl + OFF_WCTEMP);
	out->critical_k = le16(idctrl + OFF_CCTEMP);
	return 0;
}

static void counter(struct health_delta *d, enum health_counter c, uint64_t before, uint64_t after)
{
	if (after < before)
		d->backwards |= 1u << c;
	else
		d->moved[c] = after - before;
}

void health_compare(const struct health_log *before, const struct health_log *after,
		    struct health_delta *d)
{
	memset(d, 0, sizeof(*d));
	counter(d, HC_MEDIA_ERRORS, before->media_errors, after->media_errors);
	counter(d, HC_ERROR_LOG, before->error_log_entries, after->error_log_entries);
	counter(d, HC_WARNING_TIME, before->warning_temp_minutes, after->warning_temp_minutes);
	counter(d, HC_CRITICAL_TIME, before->critical_temp_minutes, after->critical_temp_minutes);
	counter(d, HC_TMT1_TRANSITIONS, before->tmt_transitions[0], after->tmt_transitions[0]);
	counter(d, HC_TMT2_TRANSITIONS, before->tmt_transitions[1], after->tmt_transitions[1]);
	counter(d, HC_TMT1_SECONDS, before->tmt_seconds[0], after->tmt_seconds[0]);
	counter(d, HC_TMT2_SECONDS, before->tmt_seconds[1], after->tmt_seconds[1]);
	d->warnings = after->critical_warning;
	d->new_warnings = after->critical_warning & (uint8_t)~before->critical_warning;
	d->before_k = before->composite_k;
	d->after_k = after->composite_k;
}

unsigned health_findings(const struct health_delta *d, const struct health_log *after,
			 const struct health_limits *lim)
{
	unsigned f = 0;

	if (d->moved[HC_TMT1_TRANSITIONS] || d->moved[HC_TMT2_TRANSITIONS] ||
	    d->moved[HC_TMT1_SECONDS] || d->moved[HC_TMT2_SECONDS])
		f |= HF_THROTTLED;
	if (d->moved[HC_WARNING_TIME] || d->moved[HC_CRITICAL_TIME] ||
	    (lim && lim->warning_k && after->composite_k >= lim->warning_k))
		f |= HF_HOT;
	if (after->critical_warning)
		f |= HF_CRITICAL;
	if (d->moved[HC_MEDIA_ERRORS])
		f |= HF_MEDIA_ERRORS;
	if (d->moved[HC_ERROR_LOG])
		f |= HF_ERROR_LOG;
	if (d->backwards)
		f |= HF_BACKWARDS;
	if (after->spare_pct < after->spare_threshold_pct || after->used_pct >= 100)
		f |= HF_WORN;
	return f;
}

const char *health_counter_name(enum health_counter c)
{
	static const char *const names[HC_COUNT] = {
		[HC_MEDIA_ERRORS] = "media_errors",
		[HC_ERROR_LOG] = "error_log_entries",
		[HC_WARNING_TIME] = "warning_temp_minutes",
		[HC_CRITICAL_TIME] = "critical_temp_minutes",
		[HC_TMT1_TRANSITIONS] = "tmt1_transitions",
		[HC_TMT2_TRANSITIONS] = "tmt2_transitions",
		[HC_TMT1_SECONDS] = "tmt1_seconds",
		[HC_TMT2_SECONDS] = "tmt2_seconds",
	};

	return (unsigned)c < HC_COUNT ? names[c] : "?";
}

const char *health_warning_name(unsigned bit)
{
	switch (bit) {
	case HEALTH_CW_SPARE:
		return "spare_below_threshold";
	case HEALTH_CW_TEMPERATURE:
		return "temperature";
	case HEALTH_CW_RELIABILITY:
		return "reliability_degraded";
	case HEALTH_CW_READ_ONLY:
		return "read_only";
	case HEALTH_CW_VOLATILE_BACKUP:
		return "volatile_backup_failed";
	case HEALTH_CW_PMR_READ_ONLY:
		return "pmr_read_only";
	default:
		return "reserved";
	}
}

const char *health_finding_name(unsigned bit)
{
	switch (bit) {
	case HF_THROTTLED:
		return "throttled";
	case HF_HOT:
		return "hot";
	case HF_CRITICAL:
		return "critical_warning";
	case HF_MEDIA_ERRORS:
		return "media_errors";
	case HF_ERROR_LOG:
		return "error_log";
	case HF_BACKWARDS:
		return "counters_backwards";
	case HF_WORN:
		return "worn";
	default:
		return "?";
	}
}

int health_celsius(uint16_t kelvin)
{
	return (int)kelvin - 273;
}

/* Appends to a line of clauses joined by "; ". */
struct clauses {
	char *buf;
	size_t len, used;
};

static void clause(struct clauses *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->used >= c->len)
		return;
	if (c->used) {
		n = snprintf(c->buf + c->used, c->len - c->used, "; ");
		c->used += n > 0 ? (size_t)n : 0;
		if (c->used >= c->len)
			c->used = c->len - 1;
	}
	va_start(ap, fmt);
	n = vsnprintf(c->buf + c->used, c->len - c->used, fmt, ap);
	va_end(ap);
	c->used += n > 0 ? (size_t)n : 0;
	if (c->used >= c->len)
		c->used = c->len - 1;
}

static void describe_throttle(struct clauses *c, const struct health_delta *d)
{
	char t[160] = "";
	size_t u = 0;
	int i;

	for (i = 0; i < 2; i++) {
		uint64_t tr = d->moved[HC_TMT1_TRANSITIONS + i], s = d->moved[HC_TMT1_SECONDS + i];

		if (!tr && !s)
			continue;
		u += (size_t)snprintf(t + u, sizeof(t) - u, "%s", u ? ", " : "");
		if (tr && u < sizeof(t))
			u += (size_t)snprintf(
				t + u, sizeof(t) - u, "thermal management T%d +%llu transition%s%s",
				i + 1, (unsigned long long)tr, tr == 1 ? "" : "s", s ? ", " : "");
		if (s && u < sizeof(t))
			u += (size_t)snprintf(t + u, sizeof(t) - u, "%llu s in T%d",
					      (unsigned long long)s, i + 1);
		if (u >= sizeof(t))
			break;
	}
	clause(c, "throttled in the window: %s", t);
}

static void describe_warnings(struct clauses *c, const struct health_delta *d)
{
	char t[160] = "";
	size_t u = 0;
	unsigned bit;

	for (bit = 1; bit < 256 && u < sizeof(t); bit <<= 1)
		if (d->warnings & bit)
			u += (size_t)snprintf(t + u, sizeof(t) - u, "%s%s%s", u ? ", " : "",
					      health_warning_name(bit),
					      d->new_warnings & bit ? " (new)" : "");
	clause(c, "critical warning: %s", t);
}

static void describe_backwards(struct clauses *c, const struct health_delta *d)
{
	char t[200] = "";
	size_t u = 0;
	int i;

	for (i = 0; i < HC_COUNT && u < sizeof(t); i++)
		if (d->backwards & (1u << i))
			u += (size_t)snprintf(t + u, sizeof(t) - u, "%s%s", u ? ", " : "",
					      health_counter_name(i));
	clause(c, "counters went backwards (not trusted): %s", t);
}

static void describe_temperature(struct clauses *c, const struct health_delta *d,
				 const struct health_limits *lim)
{
	if (d->moved[HC_CRITICAL_TIME])
		clause(c, "%llu min above the critical temperature",
		       (unsigned long long)d->moved[HC_CRITICAL_TIME]);
	else if (d->moved[HC_WARNING_TIME])
		clause(c, "%llu min above the warning temperature",
		       (unsigned long long)d->moved[HC_WARNING_TIME]);
	if (lim && lim->warning_k && d->after_k >= lim->warning_k)
		clause(c, "%d C at the close (warning at %d C)", health_celsius(d->after_k),
		       health_celsius(lim->warning_k));
}

size_t health_describe(const struct health_delta *d, const struct health_log *after,
		       const struct health_limits *lim, char *buf, size_t len)
{
	struct clauses c = {buf, len, 0};
	unsigned f = health_findings(d, after, lim);

	if (!len)
		return 0;
	buf[0] = '\0';
	if (f & HF_THROTTLED)
		describe_throttle(&c, d);
	if (f & HF_HOT)
		describe_temperature(&c, d, lim);
	if (f & HF_CRITICAL)
		describe_warnings(&c, d);
	if (f & HF_MEDIA_ERRORS)
		clause(&c, "media errors +%llu", (unsigned long long)d->moved[HC_MEDIA_ERRORS]);
	if (f & HF_ERROR_LOG)
		clause(&c, "error log +%llu entr%s", (unsigned long long)d->moved[HC_ERROR_LOG],
		       d->moved[HC_ERROR_LOG] == 1 ? "y" : "ies");
	if (f & HF_WORN)
		clause(&c, "spare %u%% (threshold %u%%), %u%% used", after->spare_pct,
		       after->spare_threshold_pct, after->used_pct);
	if (f & HF_BACKWARDS)
		describe_backwards(&c, d);
	return c.used;
}

size_t health_summary(const struct health_log *log, const struct health_limits *lim, char *buf,
		      size_t len)
{
	size_t off = 0;
	unsigned bit;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (log->composite_k)
		off += (size_t)snprintf(buf, len, "%d C", health_celsius(log->composite_k));
	else
		off += (size_t)snprintf(buf, len, "temperature not reported");
	if (off < len && lim && lim->warning_k)
		off += (size_t)snprintf(buf + off, len - off, " (warning at %d C)",
					health_celsius(lim->warning_k));
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, ", spare %u%%, %u%% used",
					log->spare_pct, log->used_pct);
	if (off < len && !log->critical_warning)
		off += (size_t)snprintf(buf + off, len - off, ", no critical warning");
	for (bit = 1; bit < 0x100 && off < len; bit <<= 1)
		if (log->critical_warning & bit)
			off += (size_t)snprintf(buf + off, len - off, ", critical warning %s",
						health_warning_name(bit));
	return off < len ? off : len - 1;
}
