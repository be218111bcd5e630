/* SPDX-License-Identifier: MIT */
/*
 * result.h: what a run of nvme_write_bw_remote measured, in one structure
 * every mode fills: the sink (one source), the source, the sink with
 * --sources N (fan-in), --bidir (a sink and a source at once) and -a (a run
 * per message size). The roles fill it and print nothing; validity.c
 * judges its streams (the sum rule, overlap, variation, ideal; the sink's
 * judge.c calls it with its word on the sources' claims); print/ renders
 * it, text and JSON from the same calls (common/base/report.c).
 */
#ifndef NBW_RESULT_H
#define NBW_RESULT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "health_watch.h"
#include "lathist.h"
#include "linkload.h"
#include "options.h"
#include "sweep.h"
#include "verdict.h"
#include "window.h"

/* Where the RDMA figure of the report comes from (the sink's judge_rdma_from()). */
enum rdma_from {
	RDMA_FROM_NONE,
	RDMA_FROM_RESULT,    /* the source's RESULT */
	RDMA_FROM_HEARTBEAT, /* its last PROGRESS: the RESULT never came */
};

/* Whether the sink checked a source's figure against its own ports' receive counters. */
enum rdma_check {
	RDMA_CHECK_NONE,      /* not looked at (no RESULT taken; or a result built in memory) */
	RDMA_CHECK_RECEIVED,  /* bounded by the payload the sink's ports' packets can carry */
	RDMA_CHECK_UNCHECKED, /* nothing bounds its payload (enum rdma_unchecked): its word */
};

/* Why a figure is unchecked: nothing the sink's ports count bounds its payload. */
enum rdma_unchecked {
	RDMA_UNCHECKED_NO_COUNT,      /* a port it used keeps no receive count */
	RDMA_UNCHECKED_PACKETS_ONLY,  /* packets, no bytes: an empty packet counts as a full one */
	RDMA_UNCHECKED_NO_PACKETS,    /* bytes, no packets: headers not told from payload */
	RDMA_UNCHECKED_SMALL_PACKETS, /* packets so small their headers could hide the claim */
	RDMA_UNCHECKED_WARMUP,	      /* no count at its window's start: the warm-up's counts */
};

/* One drive's row: the sink's own ("local") or one a source read ("rdma"). */
struct result_drive {
	char path[PATH_MAX];
	char model[96]; /* "" unknown */
	int numa_node;	/* -1 unknown */
	uint32_t workers;
	uint64_t bytes;
	/* Its seconds' shape and its health log around the window: read by this process, or
	 * the source's word at the sink (a source of an earlier build: neither). */
	bool has_shape, has_health;
	struct window_shape shape;
	struct health_watch health;
};

/* One of the source's ports (the source's header). */
struct result_port {
	char dev[64];
	uint8_t port;
	const char *link_layer;
	char addr[FAB_ADDR_LEN]; /* "" none */
};

/*
 * One RDMA stream: on the sink, one source's (its session); on the source,
 * its own into the sink.
 */
struct result_stream {
	char peer[64]; /* the source ("" if none came); the source's: the sink */
	uint32_t workers;
	enum ctrl_source source;
	uint64_t slice_len; /* sink: each of its workers' slice; 0 unknown */
	/* The figure: bytes over seconds; where it comes from (sink: RESULT or heartbeat). */
	uint64_t bytes;
	double seconds;
	enum rdma_from from;
	bool has_result;   /* sink: a RESULT came (accepted or not) */
	bool drives_known; /* its drives are known (sink: its RESULT was accepted) */
	struct result_drive *drives;
	int ndrives;
	struct rail *rails;
	int nrails;
	char rail_affinity[8];	     /* the source's: "pcie", "numa", "none"; "" not chosen */
	char rail_affinity_why[256]; /* why that one */
	/* Its window in this process's clock (ns) and its variation; have_window false: unknown. */
	bool have_window;
	double open_ns, close_ns;
	double cv;			    /* %, NAN unknown */
	enum verdict verdict;		    /* on what landed (verdict.h) */
	char vdetail[256];		    /* "" none */
	int rc;				    /* the session's exit status */
	char failure[CTRL_MAX_STR + 256];   /* "" none */
	double overlap_pct, start_offset_s; /* against the sink's window (validity.c) */
	/* sink: its figure against what its own ports received (the counters) */
	enum rdma_check check;
	enum rdma_unchecked unchecked; /* UNCHECKED: why */
	uint64_t rcv_bytes;	       /* RECEIVED: the ports' received bytes, headers included */
	struct lathist *lat;	       /* the source's: its WRITEs' latencies (--latency); NULL */
};

