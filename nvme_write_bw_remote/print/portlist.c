// SPDX-License-Identifier: MIT
/*
 * portlist.c: --list-ports, every RDMA port as ibdev2netdev and show_gids
 * show them: device, port, state, link layer, netdev, NUMA node, rate and
 * its GID table (index, type, GID), text and JSON from the same calls.
 */
#include <stdio.h>

#include "printer.h"
#include "provenance.h"

/* One port's GID table: a line each in text, "gids" in JSON. */
static void print_gids(struct report *r, const struct fab_port_info *i)
{
	char a[64];
	int k;

	report_arr_begin(r, "gids");
	for (k = 0; k < i->ngids; k++) {
		fab_gid_text(i->gids[k].raw, a, sizeof(a));
		report_obj_begin(r, NULL);
		report_i64(r, "index", "     GID %-3lld", i->gids[k].index);
		report_str(r, "type", " %-8s", fab_gid_type_name(i->gids[k].type));
		report_str(r, "gid", " %s\n", a);
		report_obj_end(r);
	}
	report_arr_end(r);
}

/* One port: its line, then its GIDs. */
static void print_one(struct report *r, const struct fab_port_info *i)
{
	const struct fab_port *p = &i->p;

	report_obj_begin(r, NULL);
	report_str(r, "device", " %-12s", p->dev);
	report_u64(r, "port", " %-4llu", p->port);
	report_str(r, "port_state", " %-6s", p->active ? "ACTIVE" : "DOWN");
	report_str(r, "link_layer", " %-10s", p->link_layer);
	report_str(r, "netdev", " %-12s", i->netdev[0] ? i->netdev : NULL);
	if (p->numa_node >= 0)
		report_i64(r, "numa_node", " %-4lld", p->numa_node);
	else
		report_null(r, "numa_node", " %-4s");
	if (p->active && p->rate_gbits > 0 && !p->software)
		report_double(r, "rate_gbits", " %g Gb/s", p->rate_gbits);
	else
		report_null(r, "rate_gbits", " %s");
	report_i64(r, "gid_index", NULL, p->gid_index);
	report_text(r, "\n");
	print_gids(r, i);
	report_obj_end(r);
}

void print_port_list(struct report *r, const struct provenance *prov,
		     const struct fab_port_info *all, int n)
{
	int k;

	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "role", NULL, "ports");
	prov_text_line(r, prov);
	report_text(r, " %-12s %-4s %-6s %-10s %-12s %-4s %s\n", "device", "port", "state", "link",
		    "netdev", "numa", "rate");
	report_arr_begin(r, "ports");
	for (k = 0; k < n; k++)
		print_one(r, &all[k]);
	report_arr_end(r);
	if (!n)
		report_text(r, " (no RDMA port)\n");
	prov_report(r, prov);
	report_obj_end(r);
	report_finish(r);
}
