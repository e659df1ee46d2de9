# colldiag — plain GNU make.
#   make deps demo    install what is missing (Debian, apt-get), build, run the examples with 3 ranks
#   make deps check   install what is missing and run the whole test suite (Open MPI + ROMIO + MPICH)
#   make              build the kit's tests and examples for $(MPI)
#   make clean
# MPI=openmpi|mpich picks the explicitly named wrapper/launcher pair: a mismatched pair silently runs
# N singletons. MPICC/MPIRUN override both for any other MPI installation.

MPI ?= openmpi
ifeq ($(MPI),mpich)
MPICC ?= mpicc.mpich
MPIFC ?= mpif90.mpich
MPIRUN ?= mpirun.mpich
else
MPICC ?= mpicc.openmpi
MPIFC ?= mpif90.openmpi
MPIRUN ?= mpirun.openmpi
endif
# Open MPI refuses root and more ranks than cores unless told; harmless for other MPIs.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
ifneq (,$(findstring openmpi,$(MPIRUN)))
MPIRUN_FLAGS ?= --oversubscribe
endif
RUN = $(MPIRUN) $(MPIRUN_FLAGS)

CFLAGS ?= -O2 -g
WARN = -std=c11 -Wall -Wextra
B = build/$(MPI)
# The public scenarios (the contract's own files, copied; .ci/run checks they match the originals).
SCN_PUBLIC ?= tests/scenarios/public
# Parallel HDF5 for the bridge, the oracle and the interop example (Debian: hdf5-openmpi / hdf5-mpich).
H5PC = hdf5-$(if $(findstring mpich,$(MPI)),mpich,openmpi)
H5CFLAGS = -DCOLLDIAG_WITH_HDF5 $(shell pkg-config --cflags $(H5PC) 2>/dev/null)
H5LIBS = $(shell pkg-config --libs $(H5PC) 2>/dev/null)
TESTS = $(B)/test_auto $(B)/test_prefault_kit $(B)/bench-fresh $(B)/test_read_guard $(B)/bench-auto $(B)/test_multi $(B)/test_untouched $(B)/test_offnode $(B)/test_model_runs $(B)/heap $(B)/bench-timestep $(B)/scenario_run $(B)/scenario_run_rounds $(B)/fuzz_io $(B)/fuzz_io_rounds $(B)/mpi_negative_stride $(B)/mpi_valgrind_baseline $(B)/mpi_read_overlap $(B)/mpich_flat_view_repro $(B)/nodes_probe $(B)/test_io $(B)/test_io_rounds $(B)/test_errors $(B)/test_report $(B)/test_large $(B)/test_memory $(B)/bench $(B)/bench-hdf5 $(B)/bench-bridge $(B)/bench-manyvars $(B)/calibrate $(B)/ranks $(B)/virtual
EXAMPLES = $(B)/minimal $(B)/timestep $(B)/rfc_modes $(B)/posix_cause $(B)/hdf5_interop $(B)/libcolldiag_preload.so $(B)/h5_client $(B)/h5_subcomm $(B)/h5_filtered $(B)/h5_direct_chunk $(B)/h5_collmd_client $(B)/html_large $(B)/test_h5plan $(B)/test_h5accel $(B)/test_h5_records $(B)/fuzz_filtered $(B)/fuzz_h5 $(B)/h5_defects \
           $(B)/patterns $(B)/libpmpi_file_calls.so $(B)/heap_kept $(B)/libcolldiag_wrap.a $(B)/colldiag-wrap.flags $(B)/h5_engine $(B)/h5_prefault $(B)/h5_free_lists $(B)/libcolldiag_preload_test.so
ifeq ($(MPI),mpich)
EXAMPLES += $(B)/libmpich_yield.so
endif

# Debian 12 packages the build, the tests and the demo need.
DEB_PKGS = make gcc gfortran libopenmpi-dev openmpi-bin libhdf5-openmpi-dev libmpich-dev mpich libhdf5-mpich-dev hdf5-tools jq libdeflate0 \
           clang libclang-rt-14-dev valgrind python3-h5py-mpi python3-mpi4py libnetcdf-mpi-dev chromium

.PHONY: bench-fresh bench-filtered bench-filtered-write wrap bench-auto bench-nodes bench-virtual bench-summary bench-heap bench-field bench-patterns bench-readme deps-hdf5-1.14 check-hdf5-1.14 preload all check check-netcdf-c demo demo-run deps clean check-asan check-asan-mpich check-valgrind fuzz fuzz-io fuzz-h5 bench bench-timestep bench-manyvars bench-hdf5 bench-bridge bench-ranks calibrate

.DEFAULT_GOAL := all

# colldiag.c is generated from the parts in src/ (src/parts lists them in data-flow order) and tracked:
# users copy it. Edit the parts; make writes colldiag.c again when one changes, and the suite fails when
# the tracked file is not what the parts generate (tests/check.sh).
PARTS := $(addprefix src/,$(shell awk '!/^#/ && NF {print $$1}' src/parts))
colldiag.c: src/parts src/amalgamate.sh $(PARTS)
	src/amalgamate.sh src >$@.tmp && mv $@.tmp $@

$(B)/colldiag.o: colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -c colldiag.c -o $@

$(B)/pmpi_count.o: tests/pmpi_count.c tests/pmpi_count.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -Itests -c tests/pmpi_count.c -o $@

# The core needs only MPI and libc; the HDF5 bridge is a second object of the same source.
$(B)/colldiag_h5.o: colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -c colldiag.c -o $@

$(B)/scenario_run: tests/scenario_run.c $(B)/colldiag_h5.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< $(B)/colldiag_h5.o $(H5LIBS) -o $@

