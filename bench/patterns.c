/* The field's own I/O patterns as a plain parallel HDF5 program (a benchmark, not a test; no colldiag in
 * it): bench/patterns.sh runs it plain and under the preload with COLLDIAG_ACCELERATE=1, interleaved, and
 * prints the medians. What each pattern copies:
 *
 *   ior-seg-X-L   IOR -a HDF5 -c: a 1-D dataset of 8-byte integers, each rank writing then reading its own
 *                 8 MiB block in collective transfers of X bytes (64k, 1m, 8m), segmented order (rank r's
 *                 block is one stretch); L = contig, or chunk (chunks of one transfer, as --hdf5.chunkSize)
 *   ior-str-X-L   the same in strided order: transfer i of rank r lands at (i * P + r) * X
 *   ior-fpp-1m-L  IOR -F: a file a rank (its communicator MPI_COMM_SELF), each rank writing then
 *                 reading its 8 MiB in collective transfers of 1 MiB; L = contig, or chunk (1 MiB chunks)
 *   vpic-D-L      h5bench VPIC-IO: every timestep a group of 8 new datasets (x y z px py pz float, id_1 int,
 *                 id_2 float; created, then written, then closed, as h5bench does) of N particles a rank,
 *                 each rank writing its band (1-D: N elements; 2-D: N/64
 *                 rows of 64; 3-D: N/256 planes of 16 x 16), then read back whole by every rank's band
 *                 (h5bench's BD-CATS-IO read); L = contig, chunk, or deflate (the same chunks, deflated)
 *   bdcats-strided vpic-1d-contig read strided (h5bench READ_OPTION=STRIDED): every other 1024 particles
 *
 *   mpirun -n 3 build/openmpi/patterns DIR [FILTER] [MIB] [INNER]   one line per pattern and repetition:
 *   pattern write_s read_s bytes        max over ranks; write = create .. close, read = open .. close
 * FILTER is a substring of the pattern names; MIB the megabytes a rank writes per pattern (default 8);
 * INNER how many times each pattern runs back to back in this process (default 1), each its own line:
 * a pattern of one or a few calls lasts tens of milliseconds, less than this machine's noise, so one
 * sample a process decides nothing (bench/patterns.sh takes the median of all of them).
 * Every value read back is checked against the value written (exit 1 on any difference), so an
 * accelerated run that moved the wrong bytes cannot pass as fast. */
#include <hdf5.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, P;
static long bad;

/* one file name for the whole job: rank 0's process id */
static int getpid_of_rank0(void)
{
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return pid;
}

static MPI_Comm file_comm; /* the files' communicator: MPI_COMM_WORLD, or MPI_COMM_SELF for a file a rank */

static hid_t file_open(const char *path, int create)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, file_comm, MPI_INFO_NULL);
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0) {
        fprintf(stderr, "rank %d: cannot open %s\n", me, path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return f;
}

static hid_t coll_dxpl(void)
{
    hid_t x = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
    return x;
}

static double max_time(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* ---- IOR ---- */
static int64_t ior_value(uint64_t i) { return (int64_t)(i * 2654435761u + 17); }

static void ior(const char *path0, uint64_t block, uint64_t xfer, int strided, int chunked, int fpp, double *tw, double *tr)
{
    /* fpp: a file a rank, in which the rank is rank 0 of 1 (the job's rank and size shadowed) */
    const int P_all = P, me_all = me;
    const int P = fpp ? 1 : P_all, me = fpp ? 0 : me_all;
    char path[4200];
    snprintf(path, sizeof path, fpp ? "%s.%d" : "%s", path0, me_all);
    file_comm = fpp ? MPI_COMM_SELF : MPI_COMM_WORLD;
    const uint64_t n = xfer / 8, nx = block / xfer; /* elements per transfer, transfers per rank */
    const hsize_t total = (hsize_t)(block / 8) * (hsize_t)P;
    int64_t *buf = malloc(xfer);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    hid_t f = file_open(path, 1), sp = H5Screate_simple(1, &total, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunked) {
        const hsize_t c = n;
        H5Pset_chunk(dcpl, 1, &c);
    }
    hid_t d = H5Dcreate2(f, "dataset", H5T_NATIVE_LLONG, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT), x = coll_dxpl();
    const hsize_t cnt = n;
    hid_t ms = H5Screate_simple(1, &cnt, NULL);
    for (uint64_t i = 0; i < nx; i++) {
        const hsize_t at = strided ? (i * (uint64_t)P + (uint64_t)me) * n : (uint64_t)me * (block / 8) + i * n;
        for (uint64_t k = 0; k < n; k++) buf[k] = ior_value(at + k);
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, &at, NULL, &cnt, NULL);
        H5Dwrite(d, H5T_NATIVE_LLONG, ms, sp, x, buf);
    }
    H5Dclose(d);
    H5Fclose(f);
    *tw = max_time(MPI_Wtime() - t0);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    f = file_open(path, 0);
    d = H5Dopen2(f, "dataset", H5P_DEFAULT);
    for (uint64_t i = 0; i < nx; i++) {
        const hsize_t at = strided ? (i * (uint64_t)P + (uint64_t)me) * n : (uint64_t)me * (block / 8) + i * n;
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, &at, NULL, &cnt, NULL);
        memset(buf, 0, xfer);
        H5Dread(d, H5T_NATIVE_LLONG, ms, sp, x, buf);
        for (uint64_t k = 0; k < n; k++) bad += buf[k] != ior_value(at + k);
    }
    H5Dclose(d);
    H5Fclose(f);
    *tr = max_time(MPI_Wtime() - t0);
    H5Sclose(ms);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Pclose(x);
    free(buf);
    if (fpp) remove(path);
    file_comm = MPI_COMM_WORLD;
}

