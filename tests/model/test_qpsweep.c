// SPDX-License-Identifier: MIT
/*
 * test_qpsweep.c: --sweep-qps's verdict (model/qpsweep.c) on recorded
 * curves: one that grows to a 400G port's line rate (the port binds), one
 * that flattens far below it (something else binds, not one QP's ceiling),
 * one flat at its PCIe link, one still growing, one without a line rate.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "qpsweep.h"

static const unsigned qps[] = {1, 2, 4, 8, 16, 32};

int main(void)
{
	static const double port_bound[] = {49, 98, 190, 370, 395, 396};
	static const double host_bound[] = {45, 88, 101, 102, 101, 102};
	static const double pcie_bound[] = {48, 95, 180, 218, 220, 221};
	static const double growing[] = {20, 40, 80, 160};
	static const double soft[] = {1.1, 1.9, 2.0, 2.0};
	struct qps_verdict v;

	/* Grows as QPs double, then flat within 2% of 396 from 16 QPs: 99% of 400G. */
	CHECK(!qps_sweep_judge(qps, port_bound, 6, 400, NAN, &v));
	CHECK_STR(qps_bind_name(v.bind), "port");
	CHECK_U64(v.curve.flat_from, 4);
	CHECK_STR(v.text, "stops growing at 16 QPs, at 99% of the port's line rate (396 of 400 "
			  "Gb/s): the port binds, not one QP's ceiling (one QP: 49 Gb/s)");

	/* Flat from 4 QPs at a quarter of the port, no PCIe figure: something else binds. */
	CHECK(!qps_sweep_judge(qps, host_bound, 6, 400, NAN, &v));
	CHECK_STR(qps_bind_name(v.bind), "other");
	CHECK_U64(v.curve.flat_from, 2);
	CHECK_STR(v.text, "stops growing at 4 QPs, at 102 Gb/s = 26% of the port's line rate: one "
			  "QP's ceiling is not the limit; something else binds (the host's memory "
			  "or CPU, the drives, the peer)");
	/* The same with a PCIe link far above it: not the link either. */
	CHECK(!qps_sweep_judge(qps, host_bound, 6, 400, 220, &v));
	CHECK_STR(qps_bind_name(v.bind), "other");
	CHECK(strstr(v.text, ", not the PCIe link") != NULL);

	/* One QP already gives all: more add nothing. */
	static const double flat1[] = {100, 101, 100};
	CHECK(!qps_sweep_judge(qps, flat1, 3, 400, NAN, &v));
	CHECK_STR(qps_bind_name(v.bind), "other");
	CHECK(strstr(v.text, "stops growing at 1 QP, at 101 Gb/s = 25% of the port's line rate: "
			     "more QPs add nothing") == v.text);

	/* Flat at a PCIe Gen4 x16's usable ~220 Gb/s under a 400G port. */
	CHECK(!qps_sweep_judge(qps, pcie_bound, 6, 400, 224, &v));
	CHECK_STR(qps_bind_name(v.bind), "pcie");
	CHECK_U64(v.curve.flat_from, 3);
	CHECK(strstr(v.text,
		     "stops growing at 8 QPs, at 221 Gb/s = 99% of the PCIe link's usable "
		     "224 Gb/s, below the port's line rate: the PCIe link binds") == v.text);

	/* Doubling to the last point: each QP at its own ceiling, sweep further. */
	CHECK(!qps_sweep_judge(qps, growing, 4, 400, NAN, &v));
	CHECK_STR(qps_bind_name(v.bind), "one_qp");
	CHECK_STR(v.text, "still growing at 8 QPs (160 Gb/s, below the port's line rate): each QP "
			  "runs at its own ceiling (one QP: 20 Gb/s); sweep further");

	/* Soft-RoCE: no line rate. */
	CHECK(!qps_sweep_judge(qps, soft, 4, NAN, NAN, &v));
	CHECK_STR(qps_bind_name(v.bind), "no_ceiling");
	CHECK(strstr(v.text, "stops growing at 4 QPs, at 2 Gb/s; no known line rate") == v.text);

	/* Above the port: misreported. */
	static const double above[] = {300, 420};
	CHECK(!qps_sweep_judge(qps, above, 2, 400, NAN, &v));
	CHECK_STR(qps_bind_name(v.bind), "above_ceiling");

	CHECK(qps_sweep_judge(qps, soft, 0, 400, NAN, &v) == -EINVAL);
	return check_done("test_qpsweep");
}
