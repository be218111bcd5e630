"""The ladder's upper rungs: TCP from iperf3 -J (the client's documents on the
source: tcpN-NODE.json zero-copy, tcpcopyN- without -Z, tcprevN- reversed,
tcpfile- from a tmpfs file, each also as TAG.pK-NODE.json for the K-th of
parallel processes; tcp-sysctl-NODE.txt, the receiver's socket buffer limits;
the NIC evidence: nicev.py) and NFS from nvme_read_bw through the mounts
(nfs_rdma-NODE.json, nfs_tcp-NODE.json, nfs_PROTO_randD-NODE.json,
nfs-mounts-NODE.txt) and from fio or dd writing through them
(nfs_write_PROTO-NODE.txt). Makes their rungs, the notes that compare them
with the RDMA rungs, the socket buffer hint and the random 4 KiB table.
Standard library only."""
import glob
import json
import os
import re

from ..jsonutil import as_number, dicts, dig, gb_text, obj, read_json
from . import nicev

HINT_BELOW = 60.0  # % of N streams under which one stream gets the window hint
PROTOS = ("rdma", "tcp")


def size_text(n):
    for unit, div in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= div:
            return "%.1f %s" % (n / div, unit)
    return "%d bytes" % n


def iperf3_figures(doc):
    """The figures of an iperf3 -J client document, None when it has none:
    GB/s received, retransmits, the largest congestion window and the mean
    round trip over the streams, CPU seconds per GiB of both ends."""
    end = obj(dig(doc, "end"))
    rcv, snt = obj(end.get("sum_received")), obj(end.get("sum_sent"))
    bps, nbytes, secs = as_number(rcv.get("bits_per_second")), as_number(rcv.get("bytes")), as_number(rcv.get("seconds"))
    if not bps or not nbytes or not secs or dig(doc, "start", "connecting_to") is None:
        return None
    senders = [obj(x.get("sender")) for x in dicts(end.get("streams"))]
    cwnd = [as_number(x.get("max_snd_cwnd")) for x in senders if as_number(x.get("max_snd_cwnd"))]
    rtt = [as_number(x.get("mean_rtt")) for x in senders if as_number(x.get("mean_rtt"))]
    cpu = obj(end.get("cpu_utilization_percent"))
    gib = nbytes / 2 ** 30

    def per_gib(p):
        # iperf3's CPU % is the process's CPU time over the test's wall time.
        return as_number(p) / 100 * secs / gib if as_number(p) is not None else None
    return {"streams": as_number(dig(doc, "start", "test_start", "num_streams")) or len(senders),
            "gb_per_s": bps / 8e9, "retransmits": as_number(snt.get("retransmits")),
            "reverse": bool(dig(doc, "start", "test_start", "reverse")), "bytes": nbytes,
            "max_snd_cwnd_bytes": max(cwnd) if cwnd else None,
            "mean_rtt_us": sum(rtt) / len(rtt) if rtt else None,
            "sender_cpu_s_per_gib": per_gib(cpu.get("host_total")),
            "receiver_cpu_s_per_gib": per_gib(cpu.get("remote_total"))}


# The TCP rungs' variants: the file name's prefix (tcpcopy8-b.json), in the
# ladder's order.
VARIANTS = {"zc": "tcp", "copy": "tcpcopy", "rev": "tcprev", "file": "tcpfile"}
TCP_FILE = re.compile(r"^(tcp|tcpcopy|tcprev)([0-9]+)(?:\.p([0-9]+))?-(.+)\.json$|^tcpfile(?:\.p([0-9]+))?-(.+)\.json$")


def tcp_tag(variant, n):
    """The shell's tag of a rung (its files' prefix, the NIC counters' name)."""
    return VARIANTS[variant] + ("" if variant == "file" else str(n))


