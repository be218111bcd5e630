"""The gap between ideal and measured, explained hop by hop: a table of rules,
each naming the keys it reads and what their moving usually means, applied
to the documents of a ladder run. The RDMA ports' counters are explained by
nvme_write_bw_remote itself (its "attribution": a rail below its peers and
what its port counted); this module carries those over and adds what only
the whole run shows: a drive's or a NIC's PCIe link that trained down under
load or retrained ("link_under_load"), its AER errors ("aer"), a drive below
its peers, a drive's own account of itself (nbw.drivehealth: it throttled, crossed its
warning temperature, logged media errors, raised a critical warning, or its window was
unsteady; a drive below its peers with none of it and no link change is the drive
itself); and, for a rail low with no rule fired, what both ends' ports counted: kept
and still on either end, the rate itself is limited (nbw.portcounters). Pure functions
of the documents, standard library only."""
from .. import drivehealth, portcounters
from ..jsonutil import as_number, dicts, dig, gb_text

GENS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
LOW_PCT = 10.0  # a drive this many % below its peers' median is named (as a rail is)


def link_name(link):
    """ "Gen4 x4" of {"speed_gts": 16.0, "width": 4}; None when it says neither."""
    if not isinstance(link, dict):
        return None
    s, w = as_number(link.get("speed_gts")), as_number(link.get("width"))
    if s is None or not w:
        return None
    return "Gen%d x%d" % (GENS[s], w) if s in GENS else "%g GT/s x%d" % (s, w)


def link_rank(link):
    """A link's raw rate (GT/s x lanes), to say which of two is narrower."""
    s, w = as_number(dig(link, "speed_gts")), as_number(dig(link, "width"))
    return s * w if s is not None and w else None


def rule_link_down(dev):
    """The link sampled under load was narrower than before the window."""
    lul = dev.get("link_under_load")
    before, low = dig(lul, "before"), dig(lul, "min")
    rb, rl = link_rank(before), link_rank(low)
    if rb is None or rl is None or rl >= rb:
        return None
    first = next((c for c in dicts(dig(lul, "changes")) if isinstance(c, dict)
                  and link_rank(c) is not None and link_rank(c) < rb), None)
    when = " (from %.1f s)" % as_number(first["t_s"]) if first and as_number(first.get("t_s")) is not None else ""
    after = dig(lul, "after")
    back = ""
    if link_rank(after) is not None and link_rank(after) >= rb:
        back = " and after it"
    return ("its link trained %s during the window%s, %s before it%s" %
            (link_name(low), when, link_name(before), back))


def rule_link_retrained(dev):
    """The link changed under load without ever being narrower: it retrained."""
    lul = dev.get("link_under_load")
    changes = [c for c in dicts(dig(lul, "changes")) if isinstance(c, dict)]
    if not changes or rule_link_down(dev):
        return None
    return "its link retrained %d time%s during the window" % (len(changes), "" if len(changes) == 1 else "s")


def aer_delta(dev, kind):
    v = dig(dev, "aer", kind)
    return as_number(dig(v, "delta")) if isinstance(v, dict) else None


def rule_aer_correctable(dev):
    d = aer_delta(dev, "correctable")
    return "%s correctable PCIe errors (AER) in the window" % "{:,}".format(int(d)) if d else None


def rule_aer_uncorrectable(dev):
    nf, fa = aer_delta(dev, "nonfatal") or 0, aer_delta(dev, "fatal") or 0
    if not nf and not fa:
        return None
    return "%s non-fatal and %s fatal PCIe errors (AER) in the window" % (
        "{:,}".format(int(nf)), "{:,}".format(int(fa)))


