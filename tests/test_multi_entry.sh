#!/usr/bin/env bash
# HDF5 1.14's multi-dataset and asynchronous raw-data calls under the preload: never missed. The client
# (tests/h5_multi_client.c) runs plain and under the preload with COLLDIAG_ACCELERATE=1 and a JSON
# report; both must check every value; the files must be the same (h5dump); the report must name every
# dataset of every such call: 2 each for H5Dwrite_multi and H5Dread_multi, 1 each for H5Dwrite_async
# and H5Dread_async.
# Usage: tests/test_multi_entry.sh BUILD_DIR "LAUNCHER"
set -u
B=$1 RUN=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_multi.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT" ;; *) X="" ;; esac
fail=0
$RUN -n 3 "$B/h5_multi_client" "$T/plain.h5" || { echo "FAIL plain run"; fail=1; }
COLLDIAG_ACCELERATE=1 COLLDIAG_REPORT=json:$T/calls.jsonl LD_PRELOAD=$LIB $RUN -n 3 $X "$B/h5_multi_client" "$T/acc.h5" ||
    { echo "FAIL run under the preload"; fail=1; }
for d in a b c; do
    cmp -s <(h5dump -d /$d "$T/plain.h5" | tail -n +2) <(h5dump -d /$d "$T/acc.h5" | tail -n +2) || { echo "FAIL dataset /$d differs"; fail=1; }
done
python3 - "$T/calls.jsonl" <<'PY' || fail=1
import json, sys
got = {}
for l in open(sys.argv[1]):
    j = json.loads(l)
    got.setdefault(j["op"], []).append((j["dataset"], j.get("engine"), j.get("planned")))
want = {"H5Dwrite_multi": ["/a", "/b"], "H5Dread_multi": ["/a", "/b"], "H5Dwrite_async": ["/c"], "H5Dread_async": ["/c"]}
bad = 0
for op, names in want.items():
    seen = sorted(d for d, e, p in got.get(op, []))
    if seen != names or any(e != "hdf5" or p is not False for d, e, p in got.get(op, [])):
        print("FAIL %s: report entries %s, expected datasets %s run by HDF5" % (op, got.get(op), names)); bad = 1
print("report: %s" % ", ".join("%s %d" % (op, len(v)) for op, v in sorted(got.items())))
sys.exit(bad)
PY
[ $fail = 0 ] && echo "test_multi_entry.sh: 1 passed, 0 failed"
exit $fail
