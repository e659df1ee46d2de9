/* The file runs AUTO's model prices, against the test's own count, on every rank:
 *
 *   test_model_runs DIR
 *
 * All-independent's estimate of a read is, per rank, bytes / BW_IND + (whole-chunk stretches + the runs
 * of its pieces that do not cover their chunk) x IND, the busiest rank's (src/decision.c, multi_local).
 * With IND = 1 ms and BW_IND = 1e18 B/s, the estimate is the busiest rank's run count in milliseconds.
 * The selections below leave every chunk shared by every rank (no whole-chunk piece), so the test's
 * count is the runs alone: for each chunk, the rank's elements in the chunk's own row-major order,
 * broken wherever an in-chunk offset does not follow the one before. Cases: rows dealt round-robin
 * (each row its own run: the mapping priced a chunk's strided full-width rows as one until 2026-12-02),
 * pairs of rows round-robin, 3-D planes round-robin, and 3-D rows round-robin within every plane (the
 * groups carried across levels). A band of rows over every chunk checks the merged case: one run a
 * chunk. Planned (colldiag_plan_read: nothing read or written); needs 2 ranks or more (on one every
 * piece is a whole chunk). Exit status 1 on every rank when any rank failed. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colldiag.h"

static int me, P, bad;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL ", me); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad = 1; } } while (0)

/* A case: a rank's elements are those whose coordinate along `dim` falls in its blocks: blocks of
   `block` coordinates dealt round-robin (block b to rank b mod P); block 0 means one band a rank. */
typedef struct {
    const char *name;
    int rank;
    uint64_t dims[3], cdims[3];
    int dim;
    uint64_t block;
} mcase;

static int held(const mcase *c, const uint64_t *x)
{
    const uint64_t v = x[c->dim], n = c->dims[c->dim];
    if (!c->block) return v >= n * (uint64_t)me / (uint64_t)P && v < n * (uint64_t)(me + 1) / (uint64_t)P;
    return (int)((v / c->block) % (uint64_t)P) == me;
}

/* The test's own count: the runs of this rank's elements, chunk by chunk, in the chunk's row-major
   order. Walks every element of the dataset (small). */
static uint64_t own_runs(const mcase *c)
{
    uint64_t grid[3] = {1, 1, 1}, nch = 1, runs = 0;
    for (int d = 0; d < c->rank; d++) nch *= grid[d] = (c->dims[d] + c->cdims[d] - 1) / c->cdims[d];
    for (uint64_t ch = 0; ch < nch; ch++) {
        uint64_t cc[3] = {0, 0, 0}, t = ch, cel = 1;
        for (int d = c->rank - 1; d >= 0; d--) { cc[d] = t % grid[d]; t /= grid[d]; }
        for (int d = 0; d < c->rank; d++) cel *= c->cdims[d];
        int prev = 0;
        for (uint64_t o = 0; o < cel; o++) { /* in-chunk offset o, row-major over the chunk's shape */
            uint64_t x[3] = {0, 0, 0}, r = o;
            int inside = 1;
            for (int d = c->rank - 1; d >= 0; d--) {
                x[d] = cc[d] * c->cdims[d] + r % c->cdims[d];
                r /= c->cdims[d];
                inside &= x[d] < c->dims[d];
            }
            const int h = inside && held(c, x);
            if (h && !prev) runs++;
            prev = h;
        }
    }
    return runs;
}

