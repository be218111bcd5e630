/* SPDX-License-Identifier: MIT */
/*
 * probe.h: what every part of nvme_link_probe shares: one audited device
 * (struct probe_dev) and the options. The parts, one concern each, as
 * pciutils splits lspci:
 *	main.c      the options and the order of the calls
 *	discover.c  finding the drives and NICs (sysfs or a dump) and each one's
 *	            path up to its root port (discover.h)
 *	select.c    the devices --dev and --slot name (select.h)
 *	judge.c     the verdicts, ceilings, what limits a link, the narrowest
 *	            hop, the expectations and the site specification's bays;
 *	            pure (judge.h)
 *	bays.c      slots as a technician sees them: number, kernel name,
 *	            ceiling, RDMA locality, the sort by slot (bays.h)
 *	spec.c      reading the site slot specification, --expect-file (spec.h)
 *	project.c   the upgrade projection's sums, --project (project.h)
 *	topo.c      the affinity matrix of drives, RDMA devices and GPUs,
 *	            --topology (topo.h); pure but for topo_build()
 *	p2p.c       the peer-to-peer audit of its pairs: ACS, IOMMU, p2pmem,
 *	            GPUDirect (p2p.h)
 *	print.c     every printer, text and JSON, through common/base/report (print.h):
 *	            the report and the audit's lines; print_site.c the site
 *	            specification and the projection; print_topo.c the matrix
 *	            and the peer-to-peer audit
 */
#ifndef NBW_PROBE_H
#define NBW_PROBE_H

#include <stdbool.h>

#include "cli.h"
#include "health.h"
#include "pcilink.h"
#include "provenance.h"

#define MAX_DEVS 256

enum dev_kind { KIND_NVME, KIND_RDMA };

/* One line of a site slot specification (--expect-file). */
struct bay_spec {
	char key[64]; /* slot number or name, or a normalised BDF */
	bool is_bdf;
	double speed; /* GT/s the bay must deliver */
	unsigned width;
	int line;
	bool matched;
};

struct site_spec {
	const char *file;
	struct bay_spec *bay;
	int n;
};

struct probe_dev {
	enum dev_kind kind;
	char name[64];	    /* nvme0, mlx5_0; "" in dump mode */
	char bdf[16];	    /* "" when there is no PCI function */
	char transport[16]; /* NVMe: pcie, tcp, rdma, fc, loop */
	char model[96];
	char firmware[32];
	char soft_parent[32]; /* software RDMA: its network interface */
	char carrier_bdf[16]; /* software RDMA: that interface's PCI function, "" none */
	char rate_text[64];   /* RDMA port 1 rate as sysfs says it */
	char link_layer[24];
	double net_gbits; /* port data rate in Gb/s, NAN unknown */
	int ports_active; /* RDMA: ports in state ACTIVE, -1 unknown */
	int local_rdma;	  /* NVMe: ACTIVE RDMA ports on its NUMA node, -1 unknown */
	const struct pcie_fn *fn;
	struct pcie_path path; /* hops from discovery, links and verdict from judging */
	bool have_path;
	char why_no_link[160]; /* when the device has no PCIe link of its own */
	bool expect_ok;
	char expect_msg[PCIE_PATH_REASON_LEN + 64]; /* a verdict's name + the path's reason */
	/* The slot it sits in: number (SltCap) and/or kernel name, or why none. */
	bool have_slot;
	int slot_number; /* -1 unknown */
	char slot_name[64];
	char slot_port[16]; /* the downstream port above the device */
	char slot_reason[200];
	struct pcie_what_if slot_ceiling;
	int order; /* discovery order, for a stable sort */
	/* The site specification's line for its bay. */
	const struct bay_spec *spec;
	bool spec_ok, spec_accepted;
	char spec_msg[240];
	/* NVMe: the controller's health log now, or why it was not read. */
	bool have_health;
	struct health_log health;
	struct health_limits health_lim;
	char health_why[160];
};

/* --expect-speed, --expect-width, --expect: the lowest acceptable link. */
struct probe_expect {
	double speed; /* GT/s, 0 = none */
	unsigned width;
};

/* An item of --dev, -s or --slot that named no audited device, and why. */
#define PROBE_MAX_MISSES 32
#define PROBE_MISS_REASON_LEN 200
struct probe_miss {
	char option[8];
	char item[128];
	char reason[PROBE_MISS_REASON_LEN];
};

struct probe_misses {
	struct probe_miss m[PROBE_MAX_MISSES];
	int n;
};

struct options {
	struct cli_common cc; /* --json, --sysfs-root */
	char *devs;
	char *sel; /* -s: lspci's selectors */
	char *slots;
	struct probe_misses *misses; /* filled by the selection, main's */
	const char *dump;
	const char *expect_file;
	bool verbose;
	bool project;
	bool topology;
	bool expect_p2p; /* --expect p2p */
	bool expect_mps; /* --expect mps: no link below the payload both ends support */
	bool nothing;	 /* no drive, RDMA device or GPU found: nothing to audit */
	struct probe_expect expect;
	struct provenance *prov; /* where and when, with the devices' identity */
};

#endif
