"""nbw.fleet.floors: each part held to its own bar beside its peers: physics, the probe's
verdict, the floor and the site's spec (nbw.fleet.spec reads --floor and --spec).

Physics bounds every claim: a figure above its part's ceiling (a drive above its link's
usable ceiling, a rail above its port's line rate, a node's drives together above their
ceilings summed), by more than TOLERANCE, is a claim no part can make: its claimant (the
node whose document says it) is SUSPECT, "claims more than its port can carry", and the
figure leaves the sweep before anything is judged: never a median's member, a
reference, a part's figure or a recorded figure. A transfer's figure is its sink's
report; a partner's figure comes from the partner's own side.

The probe counts: a link the probe says trained below both ends' capability, or that
fails its --expect/--expect-file (the probe's exit 3, its line kept in sweep.json's
probe_exit), makes the node SUSPECT with the probe's own line as evidence, whatever its
throughput. A probe that fails otherwise is NOT MEASURED (nbw.fleet.verdict).

Floors and spec: a drive below its bar (a spec rule for its model, else the floor times
its link's ceiling), a rail below its bar (a spec rule for its NIC's model, else the
floor times its port's line rate). A rail is measured in pairs, so the rule over pairs
(nbw.fleet.judge_pairs) names the part, or the link, at a threshold of 1 of the bar: a
pair's bar is the lower of its two ends'. What was measured again and is above its bar
is unsteady.

Each suspect says its rule ("rule": peers, floor, spec, probe, physics; "rules" when
more than one named it) and its severity (its figure over its bar: the furthest below
first).
"""

from ..jsonutil import as_number, dicts, dig, printable
from . import spec as specmod
from .judge_pairs import _Pairs, judge_pairs, ratio_of_bar
from .sweepdir import load_json, sent_by

TOLERANCE = 1.05  # above its ceiling by more than 5%: a claim, not a measurement's noise
RULE_WORDS = {"peers": "below its peers", "floor": "below its floor",
              "spec": "below its spec", "probe": "the probe's verdict",
              "physics": "claims more than its port can carry"}


def _suspect(kind, node, comp, state, ratio, rule, ev, severity):
    return {"kind": kind, "node": node, "component": comp, "state": state,
            "ratio": round(ratio, 4) if ratio is not None else None, "evidence": ev,
            "rule": rule, "rules": [rule], "severity": round(severity, 4)}


# --- the parts' identities and ceilings ---------------------------------------------

def drive_ceiling(sweep, d, probe_device):
    """A drive's link ceiling: nvme_read_bw's, else the probe's usable ceiling."""
    if d.ceiling:
        return d.ceiling
    dev = probe_device(sweep.probe.get(d.node), d.name, d.pci)
    v = as_number(dig(dev, "ceiling_gb_per_s", "usable")) if dev else None
    return v if v and v > 0 else None


def drive_firmware(sweep, d):
    for x in dicts(dig(sweep.reads.get(d.node), "drives")):
        name = x.get("name") or x.get("path")
        if isinstance(name, str) and name.rsplit("/", 1)[-1] == d.name:
            fw = x.get("firmware")
            return fw if isinstance(fw, str) else None
    return None


class Nics:
    """Each (node, port) NIC model: its board_id in the remote's provenance (read once
    from one of the node's documents), else the probe's model of the device."""

    def __init__(self, sweep, probe_device):
        self.sweep, self.probe_device, self.docs, self.cache = sweep, probe_device, {}, {}

    def model(self, node, dev, path):
        key = (node, dev)
        if key not in self.cache:
            if node not in self.docs and path:  # its ports alone kept, not the document
                self.docs[node] = dicts(dig(load_json(path), "provenance", "rdma_ports"))[:64]
            ports = self.docs.get(node)
            m = next((p.get("board_id") for p in dicts(ports)
                      if p.get("device") == dev and isinstance(p.get("board_id"), str)), None)
            if m is None and dev:
                d = self.probe_device(self.sweep.probe.get(node), dev)
                m = d.get("model") if d and isinstance(d.get("model"), str) else None
            self.cache[key] = m
        return self.cache[key]

    def models(self):
        return {m for m in self.cache.values() if m}


