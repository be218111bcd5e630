"""The latest figures in the OpenMetrics text format (nbw-results export --openmetrics):
one metric family per figure kind, in base units, for node_exporter's textfile collector
or a Prometheus Pushgateway. A ceiling (the link rung: what the PCIe links allow, computed,
never measured) has a family of its own, never the throughput's; per node and rung the
last run's status (1 ok, 0 failed) and start, so that a node whose benchmark now fails
shows it though its last good figure stays (0 too for a node its latest fleet sweep
judged SUSPECT or NOT MEASURED), and per node of the latest fleet sweep its verdict
(nbw_node_verdict). --push (push.py) PUTs each node's part under its own grouping key
(job nbw, instance NODE), many at a time: many nodes' pushes coexist."""
import json
import re
import math
import os
import sys

from .base import Fail, epoch_of
from .push import push_all
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
          "it failed or its fleet sweep judged the node SUSPECT or NOT MEASURED (its "
          "figures then stay the last good ones)")
VERDICT = ("nbw_node_verdict", "", "1 for the verdict of the node in the latest fleet "
           "sweep that named it (verdict: pass, suspect, not_measured), 0 for the others")
# The verdicts' label values: nbw-fleet's words, lower case, a space an underscore.
VERDICTS = ("pass", "suspect", "not_measured")
# A fleet rail's rung ("fleet rail 3"): the rung "fleet rail", the rail its own label.
RAIL_RUNG = re.compile(r"^(fleet rail) ([0-9]+)$")
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


def verdict_word(v):
    """nbw-fleet's verdict as a label value: 'NOT MEASURED' -> 'not_measured'."""
    return re.sub(r"[^a-z0-9]+", "_", str(v).lower()).strip("_") or "unknown"


def rung_rail(rung):
    """(rung, rail) of a recorded rung: a fleet rail's index its own label."""
    m = RAIL_RUNG.match(rung or "")
    return (m.group(1), m.group(2)) if m else (rung or "", "")


def rail_of(f):
    if rung_rail(f["rung"])[1]:
        return rung_rail(f["rung"])[1]
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
    # the runs apart from their figures: a fleet run's hosts and verdicts (4096 names)
    # once, never on each of its figures' rows
    runs, order = {}, []
    for x in st.q("SELECT uuid, started, failed, hosts, verdicts FROM runs "
                  "WHERE excluded IS NULL ORDER BY seq"):
        order.append(x["uuid"])
        runs[x["uuid"]] = (x, set())
    for x in st.q("SELECT DISTINCT run, node, rung FROM figures WHERE node IS NOT NULL"):
        if x["run"] in runs and x["node"]:
            runs[x["run"]][1].add((x["node"], x["rung"] or ""))
    out, rungs = {}, {}
    for u in order:
        r, pairs = runs[u]
        t = epoch_of(r["started"])
        for node, rung in pairs:
            rungs.setdefault(node, set()).add(rung)
        verdicts = json.loads(r["verdicts"] or "{}")
        bad = {n for n, v in verdicts.items() if verdict_word(v) != "pass"}
        if r["failed"] or bad:
            for node in set(json.loads(r["hosts"] or "[]")) | {n for n, _ in pairs}:
                if r["failed"] or node in bad:
                    for rung in rungs.get(node) or {""}:
                        pairs.add((node, rung))
        for pair in pairs:
            out[pair] = (0 if r["failed"] or pair[0] in bad else 1, t)
    return out


def node_verdicts(st):
    """{node: verdict word} from the latest fleet sweep (neither failed nor excluded)
    that named each node."""
    out = {}
    for r in st.q("SELECT verdicts FROM runs WHERE verdicts IS NOT NULL AND failed IS NULL "
                  "AND excluded IS NULL ORDER BY seq"):
        for node, v in json.loads(r["verdicts"] or "{}").items():
            out[node] = verdict_word(v)
    return out


def family(out, name, unit, help_):
    out += ["# TYPE %s gauge" % name] + (["# UNIT %s %s" % (name, unit)] if unit else []) + [
        "# HELP %s %s" % (name, help_)]


def render(figs, timestamps=False, status=None, verdicts=None):
    """The OpenMetrics text of the figures (and the runs' status, the nodes' verdicts):
    families in a fixed order, # EOF last."""
    by_fam = {fam: [] for _, fam, _, _, _ in FAMILIES}
    by_fam[CEILING[0]] = []
    starts, when = {}, {}
    for f in figs:
        if f["started"] not in when:  # a run's start, parsed once for its figures
            when[f["started"]] = epoch_of(f["started"])
        t = when[f["started"]]
        labels = {"node": f["node"] or "", "drive": f["drive"] or "", "rail": rail_of(f),
                  "rung": rung_rail(f["rung"])[0], "mode": f["mode"] or ""}
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
                rung_, rail = rung_rail(rung)
                out.append('%s{node="%s",rung="%s"%s} %s' % (
                    fam, escape(node), escape(rung_),
                    ',rail="%s"' % rail if rail else "", number(v[i])))
    if verdicts:
        family(out, *VERDICT)
        words = list(VERDICTS) + sorted(set(verdicts.values()) - set(VERDICTS))
        for node, v in sorted(verdicts.items()):
            for w in words:
                out.append('%s{node="%s",verdict="%s"} %d' % (VERDICT[0], escape(node), w,
                                                             w == v))
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
        verdicts = node_verdicts(st)
    finally:
        st.close()
    if args.openmetrics == "-" and args.out:
        args.openmetrics = args.out
    to_file = args.openmetrics != "-"
    ts = args.timestamps == "yes"
    failed = 0
    if args.push:
        if not args.push.startswith(("http://", "https://")):
            raise Fail(2, "--push %s: an http:// or https:// URL" % args.push)
        if not 1 <= args.parallel <= 256:
            raise Fail(2, "--parallel %d: from 1 to 256" % args.parallel)
        if args.push_groups is not None and not 0 <= args.push_groups <= 4096:
            raise Fail(2, "--push-groups %d: from 0 (a group per node) to 4096"
                       % args.push_groups)
        failed = push_all(args.push, figs, status, verdicts,
                          lambda f, s, v: render(f, ts, s, v), args.timeout, args.parallel,
                          n_groups=args.push_groups)
    if to_file:
        write_atomic(args.openmetrics, render(figs, ts, status, verdicts))
    elif not args.push:
        sys.stdout.write(render(figs, ts, status, verdicts))
    return 1 if failed else 0