# colldiag_h5_chunk_records against H5Dget_chunk_info_by_coord, every chunk of every index type, filtered
# too (tests/check.sh, check_hdf5.sh)
$(B)/test_h5_records: tests/test_h5_records.c $(B)/colldiag_h5.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< $(B)/colldiag_h5.o $(H5LIBS) -o $@
# collective reads of filtered chunks through colldiag against HDF5 and the tester's own image, random
# datasets, filters, fill values and selections (tests/check.sh, check_hdf5.sh)
$(B)/fuzz_filtered: tests/fuzz_filtered.c tests/h5_selcheck.h $(B)/colldiag_h5.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< $(B)/colldiag_h5.o $(H5LIBS) -o $@

# The differential tester (tests/fuzz_io.c includes scenario_run.c), and both against a kit whose
# collective calls move at most 24 bytes per rank: every call splits into rounds inside chunks (and
# fuzz_io_rounds' descriptions of runs flush into MPI types every 2 items, CD_STREAM_FLUSH_MIN).
$(B)/fuzz_io: tests/fuzz_io.c tests/scenario_run.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. -Itests $< $(B)/colldiag.o -o $@
$(B)/fuzz_io_rounds: tests/fuzz_io.c tests/scenario_run.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -DCOLLDIAG_COLL_MAX_BYTES=24 -DCD_STREAM_FLUSH_MIN=2 -I. -Itests $< colldiag.c -o $@
$(B)/scenario_run_rounds: tests/scenario_run.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -DCOLLDIAG_COLL_MAX_BYTES=24 -I. $< colldiag.c -o $@
# MPI's own behaviour behind issue 12, shown without colldiag (informational, not a test); and what MPI
# sees of the simulated nodes (tests/nodes.sh, tests/test_nodes.sh)
$(B)/mpi_negative_stride $(B)/mpi_valgrind_baseline $(B)/mpi_read_overlap $(B)/nodes_probe: $(B)/%: tests/%.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $< -o $@

# A file view MPICH 4.1-4.2's ROMIO aborts on (HDF5 1.14's), through the tests' workaround
# (tools/mpich_flat_views.h): every byte where the view puts it, on every MPI (tests/check.sh, check_hdf5.sh)
$(B)/mpich_flat_view_repro: tests/mpich_flat_view_repro.c tools/mpich_flat_views.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -DWITH_FLAT_VIEWS $< -o $@

# make fuzz-io [SECONDS=N | CASES=N] [SEED=S]: the differential tester on every MPI-IO layer of $(MPI)
# (Open MPI: ompio, ompio with 24-byte rounds, ROMIO); failing cases land shrunk in build/fuzz-io/.
SEED ?=
SECONDS ?=
CASES ?= 2000
# make fuzz-h5 [SECONDS=N | CASES=N] [SEED=S] [NP=3] [SHRINK=1]: colldiag_h5_write/read against HDF5
# (tests/fuzz_h5.c); SHRINK=1 also shrinks datasets, where HDF5 1.10.8 itself sometimes hangs
fuzz-h5: $(B)/fuzz_h5
	mkdir -p build/fuzz-h5 && $(RUN) -n $(or $(NP),3) $(B)/fuzz_h5 --seed $(or $(SEED),$(shell date +%s)) $(if $(SECONDS),--seconds $(SECONDS),--cases $(or $(CASES),1000)) $(if $(SHRINK),--shrink $(SHRINK)) --out build/fuzz-h5

fuzz-io: $(B)/fuzz_io $(B)/fuzz_io_rounds
	tests/fuzz_io.sh $(MPI) "$(if $(SECONDS),--seconds $(SECONDS),--cases $(CASES))" "$(SEED)"

$(B)/hdf5_interop: examples/hdf5_interop.c $(B)/colldiag_h5.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< $(B)/colldiag_h5.o $(H5LIBS) -o $@

# make preload: the LD_PRELOAD library that explains an unmodified program's H5Dwrite/H5Dread
# (tools/colldiag-preload.c: usage there and in docs/hdf5.md).
preload: $(B)/libcolldiag_preload.so
# -ftls-model=initial-exec: the library is loaded at start-up (LD_PRELOAD), so its thread-locals (the
# error buffer, the environment's snapshot) can live in the static TLS block, read without a call to
# __tls_get_addr: the general-dynamic model a shared library gets by default called it at every entry
# and exit of a wrapped call, about a tenth of what the preload adds to a 1 MiB read from the page cache
# (perf, a file a rank). A program that dlopen()s the library instead needs room in glibc's static TLS
# surplus (about 1.2 KB here).
$(B)/libcolldiag_preload.so: tools/colldiag-preload.c tools/mpich_flat_views.h colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -fPIC -ftls-model=initial-exec -shared -I. $< $(H5LIBS) -ldl -o $@
# make wrap: the link-time route for a program linked against HDF5 statically (plain h5pcc: libhdf5.a),
# whose calls the preload cannot see: the same wrappers as an archive (-DCOLLDIAG_WRAP) and the flags to
# link it with, one -Wl,--wrap= a wrapped function (every CD_WRAP(NAME) of tools/colldiag-preload.c):
#   h5pcc.openmpi -o app app.c $$(cat build/openmpi/colldiag-wrap.flags)
comma := ,
WRAPPED = $(sort $(shell sed -n 's/.*CD_WRAP.\(H5[A-Za-z0-9_]*\).*/\1/p; s/^FORWARD.[a-z_]*, \(H5[A-Za-z0-9_]*\),.*/\1/p' tools/colldiag-preload.c))
wrap: $(B)/libcolldiag_wrap.a $(B)/colldiag-wrap.flags
$(B)/colldiag_wrap.o: tools/colldiag-preload.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -DCOLLDIAG_WRAP -I. -c $< -o $@
$(B)/libcolldiag_wrap.a: $(B)/colldiag_wrap.o
	rm -f $@ && ar rcs $@ $<
$(B)/colldiag-wrap.flags: tools/colldiag-preload.c Makefile | $(B)
	echo "-Wl,$(subst $(eval) ,$(comma),$(addprefix --wrap=,$(WRAPPED))) $(abspath $(B)/libcolldiag_wrap.a) -ldl" >$@

