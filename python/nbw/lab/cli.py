"""vlab's commands: run, demo, check, pattern, --help, --version."""
import os
import shutil
import subprocess
import sys
import time

from .base import EX_USAGE, NODE_NAMES, USAGE, VLAB_DIR, VLAB_VERSION, err, usage_err
from .kernel import cmd_check
from .options import parse_run_args, positive
from .run import cmd_run


BANNER = """\
==============================================================================
 nvme-rdma bandwidth suite: DEMO IN THE VIRTUAL LAB
 Two qemu VMs (TCG, emulated NVMe, Soft-RoCE over a loopback link). The
 tables below are what the tools print on real hardware, but every absolute
 number here measures the emulator, not a drive, a link or a fabric.
==============================================================================
"""


# Where node a's demo script leaves run_bench.sh's run (RESULTS_DIR/RUN_NAME of
# demo-a.sh), relative to the lab's work directory.
DEMO_RESULTS = os.path.join("a", "out", "results", "ladder")


# Where node a's fleet script leaves the sweep's directory (fleet-a.sh).
FLEET_SWEEP = os.path.join("a", "out", "sweep")


def new_demo_dir(parent, stamp, prefix="nbw-demo-"):
    """Create and return PARENT/PREFIX-STAMP, or the first free -N after it:
    an earlier demo's directory is never reused."""
    base = os.path.join(parent, prefix + stamp)
    path, n = base, 1
    while True:
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            path, n = "%s-%d" % (base, n), n + 1


def save_demo(workdir, parent, stamp, what=DEMO_RESULTS, prefix="nbw-demo-"):
    """Copy the demo's results (what, in the lab's work directory) into a new
    directory under PARENT; returns its path, or None when there were none."""
    src = os.path.join(workdir, what)
    if not os.path.isdir(src) or not os.listdir(src):
        return None
    dest = new_demo_dir(parent, stamp, prefix)
    shutil.copytree(src, dest, dirs_exist_ok=True)
    return dest


def cmd_demo(argv):
    sys.stdout.write(BANNER)
    sys.stdout.flush()
    saved = []

    def collect(workdir):
        try:
            saved.append(save_demo(workdir, os.getcwd(), time.strftime("%Y%m%d-%H%M%S")))
        except OSError as e:
            err("cannot keep the demo's results: %s" % e)
            saved.append(None)

    # 1200 s: the whole ladder with every upper rung (TCP five ways, NFS read and written,
    # rsync three ways, the transfer) took 755 s in tests/lab/ladder_upper.sh's shorter windows.
    opts = ["--nodes", "2", "--drives", "2", "--links", "8:4,16:4", "--timeout", "1200"]
    rc = cmd_run(opts + argv + ["--on-b", os.path.join(VLAB_DIR, "demo-b.sh"),
                                os.path.join(VLAB_DIR, "demo-a.sh")], collect)
    if saved and saved[0]:
        print("demo results (ladder.png, ladder.json, ladder.txt, every tool's JSON): %s"
              % saved[0], flush=True)
        # The host's record of the run and its HTML report (demo-host.sh says where).
        host = subprocess.run([os.path.join(VLAB_DIR, "demo-host.sh"), saved[0]],
                              stdin=subprocess.DEVNULL).returncode
        rc = rc or host
    elif rc != EX_USAGE:
        err("the demo left no results")
    return rc


def fleet_argv(argv):
    """vlab fleet's command line as vlab run's: its defaults, then the user's options
    (the last of an option wins), a launch-agent on every node but a, fleet-a.sh on a
    with what follows "--" (nbw-fleet run's own options)."""
    opts, rest = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv \
        else (argv, [])
    base = ["--nodes", "4", "--drives", "2", "--drive-size", "64M", "--timeout", "1500"]
    script = os.path.join(VLAB_DIR, "fleet-a.sh")
    o, got, extra = parse_run_args(base + opts + [script])
    if got != script or extra:
        usage_err("fleet: unexpected argument %s (nbw-fleet run's own options go after --)"
                  % got)
    nodes = positive("--nodes", o["--nodes"], len(NODE_NAMES))
    if nodes < 2:
        usage_err("fleet: --nodes: 2..%d (a sweep measures pairs)" % len(NODE_NAMES))
    agents = []
    for name in NODE_NAMES[1:nodes]:
        agents += ["--on-" + name, os.path.join(VLAB_DIR, "fleet-node.sh")]
    return base + opts + agents + [script] + rest


def cmd_fleet(argv):
    """vlab fleet: nbw-fleet run over the lab's nodes (fleet-a.sh); the sweep's directory
    copied to a new ./nbw-fleet-STAMP, judged again there (report.html) and recorded in
    this host's nbw-results (fleet-host.sh), named last."""
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(USAGE)
        return 0
    saved = []

    def collect(workdir):
        try:
            saved.append(save_demo(workdir, os.getcwd(), time.strftime("%Y%m%d-%H%M%S"),
                                   FLEET_SWEEP, "nbw-fleet-"))
        except OSError as e:
            err("cannot keep the sweep: %s" % e)
            saved.append(None)

    rc = cmd_run(fleet_argv(argv), collect)
    if saved and saved[0]:
        host = subprocess.run([os.path.join(VLAB_DIR, "fleet-host.sh"), saved[0]],
                              stdin=subprocess.DEVNULL).returncode
        rc = rc or host
    elif rc != EX_USAGE:
        err("the sweep left no directory")
    return rc


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "run":
        return cmd_run(argv[2:])
    if cmd == "demo":
        return cmd_demo(argv[2:])
    if cmd == "fleet":
        return cmd_fleet(argv[2:])
    if cmd == "check":
        return cmd_check()
    if cmd == "pattern":
        os.execv(sys.executable, [sys.executable, os.path.join(VLAB_DIR, "pattern.py")] + argv[2:])
    if cmd in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    if cmd == "--version":
        print("vlab %d" % VLAB_VERSION)
        return 0
    if cmd == "":
        sys.stderr.write(USAGE)
        return EX_USAGE
    usage_err("unknown command %s" % cmd)
