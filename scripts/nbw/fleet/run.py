"""nbw.fleet.run: the sweep itself, through the launchers the suite already has.

Phases, each resumable (a part whose file exists is never measured again):
  local     every node at once: nvme_link_probe --json through the launcher, and
            run_bench.sh baseline (nvme_read_bw --baseline) on the node;
  fabric    the plan's rounds of disjoint pairs, rail by rail, each direction in turn:
            run_bench.sh aggregate with --source mem, every pair of a round at once;
  remote    each node's drives into a partner's DRAM (run_bench.sh aggregate);
  isolate   what judge.retests_wanted() asks for: parts below their kind's median
            against two partners that passed, low pairs again, drives read again.
The two-node logic (sink first, the source once it listens, retries, timeouts,
stopping what runs on a node) is run_bench.sh's: each pair is one run_bench.sh
aggregate, its LAUNCHER and settings from the environment as for run_bench.sh.
"""

import fcntl
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from . import FORMAT
from .judge import judge, retests_wanted
from .plan import Plan, human_seconds, remote_rounds
from .sweepdir import NAME_RE, load_json, read_sweep

PROG = "nbw-fleet"
EXIT_INTERRUPTED = 130


class RunError(Exception):
    """A reason to stop before or between phases; its text is the message."""


def say(text):
    sys.stderr.write("%s: %s\n" % (PROG, text))
    sys.stderr.flush()


# --- nodes ------------------------------------------------------------------------

