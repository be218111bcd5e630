// SPDX-License-Identifier: MIT
/*
 * ctrl_io.c: the control channel's sockets (see ctrl_io.h): waits cut into
 * slices that a signal ends, whole messages with a deadline, and the inbox
 * that takes a message in pieces. The bytes are ctrl.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ctrl_io.h"
#include "timing.h"
#include "signals.h"

/* ---- sockets --------------------------------------------------------------- */

/* Milliseconds left until deadline (ns), 0 if passed; -1 stays "forever". */
static int ms_left(uint64_t deadline, int timeout_ms)
{
	uint64_t now;

	if (timeout_ms < 0)
		return -1;
	now = nbw_now_ns();
	return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

static uint64_t deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? 0 : nbw_now_ns() + (uint64_t)timeout_ms * 1000000;
}

#define WAIT_SLICE_MS 200

/*
 * poll one fd for events until deadline, in slices so that SIGINT/SIGTERM
 * (blocked, taken synchronously) end the wait within WAIT_SLICE_MS.
 * 0 ready, -ETIMEDOUT, -EINTR or -errno.
 */
static int wait_fd(int fd, short events, uint64_t deadline, int timeout_ms)
{
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = events};
		int left = ms_left(deadline, timeout_ms);
		int n;

		if (nbw_interrupted())
			return -EINTR;
		if (left < 0 || left > WAIT_SLICE_MS)
			n = poll(&pfd, 1, WAIT_SLICE_MS);
		else
			n = poll(&pfd, 1, left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n == 0 && left >= 0 && left <= WAIT_SLICE_MS)
			return -ETIMEDOUT;
	}
}

static int resolve(const char *host, unsigned port, bool passive, struct addrinfo **res)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	char serv[16];
	int rc;

	if (passive)
		hints.ai_flags = AI_PASSIVE;
	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, res);
	if (rc == EAI_SYSTEM)
		return -errno;
	if (rc < 0 && rc > -CTRL_ERR_RESOLVE_SPAN)
		return CTRL_ERR_RESOLVE + rc; /* the resolver's own reason (ctrl_strerror) */
	return rc ? -EADDRNOTAVAIL : 0;
}

int ctrl_listen(const char *addr, unsigned port)
{
	struct addrinfo *res, *ai;
	int fd = -1, rc, one = 1;

	rc = resolve(addr, port, true, &res);
	if (rc)
		return rc;
	rc = -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, CTRL_LISTEN_BACKLOG))
			break;
		rc = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : rc;
}

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int ctrl_accept(int lfd, int timeout_ms, char *peer, size_t peerlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int rc, fd;

	rc = wait_fd(lfd, POLLIN, deadline_of(timeout_ms), timeout_ms);
	if (rc)
		return rc;
	fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	set_nodelay(fd);
	if (peer && getnameinfo((struct sockaddr *)&ss, sl, peer, (socklen_t)peerlen, NULL, 0,
				NI_NUMERICHOST))
		snprintf(peer, peerlen, "?");
	return fd;
}

int ctrl_connect(const char *host, unsigned port, int timeout_ms)
{
	uint64_t deadline = deadline_of(timeout_ms);
	struct addrinfo *res, *ai;
	int fd = -1, rc;

	rc = resolve(host, port, false, &res);
	if (rc)
		return rc;
	rc = -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		int err = 0;
		socklen_t el = sizeof(err);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
			rc = -errno;
		} else {
			rc = wait_fd(fd, POLLOUT, deadline, timeout_ms);
			if (!rc && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
				rc = -errno;
			else if (!rc && err)
				rc = -err;
		}
		if (!rc)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return rc;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	set_nodelay(fd);
	return fd;
}

/*
 * n bytes through the socket before the deadline: sent from p (out), or
 * received into p. 0, -ECONNRESET when the peer closed, or -errno.
 */
