"""nbw.pcipath: a sum of drive figures capped by the links the drives share.
The probe's JSON of tests/fixtures/pci/switch_gen2_x8.lspci (two Gen4 x4 drives,
7.20 GB/s usable each, behind one switch whose uplink trained 5 GT/s x8: 3.66
usable) cut to what is read here, and deeper trees built the same way."""
import unittest

import nbwpath  # noqa: F401
from nbw.pcipath import capped_sum, shared_words


def link(port, dev, gts, width, usable):
    return {"port_bdf": port, "device_bdf": dev, "speed_gts": gts, "width": width,
            "usable_gb_per_s": usable}


UPLINK = link("0000:00:01.0", "0000:01:00.0", 5, 8, 3.65714)


def drive(bdf, port, usable=7.20176, up=(UPLINK,)):
    return {"name": None, "kind": "nvme", "bdf": bdf,
            "links": [link(port, bdf, 16, 4, usable)] + list(up),
            "ceiling_gb_per_s": {"usable": min([usable] + [u["usable_gb_per_s"] for u in up])}}


SWITCH = [drive("0000:03:00.0", "0000:02:00.0"), drive("0000:04:00.0", "0000:02:01.0")]


class CappedSum(unittest.TestCase):
    def test_two_drives_behind_one_uplink_carry_the_uplink(self):
        s = capped_sum([(3.65714, d) for d in SWITCH])
        self.assertAlmostEqual(s.summed, 7.31428)
        self.assertAlmostEqual(s.capped, 3.65714)
        self.assertEqual([(c["bdf"], c["drives"]) for c in s.caps], [("0000:01:00.0", 2)])
        self.assertEqual(s.caps[0]["link"], "5 GT/s x8")
        self.assertEqual(shared_words(s), "2 drives share hop 0000:01:00.0 (5 GT/s x8, 3.66 GB/s "
                                          "usable): 3.66 GB/s, not 7.31 summed")

    def test_drives_on_their_own_root_ports_add_up(self):
        own = [drive("0000:%02x:00.0" % (i + 1), "0000:00:0%d.0" % (i + 1), 3.6, up=())
               for i in range(3)]
        s = capped_sum([(3.6, d) for d in own])
        self.assertAlmostEqual(s.capped, 10.8)
        self.assertEqual(s.caps, [])
        self.assertIsNone(shared_words(s))

    def test_a_wide_uplink_does_not_cap(self):
        wide = link("0000:00:01.0", "0000:01:00.0", 16, 16, 28.8)
        s = capped_sum([(3.57, drive("0000:%02x:00.0" % (i + 3), "0000:02:0%d.0" % i, 3.6, up=(wide,)))
                        for i in range(4)])
        self.assertAlmostEqual(s.capped, 4 * 3.57)
        self.assertEqual(s.caps, [])

    def test_nested_switches_cap_at_each_level(self):
        # two drives behind a 3.0 GB/s inner uplink, that and a third drive behind 5.0
        top = link("0000:00:01.0", "0000:01:00.0", 8, 8, 5.0)
        inner = link("0000:02:00.0", "0000:03:00.0", 8, 4, 3.0)
        a = drive("0000:05:00.0", "0000:04:00.0", 3.6, up=(inner, top))
        b = drive("0000:06:00.0", "0000:04:01.0", 3.6, up=(inner, top))
        c = drive("0000:07:00.0", "0000:02:01.0", 3.6, up=(top,))
        s = capped_sum([(3.5, a), (3.5, b), (3.5, c)])
        self.assertAlmostEqual(s.summed, 10.5)
        self.assertAlmostEqual(s.capped, 5.0)  # min(5.0, min(3.0, 7.0) + 3.5)
        self.assertEqual(sorted(c["bdf"] for c in s.caps), ["0000:01:00.0", "0000:03:00.0"])

    def test_a_drive_without_a_path_counts_whole(self):
        s = capped_sum([(3.65714, d) for d in SWITCH] + [(2.0, None), (None, SWITCH[0])])
        self.assertAlmostEqual(s.capped, 3.65714 + 2.0)

    def test_untrusted_shapes_do_not_crash(self):
        bad = {"links": [None, {"device_bdf": 7}, {"device_bdf": "x", "usable_gb_per_s": "fast"}]}
        s = capped_sum([(1.0, bad), (1.0, {"links": "no"}), (1.0, {})])
        self.assertAlmostEqual(s.capped, 3.0)
        loop = {"links": [link("a", "0000:03:00.0", 8, 4, 3.6), link("b", "0000:01:00.0", 8, 4, 3.6),
                          link("c", "0000:03:00.0", 8, 4, 3.6)]}
        self.assertAlmostEqual(capped_sum([(1.0, loop), (2.0, loop)]).capped, 3.0)
        x, y = link("p", "0000:05:00.0", 8, 4, 9.0), link("q", "0000:06:00.0", 8, 4, 9.0)
        crossed = capped_sum([(1.0, {"links": [x, y]}), (2.0, {"links": [y, x]})])
        self.assertLessEqual(crossed.capped, 3.0)

    def test_nothing(self):
        self.assertEqual(capped_sum([]).capped, None)


class FleetJudge(unittest.TestCase):
    """The fleet judge's drives together: its ceiling, the drives' figures alone
    summed, is capped by a link the node's drives share (its probe.json)."""

    def test_a_node_behind_one_uplink(self):
        import json
        import os
        import shutil
        import tempfile
        from fleetgen import Fleet
        from nbw.fleet.judge import judge
        from nbw.fleet.sweepdir import read_sweep
        top = tempfile.mkdtemp(prefix="pcipath.")
        self.addCleanup(shutil.rmtree, top)
        fleet = Fleet(8, 1, 4, pairs="ring", seed=6)
        fleet.write(top)
        shared = fleet.names[3]
        p = os.path.join(top, "nodes", shared, "probe.json")
        with open(p) as f:
            doc = json.load(f)
        for i, dev in enumerate(d for d in doc["devices"] if d["kind"] == "nvme"):
            dev["links"] = [link("0000:02:%02x.0" % i, dev["bdf"], 8, 4, 3.6),
                            link("0000:00:01.0", "0000:01:00.0", 8, 4, 3.6)]
        with open(p, "w") as f:
            json.dump(doc, f)
        parts = {x["node"]: x for x in judge(read_sweep(top))["parts"]
                 if x["component"] == "drives together"}
        self.assertAlmostEqual(parts[shared]["ceiling_gb_per_s"], 3.6)
        self.assertEqual([(h["bdf"], h["drives"]) for h in parts[shared]["shared_hops"]],
                         [("0000:01:00.0", 4)])
        other = parts[fleet.names[2]]
        self.assertGreater(other["ceiling_gb_per_s"], 4 * 3.0)  # the four solos summed
        self.assertEqual(other["shared_hops"], [])


if __name__ == "__main__":
    unittest.main()
