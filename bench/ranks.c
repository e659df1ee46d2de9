/* ranks — how planning (mapping + deciding) grows with the number of ranks, at a fixed number of touched
 * chunks per rank (issue 13, item 5).
 *
 *   make bench-ranks [RANKS_LIST="2 4 8 16"]      (runs this program once per rank count)
 *
 * Each rank selects a slab of 16 planes of a {16 P, 64, 64} int dataset with 4^3 chunks, shifted by two
 * planes so that every slab boundary splits a chunk plane between two ranks: 1,280 touched chunks per
 * rank (the last rank 1,024), 256 of them shared, whatever P. For link-chunk, multi-chunk (rank counts
 * per chunk + the list of collective chunks) and aggregation (rank counts + owners), colldiag_plan is
 * timed 15 times (the three schemes interleaved, after 3 untimed rounds) and split, on every rank, into
 *   - local work: the CPU time of the call outside MPI collectives (PMPI wrappers below time
 *     MPI_Allreduce / Alltoall / Alltoallv / Allgather / Allgatherv / Barrier); CPU time, because on an
 *     oversubscribed machine a rank's wall time includes its turns off the core;
 *   - the rest: the call's wall time minus that local work: MPI, and waiting for the other ranks.
 * It prints the slowest rank's local work, the least of the 15 (time slices of other ranks on the same
 * core pollute the caches and only add to it), and the median of the rest. Local work must not grow faster than log P;
 * the steps that are O(P) per rank (an all-to-all of counts, an all-gather of counts) show in the MPI
 * column; docs/design.md ("Scale") says what they hold at 10,000 ranks.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colldiag.h"

#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
/* CPU time of this thread: on an oversubscribed machine a rank's wall time includes its turns off the
   core, so local work is measured as CPU time outside MPI, not as wall time */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double g_mpi, g_mpi_cpu; /* wall and CPU seconds inside MPI collectives, this rank */
#define TIMED(call)                                    \
    do {                                               \
        double t0_ = PMPI_Wtime(), c0_ = cpu_now();    \
        int rc_ = (call);                              \
        g_mpi += PMPI_Wtime() - t0_;                   \
        g_mpi_cpu += cpu_now() - c0_;                  \
        return rc_;                                    \
    } while (0)
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) { TIMED(PMPI_Allreduce(s, r, n, t, op, c)); }
int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm c)
{
    TIMED(PMPI_Alltoall(s, sc, st, r, rc, rt, c));
}
int MPI_Alltoallv(const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r, const int *rc, const int *rd,
                  MPI_Datatype rt, MPI_Comm c)
{
    TIMED(PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, c));
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm c)
{
    TIMED(PMPI_Allgather(s, sc, st, r, rc, rt, c));
}
int MPI_Allgatherv(const void *s, int sc, MPI_Datatype st, void *r, const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
    TIMED(PMPI_Allgatherv(s, sc, st, r, rc, rd, rt, c));
}
int MPI_Barrier(MPI_Comm c) { TIMED(PMPI_Barrier(c)); }

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* glibc moves its mmap threshold the first time a large block is freed, so whether a call's
       buffers fault in fresh pages every time depends on the process's history: multi's local work at
       16 ranks came out 106-143 us in some runs and 438-503 us in others. Fixed thresholds measure
       colldiag, not that history (with them: 136-176 us in three runs). */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const int reps = 15, warm = 3;
    uint64_t dims[3] = {16 * (uint64_t)P, 64, 64}, cd[3] = {4, 4, 4};
    uint64_t lo = (uint64_t)me * 16 + 2, hi = lo + 16 > dims[0] ? dims[0] : lo + 16;
    colldiag_file *f;
    char path[256];
    snprintf(path, sizeof path, "%s/colldiag_ranks_%d.bin", argc > 1 ? argv[1] : "/tmp", P);
    if (colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f)) {
        fprintf(stderr, "ranks: %s\n", colldiag_last_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    colldiag_layout *l;
    colldiag_layout_chunked(3, dims, cd, 4, 0, &l);
    colldiag_sel *s;
    colldiag_sel_create(3, dims, &s);
    uint64_t st[3] = {lo, 0, 0}, cn[3] = {hi - lo, 64, 64};
    colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    const uint64_t touched = ((hi - 1) / 4 - lo / 4 + 1) * 16 * 16;
    const int opts[3] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO};
    const char *names[3] = {"link", "multi", "aggregate"};
    if (!me) printf("%-3s %-10s %9s %12s %14s %12s\n", "P", "scheme", "chunks", "local (us)", "local/chunk (ns)", "rest (us)");
    /* the schemes interleaved, repetition by repetition, after warm-up plans: measured one after the
       other, whichever came second paid for the allocator's first large blocks (2-3x, in any order) */
    colldiag_xfer *x[3];
    double loc[3][32], mpi[3][32];
    for (int o = 0; o < 3; o++) {
        colldiag_xfer_create(&x[o]);
        colldiag_set_dxpl_mpio(x[o], COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(x[o], (colldiag_chunk_opt_t)opts[o]);
    }
    for (int r = -warm; r < reps; r++)
        for (int o = 0; o < 3; o++) {
            PMPI_Barrier(MPI_COMM_WORLD);
            g_mpi = g_mpi_cpu = 0;
            double t0 = MPI_Wtime(), c0 = cpu_now();
            if (colldiag_plan(f, l, s, NULL, x[o])) {
                fprintf(stderr, "ranks: rank %d: %s\n", me, colldiag_xfer_errmsg(x[o]));
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            double t = MPI_Wtime() - t0, c = cpu_now() - c0, v[2] = {c - g_mpi_cpu, t - (c - g_mpi_cpu)}, g[2];
            (void)g_mpi;
            PMPI_Allreduce(v, g, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r < 0) continue;
            loc[o][r] = g[0];
            mpi[o][r] = g[1];
        }
    for (int o = 0; o < 3; o++) {
        qsort(loc[o], reps, sizeof *loc[o], cmp_d);
        qsort(mpi[o], reps, sizeof *mpi[o], cmp_d);
        if (!me)
            printf("%-3d %-10s %9llu %12.1f %14.1f %12.1f\n", P, names[o], (unsigned long long)touched, loc[o][0] * 1e6,
                   loc[o][0] * 1e9 / (double)touched, mpi[o][reps / 2] * 1e6);
        colldiag_xfer_free(x[o]);
    }
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    MPI_Finalize();
    return 0;
}
