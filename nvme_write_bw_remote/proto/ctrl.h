/* SPDX-License-Identifier: MIT */
/*
 * ctrl.h: the control channel between the sink and the source of
 * nvme_write_bw_remote: a versioned, length-prefixed binary protocol over TCP.
 *
 * Every message is a 12-byte header and a payload, all integers big-endian:
 *	u32 magic "NBWR" | u16 version | u16 type | u32 payload length
 * Strings are u16 length + bytes (no NUL). Each message's payload is described
 * once, by a table of fields in ctrl.c (wire.h's engine encodes, decodes and
 * sizes it); its limits and its fixed size follow from that table. The
 * steps of the conversation, who sends what in each and where it leads, are
 * one table too (steps.h). The codec is pure (no sockets) so every message,
 * truncated or malformed, can be unit tested; decoders return 0 or -EBADMSG
 * and never read past the payload. The socket half (ctrl_io.h) sends and
 * receives whole messages with a poll() timeout on every wait; the AUTH
 * exchange of both sides is ctrl_auth.h.
 *
 * The conversation (S = source, K = sink):
 *	S->K AUTH     a nonce and whether the source holds a pre-shared key
 *	K->S AUTH     the sink's nonce (a keyed sink closes on a source without key)
 *	with a key:
 *	S->K AUTH     the source's proof: HMAC-SHA256 over both nonces
 *	K->S AUTH     the sink's proof (after checking the source's); the source
 *	              checks it. Nothing about the sink's set-up is said before.
 *	S->K HELLO    parameters (and the connection mode); K checks them
 *	K->S ACCEPT   session key, and every port the sink accepts on (device,
 *	              port, link layer, LID, GID, address, NUMA node, rate)
 *	rdma_cm mode: S connects one RC QP per worker with rdma_cm to the sink
 *	              port it chose (private data = session, worker)
 *	verbs mode:   S->K QPS: per worker the sink port chosen and its own
 *	              QP's LID, GID, QPN, PSN and MTU; K makes its QPs there
 *	K->S SLICES   per worker: slice address, length, rkey (verbs mode: and
 *	              the sink QP's attributes, to move the source's to RTR)
 *	S->K CANARY   per worker: drive offset, length and digest of the canary chunk
 *	K->S START    the window starts now (warm-up, then duration), and how often
 *	              the source reports its progress
 *	S->K PROGRESS every progress_ms from START until RESULT (heartbeat): bytes
 *	              completed so far; a sink that hears nothing for its
 *	              --timeout knows the source (or the network) is gone
 *	S->K RESULT   the source's totals, drives and rails (source port ->
 *	              sink port: QPs, bytes); then, optional, each drive's
 *	              seconds and health log around the window (a sink of this
 *	              build takes a RESULT without them from an earlier source;
 *	              a sink of an earlier build refuses one with them)
 *	S->K VERIFY   (--verify full) digest of the last chunk in every slice slot
 *	K->S DONE     the verdict
 * ERROR may be sent by either side at any point and ends the session.
 * Version 2 added PROGRESS and START's progress_ms; version 3 AUTH, and
 * per-type payload limits (ctrl_payload_max()) enforced before allocation.
 * With a pre-shared key, every message after the AUTH exchange (HELLO on,
 * ERROR included, both ways) carries version 4 in its header and a MAC
 * trailer (ctrl_mac.h); without a key the wire is version 3's, unchanged.
 */
#ifndef NBW_CTRL_H
#define NBW_CTRL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#define CTRL_MAGIC 0x4e425752u /* "NBWR" */
#define CTRL_VERSION 3	       /* every message without a key, and the AUTH exchange */
#define CTRL_VERSION_MAC 4     /* a message after AUTH with a key: a MAC follows (ctrl_mac.h) */
#define CTRL_HDR_LEN 12
#define CTRL_MAX_PAYLOAD (64u << 20)
#define CTRL_MAX_STR WIRE_STR_MAX
#define CTRL_PATH_LEN 256
#define CTRL_MAX_WORKERS 1024	/* workers (QPs) of one source */
#define CTRL_MAX_DRIVES 256	/* drives of one source's RESULT */
#define CTRL_FULL_RING_MAX 1024 /* slice slots per worker in a VERIFY table */
#define CTRL_MAX_PORTS 64	/* ports a sink advertises */
#define CTRL_MAX_RAILS 256	/* rails in a RESULT */
#define CTRL_MTU_MAX 5		/* enum ibv_mtu: IBV_MTU_4096 */
#define CTRL_NONCE_LEN 32
#define CTRL_MAC_LEN 32

