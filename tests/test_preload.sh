#!/usr/bin/env bash
# The preload library on unmodified clients: tests/h5_client.c (HDF5 C: every DXPL setting, conversion,
# transform, points, H5S_ALL, H5P_DEFAULT, contiguous/compact/compressed) and, where python3-h5py-mpi
# is installed for this MPI, tests/h5py_client.py. Each client records what HDF5 itself answered; the
# preload's JSON lines must match it call by call and rank by rank (tests/h5_explain_check.py). Then
# the text report (one "HDF5 agrees" per report) and the library switched off (nothing printed, the
# client still correct).
#   tests/test_preload.sh BUILD_DIR "LAUNCHER" [h5py]
set -u
B=$1 RUN=$2 PY=${3:-}
LIB=$PWD/$B/libcolldiag_preload.so
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_preload.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail=0
case "$RUN" in *openmpi*) PASS="-x LD_PRELOAD=$LIB -x COLLDIAG_REPORT" ;; *) PASS="-genv LD_PRELOAD $LIB" ;; esac

client() { # name, json|text|off, command...
    local name=$1 mode=$2; shift 2
    local rep="json:$T/$name.jsonl"
    [ "$mode" = text ] && rep=1
    [ "$mode" = off ] && rep=0
    # MPICH passes the environment through; Open MPI needs -x (both in $PASS)
    COLLDIAG_REPORT=$rep $RUN -n 3 $PASS "$@" "$T/$name.h5" "$T/$name.own.jsonl" >"$T/$name.$mode.out" 2>&1
}

check_json() { # name
    if ! python3 tests/h5_explain_check.py "$T/$1.jsonl" "$T/$1.own.jsonl" 3; then fail=1; fi
}

check_text() { # name [unplannable reports]: every report ends in "HDF5 agrees", one per call header,
                # except the client's calls on a file without the MPI-IO driver ("not planned", with why)
    local out=$T/$1.text.out heads agrees np=${2:-0} got
    # counted as occurrences, not whole lines: Open MPI forwards each rank's output in reads of its own
    # size, so another rank's independent report can land inside a line (a CI run saw 70 of 71 heads)
    heads=$(grep -o 'colldiag: H5D[a-z]* ' "$out" | wc -l)
    agrees=$(grep -o 'HDF5 agrees' "$out" | wc -l)
    got=$(grep -o 'not planned: [^(]*not opened with the MPI-IO driver' "$out" | wc -l)
    echo "$1 text: $heads calls reported, $agrees 'HDF5 agrees', $got not planned"
    if [ "$heads" -lt 10 ] || [ "$heads" != $((agrees + np)) ] || [ "$got" != "$np" ] || grep -q 'DISAGREES' "$out"; then
        echo "FAIL $1 text report"; grep -B2 'DISAGREES\|not planned' "$out" | head -20; fail=1
    fi
}

check_off() { # name: switched off, the client runs as without the library and nothing is reported;
               # switched on, the library adds no HDF5 error output of its own
    if grep -q '^colldiag:' "$T/$1.off.out"; then echo "FAIL $1: reported while COLLDIAG_REPORT=0"; fail=1; fi
    local on off
    on=$(grep -c 'HDF5-DIAG' "$T/$1.json.out"); off=$(grep -c 'HDF5-DIAG' "$T/$1.off.out")
    if [ "$on" != "$off" ]; then echo "FAIL $1: HDF5 error stacks with the library $on, without $off"; fail=1; fi
}

