/* B5, a timestep (a benchmark, not a test): P ranks, 128 variables of 2-D (doubles) and 3-D (floats)
 * chunked fields of 16 to 256 KiB per rank each plus 8 large 2-D ones of 2 MiB per rank, each rank
 * writing its slab (whole chunks, a band of rows) of every variable, then reading it back.
 *
 *   mpirun -n 3 build/openmpi/bench-timestep [dir] [reps] [small]     (make bench runs it after B1-B4)
 *
 * Columns, writes and reads: the raw limit (one contiguous collective call of the step's bytes per
 * rank), one colldiag_write_multi / read_multi per scheme (link, multi, aggregation, AUTO), the 136
 * variables as 136 separate colldiag calls (link, and AUTO), and, built with HDF5, HDF5 1.10's 136
 * H5Dwrite / H5Dread calls (collective DXPL, default chunk optimisation). Every variant's bytes are
 * checked: after each write the step is read back with read_multi and compared with the buffers;
 * every read is compared too. Each figure is the median of `reps` runs (default 5), variants
 * interleaved within a run so that the machine's noise hits them alike. Writes build/bench_b5.csv
 * (BENCH_B5_CSV=PATH). Targets (the issue): one multi call <= 2x the limit, <= 0.3x the separate
 * colldiag calls, <= 0.1x HDF5's calls. */
#include "colldiag.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef COLLDIAG_WITH_HDF5
#include <hdf5.h>
#endif

#define NSMALL 128
#define NLARGE 8
#define NV (NSMALL + NLARGE)

static int me, P;
typedef struct {
    int rank;
    size_t es;
    uint64_t dims[3], cdims[3], rows; /* rows: this rank's band along dim 0 */
    size_t bytes;                      /* per rank */
    MPI_Offset base;
} var;
static var V[NV];

static void make_vars(int small)
{
    MPI_Offset at = 0;
    for (int v = 0; v < NV; v++) {
        var *x = &V[v];
        if (v < NSMALL) {
            const size_t kib = 16 * (size_t)(1 + v % 16) / (small ? 8 : 1); /* 16..256 KiB per rank */
            if (v % 2 == 0) { /* 2-D doubles, 512-byte rows, chunks of 16 rows */
                *x = (var){2, 8, {0, 64, 0}, {16, 64, 0}, kib * 1024 / 512, 0, 0};
            } else { /* 3-D floats, 1 KiB planes, chunks of 8 planes */
                *x = (var){3, 4, {0, 16, 16}, {8, 16, 16}, kib, 0, 0};
            }
            if (x->rows < x->cdims[0]) x->rows = x->cdims[0];
        } else { /* 2 MiB per rank: 4096 rows of 64 doubles, chunks of 64 rows */
            *x = (var){2, 8, {0, 64, 0}, {64, 64, 0}, (uint64_t)(small ? 512 : 4096), 0, 0};
        }
        x->dims[0] = x->rows * (uint64_t)P;
        uint64_t row = x->es;
        for (int d = 1; d < x->rank; d++) row *= x->dims[d];
        x->bytes = (size_t)(x->rows * row);
        x->base = at;
        at += (MPI_Offset)(x->bytes * (size_t)P); /* whole chunks: the dataset's storage is its bytes */
    }
}

static double median(double *t, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) { double s = t[j]; t[j] = t[j - 1]; t[j - 1] = s; }
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

enum { RAW, M_LINK, M_MULTI, M_AGG, M_AUTO, S_LINK, S_AUTO, H5, NVAR_COLS };
static const char *const cname[NVAR_COLS] = {"raw limit", "multi link", "multi multi", "multi aggregate", "multi auto",
                                             "136 calls link", "136 calls auto", "hdf5 136 calls"};
