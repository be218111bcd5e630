// SPDX-License-Identifier: MIT
/*
 * test_shares: the sink's arithmetic on what sources ask and say, pure:
 *
 *	share:  with --sources N a source's workers are held to its share of
 *	        the DRAM's slices as well as of the workers
 *	beat:   a heartbeat's delay against the sink's clock and the live rate
 *	        between two heartbeats, with the peer's numbers at their limits
 *	        (2^63 ns since START, a byte count that goes backwards)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "beat.h"
#include "check.h"
#include "session_state.h"
#include "share.h"

static void share(void)
{
	struct options o = {.chunk = 64 << 10, .depth = 2};
	char why[256] = "";

	printf("share: workers and DRAM\n");
	o.sink.dram = 4 << 20;
	o.sink.sources = 1;
	/* One source: no share, the DRAM's layout alone decides. */
	CHECK_U64(share_dram_workers(&o, 0), 0);
	CHECK(!share_refused(&o, 0, 21, why, sizeof(why)));
	/* 4 MiB holds 21 workers of 3 x 64 KiB: 10 for each of 2 sources. */
	o.sink.sources = 2;
	CHECK_U64(share_dram_workers(&o, 0), 10);
	CHECK(!share_refused(&o, 0, 10, why, sizeof(why)));
	CHECK(share_refused(&o, 0, 21, why, sizeof(why)));
	CHECK_STR(why, "21 workers, a source may have at most 10 (its share of --dram 4MiB among "
		       "--sources 2)");
	/* The sink's own staging comes first (rounded up to 4 KiB): 1 MiB of it leaves 16. */
	CHECK_U64(share_dram_workers(&o, (1 << 20) - 100), 8);
	/* A DRAM too small for one each: 1 (the layout then refuses the second). */
	o.sink.dram = 256 << 10;
	CHECK_U64(share_dram_workers(&o, 0), 1);
	o.sink.dram = 1ULL << 40;
	CHECK_U64(share_dram_workers(&o, 0), 1024);
}

static void beat(void)
{
	struct ctrl_progress a = {.elapsed_ns = 1000000000, .bytes = 5000000000ULL};
	struct ctrl_progress b = {.elapsed_ns = 2000000000, .bytes = 7000000000ULL};
	struct ctrl_progress line;
	int64_t d = -1;

	printf("beat: the peer's numbers at their limits\n");
	CHECK(beat_delay(3000, 1000, &d));
	CHECK_U64(d, 2000);
	/* 2^63 ns (and 2^64 - 1) since START: more than has passed here, no delay read. */
	CHECK(!beat_delay(3000, 1ULL << 63, &d));
	CHECK(!beat_delay(UINT64_MAX - 1, UINT64_MAX, &d));
	CHECK(beat_delay(UINT64_MAX, 0, &d) == false); /* past INT64_MAX */
	CHECK_U64(d, 2000);
	/* 2 GB in 1 s. */
	CHECK(fabs(beat_rate(&b, &a) - 2e9) < 1);
	/* Backwards: no figure (read as unsigned it was 1.8e19 bytes, 9e10 GB/s a line). */
	line = (struct ctrl_progress){.elapsed_ns = 0, .bytes = 6000000000ULL};
	CHECK(isnan(beat_rate(&a, &line)));
	CHECK(isnan(beat_rate(&a, &a)));
	/* The live line moves on past a backwards count, and stays when no time passed. */
	line = b;
	a.elapsed_ns = 3000000000ULL;
	CHECK(isnan(session_beat_rate(&a, &line)));
	CHECK_U64(line.elapsed_ns, a.elapsed_ns);
	b.elapsed_ns = 3000000000ULL;
	CHECK(isnan(session_beat_rate(&b, &line)));
	CHECK_U64(line.bytes, a.bytes);
}

int main(void)
{
	share();
	beat();
	return check_done("test_shares");
}
