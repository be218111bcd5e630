// SPDX-License-Identifier: MIT
/*
 * test_waits: the remote tool's one table of waits (model/waits.c):
 *
 *	rows:    every row named, once; each wait its row's multiple of
 *	         --timeout plus its fixed part, in s, ns and ms, against this
 *	         file's own list (a factor changed in the table fails here)
 *	budget:  waits_budget() is the table's counted rows added up (set-up
 *	         once, the window's per window, the per-source ones per source
 *	         and window with --sources N) plus --wait and the windows, and
 *	         it is still 8T + (W + 4T) per window + --wait + T per source
 *	show:    a wait as text, as --help and the man page say it
 *	man:     man/nvme_write_bw_remote.1's TIMEOUTS lists every row (name,
 *	         length, what the budget counts) and no other, and its budget
 *	         sentence and its prose (the drain, the heartbeat...) say the
 *	         table's lengths
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "remote.h"
#include "waits.h"

#define CHECK_NEAR(a, b)                                                                           \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		check_count++;                                                                     \
		if (!(fabs(a_ - b_) <= 1e-9 * fmax(1, fabs(b_)))) {                                \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s = %.12g, expected %.12g\n", __FILE__,     \
				__LINE__, #a, a_, b_);                                             \
		}                                                                                  \
	} while (0)

/* What each wait is meant to be: factor of --timeout, fixed ms, what the budget counts. */
static const struct {
	enum wait_id id;
	double factor;
	unsigned fixed_ms;
	enum wait_budget budget;
} want[] = {
	{WAIT_DOOR, 0, 5000, WAIT_UNCOUNTED},
	{WAIT_VERSION, 0, 200, WAIT_UNCOUNTED},
	{WAIT_CONNECT, 1, 0, WAIT_SETUP},
	{WAIT_AUTH, 1, 0, WAIT_SETUP},
	{WAIT_HELLO, 1, 0, WAIT_SETUP},
	{WAIT_QPS, 1, 0, WAIT_SETUP},
	{WAIT_RDMA, 1, 0, WAIT_SETUP},
	{WAIT_SLICES, 1, 0, WAIT_SETUP},
	{WAIT_CANARY, 2, 0, WAIT_SETUP},
	{WAIT_CANARY_READ, 1, 0, WAIT_UNCOUNTED},
	{WAIT_CANARY_WRITE, 1, 0, WAIT_UNCOUNTED},
	{WAIT_OTHERS, 0.5, 0, WAIT_SOURCE},
	{WAIT_MEETING, 0.5, 0, WAIT_SOURCE},
	{WAIT_FAN, 2.5, 0, WAIT_UNCOUNTED},
	{WAIT_START, 1, 0, WAIT_WINDOW},
	{WAIT_HEARTBEAT, 0.25, 0, WAIT_UNCOUNTED},
	{WAIT_SILENCE, 1, 0, WAIT_UNCOUNTED},
	{WAIT_LATE, 1, 0, WAIT_UNCOUNTED},
	{WAIT_DRAIN, 1, 0, WAIT_WINDOW},
	{WAIT_DRAIN_ALL, 2, 0, WAIT_UNCOUNTED},
	{WAIT_RESULT, 1, 0, WAIT_WINDOW},
	{WAIT_RESULT_ALL, 3, 0, WAIT_UNCOUNTED},
	{WAIT_VERIFY, 1, 0, WAIT_WINDOW},
	{WAIT_VERDICT, 2, 0, WAIT_UNCOUNTED},
	{WAIT_END, 1, 0, WAIT_UNCOUNTED},
	{WAIT_TELL, 0, 1000, WAIT_UNCOUNTED},
	{WAIT_TEARDOWN, 1, 5000, WAIT_UNCOUNTED},
};

static const double timeouts[] = {0.1, 1, 2.5, 10, 86400};

static void rows(void)
{
	struct options o = {0};
	size_t i, k;
	int j;

	printf("rows: %d waits\n", WAIT_COUNT);
	CHECK_U64(sizeof(want) / sizeof(want[0]), WAIT_COUNT);
	for (j = 0; j < WAIT_COUNT; j++) {
		CHECK(wait_table[j].name && wait_table[j].name[0]);
		CHECK(wait_table[j].bounds && wait_table[j].bounds[0]);
		CHECK(wait_table[j].factor > 0 || wait_table[j].fixed_ms > 0);
		for (k = 0; k < (size_t)j; k++)
			CHECK(strcmp(wait_table[j].name, wait_table[k].name));
	}
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct wait_row *w = &wait_table[want[i].id];

		CHECK_NEAR(w->factor, want[i].factor);
		CHECK_U64(w->fixed_ms, want[i].fixed_ms);
		CHECK_U64(w->budget, want[i].budget);
		for (k = 0; k < sizeof(timeouts) / sizeof(timeouts[0]); k++) {
			double s = want[i].factor * timeouts[k] + want[i].fixed_ms / 1e3;

			o.timeout = timeouts[k];
			CHECK_NEAR(wait_s(&o, want[i].id), s);
			CHECK_U64(wait_ms(&o, want[i].id), (uint64_t)llround(s * 1e3));
			CHECK(fabs((double)wait_ns(&o, want[i].id) - s * 1e9) <= 1);
		}
	}
	/* The old sites' arithmetic, as it was: --timeout x 250 ms, 5/2, 1/2, + 5 s. */
	o.timeout = 2;
	CHECK_U64(wait_ms(&o, WAIT_HEARTBEAT), 500);
	CHECK_U64(wait_ms(&o, WAIT_FAN), 5000);
	CHECK_U64(wait_ms(&o, WAIT_MEETING), 1000);
	CHECK_NEAR(wait_s(&o, WAIT_TEARDOWN), 7);
}

