"""nbw.ladder.report, model and text: each rung against its ceiling, and the binding rung, on the
reference platform's fixture run (tests/fixtures/ladder/ref)."""
import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

from nbwpath import FIXTURES
from nbw.ladder.model import Ladder, gen_name, link_of, pct, rung
from nbw.ladder.text import above_notes, fig, hop_notes, memory_notes, shared_notes, table
from nbw.ladder.report import main

REF = os.path.join(FIXTURES, "ladder", "ref")


class Arithmetic(unittest.TestCase):
    def test_pct_of_a_ceiling(self):
        self.assertAlmostEqual(pct(3.57, 3.6), 99.1667, places=4)
        self.assertIsNone(pct(3.57, 0))
        self.assertIsNone(pct(None, 3.6))
        self.assertIsNone(pct(True, 3.6))

    def test_rung_keeps_numbers_only(self):
        r = rung("drive x", "a", 3.0, 4.0, "n/a", kind="drive")
        self.assertEqual((r["pct_of_ceiling"], r["cpu_s_per_gib"], r["kind"]), (75.0, None, "drive"))

    def test_gen_name(self):
        self.assertEqual(gen_name(8.0, 4), "Gen3 x4")
        self.assertEqual(gen_name(32, 16), "Gen5 x16")
        self.assertIsNone(gen_name(7.0, 4))
        self.assertIsNone(gen_name(8.0, 0))

    def test_link_of_prefers_the_device_own_link(self):
        dev = {"bdf": "0000:01:00.0", "links": [
            {"device_bdf": "0000:00:01.0", "speed_gts": 16.0, "width": 16},
            {"device_bdf": "0000:01:00.0", "speed_gts": 8.0, "width": 4}]}
        self.assertEqual(link_of(dev), (8.0, 4))
        self.assertEqual(link_of({"link": {"speed_gts": 16.0, "width": 8}}), (16.0, 8))
        self.assertEqual(link_of({}), (None, None))


