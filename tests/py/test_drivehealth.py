"""nbw.drivehealth: the rules on a drive's health log and window shape, and a low
drive's evidence when none fires."""
import unittest
import nbwpath  # noqa: F401
from nbw.drivehealth import (NO_EVIDENCE, drive_named, evidence, findings, link_changed,
                             own_drives)


def throttled():
    return {"name": "nvme1n1", "path": "/dev/nvme1n1", "unsteady": False,
            "health": {"log_read": True, "why": None, "findings": ["throttled", "hot"],
                       "warning_temp_c": 75,
                       "after": {"temperature_c": 81, "warnings": []},
                       "deltas": {"tmt1_transitions": 3, "tmt1_seconds": 12, "tmt2_transitions": 0,
                                  "tmt2_seconds": 0, "warning_temp_minutes": 1,
                                  "media_errors": 0}}}


class Rules(unittest.TestCase):
    def test_a_throttled_hot_drive(self):
        f = findings(throttled())
        self.assertEqual([x[0] for x in f], ["throttled", "crossed_warning_temperature"])
        self.assertEqual(f[0][1], "throttled in the window (thermal management T1 +3 transitions, 12 s)")
        self.assertEqual(f[1][1], "crossed its warning temperature: 81 C at the close (warning at 75 C), "
                                  "1 min above its warning temperature")

    def test_media_errors_and_a_critical_warning(self):
        d = {"health": {"log_read": True, "findings": ["critical_warning", "media_errors"],
                        "after": {"warnings": ["temperature", "reliability_degraded"]},
                        "deltas": {"media_errors": 2}}}
        said = {x[0]: x[1] for x in findings(d)}
        self.assertEqual(said["media_errors"], "2 new media errors in the window")
        self.assertEqual(said["critical_warning"],
                         "critical warning at the close (temperature, reliability_degraded)")

    def test_an_unsteady_window(self):
        d = {"unsteady": True, "unsteady_reason": "second 3 at 1.20 GB/s, under half the median 8.50 GB/s"}
        self.assertEqual(findings(d)[0][:2], ("unsteady", "unsteady window: second 3 at 1.20 GB/s, "
                                                          "under half the median 8.50 GB/s"))

    def test_a_healthy_drive_fires_nothing(self):
        self.assertEqual(findings({"unsteady": False, "health": {"log_read": True, "findings": []}}), [])
        self.assertEqual(findings(None), [])


class Evidence(unittest.TestCase):
    def test_throttled_is_the_evidence(self):
        ev = evidence(throttled())
        self.assertEqual(ev["rules"], ["throttled", "crossed_warning_temperature"])
        self.assertTrue(ev["says"].startswith("throttled in the window"))

    def test_nothing_counted_is_the_drive_itself(self):
        ev = evidence({"health": {"log_read": True, "findings": []}})
        self.assertEqual((ev["rules"], ev["says"]), ([], NO_EVIDENCE))

    def test_a_log_not_read_says_so_never_the_drive_itself(self):
        ev = evidence({"health": {"log_read": False, "why": "not read: needs CAP_SYS_ADMIN (/dev/nvme0)"}})
        self.assertEqual(ev["says"], "no link change counted; its health log was not read "
                                     "(not read: needs CAP_SYS_ADMIN (/dev/nvme0))")
        self.assertEqual(ev["health_read"], False)

    def test_a_link_change_is_evidence_elsewhere(self):
        d = {"health": {"log_read": True, "findings": []},
             "link_under_load": {"dropped": True, "changes": [{"t_s": 2.0}]}}
        self.assertTrue(link_changed(d))
        self.assertIsNone(evidence(d)["says"])
        self.assertIsNone(evidence({"health": {"log_read": True, "findings": []}}, link_said=True)["says"])
        self.assertTrue(link_changed({"aer": {"correctable": {"delta": 4}}}))

    def test_drive_named(self):
        doc = {"drives": [{"path": "/dev/nvme0n1"}, {"path": "hostb:/dev/nvme1n1"}, "junk"]}
        self.assertEqual(drive_named(doc, "nvme1n1"), doc["drives"][1])
        self.assertEqual(drive_named(doc, "nvme0n1"), doc["drives"][0])
        self.assertIsNone(drive_named(doc, "nvme9n1"))
        self.assertIsNone(drive_named(None, "nvme0n1"))

    def test_a_sinks_report_of_a_source_drive_is_not_its_own(self):
        src = {"side": "rdma", "path": "/dev/nvme0n1", "unsteady": True}
        own = {"side": "local", "path": "/dev/nvme0n1", "unsteady": False}
        self.assertIs(drive_named({"role": "sink", "drives": [src, own]}, "nvme0n1"), own)
        self.assertIsNone(drive_named({"role": "sink", "drives": [src]}, "nvme0n1"))
        self.assertIs(drive_named({"role": "source", "drives": [src]}, "nvme0n1"), src)
        self.assertEqual(own_drives({"role": "sink", "drives": [src, own, "junk"]}), [own])


if __name__ == "__main__":
    unittest.main()
