// SPDX-License-Identifier: MIT
/*
 * sweep.c: the verdict on a sweep curve (see sweep.h): where it goes flat (the
 * first point within 2% of the maximum), the maximum against the ceiling, and
 * one sentence saying which limit that points to.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nbw.h"
#include "sweep.h"

const char *sweep_kind_name(enum sweep_kind k)
{
	static const char *const names[] = {
		[SWEEP_LINK] = "link",		 [SWEEP_BELOW_LINK] = "below_link",
		[SWEEP_RISING] = "rising",	 [SWEEP_NO_CEILING] = "no_ceiling",
		[SWEEP_ABOVE] = "above_ceiling",
	};

	return nbw_name(names, NBW_ARRAY_SIZE(names), k, "?");
}

/* The first point within 2% of the maximum: where the curve goes flat. */
static int flat_start(const double *gbps, int n, double max)
{
	int i = 0;

	while (i < n - 1 && gbps[i] < SWEEP_FLAT_FRACTION * max)
		i++;
	return i;
}

/* A curve that falls after its plateau says so: "; it falls to 73% of that at 48 threads". */
static void add_fall(struct sweep_verdict *v, const double *gbps, const char *const *label, int n)
{
	size_t len = strlen(v->text);

	if (n > 1 && gbps[n - 1] < SWEEP_FLAT_FRACTION * v->max_gb_per_s && len < sizeof(v->text))
		snprintf(v->text + len, sizeof(v->text) - len, "; it falls to %.0f%% of that at %s",
			 gbps[n - 1] / v->max_gb_per_s * 100, label[n - 1]);
}

int sweep_above_at(double gb_per_s, double ceiling, double above_pct)
{
	return isfinite(ceiling) && ceiling > 0 && isfinite(gb_per_s) &&
	       gb_per_s / ceiling * 100 > above_pct;
}

int sweep_above(double gb_per_s, double ceiling)
{
	return sweep_above_at(gb_per_s, ceiling, SWEEP_ABOVE_CEILING);
}

double sweep_pct_held(double gb_per_s, double ceiling)
{
	if (!isfinite(ceiling) || ceiling <= 0 || sweep_above(gb_per_s, ceiling))
		return NAN;
	return gb_per_s / ceiling * 100;
}

/*
 * The words of a verdict whose curve reached its maximum only at its last point:
 * it never went flat within the sweep, so no "flat from".
 */
static void judge_text_late(struct sweep_verdict *v, const char *last, double ceiling,
			    const char *cn, const char *limit_name)
{
	if (v->kind == SWEEP_ABOVE)
		snprintf(v->text, sizeof(v->text),
			 "above ceiling: reaches %.2f GB/s at %s, the last point, %.2fx the %s "
			 "ceiling (%.2f GB/s): the link is emulated or its ceiling misreported; "
			 "not flat within the sweep",
			 v->max_gb_per_s, last, v->max_gb_per_s / ceiling, cn, ceiling);
	else
		snprintf(v->text, sizeof(v->text),
			 "reaches %.0f%% of the %s ceiling at %s, the last point: a link limit, "
			 "not a %s limit; not flat within the sweep",
			 v->pct, cn, last, limit_name);
}

int sweep_judge(const double *gbps, const char *const *label, int n, double ceiling,
		const char *ceiling_name, const char *limit_name, struct sweep_verdict *v)
{
	return sweep_judge_at(gbps, label, n, ceiling, ceiling_name, limit_name,
			      SWEEP_ABOVE_CEILING, v);
}

int sweep_judge_at(const double *gbps, const char *const *label, int n, double ceiling,
		   const char *ceiling_name, const char *limit_name, double above_pct,
		   struct sweep_verdict *v)
{
	const char *cn = ceiling_name ? ceiling_name : "link";
	bool have_ceiling = isfinite(ceiling) && ceiling > 0;
	double max = 0;
	int i;

	if (n < 1)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (gbps[i] > max)
			max = gbps[i];
	v->max_gb_per_s = max;
	v->flat_from = flat_start(gbps, n, max);
	v->pct = sweep_above_at(max, ceiling, above_pct) ? NAN : sweep_pct_held(max, ceiling);
	if (sweep_above_at(max, ceiling, above_pct))
		v->kind = SWEEP_ABOVE;
	else if (have_ceiling && v->pct >= SWEEP_AT_CEILING)
		v->kind = SWEEP_LINK;
	else if (n > 1 && v->flat_from == n - 1)
		v->kind = SWEEP_RISING;
	else
		v->kind = have_ceiling ? SWEEP_BELOW_LINK : SWEEP_NO_CEILING;

