// SPDX-License-Identifier: MIT
/*
 * test_door_crowd: the sink's door (nvme_write_bw_remote/door.c) on
 * loopback TCP against a crowd of strangers from many addresses, without an
 * RDMA device:
 *
 *	place:   every place taken, each address holding one pending handshake,
 *	         the real source's (AUTH done, in the first place) is not the
 *	         one a newcomer takes: its HELLO is still read
 *	proof:   with a key, 100 strangers at once while the real source's proof
 *	         is on its way (its AUTH answered): it keeps its place
 *	burst:   100 connections at once all complete TCP's handshake within
 *	         0.6 s (the listen backlog holds them; a backlog of 8 dropped the
 *	         rest's SYNs, to be sent again a second later)
 *	log:     300 strangers dropped within a second and a half are said in a
 *	         few lines that count every one, not a line each
 *	speak:   an open sink's every place held by a stranger that said AUTH
 *	         (answered: a HELLO would be next) and went quiet: past the
 *	         round trip the answer asks for (DOOR_ANSWER_MS) the real source
 *	         takes one and its HELLO is read within a second, not after the
 *	         strangers' 5 s handshake deadline
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "ctrl_auth.h"
#include "ctrl_io.h"
#include "door.h"
#include "nbw.h"
#include "timing.h"

#define MS 1000000ULL

/* The door on 127.0.0.1 and a free port of its own; NULL if none could be had. */
static struct door *open_door(struct options *o)
{
	struct door *d = NULL;
	int i;

	o->sink.bind = "127.0.0.1";
	for (i = 0; i < 20 && !d; i++) {
		o->port = 20000 + (unsigned)((getpid() * 13 + i * 137) % 30000);
		d = door_open(o, NULL, 0);
	}
	return d;
}

