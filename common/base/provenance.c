// SPDX-License-Identifier: MIT
/*
 * provenance.c: the block that says where and when a document was made (see
 * provenance.h): host, run id, command line, kernel, suite version and build,
 * the measured window's UTC span, and the drives' and RDMA ports' identity
 * read from sysfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "nbw.h"
#include "provenance.h"
#include "sysfs.h"
#include "timing.h"

#ifndef NBW_BUILD
#define NBW_BUILD PACKAGE_VERSION
#endif

/* ---- the pure parts ----------------------------------------------------------------- */

static bool safe_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("_./=:,+@%-", c);
}

/* One word, quoted where it must be, into out (room bytes); its length, or 0 if it did not fit. */
static size_t quote_word(const char *w, char *out, size_t room)
{
	size_t n = 0;
	const char *s;
	bool plain = *w != '\0';

	for (s = w; *s && plain; s++)
		plain = safe_char((unsigned char)*s);
	if (plain) {
		n = strlen(w);
		if (n >= room)
			return 0;
		memcpy(out, w, n + 1);
		return n;
	}
	if (room < 3)
		return 0;
	out[n++] = '\'';
	for (s = w; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t k = piece ? 4 : 1;

		if (n + k + 2 > room)
			return 0;
		if (piece)
			memcpy(out + n, piece, k);
		else
			out[n] = *s;
		n += k;
	}
	out[n++] = '\'';
	out[n] = '\0';
	return n;
}

bool prov_quote_args(char *buf, size_t len, int argc, char *const argv[])
{
	static const char cut[] = " ...";
	size_t n = 0;
	int i;

	if (!len)
		return false;
	buf[0] = '\0';
	for (i = 0; i < argc; i++) {
		size_t sep = i ? 1 : 0, room = len - n, w;

		/* keep room for the cut mark after this word */
		if (room <= sep + sizeof(cut))
			break;
		w = quote_word(argv[i], buf + n + sep, room - sep - (sizeof(cut) - 1));
		if (!w)
			break;
		if (sep)
			buf[n] = ' ';
		n += sep + w;
	}
	if (i == argc)
		return true;
	if (n + sizeof(cut) <= len)
		memcpy(buf + n, cut, sizeof(cut));
	else
		buf[n] = '\0';
	return false;
}

const char *prov_iso8601(double t, char *buf, size_t len)
{
	struct tm tm;
	time_t secs;
	long ms;

	if (len)
		buf[0] = '\0';
	/* 0001 .. 9999: what four digits of a year say */
	if (!isfinite(t) || t < -62135596800.0 || t >= 253402300800.0)
		return buf;
	secs = (time_t)floor(t);
	ms = (long)floor((t - (double)secs) * 1000.0);
	if (ms > 999)
		ms = 999;
	if (!gmtime_r(&secs, &tm))
		return buf;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
	return buf;
}

double prov_wall_of(uint64_t mono_ns, uint64_t now_mono_ns, double now_wall)
{
	if (mono_ns <= now_mono_ns)
		return now_wall - (double)(now_mono_ns - mono_ns) / 1e9;
	return now_wall + (double)(mono_ns - now_mono_ns) / 1e9;
}