	if (n > 1 && v->flat_from == n - 1 && (v->kind == SWEEP_ABOVE || v->kind == SWEEP_LINK)) {
		judge_text_late(v, label[n - 1], ceiling, cn, limit_name);
		return 0;
	}
	switch (v->kind) {
	case SWEEP_LINK:
		snprintf(v->text, sizeof(v->text),
			 "flat from %s at %.0f%% of the %s ceiling: a link limit, not a %s limit",
			 label[v->flat_from], v->pct, cn, limit_name);
		break;
	case SWEEP_BELOW_LINK:
		snprintf(v->text, sizeof(v->text),
			 "flat from %s at %.0f%% of the %s ceiling: the drive or the host limits",
			 label[v->flat_from], v->pct, cn);
		break;
	case SWEEP_RISING:
		if (have_ceiling)
			snprintf(v->text, sizeof(v->text),
				 "still rising at %s (%.2f GB/s, %.0f%% of the %s ceiling): "
				 "sweep further",
				 label[n - 1], max, v->pct, cn);
		else
			snprintf(v->text, sizeof(v->text),
				 "still rising at %s (%.2f GB/s; no known %s ceiling): sweep "
				 "further",
				 label[n - 1], max, cn);
		break;
	case SWEEP_ABOVE:
		snprintf(v->text, sizeof(v->text),
			 "above ceiling: flat from %s at %.2f GB/s, %.2fx the %s ceiling (%.2f "
			 "GB/s): the link is emulated or its ceiling misreported",
			 label[v->flat_from], max, max / ceiling, cn, ceiling);
		break;
	case SWEEP_NO_CEILING:
		snprintf(v->text, sizeof(v->text),
			 "flat from %s at %.2f GB/s; no known %s ceiling (a file or a virtual "
			 "device): a link limit cannot be told from a drive limit",
			 label[v->flat_from], max, cn);
		break;
	}
	if (v->kind != SWEEP_RISING)
		add_fall(v, gbps, label, n);
	return 0;
}

const char *depth_kind_name(enum depth_kind k)
{
	static const char *const names[] = {
		[DEPTH_KNEE] = "knee",
		[DEPTH_FLAT] = "flat",
		[DEPTH_RISING] = "rising",
	};

	return nbw_name(names, NBW_ARRAY_SIZE(names), k, "?");
}

/* The first point that no later point beats by more than SWEEP_KNEE_GAIN. */
static int knee_start(const double *iops, int n)
{
	double later = 0; /* the most IOPS of the points after i */
	int i, knee = n - 1;

	for (i = n - 2; i >= 0; i--) {
		if (iops[i + 1] > later)
			later = iops[i + 1];
		if (later <= SWEEP_KNEE_GAIN * iops[i])
			knee = i;
	}
	return knee;
}

int sweep_depth_judge(const double *iops, const double *p99, const char *const *label, int n,
		      struct depth_verdict *v)
{
	int k;

	if (n < 1)
		return -EINVAL;
	k = knee_start(iops, n);
	if (n > 1 && k == n - 1) {
		v->knee = -1;
		v->kind = DEPTH_RISING;
		snprintf(v->text, sizeof(v->text),
			 "IOPS still rising at %s (%.0f, +%.0f%% over %s): sweep further", label[k],
			 iops[k], (iops[k] / iops[k - 1] - 1) * 100, label[k - 1]);
		return 0;
	}
	v->knee = k;
	if (p99[n - 1] > SWEEP_KNEE_LAT * p99[k]) {
		v->kind = DEPTH_KNEE;
		snprintf(v->text, sizeof(v->text),
			 "IOPS stop rising at %s (%.0f) while p99 keeps climbing (%.1f to %.1f us "
			 "at %s): more depth only queues",
			 label[k], iops[k], p99[k], p99[n - 1], label[n - 1]);
	} else {
		v->kind = DEPTH_FLAT;
		snprintf(v->text, sizeof(v->text),
			 "IOPS flat from %s (%.0f) and p99 flat too (%.1f to %.1f us at %s)",
			 label[k], iops[k], p99[k], p99[n - 1], label[n - 1]);
	}
	return 0;
}
