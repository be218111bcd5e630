"""nbw.results.documents: a tool's JSON document -> the figures the record keeps."""
import unittest

import nbwpath  # noqa: F401
from nbw.results.documents import (cv_of, doc_params, failure_of, figures_of, ladder_order,
                                   metrics_of, summed_samples)


class Samples(unittest.TestCase):
    def test_cv_of(self):
        cv, n = cv_of([9.0, 10.0, 11.0])
        self.assertEqual(n, 3)
        self.assertAlmostEqual(cv, 10.0)  # sd 1 over mean 10
        self.assertEqual(cv_of([5.0]), (None, 1))
        self.assertEqual(cv_of([]), (None, None))
        self.assertEqual(cv_of([0.0, 0.0]), (None, 2))
        self.assertEqual(cv_of(["x", True, 2.0, 4.0])[1], 2)  # only the numbers count

    def test_summed_samples_per_second(self):
        drives = [{"samples_gb_per_s": [1.0, 2.0]}, {"samples_gb_per_s": [3.0, 4.0]}]
        self.assertEqual(summed_samples(drives), [4.0, 6.0])
        drives[1]["samples_gb_per_s"] = [3.0]
        self.assertIsNone(summed_samples(drives))


class Figures(unittest.TestCase):
    def test_params_leave_out_what_does_not_decide(self):
        doc = {"tool": "nvme_read_bw", "params": {"chunk": 4096, "duration_s": 20, "port": 1}}
        self.assertEqual(doc_params(doc, "baseline"),
                         {"tool": "nvme_read_bw", "context": "baseline", "chunk": 4096})

    def test_read_bw_drives_and_total(self):
        doc = {"tool": "nvme_read_bw", "params": {"chunk": 1048576},
               "drives": [{"name": "nvme0n1", "gb_per_s": 3.5, "samples_gb_per_s": [3.4, 3.6]},
                          {"name": "nvme1n1", "gb_per_s": 3.6, "samples_gb_per_s": [3.6, 3.6]}],
               "total": {"gb_per_s": 7.1}}
        figs = figures_of(doc, "n1", "local", {})
        self.assertEqual([(f["rung"], f["drive"], f["gb_per_s"]) for f in figs],
                         [("read", "nvme0n1", 3.5), ("read", "nvme1n1", 3.6), ("read", None, 7.1)])
        self.assertEqual(figs[2]["samples"], 2)  # the per-second sums 7.0 and 7.2
        self.assertAlmostEqual(figs[2]["cv_pct"], 100 * 2 ** 0.5 * 0.1 / 7.1)  # sd 0.141, mean 7.1
        self.assertEqual(len({f["params_hash"] for f in figs}), 1)

    def test_baseline_steps_are_rungs(self):
        doc = {"tool": "nvme_read_bw", "drives": [{"name": "a"}, {"name": "b"}],
               "baseline": [{"label": "a alone", "gb_per_s": 3.0},
                            {"label": "b alone", "gb_per_s": 3.1},
                            {"label": "all", "gb_per_s": 6.0}]}
        self.assertEqual([(f["rung"], f["gb_per_s"]) for f in figures_of(doc, "n", "baseline", {})],
                         [("drive a", 3.0), ("drive b", 3.1), ("drives together", 6.0)])

    def test_remote_rungs_by_role_and_context(self):
        sink = {"tool": "nvme_write_bw_remote", "role": "sink", "total": {"gb_per_s": 21.41},
                "rdma": {"gb_per_s": 10.7}}
        src = dict(sink, role="source")
        self.assertEqual(figures_of(sink, "s", "aggregate", {})[0]["rung"], "end to end")
        self.assertEqual(figures_of(sink, "s", "aggregate", {})[0]["gb_per_s"], 21.41)
        self.assertEqual(figures_of(src, "c", "aggregate", {})[0]["gb_per_s"], 10.7)
        self.assertEqual(figures_of(src, "c", "fabric", {})[0]["rung"], "fabric (mem)")

    def test_a_sinks_drives_are_its_own(self):
        """The sink's report of its source's /dev/nvme0n1 (side rdma) is no figure of the
        sink's /dev/nvme0n1: only its own drive is filed under the sink's node."""
        sink = {"tool": "nvme_write_bw_remote", "role": "sink", "total": {"gb_per_s": 0.42},
                "drives": [{"side": "local", "path": "/dev/nvme0n1", "gb_per_s": 0.38},
                           {"side": "rdma", "path": "/dev/nvme0n1", "gb_per_s": 0.0042}]}
        self.assertEqual([(f["drive"], f["gb_per_s"]) for f in figures_of(sink, "a", "aggregate", {})],
                         [(None, 0.42), ("/dev/nvme0n1", 0.38)])
        src = dict(sink, role="source", rdma={"gb_per_s": 0.0042},
                   drives=[{"side": "rdma", "path": "/dev/nvme0n1", "gb_per_s": 0.0042}])
        self.assertEqual([(f["drive"], f["gb_per_s"]) for f in figures_of(src, "b", "aggregate", {})],
                         [(None, 0.0042), ("/dev/nvme0n1", 0.0042)])

    def test_probe_links_with_a_ceiling_only(self):
        doc = {"tool": "nvme_link_probe", "devices": [
            {"name": "nvme0", "ceiling_gb_per_s": {"usable": 3.6}},
            {"name": "nvme1", "ceiling_gb_per_s": {"usable": None}}]}
        self.assertEqual([(f["rung"], f["drive"], f["gb_per_s"]) for f in figures_of(doc, "n", "probe", {})],
                         [("link", "nvme0", 3.6)])

    def test_ladder_order(self):
        names = ["aggregate-n1.json", "ladder.json", "probe-n1.json", "x.json", "baseline-n1.json"]
        self.assertEqual(sorted(names, key=ladder_order),
                         ["probe-n1.json", "baseline-n1.json", "aggregate-n1.json", "x.json",
                          "ladder.json"])


