// SPDX-License-Identifier: MIT
/* report.c: text and JSON output from the same calls (see report.h). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lathist.h"
#include "report.h"

/* Text formats come from the callers by design: each is checked where it is written. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void report_init(struct report *r, FILE *out, bool json, bool gbits)
{
	memset(r, 0, sizeof(*r));
	r->out = out;
	r->json = json;
	r->gbits = gbits;
	r->first[0] = true;
}

void report_finish(struct report *r)
{
	if (r->json)
		fputc('\n', r->out);
	fflush(r->out);
}

/* A character that hides or reorders text, as its \u escape (a surrogate pair past U+FFFF). */
static void json_write_hidden(FILE *out, uint32_t cp)
{
	if (cp < 0x10000) {
		fprintf(out, "\\u%04x", cp);
		return;
	}
	cp -= 0x10000;
	fprintf(out, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
}

void json_write_string(FILE *out, const char *s)
{
	/*
	 * The two-character escapes written (RFC 8259, 7); other control bytes,
	 * DEL and C1 controls as \u00XX; bidi and zero-width characters
	 * (nbw_unicode_hidden()) as \uXXXX, the same string once parsed; bytes
	 * of broken UTF-8 as U+FFFD.
	 */
	static const char *const short_escape[] = {
		['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\t'] = "\\t", ['\r'] = "\\r",
	};
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		size_t n = nbw_utf8_len(p);

		if (n && nbw_unicode_hidden(nbw_utf8_code(p, n))) {
			json_write_hidden(out, nbw_utf8_code(p, n));
			p += n;
			continue;
		}
		if (n) {
			fwrite(p, 1, n, out);
			p += n;
			continue;
		}
		if (*p < NBW_ARRAY_SIZE(short_escape) && short_escape[*p])
			fputs(short_escape[*p], out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\u%04x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			fprintf(out, "\\u%04x", *++p); /* a C1 control */
		else if (*p >= 0x80)
			fputs("\\ufffd", out);
		else
			fputc(*p, out);
		p++;
	}
	fputc('"', out);
}

/* Separator, indentation and key before a JSON member or array element. */
static void json_member(struct report *r, const char *key)
{
	int d = r->depth;

	if (d > 0) {
		if (!r->first[d])
			fputc(',', r->out);
		fputc('\n', r->out);
		fprintf(r->out, "%*s", 2 * d, "");
	}
	r->first[d] = false;
	if (d > 0 && !r->in_array[d] && key) {
		json_write_string(r->out, key);
		fputs(": ", r->out);
	}
}

/* In JSON, a value without a key inside an object is text-only: skip it. */
static bool json_skips(const struct report *r, const char *key)
{
	return !key && r->depth > 0 && !r->in_array[r->depth];
}

static void open_container(struct report *r, const char *key, bool array)
{
	if (!r->json)
		return;
	json_member(r, key);
	fputc(array ? '[' : '{', r->out);
	if (r->depth + 1 < REPORT_MAX_DEPTH)
		r->depth++;
	r->first[r->depth] = true;
	r->in_array[r->depth] = array;
}

static void close_container(struct report *r, bool array)
{
	if (!r->json)
		return;
	if (!r->first[r->depth])
		fprintf(r->out, "\n%*s", 2 * (r->depth - 1), "");
	if (r->depth > 0)
		r->depth--;
	fputc(array ? ']' : '}', r->out);
}

void report_obj_begin(struct report *r, const char *key)
{
	open_container(r, key, false);
}

void report_obj_end(struct report *r)
{
	close_container(r, false);
}

void report_arr_begin(struct report *r, const char *key)
{
	open_container(r, key, true);
}

void report_arr_end(struct report *r)
{
	close_container(r, true);
}

/* Text form of a value printed with a %s-style format. */
static void text_dash(struct report *r, const char *textfmt)
{
	/* Keep the column width of the caller's format for the dash. */
	const char *p = strchr(textfmt, '%');
	int width = 0;
	bool left = false;

	if (p) {
		p++;
		if (*p == '-') {
			left = true;
			p++;
		}
		while (*p >= '0' && *p <= '9')
			width = width * 10 + (*p++ - '0');
	}
	fwrite(textfmt, 1, p ? (size_t)(strchr(textfmt, '%') - textfmt) : strlen(textfmt), r->out);
	fprintf(r->out, left ? "%-*s" : "%*s", width, "-");
	if (p) {
		while (*p && !strchr("diouxXeEfgGsc", *p))
			p++;
		/* The rest of the format is text, where "%%" stands for one '%'. */
		for (p = *p ? p + 1 : p; *p; p++) {
			if (p[0] == '%' && p[1] == '%')
				p++;
			fputc(*p, r->out);
		}
	}
}

/*
 * Where a value goes: nowhere (a key --json leaves out, or text without a
 * format), into the JSON document (its key written here) or into the text.
 */
enum value_form { FORM_NONE, FORM_JSON, FORM_TEXT };

static enum value_form form_of(struct report *r, const char *key, const char *textfmt)
{
	if (r->json) {
		if (json_skips(r, key))
			return FORM_NONE;
		json_member(r, key);
		return FORM_JSON;
	}
	return textfmt ? FORM_TEXT : FORM_NONE;
}

void report_str(struct report *r, const char *key, const char *textfmt, const char *val)
{
	enum value_form f = form_of(r, key, textfmt);

	if (f == FORM_JSON) {
		if (val)
			json_write_string(r->out, val);
		else
			fputs("null", r->out);
	} else if (f == FORM_TEXT) {
		/* Strings may come from a peer or a file: printable only on a terminal. */
		char safe[4096];

		if (val)
			fprintf(r->out, textfmt, nbw_printable(val, safe, sizeof(safe)));
		else
			text_dash(r, textfmt);
	}
}

void report_u64(struct report *r, const char *key, const char *textfmt, uint64_t val)
{
	enum value_form f = form_of(r, key, textfmt);

	if (f == FORM_JSON)
		fprintf(r->out, "%llu", (unsigned long long)val);
	else if (f == FORM_TEXT)
		fprintf(r->out, textfmt, (unsigned long long)val);
}

void report_i64(struct report *r, const char *key, const char *textfmt, int64_t val)
{
	enum value_form f = form_of(r, key, textfmt);

	if (f == FORM_JSON)
		fprintf(r->out, "%lld", (long long)val);
	else if (f == FORM_TEXT)
		fprintf(r->out, textfmt, (long long)val);
}

void report_double(struct report *r, const char *key, const char *textfmt, double val)
{
	enum value_form f = form_of(r, key, textfmt);

	if (f == FORM_JSON) {
		if (isfinite(val))
			fprintf(r->out, "%.6g", val);
		else
			fputs("null", r->out);
	} else if (f == FORM_TEXT) {
		if (isfinite(val))
			fprintf(r->out, textfmt, val);
		else
			text_dash(r, textfmt);
	}
}

void report_fixed(struct report *r, const char *key, const char *textfmt, double val, int decimals)
{
	if (!r->json || !isfinite(val))
		report_double(r, key, textfmt, val);
	else if (form_of(r, key, textfmt) == FORM_JSON)
		fprintf(r->out, "%.*f", decimals, val);
}

void report_bool(struct report *r, const char *key, const char *textfmt, bool val)
{
	enum value_form f = form_of(r, key, textfmt);

	if (f == FORM_JSON)
		fputs(val ? "true" : "false", r->out);
	else if (f == FORM_TEXT)
		fprintf(r->out, textfmt, val ? "yes" : "no");
}

void report_null(struct report *r, const char *key, const char *textfmt)
{
	enum value_form f = form_of(r, key, textfmt);

	if (f == FORM_JSON)
		fputs("null", r->out);
	else if (f == FORM_TEXT)
		text_dash(r, textfmt);
}

int report_decimals(double v, int decimals)
{
	int d;

	if (!isfinite(v) || v == 0 || fabs(v) >= 0.1)
		return decimals;
	d = 1 - (int)floor(log10(fabs(v)));
	if (d > 9)
		d = 9;
	return d > decimals ? d : decimals;
}

/*
 * textfmt with its first "%W.Pf" given the decimals of report_decimals for v, into
 * buf; textfmt itself when it has none or v needs no more.
 */
static const char *small_fmt(const char *textfmt, double v, char *buf, size_t len)
{
	const char *p = strchr(textfmt, '%'), *dot, *end;
	int prec, want;

	while (p && p[1] == '%')
		p = strchr(p + 2, '%');
	if (!p)
		return textfmt;
	dot = p + 1 + strspn(p + 1, "-+ #0123456789");
	if (*dot != '.')
		return textfmt;
	end = dot + 1 + strspn(dot + 1, "0123456789");
	if (*end != 'f' || end == dot + 1)
		return textfmt;
	prec = atoi(dot + 1);
	want = report_decimals(v, prec);
	if (want == prec || (size_t)snprintf(buf, len, "%.*s.%d%s", (int)(dot - textfmt), textfmt,
					     want, end) >= len)
		return textfmt;
	return buf;
}

void report_bw(struct report *r, const char *key, const char *textfmt, double bytes_per_s)
{
	double v = bytes_per_s / 1e9 * (r->gbits ? 8.0 : 1.0);
	char fmt[128];

	if (r->json)
		report_double(r, key, NULL, bytes_per_s / 1e9);
	else if (textfmt)
		report_double(r, key, small_fmt(textfmt, v, fmt, sizeof(fmt)), v);
}

const char *report_bw_unit(const struct report *r)
{
	return r->gbits ? "Gb/s" : "GB/s";
}

void report_text(struct report *r, const char *fmt, ...)
{
	va_list ap;

	if (r->json)
		return;
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
}

void report_latency(struct report *r, const struct lathist *h, const char *label)
{
	char fmt[32];
	int k;

	if (!h)
		return;
	report_obj_begin(r, "latency_us");
	report_text(r, " %-16s latency us:", label);
	report_u64(r, "count", NULL, h->count);
	report_double(r, "min", " min %.1f", h->count ? (double)h->min / 1e3 : NAN);
	for (k = 0; k < LATHIST_NPCT; k++) {
		snprintf(fmt, sizeof(fmt), "  %s %%.1f", lathist_pct_keys[k]);
		report_double(r, lathist_pct_keys[k], fmt,
			      h->count ? (double)lathist_percentile(h, lathist_pcts[k]) / 1e3
				       : NAN);
	}
	report_double(r, "max", "  max %.1f", h->count ? (double)h->max / 1e3 : NAN);
	report_double(r, "mean", "  mean %.1f\n", lathist_mean(h) / 1e3);
	report_obj_end(r);
}
