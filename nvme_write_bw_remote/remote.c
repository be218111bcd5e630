// SPDX-License-Identifier: MIT
/*
 * remote.c: what the sink and the source of nvme_write_bw_remote share: the
 * output pieces of their reports, RDMA port selection and the timeout. It
 * calls only common/, never back into the roles or main.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nbw.h"
#include "parse.h"
#include "remote.h"
#include "timing.h"
#include "window.h"

int remote_timeout_ms(const struct options *o)
{
	return (int)(o->timeout * 1000 + 0.5);
}

uint32_t remote_share(const struct options *o)
{
	if (o->max_per_source)
		return o->max_per_source;
	return o->sources > 1 ? MAX_WORKERS / o->sources : 0;
}

int remote_select_ports(const struct options *o, struct fab_port *ports)
{
	char bad[128];
	int n = fab_ports_select(o->devs, o->gid_index, ports, FAB_MAX_PORTS, bad, sizeof(bad));

	if (n == -ENODEV)
		nbw_err("no RDMA device found (for Soft-RoCE: rdma link add rxe0 type rxe netdev "
			"IFACE)");
	else if (n == -ENOENT)
		nbw_err("%s: no such RDMA device or port", bad);
	else if (n == -ENETDOWN)
		nbw_err("%s: no ACTIVE port", bad);
	else if (n < 0)
		nbw_err("RDMA devices: %s", strerror(-n));
	return n < 0 ? -1 : n;
}

int remote_targets(const struct options *o, const struct target_query *q, struct target *t, int *nt)
{
	struct target_query mine = *q;
	int n;

	mine.sysfs_root = o->cc.sysfs_root;
	mine.list = o->disks;
	n = target_collect(&mine, t);
	if (n < 0)
		return -n;
	*nt = n;
	return target_prepare(t, n, o->chunk, o->span, o->threads);
}

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
		    !o->bind ? " (the RDMA ports' addresses; --bind any for all)" : "");
	report_str(r, "allow", " Allowed sources : %s\n",
		   o->nallow ? o->allow_text : "any address");
	report_bool(r, "psk", NULL, o->key.len > 0);
	report_text(r, " Access          : %s\n",
		    o->key.len ? "pre-shared key (--psk-file): only a source holding it gets in"
			       : "OPEN: no pre-shared key, anyone who reaches the port gets in "
				 "(--psk-file)");
}

void print_params(struct report *r, const struct options *o, const char *role, const char *listen)
{
	char a[32];

	report_str(r, "tool", NULL, "nvme_write_bw_remote");
	report_str(r, "version", NULL, PACKAGE_VERSION);
	report_str(r, "role", NULL, role);
	print_rule(r);
	report_text(r, "          NVMe -> RDMA WRITE -> remote DRAM bandwidth (%s side)\n", role);
	report_text(r, " Tool/version    : nvme_write_bw_remote %s\n", PACKAGE_VERSION);
	report_obj_begin(r, "params");
	report_u64(r, "chunk", NULL, o->chunk);
	report_text(r, " Chunk = message : %-14s", format_size(o->chunk, a, sizeof(a)));
	report_u64(r, "depth", " WRITEs in flight: %llu per worker\n", o->depth);
	report_u64(r, "threads", " Threads/drive   : %-14llu", o->threads);
	report_str(r, "source", " Source          : %s\n",
		   o->source == CTRL_SOURCE_MEM ? "mem" : "disk");
	report_double(r, "warmup_s", NULL, o->cc.warmup);
	report_double(r, "duration_s", NULL, o->cc.duration);
	if (o->cc.interval > 0)
		report_double(r, "interval_s", NULL, o->cc.interval);
	snprintf(a, sizeof(a), "%g s", o->cc.warmup);
	report_text(r, " Warm-up         : %-14s Duration        : %g s\n", a, o->cc.duration);
	report_u64(r, "port", " Port            : %-14llu", o->port);
	report_double(r, "timeout_s", " Timeout         : %g s\n", o->timeout);
	if (!o->peer)
		report_u64(r, "dram", NULL, o->dram);
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

void print_bw_row(struct report *r, const char *key, const char *label, uint64_t bytes,
		  double seconds)
{
	report_obj_begin(r, key);
	report_text(r, " %-22s", label);
	report_u64(r, "bytes", " %16llu", bytes);
	report_double(r, "seconds", " %9.2f", seconds);
	report_bw(r, "gb_per_s", " %9.2f", seconds > 0 ? (double)bytes / seconds : 0);
	report_obj_end(r);
}

void print_drive(struct report *r, const struct drive *d, const char *side, uint64_t bytes,
		 double seconds, unsigned workers)
{
	report_obj_begin(r, NULL);
	report_str(r, "side", " %-6s", side);
	report_str(r, "path", " %-16s", d->path);
	report_str(r, "model", NULL, d->model[0] ? d->model : NULL);
	report_i64(r, "numa_node", NULL, d->numa_node);
	report_u64(r, "workers", NULL, workers);
	report_u64(r, "bytes", " %16llu", bytes);
	report_double(r, "seconds", " %9.2f", seconds);
	report_bw(r, "gb_per_s", " %9.2f\n", seconds > 0 ? (double)bytes / seconds : 0);
	report_obj_end(r);
}

void print_verify(struct report *r, const struct options *o, enum verdict v, const char *detail)
{
	static const char *const names[] = {
		[VERDICT_FAIL] = "fail",
		[VERDICT_PASS] = "pass",
		[VERDICT_OFF] = "off",
		[VERDICT_NONE] = NULL,
	};

	report_str(r, "verify", NULL, names[v]);
	if (v == VERDICT_OFF)
		report_text(
			r,
			" RDMA data verification: OFF (--no-verify: the data was not checked)\n");
	else if (v == VERDICT_PASS || v == VERDICT_FAIL)
		report_text(r, " RDMA data verification: %s (%s%s%s)\n",
			    v == VERDICT_PASS ? "PASS" : "FAIL", ctrl_verify_name(o->verify),
			    detail ? ", " : "", detail ? detail : "");
	else
		report_text(r, " RDMA data verification: not done (the run failed)\n");
	if (detail)
		report_str(r, "verify_detail", NULL, detail);
}

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

bool stream_fault(const struct options *o, const char *peer, double overlap, double offset,
		  double cv, char *why, size_t len)
{
	const char *who = peer ? "RDMA from " : "local drives";

	if (peer && !(overlap >= o->min_overlap))
		snprintf(why, len,
			 "RDMA from %s: its window overlapped the sink's %.2f%% (< %g%%; it opened "
			 "%+.3f s from the sink's)",
			 peer, floor(overlap * 100) / 100, o->min_overlap, offset);
	else if (!(cv <= o->max_cv))
		snprintf(why, len, "%s%s: variation %s%.2f%% (> %g%%)", who, peer ? peer : "",
			 isnan(cv) ? "unknown " : "", isnan(cv) ? 0.0 : ceil(cv * 100) / 100,
			 o->max_cv);
	else
		return false;
	return true;
}

void print_sum_rule(struct report *r, const struct options *o, bool valid, const char *why)
{
	report_bool(r, "total_valid", NULL, valid);
	report_str(r, "total_invalid_reason", NULL, valid ? NULL : why);
	if (valid)
		report_text(r,
			    " Total is a sum  : valid: every overlap >= %g%%, every variation <= "
			    "%g%%\n",
			    o->min_overlap, o->max_cv);
	else
		report_text(r, " Total is a sum  : NOT valid: %s\n", why);
}

void print_outcome(struct report *r, const struct options *o, enum verdict v, const char *detail,
		   bool ok, const char *failure)
{
	print_verify(r, o, v, detail);
	report_bool(r, "ok", NULL, ok);
	report_str(r, "error", NULL, failure && failure[0] ? failure : NULL);
	print_rule(r);
}

double rail_line_rate(const struct fab_port *a, const struct fab_port *b)
{
	if (a->software || b->software || a->rate_gbits <= 0 || b->rate_gbits <= 0)
		return 0;
	return a->rate_gbits < b->rate_gbits ? a->rate_gbits : b->rate_gbits;
}

double window_common_ns(double a_open, double a_close, double b_open, double b_close)
{
	return fmax(0, fmin(a_close, b_close) - fmax(a_open, b_open));
}

double rails_line_gbits(const struct rail *rails, int n)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (rails[i].line_rate_gbits <= 0)
			return 0;
		sum += rails[i].line_rate_gbits;
	}
	return sum;
}

void print_rails(struct report *r, const struct rail *rails, int n, double seconds)
{
	char l[80], m[4 * 64 + 16], safe[4 * 64];
	int i;

	report_text(r, " %-14s    %-14s %4s %16s %9s %9s %10s\n", "rail: local", "remote", "QPs",
		    "bytes", report_bw_unit(r), "line Gb/s", "% of line");
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
		report_double(r, "line_rate_gb_per_s", NULL, line);
		report_double(r, NULL, " %9.0f", x->line_rate_gbits > 0 ? x->line_rate_gbits : NAN);
		report_double(r, "percent_of_line_rate", " %10.1f\n", bps / 1e9 / line * 100);
		report_obj_end(r);
	}
	report_arr_end(r);
}

/* ---- the meeting before the windows (--bidir, --sources) ------------------------ */

void meeting_init(struct meeting *m, unsigned expected)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	m->expected = expected;
	m->arrived = 0;
}

void meeting_destroy(struct meeting *m)
{
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
}

void meeting_arrive(struct meeting *m)
{
	pthread_mutex_lock(&m->lock);
	m->arrived++;
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

bool meeting_await(struct meeting *m, int timeout_ms)
{
	uint64_t deadline = nbw_now_ns() + (uint64_t)timeout_ms * 1000000ULL, t;
	struct timespec ts;
	bool all;

	pthread_mutex_lock(&m->lock);
	while (m->arrived < m->expected && (t = nbw_now_ns()) < deadline && !nbw_interrupted()) {
		t = t + 100000000ULL < deadline ? t + 100000000ULL : deadline; /* 100 ms slices */
		ts = (struct timespec){.tv_sec = (time_t)(t / 1000000000ULL),
				       .tv_nsec = (long)(t % 1000000000ULL)};
		pthread_cond_timedwait(&m->cond, &m->lock, &ts);
	}
	all = m->arrived >= m->expected;
	pthread_mutex_unlock(&m->lock);
	return all;
}
