// SPDX-License-Identifier: MIT
/*
 * attrib_drive.c: the drives' own account in the explanation (attrib_drive.h).
 * The evidence is what the drive counted itself (its health log around the
 * window), the shape of its seconds and its link under load; the words of
 * what moved are the health log's own (health_watch_describe()).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "attrib_drive.h"

static const struct {
	const char *name;
	const char *meaning;
} drive_rules[ADR_N] = {
	[ADR_THROTTLED] = {"throttled", "the drive slowed itself to cool down: the figure is its "
					"thermal limit, not its bandwidth"},
	[ADR_HOT] = {"crossed_warning_temperature", "too hot: airflow, a blocked fan or a hot "
						    "neighbour"},
	[ADR_MEDIA] = {"media_errors", "the drive retried reads it could not get right first: it "
				       "may be failing"},
	[ADR_CRITICAL] = {"critical_warning", "the drive itself says it is in trouble (spare, "
					      "temperature, reliability, read-only)"},
	[ADR_UNSTEADY] = {"unsteady", "the rate collapsed or wandered within the window: one "
				      "figure does not describe it"},
	[ADR_LINK] = {"link_change", "its PCIe link dropped under load or counted AER errors"},
};

/* The median of the drives' bytes (they share one window: bytes compare as rates); NAN: < 2. */
static double drives_median(const struct result_drive *d, int n)
{
	double *v, m;
	int i;

	if (n < 2 || !(v = calloc((size_t)n, sizeof(*v))))
		return NAN;
	for (i = 0; i < n; i++)
		v[i] = (double)d[i].bytes;
	m = nbw_median(v, (unsigned)n);
	free(v);
	return m;
}

/* The link watched for the drive named name on this side (NULL: not watched). */
static const struct ll_dev *drive_link(const struct linkload *ll, const char *name)
{
	int i;

	for (i = 0; ll && i < ll->n; i++)
		if (!strcmp(ll->d[i].kind, "nvme") && !strcmp(ll->d[i].name, name))
			return &ll->d[i];
	return NULL;
}

/* The rules the drive's own evidence fires (1 << enum attrib_drive_rule). */
static unsigned drive_fired(const struct result_drive *d, const struct ll_dev *link)
{
	unsigned f = d->has_health && d->health.have_after ? d->health.findings : 0, r = 0;

	if (f & HF_THROTTLED)
		r |= 1u << ADR_THROTTLED;
	if (f & HF_HOT)
		r |= 1u << ADR_HOT;
	if (f & HF_MEDIA_ERRORS)
		r |= 1u << ADR_MEDIA;
	if (f & HF_CRITICAL)
		r |= 1u << ADR_CRITICAL;
	if (d->has_shape && d->shape.unsteady)
		r |= 1u << ADR_UNSTEADY;
	if (link && (linkload_dropped(link) || linkload_aer_moved(link)))
		r |= 1u << ADR_LINK;
	return r;
}

/* "drive nvme1n1: 42% below its peers; <health>; unsteady window: <why>; ..." */
static void drive_text(struct attrib_drive *a, const struct result_drive *d, double max_cv)
{
	char part[400];
	size_t o, len = sizeof(a->text);

	size_t head;

	o = (size_t)snprintf(a->text, len, "drive %s%s%s", a->name,
			     a->source[0] ? " of source " : "", a->source);
	head = o;
	if (!isnan(a->below_pct))
		o += (size_t)snprintf(a->text + o, len - o, ": %.0f%% below its peers",
				      a->below_pct);
	if (o < len && a->rules & ~(1u << ADR_UNSTEADY | 1u << ADR_LINK) &&
	    health_watch_describe(&d->health, part, sizeof(part)))
		o += (size_t)snprintf(a->text + o, len - o, "%s%s",
				      isnan(a->below_pct) ? ": " : "; ", part);
	if (o < len && a->rules & 1u << ADR_UNSTEADY) {
		window_shape_why(&d->shape, max_cv, part, sizeof(part));
		o += (size_t)snprintf(a->text + o, len - o, "%sunsteady window: %s",
				      o > head ? "; " : ": ", part);
	}
	if (o < len && a->rules & 1u << ADR_LINK)
		o += (size_t)snprintf(a->text + o, len - o, "; %s", drive_rules[ADR_LINK].meaning);
	if (o >= len)
		return;
	if (a->none == ADN_ITSELF)
		snprintf(a->text + o, len - o,
			 "; no thermal, error or link change counted: the "
			 "drive itself");
	else if (a->none == ADN_NO_LINK)
		snprintf(a->text + o, len - o,
			 "; no thermal or error change counted (its link not "
			 "watched on this side): the drive itself");
	else if (a->none == ADN_NOT_READ)
		snprintf(a->text + o, len - o,
			 "; its health log was not read (%s): whether it "
			 "throttled cannot be told",
			 d->has_health && d->health.why[0] ? d->health.why : "not kept");
}

