"""The latest figures in the OpenMetrics text format (nbw-results export --openmetrics):
one metric family per figure kind, in base units, for node_exporter's textfile collector
or a Prometheus Pushgateway. A ceiling (the link rung: what the PCIe links allow, computed,
never measured) has a family of its own, never the throughput's; per node and rung the
last run's status (1 ok, 0 failed) and start, so that a node whose benchmark now fails
shows it though its last good figure stays. --push PUTs each node's part under its own
grouping key (job nbw, instance NODE): many nodes' pushes coexist."""
import base64
import json
import re
import math
import os
import sys
import urllib.error
import urllib.request

from .base import Fail, epoch_of
from .verbs import cmd_export, open_store

# Figure -> (family, unit, help, factor to the base unit). The families' names end in
# their unit as OpenMetrics asks.
FAMILIES = (
    ("gb_per_s", "nbw_throughput_bytes_per_second", "bytes_per_second",
     "Bandwidth of the rung (bytes per second)", 1e9),
    ("iops", "nbw_io_rate_operations_per_second", "operations_per_second",
     "Reads or writes completed per second", 1.0),
    ("writes_per_s", "nbw_message_rate_operations_per_second", "operations_per_second",
     "RDMA WRITE messages per second", 1.0),
    ("cpu_s_per_gib", "nbw_cpu_seconds_per_byte", "seconds_per_byte",
     "CPU time (user + system) per byte moved", 1.0 / (1 << 30)),
    ("cpu_us_per_io", "nbw_cpu_seconds_per_operation", "seconds_per_operation",
     "CPU time (user + system) per read", 1e-6),
    ("lat", "nbw_latency_seconds", "seconds",
     "Completion latency at a percentile (mean, min and max included)", 1e-6),
)
LABELS = ("node", "drive", "rail", "rung", "mode")
RUN_START = "nbw_run_start_timestamp_seconds"
# The rungs whose figure is a computed ceiling, not a measurement.
CEILING_RUNGS = ("link",)
CEILING = ("nbw_ceiling_bytes_per_second", "bytes_per_second",
           "Computed ceiling of the rung: what its PCIe links allow (bytes per second), "
           "never a measurement")
STATUS = ("nbw_last_run_ok", "", "1 when the node's last run of the rung succeeded, 0 when "
          "it failed (its figures then stay the last good ones)")
STATUS_TIME = ("nbw_last_run_timestamp_seconds", "seconds",
               "Start of the node's last run of the rung, failed or not")


def latest_figures(st):
    """The latest figure of each rung, node and drive among the usable runs."""
    rows = st.q("SELECT f.*, r.uuid, r.started, r.mode FROM figures f JOIN runs r "
                "ON r.uuid = f.run WHERE r.failed IS NULL AND r.excluded IS NULL "
                "ORDER BY r.seq, f.rowid")
    latest = {}
    for f in rows:
        latest[(f["rung"], f["node"] or "", f["drive"] or "")] = f
    return list(latest.values())


def escape(v):
    return str(v).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def rail_of(f):
    p = json.loads(f["params"] or "{}")
    for k in ("rail", "RDMA_DEV", "rdma_dev", "device"):
        if isinstance(p.get(k), str):
            return p[k]
    return ""


def samples_of(f):
    """(family, extra labels, value in base units) of one figure."""
    m = json.loads(f["metrics"] or "{}")
    if (f["rung"] or "").lower() in CEILING_RUNGS:
        return [(CEILING[0], {}, f["gb_per_s"] * 1e9)] if f["gb_per_s"] is not None else []
    m["gb_per_s"] = f["gb_per_s"]
    out = []
    for key, fam, _, _, factor in FAMILIES:
        if key == "lat":
            for k, v in m.items():
                if k.startswith("lat_") and k.endswith("_us") and v is not None:
                    out.append((fam, {"percentile": k[4:-3]}, v * factor))
        elif m.get(key) is not None:
            out.append((fam, {}, m[key] * factor))
    return out


def number(v):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return "%.12g" % v


def last_status(st):
    """{(node, rung): (ok, start in Unix seconds)} of each node's last run of each rung
    among the runs not excluded: a failed run counts for every rung its node had before
    (rung "" when it had none), its figures or not."""
    rows = st.q("SELECT r.uuid, r.seq, r.started, r.failed, r.hosts, f.node, f.rung FROM runs r "
                "LEFT JOIN figures f ON f.run = r.uuid WHERE r.excluded IS NULL "
                "ORDER BY r.seq, f.rowid")
    runs, order = {}, []
    for x in rows:
        if x["uuid"] not in runs:
            order.append(x["uuid"])
            runs[x["uuid"]] = (x, set())
        if x["node"]:
            runs[x["uuid"]][1].add((x["node"], x["rung"] or ""))
    out, rungs = {}, {}
    for u in order:
        r, pairs = runs[u]
        t = epoch_of(r["started"])
        for node, rung in pairs:
            rungs.setdefault(node, set()).add(rung)
        if r["failed"]:
            for node in set(json.loads(r["hosts"] or "[]")) | {n for n, _ in pairs}:
                for rung in rungs.get(node) or {""}:
                    pairs.add((node, rung))
        for pair in pairs:
            out[pair] = (0 if r["failed"] else 1, t)
    return out


