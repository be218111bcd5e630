"""The judge's verdicts (nbw.fleet.verdict, nbw.fleet.judge) on generated sweeps: retests
decide (the lab's node b: a drive low in screening and normal again is unsteady, never
part of a verdict on the node), rails low together and normal alone are a shared
upstream, a node that answers nothing and files removed are NOT MEASURED with the
reason (never a low figure), one verdict per node, a summary per kind, the JUnit XML
and judge --fail-on's exit statuses."""

import nbwpath  # noqa: F401
import io
import json
import os
import shutil
import tempfile
import unittest
import xml.etree.ElementTree as ET

from fleetgen import Fleet
from nbw.fleet import cli, junit
from nbw.fleet.judge import judge
from nbw.fleet.sweepdir import read_sweep


def names_of(result):
    return sorted((s["kind"], s["node"], s["component"], s["state"]) for s in result["suspects"])


def verdict_of(result, node):
    return next(v for v in result["verdicts"] if v["node"] == node)


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-verdict.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def judged(self, fleet, threshold=0.9, name="s", floors=None):
        top = os.path.join(self.tmp, name)
        fleet.want = fleet.write(top)
        self.top = top
        return judge(read_sweep(top), threshold, floors=floors)


# The lab's sweep of four nodes (a, b, c, d), two drives each: node b's nvme0n1 read 1.13
# GB/s in the screening (87% of the median) and 4.79 when read again, its nvme1n1 0.40
# both times (throttled); node d's NIC shaped on what it sends. The other drives as the
# emulator read them, about 1.3 GB/s.
LAB_DRIVES = {("a", 0): (1.30, 1.31), ("a", 1): (1.29, 1.30), ("b", 0): (1.13, 4.79),
              ("b", 1): (0.40, 0.40), ("c", 0): (1.31, 1.30), ("c", 1): (1.32, 1.33),
              ("d", 0): (1.28, 1.29), ("d", 1): (1.30, 1.31)}


class TestRetestsDecide(Tmp):
    def lab(self):
        return Fleet(4, 1, 2, pairs="all", seed=0, names=list("abcd"), drive_figures=LAB_DRIVES,
                     slow_egress=[("d", 0, 0.15)])

    def test_the_labs_node_b_is_its_second_drive(self):
        res = self.judged(self.lab(), floors={})  # the lab's: emulated, no floor
        self.assertEqual(names_of(res), [("drive", "b", "nvme0n1", "unsteady"),
                                         ("drive", "b", "nvme1n1", "low"),
                                         ("rail", "d", "rail 0 (mlx5_0)", "low")])
        # Exactly those numbers: 1.13 is 87% of the median of the nodes' medians (1.29
        # of d, 1.295 of a: 1.2925; each node one voice), 4.79 on retest.
        b0 = next(s for s in res["suspects"] if s["component"] == "nvme0n1")
        self.assertAlmostEqual(b0["ratio"], 1.13 / 1.2925, places=3)
        self.assertEqual(b0["evidence"]["retest_gb_per_s"], 4.79)
        b1 = next(s for s in res["suspects"] if s["component"] == "nvme1n1")
        self.assertAlmostEqual(b1["evidence"]["retest_ratio"], 0.40 / 1.2925, places=3)
        self.assertFalse(any(s["component"].startswith("all ") for s in res["suspects"]))
        v = verdict_of(res, "b")
        self.assertEqual((v["verdict"], v["what"]), ("SUSPECT", "drive nvme1n1 31%"))
        self.assertEqual(v["notes"], ["unsteady: drive nvme0n1 87%"])
        self.assertEqual(verdict_of(res, "d")["what"], "rail 0 (mlx5_0) 15%")
        self.assertEqual([verdict_of(res, n)["verdict"] for n in "ac"], ["PASS", "PASS"])
        # The worst first: d's rail, b's nvme1n1, then the unsteady one.
        self.assertEqual([s["component"] for s in res["suspects"]],
                         ["rail 0 (mlx5_0)", "nvme1n1", "nvme0n1"])

    def test_every_drive_low_again_is_the_node(self):
        both = dict(LAB_DRIVES)
        both[("b", 0)] = (0.41, 0.42)
        res = self.judged(Fleet(4, 1, 2, pairs="all", seed=0, names=list("abcd"),
                                drive_figures=both), floors={})
        self.assertEqual(names_of(res), [("node", "b", "all 2 drives", "low")])

    def test_rails_low_once_are_not_the_node(self):
        # Every rail of node003 low in the screening; rail 1 normal when measured again.
        res = self.judged(Fleet(12, 2, 0, pairs="all", seed=4,
                                slow_rails=[("node003", 0, 0.5)],
                                unsteady_rails=[("node003", 1, 0.5)]))
        self.assertEqual(names_of(res), [("rail", "node003", "rail 0 (mlx5_0)", "low"),
                                         ("rail", "node003", "rail 1 (mlx5_1)", "unsteady")])


