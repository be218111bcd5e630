"""Comparing two runs: figure by figure against the noise of their samples, and the
hosts' inventories key by key."""
import json
import math

from ..jsonutil import digest
from ..names import natural_key
from .base import LARGE, NOISE_FLOOR

HIGHER_BETTER = {}  # filled from the documents' METRICS (below, to avoid a cycle)


def fig_key(f):
    return (f["rung"], f["node"] or "", f["drive"] or "")


# The figures a tool derives from the bytes it moved in one run, beside GB/s: operations
# and messages per second, CPU per byte and per operation. They share the band of the
# GB/s samples of the same run (one noise rule for the same bytes); the latencies have
# samples of their own that the record does not keep: the floor, said.
SAME_BYTES = ("iops", "writes_per_s", "cpu_s_per_gib", "cpu_us_per_io")


# Parameters counted in bytes: printed in binary units (1MiB, 4KiB).
BYTE_PARAMS = {"chunk", "span", "size", "block_size", "bs", "CHUNK"}


def in_units(key, v):
    if key not in BYTE_PARAMS or not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        return json.dumps(v)
    for shift, unit in ((40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
        if v >= 1 << shift and v % (1 << shift) == 0:
            return "%d%s" % (v >> shift, unit)
    return "%dB" % v


def params_diff(pa, pb):
    a, b = json.loads(pa or "{}"), json.loads(pb or "{}")
    return ["%s %s -> %s" % (k, in_units(k, a.get(k)), in_units(k, b.get(k)))
            for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def unusable(r):
    """Why a run's figures are not to be compared (failed, excluded), or None."""
    if r.get("failed"):
        return "run %s failed: %s" % (r["uuid"][:8], r["failed"])
    if r.get("excluded"):
        return "run %s excluded: %s" % (r["uuid"][:8], r["excluded"])
    return None


def metric_rows(fa, fb, floor, large):
    """One row per figure beside GB/s (IOPS, latency, ...) that both A and B have; the
    figures of the same bytes (SAME_BYTES) judged by the band of the GB/s samples."""
    ma, mb = json.loads(fa.get("metrics") or "{}"), json.loads(fb.get("metrics") or "{}")
    rows = []
    order = list(HIGHER_BETTER)
    for m in sorted((k for k in ma if k in mb), key=lambda k: (
            order.index(k) if k in order else len(order), k)):
        same = m in SAME_BYTES
        c = classify(dict(fa, gb_per_s=ma[m], cv_pct=fa.get("cv_pct") if same else None),
                     dict(fb, gb_per_s=mb[m], cv_pct=fb.get("cv_pct") if same else None),
                     floor, large)
        beyond = c["class"] in ("moderate", "large")
        if c["change_pct"] is not None and not HIGHER_BETTER.get(m, True):
            c["text"] = c["text"].replace("drop", "fall").replace("gain", "rise")
            c["worse"] = beyond and c["change_pct"] > 0
        elif c["change_pct"] is not None:
            c["worse"] = beyond and c["change_pct"] < 0
        rows.append(dict(c, metric=m, a=ma[m], b=mb[m]))
    return rows


def classify(fa, fb, floor=NOISE_FLOOR, large=LARGE):
    """The change from A to B in % and its class, with the noise band used: three
    standard errors of the runs' samples where both runs have them, else the floor
    (said: "the floor: no samples")."""
    if fa["params_hash"] != fb["params_hash"]:
        diff = params_diff(fa["params"], fb["params"])
        return {"change_pct": None, "noise_pct": None, "class": "not comparable",
                "text": "not comparable: " + "; ".join(diff or ["parameters differ"])}
    a, b = fa["gb_per_s"], fb["gb_per_s"]
    if not a:
        return {"change_pct": None, "noise_pct": None, "class": "unknown",
                "text": "no change figure (A is 0)"}
    d = (b - a) / a * 100
    band, basis, said = floor, "floor", "the floor: no samples"
    if fa["cv_pct"] is not None and fb["cv_pct"] is not None:
        se = math.sqrt(fa["cv_pct"] ** 2 / (fa["samples"] or 1) +
                       fb["cv_pct"] ** 2 / (fb["samples"] or 1))
        band, basis, said = 3 * se, "samples", "from the runs' samples"
    word = "drop" if d < 0 else "gain"
    noise = "noise %.1f%% %s" % (band, said)
    if abs(d) <= band:
        cls, text = "noise", "within noise (%+.1f%%, %s)" % (d, noise)
    elif abs(d) >= large and abs(d) > 2 * band:
        cls, text = "large", "large %s of %.1f%% (%s)" % (word, abs(d), noise)
    else:
        cls, text = "moderate", "moderate %s of %.1f%% (%s)" % (word, abs(d), noise)
    return {"change_pct": d, "noise_pct": band, "noise_basis": basis, "class": cls,
            "text": text, "worse": cls != "noise" and d < 0}


def flatten(obj, prefix=""):
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flatten(v, "%s%s%s" % (prefix, "." if prefix else "", k)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.update(flatten(v, "%s[%d]" % (prefix, i)))
    else:
        out[prefix] = obj
    return out


INVENTORY_VOLATILE = ("collected", "host", "hash")


def inventory_hash(doc):
    return digest({k: v for k, v in doc.items() if k not in INVENTORY_VOLATILE}, 64)


def inventory_diff(ia, ib):
    """{host: [changes]} of two runs' inventories; None where a side has none."""
    out = {}
    for host in sorted(set(ia) | set(ib)):
        if host not in ia or host not in ib:
            out[host] = None
            continue
        if ia[host]["hash"] == ib[host]["hash"]:
            out[host] = []
            continue
        fa = {k: v for k, v in flatten(json.loads(ia[host]["data"])).items()
              if k.split(".")[0] not in INVENTORY_VOLATILE}
        fb = {k: v for k, v in flatten(json.loads(ib[host]["data"])).items()
              if k.split(".")[0] not in INVENTORY_VOLATILE}
        out[host] = ["%s: %s -> %s" % (k, json.dumps(fa.get(k)), json.dumps(fb.get(k)))
                     for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)]
    return out


def compare(store, ra, rb, floor, large):
    why = [w for w in (unusable(ra), unusable(rb)) if w]
    fa = {fig_key(f): f for f in store.figures(ra["uuid"])} if not why else {}
    fb = {fig_key(f): f for f in store.figures(rb["uuid"])} if not why else {}
    rows, mrows = [], []
    keys = list(fa) + [k for k in fb if k not in fa]
    rung_at = {}
    for k in keys:
        rung_at.setdefault(k[0], len(rung_at))
    # the rungs in the run's order, the nodes and drives of each in their natural order
    keys.sort(key=lambda k: (rung_at[k[0]], natural_key(k[1]), natural_key(k[2])))
    for k in keys:
        a, b = fa.get(k), fb.get(k)
        row = {"rung": k[0], "node": k[1] or None, "drive": k[2] or None,
               "a_gb_per_s": a["gb_per_s"] if a else None,
               "b_gb_per_s": b["gb_per_s"] if b else None}
        if a and b:
            row.update(classify(a, b, floor, large), metric="gb_per_s",
                       a=row["a_gb_per_s"], b=row["b_gb_per_s"])
        else:
            row.update({"change_pct": None, "class": "missing", "metric": "gb_per_s",
                        "text": "only in %s" % ("A" if a else "B")})
        rows.append(row)
        if a and b:  # a list of their own: figures stays one row per rung, node, drive
            for m in metric_rows(a, b, floor, large):
                mrows.append(dict(m, rung=k[0], node=k[1] or None, drive=k[2] or None))
    inv = inventory_diff(store.inventories(ra["uuid"]), store.inventories(rb["uuid"]))
    changed = [r for r in rows + mrows if r["class"] in ("moderate", "large")]
    # worst first: every figure worse beyond noise (a drop; for latency and CPU a rise)
    # before any better one, the largest change first within each
    changed.sort(key=lambda r: (not r.get("worse"), -abs(r["change_pct"])))
    worse = [r for r in changed if r.get("worse")]
    worst = changed[0] if changed else None
    notcmp = [r for r in rows if r["class"] == "not comparable"]
    compared = len([r for r in rows if r["class"] in ("noise", "moderate", "large")])
    lines = []
    if why:
        lines.append("nothing compared: " + "; ".join(why))
    elif not compared:
        lines.append("nothing compared: no figure of A has a comparable figure in B")
    if why:
        pass  # a failed or excluded run: no verdict on figures
    elif worst:
        lines.append(headline(worst))
        if len(worse) > 1:
            lines.append("%d figures worse beyond noise; the next: %s" % (
                len(worse), headline(worse[1])))
        better = [r for r in changed if not r.get("worse")]
        if worse and better:
            lines.append("better: %s" % headline(better[0]))
    elif notcmp and len(notcmp) == len([r for r in rows if r["class"] != "missing"]):
        lines.append(notcmp[0]["text"])
    elif compared:
        lines.append("no change beyond noise")
    if not inv:
        expl = "unexplained: no inventory recorded" if worst else "no inventory recorded"
    elif all(v == [] for v in inv.values()):
        expl = "unexplained: inventory identical" if worst else "inventory identical"
    else:
        parts = []
        for host, ch in inv.items():
            if ch is None:
                parts.append("%s: inventory in one run only" % host)
            elif ch:
                parts.append("%s: %s" % (host, "; ".join(ch)))
        expl = "inventory changed: " + " | ".join(parts)
    lines.append(expl)
    marks = [r for r in store.runs() if ra["seq"] < r["seq"] <= rb["seq"] and r["change_starts"]]
    for r in marks:
        lines.append("a known change starts at %s%s" % (
            r["uuid"][:8], ": " + r["note"] if r["note"] else ""))
    return {"a": run_brief(ra), "b": run_brief(rb), "figures": rows, "metrics": mrows,
            "inventory": inv, "compared": compared, "worse": len(worse),
            "worst": {k: worst.get(k) for k in ("rung", "node", "drive", "metric",
                                                 "change_pct", "noise_pct", "noise_basis",
                                                 "class", "worse", "text")}
            if worst else None, "summary": lines}


def headline(r):
    """A changed figure's verdict and where: 'large drop of 30.0% (noise ...) (rung on
    node, drive)'."""
    return "%s (%s%s%s%s)" % (r["text"], r["rung"],
                              "" if r.get("metric", "gb_per_s") == "gb_per_s"
                              else ": " + r["metric"],
                              " on " + r["node"] if r["node"] else "",
                              ", " + r["drive"] if r["drive"] else "")


def run_brief(r):
    return {"uuid": r["uuid"], "start": r["started"], "end": r["finished"], "mode": r["mode"],
            "note": r["note"], "change_starts": bool(r["change_starts"]),
            "params_hash": r["params_hash"], "suite_version": r["suite_version"],
            "exit_status": r["exit_status"], "failed": r.get("failed"),
            "excluded": r.get("excluded"),
            "hosts": json.loads(r["hosts"] or "[]"), "commands": json.loads(r["commands"] or "[]")}