# The rules on a device object: (name, the keys it reads, the rule, what it usually means).
DEVICE_RULES = (
    ("link_trained_down", "link_under_load.before, .min, .changes", rule_link_down,
     "a link that trains down under load: signal integrity (riser, cable, slot) or heat"),
    ("link_retrained", "link_under_load.changes", rule_link_retrained,
     "the link retrained under load: a marginal signal; each retraining stalls it"),
    ("aer_correctable", "aer.correctable.delta", rule_aer_correctable,
     "the link replays packets it received damaged: a marginal signal costs bandwidth"),
    ("aer_uncorrectable", "aer.nonfatal.delta, aer.fatal.delta", rule_aer_uncorrectable,
     "the device or link failed transactions: the figure is not the hardware's best"),
)


def device_name(dev):
    for k in ("name", "device", "path", "bdf", "local_dev"):
        v = dev.get(k)
        if isinstance(v, str) and v:
            return v.rsplit("/", 1)[-1]
    return "?"


def devices(doc):
    """Every object of a document that carries a link sampled under load or AER counts."""
    out, todo = [], [doc]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            if isinstance(x.get("link_under_load"), dict) or isinstance(x.get("aer"), dict):
                out.append(x)
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return out


def explain_device(node, dev):
    """The findings of one device: a dict per rule that fires."""
    out, name = [], device_name(dev)
    for rule, keys, fn, meaning in DEVICE_RULES:
        said = fn(dev)
        if said:
            out.append({"node": node, "hop": name, "rule": rule, "keys": keys,
                        "meaning": meaning, "text": "%s on %s: %s: %s" % (name, node, said, meaning)})
    return out


