/* test_io — the scheme matrix, run with 1..4 ranks.
 *
 * For every scheme x layout x selection shape x rank 1..4: write with colldiag, check every byte of the
 * file against an image built from the test's own brute-force model of the selections; read back into
 * a canary-filled buffer and check every byte; check every rank's reported chunk optimisation, I/O
 * mode, causes and per-chunk info against the SPEC model computed here from gathered chunk sets; and
 * check with the PMPI interposer that collective bytes went through *_at_all, independent bytes
 * through *_at, with exactly the number of collective calls the scheme implies.
 *
 *   mpirun -n P tests/test_io [quick]
 */
#define _GNU_SOURCE
#include "colldiag.h"
#include "testutil.h"
#include "pmpi_count.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


typedef struct {
    int rank;
    uint64_t dims[4], cdims[4];
} shape_t;
static const shape_t shapes[] = {
    {1, {37, 0, 0, 0}, {5, 0, 0, 0}},
    {2, {13, 11, 0, 0}, {4, 3, 0, 0}},
    {3, {6, 5, 7, 0}, {2, 3, 4, 0}},
    {4, {4, 3, 5, 6}, {2, 2, 3, 4}},
};

enum { S_ROWS, S_COLS, S_UNION, S_POINTS, S_EMPTY_LAST, S_MEMSHAPE, S_MEMGHOST, S_N };
static const char *const sel_names[] = {"rows", "cols", "union", "points-reversed", "empty-last-rank", "memory-of-another-shape",
                                        "memory-with-ghost-cells"};

enum { L_CONTIG, L_DENSE, L_TABLE, L_N };
static const char *const layout_names[] = {"contiguous", "chunked-dense", "chunked-table"};

typedef struct {
    const char *name;
    int mode;      /* xfer mode */
    int opt;       /* chunk opt */
    unsigned num, ratio;
    int coll_opt;
} scheme_t;
static const scheme_t schemes[] = {
    {"default(link)", 1, 0, 0, 60, 0},
    {"default(multi)", 1, 0, 1000, 60, 0},
    {"one_io", 1, 1, 0, 60, 0},
    {"multi_io r60", 1, 2, 0, 60, 0},
    {"multi_io r0", 1, 2, 0, 0, 0},
    {"atonce r34", 1, 3, 0, 34, 0},
    {"all_ind", 1, 4, 0, 60, 0},
    {"multi_no_opt", 1, 5, 0, 60, 0},
    {"independent", 0, 0, 0, 60, 0},
    {"multi individual_io", 1, 2, 0, 0, 1},
    {"aggregate", 1, 6, 0, 60, 0},
    {"auto", 1, 7, 0, 60, 0},
};
#define NSCHEMES (int)(sizeof schemes / sizeof *schemes)

static uint64_t prod(const uint64_t *d, int r)
{
    uint64_t p = 1;
    for (int i = 0; i < r; i++) p *= d[i];
    return p;
}

/* ---- the test's own selection model ---- */
typedef struct {
    uint64_t start[4], stride[4], count[4], block[4];
} hyp;

static int in_hyp(const hyp *h, int rank, const uint64_t *c)
{
    for (int d = 0; d < rank; d++) {
        if (h->count[d] == 0 || c[d] < h->start[d]) return 0;
        uint64_t rel = c[d] - h->start[d];
        if (h->count[d] == 1 ? rel >= h->block[d] : (rel / h->stride[d] >= h->count[d] || rel % h->stride[d] >= h->block[d]))
            return 0;
    }
    return 1;
}
static void coords_of(uint64_t e, int rank, const uint64_t *dims, uint64_t *c)
{
    for (int d = rank - 1; d >= 0; d--) { c[d] = e % dims[d]; e /= dims[d]; }
}

typedef struct {
    colldiag_sel *fsel, *msel;
    uint64_t *fel, nf;   /* file elements in iteration order */
    uint64_t *mel;       /* memory element for each (NULL = packed) */
    uint64_t mspace;     /* memory elements in the buffer */
} rsel;

static hyp band(const shape_t *s, int r, int nr)
{
    hyp h;
    for (int d = 0; d < s->rank; d++) { h.start[d] = 0; h.stride[d] = 1; h.count[d] = 1; h.block[d] = s->dims[d]; }
    uint64_t lo = s->dims[0] * (uint64_t)r / (uint64_t)nr, hi = s->dims[0] * (uint64_t)(r + 1) / (uint64_t)nr;
    h.start[0] = lo;
    h.block[0] = hi - lo;
    if (hi == lo) h.count[0] = 0;
    return h;
}

static void add_hyp(colldiag_sel *s, int op, const hyp *h)
{
    int rc = colldiag_sel_select_hyperslab(s, (colldiag_seloper_t)op, h->start, h->stride, h->count, h->block);
    CHECK(rc == 0, "select_hyperslab: %s", colldiag_last_errmsg());
}

