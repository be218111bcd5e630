"""nbw.fleet.liveness: nodes that fail to start, die or hang, and the sweep's time.

A node whose task fails as a whole in a step (unreachable, the launch failing, no
answer within the step's limit, the wrong node answering) is dropped at that first
failure: NOT MEASURED with the reason and the step, its later parts not run (no later
step waits for it, none pays its limit again). In a pair whose both ends fail, the end
that never started its task is the one dropped (its partner only waited for it); when
both started, both are.

The partners a dropped node leaves without their pair are re-paired: after the fabric
and the drive->remote phases, one re-pair round (one step) gives each of them a new
partner, another such partner first, else a healthy node it was not paired with in the
phase; the run says which pairs and why.

timing_line(): the sweep's measured seconds per phase beside the plan's.
"""

from .launch import STOPPED_WORDS
from .nodes import say
from .plan import human_seconds

PHASES = (("preflight", "preflight_s"), ("local", "local_s"), ("fabric", "fabric_s"),
          ("drive->remote", "remote_s"), ("isolate", "isolate_s"), ("judge", "judge_s"))


def drop_failed(sw, phase, where, units, answers):
    """After a step: each node whose task failed as a whole is dropped from the later
    steps (sw.dropped: node -> why), the step named; its answer's problem says so."""
    if sw.stop.is_set():
        return []
    out = []
    for u in units:
        bad = [n for n, _ in u if answers.get(n) is not None and answers[n].problem]
        dead = [n for n in bad if answers[n].node is None]
        for n in dead or bad:
            if n in sw.dropped:
                continue
            a = answers[n]
            step = "%s: %s" % (phase, where)
            if a.node is None and a.problem.startswith(STOPPED_WORDS):
                a.problem = "hung: no answer, %s" % a.problem
            a.problem = "%s (at %s; dropped from later steps)" % (a.problem, step)
            sw.dropped[n] = "%s, at %s" % (a.problem.split(" (at ")[0], step)
            out.append(n)
    return out


def orphans(planned, dropped, measured):
    """The nodes (in order) that lost a pair of planned ([(a, b)] names) to a dropped
    node, themselves not dropped; measured(a, b): the pair's parts are all kept."""
    out, seen = [], set()
    for a, b in planned:
        for x, y in ((a, b), (b, a)):
            if y in dropped and x not in dropped and x not in seen and not measured(a, b):
                seen.add(x)
                out.append(x)
    return out


def repairs(names, planned, dropped, measured):
    """One re-pair round: [(orphan, partner)] with no node twice, each orphan paired
    with another orphan first, else a healthy node, never a pair of planned; and the
    orphans left without a partner."""
    lost = orphans(planned, dropped, measured)
    paired = {frozenset(p) for p in planned}
    pool = lost + [n for n in names if n not in dropped and n not in set(lost)]
    used, out, alone = set(), [], []
    for x in lost:
        if x in used:
            continue
        for y in pool:
            if y != x and y not in used and frozenset((x, y)) not in paired:
                out.append((x, y))
                used.update((x, y))
                break
        else:
            alone.append(x)
    return out, alone


def repair_round(sw, phase, steps, base, mem, planned, rails=(None,)):
    """The partners of the nodes dropped in a phase (planned: its pairs), re-paired in
    one more round, a step per rail of rails; steps: nbw.fleet.run's (pair_items,
    pair_step). False when interrupted."""
    if not sw.dropped:
        return True
    pair_items, pair_step = steps
    pairs, alone = repairs(
        list(sw.meta["nodes"]), planned, sw.dropped,
        lambda a, b: all(sw.have(it.rel) for rail in rails
                         for it in pair_items(sw, base, a, b, mem, rail=rail)))
    alone = [n for n in sw.meta["nodes"] if n in set(alone)]
    if alone:
        say("%s: a partner dropped, and no healthy node left that %s not paired with in "
            "the %s phase: not re-paired" % (", ".join(alone), "it was" if len(alone) == 1
                                              else "they were", phase))
    if not pairs:
        return True
    say("%s: re-pair round for the partners of %s (dropped): %s" % (
        phase, ", ".join(sorted(sw.dropped)), " ".join("%s-%s" % p for p in pairs)))
    sw.steps_total += len(rails)
    for rail in rails:
        todo = []
        for a, b in pairs:
            ia, ib = pair_items(sw, base, a, b, mem, rail=rail)
            todo.append((a, ia, b, ib))
        if not pair_step(sw, phase, "re-pair round%s" % (
                ", rail %d" % rail if rail is not None else ""), todo):
            return False
    return True


def timing_line(meta, phases_s, took):
    """One line: the sweep's seconds, then each phase's measured beside the plan's."""
    tm = meta.get("timing") or {}
    words = []
    for phase, key in PHASES:
        t = tm.get(phase)
        if t is None and not phases_s.get(key):
            continue
        measured = human_seconds(t["seconds"]) if t else "not run"
        steps = t.get("steps") if t else None
        words.append("%s %s%s (plan %s)" % (
            phase, measured, " in %d step%s" % (steps, "" if steps == 1 else "s")
            if steps and phase not in ("preflight", "judge") else "",
            human_seconds(phases_s.get(key) or 0)))
    return "took %s (plan %s): %s" % (human_seconds(took),
                                       human_seconds(phases_s.get("total_s") or 0),
                                       ", ".join(words))
