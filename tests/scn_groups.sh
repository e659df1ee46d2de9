#!/usr/bin/env bash
# Prints the scenarios given as arguments in groups that one launch of scenario_run can run together,
# one group a line: "RANKS FILE...". A launch costs more than a scenario under valgrind or the
# sanitizers, so the scenarios of one rank count share one; those that set environment variables
# ("env" lines) get a launch each, because HDF5 (the --hdf5 oracle) reads its variables once a process.
set -eu
declare -A plain
for f in "$@"; do
    [ -e "$f" ] || continue
    n=$(awk '$1=="ranks"{print $2}' "$f")
    if grep -q '^env ' "$f"; then echo "$n $f"; else plain[$n]="${plain[$n]:-} $f"; fi
done
for n in "${!plain[@]}"; do echo "$n${plain[$n]}"; done
