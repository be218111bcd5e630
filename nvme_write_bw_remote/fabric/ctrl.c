// SPDX-License-Identifier: MIT
/*
 * ctrl.c: the control-channel protocol of nvme_write_bw_remote: pure
 * encoders and decoders, then whole-message socket I/O with poll() timeouts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctrl.h"
#include "parse.h"
#include "timing.h"
#include "window.h"

static const char *const type_names[] = {
	[CTRL_HELLO] = "HELLO",	      [CTRL_ACCEPT] = "ACCEPT", [CTRL_ERROR] = "ERROR",
	[CTRL_SLICES] = "SLICES",     [CTRL_CANARY] = "CANARY", [CTRL_START] = "START",
	[CTRL_RESULT] = "RESULT",     [CTRL_VERIFY] = "VERIFY", [CTRL_DONE] = "DONE",
	[CTRL_PROGRESS] = "PROGRESS", [CTRL_AUTH] = "AUTH",	[CTRL_QPS] = "QPS",
};

const char *ctrl_type_name(unsigned type)
{
	if (type >= 1 && type <= CTRL_TYPE_MAX)
		return type_names[type];
	return "unknown";
}

/* ---- encoding -------------------------------------------------------------- */

static void put_bytes(struct ctrl_buf *b, const void *p, size_t n)
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
	put_bytes(b, &v, 1);
}

void ctrl_put_u16(struct ctrl_buf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	put_bytes(b, x, 2);
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

void ctrl_put_str(struct ctrl_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (n > CTRL_MAX_STR - 1)
		n = CTRL_MAX_STR - 1;

	ctrl_put_u16(b, (uint16_t)n);
	put_bytes(b, s, n);
}

void ctrl_buf_init(struct ctrl_buf *b, unsigned type)
{
	*b = (struct ctrl_buf){0};
	ctrl_put_u32(b, CTRL_MAGIC);
	ctrl_put_u16(b, CTRL_VERSION);
	ctrl_put_u16(b, (uint16_t)type);
	ctrl_put_u32(b, 0);
}

int ctrl_buf_finish(struct ctrl_buf *b)
{
	uint32_t n;

	if (b->nomem)
		return -ENOMEM;
	if (b->len - CTRL_HDR_LEN > CTRL_MAX_PAYLOAD)
		return -EMSGSIZE;
	n = (uint32_t)(b->len - CTRL_HDR_LEN);
	b->data[8] = (uint8_t)(n >> 24);
	b->data[9] = (uint8_t)(n >> 16);
	b->data[10] = (uint8_t)(n >> 8);
	b->data[11] = (uint8_t)n;
	return 0;
}

/* ---- decoding -------------------------------------------------------------- */

static const uint8_t *get_bytes(struct ctrl_cur *c, size_t n)
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
	const uint8_t *p = get_bytes(c, 1);

	return p ? p[0] : 0;
}

