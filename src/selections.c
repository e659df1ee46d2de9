/* ====================================================================================================
 * 2. selections
 *
 * Hyperslabs (and ALL) are span trees, as in HDF5: a node lists disjoint ascending spans [lo, hi] of
 * one dimension, each pointing to the node of the next dimension; nodes are shared and refcounted, so
 * a regular hyperslab costs one node per dimension. A node is either explicit (an array of spans) or
 * regular (start/stride/count/block with one child), so count = 10^9 costs nothing. Every node knows
 * its element count, which gives each element's iteration index k (row-major) without enumeration.
 * Points keep their order, as linear row-major offsets.
 * ==================================================================================================== */

typedef struct cd_node cd_node;
typedef struct {
    uint64_t lo, hi;    /* coordinates, inclusive */
    uint64_t kbase;     /* elements of the node before this span */
    cd_node *down;      /* next dimension, NULL at the last */
} cd_span;
struct cd_node {
    uint64_t refs;
    uint64_t n;         /* number of spans */
    uint64_t npoints;   /* elements in this subtree */
    uint64_t start, stride, block; /* regular form (sp == NULL): span i = [start+i*stride, +block-1] */
    cd_node *down;      /* regular form's child */
    cd_span *sp;        /* explicit form */
};

#define CD_NP(d) ((d) ? (d)->npoints : 1u)

static void node_release(cd_node *nd)
{
    while (nd && --nd->refs == 0) {
        cd_node *next = NULL;
        if (nd->sp) {
            for (uint64_t i = 0; i < nd->n; i++) {
                /* children of consecutive spans are often shared: release each once per reference */
                node_release(nd->sp[i].down);
            }
            cd_free(nd->sp);
        } else {
            next = nd->down;
        }
        cd_free(nd);
        nd = next; /* tail-release the regular chain without recursion */
    }
}
static cd_node *node_ref(cd_node *nd)
{
    if (nd) nd->refs++;
    return nd;
}

static inline void node_span(const cd_node *nd, uint64_t i, cd_span *s)
{
    if (nd->sp) {
        *s = nd->sp[i];
        return;
    }
    s->lo = nd->start + i * nd->stride;
    s->hi = s->lo + nd->block - 1;
    s->down = nd->down;
    s->kbase = i * nd->block * CD_NP(nd->down);
}