# colldiag_h5_plan itself: one rank's bad argument fails every rank, an independent plan on one rank
# alone returns, good plans equal HDF5's answers
$RUN -n 3 "$B/test_h5plan" "$T/plan.h5" 2>&1 | grep -v 'HDF5-DIAG\|^  ' | tail -5
[ "${PIPESTATUS[0]}" = 0 ] || { echo "FAIL test_h5plan"; fail=1; }
# files on other communicators than the world's (tests/h5_subcomm.c: a world duplicate, and halves in the
# reverse of the world's order, whose communicator the preload makes with MPI_Comm_create_group): every
# value checked by the client through HDF5's POSIX driver, and every collective call run by colldiag
case "$RUN" in *openmpi*) SUBX="-x LD_PRELOAD=$LIB -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT" ;; *) SUBX="-genv LD_PRELOAD $LIB" ;; esac
COLLDIAG_ACCELERATE=all COLLDIAG_REPORT=json:$T/sub.jsonl $RUN -n 3 $SUBX "$B/h5_subcomm" "$T/sub" >"$T/sub.out" 2>&1
sub_rc=$?
grep -h 'h5_subcomm:' "$T/sub.out"
if [ "$sub_rc" != 0 ]; then echo "FAIL h5_subcomm (exit $sub_rc)"; tail -20 "$T/sub.out"; fail=1
elif ! python3 - "$T/sub.jsonl" "$T/sub" <<'PY'
import json, sys
ran = {}
for line in open(sys.argv[1]):
    c = json.loads(line)
    if c.get("collective"):
        ran.setdefault(c["file"], []).append(c.get("engine"))
want = {sys.argv[2] + s: 4 for s in (".world.h5", ".half0.h5", ".half1.h5", ".again.h5")}
want.update({sys.argv[2] + ".both%d.h5" % k: 3 for k in (0, 1)})
ok = all(ran.get(f) == ["colldiag"] * k for f, k in want.items()) and len(ran) == len(want)
print("h5_subcomm: collective calls by engine, per file:", {f.rsplit("/", 1)[-1]: ran[f] for f in ran})
sys.exit(0 if ok else 1)
PY
then echo "FAIL h5_subcomm: not every collective call ran by colldiag"; fail=1; fi

# MPICH oversubscribed is slow: there the JSON run only (text and off are the same code on every MPI)
MODES="json text off"; case "$RUN" in *mpich*) MODES=json ;; esac
for mode in $MODES; do
    if ! client c "$mode" "$B/h5_client"; then echo "FAIL h5_client ($mode)"; cat "$T/c.$mode.out" | head -30; fail=1; fi
done
grep -h 'h5_client:' "$T"/c.*.out
check_json c
if [ "$MODES" != json ]; then check_text c 6; check_off c; fi
# netCDF-4 (where libnetcdf-mpi-dev is installed for this MPI): its H5Dwrite/H5Dread calls, which it
# cannot read HDF5's answer for (the deflated variable's read takes HDF5's filtered multi-chunk path)
if [ -x "$B/nc_client" ]; then
    for mode in json text; do
        COLLDIAG_REPORT=$([ $mode = json ] && echo "json:$T/nc.jsonl" || echo 1) $RUN -n 3 $PASS "$B/nc_client" "$T/nc.nc" >"$T/nc.$mode.out" 2>&1 \
            || { echo "FAIL nc_client ($mode)"; head -30 "$T/nc.$mode.out"; fail=1; }
    done
    grep -h 'nc_client:' "$T"/nc.*.out
    python3 tests/h5_explain_check.py "$T/nc.jsonl" - 3 || fail=1
    check_text nc
fi
if [ -n "$PY" ]; then
    for mode in json text; do
        if ! client py "$mode" /usr/bin/python3 tests/h5py_client.py; then echo "FAIL h5py_client ($mode)"; head -30 "$T/py.$mode.out"; fail=1; fi
    done
    grep -h 'h5py_client:' "$T"/py.*.out
    check_json py
    check_text py
fi

