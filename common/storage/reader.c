// SPDX-License-Identifier: MIT
/* reader.c: region split and the psync / io_uring O_DIRECT reader (see reader.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nbw.h"
#include "reader.h"
#include "sysfs.h"
#include "timing.h"

#define ZERO_SAMPLE 4096u

const char *reader_engine_name(enum reader_engine e)
{
	return e == ENGINE_IO_URING ? "io_uring" : "psync";
}

bool reader_engine_available(enum reader_engine e)
{
#ifdef HAVE_LIBURING
	(void)e;
	return true;
#else
	return e == ENGINE_PSYNC;
#endif
}

void reader_fail(struct reader_fault *f, atomic_bool *failed, int rc, const char *fmt, ...)
{
	va_list ap;

	f->err = rc ? rc : -EIO;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	atomic_store(failed, true);
}

int region_split(uint64_t span, unsigned n, uint32_t align, struct region *out)
{
	uint64_t per;
	unsigned i;

	if (n == 0 || align == 0 || (align & (align - 1)))
		return -EINVAL;
	per = span / n / align * align;
	if (per == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		out[i].start = per * i;
		out[i].len = i + 1 < n ? per : span - per * i;
	}
	return 0;
}

int rand_offsets_init(struct rand_offsets *ro, struct region reg, uint64_t chunk, uint64_t seed,
		      uint64_t stream)
{
	uint64_t first, end = reg.start + reg.len;

	if (!chunk || !reg.len)
		return -EINVAL;
	first = (reg.start + chunk - 1) / chunk * chunk;
	ro->chunk = chunk;
	if (first < end && end - first >= chunk) {
		ro->base = first;
		ro->count = (end - first) / chunk;
	} else {
		ro->base = reg.start;
		ro->count = 1;
	}
	rng_seed(&ro->g, seed, stream);
	return 0;
}

int reader_set_random(struct reader *rd, uint64_t seed, uint64_t stream)
{
	int rc = rand_offsets_init(&rd->ro, rd->reg, rd->chunk, seed, stream);

	if (!rc)
		rd->random = true;
	return rc;
}

void reader_set_timed(struct reader *rd, bool on)
{
	rd->timed = on;
}

int reader_open(struct reader *rd, int fd, enum reader_engine engine, unsigned depth, size_t chunk,
		uint32_t lbs, uint64_t target_size, struct region reg, void *buf)
{
	return reader_open_flags(rd, fd, engine, depth, chunk, lbs, target_size, reg, buf, 0);
}

#ifdef HAVE_LIBURING
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN (1U << 8)
#endif

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
 * device, where the readers' own cost sets the rate, that read more than
 * COOP_TASKRUN at depth 32 in 14 of 16 alternated rounds, at 0.81-0.96x its
 * CPU per read; at depth 8 the rounds went either way.
 *
 * Otherwise, or on a kernel that refuses those flags, COOP_TASKRUN (5.19):
 * the work waits for the thread's next system call. Older kernels refuse
 * that too: then the default, as with a kernel submission thread (SQPOLL).
 */
static int uring_init(struct reader *rd, unsigned setup)
{
	int rc = -EINVAL;

#ifdef IORING_SETUP_DEFER_TASKRUN
	if (!(setup & IORING_SETUP_SQPOLL) && (rd->flags & READER_ONE_TASK)) {
		rc = io_uring_queue_init(rd->depth, &rd->ring,
					 setup | IORING_SETUP_SINGLE_ISSUER |
						 IORING_SETUP_DEFER_TASKRUN);
	}
#endif
	if (rc == -EINVAL && !(setup & IORING_SETUP_SQPOLL))
		rc = io_uring_queue_init(rd->depth, &rd->ring, setup | IORING_SETUP_COOP_TASKRUN);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(rd->depth, &rd->ring, setup);
	return rc;
}

/* Whether the ring was set up to run completion work only in its opener's calls. */
static bool uring_deferred(const struct reader *rd)
{
#ifdef IORING_SETUP_DEFER_TASKRUN
	return rd->ring.flags & IORING_SETUP_DEFER_TASKRUN;
#else
	(void)rd;
	return false;
#endif
}

/*
 * Send the queued reads without waiting. A deferred ring also asks for
 * completions (none required): the kernel posts those that are in, so the
 * next wait finds them in the ring without sleeping.
 */
