// SPDX-License-Identifier: MIT
/*
 * test_affinity: the source's rails by affinity (source/affinity.c,
 * source/rails.c). Without arguments: rails_assign() pins a worker to the
 * ports of its mask, falls back to the NUMA rule without one, and
 * affinity_plan() falls back to numa (and says why) when the tree cannot
 * place the drives. With SYSFS_ROOT BDF...: prints, per drive BDF, the mode,
 * the relation and the ports affinity_plan() prefers among mlx5_0, mlx5_1 and
 * rxe0 (the ACTIVE ports of gen.py's topology tree), for tests/remote/affinity.sh
 * to hold against nvme_link_probe --topology.
 */
#include <stdio.h>
#include <string.h>

#include "affinity.h"
#include "check.h"
#include "pcitopo.h"
#include "rails.h"

static void port(struct fab_port *p, const char *dev, int node, const char *addr)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->port = 1;
	p->active = true;
	p->link = FAB_LINK_ETH;
	p->link_layer = "Ethernet";
	p->numa_node = node;
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	p->prefix_len = 24;
}

static void test_rails_masks(void)
{
	struct fab_port src[3];
	struct ctrl_port sink = {.dev = "sink0",
				 .port = 1,
				 .link = 2,
				 .addr = "10.0.0.9",
				 .prefix_len = 24,
				 .numa_node = 0};
	int nodes[3] = {0, 1, 0};
	uint64_t masks[3] = {1u << 1, 0, 1u << 2};
	struct rail_pick pick[3];
	char why[256] = "";

	port(&src[0], "mlx5_0", 0, "10.0.0.1");
	port(&src[1], "mlx5_1", 1, "10.0.0.2");
	port(&src[2], "mlx5_2", 1, "10.0.0.3");
	CHECK(rails_assign(src, 3, &sink, 1, false, nodes, masks, 3, pick, why, sizeof(why)) == 0);
	CHECK_U64(pick[0].src, 1);		/* its mask, though its drive is on node 0 */
	CHECK(src[pick[1].src].numa_node == 1); /* no mask: the NUMA rule, a node-1 port */
	CHECK_U64(pick[2].src, 2);		/* its mask */
	CHECK(rails_assign(src, 3, &sink, 1, false, nodes, NULL, 3, pick, why, sizeof(why)) == 0);
	CHECK_U64(pick[0].src, 0); /* NUMA: node 0 has mlx5_0 alone */
	CHECK_U64(pick[2].src, 0);
}

static void test_fallback(void)
{
	struct fab_port src[1];
	struct target t[1];
	struct affinity_plan plan;

	port(&src[0], "mlx5_0", 0, "");
	memset(t, 0, sizeof(t));
	snprintf(t[0].d.name, sizeof(t[0].d.name), "file0");
	affinity_plan("/nonexistent-sysfs", false, RAIL_AFF_PCIE, src, 1, t, 1, &plan);
	CHECK_STR(rail_affinity_name(plan.mode), "numa");
	CHECK(strstr(plan.why, "pcie not possible: the PCI tree is not readable") != NULL);
	CHECK_U64(plan.mask[0], 0);
	affinity_plan("/nonexistent-sysfs", true, RAIL_AFF_NONE, src, 1, t, 1, &plan);
	CHECK_STR(rail_affinity_name(plan.mode), "none");
	CHECK_U64(plan.mask[0], 1);
}

static int print_plan(const char *root, int n, char **bdf)
{
	static const char *const devs[] = {"mlx5_0", "mlx5_1", "rxe0"};
	struct fab_port src[3];
	struct target t[TARGET_MAX];
	struct affinity_plan plan;
	int i, j;

	for (j = 0; j < 3; j++)
		port(&src[j], devs[j], -1, "");
	memset(t, 0, sizeof(t));
	for (i = 0; i < n && i < TARGET_MAX; i++) {
		snprintf(t[i].d.bdf, sizeof(t[i].d.bdf), "%s", bdf[i]);
		snprintf(t[i].d.name, sizeof(t[i].d.name), "%s", bdf[i]);
	}
	affinity_plan(root, false, RAIL_AFF_NUMA, src, 3, t, i, &plan);
	for (i = 0; i < n && i < TARGET_MAX; i++) {
		printf("%s %s %s", bdf[i], rail_affinity_name(plan.mode),
		       plan.rel[i] >= 0 ? pcie_rel_name((enum pcie_rel)plan.rel[i]) : "-");
		for (j = 0; j < 3; j++)
			if (plan.mask[i] & (1u << j))
				printf(" %s", devs[j]);
		printf("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2)
		return print_plan(argv[1], argc - 2, argv + 2);
	test_rails_masks();
	test_fallback();
	return check_done("test_affinity");
}
