"""nbw.ladder.nicev: ethtool -S deltas, the link, pause and PFC, the path-MTU probe."""
import os
import shutil
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.ladder import nicev

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "ladder", "nic")


def fixture(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


class Stats(unittest.TestCase):
    def test_mlx5_delta(self):
        d = nicev.stats_delta(fixture("mlx5-S-before.txt"), fixture("mlx5-S-after.txt"))
        # The port's own counters (*_phy) first, not the per-priority ones.
        self.assertEqual((d["pause_rx"], d["pause_tx"], d["discards_rx"], d["discards_tx"]), (2, 2400, 4, 0))
        self.assertEqual((d["tx_pci_signal_integrity"], d["missing"]), (0, []))

    def test_priority_pause_summed_without_phy(self):
        b = "     rx_prio0_pause: 1\n     rx_prio3_pause: 10\n     rx_prio3_pause_duration: 99\n"
        a = "     rx_prio0_pause: 2\n     rx_prio3_pause: 30\n     rx_prio3_pause_duration: 500\n"
        self.assertEqual(nicev.stats_delta(b, a)["pause_rx"], 21)

    def test_virtio_says_missing(self):
        d = nicev.stats_delta(fixture("virtio-S.txt"), fixture("virtio-S.txt"))
        self.assertEqual(d["missing"], ["pause_rx", "pause_tx", "discards_rx", "discards_tx",
                                        "tx_pci_signal_integrity"])
        self.assertIsNone(d["pause_tx"])
        self.assertEqual(nicev.parse_stats("no stats available\n"), {})

    def test_counter_in_one_text_only_is_missing(self):
        d = nicev.stats_delta("     tx_pause_ctrl_phy: 5\n", "     tx_pause_frames: 9\n")
        self.assertIsNone(d["pause_tx"])
        self.assertIn("pause_tx", d["missing"])


class Port(unittest.TestCase):
    def test_mlx5_lossy(self):
        n = nicev.parse_nic(fixture("nic-mlx5.txt"))
        self.assertEqual((n["if"], n["numa"], n["mtu"], n["speed_mbps"], n["rdma"]),
                         ("ens1f0np0", 1, 9000, 200000, "mlx5_0"))
        self.assertEqual((n["pause"], n["pfc_on"]), ({"autoneg": False, "rx": False, "tx": False}, []))
        self.assertEqual(nicev.lossy(n), "lossy RoCE fabric: pause and PFC are off on ens1f0np0")

    def test_mlnx_qos_pfc_on(self):
        n = nicev.parse_nic(fixture("nic-mlx5-qos.txt"))
        self.assertEqual((n["pause"]["rx"], n["pfc_on"]), (True, [3]))
        self.assertIsNone(nicev.lossy(n))

    def test_virtio_unknowns_said(self):
        n = nicev.parse_nic(fixture("nic-virtio.txt"))
        self.assertEqual((n["numa"], n["speed_mbps"], n["pfc_on"], n["pfc_note"]),
                         (-1, None, None, "absent: dcb, mlnx_qos"))
        self.assertEqual(nicev.lossy(n), "lossy RoCE fabric unless PFC is on: pause is off on ens4 and "
                         "its PFC state was not read (absent: dcb, mlnx_qos)")
        self.assertIsNone(nicev.lossy(dict(n, rdma=None)))  # no RoCE port: nothing to say

    def test_speed_from_sys_when_ethtool_has_none(self):
        self.assertEqual(nicev.speed_mbps("", "100000\n"), 100000)
        self.assertIsNone(nicev.speed_mbps("\tSpeed: Unknown!\n", "-1"))

    def test_pmtu(self):
        self.assertEqual(nicev.parse_pmtu(fixture("pmtu-ok.txt")), "passed")
        self.assertEqual(nicev.parse_pmtu(fixture("pmtu-1500.txt")), "failed (mtu 1500)")
        self.assertEqual(nicev.parse_pmtu(fixture("pmtu-lost.txt")), "failed (no reply)")
        self.assertIsNone(nicev.parse_pmtu("ping: unknown host\n"))


class Evidence(unittest.TestCase):
    def test_run_directory(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "nic"))
            shutil.copy(os.path.join(FIX, "nic-mlx5.txt"), os.path.join(d, "nic-b.txt"))
            shutil.copy(os.path.join(FIX, "nic-virtio.txt"), os.path.join(d, "nic-a.txt"))
            shutil.copy(os.path.join(FIX, "pmtu-1500.txt"), os.path.join(d, "pmtu-b.txt"))
            shutil.copy(os.path.join(FIX, "mlx5-S-before.txt"), os.path.join(d, "nic", "tcp8-b-before.txt"))
            shutil.copy(os.path.join(FIX, "mlx5-S-after.txt"), os.path.join(d, "nic", "tcp8-b-after.txt"))
            with open(os.path.join(d, "nic", "iperf3-version.txt"), "w") as f:
                f.write("iperf3 3.12\n")
            ev = nicev.Evidence(d)
            self.assertEqual(ev.iperf3, "3.12")
            # a's speed is unknown: b's 200 Gb/s is the line rate.
            x = ev.extras("tcp8", ["b", "a"], 20.0)
            self.assertEqual((x["line_rate_gb_per_s"], x["pct_of_line"]), (25.0, 80.0))
            self.assertEqual((x["mtu"], x["path_mtu_9000"]), ({"b": 9000, "a": 1500}, "failed (mtu 1500)"))
            self.assertEqual(x["nic_counters"]["b"]["pause_tx"], 2400)
            self.assertEqual(x["nic_counters"]["a"], {"missing": "not read"})
            notes = ev.notes(["b", "a"])
            self.assertEqual(notes[0], "NIC: b ens1f0np0 MTU 9000, link 200 Gb/s; a ens4 MTU 1500, link speed "
                             "unknown; path MTU probe of 9000 bytes: failed (mtu 1500).")
            self.assertEqual(notes[1], "NIC b: lossy RoCE fabric: pause and PFC are off on ens1f0np0.")
            self.assertTrue(notes[2].startswith("NIC a: lossy RoCE fabric unless PFC is on"))
            self.assertIsNone(nicev.Evidence(os.path.join(d, "none")).line_rate(["b"]))


if __name__ == "__main__":
    unittest.main()
