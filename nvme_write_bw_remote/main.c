// SPDX-License-Identifier: MIT
/*
 * nvme_write_bw_remote: drive -> staging DRAM -> RDMA WRITE -> remote DRAM,
 * verified. Without a peer the process is the sink (it also reads its own
 * drives and reports the node's aggregate); with a peer it is the source.
 * This file owns the options, their validation and the dispatch; the roles
 * live in sink/ and source/, what they fill and share in model/ (result.c,
 * remote.c), the printer of their result in print/, the protocol in proto/
 * and the verbs in fabric/ (README).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrib.h"
#include "auth.h"
#include "digest.h"
#include "nbw.h"
#include "printer.h"
#include "remote.h"
#include "roles.h"
#include "result.h"
#include "target.h"
#include "waits.h"
#include "watchdog.h"
#include "window.h"

static const struct cli_spec cmdline;
static void print_roles(void);

/* --help's budget: the table's sums (model/waits.c), as "8T + (W + 4T) per window ...". */
static void print_budget(void)
{
	char setup[32], window[32], source[32];

	waits_show(waits_factor(WAIT_SETUP), waits_fixed_ms(WAIT_SETUP), "T", setup, sizeof(setup));
	waits_show(waits_factor(WAIT_WINDOW), waits_fixed_ms(WAIT_WINDOW), "T", window,
		   sizeof(window));
	waits_show(waits_factor(WAIT_SOURCE), waits_fixed_ms(WAIT_SOURCE), "T", source,
		   sizeof(source));
	printf("A peer that dies or goes silent is detected within --timeout seconds. The whole\n"
	       "run has a budget, from the options: T = --timeout, W = --warmup + --duration,\n"
	       "  %s + (W + %s) per window (-a: one per size, %d; from drives %d;\n"
	       "  --sweep-qps: one per count) + the\n"
	       "  sink's --wait (+ %s per source and window with --sources; --wait 0 pauses it "
	       "until a\n"
	       "  source comes);\n"
	       "past it the tool says the step it was stuck in and exits 1.\n",
	       setup, window, ALL_SIZES_MAX, all_sizes_count(CTRL_SOURCE_DISK), source);
}

static void usage(void)
{
	printf("Usage: %s [options]          sink (receives; reads its own drives too)\n"
	       "       %s [options] PEER     source (reads its drives, RDMA WRITEs to PEER)\n"
	       "       %s --bidir [options] PEER  both at once, PEER doing the same\n",
	       nbw_prog, nbw_prog, nbw_prog);
	printf("\nMeasure what arrives end to end: NVMe drive -> staging DRAM -> RDMA WRITE ->\n"
	       "remote DRAM, with one RC QP per worker, verified. The sink's CPU posts nothing\n"
	       "and takes no completions for the data. Never writes to a drive.\n");
	cli_help(&cmdline);
	printf("\nSizes: 4096, 1M = 1MiB = 2^20, 1MB = 10^6, 16G = 2^34.\n");
	print_budget();
	printf("Both sides print what the hardware counted: their RDMA ports' counter deltas\n"
	       "(those that moved; -W all) and their drives' and NICs' PCIe links read every\n"
	       "second of the window with their AER counts (JSON counters, pcie_under_load).\n");
	print_roles();
	printf("Exit status: 0 ok, 1 runtime failure (device, fabric, peer, verification FAIL)\n"
	       "or a run cut short by Ctrl-C (its figures marked interrupted), 2 usage error.\n");
}

enum {
	OPT_BIND = CLI_OPT_TOOL,
	OPT_ALLOW,
	OPT_PSK_FILE,
	OPT_TIMEOUT,
	OPT_WAIT,
	OPT_SOURCE,
	OPT_DISKS,
	OPT_RAIL_AFFINITY,
	OPT_LOCAL_DISKS,
	OPT_NO_LOCAL,
	OPT_DRAM,
	OPT_VERIFY,
	OPT_NO_VERIFY,
	OPT_CORRUPT,
	OPT_LATE_START,
	OPT_LATENCY,
	OPT_MIN_OVERLAP,
	OPT_MAX_CV,
	OPT_DUMP,
	OPT_SOURCES,
	OPT_MAX_PER_SOURCE,
	OPT_CHUNK,
	OPT_ALL,
	OPT_BIDIRECTIONAL,
	OPT_TOS,
	OPT_OUTPUT,
	OPT_CPU_UTIL,
	OPT_VERBOSE,
	OPT_COUNTERS_TABLE,
	OPT_OUT_JSON,
	OPT_OUT_JSON_FILE,
	OPT_RUN_INFINITELY,
	OPT_SOURCE_IP,
	OPT_LIST_PORTS,
	OPT_SWEEP_QPS,
};

