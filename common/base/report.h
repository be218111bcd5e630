/* SPDX-License-Identifier: MIT */
/*
 * report.h: the single printer behind every tool's output. Each value is
 * handed over once, with its JSON key and its text format; in text mode the
 * format is used (NULL = not shown in text), in JSON mode the key. Text and
 * JSON therefore cannot drift apart.
 *
 *	report_obj_begin(r, "total");
 *	report_u64(r, "bytes", NULL, bytes);
 *	report_bw(r, "gb_per_s", "%10.2f", bytes_per_s);
 *	report_obj_end(r);
 */
#ifndef NBW_REPORT_H
#define NBW_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nbw.h"

#define REPORT_MAX_DEPTH 16

struct report {
	FILE *out;
	bool json;
	bool gbits; /* text bandwidth in Gb/s (10^9 bits) instead of GB/s */
	int depth;
	bool first[REPORT_MAX_DEPTH]; /* no member written yet at this depth */
	bool in_array[REPORT_MAX_DEPTH];
};

void report_init(struct report *r, FILE *out, bool json, bool gbits);
/* Terminate the document (a newline after the top-level JSON value). */
void report_finish(struct report *r);

/*
 * key is ignored inside an array and at the top level. A scalar with a NULL
 * key inside an object is text-only (a derived column such as a percentage).
 */
void report_obj_begin(struct report *r, const char *key);
void report_obj_end(struct report *r);
void report_arr_begin(struct report *r, const char *key);
void report_arr_end(struct report *r);

/* A NULL string is JSON null and prints as "-" in text. */
void report_str(struct report *r, const char *key, const char *textfmt, const char *val);
void report_u64(struct report *r, const char *key, const char *textfmt, uint64_t val);
void report_i64(struct report *r, const char *key, const char *textfmt, int64_t val);
/* A non-finite value (NAN) is JSON null and prints as "-" in text. */
void report_double(struct report *r, const char *key, const char *textfmt, double val);
/*
 * The same with a fixed number of decimals in JSON ("%.*f" instead of "%.6g"),
 * for a value whose digits all count (Unix seconds: 1767261603.250).
 */
void report_fixed(struct report *r, const char *key, const char *textfmt, double val, int decimals);
void report_bool(struct report *r, const char *key, const char *textfmt, bool val);
void report_null(struct report *r, const char *key, const char *textfmt);

/*
 * Bandwidth: JSON always gets 10^9 bytes/s under key; text gets GB/s or, with
 * gbits, Gb/s; textfmt is a double format such as "%9.2f" (a figure under 0.1
 * gets the decimals of report_decimals: 0.0042, not 0.00).
 */
void report_bw(struct report *r, const char *key, const char *textfmt, double bytes_per_s);
/*
 * The decimals a text figure v is printed with: decimals, or more when 0 < |v| < 0.1
 * so that it keeps two significant digits (0.0042 GB/s, not 0.00; at most 9).
 */
int report_decimals(double v, int decimals);

/* "GB/s" or "Gb/s", for table headings. */
const char *report_bw_unit(const struct report *r);

struct lathist;
/*
 * A latency histogram (lathist.h) as "latency_us" {count, min, p50, ..., max,
 * mean} in microseconds, and in text " LABEL latency us: min .. p50 .. max ..
 * mean ..\n"; nothing for NULL (not timed), nulls / dashes for no values.
 */
void report_latency(struct report *r, const struct lathist *h, const char *label);

/* Text-only output (headings, separators, newlines); nothing in JSON mode. */
void report_text(struct report *r, const char *fmt, ...) NBW_PRINTF(2, 3);

/* Write s as a JSON string literal, quotes included. */
void json_write_string(FILE *out, const char *s);

#endif
