"""nbw.fleet.cli: the command line of nbw-fleet (plan, judge, run)."""

import argparse
import json
import os
import re
import sys
import time

from .. import command
from ..command import EXIT_USAGE
from . import FORMAT
from . import judge as judgemod
from . import plan as planmod
from . import report
from . import sweepdir

PROG = "nbw-fleet"
DESCRIPTION = """\
A fleet sweep: every node's PCIe links and drives, the fabric rail by rail in rounds
of disjoint pairs, each node's drives into a partner's DRAM, then a retest of each
part below its peers against two partners that passed; the judgement names the
drive, rail, node or link that is below its kind's fleet median, with its evidence.

  plan   the rounds, pairs and duration of a sweep (nothing is run)
  judge  the judgement of a sweep's directory (text, JSON, an HTML page)
  run    the sweep (see nbw-fleet(1))
"""


class Parser(command.Parser):
    """Usage errors: one line naming the command (nbw-fleet VERB), exit status 2."""

    hint = "(try --help)"


def seconds(text):
    """A duration: seconds, or with a unit: 500ms, 20s, 2m, 1h."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)?", text)
    if not m:
        raise argparse.ArgumentTypeError("%s: not a duration (e.g. 20, 500ms, 2m)" % text)
    scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]
    return float(m.group(1)) * scale


def positive_int(text):
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise argparse.ArgumentTypeError("%s: not a positive whole number" % text)
    return int(text)


def count_int(text):
    if not re.fullmatch(r"[0-9]+", text):
        raise argparse.ArgumentTypeError("%s: not a whole number" % text)
    return int(text)


def pairs_arg(text):
    try:
        return planmod.parse_pairs(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def netdev_arg(text):
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,15}", text):
        raise argparse.ArgumentTypeError("%s: not an interface name" % text)
    return text


def nodes_arg(text):
    """--nodes: a count (plan) or a comma-separated list of names."""
    if re.fullmatch(r"[0-9]+", text):
        n = int(text)
        if n < 1:
            raise argparse.ArgumentTypeError("%s: at least one node" % text)
        return n
    names = [x for x in text.split(",") if x]
    for x in names:
        if not re.fullmatch(r"[A-Za-z0-9._:@%-]+", x):
            raise argparse.ArgumentTypeError("node name '%s': letters, digits and ._:@%%- only"
                                             % x)
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError("a node is named twice")
    if not names:
        raise argparse.ArgumentTypeError("no node")
    return names


def round_list(text, rounds):
    """--show-rounds: 'all' or 1-based numbers and ranges (1,3,5-7), each checked
    against the plan's rounds; yields 0-based indices in order."""
    if text == "all":
        yield from range(rounds)
        return
    for part in text.split(","):
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", part)
        if not m:
            raise ValueError("--show-rounds %s: 'all' or round numbers (1,3,5-7)" % text)
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if not 1 <= a <= b <= rounds:
            raise ValueError("--show-rounds %s: the plan has rounds 1 to %d" % (part, rounds))
        yield from range(a - 1, b)


def add_window_options(p):
    p.add_argument("--duration", type=seconds, default=20.0, metavar="S",
                   help="each measured window (default 20 s)")
    p.add_argument("--warmup", type=seconds, default=3.0, metavar="S",
                   help="warm-up before each window (default 3 s)")


def add_duration_options(p):
    add_window_options(p)
    p.add_argument("--setup", type=seconds, default=5.0, metavar="S",
                   help="starting a measurement on its nodes (default 5 s)")
    p.add_argument("--isolate-budget", type=count_int, default=16, metavar="N",
                   help="retest windows of the isolate phase (default 16)")


