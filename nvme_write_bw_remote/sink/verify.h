/* SPDX-License-Identifier: MIT */
/*
 * verify.h: what landed in one source's slices, checked against what the
 * source says it wrote (canary: one chunk per worker; full: every slot it
 * last wrote), and --dump-slice. Pure work on the DRAM and the tables: no
 * socket, no session; the session (session.c) receives the tables and
 * calls down here.
 */
#ifndef NBW_VERIFY_H
#define NBW_VERIFY_H

#include <stdint.h>

#include "ctrl.h"
#include "options.h"
#include "verdict.h"

/* One source's slices as they lie in the hall's DRAM. */
struct landing {
	const unsigned char *slices; /* its worker 0's slice */
	uint64_t slice_len;
	uint32_t slots; /* per slice */
	uint32_t workers;
	uint64_t chunk;
	double timeout_s; /* the hashing stops past it (and at a signal) */
	uint8_t source;	  /* enum ctrl_source: a memory source writes whole chunks only */
	uint64_t wrote;	  /* bytes its RESULT says its window wrote (0: no RESULT taken) */
};

/*
 * An entry is checked only where it covers the slot's whole chunk: length 0
 * (whose digest, 0, would match anything) and a part of a chunk are entries
 * that differ, save one: a drive region's last chunk may be short, so a disk
 * source's worker may name one short (offset, length), in as many slots as
 * it likes, but not two.
 */

/*
 * The canary verdict of the table c[n] (mode: --verify; OFF gives
 * VERDICT_OFF): one entry per worker, each worker's at its slot 0.
 */
void verify_canary(const struct landing *l, unsigned mode, const struct ctrl_chunk *c, uint32_t n,
		   struct verdict_note *v);
/*
 * --verify full: every slot of c[n] hashed here, added to the canary's
 * verdict in v; no_table: why there is no table (c unused), or NULL. A table
 * that covers fewer slots than the RESULT's bytes filled (l->wrote in whole
 * chunks, at most a worker's ring), or none, fails.
 */
void verify_full(const struct landing *l, const struct ctrl_chunk *c, uint32_t n, uint32_t ncanary,
		 const char *no_table, struct verdict_note *v);
/* --dump-slice PATH: PATH.map, worker 0's slots of the canary and of the full table (c may be
 * NULL). */
void verify_dump_map(const char *path, const struct ctrl_chunk *canary, uint32_t ncanary,
		     const struct ctrl_chunk *c, uint32_t n);
/* --dump-slice PATH: worker 0's slice into PATH (a warning if it cannot). */
void verify_dump_slice(const char *path, const struct landing *l);

#endif
