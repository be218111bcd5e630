// SPDX-License-Identifier: MIT
/*
 * crowd: strangers at the sink's door, for tests/remote/fake_crowd.sh.
 *
 *	crowd HOST PORT NADDRS PER_ADDR SECONDS [auth|open]
 *
 * From NADDRS loopback addresses (127.0.0.10 and up), PER_ADDR connections
 * each to HOST PORT, held open without a word (or, with "auth", after an
 * AUTH that claims a key and never a proof; with "open", after an AUTH
 * without a key, as a source of an open sink says it, and never a HELLO);
 * each one the door closes is dialled again at once, for SECONDS. At the
 * end one line on stdout: how many connections were made.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctrl.h"
#include "timing.h"

#define MAX_CROWD 1024

struct stranger {
	int fd;
	bool said; /* its AUTH is out (auth mode) */
	char from[32];
};

static struct sockaddr_in to;
static struct ctrl_buf auth_msg;

/* A non-blocking connection from s->from; -1 when none could be started. */
static int dial(struct stranger *s)
{
	struct sockaddr_in me = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	s->said = false;
	inet_pton(AF_INET, s->from, &me.sin_addr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    (connect(fd, (struct sockaddr *)&to, sizeof(to)) && errno != EINPROGRESS)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One stranger's turn: say its AUTH once connected, redial once the door closed it. */
static unsigned turn(struct stranger *s, short revents, bool auth)
{
	char buf[256];

	if (auth && !s->said && (revents & POLLOUT)) {
		s->said = true;
		if (send(s->fd, auth_msg.data, auth_msg.len, MSG_NOSIGNAL) < 0)
			revents |= POLLHUP;
	}
	if ((revents & POLLIN) && recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		return 0; /* the door's nonce: keep silent */
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	close(s->fd);
	s->fd = dial(s);
	return s->fd >= 0;
}

int main(int argc, char **argv)
{
	static struct stranger s[MAX_CROWD];
	static struct pollfd pfd[MAX_CROWD];
	struct ctrl_auth a = {.has_key = 1};
	unsigned long made = 0;
	uint64_t until;
	int naddrs, per, n = 0, i;
	bool auth;

	if (argc < 6) {
		fprintf(stderr, "usage: crowd HOST PORT NADDRS PER_ADDR SECONDS [auth|open]\n");
		return 2;
	}
	to.sin_family = AF_INET;
	to.sin_port = htons((uint16_t)atoi(argv[2]));
	inet_pton(AF_INET, argv[1], &to.sin_addr);
	naddrs = atoi(argv[3]);
	per = atoi(argv[4]);
	until = nbw_now_ns() + (uint64_t)(atof(argv[5]) * 1e9);
	auth = argc > 6 && (!strcmp(argv[6], "auth") || !strcmp(argv[6], "open"));
	a.has_key = argc > 6 && !strcmp(argv[6], "auth");
	memset(a.nonce, 0x5a, sizeof(a.nonce));
	if (ctrl_encode_auth(&auth_msg, &a))
		return 1;
	for (i = 0; i < naddrs * per && n < MAX_CROWD; i++, n++) {
		snprintf(s[n].from, sizeof(s[n].from), "127.0.0.%d", 10 + i / per % 240);
		s[n].fd = dial(&s[n]);
		made += s[n].fd >= 0;
	}
	while (nbw_now_ns() < until) {
		for (i = 0; i < n; i++)
			pfd[i] = (struct pollfd){
				.fd = s[i].fd,
				.events = (short)(POLLIN | (auth && !s[i].said ? POLLOUT : 0))};
		if (poll(pfd, (nfds_t)n, 50) < 0)
			break;
		for (i = 0; i < n; i++) {
			if (s[i].fd < 0) {
				s[i].fd = dial(&s[i]);
				made += s[i].fd >= 0;
			} else if (pfd[i].revents) {
				made += turn(&s[i], pfd[i].revents, auth);
			}
		}
	}
	printf("%lu\n", made);
	free(auth_msg.data);
	return 0;
}
