"""A fleet sweep (the directory nbw-fleet run writes) recorded as one run: each part's
figure as the judge reads it, one figure per part, so that nbw-results compare on two
sweeps says which parts moved. The judgement (its suspects) is kept with the run."""
import os
import re
import uuid

from .. import jsonutil
from ..fleet.judge import judge
from ..fleet.sweepdir import SweepError, load_json, read_sweep
from ..jsonutil import digest
from . import provenance, sweep_nodes
from .base import FORMAT, Fail, epoch_of, now_utc, utc_of, warn
from .documents import figure, shell_word

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


def part_key(p, brief, sw, rates):
    """The part of a judged figure as a reference by model keys it: {"key" (a drive's
    model and firmware, a port's model and rate, a node's drives'; None when the model
    is not known), "node_verdict" (its node's in the sweep)}: the identity itself is
    the node's provenance (its drives' serials, its ports' firmware)."""
    node, comp = p["node"], str(p.get("component"))
    out = {"node_verdict": brief.get("verdict"), "key": None}
    if p["kind"] == "drive":
        model, fw, _ = sweep_nodes.drive_identity(brief, comp)
        dr = sw.drives.get((node, comp))
        model = model or (dr.model if dr else None)
        if model:
            out["key"] = "drive %s, firmware %s" % (model, fw or "unknown")
        return out
    if comp.startswith("rail "):
        i = int(comp[5:]) if comp[5:].isdigit() else None
        devs = sw.meta.get("rail_devs") if isinstance(sw.meta.get("rail_devs"), list) else []
        board, _ = sweep_nodes.port_identity(brief, devs[i] if i is not None and
                                             i < len(devs) else None)
        rate = rates.get((node, i))
        if board:
            out["key"] = "port %s at %s GB/s" % (board, "%g" % rate if rate else "unknown")
        return out
    models = sorted({d.model for d in sw.drives.values() if d.node == node and d.model})
    fws = sorted({str(d.get("firmware")) for d in brief.get("drives") or []})
    if models:
        out["key"] = "%s of %s, firmware %s" % (comp, ", ".join(models),
                                               ", ".join(fws) or "unknown")
    return out


def part_figures(result, params, sw=None, nodes=None):
    """One figure per judged part, each with its part's identity (part_key)."""
    out, seen = [], set()
    rates = {}
    for t in sw.transfers if sw else ():
        if t.line_rate and not t.retest and isinstance(t.channel, int):
            rates[(t.dst, t.channel)] = max(rates.get((t.dst, t.channel), 0), t.line_rate)
    for p in result["parts"]:
        drive = p["component"] if p["kind"] == "drive" else None
        key = (rung_of(p), p["node"], drive)
        if p.get("figure_gb_per_s") is None or key in seen:
            continue
        seen.add(key)
        f = figure(key[0], p["node"], drive, p["figure_gb_per_s"], params)
        if sw is not None:
            # a node's drive model is its word: a lone surrogate written out, as text
            f["part"] = jsonutil.without_surrogates(
                part_key(p, (nodes or {}).get(p["node"]) or {}, sw, rates))
            if p.get("ratio_of"):  # the judge's one ratio of the part, and whose median
                f["part"].update(ratio=p.get("ratio"), ratio_of=p["ratio_of"])
        out.append(f)
    return out


def sweep_command(meta, top):
    """The sweep's command line: the argv nbw-fleet run kept (its settings before it),
    else one rebuilt from sweep.json, said to be rebuilt."""
    argv = meta.get("argv")
    if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
        env = meta.get("settings") if isinstance(meta.get("settings"), dict) else {}
        words = ["%s=%s" % (k, shell_word(str(v))) for k, v in sorted(env.items())]
        cmds = [" ".join(words + [shell_word(a) for a in argv])]
        for again in meta.get("resumed_argv") or []:
            if isinstance(again, list) and all(isinstance(a, str) for a in again):
                cmds.append(" ".join(shell_word(a) for a in again))
        return cmds
    nodes = meta.get("nodes") if isinstance(meta.get("nodes"), list) else []
    devs = [d for d in meta.get("rail_devs") or [] if isinstance(d, str)]
    return ["nbw-fleet run --nodes %s%s (rebuilt from %s/sweep.json: the sweep kept no "
            "command line)" % (",".join(map(str, nodes)), " --rail-devs " + ",".join(devs)
                               if devs else "", top)]


def sweep_dates(args, rd, kept, meta, top):
    """(start, end, what dated it): the nodes' documents' windows, else sweep.json's
    started and finished, else --start/--end, else the files' times."""
    ps = [p for rel, p in rd.prov.items() if rel not in rd.aside]
    if ps:
        return provenance.utc(min(p.start for p in ps)), provenance.utc(
            max(p.end for p in ps)), "the documents' windows"
    if epoch_of(meta.get("started")) and epoch_of(meta.get("finished")):
        return meta["started"], meta["finished"], "sweep.json's started and finished"
    mtimes = [os.path.getmtime(f) for f in sweep_files(top)] or [os.path.getmtime(top)]
    return (args.start or utc_of(min(mtimes)), args.end or utc_of(max(mtimes)),
            "--start/--end" if args.start and args.end else "the files' modification times")