def nodes_from(args, env):
    """The node list: --nodes, --hostfile, or the Slurm allocation; RunError otherwise."""
    if args.nodes:
        return list(args.nodes)
    if args.hostfile:
        try:
            with open(args.hostfile) as f:
                lines = f.read(1 << 20).splitlines()
        except OSError as e:
            raise RunError("%s: %s" % (args.hostfile, e.strerror)) from None
        names = []
        for line in lines:
            word = line.split("#", 1)[0].split()
            if word and word[0] not in names:
                names.append(word[0].split(":", 1)[0] if word[0].count(":") == 1 else word[0])
        return names
    if env.get("SLURM_JOB_NODELIST"):
        try:
            r = subprocess.run(["scontrol", "show", "hostnames", env["SLURM_JOB_NODELIST"]],
                               capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as e:
            raise RunError("scontrol show hostnames: %s" % e) from None
        if r.returncode != 0:
            raise RunError("scontrol show hostnames: %s" % r.stderr.strip())
        return r.stdout.split()
    raise RunError("no nodes: --nodes, --hostfile, or run inside a Slurm allocation")


# --- the launcher (run_bench.sh's rules) -----------------------------------------------

class Launcher:
    """LAUNCHER... HOST CMD... as run_bench.sh runs it: split on white space; for ssh,
    pdsh and rsh (LAUNCHER_QUOTE=auto) the command joined into one shell line; for
    kubectl and oc "--" before the command; this machine's names without launcher."""

    def __init__(self, env):
        self.words = (env.get("LAUNCHER") or "ssh -o BatchMode=yes -o ConnectTimeout=10").split()
        if not self.words:
            raise RunError("LAUNCHER is empty")
        base = os.path.basename(self.words[0])
        quote = env.get("LAUNCHER_QUOTE", "auto")
        self.quote = base in ("ssh", "pdsh", "rsh") if quote == "auto" else quote == "yes"
        self.sep = []
        if base in ("kubectl", "oc"):
            # Options before the pod, then "--" and the command (as run_bench.sh).
            self.sep = ["--"]
            if env.get("KUBECTL_NAMESPACE"):
                self.words += ["-n", env["KUBECTL_NAMESPACE"]]
            if env.get("KUBECTL_CONTAINER"):
                self.words += ["-c", env["KUBECTL_CONTAINER"]]
        self.tool_dir = env.get("TOOL_DIR") or ""
        me = socket.gethostname()
        self.here = {"localhost", "127.0.0.1", me, me.split(".")[0], socket.getfqdn()}

    def tool(self, name):
        return os.path.join(self.tool_dir, name) if self.tool_dir else name

    def argv(self, node, cmd):
        if node in self.here:
            return list(cmd)
        if self.quote:
            return self.words + [node] + self.sep + [" ".join(shlex.quote(w) for w in cmd)]
        return self.words + [node] + self.sep + list(cmd)


# --- the sweep ---------------------------------------------------------------------

# spawn()'s status of a command stopped at its time limit (no exit status is negative
# but a signal's, and this one is no signal's).
TIMED_OUT = -1000


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


def status_words(rc):
    """An exit status in words: "exit status N", or the time limit's."""
    return "stopped at its time limit" if rc == TIMED_OUT else "exit status %d" % rc


class Sweep:
    """One sweep directory being written: its settings, its lock, its parts."""

    def __init__(self, top, meta, env, out=sys.stderr):
        self.top, self.meta, self.env, self.out = top, meta, env, out
        self.launcher = Launcher(env)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.done = self.total = 0
        self.started = time.monotonic()
        self.window = float(meta["duration"]) + float(meta["warmup"]) + 5.0
        # run_bench.sh's own bounds (set-up, the sink first, retries) fit well inside
        self.part_limit = int(4 * self.window + 300)
        # run_bench.sh's stop_on_node takes up to 55 s (timeout -k 5 50) on a slow node
        self.stop_grace = 60.0
        self.run_bench = env.get("NBW_RUN_BENCH") or os.path.join(
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
            "run_bench.sh")

    # -- files
    def path(self, rel):
        return os.path.join(self.top, rel)

    def have(self, rel):
        return os.path.exists(self.path(rel))

    def put(self, rel, data):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        tmp = p + ".part"
        with open(tmp, "w") as f:
            f.write(data)
        os.replace(tmp, p)

    def save_meta(self):
        self.put("sweep.json", json.dumps(self.meta, indent=1) + "\n")

    # -- processes
    def spawn(self, argv, timeout, env=None):
        """(rc, stdout, stderr) of argv, in a session of its own; rc None when the sweep was
        stopped (Ctrl-C: argv halted). Past timeout seconds argv is halted and rc is
        TIMED_OUT, stderr ending with "timed out after N s": a failure of its part, like
        any other exit status."""
        if self.stop.is_set():
            return None, "", "stopped"
        try:
            p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env, start_new_session=True)
        except OSError as e:
            return None, "", "%s: %s" % (argv[0], e.strerror)
        deadline = time.monotonic() + timeout
        while True:
            try:
                # a second at a time, to see Ctrl-C (retrying loses no output)
                o, e = p.communicate(timeout=max(0.05, min(1.0, deadline - time.monotonic())))
                rc = p.returncode
                break
            except subprocess.TimeoutExpired:
                if self.stop.is_set():
                    o, e = self.halt(p)
                    rc = None
                    break
                if time.monotonic() >= deadline:
                    o, e = self.halt(p)
                    rc = TIMED_OUT
                    e = (e or "") + "\ntimed out after %d s (stopped)\n" % timeout
                    break
        if self.stop.is_set():
            rc = None
        return rc, o, e

    def halt(self, p):
        """p's output once it is gone: SIGTERM to its whole session (run_bench.sh then stops
        what it started on the nodes, in about 55 s at most), SIGKILL to what is left of it
        stop_grace s later; if a process outside its session still holds its output 10 s
        after that, what it wrote is given up and said so."""
        signal_session(p.pid, signal.SIGTERM)
        try:
            return p.communicate(timeout=self.stop_grace)
        except subprocess.TimeoutExpired:
            signal_session(p.pid, signal.SIGKILL)
        try:
            return p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            for f in (p.stdout, p.stderr):
                f.close()
            return "", "its output still held 10 s after SIGKILL to its session (a process " \
                "outside it keeps it open); not read\n"

    def interrupt(self):
        """SIGINT: stop starting parts; the running ones are halted by their spawn()."""
        self.stop.set()

    def progress(self, phase, where, ok):
        with self.lock:
            self.done += 1
            done, total = self.done, self.total
        left = (total - done) * (time.monotonic() - self.started) / done if done else 0
        self.out.write("%s: %s: %s: %d of %d parts done%s, about %s left\n" % (
            PROG, phase, where, done, total, "" if ok else " (this one failed)",
            human_seconds(left)))
        self.out.flush()

    def fail(self, part, reason):
        with self.lock:
            self.meta.setdefault("failed", []).append({"part": part, "reason": reason[-300:]})

    # -- one part each
    def bench_env(self, **kw):
        env = dict(self.env)
        env.update({"RESULTS": "none", "DURATION": "%g" % self.meta["duration"],
                    "WARMUP": "%g" % self.meta["warmup"]})
        for k, v in kw.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def run_bench_part(self, mode, rel, pick, **kw):
        """run_bench.sh MODE with settings kw; its document pick (a file name in the run
        directory) saved as rel. True when kept."""
        work = tempfile.mkdtemp(prefix=".work.", dir=self.top)
        try:
            env = self.bench_env(RESULTS_DIR=work, RUN_NAME="run", **kw)
            rc, o, e = self.spawn(["bash", self.run_bench, mode], self.part_limit, env)
            doc = os.path.join(work, "run", pick)
            if rc == 0 and load_json(doc) is not None:
                os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
                shutil.copyfile(doc, self.path(rel) + ".part")
                os.replace(self.path(rel) + ".part", self.path(rel))
                self.forget_logs(rel)
                return True
            if rc is not None:
                self.fail(rel, "%s; its logs: failed/%s.d/" % (failure_line(e or o, rc), rel))
                self.keep_logs(os.path.join(work, "run"), rel, "%s %s" % (
                    os.path.basename(self.run_bench), mode), rc, e)
            return False
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def keep_logs(self, run, rel, what, rc, err):
        """A failed part's logs kept as failed/REL.d/, why it failed after the scratch
        is gone: its tools' (the last 64 KiB of each) and run_bench.log, run_bench.sh's
        own stderr (the last 64 KiB) ending with its exit status. An older try's logs
        go first."""
        dest = self.path(os.path.join("failed", rel + ".d"))
        shutil.rmtree(dest, ignore_errors=True)
        try:
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(dest, "run_bench.log"), "w") as f:
                f.write((err or "")[-65536:])
                f.write("%s: %s\n" % (what, status_words(rc)))
            names = sorted(n for n in os.listdir(run) if n.endswith(".log"))
            for n in [n for n in names if n != "run_bench.log"][:32]:
                with open(os.path.join(run, n), "rb") as f:
                    f.seek(max(0, os.path.getsize(f.name) - 65536))
                    data = f.read()
                with open(os.path.join(dest, n), "wb") as f:
                    f.write(data)
        except OSError:
            pass

    def forget_logs(self, rel):
        """A part measured at last (--resume): an older try's failed/REL.d/ goes, and
        the directories it leaves empty up to failed/."""
        top = self.path("failed")
        d = os.path.join(top, rel + ".d")
        if not os.path.isdir(d):
            return
        shutil.rmtree(d, ignore_errors=True)
        d = os.path.dirname(d)
        while d.startswith(top):
            try:
                os.rmdir(d)
            except OSError:
                break
            d = os.path.dirname(d)

    def probe(self, node):
        rel = "nodes/%s/probe.json" % node
        if self.have(rel):
            return True
        cmd = [self.launcher.tool("nvme_link_probe"), "--json"] + self.meta.get("probe_args", [])
        rc, o, e = self.spawn(self.launcher.argv(node, cmd), 120)
        # 3: an expectation (--expect-*) not met: the document is the evidence.
        if rc in (0, 3):
            try:
                json.loads(o)
            except ValueError:
                self.fail(rel, "not JSON")
                return False
            self.put(rel, o)
            return True
        if rc is not None:
            self.fail(rel, (e.strip().splitlines() or ["exit %s" % rc])[-1])
        return False

    def read(self, node, rel):
        if self.have(rel):
            return True
        # SRC_DISKS, when set, names the drives of every node (run_bench.sh gives a
        # node in the source's role its drives).
        return self.run_bench_part("baseline", rel, "baseline-%s.json" % node, NODES=node,
                                   SINK_NODE=None, SRC_NODE=node)

    def transfer(self, src, dst, rail, rel):
        if self.have(rel):
            return True
        devs = self.meta.get("rail_devs") or []
        dev = devs[rail] if rail is not None and rail < len(devs) else None
        mem = rail is not None
        return self.run_bench_part(
            "aggregate", rel, "aggregate-%s.json" % dst, SINK_NODE=dst, SRC_NODE=src,
            SRC_NODES=None, SINK_ADDR=(self.meta.get("addresses") or {}).get(dst),
            SRC_ADDR=None, NODES=None, BIDIR="0", RDMA_DEV=dev,
            SINK_DISKS=None, SRC_DISKS=None if mem else self.env.get("SRC_DISKS"),
            SRC_ARGS=" ".join(filter(None, ["--source mem" if mem else "",
                                            self.env.get("SRC_ARGS", "")])),
            SINK_ARGS=" ".join(filter(None, ["--no-local", self.env.get("SINK_ARGS", "")])))


