/* SPDX-License-Identifier: MIT */
/*
 * sink.h: what one session of the sink saw (hall.c, session.c), copied for
 * the report of --sources N (fanin.c).
 */
#ifndef NBW_SINK_H
#define NBW_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "remote.h"
#include "target.h"

struct hall;
struct session;

/* What one session saw, for the combined report; valid until sink_destroy(). */
struct sink_outcome {
	const char *peer;  /* "" if no source came */
	const char *where; /* the addresses the door listened on */
	uint32_t workers;
	enum ctrl_source source;
	uint64_t slice_len; /* each of its workers' slice */
	double ports_gbits; /* the sink's ports' line rate together; 0 unknown */
	uint64_t local_len; /* the hall's: DRAM of the local readers */
	/* Its RDMA stream: the RESULT's, else the last heartbeat's (from), else none. */
	uint64_t rbytes;
	double rsec;
	const char *rfrom; /* "result", "heartbeat" or NULL */
	const struct ctrl_drive *drives;
	uint32_t ndrives;
	const struct rail *rails;
	int nrails;
	/* Its window in this process's clock (ns), and its variation; have_window false: unknown.
	 */
	bool have_window;
	double src_open_ns, src_close_ns, rcv;
	/* This session's own window (the hall's is the sink's), its CPU and local drives. */
	double win_open_ns, lseconds, cpu_s, lcv;
	const struct target *t;
	int nt;
	const uint64_t *lstart, *lend;
	enum verdict verdict;
	const char *vdetail;
	const char *failure; /* "" none */
};

/* What session k saw (NULL: the hall's own window, N sources), valid while both live. */
void sink_outcome(const struct hall *h, const struct session *k, struct sink_outcome *x);

#endif
