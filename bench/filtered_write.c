/* bench/filtered_write.c — issue 63 item 2: does an owner-compresses scheme pay against HDF5's own
 * collective filtered write? (make bench-filtered-write)
 *
 * HDF5 (1.10.2 and later) writes a filtered dataset in parallel only collectively, and already sends
 * each shared chunk's pieces to one owner, which compresses it; then every rank takes part in the chunk
 * index's update. This program measures, for an N x N float64 dataset in C x C chunks, shuffle (unless
 * --noshuffle) and deflate at --level, P ranks writing in three patterns (a block of rows a rank, a
 * block of columns, 16-column blocks dealt round-robin):
 *   hdf5     HDF5's collective H5Dwrite of the pattern (the file created once a pattern, collectively,
 *            every chunk written by the first repetition; the timed repetitions rewrite them);
 *   move     colldiag's aggregation moving the same pieces to one owner a chunk and writing them raw
 *            (colldiag_write, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO, into a scratch file): the data movement
 *            of an owner-compresses scheme, uncompressed bytes written;
 *   deflate  compressing every chunk once, spread over the ranks (chunk k on rank k mod P), shuffle and
 *            deflate with zlib as HDF5's filters do: the compression an owner-compresses scheme pays.
 * move + deflate is what such a scheme would cost at least apart from keeping HDF5's chunk index
 * right (each chunk's new address and size: collective metadata in parallel HDF5), and more than it
 * would pay to write (the compressed bytes are fewer than the raw ones move writes). Each time is the
 * slowest rank's, the median of --reps. Every value HDF5 wrote is read back and checked by the rank
 * that wrote it.
 *
 *   mpirun -n P filtered_write DIR [--n N] [--chunk C] [--level L] [--noshuffle] [--reps R]
 */
#include "../colldiag.h"
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int me, np;
static hsize_t N = 2048, C = 128;

static double value(hsize_t i, hsize_t j, int rep) { return (double)(i * N + j) * 0.25 + rep; }

/* Rank me's part in pattern p: [r0, r1) x [c0, c1) blocks; pattern 2 is a union of 16-column blocks. */
static hid_t my_space(int p, hsize_t *n)
{
    hsize_t dims[2] = {N, N};
    hid_t s = H5Screate_simple(2, dims, NULL);
    H5Sselect_none(s);
    *n = 0;
    if (p == 0 || p == 1) {
        const hsize_t lo = N * (hsize_t)me / (hsize_t)np, hi = N * (hsize_t)(me + 1) / (hsize_t)np;
        hsize_t st[2] = {p ? 0 : lo, p ? lo : 0}, cn[2] = {p ? N : hi - lo, p ? hi - lo : N};
        if (hi > lo) H5Sselect_hyperslab(s, H5S_SELECT_SET, st, NULL, cn, NULL);
        *n = (hi - lo) * N;
    } else {
        for (hsize_t b = (hsize_t)me; b * 16 < N; b += (hsize_t)np) {
            hsize_t st[2] = {0, b * 16}, cn[2] = {N, 16};
            H5Sselect_hyperslab(s, H5S_SELECT_OR, st, NULL, cn, NULL);
            *n += N * 16;
        }
    }
    return s;
}

/* The selected values in row-major order (the selection's order), for repetition rep. */
static void fill(int p, double *buf, int rep)
{
    hsize_t k = 0;
    const hsize_t lo = N * (hsize_t)me / (hsize_t)np, hi = N * (hsize_t)(me + 1) / (hsize_t)np;
    for (hsize_t i = 0; i < N; i++)
        for (hsize_t j = 0; j < N; j++) {
            const int mine = p == 0 ? (i >= lo && i < hi) : p == 1 ? (j >= lo && j < hi) : (int)((j / 16) % (hsize_t)np) == me;
            if (mine) buf[k++] = value(i, j, rep);
        }
}

