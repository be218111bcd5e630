"""The fleet sweep's schedule (nbw.fleet.plan) and `nbw-fleet plan`, at 512 nodes x 8
rails x 8 drives, and the plan of 4096 nodes within a second."""

import nbwpath  # noqa: F401
import io
import json
import time
import unittest
from contextlib import redirect_stderr, redirect_stdout

from nbw.fleet import cli
from nbw.fleet.plan import (Durations, Launch, Plan, circle_round, estimate, parse_pairs,
                            remote_rounds, time_limit, would_fit)


def every_round(plan):
    return [plan.round(r) for r in range(plan.rounds)]


class TestCircle(unittest.TestCase):
    def test_small_circle_by_hand(self):
        # 4 slots: 3 rounds, every pair of {0,1,2,3} once.
        rounds = [sorted(tuple(sorted(p)) for p in circle_round(4, r)) for r in range(3)]
        self.assertEqual(rounds, [[(0, 3), (1, 2)], [(0, 2), (1, 3)], [(0, 1), (2, 3)]])


class TestAllPairs(unittest.TestCase):
    N = 512

    def test_every_pair_exactly_once_and_no_node_twice_in_a_round(self):
        plan = Plan(self.N, "all", seed=7)
        self.assertEqual(plan.rounds, self.N - 1)
        seen = set()
        for pairs, idle in every_round(plan):
            self.assertEqual(len(pairs), self.N // 2)
            self.assertEqual(idle, [])
            nodes = [x for p in pairs for x in p]
            self.assertEqual(len(nodes), len(set(nodes)), "a node in two pairs of a round")
            for a, b in pairs:
                self.assertNotEqual(a, b)
                key = (min(a, b), max(a, b))
                self.assertNotIn(key, seen, "pair measured twice")
                seen.add(key)
        self.assertEqual(len(seen), self.N * (self.N - 1) // 2)
        self.assertEqual(plan.pair_count, len(seen))

    def test_odd_fleet_has_one_idle_node_per_round_each_once(self):
        plan = Plan(513, "all", seed=1)
        self.assertEqual(plan.rounds, 513)
        idle_all, seen = [], set()
        for pairs, idle in every_round(plan):
            self.assertEqual(len(idle), 1)
            idle_all += idle
            nodes = [x for p in pairs for x in p] + idle
            self.assertEqual(sorted(nodes), list(range(513)))
            seen.update((min(p), max(p)) for p in pairs)
        self.assertEqual(sorted(idle_all), list(range(513)))
        self.assertEqual(len(seen), 513 * 512 // 2)

    def test_deterministic_with_a_seed_and_different_without_the_same(self):
        a, b, c = Plan(512, "all", seed=42), Plan(512, "all", seed=42), Plan(512, "all", seed=43)
        self.assertEqual(a.round(0), b.round(0))
        self.assertEqual(a.round(300), b.round(300))
        self.assertNotEqual(a.round(0), c.round(0))

    def test_tiny_fleets(self):
        self.assertEqual(Plan(1).rounds, 0)
        self.assertEqual(Plan(1).pair_count, 0)
        p = Plan(2, seed=None)
        self.assertEqual((p.rounds, p.round(0)), (1, ([(0, 1)], [])))
        p = Plan(3, seed=None)
        self.assertEqual(p.rounds, 3)
        self.assertEqual(sorted(tuple(sorted(x)) for r in every_round(p) for x in r[0]),
                         [(0, 1), (0, 2), (1, 2)])


class TestRing(unittest.TestCase):
    def check_ring(self, n):
        plan = Plan(n, "ring", seed=5)
        partners = {i: [] for i in range(n)}
        for pairs, idle in every_round(plan):
            nodes = [x for p in pairs for x in p]
            self.assertEqual(len(nodes), len(set(nodes)))
            self.assertEqual(sorted(nodes + list(idle)), list(range(n)))
            for a, b in pairs:
                partners[a].append(b)
                partners[b].append(a)
        self.assertEqual(plan.pair_count, n)
        for i in range(n):
            self.assertEqual(len(set(partners[i])), 2, "node %d: %s" % (i, partners[i]))
        # The partners form one cycle through every node in the shuffled order.
        o = plan.order
        for k in range(n):
            self.assertIn(o[(k + 1) % n], partners[o[k]])
        return plan

    def test_even_ring_two_rounds(self):
        self.assertEqual(self.check_ring(512).rounds, 2)

    def test_odd_ring_three_rounds(self):
        self.assertEqual(self.check_ring(511).rounds, 3)


class TestRandomPartners(unittest.TestCase):
    def test_k_distinct_partners_each_disjoint_rounds(self):
        plan = Plan(512, 4, seed=11)
        self.assertEqual(plan.rounds, 4)
        partners = {i: set() for i in range(512)}
        for pairs, idle in every_round(plan):
            nodes = [x for p in pairs for x in p]
            self.assertEqual(len(nodes), 512)
            self.assertEqual(len(set(nodes)), 512)
            for a, b in pairs:
                partners[a].add(b)
                partners[b].add(a)
        self.assertTrue(all(len(p) == 4 for p in partners.values()))
        self.assertEqual(plan.pair_count, 4 * 256)
        self.assertEqual(Plan(512, 4, seed=11).partners(17), plan.partners(17))
        self.assertNotEqual(Plan(512, 4, seed=12).partners(17), plan.partners(17))

    def test_k_beyond_the_fleet_is_every_pair(self):
        self.assertEqual(Plan(6, 40).rounds, 5)
        self.assertEqual(Plan(6, 40).pair_count, 15)

    def test_parse_pairs(self):
        self.assertEqual(parse_pairs("all"), "all")
        self.assertEqual(parse_pairs("3"), 3)
        for bad in ("0", "-1", "x", ""):
            with self.assertRaises(ValueError):
                parse_pairs(bad)


class TestRemoteRounds(unittest.TestCase):
    def test_every_node_in_a_pair_both_ways_no_node_twice_in_a_round(self):
        for n, rounds in ((512, 1), (511, 2), (2, 1)):
            plan = Plan(n, "all", seed=3)
            rr = remote_rounds(plan)
            self.assertEqual(len(rr), rounds)
            ends = []
            for rnd in rr:
                nodes = [x for p in rnd for x in p]
                self.assertEqual(len(nodes), len(set(nodes)))
                self.assertTrue(all(a != b for a, b in rnd))
                ends += nodes
            self.assertEqual(sorted(set(ends)), list(range(n)))
            # Partners are neighbours in the shuffled order.
            pos = {x: i for i, x in enumerate(plan.order)}
            self.assertTrue(all(abs(pos[a] - pos[b]) in (1, n - 1) for a, b in rr[0] + rr[-1]))


class TestRingPlusK(unittest.TestCase):
    def test_the_ring_then_k_rounds_without_its_pairs(self):
        for n in (512, 511, 17):
            plan = Plan(n, "ring+4", seed=9)
            ring = 2 if n % 2 == 0 else 3
            self.assertEqual(plan.rounds, ring + 4)
            partners = {i: set() for i in range(n)}
            seen = set()
            for pairs, idle in every_round(plan):
                nodes = [x for p in pairs for x in p]
                self.assertEqual(len(nodes), len(set(nodes)), "a node twice in a round")
                self.assertEqual(sorted(nodes + list(idle)), list(range(n)))
                for a, b in pairs:
                    key = (min(a, b), max(a, b))
                    self.assertNotIn(key, seen, "a pair measured twice")
                    seen.add(key)
                    partners[a].add(b)
                    partners[b].add(a)
            self.assertEqual(plan.pair_count, len(seen))
            # Every node has its two ring neighbours and at least 2 partners in all;
            # most have the ring's 2 and K others.
            self.assertTrue(all(len(p) >= 2 for p in partners.values()))
            if n > 100:
                self.assertGreater(sum(len(p) == 6 for p in partners.values()), n * 0.9)
            # The pairs' graph is connected (the ring alone makes it so).
            reach, todo = {0}, [0]
            while todo:
                for y in partners[todo.pop()] - reach:
                    reach.add(y)
                    todo.append(y)
            self.assertEqual(len(reach), n)

    def test_auto_by_the_fleets_size(self):
        self.assertEqual(Plan(16).mode, "all")
        self.assertEqual(Plan(17).mode, "ring+4")
        self.assertEqual(Plan(4096).mode, "ring+4")
        self.assertEqual(Plan(4096).asked, "auto")
        self.assertEqual(parse_pairs("ring+3"), "ring+3")
        self.assertEqual(parse_pairs("auto"), "auto")
        for bad in ("ring+0", "ring+", "ring+x", "ring4"):
            with self.assertRaises(ValueError):
                parse_pairs(bad)


class TestEstimate(unittest.TestCase):
    def test_phases_at_512_nodes_8_rails_8_drives(self):
        d = Durations(duration=10, warmup=2, retest_duration=20, retest_warmup=3, probe=4,
                      isolate=3)
        la = Launch("srun", setup=5)
        e = estimate(Plan(512, "all"), 8, 8, d, la)
        self.assertEqual((d.window, d.full), (12, 23))
        # One step: the probe, then 9 screening windows (each drive alone, all together).
        self.assertEqual(e["local_s"], 5 + 4 + 9 * 12)
        # A step per round, every rail and both directions in one run.
        self.assertEqual(e["fabric_s"], 511 * (5 + 12))
        self.assertEqual(e["remote_s"], 5 + 12)
        # The drives read again in full windows, then 3 retest steps.
        self.assertEqual(e["isolate_s"], (5 + 9 * 23) + 3 * (5 + 23))
        self.assertEqual(e["steps"], {"local": 1, "fabric": 511, "remote": 1, "isolate_max": 4})
        # The preflight (a step without a window) and the host's judgement are planned.
        self.assertEqual(e["preflight_s"], 5)
        self.assertEqual(e["judge_s"], round(0.5 + 0.0003 * 512 * 17, 3))
        self.assertEqual(e["total_s"], sum(e[k] for k in ("preflight_s", "local_s", "fabric_s",
                                                          "remote_s", "isolate_s", "judge_s")))
        one = estimate(Plan(512, "all"), 8, 8, d, la, one_by_one=True)
        self.assertEqual(one["fabric_s"], 8 * 511 * (5 + 12))
        odd = estimate(Plan(511, "ring"), 1, 2, d, la)
        self.assertEqual(odd["steps"]["remote"], 2)
        self.assertEqual(estimate(Plan(512, "all"), 8, 8, d, la, remote=False)["remote_s"], 0)

    def test_the_launchers_cost(self):
        srun = Launch("srun")
        self.assertAlmostEqual(srun.set_up(4096), 3 + 1 + 0.5 * 12)
        self.assertAlmostEqual(srun.set_up(2), 3 + 1 + 0.5)
        self.assertEqual(srun.waves(4096), 1)
        ssh = Launch("ssh", fanout=256)
        self.assertEqual(ssh.waves(256), 1)
        self.assertEqual(ssh.waves(4096), 16)
        self.assertEqual(ssh.waves(257), 2)
        self.assertAlmostEqual(ssh.step(4096, 7), 16 * (ssh.set_up(256) + 7))
        # An odd fan-out keeps pairs whole: 255 -> waves of 254 nodes.
        self.assertEqual(Launch("ssh", fanout=255).waves(508), 2)
        self.assertEqual(Launch("ssh", setup=2).set_up(4096), 2)

    def test_the_targets_with_the_defaults(self):
        d = Durations()
        for n, rails, drives, target in ((4096, 8, 8, 1800), (64, 8, 6, 900), (8, 8, 6, 600)):
            t0 = time.process_time()
            e = estimate(Plan(n), rails, drives, d, Launch())
            self.assertLessEqual(e["total_s"], target, (n, rails, drives, e))
            self.assertLess(time.process_time() - t0, 2)

    def test_what_would_fit(self):
        d = Durations()
        fit = would_fit(4096, "auto", 0, 8, 8, d, Launch("ssh"), 1800)
        self.assertEqual([x["option"] for x in fit], ["--fanout 1024"])
        self.assertTrue(all(x["total_s"] <= 1800 for x in fit))
        fit = would_fit(64, "all", 0, 8, 6, d, Launch(), 900)
        self.assertEqual(fit[0]["option"], "--pairs ring+4")
        self.assertEqual(would_fit(4096, "auto", 0, 8, 8, d, Launch(), 10), [])


class TestPlanCommand(unittest.TestCase):
    def run_cli(self, *argv):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = cli.main(list(argv))
        return rc, out.getvalue()

    def test_4096_nodes_all_pairs_json_within_a_second(self):
        t0 = time.process_time()
        rc, out = self.run_cli("plan", "--nodes", "4096", "--rails", "8", "--drives", "8",
                               "--pairs", "all", "--json")
        spent = time.process_time() - t0
        self.assertEqual(rc, 0)
        doc = json.loads(out)
        self.assertEqual((doc["rounds"], doc["pairs_per_round"]), (4095, 2048))
        self.assertEqual(doc["pair_count"], 4096 * 4095 // 2)
        self.assertEqual(doc["measurements"]["fabric_directions"], 4096 * 4095 // 2 * 8 * 2)
        self.assertEqual(doc["steps"]["fabric"], 4095)
        self.assertLess(spent, 1.0, "plan of 4096 nodes took %.2f s of CPU" % spent)

    def test_the_defaults_json_within_the_targets(self):
        for n, rails, drives, target in (("4096", "8", "8", 1800), ("64", "8", "6", 900),
                                         ("8", "8", "6", 600)):
            t0 = time.process_time()
            rc, out = self.run_cli("plan", "--nodes", n, "--rails", rails, "--drives", drives,
                                   "--json")
            self.assertLess(time.process_time() - t0, 2.0)
            doc = json.loads(out)
            self.assertEqual(rc, 0)
            self.assertEqual(doc["launcher"]["kind"], "srun")
            self.assertEqual(doc["pairs_mode"], "all" if n == "8" else "ring+4")
            self.assertLessEqual(doc["phases_s"]["total_s"], target, doc["phases_s"])
            self.assertIsNone(doc["fits"])

    def test_over_max_time_exit_3_and_what_would_fit(self):
        err = io.StringIO()
        with redirect_stderr(err):
            rc, out = self.run_cli("plan", "--nodes", "4096", "--rails", "8", "--drives", "8",
                                   "--launcher", "ssh", "--max-time", "30m", "--json")
        doc = json.loads(out)
        self.assertEqual(rc, 3)
        self.assertEqual((doc["fits"], doc["limit_s"]), (False, 1800))
        self.assertEqual(doc["would_fit"][0]["option"], "--fanout 1024")
        self.assertRegex(err.getvalue(), r"^nbw-fleet: the plan takes 57 min [0-9]+ s, more "
                         r"than --max-time 30 min 00 s: would fit: --fanout 1024 \(2[0-9] min")

    def test_the_allocations_time_left(self):
        self.assertEqual(time_limit(None, {"SLURM_JOB_END_TIME": "1000"}, now=400)[0], 600)
        self.assertEqual(time_limit(300, {"SLURM_JOB_END_TIME": "1000"}, now=400)[0], 300)
        self.assertEqual(time_limit(None, {"SLURM_JOB_END_TIME": "x"}), (None, None))

    def test_named_nodes_and_shown_rounds(self):
        rc, out = self.run_cli("plan", "--nodes", "a,b,c,d", "--show-rounds", "1-3", "--json")
        doc = json.loads(out)
        self.assertEqual([r["round"] for r in doc["shown_rounds"]], [1, 2, 3])
        pairs = {tuple(sorted(p)) for r in doc["shown_rounds"] for p in r["pairs"]}
        self.assertEqual(pairs, {("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"),
                                 ("c", "d")})


if __name__ == "__main__":
    unittest.main()