/* Index of the first span whose hi >= x (n if none). */
static uint64_t node_find(const cd_node *nd, uint64_t x)
{
    if (!nd->sp) {
        if (x <= nd->start) return 0;
        uint64_t i = (x - nd->start) / nd->stride;
        if (i >= nd->n) return nd->n;
        if (nd->start + i * nd->stride + nd->block - 1 < x) i++;
        return i;
    }
    uint64_t lo = 0, hi = nd->n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (nd->sp[mid].hi < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Index of the span holding iteration index k (k < npoints). */
static uint64_t node_find_k(const cd_node *nd, uint64_t k)
{
    if (!nd->sp) return k / (nd->block * CD_NP(nd->down));
    uint64_t lo = 0, hi = nd->n;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (nd->sp[mid].kbase <= k) lo = mid;
        else hi = mid;
    }
    return lo;
}

static cd_node *node_new_regular(uint64_t start, uint64_t stride, uint64_t count, uint64_t block, cd_node *down)
{
    cd_node *nd = cd_calloc(1, sizeof *nd);
    if (!nd) return NULL;
    nd->refs = 1;
    if (count == 1 || stride == block) { /* touching blocks are one span */
        block *= count;
        count = 1;
        stride = block;
    }
    nd->n = count;
    nd->start = start;
    nd->stride = stride;
    nd->block = block;
    nd->down = down; /* takes the caller's reference */
    nd->npoints = count * block * CD_NP(down);
    return nd;
}

/* Structural equality (same element set below). */
static int node_equal(const cd_node *a, const cd_node *b)
{
    if (a == b) return 1;
    if (!a || !b) return 0;
    if (a->n != b->n || a->npoints != b->npoints) return 0;
    if (!a->sp && !b->sp) {
        if (a->start != b->start || a->block != b->block || (a->n > 1 && a->stride != b->stride)) return 0;
        return node_equal(a->down, b->down);
    }
    const cd_node *prev_a = NULL, *prev_b = NULL;
    for (uint64_t i = 0; i < a->n; i++) {
        cd_span sa, sb;
        node_span(a, i, &sa);
        node_span(b, i, &sb);
        if (sa.lo != sb.lo || sa.hi != sb.hi) return 0;
        if (sa.down == prev_a && sb.down == prev_b) continue; /* same pair as before: already equal */
        if (!node_equal(sa.down, sb.down)) return 0;
        prev_a = sa.down;
        prev_b = sb.down;
    }
    return 1;
}

/* --- union of two trees (OR) --- */
typedef struct {
    cd_span *sp;
    uint64_t n, cap;
} span_vec;

typedef struct {
    const cd_node *a, *b;
    cd_node *r;
} union_memo_ent;
typedef struct {
    union_memo_ent *e;
    uint64_t n, cap;
    uint64_t budget; /* spans left before the selection counts as too complex */
} union_ctx;

static cd_node *node_union(union_ctx *u, cd_node *a, cd_node *b, int *err);

static int span_vec_push(span_vec *v, uint64_t lo, uint64_t hi, cd_node *down, union_ctx *u)
{
    /* down: a new reference owned by the vector */
    if (v->n) {
        cd_span *last = &v->sp[v->n - 1];
        if (last->hi + 1 == lo && (last->down == down || node_equal(last->down, down))) {
            last->hi = hi;
            node_release(down);
            return 0;
        }
    }
    if (u->budget == 0) {
        node_release(down);
        return -2;
    }
    u->budget--;
    if (cd_grow((void **)&v->sp, &v->cap, v->n + 1, sizeof(cd_span))) {
        node_release(down);
        return -1;
    }
    v->sp[v->n].lo = lo;
    v->sp[v->n].hi = hi;
    v->sp[v->n].down = down;
    v->n++;
    return 0;
}

static cd_node *node_from_spans(span_vec *v)
{
    cd_node *nd = cd_calloc(1, sizeof *nd);
    if (!nd) return NULL;
    nd->refs = 1;
    nd->n = v->n;
    nd->sp = v->sp;
    uint64_t k = 0;
    for (uint64_t i = 0; i < v->n; i++) {
        nd->sp[i].kbase = k;
        k += (nd->sp[i].hi - nd->sp[i].lo + 1) * CD_NP(nd->sp[i].down);
    }
    nd->npoints = k;
    v->sp = NULL;
    v->n = v->cap = 0;
    return nd;
}

static cd_node *union_memo_get(union_ctx *u, const cd_node *a, const cd_node *b)
{
    for (uint64_t i = 0; i < u->n; i++)
        if (u->e[i].a == a && u->e[i].b == b) return node_ref(u->e[i].r);
    return NULL;
}

static cd_node *node_union(union_ctx *u, cd_node *a, cd_node *b, int *err)
{
    if (!a) return node_ref(b);
    if (!b) return node_ref(a);
    if (a == b) return node_ref(a);
    cd_node *m = union_memo_get(u, a, b);
    if (m) return m;
    span_vec v = {0};
    uint64_t ia = 0, ib = 0;
    cd_span sa = {0, 0, 0, NULL}, sb = {0, 0, 0, NULL};
    int has_a = a->n > 0, has_b = b->n > 0;
    if (has_a) node_span(a, 0, &sa);
    if (has_b) node_span(b, 0, &sb);
    int rc = 0;
    while ((has_a || has_b) && rc == 0) {
        if (!has_b || (has_a && sa.hi < sb.lo)) { /* a alone, no overlap ahead */
            rc = span_vec_push(&v, sa.lo, sa.hi, node_ref(sa.down), u);
            if (++ia < a->n) node_span(a, ia, &sa); else has_a = 0;
        } else if (!has_a || sb.hi < sa.lo) {
            rc = span_vec_push(&v, sb.lo, sb.hi, node_ref(sb.down), u);
            if (++ib < b->n) node_span(b, ib, &sb); else has_b = 0;
        } else if (sa.lo < sb.lo) { /* a starts first, overlapping b later */
            rc = span_vec_push(&v, sa.lo, sb.lo - 1, node_ref(sa.down), u);
            sa.lo = sb.lo;
        } else if (sb.lo < sa.lo) {
            rc = span_vec_push(&v, sb.lo, sa.lo - 1, node_ref(sb.down), u);
            sb.lo = sa.lo;
        } else { /* same start: the overlap takes the union of the children */
            uint64_t e = sa.hi < sb.hi ? sa.hi : sb.hi;
            cd_node *d = NULL;
            if (sa.down || sb.down) {
                d = node_union(u, sa.down, sb.down, err);
                if (!d) { rc = *err ? *err : -1; break; }
            }
            rc = span_vec_push(&v, sa.lo, e, d, u);
            sa.lo = sb.lo = e + 1;
            if (sa.lo > sa.hi) { if (++ia < a->n) node_span(a, ia, &sa); else has_a = 0; }
            if (sb.lo > sb.hi) { if (++ib < b->n) node_span(b, ib, &sb); else has_b = 0; }
        }
    }
    if (rc) {
        for (uint64_t i = 0; i < v.n; i++) node_release(v.sp[i].down);
        cd_free(v.sp);
        *err = rc;
        return NULL;
    }
    cd_node *r = node_from_spans(&v);
    if (!r) { *err = -1; return NULL; }
    if (!cd_grow((void **)&u->e, &u->cap, u->n + 1, sizeof *u->e)) {
        u->e[u->n].a = a;
        u->e[u->n].b = b;
        u->e[u->n].r = node_ref(r);
        u->n++;
    }
    return r;
}

enum { SPACE_SIMPLE = 0, SPACE_SCALAR = 1, SPACE_NULL = 2 };
enum { SEL_NONE = 0, SEL_ALL = 1, SEL_HYPER = 2, SEL_POINTS = 3 };

struct colldiag_sel {
    int space;
    int rank;
    uint64_t dims[COLLDIAG_MAX_RANK];
    uint64_t nelem_space;   /* product of dims */
    int type;
    cd_node *tree;          /* SEL_ALL and SEL_HYPER */
    uint64_t *pts;          /* SEL_POINTS: linear offsets, in the order given */
    uint64_t npts, cap;
};

/* The first and last selected elements in row-major order (linear offsets in the selection's extent):
   the first span of every level, and the last; a point list's smallest and largest. 0 when nothing is
   selected (*first > *last then). O(rank) for hyperslabs, O(points) for points. */
static int sel_first_last(const colldiag_sel *s, uint64_t *first, uint64_t *last)
{
    *first = 1;
    *last = 0;
    if (!s || s->space == SPACE_NULL || s->type == SEL_NONE) return 0;
    if (s->space == SPACE_SCALAR) { *first = *last = 0; return 1; }
    if (s->type == SEL_POINTS) {
        if (!s->npts) return 0;
        uint64_t lo = UINT64_MAX, hi = 0;
        for (uint64_t i = 0; i < s->npts; i++) {
            if (s->pts[i] < lo) lo = s->pts[i];
            if (s->pts[i] > hi) hi = s->pts[i];
        }
        *first = lo;
        *last = hi;
        return 1;
    }
    const cd_node *a = s->tree, *b = s->tree;
    uint64_t f = 0, l = 0;
    for (int d = 0; d < s->rank; d++) {
        if (!a || !b || !a->n || !b->n) return 0;
        cd_span sa, sb;
        node_span(a, 0, &sa);
        node_span(b, b->n - 1, &sb);
        f = f * s->dims[d] + sa.lo;
        l = l * s->dims[d] + sb.hi;
        a = sa.down;
        b = sb.down;
    }
    *first = f;
    *last = l;
    return 1;
}

/* A selection's bounding box (lo[d]..hi[d], inclusive) and a digest of its shape: whether two ranks'
   selections of one dataset may share an element, and whether they are the same selection (the read
   guard, execution.c). The span tree is a DAG (unions share subtrees): a walk of more than
   CD_BBOX_BUDGET spans takes the dimensions below whole and marks the digest unusable (wide, never
   narrow: the answer errs towards "may share"). A child met again by the next span is not walked again. */
#define CD_BBOX_BUDGET 65536
typedef struct {
    uint64_t lo[COLLDIAG_MAX_RANK], hi[COLLDIAG_MAX_RANK];
    long budget;
    int over; /* the budget ran out: the digest says nothing */
} cd_bbox;

static void bbox_span(cd_bbox *b, int d, uint64_t lo, uint64_t hi)
{
    if (lo < b->lo[d]) b->lo[d] = lo;
    if (hi > b->hi[d]) b->hi[d] = hi;
}

static uint64_t bbox_node(const colldiag_sel *s, const cd_node *nd, int d, cd_bbox *b)
{
    if (!nd || d >= s->rank) return 0x9e3779b97f4a7c15ULL;
    b->budget -= (long)(nd->sp ? nd->n : 1) + 1;
    if (b->budget < 0) { /* the rest of this dimension and those below: whole */
        for (int e = d; e < s->rank; e++) bbox_span(b, e, 0, s->dims[e] ? s->dims[e] - 1 : 0);
        b->over = 1;
        return 0;
    }
    uint64_t h = cd_hash_u64(cd_hash_u64(0, (uint64_t)d), nd->n);
    if (!nd->n) return h;
    if (!nd->sp) {
        bbox_span(b, d, nd->start, nd->start + (nd->n - 1) * nd->stride + nd->block - 1);
        h = cd_hash_u64(cd_hash_u64(cd_hash_u64(h, nd->start), nd->stride), nd->block);
        return cd_hash_u64(h, bbox_node(s, nd->down, d + 1, b));
    }
    const cd_node *prev = NULL;
    uint64_t ph = 0;
    for (uint64_t i = 0; i < nd->n; i++) {
        const cd_span *sp = &nd->sp[i];
        bbox_span(b, d, sp->lo, sp->hi);
        if (i == 0 || sp->down != prev) {
            ph = bbox_node(s, sp->down, d + 1, b);
            prev = sp->down;
        }
        h = cd_hash_u64(cd_hash_u64(cd_hash_u64(h, sp->lo), sp->hi), ph);
    }
    return h;
}

/* Each dimension of s as a regular set {start + i stride + [0, block), i < count}, exact where the span
   tree is one regular or one-span node a level down to that dimension (a hyperslab of one block pattern),
   and the box's interval below the first level of several spans (a superset: the levels above are one
   pattern, so the selection lies in their product with the box's rest). reg[4 d ...]: start, stride,
   count, block. Call after sel_bbox (its box). Pure. */
static void sel_regular_dims(const colldiag_sel *s, const cd_bbox *b, uint64_t *reg)
{
    const cd_node *nd = s && s->type != SEL_POINTS && s->space == SPACE_SIMPLE ? s->tree : NULL;
    for (int d = 0; d < (s ? s->rank : 0); d++) {
        uint64_t *r = &reg[4 * d];
        if (nd && !nd->sp && nd->n) {
            r[0] = nd->start;
            r[1] = nd->n > 1 ? nd->stride : nd->block;
            r[2] = nd->n;
            r[3] = nd->block;
            nd = nd->down;
        } else if (nd && nd->sp && nd->n == 1) {
            r[0] = nd->sp[0].lo;
            r[1] = r[3] = nd->sp[0].hi - nd->sp[0].lo + 1;
            r[2] = 1;
            nd = nd->sp[0].down;
        } else {
            nd = NULL;
            r[0] = b->lo[d];
            r[1] = r[3] = b->hi[d] >= b->lo[d] ? b->hi[d] - b->lo[d] + 1 : 1;
            r[2] = 1;
        }
    }
}

/* Whether two regular sets of one dimension (start, stride, count, block: sel_regular_dims) share a
   coordinate: exact when the strides are equal or either is a single block, else whether their spans
   meet (a superset). Pure, O(1). */
static int regular_meet(const uint64_t *a, const uint64_t *b)
{
    const uint64_t ahi = a[0] + (a[2] - 1) * a[1] + a[3] - 1, bhi = b[0] + (b[2] - 1) * b[1] + b[3] - 1;
    if (ahi < b[0] || bhi < a[0]) return 0;
    if (a[2] > 1 && b[2] > 1 && a[1] != b[1]) return 1; /* the spans meet: assume they share */
    if (a[2] == 1 && b[2] == 1) return 1;
    if ((a[2] > 1 && a[1] < a[3]) || (b[2] > 1 && b[1] < b[3])) return 1; /* blocks wider than their stride: one stretch */
    if (b[2] == 1) { const uint64_t *t = a; a = b; b = t; }
    if (a[2] == 1) { /* an interval [x, y] against blocks j of b: b0 + j st + [0, bb) */
        const int64_t x = (int64_t)a[0], y = (int64_t)(a[0] + a[3] - 1), b0 = (int64_t)b[0], st = (int64_t)b[1], bb = (int64_t)b[3];
        int64_t jlo = x - b0 - bb + 1, jhi = y - b0;
        jlo = jlo <= 0 ? 0 : (jlo + st - 1) / st;
        jhi = jhi < 0 ? -1 : jhi / st;
        if (jhi > (int64_t)b[2] - 1) jhi = (int64_t)b[2] - 1;
        return jlo <= jhi;
    }
    /* equal strides st: blocks i of a and j = i + k of b meet iff -bb < d + k st < ba (d = b0 - a0) */
    const int64_t st = (int64_t)a[1], d = (int64_t)b[0] - (int64_t)a[0], ba = (int64_t)a[3], bb = (int64_t)b[3];
    const int64_t na = (int64_t)a[2], nb = (int64_t)b[2];
    /* k from ceil((-bb + 1 - d) / st) to floor((ba - 1 - d) / st): at most a few (blocks <= stride) */
    int64_t num = -bb + 1 - d, klo = num >= 0 ? (num + st - 1) / st : -((-num) / st);
    num = ba - 1 - d;
    const int64_t khi = num >= 0 ? num / st : -((-num + st - 1) / st);
    for (int64_t k = klo; k <= khi; k++) {
        const int64_t ilo = k < 0 ? -k : 0, ihi = na < nb - k ? na : nb - k; /* i in [ilo, ihi) */
        if (ilo < ihi) return 1;
    }
    return 0;
}

/* The box and digest of s (see above): 0 when nothing is selected. */
static int sel_bbox(const colldiag_sel *s, cd_bbox *b, uint64_t *digest)
{
    for (int d = 0; d < COLLDIAG_MAX_RANK; d++) {
        b->lo[d] = UINT64_MAX;
        b->hi[d] = 0;
    }
    b->budget = CD_BBOX_BUDGET;
    b->over = 0;
    *digest = 0;
    if (!s || s->space == SPACE_NULL || s->type == SEL_NONE) return 0;
    if (s->space == SPACE_SCALAR || s->rank == 0) { *digest = 1; return 1; }
    if (s->type == SEL_POINTS) {
        if (!s->npts) return 0;
        uint64_t h = 3;
        for (uint64_t i = 0; i < s->npts; i++) {
            uint64_t r = s->pts[i];
            h = cd_hash_u64(h, r);
            for (int d = s->rank - 1; d >= 0; d--) {
                const uint64_t n = s->dims[d] ? s->dims[d] : 1;
                bbox_span(b, d, r % n, r % n);
                r /= n;
            }
        }
        *digest = h;
        return 1;
    }
    if (!s->tree || !s->tree->n) return 0;
    *digest = bbox_node(s, s->tree, 0, b);
    return 1;
}

static const char *seloper_name(colldiag_seloper_t op) { return op == COLLDIAG_SELECT_SET ? "SET" : "OR"; }

static cd_node *tree_all(const colldiag_sel *s)
{
    cd_node *down = NULL;
    for (int d = s->rank - 1; d >= 0; d--) {
        cd_node *nd = node_new_regular(0, 1, 1, s->dims[d], down);
        if (!nd) { node_release(down); return NULL; }
        down = nd;
    }
    return down;
}

static void sel_clear(colldiag_sel *s)
{
    node_release(s->tree);
    s->tree = NULL;
    cd_free(s->pts);
    s->pts = NULL;
    s->npts = s->cap = 0;
}

static int sel_check_dims(const char *fn, int rank, const uint64_t *dims, uint64_t *prod)
{
    if (rank < 1 || rank > COLLDIAG_MAX_RANK)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "rank %d is outside 1..%d", rank, COLLDIAG_MAX_RANK);
    if (!dims) return cd_fail(COLLDIAG_ERR_ARG, fn, "dims is NULL");
    uint64_t p = 1;
    for (int d = 0; d < rank; d++)
        if (cd_mul(p, dims[d], &p) || p > CD_MAX_OFFSET)
            return cd_fail(COLLDIAG_ERR_ARG, fn, "the product of dims overflows at dims[%d] = %" PRIu64, d, dims[d]);
    *prod = p;
    return 0;
}