static void build_sel(const shape_t *s, int kind, rsel *o)
{
    memset(o, 0, sizeof *o);
    const int R = s->rank;
    const uint64_t N = prod(s->dims, R);
    unsigned char *bm = calloc((size_t)N, 1);
    uint64_t c[4];
    colldiag_sel_create(R, s->dims, &o->fsel);
    colldiag_sel_select_none(o->fsel);
    hyp h[2];
    int nh = 0, points = 0;
    int last = R - 1;
    switch (kind) {
    case S_ROWS: case S_MEMSHAPE: case S_MEMGHOST: h[nh++] = band(s, me, P); break;
    case S_EMPTY_LAST:
        if (me < P - 1) h[nh++] = band(s, me, P - 1);
        break;
    case S_COLS: {
        hyp x = band(s, 0, 1);
        x.start[last] = (uint64_t)me;
        x.stride[last] = (uint64_t)P;
        x.block[last] = 1;
        x.count[last] = s->dims[last] > (uint64_t)me ? (s->dims[last] - (uint64_t)me + (uint64_t)P - 1) / (uint64_t)P : 0;
        h[nh++] = x;
        break;
    }
    case S_UNION: {
        /* every other element of the last dimension OR its first three: an irregular union */
        hyp a = band(s, me, P), b = a;
        if (a.count[0] == 0) break;
        uint64_t len = a.block[last];
        a.stride[last] = 2; a.block[last] = 1; a.count[last] = (len + 1) / 2;
        b.block[last] = len < 3 ? len : 3;
        h[nh++] = a;
        h[nh++] = b;
        break;
    }
    case S_POINTS: points = 1; break;
    }
    for (int i = 0; i < nh; i++) add_hyp(o->fsel, i ? COLLDIAG_SELECT_OR : COLLDIAG_SELECT_SET, &h[i]);
    if (points) {
        hyp b = band(s, me, P);
        uint64_t *lst = malloc((size_t)N * sizeof *lst), n = 0;
        for (uint64_t e = 0; e < N; e++) {
            coords_of(e, R, s->dims, c);
            if (in_hyp(&b, R, c) && (e * 7919u) % 3u != 0) lst[n++] = e;
        }
        /* reversed order: the file order and the transfer order differ */
        uint64_t *coords = malloc((size_t)(n * (uint64_t)R + 1) * sizeof *coords);
        o->fel = malloc((size_t)(n + 1) * sizeof *o->fel);
        for (uint64_t i = 0; i < n; i++) {
            o->fel[i] = lst[n - 1 - i];
            coords_of(o->fel[i], R, s->dims, coords + i * (uint64_t)R);
        }
        o->nf = n;
        int rc = colldiag_sel_select_elements(o->fsel, COLLDIAG_SELECT_SET, n, coords);
        CHECK(rc == 0, "select_elements: %s", colldiag_last_errmsg());
        free(coords);
        free(lst);
    } else {
        for (uint64_t e = 0; e < N; e++) {
            coords_of(e, R, s->dims, c);
            for (int i = 0; i < nh; i++)
                if (in_hyp(&h[i], R, c)) bm[e] = 1;
        }
        o->fel = malloc((size_t)(N + 1) * sizeof *o->fel);
        for (uint64_t e = 0; e < N; e++)
            if (bm[e]) o->fel[o->nf++] = e;
    }
    free(bm);
    CHECK(colldiag_sel_npoints(o->fsel) == o->nf, "npoints %" PRIu64 " != model %" PRIu64, colldiag_sel_npoints(o->fsel), o->nf);
    o->mspace = o->nf;
    if (kind == S_MEMSHAPE) {
        uint64_t md = 2 * o->nf + 3;
        colldiag_sel_create(1, &md, &o->msel);
        uint64_t st = 1, sr = 2, cn = o->nf, bl = 1;
        int rc = colldiag_sel_select_hyperslab(o->msel, COLLDIAG_SELECT_SET, &st, &sr, &cn, &bl);
        CHECK(rc == 0, "mem select: %s", colldiag_last_errmsg());
        o->mel = malloc((size_t)(o->nf + 1) * sizeof *o->mel);
        for (uint64_t k = 0; k < o->nf; k++) o->mel[k] = 1 + 2 * k;
        o->mspace = md;
    }
    if (kind == S_MEMGHOST) { /* rows of W (the dataset's last dimension) inside a 2-D buffer with a one-element halo */
        const uint64_t W = s->dims[s->rank - 1], q = o->nf / W, rem = o->nf % W;
        uint64_t md[2] = {q + 3, W + 2}, st[2] = {1, 1}, sr[2] = {1, 1}, cn[2] = {1, 1}, bl[2] = {q, W};
        colldiag_sel_create(2, md, &o->msel);
        int rc = q ? colldiag_sel_select_hyperslab(o->msel, COLLDIAG_SELECT_SET, st, sr, cn, bl) : colldiag_sel_select_none(o->msel);
        if (!rc && rem) {
            uint64_t st2[2] = {q + 1, 1}, bl2[2] = {1, rem};
            rc = colldiag_sel_select_hyperslab(o->msel, COLLDIAG_SELECT_OR, st2, sr, cn, bl2);
        }
        CHECK(rc == 0, "mem select: %s", colldiag_last_errmsg());
        o->mel = malloc((size_t)(o->nf + 1) * sizeof *o->mel);
        for (uint64_t k = 0; k < o->nf; k++) o->mel[k] = (1 + k / W) * (W + 2) + 1 + k % W;
        o->mspace = md[0] * md[1];
    }
}

static void free_sel(rsel *o)
{
    colldiag_sel_free(o->fsel);
    colldiag_sel_free(o->msel);
    free(o->fel);
    free(o->mel);
}

