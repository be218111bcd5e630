// SPDX-License-Identifier: MIT
/*
 * test_attrib: the gap explained hop by hop (print/attrib.c) on rails and
 * counter deltas built in memory: each rule of the table fires on a counter
 * that moved and stays silent on one that did not (or is not kept); a rail
 * 10% or more below its peers' median is named with what its port counted,
 * one 5% below is not; the text and the JSON say the same.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "check.h"

static void set(struct ctr_deltas *ds, const char *name, enum ctr_kind kind, bool kept, uint64_t d)
{
	struct ctr_delta *c = &ds->c[ds->n++];

	*c = (struct ctr_delta){.kind = (uint8_t)kind, .kept = kept, .d = d};
	snprintf(c->name, sizeof(c->name), "%s", name);
}

static void port(struct ctr_deltas *ds, const char *dev)
{
	*ds = (struct ctr_deltas){.port = 1, .seconds = 10};
	snprintf(ds->dev, sizeof(ds->dev), "%s", dev);
}

/* The rules one counter fires on a port of its own: their names joined by ','. */
static const char *fired(const char *name, enum ctr_kind kind, bool kept, uint64_t d)
{
	static char out[256];
	struct ctr_deltas ds;
	struct attrib_hop h[4];
	int n, i;

	port(&ds, "mlx5_0");
	set(&ds, "port_xmit_data", CTR_PORT, true, 1000); /* moves in every run: no rule */
	set(&ds, name, kind, kept, d);
	n = attrib_explain(NULL, 0, 10, false, &ds, 1, h, 4);
	out[0] = 0;
	for (i = 0; n == 1 && i < h[0].nrules; i++)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "," : "",
			 attrib_rule_name(h[0].rule[i]));
	return out;
}

static void test_each_rule(void)
{
	static const struct {
		const char *counter;
		enum ctr_kind kind;
		const char *rule;
	} t[] = {
		{"np_cnp_sent", CTR_HW, "congestion_notified"},
		{"np_ecn_marked_roce_packets", CTR_HW, "congestion_notified"},
		{"link_downed", CTR_PORT, "link_down"},
		{"symbol_error", CTR_PORT, "link_errors"},
		{"roce_adp_retrans", CTR_HW, "loss"},
		{"retry_exceeded_err", CTR_HW, "loss"}, /* Soft-RoCE's */
		{"out_of_sequence", CTR_HW, "reordering"},
		{"out_of_buffer", CTR_HW, "receiver_not_ready"},
		{"port_xmit_wait", CTR_PORT, "xmit_wait"},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_STR(fired(t[i].counter, t[i].kind, true, 3), t[i].rule);
		CHECK_STR(fired(t[i].counter, t[i].kind, true, 0), "");	 /* did not move */
		CHECK_STR(fired(t[i].counter, t[i].kind, false, 0), ""); /* not kept */
	}
	CHECK_STR(fired("rcvd_pkts", CTR_HW, true, 99), ""); /* a counter no rule names */
	CHECK_U64(attrib_rule_count(), 8);
}

static void test_congestion_said_once(void)
{
	struct ctr_deltas ds;
	struct attrib_hop h[4];
	int n;

	port(&ds, "mlx5_3");
	set(&ds, "roce_adp_retrans", CTR_HW, true, 48000);
	set(&ds, "local_ack_timeout_err", CTR_HW, true, 112);
	set(&ds, "np_cnp_sent", CTR_HW, true, 1204);
	set(&ds, "port_xmit_wait", CTR_PORT, true, 0);
	n = attrib_explain(NULL, 0, 10, false, &ds, 1, h, 4);
	CHECK_U64(n, 1);
	CHECK_U64(h[0].nrules, 1);
	CHECK_STR(attrib_rule_name(h[0].rule[0]), "congestion");
	CHECK_STR(h[0].text, "port mlx5_3:1: 48,112 retransmissions and 1,204 CNPs and ECN marks "
			     "in the window: congestion on that path");
	/* the same without the CNPs: loss, not congestion */
	ds.c[2].d = 0;
	n = attrib_explain(NULL, 0, 10, false, &ds, 1, h, 4);
	CHECK(n == 1 && h[0].nrules == 1 && !strcmp(attrib_rule_name(h[0].rule[0]), "loss"));
	/* congestion and link errors on one port: both said */
	ds.c[2].d = 5;
	set(&ds, "symbol_error", CTR_PORT, true, 9);
	n = attrib_explain(NULL, 0, 10, false, &ds, 1, h, 4);
	CHECK(n == 1 && h[0].nrules == 2);
	CHECK(strstr(h[0].text, "; 9 link errors in the window: a bad physical link") != NULL);
}