enum ctrl_type {
	CTRL_HELLO = 1,
	CTRL_ACCEPT,
	CTRL_ERROR,
	CTRL_SLICES,
	CTRL_CANARY,
	CTRL_START,
	CTRL_RESULT,
	CTRL_VERIFY,
	CTRL_DONE,
	CTRL_PROGRESS,
	CTRL_AUTH,
	CTRL_QPS,
	CTRL_TYPE_MAX = CTRL_QPS,
};

enum ctrl_verify { CTRL_VERIFY_OFF, CTRL_VERIFY_CANARY, CTRL_VERIFY_FULL };
enum ctrl_source { CTRL_SOURCE_DISK, CTRL_SOURCE_MEM };
enum ctrl_conn { CTRL_CONN_VERBS, CTRL_CONN_CM };

const char *ctrl_type_name(unsigned type);

/* Who sends a message (ctrl_sender()). */
enum ctrl_side { CTRL_BY_SOURCE = 1, CTRL_BY_SINK = 2, CTRL_BY_EITHER = 3 };
/* The side(s) that send messages of type (0 for an unknown type). */
unsigned ctrl_sender(unsigned type);

/* ---- messages ----------------------------------------------------------- */

struct ctrl_hello {
	uint64_t chunk;
	uint32_t depth;
	uint32_t workers;
	uint64_t warmup_ms;
	uint64_t duration_ms;
	uint8_t verify; /* enum ctrl_verify */
	uint8_t source; /* enum ctrl_source */
	uint8_t conn;	/* enum ctrl_conn */
	uint8_t mtu;	/* enum ibv_mtu, 0 = the ports' */
	uint8_t sl;
	uint8_t tclass;
};

/* A port the sink accepts RDMA connections on. */
struct ctrl_port {
	char dev[64];
	uint8_t port;
	uint8_t link; /* 1 InfiniBand, 2 Ethernet */
	uint16_t lid;
	uint8_t gid[16];
	char addr[64]; /* "" without an IPv4 address */
	uint8_t prefix_len;
	int32_t numa_node;
	uint32_t rate_mbps; /* 0 unknown */
	uint8_t mtu;	    /* enum ibv_mtu */
	uint8_t software;   /* no real line rate (rxe, siw) */
};

struct ctrl_accept {
	uint64_t session;
	uint32_t nports;
	struct ctrl_port ports[CTRL_MAX_PORTS];
};

/* QP attributes of one side of a worker's connection (verbs mode). */
struct ctrl_qp {
	uint16_t lid;
	uint8_t gid[16];
	uint32_t qpn;
	uint32_t psn;
	uint8_t mtu;
};

/* A worker's choice of sink port and its own QP (QPS, verbs mode). */
struct ctrl_wqp {
	uint16_t sink_port; /* index into the sink's ACCEPT list */
	char dev[64];	    /* the source's port */
	uint8_t port;
	struct ctrl_qp qp;
};

/* What one rail carried: source port -> sink port (RESULT). */
struct ctrl_rail {
	char dev[64];
	uint8_t port;
	uint16_t sink_port; /* index into the sink's ACCEPT list */
	uint32_t qps;
	uint64_t bytes;
	uint32_t line_mbps; /* the slower port's line rate; 0 unknown */
};

struct ctrl_error {
	char msg[CTRL_MAX_STR];
};

struct ctrl_slice {
	uint64_t addr;
	uint64_t len;
	uint32_t rkey;
	struct ctrl_qp qp; /* verbs mode: the sink's QP of this worker; zero with rdma_cm */
};

/* A chunk the source wrote: where it came from and its digest (digest.h). */
struct ctrl_chunk {
	uint32_t worker;
	uint32_t slot;	 /* position in the worker's slice, in chunks */
	uint64_t offset; /* byte offset on the source drive (memory: in the pattern) */
	uint32_t len;
	uint64_t digest;
};

struct ctrl_start {
	uint64_t warmup_ms;
	uint64_t duration_ms;
	uint32_t progress_ms; /* period of PROGRESS, 1 .. CTRL_PROGRESS_MAX_MS */
};

#define CTRL_PROGRESS_MAX_MS 60000
#define CTRL_PROGRESS_MIN_MS 10 /* a faster heartbeat is refused (it would be a flood) */

/*
 * The source's heartbeat: RDMA WRITE completions since START (bytes, over
 * elapsed_ns of the source's clock) and inside the measured window so far
 * (window_bytes over window_ns; both 0 during the warm-up).
 */
struct ctrl_progress {
	uint64_t elapsed_ns;
	uint64_t bytes;
	uint64_t window_ns;
	uint64_t window_bytes;
};

struct ctrl_drive {
	char path[CTRL_PATH_LEN];
	char model[CTRL_PATH_LEN];
	int32_t numa_node;
	uint32_t workers;
	uint64_t bytes;
};

