// SPDX-License-Identifier: MIT
/*
 * nvme_read_bw: read bandwidth of local NVMe drives (or any block device or
 * file) into DRAM with O_DIRECT, many threads per drive, NUMA pinned. This
 * file owns the options, the targets' poll queues for --iopoll and the
 * dispatch; a measured phase is phase.c, the modes and their tables modes.c,
 * the reader loop, targets, window and output common/.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"
#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "read_bw.h"
#include "sysfs.h"
#include "watchdog.h"

static const struct cli_spec cmdline;

static void usage(void)
{
	printf("Usage: %s [options]\n", nbw_prog);
	printf("\nRead NVMe drives (or block devices / files) with O_DIRECT and report GB/s\n"
	       "per drive and in aggregate. Never writes to a drive.\n");
	cli_help(&cmdline);
	printf("\nSECONDS accept the units s, ms, m and h (\"500ms\", \"2m\").\n"
	       "Sizes: 4096, 1M = 1MiB = 2^20, 1MB = 10^6, 16G = 2^34.\n"
	       "Every phase (a window with its drives) has a budget of --warmup + --duration\n"
	       "+ 30 s; past it the tool says the step it was stuck in and exits 1.\n"
	       "Each drive's PCIe link is read every second of the window and its AER counts\n"
	       "before and after: a link that drops under load is named, with when (JSON\n"
	       "link_under_load, aer).\n"
	       "Each drive's rate is kept every second of the window (min, max, cv; JSON\n"
	       "samples_gb_per_s, at most 3600) and its NVMe health log is read before the\n"
	       "warm-up and after the window (JSON health; the text names what moved).\n"
	       "Exit status: 0 ok, 1 runtime failure or a run cut short by Ctrl-C (its figures\n"
	       "marked interrupted), 2 usage error.\n");
}

enum {
	OPT_DISKS = CLI_OPT_TOOL,
	OPT_LIST,
	OPT_IOPOLL,
	OPT_SQPOLL,
	OPT_NUMA,
	OPT_BASELINE,
	OPT_SWEEP,
	OPT_CHECKSUM,
	OPT_SWEEP_THREADS,
	OPT_SWEEP_CHUNK,
	OPT_SWEEP_DEPTH,
	OPT_MEMORY,
	OPT_PATTERN,
	OPT_SEED,
	OPT_LATENCY,
	OPT_MAX_CV,
	OPT_FIO_BS,
	OPT_FIO_IODEPTH,
	OPT_FIO_NUMJOBS,
	OPT_FIO_RW,
	OPT_FIO_RUNTIME,
	OPT_FIO_OUTPUT_FORMAT,
	OPT_FIO_FILENAME,
	OPT_FIO_IOENGINE,
	OPT_FIO_DIRECT,
	OPT_FIO_PERCENTILES,
};

static const char *const mode_names[] = {
	"",	   "--baseline", "--sweep", "--sweep-threads", "--sweep-chunk", "--sweep-depth",
	"--memory"};
static const char *const numa_words[] = {"auto", "off", NULL};
static const char *const pattern_words[] = {"seq", "rand", NULL};

/* clang-format off */
#define O struct options
#define ROW(name, has, val) CLI_NAME(name, has, val)
/* A fio option and what to type here instead (the man page's table for fio users). */
#define FIO(name, val, answer) \
	{ROW(name, optional_argument, val), .type = CLI_T_ANSWER, .help = answer}
