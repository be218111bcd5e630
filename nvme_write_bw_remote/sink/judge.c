// SPDX-License-Identifier: MIT
/*
 * judge.c: the sink's judging, in one place (see judge.h): the pure checks
 * of a source's word, the admission of its HELLO, and what its sources claim
 * together, handed to the rule on whether streams add up (model/validity.c).
 */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "judge.h"
#include "share.h"
#include "parse.h"
#include "validity.h"

/* Bytes that rate_gbits carries in sec, with 10 % to spare. */
static double carries(double rate_gbits, double sec)
{
	return sec * rate_gbits / 8 * 1e9 * 1.1;
}

bool judge_workers_refused(uint64_t before, uint32_t asked, uint32_t max, uint32_t per_source,
			   char *why, size_t len)
{
	if (per_source && asked > per_source) {
		snprintf(why, len,
			 "%u workers, a source may have at most %u (--max-workers-per-source)",
			 asked, per_source);
		return true;
	}
	if (before + asked > max) {
		snprintf(why, len, "%u workers%s, the sink takes at most %u", asked,
			 before ? " beyond the other sources'" : "", max);
		return true;
	}
	return false;
}

bool judge_qps_refused(const struct ctrl_wqp *q, uint32_t n, uint32_t workers, int nports,
		       char *why, size_t len)
{
	uint32_t i;

	if (n != workers) {
		snprintf(why, len, "QPS for %u workers, not %u", n, workers);
		return true;
	}
	for (i = 0; i < n; i++)
		if (q[i].sink_port >= nports) {
			snprintf(why, len, "QPS: worker %u on sink port %u of %d", i,
				 q[i].sink_port, nports);
			return true;
		}
	return false;
}

bool judge_table_refused(const struct ctrl_chunk *c, uint32_t n, uint32_t workers, uint32_t slots,
			 char *why, size_t len)
{
	uint64_t cells = (uint64_t)workers * slots;
	unsigned char *seen;
	uint32_t i;
	bool bad = false;

	if (n > cells) {
		snprintf(why, len, "a table of %u entries for %u workers x %u slots", n, workers,
			 slots);
		return true;
	}
	seen = calloc(cells / 8 + 1, 1);
	if (!seen) {
		snprintf(why, len, "out of memory");
		return true;
	}
	for (i = 0; i < n && !bad; i++) {
		uint64_t cell = (uint64_t)c[i].worker * slots + c[i].slot;

		if (c[i].worker >= workers || c[i].slot >= slots)
			continue; /* checked (and failed) one by one */
		bad = seen[cell / 8] & (1u << (cell % 8));
		seen[cell / 8] |= (unsigned char)(1u << (cell % 8));
		if (bad)
			snprintf(why, len, "worker %u slot %u named twice", c[i].worker, c[i].slot);
	}
	free(seen);
	return bad;
}

bool judge_add(uint64_t a, uint64_t b, uint64_t *sum)
{
	return !__builtin_add_overflow(a, b, sum);
}

/* The window's slack: 10 % of it, at least 1 s. */
static double judge_slack_s(double duration_s)
{
	return duration_s * 0.1 > 1.0 ? duration_s * 0.1 : 1.0;
}

bool judge_result_early(double since_s, double warmup_s, double duration_s, char *why, size_t len)
{
	double least = warmup_s + duration_s;

	if (since_s >= least - (0.01 * least + 0.005))
		return false;
	snprintf(why, len,
		 "its result came %.2f s after START, before its %g s warm-up and %g s window "
		 "could pass",
		 since_s, warmup_s, duration_s);
	return true;
}

/* Its drives add up to its total and its workers (disk), or there are none (memory). */
static bool drives_refused(const struct ctrl_result *r, const struct judge_frame *f, char *why,
			   size_t len)
{
	uint64_t sum = 0, workers = 0;
	uint32_t i;
	bool ok = true;

	if (f->source == CTRL_SOURCE_MEM) {
		if (r->ndrives)
			snprintf(why, len, "drives in the result of a memory source");
		return r->ndrives != 0;
	}
	for (i = 0; i < r->ndrives; i++) {
		ok = ok && judge_add(sum, r->drives[i].bytes, &sum);
		workers += r->drives[i].workers;
	}
	if (ok && sum == r->bytes && workers == f->workers)
		return false;
	snprintf(why, len, "its drives add up to %s%llu bytes and %llu workers, not %llu and %u",
		 ok ? "" : "more than ", (unsigned long long)sum, (unsigned long long)workers,
		 (unsigned long long)r->bytes, f->workers);
	return true;
}

