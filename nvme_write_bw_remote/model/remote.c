// SPDX-License-Identifier: MIT
/*
 * remote.c: what the sink and the source of nvme_write_bw_remote share: RDMA
 * port selection and the windows' arithmetic (the waits are waits.c's) (the meeting is
 * base's line.h). It calls only the layers, never back into the roles or main.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "ports.h"
#include "remote.h"
#include "sysfs.h"
#include "timing.h"
#include "window.h"

uint32_t remote_share(const struct options *o)
{
	if (o->sink.max_per_source)
		return o->sink.max_per_source;
	return o->sink.sources > 1 ? MAX_WORKERS / o->sink.sources : 0;
}

int remote_select_ports(const struct options *o, struct fab_port *ports)
{
	char bad[1024];
	int i, n = fab_ports_select(o->devs, o->gid_index, ports, FAB_MAX_PORTS, bad, sizeof(bad));

	if (n == -ENODEV)
		nbw_err("no RDMA device found (for Soft-RoCE: rdma link add rxe0 type rxe netdev "
			"IFACE)");
	else if (n == -ENOENT)
		nbw_err("%s: no such RDMA device or port", bad);
	else if (n == -ENETDOWN)
		nbw_err("%s: no ACTIVE port", bad);
	else if (n == -EADDRNOTAVAIL)
		nbw_err("%s", bad); /* -x names no GID there: a usage error */
	else if (n < 0)
		nbw_err("RDMA devices: %s", strerror(-n));
	if (!o->devs && n > REMOTE_MANY_PORTS)
		nbw_warn("%d ACTIVE RDMA ports (VFs?): using all %d; pick with -d DEV[:PORT] or "
			 "-d NETDEV, comma-separated (--list-ports lists them)",
			 n, n);
	for (i = 0; o->prov && i < n; i++)
		prov_add_rdma(o->prov, o->cc.sysfs_root, ports[i].dev, ports[i].port);
	return n == -EADDRNOTAVAIL ? -NBW_EXIT_USAGE : n < 0 ? -1 : n;
}

int remote_list_ports(const struct options *o, struct fab_port_info *out, int max)
{
	int n = fab_ports_list(out, max, o->gid_index);

	if (n < 0)
		nbw_err("RDMA devices: %s", strerror(-n));
	return n < 0 ? -1 : n;
}

int remote_targets(const struct options *o, const struct target_query *q, struct target *t, int *nt)
{
	struct target_query mine = *q;
	struct target_err e;
	int n;

	mine.sysfs_root = o->cc.sysfs_root;
	mine.list = o->disks;
	n = target_collect(&mine, t, &e);
	if (n < 0)
		return nbw_say_err(e.usage, e.msg);
	*nt = n;
	target_provenance(t, n, o->cc.sysfs_root, o->prov);
	if (target_prepare(t, n, o->chunk, o->span, o->threads, &e))
		return nbw_say_err(e.usage, e.msg);
	return 0;
}

double rail_line_rate(const struct fab_port *a, const struct fab_port *b)
{
	if (a->software || b->software || a->rate_gbits <= 0 || b->rate_gbits <= 0)
		return 0;
	return a->rate_gbits < b->rate_gbits ? a->rate_gbits : b->rate_gbits;
}

int all_sizes_count(unsigned kind)
{
	return kind == CTRL_SOURCE_MEM ? ALL_SIZES_MAX : 7;
}

uint64_t all_sizes_chunk(unsigned kind, int i)
{
	if (i < 0 || i >= all_sizes_count(kind))
		return 0;
	return kind == CTRL_SOURCE_MEM ? 2ULL << i : (64ULL << 10) << i;
}

enum ctrl_verify all_sizes_verify(enum ctrl_verify asked, uint64_t chunk)
{
	return chunk % DIGEST_BLOCK ? CTRL_VERIFY_OFF : asked;
}

double rails_line_gbits(const struct rail *rails, int n)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (rails[i].line_rate_gbits <= 0)
			return 0;
		sum += rails[i].line_rate_gbits;
	}
	return sum;
}

struct ctr_set *remote_counters_read(const struct options *o, const struct fab_port *ports, int n)
{
	struct ctr_set *s = calloc(n > 0 ? (size_t)n : 1, sizeof(*s));
	int i;

	for (i = 0; s && i < n; i++)
		fab_port_counters(&ports[i], o->cc.sysfs_root, &s[i]); /* none: s[i].n = 0 */
	return s;
}

int remote_counters_delta(const struct options *o, const struct fab_port *ports, int n,
			  const struct ctr_set *before, double seconds, struct ctr_deltas **out,
			  int *nout)
{
	struct ctr_set *now = remote_counters_read(o, ports, n);
	struct ctr_deltas *d = n > 0 ? calloc((size_t)n, sizeof(*d)) : NULL;
	int i;

	free(*out);
	*out = NULL;
	*nout = 0;
	if (!now || (n > 0 && !d)) {
		free(now);
		free(d);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ctr_deltas(&before[i], &now[i], &d[i]);
		snprintf(d[i].dev, sizeof(d[i].dev), "%s", ports[i].dev);
		d[i].port = ports[i].port;
		d[i].seconds = seconds;
	}
	free(now);
	*out = d;
	*nout = n;
	return 0;
}

struct linkload *remote_watch(const struct options *o, const struct target *t, int nt,
			      const struct fab_port *ports, int n)
{
	const char *root = o->cc.sysfs_root ? o->cc.sysfs_root : "/sys";
	struct linkload *ll = linkload_new();
	char dir[PATH_MAX], bdf[64];
	int i;

	for (i = 0; ll && i < nt; i++)
		if (t[i].d.bdf[0])
			linkload_add(ll, root, t[i].d.name, "nvme", t[i].d.bdf);
	/* "device" names the NIC's PCI function; rxe has none, and a name not a PCI address is
	 * refused */
	for (i = 0; ll && i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/class/infiniband/%s", root, ports[i].dev);
		if (!sysfs_link_basename(dir, "device", bdf, sizeof(bdf)))
			linkload_add(ll, root, ports[i].dev, "rdma", bdf);
	}
	return ll;
}