def sweep_files(top):
    out = []
    for d, _, names in os.walk(top):
        out += [os.path.join(d, n) for n in names if n.endswith(".json")]
    return out


def plan_brief(meta, top):
    """What the record keeps of the sweep's plan: sweep.json's plan (nbw-fleet run's, or
    a plan.json beside it) over sweep.json's own settings."""
    doc = meta.get("plan") if isinstance(meta.get("plan"), dict) else \
        load_json(os.path.join(top, "plan.json"))
    src = dict(meta, **doc) if isinstance(doc, dict) else meta
    keys = ("nodes", "rails", "drives", "pairs_mode", "pairs_asked", "pairs", "seed",
            "rounds", "pair_count", "rails_one_by_one", "durations", "phases_s", "remote",
            "duration", "warmup", "threshold", "isolate_budget", "rail_devs")
    out = {k: src.get(k) for k in keys if src.get(k) is not None}
    if isinstance(out.get("nodes"), list):
        out["nodes"] = len(out["nodes"])
    return out


def build_fleet_run(args, top):
    """The record line of a fleet sweep: its parts' figures, each node's provenance
    (sweep_nodes: a node with a document set aside NOT MEASURED, with why), its
    judgement as a document, failed when the sweep did not finish."""
    try:
        meta = load_json(os.path.join(top, "sweep.json"))
        rd = sweep_nodes.read_nodes(top, meta if isinstance(meta, dict) else {})
        sw = read_sweep(top, skip=rd.aside)
    except SweepError as e:
        raise Fail(1, str(e))
    meta = sw.meta
    threshold = meta.get("threshold") if isinstance(meta.get("threshold"), float) else 0.9
    result = judge(sw, threshold)
    unmeasured = rd.not_measured()
    verdicts = {v["node"]: v["verdict"] for v in result.get("verdicts") or []}
    for n, why in unmeasured.items():
        verdicts[n] = "NOT MEASURED"
        warn("%s: %s: NOT MEASURED: %s" % (top, n, why))
    nodes = sweep_nodes.briefs(rd, list(sw.nodes), verdicts)
    for n, why in unmeasured.items():
        nodes.setdefault(n, {"node": n, "host": None, "provenance": False})
        nodes[n]["not_measured"] = why
    params = {"tool": "nbw-fleet", "context": "fleet"}
    params.update({k: meta.get(k) for k in PARAM_KEYS if meta.get(k) is not None})
    figures = [f for f in part_figures(result, params, sw, nodes)
               if f["node"] not in unmeasured]
    failed = None
    if meta.get("state") != "done":
        failed = "the sweep is %s (nbw-fleet run --resume %s)" % (meta.get("state"), top)
    if not figures and not failed:
        raise Fail(1, "%s: a sweep without a measured part" % top)
    start, end, dated = sweep_dates(args, rd, figures, meta, top)
    provs = {"sweep": {"host": None, "run_id": None, "start": start, "end": end,
                       "dated_by": dated, "command": sweep_command(meta, top)[0],
                       "plan": plan_brief(meta, top), "sweep_dir": os.path.abspath(top)}}
    for n in sorted(nodes, key=natural):
        provs["node " + n] = dict(nodes[n], file=os.path.join(os.path.abspath(top), "nodes", n))
    provs = jsonutil.without_surrogates(provs)  # the nodes' words, never a refusal
    return {
        "kind": "run", "format": FORMAT, "uuid": str(uuid.uuid4()), "recorded": now_utc(),
        "start": start, "end": end,
        "commands": list(args.command or sweep_command(meta, top)),
        "suite_version": meta.get("suite_version"), "mode": "fleet",
        "params_hash": digest(sorted({f["params_hash"] for f in figures})),
        "exit_status": 0 if meta.get("state") == "done" else 1,
        "note": args.note, "change_starts": bool(args.change_starts), "failed": failed,
        "figures": figures, "inventory": {},
        # each node's verdict (PASS, SUSPECT, NOT MEASURED), the metrics' nbw_node_verdict
        "verdicts": {jsonutil.printable(str(n)): v for n, v in verdicts.items()},
        "sources": [os.path.abspath(top)],
        "provenance": provs,
        # every node named, its figures or not, in natural order
        "nodes": sorted(set(nodes) | {str(n) for n in meta.get("nodes") or []
                                      if isinstance(meta.get("nodes"), list)}, key=natural),
        "not_measured": [{"node": n, "reason": unmeasured[n]}
                         for n in sorted(unmeasured, key=natural)],
        "run_ids": sorted({b["run_id"] for b in nodes.values() if b.get("run_id")}),
        # The judgement is this host's, of what the nodes said: a node's lone
        # surrogate is written out as text there, never a reason to drop the sweep.
        "documents": {"sweep.json": meta, "judge.json": jsonutil.without_surrogates({
            k: result[k] for k in ("threshold", "nodes", "not_measured", "skipped",
                                   "failed", "counts", "suspects")})},
    }


def natural(name):
    """n2 before n10: a name's digits compared as numbers."""
    return [int(w) if w.isdigit() else w for w in re.split(r"([0-9]+)", str(name))]
