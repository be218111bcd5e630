"""The verbs of nbw-results but report and inventory: record, list, show, compare,
trend (with its gnuplot chart), export (reference and check: verbs_ref)."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ..jsonutil import dig, printable
from ..names import natural
from .base import FORMAT, NOTHING_COMPARED, Fail, epoch_of, now_utc, warn
from .compare import HIGHER_BETTER, run_brief
from .documents import UNITS
from . import sweep_show
from .fleet import build_fleet_run, is_sweep
from .record import build_runs, refuse_known_ids, storable
from .output import emit, fmt, table
from .store import Store, default_dir


def open_store(args, create=False):
    d = args.db or os.environ.get("NBW_RESULTS") or default_dir()
    return Store(d, args.index or os.environ.get("NBW_RESULTS_INDEX") or None, create)


def cmd_record(args):
    if args.note is not None and (len(args.note) > 4096 or "\n" in args.note):
        raise Fail(2, "--note: one line of at most 4096 characters")
    sweeps = [p for p in args.files if is_sweep(p)]
    if sweeps and len(args.files) > 1:
        raise Fail(2, "%s: a fleet sweep is recorded on its own, one run per sweep" % sweeps[0])
    if args.node_from_name and args.node:
        raise Fail(2, "--node and --node-from-name: one of them")
    entries = [build_fleet_run(args, sweeps[0])] if sweeps else build_runs(args, args.files)
    entries = [storable(e) for e in entries]
    st = open_store(args, create=True)
    try:  # under the record's lock: a run id recorded meanwhile is refused too
        refuse_known_ids(st, entries)
        st.append_all(entries)
        lost = [e["uuid"] for e in entries if not st.q("SELECT 1 FROM runs WHERE uuid = ?",
                                                        (e["uuid"],))]
    finally:
        st.close()
    if lost:
        raise Fail(1, "%s: run %s written but not indexed (see the line above): not "
                   "recorded" % (st.record, lost[0]))
    docs, lines = [], []
    for entry in entries:
        nodes = natural({f["node"] for f in entry["figures"] if f["node"]})
        docs.append({"uuid": entry["uuid"], "record": st.record,
                     "figures": len(entry["figures"]), "nodes": nodes,
                     "hosts_inventoried": sorted(entry["inventory"]),
                     "not_measured": entry.get("not_measured") or [],
                     "failed": entry["failed"]})
        if entry["failed"]:
            lines.append("recorded %s as FAILED (%s): its %d figures are never compared, "
                         "trended or checked, in %s" % (entry["uuid"], printable(entry["failed"]),
                                                        len(entry["figures"]), st.record))
        elif entry.get("mode") == "fleet":
            lines.append(fleet_recorded(entry, st.record))
        else:
            lines.append("recorded %s: %d figures, inventory of %s, in %s" % (
                entry["uuid"], len(entry["figures"]),
                ", ".join(sorted(entry["inventory"])) or "no host", st.record))
    emit(args, docs[0] if len(docs) == 1 else docs, "\n".join(lines))
    return 0


def fleet_recorded(entry, record):
    """record's line of a sweep: its nodes with provenance, without, NOT MEASURED."""
    provs = [v for k, v in entry["provenance"].items() if k.startswith("node ")]
    have = [p["node"] for p in provs if p.get("provenance")]
    bare = [p["node"] for p in provs if not p.get("provenance") and not
            p.get("not_measured")]
    nm = entry.get("not_measured") or []
    return "recorded %s: %d figures of %d nodes, provenance of %d%s%s, in %s" % (
        entry["uuid"], len(entry["figures"]), len(provs), len(have),
        "; without provenance: %s" % nodes_cell(bare) if bare else "",
        "; NOT MEASURED: %s" % "; ".join("%s (%s)" % (x["node"], x["reason"])
                                          for x in nm[:SPREAD_BEYOND]) +
        (" and %d more" % (len(nm) - SPREAD_BEYOND) if len(nm) > SPREAD_BEYOND else "")
        if nm else "", record)


def run_state(r):
    return "failed" if r.get("failed") else "excluded" if r.get("excluded") else ""