def tcp_name(variant, n):
    if variant == "file":
        return "tcp from file (sendfile)"
    streams = "%d stream%s" % (n, "" if n == 1 else "s")
    return {"zc": "tcp (%s)", "copy": "tcp copy (%s)", "rev": "tcp reverse (%s)"}[variant] % streams


def tcp_documents(run_dir):
    """{(variant, streams, node): [figures of each process]} of the clients'
    iperf3 -J documents (a server's document gives no figures)."""
    prefixes = {v: k for k, v in VARIANTS.items()}
    out = {}
    for path in sorted(glob.glob(os.path.join(run_dir, "tcp*-*.json"))):
        m = TCP_FILE.match(os.path.basename(path))
        f = iperf3_figures(read_json(path)) if m else None
        if not f:
            continue
        if m.group(1):
            key = (prefixes[m.group(1)], int(m.group(2)), m.group(4))
        else:
            key = ("file", 1, m.group(6))
        out.setdefault(key, []).append(f)
    return out


def combine(figs):
    """The figures of parallel iperf3 processes as one: rates, streams and
    retransmits summed, CPU per GiB over all bytes, the largest window, the
    mean round trip; "processes" how many there were. Reverse runs: the sender
    is the server (iperf3's remote), the receiver the client."""
    def total(key):
        vals = [f[key] for f in figs if f.get(key) is not None]
        return sum(vals) if len(vals) == len(figs) else None

    def cpu(key):
        vals = [(f[key], f["bytes"]) for f in figs if f.get(key) is not None and f.get("bytes")]
        gib = sum(b for _, b in vals)
        return sum(c * b for c, b in vals) / gib if vals and len(vals) == len(figs) else None
    rtt = [f["mean_rtt_us"] for f in figs if f.get("mean_rtt_us")]
    cwnd = [f["max_snd_cwnd_bytes"] for f in figs if f.get("max_snd_cwnd_bytes")]
    rev = any(f.get("reverse") for f in figs)
    snd, rcv = ("receiver_cpu_s_per_gib", "sender_cpu_s_per_gib") if rev else \
        ("sender_cpu_s_per_gib", "receiver_cpu_s_per_gib")
    return {"streams": total("streams"), "gb_per_s": total("gb_per_s"), "retransmits": total("retransmits"),
            "reverse": rev, "bytes": total("bytes"),
            "max_snd_cwnd_bytes": max(cwnd) if cwnd else None,
            "mean_rtt_us": sum(rtt) / len(rtt) if rtt else None,
            "sender_cpu_s_per_gib": cpu(snd), "receiver_cpu_s_per_gib": cpu(rcv), "processes": len(figs)}


def write_figures(text):
    """GB/s and CPU s/GiB of NFS writes: fio's --output-format=json (its jobs
    summed: bytes/s, CPU seconds over GiB written; block size and writers from
    its options), or dd's line "writer=dd bytes=B ns=T bs=BS jobs=J" (no CPU);
    None when neither."""
    t = text or ""
    m = re.search(r"^writer=dd bytes=([0-9]+) ns=([0-9]+)(?: bs=([0-9]+) jobs=([0-9]+))?\s*$", t, re.M)
    if m:
        b, ns = int(m.group(1)), int(m.group(2))
        num = lambda g: int(m.group(g)) if m.group(g) else None
        return {"writer": "dd", "gb_per_s": b / ns, "cpu_s_per_gib": None,
                "bs": num(3), "jobs": num(4)} if b and ns else None
    try:
        doc = json.loads(t[t.index("{"):])
    except ValueError:
        return None
    jobs = dicts(dig(doc, "jobs"))
    w = [obj(j.get("write")) for j in jobs]
    bw = [as_number(x.get("bw_bytes")) for x in w]
    if not jobs or None in bw or not sum(bw):
        return None
    io = sum(as_number(x.get("io_bytes")) or 0 for x in w)
    cpu_s = [((as_number(j.get("usr_cpu")) or 0) + (as_number(j.get("sys_cpu")) or 0)) / 100
             * (as_number(j.get("job_runtime")) or 0) / 1000 for j in jobs]
    opts = obj(dig(doc, "global options"))
    opts.update(obj(jobs[0].get("job options")))
    bs = str(opts.get("bs", ""))
    return {"writer": "fio", "gb_per_s": sum(bw) / 1e9,
            "cpu_s_per_gib": sum(cpu_s) / (io / 2 ** 30) if io and all("usr_cpu" in j for j in jobs) else None,
            "bs": int(bs) if bs.isdigit() else bs or None,
            "jobs": int(opts["numjobs"]) if str(opts.get("numjobs", "")).isdigit() else len(jobs)}


