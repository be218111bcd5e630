"""nbw.fleet.judge: which drive, rail, node or link of a sweep is below its peers, and why.

A pure function of the sweep (nbw.fleet.sweepdir.Sweep). Each figure is compared with
the fleet's median for its kind: a drive with the drives of its model and link
capability, a fabric transfer with the transfers of the same line rate and link layer,
the drives together of a node with the nodes of the same drives, a drive -> remote
transfer as a share of its source's drives together. A figure below the threshold
(default 0.9 of the median) is low.

Retests decide. Screening windows are short; what screened low is measured again in
full windows: a part low in screening and normal when measured again is unsteady, named
as such and never folded into a verdict on its node; a part low again is low.

Rails and drive -> remote paths are measured in pairs, so a low figure has two
suspects, its two ends, and the path between them:
  - a part (node X's rail i) low with two or more partners, at least half of its
    partners, is that part; so is a part whose retests against two partners that
    passed are low;
  - a pair low where neither end is such a part is the link (the path) between the two;
  - a part or a link low in the sweep and normal when measured again is unsteady.
A retest counts with the suspect's own side's figure (what it received, what its own
document says it sent): a partner's word alone neither clears it nor sinks it, and a
part is cleared (unsteady) only by two partners whose figures, the sinks' and the
senders' of both directions, are normal and agree with its own.
Every rail of a node low (and low again) is the node; rails low while every rail runs
and normal measured each alone are a limit they share upstream (a PCIe switch, the root
port, the node's memory), named as the node's. Every drive of a node low again is the
node; a node's drives together low while each drive alone is normal is the node (a
shared limit: its root port, its memory), as is a node whose drive -> remote share is
low with good partners.

The suspects come from one place each (_suspect): the evidence of a part is assembled
where its kind is judged; nbw.fleet.verdict turns them, with what was not measured,
into one verdict per node. The rule over a channel's pairs (a part, or the link between
two) is nbw.fleet.judge_pairs; what the isolate phase measures again, from the
screening, is nbw.fleet.judge_retest.
"""

import statistics

from .. import pcipath, portcounters
from . import health  # a suspect drive's own evidence (fleet/health.py)
from ..jsonutil import as_number, dicts, dig
from . import floors as floorsmod  # the parts' own bars: physics, the probe, floor, spec
from . import topology, verdict
from .judge_pairs import _Pairs, _ratio, judge_pairs
from .sweepdir import counters_of, sent_by

THRESHOLD = 0.9


def _median_by(items, key, value, voice, usable=None):
    """{kind: the fleet's median} over the items with a value: each node one voice (the
    median of its own items, voice(x) naming whose figure x is), whatever number of
    parts it claims; a kind that fewer than two nodes speak for has no median (a node
    is never its own reference). usable(x) False: x is reported, never a reference."""
    groups = {}
    for x in items:
        v = value(x)
        if v is not None and (usable is None or usable(x)):
            groups.setdefault(key(x), {}).setdefault(voice(x), []).append(v)
    return {k: statistics.median([statistics.median(v) for v in by.values()])
            for k, by in groups.items() if len(by) >= 2}


# --- the probe's word on a device ---------------------------------------------

def _norm_bdf(bdf):
    if not isinstance(bdf, str):
        return None
    bdf = bdf.lower()
    return bdf if bdf.count(":") == 2 else "0000:" + bdf


_probe_index = {}  # id(probe document) -> (document, {bdf: device}, {name: device})


