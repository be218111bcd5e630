// SPDX-License-Identifier: MIT
/*
 * test_counters DIR: an RDMA port's sysfs counters and their deltas
 * (fabric/counters.c) on the trees tests/fixtures/sysfs/mkcounters.py wrote
 * into DIR (tests/fabric/counters.sh): laid out as mlx5 and as Soft-RoCE keep
 * them, read before and after a window; a counter that wraps, one that stops
 * at its top, one that cannot be read, one that is gone, more than a port's
 * bound. And the arithmetic of one counter's change on its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "counters.h"

static struct ctr_set before, after;
static struct ctr_deltas ds;

/* The deltas of dev port 1 between DIR/tree/before and DIR/tree/after. */
static void deltas_of(const char *dir, const char *tree, const char *dev)
{
	char b[4096], a[4096];

	snprintf(b, sizeof(b), "%s/%s/before", dir, tree);
	snprintf(a, sizeof(a), "%s/%s/after", dir, tree);
	CHECK(ctr_read(b, dev, 1, &before) == 0);
	CHECK(ctr_read(a, dev, 1, &after) == 0);
	ctr_deltas(&before, &after, &ds);
}

/* The delta of name (kind): its value, or -1 when not kept, -2 when there is none. */
static long long delta(const char *name, enum ctr_kind kind)
{
	const struct ctr_delta *d = ctr_find(&ds, name, kind);

	return !d ? -2 : d->kept ? (long long)d->d : -1;
}

static void mlx5(const char *dir)
{
	const struct ctr_delta *d;
	uint64_t v, bytes = 0;

	printf("mlx5: extended port counters, driver counters, a wrap, a top\n");
	deltas_of(dir, "mlx5", "mlx5_0");
	CHECK(!before.truncated && !after.truncated);
	/* port_rcv_data counts 4-byte words: 2.5e9 words = 10 GB received. */
	CHECK(delta("port_rcv_data", CTR_PORT) == 2500000000LL);
	CHECK(ctr_rcv_bytes(&ds, &bytes));
	CHECK_U64(bytes, 10000000000ULL);
	CHECK(delta("port_rcv_packets", CTR_PORT) == 2441407);
	CHECK(delta("port_xmit_data", CTR_PORT) == 100);
	CHECK(delta("port_xmit_wait", CTR_PORT) == 0);
	/* 4294967290 -> 6: a 32-bit driver counter went round once, by 12. */
	d = ctr_find(&ds, "out_of_sequence", CTR_HW);
	CHECK(d && d->kept && d->wrapped && d->d == 12);
	/* The port's out_of_sequence wins over the device's of the same name. */
	CHECK(ctr_get(&after, "out_of_sequence", CTR_HW, &v) && v == 6);
	CHECK(delta("req_cqe_error", CTR_HW) == 4); /* the device's own */
	CHECK(delta("roce_adp_retrans", CTR_HW) == 48112);
	CHECK(delta("np_cnp_sent", CTR_HW) == 1204);
	/* symbol_error stopped at its 16-bit top: 535 is a floor. */
	d = ctr_find(&ds, "symbol_error", CTR_PORT);
	CHECK(d && d->kept && d->saturated && d->d == 535);
	/* lifespan is a setting; 4096 digits are no number; both are no counter. */
	CHECK(delta("lifespan", CTR_HW) == -2);
	CHECK(!ctr_get(&after, "port_multicast_rcv_packets", CTR_PORT, &v));
	CHECK(!ctr_get(&after, "odd\x1b[2Jname", CTR_HW, &v));
	/* Read before the window, gone after it: not kept, never 0. */
	CHECK(delta("rx_atomic_requests", CTR_HW) == -1);
	/* The port's counters come first, by name. */
	CHECK(ds.n > 2 && ds.c[0].kind == CTR_PORT && ds.c[ds.n - 1].kind == CTR_HW);
}

static void rxe(const char *dir)
{
	uint64_t bytes = 1;

	printf("rxe: no PMA (unreadable port counters), Soft-RoCE's driver counters\n");
	deltas_of(dir, "rxe", "rxe0");
	/* The port counters' files are there but answer nothing: not kept, not 0. */
	CHECK(delta("port_rcv_data", CTR_PORT) == -1);
	CHECK(delta("port_xmit_data", CTR_PORT) == -1);
	CHECK(delta("symbol_error", CTR_PORT) == -1);
	CHECK(!ctr_rcv_bytes(&ds, &bytes));
	CHECK_U64(bytes, 1);
	CHECK(delta("rcvd_pkts", CTR_HW) == 612400);
	/* Its packets bound what they carried: 612400 of at most 1024 bytes each. */
	CHECK(ctr_rcv_pkts_bound(&ds, 1024, &bytes));
	CHECK_U64(bytes, 612400ULL * 1024);
	CHECK(!ctr_rcv_pkts_bound(&ds, 0, &bytes));
	CHECK_U64(bytes, 612400ULL * 1024);
	CHECK(delta("out_of_seq_request", CTR_HW) == 3);
	CHECK(delta("completer_retry_err", CTR_HW) == 1);
	/* mlx5's congestion counters are none of Soft-RoCE's: not kept. */
	CHECK(delta("np_cnp_sent", CTR_HW) == -1);
	CHECK(delta("lifespan", CTR_HW) == -2);
}

