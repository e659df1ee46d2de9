#!/usr/bin/env bash
# The whole test suite: every suite runs under `timeout`, so a hang fails instead of blocking.
# Usage: tests/check.sh   (called by `make check`; expects build/openmpi and build/mpich to be built)
set -u
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI="mpirun.openmpi --oversubscribe"
MPICH="$PWD/tests/mpich_run.sh mpirun.mpich" # its exit status is not enough: see tests/mpich_run.sh
# oversubscribed MPICH ranks yield when they wait (tests/mpich_yield.c): minutes of spinning otherwise
export COLLDIAG_TEST_MPICH_YIELD="$PWD/build/mpich/libmpich_yield.so"
PUBLIC="${SCN_PUBLIC:-tests/scenarios/public}"
SCN_DIRS="$PUBLIC tests/scenarios"
passed=0; failed=0; failed_names=""

suite() { # name, timeout seconds, command...
    local name=$1 t=$2; shift 2
    local log; log=$(mktemp)
    local t0=$SECONDS
    local rc=0
    timeout "$t" "$@" >"$log" 2>&1 || rc=$?
    if [ "$rc" = 0 ]; then
        passed=$((passed + 1)); echo "ok    $name ($((SECONDS - t0)) s)"
    else
        # the command's own status (124: timed out), and enough of its output to tell a launch failure
        # (mpirun's, or no output at all) from a wrong answer (the test's own lines, last ones included)
        failed=$((failed + 1)); failed_names="$failed_names\n  $name"
        local what="exit $rc"; [ "$rc" = 124 ] && what="timed out after $t s"
        echo "FAIL  $name ($what, $((SECONDS - t0)) s, $(wc -l <"$log") lines of output)"
        if [ ! -s "$log" ]; then echo "      (no output at all)"
        else grep -v '^\s*$' "$log" | head -40 | sed 's/^/      /'
             [ "$(grep -cv '^\s*$' "$log")" -gt 40 ] && { echo "      ..."; grep -v '^\s*$' "$log" | tail -15 | sed 's/^/      /'; }
        fi
    fi
    rm -f "$log"
}

# HDF5 as the oracle on every scenario, and the runner's own reference of SPEC.md's rules on every rank
HDF5_FLAG="--hdf5 --rules"
scenarios() { # label, runner, launcher, [filter-glob]
    local label=$1 runner=$2 launcher=$3 glob=${4:-*.scn}
    for d in $SCN_DIRS; do
        [ -d "$d" ] || continue
        for f in "$d"/$glob; do
            [ -e "$f" ] || continue
            local n; n=$(awk '$1=="ranks"{print $2}' "$f")
            suite "$label scenario $(basename "$f")" 120 $launcher -n "$n" "$runner" ${HDF5_FLAG:-} "$f"
        done
    done
}

# colldiag.c is what src/ generates, byte for byte (users copy the tracked file; make writes it from the parts)
suite "colldiag.c is the amalgamation of src/ (src/amalgamate.sh)" 30 bash -c 'src/amalgamate.sh src | cmp - colldiag.c'
# the public scenarios are the contract: their absence is a failure, not a skip; where the originals are
# at hand (CI passes their directory as PUBLIC_ORIGINAL), the copies must not have drifted from them
suite "public scenarios present in $PUBLIC" 10 bash -c "ls '$PUBLIC'/*.scn >/dev/null"
if [ -n "${PUBLIC_ORIGINAL:-}" ]; then
    suite "public scenarios identical to $PUBLIC_ORIGINAL" 10 diff -r "$PUBLIC_ORIGINAL" "$PUBLIC"
