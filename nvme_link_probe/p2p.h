/* SPDX-License-Identifier: MIT */
/*
 * p2p.h: the peer-to-peer audit of the affinity matrix's pairs (p2p.c).
 * What the system says (p2p_read: the IOMMU's groups and their types, the
 * kernel command line when live, the functions publishing p2pmem, the
 * nvidia_peermem module) and, pure, each pair's verdict (p2p_judge_pair):
 *	direct    the paths meet below one root port and no downstream port
 *	          between them redirects peer requests (ACS ReqRedir, CmpltRedir,
 *	          EgressCtrl off or absent): peer traffic stays in the switch
 *	via_root  the traffic crosses the host (they meet at the host bridge or
 *	          not at all, or ACS redirects it up) and the kernel's p2pdma
 *	          rule allows that: an AMD Zen or newer host, or an Intel host
 *	          bridge on the kernel's allow-list (drivers/pci/p2pdma.c)
 *	no        it crosses a host bridge that rule refuses
 *	unknown   a port between them hides its extended capabilities, or
 *	          there is no host bridge to judge by (or an AMD one of unknown age)
 * With the IOMMU translating, a pair with a GPU crossing the host cannot
 * (GPUDirect needs it off or in passthrough).
 * A pair "can" when it is direct or via_root and has somewhere to put the data that is
 * not DRAM: a drive's CMB published as p2pmem (drive and NIC), or the GPU's
 * memory (a GPU with a driver; with a NIC, GPUDirect RDMA too).
 * GPUDirect RDMA is judged from the nvidia_peermem module only: the dma-buf
 * probe (ibv_reg_dmabuf_mr) needs libibverbs, which this tool does not link.
 */
#ifndef NBW_P2P_H
#define NBW_P2P_H

#include <stdbool.h>

#include "pcitree.h"
#include "topo.h"

enum p2p_iommu { IOMMU_UNKNOWN, IOMMU_OFF, IOMMU_PASSTHROUGH, IOMMU_TRANSLATED };

struct p2p_system {
	bool known; /* read from sysfs (not a dump) */
	enum p2p_iommu iommu;
	int groups; /* IOMMU groups found */
	char iommu_reason[200];
	char cmdline[200];    /* the IOMMU words of /proc/cmdline (live only), "" none */
	int p2pmem_providers; /* functions with a p2pmem directory */
	bool peermem;	      /* the nvidia_peermem module is loaded */
	bool cpu_amd;	      /* live: the CPU is AMD's (/proc/cpuinfo) */
	unsigned cpu_family;  /* live: its family, 0 unknown */
	char gpudirect_reason[200];
};

/* "unknown", "off", "passthrough", "translated". */
const char *p2p_iommu_name(enum p2p_iommu m);
/* "direct", "via_root", "no", "unknown". */
const char *p2p_verdict_name(enum p2p_verdict v);
/* "none", "amd_zen", "allow_list", "refused", "unknown". */
const char *p2p_host_rule_name(enum p2p_host_rule h);

/*
 * Read the system's side under sysfs_root (nothing for a dump: sys->known
 * false) and each node's IOMMU group and p2pmem. live: also /proc/cmdline.
 * Unreadable parts are named in the reasons, never fatal.
 */
void p2p_read(const struct pcitree *t, bool live, struct p2p_system *sys, struct topology *tp);

/* The vendor and family of the first processor of /proc/cpuinfo's text into sys. Pure. */
void p2p_parse_cpuinfo(const char *text, struct p2p_system *sys);

/* The audit of one pair (a drive, RDMA or GPU pair that is not two of a kind). Pure. */
void p2p_judge_pair(const struct p2p_system *sys, const struct topo_node *a,
		    const struct topo_node *b, struct topo_pair *pr);

/* Audit every pair of tp that is one (p2p_judge_pair). */
void p2p_judge_all(const struct p2p_system *sys, struct topology *tp);

/*
 * --expect p2p: every drive among d[0..n) that the matrix places can move
 * data peer-to-peer with its nearest ACTIVE RDMA device (the pair's "can").
 * A drive with no ACTIVE RDMA device cannot. False if one cannot.
 */
bool p2p_expect_met(const struct topology *tp, const struct probe_dev *d, int n);

#endif
