"""nbw.xmltext and the two JUnit writers that use it (nbw-results check --junit,
nbw-fleet judge --junit): a name holding what XML 1.0 forbids (U+FFFF, U+FFFE, NUL, a
lone surrogate, an escape) is replaced, so that a real parser (expat) reads every
verdict."""
import io
import unittest
import xml.etree.ElementTree as ET

import nbwpath  # noqa: F401
from nbw import xmltext
from nbw.fleet import junit as fleet_junit
from nbw.results import junit as results_junit

EVIL = "nvme\uffff0n1\ufffe\x00\x1b[2J\ud800\udfff<&>\"'\u00e9\U0001f600\t\r\n"


class Text(unittest.TestCase):
    def test_forbidden_characters_replaced_allowed_kept(self):
        got = xmltext.clean(EVIL)
        self.assertEqual(got, "nvme\ufffd0n1\ufffd\ufffd\ufffd[2J\ufffd\ufffd<&>\"'"
                         "\u00e9\U0001f600\t\r\n")

    def test_text_and_attribute_parse_back(self):
        doc = "<a b=%s>%s</a>" % (xmltext.attr(EVIL), xmltext.text(EVIL))
        doc.encode("ascii")  # character references: whatever the stream's encoding
        root = ET.fromstring(doc)
        self.assertEqual((root.get("b"), root.text), (xmltext.clean(EVIL),) * 2)


def check_row(drive, verdict):
    return {"rung": "read", "node": "gpu\uffff-1", "drive": drive, "figure": "gb_per_s",
            "unit": "GB/s", "value": 3.0, "ref": 3.5, "accepted_change": [-0.05, None],
            "reference_run": "0123456789ab\uffff", "verdict": verdict, "worse": True}


class Writers(unittest.TestCase):
    def test_results_check_junit_parses(self):
        out = io.StringIO()
        rows = [check_row(EVIL, "below"), check_row("nvme1\uffff", "ok"),
                check_row("nvme2\ud800", "not comparable")]
        counts = results_junit.write("run\uffff", rows, out)
        root = ET.fromstring(out.getvalue())
        cases = root.findall("./testsuite/testcase")
        self.assertEqual((counts["tests"], len(cases)), (3, 3))
        self.assertEqual(cases[0].get("name"), "read on gpu\ufffd-1, nvme\ufffd0n1\ufffd\ufffd"
                         "\ufffd[2J\ufffd\ufffd<&>\"'\u00e9\U0001f600\t\r\n: gb_per_s")
        self.assertIn("below", cases[0].find("failure").get("message"))
        self.assertIn("(run 01234567)", cases[1].find("system-out").text)
        self.assertIsNotNone(cases[2].find("skipped"))
        self.assertEqual(root.find("./testsuite/properties/property").get("value"),
                         "run\ufffd")

    def test_fleet_judge_junit_parses(self):
        node = "node\uffff01" + EVIL
        suspect = {"kind": "drive", "node": node, "component": EVIL, "state": "low",
                   "ratio": 0.33, "evidence": {"figure_gb_per_s": 1.0,
                                               "fleet_median_gb_per_s": 3.0,
                                               "health": {"says": EVIL}}}
        result = {"threshold": 0.9, "suite_version": "1.0\uffff", "suspects": [suspect],
                  "verdicts": [
                      {"node": node, "kinds": {"drives": {"status": "suspect",
                                                          "what": "drive " + EVIL}}},
                      {"node": "n2\ud800", "kinds": {"drives": {"status": "not measured",
                                                                "what": "\uffff"}}},
                      {"node": "n3", "kinds": {"drives": {"status": "pass",
                                                          "what": "unsteady \ufffe"}}}]}
        out = io.StringIO()
        counts = fleet_junit.write(result, out)
        root = ET.fromstring(out.getvalue())
        cases = root.findall("./testsuite/testcase")
        self.assertEqual((counts, len(cases)),
                         ({"tests": 3, "failures": 1, "skipped": 1}, 3))
        self.assertEqual(cases[0].get("name"), xmltext.clean(node))
        self.assertIn("the drive: " + xmltext.clean(EVIL), cases[0].find("failure").text)
        self.assertEqual(cases[1].get("name"), "n2\ufffd")
        self.assertEqual(cases[2].find("system-out").text, "unsteady \ufffd")


if __name__ == "__main__":
    unittest.main()
