/* SPDX-License-Identifier: MIT */
/* spec.h: the site slot specification, --expect-file (spec.c). */
#ifndef NBW_SPEC_H
#define NBW_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "probe.h"

/* Read a site specification; 0, or an exit status after one printed line. */
int spec_load(const char *file, struct site_spec *s);
void spec_free(struct site_spec *s);
/* True when bay b names p: by PCI address, or by slot (bays_slot_matches()). */
bool spec_names(const struct bay_spec *b, const struct probe_dev *p, bool by_number);
/* "slot 33" or "0000:01:00.0": the bay as the site file names it, into buf. */
const char *spec_bay_name(const struct bay_spec *b, char *buf, size_t len);

#endif
