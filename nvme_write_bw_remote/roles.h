/* SPDX-License-Identifier: MIT */
/*
 * roles.h: the roles' and modes' entry points, for main.c: the sink
 * (sink/sink.h: one source, --sources N), the source (source/source.h),
 * --bidir (bidir.c) and -a (all_sizes.c). Calls go down: main.c -> these
 * -> sink/, source/ -> model/ -> proto/, fabric/ -> common/; main.c alone
 * prints their result (print/).
 */
#ifndef NBW_ROLES_H
#define NBW_ROLES_H

#include "options.h"
#include "report.h"
#include "result.h"
#include "sink.h"
#include "source.h"

/* --bidir: both roles at once in two threads, x's parts (bidir.c). */
int run_bidir(const struct options *o, struct result *x);

/* -a: both roles at every message size from 64K to 4M, a part each, and the curve (all_sizes.c). */
int run_all_sizes(const struct options *o, const struct run_state *run, struct result *x);

/*
 * --sweep-qps: one role's run per QP count, each printed into r, then the
 * curve and its verdict (qps_sweep.c). qps_sweep_parse: the list into
 * o->sweep_qps, -1 to go on or a usage error's exit status.
 */
int qps_sweep_parse(struct options *o);
int run_qps_sweep(const struct options *o, struct report *r);

#endif
