/* bench/auto.c — AUTO that measures, in time-step loops, with colldiag's DEFAULT constants (no calibrate):
 * for each pattern and direction, a loop of CALLS calls of the same selection, once with AUTO (every
 * measurement forgotten first: a cold start, as a job starts) and once with each fixed scheme (link,
 * multi, aggregation, all-independent) and with AUTO's pure model (COLLDIAG_AUTO_MODE=estimate), the
 * variants interleaved within a repetition so that the machine's noise hits them alike (each repetition
 * in another order: a shuffle the same on every rank), REPS repetitions,
 * medians reported. A call's time is its slowest rank's. Prints, per case, every variant's total, AUTO's
 * total over the best fixed scheme's, the schemes AUTO ran call by call, and how many of AUTO's calls from
 * the third on were within 1.15x of the best scheme's median call or ran the best scheme itself ("best ok":
 * how many of the best scheme's own calls from the third on were, its noise floor).
 *
 *   mpirun -n P bench/auto [CALLS] [REPS]     (make bench-auto: 3 ranks, 8 ranks, 4x2 simulated nodes)
 *   environment: BENCH_DIR (default /tmp); BENCH_AUTO_TRACE=1: AUTO's estimates, corrected estimates and
 *   measured medians after each of its calls, on standard error; BENCH_AUTO_CALLS=1: every variant's loop call by call
 *   (ms), on standard error; the patterns' sizes are bench-nodes' (bench/nodes.sh)
 *
 * Patterns (bench/bench.c's, at bench-nodes' sizes): B1 row blocks (1024^2 doubles, 96^2 chunks), B3
 * interleaved column blocks of 16 and of 64 (1024^2 ints, 128^2 chunks), B4 slabs of planes (128^3 ints,
 * 8^3 chunks). Every read is checked against the values written; a wrong byte fails the run. */
#define _GNU_SOURCE
#include "../colldiag.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <malloc.h>

static int me, P;
typedef struct {
    const char *name;
    int rank;
    uint64_t dims[3], cdims[3];
    size_t es;
    int w3;                      /* column blocks (B3), 0: slabs/rows */
    int mode;                    /* 0: as w3 says; 1: rows round-robin (row i to rank i mod P); 2: one w3 x w3 tile a rank;
                                    3: a band along the last dimension */
} pat;

enum { NV = 6 };                 /* variants: auto, estimate, link, multi, aggregation, independent */
static const char *const vname[NV] = {"auto", "model", "link", "multi", "aggregate", "ind"};
static const colldiag_chunk_opt_t vopt[NV] = {COLLDIAG_MPIO_CHUNK_AUTO, COLLDIAG_MPIO_CHUNK_AUTO, COLLDIAG_MPIO_CHUNK_ONE_IO,
                                              COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO, COLLDIAG_MPIO_ALL_CHUNK_IND_IO};