static const int copt[NVAR_COLS] = {0, COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO,
                                    COLLDIAG_MPIO_CHUNK_AUTO, COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_AUTO, 0};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    const int reps = argc > 2 ? atoi(argv[2]) : 5, small = argc > 3;
    make_vars(small);
    char path[600], rawpath[600], h5path[600];
    snprintf(path, sizeof path, "%s/colldiag_b5.bin", dir);
    snprintf(rawpath, sizeof rawpath, "%s/colldiag_b5_raw.bin", dir);
    snprintf(h5path, sizeof h5path, "%s/colldiag_b5.h5", dir);
    colldiag_layout *l[NV];
    colldiag_sel *s[NV];
    void *buf[NV], *rb[NV];
    size_t step = 0;
    for (int v = 0; v < NV; v++) {
        var *x = &V[v];
        colldiag_layout_chunked(x->rank, x->dims, x->cdims, x->es, x->base, &l[v]);
        colldiag_sel_create(x->rank, x->dims, &s[v]);
        uint64_t st[3] = {x->rows * (uint64_t)me, 0, 0}, cn[3] = {x->rows, x->dims[1], x->dims[2]};
        colldiag_sel_select_hyperslab(s[v], COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
        buf[v] = malloc(x->bytes);
        rb[v] = malloc(x->bytes);
        for (size_t b = 0; b < x->bytes; b++) ((unsigned char *)buf[v])[b] = (unsigned char)(b * 131 + (size_t)v * 7 + (size_t)me * 29 + 1);
        step += x->bytes;
    }
    unsigned char *rawbuf = malloc(step), *rawrb = malloc(step);
    memset(rawbuf, 0x42, step);
    colldiag_file *f;
    if (colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f)) {
        fprintf(stderr, "rank %d: %s\n", me, colldiag_last_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File raw;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "16777216");
    MPI_File_open(MPI_COMM_WORLD, rawpath, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &raw);
    MPI_Info_free(&info);
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
#ifdef COLLDIAG_WITH_HDF5
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t hf = H5Fcreate(h5path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl), hd[NV], hfs[NV], hms[NV];
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    for (int v = 0; v < NV; v++) {
        char name[16];
        snprintf(name, sizeof name, "v%03d", v);
        hsize_t d[3], c[3], st[3] = {V[v].rows * (hsize_t)me, 0, 0}, cn[3];
        for (int k = 0; k < V[v].rank; k++) { d[k] = V[v].dims[k]; c[k] = V[v].cdims[k]; cn[k] = k ? V[v].dims[k] : V[v].rows; }
        hfs[v] = H5Screate_simple(V[v].rank, d, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, V[v].rank, c);
        hd[v] = H5Dcreate2(hf, name, V[v].es == 8 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, hfs[v], H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        H5Sselect_hyperslab(hfs[v], H5S_SELECT_SET, st, NULL, cn, NULL);
        hms[v] = H5Screate_simple(V[v].rank, cn, NULL);
    }
    const int ncols = NVAR_COLS;
#else
    const int ncols = NVAR_COLS - 1;
#endif
    double *t[2][NVAR_COLS];
    for (int o = 0; o < 2; o++)
        for (int c = 0; c < NVAR_COLS; c++) t[o][c] = calloc((size_t)reps, sizeof(double));
    int bad = 0;
    for (int r = 0; r < reps; r++)
        for (int c = 0; c < ncols; c++)
            for (int op = 0; op < 2; op++) {
                for (int v = 0; v < NV; v++) memset(rb[v], 0, V[v].bytes);
                colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)copt[c]);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                int rc = 0;
                if (c == RAW) {
                    MPI_Status st;
                    rc = op ? MPI_File_read_at_all(raw, (MPI_Offset)(step * (size_t)me), rawrb, (int)step, MPI_BYTE, &st)
                            : MPI_File_write_at_all(raw, (MPI_Offset)(step * (size_t)me), rawbuf, (int)step, MPI_BYTE, &st);
                } else if (c <= M_AUTO) {
                    rc = op ? colldiag_read_multi(f, NV, (const colldiag_layout *const *)l, (const colldiag_sel *const *)s, NULL, rb, x)
                            : colldiag_write_multi(f, NV, (const colldiag_layout *const *)l, (const colldiag_sel *const *)s, NULL,
                                                   (const void *const *)buf, x);
                } else if (c <= S_AUTO) {
                    for (int v = 0; v < NV && !rc; v++)
                        rc = op ? colldiag_read(f, l[v], s[v], NULL, rb[v], x) : colldiag_write(f, l[v], s[v], NULL, buf[v], x);
                }
#ifdef COLLDIAG_WITH_HDF5
                else {
                    for (int v = 0; v < NV && rc >= 0; v++)
                        rc = op ? H5Dread(hd[v], V[v].es == 8 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, hms[v], hfs[v], dxpl, rb[v])
                                : H5Dwrite(hd[v], V[v].es == 8 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, hms[v], hfs[v], dxpl, buf[v]);
                    rc = rc < 0;
                }
#endif
                MPI_Barrier(MPI_COMM_WORLD);
                t[op][c][r] = MPI_Wtime() - t0;
                if (rc) { bad++; fprintf(stderr, "rank %d: %s %s failed: %s\n", me, cname[c], op ? "read" : "write", colldiag_xfer_errmsg(x)); }
                /* every variant's bytes: reads compared here, writes read back through read_multi */
                if (c != RAW && !op && c != H5) {
                    colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_ONE_IO);
                    if (colldiag_read_multi(f, NV, (const colldiag_layout *const *)l, (const colldiag_sel *const *)s, NULL, rb, x)) bad++;
                }
                if (c == RAW) bad += memcmp(rawbuf, op ? rawrb : rawbuf, step) != 0;
                else if (op || c != H5)
                    for (int v = 0; v < NV; v++) bad += memcmp(buf[v], rb[v], V[v].bytes) != 0;
            }
    int allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        const char *csv_path = getenv("BENCH_B5_CSV") ? getenv("BENCH_B5_CSV") : "build/bench_b5.csv";
        FILE *csv = fopen(csv_path, "w");
        if (csv) fprintf(csv, "op,scheme,ranks,bytes_per_rank,seconds,ratio_to_limit\n");
        printf("B5 timestep: %d ranks, %d variables (%d of 16-256 KiB, %d of 2 MiB per rank), %.1f MiB per rank, median of %d%s\n", P, NV, NSMALL,
               NLARGE, (double)step / 1048576.0, reps, small ? " (small sizes)" : "");
        printf("%-6s %-18s %10s %9s %14s %12s\n", "op", "variant", "seconds", "x limit", "x 136 calls", "x hdf5");
        for (int op = 0; op < 2; op++) {
            double m[NVAR_COLS];
            for (int c = 0; c < ncols; c++) m[c] = median(t[op][c], reps);
            for (int c = 0; c < ncols; c++) {
                printf("%-6s %-18s %10.4f %9.2f", op ? "read" : "write", cname[c], m[c], m[c] / m[RAW]);
                if (c >= M_LINK && c <= M_AUTO) printf(" %14.2f", m[c] / m[c == M_AUTO ? S_AUTO : S_LINK]);
                else printf(" %14s", "");
                if (c >= M_LINK && c <= M_AUTO && ncols > H5) printf(" %12.3f", m[c] / m[H5]);
                printf("\n");
                if (csv) fprintf(csv, "%s,\"%s\",%d,%zu,%.6f,%.3f\n", op ? "read" : "write", cname[c], P, step, m[c], m[c] / m[RAW]);
            }
        }
        printf("targets: one multi call <= 2x the limit, <= 0.3x the 136 separate colldiag calls, <= 0.1x HDF5's 136 calls\n");
        printf("verified: %s\n", allbad ? "FAILED (bytes differ or a call failed)" : "every variant's bytes equal");
        if (csv) fclose(csv);
    }
#ifdef COLLDIAG_WITH_HDF5
    for (int v = 0; v < NV; v++) { H5Dclose(hd[v]); H5Sclose(hfs[v]); H5Sclose(hms[v]); }
    H5Pclose(dxpl);
    H5Fclose(hf);
    H5Pclose(fapl);
#endif
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    MPI_File_close(&raw);
    for (int v = 0; v < NV; v++) { colldiag_layout_free(l[v]); colldiag_sel_free(s[v]); free(buf[v]); free(rb[v]); }
    for (int o = 0; o < 2; o++)
        for (int c = 0; c < NVAR_COLS; c++) free(t[o][c]);
    free(rawbuf);
    free(rawrb);
    if (me == 0) { unlink(path); unlink(rawpath); unlink(h5path); }
    MPI_Finalize();
    return allbad != 0;
}
