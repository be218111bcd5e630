/* SPDX-License-Identifier: MIT */
/* timing.h: the suite's one clock (CLOCK_MONOTONIC) and conversions. */
#ifndef NBW_TIMING_H
#define NBW_TIMING_H

#include <stdint.h>
#include <time.h>

#define NBW_NSEC_PER_SEC 1000000000ULL

static inline uint64_t nbw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NBW_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline double nbw_ns_to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

static inline uint64_t nbw_s_to_ns(double s)
{
	return (uint64_t)(s * 1e9 + 0.5);
}

/* Sleep until an absolute CLOCK_MONOTONIC time; returns early (-EINTR) on a signal. */
int nbw_sleep_until_ns(uint64_t deadline_ns);

#endif
