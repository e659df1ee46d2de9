#!/usr/bin/env bash
# AUTO across simulated nodes, fast and slow links (make bench-nodes; root: tests/nodes.sh makes the nodes).
# For each link (unshaped, then each rate of NODES_RATES), on N nodes of K ranks:
#   1. bench/calibrate.c across those nodes: the constants this network gives (BW_NET, BW_IO fall with the link);
#   2. bench/bench.c's patterns (B1 row blocks, B3 interleaved columns in blocks of 16 and 64, B4 slabs) with
#      every scheme, once with colldiag's default constants and once with the calibrated ones;
# then prints, per pattern and direction, the scheme AUTO ran, its time, the fastest scheme measured in the
# same run and AUTO's time over it (1.00: AUTO ran the best). Every scheme is verified by the bench itself.
# Usage: bench/nodes.sh BUILD_DIR N K REPS DIR   (NODES_RATES="200mbit", a tc rate per slow link)
set -u
B=$1 N=$2 K=$3 REPS=$4 DIR=$5
RATES=${NODES_RATES:-200mbit}
T=$(mktemp -d "$DIR/colldiag_nodes_bench.XXXXXX")
trap 'rm -rf "$T"' EXIT
[ "$(id -u)" = 0 ] || { echo "bench/nodes.sh: simulated nodes need root (tests/nodes.sh)" >&2; exit 2; }
echo "# make bench-nodes, $(date -u '+%Y-%m-%d %H:%M') UTC, $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, $N nodes x $K ranks, Open MPI TCP between nodes, median of $REPS"
# pattern sets: name, then the bench's environment
sets=("B1 BENCH_PATTERNS=B1 BENCH_N1=1024 BENCH_C1=96"
      "B3w16 BENCH_PATTERNS=B3 BENCH_N3=1024 BENCH_C3=128 BENCH_W3=16 BENCH_INNER_B3=1"
      "B3w64 BENCH_PATTERNS=B3 BENCH_N3=1024 BENCH_C3=128 BENCH_W3=64 BENCH_INNER_B3=1"
      "B4 BENCH_PATTERNS=B4 BENCH_N4=128")
for rate in none $RATES; do
    shape=""
    [ "$rate" = none ] || shape="--rate $rate"
    # shellcheck disable=SC2086
    tests/nodes.sh "$N" "$K" $shape -- "$B/calibrate" "$DIR" >"$T/cal.$rate" 2>&1 || { echo "calibrate failed on link $rate:"; cat "$T/cal.$rate"; exit 1; }
    for consts in default calibrated; do
        for s in "${sets[@]}"; do
            name=${s%% *}
            (
                [ "$consts" = calibrated ] && eval "$(grep '^export' "$T/cal.$rate")"
                # shellcheck disable=SC2086
                env BENCH_DIR="$DIR" ${s#* } timeout 600 tests/nodes.sh "$N" "$K" $shape -- "$B/bench" tiny "$REPS"
            ) >"$T/out" 2>&1 || { echo "bench failed ($name, link $rate, $consts constants):"; tail -20 "$T/out"; exit 1; }
            mv "$T/out" "$T/out.$rate.$consts.$name"
        done
    done
done
python3 - "" "$T" "$RATES" <<'PY'
import glob, os, re, sys, collections
rows = collections.defaultdict(dict); ran = {}
for f in glob.glob(sys.argv[2] + "/out.*"):
    rate, c, name = os.path.basename(f).split(".")[1:4]
    d = None
    for l in open(f):
        if "write times" in l: d = "write"
        if "read times" in l: d = "read"
        m = re.match(r"^(B[0-9][0-9a-z ,]*?)\s{2,}(\S+(?: \S+)*?)\s{2,}([0-9.]+)\s", l)
        if not m or not d or m.group(2).startswith(("write limit", "read limit", "mpi ")): continue
        rows[(rate, c, name, d)][m.group(2)] = float(m.group(3))
        if m.group(2) == "auto": ran[(rate, c, name, d)] = l.split()[-1]
for rate in ["none"] + sys.argv[3].split():
    cal = [l.strip() for l in open("%s/cal.%s" % (sys.argv[2], rate)) if l.startswith(("export COLLDIAG_AUTO_BW", "export COLLDIAG_AUTO_IND", "export COLLDIAG_AUTO_LAT_X"))]
    print("\nlink %s: calibrated %s" % ("unshaped" if rate == "none" else rate, ", ".join(x.split("COLLDIAG_AUTO_")[1] for x in cal)))
    print("%-10s %-6s %-5s %-15s %9s %-10s %9s %8s  %s" % ("constants", "patt.", "dir", "AUTO ran", "AUTO s", "best", "best s", "AUTO/best", "every scheme (s)"))
    for (r, c, name, d), v in sorted(rows.items(), key=lambda kv: (kv[0][1] != "default", kv[0][2], kv[0][3] != "write")):
        if r != rate or "auto" not in v: continue
        others = {k: x for k, x in v.items() if k != "auto"}
        b = min(others, key=others.get)
        print("%-10s %-6s %-5s %-15s %9.4f %-10s %9.4f %8.2f  %s" % (c, name, d, ran[(r, c, name, d)], v["auto"], b, others[b], v["auto"] / others[b],
              " ".join("%s %.4f" % (k, x) for k, x in sorted(others.items()))))
PY
