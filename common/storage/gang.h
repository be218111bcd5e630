/* SPDX-License-Identifier: MIT */
/*
 * gang.h: a gang of readers, the suite's one way to read drives with many
 * threads: a worker per region of each target (target_regions()), each
 * running the reader loop (reader.h) until told to stop, counting the bytes
 * and reads it completed. Every worker sets itself up first (the caller's
 * setup: its buffer, pinning, reader_open()), then all are released at once
 * by the start line; the caller watches the counters (gang_count()) in its
 * window and stops the gang at the end. nvme_read_bw's phases and the
 * remote sink's local drives are gangs.
 */
#ifndef NBW_GANG_H
#define NBW_GANG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "reader.h"
#include "target.h"
#include "line.h"

struct reader_gang;

struct gang_worker {
	pthread_t tid;
	struct reader_gang *g;
	struct target *t;
	int tindex;	/* t's place among the gang's targets */
	unsigned index; /* the worker's place in the gang */
	struct region reg;
	_Atomic uint64_t bytes; /* bytes of completed reads, ever increasing */
	_Atomic uint64_t ios;	/* completed reads, ever increasing */
	/*
	 * Held around each chunk's work and its count, and by gang_mark(): a read
	 * is counted on the same side of a mark as the chunk work saw in_window.
	 */
	pthread_mutex_t mark;
	bool in_window; /* set by gang_mark(), read by the chunk work under mark */
	struct reader_fault fault;
	const char *hint; /* after the fault's strerror, or NULL */
};

/* What the caller does in each worker's thread (ctx: the gang's). */
struct gang_ops {
	/*
	 * Before the start line: the buffer into *buf and the reader opened on
	 * it. 0, or -errno recorded with gang_fail() (the reader then not open).
	 */
	int (*setup)(struct gang_worker *w, struct reader *rd, void **buf, void *ctx);
	/*
	 * Each completed chunk before it is counted and given back (may be NULL);
	 * w->in_window tells whether its count falls inside the caller's window.
	 */
	void (*chunk)(struct gang_worker *w, const struct reader_chunk *c, void *ctx);
	/* A read failed with rc: a hint for the message, say (may be NULL). */
	void (*read_failed)(struct gang_worker *w, int rc, void *ctx);
	/* After the reader closed: give *buf back (may be NULL). */
	void (*teardown)(struct gang_worker *w, void *buf, void *ctx);
};

struct reader_gang {
	const struct gang_ops *ops;
	void *ctx;
	struct gang_worker *w;
	int nw, nt;
	int started;
	struct start_line line;
	atomic_bool stop, failed;
};

/* Record why worker w stopped (see reader_fail()) and raise the gang's failed. */
#define gang_fail(w, rc, ...) reader_fail(&(w)->fault, &(w)->g->failed, (rc), __VA_ARGS__)

/* threads workers per target of t[nt], each a region of its target. 0 or -ENOMEM. */
int gang_plan(struct reader_gang *g, struct target *const *t, int nt, unsigned threads,
	      const struct gang_ops *ops, void *ctx);
/*
 * Start every worker; they set up and wait at the start line. The count
 * started (*err: pthread_create()'s error when fewer).
 */
int gang_start(struct reader_gang *g, int *err);
/* Wait until every started worker set up (or failed). 0, or -EINTR (a signal came). */
int gang_gather(struct reader_gang *g);
/* Release them: the reading begins. */
void gang_open(struct reader_gang *g);
/* Stop and join every started worker (the watchdog told which is awaited). */
void gang_stop(struct reader_gang *g);
/* Bytes (and reads, ios may be NULL) completed so far per target: nt entries each. */
void gang_count(const struct reader_gang *g, uint64_t *bytes, uint64_t *ios);
/*
 * Like gang_count(), and from now on every worker's in_window is in_window:
 * each read counted in a window between two marks had its chunk work see
 * in_window true, and no other (exactly, not within a read at the edges).
 */
void gang_mark(struct reader_gang *g, bool in_window, uint64_t *bytes, uint64_t *ios);
/* The first worker that failed, or NULL. */
const struct gang_worker *gang_fault(const struct reader_gang *g);
bool gang_failed(const struct reader_gang *g);
void gang_free(struct reader_gang *g);

#endif
