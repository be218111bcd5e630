"""nbw.fleet.judge_retest: what the isolate phase measures again, from the screening
(the drives of nodes under suspicion, the pairs of the rails and of drive -> remote, a
node's rails each alone), by the judge's rules (nbw.fleet.judge, nbw.fleet.judge_pairs).
"""

import random
import statistics

from .judge import THRESHOLD, _fabric, judge_drives, judge_together, remote_reference
from .judge_pairs import _low_partners, _Pairs, _ratio, part_candidates


ALONE_RAILS = 2  # rails of a node measured each alone at most (the lowest first)


def retests_wanted(sweep, threshold=THRESHOLD, seed=0, dropped=()):
    """The isolate phase's work, from the screening: {"drives": [nodes to read again],
    "fabric": [(a, b)] pairs measured again (every rail, both ways: --bidir),
    "alone": [(a, b, rail)] a rail of a pair measured alone, "remote": [(a, b)]}. Each
    part under suspicion against two partners that passed, each low pair that no part
    explains again, and a node's rails under suspicion (the lowest ALONE_RAILS) each
    alone with a partner that passed (low alone: the rail; normal alone: a limit the
    rails share upstream). Deterministic for a seed. dropped: nodes dropped from the
    later steps (dead, hung: nbw.fleet.liveness), never retested nor a partner; a part
    whose partner that passed would be one gets another."""
    dropped = frozenset(dropped)
    rng = random.Random(seed)
    want = {"drives": [], "fabric": [], "alone": [], "remote": []}
    dparts, dsus = judge_drives(sweep, threshold)
    tparts, tsus = judge_together(sweep, threshold, {s["node"] for s in dsus})
    want["drives"] = sorted({s["node"] for s in dsus + tsus} - dropped)
    nodes = sorted((set(sweep.nodes) | {t.src for t in sweep.transfers} |
                    {t.dst for t in sweep.transfers}) - dropped)
    _, ratio, by_rail, _ = _fabric(sweep)
    per_rail = {rail: _Pairs(rail, [t for t in ts if not t.retest], ratio)
                for rail, ts in sorted(by_rail.items())}
    first = {}
    want["fabric"] = _isolate_pairs(list(per_rail.values()), nodes, threshold, rng,
                                    first=first, dropped=dropped)
    cands = {rail: part_candidates(p, threshold) for rail, p in per_rail.items()}
    if len(per_rail) > 1:
        for x in sorted(set().union(*cands.values()) - dropped):
            rails = sorted((r for r, c in cands.items() if x in c),
                           key=lambda r: (_node_ratio(per_rail[r], x), r))[:ALONE_RAILS]
            if x in first:
                want["alone"] += [(x, first[x], r) for r in rails]
    rem = [t for t in sweep.transfers if t.channel == "remote" and not t.retest]
    if rem:
        share, m = remote_reference(sweep, threshold, rem, dparts + tparts)
        pairs = _Pairs("remote", rem, lambda t: _ratio(share(t), m))
        want["remote"] = _isolate_pairs([pairs], nodes, threshold, rng,
                                        set().union(*cands.values()) if cands else set(),
                                        dropped=dropped)
    return want


def _node_ratio(pairs, x):
    ratios = [r for rs in pairs.sweep.get(x, {}).values() for r in rs]
    return statistics.median(ratios) if ratios else 1.0


def _isolate_pairs(channels, nodes, threshold, rng, explained=frozenset(), first=None,
                   dropped=frozenset()):
    """The pairs to measure again over channels (a _Pairs each: the rails, or
    drive -> remote): each part under suspicion on any of them with two partners that
    passed, each low pair that no part explains; a pair through a node in explained (a
    rail under suspicion, for drive -> remote) is left out: its rail is retested and
    explains it. first: {node: the first partner it got} for the rails alone. A pair
    or a part of a node in dropped is not measured again (nodes: without them, so no
    partner is one)."""
    cands = set().union(*(part_candidates(p, threshold) for p in channels)) - set(explained)
    bad = cands | set(explained)
    again = []
    for p in channels:
        for (a, b), rs in sorted(p.pair_sweep.items()):
            if min(rs) < threshold and not {a, b} & (bad | dropped) and (a, b) not in again:
                again.append((a, b))
    to_test = (cands - dropped) | {x for pair in again for x in pair}
    # A partner that passed: measured, not under suspicion, low only with parts that are.
    good = [n for n in nodes if any(n in p.sweep for p in channels) and n not in to_test
            and n not in bad and not any(_low_partners(p.sweep.get(n, {}), threshold,
                                                       exclude=bad) for p in channels)]
    out = list(again)
    for x in sorted(to_test):
        # Two partners that passed: those it has not met first, then those it has (a
        # part that met all but one, its pair with that one failed, is still retested
        # twice: a single retest would decide alone).
        met = set().union(*(p.sweep.get(x, {}).keys() for p in channels))
        unmet = [g for g in good if g not in met]
        picks = rng.sample(unmet, min(2, len(unmet)))
        rest = [g for g in good if g in met]
        picks += rng.sample(rest, min(2 - len(picks), len(rest)))
        for g in picks:
            out.append((x, g))
            if first is not None:
                first.setdefault(x, g)
    return out