# COLLDIAG_ACCELERATE=1: the same client, plain and accelerated, must leave the same files (h5dump),
# print the same lines and exit alike, and most collective calls must have run through colldiag.
# h5_client's compact dataset is left out: each rank writes different data into it, which plain parallel
# HDF5 keeps in the object header of whichever rank flushes it last (HDF5 asks that every rank write the
# same data there); accelerated, colldiag merges the ranks' pieces first, and every rank's are kept
# (checked below).
same_datasets() { # what, plain file, other file: every dataset but the compact one alike (h5dump)
    local ds
    for ds in $(h5ls "$2" 2>/dev/null | awk '{print $1}'); do
        [ "$ds" = compact ] && continue
        # (h5dump 1.14 prints a reference attribute's target as a number that differs run to run: masked)
        if ! cmp -s <(h5dump -d "/$ds" "$2" | tail -n +2 | sed -E 's/DATASET [0-9]+ /DATASET N /g') \
                    <(h5dump -d "/$ds" "$3" | tail -n +2 | sed -E 's/DATASET [0-9]+ /DATASET N /g'); then
            echo "FAIL $1: dataset /$ds differs (h5dump)"; fail=1
        fi
    done
}

# ACC: the value of COLLDIAG_ACCELERATE; "all" (the default here) runs every call colldiag can move,
# contiguous ones included, so that the engine's bytes are what is compared; 1 is what users set.
accel_identity() { # name, output suffix, fetch-calls ("" for the default policy), command...
    local name=$1 sfx=$2 fc=$3; shift 3
    local plain=$T/$name.plain$sfx acc=$T/$name.acc$sfx
    $RUN -n 3 "$@" "$plain" "$T/$name.plain.own.jsonl" >"$T/$name.plain.out" 2>&1; local e1=$?
    case "$RUN" in *openmpi*) AP="-x LD_PRELOAD=$LIB -x COLLDIAG_REPORT -x COLLDIAG_ACCELERATE${fc:+ -x COLLDIAG_H5_FETCH_CALLS}" ;; *) AP="-genv LD_PRELOAD $LIB" ;; esac
    if [ -n "$fc" ]; then export COLLDIAG_H5_FETCH_CALLS=$fc; else unset COLLDIAG_H5_FETCH_CALLS; fi
    rm -f "$T/$name.acc.jsonl" # the reports of this run only
    COLLDIAG_ACCELERATE=${ACC:-all} COLLDIAG_REPORT="json:$T/$name.acc.jsonl" $RUN -n 3 $AP "$@" "$acc" "$T/$name.acc.own.jsonl" >"$T/$name.acc.out" 2>&1; local e2=$?
    unset COLLDIAG_H5_FETCH_CALLS
    if [ $e1 != $e2 ]; then echo "FAIL $name accelerated: exit $e2, plain $e1"; head -20 "$T/$name.acc.out"; fail=1; fi
    sed "s|$plain|FILE|g; s|$T/$name.plain|OUT|g" "$T/$name.plain.out" | grep -v 'HDF5-DIAG\|^  *#\|^    \(major\|minor\)' >"$T/$name.p.txt"
    sed "s|$acc|FILE|g; s|$T/$name.acc|OUT|g" "$T/$name.acc.out" | grep -v 'HDF5-DIAG\|^  *#\|^    \(major\|minor\)' >"$T/$name.a.txt"
    if ! diff -q "$T/$name.p.txt" "$T/$name.a.txt" >/dev/null; then echo "FAIL $name accelerated: output differs"; diff "$T/$name.p.txt" "$T/$name.a.txt" | head -10; fail=1; fi
    same_datasets "$name accelerated" "$plain" "$acc"
    h5dump -p -H "$plain" 2>/dev/null | awk '$1=="DATASET"{gsub(/"/,"",$2); d=$2} /^ *CONTIGUOUS/{print d}' >"$T/$name.contig"
    python3 - "$T/$name.acc.jsonl" "$name" "$fc" "${ACC:-all}" "$T/$name.contig" <<'PY' || fail=1