static int move_all(int fd, uint8_t *p, size_t n, bool out, uint64_t deadline, int timeout_ms)
{
	while (n) {
		ssize_t k;
		int rc = wait_fd(fd, out ? POLLOUT : POLLIN, deadline, timeout_ms);

		if (rc)
			return rc;
		k = out ? send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT)
			: recv(fd, p, n, MSG_DONTWAIT);
		if (k == 0 && !out)
			return -ECONNRESET;
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Send a finished (and sealed) buffer within timeout_ms. 0 or -errno (-EPIPE peer gone). */
static int ctrl_send(int fd, const struct ctrl_buf *b, int timeout_ms)
{
	return move_all(fd, b->data, b->len, true, deadline_of(timeout_ms), timeout_ms);
}

int ctrl_send_free(int fd, struct ctrl_mac *mac, struct ctrl_buf *b, int enc_rc, int timeout_ms)
{
	int rc = enc_rc ? enc_rc : ctrl_mac_seal(mac, b);

	if (!rc)
		rc = ctrl_send(fd, b, timeout_ms);

	free(b->data);
	b->data = NULL;
	return rc;
}

/* With mac on: the trailer of the message hdr, p[0..len) within the deadline, checked. */
static int recv_tag(int fd, struct ctrl_mac *mac, const uint8_t *hdr, const uint8_t *p,
		    uint32_t len, uint64_t deadline, int timeout_ms)
{
	uint8_t tag[CTRL_MAC_LEN];
	int rc;

	if (!mac || !mac->on)
		return 0;
	rc = move_all(fd, tag, sizeof(tag), false, deadline, timeout_ms);
	return rc ? rc : ctrl_mac_open(mac, hdr, p, len, tag);
}

int ctrl_recv(int fd, struct ctrl_mac *mac, unsigned *type, void **payload, uint32_t *len,
	      int timeout_ms)
{
	uint64_t deadline = deadline_of(timeout_ms);
	uint8_t hdr[CTRL_HDR_LEN];
	unsigned version;
	uint8_t *p = NULL;
	int rc;

	*payload = NULL;
	*len = 0;
	rc = move_all(fd, hdr, sizeof(hdr), false, deadline, timeout_ms);
	if (rc)
		return rc;
	rc = ctrl_parse_header(hdr, type, len, &version);
	if (!rc)
		rc = ctrl_mac_check_version(mac, version);
	if (rc)
		return rc;
	if (*len > ctrl_payload_max(*type))
		return -EMSGSIZE;
	if (*len) {
		p = malloc(*len);
		if (!p)
			return -ENOMEM;
		rc = move_all(fd, p, *len, false, deadline, timeout_ms);
	}
	if (!rc)
		rc = recv_tag(fd, mac, hdr, p, *len, deadline, timeout_ms);
	if (rc) {
		free(p);
		*len = 0;
		return rc;
	}
	*payload = p;
	return 0;
}

void ctrl_inbox_reset(struct ctrl_inbox *in)
{
	struct ctrl_mac *mac = in->mac;
	uint32_t allow = in->allow;

	free(in->payload);
	memset(in, 0, sizeof(*in));
	in->allow = allow;
	in->mac = mac;
}

/* Read up to n bytes now: the count (0 = nothing yet), or -ECONNRESET / -errno. */
static ssize_t read_some(int fd, uint8_t *p, size_t n)
{
	ssize_t k = recv(fd, p, n, MSG_DONTWAIT);

	if (k == 0)
		return -ECONNRESET;
	if (k < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
	return k;
}

/* The payload is in: with MACs, read the trailer and check it. 1 whole, 0 more, or < 0. */
static int inbox_tag(struct ctrl_inbox *in, int fd)
{
	ssize_t k;

	if (!in->mac || !in->mac->on)
		return 1;
	if (in->tag_got < CTRL_MAC_LEN) {
		k = read_some(fd, in->tag + in->tag_got, CTRL_MAC_LEN - in->tag_got);
		if (k < 0)
			return (int)k;
		in->tag_got += (size_t)k;
		if (in->tag_got < CTRL_MAC_LEN)
			return 0;
	}
	return ctrl_mac_open(in->mac, in->hdr, in->payload, in->len, in->tag) ?: 1;
}

int ctrl_inbox_read(struct ctrl_inbox *in, int fd)
{
	unsigned version;
	ssize_t k;
	int rc;

	if (in->hdr_got < CTRL_HDR_LEN) {
		k = read_some(fd, in->hdr + in->hdr_got, CTRL_HDR_LEN - in->hdr_got);
		if (k <= 0)
			return (int)k;
		in->hdr_got += (size_t)k;
		if (in->hdr_got < CTRL_HDR_LEN)
			return 0;
		rc = ctrl_parse_header(in->hdr, &in->type, &in->len, &version);
		if (!rc)
			rc = ctrl_mac_check_version(in->mac, version);
		if (rc)
			return rc;
		if (in->allow && !(in->allow & (1u << in->type)))
			return -EBADMSG;
		if (in->len > ctrl_payload_max(in->type) ||
		    (in->allow && ctrl_fixed_len(in->type) && in->len != ctrl_fixed_len(in->type)))
			return -EMSGSIZE;
		if (in->len && !(in->payload = malloc(in->len)))
			return -ENOMEM;
	}
	if (in->got < in->len) {
		k = read_some(fd, in->payload + in->got, in->len - in->got);
		if (k < 0)
			return (int)k;
		in->got += (size_t)k;
		if (in->got < in->len)
			return 0;
	}
	return inbox_tag(in, fd);
}

int ctrl_inbox_pump(struct ctrl_inbox *in, int fd, unsigned max, ctrl_take_fn take, void *ctx,
		    unsigned *taken)
{
	unsigned n;
	int rc = 0;

	for (n = 0; n < max && !rc; n++) {
		rc = ctrl_inbox_read(in, fd);
		if (rc <= 0)
			break;
		rc = take(ctx, in->type, in->payload, in->len);
		ctrl_inbox_reset(in);
	}
	if (taken)
		*taken = n;
	return rc;
}

int ctrl_expect_end(int fd, int timeout_ms)
{
	if (shutdown(fd, SHUT_WR) && errno != ENOTCONN)
		return -errno;
	return ctrl_await_end(fd, timeout_ms);
}

int ctrl_await_end(int fd, int timeout_ms)
{
	uint64_t deadline = deadline_of(timeout_ms);
	uint8_t b;

	for (;;) {
		int rc = wait_fd(fd, POLLIN, deadline, timeout_ms);
		ssize_t k;

		if (rc)
			return rc;
		k = recv(fd, &b, 1, MSG_DONTWAIT);
		if (k == 0)
			return 0;
		if (k > 0)
			return CTRL_ERR_MAC;
		if (errno == ECONNRESET)
			return 0;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
	}
}

int ctrl_expect(int fd, struct ctrl_mac *mac, unsigned want, void **payload, uint32_t *len,
		int timeout_ms, char *peer_err, size_t errlen)
{
	unsigned type;
	int rc;

	peer_err[0] = '\0';
	rc = ctrl_recv(fd, mac, &type, payload, len, timeout_ms);
	if (rc)
		return rc;
	if (type == want)
		return 0;
	if (type == CTRL_ERROR) {
		struct ctrl_error e;

		if (ctrl_decode_error(*payload, *len, &e))
			snprintf(e.msg, sizeof(e.msg), "(malformed ERROR message)");
		snprintf(peer_err, errlen, "%s", e.msg);
		rc = -ECONNABORTED;
	} else {
		snprintf(peer_err, errlen, "expected %s, got %s", ctrl_type_name(want),
			 ctrl_type_name(type));
		rc = -EBADMSG;
	}
	free(*payload);
	*payload = NULL;
	return rc;
}

int ctrl_await(int fd, struct ctrl_mac *mac, unsigned want, void *msg, int timeout_ms,
	       char *peer_err, size_t errlen)
{
	uint32_t len;
	void *p;
	int rc = ctrl_expect(fd, mac, want, &p, &len, timeout_ms, peer_err, errlen);

	if (rc)
		return rc;
	rc = ctrl_decode(want, p, len, msg);
	free(p);
	return rc;
}
