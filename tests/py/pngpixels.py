# SPDX-License-Identifier: MIT
"""A PNG read back by hand (zlib and the five row filters), for the tests that
look at what a chart drew: pixels as (r, g, b), and the solid bars of one
colour found in them. 8-bit, not interlaced: what gnuplot's png and pngcairo
terminals write."""
import struct
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def _add_bytes(x, y):
    """X + Y byte by byte, each modulo 256, in one pass over whole rows: the
    sums of the low seven bits, with the top bits' sum put back without carry."""
    n = len(x)
    a, b = int.from_bytes(x, "big"), int.from_bytes(y, "big")
    lo, hi = int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")
    return bytearray((((a & lo) + (b & lo)) ^ ((a ^ b) & hi)).to_bytes(n, "big"))


def _unfilter(raw, width, height, bpp):
    stride = width * bpp
    rows, prev, pos = [], bytearray(stride), 0
    for _ in range(height):
        ftype, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        if ftype == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif ftype == 2:
            line = _add_bytes(line, prev)
        elif ftype == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif ftype == 4:
            for i in range(stride):
                if i < bpp:
                    line[i] = (line[i] + prev[i]) & 255
                    continue
                a, b, c = line[i - bpp], prev[i], prev[i - bpp]
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        elif ftype != 0:
            raise ValueError("PNG row filter %d" % ftype)
        rows.append(line)
        prev = line
    return rows


def read(path):
    """(width, height, pixels): pixels[y][x] is (r, g, b)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, palette, head = 8, b"", None, None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, ctype, _, _, interlace = head
    if depth != 8 or interlace or ctype not in CHANNELS:
        raise ValueError("%s: depth %d, colour type %d, interlace %d not read here"
                         % (path, depth, ctype, interlace))
    bpp = CHANNELS[ctype]
    rows = _unfilter(zlib.decompress(idat), width, height, bpp)
    pixels = []
    for line in rows:
        if ctype == 3:
            pixels.append([palette[v] for v in line])
        elif ctype in (0, 4):
            pixels.append([(v, v, v) for v in line[::bpp]])
        else:
            it = [iter(line)] * bpp
            pixels.append([p[:3] for p in zip(*it)])
    return width, height, pixels


def regions(pixels, colour):
    """The solid regions of COLOUR as boxes (x0, x1, y0, y1), inclusive: the
    runs of columns holding the colour, split where a column's extent
    changes, so that bars side by side of one colour come out one by one."""
    height = len(pixels)
    cols = {}
    for y in range(height):
        for x, p in enumerate(pixels[y]):
            if p == colour:
                cols.setdefault(x, []).append(y)
    boxes = []
    for x in sorted(cols):
        ys = cols[x]
        # one column may cross several regions (a key sample above a bar)
        spans, start = [], ys[0]
        for a, b in zip(ys, ys[1:] + [None]):
            if b != a + 1:
                spans.append((start, a))
                start = b
        for y0, y1 in spans:
            for box in boxes:
                if box[1] == x - 1 and box[2] == y0 and box[3] == y1:
                    box[1] = x
                    break
            else:
                boxes.append([x, x, y0, y1])
    return [tuple(b) for b in boxes]
