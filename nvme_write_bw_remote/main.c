// SPDX-License-Identifier: MIT
/*
 * nvme_write_bw_remote: drive -> staging DRAM -> RDMA WRITE -> remote DRAM,
 * verified. Without a peer the process is the sink (it also reads its own
 * drives and reports the node's aggregate); with a peer it is the source.
 * This file owns the options, the read targets, the measured window and the
 * output pieces; the roles live in sink.c and source.c, the protocol in
 * common/ctrl.c and the verbs in common/rdma.c.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "digest.h"
#include "cli.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "remote.h"
#include "timing.h"

#define MAX_THREADS 256
#define MAX_DEPTH 256

atomic_bool g_interrupted;
const char *const report_rule =
	"---------------------------------------------------------------------------------------\n";

static void usage(void)
{
	printf("Usage: %s [options]          sink (receives; reads its own drives too)\n"
	       "       %s [options] PEER     source (reads its drives, RDMA WRITEs to PEER)\n",
	       nbw_prog, nbw_prog);
	printf("\nMeasure what arrives end to end: NVMe drive -> staging DRAM -> RDMA WRITE ->\n"
	       "remote DRAM, with one RC QP per worker, verified. The sink's CPU posts nothing\n"
	       "and takes no completions for the data. Never writes to a drive.\n");
	printf("\nRDMA and connection:\n"
	       "  -d, --ib-dev LIST      RDMA devices to use, dev or dev:port, comma-separated\n"
	       "                         (default: every ACTIVE port)\n"
	       "  -x, --gid-index N      GID index whose address the connections use (RoCE)\n"
	       "  -p, --port N           rdma_cm and control port (default %u)\n"
	       "      --bind ADDR        sink: address to listen on (default: any)\n"
	       "      --timeout SECONDS  bound on every network wait (default 10)\n"
	       "      --wait SECONDS     sink: how long to wait for a source (default 60, 0 = forever)\n",
	       DEFAULT_PORT);
	printf("\nData path:\n"
	       "  -s, --chunk SIZE       I/O size = RDMA message size (default 1M); --size too\n"
	       "      --depth N          staging slots = WRITEs in flight per worker (default 4)\n"
	       "  -t, --threads N        source: workers per drive; sink: local readers per\n"
	       "                         drive (default 12)\n"
	       "      --source disk|mem  source: read drives (default) or send from memory\n"
	       "  -q, --qp N             --source mem: number of workers (QPs) (default 1)\n"
	       "      --disks LIST       source: drives to read (default: every NVMe namespace)\n"
	       "      --local-disks LIST sink: its own drives read meanwhile (default: every NVMe\n"
	       "                         namespace; none found = RDMA only)\n"
	       "      --no-local         sink: RDMA only\n"
	       "      --dram SIZE        sink: DRAM buffer for all slices and local reads (default 16G)\n"
	       "      --span SIZE        bytes of each drive to sweep (default: the whole drive)\n"
	       "      --engine ENGINE    reader engine: psync (default) or io_uring%s\n"
	       "      --sysfs-root DIR   read sysfs from DIR instead of /sys\n",
	       reader_engine_available(ENGINE_IO_URING) ? "" : " (not built)");
	printf("\nWindow (both sides must agree):\n"
	       "      --warmup SECONDS   unmeasured warm-up (default 3)\n"
	       "  -D, --duration SECONDS measured window (default 20)\n"
	       "      --interval SECONDS print a live line every interval (sink: local, and RDMA\n"
	       "                         as the source's heartbeats report it; on stderr with --json)\n");
	printf("\nVerification (both sides must agree):\n"
	       "      --verify MODE      canary (default): one real chunk per worker, hashed on\n"
	       "                         both sides; full: also every slice slot after the window\n"
	       "      --no-verify        no verification (said so in the output)\n"
	       "      --corrupt-canary   source, for tests: damage the canary after hashing it\n"
	       "      --dump-slice FILE  sink: write worker 0's slice to FILE and its slot map to\n"
	       "                         FILE.map (\"slot offset length\" per line)\n");
	printf("\nOutput:\n"
	       "      --report_gbits     text bandwidth in Gb/s instead of GB/s\n"
	       "      --json[=FILE]      one JSON document on stdout (or into FILE)\n"
	       "  -h, --help             this help\n"
	       "  -V, --version          version\n");
	printf("\nSizes: 4096, 1M = 1MiB = 2^20, 1MB = 10^6, 16G = 2^34.\n"
	       "A peer that dies or goes silent is detected within --timeout seconds.\n"
	       "Exit status: 0 ok, 1 runtime failure (device, fabric, peer, verification FAIL),\n"
	       "2 usage error.\n");
}

enum {
	OPT_BIND = CHAR_MAX + 1,
	OPT_TIMEOUT,
	OPT_WAIT,
	OPT_DEPTH,
	OPT_SOURCE,
	OPT_DISKS,
	OPT_LOCAL_DISKS,
	OPT_NO_LOCAL,
	OPT_DRAM,
	OPT_SPAN,
	OPT_ENGINE,
	OPT_SYSFS_ROOT,
	OPT_WARMUP,
	OPT_INTERVAL,
	OPT_VERIFY,
	OPT_NO_VERIFY,
	OPT_CORRUPT,
	OPT_DUMP,
	OPT_GBITS,
	OPT_JSON,
};

static const struct option longopts[] = {
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "chunk", required_argument, NULL, 's' },
	{ "size", required_argument, NULL, 's' },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "threads", required_argument, NULL, 't' },
	{ "qp", required_argument, NULL, 'q' },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "disks", required_argument, NULL, OPT_DISKS },
	{ "local-disks", required_argument, NULL, OPT_LOCAL_DISKS },
	{ "no-local", no_argument, NULL, OPT_NO_LOCAL },
	{ "dram", required_argument, NULL, OPT_DRAM },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "duration", required_argument, NULL, 'D' },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "verify", required_argument, NULL, OPT_VERIFY },
	{ "no-verify", no_argument, NULL, OPT_NO_VERIFY },
	{ "corrupt-canary", no_argument, NULL, OPT_CORRUPT },
	{ "dump-slice", required_argument, NULL, OPT_DUMP },
	{ "report_gbits", no_argument, NULL, OPT_GBITS },
	{ "json", optional_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Options that make sense for one role only. */
