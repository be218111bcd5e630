"""nbw.fleet.run: the sweep itself, in steps the launcher runs over the nodes.

Phases, each resumable (a part whose file exists is never measured again; a pair is
kept whole or not at all):
  local     one step, every node: nvme_link_probe --json, then nvme_read_bw --baseline
            (each drive alone, then all together) in the same launch;
  fabric    a step per round of the plan: every pair of the round at once, each pair one
            run of nvme_write_bw_remote --bidir from memory on every rail (a step per
            round and rail with --rails-one-by-one);
  remote    each node's drives into a partner's DRAM, both ways at once (--bidir);
  isolate   what judge_retest.retests_wanted() asks for, in full windows: drives read again,
            then pairs in disjoint batches (each part under suspicion against two
            partners that passed, low pairs again, rails under suspicion alone), at
            most --isolate-budget steps.
A step goes through nbw.fleet.launch: one srun step inside a Slurm allocation, else a
LAUNCHER process per node, --fanout at once. The host keeps the schedule and the files
the nodes' answers carry (nbw.fleet.tasks).
"""

import fcntl
import ipaddress
import json
import os
import shlex
import shutil
import signal
import sys
import threading
import time

from .. import jsonutil
from . import FORMAT, PROG
from . import act, liveness
from . import plan as planmod
from . import report, topology
from .floors import probe_exit
from .judge import judge
from .spec import DEFAULT_FLOORS
from .judge_retest import retests_wanted
from .launch import STOPPED_WORDS, Answer, LaunchError
from .nodes import EXIT_USAGE, RunError, make_launcher, nodes_from, say
from .plan import Plan, human_seconds, remote_rounds
from .sweepdir import NAME_RE, NAME_WORDS, load_json, read_sweep
from .tasks import Settings, disjoint_batches, why_failed

EXIT_INTERRUPTED = 130
# The environment the tools' settings come from (tasks.Settings): kept in sweep.json
# beside the command line, so that a record of the sweep says how it was run.
SETTINGS_ENV = ("TOOL_DIR", "THREADS", "QPS", "CHUNK", "DRAM", "PORT", "NET_TIMEOUT",
                "VERIFY", "TX_DEPTH", "SRC_DISKS", "READ_ARGS", "REMOTE_ARGS")


PLAN_KEPT = ("pairs_mode", "pairs_asked", "rounds", "pairs_per_round", "pair_count",
             "rails_one_by_one", "durations", "phases_s")


def utc_now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# --- the sweep's directory --------------------------------------------------------------

