/* SPDX-License-Identifier: MIT */
/*
 * parts.h: the printer's parts, for its files (printer.h is its entry): one
 * role's document (doc.c) around its body (body.c), and -a's document
 * (sizes.c). Each renders through common/base/report.c, text and JSON from
 * the same calls.
 */
#ifndef NBW_PRINT_PARTS_H
#define NBW_PRINT_PARTS_H

#include <stdbool.h>

#include "report.h"
#include "result.h"

/* The document's opening and the header (before the window). */
void print_head(struct report *r, struct result *x);
/* One role's whole document, or what is left of it after its header. */
void print_role(struct report *r, struct result *x);
/*
 * A run cut short by SIGINT/SIGTERM: said in text, "interrupted": true in
 * JSON (the key only then: a whole run's document keeps its keys).
 */
void print_interrupted(struct report *r, const struct result *x);

/*
 * Where and when (common/base/provenance.h): the block of a whole document
 * (JSON only), its window the span of every window x measured.
 */
void print_provenance(struct report *r, const struct result *x);

/* The body after the window: the sink's (one source), the source's or fan-in's. */
void print_body(struct report *r, const struct result *x);

/* -a's text without --verbose: a line per size, as ib_write_bw -a prints. */
bool sizes_brief(const struct report *r, const struct result *a);
/* A run of -a: the document's opening before the first, its heading. */
void print_size_open(struct report *r, struct result *x);
/* A run of -a, whole or what is left of it after its header, once. */
void print_size(struct report *r, struct result *x);
/* -a's runs not printed yet, what was verified, the curve, and the document's end. */
void print_sizes(struct report *r, struct result *x);

#endif
