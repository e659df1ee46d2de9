# colldiag — plain GNU make.
#   make            build the kit, tests and examples
#   make check      the whole test suite (Open MPI, then a reduced set on MPICH)
#   make demo       run the examples with 3 ranks
#   make deps       install missing Debian packages (apt-get), quiet when nothing is missing
#   make clean
# MPI=openmpi|mpich picks the explicitly named wrapper/launcher pair (a mismatched pair silently runs
# N singletons); MPICC/MPIRUN override both for any other MPI installation.

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
BUILD = build/$(MPI)
SCN_PUBLIC ?= ../shared/scenarios/public

.PHONY: all check demo deps clean

all: $(BUILD)/scenario_run

$(BUILD)/colldiag.o: colldiag.c colldiag.h | $(BUILD)
	$(MPICC) $(WARN) $(CFLAGS) -c colldiag.c -o $@

$(BUILD)/scenario_run: tests/scenario_run.c $(BUILD)/colldiag.o colldiag.h
	$(MPICC) $(WARN) $(CFLAGS) -I. tests/scenario_run.c $(BUILD)/colldiag.o -o $@

$(BUILD):
	mkdir -p $@

clean:
	rm -rf build
