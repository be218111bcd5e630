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
    python3 -m nbw.benchremote median A...    the median of the figures given (- if none)
    python3 -m nbw.benchremote writes FILE.json SECONDS
        the WRITEs a source made in SECONDS: total.writes_per_s x SECONDS, rounded
    python3 -m nbw.benchremote per-write STRACE WRITES
        `strace -c` output as system calls per WRITE: the total, then each call
        made at least once per 100 WRITEs ("1.02 (write 1.00, poll 0.01)")
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


def median(values):
    known = sorted(x for x in values if x is not None)
    if not known:
        return "-"
    mid = len(known) // 2
    m = known[mid] if len(known) % 2 else (known[mid - 1] + known[mid]) / 2.0
    return "%.4f" % m


def strace_calls(text):
    """{call: count} out of `strace -c`'s table (its total row left out)."""
    calls = {}
    for line in text.splitlines():
        f = line.split()
        # % time, seconds, usecs/call, calls, [errors], syscall
        if len(f) < 5 or not f[3].isdigit() or f[-1] == "total":
            continue
        try:
            float(f[0])
        except ValueError:
            continue
        calls[f[-1]] = int(f[3])
    return calls


def per_write(calls, writes):
    """"T (a x, b y, ...)": the calls per WRITE, in total and by call (those made
    at least once per 100 WRITEs, most first); "-" without WRITEs."""
    if not writes:
        return "-"
    total = sum(calls.values()) / float(writes)
    parts = ["%s %.2f" % (k, v / float(writes))
             for k, v in sorted(calls.items(), key=lambda kv: -kv[1]) if v * 100 >= writes]
    return "%.2f (%s)" % (total, ", ".join(parts))


def main(argv):
    def writes(path, seconds):
        with open(path) as f:
            print(int(round(walk(json.load(f), "total.writes_per_s") * float(seconds))))

    def strace_per_write(path, n):
        with open(path) as f:
            print(per_write(strace_calls(f.read()), int(n)))

    def shares(path):
        with open(path) as f:
            print(rail_shares(json.load(f)))
    return run_verbs(argv, {
        "value": (2, 4, value),
        "rail-shares": (1, 1, shares),
        "ratio": (2, 2, lambda *a: print(ratio(*figures(a)))),
        "gbit": (1, 1, lambda *a: print(gbit(*figures(a)))),
        "lowest": (1, None, lambda *a: print(lowest(figures(a)))),
        "median": (0, None, lambda *a: print(median(figures(a)))),
        "writes": (2, 2, writes),
        "per-write": (2, 2, strace_per_write),
    }, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
