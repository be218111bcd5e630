"""nbw.results.compare: the noise rule of classify() and the inventories' diff."""
import json
import unittest

import nbwpath  # noqa: F401
import nbw.results.documents  # noqa: F401  (the metrics' directions)
from nbw.results.compare import (classify, compare, flatten, in_units, inventory_diff,
                                 inventory_hash, metric_rows)


def fig(gb, cv=None, samples=None, params_hash="p1", params='{"chunk": 1048576}'):
    return {"gb_per_s": gb, "cv_pct": cv, "samples": samples, "params_hash": params_hash,
            "params": params}


class Classify(unittest.TestCase):
    def test_within_the_floor_is_noise(self):
        c = classify(fig(10.0), fig(10.15))
        self.assertEqual(c["class"], "noise")
        self.assertAlmostEqual(c["change_pct"], 1.5)
        self.assertEqual((c["noise_pct"], c["noise_basis"]), (2.0, "floor"))
        self.assertEqual(c["text"], "within noise (+1.5%, noise 2.0% the floor: no samples)")

    def test_beyond_noise_below_large_is_moderate(self):
        c = classify(fig(10.0), fig(9.5))
        self.assertEqual((c["class"], c["text"], c["worse"]), (
            "moderate", "moderate drop of 5.0% (noise 2.0% the floor: no samples)", True))

    def test_from_large_on_is_large(self):
        self.assertEqual(classify(fig(194.0), fig(149.0))["text"],
                         "large drop of 23.2% (noise 2.0% the floor: no samples)")
        self.assertEqual(classify(fig(10.0), fig(11.0))["class"], "large")

    def test_large_needs_twice_the_noise_band(self):
        # cv 2% of one sample each: band 3 x sqrt(4 + 4) = 8.49%. A 12% drop is beyond it
        # and beyond large (10%), but not beyond twice the band: moderate.
        c = classify(fig(10.0, 2.0, 1), fig(8.8, 2.0, 1))
        self.assertEqual(c["noise_basis"], "samples")
        self.assertAlmostEqual(c["noise_pct"], 3 * 8 ** 0.5, places=6)
        self.assertEqual(c["class"], "moderate")
        self.assertEqual(classify(fig(10.0, 2.0, 1), fig(8.0, 2.0, 1))["class"], "large")

    def test_the_samples_widen_the_band(self):
        # cv 10% of 4 samples each: standard error sqrt(100/4 + 100/4) = 7.07, band 21.2%.
        c = classify(fig(10.0, 10.0, 4), fig(8.5, 10.0, 4))
        self.assertEqual(c["class"], "noise")
        self.assertAlmostEqual(c["noise_pct"], 21.213, places=3)
        self.assertEqual(c["noise_basis"], "samples")
        self.assertEqual((c["text"], c["worse"]), (
            "within noise (-15.0%, noise 21.2% from the runs' samples)", False))

    def test_quiet_samples_set_the_band_the_floor_only_without_them(self):
        c = classify(fig(10.0, 0.5, 20), fig(10.3, 0.5, 20))
        # 3 x sqrt(0.25/20 * 2) = 0.47%: the samples' band, under the floor: the floor is
        # for figures without samples only, and 3% is beyond the band.
        self.assertEqual((c["noise_basis"], c["class"]), ("samples", "moderate"))
        self.assertAlmostEqual(c["noise_pct"], 0.474, places=3)
        self.assertEqual(c["text"], "moderate gain of 3.0% (noise 0.5% from the runs' samples)")
        self.assertFalse(c["worse"])
        # one side without samples: the floor, said
        self.assertEqual(classify(fig(10.0, 0.5, 20), fig(10.3))["text"],
                         "moderate gain of 3.0% (noise 2.0% the floor: no samples)")

    def test_floor_and_large_are_parameters(self):
        self.assertEqual(classify(fig(10.0), fig(9.5), floor=6.0)["class"], "noise")
        self.assertEqual(classify(fig(10.0), fig(9.5), large=4.0)["class"], "large")

    def test_other_parameters_are_not_comparable(self):
        c = classify(fig(10.0), fig(5.0, params_hash="p2", params='{"chunk": 4096}'))
        self.assertEqual(c["class"], "not comparable")
        self.assertEqual(c["text"], "not comparable: chunk 1MiB -> 4KiB")

    def test_a_zero_is_unknown(self):
        self.assertEqual(classify(fig(0.0), fig(5.0))["class"], "unknown")


class Inventory(unittest.TestCase):
    def test_flatten_names_every_leaf(self):
        self.assertEqual(flatten({"a": {"b": 1}, "c": [2, {"d": 3}]}),
                         {"a.b": 1, "c[0]": 2, "c[1].d": 3})

    def test_hash_ignores_when_and_where(self):
        a = {"host": "n1", "collected": "2026-01-01T00:00:00Z", "cpu": {"model": "X"}}
        b = dict(a, host="n2", collected="2026-02-02T00:00:00Z")
        self.assertEqual(inventory_hash(a), inventory_hash(b))
        self.assertNotEqual(inventory_hash(a), inventory_hash(dict(a, cpu={"model": "Y"})))

    def test_diff_names_the_changed_key_only(self):
        da = {"host": "n1", "rdma": {"mlx5_0": {"fw_ver": "28.39.1002", "ports": 1}}}
        db = {"host": "n1", "rdma": {"mlx5_0": {"fw_ver": "28.41.1000", "ports": 1}}}
        ia = {"n1": {"hash": "a", "data": json.dumps(da)}, "n2": {"hash": "x", "data": "{}"}}
        ib = {"n1": {"hash": "b", "data": json.dumps(db)}, "n2": {"hash": "x", "data": "{}"},
              "n3": {"hash": "c", "data": "{}"}}
        self.assertEqual(inventory_diff(ia, ib), {
            "n1": ['rdma.mlx5_0.fw_ver: "28.39.1002" -> "28.41.1000"'], "n2": [], "n3": None})