/* This rank's selection of case c. */
static colldiag_sel *selection(const mcase *c)
{
    colldiag_sel *s = NULL;
    colldiag_sel_create(c->rank, c->dims, &s);
    uint64_t st[3] = {0, 0, 0}, sr[3] = {1, 1, 1}, cn[3] = {1, 1, 1}, bl[3];
    for (int d = 0; d < c->rank; d++) bl[d] = c->dims[d];
    const int k = c->dim;
    if (!c->block) {
        st[k] = c->dims[k] * (uint64_t)me / (uint64_t)P;
        bl[k] = c->dims[k] * (uint64_t)(me + 1) / (uint64_t)P - st[k];
    } else {
        const uint64_t nb = c->dims[k] / c->block; /* the cases' extents are whole blocks */
        st[k] = (uint64_t)me * c->block;
        sr[k] = (uint64_t)P * c->block;
        cn[k] = nb > (uint64_t)me ? (nb - (uint64_t)me + (uint64_t)P - 1) / (uint64_t)P : 0;
        bl[k] = c->block;
    }
    if (bl[k] && cn[k]) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, sr, cn, bl);
    else colldiag_sel_select_none(s);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2) { if (!me) fprintf(stderr, "usage: test_model_runs DIR\n"); MPI_Finalize(); return 2; }
    if (P < 2) {
        if (!me) printf("test_model_runs: not tested on 1 rank (every piece is a whole chunk)\n");
        MPI_Finalize();
        return 0;
    }
    /* the model alone, independent I/O's per-call constant as the unit, its bytes free */
    setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    setenv("COLLDIAG_AUTO_IND", "1e-3", 1);
    setenv("COLLDIAG_AUTO_BW_IND", "1e18", 1);
    const uint64_t p = (uint64_t)P;
    /* chunks of 4P rows (or planes): every rank holds part of every chunk, never all of one */
    const mcase cases[] = {
        {"2-D rows round-robin", 2, {16 * p, 24, 1}, {4 * p, 24, 1}, 0, 1},
        {"2-D pairs of rows round-robin", 2, {16 * p, 24, 1}, {4 * p, 24, 1}, 0, 2},
        {"2-D rows round-robin, chunks of part of a row", 2, {16 * p, 24, 1}, {4 * p, 8, 1}, 0, 1},
        {"3-D planes round-robin", 3, {8 * p, 6, 10}, {4 * p, 6, 10}, 0, 1},
        {"3-D rows round-robin in every plane", 3, {6, 8 * p, 10}, {3, 4 * p, 10}, 1, 1},
        {"2-D a band of rows a rank, over every chunk", 2, {4 * p, 24, 1}, {4 * p, 24, 1}, 0, 0},
    };
    char path[1024];
    snprintf(path, sizeof path, "%s/test_model_runs.bin", argv[1]);
    colldiag_file *f = NULL;
    CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open %s", path);
    for (size_t i = 0; f && i < sizeof cases / sizeof *cases; i++) {
        const mcase *c = &cases[i];
        colldiag_layout *l = NULL;
        colldiag_xfer *x = NULL;
        colldiag_layout_chunked(c->rank, c->dims, c->cdims, sizeof(double), 0, &l);
        colldiag_xfer_create(&x);
        colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_AUTO);
        colldiag_sel *s = selection(c);
        const int rc = colldiag_plan_read(f, l, s, NULL, x);
        CHECK(rc == 0, "%s: plan: %s", c->name, colldiag_xfer_errmsg(x));
        double est[4] = {-1, -1, -1, -1};
        colldiag_get_model_estimates(x, est);
        /* the busiest rank's count, the test's own */
        unsigned long long mine = own_runs(c), most = 0;
        MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        const double want = (double)most * 1e-3;
        CHECK(est[3] > want - 1e-8 && est[3] < want + 1e-8, "%s: all-independent estimated at %.9f s, the test counts %llu runs on the busiest rank (%.9f s)",
              c->name, est[3], most, want);
        /* alike on every rank */
        double lo = est[3], hi = est[3];
        MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        CHECK(lo == hi, "%s: the ranks' estimates differ (%.9f .. %.9f)", c->name, lo, hi);
        if (!me) printf("%s: %llu runs on the busiest rank, all-independent estimated at %.6f s\n", c->name, most, est[3]);
        colldiag_sel_free(s);
        colldiag_xfer_free(x);
        colldiag_layout_free(l);
    }
    if (f) colldiag_file_close(f);
    if (!me) remove(path);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!me) printf("test_model_runs: %s (%d ranks)\n", any ? "FAILED" : "ok", P);
    MPI_Finalize();
    return any ? 1 : 0;
}
