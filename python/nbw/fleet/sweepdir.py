"""nbw.fleet.sweepdir: the layout of a sweep's directory, read into measurements.

A sweep writes one directory; the judgement is a pure function of it:

  sweep.json                      {"tool":"nbw-fleet", "format", "suite_version",
                                   "nodes":[names], "rails", "drives", "pairs", "seed",
                                   "rail_devs":[per rail, a device name or null],
                                   "groups":{node: rack or switch}, "launcher",
                                   "skipped":[{"node", "reason"}],
                                   "failed":[{"part", "reason", "node"}],
                                   "timing":{phase: {"start", "end", "steps"}},
                                   "argv":[the run's command line], "settings":{the
                                   tools' environment}, "resumed_argv":[[...]],
                                   "plan":{the plan's pairs, rounds, windows},
                                   "started", "finished" (UTC), "run_ids":{relative
                                   path: its document's provenance run id},
                                   "state":"running|done|interrupted"}
  nodes/NODE/probe.json           nvme_link_probe --json
  nodes/NODE/read.json            nvme_read_bw --baseline --json (each drive alone in
                                  baseline[] "NAME alone", all together in total)
  fabric/A/B.json                 A's nvme_write_bw_remote --bidir --json of its run with B
                                  from memory, every rail at once: its "receive" (the sink's
                                  report, a row per rail) is the direction B -> A
  fabric/A/B.railI.json           the same on rail I alone (--rails-one-by-one)
  remote/A/B.json                 A's --bidir document of its run with B with drives: B's
                                  drives -> A's DRAM
  isolate/nodes/NODE/read.json    a retest of NODE's drives
  isolate/fabric/A/B.json         a retest of the pair, every rail at once
  isolate/alone/A/B.railI.json    rail I of the pair alone (a rail low with its siblings)
  isolate/remote/A/B.json         a retest of the drive -> remote pair
                                  (a retest's "send" is read too: the sender's own
                                  figure, Sweep.sent, beside the sink's)

A sweep of format 1 (each direction a run of its own: fabric/A/B.railI.json the sink's
document on B, A -> B) is read as it was written.

Node names are checked (letters, digits and ._:@%-; no leading "-", not . or ..), so
that a name is a path component and never an option. Every file is untrusted: a file that does not parse, or lacks the figure,
is noted as unreadable with the reason and left out, never fatal. A transfer keeps
where it was read, not the document: the counters of the few low ones are read again
(counters_of), so that a sweep of thousands of nodes fits in memory.
"""

import os
import re

from .. import jsonutil
from ..jsonutil import as_float, dicts, dig

# A node's name: a path component and a word no tool reads as an option (no leading
# "-", not "." or "..").
NAME_RE = re.compile(r"^(?!-)(?!\.\.?$)[A-Za-z0-9._:@%-]+$")
NAME_WORDS = "letters, digits and ._:@%- only, not starting with -, not . or .."
FABRIC_RE = re.compile(r"^([A-Za-z0-9._:@%-]+?)(?:\.rail([0-9]{1,4}))?\.json$")
MAX_DOC = jsonutil.MAX_DOC  # a tool's JSON document is far smaller: larger is not one


class SweepError(Exception):
    """The directory is not a sweep (no sweep.json, or an unreadable one)."""


def load_json(path):
    """The parsed document, or None when missing, too large or not JSON."""
    doc, _ = load_json_why(path)
    return doc


def load_json_why(path):
    """(document, None), or (None, why: "missing", "larger than 16 MiB", "not JSON",
    "nested deeper than 64 levels"): nbw.jsonutil's bounds."""
    return jsonutil.load_why(path, MAX_DOC)


def number(v):
    """A finite non-negative float, or None."""
    v = as_float(v)
    return v if v is not None and v >= 0 else None


