// SPDX-License-Identifier: MIT
/*
 * test_region.c: region split and alignment, and the reader engines on a
 * pattern file: every byte of every region is read exactly once per sweep,
 * at the right offset, with the last read clipped at the end of the target;
 * the slots a caller holds are never read into; io_uring's submission batch;
 * a ring kept to one thread (READER_ONE_TASK) reads the same and is that
 * thread's alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "digest.h"
#include "drive.h"
#include "nbw.h"
#include "reader.h"

/* The engines by name, from the table (main()). */
static unsigned psync, uring;

static void split_case(uint64_t span, unsigned n, uint32_t align)
{
	struct region r[64];
	uint64_t next = 0;
	unsigned i;

	CHECK(region_split(span, n, align, r) == 0);
	for (i = 0; i < n; i++) {
		CHECK_U64(r[i].start, next);	  /* contiguous, disjoint */
		CHECK_U64(r[i].start % align, 0); /* aligned starts */
		CHECK(r[i].len > 0);
		if (i + 1 < n)
			CHECK_U64(r[i].len % align, 0);
		next = r[i].start + r[i].len;
	}
	CHECK_U64(next, span); /* covers the span exactly */
}

/* The pattern word at byte offset o (as in scripts/vlab.d/pattern.py, id 0). */
static uint64_t word_at(uint64_t o)
{
	return 0x56ULL << 56 | o;
}

static int make_file(const char *path, uint64_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	uint64_t o;

	if (fd < 0)
		return -errno;
	for (o = 0; o + 8 <= size; o += 8) {
		uint64_t w = word_at(o);

		if (write(fd, &w, 8) != 8)
			return -EIO;
	}
	if (o < size) { /* a ragged tail */
		uint64_t w = word_at(o);

		if (write(fd, &w, size - o) != (ssize_t)(size - o))
			return -EIO;
	}
	close(fd);
	return 0;
}

/* The chunk holds the pattern's words at its offset. */
static bool word_ok(const struct reader_chunk *c)
{
	uint64_t i, w;

	for (i = 0; i + 8 <= c->len; i += 8) {
		memcpy(&w, (const unsigned char *)c->buf + i, 8);
		if (w != word_at(c->offset + i))
			return false;
	}
	return true;
}

/* Read two sweeps of reg with engine; check offsets, contents and coverage. */
static void sweep_case(const char *path, uint64_t size, unsigned e, unsigned flags, unsigned depth,
		       size_t chunk, struct region reg)
{
	struct reader rd;
	struct reader_chunk c;
	void *buf = NULL;
	uint64_t seen[2] = {0, 0}, expect_next = reg.start, digest0 = 0, want_digest;
	int fd = drive_open_readonly(path), rc, guard = 0;
	unsigned char *all;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(posix_memalign(&buf, 4096, chunk * depth) == 0);
	rc = reader_open_flags(&rd, fd, e, depth, chunk, 4096, size, reg, buf, flags);
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "reader_open(%s): %d\n", reader_engine_name(e), rc);
		close(fd);
		free(buf);
		return;
	}
	while (seen[1] < reg.len && guard++ < 100000) {
		rc = reader_next(&rd, &c, 1000);
		CHECK(rc == 0);
		if (rc)
			break;
		/*
		 * psync reads in order: never a third sweep before the second is done.
		 * io_uring completes in any order: with depth x chunk reads in flight a
		 * later sweep's chunk may land first, but never more sweeps ahead than
		 * the reads in flight can span.
		 */
		CHECK(c.sweep <= (e == psync ? 1 : 2 + (uint64_t)depth * chunk / reg.len));
		if (c.sweep > 1) {
			reader_release(&rd, c.slot);
			continue;
		}
		/* psync returns chunks in order: the offsets walk the region. */
		if (e == psync) {
			CHECK_U64(c.offset, expect_next);
			expect_next = c.offset + c.len >= reg.start + reg.len ? reg.start
									      : c.offset + c.len;
		}
		CHECK(c.offset >= reg.start && c.offset + c.len <= reg.start + reg.len);
		CHECK(word_ok(&c));
		if (c.sweep == 0)
			digest0 = digest_add(digest0, c.offset, c.buf, c.len);
		seen[c.sweep] += c.len;
		reader_release(&rd, c.slot);
	}
	CHECK_U64(seen[0], reg.len);
	CHECK_U64(seen[1], reg.len);
	all = malloc(reg.len);
	{
		int plain = open(path, O_RDONLY); /* buffered: any buffer will do */

		CHECK(pread(plain, all, reg.len, (off_t)reg.start) == (ssize_t)reg.len);
		close(plain);
	}
	want_digest = digest_add(0, reg.start, all, reg.len);
	CHECK_U64(digest0, want_digest);
	free(all);
	reader_close(&rd);
	close(fd);
	free(buf);
}

