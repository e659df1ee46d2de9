#!/usr/bin/env bash
# A dataset colldiag wrote inside a real HDF5 file reads back correctly with h5dump (HDF5's own tool).
# Usage: tests/test_h5dump.sh BUILD_DIR "LAUNCHER"
set -eu
b=$1; launch=$2
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
$launch -n 3 "$top/$b/hdf5_interop" "$tmp/i.h5"
# rank r wrote r*48 + i at row r*6 + i/8, column i%8: h5dump prints 18 rows of 8 values
want=$(for r in $(seq 0 17); do printf '(%d,0):' "$r"; for c in $(seq 0 7); do v=$((r * 8 + c)); [ $c -lt 7 ] && printf ' %d,' $v || printf ' %d' $v; done; [ $r -lt 17 ] && printf ',\n' || printf '\n'; done)
got=$(h5dump -d /colldiag "$tmp/i.h5" | sed -n '/DATA {/,/}/p' | grep '^ *(' | sed 's/^ *//')
[ "$got" = "$want" ] || { echo "h5dump shows:"; echo "$got"; echo "expected:"; echo "$want"; exit 1; }
echo "test_h5dump.sh: 1 passed, 0 failed"
