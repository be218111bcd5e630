"""nbw.ladder.why and nbw.ladder.transfer: each sentence rule over recorded ladder rungs
(tests/fixtures/ladder/why: the field study's ladder, a healthy one, one with missing
rungs, one with a sender-side deficit, one whose transfer failed) fires with the right
figures, and not when it should not; the transfer document from the command's output."""
import copy
import json
import os
import tempfile
import unittest

import nbwpath
from nbw.ladder import transfer, why
from nbw.ladder.model import rung
from nbw.results.documents import RUN_FILE, figures_of
from nbw.results.html_report import gap_headline

WHY = os.path.join(nbwpath.FIXTURES, "ladder", "why")


def rungs_of(name):
    with open(os.path.join(WHY, "ladder-%s.json" % name)) as f:
        return json.load(f)["rungs"]


def one(lines, start):
    hits = [s for s in lines if s.startswith(start)]
    assert len(hits) == 1, (start, lines)
    return hits[0]


def none(lines, part):
    return not any(part in s for s in lines)


class Field(unittest.TestCase):
    """The field study: rsync over ssh 1.98 GB/s on a 200 GbE (25 GB/s) fabric."""

    def setUp(self):
        self.rungs = rungs_of("field")
        self.lines = why.explain(self.rungs)

    def test_gap_headline(self):
        s = self.lines[0]
        self.assertTrue(s.startswith("the transfer ran at 8% of the wire: 1.98 GB/s against "
                                     "tcp (8 streams)'s 24.80 GB/s"), s)
        self.assertIn("7.9% of the 25.00 GB/s line", s)

    def test_binds_rsync_over_ssh_capped_by_cipher(self):
        s = one(self.lines, "the transfer (")
        self.assertEqual(s, "the transfer (1.98 GB/s, 100% of it) sits under rsync over ssh "
                            "(1.98 GB/s), capped by ssh's cipher on one core (1.90 GB/s)")

    def test_transfer_rung_fields(self):
        t = why.named(self.rungs, "transfer")
        self.assertEqual(t["under_rung"], "rsync over ssh")
        self.assertAlmostEqual(t["pct_of_under"], 100.0)
        self.assertAlmostEqual(t["gap_pct_of_top"], 1.98 / 24.8 * 100)
        self.assertEqual((t["ceiling_gb_per_s"], t["ceiling_rung"], t["above_ceiling"]),
                         (1.98, "rsync over ssh", False))

    def test_ssh_cipher(self):
        s = one(self.lines, "rsync over ssh (1.98 GB/s) is capped by ssh's cipher on one core")
        self.assertIn("chacha20-poly1305@openssh.com carried 1.90 GB/s", s)
        self.assertIn("rsync reached 104% of it", s)

    def test_rsync_protocol(self):
        self.assertEqual(one(self.lines, "rsync daemon, one stream"),
                         "rsync daemon, one stream: 3.00 GB/s, 27% of one TCP stream (11.00 GB/s): "
                         "rsync's per-file protocol caps a stream")
        self.assertEqual(one(self.lines, "rsync daemon, 8 streams"),
                         "rsync daemon, 8 streams: 12.90 GB/s, 52% of line (25.00 GB/s)")

    def test_copy_ratio(self):
        s = one(self.lines, "a userspace copy ran at 27% of the zero-copy rung")
        self.assertIn("tcp copy (8 streams) 6.70 GB/s, tcp (8 streams) 24.80 GB/s", s)
        self.assertIn("costs 73% of the rate", s)

    def test_from_file(self):
        s = one(self.lines, "tcp from file (sendfile) carried 6.20 GB/s, 60% of the narrower of "
                            "drive nvme0n1 (10.40 GB/s) and tcp (1 stream) (11.00 GB/s)")
        self.assertIn("they would give 5.35 GB/s", s)  # 1 / (1/10.4 + 1/11)
        self.assertIn("its own rung", s)

    def test_directions_even_and_retransmits_no_fault(self):
        one(self.lines, "both directions within 10%")
        self.assertTrue(none(self.lines, "sender-side deficit on"))
        self.assertEqual(one(self.lines, "tcp (8 streams) counted"),
                         "tcp (8 streams) counted 1234 retransmits at 99% of line: a count beside "
                         "a full rate is no fault")