int attrib_drives(const struct result_drive *d, int n, const struct linkload *ll, double max_cv,
		  const char *side, const char *source, struct attrib_drive *out, int max)
{
	double ref = drives_median(d, n), below;
	const struct ll_dev *link;
	const char *base;
	int i, k = 0;

	for (i = 0; i < n && k < max; i++) {
		struct attrib_drive *a = &out[k];

		base = strrchr(d[i].path, '/');
		*a = (struct attrib_drive){.below_pct = NAN};
		snprintf(a->path, sizeof(a->path), "%s", d[i].path);
		snprintf(a->name, sizeof(a->name), "%s", base ? base + 1 : d[i].path);
		snprintf(a->side, sizeof(a->side), "%s", side ? side : "");
		snprintf(a->source, sizeof(a->source), "%s", source ? source : "");
		link = drive_link(ll, a->name);
		a->rules = drive_fired(&d[i], link);
		below = ref > 0 ? (ref - (double)d[i].bytes) / ref * 100 : NAN;
		if (!isnan(below) && below >= ATTRIB_RAIL_LOW_PCT)
			a->below_pct = below;
		if (!a->rules && isnan(a->below_pct))
			continue;
		if (!a->rules)
			a->none = !d[i].has_health || !d[i].health.have_after ? ADN_NOT_READ
				  : link				      ? ADN_ITSELF
									      : ADN_NO_LINK;
		drive_text(a, &d[i], max_cv);
		k++;
	}
	return k;
}

static const char *none_name(enum attrib_drive_none none)
{
	static const char *const names[] = {
		[ADN_ITSELF] = "the_drive_itself",
		[ADN_NO_LINK] = "the_drive_itself_link_not_watched",
		[ADN_NOT_READ] = "health_not_read",
	};

	return none > ADN_NONE && none <= ADN_NOT_READ ? names[none] : NULL;
}

void attrib_drives_print(struct report *r, const struct attrib_drive *a, int n)
{
	int i, k;

	if (!n)
		return;
	report_text(r, " Drives explained:\n");
	report_arr_begin(r, "drive_attribution");
	for (i = 0; i < n; i++) {
		report_obj_begin(r, NULL);
		report_str(r, "path", NULL, a[i].path);
		report_str(r, "side", NULL, a[i].side[0] ? a[i].side : NULL);
		report_str(r, "source", NULL, a[i].source[0] ? a[i].source : NULL);
		report_double(r, "below_peers_pct", NULL, a[i].below_pct);
		report_arr_begin(r, "rules");
		for (k = 0; k < ADR_N; k++) {
			if (!(a[i].rules & 1u << k))
				continue;
			report_obj_begin(r, NULL);
			report_str(r, "rule", NULL, drive_rules[k].name);
			report_str(r, "meaning", NULL, drive_rules[k].meaning);
			report_obj_end(r);
		}
		report_arr_end(r);
		report_str(r, "none_fired", NULL, none_name(a[i].none));
		report_str(r, "text", "  %s\n", a[i].text);
		report_obj_end(r);
	}
	report_arr_end(r);
}
