"""nbw-results show of a run's provenance: a document's line each (host, window,
kernel, build, run id), and for a recorded sweep its own line (dated by what, its
plan) and a node's each, answering which host, kernel, build, drives and ports made
its figures, or why it is NOT MEASURED (show --node NAME: that node alone)."""
import re

from ..jsonutil import printable

SWEEP, NODE = "sweep", "node "


def natural(name):
    return [int(w) if w.isdigit() else w for w in re.split(r"([0-9]+)", str(name))]


def say(form, *words):
    return form % tuple(printable(str(w)) for w in words)


def drives_words(b):
    """'nvme0n1 ACME NVMe 3 firmware 1.4 serial S1, ...' of a node's brief."""
    out = []
    for d in b.get("drives") or []:
        name = str(d.get("path") or d.get("controller") or "?").rsplit("/", 1)[-1]
        out.append(" ".join(w for w in (name, d.get("model") or "model unknown",
                                        "firmware %s" % d["firmware"] if d.get("firmware")
                                        else "", "serial %s" % d["serial"] if d.get("serial")
                                        else "") if w))
    return ", ".join(out) or "none said"


def ports_words(b):
    out = []
    for p in b.get("rdma_ports") or []:
        out.append(" ".join(w for w in (p.get("device") or "?", p.get("board_id") or "",
                                        "firmware %s" % p["firmware"] if p.get("firmware")
                                        else "") if w))
    return ", ".join(out) or "none said"


def node_lines(name, b):
    """The lines of one node of a sweep."""
    head = say("node %s: %s", name, b.get("verdict") or "-")
    if b.get("not_measured"):
        return [say("node %s: NOT MEASURED: %s", name, b["not_measured"])]
    if not b.get("provenance"):
        return [head + say(", no provenance: %s", b.get("without_provenance") or
                           "its documents carry none")]
    lines = [head + say(", host %s, kernel %s, build %s (suite %s), %s .. %s, run id %s",
                        b.get("host") or "-", b.get("kernel") or "-",
                        b.get("suite_build") or "-", b.get("suite_version") or "-",
                        b.get("start"), b.get("end"), b.get("run_id") or "-"),
             say("  drives: %s", drives_words(b)), say("  ports: %s", ports_words(b))]
    if b.get("without_provenance"):
        lines.append(say("  %s", b["without_provenance"]))
    return lines


def provenance_lines(provs, node=None):
    """show's provenance lines; node: that node of a sweep only."""
    lines = []
    if SWEEP in provs and isinstance(provs[SWEEP], dict):
        s = provs[SWEEP]
        plan = s.get("plan") if isinstance(s.get("plan"), dict) else {}
        lines.append(say("sweep %s: dated by %s; plan: %s", s.get("sweep_dir") or "-",
                         s.get("dated_by") or "-", ", ".join(
                             "%s %s" % (k, v) for k, v in sorted(plan.items())
                             if not isinstance(v, (dict, list))) or "-"))
    nodes = sorted((k[len(NODE):] for k in provs if k.startswith(NODE)), key=natural)
    for n in nodes:
        if node is None or n == node:
            lines += node_lines(n, provs[NODE + n])
    for name, p in provs.items():
        if name == SWEEP or name.startswith(NODE):
            continue
        if node is not None and p.get("host") != node:
            continue
        lines.append(say("document %s: %s, %s .. %s, kernel %s, build %s, run id %s%s",
                         name, p.get("host"), p.get("start"), p.get("end"),
                         p.get("kernel") or "-", p.get("suite_build") or "-",
                         p.get("run_id") or "-", ": its clock far from the run's"
                         if p.get("clock_far_from_run") is True else ""))
    return lines


def node_doc(provs, node):
    """show --node's JSON of a node: its provenance, or None when the run has none."""
    b = provs.get(NODE + node)
    if isinstance(b, dict):
        return b
    docs = {k: v for k, v in provs.items() if isinstance(v, dict) and v.get("host") == node}
    return {"node": node, "documents": docs} if docs else None
