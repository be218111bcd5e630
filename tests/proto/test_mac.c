// SPDX-License-Identifier: MIT
/*
 * test_mac: the control channel after a keyed AUTH (proto/ctrl_mac.h).
 * The keys and a trailer against values computed apart (Python's hmac,
 * RFC 5869 HKDF), so that a change of the derivation or of the MAC input
 * shows; a MAC'd conversation over a socketpair, blocking and through the
 * sink's inbox byte by byte; and what a host on the path may try: a byte
 * flipped in the payload, the header or the MAC, a message replayed,
 * dropped, reordered, reflected back to its sender, taken from another
 * session, stripped of its MAC. Without a key the bytes are the codec's,
 * version 3 and no trailer.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "ctrl_auth.h"
#include "ctrl_io.h"
#include "ctrl_mac.h"

static const char KEY[] = "0123456789abcdef";

static struct auth_key key_of(const char *text)
{
	struct auth_key k = {.len = strlen(text)};

	memcpy(k.key, text, k.len);
	return k;
}

static void hex(const char *h, uint8_t *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned v;

		CHECK(sscanf(h + 2 * i, "%2x", &v) == 1);
		out[i] = (uint8_t)v;
	}
}

/* Both ends of one session: the nonces 0x11.. (source) and n_k.. (sink). */
static void macs(struct ctrl_mac *src, struct ctrl_mac *snk, uint8_t n_k)
{
	struct auth_key k = key_of(KEY);
	uint8_t ns[CTRL_NONCE_LEN], nk[CTRL_NONCE_LEN];

	memset(ns, 0x11, sizeof(ns));
	memset(nk, n_k, sizeof(nk));
	CHECK(ctrl_mac_start(src, &k, ns, nk, CTRL_BY_SOURCE) == 0 && src->on);
	CHECK(ctrl_mac_start(snk, &k, ns, nk, CTRL_BY_SINK) == 0 && snk->on);
}

/* The keys and the first two trailers, as Python's hmac computes them. */
static void test_known_answers(void)
{
	struct ctrl_mac src, snk;
	uint8_t s2k[32], k2s[32], t0[32], t1[32];
	struct ctrl_buf b;

	hex("d60b0ef437eb8be1a392c352d837a4302a00279d9e3615fc5f0c7f3a39a45c35", s2k, 32);
	hex("9605bf94928255c0c543594143b6a418b7a7df64bcec7e7bb770f711b696070d", k2s, 32);
	hex("c6bb58a3708e82460807c2e424a2ec8d009adca74ea5809d3822e6aa1637ddfd", t0, 32);
	hex("55a3a2cd8f8cb7942d2128b9fb9c6e4a70b3094a2513f90945dfae6045698124", t1, 32);
	macs(&src, &snk, 0x22);
	CHECK(!memcmp(src.tx, s2k, 32) && !memcmp(snk.rx, s2k, 32));
	CHECK(!memcmp(src.rx, k2s, 32) && !memcmp(snk.tx, k2s, 32));
	CHECK(memcmp(s2k, k2s, 32) != 0);
	/* The sink's DONE (pass), its first message and then its second. */
	CHECK(ctrl_encode_done(&b, &(struct ctrl_done){.verify = 1}) == 0);
	CHECK(ctrl_mac_seal(&snk, &b) == 0);
	CHECK_U64(b.len, CTRL_HDR_LEN + 1 + CTRL_MAC_LEN);
	CHECK_U64(b.data[5], CTRL_VERSION_MAC);
	CHECK_U64(b.data[11], 1); /* the length counts the payload alone */
	CHECK(!memcmp(b.data + CTRL_HDR_LEN + 1, t0, 32));
	free(b.data);
	CHECK(ctrl_encode_done(&b, &(struct ctrl_done){.verify = 1}) == 0);
	CHECK(ctrl_mac_seal(&snk, &b) == 0 && !memcmp(b.data + CTRL_HDR_LEN + 1, t1, 32));
	CHECK_U64(snk.tx_seq, 2);
	free(b.data);
	/* Another sink nonce: other keys (a session's keys are its own). */
	macs(&src, &snk, 0x23);
	CHECK(memcmp(src.tx, s2k, 32) != 0 && memcmp(snk.tx, k2s, 32) != 0);
}