uint16_t ctrl_get_u16(struct ctrl_cur *c)
{
	const uint8_t *p = get_bytes(c, 2);

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
	const uint8_t *p = get_bytes(c, n);

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

static void cur_init(struct ctrl_cur *c, const void *p, size_t len)
{
	*c = (struct ctrl_cur){.p = p, .len = len};
}

/* A payload is good when it was read exactly to its end. */
static int cur_done(const struct ctrl_cur *c)
{
	return c->bad || c->pos != c->len ? -EBADMSG : 0;
}

int ctrl_parse_header(const uint8_t hdr[CTRL_HDR_LEN], unsigned *type, uint32_t *len,
		      unsigned *version)
{
	struct ctrl_cur c;
	uint32_t magic;

	cur_init(&c, hdr, CTRL_HDR_LEN);
	magic = ctrl_get_u32(&c);
	*version = ctrl_get_u16(&c);
	*type = ctrl_get_u16(&c);
	*len = ctrl_get_u32(&c);
	if (magic != CTRL_MAGIC)
		return -EPROTO;
	if (*version != CTRL_VERSION)
		return -EPROTONOSUPPORT;
	if (*type < 1 || *type > CTRL_TYPE_MAX)
		return -EBADMSG;
	if (*len > CTRL_MAX_PAYLOAD)
		return -EMSGSIZE;
	return 0;
}

/* ---- messages -------------------------------------------------------------- */

int ctrl_encode_hello(struct ctrl_buf *b, const struct ctrl_hello *m)
{
	ctrl_buf_init(b, CTRL_HELLO);
	ctrl_put_u64(b, m->chunk);
	ctrl_put_u32(b, m->depth);
	ctrl_put_u32(b, m->workers);
	ctrl_put_u64(b, m->warmup_ms);
	ctrl_put_u64(b, m->duration_ms);
	ctrl_put_u8(b, m->verify);
	ctrl_put_u8(b, m->source);
	ctrl_put_u8(b, m->conn);
	ctrl_put_u8(b, m->mtu);
	ctrl_put_u8(b, m->sl);
	ctrl_put_u8(b, m->tclass);
	return ctrl_buf_finish(b);
}

int ctrl_decode_hello(const void *p, size_t len, struct ctrl_hello *m)
{
	struct ctrl_cur c;

	cur_init(&c, p, len);
	m->chunk = ctrl_get_u64(&c);
	m->depth = ctrl_get_u32(&c);
	m->workers = ctrl_get_u32(&c);
	m->warmup_ms = ctrl_get_u64(&c);
	m->duration_ms = ctrl_get_u64(&c);
	m->verify = ctrl_get_u8(&c);
	m->source = ctrl_get_u8(&c);
	m->conn = ctrl_get_u8(&c);
	m->mtu = ctrl_get_u8(&c);
	m->sl = ctrl_get_u8(&c);
	m->tclass = ctrl_get_u8(&c);
	if (m->verify > CTRL_VERIFY_FULL || m->source > CTRL_SOURCE_MEM || !m->chunk || !m->depth ||
	    !m->workers || m->workers > CTRL_MAX_WORKERS || m->conn > CTRL_CONN_CM || m->mtu > 5 ||
	    m->sl > 15)
		return -EBADMSG;
	return cur_done(&c);
}

static void put_raw(struct ctrl_buf *b, const uint8_t *p, size_t n)
{
	put_bytes(b, p, n);
}

static bool get_raw(struct ctrl_cur *c, uint8_t *out, size_t n)
{
	const uint8_t *p = get_bytes(c, n);

	if (p)
		memcpy(out, p, n);
	return p != NULL;
}

static void put_port(struct ctrl_buf *b, const struct ctrl_port *p)
{
	ctrl_put_str(b, p->dev);
	ctrl_put_u8(b, p->port);
	ctrl_put_u8(b, p->link);
	ctrl_put_u16(b, p->lid);
	put_raw(b, p->gid, sizeof(p->gid));
	ctrl_put_str(b, p->addr);
	ctrl_put_u8(b, p->prefix_len);
	ctrl_put_u32(b, (uint32_t)p->numa_node);
	ctrl_put_u32(b, p->rate_mbps);
	ctrl_put_u8(b, p->mtu);
	ctrl_put_u8(b, p->software);
}

static void get_port(struct ctrl_cur *c, struct ctrl_port *p)
{
	ctrl_get_str(c, p->dev, sizeof(p->dev));
	p->port = ctrl_get_u8(c);
	p->link = ctrl_get_u8(c);
	p->lid = ctrl_get_u16(c);
	get_raw(c, p->gid, sizeof(p->gid));
	ctrl_get_str(c, p->addr, sizeof(p->addr));
	p->prefix_len = ctrl_get_u8(c);
	p->numa_node = (int32_t)ctrl_get_u32(c);
	p->rate_mbps = ctrl_get_u32(c);
	p->mtu = ctrl_get_u8(c);
	p->software = ctrl_get_u8(c);
	if (!p->dev[0] || !p->port || p->link < 1 || p->link > 2 || p->prefix_len > 32 ||
	    p->mtu > 5 || p->software > 1)
		c->bad = true;
}

int ctrl_encode_accept(struct ctrl_buf *b, const struct ctrl_accept *m)
{
	uint32_t i;

	ctrl_buf_init(b, CTRL_ACCEPT);
	ctrl_put_u64(b, m->session);
	ctrl_put_u32(b, m->nports);
	for (i = 0; i < m->nports && i < CTRL_MAX_PORTS; i++)
		put_port(b, &m->ports[i]);
	return ctrl_buf_finish(b);
}

int ctrl_decode_accept(const void *p, size_t len, struct ctrl_accept *m)
{
	struct ctrl_cur c;
	uint32_t i;

	cur_init(&c, p, len);
	m->session = ctrl_get_u64(&c);
	m->nports = ctrl_get_u32(&c);
	if (m->nports > CTRL_MAX_PORTS) {
		m->nports = 0;
		return -EBADMSG;
	}
	for (i = 0; i < m->nports && !c.bad; i++)
		get_port(&c, &m->ports[i]);
	return cur_done(&c);
}

static void put_qp(struct ctrl_buf *b, const struct ctrl_qp *q)
{
	ctrl_put_u16(b, q->lid);
	put_raw(b, q->gid, sizeof(q->gid));
	ctrl_put_u32(b, q->qpn);
	ctrl_put_u32(b, q->psn);
	ctrl_put_u8(b, q->mtu);
}

static void get_qp(struct ctrl_cur *c, struct ctrl_qp *q)
{
	q->lid = ctrl_get_u16(c);
	get_raw(c, q->gid, sizeof(q->gid));
	q->qpn = ctrl_get_u32(c);
	q->psn = ctrl_get_u32(c);
	q->mtu = ctrl_get_u8(c);
	if (q->qpn > 0xffffff || q->psn > 0xffffff || q->mtu > 5)
		c->bad = true;
}

#define QP_WIRE_LEN (2 + 16 + 4 + 4 + 1)

int ctrl_encode_qps(struct ctrl_buf *b, const struct ctrl_wqp *q, uint32_t n)
{
	uint32_t i;

	ctrl_buf_init(b, CTRL_QPS);
	ctrl_put_u32(b, n);
	for (i = 0; i < n; i++) {
		ctrl_put_u16(b, q[i].sink_port);
		ctrl_put_str(b, q[i].dev);
		ctrl_put_u8(b, q[i].port);
		put_qp(b, &q[i].qp);
	}
	return ctrl_buf_finish(b);
}

int ctrl_decode_qps(const void *p, size_t len, struct ctrl_wqp **q, uint32_t *n)
{
	struct ctrl_cur c;
	uint32_t i;

	*q = NULL;
	cur_init(&c, p, len);
	*n = ctrl_get_u32(&c);
	/* Each entry takes at least 2 + 2 + 1 + QP_WIRE_LEN bytes: a larger count is forged. */
	if (c.bad || *n > CTRL_MAX_WORKERS || (uint64_t)*n * (5 + QP_WIRE_LEN) > c.len - c.pos)
		return -EBADMSG;
	if (!*n)
		return cur_done(&c);
	*q = calloc(*n, sizeof(**q));
	if (!*q)
		return -ENOMEM;
	for (i = 0; i < *n && !c.bad; i++) {
		(*q)[i].sink_port = ctrl_get_u16(&c);
		ctrl_get_str(&c, (*q)[i].dev, sizeof((*q)[i].dev));
		(*q)[i].port = ctrl_get_u8(&c);
		get_qp(&c, &(*q)[i].qp);
	}
	if (cur_done(&c)) {
		free(*q);
		*q = NULL;
		return -EBADMSG;
	}
	return 0;
}

int ctrl_encode_error(struct ctrl_buf *b, const char *msg)
{
	ctrl_buf_init(b, CTRL_ERROR);
	ctrl_put_str(b, msg);
	return ctrl_buf_finish(b);
}

int ctrl_decode_error(const void *p, size_t len, struct ctrl_error *m)
{
	struct ctrl_cur c;

	cur_init(&c, p, len);
	ctrl_get_str(&c, m->msg, sizeof(m->msg));
	return cur_done(&c);
}

int ctrl_encode_slices(struct ctrl_buf *b, const struct ctrl_slice *s, uint32_t n)
{
	uint32_t i;

	ctrl_buf_init(b, CTRL_SLICES);
	ctrl_put_u32(b, n);
	for (i = 0; i < n; i++) {
		ctrl_put_u64(b, s[i].addr);
		ctrl_put_u64(b, s[i].len);
		ctrl_put_u32(b, s[i].rkey);
		put_qp(b, &s[i].qp);
	}
	return ctrl_buf_finish(b);
}

/*
 * Read a count of fixed-size entries; the count must match the bytes left
 * exactly, so a forged count cannot make us allocate more than was sent.
 */
static int get_count(struct ctrl_cur *c, size_t entsize, uint32_t *n)
{
	*n = ctrl_get_u32(c);
	if (c->bad || (uint64_t)*n * entsize != c->len - c->pos)
		return -EBADMSG;
	return 0;
}

int ctrl_decode_slices(const void *p, size_t len, struct ctrl_slice **s, uint32_t *n)
{
	struct ctrl_cur c;
	uint32_t i;

	*s = NULL;
	cur_init(&c, p, len);
	if (get_count(&c, 20 + QP_WIRE_LEN, n) || *n > CTRL_MAX_WORKERS)
		return -EBADMSG;
	if (*n == 0)
		return cur_done(&c);
	*s = calloc(*n, sizeof(**s));
	if (!*s)
		return -ENOMEM;
	for (i = 0; i < *n; i++) {
		(*s)[i].addr = ctrl_get_u64(&c);
		(*s)[i].len = ctrl_get_u64(&c);
		(*s)[i].rkey = ctrl_get_u32(&c);
		get_qp(&c, &(*s)[i].qp);
	}
	if (cur_done(&c)) {
		free(*s);
		*s = NULL;
		return -EBADMSG;
	}
	return 0;
}

int ctrl_encode_chunks(struct ctrl_buf *b, unsigned type, const struct ctrl_chunk *ch, uint32_t n)
{
	uint32_t i;

	ctrl_buf_init(b, type);
	ctrl_put_u32(b, n);
	for (i = 0; i < n; i++) {
		ctrl_put_u32(b, ch[i].worker);
		ctrl_put_u32(b, ch[i].slot);
		ctrl_put_u64(b, ch[i].offset);
		ctrl_put_u32(b, ch[i].len);
		ctrl_put_u64(b, ch[i].digest);
	}
	return ctrl_buf_finish(b);
}

int ctrl_decode_chunks(const void *p, size_t len, struct ctrl_chunk **ch, uint32_t *n)
{
	struct ctrl_cur c;
	uint32_t i;

	*ch = NULL;
	cur_init(&c, p, len);
	if (get_count(&c, 28, n))
		return -EBADMSG;
	if (*n == 0)
		return cur_done(&c);
	*ch = calloc(*n, sizeof(**ch));
	if (!*ch)
		return -ENOMEM;
	for (i = 0; i < *n; i++) {
		(*ch)[i].worker = ctrl_get_u32(&c);
		(*ch)[i].slot = ctrl_get_u32(&c);
		(*ch)[i].offset = ctrl_get_u64(&c);
		(*ch)[i].len = ctrl_get_u32(&c);
		(*ch)[i].digest = ctrl_get_u64(&c);
	}
	return cur_done(&c);
}

int ctrl_encode_start(struct ctrl_buf *b, const struct ctrl_start *m)
{
	ctrl_buf_init(b, CTRL_START);
	ctrl_put_u64(b, m->warmup_ms);
	ctrl_put_u64(b, m->duration_ms);
	ctrl_put_u32(b, m->progress_ms);
	return ctrl_buf_finish(b);
}

int ctrl_decode_start(const void *p, size_t len, struct ctrl_start *m)
{
	struct ctrl_cur c;

	cur_init(&c, p, len);
	m->warmup_ms = ctrl_get_u64(&c);
	m->duration_ms = ctrl_get_u64(&c);
	m->progress_ms = ctrl_get_u32(&c);
	if (m->progress_ms < CTRL_PROGRESS_MIN_MS || m->progress_ms > CTRL_PROGRESS_MAX_MS)
		return -EBADMSG;
	return cur_done(&c);
}

int ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m)
{
	uint32_t i;

	ctrl_buf_init(b, CTRL_RESULT);
	ctrl_put_u8(b, m->ok);
	ctrl_put_u64(b, m->bytes);
	ctrl_put_u64(b, m->window_ns);
	ctrl_put_u32(b, m->ndrives);
	for (i = 0; i < m->ndrives; i++) {
		const struct ctrl_drive *d = &m->drives[i];

		ctrl_put_str(b, d->path);
		ctrl_put_str(b, d->model);
		ctrl_put_u32(b, (uint32_t)d->numa_node);
		ctrl_put_u32(b, d->workers);
		ctrl_put_u64(b, d->bytes);
	}
	ctrl_put_u32(b, m->nrails);
	for (i = 0; i < m->nrails; i++) {
		ctrl_put_str(b, m->rails[i].dev);
		ctrl_put_u8(b, m->rails[i].port);
		ctrl_put_u16(b, m->rails[i].sink_port);
		ctrl_put_u32(b, m->rails[i].qps);
		ctrl_put_u64(b, m->rails[i].bytes);
		ctrl_put_u32(b, m->rails[i].line_mbps);
	}
	ctrl_put_u64(b, m->open_ns);
	ctrl_put_u32(b, m->cv_milli_pct);
	return ctrl_buf_finish(b);
}

