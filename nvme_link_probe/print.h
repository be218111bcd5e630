/* SPDX-License-Identifier: MIT */
/*
 * print.h: nvme_link_probe's printers: the report (a table row per device,
 * or the JSON document) and the audit's lines on stderr (print.c), the site
 * specification and the projection (print_site.c), the topology
 * (print_topo.c).
 */
#ifndef NBW_PRINT_H
#define NBW_PRINT_H

#include "p2p.h"
#include "print_fields.h"
#include "pcitree.h"
#include "probe.h"
#include "report.h"
#include "topo.h"

/*
 * The document: the header (tool, source, root access), a row (object) per
 * device, the expectation, the site specification (spec non-NULL), the
 * projection (--project) and the matrix (tp non-NULL, --topology).
 */
void print_report(struct report *r, const struct options *o, const struct pcitree *t,
		  const struct site_spec *spec, const struct probe_dev *devs, int n,
		  const struct topology *tp, const struct p2p_system *sys);

/*
 * The site slot specification (print_site.c): its verdict as the object
 * "site_spec" (the bays that fall short, and met), and on stderr one line
 * per bay that falls short.
 */
void print_spec(struct report *r, const struct site_spec *s, const struct probe_dev *d, int n);
void print_spec_lines(const struct site_spec *s, const struct probe_dev *d, int n);

/*
 * --project (print_site.c): the upgrade table and the object "projection"
 * (today, each scenario with the slots as they are and fixed, the drives
 * with no ACTIVE RDMA port on their NUMA node, the staging hop).
 */
void print_projection(struct report *r, const struct probe_dev *d, int n,
		      const struct topology *tp);

/* Stderr: one line per item of --dev, -s or --slot that named no audited device. */
void print_miss_lines(const struct probe_misses *m);

/*
 * After the document, on stderr: the no-root warning, one line per unmet
 * expectation and one per bay of the site specification (spec non-NULL)
 * that falls short.
 */
void print_audit_lines(const struct pcitree *t, const struct site_spec *spec,
		       const struct probe_dev *devs, int n);

/*
 * --topology (print_topo.c): the placed devices, the matrix, each drive's
 * nearest ACTIVE RDMA device, the system's side of the peer-to-peer audit
 * and every pair (with its audit where it has one), as the object
 * "topology" (call inside the document, before print_report ends it).
 */
void print_topology(struct report *r, const struct topology *tp, const struct p2p_system *sys);

/*
 * A function's ACS registers as "acs": {capability, control} (lspci's names
 * of the bits set), {null, null} without an ACS capability, null when the
 * extended configuration space was not read.
 */
void print_fn_acs(struct report *r, const struct pcie_fn *f);

/*
 * --project's "staging_hop": the DRAM traffic the hop through the source's
 * memory adds per GB/s moved (each byte written once by the drive, read
 * once by the NIC: 2), that at today's summed ceiling, and whether p2pdma
 * could remove it: the drives among d whose nearest ACTIVE RDMA device they
 * can reach peer-to-peer (the audit of tp).
 */
void print_staging_hop(struct report *r, double today, const struct probe_dev *d, int n,
		       const struct topology *tp);

/* --expect p2p, on stderr: a line per drive among d that cannot (p2p_expect_met). */
void print_p2p_lines(const struct topology *tp, const struct probe_dev *d, int n);

#endif
