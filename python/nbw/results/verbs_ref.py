"""nbw-results reference set and check.

reference set RUN [RUN...]: bounds around figures confirmed by two runs or more (the
median of each figure over them), or by one with --single (said in the record and the
output). Keyed --by node (a figure of one node, rung and drive) or --by model (a part
of one kind: a drive's model and firmware, an RDMA port's model and rate, a node's
drives together: the median of every such part's figure in the runs; the default when
every run is a fleet sweep). A node SUSPECT or NOT MEASURED in any of the runs is left
out, by name, so that a slow part never becomes its own reference.

check RUN: each figure against its reference (by node, else its part's model, the
newer of the two when both apply), counted as checked, outside, no reference, not
comparable; the unchecked listed below the outside ones. Exit status 3: a figure
outside its bounds; 5 (UNCHECKED): a figure had no reference or was not comparable
(--allow-unchecked: passes), or no reference applies to the run at all; 4: none of the
figures with a reference is comparable with it."""
import json
import os
import statistics
import uuid

from .base import FORMAT, NOTHING_COMPARED, WORSE, Fail, now_utc, warn
from .compare import HIGHER_BETTER, unusable
from .documents import UNITS
from .fleet import natural
from . import junit
from .output import emit, fmt, table
from .verbs import figure_value, open_store

UNCHECKED = 5  # exit status of check: a figure had no reference (or was not comparable)
LEFT_OUT_VERDICTS = ("SUSPECT", "NOT MEASURED")
SHOWN = 20  # unchecked figures named one a line; the rest counted


def part_of(f):
    """A figure's part (a sweep's: kind, model, firmware, key, node_verdict) or {}."""
    try:
        p = json.loads(f.get("part") or "{}")
    except ValueError:
        return {}
    return p if isinstance(p, dict) else {}


def metrics_of(f):
    return ["gb_per_s"] + sorted(json.loads(f["metrics"] or "{}"))


def check_bounds(args):
    if not (-1.0 <= args.lower <= 0.0):
        raise Fail(2, "--lower %g: a fraction from -1 to 0 (e.g. -0.05)" % args.lower)
    if args.upper is not None and args.upper < 0:
        raise Fail(2, "--upper %g: a fraction of 0 or more (e.g. 0.1)" % args.upper)


def runs_of(st, specs, single):
    """The runs a reference is set from: two or more distinct usable runs, or one
    with --single."""
    runs, seen = [], set()
    for spec in specs:
        r = st.resolve(spec)
        if r["uuid"] in seen:
            raise Fail(2, "%s: run %s named twice: a reference from two runs is from two "
                       "runs" % (spec, r["uuid"][:8]))
        if unusable(r):
            raise Fail(1, "%s: not a reference" % unusable(r))
        seen.add(r["uuid"])
        runs.append(r)
    if len(runs) < 2 and not single:
        raise Fail(2, "reference set %s: one run is a single measurement: give two runs or "
                   "more (reference set RUN RUN), or --single to take it as it is" % specs[0])
    if len(runs) > 1 and single:
        raise Fail(2, "--single: one run, not %d" % len(runs))
    return runs


def left_out_nodes(figs_by_run, runs):
    """{node: why} of the nodes SUSPECT or NOT MEASURED in one of the runs."""
    out = {}
    for r in runs:
        for f in figs_by_run[r["uuid"]]:
            v = part_of(f).get("node_verdict")
            if v in LEFT_OUT_VERDICTS and f["node"] not in out:
                out[f["node"]] = "%s in run %s" % (v, r["uuid"][:8])
    return out


def gather(args, runs, figs_by_run, left):
    """{group key: [(run, value, figure)]} of the figures kept, and the counts of those
    without a known model (by model)."""
    groups, unknown = {}, 0
    for r in runs:
        for f in figs_by_run[r["uuid"]]:
            if f["node"] in left:
                continue
            key = part_of(f).get("key") if args.by == "model" else None
            if args.by == "model" and not key:
                unknown += 1
                continue
            for name in metrics_of(f):
                v = figure_value(f, name)
                if v is None:
                    continue
                g = (f["rung"], key, name) if args.by == "model" else \
                    (f["rung"], f["node"], f["drive"], name)
                groups.setdefault(g, []).append((r["uuid"], v, f))
    return groups, unknown


