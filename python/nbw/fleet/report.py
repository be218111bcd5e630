"""nbw.fleet.report: a sweep's judgement as text, as JSON and as one self-contained HTML
page: the suspects worst first with their evidence, each kind of part, what was not
measured, the nodes (those not PASS open, those that PASS folded), and the pair matrix
as a heat map in inline SVG, a row per node up to NAMED_UP_TO nodes, a row per group
beyond (a PNG of it beside the page when gnuplot is installed, for the small ones)."""

import base64
import html
import json
import os
import shutil
import subprocess
import tempfile

from ..jsonutil import gb_text, printable_all
from . import topology
from . import floors
from ..names import natural_key


def _pct(r):
    return "%.0f%%" % (100 * r) if isinstance(r, (int, float)) else "-"


def _gb(v):
    """A figure in GB/s: 2 decimals, or 2 significant digits under 0.1 (an emulated
    rail's 0.0041 GB/s is never "0.00")."""
    return gb_text(v)


def _directions(ev):
    """'; low as it sends (a->b, a->c)' and the like: which way the low figures went."""
    dirs = sorted(ev.get("low_directions") or {})
    words = {"sends": "as it sends", "receives": "as it receives", "both": "both ways"}
    if not dirs or ev.get("direction") not in words:
        return ""
    more = ev.get("low_count", 0) > len(dirs) and len(dirs) >= 16
    return "; low %s (%s%s)" % (words[ev["direction"]], ", ".join(dirs), ", ..." if more else "")


def reason(s):
    """One sentence saying why a suspect is named: the rule that named it first."""
    own = floors.reason(s)
    if own:
        return own
    if "unshown_drives" in s["evidence"]:  # no figure: what it claims, not a rule
        return _peers_reason(s)
    return floors.words(s) + ": " + _peers_reason(s)


def _peers_reason(s):
    ev = s["evidence"]
    k = s["kind"]
    low = "unsteady: low in the sweep, normal when measured again" if s["state"] == "unsteady" \
        else "low"
    if k == "drive":
        text = "%s alone %s GB/s, %s of the fleet median %s GB/s for its kind" % (
            s["component"], _gb(ev.get("figure_gb_per_s")), _pct(s["ratio"]),
            _gb(ev.get("fleet_median_gb_per_s")))
        if ev.get("retest_gb_per_s") is not None:
            text += "; again %s GB/s (%s)" % (_gb(ev["retest_gb_per_s"]), _pct(ev["retest_ratio"]))
        probe = ev.get("probe") or {}
        if probe.get("says"):
            text += "; the probe: %s (%s)" % (probe["says"], probe.get("link"))
        if (ev.get("health") or {}).get("says"):
            text += "; the drive: %s" % ev["health"]["says"]
        return "%s (%s)" % (text, low)
    if k == "uplink":
        return topology.reason(s)
    if k == "link":
        dirs = {}
        for e in (ev.get("rails") or {"": ev}).values():
            dirs.update(e.get("low_directions") or {})
        return "low only between %s and %s (%s of the median%s); each end is normal with " \
               "other partners (%s)" % (s["node"], s.get("peer"), _pct(s["ratio"]),
                                        ", low %s" % ", ".join(sorted(dirs)) if dirs else "",
                                        low)
    if k == "rail" or "low_count" in ev:
        rt = ev.get("retest_low_with") or []
        ok = ev.get("retest_normal_with") or []
        text = "low with %d of %d partners" % (ev.get("low_count", 0), ev.get("partners", 0))
        # Whose median the ratio is of (the part's, as the summary and the record say it).
        text += ("; %s %s" % (_pct(s["ratio"]), ev["ratio_of"]) if ev.get("ratio_of")
                 else " (median of those %s)" % _pct(s["ratio"]))
        text += _directions(ev)
        dis = ev.get("retest_disputed_with") or []
        if rt or ok or dis:
            text += "; retests with partners that passed: %d low, %d normal" % (len(rt), len(ok))
            if dis:
                text += ", %d disputed (its partner's word and its own disagree)" % len(dis)
        if ev.get("drive_remote_low"):
            text += "; its drives -> remote DRAM low too (%s), which it explains" % ", ".join(
                "with %s" % (x["peer"] if x["node"] == s["node"] else x["node"])
                if x.get("peer") else "every partner" for x in ev["drive_remote_low"])
        probe = ev.get("probe") or {}
        if probe.get("says"):
            text += "; the probe: %s" % probe["says"]
        if (ev.get("counters") or {}).get("says"):
            text += "; %s" % ev["counters"]["says"]
        return "%s (%s)" % (text, low)
    if "unshown_drives" in ev:
        n = ev.get("unshown_count", len(ev["unshown_drives"]))
        return "its read claims %d drive%s its own probe does not show (%s%s): reported, " \
               "never a reference" % (n, "" if n == 1 else "s", ", ".join(ev["unshown_drives"]),
                                      ", ..." if n > len(ev["unshown_drives"]) else "")
    if "drives" in ev or "rails" in ev:
        parts = ev.get("drives") or ev.get("rails")
        return "every one of its %d %s is below its peers, median %s (%s)" % (
            len(parts), "drives" if "drives" in ev else "rails", _pct(s["ratio"]), low)
    return "%s GB/s together, %s of the fleet median %s, while each drive alone is normal " \
           "(%s)" % (_gb(ev.get("figure_gb_per_s")), _pct(s["ratio"]),
                     _gb(ev.get("fleet_median_gb_per_s")), low)


