// SPDX-License-Identifier: MIT
/* nbw.c: program name and the one-line message printers. */
#include <stdio.h>
#include <string.h>

#include "nbw.h"

const char *nbw_prog = PACKAGE_NAME;

void nbw_set_prog(const char *argv0)
{
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	if (argv0)
		nbw_prog = slash ? slash + 1 : argv0;
}

static void vmsg(const char *what, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", nbw_prog, what, line);
}

void nbw_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void nbw_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void nbw_usage_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", nbw_prog);
}

void nbw_print_version(void)
{
	printf("%s (%s) %s\n", nbw_prog, PACKAGE_NAME, PACKAGE_VERSION);
}
