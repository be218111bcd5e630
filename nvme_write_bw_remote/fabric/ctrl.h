/* SPDX-License-Identifier: MIT */
/*
 * ctrl.h: the control channel between the sink and the source of
 * nvme_write_bw_remote: a versioned, length-prefixed binary protocol over TCP.
 *
 * Every message is a 12-byte header and a payload, all integers big-endian:
 *	u32 magic "NBWR" | u16 version | u16 type | u32 payload length
 * Strings are u16 length + bytes (no NUL). The encoders and decoders are pure
 * functions (no sockets) so every message, truncated or malformed, can be
 * unit tested; decoders return 0 or -EBADMSG and never read past the payload.
 * The socket half sends and receives whole messages with a poll() timeout on
 * every wait.
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
 *	              sink port: QPs, bytes)
 *	S->K VERIFY   (--verify full) digest of the last chunk in every slice slot
 *	K->S DONE     the verdict
 * ERROR may be sent by either side at any point and ends the session.
 * Version 2 added PROGRESS and START's progress_ms; version 3 AUTH, and
 * per-type payload limits (ctrl_payload_max()) enforced before allocation.
 */
#ifndef NBW_CTRL_H
#define NBW_CTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTRL_MAGIC 0x4e425752u /* "NBWR" */
#define CTRL_VERSION 3
#define CTRL_HDR_LEN 12
#define CTRL_MAX_PAYLOAD (64u << 20)
#define CTRL_MAX_STR 1024
#define CTRL_PATH_LEN 256
#define CTRL_MAX_WORKERS 1024	/* workers (QPs) of one source */
#define CTRL_MAX_DRIVES 256	/* drives of one source's RESULT */
#define CTRL_FULL_RING_MAX 1024 /* slice slots per worker in a VERIFY table */
#define CTRL_MAX_PORTS 64	/* ports a sink advertises */
#define CTRL_MAX_RAILS 256	/* rails in a RESULT */
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

void ctrl_buf_init(struct ctrl_buf *b, unsigned type);
/* Fill in the payload length; 0, -ENOMEM or -EMSGSIZE. */
int ctrl_buf_finish(struct ctrl_buf *b);
void ctrl_put_u8(struct ctrl_buf *b, uint8_t v);
void ctrl_put_u16(struct ctrl_buf *b, uint16_t v);
void ctrl_put_u32(struct ctrl_buf *b, uint32_t v);
void ctrl_put_u64(struct ctrl_buf *b, uint64_t v);
void ctrl_put_str(struct ctrl_buf *b, const char *s);

/* Decoding reads a payload; any read past its end marks the cursor bad. */
struct ctrl_cur {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
};

uint8_t ctrl_get_u8(struct ctrl_cur *c);
uint16_t ctrl_get_u16(struct ctrl_cur *c);
uint32_t ctrl_get_u32(struct ctrl_cur *c);
uint64_t ctrl_get_u64(struct ctrl_cur *c);
/* Copies at most size-1 bytes and a NUL; a longer string or a NUL in it is bad. */
void ctrl_get_str(struct ctrl_cur *c, char *out, size_t size);

/*
 * Check a received header. 0 and *type, *len filled; -EPROTO bad magic (not
 * our protocol), -EPROTONOSUPPORT another version (*version set), -EBADMSG
 * unknown type, -EMSGSIZE payload over CTRL_MAX_PAYLOAD.
 */
int ctrl_parse_header(const uint8_t hdr[CTRL_HDR_LEN], unsigned *type, uint32_t *len,
		      unsigned *version);

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

