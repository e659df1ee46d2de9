/* A plain parallel HDF5 program (no colldiag in it) whose files are opened on communicators other than
 * MPI_COMM_WORLD's own: one over a duplicate of the world, and one a half of the world (even ranks, odd
 * ranks) with its ranks in the reverse of the world's order. The preload makes its communicator for such
 * a file from the MPI_File's group (src/h5_bridge.c, h5_file_comm): the world's duplicate, or
 * MPI_Comm_create_group; a rank taken for another would move another rank's data, and a group made on
 * some ranks only would hang. Each rank writes its rows of a contiguous and a chunked dataset
 * collectively, reads another rank's rows back collectively, and, after the file is closed, every rank
 * reads the whole file again with HDF5's POSIX driver (no MPI-IO, nothing for colldiag to run) and
 * checks every value against the formula the writer used. Then the world's ranks again (the preload lends
 * the communicator it kept), and two files over them open at once, written in turn. Exit 1 on any
 * difference or failed call.
 *
 *   mpirun -n P [-x LD_PRELOAD=...] h5_subcomm BASE   (files BASE.world.h5, .half0.h5, .half1.h5, .again.h5, .both0.h5, .both1.h5)
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROWS = 5, COLS = 6 }; /* a rank's rows, and the columns */

static int bad;

static int value(int color, int row, int col) { return 1000000 * (color + 1) + 100 * row + col; }

static void expect(int ok, const char *what, int wrank)
{
    if (!ok) {
        fprintf(stderr, "h5_subcomm: rank %d: %s\n", wrank, what);
        bad = 1;
    }
}

/* rows [r * ROWS, r * ROWS + ROWS) of the n * ROWS x COLS dataset d, written or read collectively */
static herr_t rows_io(hid_t d, int r, int *buf, int write)
{
    hsize_t off[2] = {(hsize_t)r * ROWS, 0}, cnt[2] = {ROWS, COLS};
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(2, cnt, NULL), dx = H5Pcreate(H5P_DATASET_XFER);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    const herr_t rc = write ? H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dx, buf) : H5Dread(d, H5T_NATIVE_INT, ms, fs, dx, buf);
    H5Pclose(dx);
    H5Sclose(ms);
    H5Sclose(fs);
    return rc;
}

static void one_file(const char *name, MPI_Comm c, int color, int wrank)
{
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    hsize_t dims[2] = {(hsize_t)n * ROWS, COLS}, cd[2] = {3, 4};
    int mine[ROWS * COLS], got[ROWS * COLS];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_fapl_mpio(fapl, c, MPI_INFO_NULL);
    H5Pset_chunk(dcpl, 2, cd);
    hid_t f = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), s = H5Screate_simple(2, dims, NULL);
    hid_t d[2] = {H5Dcreate(f, "contig", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  H5Dcreate(f, "chunked", H5T_NATIVE_INT, s, H5P_DEFAULT, dcpl, H5P_DEFAULT)};
    expect(f >= 0 && d[0] >= 0 && d[1] >= 0, "cannot create the file", wrank);
    for (int i = 0; i < ROWS * COLS; i++) mine[i] = value(color, r * ROWS + i / COLS, i % COLS);
    for (int k = 0; k < 2; k++) expect(rows_io(d[k], r, mine, 1) >= 0, "H5Dwrite failed", wrank);
    const int other = (r + 1) % n; /* another rank's rows: what it wrote, not what this rank holds */
    for (int k = 0; k < 2; k++) {
        expect(rows_io(d[k], other, got, 0) >= 0, "H5Dread failed", wrank);
        for (int i = 0; i < ROWS * COLS; i++)
            if (got[i] != value(color, other * ROWS + i / COLS, i % COLS)) { expect(0, "a value read back collectively differs", wrank); break; }
    }
    H5Dclose(d[0]);
    H5Dclose(d[1]);
    H5Sclose(s);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    expect(H5Fclose(f) >= 0, "H5Fclose failed", wrank);
    MPI_Barrier(c);
    /* the whole file, as HDF5's POSIX driver reads it */
    int *all = malloc(sizeof *all * (size_t)n * ROWS * COLS);
    f = H5Fopen(name, H5F_ACC_RDONLY, H5P_DEFAULT);
    for (int k = 0; k < 2 && all; k++) {
        hid_t ds = H5Dopen(f, k ? "chunked" : "contig", H5P_DEFAULT);
        expect(ds >= 0 && H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "the POSIX read failed", wrank);
        for (int i = 0; i < n * ROWS * COLS; i++)
            if (all[i] != value(color, i / COLS, i % COLS)) { expect(0, "a value in the file differs", wrank); break; }
        H5Dclose(ds);
    }
    H5Fclose(f);
    free(all);
}