# plain HDF5 and netCDF-4 programs (no colldiag) the preload library is tested on; the netCDF one only
# where libnetcdf-mpi-dev is installed (Debian builds it for Open MPI; its pkg-config file is wrong)
NCDIR = /usr/lib/x86_64-linux-gnu/netcdf/mpi/include
ifneq (,$(and $(findstring openmpi,$(MPI)),$(wildcard $(NCDIR)/netcdf_par.h)))
EXAMPLES += $(B)/nc_client $(B)/nc_suite
endif
$(B)/nc_client: tests/nc_client.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -I$(NCDIR) $< -lnetcdf_mpi -o $@
$(B)/nc_suite: tests/nc_suite.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -I$(NCDIR) $< -lnetcdf_mpi -o $@
# The optional Fortran module (colldiag.f90), its example and its test: built where gfortran is
# installed (make deps installs it). Each MPI's module files go to its own build directory, since
# mpi_f08's types differ between Open MPI and MPICH.
ifneq (,$(shell command -v gfortran 2>/dev/null))
EXAMPLES += $(B)/rfc_modes_f90 $(B)/test_fortran
endif
FFLAGS ?= -O2 -g
FWARN = -Wall -Wextra -std=f2018
$(B)/colldiag_f.o: colldiag.f90 | $(B)
	$(MPIFC) $(FWARN) $(FFLAGS) -J$(B) -c $< -o $@
$(B)/rfc_modes_f90: examples/rfc_modes.f90 $(B)/colldiag_f.o $(B)/colldiag.o
	$(MPIFC) $(FWARN) $(FFLAGS) -I$(B) $< $(B)/colldiag_f.o $(B)/colldiag.o -o $@
$(B)/test_fortran: tests/test_fortran.f90 $(B)/colldiag_f.o $(B)/colldiag.o
	$(MPIFC) $(FWARN) $(FFLAGS) -I$(B) $< $(B)/colldiag_f.o $(B)/colldiag.o -o $@
# the field's patterns (IOR, VPIC-IO) as a plain HDF5 program, and a PMPI counter of every MPI-IO call
# (tests/test_contig_calls.sh, bench/patterns.sh)
$(B)/patterns: bench/patterns.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
$(B)/libpmpi_file_calls.so: tests/pmpi_file_calls.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -fPIC -shared $< -o $@
# whether a block after MPI_Init comes from glibc's heap (tests/test_heap_kept.sh: the preload's warm heap)
$(B)/heap_kept: tests/heap_kept.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $< -o $@
# MPICH (ch4:ucx) ranks yield their core when UCX's progress made none: the suite's oversubscribed MPICH
# runs take seconds, not minutes (tests/mpich_yield.c, tests/mpich_run.sh)
$(B)/libmpich_yield.so: tests/mpich_yield.c | $(B)
	$(CC) $(WARN) $(CFLAGS) -fPIC -shared $< -o $@ -ldl
# HDF5 1.14's H5Dwrite_multi / _async and their reads, called by a plain program (tests/test_multi_entry.sh);
# built where the HDF5 is 1.14 or later (tests/check_hdf5.sh builds it)
$(B)/h5_multi_client: tests/h5_multi_client.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# a netCDF-4-like file (collective metadata reads) with one rank calling alone (tests/test_collmd_explain.sh)
$(B)/h5_collmd_client: tests/h5_collmd_client.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# colldiag_h5_plan's collective safety and answers against HDF5 (tests/test_preload.sh runs it)
$(B)/test_h5plan: tests/test_h5plan.c $(B)/colldiag_h5.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. -Itests $< $(B)/colldiag_h5.o $(H5LIBS) -o $@
# colldiag_h5_write/read's named cases: the index reader on every index type, faults (tests/check.sh)
# (it includes colldiag.c itself, with the counting allocator of tests/count_alloc.h and fault injection)
$(B)/test_h5accel: tests/test_h5accel.c tests/count_alloc.h tests/pmpi_count.c tests/pmpi_count.h colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -DCOLLDIAG_TESTING $(H5CFLAGS) -I. -Itests $< tests/pmpi_count.c $(H5LIBS) -o $@
# colldiag_h5_write/read against HDF5's own H5Dwrite/H5Dread, every byte (tests/check.sh)
$(B)/fuzz_h5: tests/fuzz_h5.c tests/h5_selcheck.h tools/mpich_flat_views.h colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< $(H5LIBS) -o $@
# the HTML report's large grid (tests/test_html.sh)
$(B)/html_large: tests/html_large.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. $< $(B)/colldiag.o -o $@
# what HDF5 and MPI-IO get wrong, shown with plain HDF5 (no colldiag): tests/test_defects.sh
$(B)/h5_defects: tests/h5_defects.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# a plain HDF5 program (no colldiag) the preload library is tested on
$(B)/h5_client: tests/h5_client.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# a plain HDF5 program whose files' communicators are a world duplicate and halves in reverse order (tests/test_preload.sh)
$(B)/h5_subcomm: tests/h5_subcomm.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# plain HDF5: whether ranks can write chunks themselves with H5Dwrite_chunk in a parallel file (tests/test_defects.sh)
$(B)/h5_direct_chunk: tests/h5_direct_chunk.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# an unmodified HDF5 program reading compressed data in parallel (tests/test_filtered_preload.sh, bench-filtered)
$(B)/h5_filtered: tests/h5_filtered.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# the preload's measured engine (tests/test_engine.sh): a plain HDF5 time-step loop, and the preload built
# for tests (COLLDIAG_INJECT=engine:... gives each engine its time)
$(B)/h5_engine: tests/h5_engine.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# reads into memory the program never touched (tests/test_prefault.sh: the preload's prefault_dest)
$(B)/h5_prefault: tests/h5_prefault.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
# what HDF5's free lists hold after a file's close, with and without the preload (tests/test_free_lists.sh)
$(B)/h5_free_lists: tests/h5_free_lists.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) $< $(H5LIBS) -o $@
$(B)/libcolldiag_preload_test.so: tools/colldiag-preload.c tools/mpich_flat_views.h colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -DCOLLDIAG_TESTING $(H5CFLAGS) -fPIC -shared -I. $< $(H5LIBS) -ldl -o $@