/* Decoders of a payload (header stripped): 0, -EBADMSG or -ENOMEM. */
int ctrl_decode_hello(const void *p, size_t len, struct ctrl_hello *m);
int ctrl_decode_accept(const void *p, size_t len, struct ctrl_accept *m);
int ctrl_decode_error(const void *p, size_t len, struct ctrl_error *m);
/* *s is calloc'ed (NULL when n = 0). */
int ctrl_decode_slices(const void *p, size_t len, struct ctrl_slice **s, uint32_t *n);
int ctrl_decode_chunks(const void *p, size_t len, struct ctrl_chunk **c, uint32_t *n);
int ctrl_decode_start(const void *p, size_t len, struct ctrl_start *m);
int ctrl_decode_result(const void *p, size_t len, struct ctrl_result *m);
void ctrl_result_free(struct ctrl_result *m);
int ctrl_decode_done(const void *p, size_t len, struct ctrl_done *m);
/* A window longer than the run or more window bytes than bytes is malformed. */
int ctrl_decode_progress(const void *p, size_t len, struct ctrl_progress *m);
int ctrl_decode_auth(const void *p, size_t len, struct ctrl_auth *m);
/* *q is calloc'ed (NULL when n = 0). */
int ctrl_decode_qps(const void *p, size_t len, struct ctrl_wqp **q, uint32_t *n);

/*
 * The largest payload a message of type may have (0 for an unknown type):
 * lists are bounded by CTRL_MAX_WORKERS, CTRL_MAX_DRIVES and
 * CTRL_FULL_RING_MAX. ctrl_recv() refuses more (-EMSGSIZE) before it
 * allocates anything.
 */
uint32_t ctrl_payload_max(unsigned type);

/*
 * A message read in pieces from a non-blocking socket, for a server that
 * serves several handshakes at once. Zero it before the first use.
 */
struct ctrl_inbox {
	uint32_t allow; /* types taken (bit 1 << type; 0 = any): see ctrl_phase_allows() */
	uint8_t hdr[CTRL_HDR_LEN];
	size_t hdr_got;
	unsigned type;
	uint32_t len;
	uint8_t *payload;
	size_t got;
};

/*
 * Read what fd holds now without blocking: 1 when a whole message is in
 * (in->type, in->payload, in->len; take the payload or ctrl_inbox_reset()),
 * 0 when more is needed, or a ctrl_recv() error. With in->allow set, a
 * header of a type outside it is -EBADMSG, and one of a fixed-size type
 * (ctrl_fixed_len()) that announces another length -EMSGSIZE, both before
 * a byte of the payload is allocated.
 */
int ctrl_inbox_read(struct ctrl_inbox *in, int fd);
/* Free the payload and start over (in->allow is kept). */
void ctrl_inbox_reset(struct ctrl_inbox *in);

/* A whole message handed over by ctrl_inbox_pump(): 0 go on, else stop with that value. */
typedef int (*ctrl_take_fn)(void *ctx, unsigned type, const void *payload, uint32_t len);
/*
 * Take at most max whole messages that fd holds now, without blocking: a
 * message that came in part stays in the inbox for the next call (a slow
 * sender neither blocks the caller nor puts it out of step), and a flood is
 * cut at max per call. take()'s first nonzero value, a ctrl_inbox_read()
 * error, or 0; *taken (if not NULL) counts the messages handed over.
 * in->allow holds for the whole call: a take() that moves the session to
 * another phase returns nonzero, so that the caller sets the next phase's
 * in->allow before the next message is read.
 */
int ctrl_inbox_pump(struct ctrl_inbox *in, int fd, unsigned max, ctrl_take_fn take, void *ctx,
		    unsigned *taken);

/*
 * The sink's side of one source's conversation, phase by phase: the
 * messages a source may send in each. Anything else ends the handshake (a
 * stranger is dropped) or the session.
 */
enum ctrl_phase {
	CTRL_PHASE_AUTH,   /* door: the source's nonce (AUTH) */
	CTRL_PHASE_PROOF,  /* door, with a key: its proof (AUTH) */
	CTRL_PHASE_HELLO,  /* door: its parameters (HELLO) */
	CTRL_PHASE_QPS,	   /* verbs mode: its QPs (QPS) */
	CTRL_PHASE_CANARY, /* its canary table (CANARY) */
	CTRL_PHASE_WINDOW, /* heartbeats (PROGRESS) until its RESULT */
	CTRL_PHASE_VERIFY, /* --verify full: its slot table (VERIFY) */
	CTRL_PHASE_END,	   /* nothing but its ERROR (DONE is the sink's word, never a source's) */
	CTRL_PHASE_MAX = CTRL_PHASE_END,
};

