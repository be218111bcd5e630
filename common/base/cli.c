// SPDX-License-Identifier: MIT
/* cli.c: the generic options and the value helpers of every tool (see cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nbw.h"
#include "parse.h"

void cli_common_init(struct cli_common *cc)
{
	*cc = (struct cli_common){
		.sysfs_root = "/sys",
		.warmup = 3,
		.duration = 20,
	};
}

int cli_common_option(int c, const char *arg, struct cli_common *cc, void (*usage)(void))
{
	switch (c) {
	case CLI_OPT_JSON:
		cc->json = true;
		cc->json_file = arg;
		return CLI_NEXT;
	case CLI_OPT_GBITS:
		cc->gbits = true;
		return CLI_NEXT;
	case CLI_OPT_SYSFS_ROOT:
		cc->sysfs_root = arg;
		return CLI_NEXT;
	case CLI_OPT_WARMUP:
		return cli_seconds("warm-up", arg, 0, &cc->warmup);
	case 'D':
		return cli_seconds("duration", arg, 0.01, &cc->duration);
	case CLI_OPT_INTERVAL:
		return cli_seconds("interval", arg, 0.01, &cc->interval);
	case 'h':
		usage();
		return NBW_EXIT_OK;
	case 'V':
		nbw_print_version();
		return NBW_EXIT_OK;
	case '?':
		return cli_try_help();
	}
	return CLI_UNKNOWN;
}

/* Option c, if opts keeps it as it is, into base: CLI_NEXT, or CLI_UNKNOWN. */
static int keep_option(const struct cli_opt *opts, int c, char *arg, void *base)
{
	const struct cli_opt *e;

	for (e = opts; e->o.name; e++) {
		if (e->o.val != c || (e->text < 0 && e->flag < 0))
			continue;
		if (e->text >= 0) /* a char * or a const char *: the same representation */
			memcpy((char *)base + e->text, &arg, sizeof(arg));
		if (e->flag >= 0)
			*(bool *)((char *)base + e->flag) = true;
		return CLI_NEXT;
	}
	return CLI_UNKNOWN;
}

/* getopt_long()'s table of opts; NULL after "out of memory" (or a table too long). */
static struct option *getopt_table(const struct cli_opt *opts)
{
	struct option *lo;
	size_t n = 0, i;

	while (opts[n].o.name)
		n++;
	if (n > CLI_MAX_OPTS) { /* a bug of the tool: its tests end here */
		nbw_err("internal: %zu options, at most %d", n, CLI_MAX_OPTS);
		return NULL;
	}
	lo = nbw_zalloc(n + 1, sizeof(*lo));
	for (i = 0; lo && i < n; i++)
		lo[i] = opts[i].o;
	return lo;
}

/* The entry getopt_long() returned c for: the long option named, else the first with c. */
static int entry_of(const struct cli_opt *opts, int c, int longindex)
{
	int i;

	if (longindex >= 0)
		return longindex;
	for (i = 0; opts[i].o.name; i++)
		if (opts[i].o.val == c)
			return i;
	return -1;
}

int cli_parse(int argc, char **argv, const struct cli_spec *spec, struct cli_common *cc, void *ctx,
	      int *first)
{
	struct option *lo = getopt_table(spec->opts);
	int c, i, rc = CLI_NEXT, longindex = -1;

	if (!lo)
		return NBW_EXIT_FAIL;
	while (rc == CLI_NEXT &&
	       (c = getopt_long(argc, argv, spec->shortopts, lo, &longindex)) != -1) {
		i = c == '?' ? -1 : entry_of(spec->opts, c, longindex);
		if (i >= 0)
			cc->given |= 1ULL << i;
		longindex = -1;
		rc = cli_common_option(c, optarg, cc, spec->usage);
		if (rc == CLI_UNKNOWN)
			rc = keep_option(spec->opts, c, optarg, ctx);
		if (rc == CLI_UNKNOWN)
			rc = spec->tool(c, optarg, ctx);
	}
	free(lo);
	*first = optind;
	return rc;
}

const char *cli_wrong_role(const struct cli_opt *opts, const struct cli_common *cc, unsigned role)
{
	int i;

	for (i = 0; opts[i].o.name; i++)
		if ((cc->given >> i & 1) && opts[i].roles && !(opts[i].roles & role))
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

int cli_uint(const char *what, const char *val, unsigned long min, unsigned long max, unsigned *out)
{
	unsigned long n;
	int rc = parse_uint(val, min, max, &n);

	if (rc)
		return cli_bad_value(what, val, rc);
	*out = (unsigned)n;
	return CLI_NEXT;
}

int cli_size(const char *what, const char *val, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int rc = parse_size(val, &v);

	if (!rc && (v < min || v > max))
		rc = -ERANGE;
	if (rc)
		return cli_bad_value(what, val, rc);
	*out = v;
	return CLI_NEXT;
}

int cli_seconds(const char *what, const char *val, double min, double *out)
{
	double v;
	int rc = parse_duration(val, &v);

	if (!rc && v < min)
		rc = -ERANGE;
	if (rc)
		return cli_bad_value(what, val, rc);
	*out = v;
	return CLI_NEXT;
}

int cli_keyword(const char *what, const char *val, const char *const *words, int *out)
{
	char list[256] = "";
	size_t off = 0;
	int i, n = 0;

	for (i = 0; words[i]; i++) {
		if (!strcmp(val, words[i])) {
			*out = i;
			return CLI_NEXT;
		}
		n++;
	}
	for (i = 0; i < n && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					i == 0	     ? ""
					: i + 1 == n ? " or "
						     : ", ",
					words[i]);
	return nbw_usage_err("unknown %s '%s' (%s)", what, val, list);
}

int cli_engine(const char *val, bool uring_built, int *out)
{
	static const char *const names[] = {"psync", "io_uring", NULL};
	int i, rc = cli_keyword("engine", val, names, &i);

	if (rc != CLI_NEXT)
		return rc;
	if (i == CLI_ENGINE_IO_URING && !uring_built)
		return nbw_usage_err("engine '%s' was not built (configure found no liburing)",
				     val);
	*out = i;
	return CLI_NEXT;
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
