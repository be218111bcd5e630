"""nbw.results.openmetrics: the latest figures as OpenMetrics text, read back by a small
strict parser (families declared once, TYPE/UNIT/HELP before samples, names ending in
their unit, escaped label values, # EOF last)."""
import json
import re
import unittest

import nbwpath  # noqa: F401
from nbw.results.openmetrics import render, verdict_word
from nbw.results.push import batches, push_target

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"'
LABEL_NC = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\\\|\\"|\\n)*"'
SAMPLE = re.compile(r"^(?P<name>%s)\{(?P<labels>%s(?:,%s)*)\} (?P<v>\S+)(?: (?P<ts>\S+))?$" % (
    NAME, LABEL_NC, LABEL_NC))


def parse(text):
    """{family: {"type", "unit", "help", "samples": [(labels, value, ts)]}}; raises on
    anything the OpenMetrics text format does not allow."""
    if not text.endswith("# EOF\n"):
        raise ValueError("no # EOF at the end")
    fams, cur, seen = {}, None, set()
    for line in text[:-len("# EOF\n")].split("\n")[:-1]:
        m = re.match(r"^# (TYPE|UNIT|HELP) (%s) ?(.*)$" % NAME, line)
        if m:
            kind, name, rest = m.groups()
            if name != cur:
                if name in fams:
                    raise ValueError("family %s split" % name)
                fams[name] = {"samples": []}
                cur = name
            if kind.lower() in fams[name] or fams[name]["samples"]:
                raise ValueError("%s of %s repeated or after its samples" % (kind, name))
            fams[name][kind.lower()] = rest
            continue
        m = SAMPLE.match(line)
        if not m or m.group("name") != cur:
            raise ValueError("not a sample of the current family: %r" % line)
        labels = dict(re.findall(LABEL, m.group("labels")))
        key = (cur, tuple(sorted(labels.items())))
        if key in seen:
            raise ValueError("sample repeated: %r" % line)
        seen.add(key)
        ts = float(m.group("ts")) if m.group("ts") else None
        fams[cur]["samples"].append((labels, float(m.group("v")), ts))
    for name, f in fams.items():
        if f.get("type") != "gauge" or "help" not in f:
            raise ValueError("%s: no TYPE gauge or no HELP" % name)
        if f.get("unit") and not name.endswith("_" + f["unit"]):
            raise ValueError("%s: does not end in its unit %s" % (name, f["unit"]))
    return fams


def fig(rung, drive, gb, metrics, node="n1", started="2026-02-01T10:00:00Z", mode="ladder"):
    return {"rung": rung, "node": node, "drive": drive, "gb_per_s": gb, "started": started,
            "mode": mode, "params": json.dumps({"chunk": 4096, "RDMA_DEV": "mlx5_0"}),
            "metrics": json.dumps(metrics)}


