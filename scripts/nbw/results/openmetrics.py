"""The latest figures in the OpenMetrics text format (nbw-results export --openmetrics):
one metric family per figure kind, in base units, for node_exporter's textfile collector
or a Prometheus Pushgateway."""
import json
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


def render(figs, timestamps=True):
    """The OpenMetrics text of the figures: families in a fixed order, # EOF last."""
    by_fam = {fam: [] for _, fam, _, _, _ in FAMILIES}
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
    for _, fam, unit, help_, _ in FAMILIES:
        if not by_fam[fam]:
            continue
        out += ["# TYPE %s gauge" % fam, "# UNIT %s %s" % (fam, unit),
                "# HELP %s %s" % (fam, help_)]
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
        out += ["# TYPE %s gauge" % RUN_START, "# UNIT %s seconds" % RUN_START,
                "# HELP %s Start of the run the node's latest figures come from" % RUN_START]
        for (node, mode), t in sorted(starts.items()):
            out.append('%s{node="%s",mode="%s"} %s' % (RUN_START, escape(node), escape(mode),
                                                        number(t)))
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


def push(url, data, timeout):
    """PUT to a Pushgateway (job nbw): its text format reads these lines as they are."""
    if not url.startswith(("http://", "https://")):
        raise Fail(2, "--push %s: an http:// or https:// URL" % url)
    target = url.rstrip("/") + ("" if "/metrics/job/" in url else "/metrics/job/nbw")
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
    finally:
        st.close()
    if args.openmetrics == "-" and args.out:
        args.openmetrics = args.out
    to_file = args.openmetrics != "-"
    ts = args.timestamps == "yes" if args.timestamps else not (to_file or args.push)
    data = render(figs, ts)
    if args.push:
        target, status = push(args.push, data, args.timeout)
        sys.stderr.write("nbw-results: pushed %d figures to %s (HTTP %d)\n" % (
            len(figs), target, status))
    if to_file:
        write_atomic(args.openmetrics, data)
    elif not args.push:
        sys.stdout.write(data)
    return 0
