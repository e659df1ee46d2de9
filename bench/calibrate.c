/* calibrate — measures AUTO's cost-model constants on this machine, this MPI and this file system.
 *
 *   make calibrate [BENCH_RANKS=3] [BENCH_DIR=/scratch]        (or: mpirun -n P calibrate [DIR] [quick])
 *   mpirun -n P calibrate DIR runs     RUN's cost by the number of runs a call has (64 to 64K), the curve
 *                                      RUN, RUN_LOW and RUN_KNEE sketch (docs/benchmarks.md)
 *
 * Prints one `export COLLDIAG_AUTO_<NAME>=<value>` line per constant of colldiag.c's CD_AUTO_CONSTANTS,
 * each after a comment saying what was measured. colldiag reads them at every call, so
 *   eval "$(make -s calibrate | grep ^export)"
 * and, with Open MPI, `mpirun -x COLLDIAG_AUTO_LAT -x ...` (every rank must see the same values: they
 * are part of the agreed settings). Or compile them in: -DCOLLDIAG_AUTO_LAT=... . Each value is the
 * median of several repetitions, taken on the slowest rank (what a collective call waits for). Only
 * plain MPI and libc are used here: the constants describe the machine, not colldiag.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me, P, reps = 7;
static MPI_File fh;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over reps of the slowest rank's time for one run of f, everybody starting together. With
   span, each rank's time runs to a closing barrier, so the median is the time from the common start
   until the last rank is done: for work each rank does alone (independent calls), where ranks that
   share cores would otherwise hide the time they wait for one, which a call in a job does not. */
static double measure_how(void (*f)(void *), void *ctx, int span)
{
    double t[32];
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        f(ctx);
        if (span) MPI_Barrier(MPI_COMM_WORLD);
        double dt = MPI_Wtime() - t0, mx = 0;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[r] = mx;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    return t[reps / 2];
}
static double measure(void (*f)(void *), void *ctx) { return measure_how(f, ctx, 0); }
static double measure_span(void (*f)(void *), void *ctx) { return measure_how(f, ctx, 1); }

typedef struct {
    int calls;            /* calls per measurement */
    int runs;             /* runs per rank per call */
    int len;              /* bytes per run */
    int interleave;       /* runs of the ranks alternate in the file (else each rank has its own region) */
    int collective;
    unsigned char *buf;
} io_case;

