/* SPDX-License-Identifier: MIT */
/*
 * sysfs.h: reading sysfs (live under /sys, or a captured tree in tests).
 * Every file here is untrusted input: attributes are opened non-blocking and
 * read only when they are regular files, and reads are bounded.
 */
#ifndef NBW_SYSFS_H
#define NBW_SYSFS_H

#include <stddef.h>

/*
 * Read one attribute dir/attr into buf, trailing whitespace stripped.
 * 0, or -errno (-EINVAL: not a regular file, e.g. a FIFO planted in a tree).
 */
int sysfs_read_attr(const char *dir, const char *attr, char *buf, size_t len);

/* Base name of what dir/name resolves to ("nvme0" for device -> ../../nvme0). 0 or -errno. */
int sysfs_link_basename(const char *dir, const char *name, char *out, size_t len);

#endif
