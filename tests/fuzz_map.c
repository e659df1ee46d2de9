/* fuzz_map — libFuzzer target: arbitrary bytes become dims, chunk dims, hyperslabs (SET/OR), point lists
 * and a memory selection; colldiag must reject what is invalid with an error, never crash, leak or
 * hit undefined behaviour, and for what it accepts the mapping must be exact:
 *   - the pieces' element counts add up to the selection's size,
 *   - every run lies inside its chunk and the dataset,
 *   - the iteration indices of all runs are exactly 0..n-1, each once,
 *   - memory runs cover exactly the memory selection,
 *   - the compressed run streams give MPI types of exactly the bytes they describe.
 * Includes colldiag.c to reach its internals. Build and run: make fuzz (FUZZ_SECONDS=60).
 */
#define _GNU_SOURCE
#include <stdlib.h>
/* colldiag's allocator, counted: every input must end with no live colldiag allocation. (LeakSanitizer's
   exit-time report is useless here: MPI's own objects at exit unwind through unloaded modules.) */
static long g_live;
static void *fz_malloc(size_t n) { void *p = malloc(n); g_live += p != NULL; return p; }
static void *fz_calloc(size_t n, size_t s) { void *p = calloc(n, s); g_live += p != NULL; return p; }
static void *fz_realloc(void *p, size_t n) { void *q = realloc(p, n); g_live += q != NULL && p == NULL; return q; }
static void fz_free(void *p) { g_live -= p != NULL; free(p); }
#define COLLDIAG_MALLOC(n) fz_malloc(n)
#define COLLDIAG_CALLOC(n, s) fz_calloc((n), (s))
#define COLLDIAG_REALLOC(p, n) fz_realloc((p), (n))
#define COLLDIAG_FREE(p) fz_free(p)
#include "../colldiag.c"

static void finalize(void) { MPI_Finalize(); }
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    atexit(finalize); /* MPI frees its own memory, so the exit-time leak check sees only ours */
    return 0;
}

typedef struct {
    const uint8_t *p;
    size_t n;
} rd;
static uint64_t get(rd *r, uint64_t mod)
{
    uint64_t v = 0;
    for (int i = 0; i < 2 && r->n; i++, r->p++, r->n--) v = (v << 8) | *r->p;
    return mod ? v % mod : v;
}

#define INVARIANT(c) do { if (!(c)) __builtin_trap(); } while (0)

typedef struct {
    const colldiag_layout *l;
    const cd_piece *pc;
    unsigned char *seen;
    uint64_t n, runs, in_piece;
    cd_stream fs, ms;
    const colldiag_sel *msel;
} chk;

static int mem_cb(void *ctx, uint64_t moff, uint64_t n)
{
    chk *c = ctx;
    stream_add(&c->ms, (int64_t)(moff * 4), n * 4);
    return 0;
}

static int run_cb(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    chk *c = ctx;
    const colldiag_layout *l = c->l;
    INVARIANT(n > 0 && k + n <= c->n);
    INVARIANT(foff >= c->pc->addr && (uint64_t)(foff - c->pc->addr) + n * l->esize <= l->chunk_bytes);
    for (uint64_t i = 0; i < n; i++) {
        INVARIANT(!c->seen[k + i]);
        c->seen[k + i] = 1;
    }
    c->in_piece += n;
    c->runs++;
    stream_add(&c->fs, foff, n * l->esize);
    return cd_mem_runs(c->msel, k, n, mem_cb, c);
}

