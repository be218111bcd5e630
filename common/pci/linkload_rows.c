// SPDX-License-Identifier: MIT
/* linkload_rows.c: a device's link under load and its AER counts in a report (linkload.h). */
#include <stdio.h>
#include <string.h>

#include "linkload.h"
#include "nbw.h"
#include "pcilink.h"
#include "report.h"

/* "8 GT/s x4", "down", "unknown"; either half "?" when unknown. */
static const char *link_str(const struct ll_link *l, char *buf, size_t len)
{
	char s[16];

	if (l->width == 0)
		snprintf(buf, len, "down");
	else if (l->speed_gts <= 0 && l->width < 0)
		snprintf(buf, len, "unknown");
	else if (l->width < 0)
		snprintf(buf, len, "%s GT/s x?", pcie_speed_str(l->speed_gts, s, sizeof(s)));
	else
		snprintf(buf, len, "%s GT/s x%d", pcie_speed_str(l->speed_gts, s, sizeof(s)),
			 l->width);
	return buf;
}

/* {"speed_gts":..,"width":..} (null where unknown), t_s too when with_t. */
static void json_link(struct report *r, const char *key, const struct ll_link *l, bool with_t)
{
	report_obj_begin(r, key);
	if (with_t)
		report_double(r, "t_s", NULL, l->t_s);
	if (l->speed_gts > 0)
		report_double(r, "speed_gts", NULL, l->speed_gts);
	else
		report_null(r, "speed_gts", NULL);
	if (l->width >= 0)
		report_i64(r, "width", NULL, l->width);
	else
		report_null(r, "width", NULL);
	report_obj_end(r);
}

static void json_link_under_load(struct report *r, const struct ll_dev *d)
{
	int i, n = d->nchanges < LL_MAX_CHANGES ? d->nchanges : LL_MAX_CHANGES;

	report_obj_begin(r, "link_under_load");
	if (d->has_before)
		json_link(r, "before", &d->before, false);
	else
		report_null(r, "before", NULL);
	if (d->min.speed_gts > 0 || d->min.width >= 0)
		json_link(r, "min", &d->min, false);
	else
		report_null(r, "min", NULL);
	if (d->has_after)
		json_link(r, "after", &d->after, false);
	else
		report_null(r, "after", NULL);
	report_arr_begin(r, "changes");
	for (i = 0; i < n; i++)
		json_link(r, NULL, &d->change[i], true);
	report_arr_end(r);
	report_u64(r, "changes_seen", NULL, (uint64_t)d->nchanges);
	report_bool(r, "dropped", NULL, linkload_dropped(d));
	report_u64(r, "samples", NULL, (uint64_t)d->samples);
	report_u64(r, "samples_skipped", NULL, (uint64_t)d->skipped);
	report_obj_end(r);
}

static void json_aer(struct report *r, const struct ll_dev *d)
{
	int k;

	report_obj_begin(r, "aer");
	for (k = 0; k < LL_AER_KINDS; k++) {
		const struct ll_aer *a = &d->aer[k];

		if (!a->kept_before || !a->kept_after) {
			report_str(r, linkload_aer_name(k), NULL, "not kept");
			continue;
		}
		report_obj_begin(r, linkload_aer_name(k));
		report_u64(r, "before", NULL, a->before);
		report_u64(r, "after", NULL, a->after);
		if (a->after >= a->before) /* lower: the count was reset, no delta */
			report_u64(r, "delta", NULL, a->after - a->before);
		else
			report_null(r, "delta", NULL);
		report_obj_end(r);
	}
	report_obj_end(r);
}

void linkload_json_dev(struct report *r, const struct ll_dev *d)
{
	if (!d) {
		report_null(r, "link_under_load", NULL);
		report_null(r, "aer", NULL);
		return;
	}
	json_link_under_load(r, d);
	json_aer(r, d);
}

/* "link dropped under load: 8 GT/s x4 at the opening, 2.5 GT/s x4 at 2.0 s, ... at the close" */
static void text_drop(struct report *r, const struct ll_dev *d, const char *indent)
{
	const struct ll_link *f = linkload_first_drop(d);
	char a[32], b[32], c[32], name[4 * sizeof(d->name)];

	/* A device's name is a sysfs entry's: printable only, as every line prints it. */
	report_text(r, "%s%s (%s): link dropped under load: %s at the opening", indent,
		    nbw_printable(d->name, name, sizeof(name)), d->bdf,
		    link_str(&d->before, a, sizeof(a)));
	if (f)
		report_text(r, ", %s at %.1f s", link_str(f, b, sizeof(b)), f->t_s);
	else
		report_text(r, ", lowest %s", link_str(&d->min, b, sizeof(b)));
	if (d->has_after)
		report_text(r, ", %s at the close", link_str(&d->after, c, sizeof(c)));
	report_text(r, " (%d change%s)\n", d->nchanges, d->nchanges == 1 ? "" : "s");
}

/* "AER correctable +5 (0 -> 5), nonfatal 0, fatal not kept" */
static void text_aer(struct report *r, const struct ll_dev *d, const char *indent)
{
	char name[4 * sizeof(d->name)];
	int k;

	report_text(r, "%s%s (%s): AER", indent, nbw_printable(d->name, name, sizeof(name)),
		    d->bdf);
	for (k = 0; k < LL_AER_KINDS; k++) {
		const struct ll_aer *a = &d->aer[k];

		if (!a->kept_before || !a->kept_after)
			report_text(r, "%s %s not kept", k ? "," : "", linkload_aer_name(k));
		else if (a->after == a->before)
			report_text(r, "%s %s 0", k ? "," : "", linkload_aer_name(k));
		else
			report_text(r, "%s %s %s%llu (%llu -> %llu)", k ? "," : "",
				    linkload_aer_name(k), a->after > a->before ? "+" : "reset ",
				    (unsigned long long)(a->after > a->before ? a->after - a->before
									      : a->after),
				    (unsigned long long)a->before, (unsigned long long)a->after);
	}
	report_text(r, " in the window\n");
}

int linkload_text_dev(struct report *r, const struct ll_dev *d, const char *indent)
{
	int n = 0;

	if (!d)
		return 0;
	if (linkload_dropped(d)) {
		text_drop(r, d, indent);
		n++;
	}
	if (linkload_aer_moved(d)) {
		text_aer(r, d, indent);
		n++;
	}
	return n;
}

void linkload_print(struct report *r, const struct linkload *ll)
{
	int i, moved = 0;

	if (!ll || !ll->n || !ll->opened)
		return;
	report_text(r,
		    " PCIe under load : %d device%s%s, links read at the window's opening, every "
		    "second and its close; AER before and after\n",
		    ll->n, ll->n == 1 ? "" : "s", ll->truncated ? " (more not watched)" : "");
	report_arr_begin(r, "pcie_under_load");
	for (i = 0; i < ll->n; i++) {
		const struct ll_dev *d = &ll->d[i];

		report_obj_begin(r, NULL);
		report_str(r, "name", NULL, d->name);
		report_str(r, "kind", NULL, d->kind);
		report_str(r, "pci_address", NULL, d->bdf);
		linkload_json_dev(r, d);
		report_obj_end(r);
		moved += linkload_text_dev(r, d, "   ");
	}
	report_arr_end(r);
	if (!moved)
		report_text(r, "   no link dropped, no AER count moved\n");
}
