// SPDX-License-Identifier: MIT
/*
 * reader_psync.c: the psync engine: one pread() at a time into the next free
 * slot, resumed after a short read, so reader_next() returns the chunks in
 * the order of the sweep. Its reads block: the timeout is not used. It keeps
 * no state of its own, and one read in flight: no depth, nor a ring to poll.
 */
#include <errno.h>
#include <unistd.h>

#include "reader_engine.h"
#include "timing.h"

/* One read in flight, and no ring: READER_IOPOLL and READER_SQPOLL refused. */
static int psync_check(unsigned inflight, unsigned flags, const char **why)
{
	if (inflight > 1) {
		*why = "psync has one read in flight";
		return -EINVAL;
	}
	return flags & ~READER_ONE_TASK ? -EINVAL : 0;
}

/* A failed read of slot s: its offset into *out, the slot free again. */
static int psync_fail(struct reader_slots *rs, unsigned s, int rc, struct reader_chunk *out)
{
	out->offset = rs->slots[s].offset + rs->slots[s].got;
	reader_slot_put(rs, s);
	return rc;
}

static int psync_next(struct reader_slots *rs, void *priv, struct reader_chunk *out, int timeout_ms)
{
	int s = reader_slot_take(rs);
	struct reader_slot *sl;

	(void)priv;
	(void)timeout_ms;
	if (s < 0)
		return -EAGAIN;
	sl = &rs->slots[s];
	reader_slot_assign(rs, (unsigned)s, rs->timed ? nbw_now_ns() : 0);
	for (;;) {
		ssize_t n = pread(rs->fd, reader_slot_buf(rs, (unsigned)s),
				  reader_slot_request(rs, sl), (off_t)(sl->offset + sl->got));
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return psync_fail(rs, (unsigned)s, -errno, out);
		rc = reader_slot_progress(rs, (unsigned)s, (size_t)n);
		if (rc < 0)
			return psync_fail(rs, (unsigned)s, rc, out);
		if (rc == 1)
			break;
	}
	if (rs->timed)
		sl->t_done = nbw_now_ns();
	reader_chunk_out(rs, (unsigned)s, out);
	return 0;
}

const struct reader_ops reader_psync_ops = {
	.name = "psync",
	.depth = 1,
	.check = psync_check,
	.next = psync_next,
};