static int check_role(const struct options *o, bool local_disks_set, bool dram_set)
{
	const char *wrong = NULL;

	if (o->peer) {
		if (o->bind)
			wrong = "--bind";
		else if (local_disks_set)
			wrong = "--local-disks";
		else if (o->no_local)
			wrong = "--no-local";
		else if (dram_set)
			wrong = "--dram";
		else if (o->dump_slice)
			wrong = "--dump-slice";
		if (wrong) {
			nbw_usage_err("%s is a sink option (no PEER argument)", wrong);
			return NBW_EXIT_USAGE;
		}
	} else {
		if (o->source == CTRL_SOURCE_MEM)
			wrong = "--source";
		else if (o->qps_set)
			wrong = "--qp";
		else if (o->corrupt_canary)
			wrong = "--corrupt-canary";
		if (wrong) {
			nbw_usage_err("%s is a source option (needs a PEER argument)", wrong);
			return NBW_EXIT_USAGE;
		}
	}
	return -1;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	bool local_set = false, dram_set = false;
	unsigned long n;
	int c, rc;

	*o = (struct options){
		.gid_index = -1,
		.port = DEFAULT_PORT,
		.timeout = 10,
		.wait = 60,
		.chunk = 1 << 20,
		.depth = 4,
		.threads = 12,
		.qps = 1,
		.dram = 16ULL << 30,
		.engine = ENGINE_PSYNC,
		.sysfs_root = "/sys",
		.warmup = 3,
		.duration = 20,
		.verify = CTRL_VERIFY_CANARY,
	};
	while ((c = getopt_long(argc, argv, "d:x:p:s:t:q:D:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->devs = optarg;
			break;
		case 'x':
			rc = parse_uint(optarg, 0, 65535, &n);
			if (rc)
				return cli_bad_value("GID index", optarg, rc);
			o->gid_index = (int)n;
			break;
		case 'p':
			rc = parse_uint(optarg, 1, 65535, &n);
			if (rc)
				return cli_bad_value("port", optarg, rc);
			o->port = (unsigned)n;
			break;
		case OPT_BIND:
			o->bind = optarg;
			break;
		case OPT_TIMEOUT:
			rc = cli_seconds("timeout", optarg, 0.1, &o->timeout);
			if (rc)
				return rc;
			break;
		case OPT_WAIT:
			rc = cli_seconds("wait", optarg, 0, &o->wait);
			if (rc)
				return rc;
			break;
		case 's':
			rc = parse_size(optarg, &o->chunk);
			if (!rc && (o->chunk < 512 || o->chunk > (1ULL << 30)))
				rc = -ERANGE;
			if (rc)
				return cli_bad_value("chunk size", optarg, rc);
			break;
		case OPT_DEPTH:
			rc = parse_uint(optarg, 1, MAX_DEPTH, &n);
			if (rc)
				return cli_bad_value("depth", optarg, rc);
			o->depth = (unsigned)n;
			break;
		case 't':
			rc = parse_uint(optarg, 1, MAX_THREADS, &n);
			if (rc)
				return cli_bad_value("thread count", optarg, rc);
			o->threads = (unsigned)n;
			break;
		case 'q':
			rc = parse_uint(optarg, 1, MAX_WORKERS, &n);
			if (rc)
				return cli_bad_value("QP count", optarg, rc);
			o->qps = (unsigned)n;
			o->qps_set = true;
			break;
		case OPT_SOURCE:
			if (!strcmp(optarg, "disk"))
				o->source = CTRL_SOURCE_DISK;
			else if (!strcmp(optarg, "mem"))
				o->source = CTRL_SOURCE_MEM;
			else {
				nbw_usage_err("unknown source '%s' (disk or mem)", optarg);
				return NBW_EXIT_USAGE;
			}
			break;
		case OPT_DISKS:
			o->disks = optarg;
			break;
		case OPT_LOCAL_DISKS:
			o->disks = optarg;
			local_set = true;
			break;
		case OPT_NO_LOCAL:
			o->no_local = true;
			break;
		case OPT_DRAM:
			rc = parse_size(optarg, &o->dram);
			if (!rc && o->dram < 4096)
				rc = -ERANGE;
			if (rc)
				return cli_bad_value("DRAM size", optarg, rc);
			dram_set = true;
			break;
		case OPT_SPAN:
			rc = parse_size(optarg, &o->span);
			if (!rc && o->span == 0)
				rc = -ERANGE;
			if (rc)
				return cli_bad_value("span", optarg, rc);
			break;
		case OPT_ENGINE:
			if (cli_engine(optarg, &o->engine))
				return NBW_EXIT_USAGE;
			break;
		case OPT_SYSFS_ROOT:
			o->sysfs_root = optarg;
			break;
		case OPT_WARMUP:
			rc = cli_seconds("warm-up", optarg, 0, &o->warmup);
			if (rc)
				return rc;
			break;
		case 'D':
			rc = cli_seconds("duration", optarg, 0.01, &o->duration);
			if (rc)
				return rc;
			break;
		case OPT_INTERVAL:
			rc = cli_seconds("interval", optarg, 0.01, &o->interval);
			if (rc)
				return rc;
			break;
		case OPT_VERIFY:
			if (!strcmp(optarg, "canary"))
				o->verify = CTRL_VERIFY_CANARY;
			else if (!strcmp(optarg, "full"))
				o->verify = CTRL_VERIFY_FULL;
			else {
				nbw_usage_err("unknown verify mode '%s' (canary or full)", optarg);
				return NBW_EXIT_USAGE;
			}
			break;
		case OPT_NO_VERIFY:
			o->verify = CTRL_VERIFY_OFF;
			break;
		case OPT_CORRUPT:
			o->corrupt_canary = true;
			break;
		case OPT_DUMP:
			o->dump_slice = optarg;
			break;
		case OPT_GBITS:
			o->gbits = true;
			break;
		case OPT_JSON:
			o->json = true;
			o->json_file = optarg;
			break;
		case 'h':
			usage();
			exit(NBW_EXIT_OK);
		case 'V':
			nbw_print_version();
			exit(NBW_EXIT_OK);
		default:
			return cli_try_help();
		}
	}
	if (optind < argc)
		o->peer = argv[optind++];
	if (optind < argc) {
		nbw_usage_err("unexpected argument '%s' (one PEER at most)", argv[optind]);
		return NBW_EXIT_USAGE;
	}
	rc = check_role(o, local_set, dram_set);
	if (rc >= 0)
		return rc;
	if (o->corrupt_canary && o->verify == CTRL_VERIFY_OFF) {
		nbw_usage_err("--corrupt-canary needs verification (drop --no-verify)");
		return NBW_EXIT_USAGE;
	}
	if (o->verify != CTRL_VERIFY_OFF && o->chunk % DIGEST_BLOCK) {
		nbw_usage_err("verification needs a chunk that is a multiple of %u (or --no-verify)",
			      DIGEST_BLOCK);
		return NBW_EXIT_USAGE;
	}
	if (o->qps_set && o->source != CTRL_SOURCE_MEM) {
		nbw_usage_err("--qp sets the workers of --source mem; drives use --threads per drive");
		return NBW_EXIT_USAGE;
	}
	if (o->engine == ENGINE_IO_URING && o->peer) {
		nbw_usage_err("the source's staging slots are read with psync; --engine is a sink option");
		return NBW_EXIT_USAGE;
	}
	return -1;
}

int opt_timeout_ms(const struct options *o)
{
	return (int)(o->timeout * 1000 + 0.5);
}

int select_ports(const struct options *o, struct rdma_port *ports)
{
	char bad[128];
	int n = rdma_ports_select(o->devs, o->gid_index, ports, RDMA_MAX_PORTS, bad, sizeof(bad));

	if (n == -ENODEV)
		nbw_err("no RDMA device found (for Soft-RoCE: rdma link add rxe0 type rxe netdev IFACE)");
	else if (n == -ENOENT)
		nbw_err("%s: no such RDMA device or port", bad);
	else if (n == -ENETDOWN)
		nbw_err("%s: no ACTIVE port", bad);
	else if (n < 0)
		nbw_err("RDMA devices: %s", strerror(-n));
	return n < 0 ? -1 : n;
}

/* ---- targets --------------------------------------------------------------- */

static int target_error(const char *path, int rc)
{
	if (rc == -EISDIR) {
		nbw_err("%s: is a directory, not a block device or file", path);
		return NBW_EXIT_USAGE;
	}
	if (rc == -ENODEV) {
		nbw_err("%s: not a block device or regular file", path);
		return NBW_EXIT_USAGE;
	}
	nbw_err("%s: %s", path, strerror(-rc));
	return rc == -ENOENT || rc == -ENOTDIR ? NBW_EXIT_USAGE : NBW_EXIT_FAIL;
}

int targets_collect(const struct options *o, char *list, bool required, struct target *t)
{
	static struct drive found[MAX_DRIVES];
	char *items[MAX_DRIVES];
	int n, i, j, rc;

	if (!list) {
		n = drive_discover_nvme(o->sysfs_root, "/dev", found, MAX_DRIVES);
		if (n < 0 && required) {
			nbw_err("%s/class/block: %s", o->sysfs_root, strerror(-n));
			return -NBW_EXIT_FAIL;
		}
		if (n <= 0 && required) {
			nbw_err("no NVMe namespaces found under %s/class/block; name drives with "
				"--disks, or use --source mem",
				o->sysfs_root);
			return -NBW_EXIT_FAIL;
		}
		for (i = 0; i < n; i++)
			t[i].d = found[i];
		return n < 0 ? 0 : n;
	}
	n = parse_list(list, items, MAX_DRIVES);
	if (n < 0) {
		nbw_usage_err("invalid drive list: %s", n == -E2BIG ? "too many drives" : "empty item");
		return -NBW_EXIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			if (!strcmp(items[i], items[j])) {
				nbw_usage_err("%s: named twice", items[i]);
				return -NBW_EXIT_USAGE;
			}
		}
		rc = drive_describe(o->sysfs_root, items[i], &t[i].d);
		if (rc)
			return -target_error(items[i], rc);
	}
	return n;
}