/*
 * The role column of the table: the roles an option belongs to (none: every
 * role). A process is one role: the sink (no PEER), the source (a PEER) or,
 * with --bidir, both at once, whose sink reads no drives of its own.
 */
enum {
	ROLE_SINK = 1,
	ROLE_SOURCE = 2,
	ROLE_BIDIR = 4,
	SINK_ROLES = ROLE_SINK | ROLE_BIDIR,
	SOURCE_ROLES = ROLE_SOURCE | ROLE_BIDIR,
};

#define STR_(x) #x
#define STR(x) STR_(x)
static const char *const mtu_words[] = {"256", "512", "1024", "2048", "4096", NULL};
static const char *const feed_words[] = {"disk", "mem", NULL};
/* In the order of source/affinity.h's enum rail_affinity. */
static const char *const affinity_words[] = {"numa", "pcie", "none", NULL};
static const char *const verify_words[] = {"canary", "full", NULL};
static const char *const bind_words[] = {"any", NULL};
static const char *const conn_words[] = {"RC", NULL};
static const char *const output_words[] = {"bandwidth", NULL};

_Static_assert(sizeof(enum ctrl_source) == sizeof(int), "--source is a keyword row (an int)");
_Static_assert(CTRL_SOURCE_DISK == 0 && CTRL_SOURCE_MEM == 1, "--source's words in order");

/* clang-format off */
#define O struct options
#define ROW(name, has, val) CLI_NAME(name, has, val)
/* A perftest letter that names nothing here: one line naming what to use, exit 2. */
#define PERFTEST(name, letter, answer) \
	{ROW(name, optional_argument, letter), .type = CLI_T_ANSWER, .help = answer}
