"""nbw.lab.slowed: what vlab slowed on purpose, as the words every node's scripts see in
$VLAB_SLOWED ("drive:NODE:INDEX:MBPS" and "nic:NODE:INDEX:MBIT", slowed_words) and read
back into lab.json, the note node a leaves beside a fleet sweep (fleet-a.sh): each node's
name and address ($VLAB_HOSTS, in node order) and what was slowed.

usage: python3 -m nbw.lab.slowed lab-json FILE   (from $VLAB_HOSTS and $VLAB_SLOWED)
"""
import json
import os
import sys

from ..command import run_verbs
from .base import NODE_NAMES


def slowed_words(s):
    """$VLAB_SLOWED of settings s (their slow_drives and slow_nics)."""
    return " ".join(["drive:%s:%d:%d" % (NODE_NAMES[i], k, r) for (i, k), r in
                     sorted(s.slow_drives.items())] +
                    ["nic:%s:%d:%d" % (NODE_NAMES[i], k, r) for (i, k), r in
                     sorted(s.slow_nics.items())])


def lab_doc(hosts, slowed_text):
    """lab.json's document: {"nodes": {name: address}, "slowed": [what, where, how
    slow]} from the nodes' addresses and $VLAB_SLOWED's words."""
    slowed = []
    for w in slowed_text.split():
        kind, node, index, rate = w.split(":")
        slowed.append({"kind": kind, "node": node, "address": hosts[NODE_NAMES.index(node)],
                       "index": int(index), "rate": int(rate),
                       "unit": "MB/s" if kind == "drive" else "Mbit/s"})
    return {"nodes": dict(zip(NODE_NAMES, hosts)), "slowed": slowed}


def write_lab_json(path):
    doc = lab_doc(os.environ["VLAB_HOSTS"].split(), os.environ.get("VLAB_SLOWED", ""))
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main(argv):
    return run_verbs(argv, {"lab-json": (1, 1, write_lab_json)}, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
