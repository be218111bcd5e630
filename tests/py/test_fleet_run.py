"""nbw.fleet.run, launch and tasks, their pure parts and their processes: the launcher's
command lines (run_bench.sh's rules) and waves of whole pairs, the node's task script
run here (its frames read back, a tool stopped at its limit), the multi-program
configuration's quoting, batches of disjoint pairs, hostfiles with bad names, a used
directory refused, processes stopped at their limit or on Ctrl-C with whatever they
started."""

import nbwpath  # noqa: F401
import argparse
import io
import os
import shutil
import tempfile
import threading
import time
import unittest
from contextlib import redirect_stderr

from nbw.fleet.launch import (TIMED_OUT, Fanout, LaunchError, Srun, answer_of, multi_prog_word,
                              run_all)
from nbw.fleet.nodes import RunError, nodes_from, read_hostfile
from nbw.fleet.run import new_sweep_dir
from nbw.fleet.tasks import disjoint_batches
from nbw.fleet.tasks import NODE_SCRIPT, Item, Settings, parse_frames, task_args, why_failed


class TestFanout(unittest.TestCase):
    def test_ssh_joins_the_command_into_one_quoted_line(self):
        la = Fanout({"LAUNCHER": "ssh -o BatchMode=yes"})
        self.assertEqual(la.argv("n1", ["/opt/nbw bin/nvme_link_probe", "--json"]),
                         ["ssh", "-o", "BatchMode=yes", "n1",
                          "'/opt/nbw bin/nvme_link_probe' --json"])

    def test_kubectl_puts_options_before_the_pod(self):
        la = Fanout({"LAUNCHER": "kubectl exec -i", "KUBECTL_NAMESPACE": "bw"})
        self.assertEqual(la.argv("pod-1", ["nvme_read_bw", "--version"]),
                         ["kubectl", "exec", "-i", "-n", "bw", "pod-1", "--", "nvme_read_bw",
                          "--version"])

    def test_this_machine_runs_without_launcher(self):
        self.assertEqual(Fanout({"LAUNCHER": "ssh"}).argv("localhost", ["true"]), ["true"])

    def test_empty_launcher_refused(self):
        with self.assertRaises(LaunchError):
            Fanout({"LAUNCHER": "  "})

    def test_waves_keep_pairs_whole(self):
        la = Fanout({}, fanout=5)
        units = [[("a", []), ("b", [])], [("c", []), ("d", [])], [("e", []), ("f", [])],
                 [("g", [])]]
        self.assertEqual([[t[0] for u in w for t in u] for w in la.waves(units)],
                         [["a", "b", "c", "d"], ["e", "f", "g"]])


class TestNodeScript(unittest.TestCase):
    """NODE_SCRIPT run here as sh -c runs it on a node."""

    def run_task(self, node, items, env=None, limit=30):
        argv = ["sh", "-c", NODE_SCRIPT, "nbw-task"] + task_args(node, items)
        (rc, out, err), = run_all([argv], limit, threading.Event(), env)
        return rc, out, err

    def test_items_one_after_the_other_framed(self):
        items = [Item("a/x.json", 10, ["printf", '{"n": 1}\\n']),
                 Item("a/y.json", 10, ["sh", "-c", 'echo "it\'s %t bad" >&2; exit 3', "x"]),
                 Item("a/z.json", 10, ["echo", "two words", "$HOME", "'q'"])]
        rc, out, _ = self.run_task("n%t1", items)
        self.assertEqual(rc, 0)
        node, res, wrong = parse_frames(out)
        self.assertEqual((node, wrong), ("n%t1", None))
        self.assertEqual(res["a/x.json"].out, ['{"n": 1}', ""])
        self.assertEqual(res["a/x.json"].rc, 0)
        self.assertEqual((res["a/y.json"].rc, res["a/y.json"].err), (3, ["it's %t bad"]))
        self.assertEqual(why_failed(res["a/y.json"]), "exit status 3: it's %t bad")
        # Arguments pass unchanged, no expansion on the node.
        self.assertEqual(res["a/z.json"].out[0], "two words $HOME 'q'")

    def test_a_tool_past_its_limit_is_stopped(self):
        t0 = time.monotonic()
        _, out, _ = self.run_task("n1", [Item("p.json", 1, ["sleep", "30"])])
        self.assertLess(time.monotonic() - t0, 10)
        res = parse_frames(out)[1]["p.json"]
        self.assertEqual(res.rc, 124)
        self.assertEqual(why_failed(res), "stopped at its time limit")

    def test_the_wrong_node_runs_nothing(self):
        env = dict(os.environ, SLURMD_NODENAME="b")
        _, out, _ = self.run_task("a", [Item("x", 10, ["touch", "/nonexistent/never"])], env)
        node, res, wrong = parse_frames(out)
        self.assertEqual((node, res), (None, {}))
        self.assertRegex(wrong, "^the task ran on b, not on a")

    def test_unreachable_and_truncated_answers(self):
        a = answer_of("n1", 255, "", "ssh: connect to host n1 port 22: No route to host\n")
        self.assertEqual(a.problem, "unreachable: ssh: connect to host n1 port 22: No route to host")
        a = answer_of("n1", 255, "@nbw-node n1\n@nbw-part x\n{\"a\":", "reset\n")
        self.assertIsNone(a.problem)
        self.assertEqual(why_failed(a.results["x"]), "ended without its exit status (the node "
                         "or its connection went away)")
        self.assertEqual(answer_of("n1", TIMED_OUT, "", "").problem,
                         "stopped at the step's time limit")

    def test_a_rank_that_ended_is_not_stopped_with_its_step(self):
        # An srun step cut at its limit for another rank: this rank's parts all ended.
        done = "@nbw-node n1\n@nbw-part x\n{}\n@nbw-end x 0\n"
        self.assertIsNone(answer_of("n1", TIMED_OUT, done, "", ["x"]).problem)
        self.assertEqual(answer_of("n1", TIMED_OUT, done, "", ["x", "y"]).problem,
                         "stopped at the step's time limit")


