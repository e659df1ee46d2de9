/* bench — colldiag against the physical limit on the patterns of the performance issue.
 *
 *   B1 row blocks:   N1 x N1 doubles, C1 x C1 chunks, rank r writes a block of rows
 *   B2 tiny in huge: N2 x N2 ints, C2 x C2 chunks (about a million), each rank one 64 x 64 block
 *   B3 interleaved:  N3 x N3 ints, C3 x C3 chunks, rank r writes columns j = r (mod P)
 *   B4 planning:     N4^3 ints, C4^3 chunks, rank r a slab of planes
 *
 * For each pattern, in one run, interleaved round-robin and repeated REPS times (median reported):
 * the raw limit (one contiguous MPI_File_write_at_all of the same number of bytes per rank) and the
 * colldiag schemes. Prints seconds, the ratio to the limit, colldiag's mapping+deciding time, and the
 * peak memory a call adds (colldiag's allocator is counted), as a table and as CSV (bench.csv).
 *
 *   mpirun -n 3 bench/bench [tiny] [REPS]       environment: BENCH_DIR (default /tmp)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* colldiag's allocator, counted: live and peak bytes */
static size_t g_live, g_peak;
static void *b_malloc(size_t n)
{
    size_t *p = malloc(n + 16);
    if (!p) return NULL;
    p[0] = n;
    g_live += n;
    if (g_live > g_peak) g_peak = g_live;
    return (char *)p + 16;
}
static void *b_calloc(size_t n, size_t s)
{
    void *p = b_malloc(n * s);
    if (p) memset(p, 0, n * s);
    return p;
}
static void b_free(void *q)
{
    if (!q) return;
    size_t *p = (size_t *)((char *)q - 16);
    g_live -= p[0];
    free(p);
}
static void *b_realloc(void *q, size_t n)
{
    if (!q) return b_malloc(n);
    size_t *p = (size_t *)((char *)q - 16), old = p[0];
    size_t *r = realloc(p, n + 16);
    if (!r) return NULL;
    r[0] = n;
    g_live += n - old;
    if (g_live > g_peak) g_peak = g_live;
    return (char *)r + 16;
}
#define COLLDIAG_MALLOC(n) b_malloc(n)
#define COLLDIAG_CALLOC(n, s) b_calloc((n), (s))
#define COLLDIAG_REALLOC(p, n) b_realloc((p), (n))
#define COLLDIAG_FREE(p) b_free(p)
#include "../colldiag.c"

#include <stdio.h>
#include <unistd.h>

static int me, P;