class Sweep:
    """One sweep directory being written: its settings, its parts, its steps."""

    def __init__(self, top, meta, env, launcher, out=sys.stderr):
        self.top, self.meta, self.env, self.out = top, meta, env, out
        self.launcher = launcher
        self.settings = Settings(env, meta)
        self.stop = threading.Event()
        self.started = time.monotonic()
        self.steps_done = 0
        self.steps_total = 1
        # The deadline (time.monotonic()) and its words, from --max-time or the Slurm
        # allocation's time left; the planned seconds of the steps not yet run; the
        # nodes dropped from later steps (a step stalled to its limit) and why.
        self.deadline, self.deadline_words = None, None
        self.planned_left = 0.0
        self.dropped = {}

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

    def note_run_id(self, rel, res):
        """The run id of a document kept (its provenance's), in sweep.json's run_ids:
        what nbw-results record checks each file against (a file from another sweep)."""
        try:
            doc = jsonutil.loads("\n".join(res.out))
        except ValueError:
            return
        rid = jsonutil.dig(doc, "provenance", "run_id") if isinstance(doc, dict) else None
        if isinstance(rid, str):
            self.meta.setdefault("run_ids", {})[rel] = rid

    def save_meta(self):
        self.put("sweep.json", json.dumps(self.meta, indent=1) + "\n")

    def fail(self, rel, reason, node=None):
        self.meta.setdefault("failed", []).append({"part": rel, "reason": reason[-300:],
                                                   "node": node})

    def keep_logs(self, rel, node, res, reason):
        """A failed part's logs in failed/REL.d/: the last lines of its tool's standard
        error on the node and why it failed."""
        dest = self.path(os.path.join("failed", rel + ".d"))
        shutil.rmtree(dest, ignore_errors=True)
        try:
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(dest, "%s.log" % node), "w") as f:
                for line in (res.err if res else []):
                    f.write(line + "\n")
                f.write("%s: %s\n" % (node, reason))
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

    def set_deadline(self, seconds, words, planned):
        """The sweep ends within seconds of its start (None: no deadline); planned: the
        plan's seconds of its steps."""
        if seconds is not None:
            self.deadline, self.deadline_words = self.started + seconds, words
        self.planned_left = planned

    def step_limit(self, planned, limit):
        """A step's time limit: its own, cut at the time left before the deadline less
        what the steps after it were planned to take (so that one node stalling a step
        takes no later step's time). planned: this step's planned seconds."""
        self.planned_left = max(0.0, self.planned_left - planned)
        if self.deadline is None:
            return limit
        return min(limit, self.deadline - time.monotonic() - self.planned_left)

    def step(self, phase, where, units, limit, planned=0.0):
        """Run units (lists of (node, [Item])) as one step; the answers per node. A step
        with no time left is not run: its nodes' answers say so. --part-limit caps
        limit."""
        t0 = time.monotonic()
        if self.meta.get("part_limit"):
            limit = min(limit, float(self.meta["part_limit"]))
        own, limit = limit, self.step_limit(planned, limit)
        if limit < 1:
            why = "not run: no time left before the sweep's deadline (%s)" % self.deadline_words
            return {n: Answer(None, {}, why) for u in units for n, _ in u}
        answers = self.launcher.run(units, limit, self.stop, "%s: %s" % (phase, where))
        for n, a in answers.items():
            if a.problem == STOPPED_WORDS and not self.stop.is_set() and limit < own:
                a.problem += " (%d s: the time left before the sweep's deadline, %s)" % (
                    limit, self.deadline_words)
        for n in liveness.drop_failed(self, phase, where, units, answers):
            say("%s: dropped from the later steps (%s)" % (n, self.dropped[n]))
        tm = self.meta.setdefault("timing", {}).setdefault(phase, {"seconds": 0.0, "steps": 0})
        tm["seconds"] = round(tm["seconds"] + time.monotonic() - t0, 3)
        tm["steps"] += 1
        self.steps_done += 1
        return answers

    def progress(self, phase, where, kept, failed):
        spent = time.monotonic() - self.started
        left = max(0, self.steps_total - self.steps_done) * spent / max(1, self.steps_done)
        self.out.write(jsonutil.printable(
            "%s: %s: %s: %d kept, %d failed; step %d of %d, %s so far, about %s left" % (
                PROG, phase, where, kept, failed, self.steps_done, self.steps_total,
                human_seconds(spent), human_seconds(left))) + "\n")
        self.out.flush()

    def left_out(self, a, items_a, b=None, items_b=()):
        """True when a (or its partner b) was dropped from later steps: the parts are
        failed, that node named, and not run."""
        x = a if a in self.dropped else b if b in self.dropped else None
        if x is None:
            return False
        for n, items in ((a, items_a), (b, items_b)):
            for it in items:
                # Its own parts lead with its failure (the verdict's words), the
                # partner's say who was dropped.
                self.fail(it.rel, "%s; not run: dropped from the later steps" % self.dropped[x]
                          if n == x else "not run: %s was dropped (%s)" % (x, self.dropped[x]), x)
        return True

    # -- what came back
    def result_of(self, answers, node, item):
        """(Result or None, why it is not kept or None)."""
        a = answers.get(node)
        if a is None:
            return None, "not run (stopped)" if self.stop.is_set() else "no answer"
        if a.problem:
            return a.results.get(item.rel), a.problem
        res = a.results.get(item.rel)
        if res is None:
            return None, "no answer for it (the task ended before it)"
        if res.rc not in item.ok or res.too_large:
            return res, why_failed(res)
        try:
            doc = jsonutil.loads("\n".join(res.out))
        except ValueError as e:
            return res, "%s (%s)" % (e, why_failed(res))
        if not isinstance(doc, dict):
            return res, "not a JSON object"
        return res, None

    def keep_single(self, answers, node, items):
        """Each item of a node's task kept on its own; (kept, failed)."""
        kept = failed = 0
        for it in items:
            res, why = self.result_of(answers, node, it)
            if why is None:
                self.put(it.rel, "\n".join(res.out).strip() + "\n")
                self.note_run_id(it.rel, res)
                self.forget_logs(it.rel)
                kept += 1
                if it.rel.endswith("/probe.json") and res.rc:  # its expectation not met
                    self.meta.setdefault("probe_exit", {})[node] = probe_exit(res)
            elif not self.stop.is_set():
                self.fail(it.rel, why, node)
                self.keep_logs(it.rel, node, res, why)
                failed += 1
        return kept, failed

    def keep_pair(self, answers, a, ia, b, ib):
        """Both documents of a pair's run kept, or neither; who failed named. (kept,
        failed) in parts."""
        ra, wa = self.result_of(answers, a, ia)
        rb, wb = self.result_of(answers, b, ib)
        if wa is None and wb is None:
            for it, res in ((ia, ra), (ib, rb)):
                self.put(it.rel, "\n".join(res.out).strip() + "\n")
                self.note_run_id(it.rel, res)
                self.forget_logs(it.rel)
            return 2, 0
        if self.stop.is_set():
            return 0, 0
        pa = answers.get(a) and answers[a].problem
        pb = answers.get(b) and answers[b].problem
        blamed = a if pa and not pb else b if pb and not pa else \
            a if wa and not wb else b if wb and not wa else None
        for x, it, res, why, y, other in ((a, ia, ra, wa, b, wb), (b, ib, rb, wb, a, wa)):
            if why is None:
                why = "kept only with its partner's: %s failed (%s)" % (y, other)
            elif blamed == y:
                why = "its partner %s did not answer (%s)" % (y, other) if \
                    answers.get(y) is None or answers[y].problem else \
                    "its partner %s failed (%s); here: %s" % (y, other, why)
            self.fail(it.rel, why, blamed)
            self.keep_logs(it.rel, x, res, why)
        return 0, 2


