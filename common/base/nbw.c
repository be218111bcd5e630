// SPDX-License-Identifier: MIT
/* nbw.c: program name and the one-line message printers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbw.h"

const char *nbw_prog = PACKAGE_NAME;

void nbw_set_prog(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	if (argv0)
		nbw_prog = slash ? slash + 1 : argv0;
}

size_t nbw_utf8_len(const unsigned char *p)
{
	size_t n, i;
	uint32_t cp;

	if (*p < 0xc2 || *p > 0xf4)
		return 0; /* ASCII, a continuation byte, an overlong lead or beyond U+10FFFF */
	n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
	cp = *p & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
		return 0; /* overlong, a surrogate, or a C1 control (U+0080 - U+009F) */
	return n;
}

uint32_t nbw_utf8_code(const unsigned char *p, size_t n)
{
	uint32_t cp = n > 1 ? *p & (0x7f >> n) : *p;
	size_t i;

	for (i = 1; i < n; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

bool nbw_unicode_hidden(uint32_t cp)
{
	/* Unicode's format characters (Cf, 15.1) and the line and paragraph separators. */
	static const uint32_t range[][2] = {
		{0x00ad, 0x00ad},   {0x0600, 0x0605},	{0x061c, 0x061c},   {0x06dd, 0x06dd},
		{0x070f, 0x070f},   {0x0890, 0x0891},	{0x08e2, 0x08e2},   {0x180e, 0x180e},
		{0x200b, 0x200f},   {0x2028, 0x202e},	{0x2060, 0x2064},   {0x2066, 0x206f},
		{0xfeff, 0xfeff},   {0xfff9, 0xfffb},	{0x110bd, 0x110bd}, {0x110cd, 0x110cd},
		{0x13430, 0x1343f}, {0x1bca0, 0x1bca3}, {0x1d173, 0x1d17a}, {0xe0001, 0xe0001},
		{0xe0020, 0xe007f},
	};
	size_t i;

	for (i = 0; i < NBW_ARRAY_SIZE(range); i++)
		if (cp >= range[i][0] && cp <= range[i][1])
			return true;
	return false;
}

const char *nbw_printable(const char *in, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t o = 0;

	if (!len)
		return out;
	while (*p && o + 1 < len) {
		size_t n = *p >= 0x20 && *p < 0x7f ? 1 : nbw_utf8_len(p);

		/* Bidi controls, zero-width characters: written out as bytes. */
		if (n > 1 && nbw_unicode_hidden(nbw_utf8_code(p, n)))
			n = 0;
		if (n) { /* printable ASCII and valid UTF-8 text stay as they are */
			if (o + n >= len)
				break;
			memcpy(out + o, p, n);
			o += n;
			p += n;
			continue;
		}
		if (o + 4 >= len)
			break;
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[*p >> 4];
		out[o++] = hex[*p & 15];
		p++;
	}
	out[o] = '\0';
	return out;
}

const char *nbw_name(const char *const *names, size_t n, unsigned i, const char *fallback)
{
	return i < n && names[i] ? names[i] : fallback;
}

/* Messages may carry a peer's words: they reach the terminal made printable. */
static void vmsg(const char *what, const char *fmt, va_list ap)
{
	char line[1024], safe[4 * sizeof(line)];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", nbw_prog, what, nbw_printable(line, safe, sizeof(safe)));
}

void nbw_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

int nbw_fail(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	nbw_err("%s", buf);
	return NBW_EXIT_FAIL;
}

void *nbw_zalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		nbw_err("out of memory");
	return p;
}

void nbw_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int nbw_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", nbw_prog);
	return NBW_EXIT_USAGE;
}

int nbw_say_err(bool usage, const char *msg)
{
	if (usage)
		return nbw_usage_err("%s", msg);
	nbw_err("%s", msg);
	return NBW_EXIT_FAIL;
}

void nbw_print_version(void)
{
	printf("%s (%s) %s\n", nbw_prog, PACKAGE_NAME, PACKAGE_VERSION);
}
