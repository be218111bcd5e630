// SPDX-License-Identifier: MIT
/*
 * test_writer: the RDMA WRITE posting loop (fab_write_loop) over a fake
 * device: a verbs context whose post_send, poll_cq and req_notify_cq are this
 * file's, so every doorbell, WR and CQ arming is counted. Checked:
 *
 *	every chunk ready goes out in one list of WRs (one doorbell per batch,
 *	         not one per WRITE), each WR a WRITE of its chunk into the next
 *	         slot of the remote ring, and every completion's bytes counted
 *	a full ring polls the CQ a while before it arms it to sleep (a
 *	         completion that comes within a few polls costs no arming)
 *	a post refused at its k-th WR gives the chunks from that WR back with
 *	         no bytes, keeps those before it in flight, waits for them,
 *	         and says why
 *	the drain waits while WRITEs complete (a link slowed a thousandfold),
 *	         longer than its quiet time in all, and ends after its quiet time
 *	         without a completion or twice it in all, saying which
 */
#include <errno.h>
#include <stddef.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "rdma.h"

#define DEPTH 8
#define CHUNK 4096u
#define SLOTS 5u /* the remote ring: slot 0 the canary, then 1..4 */
#define RADDR 0x100000u
#define RKEY 0x77u
#define LKEY 0x55u
#define MAX_WR 4096

/* The fake device: one QP and its CQ; what was posted and what is pending. */
struct fake {
	struct ibv_context ctx;
	struct ibv_qp qp;
	struct ibv_cq cq;
	struct ibv_mr mr;
	struct ibv_comp_channel cch;
	struct fab_conn conn;
	unsigned doorbells, wrs, first_batch, notifies;
	unsigned refuse_at;  /* refuse the first post at this WR (0: never) */
	unsigned late_polls; /* polls that find nothing before each completion */
	unsigned empty_polls;
	unsigned gap_ms; /* at most one completion per gap_ms of wall time (0: no wait) */
	unsigned stall;	 /* after this many completions none comes (0: never stalls) */
	unsigned completed;
	uint64_t last_ns;
	uint64_t pending[MAX_WR]; /* wr_ids posted, not yet completed */
	unsigned npending;
	uint32_t dst[MAX_WR]; /* the remote slot of each WR, in post order */
	int bad_field;	      /* a WR that was not a signalled one-SGE WRITE of a chunk */
};

#define FAKE_OF(p, member) ((struct fake *)((char *)(p)-offsetof(struct fake, member)))

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct fake *f = FAKE_OF(qp, qp);
	unsigned n = 0;

	f->doorbells++;
	for (; wr; wr = wr->next, n++) {
		if (f->refuse_at && n + 1 == f->refuse_at) {
			f->refuse_at = 0;
			*bad = wr;
			return EINVAL;
		}
		if (wr->opcode != IBV_WR_RDMA_WRITE || !(wr->send_flags & IBV_SEND_SIGNALED) ||
		    wr->num_sge != 1 || wr->sg_list->length != CHUNK || wr->sg_list->lkey != LKEY ||
		    wr->wr.rdma.rkey != RKEY || (wr->wr.rdma.remote_addr - RADDR) % CHUNK)
			f->bad_field = 1;
		if (f->wrs < MAX_WR)
			f->dst[f->wrs] = (uint32_t)((wr->wr.rdma.remote_addr - RADDR) / CHUNK);
		f->wrs++;
		f->pending[f->npending++] = wr->wr_id;
	}
	if (f->doorbells == 1)
		f->first_batch = n;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One completion per call at most, after late_polls empty polls each, gap_ms apart. */
static int fake_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	struct fake *f = FAKE_OF(cq, cq);
	uint64_t now = mono_ns();

	if (!f->npending || num < 1 || (f->stall && f->completed >= f->stall))
		return 0;
	if (f->gap_ms && f->last_ns && now - f->last_ns < f->gap_ms * 1000000ull)
		return 0;
	if (f->empty_polls < f->late_polls) {
		f->empty_polls++;
		return 0;
	}
	f->empty_polls = 0;
	f->completed++;
	f->last_ns = now;
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = f->pending[0];
	wc->status = IBV_WC_SUCCESS;
	memmove(f->pending, f->pending + 1, --f->npending * sizeof(f->pending[0]));
	return 1;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)solicited_only;
	FAKE_OF(cq, cq)->notifies++;
	return 0;
}

