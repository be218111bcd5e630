// SPDX-License-Identifier: MIT
/* pcilink.c: PCIe link decoding and ceilings (placeholder until nvme_link_probe lands). */
#include <math.h>

#include "pcilink.h"

double pcilink_usable_ceiling(const char *sysfs_root, const char *bdf)
{
	(void)sysfs_root;
	(void)bdf;
	return NAN; /* not decoded yet: reported as unknown (null) */
}
