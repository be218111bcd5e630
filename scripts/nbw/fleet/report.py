"""nbw.fleet.report: a sweep's judgement as text, as JSON and as one self-contained HTML
page (the suspects with their evidence, and the pair matrix as a heat map in inline
SVG; a PNG of the heat map beside the page when gnuplot is installed)."""

import base64
import html
import json
import os
import shutil
import subprocess
import tempfile


def _pct(r):
    return "%.0f%%" % (100 * r) if isinstance(r, (int, float)) else "-"


def _gb(v):
    return "%.2f" % v if isinstance(v, (int, float)) else "-"


def _directions(ev):
    """'; low as it sends (a->b, a->c)' and the like: which way the low figures went."""
    dirs = sorted(ev.get("low_directions") or {})
    words = {"sends": "as it sends", "receives": "as it receives", "both": "both ways"}
    if not dirs or ev.get("direction") not in words:
        return ""
    more = ev.get("low_count", 0) > len(dirs) and len(dirs) >= 16
    return "; low %s (%s%s)" % (words[ev["direction"]], ", ".join(dirs), ", ..." if more else "")


def reason(s):
    """One sentence saying why a suspect is named."""
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
        text = "low with %d of %d partners (median of those %s)" % (
            ev.get("low_count", 0), ev.get("partners", 0), _pct(s["ratio"]))
        text += _directions(ev)
        if rt or ok:
            text += "; retests with partners that passed: %d low, %d normal" % (len(rt), len(ok))
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
    if "drives" in ev or "rails" in ev:
        parts = ev.get("drives") or ev.get("rails")
        return "every one of its %d %s is below its peers, median %s (%s)" % (
            len(parts), "drives" if "drives" in ev else "rails", _pct(s["ratio"]), low)
    return "%s GB/s together, %s of the fleet median %s, while each drive alone is normal " \
           "(%s)" % (_gb(ev.get("figure_gb_per_s")), _pct(s["ratio"]),
                     _gb(ev.get("fleet_median_gb_per_s")), low)


def text(result, out):
    w = out.write
    w("nbw-fleet judge: %d nodes (%d measured), %d transfers, %d retests, threshold %s of "
      "the median of each kind\n" % (result["nodes"], result["measured_nodes"],
                                     result["counts"]["transfers"], result["counts"]["retests"],
                                     _pct(result["threshold"])))
    for s in result["skipped"]:
        w("  not measured: %s (%s)\n" % (s.get("node"), s.get("reason")))
    for n in result["not_measured"]:
        if not any(s.get("node") == n for s in result["skipped"]):
            w("  not measured: %s\n" % n)
    for f in result.get("failed", []):
        w("  not measured: %s (%s)\n" % (f["part"], f["reason"]))
    if result["unreadable"]:
        w("  %d unreadable file(s) left out, the first: %s\n" % (
            len(result["unreadable"]), result["unreadable"][0]))
    sus = result["suspects"]
    if not sus:
        w("no suspect: every part is within %s of its kind's median\n" % _pct(result["threshold"]))
        return
    w("%d suspect%s:\n" % (len(sus), "" if len(sus) == 1 else "s"))
    w("  %-6s %-16s %-28s %-8s %6s  %s\n" % ("kind", "node", "component", "state", "ratio",
                                             "evidence"))
    for s in sus:
        w("  %-6s %-16s %-28s %-8s %6s  %s\n" % (s["kind"], s["node"], s["component"],
                                                 s["state"], _pct(s["ratio"]), reason(s)))


def as_json(result, out):
    doc = dict(result)
    doc["suspects"] = [dict(s, reason=reason(s)) for s in result["suspects"]]
    json.dump(doc, out, indent=1, sort_keys=False)
    out.write("\n")


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