/* The sweeps every engine (and ring kind) must read exactly. */
static void sweep_cases(const char *path, uint64_t size, unsigned e, unsigned flags)
{
	/* A region in the middle: reads clip at the region's end. */
	sweep_case(path, size, e, flags, 4, 256 * 1024, (struct region){4096, 1 << 20});
	/* A chunk that does not divide the region. */
	sweep_case(path, size, e, flags, 3, 12288, (struct region){8192, 40960 + 4096});
	/* The last region ends at a ragged end of file: short read at EOF. */
	sweep_case(path, size, e, flags, 2, 1 << 20, (struct region){2 << 20, size - (2 << 20)});
	/* depth * chunk larger than the region: several sweeps in flight at once. */
	sweep_case(path, size, e, flags, 8, 4096, (struct region){0, 4096 * 3});
	/* 32 deep: each freed read goes out at once while completed chunks wait. */
	sweep_case(path, size, e, flags, 32, 4096, (struct region){4096, 1 << 20});
}

/* Read one chunk into *slot: 0, or the reader's code. */
static int next_slot(struct reader *rd, unsigned *slot)
{
	struct reader_chunk c;
	int rc = reader_next(rd, &c, 1000);

	if (!rc) {
		*slot = c.slot;
		CHECK(c.buf == (unsigned char *)rd->sl.buf + (size_t)c.slot * rd->sl.chunk);
	}
	return rc;
}

/*
 * The slots a caller holds stay its own: depth chunks held are depth
 * distinct slots and the next read waits (-EAGAIN); a slot released twice,
 * or one out of range, frees nothing more (a slot freed twice would be
 * read into twice, under a chunk the caller still holds).
 */
static void slots_case(const char *path, uint64_t size, unsigned e)
{
	enum { DEPTH = 4, CHUNK = 4096 };
	struct reader rd;
	unsigned slot, mask = 0, i, round;
	void *buf = NULL;
	int fd = drive_open_readonly(path);

	CHECK(fd >= 0 && posix_memalign(&buf, 4096, CHUNK * DEPTH) == 0);
	CHECK(reader_open(&rd, fd, e, DEPTH, CHUNK, 4096, size, (struct region){0, 1 << 20}, buf) ==
	      0);
	CHECK(reader_set_random(&rd, 5, 0) == 0);
	for (round = 0; round < 3; round++) {
		for (mask = 0, i = 0; i < DEPTH; i++)
			if (next_slot(&rd, &slot) == 0 && slot < DEPTH)
				mask |= 1u << slot;
		CHECK_U64(mask, (1u << DEPTH) - 1);
		CHECK(next_slot(&rd, &slot) == -EAGAIN);
		reader_release(&rd, 2);
		reader_release(&rd, 2);
		reader_release(&rd, DEPTH + 5);
		CHECK(next_slot(&rd, &slot) == 0 && slot == 2);
		CHECK(next_slot(&rd, &slot) == -EAGAIN);
		for (i = 0; i < DEPTH; i++)
			reader_release(&rd, i);
	}
	reader_close(&rd);
	close(fd);
	free(buf);
}

/*
 * io_uring's submission batch while completed chunks wait: each freed read
 * at once below depth 64 (what fio does at its default batch of 1), then a
 * 32nd of the depth, so a deep ring holds back no more than 1/32 of itself.
 */
static void submit_batch_case(void)
{
	unsigned d, bad = 0;

	CHECK_U64(reader_submit_batch(1), 1);
	CHECK_U64(reader_submit_batch(8), 1);
	CHECK_U64(reader_submit_batch(32), 1);
	CHECK_U64(reader_submit_batch(63), 1);
	CHECK_U64(reader_submit_batch(64), 2);
	CHECK_U64(reader_submit_batch(1024), 32);
	for (d = 1; d <= 1024; d++) {
		unsigned b = reader_submit_batch(d);

		if (b < 1 || b * 32 > (d > 32 ? d : 32) || (d >= 64 && (b + 1) * 32 <= d))
			bad++;
	}
	CHECK_U64(bad, 0);
}

/*
 * The table of engines: psync first (the default) and io_uring, named in
 * every build (built or not, and said so alike); what each takes.
 */
