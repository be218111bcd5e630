/* SPDX-License-Identifier: MIT */
/*
 * drive.h: what a read target is and where it comes from. NVMe namespaces
 * are discovered under a sysfs root ("/sys" live, a captured tree in tests);
 * any block device or regular file can be described from its path.
 *
 * Targets are only ever opened O_RDONLY|O_DIRECT (drive_open_readonly()).
 */
#ifndef NBW_DRIVE_H
#define NBW_DRIVE_H

#include <limits.h>
#include <stdint.h>

enum drive_kind {
	DRIVE_NVME,  /* an NVMe namespace block device */
	DRIVE_BLOCK, /* another block device (loop, sd, dm, ...) */
	DRIVE_FILE,  /* a regular file */
};

struct drive {
	char path[PATH_MAX]; /* /dev/nvme0n1 or the file given */
	char name[64];	     /* nvme0n1, loop0, or the file's base name */
	enum drive_kind kind;
	char ctrl[32];	    /* NVMe controller (nvme0), "" if none */
	char transport[16]; /* pcie, tcp, rdma, loop, fc; "" if none */
	char model[96];	    /* "" if unknown */
	char firmware[32];
	char bdf[32];	     /* PCI address of the controller, "" if none */
	int numa_node;	     /* -1 if unknown */
	unsigned paths;	     /* NVMe native multipath: controllers reaching it */
	uint32_t lbs;	     /* logical block size: O_DIRECT alignment */
	uint64_t size;	     /* bytes */
	double link_ceiling; /* usable PCIe GB/s of the path, NAN if unknown (target.c) */
};

const char *drive_kind_name(enum drive_kind k);

/*
 * Every NVMe namespace under sysfs_root ("/sys"), each counted once: hidden
 * multipath paths (nvmeXcYnZ) are skipped, the head stands for them. dev_root
 * is prefixed to "/<name>" to form the path ("/dev"). Sorted by name.
 * Returns the count (<= max) or -errno.
 */
int drive_discover_nvme(const char *sysfs_root, const char *dev_root, struct drive *out, int max);

/*
 * Describe a target given by path: a block device (size, logical block size,
 * and NVMe details from sysfs_root when it is a namespace) or a regular file.
 * Returns 0, -ENOENT, -EISDIR (directory), -ENODEV (character device or
 * other special file), or another -errno.
 */
int drive_describe(const char *sysfs_root, const char *path, struct drive *d);

/* open(path, O_RDONLY | O_DIRECT | O_CLOEXEC): the only way a target is opened. */
int drive_open_readonly(const char *path);

#endif