NOT_MEASURED_SHOWN = 20  # parts not measured listed in the text (--json lists them all)


def text(result, out, nodes_shown=None):
    """The judgement for a person: the counts, the suspects worst first, what was not
    measured and why, a summary per kind of part with its worst, then one line per node
    (those not PASS first; nodes_shown: all, problems or none; by default all up to 64
    nodes, the problems beyond). Every string out of a node (names, reasons, evidence)
    is printable first: no control byte reaches a terminal."""
    result = printable_all(result)
    w = out.write
    vc = result.get("verdict_counts") or {}
    w("nbw-fleet judge: %d nodes: %d PASS, %d SUSPECT, %d NOT MEASURED; %d transfers, %d "
      "retests; threshold %s of the median of each kind" % (
          len(result.get("verdicts") or []) or result["nodes"], vc.get("PASS", 0),
          vc.get("SUSPECT", 0), vc.get("NOT MEASURED", 0), result["counts"]["transfers"],
          result["counts"]["retests"], _pct(result["threshold"])) + floors.header(result) + "\n")
    sus = result["suspects"]
    if not sus:
        w("no suspect: no part below %s of its kind's median\n" % _pct(result["threshold"]))
    else:
        w("%d suspect%s, the worst first:\n" % (len(sus), "" if len(sus) == 1 else "s"))
        w("  %-6s %-16s %-28s %-8s %6s  %s\n" % ("kind", "node", "component", "state", "ratio",
                                                 "evidence"))
        for s in sus:
            w("  %-6s %-16s %-28s %-8s %6s  %s\n" % (s["kind"], s["node"], s["component"],
                                                     s["state"], _pct(s["ratio"]), reason(s)))
    ups = result.get("uplinks") or []
    if result.get("topology"):
        w("topology %s: %d uplinks judged (leaves x rails), %d named\n" % (
            result["topology"], len(ups), sum(bool(u.get("named")) for u in ups)))
    miss = result.get("not_measured_parts") or []
    if miss:
        w("%d part%s not measured:\n" % (len(miss), "" if len(miss) == 1 else "s"))
        for m in miss[:NOT_MEASURED_SHOWN]:
            w("  not measured: %s (%s)\n" % (m["part"], m["reason"]))
        if len(miss) > NOT_MEASURED_SHOWN:
            w("  ... and %d more (--json lists them)\n" % (len(miss) - NOT_MEASURED_SHOWN))
    kinds_text(result.get("kinds") or [], w)
    nodes_text(result.get("verdicts") or [], w, nodes_shown)