import json, sys
n, flush, filt = {}, 0, 0
h5close = {}  # h5_client: the datasets written just before and just after H5close, by engine
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("dataset") in ("/before_h5close", "/first"):
        h5close.setdefault(j["dataset"], set()).add(j.get("engine") + ("" if j.get("engine") == "colldiag" else ": " + j.get("why", "")))
    k = (j.get("engine"), bool(j.get("collective")))
    n[k] = n.get(k, 0) + 1
    if k == ("hdf5", True):
        flush += "needs a file flush" in j.get("why", "")
        filt += "filtered chunks" in j.get("why", "")
cc, ch = n.get(("colldiag", True), 0), n.get(("hdf5", True), 0)
# COLLDIAG_ACCELERATE=1: every write on a contiguous dataset (h5dump -p) is HDF5's, saying why; a
# collective read there is colldiag's (one stretch a rank) or HDF5's saying why; no other call says so;
# =all: none is declined that way
contig = set("/" + l.strip().lstrip("/") for l in open(sys.argv[5]) if l.strip())
as_fast = bad = contig_reads = 0
for line in open(sys.argv[1]):
    j = json.loads(line)
    said = "HDF5's path is as fast here" in j.get("why", "")
    as_fast += said
    want = sys.argv[4] == "1" and j.get("dataset") in contig
    if want and j.get("op") == "H5Dread" and j.get("collective") and j.get("engine") == "colldiag":
        want = False
        contig_reads += 1
    if said != want or (want and j.get("engine") != "hdf5"):
        bad += 1
        if bad < 4: print("FAIL %s accelerated (%s): %s %s: engine %s, why %r" % (sys.argv[2], sys.argv[4], j.get("op"), j.get("dataset"), j.get("engine"), j.get("why", "")))
if bad: sys.exit(1)
if sys.argv[4] == "1":
    print("%s with COLLDIAG_ACCELERATE=1: %d calls on contiguous datasets left to HDF5, as fast there; %d contiguous reads "
          "through colldiag" % (sys.argv[2], as_fast, contig_reads))
    if as_fast == 0: print("FAIL %s: no contiguous call declined" % sys.argv[2]); sys.exit(1)
    sys.exit(0)
print("%s accelerated%s: %d collective calls through colldiag, %d through HDF5 (%d of them too small to pay for a flush); "
      "independent: %d colldiag, %d HDF5" % (sys.argv[2], " (COLLDIAG_H5_FETCH_CALLS=%s)" % sys.argv[3] if sys.argv[3] else "", cc, ch, flush,
                                             n.get(("colldiag", False), 0), n.get(("hdf5", False), 0)))
# H5close restarts HDF5's numbering: the new file's first dataset has the old one's id, file number and
# address, and both are small fresh datasets colldiag runs (HDF5's lookup); if the preload kept its cache
# across H5close, the new one's call would meet the old one's stale entry (here: HDF5 runs it, "mem_type
# is not a datatype", the old type id being gone; worse when an id is reused)
if sys.argv[2] == "c" and any(v != {"colldiag"} for v in h5close.values()) or (sys.argv[2] == "c" and len(h5close) != 2):
    print("FAIL %s accelerated: the calls around H5close: %s" % (sys.argv[2], h5close)); sys.exit(1)
# most collective calls through colldiag; where a client's every unfiltered call is too small to pay
# for a flush (netCDF's, by default), every call HDF5 ran must say so (or be filtered)
if (cc == 0 or cc < ch - flush) and not (cc == 0 and ch == flush + filt and flush > 0):
    print("FAIL %s accelerated: most collective calls must run through colldiag" % sys.argv[2]); sys.exit(1)
PY
}
accel_identity c .h5 "" "$B/h5_client"
ACC=1 accel_identity c1 .h5 "" "$B/h5_client"
# ... where the plain run keeps one rank's copy of the compact dataset's object header, the accelerated
# ones keep every rank's rows (colldiag_h5_write_compact): rank r wrote its band of the 12 x 12 ints,
# value 1000 r + its index in the band
for f in "$T/c.acc.h5" "$T/c1.acc.h5" "$T/c.plain.h5"; do
    h5dump -d /compact -y -w 0 "$f" 2>/dev/null | python3 -c '
