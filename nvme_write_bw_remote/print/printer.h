/* SPDX-License-Identifier: MIT */
/*
 * printer.h: the one printer of nvme_write_bw_remote. It renders a result
 * (result.h) of any mode through common/base/report.c, text and JSON from the
 * same calls; it measures nothing and judges nothing.
 */
#ifndef NBW_PRINTER_H
#define NBW_PRINTER_H

#include <stdio.h>

#include "ports.h"
#include "provenance.h"
#include "qpsweep.h"
#include "report.h"
#include "result.h"

/*
 * While the roles run, print what must come before the end: each header
 * before its window, the live lines (--interval) in it, each run of -a once
 * it ends. x's hook (result_begin, result_live, result_end) is set to do so
 * into r.
 */
void printer_attach(struct result *x, struct report *r);
/* The report of x, any mode, or what is left of it (after printer_attach). */
void print_result(struct report *r, struct result *x);
/*
 * --sweep-qps: the curve of the RDMA rate against the QPs, the port's line rate
 * and the NICs' usable PCIe rate (each unknown: <= 0 or NAN), and its verdict
 * (qpcurve.c).
 */
void print_qps_sweep(struct report *r, const unsigned *qps, const double *gbits, int n,
		     double line_gbits, double pcie_gbits, const struct qps_verdict *v);
/* --list-ports: every port of all[0..n) with its netdev and GIDs, one document (portlist.c). */
void print_port_list(struct report *r, const struct provenance *prov,
		     const struct fab_port_info *all, int n);

#endif