def kinds_text(kinds, w):
    if not kinds:
        return
    w("each kind of part (figures in GB/s; drive->remote: GB/s of the drives' share):\n")
    for k in kinds:
        low = " low below %s" % _gb(k["threshold_gb_per_s"]) if k["threshold_gb_per_s"] \
            else ""
        w("  %-15s %-30s %5d, min %s median %s max %s%s\n" % (
            k["kind"], k["group"][:30], k["count"], _gb(k["min"]), _gb(k["median"]),
            _gb(k["max"]), low))
        worst = [x for x in k["worst"] if x["ratio"] is not None][:5]
        if worst:
            w("    worst: %s\n" % ", ".join("%s %s %s (%s%s)" % (
                x["node"], x["component"], _gb(x["figure_gb_per_s"]), _pct(x["ratio"]),
                ", what it %s" % x["way"] if x.get("way") else "") for x in worst))


def nodes_text(verdicts, w, shown=None):
    if not verdicts:
        return
    shown = shown or ("all" if len(verdicts) <= 64 else "problems")
    if shown == "none":
        return
    rank = {"SUSPECT": 0, "NOT MEASURED": 1, "PASS": 2}
    rows = sorted(verdicts, key=lambda v: (rank[v["verdict"]], natural_key(v["node"])))
    if shown == "problems":
        rows = [v for v in rows if v["verdict"] != "PASS"]
    passed = sum(v["verdict"] == "PASS" for v in verdicts)
    w("nodes%s:\n" % ("" if shown == "all" else " not PASS (%d PASS not listed: "
                      "--nodes-shown all)" % passed))
    width = max(len(v["node"]) for v in verdicts)
    for v in rows:
        line = v["verdict"] + (": " + v["what"] if v["what"] else "")
        if v["notes"]:
            line += " (%s)" % "; ".join(v["notes"])
        w("  %-*s  %s\n" % (width, v["node"], line))


def as_json(result, out):
    doc = dict(result)
    doc["suspects"] = [dict(s, reason=reason(s)) for s in result["suspects"]]
    # One write: json.dump's thousands of small writes cost more than the judgement
    # itself at 4096 nodes.
    out.write(json.dumps(doc, indent=1, sort_keys=False) + "\n")


def _colour(r, threshold):
    """Green at the median and above, yellow at the threshold, red at half."""
    if r is None:
        return "#ddd"
    if r >= 1:
        return "#2e7d32"
    if r >= threshold:
        t = (1 - r) / (1 - threshold)
        return "#%02x%02x%02x" % (int(46 + t * (240 - 46)), int(125 + t * (200 - 125)), 50)
    t = max(0.0, min(1.0, (threshold - r) / (threshold - 0.5)))
    return "#%02x%02x%02x" % (int(240 - t * 40), int(200 - t * 170), 40)


NAMED_UP_TO = 64  # up to this many nodes the matrix has a row and a column per node
GROUPS_AT_MOST = 64  # beyond, a row and a column per group of nodes, at most this many


