"""nbw.k8s: the values file, the kinds of values, the placeholders, a pod's log."""
import unittest

import nbwpath  # noqa: F401
from nbw.k8s import (PSK_PATH, Bad, apply_overrides, check_values, derive, parse_values,
                     split_log, substitute)


class Values(unittest.TestCase):
    def test_parse_skips_comments_and_keeps_order(self):
        values, order = parse_values(["# c\n", "\n", "PORT=20000\n", "SINK_NODE=\n"], "v.env")
        self.assertEqual((values, order), ({"PORT": "20000", "SINK_NODE": ""}, ["PORT", "SINK_NODE"]))

    def test_a_bad_line_names_its_number(self):
        with self.assertRaises(Bad) as e:
            parse_values(["PORT=1\n", "port = 2\n"], "v.env")
        self.assertEqual((str(e.exception), e.exception.code),
                         ("v.env:2: not NAME=VALUE (one word or empty): port = 2", 1))

    def test_overrides_of_known_names_only(self):
        values = {"PORT": "1"}
        apply_overrides(values, ["PORT=2"])
        self.assertEqual(values, {"PORT": "2"})
        with self.assertRaises(Bad) as e:
            apply_overrides(values, ["NOPE=1"])
        self.assertEqual(e.exception.code, 2)

    def test_kinds(self):
        check_values({"PORT": "20000", "SOURCES": "4", "VERIFY": "full", "CHUNK": "512K"})
        for bad, msg in (({"VERIFY": "some"}, "VERIFY=some: not canary, full or off"),
                         ({"PORT": "65535", "SOURCES": "2"},
                          "PORT=65535: PORT + SOURCES - 1 is not a port"),
                         ({"NAMESPACE": "Caps"}, "NAMESPACE=Caps: not a DNS label"),
                         ({"EXTRA": 'a"b'}, "EXTRA: quotes and backslashes are not allowed in values")):
            with self.assertRaises(Bad) as e:
                check_values(bad)
            self.assertEqual((str(e.exception), e.exception.code), (msg, 2))
        check_values({"PORT": "65534", "SOURCES": "2"})


class Render(unittest.TestCase):
    def test_substitute(self):
        self.assertEqual(substitute("port: ${PORT} ${PORT}x", {"PORT": "7"}, "t.yaml", "v"),
                         "port: 7 7x")
        with self.assertRaises(Bad) as e:
            substitute("${MISSING}", {}, "t.yaml", "v.env")
        self.assertEqual(str(e.exception), "t.yaml: ${MISSING} has no value in v.env")

    def test_access_derived(self):
        """PSK=random: the key file and a fresh 32-byte key per render; ALLOW: --allow's
        list; PSK=none, ALLOW=any: neither; neither value given: nothing derived."""
        import base64
        a, b = {"PSK": "random", "ALLOW": "10.0.0.0/8"}, {"PSK": "random", "ALLOW": "10.0.0.0/8"}
        derive(a)
        derive(b)
        self.assertEqual((a["PSK_FILE"], a["ALLOW_CIDRS"]), (PSK_PATH, "10.0.0.0/8"))
        key = base64.b64decode(base64.b64decode(a["PSK_DATA"]))
        self.assertEqual((len(key), a["PSK_DATA"] != b["PSK_DATA"]), (32, True))
        c = {"PSK": "none", "ALLOW": "any"}
        derive(c)
        self.assertEqual((c["PSK_FILE"], c["PSK_DATA"], c["ALLOW_CIDRS"]), ("", "", ""))
        d = {}
        derive(d)
        self.assertEqual(d, {})
        for bad in ({"ALLOW": "bad"}, {"ALLOW": "10.0.0.0/8,"}, {"PSK": "yes"}):
            with self.assertRaises(Bad):
                check_values(bad)
        check_values({"ALLOW": "10.1.0.0/16,192.168.7.12,fd00::/8", "PSK": "none"})


class Log(unittest.TestCase):
    def test_documents_between_the_markers(self):
        lines = ["[sink 0] waiting\n",
                 "=== nvme-rdma-bw result begin: role=sink index=1 x=y exit=3 ===\n",
                 "{\"a\":\n", "1}\n", "=== nvme-rdma-bw result end ===\n", "after\n",
                 "=== nvme-rdma-bw result end ===\n"]
        docs, rest = split_log(lines)
        self.assertEqual(docs, [("sink", 1, 3, ['{"a":', "1}"])])
        self.assertEqual(rest, ["[sink 0] waiting", "after", "=== nvme-rdma-bw result end ==="])


if __name__ == "__main__":
    unittest.main()