static struct rail rail(const char *dev, const char *rdev, uint64_t bytes)
{
	struct rail r = {.local_port = 1,
			 .remote_port = 1,
			 .qps = 4,
			 .bytes = bytes,
			 .line_rate_gbits = 400};

	snprintf(r.local_dev, sizeof(r.local_dev), "%s", dev);
	snprintf(r.remote_dev, sizeof(r.remote_dev), "%s", rdev);
	return r;
}

static void test_rail_below_its_peers(void)
{
	struct rail rails[3] = {rail("mlx5_0", "mlx5_0", 100000), rail("mlx5_1", "mlx5_1", 100000),
				rail("mlx5_3", "mlx5_3", 88000)};
	struct ctr_deltas ds[3];
	struct attrib_hop h[4];
	int n;

	port(&ds[0], "mlx5_0");
	port(&ds[1], "mlx5_1");
	port(&ds[2], "mlx5_3");
	set(&ds[2], "roce_adp_retrans", CTR_HW, true, 48112);
	set(&ds[2], "rp_cnp_handled", CTR_HW, true, 1204);
	n = attrib_explain(rails, 3, 10, false, ds, 3, h, 4);
	CHECK_U64(n, 1); /* the low rail, its port not said twice */
	CHECK(h[0].rail);
	CHECK(fabs(h[0].below_pct - 12.0) < 1e-9);
	CHECK_STR(h[0].text, "rail mlx5_3:1: 12% below its peers; 48,112 retransmissions and "
			     "1,204 CNPs and ECN marks in the window: congestion on that path");
	/* 5% below: within the noise, not named; its counters still are, as a port */
	rails[2].bytes = 95000;
	n = attrib_explain(rails, 3, 10, false, ds, 3, h, 4);
	CHECK(n == 1 && !h[0].rail && isnan(h[0].below_pct));
	CHECK(!strncmp(h[0].text, "port mlx5_3:1: 48,112 retransmissions", 37));
	/* low, and its port keeps no counter at all: not kept, never "nothing moved" */
	rails[2].bytes = 80000;
	ds[2].n = 0;
	n = attrib_explain(rails, 3, 10, false, ds, 3, h, 4);
	CHECK(n == 1 && h[0].rail && h[0].quiet == AQ_NOT_KEPT);
	CHECK_STR(h[0].text,
		  "rail mlx5_3:1: 20% below its peers; retransmissions not kept on its "
		  "port (never read as 0) (not kept here: retransmissions, CNPs and ECN "
		  "marks, out-of-sequence packets, RNR NAKs and buffer overruns, xmit "
		  "waits, link errors and link downs): whether loss or congestion slowed "
		  "it cannot be told on this end");
	CHECK(strstr(h[0].text, "the rate itself is limited") == NULL);
	/* low, and this side did not read its port (the sink's view of the source's device) */
	n = attrib_explain(rails, 3, 10, false, ds, 2, h, 4);
	CHECK(n == 1 && strstr(h[0].text, "its port's counters were not read") != NULL);
	/* one rail: no peers */
	CHECK_U64(attrib_explain(rails + 2, 1, 10, false, ds, 0, h, 4), 0);
}

/* A shaped port (tc tbf): every loss and congestion counter kept, none moved, packets did. */
static void shaped(struct ctr_deltas *ds, const char *dev, uint64_t retrans, uint64_t cnp)
{
	port(ds, dev);
	set(ds, "port_xmit_data", CTR_PORT, true, 250000);
	set(ds, "port_rcv_data", CTR_PORT, true, 0);
	set(ds, "port_xmit_packets", CTR_PORT, true, 240);
	set(ds, "port_rcv_packets", CTR_PORT, true, 60);
	set(ds, "roce_adp_retrans", CTR_HW, true, retrans);
	set(ds, "np_cnp_sent", CTR_HW, true, cnp);
	set(ds, "out_of_sequence", CTR_HW, true, 0);
	set(ds, "out_of_buffer", CTR_HW, true, 0);
	set(ds, "port_xmit_wait", CTR_PORT, true, 0);
	set(ds, "symbol_error", CTR_PORT, true, 0);
	set(ds, "link_downed", CTR_PORT, true, 0);
}