static const struct cli_opt opts[] = {
	{ROW("disks", required_argument, OPT_DISKS), .type = CLI_T_TEXT, .field = CLI_AT(O, disks),
	 .arg = "LIST", .sect = "Targets:",
	 .help = "comma-separated targets (default: every NVMe namespace); block devices and "
		 "regular files are accepted too"},
	{ROW("list", no_argument, OPT_LIST), .type = CLI_T_FLAG, .field = CLI_AT(O, list),
	 .help = "list the targets and exit"},
	CLI_ROW_SYSFS("read sysfs from DIR instead of /sys"),
	CLI_ROW_THREADS(O, threads, 't', "reader threads per drive", .def = "12",
			.sect = "Readers:"),
	CLI_ROW_CHUNK(O, chunk, "chunk", 's', 1, "bytes per read; a multiple of the block size"),
	CLI_ROW_SPAN(O, span),
	CLI_ROW_ENGINE(O, engine, reader_engine_words, "%w%s"),
	CLI_ROW_DEPTH(O, depth, CLI_OPT_DEPTH, MAX_DEPTH,
		      "reads in flight per thread, io_uring only (default 8)",
		      .set = CLI_AT(O, depth_set)),
	{ROW("iopoll", no_argument, OPT_IOPOLL), .type = CLI_T_FLAG, .field = CLI_AT(O, iopoll),
	 .help = "io_uring: poll for completions (needs NVMe poll queues)"},
	{ROW("sqpoll", no_argument, OPT_SQPOLL), .type = CLI_T_FLAG, .field = CLI_AT(O, sqpoll),
	 .help = "io_uring: a kernel thread per reader submits the reads"},
	{ROW("numa", required_argument, OPT_NUMA), .arg = "auto|off|N", .words = numa_words,
	 .help = "pin readers to the drive's node, none, or node N", .def = "auto"},
	{ROW("pattern", required_argument, OPT_PATTERN), .words = pattern_words, .arg = "seq|rand",
	 .help = "sequential sweep or uniformly random chunk-aligned offsets over each thread's "
		 "region", .def = "seq"},
	{ROW("seed", required_argument, OPT_SEED), .type = CLI_T_UINT, .field = CLI_AT(O, seed),
	 .bytes = CLI_SIZEOF(O, seed), .what = "seed", .arg = "N",
	 .help = "seed of the random offsets; the same seed reads the same offsets", .def = "1"},
	{ROW("latency", no_argument, OPT_LATENCY), .type = CLI_T_FLAG, .field = CLI_AT(O, latency),
	 .help = "time each read: completion latency min, p50, p90, p99, p99.9, p99.99, max and "
		 "mean per drive and total"},
	CLI_ROWS_WINDOW("print a live line every interval", .sect = "Window:"),
	{ROW("max-cv", required_argument, OPT_MAX_CV), .type = CLI_T_SECONDS,
	 .field = CLI_AT(O, max_cv), .what = "maximum variation", .max = 1000, .arg = "PCT",
	 .help = "a drive's window is unsteady (named, and the total not to be trusted) when "
		 "the variation (stdev/mean) of its 1 s rates is above PCT, or when a second "
		 "falls under half the median", .def = "10"},
	{ROW("baseline", no_argument, OPT_BASELINE), .sect = "Modes:",
	 .help = "each drive alone, then all together: total vs ideal"},
	{ROW("sweep", no_argument, OPT_SWEEP),
	 .help = "1, 2, ... N drives together: total vs ideal"},
	{ROW("sweep-threads", optional_argument, OPT_SWEEP_THREADS), .arg = "[LIST]",
	 .help = "all drives at each thread count per drive (default 1,2,4,8,12,16,24,48): a "
		 "table per drive and a verdict: where the curve goes flat, at or below the link "
		 "ceiling, or still rising"},
	{ROW("sweep-chunk", optional_argument, OPT_SWEEP_CHUNK), .arg = "[LIST]",
	 .help = "the same over chunk sizes (default 64K,128K,...,4M)"},
	{ROW("sweep-depth", optional_argument, OPT_SWEEP_DEPTH), .arg = "[LIST]",
	 .help = "io_uring: the same over reads in flight per thread (default "
		 "1,2,4,8,12,16,24,32): IOPS and p99 per depth and the depth where IOPS stop "
		 "rising while latency keeps climbing (implies --latency)"},
	{ROW("memory", no_argument, OPT_MEMORY),
	 .help = "the staging memory instead of the drives: on each node the buffers live on, "
		 "the readers' threads and buffers (chunk x depth, grown to 4 x the last-level "
		 "cache) write every byte once and read it once, as a drive's DMA and a NIC do; "
		 "staged and DRAM GB/s against the memory's ceiling where sysfs tells it (EDAC, "
		 "SMBIOS)"},
	{ROW("checksum", no_argument, OPT_CHECKSUM), .type = CLI_T_FLAG,
	 .field = CLI_AT(O, checksum), .sect = "Output:",
	 .help = "digest every block of each span's first sweep"},
	CLI_ROW_GBITS(),
	CLI_ROWS_OUTPUT,
	{ROW("bs", optional_argument, OPT_FIO_BS), .type = CLI_T_ANSWER,
	 .sect = "fio's options, answered with this tool's:",
	 .help = "use -s/--chunk SIZE (bytes per read)"},
	FIO("iodepth", OPT_FIO_IODEPTH, "use --depth N with --engine io_uring"),
	FIO("numjobs", OPT_FIO_NUMJOBS, "use -t/--threads N (reader threads per drive)"),
	FIO("rw", OPT_FIO_RW, "use --pattern rand (randread) or --pattern seq (read); "
			     "this tool only reads"),
	FIO("runtime", OPT_FIO_RUNTIME,
	    "use -D/--duration SECONDS (and --warmup: fio's ramp_time)"),
	FIO("output-format", OPT_FIO_OUTPUT_FORMAT, "use --json (or --json=FILE) for JSON"),
	FIO("filename", OPT_FIO_FILENAME, "use --disks LIST (comma-separated)"),
	FIO("ioengine", OPT_FIO_IOENGINE, "use --engine psync or --engine io_uring (for libaio)"),
	{ROW("direct", optional_argument, OPT_FIO_DIRECT), .type = CLI_T_NOTE,
	 .help = "every read is O_DIRECT already"},
	{ROW("percentile_list", required_argument, OPT_FIO_PERCENTILES), .arg = "P:P...",
	 .set = CLI_AT(O, latency),
	 .help = "taken as --latency: min, p50, p90, p99, p99.9, p99.99 and max are printed"},
	CLI_END,
};
#undef FIO
#undef ROW
#undef O
/* clang-format on */

