/* SPDX-License-Identifier: MIT */
/*
 * session_state.h: a sink session (struct session): its state is a step of
 * the conversation's one table (proto/steps.h), whose sink's view says the
 * messages a source may send in it and where each leads; and the few steps
 * every part of a session takes (session_state.c). session.c (the
 * handshake) and session_window.c (the window, the end) build on it;
 * session.h says what the hall calls.
 */
#ifndef NBW_SESSION_STATE_H
#define NBW_SESSION_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "gate.h"
#include "judge.h"
#include "local.h"
#include "options.h"
#include "slice.h"
#include "steps.h"
#include "verify.h"

/* What the hall lends a session. */
struct session_env {
	const struct options *o;
	unsigned char *dram;		/* the hall's */
	const struct slice_layout *lay; /* the hall's, final once admission closed */
	const struct fab_port *ports;	/* the sink's RDMA ports */
	int nports;
	struct gate *gate; /* -R: the shared rdma_cm listener (NULL: verbs mode) */
};

/* Why a session's window was cut short (its check, session_window.c). */
enum sink_stop {
	SINK_RUNNING = 0,
	SINK_CLOSED,	  /* the source closed the control connection */
	SINK_RESULT,	  /* its RESULT arrived (its window ended) */
	SINK_LOCAL_FAIL,  /* a local read failed */
	SINK_RDMA_LOST,	  /* an RDMA connection went down */
	SINK_PEER_ERROR,  /* the source sent ERROR (text in peer_err) */
	SINK_BAD_MESSAGE, /* something that is not PROGRESS or RESULT */
	SINK_SILENT,	  /* nothing from the source for --timeout */
};

struct session {
	const struct session_env *env;
	const struct options *o;
	enum ctrl_step state; /* the step of the conversation (steps.h); END once it failed */
	int cfd;
	struct ctrl_inbox in; /* the control channel during the window: a message in part */
	struct ctrl_mac mac;  /* with a key: its MACs both ways (in.mac points here) */
	bool trusted;	      /* the source proved the key (or the sink is open) */
	char peer[64];
	int number;		 /* its place among --sources N (1..N); 0: the only source */
	struct ctrl_hello hello; /* the source's */
	uint64_t id;		 /* the session's number, in ACCEPT and each RDMA connection */
	uint32_t wbase;		 /* this source's first slice among all the sources' */
	struct fab_conn *conns;
	struct ctrl_qp *sqp;		 /* verbs mode: the sink's QP of each worker */
	int wport[CTRL_MAX_WORKERS];	 /* each worker's port: its place in ports[] */
	char wsrc[CTRL_MAX_WORKERS][72]; /* verbs mode: the source port of each worker */
	struct rail rails[CTRL_MAX_RAILS];
	int nrails;
	/* The local stream its window carries: the hall's drives (one source), else none. */
	struct local *loc, none;
	struct ctrl_chunk *canary;
	uint32_t ncanary;
	struct verdict_note vnote; /* what landed: the canary's, then the full table's */
	double lseconds;
	double cpu_s;		/* this process, user + system, inside the window */
	uint64_t start_sent_ns; /* when START left (sink clock) */
	uint64_t win_open_ns;	/* the window opened (sink clock) */
	int64_t delay_min_ns;	/* least START -> heartbeat delay beyond the source's clock */
	double rcv;		/* the source's variation (its RESULT), NAN unknown */
	bool have_window;	/* its window is known (an accepted RESULT) */
	double src_open_ns, src_close_ns; /* the source's window in the sink's clock */
	struct ctrl_result res;
	bool have_res;
	bool res_rejected; /* not a figure: the source failed, or its RESULT is implausible */

	/* Its RESULT refused as implausible: no figure at all, not even a heartbeat's. */
	bool res_implausible;
	/*
	 * The sink's ports' counters when START left; their deltas when its
	 * RESULT came (ctr_at_result), else when the session ended without one.
	 */
	struct ctr_set *ctr_start;
	struct ctr_set *ctr_open; /* ... when the sink's window opened (NULL: not read) */
	uint64_t ctr_open_ns;	  /* that read done (sink clock) */
	struct ctr_deltas *ctr;
	int nctr;
	bool ctr_at_result;
	bool ctr_window;	       /* ctr from ctr_open: the source's window opened after it */
	enum rdma_check check;	       /* its claim against what the ports it used received */
	enum rdma_unchecked unchecked; /* RDMA_CHECK_UNCHECKED: why */
	uint64_t rcv_bytes; /* what they received (RDMA_CHECK_RECEIVED, headers included) */
	/* The source's heartbeat (PROGRESS) during and after the window. */
	uint64_t last_heard;		      /* monotonic ns of the last message from the source */
	struct ctrl_progress prog, prog_line; /* the latest; the one of the last live line */
	bool have_prog;
	pthread_mutex_t beat_lock; /* prog and have_prog, as another thread reads them */
	char peer_err[CTRL_MAX_STR];
	char failure[CTRL_MAX_STR + 256]; /* why it failed, for the output ("" = it did not) */
	struct meeting *fan;		  /* every session ready before any START */
	struct result *x;		  /* told the live lines (run_sink's; NULL: none) */

	struct meeting *sync; /* --bidir: this node's source's (run_sink's run state), else NULL */
};

/* The session failed: say why here (and keep it for the report). Returns 1. */
#define session_fail(s, ...) nbw_fail((s)->failure, sizeof((s)->failure), __VA_ARGS__)

/* ---- what session.c and session_window.c share ------------------------------ */

/* The source sent a message of type: the step it leads to (ctrl_step_next()). */
void session_took(struct session *s, unsigned type);
/*
 * ctrl_expect() of a message the session's step takes (else -EBADMSG with
 * the reason in err), and the step it leads to.
 */
int session_expect(struct session *s, unsigned want, void **p, uint32_t *len, int timeout_ms,
		   char *err, size_t errlen);
/*
 * --interval: the RDMA rate from the heartbeat at line (the last live line's)
 * to cur, in the source's clock (beat_rate()), and line moved to cur; NAN
 * (line kept) when no time passed between them, NAN (line moved) when the
 * byte count went backwards.
 */
double session_beat_rate(const struct ctrl_progress *cur, struct ctrl_progress *line);
/* Worker w's slice in the hall's DRAM. */
unsigned char *session_slice(const struct session *s, uint32_t w);
/* Its slices, for verify.c. */
void session_landing(const struct session *s, struct landing *l);
/* After session_fail(): tell the source why, too (best effort). Returns rc. */
int session_tell(struct session *s, int rc);

/* As session_fail(), and tell the source why. */
#define session_refuse(s, ...) session_tell((s), session_fail((s), __VA_ARGS__))

#endif