static const struct cli_opt opts[] = {
	{ROW("ib-dev", required_argument, 'd'), .type = CLI_T_TEXT, .field = CLI_AT(O, devs),
	 .arg = "LIST", .sect = "RDMA and connection (perftest's letters):",
	 .help = "RDMA ports to use, dev, dev:port or a netdev (eth1), comma-separated, on "
		 "each side its own names (default: every ACTIVE port, said when more than 8); "
		 "the source spreads its QPs over every reachable pair"},
	{ROW("gid-index", required_argument, 'x'), .type = CLI_T_UINT,
	 .field = CLI_AT(O, gid_index), .bytes = CLI_SIZEOF(O, gid_index), .what = "GID index",
	 .max = 65535, .arg = "N",
	 .help = "GID index (default: 0 on InfiniBand, the RoCE v2 IPv4 GID on RoCE); one "
		 "that a chosen port has no GID at is refused (its GIDs said, exit 2)"},
	{ROW("list-ports", no_argument, OPT_LIST_PORTS), .type = CLI_T_FLAG,
	 .field = CLI_AT(O, list_ports),
	 .help = "print every RDMA port (device, port, state, link, netdev, NUMA node, rate) "
		 "and its GID table (index, type, GID), as ibdev2netdev and show_gids do, and "
		 "exit"},
	{ROW("rdma_cm", no_argument, 'R'),
	 .help = "connect the QPs with rdma_cm (default: exchange their attributes on the "
		 "control channel, as perftest does; works on InfiniBand without IPoIB)"},
	{ROW("mtu", required_argument, 'm'), .words = mtu_words, .arg = "BYTES",
	 .help = "path MTU: 256 512 1024 2048 4096 (default: the ports')"},
	{ROW("sl", required_argument, 'S'), .type = CLI_T_UINT, .field = CLI_AT(O, lo.sl),
	 .bytes = CLI_SIZEOF(O, lo.sl), .what = "service level", .max = 15, .arg = "N",
	 .help = "service level 0-15", .def = "0"},
	{ROW("qp-timeout", required_argument, 'u'), .type = CLI_T_UINT,
	 .field = CLI_AT(O, lo.ack_timeout), .bytes = CLI_SIZEOF(O, lo.ack_timeout),
	 .what = "QP timeout", .min = 1, .max = 31, .arg = "N",
	 .help = "RDMA ACK timeout, 4.096 us x 2^N per try, 7 tries (1-31, default "
		 "$NBW_QP_TIMEOUT, else 16 = 268 ms; perftest's -u)"},
	{ROW("tclass", required_argument, 'T'), .type = CLI_T_UINT, .field = CLI_AT(O, lo.tclass),
	 .bytes = CLI_SIZEOF(O, lo.tclass), .what = "traffic class", .max = 255, .arg = "N",
	 .help = "traffic class 0-255 (RoCE: DSCP x 4, e.g. 106 = DSCP 26 for a lossless PFC "
		 "class)", .def = "0"},
	{ROW("tos", required_argument, OPT_TOS), .type = CLI_T_ALIAS, .with = 'T'},
	{ROW("port", required_argument, 'p'), .type = CLI_T_UINT, .field = CLI_AT(O, port),
	 .bytes = CLI_SIZEOF(O, port), .what = "port", .min = 1, .max = 65535, .arg = "N",
	 .help = "rdma_cm and control port", .def = STR(DEFAULT_PORT)},
	{ROW("bind", required_argument, OPT_BIND), .type = CLI_T_TEXT,
	 .field = CLI_AT(O, sink.bind),
	 .roles = SINK_ROLES, .words = bind_words, .arg = "ADDR|any",
	 .help = "sink: address to listen on (default: the addresses of the RDMA ports it uses; "
		 "any = every address)"},
	{ROW("allow", required_argument, OPT_ALLOW), .type = CLI_T_TEXT,
	 .field = CLI_AT(O, sink.allow_text), .roles = SINK_ROLES, .arg = "CIDR,...",
	 .help = "sink: accept sources from these prefixes only"},
	{ROW("psk-file", required_argument, OPT_PSK_FILE), .type = CLI_T_TEXT,
	 .field = CLI_AT(O, psk_file), .arg = "FILE",
	 .help = "pre-shared key, both sides (or $NBW_PSK_FILE): a source must prove it holds "
		 "it before anything is said, and every message after carries a MAC%s"},
	{ROW("timeout", required_argument, OPT_TIMEOUT), .type = CLI_T_SECONDS,
	 .field = CLI_AT(O, timeout), .what = "timeout", .min = 0.1, .arg = "SECONDS",
	 .help = "bound on every network wait", .def = "10"},
	{ROW("wait", required_argument, OPT_WAIT), .type = CLI_T_SECONDS,
	 .field = CLI_AT(O, sink.wait), .what = "wait", .arg = "SECONDS",
	 .help = "sink: how long to wait for a source (0 = forever)", .def = "60"},
	{ROW("sources", required_argument, OPT_SOURCES), .type = CLI_T_UINT,
	 .field = CLI_AT(O, sink.sources), .bytes = CLI_SIZEOF(O, sink.sources),
	 .what = "source count", .min = 1, .max = MAX_SOURCES, .roles = SINK_ROLES, .arg = "N",
	 .help = "sink: take N sources at once, each verified on its own, one window; a row per "
		 "source and drive (not with --bidir: its source sends to one PEER)", .def = "1"},
	{ROW("max-workers-per-source", required_argument, OPT_MAX_PER_SOURCE), .type = CLI_T_UINT,
	 .field = CLI_AT(O, sink.max_per_source), .bytes = CLI_SIZEOF(O, sink.max_per_source),
	 .what = "workers per source", .min = 1, .max = MAX_WORKERS, .roles = SINK_ROLES,
	 .arg = "N", .help = "sink: workers (QPs) one source may have (default: " STR(MAX_WORKERS)
			     " shared evenly by --sources)"},
	PERFTEST("ib-port", 'i',
		 "the port goes in -d: -d DEV:PORT (a list: -d mlx5_0:1,mlx5_0:2)"),
	PERFTEST("dualport", 'O',
		 "name both ports in -d (-d DEV:1,DEV:2): every port given is used"),
	{ROW("connection", required_argument, 'c'), .type = CLI_T_KEYWORD,
	 .what = "connection type", .words = conn_words, .arg = "RC",
	 .help = "perftest's -c: RC only (one RC QP per worker)"},
	CLI_ROW_CHUNK(O, chunk, "size", 's', 512, "I/O size = RDMA message size",
		      .set = CLI_AT(O, chunk_given), .sect = "Data path:"),
	{ROW("chunk", required_argument, OPT_CHUNK), .type = CLI_T_ALIAS, .with = 's'},
	{ROW("bidir", no_argument, 'b'), .type = CLI_T_FLAG, .field = CLI_AT(O, bidir),
	 .help = "both directions at once (give it and PEER to both sides): each is a sink (no "
		 "drives of its own) and a source; both reports, the sum and its validity"},
	{ROW("bidirectional", no_argument, OPT_BIDIRECTIONAL), .type = CLI_T_ALIAS, .with = 'b'},
	{ROW("all-sizes", no_argument, 'a'), .type = CLI_T_FLAG, .field = CLI_AT(O, all_sizes),
	 .help = "every size, 2 bytes to 8M from memory (below 4K unverified), 64K to 4M from "
		 "drives, one run each (both sides), a line per size as "
		 "ib_write_bw -a prints (#bytes, #iterations, BW peak = average, BW average in its "
		 "MB/sec of 2^20 bytes or Gb/sec, MsgRate), then the curve (GB/s) and its verdict "
		 "against the rails' line rate; with "
		 "--sources N a fan-in round per size, the curve of their sum"},
	{ROW("all", no_argument, OPT_ALL), .type = CLI_T_ALIAS, .with = 'a'},
	{ROW("sweep-qps", required_argument, OPT_SWEEP_QPS), .type = CLI_T_TEXT, .arg = "LIST",
	 .field = CLI_AT(O, sweep_qps_text),
	 .help = "one run per QP count (1,2,4,8,16: -q's meaning; both sides, the same list), "
		 "then the curve and its verdict: where it stops growing and what binds (one "
		 "QP's ceiling, the port, the PCIe link or something else)"},
	{ROW("verbose", no_argument, OPT_VERBOSE), .type = CLI_T_FLAG, .field = CLI_AT(O, verbose),
	 .help = "-a: each size's whole report (drives, rails, totals, verdicts), not its one "
		 "line"},
	{ROW("tx-depth", required_argument, 't'), .type = CLI_T_UINT, .field = CLI_AT(O, depth),
	 .bytes = CLI_SIZEOF(O, depth), .what = "depth", .min = 1, .max = MAX_DEPTH, .arg = "N",
	 .help = "WRITEs in flight per QP = staging slots", .def = "4"},
	{ROW("depth", required_argument, CLI_OPT_DEPTH), .type = CLI_T_ALIAS, .with = 't'},
	{ROW("qp", required_argument, 'q'), .arg = "N",
	 .help = "QPs (workers) per drive (default 12); with a memory source the QPs in all "
		 "(default 1); sink: local readers per drive"},
	CLI_ROW_THREADS(O, threads, CLI_OPT_THREADS, NULL, .with = 'q', .def = "12"),
	PERFTEST("source_ip", OPT_SOURCE_IP,
		 "a source's addresses are its RDMA ports': pick them with -d DEV:PORT (the "
		 "control channel leaves from the address the route to PEER takes)"),
	PERFTEST("run_infinitely", OPT_RUN_INFINITELY,
		 "every run has an end: use -D/--duration SECONDS (up to days) with --interval "
		 "SECONDS for a line every interval; Ctrl-C ends it early with the report so far, "
		 "marked interrupted"),
	PERFTEST("post_list", 'l', "WRITEs are posted one at a time; the WRITEs in flight per QP "
				   "are -t/--tx-depth"),
	PERFTEST("iters", 'n', "the run is timed, not counted: use -D/--duration SECONDS"),
	{ROW("source", required_argument, OPT_SOURCE), .type = CLI_T_KEYWORD,
	 .field = CLI_AT(O, source.feed), .what = "source", .words = feed_words,
	 .roles = SOURCE_ROLES, .arg = "disk|mem",
	 .help = "source: read drives or send from memory", .def = "disk"},
	{ROW("rail-affinity", required_argument, OPT_RAIL_AFFINITY), .type = CLI_T_KEYWORD,
	 .field = CLI_AT(O, source.rail_affinity), .set = CLI_AT(O, source.rail_affinity_given),
	 .what = "rail affinity", .words = affinity_words, .roles = SOURCE_ROLES,
	 .arg = "numa|pcie|none",
	 .help = "source: which ports a drive's workers take: the nearest in the PCIe tree, "
		 "those on its NUMA node, or all (default: pcie when the PCI tree places every "
		 "drive and port, else numa)"},
	{ROW("disks", required_argument, OPT_DISKS), .type = CLI_T_TEXT, .field = CLI_AT(O, disks),
	 .arg = "LIST", .help = "source: drives to read (default: every NVMe namespace)"},
	{ROW("local-disks", required_argument, OPT_LOCAL_DISKS), .type = CLI_T_TEXT,
	 .field = CLI_AT(O, disks), .roles = ROLE_SINK, .arg = "LIST",
	 .help = "sink: its own drives read meanwhile (default: every NVMe namespace; none found "
		 "= RDMA only)"},
	{ROW("no-local", no_argument, OPT_NO_LOCAL), .type = CLI_T_FLAG,
	 .field = CLI_AT(O, sink.no_local), .roles = SINK_ROLES, .help = "sink: RDMA only"},
	{ROW("dram", required_argument, OPT_DRAM), .type = CLI_T_SIZE,
	 .field = CLI_AT(O, sink.dram),
	 .what = "DRAM size", .min = 4096, .roles = SINK_ROLES, .arg = "SIZE",
	 .help = "sink: DRAM buffer for all slices and local reads", .def = "16G"},
	CLI_ROW_SPAN(O, span),
	CLI_ROW_ENGINE(O, engine, reader_engine_words,
		       "reader engine: %w%s; on the source io_uring keeps the drive reads and "
		       "the WRITEs of a worker in flight at the same time"),
	CLI_ROW_SYSFS("read sysfs from DIR instead of /sys"),
	CLI_ROWS_WINDOW("print a live line every interval (sink: local, and RDMA as the source's "
			"heartbeats report it; with --sources N each source's as s1..sN, their "
			"sum and the total; on stderr with --json)",
			.sect = "Window (both sides must agree):"),
	{ROW("min-overlap", required_argument, OPT_MIN_OVERLAP), .type = CLI_T_SECONDS,
	 .field = CLI_AT(O, sink.min_overlap), .what = "minimum overlap", .max = 100,
	 .roles = SINK_ROLES, .arg = "PCT", .sect = "May the rates be added (sink)?",
	 .help = "least share of each source's window inside the sink's", .def = "99"},
	{ROW("max-cv", required_argument, OPT_MAX_CV), .type = CLI_T_SECONDS,
	 .field = CLI_AT(O, sink.max_cv), .what = "maximum variation", .max = 100,
	 .roles = SINK_ROLES, .arg = "PCT",
	 .help = "largest variation (stdev/mean of 1 s samples) of each stream; otherwise the "
		 "total is marked not valid and the table says which stream broke the rule",
	 .def = "2"},
	{ROW("verify", required_argument, OPT_VERIFY), .words = verify_words, .arg = "MODE",
	 .sect = "Verification (both sides must agree):",
	 .help = "canary (default): one real chunk per worker, hashed on both sides; full: also "
		 "every slice slot after the window"},
	{ROW("no-verify", no_argument, OPT_NO_VERIFY),
	 .help = "no verification (said so in the output)"},
	{ROW("corrupt-canary", no_argument, OPT_CORRUPT), .type = CLI_T_FLAG,
	 .field = CLI_AT(O, source.corrupt_canary), .roles = SOURCE_ROLES,
	 .help = "source, for tests: damage the canary after hashing it"},
	{ROW("late-start", required_argument, OPT_LATE_START), .type = CLI_T_SECONDS,
	 .field = CLI_AT(O, source.late_start), .what = "late start", .roles = SOURCE_ROLES,
	 .arg = "SECONDS", .help = "source, for tests: open the window that much late"},
	{ROW("dump-slice", required_argument, OPT_DUMP), .type = CLI_T_TEXT,
	 .field = CLI_AT(O, sink.dump_slice), .roles = SINK_ROLES, .arg = "FILE",
	 .help = "sink: write worker 0's slice to FILE and its slot map to FILE.map (\"slot "
		 "offset length\" per line); with N sources (--sources N) source i's to FILE.i "
		 "and FILE.i.map"},
	{ROW("latency", no_argument, OPT_LATENCY), .type = CLI_T_FLAG,
	 .field = CLI_AT(O, source.latency), .roles = SOURCE_ROLES, .sect = "Output:",
	 .help = "source: time each WRITE of the window from its post to its completion: "
		 "latency min, p50, p90, p99, p99.9, p99.99, max and mean (every row shows M "
		 "WRITE/s)"},
	{ROW("report-counters", no_argument, 'W'), .type = CLI_T_FLAG,
	 .field = CLI_AT(O, report_counters),
	 .help = "every counter of the RDMA ports beside the figures (default: those that "
		 "moved; the JSON has them all)"},
	{ROW("counters-table", no_argument, OPT_COUNTERS_TABLE),
	 .help = "print the attribution's groups of counters and the kernel's counter names in "
		 "each, a tab-separated line each (\"group KEY WORDS ONE\", then \"counter KEY "
		 "NAME\"), and exit"},
	{ROW("output", required_argument, OPT_OUTPUT), .type = CLI_T_KEYWORD,
	 .set = CLI_AT(O, figure_only), .what = "output", .words = output_words, .arg = "bandwidth",
	 .help = "as perftest's --output=bandwidth: print the total alone in perftest's unit, "
		 "MB/sec of 2^20 bytes (Gb/sec with --report_gbits), the report (GB/s) on stderr"},
	{ROW("cpu_util", no_argument, OPT_CPU_UTIL), .type = CLI_T_NOTE,
	 .help = "CPU use is always reported (the sink's s per GiB landed, the JSON's cpu_s)"},
	{ROW("CPU-freq", no_argument, 'F'), .type = CLI_T_NOTE,
	 .help = "nothing to skip: this tool does not check the CPU frequency governor"},
	CLI_ROW_GBITS(),
	CLI_ROWS_OUTPUT,
	{ROW("out_json", no_argument, OPT_OUT_JSON), .type = CLI_T_ALIAS, .with = CLI_OPT_JSON},
	{ROW("out_json_file", required_argument, OPT_OUT_JSON_FILE), .type = CLI_T_ALIAS,
	 .with = CLI_OPT_JSON},
	CLI_END,
};
#undef PERFTEST
#undef ROW
#undef O
/* clang-format on */

