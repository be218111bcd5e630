"""nbw.benchremote: bench_remote.sh's figures and ratios."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.benchremote import (figures, gbit, lowest, median, per_write, rail_shares, ratio,
                             strace_calls, value, walk)


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


    def test_median_of_the_rounds(self):
        self.assertEqual(median([0.5, None, 0.7, 0.6]), "0.6000")
        self.assertEqual(median([0.5, 0.7]), "0.6000")
        self.assertEqual(median([None]), "-")


class Strace(unittest.TestCase):
    TEXT = """% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ------------------
 60.00    0.600000          30     20000           write
 30.00    0.300000          30     10000           poll
  9.00    0.090000          30      3000         5 read
  1.00    0.010000          10        40           mmap
------ ----------- ----------- --------- --------- ------------------
100.00    1.000000          30     33040         5 total
"""

    def test_calls_out_of_the_table(self):
        self.assertEqual(strace_calls(self.TEXT),
                         {"write": 20000, "poll": 10000, "read": 3000, "mmap": 40})

    def test_per_write_total_and_the_frequent_calls(self):
        self.assertEqual(per_write(strace_calls(self.TEXT), 10000),
                         "3.30 (write 2.00, poll 1.00, read 0.30)")
        self.assertEqual(per_write({"write": 5}, 0), "-")


if __name__ == "__main__":
    unittest.main()
