// SPDX-License-Identifier: MIT
/*
 * test_gang.c: a gang's window marks (common/storage/gang.c). Four readers
 * of a regular file read 4 KiB chunks as fast as they can while the main
 * thread marks a window open and shut many times; every read counted
 * between an opening and its close had its chunk work see in_window, and
 * no other: the count of chunks seen "in" equals the window's read count
 * exactly, per worker and in total, at every edge. Marks that only flip a
 * flag beside the counters lose or gain a read at an edge now and then.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "gang.h"

#define WORKERS 4
#define CHUNK 4096
#define DEPTH 2
#define FILE_BYTES (4u << 20)
#define WINDOWS 300

struct ctx {
	int fd;
	uint64_t seen_in[WORKERS]; /* chunks whose work saw in_window, each worker's own */
	uint64_t bytes_in[WORKERS];
	unsigned char buf[WORKERS][DEPTH * CHUNK] __attribute__((aligned(4096)));
};

static int setup(struct gang_worker *w, struct reader *rd, void **buf, void *arg)
{
	struct ctx *c = arg;

	*buf = c->buf[w->index];
	return reader_open(rd, c->fd, (unsigned)reader_engine_find("psync"), DEPTH, CHUNK, 512,
			   FILE_BYTES, w->reg, *buf);
}

static void chunk(struct gang_worker *w, const struct reader_chunk *ch, void *arg)
{
	struct ctx *c = arg;

	if (w->in_window) {
		c->seen_in[w->index]++;
		c->bytes_in[w->index] += ch->len;
	}
}

static const struct gang_ops ops = {.setup = setup, .chunk = chunk};

static void nap_us(long us)
{
	struct timespec ts = {0, us * 1000};

	nanosleep(&ts, NULL);
}

/* Open and shut the window WINDOWS times; the window's counts summed over all of them. */
static void windows(struct reader_gang *g, uint64_t *bytes, uint64_t *ios)
{
	uint64_t b0, i0, b1, i1;
	int k;

	*bytes = *ios = 0;
	for (k = 0; k < WINDOWS; k++) {
		gang_mark(g, true, &b0, &i0);
		nap_us(200 + 37 * (k % 11)); /* edges at varied points of a read */
		gang_mark(g, false, &b1, &i1);
		*bytes += b1 - b0;
		*ios += i1 - i0;
		nap_us(150);
	}
}

int main(void)
{
	static struct ctx c;
	char path[] = "test_gang.XXXXXX"; /* in the build directory */
	struct target t = {.fd = -1, .span = FILE_BYTES};
	struct target *tp = &t;
	struct reader_gang g;
	uint64_t bytes, ios, seen = 0, seen_bytes = 0, before[1], ios_before[1];
	int i, err;

	c.fd = mkstemp(path);
	CHECK(c.fd >= 0);
	if (c.fd < 0)
		return 1;
	unlink(path);
	CHECK(ftruncate(c.fd, FILE_BYTES) == 0);
	t.fd = c.fd;
	t.d.size = FILE_BYTES;
	t.d.lbs = 512;

	CHECK(gang_plan(&g, &tp, 1, WORKERS, &ops, &c) == 0);
	CHECK(gang_start(&g, &err) == WORKERS);
	CHECK(gang_gather(&g) == 0);
	gang_open(&g);
	nap_us(20000);
	windows(&g, &bytes, &ios);
	gang_count(&g, before, ios_before);
	gang_stop(&g);

	for (i = 0; i < WORKERS; i++) {
		seen += c.seen_in[i];
		seen_bytes += c.bytes_in[i];
	}
	fprintf(stderr, "%d windows: %llu reads counted in them, %llu seen in (of %llu in all)\n",
		WINDOWS, (unsigned long long)ios, (unsigned long long)seen,
		(unsigned long long)ios_before[0]);
	CHECK(ios > 1000);	    /* the readers did read in the windows */
	CHECK(ios_before[0] > ios); /* and outside them */
	CHECK_U64(seen, ios);
	CHECK_U64(seen_bytes, bytes);
	CHECK_U64(bytes, ios * CHUNK);
	CHECK(!gang_failed(&g));
	gang_free(&g);
	close(c.fd);
	return check_done("test_gang");
}
