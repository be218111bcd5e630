/* SPDX-License-Identifier: MIT */
/*
 * options.h: nvme_write_bw_remote's command line, validated (struct
 * options: what both roles use and each role's own part), with the limits
 * it is checked against, a rail and a role's run state. It sits in model/
 * because a result holds a copy of the options (result.h): every layer
 * above model/ (sink/, source/, print/, the tool's top folder) reads it;
 * main.c fills it.
 */
#ifndef NBW_OPTIONS_H
#define NBW_OPTIONS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "auth.h"
#include "cli.h"
#include "ctrl_io.h"
#include "drive.h"
#include "qpsweep.h"
#include "line.h"
#include "netaddr.h"
#include "provenance.h"
#include "rdma.h"
#include "reader.h"
#include "report.h"
#include "target.h"

#define MAX_WORKERS CTRL_MAX_WORKERS
#define MAX_DEPTH 256
#define DEFAULT_PORT 18515
#define MAX_SOURCES 64 /* --sources */

/* What only the sink uses (main.c's table gives each option its role; --wait has none). */
struct sink_options {
	const char *bind; /* an address, "any", or NULL = the RDMA ports' addresses */
	const char *allow_text;
	struct netaddr_prefix allow[NETADDR_MAX_PREFIXES]; /* --allow */
	int nallow;
	double wait; /* for a source to come; 0 = forever */
	bool no_local;
	uint64_t dram;
	double min_overlap;	 /* % of each source's window inside the sink's (99) */
	double max_cv;		 /* variation of each stream, % (2) */
	unsigned sources;	 /* how many sources to take at once (1) */
	unsigned max_per_source; /* --max-workers-per-source (0: an even split) */
	const char *dump_slice;	 /* tests: worker 0's slice into this file */
};

/* What only the source uses; "source" names the role (its --source is feed). */
struct source_options {
	const char *peer;      /* the sink; NULL: this process is a sink */
	unsigned qps;	       /* --source mem: workers */
	enum ctrl_source feed; /* --source disk|mem: what it sends */
	bool corrupt_canary;   /* tests: damage the canary after hashing it */
	double late_start;     /* tests: open the window this much late */
	bool latency;	       /* --latency: time each WRITE (post to completion) */
	int rail_affinity;     /* --rail-affinity: source/affinity.h's enum rail_affinity */
	bool rail_affinity_given;
};

/*
 * The command line, validated, then const: what both roles use, the mode,
 * and each role's own part. Nothing changes it after validation; what a run
 * shares or computes goes beside it (struct run_state, all_sizes.c's curve).
 */
struct options {
	struct cli_common cc;
	const char *devs; /* -d list */
	int gid_index;	  /* -1: first IPv4 GID */
	unsigned port;
	const char *psk_file; /* --psk-file, or $NBW_PSK_FILE */
	struct auth_key key;  /* loaded from it; len 0 = none */
	double timeout;	      /* every network wait */
	uint64_t chunk;
	unsigned depth;
	unsigned threads;
	char *disks; /* source: its drives; sink: --local-disks */
	uint64_t span;
	int engine; /* --engine: an index in the table of engines (reader.h) */
	enum ctrl_verify verify;
	enum ctrl_conn conn;	    /* verbs (default) or -R/--rdma_cm */
	struct fab_link_opts lo;    /* --mtu, --sl, --tclass */
	bool all_sizes;		    /* -a: every message size, as ib_write_bw -a */
	bool list_ports;	    /* --list-ports: list them and exit */
	const char *sweep_qps_text; /* --sweep-qps LIST */
	unsigned sweep_qps[QPSWEEP_MAX];
	int nsweep_qps;	      /* 0: no QP sweep */
	bool verbose;	      /* -a: each size's whole report, not its one line */
	bool bidir;	      /* --bidir: a sink and a source at once (bidir.c) */
	bool chunk_given;     /* -s was given (refused with -a) */
	bool figure_only;     /* --output=bandwidth: the total figure alone on stdout */
	bool report_counters; /* -W: every port counter in the text, not only those that moved */
	/*
	 * -a: this run's place in the list of sizes and, at the sink, the sources'
	 * kind once a run has seen it (-1 before): all_sizes.c sets them in its
	 * copy of the options for each run, as it sets chunk.
	 */
	struct {
		int index;
		int kind;
	} size_run;
	struct sink_options sink;
	struct source_options source;
	/*
	 * Where and when (common/base/provenance.h), main()'s: the one thing the
	 * run adds to beside the options, the drives and ports it finds
	 * (remote_targets(), remote_select_ports()) for every document's block.
	 */
	struct provenance *prov;
};

/* One rail: a local port -> a remote port, its QPs and what it carried in the window. */
struct rail {
	char local_dev[64];
	uint8_t local_port;
	char remote_dev[64];
	uint8_t remote_port;
	uint32_t qps;
	uint64_t bytes;
	double line_rate_gbits; /* the slower port's; 0 unknown (or a software port) */
	int sink_index;		/* the sink port's place in the sink's advertised list */
};

/*
 * A role's run state, passed beside its options: what it shares with others
 * while it runs. The options say what the command line said and nothing
 * changes them once they are validated.
 */
struct run_state {
	struct meeting *sync; /* --bidir: the meeting of this node's two roles, else NULL */
};

#endif
