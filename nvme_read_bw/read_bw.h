/* SPDX-License-Identifier: MIT */
/*
 * read_bw.h: what the files of nvme_read_bw share: the options (main.c), one
 * measured phase over a set of targets (phase.c) and the modes with their
 * tables (modes.c; the threads and chunk sweeps curve.c). Calls go main.c -> modes.c -> phase.c ->
 * common/.
 */
#ifndef NBW_READ_BW_H
#define NBW_READ_BW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "gang.h"
#include "health_watch.h"
#include "lathist.h"
#include "line.h"
#include "linkload.h"
#include "provenance.h"
#include "report.h"
#include "target.h"
#include "window.h"

#define MAX_DEPTH 1024
#define ZERO_WARN_FRACTION 0.5

enum mode {
	MODE_PLAIN,
	MODE_BASELINE,
	MODE_SWEEP,
	MODE_SWEEP_THREADS,
	MODE_SWEEP_CHUNK,
	MODE_SWEEP_DEPTH,
	MODE_MEMORY,
};

#define CURVE_MAX 32 /* points of --sweep-threads / --sweep-chunk / --sweep-depth */

/* The readers' buffers, decided before the header (buffers.c). */
struct buffer_plan {
	uint64_t each;	     /* bytes of one buffer (the largest phase's) */
	uint64_t count;	     /* buffers of the largest phase */
	uint64_t need;	     /* bytes they lock (each rounded up to whole huge pages) */
	uint64_t limit;	     /* RLIMIT_MEMLOCK, UINT64_MAX unlimited */
	bool exempt;	     /* CAP_IPC_LOCK: the limit does not apply */
	bool lock;	     /* lock them: need fits the limit */
	bool trial;	     /* a trial buffer of `each` bytes was allocated */
	uint64_t huge_bytes; /* of it, backed by transparent huge pages */
};

/*
 * --memory: the staging stream's working set is at least MEM_CACHE_FACTOR
 * times the last-level cache (MEM_LLC_ASSUMED when sysfs does not say it), up
 * to MEM_WORKING_SET_MAX; a smaller one is labelled "possibly cached".
 */
#define MEM_CACHE_FACTOR 4
#define MEM_LLC_ASSUMED (256ULL << 20)
#define MEM_WORKING_SET_MAX (8ULL << 30)

struct mem_cache {
	bool known;	    /* sysfs said it */
	unsigned level;	    /* cache level (3: L3) */
	uint64_t each;	    /* one instance's bytes */
	unsigned instances; /* online CPUs over the CPUs one instance serves */
	uint64_t total;	    /* each x instances, or MEM_LLC_ASSUMED */
};

struct options {
	struct cli_common cc;
	char *disks;
	unsigned threads;
	uint64_t chunk;
	uint64_t span; /* 0 = whole target */
	int engine;    /* --engine: an index in the table of engines (reader.h) */
	unsigned depth;
	bool depth_set;
	bool iopoll; /* io_uring: IORING_SETUP_IOPOLL */
	bool sqpoll; /* io_uring: IORING_SETUP_SQPOLL */
	enum mode mode;
	int numa_policy;
	bool checksum;
	bool list;
	bool random;		   /* --pattern rand */
	uint64_t seed;		   /* --seed */
	bool latency;		   /* --latency: record completion latencies */
	double max_cv;		   /* --max-cv: a drive's window steady up to this cv (%) */
	uint64_t curve[CURVE_MAX]; /* --sweep-threads / --sweep-chunk: the points */
	int ncurve;
	int argc; /* for the optional lists of --sweep-threads / --sweep-chunk */
	char **argv;
	struct provenance *prov; /* where and when: the targets and windows are added to it */
	uint64_t mem_buf_bytes;	 /* --memory: each thread's buffer, grown past the caches */
	struct mem_cache mem_cache;
	struct buffer_plan buf;
};

/* The buffers of the run's largest phase among n targets, into o->buf. */
void buffers_plan(struct options *o, int n);
/* The header's buffer line, a note when they are not locked, JSON "buffers". */
void buffers_header(struct report *r, const struct options *o);

/* Per-target results of one phase. */
struct tresult {
	uint64_t bytes;
	uint64_t ios;	     /* reads completed in the window */
	struct lathist *lat; /* their latencies (NULL without --latency) */
	double seconds;
	uint64_t zero_samples, zero_blocks; /* sampled 4 KiB blocks, all-zero ones */
	double zero_fraction;		    /* NAN without samples */
	uint64_t digest, digested;
	struct samples sec;	    /* bytes/s each second of the window (window.h's cap) */
	struct window_shape shape;  /* their min, max, median, cv; unsteady or not */
	struct health_watch health; /* the drive's health log before and after */
};

struct worker;

/*
 * A phase's budget beyond its window (opening drives, starting readers, the
 * last read of each); past it the watchdog names the step and the tool exits 1.
 */
#define PHASE_SLACK_S 30.0

/* One measured phase: the targets read together, their workers and results. */
struct phase {
	const struct options *o;
	struct target **t;
	int nt;
	struct reader_gang gang; /* a reader per region of each target */
	struct worker *w;	 /* what each keeps beside its counters (gang.w's order) */
	struct tresult *res;
	uint64_t *prev;	     /* --interval: counters at the previous live line */
	uint64_t *win_start; /* the window's opening counters while it runs */
	uint64_t *ios_prev;  /* --interval: reads completed at the previous live line */
	uint64_t *ios_start; /* reads completed at the opening and the close */
	uint64_t *ios_end;
	uint64_t *win_end;
	uint64_t total_bytes;
	uint64_t total_ios;
	struct lathist *lat; /* every target's latencies (NULL without --latency) */
	struct linkload *ll; /* the drives' PCIe links and AER counts over the window */
	uint64_t ll_open_ns; /* the window's opening, for the links' seconds into it */
	double seconds;
	double cpu_s;	       /* user + system of the process inside the window */
	bool interrupted;      /* Ctrl-C ended the window early */
	bool nothing_measured; /* interrupted before the window opened */
};

/* Run one phase over t[0..nt); the results stay in ph until phase_free(). Exit status. */
int phase_run(const struct options *o, struct target **t, int nt, struct phase *ph);
void phase_free(struct phase *ph);
/* Bytes per second, reads per second of the whole phase. */
double phase_bps(const struct phase *ph);
double phase_iops(const struct phase *ph);

/* The modes: each prints its tables into r and returns the exit status. */
void print_header(struct report *r, const struct options *o, const struct target *t, int n);
int run_plain(const struct options *o, struct report *r, struct target *t, int n);
int run_series(const struct options *o, struct report *r, struct target *t, int n);
/* --sweep-threads / --sweep-chunk / --sweep-depth (curve.c): a table and a verdict per drive. */
int run_curve(const struct options *o, struct report *r, struct target *t, int n);
/* --memory (memory.c): the staging memory's stream on each node the buffers live on. */
int run_memory(const struct options *o, struct report *r, struct target *t, int n);
/* --memory: the last-level cache and each thread's buffer past it, into o. */
void memory_plan(struct options *o, int n);
void list_targets(struct report *r, const struct target *t, int n);
/* modes.c: the "% of link" column, never a percentage of a ceiling the figure is above. */
void link_pct(struct report *r, double gb_per_s, double ceiling);
void link_above_note(struct report *r);

#endif
