// SPDX-License-Identifier: MIT
/* auth.c: pre-shared key files and HMAC-SHA256 proofs through libcrypto (see auth.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"

#ifdef HAVE_LIBCRYPTO
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#endif

bool auth_available(void)
{
#ifdef HAVE_LIBCRYPTO
	return true;
#else
	return false;
#endif
}

/* Open path as a regular file readable by its owner only. fd or -errno (err set). */
static int key_open(const char *path, struct stat *st, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (st->st_mode & 077) {
		snprintf(err, errlen, "%s: permissions %04o are too open for a key (chmod 600)",
			 path, (unsigned)(st->st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	return fd;
}

int auth_key_load(const char *path, struct auth_key *k, char *err, size_t errlen)
{
	uint8_t buf[AUTH_KEY_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd;

	memset(k, 0, sizeof(*k));
	if (!auth_available()) {
		snprintf(err, errlen,
			 "%s: pre-shared keys were not built (configure found no "
			 "libcrypto: install libssl-dev)",
			 path);
		return -ENOTSUP;
	}
	fd = key_open(path, &st, err, errlen);
	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	if (n < AUTH_KEY_MIN || n > AUTH_KEY_MAX) {
		snprintf(err, errlen,
			 "%s: a key is %d to %d bytes (e.g. head -c 32 /dev/urandom "
			 "| base64 > FILE)",
			 path, AUTH_KEY_MIN, AUTH_KEY_MAX);
		return -EINVAL;
	}
	memcpy(k->key, buf, (size_t)n);
	k->len = (size_t)n;
	memset(buf, 0, sizeof(buf));
	return 0;
}

int auth_nonce(uint8_t out[AUTH_NONCE_LEN])
{
	ssize_t n = getrandom(out, AUTH_NONCE_LEN, 0);

	return n == AUTH_NONCE_LEN ? 0 : -EIO;
}

int auth_mac(const struct auth_key *k, const char *label, const uint8_t a[AUTH_NONCE_LEN],
	     const uint8_t b[AUTH_NONCE_LEN], uint8_t out[AUTH_MAC_LEN])
{
#ifdef HAVE_LIBCRYPTO
	uint8_t msg[64 + 2 * AUTH_NONCE_LEN];
	size_t ll = strlen(label);
	unsigned outlen = 0;

	if (ll > 64)
		return -EINVAL;
	memcpy(msg, label, ll);
	memcpy(msg + ll, a, AUTH_NONCE_LEN);
	memcpy(msg + ll + AUTH_NONCE_LEN, b, AUTH_NONCE_LEN);
	if (!HMAC(EVP_sha256(), k->key, (int)k->len, msg, ll + 2 * AUTH_NONCE_LEN, out, &outlen) ||
	    outlen != AUTH_MAC_LEN)
		return -EIO;
	return 0;
#else
	(void)k, (void)label, (void)a, (void)b;
	memset(out, 0, AUTH_MAC_LEN);
	return -ENOTSUP;
#endif
}

bool auth_check(const struct auth_key *k, const char *label, const uint8_t a[AUTH_NONCE_LEN],
		const uint8_t b[AUTH_NONCE_LEN], const uint8_t got[AUTH_MAC_LEN])
{
#ifdef HAVE_LIBCRYPTO
	uint8_t want[AUTH_MAC_LEN];

	return !auth_mac(k, label, a, b, want) && CRYPTO_memcmp(want, got, AUTH_MAC_LEN) == 0;
#else
	(void)k, (void)label, (void)a, (void)b, (void)got;
	return false;
#endif
}

#ifdef HAVE_LIBCRYPTO
/* HKDF-SHA256 of ikm with salt and info into out[AUTH_MAC_LEN]. 0 or -EIO. */
static int hkdf(const uint8_t *ikm, size_t ikmlen, const uint8_t *salt, size_t saltlen,
		const char *info, uint8_t out[AUTH_MAC_LEN])
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
	size_t outlen = AUTH_MAC_LEN;
	int ok;

	ok = c && EVP_PKEY_derive_init(c) > 0 && EVP_PKEY_CTX_set_hkdf_md(c, EVP_sha256()) > 0 &&
	     EVP_PKEY_CTX_set1_hkdf_salt(c, salt, (int)saltlen) > 0 &&
	     EVP_PKEY_CTX_set1_hkdf_key(c, ikm, (int)ikmlen) > 0 &&
	     EVP_PKEY_CTX_add1_hkdf_info(c, (const unsigned char *)info, (int)strlen(info)) > 0 &&
	     EVP_PKEY_derive(c, out, &outlen) > 0 && outlen == AUTH_MAC_LEN;
	EVP_PKEY_CTX_free(c);
	return ok ? 0 : -EIO;
}
#endif

int auth_derive(const struct auth_key *k, const char *label, const uint8_t a[AUTH_NONCE_LEN],
		const uint8_t b[AUTH_NONCE_LEN], uint8_t out[AUTH_MAC_LEN])
{
#ifdef HAVE_LIBCRYPTO
	uint8_t salt[2 * AUTH_NONCE_LEN];

	if (!k->len)
		return -EINVAL;
	memcpy(salt, a, AUTH_NONCE_LEN);
	memcpy(salt + AUTH_NONCE_LEN, b, AUTH_NONCE_LEN);
	return hkdf(k->key, k->len, salt, sizeof(salt), label, out);
#else
	(void)k, (void)label, (void)a, (void)b;
	memset(out, 0, AUTH_MAC_LEN);
	return -ENOTSUP;
#endif
}

int auth_hmac(const uint8_t key[AUTH_MAC_LEN], const struct auth_part *parts, unsigned n,
	      uint8_t out[AUTH_MAC_LEN])
{
#ifdef HAVE_LIBCRYPTO
	EVP_PKEY *pk = EVP_PKEY_new_raw_private_key(EVP_PKEY_HMAC, NULL, key, AUTH_MAC_LEN);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	size_t outlen = AUTH_MAC_LEN;
	unsigned i;
	int ok = pk && c && EVP_DigestSignInit(c, NULL, EVP_sha256(), NULL, pk) > 0;

	for (i = 0; ok && i < n; i++)
		ok = !parts[i].len || EVP_DigestSignUpdate(c, parts[i].p, parts[i].len) > 0;
	ok = ok && EVP_DigestSignFinal(c, out, &outlen) > 0 && outlen == AUTH_MAC_LEN;
	EVP_MD_CTX_free(c);
	EVP_PKEY_free(pk);
	return ok ? 0 : -EIO;
#else
	(void)key, (void)parts, (void)n;
	memset(out, 0, AUTH_MAC_LEN);
	return -ENOTSUP;
#endif
}

bool auth_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
#ifdef HAVE_LIBCRYPTO
	return CRYPTO_memcmp(a, b, n) == 0;
#else
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
#endif
}
