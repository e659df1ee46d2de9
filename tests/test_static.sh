#!/usr/bin/env bash
# A program linked against HDF5 statically (plain h5pcc links libhdf5.a on Debian 12 and 13), which the
# preload cannot see (docs/hdf5.md, "A program linked against HDF5 statically"):
#  1. under the preload with COLLDIAG_REPORT=summary and COLLDIAG_ACCELERATE=1, tests/h5_defects.c built
#     by plain h5pcc is told so on stderr and in the run's summary ("NOT SEEN"), and the summary never
#     says "every call that could be collective was" about calls it did not see;
#  2. the same program linked against the shared HDF5 gets no such line (no false alarm);
#  3. built with colldiag's wrappers (make wrap: h5pcc ... $(cat BUILD_DIR/colldiag-wrap.flags)) and run
#     without the preload, it is explained and protected as a preloaded one is: tests/test_defects.sh
#     (every wrong file predicted, no control at risk, every hole and collective compact case right
#     under COLLDIAG_ACCELERATE=1).
# Usage: tests/test_static.sh BUILD_DIR "LAUNCHER" RANKS H5PCC
set -u
B=$1 RUN=$2 NP=$3 H5PCC=$4
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_static.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_REPORT -x COLLDIAG_ACCELERATE" ;; *) X="" ;; esac
fail=0
# the premise: plain h5pcc links HDF5 statically here (if a release changes that, this test says so)
$H5PCC -show | grep -q 'libhdf5\.a' || { echo "FAIL: $H5PCC -show links no libhdf5.a: the premise of this test is gone"; exit 1; }
$H5PCC -o "$T/h5_defects_static" tests/h5_defects.c >"$T/cc.out" 2>&1 || { echo "FAIL: $H5PCC tests/h5_defects.c"; cat "$T/cc.out"; exit 1; }
# shellcheck disable=SC2046
$H5PCC -o "$T/h5_defects_wrapped" tests/h5_defects.c $(cat "$B/colldiag-wrap.flags") >"$T/cc.out" 2>&1 ||
    { echo "FAIL: $H5PCC tests/h5_defects.c with colldiag's wrappers"; cat "$T/cc.out"; exit 1; }

echo "== 1. statically linked, under the preload: told so"
COLLDIAG_REPORT=summary COLLDIAG_ACCELERATE=1 LD_PRELOAD=$LIB $RUN -n "$NP" $X "$T/h5_defects_static" "$T" --case holes-collective \
    >"$T/static.out" 2>&1 || { echo "FAIL: exit $?"; cat "$T/static.out"; fail=1; }
grep -q "^colldiag: .*h5_defects_static carries HDF5 [0-9.]* linked statically" "$T/static.out" ||
    { echo "FAIL: no line on stderr says the program's HDF5 is linked statically"; fail=1; }
grep -q "^   NOT SEEN: .*linked statically" "$T/static.out" || { echo "FAIL: the run's summary does not say what it could not see"; fail=1; }
grep -q "every call that could be collective was" "$T/static.out" && { echo "FAIL: the summary says every call was collective about calls it never saw"; fail=1; }
grep -E "linked statically|NOT SEEN|causes:" "$T/static.out" | cut -c1-160

echo "== 2. linked against the shared HDF5, under the preload: no such line"
COLLDIAG_REPORT=summary COLLDIAG_ACCELERATE=1 LD_PRELOAD=$LIB $RUN -n "$NP" $X "$B/h5_defects" "$T" --case holes-collective \
    >"$T/shared.out" 2>&1 || { echo "FAIL: exit $?"; cat "$T/shared.out"; fail=1; }
grep -q "linked statically\|NOT SEEN" "$T/shared.out" && { echo "FAIL: a false alarm on a program whose HDF5 is shared"; fail=1; }
grep -q "^== colldiag run summary: $NP ranks, [1-9]" "$T/shared.out" || { echo "FAIL: no summary of its calls"; fail=1; }

echo "== 3. statically linked with colldiag's wrappers, no preload: explained and protected"
DEFECTS_BIN=$T/h5_defects_wrapped DEFECTS_PRELOAD=none tests/test_defects.sh "$B" "$RUN" "$NP" "wrapped, " >"$T/wrapped.out" 2>&1 ||
    { echo "FAIL: tests/test_defects.sh on the wrapped program:"; grep -E "FAIL|DEFECT.*required" "$T/wrapped.out"; fail=1; }
grep -c "bytes_at_risk [1-9]" "$T/wrapped.out" | sed 's/^/cases predicted through the wrappers: /'
grep -q "^holes-collective: right" "$T/wrapped.out" || { echo "FAIL: holes-collective not right under COLLDIAG_ACCELERATE=1 through the wrappers"; fail=1; }
exit $fail
