// SPDX-License-Identifier: MIT
/* netaddr.c: CIDR prefixes and the allow-list check (see netaddr.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netaddr.h"
#include "parse.h"

/* One item "ADDR" or "ADDR/BITS". 0 or -EINVAL. */
static int parse_prefix(char *item, struct netaddr_prefix *p)
{
	char *slash = strchr(item, '/');
	unsigned long bits;
	unsigned max;

	if (slash)
		*slash = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, item, p->addr) == 1)
		p->family = AF_INET;
	else if (inet_pton(AF_INET6, item, p->addr) == 1)
		p->family = AF_INET6;
	else
		return -EINVAL;
	max = p->family == AF_INET ? 32 : 128;
	p->bits = max;
	if (slash && parse_uint(slash + 1, 0, max, &bits))
		return -EINVAL;
	if (slash)
		p->bits = (unsigned)bits;
	return 0;
}

int netaddr_parse_list(const char *s, struct netaddr_prefix *out, int max, char *bad, size_t badlen)
{
	char buf[2048], *items[NETADDR_MAX_PREFIXES], item[128];
	int n, i;

	bad[0] = '\0';
	if (!s || strlen(s) >= sizeof(buf))
		return -E2BIG;
	snprintf(buf, sizeof(buf), "%s", s);
	n = parse_list(buf, items, max < NETADDR_MAX_PREFIXES ? max : NETADDR_MAX_PREFIXES);
	if (n < 0) {
		snprintf(bad, badlen, "%s", n == -E2BIG ? "too many prefixes" : "empty item");
		return n;
	}
	for (i = 0; i < n; i++) {
		snprintf(item, sizeof(item), "%s", items[i]);
		if (strlen(items[i]) >= sizeof(item) || parse_prefix(item, &out[i])) {
			snprintf(bad, badlen, "%s", items[i]);
			return -EINVAL;
		}
	}
	return n;
}

/* The first bits of a and b are equal. */
static bool prefix_equal(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, full))
		return false;
	if (!rest)
		return true;
	return ((a[full] ^ b[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool netaddr_allowed(const struct netaddr_prefix *p, int n, const struct sockaddr *sa)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	const uint8_t *v4 = NULL, *v6 = NULL;
	int i;

	if (sa->sa_family == AF_INET) {
		v4 = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
	} else if (sa->sa_family == AF_INET6) {
		v6 = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		if (!memcmp(v6, mapped, sizeof(mapped)))
			v4 = v6 + 12;
	}
	for (i = 0; i < n; i++) {
		if (p[i].family == AF_INET && v4 && prefix_equal(p[i].addr, v4, p[i].bits))
			return true;
		if (p[i].family == AF_INET6 && v6 && prefix_equal(p[i].addr, v6, p[i].bits))
			return true;
	}
	return false;
}

const char *netaddr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a = sa->sa_family == AF_INET
				? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

	if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    !inet_ntop(sa->sa_family, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}
