/* SPDX-License-Identifier: MIT */
/*
 * remote.h: what the sink and the source share (remote.c): a source's
 * share of workers, the RDMA ports and drives the options name, the rails'
 * line rates (their waits: waits.h). In model/ because both roles call it
 * and a role never calls the other.
 */
#ifndef NBW_REMOTE_H
#define NBW_REMOTE_H

#include <stdint.h>

#include "linkload.h"
#include "options.h"

/* The workers one source may have: --max-workers-per-source, else an even split, else 0 (all). */
uint32_t remote_share(const struct options *o);

/*
 * The RDMA ports of -d (or every ACTIVE one; more than REMOTE_MANY_PORTS of
 * them said in a warning): the count, or after one error line -1, or
 * -NBW_EXIT_USAGE when -x names no GID of a chosen port.
 */
#define REMOTE_MANY_PORTS 8
int remote_select_ports(const struct options *o, struct fab_port *ports);

struct fab_port_info;
/* Every port (--list-ports; -x's GID marked): the count, 0 none, or -1 after one error line. */
int remote_list_ports(const struct options *o, struct fab_port_info *out, int max);

/*
 * The drives of --disks (or --local-disks: option names it), or those found:
 * collected, checked against -s, --span and --threads, opened read-only into
 * t[*nt]. 0, or an exit status after the message.
 */
int remote_targets(const struct options *o, const struct target_query *q, struct target *t,
		   int *nt);

/*
 * The counters of ports[0..n) now (fab_port_counters under --sysfs-root)
 * into a new array of n sets; NULL when out of memory.
 */
struct ctr_set *remote_counters_read(const struct options *o, const struct fab_port *ports, int n);
/*
 * Each port's deltas from before (remote_counters_read's) to now, over
 * seconds, into a new array *out of n (what *out held is freed). 0 or -ENOMEM.
 */
int remote_counters_delta(const struct options *o, const struct fab_port *ports, int n,
			  const struct ctr_set *before, double seconds, struct ctr_deltas **out,
			  int *nout);

/*
 * -a's message sizes, powers of two, by the source's kind (enum ctrl_source,
 * carried in HELLO): a memory source from 2 bytes to 8 MiB (ib_write_bw -a's
 * range), a source with drives from 64 KiB to 4 MiB (what O_DIRECT reads).
 * The count, and the i-th size (0 past the end).
 */
#define ALL_SIZES_MAX 23
int all_sizes_count(unsigned kind);
uint64_t all_sizes_chunk(unsigned kind, int i);
/* The verification a run of chunk can have: none below a whole digest block (4 KiB). */
enum ctrl_verify all_sizes_verify(enum ctrl_verify asked, uint64_t chunk);

/*
 * A watch of the PCIe links and AER counts (linkload.h) of the drives
 * t[0..nt) and of the PCI functions behind ports[0..n) (a software port,
 * Soft-RoCE's, has none), under --sysfs-root; NULL when out of memory.
 */
struct linkload *remote_watch(const struct options *o, const struct target *t, int nt,
			      const struct fab_port *ports, int n);

/* The rails' line rates added up, Gb/s; 0 when one of them is unknown. */
double rails_line_gbits(const struct rail *rails, int n);

/* The line rate (Gb/s) a rail between a and b can carry: the slower's; 0 unknown. */
double rail_line_rate(const struct fab_port *a, const struct fab_port *b);

#endif
