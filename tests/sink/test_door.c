// SPDX-License-Identifier: MIT
/*
 * test_door: the sink's door on loopback TCP, without an RDMA device (the
 * door needs none): what strangers who never get past it can still cost.
 * Each check is named after what a stranger tries:
 *
 *	32 connections each announcing a 28 MiB VERIFY before HELLO
 *	        (and sending it) grow the door's peak memory by less than 64 MiB
 *	a crowd of idle handshakes from another address does not push
 *	        out a real source's handshake
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "ctrl_io.h"
#include "door.h"
#include "nbw.h"
#include "timing.h"

#define MIB (1u << 20)

/* The door on 127.0.0.1 and a free port of its own; NULL if none could be had. */
static struct door *open_door(struct options *o)
{
	struct door *d = NULL;
	int i;

	o->sink.bind = "127.0.0.1";
	for (i = 0; i < 20 && !d; i++) {
		o->port = 20000 + (unsigned)((getpid() * 7 + i * 131) % 30000);
		d = door_open(o, NULL, 0);
	}
	return d;
}

/* A connection to the door from address from ("127.0.0.x"); blocking, or not. */
static int dial(const char *from, unsigned port, bool nonblock)
{
	struct sockaddr_in me = {.sin_family = AF_INET}, to = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);

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

/* Peak resident memory of this process (VmHWM), in bytes. */
static uint64_t peak_rss(void)
{
	char line[256];
	uint64_t kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtoull(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb * 1024;
}

/* The strangers: n connections at once, each a VERIFY header of 28 MiB and then its bytes. */
static void strangers(unsigned port, int n)
{
	static char zeros[MIB];
	uint8_t hdr[CTRL_HDR_LEN] = {'N', 'B',	       'W',  'R',  0,	 CTRL_VERSION,
				     0,	  CTRL_VERIFY, 0x01, 0xc0, 0x00, 0x00};
	uint64_t left[32], until = nbw_now_ns() + 8 * NBW_NSEC_PER_SEC;
	int i, fd[32], busy = 1;

	for (i = 0; i < n; i++) { /* each from an address of its own: no per-address cap helps */
		char from[32];

		snprintf(from, sizeof(from), "127.0.0.%d", 10 + i);
		fd[i] = dial(from, port, false);
		left[i] = 28ULL * MIB;
		if (fd[i] >= 0 && send(fd[i], hdr, sizeof(hdr), MSG_NOSIGNAL) != sizeof(hdr))
			left[i] = 0;
	}
	while (busy && nbw_now_ns() < until) {
		bool moved = false;

		busy = 0;
		for (i = 0; i < n; i++) {
			ssize_t k;

			if (fd[i] < 0 || !left[i])
				continue;
			k = send(fd[i], zeros, left[i] < MIB ? left[i] : MIB,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (k < 0 && errno != EAGAIN)
				left[i] = 0;
			else if (k > 0)
				left[i] -= (uint64_t)k;
			moved |= k > 0;
			busy = 1;
		}
		if (!moved)
			usleep(2000); /* every socket full: the door reads */
	}
	_exit(0);
}

static void item3_memory(void)
{
	struct options o = {0};
	struct door *d = open_door(&o);
	struct door_guest g;
	uint64_t before, grew;
	pid_t pid;

	printf("32 x 28 MiB before HELLO\n");
	CHECK(d != NULL);
	if (!d)
		return;
	before = peak_rss();
	pid = fork();
	if (pid == 0)
		strangers(o.port, 32);
	/* Serve them as the sink would until the strangers are done or 20 s passed. */
	for (int i = 0; i < 100; i++) {
		int st;

		CHECK(door_await(d, nbw_now_ns() + 200000000ULL, &g) == -ETIMEDOUT);
		if (waitpid(pid, &st, WNOHANG) == pid) {
			pid = 0;
			break;
		}
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	grew = peak_rss() - before;
	printf("  peak RSS grew by %.1f MiB\n", grew / (double)MIB);
	CHECK(grew < 64ULL * MIB);
	door_close(d);
}

/* A source's AUTH (open sink) or HELLO, sent whole on fd. */
static bool say(int fd, unsigned type)
{
	struct ctrl_hello h = {.chunk = MIB, .depth = 4, .workers = 1, .duration_ms = 1000};
	struct ctrl_auth a = {0};
	struct ctrl_buf b;

	return !ctrl_send_free(
		fd, NULL, &b,
		type == CTRL_AUTH ? ctrl_encode_auth(&b, &a) : ctrl_encode_hello(&b, &h), 1000);
}

static void item4_eviction(void)
{
	struct options o = {0};
	struct door *d = open_door(&o);
	struct door_guest g;
	int real, crowd[40], i, rc;

	printf("handshake eviction\n");
	CHECK(d != NULL);
	if (!d)
		return;
	real = dial("127.0.0.1", o.port, false);
	CHECK(real >= 0 && say(real, CTRL_AUTH));
	CHECK(door_await(d, nbw_now_ns() + 100000000ULL, &g) == -ETIMEDOUT); /* AUTH answered */
	for (i = 0; i < 40; i++) {
		crowd[i] = dial("127.0.0.2", o.port, true);
		door_await(d, nbw_now_ns() + 20000000ULL, &g); /* one accept per round */
	}
	CHECK(say(real, CTRL_HELLO));
	rc = door_await(d, nbw_now_ns() + 1000000000ULL, &g);
	CHECK(rc == 0);
	if (!rc) {
		CHECK_STR(g.peer, "127.0.0.1");
		CHECK_U64(g.hello.workers, 1);
		close(g.fd);
	}
	for (i = 0; i < 40; i++)
		if (crowd[i] >= 0)
			close(crowd[i]);
	close(real);
	door_close(d);
}

int main(void)
{
	nbw_set_prog("test_door");
	item4_eviction();
	item3_memory();
	return check_done("test_door");
}