def probe_device(probe, name=None, bdf=None):
    """The probe's entry for a device by PCI address or name (a block device's name
    finds its controller: nvme0n1 -> nvme0), or None."""
    if not isinstance(probe, dict):
        return None
    idx = _probe_index.get(id(probe))
    if idx is None or idx[0] is not probe:
        by_bdf, by_name = {}, {}
        for d in dicts(dig(probe, "devices")):
            if isinstance(d, dict):
                by_bdf.setdefault(_norm_bdf(d.get("bdf")), d)
                if isinstance(d.get("name"), str):
                    by_name.setdefault(d["name"], d)
        idx = _probe_index[id(probe)] = (probe, by_bdf, by_name)
    _, by_bdf, by_name = idx
    if bdf and _norm_bdf(bdf) in by_bdf:
        return by_bdf[_norm_bdf(bdf)]
    if not isinstance(name, str):
        return None
    if name in by_name:
        return by_name[name]
    base = name.rsplit("n", 1)[0] if "n" in name[4:] else None
    return by_name.get(base) if base else None


def probe_evidence(dev):
    """What the probe says of a device's link, in a few keys, or None."""
    if dev is None:
        return None
    link = dev.get("link") if isinstance(dev.get("link"), dict) else {}
    word = lambda k: dev.get(k) if isinstance(dev.get(k), str) else None  # a node's: words only
    ev = {"verdict": word("verdict"), "limited_by": word("limited_by"),
          "link": "%s GT/s x%s of %s GT/s x%s" % tuple(as_number(link.get(k)) for k in (
              "speed_gts", "width", "max_speed_gts", "max_width")),
          "bottleneck_bdf": word("bottleneck_bdf"), "reason": word("reason")}
    if dev.get("verdict") == "downgraded" and dev.get("limited_by") == "training":
        ev["says"] = "trained below capability"
    elif dev.get("verdict") == "downgraded" and dev.get("limited_by") == "path":
        ev["says"] = "a narrower hop upstream (%s)" % dev.get("bottleneck_bdf")
    return ev


def _capability(dev):
    link = dev.get("link") if dev and isinstance(dev.get("link"), dict) else {}
    return (as_number(link.get("max_speed_gts")), as_number(link.get("max_width")))


# --- drives ---------------------------------------------------------------------

def _drive_kind(sweep, dr):
    dev = probe_device(sweep.probe.get(dr.node), dr.name, dr.pci)
    cap = _capability(dev) if dev else (None, None)
    if cap == (None, None):
        cap = (dr.ceiling,)
    return (dr.model,) + cap


def _group_words(kind):
    """A drive's kind in words: its model and link capability (or ceiling)."""
    model = kind[0] or "model unknown"
    if len(kind) == 3 and kind[1] is not None:
        return "%s, %s GT/s x%s" % (model, kind[1], kind[2])
    return "%s, link %s GB/s" % (model, kind[1]) if kind[1] else model


def shown_by_probe(sweep, d):
    """False when the drive's node has a probe document that does not show it (a drive
    only its read claims: reported, never a reference)."""
    probe = sweep.probe.get(d.node)
    return probe is None or probe_device(probe, d.name, d.pci) is not None


def unshown_suspects(sweep):
    """A node whose read claims drives its own probe does not show: named, once, with
    those drives (a node cannot hide behind parts it invents)."""
    out = {}
    for d in sorted(sweep.drives.values(), key=lambda d: (d.node, d.name)):
        if not shown_by_probe(sweep, d):
            out.setdefault(d.node, []).append(d.name)
    return [_suspect("node", n, "%d drive%s its probe does not show" % (
        len(ds), "" if len(ds) == 1 else "s"), "low", None, {"unshown_drives": ds[:16],
                                                             "unshown_count": len(ds)})
        for n, ds in sorted(out.items())]


def _no_reference(part, shown, med):
    """Why a part has no fleet median to be judged against, or None."""
    if not shown:
        return "not shown by its node's probe: never a reference"
    return None if med is not None else "no other node has its kind: no reference"