/* Its rails add up to its total and match the QPs the sink connected, each within its port. */
static bool rails_refused(const struct ctrl_result *r, const struct judge_frame *f, double sec,
			  char *why, size_t len)
{
	uint64_t per_port[CTRL_MAX_PORTS] = {0}, qps = 0, bytes = 0;
	uint32_t i;
	int p;

	for (i = 0; i < r->nrails; i++) {
		const struct ctrl_rail *x = &r->rails[i];
		double own;

		if (x->sink_port >= f->nports || x->sink_port >= CTRL_MAX_PORTS)
			goto disagree;
		own = f->port_gbits[x->sink_port];
		if (own > 0 && (double)x->bytes > carries(own, sec)) {
			snprintf(why, len,
				 "rail %u: %llu bytes in %.2f s, more than its sink port's "
				 "%.0f Gb/s carry",
				 i, (unsigned long long)x->bytes, sec, own);
			return true;
		}
		per_port[x->sink_port] += x->qps;
		qps += x->qps;
		if (!judge_add(bytes, x->bytes, &bytes))
			goto disagree;
	}
	if (qps != f->workers || bytes != r->bytes)
		goto disagree;
	for (i = 0; i < f->workers; i++)
		if (f->wport && f->wport[i] >= 0 && f->wport[i] < CTRL_MAX_PORTS)
			per_port[f->wport[i]]--;
	for (p = 0; p < f->nports && p < CTRL_MAX_PORTS; p++)
		if (per_port[p])
			goto disagree;
	return false;
disagree:
	snprintf(why, len,
		 "its rails do not add up to its total, or name ports and QPs "
		 "the sink did not connect");
	return true;
}

bool judge_result_refused(const struct ctrl_result *r, const struct judge_frame *f, char *why,
			  size_t len)
{
	double sec = r->window_ns / 1e9, dur = f->duration_s, slack = judge_slack_s(dur), rate = 0;
	int p;

	/* The ports' line rates bound the bytes, where every port has a real one. */
	for (p = 0; p < f->nports; p++) {
		if (f->port_gbits[p] <= 0) {
			rate = 0;
			break;
		}
		rate += f->port_gbits[p];
	}
	/*
	 * Short by more than the slack: the window was not what it says. Long: a
	 * process held up (stopped, starved) measures over a longer window, which
	 * is still a true rate (the overlap with the sink's window tells whether
	 * it may be added), up to --timeout past -D, the stall the run tolerates.
	 */
	if (sec < dur - slack || sec > dur + fmax(f->timeout_s, slack)) {
		snprintf(why, len, "a window of %.2f s, not %g s", sec, dur);
		return true;
	}
	if (drives_refused(r, f, why, len) || rails_refused(r, f, sec, why, len))
		return true;
	if (rate > 0 && (double)r->bytes > carries(rate, sec)) {
		snprintf(why, len, "%llu bytes in %.2f s: more than the ports' %.0f Gb/s carry",
			 (unsigned long long)r->bytes, sec, rate);
		return true;
	}
	return false;
}

uint32_t judge_line_mbps(uint32_t claim, double own_gbits)
{
	double own = own_gbits * 1000;

	if (own <= 0)
		return 0;
	return (double)claim < own ? claim : (uint32_t)own;
}

/*
 * An RDMA stream of bytes over window_ns: no longer than the window and its
 * slack, no more than rate_gbits (0: unbounded) carries in that time.
 */
static bool judge_stream_refused(uint64_t bytes, uint64_t window_ns, double duration_s,
				 double rate_gbits, char *why, size_t len)
{
	double sec = window_ns / 1e9;

	if (sec > duration_s + judge_slack_s(duration_s)) {
		snprintf(why, len, "a window of %.2f s, longer than %g s", sec, duration_s);
		return true;
	}
	if (rate_gbits > 0 && (double)bytes > carries(rate_gbits, sec)) {
		snprintf(why, len, "%llu bytes in %.2f s: more than the ports' %.0f Gb/s carry",
			 (unsigned long long)bytes, sec, rate_gbits);
		return true;
	}
	return false;
}

