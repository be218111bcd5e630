"""nbw.fleet.nodes: which nodes a sweep runs over (--nodes, a hostfile, the Slurm
allocation) and the launcher that reaches them; the run's errors and lines
(nbw.fleet.run)."""

import os
import subprocess
import sys

from .. import jsonutil
from . import PROG
from .launch import Fanout, Srun, scratch
from .sweepdir import NAME_RE, NAME_WORDS

EXIT_USAGE = 2
HOSTFILE_MAX = 16 << 20


class RunError(Exception):
    """A reason to stop before or between phases; its text is the message."""

    def __init__(self, text, status=1):
        Exception.__init__(self, text)
        self.status = status


def say(text):
    """One line on stderr, every control byte of what a node said escaped."""
    sys.stderr.write("%s: %s\n" % (PROG, jsonutil.printable(text)))
    sys.stderr.flush()


# --- nodes ------------------------------------------------------------------------

def read_hostfile(path):
    """(names, {name: rack or switch}, [problems], [warnings]) of a hostfile: the first
    word of each line (name:slots taken as name; # starts a comment), rack=R or
    switch=S after it for the page's groups. A bad name is a problem, one line each; a
    name twice a warning (kept once)."""
    try:
        with open(path, "rb") as f:
            data = f.read(HOSTFILE_MAX + 1)
    except OSError as e:
        raise RunError("%s: %s" % (path, e.strerror), EXIT_USAGE) from None
    if len(data) > HOSTFILE_MAX:
        raise RunError("%s: larger than %d MiB: not a hostfile" % (path, HOSTFILE_MAX >> 20),
                       EXIT_USAGE)
    names, groups, problems, warnings, first = [], {}, [], [], {}
    for no, raw in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        name = words[0]
        if name.count(":") == 1 and name.split(":")[1].isdigit():
            name = name.split(":")[0]
        if not NAME_RE.match(name) or len(name) > 255:
            problems.append("%s:%d: '%s': not a node name (%s)" % (path, no, name[:80],
                                                                   NAME_WORDS))
            continue
        if name in first:
            warnings.append("%s:%d: %s again (first on line %d): counted once" % (
                path, no, name, first[name]))
            continue
        first[name] = no
        names.append(name)
        for w in words[1:]:
            key, _, val = w.partition("=")
            if key in ("rack", "switch") and val and NAME_RE.match(val):
                groups[name] = val
    return names, groups, problems, warnings


def slurm_nodes(env):
    """The allocation's nodes in Slurm's order (scontrol show hostnames)."""
    try:
        r = subprocess.run(["scontrol", "show", "hostnames", env["SLURM_JOB_NODELIST"]],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        raise RunError("scontrol show hostnames: %s" % e) from None
    if r.returncode != 0:
        raise RunError("scontrol show hostnames: %s" % r.stderr.strip())
    return r.stdout.split()


def nodes_from(args, env):
    """(node list, groups): --nodes, --hostfile, or the Slurm allocation; RunError
    otherwise. A hostfile's bad names are said one a line, then refused."""
    if args.nodes:
        return list(args.nodes), {}
    if args.hostfile:
        names, groups, problems, warnings = read_hostfile(args.hostfile)
        for w in warnings:
            say(w)
        for p in problems:
            say(p)
        if problems:
            raise RunError("%s: %d bad name%s: refused, nothing was run" % (
                args.hostfile, len(problems), "" if len(problems) == 1 else "s"), EXIT_USAGE)
        return names, groups
    if env.get("SLURM_JOB_NODELIST"):
        return slurm_nodes(env), {}
    raise RunError("no nodes: --nodes, --hostfile, or run inside a Slurm allocation")


def make_launcher(kind, env, top, fanout, nodes):
    """The step launcher: srun inside a Slurm allocation (LAUNCHER unset or srun), else
    LAUNCHER's fan-out; kind (srun or ssh) chooses."""
    if kind is None:
        words = (env.get("LAUNCHER") or "").split()
        inside = bool(env.get("SLURM_JOB_ID") and env.get("SLURM_JOB_NODELIST"))
        kind = "srun" if inside and (not words or os.path.basename(words[0]) == "srun") \
            else "ssh"
    if kind == "srun":
        order = nodes
        if env.get("SLURM_JOB_NODELIST"):
            try:
                alloc = slurm_nodes(env)
                order = alloc + [n for n in nodes if n not in set(alloc)]
            except RunError:
                pass
        return Srun(env, order, scratch(top))
    return Fanout(env, fanout)