static void engines_case(void)
{
	const char *const *words = reader_engine_words();
	const char *why = NULL;
	struct reader rd;
	char buf[4096];

	CHECK(words[0] && !strcmp(words[0], "psync") && words[1] && !strcmp(words[1], "io_uring") &&
	      !words[2]);
	CHECK(psync == 0 && uring == 1 && reader_engine_find("aio") == -ENOENT);
	CHECK(!strcmp(reader_engine_name(uring), "io_uring"));
	CHECK(reader_engine_available(psync) && !reader_engine_unbuilt(psync));
#ifdef HAVE_LIBURING
	CHECK(reader_engine_available(uring) && !reader_engine_unbuilt(uring));
	CHECK(reader_engine_depth(uring) == 8);
#else
	CHECK(!reader_engine_available(uring) &&
	      !strcmp(reader_engine_unbuilt(uring), "configure found no liburing"));
	CHECK(reader_open(&rd, 0, uring, 1, 4096, 4096, 4096, (struct region){0, 4096}, buf) ==
	      -ENOTSUP);
#endif
	CHECK(reader_open(&rd, 0, 2, 1, 4096, 4096, 4096, (struct region){0, 4096}, buf) ==
	      -ENOTSUP);
	/* psync: one read in flight, no ring; io_uring takes any depth and flag */
	CHECK(reader_engine_check(psync, 1, READER_ONE_TASK, &why) == 0);
	CHECK(reader_engine_check(psync, 2, 0, &why) == -EINVAL && why &&
	      !strcmp(why, "psync has one read in flight"));
	CHECK(reader_engine_check(psync, 1, READER_IOPOLL, NULL) == -EINVAL);
	CHECK(reader_engine_check(psync, 1, READER_SQPOLL, NULL) == -EINVAL);
	CHECK(reader_engine_check(uring, 1024, READER_IOPOLL | READER_SQPOLL, NULL) == 0);
	CHECK(!strcmp(reader_engine_taking(1024, READER_IOPOLL), "io_uring"));
	CHECK(!strcmp(reader_engine_taking(1, 0), "psync"));
	CHECK(reader_engine_depth(psync) == 1);
}

/* Flags: READER_ONE_TASK with either engine; the polling kinds with io_uring only. */
static void flags_case(void)
{
	struct reader rd;
	char buf[4096];
	struct region reg = {0, 4096};

	CHECK(reader_open_flags(&rd, 0, psync, 1, 4096, 4096, 4096, reg, buf, READER_ONE_TASK) ==
	      0);
	reader_close(&rd);
	CHECK(reader_open_flags(&rd, 0, psync, 1, 4096, 4096, 4096, reg, buf, READER_IOPOLL) ==
	      -EINVAL);
	CHECK(reader_open_flags(&rd, 0, psync, 1, 4096, 4096, 4096, reg, buf, READER_SQPOLL) ==
	      -EINVAL);
	CHECK(reader_open_flags(&rd, 0, psync, 1, 4096, 4096, 4096, reg, buf, 8) == -EINVAL);
}

/* The io_uring engine's own cases: built only with it. */
#ifdef HAVE_LIBURING
/* Linux 6.1 or later: SINGLE_ISSUER and DEFER_TASKRUN exist. */
static bool kernel_defers(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 1);
}

static void *other_thread_next(void *arg)
{
	struct reader_chunk c;

	return (void *)(intptr_t)reader_next(arg, &c, 1000);
}

/*
 * A ring kept to one thread: deferred where the kernel can (and not
 * otherwise, nor without the flag), and another thread's read on it is
 * refused rather than run: why only readers that one thread opens, reads
 * and closes ask for it. The opener still reads and closes.
 */
static void one_task_case(const char *path, uint64_t size)
{
	struct reader rd;
	struct reader_chunk c;
	struct region reg = {0, 1 << 20};
	void *buf = NULL;
	int fd = drive_open_readonly(path);

	CHECK(fd >= 0 && posix_memalign(&buf, 4096, 4 * 4096) == 0);
	CHECK(reader_open_flags(&rd, fd, uring, 4, 4096, 4096, size, reg, buf, 0) == 0);
	CHECK(!reader_deferred(&rd));
	reader_close(&rd);
	CHECK(reader_open_flags(&rd, fd, uring, 4, 4096, 4096, size, reg, buf, READER_ONE_TASK) ==
	      0);
	CHECK(reader_deferred(&rd) == kernel_defers());
	if (reader_deferred(&rd)) {
		void *res = NULL;
		pthread_t t;

		CHECK(pthread_create(&t, NULL, other_thread_next, &rd) == 0 &&
		      pthread_join(t, &res) == 0);
		/* -EINVAL: the ring's registered descriptor is the opener's (else -EEXIST) */
		CHECK((intptr_t)res == -EINVAL || (intptr_t)res == -EEXIST);
	}
	CHECK(reader_next(&rd, &c, 1000) == 0 && c.len == 4096 && word_ok(&c));
	reader_release(&rd, c.slot);
	reader_close(&rd);
	close(fd);
	free(buf);
}

