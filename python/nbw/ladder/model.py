"""nbw.ladder.model: the ladder of a run_bench.sh ladder run as rungs, read from the run
directory (probe-NODE.json, baseline-NODE.json, memory-NODE.json, tcpN-NODE.json,
fabric-NODE.json, ib_write_bw-NODE.txt, nfs_*-NODE.json, aggregate-NODE.json): each rung
against its ceiling, the binding rung and its reason, the staging hop, the gap explained
hop by hop (attribute). Printed by nbw.ladder.text, drawn by nbw.ladder.chart, the
command nbw.ladder.report (ladder_report).
Standard library only."""
import glob
import json
import os
import re

from ..jsonutil import as_number, dicts, dig
from ..pcipath import capped_sum
from . import attribute, transfer, upper, xfer
from .text import fig

NEAR = 90.0  # % of a ceiling at which that ceiling is said to bind
# % of its ceiling above which a figure cannot have been limited by it: the
# link is emulated (the lab's drives) or its ceiling misreported. The margin
# covers a usable ceiling estimated from the link's encoding and overheads.
HOLDS = 105.0


def load(run_dir, prefix):
    """{node: document} of RUN_DIR/PREFIX-NODE.json (unreadable ones skipped)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(run_dir, prefix + "-*.json"))):
        node = os.path.basename(path)[len(prefix) + 1:-5]
        try:
            with open(path) as f:
                out[node] = json.load(f)
        except (OSError, ValueError):
            continue
    return out


def ib_write_bw(run_dir):
    """{node: GB/s} from perftest's client output (--report_gbits: Gb/s)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(run_dir, "ib_write_bw-*.txt"))):
        node = os.path.basename(path)[len("ib_write_bw-"):-4]
        try:
            with open(path, errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for i, line in enumerate(lines):
            if "#bytes" in line and "BW average" in line:
                gbits = "Gb/sec" in line
                for row in lines[i + 1:]:
                    f = row.split()
                    if len(f) >= 4 and re.match(r"^[0-9]+$", f[0]):
                        try:
                            v = float(f[3])
                        except ValueError:
                            break
                        # MB/sec in perftest is 2^20 bytes.
                        out[node] = v / 8 if gbits else v * 1048576 / 1e9
                        break
                break
    return out


def pct(measured, ceiling):
    if as_number(measured) is None or not as_number(ceiling):
        return None
    return measured / ceiling * 100


def above(measured, ceiling):
    """True when MEASURED is beyond what CEILING allows (more than HOLDS %)."""
    p = pct(measured, ceiling)
    return p is not None and p > HOLDS


def rung(name, node, measured, ceiling, cpu=None, **extra):
    """One rung; a figure above its ceiling gets no percentage of it
    (pct_of_ceiling null) but above_ceiling true."""
    over = above(measured, ceiling)
    r = {"name": name, "kind": None, "node": node, "measured_gb_per_s": as_number(measured),
         "ceiling_gb_per_s": as_number(ceiling),
         "pct_of_ceiling": None if over else pct(measured, ceiling),
         "above_ceiling": over, "cpu_s_per_gib": as_number(cpu)}
    r.update(extra)
    return r


def gen_name(speed, width):
    gens = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}
    g = gens.get(as_number(speed))
    if g is None or not as_number(width):
        return None
    return "Gen%d x%d" % (g, width)


def probe_devices(probe):
    return dicts(dig(probe, "devices"))


def link_of(dev):
    """(speed GT/s, width) of a probe device's own link, wherever the probe put them."""
    links = dicts(dev.get("links"))
    own = [l for l in links if l.get("device_bdf") == dev.get("bdf")] or links[-1:]
    for src in own + [dig(dev, "link"), dev]:
        if isinstance(src, dict) and as_number(src.get("speed_gts")) and as_number(src.get("width")):
            return src["speed_gts"], src["width"]
    return None, None