# Fault injection (COLLDIAG_INJECT) exists only in this test build of the kit.
$(B)/test_large: tests/test_large.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. -Itests $< $(B)/colldiag.o -o $@

# -O0: an optimiser may sink a read through a NULL argument past the check that would skip it (a NULL
# layout's crash in touch_map showed only unoptimised), so the error matrix runs the code as written.
$(B)/test_errors: tests/test_errors.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -O0 -DCOLLDIAG_TESTING -I. -Itests $< colldiag.c -o $@
# AUTO that measures, with an injected clock (test builds only: COLLDIAG_INJECT=clock:...)
$(B)/test_auto: tests/test_auto.c colldiag.c colldiag.h tests/testutil.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -DCOLLDIAG_TESTING -I. -Itests $< colldiag.c -o $@ -lm

# colldiag_read into memory never touched (src/memory.c), with the probe's answer injected (test build)
$(B)/test_prefault_kit: tests/test_prefault_kit.c colldiag.c colldiag.h tests/testutil.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -DCOLLDIAG_TESTING -I. -Itests $< colldiag.c -o $@

# The interposer goes into the executables that count MPI calls.
# colldiag.c compiled in with a counting allocator
$(B)/test_memory: tests/test_memory.c tests/count_alloc.h colldiag.c colldiag.h $(B)/pmpi_count.o
	$(MPICC) $(WARN) $(CFLAGS) -I. -Itests tests/test_memory.c $(B)/pmpi_count.o -o $@

# colldiag never writes a byte it was not given: every scheme, both drivers, fresh files and files with data
$(B)/test_untouched: tests/test_untouched.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. $< $(B)/colldiag.o -o $@
$(B)/test_offnode: tests/test_offnode.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. $< $(B)/colldiag.o -o $@
# the file runs AUTO's model prices, against the test's own count (rows round-robin: one run each)
$(B)/test_model_runs: tests/test_model_runs.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. $< $(B)/colldiag.o -o $@
# colldiag's own collective reads of overlapping selections: the file's bytes on every stack (the read guard)
$(B)/test_read_guard: tests/test_read_guard.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. $< $(B)/colldiag.o -o $@

$(B)/test_io $(B)/test_report $(B)/test_multi: $(B)/%: tests/%.c $(B)/colldiag.o $(B)/pmpi_count.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. -Itests $< $(B)/colldiag.o $(B)/pmpi_count.o -o $@

# The same test against a kit whose collective calls move at most 24 bytes per rank: every call splits
# into rounds, inside chunks and inside blocks of rows, as > 1 GiB per rank would.
$(B)/test_io_rounds: tests/test_io.c colldiag.c colldiag.h $(B)/pmpi_count.o
	$(MPICC) $(WARN) $(CFLAGS) -DCOLLDIAG_COLL_MAX_BYTES=24 -DTEST_SMALL_ROUNDS -I. -Itests tests/test_io.c colldiag.c $(B)/pmpi_count.o -o $@

$(B)/minimal $(B)/rfc_modes $(B)/posix_cause $(B)/timestep: $(B)/%: examples/%.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. -Itests $< $(B)/colldiag.o -o $@

$(B):
	mkdir -p $@

# Benchmarks: the patterns of the performance issue against the raw MPI-IO limit (not timed tests).
#   make bench [BENCH_RANKS=3] [BENCH_ARGS="tiny 1"] [BENCH_DIR=/scratch]   writes build/bench.csv (BENCH_CSV=PATH)
BENCH_RANKS ?= 3
BENCH_ARGS ?=
$(B)/bench: bench/bench.c tests/count_alloc.h colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -I. $< -o $@
bench: $(B)/bench $(B)/bench-timestep $(B)/bench-manyvars
	$(RUN) -n $(BENCH_RANKS) $(B)/bench $(BENCH_ARGS)
	$(RUN) -n $(BENCH_RANKS) $(B)/bench-timestep $(or $(BENCH_DIR),/tmp)
	$(RUN) -n $(BENCH_RANKS) $(B)/bench-manyvars $(or $(BENCH_DIR),/tmp)
# B6, many small variables written once: COLLDIAG_ACCELERATE's cost where every call is a dataset's first (bench/manyvars.c)
$(B)/bench-manyvars: bench/manyvars.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< -o $@ $(H5LIBS)
bench-manyvars: $(B)/bench-manyvars
	$(RUN) -n $(BENCH_RANKS) $(B)/bench-manyvars $(or $(BENCH_DIR),/tmp)
# B5, a timestep of 136 variables: one write_multi against 136 calls and HDF5's 136 H5Dwrite (bench/timestep.c)
$(B)/bench-timestep: bench/timestep.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< colldiag.c -o $@ $(H5LIBS)
bench-timestep: $(B)/bench-timestep
	$(RUN) -n $(BENCH_RANKS) $(B)/bench-timestep $(or $(BENCH_DIR),/tmp)
# What a fresh page costs here, and whether MPI-IO's collective buffers come back fresh after
# collective or independent writes (bench/heap.c: no HDF5, no colldiag): make bench-heap
$(B)/heap: bench/heap.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $< -o $@
bench-heap: $(B)/heap
	@for m in c i; do $(RUN) -n $(BENCH_RANKS) $(B)/heap $(or $(BENCH_DIR),/tmp) 8 $$m; done
# A kit read into memory never touched, colldiag's populating off against as shipped (bench/fresh.sh):
#   make bench-fresh [FRESH_REPS=5]   (about 2 minutes)
$(B)/bench-fresh: bench/fresh.c $(B)/colldiag.o colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -I. $< $(B)/colldiag.o -o $@
bench-fresh: $(B)/bench-fresh
	@bench/fresh.sh $(B) "$(RUN)" $(BENCH_RANKS) $(or $(FRESH_REPS),5)