# --- physics ---------------------------------------------------------------------------

def take_claims(sweep, probe_device):
    """Every figure above its part's ceiling taken out of the sweep; one physics suspect
    per claimant and kind of part."""
    found = {}  # (node, kind, component) -> [(claimed, ceiling)]

    def note(node, kind, comp, v, c):
        found.setdefault((node, kind, comp), []).append((v, c))

    for d in sweep.drives.values():
        c = drive_ceiling(sweep, d, probe_device)
        for attr in ("solo", "retest"):
            v = getattr(d, attr)
            if c and v is not None and v > c * TOLERANCE:
                note(d.node, "drive", d.name, v, c)
                setattr(d, attr, None)
    for node, total in list(sweep.together.items()) + list(sweep.together_retest.items()):
        cs = [drive_ceiling(sweep, d, probe_device) for d in sweep.drives.values()
              if d.node == node]
        if cs and all(cs) and total > sum(cs) * TOLERANCE:
            note(node, "node", "drives together", total, sum(cs))
            sweep.together.pop(node, None)
            sweep.together_retest.pop(node, None)
    keep = []
    for t in sweep.transfers:
        if t.channel != "remote" and t.line_rate and t.gbps > t.line_rate * TOLERANCE:
            note(t.dst, "rail", "rail %s" % t.channel, t.gbps, t.line_rate)
        else:
            keep.append(t)
        s = sweep.sent.get((t.src, t.dst, t.channel, t.alone))
        if t.channel != "remote" and t.line_rate and s is not None and \
                s > t.line_rate * TOLERANCE:
            note(t.src, "rail", "rail %s" % t.channel, s, t.line_rate)
            sweep.sent.pop((t.src, t.dst, t.channel, t.alone))
    sweep.transfers[:] = keep
    by_part = {}
    for (node, kind, comp), vs in sorted(found.items()):
        by_part.setdefault((node, kind), []).append((comp, vs))
    out = []
    for (node, kind), comps in sorted(by_part.items()):
        vs = [x for _, v in comps for x in v]
        v, c = max(vs, key=lambda x: x[0] / x[1])
        ev = {"claimed_gb_per_s": v, "ceiling_gb_per_s": c, "claims": len(vs),
              "parts": [x for x, _ in comps][:16],
              "ceiling": "line rate" if kind == "rail" else "link ceiling"}
        comp = comps[0][0] if len(comps) == 1 else "%d drives" % len(comps) \
            if kind == "drive" else "rails " + ",".join(x.split()[-1] for x, _ in comps)
        out.append(_suspect(kind, node, comp, "low", v / c, "physics", ev, c / v))
    return out


# --- the probe's verdict ------------------------------------------------------------

def _device_finding(dev):
    """Why the probe's word on a device makes its node a suspect, or None."""
    exp = dev.get("expectation")
    if isinstance(exp, dict) and exp.get("met") is False:
        return "expectation not met: %s" % printable(str(exp.get("reason") or "below it"))[:200]
    site = dev.get("site_spec")
    if isinstance(site, dict) and site.get("met") is False and not site.get("accepted"):
        return "short of --expect-file line %s: %s" % (
            site.get("line"), printable(str(site.get("reason") or ""))[:200])
    if dev.get("verdict") == "downgraded" and dev.get("limited_by") == "training":
        return "trained below both ends' capability"
    return None


def _severity(dev):
    link = dev.get("link") if isinstance(dev.get("link"), dict) else {}
    now = [as_number(link.get(k)) for k in ("speed_gts", "width")]
    cap = [as_number(link.get(k)) for k in ("max_speed_gts", "max_width")]
    if all(now) and all(cap):
        return min(1.0, now[0] * now[1] / (cap[0] * cap[1]))
    return 0.5


