// SPDX-License-Identifier: MIT
/*
 * test_handshake: the AUTH exchange of ctrl_auth.c, both sides at once over
 * a socketpair (the source's side in a thread, the sink's steps here): an
 * open sink, the same key on both sides, a wrong key, a source without the
 * key a sink requires, and a source with a key facing an open sink. Each
 * side's verdict and the line it gives are checked.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "ctrl_auth.h"

struct source_side {
	int fd;
	struct auth_key key;
	struct ctrl_mac mac;
	int rc;
	char why[CTRL_MAX_STR + 256];
};

static void *source_run(void *arg)
{
	struct source_side *s = arg;

	s->rc = ctrl_auth_source(s->fd, &s->key, &s->mac, "sink", 2000, s->why, sizeof(s->why));
	return NULL;
}

static struct auth_key key_of(const char *text)
{
	struct auth_key k = {.len = text ? strlen(text) : 0};

	if (text)
		memcpy(k.key, text, k.len);
	return k;
}

struct outcome {
	int sink_rc, source_rc;
	const char *sink_why;
	bool trusted;
	unsigned step;
	const char *source_why;
};

/* One exchange: the sink's key and the source's (NULL: none). */
static struct outcome exchange(const char *sink_key, const char *source_key)
{
	static struct source_side s;
	struct auth_key k = key_of(sink_key);
	struct ctrl_auth_sink a = {0};
	struct outcome o = {0};
	pthread_t t;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	memset(&s, 0, sizeof(s));
	s.fd = sv[0];
	s.key = key_of(source_key);
	CHECK(pthread_create(&t, NULL, source_run, &s) == 0);
	while (a.step != CTRL_STEP_HELLO && !o.sink_rc) {
		unsigned type;
		void *p;
		uint32_t len;

		o.sink_rc = ctrl_recv(sv[1], NULL, &type, &p, &len, 2000);
		if (!o.sink_rc && type != CTRL_AUTH)
			o.sink_rc = -EPROTO;
		if (!o.sink_rc)
			o.sink_rc = ctrl_auth_sink_step(&a, &k, sv[1], p, len, &o.sink_why);
		free(p);
	}
	if (o.sink_rc)
		close(sv[1]); /* the door drops it: the source sees the connection close */
	pthread_join(t, NULL);
	if (!o.sink_rc)
		close(sv[1]);
	close(sv[0]);
	o.source_rc = s.rc;
	o.trusted = a.trusted;
	o.step = a.step;
	o.source_why = s.why;
	return o;
}

static void test_open(void)
{
	struct outcome o = exchange(NULL, NULL);

	CHECK(o.sink_rc == 0 && o.source_rc == 0);
	CHECK(o.trusted && o.step == CTRL_STEP_HELLO);
}

static void test_keys(void)
{
	struct outcome o = exchange("0123456789abcdef", "0123456789abcdef");

	CHECK(o.sink_rc == 0 && o.source_rc == 0);
	CHECK(o.trusted && o.step == CTRL_STEP_HELLO);

	o = exchange("0123456789abcdef", "0123456789abcdeX");
	CHECK(o.sink_rc == -EACCES && !o.trusted && o.step == CTRL_STEP_PROOF);
	CHECK_STR(o.sink_why, "wrong pre-shared key");
	CHECK(o.source_rc == -ECONNRESET);
	CHECK_STR(o.source_why, "sink: the sink closed the connection: the pre-shared keys differ");

	o = exchange("0123456789abcdef", NULL);
	CHECK(o.sink_rc == -EACCES && !o.trusted && o.step == CTRL_STEP_AUTH);
	CHECK_STR(o.sink_why, "no pre-shared key (the sink requires one)");
	CHECK(o.source_rc == -ECONNRESET);
	CHECK_STR(o.source_why, "sink: the sink closed the connection (does it require a "
				"pre-shared key? --psk-file)");

	o = exchange(NULL, "0123456789abcdef");
	CHECK(o.sink_rc == 0 && o.trusted);
	CHECK(o.source_rc == -EACCES);
	CHECK_STR(o.source_why, "sink: the sink holds no pre-shared key (it is open)");
}

/* A malformed AUTH, and an AUTH after the exchange, end it at the sink. */
static void test_sink_refuses(void)
{
	struct ctrl_auth_sink a = {0};
	struct auth_key k = key_of(NULL);
	uint8_t junk[65] = {7};
	const char *why = NULL;

	CHECK(ctrl_auth_sink_step(&a, &k, -1, junk, 64, &why) == -EBADMSG);
	CHECK_STR(why, "malformed AUTH");
	CHECK(ctrl_auth_sink_step(&a, &k, -1, junk, 65, &why) == -EBADMSG); /* has_key 7 */
	a.step = CTRL_STEP_HELLO;
	junk[0] = 0;
	CHECK(ctrl_auth_sink_step(&a, &k, -1, junk, 65, &why) == -EPROTO);
	CHECK_STR(why, "a message out of turn");
}

int main(void)
{
	test_open();
	test_sink_refuses();
	if (auth_available())
		test_keys();
	else
		printf("test_handshake: built without libcrypto: keyed exchanges not tried\n");
	return check_done("test_handshake");
}
