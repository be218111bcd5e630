"""nbw.results.store: the record's lines and the index rebuilt from them."""
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.results.store import Store, parse_line


def run_line(uuid, seq_gb):
    return {"kind": "run", "format": 1, "uuid": uuid, "started": "2026-01-01T00:00:00Z",
            "finished": "2026-01-01T00:01:00Z", "mode": "local", "nodes": ["n1"],
            "params": {}, "params_hash": "p", "figures": [
                {"rung": "read", "node": "n1", "drive": None, "gb_per_s": seq_gb,
                 "cv_pct": None, "samples": None, "params": {"tool": "nvme_read_bw"},
                 "params_hash": "h"}], "inventory": {}}


class ParseLine(unittest.TestCase):
    def test_a_run(self):
        e, why = parse_line(b'{"kind": "run", "uuid": "u1", "figures": []}')
        self.assertEqual((e["uuid"], why), ("u1", None))

    def test_lines_to_skip_say_why(self):
        self.assertEqual(parse_line(b"{oops")[0], None)
        self.assertTrue(parse_line(b"{oops")[1].startswith("not valid JSON"))
        self.assertEqual(parse_line(b'{"kind": "other"}'), (None, "not a run or a reference"))
        self.assertEqual(parse_line(b'{"kind": "run", "figures": []}'),
                         (None, "a run without an id or figures"))
        self.assertEqual(parse_line(b'{"kind": "run", "uuid": "u", "figures": [1]}'),
                         (None, "a run without an id or figures"))


class RecordAndIndex(unittest.TestCase):
    def test_append_then_a_lost_index_is_rebuilt(self):
        with tempfile.TemporaryDirectory() as d:
            st = Store(d, create=True)
            st.append(run_line("aaaa1111", 3.5))
            st.append(run_line("bbbb2222", 3.25))
            self.assertEqual([r["uuid"] for r in st.runs()], ["aaaa1111", "bbbb2222"])
            st.close()
            os.unlink(os.path.join(d, "index.sqlite"))
            st = Store(d)
            self.assertEqual([f["gb_per_s"] for f in st.figures("bbbb2222")], [3.25])
            self.assertEqual(st.resolve("latest~1")["uuid"], "aaaa1111")
            self.assertEqual(st.resolve("bbbb")["uuid"], "bbbb2222")
            st.close()

    def test_no_record_is_empty(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertTrue(Store(os.path.join(d, "none")).empty)


if __name__ == "__main__":
    unittest.main()
