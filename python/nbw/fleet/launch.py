"""nbw.fleet.launch: how a step reaches its nodes.

A step is a list of units, each the tasks (nbw.fleet.tasks) of the nodes that must run
at the same time: one node (the local phase, a drive read again) or the two of a pair.
Two launchers run a step and give back, per node, what its task printed:

  Srun    inside a Slurm allocation: ONE srun step over the step's nodes, with a
          multi-program configuration (srun --multi-prog) that gives each rank its node's
          task; the ranks follow the allocation's order of the nodes (Slurm's block
          distribution, one task per node), and each task checks it runs where it was
          meant to (SLURMD_NODENAME). Its output comes back labelled by rank (--label).
  Fanout  elsewhere: one LAUNCHER process per node (ssh by default; nbw.launcher's rule,
          run_bench.sh's too: LAUNCHER, LAUNCHER_QUOTE, kubectl's namespace and
          container), at most fanout at once; a step over more nodes runs in waves of
          whole units.

Every process runs in a session of its own and is bounded: past the step's limit, or on
Ctrl-C, SIGTERM goes to its whole session, SIGKILL to what is left of it a grace later.
"""

import os
import re
import selectors
import signal
import subprocess
import tempfile
import time

from ..launcher import Launcher, LaunchError
from .sweepdir import MAX_DOC
from .tasks import NODE_SCRIPT, parse_frames, task_args

# A multi-program configuration's line is read into a buffer of 4 KiB by older srun.
MULTI_PROG_LINE_MAX = 4000


def signal_session(sid, sig):
    """sig to every process of session sid (start_new_session: sid is the leader's pid),
    whatever process group it moved to (GNU timeout makes one of its own)."""
    pids = [sid]
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == sid:
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and fields[3] == str(sid):
            pids.append(int(d))
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


TIMED_OUT = -1000  # run_all's status of a process stopped at its limit (no signal's)
STOPPED_WORDS = "stopped at the step's time limit"  # its answer's problem
# What the host keeps of a node's answer (the rest is read and dropped): its task's
# standard output holds at most two documents of MAX_DOC (the probe's and the read's)
# and its frames; its standard error the last lines of the tools'.
NODE_OUT_MAX = 2 * MAX_DOC + (1 << 20)
NODE_ERR_MAX = 1 << 20


class Capped:
    """One stream's bytes, the first cap of them kept, the rest read and dropped."""

    def __init__(self, cap):
        self.cap, self.parts, self.size, self.dropped = cap, [], 0, 0

    def add(self, data):
        room = self.cap - self.size
        if room > 0:
            self.parts.append(data[:room])
            self.size += min(room, len(data))
        self.dropped += max(0, len(data) - max(room, 0))

    def text(self):
        return b"".join(self.parts).decode("utf-8", "replace")


class RankSplit:
    """srun --label's stream split by rank as it is read ("RANK: line"), each rank's
    lines capped on their own (a rank that floods keeps no other rank's lines out);
    lines without a label under rank -1."""

    def __init__(self, cap):
        self.cap, self.ranks, self.head, self.rank = cap, {}, b"", None

    def add(self, data):
        while data:
            nl = data.find(b"\n")
            chunk, data = (data, b"") if nl < 0 else (data[:nl + 1], data[nl + 1:])
            if self.rank is None:
                self.head += chunk
                m = re.match(rb"^\s*([0-9]{1,9}): ?", self.head)
                if m:
                    self.rank, chunk = int(m.group(1)), self.head[m.end():]
                elif len(self.head) > 32 or self.head.endswith(b"\n"):
                    self.rank, chunk = -1, self.head
                else:
                    continue
                self.head = b""
            self.ranks.setdefault(self.rank, Capped(self.cap)).add(chunk)
            if chunk.endswith(b"\n"):
                self.rank = None

    def lines(self, rank):
        c = self.ranks.get(rank)
        return c.text().splitlines() if c else []


