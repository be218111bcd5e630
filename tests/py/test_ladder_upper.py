"""nbw.ladder.upper: iperf3's figures (one process or several, both directions, the
copy and the file), the receiver's buffers, NFS mount options, NFS writes (fio, dd)."""
import json
import os
import shutil
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.ladder.model import rung
from nbw.ladder.upper import (Upper as UpperRungs, combine, iperf3_figures, mount_options, read_figures, read_sysctls,
                              size_text, write_figures)

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "ladder", "nic")
GIB = 2 ** 30


def iperf3_doc(gb_per_s, streams=1, retransmits=0, host=10.0, remote=5.0, reverse=False, secs=4.0):
    """A client's iperf3 -J document carrying GB_PER_S over SECS."""
    return {"start": {"connecting_to": {"host": "a"},
                      "test_start": {"num_streams": streams, "reverse": int(reverse)}},
            "end": {"sum_received": {"bits_per_second": gb_per_s * 8e9, "bytes": gb_per_s * 1e9 * secs,
                                     "seconds": secs},
                    "sum_sent": {"retransmits": retransmits},
                    "streams": [{"sender": {"max_snd_cwnd": 1000, "mean_rtt": 50}}] * streams,
                    "cpu_utilization_percent": {"host_total": host, "remote_total": remote}}}


