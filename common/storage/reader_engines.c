// SPDX-License-Identifier: MIT
/*
 * reader_engines.c: the table of engines, the one place that lists them: an
 * engine is its index here, and --engine's words, the reports' names and
 * what each takes come from its row (reader.h). io_uring is built only where
 * configure found liburing; without it its row is its name alone, so that
 * --engine io_uring says it was not built, not that it is unknown.
 */
#include <errno.h>
#include <string.h>

#include "config.h"
#include "nbw.h"
#include "reader.h"
#include "reader_engine.h"

#ifndef HAVE_LIBURING
static const struct reader_ops uring_unbuilt = {
	.name = "io_uring",
	.unbuilt = "configure found no liburing",
};
#endif

static const struct reader_ops *const engines[] = {
	&reader_psync_ops,
#ifdef HAVE_LIBURING
	&reader_uring_ops,
#else
	&uring_unbuilt,
#endif
};

const struct reader_ops *reader_engine_ops(unsigned e)
{
	return e < NBW_ARRAY_SIZE(engines) ? engines[e] : NULL;
}

const char *const *reader_engine_words(void)
{
	/* Filled on each call with the same names (the option parser's, one thread). */
	static const char *words[NBW_ARRAY_SIZE(engines) + 1];
	unsigned e;

	for (e = 0; e < NBW_ARRAY_SIZE(engines); e++)
		words[e] = engines[e]->name;
	return words;
}

const char *reader_engine_name(unsigned e)
{
	const struct reader_ops *ops = reader_engine_ops(e);

	return ops ? ops->name : "unknown";
}

int reader_engine_find(const char *name)
{
	unsigned e;

	for (e = 0; e < NBW_ARRAY_SIZE(engines); e++)
		if (!strcmp(engines[e]->name, name))
			return (int)e;
	return -ENOENT;
}

const char *reader_engine_unbuilt(unsigned e)
{
	const struct reader_ops *ops = reader_engine_ops(e);

	return !ops ? "no such engine" : ops->unbuilt;
}

bool reader_engine_available(unsigned e)
{
	const struct reader_ops *ops = reader_engine_ops(e);

	return ops && !ops->unbuilt;
}

unsigned reader_engine_depth(unsigned e)
{
	const struct reader_ops *ops = reader_engine_ops(e);

	return ops && ops->depth ? ops->depth : 1;
}

int reader_engine_check(unsigned e, unsigned inflight, unsigned flags, const char **why)
{
	const struct reader_ops *ops = reader_engine_ops(e);
	const char *w = NULL;
	int rc;

	if (!ops)
		return -ENOENT;
	rc = ops->check ? ops->check(inflight, flags, &w) : 0;
	if (why)
		*why = w;
	return rc;
}

const char *reader_engine_taking(unsigned inflight, unsigned flags)
{
	unsigned e;

	for (e = 0; e < NBW_ARRAY_SIZE(engines); e++)
		if (!reader_engine_check(e, inflight, flags, NULL))
			return engines[e]->name;
	return NULL;
}
