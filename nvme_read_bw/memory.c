// SPDX-License-Identifier: MIT
/*
 * memory.c: nvme_read_bw --memory, the staging memory's rung. For each NUMA
 * node the readers' buffers would live on (the drives' nodes with --numa
 * auto, node N with --numa N, none with --numa off) the memory stream runs
 * with the readers' count (threads per drive x the node's drives) and their
 * buffers (chunk x depth each): every byte written once and read once, as a
 * drive's DMA and a NIC use staging DRAM. Its table: staged GB/s, the DRAM
 * traffic (twice that) and the memory's ceiling where sysfs tells it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "membw.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "provenance.h"
#include "read_bw.h"
#include "sweep.h"
#include "sysfs.h"
#include "watchdog.h"

#define MEM_NODES_MAX 64

struct mem_node {
	int node;	 /* -1: not pinned */
	unsigned drives; /* of the targets, on this node */
};

/* The nodes to measure and each one's drives; the count. */
static int memory_nodes(const struct options *o, const struct target *t, int n, struct mem_node *m)
{
	int i, j, k = 0, node;

	if (o->numa_policy != PLACEMENT_AUTO || !n) {
		node = placement_policy_node(o->numa_policy, -1);
		/* one node: the buffers are on it whatever the policy */
		m[0] = (struct mem_node){node < 0 && placement_nodes() == 1 ? 0 : node, n ? n : 1};
		return 1;
	}
	for (i = 0; i < n; i++) {
		node = placement_policy_node(o->numa_policy, t[i].d.numa_node);
		if (node < 0 && placement_nodes() == 1)
			node = 0;
		for (j = 0; j < k && m[j].node != node; j++)
			;
		if (j == k && k < MEM_NODES_MAX)
			m[k++] = (struct mem_node){node, 0};
		if (j < k)
			m[j].drives++;
	}
	return k;
}

/* CPUs in a kernel cpu list ("0-3,8"), 0 if it does not parse. */
static unsigned cpulist_count(const char *s)
{
	unsigned n = 0;
	unsigned long a, b;
	char *end;

	while (*s && *s != '\n') {
		a = strtoul(s, &end, 10);
		if (end == s)
			return 0;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return 0;
		}
		n += b - a + 1;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/*
 * The last-level cache under sysfs_root (NULL: "/sys"): cpu0's highest level
 * of data or unified cache (cache/index*: level, type, size), times its
 * instances (the online CPUs over those sharing it, shared_cpu_list); c->known
 * false and MEM_LLC_ASSUMED when sysfs does not say it.
 */
static void llc_read(const char *sysfs_root, struct mem_cache *c)
{
	char dir[512], buf[256], *end;
	unsigned long long v;
	unsigned level, shared = 0, online = 0;
	int i;

	*c = (struct mem_cache){.total = MEM_LLC_ASSUMED};
	for (i = 0; i < 16; i++) {
		snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu0/cache/index%d",
			 sysfs_root ? sysfs_root : "/sys", i);
		if (sysfs_read_attr(dir, "size", buf, sizeof(buf)))
			continue;
		v = strtoull(buf, &end, 10);
		v *= *end == 'K'   ? 1024ULL
		     : *end == 'M' ? 1048576ULL
		     : *end == 'G' ? 1ULL << 30
				   : 1;
		if (!v || sysfs_read_attr(dir, "level", buf, sizeof(buf)))
			continue;
		level = (unsigned)strtoul(buf, NULL, 10);
		if (!sysfs_read_attr(dir, "type", buf, sizeof(buf)) &&
		    !strncmp(buf, "Instruction", 11))
			continue;
		if (level < c->level)
			continue;
		c->level = level;
		c->each = v;
		shared = sysfs_read_attr(dir, "shared_cpu_list", buf, sizeof(buf))
				 ? 0
				 : cpulist_count(buf);
	}
	if (!c->each)
		return;
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu", sysfs_root ? sysfs_root : "/sys");
	if (!sysfs_read_attr(dir, "online", buf, sizeof(buf)))
		online = cpulist_count(buf);
	c->instances = shared && online > shared ? (online + shared - 1) / shared : 1;
	c->total = c->each * c->instances;
	c->known = true;
}

