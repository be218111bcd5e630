/* SPDX-License-Identifier: MIT */
/*
 * cli.h: option-value handling every tool's parser shares, so that a bad
 * value reads the same in all three: "<tool>: invalid <what> '<value>':
 * malformed|out of range" and the --help hint, exit status 2.
 */
#ifndef NBW_CLI_H
#define NBW_CLI_H

#include "reader.h"

/* Report a value parse.h rejected with rc; returns NBW_EXIT_USAGE. */
int cli_bad_value(const char *what, const char *val, int rc);

/* A duration of at least min seconds into *out: 0, or NBW_EXIT_USAGE after reporting. */
int cli_seconds(const char *what, const char *val, double min, double *out);

/* --engine psync|io_uring: 0, or NBW_EXIT_USAGE after reporting (unknown, or not built). */
int cli_engine(const char *val, enum reader_engine *engine);

/* The hint after getopt's own complaint; returns NBW_EXIT_USAGE. */
int cli_try_help(void);

#endif