# --- the phases -------------------------------------------------------------------

PREFLIGHT_S = 120  # the preflight step's limit
PREFLIGHT_MIN_S = 10  # its limit at least, whatever the deadline


def preflight(sw, nodes):
    """Each node's suite version (nvme_read_bw --version) and, with --rdma-netdev, its
    address, in one step: (reachable nodes, skipped [{node, reason}], version). The
    sweep's version is the one most nodes answer; a node answering another is skipped ("suite version X, the sweep's Y"): one node cannot
    stop the others' measurement. RunError when no version is the most nodes'. Its
    limit: 120 s, or --part-limit."""
    netdev = sw.meta.get("rdma_netdev")
    items = sw.settings.version(netdev)
    limit = min(PREFLIGHT_S, float(sw.meta.get("part_limit") or PREFLIGHT_S))
    if sw.deadline is not None:
        limit = min(limit, max(PREFLIGHT_MIN_S, sw.deadline - time.monotonic() - sw.planned_left))
    t0 = time.monotonic()
    answers = sw.launcher.run([[(n, items)] for n in nodes], limit, sw.stop, "preflight")
    tm = sw.meta.setdefault("timing", {}).setdefault("preflight", {"seconds": 0.0, "steps": 0})
    tm["seconds"], tm["steps"] = round(tm["seconds"] + time.monotonic() - t0, 3), tm["steps"] + 1
    ok, skipped, versions = [], [], {}
    for n in nodes:
        res, why = sw.result_of(answers, n, items[0])
        if why is None or (res is not None and res.rc == 0):
            words = " ".join(res.out).split()
            why = None if words else "nvme_read_bw --version printed nothing"
        if why is None and netdev:
            why = address_of(sw, answers, n, items[1], netdev)
        if why is not None:
            skipped.append({"node": n, "reason": why})
            say("%s: skipped (%s)" % (n, why))
            continue
        ok.append(n)
        versions.setdefault(" ".join(res.out).split()[-1][:64], []).append(n)
    counts = sorted((len(n) for n in versions.values()), reverse=True)
    if len(counts) > 1 and counts[0] == counts[1]:
        raise RunError("suite versions differ: %s; none is the most nodes': refused, nothing "
                       "was measured" % "; ".join("%s on %s" % (v, ", ".join(n))
                                                 for v, n in sorted(versions.items())))
    want = max(versions, key=lambda v: len(versions[v])) if versions else None
    for v, ns in sorted(versions.items()):
        if v == want:
            continue
        for n in ns:
            why = "suite version %s, the sweep's %s" % (v, want)
            skipped.append({"node": n, "reason": why})
            say("%s: skipped (%s)" % (n, why))
            ok.remove(n)
    return ok, skipped, (want if ok else None)


