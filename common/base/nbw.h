/* SPDX-License-Identifier: MIT */
/*
 * nbw.h: what every tool of the suite shares: exit codes, the program name
 * used in messages, and one-line error and warning printers.
 *
 * Common code never exits: it returns -errno (or another negative code) and
 * leaves the decision to the tool's main().
 */
#ifndef NBW_H
#define NBW_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define NBW_EXIT_OK 0
#define NBW_EXIT_FAIL 1	  /* runtime failure: device, fabric, peer, verify */
#define NBW_EXIT_USAGE 2  /* bad option or value */
#define NBW_EXIT_EXPECT 3 /* an audit expectation (--expect-*) was not met */

#define NBW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * An enum whose values have names (JSON and text) is written once, as a list
 * X(ID, "name"): NBW_ENUM_ID makes the enum of it, NBW_ENUM_NAME the table
 * for nbw_name().
 */
#define NBW_ENUM_ID(id, name) id,
#define NBW_ENUM_NAME(id, name) [id] = name,
#define NBW_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* The name messages start with ("nvme_read_bw: ..."). */
extern const char *nbw_prog;
void nbw_set_prog(const char *argv0);

/* One line on stderr: "<prog>: <message>". */
void nbw_err(const char *fmt, ...) NBW_PRINTF(1, 2);
/*
 * A run failed: keep why in buf (for its report) and say it as nbw_err()
 * does. Returns NBW_EXIT_FAIL.
 */
int nbw_fail(char *buf, size_t len, const char *fmt, ...) NBW_PRINTF(3, 4);
/* One line on stderr: "<prog>: warning: <message>". */
void nbw_warn(const char *fmt, ...) NBW_PRINTF(1, 2);
/* calloc(n, size), or NULL after the line "out of memory". */
void *nbw_zalloc(size_t n, size_t size);
/* Usage error: the message and a "try --help" hint, both on stderr; returns NBW_EXIT_USAGE. */
int nbw_usage_err(const char *fmt, ...) NBW_PRINTF(1, 2);
/*
 * An error a library described (a line without the program name): said as
 * nbw_usage_err() says it when usage, else as nbw_err(). Returns the exit
 * status, NBW_EXIT_USAGE or NBW_EXIT_FAIL.
 */
int nbw_say_err(bool usage, const char *msg);

/*
 * in with every control byte (below 0x20, and DEL: newlines, tabs, the ESC
 * that starts a terminal escape sequence), every byte of a C1 control, of a
 * character nbw_unicode_hidden() names and of broken UTF-8 written as \xNN,
 * into out; valid UTF-8 text passes. Returns out.
 */
const char *nbw_printable(const char *in, char *out, size_t len);
/*
 * Is code point cp one a terminal shows as nothing or uses to reorder the
 * text around it: a format character (Unicode's Cf: the bidi controls
 * U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069, zero-width ones such
 * as U+200B-U+200D, U+2060, U+FEFF, the soft hyphen, tags) or a line or
 * paragraph separator (U+2028, U+2029)? A peer's text may not hide or
 * reorder what the sink says around it.
 */
bool nbw_unicode_hidden(uint32_t cp);
/* The code point of the valid n-byte UTF-8 sequence at p (nbw_utf8_len()'s n, or 1). */
uint32_t nbw_utf8_code(const unsigned char *p, size_t n);
/*
 * The length of the valid UTF-8 sequence of a printable character at p (2 to
 * 4), or 0: ASCII, a C1 control (U+0080 - U+009F), an overlong form, a
 * surrogate or a broken sequence. nbw_printable() and the JSON writer pass
 * only these beyond printable ASCII.
 */
size_t nbw_utf8_len(const unsigned char *p);

/*
 * names[i] of a table of n names indexed by an enum (designated initializers),
 * or fallback when i is past the table or has no name there.
 */
const char *nbw_name(const char *const *names, size_t n, unsigned i, const char *fallback);

/* The version line every tool prints for --version. */
void nbw_print_version(void);

#endif
