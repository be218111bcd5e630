// SPDX-License-Identifier: MIT
/* cli.c: shared option-value errors (see cli.h). */
#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "nbw.h"
#include "parse.h"
#include "reader.h"

int cli_bad_value(const char *what, const char *val, int rc)
{
	nbw_usage_err("invalid %s '%s': %s", what, val,
		      rc == -ERANGE ? "out of range" : "malformed");
	return NBW_EXIT_USAGE;
}

int cli_seconds(const char *what, const char *val, double min, double *out)
{
	int rc = parse_duration(val, out);

	if (!rc && *out < min)
		rc = -ERANGE;
	return rc ? cli_bad_value(what, val, rc) : 0;
}

int cli_try_help(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", nbw_prog);
	return NBW_EXIT_USAGE;
}

int cli_engine(const char *val, enum reader_engine *engine)
{
	int rc = reader_engine_parse(val, engine);

	if (rc == -ENOTSUP)
		nbw_usage_err("engine '%s' was not built (configure found no liburing)", val);
	else if (rc)
		nbw_usage_err("unknown engine '%s' (psync or io_uring)", val);
	return rc ? NBW_EXIT_USAGE : 0;
}
