"""nbw-results record: the tools' documents -> the record line of a run, every figure
kept. Each document is filed under the node its provenance names (a run directory's
MODE-NODE.json: the NODE run_bench.sh ran it on, the name its inventory and ladder use;
a document made before provenance: its file name MODE-NODE.json, --node, the file's own
name with --node-from-name, else this host); two documents that claim the same node,
rung and drive are refused with both named (or recorded apart, --apart: a run per
argument). The run is dated by the documents' own windows, those that agree: one far
from the others (a clock in 2001, in the future, never set) is flagged and dates
nothing. Bad input (provenance that contradicts the file name, a clock no other
document's window dates the run beside, a run id recorded twice, a truncated document,
a block that breaks its contract) is refused before anything is written."""
import os
import re
import socket
import time
import uuid

from .. import jsonutil
from ..jsonutil import dig, dicts, digest
from . import provenance
from .base import FORMAT, Fail, MAX_DOC, RUN_SETTINGS, now_utc, utc_of, warn
from .compare import inventory_hash
from .documents import RUN_FILE, failure_of, figures_of, finite, ladder_order, shell_word

FUTURE_SLACK = 3600  # seconds a document's window may end after this host's clock
CLOCK_FLOOR = 946684800  # 2000-01-01: a window before it is a clock that was never set
AGREE_S = 86400  # seconds apart the documents of one run may start and agree on its date


class Doc:
    """One input document: its file, what it says, and the node it is filed under."""

    def __init__(self, path, doc):
        self.path = path
        self.name = os.path.basename(path)
        self.doc = doc
        self.prov = None
        self.node = None
        self.in_run = False  # a run directory's MODE-NODE.json: run_bench.sh named the node
        self.far = False  # its window far from the other documents': not the run's date
        self.clock = None  # why its clock cannot be trusted at all (future, never set)
        m = RUN_FILE.match(self.name)
        self.context, self.named = (m.group(1), m.group(2)) if m else (None, None)


