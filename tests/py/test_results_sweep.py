"""A fleet sweep recorded as its nodes' records (nbw.results.fleet, sweep_nodes,
sweep_show, verbs_ref), driven through nbw-results' main() on sweeps fleetgen writes
with the tools' provenance blocks: each node's host, kernel, build, drives and ports
read back; the sweep's real command line and its documents' dates; a node whose
document is missing, truncated, duplicated or from another sweep NOT MEASURED with
why; a reference by model confirmed by two sweeps with a SUSPECT node left out; and a
check that counts and lists what it could not check and exits 5 for it."""
import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

import nbwpath  # noqa: F401
from fleetgen import Fleet
from nbw.results import cli

T0 = 1790000000  # 2026-09-21T14:13:20Z: the fake sweeps' first window
FIGS_PER_NODE = 6  # 2 drives, their together, 2 rails, drive->remote


def names(n):
    return ["n%d" % i for i in range(1, n + 1)]


class Sweeps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = tempfile.mkdtemp(prefix="results-sweep.")
        cls.s64 = cls.gen("s64", 64, 1, slow_drives=[("n42", 1, 0.5)])
        cls.s64b = cls.gen("s64b", 64, 2, slow_drives=[("n42", 1, 0.5)])
        cls.s96 = cls.gen("s96", 96, 3, second_model=["n90"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base)

    @classmethod
    def gen(cls, name, n, day, **faults):
        """A sweep of n nodes, its windows day days after T0 (one seed: comparable)."""
        top = os.path.join(cls.base, name)
        Fleet(n, rails=2, drives=2, pairs=2, seed=1, names=names(n),
              provenance=T0 + day * 86400, **faults).write(top)
        return top

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="results-sweep-db.")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.db = os.path.join(self.tmp, "db")
        for k, v in (("NBW_RESULTS_TEST_FSTYPE", "ext4"), ("NBW_RESULTS", None),
                     ("NBW_RESULTS_INDEX", None)):
            old = os.environ.get(k)
            self.addCleanup(lambda k=k, old=old: os.environ.pop(k, None) if old is None
                            else os.environ.__setitem__(k, old))
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def nr(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main(["--db", self.db] + list(argv))
        return rc, out.getvalue(), err.getvalue()

    def js(self, *argv):
        rc, out, err = self.nr(*(argv + ("--json",)))
        return rc, json.loads(out), err

    def copy(self, src):
        dst = os.path.join(self.tmp, "sweep")
        shutil.copytree(src, dst)
        return dst

    # -- item 1: a sweep's record is its nodes' records ---------------------------------
    def test_64_nodes_recorded_each_nodes_provenance_read_back(self):
        rc, out, err = self.nr("record", self.s64)
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"^recorded [0-9a-f-]+: %d figures of 64 nodes, provenance "
                         r"of 64, in " % (64 * FIGS_PER_NODE))
        rc, doc, _ = self.js("show", "latest", "--node", "n42")
        node = doc["node"]
        self.assertEqual((node["host"], node["kernel"], node["suite_build"], node["verdict"]),
                         ("n42", "6.1.0-18-amd64", "g1234abc", "SUSPECT"))
        self.assertEqual([(d["path"], d["model"], d["firmware"], d["serial"])
                          for d in node["drives"]],
                         [("/dev/nvme0n1", "ACME NVMe 3", "1.4", "Sn4200"),
                          ("/dev/nvme1n1", "ACME NVMe 3", "1.4", "Sn4201")])
        self.assertEqual([(p["device"], p["board_id"]) for p in node["rdma_ports"]],
                         [("mlx5_0", "MT_0000000838"), ("mlx5_1", "MT_0000000838")])
        self.assertEqual({f["node"] for f in doc["figures"]}, {"n42"})
        self.assertEqual(len(doc["figures"]), FIGS_PER_NODE)
        # every node's provenance, its own host
        rc, doc, _ = self.js("show", "latest")
        hosts = {k[5:]: v["host"] for k, v in doc["provenance"].items()
                 if k.startswith("node ")}
        self.assertEqual(hosts, {n: n for n in names(64)})
        # the real command line (hostfile, rails, settings) and the documents' dates
        self.assertEqual(doc["commands"][0], "CHUNK=1M THREADS=12 nbw-fleet run --hostfile "
                         "hosts.txt --rail-devs mlx5_0,mlx5_1 --pairs 2 --seed 1 --out sweep")
        self.assertEqual(doc["start"], "2026-09-22T14:13:20Z")  # T0 + a day: no file's time
        self.assertEqual(doc["provenance"]["sweep"]["dated_by"], "the documents' windows")
        self.assertEqual(doc["provenance"]["sweep"]["plan"]["nodes"], 64)
        _, text, _ = self.nr("show", "latest", "--node", "n42")
        self.assertIn("node n42: SUSPECT, host n42, kernel 6.1.0-18-amd64, build g1234abc",
                      text)
        self.assertIn("nvme1n1 ACME NVMe 3 firmware 1.4 serial Sn4201", text)

    def test_recorded_twice_refused(self):
        self.assertEqual(self.nr("record", self.s64)[0], 0)
        rc, _, err = self.nr("record", self.s64)
        self.assertEqual(rc, 1)
        self.assertIn("is recorded already", err)

    def test_documents_without_provenance_said_per_node(self):
        top = os.path.join(self.tmp, "old")
        Fleet(8, rails=2, drives=2, pairs=2, names=names(8)).write(top)
        rc, out, _ = self.nr("record", top)
        self.assertEqual(rc, 0)
        self.assertIn("provenance of 0; without provenance: n1,n2,n3,n4,n5,n6,n7,n8", out)
        _, text, _ = self.nr("show", "latest", "--node", "n3")
        self.assertIn("node n3: PASS, no provenance: none of its", text)

    def test_a_nodes_words_are_data(self):
        """A drive model with a newline and a lone surrogate: recorded, one line of show."""
        top = self.copy(self.s64)
        p = os.path.join(top, "nodes/n11/read.json")
        with open(p) as f:
            doc = json.load(f)
        doc["provenance"]["drives"][0]["model"] = "ACME\nFAILED: \udc80"
        with open(p, "w") as f:
            json.dump(doc, f)
        rc, _, err = self.nr("record", top)
        self.assertEqual(rc, 0, err)
        _, text, _ = self.nr("show", "latest", "--node", "n11")
        self.assertFalse([l for l in text.splitlines() if l.startswith("FAILED")])
        self.assertIn("nvme0n1 ACME\\x0aFAILED: \\udc80 firmware 1.4", text)

    # -- bad input: that node NOT MEASURED, with why --------------------------------------
    def bad(self, spoil):
        top = self.copy(self.s64)
        spoil(top)
        rc, doc, err = self.js("record", top)
        self.assertEqual(rc, 0, err)
        nm = {x["node"]: x["reason"] for x in doc["not_measured"]}
        _, show, _ = self.js("show", "latest")
        figs = {f["node"] for f in show["figures"]}
        return nm, figs, err

    def test_missing_document(self):
        nm, figs, err = self.bad(lambda t: os.unlink(os.path.join(t, "nodes/n5/read.json")))
        self.assertEqual(nm, {"n5": "nodes/n5/read.json: missing: no file, and the run "
                                    "named no failure of it"})
        self.assertNotIn("n5", figs)
        self.assertIn("n5: NOT MEASURED", err)

    def test_truncated_document(self):
        def cut(t):
            p = os.path.join(t, "nodes/n6/read.json")
            with open(p, "rb") as f:
                data = f.read()
            with open(p, "wb") as f:
                f.write(data[:len(data) // 2])
        nm, figs, _ = self.bad(cut)
        self.assertEqual(list(nm), ["n6"])
        self.assertRegex(nm["n6"], r"^nodes/n6/read.json: not JSON.*truncated")
        self.assertNotIn("n6", figs)

    def test_duplicated_document(self):
        def twice(t):  # the same document again, as if n7's drives were read again
            os.makedirs(os.path.join(t, "isolate/nodes/n7"), exist_ok=True)
            shutil.copy(os.path.join(t, "nodes/n7/read.json"),
                        os.path.join(t, "isolate/nodes/n7/read.json"))
        nm, figs, _ = self.bad(twice)
        self.assertEqual(list(nm), ["n7"])
        self.assertRegex(nm["n7"], r"duplicated: the same document \(run id [0-9a-f-]+\) as ")
        self.assertNotIn("n7", figs)

    def test_another_nodes_copy(self):
        nm, figs, _ = self.bad(lambda t: shutil.copy(os.path.join(t, "nodes/n8/read.json"),
                                                     os.path.join(t, "nodes/n9/read.json")))
        self.assertEqual(nm, {"n9": "nodes/n9/read.json: made on host n8, not n9: another "
                                    "node's document"})
        self.assertIn("n8", figs)
        self.assertNotIn("n9", figs)

    def test_document_of_another_sweep(self):
        nm, figs, _ = self.bad(lambda t: shutil.copy(
            os.path.join(self.s64b, "nodes/n10/read.json"),
            os.path.join(t, "nodes/n10/read.json")))
        self.assertEqual(list(nm), ["n10"])
        self.assertRegex(nm["n10"], r"^nodes/n10/read.json: from another sweep: run id "
                         r"[0-9a-f-]+, the run kept [0-9a-f-]+$")
        self.assertNotIn("n10", figs)

    # -- item 2: references by model, confirmed -------------------------------------------
    def test_reference_by_model_leaves_the_suspect_node_out(self):
        for s in (self.s64, self.s64b):
            self.assertEqual(self.nr("record", s)[0], 0)
        rc, _, err = self.nr("reference", "set", "latest")
        self.assertEqual(rc, 2)
        self.assertIn("one run is a single measurement", err)
        rc, out, _ = self.nr("reference", "set", "latest", "latest~1")
        self.assertEqual(rc, 0)
        self.assertIn("reference by model from 2 runs", out)
        self.assertRegex(out, r"left out \(.*\): n42 \(SUSPECT in run [0-9a-f]{8}\)")
        with open(os.path.join(self.db, "runs.jsonl")) as f:
            ref = json.loads(f.read().splitlines()[-1])
        self.assertEqual((ref["by"], ref["single"], [x["node"] for x in ref["left_out"]]),
                         ("model", False, ["n42"]))
        drive = [e for e in ref["entries"] if e["rung"] == "fleet drive"]
        self.assertEqual([(e["part"], e["runs"], e["parts"]) for e in drive],
                         [("drive ACME NVMe 3, firmware 1.4", 2, 126)])
        self.assertAlmostEqual(drive[0]["ref"], 3.57, delta=0.08)
        self.assertEqual(sorted({(e["rung"], e["part"]) for e in ref["entries"]
                                 if e["rung"].startswith("fleet rail")}),
                         [("fleet rail 0", "port MT_0000000838 at 50 GB/s"),
                          ("fleet rail 1", "port MT_0000000838 at 50 GB/s")])
        # n42's slow drive is checked against its model's reference: outside
        rc, doc, _ = self.js("check", "latest")
        self.assertEqual(rc, 3)
        low = [(x["node"], x["drive"]) for x in doc["figures"] if x["worse"] and
               x["rung"] == "fleet drive"]
        self.assertEqual(low, [("n42", "nvme1n1")])

    def test_single_run_reference_said(self):
        self.nr("record", self.s64)
        rc, out, _ = self.nr("reference", "set", "latest", "--single", "--by", "node")
        self.assertEqual(rc, 0)
        self.assertIn("from one run", out)
        self.assertIn("--single: a single measurement, unconfirmed", out)
        self.assertIn("n42 (SUSPECT", out)

    # -- item 3: a check says what it did not check ---------------------------------------
    def test_larger_sweep_against_smaller_reference_exits_unchecked(self):
        for s in (self.s64, self.s64b):
            self.nr("record", s)
        self.nr("reference", "set", "latest", "latest~1", "--by", "node")
        self.nr("record", self.s96)
        junit = os.path.join(self.tmp, "check.xml")
        rc, out, _ = self.nr("check", "latest", "--junit", junit)
        self.assertEqual(rc, 5)
        unchecked = 32 * FIGS_PER_NODE + FIGS_PER_NODE  # n65..n96, and n42 left out
        checked = 63 * FIGS_PER_NODE
        self.assertIn("%d checked, " % checked, out)
        self.assertIn(", %d no reference, 0 not comparable" % unchecked, out)
        self.assertIn("  not checked: fleet drive on n42, nvme0n1: gb_per_s: no reference "
                      "for its model (drive ACME NVMe 3, firmware 1.4) nor its node", out)
        self.assertLess(out.index("outside their reference"), out.index("not checked:"))
        with open(junit) as f:
            xml = f.read()
        self.assertIn('skipped="%d"' % unchecked, xml)
        self.assertIn("no reference for its model", xml)
        rc, doc, _ = self.js("check", "latest", "--allow-unchecked")
        self.assertEqual((rc, doc["no_reference"], len(doc["unchecked"])),
                         (0 if not doc["outside"] else 3, unchecked, unchecked))

    def test_model_reference_checks_the_larger_sweep_but_another_model(self):
        for s in (self.s64, self.s64b):
            self.nr("record", s)
        self.nr("reference", "set", "latest", "latest~1")
        self.nr("record", self.s96)
        rc, doc, _ = self.js("check", "latest")
        unchecked = sorted({x["node"] for x in doc["unchecked"]})
        self.assertEqual(unchecked, ["n90"])  # another drive model: no reference of its own
        self.assertEqual(rc, 5)

    def test_no_reference_at_all_exits_unchecked(self):
        self.nr("record", self.s64)
        rc, out, err = self.nr("check", "latest")
        self.assertEqual(rc, 5)
        self.assertIn("no reference applies to this run", err)
        self.assertIn("0 checked, 0 outside, %d no reference" % (64 * FIGS_PER_NODE), out)
        rc, _, _ = self.nr("check", "latest", "--allow-unchecked")
        self.assertEqual(rc, 5)  # nothing checked is never a pass


if __name__ == "__main__":
    unittest.main()