def probe_suspects(sweep, drive_of):
    """The nodes the probe names: a device trained below its capability or failing an
    expectation, with the probe's own line (its exit 3) as evidence."""
    exits = sweep.meta.get("probe_exit") if isinstance(sweep.meta.get("probe_exit"), dict) \
        else {}
    out = []
    for node in sorted(set(sweep.probe) | set(exits)):
        ex = exits.get(node) if isinstance(exits.get(node), dict) else {}
        lines = [printable(str(x))[:300] for x in (ex.get("lines") or [])[:16]]
        named = 0
        for dev in dicts(dig(sweep.probe.get(node), "devices")):
            why = _device_finding(dev)
            if why is None:
                continue
            name = dev.get("name") if isinstance(dev.get("name"), str) else dev.get("bdf")
            mine = [x for x in lines if name and name + " " in x + " " or
                    isinstance(dev.get("bdf"), str) and dev["bdf"] in x]
            link = dev.get("link") if isinstance(dev.get("link"), dict) else {}
            ev = {"device": name, "bdf": dev.get("bdf"), "says": why,
                  "link": "%s GT/s x%s of %s GT/s x%s" % tuple(as_number(link.get(k)) for k in (
                      "speed_gts", "width", "max_speed_gts", "max_width")),
                  "probe_exit": ex.get("status"), "probe_lines": mine[:4]}
            kind = "rail" if dev.get("kind") == "rdma" else "drive"
            comp = (drive_of(node, dev) if kind == "drive" else str(name)) + " link"
            sev = _severity(dev)
            out.append(_suspect(kind, node, comp, "low", sev, "probe", ev, sev))
            named += 1
        if not named and ex.get("status") == 3:
            ev = {"says": "its expectation not met", "probe_exit": 3, "probe_lines": lines[:4]}
            out.append(_suspect("node", node, "links", "low", None, "probe", ev, 0.5))
    return out


# --- floors and spec -----------------------------------------------------------------

def _verdict(v, bar, again):
    """(state, ratio to bar) of a figure below its bar: unsteady when measured again
    above it."""
    state = "unsteady" if again is not None and again >= bar else "low"
    return state, v / bar


def judge_drive_floors(sweep, floors, spec, probe_device):
    """[suspect] of the drives below their bar (spec, else floor)."""
    out = []
    for d in sorted(sweep.drives.values(), key=lambda d: (d.node, d.name)):
        if d.solo is None:
            continue
        c = drive_ceiling(sweep, d, probe_device)
        r = specmod.rule_for(spec, "drive", d.model, drive_firmware(sweep, d))
        if r is not None:
            bar, rule = r["min"], "spec"
        elif c and floors.get("drive"):
            bar, rule = floors["drive"] * c, "floor"
        else:
            continue
        if d.solo >= bar:
            continue
        state, sev = _verdict(d.solo, bar, d.retest)
        ev = {"figure_gb_per_s": d.solo, "bar_gb_per_s": round(bar, 4), "ceiling_gb_per_s": c,
              "retest_gb_per_s": d.retest, "model": d.model}
        if rule == "spec":
            ev.update(spec_line="%s:%d" % (spec.get("file"), r["line"]), spec_min=r["min"])
        else:
            ev["floor"] = floors["drive"]
        ratio = d.solo / c if rule == "floor" else d.solo / bar
        out.append(_suspect("drive", d.node, d.name, state, ratio, rule, ev, sev))
    return out


def _rail_bars(sweep, floors, spec, nics, fab):
    """{(node, rail): (bar, rule, spec rule or None, line rate, device)} of each port."""
    bars = {}
    for t in fab:  # each node's model read from its own document first
        nics.model(t.dst, t.dst_dev, t.path)
    for t in fab:
        for x, dev in ((t.dst, t.dst_dev), (t.src, t.src_dev)):
            if (x, t.channel) in bars:
                continue
            model = nics.model(x, dev, t.path if x == t.dst else None)
            rate = t.line_rate * 8 if t.line_rate else None
            r = specmod.rule_for(spec, "nic", model, rate)
            if r is not None:
                bars[(x, t.channel)] = (r["min"], "spec", r, t.line_rate, dev)
            elif t.line_rate and floors.get("rail"):
                bars[(x, t.channel)] = (floors["rail"] * t.line_rate, "floor", None,
                                        t.line_rate, dev)
    return bars


