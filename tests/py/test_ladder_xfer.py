"""nbw.ladder.xfer: the rsync rungs' documents from recorded raw output (a loopback run of
run_bench.sh rsync, tests/fixtures/ladder/rsync) and the rungs made of them."""
import os
import shutil
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbwpath import FIXTURES
from nbw.jsonutil import read_json
from nbw.ladder import xfer
from nbw.ladder.model import Ladder, rung
from nbw.ladder.text import above_notes

RAW = os.path.join(FIXTURES, "ladder", "rsync")
MIB16 = 16 * 2 ** 20  # 16 files of 4 MiB


class Xfer(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def raw(self, name):
        return os.path.join(RAW, name + "-b.txt")

    def write(self, prefix, streams, cpu0="1.000", cpu1="1.500", ceiling=""):
        out = os.path.join(self.dir, prefix + "-b.json")
        self.assertEqual(xfer.main(["json", out, str(streams), "16", str(4 * 2 ** 20), self.raw(prefix),
                                    cpu0, cpu1, ceiling]), 0)
        return read_json(out)

    def test_daemon_document(self):
        d = self.write("rsync_d8", 8)
        self.assertEqual((d["streams"], d["files"], d["bytes"], d["ok"], d["exit_status"]),
                         (8, 16, 4 * MIB16, True, 0))
        self.assertEqual((d["seconds"], d["sender_cpu_s"], d["receiver_cpu_s"]), (0.270341, 0.09, 0.5))
        # eight --stats reports summed: the bytes on the wire, above the files' own
        self.assertGreater(d["wire_bytes_sent"], 4 * MIB16)

    def test_ssh_document(self):
        d = self.write("rsync_ssh", 1, "", "", self.raw("ssh_ceiling"))
        self.assertEqual(d["ssh_cipher"], "chacha20-poly1305@openssh.com")
        self.assertAlmostEqual(d["ssh_cipher_gb_per_s"], 4 * MIB16 / 1.056922 / 1e9)
        self.assertIsNone(d["receiver_cpu_s"])
        self.assertIn("sshd", d["receiver_cpu_note"])

    def test_rungs(self):
        self.write("rsync_d1", 1)
        self.write("rsync_d8", 8, "2", "1")  # CPU read backwards: not measured, never negative
        self.write("rsync_ssh", 1, "", "", self.raw("ssh_ceiling"))
        rs = xfer.rungs(self.dir, rung)
        self.assertEqual([r["name"] for r in rs],
                         ["rsync daemon (1 stream)", "rsync daemon (8 streams)", "rsync over ssh"])
        d1, d8, ssh = rs
        self.assertEqual({r["kind"] for r in rs}, {"rsync"})
        self.assertAlmostEqual(d1["measured_gb_per_s"], 4 * MIB16 / 0.257179 / 1e9)
        # 0.5 s of the daemon's CPU for 64 MiB: 8 s/GiB; the sender's 0.04 s: 0.64
        self.assertAlmostEqual(d1["receiver_cpu_s_per_gib"], 8.0)
        self.assertAlmostEqual(d1["sender_cpu_s_per_gib"], 0.64)
        self.assertEqual(d1["cpu_s_per_gib"], d1["sender_cpu_s_per_gib"])
        self.assertIsNone(d8["receiver_cpu_s_per_gib"])
        self.assertEqual((d8["streams"], d8["files"], d8["file_bytes"]), (8, 16, 4 * 2 ** 20))
        self.assertIsNone(d1["ceiling_gb_per_s"])
        self.assertEqual(ssh["ceiling_rung"], "ssh (one stream)")
        self.assertEqual(ssh["ceiling_gb_per_s"], ssh["ssh_cipher_gb_per_s"])
        self.assertAlmostEqual(ssh["pct_of_ceiling"], 1.056922 / 1.394264 * 100)

    def test_failed_and_other_node(self):
        bad = os.path.join(self.dir, "bad.txt")
        with open(bad, "w") as f:
            f.write("rsync: failed to connect\nnbw: seconds=0.1 cpu_s=0.0 rc=10\n")
        out = os.path.join(self.dir, "rsync_d1-b.json")
        xfer.main(["json", out, "1", "16", "1024", bad, "", ""])
        r = xfer.rungs(self.dir, rung)[0]
        self.assertTrue(r["failed"])
        self.assertIsNone(r["measured_gb_per_s"])
        self.assertEqual(xfer.rungs(self.dir, rung, source="a"), [])

    def test_no_output_and_usage(self):
        out = os.path.join(self.dir, "rsync_d1-b.json")
        self.assertEqual(xfer.main(["json", out, "1", "16", "1024", "/nonexistent", "", ""]), 0)
        self.assertFalse(read_json(out)["ok"])
        self.assertEqual(xfer.main(["json", out, "x", "16", "1024", "/nonexistent", "", ""]), 2)
        self.assertEqual(xfer.main(["nope"]), 2)

    def test_above_its_ssh_ceiling(self):
        # the lab's emulated pair: rsync over ssh 10% above the ssh stream timed before it
        r = rung("rsync over ssh", "b", 0.0015, 0.0013, kind="rsync")
        self.assertTrue(r["above_ceiling"])
        self.assertIn("one timed ssh stream", above_notes([r])[0])

    def test_in_the_ladder(self):
        self.write("rsync_d1", 1)
        names = [r["name"] for r in Ladder(self.dir).build()]
        self.assertEqual(names, ["rsync daemon (1 stream)"])


if __name__ == "__main__":
    unittest.main()
