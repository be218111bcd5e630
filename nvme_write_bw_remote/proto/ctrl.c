// SPDX-License-Identifier: MIT
/*
 * ctrl.c: the control protocol of nvme_write_bw_remote as tables: the layout
 * of every message's payload (fields in wire order, the values a decoder
 * accepts), then one table of messages (name, layout, who sends it, in
 * which of the sink's phases a source's message is taken). Encoders,
 * decoders, payload limits, fixed sizes and the phases' masks all follow
 * from these tables; wire.c walks them. No sockets here (ctrl_io.c).
 */
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "parse.h"

/* ---- layouts: one place says each payload's fields, in wire order ----------- */

static const struct wire_field hello_f[] = {
	WIRE_UINT_IN(struct ctrl_hello, chunk, 1, UINT64_MAX),
	WIRE_UINT_IN(struct ctrl_hello, depth, 1, UINT32_MAX),
	WIRE_UINT_IN(struct ctrl_hello, workers, 1, CTRL_MAX_WORKERS),
	WIRE_U(struct ctrl_hello, warmup_ms),
	WIRE_U(struct ctrl_hello, duration_ms),
	WIRE_UINT_IN(struct ctrl_hello, verify, 0, CTRL_VERIFY_FULL),
	WIRE_UINT_IN(struct ctrl_hello, source, 0, CTRL_SOURCE_MEM),
	WIRE_UINT_IN(struct ctrl_hello, conn, 0, CTRL_CONN_CM),
	WIRE_UINT_IN(struct ctrl_hello, mtu, 0, CTRL_MTU_MAX),
	WIRE_UINT_IN(struct ctrl_hello, sl, 0, 15),
	WIRE_U(struct ctrl_hello, tclass),
};
static const struct wire_layout hello_l = WIRE_LAYOUT(struct ctrl_hello, hello_f, NULL);

static const struct wire_field port_f[] = {
	WIRE_STR_OF(struct ctrl_port, dev, 1),
	WIRE_UINT_IN(struct ctrl_port, port, 1, UINT8_MAX),
	WIRE_UINT_IN(struct ctrl_port, link, 1, 2),
	WIRE_U(struct ctrl_port, lid),
	WIRE_RAW_OF(struct ctrl_port, gid),
	WIRE_STR_OF(struct ctrl_port, addr, 0),
	WIRE_UINT_IN(struct ctrl_port, prefix_len, 0, 32),
	WIRE_U(struct ctrl_port, numa_node),
	WIRE_U(struct ctrl_port, rate_mbps),
	WIRE_UINT_IN(struct ctrl_port, mtu, 0, CTRL_MTU_MAX),
	WIRE_UINT_IN(struct ctrl_port, software, 0, 1),
};
static const struct wire_layout port_l = WIRE_LAYOUT(struct ctrl_port, port_f, NULL);

static const struct wire_field accept_f[] = {
	WIRE_U(struct ctrl_accept, session),
	WIRE_ARRAY_OF(struct ctrl_accept, ports, nports, CTRL_MAX_PORTS, port_l),
};
static const struct wire_layout accept_l = WIRE_LAYOUT(struct ctrl_accept, accept_f, NULL);

static const struct wire_field error_f[] = {
	WIRE_STR_OF(struct ctrl_error, msg, 0),
};
static const struct wire_layout error_l = WIRE_LAYOUT(struct ctrl_error, error_f, NULL);

static const struct wire_field qp_f[] = {
	WIRE_U(struct ctrl_qp, lid),
	WIRE_RAW_OF(struct ctrl_qp, gid),
	WIRE_UINT_IN(struct ctrl_qp, qpn, 0, 0xffffff),
	WIRE_UINT_IN(struct ctrl_qp, psn, 0, 0xffffff),
	WIRE_UINT_IN(struct ctrl_qp, mtu, 0, CTRL_MTU_MAX),
};
static const struct wire_layout qp_l = WIRE_LAYOUT(struct ctrl_qp, qp_f, NULL);

static const struct wire_field slice_f[] = {
	WIRE_U(struct ctrl_slice, addr),
	WIRE_U(struct ctrl_slice, len),
	WIRE_U(struct ctrl_slice, rkey),
	WIRE_STRUCT_OF(struct ctrl_slice, qp, qp_l),
};
static const struct wire_layout slice_l = WIRE_LAYOUT(struct ctrl_slice, slice_f, NULL);