def list_filter(args, runs):
    """The runs of --node, --since (a UTC date or time) and --mode."""
    if getattr(args, "since", None):
        since = args.since if "T" in args.since else args.since + "T00:00:00Z"
        if epoch_of(since) is None:
            raise Fail(2, "--since %s: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)" % args.since)
        runs = [r for r in runs if (epoch_of(r["started"]) or 0) >= epoch_of(since)]
    if getattr(args, "node", None):
        runs = [r for r in runs if args.node in json.loads(r["hosts"] or "[]")]
    if getattr(args, "mode", None):
        runs = [r for r in runs if r["mode"] == args.mode]
    return runs


# Beyond this many nodes a run's nodes are counted, not listed, and a trend draws the
# spread of a run's figures (min, median, max) instead of a line per node.
SPREAD_BEYOND = 8


def nodes_cell(hosts):
    """The list's nodes column: the names up to SPREAD_BEYOND, else their count and the
    first and last (a fleet's)."""
    if not hosts:
        return "-"
    hosts = natural(hosts)
    if len(hosts) <= SPREAD_BEYOND:
        return ",".join(hosts)
    return "%d nodes (%s .. %s)" % (len(hosts), hosts[0], hosts[-1])


def cmd_list(args):
    st = open_store(args)
    try:
        every = st.runs()
        runs = list_filter(args, every)
        counts = {r["run"]: r["n"] for r in st.q(
            "SELECT run, COUNT(*) AS n FROM figures GROUP BY run")}
        skipped = st.q("SELECT line FROM skipped ORDER BY line")
    finally:
        st.close()
    doc = [dict(run_brief(r), figures=counts.get(r["uuid"], 0)) for r in runs]
    pos = {r["uuid"]: i for i, r in enumerate(every)}
    rows = [("latest~%d" % (len(every) - 1 - pos[r["uuid"]]), r["uuid"][:8], r["started"] or "-",
             r["mode"] or "-", nodes_cell(json.loads(r["hosts"] or "[]")),
             counts.get(r["uuid"], 0), "*" if r["change_starts"] else "", run_state(r),
             r["note"] or "") for r in runs]
    text = table(("run", "id", "start (UTC)", "mode", "nodes", "figures", "change", "state",
                  "note"), rows, right=(5,)) if runs else (
        "no runs recorded in %s" % st.dir if not every else "no run matches")
    if skipped:
        warn("%s: %d record lines skipped (not usable): line %s" % (
            st.record, len(skipped), ", ".join(str(s["line"]) for s in skipped)))
    emit(args, doc, text)
    return 0


def cmd_show(args):
    st = open_store(args)
    try:
        r = st.resolve(args.run)
        figs = st.figures(r["uuid"])
        inv = st.inventories(r["uuid"])
        notes = st.notes(r["uuid"])
        provs = st.provenance(r["uuid"])
    finally:
        st.close()
    if args.node is not None:  # show --node: that node's figures and provenance
        figs = [f for f in figs if f["node"] == args.node]
        if not figs and sweep_show.node_doc(provs, args.node) is None:
            raise Fail(2, "--node %s: no figure or provenance of this node in run %s" % (
                args.node, r["uuid"][:8]))
    doc = dict(run_brief(r), figures=[dict({k: f[k] for k in (
        "rung", "node", "drive", "gb_per_s", "cv_pct", "samples", "params_hash")},
        **json.loads(f["metrics"] or "{}")) for f in figs],
               notes=[{"at": n["at"], "kind": n["kind"], "text": n["text"]} for n in notes],
               inventory={h: {"hash": v["hash"], "data": json.loads(v["data"])}
                          for h, v in inv.items()}, provenance=provs)
    if args.node is not None:
        doc["node"] = sweep_show.node_doc(provs, args.node)
    # Every recorded word escaped where it is put into its line: a newline in a node's
    # kernel or command never becomes a line of its own ("FAILED: ...").
    def say(form, *words):
        return form % tuple(printable(str(w)) for w in words)

    lines = ["run %s" % r["uuid"], say("start %s  end %s  mode %s  suite %s",
                                       r["started"], r["finished"], r["mode"] or "-",
                                       r["suite_version"] or "-"),
             say("parameters %s%s", r["params_hash"], "  (a known change starts here)"
                 if r["change_starts"] else "")]
    if r["note"]:
        lines.append(say("note: %s", r["note"]))
    if r["exit_status"]:
        lines.append("the run failed (exit status %d): its figures may be partial"
                     % r["exit_status"])
    if r["failed"]:
        lines.append(say("FAILED: %s (never compared, trended or checked)", r["failed"]))
    for n in notes:
        lines.append(say("%s %s: %s", "excluded" if n["kind"] == "exclude" else "note",
                         n["at"], n["text"] or ""))
    for c in json.loads(r["commands"] or "[]"):
        lines.append(say("command: %s", c))
    lines += sweep_show.provenance_lines(provs, args.node)
    lines.append("")
    lines.append(table(("rung", "node", "drive", "GB/s", "cv %", "samples"),
                       [(f["rung"], f["node"] or "-", f["drive"] or "-", fmt(f["gb_per_s"]),
                         fmt(f["cv_pct"], "%.1f"), f["samples"] or "-") for f in figs],
                       right=(3, 4, 5)))
    extra = [(f, json.loads(f["metrics"] or "{}")) for f in figs if f["metrics"] not in
             (None, "{}")]
    if extra:
        lines.append("")
        lines.append(table(("rung", "node", "drive", "figure", "value"),
                           [(f["rung"], f["node"] or "-", f["drive"] or "-", k, "%.6g" % v)
                            for f, m in extra for k, v in m.items()], right=(4,)))
    for h, v in sorted(inv.items()):
        d = json.loads(v["data"])
        lines.append(say("inventory %s: %s (kernel %s, %s)", h, v["hash"][:16],
                         dig(d, "kernel", "release") or "?", dig(d, "cpu", "model") or "?"))
    emit(args, doc, "\n".join(lines))
    return 0


