"""nbw.bench_read: bench_read.sh's figures, ratios and table rows."""
import os
import sys
import unittest

sys.dont_write_bytecode = True
PYTHON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if PYTHON not in sys.path:
    sys.path.insert(0, PYTHON)

from nbw import bench_read as br  # noqa: E402


class Figures(unittest.TestCase):
    def test_to_bytes_powers_of_1024(self):
        self.assertEqual(br.to_bytes("4096"), 4096)
        self.assertEqual(br.to_bytes("4K"), 4096)
        self.assertEqual(br.to_bytes("1m"), 1 << 20)
        self.assertEqual(br.to_bytes("2G"), 2 << 30)
        with self.assertRaises(ValueError):
            br.to_bytes("4KB")

    def test_cpu_seconds_takes_the_last_two_fields(self):
        self.assertAlmostEqual(br.cpu_seconds("warning: x\n0.25 1.50\n"), 1.75)

    def test_one_run_out_of_each_document(self):
        ours = {"total": {"bytes": 8192, "ios": 2, "seconds": 1.5,
                          "latency_us": {"p99": 812.5}}}
        self.assertEqual(br.ours_seq(ours, 0.5), (8192, 1.5, 0.5))
        self.assertEqual(br.ours_rand(ours, 0.5), (2, 1.5, 0.5, 812.5))
        del ours["total"]["latency_us"]
        self.assertEqual(br.ours_rand(ours, 0.5)[3], None)
        fio = {"jobs": [{"error": 0, "read": {
            "io_bytes": 4096, "total_ios": 1, "runtime": 2500,
            "lat_ns": {"percentile": {"99.000000": 733000}}}}]}
        self.assertEqual(br.fio_seq(fio, 1.0), (4096, 2.5, 1.0))
        self.assertEqual(br.fio_rand(fio, 1.0), (1, 2.5, 1.0, 733.0))
        fio["jobs"][0]["read"]["lat_ns"] = {}  # --gtod_reduce=1: no percentiles
        self.assertIsNone(br.fio_rand(fio, 1.0)[3])
        fio["jobs"][0]["error"] = 5
        with self.assertRaises(RuntimeError):
            br.fio_rand(fio, 1.0)
        self.assertEqual(br.run_line((3, 1.5, 0.25, None)), "3 1.5 0.25 -")


