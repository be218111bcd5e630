// SPDX-License-Identifier: MIT
/* cli.c: the table-driven parser, the role and contradiction checks and the value helpers (cli.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "nbw.h"
#include "parse.h"

void cli_common_init(struct cli_common *cc)
{
	*cc = (struct cli_common){.sysfs_root = "/sys"};
}

bool cli_given(const struct cli_common *cc, int i)
{
	return i >= 0 && i < CLI_MAX_OPTS && (cc->given[i / 64] >> (i % 64) & 1);
}

/* The rows of a table, or -1 after the line of a table too long (a bug of the tool). */
static int table_rows(const struct cli_opt *opts)
{
	int n = 0;

	while (opts[n].o.name)
		n++;
	if (n > CLI_MAX_OPTS) {
		nbw_err("internal: %d options, at most %d", n, CLI_MAX_OPTS);
		return -1;
	}
	return n;
}

/* Where row e's offset off (plus one) points: in cc or in the tool's options. */
static void *at(const struct cli_opt *e, unsigned off, struct cli_common *cc, void *ctx)
{
	return (char *)(e->cc ? (void *)cc : ctx) + off - 1;
}

/* n into the unsigned field of row e, of e->bytes bytes (0: an unsigned). */
static int cli_ulong(const char *what, const char *val, unsigned long min, unsigned long max,
		     unsigned long *out);
static int seconds_in(const char *what, const char *val, double min, double max, double *out);

static void store_uint(const struct cli_opt *e, void *p, unsigned long n)
{
	switch (e->bytes) {
	case 1: {
		uint8_t v = (uint8_t)n;
		memcpy(p, &v, 1);
		break;
	}
	case 2: {
		uint16_t v = (uint16_t)n;
		memcpy(p, &v, 2);
		break;
	}
	case 8: {
		uint64_t v = n;
		memcpy(p, &v, 8);
		break;
	}
	default: {
		unsigned v = (unsigned)n;
		memcpy(p, &v, sizeof(v));
	}
	}
}

/* A keyword row's value: CLI_NEXT with *k its index, or NBW_EXIT_USAGE. */
static int keyword_value(const struct cli_spec *spec, const struct cli_opt *e, const char *val,
			 int *k)
{
	int rc = cli_keyword(e->what, val, cli_words(e), k);
	const char *why = rc == CLI_NEXT && spec->unbuilt ? spec->unbuilt(e, *k) : NULL;

	if (why)
		return nbw_usage_err("%s '%s' was not built (%s)", e->what, val, why);
	return rc;
}

/* Convert val by row e's type into its field: CLI_NEXT, CLI_UNKNOWN or an exit status. */
static int convert(const struct cli_spec *spec, const struct cli_opt *e, char *val,
		   struct cli_common *cc, void *ctx)
{
	void *p = e->field ? at(e, e->field, cc, ctx) : NULL;
	unsigned long n;
	uint64_t size = 0;
	double secs = 0;
	int k, rc = CLI_NEXT;

	switch (e->type) {
	case CLI_T_TEXT:
		if (p) /* a char * or a const char *: the same representation */
			memcpy(p, &val, sizeof(val));
		break;
	case CLI_T_FLAG:
		if (p)
			*(bool *)p = true;
		break;
	case CLI_T_UINT:
		rc = cli_ulong(e->what, val, (unsigned long)e->min,
			       e->max ? (unsigned long)e->max : ULONG_MAX, &n);
		if (rc == CLI_NEXT && p)
			store_uint(e, p, n);
		break;
	case CLI_T_SIZE:
		rc = cli_size(e->what, val, (uint64_t)e->min,
			      e->max ? (uint64_t)e->max : UINT64_MAX, &size);
		if (rc == CLI_NEXT && p)
			memcpy(p, &size, sizeof(size));
		break;
	case CLI_T_SECONDS:
		rc = seconds_in(e->what, val, e->min, e->max, &secs);
		if (rc == CLI_NEXT && p)
			memcpy(p, &secs, sizeof(secs));
		break;
	case CLI_T_KEYWORD:
		rc = keyword_value(spec, e, val, &k);
		if (rc == CLI_NEXT && p)
			memcpy(p, &k, sizeof(k));
		break;
	default:
		return CLI_UNKNOWN;
	}
	return rc;
}

/* The rows' defaults, converted as a value typed would be: CLI_NEXT or an exit status. */
static int apply_defaults(const struct cli_spec *spec, struct cli_common *cc, void *ctx)
{
	const struct cli_opt *e;
	char buf[64];
	int rc;

	for (e = spec->opts; e->o.name; e++) {
		if (!e->def || e->type == CLI_T_TEXT || !e->field)
			continue;
		snprintf(buf, sizeof(buf), "%s", e->def);
		rc = convert(spec, e, buf, cc, ctx);
		if (rc != CLI_NEXT && rc != CLI_UNKNOWN) {
			nbw_err("internal: --%s's default '%s' is refused", e->o.name, e->def);
			return NBW_EXIT_FAIL;
		}
	}
	return CLI_NEXT;
}

