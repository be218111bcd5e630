// SPDX-License-Identifier: MIT
/* signals.c: Ctrl-C and SIGTERM, taken synchronously (see signals.h). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "signals.h"
#include "timing.h"

/* Sticky: once Ctrl-C or SIGTERM came, every later wait returns at once. */
static atomic_bool interrupted;

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

void nbw_signals_init(void)
{
	sigset_t set;

	stop_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool nbw_signal_wait(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / NBW_NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NBW_NSEC_PER_SEC),
	};
	sigset_t set;

	if (atomic_load(&interrupted))
		return true;
	stop_set(&set);
	if (sigtimedwait(&set, NULL, &ts) > 0)
		atomic_store(&interrupted, true);
	return atomic_load(&interrupted);
}

bool nbw_interrupted(void)
{
	return nbw_signal_wait(0);
}
