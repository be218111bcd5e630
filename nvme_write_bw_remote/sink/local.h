/* SPDX-License-Identifier: MIT */
/*
 * local.h: the sink's own drives during a window, its local stream: the
 * drives (none with --no-local, or for a session whose window carries no
 * local stream), their readers in the DRAM's first part, the counters at
 * the window's open and close, and the per-second samples of its rate.
 */
#ifndef NBW_LOCAL_H
#define NBW_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gang.h"
#include "health_watch.h"
#include "options.h"
#include "target.h"
#include "window.h"

struct local {
	const struct options *o;
	struct target t[TARGET_MAX];
	int nt;
	struct reader_gang gang;
	unsigned char *buf;		 /* the DRAM's first part, while the gang reads */
	uint64_t *lstart, *lend, *lprev; /* per drive: at the open, the close, the last live line */
	struct samples lsamples;	 /* the stream's bytes, per second of the window */
	struct samples *dsec;		 /* each drive's, per second of the window (nt) */
	struct health_watch *health;	 /* each drive's health log around the window (nt) */
	struct linkload *ll;		 /* the drives' and NICs' PCIe links (local_watch); NULL */
	uint64_t ll_open_ns;		 /* the window's opening, for the links' seconds */
};

/*
 * The drives (drives: the options' --local-disks, else none), counters and
 * samples. 0, an exit status after the message, or -ENOMEM.
 */
int local_open(struct local *l, const struct options *o, bool drives);
/*
 * Watch the PCIe links and AER counts of its drives and of ports[0..n)
 * over the window (remote_watch()); without memory, none are watched.
 */
void local_watch(struct local *l, const struct fab_port *ports, int n);
/* One reader per region of each drive, each with its chunk of buf. 0 or -errno. */
int local_start(struct local *l, unsigned char *buf);
void local_stop(struct local *l);
/* The window's snapshot into out; true when out is the open's (the counting starts). */
bool local_snapshot(struct local *l, uint64_t *out);
/*
 * The links and AER counts at the window's open (open) or close: called once
 * the window's own times are taken, so that their reads delay none of them.
 */
void local_links(struct local *l, bool open);
/* A second of the window: the stream's bytes as a sample, and the links. */
void local_sample(struct local *l, double at);
/* --interval: the stream's rate (bytes/s) over the secs since the last live line. */
double local_live(struct local *l, double secs);
bool local_failed(const struct local *l);
/* The failed reader's words: "<path>: read at offset N: <why>". */
void local_fault(const struct local *l, char *why, size_t len);
/* The counters of a window that measured nothing: zero. */
void local_zero(struct local *l);
void local_close(struct local *l);

#endif