static void bounds(const char *dir)
{
	char root[4096];
	struct ctr_set s;

	printf("bounds: a port's counters at most CTR_MAX; no device, no counter\n");
	snprintf(root, sizeof(root), "%s/many", dir);
	CHECK(ctr_read(root, "mlx5_1", 1, &s) == 0);
	CHECK(s.n == CTR_MAX && s.truncated);
	CHECK(ctr_read(root, "mlx5_9", 1, &s) == -ENOENT);
	CHECK(s.n == 0);
}

static void change(void)
{
	struct ctr_delta d;

	printf("change: wraps, resets, tops\n");
	ctr_change("x", CTR_HW, 0xfffffff0ULL, 0x10, &d);
	CHECK(d.kept && d.wrapped && d.d == 0x20);
	ctr_change("x", CTR_HW, UINT64_MAX - 1, 3, &d);
	CHECK(d.kept && d.wrapped && d.d == 5);
	/* Down from 100 to 5: round the whole 32 bits? No: a reset, not kept. */
	ctr_change("x", CTR_HW, 100, 5, &d);
	CHECK(!d.kept);
	ctr_change("x", CTR_HW, 1ULL << 40, 5, &d);
	CHECK(!d.kept);
	/* A PMA counter never wraps: lower is a reset. */
	ctr_change("port_rcv_data", CTR_PORT, 10, 5, &d);
	CHECK(!d.kept);
	ctr_change("link_downed", CTR_PORT, 0, 255, &d);
	CHECK(d.kept && d.saturated && d.d == 255);
	ctr_change("link_downed", CTR_PORT, 0, 254, &d);
	CHECK(d.kept && !d.saturated && d.d == 254);
	ctr_change("port_rcv_data", CTR_PORT, 0, 0xffffffffULL, &d);
	CHECK(d.kept && d.saturated);
	ctr_change("port_rcv_data", CTR_PORT, 0xffffffffULL, 0x1ffffffffULL, &d);
	CHECK(d.kept && !d.saturated && d.d == 0x100000000ULL);
	ctr_change("rcvd_pkts", CTR_HW, 7, 7, &d);
	CHECK(d.kept && d.d == 0 && !d.wrapped);
}

static void pkts_bound(void)
{
	struct ctr_deltas one = {.n = 1};
	uint64_t bytes = 1;

	printf("pkts_bound: packets x MTU, none when it wrapped, overflows or is missing\n");
	ctr_change("rcvd_pkts", CTR_HW, 10, 2010, &one.c[0]);
	CHECK(ctr_rcv_pkts_bound(&one, 4096, &bytes));
	CHECK_U64(bytes, 2000ULL * 4096);
	/* a 32-bit count that went round may have gone round twice: no bound */
	ctr_change("rcvd_pkts", CTR_HW, 0xfffffff0ULL, 0x10, &one.c[0]);
	CHECK(!ctr_rcv_pkts_bound(&one, 4096, &bytes));
	ctr_change("rcvd_pkts", CTR_HW, 0, UINT64_MAX / 1024, &one.c[0]);
	CHECK(!ctr_rcv_pkts_bound(&one, 4096, &bytes));
	ctr_change("rcvd_pkts", CTR_HW, 100, 5, &one.c[0]); /* a reset: not kept */
	CHECK(!ctr_rcv_pkts_bound(&one, 4096, &bytes));
	ctr_change("port_rcv_packets", CTR_PORT, 0, 50,
		   &one.c[0]); /* the PMA's: not the driver's */
	CHECK(!ctr_rcv_pkts_bound(&one, 4096, &bytes));
	CHECK_U64(bytes, 2000ULL * 4096);
}

static void rcv_pkts(void)
{
	struct ctr_deltas two = {.n = 2};
	uint64_t pkts = 1;

	printf("rcv_pkts: the PMA's packets, else the driver's, none when wrapped or missing\n");
	ctr_change("port_rcv_packets", CTR_PORT, 0, 50, &two.c[0]);
	ctr_change("rcvd_pkts", CTR_HW, 10, 2010, &two.c[1]);
	CHECK(ctr_rcv_pkts(&two, &pkts));
	CHECK_U64(pkts, 50);
	ctr_change("port_rcv_packets", CTR_PORT, 100, 5, &two.c[0]); /* a reset: the driver's */
	CHECK(ctr_rcv_pkts(&two, &pkts));
	CHECK_U64(pkts, 2000);
	ctr_change("rcvd_pkts", CTR_HW, 0xfffffff0ULL, 0x10, &two.c[1]);
	CHECK(!ctr_rcv_pkts(&two, &pkts));
	two.n = 0;
	CHECK(!ctr_rcv_pkts(&two, &pkts));
	CHECK_U64(pkts, 2000);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_counters DIR (written by mkcounters.py)\n");
		return 2;
	}
	mlx5(argv[1]);
	rxe(argv[1]);
	bounds(argv[1]);
	change();
	pkts_bound();
	rcv_pkts();
	return check_done("test_counters");
}