/*
 * --help's lines on the role check, from the table's role column (names
 * without their dashes: a line that starts with an option is that option's
 * own for the shell completion, which reads --help).
 */
static void print_roles(void)
{
	static const struct {
		unsigned roles;
		const char *head;
	} sets[] = {
		{SINK_ROLES, "The sink's options, refused by a source whatever their value:"},
		{SOURCE_ROLES, "The source's, refused by a sink:"},
	};
	size_t i, k, col;
	const char *sep;

	for (k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		col = (size_t)printf("%s", sets[k].head);
		sep = " ";
		for (i = 0; opts[i].o.name; i++) {
			if ((opts[i].roles | ROLE_BIDIR) != sets[k].roles)
				continue;
			if (col + strlen(sep) + strlen(opts[i].o.name) + 1 > 79) {
				printf(",\n ");
				col = 1;
				sep = " ";
			}
			col += (size_t)printf("%s%s", sep, opts[i].o.name);
			sep = ", ";
		}
		printf(".\n");
	}
	printf("With --bidir a process is both roles and takes both but the sink's own drives\n"
	       "(local-disks).\n");
}

/* --timeout: bounded, so that every wait stays a wait (not "forever"). */
#define MAX_TIMEOUT_S (24 * 3600.0)

/* One option the table leaves to the tool: CLI_NEXT or an exit status. */
static int tool_option(int c, char *arg, void *ctx)
{
	struct options *o = ctx;
	int k, rc;

	switch (c) {
	case OPT_COUNTERS_TABLE:
		attrib_table(stdout);
		return NBW_EXIT_OK;
	case OPT_NO_VERIFY:
		o->verify = CTRL_VERIFY_OFF;
		return CLI_NEXT;
	case 'R':
		o->conn = CTRL_CONN_CM;
		return CLI_NEXT;
	case 'q':
		rc = cli_uint("QP count", arg, 1, MAX_WORKERS, &o->source.qps);
		/* perftest's -q: QPs per drive (in all: --source mem) */
		if (rc == CLI_NEXT && o->source.qps <= TARGET_MAX_THREADS)
			o->threads = o->source.qps;
		return rc;
	case 'm': /* 256|512|1024|2048|4096 into enum ibv_mtu (1..5) */
		rc = cli_keyword("MTU", arg, mtu_words, &k);
		if (rc == CLI_NEXT)
			o->lo.mtu = (uint8_t)(k + 1);
		return rc;
	case OPT_VERIFY:
		rc = cli_keyword("verify mode", arg, verify_words, &k);
		if (rc == CLI_NEXT)
			o->verify = k ? CTRL_VERIFY_FULL : CTRL_VERIFY_CANARY;
		return rc;
	}
	return cli_try_help();
}

