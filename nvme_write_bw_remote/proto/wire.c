// SPDX-License-Identifier: MIT
/* wire.c: the codec engine of the control protocol (see wire.h): primitives, then the walkers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

/* ---- primitives ------------------------------------------------------------ */

void ctrl_put_bytes(struct ctrl_buf *b, const void *p, size_t n)
{
	if (b->nomem)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *d;

		while (cap < b->len + n)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d) {
			b->nomem = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void ctrl_put_u8(struct ctrl_buf *b, uint8_t v)
{
	ctrl_put_bytes(b, &v, 1);
}

void ctrl_put_u16(struct ctrl_buf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	ctrl_put_bytes(b, x, 2);
}

void ctrl_put_u32(struct ctrl_buf *b, uint32_t v)
{
	ctrl_put_u16(b, (uint16_t)(v >> 16));
	ctrl_put_u16(b, (uint16_t)v);
}

void ctrl_put_u64(struct ctrl_buf *b, uint64_t v)
{
	ctrl_put_u32(b, (uint32_t)(v >> 32));
	ctrl_put_u32(b, (uint32_t)v);
}

static void put_strn(struct ctrl_buf *b, const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n > WIRE_STR_MAX - 1)
		n = WIRE_STR_MAX - 1;
	ctrl_put_u16(b, (uint16_t)n);
	ctrl_put_bytes(b, s, n);
}

void ctrl_cur_init(struct ctrl_cur *c, const void *p, size_t len)
{
	*c = (struct ctrl_cur){.p = p, .len = len};
}

const uint8_t *ctrl_get_bytes(struct ctrl_cur *c, size_t n)
{
	const uint8_t *p;

	if (c->bad || c->len - c->pos < n) {
		c->bad = true;
		return NULL;
	}
	p = c->p + c->pos;
	c->pos += n;
	return p;
}

uint8_t ctrl_get_u8(struct ctrl_cur *c)
{
	const uint8_t *p = ctrl_get_bytes(c, 1);

	return p ? p[0] : 0;
}

uint16_t ctrl_get_u16(struct ctrl_cur *c)
{
	const uint8_t *p = ctrl_get_bytes(c, 2);

	return p ? (uint16_t)(p[0] << 8 | p[1]) : 0;
}

uint32_t ctrl_get_u32(struct ctrl_cur *c)
{
	uint32_t hi = ctrl_get_u16(c);

	return hi << 16 | ctrl_get_u16(c);
}

uint64_t ctrl_get_u64(struct ctrl_cur *c)
{
	uint64_t hi = ctrl_get_u32(c);

	return hi << 32 | ctrl_get_u32(c);
}

void ctrl_get_str(struct ctrl_cur *c, char *out, size_t size)
{
	uint16_t n = ctrl_get_u16(c);
	const uint8_t *p = ctrl_get_bytes(c, n);

	out[0] = '\0';
	if (!p)
		return;
	if (n >= size || memchr(p, '\0', n)) {
		c->bad = true;
		return;
	}
	memcpy(out, p, n);
	out[n] = '\0';
}

/* ---- members ----------------------------------------------------------------- */

/* The integer member of width size at p (unsigned; a signed one as its bits). */
static uint64_t load_uint(const void *p, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		return memcpy(&u8, p, 1), u8;
	case 2:
		return memcpy(&u16, p, 2), u16;
	case 4:
		return memcpy(&u32, p, 4), u32;
	}
	memcpy(&u64, p, 8);
	return u64;
}

static void store_uint(void *p, size_t size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(p, &u8, 1);
		return;
	case 2:
		memcpy(p, &u16, 2);
		return;
	case 4:
		memcpy(p, &u32, 4);
		return;
	}
	memcpy(p, &v, 8);
}

static void put_uint(struct ctrl_buf *b, size_t size, uint64_t v)
{
	switch (size) {
	case 1:
		ctrl_put_u8(b, (uint8_t)v);
		return;
	case 2:
		ctrl_put_u16(b, (uint16_t)v);
		return;
	case 4:
		ctrl_put_u32(b, (uint32_t)v);
		return;
	}
	ctrl_put_u64(b, v);
}

