// SPDX-License-Identifier: MIT
/*
 * waits.c: the remote tool's waits, one table (waits.h): every wait of the
 * sink and the source is a row's multiple of --timeout plus its fixed part,
 * and the run's budget is the rows it counts added up. A wait changed here
 * changes its sites, the budget and --help together; the man page's
 * TIMEOUTS lists the rows (tests/model/test_waits).
 */
#include <math.h>
#include <stdio.h>

#include "remote.h"
#include "timing.h"
#include "waits.h"

/* clang-format off */
const struct wait_row wait_table[WAIT_COUNT] = {
	[WAIT_DOOR] = {"door", 0, 5000, WAIT_UNCOUNTED,
		"a connection's handshake at the sink's door, from its connect to a complete "
		"HELLO (past it, dropped; the sink waits on for its sources)"},
	[WAIT_VERSION] = {"version", 0, 200, WAIT_UNCOUNTED,
		"the door's word to a source of another protocol version (best effort)"},
	[WAIT_CONNECT] = {"connect", 1, 0, WAIT_SETUP,
		"the source's control connection to the sink (one still starting is asked again)"},
	[WAIT_AUTH] = {"auth", 1, 0, WAIT_SETUP,
		"with a key, the AUTH exchange that proves it"},
	[WAIT_HELLO] = {"hello", 1, 0, WAIT_SETUP,
		"the source's HELLO and the sink's ACCEPT, each sent or awaited"},
	[WAIT_QPS] = {"qps", 1, 0, WAIT_SETUP,
		"the source's QP numbers (without -R)"},
	[WAIT_RDMA] = {"rdma", 1, 0, WAIT_SETUP,
		"the RDMA connections: each of the source's; all of a source's at the sink"},
	[WAIT_SLICES] = {"slices", 1, 0, WAIT_SETUP,
		"the sink's slices of its DRAM, sent and awaited"},
	[WAIT_CANARY] = {"canary", 2, 0, WAIT_SETUP,
		"the sink's wait for the CANARY, while the source reads and writes it; the "
		"CANARY sent"},
	[WAIT_CANARY_READ] = {"canary-read", 1, 0, WAIT_UNCOUNTED,
		"a source's worker's first chunk from its drive (within canary)"},
	[WAIT_CANARY_WRITE] = {"canary-write", 1, 0, WAIT_UNCOUNTED,
		"the completion of a source's worker's canary WRITE (within canary)"},
	[WAIT_OTHERS] = {"others", 0.5, 0, WAIT_SOURCE,
		"with --sources N, the other sources after the first (or --wait, if sooner)"},
	[WAIT_MEETING] = {"meeting", 0.5, 0, WAIT_SOURCE,
		"a sink's session waiting for the others before its START (--sources N, "
		"--bidir's source)"},
	[WAIT_FAN] = {"fan", 2.5, 0, WAIT_UNCOUNTED,
		"with --sources N, the sink's own drives waiting for every source's handshake"},
	[WAIT_START] = {"start", 1, 0, WAIT_WINDOW,
		"START, sent by the sink and awaited by the source after its CANARY"},
	[WAIT_HEARTBEAT] = {"heartbeat", 0.25, 0, WAIT_UNCOUNTED,
		"the period of the source's heartbeat (at most 1 s and half of --interval)"},
	[WAIT_SILENCE] = {"silence", 1, 0, WAIT_UNCOUNTED,
		"nothing from the source on the control channel, at any time; a heartbeat sent"},
	[WAIT_LATE] = {"late", 1, 0, WAIT_UNCOUNTED,
		"how far past -D a window may run (the sink's own: held up; a source's: its "
		"word refused)"},
	[WAIT_DRAIN] = {"drain", 1, 0, WAIT_WINDOW,
		"the source's RDMA WRITEs in flight after its window, without a completion"},
	[WAIT_DRAIN_ALL] = {"drain-all", 2, 0, WAIT_UNCOUNTED,
		"the same drain in all"},
	[WAIT_RESULT] = {"result", 1, 0, WAIT_WINDOW,
		"the source's RESULT (and --verify full's VERIFY) sent"},
	[WAIT_RESULT_ALL] = {"result-all", 3, 0, WAIT_UNCOUNTED,
		"the sink's wait for the RESULT after its window, in all (silence ends it sooner)"},
	[WAIT_VERIFY] = {"verify", 1, 0, WAIT_WINDOW,
		"the sink's wait for --verify full's VERIFY, and its hashing of what landed"},
	[WAIT_VERDICT] = {"verdict", 2, 0, WAIT_UNCOUNTED,
		"the source's wait for the sink's verdict after its RESULT"},
	[WAIT_END] = {"end", 1, 0, WAIT_UNCOUNTED,
		"with a key, the peer's side of the control channel closing after its last "
		"message"},
	[WAIT_TELL] = {"tell", 0, 1000, WAIT_UNCOUNTED,
		"the source's last word to the sink when it fails (best effort)"},
	[WAIT_TEARDOWN] = {"teardown", 1, 5000, WAIT_UNCOUNTED,
		"the teardown (each QP to the error state and destroyed, its memory "
		"deregistered), a bound of its own past the budget"},
};
/* clang-format on */

