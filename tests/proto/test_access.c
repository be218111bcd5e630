// SPDX-License-Identifier: MIT
/*
 * test_access: the sink's door, piece by piece: the --allow prefixes, peer
 * text made printable, the pre-shared key's proofs (a known answer computed
 * with Python's hmac module) and key files, the AUTH message, the per-type
 * payload limits and the piecewise reader of the control channel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "check.h"
#include "ctrl_io.h"
#include "nbw.h"
#include "netaddr.h"
#include "report.h"

static struct sockaddr_storage v4(const char *a)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *s = (struct sockaddr_in *)&ss;

	s->sin_family = AF_INET;
	inet_pton(AF_INET, a, &s->sin_addr);
	return ss;
}

static struct sockaddr_storage v6(const char *a)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

	s->sin6_family = AF_INET6;
	inet_pton(AF_INET6, a, &s->sin6_addr);
	return ss;
}

static bool allowed(const struct netaddr_prefix *p, int n, struct sockaddr_storage ss)
{
	return netaddr_allowed(p, n, (struct sockaddr *)&ss);
}

static void test_allow(void)
{
	struct netaddr_prefix p[NETADDR_MAX_PREFIXES];
	char bad[64];
	int n;

	n = netaddr_parse_list("10.77.0.0/24,192.168.1.7,fd00::/8", p, NETADDR_MAX_PREFIXES, bad,
			       sizeof(bad));
	CHECK(n == 3);
	CHECK(allowed(p, n, v4("10.77.0.2")));
	CHECK(allowed(p, n, v4("10.77.0.255")));
	CHECK(!allowed(p, n, v4("10.77.1.2")));
	CHECK(allowed(p, n, v4("192.168.1.7")));
	CHECK(!allowed(p, n, v4("192.168.1.8")));
	CHECK(allowed(p, n, v6("fd12::1")));
	CHECK(!allowed(p, n, v6("fe80::1")));
	/* An IPv4 peer on a dual-stack socket matches IPv4 prefixes. */
	CHECK(allowed(p, n, v6("::ffff:10.77.0.9")));
	CHECK(!allowed(p, n, v6("::ffff:10.78.0.9")));
	/* Odd prefix lengths cut inside a byte. */
	n = netaddr_parse_list("10.0.0.128/25", p, NETADDR_MAX_PREFIXES, bad, sizeof(bad));
	CHECK(n == 1 && allowed(p, n, v4("10.0.0.200")) && !allowed(p, n, v4("10.0.0.100")));
	n = netaddr_parse_list("0.0.0.0/0", p, NETADDR_MAX_PREFIXES, bad, sizeof(bad));
	CHECK(n == 1 && allowed(p, n, v4("1.2.3.4")));
	CHECK(netaddr_parse_list("10.0.0.0/33", p, 4, bad, sizeof(bad)) == -EINVAL);
	CHECK_STR(bad, "10.0.0.0/33");
	CHECK(netaddr_parse_list("10.0.0.0/8,host", p, 4, bad, sizeof(bad)) == -EINVAL);
	CHECK_STR(bad, "host");
	CHECK(netaddr_parse_list("10.0.0.0/8,", p, 4, bad, sizeof(bad)) == -EINVAL);
	CHECK(netaddr_parse_list("1.1.1.1,2.2.2.2,3.3.3.3", p, 2, bad, sizeof(bad)) == -E2BIG);
}

static void test_printable(void)
{
	char out[64];

	CHECK_STR(nbw_printable("/dev/nvme0n1", out, sizeof(out)), "/dev/nvme0n1");
	CHECK_STR(nbw_printable("a\033[2Jb\n", out, sizeof(out)), "a\\x1b[2Jb\\x0a");
	CHECK_STR(nbw_printable("\x7f\xc3\xa9", out, sizeof(out)),
		  "\\x7f\xc3\xa9"); /* UTF-8 stays */
	/* Bounded: an escape that does not fit is left out whole. */
	CHECK_STR(nbw_printable("abc\001", out, 6), "abc");
}