def failure_line(text, rc):
    """Why run_bench.sh failed, in one line: its last line naming a command that failed
    ("aggregate on n2 failed (exit 1): ..."), else its last line, else its exit status."""
    lines = [x.strip() for x in (text or "").splitlines() if x.strip()]
    named = [x for x in lines if any(w in x for w in (" failed (exit ", "no result within",
                                                      " not listening after ", "timed out after "))]
    return (named or lines or ["exit %s" % rc])[-1]


def fabric_rel(base, src, dst, rail):
    return "%s/%s/%s.rail%d.json" % (base, src, dst, rail)


def disjoint_batches(pairs):
    """Greedy batches of pairs with no node twice in a batch (order kept)."""
    batches = []
    for p in pairs:
        for b in batches:
            if not any(x in p[:2] or y in p[:2] for x, y in ((q[0], q[1]) for q in b)):
                b.append(p)
                break
        else:
            batches.append([p])
    return batches


def run_batches(sw, phase, batches, one, parallel):
    """Each batch's parts at once, batch after batch; False when stopped."""
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        for k, batch in enumerate(batches):
            if sw.stop.is_set():
                return False
            futures = [(where, pool.submit(fn)) for where, fn in batch]
            for where, f in futures:
                ok = f.result()
                if not sw.stop.is_set():
                    sw.progress(phase, "%s of %d, %s" % ("batch %d" % (k + 1) if len(batches) > 1
                                                         else "all", len(batches), where), ok)
    return not sw.stop.is_set()