class Render(unittest.TestCase):
    def setUp(self):
        self.figs = [fig("read", None, 0.0808716, {"iops": 19744.0, "lat_p99_us": 5898.24,
                                                   "cpu_s_per_gib": 2.0}),
                     fig('a "quoted"\\rung', "nvme0n1", 3.5, {})]

    def test_families_in_base_units(self):
        f = parse(render(self.figs))
        bw = f["nbw_throughput_bytes_per_second"]
        self.assertEqual((bw["unit"], bw["type"]), ("bytes_per_second", "gauge"))
        self.assertEqual(bw["samples"][0][1], 80871600.0)  # 0.0808716 GB/s
        self.assertEqual(f["nbw_io_rate_operations_per_second"]["samples"][0][1], 19744.0)
        lat = f["nbw_latency_seconds"]["samples"]
        self.assertEqual([(s[0]["percentile"], s[1]) for s in lat], [("p99", 0.00589824)])
        self.assertAlmostEqual(f["nbw_cpu_seconds_per_byte"]["samples"][0][1] * (1 << 30), 2.0,
                               places=9)

    def test_labels_and_the_runs_time(self):
        f = parse(render(self.figs, timestamps=True))
        labels, _, ts = f["nbw_throughput_bytes_per_second"]["samples"][0]
        self.assertEqual(labels, {"node": "n1", "drive": "", "rail": "mlx5_0", "rung": "read",
                                  "mode": "ladder"})
        self.assertEqual(ts, 1769940000.0)  # 2026-02-01T10:00:00Z
        self.assertEqual(f["nbw_run_start_timestamp_seconds"]["samples"][0][1], 1769940000.0)

    def test_label_values_escaped(self):
        text = render(self.figs)
        self.assertIn(r'rung="a \"quoted\"\\rung"', text)
        parse(text)

    def test_no_timestamps_for_the_textfile_collector(self):
        # by default: node_exporter's textfile collector refuses them, stdout included
        f = parse(render(self.figs))
        self.assertEqual({s[2] for s in f["nbw_throughput_bytes_per_second"]["samples"]},
                         {None})

    def test_a_ceiling_is_never_a_throughput(self):
        f = parse(render(self.figs + [fig("link", "mlx5_0", 56.7, {})]))
        self.assertEqual([(s[0]["rung"], s[0]["drive"], s[1]) for s in
                          f["nbw_ceiling_bytes_per_second"]["samples"]],
                         [("link", "mlx5_0", 56.7e9)])
        self.assertEqual(f["nbw_ceiling_bytes_per_second"]["unit"], "bytes_per_second")
        self.assertNotIn("link", {s[0]["rung"] for s in
                                  f["nbw_throughput_bytes_per_second"]["samples"]})

    def test_the_last_runs_status_and_time_per_node_and_rung(self):
        status = {("n1", "read"): (1, 1769940000.0), ("n2", "read"): (0, 1769943600.0),
                  ("n3", ""): (0, None)}
        f = parse(render(self.figs, status=status))
        self.assertEqual([(s[0]["node"], s[0]["rung"], s[1]) for s in
                          f["nbw_last_run_ok"]["samples"]],
                         [("n1", "read", 1.0), ("n2", "read", 0.0), ("n3", "", 0.0)])
        self.assertNotIn("unit", f["nbw_last_run_ok"])
        self.assertEqual([(s[0]["node"], s[1]) for s in
                          f["nbw_last_run_timestamp_seconds"]["samples"]],
                         [("n1", 1769940000.0), ("n2", 1769943600.0)])

    def test_a_group_per_node(self):
        self.assertEqual(push_target("http://gw:9091", "gpu-node-017"),
                         "http://gw:9091/metrics/job/nbw/instance/gpu-node-017")
        self.assertEqual(push_target("http://gw:9091/metrics/job/bench/", "a"),
                         "http://gw:9091/metrics/job/bench/instance/a")
        self.assertEqual(push_target("http://gw:9091", "a/b"),
                         "http://gw:9091/metrics/job/nbw/instance@base64/YS9i")
        self.assertEqual(push_target("http://gw:9091", ""),
                         "http://gw:9091/metrics/job/nbw/instance@base64/=")

    def test_a_fleet_rail_is_its_own_label(self):
        f = parse(render([fig("fleet rail 3", None, 24.0, {}, mode="fleet")],
                         status={("n1", "fleet rail 3"): (0, None)}))
        labels = f["nbw_throughput_bytes_per_second"]["samples"][0][0]
        self.assertEqual((labels["rung"], labels["rail"]), ("fleet rail", "3"))
        self.assertEqual(f["nbw_last_run_ok"]["samples"][0][0],
                         {"node": "n1", "rung": "fleet rail", "rail": "3"})

    def test_each_nodes_verdict_one_of_the_three(self):
        f = parse(render(self.figs, verdicts={"n2": "suspect", "n1": "pass",
                                              "n10": verdict_word("NOT MEASURED")}))
        on = [(s[0]["node"], s[0]["verdict"]) for s in f["nbw_node_verdict"]["samples"]
              if s[1] == 1]
        self.assertEqual(sorted(on), [("n1", "pass"), ("n10", "not_measured"),
                                      ("n2", "suspect")])
        self.assertEqual(len(f["nbw_node_verdict"]["samples"]), 9)  # 3 nodes x 3 words
        self.assertNotIn("unit", f["nbw_node_verdict"])

    def test_a_fleet_in_groups_a_node_always_in_the_same(self):
        nodes = {"n%d" % i: None for i in range(1, 201)}
        a, b = batches(nodes, 8), batches(dict(nodes, n999=None), 8)
        self.assertEqual(sorted(a), ["fleet-%02d-of-08" % k for k in range(8)])
        self.assertEqual(sum(map(len, a.values())), 200)
        self.assertTrue(all(a[k] == [n for n in b[k] if n != "n999"] for k in a))
        self.assertEqual(batches({"n2": 0, "n10": 0}, 0), {"n2": ["n2"], "n10": ["n10"]})

    def test_nothing_but_eof(self):
        self.assertEqual(render([]), "# EOF\n")
        self.assertEqual(parse("# EOF\n"), {})

    def test_the_parser_is_strict(self):
        good = render(self.figs)
        for bad in (good[:-len("# EOF\n")], good.replace("# HELP", "# HALP", 1),
                    good + good.replace("# EOF\n", "")):
            with self.assertRaises(ValueError):
                parse(bad)


if __name__ == "__main__":
    unittest.main()