/* The rails of a RESULT (after its drives). 0 or -EBADMSG / -ENOMEM. */
static int get_rails(struct ctrl_cur *c, struct ctrl_result *m)
{
	uint32_t i;

	m->nrails = ctrl_get_u32(c);
	/* Each rail takes at least 21 bytes: a count beyond that is forged. */
	if (c->bad || m->nrails > CTRL_MAX_RAILS || (uint64_t)m->nrails * 21 > c->len - c->pos) {
		m->nrails = 0;
		return -EBADMSG;
	}
	if (!m->nrails)
		return 0;
	m->rails = calloc(m->nrails, sizeof(*m->rails));
	if (!m->rails) {
		m->nrails = 0;
		return -ENOMEM;
	}
	for (i = 0; i < m->nrails; i++) {
		ctrl_get_str(c, m->rails[i].dev, sizeof(m->rails[i].dev));
		m->rails[i].port = ctrl_get_u8(c);
		m->rails[i].sink_port = ctrl_get_u16(c);
		m->rails[i].qps = ctrl_get_u32(c);
		m->rails[i].bytes = ctrl_get_u64(c);
		m->rails[i].line_mbps = ctrl_get_u32(c);
	}
	return 0;
}

int ctrl_decode_result(const void *p, size_t len, struct ctrl_result *m)
{
	struct ctrl_cur c;
	uint32_t i;

	memset(m, 0, sizeof(*m));
	cur_init(&c, p, len);
	m->ok = ctrl_get_u8(&c);
	m->bytes = ctrl_get_u64(&c);
	m->window_ns = ctrl_get_u64(&c);
	m->ndrives = ctrl_get_u32(&c);
	/* Each drive takes at least 20 bytes: a count beyond that is forged. */
	if (c.bad || m->ok > 1 || m->ndrives > CTRL_MAX_DRIVES ||
	    (uint64_t)m->ndrives * 20 > c.len - c.pos) {
		m->ndrives = 0;
		return -EBADMSG;
	}
	if (m->ndrives) {
		m->drives = calloc(m->ndrives, sizeof(*m->drives));
		if (!m->drives) {
			m->ndrives = 0;
			return -ENOMEM;
		}
	}
	for (i = 0; i < m->ndrives; i++) {
		struct ctrl_drive *d = &m->drives[i];

		ctrl_get_str(&c, d->path, sizeof(d->path));
		ctrl_get_str(&c, d->model, sizeof(d->model));
		d->numa_node = (int32_t)ctrl_get_u32(&c);
		d->workers = ctrl_get_u32(&c);
		d->bytes = ctrl_get_u64(&c);
	}
	if (get_rails(&c, m)) {
		ctrl_result_free(m);
		return -EBADMSG;
	}
	m->open_ns = ctrl_get_u64(&c);
	m->cv_milli_pct = ctrl_get_u32(&c);
	if (cur_done(&c)) {
		ctrl_result_free(m);
		return -EBADMSG;
	}
	return 0;
}

