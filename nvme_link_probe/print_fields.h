/* SPDX-License-Identifier: MIT */
/*
 * print_fields.h: the JSON fields every printer of nvme_link_probe writes the
 * same way (print.c, print_site.c, print_topo.c).
 */
#ifndef NBW_PRINT_FIELDS_H
#define NBW_PRINT_FIELDS_H

#include "report.h"

/* A speed in GT/s, null when unknown; a string, null when empty (every printer's own). */
static inline void print_speed(struct report *r, const char *key, double gts)
{
	if (gts > 0)
		report_double(r, key, NULL, gts);
	else
		report_null(r, key, NULL);
}

static inline void print_opt_str(struct report *r, const char *key, const char *s)
{
	report_str(r, key, NULL, s && s[0] ? s : NULL);
}

#endif
