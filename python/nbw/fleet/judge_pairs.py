"""nbw.fleet.judge_pairs: the rule over one channel's pairs (a rail, or drive -> remote),
the judge's (nbw.fleet.judge) and the isolate phase's (nbw.fleet.judge_retest).

Each transfer is measured between two nodes, so a low figure has two suspects, its two
ends, and the path between them: a part low with two or more partners, at least half of
them, is that part (a candidate, retested against two partners that passed); a pair low
where neither end is such a part is the link between the two.
"""

import statistics


def _ratio(v, m):
    return v / m if v is not None and m else None


class _Pairs:
    """The transfers of one channel (a rail index, or "remote"), with ratios."""

    def __init__(self, channel, transfers, ratio_of, ceiling_of=lambda t, x: None,
                 sent_of=lambda t: None):
        self.channel = channel
        self.sweep = {}  # node -> {partner: [ratios]}
        self.retest = {}
        # node -> {partner: [ratios]} of its retests by its own side's word (what it
        # received, what it says it sent), and by its partner's (sent_of(t): the
        # sender's own figure of a retest as a ratio, None without one).
        self.own, self.theirs = {}, {}
        self.pair_sweep = {}  # (a, b) sorted -> [ratios]
        self.pair_retest = {}
        self.directed = {}  # (src, dst) -> [ratios] of the sweep
        self.directed_retest = {}
        self.figures = {}  # node -> [GB/s] of the sweep's transfers through it
        # node -> {"sent"|"received": [(ratio, GB/s)]} of the sweep: what its partners
        # received from it (their documents) and what it received (its own).
        self.ways = {}
        self.ceiling = {}  # node -> its part's ceiling (a port's line rate)
        for t in transfers:
            r = ratio_of(t)
            if r is None:
                continue
            side = self.retest if t.retest else self.sweep
            for x, y in ((t.src, t.dst), (t.dst, t.src)):
                side.setdefault(x, {}).setdefault(y, []).append(r)
                if not t.retest:
                    self.figures.setdefault(x, []).append(t.gbps)
                    way = "sent" if x == t.src else "received"
                    self.ways.setdefault(x, {}).setdefault(way, []).append((r, t.gbps, y))
                    c = ceiling_of(t, x)
                    if c is not None:
                        self.ceiling[x] = c
            if t.retest:
                s = sent_of(t)
                for x, y, mine, other in ((t.dst, t.src, r, s), (t.src, t.dst, s, r)):
                    for side, v in ((self.own, mine), (self.theirs, other)):
                        if v is not None:
                            side.setdefault(x, {}).setdefault(y, []).append(v)
            key = (min(t.src, t.dst), max(t.src, t.dst))
            (self.pair_retest if t.retest else self.pair_sweep).setdefault(key, []).append(r)
            (self.directed_retest if t.retest else self.directed).setdefault(
                (t.src, t.dst), []).append(r)

    def directions(self, nodes, threshold, retest=False, low=True):
        """{"src->dst": worst ratio} of the transfers through any of nodes (both ends
        when two), the low ones (or all), at most 16, in order."""
        src = self.directed_retest if retest else self.directed
        out = {}
        for (a, b), rs in sorted(src.items()):
            through = {a, b} == set(nodes) if len(nodes) == 2 else bool({a, b} & set(nodes))
            if through and (not low or min(rs) < threshold):
                out["%s->%s" % (a, b)] = round(min(rs), 4)
        return dict(list(out.items())[:16])


def direction_of(node, directions):
    """Which way the low figures through node went: "sends" (node->partner only),
    "receives" (partner->node only), "both", or None without any."""
    ends = [k.split("->") for k in directions]
    if not ends:
        return None
    if all(a == node for a, _ in ends):
        return "sends"
    if all(b == node for _, b in ends):
        return "receives"
    return "both"


def _low_partners(by_partner, threshold, exclude=()):
    return sorted(p for p, rs in by_partner.items() if min(rs) < threshold and p not in exclude)


def part_candidates(pairs, threshold):
    """Nodes whose part is low with two or more partners, at least half of them."""
    out = set()
    for x, by in pairs.sweep.items():
        low = _low_partners(by, threshold)
        if len(low) >= 2 and 2 * len(low) >= len(by):
            out.add(x)
    return out


def retest_words(pairs, x, partners, threshold):
    """(low, normal, disputed) partners of x's retests: low by x's own side's figure (a
    partner's word alone never makes it low or normal); normal when x's own figures
    and its partner's (the sink's and the sender's of each direction) are all normal
    and x's own speaks for both directions; disputed otherwise (the words disagree, or
    one is missing): such a retest clears nothing."""
    own, theirs = pairs.own.get(x, {}), pairs.theirs.get(x, {})
    low, ok, disputed = [], [], []
    for p in sorted(partners):
        mine, other = own.get(p, []), theirs.get(p, [])
        if mine and min(mine) < threshold:
            low.append(p)
        elif len(mine) >= 2 and other and min(other) >= threshold:
            ok.append(p)
        else:
            disputed.append(p)
    return low, ok, disputed


