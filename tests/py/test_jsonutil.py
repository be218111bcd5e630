"""nbw.jsonutil: one meaning per helper."""
import math
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw import jsonutil as j


class Dig(unittest.TestCase):
    def test_walks_objects(self):
        self.assertEqual(j.dig({"a": {"b": {"c": 7}}}, "a", "b", "c"), 7)

    def test_none_where_a_level_is_missing_or_not_an_object(self):
        self.assertIsNone(j.dig({"a": {"b": 1}}, "a", "x"))
        self.assertIsNone(j.dig({"a": [1, 2]}, "a", "b"))
        self.assertIsNone(j.dig(None, "a"))

    def test_no_keys_is_the_document(self):
        self.assertEqual(j.dig({"a": 1}), {"a": 1})


class Numbers(unittest.TestCase):
    def test_bool_is_not_a_number(self):
        self.assertFalse(j.is_number(True))
        self.assertIsNone(j.as_number(False))
        self.assertIsNone(j.as_float(True))

    def test_as_number_keeps_the_type_and_drops_what_is_not_finite(self):
        self.assertIs(type(j.as_number(3)), int)
        self.assertEqual(j.as_number(2.5), 2.5)
        self.assertIsNone(j.as_number(float("nan")))
        self.assertIsNone(j.as_number(math.inf))
        self.assertIsNone(j.as_number(-math.inf))
        self.assertIsNone(j.as_number(10 ** 400))
        self.assertIsNone(j.as_number(j.loads("1e999")))
        self.assertIsNone(j.as_number("3"))

    def test_as_float_is_finite_float(self):
        self.assertIs(type(j.as_float(3)), float)
        self.assertEqual(j.as_float(3), 3.0)
        self.assertIsNone(j.as_float(math.inf))
        self.assertIsNone(j.as_float(float("nan")))
        self.assertIsNone(j.as_float(None))

    def test_number_text(self):
        self.assertEqual(j.number_text(3.14159), "3.142")
        self.assertEqual(j.number_text(42.25, "%.1f"), "42.2")
        self.assertEqual(j.number_text(None), "-")
        self.assertEqual(j.number_text("7"), "-")

    def test_gb_text_keeps_two_significant_digits_under_a_tenth(self):
        self.assertEqual([j.gb_text(v) for v in (0.0042, 0.004, 0.05, 0.099, 0.1, 0.38, 21.414,
                                                 0, -0.0042, 1e-12, None, True, math.inf)],
                         ["0.0042", "0.0040", "0.050", "0.099", "0.10", "0.38", "21.41",
                          "0.00", "-0.0042", "0.000000000", "-", "-", "inf"])


class Documents(unittest.TestCase):
    def test_dicts_keeps_objects_only(self):
        self.assertEqual(j.dicts([{"a": 1}, 2, "x", {"b": 2}]), [{"a": 1}, {"b": 2}])
        self.assertEqual(j.dicts({"a": 1}), [])

    def test_canon_and_digest_ignore_key_order(self):
        self.assertEqual(j.canon({"b": 1, "a": [1, 2]}), '{"a":[1,2],"b":1}')
        self.assertEqual(j.digest({"a": 1, "b": 2}), j.digest({"b": 2, "a": 1}))
        self.assertNotEqual(j.digest({"a": 1}), j.digest({"a": 2}))
        self.assertEqual(len(j.digest({}, 8)), 8)
        # The SHA-256 of '{}', so that a change of the canonical text is seen.
        self.assertEqual(j.digest({}), "44136fa355b3678a")

    def test_read_and_write_json(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.json")
            j.write_json(p, {"k": [1, 2]})
            with open(p) as f:
                self.assertTrue(f.read().endswith("]\n}\n"))
            self.assertEqual(j.read_json(p), {"k": [1, 2]})
            with open(p, "w") as f:
                f.write("{not json")
            self.assertIsNone(j.read_json(p))
            self.assertIsNone(j.read_json(os.path.join(d, "none.json")))



class Untrusted(unittest.TestCase):
    """The bounds every reader of an untrusted document shares."""

    def test_nesting_bounded_at_once(self):
        self.assertEqual(j.loads("[" * 64 + "]" * 64), j.loads("[" * 64 + "]" * 64))
        for depth in (65, 1000, 500000):
            with self.assertRaises(ValueError) as e:
                j.loads("[" * depth + "]" * depth)
            self.assertEqual(str(e.exception), "nested deeper than 64 levels")
        with self.assertRaises(ValueError):
            j.loads('{"a":' * 100 + "1" + "}" * 100)

    def test_integers_past_a_float(self):
        v = j.loads('{"x": 1%s, "y": 12}' % ("0" * 5000))
        self.assertIsNone(j.as_float(v["x"]))
        self.assertEqual(v["y"], 12)

    def test_not_json_and_too_large(self):
        for data, why in ((b"{oops", "not JSON"), (b"\xff{}", "not UTF-8"),
                          (b" " * (j.MAX_DOC + 1), "larger than 16 MiB")):
            with self.assertRaises(ValueError) as e:
                j.loads(data)
            self.assertEqual(str(e.exception), why)
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "deep.json")
            with open(p, "w") as f:
                f.write("[" * 100 + "]" * 100)
            self.assertEqual(j.load_why(p), (None, "nested deeper than 64 levels"))
            self.assertIsNone(j.read_json(p))

    def test_unstorable(self):
        self.assertIsNone(j.unstorable({"a": ["b", 1.5]}))
        self.assertEqual(j.unstorable({"a": "\udc80"}),
                         "text that cannot be stored (a lone surrogate)")
        x = []
        for _ in range(70):
            x = [x]
        self.assertEqual(j.unstorable(x), "nested deeper than 64 levels")
        self.assertEqual(j.without_surrogates({"k\udc80": ["\ud800x"]}),
                         {"k\\udc80": ["\\ud800x"]})

    def test_printable(self):
        self.assertEqual(j.printable("a\nb\x1b]0;t\x07\x9b\u202e\u2028c\udc80"),
                         "a\\x0ab\\x1b]0;t\\x07\\x9b\\u202e\\u2028c\\udc80")
        self.assertEqual(j.printable("n\u00e9\u4e2d ok"), "n\u00e9\u4e2d ok")
        self.assertEqual(j.printable_all({"k\n": ["\r", 1, None]}),
                         {"k\\x0a": ["\\x0d", 1, None]})


if __name__ == "__main__":
    unittest.main()
