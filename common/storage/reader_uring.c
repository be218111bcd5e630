// SPDX-License-Identifier: MIT
/*
 * reader_uring.c: the io_uring engine: depth fixed-buffer reads on a
 * registered file, every completion the ring holds reaped at once, the freed
 * slots' reads submitted in batches while completed chunks are handed out,
 * and the reads in flight waited for at close. It takes any depth and every
 * READER_* flag. Its state is the reader's ring. Built only with liburing.
 */
#include <errno.h>
#include <stdlib.h>

#include <liburing.h>

#include "reader_engine.h"
#include "timing.h"

#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif

/* The engine's own state: a reader's ring (a reader's *priv). */
struct uring {
	struct io_uring ring;
};

/*
 * Create the ring so that completions do not interrupt the reader: by
 * default the kernel signals the thread for each completion's work, even
 * while it is handing chunks out in user space.
 *
 * A reader that one thread opens, reads and closes (READER_ONE_TASK) has
 * that work deferred to its own calls that ask for completions
 * (SINGLE_ISSUER | DEFER_TASKRUN, Linux 6.1): its waits, and the submissions
 * it makes while handing chunks out, which require none but collect what has
 * completed (uring_submit_collect()), as fio does. On a RAM-backed loop
 * device, where the readers' own cost sets the rate, that reads more than
 * COOP_TASKRUN at depth 32 for less CPU per read (docs/benchmarks.md).
 *
 * Otherwise, or on a kernel that refuses those flags, COOP_TASKRUN (5.19):
 * the work waits for the thread's next system call. Older kernels refuse
 * that too: then the default, as with a kernel submission thread (SQPOLL).
 */
static int uring_init(const struct reader_slots *rs, struct uring *u, unsigned setup)
{
	int rc = -EINVAL;

#ifdef IORING_SETUP_DEFER_TASKRUN
	if (!(setup & IORING_SETUP_SQPOLL) && (rs->flags & READER_ONE_TASK)) {
		rc = io_uring_queue_init(rs->depth, &u->ring,
					 setup | IORING_SETUP_SINGLE_ISSUER |
						 IORING_SETUP_DEFER_TASKRUN);
	}
#endif
	if (rc == -EINVAL && !(setup & IORING_SETUP_SQPOLL))
		rc = io_uring_queue_init(rs->depth, &u->ring, setup | IORING_SETUP_COOP_TASKRUN);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(rs->depth, &u->ring, setup);
	return rc;
}

/* Whether the ring was set up to run completion work only in its opener's calls. */
static bool uring_deferred(const struct uring *u)
{
#ifdef IORING_SETUP_DEFER_TASKRUN
	return u->ring.flags & IORING_SETUP_DEFER_TASKRUN;
#else
	(void)u;
	return false;
#endif
}

/*
 * Send the queued reads without waiting. A deferred ring also asks for
 * completions (none required): the kernel posts those that are in, so the
 * next wait finds them in the ring without sleeping.
 */
static void uring_submit_collect(struct uring *u)
{
#ifdef IORING_SETUP_DEFER_TASKRUN /* liburing 2.3, as io_uring_submit_and_get_events() */
	if (uring_deferred(u)) {
		(void)io_uring_submit_and_get_events(&u->ring);
		return;
	}
#endif
	(void)io_uring_submit(&u->ring);
}

/*
 * The ring of an io_uring reader, its state (*priv, NULL when no ring was
 * made): buf as one registered buffer (reads address into it; a single
 * buffer over whole huge pages is kept as a few large segments, where
 * per-slot registrations of part of a huge page may not be), fd as
 * registered file 0 and the ring's own descriptor registered. 0 or -errno;
 * uring_close() unwinds on failure.
 */
