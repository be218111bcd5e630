"""nbw.fleet.plan: which pairs a fleet sweep measures, in which rounds, and how long it takes.

The fabric is measured in rounds of disjoint pairs, so that every node is busy with one
partner at a time and no port carries two tests. The rounds come from the round-robin
"circle" schedule: with M nodes (M even; an odd fleet gets a bye, a phantom node whose
partner sits the round out) node M-1 stays put and the others turn around it, so that
M-1 rounds hold every pair exactly once. Nothing here lists the rounds: a round's pairs
are computed when they are asked for, so a plan for thousands of nodes costs nothing
until its pairs are printed.

Modes:
  all     every pair, in M-1 rounds;
  ring    each node with its two neighbours in the (shuffled) order: 2 rounds, 3 when
          the ring is odd;
  K       K partners each: K rounds picked at random from the circle schedule (each
          round a perfect matching, so the K partners are distinct and the rounds
          disjoint);
  ring+K  the ring, then K rounds of the circle schedule without the pairs the ring
          measured already: every node has at least 2 partners (K + 2 mostly) and the
          graph of the pairs is connected, whatever the draw;
  auto    all up to AUTO_ALL_UP_TO nodes, ring+AUTO_K beyond (the default).

A seed shuffles the order of the nodes (and picks the K rounds): the same seed, the
same plan.

The time a sweep takes is a sum of steps (see estimate()): each step starts the tools
on its nodes (the launcher's cost and the tools' own set-up, set_up()) and waits for
their windows. A round of the fabric is one step whatever the rails: one run per pair
measures every rail and both directions at once.
"""

import math
import random
import re
import time

from . import FORMAT, PROG

AUTO_ALL_UP_TO = 16  # up to this many nodes, every pair by default
AUTO_K = 4  # beyond, the ring and this many random partners


def parse_pairs(text):
    """'all', 'ring', 'auto', a positive K or 'ring+K'; raises ValueError with the
    reason."""
    if text in ("all", "ring", "auto"):
        return text
    ring = text.startswith("ring+")
    word = text[5:] if ring else text
    try:
        k = int(word, 10)
    except ValueError:
        raise ValueError("%s: all, ring, auto, a number of partners K or ring+K" % text) \
            from None
    if k < 1:
        raise ValueError("%s: at least 1 partner" % text)
    return "ring+%d" % k if ring else k


def resolve_pairs(n, mode):
    """The mode a plan of n nodes uses for mode (auto: by the fleet's size)."""
    if mode != "auto":
        return mode
    return "all" if n <= AUTO_ALL_UP_TO else "ring+%d" % AUTO_K