/* The modes, each a report of its own. */
enum result_mode {
	RESULT_SINK,   /* one source into this sink */
	RESULT_SOURCE, /* this source into a sink */
	RESULT_FANIN,  /* --sources N into this sink */
	RESULT_BIDIR,  /* --bidir: parts[0] the sink (receive), parts[1] the source (send) */
	RESULT_SIZES,  /* -a: parts[i] the run at one message size (its o.chunk) */
};

/* Whether the total may be read as a sum, and the figures it adds (validity.c). */
struct result_sum {
	bool judged; /* false: no window to judge (total_valid null) */
	bool valid;
	char why[1024];
	uint64_t local_bytes, rdma_bytes; /* the local drives', the RDMA streams' */
	double rdma_seconds;		  /* the longest RDMA window */
	double rdma_bps;		  /* the RDMA streams' rates added */
	double total_bps;		  /* local + RDMA */
	double ideal_bps;		  /* NAN: no ideal */
	char ideal_why[512];		  /* why there is no ideal; "" none said */
	double overlap_pct;		  /* --bidir: the two directions' windows; NAN unknown */
};

/* What a role tells whoever prints while it runs (result_begin, result_live, result_end). */
enum result_event {
	RESULT_BEGIN, /* the header may go out: the window is about to open */
	RESULT_LIVE,  /* a live line (--interval): its figures in the result's live */
	RESULT_END,   /* a part of -a is complete */
};

/* A live line: seconds into the window, its rates (window.h), or a note instead of the unit. */
struct result_live {
	double at;
	const struct live_value *v;
	int n;
	const char *note;
};

struct result;

struct result_hook {
	void (*fn)(void *ctx, struct result *x, enum result_event ev);
	void *ctx;
};

/* The curve of -a (common/base/sweep.h): the points' sizes and rates, and its verdict. */
#define RESULT_MAX_POINTS 24 /* -a: 2 bytes to 8 MiB are 23 */
struct result_curve {
	int n;				    /* points: the runs that gave a figure */
	int planned;			    /* sizes -a meant to run */
	uint64_t size[RESULT_MAX_POINTS];   /* message size of each point */
	double gb_per_s[RESULT_MAX_POINTS]; /* its RDMA rate */
	double line_gbits;		    /* the rails' line rate together; 0 unknown */
	bool judged;			    /* verdict holds sweep_judge's */
	struct sweep_verdict verdict;
	char names[RESULT_MAX_POINTS][32]; /* each size's label ("64K") */
};

