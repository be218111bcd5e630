/* SPDX-License-Identifier: MIT */
/*
 * attrib.h: the gap explained hop by hop (attrib.c): a rail below its peers
 * (or, alone, below its line rate), and what its port's counters say about
 * it, by a table of rules (counter names -> what their moving usually
 * means); when no rule fires, what the loss and congestion counters say by
 * staying still (kept: the rate itself is limited) or by not being kept. A
 * port whose counters fire a rule is named even when no rail is low. Pure:
 * built from a result's rails and counter deltas, tested on results built
 * in memory.
 */
#ifndef NBW_ATTRIB_H
#define NBW_ATTRIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "options.h"
#include "report.h"

/* A rail this many % below its peers' median is named. */
#define ATTRIB_RAIL_LOW_PCT 10.0

/* Groups of counters that mean one thing, whatever the device calls them. */
enum attrib_group {
	AG_RETRANS,  /* retransmissions and timeouts */
	AG_CNP,	     /* congestion notifications and ECN marks */
	AG_OOS,	     /* out-of-sequence packets */
	AG_RNR,	     /* receiver not ready, out of buffer */
	AG_WAIT,     /* the port waited to send */
	AG_LINK_ERR, /* physical link errors */
	AG_DOWN,     /* the link went down */
	AG_N,
};

/*
 * A low rail whose port fired no rule: what the counters that would mean loss
 * or congestion say by staying still.
 */
enum attrib_quiet {
	AQ_NONE,	 /* not judged: not a low rail, or a rule fired */
	AQ_RATE_LIMITED, /* retransmissions kept and nothing kept moved: the rate is limited */
	AQ_NOT_KEPT,	 /* its port keeps no retransmission count: loss cannot be told */
	AQ_NOT_READ,	 /* this side did not read its port's counters */
};

#define ATTRIB_MAX_RULES 4 /* rules fired on one hop (at most one per group) */

struct attrib_hop {
	char dev[64];
	unsigned port;
	bool rail;	  /* a rail (its figure compared with its peers), else a port */
	double below_pct; /* % below its peers' median; NAN: not compared or not below */
	bool vs_line;	  /* below_pct is against its line rate (one rail), not its peers */
	bool ctr_read;	  /* this side read the hop's port counters */
	unsigned kept;	  /* the groups its port keeps, a bit each (1 << group) */
	uint64_t moved[AG_N];
	enum attrib_quiet quiet;    /* a low rail with no rule fired: what its still counters say */
	bool have_pkts, have_bytes; /* the port counted packets / bytes (sent and received) */
	uint64_t pkts, bytes;
	int nrules;
	int rule[ATTRIB_MAX_RULES]; /* indexes into the rule table */
	char text[640];
};

/*
 * The groups' table for --counters-table: a line per group, "group", its JSON
 * key, how the text counts it and how it says none moved; then a line per
 * counter, "counter", its group's key and the kernel's name; tab-separated,
 * in table order.
 */
void attrib_table(FILE *out);

/* The rule table: its size and a rule's name. */
int attrib_rule_count(void);
const char *attrib_rule_name(int i);

/* "rate_limited", "not_kept", "not_read" or NULL (AQ_NONE): JSON "counters_still". */
const char *attrib_quiet_name(enum attrib_quiet q);

/*
 * The hops of one stream: every rail ATTRIB_RAIL_LOW_PCT below its peers'
 * median (two rails or more; with one rail and vs_line, below its line rate
 * over seconds, when known), then every port of ctr[0..nctr) not on such a
 * rail whose counters fire a rule. Returns the count written into out (at
 * most max).
 */
int attrib_explain(const struct rail *rails, int nrails, double seconds, bool vs_line,
		   const struct ctr_deltas *ctr, int nctr, struct attrib_hop *out, int max);

/* "attribution": the hops, each a line in text and an object in JSON; nothing for none. */
void attrib_print(struct report *r, const struct attrib_hop *h, int n);

#endif
