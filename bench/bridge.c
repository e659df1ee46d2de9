/* bench-bridge — what the HDF5 bridge adds to a small call, nothing else differing.
 *
 * B2r's call of bench.c (rank r: the 64 x 64 ints at rows 256 r + 96, columns 128, that is 64 whole
 * chunks of 8 x 8 in a 1024 x 1024 dataset of 16k chunks) made two ways on the *same* file, MPI_File
 * and chunk addresses:
 *   bridge  colldiag_h5_write / colldiag_h5_read (dset, mem_type, mem_space, file_space, dxpl): what
 *           COLLDIAG_ACCELERATE=1 runs for an unmodified H5Dwrite / H5Dread;
 *   auto    colldiag_write / colldiag_read with AUTO on HDF5's own MPI_File and the layout the bridge
 *           built for the dataset (same addresses), selections made once.
 * Both make a colldiag_xfer per call, as a program would (the bridge's DXPL is made once, as h5py
 * keeps one per dataset). Batches of BENCH_INNER (100) calls alternate between the two, REPS (20)
 * batches each; the medians per call and their ratio are printed. The file is read back with HDF5 and
 * the reads compared with what was written: a wrong byte fails the run.
 * Then the first call on a dataset, two ways, batches of BENCH_INNER_FIRST (10) alternating:
 *   first   colldiag_h5_forget + colldiag_h5_write/read, and HDF5's own call where the bridge leaves it
 *           to HDF5 (as the preload does: a call this small does not pay for the file flush that
 *           reading the chunk index needs), so every call of the batch is a first call;
 *   hdf5    H5Dwrite / H5Dread with the same DXPL (HDF5's default path, link-chunk);
 *   coll+   one more collective (a reduction of the agreement vector), then HDF5's call: what a
 *           refusal adds in communication, without the bridge's work. Printed with the time spent
 *           inside the bridge, so that the two shares of a first call's extra time can be told apart.
 * HDF5's own caches are warm both ways. Then first writes on fresh datasets (created just before each,
 * as a program's first call meets them; the bridge told of the creation, as under the preload) against
 * HDF5's first write on another. Then the file opened again read-only, first reads the same
 * two ways, collective and independent (nothing to flush there: the bridge reads the chunk index at
 * the first call, an independent one on its own rank).
 *
 *   mpirun -n 3 bench/bridge [REPS]      environment: BENCH_DIR (default /tmp), BENCH_INNER
 *
 * bench.c's "h5 accel" column is the same call amid every other variant; this program exists because a
 * 0.1 ms call measured there moves by tens of per cent from run to run on a loaded 2-core machine,
 * while here both ways share one process, one file and one moment.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../colldiag.c"

#include <stdio.h>
#include <time.h>

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The end of a timed batch of n calls begun at t0: the slowest rank's time per call. After reads (r set),
   the buffer is compared with what was written (a difference counts in *bad) and refilled with 0xEE. */
static double batch_end(double t0, int n, void *r, const void *w, size_t bytes, int *bad)
{
    double el = (MPI_Wtime() - t0) / n, mx;
    MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r) {
        *bad += memcmp(r, w, bytes) != 0;
        memset(r, 0xEE, bytes);
    }
    return mx;
}

/* Seconds this rank spent inside the bridge's calls (forget included) in first_call, and how many. */
static double in_bridge;
static long in_bridge_n;

/* One call of a first-call batch: how 0 forgets the dataset and calls the bridge (HDF5's own call where
   it refuses, as the preload does; *through counts the calls colldiag ran), how 1 HDF5's call alone,
   how 2 the bridge on what it knows already (a dataset just created and told of), how 3 one more
   collective before HDF5's call: a reduction of colldiag's agreement vector (AG_N words), which is what
   a refusal adds in communication, without the bridge's local work.
   rd: a read into r, else a write of w. HDF5's result, or -1 if the bridge failed otherwise. */
static herr_t first_call(int how, int rd, hid_t ds, hid_t ms, hid_t fs, hid_t dx, const int *w, int *r, int *through)
{
    if (how == 3) {
        uint64_t v[AG_N], g[AG_N];
        memset(v, 0, sizeof v);
        MPI_Allreduce(v, g, AG_N, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD);
    } else if (how != 1) {
        const double t0 = MPI_Wtime();
        colldiag_xfer *x;
        if (how == 0) colldiag_h5_forget(ds);
        colldiag_xfer_create(&x);
        const int rc = rd ? colldiag_h5_read(ds, H5T_NATIVE_INT, ms, fs, dx, r, x) : colldiag_h5_write(ds, H5T_NATIVE_INT, ms, fs, dx, w, x);
        colldiag_xfer_free(x);
        in_bridge += MPI_Wtime() - t0;
        in_bridge_n++;
        if (rc == 0) { (*through)++; return 0; }
        if (rc != COLLDIAG_ERR_UNSUPPORTED && rc != COLLDIAG_ERR_PEER) return -1;
    }
    return rd ? H5Dread(ds, H5T_NATIVE_INT, ms, fs, dx, r) : H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, dx, w);
}