/* The runs of a walk, in order, to compare the per-row walk with the block-of-rows walk. */
typedef struct {
    uint64_t *v; /* foff, k, n triples */
    uint64_t n, cap;
    cd_stream fs; /* the file stream built from blocks where blocks come */
} runlog;
static void log_run(runlog *g, MPI_Offset foff, uint64_t k, uint64_t n)
{
    if (g->n + 3 > g->cap) {
        g->cap = g->cap ? 2 * g->cap : 96;
        g->v = realloc(g->v, g->cap * sizeof *g->v);
    }
    g->v[g->n++] = (uint64_t)foff;
    g->v[g->n++] = k;
    g->v[g->n++] = n;
}
static int row_cb(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    runlog *g = ctx;
    log_run(g, foff, k, n);
    stream_add(&g->fs, foff, n * 4);
    return 0;
}
static int block_cb(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride,
                    uint64_t planes, MPI_Offset fplane, uint64_t kplane)
{
    runlog *g = ctx;
    INVARIANT(cnt > 0 && n > 0 && planes > 0);
    for (uint64_t q = 0; q < planes; q++) {
        const MPI_Offset f = foff + (MPI_Offset)q * fplane;
        for (uint64_t c = 0; c < cnt; c++) log_run(g, f + (MPI_Offset)c * fstride, k + q * kplane + c * kstride, n);
        stream_add_strided(&g->fs, f, n * 4, cnt, fstride);
    }
    return 0;
}
/* A stream as its byte runs, adjacent runs merged: two streams describe the same bytes in the same
   order exactly when these lists are equal. */
static void flat_item(const cd_item *it, int lvl, int64_t off, runlog *out)
{
    if (lvl < 0) {
        uint64_t m = out->n;
        if (m && (int64_t)(out->v[m - 3] + out->v[m - 1]) == off) out->v[m - 1] += it->len;
        else log_run(out, off, 0, it->len);
        return;
    }
    for (uint64_t i = 0; i < it->cnt[lvl]; i++) flat_item(it, lvl - 1, off + (int64_t)i * it->str[lvl], out);
}
static void flat_stream(const cd_stream *s, runlog *out)
{
    for (uint64_t i = 0; i < s->n; i++) flat_item(&s->it[i], s->it[i].depth - 1, s->it[i].off, out);
}

