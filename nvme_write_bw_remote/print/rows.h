/* SPDX-License-Identifier: MIT */
/* rows.h: the rows of the reports (rows.c), for the printer's files (doc.c, body.c, sizes.c). */
#ifndef NBW_ROWS_H
#define NBW_ROWS_H

#include "report.h"
#include "result.h"

/* A horizontal rule (text only). */
void print_rule(struct report *r);

/* The header: tool, role and parameters (JSON "params"); listen: the sink's addresses. */
void print_params(struct report *r, const struct options *o, const char *role, const char *listen);

/*
 * A row's message rate: JSON writes_per_s, text M WRITEs/s in textfmt
 * (" %10.6f", a newline at its end ends the line); chunk 0 (the sink's own
 * drives, read, not written): nothing in JSON, a blank column in text.
 */
void print_msg_rate(struct report *r, double bytes_per_s, uint64_t chunk, const char *textfmt);
/*
 * A rate's share of the line rate (GB/s) in a column width wide: the
 * percentage, or "above" (null, above_line_rate true) for a figure above the
 * line rate by more than the noise (sweep_above()): never a percentage of a
 * ceiling it does not hold.
 */
void print_line_pct(struct report *r, double gb_per_s, double line, int width);

/* A row "label bytes seconds GB/s M WRITE/s" as JSON object key; chunk 0: no WRITEs. */
void print_bw_row(struct report *r, const char *key, const char *label, uint64_t bytes,
		  double seconds, uint64_t chunk);

/*
 * One drive's row (an element of "drives"); prefix: "peer:" before its path,
 * or NULL; chunk: its message size (0 for the sink's own drives); max_cv: the
 * variation above which its window is unsteady. A drive this process read
 * adds its seconds' shape and its "health".
 */
void print_drive(struct report *r, const struct result_drive *d, const char *side,
		 const char *prefix, double seconds, uint64_t chunk, double max_cv);

/*
 * Under the drives' table: each unsteady window named, each health log that moved;
 * source: the source that told the sink of these drives ("NAME of source PEER": never
 * taken for the sink's own drive of that name), NULL for this node's own.
 */
void print_drive_notes(struct report *r, const struct result_drive *d, int n, double max_cv,
		       const char *source);

/* The heading of the drives' table. */
void print_drives_head(struct report *r);

/*
 * Why verification is off: --no-verify, or (-a) a message below a whole
 * digest block (4 KiB), which cannot be verified.
 */
const char *verify_off_why(const struct options *o);
/* The verification line and "verify" (detail may be NULL). */
void print_verify(struct report *r, const struct options *o, enum verdict v, const char *detail);

/*
 * One element of "streams": the local one (peer NULL: its variation) or a
 * source's RDMA (overlap with the sink's window, variation, start offset);
 * with text, also a line of the table.
 */
void print_stream(struct report *r, const char *peer, double overlap, double cv, double offset,
		  bool text);

/* Whether the total may be read as a sum: total_valid, the reason, the table's line. */
void print_sum_rule(struct report *r, const struct options *o, bool valid, const char *why);

/* The report's end: the verification line, ok, error (may be "" or NULL) and a rule. */
void print_outcome(struct report *r, const struct options *o, enum verdict v, const char *detail,
		   bool ok, const char *failure);

/*
 * The rails' rows ("rails" in JSON): QPs, bytes, GB/s, WRITEs/s of chunk
 * bytes, % of the slower port's line rate.
 */
void print_rails(struct report *r, const struct rail *rails, int n, double seconds, uint64_t chunk);

/* The local drives' rows. */
void print_locals(struct report *r, const struct result *x);

/* "local (N drives)" and its row. */
void print_local_row(struct report *r, const struct result *x);

/* Ideal and % of ideal (validity.c), its line; without an ideal, why not. */
void print_ideal(struct report *r, const struct result *x);

/* The heading of the totals' table. */
void print_totals_head(struct report *r);

#endif
