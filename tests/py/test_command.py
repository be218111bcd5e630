"""nbw.command's verb table and argparse usage errors, and nbw.fetch (over a file: URL)."""
import contextlib
import io
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw import bench_read, command
from nbw.command import run_verbs
from nbw.fetch import fetch, main as fetch_main


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


def usage_error(main, argv):
    """(exit status, stderr) of MAIN(ARGV) where it exits through a usage error."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(argv)
            status = None
        except SystemExit as e:
            status = e.code
    return status, err.getvalue()


class UsageErrors(unittest.TestCase):
    """A command's usage error is one line on stderr naming it, and exit status 2."""

    def test_parser_names_the_command_and_hints(self):
        class Named(command.Parser):
            name, hint = "tool", "(try --help)"
        p = Named(prog="whatever")
        p.add_argument("n", type=int)
        self.assertEqual(usage_error(p.parse_args, ["x"]),
                         (2, "tool: argument n: invalid int value: 'x' (try --help)\n"))
        q = command.Parser(prog="cmd")
        self.assertEqual(usage_error(q.parse_args, ["--no"]),
                         (2, "cmd: unrecognized arguments: --no (--help)\n"))

    def test_bench_read(self):
        for argv, text in (([], "required: VERB"), (["bytes"], "required: SIZE"),
                           (["bytes", "4K", "x"], "unrecognized arguments: x"),
                           (["nope"], "invalid choice: 'nope'"),
                           (["seq-table", "a", "b"], "required: CHUNK, THREADS, DURATION")):
            status, err = usage_error(bench_read.main, argv)
            self.assertEqual(status, 2, argv)
            self.assertEqual(err.count("\n"), 1, err)
            self.assertRegex(err, "^bench_read( [a-z-]+)?: .*" + text, argv)

    def test_bench_read_runtime_error_is_status_1(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(bench_read.main(["bytes", "1X"]), 1)
        self.assertEqual(err.getvalue(),
                         "bench_read: bytes: invalid literal for int() with base 10: '1X'\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(bench_read.main(["bytes", "2M"]), 0)
        self.assertEqual(out.getvalue(), "2097152\n")

    def test_fetch(self):
        self.assertEqual(usage_error(fetch_main, ["only-a-url"]),
                         (2, "fetch: the following arguments are required: FILE (--help)\n"))


class OptionsTable(unittest.TestCase):
    """--options-table: each verb, option and positional of a parser as the completion
    reads it (completions/nbw-results), hidden from --help."""

    def test_rows(self):
        p = command.Parser(prog="x")
        p.add_argument("--db", metavar="DIR")
        sub = p.add_subparsers(dest="verb")
        s = sub.add_parser("go")
        s.add_argument("files", nargs="+", metavar="FILE.json")
        s.add_argument("-n", "--count", type=int, metavar="N")
        s.add_argument("--mode", choices=["a", "b"])
        s.add_argument("--dump", nargs="?", const="-", metavar="FILE")
        s.add_argument("--quiet", action="store_true")
        command.add_options_table(p)
        self.assertEqual(command.options_table(p), [
            "- --help none -h -", "- --db required - dir",
            "- go verb - -", "go --help none -h -", "go - positional - file",
            "go --count required -n -", "go --mode required - - a,b",
            "go --dump optional - file", "go --quiet none - -"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            with self.assertRaises(SystemExit) as e:
                p.parse_args(["--options-table"])
        self.assertEqual((e.exception.code, out.getvalue().splitlines()[2]), (0, "- go verb - -"))
        self.assertNotIn("options-table", p.format_help())


class Fetch(unittest.TestCase):
    def test_fetch_copies_the_body(self):
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "src"), os.path.join(d, "dst")
            with open(src, "wb") as f:
                f.write(b"munge\x00key")
            fetch("file://" + src, dst)
            with open(dst, "rb") as f:
                self.assertEqual(f.read(), b"munge\x00key")

    def test_a_missing_url_is_one_line_and_status_1(self):
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "none"), os.path.join(d, "dst")
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(fetch_main(["file://" + src, dst]), 1)
            self.assertRegex(err.getvalue(), "^fetch: file://%s: .*No such file" % src)
            self.assertEqual(err.getvalue().count("\n"), 1)
            self.assertFalse(os.path.exists(dst))


if __name__ == "__main__":
    unittest.main()
