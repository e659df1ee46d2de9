/* fuzz_io — the whole-call differential tester.
 *
 *   mpirun -n 4 fuzz_io [--seed S] [--cases N] [--seconds T] [--case I] [--out DIR] [--current FILE]
 *
 * Each case is a random scenario (tests/scenario_run.c's format, which this program includes): 1-D to 4-D
 * datasets with small dims and edge chunks, elements of 1 to 17 bytes, contiguous, compact, dense-chunked
 * and table-addressed layouts (unallocated chunks in read-only cases), file selections from every
 * constructor (ALL, NONE, scalar and null spaces, regular hyperslabs with stride and block, SET/OR unions,
 * points in random or sorted order), memory selections of another shape, with holes, unions or points,
 * packed buffers, 1 to 4 ranks with disjoint selections, every chunk_opt with num and ratio, INDIVIDUAL_IO,
 * independent transfers, conversions, transforms, small conversion buffers, the POSIX driver, and the
 * environment knobs. The case runs on a communicator of its own size, through the same code path as
 * scenario_run: colldiag writes (or the runner writes the image, for read-only cases) and reads back;
 * every byte of the file is compared with an image computed element by element, every byte of every
 * rank's read buffer (unselected memory must stay untouched), and every rank's reported chunk_opt,
 * io_mode and causes with the runner's own reference of SPEC.md's rules (rules_expect).
 *
 * Deterministic: case I of seed S is the same case on every machine. A failing case is printed with its
 * seed and index, shrunk (ranks, selections, points, settings removed while it still fails), and written
 * as DIR/fuzz_io_S_I.scn (and _orig.scn) for `mpirun -n R scenario_run --rules FILE`. Before each case
 * rank 0 writes it to --current FILE, so a crash or a hang leaves the culprit behind.
 * Exit status: 0 when every case passed, 1 otherwise.
 */
#define SCENARIO_NO_MAIN
#include "scenario_run.c"

#include <time.h>

#define MAX_FUZZ_RANKS 16 /* cases use 1..min(world size, this) ranks */

/* ---- deterministic randomness (splitmix64) ---- */