class Metrics(unittest.TestCase):
    def test_iops_and_p99_compared_latency_lower_is_better(self):
        a = dict(fig(0.08), metrics=json.dumps({"iops": 20000.0, "lat_p99_us": 5000.0}))
        b = dict(fig(0.06), metrics=json.dumps({"iops": 15000.0, "lat_p99_us": 8000.0,
                                                "lat_p50_us": 1.0}))
        rows = {r["metric"]: r for r in metric_rows(a, b, 2.0, 10.0)}
        self.assertEqual(sorted(rows), ["iops", "lat_p99_us"])  # only what both have
        self.assertEqual(rows["iops"]["text"],
                         "large drop of 25.0% (noise 2.0% the floor: no samples)")
        self.assertTrue(rows["iops"]["worse"])
        self.assertEqual(rows["lat_p99_us"]["text"],
                         "large rise of 60.0% (noise 2.0% the floor: no samples)")
        self.assertTrue(rows["lat_p99_us"]["worse"])

    def test_the_same_bytes_share_one_band(self):
        # issue 62.4: two nvme_read_bw runs, GB/s and IOPS of the same bytes both 10% down;
        # the GB/s samples' band (cv 12.87% of 4 samples: 27.3%) judges both, so neither
        # is a drop; the latency (no samples kept) has the floor, said.
        a = dict(fig(2.0, 12.87, 4), metrics=json.dumps({
            "iops": 488281.0, "cpu_us_per_io": 2.0, "lat_p99_us": 100.0}))
        b = dict(fig(1.8, 12.87, 4), metrics=json.dumps({
            "iops": 439453.0, "cpu_us_per_io": 2.2, "lat_p99_us": 101.0}))
        g = classify(a, b)
        self.assertEqual(g["text"], "within noise (-10.0%, noise 27.3% from the runs' samples)")
        rows = {r["metric"]: r for r in metric_rows(a, b, 2.0, 10.0)}
        self.assertEqual(rows["iops"]["text"],
                         "within noise (-10.0%, noise 27.3% from the runs' samples)")
        self.assertEqual((rows["iops"]["noise_pct"], rows["iops"]["noise_basis"]),
                         (g["noise_pct"], "samples"))
        self.assertEqual(rows["cpu_us_per_io"]["text"],
                         "within noise (+10.0%, noise 27.3% from the runs' samples)")
        self.assertEqual(rows["lat_p99_us"]["text"],
                         "within noise (+1.0%, noise 2.0% the floor: no samples)")
        st = FakeStore({"A": [dict(a, rung="read", node="a", drive=None)],
                        "B": [dict(b, rung="read", node="a", drive=None)]})
        doc = compare(st, run("A", 1), run("B", 2), 2.0, 10.0)
        self.assertEqual((doc["worse"], doc["summary"][0]), (0, "no change beyond noise"))

    def test_parameters_in_units(self):
        self.assertEqual([in_units("chunk", v) for v in (1048576, 4096, 65536, 1000, 3 << 30)],
                         ["1MiB", "4KiB", "64KiB", "1000B", "3GiB"])
        self.assertEqual(in_units("threads", 4096), "4096")



if __name__ == "__main__":
    unittest.main()


class FakeStore:
    """What compare() asks of a store: two runs' figures, no inventory, no marks."""

    def __init__(self, figs):
        self.figs = figs

    def figures(self, run):
        return self.figs[run]

    def inventories(self, run):
        return {}

    def runs(self):
        return []


def run(uuid, seq):
    return {"uuid": uuid, "seq": seq, "started": "2026-02-0%dT10:00:00Z" % seq,
            "finished": None, "mode": None, "note": None, "change_starts": 0,
            "params_hash": "p", "suite_version": None, "exit_status": None, "hosts": "[]",
            "commands": "[]"}


def row(rung, gb, metrics=None):
    return dict(fig(gb), rung=rung, node="a", drive=None, metrics=json.dumps(metrics or {}))


class Headline(unittest.TestCase):
    def test_the_worst_drop_first_though_a_gain_is_larger(self):
        st = FakeStore({
            "A": [row("link", 10.0), row("read", 10.0, {"lat_p99_us": 100.0})],
            "B": [row("link", 14.0), row("read", 9.0, {"lat_p99_us": 150.0})]})
        doc = compare(st, run("A", 1), run("B", 2), 2.0, 10.0)
        self.assertEqual(doc["worse"], 2)
        self.assertEqual(doc["summary"][:3], [
            "large rise of 50.0% (noise 2.0% the floor: no samples) (read: lat_p99_us on a)",
            "2 figures worse beyond noise; the next: large drop of 10.0% (noise 2.0% the "
            "floor: no samples) (read on a)",
            "better: large gain of 40.0% (noise 2.0% the floor: no samples) (link on a)"])
        self.assertEqual((doc["worst"]["metric"], doc["worst"]["worse"]), ("lat_p99_us", True))

    def test_a_gain_alone_is_not_worse(self):
        st = FakeStore({"A": [row("link", 10.0)], "B": [row("link", 14.0)]})
        doc = compare(st, run("A", 1), run("B", 2), 2.0, 10.0)
        self.assertEqual((doc["worse"], doc["summary"][0]), (
            0, "large gain of 40.0% (noise 2.0% the floor: no samples) (link on a)"))
