"""nbw.fleet.act and nbw.fleet.liveness: --max-time in Slurm's time formats, the drain's
argv (a node name that is not a Slurm host name never reaches it, the reason sanitized
and bounded, a failing scontrol said), run's exit status by the verdict, the launcher
said inside an allocation; a node dropped at its first failure (the one that never
started, not its waiting partner) and its partners re-paired."""

import nbwpath  # noqa: F401
import subprocess
import threading
import unittest

from nbw.fleet import act, cli, liveness
from nbw.fleet.launch import STOPPED_WORDS, Answer


class TestSlurmTime(unittest.TestCase):
    def test_the_formats(self):
        for text, secs in (("30", 1800), ("0:45", 45), ("10:30", 630), ("1:02:03", 3723),
                           ("2-0", 172800), ("1-12", 129600), ("1-02:30", 95400),
                           ("0-00:00:20", 20), ("1-1:1:1", 90061), ("90s", 90), ("20m", 1200),
                           ("2h", 7200), ("0.5m", 30), ("600", 36000)):
            self.assertEqual(act.slurm_time(text), secs, text)

    def test_bad_input_one_line(self):
        for text in ("", "abc", "1:99", "1:2:3:4", "1-24", "1-00:60", "-5", "5x", "1.5",
                     "1:-2", "1-", "0", "0:00", "0-0", "1 h"):
            with self.assertRaises(ValueError, msg=text) as e:
                act.slurm_time(text)
            self.assertNotIn("\n", str(e.exception))

    def test_cli_type(self):
        p, _ = cli.build_parser()
        self.assertEqual(p.parse_args(["plan", "--nodes", "4", "--max-time", "1:00:00"])
                         .max_time, 3600)


class TestDrain(unittest.TestCase):
    def test_reason_sanitized_and_bounded(self):
        r = act.drain_reason({"what": 'rail 3 (mlx5_3) 48% "x";\'$(rm -rf /)`\n\tnext'})
        self.assertEqual(r, "nbw: rail 3 (mlx5_3) 48% x ; (rm -rf /) next")
        long = act.drain_reason({"what": "y" * 1000})
        self.assertEqual(len(long), act.REASON_MAX)
        self.assertTrue(long.startswith("nbw: yyy") and long.endswith("..."))
        self.assertEqual(act.drain_reason({}), "nbw: SUSPECT")

    def test_argv_and_names(self):
        self.assertEqual(act.drain_argv("n12", "nbw: x"),
                         ["scontrol", "update", "nodename=n12", "state=drain", "reason=nbw: x"])
        for bad in ("n[1-3]", "n1,n2", "-n1", "n%t6", "a b", "n:1", "", None, "x" * 65):
            with self.assertRaises(ValueError, msg=bad):
                act.drain_argv(bad, "nbw: x")

    def run_drain(self, verdicts, rc=0, exc=None):
        calls = []

        def run(argv, **kw):
            calls.append(argv)
            self.assertEqual(kw["timeout"], act.DRAIN_TIMEOUT_S)
            if exc:
                raise exc
            return subprocess.CompletedProcess(argv, rc, "", "slurm_update error: denied\n")
        return act.drain({"verdicts": verdicts}, run=run), calls

    def test_only_suspects_drained(self):
        v = [{"node": "n1", "verdict": "PASS"}, {"node": "n2", "verdict": "SUSPECT",
                                                 "what": "drive nvme3n1 60%"},
             {"node": "n3", "verdict": "NOT MEASURED", "what": "unreachable"},
             {"node": "n[4]", "verdict": "SUSPECT", "what": "rail 0"}]
        out, calls = self.run_drain(v)
        self.assertEqual(calls, [["scontrol", "update", "nodename=n2", "state=drain",
                                  "reason=nbw: drive nvme3n1 60%"]])
        self.assertEqual([(d["node"], d["ok"]) for d in out], [("n2", True), ("n[4]", False)])
        self.assertIn("not a Slurm node name", out[1]["error"])

    def test_failures_said(self):
        v = [{"node": "n2", "verdict": "SUSPECT", "what": "x"}]
        out, _ = self.run_drain(v, rc=1)
        self.assertEqual(out[0]["error"], "scontrol exit status 1: slurm_update error: denied")
        out, _ = self.run_drain(v, exc=OSError(2, "No such file or directory"))
        self.assertEqual(out[0]["error"], "scontrol: No such file or directory")
        out, _ = self.run_drain(v, exc=subprocess.TimeoutExpired("scontrol", 30))
        self.assertEqual(out[0]["error"], "scontrol did not answer in 30 s")


class Args:
    junit = None
    drain = False
    fail_on = ()


