/* An unmodified HDF5 program reading compressed data in parallel: the test and benchmark of filtered
 * reads under the preload (issue 63). It knows nothing of colldiag.
 *
 * Rank 0 writes FILE alone (HDF5's serial driver, as an instrument or a serial model would): /d, an N x N
 * float64 dataset in C x C chunks with shuffle (unless --noshuffle) and deflate at --level; /partial, the
 * same with Fletcher-32 too and only some chunks written (the others read as the fill value, 0); /fill,
 * the same without Fletcher-32 and with a fill value of -7.5, as netCDF-4 sets one for every variable; then
 * every rank opens FILE with the MPI-IO driver and reads each dataset collectively in three patterns
 * (every rank a block of rows; a block of columns; 16-column blocks dealt round-robin), --reps times
 * each, and checks every value it read against the formula it wrote them with. Standard output: per
 * pattern, how many values every rank read right (the same plain and under the preload), and the chunks
 * the pattern touches that are stored (the test's own count: what colldiag must decode, once each).
 * Standard error: each pattern's slowest rank's seconds a read, for the benchmark.
 *
 *   h5_filtered FILE [--n N] [--chunk C] [--level L] [--noshuffle] [--reps R] [--read-only] [--only-d]
 * (--only-d: read /d alone, as the benchmark does)
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;
static hsize_t N = 512, C = 64;

static double value(hsize_t i, hsize_t j) { return (double)(i * N + j) * 0.25; }
/* /partial: chunk (a, b) written when this says so (the others never are) */
static int written(hsize_t a, hsize_t b) { return (a * 7 + b * 3) % 5 != 0; }

static void create(const char *path, int level, int shuffle)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {N, N}, ch[2] = {C, C};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    double *buf = malloc(N * N * sizeof *buf);
    for (hsize_t i = 0; i < N; i++)
        for (hsize_t j = 0; j < N; j++) buf[i * N + j] = value(i, j);
    for (int k = 0; k < 3; k++) {
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        const double fill = -7.5;
        if (k == 2) H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill);
        H5Pset_chunk(dcpl, 2, ch);
        if (shuffle) H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, (unsigned)level);
        if (k == 1) H5Pset_fletcher32(dcpl);
        hid_t ds = H5Dcreate2(f, k == 0 ? "d" : k == 1 ? "partial" : "fill", H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (k == 0) {
            H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        } else {
            for (hsize_t a = 0; a * C < N; a++)
                for (hsize_t b = 0; b * C < N; b++) {
                    if (!written(a, b)) continue;
                    hsize_t st[2] = {a * C, b * C}, cnt[2] = {N - a * C < C ? N - a * C : C, N - b * C < C ? N - b * C : C};
                    hid_t fs = H5Dget_space(ds);
                    H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL);
                    hid_t ms = H5Screate_simple(2, dims, NULL);
                    H5Sselect_hyperslab(ms, H5S_SELECT_SET, st, NULL, cnt, NULL);
                    H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
                    H5Sclose(ms);
                    H5Sclose(fs);
                }
        }
        H5Dclose(ds);
        H5Pclose(dcpl);
    }
    free(buf);
    H5Sclose(sp);
    H5Fclose(f);
}

/* The pattern's selection on this rank: p 0 rows, 1 columns, 2 16-column blocks round-robin. */
static void select_pattern(hid_t fs, int p)
{
    H5Sselect_none(fs);
    if (p < 2) {
        hsize_t lo = N * (hsize_t)me / (hsize_t)np, hi = N * (hsize_t)(me + 1) / (hsize_t)np;
        if (hi == lo) return;
        hsize_t st[2] = {p ? 0 : lo, p ? lo : 0}, cnt[2] = {p ? N : hi - lo, p ? hi - lo : N};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL);
    } else {
        for (hsize_t b = (hsize_t)me * 16; b < N; b += (hsize_t)np * 16) {
            hsize_t st[2] = {0, b}, cnt[2] = {N, N - b < 16 ? N - b : 16};
            H5Sselect_hyperslab(fs, H5S_SELECT_OR, st, NULL, cnt, NULL);
        }
    }
}