int targets_prepare(const struct options *o, struct target *t, int n, unsigned threads)
{
	char a[32], b[32];
	int i;

	for (i = 0; i < n; i++)
		t[i].fd = -1;
	for (i = 0; i < n; i++) {
		struct drive *d = &t[i].d;
		uint32_t align = d->lbs > DIGEST_BLOCK ? d->lbs : DIGEST_BLOCK;

		if (o->chunk % d->lbs) {
			nbw_usage_err("%s: chunk %s is not a multiple of the logical block size %u",
				      d->path, format_size(o->chunk, a, sizeof(a)), d->lbs);
			return NBW_EXIT_USAGE;
		}
		if (o->span > d->size) {
			nbw_usage_err("%s: span %s is larger than the drive (%s)", d->path,
				      format_size(o->span, a, sizeof(a)),
				      format_size(d->size, b, sizeof(b)));
			return NBW_EXIT_USAGE;
		}
		t[i].span = o->span ? o->span : d->size;
		if (t[i].span / threads < align || t[i].span / threads < o->chunk) {
			nbw_usage_err("%s: span %s is too small for %u threads of %s chunks", d->path,
				      format_size(t[i].span, a, sizeof(a)), threads,
				      format_size(o->chunk, b, sizeof(b)));
			return NBW_EXIT_USAGE;
		}
		t[i].fd = drive_open_readonly(d->path);
		if (t[i].fd < 0) {
			nbw_err("%s: %s", d->path, strerror(-t[i].fd));
			return NBW_EXIT_FAIL;
		}
	}
	return 0;
}

