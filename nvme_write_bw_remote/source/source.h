/* SPDX-License-Identifier: MIT */
/*
 * source.h: the source's entry point (run.c): its drives (or memory) into
 * a sink's DRAM by RDMA WRITE. It fills the result x (result.h; initialised
 * by the caller, its hook told when the header may go out), prints nothing
 * and returns the exit status.
 */
#ifndef NBW_SOURCE_H
#define NBW_SOURCE_H

#include "options.h"
#include "result.h"

int run_source(const struct options *o, const struct run_state *run, struct result *x);

#endif
