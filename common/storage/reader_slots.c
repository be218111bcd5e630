// SPDX-License-Identifier: MIT
/*
 * reader_slots.c: the reader's slots, which every engine reads through: the
 * chunk each slot reads next, the accounting of what landed, the chunk handed
 * out (see reader_slots.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "reader_slots.h"

int reader_slots_init(struct reader_slots *rs, unsigned depth)
{
	/* psync keeps one read in flight but may still lend out depth slots. */
	rs->slots = calloc(depth, sizeof(*rs->slots));
	rs->done = calloc(depth, sizeof(*rs->done));
	rs->idle = calloc(depth, sizeof(*rs->idle));
	if (!rs->slots || !rs->done || !rs->idle)
		return -ENOMEM;
	rs->depth = depth;
	while (rs->nidle < depth) {
		rs->idle[rs->nidle] = depth - 1 - rs->nidle;
		rs->nidle++;
	}
	return 0;
}

void reader_slots_free(struct reader_slots *rs)
{
	free(rs->slots);
	free(rs->done);
	free(rs->idle);
	rs->slots = NULL;
	rs->done = NULL;
	rs->idle = NULL;
}

void reader_slot_assign(struct reader_slots *rs, unsigned s, uint64_t now)
{
	struct reader_slot *sl = &rs->slots[s];
	uint64_t end = rs->reg.start + rs->reg.len;
	uint64_t left;

	sl->got = 0;
	sl->t_submit = now;
	if (rs->random) {
		sl->offset = rand_offsets_next(&rs->ro);
		left = end - sl->offset;
		sl->want = left < rs->chunk ? (size_t)left : rs->chunk;
		sl->sweep = 0;
		return;
	}
	left = end - rs->next;
	sl->offset = rs->next;
	sl->want = left < rs->chunk ? (size_t)left : rs->chunk;
	sl->sweep = rs->sweep;
	rs->next += sl->want;
	if (rs->next >= end) {
		rs->next = rs->reg.start;
		rs->sweep++;
	}
}

int reader_slot_progress(struct reader_slots *rs, unsigned s, size_t n)
{
	struct reader_slot *sl = &rs->slots[s];

	if (n == 0) /* end of file: complete only if the target really ends here */
		return sl->offset + sl->got >= rs->end_of_target ? 1 : -EIO;
	sl->got += n;
	if (sl->got >= sl->want) {
		sl->got = sl->want;
		return 1;
	}
	/* A short read that is not block-aligned can only be the end of a file. */
	if (sl->got % rs->lbs)
		return sl->offset + sl->got >= rs->end_of_target ? 1 : -EIO;
	return 0;
}

void reader_chunk_out(struct reader_slots *rs, unsigned s, struct reader_chunk *out)
{
	struct reader_slot *sl = &rs->slots[s];

	out->lat_ns = rs->timed ? sl->t_done - sl->t_submit : 0;
	sl->state = SLOT_HELD;
	out->slot = s;
	out->buf = rs->buf + (size_t)s * rs->chunk;
	out->offset = sl->offset;
	out->len = sl->got;
	out->sweep = sl->sweep;
}

unsigned reader_submit_batch(unsigned depth)
{
	return depth / 32 > 1 ? depth / 32 : 1;
}
