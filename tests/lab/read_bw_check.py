#!/usr/bin/python3
"""Host side of the read-bandwidth lab tests: judge nvme_read_bw's JSON.

usage: read_bw_check.py WORKDIR BLOCKDIGEST SPAN LBS

For each drive of node a: the digest of what nvme_read_bw read from the span
equals blockdigest of the backing image's span; the sweep was complete; the
logical block size is LBS; bytes were counted; no all-zero block was seen
(the lab pattern has none). Then prints the figures beside fio's and
ib_write_bw's where those anchors ran. Exit 0 = pass.
"""
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def guest_env(work, node):
    env = {}
    with open(os.path.join(work, node, "vlab.env")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            env[k] = v
    return env


def fio_gb_per_s(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        doc = json.load(f)
    return sum(j["read"]["bw_bytes"] for j in doc["jobs"]) / 1e9


def ib_gbits(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if "#bytes" in line and i + 1 < len(lines):
            fields = lines[i + 1].split()
            if len(fields) >= 4 and re.match(r"^[0-9.]+$", fields[3]):
                return float(fields[3])
    return None


def main(argv):
    work, blockdigest, span, lbs = argv[1], argv[2], int(argv[3]), int(argv[4])
    out = os.path.join(work, "a", "out")
    drives = guest_env(work, "a")["VLAB_DRIVES"].split()
    with open(os.path.join(out, "read.rc")) as f:
        rc = f.read().strip()
    if rc != "0":
        fail("nvme_read_bw exited %s in the guest" % rc)
    try:
        with open(os.path.join(out, "read.json")) as f:
            doc = json.load(f)
    except ValueError as e:
        fail("nvme_read_bw --json: not JSON: %s" % e)
    if doc.get("tool") != "nvme_read_bw":
        fail("JSON tool is %r" % doc.get("tool"))
    seen = set()
    for d in doc["drives"]:
        path = d["path"]
        if path not in drives:
            fail("%s is not one of the lab drives %s" % (path, drives))
        i = drives.index(path)
        seen.add(path)
        img = os.path.join(work, "images", "a%d.img" % i)
        want = subprocess.run([blockdigest, img, str(span)], check=True,
                              stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
        ck = d.get("checksum") or {}
        if ck.get("span") != span:
            fail("%s: checksum span %r, wanted %d" % (path, ck.get("span"), span))
        if ck.get("complete") is not True:
            fail("%s: checksum sweep incomplete" % path)
        if ck.get("digest") != want:
            fail("%s: digest %s, backing file a%d.img has %s" % (path, ck.get("digest"), i, want))
        if d.get("logical_block_size") != lbs:
            fail("%s: logical_block_size %r, wanted %d" % (path, d.get("logical_block_size"), lbs))
        if not d.get("bytes", 0) > 0 or not d.get("gb_per_s", 0) > 0:
            fail("%s: nothing counted (bytes %r)" % (path, d.get("bytes")))
        if d.get("zero_fraction", 0) != 0:
            fail("%s: zero_fraction %r on a pattern without zero blocks" % (path, d["zero_fraction"]))
        print("# %s = a%d.img: digest %s matches, %.3f GB/s, lbs %d"
              % (path, i, want, d["gb_per_s"], lbs))
    if seen != set(drives):
        fail("drives not reported: %s" % sorted(set(drives) - seen))

    ours = doc["total"]["gb_per_s"]
    fio = fio_gb_per_s(os.path.join(out, "fio.json"))
    ib = ib_gbits(os.path.join(out, "ib_write_bw.txt"))
    p = doc.get("params", {})
    what = "%d drives x %s threads, %s B reads, %s s" % (
        len(drives), p.get("threads"), p.get("chunk"), p.get("duration_s"))
    print("# virtual lab (TCG, emulated NVMe, Soft-RoCE): absolute numbers mean nothing")
    print("#   %-13s %-44s %8.3f GB/s" % ("nvme_read_bw", what, ours))
    if fio is not None:
        print("#   %-13s %-44s %8.3f GB/s   nvme_read_bw/fio = %.2f"
              % ("fio", "same drives, chunk, threads, span, window", fio,
                 ours / fio if fio else float("nan")))
    if ib is not None:
        print("#   %-13s %-44s %8.3f Gb/s" % ("ib_write_bw", "rxe0 loopback, 64 KiB, 1 QP", ib))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