# AUTO's constants measured on this machine: prints `export COLLDIAG_AUTO_*=...` lines (bench/calibrate.c).
$(B)/calibrate: bench/calibrate.c | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $< -o $@
calibrate: $(B)/calibrate
	@$(RUN) -n $(BENCH_RANKS) $(B)/calibrate $(or $(BENCH_DIR),/tmp)
# Planning (mapping + deciding) at 2, 4, 8 and 16 ranks, a fixed number of touched chunks per rank,
# local work apart from time inside MPI collectives (bench/ranks.c).
RANKS_LIST ?= 2 4 8 16
$(B)/ranks: bench/ranks.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -I. $< colldiag.c -o $@
# Then (root) RANKS_NODES="N K": N x K ranks across N simulated nodes (tests/nodes.sh), TCP between them.
RANKS_NODES ?= 8 8
bench-ranks: $(B)/ranks
	@for p in $(RANKS_LIST); do $(RUN) -n $$p $(B)/ranks $(or $(BENCH_DIR),/tmp) | if [ $$p = $(firstword $(RANKS_LIST)) ]; then cat; else tail -n +2; fi || exit 1; done
	@if [ -n "$(RANKS_NODES)" ]; then \
	  if [ "$$(id -u)" = 0 ]; then out=$$(tests/nodes.sh $(RANKS_NODES) -- $(B)/ranks $(or $(BENCH_DIR),/tmp)) || { echo "$$out"; exit 1; }; \
	    echo "$$out" | tail -n +2 | sed 's/$$/   (across $(word 1,$(RANKS_NODES)) simulated nodes)/'; \
	  else echo "bench-ranks: $(RANKS_NODES) ranks across simulated nodes need root (tests/nodes.sh): not run"; fi; fi
# One call at 10^3 to 10^5 virtual ranks, simulated in one process: colldiag's own code for every rank,
# its collectives answered as P ranks would (bench/virtual.c): per rank local work, memory, messages
# and bytes, every scheme and pattern (about 6 minutes on 2 cores; the exchange schemes' counts travel
# in a sparse exchange, so nothing a rank holds is P-sized): make bench-virtual [VIRTUAL_P="1000 3000"]
VIRTUAL_P ?= 1000 3000 10000 100000
$(B)/virtual: bench/virtual.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -I. $< -o $@
bench-virtual: $(B)/virtual
	$(B)/virtual $(VIRTUAL_P)
# AUTO across simulated nodes (root), an unshaped and a slow link (NODES_RATES, tc rates), with the default
# and the calibrated constants: the scheme AUTO ran against the fastest measured (bench/nodes.sh):
# make bench-nodes [NODES="2 2"] [NODES_RATES=200mbit] [NODES_REPS=3]
NODES ?= 2 2
NODES_REPS ?= 3
# AUTO that measures against every fixed scheme in time-step loops, default constants (bench/auto.sh)
$(B)/bench-auto: bench/auto.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -I. $< colldiag.c -o $@
bench-auto: $(B)/bench-auto
	bench/auto.sh $(B) $(or $(AUTO_CALLS),10) $(or $(AUTO_REPS),5) $(or $(BENCH_DIR),/tmp)
bench-nodes: $(B)/bench $(B)/calibrate
	bench/nodes.sh $(B) $(NODES) $(NODES_REPS) $(or $(BENCH_DIR),/tmp)
# The same with parallel HDF5's link, multi and independent writes as columns.
$(B)/bench-hdf5: bench/bench.c tests/count_alloc.h colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< -o $@ $(H5LIBS)
bench-hdf5: $(B)/bench-hdf5
	$(RUN) -n $(BENCH_RANKS) $(B)/bench-hdf5 $(BENCH_ARGS)
# The field's patterns, plain HDF5 against the preload with COLLDIAG_ACCELERATE=1, interleaved runs,
# medians (bench/patterns.sh): make bench-patterns [PATTERNS_REPS=5] [PATTERNS_INNER=3] [PATTERNS_MIB=8] [BENCH_DIR=/tmp]
bench-patterns: $(B)/patterns $(B)/libcolldiag_preload.so
	bench/patterns.sh $(B) "$(RUN)" $(BENCH_RANKS) $(or $(PATTERNS_REPS),5) $(or $(PATTERNS_MIB),8) $(or $(BENCH_DIR),/tmp)
# Compressed data read in parallel: an unmodified program's collective reads (rows, columns, interleaved
# columns) of a deflated dataset, plain HDF5 against the preload, deflate 1 and 6, shuffle on and off, with
# one process's read as the reference (bench/filtered.sh): make bench-filtered [FILTERED_REPS=5]
# [H5BENCH=/dir/with/h5bench_write_and_read: also h5bench's compressed VPIC-IO / BD-CATS-IO case]
bench-filtered: $(B)/h5_filtered $(B)/libcolldiag_preload.so
	H5BENCH=$(or $(H5BENCH),-) bench/filtered.sh $(B) "$(RUN)" $(BENCH_RANKS) $(or $(FILTERED_REPS),5) $(or $(BENCH_DIR),/tmp)
# Filtered writes (issue 63 item 2): HDF5's collective filtered write against what an owner-compresses
# scheme would cost at least (colldiag's aggregation moving the pieces + every chunk deflated once, spread
# over the ranks), rows, columns and 16-column blocks, deflate 1 and 6, shuffle on and off:
# make bench-filtered-write [FILTERED_REPS=5]
$(B)/filtered_write: bench/filtered_write.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(shell pkg-config --cflags $(H5PC) 2>/dev/null) -I. $< colldiag.c $(H5LIBS) -lz -o $@
bench-filtered-write: $(B)/filtered_write
	@for cfg in "1" "1 --noshuffle" "6" "6 --noshuffle"; do sync; $(RUN) -n $(BENCH_RANKS) $(B)/filtered_write $(or $(BENCH_DIR),/tmp) --reps $(or $(FILTERED_REPS),5) --level $$cfg || exit 1; done
