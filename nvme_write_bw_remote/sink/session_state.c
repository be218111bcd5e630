// SPDX-License-Identifier: MIT
/*
 * session_state.c: a session's states against the protocol's phases (see
 * session.h): the messages a source may send in each state and the state
 * each message leads to (pure), and the few steps every part of a session
 * takes (session_in.h): a message its state takes, where its slices lie,
 * telling the source why it failed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "beat.h"
#include "session_state.h"
#include "timing.h"

unsigned session_phase(enum session_state st)
{
	static const unsigned phase[] = {
		[SESSION_ADMITTED] = CTRL_PHASE_END,   [SESSION_QPS] = CTRL_PHASE_QPS,
		[SESSION_CONNECTING] = CTRL_PHASE_END, [SESSION_CANARY] = CTRL_PHASE_CANARY,
		[SESSION_READY] = CTRL_PHASE_END,      [SESSION_WINDOW] = CTRL_PHASE_WINDOW,
		[SESSION_VERIFY] = CTRL_PHASE_VERIFY,  [SESSION_END] = CTRL_PHASE_END,
		[SESSION_FAILED] = CTRL_PHASE_END,
	};

	return st <= SESSION_FAILED ? phase[st] : CTRL_PHASE_END;
}

bool session_takes(enum session_state st, unsigned type)
{
	return type < 32 && (ctrl_phase_allows(session_phase(st)) & (1u << type));
}

enum session_state session_next(enum session_state st, unsigned type, bool key, bool verbs,
				bool full)
{
	static const enum session_state of_phase[] = {
		[CTRL_PHASE_QPS] = SESSION_QPS,	      [CTRL_PHASE_CANARY] = SESSION_CANARY,
		[CTRL_PHASE_WINDOW] = SESSION_WINDOW, [CTRL_PHASE_VERIFY] = SESSION_VERIFY,
		[CTRL_PHASE_END] = SESSION_END,
	};
	unsigned next = ctrl_phase_next(session_phase(st), type, key, verbs, full);

	if (next > CTRL_PHASE_END || next < CTRL_PHASE_QPS)
		return SESSION_END;
	/* Its canary taken, the session waits for the others before START. */
	return next == CTRL_PHASE_WINDOW && st == SESSION_CANARY ? SESSION_READY : of_phase[next];
}

/* ---- what session.c and session_window.c share (session_in.h) ---------------- */

void session_took(struct session *s, unsigned type)
{
	const struct options *o = s->o;

	s->state = session_next(s->state, type, o->key.len > 0, o->conn == CTRL_CONN_VERBS,
				o->verify == CTRL_VERIFY_FULL);
}

int session_expect(struct session *s, unsigned want, void **p, uint32_t *len, int timeout_ms,
		   char *err, size_t errlen)
{
	int rc;

	if (!session_takes(s->state, want)) {
		snprintf(err, errlen, "%s is not taken here", ctrl_type_name(want));
		*p = NULL;
		return -EBADMSG;
	}
	rc = ctrl_expect(s->cfd, want, p, len, timeout_ms, err, errlen);
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
			      .chunk = s->o->chunk,
			      .timeout_s = s->o->timeout,
			      .source = s->hello.source,
			      .wrote = s->have_res && s->res.ok ? s->res.bytes : 0};
}

int session_tell(struct session *s, int rc)
{
	struct ctrl_buf b;

	if (s->cfd >= 0)
		ctrl_send_free(s->cfd, &b, ctrl_encode_error(&b, s->failure), 1000);
	return rc;
}
