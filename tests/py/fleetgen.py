"""fleetgen: generated sweep directories for the judge's tests, with faults planted.

A fleet of N nodes, R rails (400G InfiniBand, 50 GB/s line rate, 48.5 measured) and D
Gen3 x4 drives (3.57 GB/s each) per node, every figure within +-2% (seeded). Faults:
  slow_drives   [(node, drive index, factor)]
  slow_rails    [(node, rail, factor)]: every transfer through that port, both ways
  bad_links     [(a, b, rail, factor)]: only transfers between a and b on that rail
  unsteady_rails [(node, rail, factor)]: low in the sweep, normal when measured again
  unsteady_drives [(node, drive index, factor)]
  downgraded    [(node, drive index)]: the probe says trained at x2 of x4 (and the
                drive reads at half)
  slow_together [(node, factor)]: each drive alone normal, all together low (a shared
                limit of the node)
  slow_remote   [(node, factor)]: its drives -> a partner's DRAM low, both ways
  slow_egress   [(node, rail, factor)]: what that port sends only (a shaper on it); its
                drives -> a partner's DRAM capped at what its rails send
  shared_upstream [(node, [rails], factor)]: those rails low while every rail runs,
                normal each alone (a PCIe switch or root port they share)
  drive_figures {(node, drive index): (screening GB/s, retest GB/s)}: exact figures
  second_model  nodes whose drives are another model, 0.6 x as fast (a kind of its own)
  dead          nodes that answer nothing: no file of theirs, their pairs not measured
                (named in sweep.json's failed, as nbw-fleet run names them)
  racks         {node: rack}: the hostfile's rack= (its leaf on every rail), kept in
                sweep.json's topology (and groups); the plan gets the topology's rounds
  bad_uplinks   [(leaf, rail, factor)]: transfers crossing that leaf's uplink on that
                rail (one end under it, the other under another leaf), the quarter of
                them ECMP hashes onto it (crc32 of the pair and rail, mod 4 == 0)
  uniform       (drive factor, rail factor): every drive and every transfer of the
                fleet that much (a delivery slow across the board)
  liars         nodes whose own documents claim 999 GB/s on every rail they receive
                and send (above the 50 GB/s line rate)
  counters      True: each sink report carries its ports' counters, as the tool's do
                (the documents of a real run's size; off, the judge's keys alone)
The sweep is written as nbw-fleet run writes it (nbw.fleet.sweepdir, format 2: a pair's
run measures every rail and both directions at once, --bidir, each node's document
beside the other's); then the isolate phase's retests, chosen by
nbw.fleet.judge_retest.retests_wanted as the run chooses them.
"""

import json
import os
import random
import zlib

from nbw.fleet import topology
from nbw.fleet.judge_retest import retests_wanted
from nbw.fleet.plan import Plan, remote_rounds
from nbw.fleet.sweepdir import read_sweep

DRIVE_GBPS = 3.57
LINK_CEILING = 3.6
RAIL_GBPS = 48.5
LINE_RATE = 50.0
# The ports' counters as nvme_write_bw_remote reports them (mlx5: every one kept).
PMA = ("link_downed", "link_error_recovery", "port_rcv_data", "port_rcv_errors",
       "port_rcv_packets", "port_xmit_data", "port_xmit_packets", "port_xmit_wait",
       "symbol_error")
HW = ("local_ack_timeout_err", "np_cnp_sent", "np_ecn_marked_roce_packets", "out_of_buffer",
      "out_of_sequence", "packet_seq_err", "rcvd_pkts", "rnr_nak_retry_err",
      "roce_adp_retrans", "rp_cnp_handled", "sent_pkts")


