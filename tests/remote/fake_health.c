// SPDX-License-Identifier: MIT
/*
 * fake_health.c: a drive's health log that is slow to read, for fake_remote (linked
 * with ld --wrap=health_watch_read). With NBW_FAKE_HEALTH_MS=N each reading before a
 * window first sleeps N ms (an emulated controller's admin queue), then reads as the
 * real one does; without it nothing changes. tests/remote/fake_setup_delay.sh delays a
 * source's set-up between START and its window with it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "health_watch.h"

void __real_health_watch_read(struct health_watch *hw, bool after);
void __wrap_health_watch_read(struct health_watch *hw, bool after);

void __wrap_health_watch_read(struct health_watch *hw, bool after)
{
	const char *e = getenv("NBW_FAKE_HEALTH_MS");
	long ms = e ? strtol(e, NULL, 10) : 0;
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

	if (!after && ms > 0)
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	__real_health_watch_read(hw, after);
}