/* A PROGRESS with bytes = v, sealed by m (NULL: plain) into *b. */
static void progress(struct ctrl_mac *m, uint64_t v, struct ctrl_buf *b)
{
	struct ctrl_progress p = {.elapsed_ns = 1000, .bytes = v};

	CHECK(ctrl_encode_progress(b, &p) == 0);
	CHECK(ctrl_mac_seal(m, b) == 0);
}

static void put(int fd, const struct ctrl_buf *b)
{
	CHECK(write(fd, b->data, b->len) == (ssize_t)b->len);
}

/* What the receiver with mac makes of the next message on fd; its bytes in *v. */
static int take(int fd, struct ctrl_mac *mac, uint64_t *v)
{
	struct ctrl_progress p = {0};
	unsigned type;
	uint32_t len;
	void *pl;
	int rc = ctrl_recv(fd, mac, &type, &pl, &len, 1000);

	if (!rc) {
		CHECK(type == CTRL_PROGRESS);
		CHECK(ctrl_decode_progress(pl, len, &p) == 0);
		*v = p.bytes;
	}
	free(pl);
	return rc;
}

/* A fresh pair of channels and socket ends (sv[0] writes, sv[1] reads). */
static void fresh(struct ctrl_mac *src, struct ctrl_mac *snk, int sv[2])
{
	macs(src, snk, 0x22);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
}

static void done(int sv[2])
{
	close(sv[0]);
	close(sv[1]);
}

/* Good messages pass; each change a host on the path may make fails the check. */
static void test_tampering(void)
{
	struct ctrl_mac src, snk, other_src, other_snk;
	struct ctrl_buf m0, m1;
	uint64_t v = 0;
	int sv[2];

	fresh(&src, &snk, sv);
	progress(&src, 7, &m0);
	progress(&src, 9, &m1);
	put(sv[0], &m0), put(sv[0], &m1);
	CHECK(take(sv[1], &snk, &v) == 0 && v == 7);
	CHECK(take(sv[1], &snk, &v) == 0 && v == 9);
	CHECK_U64(snk.rx_seq, 2);
	/* Replayed: m1 again. */
	put(sv[0], &m1);
	CHECK(take(sv[1], &snk, &v) == CTRL_ERR_MAC);
	done(sv), free(m0.data), free(m1.data);

	/* One byte flipped: in the payload (the byte count), the header's type, the MAC. */
	for (size_t at = 0; at < 3; at++) {
		size_t where[] = {CTRL_HDR_LEN + 15, 7, CTRL_HDR_LEN + 32 + 5};

		fresh(&src, &snk, sv);
		progress(&src, 7, &m0);
		m0.data[where[at]] ^= 0x01;
		put(sv[0], &m0);
		CHECK(take(sv[1], &snk, &v) == CTRL_ERR_MAC);
		done(sv), free(m0.data);
	}

	/* Dropped (m1 without m0), reordered (m1 then m0). */
	fresh(&src, &snk, sv);
	progress(&src, 7, &m0);
	progress(&src, 9, &m1);
	put(sv[0], &m1);
	CHECK(take(sv[1], &snk, &v) == CTRL_ERR_MAC);
	done(sv);
	macs(&other_src, &snk, 0x22);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	put(sv[0], &m1), put(sv[0], &m0);
	CHECK(take(sv[1], &snk, &v) == CTRL_ERR_MAC);
	done(sv), free(m0.data), free(m1.data);

	/* Reflected: the sink's own first message back to the sink (the other key). */
	fresh(&src, &snk, sv);
	progress(&snk, 7, &m0);
	put(sv[0], &m0);
	CHECK(take(sv[1], &snk, &v) == CTRL_ERR_MAC);
	done(sv), free(m0.data);

	/* From another session (other nonces, the same key): a relay's record is worthless. */
	fresh(&src, &snk, sv);
	macs(&other_src, &other_snk, 0x33);
	progress(&other_src, 7, &m0);
	put(sv[0], &m0);
	CHECK(take(sv[1], &snk, &v) == CTRL_ERR_MAC);
	done(sv), free(m0.data);

	/* Stripped: a plain message on a keyed channel; a MAC'd one on a plain channel. */
	fresh(&src, &snk, sv);
	progress(NULL, 7, &m0);
	progress(&src, 7, &m1);
	put(sv[0], &m0), put(sv[0], &m1);
	CHECK(take(sv[1], &snk, &v) == CTRL_ERR_NOMAC);
	done(sv);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	put(sv[0], &m1);
	CHECK(take(sv[1], NULL, &v) == -EPROTONOSUPPORT);
	done(sv), free(m0.data), free(m1.data);

	/* The trailer cut short: the peer closed. */
	fresh(&src, &snk, sv);
	progress(&src, 7, &m0);
	CHECK(write(sv[0], m0.data, m0.len - 1) == (ssize_t)m0.len - 1);
	close(sv[0]);
	CHECK(take(sv[1], &snk, &v) == -ECONNRESET);
	close(sv[1]), free(m0.data);
}