def judge_drives(sweep, threshold):
    drives = sorted(sweep.drives.values(), key=lambda d: (d.node, d.name))
    kind = {id(d): _drive_kind(sweep, d) for d in drives}
    shown = {id(d): shown_by_probe(sweep, d) for d in drives}
    med = _median_by(drives, lambda d: kind[id(d)], lambda d: d.solo, lambda d: d.node,
                     lambda d: shown[id(d)])
    parts, suspects = [], []
    for d in drives:
        m = med.get(kind[id(d)])
        r = _ratio(d.solo, m)
        parts.append({"kind": "drive", "node": d.node, "component": d.name,
                      "group": _group_words(kind[id(d)]),
                      "figure_gb_per_s": d.solo, "fleet_median_gb_per_s": m, "ratio": r,
                      "ceiling_gb_per_s": d.ceiling, "ratio_to_ceiling": _ratio(d.solo, d.ceiling)})
        why = _no_reference(parts[-1], shown[id(d)], m)
        if why:
            parts[-1]["note"] = why
        if r is None or r >= threshold:
            continue
        rr = _ratio(d.retest, m)
        state = "unsteady" if rr is not None and rr >= threshold else "low"
        ev = {"figure_gb_per_s": d.solo, "fleet_median_gb_per_s": m, "model": d.model,
              "retest_gb_per_s": d.retest, "retest_ratio": rr,
              "ceiling_gb_per_s": d.ceiling, "ratio_to_ceiling": _ratio(d.solo, d.ceiling),
              "probe": probe_evidence(probe_device(sweep.probe.get(d.node), d.name, d.pci))}
        # The drive's own account (health log, window's shape): fleet/health.py.
        ev["health"] = health.drive_evidence(getattr(sweep, "reads", {}).get(d.node), d.name, ev["probe"])
        suspects.append(_suspect("drive", d.node, d.name, state, r, ev))
    return parts, suspects


def together_ceiling(sweep, node):
    """(GB/s, shared hops): NODE's drives alone summed, each link they share (the
    probe's path of each drive) holding the drives behind it to what it carries."""
    s = pcipath.capped_sum([(d.solo, probe_device(sweep.probe.get(node), d.name, d.pci))
                            for d in sweep.drives.values() if d.node == node and d.solo])
    return s.capped, s.caps


def judge_together(sweep, threshold, drive_suspect_nodes):
    """A node's drives together against the nodes with the same drives."""
    kinds = {}
    for d in sweep.drives.values():
        kinds.setdefault(d.node, []).append(_drive_kind(sweep, d))
    key = {n: tuple(sorted(map(repr, k))) for n, k in kinds.items()}
    nodes = sorted(sweep.together)
    shown = {n: all(shown_by_probe(sweep, d) for d in sweep.drives.values() if d.node == n)
             for n in nodes}
    med = _median_by(nodes, lambda n: key.get(n), lambda n: sweep.together[n], lambda n: n,
                     lambda n: shown[n])
    parts, suspects = [], []
    for n in nodes:
        m = med.get(key.get(n))
        r = _ratio(sweep.together[n], m)
        ideal, shared = together_ceiling(sweep, n)
        parts.append({"kind": "node", "node": n, "component": "drives together",
                      "group": "%d drives" % len(kinds.get(n, [])),
                      "figure_gb_per_s": sweep.together[n], "fleet_median_gb_per_s": m,
                      "ratio": r, "ceiling_gb_per_s": ideal or None, "shared_hops": shared,
                      "ratio_to_ceiling": _ratio(sweep.together[n], ideal)})
        why = _no_reference(parts[-1], shown[n], m)
        if why:
            parts[-1]["note"] = why
        # A slow drive pulls its node's total down: that is the drive, named already.
        if r is None or r >= threshold or n in drive_suspect_nodes:
            continue
        rr = _ratio(sweep.together_retest.get(n), m)
        state = "unsteady" if rr is not None and rr >= threshold else "low"
        ev = {"figure_gb_per_s": sweep.together[n], "fleet_median_gb_per_s": m,
              "sum_of_solos_gb_per_s": ideal, "retest_gb_per_s": sweep.together_retest.get(n),
              "retest_ratio": rr}
        suspects.append(_suspect("node", n, "drives together", state, r, ev))
    return parts, suspects