class Healthy(unittest.TestCase):
    def setUp(self):
        self.lines = why.explain(rungs_of("healthy"))

    def test_nothing_caps_what_should_not(self):
        self.assertIn("ran at 31% of ssh's one-stream ceiling (aes128-gcm@openssh.com, 3.90 "
                      "GB/s): the cipher does not cap it", one(self.lines, "rsync over ssh (1.20"))
        self.assertTrue(none(self.lines, "is capped by ssh's cipher"))
        self.assertTrue(one(self.lines, "rsync daemon, one stream").endswith(
            "84% of one TCP stream (9.50 GB/s): the protocol costs a stream little"))
        self.assertTrue(one(self.lines, "a userspace copy ran at 97%").endswith(
            "the copy costs nothing that shows here"))
        self.assertTrue(one(self.lines, "tcp from file").endswith("as the narrower of its two parts"))
        self.assertTrue(none(self.lines, "deficit on"))
        self.assertIn("40 retransmits at 94% of line: a count beside a full rate is no fault",
                      one(self.lines, "tcp (8 streams) counted"))

    def test_daemon_transfer(self):
        s = one(self.lines, "the transfer (")
        self.assertEqual(s, "the transfer (7.60 GB/s, 95% of it) sits under rsync daemon "
                            "(1 stream) (8.00 GB/s), rsync's per-file protocol on one stream")
        self.assertTrue(self.lines[0].startswith("the transfer ran at 63% of the wire: 7.60 GB/s "
                                                 "against fabric (mem)'s 12.10 GB/s"))


class Missing(unittest.TestCase):
    def setUp(self):
        self.rungs = rungs_of("missing")
        self.lines = why.explain(self.rungs)

    def test_said_not_guessed(self):
        self.assertEqual(one(self.lines, "rsync over ssh carried"),
                         "rsync over ssh carried 0.90 GB/s; ssh's one-stream ceiling was not "
                         "measured: whether its cipher caps it is not said")
        one(self.lines, "rsync daemon (1 stream) not measured")
        self.assertEqual(one(self.lines, "copy vs zero-copy"),
                         "copy vs zero-copy: tcp (8 streams) not measured: not compared")
        self.assertIn("no line rate known", one(self.lines, "tcp (1 stream) counted 17"))
        # no rung of the family: nothing said
        self.assertTrue(none(self.lines, "both directions"))
        self.assertTrue(none(self.lines, "tcp from file"))
        self.assertTrue(none(self.lines, "8 streams:"))

    def test_copy_transfer_under_copy_rung(self):
        self.assertEqual(one(self.lines, "the transfer ("),
                         "the transfer (0.50 GB/s, 33% of it) sits under tcp copy (8 streams) "
                         "(1.50 GB/s), a userspace copy instead of sendfile")
        self.assertTrue(self.lines[0].startswith("the transfer ran at 23% of the wire"))
        self.assertNotIn("line", self.lines[0])  # no line rate known: none said

    def test_path_not_measured(self):
        rungs = [r for r in self.rungs if r["name"] in ("transfer",)]
        lines = why.explain(rungs)
        self.assertEqual(lines, [
            "the transfer ran at 0.50 GB/s; no TCP or fabric rung and no line rate: its gap to "
            "the wire is not said",
            "the transfer ran at 0.50 GB/s; the rungs it passes through (tcp copy, tcp (1 stream), "
            "the source's drive) were not measured: not compared"])
        self.assertIsNone(rungs[0]["under_rung"])