/*
 * One reading of a drive's NVMe health log (RESULT's optional part), as the
 * source's parser left it: temperatures in kelvin (0: not reported).
 */
struct ctrl_health_reading {
	uint8_t critical_warning;
	uint16_t composite_k;
	uint8_t spare_pct, spare_threshold_pct, used_pct;
	uint64_t power_on_hours, unsafe_shutdowns, media_errors, error_log_entries;
	uint32_t warning_temp_minutes, critical_temp_minutes;
	uint32_t tmt1_transitions, tmt2_transitions, tmt1_seconds, tmt2_seconds;
};

#define CTRL_MAX_SECONDS 3600 /* a drive's seconds in a window (SAMPLES_MAX) */
#define CTRL_MAX_NAMESPACES 1024
#define CTRL_HEALTH_WHY_LEN 192
#define CTRL_NONE UINT32_MAX

/*
 * What the source's drive said of itself around the window (RESULT's
 * optional part, an entry per drive in the drives' order): the shape of
 * its 1 s rates (the sink judges the variation with its own --max-cv) and
 * its health log before and after (the sink compares them itself), or why
 * it was not read. Rates in bytes/s.
 */
struct ctrl_drive_health {
	uint32_t seconds; /* its 1 s samples; 0: none kept (the rest is 0) */
	uint64_t min_bps, max_bps, median_bps;
	uint32_t cv_milli_pct; /* % x 1000; CTRL_NONE: fewer than two seconds */
	uint32_t low_second;   /* the first under half the median; CTRL_NONE: none */
	uint64_t low_bps;
	char why[CTRL_HEALTH_WHY_LEN];
	char ctrl[32]; /* its controller, "" none */
	uint32_t namespaces;
	uint8_t have_before, have_after; /* after only with before */
	uint16_t warning_k, critical_k;
	struct ctrl_health_reading before, after;
};

struct ctrl_result {
	uint8_t ok;	/* 0: the source failed or was interrupted */
	uint64_t bytes; /* RDMA WRITE completions inside the window */
	uint64_t window_ns;
	uint32_t ndrives;
	struct ctrl_drive *drives; /* decode: calloc'ed, free with ctrl_result_free */
	uint32_t nrails;
	struct ctrl_rail *rails; /* likewise */
	uint64_t open_ns;	 /* from START's arrival to the window's opening (source clock) */
	uint32_t cv_milli_pct;	 /* variation of its RDMA stream, % x 1000; UINT32_MAX unknown */
	/* Optional (a source of an earlier build sends none): 0, or one per drive. */
	uint32_t nhealth;
	struct ctrl_drive_health *health; /* decode: calloc'ed */
};

/* Both directions of the authentication exchange (see the conversation above). */
struct ctrl_auth {
	uint8_t has_key;	       /* the sender holds a pre-shared key */
	uint8_t nonce[CTRL_NONCE_LEN]; /* fresh random bytes (zero in the source's proof) */
	uint8_t mac[CTRL_MAC_LEN];     /* HMAC-SHA256 proof, zero without a key */
};

struct ctrl_done {
	uint8_t verify; /* 0 fail, 1 pass, 2 off */
};

/* Start a message of type in b (its header); the payload is appended with wire.h's puts. */
void ctrl_buf_init(struct ctrl_buf *b, unsigned type);
/* Fill in the payload length; 0, -ENOMEM or -EMSGSIZE. */
int ctrl_buf_finish(struct ctrl_buf *b);

/*
 * Check a received header. 0 and *type, *len, *version filled (CTRL_VERSION
 * or CTRL_VERSION_MAC: which one the channel takes is ctrl_mac_check_version()'s);
 * -EPROTO bad magic (not our protocol), -EPROTONOSUPPORT another version (*version set), -EBADMSG
 * unknown type, -EMSGSIZE payload over CTRL_MAX_PAYLOAD.
 */
int ctrl_parse_header(const uint8_t hdr[CTRL_HDR_LEN], unsigned *type, uint32_t *len,
		      unsigned *version);

/*
 * A message that is a list (SLICES, CANARY, VERIFY, QPS): n entries of the
 * struct of its type (ctrl_slice, ctrl_chunk, ctrl_wqp).
 */
struct ctrl_list {
	uint32_t n;
	void *items;
};

/* The layout of a payload of type (NULL for an unknown type). */
const struct wire_layout *ctrl_layout(unsigned type);
/* Encode *m, the struct of type (a ctrl_list for a list): 0, -ENOMEM, -EMSGSIZE or -EINVAL. */
int ctrl_encode(struct ctrl_buf *b, unsigned type, const void *m);
/* Decode a payload of type into *m, as above: 0, -EBADMSG, -ENOMEM or -EINVAL. */
int ctrl_decode(unsigned type, const void *p, size_t len, void *m);
/* Free what ctrl_decode() allocated in *m (its lists). */
void ctrl_release(unsigned type, void *m);

