#!/usr/bin/env bash
# The HDF5-facing suites against the HDF5 this system has (make check runs it inside Debian 13, HDF5
# 1.14.5, through tests/debian13.sh; it runs as well on Debian 12's 1.10.8): builds for Open MPI and
# MPICH into their own directories, then every suite under `timeout`, a line each, and the plain
# closing line "N passed, N failed".
# Usage: tests/check_hdf5.sh TAG     (builds into build/TAG-openmpi and build/TAG-mpich)
set -u
cd "$(dirname "$0")/.."
TAG=${1:-d13}
BO=build/$TAG-openmpi BM=build/$TAG-mpich
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI="mpirun.openmpi --oversubscribe"
MPICH="$PWD/tests/mpich_run.sh mpirun.mpich" # its exit status is not enough: see tests/mpich_run.sh
# oversubscribed MPICH ranks yield when they wait (tests/mpich_yield.c): minutes of spinning otherwise
export COLLDIAG_TEST_MPICH_YIELD="$PWD/$BM/libmpich_yield.so"
ROMIO=$(ompi_info 2>/dev/null | awk '/MCA io: romio/ {sub(":", "", $3); print $3; exit}')
passed=0; failed=0; failed_names=""
suite() { # name, timeout seconds, command...
    local name=$1 t=$2; shift 2
    local log; log=$(mktemp)
    local t0=$SECONDS
    if timeout "$t" "$@" >"$log" 2>&1; then
        passed=$((passed + 1)); echo "ok    $name ($((SECONDS - t0)) s)"
    else
        failed=$((failed + 1)); failed_names="$failed_names\n  $name"
        echo "FAIL  $name (exit $?, $((SECONDS - t0)) s)"; grep -v '^\s*$' "$log" | head -40 | sed 's/^/      /'
    fi
    rm -f "$log"
}
H5V=$(pkg-config --modversion hdf5-openmpi 2>/dev/null || echo '?')
echo "== HDF5 $H5V, $(mpirun.openmpi --version 2>/dev/null | head -1), MPICH $(mpichversion 2>/dev/null | awk '/Version:/ {print $3}'), $(gcc --version | head -1)"
JOBS=$(nproc 2>/dev/null || echo 1)
build() { # MPI, build dir: make succeeds and prints no warning
    local out rc
    out=$(make -j"$JOBS" MPI="$1" B="$2" all 2>&1); rc=$?
    echo "$out" | grep -i -B2 -A3 'warning\|error' | head -40
    [ $rc = 0 ] && ! echo "$out" | grep -qi 'warning'
}
export -f build
export JOBS
# only the current API: a HDF5 built with --disable-deprecated-symbols hides the old prototypes the same way
# (and a use of one, H5Oget_info2 say, fails to compile with the define: implicit declaration)
if pkg-config --atleast-version=1.12 hdf5-openmpi 2>/dev/null; then
    suite "no deprecated HDF5 symbol (H5_NO_DEPRECATED_SYMBOLS)" 120 bash -c 'for f in colldiag.c tools/colldiag-preload.c; do
        mpicc.openmpi -std=c11 -Wall -Wextra -Werror -fsyntax-only -DH5_NO_DEPRECATED_SYMBOLS -DCOLLDIAG_WITH_HDF5 $(pkg-config --cflags hdf5-openmpi) -I. "$f" || exit 1; done'
fi
suite "build (Open MPI, -Wall -Wextra: no warning)" 900 bash -c 'build "$@"' _ openmpi "$BO"
suite "build (MPICH, -Wall -Wextra: no warning)" 900 bash -c 'build "$@"' _ mpich "$BM"

