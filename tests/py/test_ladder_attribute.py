"""nbw.ladder.attribute: each rule of the table on documents built in memory,
one value that fires and one that does not; the link rule on the keys a
device object carries when its link is sampled under load
("link_under_load": before, min, after, changes; "aer": correctable,
nonfatal, fatal with before, after, delta, or "not kept")."""
import unittest

import nbwpath  # noqa: F401
from nbw.ladder.attribute import (DEVICE_RULES, devices, drive_peers, explain, explain_device,
                                  link_name, remote_findings)


def link(speed, width):
    return {"speed_gts": speed, "width": width}


def under_load(before, low, after, changes=()):
    return {"before": before, "min": low, "after": after,
            "changes": [dict(link(s, w), t_s=t) for t, s, w in changes]}


def aer(c=0, nf=0, fa=0):
    return {k: {"before": 5, "after": 5 + v, "delta": v}
            for k, v in (("correctable", c), ("nonfatal", nf), ("fatal", fa))}


def rules_of(dev):
    return [f["rule"] for f in explain_device("b", dev)]


class DeviceRules(unittest.TestCase):
    def test_link_name(self):
        self.assertEqual(link_name(link(16.0, 4)), "Gen4 x4")
        self.assertEqual(link_name(link(8.0, 16)), "Gen3 x16")
        self.assertIsNone(link_name({"speed_gts": None, "width": 4}))

    def test_trained_down_under_load_fires(self):
        dev = {"name": "nvme2", "link_under_load": under_load(
            link(16.0, 4), link(8.0, 4), link(16.0, 4), [(3.2, 8.0, 4), (7.9, 16.0, 4)])}
        f = explain_device("b", dev)
        self.assertEqual([x["rule"] for x in f], ["link_trained_down"])
        self.assertEqual(f[0]["text"], "nvme2 on b: its link trained Gen3 x4 during the window (from "
                                       "3.2 s), Gen4 x4 before it and after it: a link that trains "
                                       "down under load: signal integrity (riser, cable, slot) or heat")

    def test_a_narrower_width_fires_too(self):
        dev = {"name": "mlx5_0", "link_under_load": under_load(link(16.0, 16), link(16.0, 8), link(16.0, 8))}
        self.assertIn("its link trained Gen4 x8 during the window, Gen4 x16 before it:",
                      explain_device("a", dev)[0]["text"])

    def test_a_steady_link_does_not(self):
        dev = {"name": "nvme2", "link_under_load": under_load(link(16.0, 4), link(16.0, 4), link(16.0, 4))}
        self.assertEqual(rules_of(dev), [])

    def test_retrained_at_the_same_speed(self):
        dev = {"name": "nvme2", "link_under_load": under_load(
            link(16.0, 4), link(16.0, 4), link(16.0, 4), [(2.0, 16.0, 4), (4.0, 16.0, 4)])}
        f = explain_device("b", dev)
        self.assertEqual([x["rule"] for x in f], ["link_retrained"])
        self.assertIn("its link retrained 2 times during the window", f[0]["text"])

    def test_aer_correctable(self):
        self.assertEqual(rules_of({"name": "nvme1", "aer": aer(c=1204)}), ["aer_correctable"])
        self.assertIn("1,204 correctable PCIe errors (AER) in the window",
                      explain_device("b", {"name": "nvme1", "aer": aer(c=1204)})[0]["text"])
        self.assertEqual(rules_of({"name": "nvme1", "aer": aer()}), [])

    def test_aer_uncorrectable(self):
        self.assertEqual(rules_of({"name": "nvme1", "aer": aer(nf=2)}), ["aer_uncorrectable"])
        self.assertEqual(rules_of({"name": "nvme1", "aer": aer(fa=1)}), ["aer_uncorrectable"])
        self.assertEqual(rules_of({"name": "nvme1", "aer": aer(c=0, nf=0, fa=0)}), [])

    def test_aer_not_kept_says_nothing(self):
        dev = {"name": "nvme1", "aer": {"correctable": "not kept", "nonfatal": "not kept", "fatal": "not kept"}}
        self.assertEqual(rules_of(dev), [])

    def test_every_rule_has_its_keys_and_meaning(self):
        for name, keys, fn, meaning in DEVICE_RULES:
            self.assertTrue(name and keys and callable(fn) and meaning)

    def test_devices_found_anywhere_in_a_document(self):
        doc = {"drives": [{"path": "/dev/nvme2n1", "link_under_load": {}}, {"path": "/dev/nvme3n1"}],
               "rails": [{"local_dev": "mlx5_0", "aer": aer()}]}
        self.assertEqual(sorted(d.get("path") or d.get("local_dev") for d in devices(doc)),
                         ["/dev/nvme2n1", "mlx5_0"])