def ipv4(word):
    """WORD (ip's "A.B.C.D/LEN") as a numeric IPv4 address in dotted form, or None: a
    node's answer is never a word a tool could read as an option or a name."""
    try:
        return str(ipaddress.IPv4Address(word.split("/")[0]))
    except ValueError:
        return None


def address_of(sw, answers, node, item, netdev):
    """None once node's IPv4 address on netdev is in meta["addresses"], else why not."""
    res = answers[node].results.get(item.rel) if answers.get(node) else None
    for line in res.out if res is not None and res.rc == 0 else []:
        words = line.split()
        if "inet" in words[:-1]:
            addr = ipv4(words[words.index("inet") + 1])
            if addr is None:
                return "no IPv4 address on %s (--rdma-netdev): ip answered '%s', not a " \
                    "numeric IPv4 address" % (netdev, words[words.index("inet") + 1][:80])
            sw.meta.setdefault("addresses", {})[node] = addr
            return None
    last = [x for x in (res.err if res else []) if x.strip()]
    return "no IPv4 address on %s (--rdma-netdev)%s" % (netdev, ": " + last[-1] if last else "")


def peer(sw, node):
    return (sw.meta.get("addresses") or {}).get(node) or node


def local_phase(sw, nodes):
    s = sw.settings
    units = []
    for n in nodes:
        items = [] if sw.have("nodes/%s/probe.json" % n) else [s.probe("nodes/%s/probe.json" % n)]
        if sw.meta.get("drives") != 0 and not sw.have("nodes/%s/read.json" % n):
            items.append(s.read("nodes/%s/read.json" % n))
        if items and not sw.left_out(n, items):
            units.append([(n, items)])
    la, d, _, drives = sw.model
    planned = la.step(len(nodes), planmod.local_window(d, drives))
    if not units:
        sw.step_limit(planned, 0)
        return True
    limit = max(sum(it.limit for it in items) for u in units for _, items in u) + 60
    answers = sw.step("local", "every node", units, limit, planned)
    kept = failed = 0
    for u in units:
        k, f = sw.keep_single(answers, u[0][0], u[0][1])
        kept, failed = kept + k, failed + f
    sw.progress("local", "%d nodes" % len(units), kept, failed)
    return not sw.stop.is_set()


def pair_items(sw, base, a, b, mem, full=False, rail=None):
    name = (lambda y: "%s.rail%d.json" % (y, rail)) if rail is not None else \
        (lambda y: "%s.json" % y)
    ra, rb = "%s/%s/%s" % (base, a, name(b)), "%s/%s/%s" % (base, b, name(a))
    s = sw.settings
    return (s.remote(ra, peer(sw, b), mem, full, rail), s.remote(rb, peer(sw, a), mem, full, rail))


def pair_step(sw, phase, where, pairs, full=False):
    """pairs: [(a, ia, b, ib)]: one step, every pair at once, each kept whole; a pair
    with a node dropped from later steps is not run (its parts failed, that node
    named)."""
    la, d, _, _ = sw.model
    planned = la.step(2 * len(pairs), d.full if full else d.window)
    todo = [(a, ia, b, ib) for a, ia, b, ib in pairs if not (sw.have(ia.rel) and sw.have(ib.rel))
            and not sw.left_out(a, [ia], b, [ib])]
    if not todo:
        sw.step_limit(planned, 0)
        return True
    units = [[(a, [ia]), (b, [ib])] for a, ia, b, ib in todo]
    limit = max(max(ia.limit, ib.limit) for _, ia, _, ib in todo) + 60
    answers = sw.step(phase, where, units, limit, planned)
    kept = failed = 0
    for a, ia, b, ib in todo:
        k, f = sw.keep_pair(answers, a, ia, b, ib)
        kept, failed = kept + k, failed + f
    sw.progress(phase, "%s (%d pairs)" % (where, len(todo)), kept, failed)
    return not sw.stop.is_set()


