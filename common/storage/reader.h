/* SPDX-License-Identifier: MIT */
/*
 * reader.h: the one O_DIRECT reader loop of the suite. A reader sweeps one
 * region of a target sequentially in chunks, wrapping at the region's end,
 * with up to depth reads in flight (psync: one pread at a time; io_uring:
 * depth fixed-buffer reads on a registered file, every completion the ring
 * holds reaped at once and the freed slots submitted together when the
 * reaped ones are handed out). Each completed chunk is
 * handed to the caller in a slot of the caller's buffer and stays the
 * caller's until reader_release(), so a slot can be held while, say, an
 * RDMA WRITE sends it.
 *
 * reader_set_random() turns the sweep into uniformly random chunk-aligned
 * offsets from a seeded per-reader generator; reader_set_timed() has each
 * chunk carry its completion latency (first submission to completion,
 * CLOCK_MONOTONIC).
 *
 * reader.c keeps the slots and what every engine shares; each engine is a
 * file behind struct reader_ops (reader_engine.h): reader_psync.c, and
 * reader_uring.c where configure found liburing. The regions and random
 * offsets are region.h.
 */
#ifndef NBW_READER_H
#define NBW_READER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "nbw.h"
#include "region.h"
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

enum reader_engine {
	ENGINE_PSYNC,
	ENGINE_IO_URING,
};

/* The engine's name in reports; whether this build has it (--engine: CLI_ROW_ENGINE). */
const char *reader_engine_name(enum reader_engine e);
bool reader_engine_available(enum reader_engine e);

/*
 * Why a reader worker stopped: its error (-errno) and what it was doing
 * ("read at offset 4096"); 0 and "" while it runs.
 */
struct reader_fault {
	int err;
	char why[256];
};

/* Record why (rc, or -EIO for 0) and raise *failed for the whole run. */
void reader_fail(struct reader_fault *f, atomic_bool *failed, int rc, const char *fmt, ...)
	NBW_PRINTF(4, 5);

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

struct reader_ops;

struct reader {
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
	unsigned *done; /* io_uring: completed slots not handed out yet, a ring of depth */
	unsigned done_head, ndone;
	unsigned *idle; /* the free slots, a stack of depth */
	unsigned nidle;
	unsigned flags; /* READER_* */
	bool random;	/* offsets from ro instead of the sweep */
	bool timed;	/* chunks carry their latency */
	struct rand_offsets ro;
	/* The engine (reader_engine.h) and its own state; psync keeps none. */
	const struct reader_ops *ops;
#ifdef HAVE_LIBURING
	struct io_uring ring; /* reader_uring.c's */
	bool ring_ready;
#endif
};

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

/*
 * Prepare a reader on fd (opened by drive_open_readonly()) for region reg of
 * a target of target_size bytes. buf holds depth slots of chunk bytes and
 * must stay valid until reader_close(). chunk must be a multiple of lbs.
 * The io_uring engine registers buf and fd with its ring.
 */
int reader_open(struct reader *rd, int fd, enum reader_engine engine, unsigned depth, size_t chunk,
		uint32_t lbs, uint64_t target_size, struct region reg, void *buf);
/*
 * reader_open() with READER_* flags. With READER_IOPOLL on a device without
 * poll queues the kernel fails the reads (-EOPNOTSUPP from reader_next()):
 * check first that its block queue has them (queue/io_poll in sysfs).
 * -ENOTSUP for an engine this build lacks.
 */
int reader_open_flags(struct reader *rd, int fd, enum reader_engine engine, unsigned depth,
		      size_t chunk, uint32_t lbs, uint64_t target_size, struct region reg,
		      void *buf, unsigned flags);

/*
 * Keep every free slot reading and return the next completed chunk.
 * 0 and *out filled; -EAGAIN if no read can be in flight because the caller
 * holds every slot; -ETIMEDOUT if nothing completed within timeout_ms
 * (io_uring only; psync reads block); -EIO etc. for a failed read (out->offset
 * then names where).
 */
int reader_next(struct reader *rd, struct reader_chunk *out, int timeout_ms);

/*
 * Read random chunk-aligned offsets of the region (see struct rand_offsets)
 * from a generator seeded by seed and stream (the reader's index), before
 * the first reader_next(). 0 or -EINVAL.
 */
int reader_set_random(struct reader *rd, uint64_t seed, uint64_t stream);
/* Time each read: reader_chunk.lat_ns (two clock reads per read or batch). */
void reader_set_timed(struct reader *rd, bool on);

/*
 * io_uring: while completed chunks wait to be handed out, the reads of the
 * slots they free are submitted once this many are queued (one below depth
 * 64, then a 32nd of the depth), the rest with the next wait: a shallow
 * ring gets each freed read back at once, so the device is not left with a
 * few reads while the thread hands out the rest, and a deep one holds back
 * no more than 1/32 of itself. Pure, and built with every engine.
 */
unsigned reader_submit_batch(unsigned depth);

/*
 * Whether rd's ring runs completion work only in its opener's calls
 * (READER_ONE_TASK on a kernel with SINGLE_ISSUER | DEFER_TASKRUN): as the
 * ring was set up, not as asked (what the tests check). false for psync.
 */
bool reader_deferred(const struct reader *rd);

/* Give a held slot back for reading. */
void reader_release(struct reader *rd, unsigned slot);

/*
 * Wait for the reads in flight (io_uring; psync has none), then release the
 * reader. Call it from the thread that opened the reader: the ring's
 * registered descriptor names it in that thread only, so another thread's
 * wait is refused. -EBUSY when reads were left in flight (the device
 * answered nothing for 10 s, or the wait was refused): the kernel may still
 * write into buf, which must then not be freed or reused. Else 0.
 */
int reader_close(struct reader *rd);

#endif