class Drive:
    __slots__ = ("node", "name", "model", "pci", "ceiling", "solo", "retest")

    def __init__(self, node, name):
        self.node, self.name = node, name
        self.model = self.pci = self.ceiling = self.solo = self.retest = None


class Transfer:
    """One measured A -> B (fabric on a rail, or remote: A's drives into B's DRAM), as
    the receiving sink reported it. alone: the rail measured without its siblings."""
    __slots__ = ("src", "dst", "channel", "gbps", "line_rate", "src_dev", "dst_dev", "retest",
                 "kind", "alone", "path", "side")

    def __init__(self, src, dst, channel, gbps, retest):
        self.src, self.dst, self.channel, self.gbps, self.retest = src, dst, channel, gbps, retest
        self.line_rate = self.src_dev = self.dst_dev = self.kind = None
        self.alone = False
        self.path = self.side = None  # where its document is (counters_of reads it again)


class Sweep:
    """What a sweep directory holds, as measurements."""

    def __init__(self):
        self.top = None
        self.meta = {}
        self.nodes = []
        self.drives = {}  # (node, name) -> Drive
        self.together = {}  # node -> GB/s of all drives at once
        self.together_retest = {}
        self.probe = {}  # node -> probe document
        self.reads = {}  # node -> its nvme_read_bw document (the drives' health, fleet/health.py)
        self.transfers = []
        # (src, dst, channel, alone) -> GB/s: what the sender of a retest itself reported
        # (its --bidir document's "send"), beside the sink's word (the transfer's).
        self.sent = {}
        self.unreadable = []  # paths left out
        self.why = {}  # path (relative) -> why it was left out
        self.present = set()  # relative paths of the documents read
        self.skip = {}  # relative path -> why it is set aside unread (read_sweep's skip)


def _unreadable(sw, path, why):
    sw.unreadable.append(path)
    sw.why[os.path.relpath(path, sw.top) if sw.top else path] = why


def _left_out(sw, path):
    """True when the caller set path aside (read_sweep's skip: a document from another
    sweep, another node's copy): noted as unreadable with its reason, never read."""
    rel = os.path.relpath(path, sw.top) if sw.top else path
    if rel in sw.skip:
        _unreadable(sw, path, sw.skip[rel])
        return True
    return False


def _read_node(sw, node, path, retest):
    if _left_out(sw, path):
        return
    doc, why = load_json_why(path)
    if not isinstance(doc, dict) or doc.get("tool") != "nvme_read_bw":
        if why != "missing":
            _unreadable(sw, path, why or "not nvme_read_bw's document")
        return
    drives = doc.get("drives") if isinstance(doc.get("drives"), list) else []
    if not retest:
        sw.reads[node] = doc
    solos = {}
    for b in dicts(doc.get("baseline")):  # a number where the list belongs: none
        label = dig(b, "label")
        if isinstance(label, str) and label.endswith(" alone"):
            solos[label[:-len(" alone")]] = number(dig(b, "gb_per_s"))
    for d in drives:
        name = dig(d, "name") or dig(d, "path")
        if not isinstance(name, str):
            continue
        name = name.rsplit("/", 1)[-1]
        dr = sw.drives.get((node, name))
        if dr is None:
            dr = sw.drives[(node, name)] = Drive(node, name)
        figure = solos.get(name)
        if figure is None and len(drives) == 1:
            figure = number(dig(d, "gb_per_s"))
        if retest:
            dr.retest = figure
        else:
            dr.solo = figure
            dr.model = dig(d, "model") if isinstance(dig(d, "model"), str) else None
            dr.pci = dig(d, "pci_address") if isinstance(dig(d, "pci_address"), str) else None
            dr.ceiling = number(dig(d, "link_ceiling_gb_per_s"))
    total = number(dig(doc, "total", "gb_per_s"))
    if total is not None and len(drives) > 1:
        (sw.together_retest if retest else sw.together)[node] = total
    sw.present.add(os.path.relpath(path, sw.top))