void targets_close(struct target *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].fd >= 0)
			close(t[i].fd);
}

/* ---- the window --------------------------------------------------------------- */

FILE *live_stream(const struct options *o)
{
	return o->json ? stderr : stdout;
}

/* Wait until deadline: 0 reached, 1 signal, 2 check() said stop. */
static int window_wait(struct window *w, uint64_t deadline)
{
	uint64_t tick = (uint64_t)(w->tick_ms > 0 ? w->tick_ms : 100) * 1000000ULL;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	for (;;) {
		uint64_t now = nbw_now_ns(), slice = tick;
		struct timespec ts;
		int rc;

		if (w->check && (rc = w->check(w->ctx)) != 0) {
			w->aborted = rc;
			return 2;
		}
		if (now >= deadline)
			return 0;
		if (deadline - now < slice)
			slice = deadline - now;
		ts.tv_sec = (time_t)(slice / NBW_NSEC_PER_SEC);
		ts.tv_nsec = (long)(slice % NBW_NSEC_PER_SEC);
		if (sigtimedwait(&set, NULL, &ts) > 0) {
			atomic_store(&g_interrupted, true);
			w->interrupted = true;
			return 1;
		}
	}
}

int window_run(struct window *w)
{
	uint64_t t0, t_end, t_prev, now;
	int rc;

	w->measured = false;
	w->seconds = 0;
	rc = window_wait(w, nbw_now_ns() + nbw_s_to_ns(w->warmup));
	if (rc)
		return rc;
	t0 = nbw_now_ns();
	w->snapshot(w->ctx, w->start);
	w->measured = true;
	t_end = t0 + nbw_s_to_ns(w->duration);
	t_prev = t0;
	for (;;) {
		uint64_t next = t_end;

		if (w->interval > 0 && w->live && t_prev + nbw_s_to_ns(w->interval) < t_end)
			next = t_prev + nbw_s_to_ns(w->interval);
		rc = window_wait(w, next);
		now = nbw_now_ns();
		if (rc || now >= t_end)
			break;
		w->live(w->ctx, nbw_ns_to_s(now - t0), nbw_ns_to_s(now - t_prev));
		t_prev = now;
	}
	w->snapshot(w->ctx, w->end);
	w->seconds = nbw_ns_to_s(now - t0);
	if (!rc && w->interval > 0 && w->live)
		w->live(w->ctx, w->seconds, nbw_ns_to_s(now - t_prev));
	return rc;
}