static const struct wire_field wqp_f[] = {
	WIRE_U(struct ctrl_wqp, sink_port),
	WIRE_STR_OF(struct ctrl_wqp, dev, 0),
	WIRE_U(struct ctrl_wqp, port),
	WIRE_STRUCT_OF(struct ctrl_wqp, qp, qp_l),
};
static const struct wire_layout wqp_l = WIRE_LAYOUT(struct ctrl_wqp, wqp_f, NULL);

static const struct wire_field chunk_f[] = {
	WIRE_U(struct ctrl_chunk, worker), WIRE_U(struct ctrl_chunk, slot),
	WIRE_U(struct ctrl_chunk, offset), WIRE_U(struct ctrl_chunk, len),
	WIRE_U(struct ctrl_chunk, digest),
};
static const struct wire_layout chunk_l = WIRE_LAYOUT(struct ctrl_chunk, chunk_f, NULL);

/* The list messages: a count, then its entries. */
static const struct wire_field slices_f[] = {
	WIRE_LIST_OF(struct ctrl_list, items, n, CTRL_MAX_WORKERS, slice_l),
};
static const struct wire_field qps_f[] = {
	WIRE_LIST_OF(struct ctrl_list, items, n, CTRL_MAX_WORKERS, wqp_l),
};
static const struct wire_field canary_f[] = {
	WIRE_LIST_OF(struct ctrl_list, items, n, CTRL_MAX_WORKERS, chunk_l),
};
static const struct wire_field verify_f[] = {
	WIRE_LIST_OF(struct ctrl_list, items, n, CTRL_MAX_WORKERS *CTRL_FULL_RING_MAX, chunk_l),
};
static const struct wire_layout slices_l = WIRE_LAYOUT(struct ctrl_list, slices_f, NULL);
static const struct wire_layout qps_l = WIRE_LAYOUT(struct ctrl_list, qps_f, NULL);
static const struct wire_layout canary_l = WIRE_LAYOUT(struct ctrl_list, canary_f, NULL);
static const struct wire_layout verify_l = WIRE_LAYOUT(struct ctrl_list, verify_f, NULL);

static const struct wire_field start_f[] = {
	WIRE_U(struct ctrl_start, warmup_ms),
	WIRE_U(struct ctrl_start, duration_ms),
	WIRE_UINT_IN(struct ctrl_start, progress_ms, CTRL_PROGRESS_MIN_MS, CTRL_PROGRESS_MAX_MS),
};
static const struct wire_layout start_l = WIRE_LAYOUT(struct ctrl_start, start_f, NULL);

static const struct wire_field drive_f[] = {
	WIRE_STR_OF(struct ctrl_drive, path, 0), WIRE_STR_OF(struct ctrl_drive, model, 0),
	WIRE_U(struct ctrl_drive, numa_node),	 WIRE_U(struct ctrl_drive, workers),
	WIRE_U(struct ctrl_drive, bytes),
};
static const struct wire_layout drive_l = WIRE_LAYOUT(struct ctrl_drive, drive_f, NULL);

static const struct wire_field rail_f[] = {
	WIRE_STR_OF(struct ctrl_rail, dev, 0), WIRE_U(struct ctrl_rail, port),
	WIRE_U(struct ctrl_rail, sink_port),   WIRE_U(struct ctrl_rail, qps),
	WIRE_U(struct ctrl_rail, bytes),       WIRE_U(struct ctrl_rail, line_mbps),
};
static const struct wire_layout rail_l = WIRE_LAYOUT(struct ctrl_rail, rail_f, NULL);

