"""nbw.fleet.cli: the command line of nbw-fleet (plan, judge, run)."""

import argparse
import json
import os
import re
import sys
import time

from .. import command
from ..command import EXIT_USAGE

from . import FORMAT, PROG
from . import act, floors
from . import judge as judgemod
from . import spec as specmod
from . import junit
from . import plan as planmod
from . import report
from . import run as runmod
from . import sweepdir, topology
from ..jsonutil import printable
from .act import EXIT_EXPECTATION, fail_status
from .sweepdir import NAME_RE, NAME_WORDS

TOPO_HELP = ("which leaf switch each port hangs off: ibnetdiscover's output (a Ca "
             "described 'HOST DEVICE' is HOST's port DEVICE) or a hostfile with rack=R "
             "(every rail) and leaf<i>=L (rail i); a leaf's uplink whose crossing pairs "
             "are low is named, not its NICs")
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


def max_time_arg(text):
    """--max-time: Slurm's time formats (nbw.fleet.act.slurm_time)."""
    try:
        return act.slurm_time(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


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
        if not NAME_RE.match(x):
            raise argparse.ArgumentTypeError("node name '%s': %s" % (printable(x), NAME_WORDS))
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
    p.add_argument("--duration", type=seconds, default=5.0, metavar="S",
                   help="each screening window (default 5 s)")
    p.add_argument("--warmup", type=seconds, default=2.0, metavar="S",
                   help="warm-up before each screening window (default 2 s)")
    p.add_argument("--retest-duration", type=seconds, default=20.0, metavar="S",
                   help="each retest's window, the full one (default 20 s)")
    p.add_argument("--retest-warmup", type=seconds, default=3.0, metavar="S",
                   help="warm-up before each retest's window (default 3 s)")
    p.add_argument("--isolate-budget", type=count_int, default=4, metavar="N",
                   help="retest steps of the isolate phase at most, besides reading "
                   "drives again (default 4)")
    p.add_argument("--pairs", type=pairs_arg, default="auto", metavar="MODE",
                   help="all, ring, K random partners, ring+K, or auto: all up to %d "
                   "nodes, ring+%d beyond (default auto)" % (planmod.AUTO_ALL_UP_TO,
                                                            planmod.AUTO_K))
    p.add_argument("--seed", type=count_int, default=0, metavar="N",
                   help="shuffles the nodes' order and picks K's rounds (default 0)")
    p.add_argument("--rails-one-by-one", action="store_true",
                   help="the fabric a rail at a time, a step per round and rail (default: "
                   "every rail of a pair in one run)")
    p.add_argument("--no-remote", action="store_true",
                   help="leave out the drive->remote phase (nodes without drives)")
    p.add_argument("--fanout", type=positive_int, default=planmod.FANOUT, metavar="N",
                   help="ssh: launcher processes at once at most; a step over more nodes "
                   "runs in waves of whole pairs (default %d)" % planmod.FANOUT)
    p.add_argument("--max-time", type=max_time_arg, metavar="TIME",
                   help="refuse a sweep whose plan takes longer (run; plan: exit 3), and "
                   "say which setting would fit; run keeps it while running (each step "
                   "cut at the time left). Slurm's formats: 30 (minutes), MM:SS, "
                   "H:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS; or 90s, 20m, 2h")


def add_plan_options(p):
    p.add_argument("--launcher", choices=("srun", "ssh"), default="srun",
                   help="how steps reach the nodes: srun (one Slurm step over the "
                   "allocation per step, the default) or ssh (a process per node, "
                   "--fanout at once)")
    p.add_argument("--setup", type=seconds, metavar="S",
                   help="the whole cost of starting a step, instead of the launcher's "
                   "model")


def build_parser():
    p = Parser(prog=PROG, description=DESCRIPTION,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-V", "--version", action="version",
                   version="%s sweep format %d" % (PROG, FORMAT))
    sub = p.add_subparsers(dest="verb", metavar="COMMAND")
    s = sub.add_parser("plan", help="the rounds, pairs and duration of a sweep",
                       description="The rounds of disjoint pairs of a sweep, the number of "
                       "pairs, its steps and how long each phase takes with its defaults "
                       "(chosen by the fleet's size). Nothing is run.")
    s.add_argument("--nodes", type=nodes_arg, metavar="N|a,b,c",
                   help="the number of nodes, or their names (default: --fabric-topology's)")
    s.add_argument("--fabric-topology", metavar="FILE",
                   help=TOPO_HELP + "; the plan adds rounds so that each leaf has pairs "
                   "inside it and each uplink at least %d crossing pairs a rail"
                   % topology.CROSS_PER_UPLINK)
    s.add_argument("--rails", type=count_int, default=1, metavar="R",
                   help="RDMA ports per node, measured rail i to rail i (default 1)")
    s.add_argument("--drives", type=count_int, default=0, metavar="D",
                   help="drives per node (default 0)")
    s.add_argument("--show-rounds", metavar="all|LIST",
                   help="print the pairs of these rounds (1-based: 1,3,5-7, or all)")
    s.add_argument("--json", action="store_true", help="one JSON document on stdout")
    add_window_options(s)
    add_plan_options(s)
    s = sub.add_parser("judge", help="the judgement of a sweep's directory",
                       description="Which drive, rail, node or link of a sweep is below "
                       "its kind's fleet median, with its evidence, and a verdict per node "
                       "(PASS, SUSPECT, NOT MEASURED): a pure function of the directory "
                       "nbw-fleet run wrote.")
    s.add_argument("dir", metavar="DIR", help="the sweep's directory")
    add_judge_options(s)
    s = sub.add_parser("run", help="the sweep: local, fabric, drive->remote, isolate",
                       description="The sweep over a node list: inside a Slurm allocation "
                       "one srun step per phase or round over the allocation (srun "
                       "--multi-prog); elsewhere one LAUNCHER process per node (ssh by "
                       "default), --fanout at once. TOOL_DIR and the tools' settings come "
                       "from the environment. Writes a new directory; ends with the "
                       "judgement. A node that fails to start, dies or hangs is dropped at "
                       "its first failure, its partners re-paired in one more round.")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--nodes", type=nodes_arg, metavar="a,b,c", help="the nodes")
    g.add_argument("--hostfile", metavar="FILE",
                   help="the nodes, one a line (the first word; # comments; rack=R or "
                   "switch=S after it groups the page's matrix; rack=R and leaf<i>=L "
                   "are its topology)")
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
                   "its partners connect to (default: the node's name)")
    add_window_options(s)
    s.add_argument("--launcher", choices=("srun", "ssh"),
                   help="srun (the default inside a Slurm allocation) or ssh (LAUNCHER, "
                   "ssh by default, elsewhere)")
    s.add_argument("--setup", type=seconds, metavar="S",
                   help="the whole cost of starting a step, instead of the launcher's "
                   "model: the plan --max-time is held to, and each step's share of it")
    s.add_argument("--threshold", type=ratio_arg, default=judgemod.THRESHOLD, metavar="R",
                   help="a figure below R x its kind's median is low and retested "
                   "(default %g)" % judgemod.THRESHOLD)
    add_floor_options(s, "(default drive=0.8,rail=0.8)")
    s.add_argument("--probe-arg", action="append", metavar="ARG",
                   help="an argument for nvme_link_probe (an expectation); repeatable")
    s.add_argument("--no-drives", action="store_true",
                   help="nodes without drives: no drive read, no drive->remote phase")
    s.add_argument("--fabric-topology", metavar="FILE",
                   help=TOPO_HELP + " (default: the hostfile's rack= and leaf<i>=)")
    s.add_argument("--part-limit", type=seconds, metavar="S",
                   help="every step's time limit, its launch included (default: its parts' "
                   "own, their windows and the tools' waits, plus a minute): what a node "
                   "that hangs costs the sweep, once (it is dropped from later steps)")
    add_act_options(s)
    s.add_argument("--drain", action="store_true",
                   help="drain each SUSPECT node in Slurm once judged (scontrol update "
                   "nodename=NODE state=drain reason=\"nbw: ...\"); a drain that fails is "
                   "said, the verdict still written (exit 1 unless --fail-on's)")
    return command.add_options_table(p), sub