def judge_rail_floors(sweep, floors, spec, nics, explained=()):
    """(rail suspects, link suspects) below their bar, by the rule over pairs; the
    transfers a leaf's uplink explains (ids in explained) are no NIC's."""
    fab = [t for t in sweep.transfers if t.channel != "remote" and not t.alone
           and id(t) not in explained]
    bars = _rail_bars(sweep, floors, spec, nics, fab)

    def bar_of(t):
        bs = [bars[k][0] for k in ((t.src, t.channel), (t.dst, t.channel)) if k in bars]
        return min(bs) if bs else None

    def ratio(t, v=None):
        b = bar_of(t)
        return (t.gbps if v is None else v) / b if b else None

    def sent(t):
        v = sent_by(sweep, t)
        return None if v is None else ratio(t, v)

    rails, links = [], []
    by_rail = {}
    for t in fab:
        by_rail.setdefault(t.channel, []).append(t)
    for rail, ts in sorted(by_rail.items()):
        pairs = _Pairs(rail, ts, ratio, sent_of=sent)
        _, sus, lks = judge_pairs(pairs, 1.0, "rail %d" % rail, "rail")
        for x, state, r, ev in sus:
            bar, rule, srule, rate, dev = bars.get((x, rail), (None, "floor", None, None, None))
            ev.update(bar_gb_per_s=bar and round(bar, 4), line_rate_gb_per_s=rate, device=dev)
            if srule:
                ev.update(spec_line="%s:%d" % (spec.get("file"), srule["line"]),
                          spec_min=srule["min"])
            else:
                ev["floor"] = floors.get("rail")
            of_rate = rule == "floor" and bar and rate
            ratio_shown = r * bar / rate if of_rate else r
            # its ratio of its line rate (a floor), else of its bar (a spec)
            ratio_of_bar(ev, "rail %d" % rail, "its line rate" if of_rate else "its bar")
            comp = "rail %d" % rail + (" (%s)" % dev if dev else "")
            rails.append(_suspect("rail", x, comp, state, ratio_shown, rule, ev, r))
        for a, b, state, r, ev in lks:
            ba = bars.get((a, rail)) or bars.get((b, rail))
            rule = ba[1] if ba else "floor"
            s = _suspect("link", a, "rail %d to %s" % (rail, b), state, r, rule, ev, r)
            s["peer"] = b
            links.append(s)
    return rails, links


def folded(s):
    """A suspect of the floors' or spec's, with its rule when it is a node folded of its
    parts (every drive, every rail): theirs."""
    if "rule" in s:
        return s
    sub = s["evidence"].get("drives") or s["evidence"].get("rails") or {}
    first = next(iter(sub.values()), {})
    s.update(rule="spec" if "spec_line" in first else "floor")
    s["rules"] = [s["rule"]]
    bar = [e.get("bar_gb_per_s") for e in sub.values()]
    s["severity"] = round(s["ratio"] / first["floor"] if first.get("floor") else s["ratio"], 4)
    s["evidence"]["bar_gb_per_s"] = bar[0] if bar else None
    return s


# --- together -------------------------------------------------------------------------

def _part_kind(s):
    c = s["component"]
    if "remote" in c:
        return "drive->remote"
    return "drives" if s["kind"] == "drive" or "drive" in c else "rails"


