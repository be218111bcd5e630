/* SPDX-License-Identifier: MIT */
/*
 * printer.h: the one printer of nvme_write_bw_remote. It renders a result
 * (result.h) of any mode through common/report.c, text and JSON from the
 * same calls; it measures nothing and judges nothing.
 */
#ifndef NBW_PRINTER_H
#define NBW_PRINTER_H

#include <stdio.h>

#include "report.h"
#include "result.h"

/*
 * A report in two steps, the header before the window (live lines follow
 * it in text) and the body after it: the document's opening and the
 * header, then the body and the document's end.
 */
void print_begin(struct report *r, const struct result *x);
void print_end(struct report *r, const struct result *x);
/* A run that ended before its header: the short document (JSON only; nothing in text). */
void print_short(struct report *r, const struct result *x);

/* The header: tool, role and parameters (JSON "params"); listen: the sink's addresses. */
void print_params(struct report *r, const struct options *o, const char *role, const char *listen);
/* Why source i (0-based) of n never came, into why. */
void fanin_missing_why(const struct options *o, int i, int n, char *why, size_t len);
/* A horizontal rule (text only). */
void print_rule(struct report *r);

#endif
