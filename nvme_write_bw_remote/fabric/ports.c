// SPDX-License-Identifier: MIT
/*
 * ports.c: RDMA ports as verbs and sysfs show them (ports.h; portsel.c
 * chooses among them for -d and -x): state, link layer, NUMA node, line
 * rate, netdev, GID table, the GID the QPs use (perftest's meaning of -x),
 * the port's IPv4 address and subnet, and which local port can reach which
 * remote one (see rdma.h).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ports.h"
#include "rdma.h"
#include "sysfs.h"

#define GID_SCAN_MAX 256

/* IPv4 from an IPv4-mapped GID (::ffff:a.b.c.d), as RoCE uses. */
static bool gid_ipv4(const union ibv_gid *g, char *out, size_t len)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (memcmp(g->raw, prefix, sizeof(prefix)))
		return false;
	return inet_ntop(AF_INET, g->raw + 12, out, (socklen_t)len) != NULL;
}

/* The prefix length of the local interface that holds IPv4 addr; 0 if none does. */
static uint8_t addr_prefix_len(const char *addr)
{
	struct ifaddrs *ifs, *i;
	struct in_addr want;
	uint8_t bits = 0;

	if (inet_pton(AF_INET, addr, &want) != 1 || getifaddrs(&ifs))
		return 0;
	for (i = ifs; i; i = i->ifa_next) {
		const struct sockaddr_in *a = (const void *)i->ifa_addr;
		const struct sockaddr_in *m = (const void *)i->ifa_netmask;

		if (!a || !m || a->sin_family != AF_INET || a->sin_addr.s_addr != want.s_addr)
			continue;
		bits = (uint8_t)__builtin_popcount(m->sin_addr.s_addr);
		break;
	}
	freeifaddrs(ifs);
	return bits;
}

/* The IPv4 address of netdev name (IPoIB, or the NIC under RoCE), "" if it has none. */
static void netdev_ipv4(const char *name, char *out, size_t len)
{
	struct ifaddrs *ifs, *i;

	out[0] = '\0';
	if (getifaddrs(&ifs))
		return;
	for (i = ifs; i && !out[0]; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !strcmp(i->ifa_name, name))
			inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out,
				  (socklen_t)len);
	freeifaddrs(ifs);
}

/*
 * perftest's default GID: 0 on InfiniBand; on RoCE the v2 GID that holds an
 * IPv4 address, else any v2 GID (an Ethernet rail without addresses: its
 * link-local one), else any IPv4 one, else 0.
 */
static int default_gid(struct ibv_context *ctx, uint8_t port, const struct ibv_port_attr *pa)
{
	int i, v2 = -1, v4 = -1,
	       last = pa->gid_tbl_len < GID_SCAN_MAX ? pa->gid_tbl_len : GID_SCAN_MAX;
	char a[FAB_ADDR_LEN];

	if (pa->link_layer != IBV_LINK_LAYER_ETHERNET)
		return 0;
	for (i = 0; i < last; i++) {
		struct ibv_gid_entry e;
		bool ipv4;

		if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0))
			continue;
		ipv4 = gid_ipv4((const union ibv_gid *)&e.gid, a, sizeof(a));
		if (ipv4 && e.gid_type == IBV_GID_TYPE_ROCE_V2)
			return i;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && v2 < 0)
			v2 = i;
		if (ipv4 && v4 < 0)
			v4 = i;
	}
	return v2 >= 0 ? v2 : v4 >= 0 ? v4 : 0;
}

/* The GID the QPs use, and the port's IPv4 address and subnet. */
static void port_gid(struct ibv_context *ctx, const struct ibv_port_attr *pa, int gid_index,
		     struct fab_port *p)
{
	char dir[PATH_MAX], ndev[64], idx[32];
	union ibv_gid g;

	static const uint8_t zero[16];

