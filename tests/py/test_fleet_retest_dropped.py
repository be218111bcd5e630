"""Retests never pick a dropped node (nbw.fleet.judge_retest.retests_wanted's dropped,
nbw.fleet.liveness's: dead or hung after the screening) as a partner: the part under
suspicion gets another partner that passed; a dropped node is not retested itself; and
the run's isolate phase (nbw.fleet.run.isolate_phase) hands its dropped nodes over."""

import nbwpath  # noqa: F401
import os
import shutil
import tempfile
import types
import unittest

from fleetgen import Fleet
from nbw.fleet import run
from nbw.fleet.judge_retest import retests_wanted
from nbw.fleet.sweepdir import read_sweep


def partners(want, x):
    return sorted({b if a == x else a for a, b in want["fabric"] if x in (a, b)})


class Stop(Exception):
    pass


class DroppedPartners(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-dropped.")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.top = os.path.join(self.tmp, "s")
        Fleet(10, 2, 2, pairs="all", seed=4, slow_rails=[("node002", 0, 0.5)],
              slow_drives=[("node007", 0, 0.5)], slow_remote=[("node004", 0.5)]).write(self.top)
        self.sw = read_sweep(self.top)

    def test_a_dropped_partner_is_replaced(self):
        want = retests_wanted(self.sw, seed=4)
        first = partners(want, "node002")
        self.assertEqual(len(first), 2, want)
        gone = [p for p in first if p != "node004"][0]  # node004: the remote suspect
        again = retests_wanted(self.sw, seed=4, dropped={gone})
        # Still two partners that passed, none of them the dropped node.
        got = partners(again, "node002")
        self.assertEqual(len(got), 2, again)
        self.assertNotIn(gone, got)
        for key in ("fabric", "remote"):
            self.assertFalse([p for p in again[key] if gone in p], (key, again[key]))
        self.assertFalse([p for p in again["alone"] if gone in p[:2]], again["alone"])
        self.assertTrue(again["alone"], again)  # the rail alone, with another partner
        self.assertIn("node004", {x for p in again["remote"] for x in p}, again)

    def test_a_dropped_suspect_is_not_retested(self):
        want = retests_wanted(self.sw, seed=4)
        self.assertIn("node007", want["drives"])
        again = retests_wanted(self.sw, seed=4, dropped={"node002", "node007"})
        self.assertNotIn("node007", again["drives"])
        self.assertEqual(partners(again, "node002"), [])
        self.assertFalse([p for p in again["alone"] if "node002" in p[:2]])

    def test_the_isolate_phase_hands_its_dropped_nodes_over(self):
        seen = {}

        def wanted(sweep, threshold, seed=0, dropped=()):
            seen.update(threshold=threshold, seed=seed, dropped=set(dropped))
            raise Stop()
        sw = types.SimpleNamespace(top=self.top, meta={"threshold": 0.8, "seed": 4},
                                   dropped={"node005": "no answer in 127 s, at fabric"})
        old = run.retests_wanted
        run.retests_wanted = wanted
        self.addCleanup(setattr, run, "retests_wanted", old)
        with self.assertRaises(Stop):
            run.isolate_phase(sw)
        self.assertEqual(seen, {"threshold": 0.8, "seed": 4, "dropped": {"node005"}})


if __name__ == "__main__":
    unittest.main()
