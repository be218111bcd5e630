// SPDX-License-Identifier: MIT
/* ctrl_auth.c: the AUTH exchange, the sink's step and the source's side (see ctrl_auth.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctrl_auth.h"

#define LABEL_SINK "nbw-sink"
#define LABEL_SOURCE "nbw-source"

/* ---- the sink ---------------------------------------------------------------- */

/* Send an AUTH with our nonce, or with our proof. 0 or -EIO. */
static int sink_answer(const struct ctrl_auth_sink *a, const struct auth_key *k, int fd, bool proof)
{
	struct ctrl_auth r = {.has_key = k->len > 0};
	struct ctrl_buf b;

	if (!proof)
		memcpy(r.nonce, a->nonce_k, sizeof(r.nonce));
	else if (auth_mac(k, LABEL_SINK, a->nonce_s, a->nonce_k, r.mac))
		return -EIO;
	return ctrl_send_free(fd, NULL, &b, ctrl_encode_auth(&b, &r), 1000) ? -EIO : 0;
}

int ctrl_auth_sink_step(struct ctrl_auth_sink *a, const struct auth_key *k, int fd,
			const void *payload, uint32_t len, const char **why)
{
	struct ctrl_auth m;

	if (ctrl_decode_auth(payload, len, &m)) {
		*why = "malformed AUTH";
		return -EBADMSG;
	}
	if (a->step == CTRL_STEP_AUTH) {
		if (k->len && !m.has_key) {
			*why = "no pre-shared key (the sink requires one)";
			return -EACCES;
		}
		memcpy(a->nonce_s, m.nonce, sizeof(a->nonce_s));
		if (auth_nonce(a->nonce_k) || sink_answer(a, k, fd, false)) {
			*why = "cannot answer the AUTH";
			return -EIO;
		}
		a->trusted = !k->len; /* an open sink explains itself to anyone */
		a->step = ctrl_step_next(a->step, CTRL_AUTH, k->len > 0, false, false);
		return 0;
	}
	if (a->step != CTRL_STEP_PROOF) {
		*why = "a message out of turn";
		return -EPROTO;
	}
	if (!auth_check(k, LABEL_SOURCE, a->nonce_k, a->nonce_s, m.mac)) {
		*why = "wrong pre-shared key";
		return -EACCES;
	}
	if (ctrl_mac_start(&a->mac, k, a->nonce_s, a->nonce_k, CTRL_BY_SINK) ||
	    sink_answer(a, k, fd, true)) {
		*why = "cannot send our proof";
		return -EIO;
	}
	a->trusted = true;
	a->step = ctrl_step_next(a->step, CTRL_AUTH, k->len > 0, false, false);
	return 0;
}

/* ---- the source -------------------------------------------------------------- */

/*
 * Send mine, then read the sink's AUTH into theirs. 0, or the error with
 * its line in why; closed (if not NULL) follows "the sink closed the
 * connection" when it did.
 */
static int source_round(int fd, const char *peer, int ms, const struct ctrl_auth *mine,
			struct ctrl_auth *theirs, const char *closed, char *why, size_t len)
{
	char err[CTRL_MAX_STR] = "";
	struct ctrl_buf b;
	int rc = ctrl_send_free(fd, NULL, &b, ctrl_encode_auth(&b, mine), ms);

	if (!rc)
		rc = ctrl_await(fd, NULL, CTRL_AUTH, theirs, ms, err, sizeof(err));
	if (rc == -ECONNRESET && closed)
		snprintf(why, len, "%s: the sink closed the connection%s", peer, closed);
	else if (rc)
		snprintf(why, len, "%s: handshake: %s", peer, err[0] ? err : ctrl_strerror(rc));
	return rc;
}

/* rc with the line fmt in why. */
#define SOURCE_FAIL(rc, ...) (snprintf(why, len, __VA_ARGS__), (rc))

int ctrl_auth_source(int fd, const struct auth_key *k, struct ctrl_mac *mac, const char *peer,
		     int timeout_ms, char *why, size_t len)
{
	struct ctrl_auth mine = {.has_key = k->len > 0}, theirs, proof = mine;
	uint8_t nonce_s[CTRL_NONCE_LEN], nonce_k[CTRL_NONCE_LEN];
	int rc;

	why[0] = '\0';
	memset(mac, 0, sizeof(*mac));
	if (auth_nonce(mine.nonce))
		return SOURCE_FAIL(-EIO, "no random bytes for the nonce");
	memcpy(nonce_s, mine.nonce, sizeof(nonce_s));
	rc = source_round(fd, peer, timeout_ms, &mine, &theirs,
			  k->len ? NULL : " (does it require a pre-shared key? --psk-file)", why,
			  len);
	if (rc)
		return rc;
	if (!k->len)
		return theirs.has_key ? SOURCE_FAIL(-EACCES,
						    "%s: the sink requires a pre-shared key "
						    "(--psk-file)",
						    peer)
				      : 0;
	if (!theirs.has_key)
		return SOURCE_FAIL(-EACCES, "%s: the sink holds no pre-shared key (it is open)",
				   peer);
	memcpy(nonce_k, theirs.nonce, sizeof(nonce_k));
	memset(proof.nonce, 0, sizeof(proof.nonce));
	if (auth_mac(k, LABEL_SOURCE, nonce_k, nonce_s, proof.mac))
		return SOURCE_FAIL(-EIO, "cannot compute the proof of the key");
	rc = source_round(fd, peer, timeout_ms, &proof, &theirs, ": the pre-shared keys differ",
			  why, len);
	if (rc)
		return rc;
	if (!auth_check(k, LABEL_SINK, nonce_s, nonce_k, theirs.mac))
		return SOURCE_FAIL(-EACCES, "%s: the sink did not prove the pre-shared key", peer);
	if (ctrl_mac_start(mac, k, nonce_s, nonce_k, CTRL_BY_SOURCE))
		return SOURCE_FAIL(-EIO, "cannot derive the keys of the control channel");
	return 0;
}
