"""nbw.results.output and the command line: tables, and the exit status of a usage error."""
import contextlib
import io
import unittest

import nbwpath  # noqa: F401
from nbw.results import cli
from nbw.results.output import fmt, table


class Output(unittest.TestCase):
    def test_table_aligns_and_right_justifies(self):
        self.assertEqual(table(("rung", "GB/s"), [("read", "3.50"), ("end to end", "21.41")],
                               right=(1,)),
                         "rung         GB/s\nread         3.50\nend to end  21.41")

    def test_fmt(self):
        self.assertEqual((fmt(3.14159), fmt(None), fmt(2, "%d")), ("3.14", "-", "2"))

    def test_a_small_figure_keeps_two_digits(self):
        self.assertEqual((fmt(0.0042), fmt(0.0042, "%.6g"), fmt(0.0)), ("0.0042", "0.0042", "0.00"))


class CommandLine(unittest.TestCase):
    def test_no_verb_is_a_usage_error(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(cli.main([]), 2)
        self.assertIn("nbw-results: no verb (--help)", err.getvalue())

    def test_unknown_verb_exits_2(self):
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit) as e:
                cli.main(["frobnicate"])
        self.assertEqual(e.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