static int numa_option(const char *val, int *policy)
{
	int rc = placement_policy_parse(val, policy);

	if (rc == -ERANGE) { /* well formed, missing on this machine: a runtime failure */
		nbw_err("NUMA node %s does not exist here (%d node%s)", val, placement_nodes(),
			placement_nodes() == 1 ? "" : "s");
		return NBW_EXIT_FAIL;
	}
	return rc ? cli_bad_value("NUMA policy (auto, off or a node)", val, rc) : CLI_NEXT;
}

static int mode_option(int c, struct options *o)
{
	enum mode m = c == OPT_BASELINE	       ? MODE_BASELINE
		      : c == OPT_SWEEP	       ? MODE_SWEEP
		      : c == OPT_MEMORY	       ? MODE_MEMORY
		      : c == OPT_SWEEP_THREADS ? MODE_SWEEP_THREADS
		      : c == OPT_SWEEP_DEPTH   ? MODE_SWEEP_DEPTH
					       : MODE_SWEEP_CHUNK;

	if (o->mode == m)
		return nbw_usage_err("%s given twice", mode_names[m]);
	if (o->mode != MODE_PLAIN)
		return nbw_usage_err("%s and %s cannot be combined",
				     mode_names[o->mode < m ? o->mode : m],
				     mode_names[o->mode < m ? m : o->mode]);
	o->mode = m;
	return CLI_NEXT;
}

/* One point of a curve option into o->curve[i]: CLI_NEXT or an exit status. */
static int curve_point(int c, const char *item, struct options *o, int i)
{
	unsigned u;
	int rc;

	if (c == OPT_SWEEP_CHUNK)
		return cli_size("chunk size", item, 1, 1ULL << 30, &o->curve[i]);
	rc = c == OPT_SWEEP_THREADS ? cli_uint("thread count", item, 1, TARGET_MAX_THREADS, &u)
				    : cli_uint("depth", item, 1, MAX_DEPTH, &u);
	o->curve[i] = u;
	return rc;
}

/*
 * --sweep-threads [LIST], --sweep-chunk [LIST], --sweep-depth [LIST]: the
 * points, increasing. The list may follow as the next argument (getopt binds
 * an optional one only with '='): taken when it starts with a digit.
 */
static int curve_option(int c, char *arg, struct options *o)
{
	const char *def = c == OPT_SWEEP_THREADS ? "1,2,4,8,12,16,24,48"
			  : c == OPT_SWEEP_DEPTH ? "1,2,4,8,12,16,24,32"
						 : "64K,128K,256K,512K,1M,2M,4M";
	char buf[512], *items[CURVE_MAX + 1];
	int i, n, rc = mode_option(c, o);

	if (rc != CLI_NEXT)
		return rc;
	if (!arg && optind < o->argc && isdigit((unsigned char)o->argv[optind][0]))
		arg = o->argv[optind++];
	snprintf(buf, sizeof(buf), "%s", arg ? arg : def);
	n = parse_list(buf, items, CURVE_MAX);
	if (n < 1)
		return nbw_usage_err("%s: a comma list of up to %d values", mode_names[o->mode],
				     CURVE_MAX);
	for (i = 0; i < n; i++) {
		rc = curve_point(c, items[i], o, i);
		if (rc != CLI_NEXT)
			return rc;
		if (i && o->curve[i] <= o->curve[i - 1])
			return nbw_usage_err(
				"%s: the values must increase ('%s' after a larger one)",
				mode_names[o->mode], items[i]);
	}
	o->ncurve = n;
	return CLI_NEXT;
}