def spec_file(path):
    try:
        return specmod.read_spec(path)
    except specmod.SpecError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def floor_text(text):
    try:
        return specmod.floor_arg(text)
    except specmod.SpecError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_floor_options(s, default):
    s.add_argument("--floor", type=floor_text, default=None, metavar="drive=R,rail=R|none",
                   help="a drive below R x its link's ceiling, a rail below R x its port's "
                   "line rate, is below its floor (R in (0,1]; none: no floor, an emulated "
                   "lab) %s" % default)
    s.add_argument("--spec", type=spec_file, default=None, metavar="FILE",
                   help="the site's minimum per model, one rule a line: 'drive MODEL "
                   "[fw=FW] min=GB/s', 'nic MODEL [rate=Gb/s] min=GB/s'; it wins over the "
                   "floor where it names the part")


def add_act_options(s):
    """--junit and --fail-on: judge's and run's."""
    s.add_argument("--junit", metavar="FILE",
                   help="also write JUnit XML: a testcase per node and kind of part, a "
                   "suspect a failure with its evidence, a part not measured skipped")
    s.add_argument("--fail-on", type=fail_on_arg, default=(), metavar="WHAT",
                   help="exit 3 when a part is a suspect (suspect; unsteady: also a part "
                   "low once and normal again), 4 when none is but a node or pair was "
                   "not measured (unmeasured); comma-separated")


