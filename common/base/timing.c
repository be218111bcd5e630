// SPDX-License-Identifier: MIT
/* timing.c: sleeping against the monotonic clock. */
#include <errno.h>

#include "timing.h"

int nbw_sleep_until_ns(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NBW_NSEC_PER_SEC),
		.tv_nsec = (long)(deadline_ns % NBW_NSEC_PER_SEC),
	};
	int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

	return rc ? -rc : 0;
}
