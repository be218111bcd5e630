"""The self-contained HTML report of a run (nbw-results report)."""
import base64
import html
import os
import re
import tempfile

from ..ladder import why
from .base import Fail
from .compare import compare, fig_key
from .output import emit, fmt
from .verbs import open_store, plot_trend, trend_kept, trend_points


CSS = """body{font:14px/1.4 sans-serif;margin:2em;color:#222;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #bbb;padding:3px 8px}th{background:#eef}td.n{text-align:right}
.large{background:#fbb}.moderate{background:#fe9}.noise{background:#dfd}
img{max-width:100%;border:1px solid #ccc;margin:.5em 0}code{background:#f4f4f4}"""


def html_table(cols, rows, classes=None):
    out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % html.escape(c) for c in cols)]
    for i, r in enumerate(rows):
        cls = ' class="%s"' % classes[i] if classes and classes[i] else ""
        out.append("<tr%s>%s</tr>" % (cls, "".join(
            '<td class="n">%s</td>' % html.escape(str(v)) if isinstance(v, (int, float))
            or re.match(r"^[-+]?[0-9.]+%?$", str(v)) else "<td>%s</td>" % html.escape(str(v))
            for v in r)))
    out.append("</table>")
    return "\n".join(out)


def gap_headline(figs):
    """The transfer's gap to the top synthetic rung (nbw.ladder.why.gap over the run's
    figures: TCP, the fabric and ib_write_bw), None without a transfer figure."""
    def kind(name):
        if name == "transfer":
            return "transfer"
        if name.startswith("tcp"):
            return "tcp"
        return "fabric" if name in ("fabric (mem)", "ib_write_bw") else None
    rungs = [{"name": f["rung"], "kind": kind(f["rung"]), "node": f["node"],
              "measured_gb_per_s": f["gb_per_s"]} for f in figs if f["drive"] is None]
    if not any(r["kind"] == "transfer" for r in rungs):
        return None
    return (why.gap(rungs) or [None])[0]


def png_uri(path):
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode()


def cmd_report(args):
    st = open_store(args)
    try:
        rb = st.resolve(args.run)
        runs = st.runs()
        ra = st.resolve(args.against) if args.against else next(
            (r for r in reversed(runs) if r["seq"] < rb["seq"]), None)
        cmp = compare(st, ra, rb, args.noise_floor, args.large) if ra else None
        figs = st.figures(rb["uuid"])
        rungs = []
        for f in figs:
            if f["drive"] is None and f["rung"] not in rungs:
                rungs.append(f["rung"])
        series = {r: {} for r in rungs[:8]}
        left_out = {}
        for rung in series:  # the points the CLI's trend keeps, and no others
            kept, left, bad, _ = trend_kept(trend_points(st, rung, None, None))
            left_out[rung] = (left, bad)
            for p in kept:
                series[rung].setdefault((p["node"] or "-", p["drive"] or "-"), []).append(p)
    finally:
        st.close()
    body = ["<h1>nvme-rdma bandwidth: run %s</h1>" % html.escape(rb["uuid"]),
            "<p>start %s, end %s (UTC); mode %s; suite %s; parameters %s%s</p>" % tuple(
                html.escape(str(x)) for x in (rb["started"], rb["finished"], rb["mode"] or "-",
                                              rb["suite_version"] or "-", rb["params_hash"],
                                              "; a known change starts here"
                                              if rb["change_starts"] else ""))]
    gap = gap_headline(figs)
    if gap:
        body.append("<p><strong>%s</strong></p>" % html.escape(gap))
    if rb["note"]:
        body.append("<p>note: %s</p>" % html.escape(rb["note"]))
    if rb["failed"] or rb["excluded"]:
        body.append("<p class=large>this run %s: %s; its figures are never compared, trended "
                    "or checked</p>" % ("FAILED" if rb["failed"] else "is excluded",
                                        html.escape(rb["failed"] or rb["excluded"])))
    byk = {(r["rung"], r["node"] or "", r["drive"] or ""): r for r in (cmp or {}).get(
        "figures", [])}

    def rows_of(fs):
        rows, cls = [], []
        for f in fs:
            c = byk.get(fig_key(f), {})
            rows.append((f["rung"], f["node"] or "-", f["drive"] or "-", fmt(f["gb_per_s"]),
                         fmt(f["cv_pct"], "%.1f"), fmt(c.get("a_gb_per_s")),
                         fmt(c.get("change_pct"), "%+.1f%%"), c.get("text", "-")))
            cls.append(c.get("class") if c.get("class") in ("large", "moderate", "noise")
                       else None)
        return rows, cls

    cols = ("rung", "node", "drive", "GB/s", "cv %", "before GB/s", "change", "verdict")
    body.append("<h2>Ladder</h2>")
    if cmp:
        body.append("<p>against run %s (%s): %s</p>" % (
            html.escape(ra["uuid"][:8]), html.escape(str(ra["started"])),
            html.escape("; ".join(cmp["summary"]))))
    rows, cls = rows_of([f for f in figs if f["drive"] is None])
    body.append(html_table(cols, rows, cls))
    body.append("<h2>Per drive</h2>")
    rows, cls = rows_of([f for f in figs if f["drive"] is not None])
    body.append(html_table(cols, rows, cls) if rows else "<p>no per-drive figures</p>")
    body.append("<h2>Trends</h2>")
    with tempfile.TemporaryDirectory(prefix="nbw-results.") as tmp:
        for i, (rung, s) in enumerate(series.items()):
            png = os.path.join(tmp, "t%d.png" % i)
            try:
                plot_trend(png, rung, s, "800x360")
            except Fail as e:
                body.append("<p>%s: no plot (%s)</p>" % (html.escape(rung), html.escape(str(e))))
                continue
            body.append('<img alt="trend of %s" src="%s">' % (html.escape(rung), png_uri(png)))
            left, bad = left_out[rung]
            if left or bad:
                body.append("<p>%s: %d points with other parameters and %d of failed or "
                            "excluded runs left out</p>" % (html.escape(rung), left, bad))
    body.append("<h2>Inventory differences</h2>")
    if not cmp:
        body.append("<p>no earlier run to compare with</p>")
    else:
        rows = []
        for host, ch in cmp["inventory"].items():
            if ch is None:
                rows.append((host, "inventory in one run only"))
            elif not ch:
                rows.append((host, "identical"))
            rows += [(host, c) for c in ch or []]
        body.append(html_table(("host", "difference"), rows) if rows else
                    "<p>no inventory recorded</p>")
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "img-src data:; style-src 'unsafe-inline'\">\n<title>nbw-results %s</title>\n"
            "<style>%s</style></head><body>\n%s\n</body></html>\n" % (
                html.escape(rb["uuid"][:8]), CSS, "\n".join(body)))
    try:
        with open(args.out, "w") as f:
            f.write(page)
    except OSError as e:
        raise Fail(1, "%s: %s" % (args.out, e.strerror))
    emit(args, {"run": rb["uuid"], "against": ra["uuid"] if ra else None, "out": args.out},
         "report: %s" % args.out)
    return 0
