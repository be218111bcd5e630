// SPDX-License-Identifier: MIT
/*
 * printer.c: the printer's entries (see printer.h): what is printed while
 * the roles run (the header before each window, the live lines, each run
 * of -a), the whole report of any mode, and --bidir's document (both roles,
 * then their sum). One role's document is doc.c's, its body body.c's, -a's
 * sizes.c's.
 */
#include <math.h>
#include <stdio.h>

#include "parts.h"
#include "printer.h"
#include "validity.h"
#include "window.h"

/* ---- --bidir: both directions, then their sum ------------------------------------- */

/* A rate of the summary, or "-" when nothing was measured, and its tail. */
static void print_rate(struct report *r, const char *key, const char *label, double bps,
		       const char *tail)
{
	report_text(r, " %-26s", label);
	report_bw(r, key, "%10.3f", bps);
	report_text(r, "  %s\n", tail);
}

/* A direction's rate in bytes/s; NAN when it has none (or did not run). */
static double part_bps(const struct result *p)
{
	return p->nstreams ? streams_bps(&p->streams[0]) : NAN;
}

static void print_bidir_sum(struct report *r, const struct result *x)
{
	const struct result *in = &x->parts[0], *out = &x->parts[1];
	const char *peer = x->o.source.peer;
	double ov = x->sum.overlap_pct;
	char tail[32];

	report_text(r, "\n--bidir with %s (%s):\n", peer, report_bw_unit(r));
	report_obj_begin(r, "bidir");
	report_str(r, "peer", NULL, peer);
	snprintf(tail, sizeof(tail), "exit %d", out->rc);
	print_rate(r, "send_gb_per_s", "send (RDMA WRITE out)", part_bps(out), tail);
	snprintf(tail, sizeof(tail), "exit %d", in->rc);
	print_rate(r, "receive_gb_per_s", "receive (RDMA WRITE in)", part_bps(in), tail);
	print_rate(r, "sum_gb_per_s", "sum of both directions", x->sum.rdma_bps,
		   x->sum.valid ? "(valid)" : "(NOT valid)");
	report_double(r, "overlap_pct", NULL, ov);
	if (isfinite(ov))
		report_double(r, NULL, " windows overlap           %9.2f%%\n",
			      floor(ov * 100) / 100);
	report_bool(r, "sum_valid", NULL, x->sum.valid);
	report_str(r, "sum_invalid_reason", x->sum.valid ? NULL : " not valid: %s\n",
		   x->sum.valid ? NULL : x->sum.why);
	report_obj_end(r);
	report_text(r,
		    " Both directions at once stress the fabric (each port sends and receives);\n"
		    " they do not raise what the drives deliver: the drives' aggregate is the\n"
		    " same whichever way their data goes.\n");
}

static void print_bidir(struct report *r, struct result *x)
{
	report_obj_begin(r, NULL);
	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "role", NULL, "bidir");
	if (x->nparts == 2) {
		report_text(r, "\n=== receive: %s -> this node's DRAM (sink) ===\n",
			    x->o.source.peer);
		print_role(r, &x->parts[0]);
		report_text(r, "\n=== send: this node's drives -> %s (source) ===\n",
			    x->o.source.peer);
		print_role(r, &x->parts[1]);
		print_bidir_sum(r, x);
	}
	report_i64(r, "exit_status", NULL, x->rc);
	print_interrupted(r, x);
	print_provenance(r, x);
	report_obj_end(r);
	report_finish(r);
}

/* ---- the entries --------------------------------------------------------------------- */

/*
 * While the roles run: the header before each window, the live lines in it,
 * each run of -a once it ends.
 */
static void printer_event(void *ctx, struct result *x, enum result_event ev)
{
	struct report *r = ctx;
	bool part_of_a = x->parent && x->parent->mode == RESULT_SIZES;

	if (ev == RESULT_LIVE) {
		/* On stdout between the header and the body; on stderr beside JSON. */
		live_print(r->json ? stderr : r->out, x->live.at, r->gbits, x->live.v, x->live.n,
			   x->live.note);
	} else if (ev == RESULT_BEGIN && part_of_a && sizes_brief(r, x->parent)) {
		/* its one line comes at RESULT_END */
	} else if (ev == RESULT_BEGIN && x->mode != RESULT_BIDIR && (!x->parent || part_of_a)) {
		if (part_of_a)
			print_size_open(r, x);
		print_head(r, x);
	} else if (ev == RESULT_END && part_of_a) {
		print_size(r, x);
	}
}

void printer_attach(struct result *x, struct report *r)
{
	x->hook = (struct result_hook){.fn = printer_event, .ctx = r};
}

void print_result(struct report *r, struct result *x)
{
	if (x->mode == RESULT_SIZES)
		print_sizes(r, x);
	else if (x->mode == RESULT_BIDIR)
		print_bidir(r, x);
	else
		print_role(r, x);
}