# What the run's summary costs: plain HDF5, the preload without a report, with COLLDIAG_REPORT=summary and with
# the per-call JSON report, interleaved (bench/summary.sh): make bench-summary [SUMMARY_REPS=7]
bench-summary: $(B)/patterns $(B)/libcolldiag_preload.so
	bench/summary.sh $(B) "$(RUN)" $(BENCH_RANKS) $(or $(SUMMARY_REPS),7) $(or $(BENCH_DIR),/tmp)
# The field's benchmarks themselves (IOR and h5bench's VPIC-IO / BD-CATS-IO, built by you against this
# HDF5), plain against the preload with COLLDIAG_ACCELERATE=1, alternating (bench/field.sh):
#   make bench-field IOR=/path/to/ior H5BENCH=/dir/with/h5bench_write_and_read   (either may be -)
#   [FIELD_REPS=9] [FIELD_AA=1: a second plain run each repetition, and the A/A column: the noise band]
bench-field: $(B)/libcolldiag_preload.so
	bench/field.sh $(B) "$(RUN)" $(BENCH_RANKS) $(or $(FIELD_REPS),5) $(or $(IOR),-) $(or $(H5BENCH),-)
# B1-B4 and the project's patterns, in one dated run: bench-hdf5 (B1-B4, 5 samples) then bench-patterns, into
# bench/results/DATE-TIME-COMMIT.txt (about 12 minutes)
bench-readme: $(B)/bench-hdf5 $(B)/patterns $(B)/libcolldiag_preload.so
	@f=bench/results/$$(date -u +%Y-%m-%d-%H%M)-$$(git rev-parse --short HEAD).txt; \
	{ echo "# make bench-readme, $$(date -u '+%Y-%m-%d %H:%M UTC'), $$(git rev-parse --short HEAD), $(BENCH_RANKS) ranks"; \
	  $(RUN) -n $(BENCH_RANKS) $(B)/bench-hdf5 full 5 && \
	  bench/patterns.sh $(B) "$(RUN)" $(BENCH_RANKS) $(or $(PATTERNS_REPS),5) $(or $(PATTERNS_MIB),8) $(or $(BENCH_DIR),/tmp); } 2>&1 | tee $$f; \
	echo "written: $$f"
# What the HDF5 bridge adds to a small call: colldiag_h5_write/read against AUTO on the same file,
# MPI_File and chunk addresses, interleaved (bench/bridge.c).
$(B)/bench-bridge: bench/bridge.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< -o $@ $(H5LIBS)
bench-bridge: $(B)/bench-bridge
	$(RUN) -n $(BENCH_RANKS) $(B)/bench-bridge $(BENCH_ARGS)

# After every conditional EXAMPLES += above: a rule's prerequisites are expanded when make reads it.
all: $(TESTS) $(EXAMPLES)

# Runs the examples in a scratch directory (they write their demo files there).
demo-run: $(EXAMPLES)
	@d=$$(mktemp -d) && top=$$PWD && cd $$d && \
	echo "== examples/minimal.c (the README's example, $(MPI), 3 ranks)" && $(RUN) -n 3 $$top/$(B)/minimal && echo && \
	echo "== examples/rfc_modes.c ($(MPI), 3 ranks)" && $(RUN) -n 3 $$top/$(B)/rfc_modes && echo && \
	if [ -x $$top/$(B)/rfc_modes_f90 ]; then echo "== examples/rfc_modes.f90 (the same through the Fortran module)" && \
	    $(RUN) -n 3 $$top/$(B)/rfc_modes_f90 rfc_modes_f90.bin && echo; fi && \
	echo "== examples/posix_cause.c ($(MPI), 3 ranks)" && $(RUN) -n 3 $$top/$(B)/posix_cause && echo && \
	echo "== examples/timestep.c: 12 variables in one call ($(MPI), 3 ranks; chunk lines left out)" && \
	    $(RUN) -n 3 $$top/$(B)/timestep | grep -v '^   rank [0-9]* dataset' && echo && \
	echo "== examples/hdf5_interop.c ($(MPI), 3 ranks)" && $(RUN) -n 3 $$top/$(B)/hdf5_interop && \
	echo "h5dump -d /colldiag hdf5_interop.h5 | head:" && h5dump -d /colldiag hdf5_interop.h5 | sed -n '1,9p'; \
	rc=$$?; rm -rf $$d; exit $$rc

# Builds run one compiler per core: most programs compile colldiag.c themselves (tests include it to
# reach its statics), so building Open MPI's programs took 114 s serially and 65 s with -j2 here, and
# CI builds them for two MPIs and the sanitizers. Tests themselves run one at a time (tests/check.sh):
# MPI jobs that share the cores would time each other out.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

demo:
	$(MAKE) -j$(JOBS) $(EXAMPLES)
	$(MAKE) demo-run

check: deps-hdf5-1.14
	$(MAKE) -j$(JOBS) MPI=openmpi all
	$(MAKE) -j$(JOBS) MPI=mpich all
	JOBS=$(JOBS) tests/check.sh
	$(MAKE) check-hdf5-1.14

# HDF5 1.14 beside this system's 1.10: a Debian 13 chroot made from Debian's packages (HDF5 1.14.5, Open
# MPI 5.0.7, MPICH 4.2, netCDF 4.9.3, h5py), kept in /var/cache/colldiag/debian13 (COLLDIAG_DEBIAN13)
# so that a second run downloads nothing (tests/debian13.sh; as root, about 10 minutes the first time).
# check-hdf5-1.14 runs the HDF5-facing suites inside it (tests/check_hdf5.sh), built into build/d13-*.
deps-hdf5-1.14:
	tests/debian13.sh setup
check-hdf5-1.14:
	tests/debian13.sh run tests/check_hdf5.sh d13

# $(call scn_groups,GLOBS,COMMAND): COMMAND once for each group of the scenarios GLOBS match that one
# launch can run (tests/scn_groups.sh), with $$n the group's rank count and $$fs its files.
scn_groups = tests/scn_groups.sh $(1) | while read -r n fs; do { $(2); } </dev/null; done

