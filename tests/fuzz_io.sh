#!/usr/bin/env bash
# The differential tester on every MPI-IO layer of one MPI: tests/fuzz_io.sh openmpi|mpich "BUDGET" [SEED]
#   BUDGET: "--cases N" or "--seconds T" (per layer). SEED: default = today's day number, so a day's runs
#   repeat and the next day's explore new cases. Failing cases are written shrunk to build/fuzz-io/.
set -u
cd "$(dirname "$0")/.."
mpi=$1 budget=$2 seed=${3:-}
[ -n "$seed" ] || seed=$(( $(date +%s) / 86400 ))
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=build/fuzz-io && mkdir -p "$out"
rc=0
run() { # label, launcher..., binary
    local label=$1; shift
    echo "== fuzz_io $label ($budget, seed $seed)"
    "$@" $budget --seed "$seed" --out "$out" --current "$out/current_$mpi.scn" || rc=1
}
if [ "$mpi" = mpich ]; then
    run "mpich" mpirun.mpich -n 4 build/mpich/fuzz_io
else
    run "openmpi/ompio" mpirun.openmpi --oversubscribe -n 4 build/openmpi/fuzz_io
    run "openmpi/ompio, 24-byte rounds" mpirun.openmpi --oversubscribe -n 4 build/openmpi/fuzz_io_rounds
    OMPI_MCA_io=romio321 run "openmpi/romio" mpirun.openmpi --oversubscribe -n 4 build/openmpi/fuzz_io
fi
exit $rc