def load(path, in_dir):
    """The JSON object in path (None: an empty file a failed step left in a run directory,
    skipped with a word), or Fail with one line."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_DOC + 1)
    except OSError as e:
        raise Fail(1, "%s: %s" % (path, e.strerror))
    if len(data) > MAX_DOC:
        raise Fail(1, "%s: larger than %d MiB, not a tool's JSON" % (path, MAX_DOC >> 20))
    if in_dir and not data.strip():
        warn("%s: empty (a step that wrote nothing): skipped" % path)
        return None
    try:
        text = data.decode("utf-8")
        # within what a record line (the document under the line, its documents and its
        # file's name) can hold and be read back
        doc = jsonutil.parse(text, jsonutil.MAX_DEPTH - 4)
    except UnicodeDecodeError as e:
        raise Fail(1, "%s: not valid JSON (%s)" % (path, e))
    except jsonutil.TooDeep:
        raise Fail(1, "%s: nested deeper than %d levels: not a tool's JSON, refused" % (
            path, jsonutil.MAX_DEPTH - 4))
    except ValueError as e:
        # the text ends where the parser still wanted more: a document cut short
        cut = getattr(e, "pos", 0) >= len(text.rstrip()) - 1 or \
            getattr(e, "msg", "").startswith("Unterminated string")
        raise Fail(1, "%s: not valid JSON (%s)%s" % (
            path, e, ": a truncated document?" if cut else ""))
    if not isinstance(doc, dict):
        raise Fail(1, "%s: not a JSON object" % path)
    return doc


NAME_KEYS = ("rung", "node", "drive")


def storable(entry):
    """The record line of a run made storable, or Fail in one line: every name a figure
    carries (rung, node, drive), the nodes and the inventory's hosts with their
    control characters and lone surrogates escaped (no name ends a line of a chart's
    script or a terminal's, and no node's bad name drops the others' figures); a line
    that later commands could not read back (nested past their bound, other text UTF-8
    cannot hold) refused."""
    p = jsonutil.printable
    if isinstance(entry.get("commands"), list):  # a node's command line: data, not lines
        entry["commands"] = [p(c) if isinstance(c, str) else c for c in entry["commands"]]
    for brief in (entry.get("provenance") or {}).values():
        for k, v in list(brief.items()) if isinstance(brief, dict) else ():
            if isinstance(v, str):
                brief[k] = p(v)
    for f in entry.get("figures") or []:
        for k in NAME_KEYS:
            if isinstance(f.get(k), str):
                f[k] = p(f[k])
    if isinstance(entry.get("nodes"), list):
        entry["nodes"] = [p(n) if isinstance(n, str) else n for n in entry["nodes"]]
    if isinstance(entry.get("inventory"), dict):
        entry["inventory"] = {p(h): v for h, v in entry["inventory"].items()}
    entry = finite(entry)  # a node's 1e999: its text, the line plain JSON
    why = jsonutil.unstorable(entry)
    if why:
        raise Fail(1, "%s: %s: refused, nothing recorded" % (
            ", ".join(entry.get("sources") or []) or "the run", why))
    return entry


def expand(path):
    """The files of one argument: a directory's *.json in the ladder's order (its
    inventory/ too), or the file itself."""
    if os.path.isdir(path):
        names = sorted((n for n in os.listdir(path) if n.endswith(".json") and
                        not n.startswith(".")), key=ladder_order)
        found = [os.path.join(path, n) for n in names]
        inv = os.path.join(path, "inventory")
        if os.path.isdir(inv):
            found += sorted(os.path.join(inv, n) for n in os.listdir(inv)
                            if n.endswith(".json") and not n.startswith("."))
        if not found:
            raise Fail(1, "%s: no *.json in this directory" % path)
        return [(f, True) for f in found]
    if not os.path.exists(path):
        raise Fail(1, "%s: No such file or directory" % path)
    return [(path, False)]


def file_node(d):
    """A document's node by its file name alone (MODE-NODE.json, else NAME.json)."""
    return d.named or re.sub(r"\.json$", "", d.name)


def assign_node(args, d, now):
    """d.node and d.prov from the document, the file name and the options; Fail when
    they contradict each other or the document's clock cannot be trusted."""
    try:
        d.prov = p = provenance.read(d.doc)
    except ValueError as e:
        raise Fail(1, "%s: %s" % (d.path, e))
    if p and p.end > now + FUTURE_SLACK:  # refused unless others date the run (flag_far)
        d.clock = "its window ends %s, %d days after this host's clock: a clock far in " \
            "the future" % (provenance.utc(p.end), (p.end - now) // 86400)
    elif p and p.start < CLOCK_FLOOR:
        d.clock = "its window starts %s: a clock that was never set" % provenance.utc(p.start)
    if args.node_from_name:
        d.node = file_node(d)
        return
    if d.in_run:  # run_bench.sh named it for the node it ran on, as its inventory/NODE.json
        d.node = d.named
        return
    if not p or p.host is None:  # no block, or a host without a name: as an old document
        d.node = d.named or args.node or socket.gethostname()
        return
    if d.named and not provenance.same_node(d.named, p.host):
        raise Fail(1, "%s: its provenance says host %s, its file name node %s: refused "
                   "(--node-from-name takes the name's)" % (d.path, p.host, d.named))
    if args.node and not provenance.same_node(args.node, p.host):
        raise Fail(1, "%s: its provenance says host %s, --node says %s: refused (--node "
                   "names the node of documents without provenance)" % (d.path, p.host,
                                                                        args.node))
    d.node = p.host


def check_run_ids(docs):
    """Two documents of one run (the same run id): the same document twice, refused."""
    seen = {}
    for d in docs:
        rid = d.prov.run_id if d.prov else None
        if rid and rid in seen:
            raise Fail(1, "%s: the same run as %s (run id %s): refused" % (
                d.path, seen[rid].path, rid))
        if rid:
            seen[rid] = d


def where(key):
    rung, node, drive = key
    return "%s on %s%s" % (rung, node, ", " + drive if drive else "")


def keep_figures(docs, figs_of):
    """Every figure of the documents; a (rung, node, drive) two documents claim is
    refused, naming both. A ladder_report's rungs restate the tools' documents: added
    only where no document gave the figure."""
    figures, claimed, derived = [], {}, []
    for d in docs:
        mine = set()
        for fig in figs_of(d):
            k = (fig["rung"], fig["node"], fig["drive"])
            if fig["gb_per_s"] is None or k in mine:
                continue
            if d.doc.get("tool") == "ladder_report":
                derived.append(fig)
                continue
            if k in claimed:
                hint = "--apart records each as a run of its own" if all(
                    x.prov for x in (d, claimed[k])) else \
                    "--node-from-name files old documents under their names, --apart " \
                    "records each as a run of its own"
                raise Fail(1, "%s and %s both claim %s: refused (%s)" % (
                    claimed[k].path, d.path, where(k), hint))
            claimed[k] = d
            mine.add(k)
            figures.append(fig)
    for fig in derived:
        k = (fig["rung"], fig["node"], fig["drive"])
        if k not in claimed:
            claimed[k] = None
            figures.append(fig)
    return figures


def flag_far(docs, now):
    """Mark the documents whose windows are far from the others' (d.far, said on stderr):
    the run is dated by the largest group of documents that start within AGREE_S of
    each other (of groups as large, the one nearest this host's clock), so that one
    node's clock (a window dated 2001) never dates the others' figures. A clock far in
    the future or never set dates nothing: flagged beside documents that date the run,
    refused (Fail) when none does."""
    for d in docs:
        if d.clock and not any(x.prov and not x.clock for x in docs):
            raise Fail(1, "%s: %s, refused" % (d.path, d.clock))
        if d.clock:
            d.far = True
            warn("%s: %s, flagged, not the run's date" % (d.path, d.clock))
    provs = sorted((d for d in docs if d.prov and not d.clock), key=lambda d: d.prov.start)
    best, k = None, 0
    for i, d in enumerate(provs):
        k = max(k, i)
        while k + 1 < len(provs) and provs[k + 1].prov.start - d.prov.start <= AGREE_S:
            k += 1
        group = provs[i:k + 1]
        rank = (len(group), -abs(now - max(x.prov.end for x in group)))
        if best is None or rank > best[0]:
            best = (rank, group)
    if best is None:
        return
    mid = best[1][len(best[1]) // 2].prov.start
    for d in provs:
        if d not in best[1]:
            d.far = True
            warn("%s: its window (%s) is %d days from the other documents': flagged, not "
                 "the run's date" % (d.path, provenance.utc(d.prov.start),
                                     abs(d.prov.start - mid) // 86400))


def run_dates(args, docs, run_json, mtimes):
    """(start, end) of the run: the documents' own windows (those that agree, flag_far),
    else --start/--end, else run.json's, else the files' times."""
    provs = [d.prov for d in docs if d.prov and not d.far]
    if provs and (args.start or args.end):
        warn("--%s: the documents say their own start and end (provenance): theirs are "
             "the run's" % ("start" if args.start else "end"))
    if provs:
        return (provenance.utc(min(p.start for p in provs)),
                provenance.utc(max(p.end for p in provs)))
    return (args.start or dig(run_json, "started") or utc_of(min(mtimes)),
            args.end or dig(run_json, "finished") or utc_of(max(mtimes)))


def inventories(args, loaded):
    """{host: inventory} of the run's inventory documents and --inventory."""
    out = {}
    for f, doc in loaded:
        if doc.get("tool") != "nbw-results inventory":
            continue
        in_run = os.path.basename(os.path.dirname(os.path.abspath(f))) == "inventory"
        out[os.path.basename(f)[:-5] if in_run else (doc.get("host") or args.node or
                                                    socket.gethostname())] = doc
    for p in args.inventory or []:
        doc = load(p, False)
        if doc.get("tool") != "nbw-results inventory":
            raise Fail(1, "%s: not an inventory (nbw-results inventory)" % p)
        out[doc.get("host") or args.node or socket.gethostname()] = doc
    return out


def build_run(args, loaded, now=None, in_dirs=()):
    """The record line of a run from its loaded (file, document) pairs (in_dirs: those
    found in a run directory)."""
    now = time.time() if now is None else now
    run_json = next((doc for _, doc in loaded if doc.get("tool") == "run_bench.sh"), None)
    run_params = {"mode": dig(run_json, "mode")}
    settings = dig(run_json, "settings")
    settings = settings if isinstance(settings, dict) else {}
    run_params.update({k: v for k, v in settings.items() if k in RUN_SETTINGS})
    docs = [Doc(f, doc) for f, doc in loaded if doc.get("tool") != "nbw-results inventory"]
    aliases = {}
    for d in docs:
        d.in_run = d.path in in_dirs and d.named is not None
        assign_node(args, d, now)
        if d.prov and d.named and not d.in_run:
            aliases[d.named] = d.node  # the ladder's rungs name the node as the run did
    check_run_ids(docs)
    flag_far(docs, now)

    def figs_of(d):
        try:
            figs = figures_of(d.doc, d.node, d.context, run_params)
        except (AttributeError, TypeError, ValueError, OverflowError) as e:
            raise Fail(1, "%s: not shaped like the suite's documents (%s)" % (d.path, e))
        for f in figs:
            f["node"] = aliases.get(f["node"], f["node"])
        return figs

    figures = keep_figures(docs, figs_of)
    failed = ["%s: %s" % (d.name, failure_of(d.doc)) for d in docs if failure_of(d.doc)]
    status = dig(run_json, "exit_status")
    if isinstance(status, int) and not isinstance(status, bool) and status:
        failed.append("run_bench.sh: exit status %d" % status)
    files = [f for f, _ in loaded]
    if not figures and not failed:
        raise Fail(1, "%s: no bandwidth figure in these documents" % ", ".join(files))
    for d in docs:
        if d.doc.get("tool") == "ladder_report":  # the ladder's order, rung by rung
            pos = {(str(r.get("name")), aliases.get(r.get("node"), r.get("node"))): i
                   for i, r in enumerate(dicts(d.doc.get("rungs")))}
            figures.sort(key=lambda f: pos.get((f["rung"], f["node"]), len(pos)))
    keyed, provs = {}, {}
    for d in docs:
        key = d.name
        while key in keyed:
            key = "_" + key
        keyed[key] = d.doc
        if d.prov:
            provs[key] = dict(d.prov.brief(), file=os.path.abspath(d.path))
            if d.far:
                provs[key]["clock_far_from_run"] = True
    versions = {d.doc["version"] for d in docs if isinstance(d.doc.get("version"), str)
                and d.doc.get("tool") != "run_bench.sh"}
    commands = list(args.command or [])
    if run_json and not commands:
        env = " ".join("%s=%s" % (k, shell_word(str(v))) for k, v in sorted(settings.items()))
        commands.append(("%s run_bench.sh %s" % (env, run_json.get("mode"))).strip())
    commands += [d.prov.command for d in docs if d.prov and d.prov.command and
                 not args.command and not run_json]
    start, end = run_dates(args, docs, run_json, [os.path.getmtime(f) for f in files])
    inv = inventories(args, loaded)
    return {
        "kind": "run", "format": FORMAT, "uuid": str(uuid.uuid4()), "recorded": now_utc(),
        "start": start, "end": end,
        "commands": commands, "suite_version": ",".join(sorted(versions)) or None,
        "mode": dig(run_json, "mode"),
        "params_hash": digest(sorted({f["params_hash"] for f in figures})),
        "exit_status": dig(run_json, "exit_status"),
        "note": args.note, "change_starts": bool(args.change_starts),
        "failed": "; ".join(failed) or None,
        "figures": figures,
        "inventory": {h: {"hash": inventory_hash(d), "data": d} for h, d in inv.items()},
        "sources": [os.path.abspath(f) for f in files], "documents": keyed,
        "provenance": provs,
        "run_ids": sorted(d.prov.run_id for d in docs if d.prov and d.prov.run_id),
        # a failed one's without figures; run.json and the ladder's report are no node's
        "nodes": sorted({d.node for d in docs if d.node and d.doc.get("tool") not in (
            "run_bench.sh", "ladder_report")}),
    }


def build_runs(args, paths):
    """The record lines of one record command: one run, or one per argument (--apart).
    Nothing is written here: every refusal comes before the store is touched."""
    groups = [expand(p) for p in paths]
    if not args.apart:
        groups = [[f for g in groups for f in g]]
    runs = []
    for g in groups:
        loaded = [(f, doc) for f, doc in ((f, load(f, in_dir)) for f, in_dir in g)
                  if doc is not None]
        if not loaded:
            raise Fail(1, "%s: nothing but empty files" % ", ".join(f for f, _ in g))
        runs.append(build_run(args, loaded, in_dirs={f for f, in_dir in g if in_dir}))
    seen = {}
    for r in runs:  # --apart: the same run id in two arguments is still one run twice
        for rid in r["run_ids"]:
            if rid in seen:
                raise Fail(1, "run id %s is in two of the arguments (%s and %s): refused"
                           % (rid, seen[rid], r["sources"][0]))
            seen[rid] = r["sources"][0]
    return runs


def refuse_known_ids(store, runs):
    """A run id the record holds already: that document is recorded, refused."""
    for r in runs:
        for rid in r.get("run_ids", []):
            hit = store.run_of_id(rid)
            if hit:
                f = next((p["file"] for p in r["provenance"].values()
                          if p.get("run_id") == rid), r["sources"][0])
                raise Fail(1, "%s: run id %s is recorded already (run %s): refused"
                           % (f, rid, hit[:8]))