fi
# the differential tester: random whole calls, every byte and every rank's report checked (tests/fuzz_io.c);
# a new seed each day, printed, so a failure replays (make fuzz-io SEED=S)
FUZZ_SEED=${FUZZ_SEED:-$(( $(date +%s) / 86400 ))}
fuzz_suite() { # label, cases, launcher..., binary
    local label=$1 n=$2; shift 2
    suite "$label fuzz_io $n cases, seed $FUZZ_SEED" 900 bash -c 'mkdir -p build/fuzz-io && "$@" --seed '"$FUZZ_SEED"' --cases '"$n"' --out build/fuzz-io' _ "$@"
}
# Open MPI, default MPI-IO layer (ompio)
for p in 1 2 3 4; do suite "openmpi/ompio test_io -n $p" 600 $OMPI -n $p build/openmpi/test_io; done
# collective calls normally pack short memory runs themselves; this run hands MPI the memory types
suite "openmpi/ompio test_io -n 3, memory types (COLLDIAG_PACK_RUN_BYTES=0)" 600 env COLLDIAG_PACK_RUN_BYTES=0 $OMPI -n 3 build/openmpi/test_io
# calls split into rounds of 24 bytes: the round boundaries fall inside chunks and blocks of rows
suite "openmpi/ompio test_io -n 3, 24-byte rounds" 600 $OMPI -n 3 build/openmpi/test_io_rounds
fuzz_suite "openmpi/ompio" 2000 $OMPI -n 4 build/openmpi/fuzz_io
# many datasets in one call: fixed cases (bytes, modes, one collective call, errors), then random calls
MT="${TMPDIR:-/tmp}/colldiag_test_multi_$$.bin"
for p in 1 2 3 4; do suite "openmpi/ompio test_multi -n $p" 300 $OMPI -n $p build/openmpi/test_multi "$MT"; done
for p in 2 3 4; do suite "openmpi/ompio test_multi --fuzz, $((150 * p)) calls -n $p, seed $FUZZ_SEED" 600 $OMPI -n $p build/openmpi/test_multi --fuzz "$FUZZ_SEED" $((150 * p)) "$MT"; done
fuzz_suite "openmpi/ompio 24-byte rounds" 1000 $OMPI -n 4 build/openmpi/fuzz_io_rounds
for f in tests/scenarios/rounds/*.scn; do
    suite "openmpi/ompio 24-byte rounds scenario $(basename "$f")" 120 $OMPI -n "$(awk '$1=="ranks"{print $2}' "$f")" build/openmpi/scenario_run_rounds --rules "$f"
done
for p in 1 3 4; do suite "openmpi/ompio test_errors -n $p" 300 $OMPI -n $p build/openmpi/test_errors; done
# colldiag never writes a byte it was not given: every scheme, both drivers, fresh files and files with data
for p in 1 3 4; do suite "openmpi/ompio test_untouched -n $p" 120 $OMPI -n $p build/openmpi/test_untouched "${TMPDIR:-/tmp}"; done
suite "openmpi/romio test_untouched -n 3" 120 env OMPI_MCA_io=romio321 $OMPI -x OMPI_MCA_io -n 3 build/openmpi/test_untouched "${TMPDIR:-/tmp}"
suite "mpich test_untouched -n 3" 300 $MPICH -n 3 build/mpich/test_untouched "${TMPDIR:-/tmp}"
# bytes crossing nodes on one host: one node, nothing crosses (across nodes: the section below)
suite "openmpi/ompio test_offnode -n 3 (one node)" 120 $OMPI -n 3 build/openmpi/test_offnode "${TMPDIR:-/tmp}" 1
suite "mpich test_offnode -n 2 (one node)" 300 $MPICH -n 2 build/mpich/test_offnode "${TMPDIR:-/tmp}" 1
# the file runs AUTO's model prices (all-independent's estimate), against the test's own count
for p in 2 3 5; do suite "openmpi/ompio test_model_runs -n $p" 120 $OMPI -n $p build/openmpi/test_model_runs "${TMPDIR:-/tmp}"; done
suite "mpich test_model_runs -n 2" 120 $MPICH -n 2 build/mpich/test_model_runs "${TMPDIR:-/tmp}"
# colldiag's own collective reads of overlapping selections read the file's bytes (the read guard on
# Open MPI 4.1.4's ompio, whose read data sieving loses them; collective where selections do not meet)
suite "openmpi/ompio test_read_guard -n 3 and -n 4" 120 bash -c "$OMPI -n 3 build/openmpi/test_read_guard \"\${TMPDIR:-/tmp}/rg3.bin\" && $OMPI -n 4 build/openmpi/test_read_guard \"\${TMPDIR:-/tmp}/rg4.bin\""
suite "openmpi/ompio test_read_guard -n 3, rank 1's sieving off (the ranks' stacks differ)" 120 $OMPI -n 3 build/openmpi/test_read_guard "${TMPDIR:-/tmp}/rgx.bin" mixed
suite "openmpi/romio test_read_guard -n 3" 120 env OMPI_MCA_io=romio321 $OMPI -x OMPI_MCA_io -n 3 build/openmpi/test_read_guard "${TMPDIR:-/tmp}/rgr.bin"
suite "mpich test_read_guard -n 2" 120 $MPICH -n 2 build/mpich/test_read_guard "${TMPDIR:-/tmp}/rgm.bin"
# the file view MPICH 4.1-4.2 aborts on (tools/mpich_flat_views.h), taken as it is here: the reference
# by hand that the workaround is checked against in Debian 13 (tests/check_hdf5.sh)
suite "mpich preload: the view MPICH 4.2 aborts on, untouched on MPICH 4.0" 60 tests/test_flat_views_preload.sh build/mpich "$MPICH"
suite "mpich the view MPICH 4.2 aborts on: every byte where it puts it" 60 bash -c '"$@" | grep -q "every byte where the view puts it"' _ $MPICH -n 1 build/mpich/mpich_flat_view_repro "${TMPDIR:-/tmp}/flatview.bin"
scenarios "openmpi/ompio" build/openmpi/scenario_run "$OMPI"
# > 2 GiB and > 2^31 elements per rank (ompio; see README for ROMIO)
suite "openmpi/ompio test_large -n 2" 600 $OMPI -n 2 build/openmpi/test_large "${TMPDIR:-/tmp}"
# the memory a call adds stays bounded by the collective buffer (counting allocator, PMPI counters)
for p in 1 3 4; do suite "openmpi/ompio test_memory -n $p" 300 $OMPI -n $p build/openmpi/test_memory "${TMPDIR:-/tmp}"; done
# colldiag_h5_write/read against HDF5's H5Dwrite/H5Dread and the tester's own image, every byte (tests/fuzz_h5.c)
h5fuzz() { # label, seed, cases, launcher... (passes on exit 0 and the tester's own closing verdict)
    local label=$1 seed=$2 n=$3; shift 3
    suite "$label fuzz_h5 $n cases, seed $seed" 300 bash -c 'mkdir -p build/fuzz-h5 && "$@" --seed '"$seed"' --cases '"$n"' --out build/fuzz-h5 | tee /dev/stderr | grep "every byte equal" >/dev/null' _ "$@"
}
h5fuzz "openmpi/ompio -n 3" "$FUZZ_SEED" 150 $OMPI -n 3 build/openmpi/fuzz_h5
h5fuzz "openmpi/ompio -n 4" "$FUZZ_SEED" 60 $OMPI -n 4 build/openmpi/fuzz_h5
h5fuzz "openmpi/ompio -n 1" "$FUZZ_SEED" 150 $OMPI -n 1 build/openmpi/fuzz_h5
h5fuzz "openmpi/romio -n 3" "$FUZZ_SEED" 100 env OMPI_MCA_io=romio321 $OMPI -x OMPI_MCA_io -n 3 build/openmpi/fuzz_h5
# Open MPI 4.1.4's ompio returns bytes a file does not hold from collective reads whose ranks overlap (its
# read data sieving: tests/mpi_read_overlap.c); fuzz_h5 counts those reads as the stack's. With the
# sieving off, not one read may be wrong: the attribution, proven on every run
h5fuzz "openmpi/ompio -n 3, read data sieving off, every read exact" "$FUZZ_SEED" 100 env OMPI_MCA_fbtl_posix_read_datasieving=0 $OMPI -x OMPI_MCA_fbtl_posix_read_datasieving -n 3 build/openmpi/fuzz_h5 --strict-reads 1
h5fuzz "mpich -n 2" "$FUZZ_SEED" 30 $MPICH -n 2 build/mpich/fuzz_h5
# seed 20782's case 739: HDF5 1.10.8 builds a union of overlapping boxes with a block past the extent on
# one rank; it hung the tester (HDF5's call failed on that rank alone) until every rank asked HDF5 first
suite "openmpi/ompio -n 3 fuzz_h5 seed 20782 case 739 (HDF5's broken union)" 120 $OMPI -n 3 build/openmpi/fuzz_h5 --seed 20782 --first 739 --cases 740 --out build/fuzz-h5
# seed 1795596782's case 3060: HDF5's chunk mapping fails on one rank ("can't insert duplicate key")
suite "openmpi/ompio -n 3 fuzz_h5 seed 1795596782 case 3060 (HDF5's chunk mapping)" 120 $OMPI -n 3 build/openmpi/fuzz_h5 --seed 1795596782 --first 3060 --cases 3061 --out build/fuzz-h5
# the bridge's named cases: the index reader on every index type against the file's bytes, and faults
mkdir -p build/h5accel
suite "openmpi/ompio test_h5accel -n 3" 300 $OMPI -n 3 build/openmpi/test_h5accel build/h5accel
for p in 1 2 4 8 16; do suite "openmpi/ompio test_h5accel -n $p" 300 $OMPI -n $p build/openmpi/test_h5accel build/h5accel; done
suite "openmpi/romio test_h5accel -n 3" 300 env OMPI_MCA_io=romio321 $OMPI -x OMPI_MCA_io -n 3 build/openmpi/test_h5accel build/h5accel
suite "mpich test_h5accel -n 2" 300 $MPICH -n 2 build/mpich/test_h5accel build/h5accel
# every chunk's address, stored size and filter mask as colldiag reads them from the index, against HDF5's
suite "openmpi/ompio test_h5_records -n 2 (every index type, filtered)" 120 $OMPI -n 2 build/openmpi/test_h5_records "${TMPDIR:-/tmp}/h5rec-o"
suite "mpich test_h5_records -n 2 (every index type, filtered)" 120 $MPICH -n 2 build/mpich/test_h5_records "${TMPDIR:-/tmp}/h5rec-m"
suite "openmpi/romio test_h5_records -n 3 (filtered reads through colldiag on ROMIO)" 120 env OMPI_MCA_io=romio321 $OMPI -n 3 build/openmpi/test_h5_records "${TMPDIR:-/tmp}/h5rec-r"
# random filtered datasets (filters, fill values, filter masks, unwritten chunks) read collectively through
# colldiag against HDF5's independent read and the tester's own image (tests/fuzz_filtered.c)
ffuzz() { # label, cases, command...
    local label=$1 n=$2; shift 2
    suite "$label fuzz_filtered $n cases, seed $FUZZ_SEED" 300 bash -c 'mkdir -p build/fuzz-filt && "$@" --seed '"$FUZZ_SEED"' --cases '"$n"' --out build/fuzz-filt | tee /dev/stderr | grep "every byte equal" >/dev/null' _ "$@"
}
ffuzz "openmpi/ompio -n 3" 300 $OMPI -n 3 build/openmpi/fuzz_filtered
ffuzz "openmpi/ompio -n 1" 100 $OMPI -n 1 build/openmpi/fuzz_filtered
ffuzz "openmpi/romio -n 4, zlib's inflate" 200 env OMPI_MCA_io=romio321 COLLDIAG_INFLATE=zlib $OMPI -x OMPI_MCA_io -x COLLDIAG_INFLATE -n 4 build/openmpi/fuzz_filtered
ffuzz "mpich -n 2" 60 $MPICH -n 2 build/mpich/fuzz_filtered
# compressed data read by an unmodified program under the preload: same output, each chunk decoded once
suite "openmpi/ompio preload: compressed reads (deflate, shuffle, Fletcher-32), 3 ranks" 120 tests/test_filtered_preload.sh build/openmpi "$OMPI" 3
suite "openmpi/romio preload: compressed reads, 4 ranks, zlib's inflate (COLLDIAG_INFLATE=zlib)" 120 env OMPI_MCA_io=romio321 COLLDIAG_INFLATE=zlib tests/test_filtered_preload.sh build/openmpi "$OMPI" 4
suite "mpich preload: compressed reads, 2 ranks" 120 tests/test_filtered_preload.sh build/mpich "$MPICH" 2
# the Fortran module (colldiag.f90): every scheme's bytes, modes and chunk info, 0-based Fortran-order
# coordinates, one bad rank; and rfc_modes.f90 prints rfc_modes.c's lines (timings aside) and writes its bytes
mkdir -p build/fortran
suite "openmpi/ompio test_fortran -n 3" 120 $OMPI -n 3 build/openmpi/test_fortran build/fortran/ompio.bin
suite "openmpi/romio test_fortran -n 3" 120 env OMPI_MCA_io=romio321 $OMPI -x OMPI_MCA_io -n 3 build/openmpi/test_fortran build/fortran/romio.bin
suite "mpich test_fortran -n 3" 120 $MPICH -n 3 build/mpich/test_fortran build/fortran/mpich.bin
same_lines() { # launcher dir: the C and Fortran examples, their output without the timing column, their files
    local run=$1 d=$2
    $run -n 3 "$d/rfc_modes" build/fortran/c.bin | sed -E 's|[0-9.]+/[0-9.]+$||' >build/fortran/c.out &&
    $run -n 3 "$d/rfc_modes_f90" build/fortran/f.bin | sed -E 's|[0-9.]+/[0-9.]+$||' >build/fortran/f.out &&
    [ "$(wc -l <build/fortran/c.out)" -gt 20 ] && diff build/fortran/c.out build/fortran/f.out && cmp build/fortran/c.bin build/fortran/f.bin
}
export -f same_lines
suite "openmpi rfc_modes.f90 prints rfc_modes.c's lines" 120 bash -c 'same_lines "$1" "$2"' _ "$OMPI" build/openmpi
suite "mpich rfc_modes.f90 prints rfc_modes.c's lines" 120 bash -c 'same_lines "$1" "$2"' _ "$MPICH" build/mpich
# the README's excerpt is lines of examples/minimal.c, in their order, and the program runs collectively
readme_example() { # launcher
    awk '/^```c$/{on=1; next} /^```$/{if (on) exit} on' README.md >build/readme_example.c &&
    { [ "$(wc -l <build/readme_example.c)" -ge 3 ] || { echo "the README has no C excerpt of 3 lines or more"; return 1; }; } &&
    awk 'NR == FNR { want[++n] = $0; next } i < n && $0 == want[i + 1] { i++ }
         END { if (i < n) { print "README line not in examples/minimal.c (in order): " want[i + 1]; exit 1 } }' \
        build/readme_example.c examples/minimal.c &&
    local out rc=0
    out=$($1 -n 3 build/openmpi/minimal build/fortran/minimal.bin 2>&1) || rc=$?
    [ "$(grep -c '^rank [0-2]: CHUNK_COLLECTIVE, causes 0x0/0x0$' <<<"$out")" = 3 ] && [ "$rc" = 0 ] && return 0
    echo "examples/minimal.c under $1 -n 3 exited $rc; its output:"; echo "$out"
    return 1
}
export -f readme_example
suite "README's excerpt is examples/minimal.c's, and it runs collectively" 60 bash -c 'readme_example "$1"' _ "$OMPI"
# examples/timestep.c: 12 variables in one collective data call, read back equal (Open MPI and MPICH)
suite "openmpi timestep example: one collective call for 12 variables" 60 bash -c '"$@" | grep -c "one call: 1 collective data calls; 12 separate calls: 12; read back every value equal" | grep -qx 3' _ $OMPI -n 3 build/openmpi/timestep build/fortran/timestep.bin
suite "mpich timestep example: one collective call for 12 variables" 120 bash -c '"$@" | grep -c "one call: 1 collective data calls; 12 separate calls: 12; read back every value equal" | grep -qx 3' _ $MPICH -n 3 build/mpich/timestep build/fortran/timestep_mpich.bin
suite "openmpi report/json" 300 tests/test_report.sh build/openmpi "$OMPI"
suite "openmpi hdf5 interop + h5dump" 300 tests/test_h5dump.sh build/openmpi "$OMPI"
suite "mpich hdf5 interop + h5dump" 300 tests/test_h5dump.sh build/mpich "$MPICH"
# the preload library on unmodified HDF5 C and h5py programs, checked against HDF5's own answers
H5PY=""
OMPI_COMM_WORLD_SIZE=1 /usr/bin/python3 -c 'import h5py, mpi4py; assert h5py.get_config().mpi' 2>/dev/null && H5PY=h5py
if [ -n "$H5PY" ]; then
    suite "openmpi preload: HDF5 C + h5py clients" 300 tests/test_preload.sh build/openmpi "$OMPI" h5py
else
    echo "skip  h5py client (python3-h5py-mpi not installed: make deps)"
    suite "openmpi preload: HDF5 C client" 300 tests/test_preload.sh build/openmpi "$OMPI"
fi
# (MPICH's preload client runs across 2 nodes, in the section below)
# one page per run: the run's summary equals its per-call lines' sums (C, h5py, netCDF-4; explained and
# accelerated), the summary alone equals the planned run's, one screen, no hang without MPI_Finalize
if [ -n "$H5PY" ]; then
    suite "openmpi preload: the run's summary (C, h5py, netCDF-4)" 300 tests/test_summary.sh build/openmpi "$OMPI" h5py netcdf
else
    suite "openmpi preload: the run's summary (C, netCDF-4)" 300 tests/test_summary.sh build/openmpi "$OMPI" "" netcdf
fi
suite "mpich preload: the run's summary (C)" 300 tests/test_summary.sh build/mpich "$MPICH"
suite "openmpi preload: collective-metadata file, one rank calling alone" 200 tests/test_collmd_explain.sh build/openmpi "$OMPI"
# what HDF5 and MPI-IO get wrong on this stack (plain HDF5, printed), every wrong file predicted by the
# preload's report with no false alarm, and under COLLDIAG_ACCELERATE=1 every hole right (tests/h5_defects.c)
suite "openmpi/ompio HDF5's defects: shown, predicted, prevented (4 ranks)" 300 tests/test_defects.sh build/openmpi "$OMPI" 4 "ompio, "
suite "openmpi/ompio HDF5's defects: shown, predicted, prevented (8 ranks)" 300 tests/test_defects.sh build/openmpi "$OMPI" 8 "ompio, "
suite "openmpi/romio HDF5's defects: shown, predicted, prevented (3 ranks)" 300 env OMPI_MCA_io=romio321 tests/test_defects.sh build/openmpi "$OMPI" 3 "romio, "
suite "openmpi/romio HDF5's defects: shown, predicted, prevented (1 rank)" 300 env OMPI_MCA_io=romio321 tests/test_defects.sh build/openmpi "$OMPI" 1 "romio, "
suite "mpich HDF5's defects: shown, predicted, prevented (3 ranks)" 300 tests/test_defects.sh build/mpich "$MPICH" 3 "mpich, "
# a program linked against HDF5 statically (plain h5pcc): told so under the preload, and explained and
# protected through colldiag's wrappers (make wrap)
suite "openmpi/ompio static HDF5: told under the preload, explained and protected through the wrappers (4 ranks)" 300 tests/test_static.sh build/openmpi "$OMPI" 4 h5pcc.openmpi
suite "mpich static HDF5: told under the preload, explained and protected through the wrappers (2 ranks)" 300 tests/test_static.sh build/mpich "$MPICH" 2 h5pcc.mpich
# never slower than HDF5 on contiguous datasets: an accelerated program makes no more MPI-IO calls than plain HDF5
suite "openmpi/ompio preload: contiguous calls make no more MPI-IO calls than HDF5's" 300 tests/test_contig_calls.sh build/openmpi "$OMPI"
suite "openmpi/romio preload: contiguous calls make no more MPI-IO calls than HDF5's" 300 env OMPI_MCA_io=romio321 tests/test_contig_calls.sh build/openmpi "$OMPI"
suite "mpich preload: contiguous calls make no more MPI-IO calls than HDF5's" 300 tests/test_contig_calls.sh build/mpich "$MPICH"
suite "openmpi preload: a warm heap under COLLDIAG_ACCELERATE, the user's malloc settings kept" 120 tests/test_heap_kept.sh build/openmpi "$OMPI"
suite "mpich preload: a warm heap under COLLDIAG_ACCELERATE, the user's malloc settings kept" 120 tests/test_heap_kept.sh build/mpich "$MPICH" 2
suite "openmpi preload: HDF5's free lists hold no more than plain HDF5's after a close" 120 tests/test_free_lists.sh build/openmpi "$OMPI"
suite "mpich preload: HDF5's free lists hold no more than plain HDF5's after a close" 120 tests/test_free_lists.sh build/mpich "$MPICH" 2
# what COLLDIAG_ACCELERATE=1 leaves to HDF5 among chunked calls: large writes of whole chunks, each rank's own
suite "openmpi/ompio preload: large whole-chunk writes left to HDF5, alike on every rank, 3 ranks" 300 tests/test_as_fast.sh build/openmpi "$OMPI" 3
suite "openmpi/romio preload: large whole-chunk writes left to HDF5, 4 ranks" 300 env OMPI_MCA_io=romio321 tests/test_as_fast.sh build/openmpi "$OMPI" 4
suite "mpich preload: large whole-chunk writes left to HDF5, 2 ranks" 300 tests/test_as_fast.sh build/mpich "$MPICH" 2
suite "openmpi/ompio preload: large whole-chunk writes left to HDF5, 8 and 16 ranks" 300 bash -c "tests/test_as_fast.sh build/openmpi '$OMPI' 8 && tests/test_as_fast.sh build/openmpi '$OMPI' 16"
# the engine of a repeated call measured, not frozen (injected clocks: tests/test_engine.sh)
suite "openmpi/ompio preload: each call's engine measured (injected clock), 3 ranks" 300 tests/test_engine.sh build/openmpi "$OMPI" 3
suite "openmpi/romio preload: each call's engine measured (injected clock), 3 ranks" 300 env OMPI_MCA_io=romio321 tests/test_engine.sh build/openmpi "$OMPI" 3
suite "mpich preload: each call's engine measured (injected clock), 2 ranks" 300 tests/test_engine.sh build/mpich "$MPICH" 2
# reads into memory never touched: populated first where this process's probe says it pays, the same bytes,
# guard bytes and skipped pages untouched, the summary's count equal to the program's pages (tests/test_prefault.sh)
suite "openmpi/ompio preload: reads into untouched memory prefaulted where it pays, 3 ranks" 200 tests/test_prefault.sh build/openmpi "$OMPI" 3
suite "openmpi/romio preload: reads into untouched memory prefaulted where it pays, 2 ranks" 200 env OMPI_MCA_io=romio321 tests/test_prefault.sh build/openmpi "$OMPI" 2
suite "mpich preload: reads into untouched memory prefaulted where it pays, 2 ranks" 200 tests/test_prefault.sh build/mpich "$MPICH" 2
# the kit's colldiag_read the same (src/memory.c): values, guard bytes, pages outside a one-run or gapped
# memory selection untouched, colldiag_get_prefault's bytes against the program's own page count; forced
# on and off, the probe's answer injected either side of 1.25 (test build), and this machine's own probe
for m in "COLLDIAG_PREFAULT=1 on" "COLLDIAG_PREFAULT=0 off" "COLLDIAG_INJECT=prefault:1.2 off" "COLLDIAG_INJECT=prefault:1.3 on" "COLLDIAG_PREFAULT=auto auto"; do
    pv=${m% *}
    suite "openmpi/ompio test_prefault_kit -n 3 $pv" 120 env "$pv" $OMPI -x "${pv%%=*}" -n 3 build/openmpi/test_prefault_kit "${TMPDIR:-/tmp}" "${m##* }"
done
suite "openmpi/romio test_prefault_kit -n 2 COLLDIAG_PREFAULT=1" 120 env COLLDIAG_PREFAULT=1 OMPI_MCA_io=romio321 $OMPI -x OMPI_MCA_io -x COLLDIAG_PREFAULT -n 2 build/openmpi/test_prefault_kit "${TMPDIR:-/tmp}" on
suite "mpich test_prefault_kit -n 2 COLLDIAG_PREFAULT=1" 120 env COLLDIAG_PREFAULT=1 $MPICH -n 2 build/mpich/test_prefault_kit "${TMPDIR:-/tmp}" on
suite "mpich test_prefault_kit -n 2 (this machine's probe)" 120 $MPICH -n 2 build/mpich/test_prefault_kit "${TMPDIR:-/tmp}" auto
# netCDF-C's own parallel test programs (Debian's source of the installed release), plain and accelerated
suite "openmpi preload: netCDF-C's own parallel tests, plain and accelerated" 600 tests/netcdf_c_tests.sh build/openmpi "$OMPI"
# the HTML report, rendered by chromium: the RFC example's page and a 262,144-chunk 3-D call
if command -v chromium >/dev/null 2>&1; then
    suite "openmpi html report in chromium" 600 tests/test_html.sh build/openmpi "$OMPI"
else
    echo "skip  html report in chromium (chromium is not installed: make deps)"
fi
# real jobs run hundreds of ranks: the engine's suites at 8 and 16 ranks (oversubscribed, small sizes);
# every check derives from the geometry, never from 3
for p in 8 16; do
    suite "openmpi/ompio test_io quick -n $p" 600 $OMPI -n $p build/openmpi/test_io quick
    suite "openmpi/ompio test_multi --fuzz, 64 calls -n $p, seed $FUZZ_SEED" 600 $OMPI -n $p build/openmpi/test_multi --fuzz "$FUZZ_SEED" 64 "$MT"
    suite "openmpi/ompio test_multi (fixed cases, errors, 1.14's rules) -n $p" 600 $OMPI -n $p build/openmpi/test_multi "$MT"
    suite "openmpi/ompio test_errors quick -n $p" 600 $OMPI -n $p build/openmpi/test_errors quick
    fuzz_suite "openmpi/ompio -n $p" 200 $OMPI -n $p build/openmpi/fuzz_io
done
# AUTO that measures (src/measure.c), with an injected clock: agreement, convergence, the exploration
# bound, the pure model, wisdom (tests/test_auto.c); 12 and 16 ranks: every rank's choice alike where
# more ranks than cores see different times (3-4 s each here)
for p in 3 4 8 12 16; do suite "openmpi/ompio test_auto -n $p" 300 $OMPI -n $p build/openmpi/test_auto "${TMPDIR:-/tmp}"; done
suite "openmpi/romio test_auto -n 16" 300 env OMPI_MCA_io=romio321 $OMPI -x OMPI_MCA_io -n 16 build/openmpi/test_auto "${TMPDIR:-/tmp}"
suite "openmpi/romio test_auto -n 3" 300 env OMPI_MCA_io=romio321 $OMPI -x OMPI_MCA_io -n 3 build/openmpi/test_auto "${TMPDIR:-/tmp}"
suite "mpich test_auto -n 2" 300 $MPICH -n 2 build/mpich/test_auto "${TMPDIR:-/tmp}"
# fuzz_io's generator once made cases it then called invalid (a NULL buffer on a rank moving nothing):
# seed 2026112703's four, replayed
for c in 1058 54767 63982 137356; do
    suite "openmpi/ompio fuzz_io seed 2026112703 case $c (a generator bug, fixed)" 120 $OMPI -n 4 build/openmpi/fuzz_io --seed 2026112703 --case $c --out build/fuzz-io
done
# Open MPI with ROMIO: the other MPI-IO implementation shipped with Open MPI
export OMPI_MCA_io=romio321
for p in 3 4; do suite "openmpi/romio test_io -n $p" 600 $OMPI -n $p build/openmpi/test_io; done
suite "openmpi/romio test_errors -n 3" 300 $OMPI -n 3 build/openmpi/test_errors
suite "openmpi/romio test_memory -n 3" 300 $OMPI -n 3 build/openmpi/test_memory "${TMPDIR:-/tmp}"
fuzz_suite "openmpi/romio" 500 $OMPI -n 4 build/openmpi/fuzz_io
suite "openmpi/romio test_multi -n 3" 300 $OMPI -n 3 build/openmpi/test_multi "$MT"
suite "openmpi/romio test_multi --fuzz, 300 calls -n 3, seed $FUZZ_SEED" 600 $OMPI -n 3 build/openmpi/test_multi --fuzz "$FUZZ_SEED" 300 "$MT"
scenarios "openmpi/romio" build/openmpi/scenario_run "$OMPI"
unset OMPI_MCA_io
# MPICH: slow when oversubscribed, so a reduced matrix, but every public scenario
# (test_io quick and test_errors quick at 4 ranks run on MPICH across 2 nodes below: the stronger of the
# two suites that check the same, kept inside the time limit)
suite "mpich test_io quick -n 2" 600 $MPICH -n 2 build/mpich/test_io quick
suite "mpich test_multi -n 2" 300 $MPICH -n 2 build/mpich/test_multi "$MT"
suite "mpich test_multi --fuzz, 40 calls -n 3, seed $FUZZ_SEED" 300 $MPICH -n 3 build/mpich/test_multi --fuzz "$FUZZ_SEED" 40 "$MT"
suite "mpich test_memory -n 3 (quick)" 300 $MPICH -n 3 build/mpich/test_memory "${TMPDIR:-/tmp}" quick
fuzz_suite "mpich" 300 $MPICH -n 4 build/mpich/fuzz_io
scenarios "mpich" build/mpich/scenario_run "$MPICH"
# Across simulated nodes (tests/nodes.sh: a network and UTS namespace a node, TCP between them for Open
# MPI): MPI reports N hosts, ROMIO elects an aggregator a host (cb_nodes = N), and the suites that check
# bytes and every rank's answer run again with ranks on different hosts, at 2 x 2 and 4 x 2. Where
# nodes.sh cannot run (not root, no veth), these suites fail with its reason: never a silent skip.
# MPICH is slow oversubscribed (test_io quick takes 339 s and test_errors quick 163 s at 4 x 2), so at
# 4 x 2 it runs the random suites alone; the named cases run there on both Open MPI layers.
across() { # label, nodes.sh options (N K --mpi M), build directory, wrapper, suites (io multi errors fuzz h5 offnode), scale in %
    local label=$1 shape=$2 b=$3 wrap=$4 which=$5 pc=$6
    local L="$wrap tests/nodes.sh $shape --"
    local nm=$((64 * pc / 100)) nf=$((200 * pc / 100)) nh=$((40 * pc / 100))
    case " $which " in *" io "*) suite "$label test_io quick" 600 $L $b/test_io quick ;; esac
    case " $which " in *" multi "*) suite "$label test_multi --fuzz, $nm calls, seed $FUZZ_SEED" 600 $L $b/test_multi --fuzz "$FUZZ_SEED" $nm "$MT" ;; esac
    case " $which " in *" errors "*) suite "$label test_errors quick" 600 $L $b/test_errors quick ;; esac
    case " $which " in *" fuzz "*) suite "$label fuzz_io $nf cases, seed $FUZZ_SEED" 600 bash -c 'mkdir -p build/fuzz-io && "$@" --seed '"$FUZZ_SEED"' --cases '"$nf"' --out build/fuzz-io' _ $L $b/fuzz_io ;; esac
    case " $which " in *" offnode "*) suite "$label bytes crossing nodes, counted by the test (test_offnode)" 300 $L $b/test_offnode "${TMPDIR:-/tmp}" "${shape%% *}" ;; esac
    case " $which " in *" h5 "*) suite "$label fuzz_h5 $nh cases, seed $FUZZ_SEED" 600 bash -c 'mkdir -p build/fuzz-h5 && "$@" --seed '"$FUZZ_SEED"' --cases '"$nh"' --out build/fuzz-h5 | tee /dev/stderr | grep "every byte equal" >/dev/null' _ $L $b/fuzz_h5 ;; esac
}
scn_across() { # label, runner, nodes.sh options (N K [--mpi M]), wrapper, rank counts: the scenarios of those rank counts
    local label=$1 runner=$2 shape=$3 wrap=$4 counts=$5
    local n f d group
    for n in $counts; do # one launch a rank count; a scenario that sets the environment alone (HDF5 reads it once)
        group=""
        for d in $SCN_DIRS; do
            for f in "$d"/*.scn; do
                [ -e "$f" ] && [ "$(awk '$1=="ranks"{print $2}' "$f")" = "$n" ] || continue
                if grep -q '^env ' "$f"; then
                    suite "$label scenario $(basename "$f")" 120 $wrap tests/nodes.sh $shape -- -n "$n" "$runner" $HDF5_FLAG "$f"
                else
                    group="$group $f"
                fi
            done
        done
        [ -n "$group" ] && suite "$label the $(wc -w <<<"$group") scenarios of $n ranks" 600 $wrap tests/nodes.sh $shape -- -n "$n" "$runner" $HDF5_FLAG $group
    done
}
suite "tests/nodes.sh itself (Open MPI): N hosts, shared splits, ROMIO's cb_nodes, environment, exit status, a shaped link, a timeout, no leftovers" 300 tests/test_nodes.sh openmpi
suite "tests/nodes.sh itself (MPICH)" 300 tests/test_nodes.sh mpich
for shape in "2 2" "4 2"; do
    across "openmpi/ompio ${shape/ /x} nodes:" "$shape --mpi openmpi" build/openmpi "" "io multi errors fuzz h5 offnode" 100
    across "openmpi/romio ${shape/ /x} nodes:" "$shape --mpi openmpi" build/openmpi "env OMPI_MCA_io=romio321" "io multi errors fuzz h5 offnode" 100
done
across "mpich 2x2 nodes:" "2 2 --mpi mpich" build/mpich "$PWD/tests/mpich_run.sh" "io multi errors fuzz h5 offnode" 25
across "mpich 4x2 nodes:" "4 2 --mpi mpich" build/mpich "$PWD/tests/mpich_run.sh" "multi fuzz h5" 10
# AUTO's rules across nodes, the link shaped to 200 Mbit/s (where the probed link is slow and the model's
# estimates differ most from one host's): test builds probe nothing while COLLDIAG_INJECT injects, so
# every case compares estimates against one link (these failed 12 checks before that rule)
suite "openmpi/ompio 2x2 nodes at 200 Mbit/s: test_auto" 300 tests/nodes.sh 2 2 --rate 200mbit --mpi openmpi -- build/openmpi/test_auto "${TMPDIR:-/tmp}"
suite "openmpi/romio 4x1 nodes at 200 Mbit/s: test_auto" 300 env OMPI_MCA_io=romio321 tests/nodes.sh 4 1 --rate 200mbit --mpi openmpi -- build/openmpi/test_auto "${TMPDIR:-/tmp}"
suite "mpich 2x2 nodes: test_auto" 300 tests/mpich_run.sh tests/nodes.sh 2 2 --mpi mpich -- build/mpich/test_auto "${TMPDIR:-/tmp}"
# every scenario of 2 to 4 ranks on 2 nodes (2 ranks a node), those of 4 ranks on 4 nodes (one a node)
scn_across "openmpi/ompio 2 nodes:" build/openmpi/scenario_run "2 2 --mpi openmpi" "" "2 3 4"
scn_across "openmpi/ompio 4 nodes:" build/openmpi/scenario_run "4 1 --mpi openmpi" "" "4"
scn_across "openmpi/romio 2 nodes:" build/openmpi/scenario_run "2 2 --mpi openmpi" "env OMPI_MCA_io=romio321" "2 3 4"
scn_across "openmpi/romio 4 nodes:" build/openmpi/scenario_run "4 1 --mpi openmpi" "env OMPI_MCA_io=romio321" "4"
scn_across "mpich 2 nodes:" build/mpich/scenario_run "2 2 --mpi mpich" "$PWD/tests/mpich_run.sh" "2 3 4"
# the preload on unmodified HDF5 C, h5py and netCDF-4 programs, its answers against HDF5's own (3 ranks:
# two on node0, one on node1; at 4 nodes one a node)
suite "openmpi/ompio 2 nodes: preload clients (HDF5 C, netCDF-4${H5PY:+, h5py})" 600 tests/test_preload.sh build/openmpi "$PWD/tests/nodes.sh 2 2 --mpi openmpi --" $H5PY
suite "openmpi/romio 4 nodes: preload clients (HDF5 C, netCDF-4${H5PY:+, h5py})" 600 env OMPI_MCA_io=romio321 tests/test_preload.sh build/openmpi "$PWD/tests/nodes.sh 4 1 --mpi openmpi --" $H5PY
suite "mpich 2 nodes: preload client (HDF5 C)" 600 tests/test_preload.sh build/mpich "$PWD/tests/mpich_run.sh $PWD/tests/nodes.sh 2 2 --mpi mpich --"
# AddressSanitizer + UBSan (clang) and valgrind over the suites, and a bounded fuzzing run
suite "asan+ubsan (clang)" 900 make -s -j"${JOBS:-1}" check-asan
suite "asan+ubsan (clang, mpich)" 600 make -s -j"${JOBS:-1}" check-asan-mpich
suite "valgrind" 900 make -s check-valgrind
suite "fuzz ${FUZZ_SECONDS:-60} s" 300 make -s fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-60}
# the benchmark runs (tiny sizes, once): it is not a timed test
# make calibrate (quick sizes): every constant of AUTO's model printed as a positive number, and
# colldiag accepts the printed environment (a plan with AUTO under it succeeds)
suite "calibrate (quick) and its constants accepted" 300 tests/calibrate_check.sh build/openmpi "$OMPI" "${TMPDIR:-/tmp}"
# make bench-ranks at 2 and 4 ranks, then 64 across 8 simulated nodes (root: CI is): it runs and prints a
# row per scheme (not a timed test)
suite "bench-ranks (2, 4 ranks; 64 across 8 nodes)" 300 bash -c "out=\$(make -s bench-ranks RANKS_LIST='2 4' BENCH_DIR=\"\${TMPDIR:-/tmp}\") && echo \"\$out\" && [ \$(grep -cE '^[0-9]+ +(link|multi|aggregate) ' <<<\"\$out\") = 9 ] && [ \$(grep -c '^64 .*across 8 simulated nodes' <<<\"\$out\") = 3 ]"
# make bench-virtual at 64 virtual ranks: colldiag's own code for every rank in one process, every
# collective answered as 64 ranks would; it stops on ranks that disagree (a hang in a real run). It runs
# and prints a row per pattern and scheme (not a timed test)
suite "bench-virtual (64 virtual ranks)" 300 bash -c "out=\$(build/openmpi/virtual 64) && echo \"\$out\" && [ \$(grep -cE '^B[1-4] +[a-z>-]+ +64 ' <<<\"\$out\") = 16 ]"
# B6 (many small variables written once, plain and accelerated, both metadata modes): it runs, and every
# variant's every element reads back right (its exit status); its timings are the benchmark's business
suite "bench-manyvars (20 variables, once)" 300 $OMPI -n 3 build/openmpi/bench-manyvars "${TMPDIR:-/tmp}" 1 20
suite "bench with HDF5 columns (tiny)" 300 bash -c "cd \"\${TMPDIR:-/tmp}\" && out=\$($OMPI -n 3 \"$PWD/build/openmpi/bench-hdf5\" tiny 1) && echo \"\$out\" && grep -q 'h5 multi' <<<\"\$out\""
# the examples (the demo) must run
suite "openmpi demo" 300 make -s demo-run MPI=openmpi
suite "mpich demo" 300 make -s demo-run MPI=mpich

echo
[ "$failed" -gt 0 ] && printf "failed suites:$failed_names\n"
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
