/* B6, many small variables written once (a benchmark, not a test): what COLLDIAG_ACCELERATE=1 costs a
 * program whose every H5Dwrite is the first on its dataset -- a netCDF-4 file defining V variables, then
 * writing each once, collectively, each rank a band of rows (96 x 64 ints, 16 x 16 chunks: 24 chunks).
 *
 *   mpirun -n 3 build/openmpi/bench-manyvars [dir] [reps] [V]     (make bench runs it; needs HDF5)
 *
 * Variants, interleaved within each repetition so that the machine's noise hits them alike:
 *   hdf5        H5Dwrite, as the program does
 *   accel       colldiag_h5_write, and H5Dwrite when it returns COLLDIAG_ERR_UNSUPPORTED: exactly what
 *               the preload runs with COLLDIAG_ACCELERATE=1 (with the preload's h5_env_uniform: every
 *               rank has the same environment, which the preload makes sure of when MPI starts; and
 *               colldiag_h5_created after each H5Dcreate2, timed in the whole program)
 * each on a file with local metadata reads (h5py's and plain C programs' default: HDF5's own chunk
 * lookup applies) and on one with H5Pset_all_coll_metadata_ops (netCDF-4's: the chunk index must come
 * from the file, after a flush, which small calls do not pay for). Times: the write phase and the whole
 * (create the file and the V datasets, write, close), max over ranks, median of reps. Every variant's
 * file is read back by HDF5 and compared with the values written, every element. Target (issue 25):
 * accel <= 1.05x hdf5, the whole program. */
#define _GNU_SOURCE
#include "../colldiag.c" /* one translation unit with the kit, like the preload: h5_env_uniform below */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROWS = 96, COLS = 64, CR = 16, CC = 16 };
static int me, P;

static int value(int v, hsize_t i) { return v * 100003 + (int)i; }

static int by_value(const void *a, const void *b)
{
    const double d = *(const double *)a - *(const double *)b;
    return d < 0 ? -1 : d > 0;
}
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, by_value);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* One program run: returns the whole time, *tw the write phase (max over ranks); *bad += wrong elements. */
static double run(const char *path, int nv, int accel, int collmd, int verify, double *tw, long *bad)
{
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    if (collmd) {
        H5Pset_all_coll_metadata_ops(fapl, 1);
        H5Pset_coll_metadata_write(fapl, 1);
    }
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    const hsize_t d[2] = {ROWS, COLS}, c[2] = {CR, CC};
    hid_t sp = H5Screate_simple(2, d, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, c);
    hid_t *ds = malloc((size_t)nv * sizeof *ds);
    for (int v = 0; v < nv; v++) { /* define everything first, as netCDF's enddef does */
        char nm[32];
        snprintf(nm, sizeof nm, "v%d", v);
        ds[v] = H5Dcreate2(f, nm, H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        if (accel) colldiag_h5_created(ds[v], dcpl); /* as the preload, after every creation */
    }
    const hsize_t r0 = (hsize_t)me * ROWS / (hsize_t)P, r1 = (hsize_t)(me + 1) * ROWS / (hsize_t)P, mn = (r1 - r0) * COLS;
    hsize_t st[2] = {r0, 0}, ct[2] = {r1 - r0, COLS};
    hid_t fs = H5Scopy(sp), ms = H5Screate_simple(1, &mn, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, ct, NULL);
    hid_t dx = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    int *buf = malloc((size_t)(mn + 1) * sizeof *buf);
    colldiag_xfer *x = NULL;
    colldiag_xfer_create(&x);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t1 = MPI_Wtime();
    for (int v = 0; v < nv; v++) {
        for (hsize_t i = 0; i < mn; i++) buf[i] = value(v, r0 * COLS + i);
        if (!accel || colldiag_h5_write(ds[v], H5T_NATIVE_INT, ms, fs, dx, buf, x) == COLLDIAG_ERR_UNSUPPORTED)
            H5Dwrite(ds[v], H5T_NATIVE_INT, ms, fs, dx, buf);
    }
    double w = MPI_Wtime() - t1;
    if (verify) { /* untimed: every element of every variable through HDF5 */
        H5Fflush(f, H5F_SCOPE_GLOBAL);
        int *all = malloc(ROWS * COLS * sizeof *all);
        for (int v = 0; v < nv; v++) {
            if (H5Dread(ds[v], H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) < 0) { *bad += ROWS * COLS; continue; }
            for (hsize_t i = 0; i < ROWS * COLS; i++) *bad += all[i] != value(v, i);
        }
        free(all);
    }
    colldiag_xfer_free(x);
    free(buf);
    for (int v = 0; v < nv; v++) H5Dclose(ds[v]);
    free(ds);
    H5Sclose(fs);
    H5Sclose(ms);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Pclose(dx);
    colldiag_h5_forget(f);
    H5Fclose(f);
    double all = MPI_Wtime() - t0, m[2], g[2];
    if (verify) all = w = 0; /* the verifying run is not timed */
    m[0] = all;
    m[1] = w;
    MPI_Allreduce(m, g, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *tw = g[1];
    return g[0];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    h5_env_uniform = 1; /* as the preload after MPI_Init: mpirun gave every rank this one environment */
#ifdef COLLDIAG_WITH_HDF5
    h5_plist_watched = 1; /* as the preload, which counts every change to a DXPL: this program sets each before its first use */
#endif
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    const int reps = argc > 2 ? atoi(argv[2]) : 5, nv = argc > 3 ? atoi(argv[3]) : 500;
    char path[512];
    snprintf(path, sizeof path, "%s/colldiag_bench_b6.h5", dir);
    enum { NVAR = 4 };
    static const char *name[NVAR] = {"hdf5, local metadata reads", "accel, local metadata reads", "hdf5, collective metadata (netCDF-4)",
                                      "accel, collective metadata (netCDF-4)"};
    double *tot[NVAR], *wr[NVAR];
    long bad = 0;
    for (int k = 0; k < NVAR; k++) {
        tot[k] = calloc((size_t)reps, sizeof(double));
        wr[k] = calloc((size_t)reps, sizeof(double));
        double tw;
        run(path, nv, k % 2, k / 2, 1, &tw, &bad); /* verified, untimed */
    }
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < NVAR; k++) tot[k][r] = run(path, nv, k % 2, k / 2, 0, &wr[k][r], &bad);
    long gbad = 0;
    MPI_Allreduce(&bad, &gbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        time_t now = time(NULL);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
        printf("colldiag bench B6, %s: %d ranks, %d variables of %dx%d ints (%dx%d chunks) written once each, median of %d, "
               "every variant verified (%ld wrong elements)\n", when, P, nv, ROWS, COLS, CR, CC, reps, gbad);
        printf("%-40s %12s %12s\n", "variant", "whole (s)", "writes (s)");
        double m[NVAR], mw[NVAR];
        for (int k = 0; k < NVAR; k++) {
            m[k] = median(tot[k], reps);
            mw[k] = median(wr[k], reps);
            printf("%-40s %12.4f %12.4f\n", name[k], m[k], mw[k]);
        }
        printf("targets (this run):\n");
        for (int k = 1; k < NVAR; k += 2)
            printf("  B6 %-36s %.2fx HDF5 (writes %.2fx)  %s\n", name[k], m[k] / m[k - 1], mw[k] / mw[k - 1], m[k] <= 1.05 * m[k - 1] ? "met" : "NOT met");
    }
    for (int k = 0; k < NVAR; k++) { free(tot[k]); free(wr[k]); }
    if (me == 0) remove(path);
    MPI_Finalize();
    return gbad != 0;
}
