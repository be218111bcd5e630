// SPDX-License-Identifier: MIT
/*
 * test_attrib: the gap explained hop by hop (report/attrib.c) on rails and
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
	n = attrib_explain(NULL, 0, 10, &ds, 1, h, 4);
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
	n = attrib_explain(NULL, 0, 10, &ds, 1, h, 4);
	CHECK_U64(n, 1);
	CHECK_U64(h[0].nrules, 1);
	CHECK_STR(attrib_rule_name(h[0].rule[0]), "congestion");
	CHECK_STR(h[0].text, "port mlx5_3:1: 48,112 retransmissions and 1,204 CNPs and ECN marks "
			     "in the window: congestion on that path");
	/* the same without the CNPs: loss, not congestion */
	ds.c[2].d = 0;
	n = attrib_explain(NULL, 0, 10, &ds, 1, h, 4);
	CHECK(n == 1 && h[0].nrules == 1 && !strcmp(attrib_rule_name(h[0].rule[0]), "loss"));
	/* congestion and link errors on one port: both said */
	ds.c[2].d = 5;
	set(&ds, "symbol_error", CTR_PORT, true, 9);
	n = attrib_explain(NULL, 0, 10, &ds, 1, h, 4);
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
	n = attrib_explain(rails, 3, 10, ds, 3, h, 4);
	CHECK_U64(n, 1); /* the low rail, its port not said twice */
	CHECK(h[0].rail);
	CHECK(fabs(h[0].below_pct - 12.0) < 1e-9);
	CHECK_STR(h[0].text, "rail mlx5_3:1: 12% below its peers; 48,112 retransmissions and "
			     "1,204 CNPs and ECN marks in the window: congestion on that path");
	/* 5% below: within the noise, not named; its counters still are, as a port */
	rails[2].bytes = 95000;
	n = attrib_explain(rails, 3, 10, ds, 3, h, 4);
	CHECK(n == 1 && !h[0].rail && isnan(h[0].below_pct));
	CHECK(!strncmp(h[0].text, "port mlx5_3:1: 48,112 retransmissions", 37));
	/* low, and nothing moved on its port */
	rails[2].bytes = 80000;
	ds[2].n = 0;
	n = attrib_explain(rails, 3, 10, ds, 3, h, 4);
	CHECK(n == 1 && h[0].rail);
	CHECK_STR(h[0].text, "rail mlx5_3:1: 20% below its peers; no counter of its port moved: "
			     "the cause is outside what the port counts (PCIe, NUMA placement, "
			     "the peer)");
	/* low, and this side did not read its port (the sink's view of the source's device) */
	n = attrib_explain(rails, 3, 10, ds, 2, h, 4);
	CHECK(n == 1 && strstr(h[0].text, "its port's counters were not read") != NULL);
	/* one rail: no peers */
	CHECK_U64(attrib_explain(rails + 2, 1, 10, ds, 0, h, 4), 0);
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
	n = attrib_explain(NULL, 0, 10, &ds, 1, h, 2);
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
	if (check_failures)
		fprintf(stderr, "%s\n", buf);
	free(buf);
}

int main(void)
{
	test_each_rule();
	test_congestion_said_once();
	test_rail_below_its_peers();
	test_json();
	return check_done("test_attrib");
}
