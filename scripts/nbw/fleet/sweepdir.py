"""nbw.fleet.sweepdir: the layout of a sweep's directory, read into measurements.

A sweep writes one directory; the judgement is a pure function of it:

  sweep.json                      {"tool":"nbw-fleet", "format", "suite_version",
                                   "nodes":[names], "rails", "drives", "pairs", "seed",
                                   "rail_devs":[per rail, a device name or null],
                                   "skipped":[{"node", "reason"}], "state":"running|done"}
  nodes/NODE/probe.json           nvme_link_probe --json
  nodes/NODE/read.json            nvme_read_bw --baseline --json (each drive alone in
                                  baseline[] "NAME alone", all together in total)
  fabric/A/B.railI.json           nvme_write_bw_remote --json of the sink on B, the source
                                  A writing from memory on rail I: the direction A -> B
  remote/A/B.json                 the same with A's drives: A's drives -> B's DRAM
  isolate/nodes/NODE/read.json    a retest of NODE's drives
  isolate/fabric/A/B.railI.json   a retest of A -> B on rail I
  isolate/remote/A/B.json         a retest of A's drives -> B's DRAM

Node names are checked (letters, digits and ._:@%-), so that a name is a path
component. Every file is untrusted: a file that does not parse, or lacks the figure,
is noted as unreadable and left out, never fatal.
"""

import json
import os
import re

from ..jsonutil import dig

NAME_RE = re.compile(r"^[A-Za-z0-9._:@%-]+$")
FABRIC_RE = re.compile(r"^([A-Za-z0-9._:@%-]+)\.rail([0-9]{1,4})\.json$")
MAX_DOC = 16 << 20  # a tool's JSON document is far smaller: larger is not one


class SweepError(Exception):
    """The directory is not a sweep (no sweep.json, or an unreadable one)."""


def load_json(path):
    """The parsed document, or None when missing, too large or not JSON."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_DOC + 1)
    except OSError:
        return None
    if len(data) > MAX_DOC:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def number(v):
    """A finite non-negative float, or None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    if v != v or v in (float("inf"), float("-inf")) or v < 0:
        return None
    return v


class Drive:
    __slots__ = ("node", "name", "model", "pci", "ceiling", "solo", "retest")

    def __init__(self, node, name):
        self.node, self.name = node, name
        self.model = self.pci = self.ceiling = self.solo = self.retest = None


class Transfer:
    """One measured A -> B (fabric on a rail, or remote: A's drives into B's DRAM)."""
    __slots__ = ("src", "dst", "channel", "gbps", "line_rate", "src_dev", "dst_dev", "retest",
                 "kind", "counters")

    def __init__(self, src, dst, channel, gbps, retest):
        self.src, self.dst, self.channel, self.gbps, self.retest = src, dst, channel, gbps, retest
        self.line_rate = self.src_dev = self.dst_dev = self.kind = None
        self.counters = []  # the sink's port objects ("counters") of the rail it received on


class Sweep:
    """What a sweep directory holds, as measurements."""

    def __init__(self):
        self.meta = {}
        self.nodes = []
        self.drives = {}  # (node, name) -> Drive
        self.together = {}  # node -> GB/s of all drives at once
        self.together_retest = {}
        self.probe = {}  # node -> probe document
        self.reads = {}  # node -> its nvme_read_bw document (the drives' health, fleet/health.py)
        self.transfers = []
        self.unreadable = []  # paths left out


def _read_node(sw, node, path, retest):
    doc = load_json(path)
    if not isinstance(doc, dict) or doc.get("tool") != "nvme_read_bw":
        if os.path.exists(path):
            sw.unreadable.append(path)
        return
    drives = doc.get("drives") if isinstance(doc.get("drives"), list) else []
    if not retest:
        sw.reads[node] = doc
    solos = {}
    for b in doc.get("baseline") or []:
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


def _read_transfer(sw, path, src, dst, channel, retest):
    doc = load_json(path)
    gbps = number(dig(doc, "rdma", "gb_per_s")) if isinstance(doc, dict) else None
    if gbps is None or doc.get("tool") != "nvme_write_bw_remote":
        sw.unreadable.append(path)
        return
    t = Transfer(src, dst, channel, gbps, retest)
    rails = doc.get("rails")
    if isinstance(rails, list) and rails and isinstance(rails[0], dict):
        t.line_rate = number(rails[0].get("line_rate_gb_per_s"))
        # The sink's report: its own port is local, the source's remote.
        dev = rails[0].get("local_dev")
        t.dst_dev = dev if isinstance(dev, str) else None
        dev = rails[0].get("remote_dev")
        t.src_dev = dev if isinstance(dev, str) else None
    ports = doc.get("counters")
    if isinstance(ports, list):
        t.counters = [p for p in ports[:64] if isinstance(p, dict)
                      and (t.dst_dev is None or p.get("device") == t.dst_dev)]
    sw.transfers.append(t)


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
                _read_transfer(sw, os.path.join(fab, a, f), a, m.group(1), int(m.group(2)),
                               retest)
    rem = os.path.join(base, "remote")
    for a in _names(rem):
        for f in _names(os.path.join(rem, a)):
            if f.endswith(".json"):
                _read_transfer(sw, os.path.join(rem, a, f), a, f[:-5], "remote", retest)


def read_sweep(top):
    """The Sweep of directory top; SweepError when it is not one."""
    meta = load_json(os.path.join(top, "sweep.json"))
    if not isinstance(meta, dict) or meta.get("tool") != "nbw-fleet":
        raise SweepError("%s: not a sweep directory (no readable sweep.json of nbw-fleet)" % top)
    sw = Sweep()
    sw.meta = meta
    nodes = meta.get("nodes")
    sw.nodes = [x for x in nodes if isinstance(x, str) and NAME_RE.match(x)] \
        if isinstance(nodes, list) else []
    for node in _names(os.path.join(top, "nodes")):
        d = os.path.join(top, "nodes", node)
        probe = load_json(os.path.join(d, "probe.json"))
        if isinstance(probe, dict) and probe.get("tool") == "nvme_link_probe":
            sw.probe[node] = probe
        _read_node(sw, node, os.path.join(d, "read.json"), False)
        _read_node(sw, node, os.path.join(top, "isolate", "nodes", node, "read.json"), True)
    if not sw.nodes:
        sw.nodes = _names(os.path.join(top, "nodes"))
    _read_transfers(sw, top, False)
    _read_transfers(sw, os.path.join(top, "isolate"), True)
    return sw