/* A memory source of DEPTH chunks; stops the loop after `want` completions. */
struct supply {
	struct fab_writer *w;
	unsigned char buf[DEPTH][CHUNK];
	bool busy[DEPTH];
	unsigned done, lost, want;
	atomic_bool *stop;
};

static int sup_next(void *ctx, struct write_item *it)
{
	struct supply *s = ctx;
	unsigned i;

	for (i = 0; i < DEPTH; i++) {
		if (s->busy[i])
			continue;
		s->busy[i] = true;
		*it = (struct write_item){.slot = i, .buf = s->buf[i], .len = CHUNK};
		return 0;
	}
	return -EAGAIN;
}

static void sup_done(void *ctx, const struct write_item *it)
{
	struct supply *s = ctx;

	s->busy[it->slot] = false;
	if (it->len)
		s->done++;
	else
		s->lost++;
	if (s->done >= s->want)
		atomic_store(s->stop, true);
}

static void fake_init(struct fake *f, int pipe_rd)
{
	memset(f, 0, sizeof(*f));
	f->ctx.ops.post_send = fake_post_send;
	f->ctx.ops.poll_cq = fake_poll_cq;
	f->ctx.ops.req_notify_cq = fake_req_notify_cq;
	f->qp.context = &f->ctx;
	f->cq.context = &f->ctx;
	f->mr.lkey = LKEY;
	f->cch.fd = pipe_rd; /* never readable: a sleep on the CQ times out */
	f->conn.qp = &f->qp;
	f->conn.cq = &f->cq;
	f->conn.mr = &f->mr;
	f->conn.cch = &f->cch;
}

/* Run the loop over f until want completions, draining at most drain_ms quiet (twice it in all,
 * as the remote tool's "drain" and "drain-all"): its status; counts in s, the reason in why. */
static int run_drain(struct fake *f, struct supply *s, unsigned want, _Atomic uint64_t *bytes,
		     int drain_ms, char *why, size_t why_len)
{
	struct fab_writer w;
	atomic_bool stop = false;
	struct chunk_supply sup = {.next = sup_next, .done = sup_done, .ctx = s};
	int rc;

	memset(s, 0, sizeof(*s));
	s->want = want;
	s->stop = &stop;
	atomic_store(bytes, 0);
	CHECK(fab_writer_init(&w, &f->conn, RADDR, RKEY, SLOTS, CHUNK, DEPTH) == 0);
	rc = fab_write_loop(&w, &sup, &stop, bytes, drain_ms, 2 * drain_ms);
	if (rc)
		printf("  why: %s\n", w.why);
	snprintf(why, why_len, "%s", rc ? w.why : "");
	fab_writer_free(&w);
	return rc;
}

static int run(struct fake *f, struct supply *s, unsigned want, _Atomic uint64_t *bytes)
{
	char why[256];
	int rc = run_drain(f, s, want, bytes, 2000, why, sizeof(why));

	CHECK(rc == 0 || strstr(why, "ibv_post_send") != NULL);
	return rc;
}

static void batches(int pipe_rd)
{
	_Atomic uint64_t bytes;
	struct supply s;
	struct fake f;
	unsigned i;
	int ok = 1;

	printf("every chunk ready in one list of WRs, each into the next remote slot\n");
	fake_init(&f, pipe_rd);
	CHECK(run(&f, &s, 200, &bytes) == 0);
	CHECK_U64(f.first_batch, DEPTH); /* the whole ring at the first doorbell */
	CHECK(f.doorbells < f.wrs);
	CHECK(f.bad_field == 0);
	CHECK(s.done >= 200);
	CHECK_U64(s.lost, 0);
	CHECK_U64(atomic_load(&bytes), (uint64_t)s.done * CHUNK);
	CHECK_U64(f.wrs, s.done); /* every WR posted was waited for */
	for (i = 0; i < f.wrs && i < MAX_WR; i++)
		ok &= f.dst[i] == slice_ring_slot(i, SLOTS);
	CHECK(ok);
	printf("  %u WRs in %u doorbells\n", f.wrs, f.doorbells);
}