/* The row an alias stands for (the first of another type whose val is e->with). */
static int row_of_val(const struct cli_opt *opts, int val, bool skip_alias)
{
	int i;

	for (i = 0; opts[i].o.name; i++)
		if (opts[i].o.val == val && !(skip_alias && opts[i].type == CLI_T_ALIAS))
			return i;
	return -1;
}

/* Row i given as typed (spelled: "--name" or "-x") with val: CLI_NEXT or an exit status. */
static int take(const struct cli_spec *spec, int i, const char *spelled, char *val,
		struct cli_common *cc, void *ctx)
{
	const struct cli_opt *e = &spec->opts[i];
	int rc;

	cc->given[i / 64] |= 1ULL << (i % 64);
	cc->value[i] = val;
	if (e->set)
		*(bool *)at(e, e->set, cc, ctx) = true;
	switch (e->type) {
	case CLI_T_ALIAS:
		i = row_of_val(spec->opts, e->with, true);
		if (i < 0 || i == (int)(e - spec->opts)) {
			nbw_err("internal: %s stands for no option", spelled);
			return NBW_EXIT_FAIL;
		}
		return take(spec, i, spelled, val, cc, ctx);
	case CLI_T_ANSWER:
		return nbw_usage_err("%s: %s", spelled, e->help);
	case CLI_T_NOTE:
		nbw_err("%s: %s", spelled, e->help);
		return CLI_NEXT;
	case CLI_T_HELP:
		spec->usage();
		return NBW_EXIT_OK;
	case CLI_T_VERSION:
		nbw_print_version();
		return NBW_EXIT_OK;
	case CLI_T_LIST:
		cli_list(spec, stdout);
		return NBW_EXIT_OK;
	case CLI_T_TOOL:
		return spec->tool(e->o.val, val, ctx);
	default:
		rc = convert(spec, e, val, cc, ctx);
		return rc == CLI_UNKNOWN ? cli_try_help() : rc;
	}
}

/* getopt_long()'s tables of opts; false after "out of memory". */
static bool getopt_tables(const struct cli_opt *opts, int n, struct option **lo, char **shortopts)
{
	size_t k = 0;
	int i;

	*lo = nbw_zalloc((size_t)n + 1, sizeof(**lo));
	*shortopts = nbw_zalloc((size_t)n * 3 + 2, 1);
	if (!*lo || !*shortopts) {
		free(*lo);
		free(*shortopts);
		return false;
	}
	for (i = 0; i < n; i++) {
		(*lo)[i] = opts[i].o;
		if (opts[i].o.val <= 0 || opts[i].o.val > CHAR_MAX || !isalnum(opts[i].o.val) ||
		    strchr(*shortopts, opts[i].o.val))
			continue;
		(*shortopts)[k++] = (char)opts[i].o.val;
		if (opts[i].o.has_arg != no_argument)
			(*shortopts)[k++] = ':';
		if (opts[i].o.has_arg == optional_argument)
			(*shortopts)[k++] = ':';
	}
	return true;
}

/* The contradictions of spec->excl: CLI_NEXT, or NBW_EXIT_USAGE after the line. */
static int check_excl(const struct cli_spec *spec, const struct cli_common *cc)
{
	const struct cli_excl *x;
	int a, b;

	for (x = spec->excl; x && x->a; x++) {
		for (a = 0; spec->opts[a].o.name && strcmp(spec->opts[a].o.name, x->a); a++)
			;
		for (b = 0; spec->opts[b].o.name && strcmp(spec->opts[b].o.name, x->b); b++)
			;
		if (!cli_given(cc, a) || !cli_given(cc, b))
			continue;
		if (x->a_value && (!cc->value[a] || strcmp(cc->value[a], x->a_value)))
			continue;
		return nbw_usage_err("--%s%s%s and --%s cannot be combined%s%s", x->a,
				     x->a_value ? " " : "", x->a_value ? x->a_value : "", x->b,
				     x->why ? ": " : "", x->why ? x->why : "");
	}
	return CLI_NEXT;
}

