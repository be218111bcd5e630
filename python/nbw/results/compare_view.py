"""nbw-results compare: the comparison of two runs as text or JSON, whole or only its
changes (--changes-only, --worst N), and at fleet size (more than SPREAD_BEYOND nodes)
one summary line per kind of part (changed counted, worst first) above the changes
instead of a line per figure."""
import re

from .base import NOTHING_COMPARED, WORSE, Fail
from .compare import compare, headline
from .documents import UNITS
from .output import emit, fmt, table
from .verbs import SPREAD_BEYOND, open_store

# The classes of a change worth a line of its own: beyond noise, not comparable, or a
# figure of one run only.
CHANGED = ("large", "moderate", "not comparable", "missing")
# At fleet size, without --worst: the changes listed below the kinds' summary.
FLEET_LISTED = 20


def kind_of(rung):
    """The kind of part of a rung: 'fleet rail 3' -> 'fleet rail' (one line for every
    rail), any other rung itself."""
    return re.sub(r"\s+[0-9]+$", "", rung or "-")


def worst_order(r):
    """Worse beyond noise first, then better, then not comparable and only in one run;
    the largest change first within each."""
    beyond = r["class"] in ("large", "moderate")
    return (0 if beyond and r.get("worse") else 1 if beyond else 2,
            -abs(r["change_pct"] or 0))


def changes(doc):
    """Every figure's row (GB/s and the others) that changed, worst first."""
    return sorted((r for r in doc["figures"] + doc["metrics"] if r["class"] in CHANGED),
                  key=worst_order)


def kinds(doc):
    """Per kind of part and figure: how many compared, within noise, worse, better, not
    comparable, of one run only, and the worst change; the kinds with a worse figure
    first, the largest worst change first."""
    out = {}
    for r in doc["figures"] + doc["metrics"]:
        k = out.setdefault((kind_of(r["rung"]), r.get("metric") or "gb_per_s"), {
            "kind": kind_of(r["rung"]), "figure": r.get("metric") or "gb_per_s",
            "parts": 0, "noise": 0, "worse": 0, "better": 0, "not_comparable": 0,
            "only_in_one": 0, "worst": None})
        k["parts"] += 1
        cls = r["class"]
        if cls == "noise":
            k["noise"] += 1
        elif cls in ("large", "moderate"):
            k["worse" if r.get("worse") else "better"] += 1
        elif cls == "not comparable":
            k["not_comparable"] += 1
        elif cls == "missing":
            k["only_in_one"] += 1
        if cls in CHANGED and (k["worst"] is None or worst_order(r) < worst_order(k["worst"])):
            k["worst"] = r
    rows = list(out.values())
    rows.sort(key=lambda k: worst_order(k["worst"]) if k["worst"] else (3, 0))
    for k in rows:
        k["changed"] = k["worse"] + k["better"] + k["not_comparable"] + k["only_in_one"]
        k["worst"] = where(k["worst"]) if k["worst"] else None
    return rows


def where(r):
    """A changed row as the JSON's changes carry it."""
    return {k: r.get(k) for k in ("rung", "node", "drive", "metric", "a", "b",
                                  "change_pct", "noise_pct", "noise_basis", "class",
                                  "worse", "text")}


def change_text(r):
    if r["class"] == "missing":
        return "%s (%s%s%s)" % (r["text"], r["rung"], " on " + r["node"] if r["node"] else "",
                                ", " + r["drive"] if r["drive"] else "")
    return headline(r)


def kinds_table(ks):
    return table(("kind", "figure", "parts", "changed", "worse", "better", "not comparable",
                  "only in one", "worst"),
                 [(k["kind"], k["figure"], k["parts"], k["changed"], k["worse"], k["better"],
                   k["not_comparable"], k["only_in_one"],
                   "%+.1f%% on %s" % (k["worst"]["change_pct"], k["worst"]["node"] or "-")
                   if k["worst"] and k["worst"]["change_pct"] is not None else
                   (k["worst"]["class"] if k["worst"] else "-")) for k in ks],
                 right=(2, 3, 4, 5, 6, 7))