def heatmap_svg(nodes, matrix, threshold, size=640):
    n = len(nodes)
    if n == 0:
        return "<p>No pairs measured.</p>"
    cell = max(1.0, size / n)
    idx = {x: i for i, x in enumerate(nodes)}
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'viewBox="0 0 %g %g" role="img" aria-label="pair matrix">' % (
                 size, size, cell * n, cell * n),
             '<rect width="100%" height="100%" fill="#f4f4f4"/>']
    for (a, b), r in sorted(matrix.items()):
        if a not in idx or b not in idx:
            continue
        col = _colour(r, threshold)
        tip = "%s - %s: %s of the median" % (a, b, _pct(r))
        for i, j in ((idx[a], idx[b]), (idx[b], idx[a])):
            parts.append('<rect x="%g" y="%g" width="%g" height="%g" fill="%s"><title>%s'
                         '</title></rect>' % (j * cell, i * cell, cell, cell, col,
                                              html.escape(tip)))
    parts.append("</svg>")
    return "".join(parts)


def html_page(result, nodes, matrix, png=None):
    th = result["threshold"]
    rows = "".join(
        "<tr class=%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
        % (html.escape(s["state"]), html.escape(s["kind"]), html.escape(s["node"]),
           html.escape(s["component"]), html.escape(s["state"]), _pct(s["ratio"]),
           html.escape(reason(s))) for s in result["suspects"])
    if not rows:
        rows = "<tr><td colspan=6>No suspect: every part within %s of its kind's median." \
               "</td></tr>" % _pct(th)
    skipped = "".join("<li>%s: %s</li>" % (html.escape(str(s.get("node"))),
                                           html.escape(str(s.get("reason"))))
                      for s in result["skipped"])
    evidence = html.escape(json.dumps(result["suspects"], indent=1))
    img = '<p><img src="%s" alt="pair matrix (PNG)"></p>' % html.escape(png) if png else ""
    return """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>nbw-fleet: the sweep's judgement</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<style>
body{font-family:sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}
tr.low td{background:#fde0dc}tr.unsteady td{background:#fff3cd}
pre{background:#f6f6f6;padding:1em;overflow:auto;max-height:30em}
</style></head><body>
<h1>Fleet sweep: the judgement</h1>
<p id="summary">%d nodes (%d measured), %d transfers, %d retests; threshold %s of the
median of each kind (suite version %s).</p>
<h2>Suspects</h2>
<table id="suspects"><tr><th>kind</th><th>node</th><th>component</th><th>state</th>
<th>ratio</th><th>evidence</th></tr>%s</table>
%s
<h2>Pair matrix</h2>
<p>Each cell: the worst ratio to the median over the rails and both directions of the
pair (green: at the median, yellow: the threshold, red: half; grey: not measured).</p>
%s
%s
<h2>Evidence</h2>
<pre>%s</pre>
</body></html>
""" % (result["nodes"], result["measured_nodes"], result["counts"]["transfers"],
       result["counts"]["retests"], _pct(th), html.escape(str(result["suite_version"])), rows,
       "<h2>Not measured</h2><ul>%s</ul>" % skipped if skipped else "",
       heatmap_svg(nodes, matrix, th), img, evidence)


def data_uri(path):
    """The PNG at path as a data: URI (the page names nothing outside itself)."""
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")


def heatmap_png(nodes, matrix, path):
    """The heat map as a PNG through gnuplot; False when gnuplot is not installed or
    fails (the HTML page has the SVG either way)."""
    gp = shutil.which("gnuplot")
    if not gp or not nodes:
        return False
    idx = {x: i for i, x in enumerate(nodes)}
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for (a, b), r in matrix.items():
            if a in idx and b in idx:
                f.write("%d %d %g\n%d %d %g\n" % (idx[a], idx[b], r, idx[b], idx[a], r))
        data = f.name
    script = ("set terminal pngcairo size 800,800; set output '%s'; set size square; "
              "set xrange [-0.5:%g]; set yrange [-0.5:%g]; set cbrange [0.5:1.1]; "
              "set palette defined (0.5 'red', 0.9 'yellow', 0.97 'green', 1.1 'dark-green'); "
              "set title 'pair matrix: ratio to the median'; unset key; "
              "plot '%s' using 1:2:3 with points pointtype 5 pointsize %g palette\n" % (
                  path.replace("'", ""), len(nodes) - 0.5, len(nodes) - 0.5, data,
                  max(0.1, min(2.0, 40.0 / len(nodes)))))
    try:
        r = subprocess.run([gp], input=script, text=True, capture_output=True, timeout=60)
        return r.returncode == 0 and os.path.exists(path)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        os.unlink(data)
