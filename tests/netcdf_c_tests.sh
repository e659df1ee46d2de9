#!/usr/bin/env bash
# netCDF-C's own parallel test programs (nc_test4's run_par_test list, from Debian's source of the
# netCDF-C release the installed libnetcdf-mpi is built from), run unmodified under the preload plain
# and with COLLDIAG_ACCELERATE=1, as the acceptance of "cure, not only diagnosis" runs them. Each
# program checks its own data; for each run the exit status and the test's verdict lines must be the
# same both ways, every file it leaves must hold the same (tests/h5_same.py: objects, attributes and
# every dataset's bytes; where HDF5 leaves unwritten storage undefined, NC_NOFILL variables and
# netCDF's dimension scales, two plain runs differ too, and such a dataset is named, not failed),
# and the accelerated runs must move calls through colldiag. Nothing of netCDF-C is kept in this tree:
# the source is fetched from the Debian mirror (a private apt state under build/, /etc untouched)
# into build/netcdf-c, or taken from NETCDF_C_SRC (an unpacked netcdf-c-4.9.x directory).
#   tests/netcdf_c_tests.sh BUILD_DIR "LAUNCHER"        (Open MPI: libnetcdf-mpi is built with it)
set -u
B=$1 RUN=$2
TOP=$PWD
LIB=$TOP/$B/libcolldiag_preload.so
W=${NETCDF_C_WORK:-build/netcdf-c}   # the source and programs, per system (tests/check_hdf5.sh gives its own)
case "$W" in /*) ;; *) W=$TOP/$W ;; esac
mkdir -p "$W"
NCI=/usr/lib/x86_64-linux-gnu/netcdf/mpi/include
[ -f "$NCI/netcdf_par.h" ] || { echo "no libnetcdf-mpi-dev headers in $NCI (make deps)"; exit 1; }

# 1. the source: NETCDF_C_SRC, an earlier fetch, or Debian's source package of netCDF-C 4.9.0
SRC=${NETCDF_C_SRC:-}
if [ -z "$SRC" ]; then
    SRC=$(ls -d "$W"/src/netcdf-c-4.9.* 2>/dev/null | head -1)
fi
if [ -z "$SRC" ]; then
    mkdir -p "$W/apt/lists/partial" "$W/src"
    # the machine's own mirrors, as deb-src (deb822 .sources and one-line .list files)
    {
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" && echo
        done
    } > "$W/apt/src.sources"
    {
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
            [ -f "$f" ] && sed -n 's/^deb \(.*debian.*\)/deb-src \1/p' "$f"
        done
    } > "$W/apt/src.list"
    APT="-o Dir::Etc::SourceList=$W/apt/src.list -o Dir::Etc::SourceParts=$W/apt/parts -o Dir::State::Lists=$W/apt/lists"
    mkdir -p "$W/apt/parts"
    cp "$W/apt/src.sources" "$W/apt/parts/src.sources"
    (cd "$W/src" && apt-get -qq $APT update >/dev/null 2>&1 &&
        apt-get -qq $APT source --download-only netcdf >/dev/null 2>&1)
    tgz=$(ls "$W"/src/netcdf_4.9.*.orig.tar.gz 2>/dev/null | head -1)
    [ -n "$tgz" ] || { echo "cannot fetch Debian's netcdf source package (no deb-src on the mirror?)"; exit 1; }
    tar -C "$W/src" -xzf "$tgz"
    SRC=$(ls -d "$W"/src/netcdf-c-4.9.* | head -1)
fi
echo "netCDF-C source: $SRC"

# 2. build: the programs include netCDF's test headers, which want a config.h (this one is ours)
mkdir -p "$W/bin"
cat > "$W/bin/config.h" <<'EOF'
/* what netCDF-C's nc_tests.h and err_macros.h need of a configured tree (Debian's build defaults) */
#include <stdint.h>
#define TEMP_LARGE "."
#define USE_PARALLEL 1
#define USE_NETCDF4 1
#define USE_HDF5 1
#define HAVE_STDINT_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_SSIZE_T 1
#define HDF5_SUPPORTS_PAR_FILTERS 1
#define CHUNK_CACHE_SIZE 16777216
#define CHUNK_CACHE_NELEMS 4133
#define CHUNK_CACHE_PREEMPTION 0.75
EOF
# nc_test4/run_par_test.sh's programs and rank counts (tst_parallel3 at 4 and 8, not 16; tst_parallel4 to 4)
RUNS=${NETCDF_C_RUNS:-"tst_mode:1 tst_mpi_parallel:4 tst_parallel:4 tst_parallel3:4 tst_parallel3:8 tst_parallel4:1 tst_parallel4:2
      tst_parallel4:4 tst_parallel5:4 tst_nc4perf:4 tst_simplerw_coll_r:1 tst_simplerw_coll_r:2 tst_simplerw_coll_r:4
      tst_parallel_zlib:4 tst_parallel_compress:1 tst_parallel_compress:4 tst_quantize_par:4 tst_parallel6:4"}
fail=0
for t in $(for r in $RUNS; do echo "${r%:*}"; done | sort -u); do
    [ -x "$W/bin/$t" ] && [ "$W/bin/$t" -nt "$SRC/nc_test4/$t.c" ] && continue
    if ! mpicc.openmpi -O1 -w -I"$W/bin" -I"$NCI" -I"$SRC/include" "$SRC/nc_test4/$t.c" -o "$W/bin/$t" -lnetcdf_mpi -lm 2>"$W/bin/$t.err"; then
        echo "FAIL cannot build $t:"; head -5 "$W/bin/$t.err"; fail=1
    fi
done
[ $fail = 0 ] || exit 1

# 3. run each program plain and accelerated
T=$(mktemp -d "${TMPDIR:-/tmp}/colldiag_ncc.XXXXXX")
trap 'rm -rf "$T"' EXIT
case "$RUN" in *openmpi*) PASS="-x LD_PRELOAD -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT ${OMPI_MCA_io:+-x OMPI_MCA_io}" ;; *) PASS="" ;; esac
one() { # program, ranks, 0|all (COLLDIAG_ACCELERATE: all moves contiguous calls through colldiag too), directory
    mkdir -p "$4"
    (cd "$4" && COLLDIAG_ACCELERATE=$3 COLLDIAG_REPORT=json:$4/calls.jsonl LD_PRELOAD=$LIB \
        timeout 300 $RUN -n "$2" $PASS "$W/bin/$1" >out.txt 2>&1; echo $? >rc)
    # the test's verdict lines (its timing lines differ run to run)
    grep -a '\*\*\*\|Sorry\|[Ff]ail' "$4/out.txt" | grep -av 'time\|[0-9]\.[0-9]' >"$4/verdict" || true
}
moved=0
for r in $RUNS; do
    t=${r%:*} n=${r#*:} p=$T/$t.$n.plain a=$T/$t.$n.accel
    one "$t" "$n" 0 "$p"
    one "$t" "$n" all "$a"
    bad=""
    cmp -s "$p/rc" "$a/rc" || bad="$bad exit $(cat "$p/rc") plain, $(cat "$a/rc") accelerated;"
    [ "$(cat "$p/rc")" = 0 ] || bad="$bad exit $(cat "$p/rc") plain;"
    cmp -s "$p/verdict" "$a/verdict" || bad="$bad its verdict lines differ;"
    undefined=""
    for g in "$p"/*.nc "$p"/*.h5; do
        [ -f "$g" ] || continue
        f=$(basename "$g")
        [ -f "$a/$f" ] || { bad="$bad no $f accelerated;"; continue; }
        if ! /usr/bin/python3 "$TOP/tests/h5_same.py" "$g" "$a/$f" >"$T/same.out" 2>&1; then
            bad="$bad $f: $(tr '\n' ' ' <"$T/same.out");"
        elif [ -s "$T/same.out" ]; then undefined="$undefined $f:$(sed 's/.*: //' "$T/same.out")"; fi
    done
    c=$(grep -c '"engine":"colldiag"' "$a/calls.jsonl" 2>/dev/null) || c=0
    h=$(grep -c '"engine":"hdf5"' "$a/calls.jsonl" 2>/dev/null) || h=0
    moved=$((moved + c))
    nd=$(ls "$p"/*.nc "$p"/*.h5 2>/dev/null | wc -l)
    echo "$t -n $n: exit $(cat "$a/rc"), $c calls moved by colldiag, $h by HDF5, $nd files compared${undefined:+ (undefined storage differs in$undefined)}"
    if [ -n "$bad" ]; then echo "FAIL $t -n $n:$bad"; diff "$p/verdict" "$a/verdict" | head -10; fail=1; fi
done
# most of these programs' collective chunked/contiguous calls are small first calls left to HDF5 by
# design; the rest (tst_parallel4, tst_simplerw_coll_r, tst_nc4perf) must move through colldiag
[ "$moved" -ge 1000 ] || { echo "FAIL only $moved calls moved by colldiag"; fail=1; }
echo "netCDF-C's parallel tests: $moved calls moved by colldiag; $([ $fail = 0 ] && echo "every run the same both ways" || echo FAILED)"
exit $fail
