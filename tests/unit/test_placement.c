// SPDX-License-Identifier: MIT
/*
 * test_placement.c: the locked-memory rule of common/storage/placement.c:
 * what a buffer occupies (whole 2 MiB pages from 1 MiB up), whether a need
 * fits RLIMIT_MEMLOCK (CAP_IPC_LOCK lifts it), the one line that names both
 * when it does not, and a buffer allocated without locking.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "placement.h"

int main(void)
{
	char why[320];
	void *p = NULL;
	int lock_errno = -1;

	CHECK_U64(buffer_span(4096), 4096);
	CHECK_U64(buffer_span(1 << 20), 2 << 20);
	CHECK_U64(buffer_span(3 << 20), 4 << 20);
	CHECK_U64(buffer_span(8 << 20), 8 << 20);
	CHECK(buffer_lock_fits(8 << 20, 8 << 20, false));
	CHECK(!buffer_lock_fits((8 << 20) + 1, 8 << 20, false));
	CHECK(buffer_lock_fits(UINT64_MAX - 1, 8 << 20, true));
	CHECK(buffer_lock_fits(48ULL << 30, UINT64_MAX, false));
	CHECK(buffer_lock_need(24 << 20, 32 << 20, false, why, sizeof(why)) == 0);
	CHECK(buffer_lock_need(48 << 20, 8 << 20, false, why, sizeof(why)) == -ENOMEM);
	CHECK(!strncmp(
		why,
		"needs 48MiB locked memory, RLIMIT_MEMLOCK is 8MiB: raise it (ulimit -l 49152,",
		strlen("needs 48MiB locked memory, RLIMIT_MEMLOCK is 8MiB: raise it (ulimit -l "
		       "49152,")));
	CHECK(strstr(why, "CAP_IPC_LOCK") != NULL);
	CHECK(buffer_alloc(1 << 20, 4096, false, &p, &lock_errno) == 0);
	CHECK(p != NULL && lock_errno == 0);
	CHECK(buffer_huge_bytes(p, 1 << 20) <= 2 << 20);
	buffer_free_locked(p, 1 << 20);
	return check_done("test_placement");
}