class Reference(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lad = Ladder(REF)
        cls.rungs = cls.lad.build()

    def find(self, name, node):
        return self.lad.rung_of(name, node)

    def test_drives_together_against_three_links(self):
        r = self.find("drives together", "a")
        self.assertAlmostEqual(r["ceiling_gb_per_s"], 10.8)
        self.assertAlmostEqual(r["measured_gb_per_s"], 10.71)

    def test_end_to_end_against_the_rungs_below(self):
        r = self.find("end to end", "a")
        self.assertAlmostEqual(r["ceiling_gb_per_s"], 21.41, places=2)
        self.assertAlmostEqual(r["pct_of_ceiling"], 100.0, places=1)

    def test_ib_write_bw_gbits_to_gbytes(self):
        self.assertAlmostEqual(self.find("ib_write_bw", "b")["measured_gb_per_s"], 392.52 / 8)

    def test_the_link_row_is_a_ceiling_not_a_measurement(self):
        r = self.find("link", "a")
        self.assertEqual((r["measured_gb_per_s"], r["pct_of_ceiling"]), (None, None))
        self.assertAlmostEqual(r["ceiling_gb_per_s"], 10.8)
        row = [l for l in table([r]) if l.startswith("link")][0]
        self.assertRegex(row, r"^link +a +- +10\.80 +- +-$")

    def test_the_drive_links_bind(self):
        b = self.lad.binding()
        self.assertEqual((b["rung"], b["name"], b["node"]), ("drive links", "drive nvme1n1", "b"))


class CeilingsThatHold(unittest.TestCase):
    """A figure above its own ceiling gets no percentage, is flagged and is
    never the binding rung; one below it keeps its percentage."""

    def test_318_percent_is_flagged_not_percent(self):
        r = rung("drive nvme0n1", "a", 0.67, 0.21, kind="drive")
        self.assertEqual((r["above_ceiling"], r["pct_of_ceiling"]), (True, None))
        row = [l for l in table([r]) if l.startswith("drive")][0]
        self.assertIn("above ceiling", row)
        self.assertNotIn("319", row)
        note = above_notes([r])
        self.assertEqual(len(note), 1)
        self.assertIn("3.19x its ceiling of 0.21 GB/s: the link is emulated", note[0])

    def test_end_to_end_above_the_rungs_below_blames_them(self):
        r = rung("end to end", "a", 21.41, 10.71, kind="end_to_end")
        self.assertEqual(above_notes([r]), [
            "above ceiling: end to end on a measured 21.41 GB/s, 2.00x its ceiling of 10.71 GB/s: "
            "a rung below it does not hold; no percentage, kept out of the binding verdict"])

    def test_95_percent_keeps_its_percentage(self):
        r = rung("drive nvme0n1", "a", 3.42, 3.6, kind="drive")
        self.assertEqual(r["above_ceiling"], False)
        self.assertAlmostEqual(r["pct_of_ceiling"], 95.0)
        self.assertRegex(table([r])[1], r" 95\.0 ")
        self.assertEqual(above_notes([r]), [])

    def test_a_hair_above_is_measurement_noise(self):
        # end to end at 100.1% of the rungs below it in the reference run
        r = rung("end to end (sent)", "b", 10.71, 10.70)
        self.assertEqual(r["above_ceiling"], False)
        self.assertTrue(rung("x", "a", 3.8, 3.6)["above_ceiling"])

    def emulated(self, speeds):
        """The reference run with drive nvme1n1 of b read at SPEEDS GB/s
        (the reference: 3.56 of 3.6, the drive furthest below its link)."""
        run = self.copy_ref()
        self.edit(run, "baseline-b.json", lambda j: [
            s.update(gb_per_s=speeds) for s in j["baseline"] if s.get("label") == "nvme1n1 alone"])
        lad = Ladder(run)
        lad.build()
        return lad

    def test_a_drive_above_its_link_is_not_binding(self):
        lad = self.emulated(0.318 * 36)  # 318% of 3.6
        r = lad.rung_of("drive nvme1n1", "b")
        self.assertEqual((r["above_ceiling"], r["pct_of_ceiling"]), (True, None))
        b = lad.binding()
        # the reference binds at nvme1n1 of b; above its ceiling, the next
        # lowest drive that holds binds instead
        self.assertEqual(b["rung"], "drive links")
        self.assertNotEqual((b["name"], b["node"]), ("drive nvme1n1", "b"))
        self.assertEqual([(x["name"], x["node"], x["times_ceiling"]) for x in b["excluded"]],
                         [("drive nvme1n1", "b", 3.18)])

    def copy_ref(self):
        d = tempfile.mkdtemp(prefix="ladder.")
        self.addCleanup(shutil.rmtree, d)
        run = os.path.join(d, "run")
        shutil.copytree(REF, run)
        return run

    def edit(self, run, name, fn):
        p = os.path.join(run, name)
        with open(p) as f:
            j = json.load(f)
        fn(j)
        with open(p, "w") as f:
            json.dump(j, f)

    def report(self, run):
        """The whole report of a run, as main() makes it, its JSON without NaN."""
        lad = Ladder(run)
        rungs = lad.build()
        bind = lad.binding()
        why = lad.attribution(bind)
        json.dumps({"rungs": rungs, "binding": bind, "attribution": why}, allow_nan=False)
        return lad, rungs, bind, why, table(rungs)

    def test_a_health_count_of_infinity_is_refused_not_a_crash(self):
        run = self.copy_ref()
        self.edit(run, "baseline-b.json", lambda j: [x.update(health={
            "log_read": True, "findings": ["throttled", "media_errors", "hot"],
            "warning_temp_c": 1e300 * 1e300, "after": {"temperature_c": 81},
            "deltas": {"tmt1_transitions": 1e300 * 1e300, "tmt1_seconds": 12,
                       "media_errors": 1e300 * 1e300}}) for x in j["drives"]])
        self.edit(run, "baseline-a.json", lambda j: [
            s.update(gb_per_s=1e300 * 1e300) for s in j["baseline"]
            if s.get("label") == "nvme0n1 alone"] + [j["drives"][0].update(
                link_ceiling_gb_per_s=-1e300 * 1e300)])
        lad, rungs, bind, why, text = self.report(run)
        self.assertEqual(lad.rung_of("drive nvme0n1", "a")["measured_gb_per_s"], None)
        self.assertAlmostEqual(lad.rung_of("drive nvme1n1", "b")["measured_gb_per_s"], 3.56)

    def test_numbers_where_lists_and_objects_belong(self):
        run = self.copy_ref()
        self.edit(run, "baseline-b.json", lambda j: j.update(baseline=5, drives=5))
        self.edit(run, "probe-b.json", lambda j: j.update(devices=5))
        self.edit(run, "fabric-b.json", lambda j: j.update(rails=5, counters=5))
        lad, rungs, bind, why, text = self.report(run)
        self.assertAlmostEqual(lad.rung_of("drive nvme0n1", "a")["measured_gb_per_s"], 3.57,
                               places=2)

    def test_a_drive_name_with_a_newline_is_no_line_of_its_own(self):
        run = self.copy_ref()
        forged = "nvme1n1\nbinding: FAILED everything\x1b[2J"
        self.edit(run, "baseline-b.json", lambda j: [
            s.update(label=forged + " alone") for s in j["baseline"]
            if s.get("label") == "nvme1n1 alone"] + [
            x.update(name=forged) for x in j["drives"] if x.get("name") == "nvme1n1"])
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(main([run]), 0)
        with open(os.path.join(run, "ladder.txt")) as f:
            written = f.read()
        for text in (out.getvalue(), written):
            self.assertEqual([x for x in text.splitlines() if x.startswith("binding: ")], [])
            self.assertIn("nvme1n1\\x0abinding: FAILED everything\\x1b[2J", text)
            self.assertNotIn("\x1b", text)

    def test_every_drive_at_318_percent_binds_nothing(self):
        # the lab: emulated links of 1.12 GB/s under drives read at 3.57
        run = self.copy_ref()
        for node in "ab":
            self.edit(run, "baseline-%s.json" % node, lambda j: [
                x.update(link_ceiling_gb_per_s=1.12) for x in j["drives"]])
        lad = Ladder(run)
        lad.build()
        r = lad.rung_of("drive nvme0n1", "a")
        self.assertEqual((r["above_ceiling"], r["pct_of_ceiling"]), (True, None))
        b = lad.binding()
        self.assertEqual((b["rung"], b["name"], b["node"]), (None, None, None))
        self.assertIn("no binding rung among the figures that hold", b["reason"])
        self.assertEqual(len(b["excluded"]), 8)  # 3 drives and together, on each node

    def test_a_fabric_above_its_line_rate_is_not_binding(self):
        # a fabric read at 5 GB/s over ports said to carry 1: without the rule
        # the fabric (below the drives' 10.7) would be named as binding
        run = self.copy_ref()
        for node in "ab":
            def slow(j):
                j["rdma"]["gb_per_s"] = 5.0
                for r in j["rails"]:
                    r["line_rate_gb_per_s"] = 1.0
            self.edit(run, "fabric-%s.json" % node, slow)
        lad = Ladder(run)
        lad.build()
        self.assertTrue(lad.rung_of("fabric (mem)", "b")["above_ceiling"])
        b = lad.binding()
        self.assertNotEqual(b["rung"], "fabric")
        self.assertNotEqual(b["name"], "fabric (mem)")
        self.assertIn(("fabric (mem)", "b"), [(x["name"], x["node"]) for x in b["excluded"]])

    def test_95_percent_drive_binds(self):
        b = self.emulated(3.42).binding()
        self.assertEqual((b["rung"], b["name"], b["node"], b["excluded"]),
                         ("drive links", "drive nvme1n1", "b", []))
        self.assertIn("at 95-99% of their Gen3 x4 ceiling", b["reason"])


class SharedUplink(unittest.TestCase):
    """Node a's three drives put behind one switch whose uplink carries 7.2 GB/s
    (Gen3 x8): the link row and the drives together are capped at it, and a
    line under the table says which hop they share."""

    def run_shared(self, usable=7.2):
        d = tempfile.mkdtemp(prefix="ladder.")
        self.addCleanup(shutil.rmtree, d)
        run = os.path.join(d, "run")
        shutil.copytree(REF, run)
        p = os.path.join(run, "probe-a.json")
        with open(p) as f:
            j = json.load(f)
        for dev in j["devices"]:
            if dev["kind"] == "nvme":
                dev["links"].append({"port_bdf": "0000:15:00.0", "device_bdf": "0000:16:00.0",
                                     "speed_gts": 8.0, "width": 8, "usable_gb_per_s": usable})
        with open(p, "w") as f:
            json.dump(j, f)
        lad = Ladder(run)
        lad.build()
        return lad

    def test_the_sums_are_capped_by_the_uplink(self):
        lad = self.run_shared()
        self.assertAlmostEqual(lad.rung_of("link", "a")["ceiling_gb_per_s"], 7.2)
        tog = lad.rung_of("drives together", "a")
        self.assertAlmostEqual(tog["ceiling_gb_per_s"], 7.2)
        # 10.71 measured through a 7.2 uplink cannot be: flagged, not a percentage
        self.assertEqual((tog["above_ceiling"], tog["pct_of_ceiling"]), (True, None))
        self.assertEqual([h["bdf"] for h in tog["shared_hops"]], ["0000:16:00.0"])
        self.assertEqual(shared_notes(lad.rungs), [
            "drives together on a: ceiling capped by a shared link: 3 drives share hop 0000:16:00.0 "
            "(8 GT/s x8, 7.20 GB/s usable): 7.20 GB/s, not 10.80 summed"])
        # node b has its own root ports: summed as before
        self.assertAlmostEqual(lad.rung_of("drives together", "b")["ceiling_gb_per_s"], 10.8)
        self.assertEqual(lad.rung_of("drives together", "b")["shared_hops"], [])

    def test_a_wide_uplink_changes_nothing(self):
        lad = self.run_shared(28.8)
        self.assertAlmostEqual(lad.rung_of("drives together", "a")["ceiling_gb_per_s"], 10.8)
        self.assertEqual(shared_notes(lad.rungs), [])


class StagingMemory(unittest.TestCase):
    """The staging memory's rung (memory-NODE.json of nvme_read_bw --memory):
    its DRAM traffic against the memory's ceiling, and "memory binds" when
    the path needs NEAR % or more of it."""

    def run_with(self, docs):
        d = tempfile.mkdtemp(prefix="ladder.")
        self.addCleanup(shutil.rmtree, d)
        run = os.path.join(d, "run")
        shutil.copytree(REF, run)
        for node, rows in docs.items():
            with open(os.path.join(run, "memory-%s.json" % node), "w") as f:
                json.dump({"tool": "nvme_read_bw", "params": {"mode": "memory"}, "memory": rows}, f)
        lad = Ladder(run)
        lad.build()
        return lad

    @staticmethod
    def row(dram, ceiling=None, node=0, why="ceiling unknown: no SMBIOS memory devices in sysfs"):
        return {"numa_node": node, "threads": 36, "buffer_bytes": 1048576, "staged_gb_per_s": dram / 2,
                "dram_gb_per_s": dram, "ceiling_gb_per_s": ceiling, "ceiling_source": why}

    def test_the_rung_is_the_slowest_node(self):
        lad = self.run_with({"a": [self.row(80.0, 102.4, 0), self.row(70.0, 102.4, 1)]})
        r = lad.rung_of("staging memory", "a")
        self.assertEqual((r["kind"], r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["numa_node"]),
                         ("memory", 70.0, 102.4, 1))
        self.assertAlmostEqual(r["pct_of_ceiling"], 70 / 102.4 * 100)
        self.assertIsNone(lad.rung_of("staging memory", "b"))
        # each drive at 99% of its link: the links bind, not memory
        self.assertEqual(lad.binding()["rung"], "drive links")

    def test_memory_binds_when_the_path_needs_it(self):
        # b's drives read 10.70 GB/s together: staged on b they need 2 x 10.70 of DRAM
        lad = self.run_with({"b": [self.row(18.2)]})
        r = lad.rung_of("staging memory", "b")
        self.assertEqual((r["ceiling_gb_per_s"], r["pct_of_ceiling"], r["above_ceiling"]), (None, None, False))
        b = lad.binding()
        self.assertEqual((b["rung"], b["name"], b["node"]), ("memory", "staging memory", "b"))
        self.assertAlmostEqual(b["need_gb_per_s"], 21.4)
        self.assertEqual(b["reason"], "memory binds: staging DRAM on b 18.20 GB/s measured (each "
                                      "byte written once and read once), the path needs 2 x 10.70")

    def test_memory_with_room_does_not_bind(self):
        # 2 x 10.70 = 21.4 is under 90% of 24.0
        b = self.run_with({"b": [self.row(24.0)]}).binding()
        self.assertEqual(b["rung"], "drive links")

    def test_the_sink_needs_each_byte_written_once(self):
        # the sink a: its drives (10.71) and the remote part (10.70) land once: 21.41
        self.assertEqual(self.run_with({"a": [self.row(22.0)]}).binding()["rung"], "memory")
        self.assertEqual(self.run_with({"a": [self.row(24.0)]}).binding()["rung"], "drive links")

    def test_a_stream_below_what_the_drives_wrote_is_no_ceiling(self):
        # b's drives wrote 10.70 GB/s into its DRAM: a stream of 9.0 was held by its CPU
        lad = self.run_with({"b": [self.row(9.0)]})
        r = lad.rung_of("staging memory", "b")
        self.assertEqual((r["below_drives"], r["drives_wrote_gb_per_s"]), (True, 10.7))
        self.assertEqual(lad.binding()["rung"], "drive links")
        self.assertEqual(memory_notes(lad.rungs), [
            "staging memory on b measured 9.00 GB/s, less than its drives wrote into it (10.70 GB/s): "
            "the stream was held back by its CPU, not by DRAM; it never binds"])
        self.assertFalse(self.run_with({"b": [self.row(18.2)]}).rung_of("staging memory", "b")["below_drives"])

    def test_memory_above_its_ceiling_is_kept_out(self):
        # the buffers in the cache: 300 GB/s over a 51.2 GB/s memory
        lad = self.run_with({"b": [self.row(18.2, 5.0)]})
        r = lad.rung_of("staging memory", "b")
        self.assertEqual((r["above_ceiling"], r["pct_of_ceiling"]), (True, None))
        b = lad.binding()
        self.assertNotEqual(b["rung"], "memory")
        self.assertIn(("staging memory", "b"), [(x["name"], x["node"]) for x in b["excluded"]])
        self.assertIn("the buffers sat in the CPU's cache", above_notes([r])[0])


class Attribution(unittest.TestCase):
    """The ladder's document and text carry the findings hop by hop."""

    def test_why_lines_and_json(self):
        import contextlib
        import io
        from nbw.ladder.report import main
        d = tempfile.mkdtemp(prefix="ladder.")
        self.addCleanup(shutil.rmtree, d)
        run = os.path.join(d, "run")
        shutil.copytree(REF, run)
        p = os.path.join(run, "baseline-b.json")
        with open(p) as f:
            j = json.load(f)
        j["drives"][1]["link_under_load"] = {"before": {"speed_gts": 8.0, "width": 4},
                                             "min": {"speed_gts": 5.0, "width": 4},
                                             "after": {"speed_gts": 5.0, "width": 4}, "changes": []}
        with open(p, "w") as f:
            json.dump(j, f)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(main([run]), 0)
        with open(os.path.join(run, "ladder.json")) as f:
            doc = json.load(f)
        self.assertEqual([(x["node"], x["rule"]) for x in doc["attribution"]], [("b", "link_trained_down")])
        why = [l for l in out.getvalue().splitlines() if l.startswith("why: ")]
        self.assertEqual(len(why), 1)
        self.assertIn("its link trained Gen2 x4 during the window, Gen3 x4 before it", why[0])
        # the reference run without it: nothing to explain beyond the binding rung
        shutil.copy(os.path.join(REF, "baseline-b.json"), p)
        with contextlib.redirect_stdout(io.StringIO()) as out:
            main([run])
        self.assertNotIn("why: ", out.getvalue())


class SmallFigures(unittest.TestCase):
    def test_significant_digits_below_a_tenth(self):
        self.assertEqual([fig(v) for v in (0.0045, 0.04562, 0.00123, 0.099, 0.1, 49.256, 0.0, None)],
                         ["0.0045", "0.046", "0.0012", "0.099", "0.10", "49.26", "0.00", "-"])

    def test_the_lab_fabric_row_is_not_zero(self):
        r = rung("fabric (mem)", "b", 0.0045, None, 49.256, kind="fabric")
        self.assertRegex(table([r])[1], r"^fabric \(mem\) +b +0\.0045 +- +- +49\.256$")


class StagingHop(unittest.TestCase):
    """The hop through the source's DRAM: 2 GB/s of DRAM traffic per GB/s moved,
    and the drives its probe's --topology finds able to go peer-to-peer."""

    def ladder(self, topology=None):
        d = tempfile.mkdtemp(prefix="ladder.")
        self.addCleanup(shutil.rmtree, d)
        run = os.path.join(d, "run")
        shutil.copytree(REF, run)
        lad = Ladder(run)
        lad.build()
        if topology is not None:
            lad.probe.setdefault(lad.source, {})["topology"] = topology
        return lad

    def test_the_cost_at_what_the_source_moves(self):
        hop = self.ladder().staging_hop()
        # the source b's drives read 10.70 GB/s together, under its fabric: 21.40 of DRAM
        self.assertEqual((hop["node"], hop["dram_gb_per_gb"], hop["drives"]), ("b", 2, None))
        self.assertAlmostEqual(hop["dram_gb_per_s"], 2 * hop["moved_gb_per_s"])
        self.assertAlmostEqual(hop["moved_gb_per_s"], 10.70, places=2)
        self.assertEqual(hop_notes(hop), [
            "staging hop on b: each GB/s moved costs 2 GB/s of DRAM traffic (the drive writes it, the "
            "NIC reads it): 21.40 GB/s of DRAM traffic at 10.70 GB/s moved; whether p2pdma could "
            "remove it: unknown (the probe ran without --topology)"])

    def test_p2p_drives_from_the_probe(self):
        topo = {"nearest_rdma": [{"name": "nvme0", "rdma": "mlx5_0"}, {"name": "nvme1", "rdma": "mlx5_0"},
                                 {"name": "nvme2", "rdma": None}],
                "pairs": [{"a": "nvme0", "b": "mlx5_0", "p2p": {"can": True}},
                          {"a": "nvme1", "b": "mlx5_0", "p2p": {"can": False}},
                          {"a": "nvme0", "b": "nvme1", "p2p": None}]}
        hop = self.ladder(topo).staging_hop()
        self.assertEqual((hop["drives"], hop["p2p_drives"]), (3, 1))
        self.assertIn("p2pdma could remove it for 1 of 3 drives", hop_notes(hop)[0])


if __name__ == "__main__":
    unittest.main()