/* Why a word is not built: --engine's, from the table of engines (io_uring without liburing). */
static const char *unbuilt(const struct cli_opt *e, int w)
{
	return e->o.val == CLI_OPT_ENGINE ? reader_engine_unbuilt((unsigned)w) : NULL;
}

/* Options that contradict each other, refused with one line. */
static const struct cli_excl contradictions[] = {
	{"verify", NULL, "no-verify", "verify how, or not at all"},
	{"local-disks", NULL, "no-local", "the sink reads its drives or none"},
	{"source", "mem", "disks", "a memory source reads no drives"},
	{NULL},
};

static const struct cli_spec cmdline = {
	.opts = opts,
	.tool = tool_option,
	.usage = usage,
	.unbuilt = unbuilt,
	.excl = contradictions,
};

/* --allow into prefixes, and the key of --psk-file (or $NBW_PSK_FILE). -1 or an exit status. */
static int load_access(struct options *o)
{
	char err[512];
	int rc;

	if (o->sink.allow_text) {
		o->sink.nallow = netaddr_parse_list(o->sink.allow_text, o->sink.allow,
						    NETADDR_MAX_PREFIXES, err, sizeof(err));
		if (o->sink.nallow < 0) {
			return nbw_usage_err(
				"invalid --allow '%s': %s (CIDR[,CIDR...], e.g. 10.0.0.0/8)",
				o->sink.allow_text, err);
		}
	}
	if (!o->psk_file)
		o->psk_file = getenv(AUTH_KEY_ENV);
	if (o->psk_file && o->psk_file[0]) {
		rc = auth_key_load(o->psk_file, &o->key, err, sizeof(err));
		if (rc) {
			nbw_err("%s", err);
			return rc == -ENOTSUP ? NBW_EXIT_USAGE : NBW_EXIT_FAIL;
		}
	}
	return -1;
}