void ctrl_result_free(struct ctrl_result *m)
{
	free(m->drives);
	free(m->rails);
	m->drives = NULL;
	m->rails = NULL;
	m->ndrives = 0;
	m->nrails = 0;
}

int ctrl_encode_done(struct ctrl_buf *b, const struct ctrl_done *m)
{
	ctrl_buf_init(b, CTRL_DONE);
	ctrl_put_u8(b, m->verify);
	return ctrl_buf_finish(b);
}

int ctrl_decode_done(const void *p, size_t len, struct ctrl_done *m)
{
	struct ctrl_cur c;

	cur_init(&c, p, len);
	m->verify = ctrl_get_u8(&c);
	if (m->verify > 2)
		return -EBADMSG;
	return cur_done(&c);
}

int ctrl_encode_progress(struct ctrl_buf *b, const struct ctrl_progress *m)
{
	ctrl_buf_init(b, CTRL_PROGRESS);
	ctrl_put_u64(b, m->elapsed_ns);
	ctrl_put_u64(b, m->bytes);
	ctrl_put_u64(b, m->window_ns);
	ctrl_put_u64(b, m->window_bytes);
	return ctrl_buf_finish(b);
}

int ctrl_decode_progress(const void *p, size_t len, struct ctrl_progress *m)
{
	struct ctrl_cur c;

	cur_init(&c, p, len);
	m->elapsed_ns = ctrl_get_u64(&c);
	m->bytes = ctrl_get_u64(&c);
	m->window_ns = ctrl_get_u64(&c);
	m->window_bytes = ctrl_get_u64(&c);
	if (m->window_ns > m->elapsed_ns || m->window_bytes > m->bytes)
		return -EBADMSG;
	return cur_done(&c);
}

