// SPDX-License-Identifier: MIT
/*
 * attrib.c: the gap explained hop by hop (attrib.h). The counters' names are
 * the kernel's (mlx5's and Soft-RoCE's hw_counters, the InfiniBand
 * performance counters); a group sums those of its names a port keeps. A
 * rule fires when every group it names moved and it explains a group no
 * earlier rule of the hop explained: "retransmissions and CNPs" says
 * congestion once, not three times.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"

#define GROUP_NAMES 10

static const struct {
	const char *key;   /* its JSON key */
	const char *words; /* how the text counts it: "48,112 retransmissions" */
	const char *names[GROUP_NAMES];
} groups[AG_N] = {
	[AG_RETRANS] = {"retransmissions",
			"retransmissions",
			{"roce_adp_retrans", "roce_adp_retrans_to", "local_ack_timeout_err",
			 "packet_seq_err", "implied_nak_seq_err", "duplicate_request",
			 "retry_exceeded_err", "rcvd_seq_err", "completer_retry_err"}},
	[AG_CNP] = {"cnps",
		    "CNPs and ECN marks",
		    {"np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
		     "np_ecn_marked_roce_packets"}},
	[AG_OOS] = {"out_of_sequence", "out-of-sequence packets", {"out_of_sequence"}},
	[AG_RNR] = {"rnr",
		    "RNR NAKs and buffer overruns",
		    {"rnr_nak_retry_err", "out_of_buffer", "rcvd_rnr_err"}},
	[AG_WAIT] = {"xmit_wait", "xmit waits", {"port_xmit_wait"}},
	[AG_LINK_ERR] = {"link_errors",
			 "link errors",
			 {"symbol_error", "link_error_recovery", "port_rcv_errors",
			  "local_link_integrity_errors", "excessive_buffer_overrun_errors",
			  "port_rcv_remote_physical_errors"}},
	[AG_DOWN] = {"link_downed", "link downs", {"link_downed"}},
};

#define G(x) (1u << (x))

/* The rules, most specific first. */
static const struct {
	const char *name;
	unsigned groups; /* every one must have moved */
	const char *meaning;
} rules[] = {
	{"congestion", G(AG_RETRANS) | G(AG_CNP), "congestion on that path"},
	{"congestion_notified", G(AG_CNP),
	 "the path is congested: ECN marked it and the sender slowed down (DCQCN)"},
	{"link_down", G(AG_DOWN), "the link went down during the window"},
	{"link_errors", G(AG_LINK_ERR), "a bad physical link: cable, optic or connector"},
	{"loss", G(AG_RETRANS),
	 "packets lost or timed out without congestion notifications: drops on the path"},
	{"reordering", G(AG_OOS),
	 "packets lost or reordered on the way, each gap resent (go-back-N)"},
	{"receiver_not_ready", G(AG_RNR), "the receiver had no buffer ready for the packets"},
	{"xmit_wait", G(AG_WAIT),
	 "the port waited for credits or pause frames: the next hop takes less than it sends"},
};

#define NRULES ((int)(sizeof(rules) / sizeof(rules[0])))

int attrib_rule_count(void)
{
	return NRULES;
}

const char *attrib_rule_name(int i)
{
	return i >= 0 && i < NRULES ? rules[i].name : NULL;
}

const char *attrib_rule_meaning(int i)
{
	return i >= 0 && i < NRULES ? rules[i].meaning : NULL;
}

bool attrib_group_moved(const struct ctr_deltas *ds, enum attrib_group g, uint64_t *sum)
{
	bool kept = false;
	int i, k;

	*sum = 0;
	for (k = 0; k < GROUP_NAMES && groups[g].names[k]; k++)
		for (i = 0; i < ds->n; i++)
			if (!strcmp(ds->c[i].name, groups[g].names[k]) && ds->c[i].kept) {
				kept = true;
				*sum += ds->c[i].d;
			}
	return kept;
}

/* "48,112" */
static const char *thousands(uint64_t v, char *buf, size_t len)
{
	char raw[32];
	size_t n, i, o = 0;

	snprintf(raw, sizeof(raw), "%llu", (unsigned long long)v);
	n = strlen(raw);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = 0;
	return buf;
}

/* The rules the hop's counters fire, each explaining a group not yet explained. */
static void hop_rules(struct attrib_hop *h, const struct ctr_deltas *ds)
{
	unsigned moved = 0, explained = 0;
	int g, i;

	for (g = 0; g < AG_N; g++)
		if (attrib_group_moved(ds, g, &h->moved[g]) && h->moved[g])
			moved |= G(g);
	for (i = 0; i < NRULES && h->nrules < ATTRIB_MAX_RULES; i++) {
		if ((rules[i].groups & moved) != rules[i].groups || !(rules[i].groups & ~explained))
			continue;
		h->rule[h->nrules++] = i;
		explained |= rules[i].groups;
	}
}

/* "48,112 retransmissions and 1,204 CNPs and ECN marks in the window: congestion ..." */
static void rule_text(const struct attrib_hop *h, int rule, char *out, size_t len)
{
	char num[32];
	size_t o = 0;
	int g, said = 0;

	out[0] = 0;
	for (g = 0; g < AG_N && o < len; g++) {
		if (!(rules[rule].groups & G(g)))
			continue;
		o += (size_t)snprintf(out + o, len - o, "%s%s %s", said++ ? " and " : "",
				      thousands(h->moved[g], num, sizeof(num)), groups[g].words);
	}
	if (o < len)
		snprintf(out + o, len - o, " in the window: %s", rules[rule].meaning);
}

