"""nbw.sweep: the sweep's and the boundary's rows (ideal, ceilings, validity)."""
import unittest

import nbwpath  # noqa: F401
from nbw.sweep import boundary_rows, cell, fmt, sweep_rows

LOCAL = {"drives": [{"path": "/dev/a", "link_ceiling_gb_per_s": 3.6},
                    {"path": "/dev/b", "link_ceiling_gb_per_s": 3.6},
                    {"path": "/dev/c", "link_ceiling_gb_per_s": None}],
         "sweep": [{"drives": 1, "gb_per_s": 3.5}, {"drives": 2, "gb_per_s": 6.3},
                   {"drives": 3, "gb_per_s": 7.0}]}


class Sweep(unittest.TestCase):
    def test_ideal_ceiling_and_percent(self):
        rows = sweep_rows(LOCAL, {1: {"rdma": {"gb_per_s": 3.4}, "verify": "pass"},
                                  2: {"ok": False, "rdma": {"gb_per_s": 9.9}}})
        self.assertEqual([r["ideal_gb_per_s"] for r in rows], [3.5, 7.0, 10.5])
        self.assertEqual([r["link_ceiling_gb_per_s"] for r in rows], [3.6, 7.2, None])
        self.assertAlmostEqual(rows[1]["local_percent_of_ideal"], 90.0)
        self.assertAlmostEqual(rows[0]["remote_percent_of_ideal"], 3.4 / 3.5 * 100)
        self.assertEqual(rows[0]["remote_verify"], "pass")
        self.assertIsNone(rows[1]["remote_gb_per_s"])  # a failed run has no figure
        self.assertEqual(rows[2]["paths"], ["/dev/a", "/dev/b", "/dev/c"])

    def test_cells(self):
        self.assertEqual((cell(3.5), cell(None), cell(2), cell("yes")), ("3.5000", "-", "2", "yes"))
        self.assertEqual((fmt(3.14159, 3), fmt(99.96, 1), fmt(None, 3)), ("3.142", "100.0", "-"))


class Boundary(unittest.TestCase):
    def test_local_then_remote_rows(self):
        local = {"sweep": [{"drives": 1, "gb_per_s": 3.0}, {"drives": 2, "gb_per_s": 5.8}]}
        remote = [{"total_valid": True, "local": {"gb_per_s": 5.8}, "rdma": {"gb_per_s": 2.9},
                   "total": {"gb_per_s": 8.7}},
                  {"total_valid": False, "total_invalid_reason": "a source failed",
                   "total": {"gb_per_s": 9.0}},
                  None]
        one, rows = boundary_rows(local, remote, ["/a", "/b"], ["/x", "/y", "/z"])
        self.assertEqual(one, 3.0)
        self.assertEqual([(r["drives"], r["local_drives"], r["remote_drives"]) for r in rows],
                         [(1, 1, 0), (2, 2, 0), (3, 2, 1), (4, 2, 2), (5, 2, 3)])
        self.assertEqual([r["valid"] for r in rows], ["yes", "yes", "yes", "no", None])
        self.assertEqual(rows[3]["invalid_reason"], "a source failed")
        self.assertAlmostEqual(rows[2]["percent_of_ideal"], 8.7 / 9.0 * 100)
        self.assertEqual(rows[1]["rdma_gb_per_s"], 0.0)
        self.assertEqual(rows[4]["remote_paths"], ["/x", "/y", "/z"])


if __name__ == "__main__":
    unittest.main()