def trend_points(st, rung, node, drive):
    rows = st.q("SELECT f.*, r.uuid, r.started, r.note, r.change_starts, r.seq, r.failed, "
                "r.excluded FROM figures f JOIN runs r ON r.uuid = f.run "
                "WHERE lower(f.rung) = lower(?) ORDER BY r.seq", (rung,))
    if node:
        rows = [r for r in rows if r["node"] == node]
    if drive:
        rows = [r for r in rows if r["drive"] == drive]
    elif any(r["drive"] is None for r in rows):
        rows = [r for r in rows if r["drive"] is None]
    return rows


def trend_kept(pts):
    """(kept, left out as not comparable, left out as failed or excluded, parameters):
    the points a trend draws, the same for the CLI and the HTML report."""
    bad = [p for p in pts if p["failed"] or p["excluded"]]
    good = [p for p in pts if not (p["failed"] or p["excluded"])]
    if not good:
        return [], 0, len(bad), None
    last = good[-1]["params_hash"]
    kept = [p for p in good if p["params_hash"] == last]
    return kept, len(good) - len(kept), len(bad), last


def figure_name(name):
    """A figure trend and check know (gb_per_s, iops, lat_p99_us, ...), or exit 2."""
    if name not in UNITS:
        raise Fail(2, "--figure %s: one of %s" % (name, ", ".join(UNITS)))
    return name


def figure_value(p, name):
    """A figure row's value of one kind: GB/s or one of its metrics (None: not kept)."""
    if name == "gb_per_s":
        return p["gb_per_s"]
    return json.loads(p.get("metrics") or "{}").get(name)


def change_word(name, pct):
    """'(worse)' or '(better)' of a change in %: for latency and CPU, up is worse."""
    if not pct:
        return ""
    worse = (pct < 0) == HIGHER_BETTER.get(name, True)
    return " (worse)" if worse else " (better)"


