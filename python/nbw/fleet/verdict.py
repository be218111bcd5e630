"""nbw.fleet.verdict: one verdict per node, what was not measured and why, and a summary
per kind of part.

A node is
  SUSPECT: what       a part of it (or a link it is an end of) stays low;
  NOT MEASURED: why   it was skipped, stopped answering (the run named it as the node
                      that failed), or a kind of its parts has no figure at all: its
                      files missing, unreadable or failed, each with its reason;
  PASS                otherwise; a part low once and normal again (unsteady) and a pair
                      not measured because of its partner are said beside it.
A part not measured is never a low or a high figure: it is not measured, with the
reason (the run's own, from sweep.json's failed; why the file could not be read; the
sweep stopped before it).

The parts a sweep expects come from its plan (sweep.json: nodes, pairs, seed, rails one
by one, drives, the drive -> remote phase), so a file that is simply absent is seen.
Pure functions of the sweep (nbw.fleet.sweepdir) and the judge's parts and suspects.
"""

import statistics

from . import topology
from . import floors
from .plan import Plan, remote_rounds

KIND_OF_PART = {"drive": "drives alone", "drives together": "drives together",
                "rail": "rails", "drive->remote": "drive->remote"}
NODE_KINDS = ("links", "drives", "rails", "drive->remote")


def expected_parts(meta):
    """{relative path: (kind, (node, partner or None))} of the files a sweep of format 2
    or later was planned to write ({} for an older one, or one without a plan)."""
    nodes = meta.get("nodes")
    if not isinstance(meta.get("format"), int) or meta["format"] < 2 or \
            not isinstance(nodes, list) or not nodes:
        return {}
    try:
        plan = Plan(len(nodes), meta.get("pairs") or "auto", seed=meta.get("seed"), names=nodes)
    except (ValueError, TypeError):
        return {}
    rails = meta.get("rails") if isinstance(meta.get("rails"), int) else 1
    topology.apply(plan, topology.load(meta), rails)  # the rounds its topology adds
    out = {}
    drives = meta.get("drives") != 0
    for n in nodes:
        out["nodes/%s/probe.json" % n] = ("links", (n, None))
        if drives:
            out["nodes/%s/read.json" % n] = ("drives", (n, None))
    rails = meta.get("rails") if isinstance(meta.get("rails"), int) else 1
    one = bool(meta.get("rails_one_by_one")) and rails > 1
    for r in range(plan.rounds):
        for a, b in plan.round(r)[0]:
            a, b = nodes[a], nodes[b]
            for x, y in ((a, b), (b, a)):
                for name in (["%s.rail%d.json" % (y, i) for i in range(rails)] if one
                             else ["%s.json" % y]):
                    out["fabric/%s/%s" % (x, name)] = ("rails", (x, y))
    if drives and meta.get("remote", True):
        for rnd in remote_rounds(plan):
            for a, b in rnd:
                a, b = nodes[a], nodes[b]
                out["remote/%s/%s.json" % (a, b)] = ("drive->remote", (a, b))
                out["remote/%s/%s.json" % (b, a)] = ("drive->remote", (b, a))
    return out


def _failed(meta):
    rows = meta.get("failed") if isinstance(meta.get("failed"), list) else []
    return {f["part"]: f for f in rows if isinstance(f, dict) and isinstance(f.get("part"), str)}


def missing_parts(sweep, expected):
    """[{"part", "kind", "nodes", "reason", "blamed"}] of the expected files the sweep does
    not hold (or holds unreadable), and of the parts the run said failed."""
    failed = _failed(sweep.meta)
    stopped = sweep.meta.get("state") not in (None, "done")
    out = []
    for rel, (kind, ends) in expected.items():
        if rel in sweep.present:
            continue
        f = failed.get(rel)
        if f is not None:
            reason = str(f.get("reason", ""))[:300] or "failed"
        elif rel in sweep.why:
            reason = "unreadable: %s" % sweep.why[rel]
        elif stopped:
            reason = "the sweep stopped before it (%s)" % sweep.meta.get("state")
        else:
            reason = "no file"
        out.append({"part": rel, "kind": kind, "nodes": [x for x in ends if x],
                    "reason": reason, "blamed": f.get("node") if f else None})
    for rel, f in failed.items():
        if rel not in expected and rel not in sweep.present:
            out.append({"part": rel, "kind": _kind_of_path(rel), "nodes": _nodes_of_path(rel),
                        "reason": str(f.get("reason", ""))[:300] or "failed",
                        "blamed": f.get("node")})
    for rel, why in sweep.why.items():
        if rel not in expected and rel not in failed:
            out.append({"part": rel, "kind": _kind_of_path(rel), "nodes": _nodes_of_path(rel),
                        "reason": "unreadable: %s" % why, "blamed": None})
    return sorted(out, key=lambda m: m["part"])