typedef struct {
    const char *name;
    int rank;
    uint64_t dims[3], cdims[3];
    size_t esize;
    colldiag_sel *sel;
    uint64_t bytes; /* this rank's */
} pattern;

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) { double t = v[j]; v[j] = v[j - 1]; v[j - 1] = t; }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void make_patterns(pattern *pt, int tiny)
{
    uint64_t n1 = tiny ? 256 : 4096, c1 = tiny ? 16 : 64;
    uint64_t n2 = tiny ? 1024 : 8192, c2 = 8;
    uint64_t n3 = tiny ? 256 : 2048, c3 = tiny ? 32 : 256;
    uint64_t n4 = tiny ? 64 : 512, c4 = 8;
    pattern p1 = {"B1 row blocks", 2, {n1, n1}, {c1, c1}, 8, NULL, 0};
    pattern p2 = {"B2 tiny in huge", 2, {n2, n2}, {c2, c2}, 4, NULL, 0};
    pattern p3 = {"B3 interleaved", 2, {n3, n3}, {c3, c3}, 4, NULL, 0};
    pattern p4 = {"B4 planning", 3, {n4, n4, n4}, {c4, c4, c4}, 4, NULL, 0};
    pt[0] = p1; pt[1] = p2; pt[2] = p3; pt[3] = p4;
    for (int i = 0; i < 4; i++) {
        colldiag_sel_create(pt[i].rank, pt[i].dims, &pt[i].sel);
        uint64_t st[3] = {0, 0, 0}, sr[3] = {1, 1, 1}, cn[3] = {1, 1, 1}, bl[3];
        memcpy(bl, pt[i].dims, sizeof bl);
        uint64_t lo = pt[i].dims[0] * (uint64_t)me / (uint64_t)P, hi = pt[i].dims[0] * (uint64_t)(me + 1) / (uint64_t)P;
        if (i == 0 || i == 3) { st[0] = lo; bl[0] = hi - lo; }
        if (i == 1) { st[0] = (uint64_t)me * 64 * 4 + 96; st[1] = 128; bl[0] = bl[1] = 64; }
        if (i == 2) { st[1] = (uint64_t)me; sr[1] = (uint64_t)P; bl[1] = 1; cn[1] = (pt[i].dims[1] - (uint64_t)me + (uint64_t)P - 1) / (uint64_t)P; }
        colldiag_sel_select_hyperslab(pt[i].sel, COLLDIAG_SELECT_SET, st, sr, cn, bl);
        pt[i].bytes = colldiag_sel_npoints(pt[i].sel) * pt[i].esize;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int tiny = argc > 1 && !strcmp(argv[1], "tiny");
    int reps = argc > 2 ? atoi(argv[2]) : (tiny ? 1 : 5);
    const char *dir = getenv("BENCH_DIR") ? getenv("BENCH_DIR") : "/tmp";
    char path[512];
    snprintf(path, sizeof path, "%s/colldiag_bench.bin", dir);
    pattern pt[4];
    make_patterns(pt, tiny);
    /* schemes; -1 is the raw limit */
    const int opts[] = {-1, COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_ALL_CHUNK_IND_IO};
    const char *oname[] = {"raw limit", "link", "multi", "all-ind"};
    enum { NO = 4 };
    double t[4][NO][16], tplan[4][NO][16];
    size_t mem[4][NO];
    memset(mem, 0, sizeof mem);
    colldiag_file *f;
    colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    for (int r = 0; r < reps && r < 16; r++)
        for (int i = 0; i < 4; i++) {
            colldiag_layout *l;
            colldiag_layout_chunked(pt[i].rank, pt[i].dims, pt[i].cdims, pt[i].esize, 0, &l);
            char *buf = malloc(pt[i].bytes + 1);
            memset(buf, 7, pt[i].bytes);
            for (int o = 0; o < NO; o++) {
                /* Skipped at full size, their cost is known without running them: B3 all-independent is about a
                   million 4-byte calls per rank; B4 multi-chunk is one collective call per chunk, 262,144 of them. */
                if (!tiny && ((i == 2 && o == 3) || (i == 3 && o == 2))) { t[i][o][r] = -1; continue; }
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                if (opts[o] < 0) {
                    MPI_Status st;
                    MPI_File_write_at_all(f->fh, (MPI_Offset)((uint64_t)me * pt[i].bytes), buf, (int)pt[i].bytes, MPI_BYTE, &st);
                    tplan[i][o][r] = 0;
                } else {
                    colldiag_xfer *x;
                    colldiag_xfer_create(&x);
                    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
                    colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)opts[o]);
                    size_t base = g_live;
                    g_peak = g_live;
                    int rc = colldiag_write(f, l, pt[i].sel, NULL, buf, x);
                    if (rc && me == 0) fprintf(stderr, "%s %s: %s\n", pt[i].name, oname[o], colldiag_xfer_errmsg(x));
                    if (g_peak - base > mem[i][o]) mem[i][o] = g_peak - base;
                    colldiag_counters c;
                    memset(&c, 0, sizeof c);
                    colldiag_get_counters(x, &c);
                    tplan[i][o][r] = c.t_map + c.t_decide;
                    colldiag_xfer_free(x);
                }
                double el = MPI_Wtime() - t0, mx;
                MPI_Allreduce(&el, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                t[i][o][r] = mx;
            }
            free(buf);
            colldiag_layout_free(l);
        }
    colldiag_file_close(f);
    if (me == 0) unlink(path);
    /* the table: medians, on rank 0 (per-rank planning time and memory are rank 0's) */
    if (me == 0) {
        FILE *csv = fopen("bench.csv", "w");
        if (csv) fprintf(csv, "pattern,scheme,ranks,bytes_per_rank,seconds,ratio_to_limit,plan_seconds,plan_us_per_chunk,peak_bytes_added,touched_chunks\n");
        printf("colldiag bench: %d ranks, %s sizes, median of %d, write times (seconds)\n", P, tiny ? "tiny" : "issue", reps);
        printf("%-16s %-10s %10s %8s %12s %12s %14s\n", "pattern", "scheme", "seconds", "x limit", "plan (s)", "us/chunk", "mem added (B)");
        for (int i = 0; i < 4; i++) {
            double lim = median(t[i][0], reps);
            for (int o = 0; o < NO; o++) {
                if (t[i][o][0] < 0) { printf("%-16s %-10s %10s\n", pt[i].name, oname[o], "skipped"); continue; }
                double m = median(t[i][o], reps), pl = median(tplan[i][o], reps);
                /* chunks rank 0 touched, for the per-chunk planning cost */
                uint64_t nch = 0;
                if (o > 0) {
                    colldiag_layout *l;
                    colldiag_layout_chunked(pt[i].rank, pt[i].dims, pt[i].cdims, pt[i].esize, 0, &l);
                    cd_map mp;
                    memset(&mp, 0, sizeof mp);
                    map_build(&mp, l, pt[i].sel);
                    nch = mp.n;
                    map_free(&mp);
                    colldiag_layout_free(l);
                }
                printf("%-16s %-10s %10.4f %8.2f %12.6f %12.3f %14zu\n", pt[i].name, oname[o], m, m / lim, pl, nch ? 1e6 * pl / (double)nch : 0.0,
                       mem[i][o]);
                if (csv)
                    fprintf(csv, "%s,%s,%d,%llu,%.6f,%.3f,%.6f,%.3f,%zu,%llu\n", pt[i].name, oname[o], P, (unsigned long long)pt[i].bytes, m,
                            m / lim, pl, nch ? 1e6 * pl / (double)nch : 0.0, mem[i][o], (unsigned long long)nch);
            }
        }
        if (csv) fclose(csv);
    }
    for (int i = 0; i < 4; i++) colldiag_sel_free(pt[i].sel);
    MPI_Finalize();
    return 0;
}