static colldiag_sel *selection(const pat *p)
{
    colldiag_sel *s = NULL;
    colldiag_sel_create(p->rank, p->dims, &s);
    if (p->mode == 1) { /* rows i = r (mod P), every column */
        const uint64_t mine = p->dims[0] > (uint64_t)me ? (p->dims[0] - (uint64_t)me + (uint64_t)P - 1) / (uint64_t)P : 0;
        uint64_t st[2] = {(uint64_t)me, 0}, sr[2] = {(uint64_t)P, 1}, cn[2] = {mine, 1}, bl[2] = {1, p->dims[1]};
        if (mine) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, sr, cn, bl);
        else colldiag_sel_select_none(s);
    } else if (p->mode == 2) { /* a w3 x w3 tile on the diagonal, wrapped */
        const uint64_t per = p->dims[0] / (uint64_t)p->w3, k = (uint64_t)me % per;
        uint64_t st[2] = {k * (uint64_t)p->w3, ((uint64_t)me / per * 7 + k) % per * (uint64_t)p->w3}, one[2] = {1, 1}, cn[2] = {(uint64_t)p->w3, (uint64_t)p->w3};
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, one, cn, NULL);
    } else if (p->mode == 3) { /* a band along the last dimension */
        uint64_t st[3] = {0}, cn[3], one[3] = {1, 1, 1};
        const int l = p->rank - 1;
        const uint64_t lo = p->dims[l] * (uint64_t)me / (uint64_t)P, hi = p->dims[l] * (uint64_t)(me + 1) / (uint64_t)P;
        for (int d = 0; d < l; d++) cn[d] = p->dims[d];
        st[l] = lo;
        cn[l] = hi - lo;
        if (hi > lo) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, one, cn, NULL);
        else colldiag_sel_select_none(s);
    } else if (p->w3) { /* column blocks of w3, j / w3 = r (mod P), every row */
        const uint64_t nb = p->dims[1] / (uint64_t)p->w3, mine = nb > (uint64_t)me ? (nb - (uint64_t)me + (uint64_t)P - 1) / (uint64_t)P : 0;
        uint64_t st[2] = {0, (uint64_t)me * p->w3}, sr[2] = {1, (uint64_t)P * p->w3}, cn[2] = {1, mine}, bl[2] = {p->dims[0], (uint64_t)p->w3};
        if (mine) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, sr, cn, bl);
        else colldiag_sel_select_none(s);
    } else { /* a band along dim 0 */
        uint64_t st[3] = {0}, cn[3], one[3] = {1, 1, 1};
        const uint64_t lo = p->dims[0] * (uint64_t)me / (uint64_t)P, hi = p->dims[0] * (uint64_t)(me + 1) / (uint64_t)P;
        st[0] = lo;
        cn[0] = hi - lo;
        for (int d = 1; d < p->rank; d++) cn[d] = p->dims[d];
        if (hi > lo) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, one, cn, NULL);
        else colldiag_sel_select_none(s);
    }
    return s;
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One loop: CALLS calls of variant v, each call's slowest rank's time into t[], the scheme AUTO ran into
   ran[] (-1 for the fixed schemes). 0, or 1 when a byte read back was wrong. */