/* A connection to the door from 127.0.0.x, blocking or not; -1 if none. */
static int dial(int x, unsigned port, bool nonblock)
{
	struct sockaddr_in me = {.sin_family = AF_INET}, to = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);
	char from[32];

	snprintf(from, sizeof(from), "127.0.0.%d", x);
	inet_pton(AF_INET, from, &me.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	to.sin_port = htons((uint16_t)port);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    (connect(fd, (struct sockaddr *)&to, sizeof(to)) && errno != EINPROGRESS)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Serve the door for ms; the return of its last door_await(). */
static int serve(struct door *d, unsigned ms, struct door_guest *g)
{
	return door_await(d, nbw_now_ns() + ms * MS, g);
}

/* A source's AUTH (open sink) or HELLO, sent whole on fd. */
static bool say(int fd, unsigned type)
{
	struct ctrl_hello h = {.chunk = 1 << 20, .depth = 4, .workers = 1, .duration_ms = 1000};
	struct ctrl_auth a = {0};
	struct ctrl_buf b;

	return !ctrl_send_free(
		fd, NULL, &b,
		type == CTRL_AUTH ? ctrl_encode_auth(&b, &a) : ctrl_encode_hello(&b, &h), 1000);
}

static void place(void)
{
	struct options o = {0};
	struct door *d = open_door(&o);
	struct door_guest g;
	int real, crowd[DOOR_MAX_PENDING + 8], i, rc;

	printf("place: the real source among a crowd of one handshake per address\n");
	CHECK(d != NULL);
	if (!d)
		return;
	real = dial(1, o.port, false);
	CHECK(real >= 0 && say(real, CTRL_AUTH));
	CHECK(serve(d, 100, &g) == -ETIMEDOUT); /* its AUTH answered: the first place */
	for (i = 0; i < DOOR_MAX_PENDING + 8; i++) {
		crowd[i] = dial(10 + i, o.port, true); /* each from an address of its own */
		serve(d, 20, &g);
	}
	CHECK(say(real, CTRL_HELLO));
	rc = serve(d, 1000, &g);
	CHECK(rc == 0);
	if (!rc) {
		CHECK_STR(g.peer, "127.0.0.1");
		close(g.fd);
	}
	for (i = 0; i < DOOR_MAX_PENDING + 8; i++)
		if (crowd[i] >= 0)
			close(crowd[i]);
	close(real);
	door_close(d);
}

/* The door's AUTH answer on fd into *a; false if none came within 1 s. */
static bool answer(int fd, struct ctrl_auth *a)
{
	char err[256];
	uint32_t len;
	void *p;
	bool ok;

	if (ctrl_expect(fd, NULL, CTRL_AUTH, &p, &len, 1000, err, sizeof(err)))
		return false;
	ok = !ctrl_decode_auth(p, len, a);
	free(p);
	return ok;
}

static void proof(void)
{
	struct options o = {.key = {.key = "0123456789abcdef", .len = 16}};
	struct ctrl_auth mine = {.has_key = 1}, theirs = {0}, sinks = {0};
	uint8_t own[CTRL_NONCE_LEN];
	struct ctrl_mac mac;
	struct door *d = open_door(&o);
	struct door_guest g;
	struct ctrl_buf b;
	int real, crowd[100], i, rc;

	printf("proof: 100 strangers while the real source's proof is on its way\n");
	CHECK(d != NULL);
	if (!d)
		return;
	memset(mine.nonce, 0x11, sizeof(mine.nonce));
	real = dial(1, o.port, false);
	CHECK(real >= 0 && !ctrl_send_free(real, NULL, &b, ctrl_encode_auth(&b, &mine), 1000));
	serve(d, 50, &g);
	CHECK(answer(real, &theirs) && theirs.has_key);
	for (i = 0; i < 100; i++) /* each from an address of its own, idle */
		crowd[i] = dial(10 + i, o.port, true);
	serve(d, 100, &g); /* rounds enough to fill every place twice over */
	/* Its proof: HMAC(key, "nbw-source" | the sink's nonce | its own), no nonce. */
	memcpy(own, mine.nonce, sizeof(own));
	mine = (struct ctrl_auth){.has_key = 1};
	CHECK(!auth_mac(&o.key, "nbw-source", theirs.nonce, own, mine.mac));
	CHECK(!ctrl_send_free(real, NULL, &b, ctrl_encode_auth(&b, &mine), 1000));
	serve(d, 50, &g);
	CHECK(answer(real, &sinks)); /* the sink's proof: the key is proved, its place kept */
	/* From HELLO on, MAC'd (proto/ctrl_mac.h) under the keys of both nonces. */
	CHECK(!ctrl_mac_start(&mac, &o.key, own, theirs.nonce, CTRL_BY_SOURCE));
	CHECK(!ctrl_send_free(real, &mac, &b,
			      ctrl_encode_hello(&b, &(struct ctrl_hello){.chunk = 1 << 20,
									 .depth = 4,
									 .workers = 1,
									 .duration_ms = 1000}),
			      1000));
	rc = serve(d, 1000, &g);
	CHECK(rc == 0);
	if (!rc) {
		CHECK_STR(g.peer, "127.0.0.1");
		CHECK(g.trusted && g.mac.on && g.mac.rx_seq == 1);
		close(g.fd);
	}
	for (i = 0; i < 100; i++)
		if (crowd[i] >= 0)
			close(crowd[i]);
	close(real);
	door_close(d);
}

/*
 * A source of protocol 3 with the key: it proves the key, then sends a
 * plain HELLO. The door drops it and tells it why in a plain ERROR.
 */
static void old_source(void)
{
	struct options o = {.key = {.key = "0123456789abcdef", .len = 16}};
	struct ctrl_auth mine = {.has_key = 1}, theirs = {0}, sinks = {0};
	uint8_t own[CTRL_NONCE_LEN];
	struct door *d = open_door(&o);
	struct door_guest g;
	struct ctrl_buf b;
	char err[256] = "";
	uint32_t len;
	void *p = NULL;
	int real;

	printf("old: a keyed source of protocol 3 (no MACs after AUTH)\n");
	CHECK(d != NULL);
	if (!d)
		return;
	memset(mine.nonce, 0x11, sizeof(mine.nonce));
	memcpy(own, mine.nonce, sizeof(own));
	real = dial(1, o.port, false);
	CHECK(real >= 0 && !ctrl_send_free(real, NULL, &b, ctrl_encode_auth(&b, &mine), 1000));
	serve(d, 50, &g);
	CHECK(answer(real, &theirs) && theirs.has_key);
	mine = (struct ctrl_auth){.has_key = 1};
	CHECK(!auth_mac(&o.key, "nbw-source", theirs.nonce, own, mine.mac));
	CHECK(!ctrl_send_free(real, NULL, &b, ctrl_encode_auth(&b, &mine), 1000));
	serve(d, 50, &g);
	CHECK(answer(real, &sinks));
	CHECK(say(real, CTRL_HELLO)); /* plain, as protocol 3 sends it */
	CHECK(serve(d, 300, &g) == -ETIMEDOUT);
	CHECK(ctrl_expect(real, NULL, CTRL_ACCEPT, &p, &len, 1000, err, sizeof(err)) ==
	      -ECONNABORTED);
	CHECK(strstr(err, "sink speaks protocol version 4 with --psk-file") != NULL);
	free(p);
	close(real);
	door_close(d);
}

/* How many of fd[n] completed TCP's handshake (the SYN's answer came). */
static int connected(const int *fd, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++) {
		struct pollfd p = {.fd = fd[i], .events = POLLOUT};
		int err = 1;
		socklen_t len = sizeof(err);

		if (fd[i] >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) &&
		    !getsockopt(fd[i], SOL_SOCKET, SO_ERROR, &err, &len) && !err)
			k++;
	}
	return k;
}

