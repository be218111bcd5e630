/* SPDX-License-Identifier: MIT */
/*
 * pcilink.h: PCIe link decoding and ceilings, shared by nvme_link_probe and
 * the bandwidth tools' "link ceiling" column.
 */
#ifndef NBW_PCILINK_H
#define NBW_PCILINK_H

/*
 * Usable GB/s (10^9 bytes/s) of the narrowest PCIe link between the device
 * at bdf ("0000:01:00.0") and its root port, read under sysfs_root ("/sys");
 * NAN when it cannot be known.
 */
double pcilink_usable_ceiling(const char *sysfs_root, const char *bdf);

#endif