def _solos_by_node(sweep):
    """{node: the sum of its drives alone}."""
    out = {}
    for d in sweep.drives.values():
        if d.solo:
            out[d.node] = out.get(d.node, 0.0) + d.solo
    return out


def _suspect(kind, node, component, state, ratio, evidence, peer=None):
    s = {"kind": kind, "node": node, "component": component, "state": state,
         "ratio": round(ratio, 4) if ratio is not None else None, "evidence": evidence}
    if peer is not None:
        s["peer"] = peer
    return s


def _fabric_kind(sweep, t):
    """Line rate and link layer of a transfer's ports (computed once per transfer)."""
    k = getattr(t, "kind", None)
    if k is not None:
        return k
    for node, dev in ((t.dst, t.dst_dev), (t.src, t.src_dev)):
        d = probe_device(sweep.probe.get(node), dev) if dev else None
        layer = dig(d, "network", "link_layer") if d else None
        layer = layer if isinstance(layer, str) else None
        if layer:
            break
    t.kind = (round(t.line_rate, 2) if t.line_rate else None, layer)
    return t.kind


def _gb_words(v):
    return "%g" % v if isinstance(v, (int, float)) else "unknown"


def _fabric(sweep):
    """The fabric's transfers and each one's ratio to the median of its kind (of the
    screening's transfers): (transfers, ratio of, by rail without the rails measured
    alone, {(node, rail): {partner: [ratios]}} of those)."""
    fab = [t for t in sweep.transfers if t.channel != "remote"]
    kind = {id(t): _fabric_kind(sweep, t) for t in fab}
    med = _median_by([t for t in fab if not t.retest], lambda t: kind[id(t)], lambda t: t.gbps,
                     lambda t: t.dst)

    def ratio(t, gbps=None):
        """t's ratio to its kind's median (of gbps instead of its figure: the sender's
        own figure of a retest)."""
        return _ratio(t.gbps if gbps is None else gbps, med.get(kind[id(t)]))

    by_rail, alone = {}, {}
    for t in fab:
        if not t.alone:
            by_rail.setdefault(t.channel, []).append(t)
            continue
        r = ratio(t)
        if r is not None:
            for x, y in ((t.src, t.dst), (t.dst, t.src)):
                alone.setdefault((x, t.channel), {}).setdefault(y, []).append(r)
    return fab, ratio, by_rail, alone


def judge_fabric(sweep, threshold, topo=None, uplinks=None, explained=None):
    """(parts, suspects) of the fabric; with a topology (nbw.fleet.topology), a leaf's
    uplink whose crossing pairs are low is named first and those transfers leave the
    pair rule (uplinks: a list that gets every leaf's counts; explained: a set that gets
    the ids of the transfers an uplink explains, which the floors leave out too)."""
    fab, ratio, by_rail, alone = _fabric(sweep)
    devs = {}
    for t in fab:
        devs.setdefault((t.src, t.channel), t.src_dev)
        devs.setdefault((t.dst, t.channel), t.dst_dev)
    parts, suspects, links = [], [], {}

    def sent(t):
        v = sent_by(sweep, t)
        return None if v is None else ratio(t, v)

    for rail in sorted(by_rail):
        if topo is not None:
            before = by_rail[rail]
            by_rail[rail], ups, counts = topology.judge_uplinks(rail, by_rail[rail], ratio, topo,
                                                                threshold)
            if explained is not None:
                kept = {id(t) for t in by_rail[rail]}
                explained.update(id(t) for t in before if id(t) not in kept)
            suspects += [_suspect("uplink", lf, topology.component(lf, rail, ev), st, r, ev)
                         for lf, st, r, ev in ups]
            if uplinks is not None:
                uplinks += counts
        pairs = _Pairs(rail, by_rail[rail], ratio, lambda t, x: t.line_rate, sent)
        p, s, lk = judge_pairs(pairs, threshold, "rail %d" % rail, "rail")
        for e in p:
            e["device"] = devs.get((e["node"], rail))
            e["group"] = "line rate %s GB/s" % _gb_words(e["ceiling_gb_per_s"])
        parts += p
        for x, state, r, ev in s:
            suspects.append(_rail_suspect(sweep, x, rail, (state, r, ev), by_rail[rail], ratio,
                                          devs.get((x, rail)), alone.get((x, rail)),
                                          threshold))
        for a, b, state, r, ev in lk:
            links.setdefault((a, b), []).append((rail, state, r, ev))
    for (a, b), per in sorted(links.items()):
        rails = [r for r, _, _, _ in per]
        state = "low" if any(st == "low" for _, st, _, _ in per) else "unsteady"
        comp = ("rail %d" % rails[0] if len(rails) == 1 else
                "rails %s" % ",".join(str(r) for r in rails)) + " to " + b
        ev = {"rails": {str(r): e for r, _, _, e in per}}
        suspects.append(_suspect("link", a, comp, state, min(r for _, _, r, _ in per), ev,
                                 peer=b))
    return parts, _collapse_rails(suspects, len(by_rail), threshold)


