"""One ratio per part (nbw.fleet.judge_pairs.part_figure): a rail slow only on
transmit is the same figure and ratio on its suspect line, in the kinds' summary, in
the judgement's parts and in the record of the sweep (nbw.results.fleet), each saying
whose median it is; and a node's figure is its own side's or its partners' own, never a
lying partner's claim (fleetgen's liars)."""

import nbwpath  # noqa: F401
import json
import os
import shutil
import statistics
import tempfile
import unittest

from fleetgen import Fleet, LINE_RATE
from nbw.fleet.judge import judge
from nbw.fleet.report import kinds_text, reason
from nbw.fleet.sweepdir import read_sweep
from nbw.results.fleet import part_figures


class OneRatio(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-ratio.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def judged(self, fleet, **kw):
        top = os.path.join(self.tmp, "s")
        fleet.write(top)
        sw = read_sweep(top)
        res = judge(sw, **kw)
        return top, sw, res

    def test_slow_on_transmit_is_one_number_everywhere(self):
        fleet = Fleet(16, 2, 0, pairs=4, seed=4, slow_egress=[("node003", 0, 0.4)])
        _, sw, res = self.judged(fleet)
        sus = [s for s in res["suspects"] if s["node"] == "node003"]
        self.assertEqual([s["component"] for s in sus], ["rail 0 (mlx5_0)"])
        part = [p for p in res["parts"] if p["node"] == "node003" and p["component"] == "rail 0"]
        self.assertEqual(len(part), 1)
        part = part[0]
        # What it sent (its partners' own documents), not both ways mixed (was 70%).
        self.assertEqual(part["way"], "sent")
        self.assertAlmostEqual(part["ratio"], 0.4, delta=0.03)
        self.assertAlmostEqual(sus[0]["ratio"], part["ratio"], places=4)
        self.assertIn("40% of the rail 0 median, what it sent (4 partners)", reason(sus[0]))
        # The kinds' summary: its worst part, the same figure and ratio, the way said.
        worst = [k["worst"][0] for k in res["kinds"] if k["kind"] == "rails"
                 and k["worst"] and k["worst"][0]["node"] == "node003"]
        self.assertEqual(worst[0]["ratio"], part["ratio"])
        out = []
        kinds_text(res["kinds"], out.append)
        self.assertIn("node003 rail 0 %.2f (40%%, what it sent)" % part["figure_gb_per_s"],
                      "".join(out))
        # The record: the same figure, its ratio and whose median.
        figs = [f for f in part_figures(res, {"tool": "nbw-fleet"}, sw, {})
                if f["node"] == "node003" and f["rung"] == "fleet rail 0"]
        self.assertEqual(len(figs), 1)
        self.assertEqual(figs[0]["gb_per_s"], part["figure_gb_per_s"])
        self.assertEqual(figs[0]["part"]["ratio"], part["ratio"])
        self.assertEqual(figs[0]["part"]["ratio_of"],
                         "of the rail 0 median, what it sent (4 partners)")
        self.assertLess(figs[0]["gb_per_s"], 0.45 * LINE_RATE)

    def test_a_slow_senders_partners_are_not_low(self):
        """Two partners each: what a partner of the slow sender received is the median
        of its partners that are not under suspicion (was the mean of 40% and 100%)."""
        fleet = Fleet(12, 1, 0, pairs=2, seed=4, slow_egress=[("node003", 0, 0.4)])
        _, sw, res = self.judged(fleet)
        partners = {t.dst for t in sw.transfers if t.src == "node003" and not t.retest}
        self.assertGreaterEqual(len(partners), 2)
        ratio = {p["node"]: p for p in res["parts"] if p["component"] == "rail 0"}
        for p in partners:
            self.assertGreater(ratio[p]["ratio"], 0.95, (p, ratio[p]))
            self.assertEqual(ratio[p]["ratio_of"],
                             "of the rail 0 median, what it %s (1 partner)" % ratio[p]["way"])
        self.assertLess(ratio["node003"]["ratio"], 0.45)
        self.assertEqual({s["node"] for s in res["suspects"]}, {"node003"})

    def test_a_floors_ratio_says_it_is_of_the_line_rate(self):
        """A fleet at half its line rate: every rail below its floor, each rail's ratio
        of its line rate (the floor's), said so, not of its peers' median."""
        fleet = Fleet(8, 2, 0, pairs="all", seed=3, uniform=(1.0, 0.5))
        _, _, res = self.judged(fleet)
        node = [s for s in res["suspects"] if s["node"] == "node000"]
        self.assertEqual([s["component"] for s in node], ["all 2 rails"])
        self.assertAlmostEqual(node[0]["ratio"], 0.485, delta=0.02)
        rails = node[0]["evidence"]["rails"]
        self.assertEqual({e["ratio_of"].split(",")[0] for e in rails.values()},
                         {"of its line rate"})

    def partner_docs(self, top, node, rail, exclude):
        """(what node received, by its own documents; what its partners received from
        it, by theirs), GB/s on rail, leaving out exclude's own documents (its claims)."""
        got, sent = [], []
        fab = os.path.join(top, "fabric")
        for owner in os.listdir(fab):
            for f in os.listdir(os.path.join(fab, owner)):
                peer = f[:-5]
                if node not in (owner, peer) or owner == exclude:
                    continue
                with open(os.path.join(fab, owner, f)) as fh:
                    doc = json.load(fh)
                row = [r for r in doc["receive"]["rails"] if r["local_dev"] == "mlx5_%d" % rail]
                (got if owner == node else sent).append(row[0]["gb_per_s"])
        return statistics.median(got), statistics.median(sent)

    def test_a_liars_partners_keep_their_own_figures(self):
        for floors in (None, {}):  # the default floors, and --floor none (no physics)
            fleet = Fleet(16, 2, 0, pairs=4, seed=5, liars=["node006"])
            top, sw, res = self.judged(fleet, floors=floors)
            partners = sorted({t.dst for t in sw.transfers if t.src == "node006"} |
                              {t.src for t in sw.transfers if t.dst == "node006"})
            self.assertGreaterEqual(len(partners), 3)
            figs = {(f["node"], f["rung"]): f["gb_per_s"]
                    for f in part_figures(res, {"tool": "nbw-fleet"}, sw, {})}
            for p in partners:
                v = {x["verdict"] for x in res["verdicts"] if x["node"] == p}
                self.assertEqual(v, {"PASS"}, (floors, p, res["suspects"]))
                for rail in (0, 1):
                    fig = figs[(p, "fleet rail %d" % rail)]
                    self.assertLess(fig, LINE_RATE, (floors, p))
                    # (--floor none holds no claim to a ceiling: the liar's word of what
                    # it received is one of several in the median of what p sent)
                    got, sent = self.partner_docs(top, p, rail,
                                                  "node006" if floors is None else None)
                    # its own received (its documents) or what others received from
                    # it (theirs), never the liar's 999
                    # (exactly one of the two medians, not a median of both ways)
                    self.assertLess(min(abs(fig - got), abs(fig - sent)), 1e-9, (floors, p))
            # The liar's own figure is what its partners received from it, not its claim.
            self.assertLess(figs[("node006", "fleet rail 0")], LINE_RATE, floors)


if __name__ == "__main__":
    unittest.main()
