"""A lying node of a sweep (nbw.fleet.judge over generated fleets, fleetgen, then one
node's documents rewritten as a compromised node would write them): each node is one
voice in its kind's median, so one node's claims neither make its healthy peers
suspects nor hide it; parts its probe does not show, or that no other node has, are
reported and never the reference."""

import nbwpath  # noqa: F401
import json
import os
import shutil
import tempfile
import unittest

from fleetgen import Fleet
from nbw.fleet.judge import judge
from nbw.fleet.report import reason
from nbw.fleet.sweepdir import read_sweep


def verdicts(res):
    return {v["node"]: v["verdict"] for v in res["verdicts"]}


class Liar(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fleet-liar.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def sweep(self, fleet):
        self.top = os.path.join(self.tmp, "s")
        fleet.write(self.top)
        return self.top

    def rewrite(self, rel, change):
        path = os.path.join(self.top, rel)
        with open(path) as f:
            doc = json.load(f)
        doc = change(doc) or doc
        with open(path, "w") as f:
            json.dump(doc, f)

    def test_twelve_drives_at_35_make_no_healthy_suspect(self):
        fleet = Fleet(5, 1, 2, pairs="all", seed=3)
        self.sweep(fleet)
        liar = fleet.names[4]
        drives = [{"path": "/dev/nvme%dn1" % i, "name": "nvme%dn1" % i, "model": fleet.model(liar),
                   "gb_per_s": 35.0, "link_ceiling_gb_per_s": 3.6} for i in range(12)]
        doc = {"tool": "nvme_read_bw", "version": "0.1.0", "drives": drives,
               "baseline": [{"label": "nvme%dn1 alone" % i, "gb_per_s": 35.0} for i in range(12)],
               "total": {"gb_per_s": 420.0}}
        self.rewrite("nodes/%s/read.json" % liar, lambda d: doc)
        res = judge(read_sweep(self.top))
        v = verdicts(res)
        self.assertEqual([v[n] for n in fleet.names[:4]], ["PASS"] * 4, res["suspects"])
        # Its drives the probe does not show (nvme2n1 on): reported as such.
        notes = {p["component"]: p.get("note") for p in res["parts"]
                 if p["node"] == liar and p["kind"] == "drive"}
        self.assertIsNone(notes["nvme0n1"])
        self.assertEqual(notes["nvme11n1"], "not shown by its node's probe: never a reference")
        # Its drives held to its peers' median (3.5 GB/s), not to its own claim; and the
        # liar named for the drives it invents.
        med = {p["fleet_median_gb_per_s"] for p in res["parts"] if p["kind"] == "drive"} - {None}
        self.assertEqual(len(med), 1)
        self.assertLess(med.pop(), 4.0)
        self.assertEqual(v[liar], "SUSPECT")
        # Its claims above its links' ceilings (3.6 GB/s) named first, as claims.
        self.assertEqual([x["what"] for x in res["verdicts"] if x["node"] == liar],
                         ["12 drives claims 35 GB/s (claims more than its link can carry); "
                          "drives together claims 420 GB/s (claims more than its links can "
                          "carry); 10 drives its probe does not show -"])
        # Its reason says what it is, not "below its peers" (it has no figure).
        why = [reason(s) for s in res["suspects"] if s["node"] == liar]
        self.assertEqual(len(why), 3)
        self.assertTrue(why[2].startswith("its read claims 10 drives its own probe does not "
                                          "show (nvme10n1, nvme11n1, nvme2n1, "), why[2])
        # Never a recorded figure.
        self.assertEqual({p["figure_gb_per_s"] for p in res["parts"] if p["node"] == liar
                          and p["kind"] == "drive"}, {None})

    def test_forged_shares_name_no_healthy_link(self):
        fleet = Fleet(4, 1, 2, pairs="all", seed=2)
        self.sweep(fleet)
        liar = fleet.names[3]

        def forge(d):
            d["receive"]["rdma"]["gb_per_s"] *= 20
        for f in os.listdir(os.path.join(self.top, "remote", liar)):
            self.rewrite("remote/%s/%s" % (liar, f), forge)

        def tiny(d):  # its own total, the base of what it sends: a share 20 x too
            d["total"]["gb_per_s"] /= 20
        self.rewrite("nodes/%s/read.json" % liar, tiny)
        res = judge(read_sweep(self.top))
        v = verdicts(res)
        self.assertEqual([v[n] for n in fleet.names[:3]], ["PASS"] * 3, res["suspects"])
        self.assertFalse([s for s in res["suspects"] if liar not in (s["node"], s.get("peer"))])

    def test_a_kind_no_other_node_has_is_no_reference(self):
        fleet = Fleet(4, 1, 2, pairs="all", seed=2)
        self.sweep(fleet)
        liar = fleet.names[1]

        def model(d):
            for x in d["drives"]:
                x["model"] = "ONLY-ME"
            d["baseline"][0]["gb_per_s"] = 0.5
        self.rewrite("nodes/%s/read.json" % liar, model)
        res = judge(read_sweep(self.top))
        mine = [p for p in res["parts"] if p["node"] == liar and p["kind"] == "drive"]
        self.assertEqual([(p["ratio"], p.get("note")) for p in mine],
                         [(None, "no other node has its kind: no reference")] * 2)


if __name__ == "__main__":
    unittest.main()