def add_judge_options(s):
    s.add_argument("--threshold", type=ratio_arg, default=None, metavar="R",
                   help="a figure below R x its kind's median is low (default the "
                   "sweep's own, else %g)" % judgemod.THRESHOLD)
    add_floor_options(s, "(default the sweep's own, else drive=0.8,rail=0.8)")
    s.add_argument("--json", action="store_true", help="one JSON document on stdout")
    s.add_argument("--html", metavar="FILE",
                   help="also write one self-contained HTML page (and FILE.png, the heat "
                   "map, when gnuplot is installed)")
    add_act_options(s)
    s.add_argument("--fabric-topology", metavar="FILE",
                   help=TOPO_HELP + " (default: the one the sweep kept)")
    s.add_argument("--worst", type=count_int, default=10, metavar="N",
                   help="the N worst parts of each kind in the text (default 10)")
    s.add_argument("--nodes-shown", choices=("all", "problems", "none"), default=None,
                   help="the text's one line per node: every node, only those not PASS, "
                   "or none (default: all up to 64 nodes, problems beyond)")


def fail_on_arg(text):
    words = [w for w in text.split(",") if w]
    bad = [w for w in words if w not in ("suspect", "unsteady", "unmeasured")]
    if bad or not words:
        raise argparse.ArgumentTypeError("%s: suspect, unsteady or unmeasured "
                                         "(comma-separated)" % text)
    return tuple(words)


def cmd_run(args, out):
    env = dict(os.environ)
    if args.resume is None and args.out is None:
        args.out = time.strftime("fleet-%Y%m%dT%H%M%SZ", time.gmtime())
    if args.resume is not None and args.out is not None:
        sys.stderr.write("%s run: --out and --resume: one directory or the other (try --help)\n"
                         % PROG)
        return EXIT_USAGE
    return runmod.start(args, env, out)


def ratio_arg(text):
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not 0 < v < 1:
        raise argparse.ArgumentTypeError("%s: a ratio between 0 and 1 (e.g. 0.9)" % text)
    return v


def write_file(path, fill):
    """fill(f) into path; an error in one line, False."""
    try:
        with open(path, "w") as f:
            fill(f)
        return True
    except OSError as e:
        sys.stderr.write(printable("%s: %s: %s" % (PROG, path, e.strerror)) + "\n")
        return False


def cmd_judge(args, out):
    try:
        sw = sweepdir.read_sweep(args.dir)
    except sweepdir.SweepError as e:
        sys.stderr.write(printable("%s: %s" % (PROG, e)) + "\n")
        return 1
    if args.threshold is None:
        own = sw.meta.get("threshold")
        args.threshold = own if isinstance(own, float) and 0 < own < 1 else judgemod.THRESHOLD
    try:
        topo = topology.load(sw.meta, args.fabric_topology)
    except topology.TopologyError as e:
        sys.stderr.write(printable("%s: %s" % (PROG, e)) + "\n")
        return EXIT_USAGE
    bad = floors.unknown_models(sw, args.spec, judgemod.probe_device)
    if bad:
        sys.stderr.write(printable("%s: %s" % (PROG, bad)) + "\n")
        return EXIT_USAGE
    result = judgemod.judge(sw, args.threshold, args.worst, topo, args.floor, args.spec)
    if args.html and not write_html(args.html, sw, result):
        return 1
    if args.junit and not write_file(args.junit, lambda f: junit.write(result, f)):
        return 1
    if args.json:
        report.as_json(result, out)
    else:
        report.text(result, out, args.nodes_shown)
    return fail_status(result, args.fail_on)


def write_html(path, sw, result):
    matrix = judgemod.pair_matrix(sw, result["threshold"])
    nodes = sw.nodes or sorted({x for k in matrix for x in k})
    png = path + ".png"
    have_png = report.heatmap_png(nodes, matrix, png) if len(nodes) <= report.NAMED_UP_TO \
        else False
    return write_file(path, lambda f: f.write(report.html_page(
        result, nodes, matrix, report.data_uri(png) if have_png else None)))


def durations_of(args):
    return planmod.Durations(args.duration, args.warmup, args.retest_duration,
                             args.retest_warmup, isolate=args.isolate_budget)


def plan_document(args, plan, launch, env=None):
    """The plan of the command line's args as a document (nbw.fleet.plan)."""
    return planmod.plan_document(plan, launch, durations_of(args), args.rails, args.drives,
                                 args.seed, args.rails_one_by_one, not args.no_remote,
                                 getattr(args, "max_time", None), env)


