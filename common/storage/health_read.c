// SPDX-License-Identifier: MIT
/*
 * health_read.c: the one place the suite talks to an NVMe controller: two
 * admin commands that only read (Get Log Page 02h, Identify Controller),
 * through the kernel's passthrough on the controller's character device
 * opened O_RDONLY, as nvme-cli does. No feature is set, nothing is written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/nvme_ioctl.h>

#include "health.h"

#define ADMIN_GET_LOG_PAGE 0x02
#define ADMIN_IDENTIFY 0x06
#define LOG_HEALTH 0x02
#define CNS_CONTROLLER 0x01
#define NSID_ALL 0xffffffffu
#define ADMIN_TIMEOUT_MS 5000

static int admin(int fd, uint8_t opcode, uint32_t nsid, uint32_t cdw10, void *buf, uint32_t len)
{
	struct nvme_admin_cmd cmd;
	int rc;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = opcode;
	cmd.nsid = nsid;
	cmd.addr = (uint64_t)(uintptr_t)buf;
	cmd.data_len = len;
	cmd.cdw10 = cdw10;
	cmd.timeout_ms = ADMIN_TIMEOUT_MS;
	rc = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
	if (rc < 0)
		return -errno;
	/* A positive value is the command's NVMe status: the controller refused it. */
	return rc > 0 ? -EIO : 0;
}

static void reason(char *why, size_t whylen, const char *dev, int err, const char *what)
{
	if (err == -EACCES || err == -EPERM)
		snprintf(why, whylen, "not read: needs CAP_SYS_ADMIN (%s)", dev);
	else if (err == -EIO)
		snprintf(why, whylen, "not read: %s refused the %s", dev, what);
	else if (err == -ENOTTY || err == -EINVAL)
		snprintf(why, whylen, "not read: %s is not an NVMe controller", dev);
	else
		snprintf(why, whylen, "not read: %s: %s", dev, strerror(-err));
}

int health_read(const char *ctrl_dev, struct health_log *log, struct health_limits *lim, char *why,
		size_t whylen)
{
	static __thread uint8_t page[HEALTH_IDCTRL_LEN] __attribute__((aligned(4096)));
	uint32_t dwords = HEALTH_LOG_LEN / 4 - 1;
	int fd, rc;

	fd = open(ctrl_dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		reason(why, whylen, ctrl_dev, rc, "open");
		return rc;
	}
	memset(page, 0, sizeof(page));
	rc = admin(fd, ADMIN_GET_LOG_PAGE, NSID_ALL, LOG_HEALTH | (dwords & 0xffff) << 16, page,
		   HEALTH_LOG_LEN);
	if (rc)
		reason(why, whylen, ctrl_dev, rc, "health log");
	else
		rc = health_parse_log(page, HEALTH_LOG_LEN, log, why, whylen);
	if (!rc && lim) {
		memset(lim, 0, sizeof(*lim));
		memset(page, 0, sizeof(page));
		if (!admin(fd, ADMIN_IDENTIFY, 0, CNS_CONTROLLER, page, HEALTH_IDCTRL_LEN))
			(void)health_parse_limits(page, HEALTH_IDCTRL_LEN, lim, NULL, 0);
	}
	close(fd);
	return rc;
}
