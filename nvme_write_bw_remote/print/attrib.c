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
#include "window.h"

#define GROUP_NAMES 10

static const struct {
	const char *key;   /* its JSON key */
	const char *words; /* how the text counts it: "48,112 retransmissions" */
	const char *one;   /* how it says none moved: "no retransmission" */
	const char *names[GROUP_NAMES];
} groups[AG_N] = {
	[AG_RETRANS] = {"retransmissions",
			"retransmissions",
			"retransmission",
			{"roce_adp_retrans", "roce_adp_retrans_to", "local_ack_timeout_err",
			 "packet_seq_err", "implied_nak_seq_err", "duplicate_request",
			 "retry_exceeded_err", "rcvd_seq_err", "completer_retry_err"}},
	[AG_CNP] = {"cnps",
		    "CNPs and ECN marks",
		    "CNP or ECN mark",
		    {"np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored",
		     "np_ecn_marked_roce_packets"}},
	[AG_OOS] = {"out_of_sequence",
		    "out-of-sequence packets",
		    "out-of-sequence packet",
		    {"out_of_sequence", "out_of_seq_request"}},
	[AG_RNR] = {"rnr",
		    "RNR NAKs and buffer overruns",
		    "RNR NAK",
		    {"rnr_nak_retry_err", "out_of_buffer", "rcvd_rnr_err", "send_rnr_err",
		     "retry_rnr_exceeded_err"}},
	[AG_WAIT] = {"xmit_wait", "xmit waits", "xmit wait (pause)", {"port_xmit_wait"}},
	[AG_LINK_ERR] = {"link_errors",
			 "link errors",
			 "link error",
			 {"symbol_error", "link_error_recovery", "port_rcv_errors",
			  "local_link_integrity_errors", "excessive_buffer_overrun_errors",
			  "port_rcv_remote_physical_errors"}},
	[AG_DOWN] = {"link_downed", "link downs", "link down", {"link_downed"}},
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

/*
 * --counters-table: the groups, then their counters, in table order, a
 * tab-separated line each ("group KEY WORDS ONE", "counter KEY NAME"). The
 * Python package keeps the same table (python/nbw/portcounters.py);
 * tests/schema/counters_table.sh holds the two equal.
 */
void attrib_table(FILE *out)
{
	int g, k;

	for (g = 0; g < AG_N; g++)
		fprintf(out, "group\t%s\t%s\t%s\n", groups[g].key, groups[g].words, groups[g].one);
	for (g = 0; g < AG_N; g++)
		for (k = 0; k < GROUP_NAMES && groups[g].names[k]; k++)
			fprintf(out, "counter\t%s\t%s\n", groups[g].key, groups[g].names[k]);
}

/* The group's delta in ds (the sum of its counters that moved); false: none kept. */
static bool attrib_group_moved(const struct ctr_deltas *ds, enum attrib_group g, uint64_t *sum)
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

	for (g = 0; g < AG_N; g++) {
		if (!attrib_group_moved(ds, g, &h->moved[g]))
			continue;
		h->kept |= G(g);
		if (h->moved[g])
			moved |= G(g);
	}
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

/* "no retransmission, CNP or ECN mark or link down" (those kept), or "not kept here: ...". */
static size_t groups_list(unsigned set, const char *lead, bool one, char *out, size_t len)
{
	size_t o = 0;
	int g, k = 0, n = 0;

	for (g = 0; g < AG_N; g++)
		n += !!(set & G(g));
	out[0] = 0;
	for (g = 0; g < AG_N && o < len; g++) {
		if (!(set & G(g)))
			continue;
		k++;
		o += (size_t)snprintf(out + o, len - o, "%s%s",
				      k == 1   ? lead
				      : k == n ? (one ? " or " : " and ")
					       : ", ",
				      one ? groups[g].one : groups[g].words);
	}
	return o;
}

/* What a low rail's still counters say, and what its port moved ("; no retransmission ..."). */
static void quiet_text(const struct attrib_hop *h, char *out, size_t len)
{
	unsigned all = G(AG_N) - 1;
	char still[256], notkept[256], a[32], b[32];

	if (h->quiet == AQ_NOT_READ) {
		snprintf(out, len, "; its port's counters were not read on this side");
		return;
	}
	groups_list(h->kept, "no ", true, still, sizeof(still));
	groups_list(all & ~h->kept, " (not kept here: ", false, notkept, sizeof(notkept));
	if (notkept[0])
		snprintf(notkept + strlen(notkept), sizeof(notkept) - strlen(notkept), ")");
	if (h->quiet == AQ_RATE_LIMITED)
		snprintf(out, len,
			 "; %s counted on this end in the window%s: the rate itself is limited "
			 "(a shaper or policer, the port's speed, a slower path%s), not loss or "
			 "congestion",
			 still, notkept, h->vs_line ? ", too few WRITEs in flight" : "");
	else
		snprintf(out, len,
			 "; retransmissions not kept on its port (never read as 0)%s: whether loss "
			 "or congestion slowed it cannot be told on this end",
			 notkept);
	if (!h->have_pkts && !h->have_bytes)
		return;
	snprintf(out + strlen(out), len - strlen(out), "; its port moved %s%s%s%s",
		 h->have_pkts ? thousands(h->pkts, a, sizeof(a)) : "",
		 h->have_pkts ? " packets" : "", h->have_pkts && h->have_bytes ? " and " : "",
		 h->have_bytes ? thousands(h->bytes, b, sizeof(b)) : "");
	if (h->have_bytes)
		snprintf(out + strlen(out), len - strlen(out), " bytes");
}

static void hop_text(struct attrib_hop *h)
{
	char part[320];
	size_t o;
	int i;

	o = (size_t)snprintf(h->text, sizeof(h->text), "%s %s:%u", h->rail ? "rail" : "port",
			     h->dev, h->port);
	if (!isnan(h->below_pct))
		o += (size_t)snprintf(h->text + o, sizeof(h->text) - o, ": %.0f%% below %s",
				      h->below_pct, h->vs_line ? "its line rate" : "its peers");
	for (i = 0; i < h->nrules && o < sizeof(h->text); i++) {
		rule_text(h, h->rule[i], part, sizeof(part));
		o += (size_t)snprintf(h->text + o, sizeof(h->text) - o, "%s%s",
				      i || !isnan(h->below_pct) ? "; " : ": ", part);
	}
	if (h->quiet != AQ_NONE && o < sizeof(h->text))
		quiet_text(h, h->text + o, sizeof(h->text) - o);
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
	m = nbw_median(v, (unsigned)n);
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

/* The sum of the kept ones of names (both kinds) in ds into *v; false when none is kept. */
static bool sum_kept(const struct ctr_deltas *ds, const char *const *names, uint64_t *v)
{
	bool kept = false;
	int i, k;

	*v = 0;
	for (k = 0; names[k]; k++)
		for (i = 0; i < ds->n; i++)
			if (ds->c[i].kept && !strcmp(ds->c[i].name, names[k])) {
				kept = true;
				*v += ds->c[i].d;
			}
	return kept;
}

/* What the port moved, sent and received: the PMA's packets and data (4-byte words), else the
 * driver's packets. */
static void hop_traffic(struct attrib_hop *h, const struct ctr_deltas *ds)
{
	static const char *const pma_pkts[] = {"port_xmit_packets", "port_rcv_packets", NULL};
	static const char *const hw_pkts[] = {"sent_pkts", "rcvd_pkts", NULL};
	static const char *const data[] = {"port_xmit_data", "port_rcv_data", NULL};

	h->have_pkts = sum_kept(ds, pma_pkts, &h->pkts) || sum_kept(ds, hw_pkts, &h->pkts);
	h->have_bytes = sum_kept(ds, data, &h->bytes);
	h->bytes *= 4;
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
	if (rail && !h->nrules) {
		h->quiet = !ds			     ? AQ_NOT_READ
			   : h->kept & G(AG_RETRANS) ? AQ_RATE_LIMITED
						     : AQ_NOT_KEPT;
		if (ds)
			hop_traffic(h, ds);
	}
}

const char *attrib_quiet_name(enum attrib_quiet q)
{
	static const char *const names[] = {
		[AQ_RATE_LIMITED] = "rate_limited",
		[AQ_NOT_KEPT] = "not_kept",
		[AQ_NOT_READ] = "not_read",
	};

	return q > AQ_NONE && q <= AQ_NOT_READ ? names[q] : NULL;
}

/*
 * What a rail is compared with, in its bytes over the window: its peers'
 * median (the rails share one window: their bytes compare as rates), or
 * alone and vs_line, its line rate over seconds; NAN: nothing to compare.
 */
static double rails_reference(const struct rail *rails, int nrails, double seconds, bool vs_line)
{
	if (nrails >= 2)
		return rails_median(rails, nrails);
	if (nrails == 1 && vs_line && rails[0].line_rate_gbits > 0 && seconds > 0)
		return rails[0].line_rate_gbits * 1e9 / 8 * seconds;
	return NAN;
}

int attrib_explain(const struct rail *rails, int nrails, double seconds, bool vs_line,
		   const struct ctr_deltas *ctr, int nctr, struct attrib_hop *out, int max)
{
	double ref = rails_reference(rails, nrails, seconds, vs_line), below;
	bool *on_low = calloc((size_t)nctr + 1, sizeof(*on_low));
	const struct ctr_deltas *ds;
	int i, n = 0;

	for (i = 0; i < nrails && n < max && ref > 0; i++) {
		below = (ref - (double)rails[i].bytes) / ref * 100;
		if (below < ATTRIB_RAIL_LOW_PCT)
			continue;
		ds = rail_ctr(&rails[i], ctr, nctr);
		if (ds && on_low)
			on_low[ds - ctr] = true;
		hop_fill(&out[n], rails[i].local_dev, rails[i].local_port, true, below, ds);
		out[n].vs_line = nrails == 1;
		hop_text(&out[n++]);
	}
	for (i = 0; i < nctr && n < max; i++) {
		if (on_low && on_low[i])
			continue;
		hop_fill(&out[n], ctr[i].dev, ctr[i].port, false, NAN, &ctr[i]);
		hop_text(&out[n]);
		if (out[n].nrules)
			n++;
	}
	free(on_low);
	return n;
}

/*
 * A hop's still counters (JSON): "counters_still" (null: not judged), the
 * groups its port does not keep, and the packets and bytes it moved (null:
 * not kept or not judged).
 */
static void print_quiet(struct report *r, const struct attrib_hop *h)
{
	int g;

	report_str(r, "counters_still", NULL, attrib_quiet_name(h->quiet));
	report_arr_begin(r, "counters_not_kept");
	for (g = 0; g < AG_N && h->ctr_read; g++)
		if (!(h->kept & G(g)))
			report_str(r, NULL, NULL, groups[g].key);
	report_arr_end(r);
	if (h->have_pkts)
		report_u64(r, "packets_moved", NULL, h->pkts);
	else
		report_null(r, "packets_moved", NULL);
	if (h->have_bytes)
		report_u64(r, "bytes_moved", NULL, h->bytes);
	else
		report_null(r, "bytes_moved", NULL);
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
		report_double(r, "below_peers_pct", NULL, h[i].vs_line ? NAN : h[i].below_pct);
		report_double(r, "below_line_rate_pct", NULL, h[i].vs_line ? h[i].below_pct : NAN);
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
		print_quiet(r, &h[i]);
		report_str(r, "text", "  %s\n", h[i].text);
		report_obj_end(r);
	}
	report_arr_end(r);
}
