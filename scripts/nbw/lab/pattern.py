"""vlab drive pattern: write (or check) a lab backing image.

Every 8-byte little-endian word at byte offset o of the image holds

    0x56 << 56 | id << 48 | o        id = node_tag | drive_index

(node tag a = 0x00, b = 0x80, c = 0x40, d = 0xc0). No word is zero, each word names its own offset,
drive and node: any 4096-byte block read anywhere tells where it came from.

usage: pattern.py write FILE SIZE ID     create FILE with SIZE bytes
       pattern.py check FILE ID          exit 0 if FILE holds the pattern
       pattern.py word OFFSET ID         print the word at OFFSET (hex)
"""
import array
import os
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


def chunks(size, ident):
    """Yield the pattern of [0, size) in CHUNK pieces.

    Offsets inside the first chunk stay below 2^20, so the words of chunk k
    are those of chunk 0 OR'ed with k * CHUNK (bits 20..47, no carries): one
    big-integer OR per chunk instead of a Python loop per word.
    """
    first = int.from_bytes(chunk(0, CHUNK, ident), "little")
    for off in range(0, size, CHUNK):
        n = min(CHUNK, size - off)
        if n < CHUNK or sys.byteorder != "little":
            yield chunk(off, n, ident)
            continue
        mask = int.from_bytes(off.to_bytes(8, "little") * (CHUNK // 8), "little")
        yield (first | mask).to_bytes(CHUNK, "little")


def write(path, size, ident):
    if size % 8 or size <= 0 or size >= 1 << 48:
        sys.exit("pattern.py: size must be a positive multiple of 8 below 2^48")
    with open(path, "wb") as f:
        for data in chunks(size, ident):
            f.write(data)


def check(path, ident):
    off = 0
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size % 8:
            print("%s: size %d is not a multiple of 8" % (path, size), file=sys.stderr)
            return 1
        for want in chunks(size, ident):
            if f.read(len(want)) != want:
                print("%s: pattern mismatch in [%d, %d)" % (path, off, off + len(want)),
                      file=sys.stderr)
                return 1
            off += len(want)
    return 0


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
