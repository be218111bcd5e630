/* SPDX-License-Identifier: MIT */
/*
 * session_in.h: what session.c (the handshake) and session_window.c (the
 * window and the end) share of a session; no other file includes it.
 */
#ifndef NBW_SESSION_IN_H
#define NBW_SESSION_IN_H

#include "session.h"
#include "verify.h"

/* The source sent a message of type: the state it leads to (ctrl_phase_next()). */
void session_took(struct session *s, unsigned type);
/*
 * ctrl_expect() of a message the session's state takes (else -EBADMSG with
 * the reason in err), and the state it leads to.
 */
int session_expect(struct session *s, unsigned want, void **p, uint32_t *len, int timeout_ms,
		   char *err, size_t errlen);
/* Worker w's slice in the hall's DRAM. */
unsigned char *session_slice(const struct session *s, uint32_t w);
/* Its slices, for verify.c. */
void session_landing(const struct session *s, struct landing *l);
/* After session_fail(): tell the source why, too (best effort). Returns rc. */
int session_tell(struct session *s, int rc);

/* As session_fail(), and tell the source why. */
#define session_refuse(s, ...) session_tell((s), session_fail((s), __VA_ARGS__))

#endif
