// SPDX-License-Identifier: MIT
/*
 * rows.c: the rows and lines the reports of nvme_write_bw_remote are made
 * of (the header, a drive, a rail, a stream, the verification line), each
 * written once through common/base/report.c; printer.c puts them together.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "digest.h"
#include "nbw.h"
#include "parse.h"
#include "rows.h"
#include "sweep.h"

/* A horizontal rule (text only). */
void print_rule(struct report *r)
{
	report_text(r, "---------------------------------------------------------------------"
		       "------------------\n");
}

/* The sink's door: where it listens, whom it lets in, and how. */
static void print_access(struct report *r, const struct options *o, const char *listen)
{
	report_str(r, "listen", " Listening on    : %s", listen);
	report_text(r, " port %u%s\n", o->port,
		    !o->sink.bind ? " (the RDMA ports' addresses; --bind any for all)" : "");
	report_str(r, "allow", " Allowed sources : %s\n",
		   o->sink.nallow ? o->sink.allow_text : "any address");
	report_bool(r, "psk", NULL, o->key.len > 0);
	report_text(r, " Access          : %s\n",
		    o->key.len ? "pre-shared key (--psk-file): only a source holding it gets in"
			       : "OPEN: no pre-shared key, anyone who reaches the port gets in "
				 "(--psk-file)");
}

/* The header: tool, role and parameters (JSON "params"); listen: the sink's addresses. */
void print_params(struct report *r, const struct options *o, const char *role, const char *listen)
{
	char a[32];

	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "role", NULL, role);
	print_rule(r);
	report_text(r, "          NVMe -> RDMA WRITE -> remote DRAM bandwidth (%s side)\n", role);
	report_text(r, " Tool/version    : nvme_write_bw_remote %s\n", PACKAGE_VERSION);
	prov_text_line(r, o->prov);
	report_obj_begin(r, "params");
	report_u64(r, "chunk", NULL, o->chunk);
	report_text(r, " Chunk = message : %-14s", format_size(o->chunk, a, sizeof(a)));
	report_u64(r, "depth", " WRITEs in flight: %llu per worker\n", o->depth);
	report_u64(r, "threads", " Threads/drive   : %-14llu", o->threads);
	report_str(r, "source", " Source          : %s\n",
		   o->source.feed == CTRL_SOURCE_MEM ? "mem" : "disk");
	report_double(r, "warmup_s", NULL, o->cc.warmup);
	report_double(r, "duration_s", NULL, o->cc.duration);
	if (o->cc.interval > 0)
		report_double(r, "interval_s", NULL, o->cc.interval);
	snprintf(a, sizeof(a), "%g s", o->cc.warmup);
	report_text(r, " Warm-up         : %-14s Duration        : %g s\n", a, o->cc.duration);
	report_u64(r, "port", " Port            : %-14llu", o->port);
	report_double(r, "timeout_s", " Timeout         : %g s\n", o->timeout);
	if (!o->source.peer)
		report_u64(r, "dram", NULL, o->sink.dram);
	if (listen)
		print_access(r, o, listen);
	report_str(r, "verify_mode", " Verification    : %s\n", ctrl_verify_name(o->verify));
	report_str(r, "connection", " Connection      : %-14s",
		   o->conn == CTRL_CONN_CM ? "rdma_cm" : "verbs");
	report_text(r, " MTU/SL/TClass   : ");
	if (o->lo.mtu)
		report_u64(r, "mtu", "%llu", 128ULL << o->lo.mtu);
	else
		report_null(r, "mtu", "%s");
	report_u64(r, "sl", "/%llu", o->lo.sl);
	report_u64(r, "tclass", "/%llu\n", o->lo.tclass);
	report_u64(r, "qp_timeout", " QP timeout      : %llu", fab_ack_timeout(&o->lo));
	report_text(r, " (%.0f ms per try)\n",
		    4.096e-3 * (double)(1ULL << fab_ack_timeout(&o->lo)));
	report_obj_end(r);
}

/* Bytes per second written as chunk-byte WRITEs, in WRITEs per second; NAN unknown. */
static double msg_rate(double bytes_per_s, uint64_t chunk)
{
	return chunk && isfinite(bytes_per_s) ? bytes_per_s / (double)chunk : NAN;
}

