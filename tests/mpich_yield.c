/* mpich_yield.c — the test suite's answer to MPICH busy-waiting on an oversubscribed machine.
 *
 * Debian's MPICH (4.0.2 on Debian 12, 4.2.1 on Debian 13) is built ch4:ucx. A rank that waits (a
 * barrier, a collective's message) spins in UCX's progress loop and never gives up its core: the strace
 * of a 3-rank run on this 2-core machine shows no sched_yield at all, and MPIR_CVAR_POLLS_BEFORE_YIELD
 * changes nothing (ch4 does not read it). With more ranks than cores each wait then lasts until the
 * scheduler takes the spinning rank off its core, a time slice: ~8 ms a barrier, and
 * `mpirun.mpich -n 3 build/mpich/test_errors quick` takes 40 s where 2 ranks (one per core) take 0.3 s.
 *
 * Preloaded into the ranks (LD_PRELOAD), this wraps ucp_worker_progress, the call MPICH's progress
 * engine makes into UCX, and yields the core when a pass made no progress. Nothing else changes: the
 * same messages, in the same order, through the same calls; the same run above takes 0.7 s. The test
 * suite's MPICH launcher (tests/mpich_run.sh) adds it when COLLDIAG_TEST_MPICH_YIELD names it; runs
 * of MPICH without it remain in the suite (the 2-rank valgrind runs, whose ranks have a core each).
 * A user whose laptop runs more MPICH ranks than cores can preload it the same way.
 *
 * Built by the Makefile as build/mpich/libmpich_yield.so (plain C: no MPI or UCX header is needed). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

typedef unsigned (*progress_fn)(void *worker);

/* UCX: unsigned ucp_worker_progress(ucp_worker_h worker); returns how many events it completed. */
unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    if (!real) real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (!real) return 0; /* not a UCX process: nothing calls this then */
    unsigned n = real(worker);
    if (n == 0) sched_yield(); /* nothing arrived: let the rank we wait for run */
    return n;
}