static void hop_text(struct attrib_hop *h)
{
	char part[320];
	size_t o;
	int i;

	o = (size_t)snprintf(h->text, sizeof(h->text), "%s %s:%u", h->rail ? "rail" : "port",
			     h->dev, h->port);
	if (!isnan(h->below_pct))
		o += (size_t)snprintf(h->text + o, sizeof(h->text) - o, ": %.0f%% below its peers",
				      h->below_pct);
	for (i = 0; i < h->nrules && o < sizeof(h->text); i++) {
		rule_text(h, h->rule[i], part, sizeof(part));
		o += (size_t)snprintf(h->text + o, sizeof(h->text) - o, "%s%s",
				      i || !isnan(h->below_pct) ? "; " : ": ", part);
	}
	if (h->rail && !h->nrules && o < sizeof(h->text))
		snprintf(h->text + o, sizeof(h->text) - o, "; %s",
			 h->ctr_read
				 ? "no counter of its port moved: the cause is outside what the "
				   "port counts (PCIe, NUMA placement, the peer)"
				 : "its port's counters were not read on this side");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median rate of the rails (n >= 1). */
static double rails_median(const struct rail *rails, int n)
{
	double *v = calloc((size_t)n, sizeof(*v)), m;
	int i;

	if (!v)
		return NAN;
	for (i = 0; i < n; i++)
		v[i] = (double)rails[i].bytes;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return m;
}

/* This side's counters of a rail's port: its local or its remote end. */
static const struct ctr_deltas *rail_ctr(const struct rail *x, const struct ctr_deltas *ctr,
					 int nctr)
{
	int i;

	for (i = 0; i < nctr; i++)
		if ((!strcmp(ctr[i].dev, x->local_dev) && ctr[i].port == x->local_port) ||
		    (!strcmp(ctr[i].dev, x->remote_dev) && ctr[i].port == x->remote_port))
			return &ctr[i];
	return NULL;
}

static void hop_fill(struct attrib_hop *h, const char *dev, unsigned port, bool rail, double below,
		     const struct ctr_deltas *ds)
{
	*h = (struct attrib_hop){.port = port, .rail = rail, .below_pct = below};
	snprintf(h->dev, sizeof(h->dev), "%s", dev);
	if (ds) {
		h->ctr_read = true;
		hop_rules(h, ds);
	}
	hop_text(h);
}

int attrib_explain(const struct rail *rails, int nrails, double seconds,
		   const struct ctr_deltas *ctr, int nctr, struct attrib_hop *out, int max)
{
	double med = nrails >= 2 ? rails_median(rails, nrails) : NAN, below;
	bool *on_low = calloc((size_t)nctr + 1, sizeof(*on_low));
	const struct ctr_deltas *ds;
	int i, n = 0;

	(void)seconds; /* the rails share one window: their bytes compare as rates */
	for (i = 0; i < nrails && n < max && med > 0; i++) {
		below = (med - (double)rails[i].bytes) / med * 100;
		if (below < ATTRIB_RAIL_LOW_PCT)
			continue;
		ds = rail_ctr(&rails[i], ctr, nctr);
		if (ds && on_low)
			on_low[ds - ctr] = true;
		hop_fill(&out[n++], rails[i].local_dev, rails[i].local_port, true, below, ds);
	}
	for (i = 0; i < nctr && n < max; i++) {
		if (on_low && on_low[i])
			continue;
		hop_fill(&out[n], ctr[i].dev, ctr[i].port, false, NAN, &ctr[i]);
		if (out[n].nrules)
			n++;
	}
	free(on_low);
	return n;
}

void attrib_print(struct report *r, const struct attrib_hop *h, int n)
{
	int i, k, g;

	if (!n)
		return;
	report_text(r, " Attribution     :\n");
	report_arr_begin(r, "attribution");
	for (i = 0; i < n; i++) {
		report_obj_begin(r, NULL);
		report_str(r, "hop", NULL, h[i].rail ? "rail" : "port");
		report_str(r, "device", NULL, h[i].dev);
		report_u64(r, "port", NULL, h[i].port);
		report_double(r, "below_peers_pct", NULL, h[i].below_pct);
		report_arr_begin(r, "rules");
		for (k = 0; k < h[i].nrules; k++) {
			report_obj_begin(r, NULL);
			report_str(r, "rule", NULL, rules[h[i].rule[k]].name);
			report_obj_begin(r, "moved");
			for (g = 0; g < AG_N; g++)
				if (rules[h[i].rule[k]].groups & G(g))
					report_u64(r, groups[g].key, NULL, h[i].moved[g]);
			report_obj_end(r);
			report_str(r, "meaning", NULL, rules[h[i].rule[k]].meaning);
			report_obj_end(r);
		}
		report_arr_end(r);
		report_str(r, "text", "  %s\n", h[i].text);
		report_obj_end(r);
	}
	report_arr_end(r);
}
