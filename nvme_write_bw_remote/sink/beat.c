// SPDX-License-Identifier: MIT
/* beat.c: the arithmetic on a source's heartbeats (see beat.h). */
#include <math.h>

#include "beat.h"

bool beat_delay(uint64_t since_start_ns, uint64_t elapsed_ns, int64_t *delay_ns)
{
	uint64_t d;

	/* A heartbeat 2^63 ns after START overflowed a signed difference here once. */
	if (elapsed_ns > since_start_ns)
		return false;
	d = since_start_ns - elapsed_ns;
	if (d > INT64_MAX)
		return false;
	*delay_ns = (int64_t)d;
	return true;
}

double beat_rate(const struct ctrl_progress *cur, const struct ctrl_progress *line)
{
	/* A count that went backwards read as unsigned is about 1.8e19 bytes: no figure. */
	if (cur->elapsed_ns <= line->elapsed_ns || cur->bytes < line->bytes)
		return NAN;
	return (double)(cur->bytes - line->bytes) / ((cur->elapsed_ns - line->elapsed_ns) / 1e9);
}