def _kind_of_path(rel):
    if rel.endswith("probe.json"):
        return "links"
    if rel.endswith("read.json"):
        return "drives"
    return "drive->remote" if "remote/" in rel else "rails"


def _nodes_of_path(rel):
    words = rel.split("/")
    if "nodes" in words:
        return [words[words.index("nodes") + 1]] if len(words) > words.index("nodes") + 1 else []
    if len(words) >= 3:
        return [words[-2], words[-1].split(".rail")[0].rsplit(".json", 1)[0]]
    return []


def measured_kinds(sweep):
    """{node: set of the kinds it has a figure of}."""
    out = {}
    for n in sweep.probe:
        out.setdefault(n, set()).add("links")
    for d in sweep.drives.values():
        if d.solo is not None:
            out.setdefault(d.node, set()).add("drives")
    for n in sweep.together:
        out.setdefault(n, set()).add("drives")
    for t in sweep.transfers:
        if t.retest:
            continue
        k = "drive->remote" if t.channel == "remote" else "rails"
        out.setdefault(t.src, set()).add(k)
        out.setdefault(t.dst, set()).add(k)
    return out


def short(s):
    """A suspect in a few words: "drive nvme1n1 31%", "link to b (rail 2) 55%"."""
    own = floors.short(s)  # a rule other than its peers: said
    if own:
        return own
    pct = "%.0f%%" % (100 * s["ratio"]) if isinstance(s.get("ratio"), (int, float)) else "-"
    if s["kind"] == "link":
        return "link %s-%s (%s) %s" % (s["node"], s.get("peer"),
                                       s["component"].split(" to ")[0], pct)
    if s["kind"] == "drive":
        return "drive %s %s" % (s["component"], pct)
    return "%s %s" % (s["component"], pct)


def node_verdicts(sweep, suspects, missing):
    """[{"node", "verdict", "what", "suspects", "unsteady", "not_measured",
    "notes"}] in the order of the sweep's nodes, then those skipped."""
    skipped = {s["node"]: s.get("reason") for s in sweep.meta.get("skipped") or []
               if isinstance(s, dict) and isinstance(s.get("node"), str)}
    kinds = measured_kinds(sweep)
    expect = _expected_kinds(sweep)
    by_node = {}
    for s in suspects:
        for n in [s["node"]] + ([s["peer"]] if s.get("peer") else []):
            by_node.setdefault(n, []).append(s)
    miss_of = {}
    for m in missing:
        for n in m["nodes"] or ([m["blamed"]] if m["blamed"] else []):
            miss_of.setdefault(n, []).append(m)
    out = []
    for n in list(sweep.nodes) + [x for x in skipped if x not in set(sweep.nodes)]:
        mine = by_node.get(n, [])
        steady = [s for s in mine if s["state"] == "low"]
        unsteady = [s for s in mine if s["state"] != "low"]
        why = _why_not_measured(n, skipped, kinds.get(n, set()), expect, miss_of.get(n, []))
        notes = ["unsteady: " + short(s) for s in unsteady]
        others = [m for m in miss_of.get(n, []) if m["blamed"] not in (None, n)]
        if others:
            notes.append("%d part%s not measured because of a partner (%s)" % (
                len(others), "" if len(others) == 1 else "s",
                ", ".join(sorted({m["blamed"] for m in others}))))
        if steady:
            verdict, what = "SUSPECT", "; ".join(short(s) for s in steady)
            if why:
                notes.append("not measured: " + why)
        elif why:
            verdict, what = "NOT MEASURED", why
        else:
            verdict, what = "PASS", ""
        out.append({"node": n, "verdict": verdict, "what": what,
                    "kinds": _kinds_of_node(n, skipped, kinds.get(n, set()), expect, mine,
                                            miss_of.get(n, [])),
                    "suspects": [short(s) for s in steady],
                    # the rules that named it (nbw.fleet.floors): peers, floor, spec...
                    "rules": sorted({r for s in steady for r in s.get("rules") or ["peers"]}),
                    "unsteady": [short(s) for s in unsteady],
                    "not_measured": [m["part"] for m in miss_of.get(n, [])
                                     if m["blamed"] in (None, n)][:16],
                    "notes": notes})
    return out


def kind_of_suspect(s):
    """The kind of part (NODE_KINDS) a suspect is one of."""
    if s.get("rule") == "probe":
        return "links"
    if s["kind"] == "drive" or "drive" in s["component"] and "remote" not in s["component"]:
        return "drives"
    if "remote" in s["component"]:
        return "drive->remote"
    return "rails"


