/* h5_direct_chunk: plain parallel HDF5 (no colldiag in it): can ranks write compressed chunks themselves
 * with H5Dwrite_chunk into a file open on all of them (the MPI-IO driver)? The question behind filtered
 * writes through colldiag (issue 63 item 2, docs/hdf5.md): an owner that compressed a chunk would have
 * to put it in the file with HDF5's chunk index kept right.
 *
 * A 1-D float64 dataset of P chunks of 64 elements, deflate level 1, created collectively. Three ways to
 * write chunk k (values k * 1000 + i, stored with the deflate filter skipped: filter mask 1), each into a fresh file, closed, then read back by rank 0 alone
 * (serial driver) and checked element by element:
 *   own     rank k writes chunk k only (an owner-compresses scheme);
 *   rank0   rank 0 writes every chunk, the others none;
 *   every   every rank writes every chunk, the same bytes (HDF5's metadata rules for parallel files:
 *           every rank makes the same metadata changes).
 * Prints `NAME: right` or `NAME: WRONG (...)`, and what H5Dwrite_chunk returned on each rank. Exits 0
 * unless `every` came out wrong while every rank's H5Dwrite_chunk said it succeeded, or HDF5 could not
 * create the file (the other two are HDF5's behaviour, reported: with 1.10.8 they lose chunks silently).
 *
 * rank0 runs only with --only rank0: rank 0 then waits inside HDF5 for the others on some stacks (1.10.8
 * on 4 ranks, 1.14.5 on 3; on 2 and 3 ranks 1.10.8 returns and has lost the chunks).
 *
 *   mpirun -n P h5_direct_chunk DIR [--only own|rank0|every]
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { E = 64 };
static int me, np;

/* Chunk k's values as stored bytes: written with filter mask 1 (the deflate filter skipped, as
   H5Dwrite_chunk allows), so that the test needs no zlib; the chunk index is what is tested. */
static size_t chunk_bytes(int k, unsigned char *z, size_t cap)
{
    double b[E];
    for (int i = 0; i < E; i++) b[i] = k * 1000.0 + i;
    if (cap < sizeof b) return 0;
    memcpy(z, b, sizeof b);
    return sizeof b;
}

static int run(const char *dir, const char *name, int way)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/h5_direct_chunk-%s.h5", dir, name);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0) return -1;
    hsize_t dims[1] = {(hsize_t)E * (hsize_t)np}, ch[1] = {E};
    hid_t sp = H5Screate_simple(1, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, ch);
    H5Pset_deflate(dcpl, 1);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(sp);
    if (d < 0) return -1;
    unsigned char z[2048];
    herr_t rc = 0;
    for (int k = 0; k < np; k++) {
        const int mine = way == 0 ? k == me : way == 1 ? me == 0 : 1;
        if (!mine) continue;
        const size_t n = chunk_bytes(k, z, sizeof z);
        hsize_t off[1] = {(hsize_t)k * E};
        if (n == 0 || H5Dwrite_chunk(d, H5P_DEFAULT, 1, off, n, z) < 0) rc = -1;
    }
    H5Dclose(d);
    H5Fclose(f);
    int *rcs = malloc((size_t)np * sizeof *rcs), r = (int)rc;
    MPI_Gather(&r, 1, MPI_INT, rcs, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int verdict = 0;
    if (me == 0) {
        double *a = calloc((size_t)E * (size_t)np, sizeof *a);
        hid_t g = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t q = g >= 0 ? H5Dopen2(g, "d", H5P_DEFAULT) : -1;
        herr_t rr = -1;
        H5E_BEGIN_TRY { rr = q >= 0 ? H5Dread(q, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) : -1; }
        H5E_END_TRY;
        long wrong = 0, first = -1;
        for (long i = 0; rr >= 0 && i < (long)E * np; i++)
            if (a[i] != (double)(i / E) * 1000.0 + (double)(i % E)) { wrong++; if (first < 0) first = i; }
        printf("%s: ", name);
        if (rr < 0) printf("WRONG (HDF5 cannot read the dataset back)");
        else if (wrong) printf("WRONG (%ld of %ld values, the first at %ld: %g)", wrong, (long)E * np, first, a[first]);
        else printf("right");
        printf("; H5Dwrite_chunk returned");
        for (int q2 = 0; q2 < np; q2++) printf(" %d", rcs[q2]);
        printf("\n");
        int refused = 0; /* an HDF5 that refuses the call says so: not a silent loss */
        for (int q2 = 0; q2 < np; q2++) refused |= rcs[q2] < 0;
        verdict = (rr < 0 || wrong) && !refused ? 1 : 0;
        if (q >= 0) H5Dclose(q);
        if (g >= 0) H5Fclose(g);
        free(a);
        remove(path);
    }
    free(rcs);
    MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return verdict;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *dir = argc > 1 ? argv[1] : "/tmp", *only = argc > 3 && !strcmp(argv[2], "--only") ? argv[3] : NULL;
    const int own = !only || !strcmp(only, "own") ? run(dir, "own", 0) : 0;
    /* rank 0 writing chunks alone can wait inside HDF5 for the others: it hung with 1.10.8 on 4 ranks
       (on 2 and 3 it lost the chunks) and with 1.14.5 on 3; run only when asked */
    const int rank0 = only && !strcmp(only, "rank0") ? run(dir, "rank0", 1) : 0;
    if (!only && me == 0) printf("rank0: not run: rank 0 writing chunks alone can hang inside HDF5 (--only rank0 runs it)\n");
    const int every = !only || !strcmp(only, "every") ? run(dir, "every", 2) : 0;
    MPI_Finalize();
    return own < 0 || rank0 < 0 || every != 0;
}
