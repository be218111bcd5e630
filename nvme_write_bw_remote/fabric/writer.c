// SPDX-License-Identifier: MIT
/*
 * writer.c: the one RDMA WRITE posting loop (see rdma.h): a connection's
 * writer into the remote ring, the batches of WRs posted with one doorbell,
 * a post refused part-way given back, the completions reaped (polled a
 * while, then the CQ armed to sleep), one WRITE alone (the canary) and the
 * drain, each within its timeout.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbw.h"
#include "rdma.h"
#include "timing.h"

int fab_writer_init(struct fab_writer *w, struct fab_conn *c, uint64_t raddr, uint32_t rkey,
		    uint32_t slots, size_t chunk, unsigned depth)
{
	*w = (struct fab_writer){
		.c = c,
		.raddr = raddr,
		.rkey = rkey,
		.slots = slots,
		.chunk = chunk,
		.depth = depth,
	};
	if (slots < 2)
		return -EINVAL;
	/* One block: the items, then their busy flags. */
	w->items = calloc(depth, sizeof(*w->items) + sizeof(*w->busy));
	if (!w->items)
		return -ENOMEM;
	w->busy = (bool *)(w->items + depth);
	return 0;
}

void fab_writer_free(struct fab_writer *w)
{
	free(w->items);
	w->items = NULL;
	w->busy = NULL;
}

/* A WRITE of len bytes at buf into the slice's slot dst, as work request wr over sge. */
static void write_wr(const struct fab_writer *w, struct ibv_send_wr *wr, struct ibv_sge *sge,
		     uint64_t wr_id, const void *buf, size_t len, uint32_t dst)
{
	*sge = (struct ibv_sge){
		.addr = (uintptr_t)buf,
		.length = (uint32_t)len,
		.lkey = w->c->mr->lkey,
	};
	*wr = (struct ibv_send_wr){
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	};
	wr->wr.rdma.remote_addr = w->raddr + (uint64_t)dst * w->chunk;
	wr->wr.rdma.rkey = w->rkey;
}

static int post_write(struct fab_writer *w, uint64_t wr_id, const void *buf, size_t len,
		      uint32_t dst)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int rc;

	write_wr(w, &wr, &sge, wr_id, buf, len, dst);
	rc = ibv_post_send(w->c->qp, &wr, &bad);
	if (rc) {
		snprintf(w->why, sizeof(w->why), "ibv_post_send: %s", strerror(rc));
		return -rc;
	}
	return 0;
}

/* Take the completions there are; count good bytes. Returns 0 or -EIO. */
static int reap(struct fab_writer *w, const struct chunk_supply *sup, _Atomic uint64_t *bytes)
{
	struct ibv_wc wc[16];
	int n, i, rc = 0;

	while ((n = ibv_poll_cq(w->c->cq, 16, wc)) > 0) {
		uint64_t now = w->lat ? nbw_now_ns() : 0;

		for (i = 0; i < n; i++) {
			struct write_item *it;

			if (wc[i].wr_id >= w->depth || !w->busy[wc[i].wr_id])
				continue;
			it = &w->items[wc[i].wr_id];
			w->busy[wc[i].wr_id] = false;
			w->inflight--;
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (!rc)
					snprintf(w->why, sizeof(w->why),
						 "RDMA WRITE completion: %s (status %d)",
						 ibv_wc_status_str(wc[i].status), wc[i].status);
				rc = -EIO;
				it->len = 0; /* nothing landed that we can vouch for */
			} else if (bytes) {
				atomic_fetch_add_explicit(bytes, it->len, memory_order_relaxed);
				fab_writer_timed(w, it, now);
			}
			if (sup && sup->done)
				sup->done(sup->ctx, it);
		}
	}
	if (n < 0 && !rc) {
		snprintf(w->why, sizeof(w->why), "ibv_poll_cq failed");
		rc = -EIO;
	}
	return rc;
}

