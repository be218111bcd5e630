// SPDX-License-Identifier: MIT
/*
 * test_judge: the sink's judging (sink/judge.c): the admission of a HELLO,
 * and what a peer admitted past the door may claim and what the sink must
 * refuse, each check named after the claim it refuses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "judge.h"

static char why[256];

/* a QPS of zero workers (or any other count) after a HELLO of two. */
static void empty_qps(void)
{
	struct ctrl_wqp q[2] = {{.sink_port = 0}, {.sink_port = 1}};

	printf("empty QPS\n");
	CHECK(judge_qps_refused(NULL, 0, 2, 2, why, sizeof(why)));
	CHECK(strstr(why, "QPS for 0 workers, not 2") != NULL);
	CHECK(judge_qps_refused(q, 1, 2, 2, why, sizeof(why)));
	CHECK(!judge_qps_refused(q, 2, 2, 2, why, sizeof(why)));
	q[1].sink_port = 2; /* not a port of the sink's two */
	CHECK(judge_qps_refused(q, 2, 2, 2, why, sizeof(why)));
}

/* after 8 workers, 2^32 - 8 + 4 would wrap a 32-bit sum to 4. */
static void worker_wrap(void)
{
	struct ctrl_hello h = {.chunk = 1 << 20, .depth = 4, .workers = 1, .duration_ms = 1000};
	struct ctrl_buf b;

	printf("worker-count wrap\n");
	CHECK(judge_workers_refused(8, (uint32_t)(4294967296ULL - 8 + 4), 1024, 0, why,
				    sizeof(why)));
	CHECK(!judge_workers_refused(8, 4, 1024, 0, why, sizeof(why)));
	CHECK(judge_workers_refused(1020, 5, 1024, 0, why, sizeof(why)));
	/* The decoder refuses more workers than a source may have. */
	h.workers = (uint32_t)(4294967296ULL - 8 + 4);
	CHECK(ctrl_encode_hello(&b, &h) == 0);
	CHECK(ctrl_decode_hello(b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN, &h) == -EBADMSG);
	free(b.data);
	h.workers = CTRL_MAX_WORKERS;
	CHECK(ctrl_encode_hello(&b, &h) == 0);
	CHECK(ctrl_decode_hello(b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN, &h) == 0);
	free(b.data);
}

/* a VERIFY may not list more than workers x slots, nor one slot twice. */
static void verify_flood(void)
{
	uint32_t n = 1u << 20, i;
	struct ctrl_chunk *c = calloc(n, sizeof(*c));

	printf("VERIFY flood\n");
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(judge_table_refused(c, n, 4, 16, why, sizeof(why))); /* a million for 64 */
	CHECK(strstr(why, "1048576 entries for 4 workers x 16 slots") != NULL);
	for (i = 0; i < 64; i++)
		c[i] = (struct ctrl_chunk){.worker = i / 16, .slot = i % 16};
	CHECK(!judge_table_refused(c, 64, 4, 16, why, sizeof(why)));
	c[63] = c[5]; /* the same slot twice: hashed twice */
	CHECK(judge_table_refused(c, 64, 4, 16, why, sizeof(why)));
	CHECK(strstr(why, "worker 0 slot 5 named twice") != NULL);
	free(c);
}

/* A RESULT of one drive, two workers on two 100 Gb/s ports, 10 s. */
static struct ctrl_result result_of(struct ctrl_drive *d, struct ctrl_rail *r, uint64_t bytes)
{
	*d = (struct ctrl_drive){.workers = 2, .bytes = bytes};
	r[0] = (struct ctrl_rail){
		.sink_port = 0, .qps = 1, .bytes = bytes / 2, .line_mbps = 100000};
	r[1] = (struct ctrl_rail){
		.sink_port = 1, .qps = 1, .bytes = bytes - bytes / 2, .line_mbps = 100000};
	return (struct ctrl_result){.ok = 1,
				    .bytes = bytes,
				    .window_ns = 10000000000ULL,
				    .ndrives = 1,
				    .drives = d,
				    .nrails = 2,
				    .rails = r};
}