struct result {
	enum result_mode mode;
	struct options o;	 /* the run's options (a copy: the result stands alone) */
	enum ctrl_source source; /* the source kind the header shows (the first source's) */
	bool begun;		 /* the report's body follows the header (else: the short form) */
	int rc;			 /* the exit status */
	bool interrupted;	 /* SIGINT/SIGTERM cut the run short (the whole result's) */
	char where[1024];	 /* sink: the addresses the door listened on; "" none */
	/* The sink's own drives and window (this process's clock), its DRAM and ports. */
	struct result_drive *local;
	int nlocal;
	double lseconds, lcv, open_ns, cpu_s;
	uint64_t local_len;	   /* DRAM of the local readers */
	double ports_gbits;	   /* the sink's ports' line rate together; 0 unknown */
	struct result_port *ports; /* the source's ports */
	int nports;
	double port_gbits[FAB_MAX_PORTS]; /* the sink's ports' line rates by index, 0 unknown */
	/*
	 * This process's ports' counter deltas (counters.h), nctr of them (0:
	 * not read): the source's over its window, the sink's from START to
	 * its source's RESULT.
	 */
	struct ctr_deltas *ctr;
	int nctr;
	char ctr_span[96]; /* what the counters cover ("" the role's usual span) */
	/* This process's drives' and NICs' PCIe links and AER counts over its window; NULL none. */
	struct linkload *ll;
	/* The RDMA streams: one (sink, source), --sources N of which nstreams came. */
	int nexpected;
	int nstreams;
	struct result_stream *streams;
	struct result_sum sum; /* validity.c */
	/* The run's verdict and failure. */
	enum verdict verdict;
	char vdetail[256];
	char failure[CTRL_MAX_STR + 256];
	/* --bidir (receive, send) and -a (a run per size). */
	struct result *parts;
	int nparts;
	struct result *parent; /* the result this is a part of; NULL */
	const char *key;       /* its JSON key in the parent ("send"); NULL */
	struct result_curve curve;
	/* Who prints while the roles run, and what is printed already. */
	struct result_hook hook;
	struct result_live live; /* the line being told (RESULT_LIVE) */
	bool opened;		 /* -a: its document's opening, a run's heading */
	bool head_out;		 /* the header */
	bool printed;		 /* the whole document */
};

/* An empty result of mode for the options o (copied). */
void result_init(struct result *x, enum result_mode mode, const struct options *o);
/* Room for n parts (zeroed, each of mode for o, their parent x, x's hook); -ENOMEM. */
int result_parts(struct result *x, int n, enum result_mode mode, const struct options *o);
/*
 * -a at the sink: the run's message size and verification are the admitted
 * source's (its kind decides the sizes); x's copy of the options says them.
 */
void result_run_size(struct result *x, uint64_t chunk, unsigned verify);
/* A role's header may go out (the window is about to open): begun, and the hook told. */
void result_begin(struct result *x);
/* A live line measured (x NULL: nobody listens): the hook told. */
void result_live(struct result *x, const struct result_live *line);
/*
 * The sink's live line: v[0..n) (each source's, with N sources), then its
 * drives' rate (drives: it has some), the RDMA rate and their total; gap
 * instead of the unit when the RDMA rate is unknown (NAN). v has room for 3 more.
 */
void result_live_sink(struct result *x, double at, struct live_value *v, int n, bool drives,
		      double local, double rdma, const char *gap);
/* A part is complete: the hook told. */
void result_end(struct result *x);
/* Room for n streams / local drives (zeroed); -ENOMEM. */
int result_streams(struct result *x, int n);
int result_locals(struct result *x, int n);
/* Free what x holds (its parts too); x is to be initialised again before any use. */
void result_free(struct result *x);
/* Free a stream's drives and rails. */
void result_stream_free(struct result_stream *st);

/* Why source i (0-based) of n (--sources) never came, into why. */
void result_missing_why(const struct options *o, int i, int n, char *why, size_t len);

/*
 * The verdict on the data of x: OFF under --no-verify; with N sources
 * (fan-in) FAIL when one source's data differed, PASS when every source came
 * and passed, else NONE (one never came or ended before its verdict); else
 * x's own.
 */
enum verdict result_verdict(const struct result *x);

/*
 * The span of every window x measured (its own, its streams', its parts'),
 * in this process's clock (ns): the earliest opening, the latest close.
 * false when none opened.
 */
bool result_window(const struct result *x, double *open_ns, double *close_ns);

/* "result", "heartbeat" or NULL: JSON rdma_reported_by. */
const char *rdma_from_name(enum rdma_from from);

#endif
