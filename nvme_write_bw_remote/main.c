// SPDX-License-Identifier: MIT
/*
 * nvme_write_bw_remote: drive -> staging DRAM -> RDMA WRITE -> remote DRAM,
 * verified. Without a peer the process is the sink (it also reads its own
 * drives and reports the node's aggregate); with a peer it is the source.
 * This file owns the options, their validation and the dispatch; the roles
 * live in sink.c and source.c, what both share in remote.c, the protocol in
 * common/ctrl.c and the verbs in common/rdma.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auth.h"
#include "digest.h"
#include "nbw.h"
#include "printer.h"
#include "roles.h"
#include "result.h"
#include "target.h"
#include "watchdog.h"
#include "window.h"

static void print_roles(void);

/* --help: the RDMA and connection options. */
static void usage_fabric(void)
{
	printf("\nRDMA and connection (perftest's letters):\n"
	       "  -d, --ib-dev LIST      RDMA ports to use, dev or dev:port, comma-separated, on\n"
	       "                         each side its own names (default: every ACTIVE port);\n"
	       "                         the source spreads its QPs over every reachable pair\n"
	       "  -x, --gid-index N      GID index (default: 0 on InfiniBand, the RoCE v2 IPv4\n"
	       "                         GID on RoCE)\n"
	       "  -R, --rdma_cm          connect the QPs with rdma_cm (default: exchange their\n"
	       "                         attributes on the control channel, as perftest does;\n"
	       "                         works on InfiniBand without IPoIB)\n"
	       "      --mtu BYTES        path MTU: 256 512 1024 2048 4096 (default: the ports')\n"
	       "      --sl N             service level 0-15 (default 0)\n"
	       "  -u, --qp-timeout N     RDMA ACK timeout, 4.096 us x 2^N per try, 7 tries\n"
	       "                         (1-31, default $NBW_QP_TIMEOUT, else 16 = 268 ms;\n"
	       "                         perftest's -u)\n"
	       "      --tclass N         traffic class 0-255 (RoCE: DSCP x 4, e.g. 106 = DSCP 26\n"
	       "                         for a lossless PFC class; default 0)\n"
	       "  -p, --port N           rdma_cm and control port (default %u)\n"
	       "      --bind ADDR|any    sink: address to listen on (default: the addresses of\n"
	       "                         the RDMA ports it uses; any = every address)\n"
	       "      --allow CIDR,...   sink: accept sources from these prefixes only\n"
	       "      --psk-file FILE    pre-shared key, both sides (or $NBW_PSK_FILE): a source\n"
	       "                         must prove it holds it before anything is said%s\n"
	       "      --timeout SECONDS  bound on every network wait (default 10)\n"
	       "      --wait SECONDS     sink: how long to wait for a source (default 60, 0 = "
	       "forever)\n"
	       "      --sources N        sink: take N sources at once (default 1), each verified\n"
	       "                         on its own, one window; a row per source and drive\n"
	       "                         (not with --bidir: its source sends to one PEER)\n"
	       "      --max-workers-per-source N\n"
	       "                         sink: workers (QPs) one source may have (default: %u\n"
	       "                         shared evenly by --sources)\n",
	       DEFAULT_PORT, auth_available() ? "" : " (not built)", MAX_WORKERS);
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
	usage_fabric();
	printf("\nData path:\n"
	       "  -s, --size SIZE        I/O size = RDMA message size (default 1M); --chunk too\n"
	       "      --bidir            both directions at once (give it and PEER to both\n"
	       "                         sides): each is a sink (no drives of its own) and a\n"
	       "                         source; both reports, the sum and its validity\n"
	       "  -a, --all-sizes        every size from 64K to 4M, one run each (both sides),\n"
	       "                         then the curve and its verdict against the rails' line\n"
	       "                         rate (as ib_write_bw -a); with --sources N a fan-in\n"
	       "                         round per size, the curve of their sum\n"
	       "  -t, --tx-depth N       WRITEs in flight per QP = staging slots (default 4);\n"
	       "                         --depth too\n"
	       "  -q, --qp N             QPs (workers) per drive (default 12); with a memory\n"
	       "                         source the QPs in all (default 1); sink: local readers\n"
	       "                         per drive; --threads too\n"
	       "      --source disk|mem  source: read drives (default) or send from memory\n"
	       "      --disks LIST       source: drives to read (default: every NVMe namespace)\n"
	       "      --local-disks LIST sink: its own drives read meanwhile (default: every NVMe\n"
	       "                         namespace; none found = RDMA only)\n"
	       "      --no-local         sink: RDMA only\n"
	       "      --dram SIZE        sink: DRAM buffer for all slices and local reads (default "
	       "16G)\n"
	       "      --span SIZE        bytes of each drive to sweep (default: the whole drive)\n"
	       "      --engine ENGINE    reader engine: psync (default) or io_uring%s; on the\n"
	       "                         source io_uring keeps the drive reads and the WRITEs\n"
	       "                         of a worker in flight at the same time\n"
	       "      --sysfs-root DIR   read sysfs from DIR instead of /sys\n",
	       reader_engine_available(ENGINE_IO_URING) ? "" : " (not built)");
	printf("\nWindow (both sides must agree):\n"
	       "      --warmup SECONDS   unmeasured warm-up (default 3)\n"
	       "  -D, --duration SECONDS measured window (default 20)\n"
	       "      --interval SECONDS print a live line every interval (sink: local, and RDMA\n"
	       "                         as the source's heartbeats report it; with --sources N\n"
	       "                         each source's as s1..sN, their sum and the total; on\n"
	       "                         stderr with --json)\n");
	printf("\nVerification (both sides must agree):\n"
	       "      --verify MODE      canary (default): one real chunk per worker, hashed on\n"
	       "                         both sides; full: also every slice slot after the window\n"
	       "      --no-verify        no verification (said so in the output)\n"
	       "      --corrupt-canary   source, for tests: damage the canary after hashing it\n"
	       "      --late-start SECONDS source, for tests: open the window that much late\n"
	       "      --dump-slice FILE  sink: write worker 0's slice to FILE and its slot map to\n"
	       "                         FILE.map (\"slot offset length\" per line); with\n"
	       "                         N sources (--sources N) source i's to FILE.i and\n"
	       "                         FILE.i.map\n");
	printf("\nMay the rates be added (sink)?\n"
	       "      --min-overlap PCT  least share of each source's window inside the sink's\n"
	       "                         (default 99)\n"
	       "      --max-cv PCT       largest variation (stdev/mean of 1 s samples) of each\n"
	       "                         stream (default 2); otherwise the total is marked not\n"
	       "                         valid and the table says which stream broke the rule\n");
	printf("\nOutput:\n"
	       "      --latency          source: time each WRITE of the window from its post to\n"
	       "                         its completion: latency min, p50, p90, p99, p99.9,\n"
	       "                         p99.99, max and mean (every row shows M WRITE/s)\n"
	       "  -W, --report-counters  every counter of the RDMA ports beside the figures\n"
	       "                         (default: those that moved; JSON has them all)\n"
	       "      --report_gbits     text bandwidth in Gb/s instead of GB/s\n"
	       "      --json[=FILE]      one JSON document on stdout (or into FILE)\n"
	       "  -h, --help             this help\n"
	       "  -V, --version          version\n");
	printf("\nSizes: 4096, 1M = 1MiB = 2^20, 1MB = 10^6, 16G = 2^34.\n"
	       "A peer that dies or goes silent is detected within --timeout seconds. The whole\n"
	       "run has a budget, from the options: T = --timeout, W = --warmup + --duration,\n"
	       "  8T + (W + 4T) per window (7 windows with -a) + the sink's --wait\n"
	       "  (+ T per source and window with --sources; --wait 0 pauses it until a\n"
	       "  source comes);\n"
	       "past it the tool says the step it was stuck in and exits 1.\n");
	print_roles();
	printf("Exit status: 0 ok, 1 runtime failure (device, fabric, peer, verification FAIL),\n"
	       "2 usage error.\n");
}

