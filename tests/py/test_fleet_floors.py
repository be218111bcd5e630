"""Each part held to its own bar beside its peers (nbw.fleet.floors, nbw.fleet.spec, over
fleetgen's generated sweeps): a fleet slow across the board is below its floor; a
site's spec wins where it names the part; the probe's verdict counts whatever the
throughput; a figure above its port's line rate names its claimant and is never a
median's member, a part's figure or a recorded figure."""

import nbwpath  # noqa: F401
import io
import json
import os
import shutil
import tempfile
import unittest
import unittest.mock
import xml.etree.ElementTree as ET

from fleetgen import Fleet
from nbw.fleet import floors
from nbw.fleet import cli, junit
from nbw.fleet import spec as specmod
from nbw.fleet.judge import judge
from nbw.fleet.report import reason
from nbw.fleet.sweepdir import read_sweep


def verdicts(res):
    return {v["node"]: v["verdict"] for v in res["verdicts"]}


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-floors.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def sweep(self, fleet, name="s"):
        top = os.path.join(self.tmp, name)
        fleet.write(top)
        return top

    def file(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path


# 3.57 of 3.6 GB/s a drive, 48.5 of 50 a rail: x 0.585 and x 0.495 are 58% and 48%.
SLOW = (0.58 * 3.6 / 3.57, 0.48 * 50 / 48.5)


class TestFloors(Tmp):
    def test_a_fleet_slow_across_the_board_is_below_its_floor(self):
        top = self.sweep(Fleet(64, 8, 8, pairs=3, seed=5, uniform=SLOW))
        res = judge(read_sweep(top))
        self.assertEqual(set(verdicts(res).values()), {"SUSPECT"})
        what = {v["what"] for v in res["verdicts"]}
        self.assertTrue(all("all 8 drives 5" in w and "all 8 rails 4" in w and
                            w.count("(below its floor)") == 2 for w in what), sorted(what)[:3])
        self.assertEqual(res["floors"], {"drive": 0.8, "rail": 0.8})
        self.assertEqual({s["rule"] for s in res["suspects"]}, {"floor"})
        self.assertEqual({tuple(v["rules"]) for v in res["verdicts"]}, {("floor",)})
        self.assertEqual(cli.fail_status(res, ("suspect",)), cli.EXIT_EXPECTATION)
        why = reason(next(s for s in res["suspects"] if s["component"] == "all 8 rails"))
        self.assertTrue(why.startswith("below its floor: every one of its 8 rails below its "
                                       "bar (median 4"), why)
        # Its peers alone pass it: the same fleet held to no floor.
        res = judge(read_sweep(top), floors={})
        self.assertEqual(set(verdicts(res).values()), {"PASS"})

    def test_the_floor_is_settable_and_one_part_below_it_is_named(self):
        fleet = Fleet(16, 2, 2, pairs="all", seed=1, uniform=(0.85, 1.0))
        top = self.sweep(fleet)
        # 85% of its link: above the default floor, below a floor of 0.9.
        self.assertEqual(judge(read_sweep(top))["suspects"], [])
        res = judge(read_sweep(top), floors=specmod.floor_arg("drive=0.9"))
        self.assertEqual({(s["kind"], s["component"], s["rule"]) for s in res["suspects"]},
                         {("node", "all 2 drives", "floor")})
        self.assertEqual(res["floors"], {"drive": 0.9, "rail": 0.8})

    def test_suspects_furthest_below_their_bar_first(self):
        fleet = Fleet(16, 1, 2, pairs="all", seed=2,
                      slow_drives=[("node003", 0, 0.7), ("node009", 1, 0.3)],
                      slow_rails=[("node006", 0, 0.5)])
        res = judge(read_sweep(self.sweep(fleet)))
        order = [(s["node"], s["component"]) for s in res["suspects"]]
        self.assertEqual(order, [("node009", "nvme1n1"), ("node006", "rail 0 (mlx5_0)"),
                                 ("node003", "nvme0n1")])
        sev = [s["severity"] for s in res["suspects"]]
        self.assertEqual(sev, sorted(sev))
        self.assertEqual(res["suspects"][0]["rules"], ["peers", "floor"])
        self.assertIn("(below its peers and its floor)", res["verdicts"][9]["what"])

    def test_floor_words(self):
        self.assertEqual(specmod.floor_arg("none"), {})
        self.assertEqual(specmod.floor_arg("rail=0.5"), {"drive": 0.8, "rail": 0.5})
        for bad in ("drive=0", "drive=1.2", "disk=0.8", "drive", ""):
            with self.assertRaises(specmod.SpecError, msg=bad):
                specmod.floor_arg(bad)


class TestSpec(Tmp):
    def test_the_spec_wins_where_it_names_the_part(self):
        # Every drive 92% of its link: above the floor; the site asks 3.4 GB/s of the
        # model "ACME NVMe 3"; node001's drives, another model, are held to the floor
        # (and are below it: 56% of their link).
        top = self.sweep(Fleet(12, 1, 2, pairs="all", seed=3, uniform=(0.93, 1.0),
                               second_model=["node001"]))
        spec = specmod.read_spec(self.file("spec", "# site\ndrive 'ACME NVMe 3' min=3.4\n"
                                           "nic ConnectX-7 rate=400 min=45\n"))
        res = judge(read_sweep(top), spec=spec)
        rules = {s["node"]: s["rule"] for s in res["suspects"]}
        self.assertEqual(rules, dict({n: "spec" for n in Fleet(12).names[:12]},
                                     node001="floor"))
        s = next(x for x in res["suspects"] if x["node"] == "node000")
        ev = s["evidence"]["drives"]["nvme0n1"]
        self.assertEqual((s["component"], s["rule"], ev["spec_min"], ev["spec_line"]),
                         ("all 2 drives", "spec", 3.4, self.tmp + "/spec:2"))
        self.assertIn("(below its spec)", res["verdicts"][0]["what"])
        self.assertEqual(res["spec"], {"file": self.tmp + "/spec", "rules": 2})
        # A NIC's spec above what its rails carry (48.5 GB/s): every rail below it.
        spec = specmod.read_spec(self.file("spec2", "nic ConnectX-7 min=49\n"))
        res = judge(read_sweep(top), spec=spec)
        self.assertEqual(sorted((s["node"], s["component"], s["rule"]) for s in res["suspects"]
                                if s["kind"] == "rail"),
                         [(n, "rail 0 (mlx5_0)", "spec") for n in Fleet(12).names[:12]])

    def test_bad_spec_lines_refused_naming_file_and_line(self):
        cases = {"drive X min=3\nnic\n": ":2: nic MODEL",
                 "disk X min=3\n": ":1: 'disk': not a kind (drive or nic)",
                 "drive X min=fast\n": ":1: min=fast: a positive number",
                 "drive X fw=1 fw=2 min=3\n": ":1: 'fw=2': drive takes min=GB/s and fw= once",
                 "nic X speed=400 min=3\n": ":1: 'speed=400': nic takes",
                 "drive X\n": ":1: drive MODEL",
                 "drive X fw=1\n": ":1: no min=GB/s",
                 "drive 'X min=3\n": ":1: No closing quotation",
                 "drive X min=3\n\ndrive X min=3.5\n": ":3: contradicts line 1 (drive X: min 3 "
                                                       "there, 3.5 here)"}
        for i, (text, want) in enumerate(cases.items()):
            path = self.file("bad%d" % i, text)
            with self.assertRaises(specmod.SpecError) as e:
                specmod.read_spec(path)
            self.assertIn(path + want, str(e.exception))
            self.assertNotIn("\n", str(e.exception))
        # The same rule twice is no contradiction.
        self.assertEqual(len(specmod.read_spec(self.file("ok", "drive X min=3\ndrive X min=3\n"))
                             ["rules"]), 2)

    def test_judge_refuses_a_model_no_node_has(self):
        top = self.sweep(Fleet(4, 1, 2, pairs="all", seed=1))
        path = self.file("spec", "drive 'ACME NVMe 3' min=3\ndrive 'NOPE 9' min=3\n")
        err = io.StringIO()
        out = io.StringIO()
        with unittest.mock.patch("sys.stderr", err), unittest.mock.patch("sys.stdout", out):
            rc = cli.main(["judge", top, "--spec", path])
        self.assertEqual(rc, 2)
        self.assertEqual(err.getvalue(), "nbw-fleet: %s:2: drive model 'NOPE 9': no node of "
                         "the sweep has it (it has ACME NVMe 3)\n" % path)


class TestProbe(Tmp):
    def test_a_link_below_its_expectation_counts_whatever_its_throughput(self):
        fleet = Fleet(8, 1, 2, pairs="all", seed=4)
        top = self.sweep(fleet)
        node = fleet.names[3]
        path = os.path.join(top, "nodes", node, "probe.json")
        with open(path) as f:
            doc = json.load(f)
        doc["devices"][1]["expectation"] = {"met": False, "reason": "8 GT/s x4, expected x8"}
        with open(path, "w") as f:
            json.dump(doc, f)
        with open(os.path.join(top, "sweep.json")) as f:
            meta = json.load(f)
        line = "nvme_link_probe: nvme1 (0000:02:00.0): expectation not met: 8 GT/s x4, " \
               "expected x8"
        meta["probe_exit"] = {node: {"status": 3, "lines": [line]}}
        with open(os.path.join(top, "sweep.json"), "w") as f:
            json.dump(meta, f)
        res = judge(read_sweep(top))
        self.assertEqual([n for n, v in verdicts(res).items() if v != "PASS"], [node])
        s = res["suspects"][0]
        self.assertEqual((s["rule"], s["component"], s["evidence"]["probe_lines"]),
                         ("probe", "nvme1n1 link", [line]))
        self.assertEqual(reason(s), "the probe's verdict: nvme1: expectation not met: 8 GT/s "
                         "x4, expected x8; the probe said: " + line)
        out = io.StringIO()
        junit.write(res, out)
        links = next(x for x in ET.fromstring(out.getvalue())
                     if x.get("name") == "nbw-fleet.links")
        self.assertEqual([c.get("name") for c in links if c.find("failure") is not None],
                         [node])
        self.assertIn(line, links.find("testcase[@name='%s']/failure" % node).text)


class TestPhysics(Tmp):
    def test_a_node_claiming_999_names_itself_and_no_partner(self):
        fleet = Fleet(16, 2, 2, pairs="all", seed=6, liars=["node007"])
        top = self.sweep(fleet)
        res = judge(read_sweep(top))
        v = verdicts(res)
        self.assertEqual([n for n in v if v[n] != "PASS"], ["node007"])
        s = res["suspects"][0]
        self.assertEqual((s["kind"], s["component"], s["rule"], s["evidence"]["claimed_gb_per_s"],
                          s["evidence"]["ceiling_gb_per_s"]),
                         ("rail", "rails 0,1", "physics", 999.0, 50.0))
        self.assertTrue(reason(s).startswith("claims more than its port can carry: node007 "
                                             "claims 999 GB/s, above its line rate of 50 GB/s"))
        rails = [p for p in res["parts"] if p["kind"] == "rail"]
        figs = [p["figure_gb_per_s"] for p in rails if p["figure_gb_per_s"] is not None]
        # No part's figure (a recorded figure) above its line rate: the liar's is what
        # its partners received from it, their word.
        self.assertLess(max(figs), 50.0)
        self.assertEqual([round(p["figure_gb_per_s"]) for p in rails if p["node"] == "node007"],
                         [49, 49])
        rails_kind = next(k for k in res["kinds"] if k["kind"] == "rails")
        self.assertLess(rails_kind["max"], 50.0)
        self.assertAlmostEqual(rails_kind["fleet_median"], 48.5, delta=1.0)



class MergedReason(unittest.TestCase):
    def test_a_floor_merged_with_its_peers_reads_its_own_evidence(self):
        """A part below its floor that its peers named too (floors.merge keeps the floor's
        evidence under "floor") says its floor's figures, never "-" or "unknown"."""
        s = {"rule": "floor", "rules": ["peers", "floor"], "kind": "rail", "node": "n3",
             "component": "rail 0 (mlx5_0)", "ratio": 0.4, "severity": 0.5,
             "evidence": {"low_count": 4, "partners": 4,
                          "floor": {"floor": 0.8, "bar_gb_per_s": 40.0,
                                    "line_rate_gb_per_s": 50.0, "figure_gb_per_s": 20.0}}}
        text = floors.reason(s)
        self.assertIn("20 GB/s, 50% of its bar, below 80% of its line rate 50 GB/s (bar 40 GB/s)",
                      text)
        self.assertNotIn("unknown", text)


if __name__ == "__main__":
    unittest.main()