static void uring_submit_collect(struct reader *rd)
{
#ifdef IORING_SETUP_DEFER_TASKRUN /* liburing 2.3, as io_uring_submit_and_get_events() */
	if (uring_deferred(rd)) {
		(void)io_uring_submit_and_get_events(&rd->ring);
		return;
	}
#endif
	(void)io_uring_submit(&rd->ring);
}

/*
 * The ring of an io_uring reader: buf as one registered buffer (reads address
 * into it; a single buffer over whole huge pages is kept as a few large
 * segments, where per-slot registrations of part of a huge page may not be),
 * fd as registered file 0 and the ring's own descriptor registered. 0 or
 * -errno; the caller closes on failure.
 */
static int uring_setup(struct reader *rd, int fd)
{
	struct iovec iov = {.iov_base = rd->buf, .iov_len = (size_t)rd->depth * rd->chunk};
	unsigned setup = 0;
	int rc;

	if (rd->flags & READER_IOPOLL)
		setup |= IORING_SETUP_IOPOLL;
	if (rd->flags & READER_SQPOLL)
		setup |= IORING_SETUP_SQPOLL;
	rc = uring_init(rd, setup);
	if (rc < 0)
		return rc;
	rd->ring_ready = true;
	rc = io_uring_register_buffers(&rd->ring, &iov, 1);
	if (rc < 0)
		return rc;
	rc = io_uring_register_files(&rd->ring, &fd, 1);
	if (rc < 0)
		return rc;
	/*
	 * Each wait then names the ring by its registered index, not its file
	 * descriptor: no file lookup per system call. Kernels before 5.18 lack it,
	 * and the ring works the same without it.
	 */
	(void)io_uring_register_ring_fd(&rd->ring);
	return 0;
}
#endif

int reader_open_flags(struct reader *rd, int fd, enum reader_engine engine, unsigned depth,
		      size_t chunk, uint32_t lbs, uint64_t target_size, struct region reg,
		      void *buf, unsigned flags)
{
	memset(rd, 0, sizeof(*rd));
	if (!depth || !chunk || !lbs || chunk % lbs || !reg.len)
		return -EINVAL;
	if (flags & ~(READER_IOPOLL | READER_SQPOLL | READER_ONE_TASK))
		return -EINVAL;
	if ((flags & (READER_IOPOLL | READER_SQPOLL)) && engine != ENGINE_IO_URING)
		return -EINVAL;
	rd->flags = flags;
	rd->fd = fd;
	rd->engine = engine;
	rd->chunk = chunk;
	rd->lbs = lbs;
	rd->end_of_target = target_size;
	rd->reg = reg;
	rd->next = reg.start;
	rd->buf = buf;
	/* psync keeps one read in flight but may still lend out depth slots. */
	rd->slots = calloc(depth, sizeof(*rd->slots));
	rd->done = calloc(depth, sizeof(*rd->done));
	rd->idle = calloc(depth, sizeof(*rd->idle));
	if (!rd->slots || !rd->done || !rd->idle) {
		reader_close(rd);
		return -ENOMEM;
	}
	rd->depth = depth;
	/* every slot free, slot 0 taken first */
	while (rd->nidle < depth) {
		rd->idle[rd->nidle] = depth - 1 - rd->nidle;
		rd->nidle++;
	}
#ifdef HAVE_LIBURING
	if (engine == ENGINE_IO_URING) {
		int rc = uring_setup(rd, fd);

		if (rc)
			reader_close(rd);
		return rc;
	}
#else
	if (engine == ENGINE_IO_URING) {
		reader_close(rd);
		return -ENOTSUP;
	}
#endif
	return 0;
}

#ifdef HAVE_LIBURING
/*
 * Wait for the reads still in flight: the kernel writes into the caller's
 * buffer until each completes, and the caller frees the buffer after
 * reader_close() (closing the ring does not wait for them: a freed heap
 * buffer was written into after its reuse). A device that answers nothing
 * for DRAIN_WAITS seconds in a row is given up on, and so is a wait the
 * kernel refuses (another thread than the opener's). Returns the reads left.
 */
