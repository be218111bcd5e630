"""nbw.fleet.health: a suspect drive's own evidence, alone and in the judge of a small
sweep (tests/py/fleetgen.py with a drive that throttled and one that says nothing)."""
import shutil
import tempfile
import unittest
import nbwpath  # noqa: F401
from fleetgen import Fleet
from nbw.drivehealth import NO_EVIDENCE
from nbw.fleet.health import drive_evidence
from nbw.fleet.judge import judge
from nbw.fleet.report import reason
from nbw.fleet.sweepdir import read_sweep


class Alone(unittest.TestCase):
    def test_no_such_drive(self):
        self.assertIsNone(drive_evidence({"drives": []}, "nvme0n1"))
        self.assertIsNone(drive_evidence(None, "nvme0n1"))

    def test_a_downgraded_link_is_said_by_the_probe(self):
        doc = {"drives": [{"name": "nvme0n1", "health": {"log_read": True, "findings": []}}]}
        self.assertEqual(drive_evidence(doc, "nvme0n1")["says"], NO_EVIDENCE)
        self.assertIsNone(drive_evidence(doc, "nvme0n1", {"verdict": "downgraded"})["says"])


class InTheJudge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fleet-health.")
        fleet = Fleet(16, 2, 4, pairs=2, seed=3,
                      slow_drives=[("node003", 1, 0.6), ("node005", 2, 0.6)],
                      hot_drives=[("node005", 2)])
        fleet.write(cls.tmp)
        cls.result = judge(read_sweep(cls.tmp))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def suspect(self, node):
        return next(s for s in self.result["suspects"] if s["kind"] == "drive" and s["node"] == node)

    def test_the_throttled_drive_carries_its_evidence(self):
        s = self.suspect("node005")
        self.assertEqual(s["evidence"]["health"]["rules"], ["throttled", "crossed_warning_temperature"])
        self.assertIn("the drive: throttled in the window", reason(s))

    def test_the_other_is_the_drive_itself(self):
        s = self.suspect("node003")
        self.assertEqual(s["evidence"]["health"]["says"], NO_EVIDENCE)
        self.assertIn(NO_EVIDENCE, reason(s))


if __name__ == "__main__":
    unittest.main()
