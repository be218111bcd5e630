/* SPDX-License-Identifier: MIT */
/*
 * auth.h: the control channel's pre-shared key and the proofs built from it:
 * HMAC-SHA256 (OpenSSL's libcrypto; no cryptography of our own) over a label
 * and the nonces of both sides, so that each side proves it holds the key
 * without sending it, and a recorded proof is worthless for another session.
 */
#ifndef NBW_AUTH_H
#define NBW_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUTH_KEY_MIN 16
#define AUTH_KEY_MAX 1024
#define AUTH_NONCE_LEN 32
#define AUTH_MAC_LEN 32

/* The environment variable that names a key file when --psk-file is not given. */
#define AUTH_KEY_ENV "NBW_PSK_FILE"

struct auth_key {
	uint8_t key[AUTH_KEY_MAX];
	size_t len; /* 0: no key */
};

/* True when the suite was built with libcrypto. */
bool auth_available(void);

/*
 * Read a key file: a regular file of AUTH_KEY_MIN .. AUTH_KEY_MAX bytes
 * (one trailing newline dropped), readable by its owner only. 0, or -errno
 * with the reason in err (-ENOTSUP: built without libcrypto).
 */
int auth_key_load(const char *path, struct auth_key *k, char *err, size_t errlen);

/* Fresh random bytes for a nonce. 0 or -errno. */
int auth_nonce(uint8_t out[AUTH_NONCE_LEN]);

/* out = HMAC-SHA256(key, label || a || b). 0, or -ENOTSUP / -EIO. */
int auth_mac(const struct auth_key *k, const char *label, const uint8_t a[AUTH_NONCE_LEN],
	     const uint8_t b[AUTH_NONCE_LEN], uint8_t out[AUTH_MAC_LEN]);

/* The same MAC, compared in constant time with got. */
bool auth_check(const struct auth_key *k, const char *label, const uint8_t a[AUTH_NONCE_LEN],
		const uint8_t b[AUTH_NONCE_LEN], const uint8_t got[AUTH_MAC_LEN]);

/*
 * A key of one direction of the control channel after AUTH (ctrl_mac.h):
 * out = HKDF-SHA256(input key = the pre-shared key, salt = a || b,
 * info = label), AUTH_MAC_LEN bytes. 0, or -ENOTSUP / -EIO.
 */
int auth_derive(const struct auth_key *k, const char *label, const uint8_t a[AUTH_NONCE_LEN],
		const uint8_t b[AUTH_NONCE_LEN], uint8_t out[AUTH_MAC_LEN]);

/* One piece of a message to authenticate. */
struct auth_part {
	const void *p;
	size_t len;
};

/* out = HMAC-SHA256(key, the n parts one after the other). 0, or -ENOTSUP / -EIO. */
int auth_hmac(const uint8_t key[AUTH_MAC_LEN], const struct auth_part *parts, unsigned n,
	      uint8_t out[AUTH_MAC_LEN]);

/* a and b equal, compared in a time that does not depend on where they differ. */
bool auth_equal(const uint8_t *a, const uint8_t *b, size_t n);

#endif
