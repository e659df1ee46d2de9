#!/usr/bin/env bash
# MPICH's launcher, trusting more than its exit status: mpiexec.hydra (MPICH 4.2.1, Debian 13) returned
# 0 in two runs of three in which a rank had aborted on an assertion (fuzz_h5 seed 20261129 case 85,
# see docs/testing.md), so a suite that looks at the status alone passes over a crash. This runs the
# launcher, passes its output through, and fails when the launcher failed or when the output shows a
# rank's abort: an assertion, MPICH's own abort, hydra's "BAD TERMINATION", a fatal signal.
# Usage: tests/mpich_run.sh LAUNCHER ARGS...   (check.sh and check_hdf5.sh: MPICH="tests/mpich_run.sh mpirun.mpich")
set -u
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# (LD_PRELOAD, when a suite sets it for the ranks, is theirs: not for tee and grep)
"$@" 2>&1 | env -u LD_PRELOAD tee "$log"
rc=${PIPESTATUS[0]}
if env -u LD_PRELOAD grep -qE "Assertion .* failed|internal ABORT|BAD TERMINATION|Segmentation fault|Aborted \(signal|killed by signal" "$log"; then
    echo "mpich_run: a rank aborted (see above); the launcher returned $rc" >&2
    [ "$rc" = 0 ] && rc=134
fi
exit "$rc"