def run_all(argvs, timeout, stop, env=None, grace=10.0, sinks=None):
    """Run every argv at once; [(status, stdout, stderr)] in order, each read as it
    comes (one thread, whatever their number) and capped (NODE_OUT_MAX, NODE_ERR_MAX;
    sinks: [(stdout's, stderr's)] objects with add() instead, whose text is theirs to
    give). Past timeout seconds, or when the Event stop is set, what still runs is
    halted (status TIMED_OUT, or None when stopped)."""
    procs, out = [], []
    sel = selectors.DefaultSelector()
    for i, argv in enumerate(argvs):
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=env, start_new_session=True)
        except OSError as e:
            out.append([127, "", "%s: %s\n" % (argv[0], e.strerror)])
            procs.append(None)
            continue
        out.append([None] + list(sinks[i] if sinks else (Capped(NODE_OUT_MAX),
                                                         Capped(NODE_ERR_MAX))))
        procs.append(p)
        sel.register(p.stdout, selectors.EVENT_READ, (i, 1))
        sel.register(p.stderr, selectors.EVENT_READ, (i, 2))
    deadline = time.monotonic() + timeout
    halted, killed_at = {}, None
    while sel.get_map():
        now = time.monotonic()
        if (now >= deadline or stop.is_set()) and killed_at is None:
            for i, p in enumerate(procs):
                if p is not None and p.poll() is None:
                    signal_session(p.pid, signal.SIGTERM)
                    halted[i] = None if stop.is_set() else TIMED_OUT
            killed_at = now + grace
        if killed_at is not None and now >= killed_at:
            for i in halted:
                signal_session(procs[i].pid, signal.SIGKILL)
            if now >= killed_at + grace:
                break  # a process outside the session holds a pipe: given up
        for key, _ in sel.select(timeout=0.2):
            i, which = key.data
            data = os.read(key.fileobj.fileno(), 65536)
            if data:
                out[i][which].add(data)
            else:
                sel.unregister(key.fileobj)
                key.fileobj.close()
    sel.close()
    result = []
    for i, p in enumerate(procs):
        if p is None:
            result.append(tuple(out[i]))
            continue
        try:
            rc = p.wait(timeout=max(0.1, grace))
        except subprocess.TimeoutExpired:
            signal_session(p.pid, signal.SIGKILL)
            rc = p.wait()
        if i in halted:
            rc = halted[i]
        result.append((rc,) + tuple(x.text() if isinstance(x, Capped) else x
                                    for x in out[i][1:]))
    return result


class Answer:
    """What one node's task gave back: the node it says it ran on, {rel: Result}, and
    what went wrong with the task itself (unreachable, stopped, the wrong node), if
    anything."""

    def __init__(self, node, results, problem):
        self.node, self.results, self.problem = node, results, problem


def answer_of(node, rc, out, err, rels=()):
    """rels: the parts of the node's task; a task stopped at the step's limit after
    every one of them ended (an srun step cut for another rank) is not stopped."""
    ran, results, wrong = parse_frames(out)
    if rc == TIMED_OUT and ran is not None and rels and all(
            results.get(r) is not None and results[r].rc is not None for r in rels):
        rc = 0
    problem = wrong
    if problem is None and ran is None:
        last = [x.strip() for x in (err or "").splitlines() if x.strip()]
        if rc == TIMED_OUT:
            problem = STOPPED_WORDS
        elif rc is None:
            problem = "stopped (interrupted)"
        else:
            problem = "unreachable: %s" % (last[-1] if last else "exit status %s" % rc)
    elif problem is None and rc == TIMED_OUT:
        problem = STOPPED_WORDS
    return Answer(ran, results, problem)