def family(out, name, unit, help_):
    out += ["# TYPE %s gauge" % name] + (["# UNIT %s %s" % (name, unit)] if unit else []) + [
        "# HELP %s %s" % (name, help_)]


def render(figs, timestamps=False, status=None):
    """The OpenMetrics text of the figures (and the runs' status): families in a fixed
    order, # EOF last."""
    by_fam = {fam: [] for _, fam, _, _, _ in FAMILIES}
    by_fam[CEILING[0]] = []
    starts = {}
    for f in figs:
        t = epoch_of(f["started"])
        labels = {"node": f["node"] or "", "drive": f["drive"] or "", "rail": rail_of(f),
                  "rung": f["rung"] or "", "mode": f["mode"] or ""}
        for fam, extra, v in samples_of(f):
            by_fam[fam].append((dict(labels, **extra), v, t))
        if t is not None:
            starts[(f["node"] or "", f["mode"] or "")] = t
    out = []
    for fam, unit, help_ in [(f, u, h) for _, f, u, h, _ in FAMILIES] + [CEILING]:
        if not by_fam[fam]:
            continue
        family(out, fam, unit, help_)
        seen = set()
        for labels, v, t in by_fam[fam]:
            lab = ",".join('%s="%s"' % (k, escape(labels[k])) for k in
                           list(LABELS) + sorted(set(labels) - set(LABELS)))
            if lab in seen:  # one sample per label set
                continue
            seen.add(lab)
            ts = " %s" % number(t) if timestamps and t is not None else ""
            out.append("%s{%s} %s%s" % (fam, lab, number(v), ts))
    if starts:
        family(out, RUN_START, "seconds", "Start of the run the node's latest figures come from")
        for (node, mode), t in sorted(starts.items()):
            out.append('%s{node="%s",mode="%s"} %s' % (RUN_START, escape(node), escape(mode),
                                                        number(t)))
    for fam, unit, help_, i in (STATUS + (0,), STATUS_TIME + (1,)):
        if not status:
            break
        family(out, fam, unit, help_)
        for (node, rung), v in sorted(status.items()):
            if v[i] is not None:
                out.append('%s{node="%s",rung="%s"} %s' % (fam, escape(node), escape(rung),
                                                            number(v[i])))
    out.append("# EOF")
    return "\n".join(out) + "\n"


def write_atomic(path, data):
    """The whole file or none: the textfile collector may read it at any moment."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    try:
        with open(tmp, "w") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        raise Fail(1, "%s: %s" % (path, e.strerror))


PLAIN_KEY = re.compile(r"^[A-Za-z0-9_.:-]+$")


def push_target(url, node):
    """The Pushgateway URL of one node's group: URL/metrics/job/nbw/instance/NODE (a URL
    naming its job keeps it; a node's name that cannot be a path element in base64)."""
    base = url.rstrip("/") + ("" if "/metrics/job/" in url else "/metrics/job/nbw")
    if "/instance/" in base or "/instance@base64/" in base:
        return base
    if PLAIN_KEY.match(node):
        return base + "/instance/" + node
    return base + "/instance@base64/" + (
        base64.urlsafe_b64encode(node.encode()).decode() or "=")


def push(target, data, timeout):
    """PUT to a Pushgateway: its text format reads these lines as they are."""
    req = urllib.request.Request(target, data=data.encode(), method="PUT", headers={
        "Content-Type": "text/plain; version=0.0.4; charset=utf-8"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return target, r.status
    except urllib.error.HTTPError as e:
        body = e.read(300).decode("utf-8", "replace").strip()
        raise Fail(1, "--push %s: HTTP %d %s" % (target, e.code, body))
    except (urllib.error.URLError, OSError) as e:
        raise Fail(1, "--push %s: %s" % (target, getattr(e, "reason", e)))


def cmd_export_any(args):
    if args.openmetrics is None:
        if args.push:
            raise Fail(2, "--push: with --openmetrics")
        return cmd_export(args)
    if args.csv or args.json:
        raise Fail(2, "export: --openmetrics, --csv or --json, one of them")
    if not args.timeout > 0:
        raise Fail(2, "--timeout %g: seconds, more than 0" % args.timeout)
    st = open_store(args)
    try:
        figs = latest_figures(st)
        status = last_status(st)
    finally:
        st.close()
    if args.openmetrics == "-" and args.out:
        args.openmetrics = args.out
    to_file = args.openmetrics != "-"
    ts = args.timestamps == "yes"
    if args.push:
        if not args.push.startswith(("http://", "https://")):
            raise Fail(2, "--push %s: an http:// or https:// URL" % args.push)
        nodes = sorted({f["node"] or "" for f in figs} | {n for n, _ in status})
        for node in nodes:  # one group per node: a push replaces that node's alone
            mine = [f for f in figs if (f["node"] or "") == node]
            target, code = push(push_target(args.push, node), render(
                mine, ts, {k: v for k, v in status.items() if k[0] == node}), args.timeout)
            sys.stderr.write("nbw-results: pushed %d figures of %s to %s (HTTP %d)\n" % (
                len(mine), node or "no node", target, code))
    data = render(figs, ts, status)
    if to_file:
        write_atomic(args.openmetrics, data)
    elif not args.push:
        sys.stdout.write(data)
    return 0