def preflight(sw, nodes):
    """Each node's suite version (nvme_read_bw --version) through the launcher:
    (reachable nodes, skipped [{node, reason}]); RunError when versions differ."""
    netdev = sw.meta.get("rdma_netdev")

    def version(node):
        rc, o, e = sw.spawn(sw.launcher.argv(node, [sw.launcher.tool("nvme_read_bw"),
                                                    "--version"]), 60)
        if rc != 0:
            return node, None, (e.strip().splitlines() or ["exit %s" % rc])[-1]
        words = o.split()
        if netdev:
            addr, why = address(sw, node, netdev)
            if addr is None:
                return node, None, why
            with sw.lock:
                sw.meta.setdefault("addresses", {})[node] = addr
        return node, words[-1] if words else "?", None

    with ThreadPoolExecutor(max_workers=min(64, max(1, len(nodes)))) as pool:
        res = list(pool.map(version, nodes))
    ok, skipped, versions = [], [], {}
    for node, v, why in res:
        if v is None:
            skipped.append({"node": node, "reason": "unreachable: %s" % why})
            say("%s: unreachable, skipped (%s)" % (node, why))
        else:
            ok.append(node)
            versions.setdefault(v, []).append(node)
    if len(versions) > 1:
        raise RunError("suite versions differ: %s; refused, nothing was measured" % "; ".join(
            "%s on %s" % (v, ", ".join(n)) for v, n in sorted(versions.items())))
    return ok, skipped, (next(iter(versions)) if versions else None)