class Deficit(unittest.TestCase):
    def test_sender_side(self):
        lines = why.explain(rungs_of("deficit"))
        s = one(lines, "b sent 25% below what it received")
        self.assertIn("tcp (8 streams) b -> a 18.60 GB/s, tcp reverse (8 streams) a -> b 24.80", s)
        self.assertIn("a sender-side deficit on b", s)
        self.assertIn("9000 retransmits at 74% of line: loss may hold it back",
                      one(lines, "tcp (8 streams) counted"))
        self.assertTrue(none(lines, "no fault"))
        self.assertTrue(none(lines, "the transfer"))  # TRANSFER_CMD unset: no transfer sentence

    def test_reverse_short_names_the_other_node(self):
        rungs = rungs_of("deficit")
        for r in rungs:
            if r["name"] == "tcp (8 streams)":
                r["measured_gb_per_s"] = 24.8
            if r["name"] == "tcp reverse (8 streams)":
                r["measured_gb_per_s"] = 19.0
        s = one(why.explain(rungs), "a sent 23% below what it received")
        self.assertIn("deficit on a", s)

    def test_threshold(self):
        rungs = rungs_of("deficit")
        for r in rungs:
            if r["name"] == "tcp (8 streams)":
                r["measured_gb_per_s"] = 24.8 * (1 - (why.DIRECTION_PCT - 1) / 100)
        self.assertTrue(none(why.explain(rungs), "deficit on"))


class Failed(unittest.TestCase):
    def test_no_figure(self):
        rungs = rungs_of("failed")
        lines = why.explain(rungs)
        self.assertEqual(lines, ["the transfer gave no figure (the command failed (exit 23): "
                                 "rsync error: some files could not be transferred (code 23)): "
                                 "nothing to set against the ladder"])
        t = why.named(rungs, "transfer")
        self.assertEqual((t["under_rung"], t["gap_pct_of_top"]), (None, None))

    def test_above_its_path(self):
        rungs = rungs_of("healthy")
        why.named(rungs, "transfer")["measured_gb_per_s"] = 10.0  # above the daemon's 8.0
        s = one(why.explain(rungs), "the transfer (10.00 GB/s) ran above")
        self.assertIn("rsync daemon (1 stream) (8.00 GB/s)", s)
        self.assertTrue(why.named(rungs, "transfer")["above_ceiling"])


class Path(unittest.TestCase):
    def test_path_names(self):
        self.assertEqual(why.path_names("rsync -a /d/ {sink}::m/"),
                         ["rsync daemon (1 stream)", "tcp (1 stream)", "drive"])
        self.assertEqual(why.path_names("/usr/bin/rsync -e ssh /d/ {sink}:/x/")[0], "rsync over ssh")
        self.assertEqual(why.path_names("scp /d/f {sink}:/x")[0], "ssh (one stream)")
        self.assertEqual(why.path_names("dd if=/dev/zero bs=1M | socat - TCP:{sink}:1"),
                         ["tcp copy", "tcp (1 stream)"])

    def test_ssh_transfer_under_cipher(self):
        rungs = copy.deepcopy(rungs_of("field"))
        why.named(rungs, "transfer")["command"] = "tar c /data | ssh {sink} 'tar x'"
        why.named(rungs, "transfer")["measured_gb_per_s"] = 1.8
        self.assertIn("sits under ssh (one stream) (1.90 GB/s), ssh's cipher on one core",
                      one(why.explain(rungs), "the transfer ("))