/* This rank's element (i, j) is selected in pattern p. */
static int mine(int p, hsize_t i, hsize_t j)
{
    if (p == 0) return i >= N * (hsize_t)me / (hsize_t)np && i < N * (hsize_t)(me + 1) / (hsize_t)np;
    if (p == 1) return j >= N * (hsize_t)me / (hsize_t)np && j < N * (hsize_t)(me + 1) / (hsize_t)np;
    return (j / 16) % (hsize_t)np == (hsize_t)me;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        if (me == 0) fprintf(stderr, "usage: h5_filtered FILE [--n N] [--chunk C] [--level L] [--noshuffle] [--reps R] [--read-only]\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1];
    int level = 1, shuffle = 1, reps = 1, read_only = 0, only_d = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) N = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) C = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--level") && i + 1 < argc) level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--noshuffle")) shuffle = 0;
        else if (!strcmp(argv[i], "--read-only")) read_only = 1;
        else if (!strcmp(argv[i], "--only-d")) only_d = 1;
    }
    if (me == 0 && !read_only) create(path, level, shuffle);
    MPI_Barrier(MPI_COMM_WORLD);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    static const char *const pname[3] = {"rows", "columns", "16-column blocks"};
    int bad_all = 0;
    for (int k = 0; k < (only_d ? 1 : 3); k++) {
        const char *name = k == 0 ? "d" : k == 1 ? "partial" : "fill";
        hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
        for (int p = 0; p < 3; p++) {
            hid_t fs = H5Dget_space(ds);
            select_pattern(fs, p);
            hssize_t n = H5Sget_select_npoints(fs);
            hsize_t mn = n > 0 ? (hsize_t)n : 1;
            hid_t ms = H5Screate_simple(1, &mn, NULL);
            if (n <= 0) H5Sselect_none(ms);
            double *buf = malloc(mn * sizeof *buf), tmax = 0;
            uint64_t bad = 0;
            for (int r = 0; r < reps; r++) {
                memset(buf, 0xff, mn * sizeof *buf);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                if (H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, buf) < 0) bad++;
                double t = MPI_Wtime() - t0, tm = 0;
                MPI_Allreduce(&t, &tm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (r == 0 || tm < tmax) tmax = tm; /* the fastest repetition */
                /* the values in selection order (row-major over the selected elements) */
                hsize_t e = 0;
                for (hsize_t i = 0; i < N; i++)
                    for (hsize_t j = 0; j < N; j++) {
                        if (!mine(p, i, j)) continue;
                        const double want = k && !written(i / C, j / C) ? (k == 2 ? -7.5 : 0.0) : value(i, j);
                        bad += e >= (hsize_t)(n > 0 ? n : 0) || buf[e] != want;
                        e++;
                    }
            }
            uint64_t all = 0, vals = (uint64_t)(n > 0 ? n : 0), vall = 0;
            MPI_Allreduce(&bad, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(&vals, &vall, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
            /* chunks the pattern touches that are stored: every chunk is touched by the patterns (each reads
               the whole dataset); /partial's unwritten ones are not stored */
            uint64_t stored = 0, reads = 0, rall = 0;
            for (hsize_t a = 0; a * C < N; a++)
                for (hsize_t b = 0; b * C < N; b++) {
                    stored += !k || written(a, b);
                    /* and those this rank selects from: HDF5 reads and inflates each on every such rank */
                    int any = 0;
                    for (hsize_t i = a * C; i < (a + 1) * C && i < N && !any; i++)
                        for (hsize_t j = b * C; j < (b + 1) * C && j < N && !any; j++) any = mine(p, i, j);
                    reads += any && (!k || written(a, b));
                }
            MPI_Allreduce(&reads, &rall, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
            if (me == 0) {
                printf("/%s %s: %llu values on %d ranks, %s; %llu stored chunks touched, %llu times by a rank\n", name, pname[p],
                       (unsigned long long)vall, np, all ? "SOME WRONG" : "every value right", (unsigned long long)stored,
                       (unsigned long long)rall);
                fprintf(stderr, "time /%s %s %.6f\n", name, pname[p], tmax);
            }
            bad_all += all != 0;
            free(buf);
            H5Sclose(ms);
            H5Sclose(fs);
        }
        H5Dclose(ds);
    }
    H5Pclose(dxpl);
    H5Fclose(f);
    H5Pclose(fapl);
    MPI_Finalize();
    return bad_all ? 1 : 0;
}
