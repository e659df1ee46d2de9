#!/usr/bin/env bash
# Compressed data read in parallel (make bench-filtered; issue 63): an unmodified HDF5 program
# (tests/h5_filtered.c) reads an N x N float64 dataset in C x C chunks collectively in three patterns
# (a block of rows a rank, a block of columns, 16-column blocks dealt round-robin), as plain HDF5 and under
# the preload (COLLDIAG_ACCELERATE=1: each chunk read whole by one rank and decoded once), for deflate
# levels 1 and 6, shuffle on and off; and, as the reference the issue names, one process reading the
# whole dataset (plain HDF5, one rank). Interleaved (plain, preload, one process, ...), `sync` between
# runs, one file a configuration written once; each run's time is its fastest of INNER reads (the
# program's own), and the table gives medians of REPS runs with the preload's speed-up.
# With H5BENCH=DIR (h5bench_write and h5bench_read built against this HDF5, as for make bench-field), also
# h5bench's own compressed case: VPIC-IO 1-D (1 Mi particles a rank, 8 variables, 5 timesteps) written
# with COMPRESS=YES (h5bench sets deflate level 9) in 64 Ki-particle chunks, then BD-CATS-IO's full read,
# plain HDF5 against the preload. The write (h5bench's, through HDF5 either way: colldiag moves no
# filtered write) runs once a mode, deflate 9 being slow (about 20 s here); the reads REPS times,
# interleaved, of the plain run's file; h5bench's raw rates (MB/s: time inside H5Dwrite / H5Dread).
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
[ -n "${H5BENCH:-}" ] && [ "$H5BENCH" != - ] || exit 0
h5cfg() { # file, read?, settings...
    local f=$1 rd=$2; shift 2
    { echo "MEM_PATTERN=CONTIG"; echo "FILE_PATTERN=CONTIG"; [ "$rd" = 1 ] && echo "READ_OPTION=FULL"
      echo "TIMESTEPS=5"; echo "DELAYED_CLOSE_TIMESTEPS=2"; echo "COLLECTIVE_DATA=YES"; echo "COLLECTIVE_METADATA=YES"
      echo "EMULATED_COMPUTE_TIME_PER_TIMESTEP=10 ms"; echo "NUM_DIMS=1"; echo "DIM_1=1048576"; echo "DIM_2=1"; echo "DIM_3=1"
      for kv in "$@"; do echo "$kv"; done; } >"$f"
}
h5rate() { awk -v k="$1" '$0 ~ k { v = $(NF-1); u = $NF; print v * (u ~ /^G/ ? 1000 : u ~ /^K/ ? 0.001 : 1); exit }'; }
h5cfg "$T/cw.cfg" 0 COMPRESS=YES CHUNK_DIM_1=65536 CHUNK_DIM_2=1 CHUNK_DIM_3=1
h5cfg "$T/cr.cfg" 1
sync
wp=$($RUN -n "$NP" "$H5BENCH/h5bench_write" "$T/cw.cfg" "$T/vpic-plain.h5" 2>&1 | h5rate "Raw write rate")
sync
wa=$(COLLDIAG_ACCELERATE=1 LD_PRELOAD=$LIB $RUN -n "$NP" $X "$H5BENCH/h5bench_write" "$T/cw.cfg" "$T/vpic-accel.h5" 2>&1 | h5rate "Raw write rate")
rm -f "$T/vpic-accel.h5"
: >"$T/h5b"
for i in $(seq "$REPS"); do
    sync
    echo "plain $($RUN -n "$NP" "$H5BENCH/h5bench_read" "$T/cr.cfg" "$T/vpic-plain.h5" 2>&1 | h5rate "Raw read rate")" >>"$T/h5b"
    sync
    echo "accel $(COLLDIAG_ACCELERATE=1 LD_PRELOAD=$LIB $RUN -n "$NP" $X "$H5BENCH/h5bench_read" "$T/cr.cfg" "$T/vpic-plain.h5" 2>&1 | h5rate "Raw read rate")" >>"$T/h5b"
done
echo "# h5bench's compressed case: VPIC-IO 1-D, COMPRESS=YES (deflate 9), 64 Ki-particle chunks, $(du -m "$T/vpic-plain.h5" | cut -f1) MB file; raw MB/s"
python3 - "$T/h5b" "${wp:-nan}" "${wa:-nan}" "$REPS" <<'PY'
import statistics, sys
d = {}
for l in open(sys.argv[1]):
    m, v = l.split()
    d.setdefault(m, []).append(float(v))
wp, wa = float(sys.argv[2]), float(sys.argv[3])
print("%-22s %10s %10s %8s" % ("h5bench (compressed)", "HDF5", "preload", "ratio"))
print("%-22s %10.1f %10.1f %7.2fx   (one run each)" % ("vpic-1d write", wp, wa, wa / wp))
p, a = statistics.median(d["plain"]), statistics.median(d["accel"])
print("%-22s %10.1f %10.1f %7.2fx   (median of %s, interleaved)" % ("bd-cats full read", p, a, a / p, sys.argv[4]))
PY
