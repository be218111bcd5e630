"""The judge of a sweep (nbw.fleet.judge over nbw.fleet.sweepdir) on generated fleets
(fleetgen): at 512 nodes x 8 rails x 8 drives a slow drive, a slow rail of one node, a
bad link between two nodes and an unsteady rail are each found with their evidence,
and nothing healthy is named; then the smaller cases one at a time."""

import nbwpath  # noqa: F401
import io
import json
import os
import random
import shutil
import tempfile
import time
import unittest
from contextlib import redirect_stdout

from fleetgen import Fleet
from nbw.fleet import cli
from nbw.fleet.judge import judge
from nbw.fleet.judge_pairs import _Pairs
from nbw.fleet.judge_retest import _isolate_pairs, retests_wanted
from nbw.fleet.sweepdir import SweepError, Transfer, read_sweep


def names_of(result):
    return sorted((s["kind"], s["node"], s["component"], s["state"]) for s in result["suspects"])


def partner_pair(fleet, k=0):
    a, b = fleet.plan.round(0)[0][k]
    return tuple(sorted((fleet.names[a], fleet.names[b])))


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-judge.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def sweep(self, fleet, name="s"):
        top = os.path.join(self.tmp, name)
        fleet.write(top)
        return top


class TestFleetOf512(unittest.TestCase):
    """One generated fleet of 512 nodes x 8 rails x 8 drives, 2 random partners each."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fleet-judge-512.")
        probe = Fleet(512, 8, 8, pairs=2, seed=5)
        cls.link = partner_pair(probe, 7)
        cls.t0 = time.process_time()
        fleet = Fleet(512, 8, 8, pairs=2, seed=5,
                      slow_drives=[("node010", 3, 0.6)], slow_rails=[("node020", 5, 0.5)],
                      bad_links=[(cls.link[0], cls.link[1], 2, 0.6)],
                      unsteady_rails=[("node030", 1, 0.5)])
        cls.want = fleet.write(cls.tmp)
        cls.result = judge(read_sweep(cls.tmp))
        cls.cpu = time.process_time() - cls.t0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def suspect(self, kind, node):
        return next(s for s in self.result["suspects"] if s["kind"] == kind and s["node"] == node)

    def test_exactly_the_planted_parts_are_named(self):
        a, b = self.link
        self.assertEqual(names_of(self.result), sorted([
            ("drive", "node010", "nvme3n1", "low"),
            ("rail", "node020", "rail 5 (mlx5_5)", "low"),
            ("rail", "node030", "rail 1 (mlx5_1)", "unsteady"),
            ("link", a, "rail 2 to " + b, "low"),
        ]))

    def test_in_seconds(self):
        self.assertLess(self.cpu, 30, "generating and judging took %.1f s of CPU" % self.cpu)

    def test_the_isolate_phase_asked_for_the_right_retests(self):
        a, b = self.link
        self.assertEqual(self.want["drives"], ["node010"])
        fab = self.want["fabric"]
        # The low pair again (every rail, both ways at once), and each end and each
        # suspect rail's node with two partners that passed.
        self.assertIn((a, b), fab)
        for node in ("node020", "node030", a, b):
            outs = {y for x, y in fab if x == node and y not in (a, b)}
            self.assertEqual(len(outs), 2, (node, fab))
        self.assertEqual(len(fab), 1 + 4 * 2)
        # The suspect rails each alone with the first partner that passed.
        self.assertEqual(sorted((x, r) for x, _, r in self.want["alone"]),
                         [("node020", 5), ("node030", 1)])
        for x, g, r in self.want["alone"]:
            self.assertIn((x, g), fab)
        self.assertEqual(self.want["remote"], [])

    def test_evidence_of_the_slow_rail(self):
        s = self.suspect("rail", "node020")
        ev = s["evidence"]
        self.assertEqual((ev["low_count"], ev["partners"]), (2, 2))
        self.assertEqual(len(ev["retest_low_with"]), 2)
        self.assertEqual(ev["retest_normal_with"], [])
        self.assertEqual(ev["device"], "mlx5_5")
        self.assertEqual(ev["line_rate_gb_per_s"], 50.0)
        self.assertAlmostEqual(s["ratio"], 0.5, delta=0.03)

    def test_evidence_of_the_unsteady_rail(self):
        ev = self.suspect("rail", "node030")["evidence"]
        self.assertEqual(ev["retest_low_with"], [])
        self.assertEqual(len(ev["retest_normal_with"]), 2)

    def test_evidence_of_the_slow_drive(self):
        s = self.suspect("drive", "node010")
        ev = s["evidence"]
        self.assertAlmostEqual(s["ratio"], 0.6, delta=0.03)
        self.assertAlmostEqual(ev["fleet_median_gb_per_s"], 3.57, delta=0.05)
        self.assertAlmostEqual(ev["retest_ratio"], 0.6, delta=0.03)
        self.assertEqual(ev["model"], "ACME NVMe 3")
        self.assertEqual(ev["probe"]["verdict"], "ok")

    def test_evidence_of_the_link(self):
        a, b = self.link
        s = self.suspect("link", a)
        self.assertEqual(s["peer"], b)
        ev = s["evidence"]["rails"]["2"]
        self.assertTrue(all(r < 0.65 for r in ev["ratios"]), ev)
        self.assertTrue(all(r < 0.65 for r in ev["retest_ratios"]), ev)
        self.assertEqual(len(ev["a_with_others"]), 2)
        self.assertTrue(all(r > 0.9 for r in ev["a_with_others"].values()))
        self.assertTrue(all(r > 0.9 for r in ev["b_with_others"].values()))

    def test_every_part_has_its_figure_and_ratios(self):
        parts = self.result["parts"]
        drives = [p for p in parts if p["kind"] == "drive"]
        self.assertEqual(len(drives), 512 * 8)
        self.assertTrue(all(p["ratio_to_ceiling"] and 0.9 < p["ratio_to_ceiling"] < 1.02
                            for p in drives if p["node"] != "node010"))
        rails = [p for p in parts if p["kind"] == "rail"]
        self.assertEqual(len(rails), 512 * 8)
        slow = next(p for p in rails if p["node"] == "node020" and p["component"] == "rail 5")
        self.assertEqual(slow["ceiling_gb_per_s"], 50.0)
        self.assertAlmostEqual(slow["figure_gb_per_s"], 48.5 / 2, delta=1.0)
        self.assertAlmostEqual(slow["ratio_to_ceiling"], 0.485, delta=0.02)
        fine = next(p for p in rails if p["node"] == "node021" and p["component"] == "rail 5")
        self.assertAlmostEqual(fine["ratio_to_ceiling"], 0.97, delta=0.02)
        self.assertEqual(self.result["counts"]["transfers"], 2 * 256 * 8 * 2 + 512)


class TestRetestPartners(unittest.TestCase):
    def test_two_partners_when_all_but_one_were_met(self):
        # The lab's run of 2026-12-04: c's rail low with a and d, its pair with b failed
        # in the screening. Retested against b alone, one window decided; two partners
        # that passed: b, then one of those it met.
        ts = [Transfer(x, y, 0, 0.17 if "c" in (x, y) else 1.0, False)
              for x, y in (("a", "c"), ("c", "a"), ("c", "d"), ("d", "c"), ("a", "b"),
                           ("b", "a"), ("a", "d"), ("d", "a"), ("b", "d"), ("d", "b"))]
        for seed in range(8):
            out = _isolate_pairs([_Pairs(0, ts, lambda t: t.gbps)], list("abcd"), 0.9,
                                 random.Random(seed))
            self.assertEqual(len(out), 2, out)
            self.assertEqual(out[0], ("c", "b"))
            self.assertIn(out[1], [("c", "a"), ("c", "d")])


class TestSmallFleets(Tmp):
    def test_healthy_fleet_names_nothing(self):
        res = judge(read_sweep(self.sweep(Fleet(32, 2, 4, pairs="all", seed=2))))
        self.assertEqual(res["suspects"], [])
        self.assertEqual(res["counts"]["retests"], 0)

    def test_two_drive_models_are_two_kinds(self):
        fleet = Fleet(32, 2, 4, pairs="ring", seed=3,
                      second_model=["node%03d" % i for i in range(0, 32, 2)])
        # Held to its peers only: the second model's 0.6 of its link is below the floor.
        self.assertEqual(judge(read_sweep(self.sweep(fleet)), floors={})["suspects"], [])

    def test_bad_link_on_every_rail_is_one_link(self):
        fleet = Fleet(16, 4, 2, pairs="all", seed=4)
        a, b = partner_pair(fleet, 1)
        fleet = Fleet(16, 4, 2, pairs="all", seed=4,
                      bad_links=[(a, b, r, 0.5) for r in range(4)])
        res = judge(read_sweep(self.sweep(fleet)))
        self.assertEqual(names_of(res), [("link", min(a, b), "rails 0,1,2,3 to " + max(a, b),
                                          "low")])

    def test_every_rail_of_a_node_is_the_node(self):
        fleet = Fleet(16, 4, 2, pairs=3, seed=4,
                      slow_rails=[("node003", r, 0.7) for r in range(4)])
        self.assertEqual(names_of(judge(read_sweep(self.sweep(fleet)))),
                         [("node", "node003", "all 4 rails", "low")])

    def test_downgraded_drive_with_the_probes_word(self):
        fleet = Fleet(16, 1, 4, pairs="ring", seed=6, downgraded=[("node005", 2)])
        res = judge(read_sweep(self.sweep(fleet)))
        # The probe's verdict counts on its own (first), beside the read below its peers.
        self.assertEqual(names_of(res), [("drive", "node005", "nvme2n1", "low"),
                                         ("drive", "node005", "nvme2n1 link", "low")])
        self.assertEqual(res["suspects"][0]["rule"], "probe")
        self.assertEqual(res["suspects"][0]["evidence"]["says"],
                         "trained below both ends' capability")
        self.assertEqual(res["verdicts"][5]["kinds"]["links"]["status"], "suspect")
        del res["suspects"][0]
        probe = res["suspects"][0]["evidence"]["probe"]
        self.assertEqual(probe["says"], "trained below capability")
        self.assertEqual(probe["link"], "8.0 GT/s x2 of 8.0 GT/s x4")
        self.assertAlmostEqual(res["suspects"][0]["evidence"]["ratio_to_ceiling"], 0.99,
                               delta=0.03)

    def test_unsteady_drive(self):
        fleet = Fleet(16, 1, 4, pairs="ring", seed=6, unsteady_drives=[("node007", 0, 0.5)])
        self.assertEqual(names_of(judge(read_sweep(self.sweep(fleet)))),
                         [("drive", "node007", "nvme0n1", "unsteady")])

    def test_drives_together_low_is_the_node(self):
        fleet = Fleet(16, 1, 4, pairs="ring", seed=6, slow_together=[("node009", 0.7)])
        res = judge(read_sweep(self.sweep(fleet)))
        self.assertEqual(names_of(res), [("node", "node009", "drives together", "low")])
        self.assertAlmostEqual(res["suspects"][0]["ratio"], 0.7, delta=0.03)
        # Read again in the isolate phase, and low again.
        self.assertAlmostEqual(res["suspects"][0]["evidence"]["retest_ratio"], 0.7, delta=0.03)

    def test_drive_to_remote_low_is_the_node(self):
        fleet = Fleet(16, 1, 4, pairs="ring", seed=6, slow_remote=[("node011", 0.6)])
        res = judge(read_sweep(self.sweep(fleet)))
        self.assertEqual(names_of(res), [("node", "node011", "drive->remote", "low")])
        # Low again with its partner of the sweep and with two partners that passed.
        self.assertEqual(len(res["suspects"][0]["evidence"]["retest_low_with"]), 3)

    def test_a_port_slow_as_it_sends_is_its_rail_with_the_direction(self):
        # A shaper on what node003's port sends (the lab's --slow-nic): its transfers to
        # every partner low, from them normal; its drives -> a partner's DRAM low too,
        # which the rail explains: named once, as the rail, the direction said.
        fleet = Fleet(8, 1, 2, pairs="all", seed=4, slow_egress=[("node003", 0, 0.05)])
        top = self.sweep(fleet)
        res = judge(read_sweep(top))
        self.assertEqual(names_of(res), [("rail", "node003", "rail 0 (mlx5_0)", "low")])
        ev = res["suspects"][0]["evidence"]
        self.assertEqual(ev["direction"], "sends")
        self.assertEqual(sorted(ev["low_directions"]),
                         ["node003->node%03d" % i for i in range(8) if i != 3])
        self.assertTrue(all(r < 0.1 for r in ev["low_directions"].values()))
        self.assertEqual(len(ev["retest_directions"]), 4)
        self.assertEqual(sum(r < 0.1 for r in ev["retest_directions"].values()), 2)
        self.assertEqual([x["state"] for x in ev["drive_remote_low"]], ["low"])
        self.assertIn("node003", (ev["drive_remote_low"][0]["node"],
                                  ev["drive_remote_low"][0]["peer"]))
        # Explained by the rail, the low drive -> remote pair is not measured again.
        self.assertEqual(retests_wanted(read_sweep(top))["remote"], [])
        text = io.StringIO()
        cli.report.text(res, text)
        self.assertIn("as it sends (node003->node000", text.getvalue())

    def with_counters(self, top, hw_of):
        """Every fabric transfer's sink report given its port's counters: hw_of(src, dst)
        the hw_counters (None: the port keeps none), the PMA's packets and data moving.
        fabric/DST/SRC.json is DST's document: its receive is SRC -> DST."""
        for base in ("fabric", "isolate/fabric"):
            d = os.path.join(top, base)
            for dst in os.listdir(d) if os.path.isdir(d) else []:
                for name in os.listdir(os.path.join(top, base, dst)):
                    path = os.path.join(top, base, dst, name)
                    with open(path) as f:
                        doc = json.load(f)
                    src = name.split(".")[0]
                    pma = {"port_rcv_packets": 1000, "port_rcv_data": 250000,
                           "port_xmit_packets": 10, "port_xmit_data": 0}
                    rec = doc["receive"]
                    rec["counters"] = [{"device": rec["rails"][0]["local_dev"], "port": 1,
                                        "counters": pma, "hw_counters": hw_of(src, dst) or {}}]
                    with open(path, "w") as f:
                        json.dump(doc, f)

    def shaped_fleet(self, hw_of):
        fleet = Fleet(8, 1, 0, pairs="all", seed=4, slow_egress=[("node003", 0, 0.19)])
        top = self.sweep(fleet)
        self.with_counters(top, hw_of)
        res = judge(read_sweep(top))
        self.assertEqual(names_of(res), [("rail", "node003", "rail 0 (mlx5_0)", "low")])
        text = io.StringIO()
        cli.report.text(res, text)
        self.report_text = text.getvalue()
        return res["suspects"][0]["evidence"]["counters"]

    def test_a_shaped_port_counted_nothing_the_rate_is_limited(self):
        still = {"roce_adp_retrans": 0, "np_cnp_sent": 0, "out_of_sequence": 0}
        c = self.shaped_fleet(lambda s, d: still)
        self.assertEqual(c["still"], "rate_limited")
        self.assertEqual(c["kept"], ["retransmissions", "cnps", "out_of_sequence"])
        self.assertEqual(c["packets"], 1010 * c["low_transfers"])
        self.assertEqual(c["bytes"], 1000000 * c["low_transfers"])
        self.assertGreaterEqual(c["low_transfers"], 7)
        self.assertRegex(c["text"], r"^rail 0 \(mlx5_0\) on node003: 0\.[0-9]{2} of its peers' "
                         r"median; no retransmission, CNP or ECN mark or out-of-sequence packet "
                         r"counted on the receiving end of its [0-9]+ low transfers in the window "
                         r"\(not kept here: RNR NAKs and buffer overruns, xmit waits, link errors "
                         r"and link downs\): the rate itself is limited \(a shaper or policer, the "
                         r"port's speed, a slower path\), not loss or congestion; its ports moved "
                         r"[0-9,]+ packets and [0-9,]+ bytes$")
        self.assertIn("; no retransmission, CNP or ECN mark or out-of-sequence packet counted on "
                      "the receiving end", self.report_text)

    def test_a_congested_port_is_not_called_rate_limited(self):
        c = self.shaped_fleet(lambda s, d: {"roce_adp_retrans": 4812 if s == "node003" else 0,
                                            "np_cnp_sent": 96 if s == "node003" else 0})
        self.assertEqual(c["still"], "moved")
        self.assertGreater(c["moved"]["retransmissions"], 0)
        self.assertIn("retransmissions and", c["text"])
        self.assertNotIn("the rate itself is limited", c["text"])

    def test_counters_not_kept_say_not_kept(self):
        c = self.shaped_fleet(lambda s, d: None)
        self.assertEqual(c["still"], "not_kept")
        self.assertIn("retransmissions not kept on the receiving end", c["text"])
        self.assertNotIn("the rate itself is limited", c["text"])
        self.assertEqual(c["moved"], {})

    def test_no_counters_in_the_documents_no_counter_evidence(self):
        fleet = Fleet(8, 1, 0, pairs="all", seed=4, slow_egress=[("node003", 0, 0.19)])
        res = judge(read_sweep(self.sweep(fleet)))
        self.assertIsNone(res["suspects"][0]["evidence"]["counters"])

    def test_the_labs_shaped_nic(self):
        # tests/fixtures/fleet_shaped: the lab's sweep of 2026-12-03 (tests/lab/fleet.sh,
        # node c's NIC sending through tbf at 8 Mbit/s; the drive's parts left out), each
        # transfer's sink document cut to the keys the judge reads. Soft-RoCE keeps its
        # retransmission counts, and none moved: the rate itself is limited.
        top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                           "fleet_shaped")
        res = judge(read_sweep(top), 0.25)
        self.assertEqual([(s["kind"], s["node"], s["component"]) for s in res["suspects"]],
                         [("rail", "c", "rail 0 (rxe0)")])
        c = res["suspects"][0]["evidence"]["counters"]
        self.assertEqual((c["still"], c["kept"], c["not_kept"]),
                         ("rate_limited",
                          ["retransmissions", "out_of_sequence", "rnr", "link_downed"],
                          ["cnps", "xmit_wait", "link_errors"]))
        self.assertEqual((c["low_transfers"], c["packets"], c["bytes"]), (5, 52000, None))
        self.assertTrue(c["text"].startswith("rail 0 (rxe0) on c: 0.16 of its peers' median; no "
                                             "retransmission, out-of-sequence packet, RNR NAK or "
                                             "link down counted on the receiving end of its 5 low "
                                             "transfers in the window"), c["text"])

    def test_a_port_slow_as_it_receives(self):
        fleet = Fleet(6, 1, 0, pairs="all", seed=2)
        fleet.slow_egress = {}
        top = self.sweep(fleet)
        # Every transfer into node002 at a tenth: its documents' receive.
        for name in os.listdir(os.path.join(top, "fabric", "node002")):
            path = os.path.join(top, "fabric", "node002", name)
            with open(path) as f:
                doc = json.load(f)
            doc["receive"]["rdma"]["gb_per_s"] /= 10
            doc["receive"]["rails"][0]["gb_per_s"] /= 10
            with open(path, "w") as f:
                json.dump(doc, f)
        res = judge(read_sweep(top))
        self.assertEqual([(s["kind"], s["node"]) for s in res["suspects"]], [("rail", "node002")])
        self.assertEqual(res["suspects"][0]["evidence"]["direction"], "receives")

    def test_without_retests_the_sweep_alone_decides(self):
        fleet = Fleet(16, 2, 2, pairs="all", seed=8)
        a, b = partner_pair(fleet, 2)
        fleet = Fleet(16, 2, 2, pairs="all", seed=8, slow_rails=[("node001", 1, 0.5)],
                      bad_links=[(a, b, 0, 0.5)])
        top = self.sweep(fleet)
        shutil.rmtree(os.path.join(top, "isolate"))
        res = judge(read_sweep(top))
        self.assertEqual(names_of(res), sorted([
            ("rail", "node001", "rail 1 (mlx5_1)", "low"),
            ("link", min(a, b), "rail 0 to " + max(a, b), "low")]))
        self.assertEqual(res["counts"]["retests"], 0)

    def test_threshold_moves_the_line(self):
        fleet = Fleet(16, 1, 4, pairs="ring", seed=6, slow_drives=[("node002", 1, 0.85)])
        sw = read_sweep(self.sweep(fleet))
        self.assertEqual(judge(sw, 0.8)["suspects"], [])
        self.assertEqual(names_of(judge(sw, 0.9)), [("drive", "node002", "nvme1n1", "low")])