def merge(peers, extra, threshold=0.9):
    """The peers' suspects with the others': a part named by more than one rule is
    one suspect with every rule ("rules") and each rule's evidence (a floor's or spec's
    part of a node whose parts of that kind its peers name already goes with them);
    all of them ordered by severity (the furthest below its bar first), steady before
    unsteady; the physics and the probe's first."""
    out, by_key, by_node = [], {}, {}
    for s in peers:
        s.setdefault("rule", "peers")
        s.setdefault("rules", ["peers"])
        if s.get("severity") is None:
            s["severity"] = round(s["ratio"] / threshold, 4) if s["ratio"] is not None \
                else 1.0
        by_key[(s["kind"], s["node"], s["component"])] = s
        by_node.setdefault((s["node"], _part_kind(s), s.get("peer")), s)
        out.append(s)
    for s in extra:
        exact = by_key.get((s["kind"], s["node"], s["component"]))
        old = exact or by_node.get((s["node"], _part_kind(s), s.get("peer")))
        if old is None or s["rule"] in ("probe", "physics"):
            by_key.setdefault((s["kind"], s["node"], s["component"]), s)
            out.append(s)
            continue
        if s["rule"] not in old["rules"]:
            old["rules"].append(s["rule"])
        if exact is not None:
            old["evidence"][s["rule"]] = s["evidence"]
            old["state"] = "low" if s["state"] == "low" else old["state"]
        else:
            old["evidence"].setdefault(s["rule"] + "_parts", {})[s["component"]] = s["evidence"]
        if s["severity"] < old["severity"]:
            old["severity"], old["rule"] = s["severity"], s["rule"]
    first = {"physics": 0, "probe": 1}
    return sorted(out, key=lambda s: (s["state"] != "low", first.get(s["rule"], 2),
                                      s["severity"], s["node"], s["component"]))


def words(s):
    """The rules that named a suspect, in words: "below its peers and its floor"."""
    rules = s.get("rules") or [s.get("rule") or "peers"]
    if s.get("kind") == "drive" and "physics" in rules:
        return "claims more than its link can carry"
    if s.get("component") == "drives together" and "physics" in rules:
        return "claims more than its links can carry"
    if len(rules) == 1:
        return RULE_WORDS.get(rules[0], rules[0])
    return "below its " + " and its ".join(r if r != "peers" else "peers" for r in rules)


def reason(s):
    """One sentence of a suspect named by a rule other than its peers alone, or None."""
    ev, rule = s["evidence"], s.get("rule")
    if rule == "physics":
        return "%s: %s claims %s GB/s, above its %s of %s GB/s (%d figure%s): never a " \
               "median's member, a reference or a recorded figure" % (
                   words(s), s["node"], _g(ev.get("claimed_gb_per_s")), ev.get("ceiling"),
                   _g(ev.get("ceiling_gb_per_s")), ev.get("claims", 1),
                   "" if ev.get("claims", 1) == 1 else "s")
    if rule == "probe":
        line = (ev.get("probe_lines") or [None])[0]
        return "%s: %s%s%s" % (words(s), ev.get("device") + ": " if ev.get("device") else "",
                               ev.get("says"), "; the probe said: " + line if line else
                               " (%s)" % ev["link"] if ev.get("link") else "")
    if s.get("rules") == ["peers"] or rule not in ("floor", "spec"):
        return None
    if isinstance(ev.get(rule), dict):
        # merged with its peers' suspect (merge): the floor's or spec's own evidence
        ev = ev[rule]
    bar = ev.get("bar_gb_per_s")
    if "rails" in ev or "drives" in ev:
        parts = ev.get("rails") or ev.get("drives")
        return "%s: every one of its %d %s below its bar (median %s)" % (
            words(s), len(parts), "rails" if "rails" in ev else "drives", _pct(s["ratio"]))
    if rule == "spec":
        held = "the spec's minimum %s GB/s (%s)" % (_g(ev.get("spec_min")), ev.get("spec_line"))
    else:
        what = "line rate" if s["kind"] in ("rail", "link") else "link ceiling"
        held = "%s of its %s %s GB/s" % (_pct(ev.get("floor")), what, _g(
            ev.get("line_rate_gb_per_s") or ev.get("ceiling_gb_per_s")))
    fig = ev.get("figure_gb_per_s")
    text = "%s: %s" % (words(s), "%s GB/s, " % _g(fig) if fig is not None else "")
    text += "%s below %s (bar %s GB/s)" % (_pct(s["severity"]) + " of its bar,"
                                           if s.get("severity") else "", held, _g(bar))
    if ev.get("low_count"):
        text += "; low with %d of %d partners" % (ev["low_count"], ev.get("partners", 0))
    return text


