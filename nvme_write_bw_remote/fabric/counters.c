// SPDX-License-Identifier: MIT
/* counters.c: an RDMA port's sysfs counters, read bounded, and their deltas (see counters.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "sysfs.h"
#include "timing.h"

/* A counter file's text: a decimal number, at most 20 digits. */
#define CTR_TEXT_LEN 32

/*
 * The port counters of the InfiniBand PMA whose width is known: they stop at
 * their top instead of wrapping. The data and packet counters are 32 bits
 * in PortCounters and 64 in PortCountersExtended (which the kernel shows
 * where the device has it); at 2^32 - 1 they are taken as stopped.
 */
static const struct {
	const char *name;
	uint8_t bits;
} pma_widths[] = {
	{"symbol_error", 16},
	{"link_error_recovery", 8},
	{"link_downed", 8},
	{"port_rcv_errors", 16},
	{"port_rcv_remote_physical_errors", 16},
	{"port_rcv_switch_relay_errors", 16},
	{"port_xmit_discards", 16},
	{"port_xmit_constraint_errors", 8},
	{"port_rcv_constraint_errors", 8},
	{"local_link_integrity_errors", 4},
	{"excessive_buffer_overrun_errors", 4},
	{"VL15_dropped", 16},
	{"port_xmit_wait", 32},
	{"port_xmit_data", 32},
	{"port_rcv_data", 32},
	{"port_xmit_packets", 32},
	{"port_rcv_packets", 32},
};

/*
 * The counters every report names, kept or not: the port's data, packets,
 * waits and link errors, and the driver's retransmission, ordering and
 * congestion counters as mlx5 calls them (a device without one says "not
 * kept"; Soft-RoCE's own names are reported as it shows them).
 */
static const struct {
	const char *name;
	enum ctr_kind kind;
} well_known[] = {
	{"port_xmit_data", CTR_PORT},	   {"port_rcv_data", CTR_PORT},
	{"port_xmit_packets", CTR_PORT},   {"port_rcv_packets", CTR_PORT},
	{"port_xmit_wait", CTR_PORT},	   {"symbol_error", CTR_PORT},
	{"link_error_recovery", CTR_PORT}, {"link_downed", CTR_PORT},
	{"port_rcv_errors", CTR_PORT},	   {"out_of_sequence", CTR_HW},
	{"out_of_buffer", CTR_HW},	   {"packet_seq_err", CTR_HW},
	{"local_ack_timeout_err", CTR_HW}, {"rnr_nak_retry_err", CTR_HW},
	{"roce_adp_retrans", CTR_HW},	   {"np_cnp_sent", CTR_HW},
	{"rp_cnp_handled", CTR_HW},	   {"np_ecn_marked_roce_packets", CTR_HW},
};

const char *ctr_kind_name(enum ctr_kind kind)
{
	return kind == CTR_PORT ? "counters" : "hw_counters";
}

/* A counter file's text as a number; false when it is not one. */
static bool parse_value(const char *text, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return false;
	errno = 0;
	x = strtoull(text, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* A counter's name as the kernel writes them: letters, digits, '_', '-' and '.' only. */
static bool plain_name(const char *name)
{
	const char *c;

	for (c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.')
			return false;
	return c != name;
}

static bool have(const struct ctr_set *s, const char *name, enum ctr_kind kind)
{
	uint64_t v;

	return ctr_get(s, name, kind, &v);
}

/*
 * The numbers in directory dir (kind) into s, those not in it yet; stops at
 * CTR_MAX counters or at the deadline. false when dir cannot be opened.
 */
static bool read_dir(const char *dir, enum ctr_kind kind, struct ctr_set *s, uint64_t deadline)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		char text[CTR_TEXT_LEN];
		struct ctr_value *c;
		uint64_t v;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= CTR_NAME_LEN ||
		    !plain_name(e->d_name) || /* printed as it is: no control or odd characters */
		    !strcmp(e->d_name, "lifespan")) /* hw_counters' refresh period, not a count */
			continue;
		if (s->n >= CTR_MAX || nbw_now_ns() > deadline) {
			s->truncated = true;
			break;
		}
		if (sysfs_read_attr(dir, e->d_name, text, sizeof(text)) || !parse_value(text, &v) ||
		    have(s, e->d_name, kind))
			continue; /* not a counter, or one that cannot be read: not kept */
		c = &s->c[s->n++];
		snprintf(c->name, sizeof(c->name), "%s", e->d_name);
		c->kind = (uint8_t)kind;
		c->v = v;
	}
	closedir(d);
	return true;
}

static int value_order(const void *a, const void *b)
{
	const struct ctr_value *x = a, *y = b;

	return x->kind != y->kind ? (int)x->kind - (int)y->kind : strcmp(x->name, y->name);
}

int ctr_read(const char *sysfs_root, const char *dev, unsigned port, struct ctr_set *s)
{
	uint64_t deadline = nbw_now_ns() + CTR_READ_MS * 1000000ULL;
	const char *root = sysfs_root ? sysfs_root : "/sys";
	char dir[PATH_MAX];
	bool any;

	s->n = 0;
	s->truncated = false;
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%u/counters", root, dev, port);
	any = read_dir(dir, CTR_PORT, s, deadline);
	/* The port's own driver counters first; the device's fill in what it lacks. */
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%u/hw_counters", root, dev, port);
	any = read_dir(dir, CTR_HW, s, deadline) || any;
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/hw_counters", root, dev);
	any = read_dir(dir, CTR_HW, s, deadline) || any;
	qsort(s->c, (size_t)s->n, sizeof(s->c[0]), value_order);
	return any ? 0 : -ENOENT;
}

