/* SPDX-License-Identifier: MIT */
/*
 * membw.h: the staging memory's bandwidth, measured the way the tools use it
 * (membw.c): every byte of a staging buffer written once (as a drive's DMA
 * writes it) and read once (as the NIC reads it), chunk after chunk, by
 * threads pinned to the buffers' NUMA node, over buffers of the tools' size;
 * and the memory's theoretical figure where sysfs tells it honestly
 * (memceil.c).
 */
#ifndef NBW_MEMBW_H
#define NBW_MEMBW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct membw_params {
	int node;	  /* NUMA node of the threads and buffers, -1: not pinned */
	unsigned threads; /* writer-reader threads, one buffer each */
	size_t chunk;	  /* written then read as one piece (the tools' chunk) */
	size_t buf_bytes; /* per thread: a whole number of chunks */
	bool lock;	  /* mlock the buffers (RLIMIT_MEMLOCK allows it) */
	double warmup_s, duration_s;
};

struct membw_result {
	uint64_t staged_bytes; /* chunks written and read back inside the window */
	double seconds;
	uint64_t open_ns, close_ns; /* the window (CLOCK_MONOTONIC); 0 never opened */
	bool interrupted;	    /* Ctrl-C ended the window early */
};

/*
 * Run the stream (signals already taken by nbw_signals_init()). 0, or
 * -errno with the reason in err (-ENOMEM, -EPERM/-EAGAIN: buffers not
 * locked, -EINVAL: bad parameters, a pinning error).
 */
int membw_run(const struct membw_params *p, struct membw_result *res, char *err, size_t len);

/*
 * Bytes per second through DRAM: each staged byte crosses it twice (written,
 * then read).
 */
double membw_dram_bps(const struct membw_result *res);

/* The theoretical figure of the memory behind a NUMA node, where known. */
struct memceil {
	bool known;
	double bytes_per_s; /* channels x MT/s x bus bytes, when known */
	unsigned channels;  /* populated channels (EDAC's dimm locations) */
	unsigned mts;	    /* the slowest populated DIMM's configured MT/s (SMBIOS) */
	unsigned bus_bits;  /* data width of a DIMM, bits (SMBIOS) */
	unsigned dimms;
	char why[160]; /* where it came from, or why it is unknown */
};

/*
 * The ceiling of node's memory under sysfs_root (NULL: "/sys"), read from
 * EDAC (devices/system/edac/mc: channels with a DIMM) and the SMBIOS memory
 * devices the kernel exposes (firmware/dmi/entries/17-N/raw: configured
 * speed, data width). Known only when every populated DIMM gives its speed
 * and width, the channels are known (EDAC's, else the channels every DIMM's
 * SMBIOS locator names) and the machine has one NUMA node (the controllers'
 * nodes are not in sysfs); never guessed. Always returns with c->why set.
 */
void memceil_read(const char *sysfs_root, int node, int nodes, struct memceil *c);

/*
 * One SMBIOS type 17 structure (the formatted part, len bytes): its
 * configured speed (else its speed) in MT/s and data width in bits; false
 * when it is no installed DIMM or says neither.
 */
bool memceil_smbios17(const uint8_t *raw, size_t len, unsigned *mts, unsigned *bits);

/*
 * The memory channel one SMBIOS type 17 structure (raw, len bytes with its
 * strings) names in its Bank Locator, else its Device Locator: the locator up
 * to and including the word "channel" and the name after it ("P0 CHANNEL A",
 * "P0_Node0_Channel0"), lower case, into out; false when neither names one.
 */
bool memceil_smbios17_channel(const uint8_t *raw, size_t len, char *out, size_t outlen);

#endif
