/* SPDX-License-Identifier: MIT */
/*
 * pcidump.h: checking an `lspci -xxx` / `-xxxx` dump before libpci reads it.
 * libpci's dump reader trusts the offsets it parses (an offset such as
 * 80000000 is negative as an int and is written far outside its buffer), so
 * every dump is read into memory here, bounded, checked line by line against
 * the layout lspci writes, and only then handed to libpci (as a copy, so
 * that what libpci reads is what was checked).
 *
 * Accepted layout, one line at a time (LF or CRLF):
 *	BB:DD.F text          a device header (bus, device <= 1f, function <= 7),
 *	DDDD:BB:DD.F text     or with its 4-digit domain; text is printable
 *	OOO: xx xx ...        config bytes at offset OOO (2-8 hex digits, 0-fff), at most 16
 *	                      two-digit hex bytes, single spaces, ending at or
 *	                      before 4096; only under a device header
 *	(empty)               ends the device, which must have held config bytes
 *	                      (a header alone is `lspci -v` text: refused, saying
 *	                      how to make a dump)
 *	<TAB>text             a detail line of `lspci -v -xxx` (ignored by libpci)
 * Lines are at most PCIDUMP_MAX_LINE characters, the file at most
 * PCIDUMP_MAX_SIZE bytes, and no NUL bytes.
 */
#ifndef NBW_PCIDUMP_H
#define NBW_PCIDUMP_H

#include <stddef.h>

#define PCIDUMP_MAX_SIZE (4u << 20)
/* libpci reads lines with fgets() into 255 bytes: 253 characters (a CR included) and LF. */
#define PCIDUMP_MAX_LINE 253
#define PCIDUMP_MAX_OFFSET 0xfff

struct pcidump_err {
	unsigned line;	  /* 1-based line of the fault, 0 when it is the whole file */
	char reason[160]; /* "offset 80000000 out of range (0-fff)" */
};

/*
 * Check buf[0..len) (pure). 0 when libpci may read it; -EINVAL with e filled
 * otherwise (-EFBIG when len exceeds PCIDUMP_MAX_SIZE).
 */
int pcidump_check(const char *buf, size_t len, struct pcidump_err *e);

/*
 * Read path (a regular file or a pipe, at most PCIDUMP_MAX_SIZE bytes) into a
 * malloc'd buffer, with a newline added when the last line has none.
 * 0, -errno of the open or read, -EFBIG (too large, e filled) or -EINVAL (not
 * a regular file or a pipe, e filled).
 */
int pcidump_read(const char *path, char **buf, size_t *len, struct pcidump_err *e);

#endif
