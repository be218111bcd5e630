"""nbw-results' command line: the verbs' options (argparse) and the dispatch."""
import argparse
import sys

from .. import command
from .base import FORMAT, Fail, LARGE, NOISE_FLOOR, PROG, warn
from .html_report import cmd_report
from .compare_view import cmd_compare
from .inventory import cmd_inventory
from .openmetrics import cmd_export_any
from .verbs import cmd_annotate, cmd_list, cmd_record, cmd_show, cmd_trend
from .verbs_ref import cmd_check, cmd_reference


DESCRIPTION = """The suite's record of runs: every run dated, with the hosts' inventory,
compared against earlier runs and references. The record is DIR/runs.jsonl (append-only
JSON lines), indexed by DIR/index.sqlite (rebuilt from the record when needed). DIR:
--db, else $NBW_RESULTS, else $XDG_DATA_HOME/nbw-results (~/.local/share/nbw-results).
RUN: a run's id, a unique prefix of it, latest, latest~N.
A run that failed (a tool's ok: false, verify fail, a total not valid, an interrupted
run, a non-zero exit in a run directory) is recorded as failed with its reason and
never compared, trended or checked; so is a run excluded after the fact (exclude RUN).
Exit status: 0 ok; 1 runtime failure; 2 usage; 3 check: a figure outside its reference;
4 compare, check, trend: nothing could be compared (a run failed or was excluded, or no
figure is comparable); 5 check: a figure had no reference or was not comparable, or no
reference applies to the run (--allow-unchecked passes the first)."""


class Parser(command.Parser):
    """Usage errors: one line naming nbw-results, exit status 2."""

    name = PROG


# The options every verb takes, before or after the verb (defaults set in main).
COMMON_DEFAULTS = {"db": None, "index": None, "json": False, "noise_floor": NOISE_FLOOR,
                   "large": LARGE}


def export_parser(sub, common):
    """export: --csv, --json, --openmetrics [FILE] with --push and --timestamps."""
    s = sub.add_parser("export", parents=[common], help="every figure of every run (--csv, "
                       "--json), or the latest figures as OpenMetrics")
    s.add_argument("--csv", action="store_true", help="as CSV")
    s.add_argument("--openmetrics", nargs="?", const="-", metavar="FILE",
                   help="the latest figure of each rung, node and drive of the runs neither "
                   "failed nor excluded, in the OpenMetrics text format, into FILE "
                   "(written whole, then renamed: node_exporter's textfile collector) or "
                   "stdout")
    s.add_argument("--push", metavar="URL", help="with --openmetrics: PUT them to a "
                   "Prometheus Pushgateway, each node's under its own grouping key "
                   "(URL: http://HOST:9091; URL/metrics/job/nbw/instance/NODE), --parallel "
                   "at a time; one line says how many landed, a line per failed push "
                   "(exit 1), the others pushed")
    s.add_argument("--parallel", type=int, default=16, metavar="N",
                   help="--push: N pushes at a time (default 16)")
    s.add_argument("--push-groups", type=int, metavar="N",
                   help="--push: the nodes in N groups (grouping key instance "
                   "fleet-K-of-N, a node's always the same), 0: a group per node (default: "
                   "a group per node up to 64 nodes, else 8 groups: the Pushgateway checks "
                   "every group it holds at each push)")
    s.add_argument("--timestamps", choices=["yes", "no"], default="no",
                   help="the run's start as each sample's timestamp (default no: "
                   "node_exporter's textfile collector and the Pushgateway refuse them; the "
                   "start is also the figure nbw_run_start_timestamp_seconds)")
    s.add_argument("--timeout", type=float, default=10.0, metavar="S",
                   help="--push: give up after S seconds (default 10)")
    return s


