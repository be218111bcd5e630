// SPDX-License-Identifier: MIT
/*
 * nvme_read_bw: read bandwidth of local NVMe drives (or any block device or
 * file) into DRAM with O_DIRECT, many threads per drive, NUMA pinned. Owns
 * the option handling, the run phases (plain, --baseline, --sweep) and the
 * result tables; the reader loop, discovery and output live in common/.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "digest.h"
#include "drive.h"
#include "cli.h"
#include "nbw.h"
#include "parse.h"
#include "placement.h"
#include "reader.h"
#include "report.h"
#include "timing.h"

#define MAX_DRIVES 256
#define MAX_THREADS 1024
#define MAX_DEPTH 1024
#define ZERO_WARN_FRACTION 0.5
#define POLL_MS 100

enum mode { MODE_PLAIN, MODE_BASELINE, MODE_SWEEP };

struct options {
	char *disks;
	unsigned threads;
	uint64_t chunk;
	uint64_t span; /* 0 = whole target */
	enum reader_engine engine;
	unsigned depth;
	bool depth_set;
	double warmup, duration, interval;
	enum mode mode;
	int numa_policy;
	bool gbits;
	bool json;
	const char *json_file;
	bool checksum;
	bool list;
	const char *sysfs_root;
};

struct target {
	struct drive d;
	int fd;
	uint64_t span;
	double solo_bps; /* bytes/s measured alone (baseline/sweep), NAN if not */
};

struct worker {
	pthread_t tid;
	struct phase *ph;
	struct target *t;
	int tindex; /* index of t in the phase */
	struct region reg;
	_Atomic uint64_t bytes; /* bytes of completed reads, ever increasing */
	uint64_t zero_samples, zero_blocks;
	uint64_t digest, digested;
	int err;
	char why[160]; /* what failed, worded for "<path>: <why>: <strerror><hint>" */
	const char *hint;
};

/* Per-target results of one phase. */
struct tresult {
	uint64_t bytes;
	double seconds;
	uint64_t zero_samples, zero_blocks; /* sampled 4 KiB blocks, all-zero ones */
	double zero_fraction;
	uint64_t digest, digested;
	double *samples; /* bytes/s per interval */
	unsigned nsamples;
};

struct phase {
	const struct options *o;
	struct target **t;
	int nt;
	struct worker *w;
	int nw;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int nready; /* workers set up (or failed) and waiting for go */
	bool go;    /* main: start reading (or, with stop set, leave) */
	atomic_bool stop;
	atomic_bool failed;
	struct tresult *res;
	uint64_t total_bytes;
	double seconds;
	bool interrupted;     /* Ctrl-C ended the window early */
	bool nothing_measured; /* interrupted before the window opened */
};

static atomic_bool g_interrupted;

static void usage(void)
{
	printf("Usage: %s [options]\n", nbw_prog);
	printf("\nRead NVMe drives (or block devices / files) with O_DIRECT and report GB/s\n"
	       "per drive and in aggregate. Never writes to a drive.\n");
	printf("\nTargets:\n"
	       "      --disks LIST       comma-separated targets (default: every NVMe namespace)\n"
	       "                         block devices and regular files are accepted too\n"
	       "      --list             list the targets and exit\n"
	       "      --sysfs-root DIR   read sysfs from DIR instead of /sys\n");
	printf("\nReaders:\n"
	       "  -t, --threads N        reader threads per drive (default 12)\n"
	       "  -s, --chunk SIZE       bytes per read (default 1M); a multiple of the block size\n"
	       "      --span SIZE        bytes of each drive to sweep (default: the whole drive)\n"
	       "      --engine ENGINE    psync (default) or io_uring%s\n"
	       "      --depth N          reads in flight per thread, io_uring only (default 8)\n"
	       "      --numa auto|off|N  pin readers to the drive's node, none, or node N\n"
	       "                         (default auto)\n",
	       reader_engine_available(ENGINE_IO_URING) ? "" : " (not built)");
	printf("\nWindow:\n"
	       "      --warmup SECONDS   unmeasured warm-up (default 3)\n"
	       "  -D, --duration SECONDS measured window (default 20)\n"
	       "      --interval SECONDS print a live line every interval\n"
	       "      SECONDS accept the units s, ms, m and h (\"500ms\", \"2m\")\n");
	printf("\nModes:\n"
	       "      --baseline         each drive alone, then all together: total vs ideal\n"
	       "      --sweep            1, 2, ... N drives together: total vs ideal\n");
	printf("\nOutput:\n"
	       "      --report_gbits     text bandwidth in Gb/s instead of GB/s\n"
	       "      --json[=FILE]      one JSON document on stdout (or into FILE)\n"
	       "      --checksum         digest every block of each span's first sweep\n"
	       "  -h, --help             this help\n"
	       "  -V, --version          version\n");
	printf("\nSizes: 4096, 1M = 1MiB = 2^20, 1MB = 10^6, 16G = 2^34.\n"
	       "Exit status: 0 ok, 1 runtime failure, 2 usage error.\n");
}