/* C1 controls and broken UTF-8 from a peer, on the terminal and in the JSON. */
static void test_item12_peer_text(void)
{
	char out[128], *json = NULL;
	size_t jlen = 0;
	FILE *f;

	printf("peer text escaped\n");
	/* CSI (U+009B, a C1 control) as UTF-8, and as a lone byte (a terminal in Latin-1 mode). */
	CHECK_STR(nbw_printable("mlx\302\2332J", out, sizeof(out)), "mlx\\xc2\\x9b2J");
	CHECK_STR(nbw_printable("mlx\2332J", out, sizeof(out)), "mlx\\x9b2J");
	/* Broken UTF-8: a lone continuation, a truncated sequence, an overlong '/', a surrogate. */
	CHECK_STR(nbw_printable("a\200b\342\202", out, sizeof(out)), "a\\x80b\\xe2\\x82");
	CHECK_STR(nbw_printable("\xc0\xaf", out, sizeof(out)), "\\xc0\\xaf");
	CHECK_STR(nbw_printable("\xed\xa0\x80", out, sizeof(out)), "\\xed\\xa0\\x80");
	/* Valid text stays: é, €, an emoji. */
	CHECK_STR(nbw_printable("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", out, sizeof(out)),
		  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	/* A character that does not fit whole is left out whole. */
	CHECK_STR(nbw_printable("ab\xe2\x82\xac", out, 4), "ab");
	f = open_memstream(&json, &jlen);
	CHECK(f != NULL);
	if (!f)
		return;
	json_write_string(f, "d\xc2\x9b\x7f\x80\xff\xc3\xa9\x1b");
	fclose(f);
	CHECK_STR(json, "\"d\\u009b\\u007f\\ufffd\\ufffd\xc3\xa9\\u001b\"");
	free(json);
}

static void test_auth(void)
{
	static const char sink_kat[] =
		"ba4f8413f61d8a6033e52912991aaf57d4ac4e7d27461a1624d10736744a5fd4";
	struct auth_key k = {.len = 16}, k2;
	uint8_t a[AUTH_NONCE_LEN], b[AUTH_NONCE_LEN], mac[AUTH_MAC_LEN];
	char hex[2 * AUTH_MAC_LEN + 1], path[] = "/tmp/nbwkeyXXXXXX", err[256];
	int i, fd;

	if (!auth_available()) {
		CHECK(auth_mac(&k, "nbw-sink", a, b, mac) == -ENOTSUP);
		return;
	}
	memcpy(k.key, "0123456789abcdef", 16);
	for (i = 0; i < AUTH_NONCE_LEN; i++) {
		a[i] = (uint8_t)i;
		b[i] = (uint8_t)(32 + i);
	}
	CHECK(auth_mac(&k, "nbw-sink", a, b, mac) == 0);
	for (i = 0; i < AUTH_MAC_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", mac[i]);
	CHECK_STR(hex, sink_kat);
	CHECK(auth_check(&k, "nbw-sink", a, b, mac));
	CHECK(!auth_check(&k, "nbw-source", a, b, mac)); /* the label binds the direction */
	CHECK(!auth_check(&k, "nbw-sink", b, a, mac));	 /* and the order of the nonces */
	k2 = k;
	k2.key[0] ^= 1;
	CHECK(!auth_check(&k2, "nbw-sink", a, b, mac));

	/* Key files: regular, owner-only, 16..1024 bytes, one newline dropped. */
	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, "0123456789abcdef\n", 17) == 17);
	close(fd);
	chmod(path, 0600);
	CHECK(auth_key_load(path, &k2, err, sizeof(err)) == 0 && k2.len == 16);
	CHECK(!memcmp(k2.key, k.key, 16));
	chmod(path, 0644);
	CHECK(auth_key_load(path, &k2, err, sizeof(err)) == -EPERM && strstr(err, "too open"));
	chmod(path, 0600);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "short\n", 6) == 6);
	close(fd);
	CHECK(auth_key_load(path, &k2, err, sizeof(err)) == -EINVAL);
	unlink(path);
	CHECK(auth_key_load(path, &k2, err, sizeof(err)) == -ENOENT);
	CHECK(auth_key_load("/dev/null", &k2, err, sizeof(err)) == -EINVAL);
}

