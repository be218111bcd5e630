/* SPDX-License-Identifier: MIT */
/*
 * ctrl_io.h: the control channel's sockets (see ctrl.h for the protocol):
 * listening, accepting and connecting, whole messages sent and received
 * with a poll() timeout on every wait, and the inbox that reads a message
 * in pieces from a non-blocking socket. The codec knows nothing of this.
 * Each call that moves a message after AUTH takes the connection's MAC
 * state (ctrl_mac.h; NULL or off: plain messages): a message sent is
 * sealed, a message received is checked (version, then the trailer) before
 * its payload is handed over.
 */
#ifndef NBW_CTRL_IO_H
#define NBW_CTRL_IO_H

#include "ctrl.h"
#include "ctrl_mac.h"

/*
 * A message read in pieces from a non-blocking socket, for a server that
 * serves several handshakes at once. Zero it before the first use.
 */
struct ctrl_inbox {
	uint32_t allow;	      /* types taken (bit 1 << type; 0 = any): see ctrl_step_allows() */
	struct ctrl_mac *mac; /* the connection's MACs (NULL: none); kept by ctrl_inbox_reset() */
	uint8_t hdr[CTRL_HDR_LEN];
	size_t hdr_got;
	unsigned type;
	uint32_t len;
	uint8_t *payload;
	size_t got;
	uint8_t tag[CTRL_MAC_LEN]; /* with MACs: the trailer */
	size_t tag_got;
};

/*
 * Read what fd holds now without blocking: 1 when a whole message is in
 * (in->type, in->payload, in->len; take the payload or ctrl_inbox_reset()),
 * 0 when more is needed, or a ctrl_recv() error. With in->allow set, a
 * header of a type outside it is -EBADMSG, and one of a fixed-size type
 * (ctrl_fixed_len()) that announces another length -EMSGSIZE, both before
 * a byte of the payload is allocated. With in->mac on, the whole message
 * is handed over only once its trailer checked (else CTRL_ERR_MAC).
 */
int ctrl_inbox_read(struct ctrl_inbox *in, int fd);
/* Free the payload and start over (in->allow and in->mac are kept). */
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

/* ---- whole messages ------------------------------------------------------ */

/*
 * Connections the kernel holds for a listener before it accepts them: room for
 * a crowd of strangers, so that a real source is not turned away (its SYN
 * dropped) while the sink's door works through them (net.core.somaxconn caps it).
 */
#define CTRL_LISTEN_BACKLOG 512

/*
 * Listen on addr (NULL = any) port; returns fd or -errno (-EADDRINUSE ...),
 * or CTRL_ERR_RESOLVE + EAI_* for a name the resolver does not know.
 */
int ctrl_listen(const char *addr, unsigned port);
/*
 * Every wait below is cut into slices of at most 200 ms and ends with
 * -EINTR as soon as SIGINT/SIGTERM arrived (common/base/signals.h).
 */
/* Accept one connection within timeout_ms (< 0 = forever); fd, -ETIMEDOUT or -errno. */
int ctrl_accept(int lfd, int timeout_ms, char *peer, size_t peerlen);
/*
 * Connect to host:port within timeout_ms; fd, -ETIMEDOUT, -ECONNREFUSED,
 * -EHOSTUNREACH..., CTRL_ERR_RESOLVE + EAI_* (an unknown host: ctrl_strerror).
 */
int ctrl_connect(const char *host, unsigned port, int timeout_ms);
/*
 * Receive one message within timeout_ms: *type, a malloc'ed payload (*payload,
 * free it; NULL if empty) and its length. -ETIMEDOUT, -ECONNRESET (peer
 * closed), -EINTR, a ctrl_parse_header() error, -EMSGSIZE beyond
 * ctrl_payload_max() of its type, or with mac: ctrl_mac_check_version()'s
 * error or CTRL_ERR_MAC.
 */
int ctrl_recv(int fd, struct ctrl_mac *mac, unsigned *type, void **payload, uint32_t *len,
	      int timeout_ms);
/*
 * Receive a message of type want. A CTRL_ERROR from the peer becomes
 * -ECONNABORTED with its text in peer_err; another type is -EBADMSG.
 */
int ctrl_expect(int fd, struct ctrl_mac *mac, unsigned want, void **payload, uint32_t *len,
		int timeout_ms, char *peer_err, size_t errlen);
/*
 * ctrl_expect() and ctrl_decode(): the message into *msg, the struct of its
 * type (a struct ctrl_list for a list; ctrl_release() frees what it holds).
 * 0, ctrl_expect()'s errors, or the decoder's (-EBADMSG, -ENOMEM).
 */
int ctrl_await(int fd, struct ctrl_mac *mac, unsigned want, void *msg, int timeout_ms,
	       char *peer_err, size_t errlen);
/*
 * After the last message the peer sends on this connection: its side must end
 * with nothing more. Shuts our sending side (the peer sees its end at once),
 * then waits up to timeout_ms for the peer's end. 0 it ended (closed or
 * reset), CTRL_ERR_MAC when bytes came first (a message inserted or replayed
 * on the way: nothing more is due), -ETIMEDOUT (it did not end, nor speak),
 * -EINTR or -errno.
 */
int ctrl_expect_end(int fd, int timeout_ms);
/*
 * ctrl_expect_end() with our sending side left open: the side that judges
 * the peer's last message waits for the peer to end first, so whatever
 * arrives after that message, until the channel closes, is read (a side that
 * ended first would let a host on the path drop what it sends late).
 */
int ctrl_await_end(int fd, int timeout_ms);
/* Seal a message with mac (ctrl_mac_seal()), send it and free its buffer; 0 or -errno. */
int ctrl_send_free(int fd, struct ctrl_mac *mac, struct ctrl_buf *b, int enc_rc, int timeout_ms);

#endif