/*
 * fio's --percentile_list P:P... (each above 0, at most 100): checked, then
 * taken as --latency (its row sets it), whose fixed percentiles are said.
 */
static int percentiles_option(const char *arg)
{
	const char *p = arg;
	char *end;
	double v;

	do {
		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno || !(*end == ':' || !*end) || !isdigit((unsigned char)*p))
			return cli_bad_value("percentile list", arg, -EINVAL);
		if (v <= 0 || v > 100)
			return cli_bad_value("percentile list", arg, -ERANGE);
		p = end + 1;
	} while (*end);
	nbw_err("--percentile_list: taken as --latency: min, p50, p90, p99, p99.9, p99.99 and "
		"max are printed");
	return CLI_NEXT;
}

/* One option the table leaves to the tool: CLI_NEXT or an exit status. */
static int tool_option(int c, char *arg, void *ctx)
{
	struct options *o = ctx;
	int i = 0, rc;

	switch (c) {
	case OPT_NUMA:
		return numa_option(arg, &o->numa_policy);
	case OPT_BASELINE:
	case OPT_SWEEP:
	case OPT_MEMORY:
		return mode_option(c, o);
	case OPT_SWEEP_THREADS:
	case OPT_SWEEP_CHUNK:
	case OPT_SWEEP_DEPTH:
		return curve_option(c, arg, o);
	case OPT_PATTERN:
		rc = cli_keyword("pattern", arg, pattern_words, &i);
		o->random = i == 1;
		return rc;
	case OPT_FIO_PERCENTILES:
		return percentiles_option(arg);
	}
	return cli_try_help();
}

/* Why an --engine word is not built (io_uring without liburing), from the table of engines. */
static const char *engine_unbuilt(const struct cli_opt *e, int w)
{
	(void)e;
	return reader_engine_unbuilt((unsigned)w);
}

static const struct cli_spec cmdline = {
	.opts = opts,
	.tool = tool_option,
	.usage = usage,
	.unbuilt = engine_unbuilt,
};

/* An engine of the table that takes inflight reads in flight with flags, to name in advice. */
static const char *engine_taking(unsigned inflight, unsigned flags)
{
	const char *name = reader_engine_taking(inflight, flags);

	return name ? name : "another";
}

/*
 * What the engine does not take (its checks, reader.h), said with an engine
 * of the table that does: -1 to go on, or an exit status. Its depth when
 * --depth is not given.
 */
static int engine_options(struct options *o)
{
	unsigned e = (unsigned)o->engine;
	const char *why;

	if (o->depth_set && reader_engine_check(e, o->depth, 0, &why))
		return nbw_usage_err("--depth needs --engine %s%s%s%s", engine_taking(o->depth, 0),
				     why ? " (" : "", why ? why : "", why ? ")" : "");
	if (o->iopoll && reader_engine_check(e, 1, READER_IOPOLL, NULL))
		return nbw_usage_err("--iopoll needs --engine %s", engine_taking(1, READER_IOPOLL));
	if (o->sqpoll && reader_engine_check(e, 1, READER_SQPOLL, NULL))
		return nbw_usage_err("--sqpoll needs --engine %s", engine_taking(1, READER_SQPOLL));
	if (o->mode == MODE_SWEEP_DEPTH && reader_engine_check(e, MAX_DEPTH, 0, NULL))
		return nbw_usage_err("--sweep-depth needs --engine %s",
				     engine_taking(MAX_DEPTH, 0));
	if (!o->depth_set)
		o->depth = reader_engine_depth(e);
	return -1;
}

