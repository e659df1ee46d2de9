#!/usr/bin/env bash
# HDF5 1.14's multi-dataset and asynchronous raw-data calls under the preload: never missed, and the
# multi-dataset calls accelerated. The client (tests/h5_multi_client.c) runs plain, then under the
# preload with COLLDIAG_ACCELERATE=1 and with =all, each with a JSON report; every run must check every
# value; each run's file must equal the plain one (h5dump, every dataset); the report must name every
# dataset of every such call with the engine that ran it:
#   H5Dwrite_multi /a + /b (contiguous): HDF5 under =1 (its path is as fast), colldiag under =all;
#   H5Dwrite_multi /a + /d (chunked): colldiag under both;
#   H5Dread_multi /a + /b + /d: HDF5 under =1, colldiag under =all;
#   H5Dwrite_async, H5Dread_async /c: HDF5 always.
# Usage: tests/test_multi_entry.sh BUILD_DIR "LAUNCHER"
set -u
B=$1 RUN=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_multi.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT" ;; *) X="" ;; esac
fail=0
$RUN -n 3 "$B/h5_multi_client" "$T/plain.h5" || { echo "FAIL plain run"; fail=1; }
for acc in 1 all; do
    COLLDIAG_ACCELERATE=$acc COLLDIAG_REPORT=json:$T/calls-$acc.jsonl LD_PRELOAD=$LIB $RUN -n 3 $X "$B/h5_multi_client" "$T/acc-$acc.h5" ||
        { echo "FAIL run under the preload, COLLDIAG_ACCELERATE=$acc"; fail=1; }
    for d in a b c d; do
        cmp -s <(h5dump -d /$d "$T/plain.h5" | tail -n +2) <(h5dump -d /$d "$T/acc-$acc.h5" | tail -n +2) ||
            { echo "FAIL COLLDIAG_ACCELERATE=$acc: dataset /$d differs from plain HDF5's"; fail=1; }
    done
    python3 - "$T/calls-$acc.jsonl" "$acc" <<'PY' || fail=1
import json, sys
acc = sys.argv[2]
got = {}
for l in open(sys.argv[1]):
    j = json.loads(l)
    got.setdefault(j["op"], []).append((j["dataset"], j.get("engine")))
cd_all = "colldiag" if acc == "all" else "hdf5"
want = {"H5Dwrite_multi": sorted([("/a", cd_all), ("/b", cd_all), ("/a", "colldiag"), ("/d", "colldiag")]),
        "H5Dread_multi": sorted([("/a", cd_all), ("/b", cd_all), ("/d", cd_all)]),
        "H5Dwrite_async": [("/c", "hdf5")], "H5Dread_async": [("/c", "hdf5")]}
bad = 0
for op, entries in want.items():
    seen = sorted(got.get(op, []))
    if seen != entries:
        print("FAIL COLLDIAG_ACCELERATE=%s %s: report entries %s, expected %s" % (acc, op, seen, entries)); bad = 1
print("COLLDIAG_ACCELERATE=%s report: %s" % (acc, ", ".join("%s %d" % (op, len(v)) for op, v in sorted(got.items()))))
sys.exit(bad)
PY
done
[ $fail = 0 ] && echo "test_multi_entry.sh: 1 passed, 0 failed"
exit $fail
