// SPDX-License-Identifier: MIT
/*
 * pcilink_judge.c: the verdict on a link from both of its ends and on a
 * device's path to its root port (the narrowest hop, what limits it), and
 * what a path would carry in another case: the device's own link at other
 * speeds and widths, or a slot that runs at its maximum (see pcilink.h).
 * Pure, over functions pcilink_decode.c filled in.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcilink.h"

static double dmin(double a, double b)
{
	return a < b ? a : b;
}

/* "8 GT/s x4" into buf. */
static const char *link_str(double gts, unsigned width, char *buf, size_t len)
{
	char s[16];

	snprintf(buf, len, "%s GT/s x%u", pcie_speed_str(gts, s, sizeof(s)), width);
	return buf;
}

static unsigned min_mps(const struct pcie_fn *port, const struct pcie_fn *dev)
{
	if (!(port->known & PCIE_K_MPS) || !(dev->known & PCIE_K_MPS))
		return 0;
	return port->mps < dev->mps ? port->mps : dev->mps;
}

/*
 * Down: nothing negotiated, or the port says its data link is inactive and
 * the device below does not answer (some emulated ports report the
 * capability but never set Data Link Layer Link Active).
 */
static bool judge_down(const struct pcie_fn *port, const struct pcie_fn *dev,
		       const struct pcie_fn *sta, struct pcie_link *l)
{
	bool dll_down = (port->known & PCIE_K_DLL) && !port->dll_active;

	if (!(dll_down && dev->vendor == 0xffff && !dev->is_vf) &&
	    !((sta->known & PCIE_K_LNKSTA) && (sta->width == 0 || sta->speed <= 0)))
		return false;
	l->verdict = PCIE_LINK_DOWN;
	snprintf(l->reason, sizeof(l->reason), "link down below port %s (%s)", port->bdf,
		 dll_down ? "data link layer inactive" : "no width negotiated");
	return true;
}

/* The port advertises nothing (LnkCap 0); the device runs at its own maximum. */
static bool judge_unadvertised(const struct pcie_fn *port, const struct pcie_fn *dev,
			       const struct pcie_fn *sta, const char *who, struct pcie_link *l)
{
	char a[32];

	if ((l->missing & PCIE_K_LNKSTA) || !(dev->known & PCIE_K_MAX) ||
	    (port->known & PCIE_K_MAX) || !(port->known & PCIE_K_LNKCAP) ||
	    sta->speed < dev->max_speed - 0.01 || sta->width < dev->max_width)
		return false;
	l->speed = l->exp_speed = sta->speed;
	l->width = l->exp_width = sta->width;
	l->mps = min_mps(port, dev);
	l->raw = pcie_raw_gb_per_s(l->speed, l->width);
	l->usable = pcie_usable_gb_per_s(l->speed, l->width, l->mps);
	l->verdict = PCIE_OK;
	l->limited_by = PCIE_LIMIT_DEVICE;
	snprintf(l->reason, sizeof(l->reason),
		 "%s runs at its own maximum %s; port %s advertises no link capability "
		 "(LnkCap speed 0)",
		 who, link_str(l->speed, l->width, a, sizeof(a)), port->bdf);
	return true;
}

/* Trained below what both ends can do: an idle NIC, or a training fault. */
static void judge_below(const struct pcie_fn *port, const struct pcie_fn *dev, const char *who,
			bool may_idle, struct pcie_link *l)
{
	bool autonomous = dev->autonomous_bw || port->autonomous_bw ||
			  ((dev->known & PCIE_K_LNKCTL2) && !dev->hw_autonomous_disabled);
	char a[32], b[32];

	l->limited_by = PCIE_LIMIT_TRAINING;
	if (may_idle && autonomous) {
		l->verdict = PCIE_MAYBE_IDLE;
		snprintf(l->reason, sizeof(l->reason),
			 "%s link at %s, below the %s both ends support: may be idle "
			 "(autonomous speed changes allowed); re-check under load",
			 who, link_str(l->speed, l->width, a, sizeof(a)),
			 link_str(l->exp_speed, l->exp_width, b, sizeof(b)));
		return;
	}
	l->verdict = PCIE_DOWNGRADED;
	/* A port without a slot is wired on the board: it may route fewer lanes than it has. */
	if (l->width < l->exp_width && (port->known & PCIE_K_SLOT) && !port->slot_implemented) {
		snprintf(l->reason, sizeof(l->reason),
			 "both ends capable of %s, link at %s on a port without a slot: the board "
			 "may route only %u lanes (wiring), as likely as a training fault",
			 link_str(l->exp_speed, l->exp_width, b, sizeof(b)),
			 link_str(l->speed, l->width, a, sizeof(a)), l->width);
		return;
	}
	snprintf(l->reason, sizeof(l->reason),
		 "both ends capable of %s, link trained at %s: reseat, retrain, check the riser",
		 link_str(l->exp_speed, l->exp_width, b, sizeof(b)),
		 link_str(l->speed, l->width, a, sizeof(a)));
}