/* Checks across options, after all were read: -1 to go on, or an exit status. */
static int validate_options(struct options *o)
{
	int rc = engine_options(o);

	if (rc >= 0)
		return rc;
	if (o->mode == MODE_SWEEP_DEPTH && o->depth_set)
		return nbw_usage_err("--depth and --sweep-depth cannot be combined");
	if (o->mode == MODE_SWEEP_DEPTH) /* its verdict weighs p99 latency */
		o->latency = true;
	if (o->checksum && o->random)
		return nbw_usage_err(
			"--checksum digests a sequential sweep: not with --pattern rand");
	if (o->checksum && o->chunk % DIGEST_BLOCK)
		return nbw_usage_err("--checksum needs a chunk that is a multiple of %u",
				     DIGEST_BLOCK);
	if (o->mode == MODE_MEMORY && (o->checksum || o->random || o->latency))
		return nbw_usage_err("--memory measures DRAM: not with --%s",
				     o->checksum ? "checksum"
				     : o->random ? "pattern rand"
						 : "latency");
	if (o->mode == MODE_MEMORY && o->chunk % 8)
		return nbw_usage_err("--memory needs a chunk that is a multiple of 8");
	if (o->list && o->mode != MODE_PLAIN)
		return nbw_usage_err("--list cannot be combined with %s", mode_names[o->mode]);
	return -1;
}

/* -1 to go on, or the exit status (help, version, usage error). */
static int parse_options(int argc, char **argv, struct options *o)
{
	int first, rc;

	*o = (struct options){
		.depth = 1, /* the engine's unless --depth (engine_options) */
		.numa_policy = PLACEMENT_AUTO,
	};
	o->argc = argc;
	o->argv = argv;
	cli_common_init(&o->cc);
	rc = cli_parse(argc, argv, &cmdline, &o->cc, o, &first);
	if (rc != CLI_NEXT)
		return rc;
	if (first < argc && cli_json_operand(&o->cc, argv[first]))
		return nbw_usage_err("unexpected argument '%s': --json takes its file with '=' "
				     "(--json=%s)",
				     argv[first], argv[first]);
	if (first < argc)
		return nbw_usage_err("unexpected argument '%s' (targets go in --disks)",
				     argv[first]);
	return validate_options(o);
}

/*
 * Whether the block queue under fd (a block device, or the device a file
 * lives on) has poll queues, from <sysfs_root>/dev/block/MAJ:MIN/queue/io_poll
 * (the parent's queue for a partition): 1 yes, 0 no, -errno unknown (a file
 * on a filesystem without one block device, say). The device's name goes to
 * name (len bytes) when found.
 */
static int poll_queues(int fd, const char *sysfs_root, char *name, size_t len)
{
	char dir[512], majmin[32], val[16];
	struct stat st;
	dev_t d;
	int rc;

	if (fstat(fd, &st))
		return -errno;
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(majmin, sizeof(majmin), "%u:%u", major(d), minor(d));
	snprintf(dir, sizeof(dir), "%s/dev/block", sysfs_root);
	if (len && sysfs_link_basename(dir, majmin, name, len))
		snprintf(name, len, "%s", majmin);
	snprintf(dir, sizeof(dir), "%s/dev/block/%s/queue", sysfs_root, majmin);
	rc = sysfs_read_attr(dir, "io_poll", val, sizeof(val));
	if (rc == -ENOENT) { /* a partition: its disk's queue */
		snprintf(dir, sizeof(dir), "%s/dev/block/%s/../queue", sysfs_root, majmin);
		rc = sysfs_read_attr(dir, "io_poll", val, sizeof(val));
	}
	if (rc)
		return rc;
	return strcmp(val, "0") ? 1 : 0;
}

/* One line on how to give a device's driver poll queues ("nvme.poll_queues=N ..."). */
static const char *poll_hint(const char *name)
{
	if (!strncmp(name, "vd", 2))
		return "; enable them with virtio_blk.poll_queues=N on the kernel command line or "
		       "'modprobe virtio_blk poll_queues=N'";
	if (!strncmp(name, "nvme", 4))
		return "; enable them with nvme.poll_queues=N on the kernel command line or "
		       "'modprobe nvme poll_queues=N'";
	/* loop, dm, md, sd...: their drivers have no poll queues to turn on */
	return ": its driver offers none (only NVMe and virtio disks have them); run without "
	       "--iopoll";
}

/*
 * --iopoll needs poll queues: without them the kernel fails every polled read
 * (EOPNOTSUPP). One line naming the device and how to add them, exit status 1;
 * -1 to go on (queues present, or unknown: then the first read tells).
 */