/* A buffer that reads may still land in: never freed. */
static void *kept;

static void *other_thread_close(void *arg)
{
	return (void *)(intptr_t)reader_close(arg);
}

/* A deferred ring with reads whose completions are not posted yet (its first chunk held). */
static bool reads_unposted(struct reader *rd, struct reader_chunk *c)
{
	return reader_next(rd, c, 1000) == 0 && rd->sl.inflight > reader_completions(rd);
}

/*
 * reader_close() waits for the reads in flight in the opener's thread (0,
 * none left), and tells when it could not: another thread's wait on a ring
 * whose completions only its opener runs is refused, and the reads it left
 * are said (-EBUSY: the buffer must be kept), not dropped.
 */
static void close_case(const char *path, uint64_t size)
{
	struct reader rd;
	struct reader_chunk c;
	struct region reg = {0, 1 << 20};
	unsigned chunk = 256 << 10, try;
	void *buf = NULL, *res = NULL;
	bool deferred, reached = false;
	pthread_t t;
	int fd = drive_open_readonly(path);

	CHECK(fd >= 0 && posix_memalign(&buf, 4096, 4 * chunk) == 0);
	CHECK(reader_open_flags(&rd, fd, uring, 4, chunk, 4096, size, reg, buf, READER_ONE_TASK) ==
	      0);
	deferred = reader_deferred(&rd);
	CHECK(reader_next(&rd, &c, 1000) == 0 && word_ok(&c));
	CHECK(reader_close(&rd) == 0 && rd.sl.inflight == 0);
	for (try = 0; deferred && try < 20 && !reached; try++) {
		CHECK(reader_open_flags(&rd, fd, uring, 4, chunk, 4096, size, reg, buf,
					READER_ONE_TASK) == 0);
		if (!reads_unposted(&rd, &c)) {
			CHECK(reader_close(&rd) == 0);
			continue;
		}
		reached = true;
		CHECK(pthread_create(&t, NULL, other_thread_close, &rd) == 0 &&
		      pthread_join(t, &res) == 0);
		CHECK((intptr_t)res == -EBUSY && rd.sl.inflight > 0);
		/* Reads left: the buffer is kept, as the contract says (kept reachable). */
		kept = buf;
		buf = NULL;
	}
	/* Where every read is posted before a chunk is handed out (a fast device). */
	if (deferred && !reached)
		printf("test_region: another thread's close not tried (no read left unposted)\n");
	close(fd);
	free(buf);
}
#endif

int main(void)
{
	char path[] = "nbw-test-region.XXXXXX";		  /* the build dir: O_DIRECT-capable */
	uint64_t size = 3 * 1024 * 1024 + 4096 * 3 + 100; /* not block aligned at the end */
	struct region r[4];
	unsigned flags[] = {0, READER_ONE_TASK};
	unsigned e, f;
	int fd;

	psync = (unsigned)reader_engine_find("psync");
	uring = (unsigned)reader_engine_find("io_uring");
	submit_batch_case();
	engines_case();
	flags_case();
	split_case(1 << 30, 12, 4096);
	split_case(1 << 30, 7, 512);
	split_case((1 << 20) + 512, 3, 512); /* the last region takes the remainder */
	split_case(4096 * 5, 5, 4096);	     /* exactly one block each */
	split_case(256ULL << 30, 64, 4096);
	CHECK(region_split(4096 * 4, 5, 4096, r) == -EINVAL); /* a region would be empty */
	CHECK(region_split(1 << 20, 0, 4096, r) == -EINVAL);
	CHECK(region_split(1 << 20, 2, 3000, r) == -EINVAL); /* not a power of two */
	CHECK(region_split((1 << 20) + 4000, 2, 4096, r) == 0);
	CHECK_U64(r[0].len, 1 << 19);
	CHECK_U64(r[1].len, (1 << 19) + 4000);

	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK(make_file(path, size) == 0);
	for (e = 0; reader_engine_words()[e]; e++) {
		if (!reader_engine_available(e))
			continue;
		for (f = 0; f < NBW_ARRAY_SIZE(flags); f++)
			sweep_cases(path, size, e, flags[f]);
		slots_case(path, size, e);
	}
#ifdef HAVE_LIBURING
	if (reader_engine_available(uring)) {
		one_task_case(path, size);
		close_case(path, size);
	}
#endif
	unlink(path);
	return check_done("test_region");
}