int ctrl_encode_auth(struct ctrl_buf *b, const struct ctrl_auth *m)
{
	ctrl_buf_init(b, CTRL_AUTH);
	ctrl_put_u8(b, m->has_key);
	put_bytes(b, m->nonce, sizeof(m->nonce));
	put_bytes(b, m->mac, sizeof(m->mac));
	return ctrl_buf_finish(b);
}

int ctrl_decode_auth(const void *p, size_t len, struct ctrl_auth *m)
{
	struct ctrl_cur c;
	const uint8_t *n, *mac;

	cur_init(&c, p, len);
	m->has_key = ctrl_get_u8(&c);
	n = get_bytes(&c, sizeof(m->nonce));
	mac = get_bytes(&c, sizeof(m->mac));
	if (!n || !mac || m->has_key > 1)
		return -EBADMSG;
	memcpy(m->nonce, n, sizeof(m->nonce));
	memcpy(m->mac, mac, sizeof(m->mac));
	return cur_done(&c);
}

uint32_t ctrl_payload_max(unsigned type)
{
	/* A drive of a RESULT: two strings, NUMA node, workers, bytes. */
	const uint32_t drive = 2 + (CTRL_PATH_LEN - 1) + 2 + (CTRL_PATH_LEN - 1) + 4 + 4 + 8;
	const uint32_t rail = 2 + 63 + 1 + 2 + 4 + 8 + 4;
	const uint32_t port = 2 + 63 + 1 + 1 + 2 + 16 + 2 + 63 + 1 + 4 + 4 + 1 + 1;

	switch (type) {
	case CTRL_HELLO:
		return 38;
	case CTRL_ACCEPT:
		return 8 + 4 + port * CTRL_MAX_PORTS;
	case CTRL_QPS:
		return 4 + (2 + 2 + 63 + 1 + QP_WIRE_LEN) * CTRL_MAX_WORKERS;
	case CTRL_ERROR:
		return 2 + CTRL_MAX_STR;
	case CTRL_SLICES:
		return 4 + (20 + QP_WIRE_LEN) * CTRL_MAX_WORKERS;
	case CTRL_CANARY:
		return 4 + 28 * CTRL_MAX_WORKERS;
	case CTRL_VERIFY:
		return 4 + 28 * CTRL_MAX_WORKERS * CTRL_FULL_RING_MAX;
	case CTRL_START:
		return 20;
	case CTRL_RESULT:
		return 1 + 8 + 8 + 4 + drive * CTRL_MAX_DRIVES + 4 + rail * CTRL_MAX_RAILS + 12;
	case CTRL_DONE:
		return 1;
	case CTRL_PROGRESS:
		return 32;
	case CTRL_AUTH:
		return 1 + CTRL_NONCE_LEN + CTRL_MAC_LEN;
	}
	return 0;
}

