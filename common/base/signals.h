/* SPDX-License-Identifier: MIT */
/*
 * signals.h: how a run learns of Ctrl-C and SIGTERM. Both are blocked in
 * every thread (nbw_signals_init() before the first thread starts) and taken
 * synchronously by whoever waits; once one came, it stays: every later check
 * and wait returns at once. Every bounded wait of the suite (the window, the
 * start line, the fabric's and the control channel's waits) asks here.
 */
#ifndef NBW_SIGNALS_H
#define NBW_SIGNALS_H

#include <stdbool.h>
#include <stdint.h>

/* Block SIGINT/SIGTERM (inherited by threads started later), ignore SIGPIPE. */
void nbw_signals_init(void);
/* Wait up to ns for SIGINT/SIGTERM. True if one arrived, now or before. */
bool nbw_signal_wait(uint64_t ns);
/* True once SIGINT/SIGTERM arrived (takes a pending one without waiting). */
bool nbw_interrupted(void);

#endif
