// SPDX-License-Identifier: MIT
/*
 * doc.c: one role's document around its body (see parts.h): the opening
 * and the header before the window, the short document of a run that ended
 * before it, and the close.
 */
#include <stdio.h>

#include "parse.h"
#include "parts.h"
#include "rows.h"

static const char *role_name(const struct result *x)
{
	return x->mode == RESULT_SOURCE ? "source" : "sink";
}

/* Fan-in: the header's lines after the parameters: who came, how the DRAM was cut. */
static void print_split(struct report *r, const struct result *x)
{
	char a[32], b[32];
	int i;

	report_u64(r, "sources_expected", " Sources         : %llu expected,",
		   (uint64_t)x->nexpected);
	report_u64(r, "sources_admitted", " %llu came\n", (uint64_t)x->nstreams);
	report_text(r, " DRAM split      : %s in all: local readers %s",
		    format_size(x->o.sink.dram, a, sizeof(a)),
		    format_size(x->local_len, b, sizeof(b)));
	report_u64(r, "dram_local_bytes", NULL, x->local_len);
	for (i = 0; i < x->nstreams; i++) {
		const struct result_stream *st = &x->streams[i];

		report_text(r, "; %s %u x %s", st->peer, st->workers,
			    format_size(st->slice_len, a, sizeof(a)));
	}
	report_text(r, "\n");
}

/* The document's opening and the header (before the window). */
void print_head(struct report *r, struct result *x)
{
	struct options shown = x->o;

	shown.source.feed = x->source;
	report_obj_begin(r, x->key);
	print_params(r, &shown, role_name(x), x->mode == RESULT_SOURCE ? NULL : x->where);
	if (x->mode == RESULT_FANIN)
		print_split(r, x);
	x->head_out = true;
}

/*
 * A run cut short by SIGINT/SIGTERM: said in text, "interrupted": true in
 * JSON (the key only then: a whole run's document keeps its keys).
 */
void print_interrupted(struct report *r, const struct result *x)
{
	if (!x->interrupted)
		return;
	report_bool(r, "interrupted", NULL, true);
	report_text(r, " (interrupted: SIGINT/SIGTERM cut the run short; the figures cover only "
		       "what ran)\n");
}

void print_provenance(struct report *r, const struct result *x)
{
	double a, b;

	if (!x->o.prov)
		return;
	if (result_window(x, &a, &b))
		prov_span(x->o.prov, (uint64_t)a, (uint64_t)b);
	prov_report(r, x->o.prov);
}

/* The document's end: a newline after it (as -a's runs always had; not inside --bidir's). */
static void print_close(struct report *r, const struct result *x)
{
	if (!x->parent) {
		print_interrupted(r, x);
		print_provenance(r, x);
	}
	report_obj_end(r);
	if (!x->parent || x->parent->mode == RESULT_SIZES)
		report_finish(r);
}

/* A run that ended before its header: the short document (JSON only; nothing in text). */
static void print_short(struct report *r, const struct result *x)
{
	if (!r->json)
		return;
	report_obj_begin(r, x->key);
	print_params(r, &x->o, role_name(x),
		     x->mode == RESULT_SINK && x->where[0] ? x->where : NULL);
	if (x->mode == RESULT_SINK) {
		print_body(r, x);
	} else if (x->mode == RESULT_SOURCE) {
		report_str(r, "verify", NULL, NULL);
		report_bool(r, "ok", NULL, false);
		report_str(r, "error", NULL, x->failure[0] ? x->failure : NULL);
	} else {
		report_bool(r, "ok", NULL, false);
		report_str(r, "error", NULL, x->failure[0] ? x->failure : "failed");
	}
	print_close(r, x);
}

/* One role's whole document, or what is left of it after its header. */
void print_role(struct report *r, struct result *x)
{
	if (!x->begun) {
		print_short(r, x);
		return;
	}
	if (!x->head_out)
		print_head(r, x);
	print_body(r, x);
	print_close(r, x);
}