static const struct wire_field reading_f[] = {
	WIRE_U(struct ctrl_health_reading, critical_warning),
	WIRE_U(struct ctrl_health_reading, composite_k),
	WIRE_U(struct ctrl_health_reading, spare_pct),
	WIRE_U(struct ctrl_health_reading, spare_threshold_pct),
	WIRE_U(struct ctrl_health_reading, used_pct),
	WIRE_U(struct ctrl_health_reading, power_on_hours),
	WIRE_U(struct ctrl_health_reading, unsafe_shutdowns),
	WIRE_U(struct ctrl_health_reading, media_errors),
	WIRE_U(struct ctrl_health_reading, error_log_entries),
	WIRE_U(struct ctrl_health_reading, warning_temp_minutes),
	WIRE_U(struct ctrl_health_reading, critical_temp_minutes),
	WIRE_U(struct ctrl_health_reading, tmt1_transitions),
	WIRE_U(struct ctrl_health_reading, tmt2_transitions),
	WIRE_U(struct ctrl_health_reading, tmt1_seconds),
	WIRE_U(struct ctrl_health_reading, tmt2_seconds),
};
static const struct wire_layout reading_l =
	WIRE_LAYOUT(struct ctrl_health_reading, reading_f, NULL);

/* min <= median <= max, a second under the median within the window; a reading after the
 * window only with one before it. */
static bool drive_health_ok(const void *m)
{
	const struct ctrl_drive_health *h = m;

	if (h->have_after && !h->have_before)
		return false;
	if (!h->seconds)
		return !h->min_bps && !h->max_bps && !h->median_bps && !h->low_bps &&
		       h->low_second == CTRL_NONE;
	return h->min_bps <= h->median_bps && h->median_bps <= h->max_bps &&
	       (h->low_second == CTRL_NONE ||
		(h->low_second < h->seconds && h->low_bps >= h->min_bps &&
		 h->low_bps < h->median_bps));
}

static const struct wire_field drive_health_f[] = {
	WIRE_UINT_IN(struct ctrl_drive_health, seconds, 0, CTRL_MAX_SECONDS),
	WIRE_U(struct ctrl_drive_health, min_bps),
	WIRE_U(struct ctrl_drive_health, max_bps),
	WIRE_U(struct ctrl_drive_health, median_bps),
	WIRE_U(struct ctrl_drive_health, cv_milli_pct),
	WIRE_U(struct ctrl_drive_health, low_second),
	WIRE_U(struct ctrl_drive_health, low_bps),
	WIRE_STR_OF(struct ctrl_drive_health, why, 0),
	WIRE_STR_OF(struct ctrl_drive_health, ctrl, 0),
	WIRE_UINT_IN(struct ctrl_drive_health, namespaces, 0, CTRL_MAX_NAMESPACES),
	WIRE_UINT_IN(struct ctrl_drive_health, have_before, 0, 1),
	WIRE_UINT_IN(struct ctrl_drive_health, have_after, 0, 1),
	WIRE_U(struct ctrl_drive_health, warning_k),
	WIRE_U(struct ctrl_drive_health, critical_k),
	WIRE_STRUCT_OF(struct ctrl_drive_health, before, reading_l),
	WIRE_STRUCT_OF(struct ctrl_drive_health, after, reading_l),
};
static const struct wire_layout drive_health_l =
	WIRE_LAYOUT(struct ctrl_drive_health, drive_health_f, drive_health_ok);

/* The drives' health: none (an earlier source), or one entry per drive. */
static bool result_ok(const void *m)
{
	const struct ctrl_result *r = m;

	return !r->nhealth || r->nhealth == r->ndrives;
}

static const struct wire_field result_f[] = {
	WIRE_UINT_IN(struct ctrl_result, ok, 0, 1),
	WIRE_U(struct ctrl_result, bytes),
	WIRE_U(struct ctrl_result, window_ns),
	WIRE_LIST_OF(struct ctrl_result, drives, ndrives, CTRL_MAX_DRIVES, drive_l),
	WIRE_LIST_OF(struct ctrl_result, rails, nrails, CTRL_MAX_RAILS, rail_l),
	WIRE_U(struct ctrl_result, open_ns),
	WIRE_U(struct ctrl_result, cv_milli_pct),
	/* the optional part: a source of an earlier build ends its RESULT before it */
	WIRE_LIST_OF(struct ctrl_result, health, nhealth, CTRL_MAX_DRIVES, drive_health_l),
};
#define RESULT_OPTIONAL 7 /* result_f's first optional field: health */
static const struct wire_layout result_l =
	WIRE_LAYOUT_OPT(struct ctrl_result, result_f, result_ok, RESULT_OPTIONAL);

static const struct wire_field done_f[] = {
	WIRE_UINT_IN(struct ctrl_done, verify, 0, 2),
};
static const struct wire_layout done_l = WIRE_LAYOUT(struct ctrl_done, done_f, NULL);

