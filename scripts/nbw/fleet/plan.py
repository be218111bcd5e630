"""nbw.fleet.plan: which pairs a fleet sweep measures, in which rounds, and how long it takes.

The fabric is measured in rounds of disjoint pairs, so that every node is busy with one
partner at a time and no port carries two tests. The rounds come from the round-robin
"circle" schedule: with M nodes (M even; an odd fleet gets a bye, a phantom node whose
partner sits the round out) node M-1 stays put and the others turn around it, so that
M-1 rounds hold every pair exactly once. Nothing here lists the rounds: a round's pairs
are computed when they are asked for, so a plan for thousands of nodes costs nothing
until its pairs are printed.

Modes:
  all   every pair, in M-1 rounds;
  ring  each node with its two neighbours in the (shuffled) order: 2 rounds, 3 when the
        ring is odd;
  K     K partners each: K rounds picked at random from the circle schedule (each round
        a perfect matching, so the K partners are distinct and the rounds disjoint).

A seed shuffles the order of the nodes (and picks the K rounds): the same seed, the
same plan.
"""

import random


def parse_pairs(text):
    """'all', 'ring' or a positive K; raises ValueError with the reason."""
    if text in ("all", "ring"):
        return text
    try:
        k = int(text, 10)
    except ValueError:
        raise ValueError("%s: all, ring or a number of partners" % text) from None
    if k < 1:
        raise ValueError("%s: at least 1 partner" % text)
    return k


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

    def __init__(self, n, pairs="all", seed=0, names=None):
        if n < 1:
            raise ValueError("a fleet has at least one node")
        if names is not None and len(names) != n:
            raise ValueError("%d names for %d nodes" % (len(names), n))
        self.n = n
        self.mode = pairs
        self.seed = seed
        self.names = list(names) if names is not None else None
        rng = random.Random(seed)
        self.order = list(range(n))
        if seed is not None:
            rng.shuffle(self.order)
        self.slots = n + (n % 2)  # an odd fleet gets a bye slot
        if pairs == "all":
            self.rounds_of_circle = list(range(self.slots - 1)) if n > 1 else []
        elif pairs == "ring":
            self.rounds_of_circle = None
        else:
            total = self.slots - 1 if n > 1 else 0
            k = min(int(pairs), total)
            self.rounds_of_circle = sorted(rng.sample(range(total), k))

    def name(self, i):
        return self.names[i] if self.names is not None else "n%04d" % (i + 1)

    @property
    def rounds(self):
        if self.rounds_of_circle is not None:
            return len(self.rounds_of_circle)
        if self.n < 2:
            return 0
        if self.n == 2:
            return 1
        return 2 if self.n % 2 == 0 else 3

    def pairs_in_round(self, r):
        """How many pairs round r holds (without computing them)."""
        if self.rounds_of_circle is not None:
            return self.n // 2
        if self.n == 2:
            return 1
        if self.n % 2 == 0:
            return self.n // 2
        # An odd ring of n edges: rounds of (n-1)/2, (n-1)/2 and 1.
        return (self.n - 1) // 2 if r < 2 else 1

    @property
    def pair_count(self):
        if self.rounds_of_circle is not None:
            return self.rounds * (self.n // 2)
        if self.n < 3:
            return self.n - 1
        return self.n

    def round(self, r):
        """Round r (0-based): a list of (a, b) node indices and the list of the nodes
        that sit it out (the bye of an odd fleet; in an odd ring's third round, all
        but two)."""
        if not 0 <= r < self.rounds:
            raise IndexError("round %d of %d" % (r + 1, self.rounds))
        if self.rounds_of_circle is None:
            return self._ring_round(r)
        pairs, idle = [], []
        for a, b in circle_round(self.slots, self.rounds_of_circle[r]):
            if a >= self.n or b >= self.n:
                idle.append(self.order[b if a >= self.n else a])
                continue
            pairs.append((self.order[a], self.order[b]))
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
    """The drive -> remote DRAM phase: each node's drives into one partner's DRAM, the
    partner next to it in the shuffled order, first one way, then the other (an odd
    fleet's last node with the first, in two more rounds): a list of rounds, each a
    list of (source, sink)."""
    n = plan.n
    if n < 2:
        return []
    o = plan.order
    if n % 2 == 0:
        base = [(o[i], o[i + 1]) for i in range(0, n, 2)]
        return [base, [(b, a) for a, b in base]]
    # Odd: the pairs of the even prefix both ways, then the last node with the first.
    base = [(o[i], o[i + 1]) for i in range(0, n - 1, 2)]
    return [base, [(b, a) for a, b in base], [(o[n - 1], o[0])], [(o[0], o[n - 1])]]


class Durations:
    """Seconds of one measurement: the window (warm-up + duration) plus the cost of
    starting it on the nodes (setup)."""

    def __init__(self, duration=20.0, warmup=3.0, setup=5.0, probe=5.0, isolate=16):
        self.duration = duration
        self.warmup = warmup
        self.setup = setup
        self.probe = probe
        self.isolate = isolate  # retest windows budgeted for the isolate phase

    @property
    def window(self):
        return self.warmup + self.duration + self.setup


def estimate(plan, rails, drives, d):
    """Seconds of each phase of a sweep (a dict) under durations d. local: every node at
    once (the probe, each drive alone, all together); fabric: rounds x rails x two
    directions, one after the other; remote: the rounds of remote_rounds(); isolate:
    the budget of retest windows."""
    w = d.window
    local = d.probe + (drives + 1) * w if drives > 0 else d.probe
    fabric = plan.rounds * rails * 2 * w
    remote = len(remote_rounds(plan)) * w if drives > 0 else 0.0
    isolate = d.isolate * w
    return {"local_s": local, "fabric_s": fabric, "remote_s": remote, "isolate_s": isolate,
            "total_s": local + fabric + remote + isolate}


def human_seconds(s):
    s = int(round(s))
    if s < 120:
        return "%d s" % s
    if s < 2 * 3600:
        return "%d min %02d s" % (s // 60, s % 60)
    if s < 2 * 86400:
        return "%d h %02d min" % (s // 3600, s % 3600 // 60)
    return "%.1f days" % (s / 86400.0)