def print_plan_text(doc, out):
    w = out.write
    w("%s plan: %d nodes, %d rail%s, %d drive%s, pairs %s%s, seed %d\n" % (
        PROG, doc["nodes"], doc["rails"], "" if doc["rails"] == 1 else "s", doc["drives"],
        "" if doc["drives"] == 1 else "s", doc["pairs_mode"],
        " (auto: all up to %d nodes, ring+%d beyond)" % (planmod.AUTO_ALL_UP_TO,
                                                          planmod.AUTO_K)
        if doc["pairs_asked"] == "auto" else "", doc["seed"]))
    per = doc["pairs_per_round"]
    if doc["pairs_per_round_min"] != per:
        per = "%d-%d" % (doc["pairs_per_round_min"], per)
    w("  rounds        %d (%s pairs each), %d pairs\n" % (doc["rounds"], per, doc["pair_count"]))
    m = doc["measurements"]
    w("  measurements  %d fabric runs (%s, both directions at once: %d directions), "
      "%d drive->remote runs, %d drive windows per node\n" % (
          m["fabric_runs"], "a rail at a time" if doc["rails_one_by_one"]
          else "every rail at once", m["fabric_directions"], m["remote_runs"],
          m["drive_windows_per_node"]))
    la = doc["launcher"]
    w("  launcher      %s, %s set-up per step%s\n" % (
        la["kind"] if la["kind"] == "srun" else "ssh, fan-out %d" % la["fanout"],
        planmod.human_seconds(la["setup_s"]),
        ", %d waves a round" % la["waves_per_round"] if la["waves_per_round"] > 1 else ""))
    st = doc["steps"]
    w("  steps         local %d, fabric %d, drive->remote %d, isolate at most %d\n" % (
        st["local"], st["fabric"], st["remote"], st["isolate_max"]))
    d = doc["durations"]
    w("  windows       screening %g s (warm-up %g + %g), retests %g s (warm-up %g + %g)\n"
      % (d["window_s"], d["warmup_s"], d["duration_s"], d["full_window_s"],
         d["retest_warmup_s"], d["retest_duration_s"]))
    ph = doc["phases_s"]
    w("  dead nodes    %s\n" % doc["dead_nodes"])
    for key, label in (("preflight_s", "preflight"), ("local_s", "local"),
                       ("fabric_s", "fabric"), ("remote_s", "drive->remote"),
                       ("isolate_s", "isolate (budget)"), ("judge_s", "judge"),
                       ("total_s", "total")):
        w("  %-17s %12s\n" % (label, planmod.human_seconds(ph[key])))


def round_entry(plan, r):
    pairs, idle = plan.round(r)
    return {"round": r + 1,
            "pairs": [[plan.name(a), plan.name(b)] for a, b in pairs],
            "idle": [plan.name(x) for x in idle]}


def launch_of(args):
    return planmod.Launch(args.launcher, args.fanout, args.setup)


def cmd_plan(args, out):
    names = args.nodes if isinstance(args.nodes, list) else None
    try:
        topo = topology.read_topology(args.fabric_topology, names) \
            if args.fabric_topology else None
    except topology.TopologyError as e:
        sys.stderr.write(printable("%s: %s" % (PROG, e)) + "\n")
        return EXIT_USAGE
    if args.nodes is None:
        if topo is None:
            sys.stderr.write("%s plan: --nodes (or --fabric-topology) is needed (try --help)\n"
                             % PROG)
            return EXIT_USAGE
        names = topo.nodes()
    n = len(names) if names else args.nodes
    plan = planmod.Plan(n, args.pairs, seed=args.seed, names=names)
    topology.apply(plan, topo, args.rails)
    doc = plan_document(args, plan, launch_of(args), os.environ)
    if topo is not None:
        doc["topology"] = topology.plan_summary(plan, topo, args.rails)
    shown = []
    if args.show_rounds:
        try:
            shown = list(round_list(args.show_rounds, plan.rounds))
        except ValueError as e:
            sys.stderr.write(printable("%s: %s" % (PROG, e)) + "\n")
            return EXIT_USAGE
    line = planmod.fit_line(doc)
    if line:
        sys.stderr.write(printable("%s: %s" % (PROG, line)) + "\n")
    rc = EXIT_EXPECTATION if doc["fits"] is False else 0
    if args.json:
        doc["shown_rounds"] = [round_entry(plan, r) for r in shown]
        json.dump(doc, out, indent=1)
        out.write("\n")
        return rc
    print_plan_text(doc, out)
    if topo is not None:
        topology.plan_text(doc["topology"], out.write)
    for r in shown:
        e = round_entry(plan, r)
        out.write("round %d: %s%s\n" % (
            e["round"], " ".join("%s-%s" % (a, b) for a, b in e["pairs"]),
            "  (idle: %s)" % " ".join(e["idle"]) if e["idle"] else ""))
    return rc


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