/* A window longer than the run or more window bytes than bytes is malformed. */
static bool progress_ok(const void *m)
{
	const struct ctrl_progress *p = m;

	return p->window_ns <= p->elapsed_ns && p->window_bytes <= p->bytes;
}

static const struct wire_field progress_f[] = {
	WIRE_U(struct ctrl_progress, elapsed_ns),
	WIRE_U(struct ctrl_progress, bytes),
	WIRE_U(struct ctrl_progress, window_ns),
	WIRE_U(struct ctrl_progress, window_bytes),
};
static const struct wire_layout progress_l =
	WIRE_LAYOUT(struct ctrl_progress, progress_f, progress_ok);

static const struct wire_field auth_f[] = {
	WIRE_UINT_IN(struct ctrl_auth, has_key, 0, 1),
	WIRE_RAW_OF(struct ctrl_auth, nonce),
	WIRE_RAW_OF(struct ctrl_auth, mac),
};
static const struct wire_layout auth_l = WIRE_LAYOUT(struct ctrl_auth, auth_f, NULL);

/* ---- messages ------------------------------------------------------------------ */

/*
 * Each message: its name, its payload's layout and who sends it. In which
 * steps of the conversation it may come, and where it leads, is steps.c's
 * one table. The source takes the sink's messages in the order of the
 * conversation (ctrl.h), each awaited by type.
 */
static const struct {
	const char *name;
	const struct wire_layout *layout;
	unsigned by; /* enum ctrl_side */
} msgs[CTRL_TYPE_MAX + 1] = {
	[CTRL_HELLO] = {"HELLO", &hello_l, CTRL_BY_SOURCE},
	[CTRL_ACCEPT] = {"ACCEPT", &accept_l, CTRL_BY_SINK},
	[CTRL_ERROR] = {"ERROR", &error_l, CTRL_BY_EITHER},
	[CTRL_SLICES] = {"SLICES", &slices_l, CTRL_BY_SINK},
	[CTRL_CANARY] = {"CANARY", &canary_l, CTRL_BY_SOURCE},
	[CTRL_START] = {"START", &start_l, CTRL_BY_SINK},
	[CTRL_RESULT] = {"RESULT", &result_l, CTRL_BY_SOURCE},
	[CTRL_VERIFY] = {"VERIFY", &verify_l, CTRL_BY_SOURCE},
	[CTRL_DONE] = {"DONE", &done_l, CTRL_BY_SINK},
	[CTRL_PROGRESS] = {"PROGRESS", &progress_l, CTRL_BY_SOURCE},
	[CTRL_AUTH] = {"AUTH", &auth_l, CTRL_BY_EITHER},
	[CTRL_QPS] = {"QPS", &qps_l, CTRL_BY_SOURCE},
};

static bool known(unsigned type)
{
	return type >= 1 && type <= CTRL_TYPE_MAX;
}

const char *ctrl_type_name(unsigned type)
{
	return known(type) ? msgs[type].name : "unknown";
}

unsigned ctrl_sender(unsigned type)
{
	return known(type) ? msgs[type].by : 0;
}

const struct wire_layout *ctrl_layout(unsigned type)
{
	return known(type) ? msgs[type].layout : NULL;
}

uint32_t ctrl_payload_max(unsigned type)
{
	return known(type) ? (uint32_t)wire_max(msgs[type].layout) : 0;
}

uint32_t ctrl_fixed_len(unsigned type)
{
	if (!known(type) || wire_max(msgs[type].layout) != wire_min(msgs[type].layout))
		return 0;
	return (uint32_t)wire_max(msgs[type].layout);
}

/* ---- encoding and decoding ------------------------------------------------------ */

/* Encode m by layout l under the header of type. */
static int encode_as(struct ctrl_buf *b, unsigned type, const struct wire_layout *l, const void *m)
{
	ctrl_buf_init(b, type);
	wire_put(b, l, m);
	return ctrl_buf_finish(b);
}

int ctrl_encode(struct ctrl_buf *b, unsigned type, const void *m)
{
	if (!known(type)) {
		*b = (struct ctrl_buf){0};
		return -EINVAL;
	}
	return encode_as(b, type, msgs[type].layout, m);
}