class Truth(unittest.TestCase):
    def test_a_failed_document_says_why(self):
        self.assertIsNone(failure_of({"ok": True, "verify": "pass", "total_valid": True}))
        self.assertEqual(failure_of({"ok": False, "error": "peer gone", "verify": "fail",
                                     "total_valid": False,
                                     "total_invalid_reason": "overlap 40%"}),
                         "ok: false (peer gone); verify: fail; total not valid (overlap 40%)")
        self.assertEqual(failure_of({"interrupted": True}), "interrupted")
        self.assertIsNone(failure_of({"interrupted": False}))

    def test_every_figure_beside_gb(self):
        total = {"gb_per_s": 0.08, "iops": 19744, "cpu_s_per_gib": 5.4,
                 "latency_us": {"p50": 197.6, "p99": 5898.24, "p99.9": 69206}}
        self.assertEqual(metrics_of(total), {"iops": 19744.0, "cpu_s_per_gib": 5.4,
                                             "lat_p50_us": 197.6, "lat_p99_us": 5898.24,
                                             "lat_p99.9_us": 69206.0})
        doc = {"tool": "nvme_read_bw", "params": {"pattern": "rand", "chunk": 4096},
               "drives": [dict(total, name="d0")], "total": total}
        figs = figures_of(doc, "n1", None, {})
        self.assertEqual([f["metrics"]["iops"] for f in figs], [19744.0, 19744.0])
        sink = {"tool": "nvme_write_bw_remote", "role": "sink",
                "total": {"gb_per_s": 20.0, "cpu_s_per_gib": 0.01},
                "rdma": {"gb_per_s": 20.0, "writes_per_s": 19073.5}}
        self.assertEqual(figures_of(sink, "s", "aggregate", {})[0]["metrics"],
                         {"writes_per_s": 19073.5, "cpu_s_per_gib": 0.01})



if __name__ == "__main__":
    unittest.main()
