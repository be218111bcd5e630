// SPDX-License-Identifier: MIT
/*
 * buffers.c: the readers' buffers before the run: how many bytes the largest
 * phase's buffers take, whether RLIMIT_MEMLOCK lets them be locked (else
 * they are not: O_DIRECT pins each read's pages while it is in flight), and
 * what a trial buffer of a reader's size got from the kernel (huge pages or
 * not); the header's line and JSON "params.buffers" say it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "parse.h"
#include "placement.h"
#include "read_bw.h"

/* The largest point of a sweep of mode m, else def. */
static uint64_t largest(const struct options *o, enum mode m, uint64_t def)
{
	return o->mode == m && o->ncurve ? o->curve[o->ncurve - 1] : def;
}

void buffers_plan(struct options *o, int n)
{
	struct buffer_plan *b = &o->buf;
	uint64_t threads = largest(o, MODE_SWEEP_THREADS, o->threads) * (uint64_t)(n ? n : 1);
	void *p = NULL;
	int lock_errno;

	b->each = largest(o, MODE_SWEEP_CHUNK, o->chunk) * largest(o, MODE_SWEEP_DEPTH, o->depth);
	if (o->mode == MODE_MEMORY && o->mem_buf_bytes)
		b->each = o->mem_buf_bytes;
	b->count = threads;
	b->need = buffer_span(b->each) * threads;
	b->limit = buffer_lock_limit();
	b->exempt = buffer_lock_exempt();
	b->lock = buffer_lock_fits(b->need, b->limit, b->exempt);
	/* A trial buffer: what the kernel gives one of this size now. */
	b->huge_bytes = 0;
	b->trial = !buffer_alloc(b->each, 4096, false, &p, &lock_errno);
	if (b->trial) {
		b->huge_bytes = buffer_huge_bytes(p, b->each);
		buffer_free_locked(p, b->each);
	}
}

void buffers_header(struct report *r, const struct options *o)
{
	const struct buffer_plan *b = &o->buf;
	char each[32], need[32], lim[32], line[200];
	bool huge = b->trial && b->huge_bytes >= buffer_span(b->each);

	format_size(b->each, each, sizeof(each));
	format_size(b->need, need, sizeof(need));
	if (b->limit == UINT64_MAX)
		snprintf(lim, sizeof(lim), "unlimited");
	else
		format_size(b->limit, lim, sizeof(lim));
	report_obj_begin(r, "buffers");
	report_u64(r, "count", NULL, b->count);
	report_u64(r, "bytes_each", NULL, b->each);
	report_u64(r, "lock_needed_bytes", NULL, b->need);
	if (b->limit == UINT64_MAX)
		report_null(r, "lock_limit_bytes", NULL);
	else
		report_u64(r, "lock_limit_bytes", NULL, b->limit);
	report_bool(r, "locked", NULL, b->lock);
	if (b->trial)
		report_bool(r, "huge_pages", NULL, huge);
	else
		report_null(r, "huge_pages", NULL);
	report_u64(r, "huge_page_bytes", NULL, b->huge_bytes);
	report_obj_end(r);
	snprintf(line, sizeof(line), "%llu x %s, %s, %s", (unsigned long long)b->count, each,
		 b->lock ? "locked" : "not locked",
		 !b->trial	 ? "huge pages unknown"
		 : huge		 ? "huge pages (THP)"
		 : b->huge_bytes ? "partly huge pages (THP)"
				 : "4 KiB pages (no THP)");
	report_text(r, " Buffers         : %s\n", line);
	if (!b->lock)
		report_text(r,
			    " note: buffers not locked: they need %s and RLIMIT_MEMLOCK is %s "
			    "(ulimit -l); O_DIRECT pins each read's pages while it is in flight\n",
			    need, lim);
}
