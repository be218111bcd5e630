"""nbw.fleet.run's pure parts: the launcher's command lines (run_bench.sh's rules),
batches of disjoint pairs, the node list from a hostfile, a used directory refused; a
part stopped at its time limit is a failed part with its logs."""

import nbwpath  # noqa: F401
import argparse
import os
import shutil
import tempfile
import threading
import time
import unittest

from nbw.fleet.run import (TIMED_OUT, Launcher, RunError, Sweep, disjoint_batches,
                           new_sweep_dir, nodes_from)


class TestLauncher(unittest.TestCase):
    def test_ssh_joins_the_command_into_one_quoted_line(self):
        la = Launcher({"LAUNCHER": "ssh -o BatchMode=yes", "TOOL_DIR": "/opt/nbw bin"})
        self.assertEqual(la.argv("n1", [la.tool("nvme_link_probe"), "--json"]),
                         ["ssh", "-o", "BatchMode=yes", "n1",
                          "'/opt/nbw bin/nvme_link_probe' --json"])

    def test_srun_passes_argv_and_kubectl_puts_options_before_the_pod(self):
        la = Launcher({"LAUNCHER": "srun -N1 -n1 -w"})
        self.assertEqual(la.argv("n1", ["nvme_read_bw", "--version"]),
                         ["srun", "-N1", "-n1", "-w", "n1", "nvme_read_bw", "--version"])
        la = Launcher({"LAUNCHER": "kubectl exec -i", "KUBECTL_NAMESPACE": "bw"})
        self.assertEqual(la.argv("pod-1", ["nvme_read_bw", "--version"]),
                         ["kubectl", "exec", "-i", "-n", "bw", "pod-1", "--", "nvme_read_bw",
                          "--version"])

    def test_this_machine_runs_without_launcher(self):
        la = Launcher({"LAUNCHER": "ssh"})
        self.assertEqual(la.argv("localhost", ["true"]), ["true"])

    def test_empty_launcher_refused(self):
        with self.assertRaises(RunError):
            Launcher({"LAUNCHER": "  "})


class TestBatches(unittest.TestCase):
    def test_no_node_twice_in_a_batch_order_kept(self):
        pairs = [("a", "b", 0), ("b", "a", 0), ("a", "c", 1), ("c", "d", 1), ("d", "e", 0)]
        b = disjoint_batches(pairs)
        self.assertEqual(b, [[("a", "b", 0), ("c", "d", 1)], [("b", "a", 0), ("d", "e", 0)],
                             [("a", "c", 1)]])


class TestNodes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_hostfile_first_words_comments_and_duplicates(self):
        hf = os.path.join(self.tmp, "hosts")
        with open(hf, "w") as f:
            f.write("# the rack\nn1 slots=8\n\nn2:8\nn1\n  n3  # spare\n")
        args = argparse.Namespace(nodes=None, hostfile=hf)
        self.assertEqual(nodes_from(args, {}), ["n1", "n2", "n3"])

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
                         ["gpu01", "gpu02", "gpu03"])

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


# A run_bench.sh that writes a tool's log, then hangs in a command that outlives SIGTERM
# to the script (bash runs its trap only once the command in the foreground ends).
HANGING_BENCH = """#!/bin/bash
trap 'echo "run_bench.sh: SIGTERM" >&2; exit 143' TERM
mkdir -p "$RESULTS_DIR/$RUN_NAME"
echo "nvme_write_bw_remote: sink on n2 says: still going" >"$RESULTS_DIR/$RUN_NAME/aggregate-n2.log"
echo "run_bench.sh: aggregate: n1 -> n2" >&2
sleep 60
"""