/* Checks across options, after all were read: -1 to go on, or an exit status. */
static int validate_options(struct options *o)
{
	unsigned role = o->bidir ? ROLE_BIDIR : o->source.peer ? ROLE_SOURCE : ROLE_SINK;
	const char *wrong = cli_wrong_role(opts, &o->cc, role);
	int rc;

	if (o->figure_only && (o->cc.json || o->all_sizes || o->bidir)) {
		return nbw_usage_err("--output=bandwidth prints one figure: not with %s",
				     o->cc.json	    ? "--json"
				     : o->all_sizes ? "-a"
						    : "--bidir");
	}

	if (wrong && o->bidir) {
		return nbw_usage_err(
			"--%s has no place with --bidir (its sink reads no drives; its "
			"source reads --disks)",
			wrong);
	}
	if (wrong) {
		return nbw_usage_err("--%s is a %s option (%s)", wrong,
				     o->source.peer ? "sink" : "source",
				     o->source.peer ? "no PEER argument" : "needs a PEER argument");
	}
	if (o->timeout > MAX_TIMEOUT_S) {
		return nbw_usage_err("invalid timeout '%g': out of range (at most %g s)",
				     o->timeout, MAX_TIMEOUT_S);
	}
	if (o->bidir && (!o->source.peer || o->all_sizes || o->cc.interval > 0)) {
		return nbw_usage_err(
			"--bidir %s",
			!o->source.peer ? "needs a PEER (each side names the other)"
			: o->all_sizes	? "runs one size: drop -a"
					: "prints both directions at the end: drop --interval");
	}
	if (o->all_sizes && (o->chunk_given || o->sink.dump_slice)) {
		return nbw_usage_err("-a runs every size (2 bytes to 8M from memory, 64K to 4M "
				     "from drives): drop %s",
				     o->chunk_given ? "-s/--size" : "--dump-slice");
	}
	if (o->sink.sources > 1 && o->bidir) {
		return nbw_usage_err("--sources %u with --bidir: this node's source sends to its "
				     "one PEER, not back to %u sources: drop --sources or --bidir",
				     o->sink.sources, o->sink.sources);
	}
	if (o->source.corrupt_canary && o->verify == CTRL_VERIFY_OFF) {
		return nbw_usage_err("--corrupt-canary needs verification (drop --no-verify)");
	}
	if (o->verify != CTRL_VERIFY_OFF && o->chunk % DIGEST_BLOCK) {
		return nbw_usage_err(
			"verification needs a chunk that is a multiple of %u (or --no-verify)",
			DIGEST_BLOCK);
	}
	rc = qps_sweep_parse(o);
	return rc >= 0 ? rc : load_access(o);
}