int colldiag_sel_create(int rank, const uint64_t *dims, colldiag_sel **out)
{
    static const char fn[] = "colldiag_sel_create";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    *out = NULL;
    uint64_t prod;
    int rc = sel_check_dims(fn, rank, dims, &prod);
    if (rc) return rc;
    colldiag_sel *s = cd_calloc(1, sizeof *s);
    if (!s) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the selection");
    s->space = SPACE_SIMPLE;
    s->rank = rank;
    memcpy(s->dims, dims, (size_t)rank * sizeof *dims);
    s->nelem_space = prod;
    s->type = SEL_ALL;
    s->tree = tree_all(s);
    if (!s->tree) { cd_free(s); return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the selection"); }
    *out = s;
    return 0;
}

int colldiag_sel_create_scalar(colldiag_sel **out)
{
    static const char fn[] = "colldiag_sel_create_scalar";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    colldiag_sel *s = cd_calloc(1, sizeof *s);
    if (!s) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the selection");
    s->space = SPACE_SCALAR;
    s->rank = 0;
    s->nelem_space = 1;
    s->type = SEL_ALL;
    *out = s;
    return 0;
}

int colldiag_sel_create_null(colldiag_sel **out)
{
    static const char fn[] = "colldiag_sel_create_null";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    colldiag_sel *s = cd_calloc(1, sizeof *s);
    if (!s) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the selection");
    s->space = SPACE_NULL;
    s->type = SEL_NONE;
    *out = s;
    return 0;
}

#ifdef COLLDIAG_WITH_HDF5 /* the bridge's H5S_ALL memory space is the file selection again */
/* A copy of s sharing its tree (nodes are reference counted, and selections never change a tree they
   share: every operation builds new nodes). 0, or -1 (no memory). */
static int sel_clone(const colldiag_sel *s, colldiag_sel **out)
{
    colldiag_sel *c = cd_malloc(sizeof *c);
    uint64_t *pts = s->npts ? cd_malloc((size_t)s->npts * sizeof *pts) : NULL;
    if (!c || (s->npts && !pts)) { cd_free(c); cd_free(pts); return -1; }
    *c = *s;
    c->tree = node_ref(s->tree);
    if (s->npts) memcpy(pts, s->pts, (size_t)s->npts * sizeof *pts);
    c->pts = pts;
    c->cap = s->npts;
    *out = c;
    return 0;
}
#endif

void colldiag_sel_free(colldiag_sel *s)
{
    if (!s) return;
    sel_clear(s);
    cd_free(s);
}

int colldiag_sel_select_all(colldiag_sel *s)
{
    static const char fn[] = "colldiag_sel_select_all";
    if (!s) return cd_fail(COLLDIAG_ERR_ARG, fn, "s is NULL");
    if (s->space == SPACE_NULL) return 0; /* a null space has nothing to select, as in HDF5 */
    cd_node *t = NULL;
    if (s->space == SPACE_SIMPLE && !(t = tree_all(s)))
        return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the selection");
    sel_clear(s);
    s->tree = t;
    s->type = SEL_ALL;
    return 0;
}

int colldiag_sel_select_none(colldiag_sel *s)
{
    if (!s) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_sel_select_none", "s is NULL");
    sel_clear(s);
    s->type = SEL_NONE;
    return 0;
}

uint64_t colldiag_sel_npoints(const colldiag_sel *s)
{
    if (!s) return 0;
    switch (s->type) {
    case SEL_ALL: return s->space == SPACE_SCALAR ? 1 : s->nelem_space;
    case SEL_HYPER: return CD_NP(s->tree) * (s->tree != NULL);
    case SEL_POINTS: return s->npts;
    default: return 0;
    }
}

/* 1 when the selection's elements lie back to back in the row-major order of its dataspace (one
   stretch of a contiguous dataset: the first and the last selected element are npoints - 1 apart), or
   when it selects at most one element; 0 otherwise (a point list of several points is taken as
   several stretches). *first: the first element's offset in that order (0 when nothing is selected).
   Pure, O(rank): the first element descends the first span of every dimension, the last the last span. */
static int sel_stretch(const colldiag_sel *s, uint64_t *first)
{
    const uint64_t n = colldiag_sel_npoints(s);
    *first = 0;
    if (n == 0 || s->type == SEL_ALL) return 1;
    if (s->type == SEL_POINTS) {
        *first = s->pts[0];
        return n == 1;
    }
    if (s->type != SEL_HYPER || !s->tree) return 0;
    uint64_t lo = 0, hi = 0;
    const cd_node *a = s->tree, *b = s->tree;
    for (int d = 0; d < s->rank; d++) {
        if (!a || !b || a->n == 0 || b->n == 0) return 0;
        cd_span sa, sb;
        node_span(a, 0, &sa);
        node_span(b, b->n - 1, &sb);
        lo = lo * s->dims[d] + sa.lo;
        hi = hi * s->dims[d] + sb.hi;
        a = sa.down;
        b = sb.down;
    }
    *first = lo;
    return hi >= lo && hi - lo + 1 == n;
}

int colldiag_sel_select_hyperslab(colldiag_sel *s, colldiag_seloper_t op, const uint64_t *start,
                                  const uint64_t *stride, const uint64_t *count, const uint64_t *block)
{
    static const char fn[] = "colldiag_sel_select_hyperslab";
    if (!s) return cd_fail(COLLDIAG_ERR_ARG, fn, "s is NULL");
    if (op != COLLDIAG_SELECT_SET && op != COLLDIAG_SELECT_OR)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "op = %d is not COLLDIAG_SELECT_SET or COLLDIAG_SELECT_OR", (int)op);
    if (s->space != SPACE_SIMPLE)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "hyperslabs need a simple dataspace (this one is %s)",
                       s->space == SPACE_NULL ? "null" : "scalar");
    if (!start || !count) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", start ? "count" : "start");
    if (op == COLLDIAG_SELECT_OR && s->type == SEL_POINTS)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "cannot OR a hyperslab onto a point selection");
    int empty = 0;
    for (int d = 0; d < s->rank; d++) {
        uint64_t st = stride ? stride[d] : 1, bl = block ? block[d] : 1, last;
        if (count[d] == 0) { empty = 1; continue; }
        if (bl == 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "block[%d] is 0", d);
        if (count[d] > 1 && st < bl)
            return cd_fail(COLLDIAG_ERR_ARG, fn, "stride[%d] = %" PRIu64 " is smaller than block[%d] = %" PRIu64
                           " (blocks would overlap)", d, st, d, bl);
        if (cd_mul(count[d] - 1, st, &last) || cd_add(last, start[d], &last) || cd_add(last, bl - 1, &last) ||
            last >= s->dims[d])
            return cd_fail(COLLDIAG_ERR_ARG, fn,
                           "dimension %d: start %" PRIu64 " stride %" PRIu64 " count %" PRIu64 " block %" PRIu64
                           " runs past the extent %" PRIu64, d, start[d], st, count[d], bl, s->dims[d]);
    }
    cd_node *h = NULL;
    if (!empty) {
        for (int d = s->rank - 1; d >= 0; d--) {
            cd_node *nd = node_new_regular(start[d], stride ? stride[d] : 1, count[d], block ? block[d] : 1, h);
            if (!nd) { node_release(h); return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the hyperslab"); }
            h = nd;
        }
    }
    if (op == COLLDIAG_SELECT_SET || s->type == SEL_NONE) {
        sel_clear(s);
        s->tree = h;
        s->type = h ? SEL_HYPER : SEL_NONE;
        return 0;
    }
    if (!h) return 0; /* OR with nothing */
    if (s->type == SEL_ALL) { node_release(h); return 0; } /* ALL already holds it */
    union_ctx u = {0};
    u.budget = CD_MAX_SPANS;
    int err = 0;
    cd_node *r = node_union(&u, s->tree, h, &err);
    for (uint64_t i = 0; i < u.n; i++) node_release(u.e[i].r);
    cd_free(u.e);
    node_release(h);
    if (!r)
        return err == -2 ? cd_fail(COLLDIAG_ERR_NOMEM, fn, "the union needs more than %" PRIu64
                                   " spans; describe it with fewer hyperslabs", CD_MAX_SPANS)
                         : cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the union (%s)", seloper_name(op));
    node_release(s->tree);
    s->tree = r;
    s->type = SEL_HYPER;
    return 0;
}