class TestStatus(unittest.TestCase):
    clean = {"suspects": [], "not_measured": [], "not_measured_parts": [], "skipped": [],
             "verdicts": []}

    def test_fail_on(self):
        low = dict(self.clean, suspects=[{"state": "low"}])
        a = Args()
        self.assertEqual(act.after_run(a, low), 0)
        a.fail_on = ("suspect",)
        self.assertEqual(act.after_run(a, low), 3)
        a.fail_on = ("unmeasured",)
        self.assertEqual(act.after_run(a, dict(self.clean, skipped=[{"node": "x"}])), 4)
        self.assertEqual(act.after_run(a, self.clean), 0)

    def test_junit_unwritable(self):
        a = Args()
        a.junit = "/nonexistent/dir/junit.xml"
        self.assertEqual(act.after_run(a, self.clean), 1)

    def test_launcher_note(self):
        self.assertIsNone(act.launcher_note({}, "ssh"))
        self.assertIsNone(act.launcher_note({"SLURM_JOB_ID": "7"}, "srun"))
        self.assertEqual(
            act.launcher_note({"SLURM_JOB_ID": "7", "LAUNCHER": "pdsh -w"}, "ssh"),
            "inside Slurm job 7, LAUNCHER=pdsh overrides srun: each step reaches the nodes "
            "through pdsh, a process per node, not one srun step over the allocation")
        self.assertIn("--launcher ssh overrides srun",
                      act.launcher_note({"SLURM_JOB_ID": "7"}, "ssh", explicit=True))


class FakeSweep:
    def __init__(self, nodes):
        self.stop = threading.Event()
        self.dropped = {}
        self.meta = {"nodes": nodes}


class TestLiveness(unittest.TestCase):
    def test_the_one_that_never_started_is_dropped(self):
        sw = FakeSweep(["a", "b", "c", "d"])
        answers = {"a": Answer(None, {}, STOPPED_WORDS), "b": Answer("b", {}, STOPPED_WORDS),
                   "c": Answer("c", {}, None), "d": Answer("d", {}, None)}
        units = [[("a", []), ("b", [])], [("c", []), ("d", [])]]
        self.assertEqual(liveness.drop_failed(sw, "fabric", "round 2 of 3", units, answers),
                         ["a"])
        self.assertEqual(sw.dropped["a"], "hung: no answer, %s, at fabric: round 2 of 3"
                         % STOPPED_WORDS)
        self.assertTrue(answers["a"].problem.endswith(
            "(at fabric: round 2 of 3; dropped from later steps)"))
        # Both started and both stalled: both dropped; interrupted: none.
        sw = FakeSweep(["a", "b"])
        answers = {"a": Answer("a", {}, STOPPED_WORDS), "b": Answer("b", {}, STOPPED_WORDS)}
        self.assertEqual(liveness.drop_failed(sw, "local", "x", units[:1], answers), ["a", "b"])
        sw = FakeSweep(["a", "b"])
        sw.stop.set()
        self.assertEqual(liveness.drop_failed(sw, "local", "x", units[:1], answers), [])

    def test_repairs(self):
        names = ["n%d" % i for i in range(1, 9)]
        planned = [("n1", "n2"), ("n3", "n4"), ("n5", "n6"), ("n7", "n8"),
                   ("n2", "n3"), ("n4", "n5"), ("n6", "n7"), ("n8", "n1")]
        dropped = {"n2": "dead", "n7": "hung"}
        # n1-n2 was measured before n2 died: n1 is no orphan of it.
        measured = lambda a, b: (a, b) == ("n1", "n2")  # noqa: E731
        self.assertEqual(liveness.orphans(planned, dropped, measured), ["n8", "n3", "n6"])
        pairs, alone = liveness.repairs(names, planned, dropped, measured)
        # Orphans pair among themselves first (never a planned pair), then healthy nodes.
        self.assertEqual(pairs, [("n8", "n3"), ("n6", "n1")])
        self.assertEqual(alone, [])
        used = [x for p in pairs for x in p]
        self.assertEqual(len(used), len(set(used)))
        self.assertFalse(set(used) & set(dropped))

    def test_nobody_left(self):
        names = ["a", "b", "c"]
        planned = [("a", "b"), ("b", "c"), ("a", "c")]
        pairs, alone = liveness.repairs(names, planned, {"b": "dead"}, lambda a, b: False)
        self.assertEqual((pairs, alone), ([], ["a", "c"]))

    def test_timing_line(self):
        meta = {"timing": {"preflight": {"seconds": 1.2, "steps": 1},
                           "fabric": {"seconds": 30.0, "steps": 7},
                           "judge": {"seconds": 0.4, "steps": 1}}}
        plan = {"preflight_s": 2, "local_s": 10, "fabric_s": 25, "remote_s": 0,
                "isolate_s": 9, "judge_s": 1, "total_s": 47}
        self.assertEqual(
            liveness.timing_line(meta, plan, 41),
            "took 41 s (plan 47 s): preflight 1 s (plan 2 s), local not run (plan 10 s), "
            "fabric 30 s in 7 steps (plan 25 s), isolate not run (plan 9 s), judge 0 s "
            "(plan 1 s)")


if __name__ == "__main__":
    unittest.main()
