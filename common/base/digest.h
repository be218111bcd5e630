/* SPDX-License-Identifier: MIT */
/*
 * digest.h: an order-independent 64-bit digest of a byte range, built from
 * 4096-byte blocks. Each block is hashed together with its byte offset and the
 * block hashes are added (mod 2^64), so the result does not depend on which
 * thread read which block, in which order, or with which chunk size, while a
 * block that is missing, read twice, or read from the wrong offset changes it.
 *
 * Block hash (little-endian 64-bit words; a partial tail word is zero-padded):
 *	h = (offset * 0x9e3779b97f4a7c15) ^ len
 *	for each word w: h = (h ^ w) * 0xff51afd7ed558ccd; h ^= h >> 29
 *	then the splitmix64 finaliser on h.
 * Not cryptographic: it detects accidents, not adversaries.
 */
#ifndef NBW_DIGEST_H
#define NBW_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_BLOCK 4096u

/* Hash of one block of len (<= DIGEST_BLOCK) bytes that starts at offset. */
uint64_t digest_block(uint64_t offset, const void *data, size_t len);

/*
 * Add the blocks of buf (which holds the bytes at [offset, offset + len)) to
 * acc and return it. offset must be a multiple of DIGEST_BLOCK; len may end
 * in a partial block only where the digested range ends.
 */
uint64_t digest_add(uint64_t acc, uint64_t offset, const void *buf, size_t len);

/* 16 lowercase hex digits and a NUL. */
void digest_hex(uint64_t digest, char out[17]);

#endif