static void spins(int pipe_rd)
{
	_Atomic uint64_t bytes;
	struct supply s;
	struct fake f;

	printf("a full ring polls before it arms the CQ\n");
	fake_init(&f, pipe_rd);
	f.late_polls = 3; /* every completion is found at the fourth poll */
	CHECK(run(&f, &s, 20, &bytes) == 0);
	CHECK(s.done >= 20);
	/* none, but for a spin the scheduler stretched past its time (without: 20 or more) */
	CHECK(f.notifies <= 2);
}

static void refused(int pipe_rd)
{
	_Atomic uint64_t bytes;
	struct supply s;
	struct fake f;

	printf("a post refused at its 4th WR: 3 in flight, 5 chunks back\n");
	fake_init(&f, pipe_rd);
	f.refuse_at = 4;
	CHECK(run(&f, &s, 1000, &bytes) == -EINVAL);
	CHECK_U64(f.wrs, 3);
	CHECK_U64(s.lost, DEPTH - 3);
	CHECK_U64(s.done, 3);
	CHECK_U64(atomic_load(&bytes), 3 * CHUNK);
	CHECK_U64(f.npending, 0);
}

static void slow_drain(int pipe_rd)
{
	_Atomic uint64_t bytes;
	struct supply s;
	struct fake f;
	char why[256];
	uint64_t t0;

	/* DEPTH in flight at the stop, one completing every 40 ms (about 55 ms with the
	 * CQ's 50 ms sleeps): over 400 ms of drain against 300 ms of quiet time (a fixed
	 * 300 ms wait lost the last ones) */
	printf("a slow drain that keeps completing is waited for\n");
	fake_init(&f, pipe_rd);
	f.gap_ms = 40;
	t0 = mono_ns();
	CHECK_U64(run_drain(&f, &s, 1, &bytes, 300, why, sizeof(why)), 0);
	printf("  drained in %llu ms\n", (unsigned long long)((mono_ns() - t0) / 1000000));
	CHECK_U64(f.npending, 0);
	CHECK_U64(s.lost, 0);
	CHECK_U64(atomic_load(&bytes), (uint64_t)s.done * CHUNK);
	CHECK_U64(s.done, f.wrs);

	printf("a drain with no completion ends after its quiet time\n");
	fake_init(&f, pipe_rd);
	f.stall = 3;
	t0 = mono_ns();
	CHECK_U64(run_drain(&f, &s, 3, &bytes, 200, why, sizeof(why)), -ETIMEDOUT);
	CHECK(mono_ns() - t0 < 1000000000u);
	CHECK(strstr(why, "still in flight after 200 ms without a completion") != NULL);

	printf("a drain too slow ends at twice its quiet time, and says so\n");
	fake_init(&f, pipe_rd);
	f.gap_ms = 150; /* 8 x 150 ms: past 600 ms in all */
	t0 = mono_ns();
	CHECK_U64(run_drain(&f, &s, 1, &bytes, 300, why, sizeof(why)), -ETIMEDOUT);
	CHECK(mono_ns() - t0 < 1500000000u);
	CHECK(strstr(why, "after 600 ms (") != NULL && strstr(why, "drains too slowly") != NULL);
	CHECK_U64(atomic_load(&bytes), (uint64_t)s.done * CHUNK);
}

int main(void)
{
	int p[2];

	CHECK(pipe(p) == 0);
	batches(p[0]);
	spins(p[0]);
	refused(p[0]);
	slow_drain(p[0]);
	close(p[0]);
	close(p[1]);
	return check_done("test_writer");
}