def _rail_suspect(sweep, x, rail, judged, transfers, ratio, dev, alone, threshold):
    """A rail under suspicion (judged: its state, ratio and evidence so far) with the
    rest of its evidence: its port, line rate and median, the probe's word on its link,
    what its receiving ports counted, and how it measured alone when it was (alone:
    {partner: [ratios]})."""
    state, r, ev = judged
    comp = "rail %d" % rail + (" (%s)" % dev if dev else "")
    mine = [t for t in transfers if x in (t.src, t.dst)]
    ev["device"] = dev
    ev["line_rate_gb_per_s"] = next((t.line_rate for t in mine), None)
    ev["fleet_median_gb_per_s"] = next((t.gbps / ratio(t) for t in mine if ratio(t)), None)
    ev["probe"] = probe_evidence(probe_device(sweep.probe.get(x), dev)) if dev else None
    low = [t for t in mine if (ratio(t) or 0) < threshold]
    ev["counters"] = rail_counters(x, comp, r, low)
    if alone:
        ev["alone"] = {p: round(min(rs), 4) for p, rs in sorted(alone.items())}
        ev["alone_low"] = min(min(rs) for rs in alone.values()) < threshold
    return _suspect("rail", x, comp, state, r, ev)


def rail_counters(node, comp, ratio, low):
    """What the receiving ports of a low rail's low transfers counted (each transfer's
    document is its sink's, read again for these few): kept and still, the rate itself
    is limited; a loss or congestion counter moved; or not kept (never read as 0). None
    without any counter."""
    ports = [p for t in low[:32] for p in counters_of(t)]
    if not ports:
        return None
    t = portcounters.tally(ports)
    v = portcounters.still(t)
    ref = "%.2f of its peers' median" % ratio if ratio is not None else "low"
    where = "on the receiving end of its %d low transfer%s" % (
        len(low), "" if len(low) == 1 else "s")
    says = portcounters.words(t, where)
    return dict(t, still=v, low_transfers=len(low), says=says,
                text="%s on %s: %s; %s" % (comp, node, ref, says))


def _collapse_rails(suspects, total, threshold):
    """A node's rails that stay low: all of them, the node, once, with its rails as
    evidence; those measured alone and normal there, a limit they share upstream (the
    node's). Unsteady rails stay as they are."""
    rails_of = {}
    for s in suspects:
        if s["kind"] == "rail":
            rails_of.setdefault(s["node"], []).append(s)
    out = [s for s in suspects if s["kind"] != "rail"]
    for node, rs in sorted(rails_of.items()):
        low = [s for s in rs if s["state"] == "low"]
        tried = [s for s in low if "alone" in s["evidence"]]
        if tried and not any(s["evidence"]["alone_low"] for s in tried):
            out += [s for s in rs if s["state"] != "low"]
            out.append(_upstream(node, low, total))
            continue
        out += _fold_node(node, rs, total, "rails")
    return out


