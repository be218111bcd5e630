#!/usr/bin/python3
"""remote_slice_check.py DUMP MAP IMAGE CHUNK WHAT: the slots of a sink slice dumped by
nvme_write_bw_remote --dump-slice (DUMP, and MAP with "slot offset length" per
line) equal the source drive's backing IMAGE at those offsets. Exit 1 on the
first difference or with fewer than 2 slots; WHAT names the drive in messages."""
import sys

dump, mp, img, chunk, what = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
d = open(dump, "rb").read()
n = 0
with open(img, "rb") as f:
    for line in open(mp):
        slot, off, ln = map(int, line.split())
        f.seek(off)
        if d[slot * chunk: slot * chunk + ln] != f.read(ln):
            sys.exit("slot %d: %d bytes differ from %s at offset %d" % (slot, ln, what, off))
        n += 1
if n < 2:
    sys.exit("only %d slots in the map" % n)
print("# %d slots of the sink's slice equal %s's bytes at their offsets" % (n, what))