/* The sink's inbox: a MAC'd message in single bytes, handed over only once checked. */
static void test_inbox(void)
{
	struct ctrl_mac src, snk;
	struct ctrl_inbox in = {.allow = 1u << CTRL_PROGRESS, .mac = &snk};
	struct ctrl_buf m0, m1, plain;
	int sv[2], rc = 0;
	size_t i;

	fresh(&src, &snk, sv);
	CHECK(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
	progress(&src, 7, &m0);
	progress(&src, 9, &m1);
	for (i = 0; i < m0.len; i++) {
		CHECK(write(sv[0], m0.data + i, 1) == 1);
		rc = ctrl_inbox_read(&in, sv[1]);
		CHECK(rc == (i + 1 == m0.len ? 1 : 0));
	}
	CHECK(in.type == CTRL_PROGRESS && in.len == 32);
	ctrl_inbox_reset(&in);
	CHECK(in.mac == &snk && in.allow == 1u << CTRL_PROGRESS);
	m1.data[m1.len - 1] ^= 0x80; /* the MAC's last byte */
	put(sv[0], &m1);
	CHECK(ctrl_inbox_read(&in, sv[1]) == CTRL_ERR_MAC);
	ctrl_inbox_reset(&in);
	done(sv);

	/* A plain header is refused before a byte of its payload is allocated. */
	fresh(&src, &snk, sv);
	CHECK(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0);
	progress(NULL, 7, &plain);
	put(sv[0], &plain);
	CHECK(ctrl_inbox_read(&in, sv[1]) == CTRL_ERR_NOMAC && in.payload == NULL);
	ctrl_inbox_reset(&in);
	done(sv), free(m0.data), free(m1.data), free(plain.data);
}

/* Without a key the bytes sent are the codec's: version 3, no trailer. */
static void test_plain_unchanged(void)
{
	struct ctrl_mac off = {0};
	struct ctrl_buf want, b;
	uint8_t got[256];
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	progress(NULL, 7, &want);
	CHECK_U64(want.data[5], CTRL_VERSION);
	CHECK(ctrl_send_free(sv[0], NULL, &b,
			     ctrl_encode_progress(
				     &b, &(struct ctrl_progress){.elapsed_ns = 1000, .bytes = 7}),
			     1000) == 0);
	CHECK(ctrl_send_free(sv[0], &off, &b,
			     ctrl_encode_progress(
				     &b, &(struct ctrl_progress){.elapsed_ns = 1000, .bytes = 7}),
			     1000) == 0);
	CHECK(read(sv[1], got, sizeof(got)) == (ssize_t)(2 * want.len));
	CHECK(!memcmp(got, want.data, want.len) && !memcmp(got + want.len, want.data, want.len));
	CHECK_U64(off.tx_seq, 0);
	done(sv), free(want.data);
}

struct source_side {
	int fd;
	const char *key;
	struct ctrl_mac mac;
	int rc;
	char why[CTRL_MAX_STR + 256];
};

static void *source_run(void *arg)
{
	struct source_side *s = arg;
	struct auth_key k = s->key ? key_of(s->key) : (struct auth_key){0};
	struct ctrl_hello h = {.chunk = 1 << 20, .depth = 4, .workers = 2, .duration_ms = 1000};
	struct ctrl_buf b;

	s->rc = ctrl_auth_source(s->fd, &k, &s->mac, "sink", 2000, s->why, sizeof(s->why));
	if (!s->rc)
		s->rc = ctrl_send_free(s->fd, &s->mac, &b, ctrl_encode_hello(&b, &h), 2000);
	return NULL;
}

/* AUTH, then the HELLO: MAC'd with a key (both ends' keys agree), plain without. */
static void exchange(const char *key)
{
	struct auth_key k = key ? key_of(key) : (struct auth_key){0};
	struct source_side s = {.key = key};
	struct ctrl_auth_sink a = {0};
	struct ctrl_hello h;
	pthread_t t;
	int sv[2], rc = 0;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	s.fd = sv[0];
	CHECK(pthread_create(&t, NULL, source_run, &s) == 0);
	while (a.step != CTRL_STEP_HELLO && !rc) {
		const char *why;
		unsigned type;
		uint32_t len;
		void *p;

		rc = ctrl_recv(sv[1], NULL, &type, &p, &len, 2000);
		if (!rc)
			rc = ctrl_auth_sink_step(&a, &k, sv[1], p, len, &why);
		free(p);
	}
	CHECK(rc == 0);
	CHECK(a.mac.on == (key != NULL));
	CHECK(ctrl_await(sv[1], &a.mac, CTRL_HELLO, &h, 2000, (char[64]){0}, 64) == 0);
	CHECK(h.workers == 2);
	pthread_join(t, NULL);
	CHECK(s.rc == 0 && s.mac.on == (key != NULL));
	CHECK(!memcmp(s.mac.tx, a.mac.rx, 32) && !memcmp(s.mac.rx, a.mac.tx, 32));
	CHECK_U64(a.mac.rx_seq, key ? 1 : 0);
	done(sv);
}

static void test_after_auth(void)
{
	exchange(KEY);
	exchange(NULL);
}

static void test_lines(void)
{
	CHECK(strstr(ctrl_strerror(CTRL_ERR_MAC), "failed its MAC check") != NULL);
	CHECK(strstr(ctrl_strerror(CTRL_ERR_NOMAC), "protocol 3") != NULL);
	CHECK(!strchr(ctrl_strerror(CTRL_ERR_MAC), '\n'));
}

/*
 * The end after a side's last message: the peer's close is 0, a byte before
 * it (a replayed message) the MAC error, silence -ETIMEDOUT within the bound;
 * our sending half is shut either way (the peer reads its end at once);
 * ctrl_await_end() leaves it open and reads a byte that comes late.
 */
static void test_expect_end(void)
{
	uint8_t b;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	close(sv[1]);
	CHECK(ctrl_expect_end(sv[0], 1000) == 0);
	close(sv[0]);

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(write(sv[1], "x", 1) == 1);
	close(sv[1]);
	CHECK(ctrl_expect_end(sv[0], 1000) == CTRL_ERR_MAC);
	close(sv[0]);

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(ctrl_expect_end(sv[0], 100) == -ETIMEDOUT);
	CHECK(read(sv[1], &b, 1) == 0); /* the peer saw our end */
	close(sv[0]);
	close(sv[1]);

	/* ctrl_await_end(): our half stays open, so a late byte still reaches us. */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(ctrl_await_end(sv[0], 100) == -ETIMEDOUT);
	CHECK(recv(sv[1], &b, 1, MSG_DONTWAIT) == -1 && errno == EAGAIN); /* no end seen */
	CHECK(write(sv[1], "x", 1) == 1);
	CHECK(ctrl_await_end(sv[0], 1000) == CTRL_ERR_MAC);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	if (!auth_available()) {
		printf("SKIP: built without libcrypto\n");
		return 77;
	}
	test_known_answers();
	test_tampering();
	test_inbox();
	test_plain_unchanged();
	test_after_auth();
	test_lines();
	test_expect_end();
	return check_done("test_mac");
}
