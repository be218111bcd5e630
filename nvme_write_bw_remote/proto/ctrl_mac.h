/* SPDX-License-Identifier: MIT */
/*
 * ctrl_mac.h: the control channel after AUTH, with a pre-shared key: every
 * message, either way, carries a MAC, so that a host on the path that
 * relayed both proofs still cannot alter, replay, reorder or drop a message
 * (a RESULT, a VERIFY table, a DONE) unnoticed.
 *
 * Keys: one per direction, HKDF-SHA256 of the pre-shared key with the
 * salt nonce_source || nonce_sink (the nonces of this AUTH exchange, so
 * the keys are this session's alone: the channel binding of the proofs)
 * and the labels CTRL_MAC_LABEL_S2K / CTRL_MAC_LABEL_K2S. A message
 * reflected back to its sender is checked under the other key and fails.
 *
 * Wire: a MAC'd message is the usual header, with version CTRL_VERSION_MAC,
 * and payload, then a trailer of exactly CTRL_MAC_LEN bytes (the header's
 * length counts the payload only):
 *	trailer = HMAC-SHA256(key of the direction, u64 seq || header || payload)
 * seq (big-endian) counts the messages of that direction from 0 (the
 * source's HELLO, the sink's ACCEPT or ERROR); it is not sent, each side
 * keeps it, so a message replayed, reordered or dropped fails the next
 * check. The receiver checks the header (type, limits) first, then the
 * trailer over the header and the payload, and only then decodes the payload.
 * Without a key nothing of this exists: version CTRL_VERSION, no trailer.
 */
#ifndef NBW_CTRL_MAC_H
#define NBW_CTRL_MAC_H

#include <stdbool.h>
#include <stdint.h>

#include "auth.h"
#include "ctrl.h"

#define CTRL_MAC_LABEL_S2K "nbw-ctrl-mac source->sink"
#define CTRL_MAC_LABEL_K2S "nbw-ctrl-mac sink->source"

/* One side's MAC state of a connection. Zeroed: off (a channel without a key). */
struct ctrl_mac {
	bool on;
	uint8_t tx[CTRL_MAC_LEN], rx[CTRL_MAC_LEN]; /* the keys of what we send, receive */
	uint64_t tx_seq, rx_seq;		    /* the next message's number each way */
};

/*
 * Turn the MACs on for side (CTRL_BY_SOURCE or CTRL_BY_SINK) after a
 * completed AUTH with key k and the nonces of both sides. 0, or -EIO /
 * -ENOTSUP (m stays off).
 */
int ctrl_mac_start(struct ctrl_mac *m, const struct auth_key *k,
		   const uint8_t nonce_source[CTRL_NONCE_LEN],
		   const uint8_t nonce_sink[CTRL_NONCE_LEN], unsigned side);

/*
 * A received header's version on this channel: 0 if it is the one
 * expected, CTRL_ERR_NOMAC for a plain message where MACs are on (a peer
 * of protocol 3, or a message stripped of its MAC), -EPROTONOSUPPORT else.
 */
int ctrl_mac_check_version(const struct ctrl_mac *m, unsigned version);

/*
 * Seal b, a finished message (ctrl_buf_finish()): its header takes version
 * CTRL_VERSION_MAC and the trailer is appended. 0 (nothing done when m is
 * off or NULL), -ENOMEM or -EIO.
 */
int ctrl_mac_seal(struct ctrl_mac *m, struct ctrl_buf *b);

/*
 * Check a received message's trailer, in constant time, before its payload
 * is decoded: 0 (and rx_seq moves on), or CTRL_ERR_MAC.
 */
int ctrl_mac_open(struct ctrl_mac *m, const uint8_t hdr[CTRL_HDR_LEN], const void *payload,
		  uint32_t len, const uint8_t tag[CTRL_MAC_LEN]);

#endif
