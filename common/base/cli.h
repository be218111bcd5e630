/* SPDX-License-Identifier: MIT */
/*
 * cli.h: every tool's command line, from one option table per tool, as
 * fio's options are: a row says an option's name, letter, roles, type,
 * bounds, default and help. From the table come the parser (values converted
 * and bounded here, not in the tool), --help (cli_help(), optable.c), the
 * role check (cli_wrong_role()), the contradictions refused (cli_spec.excl),
 * and the listing the bash completion and the man-page check read
 * (--options-table, cli_list()).
 *
 * Bad values read the same in all three tools: "<tool>: invalid <what>
 * '<value>': malformed|out of range" (or "unknown <what> '<value>' (a or b)")
 * and the --help hint, exit status 2.
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

/* Long-only options of the shared rows; a tool's own start at CLI_OPT_TOOL. */
enum {
	CLI_OPT_JSON = CHAR_MAX + 1,
	CLI_OPT_GBITS,
	CLI_OPT_SYSFS_ROOT,
	CLI_OPT_WARMUP,
	CLI_OPT_INTERVAL,
	CLI_OPT_THREADS,
	CLI_OPT_SPAN,
	CLI_OPT_ENGINE,
	CLI_OPT_DEPTH,
	CLI_OPT_TABLE,
	CLI_OPT_TOOL = CHAR_MAX + 32,
};

/* What a row's value is, and so how the parser takes it. */
enum cli_type {
	CLI_T_TOOL,    /* the tool's handler (cli_spec.tool) takes it */
	CLI_T_TEXT,    /* a char * kept as given */
	CLI_T_FLAG,    /* no value: true into a bool */
	CLI_T_UINT,    /* an unsigned integer in [min, max] (max 0: no bound) */
	CLI_T_SIZE,    /* a size (parse.h's grammar) into a uint64_t, [min, max] */
	CLI_T_SECONDS, /* a duration (parse.h's grammar) into a double, [min, max] */
	CLI_T_KEYWORD, /* one of words[]: its index into an int */
	CLI_T_ALIAS,   /* another name of the row whose val is .with */
	CLI_T_ANSWER,  /* another tool's option: one line naming what to use, exit 2 */
	CLI_T_NOTE,    /* another tool's option that asks nothing of this one: a note */
	CLI_T_HELP,    /* --help */
	CLI_T_VERSION, /* --version */
	CLI_T_LIST,    /* --options-table: the listing (cli_list), never in --help */
};

/*
 * One row of a tool's table. Offsets are stored plus one (0: none), in the
 * tool's options (ctx), or in struct cli_common when cc is set. A table ends
 * with CLI_END.
 */
struct cli_opt {
	struct option o; /* name, has_arg, val: a letter or a CLI_OPT_* code */
	enum cli_type type;
	bool cc;	     /* field and set are in struct cli_common */
	unsigned field;	     /* offset + 1 of the value */
	unsigned char bytes; /* CLI_T_UINT: the field's size (0: unsigned) */
	unsigned set;	     /* offset + 1 of a bool made true when the option is given */
	unsigned roles;	     /* the role column: bits of the tool's roles, 0 = every role */
	const char *what;    /* the value's name in messages ("thread count") */
	double min, max;
	const char *const *words; /* CLI_T_KEYWORD (and the choices --help and completion show) */
	/* Or the words at run time, from a table of the tool's (--engine's: the engines'). */
	const char *const *(*words_of)(void);
	const char *arg; /* the value in --help: "N", "SIZE", "[=FILE]" */
	/* --help's text, wrapped; "%s": " (not built)" (cli_spec.unbuilt), "%w": "a, b or c". */
	const char *help;
	const char *def;  /* the default as typed: applied first, said in --help */
	const char *sect; /* --help's heading from this row on (NULL: the previous row's) */
	int with;	  /* the val of the row whose --help line names this one ("--chunk too") */
};

/* Offset (plus one) and size of a field, for the rows' field and set. */
#define CLI_AT(type, f) ((unsigned)(offsetof(type, f) + 1))
#define CLI_SIZEOF(type, f) ((unsigned char)sizeof(((type *)0)->f))
#define CLI_NAME(n, has, v) .o = {n, has, NULL, v}
#define CLI_END                                                                                    \
	{                                                                                          \
		CLI_NAME(NULL, 0, 0)                                                               \
	}
/* The most rows a table may have (cli_common.given has a bit for each). */
#define CLI_MAX_OPTS 128

