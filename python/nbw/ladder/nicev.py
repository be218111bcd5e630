"""The NIC's own evidence for the ladder's TCP rungs, from what
scripts/bench_tcp.sh saved in the run directory: nic-NODE.txt (the netdev that
carries the sink's address: NUMA node, MTU, link speed, ethtool IF, ethtool -a
and the PFC state, each section under a "--- " line), nic/TAG-NODE-before.txt
and -after.txt (ethtool -S around each rung), pmtu-NODE.txt (one 9000-byte
probe with don't-fragment) and nic/iperf3-version.txt. Counters a driver does
not have are named as missing, never guessed. Standard library only."""
import os
import re

# The counters read from ethtool -S, each from the first family of names the
# driver has: mlx5's *_phy (the port's own), its per-priority pause, then the
# generic names other drivers use.
COUNTERS = {
    "pause_rx": (("rx_pause_ctrl_phy",), r"^rx_prio[0-7]_pause$", ("rx_pause_frames", "rx_pause", "link_xoff_rx")),
    "pause_tx": (("tx_pause_ctrl_phy",), r"^tx_prio[0-7]_pause$", ("tx_pause_frames", "tx_pause", "link_xoff_tx")),
    "discards_rx": (("rx_discards_phy",), None, ("rx_discards", "rx_dropped")),
    "discards_tx": (("tx_discards_phy",), None, ("tx_discards", "tx_dropped")),
    "tx_pci_signal_integrity": (("tx_pci_signal_integrity",), None, ()),
}


