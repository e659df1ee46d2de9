#!/usr/bin/env bash
# The preload keeps an unmodified program running where MPICH 4.1-4.2's ROMIO would abort on an MPI
# datatype (tools/mpich_flat_views.h): tests/mpich_flat_view_repro.c built WITHOUT the workaround, run
# under LD_PRELOAD=libcolldiag_preload.so, must write every byte where the view puts it (the program
# checks them against its reference by hand), and on MPICH 4.1 and later the preload must say it
# handed the type over. On older MPICH the type goes through untouched and must be right too.
#   tests/test_flat_views_preload.sh BUILD_DIR "MPICH LAUNCHER"
set -u
B=$1 RUN=$2
mpicc.mpich -o "$B/mpich_flat_view_plain" tests/mpich_flat_view_repro.c || exit 1
out=$($RUN -n 1 env LD_PRELOAD="$PWD/$B/libcolldiag_preload.so" "$B/mpich_flat_view_plain" "${TMPDIR:-/tmp}/flatpre.bin" 2>&1)
echo "$out"
echo "$out" | grep -q "every byte where the view puts it" || { echo "FAIL: the bytes"; exit 1; }
v=$(mpichversion | awk '/Version:/ {print $3}')
major=${v%%.*} rest=${v#*.} minor=${rest%%.*}
if [ "$major" -gt 4 ] || { [ "$major" -eq 4 ] && [ "$minor" -ge 1 ]; }; then
    echo "$out" | grep -q "colldiag: rank 0: MPICH .* would abort" || { echo "FAIL: MPICH $v: the preload did not say it handed the type over"; exit 1; }
fi
echo "ok: MPICH $v"