/* bytes over seconds; NAN for no window. */
static double rate_of(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes / seconds : NAN;
}

/*
 * The message rate of a row written as chunk-byte WRITEs: JSON writes_per_s,
 * text M WRITEs/s in textfmt (as ib_write_bw's Mpps, 6 decimals); chunk 0
 * (the sink's own drives, read, not written): nothing (the line's end).
 */
void print_msg_rate(struct report *r, double bytes_per_s, uint64_t chunk, const char *textfmt)
{
	double v = msg_rate(bytes_per_s, chunk);

	if (!chunk) {
		report_text(r, "%s", textfmt[strlen(textfmt) - 1] == '\n' ? "\n" : "");
		return;
	}
	report_double(r, "writes_per_s", NULL, v);
	report_double(r, NULL, textfmt, v / 1e6);
}

/* A row "label bytes seconds GB/s M WRITE/s" as JSON object key; chunk 0: no WRITEs. */
void print_bw_row(struct report *r, const char *key, const char *label, uint64_t bytes,
		  double seconds, uint64_t chunk)
{
	report_obj_begin(r, key);
	report_text(r, " %-22s", label);
	report_u64(r, "bytes", " %16llu", bytes);
	report_double(r, "seconds", " %9.2f", seconds);
	report_bw(r, "gb_per_s", " %9.2f", seconds > 0 ? (double)bytes / seconds : 0);
	print_msg_rate(r, rate_of(bytes, seconds), chunk, " %10.6f");
	report_obj_end(r);
}

/* One drive's row (an element of "drives"); prefix: "peer:" before its path, or NULL. */
/* A drive's seconds: min, max, cv and whether its window was unsteady (JSON). */
static void print_drive_shape(struct report *r, const struct window_shape *sh, double max_cv)
{
	char why[160];

	report_double(r, "min_gb_per_s", NULL, sh->min / 1e9);
	report_double(r, "max_gb_per_s", NULL, sh->max / 1e9);
	report_double(r, "median_gb_per_s", NULL, sh->median / 1e9);
	report_double(r, "cv_pct", NULL, sh->cv);
	report_bool(r, "unsteady", NULL, sh->unsteady);
	window_shape_why(sh, max_cv, why, sizeof(why));
	report_str(r, "unsteady_reason", NULL, sh->unsteady ? why : NULL);
}

void print_drive(struct report *r, const struct result_drive *d, const char *side,
		 const char *prefix, double seconds, uint64_t chunk, double max_cv)
{
	char path[PATH_MAX + 80];

	snprintf(path, sizeof(path), "%s%s%s", prefix ? prefix : "", prefix ? ":" : "", d->path);
	report_obj_begin(r, NULL);
	report_str(r, "side", " %-6s", side);
	report_str(r, "path", " %-16s", path);
	report_str(r, "model", NULL, d->model[0] ? d->model : NULL);
	report_i64(r, "numa_node", NULL, d->numa_node);
	report_u64(r, "workers", NULL, d->workers);
	report_u64(r, "bytes", " %16llu", d->bytes);
	report_double(r, "seconds", " %9.2f", seconds);
	report_bw(r, "gb_per_s", " %9.2f", seconds > 0 ? (double)d->bytes / seconds : 0);
	print_msg_rate(r, rate_of(d->bytes, seconds), chunk, " %10.6f\n");
	if (d->has_shape)
		print_drive_shape(r, &d->shape, max_cv);
	if (d->has_health)
		health_watch_json(r, &d->health);
	report_obj_end(r);
}

