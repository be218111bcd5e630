// SPDX-License-Identifier: MIT
/*
 * portsel.c: the choice that -d and -x make among the ports found
 * (ports.h): a device, device:port or netdev name per item, and a -x that a
 * chosen port has no GID at refused in one line (never another GID). Pure
 * but for fab_ports_select(), which asks fab_ports_list() for the ports.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ports.h"

const char *fab_gid_type_name(enum fab_gid_type t)
{
	return t == FAB_GID_ROCE_V2 ? "RoCE v2" : t == FAB_GID_ROCE_V1 ? "RoCE v1" : "IB";
}

void fab_gid_text(const uint8_t raw[16], char *out, size_t len)
{
	if (!inet_ntop(AF_INET6, raw, out, (socklen_t)len))
		snprintf(out, len, "?");
}

/* Does the port's GID table hold an IPv4-mapped RoCE v2 GID? */
static bool has_ipv4_v2(const struct fab_port_info *i)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	int k;

	for (k = 0; k < i->ngids; k++)
		if (i->gids[k].type == FAB_GID_ROCE_V2 && !memcmp(i->gids[k].raw, prefix, 12))
			return true;
	return false;
}

/* The refusal of -x gid_index on port i: one line into bad. */
static void gid_refusal(const struct fab_port_info *i, int gid_index, char *bad, size_t len)
{
	size_t n = 0;
	char a[64];
	int k;

#define PUT(...)                                                                                   \
	do {                                                                                       \
		int w_ = snprintf(bad + n, n < len ? len - n : 0, __VA_ARGS__);                    \
		n += w_ > 0 ? (size_t)w_ : 0;                                                      \
	} while (0)
	PUT("%s:%u: no GID with index %d (-x %d); its GIDs:", i->p.dev, i->p.port, gid_index,
	    gid_index);
	for (k = 0; k < i->ngids; k++) {
		fab_gid_text(i->gids[k].raw, a, sizeof(a));
		PUT("%s %d %s %s", k ? "," : "", i->gids[k].index,
		    fab_gid_type_name(i->gids[k].type), a);
	}
	if (!i->ngids)
		PUT(" none");
	if (i->p.link == FAB_LINK_ETH && !has_ipv4_v2(i))
		PUT("; likely cause: no IPv4 address on netdev %s (RoCE v2 GIDs that map one "
		    "appear when it gets one: ip addr add ADDR/PREFIX dev %s)",
		    i->netdev[0] ? i->netdev : "?", i->netdev[0] ? i->netdev : "NETDEV");
	else
		PUT("; pick one of these indices (default: perftest's)");
#undef PUT
}

/* Does item tok (a netdev, device or device:port) name port i? */
static bool item_names(const char *tok, const struct fab_port_info *i)
{
	const char *colon = strchr(tok, ':');
	size_t dl = colon ? (size_t)(colon - tok) : strlen(tok);

	if (i->netdev[0] && !strcmp(tok, i->netdev))
		return true;
	if (strlen(i->p.dev) != dl || strncmp(i->p.dev, tok, dl))
		return false;
	return !colon || strtoul(colon + 1, NULL, 10) == i->p.port;
}

/* The ACTIVE ports of one item into out; 0 (bad: the first without one) or -ENOENT. */
static int pick_item(const struct fab_port_info *all, int nall, const char *tok,
		     struct fab_port *out, int *n, int max, char *bad, size_t badlen)
{
	int k, found = 0, active = 0;

	for (k = 0; k < nall; k++) {
		if (!item_names(tok, &all[k]))
			continue;
		found++;
		if (all[k].p.active && *n < max) {
			out[(*n)++] = all[k].p;
			active++;
		}
	}
	if (!found)
		snprintf(bad, badlen, "%s", tok);
	else if (!active && !bad[0])
		snprintf(bad, badlen, "%s", tok);
	return found ? 0 : -ENOENT;
}

/* A -x that a chosen port (out[0..n)) has no GID at: -EADDRNOTAVAIL, bad says. */
static int check_gids(const struct fab_port_info *all, int nall, int gid_index,
		      const struct fab_port *out, int n, char *bad, size_t badlen)
{
	int k, j;

	for (j = 0; gid_index >= 0 && j < n; j++) {
		if (out[j].gid_index >= 0)
			continue;
		for (k = 0; k < nall; k++)
			if (all[k].p.port == out[j].port && !strcmp(all[k].p.dev, out[j].dev))
				gid_refusal(&all[k], gid_index, bad, badlen);
		return -EADDRNOTAVAIL;
	}
	return n;
}

int fab_ports_pick(const struct fab_port_info *all, int nall, const char *list, int gid_index,
		   struct fab_port *out, int max, char *bad, size_t badlen)
{
	char buf[1024], *save = NULL, *tok;
	int k, rc, n = 0;

	bad[0] = '\0';
	if (nall <= 0)
		return -ENODEV;
	if (!list) {
		for (k = 0; k < nall && n < max; k++)
			if (all[k].p.active)
				out[n++] = all[k].p;
		if (!n)
			snprintf(bad, badlen, "%s", all[0].p.dev);
		return n ? check_gids(all, nall, gid_index, out, n, bad, badlen) : -ENETDOWN;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		rc = pick_item(all, nall, tok, out, &n, max, bad, badlen);
		if (rc)
			return rc;
	}
	return n ? check_gids(all, nall, gid_index, out, n, bad, badlen) : -ENETDOWN;
}

int fab_ports_select(const char *list, int gid_index, struct fab_port *out, int max, char *bad,
		     size_t badlen)
{
	struct fab_port_info *all = calloc(FAB_MAX_PORTS, sizeof(*all));
	int nall, rc;

	bad[0] = '\0';
	if (!all)
		return -ENOMEM;
	nall = fab_ports_list(all, FAB_MAX_PORTS, gid_index);
	rc = nall < 0 ? nall : fab_ports_pick(all, nall, list, gid_index, out, max, bad, badlen);
	free(all);
	return rc;
}