class TestCommands(unittest.TestCase):
    def test_the_remote_tool_from_memory_on_every_rail_and_one_alone(self):
        s = Settings({"TOOL_DIR": "/opt/t", "QPS": "2", "NET_TIMEOUT": "7", "DRAM": "4G"},
                     {"rail_devs": ["mlx5_0", "mlx5_1"], "warmup": 2, "duration": 5,
                      "retest_warmup": 3, "retest_duration": 20})
        it = s.remote("fabric/a/b.json", "10.0.0.2", True)
        self.assertEqual(it.argv[:2], ["/opt/t/nvme_write_bw_remote", "--bidir"])
        self.assertIn("-d mlx5_0,mlx5_1", " ".join(it.argv))
        self.assertIn("--source mem -q 4", " ".join(it.argv))
        self.assertIn("--warmup 2 -D 5 --timeout 7 --wait 14", " ".join(it.argv))
        self.assertEqual(it.argv[-3:], ["--json", "--", "10.0.0.2"])
        alone = s.remote("isolate/alone/a/b.rail1.json", "b", True, full=True, rail=1)
        self.assertIn("-d mlx5_1 --source mem -q 2", " ".join(alone.argv))
        self.assertIn("--warmup 3 -D 20", " ".join(alone.argv))
        drives = s.remote("remote/a/b.json", "b", False)
        self.assertNotIn("--source", drives.argv)
        self.assertEqual(s.probe("p").ok, (0, 3))


