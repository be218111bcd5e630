// SPDX-License-Identifier: MIT
/*
 * drive.c: NVMe namespace discovery in sysfs and description of read targets.
 * The link ceiling is left NAN here: the target module fills it from the PCI
 * tree it loads once per run.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>

#include "drive.h"
#include "nbw.h"
#include "sysfs.h"

const char *drive_kind_name(enum drive_kind k)
{
	static const char *const names[] = {
		[DRIVE_NVME] = "nvme",
		[DRIVE_BLOCK] = "block",
		[DRIVE_FILE] = "file",
	};

	return nbw_name(names, NBW_ARRAY_SIZE(names), k, "?");
}

/* "nvme0n1": a namespace head or a non-multipath namespace (not nvme0c0n1). */
static int is_nvme_namespace(const char *name)
{
	const char *p = name;

	if (strncmp(p, "nvme", 4))
		return 0;
	p += 4;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != 'n' || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == '\0';
}

/* The controller behind a namespace: its device link, or the first multipath path's. */
static void find_controller(const char *blockdir, struct drive *d)
{
	char mpdir[PATH_MAX], pathdir[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	d->paths = 1;
	snprintf(mpdir, sizeof(mpdir), "%s/multipath", blockdir);
	dir = opendir(mpdir);
	if (dir) {
		d->paths = 0;
		while ((de = readdir(dir))) {
			char ctrl[32];

			if (de->d_name[0] == '.')
				continue;
			snprintf(pathdir, sizeof(pathdir), "%s/%s", mpdir, de->d_name);
			if (sysfs_link_basename(pathdir, "device", ctrl, sizeof(ctrl)))
				continue;
			/* The lowest-numbered controller speaks for the namespace. */
			if (!d->paths++ || strcmp(ctrl, d->ctrl) < 0)
				snprintf(d->ctrl, sizeof(d->ctrl), "%s", ctrl);
		}
		closedir(dir);
		if (d->paths)
			return;
		d->paths = 1;
	}
	if (sysfs_link_basename(blockdir, "device", d->ctrl, sizeof(d->ctrl)) ||
	    strncmp(d->ctrl, "nvme", 4))
		d->ctrl[0] = '\0';
}

/* Model, firmware, transport, PCI address and NUMA node of d->ctrl. */
static void read_controller(const char *sysfs_root, struct drive *d)
{
	char dir[PATH_MAX], devdir[PATH_MAX], buf[32];

	if (!d->ctrl[0])
		return;
	snprintf(dir, sizeof(dir), "%s/class/nvme/%s", sysfs_root, d->ctrl);
	sysfs_read_attr(dir, "model", d->model, sizeof(d->model));
	sysfs_read_attr(dir, "firmware_rev", d->firmware, sizeof(d->firmware));
	sysfs_read_attr(dir, "transport", d->transport, sizeof(d->transport));
	snprintf(devdir, sizeof(devdir), "%s/device", dir);
	if (!strcmp(d->transport, "pcie"))
		sysfs_link_basename(dir, "device", d->bdf, sizeof(d->bdf));
	if (!sysfs_read_attr(devdir, "numa_node", buf, sizeof(buf)) ||
	    !sysfs_read_attr(dir, "numa_node", buf, sizeof(buf)))
		d->numa_node = atoi(buf);
}

/* Size and logical block size from /sys/class/block/<name>. */
static int read_block_geometry(const char *sysfs_root, const char *name, struct drive *d)
{
	char dir[PATH_MAX], buf[32];
	int rc;

	snprintf(dir, sizeof(dir), "%s/class/block/%s", sysfs_root, name);
	rc = sysfs_read_attr(dir, "size", buf, sizeof(buf));
	if (rc)
		return rc;
	d->size = strtoull(buf, NULL, 10) * 512;
	rc = sysfs_read_attr(dir, "queue/logical_block_size", buf, sizeof(buf));
	d->lbs = rc ? 512 : (uint32_t)strtoul(buf, NULL, 10);
	return 0;
}

static void drive_init(struct drive *d)
{
	memset(d, 0, sizeof(*d));
	d->numa_node = -1;
	d->paths = 1;
	d->link_ceiling = NAN;
}

/* NVMe details of block device name (d->name set) under sysfs_root. */
static void describe_nvme(const char *sysfs_root, struct drive *d)
{
	char blockdir[PATH_MAX];

	d->kind = DRIVE_NVME;
	snprintf(blockdir, sizeof(blockdir), "%s/class/block/%s", sysfs_root, d->name);
	find_controller(blockdir, d);
	read_controller(sysfs_root, d);
}

static int cmp_drive(const void *a, const void *b)
{
	const struct drive *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);

	/* nvme2n1 before nvme10n1 */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->name, y->name);
}

int drive_discover_nvme(const char *sysfs_root, const char *dev_root, struct drive *out, int max)
{
	char dirpath[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	snprintf(dirpath, sizeof(dirpath), "%s/class/block", sysfs_root);
	dir = opendir(dirpath);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir)) && n < max) {
		struct drive *d = &out[n];

		if (!is_nvme_namespace(de->d_name))
			continue;
		drive_init(d);
		snprintf(d->name, sizeof(d->name), "%s", de->d_name);
		snprintf(d->path, sizeof(d->path), "%s/%s", dev_root, de->d_name);
		if (read_block_geometry(sysfs_root, d->name, d))
			continue;
		describe_nvme(sysfs_root, d);
		n++;
	}
	closedir(dir);
	qsort(out, (size_t)n, sizeof(*out), cmp_drive);
	return n;
}

/* The sysfs name of a block device number ("nvme0n1", "loop3"). */
static int block_name_of(const char *sysfs_root, dev_t rdev, char *name, size_t len)
{
	char dir[PATH_MAX], num[32];

	snprintf(dir, sizeof(dir), "%s/dev/block", sysfs_root);
	snprintf(num, sizeof(num), "%u:%u", major(rdev), minor(rdev));
	return sysfs_link_basename(dir, num, name, len) ? -ENOENT : 0;
}

int drive_describe(const char *sysfs_root, const char *path, struct drive *d)
{
	struct stat st;
	char tmp[PATH_MAX];
	int fd, rc = 0;

	drive_init(d);
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(d->name, sizeof(d->name), "%s", basename(tmp));
	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISREG(st.st_mode)) {
		d->kind = DRIVE_FILE;
		d->size = (uint64_t)st.st_size;
		/* O_DIRECT on a file system: 4 KiB alignment is safe everywhere. */
		d->lbs = 4096;
		return 0;
	}
	if (!S_ISBLK(st.st_mode))
		return -ENODEV;

	d->kind = DRIVE_BLOCK;
	fd = drive_open_readonly(path);
	if (fd < 0)
		return fd;
	{
		uint64_t size = 0;
		int lbs = 0;

		if (ioctl(fd, BLKGETSIZE64, &size) || ioctl(fd, BLKSSZGET, &lbs))
			rc = -errno;
		d->size = size;
		d->lbs = lbs > 0 ? (uint32_t)lbs : 512;
	}
	close(fd);
	if (rc)
		return rc;
	if (!block_name_of(sysfs_root, st.st_rdev, d->name, sizeof(d->name)) &&
	    is_nvme_namespace(d->name))
		describe_nvme(sysfs_root, d);
	return 0;
}

int drive_open_readonly(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}
