/* SPDX-License-Identifier: MIT */
/*
 * beat.h: the sink's arithmetic on a source's heartbeats (PROGRESS), whose
 * numbers are the peer's word: every difference of two of them, or of one
 * and the sink's clock, is checked before it is taken (no signed overflow,
 * no unsigned wrap read as a figure).
 */
#ifndef NBW_BEAT_H
#define NBW_BEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "ctrl.h"

/*
 * The delay a heartbeat shows beyond the source's clock: since_start_ns (the
 * sink's clock since START left) less its elapsed_ns, into *delay_ns; false
 * when the heartbeat claims more time than has passed here (no delay can be
 * read from it).
 */
bool beat_delay(uint64_t since_start_ns, uint64_t elapsed_ns, int64_t *delay_ns);

/*
 * Bytes per second from the heartbeat line to cur, in the source's clock;
 * NAN when no time passed between them or the byte count went backwards.
 */
double beat_rate(const struct ctrl_progress *cur, const struct ctrl_progress *line);

#endif
