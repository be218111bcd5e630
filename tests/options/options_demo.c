// SPDX-License-Identifier: MIT
/*
 * options_demo: a tiny tool with its own option table, for tests/options/table.sh:
 * what a row says (type, bounds, default, alias, answer, note, role, a
 * contradiction) is what its parser, --help, --options-table (so the
 * completion) and the man-page check do. Built twice: options_demo_extra has
 * one row more (--frobnicate), which must show in all of them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "nbw.h"

struct demo {
	struct cli_common cc;
	unsigned level;
	uint64_t size;
	int colour;
	const char *name;
	bool quiet, loud;
	unsigned frob;
};

enum { OPT_NAME = CLI_OPT_TOOL, OPT_LOUD, OPT_QUIET, OPT_VOLUME, OPT_FROB, OPT_OLD };
enum { ROLE_A = 1, ROLE_B = 2 };

static const char *const colours[] = {"red", "green", "blue", NULL};

/* The words at run time, as --engine's come from the table of engines. */
static const char *const *colour_words(void)
{
	return colours;
}

static const struct cli_spec demo_spec;

static void usage(void)
{
	printf("Usage: %s [options] [B]\n", nbw_prog);
	cli_help(&demo_spec);
	printf("\nThe text after the table may name --level again.\n");
}

/* clang-format off */
#define D struct demo
static const struct cli_opt opts[] = {
	{CLI_NAME("level", required_argument, 'l'), .type = CLI_T_UINT, .field = CLI_AT(D, level),
	 .bytes = CLI_SIZEOF(D, level), .what = "level", .min = 1, .max = 9, .arg = "N",
	 .sect = "Settings:", .help = "how much", .def = "5"},
	{CLI_NAME("size", required_argument, 's'), .type = CLI_T_SIZE, .field = CLI_AT(D, size),
	 .what = "size", .min = 512, .max = 1 << 20, .arg = "SIZE", .help = "how big",
	 .def = "4K"},
	{CLI_NAME("colour", required_argument, 'c'), .type = CLI_T_KEYWORD,
	 .field = CLI_AT(D, colour), .what = "colour", .words_of = colour_words,
	 .arg = "COLOUR", .help = "%w%s", .def = "red"},
	{CLI_NAME("name", required_argument, OPT_NAME), .type = CLI_T_TEXT,
	 .field = CLI_AT(D, name), .arg = "TEXT", .help = "a name", .roles = ROLE_B},
	{CLI_NAME("loud", no_argument, OPT_LOUD), .type = CLI_T_FLAG, .field = CLI_AT(D, loud),
	 .help = "speak up"},
	{CLI_NAME("quiet", no_argument, OPT_QUIET), .type = CLI_T_FLAG, .field = CLI_AT(D, quiet),
	 .help = "say less"},
	{CLI_NAME("volume", required_argument, OPT_VOLUME), .type = CLI_T_ALIAS, .with = 'l'},
#ifdef OPTIONS_DEMO_EXTRA
	{CLI_NAME("frobnicate", required_argument, OPT_FROB), .type = CLI_T_UINT,
	 .field = CLI_AT(D, frob), .bytes = CLI_SIZEOF(D, frob), .what = "frobnication",
	 .max = 3, .arg = "N", .help = "the row a test adds"},
#endif
	{CLI_NAME("old-level", optional_argument, OPT_OLD), .type = CLI_T_ANSWER,
	 .sect = "Other tools' options:", .help = "use -l/--level N"},
	{CLI_NAME("fast", no_argument, 'F'), .type = CLI_T_NOTE, .help = "always fast"},
	CLI_ROWS_OUTPUT,
	CLI_END,
};
#undef D
/* clang-format on */

static const struct cli_excl contradictions[] = {
	{"colour", "blue", "quiet", "blue is loud"},
	{"loud", NULL, "quiet", NULL},
	{NULL},
};

static int tool_option(int c, char *arg, void *ctx)
{
	(void)c, (void)arg, (void)ctx;
	return cli_try_help();
}

/* "green" is not built, as io_uring without liburing. */
static const char *colour_unbuilt(const struct cli_opt *e, int w)
{
	(void)e;
	return w == 1 ? "not in this build" : NULL;
}

static const struct cli_spec demo_spec = {
	.opts = opts,
	.tool = tool_option,
	.usage = usage,
	.unbuilt = colour_unbuilt,
	.excl = contradictions,
};

int main(int argc, char **argv)
{
	struct demo d = {0};
	const char *wrong;
	int first, rc;

	nbw_set_prog(argv[0]);
	cli_common_init(&d.cc);
	rc = cli_parse(argc, argv, &demo_spec, &d.cc, &d, &first);
	if (rc != CLI_NEXT)
		return rc;
	wrong = cli_wrong_role(opts, &d.cc, first < argc ? ROLE_B : ROLE_A);
	if (wrong)
		return nbw_usage_err("--%s is a B option (needs an argument)", wrong);
	printf("level=%u size=%llu colour=%s name=%s loud=%d quiet=%d frob=%u json=%d\n", d.level,
	       (unsigned long long)d.size, colours[d.colour], d.name ? d.name : "-", d.loud,
	       d.quiet, d.frob, d.cc.json);
	return 0;
}
