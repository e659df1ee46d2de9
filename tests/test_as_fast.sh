#!/usr/bin/env bash
# Which calls the preload leaves to HDF5 under COLLDIAG_ACCELERATE=1 by its rules (not a timed test; the
# rules alone, COLLDIAG_AUTO_MODE=estimate: measured, they are the prior, tests/test_engine.sh). Chunked: a
# collective write in which every rank writes whole chunks of its own, at least 256 KiB on the busiest
# rank (COLLDIAG_ACCEL_WHOLE_BYTES), and which leaves some of the dataset's chunks to other calls, is
# HDF5's, on every rank alike (under HDF5 1.12 and later, one that writes the whole dataset too);
# smaller ones, and every read, are colldiag's. Contiguous: every write is HDF5's; a collective read in
# which every rank reads one stretch of its own is colldiag's (COLLDIAG_ACCEL_STRETCH_BYTES), any other
# HDF5's. Under COLLDIAG_ACCELERATE=all none is left. The expectation comes from the patterns'
# shapes (bench/patterns.c), not from colldiag: ior-*-X-chunk writes one chunk of X bytes a rank a call,
# vpic-*-chunk 4 chunks of 256 KiB a rank a call. patterns checks every value it reads back (exit 1
# otherwise), so the bytes HDF5 wrote in the declined calls are checked too.
# Usage: tests/test_as_fast.sh BUILD_DIR "LAUNCHER" [RANKS]
set -u
B=$1 RUN=$2 NP=${3:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_as_fast.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT -x COLLDIAG_AUTO_MODE ${OMPI_MCA_io:+-x OMPI_MCA_io}" ;; *) X="" ;; esac
export COLLDIAG_AUTO_MODE=estimate
# the HDF5 the preload is built against (the same version for both MPI builds of a system)
V112=0
pkg-config --atleast-version=1.12 hdf5-openmpi 2>/dev/null && V112=1
fail=0
for acc in 1 all; do
    for p in ior-seg-64k-chunk ior-str-1m-chunk ior-seg-8m-chunk vpic-1d-chunk vpic-3d-chunk ior-seg-64k-contig ior-str-1m-contig vpic-2d-contig bdcats-strided \
             ior-fpp-1m-contig ior-fpp-1m-chunk; do
        rm -f "$T/r.jsonl"
        if ! COLLDIAG_ACCELERATE=$acc COLLDIAG_REPORT=json:$T/r.jsonl LD_PRELOAD=$LIB $RUN -n "$NP" $X "$B/patterns" "$T" "$p" 8 >"$T/out" 2>&1; then
            echo "FAIL $p (COLLDIAG_ACCELERATE=$acc): exit $?"; head -20 "$T/out"; fail=1; continue
        fi
        python3 - "$T/r.jsonl" "$p" "$acc" "$V112" <<'PY' || fail=1
import json, sys
path, p, acc, v112 = sys.argv[1:]
# the busiest rank's bytes in one write call, from the pattern's shape
per_call = {"64k": 64 << 10, "1m": 1 << 20, "8m": 8 << 20}[p.split("-")[2]] if p.startswith("ior") else 1 << 20
# whether one call writes the whole dataset: a VPIC variable is written in one call by every rank; an
# IOR rank writes its 8 MiB block in transfers of per_call bytes
whole = not p.startswith("ior") or per_call == 8 << 20
# under HDF5 1.12+ (1.14's rules) a whole-dataset write is HDF5's too
want_hdf5 = acc == "1" and per_call >= 256 << 10 and (not whole or v112 == "1")
# contiguous datasets: every write is HDF5's (one MPI-IO call either way), a read colldiag's where every
# rank reads one stretch of its own (IOR's transfers, VPIC's bands), HDF5's where a rank reads many
# (bdcats-strided: every other 1024 particles)
contig = p.endswith("-contig") or p == "bdcats-strided"
want_hdf5_read = acc == "1" and p == "bdcats-strided"
if contig: want_hdf5 = acc == "1"
# a file a rank (IOR -F: each file's communicator is one rank): every read is HDF5's (MPI-IO runs a
# one-rank collective call as that rank's own I/O), each decided before the bridge, a file's first too
# (the preload asks the MPI_File's group: a why the bridge gave starts "colldiag_h5_read: rank N:");
# writes: contiguous ones as above, chunked ones (whole 1 MiB chunks of one rank, bytes at risk learnt
# in the agreement) HDF5's too
fpp = p.startswith("ior-fpp")
if fpp: want_hdf5 = want_hdf5_read = acc == "1"
n = {"write": [0, 0], "read": [0, 0]}  # [colldiag, hdf5]
bad = 0
for line in open(path):
    j = json.loads(line)
    if j.get("summary") is True: continue  # the run's summary line, at its end
    kind = "write" if j["op"] == "H5Dwrite" else "read"
    by_hdf5 = j.get("engine") != "colldiag"
    n[kind][by_hdf5] += 1
    said = "HDF5's path is as fast here" in j.get("why", "")
    if fpp and acc == "1" and kind == "read" and not j.get("why", "").startswith("HDF5's path is as fast here"):
        said = not expect  # decided in the bridge, not before it
    expect = want_hdf5 if kind == "write" else want_hdf5_read
    if by_hdf5 != expect or said != expect:
        bad += 1
        if bad < 4: print("FAIL %s (COLLDIAG_ACCELERATE=%s): %s %s by %s, why %r" % (p, acc, j["op"], j.get("dataset"), j.get("engine"), j.get("why", "")))
if not n["write"][0] + n["write"][1] or not n["read"][0] + n["read"][1]:
    print("FAIL %s (COLLDIAG_ACCELERATE=%s): calls seen %s" % (p, acc, n)); bad += 1
print("%s, COLLDIAG_ACCELERATE=%s: writes %d colldiag, %d HDF5 (as fast); reads %d colldiag, %d HDF5 (as fast)" % (p, acc, n["write"][0], n["write"][1], n["read"][0], n["read"][1]))
sys.exit(1 if bad else 0)
PY
    done
done
exit $fail
