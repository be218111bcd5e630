"""The tools' JSON documents -> figures: one figure per rung, node and drive; the
inputs of a record (files, run directories) and the run they make."""
import glob
import json
import math
import os
import re
import uuid

from ..jsonutil import as_float, dig, dicts, digest
from .base import FORMAT, Fail, MAX_DOC, NOT_COMPARED, RUN_SETTINGS, now_utc, utc_of, warn
from .compare import HIGHER_BETTER, inventory_hash


def cv_of(samples):
    """(coefficient of variation in %, count) of numeric samples, or (None, count)."""
    xs = [x for x in (as_float(s) for s in samples or []) if x is not None]
    if len(xs) < 2:
        return None, len(xs) or None
    m = sum(xs) / len(xs)
    if m <= 0:
        return None, len(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return sd / m * 100, len(xs)


def summed_samples(drives):
    """Per-second totals from the drives' samples (when all have the same count)."""
    lists = [d.get("samples_gb_per_s") for d in dicts(drives)]
    if not lists or any(not isinstance(x, list) for x in lists):
        return None
    if len({len(x) for x in lists}) != 1:
        return None
    return [sum(as_float(v) or 0 for v in col) for col in zip(*lists)]


def doc_params(doc, context, extra=None):
    """What decides comparability of a document's figures."""
    p = {"tool": doc.get("tool"), "role": doc.get("role"), "context": context}
    for k, v in doc["params"].items() if isinstance(doc.get("params"), dict) else ():
        if k not in NOT_COMPARED:
            p[k] = v
    p.update(extra or {})
    return {k: v for k, v in p.items() if v is not None}


def text(v, n=200):
    """A name from a document: a string (at most n characters) or None."""
    return None if v is None else str(v)[:n]


def count(v):
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1 << 31 else None


# The figures beside GB/s a tool prints, by the name the record keeps them under:
# (name, path in the tool's object, higher is better).
METRICS = (("iops", ("iops",), True), ("writes_per_s", ("writes_per_s",), True),
           ("cpu_s_per_gib", ("cpu_s_per_gib",), False),
           ("cpu_us_per_io", ("cpu_us_per_io",), False),
           ("lat_mean_us", ("latency_us", "mean"), False),
           ("lat_p50_us", ("latency_us", "p50"), False),
           ("lat_p90_us", ("latency_us", "p90"), False),
           ("lat_p99_us", ("latency_us", "p99"), False),
           ("lat_p99.9_us", ("latency_us", "p99.9"), False),
           ("lat_p99.99_us", ("latency_us", "p99.99"), False),
           ("lat_max_us", ("latency_us", "max"), False))
HIGHER_BETTER.update({m: up for m, _, up in METRICS})
# Each figure's unit, as trend and check print it (GB/s = 10^9 bytes/s).
UNITS = {"gb_per_s": "GB/s", "iops": "IO/s", "writes_per_s": "WRITE/s",
         "cpu_s_per_gib": "CPU s/GiB", "cpu_us_per_io": "CPU us/IO"}
UNITS.update({m: "us" for m, _, _ in METRICS if m.startswith("lat_")})


def metrics_of(*objs):
    """The figures beside GB/s found in the tool's objects (the first that has each)."""
    out = {}
    for name, path, _ in METRICS:
        for o in objs:
            v = as_float(dig(o, *path)) if isinstance(o, dict) else None
            if v is not None:
                out[name] = v
                break
    return out


def failure_of(doc):
    """Why a tool's document is not a good run (its own word), or None."""
    why = []
    if doc.get("ok") is False:
        err = doc.get("error")
        why.append("ok: false" + (" (%s)" % text(err) if err else ""))
    if doc.get("verify") == "fail":
        why.append("verify: fail")
    if doc.get("total_valid") is False:
        r = doc.get("total_invalid_reason")
        why.append("total not valid" + (" (%s)" % text(r) if r else ""))
    if doc.get("interrupted") is True:
        why.append("interrupted")
    return "; ".join(why) or None


def figure(rung, node, drive, gb, params, cv=None, samples=None, metrics=None):
    return {"rung": text(rung), "node": text(node), "drive": text(drive), "gb_per_s": as_float(gb),
            "cv_pct": as_float(cv), "samples": count(samples), "params": params,
            "params_hash": digest(params), "metrics": metrics or {}}


def read_bw_figures(doc, node, params):
    out = []
    drives = dicts(doc.get("drives"))
    steps = dicts(doc.get("baseline"))
    cv, n = cv_of(summed_samples(drives))
    if steps:
        for s in steps[:-1]:
            name = str(s.get("label", "?")).replace(" alone", "")
            out.append(figure("drive " + name, node, name, s.get("gb_per_s"), params))
        name = "drives together" if len(drives) > 1 else "drive %s" % (
            drives[0].get("name", "?") if drives else "?")
        out.append(figure(name, node, None, steps[-1].get("gb_per_s"), params, cv, n,
                          metrics_of(doc.get("total"))))
        return out
    if isinstance(doc.get("sweep"), list):
        for s in dicts(doc["sweep"]):
            out.append(figure("sweep " + str(s.get("label", "?")), node, None, s.get("gb_per_s"),
                              params))
        return out
    swept = doc.get("swept")
    if isinstance(swept, str) and swept:
        for d in drives:
            for p in dicts(d.get("sweep")):
                out.append(figure("sweep-%s %s" % (swept, p.get(swept)), node, d.get("name"),
                                  p.get("gb_per_s"), params))
        return out
    for d in drives:
        dcv, dn = cv_of(d.get("samples_gb_per_s"))
        out.append(figure("read", node, d.get("name") or d.get("path"), d.get("gb_per_s"),
                          params, dcv, dn, metrics_of(d)))
    out.append(figure("read", node, None, dig(doc, "total", "gb_per_s"), params, cv, n,
                      metrics_of(doc.get("total"))))
    return out


def remote_figures(doc, node, context, params):
    role = doc.get("role")
    streams = [as_float(s.get("cv_pct")) for s in dicts(doc.get("streams"))]
    streams = [c for c in streams if c is not None]
    cv = max(streams) if streams else None
    n = as_float(dig(doc, "total", "seconds")) or as_float(dig(doc, "rdma", "seconds"))
    n = int(round(n)) if n and cv is not None else None
    if role == "bidir":
        b = doc.get("bidir") if isinstance(doc.get("bidir"), dict) else {}
        return [figure("bidir " + k, node, None, b.get(k + "_gb_per_s"), params)
                for k in ("send", "receive", "sum")]
    if context == "fabric":
        rung, gb, m = "fabric (mem)", dig(doc, "rdma", "gb_per_s"), ("rdma", "total")
    elif role == "sink":
        rung, gb, m = "end to end", dig(doc, "total", "gb_per_s"), ("total", "rdma")
    else:
        rung, gb, m = "end to end (sent)", dig(doc, "rdma", "gb_per_s"), ("rdma", "total")
    out = [figure(rung, node, None, gb, params, cv, n,
                  metrics_of(*[doc.get(k) for k in m] + [doc]))]
    for d in dicts(doc.get("drives")):
        if as_float(d.get("gb_per_s")) is not None:
            out.append(figure(rung, node, d.get("path"), d.get("gb_per_s"), params))
    return out


def ladder_figure_gb(r):
    """A rung's figure: what it measured; the link rung, a ceiling with nothing
    measured, keeps its ceiling as the probe's link figures do."""
    if r.get("kind") == "link" and as_float(r.get("measured_gb_per_s")) is None:
        return r.get("ceiling_gb_per_s")
    return r.get("measured_gb_per_s")


def ladder_figures(doc, params):
    out = []
    for r in dicts(doc.get("rungs")):
        gb = ladder_figure_gb(r)
        if as_float(gb) is None:
            continue
        name = str(r.get("name"))
        drive = name[6:] if name.startswith("drive ") else None
        out.append(figure(name, r.get("node"), drive, gb, params))
    return out


def figures_of(doc, node, context, run_params):
    """The figures (GB/s) of one tool document, named like the ladder's rungs."""
    tool = doc.get("tool")
    if tool == "ladder_report":
        return ladder_figures(doc, dict(run_params, tool=tool))
    params = doc_params(doc, context)
    if tool == "nvme_read_bw":
        return read_bw_figures(doc, node, params)
    if tool == "nvme_write_bw_remote":
        return remote_figures(doc, node, context, params)
    if tool == "nvme_link_probe":
        return [figure("link", node, d.get("name"), dig(d, "ceiling_gb_per_s", "usable"), params)
                for d in dicts(doc.get("devices"))
                if as_float(dig(d, "ceiling_gb_per_s", "usable")) is not None]
    if as_float(dig(doc, "total", "gb_per_s")) is not None:
        return [figure(str(tool or "document"), node, None, dig(doc, "total", "gb_per_s"),
                       params)]
    return []


def load_json(path):
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_DOC + 1)
    except OSError as e:
        raise Fail(1, "%s: %s" % (path, e.strerror))
    if len(data) > MAX_DOC:
        raise Fail(1, "%s: larger than %d MiB, not a tool's JSON" % (path, MAX_DOC >> 20))
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise Fail(1, "%s: not valid JSON (%s)" % (path, e))
    if not isinstance(doc, dict):
        raise Fail(1, "%s: not a JSON object" % path)
    return doc