def part_figure(pairs, x, suspects=frozenset()):
    """(ratio, GB/s, way, partners counted) of x's part: per way (what it sent, as its partners' own
    documents say they received; what it received, as its own says), the median over
    its partners, those under suspicion themselves (suspects) left out while others
    remain (a slow sender does not make its partner's part low); the part's is its
    lower way's. (None, None, None, 0) without a figure."""
    best = (None, None, None, 0)
    for way in ("sent", "received"):
        got = pairs.ways.get(x, {}).get(way) or []
        got = [v for v in got if v[2] not in suspects or v[2] == x] or got
        if got:
            r = statistics.median(v for v, _, _ in got)
            if best[0] is None or r < best[0]:
                best = (r, statistics.median(g for _, g, _ in got), way,
                        len({p for _, _, p in got}))
    return best


def ratio_words(component, way, partners):
    """Whose median a part's ratio is of: "of the rail 0 median, what it sent (4
    partners)"."""
    return "of the %s median, what it %s (%d partner%s)" % (
        component, way, partners, "" if partners == 1 else "s")


def ratio_of_bar(ev, component, words):
    """A suspect's evidence whose ratio is of another bar than its peers' median (a
    floor's line rate, a spec's minimum): its ratio_of says so."""
    if ev.get("ratio_of"):
        ev["ratio_of"] = ev["ratio_of"].replace("the %s median" % component, words)


def judge_pairs(pairs, threshold, component, kind):
    """(parts, part suspects, link suspects as (a, b, state, ratio, evidence))."""
    cands = part_candidates(pairs, threshold)
    parts, suspects, links = [], [], []
    named = set()
    for x in sorted(set(pairs.sweep) | set(pairs.retest)):
        by = pairs.sweep.get(x, {})
        # One ratio per part, its lower way's (the suspect's, the summary's, the record's).
        med, fig, way, counted = part_figure(pairs, x, cands - {x})
        ceil = pairs.ceiling.get(x)
        parts.append({"kind": kind, "node": x, "component": component,
                      "figure_gb_per_s": fig, "ratio": med, "partners": len(by),
                      "ceiling_gb_per_s": ceil, "ratio_to_ceiling": _ratio(fig, ceil)})
        if way:
            parts[-1].update(way=way, ratio_of=ratio_words(component, way, counted))
        rt = pairs.retest.get(x, {})
        # Retests with partners that are not parts under suspicion themselves.
        rt = {p: rs for p, rs in rt.items() if p not in cands}
        rt_low, rt_ok, disputed = retest_words(pairs, x, rt, threshold)
        if x in cands:
            # Cleared only by two partners whose words agree with its own.
            state = "unsteady" if len(rt_ok) >= 2 else "low"
        elif len(rt_low) >= 2:
            state = "low"
        else:
            continue
        named.add(x)
        low = _low_partners(by, threshold)
        dirs = pairs.directions({x}, threshold)
        ev = {"partners": len(by), "low_with": low[:8], "low_count": len(low),
              "ratios_low": sorted(min(by[p]) for p in low)[:8],
              "low_directions": dirs, "direction": direction_of(x, dirs),
              "retest_low_with": rt_low, "retest_normal_with": rt_ok,
              "retest_disputed_with": disputed,
              "retest_ratios": {p: min(rs) for p, rs in rt.items()},
              "retest_directions": {k: v for k, v in pairs.directions(
                  {x}, threshold, retest=True, low=False).items()
                  if not set(k.split("->")) & (cands - {x})}}
        if x in cands and med is not None:
            ev.update(way=way, ratio_of=parts[-1]["ratio_of"], figure_gb_per_s=fig)
            suspects.append((x, state, med, ev))
            continue
        # Named by its retests alone (normal in the screening): their median, said so.
        ev["ratio_of"] = "of the %s median, its retests low with %d partners" % (
            component, len(rt_low))
        own = pairs.own.get(x, {})
        suspects.append((x, state, statistics.median(min(own[p]) for p in rt_low), ev))
    for (a, b), rs in sorted(pairs.pair_sweep.items()):
        if min(rs) >= threshold or a in named or b in named:
            continue
        again = pairs.pair_retest.get((a, b))
        state = "unsteady" if again and min(again) >= threshold else "low"
        ev = {"ratios": sorted(rs), "retest_ratios": sorted(again) if again else None,
              "low_directions": pairs.directions({a, b}, threshold),
              "a_with_others": {p: min(v) for p, v in pairs.retest.get(a, {}).items() if p != b},
              "b_with_others": {p: min(v) for p, v in pairs.retest.get(b, {}).items() if p != a}}
        links.append((a, b, state, min(rs), ev))
    return parts, suspects, links