bool ctr_get(const struct ctr_set *s, const char *name, enum ctr_kind kind, uint64_t *v)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->c[i].kind == kind && !strcmp(s->c[i].name, name)) {
			*v = s->c[i].v;
			return true;
		}
	return false;
}

/* The PMA width of a port counter; 0 when it has none known. */
static unsigned pma_bits(const char *name, enum ctr_kind kind)
{
	size_t i;

	for (i = 0; kind == CTR_PORT && i < sizeof(pma_widths) / sizeof(pma_widths[0]); i++)
		if (!strcmp(pma_widths[i].name, name))
			return pma_widths[i].bits;
	return 0;
}

void ctr_change(const char *name, enum ctr_kind kind, uint64_t b, uint64_t a, struct ctr_delta *d)
{
	unsigned bits = pma_bits(name, kind);

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->kind = (uint8_t)kind;
	if (a >= b) {
		d->kept = true;
		d->d = a - b;
		/* A PMA counter at its top stopped there: what it shows is a floor. */
		d->saturated = bits && bits < 64 && a == (1ULL << bits) - 1 && a != 0;
		return;
	}
	if (bits && b <= UINT32_MAX)
		return; /* a PMA counter never wraps: it was reset */
	bits = b <= UINT32_MAX ? 32 : 64;
	d->d = bits == 64 ? a - b : (uint64_t)(((1ULL << 32) - b) + a);
	/* Past the top and round again by more than half the range: a reset, not a wrap. */
	if (d->d > (bits == 64 ? 1ULL << 63 : 1ULL << 31))
		return;
	d->kept = true;
	d->wrapped = true;
}

/* Room for one more delta in out; NULL when it is full. */
static struct ctr_delta *next_delta(struct ctr_deltas *out)
{
	if (out->n >= CTR_DELTA_MAX) {
		out->truncated = true;
		return NULL;
	}
	return &out->c[out->n++];
}

static int delta_order(const void *a, const void *b)
{
	const struct ctr_delta *x = a, *y = b;

	return x->kind != y->kind ? (int)x->kind - (int)y->kind : strcmp(x->name, y->name);
}

void ctr_deltas(const struct ctr_set *before, const struct ctr_set *after, struct ctr_deltas *out)
{
	size_t k;
	int i;

	out->n = 0;
	out->truncated = before->truncated || after->truncated;
	for (i = 0; i < after->n; i++) {
		const struct ctr_value *c = &after->c[i];
		struct ctr_delta *d = next_delta(out);
		uint64_t b;

		if (!d)
			break;
		if (ctr_get(before, c->name, c->kind, &b)) {
			ctr_change(c->name, c->kind, b, c->v, d);
		} else {
			memset(d, 0, sizeof(*d)); /* not read before the window: not kept */
			snprintf(d->name, sizeof(d->name), "%s", c->name);
			d->kind = c->kind;
		}
	}
	for (i = 0; i < before->n; i++) /* read before, gone after: not kept */
		if (!ctr_find(out, before->c[i].name, before->c[i].kind)) {
			struct ctr_delta *d = next_delta(out);

			if (!d)
				break;
			memset(d, 0, sizeof(*d));
			snprintf(d->name, sizeof(d->name), "%s", before->c[i].name);
			d->kind = before->c[i].kind;
		}
	for (k = 0; k < sizeof(well_known) / sizeof(well_known[0]); k++)
		if (!ctr_find(out, well_known[k].name, well_known[k].kind)) {
			struct ctr_delta *d = next_delta(out);

			if (!d)
				break;
			memset(d, 0, sizeof(*d));
			snprintf(d->name, sizeof(d->name), "%s", well_known[k].name);
			d->kind = (uint8_t)well_known[k].kind;
		}
	qsort(out->c, (size_t)out->n, sizeof(out->c[0]), delta_order);
}

const struct ctr_delta *ctr_find(const struct ctr_deltas *ds, const char *name, enum ctr_kind kind)
{
	int i;

	for (i = 0; i < ds->n; i++)
		if (ds->c[i].kind == kind && !strcmp(ds->c[i].name, name))
			return &ds->c[i];
	return NULL;
}

bool ctr_rcv_bytes(const struct ctr_deltas *ds, uint64_t *bytes)
{
	const struct ctr_delta *d = ctr_find(ds, "port_rcv_data", CTR_PORT);

	if (!d || !d->kept || d->saturated || d->d > UINT64_MAX / 4)
		return false;
	*bytes = d->d * 4; /* the PMA counts 4-byte words */
	return true;
}

bool ctr_rcv_pkts(const struct ctr_deltas *ds, uint64_t *pkts)
{
	const struct ctr_delta *d = ctr_find(ds, "port_rcv_packets", CTR_PORT);

	if (!d || !d->kept || d->saturated || d->wrapped)
		d = ctr_find(ds, "rcvd_pkts", CTR_HW);
	if (!d || !d->kept || d->saturated || d->wrapped)
		return false;
	*pkts = d->d;
	return true;
}

bool ctr_rcv_pkts_bound(const struct ctr_deltas *ds, uint32_t mtu_bytes, uint64_t *bytes)
{
	const struct ctr_delta *d = ctr_find(ds, "rcvd_pkts", CTR_HW);

	if (!d || !d->kept || d->saturated || d->wrapped || !mtu_bytes ||
	    d->d > UINT64_MAX / mtu_bytes)
		return false;
	*bytes = d->d * mtu_bytes;
	return true;
}
