"""nbw.launcher, the one launcher rule of run_bench.sh and nbw-fleet: every launcher's
command line (ssh, pdsh, rsh, srun, kubectl and oc exec, a launcher of one's own with
LAUNCHER_QUOTE auto, yes and no), the words a shell reads back from a joined line equal
to the command's (spaces, quotes, $, ;, *, backslash, newline, an empty word), the
settings refused, and the command line run_bench.sh reads (NUL-separated)."""

import nbwpath  # noqa: F401
import os
import subprocess
import sys
import unittest

from nbw.launcher import DEFAULT, Launcher, LaunchError, shell_word

AWKWARD = ["sh", "-c", 'printf "%s|" "$@"', "sh", "a b", "it's", 'say "hi"', "$HOME;*",
           "back\\slash", "new\nline", "", "plain-word,x=1:2@3%4+5/6.7"]


def shell_reads(line):
    """What a POSIX shell prints running line (as ssh's remote shell would)."""
    out = subprocess.run(["sh", "-c", line + ' ; printf "\\n"'], stdout=subprocess.PIPE,
                         check=True).stdout.decode()
    return out


class TestLauncher(unittest.TestCase):
    def test_every_launcher(self):
        # (LAUNCHER, LAUNCHER_QUOTE, extra env, words before the node, sep, joined)
        cases = [
            ("ssh -o BatchMode=yes", "auto", {}, ["ssh", "-o", "BatchMode=yes"], [], True),
            ("/usr/bin/ssh", "", {}, ["/usr/bin/ssh"], [], True),
            ("pdsh -S -N -w", "auto", {}, ["pdsh", "-S", "-N", "-w"], [], True),
            ("rsh", "auto", {}, ["rsh"], [], True),
            ("srun -N1 -n1 -w", "auto", {}, ["srun", "-N1", "-n1", "-w"], [], False),
            ("kubectl exec -i", "auto", {"KUBECTL_NAMESPACE": "bw", "KUBECTL_CONTAINER": "c1"},
             ["kubectl", "exec", "-i", "-n", "bw", "-c", "c1"], ["--"], False),
            ("oc exec -i", "auto", {}, ["oc", "exec", "-i"], ["--"], False),
            ("my-launch  --to", "auto", {}, ["my-launch", "--to"], [], False),
            ("my-launch --to", "yes", {}, ["my-launch", "--to"], [], True),
            ("ssh", "no", {}, ["ssh"], [], False),
            ("kubectl exec -i", "yes", {}, ["kubectl", "exec", "-i"], ["--"], True),
        ]
        expect_printed = "".join(w + "|" for w in AWKWARD[4:])
        for launcher, quote, extra, words, sep, joined in cases:
            with self.subTest(launcher=launcher, quote=quote):
                env = dict(extra, LAUNCHER=launcher, LAUNCHER_QUOTE=quote)
                argv = Launcher(env, here=()).argv("n1", AWKWARD)
                self.assertEqual(argv[:len(words) + 1 + len(sep)], words + ["n1"] + sep)
                rest = argv[len(words) + 1 + len(sep):]
                if joined:
                    self.assertEqual(len(rest), 1, rest)
                    self.assertEqual(shell_reads(rest[0]), expect_printed + "\n")
                else:
                    self.assertEqual(rest, AWKWARD)

    def test_default_is_ssh_joined(self):
        argv = Launcher({}, here=()).argv("n1", ["echo", "a b"])
        self.assertEqual(argv, DEFAULT.split() + ["n1", "echo 'a b'"])

    def test_shell_word(self):
        self.assertEqual(shell_word("/opt/nbw/bin,x=1"), "/opt/nbw/bin,x=1")
        self.assertEqual(shell_word("it's"), "'it'\\''s'")
        self.assertEqual(shell_word(""), "''")

    def test_this_machine_runs_without_launcher(self):
        la = Launcher({"LAUNCHER": "ssh"}, here=["me.example", "me"])
        self.assertEqual(la.argv("me", ["true", "a b"]), ["true", "a b"])
        self.assertEqual(Launcher({"LAUNCHER": "ssh"}).argv("localhost", ["true"]), ["true"])
        self.assertEqual(la.argv("other", ["true"]), ["ssh", "other", "true"])

    def test_refused(self):
        for env, said in (({"LAUNCHER": "  "}, "LAUNCHER is empty"),
                          ({"LAUNCHER_QUOTE": "maybe"}, "LAUNCHER_QUOTE=maybe: auto, yes or no")):
            with self.assertRaises(LaunchError) as c:
                Launcher(env)
            self.assertEqual(str(c.exception), said)

    def test_command_line_of_run_bench(self):
        env = dict(os.environ, PYTHONPATH=nbwpath.PYTHON, LAUNCHER="pdsh -w",
                   LAUNCHER_QUOTE="auto")

        def run(*args):
            return subprocess.run([sys.executable, "-m", "nbw.launcher"] + list(args), env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        p = run("argv", "n1", *AWKWARD)
        self.assertEqual(p.returncode, 0, p.stderr)
        words = p.stdout.decode().split("\0")
        self.assertEqual(words[-1], "")  # each word NUL-terminated
        self.assertEqual(words[:-1], Launcher(env, here=()).argv("n1", AWKWARD))
        self.assertEqual(run("check").stdout, b"pdsh\n")
        env["LAUNCHER_QUOTE"] = "sometimes"
        p = run("check")
        self.assertEqual((p.returncode, p.stderr),
                         (2, b"LAUNCHER_QUOTE=sometimes: auto, yes or no\n"))
        self.assertIn("localhost", run("here").stdout.decode().split("\0"))


if __name__ == "__main__":
    unittest.main()
