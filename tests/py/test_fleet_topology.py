"""nbw.fleet.topology: where each port hangs (a hostfile's rack= and leaf<i>=,
ibnetdiscover's output), the uplink of a leaf named when the pairs crossing it are low
and no NIC for them, a NIC still named as the NIC, the plan's rounds inside leaves and
across uplinks, and topology files refused with their file and line."""

import io
import json
import os
import shutil
import tempfile
import unittest
from contextlib import redirect_stderr

import nbwpath  # noqa: F401
from fleetgen import Fleet
from nbw.fleet import cli, junit, report, topology
from nbw.fleet.judge import judge
from nbw.fleet.plan import Plan
from nbw.fleet.sweepdir import read_sweep
from nbw.fleet.verdict import expected_parts

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "fleet")
RACKS = {"node%03d" % i: "r%d" % (i // 16) for i in range(64)}


def names(result):
    return sorted((s["kind"], s["node"], s["component"], s["state"]) for s in result["suspects"])


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, text, name="topo"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def refused(self, text, nodes=None):
        path = self.write(text)
        with self.assertRaises(topology.TopologyError) as e:
            topology.read_topology(path, nodes)
        return str(e.exception).replace(path, "FILE")

    def test_ibnetdiscover_is_the_hostfile(self):
        ib = topology.read_topology(os.path.join(FIXTURES, "ibnetdiscover.txt"))
        hf = topology.read_topology(os.path.join(FIXTURES, "ibnetdiscover.hosts"))
        ib.rail_devs = ["mlx5_0", "mlx5_1"]
        self.assertEqual(sorted(ib.ports), ["n%02d" % i for i in range(1, 9)])  # not gw01
        self.assertEqual(sorted(hf.ports), sorted(ib.ports))
        for n in hf.ports:
            for r in (0, 1):
                self.assertEqual(ib.leaf(n, r), hf.leaf(n, r), (n, r))
        self.assertEqual(ib.leaf("n06", 1), "leaf-r1-1")
        self.assertEqual(ib.leaf("n02", 0, "mlx5_0"), "leaf-r0-0")
        # Without --rail-devs, rail i is the node's i-th device in name order.
        ib.rail_devs = None
        self.assertEqual(ib.leaf("n06", 1), "leaf-r1-1")

    def test_refused_with_file_and_line(self):
        self.assertEqual(self.refused("n1 rack=r0\nn2 rack=r0\nn1 rack=r1\n"),
                         "FILE:3: n1 every rail hangs off r1 here, off r0 on line 1: which?")
        self.assertEqual(self.refused("n1 rack=r0 leaf3=a leaf3=b\n"),
                         "FILE:1: n1 rail 3 hangs off b here, off a on line 1: which?")
        self.assertEqual(self.refused("n1 rack=r0\nn2 leafx=a\n"),
                         "FILE:2: 'leafx=a': leaf<i>=NAME, i a rail index")
        self.assertEqual(self.refused("n1 rack=r0\nn2 rack=a$b\n"),
                         "FILE:2: 'rack=a$b': a switch's name is letters, digits and ._:;/@%+- "
                         "(at most 64)")
        self.assertEqual(self.refused("n1 rack=r0\nn9 rack=r0\n", ["n1", "n2"]),
                         "FILE:2: n9: not a node of this sweep")
        self.assertEqual(self.refused("n1\nn2\n"),
                         "FILE:1: no rack= or leaf<i>= on any line: no topology")
        with open(os.path.join(FIXTURES, "ibnetdiscover.txt")) as f:
            ib = f.read().splitlines()
        at = ib.index(next(x for x in ib if x.startswith("Switch"))) + 1
        bad = ib[:at] + ["[1] H-b8cef60300f10110 garbage"] + ib[at + 1:]
        self.assertEqual(self.refused("\n".join(bad)),
                         "FILE:%d: not a line of ibnetdiscover's output: "
                         "'[1] H-b8cef60300f10110 garbage'" % (at + 1))
        # n01's mlx5_0 cabled to leaf-r1-0 by its own line, to leaf-r0-0 by the switch's.
        ca = next(i for i, x in enumerate(ib) if x.endswith('# "n01 mlx5_0"')) + 1
        wrong = ib[:ca] + [ib[ca].replace("1070fd0300a10100", "1070fd0300a10110")] + ib[ca + 1:]
        sw = next(i for i, x in enumerate(ib) if '# "n01 mlx5_0" lid' in x) + 1
        self.assertEqual(self.refused("\n".join(wrong)),
                         "FILE:%d: n01 mlx5_0 port 1 is cabled to S-1070fd0300a10110 here, to "
                         "S-1070fd0300a10100 on line %d" % (ca + 1, sw))
        nodes = ["n%02d" % i for i in range(1, 8)]
        self.assertRegex(self.refused("\n".join(ib), nodes),
                         r"^FILE:[0-9]+: n08: not a node of this sweep$")

    def test_cli_refuses_in_one_line_exit_2(self):
        path = self.write("n1 rack=r0\nn1 rack=r1\n")
        err = io.StringIO()
        with redirect_stderr(err):
            rc = cli.main(["plan", "--fabric-topology", path, "--rails", "2"])
        self.assertEqual(rc, 2)
        self.assertEqual(err.getvalue(), "nbw-fleet: %s:2: n1 every rail hangs off r1 here, "
                         "off r0 on line 1: which?\n" % path)


class Plans(unittest.TestCase):
    def check(self, plan, topo, rails):
        extra = plan.extra
        base = plan.rounds - len(extra)
        seen = set()
        for r in range(plan.rounds):
            pairs, idle = plan.round(r)
            busy = [x for p in pairs for x in p]
            self.assertEqual(len(busy), len(set(busy)), "a node twice in round %d" % r)
            self.assertEqual(sorted(busy + idle), list(range(plan.n)))
            for a, b in pairs:
                k = (min(a, b), max(a, b))
                self.assertNotIn(k, seen, "a pair twice (round %d)" % r)
                seen.add(k)
        self.assertEqual(plan.pair_count, len(seen))
        counts = topology.leaf_counts(plan, topo, rails)
        for (lf, r), (inside, cross) in counts.items():
            self.assertGreaterEqual(inside, 1, (lf, r))
            self.assertGreaterEqual(cross, topology.CROSS_PER_UPLINK, (lf, r))
        return base, counts

    def test_rounds_inside_and_across(self):
        names = ["n%02d" % i for i in range(40)]
        # ring only, unshuffled: the ring's neighbours; a leaf of 3 whose nodes never
        # meet, a leaf of 1 (no pair inside it possible: not counted) and rails of
        # their own leaves.
        ports = {n: {"*": "big"} for n in names}
        for n in names[10:13]:
            ports[n] = {"*": "small", "1": "odd"}
        ports["n39"] = {"*": "alone"}
        topo = topology.Topology(ports, "test")
        plan = topology.apply(Plan(40, "ring", seed=None, names=names), topo, 2)
        self.assertGreater(len(plan.extra), 0)
        ports["n39"] = {"*": "big"}
        plan = topology.apply(Plan(40, "ring", seed=None, names=names), topo, 2)
        base, counts = self.check(plan, topo, 2)
        self.assertEqual(base, 2)

    def test_plan_command_shows_leaves(self):
        tmp = tempfile.mkdtemp()
        try:
            path = os.path.join(tmp, "hosts")
            with open(path, "w") as f:
                f.write("".join("%s rack=%s\n" % kv for kv in sorted(RACKS.items())))
            out = io.StringIO()
            rc = cli.cmd_plan(cli.build_parser()[0].parse_args(
                ["plan", "--fabric-topology", path, "--rails", "8", "--json"]), out)
            self.assertEqual(rc, 0)
            doc = json.loads(out.getvalue())
            self.assertEqual(doc["nodes"], 64)
            self.assertEqual([x["leaf"] for x in doc["topology"]["leaves"]],
                             ["r0", "r1", "r2", "r3"])
            for x in doc["topology"]["leaves"]:
                self.assertEqual(x["rails"], list(range(8)))
                self.assertGreaterEqual(x["inside"], 1)
                self.assertGreaterEqual(x["cross"], 3)
            out = io.StringIO()
            cli.cmd_plan(cli.build_parser()[0].parse_args(
                ["plan", "--fabric-topology", path, "--rails", "8"]), out)
            self.assertRegex(out.getvalue(), r"\n    leaf r2 +rails 0-7: [0-9]+ inside pairs, "
                             r"[0-9]+ cross-leaf pairs\n")
        finally:
            shutil.rmtree(tmp)


class Uplinks(unittest.TestCase):
    """64 nodes in 4 racks of 16, 8 rails: the fleetgen fleet (48.5 GB/s a rail, +-2%)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def sweep(self, **faults):
        Fleet(64, rails=8, drives=1, pairs="auto", racks=RACKS, **faults).write(self.tmp)
        return read_sweep(self.tmp)

    def test_a_bad_uplink_is_the_uplink(self):
        sw = self.sweep(bad_uplinks=[("r2", 3, 0.5)])
        res = judge(sw)
        self.assertEqual(names(res), [("uplink", "r2", "uplink of leaf r2, rail 3", "low")])
        self.assertEqual(res["verdict_counts"], {"PASS": 64, "SUSPECT": 0, "NOT MEASURED": 0})
        s = res["suspects"][0]
        ev = s["evidence"]
        self.assertEqual((ev["inside_low"], ev["rail"]), (0, 3))
        self.assertGreaterEqual(ev["cross_low"], topology.UPLINK_MIN_LOW)
        self.assertLess(s["ratio"], 0.55)
        self.assertEqual(set(ev["far_leaves"]), {"r0", "r1", "r3"})
        line = report.reason(s)
        self.assertRegex(line, r"^below its peers: uplink of leaf r2, rail 3: %d of %d cross-leaf pairs low, 0 "
                         r"of %d inside" % (ev["cross_low"], ev["cross_pairs"],
                                            ev["inside_pairs"]))
        out = io.StringIO()
        report.text(res, out)
        self.assertIn("  uplink r2 ", out.getvalue())
        self.assertIn("topology hostfile fleetgen: 32 uplinks judged (leaves x rails), 1 named",
                      out.getvalue())
        x = io.StringIO()
        self.assertEqual(junit.write(res, x)["failures"], 1)
        self.assertIn('<testcase name="leaf r2 rail 3" classname="nbw-fleet.uplinks"',
                      x.getvalue())
        # The same sweep judged blind to the fabric's shape: NICs named (the issue's
        # 22 SUSPECT).
        sw.meta["topology"] = None
        self.assertGreater(judge(sw)["verdict_counts"]["SUSPECT"], 3)
        # Every file the plan (with its topology's rounds) expects is there.
        self.assertTrue(all(rel in sw.present for rel in expected_parts(sw.meta)))

    def test_a_bad_nic_is_the_nic(self):
        res = judge(self.sweep(slow_rails=[("node021", 3, 0.5)]))
        self.assertEqual(names(res), [("rail", "node021", "rail 3 (mlx5_3)", "low")])
        self.assertEqual(res["verdict_counts"]["SUSPECT"], 1)

    def test_a_bad_nic_under_a_bad_uplink(self):
        res = judge(self.sweep(slow_rails=[("node005", 3, 0.5)], bad_uplinks=[("r0", 3, 0.5)]))
        self.assertEqual(names(res), [("rail", "node005", "rail 3 (mlx5_3)", "low"),
                                      ("uplink", "r0", "uplink of leaf r0, rail 3", "low")])
        self.assertEqual([v["node"] for v in res["verdicts"] if v["verdict"] != "PASS"],
                         ["node005"])

    def test_healthy_fleet_names_nothing(self):
        res = judge(self.sweep())
        self.assertEqual(names(res), [])
        self.assertEqual(len(res["uplinks"]), 32)


if __name__ == "__main__":
    unittest.main()