/* Each of threads' buffers: whole chunks, together past the caches, at least chunk x depth. */
static uint64_t mem_buf_bytes(const struct options *o, const struct mem_cache *c, uint64_t threads)
{
	uint64_t want = MEM_CACHE_FACTOR * c->total, each;

	if (want > MEM_WORKING_SET_MAX)
		want = MEM_WORKING_SET_MAX;
	each = (want + threads - 1) / threads;
	each = (each + o->chunk - 1) / o->chunk * o->chunk;
	return each > o->chunk * o->depth ? each : o->chunk * o->depth;
}

void memory_plan(struct options *o, int n)
{
	llc_read(o->cc.sysfs_root, &o->mem_cache);
	o->mem_buf_bytes = mem_buf_bytes(o, &o->mem_cache, (uint64_t)o->threads * (n ? n : 1));
}

static void memory_heading(struct report *r)
{
	const char *u = report_bw_unit(r);

	report_text(r, "\n Staging memory: each byte written once (a drive's DMA) and read once "
		       "(the NIC)\n");
	report_text(r, " %-5s %7s %10s %11s %11s %11s %10s\n", "node", "threads", "buffers",
		    "staged", "DRAM", "ceiling", "% of");
	report_text(r, " %-5s %7s %10s %6s %-4s %6s %-4s %6s %-4s %10s\n", "", "", "", "", u, "", u,
		    "", u, "ceiling");
}

/*
 * Whether one node's working set exceeds the caches by MEM_CACHE_FACTOR
 * (JSON "possibly_cached", and a note when it does not).
 */
static void memory_cache_note(struct report *r, const struct membw_params *p,
			      const struct mem_cache *c)
{
	uint64_t ws = (uint64_t)p->buf_bytes * p->threads;
	bool cached = ws < MEM_CACHE_FACTOR * c->total;
	char a[32], b[32];

	report_bool(r, "possibly_cached", NULL, cached);
	if (cached)
		report_text(r,
			    "  possibly cached: the buffers (%s) are less than %d x the last-level "
			    "cache (%s%s): the figure may be the cache's as much as DRAM's\n",
			    format_size(ws, a, sizeof(a)), MEM_CACHE_FACTOR,
			    format_size(c->total, b, sizeof(b)), c->known ? "" : ", assumed");
}

/* One node's row: its figures, its ceiling and the percentage that holds. */
static void memory_row(struct report *r, const struct membw_params *p,
		       const struct membw_result *res, const struct memceil *c,
		       const struct mem_cache *cache)
{
	double dram = membw_dram_bps(res), ceil = c->known ? c->bytes_per_s : NAN;
	char a[32];
	bool over = c->known && sweep_above(dram / 1e9, ceil / 1e9);

	report_obj_begin(r, NULL);
	if (p->node >= 0)
		report_i64(r, "numa_node", " %-5lld", p->node);
	else
		report_null(r, "numa_node", " %-5s");
	report_u64(r, "threads", " %7llu", p->threads);
	report_u64(r, "chunk", NULL, p->chunk);
	report_u64(r, "buffer_bytes", NULL, p->buf_bytes);
	report_text(r, " %10s", format_size((uint64_t)p->buf_bytes * p->threads, a, sizeof(a)));
	report_u64(r, "staged_bytes", NULL, res->staged_bytes);
	report_double(r, "seconds", NULL, res->seconds);
	report_bw(r, "staged_gb_per_s", " %11.2f",
		  res->seconds > 0 ? res->staged_bytes / res->seconds : 0);
	report_bw(r, "dram_gb_per_s", " %11.2f", dram);
	report_bw(r, "ceiling_gb_per_s", " %11.2f", ceil);
	if (over)
		report_text(r, " %10s", "above");
	report_double(r, "percent_of_ceiling", over ? NULL : " %10.1f",
		      c->known ? sweep_pct_held(dram / 1e9, ceil / 1e9) : NAN);
	report_bool(r, "above_ceiling", NULL, over);
	report_text(r, "\n");
	report_str(r, "ceiling_source", "  memory %s\n", c->why);
	if (c->known) {
		report_u64(r, "channels", NULL, c->channels);
		report_u64(r, "mts", NULL, c->mts);
		report_u64(r, "bus_bits", NULL, c->bus_bits);
	}
	memory_cache_note(r, p, cache);
	report_bool(r, "interrupted", NULL, res->interrupted);
	report_obj_end(r);
}