class TestSharedUpstream(Tmp):
    def test_rails_low_together_normal_alone(self):
        res = self.judged(Fleet(12, 4, 0, pairs="all", seed=2,
                                shared_upstream=[("node004", [2, 3], 0.6)],
                                slow_rails=[("node007", 1, 0.5)]))
        self.assertEqual(names_of(res), [
            ("node", "node004", "rails 2,3 together (a shared upstream)", "low"),
            ("rail", "node007", "rail 1 (mlx5_1)", "low")])
        up = next(s for s in res["suspects"] if s["node"] == "node004")
        self.assertEqual(sorted(up["evidence"]["alone"]), ["rail 2 (mlx5_2)", "rail 3 (mlx5_3)"])
        self.assertTrue(all(r > 0.9 for a in up["evidence"]["alone"].values()
                            for r in a.values()))
        # The slow rail was measured alone too, and was low there.
        slow = next(s for s in res["suspects"] if s["node"] == "node007")
        self.assertTrue(slow["evidence"]["alone_low"])

    def test_the_retests_ask_for_the_rails_alone(self):
        fleet = Fleet(12, 4, 0, pairs="all", seed=2, shared_upstream=[("node004", [1, 2, 3], 0.6)])
        self.judged(fleet)
        # The two lowest of the three, each alone with a partner that passed.
        self.assertEqual(len(fleet.want["alone"]), 2)
        self.assertTrue(all(x == "node004" and r in (1, 2, 3) for x, _, r in fleet.want["alone"]))
        self.assertTrue(os.path.exists(os.path.join(
            self.top, "isolate", "alone", "node004", "%s.rail%d.json" % (
                fleet.want["alone"][0][1], fleet.want["alone"][0][2]))))


class TestNotMeasured(Tmp):
    def test_a_node_that_answers_nothing(self):
        res = self.judged(Fleet(16, 2, 2, pairs="all", seed=3, dead=["node011"]))
        self.assertEqual(res["suspects"], [])
        v = verdict_of(res, "node011")
        self.assertEqual(v["verdict"], "NOT MEASURED")
        self.assertTrue(v["what"].startswith("unreachable: ssh: connect to host node011"), v)
        # And its partner of the drive -> remote phase, which had no other.
        buddy = next(p for p in ("node%03d" % i for i in range(16))
                     if verdict_of(res, p)["what"].startswith("drive->remote: its partner "
                                                               "node011 did not answer"))
        self.assertEqual(sorted(res["not_measured"]), sorted(["node011", buddy]))
        # Its partners pass, saying which parts their partner cost them.
        p = verdict_of(res, "node000")
        self.assertEqual(p["verdict"], "PASS")
        self.assertIn("2 parts not measured because of a partner (node011)", p["notes"])
        # Every part through it not measured, with the run's reason; none of them a figure.
        parts = {m["part"] for m in res["not_measured_parts"]}
        self.assertIn("fabric/node011/node000.json", parts)
        self.assertIn("fabric/node000/node011.json", parts)
        self.assertIn("nodes/node011/read.json", parts)
        self.assertFalse(any(p["node"] == "node011" for p in res["parts"]))

    def test_files_removed_or_broken(self):
        res_ok = self.judged(Fleet(8, 1, 2, pairs="all", seed=1), name="ok")
        self.assertEqual(res_ok["verdict_counts"], {"PASS": 8, "SUSPECT": 0, "NOT MEASURED": 0})
        top = os.path.join(self.tmp, "ok")
        os.unlink(os.path.join(top, "nodes", "node003", "read.json"))
        with open(os.path.join(top, "nodes", "node005", "probe.json"), "w") as f:
            f.write("{not json")
        res = judge(read_sweep(top))
        self.assertEqual(res["suspects"], [])
        self.assertEqual(verdict_of(res, "node003")["what"], "drives: no file")
        self.assertEqual(verdict_of(res, "node005")["what"], "links: unreadable: not JSON")
        self.assertEqual(sorted(res["not_measured"]), ["node003", "node005"])
        # node003's drives -> remote share has no base of its own drives: not measured
        # either, never a figure of 0.
        self.assertFalse(any(p["node"] == "node003" and p["kind"] == "drive"
                             for p in res["parts"]))

    def test_an_interrupted_sweep_says_so(self):
        self.judged(Fleet(6, 1, 0, pairs="all", seed=1), name="i")
        top = os.path.join(self.tmp, "i")
        with open(os.path.join(top, "sweep.json")) as f:
            meta = json.load(f)
        meta["state"] = "interrupted"
        with open(os.path.join(top, "sweep.json"), "w") as f:
            json.dump(meta, f)
        for name in os.listdir(os.path.join(top, "fabric", "node002")):
            os.unlink(os.path.join(top, "fabric", "node002", name))
        res = judge(read_sweep(top))
        gone = [m for m in res["not_measured_parts"] if m["part"].startswith("fabric/node002/")]
        self.assertEqual({m["reason"] for m in gone},
                         {"the sweep stopped before it (interrupted)"})
        self.assertEqual(res["suspects"], [])


