// SPDX-License-Identifier: MIT
/* sysfs.c: bounded, non-blocking reads of sysfs attributes and links (see sysfs.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs.h"

int sysfs_read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	/* Non-blocking: a FIFO in a captured tree must not hang the tool. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

int sysfs_link_basename(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX], *real;
	const char *base;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	base = strrchr(real, '/');
	snprintf(out, len, "%s", base ? base + 1 : real);
	free(real);
	return 0;
}