def trend_summary(kept, name, doc, text):
    """The baseline since the last known change, and the last point against the one
    before it, worse or better as the figure's kind says."""
    unit = UNITS[name]
    marks = [i for i, p in enumerate(kept) if p["change_starts"]]
    if marks:  # the baseline restarts at the last known change
        seg = [p["value"] for p in kept[marks[-1]:] if p["value"] is not None]
        m = kept[marks[-1]]
        mean = sum(seg) / len(seg) if seg else None
        doc["since_change"] = {"run": m["uuid"], "points": len(seg), "mean": mean}
        if name == "gb_per_s":
            doc["since_change"]["mean_gb_per_s"] = mean
        text.append("since the known change at %s%s: %d points, mean %s %s" % (
            m["uuid"][:8], " (%s)" % m["note"] if m["note"] else "", len(seg),
            fmt(mean, "%.2f" if name == "gb_per_s" else "%.6g"), unit))
    series = {}
    for p in kept:
        series.setdefault((p["node"], p["drive"]), []).append(p)
    if len(series) == 1 and len(kept) > 1 and kept[-2]["value"]:
        pct = (kept[-1]["value"] - kept[-2]["value"]) / kept[-2]["value"] * 100
        doc["last_change"] = {"pct": pct, "worse": bool(change_word(name, pct) == " (worse)")}
        text.append("last point against the one before: %+.1f%%%s" % (
            pct, change_word(name, pct)))


def cmd_trend(args):
    name = figure_name(getattr(args, "figure", None) or "gb_per_s")
    st = open_store(args)
    try:
        pts = trend_points(st, args.rung, args.node, args.drive)
    finally:
        st.close()
    if not pts:
        raise Fail(1, "%s: no recorded figure of this rung (nbw-results show latest lists them)"
                   % args.rung)
    pts = [dict(p, value=figure_value(p, name)) for p in pts]
    pts = [p for p in pts if p["value"] is not None]
    if not pts:
        raise Fail(1, "%s: no %s figure recorded for this rung (nbw-results show latest "
                   "lists them)" % (args.rung, name))
    kept, left, bad, last = trend_kept(pts)
    if not kept:
        raise Fail(NOTHING_COMPARED, "%s: every run with this rung failed or was excluded"
                   % args.rung)
    series = {}
    for p in kept:
        series.setdefault((p["node"] or "-", p["drive"] or "-"), []).append(p)
    if len(series) > SPREAD_BEYOND:
        return trend_spread(args, name, kept, left, bad, last)
    if args.out:
        plot_trend(args.out, args.rung, series, args.size, name)
    doc = {"rung": args.rung, "figure": name, "unit": UNITS[name], "params_hash": last,
           "left_out_not_comparable": left, "left_out_failed_or_excluded": bad,
           "points": [{"run": p["uuid"], "start": p["started"], "node": p["node"],
                       "drive": p["drive"], "value": p["value"], "gb_per_s": p["gb_per_s"],
                       "cv_pct": p["cv_pct"], "note": p["note"],
                       "change_starts": bool(p["change_starts"])}
                      for p in kept], "png": args.out}
    vfmt = "%.2f" if name == "gb_per_s" else "%.6g"
    rows = [(p["started"], p["uuid"][:8], p["node"] or "-", p["drive"] or "-",
             fmt(p["value"], vfmt), fmt(p["cv_pct"], "%.1f"),
             ("| change starts: " if p["change_starts"] else "") + (p["note"] or ""))
            for p in kept]
    unit = UNITS[name] if name in ("gb_per_s", "iops", "writes_per_s") else \
        "%s %s" % (name, UNITS[name])
    text = [table(("start (UTC)", "run", "node", "drive", unit, "cv %", "note"), rows,
                  right=(4, 5))]
    trend_summary(kept, name, doc, text)
    return trend_tail(args, doc, text, left, bad)


def trend_tail(args, doc, text, left, bad):
    """trend's last lines, of a series and of a spread alike: the points left out, the
    plot's path; then the document or the text. Returns the exit status."""
    if left:
        text.append("%d points with other parameters left out (not comparable)" % left)
    if bad:
        text.append("%d points of failed or excluded runs left out" % bad)
    if args.out:
        text.append("plot: %s" % args.out)
    emit(args, doc, "\n".join(text))
    return 0


def spread_of(kept):
    """[{run, start, note, change_starts, count, min, median, max}] of the points of each
    run, in the runs' order."""
    runs = {}
    for p in kept:
        runs.setdefault(p["uuid"], []).append(p)
    out = []
    for pts in runs.values():
        vs = sorted(p["value"] for p in pts)
        mid = len(vs) // 2
        med = vs[mid] if len(vs) % 2 else (vs[mid - 1] + vs[mid]) / 2
        out.append({"run": pts[0]["uuid"], "start": pts[0]["started"], "note": pts[0]["note"],
                    "change_starts": bool(pts[0]["change_starts"]), "count": len(vs),
                    "min": vs[0], "median": med, "max": vs[-1]})
    return out