/* Two workers from disk, a 10 s window, each worker on its own 100 Gb/s sink port. */
static struct judge_frame two_ports(void)
{
	static const double gbits[2] = {100, 100};
	static const int wport[2] = {0, 1};

	return (struct judge_frame){.workers = 2,
				    .source = CTRL_SOURCE_DISK,
				    .duration_s = 10,
				    .nports = 2,
				    .port_gbits = gbits,
				    .wport = wport};
}

/* sums that wrap, and rails beyond the sink's own ports. */
static void rail_sums(void)
{
	struct judge_frame f = two_ports();
	struct ctrl_drive d;
	struct ctrl_rail r[2];
	struct ctrl_result res = result_of(&d, r, 20000000000ULL); /* 16 Gb/s */

	printf("wrapped rail sum\n");
	CHECK(!judge_result_refused(&res, &f, why, sizeof(why)));
	/* Rail 0 claims about 2^64 bytes, rail 1 the rest: the 64-bit sum still matches. */
	r[0].bytes = UINT64_MAX - 9;
	r[1].bytes = res.bytes + 10;
	CHECK(judge_result_refused(&res, &f, why, sizeof(why)));
	/* The same with the drives. */
	res = result_of(&d, r, 20000000000ULL);
	{
		struct ctrl_drive two[2] = {{.workers = 1, .bytes = UINT64_MAX - 9},
					    {.workers = 1, .bytes = res.bytes + 10}};

		res.drives = two;
		res.ndrives = 2;
		CHECK(judge_result_refused(&res, &f, why, sizeof(why)));
		CHECK(strstr(why, "more than") != NULL);
	}
	/* One rail beyond its sink port's line rate, the total within both ports'. */
	res = result_of(&d, r, 200000000000ULL); /* 160 Gb/s in all */
	r[0].bytes = 150000000000ULL;		 /* 120 Gb/s on a 100 Gb/s port */
	r[1].bytes = 50000000000ULL;
	CHECK(judge_result_refused(&res, &f, why, sizeof(why)));
	CHECK(strstr(why, "rail 0") != NULL);
	/* Its line rate claim is bounded by the sink's own port. */
	CHECK_U64(judge_line_mbps(400000, 100), 100000);
	CHECK_U64(judge_line_mbps(25000, 100), 25000);
	CHECK_U64(judge_line_mbps(400000, 0), 0); /* a software port: no line rate */
	CHECK(judge_add(1, 2, &res.bytes) && res.bytes == 3);
	/* Fan-in: three sources each claiming a whole 100 Gb/s port's rate, on two ports. */
	{
		double bps[3] = {12.5e9, 12.5e9, 12.5e9};

		CHECK(judge_sum_refused(bps, 3, 200, why, sizeof(why)));
		CHECK(strstr(why, "300.0 Gb/s") != NULL);
		CHECK(!judge_sum_refused(bps, 2, 200, why, sizeof(why)));
		CHECK(!judge_sum_refused(bps, 3, 0, why, sizeof(why))); /* software ports */
	}
	CHECK(!judge_add(UINT64_MAX, 1, &res.bytes));
}

