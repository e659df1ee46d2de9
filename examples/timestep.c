/* timestep — a simulation's history step in ONE collective call: 12 fields (2-D and 3-D chunked
 * variables of doubles and floats, and a contiguous 1-D diagnostic of ints), each rank writing its slab
 * of every one with colldiag_write_multi, then reading every field back with colldiag_read_multi and
 * checking each value. Prints what the call did per dataset (the report) and how many collective MPI
 * data calls it made against 12 separate colldiag_write calls.
 *   mpirun -n 3 ./timestep [file] */
#include "colldiag.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVAR 12
#define NY 48 /* rows per rank */
#define NX 40
#define NZ 6

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    colldiag_file *f;
    if (colldiag_file_open(MPI_COMM_WORLD, argc > 1 ? argv[1] : "timestep.bin", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                           COLLDIAG_DRIVER_MPIO, &f)) {
        fprintf(stderr, "rank %d: %s\n", rank, colldiag_last_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const uint64_t ny = NY * (uint64_t)nprocs;
    colldiag_layout *l[NVAR];
    colldiag_sel *s[NVAR];
    void *buf[NVAR], *back[NVAR];
    size_t bytes[NVAR];
    MPI_Offset at = 0; /* the variables' storage, one after another (an HDF5 file would give addresses) */
    for (int v = 0; v < NVAR; v++) {
        const int kind = v == NVAR - 1 ? 2 : v % 3 == 2 ? 1 : 0;           /* 0: 2-D double, 1: 3-D float, 2: 1-D int */
        const int r = kind == 1 ? 3 : kind == 2 ? 1 : 2;
        const size_t es = kind == 0 ? sizeof(double) : kind == 1 ? sizeof(float) : sizeof(int);
        uint64_t dims[3] = {ny, NX, NZ}, chunk[3] = {16, 20, NZ}, start[3] = {NY * (uint64_t)rank, 0, 0}, count[3] = {NY, NX, NZ};
        if (kind == 2) { dims[0] = 8 * (uint64_t)nprocs; start[0] = 8 * (uint64_t)rank; count[0] = 8; }
        uint64_t total = 1, mine = 1;
        for (int d = 0; d < r; d++) { total *= dims[d]; mine *= count[d]; }
        if (kind == 2) colldiag_layout_contiguous(1, dims, es, at, &l[v]);
        else colldiag_layout_chunked(r, dims, chunk, es, at, &l[v]);
        uint64_t nchunks = 1;
        for (int d = 0; kind != 2 && d < r; d++) nchunks *= (dims[d] + chunk[d] - 1) / chunk[d];
        at += (MPI_Offset)(kind == 2 ? total * es : nchunks * (16 * 20 * (kind == 1 ? NZ : 1)) * es);
        colldiag_sel_create(r, dims, &s[v]);
        colldiag_sel_select_hyperslab(s[v], COLLDIAG_SELECT_SET, start, NULL, count, NULL);
        bytes[v] = (size_t)(mine * es);
        buf[v] = malloc(bytes[v]);
        back[v] = calloc(1, bytes[v]);
        for (uint64_t i = 0; i < mine; i++) { /* value: variable, rank, element */
            const double val = v * 1e6 + rank * 1e4 + (double)i;
            if (kind == 0) ((double *)buf[v])[i] = val;
            else if (kind == 1) ((float *)buf[v])[i] = (float)(v * 1000 + rank * 100 + (int)(i % 100));
            else ((int *)buf[v])[i] = (int)val;
        }
    }
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    /* link-chunk: every variable's pieces in one collective MPI call (COLLDIAG_MPIO_CHUNK_AUTO would pick
       by its cost model; here each rank's slab holds whole chunks, so it picks independent writes) */
    colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_ONE_IO);

    /* the whole step in one call */
    int rc = colldiag_write_multi(f, NVAR, (const colldiag_layout *const *)l, (const colldiag_sel *const *)s, NULL /* packed */,
                                  (const void *const *)buf, x);
    if (rc) fprintf(stderr, "rank %d: %s\n", rank, colldiag_xfer_errmsg(x)); /* the same failure on every rank */
    colldiag_counters one;
    colldiag_get_counters(x, &one);
    colldiag_report_print(f, x, stdout); /* collective; rank 0 prints every dataset's line */

    /* read the step back in one call and check every value */
    if (!rc) rc = colldiag_read_multi(f, NVAR, (const colldiag_layout *const *)l, (const colldiag_sel *const *)s, NULL, back, x);
    int bad = 0;
    for (int v = 0; v < NVAR && !rc; v++) bad += memcmp(buf[v], back[v], bytes[v]) != 0;

    /* the same step as 12 separate calls, for comparison */
    uint64_t separate = 0;
    for (int v = 0; v < NVAR && !rc; v++) {
        colldiag_counters c;
        rc = colldiag_write(f, l[v], s[v], NULL, buf[v], x);
        colldiag_get_counters(x, &c);
        separate += c.calls_collective;
    }
    printf("rank %d: one call: %llu collective data calls; %d separate calls: %llu; read back %s\n", rank,
           (unsigned long long)one.calls_collective, NVAR, (unsigned long long)separate, rc ? "failed" : bad ? "WRONG" : "every value equal");
    for (int v = 0; v < NVAR; v++) {
        colldiag_layout_free(l[v]);
        colldiag_sel_free(s[v]);
        free(buf[v]);
        free(back[v]);
    }
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    MPI_Finalize();
    return rc || bad;
}