def trend_spread(args, name, kept, left, bad, last):
    """trend of a rung measured on many nodes (a fleet's): per run, the spread of its
    figures (min, median, max over its nodes and drives), a row each and three lines in
    the plot, so that thousands of nodes stay readable."""
    rows = spread_of(kept)
    if args.out:
        series = {(k, "-"): [{"started": r["start"], "value": r[k],
                               "change_starts": r["change_starts"] and k == "median",
                               "note": r["note"] if k == "median" else None} for r in rows]
                  for k in ("min", "median", "max")}
        plot_trend(args.out, args.rung, series, args.size, name)
    vfmt = "%.2f" if name == "gb_per_s" else "%.6g"
    doc = {"rung": args.rung, "figure": name, "unit": UNITS[name], "params_hash": last,
           "left_out_not_comparable": left, "left_out_failed_or_excluded": bad,
           "spread": rows, "png": args.out}
    text = ["%s: %d nodes and drives per run at most, each run's spread (min, median, max)"
            % (args.rung, max(r["count"] for r in rows)),
            table(("start (UTC)", "run", "parts", "min", "median", "max", "note"),
                  [(r["start"], r["run"][:8], r["count"], fmt(r["min"], vfmt),
                    fmt(r["median"], vfmt), fmt(r["max"], vfmt),
                    ("| change starts: " if r["change_starts"] else "") + (r["note"] or ""))
                   for r in rows], right=(2, 3, 4, 5))]
    if len(rows) > 1 and rows[-2]["median"]:
        pct = (rows[-1]["median"] - rows[-2]["median"]) / rows[-2]["median"] * 100
        doc["last_change"] = {"pct": pct, "worse": change_word(name, pct) == " (worse)"}
        text.append("last run's median against the one before: %+.1f%%%s" % (
            pct, change_word(name, pct)))
    return trend_tail(args, doc, text, left, bad)


def gp_text(s):
    """S with no character that could end or bend a gnuplot command (control
    characters, line separators): a recorded word is text, never a command."""
    return "".join(c if c.isprintable() else " " for c in str(s))


def gp_field(s):
    """S as one double-quoted field of a gnuplot data file (a title, a label)."""
    return '"%s"' % gp_text(s).replace('"', "'").replace("\\", "/")


