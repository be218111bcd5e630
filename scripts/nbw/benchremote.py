"""bench_remote.sh's figures: values out of the tools' JSON documents and the ratios
of its comparison table.

    python3 -m nbw.benchremote value FILE.json PATH [DIGITS [DIVISOR]]
        the value at PATH (keys and list indexes joined by dots: rdma.gb_per_s,
        drives.0.gb_per_s), divided by DIVISOR and rounded to DIGITS; status 1 when
        the document or the value is missing
    python3 -m nbw.benchremote rail-shares FILE.json   each rail's share of the bytes
    python3 -m nbw.benchremote ratio A B      A / B with 3 decimals (- if one is missing)
    python3 -m nbw.benchremote gbit A         GB/s -> Gb/s with 4 decimals
    python3 -m nbw.benchremote lowest A...    the lowest of the figures given
A figure given as "" or "-" is missing.
"""
import json
import sys

from .command import run_verbs


def walk(doc, path):
    """DOC's value at the dotted PATH; raises (KeyError, IndexError, TypeError) when a
    step is missing, so that no figure is printed for a document that lacks it."""
    for step in path.split("."):
        doc = doc[int(step)] if isinstance(doc, list) else doc[step]
    return doc


def value(path, key, digits=None, divisor=None):
    with open(path) as f:
        v = walk(json.load(f), key)
    if divisor is not None:
        v = v / float(divisor)
    print(round(v, int(digits)) if digits is not None else v)


def rail_shares(doc):
    """"DEV:NN% DEV:NN%": each rail's share of the sink's RDMA bytes."""
    return " ".join("%s:%.0f%%" % (r["local_dev"], 100.0 * r["bytes"] / max(1, doc["rdma"]["bytes"]))
                    for r in doc["rails"])


def figures(texts):
    """The figures given on the command line: "" and "-" are None."""
    return [float(x) if x not in ("", "-") else None for x in texts]


def ratio(a, b):
    return "%.3f" % (a / b) if a is not None and b is not None and b > 0 else "-"


def gbit(a):
    return "%.4f" % (a * 8) if a is not None else "-"


def lowest(values):
    known = [x for x in values if x is not None]
    return "%.4f" % min(known) if known else "-"


def main(argv):
    def shares(path):
        with open(path) as f:
            print(rail_shares(json.load(f)))
    return run_verbs(argv, {
        "value": (2, 4, value),
        "rail-shares": (1, 1, shares),
        "ratio": (2, 2, lambda *a: print(ratio(*figures(a)))),
        "gbit": (1, 1, lambda *a: print(gbit(*figures(a)))),
        "lowest": (1, None, lambda *a: print(lowest(figures(a)))),
    }, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