def _upstream(node, low, total):
    """Rails low while every rail runs and normal measured alone: what they share."""
    rails = sorted(int(s["component"].split()[1]) for s in low)
    what = "all %d rails" % total if len(low) == total and total > 1 else \
        "rail %d" % rails[0] if len(rails) == 1 else "rails %s" % ",".join(map(str, rails))
    ev = {"rails": {s["component"]: s["evidence"] for s in low},
          "alone": {s["component"]: s["evidence"]["alone"] for s in low
                    if "alone" in s["evidence"]},
          "shared_upstream": True}
    return _suspect("node", node, "%s together (a shared upstream)" % what, "low",
                    statistics.median(s["ratio"] for s in low), ev)


def _fold_node(node, parts, total, what):
    """A node's parts of one kind under suspicion: the node, once, when all total of
    them (more than one) stay low, with each part's evidence; else the parts
    themselves. A part normal when measured again (unsteady) is never folded in."""
    low = [s for s in parts if s["state"] == "low"]
    if total <= 1 or len(low) != total:
        return parts
    return [_suspect("node", node, "all %d %s" % (len(low), what), "low",
                     statistics.median(s["ratio"] for s in low),
                     {what: {s["component"]: s["evidence"] for s in low}})]


def remote_reference(sweep, threshold, transfers, base_parts=None):
    """(share of a transfer, the fleet's median share or None): a drive -> remote figure
    as a share of its source's drives together (else its drives alone summed). Each
    sink (whose report the figure is) is one voice, and a share whose base is out of
    line with its peers (a source's own total below the threshold of its kind, above
    its inverse, or with no peer to hold it to) is never part of the median: no one
    node's total or reports set it. base_parts: the judge's parts of the drives and of
    the drives together, when judged already."""
    solos = _solos_by_node(sweep)
    if base_parts is None:
        base_parts = judge_drives(sweep, threshold)[0] + judge_together(sweep, threshold,
                                                                          set())[0]
    base_ratios = {}
    for p in base_parts:
        if (p["kind"] == "node") == (p["node"] in sweep.together):
            base_ratios.setdefault(p["node"], []).append(p["ratio"])

    def in_line(node, low=threshold):
        rs = base_ratios.get(node) or [None]
        return all(r is not None and low <= r <= 1 / threshold for r in rs)

    def share(t, gbps=None):
        # A base above its peers' or with none to hold it to is only its node's word:
        # its shares are not judged (a source claiming 420 GB/s names no partner).
        if not in_line(t.src, 0):
            return None
        base = sweep.together.get(t.src)
        if base is None:
            base = solos.get(t.src)
        return _ratio(t.gbps if gbps is None else gbps, base)

    shares = {id(t): share(t) for t in transfers}
    med = _median_by([t for t in transfers if not t.retest], lambda t: 0,
                     lambda t: shares[id(t)], lambda t: t.dst, lambda t: in_line(t.src))
    # share_of(t): its cached share; share_of(t, gbps): the share of another figure of
    # t (the sender's own of a retest).
    return (lambda t, gbps=None: shares.get(id(t)) if gbps is None else share(t, gbps)), \
        med.get(0)