class TestSummaryAndCI(Tmp):
    def fleet(self):
        return Fleet(16, 2, 2, pairs="all", seed=3, slow_drives=[("node005", 1, 0.5)],
                     unsteady_drives=[("node007", 0, 0.6)], dead=["node011"])

    def test_a_summary_per_kind_the_worst_first(self):
        res = self.judged(self.fleet())
        drives = next(k for k in res["kinds"] if k["kind"] == "drives alone")
        self.assertEqual(drives["count"], 30)
        self.assertEqual((drives["worst"][0]["node"], drives["worst"][0]["component"]),
                         ("node005", "nvme1n1"))
        self.assertAlmostEqual(drives["min"], drives["worst"][0]["figure_gb_per_s"])
        self.assertAlmostEqual(drives["threshold_gb_per_s"], 0.9 * drives["fleet_median"])
        self.assertAlmostEqual(drives["fleet_median"], 3.57, delta=0.05)
        self.assertEqual([k["kind"] for k in res["kinds"]],
                         ["drives alone", "drives together", "rails", "drive->remote"])
        out = io.StringIO()
        cli.report.text(res, out)
        lines = out.getvalue().splitlines()
        # node011 answers nothing; its partner of the drive -> remote phase had no other.
        self.assertRegex(lines[0], r"^nbw-fleet judge: 16 nodes: 13 PASS, 1 SUSPECT, 2 NOT "
                         r"MEASURED; ")
        node_lines = lines[lines.index("nodes:") + 1:]
        self.assertEqual(len(node_lines), 16)
        self.assertRegex(node_lines[0], r"^  node005  SUSPECT: drive nvme1n1 [45][0-9]%")
        self.assertRegex("\n".join(node_lines[1:3]), r"  node011  NOT MEASURED: unreachable: ssh")
        self.assertRegex("\n".join(node_lines[1:3]), r"  node0[0-9][0-9]  NOT MEASURED: "
                         r"drive->remote: its partner node011 did not answer")
        self.assertTrue(all(" PASS" in x for x in node_lines[3:]))

    def test_junit_a_testcase_per_node_and_kind(self):
        res = self.judged(self.fleet())
        out = io.StringIO()
        counts = junit.write(res, out)
        root = ET.fromstring(out.getvalue())
        self.assertEqual(root.tag, "testsuites")
        suites = {s.get("name"): s for s in root}
        self.assertEqual(sorted(suites), ["nbw-fleet.drive-remote", "nbw-fleet.drives",
                                          "nbw-fleet.links", "nbw-fleet.rails"])
        self.assertEqual(int(root.get("tests")), 4 * 16)
        self.assertEqual(counts["tests"], 64)
        drives = suites["nbw-fleet.drives"]
        fail = [c for c in drives if c.find("failure") is not None]
        self.assertEqual([c.get("name") for c in fail], ["node005"])
        self.assertIn("nvme1n1 alone", fail[0].find("failure").text)
        skipped = [c.get("name") for c in drives if c.find("skipped") is not None]
        self.assertEqual(skipped, ["node011"])
        unsteady = next(c for c in drives if c.get("name") == "node007")
        # Low once against its peers and its floor, normal again against both.
        self.assertEqual(unsteady.find("system-out").text,
                         "unsteady: drive nvme0n1 59% (below its peers and its floor)")
        self.assertEqual(int(root.get("failures")), 1)
        self.assertEqual(int(drives.get("skipped")), 1)

    def test_fail_on(self):
        res = self.judged(self.fleet())
        self.assertEqual(cli.fail_status(res, ()), 0)
        self.assertEqual(cli.fail_status(res, ("suspect",)), 3)
        self.assertEqual(cli.fail_status(res, ("unmeasured",)), 4)
        clean = self.judged(Fleet(8, 1, 1, pairs="all", seed=2), name="c")
        self.assertEqual(cli.fail_status(clean, ("suspect", "unsteady", "unmeasured")), 0)
        only_unsteady = self.judged(Fleet(8, 1, 2, pairs="all", seed=2,
                                          unsteady_drives=[("node001", 0, 0.5)]), name="u")
        self.assertEqual(cli.fail_status(only_unsteady, ("suspect",)), 0)
        self.assertEqual(cli.fail_status(only_unsteady, ("unsteady",)), 3)


class TestSmallFigures(unittest.TestCase):
    def test_an_emulated_rails_figures_are_not_zero(self):
        # The lab's rails carry a few MB/s: the summary says so, never "0.00".
        kinds = [{"kind": "rails", "group": "line rate unknown GB/s", "count": 2,
                  "min": 0.0038, "median": 0.0041, "max": 0.0045, "threshold_gb_per_s": 0.001,
                  "worst": [{"node": "a", "component": "rail 0", "figure_gb_per_s": 0.0038,
                             "ratio": 0.93}]}]
        out = io.StringIO()
        cli.report.kinds_text(kinds, out.write)
        lines = out.getvalue().splitlines()
        self.assertRegex(lines[1], r"2, min 0\.0038 median 0\.0041 max 0\.0045 low below 0\.0010$")
        self.assertEqual(lines[2], "    worst: a rail 0 0.0038 (93%)")


if __name__ == "__main__":
    unittest.main()