static uint64_t chunk_of(const shape_t *s, uint64_t e)
{
    uint64_t c[4], ci = 0;
    coords_of(e, s->rank, s->dims, c);
    for (int d = 0; d < s->rank; d++) ci = ci * ((s->dims[d] + s->cdims[d] - 1) / s->cdims[d]) + c[d] / s->cdims[d];
    return ci;
}
static uint64_t nchunks_of(const shape_t *s)
{
    uint64_t n = 1;
    for (int d = 0; d < s->rank; d++) n *= (s->dims[d] + s->cdims[d] - 1) / s->cdims[d];
    return n;
}
static uint64_t elem_addr(const shape_t *s, int layout, MPI_Offset base, uint64_t e)
{
    if (layout == L_CONTIG) return (uint64_t)base + e * 4;
    uint64_t c[4], co = 0, ce = 1, ci = chunk_of(s, e), nc = nchunks_of(s);
    coords_of(e, s->rank, s->dims, c);
    for (int d = 0; d < s->rank; d++) { co = co * s->cdims[d] + c[d] % s->cdims[d]; ce *= s->cdims[d]; }
    uint64_t slot = layout == L_TABLE ? nc - 1 - ci : ci; /* the table stores chunks in reverse */
    return (uint64_t)base + (slot * ce + co) * 4;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Runs one case. */
static void run_case(const shape_t *s, int layout, int kind, const scheme_t *sc, const char *path, colldiag_driver_t drv)
{
    snprintf(g_case, sizeof g_case, "P=%d %dD %s %s %s%s", P, s->rank, layout_names[layout], sel_names[kind], sc->name,
             drv == COLLDIAG_DRIVER_POSIX ? " posix" : "");
    const MPI_Offset base = 100;
    const uint64_t N = prod(s->dims, s->rank), nc = nchunks_of(s);
    uint64_t ce = prod(s->cdims, s->rank);
    uint64_t fbytes = (uint64_t)base + (layout == L_CONTIG ? N : nc * ce) * 4 + 16;
    colldiag_layout *l = NULL;
    int rc = layout == L_CONTIG ? colldiag_layout_contiguous(s->rank, s->dims, 4, base, &l)
                                : colldiag_layout_chunked(s->rank, s->dims, s->cdims, 4, base, &l);
    CHECK(rc == 0, "layout: %s", colldiag_last_errmsg());
    if (layout == L_TABLE) {
        MPI_Offset *t = malloc((size_t)nc * sizeof *t);
        for (uint64_t i = 0; i < nc; i++) t[i] = base + (MPI_Offset)((nc - 1 - i) * ce * 4);
        rc = colldiag_layout_set_chunk_addrs(l, nc, t);
        CHECK(rc == 0, "set_chunk_addrs: %s", colldiag_last_errmsg());
        free(t);
    }
    rsel o;
    build_sel(s, kind, &o);

    /* the SPEC model: chunks per rank, ranks per chunk */
    uint64_t *mine = malloc((size_t)(o.nf + 1) * sizeof *mine), nmine = 0;
    for (uint64_t k = 0; k < o.nf; k++) mine[k] = chunk_of(s, o.fel[k]);
    qsort(mine, (size_t)o.nf, sizeof *mine, cmp_u64);
    uint64_t *cnt_in = calloc((size_t)nc, sizeof *cnt_in); /* my elements per chunk */
    for (uint64_t k = 0; k < o.nf; k++) {
        cnt_in[mine[k]]++;
        if (k == 0 || mine[k] != mine[k - 1]) mine[nmine++] = mine[k];
    }
    int *counts = malloc((size_t)P * sizeof *counts), *dsp = malloc((size_t)P * sizeof *dsp), nm = (int)nmine;
    PMPI_Allgather(&nm, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    int tot = 0, minc = INT32_MAX;
    for (int r = 0; r < P; r++) { dsp[r] = tot; tot += counts[r]; if (counts[r] < minc) minc = counts[r]; }
    uint64_t *all = malloc((size_t)(tot + 1) * sizeof *all);
    PMPI_Allgatherv(mine, nm, MPI_UINT64_T, all, counts, dsp, MPI_UINT64_T, MPI_COMM_WORLD);
    int *nproc = calloc((size_t)nc, sizeof *nproc);
    for (int i = 0; i < tot; i++) nproc[all[i]]++;
    unsigned thr = (unsigned)((uint64_t)P * sc->ratio / 100u);
    if (thr < 1) thr = 1;
    int opt = sc->opt;
    if (opt == 0) opt = ((uint64_t)tot / (uint64_t)P >= sc->num) ? 1 : 2;
    int opt_dir[2] = {opt, opt}; /* the scheme each direction runs */
    if (opt == 7 && layout != L_CONTIG) {
        /* AUTO: whatever the plan chooses must be link, multi, aggregation or all-independent, the same on every rank,
           and then behave exactly as that scheme forced. A write and a read may choose apart (a write's small
           independent calls cost more: IND_DIRTY), so each direction is planned as itself. */
        for (int d = 0; d < 2; d++) {
            colldiag_file *pf;
            colldiag_xfer *px;
            rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, drv, &pf);
            CHECK(rc == 0, "open for plan: %s", colldiag_last_errmsg());
            colldiag_xfer_create(&px);
            colldiag_set_dxpl_mpio(px, (colldiag_xfer_mode_t)sc->mode);
            colldiag_set_dxpl_mpio_chunk_opt(px, COLLDIAG_MPIO_CHUNK_AUTO);
            rc = d ? colldiag_plan_read(pf, l, o.fsel, o.msel, px) : colldiag_plan(pf, l, o.fsel, o.msel, px);
            CHECK(rc == 0, "plan: %s", colldiag_xfer_errmsg(px));
            colldiag_actual_chunk_opt_mode_t pco;
            colldiag_get_mpio_actual_chunk_opt_mode(px, &pco);
            double e[4];
            colldiag_get_auto_estimates(px, &e[0], &e[1], &e[2]);
            colldiag_get_auto_estimate_independent(px, &e[3]);
            int lo = (int)pco, hi = (int)pco;
            PMPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            PMPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            CHECK(lo == hi, "AUTO chose %d..%d across ranks", lo, hi);
            CHECK(pco == COLLDIAG_MPIO_LINK_CHUNK || pco == COLLDIAG_MPIO_MULTI_CHUNK || pco == COLLDIAG_MPIO_CHUNK_AGGREGATE ||
                      pco == COLLDIAG_MPIO_ALL_CHUNK_IND,
                  "AUTO chose %s", colldiag_chunk_opt_name(pco));
            int best = pco == COLLDIAG_MPIO_LINK_CHUNK ? 0 : pco == COLLDIAG_MPIO_MULTI_CHUNK ? 1 : pco == COLLDIAG_MPIO_CHUNK_AGGREGATE ? 2 : 3;
            CHECK(e[0] >= 0 && e[1] >= 0 && e[2] >= 0 && e[3] >= 0 && e[best] <= e[0] && e[best] <= e[1] && e[best] <= e[2] &&
                      e[best] <= e[3],
                  "AUTO estimates %g %g %g %g do not justify %s", e[0], e[1], e[2], e[3], colldiag_chunk_opt_name(pco));
            opt_dir[d] = best == 0 ? 1 : best == 1 ? 2 : best == 2 ? 6 : 4;
            colldiag_xfer_free(px);
            colldiag_file_close(pf);
        }
    }
    /* canary file */
    if (me == 0) {
        FILE *fp = fopen(path, "wb");
        for (uint64_t b = 0; b < fbytes; b++) fputc(0xA5, fp);
        fclose(fp);
    }
    PMPI_Barrier(MPI_COMM_WORLD);

    int *wbuf = malloc((size_t)(o.mspace + 1) * 4), *rbuf = malloc((size_t)(o.mspace + 1) * 4);
    memset(wbuf, 0x5A, (size_t)o.mspace * 4);
    memset(rbuf, 0x3C, (size_t)o.mspace * 4);
    for (uint64_t k = 0; k < o.nf; k++) wbuf[o.mel ? o.mel[k] : k] = (int)(o.fel[k] + 1);

    for (int dir = 0; dir < 2; dir++) {
        const int opt = opt_dir[dir];
        /* expected per chunk: collective? */
        unsigned char *coll = calloc((size_t)nc, 1);
        uint64_t gcoll = 0; /* collective chunks anybody touched */
        for (uint64_t c = 0; c < nc; c++) {
            if (!nproc[c]) continue;
            if (opt == 1) coll[c] = 1;
            else if (opt == 2 || opt == 3) coll[c] = sc->ratio == 0 || (unsigned)nproc[c] > thr;
            gcoll += coll[c];
        }
        if (opt == 5)
            for (uint64_t i = 0; i < nmine; i++) coll[mine[i]] = i < (uint64_t)minc;
        /* aggregation: chunk c's owner is its first toucher at or after c mod P (cyclically); the owner moves
           the chunk's covered bytes (the test's selections never overlap, so: every rank's elements in it) */
        int *owner = malloc((size_t)nc * sizeof *owner);
        uint64_t *covered = calloc((size_t)nc, sizeof *covered);
        for (uint64_t c = 0; c < nc; c++) {
            owner[c] = -1;
            for (int k = 0; k < P && nproc[c]; k++) {
                int r = (int)((c + (uint64_t)k) % (uint64_t)P);
                for (int i = dsp[r]; i < dsp[r] + counts[r]; i++)
                    if (all[i] == c) { owner[c] = r; break; }
                if (owner[c] >= 0) break;
            }
        }
        PMPI_Allreduce(cnt_in, covered, (int)nc, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (opt == 6)
            for (uint64_t c = 0; c < nc; c++) coll[c] = nproc[c] > 0;
        const char *exp_opt;
        const char *exp_mode;
        uint32_t exp_cause = 0;
        uint64_t exp_coll_calls = 0, exp_coll_bytes = 0, exp_ind_bytes = 0;
        int chunked = layout != L_CONTIG;
        if (sc->mode == 0 || drv == COLLDIAG_DRIVER_POSIX) {
            exp_opt = "NO_CHUNK_OPTIMIZATION";
            exp_mode = "NO_COLLECTIVE";
            exp_cause = (sc->mode == 0 ? 0x01u : 0) | (drv == COLLDIAG_DRIVER_POSIX ? 0x10000u : 0);
            exp_ind_bytes = o.nf * 4;
        } else if (!chunked) {
            exp_opt = "NO_CHUNK_OPTIMIZATION";
            exp_mode = "CONTIGUOUS_COLLECTIVE";
            exp_coll_calls = 1;
            exp_coll_bytes = o.nf * 4;
        } else {
            static const char *const on[] = {"", "LINK_CHUNK", "MULTI_CHUNK", "COLL_CHUNK_ATONCE", "ALL_CHUNK_IND", "MULTI_CHUNK_NO_OPT", "CHUNK_AGGREGATE"};
            exp_opt = on[opt];
            int m = 0;
            for (uint64_t i = 0; i < nmine; i++) {
                m |= coll[mine[i]] ? 2 : 1;
                if (coll[mine[i]]) exp_coll_bytes += cnt_in[mine[i]] * 4;
                else exp_ind_bytes += cnt_in[mine[i]] * 4;
            }
            if (opt == 1 || opt == 6) m = 2;
            if (opt == 6) { /* the owner moves whole chunks' covered bytes, in one collective call */
                exp_coll_bytes = 0;
                for (uint64_t c = 0; c < nc; c++)
                    if (owner[c] == me) exp_coll_bytes += covered[c] * 4;
            }
            static const char *const mn[] = {"NO_COLLECTIVE", "CHUNK_INDEPENDENT", "CHUNK_COLLECTIVE", "CHUNK_MIXED"};
            exp_mode = mn[m];
            exp_coll_calls = opt == 1 || opt == 3 || opt == 6 ? 1 : opt == 2 ? gcoll : opt == 5 ? (uint64_t)minc : 0;
        }
        if (sc->coll_opt == 1) { /* INDIVIDUAL_IO: same structure, every byte through independent calls */
            exp_ind_bytes += exp_coll_bytes;
            exp_coll_bytes = 0;
            exp_coll_calls = 0;
        }
        colldiag_file *f;
        rc = colldiag_file_open(MPI_COMM_WORLD, path, dir ? MPI_MODE_RDONLY : MPI_MODE_RDWR, MPI_INFO_NULL, drv, &f);
        CHECK(rc == 0, "open: %s", colldiag_last_errmsg());
        colldiag_xfer *x;
        colldiag_xfer_create(&x);
        colldiag_set_dxpl_mpio(x, (colldiag_xfer_mode_t)sc->mode);
        colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)sc->opt);
        colldiag_set_dxpl_mpio_chunk_opt_num(x, sc->num);
        colldiag_set_dxpl_mpio_chunk_opt_ratio(x, sc->ratio);
        colldiag_set_dxpl_mpio_collective_opt(x, (colldiag_collective_opt_t)sc->coll_opt);
        pmpi_reset();
        rc = dir ? colldiag_read(f, l, o.fsel, o.msel, rbuf, x) : colldiag_write(f, l, o.fsel, o.msel, wbuf, x);
        pmpi_counts pc = g_pmpi;
        const char *dn = dir ? "read" : "write";
        CHECK(rc == 0, "%s: %s", dn, colldiag_xfer_errmsg(x));
        colldiag_actual_chunk_opt_mode_t co;
        colldiag_actual_io_mode_t im;
        uint32_t lc, gc;
        colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
        colldiag_get_mpio_actual_io_mode(x, &im);
        colldiag_get_mpio_no_collective_cause(x, &lc, &gc);
        CHECK(!strcmp(colldiag_chunk_opt_name(co), exp_opt), "%s chunk opt %s, expected %s", dn, colldiag_chunk_opt_name(co), exp_opt);
        CHECK(!strcmp(colldiag_io_mode_name(im), exp_mode), "%s io mode %s, expected %s", dn, colldiag_io_mode_name(im), exp_mode);
        CHECK(lc == exp_cause && gc == exp_cause, "%s causes 0x%x/0x%x, expected 0x%x", dn, lc, gc, exp_cause);
        /* what MPI really saw */
        if (drv == COLLDIAG_DRIVER_POSIX) {
            CHECK(pc.coll_calls == 0 && pc.ind_calls == 0, "posix driver made MPI-IO data calls");
        } else {
#ifdef TEST_SMALL_ROUNDS
            /* built with a tiny COLLDIAG_COLL_MAX_BYTES: calls split into rounds (bytes and data must not change) */
            CHECK(pc.coll_calls >= exp_coll_calls && (exp_coll_calls > 0 || pc.coll_calls == 0),
                  "%s: %" PRIu64 " collective data calls, expected at least %" PRIu64, dn, pc.coll_calls, exp_coll_calls);
#else
            CHECK(pc.coll_calls == exp_coll_calls, "%s: %" PRIu64 " collective data calls, expected %" PRIu64, dn, pc.coll_calls, exp_coll_calls);
#endif
            CHECK(pc.coll_bytes == exp_coll_bytes, "%s: %" PRIu64 " bytes via *_at_all, expected %" PRIu64, dn, pc.coll_bytes, exp_coll_bytes);
            CHECK(pc.ind_bytes == exp_ind_bytes, "%s: %" PRIu64 " bytes via *_at, expected %" PRIu64, dn, pc.ind_bytes, exp_ind_bytes);
            CHECK(exp_ind_bytes == 0 || pc.ind_calls > 0, "%s: independent bytes without calls", dn);
            if (sc->mode == 0) CHECK(pc.comm_calls == 0 && pc.set_view == 0, "%s: independent mode communicated (%" PRIu64 " calls, %" PRIu64 " views)", dn, pc.comm_calls, pc.set_view);
        }
        colldiag_counters cn;
        colldiag_get_counters(x, &cn);
        if (drv == COLLDIAG_DRIVER_MPIO) {
            CHECK(cn.bytes_collective == pc.coll_bytes && cn.bytes_independent == pc.ind_bytes && cn.calls_collective == pc.coll_calls &&
                      cn.calls_independent == pc.ind_calls,
                  "%s: counters (%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ") differ from PMPI (%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ")", dn,
                  cn.bytes_collective, cn.bytes_independent, cn.calls_collective, cn.calls_independent, pc.coll_bytes, pc.ind_bytes,
                  pc.coll_calls, pc.ind_calls);
        }
        /* per-chunk truth */
        uint64_t nci;
        const colldiag_chunk_info *ci;
        colldiag_get_chunk_info(x, &nci, &ci);
        CHECK(nci == (chunked ? nmine : 0), "%s: %" PRIu64 " chunks reported, expected %" PRIu64, dn, nci, chunked ? nmine : 0);
        for (uint64_t i = 0; chunked && i < nci && i < nmine; i++) {
            CHECK(ci[i].index == mine[i], "chunk %" PRIu64 ": index %" PRIu64 ", expected %" PRIu64, i, ci[i].index, mine[i]);
            CHECK(ci[i].nelem == cnt_in[mine[i]], "chunk %" PRIu64 ": nelem %" PRIu64 ", expected %" PRIu64, mine[i], ci[i].nelem, cnt_in[mine[i]]);
            int ec = sc->mode == 1 && drv == COLLDIAG_DRIVER_MPIO ? coll[mine[i]] : 0;
            CHECK(ci[i].collective == ec, "chunk %" PRIu64 ": collective %d, expected %d", mine[i], ci[i].collective, ec);
            if (sc->mode == 1 && drv == COLLDIAG_DRIVER_MPIO && (opt == 2 || opt == 3 || opt == 6))
                CHECK(ci[i].nproc == nproc[mine[i]], "chunk %" PRIu64 ": nproc %d, expected %d", mine[i], ci[i].nproc, nproc[mine[i]]);
            int eo = sc->mode == 1 && drv == COLLDIAG_DRIVER_MPIO && opt == 6 ? owner[mine[i]] : -1;
            CHECK(ci[i].owner == eo, "chunk %" PRIu64 ": owner %d, expected %d", mine[i], ci[i].owner, eo);
            uint64_t slot = layout == L_TABLE ? nc - 1 - mine[i] : mine[i];
            CHECK(ci[i].addr == base + (MPI_Offset)(slot * ce * 4), "chunk %" PRIu64 ": addr %lld", mine[i], (long long)ci[i].addr);
        }
        colldiag_xfer_free(x);
        rc = colldiag_file_close(f);
        CHECK(rc == 0, "close: %s", colldiag_last_errmsg());
        if (dir == 0) {
            /* every byte of the file */
            int *cn2 = malloc((size_t)P * sizeof *cn2), *dp2 = malloc((size_t)P * sizeof *dp2), n2 = (int)o.nf, t2 = 0;
            PMPI_Gather(&n2, 1, MPI_INT, cn2, 1, MPI_INT, 0, MPI_COMM_WORLD);
            if (me == 0) for (int r = 0; r < P; r++) { dp2[r] = t2; t2 += cn2[r]; }
            uint64_t *el = malloc((size_t)(t2 + 1) * sizeof *el);
            PMPI_Gatherv(o.fel, n2, MPI_UINT64_T, el, cn2, dp2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
            if (me == 0) {
                unsigned char *want = malloc((size_t)fbytes), *img = malloc((size_t)fbytes);
                memset(want, 0xA5, (size_t)fbytes);
                for (int i = 0; i < t2; i++) {
                    int v = (int)(el[i] + 1);
                    memcpy(want + elem_addr(s, layout, base, el[i]), &v, 4);
                }
                FILE *fp = fopen(path, "rb");
                size_t got = fread(img, 1, (size_t)fbytes, fp);
                fclose(fp);
                CHECK(got == fbytes, "file is %zu bytes, expected %" PRIu64, got, fbytes);
                uint64_t bad = UINT64_MAX;
                for (uint64_t b = 0; b < fbytes && bad == UINT64_MAX; b++)
                    if (img[b] != want[b]) bad = b;
                CHECK(bad == UINT64_MAX, "file byte %" PRIu64 " is 0x%02x, expected 0x%02x", bad, bad < fbytes ? img[bad] : 0,
                      bad < fbytes ? want[bad] : 0);
                free(want);
                free(img);
            }
            free(cn2);
            free(dp2);
            free(el);
        } else {
            uint64_t bad = UINT64_MAX;
            unsigned char *sel = calloc((size_t)o.mspace + 1, 1);
            for (uint64_t k = 0; k < o.nf; k++) {
                uint64_t mo = o.mel ? o.mel[k] : k;
                sel[mo] = 1;
                if (rbuf[mo] != (int)(o.fel[k] + 1) && bad == UINT64_MAX) bad = mo;
            }
            CHECK(bad == UINT64_MAX, "read: memory element %" PRIu64 " holds %d", bad, bad != UINT64_MAX ? rbuf[bad] : 0);
            for (uint64_t e = 0; e < o.mspace; e++)
                if (!sel[e]) CHECK(rbuf[e] == 0x3C3C3C3C, "read: unselected memory element %" PRIu64 " was overwritten", e);
            free(sel);
        }
        free(coll);
        free(owner);
        free(covered);
    }
    free(wbuf);
    free(rbuf);
    free(mine);
    free(cnt_in);
    free(counts);
    free(dsp);
    free(all);
    free(nproc);
    free_sel(&o);
    colldiag_layout_free(l);
}

/* colldiag_file_open gives MPI cb_buffer_size = 16 MiB when the caller's info names none (ompio's own
   32 MiB default costs a page-fault storm per collective call), and passes the caller's hints as they
   are: its own cb_buffer_size wins, its other keys survive, and its info object is left unchanged. */
static void open_hints(const char *path)
{
    snprintf(g_case, sizeof g_case, "open hints");
    colldiag_file *f = NULL;
    g_pmpi.open_cb[0] = 'x';
    int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    CHECK(rc == 0 && !strcmp(g_pmpi.open_cb, "16777216"), "no info: rc %d, cb_buffer_size given to MPI '%s'", rc, g_pmpi.open_cb);
    colldiag_file_close(f);
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "striping_factor", "4");
    rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, in, COLLDIAG_DRIVER_MPIO, &f);
    CHECK(rc == 0 && !strcmp(g_pmpi.open_cb, "16777216") && !strcmp(g_pmpi.open_striping, "4"),
          "other hints: rc %d, cb_buffer_size '%s', striping_factor '%s'", rc, g_pmpi.open_cb, g_pmpi.open_striping);
    colldiag_file_close(f);
    int nkeys = -1;
    MPI_Info_get_nkeys(in, &nkeys);
    CHECK(nkeys == 1, "the caller's info gained keys: %d", nkeys);
    MPI_Info_set(in, "cb_buffer_size", "4194304");
    rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, in, COLLDIAG_DRIVER_MPIO, &f);
    CHECK(rc == 0 && !strcmp(g_pmpi.open_cb, "4194304"), "caller's cb_buffer_size: rc %d, given to MPI '%s'", rc, g_pmpi.open_cb);
    colldiag_file_close(f);
    MPI_Info_free(&in);
}