enum {
	OPT_BIND = CLI_OPT_TOOL,
	OPT_ALLOW,
	OPT_PSK_FILE,
	OPT_TIMEOUT,
	OPT_WAIT,
	OPT_SOURCE,
	OPT_DISKS,
	OPT_LOCAL_DISKS,
	OPT_NO_LOCAL,
	OPT_DRAM,
	OPT_VERIFY,
	OPT_MTU,
	OPT_SL,
	OPT_TCLASS,
	OPT_NO_VERIFY,
	OPT_CORRUPT,
	OPT_LATE_START,
	OPT_LATENCY,
	OPT_MIN_OVERLAP,
	OPT_MAX_CV,
	OPT_DUMP,
	OPT_BIDIR,
	OPT_SOURCES,
	OPT_MAX_PER_SOURCE,
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

static const struct cli_opt opts[] = {
	CLI_TEXT("ib-dev", 'd', struct options, devs),
	CLI_ARG("gid-index", 'x'),
	CLI_ARG("port", 'p'),
	CLI_TEXT("bind", OPT_BIND, struct options, sink.bind, SINK_ROLES),
	CLI_TEXT("allow", OPT_ALLOW, struct options, sink.allow_text, SINK_ROLES),
	CLI_TEXT("psk-file", OPT_PSK_FILE, struct options, psk_file),
	CLI_ARG("timeout", OPT_TIMEOUT),
	CLI_ARG("wait", OPT_WAIT),
	CLI_ARG("sources", OPT_SOURCES, SINK_ROLES),
	CLI_ARG("max-workers-per-source", OPT_MAX_PER_SOURCE, SINK_ROLES),
	CLI_ARG("size", 's'),
	CLI_ARG("qp", 'q'),
	CLI_ARG("tx-depth", 't'),
	CLI_NOARG("rdma_cm", 'R'),
	CLI_FLAG("all-sizes", 'a', struct options, all_sizes),
	CLI_FLAG("bidir", OPT_BIDIR, struct options, bidir),
	CLI_ARG("mtu", OPT_MTU),
	CLI_ARG("sl", OPT_SL),
	CLI_ARG("tclass", OPT_TCLASS),
	CLI_ARG("qp-timeout", 'u'),
	CLI_ARG("source", OPT_SOURCE, SOURCE_ROLES),
	CLI_TEXT("disks", OPT_DISKS, struct options, disks),
	CLI_TEXT("local-disks", OPT_LOCAL_DISKS, struct options, disks, ROLE_SINK),
	CLI_FLAG("no-local", OPT_NO_LOCAL, struct options, sink.no_local, SINK_ROLES),
	CLI_ARG("dram", OPT_DRAM, SINK_ROLES),
	CLI_ARG("verify", OPT_VERIFY),
	CLI_NOARG("no-verify", OPT_NO_VERIFY),
	CLI_FLAG("corrupt-canary", OPT_CORRUPT, struct options, source.corrupt_canary,
		 SOURCE_ROLES),
	CLI_ARG("late-start", OPT_LATE_START, SOURCE_ROLES),
	CLI_FLAG("latency", OPT_LATENCY, struct options, source.latency, SOURCE_ROLES),
	CLI_ARG("min-overlap", OPT_MIN_OVERLAP, SINK_ROLES),
	CLI_ARG("max-cv", OPT_MAX_CV, SINK_ROLES),
	CLI_TEXT("dump-slice", OPT_DUMP, struct options, sink.dump_slice, SINK_ROLES),
	CLI_FLAG("report-counters", 'W', struct options, report_counters),
	CLI_LONGOPTS_READER,
	CLI_LONGOPTS_SYSFS,
	CLI_LONGOPTS_WINDOW,
	CLI_LONGOPTS_GBITS,
	CLI_LONGOPTS_OUTPUT,
	CLI_END,
};

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

/* A percentage 0..100 (decimal, as durations are written). */
static int percent_option(const char *what, const char *arg, double *out)
{
	int rc = cli_seconds(what, arg, 0, out);

	if (rc == CLI_NEXT && *out > 100)
		return cli_bad_value(what, arg, -ERANGE);
	return rc;
}

/* --mtu 256|512|1024|2048|4096 into enum ibv_mtu (1..5). */
static int mtu_option(const char *arg, uint8_t *mtu)
{
	static const char *const sizes[] = {"256", "512", "1024", "2048", "4096", NULL};
	int k, rc = cli_keyword("MTU", arg, sizes, &k);

	if (rc == CLI_NEXT)
		*mtu = (uint8_t)(k + 1);
	return rc;
}

/* A value min..max that fits a byte (--sl, --tclass, --qp-timeout). */
static int byte_option(const char *what, const char *arg, unsigned min, unsigned max, uint8_t *out)
{
	unsigned u;
	int rc = cli_uint(what, arg, min, max, &u);

	if (rc == CLI_NEXT)
		*out = (uint8_t)u;
	return rc;
}

/* One option of this tool with a value to check: CLI_NEXT or an exit status. */
static int tool_option(int c, char *arg, void *ctx)
{
	struct options *o = ctx;
	static const char *const sources[] = {"disk", "mem", NULL};
	static const char *const verifies[] = {"canary", "full", NULL};
	unsigned u;
	int k, rc;

	switch (c) {
	case OPT_NO_VERIFY:
		o->verify = CTRL_VERIFY_OFF;
		return CLI_NEXT;
	case 'R':
		o->conn = CTRL_CONN_CM;
		return CLI_NEXT;
	case 'x':
		rc = cli_uint("GID index", arg, 0, 65535, &u);
		if (rc == CLI_NEXT)
			o->gid_index = (int)u;
		return rc;
	case 'p':
		return cli_uint("port", arg, 1, 65535, &o->port);
	case OPT_TIMEOUT:
		return cli_seconds("timeout", arg, 0.1, &o->timeout);
	case OPT_WAIT:
		return cli_seconds("wait", arg, 0, &o->sink.wait);
	case OPT_SOURCES:
		return cli_uint("source count", arg, 1, MAX_SOURCES, &o->sink.sources);
	case OPT_MAX_PER_SOURCE:
		return cli_uint("workers per source", arg, 1, MAX_WORKERS, &o->sink.max_per_source);
	case 's':
		o->chunk_given = true;
		return cli_size("chunk size", arg, 512, 1ULL << 30, &o->chunk);
	case 't':
	case CLI_OPT_DEPTH:
		return cli_uint("depth", arg, 1, MAX_DEPTH, &o->depth);
	case CLI_OPT_THREADS:
		return cli_uint("thread count", arg, 1, TARGET_MAX_THREADS, &o->threads);
	case 'q':
		rc = cli_uint("QP count", arg, 1, MAX_WORKERS, &o->source.qps);
		/* perftest's -q: QPs per drive (in all: --source mem) */
		if (rc == CLI_NEXT && o->source.qps <= TARGET_MAX_THREADS)
			o->threads = o->source.qps;
		return rc;
	case OPT_MTU:
		return mtu_option(arg, &o->lo.mtu);
	case OPT_LATE_START:
		return cli_seconds("late start", arg, 0, &o->source.late_start);
	case OPT_MIN_OVERLAP:
		return percent_option("minimum overlap", arg, &o->sink.min_overlap);
	case OPT_MAX_CV:
		return percent_option("maximum variation", arg, &o->sink.max_cv);
	case OPT_SL:
		return byte_option("service level", arg, 0, 15, &o->lo.sl);
	case OPT_TCLASS:
		return byte_option("traffic class", arg, 0, 255, &o->lo.tclass);
	case 'u':
		return byte_option("QP timeout", arg, 1, 31, &o->lo.ack_timeout);
	case OPT_SOURCE:
		rc = cli_keyword("source", arg, sources, &k);
		if (rc == CLI_NEXT)
			o->source.feed = k ? CTRL_SOURCE_MEM : CTRL_SOURCE_DISK;
		return rc;
	case OPT_DRAM:
		return cli_size("DRAM size", arg, 4096, UINT64_MAX, &o->sink.dram);
	case CLI_OPT_SPAN:
		return cli_size("span", arg, 1, UINT64_MAX, &o->span);
	case CLI_OPT_ENGINE:
		rc = cli_engine(arg, reader_engine_available(ENGINE_IO_URING), &k);
		if (rc == CLI_NEXT)
			o->engine = k == CLI_ENGINE_IO_URING ? ENGINE_IO_URING : ENGINE_PSYNC;
		return rc;
	case OPT_VERIFY:
		rc = cli_keyword("verify mode", arg, verifies, &k);
		if (rc == CLI_NEXT)
			o->verify = k ? CTRL_VERIFY_FULL : CTRL_VERIFY_CANARY;
		return rc;
	}
	return cli_try_help();
}

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
		return nbw_usage_err("-a runs every size from 64K to 4M: drop %s",
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
	return load_access(o);
}

/* -1 to go on, or the exit status (help, version, usage error). */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct cli_spec spec = {"ad:x:p:s:t:q:u:RD:WhV", opts, tool_option, usage};
	int first, rc;