void prov_uuid_format(const uint8_t b[16], char *buf)
{
	uint8_t v[16];
	int i, n = 0;

	memcpy(v, b, sizeof(v));
	v[6] = (uint8_t)((v[6] & 0x0f) | 0x40); /* version 4 */
	v[8] = (uint8_t)((v[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[n++] = '-';
		n += sprintf(buf + n, "%02x", v[i]);
	}
	buf[n] = '\0';
}

/* ---- this process ------------------------------------------------------------------- */

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A new run id; "" when neither getrandom() nor /dev/urandom answers. */
static void new_run_id(char *buf)
{
	uint8_t b[16];
	ssize_t n = getrandom(b, sizeof(b), GRND_NONBLOCK);

	if (n != (ssize_t)sizeof(b)) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		n = fd >= 0 ? read(fd, b, sizeof(b)) : -1;
		if (fd >= 0)
			close(fd);
	}
	if (n != (ssize_t)sizeof(b)) {
		buf[0] = '\0';
		return;
	}
	prov_uuid_format(b, buf);
}

void prov_init(struct provenance *p, int argc, char *const argv[])
{
	struct utsname u;

	memset(p, 0, sizeof(*p));
	if (gethostname(p->host, sizeof(p->host) - 1))
		p->host[0] = '\0';
	if (!uname(&u))
		snprintf(p->kernel, sizeof(p->kernel), "%s", u.release);
	p->command_complete = prov_quote_args(p->command, sizeof(p->command), argc, argv);
	new_run_id(p->run_id);
	p->began = wall_now();
	p->start = NAN;
	p->end = NAN;
}

void prov_span(struct provenance *p, uint64_t open_ns, uint64_t close_ns)
{
	uint64_t now = nbw_now_ns();
	double wall = wall_now(), a, b;

	if (!p || !open_ns || close_ns < open_ns)
		return;
	a = prov_wall_of(open_ns, now, wall);
	b = prov_wall_of(close_ns, now, wall);
	if (isnan(p->start) || a < p->start)
		p->start = a;
	if (isnan(p->end) || b > p->end)
		p->end = b;
}

/* <dir>/<attr> into out, or "not readable". */
static void read_or_say(const char *dir, const char *attr, char *out, size_t len)
{
	if (sysfs_read_attr(dir, attr, out, len))
		snprintf(out, len, "%s", PROV_NOT_READABLE);
}

/* The entry of path (or controller when path is ""), a new one when none: NULL when full. */
static struct prov_drive *drive_slot(struct provenance *p, const char *path, const char *ctrl)
{
	struct prov_drive *d;
	int i;

	for (i = 0; i < p->ndrives; i++) {
		d = &p->drives[i];
		if (path[0] ? !strcmp(d->path, path) : !d->path[0] && !strcmp(d->controller, ctrl))
			return NULL;
	}
	if (p->ndrives == PROV_MAX_DRIVES)
		return NULL;
	d = &p->drives[p->ndrives++];
	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(d->controller, sizeof(d->controller), "%s", ctrl);
	return d;
}

/* Already there (0) or no room (-ENOSPC). */
static int drive_full(const struct provenance *p)
{
	return p->ndrives == PROV_MAX_DRIVES ? -ENOSPC : 0;
}

int prov_add_nvme(struct provenance *p, const char *sysfs_root, const char *path, const char *ctrl)
{
	struct prov_drive *d = p ? drive_slot(p, path ? path : "", ctrl ? ctrl : "") : NULL;
	char dir[512];

	if (!p)
		return 0;
	if (!d)
		return drive_full(p);
	snprintf(d->kind, sizeof(d->kind), "nvme");
	if (!ctrl || !ctrl[0]) {
		snprintf(d->model, sizeof(d->model), "%s", PROV_NOT_READABLE);
		snprintf(d->serial, sizeof(d->serial), "%s", PROV_NOT_READABLE);
		snprintf(d->firmware, sizeof(d->firmware), "%s", PROV_NOT_READABLE);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/class/nvme/%s", sysfs_root ? sysfs_root : "/sys", ctrl);
	read_or_say(dir, "model", d->model, sizeof(d->model));
	read_or_say(dir, "serial", d->serial, sizeof(d->serial));
	read_or_say(dir, "firmware_rev", d->firmware, sizeof(d->firmware));
	return 0;
}

int prov_add_target(struct provenance *p, const char *path, const char *kind)
{
	struct prov_drive *d = p ? drive_slot(p, path, "") : NULL;

	if (!p)
		return 0;
	if (!d)
		return drive_full(p);
	snprintf(d->kind, sizeof(d->kind), "%s", kind);
	return 0;
}

int prov_add_rdma(struct provenance *p, const char *sysfs_root, const char *dev, unsigned port)
{
	struct prov_port *o;
	char dir[512];
	int i;

	if (!p)
		return 0;
	for (i = 0; i < p->nports; i++)
		if (!strcmp(p->ports[i].device, dev) && p->ports[i].port == port)
			return 0;
	if (p->nports == PROV_MAX_PORTS)
		return -ENOSPC;
	o = &p->ports[p->nports++];
	memset(o, 0, sizeof(*o));
	snprintf(o->device, sizeof(o->device), "%s", dev);
	o->port = port;
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s", sysfs_root ? sysfs_root : "/sys", dev);
	read_or_say(dir, "fw_ver", o->firmware, sizeof(o->firmware));
	read_or_say(dir, "board_id", o->board_id, sizeof(o->board_id));
	return 0;
}

/* ---- printing ------------------------------------------------------------------------ */

static void report_time(struct report *r, const char *key, const char *unix_key, double t)
{
	char iso[40];

	report_str(r, key, NULL, prov_iso8601(t, iso, sizeof(iso))[0] ? iso : NULL);
	report_fixed(r, unix_key, NULL, t, 3);
}

/* "" as JSON null. */
static void report_text_or_null(struct report *r, const char *key, const char *v)
{
	report_str(r, key, NULL, v[0] ? v : NULL);
}

static void report_drives(struct report *r, const struct provenance *p)
{
	int i;

	report_arr_begin(r, "drives");
	for (i = 0; i < p->ndrives; i++) {
		const struct prov_drive *d = &p->drives[i];

		report_obj_begin(r, NULL);
		report_text_or_null(r, "path", d->path);
		report_text_or_null(r, "controller", d->controller);
		report_str(r, "kind", NULL, d->kind);
		report_text_or_null(r, "model", d->model);
		report_text_or_null(r, "serial", d->serial);
		report_text_or_null(r, "firmware", d->firmware);
		report_obj_end(r);
	}
	report_arr_end(r);
}

static void report_ports(struct report *r, const struct provenance *p)
{
	int i;

	report_arr_begin(r, "rdma_ports");
	for (i = 0; i < p->nports; i++) {
		const struct prov_port *o = &p->ports[i];

		report_obj_begin(r, NULL);
		report_str(r, "device", NULL, o->device);
		if (o->port)
			report_u64(r, "port", NULL, o->port);
		else
			report_null(r, "port", NULL);
		report_str(r, "firmware", NULL, o->firmware);
		report_str(r, "board_id", NULL, o->board_id);
		report_obj_end(r);
	}
	report_arr_end(r);
}

void prov_report(struct report *r, const struct provenance *p)
{
	bool measured;

	if (!p || !r->json)
		return;
	measured = !isnan(p->start);
	report_obj_begin(r, "provenance");
	report_u64(r, "format", NULL, PROV_FORMAT);
	report_text_or_null(r, "run_id", p->run_id);
	report_text_or_null(r, "host", p->host);
	report_text_or_null(r, "kernel", p->kernel);
	report_str(r, "command", NULL, p->command);
	report_bool(r, "command_complete", NULL, p->command_complete);
	report_str(r, "suite_version", NULL, PACKAGE_VERSION);
	report_str(r, "suite_build", NULL, NBW_BUILD);
	report_bool(r, "window_measured", NULL, measured);
	report_time(r, "start", "start_unix_s", measured ? p->start : p->began);
	report_time(r, "end", "end_unix_s", measured ? p->end : wall_now());
	report_drives(r, p);
	report_ports(r, p);
	report_obj_end(r);
}

void prov_text_line(struct report *r, const struct provenance *p)
{
	char iso[40], host[sizeof(p->host) * 4], kernel[sizeof(p->kernel) * 4];

	if (!p || r->json)
		return;
	prov_iso8601(p->began, iso, sizeof(iso));
	/* the seconds are enough for a person: drop ".mmm" */
	if (strlen(iso) == 24)
		memcpy(iso + 19, "Z", 2);
	report_text(r, " Host/date/kernel: %s  %s  %s\n",
		    p->host[0] ? nbw_printable(p->host, host, sizeof(host)) : "-",
		    iso[0] ? iso : "-",
		    p->kernel[0] ? nbw_printable(p->kernel, kernel, sizeof(kernel)) : "-");
}