static colldiag_file *open_rw(const char *path)
{
    colldiag_file *f = NULL;
    int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    CHECK(rc == 0, "open: %s", colldiag_last_errmsg());
    return f;
}
static colldiag_xfer *collective_xfer(colldiag_chunk_opt_t opt)
{
    colldiag_xfer *x = NULL;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, opt);
    return x;
}

/* A chunk that several ranks share moves in one collective call even when a call is cut into rounds:
   B4's case in small. Slabs of 7 planes (the last one 8) over chunks 4 planes deep, so every slab edge
   splits a chunk layer between two ranks, and a 1 KiB collective buffer makes two rounds. Each rank
   records, through the PMPI layer, which file bytes each collective call moved; for every chunk, all
   bytes (every rank's) must come from the same call, and every byte exactly once. Here each rank's
   shares of shared chunks fit in its first round, which is what colldiag's order guarantees then: in
   file order alone, the first rank would move its share of a shared layer in its last round and the
   next rank in its first (a hole-ridden call on both sides, which costs ompio 15x a plain one). */
static void shared_chunks_one_call(const char *path)
{
    if (P < 2) return; /* nothing is shared */
    const uint64_t dims[3] = {7 * (uint64_t)P + 1, 8, 8}, cd[3] = {4, 8, 8}, plane = 64;
    const uint64_t lo = 7 * (uint64_t)me, hi = me == P - 1 ? dims[0] : lo + 7, fbytes = dims[0] * plane * 4;
    colldiag_layout *l;
    colldiag_layout_chunked(3, dims, cd, 4, 0, &l);
    colldiag_sel *s;
    colldiag_sel_create(3, dims, &s);
    uint64_t st[3] = {lo, 0, 0}, cn[3] = {hi - lo, 8, 8};
    colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    const uint64_t n = (hi - lo) * plane;
    int *buf = malloc(n * sizeof *buf), *calls = malloc(fbytes * sizeof *calls), *all = malloc(fbytes * sizeof *all);
    for (int dir = 0; dir < 2; dir++) {
        snprintf(g_case, sizeof g_case, "shared chunks in one call, link %s", dir ? "read" : "write");
        for (uint64_t i = 0; i < n; i++) buf[i] = dir ? -1 : (int)(lo * plane + i) + 7;
        for (uint64_t b = 0; b < fbytes; b++) calls[b] = -1;
        colldiag_file *f = open_rw(path);
        colldiag_xfer *x = collective_xfer(COLLDIAG_MPIO_CHUNK_ONE_IO);
        colldiag_set_coll_buffer(x, 1024);
        int rc;
        pmpi_reset();
        g_pmpi.byte_call = calls;
        g_pmpi.byte_cap = fbytes;
        rc = dir ? colldiag_read(f, l, s, NULL, buf, x) : colldiag_write(f, l, s, NULL, buf, x);
        g_pmpi.byte_call = NULL;
        CHECK(rc == 0, "%s", colldiag_xfer_errmsg(x));
#ifndef TEST_SMALL_ROUNDS /* 24-byte rounds: no shared part fits a round, only the bytes can be checked */
        CHECK(g_pmpi.coll_calls == 2, "%" PRIu64 " collective calls, expected 2 rounds", g_pmpi.coll_calls);
#endif
        CHECK(g_pmpi.byte_twice == 0, "%" PRIu64 " bytes moved twice", g_pmpi.byte_twice);
        colldiag_xfer_free(x);
        colldiag_file_close(f);
        /* ranks move disjoint bytes: the largest call number per byte is its call's, -1 nobody's */
        MPI_Allreduce(calls, all, (int)fbytes, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        uint64_t unmoved = 0, split = UINT64_MAX, shared = 0;
        const uint64_t cb = cd[0] * plane * 4; /* a chunk's bytes: chunk c is the layer [4c, 4c + 4) */
        for (uint64_t b = 0; b < fbytes; b++) {
            if (all[b] < 0) unmoved++;
            int edge = 0; /* a slab edge 7r inside the chunk's layer: two ranks share it */
            for (uint64_t r = 1; r < (uint64_t)P; r++) edge |= 7 * r > b / cb * 4 && 7 * r < b / cb * 4 + 4;
            if (edge && b % cb == 0) shared++;
            if (edge && b % cb && all[b] != all[b - 1] && split == UINT64_MAX) split = b / cb;
        }
        CHECK(unmoved == 0, "%" PRIu64 " file bytes moved by no call", unmoved);
        /* the test's own count: slab edge 7r splits a chunk layer unless it falls on a layer boundary (r = 4, 8, ...) */
        uint64_t want_shared = 0;
        for (uint64_t r = 1; r < (uint64_t)P; r++) want_shared += (7 * r) % cd[0] != 0;
        CHECK(shared == want_shared, "%" PRIu64 " shared chunks, expected %" PRIu64, shared, want_shared);
#ifndef TEST_SMALL_ROUNDS
        CHECK(split == UINT64_MAX, "chunk %" PRIu64 ", shared by two ranks, was moved by two collective calls", split);
#endif
        if (!dir && me == 0) { /* chunks are whole planes here, so the file is the array in row-major order */
            int *img = malloc(fbytes);
            FILE *fp = fopen(path, "rb");
            size_t got = fp ? fread(img, 1, fbytes, fp) : 0;
            if (fp) fclose(fp);
            uint64_t bad = UINT64_MAX;
            for (uint64_t e = 0; e < fbytes / 4 && bad == UINT64_MAX; e++)
                if (img[e] != (int)e + 7) bad = e;
            CHECK(got == fbytes && bad == UINT64_MAX, "file: %zu bytes, element %" PRIu64 " wrong", got, bad);
            free(img);
        }
        if (dir) {
            uint64_t bad = UINT64_MAX;
            for (uint64_t i = 0; i < n && bad == UINT64_MAX; i++)
                if (buf[i] != (int)(lo * plane + i) + 7) bad = i;
            CHECK(bad == UINT64_MAX, "read: element %" PRIu64 " holds %d", bad, bad == UINT64_MAX ? 0 : buf[bad]);
        }
    }
    free(buf);
    free(calls);
    free(all);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
}

/* Multi-chunk and aggregation count the ranks per chunk. When no chunk has two ranks (each rank its own
   rows of chunks), the agreement every call makes already shows it and no exchange follows: the call
   communicates exactly its two reductions (agree, then confirm the end), and still reports one rank per
   chunk. When ranks share chunks (rows shifted by one), the exchange happens and the counts are 2 on
   the shared chunks. The counts are checked against the test's own arithmetic. */
static void disjoint_chunks_no_exchange(const char *path)
{
    if (P < 2) return;
    const uint64_t dims[2] = {8 * (uint64_t)P, 16}, cd[2] = {4, 4};
    colldiag_layout *l;
    colldiag_layout_chunked(2, dims, cd, 4, 0, &l);
    int buf[8 * 16];
    for (int shift = 0; shift < 2; shift++)
        for (int opt = 0; opt < 2; opt++) {
            const colldiag_chunk_opt_t co = opt ? COLLDIAG_MPIO_CHUNK_AGGREGATE_IO : COLLDIAG_MPIO_CHUNK_MULTI_IO;
            snprintf(g_case, sizeof g_case, "%s chunks, %s", shift ? "shared" : "disjoint", opt ? "aggregation" : "multi");
            /* rank r: rows [8r, 8r + 8), shifted by 2 rows (the last rank's block stays inside) */
            const uint64_t lo = 8 * (uint64_t)me + (shift && me < P - 1 ? 2 : 0);
            colldiag_sel *s;
            colldiag_sel_create(2, dims, &s);
            uint64_t st[2] = {lo, 0}, cn[2] = {8, 16};
            colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
            for (int i = 0; i < 8 * 16; i++) buf[i] = me * 1000 + i;
            colldiag_file *f = open_rw(path);
            colldiag_xfer *x = collective_xfer(co);
            pmpi_reset();
            int rc = colldiag_write(f, l, s, NULL, buf, x);
            CHECK(rc == 0, "%s", colldiag_xfer_errmsg(x));
            const uint64_t comm = g_pmpi.comm_calls;
            if (!shift && !opt) CHECK(comm == 2, "disjoint multi-chunk made %" PRIu64 " collective exchanges, expected 2", comm);
            if (shift && !opt) CHECK(comm > 2, "shared multi-chunk made %" PRIu64 " collective exchanges: no count exchange?", comm);
            CHECK(g_pmpi.alltoall_calls == 0, "%" PRIu64 " MPI_Alltoall(v) calls: the counts travel in a sparse exchange", g_pmpi.alltoall_calls);
            uint64_t nc = 0;
            const colldiag_chunk_info *ci = NULL;
            colldiag_get_chunk_info(x, &nc, &ci);
            uint64_t bad = UINT64_MAX;
            for (uint64_t i = 0; i < nc && bad == UINT64_MAX; i++) {
                /* chunk row cr holds rows [4 cr, 4 cr + 4); rank r's block ends inside the next rank's chunk row when shifted */
                const uint64_t cr = ci[i].coords[0];
                int want = 1;
                if (shift) {
                    int n = 0;
                    for (int r = 0; r < P; r++) {
                        const uint64_t a = 8 * (uint64_t)r + (r < P - 1 ? 2 : 0);
                        n += a < 4 * cr + 4 && a + 8 > 4 * cr;
                    }
                    want = n;
                }
                if (ci[i].nproc != want) bad = i;
            }
            CHECK(nc > 0 && bad == UINT64_MAX, "chunk %" PRIu64 " reports %d ranks", bad, bad == UINT64_MAX ? 0 : ci[bad].nproc);
            colldiag_xfer_free(x);
            colldiag_file_close(f);
            colldiag_sel_free(s);
        }
    colldiag_layout_free(l);
}

/* The counts travel in a sparse exchange (owners.c: each rank sends to the counters it has chunks for,
   NBX) instead of an MPI_Alltoall. Many chunks a rank, so that what one rank sends one counter spans
   several of the exchange's fragments, and ranks that touch few chunks (some counters hear from one
   rank, or none): 1-D, 4-element chunks; rank r selects one element of every chunk c >= r with
   (c - r) mod (r + 1) == 0, so rank 0 touches them all and rank r about 1 / (r + 1) of them. Planned
   by multi-chunk and by aggregation, and written and read back by aggregation: every chunk's rank
   count against the test's arithmetic, every owner one of the chunk's ranks and the same on every rank,
   every byte where it belongs, and no MPI_Alltoall(v). */
static void sparse_exchange_many_chunks(const char *path)
{
    const uint64_t C = 12289, dims[1] = {4 * C}, cd[1] = {4};
    colldiag_layout *l;
    colldiag_layout_chunked(1, dims, cd, 4, 0, &l);
    const uint64_t cnt = (uint64_t)me < C ? (C - 1 - (uint64_t)me) / ((uint64_t)me + 1) + 1 : 0;
    colldiag_sel *s;
    colldiag_sel_create(1, dims, &s);
    if (cnt) {
        uint64_t st[1] = {4 * (uint64_t)me + (uint64_t)me % 4}, sd[1] = {4 * ((uint64_t)me + 1)}, cn[1] = {cnt}, bl[1] = {1};
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, sd, cn, bl);
    } else {
        colldiag_sel_select_none(s);
    }
    int *want = calloc(C, sizeof *want), *omin = malloc(C * sizeof *omin), *omax = malloc(C * sizeof *omax);
    for (uint64_t c = 0; c < C; c++)
        for (int r = 0; r < P; r++) want[c] += c >= (uint64_t)r && (c - (uint64_t)r) % ((uint64_t)r + 1) == 0;
    int *buf = malloc((cnt ? cnt : 1) * sizeof *buf);
    for (int mode = 0; mode < 4; mode++) { /* plan multi, plan aggregation, write aggregation, read aggregation */
        const colldiag_chunk_opt_t co = mode == 0 ? COLLDIAG_MPIO_CHUNK_MULTI_IO : COLLDIAG_MPIO_CHUNK_AGGREGATE_IO;
        snprintf(g_case, sizeof g_case, "sparse exchange, %" PRIu64 " chunks, %s", C,
                 mode == 0 ? "plan multi" : mode == 1 ? "plan aggregation" : mode == 2 ? "write aggregation" : "read aggregation");
        colldiag_file *f = open_rw(path);
        colldiag_xfer *x = collective_xfer(co);
        for (uint64_t i = 0; i < cnt; i++) buf[i] = mode == 3 ? -1 : (int)(4 * ((uint64_t)me + i * ((uint64_t)me + 1)) + (uint64_t)me % 4) + 11;
        pmpi_reset();
        int rc = mode < 2 ? colldiag_plan(f, l, s, NULL, x) : mode == 2 ? colldiag_write(f, l, s, NULL, buf, x) : colldiag_read(f, l, s, NULL, buf, x);
        CHECK(rc == 0, "%s", colldiag_xfer_errmsg(x));
        CHECK(g_pmpi.alltoall_calls == 0, "%" PRIu64 " MPI_Alltoall(v) calls", g_pmpi.alltoall_calls);
        uint64_t nc = 0, bad = UINT64_MAX, badown = UINT64_MAX;
        const colldiag_chunk_info *ci = NULL;
        colldiag_get_chunk_info(x, &nc, &ci);
        for (uint64_t c = 0; c < C; c++) { omin[c] = INT32_MAX; omax[c] = -1; }
        for (uint64_t i = 0; i < nc; i++) {
            const uint64_t c = ci[i].index;
            if (c >= C || ci[i].nproc != want[c]) { if (bad == UINT64_MAX) bad = i; continue; }
            omin[c] = omax[c] = ci[i].owner;
            const int o = ci[i].owner;
            if (mode && (o < 0 || o >= P || c < (uint64_t)o || (c - (uint64_t)o) % ((uint64_t)o + 1))) badown = c;
        }
        CHECK(nc == cnt && bad == UINT64_MAX, "%" PRIu64 " chunks (expected %" PRIu64 "); chunk %" PRIu64 " reports %d ranks", nc, cnt,
              bad == UINT64_MAX ? 0 : ci[bad].index, bad == UINT64_MAX ? 0 : ci[bad].nproc);
        CHECK(badown == UINT64_MAX, "chunk %" PRIu64 "'s owner does not touch it", badown);
        if (mode) {
            MPI_Allreduce(MPI_IN_PLACE, omin, (int)C, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, omax, (int)C, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            uint64_t split = UINT64_MAX;
            for (uint64_t c = 0; c < C && split == UINT64_MAX; c++)
                if (omin[c] != omax[c]) split = c;
            CHECK(split == UINT64_MAX, "chunk %" PRIu64 ": owners %d and %d on different ranks", split,
                  split == UINT64_MAX ? 0 : omin[split], split == UINT64_MAX ? 0 : omax[split]);
        }
        if (mode == 3) {
            uint64_t badv = UINT64_MAX;
            for (uint64_t i = 0; i < cnt && badv == UINT64_MAX; i++)
                if (buf[i] != (int)(4 * ((uint64_t)me + i * ((uint64_t)me + 1)) + (uint64_t)me % 4) + 11) badv = i;
            CHECK(badv == UINT64_MAX, "read: element %" PRIu64 " holds %d", badv, badv == UINT64_MAX ? 0 : buf[badv]);
        }
        colldiag_xfer_free(x);
        colldiag_file_close(f);
    }
    /* the file itself, byte by byte: element 4 c + r % 4 holds its own index + 11 where rank r touches chunk c */
    if (me == 0) {
        int *img = malloc(4 * C * sizeof *img);
        FILE *fp = fopen(path, "rb");
        size_t got = fp ? fread(img, sizeof *img, 4 * C, fp) : 0;
        if (fp) fclose(fp);
        uint64_t badf = UINT64_MAX;
        for (uint64_t c = 0; c < C && badf == UINT64_MAX; c++)
            for (int r = 0; r < P; r++)
                if (c >= (uint64_t)r && (c - (uint64_t)r) % ((uint64_t)r + 1) == 0 && (got <= 4 * c + (uint64_t)r % 4 || img[4 * c + r % 4] != (int)(4 * c + (uint64_t)r % 4) + 11))
                    badf = 4 * c + (uint64_t)r % 4;
        snprintf(g_case, sizeof g_case, "sparse exchange, the file");
        CHECK(badf == UINT64_MAX, "file element %" PRIu64 " wrong (%zu elements read)", badf, got);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    free(want);
    free(omin);
    free(omax);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* AUTO's model is what this program checks (tests/test_auto.c checks its measurements): the
       measured choice of a pattern's later calls follows the machine's timings */
    if (!getenv("COLLDIAG_AUTO_MODE")) setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int quick = argc > 1 && !strcmp(argv[1], "quick"); /* the reduced set (for slow MPICH oversubscription) */
    char path[256];
    if (me == 0) snprintf(path, sizeof path, "%s/colldiag_test_io_%d.bin", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    open_hints(path);
    shared_chunks_one_call(path);
    disjoint_chunks_no_exchange(path);
    sparse_exchange_many_chunks(path);
    for (int si = 0; si < (int)(sizeof shapes / sizeof *shapes); si++) {
        if (quick && si != 1 && si != 3) continue;
        for (int kind = 0; kind < S_N; kind++) {
            for (int layout = 0; layout < L_N; layout++) {
                for (int k = 0; k < NSCHEMES; k++) {
                    if (layout == L_CONTIG && k != 0 && k != 8) continue;      /* contiguous: the scheme does not apply */
                    if (layout == L_TABLE && k != 2 && k != 3 && k != 5 && k != 10) continue;
                    if (quick && layout == L_TABLE) continue;
                    run_case(&shapes[si], layout, kind, &schemes[k], path, COLLDIAG_DRIVER_MPIO);
                }
            }
            if (!quick) {
                run_case(&shapes[si], L_CONTIG, kind, &schemes[0], path, COLLDIAG_DRIVER_POSIX);
                run_case(&shapes[si], L_DENSE, kind, &schemes[3], path, COLLDIAG_DRIVER_POSIX);
            }
        }
    }
    if (me == 0) unlink(path);
    int status = test_summary("test_io");
    MPI_Finalize();
    return status;
}