static int uring_open(struct reader_slots *rs, void **priv)
{
	struct iovec iov = {.iov_base = rs->buf, .iov_len = (size_t)rs->depth * rs->chunk};
	struct uring *u = calloc(1, sizeof(*u));
	unsigned setup = 0;
	int rc;

	if (!u)
		return -ENOMEM;
	if (rs->flags & READER_IOPOLL)
		setup |= IORING_SETUP_IOPOLL;
	if (rs->flags & READER_SQPOLL)
		setup |= IORING_SETUP_SQPOLL;
	rc = uring_init(rs, u, setup);
	if (rc < 0) {
		free(u);
		return rc;
	}
	*priv = u;
	rc = io_uring_register_buffers(&u->ring, &iov, 1);
	if (rc < 0)
		return rc;
	rc = io_uring_register_files(&u->ring, &rs->fd, 1);
	if (rc < 0)
		return rc;
	/*
	 * Each wait then names the ring by its registered index, not its file
	 * descriptor: no file lookup per system call. Kernels before 5.18 lack it,
	 * and the ring works the same without it.
	 */
	(void)io_uring_register_ring_fd(&u->ring);
	return 0;
}

static int uring_submit_slot(struct reader_slots *rs, struct uring *u, unsigned s)
{
	struct reader_slot *sl = &rs->slots[s];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_read_fixed(sqe, 0, reader_slot_buf(rs, s),
				 (unsigned)reader_slot_request(rs, sl), sl->offset + sl->got, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, s);
	sl->state = SLOT_INFLIGHT;
	rs->inflight++;
	return 0;
}

/* One completion of slot s with result res: 1 chunk done, 0 resubmitted, -errno. */
static int uring_complete(struct reader_slots *rs, struct uring *u, unsigned s, int res,
			  uint64_t now)
{
	struct reader_slot *sl = &rs->slots[s];
	int rc;

	rs->inflight--;
	if (res == -EINTR || res == -EAGAIN) {
		rc = 0; /* resubmit the same request */
	} else if (res < 0) {
		rc = res;
	} else {
		rc = reader_slot_progress(rs, s, (size_t)res);
		if (rc == 1) {
			sl->state = SLOT_DONE;
			sl->t_done = now;
			rs->done[(rs->done_head + rs->ndone++) % rs->depth] = s;
			return 1;
		}
	}
	if (rc < 0) {
		reader_slot_put(rs, s);
		return rc;
	}
	/* Short read (or retryable error): read the rest of the chunk. */
	return uring_submit_slot(rs, u, s);
}

/*
 * Reap every completion the ring holds (one clock read for them all): the
 * completed chunks join rs->done. 0, or -errno with out->offset naming where.
 */
static int uring_reap(struct reader_slots *rs, struct uring *u, struct reader_chunk *out)
{
	uint64_t now = rs->timed ? nbw_now_ns() : 0;
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	int rc = 0;

	/* The ring's completions read in place and given back with one store. */
	io_uring_for_each_cqe(&u->ring, head, cqe)
	{
		unsigned slot = (unsigned)io_uring_cqe_get_data64(cqe);

		seen++;
		rc = uring_complete(rs, u, slot, cqe->res, now);
		if (rc < 0) {
			out->offset = rs->slots[slot].offset + rs->slots[slot].got;
			break;
		}
	}
	io_uring_cq_advance(&u->ring, seen);
	return rc < 0 ? rc : 0;
}

/* The oldest completed chunk out of rs->done. */
static void uring_pop(struct reader_slots *rs, struct reader_chunk *out)
{
	unsigned s = rs->done[rs->done_head];

	rs->done_head = (rs->done_head + 1) % rs->depth;
	rs->ndone--;
	reader_chunk_out(rs, s, out);
}

/*
 * Queue a read for every free slot (one clock read for the batch); they go
 * to the kernel with the next wait, so a batch of completions handed out one
 * by one costs one system call.
 */
static int uring_fill(struct reader_slots *rs, struct uring *u)
{
	uint64_t now = 0;
	int s, rc;

	while ((s = reader_slot_take(rs)) >= 0) {
		if (rs->timed && !now)
			now = nbw_now_ns();
		reader_slot_assign(rs, (unsigned)s, now);
		rc = uring_submit_slot(rs, u, (unsigned)s);
		if (rc) {
			reader_slot_put(rs, (unsigned)s);
			return rc;
		}
	}
	return 0;
}