class TransferDoc(unittest.TestCase):
    CLOCK = "nbw-transfer: rc=%d start=100.25 end=102.25"

    def test_given_bytes(self):
        d = transfer.document("b", "dd", "64000000000", "", "copied\n" + self.CLOCK % 0, 0)
        self.assertEqual((d["ok"], d["seconds"], d["bytes_from"]), (True, 2.0, "TRANSFER_BYTES"))
        self.assertAlmostEqual(d["gb_per_s"], 32.0)

    def test_rsync_stats(self):
        out = ("Number of files: 3\nTotal file size: 9,000 bytes\n"
               "Total transferred file size: 4,000,000,000 bytes\nTotal bytes sent: 4,100,000,000\n")
        d = transfer.document("b", "rsync", "", out, self.CLOCK % 0, 0)
        self.assertEqual((d["bytes"], d["bytes_from"]), (4000000000, "rsync --stats"))
        self.assertAlmostEqual(d["gb_per_s"], 2.0)
        self.assertEqual(transfer.stats_bytes("Total transferred file size: 1.50G bytes\n"),
                         int(1.5 * 2 ** 30))
        self.assertEqual(transfer.stats_bytes("Total transferred file size: 0 bytes\n"
                                              "Total bytes sent: 2,048\n"), 2048)
        self.assertIsNone(transfer.stats_bytes("Total transferred file size: lots bytes\n"))

    def test_no_bytes(self):
        d = transfer.document("b", "true", "", "nothing said\n", self.CLOCK % 0, 0)
        self.assertIsNone(d["gb_per_s"])
        self.assertIn("set TRANSFER_BYTES", d["why_no_figure"])

    def test_failed(self):
        d = transfer.document("b", "false", "1000", "", "x\nrsync: connection refused\n\n" +
                              self.CLOCK % 12, 12)
        self.assertEqual((d["gb_per_s"], d["exit_status"]), (None, 12))
        self.assertEqual(d["why_no_figure"], "the command failed (exit 12): rsync: connection refused")
        d = transfer.document("b", "sleep 9", "1000", "", "", 124)
        self.assertEqual(d["why_no_figure"], "no result within TRANSFER_TIMEOUT (exit 124)")

    def test_rung_from_run_dir(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(transfer.rungs(tmp, rung, "b"), [])
            for node, gb in (("a", 1.0), ("b", 2.5)):
                with open(os.path.join(tmp, "transfer-%s.json" % node), "w") as f:
                    json.dump({"tool": "transfer", "ok": True, "gb_per_s": gb, "command": "x",
                               "bytes": 10, "bytes_from": "TRANSFER_BYTES", "seconds": 4,
                               "exit_status": 0}, f)
            r = transfer.rungs(tmp, rung, "b")[0]
            self.assertEqual((r["name"], r["kind"], r["node"], r["measured_gb_per_s"], r["failed"]),
                             ("transfer", "transfer", "b", 2.5, False))


class Record(unittest.TestCase):
    """The record: transfer-NODE.json is the transfer figure of its node; the HTML
    report's headline gains the gap when a transfer figure exists."""

    def test_document_figure(self):
        self.assertEqual(RUN_FILE.match("transfer-b.json").groups(), ("transfer", "b"))
        doc = {"tool": "transfer", "ok": True, "gb_per_s": 1.98}
        f = figures_of(doc, "b", "transfer", {})
        self.assertEqual([(x["rung"], x["node"], x["gb_per_s"]) for x in f], [("transfer", "b", 1.98)])
        self.assertEqual(figures_of(dict(doc, ok=False, gb_per_s=None), "b", "transfer", {}), [])

    def test_headline(self):
        def fig(rung, gb, drive=None):
            return {"rung": rung, "node": "b", "drive": drive, "gb_per_s": gb}
        figs = [fig("drive nvme0n1", 10.4, "nvme0n1"), fig("tcp (8 streams)", 24.8),
                fig("fabric (mem)", 24.4), fig("rsync over ssh", 1.98), fig("transfer", 1.98)]
        self.assertEqual(gap_headline(figs), "the transfer ran at 8% of the wire: 1.98 GB/s "
                         "against tcp (8 streams)'s 24.80 GB/s, the top synthetic rung")
        self.assertIsNone(gap_headline(figs[:-1]))


if __name__ == "__main__":
    unittest.main()
