// SPDX-License-Identifier: MIT
/*
 * test_session: the sink's side of a source's conversation over a
 * socketpair, without an RDMA device: the messages allowed in each step
 * (ctrl_step_allows()), the inbox that refuses a message out of turn before
 * allocating it, and the pump that takes a bounded number of messages per
 * tick and keeps one that comes in part. Each check is named after what a
 * hostile peer tries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "ctrl_io.h"
#include "steps.h"

#define BIT(t) (1u << (t))

static void pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
}

static void send_buf(int fd, struct ctrl_buf *b, size_t from, size_t to)
{
	if (write(fd, b->data + from, to - from) != (ssize_t)(to - from))
		abort();
}

static struct ctrl_buf progress(uint64_t bytes)
{
	struct ctrl_progress p = {.elapsed_ns = 1000, .bytes = bytes};
	struct ctrl_buf b;

	if (ctrl_encode_progress(&b, &p))
		abort();
	return b;
}

/* before admission only AUTH or HELLO of their exact sizes; nothing allocated else. */
static void item3_door_sizes(void)
{
	uint8_t hdr[CTRL_HDR_LEN] = {'N', 'B',	       'W',  'R',  0,	 CTRL_VERSION,
				     0,	  CTRL_VERIFY, 0x01, 0xc0, 0x00, 0x00}; /* 28 MiB */
	struct ctrl_inbox in = {.allow = ctrl_step_allows(CTRL_STEP_AUTH)};
	int sv[2];

	printf("message before HELLO\n");
	pair(sv);
	CHECK(write(sv[1], hdr, sizeof(hdr)) == sizeof(hdr));
	CHECK(ctrl_inbox_read(&in, sv[0]) == -EBADMSG);
	CHECK(in.payload == NULL);
	ctrl_inbox_reset(&in);
	/* An AUTH announcing more than its 65 bytes. */
	hdr[7] = CTRL_AUTH;
	hdr[8] = 0;
	hdr[9] = 0;
	hdr[10] = 0;
	hdr[11] = 66;
	CHECK(write(sv[1], hdr, sizeof(hdr)) == sizeof(hdr));
	CHECK(ctrl_inbox_read(&in, sv[0]) == -EMSGSIZE);
	CHECK(in.payload == NULL);
	ctrl_inbox_reset(&in);
	CHECK(in.allow == ctrl_step_allows(CTRL_STEP_AUTH)); /* kept over a reset */
	/* The phases of the door. */
	CHECK(ctrl_step_allows(CTRL_STEP_AUTH) == BIT(CTRL_AUTH));
	CHECK(ctrl_step_allows(CTRL_STEP_PROOF) == BIT(CTRL_AUTH));
	CHECK(ctrl_step_allows(CTRL_STEP_HELLO) == BIT(CTRL_HELLO));
	CHECK_U64(ctrl_fixed_len(CTRL_HELLO), 38);
	CHECK_U64(ctrl_fixed_len(CTRL_AUTH), 65);
	CHECK_U64(ctrl_fixed_len(CTRL_VERIFY), 0);
	close(sv[0]);
	close(sv[1]);
}

/* a QPS is taken in the QPS phase only. */
static void item1_phases(void)
{
	unsigned ph;

	printf("QPS phase\n");
	for (ph = 0; ph <= CTRL_STEP_MAX; ph++)
		CHECK(!!(ctrl_step_allows(ph) & BIT(CTRL_QPS)) == (ph == CTRL_STEP_QPS));
	CHECK(ctrl_step_allows(CTRL_STEP_MAX + 1) == 0);
}