static void burst(void)
{
	struct options o = {0};
	struct door *d = open_door(&o);
	struct door_guest g;
	int fd[100], i, k;

	printf("burst: 100 connections at once\n");
	CHECK(d != NULL);
	if (!d)
		return;
	for (i = 0; i < 100; i++)
		fd[i] = dial(10 + i, o.port, true);
	serve(d, 600, &g);
	k = connected(fd, 100);
	printf("  %d of 100 connected within 0.6 s\n", k);
	CHECK_U64(k, 100);
	for (i = 0; i < 100; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	door_close(d);
}

/* The drops said in file f: lines, and the connections they count ("X and N others"). */
static void count_said(FILE *f, int *lines, int *drops)
{
	char line[512];

	*lines = *drops = 0;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		const char *others = strstr(line, " and ");
		const char *what = strstr(line, "connection dropped: ");

		if (!what)
			continue;
		++*lines;
		*drops += 1 + (others && others < what ? atoi(others + 5) : 0);
	}
}

static void log_lines(void)
{
	struct options o = {0};
	struct door *d = open_door(&o);
	static const char junk[12] = "GET / HTTP/";
	struct door_guest g;
	FILE *f = tmpfile();
	int saved = dup(2), lines, drops, i, k;

	printf("log: 300 strangers dropped\n");
	CHECK(d != NULL && f != NULL);
	if (!d || !f)
		return;
	fflush(stderr);
	dup2(fileno(f), 2);
	for (i = 0; i < 300; i++) { /* 30 addresses, 10 each: not the protocol, dropped */
		int fd = dial(10 + i % 30, o.port, false);

		if (fd >= 0 && send(fd, junk, sizeof(junk), MSG_NOSIGNAL) != sizeof(junk))
			printf("  connection %d: its junk not sent\n", i);
		for (k = 0; k < 3; k++)
			serve(d, 1, &g);
		if (fd >= 0)
			close(fd);
	}
	serve(d, 1500, &g);
	door_close(d); /* says what it still held */
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	count_said(f, &lines, &drops);
	printf("  %d lines said %d drops\n", lines, drops);
	CHECK(lines >= 1 && lines <= 6);
	CHECK_U64(drops, 300);
	fclose(f);
}

static void speak(void)
{
	struct options o = {0};
	struct door *d = open_door(&o);
	struct door_guest g;
	int crowd[DOOR_MAX_PENDING], real, i, rc = -1;
	uint64_t t0;

	printf("speak: every place held by a stranger that said AUTH, then nothing\n");
	CHECK(d != NULL);
	if (!d)
		return;
	for (i = 0; i < DOOR_MAX_PENDING; i++) { /* 8 from each address: all it may hold */
		crowd[i] = dial(10 + i / DOOR_MAX_PER_ADDR, o.port, false);
		CHECK(crowd[i] >= 0 && say(crowd[i], CTRL_AUTH));
		serve(d, 1, &g);
	}
	serve(d, 100, &g); /* every AUTH read and answered */
	t0 = nbw_now_ns();
	real = dial(1, o.port, false);
	CHECK(real >= 0 && say(real, CTRL_AUTH) && say(real, CTRL_HELLO));
	while (rc && nbw_now_ns() - t0 < 1500 * MS)
		rc = serve(d, 100, &g);
	printf("  the real source's HELLO read after %llu ms\n",
	       (unsigned long long)((nbw_now_ns() - t0) / MS));
	CHECK(rc == 0);
	if (!rc) {
		CHECK_STR(g.peer, "127.0.0.1");
		close(g.fd);
	}
	for (i = 0; i < DOOR_MAX_PENDING; i++)
		if (crowd[i] >= 0)
			close(crowd[i]);
	if (real >= 0)
		close(real);
	door_close(d);
}

int main(void)
{
	nbw_set_prog("test_door_crowd");
	place();
	proof();
	old_source();
	burst();
	log_lines();
	speak();
	return check_done("test_door_crowd");
}