/* -1 to go on, or the exit status (help, version, usage error). */
static int parse_options(int argc, char **argv, struct options *o)
{
	unsigned u;
	int first, rc;

	*o = (struct options){
		.gid_index = -1,
		.source.qps = 1,
		.verify = CTRL_VERIFY_CANARY,
	}; /* the rest: the table's defaults */
	cli_common_init(&o->cc);
	/* $NBW_QP_TIMEOUT: -u's default for a whole site (the virtual lab sets it). */
	if (getenv("NBW_QP_TIMEOUT")) {
		rc = cli_uint("QP timeout ($NBW_QP_TIMEOUT)", getenv("NBW_QP_TIMEOUT"), 1, 31, &u);
		if (rc != CLI_NEXT)
			return rc;
		o->lo.ack_timeout = (uint8_t)u;
	}
	rc = cli_parse(argc, argv, &cmdline, &o->cc, o, &first);
	if (rc != CLI_NEXT)
		return rc;
	if (first < argc && cli_json_operand(&o->cc, argv[first])) {
		return nbw_usage_err("PEER '%s' looks like a file: --json takes its file with '=' "
				     "(--json=%s)",
				     argv[first], argv[first]);
	}
	if (first < argc)
		o->source.peer = argv[first++];
	if (first < argc) {
		return nbw_usage_err("unexpected argument '%s' (one PEER at most)", argv[first]);
	}
	return validate_options(o);
}

