/* SPDX-License-Identifier: MIT */
/*
 * reader_engine.h: what a reader engine implements, and the slot code of
 * reader.c that every engine reads through. For the engines only (callers
 * use reader.h): a new engine is one file with its struct reader_ops and a
 * row in reader.c's table of engines.
 *
 * A slot's life: taken from the free stack (reader_slot_take()), given its
 * chunk (reader_slot_assign()), read by the engine until
 * reader_slot_progress() says the chunk is complete, handed to the caller
 * (reader_chunk_out()), and put back by reader_release() or on a failed
 * read (reader_slot_put()).
 */
#ifndef NBW_READER_ENGINE_H
#define NBW_READER_ENGINE_H

#include "reader.h"

struct reader_ops {
	/* READER_* flags the engine takes beyond READER_ONE_TASK (which any may ignore). */
	unsigned flags;
	/*
	 * Set the engine up once the slots are (rd's fd, buf, depth, chunk and
	 * flags filled in): 0 or -errno, reader_close() then unwinds. NULL:
	 * nothing to set up.
	 */
	int (*open)(struct reader *rd);
	/* reader_next() of this engine. */
	int (*next)(struct reader *rd, struct reader_chunk *out, int timeout_ms);
	/*
	 * Release the engine after waiting for its reads in flight; the reads
	 * left (the kernel may still write into buf). NULL: none ever are.
	 */
	unsigned (*close)(struct reader *rd);
	/* reader_deferred() of this engine; NULL: false. */
	bool (*deferred)(const struct reader *rd);
};

extern const struct reader_ops reader_psync_ops; /* reader_psync.c */
extern const struct reader_ops reader_uring_ops; /* reader_uring.c, with liburing */

/* Assign the next chunk (of the sweep, or a random one) to slot s, first sent at now. */
void reader_slot_assign(struct reader *rd, unsigned s, uint64_t now);

/*
 * Account n bytes read into slot s. Returns 1 when the chunk is complete,
 * 0 when more must be read, -EIO on an unexpected end of data.
 */
int reader_slot_progress(struct reader *rd, unsigned s, size_t n);

/* Hand slot s out as *out (the caller holds it until reader_release()). */
void reader_chunk_out(struct reader *rd, unsigned s, struct reader_chunk *out);

/* Bytes to ask for: the rest of the chunk, rounded up to the block size. */
static inline size_t reader_slot_request(const struct reader *rd, const struct reader_slot *sl)
{
	size_t rest = sl->want - sl->got;

	return (rest + rd->lbs - 1) / rd->lbs * rd->lbs;
}

/* Where slot s's next bytes go in the caller's buffer. */
static inline unsigned char *reader_slot_buf(const struct reader *rd, unsigned s)
{
	return rd->buf + (size_t)s * rd->chunk + rd->slots[s].got;
}

/* A free slot, taken off the stack of free ones (-1: the caller holds or reads all). */
static inline int reader_slot_take(struct reader *rd)
{
	return rd->nidle ? (int)rd->idle[--rd->nidle] : -1;
}

/* Slot s is free again: on the stack, to be taken next (its buffer is likely cached). */
static inline void reader_slot_put(struct reader *rd, unsigned s)
{
	rd->slots[s].state = SLOT_FREE;
	rd->idle[rd->nidle++] = s;
}

#endif
