/* SPDX-License-Identifier: MIT */
/*
 * bays.h: slots as a technician sees them (bays.c): the slot each device
 * sits in (number, kernel name, the port above it) and its ceiling, the
 * drives' RDMA locality, naming a slot (--slot, the site specification) and
 * the sort by slot.
 */
#ifndef NBW_BAYS_H
#define NBW_BAYS_H

#include <stdbool.h>
#include <stddef.h>

#include "pcitree.h"
#include "probe.h"

/* Slot, slot ceiling and (RDMA) port state of one judged device. */
void bays_find_slot(const struct pcitree *t, struct probe_dev *p);
/* "slot 33", "slot NAME" or "port BDF" naming where p sits, into buf. */
const char *bays_slot_label(const struct probe_dev *p, char *buf, size_t len);
/* Each drive's count of ACTIVE RDMA ports on its NUMA node (all of d, before selection). */
void bays_rdma_locality(struct probe_dev *d, int n, bool known);
/*
 * True when item is a number some device's slot carries (SltCap): it then
 * names slots by number only; any other item names a kernel slot name.
 */
bool bays_by_number(const struct probe_dev *d, int n, const char *item);
/* True when item names p's slot, by number or by kernel name (bays_by_number()). */
bool bays_slot_matches(const struct probe_dev *p, const char *item, bool by_number);
/* Sort by slot: numbered first, then named only, then none; stable. */
void bays_sort(struct probe_dev *d, int n);

#endif
