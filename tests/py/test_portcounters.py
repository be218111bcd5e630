"""nbw.portcounters: a port's counter deltas summed by group, which groups every port
keeps, the verdict (moved, rate limited, not kept) and its words, on port objects
built in memory as nvme_write_bw_remote's JSON carries them."""
import unittest

import nbwpath  # noqa: F401
from nbw import portcounters as pc

KEYS = ["retransmissions", "cnps", "out_of_sequence", "rnr", "xmit_wait", "link_errors",
        "link_downed"]


def every_group(value=0, **moved):
    """hw_counters keeping one counter of every group, each VALUE unless named in MOVED."""
    names = {"roce_adp_retrans": value, "np_cnp_sent": value, "out_of_sequence": value,
             "rnr_nak_retry_err": value, "port_xmit_wait": value, "symbol_error": value,
             "link_downed": value}
    names.update(moved)
    return names


def port(counters=None, hw=None):
    return {"device": "mlx5_0", "port": 1, "counters": counters or {}, "hw_counters": hw or {}}


class Groups(unittest.TestCase):
    def test_seven_groups_each_counter_in_one(self):
        self.assertEqual([g[0] for g in pc.GROUPS], KEYS)
        names = [n for g in pc.GROUPS for n in g[3]]
        self.assertEqual(len(names), len(set(names)), "a counter in two groups")
        self.assertIn("roce_adp_retrans", dict((g[0], g[3]) for g in pc.GROUPS)["retransmissions"])


class Tally(unittest.TestCase):
    def test_no_port(self):
        for ports in (None, [], ["not a port", 3]):
            t = pc.tally(ports)
            self.assertEqual(t, {"kept": [], "not_kept": KEYS, "moved": {}, "packets": None,
                                 "bytes": None, "ports": 0})
            self.assertIsNone(pc.still(t))
            self.assertEqual(pc.words(t, "on either end"), "its ports' counters were not read")

    def test_sums_a_group_and_both_kinds(self):
        t = pc.tally([port({"port_xmit_packets": 100, "port_rcv_packets": 50,
                            "port_xmit_data": 250, "port_rcv_data": 0, "link_downed": 1},
                           every_group(roce_adp_retrans=3, packet_seq_err=2, np_cnp_sent=7))])
        self.assertEqual(t["kept"], KEYS)
        self.assertEqual(t["not_kept"], [])
        # link_downed in both kinds of counters: both count
        self.assertEqual(t["moved"], {"retransmissions": 5, "cnps": 7, "out_of_sequence": 0,
                                      "rnr": 0, "xmit_wait": 0, "link_errors": 0,
                                      "link_downed": 1})
        self.assertEqual((t["packets"], t["bytes"], t["ports"]), (150, 1000, 1))
        self.assertEqual(pc.still(t), "moved")

    def test_kept_by_every_port_moved_by_any(self):
        a = port(hw={"roce_adp_retrans": 4, "np_cnp_sent": 9, "sent_pkts": 10})
        b = port(hw={"rcvd_seq_err": 1, "rcvd_pkts": 5})
        t = pc.tally([a, b])
        self.assertEqual(t["kept"], ["retransmissions"])
        self.assertEqual(t["not_kept"], KEYS[1:])
        self.assertEqual(t["moved"], {"retransmissions": 5, "cnps": 9})
        # no port_*_packets: the rxe names count instead; no data counter: bytes unknown
        self.assertEqual((t["packets"], t["bytes"], t["ports"]), (15, None, 2))

    def test_null_and_junk_are_not_kept(self):
        hw = {"roce_adp_retrans": None, "np_cnp_sent": True, "out_of_sequence": -1,
              "rnr_nak_retry_err": 2.5, "port_xmit_wait": "3", 7: 1, "symbol_error": 0}
        t = pc.tally([port(hw=hw), "junk"])
        self.assertEqual(t["kept"], ["link_errors"])
        self.assertEqual(t["moved"], {"link_errors": 0})
        self.assertEqual(t["ports"], 1)
        self.assertEqual(pc.still(t), "not_kept")


class Verdict(unittest.TestCase):
    def test_rate_limited_words(self):
        t = pc.tally([port({"port_xmit_packets": 1200, "port_xmit_data": 1000},
                           {"roce_adp_retrans": 0, "np_cnp_sent": 0})])
        self.assertEqual(pc.still(t), "rate_limited")
        self.assertEqual(pc.words(t, "on either end"),
                         "no retransmission or CNP or ECN mark counted on either end in the "
                         "window (not kept here: out-of-sequence packets, RNR NAKs and buffer "
                         "overruns, xmit waits, link errors and link downs): " + pc.LIMITED +
                         "; its ports moved 1,200 packets and 4,000 bytes")

    def test_rate_limited_all_kept(self):
        t = pc.tally([port(hw=every_group())])
        self.assertEqual(pc.still(t), "rate_limited")
        self.assertEqual(pc.words(t, "here"),
                         "no retransmission, CNP or ECN mark, out-of-sequence packet, RNR NAK, "
                         "xmit wait (pause), link error or link down counted here in the "
                         "window: " + pc.LIMITED)

    def test_moved_words_name_only_what_moved(self):
        t = pc.tally([port(hw=every_group(roce_adp_retrans=1234, np_cnp_sent=5))])
        self.assertEqual(pc.words(t, "on the receiving end"),
                         "1,234 retransmissions and 5 CNPs and ECN marks counted on the "
                         "receiving end in the window")

    def test_retransmissions_not_kept_is_never_zero(self):
        t = pc.tally([port(hw={"np_cnp_sent": 0, "sent_pkts": 7})])
        self.assertEqual(pc.still(t), "not_kept")
        w = pc.words(t, "on either end")
        self.assertTrue(w.startswith("retransmissions not kept on either end (never read as "
                                     "0) (not kept here: retransmissions, out-of-sequence "
                                     "packets, "), w)
        self.assertIn(": " + pc.NOT_KEPT + "; its ports moved 7 packets", w)
        self.assertNotIn("no retransmission", w)


if __name__ == "__main__":
    unittest.main()
