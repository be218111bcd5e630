/* SPDX-License-Identifier: MIT */
/*
 * wire.h: the control protocol's codec engine. A message's layout is a table
 * of fields (struct wire_field: the member's offset and size, its kind, the
 * values a decoder accepts); one walker encodes any layout, one decodes it,
 * and its limits (the largest and smallest encoding, whether it has one
 * fixed size) are computed from the same table. The tables themselves, one
 * per message, are in ctrl.c; this file knows no message.
 *
 * On the wire, in the order of the table, all integers big-endian:
 *	UINT   an integer of its member's width (1, 2, 4 or 8 bytes); a signed
 *	       member travels as its two's complement bits
 *	STR    u16 length + bytes, no NUL (the member is a char array)
 *	RAW    the member's bytes as they are
 *	STRUCT a struct member, by its own layout
 *	ARRAY  u32 count + count entries of a sub-layout into an inline array
 *	LIST   u32 count + count entries of a sub-layout into a calloc'ed array
 * Decoders never read past the payload, accept it only when read exactly to
 * its end, and refuse a count over the field's limit, or one whose smallest
 * entries would not fit in the bytes left, before they allocate. A layout
 * may end in an optional part (WIRE_LAYOUT_OPT: from its field `optional`
 * on): a payload that ends exactly before it is whole (a peer of an earlier
 * build), its members left zero; one that holds a part of it is malformed.
 * An optional part of lists without entries is not sent at all.
 */
#ifndef NBW_WIRE_H
#define NBW_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WIRE_STR_MAX 1024 /* a string carries at most WIRE_STR_MAX - 1 bytes */

/*
 * Encoding writes header + payload into a growing buffer. The buffer's
 * memory is the caller's to free (free(b->data)); a failed allocation makes
 * every later put a no-op and ctrl_buf_finish() return -ENOMEM.
 */
struct ctrl_buf {
	uint8_t *data;
	size_t len, cap;
	bool nomem;
};

/* Decoding reads a payload; any read past its end marks the cursor bad. */
struct ctrl_cur {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
	bool nomem; /* a list could not be allocated */
};

void ctrl_put_bytes(struct ctrl_buf *b, const void *p, size_t n);
void ctrl_put_u8(struct ctrl_buf *b, uint8_t v);
void ctrl_put_u16(struct ctrl_buf *b, uint16_t v);
void ctrl_put_u32(struct ctrl_buf *b, uint32_t v);
void ctrl_put_u64(struct ctrl_buf *b, uint64_t v);

void ctrl_cur_init(struct ctrl_cur *c, const void *p, size_t len);
/* n bytes of the payload, or NULL (and the cursor bad) past its end. */
const uint8_t *ctrl_get_bytes(struct ctrl_cur *c, size_t n);
uint8_t ctrl_get_u8(struct ctrl_cur *c);
uint16_t ctrl_get_u16(struct ctrl_cur *c);
uint32_t ctrl_get_u32(struct ctrl_cur *c);
uint64_t ctrl_get_u64(struct ctrl_cur *c);
/* Copies at most size-1 bytes and a NUL; a longer string or a NUL in it is bad. */
void ctrl_get_str(struct ctrl_cur *c, char *out, size_t size);

enum wire_kind { WIRE_UINT, WIRE_STR, WIRE_RAW, WIRE_STRUCT, WIRE_ARRAY, WIRE_LIST };

struct wire_layout;

struct wire_field {
	const char *name;
	enum wire_kind kind;
	size_t off;	   /* offsetof the member (ARRAY: the array; LIST: the pointer) */
	size_t size;	   /* sizeof the member (LIST: unused) */
	uint64_t min, max; /* UINT: the values a decoder accepts; STR: min = least length */
	size_t count_off;  /* ARRAY, LIST: offsetof the uint32_t count member */
	uint32_t max_n;	   /* ARRAY, LIST: the most entries */
	const struct wire_layout *sub; /* STRUCT: its layout; ARRAY, LIST: an entry's */
};