def read_sysctls(path):
    """{"rmem_max": bytes, "tcp_rmem_max": bytes} from lines "key = value"."""
    out = {}
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        key, _, val = line.partition("=")
        vals = val.split()
        if not vals or not all(v.isdigit() for v in vals):
            continue
        if key.strip() == "net.core.rmem_max":
            out["rmem_max"] = int(vals[0])
        elif key.strip() == "net.ipv4.tcp_rmem":
            out["tcp_rmem_max"] = int(vals[-1])
    return out


def mount_options(text, proto):
    """{option: value} of the mount on .../PROTO in nfsstat -m's output (or
    /proc/self/mountstats' "opts:" lines)."""
    pats = (r"^(\S*/%s) from \S+\s*\n\s*Flags:\s*(\S+)" % proto,
            r"mounted on (\S*/%s) with fstype nfs4?[^\n]*\n(?:.*\n)*?\s*opts:\s*(\S+)" % proto)
    for pat in pats:
        m = re.search(pat, text, re.M)
        if m:
            return dict((o.split("=", 1) + [True])[:2] for o in m.group(2).split(","))
    return {}


def read_figures(doc):
    """GB/s, CPU s/GiB, IOPS and latency percentiles of an nvme_read_bw document."""
    tot = obj(dig(doc, "total"))
    drv = (dicts(dig(doc, "drives")) or [{}])[0]
    lat = tot.get("latency_us") if isinstance(tot.get("latency_us"), dict) else drv.get("latency_us")
    iops = as_number(tot.get("iops"))
    return {"gb_per_s": as_number(tot.get("gb_per_s")), "cpu_s_per_gib": as_number(tot.get("cpu_s_per_gib")),
            "iops": iops if iops is not None else as_number(drv.get("iops")),
            "p50_us": as_number(dig(lat, "p50")), "p99_us": as_number(dig(lat, "p99"))}