/* clang-format off */
/* --json[=FILE], --help, --version and the hidden --options-table: every tool. */
#define CLI_ROWS_OUTPUT \
	{CLI_NAME("json", optional_argument, CLI_OPT_JSON), .type = CLI_T_TEXT, .cc = true, \
	 .field = CLI_AT(struct cli_common, json_file), .set = CLI_AT(struct cli_common, json), \
	 .arg = "[=FILE]", \
	 .help = "one JSON document on stdout (or into FILE), with where and when it was " \
		 "made (\"provenance\": host, window, command, drives, ports)"}, \
	{CLI_NAME("help", no_argument, 'h'), .type = CLI_T_HELP, .help = "this help"}, \
	{CLI_NAME("version", no_argument, 'V'), .type = CLI_T_VERSION, .help = "version"}, \
	{CLI_NAME("options-table", no_argument, CLI_OPT_TABLE), .type = CLI_T_LIST}
/* --report_gbits: the bandwidth tools. */
#define CLI_ROW_GBITS(...) \
	{CLI_NAME("report_gbits", no_argument, CLI_OPT_GBITS), .type = CLI_T_FLAG, .cc = true, \
	 .field = CLI_AT(struct cli_common, gbits), \
	 .help = "text bandwidth in Gb/s instead of GB/s", __VA_ARGS__}
/* --sysfs-root DIR. */
#define CLI_ROW_SYSFS(helptext, ...) \
	{CLI_NAME("sysfs-root", required_argument, CLI_OPT_SYSFS_ROOT), .type = CLI_T_TEXT, \
	 .cc = true, .field = CLI_AT(struct cli_common, sysfs_root), .arg = "DIR", \
	 .help = helptext, __VA_ARGS__}
/* --warmup, -D/--duration, --interval: the measured window (the rest: the first row's). */
#define CLI_ROWS_WINDOW(interval_help, ...) \
	{CLI_NAME("warmup", required_argument, CLI_OPT_WARMUP), .type = CLI_T_SECONDS, \
	 .cc = true, .field = CLI_AT(struct cli_common, warmup), .what = "warm-up", \
	 .arg = "SECONDS", .help = "unmeasured warm-up", .def = "3", __VA_ARGS__}, \
	{CLI_NAME("duration", required_argument, 'D'), .type = CLI_T_SECONDS, .cc = true, \
	 .field = CLI_AT(struct cli_common, duration), .what = "duration", .min = 0.01, \
	 .arg = "SECONDS", .help = "measured window", .def = "20"}, \
	{CLI_NAME("interval", required_argument, CLI_OPT_INTERVAL), .type = CLI_T_SECONDS, \
	 .cc = true, .field = CLI_AT(struct cli_common, interval), .what = "interval", \
	 .min = 0.01, .arg = "SECONDS", .help = interval_help}

/*
 * The reader options both tools share, parsed here by type (T: the tool's
 * options; each names its own fields). --span and --engine are the same
 * everywhere; --threads, -s/--chunk and --depth carry each tool's letter,
 * bounds and text (the remote tool's -t is perftest's tx-depth). --engine's
 * words come from words_fn, the table of engines (reader_engine_words()),
 * its value is the index of one there.
 */
#define CLI_ROW_SPAN(T, f) \
	{CLI_NAME("span", required_argument, CLI_OPT_SPAN), .type = CLI_T_SIZE, \
	 .field = CLI_AT(T, f), .what = "span", .min = 1, .arg = "SIZE", \
	 .help = "bytes of each drive to sweep (default: the whole drive)"}
#define CLI_ROW_ENGINE(T, f, words_fn, helptext) \
	{CLI_NAME("engine", required_argument, CLI_OPT_ENGINE), .type = CLI_T_KEYWORD, \
	 .field = CLI_AT(T, f), .what = "engine", .words_of = words_fn, .arg = "ENGINE", \
	 .help = helptext, .def = "psync"}
#define CLI_ROW_THREADS(T, f, letter, helptext, ...) \
	{CLI_NAME("threads", required_argument, letter), .type = CLI_T_UINT, \
	 .field = CLI_AT(T, f), .bytes = CLI_SIZEOF(T, f), .what = "thread count", .min = 1, \
	 .max = TARGET_MAX_THREADS, .arg = "N", .help = helptext, __VA_ARGS__}
#define CLI_ROW_CHUNK(T, f, name, letter, least, helptext, ...) \
	{CLI_NAME(name, required_argument, letter), .type = CLI_T_SIZE, .field = CLI_AT(T, f), \
	 .what = "chunk size", .min = least, .max = 1ULL << 30, .arg = "SIZE", \
	 .help = helptext, .def = "1M", __VA_ARGS__}
#define CLI_ROW_DEPTH(T, f, letter, most, helptext, ...) \
	{CLI_NAME("depth", required_argument, letter), .type = CLI_T_UINT, \
	 .field = CLI_AT(T, f), .bytes = CLI_SIZEOF(T, f), .what = "depth", .min = 1, \
	 .max = most, .arg = "N", .help = helptext, __VA_ARGS__}