# ---- sanitizers, valgrind, fuzzing (Open MPI; clang through Open MPI's wrapper) ----
# MPI's own leaks are suppressed by module (tests/lsan.supp, tests/valgrind.supp), never colldiag's;
# keeping Open MPI's components loaded lets their leaks be attributed to them.
SAN = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
SANENV = OMPI_MCA_mca_base_component_disable_dlclose=1 ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
         LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
A = build/asan
$(A):
	mkdir -p $@
# the kit compiled once for the suites built alike (22 s of the compiler each; test_errors, scenario_run
# and test_h5accel are built with other flags)
$(A)/colldiag.o: colldiag.c colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) -c colldiag.c -o $@
$(A)/test_io $(A)/test_report: $(A)/%: tests/%.c tests/pmpi_count.c $(A)/colldiag.o colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) -I. -Itests $< tests/pmpi_count.c $(A)/colldiag.o -o $@
$(A)/test_errors: tests/test_errors.c colldiag.c colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) -O0 -DCOLLDIAG_TESTING -I. -Itests $< colldiag.c -o $@
$(A)/test_prefault_kit: tests/test_prefault_kit.c colldiag.c colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) -DCOLLDIAG_TESTING -I. -Itests $< colldiag.c -o $@
# the kit with the HDF5 bridge, once for the two suites built with it
$(A)/colldiag_h5.o: colldiag.c colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) $(H5CFLAGS) -c colldiag.c -o $@
$(A)/scenario_run: tests/scenario_run.c $(A)/colldiag_h5.o colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) $(H5CFLAGS) -I. $< $(A)/colldiag_h5.o $(H5LIBS) -o $@
$(A)/test_h5_records: tests/test_h5_records.c $(A)/colldiag_h5.o colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) $(H5CFLAGS) -I. $< $(A)/colldiag_h5.o $(H5LIBS) -o $@
$(A)/fuzz_filtered: tests/fuzz_filtered.c tests/h5_selcheck.h $(A)/colldiag_h5.o colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) $(H5CFLAGS) -I. $< $(A)/colldiag_h5.o $(H5LIBS) -o $@
$(A)/fuzz_io: tests/fuzz_io.c tests/scenario_run.c $(A)/colldiag.o colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) -I. -Itests $< $(A)/colldiag.o -o $@
$(A)/test_multi: tests/test_multi.c tests/pmpi_count.c $(A)/colldiag.o colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) -I. -Itests $< tests/pmpi_count.c $(A)/colldiag.o -o $@
$(A)/test_h5accel: tests/test_h5accel.c tests/count_alloc.h tests/pmpi_count.c tests/pmpi_count.h colldiag.c colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) -DCOLLDIAG_TESTING $(H5CFLAGS) -I. -Itests $< tests/pmpi_count.c $(H5LIBS) -o $@
$(A)/rfc_modes: examples/rfc_modes.c $(A)/colldiag.o colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra $(SAN) -I. $< $(A)/colldiag.o -o $@
$(A)/fuzz_map: tests/fuzz_map.c colldiag.c colldiag.h | $(A)
	OMPI_CC=clang mpicc.openmpi -std=c11 -Wall -Wextra -Werror -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $< -o $@

