// SPDX-License-Identifier: MIT
/* parse.c: sizes, durations, counts and lists (grammar in parse.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

/* Reads leading decimal digits; -EINVAL if none, -ERANGE on overflow. */
static int read_digits(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGTP";
	const char *p = s, *u;
	uint64_t v, mult = 1, base = 1024;
	int rc, exp;

	if (!s)
		return -EINVAL;
	rc = read_digits(&p, &v);
	if (rc)
		return rc;
	if (*p == '\0' || ((*p == 'B' || *p == 'b') && p[1] == '\0')) {
		*out = v;
		return 0;
	}
	u = strchr(units, toupper((unsigned char)*p));
	if (!u || *p == '\0')
		return -EINVAL;
	exp = (int)(u - units) + 1;
	p++;
	if (*p == '\0' || strcasecmp(p, "iB") == 0)
		base = 1024;
	else if (strcasecmp(p, "B") == 0)
		base = 1000;
	else
		return -EINVAL;
	while (exp--)
		mult *= base;
	if (v && mult > UINT64_MAX / v)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

/* Length of a decimal number at s ("12", "0.5", ".5"); 0 if there is none. */
static size_t decimal_len(const char *s)
{
	size_t i = 0, digits = 0;

	while (isdigit((unsigned char)s[i]))
		i++, digits++;
	if (s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++, digits++;
	}
	return digits ? i : 0;
}

int parse_duration(const char *s, double *out)
{
	char num[64];
	const char *unit;
	double v, scale;
	size_t n;

	if (!s)
		return -EINVAL;
	n = decimal_len(s);
	if (!n)
		return -EINVAL;
	unit = s + n;
	if (*unit == '\0' || strcmp(unit, "s") == 0)
		scale = 1.0;
	else if (strcmp(unit, "ms") == 0)
		scale = 1e-3;
	else if (strcmp(unit, "m") == 0)
		scale = 60.0;
	else if (strcmp(unit, "h") == 0)
		scale = 3600.0;
	else
		return -EINVAL;
	if (n >= sizeof(num))
		return -ERANGE; /* far more digits than any sane duration */
	memcpy(num, s, n);
	num[n] = '\0';
	v = strtod(num, NULL) * scale; /* plain decimal only: checked above */
	if (!isfinite(v) || v > 366.0 * 24 * 3600)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	const char *p = s;
	uint64_t v;
	int rc;

	if (!s)
		return -EINVAL;
	rc = read_digits(&p, &v);
	if (rc)
		return rc;
	if (*p != '\0')
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = (unsigned long)v;
	return 0;
}

int parse_list(char *s, char **items, int max)
{
	int n = 0;
	char *tok, *next;

	if (!s || !*s)
		return -EINVAL;
	for (tok = s; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (!*tok)
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		items[n++] = tok;
	}
	return n;
}

const char *format_size(uint64_t bytes, char *buf, unsigned len)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	int i = -1;
	uint64_t v = bytes;

	while (v >= 1024 && v % 1024 == 0 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i >= 0 && v < 10000)
		snprintf(buf, len, "%llu%s", (unsigned long long)v, units[i]);
	else if (bytes >= 1ULL << 40)
		snprintf(buf, len, "%.2fTiB", (double)bytes / (double)(1ULL << 40));
	else if (bytes >= 1024ULL * 1024 * 1024)
		snprintf(buf, len, "%.2fGiB", (double)bytes / (1024.0 * 1024 * 1024));
	else if (bytes >= 1024 * 1024)
		snprintf(buf, len, "%.2fMiB", (double)bytes / (1024.0 * 1024));
	else
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	return buf;
}