def fabric_phase(sw, plan):
    names = plan.names
    rails = [None]
    if sw.meta.get("rails_one_by_one"):
        rails = list(range(len([d for d in sw.meta.get("rail_devs") or [] if d])))
    for r in range(plan.rounds):
        for rail in rails:
            pairs = []
            for a, b in plan.round(r)[0]:
                ia, ib = pair_items(sw, "fabric", names[a], names[b], True, rail=rail)
                pairs.append((names[a], ia, names[b], ib))
            where = "round %d of %d%s" % (r + 1, plan.rounds,
                                          ", rail %d" % rail if rail is not None else "")
            if not pair_step(sw, "fabric", where, pairs):
                return False
    return liveness.repair_round(sw, "fabric", (pair_items, pair_step), "fabric", True, [
        (names[a], names[b]) for r in range(plan.rounds) for a, b in plan.round(r)[0]], rails)


def remote_phase(sw, plan):
    names = plan.names
    rounds = remote_rounds(plan)
    for k, rnd in enumerate(rounds):
        pairs = []
        for a, b in rnd:
            ia, ib = pair_items(sw, "remote", names[a], names[b], False)
            pairs.append((names[a], ia, names[b], ib))
        if not pair_step(sw, "drive->remote", "round %d of %d" % (k + 1, len(rounds)), pairs):
            return False
    return liveness.repair_round(sw, "drive->remote", (pair_items, pair_step), "remote", False,
                                 [(names[a], names[b]) for rnd in rounds for a, b in rnd])


def isolate_phase(sw):
    """The retests the screening asks for, in full windows, at most --isolate-budget
    steps of pairs (drives read again besides)."""
    want = retests_wanted(read_sweep(sw.top), float(sw.meta.get("threshold", 0.9)),
                          seed=sw.meta.get("seed") or 0, dropped=set(sw.dropped))
    s = sw.settings
    reads = [[(n, [s.read("isolate/nodes/%s/read.json" % n, full=True)])]
             for n in want["drives"] if not sw.have("isolate/nodes/%s/read.json" % n)]
    reads = [u for u in reads if not sw.left_out(u[0][0], u[0][1])]
    devs = [d for d in sw.meta.get("rail_devs") or [] if d]
    tasks = [(a, b, "isolate/fabric", True, None) for a, b in want["fabric"]]
    tasks += [(a, b, "isolate/alone", True, r) for a, b, r in want["alone"] if r < len(devs)]
    tasks += [(a, b, "isolate/remote", False, None) for a, b in want["remote"]]
    items = []
    for a, b, base, mem, rail in tasks:
        ia, ib = pair_items(sw, base, a, b, mem, full=True, rail=rail)
        if not (sw.have(ia.rel) and sw.have(ib.rel)):
            items.append((a, b, ia, ib))
    most = sw.launcher.fanout or len(sw.meta["nodes"])
    batches = disjoint_batches(items, max(2, most))
    budget = int(sw.meta.get("isolate_budget", 4))
    if len(batches) > budget:
        say("isolate: %d retest steps wanted, %d in the budget (--isolate-budget): the rest "
            "is not retested" % (len(batches), budget))
        batches = batches[:budget]
    # What is left of the plan: the drives read again and these retest steps.
    la, d, _, drives = sw.model
    sw.planned_left = sum(la.step(2 * len(b), d.full) for b in batches)
    if reads:
        limit = max(u[0][1][0].limit for u in reads) + 60
        planned = la.step(len(reads), planmod.local_window(d, drives, full=True))
        sw.planned_left += planned
        answers = sw.step("isolate", "drives read again", reads, limit, planned)
        kept = failed = 0
        for u in reads:
            k, f = sw.keep_single(answers, u[0][0], u[0][1])
            kept, failed = kept + k, failed + f
        sw.progress("isolate", "drives read again on %d nodes" % len(reads), kept, failed)
        if sw.stop.is_set():
            return False
    sw.steps_total = sw.steps_done + len(batches)
    for k, batch in enumerate(batches):
        if not pair_step(sw, "isolate", "retests %d of %d" % (k + 1, len(batches)),
                         [(a, ia, b, ib) for a, b, ia, ib in batch], full=True):
            return False
    return True


def phases(sw, plan):
    """The four phases; False when interrupted."""
    m = sw.meta
    e = planmod.estimate(plan, max(1, len([d for d in m.get("rail_devs") or [] if d])),
                         1 if m.get("drives") != 0 else 0, planmod.Durations(),
                         one_by_one=bool(m.get("rails_one_by_one")), remote=m.get("remote"))
    sw.steps_total = sum(v for k, v in e["steps"].items() if k != "isolate_max") + 1
    if not local_phase(sw, plan.names):
        return False
    if not fabric_phase(sw, plan):
        return False
    if m.get("remote") and m.get("drives") != 0 and not remote_phase(sw, plan):
        return False
    return isolate_phase(sw)


