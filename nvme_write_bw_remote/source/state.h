/* SPDX-License-Identifier: MIT */
/*
 * source/state.h: the source's state, shared by its three rooms: run.c
 * (the run: setup, the window, the heartbeat, close, the result) above
 * talk.c (the conversation with the sink: connect, AUTH, HELLO, QPS,
 * SLICES, CANARY/START, RESULT, the table, VERIFY) and workers.c (the
 * workers: plan, rails, staging slots, chunk supplies, the posting threads).
 * Calls go down: run.c -> talk.c -> workers.c. Every
 * message to and from the sink goes through talk.c's source_send,
 * source_expect and source_await, which keep to the conversation's table (proto/steps.h).
 */
#ifndef NBW_SOURCE_STATE_H
#define NBW_SOURCE_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctrl.h"
#include "ctrl_mac.h"
#include "lathist.h"
#include "affinity.h"
#include "rails.h"
#include "reader.h"
#include "options.h"
#include "steps.h"
#include "target.h"
#include "verdict.h"
#include "health_watch.h"
#include "window.h"

#define FULL_RING_MAX 1024 /* slice slots used with --verify full (bounds the table) */

/* The start line's phases: workers connected, canaries written. */
enum { LINE_CONNECTED = 1, LINE_CANARY = 2 };

/* Why the window was cut short (source_check()). */
enum source_stop {
	SOURCE_RUNNING = 0,
	SOURCE_WORKER_FAILED, /* a worker failed (read, WRITE, connection) */
	SOURCE_SINK_SPOKE,    /* the sink spoke, went away, or the heartbeat could not go */
};

struct source;

struct sworker {
	pthread_t tid;
	bool started;
	struct source *s;
	uint32_t index;
	int tindex; /* drive, -1 for memory */
	struct region reg;
	const struct fab_port *port; /* this side's port of the worker's rail */
	int sink_port;		     /* index into the sink's advertised ports */
	struct fab_qp_attr qp_local; /* verbs mode: our QP, told to the sink */
	unsigned char *buf;
	size_t buflen;
	struct reader rd;
	bool rd_open;
	bool rd_busy; /* its close left reads in flight: buf is kept */
	bool *mem_busy;
	uint64_t *mem_digest;
	struct fab_conn conn;
	struct fab_writer wr;
	bool wr_init;
	struct ctrl_slice slice;
	_Atomic uint64_t bytes;
	struct ctrl_chunk canary;
	struct ctrl_chunk *table; /* --verify full: last chunk per slice slot */
	uint32_t ring;		  /* slice slots the writer uses */
	struct reader_fault fault;
	struct lathist *lat; /* --latency: its WRITEs' latencies in the window; NULL */
};

struct source {
	const struct options *o;
	struct meeting *sync; /* --bidir: this node's sink's (the run state), else NULL */
	struct target t[TARGET_MAX];
	int nt;
	struct fab_port ports[FAB_MAX_PORTS];
	int nports;
	struct ctrl_accept acc; /* the sink's session and ports */
	struct rail rails[CTRL_MAX_RAILS];
	int nrails;
	struct affinity_plan aff; /* the ports each drive prefers (disk feed) */
	bool have_aff;
	struct sworker *w;
	uint32_t nw, started;
	int cfd;
	struct ctrl_mac mac; /* with a key: the channel's MACs after AUTH (proto/ctrl_mac.h) */
	enum ctrl_step step; /* where the conversation is (proto/steps.h) */
	bool may_retry;	     /* a reset before ACCEPT may be the door's: connect again */
	bool again;	     /* it happened: the handshake starts over */
	uint64_t session;
	struct start_line line;
	bool line_ready;
	atomic_bool stop;
	atomic_bool lat_on; /* --latency: the window is open, WRITEs are timed */
	atomic_bool failed;
	atomic_uint finished; /* worker threads that returned */
	uint64_t *wstart, *wend;
	uint64_t *lprev;	     /* --interval: counters at the previous live line */
	struct samples rdma_samples; /* per second of the window: the RDMA stream's steadiness */
	struct ctrl_drive *dr;	     /* per drive: what the window counted */
	struct samples *dsec;	     /* per drive: its rate each second of the window */
	struct health_watch *health; /* per drive: its health log around the window */
	/* Heartbeat to the sink (PROGRESS), from START until RESULT. */
	struct window *win;
	uint64_t t_start, t_window, hb_period, hb_next;
	double seconds;
	double cpu_s; /* this process, user + system, inside the window */
	/* Its ports' counters when the window opened; their deltas when it closed. */
	struct ctr_set *ctr_open;
	struct ctr_deltas *ctr;
	int nctr;
	struct linkload *ll; /* its drives' and NICs' PCIe links and AER counts over the window */
	enum verdict verdict;
	char failure[CTRL_MAX_STR + 256]; /* why the run failed ("" = it did not) */
	struct result *x;		  /* told the live lines */
};

#define wfail(w, rc, ...) reader_fail(&(w)->fault, &(w)->s->failed, (rc), __VA_ARGS__)

/* The run failed: say why here and keep it for the report. Returns 1. */
#define source_fail(s, ...) nbw_fail((s)->failure, sizeof((s)->failure), __VA_ARGS__)

/* workers.c */
const char *sworker_name(const struct sworker *w, char *buf, size_t len);
void *sworker_main(void *arg);
uint64_t source_bytes_sum(const uint64_t *v, uint32_t n);
int source_plan_workers(struct source *s);
int source_assign_rails(struct source *s);

/* talk.c */
/*
 * The sink's message of type (ctrl_expect(): *p, *len) if the step takes
 * it, else -EBADMSG with the reason in err; the step it leads to.
 */
int source_expect(struct source *s, unsigned type, void **p, uint32_t *len, int timeout_ms,
		  char *err, size_t errlen);
/*
 * Send b (enc: its encoder's status) if the step sends type, else -EPROTO;
 * once sent, the step after it.
 */
int source_send(struct source *s, unsigned type, struct ctrl_buf *b, int enc, int timeout_ms);
int source_tell_sink(struct source *s, const char *msg);
int source_handshake(struct source *s);
int source_send_qps(struct source *s);
int source_receive_slices(struct source *s);
int source_send_canary(struct source *s);
void source_count_rails(struct source *s);
int source_send_result(struct source *s, bool ok);

#endif