def ref_entries(args, runs, groups):
    """([entry], figures confirmed by fewer runs than asked): each group's median over
    its runs, its parameters the latest run's."""
    order = {r["uuid"]: i for i, r in enumerate(runs)}
    entries, short = [], 0
    for g, vals in sorted(groups.items(), key=lambda kv: str(kv[0])):
        last = max(vals, key=lambda x: order[x[0]])[2]["params_hash"]
        vals = [x for x in vals if x[2]["params_hash"] == last]
        n_runs = len({x[0] for x in vals})
        if n_runs < min(2, len(runs)):
            short += 1
            continue
        f, name = vals[-1][2], g[-1]
        e = {"rung": g[0], "node": None if args.by == "model" else f["node"],
             "drive": None if args.by == "model" else f["drive"], "metric": name,
             "ref": statistics.median(x[1] for x in vals), "unit": UNITS.get(name, name),
             "params_hash": last, "runs": n_runs, "parts": len(vals) // max(1, n_runs)}
        if args.by == "model":
            e["part"] = g[1]
        entries.append(e)
    return entries, short


def cmd_reference(args):
    check_bounds(args)
    st = open_store(args)
    try:
        if st.empty:
            raise Fail(1, "no runs recorded in %s" % st.dir)
        runs = runs_of(st, args.runs, args.single)
        figs_by_run = {r["uuid"]: [f for f in st.figures(r["uuid"]) if (
            not args.rung or f["rung"] == args.rung) and (not args.node or f["node"] ==
                                                           args.node)] for r in runs}
        if args.by is None:
            args.by = "model" if all(r["mode"] == "fleet" for r in runs) else "node"
        left = left_out_nodes(figs_by_run, runs)
        groups, unknown = gather(args, runs, figs_by_run, left)
        entries, short = ref_entries(args, runs, groups)
        if not entries:
            raise Fail(1, "%s: no figure to make a reference of%s" % (
                ", ".join(r["uuid"][:8] for r in runs), " (%d in one run only)" % short
                if short else " (no part's model is known: --by node)" if unknown else ""))
        entry = {"kind": "reference", "format": FORMAT, "uuid": str(uuid.uuid4()),
                 "set_at": now_utc(), "run": runs[-1]["uuid"],
                 "runs": [r["uuid"] for r in runs], "by": args.by,
                 "single": bool(args.single), "lower": args.lower, "upper": args.upper,
                 "left_out": [{"node": n, "why": left[n]} for n in sorted(left, key=natural)],
                 "entries": [e for e in entries if e["metric"] == "gb_per_s"],
                 "metrics": [e for e in entries if e["metric"] != "gb_per_s"]}
        st.append(entry)
    finally:
        st.close()
    emit(args, entry, reference_text(entry, runs, left, short, unknown))
    return 0


def reference_text(entry, runs, left, short, unknown):
    n = len(entry["entries"]) + len(entry["metrics"])
    lines = ["reference by %s from %s: %d figures (%d GB/s, %d others), bounds %+g .. %s "
             "(for latency and CPU, where less is better, the same bounds mirrored)" % (
                 entry["by"], "one run, %s (--single: a single measurement, unconfirmed)"
                 % runs[0]["uuid"][:8] if entry["single"] else "%d runs (%s), each figure "
                 "the median of its runs" % (len(runs), ", ".join(r["uuid"][:8]
                                                                  for r in runs)),
                 n, len(entry["entries"]), len(entry["metrics"]), entry["lower"],
                 "none" if entry["upper"] is None else "%+g" % entry["upper"])]
    if entry["by"] == "model":
        keys = sorted({e["part"] for e in entry["entries"] + entry["metrics"]})
        lines.append("parts: %s" % "; ".join(keys))
    if left:
        named = sorted(left.items(), key=lambda kv: natural(kv[0]))
        lines.append("left out (a part under suspicion never becomes its own reference): "
                     "%s%s" % (", ".join("%s (%s)" % kv for kv in named[:SHOWN]),
                               " and %d more (the record's left_out names each)" % (
                                   len(named) - SHOWN) if len(named) > SHOWN else ""))
    if short:
        lines.append("not a reference: %d figures not in two of the runs" % short)
    if unknown:
        lines.append("not a reference: %d figures of parts whose model is not known "
                     "(--by node keys them by node)" % unknown)
    return "\n".join(lines)


def check_row(f, name, ref):
    """One figure against its reference: the band of accepted change is [lower, upper]
    in the direction of better, mirrored where less is better (latency, CPU)."""
    v = figure_value(f, name)
    up = HIGHER_BETTER.get(name, True)
    lower = ref["lower"] if ref["lower"] is not None else -1
    lo_pct, hi_pct = (lower, ref["upper"]) if up else (
        None if ref["upper"] is None else -ref["upper"], -lower)
    row = {"rung": f["rung"], "node": f["node"], "drive": f["drive"], "figure": name,
           "unit": UNITS.get(name, name), "value": v, "ref": ref["ref"],
           "lower": ref["lower"], "upper": ref["upper"], "accepted_change": [lo_pct, hi_pct],
           "higher_is_better": up, "reference_run": ref["run"], "worse": False,
           "by": "model" if ref.get("part") else "node", "part": ref.get("part")}
    if name == "gb_per_s":
        row["gb_per_s"] = v
    if ref["params_hash"] != f["params_hash"] or v is None:
        row["verdict"] = "not comparable"
        row["reason"] = "not comparable: other parameters than the reference's"
    elif lo_pct is not None and v < ref["ref"] * (1 + lo_pct):
        row["verdict"], row["worse"] = "below", up
    elif hi_pct is not None and v > ref["ref"] * (1 + hi_pct):
        row["verdict"], row["worse"] = "above", not up
    else:
        row["verdict"] = "ok"
    return row


def unchecked_row(f, name):
    """A figure no reference applies to, with why."""
    p = part_of(f)
    why = "no reference for %s" % (
        "its node %s" % f["node"] if f["node"] and not p.get("key") else
        "its model (%s) nor its node" % p["key"] if p.get("key") else "it")
    return {"rung": f["rung"], "node": f["node"], "drive": f["drive"], "figure": name,
            "unit": UNITS.get(name, name), "value": figure_value(f, name), "ref": None,
            "verdict": "no reference", "reason": why, "worse": False}


def references(st):
    """({(rung, node, drive, metric): ref}, {(rung, part, metric): ref}), the latest
    of each."""
    by_node, by_model = {}, {}
    for ref in st.q("SELECT * FROM refs ORDER BY seq"):
        m = ref["metric"] or "gb_per_s"
        if ref.get("part"):
            by_model[(ref["rung"], ref["part"], m)] = ref
        else:
            by_node[(ref["rung"], ref["node"] or "", ref["drive"] or "", m)] = ref
    return by_node, by_model


def check_rows(figs, by_node, by_model):
    rows = []
    for f in figs:
        key = part_of(f).get("key")
        for name in metrics_of(f):
            if figure_value(f, name) is None:
                continue
            cands = [x for x in (by_node.get((f["rung"], f["node"] or "", f["drive"] or "",
                                              name)),
                                 by_model.get((f["rung"], key, name)) if key else None) if x]
            ref = max(cands, key=lambda x: x["seq"]) if cands else None
            rows.append(check_row(f, name, ref) if ref else unchecked_row(f, name))
    return rows


def counts_of(rows):
    c = {"checked": 0, "outside": 0, "no_reference": 0, "not_comparable": 0}
    for x in rows:
        v = x["verdict"]
        c["no_reference" if v == "no reference" else "not_comparable"
          if v == "not comparable" else "checked"] += 1
        c["outside"] += v in ("below", "above")
    return c


def cmd_check(args):
    st = open_store(args)
    try:
        r = st.resolve(args.run)
        if unusable(r):
            raise Fail(NOTHING_COMPARED, "nothing checked: %s" % unusable(r))
        figs = st.figures(r["uuid"])
        by_node, by_model = references(st)
    finally:
        st.close()
    rows = check_rows(figs, by_node, by_model)
    c = counts_of(rows)
    with_ref = [x for x in rows if x["verdict"] != "no reference"]
    doc = dict(c, run=r["uuid"], figures=with_ref,
               unchecked=[x for x in rows if x["verdict"] in ("no reference",
                                                              "not comparable")],
               worse=len([x for x in rows if x["worse"]]),
               allow_unchecked=bool(args.allow_unchecked))
    unchecked = c["no_reference"] + c["not_comparable"]
    if c["outside"]:
        status = WORSE
    elif not c["checked"]:
        status = NOTHING_COMPARED if c["not_comparable"] else UNCHECKED
    else:
        status = UNCHECKED if unchecked and not args.allow_unchecked else 0
    doc["ok"] = status == 0
    doc["exit_status"] = status
    if args.junit:
        write_junit(args.junit, r["uuid"], rows)
    if not with_ref:
        warn("%s: no reference applies to this run (nbw-results reference set RUN RUN)"
             % r["uuid"][:8])
    emit(args, doc, check_text(r, rows, c, status))
    return status


def check_text(r, rows, c, status):
    bound = lambda v: "none" if v is None else "%+g" % v
    word = lambda x: x["verdict"] + ("" if x["verdict"] not in ("below", "above") else
                                     " (worse)" if x["worse"] else " (better)")
    vf = lambda x, v: fmt(v, "%.2f" if x["figure"] == "gb_per_s" else "%.6g")
    with_ref = [x for x in rows if x["verdict"] != "no reference"]
    counts = "%s: %d checked, %d outside, %d no reference, %d not comparable" % (
        r["uuid"][:8], c["checked"], c["outside"], c["no_reference"], c["not_comparable"])
    out = ["", "", ""]  # the headline first (out[0]), the worst named
    if with_ref:
        out += [table(("rung", "node", "drive", "figure", "unit", "value", "reference",
                       "accepted", "verdict"),
                      [(x["rung"], x["node"] or "-", x["drive"] or "-", x["figure"],
                        x["unit"], vf(x, x["value"]), vf(x, x["ref"]),
                        "%s..%s" % tuple(bound(b) for b in x["accepted_change"]), word(x))
                       for x in with_ref], right=(5, 6)), ""]
    rel = lambda x: x["value"] / x["ref"] - 1 if x["ref"] else 0.0
    outside = sorted((x for x in rows if x["verdict"] in ("below", "above")),
                     key=lambda x: (not x["worse"], rel(x) if x["higher_is_better"]
                                    else -rel(x)))
    head = "%s: %d of %d figures outside their reference (%d worse)" % (
        r["uuid"][:8], c["outside"], c["checked"], len([x for x in outside if x["worse"]]))
    if outside and outside[0]["worse"]:
        head += "; the worst: %s %+.1f%%" % (junit.case_name(outside[0]),
                                             rel(outside[0]) * 100)
    out[0], out[1] = head, counts
    out.append(head)
    for x in outside:
        out.append("  outside: %s: %s %+.1f%%" % (junit.case_name(x), word(x), rel(x) * 100))
    unchecked = [x for x in rows if x["verdict"] in ("no reference", "not comparable")]
    if unchecked:
        out.append("not checked: %d figures" % len(unchecked))
        for x in unchecked[:SHOWN]:
            out.append("  not checked: %s: %s" % (junit.case_name(x), x["reason"]))
        if len(unchecked) > SHOWN:
            out.append("  ... and %d more (--json lists every one)" % (len(unchecked) - SHOWN))
    out.append(counts)
    if status == UNCHECKED:
        out.append("exit %d: %s (--allow-unchecked passes what has no reference)" % (
            UNCHECKED, "no reference applies to this run" if not c["checked"] and not
            c["not_comparable"] else "%d figures not checked" % len(unchecked)))
    elif status == NOTHING_COMPARED:
        out.append("nothing checked: none of its %d figures with a reference is comparable "
                   "with it" % len(with_ref))
    return "\n".join(out)


def write_junit(path, run, rows):
    """The check as JUnit XML in path, written whole then renamed, or Fail."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            junit.write(run, rows, f)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise Fail(1, "%s: %s (no JUnit XML written)" % (path, e.strerror))