def _g(v):
    return "%.4g" % v if isinstance(v, (int, float)) else "unknown"


def _pct(r):
    return "%.0f%%" % (100 * r) if isinstance(r, (int, float)) else "-"


def short(s):
    """A suspect named by a rule other than its peers, in a few words, or None."""
    rule = s.get("rule")
    if rule == "physics":
        return "%s claims %s GB/s (%s)" % (s["component"], _g(s["evidence"].get(
            "claimed_gb_per_s")), words(s))
    if rule == "probe":
        return "%s: %s (%s)" % (s["component"], s["evidence"].get("says"), words(s))
    if rule in ("floor", "spec") or len(s.get("rules") or []) > 1:
        pct = _pct(s.get("ratio"))
        head = "drive %s" % s["component"] if s["kind"] == "drive" else \
            "link %s-%s (%s)" % (s["node"], s.get("peer"), s["component"].split(" to ")[0]) \
            if s["kind"] == "link" else s["component"]
        return "%s %s (%s)" % (head, pct, words(s))
    return None


def settings(meta, floors=None, spec=None):
    """(floors, spec) of a judgement: the ones given, else the sweep's own (sweep.json's
    "floors", "spec"), else the default floors and no spec."""
    if floors is None:
        own = meta.get("floors")
        floors = {k: v for k, v in own.items() if k in specmod.DEFAULT_FLOORS and
                  isinstance(v, (int, float)) and 0 < v <= 1} if isinstance(own, dict) \
            else dict(specmod.DEFAULT_FLOORS)
    if spec is None:
        own = meta.get("spec")
        spec = own if isinstance(own, dict) and isinstance(own.get("rules"), list) else None
        if spec is not None:  # the sweep's file: each rule checked again
            spec = {"file": str(spec.get("file")), "rules": [
                r for r in spec["rules"] if isinstance(r, dict) and r.get("kind") in
                specmod.KINDS and isinstance(r.get("model"), str) and
                isinstance(r.get("min"), (int, float)) and isinstance(r.get("line"), int)]}
    return floors, spec


def header(result):
    """The text's first line's end: the floors and spec the parts were held to."""
    fl = result.get("floors")
    if not isinstance(fl, dict):
        return ""
    words = ["%s %s of its %s" % (k, _pct(fl[k]), "link's ceiling" if k == "drive" else
                                  "port's line rate") for k in ("drive", "rail") if k in fl]
    text = "; floor: " + ", ".join(words) if words else "; no floor"
    sp = result.get("spec")
    if isinstance(sp, dict):
        text += "; spec %s (%s rules)" % (sp.get("file"), sp.get("rules"))
    return text


def spec_summary(spec):
    return {"file": spec["file"], "rules": len(spec["rules"])} if spec else None


def probe_exit(res):
    """What sweep.json keeps of a probe that exited 3 (its expectation not met): its
    status and its last lines on standard error, printable and cut."""
    lines = [printable(x.strip())[:300] for x in res.err if x.strip()]
    return {"status": res.rc, "lines": lines[-16:]}


def unknown_models(sweep, spec, probe_device):
    """A --spec rule naming a model no node of the sweep has, in one line naming
    FILE:LINE, or None."""
    if not spec:
        return None
    nics = Nics(sweep, probe_device)
    for t in sweep.transfers:
        if t.channel != "remote":
            nics.model(t.dst, t.dst_dev, t.path)
    return specmod.check_models(spec, {d.model for d in sweep.drives.values()}, nics.models())
