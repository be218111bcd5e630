"""The fleet sweep's schedule (nbw.fleet.plan) and `nbw-fleet plan`, at 512 nodes x 8
rails x 8 drives, and the plan of 4096 nodes within a second."""

import nbwpath  # noqa: F401
import io
import json
import time
import unittest
from contextlib import redirect_stdout

from nbw.fleet import cli
from nbw.fleet.plan import Durations, Plan, circle_round, estimate, parse_pairs, remote_rounds


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
    def test_every_node_sends_and_receives_once_no_node_twice_in_a_round(self):
        for n in (512, 511, 2):
            plan = Plan(n, "all", seed=3)
            sent, received = [], []
            for rnd in remote_rounds(plan):
                nodes = [x for p in rnd for x in p]
                self.assertEqual(len(nodes), len(set(nodes)))
                for src, dst in rnd:
                    self.assertNotEqual(src, dst)
                    sent.append(src)
                    received.append(dst)
            self.assertEqual(sorted(set(sent)), list(range(n)))
            self.assertEqual(sorted(set(received)), list(range(n)))


class TestEstimate(unittest.TestCase):
    def test_phases_at_512_nodes_8_rails_8_drives(self):
        d = Durations(duration=10, warmup=2, setup=3, probe=4, isolate=10)
        e = estimate(Plan(512, "all"), 8, 8, d)
        self.assertEqual(d.window, 15)
        self.assertEqual(e["local_s"], 4 + 9 * 15)
        self.assertEqual(e["fabric_s"], 511 * 8 * 2 * 15)
        self.assertEqual(e["remote_s"], 2 * 15)
        self.assertEqual(e["isolate_s"], 150)
        self.assertEqual(e["total_s"], sum(e[k] for k in ("local_s", "fabric_s", "remote_s",
                                                          "isolate_s")))


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
        self.assertEqual(doc["measurements"]["fabric"], 4096 * 4095 // 2 * 8 * 2)
        self.assertLess(spent, 1.0, "plan of 4096 nodes took %.2f s of CPU" % spent)

    def test_named_nodes_and_shown_rounds(self):
        rc, out = self.run_cli("plan", "--nodes", "a,b,c,d", "--show-rounds", "1-3", "--json")
        doc = json.loads(out)
        self.assertEqual([r["round"] for r in doc["shown_rounds"]], [1, 2, 3])
        pairs = {tuple(sorted(p)) for r in doc["shown_rounds"] for p in r["pairs"]}
        self.assertEqual(pairs, {("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"),
                                 ("c", "d")})


if __name__ == "__main__":
    unittest.main()