def group_nodes(nodes, groups=None):
    """[(label, [nodes])] for the matrix of a large fleet: by the hostfile's rack or
    switch when it gives one (groups: {node: name}; more names than GROUPS_AT_MOST are
    taken several a row, in order), else by ranges of the nodes' order."""
    if groups and all(n in groups for n in nodes):
        names = sorted({groups[n] for n in nodes}, key=natural_key)
        per = -(-len(names) // GROUPS_AT_MOST)
        out = []
        for i in range(0, len(names), per):
            chunk = names[i:i + per]
            label = chunk[0] if len(chunk) == 1 else "%s..%s" % (chunk[0], chunk[-1])
            members = [n for n in nodes if groups[n] in set(chunk)]
            out.append((label, members))
        return out
    per = -(-len(nodes) // GROUPS_AT_MOST)
    return [("%s..%s" % (nodes[i], nodes[min(i + per, len(nodes)) - 1]), nodes[i:i + per])
            for i in range(0, len(nodes), per)]


def grouped_matrix(groups, matrix, threshold):
    """{(i, j): (worst ratio, pairs, pairs low, the worst pair)} between groups i <= j."""
    where = {n: i for i, (_, members) in enumerate(groups) for n in members}
    out = {}
    for (a, b), r in matrix.items():
        if a not in where or b not in where:
            continue
        key = tuple(sorted((where[a], where[b])))
        worst, count, low, pair = out.get(key, (None, 0, 0, None))
        if worst is None or r < worst:
            worst, pair = r, (a, b)
        out[key] = (worst, count + 1, low + (r < threshold), pair)
    return out


def heatmap_svg(nodes, matrix, threshold, size=640, groups=None):
    """The pair matrix: a cell per pair of nodes (named on the axes) up to NAMED_UP_TO
    nodes, else per pair of groups (its worst pair's ratio, the count of pairs and of
    low ones in its title)."""
    n = len(nodes)
    if n == 0:
        return "<p>No pairs measured.</p>"
    if n <= NAMED_UP_TO:
        labels = list(nodes)
        cells = {}
        idx = {x: i for i, x in enumerate(nodes)}
        for (a, b), r in matrix.items():
            if a in idx and b in idx:
                cells[(idx[a], idx[b])] = (r, "%s - %s: %s of the median" % (a, b, _pct(r)))
    else:
        gs = group_nodes(nodes, groups)
        labels = [g[0] for g in gs]
        cells = {}
        for (i, j), (r, count, low, pair) in grouped_matrix(gs, matrix, threshold).items():
            cells[(i, j)] = (r, "%s - %s: %d pairs, %d low; the worst %s - %s at %s" % (
                labels[i], labels[j], count, low, pair[0], pair[1], _pct(r)))
    return _svg(labels, cells, threshold, size)


def _svg(labels, cells, threshold, size):
    m = len(labels)
    cell = max(1.0, size / m)
    pad = 7.0 * max(len(x) for x in labels) if m <= NAMED_UP_TO else 0
    font = max(4.0, min(11.0, cell * 0.8))
    pad = min(pad * font / 11.0, 220.0)
    total = pad + cell * m
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'viewBox="0 0 %g %g" role="img" aria-label="pair matrix">' % (
                 total, total, total, total),
             '<rect width="%g" height="%g" x="%g" y="%g" fill="#f4f4f4"/>' % (
                 cell * m, cell * m, pad, pad)]
    if pad:
        for i, x in enumerate(labels):
            c = pad + (i + 0.5) * cell
            parts.append('<text x="%g" y="%g" font-size="%g" text-anchor="end" '
                         'dominant-baseline="middle">%s</text>' % (pad - 2, c, font,
                                                                   html.escape(x)))
            parts.append('<text transform="translate(%g,%g) rotate(-90)" font-size="%g" '
                         'dominant-baseline="middle">%s</text>' % (c, pad - 2, font,
                                                                   html.escape(x)))
    for (i, j), (r, tip) in sorted(cells.items()):
        col = _colour(r, threshold)
        for a, b in {(i, j), (j, i)}:
            parts.append('<rect x="%g" y="%g" width="%g" height="%g" fill="%s"><title>%s'
                         '</title></rect>' % (pad + b * cell, pad + a * cell, cell, cell, col,
                                              html.escape(tip)))
    parts.append("</svg>")
    return "".join(parts)


NOT_MEASURED_PAGE = 500  # parts not measured listed on the page (--json lists them all)
EVIDENCE_PAGE = 200  # suspects whose evidence the page carries in full


def _rows(items, cells):
    return "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(str(c)) for c in cells(x))
                   for x in items)