static uint64_t get_uint(struct ctrl_cur *c, size_t size)
{
	switch (size) {
	case 1:
		return ctrl_get_u8(c);
	case 2:
		return ctrl_get_u16(c);
	case 4:
		return ctrl_get_u32(c);
	}
	return ctrl_get_u64(c);
}

static uint32_t *count_of(const struct wire_field *f, void *m)
{
	return (uint32_t *)((char *)m + f->count_off);
}

/* The entries of an ARRAY or LIST field of m. */
static char *entries_of(const struct wire_field *f, void *m)
{
	void *e;

	if (f->kind != WIRE_LIST)
		return (char *)m + f->off;
	memcpy(&e, (char *)m + f->off, sizeof(e));
	return e;
}

static void set_list(const struct wire_field *f, void *m, void *e)
{
	memcpy((char *)m + f->off, &e, sizeof(e));
}

/* ---- encoding ---------------------------------------------------------------- */

/* The optional part of m is lists without entries: sent as nothing, as an earlier peer's. */
static bool optional_empty(const struct wire_layout *l, void *m)
{
	unsigned i;

	for (i = l->optional; i < l->nf; i++)
		if ((l->f[i].kind != WIRE_LIST && l->f[i].kind != WIRE_ARRAY) ||
		    *count_of(&l->f[i], m))
			return false;
	return true;
}

void wire_put(struct ctrl_buf *b, const struct wire_layout *l, const void *mc)
{
	void *m = (void *)mc; /* read only */
	unsigned i;

	for (i = 0; i < l->nf; i++) {
		const struct wire_field *f = &l->f[i];
		const char *at = (const char *)m + f->off;
		uint32_t n, k;

		if (l->optional && i == l->optional && optional_empty(l, m))
			break;

		switch (f->kind) {
		case WIRE_UINT:
			put_uint(b, f->size, load_uint(at, f->size));
			break;
		case WIRE_STR:
			put_strn(b, at, f->size);
			break;
		case WIRE_RAW:
			ctrl_put_bytes(b, at, f->size);
			break;
		case WIRE_STRUCT:
			wire_put(b, f->sub, at);
			break;
		case WIRE_ARRAY:
		case WIRE_LIST:
			n = *count_of(f, m);
			ctrl_put_u32(b, n);
			/* An inline array holds at most max_n: a larger count is sent as it is. */
			for (k = 0; k < n && (f->kind == WIRE_LIST || k < f->max_n); k++)
				wire_put(b, f->sub, entries_of(f, m) + (size_t)k * f->sub->size);
			break;
		}
	}
}

/* ---- decoding ---------------------------------------------------------------- */

static void get_fields(struct ctrl_cur *c, const struct wire_layout *l, void *m);

/* The count and entries of an ARRAY or LIST field. */
static void get_entries(struct ctrl_cur *c, const struct wire_field *f, void *m)
{
	uint32_t n = ctrl_get_u32(c), k;
	char *e;

	/* Each entry takes at least wire_min() bytes: a larger count is forged. */
	if (c->bad || n > f->max_n || (uint64_t)n * wire_min(f->sub) > c->len - c->pos) {
		c->bad = true;
		return;
	}
	if (f->kind == WIRE_LIST && n) {
		e = calloc(n, f->sub->size);
		if (!e) {
			c->nomem = c->bad = true;
			return;
		}
		set_list(f, m, e);
	}
	*count_of(f, m) = n;
	e = entries_of(f, m);
	for (k = 0; k < n && !c->bad; k++)
		get_fields(c, f->sub, e + (size_t)k * f->sub->size);
}