check-asan: $(A)/test_io $(A)/test_prefault_kit $(A)/test_errors $(A)/test_report $(A)/scenario_run $(A)/rfc_modes $(A)/fuzz_io $(A)/test_multi $(A)/test_h5accel $(A)/test_h5_records \
            $(A)/fuzz_filtered
	$(SANENV) mpirun.openmpi --oversubscribe -n 3 $(A)/test_io
	$(SANENV) COLLDIAG_PREFAULT=1 mpirun.openmpi --oversubscribe -n 2 -x COLLDIAG_PREFAULT $(A)/test_prefault_kit $(CURDIR)/$(A) on
	$(SANENV) mpirun.openmpi --oversubscribe -n 3 $(A)/test_multi $(CURDIR)/$(A)/multi.bin
	$(SANENV) mpirun.openmpi --oversubscribe -n 3 $(A)/test_multi --fuzz 5 150 $(CURDIR)/$(A)/multi.bin
	@# HDF5's own allocations are not colldiag's: the bridge is checked for memory errors and UB only
	mkdir -p $(A)/h5accel && ASAN_OPTIONS=detect_leaks=0 mpirun.openmpi --oversubscribe -n 3 $(A)/test_h5accel $(A)/h5accel
	@# the filtered chunks' records, decoder and reads through colldiag (memory errors and UB; HDF5's allocations its own)
	ASAN_OPTIONS=detect_leaks=0 mpirun.openmpi --oversubscribe -n 3 $(A)/test_h5_records $(A)/h5rec quick >/dev/null
	ASAN_OPTIONS=detect_leaks=0 mpirun.openmpi --oversubscribe -n 3 $(A)/fuzz_filtered --seed 3 --cases 150 --out $(A) | grep "every byte equal"
	cd $(A) && $(SANENV) mpirun.openmpi --oversubscribe -n 4 ./fuzz_io --seed 11 --cases 1000 --out .
	$(SANENV) mpirun.openmpi --oversubscribe -n 4 $(A)/test_errors
	$(SANENV) tests/test_report.sh $(A) "mpirun.openmpi --oversubscribe" >/dev/null
	@# scenarios: memory errors and UB (leaks are checked above, with the slow unwinder they need);
	@# a launch for each group of scenarios (scn_groups): a launch costs more than a scenario
	@$(call scn_groups,$(SCN_PUBLIC)/*.scn tests/scenarios/*.scn,ASAN_OPTIONS=detect_leaks=0 mpirun.openmpi --oversubscribe -n $$n \
	  $(A)/scenario_run --hdf5 $$fs >/dev/null 2>$(A)/scn.err || { echo "ASan/UBSan: failed in $$fs"; cat $(A)/scn.err; exit 1; })
	@echo "check-asan: clean"

# MPICH, a reduced set: the error matrix and the quick I/O matrix (MPICH oversubscribed is slow).
AM = build/asan-mpich
$(AM):
	mkdir -p $@
$(AM)/test_io: tests/test_io.c tests/pmpi_count.c colldiag.c colldiag.h | $(AM)
	MPICH_CC=clang mpicc.mpich -std=c11 -Wall -Wextra $(SAN) -I. -Itests $< tests/pmpi_count.c colldiag.c -o $@
$(AM)/test_errors: tests/test_errors.c colldiag.c colldiag.h | $(AM)
	MPICH_CC=clang mpicc.mpich -std=c11 -Wall -Wextra $(SAN) -O0 -DCOLLDIAG_TESTING -I. -Itests $< colldiag.c -o $@
# (the 3-rank run oversubscribes 2 cores: its ranks yield when they wait, tests/mpich_yield.c)
$(AM)/libmpich_yield.so: tests/mpich_yield.c | $(AM)
	$(CC) $(WARN) $(CFLAGS) -fPIC -shared $< -o $@ -ldl
check-asan-mpich: $(AM)/test_io $(AM)/test_errors $(AM)/libmpich_yield.so
	$(SANENV) mpirun.mpich -n 2 $(AM)/test_io quick
	$(SANENV) mpirun.mpich -genv LD_PRELOAD $(CURDIR)/$(AM)/libmpich_yield.so -n 3 $(AM)/test_errors quick
	@echo "check-asan-mpich: clean"

VG = valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
     --suppressions=$(CURDIR)/tests/valgrind.supp
# Only MPI's own reports are suppressed, each with a program without colldiag that triggers it first.
check-valgrind: build/openmpi/test_io build/openmpi/test_prefault_kit build/openmpi/test_errors build/openmpi/scenario_run build/openmpi/fuzz_io build/openmpi/mpi_valgrind_baseline \
                build/openmpi/rfc_modes build/openmpi/libcolldiag_preload.so build/openmpi/h5_client build/openmpi/test_h5_records \
                build/openmpi/fuzz_filtered
	OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 3 $(VG) build/openmpi/mpi_valgrind_baseline $(CURDIR)/build/vg_baseline.bin
	OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 2 $(VG) build/openmpi/test_io quick
	@# reads into fresh memory, populated (madvise and mincore under valgrind; the probe's own pages)
	COLLDIAG_PREFAULT=1 OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 2 -x COLLDIAG_PREFAULT $(VG) \
	  build/openmpi/test_prefault_kit $(CURDIR)/build on
	OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 2 $(VG) build/openmpi/test_prefault_kit $(CURDIR)/build auto
	OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 3 $(VG) build/openmpi/test_errors quick
	cd build && OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 3 $(VG) openmpi/fuzz_io --seed 12 --cases 300 --out .
	@$(call scn_groups,$(SCN_PUBLIC)/tdset_*_n3.scn $(SCN_PUBLIC)/error_*.scn $(SCN_PUBLIC)/tcoll_cchunk3_point*.scn tests/scenarios/points_*.scn,\
	  OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n $$n $(VG) build/openmpi/scenario_run $$fs >/dev/null \
	  2>build/vg.err || { echo "valgrind: failed in $$fs"; cat build/vg.err; exit 1; })
	cd build && COLLDIAG_REPORT=html:vg_report.html OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 3 \
	  -x COLLDIAG_REPORT $(VG) openmpi/rfc_modes >/dev/null
	cd build && COLLDIAG_REPORT=json:vg_preload.jsonl OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 3 \
	  -x COLLDIAG_REPORT -x LD_PRELOAD=$(CURDIR)/build/openmpi/libcolldiag_preload.so $(VG) openmpi/h5_client vg_client.h5 vg_client.jsonl >/dev/null
	cd build && COLLDIAG_ACCELERATE=1 COLLDIAG_REPORT=json:vg_accel.jsonl OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 3 \
	  -x COLLDIAG_ACCELERATE -x COLLDIAG_REPORT -x LD_PRELOAD=$(CURDIR)/build/openmpi/libcolldiag_preload.so $(VG) openmpi/h5_client vg_accel.h5 vg_accel.jsonl >/dev/null
	cd build && OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 2 $(VG) openmpi/test_h5_records vg_records quick >/dev/null
	cd build && OMPI_MCA_mca_base_component_disable_dlclose=1 mpirun.openmpi --oversubscribe -n 3 $(VG) openmpi/fuzz_filtered --seed 3 --cases 20 --out . | grep "every byte equal"
	$(MAKE) -s MPI=mpich build/mpich/test_errors build/mpich/test_io
	mpirun.mpich -n 2 $(VG) build/mpich/test_errors quick
	mpirun.mpich -n 2 $(VG) build/mpich/test_io quick
	$(MAKE) -s MPI=mpich build/mpich/fuzz_io
	cd build && mpirun.mpich -n 2 $(VG) mpich/fuzz_io --seed 13 --cases 40 --out .
	@echo "check-valgrind: clean"

# libFuzzer over selections, mapping, memory pairing and datatypes, from the committed seed corpus.
FUZZ_SECONDS ?= 60
fuzz: $(A)/fuzz_map
	rm -rf $(A)/corpus && mkdir -p $(A)/corpus && cp tests/fuzz_corpus/* $(A)/corpus/
	cd $(A) && ASAN_OPTIONS=detect_leaks=0 ./fuzz_map -max_total_time=$(FUZZ_SECONDS) -max_len=512 -print_final_stats=1 corpus

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi

# netCDF-C's own parallel tests under the preload, plain and accelerated (fetches Debian's netcdf
# source into build/netcdf-c; tests/netcdf_c_tests.sh). Part of make check.
check-netcdf-c: $(B)/libcolldiag_preload.so
	tests/netcdf_c_tests.sh $(B) "$(RUN)"

clean:
	rm -rf build
