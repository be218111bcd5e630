// SPDX-License-Identifier: MIT
/*
 * qpsweep.c: the verdict on --sweep-qps (qpsweep.h). The curve's shape
 * (where it goes flat, the maximum in % of the line rate) is sweep_judge's,
 * the rule nvme_read_bw's thread sweep and -a use; what binds is said here.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "qpsweep.h"

const char *qps_bind_name(enum qps_bind b)
{
	static const char *const names[] = {"port",   "pcie",	    "other",
					    "one_qp", "no_ceiling", "above_ceiling"};

	return (unsigned)b < sizeof(names) / sizeof(names[0]) ? names[b] : "?";
}

static bool known(double x)
{
	return isfinite(x) && x > 0;
}

/* Flat below the port: the PCIe link when the maximum sits at its usable rate. */
static enum qps_bind flat_bind(double max_gbits, double pcie_gbits)
{
	if (known(pcie_gbits) && max_gbits >= pcie_gbits * SWEEP_AT_CEILING / 100)
		return QPS_BIND_PCIE;
	return QPS_BIND_OTHER;
}

/* The words after "stops growing at N QPs ...": what binds and what it says. */
static void bind_text(struct qps_verdict *v, const char *at, double port, double pcie)
{
	double max = v->curve.max_gb_per_s * 8;

	switch (v->bind) {
	case QPS_BIND_PORT:
		snprintf(v->text, sizeof(v->text),
			 "stops growing at %s, at %.0f%% of the port's line rate (%.0f of %.0f "
			 "Gb/s): the port binds, not one QP's ceiling (one QP: %.0f Gb/s)",
			 at, v->curve.pct, max, port, v->one_qp_gbits);
		break;
	case QPS_BIND_PCIE:
		snprintf(
			v->text, sizeof(v->text),
			"stops growing at %s, at %.0f Gb/s = %.0f%% of the PCIe link's usable %.0f "
			"Gb/s, below the port's line rate: the PCIe link binds, not one QP's "
			"ceiling",
			at, max, max / pcie * 100, pcie);
		break;
	case QPS_BIND_OTHER:
		snprintf(v->text, sizeof(v->text),
			 "stops growing at %s, at %.0f Gb/s%s%.0f%s: %s; something else binds "
			 "(the host's memory or CPU, the drives, the peer)%s",
			 at, max, known(port) ? " = " : "", known(port) ? v->curve.pct : 0,
			 known(port) ? "% of the port's line rate" : "",
			 v->curve.flat_from
				 ? "one QP's ceiling is not the limit"
				 : "more QPs add nothing, one QP's ceiling is not the limit",
			 known(pcie) ? ", not the PCIe link" : "");
		break;
	case QPS_BIND_ONE_QP:
		snprintf(v->text, sizeof(v->text),
			 "still growing at %s (%.0f Gb/s%s): each QP runs at its own ceiling "
			 "(one QP: %.0f Gb/s); sweep further",
			 at, max, known(port) ? ", below the port's line rate" : "",
			 v->one_qp_gbits);
		break;
	case QPS_BIND_NO_CEILING:
		snprintf(v->text, sizeof(v->text),
			 "stops growing at %s, at %.0f Gb/s; no known line rate (a software "
			 "device): a port limit cannot be told from the host's",
			 at, max);
		break;
	case QPS_BIND_ABOVE:
		snprintf(v->text, sizeof(v->text),
			 "%.0f Gb/s at %s is above the port's line rate (%.0f Gb/s): the port is "
			 "emulated or its rate misreported",
			 max, at, port);
		break;
	}
}

int qps_sweep_judge(const unsigned *qps, const double *gbits, int n, double port_gbits,
		    double pcie_gbits, struct qps_verdict *v)
{
	char names[QPSWEEP_MAX][24];
	const char *label[QPSWEEP_MAX];
	double gb[QPSWEEP_MAX];
	int i, rc;

	if (n < 1 || n > QPSWEEP_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "%u QP%s", qps[i], qps[i] == 1 ? "" : "s");
		label[i] = names[i];
		gb[i] = gbits[i] / 8;
	}
	rc = sweep_judge_at(gb, label, n, known(port_gbits) ? port_gbits / 8 : NAN,
			    "port's line rate", "QP", 100.0, &v->curve);
	if (rc)
		return rc;
	v->one_qp_gbits = gbits[0];
	switch (v->curve.kind) {
	case SWEEP_LINK:
		v->bind = QPS_BIND_PORT;
		break;
	case SWEEP_RISING:
		v->bind = QPS_BIND_ONE_QP;
		break;
	case SWEEP_ABOVE:
		v->bind = QPS_BIND_ABOVE;
		break;
	case SWEEP_NO_CEILING:
		v->bind = known(pcie_gbits) ? flat_bind(v->curve.max_gb_per_s * 8, pcie_gbits)
					    : QPS_BIND_NO_CEILING;
		break;
	default:
		v->bind = flat_bind(v->curve.max_gb_per_s * 8, pcie_gbits);
	}
	bind_text(v, label[v->bind == QPS_BIND_ONE_QP ? n - 1 : v->curve.flat_from], port_gbits,
		  pcie_gbits);
	return 0;
}