class Ratios(unittest.TestCase):
    def test_ratio_and_missing_sides(self):
        self.assertAlmostEqual(br.ratio(3.0, 4.0), 0.75)
        self.assertIsNone(br.ratio(None, 4.0))
        self.assertIsNone(br.ratio(3.0, 0))

    def test_rand_figures_sum_the_rounds_and_take_the_median_p99(self):
        runs = [(1000, 1.0, 0.002, 800.0), (3000, 2.0, 0.004, 900.0), (2000, 1.0, 0.003, 1500.0)]
        f = br.rand_figures(runs)
        self.assertAlmostEqual(f["iops"], 6000 / 4.0)  # all reads over all seconds
        self.assertEqual((f["iops_lo"], f["iops_hi"]), (1000.0, 2000.0))
        self.assertEqual(f["p99"], 900.0)  # the median, not the mean (1066.7)
        self.assertEqual((f["p99_lo"], f["p99_hi"]), (800.0, 1500.0))
        self.assertAlmostEqual(f["cpu_us"], 0.009 / 6000 * 1e6)

    def test_rand_ratios_and_the_bar(self):
        ours = br.rand_figures([(1100, 1.0, 0.0011, 1050.0)])
        fio = br.rand_figures([(1000, 1.0, 0.0020, 1000.0)])
        iops, p99, cpu = br.rand_ratios(ours, fio)
        self.assertAlmostEqual(iops, 1.1)
        self.assertAlmostEqual(p99, 1.05)
        self.assertAlmostEqual(cpu, 0.5)  # 1 us per read against 2 us
        self.assertEqual(br.verdict(iops, p99, cpu), "ok")
        self.assertEqual(br.verdict(0.99, 1.11, 1.01), "short: IOPS, p99, CPU")
        self.assertEqual(br.verdict(1.0, None, 1.0), "ok")  # untimed: no p99 to hold
        self.assertEqual(br.verdict(1.0, 1.10, 1.0), "ok")  # the bar itself passes

    def test_seq_ratios_pair_like_buffers_first(self):
        lines = ["ours-psync 12 1 huge 2000000000 1.0 2.0",
                 "fio-psync-huge 12 1 huge 1000000000 1.0 2.0",
                 "fio-psync-4k 12 1 4k 500000000 1.0 2.0",
                 "ours-psync 12 1 huge 2000000000 1.0 2.0",
                 "ours-io_uring 1 8 huge 8000000000 2.0 1.0"]
        per_round = {}
        agg, info, order = br.seq_aggregate(lines, per_round)
        self.assertEqual(order, ["ours-psync", "fio-psync-huge", "fio-psync-4k", "ours-io_uring"])
        self.assertEqual(agg["ours-psync"], [4000000000, 2.0, 4.0])
        self.assertEqual(per_round["ours-psync"], [2.0, 2.0])
        self.assertEqual(per_round["ours-io_uring"], [4.0])
        rows = br.seq_ratio_rows(agg, info, "12")
        labels = [r[0] for r in rows]
        self.assertEqual(labels, ["ours/fio psync (both huge)",
                                  "ours/fio psync (ours huge, fio 4k: buffers)",
                                  "io_uring x1 / psync x12 (ours)"])
        self.assertAlmostEqual(rows[0][1], 2.0)  # 2 GB/s against 1 GB/s
        self.assertAlmostEqual(rows[0][2], 0.5)  # same CPU for twice the bytes
        self.assertEqual(rows[0][3], "bw >= 0.97, cpu <= 1.00")
        self.assertAlmostEqual(rows[2][1], 2.0)  # 4 GB/s io_uring against 2 GB/s psync

    def test_seq_table_rows_carry_the_rounds_spread(self):
        lines = ["ours-psync 12 1 huge 2000000000 1.0 2.0",
                 "ours-psync 12 1 huge 1000000000 1.0 2.0"]
        out = br.seq_table(lines, "/f", "1M", "12", "8", "2")
        row = [line for line in out if line.startswith("ours-psync")][0].split()
        self.assertEqual(row[4:], ["1.500", "1.4317", "1.000-2.000"])


class Rows(unittest.TestCase):
    LINES = ["ours io_uring 32 on 80000 1.0 0.4 700.0",
             "fio io_uring 32 on 75000 1.0 0.6 720.0",
             "ours io_uring 32 off 70000 1.0 0.3 -",
             "fio io_uring 32 off 77000 1.0 0.6 -",
             "ours io_uring 32 on 76000 1.0 0.4 900.0",
             "fio io_uring 32 on 73000 1.0 0.6 750.0"]

    def test_groups_keep_their_first_order(self):
        g = br.rand_groups(self.LINES)
        self.assertEqual(list(g), [("io_uring", 32, "on"), ("io_uring", 32, "off")])
        self.assertEqual(len(g[("io_uring", 32, "on")]["ours"]), 2)
        self.assertIsNone(g[("io_uring", 32, "off")]["fio"][0][3])

    def test_rows_ours_fio_and_the_ratio(self):
        g = br.rand_groups(self.LINES)
        rows = br.rand_rows(("io_uring", 32, "on"), g[("io_uring", 32, "on")])
        self.assertEqual(len(rows), 3)
        ours, fio, r = (row.split() for row in rows)
        self.assertEqual(ours[:5], ["io_uring", "32", "on", "ours", "78000"])
        self.assertEqual(ours[5], "76000-80000")  # the rounds' spread
        self.assertEqual(ours[6], "800.0")  # median of 700 and 900
        self.assertEqual(fio[4], "74000")
        # pooled 1.054; by round 80/75 = 1.07 and 76/73 = 1.04; p99 700/720, 900/750
        self.assertEqual(r[3:], ["ours/fio", "1.054", "1.04-1.07", "1.088", "0.97-1.20",
                                 "0.632", "ok"])
        rows = br.rand_rows(("io_uring", 32, "off"), g[("io_uring", 32, "off")])
        r = rows[2].split()
        self.assertEqual(r[3:7], ["ours/fio", "0.909", "0.91-0.91", "-"])
        self.assertTrue(rows[2].endswith("short: IOPS"))

    def test_table_head_and_a_row_per_case(self):
        out = br.rand_table(self.LINES, "/dev/x", "4K", "10", "2")
        self.assertTrue(out[0].startswith("target /dev/x: random 4K reads"))
        self.assertEqual(sum(1 for line in out if line.startswith("io_uring")), 6)