uint32_t ctrl_fixed_len(unsigned type)
{
	switch (type) {
	case CTRL_HELLO:
	case CTRL_START:
	case CTRL_DONE:
	case CTRL_PROGRESS:
	case CTRL_AUTH:
		return ctrl_payload_max(type);
	}
	return 0;
}

#define BIT(t) (1u << (t))

uint32_t ctrl_phase_allows(unsigned phase)
{
	/* Before admission no ERROR either: a stranger's text is not read. */
	static const uint32_t allows[CTRL_PHASE_MAX + 1] = {
		[CTRL_PHASE_AUTH] = BIT(CTRL_AUTH),
		[CTRL_PHASE_PROOF] = BIT(CTRL_AUTH),
		[CTRL_PHASE_HELLO] = BIT(CTRL_HELLO),
		[CTRL_PHASE_QPS] = BIT(CTRL_QPS) | BIT(CTRL_ERROR),
		[CTRL_PHASE_CANARY] = BIT(CTRL_CANARY) | BIT(CTRL_ERROR),
		[CTRL_PHASE_WINDOW] = BIT(CTRL_PROGRESS) | BIT(CTRL_RESULT) | BIT(CTRL_ERROR),
		[CTRL_PHASE_VERIFY] = BIT(CTRL_VERIFY) | BIT(CTRL_ERROR),
		[CTRL_PHASE_END] = BIT(CTRL_ERROR),
	};

	return phase <= CTRL_PHASE_MAX ? allows[phase] : 0;
}

unsigned ctrl_phase_next(unsigned phase, unsigned type, bool key, bool verbs, bool full)
{
	if (!(ctrl_phase_allows(phase) & BIT(type)) || type == CTRL_ERROR)
		return CTRL_PHASE_END;
	switch (phase) {
	case CTRL_PHASE_AUTH:
		return key ? CTRL_PHASE_PROOF : CTRL_PHASE_HELLO;
	case CTRL_PHASE_PROOF:
		return CTRL_PHASE_HELLO;
	case CTRL_PHASE_HELLO:
		return verbs ? CTRL_PHASE_QPS : CTRL_PHASE_CANARY;
	case CTRL_PHASE_QPS:
		return CTRL_PHASE_CANARY;
	case CTRL_PHASE_CANARY:
		return CTRL_PHASE_WINDOW;
	case CTRL_PHASE_WINDOW:
		return type == CTRL_PROGRESS ? CTRL_PHASE_WINDOW
		       : full		     ? CTRL_PHASE_VERIFY
					     : CTRL_PHASE_END;
	}
	return CTRL_PHASE_END;
}

const char *ctrl_verify_name(unsigned v)
{
	return v == CTRL_VERIFY_OFF ? "off" : v == CTRL_VERIFY_FULL ? "full" : "canary";
}

bool ctrl_hello_mismatch(const struct ctrl_hello *k, const struct ctrl_hello *s, char *why,
			 size_t len)
{
	char a[32], b[32];

	why[0] = '\0';
	if (k->chunk != s->chunk)
		snprintf(why, len, "chunk: sink %s, source %s", format_size(k->chunk, a, sizeof(a)),
			 format_size(s->chunk, b, sizeof(b)));
	else if (k->depth != s->depth)
		snprintf(why, len, "depth: sink %u, source %u", k->depth, s->depth);
	else if (k->warmup_ms != s->warmup_ms)
		snprintf(why, len, "warm-up: sink %g s, source %g s", k->warmup_ms / 1e3,
			 s->warmup_ms / 1e3);
	else if (k->duration_ms != s->duration_ms)
		snprintf(why, len, "duration: sink %g s, source %g s", k->duration_ms / 1e3,
			 s->duration_ms / 1e3);
	else if (k->verify != s->verify)
		snprintf(why, len, "verify: sink %s, source %s", ctrl_verify_name(k->verify),
			 ctrl_verify_name(s->verify));
	else if (k->conn != s->conn)
		snprintf(why, len,
			 "connection: sink %s, source %s (-R/--rdma_cm on both or neither)",
			 k->conn == CTRL_CONN_CM ? "rdma_cm" : "verbs",
			 s->conn == CTRL_CONN_CM ? "rdma_cm" : "verbs");
	else if (k->mtu != s->mtu || k->sl != s->sl || k->tclass != s->tclass)
		snprintf(why, len, "--mtu/--sl/--tclass: sink %u/%u/%u, source %u/%u/%u", k->mtu,
			 k->sl, k->tclass, s->mtu, s->sl, s->tclass);
	return why[0] != '\0';
}

