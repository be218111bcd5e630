/* SPDX-License-Identifier: MIT */
/*
 * hall.h: the sink's hall. It owns the locked DRAM and its layout, the
 * local drives, the RDMA ports, the door (door.c) and the rdma_cm listener
 * (gate.c); it admits the sources and hands each a session (session.c) of
 * its own with its share of the slices. A run with one source is a hall
 * with N = 1: that session's window also carries the hall's drives; with N
 * sources the hall runs its drives' window itself, START held until every
 * session is ready.
 */
#ifndef NBW_HALL_H
#define NBW_HALL_H

#include <stdbool.h>
#include <stdint.h>

#include "door.h"
#include "gate.h"
#include "local.h"
#include "session.h"
#include "slice.h"

struct hall {
	const struct options *o;
	struct session_env env; /* what its sessions borrow */
	struct local loc;	/* its own drives */
	unsigned char *dram;
	struct slice_layout lay;
	/*
	 * -a: this run's message size, the first admitted source's (0 before): it
	 * lays out every slice; the sizes of -a follow the source's kind (HELLO).
	 */
	uint64_t run_chunk;
	struct fab_port ports[FAB_MAX_PORTS];
	int nports;
	struct door *door;
	char where[1024]; /* the addresses the door listened on, for the header */
	struct gate *gate;
	/* Its own window (N sources): when it opened, how long, the CPU it took. */
	uint64_t win_open_ns;
	double lseconds, cpu_s;
	/* Its sessions (the caller's); --interval: their heartbeats at the last live line. */
	struct session **s;
	int ns;
	struct result *x; /* told the live lines (NULL: none) */
	struct ctrl_progress line[MAX_SOURCES];
	/* N sources: its ports' counters before any START, their deltas after the last session. */
	struct ctr_set *ctr_start;
	uint64_t ctr_start_ns;
	struct ctr_deltas *ctr;
	int nctr;
	char failure[CTRL_MAX_STR + 256]; /* why the run failed before a session did ("" none) */
};

/* A hall with nothing set up yet; NULL after the error line. */
struct hall *hall_create(const struct options *o);
/* Its ports, local drives, locked DRAM, door and listener. 0 or an exit status. */
int hall_open(struct hall *h);
/* "waiting for the sources on ..." on stderr (n: how many). */
void hall_waiting(const struct hall *h, int n);
/*
 * Admit up to n sources through the door into s[], each a session with the
 * DRAM share its workers ask for (n = 1: its window carries the hall's
 * drives). 0 with *got admitted (fewer than n when --wait ran out), or an
 * exit status after the message.
 */
int hall_admit(struct hall *h, struct session **s, int n, int *got);
/*
 * N sources: the window over the hall's own drives, opened once every
 * session is ready (fan). With --interval, x is told a live line per
 * interval: each source's RDMA rate (s1..sN, as its latest heartbeat says),
 * the local drives', their RDMA sum and the total. 0 or an exit status.
 */
int hall_window(struct hall *h, struct meeting *fan, struct result *x);
/* N sources, every session ended: its ports' counters since hall_window's start. */
void hall_counters_end(struct hall *h);
/* Close what it holds (its sessions are the caller's) and free it. */
void hall_destroy(struct hall *h);

#endif
