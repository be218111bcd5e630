"""vlab drive pattern: write (or check) a lab backing image.

Every 8-byte little-endian word at byte offset o of the image holds

    0x56 << 56 | id << 48 | o        id = node_tag | drive_index

(node tag a = 0x00, b = 0x80, c = 0x40, d = 0xc0). No word is zero, each word names its own offset,
drive and node: any 4096-byte block read anywhere tells where it came from.

usage: pattern.py write FILE SIZE ID     create FILE with SIZE bytes
       pattern.py check FILE ID          exit 0 if FILE holds the pattern
       pattern.py word OFFSET ID         print the word at OFFSET (hex)
"""
import argparse
import array
import os
import sys

from .. import command

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


def integer(text):
    """A number as C writes it (4096, 0x1000, 0o10), for argparse."""
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %s" % text) from None


def parser():
    p = command.Parser(prog="pattern.py", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    s = sub.add_parser("write", help="create FILE with SIZE bytes")
    s.add_argument("file", metavar="FILE")
    s.add_argument("size", metavar="SIZE", type=integer)
    s.add_argument("ident", metavar="ID", type=integer)
    s = sub.add_parser("check", help="exit 0 if FILE holds the pattern")
    s.add_argument("file", metavar="FILE")
    s.add_argument("ident", metavar="ID", type=integer)
    s = sub.add_parser("word", help="print the word at OFFSET (hex)")
    s.add_argument("offset", metavar="OFFSET", type=integer)
    s.add_argument("ident", metavar="ID", type=integer)
    return p


def main(argv):
    args = parser().parse_args(argv[1:])
    if args.verb == "write":
        write(args.file, args.size, args.ident)
        return 0
    if args.verb == "check":
        return check(args.file, args.ident)
    print("%016x" % word(args.offset, args.ident))
    return 0
