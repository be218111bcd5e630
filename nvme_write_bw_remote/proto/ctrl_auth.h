/* SPDX-License-Identifier: MIT */
/*
 * ctrl_auth.h: the AUTH exchange of the control protocol, both sides, in one
 * place (the messages are ctrl.h's CTRL_AUTH, the proofs auth.h's HMACs):
 *
 *	source -> sink  AUTH  its nonce, and whether it holds a key
 *	sink -> source  AUTH  the sink's nonce (a keyed sink drops a source
 *	                      without a key; an open one answers anyone)
 *	with a key:
 *	source -> sink  AUTH  its proof: HMAC(key, "nbw-source" | nonce_k | nonce_s)
 *	sink -> source  AUTH  after checking it, the sink's proof:
 *	                      HMAC(key, "nbw-sink" | nonce_s | nonce_k),
 *	                      which the source checks before it says anything else
 *	then every message both ways carries a MAC under keys derived from the
 *	key and both nonces (ctrl_mac.h): the sink's and the source's struct
 *	ctrl_mac, set here when the exchange completes.
 *
 * The sink serves many handshakes at once without blocking, so its side is
 * a step per message (the door reads the messages); the source's side is
 * the whole exchange on a blocking socket.
 */
#ifndef NBW_CTRL_AUTH_H
#define NBW_CTRL_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "ctrl_io.h"
#include "ctrl_mac.h"
#include "steps.h"

/* The sink's side of one source's exchange. Zero it when the connection is accepted. */
struct ctrl_auth_sink {
	unsigned step; /* CTRL_STEP_AUTH (0), CTRL_STEP_PROOF, then CTRL_STEP_HELLO */
	bool trusted;  /* may be told why it is refused: the key is proved, or the sink is open */
	uint8_t nonce_s[CTRL_NONCE_LEN], nonce_k[CTRL_NONCE_LEN];
	struct ctrl_mac mac; /* with a key, on once the proofs are exchanged */
};

/*
 * The sink's step on a source's AUTH payload, answered on fd (which may be
 * non-blocking: at most 1 s per answer). 0: a->step has moved on (to
 * CTRL_STEP_PROOF with a key, else CTRL_STEP_HELLO; with a key, a->mac is
 * on once the sink's proof is sent); < 0: drop the
 * handshake, *why says why (-EBADMSG malformed, -EACCES no or a wrong key,
 * -EIO no answer, -EPROTO an AUTH after the exchange).
 */
int ctrl_auth_sink_step(struct ctrl_auth_sink *a, const struct auth_key *k, int fd,
			const void *payload, uint32_t len, const char **why);

/*
 * The source's whole exchange on fd with the sink at peer (for the text),
 * every wait within timeout_ms. 0 (with a key, *mac is on: every later
 * message goes through it), or < 0 with the line that says why in
 * why: the network's -ECONNRESET or -EPIPE when the sink reset the
 * connection (a busy door may have given our place away: the caller may
 * start over), -EACCES for the keys, another -errno otherwise.
 */
int ctrl_auth_source(int fd, const struct auth_key *k, struct ctrl_mac *mac, const char *peer,
		     int timeout_ms, char *why, size_t len);

#endif