def build_parser():
    p = Parser(prog=PROG, description=DESCRIPTION,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-V", "--version", action="version",
                   version="%s sweep format %d" % (PROG, FORMAT))
    sub = p.add_subparsers(dest="verb", metavar="COMMAND")
    s = sub.add_parser("plan", help="the rounds, pairs and duration of a sweep",
                       description="The rounds of disjoint pairs of a sweep, the number of "
                       "pairs and how long each phase takes. Nothing is run.")
    s.add_argument("--nodes", type=nodes_arg, required=True, metavar="N|a,b,c",
                   help="the number of nodes, or their names")
    s.add_argument("--rails", type=count_int, default=1, metavar="R",
                   help="RDMA ports per node, measured rail i to rail i (default 1)")
    s.add_argument("--drives", type=count_int, default=0, metavar="D",
                   help="drives per node (default 0)")
    s.add_argument("--pairs", type=pairs_arg, default="all", metavar="all|ring|K",
                   help="every pair, the ring, or K random partners each (default all)")
    s.add_argument("--seed", type=count_int, default=0, metavar="N",
                   help="shuffles the nodes' order and picks K's rounds (default 0)")
    s.add_argument("--show-rounds", metavar="all|LIST",
                   help="print the pairs of these rounds (1-based: 1,3,5-7, or all)")
    s.add_argument("--json", action="store_true", help="one JSON document on stdout")
    add_duration_options(s)
    s = sub.add_parser("judge", help="the judgement of a sweep's directory",
                       description="Which drive, rail, node or link of a sweep is below "
                       "its kind's fleet median, with its evidence: a pure function of the "
                       "directory nbw-fleet run wrote.")
    s.add_argument("dir", metavar="DIR", help="the sweep's directory")
    s.add_argument("--threshold", type=ratio_arg, default=None, metavar="R",
                   help="a figure below R x its kind's median is low (default the "
                   "sweep's own, else %g)" % judgemod.THRESHOLD)
    s.add_argument("--json", action="store_true", help="one JSON document on stdout")
    s.add_argument("--html", metavar="FILE",
                   help="also write one self-contained HTML page (and FILE.png, the heat "
                   "map, when gnuplot is installed)")
    s = sub.add_parser("run", help="the sweep: local, fabric, drive->remote, isolate",
                       description="The sweep over a node list, through the launcher "
                       "run_bench.sh uses (LAUNCHER, TOOL_DIR and the other settings from the "
                       "environment, as for run_bench.sh; inside a Slurm allocation LAUNCHER "
                       "defaults to srun). Writes a new directory; ends with the judgement.")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--nodes", type=nodes_arg, metavar="a,b,c", help="the nodes")
    g.add_argument("--hostfile", metavar="FILE",
                   help="the nodes, one a line (the first word; # comments)")
    g.add_argument("--resume", metavar="DIR",
                   help="continue the sweep in DIR: what it holds is kept, never measured "
                   "again")
    s.add_argument("--out", metavar="DIR",
                   help="the sweep's directory, new or empty (default fleet-UTC-TIMESTAMP)")
    s.add_argument("--rail-devs", type=lambda t: [x for x in t.split(",") if x],
                   metavar="DEV,DEV", help="the RDMA device of each rail, the same on every "
                   "node (default one rail: every ACTIVE port)")
    s.add_argument("--rdma-netdev", metavar="IF", type=netdev_arg,
                   help="each node's IPv4 address on IF (asked on the node) is the address "
                   "its sources connect to (default: the node's name)")
    s.add_argument("--pairs", type=pairs_arg, default="all", metavar="all|ring|K",
                   help="every pair, the ring, or K random partners each (default all)")
    s.add_argument("--seed", type=count_int, default=0, metavar="N",
                   help="shuffles the nodes' order and picks K's rounds (default 0)")
    add_window_options(s)
    s.add_argument("--threshold", type=ratio_arg, default=judgemod.THRESHOLD, metavar="R",
                   help="a figure below R x its kind's median is low and retested "
                   "(default %g)" % judgemod.THRESHOLD)
    s.add_argument("--isolate-budget", type=count_int, default=16, metavar="N",
                   help="retest windows of the isolate phase at most (default 16)")
    s.add_argument("--probe-arg", action="append", metavar="ARG",
                   help="an argument for nvme_link_probe (an expectation); repeatable")
    s.add_argument("--no-remote", action="store_true",
                   help="leave out the drive->remote phase (nodes without drives)")
    s.add_argument("--parallel", type=positive_int, default=256, metavar="N",
                   help="parts run at once at most (default 256)")
    return p, sub


def cmd_run(args, out):
    from . import run as runmod
    env = dict(os.environ)
    if args.resume is None and args.out is None:
        args.out = time.strftime("fleet-%Y%m%dT%H%M%SZ", time.gmtime())
    if args.resume is not None and args.out is not None:
        sys.stderr.write("%s run: --out and --resume: one directory or the other (try --help)\n"
                         % PROG)
        return EXIT_USAGE
    if env.get("SLURM_JOB_NODELIST") and "LAUNCHER" not in env:
        env["LAUNCHER"] = "srun -N1 -n1 -w"
    return runmod.start(args, env, out)


def ratio_arg(text):
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not 0 < v < 1:
        raise argparse.ArgumentTypeError("%s: a ratio between 0 and 1 (e.g. 0.9)" % text)
    return v


def cmd_judge(args, out):
    try:
        sw = sweepdir.read_sweep(args.dir)
    except sweepdir.SweepError as e:
        sys.stderr.write("%s: %s\n" % (PROG, e))
        return 1
    if args.threshold is None:
        own = sw.meta.get("threshold")
        args.threshold = own if isinstance(own, float) and 0 < own < 1 else judgemod.THRESHOLD
    result = judgemod.judge(sw, args.threshold)
    if args.html:
        matrix = judgemod.pair_matrix(sw, args.threshold)
        nodes = sw.nodes or sorted({x for k in matrix for x in k})
        png = args.html + ".png"
        have_png = report.heatmap_png(nodes, matrix, png)
        try:
            with open(args.html, "w") as f:
                f.write(report.html_page(result, nodes, matrix,
                                         report.data_uri(png) if have_png else None))
        except OSError as e:
            sys.stderr.write("%s: %s: %s\n" % (PROG, args.html, e.strerror))
            return 1
    if args.json:
        report.as_json(result, out)
    else:
        report.text(result, out)
    return 0