/* ---- sockets --------------------------------------------------------------- */

/* Milliseconds left until deadline (ns), 0 if passed; -1 stays "forever". */
static int ms_left(uint64_t deadline, int timeout_ms)
{
	uint64_t now;

	if (timeout_ms < 0)
		return -1;
	now = nbw_now_ns();
	return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

static uint64_t deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? 0 : nbw_now_ns() + (uint64_t)timeout_ms * 1000000;
}

#define WAIT_SLICE_MS 200

/*
 * poll one fd for events until deadline, in slices so that SIGINT/SIGTERM
 * (blocked, taken synchronously) end the wait within WAIT_SLICE_MS.
 * 0 ready, -ETIMEDOUT, -EINTR or -errno.
 */
static int wait_fd(int fd, short events, uint64_t deadline, int timeout_ms)
{
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = events};
		int left = ms_left(deadline, timeout_ms);
		int n;

		if (nbw_interrupted())
			return -EINTR;
		if (left < 0 || left > WAIT_SLICE_MS)
			n = poll(&pfd, 1, WAIT_SLICE_MS);
		else
			n = poll(&pfd, 1, left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n == 0 && left >= 0 && left <= WAIT_SLICE_MS)
			return -ETIMEDOUT;
	}
}

static int resolve(const char *host, unsigned port, bool passive, struct addrinfo **res)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	char serv[16];
	int rc;

	if (passive)
		hints.ai_flags = AI_PASSIVE;
	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, res);
	if (rc == EAI_SYSTEM)
		return -errno;
	return rc ? -EADDRNOTAVAIL : 0;
}

int ctrl_listen(const char *addr, unsigned port)
{
	struct addrinfo *res, *ai;
	int fd = -1, rc, one = 1;

	rc = resolve(addr, port, true, &res);
	if (rc)
		return rc;
	rc = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 8))
			break;
		rc = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : rc;
}

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int ctrl_accept(int lfd, int timeout_ms, char *peer, size_t peerlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int rc, fd;

	rc = wait_fd(lfd, POLLIN, deadline_of(timeout_ms), timeout_ms);
	if (rc)
		return rc;
	fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	set_nodelay(fd);
	if (peer && getnameinfo((struct sockaddr *)&ss, sl, peer, (socklen_t)peerlen, NULL, 0,
				NI_NUMERICHOST))
		snprintf(peer, peerlen, "?");
	return fd;
}

int ctrl_connect(const char *host, unsigned port, int timeout_ms)
{
	uint64_t deadline = deadline_of(timeout_ms);
	struct addrinfo *res, *ai;
	int fd = -1, rc;

	rc = resolve(host, port, false, &res);
	if (rc)
		return rc;
	rc = -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		int err = 0;
		socklen_t el = sizeof(err);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
			rc = -errno;
		} else {
			rc = wait_fd(fd, POLLOUT, deadline, timeout_ms);
			if (!rc && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
				rc = -errno;
			else if (!rc && err)
				rc = -err;
		}
		if (!rc)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return rc;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	set_nodelay(fd);
	return fd;
}

/*
 * n bytes through the socket before the deadline: sent from p (out), or
 * received into p. 0, -ECONNRESET when the peer closed, or -errno.
 */