/* The table's counted rows under --timeout t, seconds: this file's own sum. */
static double table_sum(enum wait_budget kind, double t)
{
	double sum = 0;
	int j;

	for (j = 0; j < WAIT_COUNT; j++)
		if (wait_table[j].budget == kind)
			sum += wait_table[j].factor * t + wait_table[j].fixed_ms / 1e3;
	return sum;
}

/* One set of options' budget: the table's sum, and the formula the tool has always said. */
static void budget_of(const struct options *o, double windows)
{
	double t = o->timeout, w = o->cc.warmup + o->cc.duration + o->source.late_start;
	bool sink = !o->source.peer || o->bidir;
	unsigned n = o->sink.sources > 1 ? o->sink.sources : 0;
	double sum = table_sum(WAIT_SETUP, t) + windows * (w + table_sum(WAIT_WINDOW, t)) +
		     (sink ? o->sink.wait + windows * n * table_sum(WAIT_SOURCE, t) : 0);
	double said = 8 * t + windows * (w + 4 * t) + (sink ? o->sink.wait + windows * n * t : 0);

	CHECK_NEAR(waits_budget(o), sum);
	CHECK_NEAR(waits_budget(o), said);
}

static void budget(void)
{
	struct options o = {0};
	size_t k;

	printf("budget: the table's sum\n");
	CHECK_NEAR(waits_factor(WAIT_SETUP), 8);
	CHECK_NEAR(waits_factor(WAIT_WINDOW), 4);
	CHECK_NEAR(waits_factor(WAIT_SOURCE), 1);
	CHECK_U64(waits_fixed_ms(WAIT_SETUP) + waits_fixed_ms(WAIT_WINDOW) +
			  waits_fixed_ms(WAIT_SOURCE),
		  0);
	o.cc.warmup = 2;
	o.cc.duration = 10;
	for (k = 0; k < sizeof(timeouts) / sizeof(timeouts[0]); k++) {
		o.timeout = timeouts[k];
		/* A sink, a source, a fan-in sink, -a both sides, --bidir. */
		o.source.peer = NULL;
		o.sink.wait = 30;
		o.sink.sources = 1;
		o.all_sizes = false;
		budget_of(&o, 1);
		o.source.peer = "sink";
		budget_of(&o, 1);
		o.source.late_start = 1.5;
		budget_of(&o, 1);
		o.source.late_start = 0;
		o.all_sizes = true;
		o.source.feed = CTRL_SOURCE_MEM;
		budget_of(&o, ALL_SIZES_MAX);
		o.source.feed = CTRL_SOURCE_DISK;
		budget_of(&o, all_sizes_count(CTRL_SOURCE_DISK));
		o.source.peer = NULL;
		budget_of(&o, ALL_SIZES_MAX);
		o.sink.sources = 4;
		budget_of(&o, ALL_SIZES_MAX);
		o.all_sizes = false;
		budget_of(&o, 1);
		o.sink.sources = 1;
		o.source.peer = "peer";
		o.bidir = true;
		budget_of(&o, 1);
		o.bidir = false;
	}
	/* One figure by hand: T = 10, W = 12, 4 sources, --wait 30: 80 + 52 + 30 + 40. */
	o = (struct options){.timeout = 10, .cc = {.warmup = 2, .duration = 10}};
	o.sink.wait = 30;
	o.sink.sources = 4;
	CHECK_NEAR(waits_budget(&o), 202);
}

static void show(void)
{
	char buf[64];

	printf("show: a wait as text\n");
	waits_show(1, 0, "T", buf, sizeof(buf));
	CHECK_STR(buf, "T");
	waits_show(8, 0, "T", buf, sizeof(buf));
	CHECK_STR(buf, "8T");
	waits_show(0.5, 0, "T", buf, sizeof(buf));
	CHECK_STR(buf, "T/2");
	waits_show(2.5, 0, "T", buf, sizeof(buf));
	CHECK_STR(buf, "5T/2");
	waits_show(0.25, 0, "T", buf, sizeof(buf));
	CHECK_STR(buf, "T/4");
	waits_show(1, 5000, "T", buf, sizeof(buf));
	CHECK_STR(buf, "T + 5 s");
	waits_show(0, 1000, "T", buf, sizeof(buf));
	CHECK_STR(buf, "1 s");
	waits_show(3, 0, "\\fIT\\fR", buf, sizeof(buf));
	CHECK_STR(buf, "3\\fIT\\fR");
}