/* The last-level cache, JSON "cache" and one text line. */
static void memory_cache(struct report *r, const struct mem_cache *c)
{
	char a[32], b[32];

	report_u64(r, "llc_bytes", NULL, c->known ? c->total : 0);
	report_obj_begin(r, "cache");
	report_bool(r, "known", NULL, c->known);
	if (c->known) {
		report_u64(r, "level", NULL, c->level);
		report_u64(r, "bytes_each", NULL, c->each);
		report_u64(r, "instances", NULL, c->instances);
	}
	report_u64(r, "total_bytes", NULL, c->total);
	report_u64(r, "factor", NULL, MEM_CACHE_FACTOR);
	report_u64(r, "working_set_max_bytes", NULL, MEM_WORKING_SET_MAX);
	report_obj_end(r);
	if (c->known)
		report_text(r,
			    " Last-level cache: L%u, %u x %s = %s; each node's buffers are sized "
			    "past %d x that\n",
			    c->level, c->instances, format_size(c->each, a, sizeof(a)),
			    format_size(c->total, b, sizeof(b)), MEM_CACHE_FACTOR);
	else
		report_text(
			r,
			" Last-level cache: unknown (no cache/index*/size in sysfs), assumed %s; "
			"each node's buffers are sized past %d x that\n",
			format_size(c->total, a, sizeof(a)), MEM_CACHE_FACTOR);
}

int run_memory(const struct options *o, struct report *r, struct target *t, int n)
{
	struct mem_node m[MEM_NODES_MAX];
	struct membw_params p;
	struct membw_result res;
	struct memceil c;
	char err[256];
	int i, k = memory_nodes(o, t, n, m), rc = NBW_EXIT_OK;

	memory_cache(r, &o->mem_cache);
	memory_heading(r);
	report_arr_begin(r, "memory");
	for (i = 0; i < k && rc == NBW_EXIT_OK && !nbw_interrupted(); i++) {
		p = (struct membw_params){
			.node = m[i].node,
			.threads = o->threads * m[i].drives,
			.chunk = o->chunk,
			.buf_bytes =
				mem_buf_bytes(o, &o->mem_cache, (uint64_t)o->threads * m[i].drives),
			.lock = o->buf.lock,
			.warmup_s = o->cc.warmup,
			.duration_s = o->cc.duration};
		nbw_watchdog_rearm(o->cc.warmup + o->cc.duration + PHASE_SLACK_S);
		nbw_watchdog_phase("the staging memory's stream on NUMA node %d (%u threads)",
				   p.node, p.threads);
		if (membw_run(&p, &res, err, sizeof(err))) {
			nbw_err("%s", err);
			rc = NBW_EXIT_FAIL;
			break;
		}
		prov_span(o->prov, res.open_ns, res.close_ns);
		memceil_read(o->cc.sysfs_root, m[i].node, placement_nodes(), &c);
		memory_row(r, &p, &res, &c, &o->mem_cache);
	}
	report_arr_end(r);
	return rc;
}