def judge_remote(sweep, threshold, base_parts=None):
    rem = [t for t in sweep.transfers if t.channel == "remote"]
    share, m = remote_reference(sweep, threshold, rem, base_parts)
    shares = {id(t): share(t) for t in rem}
    def sent(t):
        v = sent_by(sweep, t)
        return None if v is None else _ratio(share(t, v), m)

    pairs = _Pairs("remote", rem, lambda t: _ratio(shares[id(t)], m),
                   lambda t, x: sweep.together.get(t.src) if x == t.src else None, sent)
    parts, s, lk = judge_pairs(pairs, threshold, "drive->remote", "node")
    for e in parts:
        e["group"] = "share of its drives together"
    suspects = []
    for x, state, ratio, ev in s:
        ev["fleet_median_share_of_local"] = m
        suspects.append(_suspect("node", x, "drive->remote", state, ratio, ev))
    for a, b, state, ratio, ev in lk:
        ev["fleet_median_share_of_local"] = m
        suspects.append(_suspect("link", a, "drive->remote to " + b, state, ratio, ev, peer=b))
    return parts, suspects


def _explain_remote(fsus, rsus):
    """A drive -> remote figure low through a node whose rail (or every rail) is named
    is that rail's: the transfer rides it. Such suspects go into the rail's evidence
    (drive_remote_low) and are not named again."""
    by_node = {}
    for s in fsus:
        if s["kind"] in ("rail", "node"):
            by_node.setdefault(s["node"], []).append(s)
    out = []
    for s in rsus:
        ends = [s["node"]] + ([s["peer"]] if s.get("peer") else [])
        named = [x for x in ends if x in by_node]
        if not named:
            out.append(s)
            continue
        for x in named:
            for f in by_node[x]:
                f["evidence"].setdefault("drive_remote_low", []).append(
                    {"node": s["node"], "peer": s.get("peer"), "state": s["state"],
                     "ratio": s["ratio"],
                     "low_directions": s["evidence"].get("low_directions")})
    return out


def judge(sweep, threshold=THRESHOLD, worst=10, topo=None, floors=None, spec=None):
    """The judgement: {"threshold", "nodes", "verdicts" (one per node), "kinds" (a
    summary per kind of part, its worst first), "suspects" (worst first),
    "not_measured_parts", "parts", "uplinks" (each leaf's pairs per rail, with a
    topology: topo, else the one sweep.json keeps), ...}. floors, spec: nbw.fleet.spec's
    (None: the sweep's own, else the default floors and no spec). The sweep's figures
    above their ceilings are taken out of it first (nbw.fleet.floors.take_claims)."""
    floors, spec = floorsmod.settings(sweep.meta, floors, spec)
    # --floor none (an emulated lab): the ceilings say nothing, no claim is held to them.
    claims = floorsmod.take_claims(sweep, probe_device) if floors else []
    dparts, dsus = judge_drives(sweep, threshold)
    low_drive_nodes = {s["node"] for s in dsus}
    tparts, tsus = judge_together(sweep, threshold, low_drive_nodes)
    dsus = _collapse_drives(sweep, dsus) + unshown_suspects(sweep)
    topo = topo if topo is not None else topology.load(sweep.meta)
    uplinks, explained = [], set()
    fparts, fsus = judge_fabric(sweep, threshold, topo, uplinks, explained)
    rparts, rsus = judge_remote(sweep, threshold, dparts + tparts)
    rsus = _explain_remote(fsus, rsus)
    order = {"node": 0, "uplink": 1, "rail": 1, "drive": 2, "link": 3}
    suspects = sorted(dsus + tsus + fsus + rsus,
                      key=lambda s: (s["state"] != "low", s["ratio"] if s["ratio"] is not None
                                     else 1.0, order[s["kind"]], s["node"], s["component"]))
    suspects = floorsmod.merge(suspects, claims + _own_bars(sweep, floors, spec, explained),
                               threshold)
    parts = dparts + tparts + fparts + rparts
    missing = verdict.missing_parts(sweep, verdict.expected_parts(sweep.meta))
    # An uplink is no node's: it makes none SUSPECT.
    verdicts = verdict.node_verdicts(sweep, [s for s in suspects if s["kind"] != "uplink"],
                                     missing)
    skipped = sweep.meta.get("skipped") if isinstance(sweep.meta.get("skipped"), list) else []
    failed = sweep.meta.get("failed") if isinstance(sweep.meta.get("failed"), list) else []
    failed = [{"part": f["part"], "reason": str(f.get("reason", ""))[:300]} for f in failed
              if isinstance(f, dict) and isinstance(f.get("part"), str)]
    tally = {v: sum(x["verdict"] == v for x in verdicts)
             for v in ("PASS", "SUSPECT", "NOT MEASURED")}
    return {
        "tool": "nbw-fleet", "command": "judge", "threshold": threshold,
        "suite_version": sweep.meta.get("suite_version"),
        "nodes": len(sweep.nodes), "measured_nodes": len(verdict.measured_kinds(sweep)),
        "verdict_counts": tally,
        "not_measured": [x["node"] for x in verdicts if x["verdict"] == "NOT MEASURED"],
        "skipped": skipped, "failed": failed, "unreadable": sweep.unreadable,
        "not_measured_parts": missing,
        "counts": {"drives": len(dparts), "rail_parts": len(fparts),
                   "transfers": sum(not t.retest for t in sweep.transfers),
                   "retests": sum(t.retest for t in sweep.transfers)},
        "floors": floors, "spec": floorsmod.spec_summary(spec),
        "kinds": verdict.kind_summary(parts, threshold, worst),
        "suspects": suspects,
        "verdicts": verdicts,
        "groups": sweep.meta.get("groups") if isinstance(sweep.meta.get("groups"), dict)
        else {},
        "parts": parts,
        "topology": topo.source if topo is not None else None,
        "uplinks": uplinks,
    }