/* Trained at what both ends allow: is that less than one end could do, and why. */
static void judge_capability(const struct pcie_fn *port, const struct pcie_fn *dev, const char *who,
			     struct pcie_link *l)
{
	char a[32], b[32];

	if ((port->known & PCIE_K_LNKCTL2) && port->target_speed > 0 &&
	    port->target_speed < dmin(port->max_speed, dev->max_speed) - 0.01) {
		l->verdict = PCIE_DOWNGRADED;
		l->limited_by = PCIE_LIMIT_PORT;
		snprintf(l->reason, sizeof(l->reason),
			 "port %s target speed set to %s GT/s (LnkCtl2), both ends capable of %s "
			 "GT/s",
			 port->bdf, pcie_speed_str(port->target_speed, a, sizeof(a)),
			 pcie_speed_str(dmin(port->max_speed, dev->max_speed), b, sizeof(b)));
	} else if (dev->max_speed < port->max_speed - 0.01 || dev->max_width < port->max_width) {
		l->verdict = PCIE_DOWNGRADED;
		l->limited_by = PCIE_LIMIT_DEVICE;
		snprintf(l->reason, sizeof(l->reason),
			 "host port capable of %s, %s capable of only %s",
			 link_str(port->max_speed, port->max_width, a, sizeof(a)), who,
			 link_str(dev->max_speed, dev->max_width, b, sizeof(b)));
	} else if (port->max_speed < dev->max_speed - 0.01 || port->max_width < dev->max_width) {
		l->verdict = PCIE_DOWNGRADED;
		l->limited_by = PCIE_LIMIT_PORT;
		snprintf(l->reason, sizeof(l->reason), "%s capable of %s, port capable of only %s",
			 who, link_str(dev->max_speed, dev->max_width, a, sizeof(a)),
			 link_str(port->max_speed, port->max_width, b, sizeof(b)));
	} else {
		l->verdict = PCIE_OK;
		snprintf(l->reason, sizeof(l->reason), "trained at %s, the maximum of both ends",
			 link_str(l->speed, l->width, a, sizeof(a)));
	}
}

static void judge_ends(const struct pcie_fn *port, const struct pcie_fn *dev, const char *who,
		       bool may_idle, struct pcie_link *l)
{
	const struct pcie_fn *sta = (dev->known & PCIE_K_LNKSTA) ? dev : port;
	const unsigned need = PCIE_K_MAX;
	char m[120];

	memset(l, 0, sizeof(*l));
	l->port = port;
	l->dev = dev;
	l->raw = l->usable = NAN;
	l->missing = (~port->known & (need | PCIE_K_MPS)) | (~dev->known & (need | PCIE_K_MPS));
	/* A version-1 capability has no LnkCtl2: absent, not unknown. */
	if (!(port->known & PCIE_K_LNKCTL2) && !(port->known & PCIE_K_LNKCAP))
		l->missing |= PCIE_K_LNKCTL2;
	if (!(sta->known & PCIE_K_LNKSTA))
		l->missing |= PCIE_K_LNKSTA;
	if (judge_down(port, dev, sta, l) || judge_unadvertised(port, dev, sta, who, l))
		return;
	if (l->missing & (need | PCIE_K_LNKSTA)) {
		l->verdict = PCIE_UNKNOWN;
		snprintf(l->reason, sizeof(l->reason), "not enough data: missing %s",
			 pcie_known_names(l->missing, m, sizeof(m)));
		return;
	}
	l->speed = sta->speed;
	l->width = sta->width;
	l->exp_speed = dmin(port->max_speed, dev->max_speed);
	if ((port->known & PCIE_K_LNKCTL2) && port->target_speed > 0)
		l->exp_speed = dmin(l->exp_speed, port->target_speed);
	l->exp_width = port->max_width < dev->max_width ? port->max_width : dev->max_width;
	l->mps = min_mps(port, dev);
	l->raw = pcie_raw_gb_per_s(l->speed, l->width);
	l->usable = pcie_usable_gb_per_s(l->speed, l->width, l->mps);
	if (l->speed < l->exp_speed - 0.01 || l->width < l->exp_width)
		judge_below(port, dev, who, may_idle, l);
	else
		judge_capability(port, dev, who, l);
}

static bool is_endpoint(const struct pcie_fn *f)
{
	return f->role == PCIE_ROLE_ENDPOINT || f->role == PCIE_ROLE_LEGACY_ENDPOINT;
}

/*
 * The payload finding: MPS set below the largest both ends support, and an
 * endpoint's MRRS below the MPS, each with its cost on the link's ceiling.
 */
