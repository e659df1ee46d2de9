#!/usr/bin/env bash
# MPICH's launcher, trusting more than its exit status: mpiexec.hydra (MPICH 4.2.1, Debian 13) returned
# 0 in two runs of three in which a rank had aborted on an assertion (fuzz_h5 seed 20261129 case 85,
# see docs/testing.md), so a suite that looks at the status alone passes over a crash. This runs the
# launcher, passes its output through, and fails when the launcher failed or when the output shows a
# rank's abort: an assertion, MPICH's own abort, hydra's "BAD TERMINATION", a fatal signal.
# Standard output and standard error stay apart, as the launcher gives them: merged into one pipe, a
# rank's error stack (HDF5-DIAG, written while rank 0 prints) landed inside rank 0's output lines, and a
# test that reads the program's lines lost one (test_filtered_preload under MPICH, CI of 2026-11-29).
# Usage: tests/mpich_run.sh LAUNCHER ARGS...   (check.sh and check_hdf5.sh: MPICH="tests/mpich_run.sh mpirun.mpich")
# With COLLDIAG_TEST_MPICH_YIELD naming build/<mpich>/libmpich_yield.so (check.sh, check_hdf5.sh set it),
# the ranks preload it first: MPICH's waits then yield the core (tests/mpich_yield.c: 40 s -> 0.7 s for
# a 3-rank run on 2 cores). It reaches the ranks through the environment (hydra passes it on, and
# nodes.sh's -genv) and through a -genv LD_PRELOAD the suite gives.
set -u
Y=${COLLDIAG_TEST_MPICH_YIELD:-}
if [ -n "$Y" ] && [ -f "$Y" ]; then
    export LD_PRELOAD="$Y${LD_PRELOAD:+:$LD_PRELOAD}"
    args=()
    while [ $# -gt 0 ]; do
        if [ "$1" = -genv ] && [ "${2:-}" = LD_PRELOAD ] && [ $# -ge 3 ]; then
            args+=(-genv LD_PRELOAD "$Y${3:+:$3}"); shift 3
        else
            args+=("$1"); shift
        fi
    done
    set -- "${args[@]}"
fi
log=$(mktemp) err=$(mktemp)
trap 'rm -f "$log" "$err"' EXIT
# (LD_PRELOAD, when a suite sets it for the ranks, is theirs: not for tee and grep)
exec 3> >(env -u LD_PRELOAD tee "$err" >&2)
tee_pid=$!
"$@" 2>&3 3>&- | env -u LD_PRELOAD tee "$log"
rc=${PIPESTATUS[0]}
exec 3>&-
wait "$tee_pid" 2>/dev/null # the standard error's tee, to its end (the grep below reads its file)
if env -u LD_PRELOAD grep -qE "Assertion .* failed|internal ABORT|BAD TERMINATION|Segmentation fault|Aborted \(signal|killed by signal" "$log" "$err"; then
    echo "mpich_run: a rank aborted (see above); the launcher returned $rc" >&2
    [ "$rc" = 0 ] && rc=134
fi
exit "$rc"
