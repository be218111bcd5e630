"""counters_table.py LISTING MANPAGE SCHEMA: the attribution's counter groups, held by
nvme_write_bw_remote (print/attrib.c, its --counters-table LISTING is the source) and
again by the Python package (nbw.portcounters.GROUPS), must be the same table: the same
groups in the same order, each with the same JSON key, words and counter names. The man
page's ATTRIBUTION names every counter of the table, and the remote tool's schema
(SCHEMA) knows exactly the table's group keys where its documents name groups. One line
per check; exit 1 when any differs."""
import json
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from nbw import portcounters  # noqa: E402 (the path first)

FAILS = []


def check(what, want, got, names=("the tool", "Python")):
    """WANT (the tool's, the source) and GOT (the copy's) must be equal."""
    if want == got:
        print("ok: %s" % what)
    else:
        FAILS.append(what)
        print("FAIL: %s:\n  %-9s %r\n  %-9s %r" % (what, names[0] + ":", want, names[1] + ":", got))


def read_listing(path):
    """The tool's table as GROUPS is: (key, words, one, (names...)) in order."""
    groups, names = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "group" and len(fields) == 4:
                groups.append(fields[1:])
                names[fields[1]] = []
            elif fields[0] == "counter" and len(fields) == 3 and fields[1] in names:
                names[fields[1]].append(fields[2])
            else:
                sys.exit("FAIL: %s:%d: not a line of the listing: %r" % (path, n, line))
    return tuple((k, w, o, tuple(names[k])) for k, w, o in groups)


def schema_group_enums(schema):
    """Every enum of the schema that lists group keys ($defs' groups, moved, not kept)."""
    found = []

    def walk(x):
        if isinstance(x, dict):
            if "enum" in x and "retransmissions" in x["enum"]:
                found.append(x["enum"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(schema)
    return found


def main():
    listing, manpage, schema = sys.argv[1:4]
    c = read_listing(listing)
    py = tuple((k, w, o, tuple(n)) for k, w, o, n in portcounters.GROUPS)
    check("the same groups, in the same order", [g[0] for g in c], [g[0] for g in py])
    for cg, pg in zip(c, py):
        if cg[0] == pg[0]:
            check("group %s: its words" % cg[0], cg[1:3], pg[1:3])
            check("group %s: its counters" % cg[0], cg[3], pg[3])
    counters = sum(len(g[3]) for g in c)
    check("every counter in one group only", counters, len({n for g in c for n in g[3]}),
          ("counters", "distinct"))
    print("the table: %d groups, %d counters" % (len(c), counters))

    with open(manpage) as f:
        page = f.read()
    section = re.search(r"^\.SH ATTRIBUTION\n(.*?)^\.SH ", page, re.S | re.M)
    named = set(re.findall(r"\\fB([a-z_]+)\\fR", section.group(1) if section else ""))
    check("the man page's ATTRIBUTION names every counter of the table", [],
          sorted(n for g in c for n in g[3] if n not in named), ("expected", "missing"))

    with open(schema) as f:
        enums = schema_group_enums(json.load(f))
    check("the schema lists the groups", True, bool(enums), ("expected", "found"))
    for e in enums:
        check("the schema's groups are the table's", [g[0] for g in c], e, ("the tool", "schema"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