#define DRAIN_WAITS 10
static unsigned uring_drain(struct reader *rd)
{
	struct __kernel_timespec ts = {.tv_sec = 1};
	struct io_uring_cqe *cqe;
	unsigned head, n, idle = 0;
	int rc;

	(void)io_uring_submit(&rd->ring); /* queued reads count as in flight */
	while (rd->inflight && idle < DRAIN_WAITS) {
		rc = io_uring_wait_cqe_timeout(&rd->ring, &cqe, &ts);
		if (rc == -ETIME) {
			idle++;
			continue;
		}
		if (rc < 0 && rc != -EINTR)
			break;
		n = 0;
		io_uring_for_each_cqe(&rd->ring, head, cqe)
		{
			n++;
		}
		io_uring_cq_advance(&rd->ring, n);
		rd->inflight -= n < rd->inflight ? n : rd->inflight;
		idle = 0;
	}
	return rd->inflight;
}
#endif

int reader_close(struct reader *rd)
{
	unsigned left = 0;

#ifdef HAVE_LIBURING
	if (rd->ring_ready) {
		left = uring_drain(rd);
		io_uring_queue_exit(&rd->ring);
		rd->ring_ready = false;
	}
#endif
	free(rd->slots);
	free(rd->done);
	free(rd->idle);
	rd->slots = NULL;
	rd->done = NULL;
	rd->idle = NULL;
	return left ? -EBUSY : 0;
}

int reader_poll_queues(int fd, const char *sysfs_root, char *name, size_t len)
{
	char dir[512], majmin[32], val[16];
	struct stat st;
	dev_t d;
	int rc;

	if (fstat(fd, &st))
		return -errno;
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(majmin, sizeof(majmin), "%u:%u", major(d), minor(d));
	snprintf(dir, sizeof(dir), "%s/dev/block", sysfs_root);
	if (len && sysfs_link_basename(dir, majmin, name, len))
		snprintf(name, len, "%s", majmin);
	snprintf(dir, sizeof(dir), "%s/dev/block/%s/queue", sysfs_root, majmin);
	rc = sysfs_read_attr(dir, "io_poll", val, sizeof(val));
	if (rc == -ENOENT) { /* a partition: its disk's queue */
		snprintf(dir, sizeof(dir), "%s/dev/block/%s/../queue", sysfs_root, majmin);
		rc = sysfs_read_attr(dir, "io_poll", val, sizeof(val));
	}
	if (rc)
		return rc;
	return strcmp(val, "0") ? 1 : 0;
}

const char *reader_poll_hint(const char *name)
{
	if (!strncmp(name, "vd", 2))
		return "virtio_blk.poll_queues=N on the kernel command line or "
		       "'modprobe virtio_blk poll_queues=N'";
	return "nvme.poll_queues=N on the kernel command line or 'modprobe nvme poll_queues=N'";
}

/* Assign the next chunk (of the sweep, or a random one) to slot s, first sent at now. */
static void slot_assign(struct reader *rd, unsigned s, uint64_t now)
{
	struct reader_slot *sl = &rd->slots[s];
	uint64_t end = rd->reg.start + rd->reg.len;
	uint64_t left;

	sl->got = 0;
	sl->t_submit = now;
	if (rd->random) {
		sl->offset = rand_offsets_next(&rd->ro);
		left = end - sl->offset;
		sl->want = left < rd->chunk ? (size_t)left : rd->chunk;
		sl->sweep = 0;
		return;
	}
	left = end - rd->next;
	sl->offset = rd->next;
	sl->want = left < rd->chunk ? (size_t)left : rd->chunk;
	sl->sweep = rd->sweep;
	rd->next += sl->want;
	if (rd->next >= end) {
		rd->next = rd->reg.start;
		rd->sweep++;
	}
}

/* Bytes to ask for: the rest of the chunk, rounded up to the block size. */
static size_t slot_request(const struct reader *rd, const struct reader_slot *sl)
{
	size_t rest = sl->want - sl->got;

	return (rest + rd->lbs - 1) / rd->lbs * rd->lbs;
}

/*
 * Account n bytes read into slot s. Returns 1 when the chunk is complete,
 * 0 when more must be read, -EIO on an unexpected end of data.
 */
