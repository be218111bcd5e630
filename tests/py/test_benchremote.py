"""nbw.benchremote: bench_remote.sh's figures and ratios."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.benchremote import figures, gbit, lowest, rail_shares, ratio, value, walk


class Figures(unittest.TestCase):
    def test_walk_keys_and_indexes_and_fails_on_a_missing_step(self):
        doc = {"drives": [{"gb_per_s": 2.5}], "rdma": {"gb_per_s": None}}
        self.assertEqual(walk(doc, "drives.0.gb_per_s"), 2.5)
        with self.assertRaises(KeyError):
            walk(doc, "total.gb_per_s")
        with self.assertRaises(IndexError):
            walk(doc, "drives.1.gb_per_s")

    def test_value_rounds_after_dividing(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.json")
            with open(p, "w") as f:
                json.dump({"total": {"writes_per_s": 1234567}, "verify": "pass"}, f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                value(p, "total.writes_per_s", "4", "1e6")
                value(p, "verify")
            self.assertEqual(out.getvalue(), "1.2346\npass\n")

    def test_rail_shares(self):
        doc = {"rdma": {"bytes": 300}, "rails": [{"local_dev": "rxe0", "bytes": 100},
                                                 {"local_dev": "rxe1", "bytes": 200}]}
        self.assertEqual(rail_shares(doc), "rxe0:33% rxe1:67%")

    def test_ratios(self):
        self.assertEqual(figures(["1.5", "", "-"]), [1.5, None, None])
        self.assertEqual(ratio(1.0, 3.0), "0.333")
        self.assertEqual(ratio(1.0, 0.0), "-")
        self.assertEqual(ratio(None, 3.0), "-")
        self.assertEqual(gbit(1.5), "12.0000")
        self.assertEqual(gbit(None), "-")
        self.assertEqual(lowest([3.0, None, 2.5]), "2.5000")
        self.assertEqual(lowest([None, None]), "-")


if __name__ == "__main__":
    unittest.main()