	p->gid_index = gid_index >= 0 ? gid_index : default_gid(ctx, p->port, pa);
	if (p->gid_index >= pa->gid_tbl_len || ibv_query_gid(ctx, p->port, p->gid_index, &g) ||
	    !memcmp(g.raw, zero, sizeof(zero))) {
		p->gid_index = -1; /* none there: refused by the choice (portsel.c) */
		return;
	}
	memcpy(p->gid, g.raw, sizeof(p->gid));
	if (!gid_ipv4(&g, p->addr, sizeof(p->addr))) {
		/* IPoIB (or a RoCE GID without IPv4): the netdev behind the GID. */
		snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs",
			 p->dev, p->port);
		snprintf(idx, sizeof(idx), "%d", p->gid_index);
		if (!sysfs_read_attr(dir, idx, ndev, sizeof(ndev)) && ndev[0])
			netdev_ipv4(ndev, p->addr, sizeof(p->addr));
	}
	if (p->addr[0])
		p->prefix_len = addr_prefix_len(p->addr);
}

/*
 * Data rate of an active port in Gb/s: lanes x the per-lane data rate of
 * ibv_port_attr's speed code (SDR..QDR after 8b/10b; FDR10 and up nominal:
 * 4x EDR = 100, 4x HDR = 200, 4x NDR = 400).
 */
static double port_rate_gbits(const struct ibv_port_attr *pa)
{
	static const struct {
		unsigned code;
		double gbits;
	} lane[] = {
		{1, 2.0},   {2, 4.0},	{4, 8.0},     {8, 10.0},    {16, 13.64},
		{32, 25.0}, {64, 50.0}, {128, 100.0}, {256, 200.0},
	};
	static const struct {
		unsigned code, lanes;
	} width[] = {{1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2}};
	double per_lane = 0;
	unsigned lanes = 0;
	size_t i;

	for (i = 0; i < sizeof(lane) / sizeof(lane[0]); i++)
		if (lane[i].code == pa->active_speed)
			per_lane = lane[i].gbits;
	for (i = 0; i < sizeof(width) / sizeof(width[0]); i++)
		if (width[i].code == pa->active_width)
			lanes = width[i].lanes;
	return pa->state == IBV_PORT_ACTIVE ? per_lane * lanes : 0;
}

/* The device's "device" link names a PCI function (0000:01:00.0), not a netdev or nothing. */
static bool backed_by_pci(const char *dev)
{
	char dir[PATH_MAX], base[64];

	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s", dev);
	if (sysfs_link_basename(dir, "device", base, sizeof(base)))
		return false;
	return strlen(base) == 12 && base[4] == ':' && base[7] == ':' && base[10] == '.';
}

/* The valid entries of the port's GID table (the first FAB_GIDS_MAX). */
static void port_gid_table(struct ibv_context *ctx, const struct ibv_port_attr *pa,
			   struct fab_port_info *o)
{
	int i, last = pa->gid_tbl_len < GID_SCAN_MAX ? pa->gid_tbl_len : GID_SCAN_MAX;

	for (i = 0; i < last && o->ngids < FAB_GIDS_MAX; i++) {
		struct ibv_gid_entry e;
		struct fab_gid *g = &o->gids[o->ngids];

		if (ibv_query_gid_ex(ctx, o->p.port, (uint32_t)i, &e, 0))
			continue;
		g->index = i;
		g->type = e.gid_type == IBV_GID_TYPE_ROCE_V2   ? FAB_GID_ROCE_V2
			  : e.gid_type == IBV_GID_TYPE_ROCE_V1 ? FAB_GID_ROCE_V1
							       : FAB_GID_IB;
		memcpy(g->raw, e.gid.raw, sizeof(g->raw));
		o->ngids++;
	}
}