static void judge_payload(const struct pcie_fn *port, const struct pcie_fn *dev,
			  struct pcie_link *l)
{
	size_t n = 0;

	l->usable_supported = l->usable_reads = NAN;
	/* DevCap's codes 6 and 7 are reserved: a larger size is no capability. */
	if (!l->mps || !port->mps_supported || !dev->mps_supported || port->mps_supported > 4096 ||
	    dev->mps_supported > 4096)
		return;
	l->mps_supported =
		port->mps_supported < dev->mps_supported ? port->mps_supported : dev->mps_supported;
	l->usable_supported = pcie_usable_gb_per_s(l->speed, l->width, l->mps_supported);
	if (is_endpoint(dev) && (dev->known & PCIE_K_MRRS))
		l->mrrs = dev->mrrs;
	l->mps_short = l->mps < l->mps_supported;
	l->mrrs_short = l->mrrs && l->mrrs < l->mps;
	if (l->mps_short && isfinite(l->usable))
		n = (size_t)snprintf(l->payload, sizeof(l->payload),
				     "MPS %u where %u is supported: usable %.2f of %.2f GB/s raw, "
				     "%.2f at MPS %u",
				     l->mps, l->mps_supported, l->usable, l->raw,
				     l->usable_supported, l->mps_supported);
	else if (l->mps_short)
		n = (size_t)snprintf(l->payload, sizeof(l->payload), "MPS %u where %u is supported",
				     l->mps, l->mps_supported);
	if (!l->mrrs_short || n >= sizeof(l->payload))
		return;
	l->usable_reads = pcie_usable_gb_per_s(l->speed, l->width, l->mrrs);
	if (isfinite(l->usable_reads))
		snprintf(l->payload + n, sizeof(l->payload) - n,
			 "%sMRRS %u below MPS %u: its reads of memory usable %.2f GB/s",
			 n ? "; " : "", l->mrrs, l->mps, l->usable_reads);
	else
		snprintf(l->payload + n, sizeof(l->payload) - n, "%sMRRS %u below MPS %u",
			 n ? "; " : "", l->mrrs, l->mps);
}

void pcie_judge_link(const struct pcie_fn *port, const struct pcie_fn *dev, const char *who,
		     bool may_idle, struct pcie_link *l)
{
	judge_ends(port, dev, who, may_idle, l);
	if (l->verdict != PCIE_LINK_DOWN && l->verdict != PCIE_UNKNOWN)
		judge_payload(port, dev, l);
	else
		l->usable_supported = l->usable_reads = NAN;
}

/* Ceiling used to rank links: usable when known, else raw. */
static double link_rank(const struct pcie_link *l, bool use_usable)
{
	return use_usable ? l->usable : l->raw;
}

void pcie_judge_path(struct pcie_path *p, const char *who, bool may_idle)
{
	const struct pcie_link *own, *b;
	bool use_usable = true;
	char a[32];
	int i;

	p->nlinks = 0;
	p->bottleneck = -1;
	p->raw = p->usable = NAN;
	p->limited_by = PCIE_LIMIT_NONE;
	for (i = 0; i + 1 < p->nhops && p->nlinks < PCIE_MAX_HOPS; i++) {
		const struct pcie_fn *lower = p->hop[i], *upper = p->hop[i + 1];

		if (!pcie_role_is_downstream_port(upper->role))
			continue;
		pcie_judge_link(upper, lower, p->nlinks ? "switch" : who, may_idle && !p->nlinks,
				&p->link[p->nlinks]);
		p->nlinks++;
	}
	if (!p->nlinks) {
		if (p->nhops && p->hop[0]->role == PCIE_ROLE_RC_ENDPOINT) {
			p->verdict = PCIE_NO_LINK;
			snprintf(p->reason, sizeof(p->reason),
				 "root-complex integrated endpoint: no PCIe link of its own");
		} else {
			p->verdict = PCIE_UNKNOWN;
			snprintf(p->reason, sizeof(p->reason),
				 "no PCIe port found above the device");
		}
		return;
	}

	for (i = 0; i < p->nlinks; i++)
		if (isnan(p->link[i].usable))
			use_usable = false;
	for (i = 0; i < p->nlinks; i++) {
		double v = link_rank(&p->link[i], use_usable);

		if (isnan(v))
			continue;
		if (p->bottleneck < 0 || v < link_rank(&p->link[p->bottleneck], use_usable) - 1e-9)
			p->bottleneck = i;
	}
	if (p->bottleneck >= 0) {
		p->raw = p->link[p->bottleneck].raw;
		/* usable is only meaningful when every link's is known */
		p->usable = use_usable ? p->link[p->bottleneck].usable : NAN;
	}

	own = &p->link[0];
	for (i = 0; i < p->nlinks; i++) {
		if (p->link[i].verdict != PCIE_LINK_DOWN)
			continue;
		p->verdict = PCIE_LINK_DOWN;
		snprintf(p->reason, sizeof(p->reason), "%s", p->link[i].reason);
		return;
	}
	if (own->verdict != PCIE_OK) {
		p->verdict = own->verdict;
		p->limited_by = own->limited_by;
		snprintf(p->reason, sizeof(p->reason), "%s", own->reason);
		return;
	}
	b = p->bottleneck > 0 ? &p->link[p->bottleneck] : NULL;
	if (b && link_rank(b, use_usable) < link_rank(own, use_usable) - 1e-9) {
		p->verdict = PCIE_DOWNGRADED;
		p->limited_by = PCIE_LIMIT_PATH;
		snprintf(p->reason, sizeof(p->reason),
			 "a hop further up is narrower: %s (%s) runs at %s = %.2f GB/s %s, "
			 "below this link's %.2f (%s)",
			 b->dev->bdf, pcie_role_name(b->dev->role),
			 link_str(b->speed, b->width, a, sizeof(a)), link_rank(b, use_usable),
			 use_usable ? "usable" : "raw", link_rank(own, use_usable), b->reason);
		return;
	}
	p->verdict = PCIE_OK;
	p->limited_by = own->limited_by;
	snprintf(p->reason, sizeof(p->reason), "%s", own->reason);
}