static void test_rate_limited(void)
{
	struct rail rails[3] = {rail("mlx5_0", "mlx5_0", 100000), rail("mlx5_1", "mlx5_1", 100000),
				rail("rxe0", "rxe0", 19000)};
	struct ctr_deltas ds[3];
	struct attrib_hop h[4];
	int n;

	shaped(&ds[0], "mlx5_0", 0, 0);
	shaped(&ds[1], "mlx5_1", 0, 0);
	shaped(&ds[2], "rxe0", 0, 0);
	n = attrib_explain(rails, 3, 10, false, ds, 3, h, 4);
	CHECK(n == 1 && h[0].rail && h[0].quiet == AQ_RATE_LIMITED && !h[0].nrules);
	CHECK_STR(h[0].text,
		  "rail rxe0:1: 81% below its peers; no retransmission, CNP or ECN mark, "
		  "out-of-sequence packet, RNR NAK, xmit wait (pause), link error or "
		  "link down counted on this end in the window: the rate itself is "
		  "limited (a shaper or policer, the port's speed, a slower path), not "
		  "loss or congestion; its port moved 300 packets and 1,000,000 bytes");
	CHECK_STR(attrib_quiet_name(h[0].quiet), "rate_limited");
	/* congested: retransmissions moved: the old words, not the new */
	shaped(&ds[2], "rxe0", 4812, 0);
	n = attrib_explain(rails, 3, 10, false, ds, 3, h, 4);
	CHECK(n == 1 && h[0].quiet == AQ_NONE && h[0].nrules == 1);
	CHECK_STR(attrib_rule_name(h[0].rule[0]), "loss");
	CHECK(strstr(h[0].text, "4,812 retransmissions in the window") != NULL);
	CHECK(strstr(h[0].text, "the rate itself is limited") == NULL);
	shaped(&ds[2], "rxe0", 4812, 96);
	n = attrib_explain(rails, 3, 10, false, ds, 3, h, 4);
	CHECK(n == 1 && h[0].quiet == AQ_NONE &&
	      !strcmp(attrib_rule_name(h[0].rule[0]), "congestion"));
	CHECK(strstr(h[0].text, "the rate itself is limited") == NULL);
	/* Soft-RoCE: retransmissions kept (its hw_counters), no PMA: the others said not kept */
	port(&ds[2], "rxe0");
	set(&ds[2], "sent_pkts", CTR_HW, true, 512);
	set(&ds[2], "rcvd_pkts", CTR_HW, true, 256);
	set(&ds[2], "retry_exceeded_err", CTR_HW, true, 0);
	set(&ds[2], "rcvd_seq_err", CTR_HW, true, 0);
	set(&ds[2], "rcvd_rnr_err", CTR_HW, true, 0);
	set(&ds[2], "out_of_seq_request", CTR_HW, true, 0);
	set(&ds[2], "link_downed", CTR_HW, true, 0);
	set(&ds[2], "port_xmit_wait", CTR_PORT, false, 0);
	n = attrib_explain(rails, 3, 10, false, ds, 3, h, 4);
	CHECK(n == 1 && h[0].quiet == AQ_RATE_LIMITED);
	CHECK_STR(h[0].text, "rail rxe0:1: 81% below its peers; no retransmission, out-of-sequence "
			     "packet, RNR NAK or link down counted on this end in the window (not "
			     "kept here: CNPs and ECN marks, xmit waits and link errors): the rate "
			     "itself is limited (a shaper or policer, the port's speed, a slower "
			     "path), not loss or congestion; its port moved 768 packets");
	/* retransmissions not kept (only the packets): "not kept", not the new words */
	port(&ds[2], "rxe0");
	set(&ds[2], "sent_pkts", CTR_HW, true, 512);
	set(&ds[2], "retry_exceeded_err", CTR_HW, false, 0);
	n = attrib_explain(rails, 3, 10, false, ds, 3, h, 4);
	CHECK(n == 1 && h[0].quiet == AQ_NOT_KEPT);
	CHECK(strstr(h[0].text, "retransmissions not kept on its port") != NULL);
	CHECK(strstr(h[0].text, "the rate itself is limited") == NULL);
	CHECK(strstr(h[0].text, "its port moved 512 packets") != NULL);
}

