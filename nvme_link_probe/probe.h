/* SPDX-License-Identifier: MIT */
/*
 * probe.h: what nvme_link_probe's two files share: one audited device, the
 * options, and the slot side of the audit (bays.c: slots as a technician
 * sees them, the site slot specification, the upgrade projection).
 */
#ifndef NBW_PROBE_H
#define NBW_PROBE_H

#include <stdbool.h>

#include "cli.h"
#include "pcilink.h"
#include "pcitree.h"
#include "report.h"

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
	char rate_text[64];   /* RDMA port 1 rate as sysfs says it */
	char link_layer[24];
	double net_gbits; /* port data rate in Gb/s, NAN unknown */
	int ports_active; /* RDMA: ports in state ACTIVE, -1 unknown */
	int local_rdma;	  /* NVMe: ACTIVE RDMA ports on its NUMA node, -1 unknown */
	const struct pcie_fn *fn;
	struct pcie_path path;
	bool have_path;
	char why_no_link[160]; /* when the device has no PCIe link of its own */
	bool expect_ok;
	char expect_msg[200];
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
};

struct options {
	struct cli_common cc; /* --json, --sysfs-root */
	char *devs;
	char *slots;
	const char *dump;
	const char *expect_file;
	bool verbose;
	bool project;
	double expect_speed; /* GT/s, 0 = none */
	unsigned expect_width;
};

/* Slot, slot ceiling and (RDMA) port state of one judged device. */
void bays_find_slot(const struct pcitree *t, struct probe_dev *p);
/* "slot 33", "slot NAME" or "port BDF" naming where p sits, into buf. */
const char *bays_slot_label(const struct probe_dev *p, char *buf, size_t len);
/* ACTIVE ports under an RDMA device's sysfs directory (ports/N/state), -1 if none readable. */
int bays_active_ports(const char *ibdir);
/* Each drive's count of ACTIVE RDMA ports on its NUMA node (all of d, before selection). */
void bays_rdma_locality(struct probe_dev *d, int n, bool known);
/*
 * True when item is a number some device's slot carries (SltCap): it then
 * names slots by number only; any other item names a kernel slot name.
 */
bool bays_by_number(const struct probe_dev *d, int n, const char *item);
/* True when item names p's slot, by number or by kernel name (bays_by_number()). */
bool bays_slot_matches(const struct probe_dev *p, const char *item, bool by_number);
/* Sort by slot: numbered first, then named only, then none; stable. */
void bays_sort(struct probe_dev *d, int n);

/* Read a site specification; 0, or an exit status after one printed line. */
int bays_spec_load(const char *file, struct site_spec *s);
void bays_spec_free(struct site_spec *s);
/* Audit every device against its bay's line; false if a bay falls short. */
bool bays_spec_check(struct site_spec *s, struct probe_dev *d, int n, bool selected);
/* Stderr: one line per bay that falls short. */
void bays_spec_lines(const struct site_spec *s, const struct probe_dev *d, int n);
/* The site specification's verdict in JSON (top level). */
void bays_spec_report(struct report *r, const struct site_spec *s, const struct probe_dev *d,
		      int n);

/* --project: the upgrade table, text and JSON. */
void bays_project(struct report *r, const struct probe_dev *d, int n);

#endif
