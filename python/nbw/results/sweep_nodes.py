"""A recorded sweep's nodes: each node's provenance and inventory (host, kernel, build,
its drives' and RDMA ports' identity, its documents' windows and run ids) read from its
own documents in the sweep directory, and the documents that cannot be its own, each
set aside with why (its node then NOT MEASURED in the record, never merged):
  missing     a node's nodes/NODE/read.json or probe.json the run named no failure of;
  truncated   a document that does not parse (or is not the tool's);
  duplicated  two documents of one run id (a file copied within the sweep);
  foreign     a document whose provenance names another host than the node whose
              directory holds it, whose run id is not the one nbw-fleet run kept for
              that file (sweep.json's run_ids), or whose window lies outside the
              sweep's (sweep.json's started .. finished).
A document without provenance (made before the block existed) is read, and its node
said to lack provenance."""
import os

from ..fleet.sweepdir import NAME_RE, load_json_why
from . import provenance
from .base import epoch_of

SLACK_S = 3600  # seconds a document's window may start before or end after the sweep's (clocks)
OWNED = ("nodes", "fabric", "remote", "alone")
SHOWN = 4  # documents named per node in a word of the record


def owner_of(rel):
    """The node whose directory holds a sweep's document (nodes/N/.., fabric/N/..,
    isolate/...), or None."""
    words = rel.split("/")
    if words[0] == "isolate":
        words = words[1:]
    if len(words) == 3 and words[0] in OWNED and NAME_RE.match(words[1]):
        return words[1]
    return None


def documents(top):
    """{relative path: node} of the sweep's tools' documents."""
    out = {}
    for d, dirs, names in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x != "failed" and not x.startswith("."))
        for n in names:
            if not n.endswith(".json"):
                continue
            rel = os.path.relpath(os.path.join(d, n), top)
            node = owner_of(rel)
            if node:
                out[rel] = node
    return out


def _failed_parts(meta):
    rows = meta.get("failed") if isinstance(meta.get("failed"), list) else []
    return {f["part"] for f in rows if isinstance(f, dict) and isinstance(f.get("part"), str)}


def _skipped(meta):
    rows = meta.get("skipped") if isinstance(meta.get("skipped"), list) else []
    return {s.get("node") for s in rows if isinstance(s, dict)}


class Read:
    """What the sweep's documents say of their nodes, and which to set aside."""

    def __init__(self, top, meta):
        self.top, self.meta = top, meta
        self.docs = documents(top)
        self.prov = {}  # rel -> Provenance
        self.lacking = {}  # node -> [rel] of documents without provenance
        self.aside = {}  # rel -> why it is set aside
        self.tool = {}  # rel -> the document's tool
        self.absent = {}  # rel -> node: an expected document not in the sweep

    def read(self):
        for rel in sorted(self.docs):
            doc, why = load_json_why(os.path.join(self.top, rel))
            if not isinstance(doc, dict):
                self.aside[rel] = "%s: a truncated document?" % (why or "not a JSON object")
                continue
            self.tool[rel] = doc.get("tool")
            try:
                p = provenance.read(doc)
            except ValueError as e:
                self.aside[rel] = "its provenance breaks the contract (%s)" % e
                continue
            if p is None:
                self.lacking.setdefault(self.docs[rel], []).append(rel)
            else:
                self.prov[rel] = p
        self.missing()
        self.foreign()
        self.duplicated()
        return self

    def missing(self):
        nodes = self.meta.get("nodes") if isinstance(self.meta.get("nodes"), list) else []
        failed, skipped = _failed_parts(self.meta), _skipped(self.meta)
        state = self.meta.get("state")
        why = "missing: no file, and the run named no failure of it" if state == "done" \
            else "missing: the sweep is %s, it stopped before this part" % state
        for n in nodes:
            if not isinstance(n, str) or not NAME_RE.match(n) or n in skipped:
                continue
            for name in ("probe.json", "read.json"):
                rel = "nodes/%s/%s" % (n, name)
                if rel in failed or rel in self.docs:
                    continue
                if name == "read.json" and self.meta.get("drives") == 0:
                    continue
                self.aside[rel] = why
                self.absent[rel] = n

    def foreign(self):
        kept = self.meta.get("run_ids") if isinstance(self.meta.get("run_ids"), dict) else {}
        lo, hi = epoch_of(self.meta.get("started")), epoch_of(self.meta.get("finished"))
        for rel, p in sorted(self.prov.items()):
            node = self.docs[rel]
            if p.host is not None and not provenance.same_node(node, p.host):
                self.aside[rel] = "made on host %s, not %s: another node's document" % (
                    p.host, node)
            elif isinstance(kept.get(rel), str) and kept[rel] != p.run_id:
                self.aside[rel] = "from another sweep: run id %s, the run kept %s" % (
                    p.run_id, kept[rel])
            elif lo is not None and p.start < lo - SLACK_S or \
                    hi is not None and p.end > hi + SLACK_S:
                self.aside[rel] = "from another sweep: its window %s .. %s is outside the " \
                    "sweep's %s .. %s" % (provenance.utc(p.start), provenance.utc(p.end),
                                          self.meta.get("started"),
                                          self.meta.get("finished") or "-")

    def duplicated(self):
        seen = {}
        for rel, p in sorted(self.prov.items()):
            if p.run_id and rel not in self.aside:  # a copy named already is not twice
                seen.setdefault(p.run_id, []).append(rel)
        for rid, rels in seen.items():
            for rel in rels if len(rels) > 1 else ():
                self.aside.setdefault(rel, "duplicated: the same document (run id %s) as %s"
                                      % (rid, ", ".join(r for r in rels if r != rel)))

    def not_measured(self):
        """{node: why} of the nodes with a document set aside."""
        out = {}
        for rel, why in sorted(self.aside.items()):
            n = self.docs.get(rel) or self.absent.get(rel)
            if n is None:
                continue
            if n in out:
                out[n][1] += 1
            else:
                out[n] = [rel, 1, why]
        return {n: "%s: %s%s" % (rel, why, "" if k == 1 else " (and %d more of its "
                                 "documents)" % (k - 1)) for n, (rel, k, why) in out.items()}


