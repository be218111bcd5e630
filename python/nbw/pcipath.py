# SPDX-License-Identifier: MIT
"""The drives' PCIe paths as nvme_link_probe's JSON gives them (each device's
"links", its own link first, then each hop up to the root port): a sum of
per-drive figures capped by the links the drives share. Drives behind one
switch uplink carry together at most what that uplink carries, however much
their own links add up to; the ladder's and the fleet judge's sums of
ceilings go through capped_sum. Standard library only."""

from .jsonutil import as_number


def _hops(dev):
    """[(key, usable GB/s or None, 'S GT/s xW')] of DEV's links, its own first;
    a hop is known by the address of its downstream end."""
    out = []
    links = dev.get("links") if isinstance(dev, dict) else None
    for l in links if isinstance(links, list) else []:
        if not isinstance(l, dict) or not isinstance(l.get("device_bdf"), str):
            continue
        speed, width = as_number(l.get("speed_gts")), as_number(l.get("width"))
        text = "%g GT/s x%d" % (speed, width) if speed and width else "link"
        out.append((l["device_bdf"].lower(), as_number(l.get("usable_gb_per_s")), text))
    return out


class Sum:
    """summed: the plain sum; capped: the sum with every shared hop holding the
    drives behind it to its usable GB/s (both None without a figure); caps:
    [{"bdf", "link", "usable_gb_per_s", "drives", "summed_gb_per_s"}], the
    shared hops that capped, narrowest first."""

    def __init__(self, summed, capped, caps):
        self.summed, self.capped, self.caps = summed, capped, caps


def capped_sum(items):
    """ITEMS: [(GB/s, probe device or None)]; a Sum."""
    vals = [(as_number(v), d) for v, d in items]
    vals = [(v, d) for v, d in vals if v is not None]
    if not vals:
        return Sum(None, None, [])
    children, usable, text, roots, loose = {}, {}, {}, [], 0.0
    for i, (v, dev) in enumerate(vals):
        hops = _hops(dev)
        if not hops:
            loose += v
            continue
        node, seen = ("drive", i), set()
        for key, cap, words in hops:
            if key in seen or key in children and ("drive", i) in children[key]:
                break  # a path that loops: read no further up it
            seen.add(key)
            usable[key], text[key] = cap, words
            children.setdefault(key, set()).add(node)
            node = key
        if node not in roots:
            roots.append(node)
    caps = []

    def total(node, above=()):
        """(capped GB/s, drives) below NODE; ABOVE: the hops over it."""
        if isinstance(node, tuple):
            return vals[node[1]][0], 1
        if node in above:  # hops that disagree on which is upstream
            return 0.0, 0
        parts = [total(c, above + (node,)) for c in sorted(children[node], key=str)]
        s, n = sum(p[0] for p in parts), sum(p[1] for p in parts)
        cap = usable.get(node)
        if cap is not None and n > 1 and s > cap:
            caps.append({"bdf": node, "link": text[node], "usable_gb_per_s": cap, "drives": n,
                         "summed_gb_per_s": s})
        return (min(s, cap) if cap is not None else s), n

    summed = sum(v for v, _ in vals)
    # a cap only lowers: paths that disagree never make the sum larger
    capped = min(summed, loose + sum(total(r)[0] for r in roots))
    caps.sort(key=lambda c: (c["usable_gb_per_s"], c["bdf"]))
    return Sum(summed, capped, caps)


def shared_words(s):
    """One phrase naming the shared hops that capped the sum S (a Sum), or None."""
    if not s.caps:
        return None
    hops = "; ".join("%d drives share hop %s (%s, %.2f GB/s usable)"
                     % (c["drives"], c["bdf"], c["link"], c["usable_gb_per_s"]) for c in s.caps)
    return "%s: %.2f GB/s, not %.2f summed" % (hops, s.capped, s.summed)
