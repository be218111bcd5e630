/* SPDX-License-Identifier: MIT */
/*
 * judge.h: nvme_link_probe's judging (judge.c). Pure: each function reads
 * the structures it is given and writes only the verdict into them; nothing
 * is read from the system and nothing printed. The rules of a link (both
 * ends' maxima, the port's target, training, an idle NIC) and of a path (a
 * narrower hop further up) are pcie_judge_link() and pcie_judge_path() in
 * common/pci/pcilink.c; here they are applied to a discovered device, and
 * the device is held against the user's expectations.
 */
#ifndef NBW_JUDGE_H
#define NBW_JUDGE_H

#include <stdbool.h>

#include "probe.h"

/*
 * Judge every link of p's path (hops filled by discovery): verdict, what
 * limits it, ceilings and the narrowest hop into p->path. A device whose
 * path judges "no_link" says why in p->why_no_link.
 */
void judge_device(struct probe_dev *p);

/* The device's verdict: its path's, or no_link when it has no PCI function. */
enum pcie_verdict judge_verdict(const struct probe_dev *p);
/* What limits it (PCIE_LIMIT_NONE without a path). */
enum pcie_limit judge_limited_by(const struct probe_dev *p);
/* Why, in words: the path's reason, or why the device has no link of its own. */
const char *judge_reason(const struct probe_dev *p);
/* The lower end of the narrowest link of the path, or NULL. */
const char *judge_bottleneck_bdf(const struct probe_dev *p);
/* The slot ceiling's narrowest element: the slot's port or a hop further up; NULL unknown. */
const char *judge_slot_bottleneck_bdf(const struct probe_dev *p);

/*
 * Hold p against e (--expect-speed, --expect-width): p->expect_ok and, when
 * not met, p->expect_msg. A downgraded, down or unknown link never meets an
 * expectation; an idle NIC is held to the link it negotiates to; a device
 * with no PCIe link of its own is not judged (met).
 */
void judge_expect(const struct probe_expect *e, struct probe_dev *p);

/*
 * Every device against --expect* and against its bay's line of the site
 * slot specification (spec, when --expect-file): a bay that delivers less
 * falls short, and so does an empty one unless --dev/--slot chose other
 * devices; a link trained below both ends' best that its bay expects is
 * accepted (verdict ok, the reason says so); with --expect mps, a link of
 * its path with a payload finding falls short. False if one falls short.
 */
bool judge_audit(const struct options *o, struct site_spec *spec, struct probe_dev *d, int n);

/* The first link of p's path with a payload finding (MPS or MRRS), or NULL. */
const struct pcie_link *judge_payload_link(const struct probe_dev *p);

/* A NIC's network port against its PCIe ceiling. */
struct judge_network {
	double net_gb_per_s;	  /* port 1's data rate in GB/s, NAN unknown */
	double pcie_gb_per_s;	  /* the path's usable ceiling, else raw; NAN unknown */
	const char *pcie_ceiling; /* "usable" or "raw": which of the two pcie_gb_per_s is */
	const char *lower;	  /* "pcie", "network", "equal"; NULL when one is unknown */
};

/* Fill nw for p; false when nothing is known of its port (no rate). */
bool judge_network(const struct probe_dev *p, struct judge_network *nw);

#endif
