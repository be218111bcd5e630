# SPDX-License-Identifier: MIT
"""ladder.png: the ladder drawn with gnuplot, each rung readable against its
own ceiling whatever its scale. A log axis (the rungs span four orders of
magnitude: the lab's fabric at 0.005 GB/s beside a memory of 25.6), one
measured bar and one ceiling bar per rung, each measured bar labelled with its
figure and its % of ceiling; a rung that is a ceiling only (the link) gets a
ceiling bar alone. The legend sits above the plot, never over a bar; the title
is a sentence naming the binding rung.
Standard library only."""
import math
import os
import shutil
import subprocess
import tempfile

from ..jsonutil import gb_text

MEASURED = "#1f5fa8"  # the fill of a measured bar (the tests look for it)
CEILING = "#b4b4b4"  # the fill of a ceiling bar
BINDS = {
    "drive links": "the drives' PCIe links bind",
    "drives": "the drives bind",
    "fabric": "the fabric binds",
    "end to end": "end to end binds (the sink's host)",
    "memory": "the staging memory binds",
}


class ChartError(Exception):
    """gnuplot missing or failing: the message for the user."""


def title(bind, sink, source):
    """'ladder of a and b: the drives' PCIe links bind'."""
    nodes = [n for n in (sink, source) if n]
    who = " and ".join(dict.fromkeys(nodes)) if nodes else "this run"
    what = BINDS.get((bind or {}).get("rung"), "no rung binds")
    return "ladder of %s: %s" % (who, what)


def _fig(v):
    return gb_text(v)


def _positive(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def rows(rungs):
    """One row per rung: its x label, measured and ceiling (None: not drawn),
    and the label printed over its tallest bar."""
    out = []
    for r in rungs:
        m, c = _positive(r.get("measured_gb_per_s")), _positive(r.get("ceiling_gb_per_s"))
        if m is not None:
            label = _fig(m)
            if r.get("above_ceiling"):
                label += " above ceiling"
            elif r.get("pct_of_ceiling") is not None:
                label += " (%.0f%%)" % r["pct_of_ceiling"]
        elif c is not None:
            label = "%s ceiling" % _fig(c)
        else:
            label = ""
        out.append({"x": "%s %s" % (r.get("name"), r.get("node")), "measured": m, "ceiling": c,
                    "label": label})
    return out


def y_range(rungs):
    """(low, high) of the log axis: whole decades, the smallest figure half a
    decade or more above the bottom so that its bar can be read, and two
    decades above the tallest bar for its label (written upwards)."""
    vals = [v for row in rows(rungs) for v in (row["measured"], row["ceiling"]) if v]
    if not vals:
        return 0.01, 100.0
    lo = 10 ** math.floor(math.log10(min(vals) / 3))
    hi = 10 ** math.ceil(math.log10(max(vals) * 100))
    return lo, hi


def data_text(rungs):
    """gnuplot's data: index, x label, measured, ceiling, bar label ('?' missing)."""
    q = lambda s: '"%s"' % str(s).replace('"', "'")
    g = lambda v: "%.6g" % v if v is not None else "?"
    top = lambda row: max(v for v in (row["measured"], row["ceiling"], 0) if v is not None)
    return "".join("%d %s %s %s %s %s\n" % (i, q(row["x"]), g(row["measured"]), g(row["ceiling"]),
                                          q(row["label"] or " "), g(top(row) or None))
                   for i, row in enumerate(rows(rungs)))


def script(rungs, data, out, width, height, text, term):
    """The gnuplot script drawing DATA (data_text) into OUT."""
    q = lambda s: "'%s'" % s.replace("'", "''")
    lo, hi = y_range(rungs)
    n = max(len(rungs), 1)
    bar = "fs solid 1.0 noborder"
    return "\n".join([
        "set terminal %s size %d,%d noenhanced" % (term, width, height),
        "set output %s" % q(out), "set title %s" % q(text),
        "set ylabel 'GB/s (10^9 bytes/s), log scale'", "set datafile missing '?'",
        "set logscale y", "set yrange [%g:%g]" % (lo, hi), "set format y '%g'",
        "set xrange [-0.6:%g]" % (n - 0.4), "set grid ytics lc rgb '#e0e0e0'",
        "set xtics rotate by -35 scale 0", "set bmargin 9",
        "set key outside top center horizontal samplen 2",
        "plot %s using ($1-0.2):3:($1-0.4):($1):(%g):3:xtic(2) with boxxyerror %s fc rgb '%s' "
        "title 'measured GB/s', \\" % (q(data), lo, bar, MEASURED),
        "  '' using ($1+0.2):4:($1):($1+0.4):(%g):4 with boxxyerror %s fc rgb '%s' "
        "title 'ceiling GB/s', \\" % (lo, bar, CEILING),
        "  '' using 1:6:5 with labels rotate by 90 left offset 0,0.5 font ',8' notitle", ""])


def draw(rungs, out, width, height, text):
    """Draw RUNGS into OUT (PNG); ChartError when gnuplot is missing or fails."""
    gp = os.environ.get("GNUPLOT", "gnuplot")
    if not shutil.which(gp):
        raise ChartError("%s not found: install gnuplot (Debian: apt-get install gnuplot-nox)" % gp)
    term = "pngcairo"
    if subprocess.run([gp, "-e", "set terminal pngcairo"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode:
        term = "png"
    with tempfile.TemporaryDirectory(prefix="ladder_report.") as tmp:
        data = os.path.join(tmp, "data")
        with open(data, "w") as f:
            f.write(data_text(rungs))
        with open(os.path.join(tmp, "plot.gp"), "w") as f:
            f.write(script(rungs, data, out, width, height, text, term))
        p = subprocess.run([gp, os.path.join(tmp, "plot.gp")], stderr=subprocess.PIPE,
                           universal_newlines=True)
        if p.returncode or not os.path.exists(out) or not os.path.getsize(out):
            err = [l for l in p.stderr.splitlines() if l.strip()]
            raise ChartError("gnuplot failed: %s" % (err[-1] if err else "no PNG written"))