def circle_round(m, r):
    """The pairs of round r (0-based) of the circle schedule of m slots (m even), as
    (slot, slot) tuples; slot m-1 is fixed, the others turn."""
    last = m - 1
    yield (r, last)
    for i in range(1, m // 2):
        yield ((r + i) % last, (r - i) % last)


class Plan:
    """A sweep's pairing of n nodes. Node indices 0..n-1 refer to `names` (or, without
    names, to n0001, n0002, ...)."""

    def __init__(self, n, pairs="auto", seed=0, names=None):
        if n < 1:
            raise ValueError("a fleet has at least one node")
        if names is not None and len(names) != n:
            raise ValueError("%d names for %d nodes" % (len(names), n))
        self.n = n
        self.asked = pairs
        pairs = resolve_pairs(n, pairs)
        self.mode = pairs
        self.seed = seed
        self.names = list(names) if names is not None else None
        rng = random.Random(seed)
        self.order = list(range(n))
        if seed is not None:
            rng.shuffle(self.order)
        self.slots = n + (n % 2)  # an odd fleet gets a bye slot
        total = self.slots - 1 if n > 1 else 0
        self.ring_rounds = 0
        self._ring_edges = None
        self._sizes = {}  # ring+K: round -> its pairs' count, once computed
        # Rounds after the schedule's: a topology's (nbw.fleet.topology.apply), lists of
        # (a, b) node indices.
        self.extra = []
        if pairs == "all":
            self.rounds_of_circle = list(range(total))
        elif pairs == "ring":
            self.rounds_of_circle = []
            self.ring_rounds = self._ring_count()
        else:
            k = int(str(pairs).split("+")[-1])
            if isinstance(pairs, str):  # ring+K
                self.ring_rounds = self._ring_count()
            self.rounds_of_circle = sorted(rng.sample(range(total), min(k, total)))

    def _ring_count(self):
        if self.n < 2:
            return 0
        if self.n == 2:
            return 1
        return 2 if self.n % 2 == 0 else 3

    def name(self, i):
        return self.names[i] if self.names is not None else "n%04d" % (i + 1)

    @property
    def rounds(self):
        return self.ring_rounds + len(self.rounds_of_circle) + len(self.extra)

    def ring_edges(self):
        """The ring's pairs as a set of (low, high) node indices (ring and ring+K)."""
        if self._ring_edges is None:
            self._ring_edges = set()
            for r in range(self.ring_rounds):
                for a, b in self._ring_round(r)[0]:
                    self._ring_edges.add((min(a, b), max(a, b)))
        return self._ring_edges

    def pairs_in_round(self, r):
        """How many pairs round r holds (a round of ring+K computes its pairs)."""
        if r >= self.rounds - len(self.extra):
            return len(self.extra[r - self.rounds + len(self.extra)])
        if r < self.ring_rounds:
            n = self.n
            if n == 2:
                return 1
            if n % 2 == 0:
                return n // 2
            # An odd ring of n edges: rounds of (n-1)/2, (n-1)/2 and 1.
            return (n - 1) // 2 if r < 2 else 1
        if self.ring_rounds:
            if r not in self._sizes:
                self._sizes[r] = len(self.round(r)[0])
            return self._sizes[r]
        return self.n // 2

    @property
    def pair_count(self):
        return sum(self.pairs_in_round(r) for r in range(self.rounds))

    def round(self, r):
        """Round r (0-based): a list of (a, b) node indices and the list of the nodes
        that sit it out (the bye of an odd fleet; in an odd ring's third round, all
        but two; in ring+K, the two ends of a pair the ring measured already)."""
        if not 0 <= r < self.rounds:
            raise IndexError("round %d of %d" % (r + 1, self.rounds))
        if r < self.ring_rounds:
            return self._ring_round(r)
        if r >= self.rounds - len(self.extra):
            pairs = list(self.extra[r - self.rounds + len(self.extra)])
            busy = {x for p in pairs for x in p}
            return pairs, [i for i in self.order if i not in busy]
        seen = self.ring_edges() if self.ring_rounds else ()
        pairs, idle = [], []
        for a, b in circle_round(self.slots, self.rounds_of_circle[r - self.ring_rounds]):
            if a >= self.n or b >= self.n:
                idle.append(self.order[b if a >= self.n else a])
                continue
            a, b = self.order[a], self.order[b]
            if (min(a, b), max(a, b)) in seen:
                idle += [a, b]
                continue
            pairs.append((a, b))
        return pairs, idle

    def _ring_round(self, r):
        o, n = self.order, self.n
        if n == 2:
            return [(o[0], o[1])], []
        # Edge i joins positions i and i+1 (mod n); even edges, then odd edges, and the
        # closing edge of an odd ring alone.
        if n % 2 == 1 and r == 2:
            return [(o[n - 1], o[0])], o[1:n - 1]
        last = n if n % 2 == 0 else n - 1
        pairs = [(o[i], o[(i + 1) % n]) for i in range(r, last, 2)]
        idle = []
        if n % 2 == 1:
            idle = [o[n - 1] if r == 0 else o[0]]
        return pairs, idle

    def partners(self, i):
        """Every partner of node i over all rounds (computes every round: for tests and
        small fleets)."""
        out = []
        for r in range(self.rounds):
            for a, b in self.round(r)[0]:
                if a == i:
                    out.append(b)
                elif b == i:
                    out.append(a)
        return out


def remote_rounds(plan):
    """The drive -> remote DRAM phase: each node with one partner, the partner next to it
    in the shuffled order, both ways at once (--bidir: each node's drives into the
    other's DRAM); an odd fleet's last node with the first in a second round. A list of
    rounds, each a list of (a, b)."""
    n = plan.n
    if n < 2:
        return []
    o = plan.order
    base = [(o[i], o[i + 1]) for i in range(0, n - n % 2, 2)]
    return [base] if n % 2 == 0 else [base, [(o[n - 1], o[0])]]


# --- the cost of a step -----------------------------------------------------------

# The tools' own start and end around a window: nvme_write_bw_remote's control
# connection, memory registration (--dram: 16 GiB by default), QPs and teardown;
# nvme_read_bw's open and buffers. An assumption stated, not a measurement: --setup
# replaces the whole cost of a step with a figure of one's own.
TOOL_SETUP_S = 3.0
# Slurm starts a step through a tree of slurmds: a constant and a term per level.
SRUN_BASE_S = 1.0
SRUN_PER_LOG2_S = 0.5
# ssh (or any LAUNCHER): connections opened at once up to --fanout; each connection's
# handshake is paid in parallel, the host's own cost per node in series. HOST_PER_NODE_S
# is what scripts/bench_fleet.sh measured of this suite's host side per node and step
# (docs/benchmarks.md); SSH_BASE_S one handshake.
SSH_BASE_S = 0.5
HOST_PER_NODE_S = 0.02
FANOUT = 256  # ssh connections at once by default


class Launch:
    """How a step reaches its nodes: kind "srun" (one srun step over the allocation)
    or "ssh" (one launcher process per node, at most fanout at once: a step over more
    nodes runs in waves of whole pairs); setup, when given, the whole cost of a step."""

    def __init__(self, kind="srun", fanout=FANOUT, setup=None):
        if kind not in ("srun", "ssh"):
            raise ValueError("%s: srun or ssh" % kind)
        self.kind, self.fanout, self.setup = kind, max(2, int(fanout)), setup

    def waves(self, nodes):
        """How many waves a step over nodes takes (srun: one)."""
        if self.kind == "srun" or nodes <= self.fanout:
            return 1
        return -(-nodes // (self.fanout - self.fanout % 2))

    def set_up(self, nodes):
        """Seconds of one wave's start and end over nodes, windows aside."""
        if self.setup is not None:
            return self.setup
        if nodes < 1:
            return 0.0
        if self.kind == "srun":
            return TOOL_SETUP_S + SRUN_BASE_S + SRUN_PER_LOG2_S * math.log2(max(2, nodes))
        return TOOL_SETUP_S + SSH_BASE_S + HOST_PER_NODE_S * min(nodes, self.fanout)

    def step(self, nodes, window):
        """Seconds of a step over nodes whose tools run window seconds."""
        w = self.waves(nodes)
        return w * (self.set_up(-(-nodes // w)) + window)


class Durations:
    """The windows of a sweep: screening (warm-up + duration) for every phase, full
    windows (retest warm-up + retest duration) for the retests; the probe's seconds;
    the isolate phase's budget of retest steps."""

    def __init__(self, duration=5.0, warmup=2.0, retest_duration=20.0, retest_warmup=3.0,
                 probe=5.0, isolate=4):
        self.duration, self.warmup = duration, warmup
        self.retest_duration, self.retest_warmup = retest_duration, retest_warmup
        self.probe = probe
        self.isolate = isolate  # retest steps of the isolate phase at most

    @property
    def window(self):
        return self.warmup + self.duration

    @property
    def full(self):
        return self.retest_warmup + self.retest_duration


def local_window(d, drives, full=False):
    """The local step's tool time: the probe, then each drive alone and all together
    (nvme_read_bw --baseline) in one launch; a retest reads the drives alone."""
    w = d.full if full else d.window
    if full:
        return (drives + 1) * w
    return d.probe + ((drives + 1) * w if drives > 0 else 0)


# What a sweep does with a node that fails to start, dies or hangs (nbw.fleet.liveness).
DEAD_NODES = ("dropped at its first failure (a step's limit, once); its partners re-paired "
              "in one round after the fabric and drive->remote phases (not planned)")

# The judgement's seconds on the host: a base and a share per node and kind of part
# (nbw-fleet judge of 4096 nodes x 8 rails x 8 drives: about 20 s of processor time).
JUDGE_BASE_S = 0.5
JUDGE_PER_PART_S = 0.0003


def estimate(plan, rails, drives, d, launch=None, one_by_one=False, remote=True):
    """Seconds of each phase of a sweep (a dict) and its steps. preflight: one step,
    every node, the suite's version (no window); local: one step, every
    node; fabric: a step per round (per round and rail with one_by_one), every rail and
    both directions in one run; remote: the rounds of remote_rounds(); isolate: the
    budget, its drives read again and d.isolate retest steps of full windows; judge: the
    host's judgement, by the sweep's size. A node dropped at its failure costs at most
    one step's limit, once; its partners' re-pair rounds are not planned (a healthy
    fleet has none)."""
    launch = launch or Launch()
    n = plan.n
    local = launch.step(n, local_window(d, drives))
    per = rails if one_by_one and rails > 1 else 1
    fabric, steps = 0.0, 0
    sizes = {}
    for r in range(plan.rounds):
        k = plan.pairs_in_round(r)
        sizes[k] = sizes.get(k, 0) + 1
    for k, count in sizes.items():
        fabric += count * per * launch.step(2 * k, d.window)
        steps += count * per
    rem = remote_rounds(plan) if drives > 0 and remote else []
    remote_s = sum(launch.step(2 * len(rnd), d.window) for rnd in rem)
    # A retest step holds the suspects and their partners, at most one wave of them
    # (the run puts what is beyond into the next step, counted in the budget).
    few = min(n, launch.fanout) if launch.kind == "ssh" else n
    isolate = d.isolate * launch.step(few, d.full)
    if drives > 0:
        isolate += launch.step(few, local_window(d, drives, full=True))
    preflight = launch.step(n, 0.0)
    judge = round(JUDGE_BASE_S + JUDGE_PER_PART_S * n * (rails + drives + 1), 3)
    total = preflight + local + fabric + remote_s + isolate + judge
    return {"preflight_s": preflight, "judge_s": judge, "local_s": local, "fabric_s": fabric,
            "remote_s": remote_s, "isolate_s": isolate,
            "screening_s": local + fabric + remote_s, "total_s": total,
            "steps": {"local": 1, "fabric": steps, "remote": len(rem),
                      "isolate_max": d.isolate + (1 if drives > 0 else 0)}}


def would_fit(n, pairs, seed, rails, drives, d, launch, limit, one_by_one=False,
              remote=True):
    """The settings that alone bring the total under limit seconds, as
    [{"option", "total_s"}]: of each kind of change the mildest that fits (fewer
    partners, fewer retest steps, shorter screening windows, no drive->remote phase, a
    wider fan-out or Slurm's launch), the one that gives up least first."""
    def total(p=pairs, dd=d, la=launch, rem=remote, obo=one_by_one):
        return estimate(Plan(n, p, seed=seed), rails, drives, dd, la, obo, rem)["total_s"]

    def durations(**kw):
        args = dict(duration=d.duration, warmup=d.warmup, retest_duration=d.retest_duration,
                    retest_warmup=d.retest_warmup, probe=d.probe, isolate=d.isolate)
        args.update(kw)
        return Durations(**args)

    pc = Plan(n, pairs, seed=seed).pair_count
    kinds = [
        [("without --rails-one-by-one", {"obo": False})] if one_by_one else [],
        [("--pairs %s" % m, {"p": m}) for m in ("ring+4", "ring+2", "ring")
         if Plan(n, m, seed=seed).pair_count < pc],
        [("--isolate-budget %d" % k, {"dd": durations(isolate=k)}) for k in (2, 1, 0)
         if k < d.isolate],
        [("--duration %g" % s, {"dd": durations(duration=s)}) for s in (3.0, 2.0)
         if s < d.duration],
        [("--no-remote", {"rem": False})] if drives > 0 and remote else [],
        [("--fanout %d" % f, {"la": Launch("ssh", f, launch.setup)}) for f in (1024, 4096)
         if launch.kind == "ssh" and f > launch.fanout] +
        ([("srun (inside a Slurm allocation)", {"la": Launch("srun", setup=launch.setup)})]
         if launch.kind == "ssh" else []),
    ]
    out = []
    for kind in kinds:
        for option, kw in kind:
            t = total(**kw)
            if t <= limit:
                out.append({"option": option, "total_s": t})
                break
    return sorted(out, key=lambda x: -x["total_s"])


def human_seconds(s):
    s = int(round(s))
    if s < 120:
        return "%d s" % s
    if s < 2 * 3600:
        return "%d min %02d s" % (s // 60, s % 60)
    if s < 2 * 86400:
        return "%d h %02d min" % (s // 3600, s % 3600 // 60)
    return "%.1f days" % (s / 86400.0)


def time_limit(max_time, env, now=None):
    """(seconds, what) the sweep must fit in: --max-time, the Slurm allocation's time
    left (SLURM_JOB_END_TIME), the smaller; (None, None) without either."""
    limits = []
    if max_time is not None:
        limits.append((max_time, "--max-time %s" % human_seconds(max_time)))
    end = env.get("SLURM_JOB_END_TIME", "")
    if re.fullmatch(r"[0-9]{1,12}", end):
        left = int(end) - (time.time() if now is None else now)
        limits.append((max(0.0, left), "the allocation's time left (SLURM_JOB_END_TIME): %s"
                       % human_seconds(max(0.0, left))))
    return min(limits) if limits else (None, None)


def plan_document(plan, launch, d, rails, drives, seed, one_by_one=False, remote=True,
                  max_time=None, env=None):
    """The plan as a document: its pairs, steps, windows (d, Durations), each phase's
    seconds and whether it fits the time it has (max_time: --max-time; env's
    allocation)."""
    phases = estimate(plan, rails, drives, d, launch, one_by_one, remote)
    steps = phases.pop("steps")
    sizes = sorted({plan.pairs_in_round(r) for r in range(min(plan.rounds, 4))}
                   | ({plan.pairs_in_round(plan.rounds - 1)} if plan.rounds else set()))
    doc = {
        "tool": PROG, "command": "plan", "format": FORMAT,
        "nodes": plan.n, "rails": rails, "drives": drives,
        "pairs_mode": plan.mode, "pairs_asked": plan.asked, "seed": seed,
        "defaults": {"auto_all_up_to": AUTO_ALL_UP_TO, "auto_k": AUTO_K},
        "rounds": plan.rounds,
        "pairs_per_round": max(sizes) if sizes else 0,
        "pairs_per_round_min": min(sizes) if sizes else 0,
        "pair_count": plan.pair_count,
        "rails_one_by_one": bool(one_by_one),
        "launcher": {"kind": launch.kind, "fanout": launch.fanout if launch.kind == "ssh"
                     else None, "waves_per_round": launch.waves(plan.n - plan.n % 2),
                     "setup_s": round(launch.set_up(plan.n), 3),
                     "setup_given": launch.setup is not None},
        "steps": steps,
        "measurements": {
            "drive_windows_per_node": drives + 1 if drives else 0,
            "fabric_runs": plan.pair_count * (rails if one_by_one else 1),
            "fabric_directions": plan.pair_count * rails * 2,
            "remote_runs": sum(len(r) for r in remote_rounds(plan))
            if drives and remote else 0,
            "isolate_budget": d.isolate,
        },
        "durations": {"duration_s": d.duration, "warmup_s": d.warmup,
                      "window_s": d.window, "retest_duration_s": d.retest_duration,
                      "retest_warmup_s": d.retest_warmup, "full_window_s": d.full,
                      "probe_s": d.probe},
        "phases_s": phases,
        "dead_nodes": DEAD_NODES,
    }
    limit, what = time_limit(max_time, env or {})
    doc["limit_s"], doc["limit"] = limit, what
    doc["fits"] = None if limit is None else phases["total_s"] <= limit
    doc["would_fit"] = [] if doc["fits"] in (None, True) else would_fit(
        plan.n, plan.asked, seed, rails, drives, d, launch, limit, one_by_one, remote)
    return doc


def fit_line(doc):
    """One line: the plan does not fit, and what would (None when it fits)."""
    if doc["fits"] in (None, True):
        return None
    alt = "; ".join("%s (%s)" % (x["option"], human_seconds(x["total_s"]))
                    for x in doc["would_fit"])
    return "the plan takes %s, more than %s: %s" % (
        human_seconds(doc["phases_s"]["total_s"]), doc["limit"],
        "would fit: " + alt if alt else "no single setting fits; fewer nodes would")