def _nodes_html(verdicts):
    """The nodes not PASS in a table (open), those that PASS by name (folded)."""
    bad = [v for v in verdicts if v["verdict"] != "PASS"]
    good = [v for v in verdicts if v["verdict"] == "PASS"]
    out = ['<details id="nodes-bad" open><summary>%d node%s not PASS</summary>' % (
        len(bad), "" if len(bad) == 1 else "s")]
    if bad:
        out.append('<table><tr><th>node</th><th>verdict</th><th>what</th><th>notes</th></tr>'
                   '%s</table>' % _rows(bad, lambda v: (v["node"], v["verdict"], v["what"],
                                                         "; ".join(v["notes"]))))
    out.append('</details><details id="nodes-pass"><summary>%d node%s PASS</summary><p>%s</p>'
               '</details>' % (len(good), "" if len(good) == 1 else "s", " ".join(
                   html.escape(v["node"]) + (" (%s)" % html.escape("; ".join(v["notes"]))
                                             if v["notes"] else "") for v in good)))
    return "".join(out)


def _kinds_html(kinds):
    return "<table id=\"kinds\"><tr><th>kind</th><th>group</th><th>parts</th><th>min</th>" \
        "<th>median</th><th>max</th><th>low below</th><th>the worst</th></tr>%s</table>" % \
        _rows(kinds, lambda k: (k["kind"], k["group"], k["count"], _gb(k["min"]),
                                _gb(k["median"]), _gb(k["max"]),
                                _gb(k["threshold_gb_per_s"]) if k["threshold_gb_per_s"]
                                else "-",
                                ", ".join("%s %s (%s)" % (x["node"], x["component"],
                                                          _pct(x["ratio"]))
                                          for x in k["worst"][:3])))


def html_page(result, nodes, matrix, png=None):
    th = result["threshold"]
    rows = "".join(
        "<tr class=%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
        % (html.escape(s["state"]), html.escape(s["kind"]), html.escape(s["node"]),
           html.escape(s["component"]), html.escape(s["state"]), _pct(s["ratio"]),
           html.escape(reason(s))) for s in result["suspects"])
    if not rows:
        rows = "<tr><td colspan=6>No suspect: no part below %s of its kind's median." \
               "</td></tr>" % _pct(th)
    miss = result.get("not_measured_parts") or []
    missing = "".join("<li>%s: %s</li>" % (html.escape(m["part"]), html.escape(m["reason"]))
                      for m in miss[:NOT_MEASURED_PAGE])
    missing += "<li>... and %d more (nbw-fleet judge --json lists them)</li>" % (
        len(miss) - NOT_MEASURED_PAGE) if len(miss) > NOT_MEASURED_PAGE else ""
    skipped = "".join("<li>%s: %s</li>" % (html.escape(str(s.get("node"))),
                                           html.escape(str(s.get("reason"))))
                      for s in result["skipped"])
    evidence = html.escape(json.dumps(result["suspects"][:EVIDENCE_PAGE], indent=1))
    img = '<p><img src="%s" alt="pair matrix (PNG)"></p>' % html.escape(png) if png else ""
    vc = result.get("verdict_counts") or {}
    named = len(nodes) <= NAMED_UP_TO
    beyond = "" if named else "<p>Suspects by group: %s</p>" % html.escape("; ".join(
        "%s %s (%s)" % (s["node"], s["component"], _group_of(s["node"], nodes,
                                                             result.get("groups")))
        for s in result["suspects"][:EVIDENCE_PAGE]) or "none")
    return PAGE % (
        vc.get("PASS", 0), vc.get("SUSPECT", 0), vc.get("NOT MEASURED", 0),
        result["nodes"], result["counts"]["transfers"], result["counts"]["retests"], _pct(th),
        html.escape(str(result["suite_version"])),
        rows, _kinds_html(result.get("kinds") or []),
        "<h2>Not measured</h2><ul>%s%s</ul>" % (skipped, missing) if skipped or missing else "",
        _nodes_html(result.get("verdicts") or []),
        "a row and a column per node" if named else
        "a row and a column per group of nodes (%s), each cell its worst pair" % (
            "by rack or switch, from the hostfile" if result.get("groups") else
            "ranges of the nodes' order"),
        heatmap_svg(nodes, matrix, th, groups=result.get("groups")), beyond, img,
        min(len(result["suspects"]), EVIDENCE_PAGE), evidence)