def address(sw, node, netdev):
    """(node's IPv4 address on netdev, None) asked on the node, or (None, why)."""
    rc, o, e = sw.spawn(sw.launcher.argv(node, ["ip", "-4", "-o", "addr", "show", "dev",
                                                netdev]), 60)
    for line in (o or "").splitlines() if rc == 0 else []:
        words = line.split()
        if "inet" in words[:-1]:
            return words[words.index("inet") + 1].split("/")[0], None
    return None, "no IPv4 address on %s (--rdma-netdev)%s" % (
        netdev, ": " + e.strip().splitlines()[-1] if rc != 0 and e and e.strip() else "")


def new_sweep_dir(top):
    """Create top for a new sweep; RunError when it holds anything (two sweeps never
    share a directory)."""
    if os.path.exists(top) and (not os.path.isdir(top) or os.listdir(top)):
        raise RunError("%s: exists and is not empty: a sweep writes a directory of its own "
                       "(to continue one: --resume %s)" % (top, top))
    os.makedirs(top, exist_ok=True)


def take_lock(top):
    f = open(os.path.join(top, ".lock"), "w")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise RunError("%s: another nbw-fleet run is writing this sweep" % top) from None
    return f


def phases(sw, plan, parallel):
    """The four phases; False when interrupted."""
    m = sw.meta
    names = plan.names
    rails = int(m["rails"])
    # local
    local = [(n, lambda n=n: all([sw.probe(n), sw.read(n, "nodes/%s/read.json" % n)]))
             for n in names if not (sw.have("nodes/%s/probe.json" % n)
                                    and sw.have("nodes/%s/read.json" % n))]
    fabric = []
    for r in range(plan.rounds):
        pairs = plan.round(r)[0]
        for rail in range(rails):
            for way in (0, 1):
                batch = []
                for a, b in pairs:
                    s, d = (names[a], names[b]) if way == 0 else (names[b], names[a])
                    rel = fabric_rel("fabric", s, d, rail)
                    if not sw.have(rel):
                        batch.append(("round %d of %d, rail %d, %s -> %s" % (
                            r + 1, plan.rounds, rail, s, d),
                            lambda s=s, d=d, rail=rail, rel=rel: sw.transfer(s, d, rail, rel)))
                if batch:
                    fabric.append(batch)
    remote = []
    if m.get("remote", True):
        for rnd in remote_rounds(plan):
            batch = []
            for a, b in rnd:
                s, d = names[a], names[b]
                rel = "remote/%s/%s.json" % (s, d)
                if not sw.have(rel):
                    batch.append(("%s -> %s" % (s, d),
                                  lambda s=s, d=d, rel=rel: sw.transfer(s, d, None, rel)))
            if batch:
                remote.append(batch)
    sw.total = len(local) + sum(map(len, fabric)) + sum(map(len, remote))
    if local and not run_batches(sw, "local", [local], None, parallel):
        return False
    if fabric and not run_batches(sw, "fabric", fabric, None, parallel):
        return False
    if remote and not run_batches(sw, "drive->remote", remote, None, parallel):
        return False
    return isolate(sw, parallel)


def isolate(sw, parallel):
    want = retests_wanted(read_sweep(sw.top), float(sw.meta.get("threshold", 0.9)),
                          seed=sw.meta.get("seed") or 0)
    budget = int(sw.meta.get("isolate_budget", 16))
    drives = [("read %s again" % n, lambda n=n: sw.read(n, "isolate/nodes/%s/read.json" % n))
              for n in want["drives"] if not sw.have("isolate/nodes/%s/read.json" % n)]
    fab = disjoint_batches([(s, d, rail) for s, d, rail in want["fabric"]
                            if not sw.have(fabric_rel("isolate/fabric", s, d, rail))])
    rem = disjoint_batches([(s, d) for s, d in want["remote"]
                            if not sw.have("isolate/remote/%s/%s.json" % (s, d))])
    batches = ([drives] if drives else []) + [
        [("rail %d, %s -> %s" % (r, s, d),
          lambda s=s, d=d, r=r: sw.transfer(s, d, r, fabric_rel("isolate/fabric", s, d, r)))
         for s, d, r in b] for b in fab] + [
        [("%s -> %s drives" % (s, d),
          lambda s=s, d=d: sw.transfer(s, d, None, "isolate/remote/%s/%s.json" % (s, d)))
         for s, d in b] for b in rem]
    if len(batches) > budget:
        say("isolate: %d retest windows wanted, %d in the budget (--isolate-budget): the rest "
            "is not retested" % (len(batches), budget))
        batches = batches[:budget]
    sw.total += sum(map(len, batches))
    return run_batches(sw, "isolate", batches, None, parallel) if batches else True


