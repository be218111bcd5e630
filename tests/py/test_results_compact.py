"""A fleet sweep's compact record line (nbw.results.compact, format 2): two sweeps of
64 nodes (8 rails, 8 drives, the tools' provenance blocks) recorded compact, the same
record rewritten in the plain form (format 1, as nbw-results wrote it before), and
every reader (list, show, show --node, compare, check, trend, reference, export
--csv/--json/--openmetrics, the HTML report) asked the same of both: the same answer,
word for word. The compact line is a fraction of the plain one; a compact line that
does not decode is skipped with why, never read in part."""
import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

import nbwpath  # noqa: F401
from fleetgen import Fleet
from nbw.jsonutil import canon
from nbw.results import cli, compact, store

T0 = 1790000000  # 2026-09-21T14:13:20Z


class Compact(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = tempfile.mkdtemp(prefix="results-compact.")
        cls.old_env = {k: os.environ.get(k) for k in ("NBW_RESULTS_TEST_FSTYPE", "NBW_RESULTS",
                                                      "NBW_RESULTS_INDEX")}
        os.environ["NBW_RESULTS_TEST_FSTYPE"] = "ext4"
        os.environ.pop("NBW_RESULTS", None)
        os.environ.pop("NBW_RESULTS_INDEX", None)
        names = ["n%d" % i for i in range(1, 65)]
        cls.new, cls.old = os.path.join(cls.base, "new"), os.path.join(cls.base, "old")
        for day, slow in ((1, 0.5), (2, 0.45)):
            top = os.path.join(cls.base, "s%d" % day)
            Fleet(64, rails=8, drives=8, pairs=2, seed=1, names=names,
                  provenance=T0 + day * 86400, slow_drives=[("n42", 1, slow)]).write(top)
            cls.nbr(cls.new, "record", top)
        cls.nbr(cls.new, "reference", "set", "latest", "latest~1")
        os.makedirs(cls.old)
        with open(os.path.join(cls.new, "runs.jsonl"), "rb") as f:
            cls.lines = f.read().splitlines()
        with open(os.path.join(cls.old, "runs.jsonl"), "wb") as f:
            for raw in cls.lines:
                e = json.loads(raw)
                if e.get("format") == compact.FORMAT:
                    e = dict(store.parse_line(raw)[0], format=1)  # the plain form
                f.write(canon(e).encode() + b"\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base)
        for k, v in cls.old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    @staticmethod
    def nbr(db, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main(["--db", db] + list(argv))
        return rc, out.getvalue().replace(db, "DB"), err.getvalue().replace(db, "DB")

    def same(self, *argv):
        """The answer of both records to argv, asserted the same; returned."""
        a, b = self.nbr(self.new, *argv), self.nbr(self.old, *argv)
        self.assertEqual(a, b, argv)
        return a

    def test_the_lines(self):
        runs = [json.loads(x) for x in self.lines if b'"kind":"run"' in x]
        self.assertEqual([e["format"] for e in runs], [2, 2])
        self.assertNotIn("figures", runs[0])
        with open(os.path.join(self.old, "runs.jsonl"), "rb") as f:
            old = f.read().splitlines()
        # 64 nodes of 8 drives, 8 rails: 18 figures each, each node's provenance
        self.assertEqual(len(store.parse_line(old[0])[0]["figures"]), 64 * 18)
        self.assertLess(len(self.lines[0]) * 4, len(old[0]))
        kinds = runs[0]["figure_table"]
        self.assertEqual([k["rung"] for k in kinds][:3], ["fleet drive", "fleet drives together",
                                                          "fleet rail 0"])
        self.assertIn("params", kinds[0]["same"])  # said once per rung, not per figure
        # a rail's part: its port's model said once, each figure's own ratio in its row
        part = [c for c in kinds[2]["columns"] if c["name"] == "part"][0]
        self.assertEqual((part["how"], part["same"]), ("object", {
            "key": "port MT_0000000838 at 50 GB/s"}))
        nodes = runs[0]["node_table"]
        self.assertEqual((nodes["same"]["kernel"], len(nodes["rows"])), ("6.1.0-18-amd64", 64))

    def test_every_reader_the_same(self):
        rc, out, _ = self.same("list")
        self.assertEqual(rc, 0)
        self.assertIn("64 nodes (n1 .. n64)", out)
        rc, out, _ = self.same("show", "latest")
        self.assertIn("n42", out)
        self.same("show", "latest", "--json")
        rc, out, _ = self.same("show", "latest", "--node", "n42")
        self.assertIn("Sn4201", out)  # its drive's serial, from the node's table
        self.same("show", "latest", "--node", "n42", "--json")
        self.same("compare", "latest~1", "latest")
        self.same("compare", "latest~1", "latest", "--json")
        rc, out, _ = self.same("check", "latest")
        self.assertEqual(rc, 3)
        self.same("check", "latest", "--json")
        rc, out, _ = self.same("trend", "fleet drive", "--json")
        self.assertEqual([r["count"] for r in json.loads(out)["spread"]], [512, 512])
        rc, out, _ = self.same("export", "--csv")
        self.assertEqual(len(out.splitlines()), 1 + 2 * 64 * 18)
        self.same("export", "--json")
        self.same("export", "--openmetrics")
        # a reference of its own id and time each, the same entries
        docs = [json.loads(self.nbr(db, "reference", "set", "latest", "latest~1", "--json")[1])
                for db in (self.new, self.old)]
        for d in docs:
            self.assertEqual(d.pop("uuid") != "", d.pop("set_at") != "")
        self.assertEqual(docs[0], docs[1])
        self.assertIn("n42", canon(docs[0]))

    def test_the_report_the_same(self):
        pages = []
        for db in (self.new, self.old):
            out = os.path.join(self.base, "r.html")
            rc, _, err = self.nbr(db, "report", "latest", "--out", out)
            self.assertEqual(rc, 0, err)
            with open(out) as f:
                pages.append(f.read().replace(db, "DB"))
        self.assertEqual(pages[0], pages[1])
        self.assertIn("n42", pages[0])

    def test_a_line_that_does_not_decode_is_skipped(self):
        e = json.loads(self.lines[0])
        e["figure_table"][0]["rows"][0][0] = 10 ** 6  # an index past the values
        entry, why = store.parse_line(canon(e).encode())
        self.assertIsNone(entry)
        self.assertRegex(why, r"^a compact run line that does not decode \(a value index "
                              r"1000000 out of range\)$")
        e = json.loads(self.lines[0])
        e["node_table"]["rows"][3] = e["node_table"]["rows"][3][:-1]
        self.assertRegex(store.parse_line(canon(e).encode())[1], "a row of [0-9]+ values")
        # one value of 1 MiB named by 300 figures: 300 MiB read back, refused unread
        e = {"kind": "run", "uuid": "u", "format": 2, "values": ["x" * (1 << 20)],
             "figure_table": [{"rung": "r", "same": {}, "columns": [{"name": "v", "how": "value"}],
                               "rows": [[0]] * 300}]}
        self.assertEqual(store.parse_line(canon(e).encode())[1], "a compact run line that does "
                         "not decode (it reads back into more than 256 MiB)")
        e["figure_table"][0]["rows"] = [[0]] * 200
        self.assertEqual(len(store.parse_line(canon(e).encode())[0]["figures"]), 200)

    def test_round_trip_of_odd_figures(self):
        figs = [{"rung": "a", "node": "x", "v": 1}, {"rung": "a", "node": "y", "v": True},
                {"rung": "a", "node": "y", "v": -0.0}, {"rung": "a", "node": "y", "v": 0.0},
                {"rung": "a", "node": "y", "v": 1.0}, {"rung": "a", "node": "y"},
                {"rung": "b", "node": "x", "v": [{"s": 1, "m": "M"}, {"s": 2, "m": "M"}]},
                {"rung": "a", "node": "z", "v": None}]
        figs += [{"rung": "c", "node": "n%d" % i, "o": {"k": "K", "r": i / 3.0}} for i in range(9)]
        e = {"kind": "run", "uuid": "u", "mode": "fleet", "figures": figs,
             "provenance": {"sweep": {"a": 1}, "node x": {"node": "x", "k": "K"}}}
        back = store.parse_line(canon(compact.encode(e)).encode())[0]
        self.assertEqual(canon((back["figures"], back["provenance"])),
                         canon((figs, e["provenance"])))


if __name__ == "__main__":
    unittest.main()