def parse_stats(text):
    """{counter: int} of ethtool -S's "name: value" lines ({} for "no stats
    available" or an error)."""
    out = {}
    for line in (text or "").splitlines():
        m = re.match(r"^\s+([A-Za-z0-9_.\[\]-]+):\s+(-?[0-9]+)\s*$", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def pick(stats, family):
    """The value of one of COUNTERS' families in STATS: (value, names used),
    (None, ()) when the driver has none of them."""
    exact, pattern, generic = family
    for name in exact:
        if name in stats:
            return stats[name], (name,)
    if pattern:
        names = sorted(n for n in stats if re.match(pattern, n))
        if names:
            return sum(stats[n] for n in names), tuple(names)
    for name in generic:
        if name in stats:
            return stats[name], (name,)
    return None, ()


def stats_delta(before, after):
    """The change of each of COUNTERS over a rung, and "missing": the counters
    neither text has (a counter in only one of them is missing too)."""
    b, a = parse_stats(before), parse_stats(after)
    out, missing = {}, []
    for key, family in COUNTERS.items():
        vb, nb = pick(b, family)
        va, na = pick(a, family)
        if vb is None or va is None or nb != na:
            out[key] = None
            missing.append(key)
        else:
            out[key] = va - vb
    out["missing"] = missing
    return out


def sections(text):
    """{"": the key=value head, "ethtool": ..., "ethtool -a": ..., "pfc": ...}."""
    out, name = {"": []}, ""
    for line in (text or "").splitlines():
        if line.startswith("--- "):
            name = line[4:].strip()
            out[name] = []
        else:
            out.setdefault(name, []).append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def speed_mbps(ethtool_text, sys_speed):
    """The link speed in Mb/s: ethtool's "Speed: 200000Mb/s", else
    /sys/class/net/IF/speed; None when unknown (-1, "Unknown!")."""
    m = re.search(r"^\s*Speed:\s*([0-9]+)\s*Mb/s\s*$", ethtool_text or "", re.M)
    if m and int(m.group(1)) > 0:
        return int(m.group(1))
    s = (sys_speed or "").strip()
    return int(s) if s.isdigit() and int(s) > 0 else None


def parse_pause(text):
    """ethtool -a: {"autoneg", "rx", "tx"} as booleans, {} when not read."""
    out = {}
    for key, name in (("autoneg", "Autonegotiate"), ("rx", "RX"), ("tx", "TX")):
        m = re.search(r"^%s:\s*(on|off)\s*$" % name, text or "", re.M)
        if m:
            out[key] = m.group(1) == "on"
    return out


def parse_pfc(text):
    """The priorities with PFC on, from dcb pfc show ("prio-pfc 0:off 3:on") or
    mlnx_qos ("enabled  0 0 0 1 ..."); None when not read (absent tools)."""
    t = text or ""
    m = re.search(r"prio-pfc((?:\s+[0-7]:(?:on|off))+)", t)
    if m:
        return [int(p) for p, s in re.findall(r"([0-7]):(on|off)", m.group(1)) if s == "on"]
    m = re.search(r"^\s*enabled((?:\s+[01]){8})\s*$", t, re.M)
    if m:
        return [i for i, v in enumerate(m.group(1).split()) if v == "1"]
    return None


def parse_nic(text):
    """The fields of nic-NODE.txt: if, numa, mtu, speed_mbps, rdma, pause,
    pfc_on (priorities, None when not read), pfc_note, ethtool (whether it ran)."""
    sec = sections(text)
    head = dict(line.split("=", 1) for line in sec[""].splitlines() if "=" in line)
    num = lambda k: int(head[k]) if re.match(r"^-?[0-9]+$", head.get(k, "").strip()) else None
    et = sec.get("ethtool", "")
    return {"if": head.get("if") or None, "numa": num("numa"), "mtu": num("mtu"),
            "speed_mbps": speed_mbps(et, head.get("speed")), "rdma": head.get("rdma") or None,
            "ethtool": bool(et.strip()) and not et.strip().startswith("absent:"),
            "pause": parse_pause(sec.get("ethtool -a", "")), "pfc_on": parse_pfc(sec.get("pfc", "")),
            "pfc_note": sec.get("pfc", "").strip().splitlines()[0] if sec.get("pfc", "").strip() else None}


def parse_pmtu(text):
    """One probe of 9000 bytes with don't-fragment: "passed", "failed (mtu N)"
    (the sender's own MTU refused it), "failed (no reply)", None when not run."""
    m = re.search(r"^rc=([0-9]+)\s*$", text or "", re.M)
    if not m:
        return None
    if m.group(1) == "0":
        return "passed"
    mtu = re.search(r"mtu[ =]([0-9]+)", text)
    return "failed (mtu %s)" % mtu.group(1) if mtu else "failed (no reply)"


def lossy(nic):
    """For a RoCE port (an RDMA device on the netdev): "lossy RoCE fabric" when
    pause and PFC are both off, or a line saying what was not read; None for a
    port with no RDMA device or one that is lossless."""
    if not nic or not nic.get("rdma"):
        return None
    p = nic.get("pause") or {}
    pause_off = p.get("rx") is False and p.get("tx") is False
    pfc = nic.get("pfc_on")
    if pause_off and pfc == []:
        return "lossy RoCE fabric: pause and PFC are off on %s" % nic["if"]
    if pause_off and pfc is None:
        return ("lossy RoCE fabric unless PFC is on: pause is off on %s and its PFC state was not read (%s)"
                % (nic["if"], nic.get("pfc_note") or "dcb, mlnx_qos absent"))
    if not p:
        return "the pause state of %s was not read (ethtool -a)" % nic["if"]
    return None


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


class Evidence:
    """The NIC evidence of a run directory."""

    def __init__(self, run_dir):
        self.dir = run_dir
        self.nics = {}
        for name in sorted(os.listdir(run_dir)) if os.path.isdir(run_dir) else ():
            m = re.match(r"^nic-(.+)\.txt$", name)
            if m:
                self.nics[m.group(1)] = parse_nic(read(os.path.join(run_dir, name)))
        self.pmtu = {}
        for name in sorted(os.listdir(run_dir)) if os.path.isdir(run_dir) else ():
            m = re.match(r"^pmtu-(.+)\.txt$", name)
            if m:
                self.pmtu[m.group(1)] = parse_pmtu(read(os.path.join(run_dir, name)))
        v = read(os.path.join(run_dir, "nic", "iperf3-version.txt")) or ""
        m = re.match(r"^iperf3 ([0-9]{1,3}\.[0-9]{1,3})\s*$", v)
        self.iperf3 = m.group(1) if m else None

    def line_rate(self, nodes):
        """GB/s of the slower known link of NODES' netdevs, None when none known."""
        speeds = [self.nics[n]["speed_mbps"] for n in nodes if self.nics.get(n, {}).get("speed_mbps")]
        return min(speeds) / 8000.0 if speeds else None

    def deltas(self, tag, nodes):
        """{node: stats_delta} of ethtool -S around the rung TAG; a node whose
        counters were not read: {"missing": "not read"}; {} for a run from before
        the suite read them (no nic/ directory)."""
        out = {}
        if not os.path.isdir(os.path.join(self.dir, "nic")):
            return out
        for n in nodes:
            b = read(os.path.join(self.dir, "nic", "%s-%s-before.txt" % (tag, n)))
            a = read(os.path.join(self.dir, "nic", "%s-%s-after.txt" % (tag, n)))
            out[n] = stats_delta(b, a) if b is not None and a is not None else {"missing": "not read"}
        return out

    def extras(self, tag, nodes, measured):
        """The extras of a TCP rung: line rate, % of line, MTUs, the path-MTU
        probe, the counters' change on both ends."""
        line = self.line_rate(nodes)
        return {"line_rate_gb_per_s": line,
                "pct_of_line": measured / line * 100 if line and measured is not None else None,
                "mtu": {n: self.nics.get(n, {}).get("mtu") for n in nodes},
                "path_mtu_9000": next((self.pmtu[n] for n in nodes if n in self.pmtu), None),
                "nic_counters": self.deltas(tag, nodes)}

    def notes(self, nodes):
        """Sentences: MTU and path MTU, the link speed, pause/PFC on RoCE ports,
        the counters no driver gave."""
        out = []
        known = [n for n in nodes if n in self.nics]
        if not known:
            return out
        parts = []
        for n in known:
            nic = self.nics[n]
            sp = nic["speed_mbps"]
            parts.append("%s %s MTU %s, link %s" % (n, nic["if"] or "(netdev not found)",
                                                    nic["mtu"] if nic["mtu"] is not None else "unknown",
                                                    "%g Gb/s" % (sp / 1000.0) if sp else "speed unknown"))
        pm = next((self.pmtu[n] for n in nodes if n in self.pmtu), None)
        out.append("NIC: %s; path MTU probe of 9000 bytes: %s." % ("; ".join(parts), pm or "not run"))
        for n in known:
            why = lossy(self.nics[n])
            if why:
                out.append("NIC %s: %s." % (n, why))
        return out
