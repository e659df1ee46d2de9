#!/usr/bin/env python3
"""The README's speed table from one `make bench-readme` result file (bench/results/DATE-TIME-COMMIT.txt):
B1-B4 from bench-hdf5 (HDF5 1.10's default link-chunk write, the accelerated H5Dwrite after the first call,
colldiag AUTO) and the field's patterns from bench-patterns (HDF5 against COLLDIAG_ACCELERATE=1).
   python3 bench/readme_table.py bench/results/FILE.txt"""
import re
import sys


def fmt(s):
    return "%.0f µs" % (s * 1e6) if s < 1e-3 else "%.1f ms" % (s * 1e3) if s < 1 else "%.2f s" % s


def main(path):
    text = open(path).read()
    rows = []
    # bench-hdf5: two blocks, write then read
    for op, block in zip(("write", "read"), re.split(r"\n(?=colldiag bench, )", text)[1:3] if text.count("colldiag bench, ") >= 2 else []):
        got = {}
        for line in block.splitlines():
            m = re.match(r"(B\d r?|B2r)\s.*?\s{2,}(h5 link|h5 accel|auto)\s+([0-9.]+)\s+([0-9.]+)(.*)$", line)
            if not m:
                m = re.match(r"(B\w+)\s+\S.*?\s(h5 link|h5 accel|auto)\s+([0-9.]+)\s+([0-9.]+)(.*)$", line)
            if m:
                key = m.group(1).strip()
                choice = re.search(r"-> (\w+)", m.group(5))
                got.setdefault(key, {})[m.group(2)] = (float(m.group(3)), float(m.group(4)), choice.group(1) if choice else "")

        def cell(v):  # seconds, or (below a millisecond, printed as 0.000x) times the MPI-IO limit
            return fmt(v[0]) if v[0] >= 1e-3 else "%.3g× limit" % v[1]
        for key in ("B1", "B2", "B3", "B4"):
            g = got.get(key, {})
            if "auto" not in g:
                continue
            h, a = g.get("h5 link"), g.get("h5 accel")
            rows.append((key + " " + op, cell(h) if h else "minutes (skipped)",
                         "%s (%.2fx)" % (cell(a), h[1] / a[1]) if a and h else cell(a) if a else "—",
                         "%s (%s)" % (cell(g["auto"]), g["auto"][2].lower().replace("_", "-"))))
    # bench-patterns
    for line in text.splitlines():
        m = re.match(r"(ior-\S+|vpic-\S+)\s+(\d+) MB/s\s+(\d+) MB/s\s+([0-9.]+)x\s+(\d+) MB/s\s+(\d+) MB/s\s+([0-9.]+)x", line)
        if m and any(k in m.group(1) for k in ("ior-seg-1m", "vpic-3d")):
            rows.append((m.group(1) + " write", m.group(2) + " MB/s", "%s MB/s (%sx)" % (m.group(3), m.group(4)), "—"))
            rows.append((m.group(1) + " read", m.group(5) + " MB/s", "%s MB/s (%sx)" % (m.group(6), m.group(7)), "—"))
    lows = []
    for line in text.splitlines():
        m = re.match(r"(ior-\S+|vpic-\S+)\s.*?([0-9.]+)x\s.*?([0-9.]+)x\s*$", line)
        if m:
            lows += [(float(m.group(2)), m.group(1) + " write"), (float(m.group(3)), m.group(1) + " read")]
    print("| pattern | HDF5 1.10 | accelerated (× HDF5's speed) | colldiag AUTO |")
    print("|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)
    if lows:
        lows.sort()
        print("\nlowest of the %d pattern ratios: %s" % (len(lows), ", ".join("%.2fx %s" % l for l in lows[:4])))


if __name__ == "__main__":
    main(sys.argv[1])
