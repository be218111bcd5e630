// SPDX-License-Identifier: MIT
/*
 * session_state.c: the few steps every part of a sink session takes (see
 * session_state.h): a message its step takes (the sink's view of the
 * conversation's table, proto/steps.h) and the step it leads to, where its
 * slices lie, telling the source why it failed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "beat.h"
#include "session_state.h"
#include "timing.h"
#include "waits.h"

/* ---- what session.c and session_window.c share (session_state.h) ------------- */

void session_took(struct session *s, unsigned type)
{
	const struct options *o = s->o;

	s->state = ctrl_step_next(s->state, type, o->key.len > 0, o->conn == CTRL_CONN_VERBS,
				  s->hello.verify == CTRL_VERIFY_FULL);
}

int session_expect(struct session *s, unsigned want, void **p, uint32_t *len, int timeout_ms,
		   char *err, size_t errlen)
{
	int rc;

	if (!ctrl_step_takes(s->state, CTRL_BY_SINK, want)) {
		snprintf(err, errlen, "%s is not taken here", ctrl_type_name(want));
		*p = NULL;
		return -EBADMSG;
	}
	rc = ctrl_expect(s->cfd, &s->mac, want, p, len, timeout_ms, err, errlen);
	if (!rc)
		session_took(s, want);
	return rc;
}

double session_beat_rate(const struct ctrl_progress *cur, struct ctrl_progress *line)
{
	double r = beat_rate(cur, line);

	if (cur->elapsed_ns > line->elapsed_ns) /* a count that went back: counted from here */
		*line = *cur;
	return r;
}

unsigned char *session_slice(const struct session *s, uint32_t w)
{
	return s->env->dram + s->env->lay->slices_off +
	       (uint64_t)(s->wbase + w) * s->env->lay->slice_len;
}

void session_landing(const struct session *s, struct landing *l)
{
	*l = (struct landing){.slices = session_slice(s, 0),
			      .slice_len = s->env->lay->slice_len,
			      .slots = s->env->lay->slots,
			      .workers = s->hello.workers,
			      .chunk = s->hello.chunk,
			      .timeout_s = wait_s(s->o, WAIT_VERIFY),
			      .source = s->hello.source,
			      .wrote = s->have_res && s->res.ok ? s->res.bytes : 0};
}

int session_tell(struct session *s, int rc)
{
	struct ctrl_buf b;

	if (s->cfd >= 0)
		ctrl_send_free(s->cfd, &s->mac, &b, ctrl_encode_error(&b, s->failure),
			       wait_ms(s->o, WAIT_TELL));
	return rc;
}
