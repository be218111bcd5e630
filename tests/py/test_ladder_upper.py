"""nbw.ladder.upper: iperf3's figures, the receiver's buffers, NFS mount options."""
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.ladder.upper import iperf3_figures, mount_options, read_figures, read_sysctls, size_text


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


if __name__ == "__main__":
    unittest.main()
