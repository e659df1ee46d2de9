/* h5_engine: a plain parallel HDF5 time-step loop (no colldiag), for the preload's measured engine
 * (tests/test_engine.sh). Every call writes one row of a 2-D dataset of doubles, {CALLS, P x E} in
 * chunks of {1, E}: rank r writes the chunk of row c at column block r, whole, its own (a collective
 * write whose ranks each write whole chunks of their own: the rule WHOLE_CHUNKS gives it to HDF5's path
 * from 256 KiB a rank, the rule FASTER to colldiag's below). Then every rank reads the whole dataset
 * back, collectively, and checks every value against the formula that wrote it: exit 1 on any
 * difference, on every rank. With READS, a read loop follows: READS collective reads, read r of row
 * r % CALLS, each rank its own chunk of it, every value checked (the preload's leases: the same class
 * of read, call after call).
 *
 *   mpirun -n P h5_engine FILE CALLS ELEMS_PER_RANK [READS]
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double value(hsize_t row, hsize_t col) { return (double)row * 1e7 + (double)col; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 4) {
        if (me == 0) fprintf(stderr, "usage: h5_engine FILE CALLS ELEMS_PER_RANK\n");
        MPI_Finalize();
        return 2;
    }
    const hsize_t calls = (hsize_t)atol(argv[2]), E = (hsize_t)atol(argv[3]);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims[2] = {calls, (hsize_t)P * E}, cd[2] = {1, E};
    hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, cd);
    hid_t dset = H5Dcreate2(file, "steps", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    double *buf = malloc(E * sizeof *buf);
    hid_t mem = H5Screate_simple(1, &E, NULL);
    int bad = buf == NULL || file < 0 || dset < 0;
    for (hsize_t c = 0; c < calls && !bad; c++) {
        hsize_t st[2] = {c, (hsize_t)me * E}, cn[2] = {1, E};
        for (hsize_t j = 0; j < E; j++) buf[j] = value(c, st[1] + j);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, st, NULL, cn, NULL);
        if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, space, dxpl, buf) < 0) bad = 1;
    }
    /* every value, read back by every rank (one collective read of the whole dataset) */
    double *all = malloc(calls * (hsize_t)P * E * sizeof *all);
    if (!all) bad = 1;
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) {
        H5Sselect_all(space);
        if (H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, space, dxpl, all) < 0) bad = 1;
        for (hsize_t i = 0; i < calls && !bad; i++)
            for (hsize_t j = 0; j < (hsize_t)P * E; j++)
                if (all[i * (hsize_t)P * E + j] != value(i, j)) {
                    fprintf(stderr, "rank %d: row %llu column %llu reads %g, wrote %g\n", me, (unsigned long long)i, (unsigned long long)j,
                            all[i * (hsize_t)P * E + j], value(i, j));
                    bad = 1;
                    break;
                }
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const long reads = argc > 4 ? atol(argv[4]) : 0;
    for (long r = 0; r < reads && !any && !bad; r++) {
        const hsize_t row = (hsize_t)r % calls;
        hsize_t st[2] = {row, (hsize_t)me * E}, cn[2] = {1, E};
        for (hsize_t j = 0; j < E; j++) buf[j] = -1;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, st, NULL, cn, NULL);
        if (H5Dread(dset, H5T_NATIVE_DOUBLE, mem, space, dxpl, buf) < 0) bad = 1;
        for (hsize_t j = 0; j < E && !bad; j++)
            if (buf[j] != value(row, st[1] + j)) {
                fprintf(stderr, "rank %d: read %ld, row %llu column %llu reads %g, wrote %g\n", me, r, (unsigned long long)row,
                        (unsigned long long)(st[1] + j), buf[j], value(row, st[1] + j));
                bad = 1;
            }
    }
    if (reads) MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    free(all);
    free(buf);
    H5Sclose(mem);
    H5Pclose(dxpl);
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    H5Pclose(fapl);
    if (me == 0) printf("h5_engine: %llu calls of %llu doubles a rank, %s\n", (unsigned long long)calls, (unsigned long long)E, any ? "FAILED" : "every value right");
    MPI_Finalize();
    return any;
}