def gnuplot_term(gp):
    ok = subprocess.run([gp, "-e", "set terminal pngcairo"], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode == 0
    return "pngcairo" if ok else "png"


def plot_trend(out, rung, series, size="900x450", name="gb_per_s"):
    """A PNG of the series over time; notes labelled, change marks as dashed lines."""
    gp = os.environ.get("GNUPLOT", "gnuplot")
    if not shutil.which(gp):
        raise Fail(1, "%s not found: install gnuplot (Debian: apt-get install gnuplot-nox)" % gp)
    m = re.match(r"^([1-9][0-9]{2,4})x([1-9][0-9]{2,4})$", size)
    if not m:
        raise Fail(2, "--size %s: WxH in pixels (e.g. 900x450)" % size)
    q = lambda s: "'%s'" % gp_text(s).replace("'", "''")
    with tempfile.TemporaryDirectory(prefix="nbw-results.") as tmp:
        plots, extra, ts, labels = [], [], [], []
        for i, ((node, drive), pts) in enumerate(sorted(series.items())):
            data = os.path.join(tmp, "s%d" % i)
            title = node + ("" if drive == "-" else " " + drive)
            with open(data, "w") as f:
                # Recorded words go to the data files, never into the script: the
                # series' title its file's header, a note a label's row.
                f.write("%s y\n" % gp_field(title))
                for p in pts:
                    t = epoch_of(p["started"])
                    v = p["value"] if "value" in p else p["gb_per_s"]
                    if t is None or v is None:
                        continue
                    ts.append(t)
                    f.write("%d %.6g\n" % (t, v))
                    if p["change_starts"]:
                        extra.append("set arrow from %d, graph 0 to %d, graph 1 nohead dt 2 "
                                     "lc rgb 'red'" % (t, t))
                    if p["note"]:
                        labels.append("%d %.6g %s\n" % (t, v, gp_field(p["note"][:40])))
            plots.append("%s using 1:2 with linespoints pt 7 title columnheader(1)" % q(data))
        if labels:
            with open(os.path.join(tmp, "labels"), "w") as f:
                f.writelines(labels)
            plots.append("%s using 1:2:3 with labels rotate by 30 offset 0.5,0.5 font ',8' "
                         "notitle" % q(os.path.join(tmp, "labels")))
        if not ts:
            raise Fail(1, "%s: no dated points to plot" % rung)
        lo, hi = min(ts), max(ts)
        pad = max((hi - lo) * 0.08, 3600)
        script = [
            "set terminal %s size %s,%s noenhanced" % (gnuplot_term(gp), m.group(1), m.group(2)),
            "set output %s" % q(out), "set title %s" % q("trend: " + rung + ("" if name == "gb_per_s" else ", " + name)),
            "set xdata time", "set timefmt '%s'", "set format x \"%Y-%m-%d\\n%H:%M\"",
            "set xrange [%d:%d]" % (lo - pad, hi + pad), "set yrange [0:*]",
            "set ylabel %s" % q("GB/s (10^9 bytes/s)" if name == "gb_per_s" else
                                "%s (%s)" % (name, UNITS[name])), "set grid", "set key bottom right"] + extra + [
            "plot " + ", ".join(plots), ""]
        with open(os.path.join(tmp, "plot.gp"), "w") as f:
            f.write("\n".join(script))
        p = subprocess.run([gp, os.path.join(tmp, "plot.gp")], stderr=subprocess.PIPE,
                           universal_newlines=True)
        if p.returncode or not os.path.exists(out) or not os.path.getsize(out):
            err = [l for l in p.stderr.splitlines() if l.strip()]
            raise Fail(1, "gnuplot failed: %s" % (err[-1] if err else "no PNG written"))


def cmd_export(args):
    if not args.csv and not args.json:
        raise Fail(2, "export: --csv or --json")
    st = open_store(args)
    try:
        rows = st.q("SELECT r.uuid, r.started, r.finished, r.mode, r.note, r.change_starts, "
                    "r.params_hash AS run_params_hash, f.rung, f.node, f.drive, f.gb_per_s, "
                    "f.cv_pct, f.samples, f.params_hash, f.metrics FROM figures f JOIN runs r "
                    "ON r.uuid = f.run ORDER BY r.seq, f.rowid")
    finally:
        st.close()
    for r in rows:  # the figures beside GB/s (IOPS, latency, CPU, WRITE/s): an object
        r["metrics"] = json.loads(r["metrics"] or "{}")
    out = open(args.out, "w", newline="") if args.out else sys.stdout
    try:
        if args.json:
            json.dump(rows, out, indent=2)
            out.write("\n")
        else:
            cols = ["uuid", "started", "finished", "mode", "note", "change_starts",
                    "run_params_hash", "rung", "node", "drive", "gb_per_s", "cv_pct", "samples",
                    "params_hash", "metrics"]
            w = csv.writer(out)
            w.writerow(cols)
            for r in rows:
                w.writerow(["" if r[c] is None else json.dumps(r[c], sort_keys=True)
                            if c == "metrics" else r[c] for c in cols])
    finally:
        if args.out:
            out.close()
    return 0


def cmd_annotate(args):
    """note RUN TEXT, exclude RUN [--reason TEXT]: a line of its own in the record."""
    words = args.text if args.verb == "note" else (args.reason or "excluded")
    if not words or len(words) > 4096 or "\n" in words:
        raise Fail(2, "%s: one line of at most 4096 characters" % args.verb)
    st = open_store(args)
    try:
        if st.empty:
            raise Fail(1, "no runs recorded in %s" % st.dir)
        r = st.resolve(args.run)
        entry = {"kind": args.verb, "format": FORMAT, "run": r["uuid"], "at": now_utc(),
                 "text": words}
        st.append(entry)
    finally:
        st.close()
    emit(args, entry, "%s %s: %s (recorded in %s; never deleted)" % (
        "noted" if args.verb == "note" else "excluded", r["uuid"][:8], words, st.record))
    return 0