struct wire_layout {
	const char *name;
	size_t size; /* sizeof the struct it describes */
	const struct wire_field *f;
	unsigned nf;
	/* A rule between fields of a decoded struct (NULL: none); false makes it malformed. */
	bool (*check)(const void *m);
	/* The first field of the optional part (0: none; a top-level layout's only). */
	unsigned optional;
};

#define WIRE_MEMBER_SIZE(T, m) sizeof(((T *)0)->m)
/* Fields of struct T, for the tables. */
#define WIRE_UINT_IN(T, m, lo, hi)                                                                 \
	{                                                                                          \
		.name = #m, .kind = WIRE_UINT, .off = offsetof(T, m),                              \
		.size = WIRE_MEMBER_SIZE(T, m), .min = (lo), .max = (hi)                           \
	}
#define WIRE_U(T, m) WIRE_UINT_IN(T, m, 0, UINT64_MAX)
#define WIRE_STR_OF(T, m, least)                                                                   \
	{                                                                                          \
		.name = #m, .kind = WIRE_STR, .off = offsetof(T, m),                               \
		.size = WIRE_MEMBER_SIZE(T, m), .min = (least)                                     \
	}
#define WIRE_RAW_OF(T, m)                                                                          \
	{                                                                                          \
		.name = #m, .kind = WIRE_RAW, .off = offsetof(T, m),                               \
		.size = WIRE_MEMBER_SIZE(T, m)                                                     \
	}
#define WIRE_STRUCT_OF(T, m, lay)                                                                  \
	{                                                                                          \
		.name = #m, .kind = WIRE_STRUCT, .off = offsetof(T, m),                            \
		.size = WIRE_MEMBER_SIZE(T, m), .sub = &(lay)                                      \
	}
#define WIRE_ARRAY_OF(T, m, n, most, lay)                                                          \
	{                                                                                          \
		.name = #m, .kind = WIRE_ARRAY, .off = offsetof(T, m),                             \
		.size = WIRE_MEMBER_SIZE(T, m), .count_off = offsetof(T, n), .max_n = (most),      \
		.sub = &(lay)                                                                      \
	}
#define WIRE_LIST_OF(T, m, n, most, lay)                                                           \
	{                                                                                          \
		.name = #m, .kind = WIRE_LIST, .off = offsetof(T, m), .count_off = offsetof(T, n), \
		.max_n = (most), .sub = &(lay)                                                     \
	}
#define WIRE_LAYOUT(T, fields, chk)                                                                \
	{                                                                                          \
		.name = #T, .size = sizeof(T), .f = (fields),                                      \
		.nf = sizeof(fields) / sizeof((fields)[0]), .check = (chk)                         \
	}

/* A layout whose fields from index opt on may be absent as a whole. */
#define WIRE_LAYOUT_OPT(T, fields, chk, opt)                                                       \
	{                                                                                          \
		.name = #T, .size = sizeof(T), .f = (fields),                                      \
		.nf = sizeof(fields) / sizeof((fields)[0]), .check = (chk), .optional = (opt)      \
	}

/* Append the encoding of m (a struct of layout l) to b. */
void wire_put(struct ctrl_buf *b, const struct wire_layout *l, const void *m);
/*
 * Decode a payload into m (zeroed first): 0, -EBADMSG (malformed: m holds
 * no list) or -ENOMEM. Free its lists with wire_release().
 */
int wire_decode(const struct wire_layout *l, const void *p, size_t len, void *m);
/* Free m's lists (LIST fields, at any depth) and zero their counts. */
void wire_release(const struct wire_layout *l, void *m);

/* The largest and the smallest encoding of layout l (the smallest without its optional
 * part); equal when it has one size. */
uint64_t wire_max(const struct wire_layout *l);
uint64_t wire_min(const struct wire_layout *l);
/* Where field name of layout l starts in an encoding whose earlier fields are all
 * fixed-size (-1 if it is not, or no such field): for tests and documentation. */
long wire_offset(const struct wire_layout *l, const char *name);

#endif