double wait_s(const struct options *o, enum wait_id id)
{
	const struct wait_row *w = &wait_table[id];

	return w->factor * o->timeout + w->fixed_ms / 1000.0;
}

uint64_t wait_ns(const struct options *o, enum wait_id id)
{
	return nbw_s_to_ns(wait_s(o, id));
}

int wait_ms(const struct options *o, enum wait_id id)
{
	return (int)(wait_s(o, id) * 1000 + 0.5);
}

double waits_factor(enum wait_budget kind)
{
	double sum = 0;
	int i;

	for (i = 0; i < WAIT_COUNT; i++)
		if (wait_table[i].budget == kind)
			sum += wait_table[i].factor;
	return sum;
}

unsigned waits_fixed_ms(enum wait_budget kind)
{
	unsigned sum = 0;
	int i;

	for (i = 0; i < WAIT_COUNT; i++)
		if (wait_table[i].budget == kind)
			sum += wait_table[i].fixed_ms;
	return sum;
}

/* What the budget counts of kind under --timeout t, seconds. */
static double counted(enum wait_budget kind, double t)
{
	return waits_factor(kind) * t + waits_fixed_ms(kind) / 1000.0;
}

double waits_budget(const struct options *o)
{
	double t = o->timeout;
	double windows = o->nsweep_qps	  ? o->nsweep_qps
			 : !o->all_sizes  ? 1
			 : o->source.peer ? all_sizes_count(o->source.feed)
					  : ALL_SIZES_MAX;
	double budget =
		counted(WAIT_SETUP, t) + windows * (o->cc.warmup + o->cc.duration +
						    o->source.late_start + counted(WAIT_WINDOW, t));

	if (!o->source.peer || o->bidir)
		budget += o->sink.wait +
			  windows * (o->sink.sources > 1 ? o->sink.sources * counted(WAIT_SOURCE, t)
							 : 0);
	return budget;
}

int waits_show(double factor, unsigned fixed_ms, const char *t, char *buf, size_t len)
{
	char num[16] = "", den[16] = "", add[32] = "";
	int d, n;

	if (factor <= 0)
		return snprintf(buf, len, "%g s", fixed_ms / 1000.0);
	/* The smallest denominator that makes the factor whole: 1, 2, 4 or 8. */
	for (d = 1; d < 8 && fabs(factor * d - round(factor * d)) > 1e-9; d *= 2)
		;
	n = (int)round(factor * d);
	if (n != 1)
		snprintf(num, sizeof(num), "%d", n);
	if (d != 1)
		snprintf(den, sizeof(den), "/%d", d);
	if (fixed_ms)
		snprintf(add, sizeof(add), " + %g s", fixed_ms / 1000.0);
	return snprintf(buf, len, "%s%s%s%s", num, t, den, add);
}