def parser():
    common = Parser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument("--db", metavar="DIR", help="the record's directory")
    common.add_argument("--index", metavar="FILE",
                        help="the SQLite index (default DIR/index.sqlite; $NBW_RESULTS_INDEX)")
    common.add_argument("--json", action="store_true", help="one JSON document on stdout")
    common.add_argument("--noise-floor", type=float, metavar="PCT",
                        help="compare, report: the noise band of a figure without samples "
                        "(a change at most this large is noise; default %g)" % NOISE_FLOOR)
    common.add_argument("--large", type=float, metavar="PCT",
                        help="compare, report: a change beyond noise from this size is large "
                        "(default %g)" % LARGE)
    p = Parser(prog=PROG, description=DESCRIPTION, parents=[common],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-V", "--version", action="version", version="%s record format %d" % (
        PROG, FORMAT))
    sub = p.add_subparsers(dest="verb", metavar="VERB")
    s = sub.add_parser("record", parents=[common], help="record tools' JSON documents or "
                       "run_bench.sh run directories as one run")
    s.add_argument("files", nargs="+", metavar="FILE.json|RUN_DIR")
    s.add_argument("--note", metavar="TEXT", help="what changed (free text, one line)")
    s.add_argument("--change-starts", action="store_true",
                   help="a known change starts with this run (trends restart here)")
    s.add_argument("--inventory", action="append", metavar="FILE",
                   help="an inventory (nbw-results inventory) of one of the run's hosts "
                   "(repeatable)")
    s.add_argument("--node", metavar="NAME",
                   help="the node of documents without provenance not named MODE-NODE.json "
                   "(default: this host); a document's provenance names its own")
    s.add_argument("--node-from-name", action="store_true",
                   help="each document's node from its file name (MODE-NODE.json: NODE, "
                   "else NAME.json: NAME), for documents made before provenance")
    s.add_argument("--apart", action="store_true",
                   help="each FILE or RUN_DIR a run of its own (documents that claim the "
                   "same node, rung and drive are otherwise refused)")
    s.add_argument("--command", action="append", metavar="TEXT",
                   help="the command line that made the documents (repeatable)")
    s.add_argument("--start", metavar="UTC", help="the run's start, YYYY-MM-DDTHH:MM:SSZ "
                   "(documents without provenance; theirs say their own)")
    s.add_argument("--end", metavar="UTC", help="the run's end, YYYY-MM-DDTHH:MM:SSZ")
    s = sub.add_parser("list", parents=[common], help="the recorded runs")
    s.add_argument("--node", metavar="NAME", help="only runs with figures of this node")
    s.add_argument("--since", metavar="UTC", help="only runs started from this date "
                   "(YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)")
    s.add_argument("--mode", metavar="MODE", help="only runs of this run_bench.sh mode")
    s = sub.add_parser("note", parents=[common], help="note RUN TEXT: annotate a run "
                       "(a record line of its own)")
    s.add_argument("run", metavar="RUN")
    s.add_argument("text", metavar="TEXT")
    s = sub.add_parser("exclude", parents=[common], help="exclude RUN: never compare, "
                       "trend or check it again (recorded, never deleted)")
    s.add_argument("run", metavar="RUN")
    s.add_argument("--reason", metavar="TEXT", help="why (one line)")
    s = sub.add_parser("show", parents=[common], help="one run: figures, inventory, "
                       "each node's provenance")
    s.add_argument("run", metavar="RUN")
    s.add_argument("--node", metavar="NAME", help="only this node's figures, and which "
                   "host, kernel, build, drives and ports made them")
    s = sub.add_parser("compare", parents=[common], help="run B against run A (exit 3: a "
                       "figure worse beyond noise; exit 4: nothing comparable)")
    s.add_argument("a", metavar="A")
    s.add_argument("b", metavar="B")
    s.add_argument("--changes-only", action="store_true",
                   help="only the figures beyond noise, not comparable or of one run only, "
                   "the worst first (the JSON too)")
    s.add_argument("--worst", type=int, metavar="N",
                   help="only the N worst changes (implies --changes-only)")
    s = sub.add_parser("trend", parents=[common], help="one rung over time")
    s.add_argument("rung", metavar="RUNG")
    s.add_argument("--node", metavar="NAME")
    s.add_argument("--drive", metavar="NAME")
    s.add_argument("--out", metavar="PNG", help="draw it (gnuplot)")
    s.add_argument("--size", default="900x450", metavar="WxH", help="the PNG's size")
    s.add_argument("--figure", default="gb_per_s", metavar="NAME",
                   help="the figure to trend: gb_per_s (default), iops, writes_per_s, "
                   "cpu_s_per_gib, cpu_us_per_io, lat_mean_us, lat_p50_us ... lat_max_us")
    s = sub.add_parser("reference", parents=[common], help="reference set RUN RUN...: "
                       "bounds around figures two runs confirm (the median of each)")
    s.add_argument("action", choices=["set"])
    s.add_argument("runs", nargs="+", metavar="RUN")
    s.add_argument("--single", action="store_true",
                   help="one run is the reference, unconfirmed (said in the record)")
    s.add_argument("--by", choices=["model", "node"], default=None,
                   help="key each figure by its part's model (a drive's model and "
                   "firmware, a port's model and rate: the median of the parts; default "
                   "for fleet sweeps) or by node (default otherwise); a node SUSPECT or "
                   "NOT MEASURED in a run is left out")
    s.add_argument("--lower", type=float, default=-0.05, metavar="F",
                   help="lowest acceptable, a fraction of the reference (default -0.05)")
    s.add_argument("--upper", type=float, default=None, metavar="F",
                   help="highest acceptable fraction (default: no upper bound)")
    s.add_argument("--rung", metavar="RUNG", help="only this rung")
    s.add_argument("--node", metavar="NAME", help="only this node")
    s = sub.add_parser("check", parents=[common], help="RUN against its references (exit 3; "
                       "exit 4: nothing comparable; exit 5: a figure not checked)")
    s.add_argument("run", metavar="RUN")
    s.add_argument("--allow-unchecked", action="store_true",
                   help="pass (exit 0) although some figures had no reference or were not "
                   "comparable (they are still counted and listed)")
    s.add_argument("--junit", metavar="FILE",
                   help="the check as JUnit XML in FILE too (a testcase per figure)")
    s = export_parser(sub, common)
    s.add_argument("--out", metavar="FILE", help="into FILE (default stdout)")
    s = sub.add_parser("report", parents=[common], help="a self-contained HTML report")
    s.add_argument("run", nargs="?", default="latest", metavar="RUN")
    s.add_argument("--against", metavar="RUN", help="compare with (default: the run before)")
    s.add_argument("--out", required=True, metavar="FILE.html")
    s = sub.add_parser("inventory", parents=[common],
                       help="this host's inventory as JSON (sysfs, procfs)")
    s.add_argument("--sysfs-root", metavar="DIR", help="read a captured sysfs tree")
    s.add_argument("--proc-root", default="/proc", metavar="DIR", help="procfs (default /proc)")
    s.add_argument("--probe", metavar="PATH",
                   help="nvme_link_probe to run for the PCIe links (none: skip)")
    s.add_argument("--host", metavar="NAME", help="the host's name (default: hostname)")
    return command.add_options_table(p)


VERBS = {"record": cmd_record, "list": cmd_list, "show": cmd_show, "compare": cmd_compare,
         "trend": cmd_trend, "reference": cmd_reference, "check": cmd_check,
         "export": cmd_export_any,
         "note": cmd_annotate, "exclude": cmd_annotate, "report": cmd_report,
         "inventory": cmd_inventory}


def main(argv):
    p = parser()
    args = p.parse_args(argv)
    for k, v in COMMON_DEFAULTS.items():
        if not hasattr(args, k):
            setattr(args, k, v)
    if not args.verb:
        p.print_usage(sys.stderr)
        warn("no verb (--help)")
        return 2
    try:
        return VERBS[args.verb](args)
    except Fail as e:
        warn(str(e))
        return e.code
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