# --- the command ---------------------------------------------------------------------

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


def new_meta(args, nodes, groups):
    devs = args.rail_devs or [None]
    return {"tool": PROG, "format": FORMAT, "suite_version": None, "nodes": nodes,
            "groups": groups, "rails": len(devs), "rail_devs": devs,
            "drives": 0 if args.no_drives else None, "pairs": args.pairs, "seed": args.seed,
            "duration": args.duration, "warmup": args.warmup,
            "retest_duration": args.retest_duration, "retest_warmup": args.retest_warmup,
            "threshold": args.threshold, "isolate_budget": args.isolate_budget,
            "setup": args.setup,
            "rails_one_by_one": bool(args.rails_one_by_one),
            "probe_args": args.probe_arg or [], "rdma_netdev": args.rdma_netdev,
            "floors": DEFAULT_FLOORS if args.floor is None else args.floor, "spec": args.spec,
            "part_limit": getattr(args, "part_limit", None),
            "addresses": {}, "remote": not (args.no_remote or args.no_drives),
            "skipped": [], "failed": [], "timing": {}, "state": "running"}


def open_sweep(args, env, top):
    """(meta, lock, launcher) of a new sweep (its directory made) or of one resumed."""
    if args.resume is not None:
        meta = load_json(os.path.join(top, "sweep.json"))
        if not isinstance(meta, dict) or meta.get("tool") != PROG:
            raise RunError("%s: not a sweep directory (no sweep.json of nbw-fleet)" % top)
        if meta.get("format") != FORMAT:
            raise RunError("%s: a sweep of format %s; this nbw-fleet writes format %d: "
                           "start a new one" % (top, meta.get("format"), FORMAT))
        lock = take_lock(top)
        return meta, lock, make_launcher(args.launcher, env, top, args.fanout, meta["nodes"])
    nodes, groups = nodes_from(args, env)
    bad = [n for n in nodes if not NAME_RE.match(n)]
    if bad:
        raise RunError("node name '%s': %s" % (bad[0], NAME_WORDS), EXIT_USAGE)
    if args.rails_one_by_one and not args.rail_devs:
        raise RunError("--rails-one-by-one needs --rail-devs (the rails' devices)", EXIT_USAGE)
    try:
        topo = topology.for_run(args.fabric_topology, args.hostfile, nodes)
    except topology.TopologyError as e:
        raise RunError(str(e), EXIT_USAGE) from None
    new_sweep_dir(top)
    lock = take_lock(top)
    return dict(new_meta(args, nodes, groups), topology=topo), lock, make_launcher(args.launcher, env, top,
                                                             args.fanout, nodes)


def model_of(meta, env, launcher):
    """(Launch, Durations, rails, drives): the plan's model of the sweep's steps."""
    rails = max(1, len([d for d in meta.get("rail_devs") or [] if d]))
    disks = env.get("SRC_DISKS") or ""
    drives = 0 if meta.get("drives") == 0 else len(disks.split(",")) if disks else 8
    d = planmod.Durations(meta.get("duration"), meta.get("warmup"), meta.get("retest_duration"),
                          meta.get("retest_warmup"), isolate=meta.get("isolate_budget"))
    setup = meta.get("setup") if isinstance(meta.get("setup"), (int, float)) else None
    return planmod.Launch(launcher.kind, launcher.fanout or planmod.FANOUT, setup), d, rails, \
        drives


def plan_of(meta):
    """The sweep's plan, with the rounds its topology adds (nbw.fleet.topology)."""
    return topology.apply(Plan(len(meta["nodes"]), meta["pairs"], seed=meta["seed"],
                               names=meta["nodes"]), topology.load(meta), int(meta["rails"]))


def check_time(args, env, meta, launcher):
    """RunError when the plan does not fit --max-time or the allocation's time left."""
    la, d, rails, drives = model_of(meta, env, launcher)
    disks = env.get("SRC_DISKS") or ""
    doc = planmod.plan_document(plan_of(meta), la,
                                d, rails, drives, meta.get("seed"),
                                bool(meta.get("rails_one_by_one")), bool(meta.get("remote")),
                                args.max_time, env)
    line = planmod.fit_line(doc)
    if line:
        raise RunError("%s (with %d drives a node%s); refused, nothing was run" % (
            line, drives, "" if disks else ": SRC_DISKS names them"))
    return doc


