#!/usr/bin/env bash
# What the run's summary costs (make bench-summary): the field's patterns (bench/patterns.c: IOR with 64 KiB
# and 1 MiB transfers, contiguous; VPIC-IO 1-D) as plain HDF5, under the preload with no report
# (COLLDIAG_REPORT=0: the wrappers alone), with COLLDIAG_REPORT=summary:PATH, and with the per-call JSON
# report; interleaved (plain, off, summary, json, plain, ...), one process a run, `sync` between runs;
# medians of REPS runs x INNER repetitions. Prints each variant's time and rate against plain HDF5 and
# against the preload without a report, the summary's cost per call ((summary - off) / calls) and at the
# end (the summary's own "summary_seconds", at MPI_Finalize).
# Usage: bench/summary.sh BUILD_DIR "LAUNCHER" RANKS REPS DIR
set -eu
B=$1 RUN=$2 NP=$3 REPS=$4 DIR=$5 INNER=${SUMMARY_INNER:-3}
T=$(mktemp -d "$DIR/colldiag_summary_bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
LIB=$PWD/$B/libcolldiag_preload.so
case "$RUN" in *openmpi*) X="-x LD_PRELOAD -x COLLDIAG_REPORT ${OMPI_MCA_io:+-x OMPI_MCA_io}" ;; *) X="" ;; esac
PATTERNS=${SUMMARY_PATTERNS:-ior-seg-64k-contig ior-seg-1m-contig vpic-1d-contig}
for p in $PATTERNS; do
    for i in $(seq "$REPS"); do
        for v in plain off summary json; do
            sync
            rm -f "$T/s.json" "$T/calls.jsonl"
            case $v in
            plain) $RUN -n "$NP" "$B/patterns" "$T" "$p" 8 "$INNER" ;;
            off) COLLDIAG_REPORT=0 LD_PRELOAD=$LIB $RUN -n "$NP" $X "$B/patterns" "$T" "$p" 8 "$INNER" ;;
            summary) COLLDIAG_REPORT=summary:$T/s.json LD_PRELOAD=$LIB $RUN -n "$NP" $X "$B/patterns" "$T" "$p" 8 "$INNER" ;;
            json) COLLDIAG_REPORT=json:$T/calls.jsonl LD_PRELOAD=$LIB $RUN -n "$NP" $X "$B/patterns" "$T" "$p" 8 "$INNER" ;;
            esac | awk -v v=$v '$1 != "pattern" && NF == 4 {print v, $1, $2, $3}' >>"$T/times"
            if [ $v = summary ]; then python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("end", sys.argv[2], s["calls"], s["summary_seconds"])' \
                "$T/s.json" "$p" >>"$T/times"; fi
        done
    done
done
echo "# bench-summary: $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $NP ranks, 8 MiB a rank a pattern, medians of $REPS interleaved runs x $INNER repetitions, ${OMPI_MCA_io:-default MPI-IO layer}"
python3 - "$T/times" "$INNER" <<'PY'
import statistics, sys
t, end = {}, {}
for l in open(sys.argv[1]):
    w = l.split()
    if w[0] == "end": end.setdefault(w[1], []).append((int(w[2]), float(w[3]))); continue
    t.setdefault((w[1], w[0]), []).append((float(w[2]), float(w[3])))
print("%-20s %-8s %9s %9s %7s %7s %9s %9s" % ("pattern", "variant", "write s", "read s", "w/plain", "r/plain", "w/off", "r/off"))
for p in sorted({k[0] for k in t}):
    m = {v: (statistics.median(x[0] for x in t[(p, v)]), statistics.median(x[1] for x in t[(p, v)])) for v in ("plain", "off", "summary", "json")}
    for v in ("plain", "off", "summary", "json"):
        w, r = m[v]
        print("%-20s %-8s %9.4f %9.4f %6.2fx %6.2fx %8.2fx %8.2fx" % (p, v, w, r, m["plain"][0] / w, m["plain"][1] / r, m["off"][0] / w, m["off"][1] / r))
    calls = statistics.median(c for c, _ in end[p]) / int(sys.argv[2])  # the summary counts every repetition's calls
    per = lambda v: ((m[v][0] + m[v][1]) - (m["off"][0] + m["off"][1])) / calls * 1e6 if calls else 0
    print("%-20s summary: %.1f us a call beyond the wrappers (%d calls a repetition), %.3f ms at the end; the JSON report %.1f us a call" %
          (p, per("summary"), calls, statistics.median(s for _, s in end[p]) * 1e3, per("json")))
PY