	*o = (struct options){
		.gid_index = -1,
		.port = DEFAULT_PORT,
		.timeout = 10,
		.sink.wait = 60,
		.chunk = 1 << 20,
		.depth = 4,
		.threads = 12,
		.source.qps = 1,
		.sink.dram = 16ULL << 30,
		.engine = ENGINE_PSYNC,
		.verify = CTRL_VERIFY_CANARY,
		.sink.min_overlap = 99,
		.sink.max_cv = 2,
		.sink.sources = 1,
	};
	cli_common_init(&o->cc);
	/* $NBW_QP_TIMEOUT: -u's default for a whole site (the virtual lab sets it). */
	if (getenv("NBW_QP_TIMEOUT") &&
	    byte_option("QP timeout ($NBW_QP_TIMEOUT)", getenv("NBW_QP_TIMEOUT"), 1, 31,
			&o->lo.ack_timeout) != CLI_NEXT)
		return NBW_EXIT_USAGE;
	rc = cli_parse(argc, argv, &spec, &o->cc, o, &first);
	if (rc != CLI_NEXT)
		return rc;
	if (first < argc)
		o->source.peer = argv[first++];
	if (first < argc) {
		return nbw_usage_err("unexpected argument '%s' (one PEER at most)", argv[first]);
	}
	return validate_options(o);
}