def start(args, env, out=sys.stdout):
    """nbw-fleet run: the exit status."""
    resume = args.resume is not None
    top = args.resume if resume else args.out
    made = False
    try:
        meta, lock, launcher = open_sweep(args, env, top)
        made = not resume
        sw = Sweep(top, meta, env, launcher)
        sw.model = model_of(meta, env, launcher)
        la, d, rails, drives = sw.model
        est = planmod.estimate(
            plan_of(meta), rails, drives, d, la,
            bool(meta.get("rails_one_by_one")), bool(meta.get("remote")))
        total = est["total_s"]
        note = act.launcher_note(env, launcher.kind, getattr(args, "launcher", None) == "ssh")
        if note:
            say(note)
        # The run keeps its deadline: --max-time, or the allocation's time left.
        sw.set_deadline(*planmod.time_limit(args.max_time, env), planned=total)
        if not resume:
            doc = check_time(args, env, meta, launcher)
            # the plan as it was made, kept with the sweep (nbw-results record keeps it)
            meta["plan"] = {k: doc.get(k) for k in PLAN_KEPT}
            meta["launcher"] = launcher.kind
            meta["nodes"], meta["skipped"], meta["suite_version"] = preflight(sw, meta["nodes"])
            if len(meta["nodes"]) < 2:
                raise RunError("fewer than two nodes reachable: nothing to sweep")
        else:
            _, skipped, v = preflight(sw, meta["nodes"])
            if v is not None and meta.get("suite_version") not in (None, v):
                raise RunError("the nodes now run suite version %s, the sweep was started with "
                               "%s: refused" % (v, meta["suite_version"]))
            meta["failed"] = []
            for s in skipped:  # another version now: its parts are not measured
                if s["reason"].startswith("suite version "):
                    sw.dropped[s["node"]] = s["reason"]
        argv = getattr(args, "argv", None)
        if not resume:  # the real command line, its settings, its start (nbw-results record)
            meta["argv"] = argv
            meta["settings"] = {k: env[k] for k in SETTINGS_ENV if env.get(k)}
            meta["started"] = utc_now()
        elif argv:
            meta.setdefault("resumed_argv", []).append(argv)
        meta["state"] = "running"
        sw.save_meta()
    except (RunError, LaunchError) as e:
        if made:
            # Refused before anything ran: the new directory goes again.
            lock.close()
            shutil.rmtree(top, ignore_errors=True)
        say(str(e))
        return getattr(e, "status", 1)
    plan = plan_of(meta)
    say("sweep of %d nodes (%d skipped), %d rails, pairs %s: %d rounds, through %s, in %s" % (
        plan.n, len(meta["skipped"]), int(meta["rails"]), plan.mode, plan.rounds,
        launcher.kind if launcher.kind == "srun" else "%s (fan-out %d)" % (
            launcher.words[0], launcher.fanout), top))
    old = signal.signal(signal.SIGINT, lambda *_: sw.stop.set())
    try:
        finished = phases(sw, plan)
    except LaunchError as e:
        say(str(e))
        finished = None
    finally:
        signal.signal(signal.SIGINT, old)
        meta["state"] = "done" if not sw.stop.is_set() and finished else "interrupted"
        meta["finished"] = utc_now()
        sw.save_meta()
        lock.close()
    if finished is None:
        return 1
    if not finished:
        say("interrupted: what was measured is kept in %s; resume with: %s run --resume %s"
            % (top, PROG, shlex.quote(top)))
        return EXIT_INTERRUPTED
    t0 = time.monotonic()
    result = judge(read_sweep(top), float(meta.get("threshold", 0.9)))
    with open(os.path.join(top, "judge.json"), "w") as f:
        report.as_json(result, f)
    meta.setdefault("timing", {})["judge"] = {"seconds": round(time.monotonic() - t0, 3),
                                              "steps": 1}
    report.text(result, out)
    status = act.after_run(args, result, env, meta)
    sw.save_meta()
    say(liveness.timing_line(meta, est, time.monotonic() - sw.started))
    say("done: %s (judge again: %s judge %s)" % (top, PROG, shlex.quote(top)))
    return status