static int slot_progress(struct reader *rd, unsigned s, size_t n)
{
	struct reader_slot *sl = &rd->slots[s];

	if (n == 0) /* end of file: complete only if the target really ends here */
		return sl->offset + sl->got >= rd->end_of_target ? 1 : -EIO;
	sl->got += n;
	if (sl->got >= sl->want) {
		sl->got = sl->want;
		return 1;
	}
	/* A short read that is not block-aligned can only be the end of a file. */
	if (sl->got % rd->lbs)
		return sl->offset + sl->got >= rd->end_of_target ? 1 : -EIO;
	return 0;
}

/* Hand slot s out as *out. */
static void chunk_out(struct reader *rd, unsigned s, struct reader_chunk *out)
{
	struct reader_slot *sl = &rd->slots[s];

	out->lat_ns = rd->timed ? sl->t_done - sl->t_submit : 0;
	sl->state = SLOT_HELD;
	out->slot = s;
	out->buf = rd->buf + (size_t)s * rd->chunk;
	out->offset = sl->offset;
	out->len = sl->got;
	out->sweep = sl->sweep;
}

/* A free slot, taken off the stack of free ones (-1: the caller holds or reads all). */
static int slot_take(struct reader *rd)
{
	return rd->nidle ? (int)rd->idle[--rd->nidle] : -1;
}

/* Slot s is free again: on the stack, to be taken next (its buffer is likely cached). */
static void slot_put(struct reader *rd, unsigned s)
{
	rd->slots[s].state = SLOT_FREE;
	rd->idle[rd->nidle++] = s;
}

static int psync_next(struct reader *rd, struct reader_chunk *out)
{
	int s = slot_take(rd);
	struct reader_slot *sl;
	unsigned char *buf;

	if (s < 0)
		return -EAGAIN;
	sl = &rd->slots[s];
	buf = rd->buf + (size_t)s * rd->chunk;
	slot_assign(rd, (unsigned)s, rd->timed ? nbw_now_ns() : 0);
	for (;;) {
		ssize_t n = pread(rd->fd, buf + sl->got, slot_request(rd, sl),
				  (off_t)(sl->offset + sl->got));
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			out->offset = sl->offset + sl->got;
			slot_put(rd, (unsigned)s);
			return rc;
		}
		rc = slot_progress(rd, (unsigned)s, (size_t)n);
		if (rc < 0) {
			out->offset = sl->offset + sl->got;
			slot_put(rd, (unsigned)s);
			return rc;
		}
		if (rc == 1)
			break;
	}
	if (rd->timed)
		sl->t_done = nbw_now_ns();
	chunk_out(rd, (unsigned)s, out);
	return 0;
}

#ifdef HAVE_LIBURING
static int uring_submit_slot(struct reader *rd, unsigned s)
{
	struct reader_slot *sl = &rd->slots[s];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&rd->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_read_fixed(sqe, 0, rd->buf + (size_t)s * rd->chunk + sl->got,
				 (unsigned)slot_request(rd, sl), sl->offset + sl->got, 0);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, s);
	sl->state = SLOT_INFLIGHT;
	rd->inflight++;
	return 0;
}

/* One completion of slot s with result res: 1 chunk done, 0 resubmitted, -errno. */
static int uring_complete(struct reader *rd, unsigned s, int res, uint64_t now)
{
	struct reader_slot *sl = &rd->slots[s];
	int rc;

	rd->inflight--;
	if (res == -EINTR || res == -EAGAIN) {
		rc = 0; /* resubmit the same request */
	} else if (res < 0) {
		rc = res;
	} else {
		rc = slot_progress(rd, s, (size_t)res);
		if (rc == 1) {
			sl->state = SLOT_DONE;
			sl->t_done = now;
			rd->done[(rd->done_head + rd->ndone++) % rd->depth] = s;
			return 1;
		}
	}
	if (rc < 0) {
		slot_put(rd, s);
		return rc;
	}
	/* Short read (or retryable error): read the rest of the chunk. */
	return uring_submit_slot(rd, s);
}

/*
 * Reap every completion the ring holds (one clock read for them all): the
 * completed chunks join rd->done. 0, or -errno with out->offset naming where.
 */