/* ---- VPIC-IO / BD-CATS-IO ---- */
static const char *vname[8] = {"x", "y", "z", "px", "py", "pz", "id_1", "id_2"};

static float vpic_value(int t, int v, uint64_t i) { return (float)(t * 8 + v) * 1e6f + (float)(i % 1000003); }

/* the rank's band of a dataset of nrank * n particles shaped by dims (D dimensions) */
static void vpic_space(int D, uint64_t n, hid_t *fs, hid_t *ms, hsize_t *chunk)
{
    hsize_t fd[3], md[3], st[3] = {0, 0, 0};
    const hsize_t inner = D == 1 ? 1 : D == 2 ? 64 : 256;
    fd[0] = md[0] = n / inner;
    fd[0] *= (hsize_t)P;
    st[0] = (hsize_t)me * (n / inner);
    if (D >= 2) fd[1] = md[1] = D == 2 ? 64 : 16;
    if (D == 3) fd[2] = md[2] = 16;
    *fs = H5Screate_simple(D, fd, NULL);
    *ms = H5Screate_simple(D, md, NULL);
    H5Sselect_hyperslab(*fs, H5S_SELECT_SET, st, NULL, md, NULL);
    /* chunks of 64 Ki elements (256 KiB), h5bench's example chunked configurations' order of size */
    chunk[0] = (hsize_t)65536 / inner;
    if (D >= 2) chunk[1] = fd[1];
    if (D == 3) chunk[2] = fd[2];
}

/* strided: the read takes every other block of 1024 particles of the rank's band (1-D only), as
   h5bench's BD-CATS-IO read with READ_OPTION=STRIDED: many stretches a rank */