/*
 * The run's overall budget in seconds (said in usage() and the man page):
 * T = --timeout, W = warm-up + duration; set-up and handshake 8T, per window
 * W + 4T (START, drain, RESULT, verdict), the sink's --wait, T per extra
 * source. The sink's wait for its first source with --wait 0 is not counted
 * (the watchdog pauses there).
 */
static double run_budget(const struct options *o)
{
	double t = o->timeout, windows = o->all_sizes ? 7 : 1;
	double budget =
		8 * t + windows * (o->cc.warmup + o->cc.duration + o->source.late_start + 4 * t);

	if (!o->source.peer || o->bidir)
		budget += o->sink.wait + windows * (o->sink.sources > 1 ? o->sink.sources * t : 0);
	return budget;
}

/* The mode of the options: its result filled by its role(s), printed as it goes. */
/* The mode's run, its result printed: the exit status. */
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
	print_result(r, &x);
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

/* The run of these options (const from here on: nothing changes them): its exit status. */
static int run(const struct options *o, FILE *out)
{
	struct report r;
	int rc;

	/* Signals are taken synchronously by whoever waits (common/window.c). */
	nbw_signals_init();
	report_init(&r, out, o->cc.json, o->cc.gbits);
	if (nbw_watchdog_start(run_budget(o), give_up))
		nbw_warn("no watchdog thread: the run's budget is not enforced");
	rc = run_mode(o, &r);
	nbw_watchdog_stop();
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	FILE *out;
	int rc;

	nbw_set_prog(argv[0]);
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	out = cli_open_output(&o.cc);
	if (!out)
		return NBW_EXIT_FAIL;
	rc = run(&o, out);
	cli_close_output(out);
	return rc;
}