static int uring_reap(struct reader *rd, struct reader_chunk *out)
{
	uint64_t now = rd->timed ? nbw_now_ns() : 0;
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	int rc = 0;

	/* The ring's completions read in place and given back with one store. */
	io_uring_for_each_cqe(&rd->ring, head, cqe)
	{
		unsigned slot = (unsigned)io_uring_cqe_get_data64(cqe);

		seen++;
		rc = uring_complete(rd, slot, cqe->res, now);
		if (rc < 0) {
			out->offset = rd->slots[slot].offset + rd->slots[slot].got;
			break;
		}
	}
	io_uring_cq_advance(&rd->ring, seen);
	return rc < 0 ? rc : 0;
}

/* The oldest completed chunk out of rd->done. */
static void uring_pop(struct reader *rd, struct reader_chunk *out)
{
	unsigned s = rd->done[rd->done_head];

	rd->done_head = (rd->done_head + 1) % rd->depth;
	rd->ndone--;
	chunk_out(rd, s, out);
}

/*
 * Queue a read for every free slot (one clock read for the batch); they go
 * to the kernel with the next wait, so a batch of completions handed out one
 * by one costs one system call.
 */
static int uring_fill(struct reader *rd)
{
	uint64_t now = 0;
	int s, rc;

	while ((s = slot_take(rd)) >= 0) {
		if (rd->timed && !now)
			now = nbw_now_ns();
		slot_assign(rd, (unsigned)s, now);
		rc = uring_submit_slot(rd, (unsigned)s);
		if (rc) {
			slot_put(rd, (unsigned)s);
			return rc;
		}
	}
	return 0;
}

static int uring_next(struct reader *rd, struct reader_chunk *out, int timeout_ms)
{
	struct __kernel_timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (long long)(timeout_ms % 1000) * 1000000,
	};
	struct io_uring_cqe *cqe;
	int rc = uring_fill(rd);

	if (rc)
		return rc;
	if (rd->ndone) {
		/*
		 * Completed chunks still to hand out: their freed slots' reads go
		 * to the kernel a batch at a time, not all at the next wait, so the
		 * device does not run on a few reads while the thread hands out a
		 * whole ring of completions (or is descheduled doing so). A failure
		 * here is left to the next wait, which submits them again.
		 */
		if (io_uring_sq_ready(&rd->ring) >= reader_submit_batch(rd->depth))
			uring_submit_collect(rd);
		uring_pop(rd, out);
		return 0;
	}
	if (!rd->inflight)
		return -EAGAIN;
	for (;;) {
		/* One system call both submits the queued reads and waits for a completion. */
		cqe = NULL;
		if (io_uring_sq_ready(&rd->ring))
			rc = io_uring_submit_and_wait_timeout(&rd->ring, &cqe, 1, &ts, NULL);
		else
			rc = io_uring_wait_cqe_timeout(&rd->ring, &cqe, &ts);
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
		rc = uring_reap(rd, out);
		if (rc)
			return rc;
		if (rd->ndone) {
			uring_pop(rd, out);
			return 0;
		}
	}
}
#endif

bool reader_deferred(const struct reader *rd)
{
#ifdef HAVE_LIBURING
	return rd->engine == ENGINE_IO_URING && rd->ring_ready && uring_deferred(rd);
#else
	(void)rd;
	return false;
#endif
}

unsigned reader_submit_batch(unsigned depth)
{
	return depth / 32 > 1 ? depth / 32 : 1;
}

int reader_next(struct reader *rd, struct reader_chunk *out, int timeout_ms)
{
#ifdef HAVE_LIBURING
	if (rd->engine == ENGINE_IO_URING)
		return uring_next(rd, out, timeout_ms);
#endif
	(void)timeout_ms;
	return psync_next(rd, out);
}

void reader_release(struct reader *rd, unsigned slot)
{
	if (slot < rd->depth && rd->slots[slot].state == SLOT_HELD)
		slot_put(rd, slot);
}

bool bytes_are_zero(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, c + i, 8);
		if (w)
			return false;
	}
	for (; i < len; i++)
		if (c[i])
			return false;
	return true;
}

unsigned zero_sample(const void *buf, size_t len, uint64_t *zero)
{
	const unsigned char *c = buf;

	if (len < 2 * ZERO_SAMPLE) {
		*zero += bytes_are_zero(c, len);
		return 1;
	}
	*zero += bytes_are_zero(c, ZERO_SAMPLE);
	*zero += bytes_are_zero(c + len - ZERO_SAMPLE, ZERO_SAMPLE);
	return 2;
}
