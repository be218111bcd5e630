"""The ladder's upper rungs: TCP from iperf3 -J (tcpN-NODE.json, the client's
document on the source; tcp-sysctl-NODE.txt, the receiver's socket buffer
limits) and NFS from nvme_read_bw through the mounts (nfs_rdma-NODE.json,
nfs_tcp-NODE.json, nfs_PROTO_randD-NODE.json, nfs-mounts-NODE.txt). Makes
their rungs, the notes that compare them with the RDMA rungs, the socket
buffer hint and the random 4 KiB table. Standard library only."""
import glob
import os
import re

from ..jsonutil import as_number, dicts, dig, gb_text, obj, read_json

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
            "max_snd_cwnd_bytes": max(cwnd) if cwnd else None,
            "mean_rtt_us": sum(rtt) / len(rtt) if rtt else None,
            "sender_cpu_s_per_gib": per_gib(cpu.get("host_total")),
            "receiver_cpu_s_per_gib": per_gib(cpu.get("remote_total"))}


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
        self.tcp = {}  # streams: (client node, figures)
        self.source = self.sink = None
        for path in sorted(glob.glob(os.path.join(run_dir, "tcp[0-9]*-*.json"))):
            m = re.match(r"^tcp([0-9]+)-(.+)\.json$", os.path.basename(path))
            f = iperf3_figures(read_json(path)) if m else None
            if f:
                self.tcp[int(m.group(1))] = (m.group(2), f)
                self.source = self.source or m.group(2)
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
        self.mounts = ""
        for path in sorted(glob.glob(os.path.join(run_dir, "nfs-mounts-*.txt"))):
            self.mounts += open(path, errors="replace").read()

    def tcp_rungs(self, source, ceiling):
        out = []
        for n in sorted(self.tcp):
            node, f = self.tcp[n]
            if source and node != source:
                continue
            out.append(self.rung("tcp (%d stream%s)" % (n, "" if n == 1 else "s"), node,
                                 f["gb_per_s"], ceiling, f["sender_cpu_s_per_gib"], kind="tcp",
                                 **{k: v for k, v in f.items() if k not in ("gb_per_s", "sender_cpu_s_per_gib")}))
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
                                 kind="nfs_" + proto, ceiling_rung=below["name"] if below else None,
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
        tcps = [r for r in rungs if r["kind"] == "tcp"]
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


def fmt3(v):
    return "%.3f" % v if as_number(v) is not None else "-"
