/* SPDX-License-Identifier: MIT */
/*
 * cli.h: what every tool's option parser shares, so that options and bad
 * values read the same in all three tools.
 *
 * - The generic options (output, sysfs root, the measured window) are one
 *   table (the CLI_LONGOPTS_* pieces) and one handler, cli_common_option().
 * - Values go through small helpers that print "<tool>: invalid <what>
 *   '<value>': malformed|out of range" (or "unknown <what> '<value>' (a or b)")
 *   and the --help hint.
 *
 * Handlers return CLI_NEXT when the option was taken, CLI_UNKNOWN when it is
 * not theirs, or the exit status the tool must end with (NBW_EXIT_OK after
 * --help/--version, NBW_EXIT_USAGE after a bad value).
 */
#ifndef NBW_CLI_H
#define NBW_CLI_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_NEXT (-1)
#define CLI_UNKNOWN (-2)

/* Long-only options of the generic table; a tool's own start at CLI_OPT_TOOL. */
enum {
	CLI_OPT_JSON = CHAR_MAX + 1,
	CLI_OPT_GBITS,
	CLI_OPT_SYSFS_ROOT,
	CLI_OPT_WARMUP,
	CLI_OPT_INTERVAL,
	CLI_OPT_THREADS, /* CLI_LONGOPTS_READER: handled by the tool */
	CLI_OPT_SPAN,
	CLI_OPT_ENGINE,
	CLI_OPT_DEPTH,
	CLI_OPT_TOOL = CHAR_MAX + 32,
};

/*
 * One entry of a tool's option table: the long option as getopt_long() takes
 * it (val is what it returns; the flag pointer is never used in this suite)
 * and, for an option kept as it is, where it goes in the tool's options:
 * text is the offset of the char * (or const char *) that keeps its value,
 * flag that of the bool it sets (-1: none). roles is the role column: the
 * bits (the tool defines them) of the roles the option belongs to, 0 for an
 * option of every role; cli_wrong_role() reads it. A table ends with CLI_END.
 */
struct cli_opt {
	struct option o;
	int text;
	int flag;
	unsigned roles;
};

/* clang-format off */
/*
 * An option with a value, an optional value (--name=VALUE only) or none.
 * Every entry macro takes the role column as an optional last argument
 * (omitted: every role).
 */
#define CLI_ENTRY(name, has_arg, val, text, flag, roles) \
	{ { name, has_arg, NULL, val }, text, flag, roles }
#define CLI_ARG(name, val, ...) CLI_ENTRY(name, required_argument, val, -1, -1, __VA_ARGS__ + 0)
#define CLI_OPTARG(name, val, ...) CLI_ENTRY(name, optional_argument, val, -1, -1, __VA_ARGS__ + 0)
#define CLI_NOARG(name, val, ...) CLI_ENTRY(name, no_argument, val, -1, -1, __VA_ARGS__ + 0)
/* Kept as they are: the value into field, true into flag, or both. */
#define CLI_TEXT(name, val, type, field, ...) \
	CLI_ENTRY(name, required_argument, val, (int)offsetof(type, field), -1, __VA_ARGS__ + 0)
#define CLI_FLAG(name, val, type, flag, ...) \
	CLI_ENTRY(name, no_argument, val, -1, (int)offsetof(type, flag), __VA_ARGS__ + 0)
#define CLI_TEXT_FLAG(name, val, type, field, flag, ...) \
	CLI_ENTRY(name, required_argument, val, (int)offsetof(type, field), \
		  (int)offsetof(type, flag), __VA_ARGS__ + 0)
#define CLI_END CLI_ENTRY(NULL, 0, 0, -1, -1, 0)
/* The most entries a table may have (cli_common.given has a bit for each). */
#define CLI_MAX_OPTS 64

/* Option-table pieces, one entry per line. */
/* --json[=FILE], --help, --version: every tool. */
#define CLI_LONGOPTS_OUTPUT \
	CLI_OPTARG("json", CLI_OPT_JSON), \
	CLI_NOARG("help", 'h'), \
	CLI_NOARG("version", 'V')