def _same(values):
    vals = sorted({v for v in values if v is not None})
    return vals[0] if len(vals) == 1 else (", ".join(vals) if vals else None)


def node_brief(rd, node, rels, verdict):
    """A node's provenance as the record keeps it."""
    ps = [(rel, rd.prov[rel]) for rel in rels if rel in rd.prov and rel not in rd.aside]
    ps.sort(key=lambda x: (not x[0].endswith("read.json"), x[0]))
    lacking = sorted(rd.lacking.get(node, []))
    brief = {"node": node, "verdict": verdict, "documents": len(rels)}
    if not ps:
        brief.update(host=None, run_id=None, start=None, end=None, provenance=False,
                     without_provenance="none of its %d documents has provenance%s" % (
                         len(rels), " (%s)" % ", ".join(lacking[:SHOWN]) if lacking else ""))
        return brief
    drives, ports = {}, {}
    for _, p in ps:
        for d in p.drives:
            drives.setdefault(d.get("path") or d.get("controller"), {
                k: d.get(k) for k in provenance.DRIVE_KEYS})
        for d in p.ports:
            ports.setdefault(d.get("device"), {k: d.get(k) for k in provenance.PORT_KEYS})
    first = ps[0][1]
    brief.update(
        host=first.host, run_id=first.run_id, provenance=True,
        start=provenance.utc(min(p.start for _, p in ps)),
        end=provenance.utc(max(p.end for _, p in ps)),
        kernel=_same(p.kernel for _, p in ps), suite_build=_same(p.build for _, p in ps),
        suite_version=_same(p.version for _, p in ps),
        drives=[drives[k] for k in sorted(drives, key=str)],
        rdma_ports=[ports[k] for k in sorted(ports, key=str)])
    if lacking:
        brief["without_provenance"] = "%d of its %d documents without provenance (%s)" % (
            len(lacking), len(rels), ", ".join(lacking[:SHOWN]))
    return brief


def drive_identity(brief, drive):
    """(model, firmware, serial) of a node's drive by its name (nvme0n1), or Nones."""
    for d in brief.get("drives") or []:
        names = {os.path.basename(str(d.get("path") or "")), str(d.get("controller") or "")}
        if drive in names or (drive.endswith("n1") and drive[:-2] in names):
            return d.get("model"), d.get("firmware"), d.get("serial")
    return None, None, None


def port_identity(brief, dev):
    """(board id, firmware) of a node's RDMA port by its device, or Nones."""
    for d in brief.get("rdma_ports") or []:
        if d.get("device") == dev:
            return d.get("board_id"), d.get("firmware")
    return None, None


def read_nodes(top, meta):
    """The sweep's Read: its documents' provenance and those set aside."""
    return Read(top, meta).read()


def briefs(rd, nodes, verdicts):
    """{node: brief} of every node of the sweep."""
    by_node = {}
    for rel, n in rd.docs.items():
        by_node.setdefault(n, []).append(rel)
    return {n: node_brief(rd, n, sorted(by_node.get(n, [])), verdicts.get(n))
            for n in nodes}
