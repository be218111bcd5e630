"""nbw.launcher: how a command reaches a node, the one rule of run_bench.sh and nbw-fleet.

LAUNCHER... HOST CMD...: LAUNCHER (ssh by default) split on white space, then the node,
then the command. LAUNCHER_QUOTE=yes: the launcher joins CMD into one shell command line
(ssh, pdsh, rsh), so each word is shell-quoted; no: it passes argv unchanged (srun,
kubectl exec); auto (the default): yes for ssh, pdsh and rsh. kubectl and oc (exec) take
their options before the pod (KUBECTL_NAMESPACE: -n, KUBECTL_CONTAINER: -c), then "--"
and the command. A node named localhost, 127.0.0.1 or this machine's host name runs the
command itself, without the launcher.

run_bench.sh asks it through nbw_py (bench_lib.sh), the words NUL-separated:

  check             LAUNCHER's program (a line); status 2 and why when the settings
                    are unusable
  here              this machine's names
  argv NODE CMD...  the command line that runs CMD on NODE through the launcher (the
                    caller has asked whether NODE is this machine)
"""
import os
import re
import socket
import sys

from .command import run_verbs

DEFAULT = "ssh -o BatchMode=yes -o ConnectTimeout=10"
JOINS_WORDS = ("ssh", "pdsh", "rsh")  # LAUNCHER_QUOTE=auto: yes for these
KUBECTL = ("kubectl", "oc")
PLAIN_WORD = re.compile(r"[A-Za-z0-9_./=:,+@%-]+")


class LaunchError(Exception):
    """The launcher cannot be used; its text is the reason."""


def shell_word(w):
    """One word for a POSIX shell: unchanged when plain, else single-quoted (a quote
    itself as '\\'')."""
    if PLAIN_WORD.fullmatch(w):
        return w
    return "'" + w.replace("'", "'\\''") + "'"


def this_machine():
    """The names this machine answers to (a node so named runs without the launcher)."""
    me = socket.gethostname()
    return {"localhost", "127.0.0.1", me, me.split(".")[0], socket.getfqdn()}


class Launcher:
    """The launcher that env (LAUNCHER, LAUNCHER_QUOTE, KUBECTL_NAMESPACE,
    KUBECTL_CONTAINER) describes. words: the command line before the node; sep: what
    comes between the node and the command; quote: whether the command is joined into
    one shell line."""

    def __init__(self, env, here=None):
        quote = env.get("LAUNCHER_QUOTE") or "auto"
        if quote not in ("auto", "yes", "no"):
            raise LaunchError("LAUNCHER_QUOTE=%s: auto, yes or no" % quote)
        self.words = (env.get("LAUNCHER") or DEFAULT).split()
        if not self.words:
            raise LaunchError("LAUNCHER is empty")
        base = os.path.basename(self.words[0])
        self.quote = base in JOINS_WORDS if quote == "auto" else quote == "yes"
        self.sep = []
        if base in KUBECTL:
            self.sep = ["--"]
            if env.get("KUBECTL_NAMESPACE"):
                self.words += ["-n", env["KUBECTL_NAMESPACE"]]
            if env.get("KUBECTL_CONTAINER"):
                self.words += ["-c", env["KUBECTL_CONTAINER"]]
        self.here = this_machine() if here is None else set(here)

    def argv(self, node, cmd):
        """The command line that runs cmd (a list of words) on node."""
        if node in self.here:
            return list(cmd)
        if self.quote:
            return self.words + [node] + self.sep + [" ".join(shell_word(w) for w in cmd)]
        return self.words + [node] + self.sep + list(cmd)


def _words(words):
    sys.stdout.write("".join(w + "\0" for w in words))


def _launcher():
    try:
        return Launcher(os.environ, here=())  # the caller asked "here" already
    except LaunchError as e:
        sys.stderr.write("%s\n" % e)
        sys.exit(2)


def main(argv):
    return run_verbs(argv, {
        "check": (0, 0, lambda: print(_launcher().words[0])),
        "here": (0, 0, lambda: _words(sorted(this_machine()))),
        "argv": (2, None, lambda node, *cmd: _words(_launcher().argv(node, cmd))),
    }, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
