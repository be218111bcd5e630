/* SPDX-License-Identifier: MIT */
/*
 * parse.h: the one parser for sizes, durations, counts and lists that every
 * tool's options go through. Each returns 0 or a negative errno:
 * -EINVAL for malformed text, -ERANGE for a value outside its bounds.
 */
#ifndef NBW_PARSE_H
#define NBW_PARSE_H

#include <stdint.h>

/*
 * Size grammar: DIGITS [UNIT], no sign, no fraction, no spaces.
 *   UNIT    = "" | "B"              bytes
 *           | K|M|G|T|P ["iB"]     binary: 1K = 1KiB = 1024, 16G = 2^34
 *           | K|M|G|T|P "B"        decimal: 1KB = 1000, 1MB = 10^6
 * Unit letters are case-insensitive ("1m" = "1M"; "1mb" = 10^6).
 * Overflow of 64 bits is -ERANGE.
 */
int parse_size(const char *s, uint64_t *out);

/*
 * Duration grammar: NUMBER [UNIT], NUMBER a non-negative decimal: digits with
 * an optional fraction ("2", "0.5", ".5"; no sign, exponent or hex), UNIT one
 * of "" or "s" (seconds), "ms", "m" (minutes), "h". Result in seconds; more
 * than 366 days is -ERANGE.
 */
int parse_duration(const char *s, double *out);

/* Decimal unsigned integer in [min, max]. */
int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);

/*
 * Split a comma-separated list in place: fills items[] with pointers into s,
 * returns the count, -EINVAL on an empty item, -E2BIG beyond max items.
 */
int parse_list(char *s, char **items, int max);

/* Format a byte count the way the grammar reads it back ("1MiB", "4096B", "1.5GiB"). */
const char *format_size(uint64_t bytes, char *buf, unsigned len);

#endif
