#!/usr/bin/env bash
# Compressed data read in parallel under the preload (issue 63): an unmodified HDF5 program
# (tests/h5_filtered.c: deflate, shuffle, Fletcher-32; a dataset with chunks never written) reads the
# same values, prints the same lines and exits alike, plain and under COLLDIAG_ACCELERATE=all; every
# collective read of compressed chunks runs through colldiag, except where HDF5 fails it (1.10.8, chunks
# never written: HDF5 runs it then, so the program gets HDF5's own answer); and the run's summary (JSON)
# counts each touched chunk decoded once, the bytes they decode to and the inflations HDF5 would have made
# (the program's own counts of the chunks its patterns touch, and of the ranks selecting from each), and
# a decoding time. Each call's report names the inflate that decoded its chunks: libdeflate where this
# process can load libdeflate.so.0 (the test asks the system itself), zlib where it cannot or where
# COLLDIAG_INFLATE=zlib (check.sh runs one suite so, and both inflates give the same values).
#   tests/test_filtered_preload.sh BUILD_DIR "LAUNCHER" [RANKS]
set -u
B=$1 RUN=$2 NP=${3:-3}
LIB=$PWD/$B/libcolldiag_preload.so
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_filt.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
# (Open MPI 5's launcher forwards a variable when told: the MPI-IO layer too, for both runs)
case "$RUN" in *openmpi*) PASS() { echo "-x LD_PRELOAD=$LIB -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT ${OMPI_MCA_io:+-x OMPI_MCA_io} ${COLLDIAG_INFLATE:+-x COLLDIAG_INFLATE}"; }
                          IO=${OMPI_MCA_io:+-x OMPI_MCA_io} ;;
               *) PASS() { echo "-genv LD_PRELOAD $LIB"; }
                  IO="" ;; esac