int ctrl_decode(unsigned type, const void *p, size_t len, void *m)
{
	return known(type) ? wire_decode(msgs[type].layout, p, len, m) : -EINVAL;
}

void ctrl_release(unsigned type, void *m)
{
	if (known(type))
		wire_release(msgs[type].layout, m);
}

int ctrl_encode_hello(struct ctrl_buf *b, const struct ctrl_hello *m)
{
	return ctrl_encode(b, CTRL_HELLO, m);
}

int ctrl_decode_hello(const void *p, size_t len, struct ctrl_hello *m)
{
	return ctrl_decode(CTRL_HELLO, p, len, m);
}

int ctrl_encode_accept(struct ctrl_buf *b, const struct ctrl_accept *m)
{
	return ctrl_encode(b, CTRL_ACCEPT, m);
}

int ctrl_encode_error(struct ctrl_buf *b, const char *msg)
{
	struct ctrl_error e;

	snprintf(e.msg, sizeof(e.msg), "%s", msg);
	return ctrl_encode(b, CTRL_ERROR, &e);
}

int ctrl_decode_error(const void *p, size_t len, struct ctrl_error *m)
{
	return ctrl_decode(CTRL_ERROR, p, len, m);
}

/* Encode the n entries at items by list layout l under the header of type. */
static int encode_list(struct ctrl_buf *b, unsigned type, const struct wire_layout *l,
		       const void *items, uint32_t n)
{
	struct ctrl_list m = {.n = n, .items = (void *)items};

	return encode_as(b, type, l, &m);
}

/*
 * Decode a list message by layout l: its entries' array (NULL when empty or
 * malformed) into the pointer at out (a struct ctrl_slice ** and the like,
 * copied as bytes), its count into *n.
 */
static int decode_list(const struct wire_layout *l, const void *p, size_t len, void *out,
		       uint32_t *n)
{
	struct ctrl_list m;
	int rc = wire_decode(l, p, len, &m);

	memcpy(out, &m.items, sizeof(m.items));
	*n = m.n;
	return rc;
}

int ctrl_encode_slices(struct ctrl_buf *b, const struct ctrl_slice *s, uint32_t n)
{
	return encode_list(b, CTRL_SLICES, &slices_l, s, n);
}

int ctrl_decode_slices(const void *p, size_t len, struct ctrl_slice **s, uint32_t *n)
{
	return decode_list(&slices_l, p, len, s, n);
}

/* CANARY and VERIFY share one layout of entries; VERIFY's limit is the larger. */
int ctrl_encode_chunks(struct ctrl_buf *b, unsigned type, const struct ctrl_chunk *c, uint32_t n)
{
	return encode_list(b, type, &verify_l, c, n);
}

int ctrl_decode_chunks(const void *p, size_t len, struct ctrl_chunk **c, uint32_t *n)
{
	return decode_list(&verify_l, p, len, c, n);
}

int ctrl_encode_qps(struct ctrl_buf *b, const struct ctrl_wqp *q, uint32_t n)
{
	return encode_list(b, CTRL_QPS, &qps_l, q, n);
}

int ctrl_decode_qps(const void *p, size_t len, struct ctrl_wqp **q, uint32_t *n)
{
	return decode_list(&qps_l, p, len, q, n);
}

int ctrl_encode_start(struct ctrl_buf *b, const struct ctrl_start *m)
{
	return ctrl_encode(b, CTRL_START, m);
}

int ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m)
{
	return ctrl_encode(b, CTRL_RESULT, m);
}

int ctrl_decode_result(const void *p, size_t len, struct ctrl_result *m)
{
	return ctrl_decode(CTRL_RESULT, p, len, m);
}

void ctrl_result_free(struct ctrl_result *m)
{
	ctrl_release(CTRL_RESULT, m);
}

int ctrl_encode_done(struct ctrl_buf *b, const struct ctrl_done *m)
{
	return ctrl_encode(b, CTRL_DONE, m);
}

int ctrl_encode_progress(struct ctrl_buf *b, const struct ctrl_progress *m)
{
	return ctrl_encode(b, CTRL_PROGRESS, m);
}

int ctrl_decode_progress(const void *p, size_t len, struct ctrl_progress *m)
{
	return ctrl_decode(CTRL_PROGRESS, p, len, m);
}