/* The man page whole, NUL-terminated (NULL: unreadable). */
static char *read_page(void)
{
	const char *top = getenv("abs_top_srcdir");
	char path[4096];
	char *text;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/man/nvme_write_bw_remote.1", top ? top : ".");
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = len > 0 ? calloc(1, (size_t)len + 1) : NULL;
	if (text && fread(text, 1, (size_t)len, f) != (size_t)len) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* A row as the man page lists it: "\fBname\fR: LENGTH, COUNTED" (dashes as \-). */
static void man_row(const struct wait_row *w, char *buf, size_t len)
{
	static const char *const counted[] = {
		[WAIT_UNCOUNTED] = "not counted",
		[WAIT_SETUP] = "set\\-up",
		[WAIT_WINDOW] = "per window",
		[WAIT_SOURCE] = "per source",
	};
	char name[64], length[64];
	size_t i, n = 0;

	for (i = 0; w->name[i] && n + 3 < sizeof(name); i++) {
		if (w->name[i] == '-')
			name[n++] = '\\';
		name[n++] = w->name[i];
	}
	name[n] = 0;
	waits_show(w->factor, w->fixed_ms, "\\fIT\\fR", length, sizeof(length));
	snprintf(buf, len, "\n.TP\n\\fB%s\\fR: %s, %s\n", name, length, counted[w->budget]);
}

/* The man page says row id's length between before and after, in sect. */
static void man_says(const char *sect, const char *before, enum wait_id id, const char *after)
{
	char length[64], text[256];

	waits_show(wait_table[id].factor, wait_table[id].fixed_ms, "\\fIT\\fR", length,
		   sizeof(length));
	snprintf(text, sizeof(text), "%s%s%s", before, length, after);
	if (!strstr(sect, text))
		fprintf(stderr, "not in the man page's TIMEOUTS: %s\n", text);
	CHECK(strstr(sect, text) != NULL);
}

static void man(void)
{
	char *page = read_page(), *sect, *end, row[256], sum[64];
	int j, listed = 0;

	printf("man: TIMEOUTS lists the table\n");
	CHECK(page != NULL);
	if (!page)
		return;
	sect = strstr(page, "\n.SH TIMEOUTS");
	CHECK(sect != NULL);
	if (!sect) {
		free(page);
		return;
	}
	end = strstr(sect + 1, "\n.SH ");
	if (end)
		*end = 0;
	for (j = 0; j < WAIT_COUNT; j++) {
		man_row(&wait_table[j], row, sizeof(row));
		if (!strstr(sect, row))
			fprintf(stderr, "not in the man page's TIMEOUTS: %s", row + 1);
		CHECK(strstr(sect, row) != NULL);
	}
	for (end = sect; (end = strstr(end + 1, "\n.TP\n\\fB")) != NULL;)
		listed++;
	CHECK_U64(listed, WAIT_COUNT);
	/* Its budget: 8T for the set-up, W + 4T per window, T per source (in man's words). */
	waits_show(waits_factor(WAIT_SETUP), waits_fixed_ms(WAIT_SETUP), "\\fIT\\fR", sum,
		   sizeof(sum));
	snprintf(row, sizeof(row), " %s for the set\\-up and handshake", sum);
	CHECK(strstr(sect, row) != NULL);
	waits_show(waits_factor(WAIT_WINDOW), waits_fixed_ms(WAIT_WINDOW), "\\fIT\\fR", sum,
		   sizeof(sum));
	snprintf(row, sizeof(row), "\\fIW\\fR + %s per\nwindow", sum);
	CHECK(strstr(sect, row) != NULL);
	waits_show(waits_factor(WAIT_SOURCE), waits_fixed_ms(WAIT_SOURCE), "\\fIT\\fR", sum,
		   sizeof(sum));
	snprintf(row, sizeof(row), "\n%s per source and window with", sum);
	CHECK(strstr(sect, row) != NULL);
	/* The prose around the list says some rows' lengths again: they agree. */
	man_says(sect, "gives up after ", WAIT_CONNECT, ";");
	man_says(sect, "seconds for a source, ", WAIT_RDMA, " for the RDMA connections.");
	man_says(sect, "min(1 s, ", WAIT_HEARTBEAT, ", half");
	man_says(sect, "complete: ", WAIT_DRAIN, " without a completion, or");
	man_says(sect, "without a completion, or ", WAIT_DRAIN_ALL, " in all");
	/* The teardown's own bound. */
	waits_show(wait_table[WAIT_TEARDOWN].factor, wait_table[WAIT_TEARDOWN].fixed_ms,
		   "\\fIT\\fR", sum, sizeof(sum));
	snprintf(row, sizeof(row), "The teardown has a bound of its own, %s:", sum);
	CHECK(strstr(sect, row) != NULL);
	free(page);
}

int main(void)
{
	rows();
	budget();
	show();
	man();
	return check_done("test_waits");
}
