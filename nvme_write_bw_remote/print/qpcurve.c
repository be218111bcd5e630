// SPDX-License-Identifier: MIT
/*
 * qpcurve.c: --sweep-qps's curve after its runs: the RDMA rate at each QP
 * count, in % of the port's line rate where it is known, and the verdict's
 * words (model/qpsweep.c). Text: the sweep refuses --json.
 */
#include <math.h>
#include <stdio.h>

#include "printer.h"

void print_qps_sweep(struct report *r, const unsigned *qps, const double *gbits, int n,
		     double line_gbits, double pcie_gbits, const struct qps_verdict *v)
{
	char line[48] = "unknown", pcie[64] = "";
	int i;

	if (line_gbits > 0)
		snprintf(line, sizeof(line), "%.0f Gb/s", line_gbits);
	if (isfinite(pcie_gbits) && pcie_gbits > 0)
		snprintf(pcie, sizeof(pcie), "; the NICs' PCIe usable %.0f Gb/s", pcie_gbits);
	report_text(r, "\n QP sweep: the RDMA rate against the QPs (line rate %s%s)\n", line, pcie);
	report_text(r, " %6s %12s %8s\n", "#QPs", "Gb/sec", "% line");
	for (i = 0; i < n; i++) {
		if (line_gbits > 0)
			report_text(r, " %6u %12.2f %7.0f%%\n", qps[i], gbits[i],
				    gbits[i] / line_gbits * 100);
		else
			report_text(r, " %6u %12.2f %8s\n", qps[i], gbits[i], "-");
	}
	report_text(r, " QP sweep verdict: %s\n", v->text);
}
