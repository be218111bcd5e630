/* SPDX-License-Identifier: MIT */
/*
 * reader_engine.h: what a reader engine is, as fio's ioengines are: its
 * name, what it takes (its option checks), and its calls on a reader's
 * slots (reader_slots.h) with its own state, which it makes at open and
 * frees at close. For the engines and the table of engines
 * (reader_engines.c); callers use reader.h. Of the reader headers an
 * engine file includes this one only (no object cycle: the engines call
 * reader_slots.c, never reader.c): a new engine is one file with its struct
 * reader_ops and a row in reader_engines.c's table.
 */
#ifndef NBW_READER_ENGINE_H
#define NBW_READER_ENGINE_H

#include <stdbool.h>

#include "reader_slots.h"

struct reader_ops {
	/* --engine's word and the reports' name. */
	const char *name;
	/* Why this build lacks the engine (then it is a name only: no calls); NULL: built. */
	const char *unbuilt;
	/* Reads in flight a reader keeps when the tool is not told (nvme_read_bw --depth). */
	unsigned depth;
	/*
	 * Whether the engine takes readers of inflight reads in flight each,
	 * with READER_* flags (READER_ONE_TASK any engine may ignore): 0, or
	 * -EINVAL with *why saying what it lacks when it has words for it
	 * (else *why is left alone). NULL: it takes any.
	 */
	int (*check)(unsigned inflight, unsigned flags, const char **why);
	/*
	 * Set the engine up once the slots are (rs's fd, buf, depth, chunk and
	 * flags filled in), its own state into *priv: 0 or -errno, after which
	 * close is called all the same (with *priv as open left it). NULL:
	 * nothing to set up, no state.
	 */
	int (*open)(struct reader_slots *rs, void **priv);
	/* reader_next() of this engine. */
	int (*next)(struct reader_slots *rs, void *priv, struct reader_chunk *out, int timeout_ms);
	/*
	 * Wait for the engine's reads in flight, then free its state; the
	 * reads left (the kernel may still write into buf). NULL: none ever are.
	 */
	unsigned (*close)(struct reader_slots *rs, void *priv);
	/* reader_deferred() of this engine; NULL: false. */
	bool (*deferred)(const void *priv);
	/* reader_completions() of this engine; NULL: 0. */
	unsigned (*completions)(const void *priv);
};

extern const struct reader_ops reader_psync_ops; /* reader_psync.c */
extern const struct reader_ops reader_uring_ops; /* reader_uring.c, with liburing */

/* Engine e of the table (reader_engines.c), or NULL past its end. */
const struct reader_ops *reader_engine_ops(unsigned e);

#endif
