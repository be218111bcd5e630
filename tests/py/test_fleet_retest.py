"""A retest partner that lies (nbw.fleet.judge over a generated fleet, fleetgen, then one
retest partner's documents rewritten as a compromised node would write them): a rail
that sends at half (SUSPECT against honest partners) stays SUSPECT when one of its two
retest partners says it received everything; a rail low once and normal again is
cleared (unsteady, PASS) when both honest partners agree with it; the suspect's own word
alone clears nothing either."""

import nbwpath  # noqa: F401
import json
import os
import shutil
import tempfile
import unittest

from fleetgen import RAIL_GBPS, Fleet
from nbw.fleet.judge import judge
from nbw.fleet.report import reason
from nbw.fleet.sweepdir import read_sweep


class RetestWords(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-retest.")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.top = os.path.join(self.tmp, "s")

    def sweep(self, **faults):
        fleet = Fleet(8, 1, 0, pairs="all", seed=4, **faults)
        want = fleet.write(self.top)
        return fleet, want

    def partners(self, want, x):
        out = sorted({b if a == x else a for a, b in want["fabric"] if x in (a, b)})
        self.assertEqual(len(out), 2, want)
        return out

    def rewrite(self, owner, peer, side):
        """owner's retest document of its run with peer: its report `side` says every
        rail ran at the fleet's figure."""
        path = os.path.join(self.top, "isolate", "fabric", owner, peer + ".json")
        with open(path) as f:
            doc = json.load(f)
        rep = doc[side]
        for row in rep["rails"]:
            row["gb_per_s"] = RAIL_GBPS
        rep["rdma"]["gb_per_s"] = RAIL_GBPS * len(rep["rails"])
        with open(path, "w") as f:
            json.dump(doc, f)

    def verdict(self, node):
        res = judge(read_sweep(self.top))
        v = next(v for v in res["verdicts"] if v["node"] == node)
        rails = [s for s in res["suspects"] if s["node"] == node and s["kind"] == "rail"]
        return v["verdict"], [s["state"] for s in rails], rails

    def test_honest_partners_find_the_rail(self):
        fleet, want = self.sweep(slow_egress=[("node002", 0, 0.5)])
        self.assertEqual(self.verdict("node002")[:2], ("SUSPECT", ["low"]))

    def test_one_lying_partner_clears_nothing(self):
        fleet, want = self.sweep(slow_egress=[("node002", 0, 0.5)])
        liar, honest = self.partners(want, "node002")
        # The liar says it received all that node002 sent (and sent it all back).
        self.rewrite(liar, "node002", "receive")
        self.rewrite(liar, "node002", "send")
        verdict, states, rails = self.verdict("node002")
        self.assertEqual((verdict, states), ("SUSPECT", ["low"]))
        ev = rails[0]["evidence"]
        self.assertEqual(ev["retest_low_with"], sorted([liar, honest]))
        self.assertEqual(ev["retest_normal_with"], [])

    def test_the_suspects_own_word_alone_clears_nothing(self):
        fleet, want = self.sweep(slow_egress=[("node002", 0, 0.5)])
        a, b = self.partners(want, "node002")
        # The suspect itself says it sent everything; its partners received half.
        self.rewrite("node002", a, "send")
        self.rewrite("node002", b, "send")
        verdict, states, rails = self.verdict("node002")
        self.assertEqual((verdict, states), ("SUSPECT", ["low"]))
        self.assertEqual(rails[0]["evidence"]["retest_disputed_with"], [a, b])
        self.assertIn("0 low, 0 normal, 2 disputed", reason(rails[0]))

    def test_two_honest_partners_that_agree_clear_it(self):
        fleet, want = self.sweep(unsteady_rails=[("node002", 0, 0.5)])
        a, b = self.partners(want, "node002")
        verdict, states, rails = self.verdict("node002")
        self.assertEqual((verdict, states), ("PASS", ["unsteady"]))
        self.assertEqual(rails[0]["evidence"]["retest_normal_with"], [a, b])

    def test_one_partner_that_agrees_is_not_enough(self):
        fleet, want = self.sweep(unsteady_rails=[("node002", 0, 0.5)])
        a, b = self.partners(want, "node002")
        os.remove(os.path.join(self.top, "isolate", "fabric", b, "node002.json"))
        os.remove(os.path.join(self.top, "isolate", "fabric", "node002", b + ".json"))
        self.assertEqual(self.verdict("node002")[:2], ("SUSPECT", ["low"]))


if __name__ == "__main__":
    unittest.main()