static int run_loop(const pat *p, int dir_read, int v, int calls, const char *path, double *t, int *ran)
{
    colldiag_file *f = NULL;
    colldiag_layout *l = NULL;
    colldiag_xfer *x = NULL;
    /* AUTO's cold start, as a job starts: nothing measured, nothing probed, before the file is opened,
       where colldiag probes what its model prices with (a job opens its file outside its time-step loop;
       forgotten after the open, the probe ran in the loop's first call: 3-4 ms of 3-rank B4 writes' 2.5 ms
       calls, 1.3x link-chunk's total, a cost a job pays once, at its open) */
    if (v == 0) colldiag_auto_forget();
    if (colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f)) return 1;
    colldiag_layout_chunked(p->rank, p->dims, p->cdims, p->es, 0, &l);
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, vopt[v]);
    colldiag_set_auto_measure(x, v == 0);
    colldiag_sel *s = selection(p);
    const uint64_t n = colldiag_sel_npoints(s);
    unsigned char *buf = malloc(n * p->es + 1);
    for (uint64_t i = 0; i < n * p->es; i++) buf[i] = (unsigned char)(i * 7 + (unsigned)me);
    int bad = 0;
    if (dir_read) { /* the data to read, not measured: the loop's reads start cold */
        colldiag_set_auto_measure(x, 0);
        bad |= colldiag_write(f, l, s, NULL, buf, x) != 0;
        colldiag_set_auto_measure(x, v == 0);
    }
    for (int c = 0; c < calls; c++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        const int rc = dir_read ? colldiag_read(f, l, s, NULL, buf, x) : colldiag_write(f, l, s, NULL, buf, x);
        double mine = MPI_Wtime() - t0, most = 0;
        MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[c] = most;
        int ch = -1, aio = -1;
        double aggt[2];
        colldiag_get_auto_measured(x, NULL, NULL, NULL, &ch);
        colldiag_get_auto_aggregation_io(x, &aio, aggt);
        ran[c] = vopt[v] == COLLDIAG_MPIO_CHUNK_AUTO ? (ch == 2 && aio == 1 ? 4 : ch) : -1; /* 4: aggregation, its owners' runs by independent calls */
        if (v == 0 && me == 0 && getenv("BENCH_AUTO_TRACE")) { /* what AUTO knew: the model's error, call by call */
            double est[4], ec[4], mt[4];
            unsigned mn[4];
            int kind = -1;
            colldiag_get_model_estimates(x, est);
            colldiag_get_auto_corrected(x, ec);
            colldiag_get_auto_measured(x, mt, mn, &kind, NULL);
            double step = 0, link = 0;
            colldiag_file_get_step_latency(f, &step);
            colldiag_file_get_link_rate(f, &link);
            fprintf(stderr, "trace %s %s call %d ran %c (kind %d) %.4f s | est L M A I %.4f %.4f %.4f %.4f | corrected %.4f %.4f %.4f %.4f | measured %.4f %.4f %.4f %.4f"
                            " | step %.0f us, link %.0f MB/s | aggregation's owners' I/O coll %.4f ind %.4f\n",
                    p->name, dir_read ? "read" : "write", c, ran[c] >= 0 && ran[c] < 5 ? "LMAIa"[ran[c]] : '-', kind, most, est[0], est[1], est[2], est[3], ec[0], ec[1], ec[2],
                    ec[3], mt[0], mt[1], mt[2], mt[3], step * 1e6, link * 1e-6, aggt[0], aggt[1]);
        }
        bad |= rc != 0;
    }
    if (dir_read) /* every byte as written */
        for (uint64_t i = 0; i < n * p->es; i++)
            if (buf[i] != (unsigned char)(i * 7 + (unsigned)me)) { bad = 1; break; }
    free(buf);
    colldiag_sel_free(s);
    colldiag_xfer_free(x);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    /* A warm heap, for every variant alike (unless the user set glibc's malloc thresholds): a loop's first
       call otherwise pays, in fresh pages, what the loop before it returned to the kernel (14-21 us a
       4 KiB page on this VM, ~0.25 us on a cluster node: docs/benchmarks.md), and the variants' fixed
       cyclic order makes AUTO's loop follow all-independent's every time: its first 3-rank B4 write ran
       5-7 ms against 2.5 ms for link-chunk's, 1.3x link-chunk's total in every dated run since
       2026-12-01, and 3 ms with this (the preload does the same under COLLDIAG_ACCELERATE: keep_heap_warm) */
    if (!getenv("MALLOC_MMAP_THRESHOLD_") && !getenv("MALLOC_TRIM_THRESHOLD_") && !(getenv("GLIBC_TUNABLES") && strstr(getenv("GLIBC_TUNABLES"), "glibc.malloc."))) {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 64 << 20);
    }
    const int calls = argc > 1 ? atoi(argv[1]) : 10, reps = argc > 2 ? atoi(argv[2]) : 3;
    const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/tmp";
    unsetenv("COLLDIAG_CHUNK_OPT");
    unsetenv("COLLDIAG_AUTO_MODE");
    const pat pats[] = {{"B1", 2, {1024, 1024}, {96, 96}, 8, 0, 0},
                        {"B3w16", 2, {1024, 1024}, {128, 128}, 4, 16, 0},
                        {"B3w64", 2, {1024, 1024}, {128, 128}, 4, 64, 0},
                        {"B4", 3, {128, 128, 128}, {8, 8, 8}, 4, 0, 0},
                        /* not in make bench-auto's run (only when BENCH_PATTERNS names them): shapes AUTO was not tuned
                           on, to look for a case it gets wrong */
                        {"X1d", 1, {4u << 20}, {65536}, 8, 0, 0},                  /* 1-D bands, 512 KiB chunks */
                        {"Xrr", 2, {1024, 1024}, {64, 1024}, 8, 0, 1},             /* rows round-robin in 512 KiB chunks */
                        {"Xtile", 2, {4096, 4096}, {64, 64}, 4, 256, 2},              /* a 256^2 tile a rank, 4096 chunks */
                        {"Xsmall", 2, {1024, 1024}, {16, 16}, 8, 0, 0},              /* row bands in 2 KiB chunks */
                        {"Xpencil", 3, {128, 128, 128}, {32, 32, 32}, 4, 0, 3}};  /* bands of the last dimension */
    const int np = (int)(sizeof pats / sizeof *pats);
    const char *only = getenv("BENCH_PATTERNS");
    char path[1024];
    snprintf(path, sizeof path, "%s/colldiag_bench_auto.%d.bin", dir, (int)getpid());
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (me == 0) printf("# bench-auto: %d ranks, %d calls a loop, median of %d, default constants (no calibrate)\n", P, calls, reps);
    if (me == 0) printf("%-6s %-5s %10s %10s %10s %10s %10s %10s %8s %8s %8s  %s\n", "patt.", "dir", "auto", "model", "link", "multi", "aggregate", "ind",
                        "auto/best", "calls ok", "best ok", "schemes AUTO ran, call by call (L M A I; a: aggregation, owners' runs by independent calls), last repetition");
    int fail = 0;
    for (int i = 0; i < np; i++) {
        if (only ? !strstr(only, pats[i].name) : pats[i].name[0] == 'X') continue;
        for (int rd = 0; rd < 2; rd++) {
            double *tot = calloc((size_t)NV * reps, sizeof *tot), *calls_t = calloc((size_t)NV * reps * calls, sizeof *calls_t);
            int *ran = calloc((size_t)calls, sizeof *ran), *autoran = calloc((size_t)reps * calls, sizeof *autoran);
            for (int r = 0; r < reps; r++) {
                /* each repetition runs the variants in another order, the same on every rank: none always runs
                   first (on a cold cache) nor always after the same one (a cyclic order did that: AUTO's loop
                   always followed all-independent's and paid its freed pages, docs/benchmarks.md 2026-12-03) */
                int order[NV];
                for (int k = 0; k < NV; k++) order[k] = k;
                for (int k = NV - 1; k > 0; k--) { /* Fisher-Yates on a fixed hash: deterministic, alike everywhere */
                    unsigned h = (unsigned)(((i * 2 + rd) * 64 + r) * 8 + k) * 2654435761u;
                    h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
                    const int j = (int)(h % (unsigned)(k + 1)), tmp = order[k];
                    order[k] = order[j];
                    order[j] = tmp;
                }
                for (int vi = 0; vi < NV; vi++) {
                    const int v = order[vi];
                    double *t = calls_t + ((size_t)v * reps + (size_t)r) * calls;
                    if (run_loop(&pats[i], rd, v, calls, path, t, ran)) { fail = 1; if (me == 0) printf("%s %s %s: a wrong byte or a failed call\n", pats[i].name, rd ? "read" : "write", vname[v]); }
                    for (int c = 0; c < calls; c++) tot[v * reps + r] += t[c];
                    if (me == 0 && getenv("BENCH_AUTO_CALLS")) { /* every variant's loop, call by call (ms) */
                        fprintf(stderr, "calls %s %s rep %d %-9s", pats[i].name, rd ? "read" : "write", r, vname[v]);
                        for (int c = 0; c < calls; c++) fprintf(stderr, " %6.2f", t[c] * 1e3);
                        fprintf(stderr, "\n");
                    }
                    if (v == 0) memcpy(autoran + (size_t)r * calls, ran, (size_t)calls * sizeof *ran);
                }
            }
            double med[NV];
            for (int v = 0; v < NV; v++) {
                double tmp[64];
                for (int r = 0; r < reps && r < 64; r++) tmp[r] = tot[v * reps + r];
                med[v] = median(tmp, reps < 64 ? reps : 64);
            }
            int best = 2;
            for (int v = 3; v < NV; v++) if (med[v] < med[best]) best = v;
            /* AUTO's calls from the third on: within 1.15x of the best scheme's median call, or the best scheme */
            double *bc = malloc((size_t)reps * calls * sizeof *bc);
            for (int k = 0; k < reps * calls; k++) bc[k] = calls_t[(size_t)best * reps * calls + (size_t)k];
            const double best_call = median(bc, reps * calls);
            free(bc);
            /* and the same test applied to the best scheme's own calls: the share of calls this machine's noise
               alone puts over 1.15x of a median (AUTO's calls that ran the best scheme pass by the "or") */
            int ok = 0, n3 = 0, best_ok = 0;
            for (int r = 0; r < reps; r++)
                for (int c = 2; c < calls; c++) {
                    const double ta = calls_t[(size_t)r * calls + (size_t)c];
                    n3++;
                    ok += ta <= 1.15 * best_call || autoran[(size_t)r * calls + (size_t)c] == best - 2;
                    best_ok += calls_t[((size_t)best * reps + (size_t)r) * calls + (size_t)c] <= 1.15 * best_call;
                }
            if (me == 0) {
                printf("%-6s %-5s", pats[i].name, rd ? "read" : "write");
                for (int v = 0; v < NV; v++) printf(" %10.4f", med[v]);
                printf(" %8.2f %4d/%-3d %4d/%-3d  ", med[0] / med[best], ok, n3, best_ok, n3);
                for (int c = 0; c < calls; c++) {
                    const int a = autoran[(size_t)(reps - 1) * calls + (size_t)c];
                    printf("%c", "LMAIa?"[a < 0 || a > 4 ? 5 : a]);
                }
                printf("\n");
                fflush(stdout);
            }
            free(tot);
            free(calls_t);
            free(ran);
            free(autoran);
        }
    }
    if (me == 0) remove(path);
    MPI_Finalize();
    return fail;
}
