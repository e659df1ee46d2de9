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
MPIRUN ?= mpirun.mpich
else
MPICC ?= mpicc.openmpi
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
# Parallel HDF5 for the bridge, the oracle and the interop example (Debian: hdf5-openmpi / hdf5-mpich).
H5PC = hdf5-$(if $(findstring mpich,$(MPI)),mpich,openmpi)
H5CFLAGS = -DCOLLDIAG_WITH_HDF5 $(shell pkg-config --cflags $(H5PC) 2>/dev/null)
H5LIBS = $(shell pkg-config --libs $(H5PC) 2>/dev/null)
TESTS = $(B)/scenario_run $(B)/test_io $(B)/test_errors $(B)/test_report
EXAMPLES = $(B)/rfc_modes $(B)/posix_cause $(B)/hdf5_interop

# Debian 12 packages the build, the tests and the demo need.
DEB_PKGS = make gcc libopenmpi-dev openmpi-bin libhdf5-openmpi-dev libmpich-dev mpich libhdf5-mpich-dev hdf5-tools jq

.PHONY: all check demo demo-run deps clean

all: $(TESTS) $(EXAMPLES)

$(B)/colldiag.o: colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -c colldiag.c -o $@

$(B)/pmpi_count.o: tests/pmpi_count.c tests/pmpi_count.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -Itests -c tests/pmpi_count.c -o $@

# The core needs only MPI and libc; the HDF5 bridge is a second object of the same source.
$(B)/colldiag_h5.o: colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -c colldiag.c -o $@

$(B)/scenario_run: tests/scenario_run.c $(B)/colldiag_h5.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< $(B)/colldiag_h5.o $(H5LIBS) -o $@

$(B)/hdf5_interop: examples/hdf5_interop.c $(B)/colldiag_h5.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) $(H5CFLAGS) -I. $< $(B)/colldiag_h5.o $(H5LIBS) -o $@

# Fault injection (COLLDIAG_INJECT) exists only in this test build of the kit.
$(B)/test_errors: tests/test_errors.c colldiag.c colldiag.h | $(B)
	$(MPICC) $(WARN) $(CFLAGS) -DCOLLDIAG_TESTING -I. $< colldiag.c -o $@

# The interposer goes into the executables that count MPI calls.
$(B)/test_io $(B)/test_report: $(B)/%: tests/%.c $(B)/colldiag.o $(B)/pmpi_count.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. -Itests $< $(B)/colldiag.o $(B)/pmpi_count.o -o $@

$(B)/rfc_modes $(B)/posix_cause: $(B)/%: examples/%.c $(B)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. $< $(B)/colldiag.o -o $@

$(B):
	mkdir -p $@

# Runs the examples in a scratch directory (they write their demo files there).
demo-run: $(EXAMPLES)
	@d=$$(mktemp -d) && top=$$PWD && cd $$d && \
	echo "== examples/rfc_modes.c ($(MPI), 3 ranks)" && $(RUN) -n 3 $$top/$(B)/rfc_modes && echo && \
	echo "== examples/posix_cause.c ($(MPI), 3 ranks)" && $(RUN) -n 3 $$top/$(B)/posix_cause && echo && \
	echo "== examples/hdf5_interop.c ($(MPI), 3 ranks)" && $(RUN) -n 3 $$top/$(B)/hdf5_interop && \
	echo "h5dump -d /colldiag hdf5_interop.h5 | head:" && h5dump -d /colldiag hdf5_interop.h5 | sed -n '1,9p'; \
	rc=$$?; rm -rf $$d; exit $$rc

demo: demo-run

check:
	$(MAKE) MPI=openmpi all
	$(MAKE) MPI=mpich all
	tests/check.sh

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	fi

clean:
	rm -rf build
