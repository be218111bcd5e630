"""A fleet sweep (the directory nbw-fleet run writes) recorded as one run: each part's
figure as the judge reads it, one figure per part, so that nbw-results compare on two
sweeps says which parts moved. The judgement (its suspects) is kept with the run."""
import os
import uuid

from .. import jsonutil
from ..fleet.judge import judge
from ..fleet.sweepdir import SweepError, load_json, read_sweep
from ..jsonutil import digest
from .base import FORMAT, Fail, now_utc, utc_of
from .documents import figure

# The judge's part kinds and components -> the rung a figure is recorded under.
PARAM_KEYS = ("duration", "warmup", "pairs", "seed", "rails", "rail_devs", "threshold")


def is_sweep(path):
    """True when path is a sweep's directory (its sweep.json is nbw-fleet's)."""
    if not os.path.isdir(path) or not os.path.isfile(os.path.join(path, "sweep.json")):
        return False
    meta = load_json(os.path.join(path, "sweep.json"))
    return isinstance(meta, dict) and meta.get("tool") == "nbw-fleet"


def rung_of(part):
    """The rung of a judged part: 'fleet drive', 'fleet drives together', 'fleet rail 0',
    'fleet drive->remote'."""
    if part["kind"] == "drive":
        return "fleet drive"
    return "fleet " + str(part.get("component"))


def part_figures(result, params):
    out, seen = [], set()
    for p in result["parts"]:
        drive = p["component"] if p["kind"] == "drive" else None
        key = (rung_of(p), p["node"], drive)
        if p.get("figure_gb_per_s") is None or key in seen:
            continue
        seen.add(key)
        out.append(figure(key[0], p["node"], drive, p["figure_gb_per_s"], params))
    return out


def sweep_files(top):
    out = []
    for d, _, names in os.walk(top):
        out += [os.path.join(d, n) for n in names if n.endswith(".json")]
    return out


def build_fleet_run(args, top):
    """The record line of a fleet sweep: its parts' figures, its judgement as a
    document, failed when the sweep did not finish."""
    try:
        sw = read_sweep(top)
    except SweepError as e:
        raise Fail(1, str(e))
    meta = sw.meta
    threshold = meta.get("threshold") if isinstance(meta.get("threshold"), float) else 0.9
    result = judge(sw, threshold)
    params = {"tool": "nbw-fleet", "context": "fleet"}
    params.update({k: meta.get(k) for k in PARAM_KEYS if meta.get(k) is not None})
    figures = part_figures(result, params)
    failed = None
    if meta.get("state") != "done":
        failed = "the sweep is %s (nbw-fleet run --resume %s)" % (meta.get("state"), top)
    if not figures and not failed:
        raise Fail(1, "%s: a sweep without a measured part" % top)
    mtimes = [os.path.getmtime(f) for f in sweep_files(top)] or [os.path.getmtime(top)]
    nodes = meta.get("nodes") if isinstance(meta.get("nodes"), list) else []
    cmd = "nbw-fleet run --nodes %s" % ",".join(map(str, nodes))
    return {
        "kind": "run", "format": FORMAT, "uuid": str(uuid.uuid4()), "recorded": now_utc(),
        "start": args.start or utc_of(min(mtimes)), "end": args.end or utc_of(max(mtimes)),
        "commands": list(args.command or [cmd]),
        "suite_version": meta.get("suite_version"), "mode": "fleet",
        "params_hash": digest(sorted({f["params_hash"] for f in figures})),
        "exit_status": 0 if meta.get("state") == "done" else 1,
        "note": args.note, "change_starts": bool(args.change_starts), "failed": failed,
        "figures": figures, "inventory": {},
        # each node's verdict (PASS, SUSPECT, NOT MEASURED), the metrics' nbw_node_verdict;
        # every node named, its figures or not
        "nodes": [str(n) for n in nodes],
        "verdicts": {jsonutil.printable(str(x["node"])): x["verdict"]
                     for x in result.get("verdicts") or []},
        "sources": [os.path.abspath(top)],
        # The judgement is this host's, of what the nodes said: a node's lone
        # surrogate is written out as text there, never a reason to drop the sweep.
        "documents": {"sweep.json": meta, "judge.json": jsonutil.without_surrogates({
            k: result[k] for k in ("threshold", "nodes", "not_measured", "skipped",
                                   "failed", "counts", "suspects")})},
    }