class Peers(unittest.TestCase):
    def rungs(self, figures):
        return [{"name": "drive nvme%dn1" % i, "node": "b", "kind": "drive", "link": "Gen3 x4",
                 "measured_gb_per_s": v} for i, v in enumerate(figures)]

    def test_a_drive_12_percent_below_fires(self):
        f = drive_peers("b", self.rungs([3.57, 3.56, 3.14]))
        self.assertEqual([(x["hop"], round(x["below_peers_pct"])) for x in f], [("nvme2n1", 12)])
        self.assertEqual(f[0]["text"], "drive nvme2n1 on b: 12% below its peers (3.14 GB/s, their median 3.56)")

    def test_5_percent_below_does_not(self):
        self.assertEqual(drive_peers("b", self.rungs([3.57, 3.56, 3.39])), [])

    def test_other_links_are_no_peers(self):
        r = self.rungs([3.57, 1.8])
        r[1]["link"] = "Gen3 x2"
        self.assertEqual(drive_peers("b", r), [])


class RemoteAndMemory(unittest.TestCase):
    def test_the_remote_tools_own_words_carried_over(self):
        doc = {"attribution": [{"hop": "rail", "device": "mlx5_3", "port": 1, "below_peers_pct": 12.0,
                                "rules": [{"rule": "congestion"}],
                                "text": "rail mlx5_3:1: 12% below its peers; 48,112 retransmissions and "
                                        "1,204 CNPs and ECN marks in the window: congestion on that path"}]}
        f = remote_findings("b", doc, "aggregate")
        self.assertEqual((f[0]["hop"], f[0]["rule"], f[0]["below_peers_pct"]), ("rail mlx5_3:1", "congestion", 12.0))
        self.assertTrue(f[0]["text"].endswith("congestion on that path (aggregate on b)"))
        self.assertEqual(remote_findings("b", {"attribution": None}, "fabric"), [])

    def doc(self, still, retrans=0, cnp=0, kept=True, text="rail rxe0:1: 81% below its line rate; ..."):
        hw = {"rcvd_pkts": 768, "sent_pkts": 0, "duplicate_request": retrans if kept else None,
              "rcvd_seq_err": 0 if kept else None, "np_cnp_sent": cnp}
        rules = [{"rule": "loss"}] if retrans else []
        return {"rails": [{"local_dev": "rxe0", "local_port": 1, "remote_dev": "rxe1", "remote_port": 1}],
                "counters": [{"device": "rxe0", "port": 1, "counters": {"port_xmit_wait": None},
                              "hw_counters": hw}],
                "attribution": [{"hop": "rail", "device": "rxe0", "port": 1, "below_peers_pct": None,
                                 "below_line_rate_pct": 81.0, "rules": rules, "counters_still": still,
                                 "text": text}]}

    def peer(self, retrans=0, kept=True):
        return {"counters": [{"device": "rxe1", "port": 1, "counters": {},
                              "hw_counters": {"sent_pkts": 768, "rcvd_pkts": 0,
                                              "retry_exceeded_err": retrans if kept else None}}]}

    def test_shaped_kept_and_still_on_either_end(self):
        f = remote_findings("c", self.doc("rate_limited"), "fabric", [("a", self.peer())])
        self.assertEqual((f[0]["rule"], f[0]["either_end"]), ("rate_limited", True))
        self.assertEqual(f[0]["text"],
                         "rail rxe0:1 on c: 81% below its line rate; no retransmission counted on "
                         "either end in the window (not kept here: CNPs and ECN marks, out-of-sequence "
                         "packets, RNR NAKs and buffer overruns, xmit waits, link errors and link "
                         "downs): the rate itself is limited (a shaper or policer, the port's speed, "
                         "a slower path), not loss or congestion; its ports moved 1,536 packets (fabric)")
        # a group kept on one end only is not kept on either: CNPs here, not there
        self.assertEqual(f[0]["counters"]["kept"], ["retransmissions"])

    def test_shaped_here_but_the_far_end_retransmitted(self):
        f = remote_findings("c", self.doc("rate_limited"), "fabric", [("a", self.peer(retrans=4812))])
        self.assertEqual(f[0]["rule"], "loss_or_congestion")
        self.assertIn("4,812 retransmissions counted on either end in the window", f[0]["text"])
        self.assertNotIn("the rate itself is limited", f[0]["text"])

    def test_congested_keeps_the_tools_words(self):
        d = self.doc(None, retrans=4812, text="rail rxe0:1: 81% below its line rate; 4,812 "
                     "retransmissions in the window: packets lost or timed out")
        f = remote_findings("c", d, "fabric", [("a", self.peer())])
        self.assertEqual(f[0]["rule"], "loss")
        self.assertNotIn("the rate itself is limited", f[0]["text"])

    def test_not_kept_says_not_kept(self):
        f = remote_findings("c", self.doc("not_kept", kept=False), "fabric", [("a", self.peer(kept=False))])
        self.assertEqual(f[0]["rule"], "counters_not_kept")
        self.assertIn("retransmissions not kept on either end (never read as 0)", f[0]["text"])
        self.assertNotIn("the rate itself is limited", f[0]["text"])
        # one end keeps it, the other not: the two together cannot be told either
        f = remote_findings("c", self.doc("rate_limited"), "fabric", [("a", self.peer(kept=False))])
        self.assertEqual(f[0]["rule"], "counters_not_kept")

    def test_no_far_end_document_says_this_end(self):
        f = remote_findings("c", self.doc("rate_limited"), "fabric")
        self.assertEqual((f[0]["rule"], f[0]["either_end"]), ("rate_limited", False))
        self.assertIn("counted on this end in the window", f[0]["text"])

    def test_explain_pairs_the_ends_of_a_step(self):
        f = explain([("fabric", "a", self.peer(retrans=7)), ("fabric", "c", self.doc("rate_limited"))], [])
        self.assertEqual([(x["node"], x["rule"]) for x in f], [("c", "loss_or_congestion")])

    def test_memory_binds_leads(self):
        bind = {"rung": "memory", "node": "b", "reason": "memory binds: staging DRAM on b 18.20 GB/s measured"}
        f = explain([], [], bind)
        self.assertEqual([(x["rule"], x["node"]) for x in f], [("memory_binds", "b")])
        self.assertEqual(explain([], [], None), [])

    def test_one_device_in_two_documents_is_said_once(self):
        dev = {"name": "nvme2", "aer": aer(c=3)}
        f = explain([("baseline", "b", {"drives": [dev]}), ("aggregate", "b", {"drives": [dev]})], [])
        self.assertEqual(len(f), 1)