def _rail_index(row, pos, devs):
    """A row's rail: its sink device's place in --rail-devs, else its place in the
    document's rows."""
    dev = row.get("local_dev")
    if isinstance(dev, str) and devs and dev in devs:
        return devs.index(dev)
    return pos


def _figures(sw, rep, channel, rail=None):
    """[(channel, GB/s, row)] of a role's report: one per rail row (fabric), or its RDMA
    total (remote, or a rail alone)."""
    if not isinstance(rep, dict):
        return []
    rows = dicts(rep.get("rails"))[:64]
    devs = sw.meta.get("rail_devs") if isinstance(sw.meta.get("rail_devs"), list) else []
    out = []
    if channel == "remote" or (rail is not None and len(rows) <= 1):
        gbps = number(dig(rep, "rdma", "gb_per_s"))
        if gbps is not None:
            out.append((channel if channel == "remote" else rail, gbps, rows[0] if rows else {}))
        return out
    rows = sorted(rows, key=lambda r: (str(r.get("local_dev")), str(r.get("local_port"))))
    for pos, row in enumerate(rows):
        gbps = number(row.get("gb_per_s"))
        if gbps is not None:
            out.append((_rail_index(row, pos, devs), gbps, row))
    return out


def _transfers_of_report(sw, rep, src, dst, channel, retest, path, side, rail=None):
    """The transfers of a sink's report of src -> dst: one per rail row (fabric), or
    its RDMA total (remote). False when it has no figure."""
    out = _figures(sw, rep, channel, rail)
    if not out:
        return False
    for ch, gbps, row in out:
        t = Transfer(src, dst, ch, gbps, retest)
        t.line_rate = number(row.get("line_rate_gb_per_s"))
        # The sink's report: its own port is local, the source's remote.
        dev = row.get("local_dev")
        t.dst_dev = dev if isinstance(dev, str) else None
        dev = row.get("remote_dev")
        t.src_dev = dev if isinstance(dev, str) else None
        t.alone = rail is not None and channel != "remote"
        t.path, t.side = path, side
        sw.transfers.append(t)
    return True


def _read_transfer(sw, path, owner, partner, channel, retest, rail=None):
    """One file of a pair: a --bidir document (the owner's: partner -> owner) or, in a
    sweep of format 1, the sink's document of owner -> partner."""
    if _left_out(sw, path):
        return
    doc, why = load_json_why(path)
    if not isinstance(doc, dict) or doc.get("tool") != "nvme_write_bw_remote":
        _unreadable(sw, path, why or "not nvme_write_bw_remote's document")
        return
    if doc.get("role") == "bidir":
        ok = _transfers_of_report(sw, doc.get("receive"), partner, owner, channel, retest,
                                  path, "receive", rail)
        if retest:  # what the owner itself says it sent: a retest's other word
            alone = rail is not None and channel != "remote"
            for ch, gbps, _ in _figures(sw, doc.get("send"), channel, rail):
                sw.sent[(owner, partner, ch, alone)] = gbps
    elif channel == "remote":  # format 1: the sink's document of owner -> partner
        ok = _transfers_of_report(sw, doc, owner, partner, "remote", retest, path, None)
    else:
        ok = _read_format1(sw, doc, path, owner, partner, rail, retest)
    if not ok:
        _unreadable(sw, path, "no figure (rdma.gb_per_s)")
        return
    sw.present.add(os.path.relpath(path, sw.top))


def _read_format1(sw, doc, path, src, dst, rail, retest):
    """A sweep of format 1: the sink's document of src -> dst on one rail."""
    gbps = number(dig(doc, "rdma", "gb_per_s"))
    if gbps is None:
        return False
    t = Transfer(src, dst, rail if rail is not None else 0, gbps, retest)
    rails = doc.get("rails")
    if isinstance(rails, list) and rails and isinstance(rails[0], dict):
        t.line_rate = number(rails[0].get("line_rate_gb_per_s"))
        dev = rails[0].get("local_dev")
        t.dst_dev = dev if isinstance(dev, str) else None
        dev = rails[0].get("remote_dev")
        t.src_dev = dev if isinstance(dev, str) else None
    t.path = path
    sw.transfers.append(t)
    return True