def plan_document(args, plan):
    d = planmod.Durations(args.duration, args.warmup, args.setup, isolate=args.isolate_budget)
    phases = planmod.estimate(plan, args.rails, args.drives, d)
    sizes = sorted({plan.pairs_in_round(r) for r in range(min(plan.rounds, 3))}
                   | ({plan.pairs_in_round(plan.rounds - 1)} if plan.rounds else set()))
    return {
        "tool": PROG, "command": "plan", "format": FORMAT,
        "nodes": plan.n, "rails": args.rails, "drives": args.drives,
        "pairs_mode": plan.mode, "seed": args.seed,
        "rounds": plan.rounds,
        "pairs_per_round": max(sizes) if sizes else 0,
        "pairs_per_round_min": min(sizes) if sizes else 0,
        "pair_count": plan.pair_count,
        "measurements": {
            "drive_windows_per_node": args.drives + 1 if args.drives else 0,
            "fabric": plan.pair_count * args.rails * 2,
            "remote": sum(len(r) for r in planmod.remote_rounds(plan)) if args.drives else 0,
            "isolate_budget": args.isolate_budget,
        },
        "durations": {"duration_s": d.duration, "warmup_s": d.warmup, "setup_s": d.setup,
                      "window_s": d.window, "probe_s": d.probe},
        "phases_s": phases,
    }


def print_plan_text(doc, out):
    w = out.write
    w("%s plan: %d nodes, %d rail%s, %d drive%s, pairs %s, seed %d\n" % (
        PROG, doc["nodes"], doc["rails"], "" if doc["rails"] == 1 else "s", doc["drives"],
        "" if doc["drives"] == 1 else "s", doc["pairs_mode"], doc["seed"]))
    per = doc["pairs_per_round"]
    if doc["pairs_per_round_min"] != per:
        per = "%d-%d" % (doc["pairs_per_round_min"], per)
    w("  rounds        %d (%s pairs each)\n" % (doc["rounds"], per))
    w("  pairs         %d\n" % doc["pair_count"])
    m = doc["measurements"]
    w("  measurements  %d fabric (pairs x rails x 2 directions), %d drive->remote, "
      "%d drive windows per node\n" % (m["fabric"], m["remote"], m["drive_windows_per_node"]))
    d = doc["durations"]
    w("  each window   %g s (warm-up %g + duration %g + setup %g)\n" % (
        d["window_s"], d["warmup_s"], d["duration_s"], d["setup_s"]))
    ph = doc["phases_s"]
    for key, label in (("local_s", "local"), ("fabric_s", "fabric"),
                       ("remote_s", "drive->remote"), ("isolate_s", "isolate (budget)"),
                       ("total_s", "total")):
        w("  %-17s %12s\n" % (label, planmod.human_seconds(ph[key])))


def round_entry(plan, r):
    pairs, idle = plan.round(r)
    return {"round": r + 1,
            "pairs": [[plan.name(a), plan.name(b)] for a, b in pairs],
            "idle": [plan.name(x) for x in idle]}


def cmd_plan(args, out):
    names = args.nodes if isinstance(args.nodes, list) else None
    n = len(names) if names else args.nodes
    plan = planmod.Plan(n, args.pairs, seed=args.seed, names=names)
    doc = plan_document(args, plan)
    shown = []
    if args.show_rounds:
        try:
            shown = list(round_list(args.show_rounds, plan.rounds))
        except ValueError as e:
            sys.stderr.write("%s: %s\n" % (PROG, e))
            return EXIT_USAGE
    if args.json:
        doc["shown_rounds"] = [round_entry(plan, r) for r in shown]
        json.dump(doc, out, indent=1)
        out.write("\n")
        return 0
    print_plan_text(doc, out)
    for r in shown:
        e = round_entry(plan, r)
        out.write("round %d: %s%s\n" % (
            e["round"], " ".join("%s-%s" % (a, b) for a, b in e["pairs"]),
            "  (idle: %s)" % " ".join(e["idle"]) if e["idle"] else ""))
    return 0


def main(argv):
    p, _ = build_parser()
    args = p.parse_args(argv)
    if args.verb is None:
        sys.stderr.write("%s: a command is needed: plan, judge or run (try --help)\n" % PROG)
        return EXIT_USAGE
    try:
        return {"plan": cmd_plan, "judge": cmd_judge, "run": cmd_run}[args.verb](args, sys.stdout)
    except BrokenPipeError:
        # A reader that stopped early (| head): no traceback, and none at exit either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