/* a RESULT with ok = 0, and heartbeats, give a figure only when plausible. */
static void ok0_result(void)
{
	struct ctrl_drive d;
	struct ctrl_rail r[2];
	struct ctrl_result res = result_of(&d, r, 20000000000ULL);
	struct ctrl_progress hb = {.elapsed_ns = 11000000000ULL,
				   .bytes = 21000000000ULL,
				   .window_ns = 10000000000ULL,
				   .window_bytes = 20000000000ULL};
	uint64_t bytes;
	double sec;

	printf("ok=0 RESULT\n");
	CHECK(judge_rdma_from(&res, false, &hb, 10, 200, &bytes, &sec) == RDMA_FROM_RESULT);
	CHECK_U64(bytes, 20000000000ULL);
	/*
	 * ok=0: the source says it failed, so neither its RESULT's bytes nor its
	 * heartbeat's count (judge.h). Rejected: the checked heartbeat does.
	 */
	res.ok = 0;
	res.bytes = 30000000000ULL;
	CHECK(judge_rdma_from(&res, false, &hb, 10, 200, &bytes, &sec) == RDMA_FROM_NONE);
	CHECK_U64(bytes, 0);
	CHECK(judge_rdma_from(&res, false, NULL, 10, 200, &bytes, &sec) == RDMA_FROM_NONE);
	CHECK_U64(bytes, 0);
	res.ok = 1;
	CHECK(judge_rdma_from(&res, true, &hb, 10, 200, &bytes, &sec) == RDMA_FROM_HEARTBEAT);
	CHECK_U64(bytes, 20000000000ULL);
	/* No RESULT: a plausible heartbeat is the figure, an implausible one none. */
	CHECK(judge_rdma_from(NULL, false, &hb, 10, 200, &bytes, &sec) == RDMA_FROM_HEARTBEAT);
	CHECK_U64(bytes, 20000000000ULL);
	hb.window_bytes = hb.bytes = 1ULL << 50; /* a petabyte in 10 s at 200 Gb/s */
	CHECK(judge_rdma_from(NULL, false, &hb, 10, 200, &bytes, &sec) == RDMA_FROM_NONE);
	hb.window_bytes = hb.bytes = 1000;
	hb.window_ns = hb.elapsed_ns = 3600000000000ULL; /* an hour's window in a 10 s run */
	CHECK(judge_rdma_from(NULL, false, &hb, 10, 200, &bytes, &sec) == RDMA_FROM_NONE);
}

/* a per-source share of the workers. */
static void share(void)
{
	printf("per-source share\n");
	CHECK(judge_workers_refused(0, 600, 1024, 512, why, sizeof(why)));
	CHECK(strstr(why, "--max-workers-per-source") != NULL);
	CHECK(!judge_workers_refused(0, 512, 1024, 512, why, sizeof(why)));
	CHECK(!judge_workers_refused(0, 1024, 1024, 0, why, sizeof(why)));
}

/* in verbs mode the peer's GID is held against --allow. */
static void gid_allow(void)
{
	struct netaddr_prefix p[NETADDR_MAX_PREFIXES];
	uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 2};
	char bad[64];
	int n = netaddr_parse_list("10.77.0.0/24", p, NETADDR_MAX_PREFIXES, bad, sizeof(bad));

	printf("GID against --allow\n");
	CHECK(n == 1);
	CHECK(judge_gid_allowed(gid, p, n));
	gid[13] = 78; /* 10.78.0.2 */
	CHECK(!judge_gid_allowed(gid, p, n));
	CHECK(judge_gid_allowed(gid, p, 0)); /* no --allow: all */
}

/*
 * A RESULT's timing against START, not against the sink's own window (which
 * opens when the sink gets to it: a RESULT at the last tick of a sink window
 * that opened a little late was refused before).
 */
static void result_timing(void)
{
	printf("RESULT timing\n");
	/* 0.2 s warm-up and a 1 s window: nothing can come before 1.2 s, less 1 % + 5 ms. */
	CHECK(judge_result_early(1.00, 0.2, 1, why, sizeof(why)));
	CHECK(strstr(why, "came 1.00 s after START, before its 0.2 s warm-up and 1 s window") !=
	      NULL);
	CHECK(judge_result_early(1.15, 0.2, 1, why, sizeof(why)));
	CHECK(!judge_result_early(1.19, 0.2, 1, why, sizeof(why)));
	CHECK(!judge_result_early(1.2, 0.2, 1, why, sizeof(why)));
	CHECK(!judge_result_early(30, 0.2, 1, why, sizeof(why)));
	CHECK(judge_result_early(0, 0, 10, why, sizeof(why)));
	CHECK(judge_result_early(9.8, 0, 10, why, sizeof(why)));
	CHECK(!judge_result_early(9.9, 0, 10, why, sizeof(why)));
}