class Upper:
    """The TCP and NFS results of a run directory."""

    def __init__(self, run_dir, rung):
        self.dir, self.rung = run_dir, rung
        self.tcp = {}  # (variant, streams): (client node, figures)
        self.source = self.sink = None
        for (variant, n, node), figs in tcp_documents(run_dir).items():
            self.tcp[(variant, n)] = (node, combine(figs))
            self.source = self.source or node
        self.nic = nicev.Evidence(run_dir)
        sysctl = sorted(glob.glob(os.path.join(run_dir, "tcp-sysctl-*.txt")))
        if sysctl:
            self.sink = os.path.basename(sysctl[0])[len("tcp-sysctl-"):-4]
            self.sysctls = read_sysctls(sysctl[0])
        self.nfs = {}  # (proto, depth or None): (node, figures)
        for path in sorted(glob.glob(os.path.join(run_dir, "nfs_*-*.json"))):
            m = re.match(r"^nfs_(rdma|tcp)(?:_rand([0-9]+))?-(.+)\.json$", os.path.basename(path))
            doc = read_json(path) if m else None
            if doc:
                key = (m.group(1), int(m.group(2)) if m.group(2) else None)
                self.nfs[key] = (m.group(3), read_figures(doc))
                self.source = self.source or m.group(3)
        self.writes = {}  # proto: (node, figures)
        for path in sorted(glob.glob(os.path.join(run_dir, "nfs_write_*-*.txt"))):
            m = re.match(r"^nfs_write_(rdma|tcp)-(.+)\.txt$", os.path.basename(path))
            f = write_figures(nicev.read(path)) if m else None
            if f:
                self.writes[m.group(1)] = (m.group(2), f)
        self.mounts = ""
        for path in sorted(glob.glob(os.path.join(run_dir, "nfs-mounts-*.txt"))):
            self.mounts += open(path, errors="replace").read()

    def tcp_rungs(self, source, ceiling):
        """Zero-copy at each stream count, then the copy, the reverse and the file;
        each with its direction, the NIC's line rate and counters."""
        out = []
        order = {v: i for i, v in enumerate(VARIANTS)}
        for variant, n in sorted(self.tcp, key=lambda k: (order[k[0]], k[1])):
            node, f = self.tcp[(variant, n)]
            if source and node != source:
                continue
            sink = self.sink or "sink"
            rev = variant == "rev"
            ends = (sink, node) if rev else (node, sink)
            extra = {k: v for k, v in f.items() if k not in ("gb_per_s", "sender_cpu_s_per_gib", "reverse", "bytes")}
            extra.update(direction="%s -> %s" % ends, zero_copy=variant != "copy",
                         sender_cpu_s_per_gib=f["sender_cpu_s_per_gib"])
            extra.update(self.nic.extras(tcp_tag(variant, n), [node] + ([self.sink] if self.sink else []),
                                         f["gb_per_s"]))
            if self.nic.iperf3:
                extra["iperf3"] = self.nic.iperf3
            out.append(self.rung(tcp_name(variant, n), node, f["gb_per_s"], ceiling,
                                 f["sender_cpu_s_per_gib"], kind="tcp", **extra))
        return out

    def nfs_write_rungs(self, source, fabric, tcp1):
        """fio (or dd) writing through each mount into the sink's tmpfs, against the
        same transports as the reads."""
        out = []
        for proto, below in (("rdma", fabric), ("tcp", tcp1)):
            node, f = self.writes.get(proto, (None, None))
            if f is None or (source and node != source):
                continue
            out.append(self.rung("nfs write (%s)" % proto, node, f["gb_per_s"],
                                 below["measured_gb_per_s"] if below else None, f["cpu_s_per_gib"],
                                 kind="nfs", ceiling_rung=below["name"] if below else None, proto=proto,
                                 op="write", writer=f["writer"], nfs_bs=f["bs"], nfs_jobs=f["jobs"]))
        return out

    def nfs_rungs(self, source, fabric, tcp1):
        """Sequential 1 MiB through each mount, against the raw transport below
        it: the RDMA fabric from memory, one TCP stream (one connection)."""
        out = []
        for proto, below in (("rdma", fabric), ("tcp", tcp1)):
            node, f = self.nfs.get((proto, None), (None, None))
            if f is None or (source and node != source):
                continue
            opts = mount_options(self.mounts, proto)
            out.append(self.rung("nfs_%s" % proto, node, f["gb_per_s"],
                                 below["measured_gb_per_s"] if below else None, f["cpu_s_per_gib"],
                                 kind="nfs_" + proto, ceiling_rung=below["name"] if below else None, op="read",
                                 vers=opts.get("vers"), proto=opts.get("proto"),
                                 rsize=int(opts["rsize"]) if str(opts.get("rsize", "")).isdigit() else None,
                                 wsize=int(opts["wsize"]) if str(opts.get("wsize", "")).isdigit() else None))
        return out

    def random_rows(self, source):
        depths = sorted({d for (p, d), (node, _) in self.nfs.items()
                         if d is not None and (not source or node == source)})
        rows = []
        for d in depths:
            row = {"depth": d}
            for p in PROTOS:
                f = self.nfs.get((p, d), (None, None))[1]
                row[p] = {k: f[k] for k in ("iops", "gb_per_s", "p50_us", "p99_us")} if f else None
            r, t = as_number(dig(row, "rdma", "iops")), as_number(dig(row, "tcp", "iops"))
            row["rdma_over_tcp"] = r / t if r and t else None
            rows.append(row)
        return rows

    def random_table(self, source):
        rows = self.random_rows(source)
        if not rows:
            return []
        fmt = lambda v, f="%.0f": f % v if as_number(v) is not None else "-"
        cols = ("depth", "RDMA IOPS", "p50 us", "p99 us", "TCP IOPS", "p50 us", "p99 us", "RDMA/TCP")
        body = [(str(r["depth"]),) + tuple(fmt(dig(r, p, k)) for p in PROTOS
                                           for k in ("iops", "p50_us", "p99_us"))
                + (fmt(r["rdma_over_tcp"], "%.2fx"),) for r in rows]
        w = [max(len(c), *(len(b[i]) for b in body)) for i, c in enumerate(cols)]
        return ["", "NFS random 4 KiB reads on %s (O_DIRECT, io_uring, 1 reader at each depth):" % source] + [
            "  ".join(v.rjust(w[i]) for i, v in enumerate(r)).rstrip() for r in [cols] + body]

    def notes(self, rungs, source, sink):
        """Sentences: TCP beside RDMA (rate and CPU), NFS beside its transports,
        the window hint when one stream is far below several."""
        by = {(r["name"], r["node"]): r for r in rungs}
        tcps = [r for r in rungs if r["kind"] == "tcp" and ZERO_COPY.match(r["name"])]
        fab_src, fab_sink = by.get(("fabric (mem)", source)), by.get(("fabric (mem)", sink))
        out = []
        if tcps:
            top = max(tcps, key=lambda r: r.get("streams") or 0)
            t = "TCP vs RDMA: %s carried %s GB/s" % (top["name"], gb_text(top["measured_gb_per_s"]))
            if fab_src and fab_src["measured_gb_per_s"]:
                t += ", %.0f%% of the RDMA fabric from memory (%s GB/s)" % (
                    top["measured_gb_per_s"] / fab_src["measured_gb_per_s"] * 100,
                    gb_text(fab_src["measured_gb_per_s"]))
            t += "; CPU s/GiB: TCP sender %s, receiver %s" % (
                fmt3(top["cpu_s_per_gib"]), fmt3(top.get("receiver_cpu_s_per_gib")))
            if fab_src or fab_sink:
                t += "; RDMA source %s, sink %s" % (fmt3((fab_src or {}).get("cpu_s_per_gib")),
                                                    fmt3((fab_sink or {}).get("cpu_s_per_gib")))
            out.append(t + ".")
            hint = self.window_hint(tcps, sink)
            if hint:
                out.append(hint)
        out += variant_notes([r for r in rungs if r["kind"] == "tcp"], self.nic.iperf3)
        if any(r["kind"] == "tcp" for r in rungs):
            out += self.nic.notes([n for n in (source, sink) if n])
        nfs = [r for r in rungs if r["kind"] in ("nfs_rdma", "nfs_tcp")]
        if nfs:
            parts = []
            for r in nfs:
                p = "%s %s GB/s" % (r["name"], gb_text(r["measured_gb_per_s"] or 0))
                if r["pct_of_ceiling"] is not None:
                    p += " (%.0f%% of %s)" % (r["pct_of_ceiling"], r["ceiling_rung"])
                if r.get("rsize"):
                    p += " rsize %s" % size_text(r["rsize"])
                parts.append(p)
            out.append("NFS vs its transport, 1 MiB sequential reads: %s." % "; ".join(parts))
        writes = [r for r in rungs if r["kind"] == "nfs" and r.get("op") == "write"]
        if writes:
            parts = ["%s %s GB/s%s" % (r["name"], gb_text(r["measured_gb_per_s"] or 0),
                                       " (%.0f%% of %s)" % (r["pct_of_ceiling"], r["ceiling_rung"])
                                       if r["pct_of_ceiling"] is not None else "") for r in writes]
            w = writes[0]
            out.append("NFS writes into the sink's tmpfs (%s, %s writers of %s): %s." % (
                w["writer"], w["nfs_jobs"] if w["nfs_jobs"] is not None else "?",
                size_text(w["nfs_bs"]) if isinstance(w["nfs_bs"], int) else w["nfs_bs"] or "?", "; ".join(parts)))
        return out

    def window_hint(self, tcps, sink):
        """The bandwidth-delay product when one stream is far below several."""
        one = next((r for r in tcps if r.get("streams") == 1), None)
        many = max(tcps, key=lambda r: r.get("streams") or 0)
        if not one or many is one or not one["measured_gb_per_s"] or not many["measured_gb_per_s"]:
            return None
        share = one["measured_gb_per_s"] / many["measured_gb_per_s"] * 100
        if share >= HINT_BELOW or not one.get("mean_rtt_us"):
            return None
        bdp = many["measured_gb_per_s"] * 1e9 * one["mean_rtt_us"] / 1e6
        lim = getattr(self, "sysctls", {})
        t = ("window hint: one TCP stream carried %.0f%% of %s; to carry %s GB/s at its round "
             "trip of %.0f us a stream needs a window of %s (bandwidth-delay product)" %
             (share, many["name"], gb_text(many["measured_gb_per_s"]), one["mean_rtt_us"],
              size_text(bdp)))
        if "tcp_rmem_max" not in lim:
            return t + "; the receiver's socket buffer limits were not read."
        t += "; %s allows net.ipv4.tcp_rmem max %s, net.core.rmem_max %s" % (
            "the receiver " + sink if sink else "the receiver", size_text(lim["tcp_rmem_max"]), size_text(lim.get("rmem_max", 0)))
        if lim["tcp_rmem_max"] < bdp:
            return t + ": the receive buffer caps one stream (raise net.ipv4.tcp_rmem's max and net.core.rmem_max)."
        return t + ": the buffers are not the limit (one stream's core or the NIC's per-flow queue is)."