def _kinds_of_node(n, skipped, have, expect, suspects, missing):
    """{kind: {"status", "what"}} of a node: suspect (its steady suspects), not measured
    (why), unsteady, pass; a kind it has no part of is left out."""
    out = {}
    for kind in NODE_KINDS:
        sus = [s for s in suspects if kind_of_suspect(s) == kind]
        low = [short(s) for s in sus if s["state"] == "low"]
        if low:
            out[kind] = {"status": "suspect", "what": "; ".join(low)}
        elif n in skipped and kind in expect:
            out[kind] = {"status": "not measured", "what": "skipped: %s" % skipped[n]}
        elif kind in expect and kind not in have:
            out[kind] = {"status": "not measured", "what": _kind_reason(n, kind, missing)}
        elif kind in have or kind in expect:
            partial = [m for m in missing if m["kind"] == kind]
            what = "; ".join("unsteady: " + short(s) for s in sus)
            if partial:
                what += ("; " if what else "") + "%d not measured (%s)" % (
                    len(partial), partial[0]["reason"])
            out[kind] = {"status": "unsteady" if sus else "pass", "what": what}
    return out


def _expected_kinds(sweep):
    meta = sweep.meta
    kinds = {"links"}
    if meta.get("format", 1) >= 2 and meta.get("drives") != 0:
        kinds.add("drives")
        if meta.get("remote", True):
            kinds.add("drive->remote")
    if len(sweep.nodes) > 1:
        kinds.add("rails")
    return kinds if meta.get("format", 1) >= 2 else set()


def _kind_reason(n, kind, missing):
    """Why node n has no figure of a kind: its own failure's reason first (its pair's
    other document says "its partner", this node, "did not answer")."""
    of_kind = sorted((m for m in missing if m["kind"] == kind),
                     key=lambda m: (m["blamed"] != n, m["nodes"][:1] != [n],
                                    m["blamed"] is not None))
    return of_kind[0]["reason"] if of_kind else "no figure"


def _why_not_measured(n, skipped, have, expect, missing):
    """Why node n is not measured, in words, or "" when it is."""
    if n in skipped:
        return "skipped: %s" % skipped[n]
    # Its own parts' reason first (a partner's part says "its partner did not answer").
    mine = sorted((m for m in missing if m["blamed"] == n),
                  key=lambda m: (m["nodes"][:1] != [n], m["part"]))
    words = []
    if mine:
        words.append("%s (%d part%s)" % (mine[0]["reason"], len(mine),
                                          "" if len(mine) == 1 else "s"))
    for kind in NODE_KINDS:
        if kind in expect and kind not in have:
            why = _kind_reason(n, kind, missing)
            if not mine or why != mine[0]["reason"]:
                words.append("%s: %s" % (kind, why))
    return "; ".join(words)


def kind_summary(parts, threshold, worst=10):
    """[{"kind", "group", "count", "min", "median", "max", "fleet_median",
    "threshold_gb_per_s", "worst": [{"node", "component", "figure_gb_per_s", "ratio"}]}]
    per kind of part and group (a drive model and link, a line rate...)."""
    groups = {}
    for p in parts:
        label = KIND_OF_PART.get(p["kind"] if p["kind"] != "node" else p["component"])
        if label is None:
            continue
        groups.setdefault((label, p.get("group") or ""), []).append(p)
    order = {k: i for i, k in enumerate(KIND_OF_PART.values())}
    out = []
    for (label, group), ps in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        figs = sorted(p["figure_gb_per_s"] for p in ps if p.get("figure_gb_per_s") is not None)
        meds = [p["figure_gb_per_s"] / p["ratio"] for p in ps
                if p.get("figure_gb_per_s") and p.get("ratio")]
        fm = statistics.median(meds) if meds else None
        low = sorted((p for p in ps if p.get("ratio") is not None), key=lambda p: p["ratio"])
        out.append({"kind": label, "group": group, "count": len(ps), "measured": len(figs),
                    "min": figs[0] if figs else None,
                    "median": statistics.median(figs) if figs else None,
                    "max": figs[-1] if figs else None, "fleet_median": fm,
                    "threshold_gb_per_s": threshold * fm if fm and label != "drive->remote"
                    else None,
                    "worst": [{"node": p["node"], "component": p["component"],
                               "figure_gb_per_s": p.get("figure_gb_per_s"),
                               "ratio": p["ratio"], "way": p.get("way")}
                              for p in low[:worst]]})
    return out
