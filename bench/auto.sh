#!/usr/bin/env bash
# make bench-auto: AUTO that measures against every fixed scheme in time-step loops (bench/auto.c), with
# colldiag's default constants (no calibrate): on 3 ranks and on 8 ranks of this machine, and (root:
# tests/nodes.sh) across 4 simulated nodes of 2 ranks, unshaped and with rate-shaped links.
# Usage: bench/auto.sh BUILD_DIR CALLS REPS DIR   (AUTO_RATES="200mbit": the shaped links; AUTO_NODES=0 skips the nodes)
set -u
B=$1 CALLS=$2 REPS=$3 DIR=$4
RUN="mpirun.openmpi --oversubscribe"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# make bench-auto, $(date -u '+%Y-%m-%d %H:%M') UTC, $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, Open MPI $(mpirun.openmpi --version 2>/dev/null | head -1 | awk '{print $NF}') (ompio)"
fail=0
for np in 3 8; do
    echo; echo "## $np ranks, one host"
    sync
    BENCH_DIR=$DIR $RUN -n "$np" "$B/bench-auto" "$CALLS" "$REPS" || fail=1
done
if [ "${AUTO_NODES:-1}" != 0 ]; then
    for rate in none ${AUTO_RATES:-200mbit}; do
        shape=""
        [ "$rate" = none ] || shape="--rate $rate"
        echo; echo "## 4 simulated nodes x 2 ranks, link ${rate/none/unshaped}"
        sync
        # shellcheck disable=SC2086
        BENCH_DIR=$DIR timeout 3600 tests/nodes.sh 4 2 $shape -- "$B/bench-auto" "$CALLS" "$REPS" || fail=1
    done
fi
exit $fail
