// SPDX-License-Identifier: MIT
/*
 * reader.c: a reader opened, read and closed through its engine's calls
 * (reader.h): it fills the slots (reader_slots.c) and hands the engine of the
 * table (reader_engines.c) its own state; it names no engine itself.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nbw.h"
#include "reader.h"
#include "reader_engine.h"

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
	struct reader_slots *rs = &rd->sl;
	int rc = rand_offsets_init(&rs->ro, rs->reg, rs->chunk, seed, stream);

	if (!rc)
		rs->random = true;
	return rc;
}

void reader_set_timed(struct reader *rd, bool on)
{
	rd->sl.timed = on;
}

int reader_open(struct reader *rd, int fd, unsigned engine, unsigned depth, size_t chunk,
		uint32_t lbs, uint64_t target_size, struct region reg, void *buf)
{
	return reader_open_flags(rd, fd, engine, depth, chunk, lbs, target_size, reg, buf, 0);
}

int reader_open_flags(struct reader *rd, int fd, unsigned engine, unsigned depth, size_t chunk,
		      uint32_t lbs, uint64_t target_size, struct region reg, void *buf,
		      unsigned flags)
{
	const struct reader_ops *ops = reader_engine_ops(engine);
	struct reader_slots *rs = &rd->sl;
	const char *why;
	int rc;

	memset(rd, 0, sizeof(*rd));
	if (!depth || !chunk || !lbs || chunk % lbs || !reg.len)
		return -EINVAL;
	if (flags & ~(READER_IOPOLL | READER_SQPOLL | READER_ONE_TASK))
		return -EINVAL;
	if (!ops || ops->unbuilt)
		return -ENOTSUP;
	/* The flags the engine takes; the slots (depth) are the caller's to hold, not reads. */
	if (ops->check && ops->check(1, flags, &why))
		return -EINVAL;
	rd->ops = ops;
	rs->flags = flags;
	rs->fd = fd;
	rs->chunk = chunk;
	rs->lbs = lbs;
	rs->end_of_target = target_size;
	rs->reg = reg;
	rs->next = reg.start;
	rs->buf = buf;
	rc = reader_slots_init(rs, depth);
	if (!rc && ops->open)
		rc = ops->open(rs, &rd->priv);
	if (rc)
		reader_close(rd);
	return rc;
}

int reader_close(struct reader *rd)
{
	unsigned left = rd->ops && rd->ops->close ? rd->ops->close(&rd->sl, rd->priv) : 0;

	rd->priv = NULL;
	reader_slots_free(&rd->sl);
	return left ? -EBUSY : 0;
}

int reader_next(struct reader *rd, struct reader_chunk *out, int timeout_ms)
{
	return rd->ops->next(&rd->sl, rd->priv, out, timeout_ms);
}

void reader_release(struct reader *rd, unsigned slot)
{
	if (slot < rd->sl.depth && rd->sl.slots[slot].state == SLOT_HELD)
		reader_slot_put(&rd->sl, slot);
}

bool reader_deferred(const struct reader *rd)
{
	return rd->ops && rd->ops->deferred && rd->ops->deferred(rd->priv);
}

unsigned reader_completions(const struct reader *rd)
{
	return rd->ops && rd->ops->completions ? rd->ops->completions(rd->priv) : 0;
}
