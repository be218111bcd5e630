// SPDX-License-Identifier: MIT
/*
 * hostile.c: a source that breaks the protocol on purpose, for
 * tests/remote/fake_hostile.sh. Linked into
 * tests/remote/hostile_remote (the tool's own files and the fake fabric, as
 * fake_remote, built with AddressSanitizer) with ld's --wrap, it changes what
 * the real source's encoders put on the wire when $NBW_HOSTILE says so; the
 * sink in the same binary is the real one, unchanged:
 *
 *   hello-workers=N    HELLO claims N workers (N = 2^32 - 1 after another
 *                      source's wraps a 32-bit sum)
 *   empty-qps          a QPS of no workers after a matching HELLO
 *   verify-flood=N     the --verify full table repeated to N entries, each a
 *                      slot the source really wrote
 *   verify-twice       the table's second entry replaced by its first
 *   done-for-canary    a DONE where the canary table should be
 *   done-after-result  RESULT says ok=0 and a DONE follows it
 *   done-in-window     a DONE follows the first heartbeat
 *
 * Without $NBW_HOSTILE every call goes through unchanged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"

int __real_ctrl_encode_chunks(struct ctrl_buf *b, unsigned type, const struct ctrl_chunk *c,
			      uint32_t n);
int __real_ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m);
int __real_ctrl_encode_progress(struct ctrl_buf *b, const struct ctrl_progress *m);
int __real_ctrl_encode_hello(struct ctrl_buf *b, const struct ctrl_hello *m);
int __real_ctrl_encode_qps(struct ctrl_buf *b, const struct ctrl_wqp *q, uint32_t n);
int __wrap_ctrl_encode_chunks(struct ctrl_buf *b, unsigned type, const struct ctrl_chunk *c,
			      uint32_t n);
int __wrap_ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m);
int __wrap_ctrl_encode_progress(struct ctrl_buf *b, const struct ctrl_progress *m);
int __wrap_ctrl_encode_hello(struct ctrl_buf *b, const struct ctrl_hello *m);
int __wrap_ctrl_encode_qps(struct ctrl_buf *b, const struct ctrl_wqp *q, uint32_t n);

/* Is $NBW_HOSTILE mode (its argument after '=' into *arg)? */
static bool hostile(const char *mode, const char **arg)
{
	const char *h = getenv("NBW_HOSTILE");
	size_t n = strlen(mode);

	if (!h || strncmp(h, mode, n) || (h[n] && h[n] != '='))
		return false;
	if (arg)
		*arg = h[n] ? h + n + 1 : "";
	return true;
}

/* A DONE after what rc's encoder put in b. */
static int append_done(struct ctrl_buf *b, int rc)
{
	struct ctrl_done d = {.verify = 1};
	struct ctrl_buf t;
	uint8_t *p;

	if (rc || ctrl_encode_done(&t, &d))
		return rc ? rc : -ENOMEM;
	p = realloc(b->data, b->len + t.len);
	if (p) {
		memcpy(p + b->len, t.data, t.len);
		b->data = p;
		b->len += t.len;
		b->cap = b->len;
	}
	free(t.data);
	return p ? 0 : -ENOMEM;
}

/* The table c[n] as the hostile modes want it, encoded. */
static int bad_table(struct ctrl_buf *b, const struct ctrl_chunk *c, uint32_t n, uint32_t want,
		     bool twice)
{
	struct ctrl_chunk *x = calloc(want, sizeof(*x));
	uint32_t i;
	int rc;

	if (!x)
		return -ENOMEM;
	for (i = 0; i < want; i++)
		x[i] = c[i % n];
	if (twice)
		x[1] = x[0];
	rc = __real_ctrl_encode_chunks(b, CTRL_VERIFY, x, want);
	free(x);
	return rc;
}

int __wrap_ctrl_encode_chunks(struct ctrl_buf *b, unsigned type, const struct ctrl_chunk *c,
			      uint32_t n)
{
	const char *arg;

	if (type == CTRL_CANARY && hostile("done-for-canary", NULL))
		return ctrl_encode_done(b, &(struct ctrl_done){.verify = 1});
	if (type == CTRL_VERIFY && n > 1 && hostile("verify-twice", NULL))
		return bad_table(b, c, n, n, true);
	if (type == CTRL_VERIFY && n && hostile("verify-flood", &arg))
		return bad_table(b, c, n, (uint32_t)strtoul(arg, NULL, 10), false);
	return __real_ctrl_encode_chunks(b, type, c, n);
}

int __wrap_ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m)
{
	struct ctrl_result r = *m;

	if (!hostile("done-after-result", NULL))
		return __real_ctrl_encode_result(b, m);
	r.ok = 0;
	return append_done(b, __real_ctrl_encode_result(b, &r));
}

int __wrap_ctrl_encode_progress(struct ctrl_buf *b, const struct ctrl_progress *m)
{
	static bool once;

	if (once || !hostile("done-in-window", NULL))
		return __real_ctrl_encode_progress(b, m);
	once = true;
	return append_done(b, __real_ctrl_encode_progress(b, m));
}

int __wrap_ctrl_encode_hello(struct ctrl_buf *b, const struct ctrl_hello *m)
{
	struct ctrl_hello h = *m;
	const char *arg;

	if (hostile("hello-workers", &arg))
		h.workers = (uint32_t)strtoul(arg, NULL, 10);
	return __real_ctrl_encode_hello(b, &h);
}

int __wrap_ctrl_encode_qps(struct ctrl_buf *b, const struct ctrl_wqp *q, uint32_t n)
{
	return __real_ctrl_encode_qps(b, q, hostile("empty-qps", NULL) ? 0 : n);
}
