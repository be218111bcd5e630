// SPDX-License-Identifier: MIT
/* cli.c: the generic options and the value helpers of every tool (see cli.h). */
#include <errno.h>
#include <stdio.h>
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

int cli_parse(int argc, char **argv, const char *shortopts, const struct option *longopts,
	      struct cli_common *cc, void (*usage)(void), cli_tool_option tool, void *ctx,
	      int *first)
{
	int c, rc;

	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		rc = cli_common_option(c, optarg, cc, usage);
		if (rc == CLI_UNKNOWN)
			rc = tool(c, optarg, ctx);
		if (rc != CLI_NEXT)
			return rc;
	}
	*first = optind;
	return CLI_NEXT;
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