def start(args, env, out=sys.stdout):
    """nbw-fleet run: the exit status."""
    resume = args.resume is not None
    top = args.resume if resume else args.out
    try:
        if resume:
            meta = load_json(os.path.join(top, "sweep.json"))
            if not isinstance(meta, dict) or meta.get("tool") != PROG:
                raise RunError("%s: not a sweep directory (no sweep.json of nbw-fleet)" % top)
            lock = take_lock(top)
        else:
            nodes = nodes_from(args, env)
            bad = [n for n in nodes if not NAME_RE.match(n)]
            if bad:
                raise RunError("node name '%s': letters, digits and ._:@%%- only" % bad[0])
            new_sweep_dir(top)
            lock = take_lock(top)
            meta = {"tool": PROG, "format": FORMAT, "suite_version": None, "nodes": nodes,
                    "rails": len(args.rail_devs) if args.rail_devs else 1,
                    "rail_devs": args.rail_devs or [None], "drives": None,
                    "pairs": args.pairs, "seed": args.seed, "duration": args.duration,
                    "warmup": args.warmup, "threshold": args.threshold,
                    "isolate_budget": args.isolate_budget, "probe_args": args.probe_arg or [],
                    "rdma_netdev": args.rdma_netdev, "addresses": {},
                    "remote": not args.no_remote, "skipped": [], "failed": [],
                    "state": "running"}
        sw = Sweep(top, meta, env)
        if not resume:
            try:
                meta["nodes"], meta["skipped"], meta["suite_version"] = preflight(
                    sw, meta["nodes"])
                if len(meta["nodes"]) < 2:
                    raise RunError("fewer than two nodes reachable: nothing to sweep")
            except RunError:
                # Refused before anything ran: the new directory goes again.
                lock.close()
                os.unlink(os.path.join(top, ".lock"))
                os.rmdir(top)
                raise
            sw.save_meta()
        else:
            _, _, v = preflight(sw, meta["nodes"])
            if v is not None and meta.get("suite_version") not in (None, v):
                raise RunError("the nodes now run suite version %s, the sweep was started with "
                               "%s: refused" % (v, meta["suite_version"]))
            meta["failed"] = []
            meta["state"] = "running"
            sw.save_meta()
    except RunError as e:
        say(str(e))
        return 1
    plan = Plan(len(meta["nodes"]), meta["pairs"], seed=meta["seed"], names=meta["nodes"])
    say("sweep of %d nodes (%d skipped), %d rails, pairs %s: %d rounds, in %s" % (
        plan.n, len(meta["skipped"]), int(meta["rails"]), meta["pairs"], plan.rounds, top))
    old = signal.signal(signal.SIGINT, lambda *_: sw.interrupt())
    try:
        finished = phases(sw, plan, args.parallel)
    finally:
        signal.signal(signal.SIGINT, old)
        meta["state"] = "done" if not sw.stop.is_set() else "interrupted"
        sw.save_meta()
        lock.close()
    if not finished:
        say("interrupted: what was measured is kept in %s; resume with: %s run --resume %s"
            % (top, PROG, shlex.quote(top)))
        return EXIT_INTERRUPTED
    for f in meta.get("failed", []):
        say("not measured: %s (%s)" % (f["part"], f["reason"]))
    result = judge(read_sweep(top), float(meta.get("threshold", 0.9)))
    from . import report
    with open(os.path.join(top, "judge.json"), "w") as f:
        report.as_json(result, f)
    report.text(result, out)
    say("done: %s (judge again: %s judge %s)" % (top, PROG, shlex.quote(top)))
    return 0