/* Encoders: a complete message (header included) in *b; 0 or -ENOMEM. */
int ctrl_encode_hello(struct ctrl_buf *b, const struct ctrl_hello *m);
int ctrl_encode_accept(struct ctrl_buf *b, const struct ctrl_accept *m);
int ctrl_encode_error(struct ctrl_buf *b, const char *msg);
int ctrl_encode_slices(struct ctrl_buf *b, const struct ctrl_slice *s, uint32_t n);
/* CANARY and VERIFY share one layout: a list of chunks. */
int ctrl_encode_chunks(struct ctrl_buf *b, unsigned type, const struct ctrl_chunk *c, uint32_t n);
int ctrl_encode_start(struct ctrl_buf *b, const struct ctrl_start *m);
int ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m);
int ctrl_encode_done(struct ctrl_buf *b, const struct ctrl_done *m);
int ctrl_encode_progress(struct ctrl_buf *b, const struct ctrl_progress *m);
int ctrl_encode_auth(struct ctrl_buf *b, const struct ctrl_auth *m);
int ctrl_encode_qps(struct ctrl_buf *b, const struct ctrl_wqp *q, uint32_t n);

/*
 * Decoders of a payload (header stripped): 0, -EBADMSG or -ENOMEM. ACCEPT,
 * START and DONE have none of their own: ctrl_decode(type, ...) decodes them.
 */
int ctrl_decode_hello(const void *p, size_t len, struct ctrl_hello *m);
int ctrl_decode_error(const void *p, size_t len, struct ctrl_error *m);
/* *s is calloc'ed (NULL when n = 0). */
int ctrl_decode_slices(const void *p, size_t len, struct ctrl_slice **s, uint32_t *n);
int ctrl_decode_chunks(const void *p, size_t len, struct ctrl_chunk **c, uint32_t *n);
int ctrl_decode_result(const void *p, size_t len, struct ctrl_result *m);
void ctrl_result_free(struct ctrl_result *m);
/* A window longer than the run or more window bytes than bytes is malformed. */
int ctrl_decode_progress(const void *p, size_t len, struct ctrl_progress *m);
int ctrl_decode_auth(const void *p, size_t len, struct ctrl_auth *m);
/* *q is calloc'ed (NULL when n = 0). */
int ctrl_decode_qps(const void *p, size_t len, struct ctrl_wqp **q, uint32_t *n);

/*
 * The largest payload a message of type may have (0 for an unknown type),
 * computed from its layout: lists are bounded by CTRL_MAX_WORKERS,
 * CTRL_MAX_DRIVES, CTRL_MAX_RAILS, CTRL_MAX_PORTS and CTRL_FULL_RING_MAX,
 * strings by their buffers. ctrl_recv() refuses more (-EMSGSIZE) before it
 * allocates anything.
 */
uint32_t ctrl_payload_max(unsigned type);

/*
 * The one payload length of a fixed-size message (a layout without strings
 * or lists: HELLO, START, DONE, PROGRESS, AUTH), else 0.
 */
uint32_t ctrl_fixed_len(unsigned type);

/*
 * The first difference between the sink's and the source's parameters, as
 * "chunk: sink 1MiB, source 2MiB", or "" if they agree (workers is the
 * source's alone and not compared). Returns true on a mismatch.
 */
bool ctrl_hello_mismatch(const struct ctrl_hello *sink, const struct ctrl_hello *source, char *why,
			 size_t len);

/*
 * A name the resolver could not resolve: CTRL_ERR_RESOLVE + getaddrinfo's
 * EAI_* code (negative), so that the user reads the resolver's reason ("Name
 * or service not known"), not an errno that was never set.
 */
#define CTRL_ERR_RESOLVE (-20000)
#define CTRL_ERR_RESOLVE_SPAN 1000

/* A MAC'd control message failed its check: altered, replayed, reordered, dropped. */
#define CTRL_ERR_MAC (-EKEYREJECTED)
/* A message without a MAC after a keyed AUTH: a peer of protocol 3, or a stripped MAC. */
#define CTRL_ERR_NOMAC (-ENOKEY)

/* Text for the negative codes of this module (-errno, CTRL_ERR_RESOLVE + EAI_*). */
const char *ctrl_strerror(int rc);
/* "off", "full" or "canary" for a CTRL_VERIFY_* value. */
const char *ctrl_verify_name(unsigned v);

#endif