/* a DONE from a source at any moment, and a 1 ms heartbeat. */
static void item13_done_progress(void)
{
	struct ctrl_start st = {.warmup_ms = 0, .duration_ms = 1000, .progress_ms = 1};
	struct ctrl_buf b;
	unsigned ph;

	printf("DONE at the wrong moment, progress_ms bound\n");
	for (ph = 0; ph <= CTRL_STEP_MAX; ph++)
		CHECK(!(ctrl_step_allows(ph) & BIT(CTRL_DONE)));
	CHECK(ctrl_encode_start(&b, &st) == 0);
	CHECK(ctrl_decode(CTRL_START, b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN, &st) ==
	      -EBADMSG);
	free(b.data);
	st.progress_ms = CTRL_PROGRESS_MIN_MS;
	CHECK(ctrl_encode_start(&b, &st) == 0);
	CHECK(ctrl_decode(CTRL_START, b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN, &st) == 0);
	free(b.data);
}

struct seen {
	unsigned n;
	uint64_t last;
};

static int take(void *ctx, unsigned type, const void *p, uint32_t len)
{
	struct seen *s = ctx;
	struct ctrl_progress pr;

	if (type != CTRL_PROGRESS || ctrl_decode_progress(p, len, &pr))
		return 99;
	s->n++;
	s->last = pr.bytes;
	return 0;
}

/* a flood of PROGRESS is taken at most max per call. */
static void item6_progress_flood(void)
{
	struct ctrl_inbox in = {.allow = ctrl_step_allows(CTRL_STEP_WINDOW)};
	struct seen s = {0};
	unsigned taken, i;
	int sv[2];

	printf("PROGRESS flood\n");
	pair(sv);
	for (i = 0; i < 100; i++) {
		struct ctrl_buf b = progress(i + 1);

		send_buf(sv[1], &b, 0, b.len);
		free(b.data);
	}
	CHECK(ctrl_inbox_pump(&in, sv[0], 16, take, &s, &taken) == 0);
	CHECK_U64(taken, 16);
	CHECK_U64(s.n, 16);
	CHECK_U64(s.last, 16);
	CHECK(ctrl_inbox_pump(&in, sv[0], 16, take, &s, &taken) == 0);
	CHECK_U64(s.last, 32); /* the next ones, in order */
	ctrl_inbox_reset(&in);
	close(sv[0]);
	close(sv[1]);
}

/* a message that comes in part is kept, and the next read is in step. */
static void item8_partial(void)
{
	struct ctrl_inbox in = {.allow = ctrl_step_allows(CTRL_STEP_WINDOW)};
	struct ctrl_buf a = progress(111), b = progress(222);
	struct seen s = {0};
	unsigned taken;
	int sv[2];

	printf("partial message kept\n");
	pair(sv);
	send_buf(sv[1], &a, 0, 5); /* part of the header */
	CHECK(ctrl_inbox_pump(&in, sv[0], 16, take, &s, &taken) == 0);
	CHECK_U64(taken, 0);
	send_buf(sv[1], &a, 5, 20); /* the header and part of the payload */
	CHECK(ctrl_inbox_pump(&in, sv[0], 16, take, &s, &taken) == 0);
	CHECK_U64(taken, 0);
	send_buf(sv[1], &a, 20, a.len);
	send_buf(sv[1], &b, 0, b.len);
	CHECK(ctrl_inbox_pump(&in, sv[0], 16, take, &s, &taken) == 0);
	CHECK_U64(taken, 2);
	CHECK_U64(s.last, 222);
	/* Out of turn in the window: a CANARY is refused at its header. */
	{
		struct ctrl_buf c;
		struct ctrl_chunk ch = {0};

		CHECK(ctrl_encode_chunks(&c, CTRL_CANARY, &ch, 1) == 0);
		send_buf(sv[1], &c, 0, c.len);
		free(c.data);
		CHECK(ctrl_inbox_pump(&in, sv[0], 16, take, &s, &taken) == -EBADMSG);
	}
	free(a.data);
	free(b.data);
	ctrl_inbox_reset(&in);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	item1_phases();
	item3_door_sizes();
	item6_progress_flood();
	item8_partial();
	item13_done_progress();
	return check_done("test_session");
}