/* reps batches of n first calls each way, rotating which goes first, into t[0] (bridge), t[1] (HDF5)
   and t[2] (one more collective, then HDF5: first_call's how 3): the slowest rank's time per call;
   reads compared with w (batch_end). */
static void first_batches(int reps, int n, int rd, hid_t ds, hid_t ms, hid_t fs, hid_t dx, const int *w, int *r, size_t bytes, double *t[3],
                          int *through, int *bad)
{
    for (int k = 0; k < reps; k++)
        for (int j = 0; j < 3; j++) {
            const int how = (k + j) % 3;
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            for (int it = 0; it < n; it++)
                if (first_call(how == 2 ? 3 : how, rd, ds, ms, fs, dx, w, r, through) < 0) {
                    fprintf(stderr, "first-call %s %s failed\n", how ? "hdf5" : "bridge", rd ? "read" : "write");
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            t[how][k] = batch_end(t0, n, rd ? r : NULL, w, bytes, bad);
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
#ifdef COLLDIAG_WITH_HDF5
    h5_plist_watched = 1; /* as the preload, which counts every change to a DXPL: this program sets each before its first use */
#endif
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const int reps = argc > 1 ? atoi(argv[1]) : 20;
    const char *e = getenv("BENCH_INNER"), *dir = getenv("BENCH_DIR");
    const int inner = e && *e ? atoi(e) : 100;
    if (reps < 1 || reps > 10000 || inner < 1) {
        if (me == 0) fprintf(stderr, "usage: bridge [REPS 1..10000], BENCH_INNER >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[600];
    snprintf(path, sizeof path, "%s/colldiag_bench_bridge.h5", dir && *dir ? dir : "/tmp");
    const hsize_t N = 1024, C = 8, B = 64;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims[2] = {N, N}, cd[2] = {C, C}, cnt[2] = {B, B};
    hid_t fs = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, cd);
    hid_t ds = H5Dcreate2(file, "d", H5T_NATIVE_INT, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hsize_t st[2] = {((hsize_t)me * B * 4 + 96) % (N - B + 1), 128};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL);
    hid_t ms = H5Screate_simple(2, cnt, NULL), dx = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    int *w = malloc(B * B * sizeof *w), *r = malloc(B * B * sizeof *r);
    for (hsize_t i = 0; i < B * B; i++) w[i] = (int)(i * 2654435761u) ^ (me << 24);

    /* the first calls read the chunk index (whatever the call's size) and build the layout */
    setenv("COLLDIAG_H5_FETCH_CALLS", "0", 1);
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    int rc = colldiag_h5_write(ds, H5T_NATIVE_INT, ms, fs, dx, w, x);
    unsetenv("COLLDIAG_H5_FETCH_CALLS");
    if (rc) {
        fprintf(stderr, "rank %d: colldiag_h5_write refused: %s\n", me, colldiag_xfer_errmsg(x));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    colldiag_xfer_free(x);
    /* the bridge's own entry for the dataset: its layout and the file's MPI_File (colldiag.c's statics) */
    colldiag_layout *l = h5_dsets->l;
    colldiag_file *f;
    colldiag_file_wrap(MPI_COMM_WORLD, h5_files->f->fh, &f);
    colldiag_sel *fsel, *msel;
    colldiag_h5_sel(fs, &fsel);
    colldiag_h5_sel(ms, &msel);

    double *t[2][2];
    for (int op = 0; op < 2; op++)
        for (int how = 0; how < 2; how++) t[op][how] = malloc((size_t)reps * sizeof(double));
    int bad = 0;
    for (int op = 0; op < 2; op++)
        for (int k = 0; k < reps; k++)
            for (int j = 0; j < 2; j++) {
                const int how = (k + j) % 2; /* which way goes first alternates */
                MPI_Barrier(MPI_COMM_WORLD);
                const double t0 = MPI_Wtime();
                for (int it = 0; it < inner; it++) {
                    colldiag_xfer_create(&x);
                    if (how == 0) {
                        rc = op ? colldiag_h5_read(ds, H5T_NATIVE_INT, ms, fs, dx, r, x) : colldiag_h5_write(ds, H5T_NATIVE_INT, ms, fs, dx, w, x);
                    } else {
                        colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
                        colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AUTO);
                        rc = op ? colldiag_read(f, l, fsel, msel, r, x) : colldiag_write(f, l, fsel, msel, w, x);
                    }
                    if (rc) {
                        fprintf(stderr, "rank %d: %s %s failed: %s\n", me, how ? "auto" : "bridge", op ? "read" : "write", colldiag_xfer_errmsg(x));
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
                    colldiag_xfer_free(x);
                }
                t[op][how][k] = batch_end(t0, inner, op ? r : NULL, w, B * B * sizeof *r, &bad);
            }
    /* first calls: forget + the bridge (HDF5 where it refuses), against HDF5's call alone */
    const char *ef = getenv("BENCH_INNER_FIRST");
    const int inner1 = ef && *ef ? atoi(ef) : 10;
    double *t1[2][3], inside[2] = {0, 0};
    int through[2] = {0, 0};
    const int calls1 = inner1 > 0 ? reps * inner1 : 0;
    for (int op = 0; op < 2; op++)
        for (int how = 0; how < 3; how++) t1[op][how] = malloc((size_t)reps * sizeof(double));
    for (int op = 0; op < 2 && inner1 > 0; op++) {
        in_bridge = 0;
        in_bridge_n = 0;
        first_batches(reps, inner1, op, ds, ms, fs, dx, w, r, B * B * sizeof *r, t1[op], &through[op], &bad);
        const double mean = in_bridge_n ? in_bridge / (double)in_bridge_n : 0;
        MPI_Allreduce(&mean, &inside[op], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    /* what the writes left, read by HDF5 itself */
    H5Fflush(file, H5F_SCOPE_GLOBAL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (H5Dread(ds, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, r) < 0 || memcmp(r, w, B * B * sizeof *r)) bad++;
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("bench-bridge: %d ranks, B2r's call (64 x 64 ints a rank, 16k chunks of 8 x 8), same file, MPI_File and chunk addresses,\n"
               "  median of %d batches of %d calls each way, interleaved\n", P, reps, inner);
        for (int op = 0; op < 2; op++) {
            const double b = median(t[op][0], reps), a = median(t[op][1], reps);
            printf("  %-5s  bridge %7.1f us  auto %7.1f us  bridge/auto %.2fx\n", op ? "read" : "write", 1e6 * b, 1e6 * a, b / a);
        }
        if (inner1 > 0) {
            printf("  first calls (forget + bridge, HDF5 where it refuses) against HDF5's own call, median of %d batches of %d each way:\n",
                   reps, inner1);
            for (int op = 0; op < 2; op++) {
                const double b = median(t1[op][0], reps), a = median(t1[op][1], reps);
                printf("  %-5s  first  %7.1f us  hdf5 %7.1f us  first/hdf5  %.3fx  (%d of %d through colldiag)\n", op ? "read" : "write", 1e6 * b,
                       1e6 * a, b / a, through[op], calls1);
            }
            /* where a refused first call's extra time goes: the bridge's own work (forget and learning
               the dataset again included), against what one more collective adds to HDF5's call */
            for (int op = 0; op < 2; op++) {
                const double a = median(t1[op][1], reps), c = median(t1[op][2], reps);
                printf("  %-5s  inside the bridge %5.1f us a call (slowest rank's mean); one more collective, then HDF5's call %7.1f us: "
                       "%.3fx hdf5\n", op ? "read" : "write", 1e6 * inside[op], 1e6 * c, c / a);
            }
        }
        printf("  every byte %s\n", anybad ? "NOT as written: FAILED" : "as written (reads compared, the file read back by HDF5)");
    }
    /* first writes on fresh datasets, the first call on a dataset as a program makes it: each sample
       creates two datasets like d (fill time never, so that creating one writes nothing) and times the
       first write on each, one the bridge's way (told of the creation right after H5Dcreate2, as the
       preload does: timed apart) and the other HDF5's, alternating which goes first. Both meet caches
       as the creation left them, as in a program. Every write is read back by HDF5 and compared. */
    const int fresh = inner1 > 0 ? reps : 0;
    double *tf[2], *tcr = malloc((size_t)reps * sizeof(double)), *tmk = malloc((size_t)reps * 2 * sizeof(double));
    for (int how = 0; how < 2; how++) tf[how] = malloc((size_t)reps * sizeof(double));
    int through_fresh = 0, bad_fresh = 0;
    hid_t dcplf = H5Pcopy(dcpl);
    H5Pset_fill_time(dcplf, H5D_FILL_TIME_NEVER);
    for (int k = 0; k < fresh; k++)
        for (int j = 0; j < 2; j++) {
            const int how = (k + j) % 2;
            char name[32];
            snprintf(name, sizeof name, "fresh%d_%d", k, j);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            hid_t dn = H5Dcreate2(file, name, H5T_NATIVE_INT, fs, H5P_DEFAULT, dcplf, H5P_DEFAULT);
            double el = MPI_Wtime() - t0, mx;
            MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            tmk[2 * k + j] = mx;
            if (how == 0) {
                t0 = MPI_Wtime();
                const int rc = colldiag_h5_created(dn, dcplf);
                el = MPI_Wtime() - t0;
                MPI_Allreduce(&el, &tcr[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (rc) {
                    fprintf(stderr, "rank %d: colldiag_h5_created: %s\n", me, colldiag_strerror(rc));
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            }
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            herr_t e = how == 0 ? first_call(2, 0, dn, ms, fs, dx, w, r, &through_fresh) : H5Dwrite(dn, H5T_NATIVE_INT, ms, fs, dx, w);
            el = MPI_Wtime() - t0;
            MPI_Allreduce(&el, &tf[how][k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (e < 0) {
                fprintf(stderr, "rank %d: the first write of a fresh dataset failed\n", me);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            memset(r, 0xEE, B * B * sizeof *r);
            if (H5Dread(dn, H5T_NATIVE_INT, ms, fs, dx, r) < 0 || memcmp(r, w, B * B * sizeof *r)) bad_fresh++;
            H5Dclose(dn);
        }
    H5Pclose(dcplf);
    int anybad_fresh = 0;
    MPI_Allreduce(&bad_fresh, &anybad_fresh, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    anybad += anybad_fresh;
    if (me == 0 && fresh > 0) {
        const double b = median(tf[0], fresh), a = median(tf[1], fresh);
        printf("  first writes on fresh datasets (16k chunks each, created just before; the bridge told of the creation as under the\n"
               "  preload), median of %d each way, alternating:\n", fresh);
        printf("  write  first  %7.1f us  hdf5 %7.1f us  first/hdf5  %.3fx  (%d of %d through colldiag)\n", 1e6 * b, 1e6 * a, b / a, through_fresh,
               fresh);
        printf("  colldiag_h5_created %.1f us after H5Dcreate2's %.1f ms; every byte %s\n", 1e6 * median(tcr, fresh), 1e3 * median(tmk, 2 * fresh),
               anybad_fresh ? "NOT as written: FAILED" : "as written (read back by HDF5)");
    }
    for (int how = 0; how < 2; how++) free(tf[how]);
    free(tcr);
    free(tmk);
    /* the file opened again read-only: first reads (forget + the bridge, HDF5 where it refuses),
       collective and independent, against HDF5's own reads. Nothing to flush there, so the bridge reads
       the chunk index at a first call of any size, an independent one on its rank alone. */
    colldiag_file_close(f); /* wrapped: HDF5's MPI_File stays open (until H5Fclose) */
    colldiag_h5_forget(file);
    H5Dclose(ds);
    H5Fclose(file);
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    ds = H5Dopen2(file, "d", H5P_DEFAULT);
    hid_t ix = H5Pcreate(H5P_DATASET_XFER);
    int through_ro[2] = {0, 0}, bad_ro = 0;
    for (int op = 0; op < 2 && inner1 > 0; op++) /* 0 collective, 1 independent */
        first_batches(reps, inner1, 1, ds, ms, fs, op ? ix : dx, w, r, B * B * sizeof *r, t1[op], &through_ro[op], &bad_ro);
    int anybad_ro = 0;
    MPI_Allreduce(&bad_ro, &anybad_ro, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    anybad += anybad_ro;
    if (me == 0 && inner1 > 0) {
        printf("  the file opened read-only: first reads (forget + bridge) against HDF5's, median of %d batches of %d each way:\n", reps, inner1);
        for (int op = 0; op < 2; op++) {
            const double b = median(t1[op][0], reps), a = median(t1[op][1], reps);
            printf("  %-11s first  %7.1f us  hdf5 %7.1f us  first/hdf5  %.3fx  (%d of %d through colldiag)\n", op ? "independent" : "collective",
                   1e6 * b, 1e6 * a, b / a, through_ro[op], reps * inner1);
        }
        printf("  every byte read %s\n", anybad_ro ? "NOT as written: FAILED" : "as written");
    }
    H5Pclose(ix);
    for (int op = 0; op < 2; op++)
        for (int how = 0; how < 3; how++) free(t1[op][how]);
    for (int op = 0; op < 2; op++)
        for (int how = 0; how < 2; how++) free(t[op][how]);
    colldiag_sel_free(fsel);
    colldiag_sel_free(msel);
    colldiag_h5_forget(file);
    free(w);
    free(r);
    H5Pclose(dx);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Pclose(dcpl);
    H5Dclose(ds);
    H5Fclose(file);
    H5Pclose(fapl);
    if (me == 0) remove(path);
    MPI_Finalize();
    return anybad != 0;
}