/* Two files over the same ranks open at once, their collective calls interleaved (A, B, A, B): the
   preload lends a kept communicator to one file at a time, so each has its own (a shared one would match
   one file's reductions with the other's). Checked as one_file checks. */
static void two_files_at_once(const char *base, MPI_Comm c, int wrank)
{
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    hsize_t dims[2] = {(hsize_t)n * ROWS, COLS};
    int mine[ROWS * COLS], got[ROWS * COLS];
    char name[2][4096];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f[2], s = H5Screate_simple(2, dims, NULL), d[2];
    H5Pset_fapl_mpio(fapl, c, MPI_INFO_NULL);
    for (int k = 0; k < 2; k++) {
        snprintf(name[k], sizeof name[k], "%s.both%d.h5", base, k);
        f[k] = H5Fcreate(name[k], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        d[k] = H5Dcreate(f[k], "contig", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        expect(f[k] >= 0 && d[k] >= 0, "cannot create a file", wrank);
    }
    for (int step = 0; step < 4; step++) { /* A, B, A, B: rewrites with the step's values */
        const int k = step % 2;
        for (int i = 0; i < ROWS * COLS; i++) mine[i] = value(3 + k, r * ROWS + i / COLS, i % COLS) + 7 * step;
        expect(rows_io(d[k], r, mine, 1) >= 0, "H5Dwrite failed (two files open)", wrank);
    }
    for (int k = 0; k < 2; k++) {
        const int other = (r + 1) % n;
        expect(rows_io(d[k], other, got, 0) >= 0, "H5Dread failed (two files open)", wrank);
        for (int i = 0; i < ROWS * COLS; i++)
            if (got[i] != value(3 + k, other * ROWS + i / COLS, i % COLS) + 7 * (2 + k)) { expect(0, "a value read back differs (two files open)", wrank); break; }
        H5Dclose(d[k]);
        expect(H5Fclose(f[k]) >= 0, "H5Fclose failed", wrank);
    }
    H5Sclose(s);
    H5Pclose(fapl);
    MPI_Barrier(c);
    int *all = malloc(sizeof *all * (size_t)n * ROWS * COLS);
    for (int k = 0; k < 2 && all; k++) {
        hid_t pf = H5Fopen(name[k], H5F_ACC_RDONLY, H5P_DEFAULT), ds = H5Dopen(pf, "contig", H5P_DEFAULT);
        expect(ds >= 0 && H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0, "the POSIX read failed", wrank);
        for (int i = 0; i < n * ROWS * COLS; i++)
            if (all[i] != value(3 + k, i / COLS, i % COLS) + 7 * (2 + k)) { expect(0, "a value in the file differs (two files open)", wrank); break; }
        H5Dclose(ds);
        H5Fclose(pf);
    }
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2) { fprintf(stderr, "usage: h5_subcomm BASE\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    char name[4096];
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    snprintf(name, sizeof name, "%s.world.h5", argv[1]);
    one_file(name, dup, 2, wrank);
    const int color = wrank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, -wrank, &half); /* the reverse of the world's order */
    snprintf(name, sizeof name, "%s.half%d.h5", argv[1], color);
    one_file(name, half, color, wrank);
    snprintf(name, sizeof name, "%s.again.h5", argv[1]); /* the world's ranks again: a kept communicator */
    one_file(name, dup, 2, wrank);
    two_files_at_once(argv[1], dup, wrank);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (wrank == 0) printf("h5_subcomm: %s (%d ranks: a world duplicate, two halves in reverse order, the world again, two files at once)\n", any ? "FAILED" : "ok", wsize);
    MPI_Finalize();
    return any;
}
