/* SPDX-License-Identifier: MIT */
/*
 * netaddr.h: the sink's allow-list: address prefixes (CIDR) of IPv4 and
 * IPv6, and whether a peer's address falls in one. An IPv4 peer seen as an
 * IPv4-mapped IPv6 address (::ffff:a.b.c.d) matches IPv4 prefixes.
 */
#ifndef NBW_NETADDR_H
#define NBW_NETADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define NETADDR_MAX_PREFIXES 32

struct netaddr_prefix {
	int family;	  /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network order; 4 bytes used for AF_INET */
	unsigned bits;
};

/*
 * "10.0.0.0/8,192.168.1.7,fd00::/8": up to max prefixes (an address alone
 * is a /32 or /128). The count, -EINVAL (malformed; *bad names the item) or
 * -E2BIG.
 */
int netaddr_parse_list(const char *s, struct netaddr_prefix *out, int max, char *bad,
		       size_t badlen);

/* True if sa lies in one of the n prefixes. */
bool netaddr_allowed(const struct netaddr_prefix *p, int n, const struct sockaddr *sa);

/* "a.b.c.d" or an IPv6 text of sa into buf (port left out). */
const char *netaddr_text(const struct sockaddr *sa, char *buf, size_t len);

#endif
