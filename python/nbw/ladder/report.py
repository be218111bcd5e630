"""The ladder of a run_bench.sh ladder run, rung by rung
(the PCIe links, each drive alone and all together, TCP with 1 and 8 streams,
the fabric from memory, NFS over RDMA and over TCP, end to end), each against
its ceiling, and one sentence naming the rung that binds. Reads the tools'
output from the run directory (probe-NODE.json, baseline-NODE.json,
tcpN-NODE.json and tcp-sysctl-NODE.txt, fabric-NODE.json, ib_write_bw-NODE.txt,
nfs_PROTO-NODE.json, nfs_PROTO_randD-NODE.json, nfs-mounts-NODE.txt,
aggregate-NODE.json); writes ladder.json and ladder.txt there and, with --png,
a gnuplot chart.
The command (ladder_report): its options, the model (nbw.ladder.model), the text
(nbw.ladder.text) and the chart (nbw.ladder.chart).
Standard library only."""
import json
import os
import re
import sys

from .. import command
from ..jsonutil import printable
from . import chart, why as whylib
from .model import Ladder
from .text import above_notes, hop_notes, memory_notes, shared_notes, table

PROG = "ladder_report"
USAGE = """Usage: ladder_report [--png FILE] [--size WxH] [--no-write] RUN_DIR

RUN_DIR holds the JSON of a run_bench.sh ladder run. Prints the ladder table and
the sentence naming the binding rung; writes RUN_DIR/ladder.json and ladder.txt
(not with --no-write) and, with --png, the chart (gnuplot; $GNUPLOT names another
binary).
  --png FILE     draw the ladder into FILE (PNG): a log axis so that every rung
                 reads against its own ceiling, a measured bar (labelled with its
                 figure and % of ceiling) and a ceiling bar per rung, the link a
                 ceiling bar alone; the title names the binding rung
  --size WxH     its size in pixels (default 900x500)
The link row is a ceiling (the drives' usable link ceilings summed), never a
measurement: its measured column is empty. It and the drives together are
capped by every PCIe link the drives share (a switch uplink), named in a line
under the table. A figure above 105% of its own ceiling (an emulated link, a misreported
ceiling) prints "above ceiling", never a percentage, and never binds.
Under the sentence, "why:" lines explain the gap hop by hop (ladder.json's
"attribution"): a rail below its peers and what its port counted (the remote
tool's own), a link that trained down or retrained under load, AER errors, a
drive below its peers; "memory binds" when the staging memory
(memory-NODE.json) cannot carry what the path needs.
Exit status: 0 ok, 1 no usable results or gnuplot failed, 2 usage."""


def die(code, msg):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.exit(code)


def plot(rungs, out, width, height, title):
    """ladder.png (chart.py); gnuplot missing or failing: exit status 1."""
    try:
        chart.draw(rungs, out, width, height, title)
    except chart.ChartError as e:
        die(1, str(e))


class Parser(command.Parser):
    """Usage errors: one line naming ladder_report, exit status 2."""

    name = PROG
    hint = ""

    def reword(self, message):
        m = re.match(r"argument (--[\w-]+): expected one argument$", message)
        return "%s needs a value" % m.group(1) if m else message


def parse_args(argv):
    """The options and the run directory (an args namespace; help: print USAGE)."""
    p = Parser(prog=PROG, add_help=False, allow_abbrev=False)
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("--png", metavar="FILE")
    p.add_argument("--size", default="900x500", metavar="WxH")
    p.add_argument("--no-write", dest="write", action="store_false")
    p.add_argument("run_dir", nargs="?")
    args, rest = p.parse_known_args(argv)
    if args.help:
        return args
    for a in rest:
        if a.startswith("-"):
            p.error("unknown option '%s' (--help)" % a)
    if rest:
        p.error("one run directory only: '%s' and '%s'" % (args.run_dir, rest[0]))
    if args.run_dir is None:
        p.error("no run directory given (--help)")
    m = re.match(r"^([1-9][0-9]*)x([1-9][0-9]*)$", args.size)
    if not m or not all(100 <= int(v) <= 10000 for v in m.groups()):
        p.error("--size %s: WxH, each 100..10000 pixels" % args.size)
    args.width, args.height = (int(v) for v in m.groups())
    if not os.path.isdir(args.run_dir):
        p.error("%s: not a directory" % args.run_dir)
    return args


def main(argv):
    args = parse_args(argv)
    if args.help:
        print(USAGE)
        return 0
    run_dir, png, write = args.run_dir, args.png, args.write
    lad = Ladder(run_dir)
    rungs = lad.build()
    if not rungs:
        die(1, "%s: no ladder results (probe-, baseline-, tcpN-, fabric-, nfs_PROTO-, "
            "aggregate-, transfer-NODE.json)" % run_dir)
    bind = lad.binding()
    why = lad.attribution(bind)
    because = whylib.explain(rungs)  # the upper rungs' and the transfer's sentences
    lines = ["ladder: %s (sink %s, source %s)" % (run_dir, lad.sink or "-", lad.source or "-")]
    hop = lad.staging_hop()
    lines += (table(rungs) + above_notes(rungs) + memory_notes(rungs) + shared_notes(rungs)
              + hop_notes(hop))
    lines += ["", bind["reason"] + "."]
    lines += ["why: %s" % f["text"] for f in why if f["rule"] != "memory_binds"]
    notes = lad.upper.notes(rungs, lad.source, lad.sink)
    lines += notes + [s + "." for s in because] + lad.upper.random_table(lad.source)
    lines = [printable(x) for x in lines]  # a document's word: escaped in its line, never a line
    print("\n".join(lines))
    if write:
        doc = {"tool": "ladder_report", "sink": lad.sink, "source": lad.source, "nodes": lad.nodes,
               "rungs": rungs, "binding": bind, "attribution": why, "notes": notes,
               "nfs_random": lad.upper.random_rows(lad.source), "staging_hop": hop,
               "why": because}
        with open(os.path.join(run_dir, "ladder.json"), "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        with open(os.path.join(run_dir, "ladder.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    if png:
        w, h = args.width, args.height
        plot(rungs, png, w, h, chart.title(bind, lad.sink, lad.source))
        sys.stderr.write("%s: %s (%dx%d)\n" % (PROG, png, w, h))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
