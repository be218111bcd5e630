/* SPDX-License-Identifier: MIT */
/*
 * topo.h: the affinity matrix, --topology (topo.c). Its nodes are the
 * drives, the RDMA devices (a software one through the network interface it
 * runs over) and the GPUs; each pair gets the relation nvidia-smi topo -m
 * names, the narrowest link between the two, and each drive its nearest
 * ACTIVE RDMA device. The relations are common/pci/pcitopo.h's
 * (documented in nvme_link_probe(1)).
 * The relation and the narrowest link are pure functions of the paths
 * (topo_relate); only topo_build() reads the tree.
 */
#ifndef NBW_TOPO_H
#define NBW_TOPO_H

#include <stdbool.h>

#include "pcitopo.h"
#include "pcitree.h"
#include "probe.h"

#define TOPO_MAX_NODES 128

enum topo_kind { TOPO_NVME, TOPO_RDMA, TOPO_GPU };
/* "nvme", "rdma", "gpu". */
const char *topo_kind_name(enum topo_kind k);

struct topo_node {
	enum topo_kind kind;
	char name[64];	  /* nvme0, mlx5_0, rxe0; a GPU: its BDF */
	char bdf[16];	  /* the PCI function (a software RDMA device: its carrier's) */
	char via[32];	  /* a software RDMA device: the network interface it runs over */
	char driver[32];  /* "" none bound (GPUs), or unknown (a dump) */
	int numa_node;	  /* -1 unknown */
	int ports_active; /* RDMA: ACTIVE ports, -1 unknown; others 0 */
	const struct pcie_fn *fn;
	struct pcie_path path;		   /* judged: hops up to the root port, links */
	char host[16];			   /* the root complex: "DDDD:BB" of the top hop's bus */
	const struct pcie_fn *host_bridge; /* function 00.0 of that bus, NULL none */
	/* What the peer-to-peer audit reads of it (p2p.c). */
	int iommu_group;     /* -1 none or unknown */
	char iommu_type[16]; /* the group's type: identity, DMA, DMA-FQ; "" unknown */
	long long p2pmem;    /* bytes of peer memory it publishes (p2pmem/size), -1 none */
	bool p2pmem_published;
};

/* The peer-to-peer verdict of a pair (p2p.c). */
enum p2p_verdict { P2P_DIRECT, P2P_VIA_ROOT, P2P_NO, P2P_UNKNOWN };
/* Which of p2pdma's host-bridge rules judged a pair whose traffic crosses one (p2p.c). */
enum p2p_host_rule {
	HOST_RULE_NONE,	      /* the traffic stays below one root port */
	HOST_RULE_AMD_ZEN,    /* an AMD Zen (family 17h) or newer host: allowed */
	HOST_RULE_ALLOW_LIST, /* an Intel host bridge on the kernel's allow-list */
	HOST_RULE_REFUSED,    /* a host bridge the kernel does not allow */
	HOST_RULE_UNKNOWN,    /* no host bridge to judge by, or an AMD one of unknown age */
};

struct topo_pair {
	int a, b;		/* node indices, a < b */
	struct pcie_relation r; /* relation, meeting point, narrowest link (pcitopo.h) */
	/* The peer-to-peer audit of a (drive, RDMA), (drive, GPU), (RDMA, GPU) or (GPU, GPU) pair.
	 */
	bool audited;
	enum p2p_verdict p2p;
	bool memory;	   /* somewhere to put the data without DRAM (p2pmem, GPU memory) */
	bool can;	   /* direct and memory (and GPUDirect for an RDMA-GPU pair) */
	char acs[200];	   /* the ports between them whose ACS redirects, or why unknown */
	char acs_fix[400]; /* how to clear that redirection, "" none */
	enum p2p_host_rule host_rule; /* the kernel's rule for the host bridges it crosses */
	char reason[400];
};

struct topology {
	struct topo_node *node;
	int n;
	bool truncated;		/* more than TOPO_MAX_NODES devices */
	struct topo_pair *pair; /* every pair, a < b, in order */
	int npairs;
	/* Per node: its nearest ACTIVE RDMA node (drives), -1 none; those as near. */
	int nearest[TOPO_MAX_NODES];
	unsigned char tied[TOPO_MAX_NODES][TOPO_MAX_NODES];
	char not_placed[512]; /* devices with no PCI function to place, by name */
};

/* The pair of nodes i and j (either order). */
const struct topo_pair *topo_pair_of(const struct topology *tp, int i, int j);

/* The node named name (or at that BDF), -1 none. */
int topo_node_named(const struct topology *tp, const char *name);

/*
 * For every drive, the nearest node of kind RDMA with an ACTIVE port:
 * nearest relation first, then the wider narrowest link, then the order of
 * the nodes; tied[] marks the RDMA nodes of the same relation. Pure.
 */
void topo_nearest(struct topology *tp);

/*
 * Build the matrix of the devices d[0..n) with a PCI function (a software
 * RDMA device through carrier_bdf) and every GPU of t (class 0x0302, or
 * 0x0300 from NVIDIA or AMD), relate every pair and find the nearest RDMA
 * nodes. 0 or -ENOMEM.
 */
int topo_build(const struct pcitree *t, const struct probe_dev *d, int n, struct topology *tp);
void topo_free(struct topology *tp);

#endif
