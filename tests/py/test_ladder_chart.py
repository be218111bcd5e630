"""nbw.ladder.chart: ladder.png looked at. The chart is drawn with gnuplot and
read back pixel by pixel (pngpixels.py): a measured bar for every rung with a
figure and a ceiling bar for every rung with a ceiling, each tall enough to
read however small its figure (the lab's fabric at 0.05 GB/s beside a memory
of 25.6), heights in the figures' order, the legend clear of the bars, the
link drawn as a ceiling only; the gnuplot script's labels and title."""
import os
import shutil
import tempfile
import unittest

import pngpixels
from nbwpath import FIXTURES
from nbw.ladder import chart
from nbw.ladder.model import Ladder, rung
from nbw.ladder.report import plot

REF = os.path.join(FIXTURES, "ladder", "ref")
UPPER = os.path.join(FIXTURES, "ladder", "upper")
MIN_BAR_PX = 12  # a bar shorter than this cannot carry its figure's label


def rgb(hexa):
    return tuple(int(hexa[i:i + 2], 16) for i in (1, 3, 5))


def lab_rungs():
    """Rungs over four orders of magnitude, as in the lab's demo."""
    return [rung("link", "a", None, 0.42, kind="link"),
            rung("drive nvme0n1", "a", 0.19, 0.21, kind="drive"),
            rung("drives together", "a", 0.40, 0.42, 0.167, kind="drives"),
            rung("staging memory", "a", 20.1, 25.6, kind="memory"),
            rung("tcp (1 stream)", "b", 0.012, None, kind="tcp"),
            rung("fabric (mem)", "b", 0.0045, None, 2.885, kind="fabric"),
            rung("nfs_rdma", "b", 0.003, 0.0045, kind="nfs_rdma"),
            rung("end to end", "a", 0.41, 0.4245, kind="end_to_end")]


@unittest.skipUnless(shutil.which(os.environ.get("GNUPLOT", "gnuplot")), "gnuplot not installed")
class Drawn(unittest.TestCase):
    def draw(self, rungs, size=(900, 500)):
        d = tempfile.mkdtemp(prefix="ladder_chart.")
        self.addCleanup(shutil.rmtree, d)
        out = os.path.join(d, "l.png")
        plot(rungs, out, size[0], size[1], "ladder: the fabric binds")
        w, h, px = pngpixels.read(out)
        self.assertEqual((w, h), size)
        bars = {}
        for kind, colour in (("measured", chart.MEASURED), ("ceiling", chart.CEILING)):
            bars[kind] = [b for b in pngpixels.regions(px, rgb(colour)) if b[1] - b[0] >= 2]
        base = max(b[3] for v in bars.values() for b in v)
        on_axis = {k: sorted(b for b in v if b[3] >= base - 1) for k, v in bars.items()}
        keys = {k: [b for b in v if b[3] < base - 1] for k, v in bars.items()}
        return on_axis, keys

    def check(self, rungs, size=(900, 500)):
        bars, keys = self.draw(rungs, size)
        measured = [r["measured_gb_per_s"] for r in rungs if r["measured_gb_per_s"] is not None]
        ceilings = [r["ceiling_gb_per_s"] for r in rungs if r["ceiling_gb_per_s"] is not None]
        self.assertEqual(len(bars["measured"]), len(measured), bars["measured"])
        self.assertEqual(len(bars["ceiling"]), len(ceilings), bars["ceiling"])
        for kind, figs in (("measured", measured), ("ceiling", ceilings)):
            heights = [b[3] - b[2] + 1 for b in bars[kind]]
            self.assertGreaterEqual(min(heights), MIN_BAR_PX, (kind, heights))
            # left to right as the rungs: a larger figure, a taller bar
            for (f1, h1), (f2, h2) in zip(sorted(zip(figs, heights)), sorted(zip(figs, heights))[1:]):
                if f2 > f1 * 1.5:
                    self.assertGreater(h2, h1, (kind, figs, heights))
        # the legend's samples: one of each, above every bar, never over one
        tops = min(b[2] for v in bars.values() for b in v)
        for kind in ("measured", "ceiling"):
            self.assertEqual(len(keys[kind]), 1, (kind, keys[kind]))
            self.assertLess(keys[kind][0][3], tops, "the legend sits over the bars")
        return bars

    def test_four_orders_of_magnitude_all_readable(self):
        self.check(lab_rungs())

    def test_the_link_is_drawn_as_a_ceiling_only(self):
        bars = self.check(lab_rungs()[:1] + [rung("drive nvme0n1", "a", 0.19, 0.21, kind="drive")])
        # the link's ceiling bar comes first, left of every measured bar
        self.assertLess(bars["ceiling"][0][1], bars["measured"][0][0])

    def test_reference_and_upper_rungs(self):
        d = tempfile.mkdtemp(prefix="ladder_chart.")
        self.addCleanup(shutil.rmtree, d)
        run = os.path.join(d, "run")
        shutil.copytree(REF, run)
        for name in os.listdir(UPPER):
            shutil.copy(os.path.join(UPPER, name), run)
        rungs = Ladder(run).build()
        self.check(rungs, (1200, 600))


class Script(unittest.TestCase):
    def test_labels_carry_figure_and_percentage(self):
        rows = chart.rows(lab_rungs())
        self.assertEqual(rows[0]["label"], "0.42 ceiling")
        self.assertEqual(rows[1]["label"], "0.19 (90%)")
        self.assertEqual(rows[5]["label"], "0.0045")
        over = chart.rows([rung("drive x", "a", 0.67, 0.21, kind="drive")])[0]
        self.assertEqual(over["label"], "0.67 above ceiling")

    def test_log_axis_spans_the_figures(self):
        lo, hi = chart.y_range(lab_rungs())
        self.assertLessEqual(lo, 0.003 / 2)
        self.assertGreaterEqual(hi, 25.6 * 1.5)
        script = chart.script(lab_rungs(), "data", "out.png", 900, 500, "t", "pngcairo")
        self.assertIn("set logscale y", script)
        self.assertIn("set key outside", script)

    def test_the_title_is_a_sentence(self):
        self.assertEqual(chart.title({"rung": "drive links"}, "a", "b"),
                         "ladder of a and b: the drives' PCIe links bind")
        self.assertEqual(chart.title({"rung": "fabric"}, "a", "b"), "ladder of a and b: the fabric binds")
        self.assertEqual(chart.title({"rung": None}, None, "b"), "ladder of b: no rung binds")


if __name__ == "__main__":
    unittest.main()
