"""The tools' JSON documents -> figures: one figure per rung, node and drive (the run
they make is record.py's)."""
import math
import os
import re

from ..jsonutil import as_float, dig, dicts, digest, printable
from .base import NOT_COMPARED
from .compare import HIGHER_BETTER


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


def finite(v):
    """V (a document's part) with every number that is not finite (a node's 1e999) as
    its text: what a record line and its figures' parameters hold is plain JSON."""
    if isinstance(v, float) and as_float(v) is None:
        return str(v)
    if isinstance(v, dict):
        return {k: finite(x) for k, x in v.items()}
    if isinstance(v, list):
        return [finite(x) for x in v]
    return v


def doc_params(doc, context, extra=None):
    """What decides comparability of a document's figures."""
    p = {"tool": doc.get("tool"), "role": doc.get("role"), "context": context}
    for k, v in doc["params"].items() if isinstance(doc.get("params"), dict) else ():
        if k not in NOT_COMPARED:
            p[k] = v
    p.update(extra or {})
    return finite({k: v for k, v in p.items() if v is not None})


def text(v, n=200):
    """A name from a document: a string (at most n characters, its control characters
    escaped: a name never ends a line of a terminal's or a chart's script) or None."""
    return None if v is None else printable(str(v)[:n])


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


def memory_figures(doc, node, params):
    """nvme_read_bw --memory: the staging memory's DRAM traffic, of several NUMA nodes
    the slowest (as the ladder's rung)."""
    rows = [m for m in dicts(doc.get("memory")) if as_float(m.get("dram_gb_per_s")) is not None]
    if not rows:
        return []
    m = min(rows, key=lambda m: as_float(m["dram_gb_per_s"]))
    return [figure("staging memory", node, None, m["dram_gb_per_s"], params)]


def read_bw_figures(doc, node, params, rung="read"):
    """rung: what a plain read is named (the ladder's NFS reads: the file name's
    nfs_PROTO or nfs_PROTO_randD, each a rung of its own)."""
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
        out.append(figure(rung, node, d.get("name") or d.get("path"), d.get("gb_per_s"),
                          params, dcv, dn, metrics_of(d)))
    out.append(figure(rung, node, None, dig(doc, "total", "gb_per_s"), params, cv, n,
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
        # a sink's report of a source's drive (side rdma) is the source's: its own
        # document files it under its node; never a figure of the sink's drive of that path
        if role == "sink" and d.get("side") == "rdma":
            continue
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
    if tool == "nvme_read_bw" and isinstance(doc.get("memory"), list):
        return memory_figures(doc, node, params)
    if tool == "nvme_read_bw":
        return read_bw_figures(doc, node, params,
                               context if context and context.startswith("nfs_") else "read")
    if tool == "nvme_write_bw_remote":
        return remote_figures(doc, node, context, params)
    if tool == "transfer":  # run_bench.sh's TRANSFER_CMD (nbw.ladder.transfer): its figure
        return [figure("transfer", node, None, doc.get("gb_per_s"), params)] if doc.get("ok") else []
    if tool == "nvme_link_probe":
        return [figure("link", node, d.get("name"), dig(d, "ceiling_gb_per_s", "usable"), params)
                for d in dicts(doc.get("devices"))
                if as_float(dig(d, "ceiling_gb_per_s", "usable")) is not None]
    if as_float(dig(doc, "total", "gb_per_s")) is not None:
        return [figure(str(tool or "document"), node, None, dig(doc, "total", "gb_per_s"),
                       params)]
    return []


def ladder_order(path):
    """Sort key of a run directory's files: the ladder's order, ladder.json last."""
    name = os.path.basename(path)
    m = RUN_FILE.match(name)
    rank = ("probe", "baseline", "local", "memory", "tcp", "fabric", "nfs", "aggregate", "transfer")
    if name == "ladder.json":
        return (9, name)
    kind = re.sub(r"^(tcp|nfs).*", r"\1", m.group(1)) if m else None
    return (rank.index(kind) if kind in rank else 8, name)


# A run directory's MODE-NODE.json (run_bench.sh's names; the ladder's upper rungs:
# tcpN, nfs_PROTO, nfs_PROTO_randD).
RUN_FILE = re.compile(r"^(probe|baseline|fabric|aggregate|local|memory|tcp[0-9]+|"
                      r"nfs_(?:rdma|tcp)(?:_rand[0-9]+)?|transfer)-(.+)\.json$")


def shell_word(w):
    return w if re.match(r"^[A-Za-z0-9_./=:,+@%-]+$", w) else "'%s'" % w.replace("'", "'\\''")