/* ---- output pieces ----------------------------------------------------------- */

void print_params(struct report *r, const struct options *o, const char *role)
{
	char a[32];

	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "role", NULL, role);
	report_text(r, "%s", report_rule);
	report_text(r, "          NVMe -> RDMA WRITE -> remote DRAM bandwidth (%s side)\n", role);
	report_text(r, " Tool/version    : nvme_write_bw_remote %s\n", PACKAGE_VERSION);
	report_obj_begin(r, "params");
	report_u64(r, "chunk", NULL, o->chunk);
	report_text(r, " Chunk = message : %-14s", format_size(o->chunk, a, sizeof(a)));
	report_u64(r, "depth", " WRITEs in flight: %llu per worker\n", o->depth);
	report_u64(r, "threads", " Threads/drive   : %-14llu", o->threads);
	report_str(r, "source", " Source          : %s\n",
		   o->source == CTRL_SOURCE_MEM ? "mem" : "disk");
	report_double(r, "warmup_s", NULL, o->warmup);
	report_double(r, "duration_s", NULL, o->duration);
	if (o->interval > 0)
		report_double(r, "interval_s", NULL, o->interval);
	snprintf(a, sizeof(a), "%g s", o->warmup);
	report_text(r, " Warm-up         : %-14s Duration        : %g s\n", a, o->duration);
	report_u64(r, "port", " Port            : %-14llu", o->port);
	report_double(r, "timeout_s", " Timeout         : %g s\n", o->timeout);
	if (!o->peer)
		report_u64(r, "dram", NULL, o->dram);
	report_str(r, "verify_mode", " Verification    : %s\n",
		   o->verify == CTRL_VERIFY_OFF	   ? "off"
		   : o->verify == CTRL_VERIFY_FULL ? "full"
						   : "canary");
	report_obj_end(r);
}