ZERO_COPY = re.compile(r"^tcp \([0-9]+ streams?\)$")


def variant_notes(tcps, version):
    """Plain lines on the TCP rungs: parallel processes (the header's line) and the
    NIC counters' change (pause frames, discards) or what was missing. The
    sentences that compare the rungs (copy, direction, file, retransmits) are
    why.py's."""
    out = []
    procs = [r for r in tcps if (r.get("processes") or 1) > 1]
    if procs:
        r = max(procs, key=lambda r: r["processes"])
        out.append("iperf3 %s < 3.16: %d streams as %d processes (one thread serves all -P streams before 3.16)"
                   % (version or "(version unknown)", r["streams"] or r["processes"], r["processes"]))
    out += counter_notes(tcps)
    return [t + "." for t in out]


def counter_notes(tcps):
    """The NIC counters that moved during a rung, per end; the ones missing."""
    out, missing = [], {}
    for r in tcps:
        moved = []
        for node, d in sorted((r.get("nic_counters") or {}).items()):
            if not isinstance(d.get("missing"), list):
                missing.setdefault(node, set()).add("ethtool -S not read")
                continue
            missing.setdefault(node, set()).update(d["missing"])
            moved += ["%s %s %d" % (node, k, d[k]) for k in nicev.COUNTERS if d.get(k)]
        if moved:
            out.append("NIC counters during %s: %s" % (r["name"], ", ".join(moved)))
    for node, names in sorted(missing.items()):
        if names:
            out.append("NIC counters missing on %s (not guessed): %s" % (node, ", ".join(sorted(names))))
    return out


def fmt3(v):
    return "%.3f" % v if as_number(v) is not None else "-"
