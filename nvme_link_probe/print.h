/* SPDX-License-Identifier: MIT */
/*
 * print.h: nvme_link_probe's printers (print.c): the report (a table row per
 * device, or the JSON document) and the audit's lines on stderr.
 */
#ifndef NBW_PRINT_H
#define NBW_PRINT_H

#include "pcitree.h"
#include "probe.h"
#include "report.h"

/*
 * The document: the header (tool, source, root access), a row (object) per
 * device, the expectation, the site specification (spec non-NULL) and the
 * projection (--project).
 */
void print_report(struct report *r, const struct options *o, const struct pcitree *t,
		  const struct site_spec *spec, const struct probe_dev *devs, int n);

/* Stderr: one line per item of --dev, -s or --slot that named no audited device. */
void print_miss_lines(const struct probe_misses *m);

/*
 * After the document, on stderr: the no-root warning, one line per unmet
 * expectation and one per bay of the site specification (spec non-NULL)
 * that falls short.
 */
void print_audit_lines(const struct pcitree *t, const struct site_spec *spec,
		       const struct probe_dev *devs, int n);

#endif
