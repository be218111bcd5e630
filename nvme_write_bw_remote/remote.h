/* SPDX-License-Identifier: MIT */
/*
 * remote.h: what the three files of nvme_write_bw_remote share: the options,
 * the read targets, the measured window and the two roles (sink.c, source.c).
 * main.c owns the options and the output.
 */
#ifndef NBW_REMOTE_H
#define NBW_REMOTE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctrl.h"
#include "drive.h"
#include "rdma.h"
#include "reader.h"
#include "report.h"

#define MAX_DRIVES 64
#define MAX_WORKERS 1024
#define DEFAULT_PORT 18515

struct options {
	const char *peer; /* NULL: sink */
	const char *devs; /* -d list */
	int gid_index;	  /* -1: first IPv4 GID */
	unsigned port;
	const char *bind;
	double timeout; /* every network wait */
	double wait;	/* sink: for a source to come; 0 = forever */
	uint64_t chunk;
	unsigned depth;
	unsigned threads;
	unsigned qps; /* --source mem: workers */
	bool qps_set;
	enum ctrl_source source;
	char *disks; /* source: its drives; sink: --local-disks */
	bool no_local;
	uint64_t dram;
	uint64_t span;
	enum reader_engine engine;
	const char *sysfs_root;
	double warmup, duration;
	enum ctrl_verify verify;
	bool corrupt_canary;
	const char *dump_slice;
	double interval; /* live lines; 0 = none */
	bool gbits;
	bool json;
	const char *json_file;
};

struct target {
	struct drive d;
	int fd;
	uint64_t span;
};

/* Returns the count of targets, or minus an exit code (message printed). */
int targets_collect(const struct options *o, char *list, bool required, struct target *t);
/* Open each target and check the geometry; 0 or an exit code. */
int targets_prepare(const struct options *o, struct target *t, int n, unsigned threads);
void targets_close(struct target *t, int n);

/* Timeouts of the options in ms. */
int opt_timeout_ms(const struct options *o);

/* The RDMA ports of -d (or every ACTIVE one) into ports[RDMA_MAX_PORTS]: the count, or -1 after one error line. */
int select_ports(const struct options *o, struct rdma_port *ports);

/*
 * The measured window, shared by both roles: warm-up, then duration; the
 * caller's counters are snapshotted at both ends. check() is called every
 * tick_ms (default 100) from the start of the warm-up and aborts the window
 * when it returns non-zero. With interval > 0, live() is called every
 * interval seconds of the measured window (at = seconds into it, secs = since
 * the previous line).
 */
struct window {
	double warmup, duration;
	int tick_ms;
	double interval;
	int (*check)(void *ctx);
	void (*live)(void *ctx, double at, double secs);
	void *ctx;
	void (*snapshot)(void *ctx, uint64_t *out); /* fills nctr counters */
	int nctr;
	uint64_t *start, *end; /* nctr each, caller's */
	double seconds;
	bool measured;	  /* the window opened */
	bool interrupted; /* SIGINT/SIGTERM */
	int aborted;	  /* check()'s value */
};

int window_run(struct window *w);

/* Where live lines go: stderr with --json (stdout holds only the document). */
FILE *live_stream(const struct options *o);

extern atomic_bool g_interrupted;

/* Roles: each returns the exit code and prints its report into r. */
int run_sink(const struct options *o, struct report *r);
int run_source(const struct options *o, struct report *r);

/* Output pieces (main.c). */
void print_params(struct report *r, const struct options *o, const char *role);
void print_bw_row(struct report *r, const char *key, const char *label, uint64_t bytes,
		  double seconds);
void print_drive(struct report *r, const struct drive *d, const char *side, uint64_t bytes,
		 double seconds, unsigned workers);
void print_verify(struct report *r, const struct options *o, int verdict, const char *detail);
extern const char *const report_rule;

#endif