class TestUntrustedFiles(Tmp):
    def test_garbage_files_are_left_out_and_named(self):
        top = self.sweep(Fleet(8, 1, 2, pairs="all", seed=1))
        bad = os.path.join(top, "fabric", "node000")
        victim = os.path.join(bad, sorted(os.listdir(bad))[0])
        with open(victim, "w") as f:
            f.write("{not json")
        with open(os.path.join(top, "nodes", "node001", "read.json"), "w") as f:
            f.write(json.dumps({"tool": "nvme_read_bw", "drives": [{"name": 5}], "total": "x"}))
        os.makedirs(os.path.join(top, "fabric", "node000", "x y.rail0.json"), exist_ok=True)
        res = judge(read_sweep(top))
        self.assertEqual(res["unreadable"], [victim])
        self.assertEqual(res["suspects"], [])

    def test_not_a_sweep(self):
        with self.assertRaises(SweepError):
            read_sweep(self.tmp)
        with open(os.path.join(self.tmp, "sweep.json"), "w") as f:
            f.write('{"tool": "other"}')
        with self.assertRaises(SweepError):
            read_sweep(self.tmp)


class TestJudgeCommand(Tmp):
    def run_cli(self, *argv):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = cli.main(list(argv))
        return rc, out.getvalue()

    def test_json_text_and_html(self):
        fleet = Fleet(12, 2, 2, pairs="all", seed=9, slow_drives=[("node004", 0, 0.5)])
        top = self.sweep(fleet)
        rc, out = self.run_cli("judge", top, "--json")
        self.assertEqual(rc, 0)
        doc = json.loads(out)
        self.assertEqual([(s["kind"], s["node"], s["component"]) for s in doc["suspects"]],
                         [("drive", "node004", "nvme0n1")])
        self.assertIn("61%", self.run_cli("judge", top, "--threshold", "0.4", "--floor",
                                          "none")[1].replace(
            "no suspect", "61%"))
        # the threshold is a fraction of the median: nothing named is nothing below it
        self.assertIn("no suspect: no part below 10% of its kind's median",
                      self.run_cli("judge", top, "--threshold", "0.1", "--floor", "none")[1])
        page = os.path.join(self.tmp, "j.html")
        rc, out = self.run_cli("judge", top, "--html", page)
        self.assertEqual(rc, 0)
        self.assertRegex(out, r"drive +node004 +nvme0n1 +low +5[01]%")
        with open(page) as f:
            text = f.read()
        self.assertIn("<svg", text)
        self.assertNotIn("<script", text)
        self.assertNotIn("http://", text.replace('xmlns="http://www.w3.org/2000/svg"', ""))
        # 12 nodes, every pair: 66 cells, each drawn on both sides of the diagonal.
        self.assertEqual(text.count("<rect x="), 132)


if __name__ == "__main__":
    unittest.main()
