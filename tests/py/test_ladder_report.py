"""nbw.ladder.report: each rung against its ceiling, and the binding rung, on the
reference platform's fixture run (tests/fixtures/ladder/ref)."""
import os
import unittest

from nbwpath import FIXTURES
from nbw.ladder.report import Ladder, gen_name, link_of, pct, rung

REF = os.path.join(FIXTURES, "ladder", "ref")


class Arithmetic(unittest.TestCase):
    def test_pct_of_a_ceiling(self):
        self.assertAlmostEqual(pct(3.57, 3.6), 99.1667, places=4)
        self.assertIsNone(pct(3.57, 0))
        self.assertIsNone(pct(None, 3.6))
        self.assertIsNone(pct(True, 3.6))

    def test_rung_keeps_numbers_only(self):
        r = rung("drive x", "a", 3.0, 4.0, "n/a", kind="drive")
        self.assertEqual((r["pct_of_ceiling"], r["cpu_s_per_gib"], r["kind"]), (75.0, None, "drive"))

    def test_gen_name(self):
        self.assertEqual(gen_name(8.0, 4), "Gen3 x4")
        self.assertEqual(gen_name(32, 16), "Gen5 x16")
        self.assertIsNone(gen_name(7.0, 4))
        self.assertIsNone(gen_name(8.0, 0))

    def test_link_of_prefers_the_device_own_link(self):
        dev = {"bdf": "0000:01:00.0", "links": [
            {"device_bdf": "0000:00:01.0", "speed_gts": 16.0, "width": 16},
            {"device_bdf": "0000:01:00.0", "speed_gts": 8.0, "width": 4}]}
        self.assertEqual(link_of(dev), (8.0, 4))
        self.assertEqual(link_of({"link": {"speed_gts": 16.0, "width": 8}}), (16.0, 8))
        self.assertEqual(link_of({}), (None, None))


class Reference(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lad = Ladder(REF)
        cls.rungs = cls.lad.build()

    def find(self, name, node):
        return self.lad.rung_of(name, node)

    def test_drives_together_against_three_links(self):
        r = self.find("drives together", "a")
        self.assertAlmostEqual(r["ceiling_gb_per_s"], 10.8)
        self.assertAlmostEqual(r["measured_gb_per_s"], 10.71)

    def test_end_to_end_against_the_rungs_below(self):
        r = self.find("end to end", "a")
        self.assertAlmostEqual(r["ceiling_gb_per_s"], 21.41, places=2)
        self.assertAlmostEqual(r["pct_of_ceiling"], 100.0, places=1)

    def test_ib_write_bw_gbits_to_gbytes(self):
        self.assertAlmostEqual(self.find("ib_write_bw", "b")["measured_gb_per_s"], 392.52 / 8)

    def test_the_drive_links_bind(self):
        b = self.lad.binding()
        self.assertEqual((b["rung"], b["name"], b["node"]), ("drive links", "drive nvme1n1", "b"))


if __name__ == "__main__":
    unittest.main()