/* ---- what if: the slot ceiling and upgrade projections ---------------------- */

/* The own link at the lower of both ends, links further up as trained. */
static void what_if_rank(const struct pcie_path *p, double dev_speed, unsigned dev_width,
			 struct pcie_what_if *w)
{
	const struct pcie_link *own = &p->link[0];
	int i;

	w->speed = dmin(w->port_speed, dev_speed);
	w->width = w->port_width < dev_width ? w->port_width : dev_width;
	w->raw = pcie_raw_gb_per_s(w->speed, w->width);
	w->usable = pcie_usable_gb_per_s(w->speed, w->width, own->mps);
	w->bottleneck = 0;
	w->ranked_usable = isfinite(w->usable);
	for (i = 1; i < p->nlinks; i++)
		if (isfinite(p->link[i].raw) && !isfinite(p->link[i].usable))
			w->ranked_usable = false;
	for (i = 1; i < p->nlinks; i++) {
		const struct pcie_link *l = &p->link[i];

		if (!isfinite(l->raw))
			continue; /* down or unknown: it cannot be ranked */
		if (w->ranked_usable ? l->usable < w->usable - 1e-9 : l->raw < w->raw - 1e-9) {
			w->raw = l->raw;
			w->usable = l->usable;
			w->bottleneck = i;
		}
	}
	if (!w->ranked_usable)
		w->usable = NAN;
	w->slot_binds = w->bottleneck == 0 && (w->speed < dev_speed - 0.01 || w->width < dev_width);
}

/* Reset w; true when the path has an own link whose port's maximum is known. */
static bool what_if_start(const struct pcie_path *p, struct pcie_what_if *w)
{
	memset(w, 0, sizeof(*w));
	w->raw = w->usable = NAN;
	w->bottleneck = -1;
	return p->nlinks > 0 && (p->link[0].port->known & PCIE_K_MAX);
}

int pcie_what_if(const struct pcie_path *p, double dev_speed, unsigned dev_width, bool fix_slot,
		 struct pcie_what_if *w)
{
	const struct pcie_fn *port, *dev;

	if (!what_if_start(p, w))
		return -ENODATA;
	port = p->link[0].port;
	dev = p->link[0].dev;
	if ((dev_speed <= 0 || !dev_width) && !(dev->known & PCIE_K_MAX))
		return -ENODATA;
	if (dev_speed <= 0)
		dev_speed = dev->max_speed;
	if (!dev_width)
		dev_width = dev->max_width;
	/* As it is, a port runs no faster than its LnkCtl2 target. */
	w->port_speed = port->max_speed;
	if (!fix_slot && (port->known & PCIE_K_LNKCTL2) && port->target_speed > 0)
		w->port_speed = dmin(w->port_speed, port->target_speed);
	if (fix_slot && w->port_speed < dev_speed)
		w->port_speed = dev_speed;
	w->port_width = port->max_width;
	what_if_rank(p, dev_speed, dev_width, w);
	return 0;
}

int pcie_slot_ceiling(const struct pcie_path *p, struct pcie_what_if *w)
{
	if (!what_if_start(p, w))
		return -ENODATA;
	w->port_speed = p->link[0].port->max_speed;
	w->port_width = p->link[0].port->max_width;
	what_if_rank(p, w->port_speed, w->port_width, w);
	return 0;
}