class Ladder:
    def __init__(self, run_dir):
        self.dir = run_dir
        self.probe = load(run_dir, "probe")
        self.base = load(run_dir, "baseline")
        self.fabric = load(run_dir, "fabric")
        self.agg = load(run_dir, "aggregate")
        self.memory = load(run_dir, "memory")
        self.ib = ib_write_bw(run_dir)
        self.sink = self.source = None
        for docs in (self.agg, self.fabric):
            for node, d in docs.items():
                if d.get("role") == "sink" and self.sink is None:
                    self.sink = node
                if d.get("role") == "source" and self.source is None:
                    self.source = node
        nodes = [n for n in (self.sink, self.source) if n]
        for docs in (self.probe, self.base, self.memory):
            nodes += [n for n in docs if n not in nodes]
        self.nodes = nodes
        self.rungs = []
        self.together = {}  # node: (GB/s, ceiling) of its drives together
        self.upper = upper.Upper(run_dir, rung)
        if self.source is None:
            self.source = self.upper.source
        if self.sink is None:
            self.sink = self.upper.sink
        self.nodes += [n for n in (self.sink, self.source) if n and n not in self.nodes]

    # -- rungs ---------------------------------------------------------------
    def link_rungs(self, node):
        nvme = [d for d in probe_devices(self.probe.get(node)) if d.get("kind") == "nvme"]
        if not nvme:
            return
        usable = [as_number(dig(d, "ceiling_gb_per_s", "usable")) for d in nvme]
        summed = capped_sum([(u, d) for u, d in zip(usable, nvme) if u])
        total = summed.capped if any(usable) else None
        links = sorted({gen_name(*link_of(d)) or "?" for d in nvme})
        # a ceiling, not a measurement: nothing in the measured column
        self.rungs.append(rung("link", node, None, total, kind="link", devices=len(nvme), links=links,
                               shared_hops=summed.caps,
                               note="the drives' PCIe links as trained (usable GB/s, summed, "
                                    "capped by the links they share): a ceiling, nothing measured"))

    def memory_rungs(self, node):
        """The staging memory of NODE (nvme_read_bw --memory): its DRAM traffic
        (each staged byte written once, read once) against the memory's ceiling;
        of several NUMA nodes the slowest."""
        d = self.memory.get(node) or {}
        rows = [m for m in dicts(d.get("memory")) if as_number(m.get("dram_gb_per_s")) is not None]
        if not rows:
            return
        m = min(rows, key=lambda m: m["dram_gb_per_s"])
        # the drives together already wrote this much into the node's DRAM: a
        # stream below it was held back by its CPU (an emulated one), not by DRAM
        wrote = self.together.get(node, (None, None))[0]
        self.rungs.append(rung("staging memory", node, m["dram_gb_per_s"], m.get("ceiling_gb_per_s"),
                               below_drives=wrote is not None and m["dram_gb_per_s"] < wrote,
                               drives_wrote_gb_per_s=wrote,
                               kind="memory", failed=d.get("ok") is False,
                               staged_gb_per_s=as_number(m.get("staged_gb_per_s")),
                               numa_node=m.get("numa_node"), threads=m.get("threads"),
                               buffer_bytes=m.get("buffer_bytes"),
                               ceiling_source=m.get("ceiling_source"),
                               note="DRAM traffic: each staged byte written once and read once"))

    def memory_need(self, node):
        """(GB/s of DRAM the path needs of NODE's staging memory, its words): the
        source's bytes are written by its drives and read by its NIC, twice what
        the narrower of its drives and the fabric carry; the sink's are written
        once (its drives' and the RDMA's), the rungs below end to end."""
        if node == self.source:
            fab = self.held_fabric()
            cands = [v for v in (self.together.get(node, (None, None))[0],
                                 fab["measured_gb_per_s"] if fab else None) if v is not None]
            return (2 * min(cands), "2 x %s" % fig(min(cands))) if cands else (None, None)
        e2e = self.rung_of("end to end", node)
        if node == self.sink and e2e and e2e["ceiling_gb_per_s"] is not None:
            return e2e["ceiling_gb_per_s"], fig(e2e["ceiling_gb_per_s"])
        return None, None

    def staging_hop(self):
        """What the hop through the source's DRAM costs: each byte written once by
        a drive and read once by the NIC, 2 GB/s of DRAM traffic per GB/s moved (at
        the narrower of its drives together and the fabric), and whether p2pdma
        could remove it: the drives the source's probe (--topology) finds able to
        reach their nearest ACTIVE RDMA device peer-to-peer."""
        node = self.source
        if node is None:
            return None
        need = self.memory_need(node)[0]
        hop = {"node": node, "dram_gb_per_gb": 2, "moved_gb_per_s": need / 2 if need else None,
               "dram_gb_per_s": need, "drives": None, "p2p_drives": None}
        topo = (self.probe.get(node) or {}).get("topology")
        if isinstance(topo, dict):
            pairs = {frozenset((p.get("a"), p.get("b"))): p["p2p"]
                     for p in dicts(topo.get("pairs")) if isinstance(p.get("p2p"), dict)}
            near = dicts(topo.get("nearest_rdma"))
            hop["drives"] = len(near)
            hop["p2p_drives"] = sum(1 for x in near if x.get("rdma") and
                                    pairs.get(frozenset((x.get("name"), x.get("rdma"))), {}).get("can"))
        return hop

    def memory_binding(self):
        """Memory binds where the path needs NEAR % or more of what the node's
        staging memory carried."""
        for node in (self.source, self.sink):
            r = self.rung_of("staging memory", node)
            if not holds(r) or not r["measured_gb_per_s"] or r.get("below_drives"):
                continue
            need, words = self.memory_need(node)
            if need is not None and need >= r["measured_gb_per_s"] * NEAR / 100:
                return {"rung": "memory", "at": r, "need_gb_per_s": need,
                        "reason": "memory binds: staging DRAM on %s %s GB/s measured (each byte "
                                  "written once and read once), the path needs %s" %
                                  (node, fig(r["measured_gb_per_s"]), words)}
        return None

    def drive_gen(self, node, bdf):
        for d in probe_devices(self.probe.get(node)):
            if bdf and d.get("bdf") == bdf:
                return gen_name(*link_of(d))
        return None

    def drive_rungs(self, node):
        d = self.base.get(node)
        if not d:
            return
        drives = {x.get("name"): x for x in dicts(d.get("drives"))
                  if isinstance(x.get("name"), str)}
        steps = dicts(d.get("baseline"))
        known = True
        for s in steps[:-1] if len(steps) > 1 else []:
            name = str(s.get("label", "?")).replace(" alone", "")
            x = drives.get(name, {})
            c = as_number(x.get("link_ceiling_gb_per_s"))
            self.rungs.append(rung("drive %s" % name, node, s.get("gb_per_s"), c, kind="drive",
                                   link=self.drive_gen(node, x.get("pci_address"))))
        for x in dicts(d.get("drives")):
            c = as_number(x.get("link_ceiling_gb_per_s"))
            known = known and c is not None
        shared = self.together_ceiling(node, dicts(d.get("drives")))
        if steps:
            last = steps[-1]
            meas = last.get("gb_per_s")
        else:
            meas = dig(d, "total", "gb_per_s")
        ceil = shared.capped if known and dicts(d.get("drives")) else None
        name = "drives together" if len(dicts(d.get("drives"))) > 1 else "drive %s" % (
            (dicts(d.get("drives")) or [{}])[0].get("name", "?"))
        self.rungs.append(rung(name, node, meas, ceil, dig(d, "total", "cpu_s_per_gib"),
                               kind="drives" if name == "drives together" else "drive",
                               shared_hops=shared.caps, links_summed_gb_per_s=shared.summed))
        self.together[node] = (as_number(meas), ceil)

    def together_ceiling(self, node, drives):
        """The drives' link ceilings summed, each link the drives share (from
        the probe's path of each drive) holding the drives behind it to what
        it carries (pcipath.capped_sum)."""
        devs = {str(p.get("bdf")).lower(): p for p in probe_devices(self.probe.get(node))}
        return capped_sum([(as_number(x.get("link_ceiling_gb_per_s")),
                            devs.get(str(x.get("pci_address")).lower()))
                           for x in drives if isinstance(x, dict)])

    def fabric_ceiling(self, node, d):
        """min(the rails' line rate, the NIC's PCIe ceiling), and each of them."""
        rails = dicts(d.get("rails"))
        lines = [as_number(r.get("line_rate_gb_per_s")) for r in rails]
        line = sum(lines) if rails and all(lines) else None
        devs = {r.get("local_dev") for r in rails if isinstance(r.get("local_dev"), str)}
        pcie = None
        for p in probe_devices(self.probe.get(node)):
            if p.get("kind") == "rdma" and p.get("name") in devs:
                v = as_number(dig(p, "network", "pcie_gb_per_s"))
                if v:
                    pcie = (pcie or 0) + v
        cands = [v for v in (line, pcie) if v]
        return (min(cands) if cands else None), line, pcie

    def fabric_rungs(self):
        for node in (self.source, self.sink):
            d = self.fabric.get(node) if node else None
            if not d:
                continue
            ceil, line, pcie = self.fabric_ceiling(node, d)
            ports = len(dicts(d.get("rails")))
            self.rungs.append(rung("fabric (mem)", node, dig(d, "rdma", "gb_per_s"), ceil,
                                   dig(d, "total", "cpu_s_per_gib"), kind="fabric",
                                   role=d.get("role") if isinstance(d.get("role"), str) else None,
                                   failed=d.get("ok") is False,
                                   line_rate_gb_per_s=line, nic_pcie_gb_per_s=pcie,
                                   ports=ports))
        if self.source in self.ib:
            fab = self.rung_of("fabric (mem)", self.source)
            self.rungs.append(rung("ib_write_bw", self.source, self.ib[self.source],
                                   fab["ceiling_gb_per_s"] if fab else None, kind="fabric"))

    def rung_of(self, name, node):
        for r in self.rungs:
            if r["name"] == name and r["node"] == node:
                return r
        return None

    def remote_path(self):
        """What the source's drives can send: min(its drives together, the fabric)."""
        src = self.together.get(self.source, (None, None))[0]
        fab = self.rung_of("fabric (mem)", self.source) or self.rung_of("fabric (mem)", self.sink)
        fab = fab["measured_gb_per_s"] if fab else None
        cands = [v for v in (src, fab) if v is not None]
        return min(cands) if cands else None

    def e2e_rungs(self):
        remote = self.remote_path()
        d = self.agg.get(self.source) if self.source else None
        if d:
            self.rungs.append(rung("end to end (sent)", self.source, dig(d, "rdma", "gb_per_s"),
                                   remote, dig(d, "total", "cpu_s_per_gib"), kind="end_to_end",
                                   failed=d.get("ok") is False))
        d = self.agg.get(self.sink) if self.sink else None
        if d:
            local = self.together.get(self.sink, (None, None))[0]
            ceil = None
            if dig(d, "local", "bytes") in (None, 0):
                local = 0.0
            if local is not None and remote is not None:
                ceil = local + remote
            self.rungs.append(rung("end to end", self.sink, dig(d, "total", "gb_per_s"), ceil,
                                   dig(d, "total", "cpu_s_per_gib"), kind="end_to_end",
                                   failed=d.get("ok") is False, local_gb_per_s=as_number(dig(d, "local", "gb_per_s")),
                                   rdma_gb_per_s=as_number(dig(d, "rdma", "gb_per_s"))))

    def build(self):
        for node in self.nodes:
            self.link_rungs(node)
            self.drive_rungs(node)
            self.memory_rungs(node)
        self.rungs += self.upper.tcp_rungs(self.source, self.tcp_ceiling())
        self.fabric_rungs()
        self.rungs += self.upper.nfs_rungs(self.source, self.rung_of("fabric (mem)", self.source),
                                           self.rung_of("tcp (1 stream)", self.source))
        self.rungs += self.upper.nfs_write_rungs(self.source, self.rung_of("fabric (mem)", self.source),
                                                 self.rung_of("tcp (1 stream)", self.source))
        self.rungs += xfer.rungs(self.dir, rung, self.source)
        self.e2e_rungs()
        self.rungs += transfer.rungs(self.dir, rung, self.source)  # the user's own (why.py)
        return self.rungs

    def tcp_ceiling(self):
        """TCP runs over the fabric's ports: their ceiling (line rate, NIC PCIe)."""
        d = self.fabric.get(self.source) if self.source else None
        return self.fabric_ceiling(self.source, d)[0] if d else None

    def attribution(self, bind):
        """The findings that explain the gap, hop by hop (attribute.py)."""
        docs = [(step, node, doc) for step, by in (("probe", self.probe), ("baseline", self.base),
                                                   ("memory", self.memory), ("fabric", self.fabric),
                                                   ("aggregate", self.agg))
                for node, doc in sorted(by.items())]
        return attribute.explain(docs, self.rungs, bind if bind.get("rung") == "memory" else None)

    # -- the binding rung ------------------------------------------------------
    def drive_evidence(self):
        alone = [r for r in self.rungs if r["name"].startswith("drive ") and r["pct_of_ceiling"]]
        if not alone:
            tog = [r for r in self.rungs if r["name"] == "drives together" and r["pct_of_ceiling"]]
            alone = tog
        if not alone:
            return None, None, None
        p = [r["pct_of_ceiling"] for r in alone]
        at = min(alone, key=lambda r: r["pct_of_ceiling"])
        gens = sorted({r.get("link") for r in alone if r.get("link")})
        ceil = "%s ceiling" % gens[0] if len(gens) == 1 else "link ceiling"
        lo, hi = min(p), max(p)
        if round(lo) == round(hi):
            text = "each drive at %.0f%% of its %s" % (lo, ceil)
        else:
            text = "the drives at %.0f-%.0f%% of their %s" % (lo, hi, ceil)
        return lo, text, at

    def fabric_evidence(self, carried):
        fab = self.rung_of("fabric (mem)", self.source) or self.rung_of("fabric (mem)", self.sink)
        if not fab:
            return "no fabric rung was measured"
        line, ports = fab.get("line_rate_gb_per_s"), fab.get("ports") or 1
        if carried is not None and line and above(carried, line):
            return ("the fabric carried %s GB/s, above its line rate (%s GB/s): the port is "
                    "emulated or its rate misreported" % (fig(carried), fig(line)))
        if carried is not None and line:
            return "the fabric carried %.0f%% of one port" % (carried / (line / ports) * 100)
        if carried is not None:
            return "the fabric carried %s GB/s (no known line rate: a software port)" % fig(carried)
        return "the fabric from memory reached %s GB/s" % fig(fab["measured_gb_per_s"] or 0)

    def binding(self):
        """The category, the rung (its name and node as in rungs), the reason,
        and the rungs kept out of the verdict for being above their ceiling."""
        b = self.binding_reason()
        r = b.pop("at", None)
        b["name"], b["node"] = (r["name"], r["node"]) if r else (None, None)
        b["excluded"] = [{"name": x["name"], "node": x["node"], "reason": "above_ceiling",
                          "times_ceiling": round(x["measured_gb_per_s"] / x["ceiling_gb_per_s"], 3)}
                         for x in self.rungs if x.get("above_ceiling")]
        return b

    def held_fabric(self):
        """The fabric rung the verdict may use: the source's, else the sink's,
        whichever holds (is not above its ceiling)."""
        for node in (self.source, self.sink):
            r = self.rung_of("fabric (mem)", node)
            if holds(r):
                return r
        return None

    def binding_reason(self):
        if not any(r["kind"] in ("drive", "drives", "fabric", "end_to_end") for r in self.rungs):
            return {"rung": None, "reason": "no binding rung: the drives, the fabric and end to "
                    "end were not measured in this run"}
        mem = self.memory_binding()
        if mem:
            return mem
        src = self.together.get(self.source, (None, None))[0]
        fab = self.held_fabric()
        fmem = fab["measured_gb_per_s"] if fab else None
        e2e = self.rung_of("end to end", self.sink)
        sent = self.rung_of("end to end (sent)", self.source)
        carried = (e2e or {}).get("rdma_gb_per_s") or (sent or {}).get("measured_gb_per_s")
        if fmem is not None and src is not None and fmem < src * NEAR / 100:
            what = "fabric"
            fp = fab["pct_of_ceiling"]
            reason = ("the fabric binds: from memory it carried %s GB/s%s, %.0f%% of what %s's "
                      "drives read together (%s GB/s); end to end the remote part arrived at "
                      "%s" % (fig(fmem), " (%.0f%% of its ceiling)" % fp if fp is not None
                              else " (no known line rate)", fmem / src * 100, self.source, fig(src),
                              "%s GB/s" % fig(carried) if carried is not None else "(not measured)"))
            return {"rung": what, "at": fab, "reason": reason}
        if e2e and e2e["pct_of_ceiling"] is not None and e2e["pct_of_ceiling"] < NEAR:
            return {"rung": "end to end", "at": e2e,
                    "reason": "end to end binds: %s GB/s is %.0f%% of the rungs below (%s "
                              "GB/s): the sink's host (DRAM, CPU, NIC placement) limits" %
                              (fig(e2e["measured_gb_per_s"]), e2e["pct_of_ceiling"],
                               fig(e2e["ceiling_gb_per_s"]))}
        lo, ev, at = self.drive_evidence()
        fabtext = self.fabric_evidence(carried)
        if lo is not None and lo >= NEAR:
            return {"rung": "drive links", "at": at,
                    "reason": "the drives' PCIe links bind: %s; %s" % (ev, fabtext)}
        if lo is not None:
            return {"rung": "drives", "at": at,
                    "reason": "the drives bind below their links (the drive or the host "
                              "limits): %s; %s" % (ev, fabtext)}
        tog = self.rung_of("drives together", self.source)
        if not holds(tog):
            tog = next((r for r in self.rungs if r["kind"] in ("drive", "drives") and holds(r)),
                       None)
        if tog is None:
            return {"rung": None, "reason": "no binding rung among the figures that hold: the "
                    "drives read above their link ceilings; %s" % fabtext}
        return {"rung": "drives", "at": tog,
                "reason": "the drives bind (no link ceiling known); %s" % fabtext}


def holds(r):
    """A rung that exists and whose figure is not above its own ceiling."""
    return r is not None and not r.get("above_ceiling")