/*
 * The window's length against -D (10 s here, slack 1 s): short by more than
 * the slack is refused; long, up to --timeout past -D (a held-up source's true
 * rate over its longer window), taken; beyond it refused.
 */
static void window_length(void)
{
	struct judge_frame f = two_ports();
	struct ctrl_drive d;
	struct ctrl_rail r[2];
	struct ctrl_result res = result_of(&d, r, 20000000000ULL);

	printf("window length\n");
	res.window_ns = 8900000000ULL; /* 1.1 s short */
	CHECK(judge_result_refused(&res, &f, why, sizeof(why)));
	CHECK(strstr(why, "a window of 8.90 s, not 10 s") != NULL);
	res.window_ns = 9100000000ULL;
	CHECK(!judge_result_refused(&res, &f, why, sizeof(why)));
	res.window_ns = 11500000000ULL; /* 1.5 s long: beyond the slack, no --timeout given */
	CHECK(judge_result_refused(&res, &f, why, sizeof(why)));
	f.timeout_s = 5;
	CHECK(!judge_result_refused(&res, &f, why, sizeof(why)));
	res.window_ns = 14900000000ULL;
	CHECK(!judge_result_refused(&res, &f, why, sizeof(why)));
	res.window_ns = 15100000000ULL; /* more than --timeout past -D */
	CHECK(judge_result_refused(&res, &f, why, sizeof(why)));
	CHECK(strstr(why, "a window of 15.10 s, not 10 s") != NULL);
	f.timeout_s = 0.5; /* a --timeout under the slack: the slack still holds */
	res.window_ns = 10900000000ULL;
	CHECK(!judge_result_refused(&res, &f, why, sizeof(why)));
}

/* A HELLO: admitted with the DRAM laid out, else refused with the one reason it is told. */
static void hello_admission(void)
{
	struct ctrl_hello mine = {.chunk = 1 << 20, .depth = 4, .workers = 2, .duration_ms = 10000};
	struct ctrl_hello theirs = mine;
	struct judge_admission a = {.mine = &mine,
				    .theirs = &theirs,
				    .peer = "10.0.0.2",
				    .max = 64,
				    .dram = 64 << 20,
				    .chunk = 1 << 20,
				    .depth = 4};
	struct slice_layout lay = {0};

	printf("HELLO admission\n");
	CHECK_U64(judge_hello(&a, &lay, why, sizeof(why)), JUDGE_HELLO_ADMIT);
	CHECK_U64(lay.workers, 2);
	CHECK(lay.slots >= 5);
	theirs.chunk = 2 << 20;
	CHECK_U64(judge_hello(&a, &lay, why, sizeof(why)), JUDGE_HELLO_MISMATCH);
	CHECK(!strncmp(why, "parameter mismatch with 10.0.0.2: chunk", 39));
	theirs.chunk = mine.chunk;
	a.before = 2;
	theirs.workers = 63;
	CHECK_U64(judge_hello(&a, &lay, why, sizeof(why)), JUDGE_HELLO_WORKERS);
	CHECK(!strncmp(why, "10.0.0.2: ", 10));
	theirs.workers = 2;
	a.dram = 4 << 20;
	CHECK_U64(judge_hello(&a, &lay, why, sizeof(why)), JUDGE_HELLO_DRAM);
	CHECK(strstr(why, "too small for 4 workers of all sources x 5 slots of 1MiB") != NULL);
	CHECK(strstr(why, "(--dram)") != NULL);
	/* Within its worker share and the DRAM's room, but over its share of the DRAM. */
	a.dram = 64 << 20;
	a.before = 0;
	a.dram_share = 1;
	a.sources = 2;
	CHECK_U64(judge_hello(&a, &lay, why, sizeof(why)), JUDGE_HELLO_WORKERS);
	CHECK_STR(why, "10.0.0.2: 2 workers, a source may have at most 1 (its share of --dram "
		       "64MiB among --sources 2)");
	a.dram_share = 2;
	CHECK_U64(judge_hello(&a, &lay, why, sizeof(why)), JUDGE_HELLO_ADMIT);
}

