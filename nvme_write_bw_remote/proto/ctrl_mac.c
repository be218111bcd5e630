// SPDX-License-Identifier: MIT
/* ctrl_mac.c: the MAC'd control channel after AUTH (see ctrl_mac.h). */
#include <errno.h>
#include <string.h>

#include "ctrl_mac.h"

int ctrl_mac_start(struct ctrl_mac *m, const struct auth_key *k,
		   const uint8_t nonce_source[CTRL_NONCE_LEN],
		   const uint8_t nonce_sink[CTRL_NONCE_LEN], unsigned side)
{
	uint8_t s2k[CTRL_MAC_LEN], k2s[CTRL_MAC_LEN];
	int rc;

	memset(m, 0, sizeof(*m));
	rc = auth_derive(k, CTRL_MAC_LABEL_S2K, nonce_source, nonce_sink, s2k);
	if (!rc)
		rc = auth_derive(k, CTRL_MAC_LABEL_K2S, nonce_source, nonce_sink, k2s);
	if (!rc) {
		memcpy(m->tx, side == CTRL_BY_SOURCE ? s2k : k2s, CTRL_MAC_LEN);
		memcpy(m->rx, side == CTRL_BY_SOURCE ? k2s : s2k, CTRL_MAC_LEN);
		m->on = true;
	}
	memset(s2k, 0, sizeof(s2k));
	memset(k2s, 0, sizeof(k2s));
	return rc;
}

/* The header version a message on this channel carries (m may be NULL: off). */
static unsigned ctrl_mac_version(const struct ctrl_mac *m)
{
	return m && m->on ? CTRL_VERSION_MAC : CTRL_VERSION;
}

int ctrl_mac_check_version(const struct ctrl_mac *m, unsigned version)
{
	if (version == ctrl_mac_version(m))
		return 0;
	return m && m->on && version == CTRL_VERSION ? CTRL_ERR_NOMAC : -EPROTONOSUPPORT;
}

/* tag = HMAC(key, seq || hdr || payload). 0 or -EIO. */
static int tag_of(const uint8_t key[CTRL_MAC_LEN], uint64_t seq, const uint8_t *hdr,
		  const void *payload, uint32_t len, uint8_t tag[CTRL_MAC_LEN])
{
	uint8_t be[8];
	struct auth_part parts[3] = {{be, sizeof(be)}, {hdr, CTRL_HDR_LEN}, {payload, len}};
	int i;

	for (i = 0; i < 8; i++)
		be[i] = (uint8_t)(seq >> (56 - 8 * i));
	return auth_hmac(key, parts, 3, tag) ? -EIO : 0;
}

int ctrl_mac_seal(struct ctrl_mac *m, struct ctrl_buf *b)
{
	uint8_t tag[CTRL_MAC_LEN];

	if (!m || !m->on)
		return 0;
	if (b->nomem || b->len < CTRL_HDR_LEN)
		return -ENOMEM;
	b->data[4] = (uint8_t)(CTRL_VERSION_MAC >> 8);
	b->data[5] = (uint8_t)CTRL_VERSION_MAC;
	if (tag_of(m->tx, m->tx_seq, b->data, b->data + CTRL_HDR_LEN,
		   (uint32_t)(b->len - CTRL_HDR_LEN), tag))
		return -EIO;
	ctrl_put_bytes(b, tag, sizeof(tag));
	if (b->nomem)
		return -ENOMEM;
	m->tx_seq++;
	return 0;
}

int ctrl_mac_open(struct ctrl_mac *m, const uint8_t hdr[CTRL_HDR_LEN], const void *payload,
		  uint32_t len, const uint8_t tag[CTRL_MAC_LEN])
{
	uint8_t want[CTRL_MAC_LEN];

	if (tag_of(m->rx, m->rx_seq, hdr, payload, len, want) ||
	    !auth_equal(want, tag, CTRL_MAC_LEN))
		return CTRL_ERR_MAC;
	m->rx_seq++;
	return 0;
}
