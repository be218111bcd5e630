#!/usr/bin/python3
"""vlab drive pattern: write (or check) a lab backing image.

Every 8-byte little-endian word at byte offset o of the image holds

    0x56 << 56 | id << 48 | o        id = node_index << 7 | drive_index

(node a = 0, node b = 1). No word is zero, each word names its own offset,
drive and node: any 4096-byte block read anywhere tells where it came from.

usage: pattern.py write FILE SIZE ID     create FILE with SIZE bytes
       pattern.py check FILE ID          exit 0 if FILE holds the pattern
       pattern.py word OFFSET ID         print the word at OFFSET (hex)
"""
import array
import sys

CHUNK = 1 << 20


def word(offset, ident):
    return 0x56 << 56 | ident << 48 | offset


def chunk(offset, length, ident):
    base = word(offset, ident)
    a = array.array("Q", range(base, base + length, 8))
    if sys.byteorder != "little":
        a.byteswap()
    return a.tobytes()


def write(path, size, ident):
    if size % 8 or size <= 0 or size >= 1 << 48:
        sys.exit("pattern.py: size must be a positive multiple of 8 below 2^48")
    with open(path, "wb") as f:
        for off in range(0, size, CHUNK):
            f.write(chunk(off, min(CHUNK, size - off), ident))


def check(path, ident):
    off = 0
    with open(path, "rb") as f:
        while True:
            data = f.read(CHUNK)
            if not data:
                return 0
            if data != chunk(off, len(data), ident):
                print("%s: pattern mismatch in [%d, %d)" % (path, off, off + len(data)),
                      file=sys.stderr)
                return 1
            off += len(data)


def main(argv):
    if len(argv) == 5 and argv[1] == "write":
        write(argv[2], int(argv[3], 0), int(argv[4], 0))
        return 0
    if len(argv) == 4 and argv[1] == "check":
        return check(argv[2], int(argv[3], 0))
    if len(argv) == 4 and argv[1] == "word":
        print("%016x" % word(int(argv[2], 0), int(argv[3], 0)))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