class TestSrunConfig(unittest.TestCase):
    def test_ranks_in_the_allocations_order_every_word_quoted(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        sr = Srun({}, ["c", "a", "b"], tmp)
        lines = sr.config([("c", [Item("x/c.json", 9, ["t", "it's", "%t"])]),
                           ("a", [Item("x/a.json", 9, ["t"])])])
        self.assertEqual(lines[0], "0 sh -c 'eval \"$NBW_FLEET_TASK\"' nbw-task 'c' 'x/c.json' "
                         "'9' '3' 't' 'it'\\''s' '%t'")
        self.assertTrue(lines[1].startswith("1 sh -c "))
        self.assertEqual(multi_prog_word("a b"), "'a b'")
        with self.assertRaises(LaunchError):
            sr.config([("a", [Item("x", 9, ["y" * 5000])])])


class TestBatches(unittest.TestCase):
    def test_no_node_twice_in_a_batch_order_kept_size_bounded(self):
        pairs = [("a", "b", 0), ("b", "c", 0), ("a", "c", 1), ("d", "e", 1), ("f", "g", 0)]
        self.assertEqual(disjoint_batches(pairs, 100),
                         [[("a", "b", 0), ("d", "e", 1), ("f", "g", 0)], [("b", "c", 0)],
                          [("a", "c", 1)]])
        small = disjoint_batches(pairs, 4)
        self.assertEqual(small, [[("a", "b", 0), ("d", "e", 1)], [("b", "c", 0), ("f", "g", 0)],
                                 [("a", "c", 1)]])


class TestNodes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_hostfile_first_words_comments_duplicates_and_groups(self):
        hf = os.path.join(self.tmp, "hosts")
        with open(hf, "w") as f:
            f.write("# the rack\nn1 slots=8 rack=r1\n\nn2:8 switch=s2\nn1\n  n3  # spare\n")
        names, groups, problems, warnings = read_hostfile(hf)
        self.assertEqual((names, groups, problems), (["n1", "n2", "n3"],
                                                     {"n1": "r1", "n2": "s2"}, []))
        self.assertEqual(warnings, ["%s:5: n1 again (first on line 2): counted once" % hf])

    def test_thousands_of_names_a_line_per_bad_one(self):
        hf = os.path.join(self.tmp, "hosts")
        with open(hf, "w") as f:
            for i in range(5000):
                f.write("node%04d\n" % i if i % 1000 else "bad/name%d\n" % i)
            f.write("node0001\n")
        names, _, problems, warnings = read_hostfile(hf)
        self.assertEqual(len(names), 4995)
        self.assertEqual(len(problems), 5)
        self.assertEqual(problems[1], "%s:1001: 'bad/name1000': not a node name (letters, "
                         "digits and ._:@%%- only, not starting with -, not . or ..)" % hf)
        self.assertEqual(len(warnings), 1)
        err = io.StringIO()
        with self.assertRaises(RunError) as e, redirect_stderr(err):
            nodes_from(argparse.Namespace(nodes=None, hostfile=hf), {})
        self.assertEqual(len(err.getvalue().splitlines()), 6)
        self.assertEqual((str(e.exception), e.exception.status),
                         ("%s: 5 bad names: refused, nothing was run" % hf, 2))

    def test_the_slurm_allocation_through_scontrol(self):
        fake = os.path.join(self.tmp, "scontrol")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\n[ "$1 $2 $3" = "show hostnames gpu[01-03]" ] || exit 1\n'
                    'printf "gpu01\\ngpu02\\ngpu03\\n"\n')
        os.chmod(fake, 0o755)
        old = os.environ["PATH"]
        os.environ["PATH"] = self.tmp + os.pathsep + old
        self.addCleanup(os.environ.__setitem__, "PATH", old)
        args = argparse.Namespace(nodes=None, hostfile=None)
        self.assertEqual(nodes_from(args, {"SLURM_JOB_NODELIST": "gpu[01-03]"}),
                         (["gpu01", "gpu02", "gpu03"], {}))

    def test_no_nodes_anywhere(self):
        with self.assertRaises(RunError):
            nodes_from(argparse.Namespace(nodes=None, hostfile=None), {})

    def test_a_used_directory_is_refused_an_empty_one_taken(self):
        d = os.path.join(self.tmp, "s")
        new_sweep_dir(d)
        new_sweep_dir(d)
        open(os.path.join(d, "sweep.json"), "w").close()
        with self.assertRaisesRegex(RunError, "exists and is not empty"):
            new_sweep_dir(d)


class TestProcesses(unittest.TestCase):
    def gone(self, marker):
        """No process left whose command line holds marker."""
        for d in os.listdir("/proc"):
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if marker.encode() in f.read():
                        return False
            except OSError:
                pass
        return True

    def test_at_the_limit_what_outlives_sigterm_in_a_group_of_its_own_is_killed(self):
        # GNU timeout moves to a process group of its own; its child ignores SIGTERM
        t0 = time.monotonic()
        (rc, _, e), (rc2, o2, _) = run_all(
            [["bash", "-c", "timeout 100 bash -c \"trap '' TERM; echo started >&2; "
              "sleep 100.321\""], ["echo", "quick"]], 1, threading.Event(), grace=1)
        self.assertEqual((rc, rc2, o2), (TIMED_OUT, 0, "quick\n"))
        self.assertLess(time.monotonic() - t0, 10, "not killed")
        self.assertTrue(e.startswith("started"), e)
        time.sleep(0.2)
        self.assertTrue(self.gone("sleep 100.321"), "a process of the step was left")

    def test_ctrl_c_halts_a_running_step(self):
        stop = threading.Event()
        timer = threading.Timer(0.5, stop.set)
        timer.start()
        self.addCleanup(timer.cancel)
        t0 = time.monotonic()
        (rc, _, _), = run_all([["bash", "-c", "trap '' TERM; sleep 100.654"]], 3600, stop,
                              grace=1)
        self.assertIsNone(rc)
        self.assertLess(time.monotonic() - t0, 10, "Ctrl-C waited for the step's limit")
        time.sleep(0.2)
        self.assertTrue(self.gone("sleep 100.654"), "a process of the step was left")

    def test_a_thousand_at_once(self):
        t0 = time.monotonic()
        res = run_all([["echo", str(i)] for i in range(1000)], 60, threading.Event())
        self.assertEqual([o for _, o, _ in res], ["%d\n" % i for i in range(1000)])
        self.assertLess(time.monotonic() - t0, 60)


if __name__ == "__main__":
    unittest.main()