void print_bw_row(struct report *r, const char *key, const char *label, uint64_t bytes,
		  double seconds)
{
	report_obj_begin(r, key);
	report_text(r, " %-22s", label);
	report_u64(r, "bytes", " %16llu", bytes);
	report_double(r, "seconds", " %9.2f", seconds);
	report_bw(r, "gb_per_s", " %9.2f", seconds > 0 ? (double)bytes / seconds : 0);
	report_obj_end(r);
}

void print_drive(struct report *r, const struct drive *d, const char *side, uint64_t bytes,
		 double seconds, unsigned workers)
{
	report_obj_begin(r, NULL);
	report_str(r, "side", " %-6s", side);
	report_str(r, "path", " %-16s", d->path);
	report_str(r, "model", NULL, d->model[0] ? d->model : NULL);
	report_i64(r, "numa_node", NULL, d->numa_node);
	report_u64(r, "workers", NULL, workers);
	report_u64(r, "bytes", " %16llu", bytes);
	report_double(r, "seconds", " %9.2f", seconds);
	report_bw(r, "gb_per_s", " %9.2f\n", seconds > 0 ? (double)bytes / seconds : 0);
	report_obj_end(r);
}

/* verdict: 1 pass, 0 fail, 2 off, -1 unknown (the run failed before). */
void print_verify(struct report *r, const struct options *o, int verdict, const char *detail)
{
	const char *v = verdict == 1 ? "pass" : verdict == 0 ? "fail" : verdict == 2 ? "off" : NULL;

	report_str(r, "verify", NULL, v);
	if (verdict == 2)
		report_text(r, " RDMA data verification: OFF (--no-verify: the data was not checked)\n");
	else if (verdict == 1 || verdict == 0)
		report_text(r, " RDMA data verification: %s (%s%s%s)\n", verdict ? "PASS" : "FAIL",
			    o->verify == CTRL_VERIFY_FULL ? "full" : "canary", detail ? ", " : "",
			    detail ? detail : "");
	else
		report_text(r, " RDMA data verification: not done (the run failed)\n");
	if (detail)
		report_str(r, "verify_detail", NULL, detail);
}

int main(int argc, char **argv)
{
	struct options o;
	struct report r;
	FILE *out = stdout;
	sigset_t set;
	int rc;

	nbw_set_prog(argv[0]);
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.json && o.json_file) {
		out = fopen(o.json_file, "w");
		if (!out) {
			nbw_err("%s: %s", o.json_file, strerror(errno));
			return NBW_EXIT_FAIL;
		}
	}
	/* Signals are taken synchronously by the main thread (sigtimedwait). */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	report_init(&r, out, o.json, o.gbits);
	rc = o.peer ? run_source(&o, &r) : run_sink(&o, &r);
	if (out != stdout)
		fclose(out);
	return rc;
}