static int check_poll_queues(const struct options *o, const struct target *t, int n)
{
	char name[64];
	int i;

	for (i = 0; i < n; i++) {
		if (poll_queues(t[i].fd, o->cc.sysfs_root, name, sizeof(name)))
			continue;
		nbw_err("%s: --iopoll needs poll queues and %s has none%s", t[i].d.path, name,
			poll_hint(name));
		return NBW_EXIT_FAIL;
	}
	return -1;
}

/* The largest point of a sweep of mode m, else def: the targets are checked against it. */
static uint64_t curve_max(const struct options *o, enum mode m, uint64_t def)
{
	return o->mode == m && o->ncurve ? o->curve[o->ncurve - 1] : def;
}

/* Measure and print; the exit status. */
/* The watchdog's last word: where the run was stuck, then exit 1 at once. */
static void give_up(const char *why)
{
	nbw_err("%s", why);
	fflush(stdout);
	_exit(NBW_EXIT_FAIL);
}

static int run(const struct options *o, struct report *r, struct target *t, int n)
{
	struct target_err e;
	int rc;

	if (o->list) {
		report_obj_begin(r, NULL);
		list_targets(r, t, n);
		prov_report(r, o->prov);
		report_obj_end(r);
		report_finish(r);
		return NBW_EXIT_OK;
	}
	/* (--sweep-depth: the buffers grow with the depth, the targets do not care) */
	if (o->mode != MODE_MEMORY &&
	    target_prepare(t, n, curve_max(o, MODE_SWEEP_CHUNK, o->chunk), o->span,
			   (unsigned)curve_max(o, MODE_SWEEP_THREADS, o->threads), &e))
		return nbw_say_err(e.usage, e.msg);
	if (o->iopoll && (rc = check_poll_queues(o, t, n)) >= 0)
		return rc;
	nbw_signals_init();
	if (nbw_watchdog_start(o->cc.warmup + o->cc.duration + PHASE_SLACK_S, give_up))
		nbw_warn("no watchdog thread: the run's budget is not enforced");
	report_obj_begin(r, NULL);
	print_header(r, o, t, n);
	fflush(r->out);
	if (o->mode == MODE_PLAIN)
		rc = run_plain(o, r, t, n);
	else if (o->mode == MODE_MEMORY)
		rc = run_memory(o, r, t, n);
	else if (o->mode == MODE_SWEEP_THREADS || o->mode == MODE_SWEEP_CHUNK ||
		 o->mode == MODE_SWEEP_DEPTH)
		rc = run_curve(o, r, t, n);
	else
		rc = run_series(o, r, t, n);
	nbw_watchdog_stop();
	prov_report(r, o->prov);
	report_obj_end(r);
	report_finish(r);
	/*
	 * A run cut short (SIGINT/SIGTERM) is no success, even with its figures
	 * printed (marked interrupted): a script must not take them as a whole run.
	 */
	if (rc == NBW_EXIT_OK && nbw_interrupted()) {
		nbw_err("interrupted: the figures cover only what ran (marked \"interrupted\")");
		rc = NBW_EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static struct target targets[TARGET_MAX];
	static struct provenance prov;
	struct target_query q = {.option = "--disks"};
	struct target_err e;
	struct options o;
	struct report r;
	FILE *out;
	int n, rc;

	nbw_set_prog(argv[0]);
	prov_init(&prov, argc, argv);
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	o.prov = &prov;
	q.sysfs_root = o.cc.sysfs_root;
	q.required = o.mode != MODE_MEMORY; /* --memory: the drives say the nodes, if any */
	q.list = o.disks;
	n = target_collect(&q, targets, &e);
	if (n < 0)
		return nbw_say_err(e.usage, e.msg);
	target_provenance(targets, n, o.cc.sysfs_root, &prov);
	if (o.mode == MODE_MEMORY)
		memory_plan(&o, n);
	if (!o.list)
		buffers_plan(&o, n);
	out = cli_open_output(&o.cc);
	if (!out) {
		target_close(targets, n);
		return NBW_EXIT_FAIL;
	}
	report_init(&r, out, o.cc.json, o.cc.gbits);
	rc = run(&o, &r, targets, n);
	target_close(targets, n);
	cli_close_output(out);
	return rc;
}