# every scenario's modes and causes against this HDF5 (the oracle) and the rules' reference, rank by rank
scn() { # label, launcher...
    local label=$1; shift
    for f in tests/scenarios/public/*.scn tests/scenarios/*.scn; do
        local n; n=$(awk '$1=="ranks"{print $2}' "$f")
        suite "$label scenario $(basename "$f")" 120 "$@" -n "$n" "$BO/scenario_run" --hdf5 --rules "$f"
    done
}
scn "openmpi/ompio" $OMPI
# colldiag never writes a byte it was not given (every scheme, both drivers, fresh files and files with data)
suite "openmpi/ompio test_untouched -n 3" 120 $OMPI -n 3 "$BO/test_untouched" "${TMPDIR:-/tmp}"
[ -n "$ROMIO" ] && suite "openmpi/$ROMIO test_untouched -n 3" 120 env OMPI_MCA_io=$ROMIO $OMPI -x OMPI_MCA_io -n 3 "$BO/test_untouched" "${TMPDIR:-/tmp}"
suite "mpich test_untouched -n 3" 300 $MPICH -n 3 "$BM/test_untouched" "${TMPDIR:-/tmp}"
FUZZ_SEED=${FUZZ_SEED:-$(( $(date +%s) / 86400 ))}
mkdir -p build/fuzz-h5 build/h5accel-$TAG
# colldiag_h5_write/read: the index reader on every index type against the file's bytes, userblocks, faults
suite "openmpi/ompio test_h5accel -n 3" 300 $OMPI -n 3 "$BO/test_h5accel" "build/h5accel-$TAG"
[ -n "$ROMIO" ] && suite "openmpi/$ROMIO test_h5accel -n 3" 300 env OMPI_MCA_io=$ROMIO $OMPI -x OMPI_MCA_io -n 3 "$BO/test_h5accel" "build/h5accel-$TAG"
suite "mpich test_h5accel -n 2" 300 $MPICH -n 2 "$BM/test_h5accel" "build/h5accel-$TAG"
suite "openmpi/ompio test_h5_records -n 2 (every index type, filtered)" 120 $OMPI -n 2 "$BO/test_h5_records" "${TMPDIR:-/tmp}/h5rec-o"
suite "mpich test_h5_records -n 2 (every index type, filtered)" 120 $MPICH -n 2 "$BM/test_h5_records" "${TMPDIR:-/tmp}/h5rec-m"
FS=${FUZZ_SEED:-$(( $(date +%s) / 86400 ))}
suite "openmpi/ompio fuzz_filtered 300 cases, seed $FS (filtered reads against HDF5 1.14)" 300 bash -c 'mkdir -p build/fuzz-filt && "$@" | tee /dev/stderr | grep "every byte equal" >/dev/null' _ $OMPI -n 3 "$BO/fuzz_filtered" --seed "$FS" --cases 300 --out build/fuzz-filt
suite "mpich fuzz_filtered 60 cases, seed $FS" 300 bash -c 'mkdir -p build/fuzz-filt && "$@" | tee /dev/stderr | grep "every byte equal" >/dev/null' _ $MPICH -n 2 "$BM/fuzz_filtered" --seed "$FS" --cases 60 --out build/fuzz-filt
suite "openmpi/ompio preload: compressed reads (deflate, shuffle, Fletcher-32), 3 ranks" 120 tests/test_filtered_preload.sh "$BO" "$OMPI" 3
[ -n "$ROMIO" ] && suite "openmpi/$ROMIO preload: compressed reads, 4 ranks" 120 env OMPI_MCA_io=$ROMIO tests/test_filtered_preload.sh "$BO" "$OMPI" 4
suite "mpich preload: compressed reads, 2 ranks" 120 tests/test_filtered_preload.sh "$BM" "$MPICH" 2
suite "openmpi/ompio test_h5accel -n 8" 300 $OMPI -n 8 "$BO/test_h5accel" "build/h5accel-$TAG"
# every byte against HDF5's own writes and the tester's image
h5fuzz() { # label, cases, launcher... (passes on exit 0 and the tester's own closing verdict)
    local label=$1 n=$2; shift 2
    suite "$label fuzz_h5 $n cases, seed $FUZZ_SEED" 400 bash -c '"$@" --seed '"$FUZZ_SEED"' --cases '"$n"' --out build/fuzz-h5 | tee /dev/stderr | grep "every byte equal" >/dev/null' _ "$@"
}
h5fuzz "openmpi/ompio -n 3" 200 $OMPI -n 3 "$BO/fuzz_h5"
# a file with collective metadata reads: colldiag's index flush left HDF5 1.14's own later independent
# write on one rank waiting in MPI_Bcast (h5_flush_unsafe); hung within seconds before the fix
suite "openmpi/ompio fuzz_h5 replay: seed 20261127 case 3023 (coll. metadata, flush)" 90 $OMPI -n 3 "$BO/fuzz_h5" --seed 20261127 --first 3023 --cases 3024 --out build/fuzz-h5
[ -n "$ROMIO" ] && h5fuzz "openmpi/$ROMIO -n 3" 100 env OMPI_MCA_io=$ROMIO $OMPI -x OMPI_MCA_io -n 3 "$BO/fuzz_h5"
# MPICH 4.1-4.2's ROMIO aborts on types HDF5 1.14 builds (tools/mpich_flat_views.h): the test programs
# hand it the same types flattened, checked byte by byte against a reference by hand, and HDF5's own
# write that aborted the fuzz (seed 4 case 22, rank 1 selecting nothing) runs
suite "mpich the view MPICH 4.2 aborts on, flattened: every byte where it puts it" 60 bash -c '"$@" | grep -q "every byte where the view puts it"' _ $MPICH -n 1 "$BM/mpich_flat_view_repro" "${TMPDIR:-/tmp}/flatview.bin"
# the preload does the same for an unmodified program: the reproducer built without the workaround
# aborts alone on MPICH 4.1-4.2 and writes every byte right under the preload
suite "mpich preload: an MPI type MPICH 4.2 aborts on, handed over flattened" 120 tests/test_flat_views_preload.sh "$BM" "$MPICH"
suite "mpich fuzz_h5 replay: seed 4 case 22 (HDF5's own write, a type MPICH 4.2 aborts on)" 120 bash -c '"$@" | grep "every byte equal"' _ $MPICH -n 2 "$BM/fuzz_h5" --seed 4 --first 22 --cases 23 --out build/fuzz-h5
h5fuzz "mpich -n 2" 30 $MPICH -n 2 "$BM/fuzz_h5"
# the preload on unmodified C and h5py programs: explanations equal HDF5's answers call by call, and
# accelerated files equal plain ones
if OMPI_COMM_WORLD_SIZE=1 /usr/bin/python3 -c 'import h5py, mpi4py; assert h5py.get_config().mpi' 2>/dev/null; then
    suite "openmpi preload: HDF5 C + h5py clients" 600 tests/test_preload.sh "$BO" "$OMPI" h5py
else
    suite "openmpi preload: h5py with MPI is installed" 10 false
fi
suite "mpich preload: HDF5 C client" 300 tests/test_preload.sh "$BM" "$MPICH"
suite "openmpi preload: the run's summary (C, h5py)" 300 tests/test_summary.sh "$BO" "$OMPI" h5py
suite "openmpi preload: contiguous calls make no more MPI-IO calls than HDF5's" 300 tests/test_contig_calls.sh "$BO" "$OMPI"
suite "openmpi preload: large whole-chunk writes left to HDF5, alike on every rank" 300 tests/test_as_fast.sh "$BO" "$OMPI" 3
suite "openmpi preload: each call's engine measured (injected clock)" 300 tests/test_engine.sh "$BO" "$OMPI" 3
suite "openmpi preload: reads into untouched memory prefaulted where it pays" 200 tests/test_prefault.sh "$BO" "$OMPI" 3
# the kit's colldiag_read the same (src/memory.c), on this glibc and Open MPI 5: forced, and this machine's probe
suite "openmpi kit: colldiag_read into untouched memory, forced" 120 env COLLDIAG_PREFAULT=1 $OMPI -x COLLDIAG_PREFAULT -n 3 "$BO/test_prefault_kit" "${TMPDIR:-/tmp}" on
suite "openmpi kit: colldiag_read into untouched memory, this machine's probe" 120 $OMPI -n 3 "$BO/test_prefault_kit" "${TMPDIR:-/tmp}" auto
# failed before colldiag learned such files' datasets only where every rank does (colldiag_h5_opened)
suite "openmpi preload: collective-metadata file, one rank calling alone" 200 tests/test_collmd_explain.sh "$BO" "$OMPI"
suite "mpich preload: collective-metadata file, one rank calling alone" 200 tests/test_collmd_explain.sh "$BM" "$MPICH"
# what HDF5 and MPI-IO get wrong on this stack (plain HDF5, printed), predicted by the preload's report,
# prevented under COLLDIAG_ACCELERATE=1 (tests/h5_defects.c)
suite "openmpi/ompio HDF5's defects: shown, predicted, prevented (4 ranks)" 300 tests/test_defects.sh "$BO" "$OMPI" 4 "ompio, "
[ -n "$ROMIO" ] && suite "openmpi/$ROMIO HDF5's defects: shown, predicted, prevented (3 ranks)" 300 env OMPI_MCA_io=$ROMIO tests/test_defects.sh "$BO" "$OMPI" 3 "$ROMIO, "
suite "mpich HDF5's defects: shown, predicted, prevented (3 ranks)" 300 tests/test_defects.sh "$BM" "$MPICH" 3 "mpich, "
# a program linked against HDF5 statically (plain h5pcc links libhdf5.a here too): told, then wrapped
suite "openmpi static HDF5: told under the preload, explained and protected through the wrappers (3 ranks)" 300 tests/test_static.sh "$BO" "$OMPI" 3 h5pcc.openmpi
if pkg-config --atleast-version=1.14 hdf5-openmpi 2>/dev/null; then
    suite "openmpi preload: H5Dwrite_multi, H5Dread_multi and the async calls: explained as HDF5 decides, accelerated, never missed" 180 bash -c \
        "make -s MPI=openmpi B=$BO $BO/h5_multi_client && tests/test_multi_entry.sh $BO '$OMPI'"
    [ -n "$ROMIO" ] && suite "openmpi/$ROMIO preload: H5Dwrite_multi explained, accelerated" 180 bash -c \
        "make -s MPI=openmpi B=$BO $BO/h5_multi_client && OMPI_MCA_io=$ROMIO tests/test_multi_entry.sh $BO '$OMPI -x OMPI_MCA_io'"
    suite "mpich preload: H5Dwrite_multi explained, accelerated" 300 bash -c \
        "make -s MPI=mpich B=$BM $BM/h5_multi_client && tests/test_multi_entry.sh $BM '$MPICH'"
fi
suite "openmpi hdf5 interop + h5dump" 120 tests/test_h5dump.sh "$BO" "$OMPI"
suite "openmpi/ompio test_fortran -n 3" 120 $OMPI -n 3 "$BO/test_fortran" "build/h5accel-$TAG/fortran.bin"
# netCDF-C's own parallel tests (this release's source package), plain and accelerated
# (netCDF-C 4.9.3's tst_parallel5 fails plain on Debian 13, at its cache-settings check (line 347): left out)
NC_RUNS="tst_mode:1 tst_mpi_parallel:4 tst_parallel:4 tst_parallel3:4 tst_parallel3:8 tst_parallel4:1 tst_parallel4:2 tst_parallel4:4
         tst_nc4perf:4 tst_simplerw_coll_r:1 tst_simplerw_coll_r:2 tst_simplerw_coll_r:4 tst_parallel_zlib:4 tst_parallel_compress:1
         tst_parallel_compress:4 tst_quantize_par:4 tst_parallel6:4"
suite "openmpi preload: netCDF-C's own parallel tests, plain and accelerated" 900 env NETCDF_C_WORK=build/netcdf-c-$TAG NETCDF_C_RUNS="$NC_RUNS" \
    tests/netcdf_c_tests.sh "$BO" "$OMPI"
echo
echo "HDF5 $H5V: $passed passed, $failed failed"
if [ "$failed" -gt 0 ]; then printf "failed:%b\n" "$failed_names"; exit 1; fi