def drive_peers(node, rungs):
    """Drives read alone on NODE, each against the median of those on the same link."""
    alone = [r for r in rungs if r["node"] == node and r["kind"] == "drive"
             and r["name"].startswith("drive ") and as_number(r["measured_gb_per_s"])]
    out = []
    for r in alone:
        peers = sorted(p["measured_gb_per_s"] for p in alone if p.get("link") == r.get("link"))
        if len(peers) < 2:
            continue
        n = len(peers)
        med = peers[n // 2] if n % 2 else (peers[n // 2 - 1] + peers[n // 2]) / 2
        below = (med - r["measured_gb_per_s"]) / med * 100 if med else 0
        if below >= LOW_PCT:
            name = r["name"][len("drive "):]
            out.append({"node": node, "hop": name, "rule": "drive_below_peers",
                        "keys": "baseline[].gb_per_s", "below_peers_pct": below,
                        "meaning": "the drive itself, or its placement (NUMA, a shared switch)",
                        "text": "drive %s on %s: %.0f%% below its peers (%s GB/s, their median %s)"
                                % (name, node, below, gb_text(r["measured_gb_per_s"]), gb_text(med))})
    return out


def _ports(doc, dev=None, port=None):
    """The port objects of a document's "counters" (those of dev:port, when given)."""
    return [p for p in dicts(dig(doc, "counters")) if isinstance(p, dict)
            and (dev is None or (p.get("device") == dev and (port is None or p.get("port") == port)))]


def _far_dev(doc, dev):
    """The far end's device of the rail whose near end is dev, or None."""
    for r in dicts(dig(doc, "rails")):
        if isinstance(r, dict) and r.get("local_dev") == dev and isinstance(r.get("remote_dev"), str):
            return r["remote_dev"]
    return None


STILL_RULES = {"rate_limited": "rate_limited", "not_kept": "counters_not_kept",
               "moved": "loss_or_congestion"}


def still_finding(node, doc, step, a, peers):
    """A low rail whose own port fired no rule: what its port and the far end's counted."""
    dev, port = a.get("device"), a.get("port")
    far = _far_dev(doc, dev)
    theirs = [p for _, d in peers for p in _ports(d, far)] if far else []
    if not theirs:
        theirs = [p for _, d in peers for p in _ports(d)]
    t = portcounters.tally(_ports(doc, dev, port) + theirs)
    v = portcounters.still(t)
    where = "on either end" if theirs else "on this end"
    ref = ("%.0f%% below its line rate" % a["below_line_rate_pct"]
           if as_number(a.get("below_line_rate_pct")) is not None else
           "%.0f%% below its peers" % a["below_peers_pct"]
           if as_number(a.get("below_peers_pct")) is not None else "low")
    return {"node": node, "hop": "rail %s:%s" % (dev, port), "rule": STILL_RULES.get(v, "below_peers"),
            "keys": "attribution[].counters_still, counters", "step": step,
            "below_peers_pct": as_number(a.get("below_peers_pct")), "counters": t,
            "either_end": bool(theirs),
            "text": "rail %s:%s on %s: %s; %s (%s)" % (dev, port, node, ref,
                                                      portcounters.words(t, where), step)}


def remote_findings(node, doc, step, peers=()):
    """nvme_write_bw_remote's own attribution (its ports' counters) in a run's step;
    peers: the (node, document) of the other ends of the same step."""
    out = []
    for a in dicts(dig(doc, "attribution")):
        if not isinstance(a, dict) or not isinstance(a.get("text"), str):
            continue
        if a.get("hop") == "rail" and a.get("counters_still") in ("rate_limited", "not_kept"):
            out.append(still_finding(node, doc, step, a, peers))
            continue
        out.append({"node": node, "hop": "%s %s:%s" % (a.get("hop"), a.get("device"), a.get("port")),
                    "rule": ",".join(str(x.get("rule")) for x in dicts(a.get("rules"))
                                     if isinstance(x, dict)) or "below_peers",
                    "keys": "counters, rails", "step": step,
                    "below_peers_pct": as_number(a.get("below_peers_pct")),
                    "text": "%s (%s on %s)" % (a["text"], step, node)})
    return out


def drive_findings(node, doc, step):
    """What each drive a document read on its node said of itself (nbw.drivehealth's
    rules; a sink's report of its sources' drives is theirs, not its node's)."""
    out = []
    for d in drivehealth.own_drives(doc):
        name = device_name(d)
        for rule, said, meaning in drivehealth.findings(d):
            out.append({"node": node, "hop": name, "rule": rule, "keys": "drives[].health, unsteady",
                        "step": step, "meaning": meaning,
                        "text": "drive %s on %s: %s: %s (%s)" % (name, node, said, meaning, step)})
    return out


def _drive_itself(out, docs):
    """A drive below its peers that nothing else explains: said so, with whether its
    health log was read."""
    for f in out:
        if f["rule"] != "drive_below_peers":
            continue
        if any(g is not f and g["node"] == f["node"] and g["hop"] == f["hop"] for g in out):
            continue
        read = [drivehealth.drive_named(doc, f["hop"]) for _, n, doc in docs if n == f["node"]]
        ev = drivehealth.evidence(next((d for d in read if d), {}))
        if ev and ev.get("says"):
            f["text"] += ": " + ev["says"]


def explain(docs, rungs, memory=None):
    """Every finding of a run: docs is [(step, node, document)], rungs the ladder's,
    memory the binding's memory verdict (or None)."""
    out = []
    if memory:
        out.append({"node": memory["node"], "hop": "staging memory", "rule": "memory_binds",
                    "keys": "memory[].dram_gb_per_s", "text": memory["reason"]})
    for node in sorted({r["node"] for r in rungs if r.get("node")}):
        out += drive_peers(node, rungs)
    seen = set()
    for step, node, doc in docs:
        if step in ("aggregate", "fabric"):
            peers = [(n, d) for st, n, d in docs if st == step and n != node]
            out += remote_findings(node, doc, step, peers)
        for f in drive_findings(node, doc, step):
            if (f["node"], f["hop"], f["rule"]) not in seen:
                seen.add((f["node"], f["hop"], f["rule"]))
                out.append(f)
        for dev in devices(doc):
            for f in explain_device(node, dev):
                if (f["node"], f["hop"], f["rule"]) not in seen:
                    seen.add((f["node"], f["hop"], f["rule"]))
                    out.append(f)
    _drive_itself(out, docs)
    return out