class Paired(unittest.TestCase):
    def test_each_round_against_its_partner_not_the_pooled_sums(self):
        # A round of ours at 100k beside fio at 90k, then a slow minute: 50k beside 60k.
        # Pooled, both made 150k reads (1.00); by round, 1.11 and 0.83.
        ours = [(100000, 1.0, 0.1, 500.0), (50000, 1.0, 0.1, 900.0)]
        fio = [(90000, 1.0, 0.1, 400.0), (60000, 1.0, 0.1, 1000.0)]
        self.assertEqual([round(x, 3) for x in br.paired_ratios(ours, fio, "iops")],
                         [1.111, 0.833])
        self.assertEqual(br.paired_span(ours, fio, "iops"), "0.83-1.11")
        self.assertEqual(br.paired_span(ours, fio, "p99"), "0.90-1.25")

    def test_rounds_without_a_figure_are_left_out(self):
        ours = [(100000, 0.0, 0.1, None), (50000, 1.0, 0.1, None), (70000, 1.0, 0.1, None)]
        fio = [(90000, 1.0, 0.1, None), (0, 1.0, 0.1, None)]
        # round 1: ours ran no time; round 2: fio read nothing; round 3: fio has no run
        self.assertEqual(br.paired_ratios(ours, fio, "iops"), [])
        self.assertEqual(br.paired_span(ours, fio, "iops"), "-")
        self.assertEqual(br.paired_span(ours, fio, "p99"), "-")


class Check(unittest.TestCase):
    SEQ = ["ours-psync 12 1 huge 2000000000 1.0 1.0",
           "fio-psync-huge 12 1 huge 2100000000 1.0 2.0"]

    def test_the_seq_row_against_fio_on_huge_pages_and_its_bar(self):
        rows = br.check_rows(self.SEQ, [], "12")
        self.assertEqual(rows, [("seq psync x12, 1M, both huge",
                                 "GB/s 0.952, CPU/GiB 0.525", "", "short: bandwidth")])
        rows = br.check_rows([self.SEQ[0], "fio-psync-huge 12 1 huge 2050000000 1.0 0.5"],
                             [], "12")
        self.assertEqual(rows[0][3], "short: CPU")  # 0.976x bandwidth, 1.95x CPU
        self.assertEqual(br.check_rows([self.SEQ[0]], [], "12")[0][3], "missing")

    def test_every_random_case_with_its_verdict_and_the_count(self):
        out = br.check_table(self.SEQ[:1] + ["fio-psync-huge 12 1 huge 1900000000 1.0 2.0"],
                             Rows.LINES, "12")
        body = out[3:-1]
        self.assertEqual([r.split()[0:4] for r in body],
                         [["seq", "psync", "x12,", "1M,"], ["rand", "io_uring", "depth", "32,"],
                          ["rand", "io_uring", "depth", "32,"]])
        self.assertTrue(body[0].endswith("ok"))
        self.assertIn("IOPS 1.054, p99 1.088, CPU/read 0.632     1.04-1.07", body[1])
        self.assertTrue(body[2].endswith("short: IOPS"))
        self.assertEqual(out[-1], "2 of 3 rows meet the bar")


if __name__ == "__main__":
    unittest.main()