/*
 * --output=bandwidth: the run's total rate alone on stdout, as perftest's
 * (the sink's: local + RDMA; the source's: what it sent), "-" when none, in
 * perftest's unit: its BW average's MB/sec (2^20 bytes), Gb/sec (10^9 bits)
 * with --report_gbits.
 */
static void print_figure(const struct options *o, const struct result *x)
{
	const struct result_stream *st = x->nstreams ? &x->streams[0] : NULL;
	double bps = x->sum.total_bps;

	if (x->mode == RESULT_SOURCE)
		bps = st && st->seconds > 0 ? (double)st->bytes / st->seconds : NAN;
	if (isfinite(bps))
		printf("%.2f\n", o->cc.gbits ? bps * 8 / 1e9 : bps / 1048576);
	else
		printf("-\n");
	fflush(stdout);
}

/* The mode of the options: its result filled by its role(s), printed as it goes; exit status. */
static int run_mode(const struct options *o, struct report *r)
{
	enum result_mode mode = o->bidir	      ? RESULT_BIDIR
				: o->all_sizes	      ? RESULT_SIZES
				: o->sink.sources > 1 ? RESULT_FANIN
				: o->source.peer      ? RESULT_SOURCE
						      : RESULT_SINK;
	struct run_state alone = {0}; /* one role alone: nothing shared */
	struct result x;
	int rc;

	result_init(&x, mode, o);
	printer_attach(&x, r);
	rc = mode == RESULT_BIDIR    ? run_bidir(o, &x)
	     : mode == RESULT_SIZES  ? run_all_sizes(o, &alone, &x)
	     : mode == RESULT_FANIN  ? run_fanin(o, &x)
	     : mode == RESULT_SOURCE ? run_source(o, &alone, &x)
				     : run_sink(o, &alone, &x);
	/* A run cut short is no success, whatever it measured: its figures marked so. */
	if (nbw_interrupted()) {
		x.interrupted = true;
		if (rc == NBW_EXIT_OK)
			rc = NBW_EXIT_FAIL;
		x.rc = rc;
	}
	print_result(r, &x);
	if (o->figure_only)
		print_figure(o, &x);
	result_free(&x);
	return rc;
}

/* The watchdog's last word: where the run was stuck, then exit 1 at once. */
static void give_up(const char *why)
{
	nbw_err("%s", why);
	fflush(stdout);
	_exit(NBW_EXIT_FAIL);
}

/* --list-ports: every port and its GIDs into out; the exit status. */
static int list_ports(const struct options *o, FILE *out)
{
	struct fab_port_info *all = calloc(FAB_MAX_PORTS, sizeof(*all));
	struct report r;
	int n = all ? remote_list_ports(o, all, FAB_MAX_PORTS) : -1;

	if (n >= 0) {
		report_init(&r, out, o->cc.json, o->cc.gbits);
		print_port_list(&r, o->prov, all, n);
	}
	free(all);
	return n >= 0 ? NBW_EXIT_OK : NBW_EXIT_FAIL;
}

/* The run of these options (const from here on: nothing changes them): its exit status. */
static int run(const struct options *o, FILE *out)
{
	struct report r;
	int rc;

	/* Signals are taken synchronously by whoever waits (common/base/signals.c). */
	nbw_signals_init();
	report_init(&r, out, o->cc.json, o->cc.gbits);
	if (nbw_watchdog_start(waits_budget(o), give_up))
		nbw_warn("no watchdog thread: the run's budget is not enforced");
	rc = o->nsweep_qps ? run_qps_sweep(o, &r) : run_mode(o, &r);
	nbw_watchdog_stop();
	return rc;
}

int main(int argc, char **argv)
{
	static struct provenance prov;
	struct options o;
	FILE *out;
	int rc;

	nbw_set_prog(argv[0]);
	prov_init(&prov, argc, argv);
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	o.prov = &prov;
	/* --output=bandwidth: stdout holds the figure alone, the report goes to stderr */
	out = o.figure_only ? stderr : cli_open_output(&o.cc);
	if (!out)
		return NBW_EXIT_FAIL;
	rc = o.list_ports ? list_ports(&o, out) : run(&o, out);
	if (out != stderr)
		cli_close_output(out);
	return rc;
}
