#!/usr/bin/env bash
# One page per run (src/summary.c, tools/colldiag-summary), on real programs under the preload:
#  1. every client (tests/h5_client.c; with h5py, tests/h5py_client.py; with netCDF-4, tests/nc_client.c),
#     explained (COLLDIAG_REPORT=json) and accelerated: the run's own summary, the last line of the JSON
#     file, has the calls, bytes and causes that tools/colldiag-summary sums from the per-call lines
#     (computed by another program, from another source: the per-call gathers, not the counters);
#  2. COLLDIAG_REPORT=summary:PATH (nothing planned per call) gives the same calls, bytes and causes as the
#     planned run of the same program;
#  3. COLLDIAG_REPORT=summary prints one screen, once, on rank 0, that names what to change first;
#  4. a program that exits without MPI_Finalize: rank 0 writes its own summary, marked so, nobody hangs;
#  5. the offline command: --compare of two runs, --json, and a malformed line refused with its number.
# Usage: tests/test_summary.sh BUILD_DIR "LAUNCHER" [h5py] [netcdf]
set -u
B=$1 RUN=$2 PY=${3:-} NC=${4:-}
LIB=$PWD/$B/libcolldiag_preload.so
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_summary.XXXXXX")
trap 'rm -rf "$T"' EXIT
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_REPORT -x COLLDIAG_ACCELERATE" ;; *) X="" ;; esac
TOOL=tools/colldiag-summary
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail=0

run() { # name, report, accelerate, command...: the program under the preload
    local name=$1 rep=$2 acc=$3; shift 3
    COLLDIAG_REPORT=$rep COLLDIAG_ACCELERATE=$acc LD_PRELOAD=$LIB timeout 300 $RUN -n 3 $X "$@" >"$T/$name.out" 2>&1
}

no_diag() { # output, the planned run's output, label: the summary alone prints no HDF5 error stack the planned run does not
    local a b
    a=$(grep -c 'HDF5-DIAG' "$1"); b=$(grep -c 'HDF5-DIAG' "$2")
    if [ "$a" != "$b" ]; then echo "FAIL $3: $a HDF5 error stacks, $b in the planned run"; grep -A3 'HDF5-DIAG' "$1" | head -8; fail=1
    else echo "$3: no HDF5 error output of its own ($a, as the planned run)"; fi
}

# the run's own summary against the tool's sums of its lines: calls, bytes, causes (name: bits, calls, bytes)
same_as_lines() { # jsonl, label
    python3 - "$1" "$2" "$TOOL" <<'PY'
import json, subprocess, sys
path, label, tool = sys.argv[1:4]
lines = [json.loads(l) for l in open(path) if l.strip()]
own = [j for j in lines if j.get("summary") is True]
if len(own) != 1:
    print("FAIL %s: %d summary lines in the JSON report (one expected, the last)" % (label, len(own))); sys.exit(1)
if lines[-1].get("summary") is not True:
    print("FAIL %s: the summary is not the report's last line" % label); sys.exit(1)
p = subprocess.run([tool, "--json", path], capture_output=True, text=True)
if p.returncode:
    print("FAIL %s: %s exited %d: %s" % (label, tool, p.returncode, p.stderr)); sys.exit(1)
t, o = json.loads(p.stdout), own[0]
causes = lambda s: {c["cause"]: (c["calls"], c["bytes"]) for c in s["causes"]}
bad = [k for k in ("calls", "bytes") if t[k] != o[k]]
if causes(t) != causes(o): bad.append("causes %s (lines) against %s (summary)" % (causes(t), causes(o)))
if t["calls"] < 10: bad.append("only %d calls" % t["calls"])
print("%s: %d calls, %d bytes, causes %s, advice %d: %s" % (label, o["calls"], o["bytes"], sorted(causes(o)), len(o["advice"]),
      "the summary equals the lines' sums" if not bad else "DIFFERS: " + "; ".join(map(str, bad))))
sys.exit(1 if bad else 0)
PY
}