class Upper(unittest.TestCase):
    def test_size_text(self):
        self.assertEqual(size_text(6 * 2 ** 20), "6.0 MiB")
        self.assertEqual(size_text(212992), "208.0 KiB")
        self.assertEqual(size_text(3 * 2 ** 30 // 2), "1.5 GiB")
        self.assertEqual(size_text(512), "512 bytes")

    def test_iperf3_figures(self):
        gib = 2 ** 30
        doc = {"start": {"connecting_to": {"host": "b"}, "test_start": {"num_streams": 2}},
               "end": {"sum_received": {"bits_per_second": 80e9, "bytes": 10 * gib, "seconds": 1.0},
                       "sum_sent": {"retransmits": 7},
                       "streams": [{"sender": {"max_snd_cwnd": 1000, "mean_rtt": 40}},
                                   {"sender": {"max_snd_cwnd": 3000, "mean_rtt": 60}}],
                       "cpu_utilization_percent": {"host_total": 50.0, "remote_total": 20.0}}}
        f = iperf3_figures(doc)
        self.assertEqual((f["streams"], f["gb_per_s"], f["retransmits"]), (2, 10.0, 7))
        self.assertEqual((f["max_snd_cwnd_bytes"], f["mean_rtt_us"]), (3000, 50.0))
        # 50% of 1 s of CPU for 10 GiB: 0.05 s/GiB.
        self.assertAlmostEqual(f["sender_cpu_s_per_gib"], 0.05)
        self.assertAlmostEqual(f["receiver_cpu_s_per_gib"], 0.02)
        del doc["start"]["connecting_to"]
        self.assertIsNone(iperf3_figures(doc))  # a server's document: no figures

    def test_read_sysctls(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "s.txt")
            with open(p, "w") as f:
                f.write("net.core.rmem_max = 212992\nnet.ipv4.tcp_rmem = 4096\t131072\t6291456\n"
                        "net.ipv4.other = x\n")
            self.assertEqual(read_sysctls(p), {"rmem_max": 212992, "tcp_rmem_max": 6291456})
            self.assertEqual(read_sysctls(os.path.join(d, "none")), {})

    def test_mount_options_of_nfsstat(self):
        text = ("/mnt/nbw/rdma from a:/export\n Flags:\trw,vers=4.2,rsize=1048576,proto=rdma\n\n"
                "/mnt/nbw/tcp from a:/export\n Flags:\trw,vers=4.2,rsize=524288,proto=tcp\n")
        self.assertEqual(mount_options(text, "tcp")["rsize"], "524288")
        self.assertEqual(mount_options(text, "rdma")["proto"], "rdma")
        self.assertIs(mount_options(text, "rdma")["rw"], True)
        self.assertEqual(mount_options(text, "udp"), {})

    def test_read_figures_fall_back_to_the_drive(self):
        f = read_figures({"total": {"gb_per_s": 1.5}, "drives": [{"iops": 1000,
                                                                    "latency_us": {"p50": 80}}]})
        self.assertEqual((f["gb_per_s"], f["iops"], f["p50_us"], f["p99_us"]), (1.5, 1000, 80, None))


class Variants(unittest.TestCase):
    def test_combine_processes_and_reverse(self):
        a = iperf3_figures(iperf3_doc(2.0, retransmits=3, host=40.0, remote=10.0))
        b = iperf3_figures(iperf3_doc(6.0, retransmits=5, host=40.0, remote=10.0))
        c = combine([a, b])
        self.assertEqual((c["gb_per_s"], c["streams"], c["retransmits"], c["processes"]), (8.0, 2, 8, 2))
        # CPU per GiB over all bytes: the slower process weighs less.
        self.assertAlmostEqual(c["sender_cpu_s_per_gib"],
                               (a["sender_cpu_s_per_gib"] * 8e9 + b["sender_cpu_s_per_gib"] * 24e9) / 32e9)
        r = combine([iperf3_figures(iperf3_doc(2.0, host=40.0, remote=10.0, reverse=True))])
        # -R: the server (iperf3's remote) sends, the client receives.
        self.assertLess(r["sender_cpu_s_per_gib"], r["receiver_cpu_s_per_gib"])
        self.assertAlmostEqual(r["receiver_cpu_s_per_gib"], a["sender_cpu_s_per_gib"])

    def run_dir(self, d):
        def put(name, doc):
            with open(os.path.join(d, name), "w") as f:
                json.dump(doc, f)
        put("tcp1-b.json", iperf3_doc(5.0, retransmits=2))
        for k in range(1, 9):  # 8 streams as 8 processes of one stream
            put("tcp8.p%d-b.json" % k, iperf3_doc(2.5, retransmits=1))
            put("tcpcopy8.p%d-b.json" % k, iperf3_doc(1.0))
            put("tcprev8.p%d-b.json" % k, iperf3_doc(2.0, reverse=True))
        put("tcpfile-b.json", iperf3_doc(4.0))
        put("tcp8.p1-a.json", {"start": {}, "end": {}})  # a server's document: no rung
        with open(os.path.join(d, "tcp-sysctl-a.txt"), "w") as f:
            f.write("net.core.rmem_max = 212992\n")
        os.mkdir(os.path.join(d, "nic"))
        shutil.copy(os.path.join(FIX, "nic-mlx5.txt"), os.path.join(d, "nic-b.txt"))
        shutil.copy(os.path.join(FIX, "nic-mlx5-qos.txt"), os.path.join(d, "nic-a.txt"))
        shutil.copy(os.path.join(FIX, "mlx5-S-before.txt"), os.path.join(d, "nic", "tcprev8-a-before.txt"))
        shutil.copy(os.path.join(FIX, "mlx5-S-after.txt"), os.path.join(d, "nic", "tcprev8-a-after.txt"))
        with open(os.path.join(d, "nic", "iperf3-version.txt"), "w") as f:
            f.write("iperf3 3.12\n")
        shutil.copy(os.path.join(FIX, "fio-write-note.json"), os.path.join(d, "nfs_write_rdma-b.txt"))
        with open(os.path.join(d, "nfs_write_tcp-b.txt"), "w") as f:
            f.write("writer=dd bytes=2000000000 ns=2000000000\n")

    def test_rungs_and_notes(self):
        with tempfile.TemporaryDirectory() as d:
            self.run_dir(d)
            up = UpperRungs(d, rung)
            rungs = up.tcp_rungs(up.source, None)
            self.assertEqual([r["name"] for r in rungs], ["tcp (1 stream)", "tcp (8 streams)", "tcp copy (8 streams)",
                                                          "tcp reverse (8 streams)", "tcp from file (sendfile)"])
            by = {r["name"]: r for r in rungs}
            r8 = by["tcp (8 streams)"]
            self.assertEqual((r8["measured_gb_per_s"], r8["streams"], r8["processes"], r8["retransmits"]),
                             (20.0, 8, 8, 8))
            self.assertEqual((r8["direction"], r8["zero_copy"], r8["line_rate_gb_per_s"], r8["pct_of_line"]),
                             ("b -> a", True, 25.0, 80.0))
            rev = by["tcp reverse (8 streams)"]
            self.assertEqual((rev["direction"], rev["measured_gb_per_s"]), ("a -> b", 16.0))
            self.assertEqual(rev["nic_counters"]["a"]["pause_tx"], 2400)
            self.assertEqual(rev["nic_counters"]["b"], {"missing": "not read"})
            self.assertEqual((by["tcp copy (8 streams)"]["zero_copy"], by["tcp from file (sendfile)"]["streams"]),
                             (False, 1))
            fab = rung("fabric (mem)", "b", 24.0, 25.0)
            tcp1 = by["tcp (1 stream)"]
            w = {r["name"]: r for r in up.nfs_write_rungs("b", fab, tcp1)}
            self.assertEqual((w["nfs write (rdma)"]["writer"], w["nfs write (rdma)"]["nfs_bs"],
                              w["nfs write (rdma)"]["nfs_jobs"], w["nfs write (rdma)"]["op"],
                              w["nfs write (rdma)"]["kind"]), ("fio", 1048576, 2, "write", "nfs"))
            self.assertAlmostEqual(w["nfs write (rdma)"]["pct_of_ceiling"], 3.221225472 / 24.0 * 100)
            self.assertEqual((w["nfs write (tcp)"]["writer"], w["nfs write (tcp)"]["measured_gb_per_s"],
                              w["nfs write (tcp)"]["ceiling_rung"]), ("dd", 1.0, "tcp (1 stream)"))
            notes = up.notes(rungs + list(w.values()), "b", "a")
            text = "\n".join(notes)
            self.assertIn("iperf3 3.12 < 3.16: 8 streams as 8 processes", text)
            # The comparisons (copy, direction, file, retransmits) are why.py's sentences.
            self.assertNotIn("carried 8.00 GB/s", text)
            self.assertIn("NIC counters during tcp reverse (8 streams): a pause_rx 2, a pause_tx 2400, "
                          "a discards_rx 4.", notes)
            self.assertIn("NIC b: lossy RoCE fabric: pause and PFC are off on ens1f0np0.", notes)
            self.assertNotIn("NIC a:", text)  # pause on, PFC on priority 3
            self.assertIn("NFS writes into the sink's tmpfs (fio, 2 writers of 1.0 MiB): nfs write (rdma) 3.22 "
                          "GB/s (13% of fabric (mem)); nfs write (tcp) 1.00 GB/s (20% of tcp (1 stream)).", notes)


class Writes(unittest.TestCase):
    def test_fio(self):
        with open(os.path.join(FIX, "fio-write.json")) as f:
            w = write_figures(f.read())
        self.assertAlmostEqual(w["gb_per_s"], 3.221225472)
        # 25% of 4 s + 15% of 4 s of CPU over 12 GiB written.
        self.assertAlmostEqual(w["cpu_s_per_gib"], 1.6 / 12)
        self.assertEqual((w["writer"], w["bs"], w["jobs"]), ("fio", 1048576, 2))

    def test_dd_and_garbage(self):
        w = write_figures("writer=dd bytes=3000000000 ns=1500000000\n")
        self.assertEqual((w["writer"], w["gb_per_s"], w["cpu_s_per_gib"]), ("dd", 2.0, None))
        w = write_figures("writer=dd bytes=3000000000 ns=1500000000 bs=65536 jobs=3\n")
        self.assertEqual((w["bs"], w["jobs"]), (65536, 3))
        self.assertIsNone(write_figures("writer=dd bytes=0 ns=10\n"))
        self.assertIsNone(write_figures("fio: pid=1, err=28/file:io_u.c:1845, error=No space left on device"))
        self.assertIsNone(write_figures('{"jobs": [{"write": {"bw_bytes": 0}}]}'))


if __name__ == "__main__":
    unittest.main()