import re, sys
t = sys.stdin.read()
v = [int(x) for x in re.findall(r"-?\d+", t[t.index("DATA {") + 6:])]
N, P = 12, 3
want = []
for r in range(P):
    lo, hi = N * r // P, N * (r + 1) // P
    want += [1000 * r + i for i in range((hi - lo) * N)]
right = sum(a == b for a, b in zip(v, want))
plain = sys.argv[1].endswith(".plain.h5")
print("%s: compact dataset, %d of %d elements as every rank wrote them" % (sys.argv[1].split("/")[-1], right, len(want)))
sys.exit(0 if plain or (len(v) >= len(want) and right == len(want)) else 1)' "$f" || { echo "FAIL $f: the compact dataset lost a rank's bytes under COLLDIAG_ACCELERATE"; fail=1; }
done
# netCDF-4 reads metadata collectively, so HDF5's chunk lookup is off and the index must come from the
# file after a flush: by default HDF5 runs its small first calls (the flush would cost more); with
# COLLDIAG_H5_FETCH_CALLS=0 colldiag reads the index at once and moves them itself. Same files either way.
if [ -x "$B/nc_client" ]; then
    accel_identity nc .nc "" "$B/nc_client"
    accel_identity nc .nc 0 "$B/nc_client"
fi
# nc_suite: what netCDF-C's own parallel tests do (every type, unlimited variables extended by
# collective writes, uneven and strided hyperslabs, ranks with nothing to write, access switched
# between writes, fill values, reopened files), checking its own data against a model of the file.
if [ -x "$B/nc_suite" ]; then
    accel_identity ncs .nc "" "$B/nc_suite"
    # issue 63: its deflated variable, read whole in the reopened read-only file (the chunk index on disk,
    # no flush to pay for), is read through colldiag, each touched chunk decoded once (output and file as
    # plain's, above; nc_suite checks the values against its own model). Where the plain run stored no
    # chunk of it (netCDF 4.9.3 on HDF5 1.14 here: 0 allocated bytes, every value the fill), none is decoded.
    zalloc=$(h5ls -v "$T/ncs.plain.nc/zipped" 2>/dev/null | awk '$1 == "Storage:" {print $5; exit}')
    python3 - "$T/ncs.acc.jsonl" "${zalloc:-?}" <<'PY' || fail=1
import json, sys
z = [j for j in map(json.loads, open(sys.argv[1])) if j.get("op") == "H5Dread" and j.get("dataset") == "/zipped"]
stored = sys.argv[2]
mine = [j for j in z if j.get("engine") == "colldiag" and "filtered" in j]
if stored == "0":
    ok = [j for j in mine if j["filtered"].get("chunks") == 0 and j["filtered"].get("decodes") == 0]
else:
    ok = [j for j in mine if j["filtered"].get("chunks", 0) > 0 and j["filtered"].get("decodes") == j["filtered"]["chunks"]]
if stored == "?" or not ok:
    print("FAIL ncs: the deflated variable (%s allocated bytes in the plain file): no read through colldiag decoding each stored chunk once: %s"
          % (stored, [(j.get("engine"), j.get("filtered")) for j in z]))
    sys.exit(1)
print("ncs: %d of %d reads of the deflated variable through colldiag (%d chunks, each decoded once; %s allocated bytes)"
      % (len(ok), len(z), ok[0]["filtered"]["chunks"], stored))
PY
    accel_identity ncs .nc 0 "$B/nc_suite"