class DriveHealth(unittest.TestCase):
    """A drive's own account (nbw.drivehealth) in the ladder's findings."""
    RUNGS = [{"name": "drive nvme%dn1" % i, "node": "b", "kind": "drive", "link": "Gen3 x4",
              "measured_gb_per_s": v} for i, v in enumerate([3.57, 3.56, 3.14])]

    def drives(self, hot):
        d = [{"name": "nvme%dn1" % i, "path": "/dev/nvme%dn1" % i, "unsteady": False,
              "health": {"log_read": True, "why": None, "findings": []}} for i in range(3)]
        if hot:
            d[2]["health"] = {"log_read": True, "findings": ["throttled"],
                              "deltas": {"tmt1_transitions": 2, "tmt1_seconds": 9}}
        return {"drives": d}

    def test_a_throttled_drive_is_named_and_explains_its_gap(self):
        f = explain([("baseline", "b", self.drives(True))], self.RUNGS)
        rules = sorted((x["hop"], x["rule"]) for x in f)
        self.assertEqual(rules, [("nvme2n1", "drive_below_peers"), ("nvme2n1", "throttled")])
        t = next(x for x in f if x["rule"] == "throttled")
        self.assertEqual(t["text"].split(": ")[:2], ["drive nvme2n1 on b",
                         "throttled in the window (thermal management T1 +2 transitions, 9 s)"])
        low = next(x for x in f if x["rule"] == "drive_below_peers")
        self.assertNotIn("the drive itself", low["text"])

    def test_a_low_drive_with_nothing_counted_is_the_drive_itself(self):
        f = explain([("baseline", "b", self.drives(False))], self.RUNGS)
        self.assertEqual(len(f), 1)
        self.assertTrue(f[0]["text"].endswith(
            "(3.14 GB/s, their median 3.56): no thermal, error or link change counted: the drive itself"), f[0]["text"])

    def test_a_sources_drive_never_speaks_for_the_sinks_own(self):
        """The sink's report of its source's nvme0n1 (side rdma, 0.004 GB/s over an
        emulated fabric, unsteady) is b's, not a's steady nvme0n1: a's says nothing, b's
        own document names its drive on b, with its small figures in two digits."""
        why = "second 1 at 0.0012 GB/s, under half the median 0.0042 GB/s"
        mine = {"side": "local", "path": "/dev/nvme0n1", "median_gb_per_s": 0.38,
                "unsteady": False, "unsteady_reason": None}
        theirs = {"path": "/dev/nvme0n1", "median_gb_per_s": 0.0042, "unsteady": True,
                  "unsteady_reason": why}
        sink = {"role": "sink", "drives": [mine, dict(theirs, side="rdma"),
                                           dict(theirs, side="rdma", path="c:/dev/nvme0n1")]}
        source = {"role": "source", "drives": [dict(theirs, side="rdma")]}
        f = explain([("aggregate", "a", sink), ("aggregate", "b", source)], [])
        self.assertEqual([(x["node"], x["hop"], x["rule"]) for x in f],
                         [("b", "nvme0n1", "unsteady")])
        self.assertTrue(f[0]["text"].startswith("drive nvme0n1 on b: unsteady window: " + why),
                        f[0]["text"])
        self.assertEqual(explain([("aggregate", "a", sink)], []), [])

    def test_a_low_drive_on_the_sink_is_matched_to_its_own(self):
        rungs = [{"name": "drive nvme%dn1" % i, "node": "a", "kind": "drive", "link": "Gen3 x4",
                  "measured_gb_per_s": v} for i, v in enumerate([0.0041, 0.0042, 0.0031])]
        sink = {"role": "sink", "drives": [
            {"side": "rdma", "path": "/dev/nvme2n1", "health": {"log_read": True, "findings": [
                "throttled"], "deltas": {"tmt1_transitions": 1}}},
            {"side": "local", "path": "/dev/nvme2n1", "health": {"log_read": True, "findings": []}}]}
        f = explain([("aggregate", "a", sink)], rungs)
        self.assertEqual([x["rule"] for x in f], ["drive_below_peers"])
        self.assertTrue(f[0]["text"].endswith(
            "(0.0031 GB/s, their median 0.0041): no thermal, error or link change counted: the "
            "drive itself"), f[0]["text"])


if __name__ == "__main__":
    unittest.main()