static double slowest(double t)
{
    double m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static int cmpd(const void *a, const void *b) { return *(const double *)a < *(const double *)b ? -1 : *(const double *)a > *(const double *)b; }
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Shuffle (bytes of each element grouped by position, as HDF5's shuffle filter) then deflate one chunk
   of values; returns the compressed size. */
static uLong squeeze(const double *chunk, size_t n, int shuffle, int level, unsigned char *tmp, unsigned char *out, uLong cap)
{
    const unsigned char *src = (const unsigned char *)chunk;
    if (shuffle) {
        for (size_t b = 0; b < 8; b++)
            for (size_t e = 0; e < n; e++) tmp[b * n + e] = src[e * 8 + b];
        src = tmp;
    }
    uLongf len = cap;
    if (compress2(out, &len, src, (uLong)(n * 8), level) != Z_OK) return 0;
    return len;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    int level = 1, shuffle = 1, reps = 5;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) N = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) C = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--level") && i + 1 < argc) level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--noshuffle")) shuffle = 0;
    }
    if (reps < 1 || reps > 64) reps = 5;
    if (N % C || N % 16) {
        if (me == 0) fprintf(stderr, "filtered_write: N must be a multiple of C and of 16\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char h5path[1024], rawpath[1024];
    int tag = 0;
    if (me == 0) tag = (int)(MPI_Wtime() * 1000) % 1000000;
    MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(h5path, sizeof h5path, "%s/filtered_write.%d.h5", dir, tag);
    snprintf(rawpath, sizeof rawpath, "%s/filtered_write.%d.raw", dir, tag);
    static const char *const pname[3] = {"rows", "columns", "16-col"};
    if (me == 0)
        printf("# filtered_write: %d ranks, %llu^2 f64 in %llu^2 chunks, deflate %d%s, median of %d (seconds, slowest rank)\n"
               "%-8s %10s %10s %10s %12s %14s\n", np, (unsigned long long)N, (unsigned long long)C, level, shuffle ? " + shuffle" : "", reps,
               "pattern", "hdf5", "move", "deflate", "move+deflate", "hdf5/(m+d)");
    const hsize_t nch = (N / C) * (N / C), ce = C * C;
    double *cbuf = malloc(ce * sizeof *cbuf);
    unsigned char *tmp = malloc(ce * 8), *out = malloc(compressBound((uLong)(ce * 8)));
    int bad = 0;
    for (int p = 0; p < 3; p++) {
        hsize_t n = 0;
        hid_t fs = my_space(p, &n);
        double *buf = malloc((n + 1) * sizeof *buf), *back = malloc((n + 1) * sizeof *back);
        double th[64], tm[64], td[64];
        /* hdf5: the file created collectively, the dataset with its filters (parallel HDF5 allocates
           filtered chunks early), one untimed write, then reps timed rewrites */
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        hid_t f = H5Fcreate(h5path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hsize_t dims[2] = {N, N}, ch[2] = {C, C};
        hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 2, ch);
        if (shuffle) H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, (unsigned)level);
        hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        hid_t dx = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
        hsize_t mn[1] = {n ? n : 1};
        hid_t ms = H5Screate_simple(1, mn, NULL);
        if (!n) H5Sselect_none(ms);
        for (int r = -1; r < reps; r++) {
            fill(p, buf, r + 1);
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            bad |= H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dx, buf) < 0;
            const double t = slowest(MPI_Wtime() - t0);
            if (r >= 0) th[r] = t;
        }
        memset(back, 0, (n + 1) * sizeof *back);
        bad |= H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, dx, back) < 0;
        bad |= memcmp(back, buf, n * sizeof *buf) != 0;
        H5Sclose(ms);
        H5Pclose(dx);
        H5Dclose(d);
        H5Pclose(dcpl);
        H5Sclose(sp);
        H5Fclose(f);
        H5Pclose(fapl);
        /* move: colldiag's aggregation, the same pieces, raw */
        colldiag_file *cf = NULL;
        colldiag_layout *l = NULL;
        colldiag_xfer *x = NULL;
        colldiag_sel *s = NULL;
        uint64_t cd[2] = {C, C}, dd[2] = {N, N};
        bad |= colldiag_file_open(MPI_COMM_WORLD, rawpath, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &cf) != 0;
        colldiag_layout_chunked(2, dd, cd, sizeof(double), 0, &l);
        colldiag_xfer_create(&x);
        colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO);
        colldiag_sel_create(2, dd, &s);
        colldiag_sel_select_none(s);
        if (p < 2) {
            const uint64_t lo = N * (uint64_t)me / (uint64_t)np, hi = N * (uint64_t)(me + 1) / (uint64_t)np;
            uint64_t st[2] = {p ? 0 : lo, p ? lo : 0}, cn[2] = {p ? N : hi - lo, p ? hi - lo : N};
            if (hi > lo) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
        } else
            for (uint64_t b = (uint64_t)me; b * 16 < N; b += (uint64_t)np) {
                uint64_t st[2] = {0, b * 16}, cn[2] = {N, 16};
                colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_OR, st, NULL, cn, NULL);
            }
        for (int r = -1; r < reps && cf; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            bad |= colldiag_write(cf, l, s, NULL, buf, x) != 0;
            const double t = slowest(MPI_Wtime() - t0);
            if (r >= 0) tm[r] = t;
        }
        colldiag_sel_free(s);
        colldiag_xfer_free(x);
        colldiag_layout_free(l);
        if (cf) colldiag_file_close(cf);
        /* deflate: every chunk once, chunk k on rank k mod P */
        uLong stored = 0;
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            stored = 0;
            for (hsize_t k = (hsize_t)me; k < nch; k += (hsize_t)np) {
                const hsize_t a = k / (N / C), b = k % (N / C);
                for (hsize_t i = 0; i < C; i++)
                    for (hsize_t j = 0; j < C; j++) cbuf[i * C + j] = value(a * C + i, b * C + j, r);
                const uLong z = squeeze(cbuf, ce, shuffle, level, tmp, out, compressBound((uLong)(ce * 8)));
                bad |= z == 0;
                stored += z;
            }
            td[r] = slowest(MPI_Wtime() - t0);
        }
        const double h = median(th, reps), mv = median(tm, reps), df = median(td, reps);
        if (me == 0) printf("%-8s %10.4f %10.4f %10.4f %12.4f %13.2fx\n", pname[p], h, mv, df, mv + df, h / (mv + df));
        free(buf);
        free(back);
        H5Sclose(fs);
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) {
        if (any) printf("a call failed or a value read back was wrong\n");
        remove(h5path);
        remove(rawpath);
    }
    free(cbuf);
    free(tmp);
    free(out);
    MPI_Finalize();
    return any;
}