class TestPartTimeLimit(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        bench = os.path.join(self.tmp, "run_bench.sh")
        with open(bench, "w") as f:
            f.write(HANGING_BENCH)
        self.top = os.path.join(self.tmp, "sweep")
        os.makedirs(self.top)
        self.sw = Sweep(self.top, {"duration": 1, "warmup": 0}, {"NBW_RUN_BENCH": bench},
                        out=open(os.devnull, "w"))
        self.addCleanup(self.sw.out.close)
        self.sw.part_limit, self.sw.stop_grace = 1, 1

    def test_spawn_says_timed_out_not_stopped(self):
        t0 = time.monotonic()
        rc, _, e = self.sw.spawn(["bash", "-c", "echo said >&2; sleep 60"], 1)
        self.assertEqual(rc, TIMED_OUT)
        self.assertEqual(e.split("\n")[0], "said")
        self.assertIn("timed out after 1 s", e)
        self.assertLess(time.monotonic() - t0, 10, "not stopped at its time limit")

    def test_a_part_at_its_time_limit_failed_with_its_logs(self):
        t0 = time.monotonic()
        kept = self.sw.run_bench_part("aggregate", "fabric/n1/n2.rail0.json", "x.json")
        self.assertFalse(kept)
        self.assertLess(time.monotonic() - t0, 10, "the hung part was not stopped")
        self.assertEqual([f["part"] for f in self.sw.meta["failed"]],
                         ["fabric/n1/n2.rail0.json"])
        self.assertRegex(self.sw.meta["failed"][0]["reason"],
                         r"^timed out after 1 s \(stopped\); its logs: "
                         r"failed/fabric/n1/n2\.rail0\.json\.d/$")
        logs = os.path.join(self.top, "failed", "fabric", "n1", "n2.rail0.json.d")
        self.assertEqual(sorted(os.listdir(logs)), ["aggregate-n2.log", "run_bench.log"])
        with open(os.path.join(logs, "run_bench.log")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "run_bench.sh: aggregate: n1 -> n2")
        # SIGTERM reached its foreground command too: its trap ran (what stops the nodes)
        self.assertIn("run_bench.sh: SIGTERM", lines)
        self.assertEqual(lines[-1], "run_bench.sh aggregate: stopped at its time limit")
        self.assertFalse(os.path.exists(os.path.join(self.top, "fabric", "n1", "n2.rail0.json")))

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

    def test_what_outlives_sigterm_in_a_group_of_its_own_is_killed(self):
        # GNU timeout moves to a process group of its own; its child ignores SIGTERM
        t0 = time.monotonic()
        rc, _, e = self.sw.spawn(["bash", "-c", "timeout 100 bash -c \"trap '' TERM; "
                                  "echo started >&2; sleep 100.321\""], 1)
        self.assertEqual(rc, TIMED_OUT)
        self.assertLess(time.monotonic() - t0, 10, "not killed")
        self.assertTrue(e.startswith("started"), e)
        time.sleep(0.2)
        self.assertTrue(self.gone("sleep 100.321"), "a process of the part was left")

    def test_ctrl_c_halts_a_running_part(self):
        timer = threading.Timer(0.5, self.sw.interrupt)
        timer.start()
        self.addCleanup(timer.cancel)
        t0 = time.monotonic()
        rc, _, _ = self.sw.spawn(["bash", "-c", "trap '' TERM; sleep 100.654"], 3600)
        self.assertIsNone(rc)
        self.assertLess(time.monotonic() - t0, 10, "Ctrl-C waited for the part's time limit")
        time.sleep(0.2)
        self.assertTrue(self.gone("sleep 100.654"), "a process of the part was left")

    def test_a_probe_at_its_time_limit_failed(self):
        self.sw.launcher.argv = lambda node, cmd: ["sleep", "60"]
        real = self.sw.spawn
        self.sw.spawn = lambda argv, timeout, env=None: real(argv, 1, env)
        self.assertFalse(self.sw.probe("n1"))
        self.assertEqual([(f["part"], "timed out after 1 s" in f["reason"])
                          for f in self.sw.meta["failed"]], [("nodes/n1/probe.json", True)])


if __name__ == "__main__":
    unittest.main()
