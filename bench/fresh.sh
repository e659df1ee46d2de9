#!/usr/bin/env bash
# make bench-fresh: a kit read into memory never touched, with colldiag's populating off
# (COLLDIAG_PREFAULT=0) and as shipped (unset: each process's probe decides), alternating run by run
# (each first in turn, a sync before each), REPS runs a mode and size; fresh destinations (a new mapping
# each call) and warm ones (what populating costs a read that needs none: one mincore a call). Prints
# each run's line and, per case, the median of the runs' medians and their ratio (shipped over off:
# below 1, faster). Usage: bench/fresh.sh BUILD_DIR "LAUNCHER" RANKS REPS
set -eu
B=$1 RUN=$2 NP=$3 REPS=$4
T=$(mktemp -d "${BENCH_DIR:-/tmp}/colldiag_fresh.XXXXXX")
trap 'rm -rf "$T"' EXIT
case "$RUN" in *openmpi*) X="-x COLLDIAG_PREFAULT" ;; *) X="" ;; esac
echo "# bench-fresh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $NP ranks, $REPS runs a mode, 21 calls a run (median call)"
for r in $(seq "$REPS"); do
    for c in "fresh 64" "fresh 1024" "fresh 8192" "warm 64" "warm 8192"; do
        set -- $c
        if [ $((r % 2)) = 1 ]; then order="off shipped"; else order="shipped off"; fi
        for m in $order; do
            sync
            v=auto; [ "$m" = off ] && v=0
            line=$(COLLDIAG_PREFAULT=$v $RUN -n "$NP" $X "$B/bench-fresh" "$T/f.bin" "$2" "$1" 2>&1 | grep ' KiB median ') || { echo "bench-fresh: run failed" >&2; exit 1; }
            echo "$m $line" | tee -a "$T/res"
        done
    done
done
echo "# case             off (ms)  shipped (ms)  shipped/off"
awk '{ k = $2 " " $3; v = $6; key[k] = 1; n[$1, k]++; a[$1, k, n[$1, k]] = v }
     function med(m, k,   c, i, j, t, x) { c = n[m, k]; for (i = 1; i <= c; i++) x[i] = a[m, k, i];
        for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
        return c % 2 ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2 }
     END { split("fresh 64|fresh 1024|fresh 8192|warm 64|warm 8192", order, "|");
           for (i = 1; i <= 5; i++) { k = order[i]; if (!(k in key)) continue; o = med("off", k); s = med("shipped", k);
             printf "%-16s %9.4f %13.4f %11.2fx\n", k " KiB", o, s, s / o } }' "$T/res"
