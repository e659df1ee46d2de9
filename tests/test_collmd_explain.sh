#!/usr/bin/env bash
# The preload on a file whose metadata reads are collective (netCDF-4's), where one rank calls alone:
# tests/h5_collmd_client.c plain, then under the preload explaining (COLLDIAG_REPORT=json) and
# accelerating; each run must succeed, check every value, and write the same file as plain HDF5
# (h5dump); the report must have an entry for rank 0's lone read. Before colldiag learned datasets of
# such files only where every rank does (colldiag_h5_opened), HDF5 1.14 left rank 0's explained read
# in a broadcast that the others' attribute calls answered: the run failed or hung.
# Usage: tests/test_collmd_explain.sh BUILD_DIR "LAUNCHER"
set -u
B=$1 RUN=$2
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_collmd.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT" ;; *) X="" ;; esac
fail=0
timeout 60 $RUN -n 3 "$B/h5_collmd_client" "$T/plain.h5" || { echo "FAIL plain run"; fail=1; }
for acc in 0 1; do
    COLLDIAG_ACCELERATE=$acc COLLDIAG_REPORT=json:$T/calls-$acc.jsonl LD_PRELOAD=$LIB timeout 60 $RUN -n 3 $X "$B/h5_collmd_client" "$T/pre-$acc.h5" ||
        { echo "FAIL run under the preload, COLLDIAG_ACCELERATE=$acc"; fail=1; }
    cmp -s <(h5dump "$T/plain.h5" | tail -n +2) <(h5dump "$T/pre-$acc.h5" | tail -n +2) ||
        { echo "FAIL COLLDIAG_ACCELERATE=$acc: the file differs from plain HDF5's"; fail=1; }
    n=$(grep -c '"op":"H5Dread"' "$T/calls-$acc.jsonl" 2>/dev/null) || n=0
    [ "$n" -ge 2 ] || { echo "FAIL COLLDIAG_ACCELERATE=$acc: $n H5Dread entries in the report, expected rank 0's lone read and the collective one"; fail=1; }
done
[ $fail = 0 ] && echo "test_collmd_explain.sh: 1 passed, 0 failed"
exit $fail
