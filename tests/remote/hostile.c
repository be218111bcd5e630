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
 * and the lies of the third round, each told by a source the sink admitted:
 *
 *   len0               every CANARY and VERIFY entry says length 0 (digest 0, the
 *                      digest of nothing), whatever landed
 *   short              every CANARY and VERIFY entry says 4096 bytes of its chunk
 *                      (a memory source's, their digest computed again)
 *   verify-empty       a VERIFY of no entries after a RESULT of many chunks
 *   verify-one         a VERIFY of its first entry only
 *   elapsed-huge       every heartbeat says 2^63 ns since START
 *   beats-shrink       each heartbeat's byte count lower than the one before
 *
 * and what a source's drive says of itself (RESULT's optional part):
 *
 *   drive-throttled    its first drive throttled (T1 +3, 12 s), 81 C at the close
 *                      (warning at 75 C), its third second a sixth of the median
 *   drive-forged       the same with a reading after the window and none before
 *   drive-escapes      its first drive's path and its health log's reason with
 *                      control bytes (an escape sequence, a newline, a bell), its
 *                      seconds unsteady, its log not read
 *
 * Without $NBW_HOSTILE every call goes through unchanged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"
#include "digest.h"

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

/*
 * The digest of the first len (at most 4096) bytes of the chunk a memory
 * source's worker w writes from offset: every 8-byte word of its pattern
 * names the worker and its own offset (source_workers.c).
 */
static uint64_t mem_digest(uint32_t w, uint64_t offset, uint32_t len)
{
	uint64_t words[512];
	uint32_t i;

	for (i = 0; i < 512; i++)
		words[i] = 0x4dULL << 56 | (uint64_t)w << 40 | (offset + i * 8ULL);
	return digest_add(0, offset, words, len < sizeof(words) ? len : sizeof(words));
}

/*
 * The table c[n] with every length len, each digest that of its first len
 * bytes (a memory source's), so that it matches what landed there.
 */
static int relen_table(struct ctrl_buf *b, unsigned type, const struct ctrl_chunk *c, uint32_t n,
		       uint32_t len)
{
	struct ctrl_chunk *x = calloc(n ? n : 1, sizeof(*x));
	uint32_t i;
	int rc;

	if (!x)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		x[i] = c[i];
		x[i].len = len;
		x[i].digest = len ? mem_digest(c[i].worker, c[i].offset, len) : 0;
	}
	rc = __real_ctrl_encode_chunks(b, type, x, n);
	free(x);
	return rc;
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
	if (hostile("len0", NULL))
		return relen_table(b, type, c, n, 0);
	if (hostile("short", NULL))
		return relen_table(b, type, c, n, 4096);
	if (type == CTRL_VERIFY && hostile("verify-empty", NULL))
		return __real_ctrl_encode_chunks(b, type, c, 0);
	if (type == CTRL_VERIFY && hostile("verify-one", NULL))
		return __real_ctrl_encode_chunks(b, type, c, n ? 1 : 0);
	return __real_ctrl_encode_chunks(b, type, c, n);
}

/*
 * Its first drive's word as a throttling drive's (drive-throttled): thermal
 * management T1 +3 transitions and 12 s, 81 C at the close against a
 * warning at 75 C, its third second at a sixth of the median; or forged
 * (drive-forged): a reading after the window without one before it.
 */
static int drive_word(struct ctrl_buf *b, const struct ctrl_result *m, bool forged)
{
	struct ctrl_result r = *m;
	struct ctrl_drive_health h;
	struct ctrl_health_reading before = {
		.composite_k = 313, .spare_pct = 100, .spare_threshold_pct = 10};

	if (m->nhealth != 1) /* one drive's word */
		return __real_ctrl_encode_result(b, m);
	h = m->health[0];
	h.seconds = 4;
	h.min_bps = h.low_bps = 500000000;
	h.median_bps = h.max_bps = 3000000000;
	h.cv_milli_pct = 30000;
	h.low_second = 2;
	snprintf(h.ctrl, sizeof(h.ctrl), "nvme7");
	h.why[0] = 0;
	h.have_before = !forged;
	h.have_after = 1;
	h.warning_k = 348;
	h.critical_k = 358;
	h.before = h.after = before;
	h.after.composite_k = 354;
	h.after.tmt1_transitions = 3;
	h.after.tmt1_seconds = 12;
	r.health = &h;
	r.nhealth = 1;
	return __real_ctrl_encode_result(b, &r);
}

/* Its first drive's name and health reason with control bytes (drive-escapes). */
static int drive_escapes(struct ctrl_buf *b, const struct ctrl_result *m)
{
	struct ctrl_result r = *m;
	struct ctrl_drive_health h;
	struct ctrl_drive d;

	if (m->nhealth != 1 || m->ndrives != 1)
		return __real_ctrl_encode_result(b, m);
	d = m->drives[0];
	snprintf(d.path, sizeof(d.path), "/dev/nv\033[2Jme9\n forged: PASS\a");
	h = m->health[0];
	h.seconds = 4;
	h.min_bps = h.low_bps = 500000000;
	h.median_bps = h.max_bps = 3000000000;
	h.cv_milli_pct = 30000;
	h.low_second = 2;
	snprintf(h.ctrl, sizeof(h.ctrl), "nvme7");
	snprintf(h.why, sizeof(h.why), "not read: \033]0;owned\a\n forged");
	h.have_before = h.have_after = 0;
	r.drives = &d;
	r.health = &h;
	return __real_ctrl_encode_result(b, &r);
}

int __wrap_ctrl_encode_result(struct ctrl_buf *b, const struct ctrl_result *m)
{
	struct ctrl_result r = *m;

	if (hostile("drive-escapes", NULL))
		return drive_escapes(b, m);
	if (hostile("drive-throttled", NULL) || hostile("drive-forged", NULL))
		return drive_word(b, m, hostile("drive-forged", NULL));
	if (!hostile("done-after-result", NULL))
		return __real_ctrl_encode_result(b, m);
	r.ok = 0;
	return append_done(b, __real_ctrl_encode_result(b, &r));
}

/* A heartbeat that lies about its numbers (elapsed-huge, beats-shrink); false: none. */
static bool lying_beat(const struct ctrl_progress *m, struct ctrl_progress *p)
{
	*p = *m;
	if (hostile("elapsed-huge", NULL)) {
		p->elapsed_ns = 1ULL << 63;
		return true;
	}
	if (!hostile("beats-shrink", NULL))
		return false;
	p->bytes = (1ULL << 40) - m->bytes; /* lower as more is written */
	p->window_bytes = 0;
	return true;
}

int __wrap_ctrl_encode_progress(struct ctrl_buf *b, const struct ctrl_progress *m)
{
	static bool once;
	struct ctrl_progress lie;

	if (lying_beat(m, &lie))
		return __real_ctrl_encode_progress(b, &lie);
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
