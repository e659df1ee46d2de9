#!/usr/bin/env bash
# make bench-auto: AUTO that measures against every fixed scheme in time-step loops (bench/auto.c), with
# colldiag's default constants (no calibrate): on 3 ranks and on 8 ranks of this machine, and (root:
# tests/nodes.sh) across 4 simulated nodes of 2 ranks, unshaped and with rate-shaped links.
# Usage: bench/auto.sh BUILD_DIR CALLS REPS DIR   (AUTO_RATES="200mbit": the shaped links; AUTO_NODES=0 skips the nodes;
#        AUTO_STACKS=1 adds 3 ranks under Open MPI's ROMIO and 2 under MPICH (build/mpich/bench-auto);
#        BENCH_PATTERNS="X1d Xrr ..." runs those patterns only, among them the X ones bench/auto.c keeps
#        out of the default run: shapes AUTO was not tuned on)
set -u
B=$1 CALLS=$2 REPS=$3 DIR=$4
RUN="mpirun.openmpi --oversubscribe"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# make bench-auto, $(date -u '+%Y-%m-%d %H:%M') UTC, $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, Open MPI $(mpirun.openmpi --version 2>/dev/null | head -1 | awk '{print $NF}') (ompio)${BENCH_PATTERNS:+, patterns: $BENCH_PATTERNS}"
fail=0
for np in 3 8; do
    echo; echo "## $np ranks, one host"
    sync
    BENCH_DIR=$DIR $RUN -n "$np" "$B/bench-auto" "$CALLS" "$REPS" || fail=1
done
if [ "${AUTO_STACKS:-0}" = 1 ]; then
    echo; echo "## 3 ranks, one host, Open MPI's ROMIO (OMPI_MCA_io=romio321)"
    sync
    BENCH_DIR=$DIR OMPI_MCA_io=romio321 $RUN -x OMPI_MCA_io -n 3 "$B/bench-auto" "$CALLS" "$REPS" || fail=1
    if [ -x build/mpich/bench-auto ]; then
        echo; echo "## 2 ranks, one host, MPICH $(mpichversion 2>/dev/null | awk '/Version:/ {print $NF}') (ROMIO)"
        sync
        BENCH_DIR=$DIR tests/mpich_run.sh mpirun.mpich -n 2 build/mpich/bench-auto "$CALLS" "$REPS" || fail=1
    fi
fi
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