typedef struct { uint64_t s; } rng_t;
static uint64_t rng_next(rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
/* uniform in [0, n) (n > 0) */
static uint64_t rnd(rng_t *r, uint64_t n) { return n ? rng_next(r) % n : 0; }
static int chance(rng_t *r, unsigned percent) { return rnd(r, 100) < percent; }

/* ---- building a case ---- */

static selop *add_op(selops *so, int kind, int op)
{
    selop *o = push_op(so);
    o->kind = kind;
    o->op = op;
    return o;
}

/* A region of the dataset a rank may select from: a box, optionally thinned along one dimension to the
   coordinates congruent to res modulo mod (interleaved decompositions). */
typedef struct {
    uint64_t lo[MAXR], hi[MAXR];
    int idim;          /* -1: no interleave */
    uint64_t mod, res;
} region_t;

static int region_empty(const scenario *s, const region_t *g)
{
    for (int d = 0; d < s->rank; d++) {
        if (g->hi[d] <= g->lo[d]) return 1;
        if (d == g->idim && g->res >= g->hi[d]) return 1;
    }
    return 0;
}

/* A regular hyperslab inside the region (stride, block and count random; never outside it). */
static void gen_hyperslab(rng_t *r, const scenario *s, const region_t *g, selop *o)
{
    int any_stride = 0, any_block = 0;
    for (int d = 0; d < s->rank; d++) {
        uint64_t lo = g->lo[d], len = g->hi[d] - g->lo[d];
        if (d == g->idim) { /* coordinates res, res + mod, ...: stride a multiple of mod, block 1 */
            uint64_t n = (g->hi[d] - g->res + g->mod - 1) / g->mod; /* coordinates available */
            uint64_t m = 1 + rnd(r, 2), first = rnd(r, n);
            o->start[d] = g->res + first * g->mod;
            o->stride[d] = m * g->mod;
            o->block[d] = 1;
            o->count[d] = 1 + rnd(r, (n - 1 - first) / m + 1);
            any_stride |= o->stride[d] != 1;
            continue;
        }
        uint64_t b = 1 + rnd(r, len < 4 ? len : 4);
        uint64_t st = b + (chance(r, 40) ? 0 : rnd(r, 3));
        uint64_t maxc = (len - b) / st + 1;
        uint64_t c = chance(r, 30) ? maxc : 1 + rnd(r, maxc);
        uint64_t span = (c - 1) * st + b;
        o->start[d] = lo + rnd(r, len - span + 1);
        o->stride[d] = st;
        o->block[d] = b;
        o->count[d] = c;
        any_stride |= st != 1;
        any_block |= b != 1;
    }
    o->has_stride = any_stride || chance(r, 20);
    o->has_block = any_block || chance(r, 20);
    if (!o->has_stride)
        for (int d = 0; d < s->rank; d++) o->stride[d] = 1;
    if (!o->has_block)
        for (int d = 0; d < s->rank; d++) o->block[d] = 1;
}

/* n distinct random points of the region, in random order (or sorted). */
static void gen_points(rng_t *r, const scenario *s, const region_t *g, uint64_t want, int sorted, selop *o,
                       const selop *avoid)
{
    uint64_t cap = want, n = 0;
    uint64_t *c = malloc((size_t)(cap * (uint64_t)s->rank + 1) * sizeof *c);
    for (uint64_t tries = 0; n < want && tries < want * 8; tries++) {
        uint64_t x[MAXR];
        for (int d = 0; d < s->rank; d++) {
            if (d == g->idim) x[d] = g->res + g->mod * rnd(r, (g->hi[d] - g->res + g->mod - 1) / g->mod);
            else x[d] = g->lo[d] + rnd(r, g->hi[d] - g->lo[d]);
        }
        int dup = 0;
        for (uint64_t k = 0; k < n && !dup; k++) dup = !memcmp(c + k * (uint64_t)s->rank, x, (size_t)s->rank * sizeof *x);
        for (uint64_t k = 0; avoid && k < avoid->npts && !dup; k++)
            dup = !memcmp(avoid->coords + k * (uint64_t)s->rank, x, (size_t)s->rank * sizeof *x);
        if (dup) continue;
        memcpy(c + n * (uint64_t)s->rank, x, (size_t)s->rank * sizeof *x);
        n++;
    }
    if (sorted) { /* row-major order: insertion sort on the coordinate tuples (n is small) */
        for (uint64_t i = 1; i < n; i++) {
            for (uint64_t j = i; j > 0; j--) {
                uint64_t *a = c + (j - 1) * (uint64_t)s->rank, *b = c + j * (uint64_t)s->rank;
                int gt = 0;
                for (int d = 0; d < s->rank; d++)
                    if (a[d] != b[d]) { gt = a[d] > b[d]; break; }
                if (!gt) break;
                for (int d = 0; d < s->rank; d++) { uint64_t t = a[d]; a[d] = b[d]; b[d] = t; }
            }
        }
    }
    o->npts = n;
    o->coords = c;
}

static void gen_file_sel(rng_t *r, const scenario *s, const region_t *g, int whole, selops *so)
{
    if (region_empty(s, g)) { add_op(so, OP_NONE, 0); return; }
    unsigned k = (unsigned)rnd(r, 100);
    if (k < 5) { add_op(so, OP_NONE, 0); return; }
    if (k < 12 && whole) { add_op(so, OP_ALL, 0); return; }
    if (k < 45) { gen_hyperslab(r, s, g, add_op(so, OP_HYPER, COLLDIAG_SELECT_SET)); return; }
    if (k < 65) { /* a union: SET then one or two ORs (possibly overlapping: the union counts each element once) */
        int n = 2 + (int)rnd(r, 2);
        for (int i = 0; i < n; i++) gen_hyperslab(r, s, g, add_op(so, OP_HYPER, i ? COLLDIAG_SELECT_OR : COLLDIAG_SELECT_SET));
        return;
    }
    uint64_t npts = 1 + rnd(r, chance(r, 20) ? 60 : 12);
    if (k < 92) {
        gen_points(r, s, g, npts, chance(r, 30), add_op(so, OP_POINTS, COLLDIAG_SELECT_SET), NULL);
        return;
    }
    /* two batches of points: SET then OR (the second batch avoids the first: duplicates are errors) */
    selop *a = add_op(so, OP_POINTS, COLLDIAG_SELECT_SET);
    gen_points(r, s, g, npts, 0, a, NULL);
    selop *b = add_op(so, OP_POINTS, COLLDIAG_SELECT_OR);
    gen_points(r, s, g, 1 + rnd(r, 8), 0, b, &so->ops[so->n - 2]);
}

/* A memory selection of exactly nf elements: another shape, holes, a union, points, or a scalar space. */
static void gen_mem_sel(rng_t *r, scenario *s, int rk, uint64_t nf)
{
    selops *so = &s->msel[rk];
    so->n = 0;
    if (nf > ((uint64_t)1 << 24)) return; /* never with the generator's small dims; keeps the sizes below bounded */
    unsigned k = (unsigned)rnd(r, 100);
    if (nf == 1 && k < 15) { s->mrank[rk] = -2; return; }
    if (k < 25) { /* points in a larger space, random or sorted order */
        uint64_t M = nf + rnd(r, nf + 3);
        s->mrank[rk] = 1;
        s->mdims[rk][0] = M;
        selop *o = add_op(so, OP_POINTS, COLLDIAG_SELECT_SET);
        uint64_t *perm = malloc((size_t)(M + 1) * sizeof *perm);
        for (uint64_t i = 0; i < M; i++) perm[i] = i;
        for (uint64_t i = M - 1; i > 0; i--) { uint64_t j = rnd(r, i + 1), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
        if (chance(r, 30)) qsort(perm, (size_t)nf, sizeof *perm, cmp_u64);
        o->npts = nf;
        o->coords = perm; /* the first nf of the permutation */
        return;
    }
    if (k < 45) { /* strided 1-D: a hole after every element or every few */
        uint64_t st = 1 + rnd(r, 3), st0 = rnd(r, 2);
        s->mrank[rk] = 1;
        s->mdims[rk][0] = st0 + (nf - 1) * st + 1 + rnd(r, 3);
        selop *o = add_op(so, OP_HYPER, COLLDIAG_SELECT_SET);
        o->start[0] = st0;
        o->stride[0] = st;
        o->count[0] = nf;
        o->block[0] = 1;
        o->has_stride = 1;
        return;
    }
    if (k < 70) { /* 2-D block with a margin: a*b = nf */
        uint64_t a = 1;
        for (int t = 0; t < 8; t++) { uint64_t c = 1 + rnd(r, nf); if (nf % c == 0) { a = c; break; } }
        uint64_t b = nf / a, pa = rnd(r, 2), pb = rnd(r, 3);
        s->mrank[rk] = 2;
        s->mdims[rk][0] = a + pa + rnd(r, 2);
        s->mdims[rk][1] = b + pb + rnd(r, 3);
        selop *o = add_op(so, OP_HYPER, COLLDIAG_SELECT_SET);
        o->start[0] = pa;
        o->start[1] = pb;
        o->count[0] = a;
        o->count[1] = b;
        o->stride[0] = o->stride[1] = o->block[0] = o->block[1] = 1;
        return;
    }
    if (k < 90) { /* a union of two runs with a gap */
        uint64_t a = rnd(r, nf + 1), gap = 1 + rnd(r, 4);
        s->mrank[rk] = 1;
        s->mdims[rk][0] = nf + gap + rnd(r, 2);
        int first = 1;
        if (a > 0) {
            selop *o = add_op(so, OP_HYPER, COLLDIAG_SELECT_SET);
            o->start[0] = 0;
            o->count[0] = a;
            o->stride[0] = o->block[0] = 1;
            first = 0;
        }
        if (nf - a > 0) {
            selop *o = add_op(so, OP_HYPER, first ? COLLDIAG_SELECT_SET : COLLDIAG_SELECT_OR);
            o->start[0] = a + gap;
            o->count[0] = nf - a;
            o->stride[0] = o->block[0] = 1;
        }
        return;
    }
    /* ALL of a space of exactly nf elements, in 1 to 3 dims */
    s->mrank[rk] = 1;
    s->mdims[rk][0] = nf;
    uint64_t c = 1 + rnd(r, nf);
    if (nf % c == 0 && c > 1 && c < nf) {
        s->mrank[rk] = 2;
        s->mdims[rk][0] = c;
        s->mdims[rk][1] = nf / c;
    }
    add_op(so, OP_ALL, 0);
}

static void clear_ops(selops *so)
{
    for (int i = 0; i < so->n; i++) free(so->ops[i].coords);
    so->n = 0;
}

/* The elements a rank's file ops select, by the runner's model (NULL list when invalid). */
static int rank_elems(const scenario *s, int rk, uint64_t **el, uint64_t *n)
{
    selops tmp;
    tmp.n = s->fsel[rk].n + 1;
    tmp.ops = calloc((size_t)tmp.n, sizeof *tmp.ops);
    tmp.ops[0].kind = OP_NONE;
    memcpy(tmp.ops + 1, s->fsel[rk].ops, (size_t)s->fsel[rk].n * sizeof *tmp.ops);
    int rc = model_elems(&tmp, s->rank, s->dims, el, n);
    free(tmp.ops);
    return rc;
}

/* Whether rank rk's arguments are bad: a selection that cannot be built, or a memory selection whose
   count differs from the file selection's. */
static int rank_bad(const scenario *s, int rk)
{
    uint64_t *el = NULL, n = 0, *ml = NULL, nm = 0;
    int bad = rank_elems(s, rk, &el, &n) != 0;
    if (!bad && s->mrank[rk] > 0) bad = model_elems(&s->msel[rk], s->mrank[rk], s->mdims[rk], &ml, &nm) != 0 || nm != n;
    /* a NULL layout or file selection is always bad; a NULL buffer only with elements to move */
    if (!bad && rk == s->null_rank) bad = s->null_what != NULL_BUF || (n > 0 && !s->space_null && s->mrank[rk] != -1);
    free(el);
    free(ml);
    return bad;
}

/* A case the runner can judge: valid selections, memory counts that match, ranks' selections disjoint,
   nothing written into an unallocated chunk; in an error case (expect_error), exactly that rank's
   arguments are bad. */
static int case_valid(const scenario *s)
{
    uint64_t N = prod(s->dims, s->rank);
    unsigned char *own = calloc((size_t)N + 1, 1);
    int ok = 1;
    for (int rk = 0; rk < s->ranks && ok; rk++) {
        uint64_t *el = NULL, n = 0;
        if (s->space_null) continue;
        if (rk == s->expect_error) {
            ok = rank_bad(s, rk) && s->mode == COLLDIAG_MPIO_COLLECTIVE;
            continue;
        }
        if (rank_elems(s, rk, &el, &n)) { ok = 0; break; }
        for (uint64_t i = 0; i < n && ok; i++) {
            if (own[el[i]]) ok = 0;
            own[el[i]] = 1;
            if (s->direction == 0 && elem_addr(s, 512, el[i]) == NOT_STORED) ok = 0;
        }
        if (ok && s->mrank[rk] > 0) {
            uint64_t *ml = NULL, nm = 0;
            if (model_elems(&s->msel[rk], s->mrank[rk], s->mdims[rk], &ml, &nm) || nm != n) ok = 0;
            free(ml);
        }
        if (ok && s->mrank[rk] == -2 && n != 1) ok = 0;
        free(el);
    }
    free(own);
    return ok;
}

static void set_env_line(scenario *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_env_line(scenario *s, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (s->nenv < 64) s->env[s->nenv++] = strdup(buf);
}

static void gen_case(uint64_t seed, uint64_t idx, int maxranks, scenario *s)
{
    rng_t rr = {seed * 0x100000001b3ULL ^ (idx + 1) * 0x9e3779b97f4a7c15ULL}, *r = &rr;
    rng_next(r);
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "fuzz_%" PRIu64 "_%" PRIu64, seed, idx);
    s->ranks = 1 + (int)rnd(r, (uint64_t)maxranks);
    s->expect_error = -1;
    s->null_rank = -1;
    s->ratio = 60;
    s->mode = chance(r, 88) ? COLLDIAG_MPIO_COLLECTIVE : COLLDIAG_MPIO_INDEPENDENT;
    s->rank = 1 + (int)rnd(r, 4);
    /* small dims keep cases fast; one case in 20 is large (up to ~64,000 elements: many chunks, long runs,
       many rounds in the 24-byte build, conversion buffers that fill several times) */
    static const uint64_t maxdim[5] = {0, 48, 16, 8, 5};
#ifdef COLLDIAG_COLL_MAX_BYTES /* the small-round build: a call makes one round per few bytes, so "large" stays modest */
    static const uint64_t bigdim[5] = {0, 1500, 40, 12, 7};
#else
    static const uint64_t bigdim[5] = {0, 20000, 200, 40, 16};
#endif
    const int big = chance(r, 5);
    for (int d = 0; d < s->rank; d++) s->dims[d] = 1 + rnd(r, big ? bigdim[s->rank] : maxdim[s->rank]);
    static const size_t elems[] = {1, 1, 1, 2, 3, 4, 4, 5, 7, 8, 8, 12, 16, 17};
    s->elem = chance(r, 15) ? 1 + rnd(r, 17) : elems[rnd(r, sizeof elems / sizeof *elems)];
    unsigned lk = (unsigned)rnd(r, 100);
    s->layout = lk < 22 ? 0 : lk < 30 ? 2 : 1;
    s->direction = chance(r, 15);
    if (chance(r, 3)) s->space_null = 1;
    else if (chance(r, 3)) {
        s->space_scalar = 1;
        for (int d = 0; d < s->rank; d++) s->dims[d] = 1;
    }
    if (s->layout == 1) {
        uint64_t nc = 1;
        for (int d = 0; d < s->rank; d++) {
            s->cdims[d] = 1 + rnd(r, s->dims[d]);
            nc *= (s->dims[d] + s->cdims[d] - 1) / s->cdims[d];
        }
        if (chance(r, 35)) { /* an address table: chunks shuffled in the file, gaps, unallocated ones for reads */
            uint64_t cb = s->elem;
            for (int d = 0; d < s->rank; d++) cb *= s->cdims[d];
            uint64_t *perm = malloc((size_t)nc * sizeof *perm);
            for (uint64_t i = 0; i < nc; i++) perm[i] = i;
            for (uint64_t i = nc - 1; i > 0; i--) { uint64_t j = rnd(r, i + 1), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
            s->naddrs = nc;
            s->addrs = malloc((size_t)nc * sizeof *s->addrs);
            uint64_t at = 512;
            for (uint64_t i = 0; i < nc; i++) {
                at += cb * rnd(r, 2) / (1 + rnd(r, 2)); /* a gap, sometimes not chunk-aligned */
                s->addrs[perm[i]] = (int64_t)at;
                at += cb;
            }
            if (s->direction == 1)
                for (uint64_t i = 0; i < nc; i++)
                    if (chance(r, 20)) s->addrs[i] = -1;
            free(perm);
        }
    }
    s->chunk_opt = (int)rnd(r, 8);
    if (chance(r, 40)) s->num = (unsigned)rnd(r, 5);
    unsigned rk = (unsigned)rnd(r, 100);
    s->ratio = rk < 40 ? 60 : rk < 60 ? 0 : (unsigned)rnd(r, 101);
    if (chance(r, 10)) s->coll_opt = COLLDIAG_MPIO_INDIVIDUAL_IO;
    if (chance(r, 6)) s->driver = 1;
    int unalloc = 0;
    for (uint64_t i = 0; i < s->naddrs; i++) unalloc |= s->addrs[i] < 0;
    if (s->elem <= 8 && !unalloc) {
        if (chance(r, 8)) s->conv = chance(r, 50) ? 4 : 8;
        if (chance(r, 8)) s->xform = 1;
        if ((s->conv || s->xform) && chance(r, 50)) s->buffer = 64 + rnd(r, 1024);
    }
    /* a small collective buffer: rounds inside chunks and rows, packing and staging through one reused
       buffer; never under 1/16 of the dataset, so a call makes at most a few dozen rounds (a round costs
       a collective call: ~8 ms on oversubscribed MPICH) */
    uint64_t dbytes = s->elem;
    for (int d = 0; d < s->rank; d++) dbytes *= s->dims[d];
    const uint64_t cb_min = dbytes / 16 + 1;
    if (chance(r, 25)) s->coll_buffer = cb_min + rnd(r, chance(r, 50) ? 3 * s->elem : 256);
    if (chance(r, 3)) {
        char e[64];
        snprintf(e, sizeof e, "COLLDIAG_COLL_BUFFER=%" PRIu64, cb_min + rnd(r, 4 * s->elem));
        set_env_line(s, "%s", e);
    }
    if (chance(r, 4)) set_env_line(s, "COLLDIAG_MPI_OPT_TYPES=0");
    if (chance(r, 4)) {
        static const char *const n[] = {"default", "link", "multi", "atonce", "ind", "multi_no_opt", "aggregate", "auto"};
        set_env_line(s, "COLLDIAG_CHUNK_OPT=%s", n[rnd(r, 8)]);
    }
    if (chance(r, 3)) set_env_line(s, "COLLDIAG_CHUNK_OPT_NUM=%u", (unsigned)rnd(r, 4));
    if (chance(r, 3)) set_env_line(s, "COLLDIAG_CHUNK_OPT_RATIO=%u", (unsigned)rnd(r, 101));
    if (chance(r, 15)) {
        static const unsigned pr[] = {0, 1, 16, 100000};
        set_env_line(s, "COLLDIAG_PACK_RUN_BYTES=%u", pr[rnd(r, 4)]);
    }
    alloc_ranks(s);
    if (s->space_null) return;
    if (s->space_scalar) { /* one rank selects the only element */
        int who = (int)rnd(r, (uint64_t)s->ranks);
        int sel = chance(r, 85);
        for (int k = 0; k < s->ranks; k++) add_op(&s->fsel[k], k == who && sel ? OP_ALL : OP_NONE, 0);
        if (sel && chance(r, 30)) s->mrank[who] = -2;
        return;
    }
    /* how the ranks share the dataset */
    unsigned how = (unsigned)rnd(r, 100);
    int sd = (int)rnd(r, (uint64_t)s->rank);
    uint64_t cuts[MAX_FUZZ_RANKS + 1];
    cuts[0] = 0;
    cuts[s->ranks] = s->dims[sd];
    for (int k = 1; k < s->ranks; k++) cuts[k] = rnd(r, s->dims[sd] + 1);
    for (int i = 1; i < s->ranks; i++) /* sort the inner cuts */
        for (int j = i; j > 1 && cuts[j - 1] > cuts[j]; j--) { uint64_t t = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = t; }
    for (int k = 0; k < s->ranks; k++) {
        region_t g;
        for (int d = 0; d < s->rank; d++) { g.lo[d] = 0; g.hi[d] = s->dims[d]; }
        g.idim = -1;
        g.mod = 1;
        g.res = 0;
        int whole = 0;
        if (how < 55) { g.lo[sd] = cuts[k]; g.hi[sd] = cuts[k + 1]; whole = s->ranks == 1; }
        else if (how < 75) { g.idim = sd; g.mod = (uint64_t)s->ranks; g.res = (uint64_t)k; whole = s->ranks == 1; }
        else if (k != (int)(how % (unsigned)s->ranks)) { add_op(&s->fsel[k], OP_NONE, 0); continue; } /* one rank only */
        else whole = 1;
        gen_file_sel(r, s, &g, whole, &s->fsel[k]);
    }
    /* memory selections */
    for (int k = 0; k < s->ranks; k++) {
        uint64_t *el = NULL, n = 0;
        if (rank_elems(s, k, &el, &n) == 0 && n > 0 && chance(r, 35)) gen_mem_sel(r, s, k, n);
        else if (chance(r, 1)) s->mrank[k] = -1; /* a null memory space: the rank moves nothing (cause 0x10) */
        free(el);
    }
    /* one case in 12 of the collective ones: one rank's arguments are bad. Every rank must fail (the bad one
       with its own error, the others with ERR_PEER), nobody may hang, and the file must stay untouched. */
    if (s->mode == COLLDIAG_MPIO_COLLECTIVE && chance(r, 8)) {
        int b = (int)rnd(r, (uint64_t)s->ranks);
        uint64_t *el = NULL, n = 0;
        rank_elems(s, b, &el, &n);
        free(el);
        unsigned kind = (unsigned)rnd(r, 6);
        s->expect_error = b;
        if (kind >= 3) { /* a NULL layout, file selection or buffer (a buffer only where the rank has elements) */
            s->null_rank = b;
            /* a NULL buffer is bad only where the rank moves elements: not with none selected, nor with a null
               memory space (which moves nothing; seed 2026112703's cases 1058, 54767, 63982, 137356) */
            s->null_what = kind == 5 && (n == 0 || s->mrank[b] == -1 || s->space_null) ? NULL_LAYOUT : (int)kind - 3;
            return;
        }
        if (kind == 0) { /* a memory selection of one element more, or one less */
            clear_ops(&s->msel[b]);
            uint64_t m = n > 1 && chance(r, 50) ? n - 1 : n + 1;
            s->mrank[b] = 1;
            s->mdims[b][0] = m + 1;
            selop *o = add_op(&s->msel[b], OP_HYPER, COLLDIAG_SELECT_SET);
            o->count[0] = m;
            o->stride[0] = o->block[0] = 1;
        } else if (kind == 1) { /* a point listed twice */
            selop *o = add_op(&s->fsel[b], OP_POINTS, COLLDIAG_SELECT_SET);
            o->npts = 2;
            o->coords = calloc((size_t)(2 * s->rank + 1), sizeof *o->coords);
            for (int d = 0; d < s->rank; d++) o->coords[d] = o->coords[s->rank + d] = rnd(r, s->dims[d]);
        } else { /* a hyperslab past the end of one dimension */
            region_t g;
            for (int d = 0; d < s->rank; d++) { g.lo[d] = 0; g.hi[d] = s->dims[d]; }
            g.idim = -1;
            selop *o = add_op(&s->fsel[b], OP_HYPER, chance(r, 50) ? COLLDIAG_SELECT_OR : COLLDIAG_SELECT_SET);
            gen_hyperslab(r, s, &g, o);
            int d = (int)rnd(r, (uint64_t)s->rank);
            o->start[d] = s->dims[d] - rnd(r, 2); /* at the end, or one before it with more than one element */
            if (o->start[d] + (o->count[d] - 1) * o->stride[d] + o->block[d] <= s->dims[d]) o->start[d] = s->dims[d];
        }
    }
}

/* ---- writing a case as a scenario file ---- */

static void write_ops(FILE *f, const char *what, int rk, const selops *so, int rank)
{
    static const char *const names[] = {"start", "stride", "count", "block"};
    for (int i = 0; i < so->n; i++) {
        const selop *o = &so->ops[i];
        fprintf(f, "%s %d ", what, rk);
        if (o->kind == OP_NONE) fprintf(f, "none");
        else if (o->kind == OP_ALL) fprintf(f, "all");
        else if (o->kind == OP_HYPER) {
            fprintf(f, "hyperslab %s", o->op == COLLDIAG_SELECT_OR ? "or" : "set");
            const uint64_t *v[4] = {o->start, o->stride, o->count, o->block};
            for (int k = 0; k < 4; k++) {
                if ((k == 1 && !o->has_stride) || (k == 3 && !o->has_block)) continue;
                fprintf(f, " %s", names[k]);
                for (int d = 0; d < rank; d++) fprintf(f, " %" PRIu64, v[k][d]);
            }
        } else {
            fprintf(f, "points %s%" PRIu64, o->op == COLLDIAG_SELECT_OR ? "or " : "", o->npts);
            for (uint64_t k = 0; k < o->npts * (uint64_t)rank; k++) fprintf(f, " %" PRIu64, o->coords[k]);
        }
        fprintf(f, "\n");
    }
}

static void scenario_write(FILE *f, const scenario *s)
{
    static const char *const co[] = {"default", "one_io", "multi_io", "coll_chunk_atonce_io", "all_chunk_ind_io",
                                     "multi_io_no_opt", "aggregate_io", "auto"};
    fprintf(f, "name %s\nranks %d\ndims", s->name, s->ranks);
    for (int d = 0; d < s->rank; d++) fprintf(f, " %" PRIu64, s->dims[d]);
    fprintf(f, "\nelem %zu\n", s->elem);
    if (s->layout == 0) fprintf(f, "layout contiguous\n");
    else if (s->layout == 2) fprintf(f, "layout compact\n");
    else {
        fprintf(f, "layout chunked");
        for (int d = 0; d < s->rank; d++) fprintf(f, " %" PRIu64, s->cdims[d]);
        fprintf(f, "\n");
    }
    if (s->addrs) {
        fprintf(f, "chunk_addrs");
        for (uint64_t i = 0; i < s->naddrs; i++) fprintf(f, " %" PRId64, s->addrs[i]);
        fprintf(f, "\n");
    }
    if (s->filtered) fprintf(f, "filtered 1\n");
    fprintf(f, "xfer %s\nchunk_opt %s\n", s->mode == COLLDIAG_MPIO_COLLECTIVE ? "collective" : "independent", co[s->chunk_opt]);
    if (s->num) fprintf(f, "num %u\n", s->num);
    if (s->ratio != 60) fprintf(f, "ratio %u\n", s->ratio);
    if (s->coll_opt) fprintf(f, "coll_opt individual_io\n");
    if (s->driver) fprintf(f, "driver posix\n");
    if (s->conv) fprintf(f, "conversion %zu\n", s->conv);
    if (s->xform) fprintf(f, "transform 1\n");
    if (s->buffer) fprintf(f, "buffer %zu\n", s->buffer);
    if (s->coll_buffer) fprintf(f, "coll_buffer %zu\n", s->coll_buffer);
    if (s->space_null) fprintf(f, "space null\n");
    if (s->space_scalar) fprintf(f, "space scalar\n");
    if (s->direction) fprintf(f, "direction read\n");
    for (int i = 0; i < s->nenv; i++) fprintf(f, "env %s\n", s->env[i]);
    if (s->expect_error >= 0) fprintf(f, "expect_error %d\n", s->expect_error);
    if (s->null_rank >= 0) fprintf(f, "null %d %s\n", s->null_rank, null_names[s->null_what]);
    for (int rk = 0; rk < s->ranks; rk++) {
        write_ops(f, "sel", rk, &s->fsel[rk], s->rank);
        if (s->mrank[rk] == -1) fprintf(f, "mem %d null\n", rk);
        else if (s->mrank[rk] == -2) fprintf(f, "mem %d scalar\n", rk);
        else if (s->mrank[rk] > 0) {
            fprintf(f, "mem %d dims", rk);
            for (int d = 0; d < s->mrank[rk]; d++) fprintf(f, " %" PRIu64, s->mdims[rk][d]);
            fprintf(f, "\n");
            write_ops(f, "mem", rk, &s->msel[rk], s->mrank[rk]);
        }
    }
}

/* ---- copies for the shrinker ---- */

static void ops_copy(selops *dst, const selops *src, int rank)
{
    dst->n = src->n;
    dst->ops = malloc((size_t)(src->n + 1) * sizeof *dst->ops);
    memcpy(dst->ops, src->ops, (size_t)src->n * sizeof *dst->ops);
    for (int i = 0; i < src->n; i++)
        if (src->ops[i].coords) {
            size_t b = (size_t)(src->ops[i].npts * (uint64_t)rank + 1) * sizeof(uint64_t);
            dst->ops[i].coords = malloc(b);
            memcpy(dst->ops[i].coords, src->ops[i].coords, b);
        }
}

static void scenario_copy(scenario *d, const scenario *s)
{
    *d = *s;
    for (int i = 0; i < s->nenv; i++) d->env[i] = strdup(s->env[i]);
    if (s->addrs) {
        d->addrs = malloc((size_t)s->naddrs * sizeof *d->addrs);
        memcpy(d->addrs, s->addrs, (size_t)s->naddrs * sizeof *d->addrs);
    }
    alloc_ranks(d);
    for (int rk = 0; rk < s->ranks; rk++) {
        ops_copy(&d->fsel[rk], &s->fsel[rk], s->rank);
        ops_copy(&d->msel[rk], &s->msel[rk], s->mrank[rk] > 0 ? s->mrank[rk] : 1);
        d->mrank[rk] = s->mrank[rk];
        memcpy(d->mdims[rk], s->mdims[rk], sizeof d->mdims[rk]);
    }
}

/* Removes rank rk (the ranks above it move down). */
static void drop_rank(scenario *s, int rk)
{
    for (int i = 0; i < s->fsel[rk].n; i++) free(s->fsel[rk].ops[i].coords);
    for (int i = 0; i < s->msel[rk].n; i++) free(s->msel[rk].ops[i].coords);
    free(s->fsel[rk].ops);
    free(s->msel[rk].ops);
    if (s->expect_error > rk) s->expect_error--;
    if (s->null_rank > rk) s->null_rank--;
    for (int k = rk; k + 1 < s->ranks; k++) {
        s->fsel[k] = s->fsel[k + 1];
        s->msel[k] = s->msel[k + 1];
        s->mrank[k] = s->mrank[k + 1];
        memcpy(s->mdims[k], s->mdims[k + 1], sizeof s->mdims[k]);
    }
    s->ranks--;
}

/* ---- running ---- */

typedef struct {
    MPI_Comm comm[MAXR + 1]; /* comm[P]: world ranks 0..P-1 (MPI_COMM_NULL elsewhere) */
    int me, world;
    const char *current;      /* rank 0 writes each case here before running it */
    char *log;                /* rank 0: the last run's output */
    size_t loglen;
    uint64_t runs;
} runner_t;

/* Runs the case on its ranks; every world rank returns the verdict (1 failed). */
static int run_world(runner_t *R, const scenario *s)
{
    if (R->me == 0 && R->current) {
        FILE *f = fopen(R->current, "w");
        if (f) { scenario_write(f, s); fclose(f); }
    }
    int status = 0;
    if (R->me < s->ranks) {
        FILE *out = NULL;
        if (R->me == 0) {
            free(R->log);
            R->log = NULL;
            out = open_memstream(&R->log, &R->loglen);
        }
        run_opts o = {0, 0, 1, out};
        status = run_case(s, R->comm[s->ranks], &o);
        if (out) fclose(out);
    }
    R->runs++;
    int any = 0;
    MPI_Allreduce(&status, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* Tries a candidate: keeps it in *best when it is valid and still fails. */
static int try_cand(runner_t *R, scenario *best, scenario *cand)
{
    if (!case_valid(cand) || !run_world(R, cand)) {
        scenario_free(cand);
        return 0;
    }
    scenario_free(best);
    *best = *cand;
    return 1;
}

/* Shrinks a failing case while it fails: fewer ranks, emptier selections, fewer points and ops, default
   settings. Every world rank runs the same steps (verdicts are agreed), so the result is identical everywhere. */
static void shrink(runner_t *R, scenario *s)
{
    int progress = 1;
    while (progress && R->runs < 100000) {
        progress = 0;
        scenario c;
        for (int rk = s->ranks - 1; rk >= 0 && s->ranks > 1; rk--) {
            if (rk == s->expect_error) continue;
            scenario_copy(&c, s);
            drop_rank(&c, rk);
            progress |= try_cand(R, s, &c);
        }
        for (int rk = 0; rk < s->ranks; rk++) {
            if (s->fsel[rk].n == 1 && s->fsel[rk].ops[0].kind == OP_NONE && s->mrank[rk] == 0) continue;
            scenario_copy(&c, s);
            clear_ops(&c.fsel[rk]);
            clear_ops(&c.msel[rk]);
            c.mrank[rk] = 0;
            add_op(&c.fsel[rk], OP_NONE, 0);
            progress |= try_cand(R, s, &c);
        }
        for (int rk = 0; rk < s->ranks; rk++) {
            if (s->mrank[rk] == 0) continue;
            scenario_copy(&c, s);
            clear_ops(&c.msel[rk]);
            c.mrank[rk] = 0;
            progress |= try_cand(R, s, &c);
        }
        for (int rk = 0; rk < s->ranks; rk++)
            for (int i = s->fsel[rk].n - 1; i >= 0 && s->fsel[rk].n > 1; i--) {
                scenario_copy(&c, s);
                free(c.fsel[rk].ops[i].coords);
                memmove(&c.fsel[rk].ops[i], &c.fsel[rk].ops[i + 1], (size_t)(c.fsel[rk].n - i - 1) * sizeof *c.fsel[rk].ops);
                c.fsel[rk].n--;
                if (c.fsel[rk].n && c.fsel[rk].ops[0].op == COLLDIAG_SELECT_OR) c.fsel[rk].ops[0].op = COLLDIAG_SELECT_SET;
                progress |= try_cand(R, s, &c);
            }
        /* fewer points: each half of a long list, then one point at a time */
        for (int rk = 0; rk < s->ranks; rk++)
            for (int i = 0; i < s->fsel[rk].n; i++) {
                if (s->fsel[rk].ops[i].kind != OP_POINTS) continue;
                for (int half = 0; half < 2 && s->fsel[rk].ops[i].npts > 8; half++) {
                    scenario_copy(&c, s);
                    selop *o = &c.fsel[rk].ops[i];
                    uint64_t h = o->npts / 2, R0 = (uint64_t)c.rank;
                    if (half) memmove(o->coords, o->coords + h * R0, (size_t)((o->npts - h) * R0) * sizeof *o->coords);
                    o->npts = half ? o->npts - h : h;
                    progress |= try_cand(R, s, &c);
                }
                for (uint64_t j = s->fsel[rk].ops[i].npts; j-- > 0;) {
                    if (s->fsel[rk].ops[i].npts < 2 || j >= s->fsel[rk].ops[i].npts) continue;
                    scenario_copy(&c, s);
                    selop *o = &c.fsel[rk].ops[i];
                    uint64_t R0 = (uint64_t)c.rank;
                    memmove(o->coords + j * R0, o->coords + (j + 1) * R0, (size_t)((o->npts - j - 1) * R0) * sizeof *o->coords);
                    o->npts--;
                    progress |= try_cand(R, s, &c);
                }
            }
        /* smaller hyperslabs */
        for (int rk = 0; rk < s->ranks; rk++)
            for (int i = 0; i < s->fsel[rk].n; i++)
                for (int d = 0; d < s->rank; d++) {
                    if (s->fsel[rk].ops[i].kind != OP_HYPER) continue;
                    if (s->fsel[rk].ops[i].count[d] > 1) {
                        scenario_copy(&c, s);
                        c.fsel[rk].ops[i].count[d] = c.fsel[rk].ops[i].count[d] / 2;
                        progress |= try_cand(R, s, &c);
                    }
                    if (s->fsel[rk].ops[i].has_block && s->fsel[rk].ops[i].block[d] > 1) {
                        scenario_copy(&c, s);
                        c.fsel[rk].ops[i].block[d]--;
                        progress |= try_cand(R, s, &c);
                    }
                }
        /* default settings, one at a time */
        for (int k = 0; k < 15; k++) {
            scenario_copy(&c, s);
            int changed = 1;
            switch (k) {
            case 0: changed = c.conv != 0; c.conv = 0; break;
            case 1: changed = c.xform != 0; c.xform = 0; break;
            case 2: changed = c.buffer != 0; c.buffer = 0; break;
            case 3: changed = c.driver != 0; c.driver = 0; break;
            case 4: changed = c.coll_opt != 0; c.coll_opt = 0; break;
            case 5: changed = c.num != 0; c.num = 0; break;
            case 6: changed = c.ratio != 60; c.ratio = 60; break;
            case 7: changed = c.chunk_opt != 0; c.chunk_opt = 0; break;
            case 8: changed = c.elem != 1; c.elem = 1; if (c.conv || c.xform) changed = 0; break;
            case 9: changed = c.elem > 4; c.elem = 4; break;
            case 10: changed = c.addrs != NULL && c.direction == 0; if (changed) { free(c.addrs); c.addrs = NULL; c.naddrs = 0; } break;
            case 11: changed = c.direction == 1; c.direction = 0; break;
            case 12: changed = c.mode != COLLDIAG_MPIO_COLLECTIVE; c.mode = COLLDIAG_MPIO_COLLECTIVE; break;
            case 13: changed = c.coll_buffer != 0; c.coll_buffer = 0; break;
            default:
                changed = c.nenv > 0;
                if (changed) free(c.env[--c.nenv]);
                break;
            }
            if (changed) progress |= try_cand(R, s, &c);
            else scenario_free(&c);
        }
    }
}

static double now(void) { return MPI_Wtime(); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    runner_t R;
    memset(&R, 0, sizeof R);
    MPI_Comm_rank(MPI_COMM_WORLD, &R.me);
    MPI_Comm_size(MPI_COMM_WORLD, &R.world);
    g_me = R.me;
    uint64_t seed = (uint64_t)time(NULL), ncases = 1000, only = UINT64_MAX;
    double seconds = 0;
    const char *outdir = ".";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--cases")) ncases = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--case")) only = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--out")) outdir = argv[i + 1];
        else if (!strcmp(argv[i], "--current")) R.current = argv[i + 1];
        else {
            if (R.me == 0) fprintf(stderr, "usage: %s [--seed S] [--cases N] [--seconds T] [--case I] [--out DIR] [--current FILE]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD); /* a time-based seed is rank 0's */
    int maxranks = R.world < MAX_FUZZ_RANKS ? R.world : MAX_FUZZ_RANKS; /* CI launches 4 */
    for (int p = 1; p <= maxranks; p++) MPI_Comm_split(MPI_COMM_WORLD, R.me < p ? 0 : MPI_UNDEFINED, R.me, &R.comm[p]);
    if (R.me == 0) printf("fuzz_io: seed %" PRIu64 ", %s, up to %d ranks\n", seed, seconds > 0 ? "timed" : "fixed count", maxranks), fflush(stdout);
    double t0 = now();
    uint64_t ran = 0, failed = 0;
    for (uint64_t i = only == UINT64_MAX ? 0 : only; ; i++) {
        int stop = only != UINT64_MAX ? ran >= 1 : seconds > 0 ? now() - t0 >= seconds : i >= ncases;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (stop) break;
        scenario s;
        gen_case(seed, i, maxranks, &s);
        ran++;
        if (!case_valid(&s)) { /* the generator's own mistake: say so, it is not colldiag's */
            if (R.me == 0) {
                printf("fuzz_io: case %" PRIu64 " of seed %" PRIu64 " is not a valid case (generator bug)\n", i, seed);
                scenario_write(stdout, &s);
            }
            failed++;
            scenario_free(&s);
            continue;
        }
        if (run_world(&R, &s)) {
            failed++;
            char path[1024];
            if (R.me == 0) {
                printf("\nFAIL: case %" PRIu64 " of seed %" PRIu64 " (replay: --seed %" PRIu64 " --case %" PRIu64 ")\n%s", i, seed, seed, i,
                       R.log ? R.log : "");
                snprintf(path, sizeof path, "%s/fuzz_io_%" PRIu64 "_%" PRIu64 "_orig.scn", outdir, seed, i);
                FILE *f = fopen(path, "w");
                if (f) { fprintf(f, "# fuzz_io seed %" PRIu64 " case %" PRIu64 ", as generated\n", seed, i); scenario_write(f, &s); fclose(f); }
            }
            uint64_t before = R.runs;
            shrink(&R, &s);
            run_world(&R, &s); /* the shrunk case's output, for the record */
            if (R.me == 0) {
                snprintf(path, sizeof path, "%s/fuzz_io_%" PRIu64 "_%" PRIu64 ".scn", outdir, seed, i);
                FILE *f = fopen(path, "w");
                if (f) {
                    fprintf(f, "# fuzz_io seed %" PRIu64 " case %" PRIu64 ", shrunk in %" PRIu64 " runs; it failed with:\n", seed, i, R.runs - before);
                    for (char *line = R.log ? strtok(R.log, "\n") : NULL; line; line = strtok(NULL, "\n")) fprintf(f, "#   %s\n", line);
                    scenario_write(f, &s);
                    fclose(f);
                }
                printf("shrunk to %s (mpirun -n %d scenario_run --rules %s)\n", path, s.ranks, path);
                fflush(stdout);
            }
        }
        scenario_free(&s);
    }
    if (R.me == 0) {
        printf("fuzz_io: %" PRIu64 " cases in %.1f s, seed %" PRIu64 "\n", ran, now() - t0, seed);
        printf("fuzz_io: %" PRIu64 " passed, %" PRIu64 " failed\n", ran - failed, failed);
    }
    free(R.log);
    for (int p = 1; p <= maxranks; p++)
        if (R.comm[p] != MPI_COMM_NULL) MPI_Comm_free(&R.comm[p]);
    MPI_Finalize();
    return failed ? 1 : 0;
}