/* The netdev of the port: its first GID's (gid_attrs/ndevs), else the device's first. */
static void port_netdev(struct fab_port_info *o)
{
	char dir[PATH_MAX], idx[16];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs", o->p.dev,
		 o->p.port);
	if (o->ngids) {
		snprintf(idx, sizeof(idx), "%d", o->gids[0].index);
		if (!sysfs_read_attr(dir, idx, o->netdev, sizeof(o->netdev)) && o->netdev[0])
			return;
	}
	o->netdev[0] = '\0';
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/device/net", o->p.dev);
	d = opendir(dir);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && !o->netdev[0])
			snprintf(o->netdev, sizeof(o->netdev), "%s", e->d_name);
	if (d)
		closedir(d);
}

/* One port's description from its attributes. */
static void port_fill(struct ibv_context *ctx, const char *dev, uint8_t port,
		      const struct ibv_port_attr *pa, int numa, int gid_index,
		      struct fab_port_info *info)
{
	struct fab_port *o = &info->p;

	memset(info, 0, sizeof(*info));
	snprintf(o->dev, sizeof(o->dev), "%s", dev);
	o->port = port;
	o->active = pa->state == IBV_PORT_ACTIVE;
	o->link = pa->link_layer == IBV_LINK_LAYER_ETHERNET ? FAB_LINK_ETH : FAB_LINK_IB;
	o->link_layer = o->link == FAB_LINK_ETH ? "Ethernet" : "InfiniBand";
	o->numa_node = numa;
	o->lid = pa->lid;
	o->active_mtu = (uint8_t)pa->active_mtu;
	o->rate_gbits = port_rate_gbits(pa);
	o->software = !backed_by_pci(dev);
	port_gid(ctx, pa, gid_index, o);
	port_gid_table(ctx, pa, info);
	port_netdev(info);
}

/* The ports of one device into out; the count added. */
static int device_ports(struct ibv_device *d, int gid_index, struct fab_port_info *out, int max)
{
	struct ibv_context *ctx = ibv_open_device(d);
	struct ibv_device_attr da;
	char dir[PATH_MAX], val[32];
	int numa = -1, n = 0;
	uint8_t p;

	if (!ctx)
		return 0;
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/device", ibv_get_device_name(d));
	if (!sysfs_read_attr(dir, "numa_node", val, sizeof(val)))
		numa = atoi(val);
	if (!ibv_query_device(ctx, &da)) {
		for (p = 1; p <= da.phys_port_cnt && n < max; p++) {
			struct ibv_port_attr pa;

			if (!ibv_query_port(ctx, p, &pa))
				port_fill(ctx, ibv_get_device_name(d), p, &pa, numa, gid_index,
					  &out[n++]);
		}
	}
	ibv_close_device(ctx);
	return n;
}

int fab_ports_list(struct fab_port_info *out, int max, int gid_index)
{
	struct ibv_device **list;
	int ndev, i, n = 0;

	list = ibv_get_device_list(&ndev);
	if (!list)
		return errno == ENOSYS ? 0 : -errno;
	for (i = 0; i < ndev && n < max; i++)
		n += device_ports(list[i], gid_index, out + n, max - n);
	ibv_free_device_list(list);
	return n;
}

/* The first bits of two IPv4 addresses (text) are equal. */
static bool same_subnet(const char *a, const char *b, unsigned bits)
{
	struct in_addr x, y;
	uint32_t mask;

	if (inet_pton(AF_INET, a, &x) != 1 || inet_pton(AF_INET, b, &y) != 1)
		return false;
	mask = bits >= 32 ? 0xffffffffu : bits ? ~(0xffffffffu >> bits) : 0;
	return (ntohl(x.s_addr) & mask) == (ntohl(y.s_addr) & mask);
}

bool fab_ports_reachable(const struct fab_port *a, int a_index, const struct fab_port *b,
			 int b_index)
{
	if (a->link != b->link)
		return false;
	if (a->addr[0] && b->addr[0] && a->prefix_len)
		return same_subnet(a->addr, b->addr, a->prefix_len);
	return a_index == b_index;
}

int fab_port_counters(const struct fab_port *p, const char *sysfs_root, struct ctr_set *s)
{
	return ctr_read(sysfs_root, p->dev, p->port, s);
}
