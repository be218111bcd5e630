"""nbw.command's verb table, and nbw.fetch (over a file: URL)."""
import contextlib
import io
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.command import run_verbs
from nbw.fetch import fetch


class Verbs(unittest.TestCase):
    def setUp(self):
        self.calls = []
        self.verbs = {"one": (1, 1, lambda a: self.calls.append(a)),
                      "many": (1, None, lambda *a: len(a))}

    def test_dispatch_and_status(self):
        self.assertEqual(run_verbs(["one", "x"], self.verbs, "usage\n"), 0)
        self.assertEqual(self.calls, ["x"])
        self.assertEqual(run_verbs(["many", "a", "b", "c"], self.verbs, "usage\n"), 3)

    def test_wrong_count_or_verb_is_usage(self):
        for argv in (["one"], ["one", "x", "y"], ["many"], ["other"], []):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(run_verbs(argv, self.verbs, "usage\n"), 2)
            self.assertEqual(err.getvalue(), "usage\n")
        self.assertEqual(self.calls, [])


class Fetch(unittest.TestCase):
    def test_fetch_copies_the_body(self):
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "src"), os.path.join(d, "dst")
            with open(src, "wb") as f:
                f.write(b"munge\x00key")
            fetch("file://" + src, dst)
            with open(dst, "rb") as f:
                self.assertEqual(f.read(), b"munge\x00key")


if __name__ == "__main__":
    unittest.main()