enum rdma_from judge_rdma_from(const struct ctrl_result *res, bool rejected,
			       const struct ctrl_progress *prog, double duration_s,
			       double rate_gbits, uint64_t *bytes, double *sec)
{
	char why[160];

	*bytes = 0;
	*sec = 0;
	/* A RESULT counts only when ok and not rejected; else the last heartbeat, checked. */
	if (res && !rejected && res->ok) {
		*bytes = res->bytes;
		*sec = res->window_ns / 1e9;
		return RDMA_FROM_RESULT;
	}
	if (res && !res->ok) /* the source says it failed: its heartbeats are no figure either */
		return RDMA_FROM_NONE;
	if (prog && prog->window_ns &&
	    !judge_stream_refused(prog->window_bytes, prog->window_ns, duration_s, rate_gbits, why,
				  sizeof(why))) {
		*bytes = prog->window_bytes;
		*sec = prog->window_ns / 1e9;
		return RDMA_FROM_HEARTBEAT;
	}
	return RDMA_FROM_NONE;
}

bool judge_sum_refused(const double *bps, int n, double rate_gbits, char *why, size_t len)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += bps[i];
	if (rate_gbits <= 0 || sum <= carries(rate_gbits, 1))
		return false;
	snprintf(why, len,
		 "the sources together claim %.1f Gb/s, more than the sink's ports' "
		 "%.0f Gb/s carry",
		 sum * 8 / 1e9, rate_gbits);
	return true;
}

bool judge_gid_allowed(const uint8_t gid[16], const struct netaddr_prefix *allow, int n)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	struct sockaddr_storage ss = {0};

	if (!n)
		return true;
	if (!memcmp(gid, v4mapped, sizeof(v4mapped))) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;

		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, gid + 12, 4);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, gid, 16);
	}
	return netaddr_allowed(allow, n, (struct sockaddr *)&ss);
}

/* ---- admission ------------------------------------------------------------------- */

enum judge_hello_verdict judge_hello(const struct judge_admission *a, struct slice_layout *lay,
				     char *why, size_t len)
{
	uint32_t all = a->before + a->theirs->workers;
	char diff[640], x[32], y[32], z[32];
	uint64_t need;

	if (ctrl_hello_mismatch(a->mine, a->theirs, diff, sizeof(diff))) {
		snprintf(why, len, "parameter mismatch with %s: %s", a->peer, diff);
		return JUDGE_HELLO_MISMATCH;
	}
	if (judge_workers_refused(a->before, a->theirs->workers, a->max, a->per_source, diff,
				  sizeof(diff))) {
		snprintf(why, len, "%s: %s", a->peer, diff);
		return JUDGE_HELLO_WORKERS;
	}
	if (slice_layout(a->dram, a->local_len, all, a->chunk, a->depth, lay, &need)) {
		snprintf(why, len,
			 "sink DRAM %s is too small for %u workers%s x %u slots of %s (and the "
			 "local readers): it needs %s (--dram)",
			 format_size(a->dram, x, sizeof(x)), all,
			 a->before ? " of all sources" : "", a->depth + 1,
			 format_size(a->chunk, y, sizeof(y)), format_size(need, z, sizeof(z)));
		return JUDGE_HELLO_DRAM;
	}
	/* It fits beside the others: does it keep to its share of the DRAM (--sources N)? */
	if (a->dram_share && a->theirs->workers > a->dram_share) {
		share_words(diff, sizeof(diff), a->theirs->workers, a->dram_share, a->dram,
			    a->sources);
		snprintf(why, len, "%s: %s", a->peer, diff);
		return JUDGE_HELLO_WORKERS;
	}
	return JUDGE_HELLO_ADMIT;
}

/* ---- the sink's streams ----------------------------------------------------------- */