/* One rail of a memory source (a pair): against its line rate, when known. */
static void test_below_line_rate(void)
{
	struct rail one = rail("mlx5_0", "mlx5_1", 100000000000ull); /* 10 GB/s of 50 */
	struct ctr_deltas ds;
	struct attrib_hop h[2];
	int n;

	shaped(&ds, "mlx5_0", 0, 0);
	n = attrib_explain(&one, 1, 10, true, &ds, 1, h, 2);
	CHECK(n == 1 && h[0].rail && h[0].vs_line && fabs(h[0].below_pct - 80.0) < 1e-9);
	CHECK(!strncmp(h[0].text, "rail mlx5_0:1: 80% below its line rate; no retransmission", 57));
	/* against its line rate, one more reason: too few WRITEs in flight */
	CHECK(strstr(h[0].text, "a slower path, too few WRITEs in flight), not loss") != NULL);
	/* a drive source: its drives may bind, the line rate is no reference */
	CHECK_U64(attrib_explain(&one, 1, 10, false, &ds, 1, h, 2), 0);
	/* near the line rate: nothing said */
	one.bytes = 460000000000ull;
	CHECK_U64(attrib_explain(&one, 1, 10, true, &ds, 1, h, 2), 0);
	/* a software port: no line rate */
	one.bytes = 1000;
	one.line_rate_gbits = 0;
	CHECK_U64(attrib_explain(&one, 1, 10, true, &ds, 1, h, 2), 0);
}

static void test_json(void)
{
	struct ctr_deltas ds;
	struct attrib_hop h[2];
	struct report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	port(&ds, "rxe0");
	set(&ds, "out_of_sequence", CTR_HW, true, 7);
	n = attrib_explain(NULL, 0, 10, false, &ds, 1, h, 2);
	report_init(&r, f, true, false);
	report_obj_begin(&r, NULL);
	attrib_print(&r, h, n);
	report_obj_end(&r);
	report_finish(&r);
	fclose(f);
	CHECK(strstr(buf, "\"attribution\": [") != NULL);
	CHECK(strstr(buf, "\"hop\": \"port\",\n      \"device\": \"rxe0\",\n      \"port\": 1,\n"
			  "      \"below_peers_pct\": null,") != NULL);
	CHECK(strstr(buf, "\"rule\": \"reordering\",\n          \"moved\": {\n"
			  "            \"out_of_sequence\": 7\n") != NULL);
	CHECK(strstr(buf, "\"text\": \"port rxe0:1: 7 out-of-sequence packets in the window: "
			  "packets lost or reordered") != NULL);
	CHECK(strstr(buf, "\"counters_still\": null,") != NULL); /* a rule fired: not judged */
	if (check_failures)
		fprintf(stderr, "%s\n", buf);
	free(buf);
}

/* A shaped rail in JSON: counters_still, what is not kept, the packets and bytes it moved. */
static void test_json_rate_limited(void)
{
	struct rail rails[2] = {rail("mlx5_0", "mlx5_0", 100000), rail("rxe0", "rxe0", 19000)};
	struct ctr_deltas ds[2];
	struct attrib_hop h[2];
	struct report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	shaped(&ds[0], "mlx5_0", 0, 0);
	shaped(&ds[1], "rxe0", 0, 0);
	ds[1].c[9].kept = false; /* symbol_error */
	n = attrib_explain(rails, 2, 10, false, ds, 2, h, 2);
	report_init(&r, f, true, false);
	report_obj_begin(&r, NULL);
	attrib_print(&r, h, n);
	report_obj_end(&r);
	report_finish(&r);
	fclose(f);
	CHECK_U64(n, 1);
	CHECK(strstr(buf, "\"below_peers_pct\": 68.0") != NULL);
	CHECK(strstr(buf, "\"below_line_rate_pct\": null,") != NULL);
	CHECK(strstr(buf,
		     "\"rules\": [],\n      \"counters_still\": \"rate_limited\",\n"
		     "      \"counters_not_kept\": [\n        \"link_errors\"\n      ],\n"
		     "      \"packets_moved\": 300,\n      \"bytes_moved\": 1000000,") != NULL);
	if (check_failures)
		fprintf(stderr, "%s\n", buf);
	free(buf);
}

int main(void)
{
	test_each_rule();
	test_congestion_said_once();
	test_rail_below_its_peers();
	test_rate_limited();
	test_below_line_rate();
	test_json();
	test_json_rate_limited();
	return check_done("test_attrib");
}
