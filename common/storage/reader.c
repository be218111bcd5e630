// SPDX-License-Identifier: MIT
/*
 * reader.c: the reader's slots and what every engine shares: opening and
 * closing a reader, the chunk each slot reads next, the accounting of what
 * landed, and the table of engines this build has (see reader.h and, for the
 * engines, reader_engine.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbw.h"
#include "reader.h"
#include "reader_engine.h"

/* The engines this build has: io_uring only where configure found liburing. */
static const struct reader_ops *const engines[] = {
	[ENGINE_PSYNC] = &reader_psync_ops,
#ifdef HAVE_LIBURING
	[ENGINE_IO_URING] = &reader_uring_ops,
#endif
};

static const struct reader_ops *engine_ops(enum reader_engine e)
{
	return (unsigned)e < NBW_ARRAY_SIZE(engines) ? engines[e] : NULL;
}

const char *reader_engine_name(enum reader_engine e)
{
	return e == ENGINE_IO_URING ? "io_uring" : "psync";
}

bool reader_engine_available(enum reader_engine e)
{
	return engine_ops(e) != NULL;
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

/* The slots' arrays, every slot free, slot 0 taken first. 0 or -ENOMEM. */
static int slots_init(struct reader *rd, unsigned depth)
{
	/* psync keeps one read in flight but may still lend out depth slots. */
	rd->slots = calloc(depth, sizeof(*rd->slots));
	rd->done = calloc(depth, sizeof(*rd->done));
	rd->idle = calloc(depth, sizeof(*rd->idle));
	if (!rd->slots || !rd->done || !rd->idle)
		return -ENOMEM;
	rd->depth = depth;
	while (rd->nidle < depth) {
		rd->idle[rd->nidle] = depth - 1 - rd->nidle;
		rd->nidle++;
	}
	return 0;
}

int reader_open_flags(struct reader *rd, int fd, enum reader_engine engine, unsigned depth,
		      size_t chunk, uint32_t lbs, uint64_t target_size, struct region reg,
		      void *buf, unsigned flags)
{
	const struct reader_ops *ops = engine_ops(engine);
	int rc;

	memset(rd, 0, sizeof(*rd));
	if (!depth || !chunk || !lbs || chunk % lbs || !reg.len)
		return -EINVAL;
	if (flags & ~(READER_IOPOLL | READER_SQPOLL | READER_ONE_TASK))
		return -EINVAL;
	if (!ops)
		return -ENOTSUP;
	if (flags & ~(READER_ONE_TASK | ops->flags))
		return -EINVAL;
	rd->ops = ops;
	rd->flags = flags;
	rd->fd = fd;
	rd->chunk = chunk;
	rd->lbs = lbs;
	rd->end_of_target = target_size;
	rd->reg = reg;
	rd->next = reg.start;
	rd->buf = buf;
	rc = slots_init(rd, depth);
	if (!rc && ops->open)
		rc = ops->open(rd);
	if (rc)
		reader_close(rd);
	return rc;
}

int reader_close(struct reader *rd)
{
	unsigned left = rd->ops && rd->ops->close ? rd->ops->close(rd) : 0;

	free(rd->slots);
	free(rd->done);
	free(rd->idle);
	rd->slots = NULL;
	rd->done = NULL;
	rd->idle = NULL;
	return left ? -EBUSY : 0;
}

void reader_slot_assign(struct reader *rd, unsigned s, uint64_t now)
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

int reader_slot_progress(struct reader *rd, unsigned s, size_t n)
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

void reader_chunk_out(struct reader *rd, unsigned s, struct reader_chunk *out)
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

int reader_next(struct reader *rd, struct reader_chunk *out, int timeout_ms)
{
	return rd->ops->next(rd, out, timeout_ms);
}

void reader_release(struct reader *rd, unsigned slot)
{
	if (slot < rd->depth && rd->slots[slot].state == SLOT_HELD)
		reader_slot_put(rd, slot);
}

bool reader_deferred(const struct reader *rd)
{
	return rd->ops && rd->ops->deferred && rd->ops->deferred(rd);
}

unsigned reader_submit_batch(unsigned depth)
{
	return depth / 32 > 1 ? depth / 32 : 1;
}
