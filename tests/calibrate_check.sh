#!/usr/bin/env bash
# make calibrate (quick sizes) checked: every constant of AUTO's model (colldiag.c's CD_AUTO_CONSTANTS list,
# read from the source so that a new constant cannot be forgotten) printed once as a positive number, and
# colldiag accepts the printed environment (a run with AUTO under it succeeds).
# Usage: tests/calibrate_check.sh BUILD_DIR "LAUNCHER" DIR
set -u
B=$1 RUN=$2 DIR=$3
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "$DIR" && $RUN -n 3 "$top/$B/calibrate" . quick) || { echo "calibrate failed"; exit 1; }
echo "$out"
names=$(grep '^#define CD_AUTO_CONSTANTS' "$top/colldiag.c" | grep -o 'X([A-Z_]*)' | sed 's/^X(//; s/)$//')
[ -n "$names" ] || { echo "no CD_AUTO_CONSTANTS list in colldiag.c"; exit 1; }
for k in $names; do
    n=$(grep -cE "^export COLLDIAG_AUTO_${k}=[0-9.]+(e[-+]?[0-9]+)?\$" <<<"$out")
    [ "$n" = 1 ] || { echo "calibrate printed COLLDIAG_AUTO_$k $n times as a number, expected once"; exit 1; }
done
[ "$(grep -c '^export ' <<<"$out")" = "$(wc -w <<<"$names")" ] || { echo "calibrate printed other exports than the list's"; exit 1; }
eval "$(grep '^export' <<<"$out")"
# shellcheck disable=SC2046
COLLDIAG_CHUNK_OPT=auto $RUN -n 3 $(grep -o '^export [A-Z_]*' <<<"$out" | sed 's/export /-x /') -x COLLDIAG_CHUNK_OPT "$top/$B/rfc_modes" >/dev/null ||
    { echo "rfc_modes under the printed constants failed"; exit 1; }
# RUN by run count (calibrate DIR runs): one line a count, 64 to 64K, each a positive time; no file left
rd=$(mktemp -d "$DIR/calibrate_runs.XXXXXX") || exit 1
runs=$(cd "$rd" && $RUN -n 3 "$top/$B/calibrate" . runs) || { echo "calibrate runs failed"; rm -rf "$rd"; exit 1; }
echo "$runs"
[ "$(grep -cE '^runs +[0-9]+ +[0-9]+\.[0-9]+ ms' <<<"$runs")" = 6 ] || { echo "calibrate runs: expected 6 run counts"; rm -rf "$rd"; exit 1; }
rmdir "$rd" || { echo "calibrate runs left a file in its directory: $(ls "$rd")"; rm -rf "$rd"; exit 1; }
echo "calibrate: $(wc -w <<<"$names") constants printed and accepted"