class Fanout:
    """LAUNCHER... HOST CMD... by run_bench.sh's rule (nbw.launcher: LAUNCHER_QUOTE,
    kubectl, this machine without launcher), at most fanout processes at once."""

    kind = "ssh"

    def __init__(self, env, fanout=256):
        self.launcher = Launcher(env)
        self.words = self.launcher.words
        self.fanout = max(2, int(fanout))
        self.env = env

    def argv(self, node, cmd):
        return self.launcher.argv(node, cmd)

    def waves(self, units):
        """The units in waves of at most fanout nodes, a unit never split."""
        waves, cur, size = [], [], 0
        for u in units:
            if cur and size + len(u) > self.fanout:
                waves.append(cur)
                cur, size = [], 0
            cur.append(u)
            size += len(u)
        return waves + ([cur] if cur else [])

    def run(self, units, limit, stop, where=None):
        """{node: Answer} of every task of the units (a list of [(node, items)])."""
        answers = {}
        for wave in self.waves(units):
            if stop.is_set():
                break
            tasks = [t for u in wave for t in u]
            argvs = [self.argv(node, ["sh", "-c", NODE_SCRIPT, "nbw-task"] + task_args(node, items))
                     for node, items in tasks]
            for (node, items), (rc, out, err) in zip(tasks, run_all(argvs, limit, stop,
                                                                     self.env)):
                answers[node] = answer_of(node, rc, out, err, [it.rel for it in items])
        return answers


def multi_prog_word(w):
    """A word of a multi-program configuration: single-quoted (srun keeps everything
    inside, % and spaces too), a quote itself outside the quotes."""
    return "'" + w.replace("'", "'\\''") + "'"


class Srun:
    """One srun step per step of the sweep, every node's task by rank (--multi-prog).
    order: the allocation's nodes in Slurm's order (ranks follow it)."""

    kind = "srun"

    def __init__(self, env, order, workdir):
        self.srun = env.get("NBW_SRUN") or "srun"
        self.order = {n: i for i, n in enumerate(order)}
        self.env = dict(env, NBW_FLEET_TASK=NODE_SCRIPT)
        self.workdir = workdir
        self.count = 0
        self.fanout = None

    def config(self, tasks):
        """The multi-program configuration of tasks (in rank order), its lines."""
        lines = []
        for rank, (node, items) in enumerate(tasks):
            line = "%d sh -c 'eval \"$NBW_FLEET_TASK\"' nbw-task %s" % (
                rank, " ".join(multi_prog_word(w) for w in task_args(node, items)))
            if len(line) > MULTI_PROG_LINE_MAX:
                raise LaunchError("%s's task is %d characters long, more than a multi-program "
                                  "line holds (%d): shorten TOOL_DIR or the tools' arguments"
                                  % (node, len(line), MULTI_PROG_LINE_MAX))
            lines.append(line)
        return lines

    def run(self, units, limit, stop, where=None):
        tasks = sorted((t for u in units for t in u),
                       key=lambda t: (self.order.get(t[0], len(self.order)), t[0]))
        if not tasks:
            return {}
        self.count += 1
        conf = os.path.join(self.workdir, "step%04d.conf" % self.count)
        with open(conf, "w") as f:
            f.write("# nbw-fleet: %s\n" % (where or "a step"))
            f.write("\n".join(self.config(tasks)) + "\n")
        nodes = [node for node, _ in tasks]
        argv = [self.srun, "--nodes=%d" % len(nodes), "--ntasks=%d" % len(nodes),
                "--ntasks-per-node=1", "--nodelist=%s" % ",".join(nodes), "--overlap",
                "--kill-on-bad-exit=0", "--label", "--multi-prog", conf]
        outs, errs = RankSplit(NODE_OUT_MAX), RankSplit(NODE_ERR_MAX)
        (rc, _, _), = run_all([argv], limit, stop, self.env, sinks=[(outs, errs)])
        per = {r: outs.lines(r) for r in range(len(tasks)) if outs.lines(r)}
        errs, step_err = {r: errs.lines(r) for r in range(len(tasks))}, \
            [x for x in errs.lines(-1) if x.strip()][-64:]
        answers = {}
        for rank, (node, items) in enumerate(tasks):
            text = "\n".join(per.get(rank, []))
            e = "\n".join(errs.get(rank, []) + [x for x in step_err if node in x] +
                          (step_err[-1:] if not per.get(rank) else []))
            answers[node] = answer_of(node, rc if rc in (TIMED_OUT, None) or not per.get(rank)
                                      else 0, text, e, [it.rel for it in items])
        return answers


def scratch(top):
    """A directory for the launcher's files (the multi-program configurations)."""
    d = os.path.join(top, "steps")
    os.makedirs(d, exist_ok=True)
    return d if os.path.isdir(d) else tempfile.mkdtemp(prefix="nbw-fleet.")
