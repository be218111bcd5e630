/* SPDX-License-Identifier: MIT */
/*
 * health.h: a drive's own account of itself, the NVMe SMART / Health
 * Information log (log page 02h) and the temperature thresholds of its
 * controller (Identify Controller WCTEMP / CCTEMP), read before and after a
 * measured window and compared.
 *
 * The parsers are pure (tested on fixture pages); health_read() is the one
 * call that talks to a controller: two admin commands that only read (Get
 * Log Page, Identify) through the kernel's passthrough on the controller's
 * character device, opened O_RDONLY. No feature is set, nothing is written.
 */
#ifndef NBW_HEALTH_H
#define NBW_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEALTH_LOG_LEN 512     /* the SMART / Health Information log page */
#define HEALTH_IDCTRL_LEN 4096 /* the Identify Controller data structure */
#define HEALTH_SENSORS 8

/* Critical Warning bits (byte 0 of the log page). */
enum health_warning {
	HEALTH_CW_SPARE = 1u << 0,	     /* available spare below its threshold */
	HEALTH_CW_TEMPERATURE = 1u << 1,     /* a temperature beyond a threshold */
	HEALTH_CW_RELIABILITY = 1u << 2,     /* NVM subsystem reliability degraded */
	HEALTH_CW_READ_ONLY = 1u << 3,	     /* media placed in read-only mode */
	HEALTH_CW_VOLATILE_BACKUP = 1u << 4, /* volatile memory backup failed */
	HEALTH_CW_PMR_READ_ONLY = 1u << 5,   /* persistent memory region read-only */
};

/* One reading of the log page (temperatures in kelvin; 0 = not reported). */
struct health_log {
	uint8_t critical_warning;
	uint16_t composite_k;
	uint8_t spare_pct, spare_threshold_pct, used_pct;
	uint64_t data_units_read; /* 128-bit counters saturate at UINT64_MAX */
	uint64_t data_units_written;
	uint64_t busy_minutes;
	uint64_t power_on_hours;
	uint64_t unsafe_shutdowns;
	uint64_t media_errors;
	uint64_t error_log_entries;
	uint32_t warning_temp_minutes;	/* time above the warning threshold */
	uint32_t critical_temp_minutes; /* time above the critical threshold */
	uint16_t sensor_k[HEALTH_SENSORS];
	uint32_t tmt_transitions[2]; /* thermal management temperature 1 and 2 */
	uint32_t tmt_seconds[2];
};

/* The controller's thresholds (kelvin, 0 = not reported). */
struct health_limits {
	uint16_t warning_k;  /* WCTEMP */
	uint16_t critical_k; /* CCTEMP */
};

/*
 * What moved between two readings. A counter that went backwards (a reset, a
 * replaced or lying device) is not a delta: its bit is set in `backwards`
 * and its delta left 0.
 */
enum health_counter {
	HC_MEDIA_ERRORS,
	HC_ERROR_LOG,
	HC_WARNING_TIME,
	HC_CRITICAL_TIME,
	HC_TMT1_TRANSITIONS,
	HC_TMT2_TRANSITIONS,
	HC_TMT1_SECONDS,
	HC_TMT2_SECONDS,
	HC_COUNT
};

struct health_delta {
	uint64_t moved[HC_COUNT];
	unsigned backwards;	    /* 1 << enum health_counter */
	uint8_t new_warnings;	    /* critical warning bits set after, not before */
	uint8_t warnings;	    /* critical warning bits set after */
	uint16_t before_k, after_k; /* composite temperature at each end */
};

/* Verdicts on a window, as bits (a drive may be several at once). */
enum health_finding {
	HF_THROTTLED = 1u << 0,	   /* a thermal management transition or time */
	HF_HOT = 1u << 1,	   /* at or above the warning threshold, or time there */
	HF_CRITICAL = 1u << 2,	   /* a critical warning bit set at the close */
	HF_MEDIA_ERRORS = 1u << 3, /* new media and data integrity errors */
	HF_ERROR_LOG = 1u << 4,	   /* new error log entries */
	HF_BACKWARDS = 1u << 5,	   /* a counter went backwards: not trusted */
	HF_WORN = 1u << 6,	   /* spare below threshold or 100% used */
};

/* Parse a log page; 0, or -EINVAL with the reason in why (short, another
 * size, all 0xFF, all zero: no log). */
int health_parse_log(const uint8_t *page, size_t len, struct health_log *out, char *why,
		     size_t whylen);

/* WCTEMP and CCTEMP from an Identify Controller structure; 0 or -EINVAL. */
int health_parse_limits(const uint8_t *idctrl, size_t len, struct health_limits *out, char *why,
			size_t whylen);

void health_compare(const struct health_log *before, const struct health_log *after,
		    struct health_delta *d);

/* The findings (enum health_finding bits) of a window. */
unsigned health_findings(const struct health_delta *d, const struct health_log *after,
			 const struct health_limits *lim);

/* Names of a delta's counters and of the critical warning bits (JSON keys). */
const char *health_counter_name(enum health_counter c);
const char *health_warning_name(unsigned bit);
const char *health_finding_name(unsigned bit);

/* Kelvin to whole degrees Celsius (rounded), for the text. */
int health_celsius(uint16_t kelvin);

/*
 * One line of what moved or is out of bounds, without the drive's name:
 * "throttled in the window: thermal management T1 +3 transitions, 12 s in
 * T1; 81 C at the close (warning at 75 C)". "" when nothing moved and
 * nothing is out of bounds. Returns the length written.
 */
size_t health_describe(const struct health_delta *d, const struct health_log *after,
		       const struct health_limits *lim, char *buf, size_t len);

/* The current reading in one phrase (nvme_link_probe's): "41 C, spare 100%, 3% used, no warning".
 */
size_t health_summary(const struct health_log *log, const struct health_limits *lim, char *buf,
		      size_t len);

/*
 * Read the log page and the thresholds of the controller whose character
 * device is ctrl_dev ("/dev/nvme0"), opened O_RDONLY. Returns 0, or -errno
 * with the reason in why ("needs CAP_SYS_ADMIN" for EACCES/EPERM). lim may
 * be NULL; its read failing leaves it zeroed without failing the call.
 */
int health_read(const char *ctrl_dev, struct health_log *log, struct health_limits *lim, char *why,
		size_t whylen);

#endif
