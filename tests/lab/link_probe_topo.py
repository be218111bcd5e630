#!/usr/bin/env python3
"""The lab's affinity matrix (nvme_link_probe --topology --json) against the guest's
PCI tree: every drive of drives.txt and the RDMA device are in it, placed at their
PCI functions, and each pair's relation is the one the sysfs tree (what lspci -t
draws) gives: PIX or PXB when the two meet below a bridge, PHB when they meet only
at the host bridge. Prints one line per pair; exits 1 with the first mismatch."""
import json
import sys


def main():
    out, rdma = sys.argv[1], sys.argv[2]
    topo = json.load(open(out + "/topo.json"))["topology"]
    paths = {}
    for line in open(out + "/pcipaths.txt"):
        bdf, _, path = line.strip().partition(" ")
        paths[bdf] = path.split("/")
    devs = {d["name"]: d for d in topo["devices"]}
    for line in open(out + "/drives.txt"):
        _, ctrl, bdf = line.split()
        d = devs.get(ctrl)
        if not d or d["kind"] != "nvme" or d["bdf"] != bdf:
            sys.exit("drive %s (%s): not in the matrix as nvme at its function: %r" % (ctrl, bdf, d))
    r = devs.get(rdma)
    if not r or r["kind"] != "rdma" or r["bdf"] not in paths:
        sys.exit("%s: not placed at a PCI function in the matrix: %r (devices: %s; not placed: %r)"
                 % (rdma, r, ", ".join("%s %s %s" % (d["name"], d["kind"], d["bdf"])
                                        for d in topo["devices"]), topo.get("not_placed")))
    n = 0
    for p in topo["pairs"]:
        a, b = devs[p["a"]]["bdf"], devs[p["b"]]["bdf"]
        if a not in paths or b not in paths:
            sys.exit("pair %s %s: a function lspci does not list" % (a, b))
        pa, pb = paths[a][:-1], paths[b][:-1]
        common = 0
        while common < min(len(pa), len(pb)) and pa[common] == pb[common]:
            common += 1
        below_bridge = ":" in pa[common - 1] and not pa[common - 1].startswith("pci")
        want = ("PIX", "PXB") if below_bridge else ("PHB",)
        if p["relation"] not in want:
            sys.exit("pair %s %s: relation %s, the tree says %s" % (p["a"], p["b"], p["relation"],
                                                                    "/".join(want)))
        print("%s - %s: %s (meet at %s)" % (p["a"], p["b"], p["relation"], pa[common - 1]))
        n += 1
    if n < 3:
        sys.exit("only %d pairs in the matrix" % n)


if __name__ == "__main__":
    main()