int ctrl_encode_auth(struct ctrl_buf *b, const struct ctrl_auth *m)
{
	return ctrl_encode(b, CTRL_AUTH, m);
}

int ctrl_decode_auth(const void *p, size_t len, struct ctrl_auth *m)
{
	return ctrl_decode(CTRL_AUTH, p, len, m);
}

/* ---- the header ------------------------------------------------------------------ */

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

int ctrl_parse_header(const uint8_t hdr[CTRL_HDR_LEN], unsigned *type, uint32_t *len,
		      unsigned *version)
{
	struct ctrl_cur c;
	uint32_t magic;

	ctrl_cur_init(&c, hdr, CTRL_HDR_LEN);
	magic = ctrl_get_u32(&c);
	*version = ctrl_get_u16(&c);
	*type = ctrl_get_u16(&c);
	*len = ctrl_get_u32(&c);
	if (magic != CTRL_MAGIC)
		return -EPROTO;
	if (*version != CTRL_VERSION && *version != CTRL_VERSION_MAC)
		return -EPROTONOSUPPORT;
	if (*type < 1 || *type > CTRL_TYPE_MAX)
		return -EBADMSG;
	if (*len > CTRL_MAX_PAYLOAD)
		return -EMSGSIZE;
	return 0;
}

const char *ctrl_verify_name(unsigned v)
{
	return v == CTRL_VERIFY_OFF ? "off" : v == CTRL_VERIFY_FULL ? "full" : "canary";
}

/* Append one difference to why ("; " between them), as far as len allows. */
static void add_diff(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_diff(char *why, size_t len, const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n + 3 >= len)
		return;
	if (n) {
		memcpy(why + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + n, len - n, fmt, ap);
	va_end(ap);
}

/* Every difference at once: a user fixes them in one go, not one run per difference. */
bool ctrl_hello_mismatch(const struct ctrl_hello *k, const struct ctrl_hello *s, char *why,
			 size_t len)
{
	char a[32], b[32];

	why[0] = '\0';
	if (k->chunk != s->chunk)
		add_diff(why, len, "chunk: sink %s, source %s", format_size(k->chunk, a, sizeof(a)),
			 format_size(s->chunk, b, sizeof(b)));
	if (k->depth != s->depth)
		add_diff(why, len, "depth: sink %u, source %u", k->depth, s->depth);
	if (k->warmup_ms != s->warmup_ms)
		add_diff(why, len, "warm-up: sink %g s, source %g s", k->warmup_ms / 1e3,
			 s->warmup_ms / 1e3);
	if (k->duration_ms != s->duration_ms)
		add_diff(why, len, "duration: sink %g s, source %g s", k->duration_ms / 1e3,
			 s->duration_ms / 1e3);
	if (k->verify != s->verify)
		add_diff(why, len, "verify: sink %s, source %s", ctrl_verify_name(k->verify),
			 ctrl_verify_name(s->verify));
	if (k->conn != s->conn)
		add_diff(why, len,
			 "connection: sink %s, source %s (-R/--rdma_cm on both or neither)",
			 k->conn == CTRL_CONN_CM ? "rdma_cm" : "verbs",
			 s->conn == CTRL_CONN_CM ? "rdma_cm" : "verbs");
	if (k->mtu != s->mtu || k->sl != s->sl || k->tclass != s->tclass)
		add_diff(why, len, "--mtu/--sl/--tclass: sink %u/%u/%u, source %u/%u/%u", k->mtu,
			 k->sl, k->tclass, s->mtu, s->sl, s->tclass);
	return why[0] != '\0';
}

/* ---- text --------------------------------------------------------------------- */

const char *ctrl_strerror(int rc)
{
	if (rc < CTRL_ERR_RESOLVE && rc > CTRL_ERR_RESOLVE - CTRL_ERR_RESOLVE_SPAN)
		return gai_strerror(rc - CTRL_ERR_RESOLVE);
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
	case CTRL_ERR_MAC:
		return "a control message failed its MAC check (altered, replayed, reordered "
		       "or dropped on the way)";
	case CTRL_ERR_NOMAC:
		return "a control message without a MAC after the pre-shared key was proved "
		       "(a peer of protocol 3, an older version: run the same version on "
		       "both sides)";
	default:
		return strerror(-rc);
	}
}