def full_tables(doc, figures, metrics):
    rows = [(r["rung"], r["node"] or "-", r["drive"] or "-", fmt(r["a_gb_per_s"]),
             fmt(r["b_gb_per_s"]), fmt(r["change_pct"], "%+.1f%%"), r["text"])
            for r in figures]
    lines = [table(("rung", "node", "drive", "A GB/s", "B GB/s", "change %", "verdict"),
                   rows, right=(3, 4, 5)), ""] if rows else []
    if metrics:  # the other figures, each in its unit
        lines += [table(("rung", "node", "drive", "figure", "unit", "A", "B", "change %",
                         "verdict"),
                        [(m["rung"], m["node"] or "-", m["drive"] or "-", m["metric"],
                          UNITS.get(m["metric"], "-"), "%.6g" % m["a"], "%.6g" % m["b"],
                          fmt(m["change_pct"], "%+.1f%%"), m["text"])
                         for m in metrics], right=(5, 6, 7)), ""]
    return lines


def cmd_compare(args):
    worst_n = getattr(args, "worst", None)
    if worst_n is not None and worst_n < 1:
        raise Fail(2, "--worst %d: a count of 1 or more" % worst_n)
    st = open_store(args)
    try:
        ra, rb = st.resolve(args.a), st.resolve(args.b)
        doc = compare(st, ra, rb, args.noise_floor, args.large)
    finally:
        st.close()
    nodes = {r["node"] for r in doc["figures"] if r["node"]}
    fleet = len(nodes) > SPREAD_BEYOND
    changed = changes(doc)
    doc["kinds"] = kinds(doc)
    doc["changed"] = len(changed)
    total = sum(k["parts"] for k in doc["kinds"])
    only = getattr(args, "changes_only", False) or worst_n is not None
    listed = changed[:worst_n] if worst_n else changed
    if only:  # the JSON too: only the changes, worst first
        doc["figures"] = [r for r in listed if "a_gb_per_s" in r]
        doc["metrics"] = [r for r in listed if "a_gb_per_s" not in r]
    lines = ["compare A %s (%s) with B %s (%s)" % (ra["uuid"][:8], ra["started"],
                                                   rb["uuid"][:8], rb["started"])]
    lines += doc["summary"][:1] + [""]  # the headline first: the worst change
    if fleet:
        shown = listed if only else changed[:FLEET_LISTED]
        lines += ["%d nodes: %d of %d figures changed (beyond noise, not comparable or of "
                  "one run only), by kind of part, the worst first:" % (
                      len(nodes), len(changed), total),
                  kinds_table(doc["kinds"]), ""]
        if shown:
            lines += ["the %s changes, the worst first:" % (
                "%d worst" % len(shown) if len(shown) < len(changed) else "%d" % len(shown))]
            lines += ["  " + change_text(r) for r in shown]
            if len(shown) < len(changed):
                lines.append("  ... %d more (--worst N, --changes-only or --json)" % (
                    len(changed) - len(shown)))
            lines.append("")
    elif only:
        lines += (["%d of %d figures changed; %s:" % (
            len(changed), total,
            "the %d worst" % len(listed) if len(listed) < len(changed) else
            "the worst first")] + ["  " + change_text(r) for r in listed] + [""]) \
            if changed else ["no figure changed", ""]
    else:
        lines += full_tables(doc, doc["figures"], doc["metrics"])
    same = [h for h, ch in doc["inventory"].items() if ch == []]
    if fleet and same:
        lines.append("inventory identical on %d hosts" % len(same))
    for host, ch in doc["inventory"].items():
        if fleet and ch == []:
            continue
        lines.append("inventory %s: %s" % (host, "not recorded in both runs" if ch is None
                                            else "identical" if not ch else "; ".join(ch)))
    lines += doc["summary"]
    doc["exit_status"] = WORSE if doc["worse"] else 0 if doc["compared"] else NOTHING_COMPARED
    emit(args, doc, "\n".join(lines))
    return doc["exit_status"]
