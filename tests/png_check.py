#!/usr/bin/python3
"""Decodes a PNG (8-bit RGB or RGBA, not interlaced, as chromium writes) and prints how many pixels are
within 12 of each colour given, plus the number of distinct colours. Exit 1 if any colour has fewer
than MIN pixels or the image has fewer than 3 distinct colours (blank).
    png_check.py FILE.png MIN R,G,B [R,G,B ...]"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and inter == 0, "unsupported PNG"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return out


px = pixels(sys.argv[1])
need = int(sys.argv[2])
ok = len(set(px)) >= 3
for spec in sys.argv[3:]:
    r, g, b = map(int, spec.split(","))
    n = sum(1 for p in px if abs(p[0] - r) <= 12 and abs(p[1] - g) <= 12 and abs(p[2] - b) <= 12)
    print("%s: %d pixels of %s" % (sys.argv[1], n, spec))
    ok &= n >= need
print("%s: %d pixels, %d distinct colours" % (sys.argv[1], len(px), len(set(px))))
sys.exit(0 if ok else 1)