def ladder_order(path):
    """Sort key of a run directory's files: the ladder's order, ladder.json last."""
    name = os.path.basename(path)
    m = RUN_FILE.match(name)
    rank = ("probe", "baseline", "local", "fabric", "aggregate")
    if name == "ladder.json":
        return (9, name)
    return (rank.index(m.group(1)) if m and m.group(1) in rank else 8, name)


RUN_FILE = re.compile(r"^(probe|baseline|fabric|aggregate|local)-(.+)\.json$")


def expand_inputs(paths):
    """(file, strict) of the arguments: a directory gives its *.json in the ladder's
    order, not strict (a document a failed step left unreadable is skipped)."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(glob.glob(os.path.join(p, "*.json")), key=ladder_order)
            found += sorted(glob.glob(os.path.join(p, "inventory", "*.json")))
            if not found:
                raise Fail(1, "%s: no *.json in this directory" % p)
            files += [(f, False) for f in found]
        elif os.path.exists(p):
            files.append((p, True))
        else:
            raise Fail(1, "%s: No such file or directory" % p)
    return files


def load_inputs(files):
    out = []
    for f, strict in files:
        try:
            out.append((f, load_json(f)))
        except Fail as e:
            if strict:
                raise
            warn("%s (skipped)" % e)
    return out


def build_run(args, files):
    """The record line of a new run from its files and the options of record."""
    docs, inventory, figures, seen, failed = {}, {}, [], set(), []
    run_json, versions, mtimes = None, set(), []
    loaded = load_inputs(files)
    files = [f for f, _ in loaded]
    for f, doc in loaded:
        if doc.get("tool") == "run_bench.sh":
            run_json = doc
    run_params = {"mode": dig(run_json, "mode")}
    settings = dig(run_json, "settings")
    settings = settings if isinstance(settings, dict) else {}
    run_params.update({k: v for k, v in settings.items() if k in RUN_SETTINGS})
    for f, doc in loaded:
        inv = [doc] if doc.get("tool") == "nbw-results inventory" else []
        mtimes.append(os.path.getmtime(f))
        name = os.path.basename(f)
        m = RUN_FILE.match(name)
        context, node = (m.group(1), m.group(2)) if m else (None, args.node)
        if inv:  # RUN_DIR/inventory/NODE.json: the node's name as the run knows it
            in_run = os.path.basename(os.path.dirname(os.path.abspath(f))) == "inventory"
            inventory[name[:-5] if in_run else (doc.get("host") or node)] = inv[0]
            continue
        key = name
        while key in docs:
            key = "_" + key
        docs[key] = doc
        why = failure_of(doc)
        if why:
            failed.append("%s: %s" % (name, why))
        if isinstance(doc.get("version"), str) and doc.get("tool") != "run_bench.sh":
            versions.add(doc["version"])
        try:
            figs = figures_of(doc, node, context, run_params)
        except (AttributeError, TypeError, ValueError, OverflowError) as e:
            raise Fail(1, "%s: not shaped like the suite's documents (%s)" % (f, e))
        for fig in figs:
            k = (fig["rung"], fig["node"], fig["drive"])
            if fig["gb_per_s"] is not None and k not in seen:
                seen.add(k)
                figures.append(fig)
    for p in args.inventory or []:
        doc = load_json(p)
        if doc.get("tool") != "nbw-results inventory":
            raise Fail(1, "%s: not an inventory (nbw-results inventory)" % p)
        inventory[doc.get("host") or args.node] = doc
    status = dig(run_json, "exit_status")
    if isinstance(status, int) and not isinstance(status, bool) and status:
        failed.append("run_bench.sh: exit status %d" % status)
    if not figures and not failed:
        raise Fail(1, "%s: no bandwidth figure in these documents" % ", ".join(files))
    for doc in docs.values():
        if doc.get("tool") == "ladder_report":  # the ladder's order, rung by rung
            pos = {(text(r.get("name")), text(r.get("node"))): i for i, r in enumerate(
                dicts(doc.get("rungs")))}
            figures.sort(key=lambda f: pos.get((f["rung"], f["node"]), len(pos)))
    hashes = sorted({f["params_hash"] for f in figures})
    commands = list(args.command or [])
    if run_json and not commands:
        env = " ".join("%s=%s" % (k, shell_word(str(v))) for k, v in sorted(settings.items()))
        commands.append(("%s run_bench.sh %s" % (env, run_json.get("mode"))).strip())
    return {
        "kind": "run", "format": FORMAT, "uuid": str(uuid.uuid4()), "recorded": now_utc(),
        "start": args.start or dig(run_json, "started") or utc_of(min(mtimes)),
        "end": args.end or dig(run_json, "finished") or utc_of(max(mtimes)),
        "commands": commands, "suite_version": ",".join(sorted(versions)) or None,
        "mode": dig(run_json, "mode"), "params_hash": digest(hashes),
        "exit_status": dig(run_json, "exit_status"),
        "note": args.note, "change_starts": bool(args.change_starts),
        "failed": "; ".join(failed) or None,
        "figures": figures,
        "inventory": {h: {"hash": inventory_hash(d), "data": d} for h, d in inventory.items()},
        "sources": [os.path.abspath(f) for f in files], "documents": docs,
    }


def shell_word(w):
    return w if re.match(r"^[A-Za-z0-9_./=:,+@%-]+$", w) else "'%s'" % w.replace("'", "'\\''")
