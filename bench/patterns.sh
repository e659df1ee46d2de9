#!/usr/bin/env bash
# The field's patterns (bench/patterns.c: IOR- and VPIC-IO-like, unmodified-style HDF5), plain HDF5
# against the same program under the preload with COLLDIAG_ACCELERATE=1: REPS runs of each pattern, one
# process a run, interleaved (plain, accelerated, plain, ...) so that the machine's noise hits both
# alike, each run repeating its pattern INNER times back to back, as IOR's iterations do
# (PATTERNS_INNER, default 3); each pattern's median over all REPS x
# INNER samples, write and read, and the ratio (HDF5's time / accelerated time: above 1, colldiag is
# faster). Why INNER: a pattern of one call (8 MiB transfers, contiguous) takes 30-100 ms here, and one
# sample a process swung 0.8x-1.9x between two columns that both ran HDF5 (the 1.14 run of 20:17);
# more samples, not longer ones, is what narrows that.
# The timed runs make no report (explaining a call costs a plan and a gather: that is not the
# accelerator's cost); one more accelerated run, untimed, reports which engine ran each call and why.
# Usage: bench/patterns.sh BUILD_DIR "LAUNCHER" RANKS REPS MIB DIR   (make bench-patterns)
#        PATTERNS_FILTER=ior-str-8m runs only the patterns whose names contain it
set -eu
B=$1 RUN=$2 NP=$3 REPS=$4 MIB=$5 DIR=$6 INNER=${PATTERNS_INNER:-3}
T=$(mktemp -d "$DIR/colldiag_patterns.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_ACCELERATE ${OMPI_MCA_io:+-x OMPI_MCA_io}" ;; *) X="" ;; esac
# One process a pattern, as the field's benchmarks run (IOR and h5bench run one workload a program):
# what a process did before changes what its next calls cost (glibc's heap: a buffer MPI-IO's
# collective path frees and allocates again costs nothing when the heap kept it, ~10 us a 4 KiB page
# on this machine when it did not), so patterns run back to back in one process measured their order
# as much as themselves (see COLLDIAG_ACCEL_WHOLE_BYTES in src/internal.h).
NAMES=""
for s in seg str; do for l in contig chunk; do for k in 64k 1m 8m; do NAMES="$NAMES ior-$s-$k-$l"; done; done; done
for d in 1d 2d 3d; do for l in contig chunk deflate; do NAMES="$NAMES vpic-$d-$l"; done; done
NAMES="$NAMES bdcats-strided"
for i in $(seq "$REPS"); do
    : >"$T/plain.$i"; : >"$T/accel.$i"
    for n in $NAMES; do
        case "$n" in *"${PATTERNS_FILTER:-}"*) ;; *) continue ;; esac
        $RUN -n "$NP" "$B/patterns" "$T" "$n" "$MIB" "$INNER" >>"$T/plain.$i"
        COLLDIAG_ACCELERATE=1 LD_PRELOAD=$LIB $RUN -n "$NP" $X "$B/patterns" "$T" "$n" "$MIB" "$INNER" >>"$T/accel.$i"
    done
done
COLLDIAG_ACCELERATE=1 COLLDIAG_REPORT=json:$T/calls.jsonl LD_PRELOAD=$LIB $RUN -n "$NP" $X ${X:+-x COLLDIAG_REPORT} "$B/patterns" "$T" "${PATTERNS_FILTER:-}" "$MIB" >/dev/null
echo "# bench-patterns: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $NP ranks, $MIB MiB a rank a pattern, one process a pattern, median of $REPS interleaved runs x $INNER repetitions, ${OMPI_MCA_io:-default MPI-IO layer}"
python3 - "$T" "$REPS" <<'PY'
import json, statistics, sys
T, reps = sys.argv[1], int(sys.argv[2])
def runs(kind):
    out = {}
    for i in range(1, reps + 1):
        for l in open("%s/%s.%d" % (T, kind, i)):
            w = l.split()
            if w[0] == "pattern": continue
            out.setdefault(w[0], []).append((float(w[1]), float(w[2]), int(w[3])))
    return out
p, a = runs("plain"), runs("accel")
eng = {}
for l in open(T + "/calls.jsonl"):
    j = json.loads(l)
    why = j.get("why", "")
    k = "colldiag" if j.get("engine") == "colldiag" else ("hdf5: as fast" if "as fast here" in why else "hdf5: filtered" if "filter" in why else "hdf5: other")
    eng[k] = eng.get(k, 0) + 1
print("%-20s %10s %10s %6s %10s %10s %6s" % ("pattern", "w HDF5", "w accel", "ratio", "r HDF5", "r accel", "ratio"))
worst = 9e9
for name in p:
    mb = p[name][0][2] / 2**20
    pw, aw = statistics.median(x[0] for x in p[name]), statistics.median(x[0] for x in a[name])
    pr, ar = statistics.median(x[1] for x in p[name]), statistics.median(x[1] for x in a[name])
    worst = min(worst, pw / aw, pr / ar)
    print("%-20s %7.0f MB/s %7.0f MB/s %5.2fx %7.0f MB/s %7.0f MB/s %5.2fx" % (name, mb / pw, mb / aw, pw / aw, mb / pr, mb / ar, pr / ar))
print("lowest ratio %.2f; accelerated runs' calls by engine: %s" % (worst, ", ".join("%s %d" % kv for kv in sorted(eng.items()))))
# the noise floor of this run: HDF5 against itself, its odd runs' median over its even runs', per
# pattern and direction (a row where HDF5 runs in both columns cannot be told from 1 by less)
if reps >= 2:
    def half(name, k, odd):
        per = len(p[name]) // reps
        return statistics.median(x[k] for i, x in enumerate(p[name]) if (i // per) % 2 == (0 if odd else 1))
    noise = [half(n, k, 1) / half(n, k, 0) for n in p for k in (0, 1)]
    print("HDF5 against itself in this run (odd runs' median time / even runs'): %.2f to %.2f" % (min(noise), max(noise)))
PY
