/* SPDX-License-Identifier: MIT */
/*
 * judge.h: the sink's judging, in one place, apart from any socket or RDMA
 * device so that each decision can be unit tested: the admission of a
 * HELLO (parameters, workers in 64 bits, a share per source, the DRAM),
 * the QPS list, the VERIFY table, the RESULT's sums and rails, the
 * plausibility of an RDMA figure (RESULT or heartbeat), whether a RoCE GID
 * is inside --allow, and the sources' claims together, which it hands to
 * the rule on whether streams add up (model/validity.h). Each check returns
 * true when the peer's word is refused, with the reason in why.
 */
#ifndef NBW_JUDGE_H
#define NBW_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctrl.h"
#include "netaddr.h"
#include "result.h"
#include "slice.h"

/*
 * May a source asking for asked workers come in beside before workers of
 * the sources already admitted? At most max in all and per_source (0: no
 * share) for this one; the sum is taken in 64 bits, so no count wraps.
 */
bool judge_workers_refused(uint64_t before, uint32_t asked, uint32_t max, uint32_t per_source,
			   char *why, size_t len);

/* A QPS list: exactly one entry per worker, each on a port of the sink's nports. */
bool judge_qps_refused(const struct ctrl_wqp *q, uint32_t n, uint32_t workers, int nports,
		       char *why, size_t len);

/*
 * A VERIFY (or CANARY) table: at most workers x slots entries, each (worker,
 * slot) named once and inside the slices. Checked before any byte is hashed.
 */
bool judge_table_refused(const struct ctrl_chunk *c, uint32_t n, uint32_t workers, uint32_t slots,
			 char *why, size_t len);

/* a + b into *sum; false when it wraps. */
bool judge_add(uint64_t a, uint64_t b, uint64_t *sum);

/* What the sink knows to judge a RESULT against: its own, never the source's word. */
struct judge_frame {
	uint32_t workers;	  /* the source's HELLO */
	uint8_t source;		  /* enum ctrl_source */
	double duration_s;	  /* --duration */
	double timeout_s;	  /* the wait "late": how far past -D a window may run */
	int nports;		  /* the sink's ports */
	const double *port_gbits; /* each one's line rate; 0: unknown or software */
	const int *wport;	  /* each worker's port (its place in the ports), -1 unknown */
};

/*
 * The RESULT's totals: its window, its drives and rails added without
 * wrapping to its total, the rails on the ports and QPs the sink connected,
 * each rail within its sink port's line rate over the window, and the
 * total within all ports'.
 */
bool judge_result_refused(const struct ctrl_result *r, const struct judge_frame *f, char *why,
			  size_t len);

/*
 * A RESULT that came since_s after START left: the source's warm-up and
 * window (warmup_s + duration_s) start when START reaches it, so its RESULT
 * cannot come sooner (less a 1 % + 5 ms allowance for the clocks). The
 * sink's own window is not the measure: it opens when this process gets to
 * it, which on a loaded machine can be after the source's.
 */
bool judge_result_early(double since_s, double warmup_s, double duration_s, char *why, size_t len);

/* A rail's line rate: the source's claim, never more than the sink's own port's (0: unknown). */
uint32_t judge_line_mbps(uint32_t claim, double own_gbits);

/*
 * The RDMA figure, if any: a RESULT (res, NULL if none came) only when ok and
 * not rejected; without one, the last heartbeat (prog, NULL if none) only
 * when plausible: its window no longer than duration_s and its slack (10 %,
 * at least 1 s), its bytes no more than rate_gbits (0: unbounded) carries in
 * that time, with 10 % to spare. A failed source's RESULT (ok = 0) gives no
 * figure, nor does its heartbeat.
 */
enum rdma_from judge_rdma_from(const struct ctrl_result *res, bool rejected,
			       const struct ctrl_progress *prog, double duration_s,
			       double rate_gbits, uint64_t *bytes, double *sec);

/*
 * Fan-in: the sources' rates (bytes/s) together within the sink's ports'
 * line rate (rate_gbits, 0: unbounded), each source's claim being plausible
 * on its own but all of them sharing the same ports.
 */
bool judge_sum_refused(const double *bps, int n, double rate_gbits, char *why, size_t len);

