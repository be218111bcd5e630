"""nbw-results compare at fleet size (and nbw-fleet's probe evidence never "None"): two recorded sweeps of 16 nodes (fleetgen), the
second with one drive and one rail slowed: the summary per kind of part, --changes-only
and --worst N; list and compare name the nodes in their natural order (n1 .. n16)."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from fleetgen import Fleet
from nbw.fleet.judge import link_words, probe_evidence
from nbw.names import natural
from nbw.results import cli

NAMES = ["n%d" % i for i in range(1, 17)]


def nr(*argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = cli.main(list(argv))
    return rc, out.getvalue()


class Changes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        top = cls.tmp.name
        cls.db = os.path.join(top, "db")
        Fleet(16, 2, 2, pairs="auto", seed=3, names=NAMES).write(os.path.join(top, "s1"))
        Fleet(16, 2, 2, pairs="auto", seed=3, names=NAMES, slow_drives=[("n12", 1, 0.5)],
              slow_rails=[("n3", 1, 0.6)]).write(os.path.join(top, "s2"))
        for s in ("s1", "s2"):
            assert nr("--db", cls.db, "record", os.path.join(top, s))[0] == 0

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_natural_order(self):
        self.assertEqual(natural(["n10", "n9", "n100", "n1"]), ["n1", "n9", "n10", "n100"])
        rc, out = nr("--db", self.db, "list")
        self.assertIn("16 nodes (n1 .. n16)", out)
        rc, out = nr("--db", self.db, "--json", "compare", "latest~1", "latest")
        nodes = [r["node"] for r in json.loads(out)["figures"] if r["rung"] == "fleet drive"]
        self.assertEqual(nodes, natural(nodes))
        self.assertEqual(nodes[:4], ["n1", "n1", "n2", "n2"])

    def test_kinds_at_fleet_size_worst_first(self):
        rc, out = nr("--db", self.db, "compare", "latest~1", "latest")
        self.assertEqual(rc, 3)
        self.assertIn("16 nodes: ", out)
        self.assertNotIn("within noise", out)  # no line per unchanged figure
        kinds = out.split("by kind of part, the worst first:\n")[1].split("\n\n")[0]
        rows = [l.split() for l in kinds.splitlines()[1:]]
        self.assertEqual(rows[0][:2] + rows[0][-3:], ["fleet", "drive", "-50.0%", "on", "n12"])
        self.assertEqual(rows[1][:2] + rows[1][-3:], ["fleet", "rail", "-40.0%", "on", "n3"])

    def test_changes_only_and_worst(self):
        rc, out = nr("--db", self.db, "--json", "compare", "--changes-only", "latest~1",
                     "latest")
        doc = json.loads(out)
        changed = doc["figures"] + doc["metrics"]
        self.assertEqual(len(changed), doc["changed"])
        self.assertTrue(changed and all(r["class"] != "noise" for r in changed))
        rc, out = nr("--db", self.db, "--json", "compare", "--worst", "2", "latest~1", "latest")
        doc = json.loads(out)
        self.assertEqual([(r["rung"], r["node"]) for r in doc["figures"]],
                         [("fleet drive", "n12"), ("fleet rail 1", "n3")])
        self.assertEqual(rc, 3)
        rc, out = nr("--db", self.db, "compare", "--worst", "1", "latest~1", "latest")
        self.assertIn("the 1 worst changes, the worst first:\n  large drop of 50.0%", out)
        self.assertEqual(nr("--db", self.db, "compare", "--worst", "0", "latest~1",
                            "latest")[0], 2)


class NoNone(unittest.TestCase):
    def test_a_link_the_probe_did_not_give_is_unknown(self):
        self.assertEqual(probe_evidence({"verdict": "ok", "link": {}})["link"],
                         "unknown of unknown")
        self.assertEqual(probe_evidence({"link": {"speed_gts": 8.0, "width": 2,
                                                  "max_speed_gts": 8.0}})["link"],
                         "8.0 GT/s x2 of 8.0 GT/s x?")
        self.assertNotIn("None", link_words(None, 4) + link_words(16.0, None))


if __name__ == "__main__":
    unittest.main()