static void test_auth_message(void)
{
	struct ctrl_auth m = {.has_key = 1}, back;
	struct ctrl_buf b;
	int i;

	for (i = 0; i < CTRL_NONCE_LEN; i++)
		m.nonce[i] = (uint8_t)(i * 7);
	m.mac[31] = 0xab;
	CHECK(ctrl_encode_auth(&b, &m) == 0 && b.len == CTRL_HDR_LEN + 65);
	CHECK(ctrl_decode_auth(b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN, &back) == 0);
	CHECK(back.has_key == 1 && !memcmp(back.nonce, m.nonce, sizeof(m.nonce)) &&
	      back.mac[31] == 0xab);
	CHECK(ctrl_decode_auth(b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN - 1, &back) == -EBADMSG);
	b.data[CTRL_HDR_LEN] = 2; /* has_key is a flag */
	CHECK(ctrl_decode_auth(b.data + CTRL_HDR_LEN, b.len - CTRL_HDR_LEN, &back) == -EBADMSG);
	free(b.data);
	CHECK(ctrl_payload_max(CTRL_AUTH) == 65 && ctrl_payload_max(CTRL_HELLO) == 38);
	CHECK(ctrl_payload_max(CTRL_PROGRESS) == 32 && ctrl_payload_max(99) == 0);
	CHECK(ctrl_payload_max(CTRL_CANARY) == 4 + 28 * CTRL_MAX_WORKERS);
}

/* A header that announces a payload far beyond its type's limit. */
static void forged_header(uint8_t *h, unsigned type, uint32_t len)
{
	struct ctrl_buf b;

	ctrl_buf_init(&b, type);
	memcpy(h, b.data, CTRL_HDR_LEN);
	free(b.data);
	h[8] = (uint8_t)(len >> 24);
	h[9] = (uint8_t)(len >> 16);
	h[10] = (uint8_t)(len >> 8);
	h[11] = (uint8_t)len;
}

static void test_limits_and_inbox(void)
{
	struct ctrl_inbox in = {0};
	struct ctrl_progress pr = {.elapsed_ns = 5, .bytes = 9};
	struct ctrl_buf b;
	uint8_t h[CTRL_HDR_LEN];
	unsigned type;
	uint32_t len;
	void *p;
	int sv[2], rc;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	/* A PROGRESS announcing 1 MiB: refused before anything is allocated. */
	forged_header(h, CTRL_PROGRESS, 1 << 20);
	CHECK(write(sv[0], h, sizeof(h)) == CTRL_HDR_LEN);
	CHECK(ctrl_recv(sv[1], NULL, &type, &p, &len, 1000) == -EMSGSIZE);
	CHECK(write(sv[0], h, sizeof(h)) == CTRL_HDR_LEN);
	CHECK(ctrl_inbox_read(&in, sv[1]) == -EMSGSIZE);
	ctrl_inbox_reset(&in);
	/* A message fed in two pieces is whole only after the second. */
	CHECK(ctrl_encode_progress(&b, &pr) == 0);
	CHECK(write(sv[0], b.data, 7) == 7);
	CHECK(ctrl_inbox_read(&in, sv[1]) == 0);
	CHECK(ctrl_inbox_read(&in, sv[1]) == 0); /* nothing more yet: not an error */
	CHECK(write(sv[0], b.data + 7, b.len - 7) == (ssize_t)(b.len - 7));
	rc = ctrl_inbox_read(&in, sv[1]);
	if (rc == 0)
		rc = ctrl_inbox_read(&in, sv[1]);
	CHECK(rc == 1 && in.type == CTRL_PROGRESS && in.len == 32);
	ctrl_inbox_reset(&in);
	free(b.data);
	close(sv[0]);
	CHECK(ctrl_inbox_read(&in, sv[1]) == -ECONNRESET);
	close(sv[1]);
}

int main(void)
{
	test_allow();
	test_printable();
	test_item12_peer_text();
	test_auth();
	test_auth_message();
	test_limits_and_inbox();
	printf("test_access: %d checks, %d failed\n", check_count, check_failures);
	return check_failures ? 1 : 0;
}