void judge_sink(struct result *x)
{
	char claims[256];
	double bps[MAX_SOURCES];
	int i;

	/* Each source's figure is bounded alone; all of them share the same ports. */
	for (i = 0; i < x->nstreams && i < MAX_SOURCES; i++)
		bps[i] = x->streams[i].seconds > 0 ? streams_bps(&x->streams[i]) : 0;
	streams_judge_claims(x, judge_sum_refused(bps, i, x->ports_gbits, claims, sizeof(claims))
					? claims
					: NULL);
}

/* What the counts cover, for a refusal's words. */
static const char *rcv_span(const struct judge_rcv *r)
{
	return r->window ? "from its window's start" : "from START";
}

/* Only one count, bytes or packets: a bound on the claim, never a check of its payload. */
static bool received_one_count(uint64_t claimed, const struct judge_rcv *r, enum rdma_check *check,
			       enum rdma_unchecked *un, char *why, size_t len)
{
	unsigned long long c = claimed;

	*check = r->bytes_known || r->pkts_known ? RDMA_CHECK_RECEIVED : RDMA_CHECK_UNCHECKED;
	*un = r->bytes_known  ? RDMA_UNCHECKED_NO_PACKETS
	      : r->pkts_known ? RDMA_UNCHECKED_PACKETS_ONLY
			      : RDMA_UNCHECKED_NO_COUNT;
	if (r->bytes_known && claimed > r->bytes) {
		snprintf(why, len,
			 "it claims %llu bytes, more than the %llu its ports received (headers "
			 "included) %s to its result",
			 c, (unsigned long long)r->bytes, rcv_span(r));
		return true;
	}
	if (!r->bytes_known && r->pkts_known && r->pkts_bound && claimed > r->pkts_bound) {
		snprintf(why, len,
			 "it claims %llu bytes, more than the %llu the packets its ports received "
			 "%s to its result can carry (packets x MTU)",
			 c, (unsigned long long)r->pkts_bound, rcv_span(r));
		return true;
	}
	*check = RDMA_CHECK_UNCHECKED; /* within it, but nothing bounds its payload */
	return false;
}

/* judge_received_refused() as if every count were the window's. */
static bool received_refused(uint64_t claimed, const struct judge_rcv *r, enum rdma_check *check,
			     enum rdma_unchecked *un, char *why, size_t len)
{
	uint64_t hdr_min, payload, hidden;

	if (!r->bytes_known || !r->pkts_known)
		return received_one_count(claimed, r, check, un, why, len);
	/* Payload: its bytes less the fewest header bytes each packet carries. */
	hdr_min = r->pkts > UINT64_MAX / JUDGE_HDR_MAX ? UINT64_MAX : r->pkts * JUDGE_HDR_MIN;
	payload = r->bytes > hdr_min ? r->bytes - hdr_min : 0;
	*check = RDMA_CHECK_RECEIVED; /* held against what its ports received */
	if (claimed > payload) {
		snprintf(why, len,
			 "it claims %llu bytes, more than the %llu bytes of payload the %llu "
			 "packets its ports received %s to its result can carry (%llu "
			 "bytes, at least %u of headers each)",
			 (unsigned long long)claimed, (unsigned long long)payload,
			 (unsigned long long)r->pkts, rcv_span(r), (unsigned long long)r->bytes,
			 JUDGE_HDR_MIN);
		return true;
	}
	/* What headers of more than the fewest bytes could hide: none counted as payload. */
	hidden = r->pkts > UINT64_MAX / JUDGE_HDR_MAX ? UINT64_MAX
						      : r->pkts * (JUDGE_HDR_MAX - JUDGE_HDR_MIN);
	if (hidden > payload / JUDGE_HDR_SLACK) {
		*check = RDMA_CHECK_UNCHECKED;
		*un = RDMA_UNCHECKED_SMALL_PACKETS;
	}
	return false;
}

bool judge_received_refused(uint64_t claimed, const struct judge_rcv *r, enum rdma_check *check,
			    enum rdma_unchecked *un, char *why, size_t len)
{
	if (received_refused(claimed, r, check, un, why, len))
		return true;
	/* Counted from START: the warm-up's payload may be what bounds the window's claim. */
	if (*check == RDMA_CHECK_RECEIVED && !r->window) {
		*check = RDMA_CHECK_UNCHECKED;
		*un = RDMA_UNCHECKED_WARMUP;
	}
	return false;
}
