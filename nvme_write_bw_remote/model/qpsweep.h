/* SPDX-License-Identifier: MIT */
/*
 * qpsweep.h: the verdict on --sweep-qps (one QP, then more): where the RDMA
 * rate stops growing as QPs are added and what binds there: the port's line
 * rate, the PCIe link, or something else; one QP's own ceiling when the
 * curve still grows. Pure: the curve's shape is common/base/sweep.c's.
 */
#ifndef NBW_QPSWEEP_H
#define NBW_QPSWEEP_H

#include "sweep.h"

#define QPSWEEP_MAX 16

enum qps_bind {
	QPS_BIND_PORT,	     /* flat at the port's line rate */
	QPS_BIND_PCIE,	     /* flat at the PCIe link's usable rate, below the port's */
	QPS_BIND_OTHER,	     /* flat below both: the host, its memory, the drives, the peer */
	QPS_BIND_ONE_QP,     /* still growing at the last point: each QP at its own ceiling */
	QPS_BIND_NO_CEILING, /* flat, no known line rate (Soft-RoCE) */
	QPS_BIND_ABOVE,	     /* above the port's line rate: it is emulated or misreported */
};

struct qps_verdict {
	struct sweep_verdict curve; /* sweep_judge's: flat_from (where it stops growing), pct */
	enum qps_bind bind;
	double one_qp_gbits; /* the first point's rate (one QP's when the list starts at 1) */
	char text[512];
};

/*
 * Judge gbits[i] (Gb/s) measured with qps[i] QPs (i < n, ascending) against
 * the port's line rate port_gbits and the PCIe link's usable rate pcie_gbits
 * (each NAN or <= 0 when unknown). 0, or -EINVAL for n < 1.
 */
int qps_sweep_judge(const unsigned *qps, const double *gbits, int n, double port_gbits,
		    double pcie_gbits, struct qps_verdict *v);
/* "port", "pcie", "other", "one_qp", "no_ceiling", "above_ceiling". */
const char *qps_bind_name(enum qps_bind b);

#endif
