/* SPDX-License-Identifier: MIT */
/*
 * reader_slots.h: what a reader is and what every engine reads through: the
 * slots of the caller's buffer, the chunk each reads next (the sweep, or
 * random offsets), the accounting of what landed, and the chunk handed out.
 * The bottom of the reader files: reader_slots.c includes nothing of theirs,
 * the engines (reader_engine.h) build on it, and reader.c on both.
 *
 * A slot's life: taken from the free stack (reader_slot_take()), given its
 * chunk (reader_slot_assign()), read by the engine until
 * reader_slot_progress() says the chunk is complete, handed to the caller
 * (reader_chunk_out()), and put back by reader_release() or on a failed
 * read (reader_slot_put()).
 */
#ifndef NBW_READER_SLOTS_H
#define NBW_READER_SLOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "region.h"

/* reader_open_flags() flags; IOPOLL and SQPOLL are io_uring only (-EINVAL with psync). */
#define READER_IOPOLL 1u /* busy-poll completions (IORING_SETUP_IOPOLL: needs poll queues) */
#define READER_SQPOLL 2u /* a kernel thread submits (IORING_SETUP_SQPOLL) */
/*
 * The thread that opens the reader also makes every reader_next() and the
 * reader_close(): the ring may then run completion work only in that
 * thread's calls (SINGLE_ISSUER | DEFER_TASKRUN where the kernel has them).
 * Another thread's call on such a ring fails (-EEXIST; -EINVAL already
 * where the ring's descriptor is registered, as that too is per thread).
 * psync ignores it.
 */
#define READER_ONE_TASK 4u

/* A completed read: slot's buffer holds len bytes read at offset. */
struct reader_chunk {
	unsigned slot;
	void *buf;
	uint64_t offset;
	size_t len;
	uint64_t sweep;	 /* 0 for the region's first pass, 1 for the second, ... (random: 0) */
	uint64_t lat_ns; /* completion latency with reader_set_timed(), else 0 */
};

/* SLOT_DONE: completed, waiting in the reader's queue of completed chunks. */
enum slot_state { SLOT_FREE, SLOT_INFLIGHT, SLOT_DONE, SLOT_HELD };

struct reader_slot {
	enum slot_state state;
	uint64_t offset;
	size_t want; /* bytes the chunk should hold (clipped at region end) */
	size_t got;  /* bytes read so far (short reads are resumed) */
	uint64_t sweep;
	uint64_t t_submit; /* CLOCK_MONOTONIC ns of the first submission (timed readers) */
	uint64_t t_done;   /* and of the completion */
};

/* A reader's slots and what it reads: the state every engine shares. */
struct reader_slots {
	int fd;
	unsigned depth;
	size_t chunk;
	uint32_t lbs;
	uint64_t end_of_target; /* reads stop here (file size) */
	struct region reg;
	uint64_t next;	    /* next offset to read */
	uint64_t sweep;	    /* pass the next offset belongs to */
	unsigned char *buf; /* depth * chunk bytes, caller's, lbs-aligned */
	struct reader_slot *slots;
	unsigned inflight;
	unsigned *done; /* completed slots not handed out yet, a ring of depth (io_uring) */
	unsigned done_head, ndone;
	unsigned *idle; /* the free slots, a stack of depth */
	unsigned nidle;
	unsigned flags; /* READER_* */
	bool random;	/* offsets from ro instead of the sweep */
	bool timed;	/* chunks carry their latency */
	struct rand_offsets ro;
};

/*
 * The slots of rs for depth chunks of chunk bytes in buf (fd, lbs, region,
 * target size and flags as the caller filled them): every slot free, slot 0
 * taken first. 0 or -ENOMEM; reader_slots_free() releases them either way.
 */
int reader_slots_init(struct reader_slots *rs, unsigned depth);
void reader_slots_free(struct reader_slots *rs);

/* Assign the next chunk (of the sweep, or a random one) to slot s, first sent at now. */
void reader_slot_assign(struct reader_slots *rs, unsigned s, uint64_t now);

/*
 * Account n bytes read into slot s. Returns 1 when the chunk is complete,
 * 0 when more must be read, -EIO on an unexpected end of data.
 */
int reader_slot_progress(struct reader_slots *rs, unsigned s, size_t n);

/* Hand slot s out as *out (the caller holds it until reader_release()). */
void reader_chunk_out(struct reader_slots *rs, unsigned s, struct reader_chunk *out);

/*
 * io_uring: while completed chunks wait to be handed out, the reads of the
 * slots they free are submitted once this many are queued (one below depth
 * 64, then a 32nd of the depth), the rest with the next wait: a shallow
 * ring gets each freed read back at once, so the device is not left with a
 * few reads while the thread hands out the rest, and a deep one holds back
 * no more than 1/32 of itself. Pure, and built with every engine.
 */
unsigned reader_submit_batch(unsigned depth);

/* Bytes to ask for: the rest of the chunk, rounded up to the block size. */
static inline size_t reader_slot_request(const struct reader_slots *rs,
					 const struct reader_slot *sl)
{
	size_t rest = sl->want - sl->got;

	return (rest + rs->lbs - 1) / rs->lbs * rs->lbs;
}

/* Where slot s's next bytes go in the caller's buffer. */
static inline unsigned char *reader_slot_buf(const struct reader_slots *rs, unsigned s)
{
	return rs->buf + (size_t)s * rs->chunk + rs->slots[s].got;
}

/* A free slot, taken off the stack of free ones (-1: the caller holds or reads all). */
static inline int reader_slot_take(struct reader_slots *rs)
{
	return rs->nidle ? (int)rs->idle[--rs->nidle] : -1;
}

/* Slot s is free again: on the stack, to be taken next (its buffer is likely cached). */
static inline void reader_slot_put(struct reader_slots *rs, unsigned s)
{
	rs->slots[s].state = SLOT_FREE;
	rs->idle[rs->nidle++] = s;
}

#endif
