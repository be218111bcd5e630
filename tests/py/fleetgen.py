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
  second_model  nodes whose drives are another model, 0.6 x as fast (a kind of its own)
The sweep is written as nbw-fleet run writes it (nbw.fleet.sweepdir); then the isolate
phase's retests, chosen by nbw.fleet.judge.retests_wanted as the run chooses them.
"""

import json
import os
import random

from nbw.fleet.judge import retests_wanted
from nbw.fleet.plan import Plan, remote_rounds
from nbw.fleet.sweepdir import read_sweep

DRIVE_GBPS = 3.57
LINK_CEILING = 3.6
RAIL_GBPS = 48.5
LINE_RATE = 50.0


class Fleet:
    def __init__(self, n=512, rails=8, drives=8, pairs=4, seed=1, **faults):
        self.n, self.rails, self.drives = n, rails, drives
        self.names = ["node%03d" % i for i in range(n)]
        self.plan = Plan(n, pairs, seed=seed, names=self.names)
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
        self.second_model = set(faults.get("second_model", []))
        self.hot_drives = set(faults.get("hot_drives", []))  # throttled in their window
        self.pairs = seed, pairs

    def noise(self):
        return 1 + self.rng.uniform(-0.02, 0.02)

    def drive_gbps(self, node, i, retest):
        f = self.slow_drives.get((node, i), 1.0)
        if not retest:
            f *= self.unsteady_drives.get((node, i), 1.0)
        if (node, i) in self.downgraded:
            f *= 0.5
        if node in self.second_model:
            f *= 0.6
        return DRIVE_GBPS * f * self.noise()

    def model(self, node):
        return "ACME NVMe 2" if node in self.second_model else "ACME NVMe 3"

    def rail_gbps(self, src, dst, rail, retest):
        f = self.slow_rails.get((src, rail), 1.0) * self.slow_rails.get((dst, rail), 1.0)
        f *= self.slow_egress.get((src, rail), 1.0)
        f *= self.bad_links.get((src, dst, rail), 1.0)
        if not retest:
            f *= self.unsteady_rails.get((src, rail), 1.0)
            f *= self.unsteady_rails.get((dst, rail), 1.0)
        return RAIL_GBPS * f * self.noise()

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
            devs.append({"name": "mlx5_%d" % r, "kind": "rdma",
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

    def remote_doc(self, gbps, src_dev, dst_dev, line_rate):
        return {"tool": "nvme_write_bw_remote", "version": "0.1.0", "role": "sink",
                "rdma": {"gb_per_s": gbps},
                "rails": [{"local_dev": dst_dev, "local_port": 1, "remote_dev": src_dev,
                           "remote_port": 1, "gb_per_s": gbps,
                           "line_rate_gb_per_s": line_rate}]}

    # --- the directory ----------------------------------------------------------

    def write(self, top):
        w = _Writer(top)
        seed, pairs = self.pairs
        w.json("sweep.json", {"tool": "nbw-fleet", "format": 1, "suite_version": "0.1.0",
                              "nodes": self.names, "rails": self.rails, "drives": self.drives,
                              "pairs": pairs, "seed": seed,
                              "rail_devs": ["mlx5_%d" % r for r in range(self.rails)],
                              "skipped": [], "state": "done"})
        together = {}
        for node in self.names:
            w.json("nodes/%s/probe.json" % node, self.probe_doc(node))
            doc = self.read_doc(node)
            together[node] = doc["total"]["gb_per_s"]
            w.json("nodes/%s/read.json" % node, doc)
        for r in range(self.plan.rounds):
            for a, b in self.plan.round(r)[0]:
                a, b = self.names[a], self.names[b]
                for rail in range(self.rails):
                    for s, d in ((a, b), (b, a)):
                        self.write_fabric(w, "fabric", s, d, rail, False)
        for rnd in remote_rounds(self.plan):
            for s, d in rnd:
                s, d = self.names[s], self.names[d]
                self.write_remote(w, "remote", s, d, together[s])
        want = retests_wanted(read_sweep(top), seed=seed)
        for node in want["drives"]:
            w.json("isolate/nodes/%s/read.json" % node, self.read_doc(node, retest=True))
        for s, d, rail in want["fabric"]:
            self.write_fabric(w, "isolate/fabric", s, d, rail, True)
        for s, d in want["remote"]:
            self.write_remote(w, "isolate/remote", s, d, together[s])
        return want

    def write_fabric(self, w, base, s, d, rail, retest):
        g = self.rail_gbps(s, d, rail, retest)
        dev = "mlx5_%d" % rail
        w.json("%s/%s/%s.rail%d.json" % (base, s, d, rail), self.remote_doc(g, dev, dev, LINE_RATE))

    def write_remote(self, w, base, s, d, local):
        f = self.slow_remote.get(s, 1.0) * self.slow_remote.get(d, 1.0)
        sends = sum(RAIL_GBPS * self.slow_egress.get((s, r), 1.0) for r in range(self.rails))
        w.json("%s/%s/%s.json" % (base, s, d), self.remote_doc(
            min(local * 0.98, sends) * f * self.noise(), "mlx5_0", "mlx5_0", LINE_RATE))


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
