// SPDX-License-Identifier: MIT
/*
 * pcidump.c: the line-by-line check of an `lspci -xxx` dump (see pcidump.h)
 * and its bounded read. Nothing here calls libpci.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pcidump.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int fault(struct pcidump_err *e, unsigned line, const char *fmt, ...)
{
	va_list ap;

	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Exactly n hex digits at s: their value, or -1. */
static long hexn(const char *s, size_t len, size_t n)
{
	long v = 0;
	size_t i;

	if (len < n)
		return -1;
	for (i = 0; i < n; i++) {
		int d = hexval(s[i]);

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* "BB:DD.F" or "DDDD:BB:DD.F" followed by a space: the address length, or 0. */
static size_t header_addr(const char *s, size_t len)
{
	size_t at = 0;

	if (len >= 5 && s[4] == ':' && hexn(s, len, 4) >= 0)
		at = 5;
	if (len - at < 8 || hexn(s + at, len - at, 2) < 0 || s[at + 2] != ':' ||
	    hexn(s + at + 3, len - at - 3, 2) < 0 || s[at + 5] != '.' || s[at + 7] != ' ')
		return 0;
	return at + 7;
}

/* A device header: the address checked, the rest printable. */
static int check_header(const char *s, size_t len, size_t alen, unsigned ln, struct pcidump_err *e)
{
	long dev = hexn(s + alen - 4, 2, 2);
	char fn = s[alen - 1];
	size_t i;

	if (dev > 0x1f)
		return fault(e, ln, "device %02lx out of range (00-1f)", dev);
	if (fn < '0' || fn > '7')
		return fault(e, ln, "function '%c' out of range (0-7)", fn);
	for (i = alen; i < len; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			return fault(e, ln, "control character 0x%02x in the device header",
				     (unsigned char)s[i]);
	return 0;
}

/* "OOO: xx xx ...": offset in range, 0-16 bytes "xx" each followed by one space or the end. */
static int check_data(const char *s, size_t len, size_t colon, unsigned ln, struct pcidump_err *e)
{
	unsigned long off = 0;
	size_t i, nbytes = 0;

	if (colon > 8)
		return fault(e, ln, "offset %.*s too long", (int)(colon > 16 ? 16 : colon), s);
	for (i = 0; i < colon; i++)
		off = off << 4 | (unsigned)hexval(s[i]);
	if (off > PCIDUMP_MAX_OFFSET)
		return fault(e, ln, "offset %lx out of range (0-%x)", off, PCIDUMP_MAX_OFFSET);
	i = colon + 2;
	while (i < len) {
		if (i + 2 > len || hexval(s[i]) < 0 || hexval(s[i + 1]) < 0)
			return fault(e, ln, "not a hex byte at column %zu", i + 1);
		if (i + 2 < len && s[i + 2] != ' ')
			return fault(e, ln, "not a hex byte at column %zu", i + 1);
		if (++nbytes > 16)
			return fault(e, ln, "more than 16 bytes on a line");
		i += 3;
	}
	if (off + nbytes > PCIDUMP_MAX_OFFSET + 1)
		return fault(e, ln, "bytes beyond offset %x (config space is 4096 bytes)",
			     PCIDUMP_MAX_OFFSET);
	return 0;
}

/* Length of the hex run at the start of s if it is 2-8 digits and ": " follows; else 0. */
static size_t data_colon(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && hexval(s[i]) >= 0)
		i++;
	if (i < 2 || i >= len || s[i] != ':' || (i + 1 < len && s[i + 1] != ' '))
		return 0;
	return i;
}

/* Where the scan is: inside a device or not, its header's line, its config lines. */
struct scan {
	bool in_dev;
	unsigned dev_line;
	unsigned dev_data;
};

/*
 * A device ends (a blank line, the next header, the end of the file): one
 * without a single config line is `lspci` or `lspci -vvv` text, not a dump,
 * and libpci would read it as a device of all-zero bytes.
 */
static int end_device(struct scan *sc, struct pcidump_err *e)
{
	bool empty = sc->in_dev && !sc->dev_data;

	sc->in_dev = false;
	if (!empty)
		return 0;
	return fault(e, sc->dev_line,
		     "no config bytes under this device (lspci text, not a dump): make one as "
		     "root with 'lspci -xxx > FILE' (-xxxx: the extended space too)");
}

/* One line (without its newline): a header, data, blank, detail, or a fault. */
static int check_line(const char *s, size_t len, unsigned ln, struct scan *sc,
		      struct pcidump_err *e)
{
	size_t alen, colon;

	if (len > PCIDUMP_MAX_LINE)
		return fault(e, ln, "line longer than %d characters", PCIDUMP_MAX_LINE);
	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (memchr(s, '\0', len))
		return fault(e, ln, "NUL byte (not a text file)");
	if (len == 0)
		return end_device(sc, e);
	if (s[0] == '\t')
		return 0;
	alen = header_addr(s, len);
	if (alen) {
		if (end_device(sc, e))
			return -EINVAL;
		*sc = (struct scan){true, ln, 0};
		return check_header(s, len, alen, ln, e);
	}
	colon = data_colon(s, len);
	if (colon) {
		if (!sc->in_dev)
			return fault(e, ln, "config bytes outside a device (no header above)");
		sc->dev_data++;
		return check_data(s, len, colon, ln, e);
	}
	return fault(e, ln, "neither a device header (BB:DD.F ...) nor config bytes (OOO: xx ...)");
}

int pcidump_check(const char *buf, size_t len, struct pcidump_err *e)
{
	struct scan sc = {false, 0, 0};
	unsigned ln = 0;
	size_t at = 0;
	int rc;

	if (len > PCIDUMP_MAX_SIZE) {
		fault(e, 0, "larger than %u MiB", PCIDUMP_MAX_SIZE >> 20);
		return -EFBIG;
	}
	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t l = nl ? (size_t)(nl - (buf + at)) : len - at;

		rc = check_line(buf + at, l, ++ln, &sc, e);
		if (rc)
			return rc;
		at += l + 1;
	}
	return end_device(&sc, e);
}

int pcidump_read(const char *path, char **out, size_t *outlen, struct pcidump_err *e)
{
	size_t cap = 64 << 10, len = 0;
	struct stat st;
	char *buf;
	ssize_t n;
	int fd, rc = 0;

	*out = NULL;
	*outlen = 0;
	/* Non-blocking open: a FIFO without a writer must not hang us. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
		close(fd);
		return fault(e, 0, "not a regular file or a pipe");
	}
	/* A pipe is the operator's own (`--pci-dump <(lspci -xxx)`): wait for its writer. */
	if (S_ISFIFO(st.st_mode))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	buf = malloc(cap + 1);
	while (buf) {
		if (len == cap) {
			char *nb = cap > PCIDUMP_MAX_SIZE ? NULL : realloc(buf, cap * 2 + 1);

			if (!nb) {
				rc = cap > PCIDUMP_MAX_SIZE ? -EFBIG : -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	if (!rc && len > PCIDUMP_MAX_SIZE)
		rc = -EFBIG;
	if (rc == -EFBIG)
		fault(e, 0, "larger than %u MiB", PCIDUMP_MAX_SIZE >> 20);
	if (rc) {
		free(buf);
		return rc;
	}
	if (len && buf[len - 1] != '\n')
		buf[len++] = '\n';
	*out = buf;
	*outlen = len;
	return 0;
}