static void vpic(const char *path, int D, uint64_t n, int steps, int layout, int strided, double *tw, double *tr)
{
    hid_t fs, ms;
    hsize_t chunk[3];
    vpic_space(D, n, &fs, &ms, chunk);
    hid_t rfs = fs, rms = ms;
    const uint64_t sb = 1024;
    if (strided) {
        hsize_t f0 = (hsize_t)me * n, m0 = 0, stride = 2 * sb, count = n / (2 * sb), blk = sb;
        rfs = H5Scopy(fs);
        rms = H5Scopy(ms);
        H5Sselect_hyperslab(rfs, H5S_SELECT_SET, &f0, &stride, &count, &blk);
        H5Sselect_hyperslab(rms, H5S_SELECT_SET, &m0, &stride, &count, &blk);
    }
    float *buf = malloc(n * sizeof *buf);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), x = coll_dxpl();
    if (layout) H5Pset_chunk(dcpl, D, chunk);
    if (layout == 2) H5Pset_deflate(dcpl, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    hid_t f = file_open(path, 1);
    for (int t = 0; t < steps; t++) {
        char g[32];
        snprintf(g, sizeof g, "Timestep_%d", t);
        hid_t gid = H5Gcreate2(f, g, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), d[8];
        /* as h5bench_write: the step's 8 datasets created, then each written, then all closed */
        for (int v = 0; v < 8; v++) d[v] = H5Dcreate2(gid, vname[v], v == 6 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        for (int v = 0; v < 8; v++) {
            const hid_t type = v == 6 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT;
            for (uint64_t i = 0; i < n; i++) {
                const float val = vpic_value(t, v, (uint64_t)me * n + i);
                if (v == 6) ((int *)buf)[i] = (int)val; else buf[i] = val;
            }
            H5Dwrite(d[v], type, ms, fs, x, buf);
        }
        for (int v = 0; v < 8; v++) H5Dclose(d[v]);
        H5Gclose(gid);
    }
    H5Fclose(f);
    *tw = max_time(MPI_Wtime() - t0);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    f = file_open(path, 0);
    for (int t = 0; t < steps; t++)
        for (int v = 0; v < 8; v++) {
            char name[48];
            snprintf(name, sizeof name, "Timestep_%d/%s", t, vname[v]);
            hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
            const hid_t type = v == 6 ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT;
            memset(buf, 0, n * sizeof *buf);
            H5Dread(d, type, rms, rfs, x, buf);
            for (uint64_t i = 0; i < n; i++) {
                const float val = strided && (i / sb) % 2 ? 0.0f : vpic_value(t, v, (uint64_t)me * n + i); /* unread: still 0 */
                bad += v == 6 ? ((int *)buf)[i] != (int)val : buf[i] != val;
            }
            H5Dclose(d);
        }
    H5Fclose(f);
    *tr = max_time(MPI_Wtime() - t0);
    if (strided) {
        H5Sclose(rfs);
        H5Sclose(rms);
    }
    H5Sclose(fs);
    H5Sclose(ms);
    H5Pclose(dcpl);
    H5Pclose(x);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    file_comm = MPI_COMM_WORLD;
    const char *dir = argc > 1 ? argv[1] : "/tmp", *filter = argc > 2 ? argv[2] : "";
    const uint64_t mib = argc > 3 ? strtoull(argv[3], NULL, 10) : 8, block = mib << 20;
    const int inner = argc > 4 && atoi(argv[4]) > 0 ? atoi(argv[4]) : 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/colldiag_patterns_%d.h5", dir, (int)getpid_of_rank0());
    static const char *lay[3] = {"contig", "chunk", "deflate"};
    static const uint64_t xf[3] = {64 << 10, 1 << 20, 8 << 20};
    static const char *xn[3] = {"64k", "1m", "8m"};
    if (me == 0) printf("pattern write_s read_s bytes\n");
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < 2; l++)
            for (int k = 0; k < 3; k++) {
                char name[64];
                snprintf(name, sizeof name, "ior-%s-%s-%s", s ? "str" : "seg", xn[k], lay[l]);
                if (!strstr(name, filter) || xf[k] > block) continue;
                for (int r = 0; r < inner; r++) {
                    double tw, tr;
                    ior(path, block / xf[k] * xf[k], xf[k], s, l, 0, &tw, &tr);
                    if (me == 0) printf("%s %.6f %.6f %" PRIu64 "\n", name, tw, tr, block / xf[k] * xf[k] * (uint64_t)P);
                    fflush(stdout);
                }
            }
    for (int l = 0; l < 2; l++) {
        char name[64];
        snprintf(name, sizeof name, "ior-fpp-1m-%s", lay[l]);
        if (!strstr(name, filter) || (1u << 20) > block) continue;
        for (int r = 0; r < inner; r++) {
            double tw, tr;
            ior(path, block / (1u << 20) * (1u << 20), 1u << 20, 0, l, 1, &tw, &tr);
            if (me == 0) printf("%s %.6f %.6f %" PRIu64 "\n", name, tw, tr, block / (1u << 20) * (1u << 20) * (uint64_t)P);
            fflush(stdout);
        }
    }
    for (int D = 1; D <= 4; D++)
        for (int l = 0; l < 3; l++) {
            char name[64];
            const int strided = D == 4; /* bdcats-strided: VPIC-IO's 1-D contiguous datasets, read strided */
            if (strided && l) continue;
            if (strided) snprintf(name, sizeof name, "bdcats-strided");
            else snprintf(name, sizeof name, "vpic-%dd-%s", D, lay[l]);
            if (!strstr(name, filter)) continue;
            const uint64_t n = (block / 32) / 65536 * 65536; /* particles a rank: 8 variables of 4 bytes */
            for (int r = 0; r < inner; r++) {
                double tw, tr;
                vpic(path, strided ? 1 : D, n ? n : 65536, 2, l, strided, &tw, &tr);
                if (me == 0) printf("%s %.6f %.6f %" PRIu64 "\n", name, tw, tr, (n ? n : 65536) * 32 * 2 * (uint64_t)P);
                fflush(stdout);
            }
        }
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        if (!getenv("PATTERNS_KEEP")) remove(path); /* kept: tests/test_contig_calls.sh compares the files */
        if (all) fprintf(stderr, "patterns: %ld values read back differ from those written\n", all);
    }
    MPI_Finalize();
    return all != 0;
}
