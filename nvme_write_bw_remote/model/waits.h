/* SPDX-License-Identifier: MIT */
/*
 * waits.h: the remote tool's waits, one table (waits.c): each a multiple of
 * --timeout (T) plus a fixed part, what it bounds, and what the run's budget
 * counts of it. Every wait of the roles is wait_ms() (or wait_s(), wait_ns())
 * of its row, the watchdog's budget is waits_budget(), and --help's and the
 * man page's TIMEOUTS say the table's sums (tests/model/test_waits holds
 * the three together).
 */
#ifndef NBW_WAITS_H
#define NBW_WAITS_H

#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* The waits, in the order a run meets them. */
enum wait_id {
	WAIT_DOOR,	   /* sink: a connection's handshake at its door */
	WAIT_VERSION,	   /* sink: its word to a source of another version */
	WAIT_CONNECT,	   /* source: the control connection */
	WAIT_AUTH,	   /* with a key: the AUTH exchange */
	WAIT_HELLO,	   /* HELLO and ACCEPT */
	WAIT_QPS,	   /* the source's QP numbers */
	WAIT_RDMA,	   /* the RDMA connections */
	WAIT_SLICES,	   /* the sink's slices */
	WAIT_CANARY,	   /* sink: the source's CANARY */
	WAIT_CANARY_READ,  /* source: a worker's first chunk */
	WAIT_CANARY_WRITE, /* source: a worker's canary WRITE */
	WAIT_OTHERS,	   /* sink, --sources N: the others after the first */
	WAIT_MEETING,	   /* sink: a session waits for the others before START */
	WAIT_FAN,	   /* sink, --sources N: its drives wait for every handshake */
	WAIT_START,	   /* START */
	WAIT_HEARTBEAT,	   /* the heartbeat's period */
	WAIT_SILENCE,	   /* nothing on the control channel */
	WAIT_LATE,	   /* a window past -D */
	WAIT_DRAIN,	   /* source: WRITEs in flight without a completion */
	WAIT_DRAIN_ALL,	   /* source: the drain in all */
	WAIT_RESULT,	   /* RESULT (and VERIFY) sent */
	WAIT_RESULT_ALL,   /* sink: the RESULT after its window, in all */
	WAIT_VERIFY,	   /* sink: the VERIFY table and the hashing */
	WAIT_VERDICT,	   /* source: the sink's verdict */
	WAIT_END,	   /* with a key: nothing after the last message */
	WAIT_TELL,	   /* source: its last word to the sink */
	WAIT_TEARDOWN,	   /* the teardown's own bound */
	WAIT_COUNT
};

/* What the run's budget counts of a wait. */
enum wait_budget {
	WAIT_UNCOUNTED, /* within another, the other side's view of one, or a bound of its own */
	WAIT_SETUP,	/* once: the set-up and handshake */
	WAIT_WINDOW,	/* once per window (-a: per size) */
	WAIT_SOURCE,	/* the sink with --sources N: per source and window */
};

struct wait_row {
	const char *name;	 /* a word, as the man page lists it */
	double factor;		 /* of --timeout */
	unsigned fixed_ms;	 /* added to it */
	enum wait_budget budget; /* what the budget counts of it */
	const char *bounds;	 /* what it bounds, a sentence's end */
};

extern const struct wait_row wait_table[WAIT_COUNT];

/* A wait under the options: seconds, nanoseconds, milliseconds (rounded). */
double wait_s(const struct options *o, enum wait_id id);
uint64_t wait_ns(const struct options *o, enum wait_id id);
int wait_ms(const struct options *o, enum wait_id id);

/* The factors of --timeout that the budget counts of kind added up (8 for WAIT_SETUP). */
double waits_factor(enum wait_budget kind);
/* The fixed milliseconds that the budget counts of kind added up. */
unsigned waits_fixed_ms(enum wait_budget kind);

/*
 * The run's overall budget in seconds, from the table: T = --timeout, W =
 * warm-up + duration (+ --late-start); the set-up's waits once, W and the
 * window's waits per window (-a: one per size), and for the sink its --wait
 * and, with --sources N, the per-source waits per source and window. The
 * sink's wait for its first source with --wait 0 is not counted (the
 * watchdog pauses there).
 */
double waits_budget(const struct options *o);

/*
 * A factor of T and a fixed part as text, t for T: "T", "2T", "T/2", "5T/2",
 * "T + 5 s", "1 s" (t = "\fIT\fR" for the man page). Its length, as snprintf's.
 */
int waits_show(double factor, unsigned fixed_ms, const char *t, char *buf, size_t len);

#endif
