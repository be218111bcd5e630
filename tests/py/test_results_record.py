"""nbw-results record against a compromised node (nbw.results.record, store, verbs):
what one node says is data, never a line of show, never the date of the others'
figures (a window in 2001, in the future, never set), never a number JSON has no word
for, never a record line its reader refuses (two documents of 9 MiB); driven through
the command line's main() on documents made here, each with its provenance block."""
import contextlib
import datetime
import hashlib
import io
import json
import os
import shutil
import tempfile
import time
import unittest

import nbwpath  # noqa: F401
from nbw.results import cli
from nbw.results.base import MAX_DOC

NOW = int(time.time()) - 3600  # a window an hour before this host's clock
Y2001 = 978307200  # 2001-01-01T00:00:00Z: past the floor of a clock never set


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")


def read_doc(host, start, gb=3.5, **prov):
    """An nvme_read_bw document of one drive made on host, its window from start."""
    block = {"format": 1, "host": host, "run_id": None, "start": iso(start),
             "start_unix_s": start, "end": iso(start + 20), "end_unix_s": start + 20,
             "window_measured": True, "kernel": "6.1.0-18-amd64",
             "command": "nvme_read_bw --disks /dev/nvme0n1 --json", "suite_version": "0.1.0",
             "suite_build": "g0", "drives": [], "rdma_ports": []}
    block.update(prov)
    return {"tool": "nvme_read_bw", "version": "0.1.0", "provenance": block,
            "params": {"engine": "psync", "threads": 1, "chunk": 1048576},
            "drives": [{"path": "/dev/nvme0n1", "name": "nvme0n1", "gb_per_s": gb}],
            "total": {"gb_per_s": gb}, "interrupted": False}