def _group_of(node, nodes, groups):
    for label, members in group_nodes(nodes, groups):
        if node in members:
            return label
    return "-"


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>nbw-fleet: the sweep's judgement</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<style>
body{font-family:sans-serif;margin:2em;max-width:80em}
table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}
tr.low td{background:#fde0dc}tr.unsteady td{background:#fff3cd}
pre{background:#f6f6f6;padding:1em;overflow:auto;max-height:30em}
summary{cursor:pointer;font-weight:bold;margin:.5em 0}
</style></head><body>
<h1>Fleet sweep: the judgement</h1>
<p id="summary">%d PASS, %d SUSPECT, %d NOT MEASURED of %d nodes; %d transfers, %d retests;
threshold %s of the median of each kind (suite version %s).</p>
<h2>Suspects, the worst first</h2>
<table id="suspects"><tr><th>kind</th><th>node</th><th>component</th><th>state</th>
<th>ratio</th><th>evidence</th></tr>%s</table>
<h2>Each kind of part</h2>
%s
%s
<h2>Nodes</h2>
%s
<h2>Pair matrix</h2>
<p>Each cell: the worst ratio to the median over the rails and both directions (%s;
green: at the median, yellow: the threshold, red: half; grey: not measured).</p>
%s
%s
%s
<details><summary>Evidence of the first %d suspects</summary>
<pre>%s</pre></details>
</body></html>
"""


def data_uri(path):
    """The PNG at path as a data: URI (the page names nothing outside itself)."""
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")


def heatmap_gnuplot(nodes, path, data):
    """gnuplot's script of the heat map of NODES (the pairs' ratios in the file DATA,
    "i j ratio" a line) into the PNG PATH: each node named on both axes, the first at
    the top left as on the page's SVG."""
    n = len(nodes)
    q = lambda s: "'%s'" % str(s).replace("'", "''")
    tics = ", ".join("%s %d" % (q(x), i) for i, x in enumerate(nodes))
    font = max(5, min(10, int(400 / n)))
    return ("set terminal pngcairo size 800,800 noenhanced; set output %s; set size square; "
            "set xrange [-0.5:%g]; set yrange [%g:-0.5]; set cbrange [0.5:1.1]; "
            "set xtics (%s) rotate by 90 right font ',%d'; set ytics (%s) font ',%d'; "
            "set palette defined (0.5 'red', 0.9 'yellow', 0.97 'green', 1.1 'dark-green'); "
            "set title 'pair matrix: ratio to the median'; unset key; "
            "plot %s using 1:2:3 with points pointtype 5 pointsize %g palette\n" % (
                q(path), n - 0.5, n - 0.5, tics, font, tics, font, q(data),
                max(0.1, min(2.0, 40.0 / n))))


def heatmap_png(nodes, matrix, path):
    """The heat map as a PNG through gnuplot ($GNUPLOT, else gnuplot); False when
    gnuplot is not installed or fails (the HTML page has the SVG either way)."""
    gp = shutil.which(os.environ.get("GNUPLOT", "gnuplot"))
    if not gp or not nodes:
        return False
    idx = {x: i for i, x in enumerate(nodes)}
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for (a, b), r in matrix.items():
            if a in idx and b in idx:
                f.write("%d %d %g\n%d %d %g\n" % (idx[a], idx[b], r, idx[b], idx[a], r))
        data = f.name
    try:
        r = subprocess.run([gp], input=heatmap_gnuplot(nodes, path, data), text=True,
                           capture_output=True, timeout=60)
        return r.returncode == 0 and os.path.exists(path)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        os.unlink(data)