/* Sleep on the CQ's channel for at most ms (the CQ must be armed). */
static void sleep_cq(struct fab_writer *w, int ms)
{
	struct pollfd pfd = {.fd = w->c->cch->fd, .events = POLLIN};
	struct ibv_cq *cq;
	void *ctx;

	if (poll(&pfd, 1, ms) == 1 && !ibv_get_cq_event(w->c->cch, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
}

/*
 * Arm the CQ, take what completed meanwhile (it would not wake us), and
 * sleep for at most ms only if nothing did. 0 or reap()'s error.
 */
static int wait_cq(struct fab_writer *w, const struct chunk_supply *sup, _Atomic uint64_t *bytes,
		   int ms)
{
	unsigned before = w->inflight;
	int rc;

	if (ibv_req_notify_cq(w->c->cq, 0)) {
		snprintf(w->why, sizeof(w->why), "ibv_req_notify_cq failed");
		return -EIO;
	}
	rc = reap(w, sup, bytes);
	if (rc || w->inflight != before)
		return rc;
	sleep_cq(w, ms);
	return 0;
}

int fab_write_one(struct fab_writer *w, const void *buf, size_t len, uint32_t dst, int timeout_ms)
{
	uint64_t deadline = nbw_now_ns() + (uint64_t)timeout_ms * 1000000;
	struct ibv_wc wc;
	int rc, n;

	rc = post_write(w, UINT64_MAX, buf, len, dst);
	if (rc)
		return rc;
	for (;;) {
		n = ibv_poll_cq(w->c->cq, 1, &wc);
		if (n < 0) {
			snprintf(w->why, sizeof(w->why), "ibv_poll_cq failed");
			return -EIO;
		}
		if (n == 1)
			break;
		if (nbw_now_ns() >= deadline) {
			snprintf(w->why, sizeof(w->why),
				 "no completion of the canary WRITE within %d ms", timeout_ms);
			return -ETIMEDOUT;
		}
		if (ibv_req_notify_cq(w->c->cq, 0)) {
			snprintf(w->why, sizeof(w->why), "ibv_req_notify_cq failed");
			return -EIO;
		}
		n = ibv_poll_cq(w->c->cq, 1, &wc);
		if (n == 1)
			break;
		sleep_cq(w, 100);
	}
	if (wc.status != IBV_WC_SUCCESS) {
		snprintf(w->why, sizeof(w->why), "RDMA WRITE completion: %s (status %d)",
			 ibv_wc_status_str(wc.status), wc.status);
		return -EIO;
	}
	return 0;
}

/*
 * Waiting for WRITEs of its own in flight (a full ring, or the drain), the
 * next completion is near: poll the CQ for up to FAB_SPIN_NS before arming it
 * and sleeping for at most ms. A sleep costs the arming, the wake-up and the
 * event's read (three system calls, a context switch): at small sizes more
 * than a WRITE itself, which perftest avoids by never sleeping. A source
 * whose supply is empty (waiting for its drive) sleeps at once.
 */
#define FAB_SPIN_NS 50000u
static int spin_cq(struct fab_writer *w, const struct chunk_supply *sup, _Atomic uint64_t *bytes,
		   int ms)
{
	uint64_t until = nbw_now_ns() + FAB_SPIN_NS;
	unsigned before = w->inflight;
	int rc;

	do {
		rc = reap(w, sup, bytes);
		if (rc || w->inflight < before)
			return rc;
	} while (nbw_now_ns() < until);
	return wait_cq(w, sup, bytes, ms);
}

/*
 * Give up the batch's WRs from bad on (not posted: their chunks come back
 * with no bytes) and keep those before it in flight.
 */
static void post_undo(struct fab_writer *w, const struct chunk_supply *sup,
		      const struct ibv_send_wr *bad)
{
	for (; bad; bad = bad->next) {
		struct write_item *it = &w->items[bad->wr_id];

		w->busy[bad->wr_id] = false;
		w->inflight--;
		w->posted--;
		if (sup->done) {
			it->len = 0;
			sup->done(sup->ctx, it);
		}
	}
}

/*
 * Post every chunk the supply has ready, up to a free place each, as one list
 * of WRs: one doorbell (with Soft-RoCE one system call) per batch instead of
 * one per WRITE. Returns the WRs posted (0: the supply had none) or -errno.
 */
#define FAB_BATCH 16
static int post_batch(struct fab_writer *w, const struct chunk_supply *sup)
{
	struct ibv_send_wr wr[FAB_BATCH], *bad = NULL;
	struct ibv_sge sge[FAB_BATCH];
	unsigned k = 0, n = 0;
	int rc = 0;

	while (n < FAB_BATCH && w->inflight < w->depth) {
		struct write_item *it;

		while (w->busy[k])
			k++;
		it = &w->items[k];
		rc = sup->next(sup->ctx, it);
		if (rc)
			break;
		it->dst_slot = slice_ring_slot(w->posted, w->slots);
		fab_writer_stamp(w, it);
		write_wr(w, &wr[n], &sge[n], k, it->buf, it->len, it->dst_slot);
		if (n)
			wr[n - 1].next = &wr[n];
		w->busy[k] = true;
		w->inflight++;
		w->posted++;
		n++;
	}
	if (rc && rc != -EAGAIN && !w->why[0])
		snprintf(w->why, sizeof(w->why), "source: %s", strerror(-rc));
	if (n) {
		int prc = ibv_post_send(w->c->qp, wr, &bad);

		if (prc) {
			snprintf(w->why, sizeof(w->why), "ibv_post_send: %s", strerror(prc));
			post_undo(w, sup, bad ? bad : wr);
			return -prc;
		}
	}
	return rc && rc != -EAGAIN ? rc : (int)n;
}

/*
 * Whatever is in flight still reads the staging slots: wait for it while it
 * completes. A link slowed a thousandfold drains the WRITEs it was given in
 * its window slowly but surely (its figure is then low, not lost): the wait
 * ends after drain_ms without a completion, or drain_all_ms in all (the
 * remote tool's waits "drain" and "drain-all", model/waits.c: the sink waits
 * longer for the RESULT). rc: the loop's status, kept first.
 */
static int drain(struct fab_writer *w, const struct chunk_supply *sup, _Atomic uint64_t *bytes,
		 int drain_ms, int drain_all_ms, int rc)
{
	uint64_t quiet = (uint64_t)drain_ms * 1000000, all = (uint64_t)drain_all_ms * 1000000;
	uint64_t start = nbw_now_ns(), last = start, now;
	unsigned at_start = w->inflight;

	for (now = start; w->inflight && now < last + quiet && now < start + all;
	     now = nbw_now_ns()) {
		unsigned before = w->inflight;
		int r = reap(w, sup, bytes);

		if (r && !rc)
			rc = r;
		if (w->inflight && !r)
			r = spin_cq(w, sup, bytes, 50);
		if (r && !rc)
			rc = r;
		if (r)
			sleep_cq(w, 50); /* flushed completions follow an error */
		if (w->inflight < before)
			last = nbw_now_ns();
	}
	if (w->inflight && !rc) {
		if (now >= last + quiet)
			snprintf(w->why, sizeof(w->why),
				 "%u RDMA WRITEs still in flight after %d ms without a completion",
				 w->inflight, drain_ms);
		else
			snprintf(w->why, sizeof(w->why),
				 "%u RDMA WRITEs still in flight after %d ms (%u of %u completed "
				 "meanwhile: the link drains too slowly)",
				 w->inflight, drain_all_ms, at_start - w->inflight, at_start);
		rc = -ETIMEDOUT;
	}
	return rc;
}

int fab_write_loop(struct fab_writer *w, const struct chunk_supply *sup, atomic_bool *stop,
		   _Atomic uint64_t *bytes, int drain_ms, int drain_all_ms)
{
	int rc = 0;

	while (!atomic_load_explicit(stop, memory_order_relaxed)) {
		rc = reap(w, sup, bytes);
		if (rc)
			break;
		if (w->inflight == w->depth) {
			rc = spin_cq(w, sup, bytes, 100);
			if (rc)
				break;
			continue;
		}
		rc = post_batch(w, sup);
		if (rc < 0)
			break;
		if (rc == 0) { /* the supply has nothing ready: sleep until a completion */
			rc = wait_cq(w, sup, bytes, 100);
			if (rc)
				break;
		}
		rc = 0;
	}
	return drain(w, sup, bytes, drain_ms, drain_all_ms, rc);
}
