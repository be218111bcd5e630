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


if __name__ == "__main__":
    unittest.main()