fi
if [ -n "$PY" ]; then
    accel_identity py .h5 "" /usr/bin/python3 tests/h5py_client.py
    # h5py_suite: h5py as its users write (every type, slices, strides, fancy lists, masks, resizes,
    # empty ranks, independent writes, read_direct), checking its own data against a model; and a
    # dataset shrunk across a chunk, whose later write HDF5 1.10 loses: the accelerated file must be
    # HDF5's, loss included (h5_shrunk_why in colldiag.c)
    accel_identity pys .h5 "" /usr/bin/python3 tests/h5py_suite.py
fi

# Variables on some ranks only (mpirun passes a shell's variables to the ranks of its own node unless
# told with -x): when MPI starts, the preload gives every rank rank 0's COLLDIAG_* variables. With
# COLLDIAG_ACCELERATE and COLLDIAG_REPORT on rank 1 alone, rank 0's (none) hold: no report and the
# plain run's files; on every rank but 1, rank 0's: accelerated calls, their reports, the same files.
# Without it some ranks enter colldiag's collective calls while the others are in HDF5's: a hang,
# which fails here under timeout. h5py's mpi4py starts MPI with MPI_Init_thread, the C client with MPI_Init.
one_rank_env() { # name, invert (0: rank 1 alone has the variables, 1: every rank but 1), command...
    local name=$1 inv=$2; shift 2
    local out=$T/$name.env$inv rep=$T/$name.env$inv.jsonl
    case "$RUN" in *openmpi*) EP="-x LD_PRELOAD=$LIB" ;; *) EP="-genv LD_PRELOAD $LIB" ;; esac
    rm -f "$rep"
    # each rank's stderr into a file of its own: across simulated nodes Open MPI 4.1's mpirun once lost
    # rank 0's line on its way from a remote orted (CI of a5e865a: the rank that took rank 0's variables
    # wrote no report, so the line was printed), and the test is of the preload, not of mpirun's forwarding
    rm -f "$out.err."*
    # shellcheck disable=SC2016
    env -u COLLDIAG_REPORT -u COLLDIAG_ACCELERATE timeout 120 $RUN -n 3 $EP sh -c 'r=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}
        if { [ "$r" = 1 ] && [ "$0" = 0 ]; } || { [ "$r" != 1 ] && [ "$0" = 1 ]; }; then
            export COLLDIAG_ACCELERATE=1 COLLDIAG_REPORT="json:$1"; fi
        err=$2.$r; shift 2; exec "$@" 2>"$err"' "$inv" "$rep" "$out.err" "$@" "$out.h5" "$out.own.jsonl" >"$out.out" 2>&1
    local e=$?
    cat "$out.err."* >>"$out.out" 2>/dev/null
    local acc=0
    [ -f "$rep" ] && acc=$(grep -c '"engine":"colldiag"' "$rep")
    echo "$name with the variables on $([ "$inv" = 0 ] && echo "rank 1 alone" || echo "every rank but 1"): exit $e, $acc calls accelerated and reported"
    if [ $e != 0 ]; then echo "FAIL $name, variables on some ranks: exit $e (124: hung)"; tail -5 "$out.out"; fail=1; fi
    if ! grep -q "colldiag: 1 of 3 ranks started with other COLLDIAG_\* variables than rank 0 (rank 1 the first)" "$out.out"; then
        echo "FAIL $name, variables on some ranks: rank 0 did not say that rank 1 differed"; fail=1
    fi
    if [ "$inv" = 0 ] && [ -f "$rep" ]; then echo "FAIL $name: reported although rank 0 has no COLLDIAG_REPORT"; fail=1; fi
    if [ "$inv" = 1 ] && [ "$acc" -lt 1 ]; then echo "FAIL $name: nothing accelerated although rank 0 has COLLDIAG_ACCELERATE"; fail=1; fi
    same_datasets "$name, variables on some ranks" "$T/$name.plain.h5" "$out.h5"
}
for inv in 0 1; do
    one_rank_env c $inv "$B/h5_client"
    if [ -n "$PY" ]; then one_rank_env py $inv /usr/bin/python3 tests/h5py_client.py; fi
done
exit $fail
