/* SPDX-License-Identifier: MIT */
/*
 * sweep.h: the verdict on a measured curve (bandwidth against threads or
 * chunk size): where it goes flat, whether its maximum sits at a known
 * ceiling, below it, or is still rising at the largest point. Pure: no I/O.
 */
#ifndef NBW_SWEEP_H
#define NBW_SWEEP_H

#define SWEEP_FLAT_FRACTION 0.98 /* within 2% of the maximum counts as flat */
#define SWEEP_AT_CEILING 95.0	 /* % of the ceiling that counts as "at" it */
/*
 * % of a ceiling above which the ceiling cannot have held: the link is
 * emulated or its ceiling misreported (the margin covers a usable ceiling
 * estimated from the link's encoding and overheads). Such a figure is never
 * printed as a percentage of that ceiling.
 */
#define SWEEP_ABOVE_CEILING 105.0

enum sweep_kind { SWEEP_LINK, SWEEP_BELOW_LINK, SWEEP_RISING, SWEEP_NO_CEILING, SWEEP_ABOVE };

/*
 * gb_per_s in % of ceiling (GB/s); NAN without a ceiling (NAN or <= 0) and
 * when the figure is above it (sweep_above() says which).
 */
double sweep_pct_held(double gb_per_s, double ceiling);
/* gb_per_s is above SWEEP_ABOVE_CEILING % of a known ceiling. */
int sweep_above(double gb_per_s, double ceiling);
/*
 * gb_per_s is above above_pct % of a known ceiling: 100 for an exact one (a
 * port's line rate), SWEEP_ABOVE_CEILING for an estimate (a PCIe link's usable).
 */
int sweep_above_at(double gb_per_s, double ceiling, double above_pct);

struct sweep_verdict {
	int flat_from;	     /* index of the first point of the flat tail */
	double max_gb_per_s; /* the curve's maximum */
	double pct;	     /* the maximum in % of the ceiling, NAN without one or above it */
	enum sweep_kind kind;
	char text[256];
};

/*
 * Judge gbps[0..n) measured at the points labelled label[0..n) ("8 threads",
 * "256K chunks"), against ceiling (GB/s, NAN or <= 0 when unknown) named
 * ceiling_name ("link" when NULL); what the swept variable would limit is
 * limit_name ("concurrency", "request-size"). 0, or -EINVAL for n < 1.
 */
int sweep_judge(const double *gbps, const char *const *label, int n, double ceiling,
		const char *ceiling_name, const char *limit_name, struct sweep_verdict *v);
/* sweep_judge() with the ceiling's own margin (sweep_above_at()). */
int sweep_judge_at(const double *gbps, const char *const *label, int n, double ceiling,
		   const char *ceiling_name, const char *limit_name, double above_pct,
		   struct sweep_verdict *v);

/*
 * The verdict on a depth sweep: IOPS and p99 latency (any unit) at the
 * points labelled label[0..n) ("depth 8"). The knee is the first point from
 * which no later point has more than SWEEP_KNEE_GAIN (5%) more IOPS; it
 * counts as a knee when the last point's p99 is above SWEEP_KNEE_LAT (1.2)
 * times the knee's (latency keeps climbing). knee: that index, or -1 when
 * IOPS still rise at the last point. 0, or -EINVAL for n < 1.
 */
#define SWEEP_KNEE_GAIN 1.05
#define SWEEP_KNEE_LAT 1.2

enum depth_kind { DEPTH_KNEE, DEPTH_FLAT, DEPTH_RISING };

struct depth_verdict {
	int knee;
	enum depth_kind kind;
	char text[256];
};

int sweep_depth_judge(const double *iops, const double *p99, const char *const *label, int n,
		      struct depth_verdict *v);
/* "knee", "flat", "rising". */
const char *depth_kind_name(enum depth_kind k);

/* "link", "below_link", "rising", "no_ceiling", "above_ceiling". */
const char *sweep_kind_name(enum sweep_kind k);

#endif
