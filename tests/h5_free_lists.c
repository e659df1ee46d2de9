/* After the program closes a file, how much memory do HDF5's free lists hold? The preload must not add
 * more than a few bytes to what plain HDF5 holds (tests/test_free_lists.sh): blocks its own queries take
 * from HDF5's lists stay there for the process's life and pin the heap's top. H5get_free_list_sizes counts
 * the blocks its lists allocated, in use or free.
 * Each rank writes its block of rows of a shared file collectively, closes the file, and asks HDF5 how
 * many bytes its free lists hold (H5get_free_list_sizes, HDF5 1.10.7+); then reopens the file and checks
 * every value against the one it computes (the bytes are the program's). Each rank prints
 * "rank R: free lists N bytes", and "rank R: bytes ok" or a mismatch
 * (tests/test_free_lists.sh checks every rank).
 *   mpirun -n P h5_free_lists FILE */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 64
#define COLS 256

static hid_t mpio_fapl(void)
{
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    return fapl;
}

/* The value at (row, col): what every rank expects, computed here. */
static int expected(hsize_t row, hsize_t col) { return (int)(row * 1000003u + col * 7u + 11u); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me = 0, np = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        if (me == 0) fprintf(stderr, "usage: h5_free_lists FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *buf = malloc(sizeof *buf * ROWS * COLS);
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
    const hsize_t dims[2] = {(hsize_t)np * ROWS, COLS}, start[2] = {(hsize_t)me * ROWS, 0}, count[2] = {ROWS, COLS};
    for (hsize_t r = 0; r < ROWS; r++)
        for (hsize_t c = 0; c < COLS; c++) buf[r * COLS + c] = expected(start[0] + r, c);
    hid_t fapl = mpio_fapl();
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    const hid_t space = H5Screate_simple(2, dims, NULL), mem = H5Screate_simple(2, count, NULL);
    const hid_t d = H5Dcreate2(f, "rows", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    herr_t ok = H5Dwrite(d, H5T_NATIVE_INT, mem, space, dxpl, buf);
    H5Dclose(d);
    const herr_t closed = H5Fclose(f);
    size_t reg = 0, arr = 0, blk = 0, fac = 0;
    H5get_free_list_sizes(&reg, &arr, &blk, &fac);
    printf("rank %d: free lists %zu bytes\n", me, reg + arr + blk + fac);
    for (size_t i = 0; i < (size_t)ROWS * COLS; i++) buf[i] = -1;
    f = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    const hid_t d2 = H5Dopen2(f, "rows", H5P_DEFAULT);
    if (ok >= 0) ok = H5Dread(d2, H5T_NATIVE_INT, mem, space, dxpl, buf);
    long bad = ok < 0 || closed < 0 ? -1 : 0;
    for (hsize_t r = 0; bad == 0 && r < ROWS; r++)
        for (hsize_t c = 0; c < COLS; c++)
            if (buf[r * COLS + c] != expected(start[0] + r, c)) bad++;
    if (bad) printf("rank %d: bytes wrong (%ld values; -1: a call failed)\n", me, bad);
    else printf("rank %d: bytes ok\n", me);
    H5Dclose(d2);
    H5Fclose(f);
    H5Pclose(dxpl);
    H5Sclose(mem);
    H5Sclose(space);
    H5Pclose(fapl);
    free(buf);
    MPI_Finalize();
    return 0;
}