static void get_fields(struct ctrl_cur *c, const struct wire_layout *l, void *m)
{
	bool optional = false; /* the optional part was sent */
	unsigned i;

	for (i = 0; i < l->nf && !c->bad; i++) {
		const struct wire_field *f = &l->f[i];
		char *at = (char *)m + f->off;
		uint64_t v;

		if (l->optional && i == l->optional) {
			if (c->pos == c->len)
				break; /* an earlier peer's message: without the optional part */
			optional = true;
		}

		switch (f->kind) {
		case WIRE_UINT:
			v = get_uint(c, f->size);
			store_uint(at, f->size, v);
			if (v < f->min || v > f->max)
				c->bad = true;
			break;
		case WIRE_STR:
			ctrl_get_str(c, at, f->size);
			if (strlen(at) < f->min)
				c->bad = true;
			break;
		case WIRE_RAW: {
			const uint8_t *p = ctrl_get_bytes(c, f->size);

			if (p)
				memcpy(at, p, f->size);
			break;
		}
		case WIRE_STRUCT:
			get_fields(c, f->sub, at);
			break;
		case WIRE_ARRAY:
		case WIRE_LIST:
			get_entries(c, f, m);
			break;
		}
	}
	/* An optional part of empty lists is sent as nothing (wire_put): one encoding only. */
	if (!c->bad && optional && optional_empty(l, m))
		c->bad = true;
	if (!c->bad && l->check && !l->check(m))
		c->bad = true;
}

int wire_decode(const struct wire_layout *l, const void *p, size_t len, void *m)
{
	struct ctrl_cur c;

	memset(m, 0, l->size);
	ctrl_cur_init(&c, p, len);
	get_fields(&c, l, m);
	if (!c.bad && c.pos == c.len)
		return 0;
	wire_release(l, m);
	return c.nomem ? -ENOMEM : -EBADMSG;
}

void wire_release(const struct wire_layout *l, void *m)
{
	unsigned i;

	for (i = 0; i < l->nf; i++) {
		const struct wire_field *f = &l->f[i];
		uint32_t n, k;
		char *e;

		if (f->kind == WIRE_STRUCT)
			wire_release(f->sub, (char *)m + f->off);
		if (f->kind != WIRE_ARRAY && f->kind != WIRE_LIST)
			continue;
		n = *count_of(f, m);
		e = entries_of(f, m);
		for (k = 0; e && k < n && (f->kind == WIRE_LIST || k < f->max_n); k++)
			wire_release(f->sub, e + (size_t)k * f->sub->size);
		if (f->kind == WIRE_LIST) {
			free(e);
			set_list(f, m, NULL);
		}
		*count_of(f, m) = 0;
	}
}

/* ---- limits ------------------------------------------------------------------ */

/* The bytes of field f at its largest (most) or smallest. */
static uint64_t field_len(const struct wire_field *f, bool most)
{
	uint64_t s;

	switch (f->kind) {
	case WIRE_UINT:
	case WIRE_RAW:
		return f->size;
	case WIRE_STRUCT:
		return most ? wire_max(f->sub) : wire_min(f->sub);
	case WIRE_STR:
		s = f->size - 1 < WIRE_STR_MAX - 1 ? f->size - 1 : WIRE_STR_MAX - 1;
		return 2 + (most ? s : f->min);
	case WIRE_ARRAY:
	case WIRE_LIST:
		return 4 + (most ? f->max_n * wire_max(f->sub) : 0);
	}
	return 0;
}

/* The bytes of layout l at its largest (most) or smallest. */
static uint64_t layout_len(const struct wire_layout *l, bool most)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < l->nf && (most || !l->optional || i < l->optional); i++)
		n += field_len(&l->f[i], most);
	return n;
}

uint64_t wire_max(const struct wire_layout *l)
{
	return layout_len(l, true);
}

uint64_t wire_min(const struct wire_layout *l)
{
	return layout_len(l, false);
}

long wire_offset(const struct wire_layout *l, const char *name)
{
	long off = 0;
	unsigned i;

	for (i = 0; i < l->nf; i++) {
		const struct wire_field *f = &l->f[i];

		if (!strcmp(f->name, name))
			return off;
		if (field_len(f, true) != field_len(f, false))
			return -1;
		off += (long)field_len(f, true);
	}
	return -1;
}
