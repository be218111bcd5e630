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
 * reader.c opens, reads and closes a reader through its engine; the slots
 * every engine reads through are reader_slots.h, each engine a file behind
 * struct reader_ops (reader_engine.h: reader_psync.c, and reader_uring.c
 * where configure found liburing), and the table of engines, the one place
 * that names them, reader_engines.c. The regions and random offsets are
 * region.h.
 */
#ifndef NBW_READER_H
#define NBW_READER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nbw.h"
#include "reader_slots.h"

/*
 * The table of engines (reader_engines.c). An engine is its index there, in
 * --engine's order (psync first, the default); one this build lacks is
 * there by name only.
 */
/* The engines' names, NULL-terminated: --engine's words (its help and completion too). */
const char *const *reader_engine_words(void);
/* Engine e's name (in reports); "unknown" past the table. */
const char *reader_engine_name(unsigned e);
/* The index of the engine named name, or -ENOENT. */
int reader_engine_find(const char *name);
/* Whether this build has engine e; why not ("configure found no liburing"), NULL: it has. */
bool reader_engine_available(unsigned e);
const char *reader_engine_unbuilt(unsigned e);
/* Reads in flight a reader of engine e keeps when the tool is not told (psync 1, io_uring 8). */
unsigned reader_engine_depth(unsigned e);
/*
 * Whether engine e takes readers of inflight reads in flight each with
 * READER_* flags (a tool's option checks): 0, or -EINVAL with *why (if not
 * NULL) what it lacks in words ("psync has one read in flight") or NULL.
 */
int reader_engine_check(unsigned e, unsigned inflight, unsigned flags, const char **why);
/* The first engine of the table that takes them (built or not; NULL: none), to name in advice. */
const char *reader_engine_taking(unsigned inflight, unsigned flags);

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

struct reader_ops;

/* A reader: its slots, its engine and the engine's own state. */
struct reader {
	struct reader_slots sl;
	const struct reader_ops *ops;
	void *priv; /* the engine's, made by its open, freed by its close */
};

/*
 * Prepare a reader on fd (opened by drive_open_readonly()) for region reg of
 * a target of target_size bytes. buf holds depth slots of chunk bytes and
 * must stay valid until reader_close(). chunk must be a multiple of lbs.
 * The io_uring engine registers buf and fd with its ring.
 */
int reader_open(struct reader *rd, int fd, unsigned engine, unsigned depth, size_t chunk,
		uint32_t lbs, uint64_t target_size, struct region reg, void *buf);
/*
 * reader_open() with READER_* flags. With READER_IOPOLL on a device without
 * poll queues the kernel fails the reads (-EOPNOTSUPP from reader_next()):
 * check first that its block queue has them (queue/io_poll in sysfs).
 * -ENOTSUP for an engine this build lacks.
 */
int reader_open_flags(struct reader *rd, int fd, unsigned engine, unsigned depth, size_t chunk,
		      uint32_t lbs, uint64_t target_size, struct region reg, void *buf,
		      unsigned flags);

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
 * Whether rd's ring runs completion work only in its opener's calls
 * (READER_ONE_TASK on a kernel with SINGLE_ISSUER | DEFER_TASKRUN): as the
 * ring was set up, not as asked (what the tests check). false for psync.
 */
bool reader_deferred(const struct reader *rd);
/* Completions the engine has and reader_next() has not reaped yet (io_uring's; psync: 0). */
unsigned reader_completions(const struct reader *rd);

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