/* The types a source may send in phase, as a mask of 1 << type (0 for a bad phase). */
uint32_t ctrl_phase_allows(unsigned phase);
/*
 * The phase after a source's message of type in phase, for a sink with a key
 * or not, in verbs mode or not, with --verify full or not; CTRL_PHASE_END
 * after an ERROR (or a message the phase does not allow).
 */
unsigned ctrl_phase_next(unsigned phase, unsigned type, bool key, bool verbs, bool full);
/* The one payload length of a fixed-size message (HELLO, START, DONE, PROGRESS, AUTH), else 0. */
uint32_t ctrl_fixed_len(unsigned type);

/*
 * The first difference between the sink's and the source's parameters, as
 * "chunk: sink 1MiB, source 2MiB", or "" if they agree (workers is the
 * source's alone and not compared). Returns true on a mismatch.
 */
bool ctrl_hello_mismatch(const struct ctrl_hello *sink, const struct ctrl_hello *source, char *why,
			 size_t len);

/* ---- sockets --------------------------------------------------------------- */

/* Listen on addr (NULL = any) port; returns fd or -errno (-EADDRINUSE ...). */
int ctrl_listen(const char *addr, unsigned port);
/*
 * Every wait below is cut into slices of at most 200 ms and ends with
 * -EINTR as soon as SIGINT/SIGTERM arrived (common/window.h).
 */
/* Accept one connection within timeout_ms (< 0 = forever); fd, -ETIMEDOUT or -errno. */
int ctrl_accept(int lfd, int timeout_ms, char *peer, size_t peerlen);
/* Connect to host:port within timeout_ms; fd, -ETIMEDOUT, -ECONNREFUSED, -EHOSTUNREACH... */
int ctrl_connect(const char *host, unsigned port, int timeout_ms);
/* Send a finished buffer within timeout_ms. 0 or -errno (-EPIPE peer gone). */
int ctrl_send(int fd, const struct ctrl_buf *b, int timeout_ms);
/*
 * Receive one message within timeout_ms: *type, a malloc'ed payload (*payload,
 * free it; NULL if empty) and its length. -ETIMEDOUT, -ECONNRESET (peer
 * closed), -EINTR, a ctrl_parse_header() error, or -EMSGSIZE beyond
 * ctrl_payload_max() of its type.
 */
int ctrl_recv(int fd, unsigned *type, void **payload, uint32_t *len, int timeout_ms);
/*
 * Receive a message of type want. A CTRL_ERROR from the peer becomes
 * -ECONNABORTED with its text in peer_err; another type is -EBADMSG.
 */
int ctrl_expect(int fd, unsigned want, void **payload, uint32_t *len, int timeout_ms,
		char *peer_err, size_t errlen);
/*
 * ctrl_expect() and decode: a message of a fixed layout (CTRL_ACCEPT,
 * CTRL_AUTH, CTRL_START or CTRL_DONE) into *msg, the struct of its type.
 * 0, ctrl_expect()'s errors, or the decoder's (-EBADMSG, -EPROTO).
 */
int ctrl_await(int fd, unsigned want, void *msg, int timeout_ms, char *peer_err, size_t errlen);
/* Send a message and free its buffer; 0 or -errno. */
int ctrl_send_free(int fd, struct ctrl_buf *b, int enc_rc, int timeout_ms);

/* Text for the negative codes of this module. */
const char *ctrl_strerror(int rc);
/* "off", "full" or "canary" for a CTRL_VERIFY_* value. */
const char *ctrl_verify_name(unsigned v);

#endif
