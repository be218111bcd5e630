"""nbw.summary: run_bench.sh's summary rows, its table and run.json."""
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.summary import RUN_SETTINGS, drive_count, render, run_doc, summary_rows


def read_doc(total, baseline=None):
    d = {"tool": "nvme_read_bw", "drives": [{"path": "/dev/a"}, {"path": "/dev/b"}],
         "total": {"gb_per_s": total}}
    if baseline:
        d["baseline"] = baseline
    return d


class Rows(unittest.TestCase):
    def test_two_nodes_of_a_mode_are_summed(self):
        rows = summary_rows([("local", "n1", read_doc(3.5)), ("local", "n2", read_doc(3.25))])
        self.assertEqual(rows[-1][:7], ("local", "all", "sum of nodes", "-", "6.750", "-", "6.750"))

    def test_one_node_has_no_sum_and_a_broken_document_a_row(self):
        rows = summary_rows([("local", "n1", read_doc(3.5)), ("local", "n2", None)])
        self.assertEqual([r[2] for r in rows], ["all drives", "-"])
        self.assertEqual(rows[1][-1], "no valid JSON")

    def test_baseline_steps_then_all_drives(self):
        steps = [{"label": "a alone", "drives": 1, "gb_per_s": 3.57, "ideal_gb_per_s": 3.57,
                  "percent_of_ideal": 100.0},
                 {"label": "all", "drives": 2, "gb_per_s": 7.0, "ideal_gb_per_s": 7.14,
                  "percent_of_ideal": 98.04}]
        rows = summary_rows([("baseline", "n1", read_doc(7.0, steps))])
        self.assertEqual(rows[0][2:5], ("a alone", "1", "3.570"))
        self.assertEqual(rows[1][2:9], ("all drives", "2", "7.000", "-", "7.000", "7.140", "98.0"))

    def test_sink_with_sources(self):
        sink = {"tool": "nvme_write_bw_remote", "role": "sink", "verify": "pass",
                "local": {"gb_per_s": 10.71}, "rdma": {"gb_per_s": 10.7},
                "total": {"gb_per_s": 21.41}, "ideal_gb_per_s": 21.42, "percent_of_ideal": 99.95,
                "drives": [{"path": "s1:/dev/a"}, {"path": "s2:/dev/a"}, {"path": "s2:/dev/b"}],
                "sources": [{"peer": "s1", "ok": True, "rdma": {"gb_per_s": 3.5}},
                            {"peer": "s2", "ok": False, "rdma": {"gb_per_s": 7.2}}],
                "total_valid": False}
        rows = summary_rows([("aggregate", "n1", sink)])
        self.assertEqual(rows[0][2:], ("sink", "3", "10.710", "10.700", "21.410", "21.420",
                                       "100.0", "pass"))
        self.assertEqual([r[2:4] + r[-1:] for r in rows[1:]],
                         [("from s1", "1", "-"), ("from s2", "2", "FAILED"),
                          ("total is a sum", "-", "NOT valid")])

    def test_bidir(self):
        d = {"tool": "nvme_write_bw_remote", "role": "bidir",
             "bidir": {"send_gb_per_s": 1.0, "receive_gb_per_s": 2.0, "sum_gb_per_s": 3.0,
                       "sum_valid": True},
             "send": {"drives": [1], "verify": "pass"}, "receive": {}}
        rows = summary_rows([("bidir", "n1", d)])
        self.assertEqual([r[2] for r in rows], ["bidir send", "bidir receive", "bidir sum"])
        self.assertEqual((rows[0][5], rows[1][9], rows[2][6], rows[2][9]),
                         ("1.000", "-", "3.000", "valid"))

    def test_render_aligns_three_left_then_right(self):
        lines = render([("local", "n1", "all drives", "2", "3.500", "-", "3.500", "-", "-", "-")])
        self.assertTrue(lines[0].startswith("mode   node  role / step  drives  local GB/s"))
        self.assertEqual(lines[1], "local  n1    all drives        2       3.500          -"
                                   "       3.500           -           -       -")


class RunJson(unittest.TestCase):
    def test_settings_set_and_not_empty(self):
        doc = run_doc("aggregate", 1, ["n1", "n2"], {"CHUNK": "1M", "VERIFY": "", "HOME": "/x"},
                      finished="2026-01-01T00:00:00Z")
        self.assertEqual(doc, {"tool": "run_bench.sh", "mode": "aggregate", "nodes": ["n1", "n2"],
                               "exit_status": 1, "finished": "2026-01-01T00:00:00Z",
                               "settings": {"CHUNK": "1M"}})
        self.assertIn("NFS_DEPTHS", RUN_SETTINGS)

    def test_drive_count(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "b.json")
            with open(p, "w") as f:
                f.write('{"drives": [{}, {}, {}]}')
            self.assertEqual(drive_count(p), 3)


if __name__ == "__main__":
    unittest.main()