void print_drive_notes(struct report *r, const struct result_drive *d, int n, double max_cv,
		       const char *source)
{
	char why[160], shown[PATH_MAX], peer[256], name[PATH_MAX + 384];
	int j;

	for (j = 0; j < n; j++) {
		const char *base = strrchr(d[j].path, '/');

		/* A source's drive name and address are its words: printable only, as in the
		 * table. */
		nbw_printable(base ? base + 1 : d[j].path, shown, sizeof(shown));
		if (source)
			nbw_printable(source, peer, sizeof(peer));
		snprintf(name, sizeof(name), "%s%s%s", shown, source ? " of source " : "",
			 source ? peer : "");
		if (d[j].has_shape && d[j].shape.unsteady) {
			window_shape_why(&d[j].shape, max_cv, why, sizeof(why));
			report_text(r, " %s: UNSTEADY window: %s\n", name, why);
		}
		if (d[j].has_health)
			health_watch_text(r, &d[j].health, name, " ");
	}
}

/* The heading of the drives' table. */
void print_drives_head(struct report *r)
{
	report_text(r, " %-6s %-16s %16s %9s %9s %10s\n", "side", "drive", "bytes", "seconds",
		    report_bw_unit(r), "M WRITE/s");
}

const char *verify_off_why(const struct options *o)
{
	if (o->all_sizes && o->chunk % DIGEST_BLOCK)
		return "a message below 4 KiB: verification hashes whole 4 KiB blocks, this "
		       "size is not verified";
	return "--no-verify: the data was not checked";
}

/* The verification line and "verify" (detail may be NULL). */
void print_verify(struct report *r, const struct options *o, enum verdict v, const char *detail)
{
	report_str(r, "verify", NULL, verdict_name(v));
	if (v == VERDICT_OFF)
		report_text(r, " RDMA data verification: %s (%s)\n", verdict_word(v),
			    verify_off_why(o));
	else if (v == VERDICT_PASS || v == VERDICT_FAIL)
		report_text(r, " RDMA data verification: %s (%s%s%s)\n", verdict_word(v),
			    ctrl_verify_name(o->verify), detail ? ", " : "", detail ? detail : "");
	else
		report_text(r, " RDMA data verification: not done (the run failed)\n");
	if (detail)
		report_str(r, "verify_detail", NULL, detail);
	else if (v == VERDICT_OFF)
		report_str(r, "verify_detail", NULL, verify_off_why(o));
}

/*
 * One element of "streams": the local one (peer NULL: its variation) or a
 * source's RDMA (overlap with the sink's window, variation, start offset);
 * with text, also a line of the table.
 */
void print_stream(struct report *r, const char *peer, double overlap, double cv, double offset,
		  bool text)
{
	report_obj_begin(r, NULL);
	if (!peer) {
		report_str(r, "name", text ? " Streams         : %s" : NULL, "local");
		report_double(r, "cv_pct", text ? " cv %.1f%%;" : NULL, cv);
		report_obj_end(r);
		return;
	}
	report_str(r, "name", text ? " %s" : NULL, "rdma");
	report_str(r, "source", text ? " from %s:" : NULL, peer);
	report_double(r, "overlap_pct", text ? " overlap %.1f%%," : NULL, overlap);
	report_double(r, "cv_pct", text ? " cv %.1f%%" : NULL, cv);
	report_double(r, "start_offset_s", text ? " (opened %+.3f s from the sink's)\n" : NULL,
		      offset);
	report_obj_end(r);
}

/* Whether the total may be read as a sum: total_valid, the reason, the table's line. */
void print_sum_rule(struct report *r, const struct options *o, bool valid, const char *why)
{
	report_bool(r, "total_valid", NULL, valid);
	report_str(r, "total_invalid_reason", NULL, valid ? NULL : why);
	if (valid)
		report_text(r,
			    " Total is a sum  : valid: every overlap >= %g%%, every variation <= "
			    "%g%%\n",
			    o->sink.min_overlap, o->sink.max_cv);
	else
		report_text(r, " Total is a sum  : NOT valid: %s\n", why);
}

/* The report's end: the verification line, ok, error (may be "" or NULL) and a rule. */
void print_outcome(struct report *r, const struct options *o, enum verdict v, const char *detail,
		   bool ok, const char *failure)
{
	print_verify(r, o, v, detail);
	report_bool(r, "ok", NULL, ok);
	report_str(r, "error", NULL, failure && failure[0] ? failure : NULL);
	print_rule(r);
}