class Fleet:
    def __init__(self, n=512, rails=8, drives=8, pairs=4, seed=1, **faults):
        self.n, self.rails, self.drives = n, rails, drives
        self.names = faults.get("names") or ["node%03d" % i for i in range(n)]
        self.racks = dict(faults.get("racks", {}))
        self.topology = {"source": "hostfile fleetgen",
                         "ports": {x: {"*": r} for x, r in self.racks.items()}} \
            if self.racks else None
        self.plan = topology.apply(Plan(n, pairs, seed=seed, names=self.names),
                                   topology.Topology.from_doc(self.topology), rails)
        self.bad_uplinks = {(lf, r): f for lf, r, f in faults.get("bad_uplinks", [])}
        self.rng = random.Random(seed)
        self.slow_drives = {(a, i): f for a, i, f in faults.get("slow_drives", [])}
        self.slow_rails = {(a, r): f for a, r, f in faults.get("slow_rails", [])}
        self.bad_links = {}
        for a, b, r, f in faults.get("bad_links", []):
            self.bad_links[(a, b, r)] = self.bad_links[(b, a, r)] = f
        self.unsteady_rails = {(a, r): f for a, r, f in faults.get("unsteady_rails", [])}
        self.unsteady_drives = {(a, i): f for a, i, f in faults.get("unsteady_drives", [])}
        self.downgraded = set(faults.get("downgraded", []))
        self.slow_together = dict(faults.get("slow_together", []))
        self.slow_remote = dict(faults.get("slow_remote", []))
        self.slow_egress = {(a, r): f for a, r, f in faults.get("slow_egress", [])}
        self.shared = {}
        for a, rails_, f in faults.get("shared_upstream", []):
            for r in rails_:
                self.shared[(a, r)] = f
        self.drive_figures = dict(faults.get("drive_figures", {}))
        self.second_model = set(faults.get("second_model", []))
        self.hot_drives = set(faults.get("hot_drives", []))  # throttled in their window
        self.dead = set(faults.get("dead", []))
        self.counters = bool(faults.get("counters", False))
        self.uniform = tuple(faults.get("uniform", (1.0, 1.0)))
        self.liars = set(faults.get("liars", []))
        self.pairs = seed, pairs
        self.failed = []

    def noise(self):
        return 1 + self.rng.uniform(-0.02, 0.02)

    def drive_gbps(self, node, i, retest):
        if (node, i) in self.drive_figures:
            return self.drive_figures[(node, i)][1 if retest else 0]
        f = self.slow_drives.get((node, i), 1.0)
        if not retest:
            f *= self.unsteady_drives.get((node, i), 1.0)
        if (node, i) in self.downgraded:
            f *= 0.5
        if node in self.second_model:
            f *= 0.6
        return DRIVE_GBPS * f * self.uniform[0] * self.noise()

    def model(self, node):
        return "ACME NVMe 2" if node in self.second_model else "ACME NVMe 3"

    def rail_gbps(self, src, dst, rail, retest, alone=False):
        f = self.slow_rails.get((src, rail), 1.0) * self.slow_rails.get((dst, rail), 1.0)
        f *= self.slow_egress.get((src, rail), 1.0)
        f *= self.bad_links.get((src, dst, rail), 1.0)
        f *= self.uplink_factor(src, dst, rail)
        if not alone:
            f *= self.shared.get((src, rail), 1.0) * self.shared.get((dst, rail), 1.0)
        if not retest:
            f *= self.unsteady_rails.get((src, rail), 1.0)
            f *= self.unsteady_rails.get((dst, rail), 1.0)
        return RAIL_GBPS * f * self.uniform[1] * self.noise()

    def uplink_factor(self, a, b, rail):
        la, lb = self.racks.get(a), self.racks.get(b)
        if la is None or lb is None or la == lb:
            return 1.0
        f = self.bad_uplinks.get((la, rail), 1.0) * self.bad_uplinks.get((lb, rail), 1.0)
        if f != 1.0 and zlib.crc32(("%s|%s|%d" % (min(a, b), max(a, b), rail)).encode()) % 4:
            return 1.0  # hashed onto another uplink
        return f

    # --- the documents ----------------------------------------------------------

    def probe_doc(self, node):
        devs = []
        for i in range(self.drives):
            down = (node, i) in self.downgraded
            devs.append({"name": "nvme%d" % i, "kind": "nvme", "bdf": "0000:%02x:00.0" % (i + 1),
                         "model": self.model(node),
                         "link": {"speed_gts": 8.0, "width": 2 if down else 4,
                                  "max_speed_gts": 8.0, "max_width": 4},
                         "verdict": "downgraded" if down else "ok",
                         "limited_by": "training" if down else "none",
                         "bottleneck_bdf": "0000:%02x:00.0" % (i + 1),
                         "reason": "trained x2, both ends x4" if down else ""})
        for r in range(self.rails):
            devs.append({"name": "mlx5_%d" % r, "kind": "rdma", "model": "ConnectX-7",
                         "bdf": "0000:%02x:00.0" % (0x40 + r),
                         "link": {"speed_gts": 32.0, "width": 16, "max_speed_gts": 32.0,
                                  "max_width": 16},
                         "verdict": "ok", "limited_by": "none",
                         "network": {"rate": "400 Gb/sec (4X NDR)", "link_layer": "InfiniBand",
                                     "gb_per_s": LINE_RATE}})
        return {"tool": "nvme_link_probe", "version": "0.1.0", "devices": devs}

    def health(self, node, i):
        """A drive's health log around its window (nvme_read_bw's "health", cut)."""
        if (node, i) not in self.hot_drives:
            return {"log_read": True, "why": None, "findings": []}
        return {"log_read": True, "why": None, "findings": ["throttled", "hot"],
                "warning_temp_c": 75, "after": {"temperature_c": 81, "warnings": []},
                "deltas": {"tmt1_transitions": 3, "tmt1_seconds": 12, "tmt2_transitions": 0,
                           "tmt2_seconds": 0, "warning_temp_minutes": 1, "media_errors": 0}}

    def read_doc(self, node, retest=False):
        solos = [self.drive_gbps(node, i, retest) for i in range(self.drives)]
        drives = [{"path": "/dev/nvme%dn1" % i, "name": "nvme%dn1" % i, "model": self.model(node),
                   "pci_address": "0000:%02x:00.0" % (i + 1), "gb_per_s": s * 0.99,
                   "link_ceiling_gb_per_s": LINK_CEILING / (2 if (node, i) in self.downgraded
                                                            else 1),
                   "health": self.health(node, i)}
                  for i, s in enumerate(solos)]
        base = [{"label": "nvme%dn1 alone" % i, "drives": 1, "gb_per_s": s}
                for i, s in enumerate(solos)]
        total = sum(solos) * 0.99 * self.noise() * self.slow_together.get(node, 1.0)
        base.append({"label": "%d together" % self.drives, "drives": self.drives,
                     "gb_per_s": total})
        return {"tool": "nvme_read_bw", "version": "0.1.0", "drives": drives,
                "baseline": base, "total": {"gb_per_s": total}}

    def ports(self, rows):
        """The receiving ports' counters, a PMA and hw_counters object per rail."""
        out = []
        for row in rows:
            pkts = int(row["gb_per_s"] * 1e9 / 4096)
            pma = {k: 0 for k in PMA}
            pma.update(port_rcv_packets=pkts, port_rcv_data=pkts * 1024,
                       port_xmit_packets=pkts // 64)
            hw = {k: 0 for k in HW}
            hw.update(rcvd_pkts=pkts, sent_pkts=pkts // 64)
            out.append({"device": row["local_dev"], "port": 1, "seconds": 5.00213,
                        "truncated": False, "counters": pma, "hw_counters": hw,
                        "saturated": [], "wrapped": []})
        return out

    def report(self, role, peer, rows, total=None):
        """A role's report: its rows (gb_per_s, devices) and their sum."""
        gbps = sum(r["gb_per_s"] for r in rows) if total is None else total
        rep = {"role": role, "peer": peer, "rdma": {"bytes": int(gbps * 5e9), "seconds": 5.0,
                                                    "gb_per_s": gbps},
               "rails": [dict(r, local_port=1, remote_port=1, qps=4, bytes=int(r["gb_per_s"] * 5e9),
                              line_rate_gb_per_s=LINE_RATE,
                              percent_of_line_rate=100 * r["gb_per_s"] / LINE_RATE)
                         for r in rows], "verify": "pass", "ok": True, "error": None}
        if self.counters and role == "sink":
            rep["counters"] = self.ports(rows)
        return rep

    def bidir_doc(self, owner, peer, recv_rows, send_rows, recv_total=None, send_total=None):
        rec = self.report("sink", peer, recv_rows, recv_total)
        snd = self.report("source", peer, send_rows, send_total)
        return {"tool": "nvme_write_bw_remote", "version": "0.1.0", "role": "bidir",
                "receive": rec, "send": snd,
                "bidir": {"peer": peer, "send_gb_per_s": snd["rdma"]["gb_per_s"],
                          "receive_gb_per_s": rec["rdma"]["gb_per_s"],
                          "sum_gb_per_s": snd["rdma"]["gb_per_s"] + rec["rdma"]["gb_per_s"],
                          "overlap_pct": 99.0, "sum_valid": True, "sum_invalid_reason": None},
                "exit_status": 0}

    # --- the directory ----------------------------------------------------------

    def write(self, top):
        w = _Writer(top)
        seed, pairs = self.pairs
        meta = {"tool": "nbw-fleet", "format": 2, "suite_version": "0.1.0",
                "nodes": self.names, "rails": self.rails, "drives": self.drives,
                "pairs": pairs, "seed": seed,
                "rail_devs": ["mlx5_%d" % r for r in range(self.rails)],
                "remote": self.drives > 0, "skipped": [], "failed": self.failed,
                "state": "done", "groups": self.racks, "topology": self.topology}
        w.json("sweep.json", meta)
        together = {}
        for node in self.names:
            if node in self.dead:
                for part in ("probe", "read"):
                    self.failed.append({"part": "nodes/%s/%s.json" % (node, part),
                                        "node": node, "reason": "unreachable: ssh: connect "
                                        "to host %s port 22: No route to host" % node})
                continue
            w.json("nodes/%s/probe.json" % node, self.probe_doc(node))
            doc = self.read_doc(node)
            together[node] = doc["total"]["gb_per_s"]
            w.json("nodes/%s/read.json" % node, doc)
        for r in range(self.plan.rounds):
            for a, b in self.plan.round(r)[0]:
                self.write_fabric(w, "fabric", self.names[a], self.names[b], False)
        if self.drives:
            for rnd in remote_rounds(self.plan):
                for a, b in rnd:
                    self.write_remote(w, "remote", self.names[a], self.names[b], together)
        want = retests_wanted(read_sweep(top), seed=seed)
        for node in want["drives"]:
            w.json("isolate/nodes/%s/read.json" % node, self.read_doc(node, retest=True))
        for a, b in want["fabric"]:
            self.write_fabric(w, "isolate/fabric", a, b, True)
        for a, b, rail in want["alone"]:
            self.write_fabric(w, "isolate/alone", a, b, True, rail)
        for a, b in want["remote"]:
            self.write_remote(w, "isolate/remote", a, b, together)
        if self.failed:
            w.json("sweep.json", meta)
        return want

    def rows(self, src, dst, rails, retest, alone):
        return [{"local_dev": "mlx5_%d" % r, "remote_dev": "mlx5_%d" % r,
                 "gb_per_s": self.rail_gbps(src, dst, r, retest, alone)} for r in rails]

    def pair_failed(self, base, a, b, rel):
        dead = a if a in self.dead else b
        for x, y in ((a, b), (b, a)):
            self.failed.append({"part": "%s/%s/%s" % (base, x, rel(y)), "node": dead,
                                "reason": "unreachable: ssh: connect to host %s port 22: No "
                                "route to host" % dead if x == dead else
                                "its partner %s did not answer" % dead})

    def write_fabric(self, w, base, a, b, retest, rail=None):
        name = (lambda y: "%s.rail%d.json" % (y, rail)) if rail is not None else \
            (lambda y: "%s.json" % y)
        if a in self.dead or b in self.dead:
            self.pair_failed(base, a, b, name)
            return
        rails = [rail] if rail is not None else list(range(self.rails))
        alone = rail is not None and self.rails > 1
        ab = self.rows(a, b, rails, retest, alone)
        ba = self.rows(b, a, rails, retest, alone)
        for x, y, recv, send in ((a, b, ba, ab), (b, a, ab, ba)):
            if x in self.liars:  # its own document: 999 GB/s each way
                recv = [dict(r, gb_per_s=999.0) for r in recv]
                send = [dict(r, gb_per_s=999.0) for r in send]
            w.json("%s/%s/%s" % (base, x, name(y)), self.bidir_doc(x, y, recv, send))

    def remote_gbps(self, s, d, together):
        f = self.slow_remote.get(s, 1.0) * self.slow_remote.get(d, 1.0)
        sends = sum(RAIL_GBPS * self.slow_egress.get((s, r), 1.0) for r in range(self.rails))
        return min(together[s] * 0.98, sends) * f * self.noise()

    def write_remote(self, w, base, a, b, together):
        if a in self.dead or b in self.dead:
            self.pair_failed(base, a, b, lambda y: "%s.json" % y)
            return
        ab, ba = self.remote_gbps(a, b, together), self.remote_gbps(b, a, together)
        row = [{"local_dev": "mlx5_0", "remote_dev": "mlx5_0", "gb_per_s": 0.0}]
        w.json("%s/%s/%s.json" % (base, a, b), self.bidir_doc(a, b, row, row, ba, ab))
        w.json("%s/%s/%s.json" % (base, b, a), self.bidir_doc(b, a, row, row, ab, ba))


class _Writer:
    def __init__(self, top):
        self.top = top
        self.made = set()

    def json(self, rel, doc):
        path = os.path.join(self.top, rel)
        d = os.path.dirname(path)
        if d not in self.made:
            os.makedirs(d, exist_ok=True)
            self.made.add(d)
        with open(path, "w") as f:
            f.write(json.dumps(doc))
