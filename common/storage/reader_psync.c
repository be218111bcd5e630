// SPDX-License-Identifier: MIT
/*
 * reader_psync.c: the psync engine: one pread() at a time into the next free
 * slot, resumed after a short read, so reader_next() returns the chunks in
 * the order of the sweep. Its reads block: the timeout is not used.
 */
#include <errno.h>
#include <unistd.h>

#include "reader_engine.h"
#include "timing.h"

/* A failed read of slot s: its offset into *out, the slot free again. */
static int psync_fail(struct reader *rd, unsigned s, int rc, struct reader_chunk *out)
{
	out->offset = rd->slots[s].offset + rd->slots[s].got;
	reader_slot_put(rd, s);
	return rc;
}

static int psync_next(struct reader *rd, struct reader_chunk *out, int timeout_ms)
{
	int s = reader_slot_take(rd);
	struct reader_slot *sl;

	(void)timeout_ms;
	if (s < 0)
		return -EAGAIN;
	sl = &rd->slots[s];
	reader_slot_assign(rd, (unsigned)s, rd->timed ? nbw_now_ns() : 0);
	for (;;) {
		ssize_t n = pread(rd->fd, reader_slot_buf(rd, (unsigned)s),
				  reader_slot_request(rd, sl), (off_t)(sl->offset + sl->got));
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return psync_fail(rd, (unsigned)s, -errno, out);
		rc = reader_slot_progress(rd, (unsigned)s, (size_t)n);
		if (rc < 0)
			return psync_fail(rd, (unsigned)s, rc, out);
		if (rc == 1)
			break;
	}
	if (rd->timed)
		sl->t_done = nbw_now_ns();
	reader_chunk_out(rd, (unsigned)s, out);
	return 0;
}

const struct reader_ops reader_psync_ops = {
	.next = psync_next,
};