class Record(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="results-record.")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.db = os.path.join(self.tmp, "db")
        env = {"NBW_RESULTS": self.db, "NBW_RESULTS_INDEX": None,
               "NBW_RESULTS_TEST_FSTYPE": "ext4", "NBW_RESULTS_TEST_CRASH_AFTER": None}
        for k, v in env.items():
            old = os.environ.get(k)
            self.addCleanup(lambda k=k, old=old: os.environ.pop(k, None) if old is None
                            else os.environ.__setitem__(k, old))
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def write(self, name, doc):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def nr(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main(list(argv))
        return rc, out.getvalue(), err.getvalue()

    def record_lines(self):
        with open(os.path.join(self.db, "runs.jsonl"), "rb") as f:
            return f.read().split(b"\n")[:-1]

    # -- provenance is data, not lines or dates to trust --------------------------------
    def test_newlines_in_provenance_never_lines_of_show(self):
        docs = [self.write("n1.json", read_doc("node-1", NOW)),
                self.write("n2.json", read_doc(
                    "node-2", NOW, kernel="6.1\nFAILED: node-1 is broken",
                    command="nvme_read_bw\nFAILED: forged\rFAILED: too"))]
        rc, out, err = self.nr("record", *docs)
        self.assertEqual((rc, err), (0, ""))
        rc, out, err = self.nr("show", "latest")
        self.assertEqual(rc, 0, err)
        self.assertEqual([x for x in out.split("\n") if "FAILED" in x and
                          not x.startswith(("command: ", "document "))], [])
        self.assertNotIn("\r", out)
        self.assertIn("kernel 6.1\\x0aFAILED: node-1 is broken,", out)
        self.assertIn("command: nvme_read_bw\\x0aFAILED: forged\\x0dFAILED: too\n", out)
        rc, out, err = self.nr("show", "--json", "latest")
        self.assertIsNone(json.loads(out)["failed"])

    def test_a_file_name_with_a_newline_is_no_line_of_record(self):
        bad = dict(read_doc("node-2", NOW), ok=False, error="lost\nFAILED: node-1")
        docs = [self.write("n1.json", read_doc("node-1", NOW)),
                self.write("n2\nrecorded all: fine.json", bad)]
        rc, out, err = self.nr("record", *docs)
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(out.splitlines()), 1, out)
        self.assertIn("(n2\\x0arecorded all: fine.json: ok: false (lost\\x0aFAILED: node-1))",
                      out)

    def test_a_node_dating_its_window_2001_dates_nothing_of_the_others(self):
        docs = [self.write("n%d.json" % i, read_doc("node-%d" % i, NOW + i)) for i in (1, 3)]
        docs.append(self.write("n2.json", read_doc("node-2", Y2001)))
        rc, out, err = self.nr("record", *docs)
        self.assertEqual(rc, 0, err)
        self.assertRegex(err, r"n2\.json: its window \(2001-01-01T00:00:00Z\) is [0-9]+ days "
                         r"from the other documents': flagged, not the run's date\n$")
        rc, out, err = self.nr("show", "--json", "latest")
        run = json.loads(out)
        self.assertEqual((run["start"], run["end"]), (iso(NOW + 1)[:19] + "Z",
                                                      iso(NOW + 23)[:19] + "Z"))
        self.assertEqual({k: v.get("clock_far_from_run") for k, v in run["provenance"].items()},
                         {"n1.json": None, "n2.json": True, "n3.json": None})
        self.assertEqual(sorted(f["node"] for f in run["figures"] if f["drive"] is None),
                         ["node-1", "node-2", "node-3"])  # its figures kept
        since = datetime.datetime.fromtimestamp(NOW - 86400, datetime.timezone.utc)
        rc, out, err = self.nr("list", "--json", "--since", since.strftime("%Y-%m-%d"))
        self.assertEqual(len(json.loads(out)), 1)
        rc, out, err = self.nr("export", "--openmetrics")
        self.assertIn('nbw_last_run_timestamp_seconds{node="node-1",rung="read"} %d\n'
                      % (NOW + 1), out)  # the healthy nodes' last run: not stale
        rc, out, err = self.nr("show", "latest")
        self.assertRegex(out, r"document n2\.json: node-2, 2001-01-01T00:00:00Z .. "
                         r"2001-01-01T00:00:20Z, .*: its clock far from the run's\n")

    def test_two_documents_apart_the_one_near_the_recorders_clock_dates_the_run(self):
        docs = [self.write("n2.json", read_doc("node-2", Y2001)),
                self.write("n1.json", read_doc("node-1", NOW))]
        rc, out, err = self.nr("record", *docs)
        self.assertEqual(rc, 0, err)
        self.assertIn("n2.json: its window", err)
        run = json.loads(self.nr("show", "--json", "latest")[1])
        self.assertEqual(run["start"], iso(NOW)[:19] + "Z")

    def test_a_clock_in_the_future_or_never_set_beside_others_is_flagged_not_refused(self):
        for bad, said in ((4070908800, r"its window ends 2099-01-01T00:00:20Z, [0-9]+ days "
                           r"after this host's clock: a clock far in the future"),
                          (86400, r"its window starts 1970-01-02T00:00:00Z: a clock that "
                           r"was never set")):
            docs = [self.write("n1.json", read_doc("node-1", NOW)),
                    self.write("n2.json", read_doc("node-2", bad)),
                    self.write("n3.json", read_doc("node-3", NOW + 5))]
            rc, out, err = self.nr("record", *docs)
            self.assertEqual(rc, 0, err)
            self.assertRegex(err, r"n2\.json: %s, flagged, not the run's date\n$" % said)
            run = json.loads(self.nr("show", "--json", "latest")[1])
            self.assertEqual((run["start"], run["end"]), (iso(NOW)[:19] + "Z",
                                                          iso(NOW + 25)[:19] + "Z"))
            self.assertEqual(sorted(f["node"] for f in run["figures"] if f["drive"] is None),
                             ["node-1", "node-2", "node-3"])
            self.assertTrue(run["provenance"]["n2.json"]["clock_far_from_run"])
        # alone, nothing dates it: refused as before
        rc, out, err = self.nr("record", self.write("n4.json", read_doc("node-4", 4070908800)))
        self.assertEqual(rc, 1)
        self.assertRegex(err, r"n4\.json: its window ends 2099-01-01T00:00:20Z, [0-9]+ days "
                         r"after this host's clock: a clock far in the future, refused\n$")

    def test_documents_that_agree_date_the_run_however_old(self):
        old = NOW - 400 * 86400  # a run recorded a year after it ran
        docs = [self.write("n%d.json" % i, read_doc("node-%d" % i, old + 3600 * i))
                for i in (1, 2)]
        rc, out, err = self.nr("record", *docs)
        self.assertEqual((rc, err), (0, ""))
        run = json.loads(self.nr("show", "--json", "latest")[1])
        self.assertEqual((run["start"], run["end"]), (iso(old + 3600)[:19] + "Z",
                                                      iso(old + 7220)[:19] + "Z"))

    # -- numbers that cannot crash -----------------------------------------------------
    def test_a_node_saying_infinity_and_numbers_where_objects_belong(self):
        bad = read_doc("node-2", NOW)
        bad["params"]["chunk"] = float("inf")
        bad["drives"][0]["gb_per_s"] = float("inf")
        bad["drives"].append(5)
        bad["total"] = 5
        bad["baseline"] = 5
        docs = [self.write("n1.json", read_doc("node-1", NOW)), self.write("n2.json", bad)]
        rc, out, err = self.nr("record", *docs)
        self.assertEqual((rc, err), (0, ""))
        line = self.record_lines()[0].decode()

        def refuse(c):
            raise ValueError("%s in the record line" % c)
        run = json.loads(line, parse_constant=refuse)  # plain JSON: no Infinity in it
        self.assertEqual(sorted((f["node"], f["drive"] or "-", f["gb_per_s"])
                                for f in run["figures"]),
                         [("node-1", "-", 3.5), ("node-1", "nvme0n1", 3.5)])
        rc, out, err = self.nr("show", "latest")
        self.assertEqual(rc, 0, err)

    # -- no record lost to one node's size -------------------------------------------
    def test_two_documents_of_9_mib_recorded_whole(self):
        pad = "x" * (9 << 20)
        docs = [self.write("n%d.json" % i, dict(read_doc("node-%d" % i, NOW - 600, gb=3 + i),
                                                 pad=pad)) for i in (1, 2)]
        rc, out, err = self.nr("record", *docs)
        self.assertEqual((rc, err), (0, ""))
        lines = self.record_lines()
        self.assertEqual(len(lines), 1)
        self.assertLessEqual(len(lines[0]), MAX_DOC)
        rc, out, err = self.nr("show", "--json", "latest")
        self.assertEqual(rc, 0, err)
        got = sorted((f["node"], f["gb_per_s"]) for f in json.loads(out)["figures"]
                     if f["drive"] is None)
        self.assertEqual(got, [("node-1", 4.0), ("node-2", 5.0)])
        # one document kept apart, whole, named in the line with its digest; the other
        # in the line
        docs = json.loads(lines[0])["documents"]
        apart = [v for v in docs.values() if "stored_apart" in v]
        self.assertEqual(len(apart), 1)
        self.assertEqual(sum(len(v.get("pad", "")) for v in docs.values()), 9 << 20)
        with open(os.path.join(self.db, apart[0]["stored_apart"]), "rb") as f:
            blob = f.read()
        self.assertEqual((len(blob), hashlib.sha256(blob).hexdigest()),
                         (apart[0]["bytes"], apart[0]["sha256"]))
        self.assertEqual(len(json.loads(blob)["pad"]), 9 << 20)

    def test_a_line_past_the_bound_in_what_stays_refused_before_a_byte(self):
        self.assertEqual(self.nr("record", self.write("n1.json", read_doc("node-1", NOW)))[0],
                         0)
        before = self.record_lines()
        # a document of 6 MiB whose parameters every figure of its 3 drives and total
        # carries: 24 MiB of figures, which no document stored apart makes smaller
        big = read_doc("node-3", NOW - 600)
        big["params"]["huge"] = "y" * (6 << 20)
        big["drives"] = [dict(big["drives"][0], path="/dev/nvme%dn1" % i,
                              name="nvme%dn1" % i) for i in range(3)]
        rc, out, err = self.nr("record", self.write("n3.json", big))
        self.assertEqual(rc, 1)
        self.assertRegex(err, r"n3\.json: the run's record line would be 2[0-9]\.[0-9] MiB, "
                         r"past the 16 MiB a line of the record may be.*: refused, nothing "
                         r"recorded\n$")
        self.assertEqual(self.record_lines(), before)
        self.assertEqual(os.listdir(self.db), ["index.sqlite", "runs.jsonl"])


if __name__ == "__main__":
    unittest.main()