/* `calls` calls, each writing `runs` runs of `len` bytes per rank through a file view. */
static void io_run(void *p)
{
    io_case *c = p;
    MPI_Datatype ft;
    MPI_Offset span = (MPI_Offset)c->runs * c->len * P;
    for (int i = 0; i < c->calls; i++) {
        MPI_Offset disp = (MPI_Offset)i * span + (c->interleave ? (MPI_Offset)me * c->len : (MPI_Offset)me * c->runs * c->len);
        MPI_Type_create_hvector(c->runs, c->len, c->interleave ? (MPI_Aint)c->len * P : c->len, MPI_BYTE, &ft);
        MPI_Type_commit(&ft);
        MPI_File_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        if (c->collective)
            MPI_File_write_at_all(fh, 0, c->buf, c->runs * c->len, MPI_BYTE, MPI_STATUS_IGNORE);
        else
            MPI_File_write_at(fh, 0, c->buf, c->runs * c->len, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_Type_free(&ft);
    }
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
}

typedef struct { size_t bytes; int block; unsigned char *buf, *big; } mem_case;
/* one collective write of `bytes` per rank into its own region, from memory blocks of `block` bytes
   strided by twice that (0: contiguous memory) */
static void mem_run(void *p)
{
    mem_case *c = p;
    MPI_Offset at = (MPI_Offset)me * (MPI_Offset)c->bytes;
    if (!c->block) {
        MPI_File_write_at_all(fh, at, c->buf, (int)c->bytes, MPI_BYTE, MPI_STATUS_IGNORE);
        return;
    }
    MPI_Datatype mt;
    MPI_Type_vector((int)(c->bytes / (size_t)c->block), c->block, 2 * c->block, MPI_BYTE, &mt);
    MPI_Type_commit(&mt);
    MPI_File_write_at_all(fh, at, c->big, 1, mt, MPI_STATUS_IGNORE);
    MPI_Type_free(&mt);
}

typedef struct { int calls, len, write; MPI_Offset base; unsigned char *buf; } ind_case;
/* `calls` independent calls of len bytes, each in a 4 KiB page of its own (a column block's rows, a
   chunk's rows: what many independent calls look like), the ranks' pages side by side. Writes go to a
   fresh region each time (past the end of the file, as into a new dataset): every write dirties a clean
   page. Reads read the pages the first write made (cached). */
static void ind_run(void *p)
{
    ind_case *c = p;
    for (int i = 0; i < c->calls; i++) {
        const MPI_Offset at = c->base + ((MPI_Offset)i * P + me) * 4096;
        if (c->write) MPI_File_write_at(fh, at, c->buf, c->len, MPI_BYTE, MPI_STATUS_IGNORE);
        else MPI_File_read_at(fh, at, c->buf, c->len, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    if (c->write) c->base += (MPI_Offset)c->calls * P * 4096;
}

typedef struct { size_t n; unsigned char *a, *b; int stride; } copy_case;
static void copy_runs(void *p) /* n 4-byte elements gathered from every stride-th: a run per element */
{
    copy_case *c = p;
    for (size_t i = 0; i < c->n; i++) memcpy(c->b + 4 * i, c->a + 4 * i * (size_t)c->stride, 4);
}
static void copy_bulk(void *p)
{
    copy_case *c = p;
    memcpy(c->b, c->a, c->n);
}

typedef struct { size_t per; unsigned char *s, *r; int *cnt, *dsp; } net_case;
static void net_run(void *p)
{
    net_case *c = p;
    MPI_Alltoallv(c->s, c->cnt, c->dsp, MPI_BYTE, c->r, c->cnt, c->dsp, MPI_BYTE, MPI_COMM_WORLD);
}
static void x_run(void *p)
{
    int n = *(int *)p;
    uint64_t *s = calloc((size_t)P * 2, 8), *r = calloc((size_t)P * 2, 8);
    for (int i = 0; i < n; i++) MPI_Alltoall(s, 2, MPI_UINT64_T, r, 2, MPI_UINT64_T, MPI_COMM_WORLD);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    const int quick = argc > 2 && !strcmp(argv[2], "quick"); /* make check: small sizes, a format check */
    const int runs_only = argc > 2 && !strcmp(argv[2], "runs"); /* RUN by run count only */
    if (quick) reps = 3;
    const size_t big = quick ? (1u << 20) : (16u << 20); /* bytes per rank of the bandwidth cases */
    char path[600];
    snprintf(path, sizeof path, "%s/colldiag_calibrate_%d.bin", dir, (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        if (!me) fprintf(stderr, "calibrate: cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *buf = malloc(big), *b2 = malloc(big * 4);
    memset(buf, 0x5a, big);
    memset(b2, 0xa5, big * 4);

    /* LAT: a small collective call through a view (4 KiB per rank, the ranks' pieces side by side, as
       in a chunk two ranks share): what multi-chunk pays per collective chunk */
    io_case lat = {quick ? 5 : 50, 1, 4096, 1, 1, buf};
    double t_lat = measure(io_run, &lat) / lat.calls;
    /* BW_IO: collective, 64 KiB blocks of the ranks alternating, `big` bytes per rank */
    io_case bw = {1, (int)(big / 65536), 65536, 1, 1, buf};
    double t_bw = measure(io_run, &bw), k_bw = (double)big / (t_bw > t_lat ? t_bw - t_lat : t_bw);
    /* RUN: collective, 64-byte runs of the ranks alternating: the per-run cost beyond bytes and latency */
    io_case run = {1, quick ? 4096 : 65536, 64, 1, 1, buf};
    double t_run = measure(io_run, &run);
    double k_run = (t_run - t_lat - (double)run.runs * run.len / k_bw) / run.runs;
    if (k_run < 1e-9) k_run = 1e-9;
    if (runs_only) { /* RUN measured at 64K runs, its default's count, is the per-run cost of calls far larger
                        than most: what the same collective write costs a run at fewer */
        for (int nr = 64; nr <= 65536; nr *= 4) {
            io_case rc = {1, nr, 64, 1, 1, buf};
            const double tr = measure(io_run, &rc);
            if (!me) printf("runs %6d  %9.3f ms  per run beyond LAT and bytes %7.3f us\n", nr, tr * 1e3, (tr - t_lat - (double)nr * 64 / k_bw) / nr * 1e6);
        }
        if (!me) printf("# LAT %.1f us, BW_IO %.0f MB/s, %d ranks\n", t_lat * 1e6, k_bw * 1e-6, P);
        MPI_File_close(&fh);
        if (!me) unlink(path);
        free(buf);
        free(b2);
        MPI_Finalize();
        return 0;
    }
    /* RUN_LOW and RUN_KNEE: the same write at fewer runs (colldiag.c's run_price). RUN_LOW is the cost
       of a run at 1024 runs as a share of RUN's (at 64K); RUN_KNEE the largest of 4096 and 16384 runs
       whose run costs within 1.5x of that, else 1024 (quick: 256 runs, the knee not measured) */
    double per_run[3] = {0, 0, 0};
    const int nrs[3] = {quick ? 256 : 1024, 4096, 16384};
    for (int i = 0; i < (quick ? 1 : 3); i++) {
        io_case rc = {1, nrs[i], 64, 1, 1, buf};
        per_run[i] = (measure(io_run, &rc) - t_lat - (double)nrs[i] * 64 / k_bw) / nrs[i];
    }
    double k_run_low = per_run[0] / k_run;
    if (k_run_low < 0.05) k_run_low = 0.05;
    if (k_run_low > 1) k_run_low = 1;
    const int k_knee = quick ? 4096 : per_run[2] <= 1.5 * per_run[0] ? 16384 : per_run[1] <= 1.5 * per_run[0] ? 4096 : 1024;
    /* MRUN: the same collective write of `big` contiguous bytes per rank, once from contiguous memory
       and once from 512-byte memory blocks (an hvector MPI must walk): the cost per memory block */
    mem_case mc0 = {big, 0, buf, b2}, mc1 = {big, 512, buf, b2};
    double t_m0 = measure(mem_run, &mc0), t_m1 = measure(mem_run, &mc1);
    double k_mrun = (t_m1 - t_m0) / (double)(big / 512);
    if (k_mrun < 1e-10) k_mrun = 1e-10;
    /* IND: an independent read of 64 B from a cached page; IND_DIRTY: what a write of 64 B that dirties
       a fresh page costs beyond that (regions far past everything else the file holds) */
    const MPI_Offset far = (MPI_Offset)1 << 36;
    /* 4000 pages a repetition whatever P (16 MiB of page cache): enough calls to time, few enough not to
       make calibrate a disk benchmark */
    const int ncalls = (quick ? 400 : 4000) / P > 20 ? (quick ? 400 : 4000) / P : 20;
    ind_case indw = {ncalls, 64, 1, far, buf};
    double t_indw = measure_span(ind_run, &indw) / indw.calls;
    ind_case ind = {indw.calls, 64, 0, far, buf};
    double k_ind = measure_span(ind_run, &ind) / ind.calls;
    double k_dirty = t_indw - k_ind;
    if (k_dirty < 1e-9) k_dirty = 1e-9;
    /* BW_IND: one independent call of `big` contiguous bytes per rank, in its own region */
    io_case bwi = {1, 1, (int)big, 0, 0, buf};
    double t_bwi = measure(io_run, &bwi), k_bwi = (double)big / (t_bwi > k_ind ? t_bwi - k_ind : t_bwi);
    /* COPY: gathering 4-byte elements one by one; BW_COPY: memcpy */
    copy_case cr = {big / 4, b2, buf, 4};
    /* aggregation handles a run four times: gathered on its rank, placed and marked in the coverage
       bitmap on the owner, and copied out to the pack (for reads, the same backwards) */
    double k_copy = 4 * measure(copy_runs, &cr) / (double)cr.n;
    copy_case cb = {big, b2, buf, 1};
    double k_bwc = (double)big / measure(copy_bulk, &cb);
    /* BW_NET and LAT_X: the aggregation exchange */
    net_case nc;
    nc.per = big / (size_t)P;
    nc.s = buf;
    nc.r = b2;
    nc.cnt = malloc(sizeof(int) * (size_t)P);
    nc.dsp = malloc(sizeof(int) * (size_t)P);
    for (int r = 0; r < P; r++) { nc.cnt[r] = (int)nc.per; nc.dsp[r] = (int)(nc.per * (size_t)r); }
    /* BW_NET within a node, BW_NET_X out of a node: the same exchange, each rank sending only to the
       ranks of its own node, then only to the others (per node: a node's ranks share its link) */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    int K = 1, lead = 0, H = 0;
    MPI_Comm_size(node, &K);
    {
        int nr = 0;
        MPI_Comm_rank(node, &nr);
        lead = nr == 0;
        MPI_Allreduce(&lead, &H, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    int *same = calloc((size_t)P, sizeof *same), *sg = malloc(sizeof(int) * (size_t)K);
    MPI_Group wg, ng;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(node, &ng);
    for (int i = 0; i < K; i++) sg[i] = i;
    int *wr = malloc(sizeof(int) * (size_t)K);
    MPI_Group_translate_ranks(ng, K, sg, wg, wr);
    for (int i = 0; i < K; i++) same[wr[i]] = 1;
    free(sg);
    free(wr);
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    double k_net = 3e9, k_netx = 1.25e10; /* colldiag's defaults where a case cannot be measured */
    int net_in = 0, net_x = 0, one = K > 1, all_one = 0, many = H > 1;
    MPI_Allreduce(&one, &all_one, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_one) { /* within: every node has two ranks or more */
        size_t sent = 0;
        for (int r = 0; r < P; r++) {
            nc.cnt[r] = same[r] && r != me ? (int)nc.per : 0;
            sent += (size_t)nc.cnt[r];
        }
        k_net = (double)sent / measure(net_run, &nc);
        net_in = 1;
    }
    if (many) { /* out: per node, its K ranks' bytes to other nodes */
        size_t sent = 0;
        for (int r = 0; r < P; r++) {
            nc.cnt[r] = same[r] ? 0 : (int)nc.per;
            sent += (size_t)nc.cnt[r];
        }
        k_netx = (double)sent * K / measure(net_run, &nc);
        net_x = 1;
    }
    free(same);
    MPI_Comm_free(&node);
    int nx = quick ? 10 : 100;
    double k_x = measure(x_run, &nx) / nx;

    if (!me) {
        printf("# colldiag AUTO constants measured by bench/calibrate.c: %d ranks, files in %s%s\n", P, dir,
               quick ? " (quick: small sizes, not for use)" : "");
        printf("# s per small collective call (4 KiB per rank through a view, pieces side by side)\nexport COLLDIAG_AUTO_LAT=%.3g\n", t_lat);
        printf("# s per all-to-all step of the aggregation exchange\nexport COLLDIAG_AUTO_LAT_X=%.3g\n", k_x);
        printf("# s per 64-byte file run in two-phase I/O, beyond its bytes\nexport COLLDIAG_AUTO_RUN=%.3g\n", k_run);
        printf("# RUN's share a run costs at %d runs a rank\nexport COLLDIAG_AUTO_RUN_LOW=%.3g\n", nrs[0], k_run_low);
        if (quick) printf("# runs a rank up to which a run costs RUN x RUN_LOW: not measured (quick); colldiag's default\nexport COLLDIAG_AUTO_RUN_KNEE=%d\n", k_knee);
        else printf("# runs a rank up to which a run costs RUN x RUN_LOW (%.3g us at 1024, %.3g at 4096, %.3g at 16384)\nexport COLLDIAG_AUTO_RUN_KNEE=%d\n",
                    per_run[0] * 1e6, per_run[1] * 1e6, per_run[2] * 1e6, k_knee);
        printf("# s per 512-byte memory block in a collective call, beyond its bytes\nexport COLLDIAG_AUTO_MRUN=%.3g\n", k_mrun);
        printf("# s per independent call (a 64-byte read of a cached page)\nexport COLLDIAG_AUTO_IND=%.3g\n", k_ind);
        printf("# s a 64-byte independent write adds for the fresh page it dirties\nexport COLLDIAG_AUTO_IND_DIRTY=%.3g\n", k_dirty);
        printf("# s per run aggregation packs and places (4 one-by-one copies of a 4-byte element)\nexport COLLDIAG_AUTO_COPY=%.3g\n", k_copy);
        printf("# B/s per rank, collective, 64 KiB blocks of the ranks alternating\nexport COLLDIAG_AUTO_BW_IO=%.3g\n", k_bw);
        printf("# B/s per rank, one independent call of a contiguous region\nexport COLLDIAG_AUTO_BW_IND=%.3g\n", k_bwi);
        printf("# B/s of memcpy\nexport COLLDIAG_AUTO_BW_COPY=%.3g\n", k_bwc);
        if (net_in) printf("# B/s per rank through MPI_Alltoallv, to the ranks of its own node\nexport COLLDIAG_AUTO_BW_NET=%.3g\n", k_net);
        else printf("# B/s per rank within a node: not measured (a node with one rank); colldiag's default\nexport COLLDIAG_AUTO_BW_NET=%.3g\n", k_net);
        if (net_x) printf("# B/s out of a node through MPI_Alltoallv (%d nodes of up to %d ranks), its ranks together\nexport COLLDIAG_AUTO_BW_NET_X=%.3g\n", H, K, k_netx);
        else printf("# B/s out of a node: not measured (one node; run calibrate across nodes); colldiag's default\nexport COLLDIAG_AUTO_BW_NET_X=%.3g\n", k_netx);
    }
    MPI_File_close(&fh);
    if (!me) unlink(path);
    free(buf);
    free(b2);
    free(nc.cnt);
    free(nc.dsp);
    MPI_Finalize();
    return 0;
}
