/* SPDX-License-Identifier: MIT */
/*
 * counters.h: an RDMA port's counters as the kernel shows them in sysfs
 * (counters.c), read before and after a window, and their deltas:
 *
 *   class/infiniband/DEV/ports/N/counters/NAME  the port's (the IB PMA's:
 *       port_xmit_data and port_rcv_data count 4-byte words, as the
 *       InfiniBand specification says; packets, xmit waits, errors)
 *   class/infiniband/DEV/ports/N/hw_counters/NAME  the driver's for the port
 *   class/infiniband/DEV/hw_counters/NAME  the driver's for the device
 *       (mlx5: out_of_sequence, np_cnp_sent, ...; Soft-RoCE: rcvd_pkts,
 *       retry_exceeded_err, ...; whatever the device exposes)
 *
 * Every read is bounded: at most CTR_MAX counters of one port, each file
 * read non-blocking and bounded in size (sysfs.h), and the whole read of one
 * port stops after CTR_READ_MS (a firmware-backed counter can be slow). A
 * counter the device does not expose, or that cannot be read, is "not kept":
 * it has no value, never a 0.
 */
#ifndef NBW_COUNTERS_H
#define NBW_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#define CTR_MAX 128	/* counters kept of one port (the rest: truncated) */
#define CTR_NAME_LEN 48 /* a counter's file name, longer ones are skipped */
#define CTR_READ_MS 500 /* time for reading one port's counters */

/* Where a counter lives. */
enum ctr_kind {
	CTR_PORT = 0, /* ports/N/counters: the port's (PMA) */
	CTR_HW = 1,   /* ports/N/hw_counters, else DEV/hw_counters: the driver's */
};

struct ctr_value {
	char name[CTR_NAME_LEN];
	uint8_t kind; /* enum ctr_kind */
	uint64_t v;
};

/* One port's counters at one moment. */
struct ctr_set {
	int n;
	bool truncated; /* more than CTR_MAX, or CTR_READ_MS passed: the rest not read */
	struct ctr_value c[CTR_MAX];
};

/*
 * The counters of dev's port under sysfs_root (NULL: "/sys") into *s. 0,
 * or -ENOENT when the device has no counter directory at all (s->n = 0).
 */
int ctr_read(const char *sysfs_root, const char *dev, unsigned port, struct ctr_set *s);

/* The value of name (kind) in s into *v; false when s does not keep it. */
bool ctr_get(const struct ctr_set *s, const char *name, enum ctr_kind kind, uint64_t *v);

/* How one counter moved over a window. */
struct ctr_delta {
	char name[CTR_NAME_LEN];
	uint8_t kind;	/* enum ctr_kind */
	bool kept;	/* read before and after, and the change is known: d holds it */
	bool saturated; /* it stopped at its width's top (the PMA's do): d is a floor */
	bool wrapped;	/* it went past its width's top and started again */
	uint64_t d;
};

#define CTR_DELTA_MAX (CTR_MAX + 24)

/* One port's deltas over a window: those read, and the well-known ones it does not keep. */
struct ctr_deltas {
	char dev[64];
	uint8_t port;
	double seconds; /* between the two reads */
	bool truncated;
	int n;
	struct ctr_delta c[CTR_DELTA_MAX];
};

/*
 * One counter's change from b to a. PMA counters of a known width (the
 * error counters: 4, 8, 16 bits; the data and packet counters: 32 bits, or
 * 64 in their extended form) stop at their top: a value at the top is
 * "saturated", one lower than before was reset (not kept). Any other
 * counter that went down wrapped at 32 bits if it was below 2^32, else at
 * 64; a "wrap" that would have moved it more than half its width was a
 * reset (not kept).
 */
void ctr_change(const char *name, enum ctr_kind kind, uint64_t b, uint64_t a, struct ctr_delta *d);

/*
 * The deltas from before to after (the same port): every counter of
 * either, and the well-known ones neither keeps, as not kept.
 */
void ctr_deltas(const struct ctr_set *before, const struct ctr_set *after, struct ctr_deltas *out);

/* The delta of name (kind) in ds; NULL when ds has no such counter. */
const struct ctr_delta *ctr_find(const struct ctr_deltas *ds, const char *name, enum ctr_kind kind);

/*
 * Bytes the port received over the window, headers included
 * (port_rcv_data x 4): false when it keeps no such count or its count is a
 * floor only (saturated).
 */
bool ctr_rcv_bytes(const struct ctr_deltas *ds, uint64_t *bytes);

/*
 * Bytes of payload the port can have received over the window, at most:
 * the packets its driver counted (Soft-RoCE's rcvd_pkts, every packet in,
 * acknowledgements included) x mtu_bytes, as no packet carries more payload
 * than the port's MTU. False when it keeps no such count, the count wrapped
 * (it may have gone round more than once) or the product overflows.
 */
bool ctr_rcv_pkts_bound(const struct ctr_deltas *ds, uint32_t mtu_bytes, uint64_t *bytes);

/*
 * Packets the port received over the window: the PMA's port_rcv_packets,
 * else its driver's (Soft-RoCE's rcvd_pkts). False when it keeps neither,
 * or its count is a floor only (saturated, wrapped).
 */
bool ctr_rcv_pkts(const struct ctr_deltas *ds, uint64_t *pkts);

/* "counters" or "hw_counters": the JSON object of a kind. */
const char *ctr_kind_name(enum ctr_kind kind);

#endif