/* The rails' rows ("rails" in JSON): QPs, bytes, GB/s, % of the slower port's line rate. */
void print_rails(struct report *r, const struct rail *rails, int n, double seconds, uint64_t chunk)
{
	char l[80], m[4 * 64 + 16], safe[4 * 64];
	int i;

	report_text(r, " %-14s    %-14s %4s %16s %9s %10s %9s %10s\n", "rail: local", "remote",
		    "QPs", "bytes", report_bw_unit(r), "M WRITE/s", "line Gb/s", "% of line");
	report_arr_begin(r, "rails");
	for (i = 0; i < n; i++) {
		const struct rail *x = &rails[i];
		double bps = seconds > 0 ? (double)x->bytes / seconds : 0;
		double line = x->line_rate_gbits > 0 ? x->line_rate_gbits / 8 : NAN;

		snprintf(l, sizeof(l), "%s:%u", x->local_dev, x->local_port);
		/* The remote device's name is the peer's word: printable only. */
		snprintf(m, sizeof(m), "%s:%u", nbw_printable(x->remote_dev, safe, sizeof(safe)),
			 x->remote_port);
		report_obj_begin(r, NULL);
		report_str(r, "local_dev", NULL, x->local_dev);
		report_u64(r, "local_port", NULL, x->local_port);
		report_str(r, "remote_dev", NULL, x->remote_dev);
		report_u64(r, "remote_port", NULL, x->remote_port);
		report_text(r, " %-14s -> %-14s", l, m);
		report_u64(r, "qps", " %4llu", x->qps);
		report_u64(r, "bytes", " %16llu", x->bytes);
		report_bw(r, "gb_per_s", " %9.2f", bps);
		print_msg_rate(r, bps, chunk, " %10.6f");
		report_double(r, "line_rate_gb_per_s", NULL, line);
		report_double(r, NULL, " %9.0f", x->line_rate_gbits > 0 ? x->line_rate_gbits : NAN);
		print_line_pct(r, bps / 1e9, line, 10);
		report_text(r, "\n");
		report_obj_end(r);
	}
	report_arr_end(r);
}

/* The local drives' rows. */
void print_locals(struct report *r, const struct result *x)
{
	int j;

	for (j = 0; j < x->nlocal; j++)
		print_drive(r, &x->local[j], "local", NULL, x->lseconds, 0, x->o.sink.max_cv);
}

/* "local (N drives)" and its row. */
void print_local_row(struct report *r, const struct result *x)
{
	char lab[64];

	snprintf(lab, sizeof(lab), "local (%d drive%s)", x->nlocal, x->nlocal == 1 ? "" : "s");
	print_bw_row(r, "local", lab, x->sum.local_bytes, x->lseconds, 0);
}

/*
 * Ideal and % of ideal (validity.c), its line; without an ideal, why not
 * instead of a percentage.
 */
void print_ideal(struct report *r, const struct result *x)
{
	const char *why = x->sum.ideal_why[0] ? x->sum.ideal_why : NULL;
	bool have = isfinite(x->sum.ideal_bps);

	report_bw(r, "ideal_gb_per_s", " ideal                  %36.2f", x->sum.ideal_bps);
	report_double(r, "percent_of_ideal", have ? "   (%.1f%% of ideal)\n" : NULL,
		      x->sum.total_bps / x->sum.ideal_bps * 100);
	report_str(r, "ideal_unknown_reason", have ? NULL : "   (no %% of ideal: %s)\n",
		   have	 ? NULL
		   : why ? why
			 : "not known");
}

/* The heading of the totals' table. */
void print_totals_head(struct report *r)
{
	report_text(r, " %-22s %16s %9s %9s %10s\n", "", "bytes", "seconds", report_bw_unit(r),
		    "M WRITE/s");
}

void print_line_pct(struct report *r, double gb_per_s, double line, int width)
{
	bool over = sweep_above(gb_per_s, line);
	char fmt[16];

	if (over)
		report_text(r, " %*s", width, "above");
	snprintf(fmt, sizeof(fmt), " %%%d.1f", width);
	report_double(r, "percent_of_line_rate", over ? NULL : fmt, sweep_pct_held(gb_per_s, line));
	report_bool(r, "above_line_rate", NULL, over);
}