for spec in "c:$B/h5_client" ${PY:+"py:/usr/bin/python3 tests/h5py_client.py"} ${NC:+"nc:$B/nc_client"}; do
    name=${spec%%:*}; cmd=${spec#*:}
    [ "$name" = nc ] && [ ! -x "$B/nc_client" ] && continue
    for acc in 0 1; do
        # shellcheck disable=SC2086
        run "$name-$acc" "json:$T/$name-$acc.jsonl" "$acc" $cmd "$T/$name-$acc.h5" "$T/$name-$acc.own.jsonl" ||
            { echo "FAIL $name (accelerate $acc): exit $?"; tail -20 "$T/$name-$acc.out"; fail=1; continue; }
        same_as_lines "$T/$name-$acc.jsonl" "$name, COLLDIAG_ACCELERATE=$acc" || fail=1
    done
    # 2. the summary alone (nothing planned per call): the same totals as the planned run
    # shellcheck disable=SC2086
    run "$name-s" "summary:$T/$name-s.json" 0 $cmd "$T/$name-s.h5" "$T/$name-s.own.jsonl" ||
        { echo "FAIL $name (summary): exit $?"; tail -20 "$T/$name-s.out"; fail=1; continue; }
    # ... and, as every mode of the preload, no HDF5 error output of its own (the summary's bytes-at-risk
    # words once read a DXPL outside H5E_BEGIN_TRY: 88 HDF5 error stacks for h5_client's run)
    no_diag "$T/$name-s.out" "$T/$name-0.out" "$name (summary alone)"
    python3 - "$T/$name-s.json" "$T/$name-0.jsonl" "$name" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
planned = [json.loads(l) for l in open(sys.argv[2]) if l.strip()][-1]
causes = lambda x: {c["cause"]: (c["calls"], c["bytes"]) for c in x["causes"]}
bad = [k for k in ("calls", "bytes", "calls_collective") if s[k] != planned[k]]
if causes(s) != causes(planned): bad.append("causes %s against %s" % (causes(s), causes(planned)))
print("%s: summary alone %d calls, %d bytes: %s" % (sys.argv[3], s["calls"], s["bytes"], "as the planned run's" if not bad else "DIFFERS: %s" % bad))
sys.exit(1 if bad else 0)
PY
done

# 2b. bytes at risk, the summary alone (issue 61): HDF5's own defects (tests/h5_defects.c) through the
# summary with nothing planned per call name the same bytes at risk, dataset by dataset, as the planned
# run, and every case whose file came out wrong in that very run is among them
run defects-s "summary:$T/defects-s.json" 0 "$B/h5_defects" "$T" || { echo "FAIL h5_defects (summary): exit $?"; fail=1; }
run defects-p "json:$T/defects-p.jsonl" 0 "$B/h5_defects" "$T" || { echo "FAIL h5_defects (planned): exit $?"; fail=1; }
no_diag "$T/defects-s.out" "$T/defects-p.out" "h5_defects (summary alone)"
python3 - "$T/defects-s.json" "$T/defects-p.jsonl" "$T/defects-s.out" <<'PY' || fail=1
import json, re, sys
s = json.load(open(sys.argv[1]))
p = [json.loads(l) for l in open(sys.argv[2]) if l.strip()][-1]
risk = lambda x: {e["dataset"]: (e["bytes"], e["calls"]) for e in x["risk"]}
a, b = risk(s), risk(p)
bad = ["%s: summary alone %s, planned %s" % (k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
wrong = [m.group(1) for m in (re.match(r"^([a-z0-9-]+): DEFECT", l) for l in open(sys.argv[3])) if m]
for c in wrong:
    if not any(("h5_defects-%s.h5:" % c) in k for k in a): bad.append("%s: its file came out wrong, the summary alone named no byte at risk" % c)
if not wrong: bad.append("no case came out wrong: the check proves nothing")
print("defects: summary alone names %d bytes at risk in %d datasets, %d wrong files: %s" %
      (s["bytes_at_risk"], len(a), len(wrong), "as the planned run, every wrong file named" if not bad else "DIFFERS: " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PY

# 2c. direct chunk writes (tests/h5_direct_chunk.c): where ranks' H5Dwrite_chunk calls differ and the
# file came out wrong while HDF5 said it succeeded, the summary names the bytes at risk; where every rank
# made the same calls, nothing (a false alarm would be one)
if [ -x "$B/h5_direct_chunk" ]; then
    run direct "summary:$T/direct.json" 0 "$B/h5_direct_chunk" "$T" || { echo "FAIL h5_direct_chunk (summary): exit $?"; fail=1; }
    python3 - "$T/direct.json" "$T/direct.out" <<'PY' || fail=1
import json, re, sys
s = json.load(open(sys.argv[1]))
named = {e["dataset"]: e for e in s["risk"]}
bad, seen = [], 0
for l in open(sys.argv[2]):
    if re.match(r"^(own|rank0): not run: ", l): seen += 1; continue  # rank 0 alone can hang inside HDF5: run only when asked
    m = re.match(r"^(own|rank0|every): (right|WRONG).*H5Dwrite_chunk returned ([-0-9 ]+)$", l.strip())
    if not m: continue
    seen += 1
    case, verdict, rets = m.group(1), m.group(2), m.group(3).split()
    key = [k for k in named if k.endswith("h5_direct_chunk-%s.h5:/d" % case)]
    silent = verdict == "WRONG" and all(r == "0" for r in rets)
    if silent and not key: bad.append("%s: lost while HDF5 said it succeeded, and the summary named no byte at risk" % case)
    if case == "every" and key: bad.append("every: a false alarm (%s)" % named[key[0]]["why"])
    if key and not named[key[0]]["why"].startswith("H5Dwrite_chunk by"): bad.append("%s: the reason is %r" % (case, named[key[0]]["why"]))
if seen != 3: bad.append("%d verdict lines of 3" % seen)
print("direct chunk writes: %s" % ("every silent loss named, no false alarm (%d datasets named)" % len(named) if not bad else "; ".join(bad)))
sys.exit(1 if bad else 0)
PY
fi

# 3. the one screen: once, on rank 0, from the header to the table of datasets, naming what to change first
run screen summary 0 "$B/h5_client" "$T/screen.h5" "$T/screen.own.jsonl" || { echo "FAIL the screen's run: exit $?"; fail=1; }
heads=$(grep -c '^== colldiag run summary: 3 ranks' "$T/screen.out")
if [ "$heads" != 1 ] || ! grep -q '^   what to change first' "$T/screen.out" || ! grep -q '^   top datasets by time:' "$T/screen.out" ||
    ! grep -q '^     1\. ' "$T/screen.out" || grep -q '^colldiag: H5D' "$T/screen.out"; then
    echo "FAIL the summary screen ($heads headers; or no advice, no table, or per-call reports):"; cat "$T/screen.out" | head -40; fail=1
else
    echo "screen: one summary, $(grep -c . "$T/screen.out") lines, first advice: $(grep -A1 '^     1\. ' "$T/screen.out" | head -1 | cut -c1-100)"
fi

# 4. no MPI_Finalize: rank 0 writes its own, marked; nobody hangs (timeout)
cat >"$T/noexit.py" <<'PY'
import os, sys
from mpi4py import MPI
import h5py, numpy
f = h5py.File(sys.argv[1], "w", driver="mpio", comm=MPI.COMM_WORLD)
d = f.create_dataset("x", (MPI.COMM_WORLD.size * 4,), dtype="i4")
with d.collective:
    d[MPI.COMM_WORLD.rank * 4:(MPI.COMM_WORLD.rank + 1) * 4] = numpy.arange(4, dtype="i4")
f.close()
sys.stdout.flush()
os._exit(0)  # no MPI_Finalize, no atexit of Python's: the C library's exit handlers only
PY
if [ -n "$PY" ]; then
    run noexit "summary:$T/noexit.json" 0 /usr/bin/python3 "$T/noexit.py" "$T/noexit.h5"; rc=$?
    if [ "$rc" = 124 ]; then echo "FAIL: a program without MPI_Finalize hung"; fail=1; fi
fi
cat >"$T/noexit.c" <<'C'
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t n = (hsize_t)P * 4, st = (hsize_t)me * 4, cnt = 4;
    hid_t sp = H5Screate_simple(1, &n, NULL), ms = H5Screate_simple(1, &cnt, NULL);
    hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), x = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
    H5Sselect_hyperslab(sp, H5S_SELECT_SET, &st, NULL, &cnt, NULL);
    int v[4] = {1, 2, 3, 4};
    H5Dwrite(d, H5T_NATIVE_INT, ms, sp, x, v);
    H5Dclose(d);
    H5Fclose(f);
    /* without MPI_Finalize; rank 0 first: Open MPI's launcher ends the job when the first rank exits so,
       and rank 0 writes the summary on its way out */
    if (me != 0) sleep(3);
    exit(0);
}
C
MPICC=mpicc.openmpi; case "$RUN" in *mpich*) MPICC=mpicc.mpich ;; esac
H5PC=hdf5-openmpi; case "$RUN" in *mpich*) H5PC=hdf5-mpich ;; esac
if $MPICC "$T/noexit.c" $(pkg-config --cflags --libs $H5PC) -o "$T/noexit" 2>"$T/cc.err"; then
    run noexit-c "summary:$T/noexit-c.json" 0 "$T/noexit" "$T/noexit-c.h5"; rc=$?
    if [ "$rc" = 124 ]; then echo "FAIL: a C program without MPI_Finalize hung"; fail=1
    elif ! python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s["calls"] >= 1 and "rank 0 only" in s["scope"] else 1)' "$T/noexit-c.json" 2>/dev/null; then
        echo "FAIL: no summary of rank 0's own when the program exited without MPI_Finalize"; cat "$T/noexit-c.json" 2>/dev/null; fail=1
    else echo "no MPI_Finalize: rank 0 wrote its own summary ($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["scope"][:60])' "$T/noexit-c.json")), nobody hung"
    fi
else
    echo "FAIL: the test's own program did not build"; cat "$T/cc.err"; fail=1
fi

# 5. the offline command
if ! $TOOL --compare "$T/c-0.jsonl" "$T/c-1.jsonl" >"$T/cmp.out" 2>&1 || ! grep -q 'engine colldiag' "$T/cmp.out" || ! grep -q '^   calls' "$T/cmp.out"; then
    echo "FAIL --compare"; cat "$T/cmp.out"; fail=1
else
    echo "compare: $(grep '^   seconds in the calls' "$T/cmp.out" | tr -s ' ')"
fi
{ head -3 "$T/c-0.jsonl"; echo '{"op":"H5Dwrite", broken'; } >"$T/bad.jsonl"
out=$($TOOL "$T/bad.jsonl" 2>&1); rc=$?
if [ "$rc" != 2 ] || ! grep -q "bad.jsonl:4: not a JSON object" <<<"$out" || grep -q Traceback <<<"$out"; then
    echo "FAIL a malformed line: exit $rc, said: $out"; fail=1
else
    echo "malformed line refused: $out"
fi
exit $fail
