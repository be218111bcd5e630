/* SPDX-License-Identifier: MIT */
/*
 * ports.h: the RDMA ports as found (each with its netdev and GID table) and
 * the choice among them that -d and -x make. fab_ports_list() is the one
 * call that reads the devices (ports.c: verbs and sysfs; the fake fabric of
 * the fast tests: $NBW_FAKE_PORTS); the choice (portsel.c) is pure, so the
 * tests over the fake fabric prove the real one.
 */
#ifndef NBW_PORTS_H
#define NBW_PORTS_H

#include <stddef.h>

#include "rdma.h"

#define FAB_GIDS_MAX 16
#define FAB_NETDEV_LEN 32

enum fab_gid_type { FAB_GID_IB = 0, FAB_GID_ROCE_V1 = 1, FAB_GID_ROCE_V2 = 2 };

/* One entry of a port's GID table. */
struct fab_gid {
	int index;
	enum fab_gid_type type;
	uint8_t raw[16];
};

/* One port as found: its description, its netdev and its GID table. */
struct fab_port_info {
	struct fab_port p;	     /* p.gid_index: the asked (-x) or default GID, -1 none */
	char netdev[FAB_NETDEV_LEN]; /* "" none (InfiniBand without IPoIB) */
	int ngids;		     /* the first FAB_GIDS_MAX valid entries */
	struct fab_gid gids[FAB_GIDS_MAX];
};

/*
 * Every port of every device into out (<= max). gid_index: -x, or -1 for
 * perftest's default; a -x that names no valid GID of a port leaves its
 * p.gid_index -1 (never another GID). The count, 0 without a device, or -errno.
 */
int fab_ports_list(struct fab_port_info *out, int max, int gid_index);

/*
 * The ACTIVE ports that list names (each item a device, device:port or a
 * netdev; NULL: every ACTIVE port) among all[0..nall), into out. -ENOENT a
 * name that is none, -ENETDOWN no ACTIVE port (bad names it), -EADDRNOTAVAIL
 * a -x (gid_index >= 0) that a chosen port has no GID at (bad: the whole
 * line: the port, the index, its GIDs and the likely cause). The count.
 */
int fab_ports_pick(const struct fab_port_info *all, int nall, const char *list, int gid_index,
		   struct fab_port *out, int max, char *bad, size_t badlen);

/* "IB", "RoCE v1", "RoCE v2". */
const char *fab_gid_type_name(enum fab_gid_type t);
/* A GID as text: an IPv6 address (::ffff:10.0.0.1 for one that maps IPv4). */
void fab_gid_text(const uint8_t raw[16], char *out, size_t len);

#endif