def _drive_of(sweep, node, dev):
    """A probe's controller as its drive's name (nvme0 -> nvme0n1), else its own."""
    for d in sweep.drives.values():
        if d.node == node and (d.pci and _norm_bdf(d.pci) == _norm_bdf(dev.get("bdf"))):
            return d.name
    return str(dev.get("name") or dev.get("bdf"))


def _own_bars(sweep, floors, spec, explained=()):
    """The suspects of the probe's verdict and of the parts below their floor or spec
    (nbw.fleet.floors), a node's every drive or rail folded into the node."""
    fd = floorsmod.judge_drive_floors(sweep, floors, spec, probe_device)
    fr, fk = floorsmod.judge_rail_floors(sweep, floors, spec,
                                         floorsmod.Nics(sweep, probe_device), explained)
    rails = len({t.channel for t in sweep.transfers if t.channel != "remote"})
    out = [floorsmod.folded(s) for s in _collapse_drives(sweep, fd) +
           _collapse_rails(fr, rails, 1.0)]
    return floorsmod.probe_suspects(sweep, lambda n, d: _drive_of(sweep, n, d)) + out + fk


def _collapse_drives(sweep, suspects):
    """Every drive of a node low: the node, once, with its drives as evidence."""
    count = {}
    for d in sweep.drives.values():
        count[d.node] = count.get(d.node, 0) + 1
    by_node = {}
    for s in suspects:
        by_node.setdefault(s["node"], []).append(s)
    out = []
    for node, ss in sorted(by_node.items()):
        out += _fold_node(node, ss, count.get(node, 0), "drives")
    return out


def pair_matrix(sweep, threshold=THRESHOLD):
    """{(a, b): worst ratio over rails and directions} of the sweep's fabric transfers
    (a before b), for the heat map."""
    fab = [t for t in sweep.transfers if t.channel != "remote" and not t.retest]
    kind = {id(t): _fabric_kind(sweep, t) for t in fab}
    med = _median_by(fab, lambda t: kind[id(t)], lambda t: t.gbps, lambda t: t.dst)
    out = {}
    for t in fab:
        r = _ratio(t.gbps, med.get(kind[id(t)]))
        if r is None:
            continue
        key = (min(t.src, t.dst), max(t.src, t.dst))
        out[key] = min(out.get(key, r), r)
    return out