/* --report_gbits: the bandwidth tools. */
#define CLI_LONGOPTS_GBITS CLI_NOARG("report_gbits", CLI_OPT_GBITS)
/* --sysfs-root DIR. */
#define CLI_LONGOPTS_SYSFS CLI_ARG("sysfs-root", CLI_OPT_SYSFS_ROOT)
/* --warmup, -D/--duration, --interval: the measured window. */
#define CLI_LONGOPTS_WINDOW \
	CLI_ARG("warmup", CLI_OPT_WARMUP), \
	CLI_ARG("duration", 'D'), \
	CLI_ARG("interval", CLI_OPT_INTERVAL)
/* clang-format on */

/* What the generic options set; the tool fills the defaults first. */
struct cli_common {
	bool json;
	const char *json_file;
	bool gbits;
	const char *sysfs_root;
	double warmup, duration, interval;
	uint64_t given; /* bit i: the table's entry i was given (cli_parse) */
};

/* The defaults every tool shares: /sys, 3 s warm-up, 20 s window, no live lines. */
void cli_common_init(struct cli_common *cc);

/*
 * Take option c if it is generic. usage() prints the tool's --help.
 * CLI_NEXT, CLI_UNKNOWN, NBW_EXIT_OK (help/version printed) or NBW_EXIT_USAGE.
 */
int cli_common_option(int c, const char *arg, struct cli_common *cc, void (*usage)(void));

/* A tool's own options: CLI_NEXT, or an exit status (see above). */
typedef int (*cli_tool_option)(int c, char *arg, void *ctx);

/* A tool's command line: its options, and who takes the ones not kept as they are. */
struct cli_spec {
	const char *shortopts;
	const struct cli_opt *opts;
	cli_tool_option tool; /* the options of opts that are not kept as they are */
	void (*usage)(void);  /* --help */
};

/*
 * getopt_long over argv: the generic options into cc, those kept as they
 * are into ctx, the others through spec->tool(c, optarg, ctx). CLI_NEXT
 * with *first = the first operand's index, or the exit status to end with
 * (help, version, a bad option or value).
 */
int cli_parse(int argc, char **argv, const struct cli_spec *spec, struct cli_common *cc, void *ctx,
	      int *first);

/* clang-format off */
/*
 * The options of a drive reader: --threads, -s/--chunk, --span, --engine,
 * --depth (each tool gives --threads and --depth their short letters).
 */
#define CLI_LONGOPTS_READER \
	CLI_ARG("threads", CLI_OPT_THREADS), \
	CLI_ARG("chunk", 's'), \
	CLI_ARG("span", CLI_OPT_SPAN), \
	CLI_ARG("engine", CLI_OPT_ENGINE), \
	CLI_ARG("depth", CLI_OPT_DEPTH)
/* clang-format on */

/*
 * The role check, from the table's role column: the first entry of opts (in
 * table order) that was given (cc->given) and belongs to none of the roles
 * of role: its long name, or NULL. An entry whose column is 0 belongs to all.
 */
const char *cli_wrong_role(const struct cli_opt *opts, const struct cli_common *cc, unsigned role);

/*
 * --engine VALUE: *out = CLI_ENGINE_PSYNC or CLI_ENGINE_IO_URING; io_uring
 * only when uring_built (the storage layer says whether it was). CLI_NEXT, or
 * NBW_EXIT_USAGE after the message.
 */
enum { CLI_ENGINE_PSYNC, CLI_ENGINE_IO_URING };
int cli_engine(const char *val, bool uring_built, int *out);

/* Where live lines go: stderr with --json (stdout holds only the document). */
FILE *cli_live_stream(const struct cli_common *cc);

/* Report a value parse.h rejected with rc; returns NBW_EXIT_USAGE. */
int cli_bad_value(const char *what, const char *val, int rc);

/* Value helpers: CLI_NEXT with *out set, or NBW_EXIT_USAGE after the message. */
int cli_uint(const char *what, const char *val, unsigned long min, unsigned long max,
	     unsigned *out);
int cli_size(const char *what, const char *val, uint64_t min, uint64_t max, uint64_t *out);
/* A duration (parse.h grammar) of at least min seconds. */
int cli_seconds(const char *what, const char *val, double min, double *out);
/* One of the NULL-terminated words[]; *out = its index. "unknown <what> '<val>' (a or b)". */
int cli_keyword(const char *what, const char *val, const char *const *words, int *out);

/* The hint after getopt's own complaint; returns NBW_EXIT_USAGE. */
int cli_try_help(void);

/* Open --json=FILE (or stdout). NULL after the error line. */
FILE *cli_open_output(const struct cli_common *cc);
void cli_close_output(FILE *out);

#endif
