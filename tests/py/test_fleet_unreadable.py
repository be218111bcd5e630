"""What a node of a sweep returns that is not a readable document, a number or a name
(nested past nbw.jsonutil's bound, integers past a float, lists and objects where
numbers and names belong): noted as unreadable and left out, never fatal; the other
nodes judged as before (nbw.fleet.sweepdir and nbw.fleet.judge on fleetgen's fleets)."""

import nbwpath  # noqa: F401
import json
import os
import shutil
import tempfile
import unittest

from fleetgen import Fleet
from nbw.fleet.judge import judge
from nbw.fleet.sweepdir import read_sweep


def verdicts(res):
    return {v["node"]: v["verdict"] for v in res["verdicts"]}


class Unreadable(unittest.TestCase):
    """What a node returns that is not a document, a number or a name: noted and left
    out; the other nodes judged as before."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-unreadable.")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.fleet = Fleet(4, 1, 2, pairs="all", seed=2)
        self.top = os.path.join(self.tmp, "s")
        self.fleet.write(self.top)
        self.liar = self.fleet.names[2]

    def put(self, rel, text):
        with open(os.path.join(self.top, rel), "w") as f:
            f.write(text)

    def judged(self):
        res = judge(read_sweep(self.top))
        json.dumps(res)
        return res

    def test_nested_and_huge_documents(self):
        self.put("nodes/%s/probe.json" % self.liar, "[" * 200000 + "]" * 200000)
        self.put("nodes/%s/read.json" % self.liar, '{"tool":"nvme_read_bw","total":{"gb_per_s":1%s}}'
                 % ("0" * 5000))
        res = self.judged()
        why = {m["part"]: m["reason"] for m in res["not_measured_parts"]}
        self.assertEqual(why["nodes/%s/probe.json" % self.liar],
                         "unreadable: nested deeper than 64 levels")
        v = verdicts(res)
        self.assertEqual(v[self.fleet.names[0]], "PASS")

    def test_lists_where_numbers_and_names_belong(self):
        def probe(d):
            for dev in d["devices"]:
                dev["link"]["max_speed_gts"] = [1, 2]
                dev["link"]["max_width"] = {"x": 1}
                dev.setdefault("network", {})["link_layer"] = ["InfiniBand"]
            d["devices"].append({"name": ["x"], "bdf": {"a": 1}})
        path = "nodes/%s/probe.json" % self.liar
        with open(os.path.join(self.top, path)) as f:
            doc = json.load(f)
        probe(doc)
        self.put(path, json.dumps(doc))
        for f in os.listdir(os.path.join(self.top, "fabric", self.liar)):
            self.put("fabric/%s/%s" % (self.liar, f), json.dumps(
                {"tool": "nvme_write_bw_remote", "role": "bidir",
                 "receive": {"rails": [{"local_dev": ["a"], "gb_per_s": 10 ** 400,
                                        "line_rate_gb_per_s": [1]},
                                       {"local_dev": "mlx5_0", "gb_per_s": 48.0,
                                        "line_rate_gb_per_s": {"a": 1}}],
                             "rdma": {"gb_per_s": [1]}}}))
        res = self.judged()
        v = verdicts(res)
        self.assertEqual(v[self.fleet.names[0]], "PASS")


class Numbers(unittest.TestCase):
    """A number from a node that is not finite, or a number where an object belongs:
    refused by the one reader (nbw.jsonutil.as_number, dicts), never a crash; the
    other nodes judged as before."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-numbers.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def sweep(self, edit, **faults):
        fleet = Fleet(4, 1, 2, pairs="all", seed=2, **faults)
        top = os.path.join(self.tmp, "s")
        fleet.write(top)
        liar = fleet.names[2]
        path = os.path.join(top, "nodes/%s/read.json" % liar)
        with open(path) as f:
            text = edit(f.read())
        with open(path, "w") as f:
            f.write(text)
        res = judge(read_sweep(top))
        json.dumps(res, allow_nan=False)
        return fleet, liar, res

    def test_a_health_count_of_infinity(self):
        def edit(text):
            return text.replace('"tmt1_transitions": 3', '"tmt1_transitions": 1e999', 1) \
                .replace('"warning_temp_c": 75', '"warning_temp_c": -1e999', 1)
        fleet = Fleet(4, 1, 2, seed=2)
        liar = fleet.names[2]
        fleet, liar, res = self.sweep(edit, slow_drives=[(liar, 0, 0.4)],
                                      hot_drives=[(liar, 0)])
        v = verdicts(res)
        self.assertEqual((v[liar], v[fleet.names[0]]), ("SUSPECT", "PASS"))
        s = next(x for x in res["suspects"] if x["node"] == liar)
        self.assertEqual(s["evidence"]["health"]["says"],
                         "throttled in the window (thermal management T1 +0 transitions, "
                         "12 s); crossed its warning temperature: 1 min above its warning "
                         "temperature")

    def test_baseline_a_number_where_a_list_belongs(self):
        fleet, liar, res = self.sweep(lambda t: json.dumps(dict(json.loads(t), baseline=5)))
        v = verdicts(res)
        self.assertEqual(v[fleet.names[0]], "PASS")
        self.assertIn(v[liar], ("PASS", "NOT MEASURED"))

    def test_numbers_where_lists_belong_in_the_probe_and_the_fabric(self):
        fleet, liar, res = self.sweep(lambda t: t)
        top = os.path.join(self.tmp, "s")
        with open(os.path.join(top, "nodes/%s/probe.json" % liar), "w") as f:
            json.dump({"tool": "nvme_link_probe", "devices": 5}, f)
        for name in os.listdir(os.path.join(top, "fabric", liar)):
            path = os.path.join(top, "fabric", liar, name)
            with open(path) as f:
                doc = json.load(f)
            for side in ("receive", "send"):
                if isinstance(doc.get(side), dict):
                    doc[side]["rails"] = 5
            with open(path, "w") as f:
                json.dump(doc, f)
        res = judge(read_sweep(top))
        json.dumps(res, allow_nan=False)
        self.assertEqual(verdicts(res)[fleet.names[0]], "PASS")


if __name__ == "__main__":
    unittest.main()