/*
 * A claim against the payload its ports' packets can carry: empty packets
 * whose headers add up to the claim (64 bytes each) are refused; full
 * ones (4096 bytes) checked; 512-byte ones within the bound but unchecked;
 * packets alone or bytes alone bound no payload; full ones counted from
 * START (the warm-up in) refuse a claim above them but never check one.
 */
static void payload_bound(void)
{
	const uint64_t claim = 64ull << 20;
	struct judge_rcv r = {.bytes_known = true, .pkts_known = true, .window = true};
	enum rdma_unchecked un = RDMA_UNCHECKED_NO_COUNT;
	enum rdma_check ck = RDMA_CHECK_NONE;

	printf("payload bound\n");
	r.pkts = claim / 64; /* empty: 64 bytes of headers each, the claim in headers */
	r.bytes = claim;
	r.pkts_bound = r.pkts * 4096;
	CHECK(judge_received_refused(claim, &r, &ck, &un, why, sizeof(why)));
	CHECK(strstr(why, "bytes of payload the 1048576 packets its ports received") != NULL);
	r.pkts = claim / 4096; /* full: 4096 of payload and 64 of headers each */
	r.bytes = claim + r.pkts * 64;
	CHECK(!judge_received_refused(claim, &r, &ck, &un, why, sizeof(why)));
	CHECK_U64(ck, RDMA_CHECK_RECEIVED);
	r.window = false; /* the same counts from START: the warm-up's could be them */
	CHECK(!judge_received_refused(claim, &r, &ck, &un, why, sizeof(why)));
	CHECK_U64(ck * 10 + un, RDMA_CHECK_UNCHECKED * 10 + RDMA_UNCHECKED_WARMUP);
	CHECK(judge_received_refused(claim + r.pkts * 64, &r, &ck, &un, why, sizeof(why)));
	CHECK(strstr(why, "packets its ports received from START to its result") != NULL);
	r.window = true;
	r.pkts = claim / 512; /* 512 bytes each: the headers could hide more than 1/8 */
	r.bytes = claim + r.pkts * 64;
	CHECK(!judge_received_refused(claim, &r, &ck, &un, why, sizeof(why)));
	CHECK_U64(ck, RDMA_CHECK_UNCHECKED);
	CHECK_U64(un, RDMA_UNCHECKED_SMALL_PACKETS);
	r.pkts_known = false; /* bytes alone */
	CHECK(!judge_received_refused(claim, &r, &ck, &un, why, sizeof(why)));
	CHECK_U64(ck * 10 + un, RDMA_CHECK_UNCHECKED * 10 + RDMA_UNCHECKED_NO_PACKETS);
	r = (struct judge_rcv){.pkts_known = true, .pkts = claim / 64, .pkts_bound = claim * 64};
	CHECK(!judge_received_refused(claim, &r, &ck, &un, why, sizeof(why))); /* packets alone */
	CHECK_U64(ck * 10 + un, RDMA_CHECK_UNCHECKED * 10 + RDMA_UNCHECKED_PACKETS_ONLY);
	r.pkts_bound = claim / 2; /* fewer packets than the claim needs at their MTU */
	CHECK(judge_received_refused(claim, &r, &ck, &un, why, sizeof(why)));
	r = (struct judge_rcv){0};
	CHECK(!judge_received_refused(claim, &r, &ck, &un, why, sizeof(why)));
	CHECK_U64(ck * 10 + un, RDMA_CHECK_UNCHECKED * 10 + RDMA_UNCHECKED_NO_COUNT);
}

int main(void)
{
	payload_bound();
	hello_admission();
	empty_qps();
	worker_wrap();
	verify_flood();
	ok0_result();
	rail_sums();
	share();
	gid_allow();
	result_timing();
	window_length();
	return check_done("test_judge");
}