int colldiag_sel_select_elements(colldiag_sel *s, colldiag_seloper_t op, uint64_t npoints, const uint64_t *coords)
{
    static const char fn[] = "colldiag_sel_select_elements";
    if (!s) return cd_fail(COLLDIAG_ERR_ARG, fn, "s is NULL");
    if (op != COLLDIAG_SELECT_SET && op != COLLDIAG_SELECT_OR)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "op = %d is not COLLDIAG_SELECT_SET or COLLDIAG_SELECT_OR", (int)op);
    if (s->space != SPACE_SIMPLE)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "points need a simple dataspace (this one is %s)",
                       s->space == SPACE_NULL ? "null" : "scalar");
    if (npoints && !coords) return cd_fail(COLLDIAG_ERR_ARG, fn, "coords is NULL with npoints = %" PRIu64, npoints);
    if (op == COLLDIAG_SELECT_OR && (s->type == SEL_HYPER || s->type == SEL_ALL))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "cannot OR points onto a hyperslab or ALL selection");
    uint64_t keep = (op == COLLDIAG_SELECT_OR && s->type == SEL_POINTS) ? s->npts : 0, total;
    if (cd_add(keep, npoints, &total) || total > (uint64_t)SIZE_MAX / 16)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "npoints = %" PRIu64 " is too large", npoints);
    uint64_t *p = cd_malloc((size_t)total * sizeof *p);
    if (!p) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating %" PRIu64 " points", total);
    if (keep) memcpy(p, s->pts, (size_t)keep * sizeof *p);
    for (uint64_t i = 0; i < npoints; i++) {
        uint64_t off = 0;
        for (int d = 0; d < s->rank; d++) {
            uint64_t c = coords[i * (uint64_t)s->rank + (uint64_t)d];
            if (c >= s->dims[d]) {
                cd_free(p);
                return cd_fail(COLLDIAG_ERR_ARG, fn, "point %" PRIu64 " coordinate %d = %" PRIu64
                               " is outside the extent %" PRIu64, i, d, c, s->dims[d]);
            }
            off = off * s->dims[d] + c;
        }
        p[keep + i] = off;
    }
    /* duplicates: sort a copy; O(n log n) once per call */
    uint64_t *q = cd_malloc((size_t)total * sizeof *q);
    if (!q) { cd_free(p); return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating %" PRIu64 " points", total); }
    memcpy(q, p, (size_t)total * sizeof *q);
    qsort(q, (size_t)total, sizeof *q, cmp_u64);
    for (uint64_t i = 1; i < total; i++)
        if (q[i] == q[i - 1]) {
            uint64_t off = q[i], c[COLLDIAG_MAX_RANK];
            for (int d = s->rank - 1; d >= 0; d--) { c[d] = off % s->dims[d]; off /= s->dims[d]; }
            char where[256];
            int w = 0;
            for (int d = 0; d < s->rank && w < 200; d++)
                w += snprintf(where + w, sizeof where - (size_t)w, "%s%" PRIu64, d ? ", " : "", c[d]);
            cd_free(q);
            cd_free(p);
            return cd_fail(COLLDIAG_ERR_ARG, fn, "the point (%s) is listed twice", where);
        }
    cd_free(q);
    sel_clear(s);
    s->pts = p;
    s->npts = s->cap = total;
    s->type = total ? SEL_POINTS : SEL_NONE;
    return 0;
}