/*
 * The fewest and the most header bytes a port's data count (port_rcv_data)
 * takes with each RDMA packet: every one carries a BTH (12) and an ICRC
 * (4); none carries more than 128 (Ethernet, IPv6, UDP, BTH, RETH, ICRC and
 * FCS are 98; IB's LRH, GRH, BTH, RETH and ICRC 80).
 */
#define JUDGE_HDR_MIN 16u
#define JUDGE_HDR_MAX 128u
/*
 * A figure is checked when the headers of the packets (beyond the fewest
 * bytes) could hide at most 1/8 of their payload: packets that carry 1024
 * bytes (RoCE on a 1500-byte Ethernet) or more do, empty ones do not.
 */
#define JUDGE_HDR_SLACK 8u

/*
 * What the sink's ports that carried a source's QPs received from the
 * window's start (window) or from START (its warm-up in) to its RESULT,
 * summed over them; a count is known when every one of them keeps it.
 */
struct judge_rcv {
	bool bytes_known, pkts_known;
	uint64_t bytes;	     /* data, headers included (port_rcv_data x 4) */
	uint64_t pkts;	     /* packets (port_rcv_packets, else rcvd_pkts) */
	uint64_t pkts_bound; /* packets x each port's MTU: the most they carried */
	bool window;	     /* counted from the window's start, else from START (warm-up in) */
};

/*
 * A source's claimed bytes against the payload r's packets can have
 * carried: its bytes less JUDGE_HDR_MIN per packet (with bytes and packets;
 * bytes alone: its bytes; packets alone: packets x MTU). True (why filled)
 * when the claim is more: refused. Else *check: RDMA_CHECK_RECEIVED when
 * the claim is bounded by payload (the packets' headers, between
 * JUDGE_HDR_MIN and JUDGE_HDR_MAX bytes, could hide no more than
 * 1/JUDGE_HDR_SLACK of that payload: the claim is at most 8/7 of what
 * landed),
 * else RDMA_CHECK_UNCHECKED and *un why: no count, packets only (an empty
 * packet counts as a full one), bytes only (headers not told from payload),
 * packets so small that their headers could hide more, or counts from START
 * (not r->window: what the warm-up delivered could cover a window's claim,
 * so they refuse but never check it).
 */
bool judge_received_refused(uint64_t claimed, const struct judge_rcv *r, enum rdma_check *check,
			    enum rdma_unchecked *un, char *why, size_t len);

/* Is the address of a RoCE GID (IPv4-mapped or IPv6) inside the allow-list (n = 0: all)? */
bool judge_gid_allowed(const uint8_t gid[16], const struct netaddr_prefix *allow, int n);

/* What the sink knows to judge a HELLO against (the hall's, never the source's word). */
struct judge_admission {
	const struct ctrl_hello *mine;	 /* the sink's parameters (conv_hello()) */
	const struct ctrl_hello *theirs; /* the source's HELLO */
	const char *peer;		 /* the source, for the reason */
	uint32_t before;		 /* workers of the sources admitted already */
	uint32_t max, per_source;	 /* workers in all; a share per source (0: none) */
	uint64_t dram;			 /* --dram */
	uint64_t local_len;		 /* the local readers' part of it */
	uint64_t chunk;			 /* -s */
	unsigned depth;			 /* slots per slice, less one */
	uint32_t dram_share;		 /* workers per source by --dram (0: no share) */
	unsigned sources;		 /* --sources, for the reason */
};

/* The decision on a HELLO, and why. */
enum judge_hello_verdict {
	JUDGE_HELLO_ADMIT,
	JUDGE_HELLO_MISMATCH, /* its parameters differ from the sink's */
	JUDGE_HELLO_WORKERS,  /* more workers than the sink (or its share) takes */
	JUDGE_HELLO_DRAM,     /* the DRAM cannot hold its slices beside the others' */
};

/*
 * May the sink admit the source of a->theirs beside the sources it took?
 * JUDGE_HELLO_ADMIT with the DRAM laid out for all into lay, else the
 * refusal with the reason (the one line the source is told) in why.
 */
enum judge_hello_verdict judge_hello(const struct judge_admission *a, struct slice_layout *lay,
				     char *why, size_t len);

/*
 * The sink's streams (one source or --sources N): whether its sources claim
 * together more than its ports carry (judge_sum_refused), then the rule
 * every mode shares (validity.h: streams_judge_claims) judges them against
 * the sink's own window into x->sum.
 */
void judge_sink(struct result *x);

#endif
