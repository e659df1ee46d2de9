#!/usr/bin/env bash
# Compressed data read in parallel (make bench-filtered; issue 63): an unmodified HDF5 program
# (tests/h5_filtered.c) reads an N x N float64 dataset in C x C chunks collectively in three patterns
# (a block of rows a rank, a block of columns, 16-column blocks dealt round-robin), as plain HDF5 and under
# the preload (COLLDIAG_ACCELERATE=1: each chunk read whole by one rank and decoded once), for deflate
# levels 1 and 6, shuffle on and off; and, as the reference the issue names, one process reading the
# whole dataset (plain HDF5, one rank). Interleaved (plain, preload, one process, ...), `sync` between
# runs, one file a configuration written once; each run's time is its fastest of INNER reads (the
# program's own), and the table gives medians of REPS runs with the preload's speed-up.
# Usage: bench/filtered.sh BUILD_DIR "LAUNCHER" RANKS REPS DIR [N C]
set -eu
B=$1 RUN=$2 NP=$3 REPS=$4 DIR=$5 N=${6:-2048} C=${7:-128} INNER=${FILTERED_INNER:-3}
T=$(mktemp -d "$DIR/colldiag_filtered_bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_ACCELERATE ${OMPI_MCA_io:+-x OMPI_MCA_io}" ;; *) X="" ;; esac
for cfg in "1 shuffle" "1 noshuffle" "6 shuffle" "6 noshuffle"; do
    set -- $cfg
    lvl=$1 sh=$2 f=$T/l$1-$2.h5
    opt="--n $N --chunk $C --level $lvl --only-d"; [ "$sh" = noshuffle ] && opt="$opt --noshuffle"
    # shellcheck disable=SC2086
    $RUN -n 1 "$B/h5_filtered" "$f" $opt --reps 1 >/dev/null 2>&1 # written once (rank 0, serial HDF5)
    for i in $(seq "$REPS"); do
        for v in hdf5 preload one; do
            sync
            # shellcheck disable=SC2086
            case $v in
            hdf5) $RUN -n "$NP" "$B/h5_filtered" "$f" $opt --read-only --reps "$INNER" ;;
            preload) COLLDIAG_ACCELERATE=1 LD_PRELOAD=$LIB $RUN -n "$NP" $X "$B/h5_filtered" "$f" $opt --read-only --reps "$INNER" ;;
            one) $RUN -n 1 "$B/h5_filtered" "$f" $opt --read-only --reps "$INNER" ;;
            esac 2>&1 | awk -v v=$v -v c="$cfg" '$1 == "time" && $2 == "/d" {t = $NF; $1 = $2 = $NF = ""; gsub(/^ +| +$/, ""); print v "|" c "|" $0 "|" t}' >>"$T/times"
        done
    done
    echo "stored: level $lvl $sh: $(h5ls -v "$f/d" 2>/dev/null | awk '/Storage:/ {print $2, $3, $4, $5, $6, $7; exit}')" >>"$T/sizes"
done
echo "# bench-filtered: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $NP ranks, ${N}x$N float64 in ${C}x$C chunks, medians of $REPS interleaved runs (each the fastest of $INNER reads), ${OMPI_MCA_io:-default MPI-IO layer}"
cat "$T/sizes"
python3 - "$T/times" "$NP" <<'PY'
import statistics, sys
t = {}
for l in open(sys.argv[1]):
    v, cfg, pat, s = l.rstrip("\n").split("|")
    t.setdefault((cfg, pat, v), []).append(float(s))
print("%-14s %-17s %10s %10s %8s %12s" % ("filters", "pattern", "HDF5 s", "preload s", "speedup", "1 process s"))
for cfg in sorted({k[0] for k in t}):
    for pat in ("rows", "columns", "16-column blocks"):
        h, p, o = (statistics.median(t.get((cfg, pat, v), [float("nan")])) for v in ("hdf5", "preload", "one"))
        print("%-14s %-17s %10.4f %10.4f %7.2fx %12.4f" % ("deflate " + cfg, pat, h, p, h / p if p else float("nan"), o))
PY
