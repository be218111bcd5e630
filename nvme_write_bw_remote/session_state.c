// SPDX-License-Identifier: MIT
/*
 * session_state.c: a session's states against the protocol's phases (see
 * session.h): the messages a source may send in each state, and the state
 * each message leads to. Pure: no socket, no session.
 */
#include "session.h"

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