one() { # name, h5_filtered options (with --chunk C)...
    local name=$1 chunk; shift
    chunk=$(sed -n 's/.*--chunk \([0-9]*\).*/\1/p' <<<"$*")
    # (the program's own lines only: a launcher may merge its timings and HDF5's error stacks into them)
    $RUN -n "$NP" $IO "$B/h5_filtered" "$T/$name.h5" "$@" 2>"$T/$name.pe" | grep -E '^/[a-z]+ ' >"$T/$name.p"; local e1=${PIPESTATUS[0]}
    rm -f "$T/$name.jsonl"
    # shellcheck disable=SC2046
    COLLDIAG_ACCELERATE=all COLLDIAG_REPORT="json:$T/$name.jsonl" $RUN -n "$NP" $(PASS) "$B/h5_filtered" "$T/$name.h5" "$@" --read-only \
        2>"$T/$name.ae" | grep -E '^/[a-z]+ ' >"$T/$name.a"; local e2=${PIPESTATUS[0]}
    # shellcheck disable=SC2046
    rm -f "$T/$name.s"
    COLLDIAG_ACCELERATE=all COLLDIAG_REPORT="summary:$T/$name.s" $RUN -n "$NP" $(PASS) "$B/h5_filtered" "$T/$name.h5" "$@" --read-only \
        >/dev/null 2>&1
    [ "$e1" = "$e2" ] || { echo "FAIL $name: exit $e2 under the preload, $e1 plain"; head -5 "$T/$name.ae"; fail=1; }
    if ! diff -q "$T/$name.p" "$T/$name.a" >/dev/null; then
        echo "FAIL $name: the program's output differs under the preload"; diff "$T/$name.p" "$T/$name.a" | head -8; fail=1
    fi
    grep -q "every value right" "$T/$name.p" || { echo "FAIL $name: no pattern read right even plain"; cat "$T/$name.p"; fail=1; }
    python3 - "$T/$name.p" "$T/$name.jsonl" "$T/$name.s" "$name" "$chunk" "${COLLDIAG_INFLATE:-}" <<'PY' || fail=1
import ctypes, json, re, sys
out, calls, name = open(sys.argv[1]).read().splitlines(), [json.loads(l) for l in open(sys.argv[2]) if l.strip()], sys.argv[4]
def loadable(lib):
    try:
        ctypes.CDLL(lib)
        return True
    except OSError:
        return False
inflater = "zlib" if sys.argv[6] == "zlib" or not loadable("libdeflate.so.0") else "libdeflate"
summary = json.load(open(sys.argv[3]))
# the program's lines: dataset, pattern, right or not (plain), stored chunks the pattern touches, and the
# times a rank selects from one (HDF5 reads and inflates a chunk on every rank selecting from it)
lines = [re.match(r"(/\w+) (.+?): \d+ values on \d+ ranks, (.+); (\d+) stored chunks touched, (\d+) times by a rank", l) for l in out]
lines = [m for m in lines if m]
reads = [c for c in calls if c.get("op") == "H5Dread" and c.get("collective")]
bad, want_calls, want_chunks, want_readers = 0, 0, 0, 0
chunk_bytes = int(sys.argv[5]) ** 2 * 8
if len(reads) != len(lines):
    print("FAIL %s: %d collective reads reported, the program made %d" % (name, len(reads), len(lines))); sys.exit(1)
for m, c in zip(lines, reads):
    ds, right, touched = m.group(1), m.group(3) == "every value right", int(m.group(4))
    if c.get("dataset") != ds:
        print("FAIL %s: report %s for the program's %s" % (name, c.get("dataset"), ds)); bad += 1; continue
    # through colldiag where HDF5 reads it right; HDF5's own where HDF5 fails (and the report says why)
    if right and c.get("engine") != "colldiag":
        print("FAIL %s: %s %s ran in %s: %s" % (name, ds, m.group(2), c.get("engine"), c.get("why", ""))); bad += 1
    if not right and (c.get("engine") != "hdf5" or "fails on chunks never written" not in c.get("why", "")):
        print("FAIL %s: %s %s, which HDF5 fails, ran in %s: %s" % (name, ds, m.group(2), c.get("engine"), c.get("why", ""))); bad += 1
    if right:
        want_calls += 1
        want_chunks += touched
        want_readers += int(m.group(5))
        # the call's own report: the same counts, for this call
        f = c.get("filtered", {})
        fw = {"engine": "colldiag", "chunks": touched, "decodes": touched, "decoded_bytes": touched * chunk_bytes, "hdf5_inflations": int(m.group(5)),
              "inflater": inflater}
        if any(f.get(k) != v for k, v in fw.items()):
            print("FAIL %s: %s %s: the call's report says %s, the program's counts %s" % (name, ds, m.group(2), f, fw)); bad += 1
d = summary.get("filtered_decoded", {})
got = (d.get("calls"), d.get("chunks"), d.get("decoded_bytes"), d.get("hdf5_inflations"))
want = (want_calls, want_chunks, want_chunks * chunk_bytes, want_readers)
if got != want:
    print("FAIL %s: the summary says %s calls, %s chunks decoded to %s bytes, %s inflations by HDF5; the program's reads through colldiag"
          " touch %d stored chunks (%d bytes decoded) in %d calls, %d times by a rank" % ((name,) + got + (want_chunks, want[2], want_calls, want_readers)))
    bad += 1
if want_chunks and not d.get("seconds", 0) > 0:
    print("FAIL %s: %d chunks decoded in %s s" % (name, want_chunks, d.get("seconds"))); bad += 1
if not bad:
    print("%s: %d collective reads, %d through colldiag (%d chunks, each decoded once, by %s), values and output as plain HDF5's"
          % (name, len(reads), want_calls, want_chunks, inflater))
sys.exit(1 if bad else 0)
PY
}
one shuffle-deflate1 --n 512 --chunk 64 --level 1
# edge chunks (500 is no multiple of 48), no shuffle, a higher level
one deflate6-edges --n 500 --chunk 48 --level 6 --noshuffle
[ "$fail" = 0 ] && echo "test_filtered_preload ($NP ranks): every check passed"
exit "$fail"