int cli_parse(int argc, char **argv, const struct cli_spec *spec, struct cli_common *cc, void *ctx,
	      int *first)
{
	int n = table_rows(spec->opts), c, i, rc, longindex = -1;
	char *shortopts, spelled[64], *argv0;
	struct option *lo;

	if (n < 0 || !getopt_tables(spec->opts, n, &lo, &shortopts))
		return NBW_EXIT_FAIL;
	rc = apply_defaults(spec, cc, ctx);
	/* getopt's own lines name the tool as the others do, not by the path it ran from. */
	argv0 = argv[0];
	argv[0] = (char *)nbw_prog;
	while (rc == CLI_NEXT && (c = getopt_long(argc, argv, shortopts, lo, &longindex)) != -1) {
		i = c == '?' ? -1 : longindex >= 0 ? longindex : row_of_val(spec->opts, c, false);
		if (i < 0) {
			rc = cli_try_help();
			break;
		}
		if (longindex >= 0)
			snprintf(spelled, sizeof(spelled), "--%s", spec->opts[i].o.name);
		else
			snprintf(spelled, sizeof(spelled), "-%c", c);
		longindex = -1;
		rc = take(spec, i, spelled, optarg, cc, ctx);
	}
	argv[0] = argv0;
	free(lo);
	free(shortopts);
	*first = optind;
	return rc == CLI_NEXT ? check_excl(spec, cc) : rc;
}

const char *cli_wrong_role(const struct cli_opt *opts, const struct cli_common *cc, unsigned role)
{
	int i;

	for (i = 0; opts[i].o.name; i++)
		if (cli_given(cc, i) && opts[i].roles && !(opts[i].roles & role))
			return opts[i].o.name;
	return NULL;
}

FILE *cli_live_stream(const struct cli_common *cc)
{
	return cc->json ? stderr : stdout;
}

int cli_bad_value(const char *what, const char *val, int rc)
{
	return nbw_usage_err("invalid %s '%s': %s", what, val,
			     rc == -ERANGE ? "out of range" : "malformed");
}

/* A value outside its bounds (written as the user types them): the line gives them. */
static int bad_range(const char *what, const char *val, const char *lo, const char *hi)
{
	if (!hi)
		return nbw_usage_err("invalid %s '%s': out of range, at least %s", what, val, lo);
	return nbw_usage_err("invalid %s '%s': out of range %s..%s", what, val, lo, hi);
}

static int cli_ulong(const char *what, const char *val, unsigned long min, unsigned long max,
		     unsigned long *out)
{
	char lo[32], hi[32];
	int rc = parse_uint(val, min, max, out);

	if (rc != -ERANGE)
		return rc ? cli_bad_value(what, val, rc) : CLI_NEXT;
	snprintf(lo, sizeof(lo), "%lu", min);
	snprintf(hi, sizeof(hi), "%lu", max);
	return bad_range(what, val, lo, max == ULONG_MAX ? NULL : hi);
}

int cli_uint(const char *what, const char *val, unsigned long min, unsigned long max, unsigned *out)
{
	unsigned long n;
	int rc = cli_ulong(what, val, min, max, &n);

	if (rc == CLI_NEXT)
		*out = (unsigned)n;
	return rc;
}

int cli_size(const char *what, const char *val, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int rc = parse_size(val, &v);

	char lo[32], hi[32];

	if (rc)
		return cli_bad_value(what, val, rc);
	if (v < min || v > max)
		return bad_range(what, val, format_size(min, lo, sizeof(lo)),
				 max == UINT64_MAX ? NULL : format_size(max, hi, sizeof(hi)));
	*out = v;
	return CLI_NEXT;
}

/* A duration in [min, max] (max 0: no upper bound); a value outside names them. */
static int seconds_in(const char *what, const char *val, double min, double max, double *out)
{
	char lo[32], hi[32];
	double v;
	int rc = parse_duration(val, &v);

	if (rc)
		return cli_bad_value(what, val, rc);
	if (v < min || (max > 0 && v > max)) {
		snprintf(lo, sizeof(lo), "%gs", min);
		snprintf(hi, sizeof(hi), "%gs", max);
		return bad_range(what, val, lo, max > 0 ? hi : NULL);
	}
	*out = v;
	return CLI_NEXT;
}

int cli_keyword(const char *what, const char *val, const char *const *words, int *out)
{
	char list[256];
	int i;

	for (i = 0; words[i]; i++) {
		if (!strcmp(val, words[i])) {
			*out = i;
			return CLI_NEXT;
		}
	}
	cli_word_list(words, list, sizeof(list));
	return nbw_usage_err("unknown %s '%s' (%s)", what, val, list);
}

bool cli_json_operand(const struct cli_common *cc, const char *arg)
{
	size_t n = strlen(arg);

	return cc->json && !cc->json_file &&
	       ((n > 5 && !strcmp(arg + n - 5, ".json")) || access(arg, F_OK) == 0);
}

int cli_try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", nbw_prog);
	return NBW_EXIT_USAGE;
}

FILE *cli_open_output(const struct cli_common *cc)
{
	FILE *out;

	if (!cc->json || !cc->json_file)
		return stdout;
	out = fopen(cc->json_file, "w");
	if (!out)
		nbw_err("%s: %s", cc->json_file, strerror(errno));
	return out;
}

void cli_close_output(FILE *out)
{
	if (out && out != stdout)
		fclose(out);
}