static void apply_ops(rd *r, colldiag_sel *s, int rank, const uint64_t *dims)
{
    int nops = (int)get(r, 5);
    for (int o = 0; o < nops && r->n; o++) {
        int kind = (int)get(r, 4);
        uint64_t st[4], sr[4], cn[4], bl[4];
        for (int d = 0; d < rank; d++) {
            st[d] = get(r, dims[d] + 2);
            sr[d] = get(r, 9);
            cn[d] = get(r, 7);
            bl[d] = get(r, 5);
        }
        if (kind == 0) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, sr, cn, bl);
        else if (kind == 1) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_OR, st, sr, cn, bl);
        else if (kind == 2) {
            uint64_t np = get(r, 12), co[12 * 4];
            for (uint64_t i = 0; i < np * (uint64_t)rank; i++) co[i] = get(r, dims[i % (uint64_t)rank] + 1);
            colldiag_sel_select_elements(s, get(r, 2) ? COLLDIAG_SELECT_OR : COLLDIAG_SELECT_SET, np, co);
        } else if (get(r, 2)) colldiag_sel_select_all(s);
        else colldiag_sel_select_none(s);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rd r = {data, size};
    int rank = 1 + (int)get(&r, 4);
    uint64_t dims[4], cd[4];
    int huge = (int)get(&r, 16) == 0;
    for (int d = 0; d < rank; d++) {
        dims[d] = huge ? ((uint64_t)1 << (10 + get(&r, 53))) + get(&r, 0) : get(&r, 24);
        cd[d] = 1 + get(&r, 9);
    }
    colldiag_layout *l = NULL;
    if (colldiag_layout_chunked(rank, dims, cd, 4, (MPI_Offset)get(&r, 64), &l)) { INVARIANT(g_live == 0); return 0; }
    colldiag_sel *s = NULL, *m = NULL;
    if (colldiag_sel_create(rank, dims, &s)) { colldiag_layout_free(l); INVARIANT(g_live == 0); return 0; }
    apply_ops(&r, s, rank, dims);
    uint64_t n = colldiag_sel_npoints(s);
    if (n > 200000) goto out; /* walking is per element: keep an input fast */
    /* a memory selection of another shape with the same count, when the bytes allow one */
    if (get(&r, 2) && n > 0) {
        uint64_t md[2] = {n, 2 + get(&r, 3)};
        colldiag_sel_create(2, md, &m);
        uint64_t st[2] = {0, get(&r, 2)}, cn[2] = {n, 1};
        if (colldiag_sel_select_hyperslab(m, COLLDIAG_SELECT_SET, st, NULL, cn, NULL)) { colldiag_sel_free(m); m = NULL; }
    }
    cd_map map;
    memset(&map, 0, sizeof map);
    if (map_build(&map, l, s) == 0) {
        uint64_t tot = 0;
        chk c;
        memset(&c, 0, sizeof c);
        c.l = l;
        c.n = n;
        c.msel = m;
        c.seen = calloc((size_t)n + 1, 1);
        for (uint64_t i = 0; i < map.n; i++) {
            INVARIANT(i == 0 || map.pc[i].idx > map.pc[i - 1].idx);
            INVARIANT(map.pc[i].idx < l->nchunks && map.pc[i].nelem > 0);
            tot += map.pc[i].nelem;
            c.pc = &map.pc[i];
            c.in_piece = 0;
            cd_walk_piece(&map, s, &map.pc[i], run_cb, &c);
            INVARIANT(c.in_piece == map.pc[i].nelem);
        }
        INVARIANT(tot == n);
        /* the walk by blocks of rows gives the same runs in the same order, and its strided stream
           items the same bytes as the per-row stream */
        runlog rows, blocks, fr, fb;
        memset(&rows, 0, sizeof rows);
        memset(&blocks, 0, sizeof blocks);
        memset(&fr, 0, sizeof fr);
        memset(&fb, 0, sizeof fb);
        for (uint64_t i = 0; i < map.n; i++) {
            cd_walk_piece(&map, s, &map.pc[i], row_cb, &rows);
            cd_walk_piece_rows(&map, s, &map.pc[i], row_cb, block_cb, &blocks);
        }
        INVARIANT(rows.n == blocks.n && (rows.n == 0 || !memcmp(rows.v, blocks.v, rows.n * sizeof *rows.v)));
        if (!rows.fs.nomem && !blocks.fs.nomem) {
            INVARIANT(rows.fs.bytes == blocks.fs.bytes);
            flat_stream(&rows.fs, &fr);
            flat_stream(&blocks.fs, &fb);
            INVARIANT(fr.n == fb.n && (fr.n == 0 || !memcmp(fr.v, fb.v, fr.n * sizeof *fr.v)));
        }
        stream_free(&rows.fs);
        stream_free(&blocks.fs);
        free(rows.v);
        free(blocks.v);
        free(fr.v);
        free(fb.v);
        for (uint64_t k = 0; k < n; k++) INVARIANT(c.seen[k]);
        INVARIANT(c.fs.bytes == n * 4 && c.ms.bytes == n * 4);
        if (!c.fs.nomem && c.fs.bytes) {
            MPI_Datatype t;
            uint64_t nb = 0;
            if (stream_type(&c.fs, &t, &nb) == 0) {
                MPI_Count sz;
                MPI_Type_size_x(t, &sz);
                INVARIANT((uint64_t)sz == c.fs.bytes);
                MPI_Type_free(&t);
            }
            if (stream_type(&c.ms, &t, &nb) == 0) {
                MPI_Count sz;
                MPI_Type_size_x(t, &sz);
                INVARIANT((uint64_t)sz == c.ms.bytes);
                MPI_Type_free(&t);
            }
        }
        stream_free(&c.fs);
        stream_free(&c.ms);
        free(c.seen);
    }
    map_free(&map);
out:
    colldiag_sel_free(m);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    INVARIANT(g_live == 0); /* nothing of colldiag's outlives its objects */
    return 0;
}