enum {
	OPT_DISKS = CHAR_MAX + 1,
	OPT_LIST,
	OPT_SYSFS_ROOT,
	OPT_SPAN,
	OPT_ENGINE,
	OPT_DEPTH,
	OPT_NUMA,
	OPT_WARMUP,
	OPT_INTERVAL,
	OPT_BASELINE,
	OPT_SWEEP,
	OPT_GBITS,
	OPT_JSON,
	OPT_CHECKSUM,
};

static const struct option longopts[] = {
	{ "disks", required_argument, NULL, OPT_DISKS },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS_ROOT },
	{ "threads", required_argument, NULL, 't' },
	{ "chunk", required_argument, NULL, 's' },
	{ "span", required_argument, NULL, OPT_SPAN },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "numa", required_argument, NULL, OPT_NUMA },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "duration", required_argument, NULL, 'D' },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "baseline", no_argument, NULL, OPT_BASELINE },
	{ "sweep", no_argument, NULL, OPT_SWEEP },
	{ "report_gbits", no_argument, NULL, OPT_GBITS },
	{ "json", optional_argument, NULL, OPT_JSON },
	{ "checksum", no_argument, NULL, OPT_CHECKSUM },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int parse_options(int argc, char **argv, struct options *o)
{
	unsigned long n;
	int c, rc;

	*o = (struct options){
		.threads = 12,
		.chunk = 1 << 20,
		.engine = ENGINE_PSYNC,
		.depth = 1,
		.warmup = 3,
		.duration = 20,
		.numa_policy = NUMA_POLICY_AUTO,
		.sysfs_root = "/sys",
	};
	while ((c = getopt_long(argc, argv, "t:s:D:hV", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DISKS:
			o->disks = optarg;
			break;
		case OPT_LIST:
			o->list = true;
			break;
		case OPT_SYSFS_ROOT:
			o->sysfs_root = optarg;
			break;
		case 't':
			rc = parse_uint(optarg, 1, MAX_THREADS, &n);
			if (rc)
				return cli_bad_value("thread count", optarg, rc);
			o->threads = (unsigned)n;
			break;
		case 's':
			rc = parse_size(optarg, &o->chunk);
			if (!rc && (o->chunk == 0 || o->chunk > (1ULL << 30)))
				rc = -ERANGE;
			if (rc)
				return cli_bad_value("chunk size", optarg, rc);
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
		case OPT_DEPTH:
			rc = parse_uint(optarg, 1, MAX_DEPTH, &n);
			if (rc)
				return cli_bad_value("depth", optarg, rc);
			o->depth = (unsigned)n;
			o->depth_set = true;
			break;
		case OPT_NUMA:
			rc = numa_policy_parse(optarg, &o->numa_policy);
			if (rc == -ERANGE) {
				nbw_usage_err("NUMA node %s does not exist here (%d node%s)", optarg,
					      numa_nodes(), numa_nodes() == 1 ? "" : "s");
				return NBW_EXIT_USAGE;
			}
			if (rc)
				return cli_bad_value("NUMA policy (auto, off or a node)", optarg, rc);
			break;
		case OPT_WARMUP:
			if (cli_seconds("warm-up", optarg, 0, &o->warmup))
				return NBW_EXIT_USAGE;
			break;
		case 'D':
			if (cli_seconds("duration", optarg, 0.01, &o->duration))
				return NBW_EXIT_USAGE;
			break;
		case OPT_INTERVAL:
			if (cli_seconds("interval", optarg, 0.01, &o->interval))
				return NBW_EXIT_USAGE;
			break;
		case OPT_BASELINE:
		case OPT_SWEEP:
			if (o->mode != MODE_PLAIN) {
				nbw_usage_err("--baseline and --sweep cannot be combined");
				return NBW_EXIT_USAGE;
			}
			o->mode = c == OPT_BASELINE ? MODE_BASELINE : MODE_SWEEP;
			break;
		case OPT_GBITS:
			o->gbits = true;
			break;
		case OPT_JSON:
			o->json = true;
			o->json_file = optarg;
			break;
		case OPT_CHECKSUM:
			o->checksum = true;
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
	if (optind < argc) {
		nbw_usage_err("unexpected argument '%s' (targets go in --disks)", argv[optind]);
		return NBW_EXIT_USAGE;
	}
	if (o->engine == ENGINE_PSYNC && o->depth_set && o->depth > 1) {
		nbw_usage_err("--depth needs --engine io_uring (psync has one read in flight)");
		return NBW_EXIT_USAGE;
	}
	if (o->engine == ENGINE_IO_URING && !o->depth_set)
		o->depth = 8;
	if (o->checksum && o->chunk % DIGEST_BLOCK) {
		nbw_usage_err("--checksum needs a chunk that is a multiple of %u", DIGEST_BLOCK);
		return NBW_EXIT_USAGE;
	}
	if (o->list && o->mode != MODE_PLAIN) {
		nbw_usage_err("--list cannot be combined with --baseline or --sweep");
		return NBW_EXIT_USAGE;
	}
	return -1;
}

/* Message for a target that cannot be used; returns its exit code. */
static int target_error(const char *path, int rc)
{
	switch (rc) {
	case -EISDIR:
		nbw_err("%s: is a directory, not a block device or file", path);
		return NBW_EXIT_USAGE;
	case -ENODEV:
		nbw_err("%s: not a block device or regular file", path);
		return NBW_EXIT_USAGE;
	case -ENOENT:
	case -ENOTDIR:
		nbw_err("%s: %s", path, strerror(-rc));
		return NBW_EXIT_USAGE;
	default:
		nbw_err("%s: %s", path, strerror(-rc));
		return NBW_EXIT_FAIL;
	}
}

/* Fill targets from --disks or discovery. Returns the count or minus an exit code. */
static int collect_targets(const struct options *o, struct target *t)
{
	static struct drive found[MAX_DRIVES];
	char *items[MAX_DRIVES];
	int n, i, rc;

	if (!o->disks) {
		n = drive_discover_nvme(o->sysfs_root, "/dev", found, MAX_DRIVES);
		if (n < 0) {
			nbw_err("%s/class/block: %s", o->sysfs_root, strerror(-n));
			return -NBW_EXIT_FAIL;
		}
		if (n == 0) {
			nbw_err("no NVMe namespaces found under %s/class/block; name targets with --disks",
				o->sysfs_root);
			return -NBW_EXIT_FAIL;
		}
		for (i = 0; i < n; i++)
			t[i].d = found[i];
		return n;
	}
	n = parse_list(o->disks, items, MAX_DRIVES);
	if (n < 0) {
		nbw_usage_err("invalid --disks list: %s",
			      n == -E2BIG ? "too many targets" : "empty item");
		return -NBW_EXIT_USAGE;
	}
	for (i = 0; i < n; i++) {
		int j;

		for (j = 0; j < i; j++) {
			if (!strcmp(items[i], items[j])) {
				nbw_usage_err("%s: named twice in --disks", items[i]);
				return -NBW_EXIT_USAGE;
			}
		}
		rc = drive_describe(o->sysfs_root, items[i], &t[i].d);
		if (rc)
			return -target_error(items[i], rc);
	}
	return n;
}

/* Open each target read-only and check the geometry against the options. */
static int prepare_targets(const struct options *o, struct target *t, int n)
{
	char a[32], b[32];
	int i;

	for (i = 0; i < n; i++)
		t[i].fd = -1;
	for (i = 0; i < n; i++) {
		struct drive *d = &t[i].d;
		uint32_t align = d->lbs > DIGEST_BLOCK ? d->lbs : DIGEST_BLOCK;

		t[i].solo_bps = NAN;
		if (o->chunk % d->lbs) {
			nbw_usage_err("%s: chunk %s is not a multiple of the logical block size %u",
				      d->path, format_size(o->chunk, a, sizeof(a)), d->lbs);
			return NBW_EXIT_USAGE;
		}
		if (o->span > d->size) {
			nbw_usage_err("%s: span %s is larger than the target (%s)", d->path,
				      format_size(o->span, a, sizeof(a)),
				      format_size(d->size, b, sizeof(b)));
			return NBW_EXIT_USAGE;
		}
		t[i].span = o->span ? o->span : d->size;
		if (o->chunk > t[i].span) {
			nbw_usage_err("%s: chunk %s is larger than the span (%s)", d->path,
				      format_size(o->chunk, a, sizeof(a)),
				      format_size(t[i].span, b, sizeof(b)));
			return NBW_EXIT_USAGE;
		}
		if (t[i].span / o->threads < align) {
			nbw_usage_err("%s: span %s is too small for %u threads (each needs %u bytes)",
				      d->path, format_size(t[i].span, a, sizeof(a)), o->threads,
				      align);
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

/* ---- the measured run --------------------------------------------------- */

static void worker_fail(struct worker *w, int rc, const char *fmt, ...) NBW_PRINTF(3, 4);

static void worker_fail(struct worker *w, int rc, const char *fmt, ...)
{
	va_list ap;

	w->err = rc;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	atomic_store(&w->ph->failed, true);
}

/* Worker side of the start line: report ready, wait for the main thread's go. */
static void phase_worker_ready(struct phase *ph)
{
	pthread_mutex_lock(&ph->lock);
	ph->nready++;
	pthread_cond_broadcast(&ph->cond);
	while (!ph->go)
		pthread_cond_wait(&ph->cond, &ph->lock);
	pthread_mutex_unlock(&ph->lock);
}

/* Main side: wait until n workers are ready, then let them all go. */
static void phase_start(struct phase *ph, int n)
{
	pthread_mutex_lock(&ph->lock);
	while (ph->nready < n)
		pthread_cond_wait(&ph->cond, &ph->lock);
	ph->go = true;
	pthread_cond_broadcast(&ph->cond);
	pthread_mutex_unlock(&ph->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct options *o = w->ph->o;
	struct target *t = w->t;
	size_t buflen = (size_t)o->chunk * o->depth;
	size_t align = t->d.lbs > 4096 ? t->d.lbs : 4096;
	struct reader rd;
	struct reader_chunk c;
	void *buf = NULL;
	int lock_errno, rc;
	bool opened = false;

	rc = numa_pin_self(numa_policy_node(o->numa_policy, t->d.numa_node));
	if (rc)
		worker_fail(w, rc, "pin to NUMA node");
	if (!rc) {
		char sz[32];

		rc = buffer_alloc_locked(buflen, align, &buf, &lock_errno);
		format_size(buflen, sz, sizeof(sz));
		if (rc && lock_errno) {
			w->hint = " (raise 'ulimit -l')";
			worker_fail(w, rc, "cannot lock a %s reader buffer in memory", sz);
		}
		else if (rc)
			worker_fail(w, rc, "cannot allocate a %s reader buffer", sz);
	}
	if (!rc) {
		rc = reader_open(&rd, t->fd, o->engine, o->depth, o->chunk, t->d.lbs, t->d.size,
				 w->reg, buf);
		if (rc)
			worker_fail(w, rc, "set up reader");
		opened = !rc;
	}
	phase_worker_ready(w->ph);

	while (!rc && !atomic_load_explicit(&w->ph->stop, memory_order_relaxed)) {
		rc = reader_next(&rd, &c, POLL_MS);
		if (rc == -ETIMEDOUT) {
			rc = 0;
			continue;
		}
		if (rc) {
			worker_fail(w, rc, "read at offset %llu", (unsigned long long)c.offset);
			break;
		}
		w->zero_samples += zero_sample(c.buf, c.len, &w->zero_blocks);
		if (o->checksum && c.sweep == 0) {
			w->digest = digest_add(w->digest, c.offset, c.buf, c.len);
			w->digested += c.len;
		}
		atomic_fetch_add_explicit(&w->bytes, c.len, memory_order_relaxed);
		reader_release(&rd, c.slot);
	}
	if (opened)
		reader_close(&rd);
	buffer_free_locked(buf, buflen);
	return NULL;
}

/*
 * Wait until deadline (monotonic ns). 0 reached, 1 interrupted by a signal,
 * 2 a worker failed.
 */
static int phase_wait(struct phase *ph, uint64_t deadline)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	for (;;) {
		uint64_t now = nbw_now_ns();
		uint64_t slice = 100 * 1000000ULL;
		struct timespec ts;

		if (atomic_load(&ph->failed))
			return 2;
		if (atomic_load(&g_interrupted))
			return 1;
		if (now >= deadline)
			return 0;
		if (deadline - now < slice)
			slice = deadline - now;
		ts.tv_sec = (time_t)(slice / NBW_NSEC_PER_SEC);
		ts.tv_nsec = (long)(slice % NBW_NSEC_PER_SEC);
		if (sigtimedwait(&set, NULL, &ts) > 0) {
			atomic_store(&g_interrupted, true);
			return 1;
		}
	}
}

/* Bytes completed so far per target of the phase. */
static void snapshot(const struct phase *ph, uint64_t *per_target)
{
	int i;

	memset(per_target, 0, sizeof(*per_target) * (size_t)ph->nt);
	for (i = 0; i < ph->nw; i++)
		per_target[ph->w[i].tindex] +=
			atomic_load_explicit(&ph->w[i].bytes, memory_order_relaxed);
}

static void print_interval(const struct phase *ph, double at, const uint64_t *prev,
			   const uint64_t *cur, double secs)
{
	FILE *out = ph->o->json ? stderr : stdout;
	double scale = ph->o->gbits ? 8e-9 : 1e-9, total = 0;
	int i;

	fprintf(out, "[%7.1fs]", at);
	for (i = 0; i < ph->nt; i++) {
		double bps = (double)(cur[i] - prev[i]) / secs;

		total += bps;
		ph->res[i].samples[ph->res[i].nsamples++] = bps;
		fprintf(out, "  %s %.2f", ph->t[i]->d.name, bps * scale);
	}
	fprintf(out, "  total %.2f %s\n", total * scale, ph->o->gbits ? "Gb/s" : "GB/s");
	fflush(out);
}

/* The measured window: warm-up, then duration with optional interval lines. */
static int phase_window(struct phase *ph)
{
	const struct options *o = ph->o;
	size_t nt = (size_t)ph->nt;
	uint64_t *start = calloc(nt, sizeof(uint64_t)), *prev = calloc(nt, sizeof(uint64_t)),
		 *cur = calloc(nt, sizeof(uint64_t));
	uint64_t t_start, t_prev, t_end, now;
	int rc = 0, i;

	if (!start || !prev || !cur) {
		rc = -ENOMEM;
		goto out;
	}
	rc = phase_wait(ph, nbw_now_ns() + nbw_s_to_ns(o->warmup));
	if (rc) {
		ph->nothing_measured = true;
		goto out;
	}
	t_start = nbw_now_ns();
	snapshot(ph, start);
	memcpy(prev, start, nt * sizeof(uint64_t));
	t_prev = t_start;
	t_end = t_start + nbw_s_to_ns(o->duration);
	for (;;) {
		uint64_t next = t_end;

		if (o->interval > 0 && t_prev + nbw_s_to_ns(o->interval) < t_end)
			next = t_prev + nbw_s_to_ns(o->interval);
		rc = phase_wait(ph, next);
		now = nbw_now_ns();
		snapshot(ph, cur);
		if (rc)
			break;
		if (o->interval > 0)
			print_interval(ph, nbw_ns_to_s(now - t_start), prev, cur,
				       nbw_ns_to_s(now - t_prev));
		if (now >= t_end)
			break;
		memcpy(prev, cur, nt * sizeof(uint64_t));
		t_prev = now;
	}
	ph->interrupted = rc == 1;
	ph->seconds = nbw_ns_to_s(now - t_start);
	for (i = 0; i < ph->nt; i++) {
		ph->res[i].bytes = cur[i] - start[i];
		ph->res[i].seconds = ph->seconds;
		ph->total_bytes += ph->res[i].bytes;
	}
	if (rc == 1)
		rc = 0;
out:
	free(start);
	free(prev);
	free(cur);
	return rc;
}

static void phase_free(struct phase *ph)
{
	int i;

	if (ph->res)
		for (i = 0; i < ph->nt; i++)
			free(ph->res[i].samples);
	free(ph->res);
	free(ph->w);
	ph->res = NULL;
	ph->w = NULL;
}

/* Report the first worker failure; returns the exit code. */
static int phase_failure(const struct phase *ph)
{
	int i;

	for (i = 0; i < ph->nw; i++) {
		const struct worker *w = &ph->w[i];

		if (!w->err)
			continue;
		nbw_err("%s: %s: %s%s", w->t->d.path, w->why, strerror(-w->err),
			w->hint ? w->hint : "");
		return NBW_EXIT_FAIL;
	}
	return NBW_EXIT_OK;
}

/* Run one phase over targets t[0..nt). Returns an exit code. */
static int phase_run(const struct options *o, struct target **t, int nt, struct phase *ph)
{
	unsigned samples_max = o->interval > 0 ? (unsigned)(o->duration / o->interval) + 2 : 0;
	struct region *regs;
	int i, k, nw = 0, rc = NBW_EXIT_OK;

	memset(ph, 0, sizeof(*ph));
	ph->o = o;
	ph->t = t;
	ph->nt = nt;
	ph->nw = nt * (int)o->threads;
	ph->w = calloc((size_t)ph->nw, sizeof(*ph->w));
	ph->res = calloc((size_t)nt, sizeof(*ph->res));
	regs = calloc(o->threads, sizeof(*regs));
	if (!ph->w || !ph->res || !regs) {
		free(regs);
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	for (i = 0; i < nt; i++) {
		uint32_t align = t[i]->d.lbs > DIGEST_BLOCK ? t[i]->d.lbs : DIGEST_BLOCK;

		if (samples_max)
			ph->res[i].samples = calloc(samples_max, sizeof(double));
		region_split(t[i]->span, o->threads, align, regs);
		for (k = 0; k < (int)o->threads; k++) {
			struct worker *w = &ph->w[i * (int)o->threads + k];

			w->ph = ph;
			w->t = t[i];
			w->tindex = i;
			w->reg = regs[k];
		}
	}
	free(regs);
	pthread_mutex_init(&ph->lock, NULL);
	pthread_cond_init(&ph->cond, NULL);
	for (i = 0; i < ph->nw; i++) {
		int err = pthread_create(&ph->w[i].tid, NULL, worker_main, &ph->w[i]);

		if (err) {
			nbw_err("cannot start reader thread %d of %d: %s", i + 1, ph->nw,
				strerror(err));
			atomic_store(&ph->stop, true);
			rc = NBW_EXIT_FAIL;
			break;
		}
		nw++;
	}
	/* Threads that started go either to work or, with stop set, straight out. */
	phase_start(ph, nw);
	if (rc == NBW_EXIT_OK && !atomic_load(&ph->failed) && phase_window(ph) < 0) {
		nbw_err("out of memory");
		rc = NBW_EXIT_FAIL;
	}
	atomic_store(&ph->stop, true);
	for (i = 0; i < nw; i++)
		pthread_join(ph->w[i].tid, NULL);
	ph->nw = nw;
	pthread_cond_destroy(&ph->cond);
	pthread_mutex_destroy(&ph->lock);
	if (rc == NBW_EXIT_OK)
		rc = phase_failure(ph);
	for (i = 0; i < ph->nw; i++) {
		struct tresult *r = &ph->res[ph->w[i].tindex];
		const struct worker *w = &ph->w[i];

		r->digest += w->digest;
		r->digested += w->digested;
		r->zero_samples += w->zero_samples;
		r->zero_blocks += w->zero_blocks;
	}
	for (i = 0; i < nt; i++) {
		struct tresult *r = &ph->res[i];

		r->zero_fraction = r->zero_samples ? (double)r->zero_blocks / (double)r->zero_samples
						   : NAN;
	}
	return rc;
}

/* ---- output -------------------------------------------------------------- */

static const char *rule = "---------------------------------------------------------------------------------------\n";

static void print_header(struct report *r, const struct options *o, struct target *t, int n)
{
	char a[32];
	int i;

	report_str(r, "tool", NULL, "nvme_read_bw");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_text(r, "%s", rule);
	report_text(r, "                    NVMe read bandwidth (O_DIRECT, read only)\n");
	report_text(r, " Tool/version    : nvme_read_bw %s\n", PACKAGE_VERSION);
	report_obj_begin(r, "params");
	report_str(r, "engine", " Engine          : %-14s", reader_engine_name(o->engine));
	report_u64(r, "depth", " Reads in flight : %llu per thread\n", o->depth);
	report_u64(r, "threads", " Threads/drive   : %-14llu", o->threads);
	report_u64(r, "chunk", NULL, o->chunk);
	report_text(r, " Chunk           : %s\n", format_size(o->chunk, a, sizeof(a)));
	if (o->span)
		report_u64(r, "span", NULL, o->span);
	else
		report_null(r, "span", NULL);
	report_text(r, " Span            : %-14s",
		    o->span ? format_size(o->span, a, sizeof(a)) : "whole drive");
	report_str(r, "numa", " NUMA            : %s\n",
		   o->numa_policy == NUMA_POLICY_AUTO  ? "auto"
		   : o->numa_policy == NUMA_POLICY_OFF ? "off"
						       : (snprintf(a, sizeof(a), "%d", o->numa_policy), a));
	report_double(r, "warmup_s", NULL, o->warmup);
	report_double(r, "duration_s", NULL, o->duration);
	snprintf(a, sizeof(a), "%g s", o->warmup);
	report_text(r, " Warm-up         : %-14s Duration        : %g s\n", a, o->duration);
	if (o->interval > 0)
		report_double(r, "interval_s", NULL, o->interval);
	report_str(r, "mode", " Mode            : %s\n",
		   o->mode == MODE_BASELINE ? "baseline" : o->mode == MODE_SWEEP ? "sweep" : "plain");
	report_bool(r, "checksum", NULL, o->checksum);
	report_obj_end(r);
	report_text(r, " Drives          : %d\n", n);
	report_text(r, "   %-16s %-6s %-24s %5s %6s %10s  %s\n", "path", "kind", "model", "numa",
		    "lbs", "size", "pci");
	for (i = 0; i < n; i++) {
		const struct drive *d = &t[i].d;

		report_text(r, "   %-16s %-6s %-24.24s %5d %6u %10s  %s\n", d->path,
			    drive_kind_name(d->kind), d->model[0] ? d->model : "-", d->numa_node,
			    d->lbs, format_size(d->size, a, sizeof(a)), d->bdf[0] ? d->bdf : "-");
	}
	for (i = 0; i < n; i++) {
		if (t[i].d.kind == DRIVE_FILE)
			report_text(r, " note: %s is a regular file, not an NVMe drive; O_DIRECT "
				       "bypasses the page cache, the file system stays in the path\n",
				    t[i].d.path);
		else if (t[i].d.kind == DRIVE_BLOCK)
			report_text(r, " note: %s is not an NVMe namespace (a generic block device)\n",
				    t[i].d.path);
	}
	report_text(r, "%s", rule);
}

/* The drives[] entries: description plus this phase's figures. */
static void print_drive_rows(struct report *r, const struct phase *ph)
{
	const char *unit = report_bw_unit(r);
	int i;

	report_text(r, " %-16s %16s %9s %9s %7s %11s %10s\n", "drive", "bytes", "seconds", unit,
		    "zero %", "link GB/s", "% of link");
	report_arr_begin(r, "drives");
	for (i = 0; i < ph->nt; i++) {
		const struct drive *d = &ph->t[i]->d;
		const struct tresult *res = &ph->res[i];
		double bps = res->seconds > 0 ? (double)res->bytes / res->seconds : 0;
		unsigned k;

		report_obj_begin(r, NULL);
		report_str(r, "path", " %-16s", d->path);
		report_str(r, "name", NULL, d->name);
		report_str(r, "kind", NULL, drive_kind_name(d->kind));
		report_str(r, "model", NULL, d->model[0] ? d->model : NULL);
		report_str(r, "firmware", NULL, d->firmware[0] ? d->firmware : NULL);
		report_str(r, "pci_address", NULL, d->bdf[0] ? d->bdf : NULL);
		report_i64(r, "numa_node", NULL, d->numa_node);
		report_u64(r, "logical_block_size", NULL, d->lbs);
		report_u64(r, "size", NULL, d->size);
		report_u64(r, "span", NULL, ph->t[i]->span);
		report_u64(r, "bytes", " %16llu", res->bytes);
		report_double(r, "seconds", " %9.2f", res->seconds);
		report_bw(r, "gb_per_s", " %9.2f", bps);
		report_double(r, "zero_fraction", NULL, res->zero_fraction);
		report_double(r, NULL, " %7.1f", res->zero_fraction * 100);
		report_double(r, "link_ceiling_gb_per_s", " %11.2f", d->link_ceiling);
		report_double(r, "percent_of_link_ceiling", " %10.1f",
			      bps / 1e9 / d->link_ceiling * 100);
		report_text(r, "\n");
		if (ph->o->checksum) {
			char hex[17];

			digest_hex(res->digest, hex);
			report_obj_begin(r, "checksum");
			report_u64(r, "span", NULL, ph->t[i]->span);
			report_str(r, "digest", "   checksum %s", hex);
			report_bool(r, "complete", " (first sweep complete: %s)\n",
				    res->digested == ph->t[i]->span);
			report_obj_end(r);
		}
		if (res->nsamples) {
			report_arr_begin(r, "samples_gb_per_s");
			for (k = 0; k < res->nsamples; k++)
				report_double(r, NULL, NULL, res->samples[k] / 1e9);
			report_arr_end(r);
		}
		report_obj_end(r);
	}
	report_arr_end(r);
}

static void print_total(struct report *r, const struct phase *ph, const char *label)
{
	double bps = ph->seconds > 0 ? (double)ph->total_bytes / ph->seconds : 0;

	report_obj_begin(r, "total");
	report_text(r, " %-16s", label);
	report_u64(r, "bytes", " %16llu", ph->total_bytes);
	report_double(r, "seconds", " %9.2f", ph->seconds);
	report_bw(r, "gb_per_s", " %9.2f\n", bps);
	report_obj_end(r);
}

/* Warn (stderr) about targets whose samples were mostly unwritten blocks. */
static void warn_zeros(const struct phase *ph)
{
	int i;

	for (i = 0; i < ph->nt; i++)
		if (ph->res[i].zero_fraction > ZERO_WARN_FRACTION)
			nbw_warn("%s: %.0f%% of sampled blocks are all zeros: unwritten blocks may be "
				 "served without media reads; figures may not represent the media",
				 ph->t[i]->d.path, ph->res[i].zero_fraction * 100);
}

static void print_state(struct report *r, const struct phase *ph)
{
	report_bool(r, "interrupted", NULL, ph->interrupted);
	if (ph->interrupted)
		report_text(r, " (interrupted: the window was cut to %.2f s)\n", ph->seconds);
}

/* One summary row of --baseline / --sweep. */
static void summary_row(struct report *r, const char *label, int ndrives, double bps,
			double ideal_bps)
{
	report_obj_begin(r, NULL);
	report_str(r, "label", " %-22s", label);
	report_u64(r, "drives", " %6llu", (unsigned long long)ndrives);
	report_bw(r, "gb_per_s", " %12.2f", bps);
	report_bw(r, "ideal_gb_per_s", " %12.2f", ideal_bps);
	report_double(r, "percent_of_ideal", " %10.1f\n", bps / ideal_bps * 100);
	report_obj_end(r);
}

static double phase_bps(const struct phase *ph)
{
	return ph->seconds > 0 ? (double)ph->total_bytes / ph->seconds : 0;
}

/* ---- modes ---------------------------------------------------------------- */

static int run_plain(const struct options *o, struct report *r, struct target *t, int n)
{
	struct target *tp[MAX_DRIVES];
	struct phase ph;
	int i, rc;

	for (i = 0; i < n; i++)
		tp[i] = &t[i];
	rc = phase_run(o, tp, n, &ph);
	if (rc == NBW_EXIT_OK && ph.nothing_measured) {
		nbw_err("interrupted during warm-up: nothing was measured");
		rc = NBW_EXIT_FAIL;
	}
	if (rc == NBW_EXIT_OK) {
		print_drive_rows(r, &ph);
		print_total(r, &ph, "total");
		print_state(r, &ph);
		report_text(r, "%s", rule);
		warn_zeros(&ph);
	}
	phase_free(&ph);
	return rc;
}

/*
 * --baseline: each drive alone, then all together; ideal = sum of solos.
 * --sweep: the first 1, 2, ... n drives together; ideal = k x the 1-drive figure.
 */
static int run_series(const struct options *o, struct report *r, struct target *t, int n)
{
	const char *unit = report_bw_unit(r);
	struct target *tp[MAX_DRIVES];
	struct phase ph, last = { 0 };
	double *total = calloc((size_t)n + 1, sizeof(double));
	double *ideal = calloc((size_t)n + 1, sizeof(double));
	int nphase = o->mode == MODE_BASELINE ? (n > 1 ? n + 1 : 1) : n;
	int p, i, done = 0, rc = NBW_EXIT_OK;
	bool have_last = false;
	char label[96];

	if (!total || !ideal) {
		free(total);
		free(ideal);
		nbw_err("out of memory");
		return NBW_EXIT_FAIL;
	}
	for (p = 0; p < nphase && !atomic_load(&g_interrupted); p++) {
		int k;

		if (o->mode == MODE_BASELINE && p < n && nphase > 1) {
			tp[0] = &t[p];
			k = 1;
		} else {
			k = o->mode == MODE_SWEEP ? p + 1 : n;
			for (i = 0; i < k; i++)
				tp[i] = &t[i];
		}
		if (!o->json)
			fprintf(stderr, "%s: phase %d/%d: %d drive%s\n", nbw_prog, p + 1, nphase, k,
				k == 1 ? "" : "s");
		rc = phase_run(o, tp, k, &ph);
		if (rc != NBW_EXIT_OK || ph.nothing_measured || ph.interrupted) {
			if (rc == NBW_EXIT_OK)
				nbw_warn("interrupted: phase %d of %d not completed", p + 1, nphase);
			phase_free(&ph);
			break;
		}
		total[p] = phase_bps(&ph);
		if (k == 1)
			tp[0]->solo_bps = total[p];
		ideal[p] = 0;
		for (i = 0; i < k; i++)
			ideal[p] += o->mode == MODE_SWEEP ? t[0].solo_bps : tp[i]->solo_bps;
		if (have_last)
			phase_free(&last);
		last = ph;
		have_last = true;
		done++;
	}
	if (rc == NBW_EXIT_OK && !done) {
		nbw_err("interrupted before the first phase completed: nothing was measured");
		rc = NBW_EXIT_FAIL;
	}
	if (rc == NBW_EXIT_OK) {
		/* drives[] and total carry the last (widest) completed phase. */
		report_text(r, " last phase (%d drive%s together):\n", last.nt, last.nt == 1 ? "" : "s");
		print_drive_rows(r, &last);
		print_total(r, &last, "total");
		report_text(r, "%s", rule);
		report_text(r, " %-22s %6s %7s %-4s %7s %-4s %10s\n",
			    o->mode == MODE_BASELINE ? "baseline" : "sweep", "drives", "total", unit,
			    "ideal", unit, "% of ideal");
		report_arr_begin(r, o->mode == MODE_BASELINE ? "baseline" : "sweep");
		for (p = 0; p < done; p++) {
			int k;

			if (o->mode == MODE_BASELINE && p < n && nphase > 1) {
				snprintf(label, sizeof(label), "%s alone", t[p].d.name);
				k = 1;
			} else {
				k = o->mode == MODE_SWEEP ? p + 1 : n;
				if (o->mode == MODE_SWEEP)
					snprintf(label, sizeof(label), "first %d drive%s", k,
						 k == 1 ? "" : "s");
				else
					snprintf(label, sizeof(label), "%d together", k);
			}
			summary_row(r, label, k, total[p], ideal[p]);
		}
		report_arr_end(r);
		if (done < nphase)
			report_text(r, " (interrupted: %d of %d phases completed)\n", done, nphase);
		report_bool(r, "interrupted", NULL, done < nphase);
		report_text(r, "%s", rule);
		warn_zeros(&last);
	}
	if (have_last)
		phase_free(&last);
	free(total);
	free(ideal);
	return rc;
}

static void list_targets(struct report *r, struct target *t, int n)
{
	char a[32];
	int i;

	report_str(r, "tool", NULL, "nvme_read_bw");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_text(r, "%-16s %-6s %-24s %-14s %5s %6s %10s %5s\n", "path", "kind", "model",
		    "pci", "numa", "lbs", "size", "paths");
	report_arr_begin(r, "drives");
	for (i = 0; i < n; i++) {
		const struct drive *d = &t[i].d;

		report_obj_begin(r, NULL);
		report_str(r, "path", "%-16s", d->path);
		report_str(r, "kind", " %-6s", drive_kind_name(d->kind));
		report_str(r, "model", " %-24.24s", d->model[0] ? d->model : NULL);
		report_str(r, "pci_address", " %-14s", d->bdf[0] ? d->bdf : NULL);
		report_i64(r, "numa_node", " %5lld", d->numa_node);
		report_u64(r, "logical_block_size", " %6llu", d->lbs);
		report_u64(r, "size", NULL, d->size);
		report_text(r, " %10s", format_size(d->size, a, sizeof(a)));
		report_u64(r, "paths", " %5llu\n", d->paths);
		report_str(r, "controller", NULL, d->ctrl[0] ? d->ctrl : NULL);
		report_str(r, "transport", NULL, d->transport[0] ? d->transport : NULL);
		report_obj_end(r);
	}
	report_arr_end(r);
}

int main(int argc, char **argv)
{
	static struct target targets[MAX_DRIVES];
	struct options o;
	struct report r;
	FILE *out = stdout;
	sigset_t set;
	int n, i, rc;

	nbw_set_prog(argv[0]);
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	n = collect_targets(&o, targets);
	if (n < 0)
		return -n;
	if (o.json && o.json_file) {
		out = fopen(o.json_file, "w");
		if (!out) {
			nbw_err("%s: %s", o.json_file, strerror(errno));
			return NBW_EXIT_FAIL;
		}
	}
	report_init(&r, out, o.json, o.gbits);
	if (o.list) {
		report_obj_begin(&r, NULL);
		list_targets(&r, targets, n);
		report_obj_end(&r);
		report_finish(&r);
		if (out != stdout)
			fclose(out);
		return NBW_EXIT_OK;
	}
	rc = prepare_targets(&o, targets, n);
	if (rc)
		goto out;

	/* Signals are taken synchronously by the main thread (sigtimedwait). */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	report_obj_begin(&r, NULL);
	print_header(&r, &o, targets, n);
	fflush(out);
	if (o.mode == MODE_PLAIN)
		rc = run_plain(&o, &r, targets, n);
	else
		rc = run_series(&o, &r, targets, n);
	report_obj_end(&r);
	report_finish(&r);
out:
	for (i = 0; i < n; i++)
		if (targets[i].fd >= 0)
			close(targets[i].fd);
	if (out != stdout)
		fclose(out);
	return rc;
}