def sent_by(sw, t):
    """GB/s the sender of retest t itself reported (None without its word); in a sweep
    of format 1 (the sink's document alone) the sink's figure, the one word there is."""
    if not isinstance(sw.meta.get("format"), int) or sw.meta["format"] < 2:
        return t.gbps
    return sw.sent.get((t.src, t.dst, t.channel, t.alone))


def counters_of(t):
    """The receiving ports' counter objects of a transfer's rail (read again from its
    document), [] when there are none."""
    doc = load_json(t.path) if t.path else None
    if not isinstance(doc, dict):
        return []
    rep = doc.get(t.side) if t.side else doc
    ports = rep.get("counters") if isinstance(rep, dict) else None
    if not isinstance(ports, list):
        return []
    return [p for p in ports[:64] if isinstance(p, dict)
            and (t.dst_dev is None or p.get("device") == t.dst_dev)]


def _names(path):
    try:
        return sorted(x for x in os.listdir(path) if NAME_RE.match(x))
    except OSError:
        return []


def _read_transfers(sw, base, retest):
    fab = os.path.join(base, "fabric")
    for a in _names(fab):
        for f in _names(os.path.join(fab, a)):
            m = FABRIC_RE.match(f)
            if m:
                rail = int(m.group(2)) if m.group(2) is not None else None
                _read_transfer(sw, os.path.join(fab, a, f), a, m.group(1), "fabric", retest,
                               rail)
    alone = os.path.join(base, "alone")
    for a in _names(alone):
        for f in _names(os.path.join(alone, a)):
            m = FABRIC_RE.match(f)
            if m and m.group(2) is not None:
                _read_transfer(sw, os.path.join(alone, a, f), a, m.group(1), "fabric", retest,
                               int(m.group(2)))
    rem = os.path.join(base, "remote")
    for a in _names(rem):
        for f in _names(os.path.join(rem, a)):
            if f.endswith(".json"):
                _read_transfer(sw, os.path.join(rem, a, f), a, f[:-5], "remote", retest)


def read_sweep(top, skip=None):
    """The Sweep of directory top; SweepError when it is not one. skip: {relative path:
    why} of documents to leave out, each noted unreadable with its why."""
    meta = load_json(os.path.join(top, "sweep.json"))
    if not isinstance(meta, dict) or meta.get("tool") != "nbw-fleet":
        raise SweepError("%s: not a sweep directory (no readable sweep.json of nbw-fleet)" % top)
    sw = Sweep()
    sw.top = top
    sw.meta = meta
    sw.skip = dict(skip or {})
    nodes = meta.get("nodes")
    sw.nodes = [x for x in nodes if isinstance(x, str) and NAME_RE.match(x)] \
        if isinstance(nodes, list) else []
    for node in _names(os.path.join(top, "nodes")):
        d = os.path.join(top, "nodes", node)
        path = os.path.join(d, "probe.json")
        probe, why = (None, "missing") if _left_out(sw, path) else load_json_why(path)
        if isinstance(probe, dict) and probe.get("tool") == "nvme_link_probe":
            sw.probe[node] = probe
            sw.present.add(os.path.relpath(path, top))
        elif why != "missing":
            _unreadable(sw, path, why or "not nvme_link_probe's document")
        _read_node(sw, node, os.path.join(d, "read.json"), False)
        _read_node(sw, node, os.path.join(top, "isolate", "nodes", node, "read.json"), True)
    if not sw.nodes:
        sw.nodes = _names(os.path.join(top, "nodes"))
    _read_transfers(sw, top, False)
    _read_transfers(sw, os.path.join(top, "isolate"), True)
    return sw