static int move_all(int fd, uint8_t *p, size_t n, bool out, uint64_t deadline, int timeout_ms)
{
	while (n) {
		ssize_t k;
		int rc = wait_fd(fd, out ? POLLOUT : POLLIN, deadline, timeout_ms);

		if (rc)
			return rc;
		k = out ? send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT)
			: recv(fd, p, n, MSG_DONTWAIT);
		if (k == 0 && !out)
			return -ECONNRESET;
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int ctrl_send(int fd, const struct ctrl_buf *b, int timeout_ms)
{
	return move_all(fd, b->data, b->len, true, deadline_of(timeout_ms), timeout_ms);
}

int ctrl_send_free(int fd, struct ctrl_buf *b, int enc_rc, int timeout_ms)
{
	int rc = enc_rc ? enc_rc : ctrl_send(fd, b, timeout_ms);

	free(b->data);
	b->data = NULL;
	return rc;
}

int ctrl_recv(int fd, unsigned *type, void **payload, uint32_t *len, int timeout_ms)
{
	uint64_t deadline = deadline_of(timeout_ms);
	uint8_t hdr[CTRL_HDR_LEN];
	unsigned version;
	uint8_t *p = NULL;
	int rc;

	*payload = NULL;
	*len = 0;
	rc = move_all(fd, hdr, sizeof(hdr), false, deadline, timeout_ms);
	if (rc)
		return rc;
	rc = ctrl_parse_header(hdr, type, len, &version);
	if (rc)
		return rc;
	if (*len > ctrl_payload_max(*type))
		return -EMSGSIZE;
	if (*len) {
		p = malloc(*len);
		if (!p)
			return -ENOMEM;
		rc = move_all(fd, p, *len, false, deadline, timeout_ms);
		if (rc) {
			free(p);
			return rc;
		}
	}
	*payload = p;
	return 0;
}

void ctrl_inbox_reset(struct ctrl_inbox *in)
{
	uint32_t allow = in->allow;

	free(in->payload);
	memset(in, 0, sizeof(*in));
	in->allow = allow;
}

/* Read up to n bytes now: the count (0 = nothing yet), or -ECONNRESET / -errno. */
static ssize_t read_some(int fd, uint8_t *p, size_t n)
{
	ssize_t k = recv(fd, p, n, MSG_DONTWAIT);

	if (k == 0)
		return -ECONNRESET;
	if (k < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	return k;
}

int ctrl_inbox_read(struct ctrl_inbox *in, int fd)
{
	unsigned version;
	ssize_t k;
	int rc;

	if (in->hdr_got < CTRL_HDR_LEN) {
		k = read_some(fd, in->hdr + in->hdr_got, CTRL_HDR_LEN - in->hdr_got);
		if (k <= 0)
			return (int)k;
		in->hdr_got += (size_t)k;
		if (in->hdr_got < CTRL_HDR_LEN)
			return 0;
		rc = ctrl_parse_header(in->hdr, &in->type, &in->len, &version);
		if (rc)
			return rc;
		if (in->allow && !(in->allow & BIT(in->type)))
			return -EBADMSG;
		if (in->len > ctrl_payload_max(in->type) ||
		    (in->allow && ctrl_fixed_len(in->type) && in->len != ctrl_fixed_len(in->type)))
			return -EMSGSIZE;
		if (in->len && !(in->payload = malloc(in->len)))
			return -ENOMEM;
	}
	if (in->got < in->len) {
		k = read_some(fd, in->payload + in->got, in->len - in->got);
		if (k < 0)
			return (int)k;
		in->got += (size_t)k;
	}
	return in->got == in->len ? 1 : 0;
}

int ctrl_inbox_pump(struct ctrl_inbox *in, int fd, unsigned max, ctrl_take_fn take, void *ctx,
		    unsigned *taken)
{
	unsigned n;
	int rc = 0;

	for (n = 0; n < max && !rc; n++) {
		rc = ctrl_inbox_read(in, fd);
		if (rc <= 0)
			break;
		rc = take(ctx, in->type, in->payload, in->len);
		ctrl_inbox_reset(in);
	}
	if (taken)
		*taken = n;
	return rc;
}

int ctrl_expect(int fd, unsigned want, void **payload, uint32_t *len, int timeout_ms,
		char *peer_err, size_t errlen)
{
	unsigned type;
	int rc;

	peer_err[0] = '\0';
	rc = ctrl_recv(fd, &type, payload, len, timeout_ms);
	if (rc)
		return rc;
	if (type == want)
		return 0;
	if (type == CTRL_ERROR) {
		struct ctrl_error e;

		if (ctrl_decode_error(*payload, *len, &e))
			snprintf(e.msg, sizeof(e.msg), "(malformed ERROR message)");
		snprintf(peer_err, errlen, "%s", e.msg);
		rc = -ECONNABORTED;
	} else {
		snprintf(peer_err, errlen, "expected %s, got %s", ctrl_type_name(want),
			 ctrl_type_name(type));
		rc = -EBADMSG;
	}
	free(*payload);
	*payload = NULL;
	return rc;
}

int ctrl_await(int fd, unsigned want, void *msg, int timeout_ms, char *peer_err, size_t errlen)
{
	uint32_t len;
	void *p;
	int rc = ctrl_expect(fd, want, &p, &len, timeout_ms, peer_err, errlen);

	if (rc)
		return rc;
	rc = want == CTRL_ACCEPT  ? ctrl_decode_accept(p, len, msg)
	     : want == CTRL_AUTH  ? ctrl_decode_auth(p, len, msg)
	     : want == CTRL_START ? ctrl_decode_start(p, len, msg)
	     : want == CTRL_DONE  ? ctrl_decode_done(p, len, msg)
				  : -EINVAL;
	free(p);
	return rc;
}

const char *ctrl_strerror(int rc)
{
	switch (rc) {
	case -EPROTO:
		return "not the nvme_write_bw_remote protocol (bad magic)";
	case -EPROTONOSUPPORT:
		return "another protocol version";
	case -EBADMSG:
		return "malformed message";
	case -EMSGSIZE:
		return "message too large";
	case -ETIMEDOUT:
		return "timed out";
	case -ECONNRESET:
		return "connection closed by the peer";
	case -EINTR:
		return "interrupted";
	default:
		return strerror(-rc);
	}
}