/* clang-format on */

/* What the generic options set; the tool fills the defaults first. */
struct cli_common {
	bool json;
	const char *json_file;
	bool gbits;
	const char *sysfs_root;
	double warmup, duration, interval;
	uint64_t given[CLI_MAX_OPTS / 64]; /* bit i: the table's row i was given */
	const char *value[CLI_MAX_OPTS];   /* row i's last value as typed */
};

/* The defaults every tool shares: /sys, no live lines (the rest: the rows' defaults). */
void cli_common_init(struct cli_common *cc);

/* Row i of the table was given (cc->given). */
bool cli_given(const struct cli_common *cc, int i);

/* A tool's own conversion of a CLI_T_TOOL row: CLI_NEXT, or an exit status. */
typedef int (*cli_tool_option)(int c, char *arg, void *ctx);

/* Two options that contradict each other: a (with the value a_value, NULL: any) and b. */
struct cli_excl {
	const char *a, *a_value, *b;
	const char *why; /* said after "cannot be combined" */
};

/* A tool's command line: its table and what only the tool knows. */
struct cli_spec {
	const struct cli_opt *opts;
	cli_tool_option tool; /* the CLI_T_TOOL rows */
	void (*usage)(void);  /* --help: the tool's text around cli_help() */
	/* Why word w of row e's words is not built (refused so); NULL: it is. No hook: all are. */
	const char *(*unbuilt)(const struct cli_opt *e, int w);
	const struct cli_excl *excl; /* ends with {NULL}; NULL: none */
};

/*
 * Parse argv with spec's table: the rows' defaults first, then each option
 * converted by its row's type into ctx (or cc), CLI_T_TOOL rows through
 * spec->tool(c, optarg, ctx), then the contradictions of spec->excl. CLI_NEXT
 * with *first = the first operand's index, or the exit status to end with
 * (help, version, the listing, a bad option or value).
 */
int cli_parse(int argc, char **argv, const struct cli_spec *spec, struct cli_common *cc, void *ctx,
	      int *first);

/*
 * --help's option lines from the table (optable.c): a heading per section,
 * "  -x, --name ARG" and the help wrapped at 79 columns, the default, the
 * names of the rows that stand with it ("--chunk too").
 */
void cli_help(const struct cli_spec *spec);

/*
 * The listing the completion and the man-page check read: one line per row
 * --help shows, "--name ARG SHORT CHOICES" (ARG none, required or optional;
 * SHORT -x or -; CHOICES the words of a keyword, comma-separated, or none).
 * An optional value shown as "[=VALUE]" is optional; one shown as " [LIST]"
 * may be the next word (the tool takes it), so it is listed as required.
 */
void cli_list(const struct cli_spec *spec, FILE *out);

/*
 * The role check, from the table's role column: the first row (in table
 * order) that was given and belongs to none of the roles of role: its long
 * name, or NULL. A row whose column is 0 belongs to all.
 */
const char *cli_wrong_role(const struct cli_opt *opts, const struct cli_common *cc, unsigned role);

/* Where live lines go: stderr with --json (stdout holds only the document). */
FILE *cli_live_stream(const struct cli_common *cc);

/* Report a value parse.h rejected with rc; returns NBW_EXIT_USAGE. */
int cli_bad_value(const char *what, const char *val, int rc);

/* Value helpers: CLI_NEXT with *out set, or NBW_EXIT_USAGE after the message. */
int cli_uint(const char *what, const char *val, unsigned long min, unsigned long max,
	     unsigned *out);
int cli_size(const char *what, const char *val, uint64_t min, uint64_t max, uint64_t *out);
/* One of the NULL-terminated words[]; *out = its index. "unknown <what> '<val>' (a or b)". */
int cli_keyword(const char *what, const char *val, const char *const *words, int *out);
/* Row e's words (its words, or its words_of's), NULL-terminated; NULL: none. */
const char *const *cli_words(const struct cli_opt *e);
/* words as a list into buf (len bytes): "a", "a or b", "a, b or c". */
void cli_word_list(const char *const *words, char *buf, size_t len);

/*
 * arg, an operand, looks like the file of a --json given without '=' ("--json
 * out.json"): --json had no FILE and arg ends in .json or names an existing file.
 */
bool cli_json_operand(const struct cli_common *cc, const char *arg);

/* The hint after getopt's own complaint; returns NBW_EXIT_USAGE. */
int cli_try_help(void);

/* Open --json=FILE (or stdout). NULL after the error line. */
FILE *cli_open_output(const struct cli_common *cc);
void cli_close_output(FILE *out);

#endif
