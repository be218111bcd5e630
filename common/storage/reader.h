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
 */
#ifndef NBW_READER_H
#define NBW_READER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "nbw.h"
#include "rng.h"
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

enum reader_engine {
	ENGINE_PSYNC,
	ENGINE_IO_URING,
};

/* The engine's name in reports; whether this build has it (cli_engine() parses --engine). */
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

struct region {
	uint64_t start;
	uint64_t len;
};

/*
 * Split [0, span) into n disjoint regions whose starts are multiples of
 * align (a power of two); the last region takes the remainder. -EINVAL if a
 * region would be empty (span < n * align) or align is not a power of two.
 */
int region_split(uint64_t span, unsigned n, uint32_t align, struct region *out);

/*
 * Random chunk offsets over one region: uniform over the chunk-aligned
 * offsets (multiples of chunk from the start of the target) whose whole
 * chunk lies inside the region; a region holding no such chunk has the one
 * offset reg.start (its read clipped at the region's end). As the reader's
 * chunk is a multiple of the block size, so is every offset.
 */
struct rand_offsets {
	uint64_t base;	/* first offset */
	uint64_t count; /* offsets to draw from: base + k * chunk, k < count */
	uint64_t chunk;
	struct rng g;
};

/* 0, or -EINVAL for an empty region or a zero chunk. stream: the reader's index. */
int rand_offsets_init(struct rand_offsets *ro, struct region reg, uint64_t chunk, uint64_t seed,
		      uint64_t stream);

static inline uint64_t rand_offsets_next(struct rand_offsets *ro)
{
	return ro->base + rng_below(&ro->g, ro->count) * ro->chunk;
}

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

struct reader {
	int fd;
	enum reader_engine engine;
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
#ifdef HAVE_LIBURING
	struct io_uring ring;
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
 * check first with reader_poll_queues().
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
 * 64, then a 32nd of the depth), the rest with the next wait. Holding back 8
 * at depth 8 left the device a few reads while the thread handed out the
 * rest: 0.92x fio's random 4 KiB IOPS there, 0.98x submitting each at once.
 */
unsigned reader_submit_batch(unsigned depth);

/*
 * Whether rd's ring runs completion work only in its opener's calls
 * (READER_ONE_TASK on a kernel with SINGLE_ISSUER | DEFER_TASKRUN): as the
 * ring was set up, not as asked. false for psync.
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

/*
 * Whether the block queue under fd (a block device, or the device a file
 * lives on) has poll queues, from <sysfs_root>/dev/block/MAJ:MIN/queue/io_poll
 * (the parent's queue for a partition): 1 yes, 0 no, -errno unknown (a file
 * on a filesystem without one block device, say). The device's name goes to
 * name (len bytes) when found.
 */
int reader_poll_queues(int fd, const char *sysfs_root, char *name, size_t len);
/* One line on how to give a device's driver poll queues ("nvme.poll_queues=N ..."). */
const char *reader_poll_hint(const char *name);

/*
 * Honesty sample of a chunk: its first and last 4 KiB (one block if the chunk
 * is smaller than 8 KiB). Returns the number of blocks sampled and adds the
 * number that were all zero bytes to *zero.
 */
unsigned zero_sample(const void *buf, size_t len, uint64_t *zero);

/* True if len bytes at p are all zero (len a multiple of 8 is fastest). */
bool bytes_are_zero(const void *p, size_t len);

#endif