static int uring_next(struct reader_slots *rs, void *priv, struct reader_chunk *out, int timeout_ms)
{
	struct uring *u = priv;
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (long long)(timeout_ms % 1000) * 1000000,
	};
	struct io_uring_cqe *cqe;
	int rc = uring_fill(rs, u);

	if (rc)
		return rc;
	if (rs->ndone) {
		/*
		 * Completed chunks still to hand out: their freed slots' reads go
		 * to the kernel a batch at a time, not all at the next wait, so the
		 * device does not run on a few reads while the thread hands out a
		 * whole ring of completions (or is descheduled doing so). A failure
		 * here is left to the next wait, which submits them again.
		 */
		if (io_uring_sq_ready(&u->ring) >= reader_submit_batch(rs->depth))
			uring_submit_collect(u);
		uring_pop(rs, out);
		return 0;
	}
	if (!rs->inflight)
		return -EAGAIN;
	for (;;) {
		/* One system call both submits the queued reads and waits for a completion. */
		cqe = NULL;
		if (io_uring_sq_ready(&u->ring))
			rc = io_uring_submit_and_wait_timeout(&u->ring, &cqe, 1, &ts, NULL);
		else
			rc = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
		if (rc == -EINTR)
			continue;
		if (rc == -ETIME)
			return -ETIMEDOUT;
		if (rc < 0)
			return rc;
		/*
		 * liburing's submit-and-wait may return the submitted count with no
		 * completion yet (cqe left NULL; IOPOLL does): wait again the plain way.
		 */
		if (!cqe)
			continue;
		rc = uring_reap(rs, u, out);
		if (rc)
			return rc;
		if (rs->ndone) {
			uring_pop(rs, out);
			return 0;
		}
	}
}

/*
 * Wait for the reads still in flight: the kernel writes into the caller's
 * buffer until each completes, and the caller frees the buffer after
 * reader_close() (closing the ring does not wait for them: the kernel would
 * write into a heap buffer freed and reused). A device that answers nothing
 * for DRAIN_WAITS seconds in a row is given up on, and so is a wait the
 * kernel refuses (another thread than the opener's). Returns the reads left.
 */
#define DRAIN_WAITS 10
static unsigned uring_drain(struct reader_slots *rs, struct uring *u)
{
	struct __kernel_timespec ts = {.tv_sec = 1};
	struct io_uring_cqe *cqe;
	unsigned head, n, idle = 0;
	int rc;

	(void)io_uring_submit(&u->ring); /* queued reads count as in flight */
	while (rs->inflight && idle < DRAIN_WAITS) {
		rc = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
		if (rc == -ETIME) {
			idle++;
			continue;
		}
		if (rc < 0 && rc != -EINTR)
			break;
		n = 0;
		io_uring_for_each_cqe(&u->ring, head, cqe)
		{
			n++;
		}
		io_uring_cq_advance(&u->ring, n);
		rs->inflight -= n < rs->inflight ? n : rs->inflight;
		idle = 0;
	}
	return rs->inflight;
}

/* The reads left in flight after waiting for them; the ring and its state released. */
static unsigned uring_close(struct reader_slots *rs, void *priv)
{
	struct uring *u = priv;
	unsigned left;

	if (!u)
		return 0;
	left = uring_drain(rs, u);
	io_uring_queue_exit(&u->ring);
	free(u);
	return left;
}

/* reader_deferred(): a ring that is set up and defers its completion work. */
static bool uring_reader_deferred(const void *priv)
{
	return priv && uring_deferred(priv);
}

/* reader_completions(): the completions the ring has posted and not yet reaped. */
static unsigned uring_completions(const void *priv)
{
	const struct uring *u = priv;

	return u ? io_uring_cq_ready(&u->ring) : 0;
}

const struct reader_ops reader_uring_ops = {
	.name = "io_uring",
	.depth = 8,
	.open = uring_open,
	.next = uring_next,
	.close = uring_close,
	.deferred = uring_reader_deferred,
	.completions = uring_completions,
};
