#!/usr/bin/env bash
# What HDF5 and MPI-IO get wrong, on the stack this runs on (tests/h5_defects.c, plain HDF5, no colldiag
# in it), and what colldiag does about it (docs/hdf5.md, "What HDF5 and MPI-IO get wrong"):
#  1. plain: prints which defects this stack shows. Not failed: the defects are HDF5's and MPI-IO's, and
#     the day a release fixes one the line says "right" (its controls must be right, and HDF5 must not
#     fail: those are failures).
#  2. explained (the preload, COLLDIAG_REPORT=json): every case whose file came out wrong in that very
#     run must have been predicted before HDF5 ran it (its H5Dwrite's line has "bytes_at_risk" > 0), and no
#     control may have any (a full write, a chunked dataset, a written fill value, a file already long).
#  3. accelerated (COLLDIAG_ACCELERATE=1): every holes-* case comes out right (colldiag writes the call
#     or extends the file before HDF5's), and every collective compact-* case (the ranks' pieces merged
#     before HDF5 writes the whole dataset on every rank: colldiag_h5_write_compact); an independent
#     compact write, whose ranks cannot know each other's pieces, is warned.
# Usage: tests/test_defects.sh BUILD_DIR "LAUNCHER" RANKS [LABEL]
# DEFECTS_BIN: another build of h5_defects (default BUILD_DIR/h5_defects); DEFECTS_PRELOAD=none runs it
# without the preload (a program linked with colldiag's wrappers: make wrap, tests/test_static.sh).
set -u
B=$1 RUN=$2 NP=$3 LABEL=${4:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_defects.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
[ "${DEFECTS_PRELOAD:-}" = none ] && LIB=
BIN=${DEFECTS_BIN:-$B/h5_defects}
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_REPORT -x COLLDIAG_ACCELERATE ${OMPI_MCA_io:+-x OMPI_MCA_io}" ;; *) X="" ;; esac
fail=0
echo "== plain HDF5 ($LABEL$NP ranks)"
$RUN -n "$NP" "$BIN" "$T" >"$T/plain.out" 2>&1 || { echo "FAIL plain run: exit $?"; fail=1; }
cat "$T/plain.out"
# the MPI-IO layer's own reads, without HDF5 (tests/mpi_read_overlap.c: needs 3 ranks to show)
[ "$NP" -ge 3 ] && [ -x "$B/mpi_read_overlap" ] && $RUN -n "$NP" "$B/mpi_read_overlap" "$T/overlap.bin"
# HDF5's direct chunk writes in a parallel file (tests/h5_direct_chunk.c: why colldiag does not write
# filtered chunks itself): printed; only "every rank alike" must not be silently wrong
if [ -x "$B/h5_direct_chunk" ] && [ -z "${DEFECTS_BIN:-}" ]; then
    $RUN -n "$NP" "$B/h5_direct_chunk" "$T" 2>/dev/null ||
        { echo "FAIL h5_direct_chunk: every rank writing every chunk alike came out wrong (HDF5 said it succeeded), or HDF5 failed"; fail=1; }
fi
echo "== explained (COLLDIAG_REPORT=json): every wrong file predicted, no control at risk"
COLLDIAG_REPORT=json:$T/calls.jsonl LD_PRELOAD=$LIB $RUN -n "$NP" $X "$BIN" "$T" >"$T/explained.out" 2>&1 ||
    { echo "FAIL explained run: exit $?"; cat "$T/explained.out"; fail=1; }
python3 - "$T/explained.out" "$T/calls.jsonl" <<'PY' || fail=1
import json, re, sys
verdict = {}
for l in open(sys.argv[1]):
    m = re.match(r"^([a-z0-9-]+): (right|DEFECT)", l)
    if m: verdict[m.group(1)] = m.group(2)
risk = {}
for n, l in enumerate(open(sys.argv[2]), 1):
    j = json.loads(l)
    if j.get("op") not in ("H5Dwrite", "H5Dread", "H5Dwrite_multi"): continue
    m = re.search(r"h5_defects-([a-z0-9-]+)\.h5$", j.get("file", ""))
    if not m: continue
    if "bytes_at_risk" not in j: print("FAIL line %d: no bytes_at_risk" % n); sys.exit(1)
    risk[m.group(1)] = max(risk.get(m.group(1), 0), j["bytes_at_risk"])
bad = 0
if not verdict: print("FAIL: the explained run printed no verdict"); sys.exit(1)
for case, v in sorted(verdict.items()):
    r = risk.get(case)
    if r is None: print("FAIL %s: no H5Dwrite line in the report" % case); bad = 1; continue
    if v == "DEFECT" and r == 0: print("FAIL %s: HDF5's file came out wrong and colldiag named no byte at risk" % case); bad = 1
    if case.startswith("control-") and r: print("FAIL %s: a false alarm: %d bytes at risk where nothing is" % (case, r)); bad = 1
    print("%-34s %-6s bytes_at_risk %d" % (case, v, r))
sys.exit(bad)
PY
echo "== accelerated (COLLDIAG_ACCELERATE=1): every holes-* case and every collective compact-* case right"
COLLDIAG_REPORT=0 COLLDIAG_ACCELERATE=1 LD_PRELOAD=$LIB $RUN -n "$NP" $X "$BIN" "$T" --must-be-right \
    "$(grep -o '^\(holes\|compact\|reads\)-[a-z0-9-]*' "$T/plain.out" | grep -v -- '-independent$' | paste -sd, -)" >"$T/accel.out" 2>&1 || fail=1
cat "$T/accel.out"
grep -q "^holes-collective: right" "$T/accel.out" || { echo "FAIL: no holes-collective verdict under COLLDIAG_ACCELERATE=1"; fail=1; }
grep -q "^compact-ranks-differ: right" "$T/accel.out" || { echo "FAIL: compact-ranks-differ not right under COLLDIAG_ACCELERATE=1"; fail=1; }
# what colldiag cannot keep is warned, without a report: each independent compact-* case its own
# dataset's line, when more than one rank writes it (on one rank, the one copy is the program's: no
# warning then); a collective one is merged, not warned
for c in $(grep -o '^compact-[a-z0-9-]*' "$T/plain.out" | grep -v -- '-independent$'); do
    if grep -q "^colldiag: H5Dwrite .*h5_defects-$c\.h5:/data: [0-9]* bytes at risk" "$T/accel.out"; then
        echo "FAIL $c: warned under COLLDIAG_ACCELERATE=1, where its ranks' pieces are merged"; fail=1
    fi
done
for c in $(grep -o '^compact-[a-z0-9-]*-independent' "$T/plain.out"); do
    if grep -q "^colldiag: H5Dwrite .*h5_defects-$c\.h5:/data: [0-9]* bytes at risk" "$T/accel.out"; then
        [ "$NP" -gt 1 ] || { echo "FAIL $c: warned under COLLDIAG_ACCELERATE=1 on one rank, where nothing is at risk"; fail=1; }
    else
        [ "$NP" -eq 1 ] || { echo "FAIL $c: not warned under COLLDIAG_ACCELERATE=1"; fail=1; }
    fi
done
exit $fail
