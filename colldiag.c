/* colldiag.c — the whole kit in one translation unit. See colldiag.h for the manual.
 *
 * Sections (numbered by topic; 7 and 9 interleave in the file because the execution primitives must
 * precede the schemes that call them):
 *   1. errors and small helpers
 *   2. selections (span trees, points)
 *   3. layouts
 *   4. files (and the agreement reduction's layout)
 *   5. transfer properties
 *   6. chunk mapping (pieces, run walks, memory pairing)
 *   8. datatypes (run streams compressed into compact MPI types)
 *   7/9. the per-call context and argument checks, then 9. execution primitives (independent runs,
 *        collective rounds), 7. rank counts and owners per chunk, 9. chunk aggregation, 7. AUTO's
 *        cost model, then the schemes, results, agreement and the transfer itself
 *  10. reporting (cause strings, getters, the collective report)
 *  11. HDF5 bridge (only with -DCOLLDIAG_WITH_HDF5)
 *
 * The decision logic (sections 6-7) is pure: it never touches the file, and colldiag_plan runs it alone.
 */
#define _GNU_SOURCE
#include "colldiag.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef COLLDIAG_MALLOC
#define COLLDIAG_MALLOC(n) malloc(n)
#define COLLDIAG_CALLOC(n, s) calloc((n), (s))
#define COLLDIAG_REALLOC(p, n) realloc((p), (n))
#define COLLDIAG_FREE(p) free(p)
#endif

/* Conversion/transform staging buffer: 1 MiB, as HDF5's default type-conversion buffer, big enough to
   amortise a call per run and small enough to never matter next to the application's data. */
#define CD_DEFAULT_BUFFER ((size_t)1 << 20)
/* Staging for plain independent runs (gathering scattered memory into file order): 4 MiB keeps
   pwrite/MPI_File_write_at calls large without a selection-sized copy (never more than the collective
   buffer below, which bounds everything a call allocates for data). */
#define CD_STAGE_BYTES ((size_t)4 << 20)
/* Collective calls pack memory into file order themselves when the memory side's runs average fewer
   bytes than this: MPI-IO libraries walk a many-run memory type slower than memcpy does (B4: 5.6M
   32-byte runs, 1.8 s through the memory type against 1.0 s packed), at the price of one copy of the
   round's bytes, whose fresh pages cost more than 512-byte runs do (B1: 0.08 s unpacked, 0.12 packed). */
#ifndef COLLDIAG_PACK_RUN_BYTES
#define COLLDIAG_PACK_RUN_BYTES 256
#endif
/* MPI counts are int: no single count or block length above this, by construction. */
#define CD_MAX_INT_COUNT ((uint64_t)INT_MAX)
/* A single contiguous block in an MPI type is split into 1 GiB pieces so sizes never overflow int. */
#define CD_BIG_BLOCK ((uint64_t)1 << 30)
/* AUTO's cost model (section 7). Defaults measured on a 2-core Debian 12 box, Open MPI 4.1.4 ompio,
   3 ranks, local disk, by `make calibrate` (bench/calibrate.c), which prints the same list for any
   machine. Each can be set at compile time (-DCOLLDIAG_AUTO_LAT=1e-4) or per run through the
   environment (COLLDIAG_AUTO_LAT=1e-4); the environment wins. Every rank must see the same values:
   they decide the scheme, so they are part of the agreed settings (a disagreement is COLLDIAG_ERR_ARG
   on every rank). The choice follows their ratios, not their absolute values. */
#ifndef COLLDIAG_AUTO_LAT
#define COLLDIAG_AUTO_LAT 1.2e-4 /* s per collective MPI-IO call of a small piece (set_view + two-phase round trip) */
#endif
#ifndef COLLDIAG_AUTO_LAT_X
#define COLLDIAG_AUTO_LAT_X 7e-6   /* s per all-to-all step of the aggregation exchange */
#endif
#ifndef COLLDIAG_AUTO_RUN
#define COLLDIAG_AUTO_RUN 4e-6   /* s per file run two-phase I/O sorts and merges (B3 link: 1.4 M runs a rank ~ 7 s) */
#endif
#ifndef COLLDIAG_AUTO_MRUN
#define COLLDIAG_AUTO_MRUN 1.5e-7  /* s per memory block (>= COLLDIAG_PACK_RUN_BYTES, so not packed) MPI's datatype engine handles */
#endif
#ifndef COLLDIAG_AUTO_IND
#define COLLDIAG_AUTO_IND 4.5e-6 /* s per independent MPI-IO call (one per contiguous file stretch) */
#endif
#ifndef COLLDIAG_AUTO_COPY
#define COLLDIAG_AUTO_COPY 6e-9   /* s per run packed or placed by aggregation */
#endif
#ifndef COLLDIAG_AUTO_BW_IO
#define COLLDIAG_AUTO_BW_IO 1.8e9  /* B/s a rank moves through collective (two-phase) I/O */
#endif
#ifndef COLLDIAG_AUTO_BW_IND
#define COLLDIAG_AUTO_BW_IND 3e9    /* B/s a rank moves with independent calls (no exchange between ranks) */
#endif
#ifndef COLLDIAG_AUTO_BW_COPY
#define COLLDIAG_AUTO_BW_COPY 1.8e10 /* B/s of memcpy */
#endif
#ifndef COLLDIAG_AUTO_BW_NET
#define COLLDIAG_AUTO_BW_NET 3e9    /* B/s per rank through the aggregation exchange */
#endif
/* The constants as one list: X(NAME) -> env COLLDIAG_AUTO_<NAME>, default COLLDIAG_AUTO_<NAME>. */
#define CD_AUTO_CONSTANTS(X) X(LAT) X(LAT_X) X(RUN) X(MRUN) X(IND) X(COPY) X(BW_IO) X(BW_IND) X(BW_COPY) X(BW_NET)
#define CD_AUTO_ENUM(n) CD_K_##n,
enum { CD_AUTO_CONSTANTS(CD_AUTO_ENUM) CD_K_N };

/* Most bytes one rank moves in one collective data call: larger transfers become several agreed rounds.
   ROMIO 3.2.1 (Open MPI 4.1's romio321) hangs on a collective request above 2 GiB per rank; 1 GiB keeps
   a margin and is still far beyond where a round's fixed cost matters. */
#ifndef COLLDIAG_COLL_MAX_BYTES
#define COLLDIAG_COLL_MAX_BYTES ((uint64_t)1 << 30)
#endif
/* The collective buffer: a collective call that packs memory into file order packs at most this many
   bytes per rank at a time, in agreed rounds, through one buffer reused by every round. 16 MiB is
   ROMIO's cb_buffer_size, the amount two-phase I/O itself moves per aggregator per cycle, so a round
   costs no more calls than MPI-IO makes anyway, and the copy stays small next to the application's data
   (B4 packed 186 MB per call into one fresh buffer before). Per transfer: colldiag_set_coll_buffer;
   env COLLDIAG_COLL_BUFFER (bytes, k/m/g suffixes). Every rank must use the same value (it decides the
   number of collective calls, so it is part of the agreed settings). */
#ifndef COLLDIAG_COLL_BUFFER_BYTES
#define COLLDIAG_COLL_BUFFER_BYTES ((uint64_t)16 << 20)
#endif
/* The MPI-IO hint cb_buffer_size that colldiag_file_open gives MPI when the caller's info names none:
   the collective buffer's 16 MiB. ROMIO's default already; Open MPI's ompio defaults to 32 MiB, which
   its two-phase write splits into two 16 MiB buffers allocated and freed in every collective call,
   and glibc hands that much back to the kernel on each free (its trim threshold follows the largest
   block freed so far), so every call faults in 8,192 fresh pages. Link's rounds make one call per 16
   MiB: B4 (178 MB per rank, 12 calls) spent 1.6 s in MPI against 0.21 s with 16 MiB (measured on this
   project's 2-core VM, where a page fault is expensive). 0: leave MPI's default. */
#ifndef COLLDIAG_CB_BUFFER_HINT
#define COLLDIAG_CB_BUFFER_HINT COLLDIAG_COLL_BUFFER_BYTES
#endif
/* Upper bound on the spans one OR may materialise: a guard against selections that would need
   gigabytes of description (the caller gets COLLDIAG_ERR_NOMEM with a message, not an abort). */
#define CD_MAX_SPANS ((uint64_t)1 << 26)
/* Nesting the run compressor tracks: enough for chunks of rank 4 described exactly, deeper patterns
   stay correct with more items. */
#define CD_MAXD 6

/* ====================================================================================================
 * 1. errors and small helpers
 * ==================================================================================================== */

static _Thread_local char cd_errbuf[1024];

const char *colldiag_version(void)
{
#define CD_STR2(x) #x
#define CD_STR(x) CD_STR2(x)
    return CD_STR(COLLDIAG_VERSION_MAJOR) "." CD_STR(COLLDIAG_VERSION_MINOR) "." CD_STR(COLLDIAG_VERSION_PATCH);
}

const char *colldiag_strerror(int code)
{
    switch (code) {
    case COLLDIAG_OK: return "success";
    case COLLDIAG_ERR_ARG: return "bad argument";
    case COLLDIAG_ERR_NOMEM: return "out of memory";
    case COLLDIAG_ERR_MPI: return "an MPI call failed";
    case COLLDIAG_ERR_IO: return "a POSIX I/O call failed or transferred too little";
    case COLLDIAG_ERR_UNSUPPORTED: return "not supported by colldiag";
    case COLLDIAG_ERR_PEER: return "another rank failed in the same collective call";
    default: return "unknown error code";
    }
}

const char *colldiag_last_errmsg(void) { return cd_errbuf; }

/* This process's rank in MPI_COMM_WORLD for messages (-1 before MPI starts). Remembered: a process
   keeps its rank, and every call HDF5 runs under the preload's acceleration formats a reason with it
   (three MPI queries, ~1 us, each time). */
static int cd_world_rank(void)
{
    static int known = -1;
    if (known >= 0) return known;
    int init = 0, fin = 0, r = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
    known = r;
    return r;
}

/* Records "FUNC: rank R: message" as the thread's last error and returns code. */
static int cd_fail(int code, const char *func, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cd_fail(int code, const char *func, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(cd_errbuf, sizeof cd_errbuf, "%s: rank %d: %s (%s)", func, cd_world_rank(), msg,
             colldiag_strerror(code));
    return code;
}

static void *cd_malloc(size_t n) { return COLLDIAG_MALLOC(n ? n : 1); }
static void *cd_calloc(size_t n, size_t s) { return COLLDIAG_CALLOC(n ? n : 1, s ? s : 1); }
static void cd_free(void *p) { if (p) COLLDIAG_FREE(p); }

/* Grows *arr (of elements of size es) to hold at least need elements. */
static int cd_grow(void **arr, uint64_t *cap, uint64_t need, size_t es)
{
    if (need <= *cap) return 0;
    uint64_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > (uint64_t)SIZE_MAX / 2 / es) return -1;
        nc *= 2;
    }
    void *p = COLLDIAG_REALLOC(*arr, (size_t)(nc * es));
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

/* a*b with overflow detection: returns 0 and stores, or -1. */
static int cd_mul(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a && b > UINT64_MAX / a) return -1;
    *out = a * b;
    return 0;
}
static int cd_add(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a) return -1;
    *out = a + b;
    return 0;
}

/* Everything addressed in a file must fit a signed 64-bit MPI_Offset. */
#define CD_MAX_OFFSET ((uint64_t)INT64_MAX)

static double cd_now(void) { return MPI_Wtime(); }

static uint64_t cd_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}
static uint64_t cd_hash_u64(uint64_t h, uint64_t v) { return cd_mix64(h ^ cd_mix64(v + 0x9e3779b97f4a7c15ULL)); }
static uint64_t popcount64(uint64_t x)
{
    uint64_t n = 0;
    for (; x; x &= x - 1) n++;
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* --- the environment, read once a call ---
   colldiag's variables are read at every call (a program may change them between calls): about twenty
   a call. getenv walks the whole environment for each (89 variables under mpirun: ~5 us of a 0.1 ms
   call here). So each entry point takes one snapshot: a single pass keeps pointers to the COLLDIAG_* and
   HDF5_* entries, and cd_getenv looks there. The pointers stay valid for the call: glibc's setenv never
   frees a string it handed out, and nothing in a call sets variables. Outside a call, or with more than
   CD_ENV_MAX such variables, cd_getenv is getenv. Nested entry points (the bridge calling the core) share
   the outer snapshot. */
#ifdef __APPLE__ /* a macOS shared library cannot link environ; the same array through libSystem */
#include <crt_externs.h>
#define environ (*_NSGetEnviron())
#else
extern char **environ;
#endif
enum { CD_ENV_MAX = 64 };
static _Thread_local struct {
    int depth, over, n;
    const char *kv[CD_ENV_MAX];
} cd_env;

static void cd_env_enter(void)
{
    if (cd_env.depth++) return;
    cd_env.n = cd_env.over = 0;
    for (char **e = environ; e && *e && !cd_env.over; e++)
        if (((*e)[0] == 'C' && !strncmp(*e, "COLLDIAG_", 9)) || ((*e)[0] == 'H' && !strncmp(*e, "HDF5_", 5))) { /* most fail at a byte */
            if (cd_env.n < CD_ENV_MAX) cd_env.kv[cd_env.n++] = *e;
            else cd_env.over = 1;
        }
}

static void cd_env_leave(void) { cd_env.depth--; }

static const char *cd_getenv(const char *name)
{
    if (!cd_env.depth || cd_env.over) return getenv(name);
    const size_t len = strlen(name);
    for (int i = 0; i < cd_env.n; i++)
        if (!strncmp(cd_env.kv[i], name, len) && cd_env.kv[i][len] == '=') return cd_env.kv[i] + len + 1;
    return NULL;
}

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

/* ====================================================================================================
 * 3. layouts
 * ==================================================================================================== */

enum { STORE_CONTIG = 0, STORE_CHUNKED = 1, STORE_COMPACT = 2 };

/* An address a lazy layout does not hold yet: mapping records it, map_resolve replaces it. */
#define CD_ADDR_PENDING ((MPI_Offset)-2)

/* Finds the addresses of n chunks (idx ascending, distinct) into addr (-1: not allocated). 0, or -1
   with the reason in why. Local: it may read the file, never communicate. */
typedef int (*cd_resolve_fn)(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, char *why, size_t wl);

/* The resolved addresses of a lazy layout: open addressing (linear probing, at most half full), keys
   stored + 1 so that 0 is an empty slot, each key beside its address. Bounded (acache_room): a cache,
   not a table.
   The slot keeps neighbours together: a block of ACACHE_RUN consecutive chunk indices hashes to one home
   and keeps its order inside it, so a call's chunks (mostly runs along the fastest dimension) are read
   from consecutive slots rather than one cache miss each (a hash of the index alone scattered them:
   0.5 us a chunk in B4's warm mapping, against 0.15 for a dense layout). Strided indices (a column
   of chunks) still land one per block, spread by the hash. */
#define ACACHE_RUN 16
typedef struct cd_aslot {
    uint64_t key;      /* chunk index + 1; 0: empty */
    MPI_Offset val;
} cd_aslot;
typedef struct cd_acache {
    cd_aslot *s;
    uint64_t cap, n;   /* cap: a power of two >= 64, or 0 */
} cd_acache;

static uint64_t acache_slot(const cd_acache *c, uint64_t idx)
{
    const uint64_t home = (idx / ACACHE_RUN) * 0x9e3779b97f4a7c15ULL >> 7; /* middle bits: the low ones of a product mix poorly */
    return (home * ACACHE_RUN + idx % ACACHE_RUN) & (c->cap - 1);
}

static MPI_Offset acache_get(const cd_acache *c, uint64_t idx)
{
    if (!c || !c->cap) return CD_ADDR_PENDING;
    for (uint64_t s = acache_slot(c, idx);; s = (s + 1) & (c->cap - 1)) {
        if (c->s[s].key == idx + 1) return c->s[s].val;
        if (!c->s[s].key) return CD_ADDR_PENDING;
    }
}

static void acache_clear(cd_acache *c)
{
    cd_free(c->s);
    c->s = NULL;
    c->cap = c->n = 0;
}

static void acache_insert(cd_acache *c, uint64_t key, MPI_Offset a)
{
    uint64_t s = acache_slot(c, key - 1);
    while (c->s[s].key && c->s[s].key != key) s = (s + 1) & (c->cap - 1);
    if (!c->s[s].key) c->n++;
    c->s[s].key = key;
    c->s[s].val = a;
}

/* Room for n more entries. A program whose calls wander over a huge dataset would otherwise grow the
   cache towards the whole index: past max(65,536, 2n) entries (2 MiB of slots) it starts again, so it holds at
   most twice what one call touches plus a constant. -1: no memory (the cache is then empty). */
static int acache_room(cd_acache *c, uint64_t n)
{
    const uint64_t limit = n * 2 > ((uint64_t)1 << 16) ? n * 2 : (uint64_t)1 << 16;
    if (c->n + n > limit) acache_clear(c);
    if (2 * (c->n + n) <= c->cap) return 0;
    uint64_t cap = c->cap ? c->cap : 64;
    while (cap < 2 * (c->n + n)) cap *= 2;
    cd_acache g = {cd_calloc((size_t)cap, sizeof *g.s), cap, 0};
    if (!g.s) { acache_clear(c); return -1; }
    for (uint64_t i = 0; i < c->cap; i++)
        if (c->s[i].key) acache_insert(&g, c->s[i].key, c->s[i].val);
    acache_clear(c);
    *c = g;
    return 0;
}

static void acache_put(cd_acache *c, uint64_t idx, MPI_Offset a) { acache_insert(c, idx + 1, a); }

struct colldiag_layout {
    int storage;
    int rank;
    uint64_t dims[COLLDIAG_MAX_RANK];
    uint64_t nelem;                       /* product of dims */
    size_t esize;
    MPI_Offset addr;                      /* contiguous/compact address, or dense chunk base */
    uint64_t cdims[COLLDIAG_MAX_RANK];    /* chunk dims */
    uint64_t grid[COLLDIAG_MAX_RANK];     /* chunks per dimension */
    uint64_t nchunks;
    uint64_t chunk_elems, chunk_bytes;
    MPI_Offset *addrs;                    /* table, or NULL for dense */
    uint64_t table_hash;                  /* computed once, so agreement checks stay O(1) per call */
    int filtered;
    /* Lazy addresses (the HDF5 bridge): no table; a call's mapping asks the resolver for the chunks it
       touches that the cache does not hold (map_resolve), so work and memory follow touched chunks,
       never the dataset's chunk count. table_hash then names the index (same on every rank). */
    cd_resolve_fn resolve;
    void *rctx;
    void (*rctx_free)(void *);
    struct cd_acache *cache;
};

static int layout_common(const char *fn, int rank, const uint64_t *dims, size_t esize, MPI_Offset addr,
                         colldiag_layout **out, colldiag_layout **made)
{
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    *out = NULL;
    uint64_t prod, bytes;
    int rc = sel_check_dims(fn, rank, dims, &prod);
    if (rc) return rc;
    if (esize == 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "elem_size is 0");
    if (cd_mul(prod, esize, &bytes) || bytes > CD_MAX_OFFSET)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "the dataset's size in bytes overflows (%" PRIu64 " elements of %zu bytes)",
                       prod, esize);
    if (addr < 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "address %lld is negative", (long long)addr);
    colldiag_layout *l = cd_calloc(1, sizeof *l);
    if (!l) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the layout");
    l->rank = rank;
    memcpy(l->dims, dims, (size_t)rank * sizeof *dims);
    l->nelem = prod;
    l->esize = esize;
    l->addr = addr;
    *made = l;
    return 0;
}

static int layout_flat(const char *fn, int storage, int rank, const uint64_t *dims, size_t esize, MPI_Offset addr,
                       colldiag_layout **out)
{
    colldiag_layout *l = NULL;
    int rc = layout_common(fn, rank, dims, esize, addr, out, &l);
    if (rc) return rc;
    uint64_t end;
    if (cd_add((uint64_t)addr, l->nelem * esize, &end) || end > CD_MAX_OFFSET) {
        cd_free(l);
        return cd_fail(COLLDIAG_ERR_ARG, fn, "address + size overflows a file offset");
    }
    l->storage = storage;
    *out = l;
    return 0;
}

int colldiag_layout_contiguous(int rank, const uint64_t *dims, size_t elem_size, MPI_Offset addr, colldiag_layout **out)
{
    return layout_flat("colldiag_layout_contiguous", STORE_CONTIG, rank, dims, elem_size, addr, out);
}

int colldiag_layout_compact(int rank, const uint64_t *dims, size_t elem_size, MPI_Offset addr, colldiag_layout **out)
{
    return layout_flat("colldiag_layout_compact", STORE_COMPACT, rank, dims, elem_size, addr, out);
}

int colldiag_layout_chunked(int rank, const uint64_t *dims, const uint64_t *chunk_dims, size_t elem_size,
                            MPI_Offset base, colldiag_layout **out)
{
    static const char fn[] = "colldiag_layout_chunked";
    colldiag_layout *l = NULL;
    int rc = layout_common(fn, rank, dims, elem_size, base, out, &l);
    if (rc) return rc;
    if (!chunk_dims) { cd_free(l); return cd_fail(COLLDIAG_ERR_ARG, fn, "chunk_dims is NULL"); }
    uint64_t ce = 1, nc = 1, cb, end;
    for (int d = 0; d < rank; d++) {
        if (chunk_dims[d] == 0) { cd_free(l); return cd_fail(COLLDIAG_ERR_ARG, fn, "chunk_dims[%d] is 0", d); }
        l->cdims[d] = chunk_dims[d];
        l->grid[d] = dims[d] / chunk_dims[d] + (dims[d] % chunk_dims[d] != 0);
        if (cd_mul(ce, chunk_dims[d], &ce) || cd_mul(nc, l->grid[d], &nc)) {
            cd_free(l);
            return cd_fail(COLLDIAG_ERR_ARG, fn, "the chunk size or chunk count overflows at dimension %d", d);
        }
    }
    if (cd_mul(ce, elem_size, &cb) || cb > CD_MAX_OFFSET || cd_mul(nc, cb, &end) ||
        cd_add(end, (uint64_t)base, &end) || end > CD_MAX_OFFSET) {
        cd_free(l);
        return cd_fail(COLLDIAG_ERR_ARG, fn, "dense chunk storage (%" PRIu64 " chunks of %" PRIu64
                       " elements) overflows a file offset", nc, ce);
    }
    l->storage = STORE_CHUNKED;
    l->chunk_elems = ce;
    l->chunk_bytes = cb;
    l->nchunks = nc;
    *out = l;
    return 0;
}

int colldiag_layout_set_chunk_addrs(colldiag_layout *l, uint64_t nchunks, const MPI_Offset *addrs)
{
    static const char fn[] = "colldiag_layout_set_chunk_addrs";
    if (!l) return cd_fail(COLLDIAG_ERR_ARG, fn, "l is NULL");
    if (l->storage != STORE_CHUNKED) return cd_fail(COLLDIAG_ERR_ARG, fn, "the layout is not chunked");
    if (nchunks != l->nchunks)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "nchunks = %" PRIu64 " but the chunk grid has %" PRIu64, nchunks, l->nchunks);
    if (!addrs) return cd_fail(COLLDIAG_ERR_ARG, fn, "addrs is NULL");
    if (nchunks > (uint64_t)SIZE_MAX / sizeof(MPI_Offset))
        return cd_fail(COLLDIAG_ERR_NOMEM, fn, "table of %" PRIu64 " addresses", nchunks);
    uint64_t h = 0x7ab1e;
    for (uint64_t i = 0; i < nchunks; i++) {
        if (addrs[i] < -1 || (addrs[i] >= 0 && (uint64_t)addrs[i] > CD_MAX_OFFSET - l->chunk_bytes))
            return cd_fail(COLLDIAG_ERR_ARG, fn, "addrs[%" PRIu64 "] = %lld is not a valid chunk address", i,
                           (long long)addrs[i]);
        h = cd_hash_u64(h, (uint64_t)addrs[i]);
    }
    MPI_Offset *t = cd_malloc((size_t)nchunks * sizeof *t);
    if (!t) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "table of %" PRIu64 " addresses", nchunks);
    memcpy(t, addrs, (size_t)nchunks * sizeof *t);
    cd_free(l->addrs);
    l->addrs = t;
    l->table_hash = h;
    return 0;
}

int colldiag_layout_set_filtered(colldiag_layout *l, int filtered)
{
    static const char fn[] = "colldiag_layout_set_filtered";
    if (!l) return cd_fail(COLLDIAG_ERR_ARG, fn, "l is NULL");
    if (l->storage != STORE_CHUNKED && filtered) return cd_fail(COLLDIAG_ERR_ARG, fn, "only chunked layouts can be filtered");
    l->filtered = filtered != 0;
    return 0;
}

void colldiag_layout_free(colldiag_layout *l)
{
    if (!l) return;
    cd_free(l->addrs);
    if (l->rctx_free) l->rctx_free(l->rctx);
    if (l->cache) acache_clear(l->cache);
    cd_free(l->cache);
    cd_free(l);
}

#ifdef COLLDIAG_WITH_HDF5 /* only the HDF5 bridge makes lazy layouts */
/* Makes a chunked layout lazy: resolve (which owns ctx; ctx_free frees it with the layout) finds the
   addresses a call touches. ident names the index for the agreement: every rank must pass the same. */
static int layout_set_resolver(colldiag_layout *l, cd_resolve_fn resolve, void *ctx, void (*ctx_free)(void *), uint64_t ident)
{
    l->cache = cd_calloc(1, sizeof *l->cache);
    if (!l->cache) return -1;
    cd_free(l->addrs);
    l->addrs = NULL;
    l->resolve = resolve;
    l->rctx = ctx;
    l->rctx_free = ctx_free;
    l->table_hash = cd_hash_u64(0x1a2e5u, ident);
    return 0;
}
#endif

/* Chunk idx's address: the table's, the cache's (CD_ADDR_PENDING when a lazy layout has not resolved
   it yet), or dense storage's. */
static MPI_Offset layout_chunk_addr(const colldiag_layout *l, uint64_t idx)
{
    if (l->addrs) return l->addrs[idx];
    if (l->resolve) return acache_get(l->cache, idx);
    return l->addr + (MPI_Offset)(idx * l->chunk_bytes);
}

/* Elements of chunk idx inside the dataset (edge chunks are clipped). */
static uint64_t chunk_elems_in(const colldiag_layout *l, uint64_t idx)
{
    uint64_t n = 1;
    for (int d = l->rank - 1; d >= 0; d--) {
        uint64_t c = idx % l->grid[d], lo = c * l->cdims[d];
        idx /= l->grid[d];
        n *= l->dims[d] - lo < l->cdims[d] ? l->dims[d] - lo : l->cdims[d];
    }
    return n;
}

/* Digest of everything ranks must agree on about a layout. */
static uint64_t layout_digest(const colldiag_layout *l)
{
    uint64_t h = cd_hash_u64(0x1a70u, (uint64_t)l->storage);
    h = cd_hash_u64(h, (uint64_t)l->rank);
    for (int d = 0; d < l->rank; d++) h = cd_hash_u64(cd_hash_u64(h, l->dims[d]), l->cdims[d]);
    h = cd_hash_u64(h, (uint64_t)l->esize);
    h = cd_hash_u64(h, (uint64_t)l->addr);
    h = cd_hash_u64(h, l->addrs || l->resolve ? l->table_hash : 0);
    return cd_hash_u64(h, (uint64_t)l->filtered);
}

/* ====================================================================================================
 * 4. files
 * ==================================================================================================== */

/* Indices of the agreement vector reduced by cd_agree_op: one reduction decides causes, layout/settings
   agreement, the first failing rank and the chunk counts the schemes need. */
enum {
    AG_CAUSE = 0,      /* BOR */
    AG_LAYOUT,         /* BOR of the layout digest ... */
    AG_LAYOUT_NOT,     /* ... and of its complement: both equal everywhere iff AND of the two is 0 */
    AG_SETTINGS,
    AG_SETTINGS_NOT,
    AG_VIEW,           /* BOR: some rank's wrapped file has a non-default view */
    AG_FAIL,           /* MIN: rank*16 + (-code) of the lowest failing rank, UINT64_MAX if none */
    AG_SUM_CHUNKS,     /* SUM */
    AG_MIN_CHUNKS,     /* MIN */
    AG_MAX_CHUNKS,     /* MAX */
    AG_MAX_BYTES,      /* MAX: bytes a rank moves in the call */
    AG_MAX_PIECE,      /* MAX: bytes of the largest piece of any rank */
    AG_MAX_RUNS,       /* MAX: file runs a rank hands MPI-IO (mapping-time estimate, the AUTO model's input) */
    AG_SUM_RUNS,       /* SUM */
    AG_SUM_PARTIAL,    /* SUM: pieces that do not cover their chunk (the ones other ranks may share) */
    AG_MAX_MRUNS,      /* MAX: memory runs a rank hands MPI unpacked in one collective call (AUTO) */
    AG_MAX_MULTI_NS,   /* MAX: the rank's own part of multi-chunk's estimated time, ns (AUTO) */
    AG_MAX_IND_NS,     /* MAX: the rank's estimated time with independent calls only, ns (AUTO) */
    AG_MAX_END,        /* MAX: end of the storage a rank's collective write touches (0 when not writing) */
    AG_MAX_FSIZE,      /* MAX: the file's size as each rank sees it before a collective write */
    AG_SUM_TOUCH,      /* SUM: bits each rank sets in the touched-chunk map (touch_map) */
    AG_BRIDGE,         /* BOR: HDF5 bridge: 1 = a rank waits only for the dataset's chunk index, 2 = a rank failed otherwise
                          (bits 4-8: see colldiag_xfer's pre_defers and pre_flush_writes) */
    AG_RANK0,          /* BOR, rank 0's alone (agree_env): its COLLDIAG_REPORT kind (bits 0-1), its fetch-call count (bits 2-9) */
    AG_RANK0_BYTES,    /* BOR, rank 0's alone: its fetch byte threshold (COLLDIAG_H5_FETCH_BYTES) */
    AG_ENV,            /* BOR of every rank's digests of those variables (21 bits each) ... */
    AG_ENV_NOT,        /* ... and of their complements: a variable differs somewhere iff its bits of the AND are not 0 */
    AG_TOUCH,          /* BOR: the touched-chunk map, CD_TOUCH_WORDS words from here */
    AG_N = AG_TOUCH + 8 /* 272 bytes in all: see touch_map */
};
#define CD_TOUCH_WORDS (AG_N - AG_TOUCH)

static void cd_agree_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int base = 0; base + AG_N <= *len; base += AG_N) {
        for (int i = 0; i < AG_N; i++) {
            uint64_t x = a[base + i], *y = &b[base + i];
            switch (i) {
            case AG_FAIL: case AG_MIN_CHUNKS: if (x < *y) *y = x; break;
            case AG_MAX_CHUNKS: case AG_MAX_BYTES: case AG_MAX_PIECE: case AG_MAX_RUNS: case AG_MAX_END: case AG_MAX_FSIZE:
            case AG_MAX_MULTI_NS: case AG_MAX_IND_NS: case AG_MAX_MRUNS:
                if (x > *y) *y = x;
                break;
            case AG_SUM_CHUNKS: case AG_SUM_RUNS: case AG_SUM_PARTIAL: case AG_SUM_TOUCH: *y += x; break;
            default: *y |= x; break;
            }
        }
    }
}

struct colldiag_file {
    MPI_Comm comm;       /* private duplicate: colldiag's messages never meet the application's */
    int rank, size;
    int driver;
    MPI_File fh;
    int own_fh;
    int fd;
    MPI_Op op;
    int plan_only;       /* HDF5 bridge: a file to plan on (no data moves, COLLDIAG_REPORT stays silent) */
    int plan_read;       /* HDF5 bridge: the planned call is H5Dread (HDF5 treats filtered reads apart) */
    int bridge;          /* HDF5 bridge: HDF5's own MPI_File (never closed here); the bridge reports, not the core */
    uint64_t size_seen;  /* the largest size this rank has seen the file have (write_extent) */
};

static int cd_mpi_fail(const char *fn, int mpirc, const char *what)
{
    char es[MPI_MAX_ERROR_STRING];
    int n = 0;
    es[0] = 0;
    MPI_Error_string(mpirc, es, &n);
    return cd_fail(COLLDIAG_ERR_MPI, fn, "%s failed: %s", what, es);
}

static int cd_any_fail(MPI_Comm comm, int failed);

/* A file on a duplicate of comm, for colldiag_file_open and _wrap. Collective from the first line: the
   duplicate is made on every rank before anything is checked, and the checks (the caller's own,
   code, then out and memory) are agreed in one reduction, so that one rank's bad argument fails
   every rank (the others with COLLDIAG_ERR_PEER naming it) instead of leaving them in MPI_Comm_dup.
   Only comm itself, which names the ranks, fails at once. 0 and *made, or the error. */
static int file_alloc(const char *fn, MPI_Comm comm, colldiag_file **out, int code, const char *peer_what, colldiag_file **made)
{
    if (out) *out = NULL;
    if (comm == MPI_COMM_NULL) return cd_fail(COLLDIAG_ERR_ARG, fn, "comm is MPI_COMM_NULL");
    MPI_Comm dup = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(comm, &dup);
    if (rc != MPI_SUCCESS) return cd_mpi_fail(fn, rc, "MPI_Comm_dup");
    colldiag_file *f = code ? NULL : cd_calloc(1, sizeof *f);
    if (!code && !out) code = cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    else if (!code && !f) code = cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the file");
    const int first = cd_any_fail(dup, code != 0);
    if (first >= 0) {
        cd_free(f);
        MPI_Comm_free(&dup);
        return code ? code : cd_fail(COLLDIAG_ERR_PEER, fn, "rank %d %s", first, peer_what);
    }
    f->comm = dup;
    MPI_Comm_rank(f->comm, &f->rank);
    MPI_Comm_size(f->comm, &f->size);
    MPI_Op_create(cd_agree_fn, 1, &f->op);
    f->fh = MPI_FILE_NULL;
    f->fd = -1;
    *made = f;
    return 0;
}

static void file_dealloc(colldiag_file *f)
{
    if (f->op != MPI_OP_NULL) MPI_Op_free(&f->op);
    MPI_Comm_free(&f->comm);
    cd_free(f);
}

/* Collective agreement on a local failure: -1 if no rank failed, else the lowest failing rank. */
static int cd_any_fail(MPI_Comm comm, int failed)
{
    int rank, r, first;
    MPI_Comm_rank(comm, &rank);
    r = failed ? rank : INT_MAX;
    MPI_Allreduce(&r, &first, 1, MPI_INT, MPI_MIN, comm);
    return first == INT_MAX ? -1 : first;
}

/* The caller's info plus cb_buffer_size (COLLDIAG_CB_BUFFER_HINT) where the caller set none, as a new
   info the caller frees; MPI_INFO_NULL when nothing is added (the caller's info is used as is). */
static MPI_Info open_hints(MPI_Info info)
{
    MPI_Info out = MPI_INFO_NULL;
    int len = 0, set = 0;
    if (COLLDIAG_CB_BUFFER_HINT == 0) return MPI_INFO_NULL;
    if (info != MPI_INFO_NULL) MPI_Info_get_valuelen(info, "cb_buffer_size", &len, &set);
    if (set) return MPI_INFO_NULL;
    if ((info != MPI_INFO_NULL ? MPI_Info_dup(info, &out) : MPI_Info_create(&out)) != MPI_SUCCESS) return MPI_INFO_NULL;
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, (uint64_t)COLLDIAG_CB_BUFFER_HINT);
    MPI_Info_set(out, "cb_buffer_size", v);
    return out;
}

int colldiag_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, colldiag_driver_t driver,
                       colldiag_file **out)
{
    static const char fn[] = "colldiag_file_open";
    colldiag_file *f = NULL;
    int code = 0;
    if (!path) code = cd_fail(COLLDIAG_ERR_ARG, fn, "path is NULL");
    else if (driver != COLLDIAG_DRIVER_MPIO && driver != COLLDIAG_DRIVER_POSIX)
        code = cd_fail(COLLDIAG_ERR_ARG, fn, "driver = %d is not COLLDIAG_DRIVER_MPIO or COLLDIAG_DRIVER_POSIX", (int)driver);
    /* the argument checks agree before anything else collective starts */
    int rc = file_alloc(fn, comm, out, code, "failed its argument checks", &f);
    if (rc) return rc;
    if (driver == COLLDIAG_DRIVER_MPIO) {
        MPI_Info hint = open_hints(info);
        int mrc = MPI_File_open(f->comm, path, amode, hint != MPI_INFO_NULL ? hint : info, &f->fh);
        if (hint != MPI_INFO_NULL) MPI_Info_free(&hint);
        if (mrc != MPI_SUCCESS) {
            rc = cd_mpi_fail(fn, mrc, "MPI_File_open");
            file_dealloc(f);
            return rc; /* MPI_File_open is collective and fails on every rank together */
        }
        MPI_File_set_errhandler(f->fh, MPI_ERRORS_RETURN);
        f->own_fh = 1;
    } else {
        int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
        int err = 0;
        /* rank 0 creates (honouring EXCL) before the others open, so EXCL means "new file" once */
        if (f->rank == 0) {
            int cf = flags | ((amode & MPI_MODE_CREATE) ? O_CREAT : 0) | ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
            f->fd = open(path, cf, 0666);
            if (f->fd < 0) err = errno;
        }
        MPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
        if (!err && f->rank != 0) {
            f->fd = open(path, flags);
            if (f->fd < 0) err = errno;
        }
        int bad = cd_any_fail(f->comm, err != 0);
        if (bad >= 0) {
            if (err) cd_fail(COLLDIAG_ERR_IO, fn, "open(\"%s\") failed: %s", path, strerror(err));
            else cd_fail(COLLDIAG_ERR_PEER, fn, "rank %d could not open \"%s\"", bad, path);
            if (f->fd >= 0) close(f->fd);
            file_dealloc(f);
            return err ? COLLDIAG_ERR_IO : COLLDIAG_ERR_PEER;
        }
    }
    f->driver = driver;
    *out = f;
    return 0;
}

int colldiag_file_wrap(MPI_Comm comm, MPI_File fh, colldiag_file **out)
{
    static const char fn[] = "colldiag_file_wrap";
    colldiag_file *f = NULL;
    const int code = fh == MPI_FILE_NULL ? cd_fail(COLLDIAG_ERR_ARG, fn, "fh is MPI_FILE_NULL") : 0;
    int rc = file_alloc(fn, comm, out, code, "failed its argument checks (fh or out)", &f);
    if (rc) return rc;
    f->fh = fh;
    f->driver = COLLDIAG_DRIVER_MPIO;
    int mrc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (mrc != MPI_SUCCESS) {
        rc = cd_mpi_fail(fn, mrc, "MPI_File_set_view");
        file_dealloc(f);
        return rc;
    }
    *out = f;
    return 0;
}

int colldiag_file_close(colldiag_file *f)
{
    static const char fn[] = "colldiag_file_close";
    if (!f) return 0;
    if (f->plan_only) { /* the HDF5 bridge's: HDF5 owns the file; the communicator, if any, is ours */
        if (f->op != MPI_OP_NULL) MPI_Op_free(&f->op);
        if (f->comm != MPI_COMM_NULL) MPI_Comm_free(&f->comm);
        cd_free(f);
        return 0;
    }
    int rc = 0;
    if (f->own_fh && f->fh != MPI_FILE_NULL) {
        int mrc = MPI_File_close(&f->fh);
        if (mrc != MPI_SUCCESS) rc = cd_mpi_fail(fn, mrc, "MPI_File_close");
    }
    if (f->fd >= 0 && close(f->fd) != 0) rc = cd_fail(COLLDIAG_ERR_IO, fn, "close failed: %s", strerror(errno));
    if (f->driver == COLLDIAG_DRIVER_POSIX) MPI_Barrier(f->comm); /* every rank's data is out before anyone proceeds */
    file_dealloc(f);
    return rc;
}

/* ====================================================================================================
 * 5. transfer properties
 * ==================================================================================================== */

/* Names of the chunk optimisation settings accepted by COLLDIAG_CHUNK_OPT, indexed by the enum value. */
static const char *const cd_chunk_opt_env[] = {"default", "link", "multi", "atonce", "ind", "multi_no_opt",
                                               "aggregate", "auto"};

typedef struct {
    int mode;                   /* colldiag_xfer_mode_t */
    int chunk_opt;              /* colldiag_chunk_opt_t */
    unsigned num, ratio;
    int coll_opt;
    int opt_types_disabled;     /* env COLLDIAG_MPI_OPT_TYPES / HDF5_MPI_OPT_TYPES starts with 0 */
    unsigned pack_run;          /* env COLLDIAG_PACK_RUN_BYTES (0: never pack); a local choice, not agreed */
    uint64_t coll_buf;          /* collective buffer, bytes >= 1 (env COLLDIAG_COLL_BUFFER); agreed */
    double k[CD_K_N];           /* AUTO's constants (env COLLDIAG_AUTO_*); agreed */
    const char *chunk_opt_src;  /* "setting", "default" or the env text */
    char env_text[96];
} cd_settings;

struct colldiag_xfer {
    cd_settings set;            /* what the code set (env applied per call into a copy) */
    size_t mem_esize;
    colldiag_convert_fn conv;
    void *conv_ctx;
    colldiag_transform_fn xform;
    void *xform_ctx;
    size_t bufsize;
    /* results of the last call */
    int chunk_opt_done, io_mode_done;
    uint32_t local_cause, global_cause;
    colldiag_chunk_info *chunks;          /* materialised on demand from pcs (about 300 bytes a chunk) */
    uint64_t nchunks, chunks_cap, chunks_ready;
    void *pcs;                            /* the last call's cd_piece array (56 bytes a chunk), kept */
    uint64_t data_buf_bytes;              /* most bytes of data copies (packing, aggregation) alive at once in
                                             the last call: what bench subtracts to see the per-chunk cost */
    uint64_t pcs_cap;
    colldiag_counters cnt;
    char reason[256];                     /* read through xfer_reason: AUTO's may not be formatted yet */
    /* AUTO's reason (four estimates as %.3g, ~3 us a call: a twentieth of a small read) is formatted
       when something asks for it (xfer_reason), from auto_est and these; rz_auto 0: reason is final */
    int rz_auto, rz_P, rz_opt;
    uint64_t rz_runs, rz_chunks;
    size_t rz_nsub;                       /* 0: one dataset; else AUTO over rz_nsub datasets */
    char errmsg[1024];
    int grid_rank;                        /* chunk grid of the last call, for the report's map */
    uint64_t grid[COLLDIAG_MAX_RANK];
    unsigned thr;                         /* per-chunk threshold of the last multi/at-once call (0: none) */
    int ratio0;                           /* ratio 0: every chunk collective */
    double auto_est[4];                   /* AUTO's estimates (link, multi, aggregation, all-independent), -1 when not AUTO */
    double model_est[4];                  /* the same model for every collective chunked call, whatever ran; -1 otherwise */
    int planned;                          /* the last call was a plan: the counters are what it would move */
    /* HDF5 bridge (colldiag_h5_write/read), consumed by the next transfer: a rank that found its call
       ineligible (or waits for the chunk index) fails with pre_code in the first reduction, like a bad
       argument, so that every rank leaves before any byte moves; bridge_global is the BOR of AG_BRIDGE.
       A rank waiting for the index also sends the bytes its call moves (pre_bytes, into AG_MAX_BYTES:
       bridge_max_bytes), how many calls HDF5 already ran rather than flush (pre_defers, capped at 15,
       in AG_BRIDGE's bits 4-7) and whether flushing its file may write anything (pre_flush_writes: the
       file is open for writing; AG_BRIDGE's bit 8), so that deciding whether to read the index costs
       no reduction of its own */
    int pre_code, pre_need_index, pre_flush_writes, strict_alloc;
    char pre_msg[512];
    uint64_t bridge_global, pre_bytes, pre_defers, bridge_max_bytes;
    /* What the environment decides for every rank together is rank 0's, carried in the first reduction
       (agree_env): a variable set on some ranks only (mpirun passes a shell's variables to the ranks on
       its own node, not to the others, unless told with -x) must not make some ranks gather a report or
       flush a file while the others do not. env_fetch_*: this rank's thresholds (the bridge sets them
       before its transfer); fetch_* and report_kind: rank 0's, after a collective call's reduction. */
    uint64_t env_fetch_bytes, env_fetch_calls, fetch_bytes, fetch_calls;
    int report_kind;                      /* rank 0's COLLDIAG_REPORT: 0 none (and before any agreement), 1 text, 2 json:, 3 html: */
    /* multi-dataset calls: each dataset's results (NULL after a single call, whose results are the call's) */
    struct cd_dsres *dsr;
    size_t nds, dsr_cap;
    int peer_code;                        /* a multi-dataset call failed with ERR_PEER: the failing rank's code */
};

/* One dataset's results in a multi-dataset call: what a single call of that dataset reports. */
typedef struct cd_dsres {
    int chunk_opt, io_mode;
    uint32_t local_cause, global_cause;
    int grid_rank;                          /* its chunk grid, for the chunk info's coordinates */
    uint64_t grid[COLLDIAG_MAX_RANK];
    uint64_t nchunks;                       /* pieces this rank has in it */
} cd_dsres;

/* A transfer's defaults (HDF5's DXPL defaults), on storage the caller owns: colldiag_xfer_create's, and
   the preload's one transfer per intercepted call, which must not depend on an allocation that could
   fail on one rank (that rank would run HDF5's collective call while the others wait in colldiag's). */
static void xfer_init(colldiag_xfer *x)
{
    memset(x, 0, sizeof *x);
    x->set.mode = COLLDIAG_MPIO_INDEPENDENT;
    x->set.chunk_opt = COLLDIAG_MPIO_CHUNK_DEFAULT;
    x->set.num = 0;      /* HDF5's H5D_ONE_LINK_CHUNK_IO_THRESHOLD default */
    x->set.ratio = 60;   /* HDF5's H5D_MULTI_CHUNK_IO_COL_THRESHOLD default */
    x->set.coll_opt = COLLDIAG_MPIO_COLLECTIVE_IO;
    x->bufsize = CD_DEFAULT_BUFFER;
    x->set.coll_buf = COLLDIAG_COLL_BUFFER_BYTES;
    x->auto_est[0] = x->auto_est[1] = x->auto_est[2] = x->auto_est[3] = -1.0;
    x->model_est[0] = x->model_est[1] = x->model_est[2] = x->model_est[3] = -1.0;
}

/* What a transfer holds from its last call (chunk info, pieces, per-dataset results). */
static void xfer_release(colldiag_xfer *x)
{
    cd_free(x->chunks);
    cd_free(x->pcs);
    cd_free(x->dsr);
    x->chunks = NULL;
    x->pcs = NULL;
    x->dsr = NULL;
}

int colldiag_xfer_create(colldiag_xfer **out)
{
    static const char fn[] = "colldiag_xfer_create";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    colldiag_xfer *x = cd_malloc(sizeof *x);
    if (!x) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the transfer properties");
    xfer_init(x);
    *out = x;
    return 0;
}

void colldiag_xfer_free(colldiag_xfer *x)
{
    if (!x) return;
    xfer_release(x);
    cd_free(x);
}

int colldiag_set_dxpl_mpio(colldiag_xfer *x, colldiag_xfer_mode_t mode)
{
    static const char fn[] = "colldiag_set_dxpl_mpio";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (mode != COLLDIAG_MPIO_INDEPENDENT && mode != COLLDIAG_MPIO_COLLECTIVE)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "mode = %d is not INDEPENDENT (0) or COLLECTIVE (1)", (int)mode);
    x->set.mode = mode;
    return 0;
}

int colldiag_set_dxpl_mpio_collective_opt(colldiag_xfer *x, colldiag_collective_opt_t opt)
{
    static const char fn[] = "colldiag_set_dxpl_mpio_collective_opt";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (opt != COLLDIAG_MPIO_COLLECTIVE_IO && opt != COLLDIAG_MPIO_INDIVIDUAL_IO)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "opt = %d is not COLLECTIVE_IO (0) or INDIVIDUAL_IO (1)", (int)opt);
    x->set.coll_opt = opt;
    return 0;
}

int colldiag_set_dxpl_mpio_chunk_opt(colldiag_xfer *x, colldiag_chunk_opt_t opt)
{
    static const char fn[] = "colldiag_set_dxpl_mpio_chunk_opt";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if ((int)opt < COLLDIAG_MPIO_CHUNK_DEFAULT || (int)opt > COLLDIAG_MPIO_CHUNK_AUTO)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "opt = %d is not a colldiag_chunk_opt_t (0..7)", (int)opt);
    x->set.chunk_opt = opt;
    return 0;
}

int colldiag_set_dxpl_mpio_chunk_opt_num(colldiag_xfer *x, unsigned num)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_set_dxpl_mpio_chunk_opt_num", "x is NULL");
    x->set.num = num;
    return 0;
}

int colldiag_set_dxpl_mpio_chunk_opt_ratio(colldiag_xfer *x, unsigned percent)
{
    static const char fn[] = "colldiag_set_dxpl_mpio_chunk_opt_ratio";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (percent > 100) return cd_fail(COLLDIAG_ERR_ARG, fn, "percent = %u is above 100", percent);
    x->set.ratio = percent;
    return 0;
}

int colldiag_set_type_conversion(colldiag_xfer *x, size_t mem_elem_size, colldiag_convert_fn fn_, void *ctx)
{
    static const char fn[] = "colldiag_set_type_conversion";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (fn_ && mem_elem_size == 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "mem_elem_size is 0");
    x->conv = fn_;
    x->conv_ctx = ctx;
    x->mem_esize = fn_ ? mem_elem_size : 0;
    return 0;
}

int colldiag_set_data_transform(colldiag_xfer *x, colldiag_transform_fn fn_, void *ctx)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_set_data_transform", "x is NULL");
    x->xform = fn_;
    x->xform_ctx = ctx;
    return 0;
}

int colldiag_set_buffer(colldiag_xfer *x, size_t bytes)
{
    static const char fn[] = "colldiag_set_buffer";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (bytes < 64) return cd_fail(COLLDIAG_ERR_ARG, fn, "bytes = %zu is below the minimum of 64", bytes);
    x->bufsize = bytes;
    return 0;
}

int colldiag_set_coll_buffer(colldiag_xfer *x, size_t bytes)
{
    static const char fn[] = "colldiag_set_coll_buffer";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (bytes == 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "bytes = 0: the collective buffer needs at least one byte");
    x->set.coll_buf = bytes;
    return 0;
}

/* "16777216", "16m", "64K", "1G": a byte count >= 1 with an optional binary suffix. */
static int cd_parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    unsigned sh = 0;
    switch (*end) {
    case 'k': case 'K': sh = 10; end++; break;
    case 'm': case 'M': sh = 20; end++; break;
    case 'g': case 'G': sh = 30; end++; break;
    default: break;
    }
    if (*end || v == 0 || v > (UINT64_MAX >> sh)) return -1;
    *out = (uint64_t)v << sh;
    return 0;
}

/* Parses a whole unsigned decimal; -1 if it is not one. */
static int cd_parse_uint(const char *s, unsigned *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > UINT_MAX || *s == '-') return -1;
    *out = (unsigned)v;
    return 0;
}

/* The settings of one call: the code's, overridden by the environment (read at each call). */
static int settings_effective(const char *fn, const colldiag_xfer *x, cd_settings *s)
{
    *s = x->set;
    s->chunk_opt_src = "setting";
    const char *e = cd_getenv("COLLDIAG_CHUNK_OPT");
    if (e && *e) {
        int found = -1;
        for (int i = 0; i < (int)(sizeof cd_chunk_opt_env / sizeof *cd_chunk_opt_env); i++)
            if (!strcmp(e, cd_chunk_opt_env[i])) found = i;
        if (found < 0)
            return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_CHUNK_OPT=\"%.40s\" is not one of "
                           "default|link|multi|atonce|ind|multi_no_opt|aggregate|auto", e);
        s->chunk_opt = found;
        snprintf(s->env_text, sizeof s->env_text, "env COLLDIAG_CHUNK_OPT=%s", e);
        s->chunk_opt_src = s->env_text;
    }
    e = cd_getenv("COLLDIAG_CHUNK_OPT_NUM");
    if (e && *e && cd_parse_uint(e, &s->num))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_CHUNK_OPT_NUM=\"%.40s\" is not an unsigned number", e);
    e = cd_getenv("COLLDIAG_CHUNK_OPT_RATIO");
    if (e && *e && (cd_parse_uint(e, &s->ratio) || s->ratio > 100))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_CHUNK_OPT_RATIO=\"%.40s\" is not a percentage 0..100", e);
    e = cd_getenv("COLLDIAG_MPI_OPT_TYPES");
    if (!e) e = cd_getenv("HDF5_MPI_OPT_TYPES");
    s->opt_types_disabled = e && e[0] == '0';
    s->pack_run = COLLDIAG_PACK_RUN_BYTES;
    e = cd_getenv("COLLDIAG_PACK_RUN_BYTES");
    if (e && *e && cd_parse_uint(e, &s->pack_run))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_PACK_RUN_BYTES=\"%.40s\" is not an unsigned number", e);
    e = cd_getenv("COLLDIAG_COLL_BUFFER");
    if (e && *e && cd_parse_bytes(e, &s->coll_buf))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_COLL_BUFFER=\"%.40s\" is not a byte count >= 1 (suffix k, m or g allowed)", e);
    static const char *const kname[CD_K_N] = {
#define CD_AUTO_NAME(n) "COLLDIAG_AUTO_" #n,
        CD_AUTO_CONSTANTS(CD_AUTO_NAME)
#undef CD_AUTO_NAME
    };
    static const double kdef[CD_K_N] = {
#define CD_AUTO_DEF(n) COLLDIAG_AUTO_##n,
        CD_AUTO_CONSTANTS(CD_AUTO_DEF)
#undef CD_AUTO_DEF
    };
    for (int i = 0; i < CD_K_N; i++) {
        s->k[i] = kdef[i];
        e = cd_getenv(kname[i]);
        if (!e || !*e) continue;
        char *end;
        errno = 0;
        double v = strtod(e, &end);
        if (errno || *end || !(v > 0) || v > 1e30)
            return cd_fail(COLLDIAG_ERR_ARG, fn, "env %s=\"%.40s\" is not a positive number", kname[i], e);
        s->k[i] = v;
    }
    return 0;
}

static uint64_t settings_digest(const cd_settings *s)
{
    uint64_t h = cd_hash_u64(0x5e77u, (uint64_t)s->chunk_opt);
    h = cd_hash_u64(h, s->num);
    h = cd_hash_u64(h, s->ratio);
    h = cd_hash_u64(h, s->coll_buf);
    for (int i = 0; i < CD_K_N; i++) {
        uint64_t bits;
        memcpy(&bits, &s->k[i], sizeof bits);
        h = cd_hash_u64(h, bits);
    }
    return cd_hash_u64(h, (uint64_t)s->coll_opt);
}

/* ====================================================================================================
 * 6. chunk mapping
 *
 * A piece is this rank's part of one chunk (or, contiguous/compact, of the whole dataset). Pieces come
 * out in ascending chunk index, and only chunks the selection touches are ever visited: the span tree
 * is walked level by level, carrying (node, multiplicity) pairs so a regular hyperslab stays one node
 * per level. A piece stores no element list; its runs are regenerated by walking the tree clipped to
 * the chunk when the data moves (cd_walk_piece), so memory is O(touched chunks).
 * ==================================================================================================== */

enum { PF_COLL = 1, PF_IND = 2, PF_UNALLOC = 4, PF_PARTIAL = 8 /* set by coll_call_rounds: the piece does not cover its chunk */ };

typedef struct {
    uint64_t idx;        /* chunk index (0 for contiguous/compact) */
    MPI_Offset addr;     /* chunk or dataset address; -1 unallocated */
    uint64_t nelem;      /* elements of this rank's selection in it */
    uint64_t pt0;        /* points: first entry in the sorted point arrays */
    uint64_t nruns;      /* file runs estimated at mapping time (the AUTO cost model's input) */
    uint64_t mruns;      /* row segments of the piece: its memory runs when memory is packed (AUTO) */
    int nproc;           /* ranks touching the chunk, -1 unknown */
    uint32_t ds;         /* multi-dataset calls: the piece's dataset (0 in single calls) */
    uint64_t abytes;     /* aggregation, on the chunk's owner: the bytes every rank's piece of it holds */
    int owner;           /* aggregation: the rank that moves this chunk's bytes, -1 otherwise */
    int flags;
} cd_piece;

typedef struct { const cd_node *nd; uint64_t w; } cd_nw;
typedef struct { uint64_t a, b; } cd_range;

typedef struct {
    cd_nw *set[COLLDIAG_MAX_RANK + 1];
    uint64_t setn[COLLDIAG_MAX_RANK + 1], setcap[COLLDIAG_MAX_RANK + 1];
    cd_range *rg[COLLDIAG_MAX_RANK];
    uint64_t rgcap[COLLDIAG_MAX_RANK];
} cd_map_scratch;

static void map_scratch_free(cd_map_scratch *sc)
{
    if (!sc) return;
    for (int d = 0; d <= COLLDIAG_MAX_RANK; d++) cd_free(sc->set[d]);
    for (int d = 0; d < COLLDIAG_MAX_RANK; d++) cd_free(sc->rg[d]);
    cd_free(sc);
}

typedef struct {
    cd_piece *pc;
    uint64_t n, cap;
    uint64_t *pt_off;    /* points: element offset inside the chunk (or dataset), sorted per piece */
    uint64_t *pt_k;      /* points: their iteration index */
    cd_map_scratch *sc;  /* the tree mapping's per-level scratch: only while map_build runs (a multi-dataset
                            call keeps n maps; 1.3 KiB of level arrays each would be a per-dataset cost) */
    const colldiag_layout *l;
    int nomem;
} cd_map;

static void map_free(cd_map *m)
{
    cd_free(m->pc);
    cd_free(m->pt_off);
    cd_free(m->pt_k);
    map_scratch_free(m->sc);
    memset(m, 0, sizeof *m);
}

/* Gives back the pieces' spare capacity once the map is built: cd_grow starts at 16 pieces (1 KiB),
   which a multi-dataset call would otherwise pay per dataset of one piece. */
static void map_trim(cd_map *m)
{
    if (m->cap <= m->n || m->n == 0) return;
    void *p = COLLDIAG_REALLOC(m->pc, (size_t)m->n * sizeof *m->pc);
    if (!p) return; /* keeping the larger block is harmless */
    m->pc = p;
    m->cap = m->n;
}

static int map_push(cd_map *m, uint64_t idx, MPI_Offset addr, uint64_t nelem, uint64_t pt0)
{
    if (cd_grow((void **)&m->pc, &m->cap, m->n + 1, sizeof *m->pc)) return -1;
    cd_piece *p = &m->pc[m->n++];
    p->idx = idx;
    p->addr = addr;
    p->nelem = nelem;
    p->pt0 = pt0;
    p->nruns = p->mruns = nelem ? 1 : 0;
    p->nproc = -1;
    p->ds = 0;
    p->owner = -1;
    p->abytes = 0;
    p->flags = addr < 0 ? PF_UNALLOC : 0;
    return 0;
}

/* Elements of nd (one dimension) inside [lo, hi]. */
static uint64_t node_count_in(const cd_node *nd, uint64_t lo, uint64_t hi)
{
    uint64_t c = 0;
    for (uint64_t i = node_find(nd, lo); i < nd->n; i++) {
        cd_span s;
        node_span(nd, i, &s);
        if (s.lo > hi) break;
        uint64_t a = s.lo > lo ? s.lo : lo, b = s.hi < hi ? s.hi : hi;
        c += b - a + 1;
    }
    return c;
}

/* Spans of nd (one dimension) meeting [lo, hi]: the runs one row contributes, for the cost model. */
static uint64_t node_spans_in(const cd_node *nd, uint64_t lo, uint64_t hi)
{
    uint64_t i0 = node_find(nd, lo);
    if (i0 >= nd->n) return 0;
    if (!nd->sp) {
        if (hi < nd->start) return 0;
        uint64_t i1 = (hi - nd->start) / nd->stride;
        if (i1 >= nd->n) i1 = nd->n - 1;
        return i1 >= i0 ? i1 - i0 + 1 : 0;
    }
    uint64_t c = 0;
    for (uint64_t i = i0; i < nd->n && nd->sp[i].lo <= hi; i++) c++;
    return c;
}

static int cmp_range(const void *a, const void *b)
{
    const cd_range *x = a, *y = b;
    return x->a < y->a ? -1 : x->a > y->a;
}

static int map_tree_level(cd_map *m, int d, uint64_t prefix)
{
    const colldiag_layout *l = m->l;
    const uint64_t C = l->cdims[d];
    const cd_nw *set = m->sc->set[d];
    const uint64_t nset = m->sc->setn[d];
    /* chunk coordinates touched at this level, as merged ranges */
    uint64_t nr = 0;
    for (uint64_t j = 0; j < nset; j++) {
        const cd_node *nd = set[j].nd;
        for (uint64_t i = 0; i < nd->n; i++) {
            cd_span s;
            node_span(nd, i, &s);
            uint64_t a = s.lo / C, b = s.hi / C;
            if (nr && m->sc->rg[d][nr - 1].b + 1 >= a && m->sc->rg[d][nr - 1].a <= a) { /* common case: ascending */
                if (b > m->sc->rg[d][nr - 1].b) m->sc->rg[d][nr - 1].b = b;
                continue;
            }
            if (cd_grow((void **)&m->sc->rg[d], &m->sc->rgcap[d], nr + 1, sizeof(cd_range))) return -1;
            m->sc->rg[d][nr].a = a;
            m->sc->rg[d][nr].b = b;
            nr++;
        }
    }
    if (nset > 1 && nr > 1) {
        qsort(m->sc->rg[d], (size_t)nr, sizeof(cd_range), cmp_range);
        uint64_t w = 0;
        for (uint64_t i = 1; i < nr; i++) {
            if (m->sc->rg[d][i].a <= m->sc->rg[d][w].b + 1) {
                if (m->sc->rg[d][i].b > m->sc->rg[d][w].b) m->sc->rg[d][w].b = m->sc->rg[d][i].b;
            } else {
                m->sc->rg[d][++w] = m->sc->rg[d][i];
            }
        }
        nr = w + 1;
    }
    /* the ranges array is reused by deeper levels' siblings only after this loop finishes with it */
    for (uint64_t r = 0; r < nr; r++) {
        const uint64_t ca = m->sc->rg[d][r].a, cb = m->sc->rg[d][r].b;
        for (uint64_t c = ca; c <= cb; c++) {
            uint64_t lo = c * C, hi = lo + C - 1;
            uint64_t idx = prefix * l->grid[d] + c;
            if (d == l->rank - 1) {
                uint64_t ne = 0, nrun = 0, mrun = 0, rows = l->chunk_elems / C; /* chunk rows of the last dimension */
                for (uint64_t j = 0; j < nset; j++) {
                    uint64_t k = node_count_in(set[j].nd, lo, hi), spans = node_spans_in(set[j].nd, lo, hi);
                    ne += set[j].w * k;
                    mrun += set[j].w * spans;
                    /* full-width rows usually lie back to back in the chunk: count them as merged (an
                       estimate for AUTO; partial rows are exact: one run per span per row) */
                    nrun += k == C ? (set[j].w + rows - 1) / rows : set[j].w * spans;
                }
                if (ne && map_push(m, idx, layout_chunk_addr(l, idx), ne, 0)) return -1;
                if (ne) m->pc[m->n - 1].nruns = ne == l->chunk_elems ? 1 : nrun; /* a full chunk is one run */
                if (ne) m->pc[m->n - 1].mruns = mrun;
                continue;
            }
            /* children reached from this chunk slab, with how many coordinates lead to each */
            m->sc->setn[d + 1] = 0;
            for (uint64_t j = 0; j < nset; j++) {
                const cd_node *nd = set[j].nd;
                for (uint64_t i = node_find(nd, lo); i < nd->n; i++) {
                    cd_span s;
                    node_span(nd, i, &s);
                    if (s.lo > hi) break;
                    uint64_t a = s.lo > lo ? s.lo : lo, b = s.hi < hi ? s.hi : hi;
                    uint64_t w = set[j].w * (b - a + 1), k;
                    cd_nw *cs = m->sc->set[d + 1];
                    uint64_t cn = m->sc->setn[d + 1];
                    for (k = cn; k > 0 && cs[k - 1].nd != s.down; k--) {
                        if (cn - k >= 8) { k = 0; break; } /* a short look-back finds shared children */
                    }
                    if (k > 0) { cs[k - 1].w += w; continue; }
                    if (cd_grow((void **)&m->sc->set[d + 1], &m->sc->setcap[d + 1], cn + 1, sizeof(cd_nw))) return -1;
                    m->sc->set[d + 1][cn].nd = s.down;
                    m->sc->set[d + 1][cn].w = w;
                    m->sc->setn[d + 1] = cn + 1;
                }
            }
            if (map_tree_level(m, d + 1, idx)) return -1;
        }
        /* deeper levels may have grown rg[d]'s neighbours but never rg[d] itself */
    }
    return 0;
}

typedef struct { uint64_t chunk, off, k; } cd_ptrec;
static int cmp_ptrec(const void *a, const void *b)
{
    const cd_ptrec *x = a, *y = b;
    if (x->chunk != y->chunk) return x->chunk < y->chunk ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Pieces of a point selection: points sorted by (chunk, offset in chunk) so every file type is
   monotonic, each keeping its iteration index so memory still pairs in the order given. */
static int map_points(cd_map *m, const colldiag_sel *fs)
{
    const colldiag_layout *l = m->l;
    uint64_t n = fs->npts;
    cd_ptrec *r = cd_malloc((size_t)n * sizeof *r);
    if (!r) return -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t off = fs->pts[i], ci = 0, co = 0;
        if (l->storage == STORE_CHUNKED) {
            uint64_t c[COLLDIAG_MAX_RANK];
            for (int d = l->rank - 1; d >= 0; d--) { c[d] = off % l->dims[d]; off /= l->dims[d]; }
            for (int d = 0; d < l->rank; d++) {
                ci = ci * l->grid[d] + c[d] / l->cdims[d];
                co = co * l->cdims[d] + c[d] % l->cdims[d];
            }
        } else {
            co = off;
        }
        r[i].chunk = ci;
        r[i].off = co;
        r[i].k = i;
    }
    qsort(r, (size_t)n, sizeof *r, cmp_ptrec);
    m->pt_off = cd_malloc((size_t)n * sizeof(uint64_t));
    m->pt_k = cd_malloc((size_t)n * sizeof(uint64_t));
    if (!m->pt_off || !m->pt_k) { cd_free(r); return -1; }
    for (uint64_t i = 0; i < n; i++) {
        m->pt_off[i] = r[i].off;
        m->pt_k[i] = r[i].k;
        if (i == 0 || r[i].chunk != r[i - 1].chunk) {
            MPI_Offset a = l->storage == STORE_CHUNKED ? layout_chunk_addr(l, r[i].chunk) : l->addr;
            if (map_push(m, r[i].chunk, a, 0, i)) { cd_free(r); return -1; }
        }
        m->pc[m->n - 1].nelem++;
        m->pc[m->n - 1].nruns = m->pc[m->n - 1].mruns = m->pc[m->n - 1].nelem;
    }
    cd_free(r);
    return 0;
}

/* Builds the pieces of a (validated) file selection. Returns 0 or -1 (out of memory). */
static int map_build(cd_map *m, const colldiag_layout *l, const colldiag_sel *fs)
{
    m->l = l;
    uint64_t np = colldiag_sel_npoints(fs);
    if (np == 0 || fs->space == SPACE_NULL) return 0;
    if (fs->type == SEL_POINTS) return map_points(m, fs);
    if (fs->space == SPACE_SCALAR) /* one element, the dataset's only one */
        return map_push(m, 0, l->storage == STORE_CHUNKED ? layout_chunk_addr(l, 0) : l->addr, 1, 0);
    if (l->storage != STORE_CHUNKED) return map_push(m, 0, l->addr, np, 0);
    m->sc = cd_calloc(1, sizeof *m->sc);
    int rc = !m->sc || cd_grow((void **)&m->sc->set[0], &m->sc->setcap[0], 1, sizeof(cd_nw)) ? -1 : 0;
    if (!rc) {
        m->sc->set[0][0].nd = fs->tree;
        m->sc->set[0][0].w = 1;
        m->sc->setn[0] = 1;
        rc = map_tree_level(m, 0, 0);
    }
    map_scratch_free(m->sc);
    m->sc = NULL;
    return rc;
}

/* A lazy layout's pending addresses (pieces come out of map_build in ascending chunk index, one per
   chunk), found together in one call of its resolver and kept in its cache. 0; -1 with why (the
   resolver's reason, or no memory: *nomem). Local. */
static int map_resolve(cd_map *m, int *nomem, char *why, size_t wl)
{
    const colldiag_layout *l = m->l;
    *nomem = 0;
    if (!l || !l->resolve) return 0;
    uint64_t n = 0;
    for (uint64_t i = 0; i < m->n; i++) n += m->pc[i].addr == CD_ADDR_PENDING;
    if (!n) return 0;
    uint64_t *idx = cd_malloc((size_t)n * sizeof *idx);
    MPI_Offset *got = cd_malloc((size_t)n * sizeof *got);
    int rc = 0;
    if (!idx || !got) {
        *nomem = 1;
        snprintf(why, wl, "no memory for %" PRIu64 " chunk addresses", n);
        rc = -1;
    }
    for (uint64_t i = 0, k = 0; !rc && i < m->n; i++)
        if (m->pc[i].addr == CD_ADDR_PENDING) idx[k++] = m->pc[i].idx;
    if (!rc) rc = l->resolve(l->rctx, n, idx, got, why, wl);
    for (uint64_t i = 0, k = 0; !rc && i < m->n; i++)
        if (m->pc[i].addr == CD_ADDR_PENDING) {
            cd_piece *p = &m->pc[i];
            const MPI_Offset a = got[k++];
            p->addr = a < 0 ? -1 : a;
            p->flags = p->addr < 0 ? (p->flags | PF_UNALLOC) : (p->flags & ~PF_UNALLOC);
        }
    /* no room in the cache costs nothing but a second lookup next call */
    if (!rc && !acache_room(l->cache, n))
        for (uint64_t k = 0; k < n; k++) acache_put(l->cache, idx[k], got[k] < 0 ? -1 : got[k]);
    cd_free(idx);
    cd_free(got);
    return rc;
}

/* --- walking a piece's runs ------------------------------------------------------------------------ */

/* A run: n elements contiguous in the file at byte offset foff, iteration indices k..k+n-1. */
typedef int (*cd_run_fn)(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n);
/* cnt such runs, the c-th at foff + c * fstride with indices from k + c * kstride, in this order: the
   rows of a block in one call, so that a walker who can take them whole (collective calls describing
   a chunk piece) does not pay a call per row. planes such blocks, the p-th at foff + p * fplane and
   k + p * kplane (one, or the planes of a box in a rank >= 3 piece: B4's 8 x 8 x 8 chunks are one
   call each instead of eight, and the walk does not descend into the same two levels eight times). */
typedef int (*cd_srun_fn)(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride,
                          uint64_t planes, MPI_Offset fplane, uint64_t kplane);
/* One plane of such a call, for walkers that take planes one at a time (srun_by_plane). */
typedef int (*cd_srun1_fn)(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride);
static int srun_by_plane(cd_srun1_fn fn, void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride,
                         uint64_t kstride, uint64_t planes, MPI_Offset fplane, uint64_t kplane)
{
    for (uint64_t q = 0; q < planes; q++) {
        int rc = fn(ctx, foff + (MPI_Offset)q * fplane, k + q * kplane, n, cnt, fstride, kstride);
        if (rc) return rc;
    }
    return 0;
}

struct cd_walk;
struct cd_node;
/* A block of nrows rows of the last two dimensions that select the same columns (one span of the row
   dimension, one node below it): the callback may take them whole, walking one row with cd_walk_row
   and repeating it. off is the first row's element offset in the chunk, k its first iteration index;
   row r is at off + r * pitch and k + r * kstride. */
typedef int (*cd_bfn)(void *ctx, const struct cd_walk *w, const struct cd_node *down, uint64_t off, uint64_t k,
                      uint64_t nrows, uint64_t pitch, uint64_t kstride);

typedef struct cd_walk {
    int rank;
    uint64_t lo[COLLDIAG_MAX_RANK], hi[COLLDIAG_MAX_RANK], pitch[COLLDIAG_MAX_RANK];
    MPI_Offset base;
    size_t esize;
    cd_run_fn fn;
    cd_srun_fn sfn; /* optional */
    cd_bfn bfn;     /* optional */
    void *ctx;
} cd_walk;

/* The one span of the last dimension's node nd inside [lo, hi], if there is exactly one: then every row
   of a block contributes the same run. Returns 1 (one span, in *t), 0 (none) or 2 (several). */
static int last_dim_single_span(const cd_node *nd, uint64_t lo, uint64_t hi, cd_span *t)
{
    uint64_t j = node_find(nd, lo);
    if (j >= nd->n) return 0;
    node_span(nd, j, t);
    if (t->lo > hi) return 0;
    if (j + 1 < nd->n) {
        cd_span u;
        node_span(nd, j + 1, &u);
        if (u.lo <= hi) return 2;
    }
    return 1;
}

static int walk_node(const cd_walk *w, const cd_node *nd, int d, uint64_t off, uint64_t k)
{
    for (uint64_t i = node_find(nd, w->lo[d]); i < nd->n; i++) {
        cd_span s;
        node_span(nd, i, &s);
        if (s.lo > w->hi[d]) break;
        uint64_t a = s.lo > w->lo[d] ? s.lo : w->lo[d], b = s.hi < w->hi[d] ? s.hi : w->hi[d];
        if (d == w->rank - 1) {
            int rc = w->fn(w->ctx, w->base + (MPI_Offset)((off + a - w->lo[d]) * w->esize), k + s.kbase + (a - s.lo),
                           b - a + 1);
            if (rc) return rc;
            continue;
        }
        uint64_t npd = CD_NP(s.down);
        if (w->sfn && d == w->rank - 2) {
            cd_span t;
            int one = last_dim_single_span(s.down, w->lo[d + 1], w->hi[d + 1], &t);
            if (one == 0) continue;
            if (one == 1) {
                uint64_t a2 = t.lo > w->lo[d + 1] ? t.lo : w->lo[d + 1], b2 = t.hi < w->hi[d + 1] ? t.hi : w->hi[d + 1];
                uint64_t f0 = off + (a - w->lo[d]) * w->pitch[d] + (a2 - w->lo[d + 1]);
                int rc = w->sfn(w->ctx, w->base + (MPI_Offset)(f0 * w->esize), k + s.kbase + (a - s.lo) * npd + t.kbase + (a2 - t.lo),
                                b2 - a2 + 1, b - a + 1, (MPI_Offset)(w->pitch[d] * w->esize), npd, 1, 0, 0);
                if (rc) return rc;
                continue;
            }
        }
        if (w->sfn && d == w->rank - 3) {
            /* planes a..b of a box: one span of rows below, one span of columns below that, the same
               for every plane (they share s.down), so the planes go as one call */
            cd_span t1, t2;
            int one = last_dim_single_span(s.down, w->lo[d + 1], w->hi[d + 1], &t1);
            if (one == 0) continue;
            if (one == 1) one = last_dim_single_span(t1.down, w->lo[d + 2], w->hi[d + 2], &t2);
            if (one == 0) continue;
            if (one == 1) {
                const uint64_t a1 = t1.lo > w->lo[d + 1] ? t1.lo : w->lo[d + 1], b1 = t1.hi < w->hi[d + 1] ? t1.hi : w->hi[d + 1];
                const uint64_t a2 = t2.lo > w->lo[d + 2] ? t2.lo : w->lo[d + 2], b2 = t2.hi < w->hi[d + 2] ? t2.hi : w->hi[d + 2];
                const uint64_t npr = CD_NP(t1.down); /* points of one row */
                const uint64_t f0 = off + (a - w->lo[d]) * w->pitch[d] + (a1 - w->lo[d + 1]) * w->pitch[d + 1] + (a2 - w->lo[d + 2]);
                const uint64_t k0 = k + s.kbase + (a - s.lo) * npd + t1.kbase + (a1 - t1.lo) * npr + t2.kbase + (a2 - t2.lo);
                int rc = w->sfn(w->ctx, w->base + (MPI_Offset)(f0 * w->esize), k0, b2 - a2 + 1, b1 - a1 + 1,
                                (MPI_Offset)(w->pitch[d + 1] * w->esize), npr, b - a + 1, (MPI_Offset)(w->pitch[d] * w->esize), npd);
                if (rc) return rc;
                continue;
            }
        }
        if (w->bfn && d == w->rank - 2 && b > a) {
            int rc = w->bfn(w->ctx, w, s.down, off + (a - w->lo[d]) * w->pitch[d], k + s.kbase + (a - s.lo) * npd, b - a + 1,
                            w->pitch[d], npd);
            if (rc) return rc;
            continue;
        }
        for (uint64_t x = a; x <= b; x++) {
            int rc = walk_node(w, s.down, d + 1, off + (x - w->lo[d]) * w->pitch[d], k + s.kbase + (x - s.lo) * npd);
            if (rc) return rc;
        }
    }
    return 0;
}

/* One row of a block given to a cd_bfn, run by run through w->fn. */
static int cd_walk_row(const cd_walk *w, const cd_node *down, uint64_t off, uint64_t k)
{
    cd_walk one = *w;
    one.bfn = NULL;
    one.sfn = NULL;
    return walk_node(&one, down, w->rank - 1, off, k);
}

/* Emits the runs of piece p in ascending file offset; blocks of rows through sfn (rows of one span)
   or bfn (rows of the same spans) when they are given. */
static int cd_walk_piece_blocks(const cd_map *m, const colldiag_sel *fs, const cd_piece *p, cd_run_fn fn, cd_srun_fn sfn,
                                cd_bfn bfn, void *ctx)
{
    const colldiag_layout *l = m->l;
    if (fs->type == SEL_POINTS) {
        for (uint64_t j = p->pt0; j < p->pt0 + p->nelem; j++) {
            int rc = fn(ctx, p->addr + (MPI_Offset)(m->pt_off[j] * l->esize), m->pt_k[j], 1);
            if (rc) return rc;
        }
        return 0;
    }
    if (fs->space == SPACE_SCALAR) return fn(ctx, p->addr, 0, 1);
    cd_walk w;
    w.rank = l->rank;
    w.base = p->addr;
    w.esize = l->esize;
    w.fn = fn;
    w.sfn = sfn;
    w.bfn = bfn;
    w.ctx = ctx;
    if (l->storage == STORE_CHUNKED) {
        uint64_t idx = p->idx, c[COLLDIAG_MAX_RANK];
        for (int d = l->rank - 1; d >= 0; d--) { c[d] = idx % l->grid[d]; idx /= l->grid[d]; }
        uint64_t pitch = 1;
        for (int d = l->rank - 1; d >= 0; d--) {
            w.lo[d] = c[d] * l->cdims[d];
            w.hi[d] = w.lo[d] + l->cdims[d] - 1;
            w.pitch[d] = pitch;
            pitch *= l->cdims[d];
        }
    } else {
        uint64_t pitch = 1;
        for (int d = l->rank - 1; d >= 0; d--) {
            w.lo[d] = 0;
            w.hi[d] = l->dims[d] - 1;
            w.pitch[d] = pitch;
            pitch *= l->dims[d];
        }
    }
    return walk_node(&w, fs->tree, 0, 0, 0);
}
static int cd_walk_piece_rows(const cd_map *m, const colldiag_sel *fs, const cd_piece *p, cd_run_fn fn, cd_srun_fn sfn, void *ctx)
{
    return cd_walk_piece_blocks(m, fs, p, fn, sfn, NULL, ctx);
}
static int cd_walk_piece(const cd_map *m, const colldiag_sel *fs, const cd_piece *p, cd_run_fn fn, void *ctx)
{
    return cd_walk_piece_blocks(m, fs, p, fn, NULL, NULL, ctx);
}

/* --- memory side: iteration indices to memory element offsets ------------------------------------- */

typedef int (*cd_mrun_fn)(void *ctx, uint64_t moff, uint64_t n);

/* Memory runs (element offsets in the memory space) holding iteration indices k..k+n-1. */
static int cd_mem_runs(const colldiag_sel *ms, uint64_t k, uint64_t n, cd_mrun_fn fn, void *ctx)
{
    if (!ms) return fn(ctx, k, n); /* packed buffer */
    if (ms->type == SEL_POINTS) {
        for (uint64_t i = 0; i < n; i++) {
            int rc = fn(ctx, ms->pts[k + i], 1);
            if (rc) return rc;
        }
        return 0;
    }
    if (ms->space == SPACE_SCALAR) return fn(ctx, 0, n);
    uint64_t pitch[COLLDIAG_MAX_RANK], p = 1;
    for (int d = ms->rank - 1; d >= 0; d--) { pitch[d] = p; p *= ms->dims[d]; }
    while (n > 0) {
        const cd_node *nd = ms->tree;
        uint64_t kk = k, off = 0, rem = 0;
        for (int d = 0; d < ms->rank; d++) {
            cd_span s;
            node_span(nd, node_find_k(nd, kk), &s);
            uint64_t npd = CD_NP(s.down), x = s.lo + (kk - s.kbase) / npd;
            kk -= s.kbase + (x - s.lo) * npd;
            off += x * pitch[d];
            if (d == ms->rank - 1) rem = s.hi - x + 1;
            nd = s.down;
        }
        uint64_t t = rem < n ? rem : n;
        int rc = fn(ctx, off, t);
        if (rc) return rc;
        k += t;
        n -= t;
    }
    return 0;
}

/* ====================================================================================================
 * 8. datatypes
 *
 * Runs arrive in the order data must flow. A stream compresses them online into items: an item is a
 * contiguous block of len bytes repeated through up to CD_MAXD levels of (count, stride). Runs of equal
 * length at equal spacing become a vector, equal vectors at equal spacing a vector of vectors, and so
 * on, so a regular selection of any number of chunks becomes a handful of items, and one MPI type is
 * built per distinct item shape (never one per chunk). Any run sequence stays exact: what does not
 * compress stays a separate item.
 * ==================================================================================================== */

typedef struct {
    int64_t off;                 /* bytes */
    uint64_t len;                /* contiguous bytes */
    int depth;
    uint64_t cnt[CD_MAXD];
    int64_t str[CD_MAXD];
} cd_item;

typedef struct {
    cd_item *it;
    uint64_t n, cap;
    uint64_t bytes;
    int nomem;                   /* out of memory, or an MPI type failed while flushing */
    /* Bounded description (flush_at > 0, a power of two): when flush_at items are held, all but the
       last (which later runs may still extend) become one MPI type in sub, and flush_at types in sub
       become one. colldiag then holds at most flush_at items and flush_at types whatever the number of
       runs; MPI keeps the description inside its types. Irregular runs (single elements whose starts
       move from row to row) otherwise cost ~120 B of items each, far beyond the collective buffer. */
    uint64_t flush_at;
    MPI_Datatype *sub;
    uint64_t nsub;
    uint64_t ntb;                /* MPI types built while flushing (for the types_built counter) */
} cd_stream;

static int items_type(const cd_item *its, uint64_t n, MPI_Datatype *out, uint64_t *ntypes_built);

static int item_inner_equal(const cd_item *a, const cd_item *b, int depth)
{
    if (a->len != b->len) return 0;
    for (int i = 0; i < depth; i++)
        if (a->cnt[i] != b->cnt[i] || a->str[i] != b->str[i]) return 0;
    return 1;
}

/* Tries to absorb X (which follows T in the stream) into T. */
static int item_absorb(cd_item *T, const cd_item *X)
{
    if (T->depth == 0 && X->depth == 0 && X->off == T->off + (int64_t)T->len) {
        T->len += X->len;
        return 1;
    }
    if (T->depth == X->depth + 1 && item_inner_equal(T, X, X->depth)) {
        int top = T->depth - 1;
        if (T->cnt[top] < CD_MAX_INT_COUNT && X->off == T->off + (int64_t)T->cnt[top] * T->str[top]) {
            T->cnt[top]++;
            return 1;
        }
        return 0;
    }
    if (T->depth == X->depth && T->depth > 0) { /* X continues T's outermost repetition: one longer item */
        int top = T->depth - 1;
        if (item_inner_equal(T, X, top) && T->str[top] == X->str[top] && X->off == T->off + (int64_t)T->cnt[top] * T->str[top] &&
            T->cnt[top] + X->cnt[top] <= CD_MAX_INT_COUNT) {
            T->cnt[top] += X->cnt[top];
            return 1;
        }
    }
    /* A new repetition level only for a positive stride: Open MPI 4.1's datatype engine packs
       hvector(2, 1, -1) of one byte as the two bytes from the start upwards (a descending 1-byte pair
       read as contiguous: silent wrong data, tests/mpi_negative_stride.c), and descending runs are rare
       enough (points given in reverse) to stay separate items. */
    if (T->depth == X->depth && T->depth < CD_MAXD && X->off > T->off && item_inner_equal(T, X, T->depth)) {
        T->cnt[T->depth] = 2;
        T->str[T->depth] = X->off - T->off;
        T->depth++;
        return 1;
    }
    return 0;
}

/* Types in order, concatenated: one struct at displacement 0 each (their displacements are absolute). */
static int types_concat(MPI_Datatype *ty, uint64_t n, MPI_Datatype *out)
{
    if (n == 1) { *out = ty[0]; return MPI_SUCCESS; }
    int *bl = cd_calloc((size_t)n, sizeof *bl);
    MPI_Aint *dp = cd_calloc((size_t)n, sizeof *dp);
    int rc = MPI_ERR_NO_MEM;
    if (bl && dp) {
        for (uint64_t i = 0; i < n; i++) bl[i] = 1;
        rc = MPI_Type_create_struct((int)n, bl, dp, ty, out);
    }
    for (uint64_t i = 0; i < n; i++) MPI_Type_free(&ty[i]);
    cd_free(bl);
    cd_free(dp);
    return rc;
}

/* Bounded description: every item but the last into one MPI type (see cd_stream). */
static void stream_flush(cd_stream *s)
{
    if (s->n < 2 || s->nomem) return;
    if (!s->sub && !(s->sub = cd_malloc((size_t)s->flush_at * sizeof *s->sub))) { s->nomem = 1; return; }
    if (s->nsub == s->flush_at) {
        MPI_Datatype t;
        if (types_concat(s->sub, s->nsub, &t)) { s->nsub = 0; s->nomem = 1; return; }
        s->sub[0] = t;
        s->nsub = 1;
    }
    if (items_type(s->it, s->n - 1, &s->sub[s->nsub], &s->ntb)) { s->nomem = 1; return; }
    s->nsub++;
    s->it[0] = s->it[s->n - 1];
    s->n = 1;
}

/* Appends the run block [off, +len) repeated cnt times stride apart (cnt 1: a plain run) and lets the
   stream's tail absorb it. */
static void stream_push(cd_stream *s, int64_t off, uint64_t len, uint64_t cnt, int64_t stride)
{
    s->bytes += len * cnt;
    if (cnt == 1 && s->n && s->it[s->n - 1].depth == 0 && s->it[s->n - 1].off + (int64_t)s->it[s->n - 1].len == off) {
        s->it[s->n - 1].len += len; /* the common case, without building an item */
    } else {
        if (s->flush_at && s->n + 1 > s->flush_at) stream_flush(s);
        if (cd_grow((void **)&s->it, &s->cap, s->n + 1, sizeof(cd_item))) { s->nomem = 1; return; }
        cd_item *x = &s->it[s->n++];
        x->off = off;
        x->len = len;
        x->depth = cnt > 1;
        x->cnt[0] = cnt;
        x->str[0] = stride;
    }
    while (s->n >= 2 && item_absorb(&s->it[s->n - 2], &s->it[s->n - 1])) s->n--;
}

static void stream_add(cd_stream *s, int64_t off, uint64_t len)
{
    if (len == 0 || s->nomem) return;
    stream_push(s, off, len, 1, 0);
}

/* cnt runs of len bytes, stride bytes apart: one item instead of cnt additions. */
static void stream_add_strided(cd_stream *s, int64_t off, uint64_t len, uint64_t cnt, int64_t stride)
{
    if (cnt == 1 || stride == (int64_t)len) {
        stream_add(s, off, len * cnt);
        return;
    }
    if (len == 0 || s->nomem) return;
    if (cnt > CD_MAX_INT_COUNT || stride <= 0) {
        for (uint64_t c = 0; c < cnt; c++) stream_add(s, off + (int64_t)c * stride, len);
        return;
    }
    stream_push(s, off, len, cnt, stride);
}

static void stream_free(cd_stream *s)
{
    for (uint64_t i = 0; i < s->nsub; i++) MPI_Type_free(&s->sub[i]);
    cd_free(s->sub);
    cd_free(s->it);
    memset(s, 0, sizeof *s);
}

/* A type of len contiguous bytes, whatever len (split in 1 GiB blocks beyond INT_MAX). */
static int type_bytes(uint64_t len, MPI_Datatype *t)
{
    if (len <= CD_MAX_INT_COUNT) return MPI_Type_contiguous((int)len, MPI_BYTE, t);
    MPI_Datatype blk, many, rest;
    uint64_t q = len / CD_BIG_BLOCK, r = len % CD_BIG_BLOCK;
    if (q > CD_MAX_INT_COUNT) return MPI_ERR_COUNT;
    int rc = MPI_Type_contiguous((int)CD_BIG_BLOCK, MPI_BYTE, &blk);
    if (rc) return rc;
    rc = MPI_Type_contiguous((int)q, blk, &many);
    MPI_Type_free(&blk);
    if (rc || r == 0) { *t = many; return rc; }
    rc = MPI_Type_contiguous((int)r, MPI_BYTE, &rest);
    if (rc) { MPI_Type_free(&many); return rc; }
    int bl[2] = {1, 1};
    MPI_Aint dp[2] = {0, (MPI_Aint)(q * CD_BIG_BLOCK)};
    MPI_Datatype ty[2] = {many, rest};
    rc = MPI_Type_create_struct(2, bl, dp, ty, t);
    MPI_Type_free(&many);
    MPI_Type_free(&rest);
    return rc;
}

typedef struct {
    cd_item shape;   /* off ignored */
    MPI_Datatype t;
} cd_tcache_ent;

static int item_type(const cd_item *it, MPI_Datatype *out)
{
    MPI_Datatype t;
    int rc = type_bytes(it->len, &t);
    if (rc) return rc;
    for (int i = 0; i < it->depth; i++) {
        MPI_Datatype v;
        rc = MPI_Type_create_hvector((int)it->cnt[i], 1, (MPI_Aint)it->str[i], t, &v);
        MPI_Type_free(&t);
        if (rc) return rc;
        t = v;
    }
    *out = t;
    return 0;
}

/* One type for n items (displacements absolute from 0), not committed. *ntypes_built counts the MPI
   types created for item shapes (one per distinct shape, never one per chunk). */
static int items_type(const cd_item *its, uint64_t n_items, MPI_Datatype *out, uint64_t *ntypes_built)
{
    *out = MPI_DATATYPE_NULL;
    if (n_items > CD_MAX_INT_COUNT) return MPI_ERR_COUNT;
    cd_tcache_ent *tc = NULL;
    uint64_t ntc = 0, tcap = 0;
    int n = (int)n_items, rc = 0;
    int *bl = cd_malloc((size_t)n * sizeof *bl);
    MPI_Aint *dp = cd_malloc((size_t)n * sizeof *dp);
    MPI_Datatype *ty = cd_malloc((size_t)n * sizeof *ty);
    if (!bl || !dp || !ty) { rc = MPI_ERR_NO_MEM; goto done; }
    for (int i = 0; i < n && !rc; i++) {
        const cd_item *it = &its[i];
        uint64_t j;
        /* items of one stream repeat few shapes; look back over the distinct ones */
        for (j = 0; j < ntc; j++)
            if (tc[j].shape.depth == it->depth && item_inner_equal(&tc[j].shape, it, it->depth)) break;
        if (j == ntc) {
            if (cd_grow((void **)&tc, &tcap, ntc + 1, sizeof *tc)) { rc = MPI_ERR_NO_MEM; break; }
            tc[ntc].shape = *it;
            rc = item_type(it, &tc[ntc].t);
            if (rc) break;
            ntc++;
            if (ntypes_built) (*ntypes_built)++;
        }
        bl[i] = 1;
        dp[i] = (MPI_Aint)it->off;
        ty[i] = tc[j].t;
    }
    if (!rc) {
        int same = 1;
        for (int i = 1; i < n && same; i++) same = ty[i] == ty[0];
        if (same) rc = MPI_Type_create_hindexed_block(n, 1, dp, ty[0], out);
        else rc = MPI_Type_create_struct(n, bl, dp, ty, out);
    }
done:
    for (uint64_t j = 0; j < ntc; j++) MPI_Type_free(&tc[j].t);
    cd_free(tc);
    cd_free(bl);
    cd_free(dp);
    cd_free(ty);
    return rc;
}

/* One committed type for the whole stream: the flushed types, then the items still held. */
static int stream_type(const cd_stream *s, MPI_Datatype *out, uint64_t *ntypes_built)
{
    *out = MPI_DATATYPE_NULL;
    if (ntypes_built) *ntypes_built += s->ntb;
    MPI_Datatype rest = MPI_DATATYPE_NULL;
    int rc = s->n ? items_type(s->it, s->n, &rest, ntypes_built) : MPI_SUCCESS;
    if (rc) return rc;
    if (s->nsub == 0) {
        *out = rest;
    } else {
        MPI_Datatype *all = cd_malloc((size_t)(s->nsub + 1) * sizeof *all);
        if (!all) rc = MPI_ERR_NO_MEM;
        for (uint64_t i = 0; !rc && i < s->nsub; i++) rc = MPI_Type_dup(s->sub[i], &all[i]); /* the stream keeps its own */
        if (!rc) {
            uint64_t k = s->nsub;
            if (rest != MPI_DATATYPE_NULL) { all[k++] = rest; rest = MPI_DATATYPE_NULL; }
            rc = types_concat(all, k, out);
        }
        cd_free(all);
        if (rest != MPI_DATATYPE_NULL) MPI_Type_free(&rest);
    }
    if (!rc && *out != MPI_DATATYPE_NULL) rc = MPI_Type_commit(out);
    return rc;
}

/* ====================================================================================================
 * 7. decision and 9. execution share one per-call context
 * ==================================================================================================== */

enum { DIR_WRITE = 0, DIR_READ = 1, DIR_PLAN = 2 };

#define CD_MSG_CAP sizeof cd_errbuf
typedef struct cd_io cd_io;
struct cd_io {
    const char *fn;
    colldiag_file *f;
    const colldiag_layout *l;
    const colldiag_sel *fs, *ms;
    const void *wbuf;
    void *rbuf;
    colldiag_xfer *x;
    cd_settings set;
    int dir;
    size_t fes, mes;          /* file and memory element sizes */
    cd_map map;
    uint64_t *order;          /* piece indices in ascending address (NULL: index order is address order) */
    int code;                 /* first local error */
    char *msg;                /* its message, CD_MSG_CAP bytes, written once: the caller's buffer (a multi-dataset
                                 call's datasets share one, so a context costs no 1 KiB per dataset) */
    uint64_t g[AG_N];         /* the agreed vector */
    int disjoint;             /* agreed: no chunk is touched by two ranks (touch_map) */
    uint64_t types_built;
    int keep_pieces;          /* hand map.pc to the xfer at the end (the chunk info's source) */
    int prefail;              /* the code is the HDF5 bridge's pre_code: 2 when it only waits for the chunk index */
    /* multi-dataset calls (colldiag_write_multi): the call's context holds one context per dataset in
       sub (each a complete single-dataset context with its own map); a scheme that moves several
       datasets in one collective call runs on the call's context over a map of copies of their pieces
       (cd_piece.ds), switching l, fs, ms, the buffers and element sizes to the piece's dataset before
       walking it (io_use). Single calls: sub NULL, and every helper below is a no-op. */
    cd_io *sub;
    size_t nsub;
    int64_t mbase;            /* added to memory offsets: the current dataset's buffer's address when a multi-dataset
                                 call's context walks it (its memory type is then relative to MPI_BOTTOM); else 0 */
    int64_t buf_addr;         /* subs: their buffer's address (MPI_Get_address), for the call's context */
    size_t fes_max, fes_min;  /* element sizes over the call's datasets (single: fes) */
    int merged;               /* subs: this dataset's pieces are in the call's merged map */
    int fail_shift;           /* AG_FAIL holds ((rank << fail_shift) | dataset) * 16 + code (0: single) */
};

/* The dataset context a piece belongs to (the call's own in a single call). */
static const cd_map *piece_map(const cd_io *io, const cd_piece *p) { return io->sub ? &io->sub[p->ds].map : &io->map; }
static size_t piece_fes(const cd_io *io, const cd_piece *p) { return io->sub ? io->sub[p->ds].fes : io->fes; }
static const colldiag_layout *piece_layout(const cd_io *io, const cd_piece *p) { return io->sub ? io->sub[p->ds].l : io->l; }

/* Multi-dataset calls: makes the call's context describe the piece's dataset (selections, buffers,
   element sizes), so that the walkers' callbacks, which read them from the context, need no change. */
static void io_use(cd_io *io, const cd_piece *p)
{
    if (!io->sub) return;
    const cd_io *s = &io->sub[p->ds];
    io->l = s->l;
    io->fs = s->fs;
    io->ms = s->ms;
    io->wbuf = s->wbuf;
    io->rbuf = s->rbuf;
    io->fes = s->fes;
    io->mes = s->mes;
    io->mbase = s->buf_addr;
}

/* Records the first local error of this call (message kept for the xfer and the thread). */
static int io_fail(cd_io *io, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int io_fail(cd_io *io, int code, const char *fmt, ...)
{
    if (io->code) return io->code;
    char m[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    cd_fail(code, io->fn, "%s", m);
    if (!io->msg[0]) snprintf(io->msg, CD_MSG_CAP, "%s", cd_errbuf); /* shared by datasets: the first failure's stays */
    io->code = code;
    return code;
}

/* Fault injection for the error-agreement tests, compiled only with -DCOLLDIAG_TESTING:
   env COLLDIAG_INJECT=PHASE:RANK makes RANK fail in PHASE (map, exchange, types, io). */
#ifdef COLLDIAG_TESTING
static int cd_inject(const cd_io *io, const char *phase)
{
    const char *e = cd_getenv("COLLDIAG_INJECT");
    char p[32];
    int r;
    if (!e || sscanf(e, "%31[^:]:%d", p, &r) != 2) return 0;
    return !strcmp(p, phase) && r == io->f->rank;
}
#else
#define cd_inject(io, phase) 0
#endif

/* --- argument checks (local, pure) --- */

static int sel_dims_match(const colldiag_sel *s, const colldiag_layout *l)
{
    if (s->space == SPACE_NULL) return 1;
    if (s->space == SPACE_SCALAR) return l->nelem == 1;
    if (s->rank != l->rank) return 0;
    for (int d = 0; d < l->rank; d++)
        if (s->dims[d] != l->dims[d]) return 0;
    return 1;
}

static int check_args(cd_io *io)
{
    const colldiag_layout *l = io->l;
    const colldiag_sel *fs = io->fs, *ms = io->ms;
    if (!l) return io_fail(io, COLLDIAG_ERR_ARG, "layout l is NULL");
    if (!fs) return io_fail(io, COLLDIAG_ERR_ARG, "file_sel is NULL");
    if (!sel_dims_match(fs, l)) {
        if (fs->space == SPACE_SCALAR)
            return io_fail(io, COLLDIAG_ERR_ARG, "file_sel is scalar but the layout has %" PRIu64 " elements", l->nelem);
        char a[256], b[256];
        int wa = 0, wb = 0;
        for (int d = 0; d < fs->rank && wa < 200; d++) wa += snprintf(a + wa, sizeof a - (size_t)wa, "%s%" PRIu64, d ? "x" : "", fs->dims[d]);
        for (int d = 0; d < l->rank && wb < 200; d++) wb += snprintf(b + wb, sizeof b - (size_t)wb, "%s%" PRIu64, d ? "x" : "", l->dims[d]);
        return io_fail(io, COLLDIAG_ERR_ARG, "file_sel dims %s (rank %d) differ from the layout's %s (rank %d)", a,
                       fs->rank, b, l->rank);
    }
    uint64_t nf = colldiag_sel_npoints(fs);
    if (ms) {
        uint64_t nm = colldiag_sel_npoints(ms);
        if (fs->space != SPACE_NULL && ms->space != SPACE_NULL && nm != nf)
            return io_fail(io, COLLDIAG_ERR_ARG, "mem_sel selects %" PRIu64 " elements but file_sel selects %" PRIu64, nm, nf);
    }
    if (io->x->conv && io->x->mem_esize == 0) return io_fail(io, COLLDIAG_ERR_ARG, "conversion without a memory element size");
    if (io->dir != DIR_PLAN && nf > 0 && fs->space != SPACE_NULL && !(ms && ms->space == SPACE_NULL)) {
        if (io->dir == DIR_WRITE && !io->wbuf) return io_fail(io, COLLDIAG_ERR_ARG, "buf is NULL but %" PRIu64 " elements are selected", nf);
        if (io->dir == DIR_READ && !io->rbuf) return io_fail(io, COLLDIAG_ERR_ARG, "buf is NULL but %" PRIu64 " elements are selected", nf);
    }
    uint64_t tb;
    if (cd_mul(nf, io->mes, &tb) || tb > CD_MAX_OFFSET || (ms && cd_mul(ms->nelem_space, io->mes, &tb)) || tb > CD_MAX_OFFSET)
        return io_fail(io, COLLDIAG_ERR_ARG, "the memory buffer's size in bytes overflows");
    /* A memory selection of every element of its extent is the packed buffer (the counts are equal,
       checked above): the walkers then take memory as one run. Kept, it costs a derived memory type
       in every MPI call: twice the time of B4's independent writes through the HDF5 bridge, whose
       H5Screate_simple memory spaces select all. */
    if (ms && ms->type == SEL_ALL && ms->space != SPACE_NULL) io->ms = NULL;
    return 0;
}

typedef struct { MPI_Offset addr; uint64_t i; } cd_addr_idx;
static int cmp_addr_idx(const void *a, const void *b)
{
    const cd_addr_idx *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Chunked layouts with addresses (a table, or a lazy layout's, resolved by map_resolve): pieces in
   address order, and refuse chunks whose storage overlaps. One collective call's file type must
   ascend (MPI-IO refuses it otherwise: MPI_ERR_TYPE at MPI_File_set_view), and chunk indexes do not
   keep index order in the file: an extensible array or a v2 B-tree allocates the chunks an extension
   adds at the end. Already ascending (the common case): no order array, no sort. */
static int order_by_addr(cd_io *io)
{
    const cd_map *m = &io->map;
    if (io->l->storage != STORE_CHUNKED || !(io->l->addrs || io->l->resolve) || m->n == 0) return 0;
    int ascending = 1;
    for (uint64_t i = 0, k = 0; ascending && i < m->n; i++) {
        if (m->pc[i].addr < 0) continue;
        ascending = !k || m->pc[k - 1].addr <= m->pc[i].addr;
        k = i + 1;
    }
    if (!ascending) {
        io->order = cd_malloc((size_t)m->n * sizeof *io->order);
        cd_addr_idx *t = cd_malloc((size_t)m->n * sizeof *t); /* plain qsort: qsort_r is not portable */
        if (!io->order || !t) {
            cd_free(t);
            return io_fail(io, COLLDIAG_ERR_NOMEM, "ordering %" PRIu64 " chunks by address", m->n);
        }
        for (uint64_t i = 0; i < m->n; i++) { t[i].addr = m->pc[i].addr; t[i].i = i; }
        qsort(t, (size_t)m->n, sizeof *t, cmp_addr_idx);
        for (uint64_t i = 0; i < m->n; i++) io->order[i] = t[i].i;
        cd_free(t);
    }
    const cd_piece *prev = NULL;
    for (uint64_t i = 0; i < m->n; i++) {
        const cd_piece *p = &m->pc[io->order ? io->order[i] : i];
        if (p->addr < 0) continue;
        if (prev && prev->addr + (MPI_Offset)io->l->chunk_bytes > p->addr)
            return io_fail(io, COLLDIAG_ERR_ARG, "chunks %" PRIu64 " and %" PRIu64 " overlap in the address table (%lld, %lld)",
                           prev->idx, p->idx, (long long)prev->addr, (long long)p->addr);
        prev = p;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------
 * 9. execution: primitives
 * --------------------------------------------------------------------------------------------------- */

static int io_raw(cd_io *io, int write, MPI_Offset off, void *p, uint64_t len)
{
    colldiag_counters *c = &io->x->cnt;
    if (cd_inject(io, "io")) return io_fail(io, COLLDIAG_ERR_IO, "%s at offset %lld failed (injected)", write ? "pwrite" : "pread", (long long)off);
    while (len > 0) {
        uint64_t part = len > CD_MAX_INT_COUNT ? CD_BIG_BLOCK : len;
        uint64_t done = 0;
        if (io->f->driver == COLLDIAG_DRIVER_POSIX) {
            ssize_t r = write ? pwrite(io->f->fd, p, (size_t)part, (off_t)off) : pread(io->f->fd, p, (size_t)part, (off_t)off);
            c->calls_independent++;
            if (r < 0) {
                if (errno == EINTR) continue;
                return io_fail(io, COLLDIAG_ERR_IO, "%s at offset %lld failed: %s", write ? "pwrite" : "pread",
                               (long long)off, strerror(errno));
            }
            if (r == 0 && !write) { memset(p, 0, (size_t)part); r = (ssize_t)part; } /* past EOF: zeros, as unwritten storage */
            if (r == 0) return io_fail(io, COLLDIAG_ERR_IO, "pwrite at offset %lld wrote nothing", (long long)off);
            done = (uint64_t)r;
        } else {
            MPI_Status st;
            int rc = write ? MPI_File_write_at(io->f->fh, off, p, (int)part, MPI_BYTE, &st)
                           : MPI_File_read_at(io->f->fh, off, p, (int)part, MPI_BYTE, &st);
            c->calls_independent++;
            if (rc != MPI_SUCCESS) {
                char es[MPI_MAX_ERROR_STRING];
                int n;
                MPI_Error_string(rc, es, &n);
                return io_fail(io, COLLDIAG_ERR_MPI, "%s at offset %lld failed: %s", write ? "MPI_File_write_at" : "MPI_File_read_at",
                               (long long)off, es);
            }
            int got = 0;
            MPI_Get_count(&st, MPI_BYTE, &got);
            if (got < 0 || (uint64_t)got > part) got = (int)part;
            if ((uint64_t)got < part) {
                if (write) return io_fail(io, COLLDIAG_ERR_IO, "MPI_File_write_at wrote %d of %" PRIu64 " bytes", got, part);
                memset((char *)p + got, 0, (size_t)(part - (uint64_t)got)); /* past EOF */
            }
            done = part;
        }
        c->bytes_independent += done;
        off += (MPI_Offset)done;
        p = (char *)p + done;
        len -= done;
    }
    return 0;
}

/* cnt rows of len bytes, src_step and dst_step apart. Chunk rows are often a few dozen bytes (B4: 32),
   where a call to memcpy costs more than the copy: the common sizes are copied with a fixed length the
   compiler inlines. */
static void copy_rows(unsigned char *dst, size_t dst_step, const unsigned char *src, size_t src_step, size_t len, uint64_t cnt)
{
#define CD_COPY_ROWS(L)                                                                              \
    for (uint64_t c = 0; c < cnt; c++, dst += dst_step, src += src_step) memcpy(dst, src, L);        \
    return
    switch (len) {
    case 4: CD_COPY_ROWS(4);
    case 8: CD_COPY_ROWS(8);
    case 16: CD_COPY_ROWS(16);
    case 32: CD_COPY_ROWS(32);
    case 64: CD_COPY_ROWS(64);
    default: CD_COPY_ROWS(len);
    }
#undef CD_COPY_ROWS
}

/* --- independent runs through a staging buffer --- */

/* A read's scatter record: cnt runs of n elements, the c-th from iteration index k + c * kstr, lying
   one after the other in the staging buffer (a block of rows adjacent in the file is one record). */
typedef struct { uint64_t k, n, cnt, kstr; } cd_kn;

typedef struct {
    cd_io *io;
    unsigned char *fst;   /* file-typed staging */
    size_t fcap;          /* bytes */
    unsigned char *mst;   /* memory-typed staging (conversion only) */
    MPI_Offset poff;      /* pending file region */
    uint64_t plen;        /* bytes */
    cd_kn *kl;            /* reads: the (k, n) runs of the pending region, at most kmax */
    uint64_t nk, kmax;
    int unalloc;          /* pending region belongs to unallocated chunks (reads: zeros) */
} cd_stage;

/* Memory runs copied to (in) or from (out) a cursor that advances: gathering writes, scattering reads. */
typedef struct { cd_io *io; unsigned char *cursor; } cd_copy;
static int mrun_copy_in(void *ctx, uint64_t moff, uint64_t n)
{
    cd_copy *c = ctx;
    size_t es = c->io->mes;
    memcpy(c->cursor, (const unsigned char *)c->io->wbuf + moff * es, (size_t)(n * es));
    c->cursor += n * es;
    return 0;
}
static int mrun_copy_out(void *ctx, uint64_t moff, uint64_t n)
{
    cd_copy *c = ctx;
    size_t es = c->io->mes;
    memcpy((unsigned char *)c->io->rbuf + moff * es, c->cursor, (size_t)(n * es));
    c->cursor += n * es;
    return 0;
}

static int stage_convert(cd_stage *st, unsigned char *felems, uint64_t n, colldiag_direction_t dir)
{
    cd_io *io = st->io;
    colldiag_xfer *x = io->x;
    if (dir == COLLDIAG_TO_FILE) {
        if (x->conv) {
            int r = x->conv(st->mst, felems, (size_t)n, COLLDIAG_TO_FILE, x->conv_ctx);
            if (r) return io_fail(io, COLLDIAG_ERR_ARG, "the type conversion callback returned %d (TO_FILE)", r);
        }
        if (x->xform) {
            int r = x->xform(felems, (size_t)n, COLLDIAG_TO_FILE, x->xform_ctx);
            if (r) return io_fail(io, COLLDIAG_ERR_ARG, "the data transform callback returned %d (TO_FILE)", r);
        }
    } else {
        if (x->xform) {
            int r = x->xform(felems, (size_t)n, COLLDIAG_TO_MEMORY, x->xform_ctx);
            if (r) return io_fail(io, COLLDIAG_ERR_ARG, "the data transform callback returned %d (TO_MEMORY)", r);
        }
        if (x->conv) {
            int r = x->conv(felems, st->mst, (size_t)n, COLLDIAG_TO_MEMORY, x->conv_ctx);
            if (r) return io_fail(io, COLLDIAG_ERR_ARG, "the type conversion callback returned %d (TO_MEMORY)", r);
        }
    }
    return 0;
}

static int stage_flush(cd_stage *st)
{
    cd_io *io = st->io;
    if (st->plen == 0) return 0;
    int rc = 0;
    if (io->dir == DIR_WRITE) {
        rc = io_raw(io, 1, st->poff, st->fst, st->plen);
    } else {
        if (st->unalloc) memset(st->fst, 0, (size_t)st->plen);
        else rc = io_raw(io, 0, st->poff, st->fst, st->plen);
        unsigned char *fp = st->fst;
        const int conv = io->x->conv || io->x->xform;
        for (uint64_t i = 0; i < st->nk && !rc; i++) {
            const uint64_t n = st->kl[i].n;
            if (!conv && !io->ms) { /* packed buffer: a run's place is its index */
                copy_rows((unsigned char *)io->rbuf + st->kl[i].k * io->mes, (size_t)(st->kl[i].kstr * io->mes), fp,
                          (size_t)(n * io->fes), (size_t)(n * io->fes), st->kl[i].cnt);
                fp += st->kl[i].cnt * n * io->fes;
                continue;
            }
            for (uint64_t c = 0; c < st->kl[i].cnt && !rc; c++, fp += n * io->fes) {
                const uint64_t k = st->kl[i].k + c * st->kl[i].kstr;
                cd_copy cp = {io, fp};
                if (conv) {
                    rc = stage_convert(st, fp, n, COLLDIAG_TO_MEMORY);
                    if (io->x->conv) cp.cursor = st->mst;
                }
                if (!rc) rc = cd_mem_runs(io->ms, k, n, mrun_copy_out, &cp);
            }
        }
    }
    st->plen = 0;
    st->nk = 0;
    return rc;
}

/* Stages cnt runs of n elements that lie one after the other in the file from foff (the c-th from
   iteration index k + c * kstr), all in the current fill: a write gathers them, a read records them
   (one scatter record). The caller made sure they fit (stage_room). */
static int stage_rows(cd_stage *st, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, uint64_t kstr)
{
    cd_io *io = st->io;
    if (st->plen == 0) st->poff = foff;
    unsigned char *dst = st->fst + st->plen;
    if (io->dir == DIR_WRITE) {
        const int conv = io->x->conv || io->x->xform;
        if (!conv && !io->ms) /* packed buffer: a run's place is its index */
            copy_rows(dst, (size_t)(n * io->fes), (const unsigned char *)io->wbuf + k * io->mes, (size_t)(kstr * io->mes),
                      (size_t)(n * io->fes), cnt);
        for (uint64_t c = 0; (conv || io->ms) && c < cnt; c++, dst += n * io->fes) {
            cd_copy cp = {io, io->x->conv ? st->mst : dst};
            int rc = cd_mem_runs(io->ms, k + c * kstr, n, mrun_copy_in, &cp);
            if (!rc && conv) rc = stage_convert(st, dst, n, COLLDIAG_TO_FILE);
            if (rc) return rc;
        }
    } else {
        if (!st->kl && !(st->kl = cd_malloc((size_t)st->kmax * sizeof *st->kl)))
            return io_fail(io, COLLDIAG_ERR_NOMEM, "staging a read");
        st->kl[st->nk++] = (cd_kn){k, n, cnt, kstr};
    }
    st->plen += cnt * n * io->fes;
    return 0;
}

/* Flushes the pending region unless bytes at foff can join it (adjacent, room left, a record free). */
static int stage_room(cd_stage *st, MPI_Offset foff, uint64_t bytes)
{
    if (st->plen && (foff != st->poff + (MPI_Offset)st->plen || st->plen + bytes > st->fcap || (st->kmax && st->nk == st->kmax)))
        return stage_flush(st);
    return 0;
}

static int stage_run(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    cd_stage *st = ctx;
    const size_t fes = st->io->fes;
    const uint64_t per = st->fcap / fes; /* elements per staging fill */
    while (n > 0) {
        uint64_t t = n < per ? n : per;
        int rc = stage_room(st, foff, t * fes);
        if (!rc) rc = stage_rows(st, foff, k, t, 1, 0);
        if (rc) return rc;
        foff += (MPI_Offset)(t * fes);
        k += t;
        n -= t;
    }
    return 0;
}

/* A block of rows from the walker. Rows adjacent in the file (a piece whose rows span its chunk's
   width) that fit in one fill are staged as one: one gather loop or one scatter record instead of a
   call per row, which is most of a small independent call's own cost (B2's 64 chunks of 8 rows of 32
   bytes each: 512 calls). Anything else goes row by row. */
static int stage_srun1(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride)
{
    cd_stage *st = ctx;
    const uint64_t fes = st->io->fes;
    if (cnt > 1 && (uint64_t)fstride == n * fes && cnt * n * fes <= st->fcap) {
        int rc = stage_room(st, foff, cnt * n * fes);
        return rc ? rc : stage_rows(st, foff, k, n, cnt, kstride);
    }
    for (uint64_t c = 0; c < cnt; c++) {
        int rc = stage_run(ctx, foff + (MPI_Offset)c * fstride, k + c * kstride, n);
        if (rc) return rc;
    }
    return 0;
}

static int stage_srun(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride,
                      uint64_t planes, MPI_Offset fplane, uint64_t kplane)
{
    return srun_by_plane(stage_srun1, ctx, foff, k, n, cnt, fstride, kstride, planes, fplane, kplane);
}

/* need: the elements the calls will move, so that a small transfer does not fault in a 4 MiB buffer
   (B2 multi-chunk reads of 16 KB: 1.5x the read limit with it, 1.0x without). */
static int stage_init(cd_stage *st, cd_io *io, uint64_t need)
{
    memset(st, 0, sizeof *st);
    st->io = io;
    int conv = io->x->conv || io->x->xform;
    size_t cap = conv ? io->x->bufsize : CD_STAGE_BYTES;
    if (!conv && cap > io->set.coll_buf) cap = (size_t)io->set.coll_buf; /* the call's memory bound holds here too */
    size_t big = io->fes > io->mes ? io->fes : io->mes;
    if (!conv && need < cap / big) { /* the data plus a quarter for a read's scatter records */
        size_t fit = (size_t)need * big + (size_t)need * big / 4 + 64;
        if (fit < cap) cap = fit;
    }
    if (cap < big) cap = big; /* at least one element of either type */
    uint64_t nel = cap / big;
    if (io->dir == DIR_READ) { /* an eighth of the buffer records the runs to scatter, the rest holds data */
        st->kmax = cap / 8 / sizeof(cd_kn);
        if (st->kmax == 0) st->kmax = 1;
        const size_t rec = (size_t)st->kmax * sizeof(cd_kn);
        nel = cap > rec ? (cap - rec) / big : 0;
        if (nel == 0) nel = 1; /* a buffer smaller than a record and an element: one element a fill */
    }
    st->fcap = (size_t)(nel * io->fes);
    st->fst = cd_malloc(st->fcap);
    if (st->fcap > io->x->data_buf_bytes) io->x->data_buf_bytes = st->fcap; /* a data copy, not per-chunk state */
    if (io->x->conv) st->mst = cd_malloc((size_t)(nel * io->mes));
    if (!st->fst || (io->x->conv && !st->mst)) return io_fail(io, COLLDIAG_ERR_NOMEM, "allocating a %zu-byte staging buffer", cap);
    return 0;
}

static void stage_done(cd_stage *st)
{
    cd_free(st->fst);
    cd_free(st->mst);
    cd_free(st->kl);
}

/* A plan moves nothing: it counts what the transfer it describes would move, as this rank's counters
   (the reports label them planned). Collective: `rounds` calls; independent: a call per piece (HDF5
   1.10 makes one per chunk, with a derived type; colldiag's own, one per contiguous stretch). */
static void plan_count(cd_io *io, const uint64_t *list, uint64_t n, int all, int coll, uint64_t rounds)
{
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < n; i++) {
        const cd_piece *p = &io->map.pc[all ? i : list[i]];
        bytes += p->nelem * piece_fes(io, p);
    }
    colldiag_counters *c = &io->x->cnt;
    if (coll) {
        c->calls_collective += rounds;
        c->bytes_collective += bytes;
    } else {
        c->calls_independent += n;
        c->bytes_independent += bytes;
    }
}

/* Moves the given pieces with independent calls (no view change, no collective call). */
static int ind_pieces(cd_io *io, const uint64_t *list, uint64_t n, int all)
{
    if (io->dir == DIR_PLAN && !io->code) plan_count(io, list, n, all, 0, 0);
    if (io->dir == DIR_PLAN || io->code) return io->code;
    if (n == 0) return 0;
    double t0 = cd_now();
    cd_stage st;
    uint64_t need = 0;
    for (uint64_t i = 0; i < n; i++) need += io->map.pc[all ? i : list[i]].nelem;
    int rc = stage_init(&st, io, need);
    for (uint64_t i = 0; i < n && !rc; i++) {
        const cd_piece *p = &io->map.pc[all ? i : list[i]];
        int un = (p->flags & PF_UNALLOC) != 0;
        if (un && io->dir == DIR_WRITE) {
            rc = io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " is not allocated (address -1) and cannot be written", p->idx);
            break;
        }
        if (un != st.unalloc) {
            rc = stage_flush(&st);
            st.unalloc = un;
        }
        if (!rc) rc = cd_walk_piece_rows(&io->map, io->fs, p, stage_run, stage_srun, &st);
    }
    if (!rc) rc = stage_flush(&st);
    stage_done(&st);
    io->x->cnt.t_io += cd_now() - t0;
    return rc ? io_fail(io, rc, "independent I/O failed") : 0;
}

/* --- collective calls --- */

typedef struct {
    cd_io *io;
    cd_stream fs, ms;
    uint64_t pos, lo, hi;  /* this round takes the elements [lo, hi) of this rank's stream */
    uint64_t mruns;        /* memory runs counted by the first walk */
    uint64_t pbytes;       /* WALK_PROBE: bytes seen */
    int walk;              /* what run_coll does with a run (WALK_*) */
    unsigned char *pk;     /* packing: the round's bytes in file order, and the copy cursor */
    int pk_out;            /* packing direction: 0 memory -> pk, 1 pk -> memory */
    /* memory runs of a block of rows waiting to become one strided item: g_cnt runs of g_len bytes,
       g_str apart, from g_off (srun_coll with a memory selection) */
    int64_t g_off, g_str;
    uint64_t g_len, g_cnt;
} cd_coll_build;
enum {
    WALK_FILE,   /* file stream, memory runs counted (packing expected) */
    WALK_BOTH,   /* file and memory streams (memory type expected) */
    WALK_MEM,    /* memory stream only (after WALK_FILE guessed wrong) */
    WALK_PACK,   /* memory copied to or from pk */
    WALK_PROBE   /* memory runs and bytes of the first runs only: which of FILE and BOTH to start with */
};
#define CD_PROBE_RUNS 64

static int mrun_count(void *ctx, uint64_t moff, uint64_t n)
{
    (void)moff;
    (void)n;
    ((cd_coll_build *)ctx)->mruns++;
    return 0;
}
static int mrun_stream(void *ctx, uint64_t moff, uint64_t n)
{
    cd_coll_build *b = ctx;
    b->mruns++;
    stream_add(&b->ms, (int64_t)(moff * b->io->mes) + b->io->mbase, n * b->io->mes);
    return 0;
}
static int mrun_pack(void *ctx, uint64_t moff, uint64_t n)
{
    cd_coll_build *b = ctx;
    const size_t es = b->io->mes, len = (size_t)(n * es);
    if (b->pk_out) memcpy((unsigned char *)b->io->rbuf + moff * es, b->pk, len);
    else memcpy(b->pk, (const unsigned char *)b->io->wbuf + moff * es, len);
    b->pk += len;
    return 0;
}
/* Packing during the walk that describes the file (writes): a memory run counted and copied. */
static int mrun_count_pack(void *ctx, uint64_t moff, uint64_t n)
{
    ((cd_coll_build *)ctx)->mruns++;
    return mrun_pack(ctx, moff, n);
}
static int mrun_zero(void *ctx, uint64_t moff, uint64_t n)
{
    cd_io *io = ctx;
    memset((unsigned char *)io->rbuf + moff * io->mes, 0, (size_t)(n * io->mes));
    return 0;
}
static int run_coll(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    cd_coll_build *b = ctx;
    uint64_t a = b->pos, e = b->pos + n; /* this run's elements in the rank's stream */
    b->pos = e;
    if (e <= b->lo || a >= b->hi) return 0;
    uint64_t skip = a < b->lo ? b->lo - a : 0, take = (e < b->hi ? e : b->hi) - (a + skip);
    switch (b->walk) {
    case WALK_PACK: return cd_mem_runs(b->io->ms, k + skip, take, mrun_pack, b);
    case WALK_MEM: return cd_mem_runs(b->io->ms, k + skip, take, mrun_stream, b);
    case WALK_PROBE:
        b->pbytes += take * b->io->fes;
        cd_mem_runs(b->io->ms, k + skip, take, mrun_count, b);
        return b->mruns >= CD_PROBE_RUNS; /* enough seen: stop the walk */
    default: break;
    }
    stream_add(&b->fs, (int64_t)foff + (int64_t)(skip * b->io->fes), take * b->io->fes);
    return cd_mem_runs(b->io->ms, k + skip, take, b->walk == WALK_BOTH ? mrun_stream : b->pk ? mrun_count_pack : mrun_count, b);
}
static void mrun_group_flush(cd_coll_build *b)
{
    if (b->g_cnt) stream_add_strided(&b->ms, b->g_off, b->g_len, b->g_cnt, b->g_cnt > 1 ? b->g_str : (int64_t)b->g_len);
    b->g_cnt = 0;
}
/* A memory run of a block of rows: joins the pending group when it continues it at the same stride. */
static int mrun_group(void *ctx, uint64_t moff, uint64_t n)
{
    cd_coll_build *b = ctx;
    const int64_t off = (int64_t)(moff * b->io->mes) + b->io->mbase;
    const uint64_t len = n * b->io->mes;
    b->mruns++;
    if (b->g_cnt && len == b->g_len && b->g_cnt < CD_MAX_INT_COUNT) {
        const int64_t d = off - (b->g_off + (int64_t)(b->g_cnt - 1) * b->g_str);
        if (b->g_cnt == 1 && d > 0) b->g_str = d;
        if (d > 0 && d == b->g_str) {
            b->g_cnt++;
            return 0;
        }
    }
    mrun_group_flush(b);
    b->g_off = off;
    b->g_len = len;
    b->g_cnt = 1;
    return 0;
}

/* A block of rows: described whole when it all falls in this round (the file side as one strided item,
   memory as one too for the plain buffer, or as its runs grouped by stride for a memory selection);
   otherwise row by row, exactly as run_coll would see them. */
static int srun_coll1(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride)
{
    cd_coll_build *b = ctx;
    const uint64_t tot = n * cnt;
    const colldiag_sel *ms = b->io->ms;
    if ((b->walk == WALK_FILE || b->walk == WALK_BOTH) && b->pos >= b->lo && b->pos + tot <= b->hi) {
        b->pos += tot;
        stream_add_strided(&b->fs, (int64_t)foff, n * b->io->fes, cnt, (int64_t)fstride);
        if (!ms) {
            const size_t es = b->io->mes, len = (size_t)(n * es);
            if (b->walk == WALK_BOTH) stream_add_strided(&b->ms, (int64_t)(k * es) + b->io->mbase, len, cnt, (int64_t)(kstride * es));
            if (b->pk) { /* packing in the same walk */
                copy_rows(b->pk, len, (const unsigned char *)b->io->wbuf + k * es, (size_t)(kstride * es), len, cnt);
                b->pk += len * cnt;
            }
            b->mruns += cnt;
            return 0;
        }
        int rc = 0;
        for (uint64_t c = 0; c < cnt && !rc; c++)
            rc = cd_mem_runs(ms, k + c * kstride, n, b->walk == WALK_BOTH ? mrun_group : b->pk ? mrun_count_pack : mrun_count, b);
        if (b->walk == WALK_BOTH) mrun_group_flush(b);
        return rc;
    }
    if (b->walk == WALK_PACK && !ms && b->pos >= b->lo && b->pos + tot <= b->hi) { /* the rows straight to or from pk */
        const size_t es = b->io->mes, len = (size_t)(n * es), step = (size_t)(kstride * es);
        b->pos += tot;
        if (b->pk_out) copy_rows((unsigned char *)b->io->rbuf + k * es, step, b->pk, len, len, cnt);
        else copy_rows(b->pk, len, (const unsigned char *)b->io->wbuf + k * es, step, len, cnt);
        b->pk += len * cnt;
        return 0;
    }
    for (uint64_t c = 0; c < cnt; c++) {
        int rc = run_coll(ctx, foff + (MPI_Offset)c * fstride, k + c * kstride, n);
        if (rc) return rc;
    }
    return 0;
}
/* Planes of blocks of rows: with the plain buffer and the whole box in this round, described and
   (un)packed here plane by plane without going back through the per-block checks; a box that is
   contiguous in the file (whole chunk rows and planes) adds one file run. Otherwise block by block. */
static int srun_coll(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride,
                     uint64_t planes, MPI_Offset fplane, uint64_t kplane)
{
    cd_coll_build *b = ctx;
    const uint64_t tot = n * cnt * planes;
    if (planes > 1 && !b->io->ms && (b->walk == WALK_FILE || b->walk == WALK_BOTH || b->walk == WALK_PACK) && b->pos >= b->lo &&
        b->pos + tot <= b->hi) {
        const size_t es = b->io->mes, len = (size_t)(n * es), step = (size_t)(kstride * es);
        const uint64_t fl = n * b->io->fes;
        b->pos += tot;
        if (b->walk != WALK_PACK) {
            if ((uint64_t)fstride == fl && (uint64_t)fplane == fl * cnt) stream_add(&b->fs, (int64_t)foff, fl * cnt * planes);
            else
                for (uint64_t q = 0; q < planes; q++) stream_add_strided(&b->fs, (int64_t)(foff + (MPI_Offset)q * fplane), fl, cnt, (int64_t)fstride);
            if (b->walk == WALK_BOTH)
                for (uint64_t q = 0; q < planes; q++)
                    stream_add_strided(&b->ms, (int64_t)((k + q * kplane) * es) + b->io->mbase, len, cnt, (int64_t)step);
            b->mruns += cnt * planes;
        }
        if (b->pk) {
            for (uint64_t q = 0; q < planes; q++, b->pk += len * cnt) {
                const size_t at = (size_t)((k + q * kplane) * es);
                if (b->pk_out) copy_rows((unsigned char *)b->io->rbuf + at, step, b->pk, len, len, cnt);
                else copy_rows(b->pk, len, (const unsigned char *)b->io->wbuf + at, step, len, cnt);
            }
        }
        return 0;
    }
    return srun_by_plane(srun_coll1, ctx, foff, k, n, cnt, fstride, kstride, planes, fplane, kplane);
}
static int pack_pays(const cd_io *io, uint64_t bytes, uint64_t mruns)
{
    return bytes && mruns > 1 && bytes / mruns < io->set.pack_run;
}
typedef struct { uint64_t i, cp, cf; } cd_resume; /* where a round's walk starts: list index, both cursors */

/* The round's pieces, in file order, each walked with b->pos set to where it starts in this rank's
   stream. The stream puts the pieces that do not cover their chunk (PF_PARTIAL, `part` elements in
   all) before the whole ones, each group in file order, so the rounds take them first. Why: the
   chunks ranks share are partial ones, and when one rank moves its share of such a chunk in its last
   round and another in its first, both calls hand MPI thousands of holes between the other rank's
   rows (B4's slab edges: 90 ms for such a round on ompio, against 6 ms for the others). Taken first
   by every rank, a shared chunk is complete in one call. Any split is correct: every walk of a round
   uses these same positions, and a round's pieces still go to MPI in file order.
   The walk starts at `from`; `next` (if given) receives where the next round may start: the first
   piece that ends beyond this round, so a call's rounds together scan the list about once.
   first_only: stop after the first piece in the round (the probe). */
static void round_pieces(cd_io *io, cd_coll_build *b, const uint64_t *list, uint64_t n, uint64_t part, int first_only,
                         const cd_resume *from, cd_resume *next)
{
    uint64_t cp = from->cp, cf = from->cf; /* the next positions of the partial and of the whole pieces */
    int found = next == NULL;
    uint64_t i = from->i;
    for (; i < n && ((part > b->lo && cp < part && cp < b->hi) || cf < b->hi); i++) {
        const cd_piece *p = &io->map.pc[list ? list[i] : (io->order ? io->order[i] : i)];
        uint64_t *c = (p->flags & PF_PARTIAL) ? &cp : &cf, at = *c;
        if (!found && at + p->nelem > b->hi) { /* every piece before this one is done after this round */
            next->i = i;
            next->cp = cp;
            next->cf = cf;
            found = 1;
        }
        *c += p->nelem;
        if ((p->flags & PF_UNALLOC) || at + p->nelem <= b->lo || at >= b->hi) continue;
        b->pos = at;
        io_use(io, p);
        cd_walk_piece_rows(piece_map(io, p), io->fs, p, run_coll, srun_coll, b);
        if (first_only) return;
    }
    if (!found) { /* every piece the walk saw is done: the next round starts where it stopped */
        next->i = i;
        next->cp = cp;
        next->cf = cf;
    }
}
/* The round's pieces again: the memory stream (pk NULL), or packing (unpacking) memory in file order. */
static void coll_pack_walk(cd_io *io, cd_coll_build *b, const uint64_t *list, uint64_t n, uint64_t part, const cd_resume *from,
                           unsigned char *pk, int out)
{
    b->walk = pk ? WALK_PACK : WALK_MEM;
    b->pk = pk;
    b->pk_out = out;
    round_pieces(io, b, list, n, part, 0, from, NULL);
    b->pk = NULL;
    b->walk = WALK_FILE;
}
static int run_zero(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    (void)foff;
    cd_io *io = ctx;
    return cd_mem_runs(io->ms, k, n, mrun_zero, io);
}

static int cd_mpi_err(cd_io *io, int rc, const char *what)
{
    char es[MPI_MAX_ERROR_STRING];
    int n = 0;
    es[0] = 0;
    MPI_Error_string(rc, es, &n);
    return io_fail(io, COLLDIAG_ERR_MPI, "%s failed: %s", what, es);
}

/* Resets the view to bytes; collective. */
static void view_reset(cd_io *io)
{
    int rc = MPI_File_set_view(io->f->fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (rc != MPI_SUCCESS) cd_mpi_err(io, rc, "MPI_File_set_view (reset)");
}

/* One collective data call (every rank makes it; have = 0 joins with nothing), counted, with a short
   write reported as an error. Returns the bytes moved, -1 if the call failed or moved nothing. */
static MPI_Count coll_data_call(cd_io *io, void *buf, int count, MPI_Datatype t, uint64_t want, int have)
{
    MPI_Status st;
    int rc = io->dir == DIR_WRITE ? MPI_File_write_at_all(io->f->fh, 0, buf, have ? count : 0, have ? t : MPI_BYTE, &st)
                                  : MPI_File_read_at_all(io->f->fh, 0, buf, have ? count : 0, have ? t : MPI_BYTE, &st);
    io->x->cnt.calls_collective++;
    if (rc != MPI_SUCCESS) {
        cd_mpi_err(io, rc, io->dir == DIR_WRITE ? "MPI_File_write_at_all" : "MPI_File_read_at_all");
        return -1;
    }
    if (!have) return -1;
    MPI_Count got = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &got);
    if (got >= 0 && (uint64_t)got < want && io->dir == DIR_WRITE)
        io_fail(io, COLLDIAG_ERR_IO, "MPI_File_write_at_all wrote %lld of %" PRIu64 " bytes", (long long)got, want);
    io->x->cnt.bytes_collective += want;
    return got;
}

/* The packing buffer, at least `bytes` (at most a round's share: the collective buffer), grown at most
   once in practice since rounds are equal shares; NULL without memory. */
static unsigned char *pack_buffer(cd_io *io, unsigned char **buf, size_t *cap, uint64_t bytes)
{
    if (bytes > *cap) {
        cd_free(*buf);
        *buf = cd_malloc((size_t)bytes);
        *cap = *buf ? (size_t)bytes : 0;
        if (*cap > io->x->data_buf_bytes) io->x->data_buf_bytes = *cap;
    }
    return *buf;
}

/* Items a stream holds before it flushes into MPI types (cd_stream): a power of two near a 64th of the
   collective buffer in items (2,048 for 16 MiB, about 240 KB), at least CD_STREAM_FLUSH_MIN (16; the
   test build of fuzz_io_rounds uses 2, so that its cases go through flushes too). */
#ifndef CD_STREAM_FLUSH_MIN
#define CD_STREAM_FLUSH_MIN 16
#endif
static uint64_t stream_flush_items(const cd_io *io)
{
    uint64_t k = CD_STREAM_FLUSH_MIN;
    while (k * 2 * sizeof(cd_item) * 64 <= io->set.coll_buf) k *= 2;
    return k;
}

/* The collective data calls over the given pieces: `rounds` calls (agreed by every rank, rounds_for),
   each moving at most a 1/rounds share of this rank's elements, so no rank ever hands MPI more than
   the collective buffer (or COLLDIAG_COLL_MAX_BYTES) in one call, and packing reuses one buffer of
   that size. Every rank makes every call (count 0 when it has nothing or has already failed). The view
   is left set; callers reset it once after their last call. With INDIVIDUAL_IO the same pieces move
   with independent calls instead and nothing collective happens. */
static void coll_call_rounds(cd_io *io, const uint64_t *list, uint64_t n, uint64_t rounds)
{
    if (io->dir == DIR_PLAN) {
        if (!io->code) plan_count(io, list, n, list == NULL, io->set.coll_opt != COLLDIAG_MPIO_INDIVIDUAL_IO, rounds < 1 ? 1 : rounds);
        return;
    }
    if (io->set.coll_opt == COLLDIAG_MPIO_INDIVIDUAL_IO) {
        if (io->sub) { /* a multi-dataset call's merged pieces: each dataset's own, independently */
            for (size_t d = 0; d < io->nsub; d++)
                if (io->sub[d].merged) ind_pieces(&io->sub[d], NULL, io->sub[d].map.n, 1);
            return;
        }
        ind_pieces(io, list, n, list == NULL);
        return;
    }
    if (rounds < 1) rounds = 1;
    uint64_t mine = 0, part = 0; /* this rank's elements, and those in pieces that do not cover their chunk */
    for (uint64_t i = 0; i < n && !io->code; i++) {
        cd_piece *p = &io->map.pc[list ? list[i] : i];
        mine += p->nelem;
        p->flags &= ~PF_PARTIAL;
        const colldiag_layout *pl = piece_layout(io, p);
        if (pl->storage == STORE_CHUNKED && p->nelem < chunk_elems_in(pl, p->idx)) {
            p->flags |= PF_PARTIAL;
            part += p->nelem;
        }
        if (p->flags & PF_UNALLOC) {
            /* writes were refused at mapping, before any rank moved data; this is only a guard */
            if (io->dir == DIR_WRITE) io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " is not allocated (address -1) and cannot be written", p->idx);
            /* unallocated chunks read as zeros, all at once: the rounds' walks stop at their window's
               end, so a round cannot be trusted to reach every such piece (a later round skips them) */
            else {
                io_use(io, p);
                cd_walk_piece(piece_map(io, p), io->fs, p, run_zero, io);
            }
        }
    }
    const uint64_t per = mine / rounds + (mine % rounds != 0);
    unsigned char *packbuf = NULL; /* one packing buffer for every round (a round is at most the collective buffer) */
    size_t packcap = 0;
    cd_resume from = {0, 0, part}, next = from; /* rounds walk on from the first piece not yet done */
    for (uint64_t r = 0; r < rounds; r++, from = next) {
        double t0 = cd_now();
        cd_coll_build b;
        memset(&b, 0, sizeof b);
        b.io = io;
        b.fs.flush_at = b.ms.flush_at = stream_flush_items(io);
        b.lo = r * per;
        b.hi = b.lo + per;
        MPI_Datatype ft = MPI_DATATYPE_NULL, mt = MPI_DATATYPE_NULL;
        int fused = 0; /* packed while describing the file */
        if (!io->code) {
            /* a look at the first runs decides whether to describe memory now or count it for packing,
               so that one walk usually does (a wrong guess costs one more walk, never correctness) */
            b.walk = WALK_PROBE; /* only the first piece of the round */
            round_pieces(io, &b, list, n, part, 1, &from, NULL);
            b.walk = pack_pays(io, b.pbytes, b.mruns) ? WALK_FILE : WALK_BOTH;
            b.mruns = 0;
            /* a write expected to pack packs in this same walk, into a buffer sized for the whole round */
            const uint64_t ra = b.lo < mine ? b.lo : mine, re = b.hi < mine ? b.hi : mine;
            if (b.walk == WALK_FILE && io->dir == DIR_WRITE && re > ra) b.pk = pack_buffer(io, &packbuf, &packcap, (re - ra) * io->fes_max);
            fused = b.pk != NULL;
            round_pieces(io, &b, list, n, part, 0, &from, &next);
            b.pk = NULL;
            if (b.fs.nomem || b.ms.nomem) io_fail(io, COLLDIAG_ERR_NOMEM, "describing the data of %" PRIu64 " chunks", n);
        }
        if (!io->code && cd_inject(io, "types")) io_fail(io, COLLDIAG_ERR_NOMEM, "building the MPI datatypes (injected)");
        /* many short memory runs: pack them in file order here instead of handing MPI the memory type
           (already done if the walk packed: then the packed bytes are used whatever the count says) */
        unsigned char *pack = NULL;
        if (!io->code && fused) {
            pack = packbuf;
        } else if (!io->code && b.walk == WALK_FILE && pack_pays(io, b.fs.bytes, b.mruns)) {
            pack = pack_buffer(io, &packbuf, &packcap, b.fs.bytes); /* NULL (no memory): the memory type below instead, slower but exact */
            if (pack && io->dir == DIR_WRITE) coll_pack_walk(io, &b, list, n, part, &from, pack, 0);
        }
        if (!io->code && b.fs.bytes && !pack && b.walk == WALK_FILE) {
            coll_pack_walk(io, &b, list, n, part, &from, NULL, 0); /* the probe guessed packing wrong: describe memory now */
            if (b.ms.nomem) io_fail(io, COLLDIAG_ERR_NOMEM, "describing the memory of %" PRIu64 " chunks", n);
        }
        if (!io->code && b.fs.bytes) {
            int rc = stream_type(&b.fs, &ft, &io->types_built);
            if (!rc && !pack) rc = stream_type(&b.ms, &mt, &io->types_built);
            if (!rc && pack) {
                rc = type_bytes(b.fs.bytes, &mt);
                if (!rc) rc = MPI_Type_commit(&mt);
            }
            if (rc) cd_mpi_err(io, rc, "building the MPI datatypes");
        }
        if (!io->code && cd_inject(io, "io")) io_fail(io, COLLDIAG_ERR_MPI, "MPI_File_write_at_all failed (injected)");
        int have = !io->code && ft != MPI_DATATYPE_NULL && mt != MPI_DATATYPE_NULL;
        int rc = MPI_File_set_view(io->f->fh, 0, MPI_BYTE, have ? ft : MPI_BYTE, "native", MPI_INFO_NULL);
        if (rc != MPI_SUCCESS) {
            cd_mpi_err(io, rc, "MPI_File_set_view");
            have = 0;
        }
        /* several datasets' buffers: the memory type holds absolute addresses */
        void *buf = pack ? pack : io->sub ? MPI_BOTTOM : io->dir == DIR_WRITE ? (void *)io->wbuf : io->rbuf;
        if (coll_data_call(io, buf, 1, mt, b.fs.bytes, have) >= 0 && pack && io->dir == DIR_READ)
            coll_pack_walk(io, &b, list, n, part, &from, pack, 1);
        if (ft != MPI_DATATYPE_NULL) MPI_Type_free(&ft);
        if (mt != MPI_DATATYPE_NULL) MPI_Type_free(&mt);
        stream_free(&b.fs);
        stream_free(&b.ms);
        io->x->cnt.t_io += cd_now() - t0;
    }
    cd_free(packbuf);
}

/* Agreed rounds for a call in which no rank moves more than `bytes`: enough that a round's share of
   any rank's elements fits the collective buffer (at least one element a round) and stays under
   COLLDIAG_COLL_MAX_BYTES. Every call is split, packing or not: which ranks pack is a local choice
   made per round, so the rounds cannot wait for it, and a round of 16 MiB per rank is what two-phase
   I/O moves per cycle anyway. Also bounds a round's datatype description (at most an item per run). */
static uint64_t rounds_for(const cd_io *io, uint64_t bytes)
{
    /* several datasets: elements of the largest size bound a round's bytes, of the smallest its elements */
    const uint64_t es = io->fes_max ? io->fes_max : 1, es_min = io->fes_min ? io->fes_min : es;
    uint64_t cap = io->set.coll_buf / es; /* elements a round may take from one rank */
    if (cap == 0) cap = 1;
    if (cap > COLLDIAG_COLL_MAX_BYTES / es) cap = COLLDIAG_COLL_MAX_BYTES / es ? COLLDIAG_COLL_MAX_BYTES / es : 1;
    const uint64_t elems = bytes / es_min + (bytes % es_min != 0);
    return elems / cap + (elems % cap != 0) + (elems == 0);
}
/* Rounds for calls over many pieces (by the most bytes any rank moves) and for one piece per call. */
static uint64_t rounds_all(const cd_io *io) { return rounds_for(io, io->g[AG_MAX_BYTES]); }
static uint64_t rounds_piece(const cd_io *io) { return rounds_for(io, io->g[AG_MAX_PIECE]); }
#define coll_call(io, list, n) coll_call_rounds((io), (list), (n), rounds_all(io))
#define coll_call_piece(io, list, n) coll_call_rounds((io), (list), (n), rounds_piece(io))

/* ---------------------------------------------------------------------------------------------------
 * 7. decision: per-chunk rank counts without a chunks x ranks gather
 *
 * Chunk c is counted by its owner rank, hash(c) mod P: every rank sends the ids of the chunks it
 * touches to their owners (one Alltoallv), owners count duplicates and send the counts back (one
 * Alltoallv). Work and memory are O(chunks this rank touches + chunks it owns), never O(total chunks)
 * nor O(chunks x ranks). Multi-chunk also needs the list of collective chunks on every rank (each
 * rank joins every collective chunk's call): owners contribute theirs to one Allgatherv.
 * --------------------------------------------------------------------------------------------------- */

static int owner_of(uint64_t c, int P) { return (int)(cd_mix64(c) % (uint64_t)P); }

/* The owner of a chunk under aggregation, chosen by its counter from the ranks touching it (ascending in
   src[0..n)): the first toucher at or after c mod P, cyclically. A rank that touches the chunk never
   ships its piece, and chunks every rank touches rotate over the ranks, so owners spread evenly. */
static int choose_owner(uint64_t c, int P, const int *src, uint64_t n)
{
    int start = (int)(c % (uint64_t)P);
    for (uint64_t i = 0; i < n; i++)
        if (src[i] >= start) return src[i];
    return src[0];
}

typedef struct { uint64_t id; int src; int at; } cd_idsrc;
static int cmp_idsrc(const void *a, const void *b)
{
    const cd_idsrc *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}

/* Fills pc[i].nproc and pc[i].owner; with want_list, *glist gets the ascending ids of chunks with
   nproc > thr (all touched chunks when ratio0); with want_bytes (aggregation: every rank passes the
   same), pc[i].abytes the bytes all ranks' pieces of the chunk hold plus, with words (per piece,
   agg_count_words), their records' bytes, so an owner knows what it will receive before anything
   moves. Collective; a rank that already failed still takes part. */
static int nproc_exchange(cd_io *io, unsigned thr, int ratio0, int want_list, int want_bytes, const uint64_t *words,
                          uint64_t **glist, uint64_t *gn)
{
    MPI_Comm comm = io->f->comm;
    const int P = io->f->size;
    cd_map *m = &io->map;
    uint64_t n = io->code ? 0 : m->n;
    if (io->disjoint && !(want_list && ratio0)) {
        /* no chunk has two ranks (agreed, so every rank is here): each count is 1, each chunk its own
           rank's, and no chunk passes a threshold of at least 1, so the list is empty; nothing to send */
        (void)thr;
        for (uint64_t i = 0; i < n; i++) {
            m->pc[i].nproc = 1;
            m->pc[i].owner = io->f->rank;
            m->pc[i].abytes = want_bytes && !(m->pc[i].flags & PF_UNALLOC) ? m->pc[i].nelem * io->fes + (words ? words[i] * 8 : 0) : 0;
        }
        if (want_list) {
            *glist = NULL;
            *gn = 0;
        }
        /* the fault-injection point of the exchange stays live here (test_errors: a rank failing while
           counting fails every rank) */
        return cd_inject(io, "exchange") ? io_fail(io, COLLDIAG_ERR_NOMEM, "counting the ranks per chunk") : 0;
    }
    int *sc = cd_calloc((size_t)P * 4 + 2, sizeof(int));
    int *rcnt = sc ? sc + P : NULL, *sd = sc ? sc + 2 * P : NULL, *rd = sc ? sc + 3 * P : NULL;
    int lerr = !sc || cd_inject(io, "exchange");
    uint64_t *sid = NULL, *rid = NULL, *pos = NULL, *uniq = NULL;
    uint64_t *sby = NULL, *rby = NULL; /* want_bytes: [0, n) sent (then returned totals), [0, nr) received */
    int *rep = NULL, *back = NULL, *srcs = NULL;
    cd_idsrc *rec = NULL;
    uint64_t nr = 0;
    if (!lerr) {
        for (uint64_t i = 0; i < n; i++) sc[owner_of(m->pc[i].idx, P)]++;
        sid = cd_malloc((size_t)n * sizeof *sid);
        pos = cd_malloc((size_t)n * sizeof *pos);
        if (want_bytes) sby = cd_malloc((size_t)(n ? n : 1) * sizeof *sby);
        lerr = !sid || !pos || (want_bytes && !sby);
    }
    /* every rank must enter each collective, so failures only shrink what a rank sends */
    if (lerr) { n = 0; if (sc) memset(sc, 0, (size_t)P * sizeof(int)); }
    if (sc) {
        for (int r = 1; r < P; r++) sd[r] = sd[r - 1] + sc[r - 1];
        int *fill = cd_calloc((size_t)P, sizeof(int));
        if (!fill) { lerr = 1; n = 0; memset(sc, 0, (size_t)P * sizeof(int)); memset(sd, 0, (size_t)P * sizeof(int)); }
        for (uint64_t i = 0; i < n; i++) {
            int o = owner_of(m->pc[i].idx, P);
            pos[i] = (uint64_t)(sd[o] + fill[o]++);
            sid[pos[i]] = m->pc[i].idx;
            if (sby) sby[pos[i]] = m->pc[i].flags & PF_UNALLOC ? 0 : m->pc[i].nelem * io->fes + (words ? words[i] * 8 : 0);
        }
        cd_free(fill);
    }
    int dummy[2] = {0, 0};
    MPI_Alltoall(sc ? sc : dummy, 1, MPI_INT, rcnt ? rcnt : dummy, 1, MPI_INT, comm);
    /* (a rank whose small arrays failed to allocate cannot even join; that is the one unrecoverable case) */
    for (int r = 0; r < P; r++) { rd[r] = (int)nr; nr += (uint64_t)rcnt[r]; }
    rid = cd_malloc((size_t)nr * sizeof *rid);
    rep = cd_malloc((size_t)nr * 2 * sizeof *rep);   /* per entry: (rank count, owner) */
    back = cd_malloc((size_t)n * 2 * sizeof *back);
    if (!rid || !rep || !back) lerr = 1;
    MPI_Alltoallv(sid, sc, sd, MPI_UINT64_T, rid ? rid : (uint64_t *)dummy, rcnt, rd, MPI_UINT64_T, comm);
    if (want_bytes) {
        rby = cd_malloc((size_t)(nr ? nr : 1) * sizeof *rby);
        if (!rby) lerr = 1;
        MPI_Alltoallv(sby ? sby : (uint64_t *)dummy, sc, sd, MPI_UINT64_T, rby ? rby : (uint64_t *)dummy, rcnt, rd,
                      MPI_UINT64_T, comm);
    }
    /* counter side: group the ids it received by (id, source rank) */
    uint64_t nu = 0;
    if (rid && rep) {
        rec = cd_malloc((size_t)nr * sizeof *rec);
        uniq = cd_malloc((size_t)nr * sizeof *uniq);
        srcs = cd_malloc((size_t)nr * sizeof *srcs);
        if (rec && uniq && srcs) {
            for (int r = 0; r < P; r++)
                for (int i = rd[r]; i < rd[r] + rcnt[r]; i++) { rec[i].id = rid[i]; rec[i].src = r; rec[i].at = i; }
            qsort(rec, (size_t)nr, sizeof *rec, cmp_idsrc);
            for (uint64_t i = 0; i < nr;) {
                uint64_t e = i;
                while (e < nr && rec[e].id == rec[i].id) { srcs[e - i] = rec[e].src; e++; }
                int own = choose_owner(rec[i].id, P, srcs, e - i);
                for (uint64_t j = i; j < e; j++) { rep[2 * rec[j].at] = (int)(e - i); rep[2 * rec[j].at + 1] = own; }
                if (rby) { /* each entry's bytes become the chunk's total, in place */
                    uint64_t tot = 0;
                    for (uint64_t j = i; j < e; j++) tot += rby[rec[j].at];
                    for (uint64_t j = i; j < e; j++) rby[rec[j].at] = tot;
                }
                if (ratio0 || (e - i) > thr) uniq[nu++] = rec[i].id;
                i = e;
            }
        } else {
            lerr = 1;
            for (uint64_t i = 0; i < 2 * nr; i++) rep[i] = 0;
        }
    }
    MPI_Alltoallv(rep ? rep : dummy, rcnt, rd, MPI_2INT, back ? back : dummy, sc, sd, MPI_2INT, comm);
    if (want_bytes)
        MPI_Alltoallv(rby ? rby : (uint64_t *)dummy, rcnt, rd, MPI_UINT64_T, sby ? sby : (uint64_t *)dummy, sc, sd,
                      MPI_UINT64_T, comm);
    for (uint64_t i = 0; i < n && back; i++) {
        m->pc[i].nproc = back[2 * pos[i]];
        m->pc[i].owner = back[2 * pos[i] + 1];
        m->pc[i].abytes = sby ? sby[pos[i]] : 0;
    }
    if (want_list) {
        int mine = (int)nu, *all = cd_malloc((size_t)P * sizeof(int)), *dsp = cd_malloc((size_t)P * sizeof(int));
        if (!all || !dsp) lerr = 1;
        MPI_Allgather(&mine, 1, MPI_INT, all ? all : dummy, 1, MPI_INT, comm);
        uint64_t tot = 0;
        for (int r = 0; r < P && all && dsp; r++) { dsp[r] = (int)tot; tot += (uint64_t)all[r]; }
        *glist = cd_malloc((size_t)tot * sizeof(uint64_t));
        if (!*glist) lerr = 1;
        MPI_Allgatherv(uniq ? uniq : (uint64_t *)dummy, mine, MPI_UINT64_T, *glist ? *glist : (uint64_t *)dummy,
                       all, dsp, MPI_UINT64_T, comm);
        if (*glist) qsort(*glist, (size_t)tot, sizeof(uint64_t), cmp_u64);
        *gn = tot;
        cd_free(all);
        cd_free(dsp);
    }
    cd_free(sc);
    cd_free(sid);
    cd_free(rid);
    cd_free(pos);
    cd_free(uniq);
    cd_free(srcs);
    cd_free(rec);
    cd_free(rep);
    cd_free(back);
    cd_free(sby);
    cd_free(rby);
    if (lerr) return io_fail(io, COLLDIAG_ERR_NOMEM, "counting the ranks per chunk");
    return 0;
}

/* Threshold of the per-chunk ratio rule: collective iff nproc > max(1, floor(P * ratio / 100)). */
static unsigned ratio_threshold(int P, unsigned ratio)
{
    unsigned t = (unsigned)(((uint64_t)P * ratio) / 100u);
    return t < 1 ? 1 : t;
}

static int piece_io_mode(const cd_map *m)
{
    int mode = 0;
    for (uint64_t i = 0; i < m->n; i++) {
        if (m->pc[i].flags & PF_COLL) mode |= COLLDIAG_MPIO_CHUNK_COLLECTIVE;
        if (m->pc[i].flags & PF_IND) mode |= COLLDIAG_MPIO_CHUNK_INDEPENDENT;
    }
    return mode;
}

/* Indices of the pieces with (or without) PF_COLL, in address order. */
static uint64_t pick_pieces(const cd_io *io, int coll, uint64_t *out)
{
    uint64_t k = 0;
    for (uint64_t i = 0; i < io->map.n; i++) {
        uint64_t pi = io->order ? io->order[i] : i;
        if (((io->map.pc[pi].flags & PF_COLL) != 0) == coll) out[k++] = pi;
    }
    return k;
}

static void set_reason(cd_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_reason(cd_io *io, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(io->x->reason, sizeof io->x->reason, fmt, ap);
    va_end(ap);
    io->x->rz_auto = 0;
}

/* AUTO's reason, to be formatted when asked (xfer_reason): its estimates are x->auto_est. */
static void set_reason_auto(cd_io *io, uint64_t runs, uint64_t chunks, int P, int opt, size_t nsub)
{
    colldiag_xfer *x = io->x;
    x->reason[0] = 0;
    x->rz_auto = 1;
    x->rz_runs = runs;
    x->rz_chunks = chunks;
    x->rz_P = P;
    x->rz_opt = opt;
    x->rz_nsub = nsub;
}

/* The last call's scheme reason, formatted now if AUTO left it pending. Readers hold x as const (the
   report, colldiag_scheme_reason); every x is the caller's writable storage (colldiag_xfer_create,
   xfer_init), so formatting into it is a cache fill, as a const reader of the reason expects. */
static const char *xfer_reason(const colldiag_xfer *cx)
{
    colldiag_xfer *x = (colldiag_xfer *)cx;
    if (x->rz_auto) {
        x->rz_auto = 0;
        if (x->rz_nsub)
            snprintf(x->reason, sizeof x->reason, "AUTO over %zu datasets: estimated link %.3g s, multi %.3g s, aggregation %.3g s, independent "
                     "%.3g s -> %s", x->rz_nsub, x->auto_est[0], x->auto_est[1], x->auto_est[2], x->auto_est[3], cd_chunk_opt_env[x->rz_opt]);
        else
            snprintf(x->reason, sizeof x->reason, "AUTO: estimated link %.3g s, multi %.3g s, aggregation %.3g s, independent %.3g s (%" PRIu64
                     " runs, %" PRIu64 " chunks over %d ranks) -> %s", x->auto_est[0], x->auto_est[1], x->auto_est[2], x->auto_est[3],
                     x->rz_runs, x->rz_chunks, x->rz_P, cd_chunk_opt_env[x->rz_opt]);
    }
    return x->reason;
}

static const char *forced_by(const cd_io *io)
{
    return io->set.chunk_opt_src == io->set.env_text ? io->set.env_text : "forced by setting";
}

/* ---------------------------------------------------------------------------------------------------
 * 9. execution: chunk aggregation (AGGREGATE_IO)
 *
 * Fine-grained interleaved access (every rank a few bytes of every row of every chunk) makes MPI-IO
 * sort and merge millions of tiny runs. Aggregation first moves each chunk's pieces to one owner
 * (chosen by nproc_exchange: a rank touching the chunk, rotating over ranks), so the file sees each
 * chunk's covered bytes as a few long runs:
 *   1. each rank describes its piece of a chunk as two-level strided records (chunk-local offset,
 *      length, stride, count, then stride2 and count2 repeating that row) -- a chunk's every-third
 *      column is one record, not one per chunk row -- and, for writes, packs the piece's bytes;
 *      records and bytes go to the owners in one point-to-point exchange;
 *   2. an owner lays the pieces of each owned chunk into an image of the chunk's touched window with a
 *      coverage bitmap and emits the covered bytes as runs, in address order;
 *   3. one collective call (split so no rank moves more than the collective buffer per call) moves
 *      them; the datatype layer merges runs that touch across chunk boundaries;
 *   4. reads run step 2 backwards and send every rank its bytes in the order of its records.
 * Only covered bytes are written. Where ranks' pieces overlap, the highest rank's bytes win.
 * Memory: the whole cycle runs in agreed rounds of chunk-index windows in which no rank holds more
 * than three quarters of the collective buffer in its send buffer (reused for the owner's pack), the
 * pieces it receives as an owner and the records both ways (agg_budget; records are counted before
 * the first round), plus one chunk window; lists grow with the chunks touched. A chunk is never
 * split: one chunk larger than the budget is a round of its own.
 * --------------------------------------------------------------------------------------------------- */

/* Chunk-local bytes: count2 rows stride2 apart, each count runs of len bytes stride apart, in order. */
typedef struct { uint64_t off, len, stride, count, stride2, count2; } cd_rec;
#define AGG_HDR 4u   /* words before a piece's records: chunk index, record count, bytes, chunk address (the
                        sender's: an owner of a lazy layout may not have resolved a chunk it does not touch) */
#define AGG_REC 6u   /* words per record */

typedef struct {
    cd_io *io;
    uint64_t *meta;            /* words: headers and records of every piece, grouped by owner */
    uint64_t mlen, mcap;
    uint64_t rec0;             /* first record word of the current piece */
    MPI_Offset base;           /* the current chunk's address */
    unsigned char *cursor;     /* writes: where the next bytes of the current piece go */
    uint64_t mk, mn;           /* writes from a packed buffer: pending memory elements [mk, mk + mn) */
    uint64_t seen, kfirst;     /* elements walked; the first iteration index after mark was set */
    int mark;
    int pack;                  /* writes: copy the bytes too (0 when only counting records) */
    int nojoin;                /* the next run starts a record of its own (the first row of a block) */
    uint64_t fence;            /* no record at or after this word folds into one before it (0: none) */
    int nomem;
} cd_agg_send;

/* Packed memory: consecutive runs of a chunk row are usually consecutive in memory; copy them at once. */
static void agg_flush_mem(cd_agg_send *s)
{
    if (!s->mn) return;
    size_t es = s->io->mes;
    memcpy(s->cursor, (const unsigned char *)s->io->wbuf + s->mk * es, (size_t)(s->mn * es));
    s->cursor += s->mn * es;
    s->mn = 0;
}

/* The last record of the current piece is complete: fold it into the one before as one more row when
   it repeats that record's row at its row stride. */
static void agg_rec_close(cd_agg_send *s)
{
    if (s->nomem || s->mlen < s->rec0 + 2 * AGG_REC || s->mlen - 2 * AGG_REC < s->fence) return;
    cd_rec *p = (cd_rec *)(s->meta + s->mlen - 2 * AGG_REC), *r = p + 1;
    if (r->count2 != 1 || r->len != p->len || r->count != p->count || (r->count > 1 && r->stride != p->stride)) return;
    if (p->count2 == 1) {
        if (r->off <= p->off) return;
        p->stride2 = r->off - p->off;
    } else if (r->off != p->off + p->count2 * p->stride2) {
        return;
    }
    p->count2++;
    s->mlen -= AGG_REC;
}

/* Appends one run to the current piece, extending or striding the last record when it can. */
static void agg_rec_add(cd_agg_send *s, uint64_t off, uint64_t len)
{
    if (s->nomem) return;
    if (!s->nojoin && s->mlen > s->rec0 && ((cd_rec *)(s->meta + s->mlen - AGG_REC))->count2 == 1) {
        cd_rec *c = (cd_rec *)(s->meta + s->mlen - AGG_REC); /* open: only a row block (agg_rows_send) or a
                                                               closed record repeats */
        uint64_t end = c->off + (c->count - 1) * c->stride + c->len;
        if (c->count == 1 && off == end) { c->len += len; return; }
        if (len == c->len && c->count == 1 && off > c->off) { c->stride = off - c->off; c->count = 2; return; }
        if (len == c->len && c->count > 1 && off == c->off + c->count * c->stride) { c->count++; return; }
    }
    agg_rec_close(s);
    if (cd_grow((void **)&s->meta, &s->mcap, s->mlen + AGG_REC, sizeof *s->meta)) { s->nomem = 1; return; }
    cd_rec *r = (cd_rec *)(s->meta + s->mlen);
    r->off = off;
    r->len = len;
    r->stride = len;
    r->count = 1;
    r->stride2 = 0;
    r->count2 = 1;
    s->mlen += AGG_REC;
    s->nojoin = 0;
}

static int agg_run_send(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    cd_agg_send *s = ctx;
    if (s->mark) { s->kfirst = k; s->mark = 0; }
    s->seen += n;
    agg_rec_add(s, (uint64_t)(foff - s->base), n * s->io->fes);
    if (!s->pack) return 0;
    if (!s->io->ms) {
        if (s->mn && k == s->mk + s->mn) { s->mn += n; return 0; }
        agg_flush_mem(s);
        s->mk = k;
        s->mn = n;
        return 0;
    }
    cd_copy c = {s->io, s->cursor};
    int rc = cd_mem_runs(s->io->ms, k, n, mrun_copy_in, &c);
    s->cursor = c.cursor;
    return rc;
}
/* Rows 1..nrows-1 of a block repeat row 0's m elements (first iteration index k0) at kstride: copied
   row by row between memory and the contiguous cursor, in or out. */
static int agg_rows_copy(cd_copy *c, uint64_t k0, uint64_t m, uint64_t nrows, uint64_t kstride, int in)
{
    const cd_io *io = c->io;
    const size_t es = io->mes;
    for (uint64_t r = 1; r < nrows; r++) {
        const uint64_t k = k0 + r * kstride;
        if (!io->ms) {
            if (in) memcpy(c->cursor, (const unsigned char *)io->wbuf + k * es, (size_t)(m * es));
            else memcpy((unsigned char *)io->rbuf + k * es, c->cursor, (size_t)(m * es));
            c->cursor += m * es;
        } else {
            int rc = cd_mem_runs(io->ms, k, m, in ? mrun_copy_in : mrun_copy_out, c);
            if (rc) return rc;
        }
    }
    return 0;
}

/* A block of rows (cd_bfn) on the sending side: the first row is walked run by run, starting a record
   of its own; when it became exactly one record, the other rows are that record repeated (count2 rows, stride2 apart) and
   their bytes are copied a row at a time instead of a run at a time (B3: 85 single elements a row,
   256 rows a chunk). Otherwise every row is walked. */
static int agg_rows_send(void *ctx, const cd_walk *w, const cd_node *down, uint64_t off, uint64_t k, uint64_t nrows,
                         uint64_t pitch, uint64_t kstride)
{
    cd_agg_send *s = ctx;
    const uint64_t before = s->mlen, seen0 = s->seen;
    s->mark = 1;
    /* the row must stay apart from the records before it: neither continue the last one (nojoin) nor
       have its first record folded into an earlier one as another row (fence); either would leave
       the row split across records, and repeating "its" record would lose bytes */
    s->nojoin = 1;
    s->fence = before;
    int rc = cd_walk_row(w, down, off, k);
    s->nojoin = 0;
    s->fence = 0;
    if (rc) return rc;
    const uint64_t m = s->seen - seen0, k0 = s->kfirst;
    cd_rec *r = (cd_rec *)(s->meta + before);
    if (s->nomem || m == 0 || s->mlen != before + AGG_REC || r->count2 != 1) {
        for (uint64_t x = 1; x < nrows && !rc; x++) rc = cd_walk_row(w, down, off + x * pitch, k + x * kstride);
        return rc;
    }
    r->count2 = nrows;
    r->stride2 = pitch * w->esize;
    s->seen += m * (nrows - 1);
    if (!s->pack) return 0;
    agg_flush_mem(s); /* row 0's bytes first */
    cd_copy c = {s->io, s->cursor};
    rc = agg_rows_copy(&c, k0, m, nrows, kstride, 1);
    s->cursor = c.cursor;
    return rc;
}

/* Appends piece p's header and records to s->meta (and, with s->pack, its bytes at s->cursor).
   Returns nonzero when the walk failed; s->nomem says the records did not fit. */
static int agg_describe_piece(cd_agg_send *s, const cd_piece *p)
{
    cd_io *io = s->io;
    if (cd_grow((void **)&s->meta, &s->mcap, s->mlen + AGG_HDR, sizeof *s->meta)) { s->nomem = 1; return 0; }
    const uint64_t h = s->mlen;
    s->meta[h] = p->idx;
    s->meta[h + 2] = p->nelem * io->fes;
    s->meta[h + 3] = (uint64_t)p->addr;
    s->mlen += AGG_HDR;
    s->rec0 = s->mlen;
    s->base = p->addr;
    int rc = cd_walk_piece_blocks(&io->map, io->fs, p, agg_run_send, NULL, agg_rows_send, s);
    agg_flush_mem(s);
    agg_rec_close(s);
    if (!s->nomem) s->meta[h + 1] = (s->mlen - s->rec0) / AGG_REC;
    return rc;
}

/* The words (header and records) each piece sends its owner, counted before any round by describing
   every piece once without its bytes, so that rounds can budget the records as well as the data:
   records of fine-grained pieces (single elements, a record per chunk row or point) can outweigh
   their bytes. words[i] is 0 for unallocated pieces. Returns NULL (io failed) when out of memory. */
static uint64_t *agg_count_words(cd_io *io)
{
    const cd_map *m = &io->map;
    uint64_t *words = cd_inject(io, "records") ? NULL : cd_calloc((size_t)(m->n ? m->n : 1), sizeof *words);
    cd_agg_send s;
    memset(&s, 0, sizeof s);
    s.io = io;
    for (uint64_t i = 0; words && i < m->n && !io->code; i++) {
        if (m->pc[i].flags & PF_UNALLOC) continue;
        s.mlen = 0;
        if (agg_describe_piece(&s, &m->pc[i])) io_fail(io, COLLDIAG_ERR_ARG, "describing chunk %" PRIu64, m->pc[i].idx);
        if (s.nomem) break;
        words[i] = s.mlen;
    }
    cd_free(s.meta);
    if (!words || s.nomem) {
        cd_free(words);
        if (!io->code) io_fail(io, COLLDIAG_ERR_NOMEM, "counting the records of %" PRIu64 " chunks for aggregation", m->n);
        return NULL;
    }
    return words;
}

/* The receiving side of a read (scatter into memory), in the order agg_run_send described it. */
typedef struct { cd_copy c; uint64_t seen, kfirst; int mark; } cd_agg_recv;
static int agg_run_recv(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    (void)foff;
    cd_agg_recv *a = ctx;
    if (a->mark) { a->kfirst = k; a->mark = 0; }
    a->seen += n;
    return cd_mem_runs(a->c.io->ms, k, n, mrun_copy_out, &a->c);
}
static int agg_rows_recv(void *ctx, const cd_walk *w, const cd_node *down, uint64_t off, uint64_t k, uint64_t nrows,
                         uint64_t pitch, uint64_t kstride)
{
    (void)pitch;
    cd_agg_recv *a = ctx;
    const uint64_t seen0 = a->seen;
    a->mark = 1;
    int rc = cd_walk_row(w, down, off, k);
    if (rc) return rc;
    const uint64_t m = a->seen - seen0;
    /* every row of a block holds the same m elements, whether or not the sender folded them */
    if (m) rc = agg_rows_copy(&a->c, a->kfirst, m, nrows, kstride, 0);
    a->seen += m * (nrows - 1);
    return rc;
}

/* Messages of an exchange: every message is at most COLLDIAG_COLL_MAX_BYTES, so counts stay ints. */
static uint64_t agg_nmsg(const uint64_t *cnt, int P, int step, uint64_t scale)
{
    const uint64_t M = COLLDIAG_COLL_MAX_BYTES;
    uint64_t k = 0;
    for (int r = 0; r < P; r++) k += (cnt[step * r] * scale + M - 1) / M;
    return k;
}

typedef struct { MPI_Request *rq; MPI_Status *st; } cd_reqs; /* sized before the exchanges are agreed */

/* Point-to-point exchange of byte segments (per-peer counts and displacements). Collective in effect:
   both sides derive the same counts from one Alltoall. Returns an MPI code. */
static int agg_p2p(cd_io *io, const cd_reqs *rs, const unsigned char *sb, const uint64_t *scnt, const uint64_t *sdsp,
                   unsigned char *rb, const uint64_t *rcnt, const uint64_t *rdsp, int tag)
{
    const int P = io->f->size;
    const uint64_t M = COLLDIAG_COLL_MAX_BYTES;
    MPI_Request *rq = rs->rq;
    uint64_t q = 0;
    int rc = MPI_SUCCESS;
    for (int r = 0; r < P && rc == MPI_SUCCESS; r++)
        for (uint64_t o = 0; o < rcnt[r] && rc == MPI_SUCCESS; o += M)
            rc = MPI_Irecv(rb + rdsp[r] + o, (int)(rcnt[r] - o < M ? rcnt[r] - o : M), MPI_BYTE, r, tag, io->f->comm, &rq[q++]);
    for (int r = 0; r < P && rc == MPI_SUCCESS; r++)
        for (uint64_t o = 0; o < scnt[r] && rc == MPI_SUCCESS; o += M)
            rc = MPI_Isend(sb + sdsp[r] + o, (int)(scnt[r] - o < M ? scnt[r] - o : M), MPI_BYTE, r, tag, io->f->comm, &rq[q++]);
    if (q) {
        int w = MPI_Waitall((int)q, rq, rs->st); /* not MPI_STATUSES_IGNORE: MPICH's header then trips
                                                    gcc's -Wstringop-overflow */
        if (rc == MPI_SUCCESS) rc = w;
    }
    return rc;
}

/* One owned chunk on its owner: the pieces sent for it, and where its covered runs went. */
typedef struct {
    uint64_t idx;
    MPI_Offset addr;
    int src;
    const uint64_t *hdr;      /* header, then records */
    uint64_t doff;            /* the piece's bytes: offset in the received (write) or reply (read) buffer */
} cd_agg_ent;
static int cmp_agg_ent(const void *a, const void *b)
{
    const cd_agg_ent *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    if (x->idx != y->idx) return x->idx < y->idx ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}

typedef struct { MPI_Offset foff; uint64_t len; } cd_frun;

static void bits_set(uint64_t *b, uint64_t a, uint64_t n)
{
    while (n > 0 && (a & 63)) { b[a >> 6] |= 1ULL << (a & 63); a++; n--; }
    while (n >= 64) { b[a >> 6] = ~0ULL; a += 64; n -= 64; }
    while (n > 0) { b[a >> 6] |= 1ULL << (a & 63); a++; n--; }
}

/* Next covered run [*a, *b) at or after from, 0 if none. */
static int bits_next_run(const uint64_t *b, uint64_t nbits, uint64_t from, uint64_t *ra, uint64_t *rb)
{
    uint64_t i = from;
    while (i < nbits) {
        uint64_t w = b[i >> 6] >> (i & 63);
        if (w == 0) { i = (i | 63) + 1; continue; }
        i += (uint64_t)__builtin_ctzll(w);
        break;
    }
    if (i >= nbits) return 0;
    *ra = i;
    while (i < nbits) {
        uint64_t w = ~b[i >> 6] >> (i & 63);
        if ((i & 63) && w == 0) { i = (i | 63) + 1; continue; }
        if (w == 0) { i += 64; continue; }
        i += (uint64_t)__builtin_ctzll(w);
        break;
    }
    *rb = i < nbits ? i : nbits;
    return 1;
}

static uint64_t rec_end(const cd_rec *r) { return r->off + (r->count2 - 1) * r->stride2 + (r->count - 1) * r->stride + r->len; }

typedef struct {
    cd_agg_ent *ent;
    uint64_t nent;
    cd_frun *run;              /* covered runs of every owned chunk, address order */
    uint64_t nrun, runcap;
    uint64_t *grun;            /* per entry group (indexed by its first entry): first run */
    unsigned char *pack;       /* covered bytes, in run order: the round's send buffer, whose bytes are
                                  dead by then (agg_round), or packbuf when that is too small */
    uint64_t packlen, packcap;
    unsigned char *img;        /* one chunk window */
    uint64_t imgcap;
    uint64_t *bits;
    uint64_t bitscap;
} cd_agg_own;

/* The entries [i, return) are the pieces of one chunk; [*wlo, *whi) the chunk-local bytes they touch. */
static uint64_t agg_group(const cd_agg_own *o, uint64_t i, uint64_t *wlo, uint64_t *whi)
{
    uint64_t e = i;
    *wlo = UINT64_MAX;
    *whi = 0;
    while (e < o->nent && o->ent[e].idx == o->ent[i].idx) {
        const uint64_t *h = o->ent[e].hdr;
        const cd_rec *r = (const cd_rec *)(h + AGG_HDR);
        if (h[1]) {
            if (r[0].off < *wlo) *wlo = r[0].off;
            if (rec_end(&r[h[1] - 1]) > *whi) *whi = rec_end(&r[h[1] - 1]);
        }
        e++;
    }
    return e;
}

/* count single elements of es bytes, stride bytes apart from chunk-window offset off: their coverage
   bits, and for writes (img) their bytes from d. Element indices advance by addition: a division per
   element (es is not a constant) cost more than the copy. Fixed-size copies for 4 and 8 bytes. */
static void agg_place_elems(uint64_t *bits, unsigned char *img, const unsigned char *d, uint64_t off, uint64_t stride,
                            uint64_t count, size_t es)
{
    const uint64_t es_stride = stride / es;
    for (uint64_t c = 0, e = off / es; c < count; c++, e += es_stride) bits[e >> 6] |= 1ULL << (e & 63);
    if (!img) return;
    switch (es) {
    case 4: for (uint64_t c = 0; c < count; c++, off += stride, d += 4) memcpy(img + off, d, 4); break;
    case 8: for (uint64_t c = 0; c < count; c++, off += stride, d += 8) memcpy(img + off, d, 8); break;
    default: for (uint64_t c = 0; c < count; c++, off += stride, d += es) memcpy(img + off, d, es); break;
    }
}

/* The reverse for reads: count elements of len bytes, stride apart from off in the window, into d. */
static unsigned char *agg_take_runs(unsigned char *d, const unsigned char *img, uint64_t off, uint64_t stride,
                                    uint64_t count, uint64_t len)
{
    switch (len) {
    case 4: for (uint64_t c = 0; c < count; c++, off += stride, d += 4) memcpy(d, img + off, 4); break;
    case 8: for (uint64_t c = 0; c < count; c++, off += stride, d += 8) memcpy(d, img + off, 8); break;
    default: for (uint64_t c = 0; c < count; c++, off += stride, d += len) memcpy(d, img + off, (size_t)len); break;
    }
    return d;
}

/* Owner, step 2: for writes fills pack with the covered bytes; for reads only computes the runs. */
static int agg_owner_build(cd_io *io, cd_agg_own *o, const unsigned char *rdata)
{
    const size_t es = io->fes;
    int wr = io->dir == DIR_WRITE;
    MPI_Offset prev_end = -1;
    for (uint64_t i = 0; i < o->nent;) {
        uint64_t wlo, whi, e = agg_group(o, i, &wlo, &whi);
        o->grun[i] = o->nrun;
        if (whi > wlo) {
            uint64_t nel = (whi - wlo) / es, nw = nel / 64 + 1;
            /* writes assemble the window right where its covered bytes will go in the pack when it fits
               (covered runs then only move left); a separate window buffer otherwise */
            int inplace = wr && o->packcap - o->packlen >= whi - wlo;
            if ((wr && !inplace && cd_grow((void **)&o->img, &o->imgcap, whi - wlo, 1)) ||
                cd_grow((void **)&o->bits, &o->bitscap, nw, sizeof *o->bits))
                return io_fail(io, COLLDIAG_ERR_NOMEM, "a %" PRIu64 "-byte chunk window for aggregation", whi - wlo);
            unsigned char *img = inplace ? o->pack + o->packlen : o->img;
            memset(o->bits, 0, (size_t)nw * sizeof *o->bits);
            for (uint64_t j = i; j < e; j++) {
                const uint64_t *h = o->ent[j].hdr;
                const cd_rec *r = (const cd_rec *)(h + AGG_HDR);
                const unsigned char *d = wr ? rdata + o->ent[j].doff : NULL;
                for (uint64_t q = 0, row = 0; q < h[1]; row = row + 1 < r[q].count2 ? row + 1 : (q++, 0)) {
                    const uint64_t off0 = r[q].off + row * r[q].stride2 - wlo;
                    uint64_t off = off0;
                    if (r[q].len == es && r[q].stride % es == 0) { /* single elements (interleaved access): the hot case */
                        agg_place_elems(o->bits, wr ? img : NULL, d, off0, r[q].stride, r[q].count, es);
                        if (wr) d += r[q].count * es;
                        continue;
                    }
                    const uint64_t nel_run = r[q].len / es;
                    for (uint64_t c = 0; c < r[q].count; c++, off += r[q].stride) {
                        if (wr) {
                            memcpy(img + off, d, (size_t)r[q].len);
                            d += r[q].len;
                        }
                        bits_set(o->bits, off / es, nel_run);
                    }
                }
            }
            const MPI_Offset base = o->ent[i].addr + (MPI_Offset)wlo;
            uint64_t a, b, from = 0;
            while (bits_next_run(o->bits, nel, from, &a, &b)) {
                from = b;
                MPI_Offset f0 = base + (MPI_Offset)(a * es);
                uint64_t len = (b - a) * es;
                if (f0 < prev_end)
                    return io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " overlaps another chunk in the address table", o->ent[i].idx);
                prev_end = f0 + (MPI_Offset)len;
                if (cd_grow((void **)&o->run, &o->runcap, o->nrun + 1, sizeof *o->run))
                    return io_fail(io, COLLDIAG_ERR_NOMEM, "listing aggregated runs");
                o->run[o->nrun].foff = f0;
                o->run[o->nrun].len = len;
                o->nrun++;
                if (wr && o->pack + o->packlen != img + a * es) memmove(o->pack + o->packlen, img + a * es, (size_t)len);
                o->packlen += len;
            }
        }
        i = e;
    }
    return 0;
}

/* Owner, step 4 (reads): the pack back into chunk windows, and every piece's bytes into its reply. */
static int agg_owner_reply(cd_io *io, cd_agg_own *o, unsigned char *reply)
{
    uint64_t pk = 0;
    for (uint64_t i = 0; i < o->nent;) {
        uint64_t wlo, whi, e = agg_group(o, i, &wlo, &whi);
        if (whi > wlo) {
            if (cd_grow((void **)&o->img, &o->imgcap, whi - wlo, 1))
                return io_fail(io, COLLDIAG_ERR_NOMEM, "a %" PRIu64 "-byte chunk window for aggregation", whi - wlo);
            const MPI_Offset base = o->ent[i].addr + (MPI_Offset)wlo;
            uint64_t rend = e < o->nent ? o->grun[e] : o->nrun;
            for (uint64_t q = o->grun[i]; q < rend; q++) {
                memcpy(o->img + (o->run[q].foff - base), o->pack + pk, (size_t)o->run[q].len);
                pk += o->run[q].len;
            }
            for (uint64_t j = i; j < e; j++) {
                const uint64_t *h = o->ent[j].hdr;
                const cd_rec *r = (const cd_rec *)(h + AGG_HDR);
                unsigned char *d = reply + o->ent[j].doff;
                for (uint64_t q = 0; q < h[1]; q++)
                    for (uint64_t row = 0; row < r[q].count2; row++)
                        d = agg_take_runs(d, o->img, r[q].off + row * r[q].stride2 - wlo, r[q].stride, r[q].count, r[q].len);
            }
        }
        i = e;
    }
    return 0;
}

/* Step 3: the owner's runs in agreed rounds of collective calls (independent calls with INDIVIDUAL_IO).
   Every rank calls this, failed or not; gfail (agreed) skips the data. */
static void agg_move(cd_io *io, const cd_agg_own *o, uint64_t gmax)
{
    if (io->set.coll_opt == COLLDIAG_MPIO_INDIVIDUAL_IO) {
        double t0 = cd_now();
        uint64_t pk = 0;
        for (uint64_t q = 0; q < o->nrun && !io->code; q++) {
            io_raw(io, io->dir == DIR_WRITE, o->run[q].foff, o->pack + pk, o->run[q].len);
            pk += o->run[q].len;
        }
        io->x->cnt.t_io += cd_now() - t0;
        return;
    }
    /* calls of at most the collective buffer per rank (more only when one chunk's window is bigger) */
    const uint64_t cap = io->set.coll_buf < COLLDIAG_COLL_MAX_BYTES ? io->set.coll_buf : COLLDIAG_COLL_MAX_BYTES;
    uint64_t rounds = gmax / cap + (gmax % cap != 0) + (gmax == 0), total = io->code ? 0 : o->packlen;
    const uint64_t per = total / rounds + (total % rounds != 0);
    uint64_t q = 0, pos = 0; /* run cursor, and the pack offset where run q starts */
    for (uint64_t rd = 0; rd < rounds; rd++) {
        double t0 = cd_now();
        uint64_t lo = rd * per, hi = lo + per > total ? total : lo + per;
        if (lo > total) lo = total;
        cd_stream fs;
        memset(&fs, 0, sizeof fs);
        fs.flush_at = stream_flush_items(io);
        while (!io->code && q < o->nrun && pos < hi) {
            uint64_t a = pos > lo ? pos : lo, b = pos + o->run[q].len < hi ? pos + o->run[q].len : hi;
            stream_add(&fs, (int64_t)(o->run[q].foff + (MPI_Offset)(a - pos)), b - a);
            if (pos + o->run[q].len <= hi) { pos += o->run[q].len; q++; }
            else break;
        }
        if (fs.nomem) io_fail(io, COLLDIAG_ERR_NOMEM, "describing %" PRIu64 " aggregated runs", o->nrun);
        MPI_Datatype ft = MPI_DATATYPE_NULL;
        if (!io->code && cd_inject(io, "types")) io_fail(io, COLLDIAG_ERR_NOMEM, "building the MPI datatypes (injected)");
        if (!io->code && fs.bytes) {
            int rc = stream_type(&fs, &ft, &io->types_built);
            if (rc) cd_mpi_err(io, rc, "building the MPI datatypes");
        }
        if (!io->code && cd_inject(io, "io")) io_fail(io, COLLDIAG_ERR_MPI, "MPI_File_write_at_all failed (injected)");
        int have = !io->code && ft != MPI_DATATYPE_NULL;
        int rc = MPI_File_set_view(io->f->fh, 0, MPI_BYTE, have ? ft : MPI_BYTE, "native", MPI_INFO_NULL);
        if (rc != MPI_SUCCESS) { cd_mpi_err(io, rc, "MPI_File_set_view"); have = 0; }
        const uint64_t cnt = hi - lo; /* <= COLLDIAG_COLL_MAX_BYTES by the rounds */
        MPI_Count got = coll_data_call(io, o->pack + lo, (int)cnt, MPI_BYTE, cnt, have);
        if (got >= 0 && (uint64_t)got < cnt && io->dir == DIR_READ) /* past EOF: zeros, as unwritten storage */
            memset(o->pack + lo + got, 0, (size_t)(cnt - (uint64_t)got));
        if (ft != MPI_DATATYPE_NULL) MPI_Type_free(&ft);
        stream_free(&fs);
        io->x->cnt.t_io += cd_now() - t0;
    }
    view_reset(io);
}

/* Buffers of an aggregated call, reused by every round and grown to the largest round's needs. */
typedef struct {
    uint64_t *cnt;             /* 8P words: per peer r, [2r] record words and [2r+1] data bytes sent, their
                                  displacements, the same received, their displacements; then 4P for one
                                  exchange's byte counts and displacements; then P + 1 and P for grouping */
    uint64_t *by;              /* the round's allocated pieces, grouped by owner, ascending chunk inside */
    cd_agg_send s;
    unsigned char *sdata, *rdata, *packbuf;
    uint64_t scap, rcap, packbufcap;
    uint64_t *rmeta;
    uint64_t rmcap, entcap, gruncap, rqcap, stcap;
    cd_reqs rs;
    cd_agg_own o;
} cd_agg_state;

/* Buffers of a round (data, and records) grow to exactly what it needs, need elements of es bytes,
   their old contents dropped: doubling would round a 4 MiB budget up to 8 MiB. */
static int agg_reserve(void **p, uint64_t *cap, uint64_t need, size_t es)
{
    if (*p && need <= *cap) return 0;
    cd_free(*p);
    *p = cd_malloc((size_t)(need ? need : 1) * es);
    *cap = *p ? need : 0;
    return *p ? 0 : -1;
}

/* What one round may hold, as a rank estimates it before the round: the send buffer (its data, and
   later the owner's pack of covered bytes, at most what the owner received, in the same buffer), the
   received data, and the records both ways, reserved exactly:
       max(sent data, received) + received + sent records,  received = data + records,
   at most three quarters of the collective buffer, beside one chunk window. (A quarter each for the
   send copy, the received pieces and a separate pack, as before, cut B3's 5.6 MB per rank into two
   rounds of every exchange and collective call, and did not count the records.) */
static uint64_t agg_budget(const cd_io *io)
{
    const uint64_t b = io->set.coll_buf / 4 * 3;
    return b ? b : 1;
}

/* "Every remaining chunk": INT64_MAX, not UINT64_MAX, because MPICH 4.0.2 reduces MPI_UINT64_T with
   MPI_MIN/MPI_MAX as signed (MIN(UINT64_MAX, 48) = UINT64_MAX there). Chunk indices stay below it: a
   layout's storage must fit an MPI_Offset. */
#define AGG_ALL ((uint64_t)INT64_MAX)

/* This rank's proposal for the end of the round starting at piece j: the first chunk index it cannot
   take without going over the budget (its next chunk is always taken, so a round makes progress even
   when one chunk alone is bigger), AGG_ALL when all its remaining pieces fit. words: agg_count_words.
   Pure. */
static uint64_t agg_round_end(const cd_io *io, const uint64_t *words, uint64_t j, uint64_t n)
{
    const cd_map *m = &io->map;
    const uint64_t budget = agg_budget(io);
    uint64_t sd = 0, sw = 0, rb = 0, e = j;
    for (; e < n; e++) {
        const cd_piece *p = &m->pc[e];
        const int un = (p->flags & PF_UNALLOC) != 0;
        const uint64_t d = un ? 0 : p->nelem * io->fes, w = un ? 0 : words[e] * 8;
        const uint64_t r = !un && p->owner == io->f->rank ? p->abytes : 0;
        const uint64_t d2 = sd + d, r2 = rb + r;
        if (e > j && (d2 > r2 ? d2 : r2) + r2 + sw + w > budget) break;
        sd = d2;
        sw += w;
        rb = r2;
    }
    return e < n ? m->pc[e].idx : AGG_ALL;
}

/* One round over this rank's pieces [j0, j1): describe and pack them by owner, exchange, assemble on
   the owners, move the covered runs collectively, and for reads send the bytes back. Collective; a
   failed rank still takes part. Returns nonzero when the round failed on some rank (agreed), so that
   no further round starts. */
static int agg_round(cd_io *io, cd_agg_state *st, const uint64_t *words, uint64_t j0, uint64_t j1)
{
    const int P = io->f->size;
    const cd_map *m = &io->map;
    const int wr = io->dir == DIR_WRITE;
    double t0 = cd_now();
    uint64_t *sc = st->cnt, *sd = sc + 2 * P, *rc_ = sc + 4 * P, *rdp = sc + 6 * P; /* [2r] words, [2r+1] bytes */
    uint64_t *scb = sc + 8 * P, *sdb = scb + P, *rcb = scb + 2 * P, *rdbb = scb + 3 * P;
    uint64_t *gstart = sc + 12 * P, *fill = gstart + P + 1;
    memset(sc, 0, (size_t)P * 8 * sizeof *sc);
    cd_agg_send *s = &st->s;
    s->mlen = 0;
    s->mk = s->mn = 0;
    s->nomem = 0;
    s->pack = wr;
    cd_agg_own *o = &st->o;
    o->nent = o->nrun = o->packlen = 0;
    uint64_t dtotal = 0, nby = 0, rown = 0, mwords = 0;
    if (!io->code) {
        memset(gstart, 0, (size_t)(2 * P + 1) * sizeof *gstart);
        for (uint64_t i = j0; i < j1; i++) {
            if (m->pc[i].flags & PF_UNALLOC) continue; /* reads give zeros here; writes failed earlier */
            sc[2 * m->pc[i].owner + 1] += m->pc[i].nelem * io->fes;
            dtotal += m->pc[i].nelem * io->fes;
            if (m->pc[i].owner == io->f->rank) rown += m->pc[i].abytes; /* what the owner will receive */
            mwords += words[i];
            gstart[m->pc[i].owner + 1]++;
        }
        for (int r = 0; r < P; r++) gstart[r + 1] += gstart[r];
        for (uint64_t i = j0; i < j1; i++)
            if (!(m->pc[i].flags & PF_UNALLOC)) st->by[gstart[m->pc[i].owner] + fill[m->pc[i].owner]++] = i;
        nby = gstart[P];
        /* sized for the pack as well, which takes this buffer over once its bytes are sent */
        if (agg_reserve((void **)&st->sdata, &st->scap, dtotal > rown ? dtotal : rown, 1) ||
            agg_reserve((void **)&s->meta, &s->mcap, mwords, sizeof *s->meta))
            io_fail(io, COLLDIAG_ERR_NOMEM, "a %" PRIu64 "-byte aggregation send buffer", dtotal > rown ? dtotal : rown);
        /* describe (and for writes pack) every piece, owner by owner */
        s->cursor = st->sdata;
        for (int r = 0; r < P && !io->code; r++) {
            sd[2 * r] = s->mlen;
            sd[2 * r + 1] = (uint64_t)(s->cursor - st->sdata);
            for (uint64_t j = gstart[r]; j < gstart[r + 1] && !io->code; j++) {
                const cd_piece *p = &m->pc[st->by[j]];
                if (!wr) s->cursor += p->nelem * io->fes;
                if (agg_describe_piece(s, p)) io_fail(io, COLLDIAG_ERR_ARG, "gathering chunk %" PRIu64, p->idx);
                if (s->nomem) break;
            }
            sc[2 * r] = s->mlen - sd[2 * r];
        }
        if (s->nomem) io_fail(io, COLLDIAG_ERR_NOMEM, "describing %" PRIu64 " chunks for aggregation", j1 - j0);
    }
    if (!io->code && cd_inject(io, "exchange")) io_fail(io, COLLDIAG_ERR_NOMEM, "the aggregation exchange (injected)");
    if (io->code) memset(sc, 0, (size_t)P * 2 * sizeof *sc); /* a failed rank sends nothing; peers expect nothing */
    int mrc = MPI_Alltoall(sc, 2, MPI_UINT64_T, rc_, 2, MPI_UINT64_T, io->f->comm);
    if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "MPI_Alltoall (aggregation counts)");
    uint64_t rmw = 0, rdb = 0;
    for (int r = 0; r < P; r++) { rdp[2 * r] = rmw; rdp[2 * r + 1] = rdb; rmw += rc_[2 * r]; rdb += rc_[2 * r + 1]; }
    /* request arrays for the largest of the exchanges (records; bytes; and the reply, its mirror) */
    uint64_t nm = agg_nmsg(sc, P, 2, 8) + agg_nmsg(rc_, P, 2, 8), nd = agg_nmsg(sc + 1, P, 2, 1) + agg_nmsg(rc_ + 1, P, 2, 1);
    uint64_t nreq = nm > nd ? nm : nd;
    /* a rank that cannot post its receives would leave its peers' sends hanging: agree first */
    int lost = agg_reserve((void **)&st->rmeta, &st->rmcap, rmw, sizeof *st->rmeta) ||
               agg_reserve((void **)&st->rdata, &st->rcap, rdb, 1) ||
               (rdb > st->scap && agg_reserve((void **)&st->packbuf, &st->packbufcap, rdb, 1)) ||
               cd_grow((void **)&st->rs.rq, &st->rqcap, nreq ? nreq : 1, sizeof(MPI_Request)) ||
               cd_grow((void **)&st->rs.st, &st->stcap, nreq ? nreq : 1, sizeof(MPI_Status));
    o->pack = rdb > st->scap ? st->packbuf : st->sdata;
    o->packcap = rdb > st->scap ? st->packbufcap : st->scap;
    int glost = 1;
    if (!lost && !io->code && cd_inject(io, "buffers")) lost = 1;
    if (lost) io_fail(io, COLLDIAG_ERR_NOMEM, "aggregation exchange buffers (%" PRIu64 " bytes to receive)", rdb);
    mrc = MPI_Allreduce(&lost, &glost, 1, MPI_INT, MPI_MAX, io->f->comm);
    if (mrc != MPI_SUCCESS) { cd_mpi_err(io, mrc, "MPI_Allreduce (aggregation buffers)"); glost = 1; }
    if (!glost) {
        for (int r = 0; r < P; r++) {
            scb[r] = sc[2 * r] * 8; sdb[r] = sd[2 * r] * 8; rcb[r] = rc_[2 * r] * 8; rdbb[r] = rdp[2 * r] * 8;
        }
        mrc = agg_p2p(io, &st->rs, (const unsigned char *)s->meta, scb, sdb, (unsigned char *)st->rmeta, rcb, rdbb, 71);
        if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "exchanging chunk pieces");
        if (wr) {
            for (int r = 0; r < P; r++) {
                scb[r] = sc[2 * r + 1]; sdb[r] = sd[2 * r + 1]; rcb[r] = rc_[2 * r + 1]; rdbb[r] = rdp[2 * r + 1];
            }
            mrc = agg_p2p(io, &st->rs, st->sdata, scb, sdb, st->rdata, rcb, rdbb, 72);
            if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "exchanging chunk bytes");
        }
    }
    /* owner: entries for every piece received, sorted by chunk address (nothing was received when a
       rank could not take part in the exchange) */
    if (!io->code && !glost) {
        const uint64_t *rmeta = st->rmeta;
        uint64_t ne = 0;
        for (uint64_t w = 0; w < rmw;) {
            if (w + AGG_HDR > rmw || rmeta[w + 1] > (rmw - w - AGG_HDR) / AGG_REC) { io_fail(io, COLLDIAG_ERR_MPI, "a malformed aggregation message"); break; }
            w += AGG_HDR + rmeta[w + 1] * AGG_REC;
            ne++;
        }
        if (cd_grow((void **)&o->ent, &st->entcap, ne ? ne : 1, sizeof *o->ent) ||
            cd_grow((void **)&o->grun, &st->gruncap, ne ? ne : 1, sizeof *o->grun))
            io_fail(io, COLLDIAG_ERR_NOMEM, "listing %" PRIu64 " received pieces", ne);
        for (int r = 0; r < P && !io->code; r++) {
            uint64_t doff = rdp[2 * r + 1];
            for (uint64_t w = rdp[2 * r]; w < rdp[2 * r] + rc_[2 * r];) {
                cd_agg_ent *e = &o->ent[o->nent++];
                e->idx = rmeta[w];
                e->addr = io->l->storage == STORE_CHUNKED && e->idx < io->l->nchunks ? (MPI_Offset)rmeta[w + 3] : -1;
                e->src = r;
                e->hdr = rmeta + w;
                e->doff = doff;
                doff += rmeta[w + 2];
                if (e->addr < 0) { io_fail(io, COLLDIAG_ERR_MPI, "aggregation message for chunk %" PRIu64 " without storage", e->idx); break; }
                w += AGG_HDR + rmeta[w + 1] * AGG_REC;
            }
        }
        if (!io->code) {
            qsort(o->ent, (size_t)o->nent, sizeof *o->ent, cmp_agg_ent);
            agg_owner_build(io, o, st->rdata);
        }
    }
    uint64_t held = st->scap + st->rcap + st->packbufcap + o->imgcap;
    if (held > io->x->data_buf_bytes) io->x->data_buf_bytes = held;
    /* the exchange and the owners' assembly count as moving data */
    io->x->cnt.t_io += cd_now() - t0;
    /* agree on the round's calls and on whether anybody failed: nobody moves data unless everybody can */
    uint64_t v[2] = {io->code ? 0 : o->packlen, io->code != 0}, g[2] = {0, 0};
    mrc = MPI_Allreduce(v, g, 2, MPI_UINT64_T, MPI_MAX, io->f->comm);
    if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "MPI_Allreduce (aggregation rounds)");
    if (g[1] || glost || mrc != MPI_SUCCESS) return 1;
    agg_move(io, o, g[0]);
    if (!wr) {
        t0 = cd_now();
        /* replies: each owner returns every piece's bytes in the order its records came */
        if (!io->code) agg_owner_reply(io, o, st->rdata);
        held = st->scap + st->rcap + st->packbufcap + o->imgcap; /* the reply's chunk window is a data copy too */
        if (held > io->x->data_buf_bytes) io->x->data_buf_bytes = held;
        for (int r = 0; r < P; r++) {
            scb[r] = rc_[2 * r + 1]; sdb[r] = rdp[2 * r + 1]; rcb[r] = sc[2 * r + 1]; rdbb[r] = sd[2 * r + 1];
        }
        mrc = agg_p2p(io, &st->rs, st->rdata, scb, sdb, st->sdata, rcb, rdbb, 73);
        if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "returning chunk bytes");
        /* scatter into memory, owner group by owner group in the order the pieces were described */
        cd_agg_recv c;
        memset(&c, 0, sizeof c);
        c.c.io = io;
        c.c.cursor = st->sdata;
        for (uint64_t j = 0; j < nby && !io->code; j++) {
            const cd_piece *p = &m->pc[st->by[j]];
            if (cd_walk_piece_blocks(m, io->fs, p, agg_run_recv, NULL, agg_rows_recv, &c))
                io_fail(io, COLLDIAG_ERR_ARG, "scattering chunk %" PRIu64, p->idx);
        }
        io->x->cnt.t_io += cd_now() - t0;
    }
    return 0;
}

/* The whole scheme after owners are known (pc[].owner, and on owners pc[].abytes), in agreed rounds of
   chunk-index windows: each rank proposes where its budget (agg_budget) ends, one MIN-reduction picks
   the earliest proposal, and every chunk below it moves in that round, so all of a chunk's pieces meet
   on its owner in the same round (the highest rank's bytes win where pieces overlap). A round carries
   the agreed failure of the one before, so a failure anywhere stops every rank before the next. The
   number of rounds is about the largest rank's bytes over the budget when the load is even, and never
   more than the sum over ranks. Collective; a failed rank still takes part. */
static void exec_aggregate(cd_io *io, const uint64_t *words)
{
    const int P = io->f->size;
    const cd_map *m = &io->map;
    uint64_t n = io->code ? 0 : m->n;
    cd_agg_state st;
    memset(&st, 0, sizeof st);
    st.s.io = io;
    st.cnt = cd_calloc((size_t)P * 14 + 1, sizeof *st.cnt);
    st.by = cd_malloc((size_t)(n ? n : 1) * sizeof *st.by);
    if (!st.cnt || !st.by) { io_fail(io, COLLDIAG_ERR_NOMEM, "aggregation counts for %d ranks and %" PRIu64 " chunks", P, n); n = 0; }
    for (uint64_t j = 0;;) {
        uint64_t v[2] = {io->code ? AGG_ALL : agg_round_end(io, words, j, n), io->code ? 0 : 1}, g[2] = {0, 0};
        int mrc = MPI_Allreduce(v, g, 2, MPI_UINT64_T, MPI_MIN, io->f->comm);
        if (mrc != MPI_SUCCESS) { cd_mpi_err(io, mrc, "MPI_Allreduce (aggregation round)"); break; }
        if (!g[1]) break; /* some rank failed: nobody starts another round */
        uint64_t k = j;
        while (k < n && m->pc[k].idx < g[0]) k++;
        if (agg_round(io, &st, words, j, k) || g[0] == AGG_ALL) break;
        j = k;
    }
    /* reads: unallocated chunks read as zeros, locally */
    for (uint64_t i = 0; i < n && io->dir != DIR_WRITE && !io->code; i++)
        if (m->pc[i].flags & PF_UNALLOC) cd_walk_piece(m, io->fs, &m->pc[i], run_zero, io);
    cd_free(st.cnt);
    cd_free(st.by);
    cd_free(st.rs.rq);
    cd_free(st.rs.st);
    cd_free(st.s.meta);
    cd_free(st.sdata);
    cd_free(st.rmeta);
    cd_free(st.rdata);
    cd_free(st.o.ent);
    cd_free(st.o.grun);
    cd_free(st.o.run);
    cd_free(st.packbuf);
    cd_free(st.o.img);
    cd_free(st.o.bits);
}


/* ---------------------------------------------------------------------------------------------------
 * 7. decision: AUTO's cost model
 *
 * Inputs are the agreed totals every rank already holds after the first reduction, so choosing costs
 * no extra communication and every rank chooses the same. Estimated seconds, with the constants k of
 * the settings (COLLDIAG_AUTO_*), P ranks, and
 *   R = max(runs on the busiest rank, all runs / P)   -- two-phase I/O handles every rank's runs on the
 *                                                        aggregators, spread over about P of them
 *   B = bytes of the busiest rank, C = chunks of the busiest rank,
 *   N = collective chunks under multi-chunk, estimated before the rank counts exist: pieces that do
 *       not cover their chunk (only those can be shared), summed over ranks, over the fewest ranks
 *       that make a chunk collective (thr + 1 of the ratio rule);
 *   M = the busiest rank's own part of multi-chunk (multi_local): whole-chunk pieces go independent,
 *       partial ones collective;
 *   link        LAT + R RUN + MR MRUN + B / BW_IO
 *               (MR: memory blocks of the busiest rank too long to be packed, link_mem_runs)
 *   multi       N LAT + M,    M = bytes_whole / BW_IND + stretches IND + bytes_partial / BW_IO + runs_partial RUN
 *   aggregation LAT + 5 LAT_X + R COPY + C RUN + B (2 / BW_COPY + 1 / BW_NET) + B / BW_IO
 *               (a round's five exchange steps: its end, counts, buffers agreed, records and bytes,
 *                the move agreed; pack and assemble; owners write about one run per chunk they own,
 *                at most the chunks they touch)
 *   independent I,  I = bytes / BW_IND + (stretches + runs_partial) IND   (the busiest rank's own, no
 *               collective data call: what multi-chunk costs when nothing is shared, and the answer
 *               when pieces two ranks share are few long runs, e.g. slabs and row blocks whose edge
 *               chunks are split; every call of ALL_CHUNK_IND is one contiguous file stretch)
 * Ties go to the earlier of link, multi, aggregation, independent.
 * Where N overestimates (partial pieces nobody shares), multi looks dearer than it is: AUTO then errs
 * toward link, never toward thousands of collective calls.
 * --------------------------------------------------------------------------------------------------- */

/* This rank's inputs to multi-chunk's estimate: its pieces that do not cover their chunk, its own
   part M of multi's time, and its time I with independent calls only (see above), in ns. Local and
   pure. */
static void multi_local(const cd_io *io, uint64_t *partial, uint64_t *ns, uint64_t *ind_ns)
{
    *partial = 0;
    *ns = *ind_ns = 0;
    if (io->l->storage != STORE_CHUNKED) return;
    const double *k = io->set.k;
    double bw = 0, bp = 0, rp = 0, stretches = 0;
    MPI_Offset end = -1;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const cd_piece *p = &io->map.pc[i];
        const double b = (double)(p->nelem * io->fes);
        if (p->nelem < chunk_elems_in(io->l, p->idx)) {
            (*partial)++;
            bp += b;
            rp += (double)p->nruns;
            continue;
        }
        bw += b;
        if (p->addr != end) stretches++; /* whole chunks next to each other go as one independent call */
        end = p->addr + (MPI_Offset)(p->nelem * io->fes);
    }
    double t = bw / k[CD_K_BW_IND] + stretches * k[CD_K_IND] + bp / k[CD_K_BW_IO] + rp * k[CD_K_RUN];
    double ti = (bw + bp) / k[CD_K_BW_IND] + (stretches + rp) * k[CD_K_IND];
    *ns = t * 1e9 < 1.8e19 ? (uint64_t)(t * 1e9) : UINT64_MAX / 2;
    *ind_ns = ti * 1e9 < 1.8e19 ? (uint64_t)(ti * 1e9) : UINT64_MAX / 2;
}

/* The touched-chunk map: a coarse bitmap of the chunk grid (chunk idx sets bit idx / ceil(nchunks /
   bits)), OR-reduced with the agreement, with the ranks' own bit counts summed beside it. When the
   sum equals the bits of the OR, no bit and so no chunk has two ranks: counting ranks per chunk
   (nproc_exchange: an all-to-all of counts and two of ids) has nothing to find, and multi-chunk or
   aggregation over disjoint blocks (B2) costs the one reduction every collective call makes anyway.
   Coarse, so a sufficient test only: ranks that share a bit but no chunk count as before. 512 bits,
   so that the whole agreement vector stays under 256 bytes: 64 words cost every call 12 us more on
   3 ranks (two reductions a call; Open MPI's allreduce changes algorithm above that size). Local work
   O(touched chunks). */
static void touch_map(const cd_io *io, uint64_t *bits, uint64_t *nbits)
{
    const uint64_t nb = 64 * (uint64_t)CD_TOUCH_WORDS, per = io->l->nchunks / nb + (io->l->nchunks % nb != 0);
    memset(bits, 0, CD_TOUCH_WORDS * sizeof *bits);
    *nbits = 0;
    if (io->l->storage != STORE_CHUNKED || per == 0) return;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const uint64_t b = io->map.pc[i].idx / per;
        bits[b / 64] |= (uint64_t)1 << (b % 64);
    }
    for (int w = 0; w < CD_TOUCH_WORDS; w++) *nbits += popcount64(bits[w]);
}

/* Memory runs this rank would hand MPI's datatype engine under link-chunk: pieces whose rows are long
   enough not to be packed (COLLDIAG_PACK_RUN_BYTES) keep one memory block per row. Local and pure. */
static uint64_t link_mem_runs(const cd_io *io)
{
    uint64_t mr = 0;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const cd_piece *p = &io->map.pc[i];
        if (p->mruns > 1 && io->set.pack_run && p->nelem * io->mes >= (uint64_t)io->set.pack_run * p->mruns) mr += p->mruns;
    }
    return mr;
}

static int auto_choose(const cd_io *io, double est[4])
{
    const uint64_t *g = io->g;
    const int P = io->f->size;
    const double *k = io->set.k;
    const double R = (double)(g[AG_MAX_RUNS] > g[AG_SUM_RUNS] / (uint64_t)P ? g[AG_MAX_RUNS] : g[AG_SUM_RUNS] / (uint64_t)P);
    const double B = (double)g[AG_MAX_BYTES], C = (double)g[AG_MAX_CHUNKS];
    const unsigned need = ratio_threshold(P, io->set.ratio) + 1; /* ranks that make a chunk collective */
    const double S = (double)g[AG_SUM_CHUNKS] / (double)P;
    const double N = io->set.ratio == 0 ? (C > S ? C : S) /* every touched chunk is collective */
                   : (unsigned)P >= need ? (double)g[AG_SUM_PARTIAL] / (double)need : 0.0;
    est[0] = k[CD_K_LAT] + R * k[CD_K_RUN] + (double)g[AG_MAX_MRUNS] * k[CD_K_MRUN] + B / k[CD_K_BW_IO];
    est[1] = N * k[CD_K_LAT] + (double)g[AG_MAX_MULTI_NS] * 1e-9;
    est[2] = k[CD_K_LAT] + 5 * k[CD_K_LAT_X] + R * k[CD_K_COPY] + C * k[CD_K_RUN] +
             B * (2 / k[CD_K_BW_COPY] + 1 / k[CD_K_BW_NET]) + B / k[CD_K_BW_IO];
    est[3] = (double)g[AG_MAX_IND_NS] * 1e-9;
    int best = 0;
    for (int i = 1; i < 4; i++)
        if (est[i] < est[best]) best = i;
    static const int opt[4] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO,
                               COLLDIAG_MPIO_ALL_CHUNK_IND_IO};
    return opt[best];
}

/* Chunked collective execution: the scheme, its per-chunk decisions, and the data. */
static void exec_chunked(cd_io *io)
{
    colldiag_xfer *x = io->x;
    cd_map *m = &io->map;
    const int P = io->f->size;
    int opt = io->set.chunk_opt;
    x->auto_est[0] = x->auto_est[1] = x->auto_est[2] = x->auto_est[3] = -1.0;
    const int model_best = auto_choose(io, x->model_est); /* O(1): the report's advice compares every scheme */
    if (opt == COLLDIAG_MPIO_CHUNK_AUTO) {
        opt = model_best;
        memcpy(x->auto_est, x->model_est, sizeof x->auto_est);
        set_reason_auto(io, io->g[AG_SUM_RUNS], io->g[AG_SUM_CHUNKS], P, opt, 0);
    } else if (opt == COLLDIAG_MPIO_CHUNK_DEFAULT) {
        uint64_t avg = io->g[AG_SUM_CHUNKS] / (uint64_t)P;
        int link = avg >= io->set.num;
        set_reason(io, "DEFAULT: average %" PRIu64 " chunks/rank (%" PRIu64 " over %d ranks) %s num %u -> %s", avg,
                   io->g[AG_SUM_CHUNKS], P, link ? ">=" : "<", io->set.num, link ? "link-chunk" : "multi-chunk");
        opt = link ? COLLDIAG_MPIO_CHUNK_ONE_IO : COLLDIAG_MPIO_CHUNK_MULTI_IO;
    } else {
        set_reason(io, "%s (%s)", forced_by(io), cd_chunk_opt_env[opt]);
    }
    uint64_t *list = cd_malloc((size_t)(m->n ? m->n : 1) * sizeof *list);
    if (!list) io_fail(io, COLLDIAG_ERR_NOMEM, "listing %" PRIu64 " chunks", m->n);
    const uint64_t n = io->code ? 0 : m->n;
    /* HDF5 1.10 on filtered chunks, for the HDF5 bridge's plans (colldiag moves no filtered data): a
       link-chunk read and every multi-chunk transfer take HDF5's filtered multi-chunk path, which moves
       every chunk collectively (H5Dmpio.c: "Multi-chunk IO must be forced for parallel filtered read") */
    if (io->f->plan_only && io->l->filtered &&
        (opt == COLLDIAG_MPIO_CHUNK_MULTI_IO || (opt == COLLDIAG_MPIO_CHUNK_ONE_IO && io->f->plan_read))) {
        char was[sizeof x->reason];
        snprintf(was, sizeof was, "%s", xfer_reason(x));
        set_reason(io, "%s; filtered chunks: HDF5's filtered multi-chunk path, every chunk collective", was);
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= PF_COLL;
        x->chunk_opt_done = COLLDIAG_MPIO_MULTI_CHUNK;
        x->io_mode_done = COLLDIAG_MPIO_CHUNK_COLLECTIVE;
        cd_free(list);
        return;
    }
    switch (opt) {
    case COLLDIAG_MPIO_CHUNK_ONE_IO:
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= PF_COLL;
        coll_call(io, NULL, n);
        if (io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(io);
        x->chunk_opt_done = COLLDIAG_MPIO_LINK_CHUNK;
        x->io_mode_done = COLLDIAG_MPIO_CHUNK_COLLECTIVE; /* every rank, even one with nothing: as HDF5 */
        break;
    case COLLDIAG_MPIO_CHUNK_MULTI_IO:
    case COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO: {
        int multi = opt == COLLDIAG_MPIO_CHUNK_MULTI_IO;
        unsigned thr = ratio_threshold(P, io->set.ratio);
        x->thr = thr;
        x->ratio0 = io->set.ratio == 0;
        uint64_t *gl = NULL, gn = 0;
        int want = multi && io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO;
        nproc_exchange(io, thr, io->set.ratio == 0, want, 0, NULL, &gl, &gn);
        for (uint64_t i = 0; i < n; i++)
            m->pc[i].flags |= (io->set.ratio == 0 || (unsigned)m->pc[i].nproc > thr) ? PF_COLL : PF_IND;
        if (multi) {
            if (want) {
                /* one collective call per collective chunk anybody touched, ascending index */
                uint64_t j = 0;
                for (uint64_t g = 0; g < gn; g++) {
                    while (j < n && m->pc[j].idx < gl[g]) j++;
                    int mine = j < n && m->pc[j].idx == gl[g] && !io->code;
                    coll_call_piece(io, mine ? &j : NULL, mine ? 1 : 0);
                }
                if (gn) view_reset(io);
            } else {
                uint64_t k = list ? pick_pieces(io, 1, list) : 0;
                for (uint64_t i = 0; i < k; i++) coll_call_piece(io, &list[i], 1);
            }
        } else {
            uint64_t k = list && !io->code ? pick_pieces(io, 1, list) : 0;
            coll_call(io, list, k);
            if (io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(io);
        }
        cd_free(gl);
        if (list && !io->code) ind_pieces(io, list, pick_pieces(io, 0, list), 0);
        x->chunk_opt_done = multi ? COLLDIAG_MPIO_MULTI_CHUNK : COLLDIAG_MPIO_COLL_CHUNK_ATONCE;
        x->io_mode_done = piece_io_mode(m);
        break;
    }
    case COLLDIAG_MPIO_ALL_CHUNK_IND_IO:
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= PF_IND;
        ind_pieces(io, NULL, n, 1);
        x->chunk_opt_done = COLLDIAG_MPIO_ALL_CHUNK_IND;
        x->io_mode_done = piece_io_mode(m);
        break;
    case COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT: {
        uint64_t rounds = io->g[AG_MIN_CHUNKS];
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= i < rounds ? PF_COLL : PF_IND;
        for (uint64_t r = 0; r < rounds; r++) {
            uint64_t j = r;
            coll_call_piece(io, io->code ? NULL : &j, io->code ? 0 : 1);
        }
        if (rounds && io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(io);
        if (list && !io->code) ind_pieces(io, list, pick_pieces(io, 0, list), 0);
        set_reason(io, "%s (multi_no_opt): %" PRIu64 " collective rounds = fewest chunks on any rank", forced_by(io), rounds);
        x->chunk_opt_done = COLLDIAG_MPIO_MULTI_CHUNK_NO_OPT;
        x->io_mode_done = piece_io_mode(m);
        break;
    }
    case COLLDIAG_MPIO_CHUNK_AGGREGATE_IO: {
        /* owners come from the same exchange that counts ranks per chunk, so nproc is exact too; the
           records each piece will send are counted first, so that owners learn their incoming records
           with their incoming bytes */
        uint64_t *words = io->dir != DIR_PLAN && !io->code ? agg_count_words(io) : NULL;
        nproc_exchange(io, 1, 1, 0, io->dir != DIR_PLAN, words, NULL, NULL);
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= PF_COLL;
        if (io->dir != DIR_PLAN) exec_aggregate(io, words);
        cd_free(words);
        x->chunk_opt_done = COLLDIAG_MPIO_CHUNK_AGGREGATE;
        x->io_mode_done = COLLDIAG_MPIO_CHUNK_COLLECTIVE; /* every rank joins the exchange and the call */
        break;
    }
    default:
        io_fail(io, COLLDIAG_ERR_UNSUPPORTED, "chunk optimization %s is not implemented in this version", cd_chunk_opt_env[opt]);
        break;
    }
    cd_free(list);
}

/* --- results --- */

static int fill_chunk_info(cd_io *io)
{
    colldiag_xfer *x = io->x;
    const colldiag_layout *l = io->l;
    x->nchunks = 0;
    x->chunks_ready = 0;
    if (l && l->storage == STORE_CHUNKED) {
        x->grid_rank = l->rank;
        memcpy(x->grid, l->grid, (size_t)l->rank * sizeof *l->grid);
    }
    if (!l || l->storage != STORE_CHUNKED || io->map.n == 0) return 0;
    x->nchunks = io->map.n;
    io->keep_pieces = 1; /* finish() hands the piece array to the xfer */
    return 0;
}

/* The public chunk info of the first upto chunks, built from the kept pieces on first request: a call
   touching a million chunks does not pay 300 bytes a chunk unless somebody looks. */
static const colldiag_chunk_info *chunks_view(const colldiag_xfer *cx, uint64_t upto)
{
    colldiag_xfer *x = (colldiag_xfer *)cx; /* a cache: the results do not change */
    if (upto > x->nchunks) upto = x->nchunks;
    if (upto <= x->chunks_ready) return x->chunks;
    if (cd_grow((void **)&x->chunks, &x->chunks_cap, upto, sizeof *x->chunks)) return NULL;
    const cd_piece *pc = x->pcs;
    for (uint64_t i = x->chunks_ready; i < upto; i++) {
        const cd_piece *p = &pc[i];
        colldiag_chunk_info *c = &x->chunks[i];
        memset(c, 0, sizeof *c);
        c->index = p->idx;
        uint64_t idx = p->idx;
        for (int d = x->grid_rank - 1; d >= 0; d--) { c->coords[d] = idx % x->grid[d]; idx /= x->grid[d]; }
        c->addr = p->addr;
        c->nelem = p->nelem;
        c->nproc = p->nproc;
        c->collective = (p->flags & PF_COLL) != 0;
        c->owner = x->chunk_opt_done == COLLDIAG_MPIO_CHUNK_AGGREGATE ? p->owner : -1;
        c->dataset = (int)p->ds;
        if (x->nds) { /* a multi-dataset call: the piece's own dataset's grid and scheme */
            const cd_dsres *r = &x->dsr[p->ds];
            idx = p->idx;
            for (int d = r->grid_rank - 1; d >= 0; d--) { c->coords[d] = idx % r->grid[d]; idx /= r->grid[d]; }
            c->owner = r->chunk_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE ? p->owner : -1;
        }
    }
    x->chunks_ready = upto;
    return x->chunks;
}

/* The agreement vector of a rank that contributes nothing but its causes and its failure (if any): the
   identity of every other entry (0 for OR, SUM and MAX, UINT64_MAX for MIN), so the reduction gives what
   the other ranks alone would. A rank whose checks failed sends it to the first reduction (it must not
   map, digest or measure arguments it has just rejected); every rank sends it to the closing one. */
static void agree_neutral(const cd_io *io, uint32_t cause, uint64_t v[AG_N])
{
    memset(v, 0, AG_N * sizeof *v);
    v[AG_CAUSE] = cause;
    /* a bridge rank that only waits for the chunk index has not failed: the first failure named to the
       others must be a real one */
    v[AG_FAIL] = io->code && io->prefail != 2 ? (uint64_t)io->f->rank * 16u + (uint64_t)(-io->code) : UINT64_MAX;
    v[AG_MIN_CHUNKS] = UINT64_MAX;
    if (io->code)
        v[AG_BRIDGE] = io->prefail == 2 ? 1 | (io->x->pre_defers < 15 ? io->x->pre_defers : 15) << 4 | (uint64_t)(io->x->pre_flush_writes != 0) << 8 : 2;
    if (io->code && io->prefail == 2) v[AG_MAX_BYTES] = io->x->pre_bytes;
}

/* COLLDIAG_REPORT's kind: 0 none (unset, "" or "0"), 1 text, 2 json:PATH, 3 html:PATH. */
static int report_kind_of(const char *e)
{
    if (!e || !*e || !strcmp(e, "0")) return 0;
    return !strncmp(e, "json:", 5) ? 2 : !strncmp(e, "html:", 5) ? 3 : 1;
}

/* The variables rank 0 decides for every rank, in the order of their 21-bit fields in AG_ENV. */
static const char *const cd_rank0_env[3] = {"COLLDIAG_REPORT", "COLLDIAG_H5_FETCH_BYTES", "COLLDIAG_H5_FETCH_CALLS"};
#define CD_ENV_FIELD ((UINT64_C(1) << 21) - 1)

/* The environment's part of the first reduction, on every rank (failed or not): rank 0 sends what it
   decides for all (the report's kind: every rank then takes part in gathering it; the HDF5 bridge's
   fetch thresholds: every rank then reads the chunk index, or none), every rank a digest of its own
   values, so that rank 0 can say that they differ. Differing is not an error: the variables change
   what is reported and when an index is read, never which bytes move where. */
static void agree_env(const cd_io *io, uint64_t v[AG_N])
{
    const colldiag_xfer *x = io->x;
    const char *rep = cd_getenv("COLLDIAG_REPORT");
    const int kind = report_kind_of(rep);
    v[AG_RANK0] = v[AG_RANK0_BYTES] = v[AG_ENV] = v[AG_ENV_NOT] = 0;
    if (io->f->rank == 0) {
        v[AG_RANK0] = (uint64_t)kind | (x->env_fetch_calls < 255 ? x->env_fetch_calls : 255) << 2;
        v[AG_RANK0_BYTES] = x->env_fetch_bytes;
    }
    uint64_t h[3] = {0x7265706fu, cd_mix64(x->env_fetch_bytes), cd_mix64(x->env_fetch_calls + 1)};
    for (const char *c = kind ? rep : ""; *c; c++) h[0] = cd_hash_u64(h[0], (unsigned char)*c);
    for (int i = 0; i < 3; i++) {
        v[AG_ENV] |= (h[i] & CD_ENV_FIELD) << (21 * i);
        v[AG_ENV_NOT] |= (~h[i] & CD_ENV_FIELD) << (21 * i);
    }
}

/* After the first reduction: rank 0's values into x, and rank 0 says once per process which of them
   differed somewhere (a rank's own value is simply not used). */
static void agreed_env(cd_io *io)
{
    static int told[3];
    colldiag_xfer *x = io->x;
    x->report_kind = (int)(io->g[AG_RANK0] & 3);
    x->fetch_calls = io->g[AG_RANK0] >> 2 & 255;
    x->fetch_bytes = io->g[AG_RANK0_BYTES];
    const uint64_t d = io->g[AG_ENV] & io->g[AG_ENV_NOT];
    for (int i = 0; i < 3 && io->f->rank == 0; i++)
        if (d >> (21 * i) & CD_ENV_FIELD && !told[i]) {
            told[i] = 1;
            fprintf(stderr, "colldiag: %s differs between the ranks of a collective call; rank 0's value is every rank's "
                            "(give every rank the same environment: Open MPI's mpirun -x %s, MPICH's -genv %s VALUE)\n",
                    cd_rank0_env[i], cd_rank0_env[i], cd_rank0_env[i]);
        }
}

/* After the data moved: one reduction so that a failure anywhere fails the call everywhere. Its time
   counts as data movement (t_io), not deciding: it is mostly this rank waiting for the slowest rank's
   data (B4 all-independent: 20-45 ms of a 150 ms call, against 4 ms of actual deciding). */
static int agree_end(cd_io *io)
{
    uint64_t v[AG_N], g[AG_N];
    agree_neutral(io, 0, v);
    const double t0 = cd_now();
    int rc = MPI_Allreduce(v, g, AG_N, MPI_UINT64_T, io->f->op, io->f->comm);
    io->x->cnt.t_io += cd_now() - t0;
    if (rc != MPI_SUCCESS) return cd_mpi_err(io, rc, "MPI_Allreduce (error agreement)");
    if (g[AG_FAIL] == UINT64_MAX) return 0;
    if (!io->code)
        io_fail(io, COLLDIAG_ERR_PEER, "rank %" PRIu64 " failed in this collective call (%s); see its message",
                g[AG_FAIL] / 16u, colldiag_strerror(-(int)(g[AG_FAIL] % 16u)));
    if (io->dir == DIR_WRITE) {
        /* what may be in the file: the bytes this rank handed to MPI-IO (or pwrite) before the failure */
        uint64_t sel = 0, done = io->x->cnt.bytes_collective + io->x->cnt.bytes_independent;
        for (uint64_t i = 0; i < io->map.n; i++) sel += io->map.pc[i].nelem * io->fes;
        size_t l = strlen(io->msg);
        snprintf(io->msg + l, CD_MSG_CAP - l, "; this rank handed %" PRIu64 " of its %" PRIu64
                 " selected bytes to the file before the call failed (those may be written; nothing outside the selection was)", done, sel);
    }
    return io->code;
}

/* Names the ranks that disagree with rank 0 about the layout or settings (error path only: O(P)). */
/* Collective writes into storage past the end of the file. MPI-IO's collective writes fill the holes
   between a call's pieces by read-modify-write; past the end of the file that read returns nothing and
   both Open MPI 4.1's ompio (write data sieving) and ROMIO (two-phase) then write whatever their buffer
   held into the holes (tests/mpi_valgrind_baseline.c --gap, tests/test_memory.c on ROMIO: edge chunks'
   padding came back 0xff), where a fresh file must read zeros. So a collective write first extends the
   file to the end of the storage it touches: the holes then read as zeros and stay zeros. The extent is
   agreed in the first reduction (no extra communication); the file grows only, never shrinks, and only
   when every rank sees it shorter. Costs one lseek per rank and call, and an ftruncate when it grows. */
/* The HDF5 bridge refuses a read that reaches storage past the end of the file (never written since
   the file grew in HDF5's accounting only): HDF5 returns zeros there, MPI-IO returns nothing and leaves
   the buffer as it was. end and fsize are write_extent's, agreed in a collective call. */
static int read_past_eof(cd_io *io, uint64_t end, uint64_t fsize)
{
    if (io->dir != DIR_READ || !io->x->strict_alloc || end <= fsize) return 0;
    io_fail(io, COLLDIAG_ERR_UNSUPPORTED, "the read reaches storage past the end of the file (byte %" PRIu64 " of a %" PRIu64
            "-byte file), where HDF5 returns zeros", end, fsize);
    return 1;
}

static void write_extent(const cd_io *io, uint64_t *end, uint64_t *fsize)
{
    *end = *fsize = 0;
    /* the HDF5 bridge's reads too: past the end of the file HDF5 returns zeros, MPI-IO nothing (read_past_eof) */
    const int bridge_read = io->dir == DIR_READ && io->x->strict_alloc && io->f->driver == COLLDIAG_DRIVER_MPIO;
    if (!bridge_read && (io->dir != DIR_WRITE || io->set.mode != COLLDIAG_MPIO_COLLECTIVE || io->f->driver != COLLDIAG_DRIVER_MPIO ||
                         io->set.coll_opt != COLLDIAG_MPIO_COLLECTIVE_IO))
        return;
    const uint64_t span = io->l->storage == STORE_CHUNKED ? io->l->chunk_bytes : io->l->nelem * io->fes;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const cd_piece *p = &io->map.pc[i];
        if (p->addr >= 0 && p->nelem && (uint64_t)p->addr + span > *end) *end = (uint64_t)p->addr + span;
    }
    /* A file does not shrink while colldiag writes or reads it (MPI-IO writes only extend it; HDF5's
       MPI-IO driver only ever extends its file, to its end of allocation, which covers every allocated
       chunk): chunks within a size once seen need no MPI_File_get_size, a system call in every small
       call otherwise. A file truncated behind colldiag's back costs only the protection: the write
       extends it anyway. */
    if (*end && *end <= io->f->size_seen) {
        *fsize = io->f->size_seen;
        *end = 0;
        return;
    }
    MPI_Offset sz = 0;
    if (*end && MPI_File_get_size(io->f->fh, &sz) == MPI_SUCCESS && sz > 0) *fsize = (uint64_t)sz;
    if (*fsize > io->f->size_seen) io->f->size_seen = *fsize;
    if (*end && *fsize >= *end) *end = 0; /* nothing to grow on this rank */
}

/* Collective; called on agreed values only (every rank or none). A protection, not the operation: if
   the file cannot grow (a size limit, a chunk address beyond it), the call goes on and the data calls
   themselves report what fails, on the rank it fails on. */
static void extend_file(cd_io *io, uint64_t end)
{
    MPI_File_set_size(io->f->fh, (MPI_Offset)end);
}

static void report_disagreement(cd_io *io, uint64_t ld, uint64_t sd)
{
    const int P = io->f->size;
    uint64_t mine[2] = {ld, sd}, *all = cd_malloc((size_t)P * 2 * sizeof(uint64_t));
    uint64_t dummy[2];
    MPI_Allgather(mine, 2, MPI_UINT64_T, all ? all : dummy, all ? 2 : 0, MPI_UINT64_T, io->f->comm);
    char who[200] = "";
    int w = 0, what = 0, nd = 0;
    for (int r = 1; all && r < P; r++) {
        int dl = all[2 * r] != all[0], ds = all[2 * r + 1] != all[1];
        if (!dl && !ds) continue;
        what |= (dl ? 1 : 0) | (ds ? 2 : 0);
        if (nd++ < 8 && w < 150) w += snprintf(who + w, sizeof who - (size_t)w, "%s%d", w ? ", " : "", r);
    }
    cd_free(all);
    io_fail(io, COLLDIAG_ERR_ARG, "ranks disagree on the %s of this collective call: rank%s %s%s differ%s from rank 0",
            what == 3 ? "layout and the transfer settings" : what == 2 ? "transfer settings (chunk opt, num, ratio, collective opt, collective buffer)"
                                                              : "layout (dims, chunk dims, element size, storage, addresses)",
            nd > 1 ? "s" : "", who, nd > 8 ? ", ..." : "", nd > 1 ? "" : "s");
}

static void xfer_reset(colldiag_xfer *x)
{
    x->grid_rank = 0;
    x->thr = 0;
    x->ratio0 = 0;
    x->auto_est[0] = x->auto_est[1] = x->auto_est[2] = x->auto_est[3] = -1.0;
    x->model_est[0] = x->model_est[1] = x->model_est[2] = x->model_est[3] = -1.0;
    x->planned = 0;
    x->chunk_opt_done = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
    x->io_mode_done = COLLDIAG_MPIO_NO_COLLECTIVE;
    x->local_cause = x->global_cause = 0;
    x->nchunks = 0;
    x->chunks_ready = 0;
    x->data_buf_bytes = 0;
    memset(&x->cnt, 0, sizeof x->cnt);
    x->reason[0] = 0;
    x->rz_auto = 0;
    x->errmsg[0] = 0;
    x->nds = 0;
    x->peer_code = 0;
    x->report_kind = 0;
    x->fetch_bytes = x->fetch_calls = 0;
}

static uint32_t local_causes(const cd_io *io)
{
    uint32_t c = 0;
    if (io->set.mode == COLLDIAG_MPIO_INDEPENDENT) c |= COLLDIAG_MPIO_SET_INDEPENDENT;
    if (io->x->conv) c |= COLLDIAG_MPIO_DATATYPE_CONVERSION;
    if (io->x->xform) c |= COLLDIAG_MPIO_DATA_TRANSFORMS;
    if (io->set.opt_types_disabled) c |= COLLDIAG_MPIO_MPI_OPT_TYPES_ENV_VAR_DISABLED;
    if ((io->fs && io->fs->space == SPACE_NULL) || (io->ms && io->ms->space == SPACE_NULL))
        c |= COLLDIAG_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES;
    if (io->l && io->l->storage == STORE_COMPACT) c |= COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET;
    if (io->l && io->l->filtered && io->dir == DIR_WRITE) c |= COLLDIAG_MPIO_FILTERS;
    if (io->f->driver == COLLDIAG_DRIVER_POSIX) c |= COLLDIAG_MPIO_SET_MPIPOSIX;
    return c;
}

static int view_is_default(const colldiag_file *f)
{
    if (f->driver != COLLDIAG_DRIVER_MPIO || f->plan_only) return 1;
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    if (MPI_File_get_view(f->fh, &disp, &et, &ft, rep) != MPI_SUCCESS) return 0;
    int ok = disp == 0 && et == MPI_BYTE && ft == MPI_BYTE && !strcmp(rep, "native");
    int ni, na, nt, comb;
    /* get_view hands out copies of derived types: free them */
    if (MPI_Type_get_envelope(ft, &ni, &na, &nt, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED) MPI_Type_free(&ft);
    if (MPI_Type_get_envelope(et, &ni, &na, &nt, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED) MPI_Type_free(&et);
    return ok;
}

static int finish(cd_io *io, int rc)
{
    if (rc && io->x) {
        snprintf(io->x->errmsg, sizeof io->x->errmsg, "%s", io->msg[0] ? io->msg : cd_errbuf);
        if (io->msg[0]) snprintf(cd_errbuf, sizeof cd_errbuf, "%s", io->msg);
    }
    if (rc && io->x) { /* modes are reported only when the I/O succeeded */
        io->x->chunk_opt_done = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
        io->x->io_mode_done = COLLDIAG_MPIO_NO_COLLECTIVE;
    }
    if (io->keep_pieces) { /* the pieces become the xfer's chunk info, materialised when asked for */
        void *old = io->x->pcs;
        uint64_t oldcap = io->x->pcs_cap;
        io->x->pcs = io->map.pc;
        io->x->pcs_cap = io->map.cap;
        io->map.pc = old;
        io->map.cap = oldcap;
    }
    map_free(&io->map);
    cd_free(io->order);
    return rc;
}

/* The agreement vector of a rank whose arguments passed every check and whose selection is mapped:
   its causes, layout and settings digests, view, chunk counts and the AUTO model's inputs. The
   functions it calls read the layout, the selections and the map without guarding against bad ones:
   agree_neutral stands in for a rank that failed. */
static void agree_local(cd_io *io, uint32_t cause, uint64_t v[AG_N])
{
    const uint64_t ld = layout_digest(io->l), sd = settings_digest(&io->set);
    v[AG_CAUSE] = cause;
    v[AG_LAYOUT] = ld;
    v[AG_LAYOUT_NOT] = ~ld;
    v[AG_SETTINGS] = sd;
    v[AG_SETTINGS_NOT] = ~sd;
    v[AG_VIEW] = !view_is_default(io->f);
    v[AG_FAIL] = UINT64_MAX;
    v[AG_BRIDGE] = 0; /* this rank neither waits nor failed (every word is set: all of them leave through MPI) */
    v[AG_RANK0] = v[AG_RANK0_BYTES] = v[AG_ENV] = v[AG_ENV_NOT] = 0; /* the call's own: agree_env */
    v[AG_SUM_CHUNKS] = v[AG_MIN_CHUNKS] = v[AG_MAX_CHUNKS] = io->map.n;
    v[AG_MAX_BYTES] = v[AG_MAX_PIECE] = v[AG_MAX_RUNS] = 0;
    for (uint64_t i = 0; i < io->map.n; i++) {
        uint64_t b = io->map.pc[i].nelem * io->fes;
        v[AG_MAX_RUNS] += io->map.pc[i].nruns;
        v[AG_MAX_BYTES] += b;
        if (b > v[AG_MAX_PIECE]) v[AG_MAX_PIECE] = b;
    }
    v[AG_SUM_RUNS] = v[AG_MAX_RUNS];
    multi_local(io, &v[AG_SUM_PARTIAL], &v[AG_MAX_MULTI_NS], &v[AG_MAX_IND_NS]);
    v[AG_MAX_MRUNS] = link_mem_runs(io);
    write_extent(io, &v[AG_MAX_END], &v[AG_MAX_FSIZE]);
    touch_map(io, &v[AG_TOUCH], &v[AG_SUM_TOUCH]);
}

/* Maps a checked selection onto the layout's chunks (nothing for null spaces) and refuses what cannot
   move: unallocated chunks on writes (and on the HDF5 bridge's reads). Local. */
static void map_selection(cd_io *io, uint32_t cause)
{
    const colldiag_xfer *x = io->x;
    const int dir = io->dir;
    if (io->code || (cause & COLLDIAG_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES)) return;
    char why[256] = "";
    int nomem = 0;
    if (map_build(&io->map, io->l, io->fs) || cd_inject(io, "map")) {
        io_fail(io, COLLDIAG_ERR_NOMEM, "mapping the selection onto chunks");
    } else {
        int rf = map_resolve(&io->map, &nomem, why, sizeof why);
        if (!rf && io->l && io->l->resolve && cd_inject(io, "resolve")) rf = snprintf(why, sizeof why, "the index could not be read (injected)");
        if (rf) {
            io_fail(io, nomem ? COLLDIAG_ERR_NOMEM : COLLDIAG_ERR_UNSUPPORTED, "finding the chunk addresses: %s", why);
        } else {
            map_trim(&io->map);
            order_by_addr(io);
        }
    }
    /* the HDF5 bridge reads no unallocated chunk either: HDF5 would return the fill value there */
    if (!io->code && (dir == DIR_WRITE || (dir == DIR_READ && x->strict_alloc)))
        for (uint64_t i = 0; i < io->map.n; i++)
            if (io->map.pc[i].flags & PF_UNALLOC) {
                if (dir == DIR_WRITE && !x->strict_alloc)
                    io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " is not allocated (address -1) and cannot be written", io->map.pc[i].idx);
                else
                    io_fail(io, COLLDIAG_ERR_UNSUPPORTED, "chunk %" PRIu64 " is not allocated in the file (HDF5 would %s)",
                            io->map.pc[i].idx, dir == DIR_WRITE ? "allocate it" : "return the fill value");
                break;
            }
}

/* An independent call (or one dataset of an independent multi-dataset call): no communication; the
   data moves with independent calls. */
static int exec_independent(cd_io *io, uint32_t cause)
{
    colldiag_file *f = io->f;
    if (io->l->filtered && !f->plan_only) /* the HDF5 bridge plans filtered chunks; colldiag moves none */
        return io_fail(io, COLLDIAG_ERR_UNSUPPORTED, "the layout is filtered; colldiag cannot %s filtered chunks",
                       io->dir == DIR_READ ? "read" : "write");
    uint64_t end, fsize;
    write_extent(io, &end, &fsize);
    if (read_past_eof(io, end, fsize)) return io->code;
    if (!view_is_default(f))
        return io_fail(io, COLLDIAG_ERR_ARG, "the file's view is not (0, MPI_BYTE, MPI_BYTE, \"native\"); independent calls cannot reset it");
    char cs[256];
    colldiag_cause_string(cause, cs, sizeof cs);
    set_reason(io, "no collective I/O: %s", cs);
    ind_pieces(io, NULL, io->map.n, 1);
    for (uint64_t i = 0; i < io->map.n; i++) io->map.pc[i].flags |= PF_IND;
    return io->code;
}

/* The whole transfer: checks, causes, agreement, scheme, data, results. */
static int cd_transfer_core(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *fs, const colldiag_sel *ms,
                       const void *wbuf, void *rbuf, colldiag_xfer *x, int dir, const char *fn)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank cannot take part: its results have nowhere to go)");
    xfer_reset(x);
    x->planned = dir == DIR_PLAN;
    if (!f) {
        cd_fail(COLLDIAG_ERR_ARG, fn, "f is NULL (this rank cannot take part in the collective call)");
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return COLLDIAG_ERR_ARG;
    }
    cd_io io;
    char msg[CD_MSG_CAP] = "";
    memset(&io, 0, sizeof io);
    io.msg = msg;
    io.fn = fn;
    io.f = f;
    io.l = l;
    io.fs = fs;
    io.ms = ms;
    io.wbuf = wbuf;
    io.rbuf = rbuf;
    io.x = x;
    io.dir = dir;
    io.fes = l ? l->esize : 1;
    io.mes = x->conv ? x->mem_esize : io.fes;
    io.fes_max = io.fes_min = io.fes;
    double t0 = cd_now();
    if (settings_effective(fn, x, &io.set)) {
        io.code = COLLDIAG_ERR_ARG; /* settings_effective already wrote the message */
        snprintf(io.msg, CD_MSG_CAP, "%s", cd_errbuf);
    } else if (x->pre_code) { /* the HDF5 bridge found the call ineligible on this rank (its arguments may be NULL) */
        io_fail(&io, x->pre_code, "%s", x->pre_msg);
        io.prefail = x->pre_need_index ? 2 : 1;
    } else {
        check_args(&io);
    }
    x->bridge_global = io.code ? (io.prefail == 2 ? 1 : 2) : 0; /* independent calls: this rank's own */
    x->bridge_max_bytes = 0;
    x->pre_code = x->pre_need_index = 0; /* pre_bytes, pre_defers and pre_flush_writes are read by the reduction below */
    uint32_t cause = local_causes(&io);
    map_selection(&io, cause);
    x->cnt.t_map = cd_now() - t0;
    if (io.code) cause |= COLLDIAG_MPIO_ERROR_WHILE_CHECKING;
    x->local_cause = cause;
    t0 = cd_now();
    int rc;
    if (io.set.mode == COLLDIAG_MPIO_INDEPENDENT) {
        /* independent: no communication at all, global = local */
        x->global_cause = cause;
        if (io.code) return finish(&io, io.code);
        if (exec_independent(&io, cause)) return finish(&io, io.code);
        fill_chunk_info(&io);
        x->cnt.t_decide = cd_now() - t0 - x->cnt.t_io;
        return finish(&io, io.code);
    }
    /* collective: one reduction decides causes, agreement, first failure and chunk counts. This is the
       one place where a rank whose arguments failed their checks parts from the others: it contributes
       the neutral vector and nothing after this line reads its arguments (it leaves right after the
       reduction, as does everybody, since its ERROR_WHILE_CHECKING bit is in the global cause). */
    uint64_t v[AG_N];
    if (io.code) agree_neutral(&io, cause, v);
    else agree_local(&io, cause, v);
    agree_env(&io, v);
    rc = MPI_Allreduce(v, io.g, AG_N, MPI_UINT64_T, f->op, f->comm);
    if (rc != MPI_SUCCESS) return finish(&io, cd_mpi_err(&io, rc, "MPI_Allreduce (cause agreement)"));
    agreed_env(&io);
    x->bridge_global = io.g[AG_BRIDGE];
    x->bridge_max_bytes = io.g[AG_MAX_BYTES];
    x->pre_bytes = x->pre_defers = 0;
    x->pre_flush_writes = 0;
    uint64_t touched_bits = 0;
    for (int w = 0; w < CD_TOUCH_WORDS; w++) touched_bits += popcount64(io.g[AG_TOUCH + w]);
    io.disjoint = l && l->storage == STORE_CHUNKED && touched_bits == io.g[AG_SUM_TOUCH];
    uint32_t global = (uint32_t)io.g[AG_CAUSE];
    x->global_cause = global;
    if (global & COLLDIAG_MPIO_ERROR_WHILE_CHECKING) {
        if (io.code && io.prefail == 2 && io.g[AG_FAIL] != UINT64_MAX) { /* waited, but another rank failed: name it */
            io.code = 0;
            io.msg[0] = 0;
        }
        if (io.code) return finish(&io, io.code);
        if (io.g[AG_FAIL] == UINT64_MAX) /* no rank failed: some wait for an HDF5 dataset's chunk index */
            return finish(&io, io_fail(&io, COLLDIAG_ERR_PEER, "another rank waits for the dataset's chunk index"));
        return finish(&io, io_fail(&io, COLLDIAG_ERR_PEER, "rank %" PRIu64 " found a bad argument (%s); see its message",
                                   io.g[AG_FAIL] / 16u, colldiag_strerror(-(int)(io.g[AG_FAIL] % 16u))));
    }
    if ((io.g[AG_LAYOUT] & io.g[AG_LAYOUT_NOT]) || (io.g[AG_SETTINGS] & io.g[AG_SETTINGS_NOT])) {
        report_disagreement(&io, v[AG_LAYOUT], v[AG_SETTINGS]);
        return finish(&io, io.code);
    }
    if (io.g[AG_VIEW] && dir != DIR_PLAN) view_reset(&io);
    if (read_past_eof(&io, io.g[AG_MAX_END], io.g[AG_MAX_FSIZE])) return finish(&io, io.code);
    if (!global && dir == DIR_WRITE && io.g[AG_MAX_END] > io.g[AG_MAX_FSIZE]) extend_file(&io, io.g[AG_MAX_END]);
    if (global & COLLDIAG_MPIO_FILTERS)
        return finish(&io, io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "the layout is filtered: colldiag cannot write filtered chunks (cause FILTERS)"));
    if (l->filtered && !f->plan_only)
        return finish(&io, io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "the layout is filtered: colldiag cannot read filtered chunks"));
    if (global) {
        char cs[256];
        colldiag_cause_string(global, cs, sizeof cs);
        set_reason(&io, "no collective I/O: %s", cs);
        for (uint64_t i = 0; i < io.map.n; i++) io.map.pc[i].flags |= PF_IND;
        ind_pieces(&io, NULL, io.map.n, 1);
    } else if (l->storage != STORE_CHUNKED) {
        set_reason(&io, "contiguous dataset: one collective call");
        coll_call(&io, NULL, io.map.n);
        if (dir != DIR_PLAN && io.set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(&io);
        x->io_mode_done = COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE;
    } else {
        exec_chunked(&io);
    }
    fill_chunk_info(&io);
    rc = agree_end(&io);
    x->cnt.t_decide = cd_now() - t0 - x->cnt.t_io;
    return finish(&io, rc);
}

/* env COLLDIAG_REPORT=1 prints the report after every collective call, =json:PATH appends JSON lines
   to PATH, =html:PATH a section per call to one HTML page (rank 0 writes): diagnosis with no code change. Independent calls cannot gather, so they
   never report. */
static void html_append(colldiag_file *f, const colldiag_xfer *x, const char *path, const char *title, const char *verdict);
static void env_report(colldiag_file *f, const colldiag_xfer *x)
{
    /* the kind is rank 0's, agreed in the call (every rank gathers, or none); so is the path: rank 0 writes */
    const char *e = f->rank == 0 ? cd_getenv("COLLDIAG_REPORT") : NULL;
    if (report_kind_of(e) != x->report_kind) e = NULL; /* not rank 0 (it cannot change within a call's snapshot) */
    if (x->report_kind == 2) {
        FILE *out = e ? fopen(e + 5, "a") : NULL;
        colldiag_report_json(f, x, out);
        if (out) fclose(out);
    } else if (x->report_kind == 3) {
        html_append(f, x, e ? e + 5 : NULL, "colldiag call", NULL);
    } else if (x->report_kind == 1) {
        colldiag_report_print(f, x, f->rank == 0 ? stdout : NULL);
    }
}

static int cd_transfer(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *fs, const colldiag_sel *ms,
                       const void *wbuf, void *rbuf, colldiag_xfer *x, int dir, const char *fn)
{
    cd_env_enter();
    int rc = cd_transfer_core(f, l, fs, ms, wbuf, rbuf, x, dir, fn);
    if (f && x && x->set.mode == COLLDIAG_MPIO_COLLECTIVE && !f->plan_only && !f->bridge) {
        char keep[sizeof cd_errbuf];
        snprintf(keep, sizeof keep, "%s", cd_errbuf);
        env_report(f, x);
        snprintf(cd_errbuf, sizeof cd_errbuf, "%s", keep); /* the transfer's message is the one that matters */
    }
    cd_env_leave();
    return rc;
}

int colldiag_write(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel, const colldiag_sel *mem_sel,
                   const void *buf, colldiag_xfer *x)
{
    return cd_transfer(f, l, file_sel, mem_sel, buf, NULL, x, DIR_WRITE, "colldiag_write");
}

int colldiag_read(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel, const colldiag_sel *mem_sel,
                  void *buf, colldiag_xfer *x)
{
    return cd_transfer(f, l, file_sel, mem_sel, NULL, buf, x, DIR_READ, "colldiag_read");
}

int colldiag_plan(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel, const colldiag_sel *mem_sel,
                  colldiag_xfer *x)
{
    return cd_transfer(f, l, file_sel, mem_sel, NULL, NULL, x, DIR_PLAN, "colldiag_plan");
}

/* ---------------------------------------------------------------------------------------------------
 * 7. and 9. many datasets in one call (colldiag_write_multi / read_multi / plan_multi)
 *
 * Each dataset is checked and mapped in its own context (cd_io.sub[i]), exactly as a single call
 * would. Two reductions agree on the call: the first on a call-wide vector (causes, the first failure
 * with its dataset, the layouts' and settings' digests with n, and what each rank moves over the
 * whole call: the AUTO model's inputs), the second on every dataset's own vector, so that each
 * dataset's causes, rounds and rank counts are what its single call would agree. The scheme is
 * chosen once for the call. Link-chunk (and every contiguous dataset, whatever the scheme) moves all
 * its datasets' pieces in one collective call per round: the call's context holds copies of every
 * piece in address order and switches to a piece's dataset as it walks it (io_use); the memory type
 * holds absolute addresses (MPI_BOTTOM), since the pieces come from n buffers. Multi-chunk, at-once,
 * aggregation and multi-no-opt run per chunked dataset, in dataset order, with that dataset's agreed
 * vector: they make calls per chunk (or an exchange per dataset) anyway. A dataset whose causes rule
 * collective I/O out moves independently, the others collectively.
 * --------------------------------------------------------------------------------------------------- */

/* AG_FAIL of a multi-dataset call: the lowest failing rank, then the lowest dataset, with its code. */
#define CD_MULTI_FAIL_SHIFT 24
static uint64_t multi_fail_word(int rank, size_t ds, int code)
{
    const uint64_t d = ds < ((size_t)1 << CD_MULTI_FAIL_SHIFT) ? (uint64_t)ds : ((uint64_t)1 << CD_MULTI_FAIL_SHIFT) - 1;
    return ((((uint64_t)rank << CD_MULTI_FAIL_SHIFT) | d) * 16u) + (uint64_t)(-code);
}

/* The call-wide vector from the datasets' own (agree_local on each): per rank, the whole call's bytes,
   runs, chunks and estimated times are sums over its datasets, the largest piece and the storage end
   maxima; the layouts chain into one digest, and n joins the settings digest so that ranks passing
   different counts disagree instead of reducing vectors of different lengths. Local and pure. */
static void multi_combine(const cd_io *io, const uint64_t *vs, uint64_t v[AG_N])
{
    memset(v, 0, AG_N * sizeof *v);
    uint64_t ld = cd_mix64(0x6d756c7469ull ^ io->nsub), chunks = 0;
    for (size_t d = 0; d < io->nsub; d++) {
        const uint64_t *w = &vs[d * AG_N];
        ld = cd_mix64(ld ^ w[AG_LAYOUT]);
        v[AG_CAUSE] |= w[AG_CAUSE];
        v[AG_VIEW] |= w[AG_VIEW];
        chunks += w[AG_SUM_CHUNKS];
        static const int sums[] = {AG_MAX_BYTES, AG_MAX_RUNS, AG_SUM_RUNS, AG_SUM_PARTIAL, AG_MAX_MRUNS, AG_MAX_MULTI_NS, AG_MAX_IND_NS};
        for (size_t k = 0; k < sizeof sums / sizeof *sums; k++) v[sums[k]] += w[sums[k]];
        static const int maxs[] = {AG_MAX_PIECE, AG_MAX_END, AG_MAX_FSIZE};
        for (size_t k = 0; k < sizeof maxs / sizeof *maxs; k++)
            if (w[maxs[k]] > v[maxs[k]]) v[maxs[k]] = w[maxs[k]];
    }
    const uint64_t sd = settings_digest(&io->set) ^ cd_mix64(io->nsub + 1);
    v[AG_LAYOUT] = ld;
    v[AG_LAYOUT_NOT] = ~ld;
    v[AG_SETTINGS] = sd;
    v[AG_SETTINGS_NOT] = ~sd;
    v[AG_FAIL] = UINT64_MAX;
    v[AG_SUM_CHUNKS] = v[AG_MIN_CHUNKS] = v[AG_MAX_CHUNKS] = chunks;
}

/* Copies of every dataset's pieces into the call's map (dataset order, so ascending (dataset, index)),
   in address order, refusing datasets whose storage overlaps: one collective call's file type must
   ascend. Local, before the agreement. */
static int multi_merge(cd_io *io)
{
    uint64_t n = 0;
    for (size_t d = 0; d < io->nsub; d++) n += io->sub[d].map.n;
    if (n == 0) return 0;
    io->map.pc = cd_malloc((size_t)n * sizeof *io->map.pc);
    io->map.cap = io->map.pc ? n : 0;
    io->order = cd_malloc((size_t)n * sizeof *io->order);
    cd_addr_idx *t = cd_malloc((size_t)n * sizeof *t);
    if (!io->map.pc || !io->order || !t) {
        cd_free(t);
        return io_fail(io, COLLDIAG_ERR_NOMEM, "listing %" PRIu64 " pieces of %zu datasets", n, io->nsub);
    }
    for (size_t d = 0; d < io->nsub; d++)
        for (uint64_t i = 0; i < io->sub[d].map.n; i++) {
            cd_piece *p = &io->map.pc[io->map.n];
            *p = io->sub[d].map.pc[i];
            p->ds = (uint32_t)d;
            t[io->map.n].addr = p->addr;
            t[io->map.n].i = io->map.n;
            io->map.n++;
        }
    qsort(t, (size_t)n, sizeof *t, cmp_addr_idx);
    for (uint64_t i = 0; i < n; i++) io->order[i] = t[i].i;
    cd_free(t);
    const cd_piece *prev = NULL;
    MPI_Offset prev_end = 0;
    for (uint64_t i = 0; i < n; i++) {
        const cd_piece *p = &io->map.pc[io->order[i]];
        if (p->addr < 0) continue;
        const colldiag_layout *l = piece_layout(io, p);
        const MPI_Offset span = (MPI_Offset)(l->storage == STORE_CHUNKED ? l->chunk_bytes : l->nelem * l->esize);
        if (prev && prev->ds != p->ds && prev_end > p->addr)
            return io_fail(io, COLLDIAG_ERR_ARG, "the storage of datasets %u and %u overlaps in the file (bytes %lld and %lld)", prev->ds,
                           p->ds, (long long)prev_end - 1, (long long)p->addr);
        if (!prev || p->addr + span > prev_end) {
            prev = p;
            prev_end = p->addr + span;
        }
    }
    return 0;
}

/* One collective call per round over the pieces of the datasets marked `merged`, in address order. */
static void multi_exec_merged(cd_io *io)
{
    uint64_t *list = cd_malloc((size_t)(io->map.n ? io->map.n : 1) * sizeof *list), k = 0;
    if (!list) io_fail(io, COLLDIAG_ERR_NOMEM, "listing %" PRIu64 " pieces", io->map.n);
    for (uint64_t i = 0; list && !io->code && i < io->map.n; i++) {
        cd_piece *p = &io->map.pc[io->order[i]];
        if (io->sub[p->ds].merged) {
            list[k++] = io->order[i];
            p->flags |= PF_COLL;
        }
    }
    /* rounds from the merged datasets only: each rank's bytes over them, agreed */
    uint64_t mb = 0;
    for (size_t d = 0; d < io->nsub; d++)
        if (io->sub[d].merged) mb += io->sub[d].g[AG_MAX_BYTES];
    coll_call_rounds(io, list, io->code ? 0 : k, rounds_for(io, mb));
    if (io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(io);
    cd_free(list);
}

/* The scheme for the whole call, from the call-wide vector (as exec_chunked decides a single call). */
static int multi_scheme(cd_io *io)
{
    colldiag_xfer *x = io->x;
    const int P = io->f->size;
    int opt = io->set.chunk_opt;
    const int best = auto_choose(io, x->model_est);
    if (opt == COLLDIAG_MPIO_CHUNK_AUTO) {
        memcpy(x->auto_est, x->model_est, sizeof x->auto_est);
        set_reason_auto(io, 0, 0, P, best, io->nsub);
        return best;
    }
    if (opt == COLLDIAG_MPIO_CHUNK_DEFAULT) {
        const uint64_t avg = io->g[AG_SUM_CHUNKS] / (uint64_t)P;
        const int link = avg >= io->set.num;
        set_reason(io, "DEFAULT over %zu datasets: average %" PRIu64 " chunks/rank %s num %u -> %s", io->nsub, avg, link ? ">=" : "<",
                   io->set.num, link ? "link-chunk" : "multi-chunk");
        return link ? COLLDIAG_MPIO_CHUNK_ONE_IO : COLLDIAG_MPIO_CHUNK_MULTI_IO;
    }
    set_reason(io, "%s (%s) for %zu datasets", forced_by(io), cd_chunk_opt_env[opt], io->nsub);
    return opt;
}

/* Each dataset's results, the call's (the scheme; CHUNK_MIXED when the datasets' modes differ; the OR
   of the causes) and the chunk info of every dataset's pieces. */
static void multi_results(cd_io *io, const int *ds_opt, const int *ds_mode, const uint32_t *ds_local, const uint32_t *ds_global)
{
    colldiag_xfer *x = io->x;
    if (io->nsub > x->dsr_cap) {
        cd_dsres *r = cd_calloc(io->nsub, sizeof *r);
        if (!r) {
            x->nds = 0;
            return;
        }
        cd_free(x->dsr);
        x->dsr = r;
        x->dsr_cap = io->nsub;
    }
    x->nds = io->nsub;
    int opt = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION, mode = -1;
    uint32_t lc = 0, gc = 0;
    for (size_t d = 0; d < io->nsub; d++) {
        cd_dsres *r = &x->dsr[d];
        const colldiag_layout *l = io->sub[d].l;
        memset(r, 0, sizeof *r);
        r->chunk_opt = ds_opt[d];
        r->io_mode = ds_mode[d];
        r->local_cause = ds_local[d];
        r->global_cause = ds_global[d];
        r->nchunks = io->sub[d].map.n;
        if (l && l->storage == STORE_CHUNKED) {
            r->grid_rank = l->rank;
            memcpy(r->grid, l->grid, (size_t)l->rank * sizeof *l->grid);
        }
        if (ds_opt[d] != COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION) opt = ds_opt[d];
        mode = mode < 0 || mode == ds_mode[d] ? ds_mode[d] : COLLDIAG_MPIO_CHUNK_MIXED;
        lc |= ds_local[d];
        gc |= ds_global[d];
    }
    x->chunk_opt_done = opt;
    x->io_mode_done = mode < 0 ? COLLDIAG_MPIO_NO_COLLECTIVE : mode;
    x->local_cause = lc;
    x->global_cause = gc;
}

static int multi_finish(cd_io *io, int rc)
{
    if (io->sub) {
        for (size_t d = 0; d < io->nsub; d++) {
            map_free(&io->sub[d].map);
            cd_free(io->sub[d].order);
        }
        cd_free(io->sub);
        io->sub = NULL;
    }
    return finish(io, rc);
}

/* The first failure among the call's and its datasets' contexts, as the call's. */
static int multi_first_code(cd_io *io)
{
    for (size_t d = 0; !io->code && d < io->nsub; d++)
        if (io->sub[d].code) {
            io->code = io->sub[d].code;
            snprintf(io->msg, CD_MSG_CAP, "%s", io->sub[d].msg);
        }
    return io->code;
}

static int cd_transfer_multi(colldiag_file *f, size_t n, const colldiag_layout *const ls[], const colldiag_sel *const fss[],
                             const colldiag_sel *const mss[], const void *const wbufs[], void *const rbufs[], colldiag_xfer *x, int dir,
                             const char *fn)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank cannot take part: its results have nowhere to go)");
    xfer_reset(x);
    x->planned = dir == DIR_PLAN;
    if (!f) {
        cd_fail(COLLDIAG_ERR_ARG, fn, "f is NULL (this rank cannot take part in the collective call)");
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return COLLDIAG_ERR_ARG;
    }
    cd_io io;
    char msg[CD_MSG_CAP] = "", ds_msg[CD_MSG_CAP] = ""; /* the call's, and its datasets' (the first failure) */
    memset(&io, 0, sizeof io);
    io.msg = msg;
    io.fn = fn;
    io.f = f;
    io.x = x;
    io.dir = dir;
    io.fail_shift = CD_MULTI_FAIL_SHIFT;
    double t0 = cd_now();
    /* the call's own checks: a rank failing them takes part in the agreement with nothing */
    if (settings_effective(fn, x, &io.set)) {
        io.code = COLLDIAG_ERR_ARG;
        snprintf(io.msg, CD_MSG_CAP, "%s", cd_errbuf);
    } else if (n > 0 && !ls) io_fail(&io, COLLDIAG_ERR_ARG, "layouts is NULL with n = %zu", n);
    else if (n > 0 && !fss) io_fail(&io, COLLDIAG_ERR_ARG, "file_sels is NULL with n = %zu", n);
    else if (n > 0 && dir == DIR_WRITE && !wbufs) io_fail(&io, COLLDIAG_ERR_ARG, "bufs is NULL with n = %zu", n);
    else if (n > 0 && dir == DIR_READ && !rbufs) io_fail(&io, COLLDIAG_ERR_ARG, "bufs is NULL with n = %zu", n);
    else if (n > UINT32_MAX) io_fail(&io, COLLDIAG_ERR_ARG, "n = %zu datasets is more than one call can carry", n);
    else if (x->conv) io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "multi-dataset calls do not convert types (one conversion cannot fit n datasets)");
    else if (x->pre_code) io_fail(&io, x->pre_code, "%s", x->pre_msg);
    x->pre_code = x->pre_need_index = 0;
    io.nsub = io.code ? 0 : n;
    io.sub = io.nsub ? cd_calloc(io.nsub, sizeof *io.sub) : NULL;
    char (*names)[64] = io.nsub ? cd_malloc(io.nsub * sizeof *names) : NULL;
    if (io.nsub && (!io.sub || !names)) {
        io_fail(&io, COLLDIAG_ERR_NOMEM, "allocating the contexts of %zu datasets", n);
        cd_free(io.sub);
        io.sub = NULL;
        io.nsub = 0;
    }
    uint32_t *ds_local = io.nsub ? cd_calloc(io.nsub, 4 * sizeof(uint32_t) + 2 * sizeof(int)) : NULL;
    if (io.nsub && !ds_local) io_fail(&io, COLLDIAG_ERR_NOMEM, "allocating the results of %zu datasets", n);
    uint32_t *ds_global = ds_local ? ds_local + io.nsub : NULL;
    int *ds_opt = ds_local ? (int *)(ds_local + 2 * io.nsub) : NULL, *ds_mode = ds_opt ? ds_opt + io.nsub : NULL;
    uint32_t cause = 0;
    io.fes_max = 0;
    io.fes_min = SIZE_MAX;
    for (size_t d = 0; d < io.nsub && !io.code; d++) {
        cd_io *s = &io.sub[d];
        snprintf(names[d], sizeof names[d], "%s (dataset %zu)", fn, d);
        s->fn = names[d];
        s->msg = ds_msg;
        s->f = f;
        s->x = x;
        s->dir = dir;
        s->set = io.set;
        s->l = ls[d];
        s->fs = fss[d];
        s->ms = mss ? mss[d] : NULL;
        s->wbuf = dir == DIR_WRITE ? wbufs[d] : NULL;
        s->rbuf = dir == DIR_READ ? rbufs[d] : NULL;
        s->fes = s->mes = s->fes_max = s->fes_min = s->l ? s->l->esize : 1;
        const void *b = dir == DIR_WRITE ? s->wbuf : s->rbuf;
        MPI_Aint a = 0;
        if (b) MPI_Get_address(b, &a);
        s->buf_addr = (int64_t)a;
        check_args(s);
        ds_local[d] = local_causes(s);
        map_selection(s, ds_local[d]);
        if (s->code) ds_local[d] |= COLLDIAG_MPIO_ERROR_WHILE_CHECKING;
        cause |= ds_local[d];
        if (s->fes > io.fes_max) io.fes_max = s->fes;
        if (s->fes < io.fes_min) io.fes_min = s->fes;
    }
    if (io.fes_max == 0) io.fes_max = io.fes_min = 1;
    multi_first_code(&io);
    if (!io.code) multi_merge(&io);
    io.fes = io.mes = io.fes_max;
    if (io.code) cause |= COLLDIAG_MPIO_ERROR_WHILE_CHECKING | local_causes(&io);
    x->local_cause = cause;
    x->cnt.t_map = cd_now() - t0;
    t0 = cd_now();
    int rc = 0;
    if (io.set.mode == COLLDIAG_MPIO_INDEPENDENT) {
        x->global_cause = cause;
        for (size_t d = 0; d < io.nsub && !io.code; d++) {
            cd_io *s = &io.sub[d];
            exec_independent(s, ds_local[d]);
            ds_global[d] = ds_local[d];
            ds_opt[d] = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
            ds_mode[d] = COLLDIAG_MPIO_NO_COLLECTIVE;
            multi_first_code(&io);
        }
        goto done;
    }
    /* reduction 1: the call-wide vector */
    uint64_t v[AG_N];
    uint64_t *vs = io.nsub ? cd_malloc(io.nsub * AG_N * sizeof *vs) : NULL; /* reduced in place */
    if (io.nsub && !vs && !io.code) {
        io_fail(&io, COLLDIAG_ERR_NOMEM, "allocating the agreement vectors of %zu datasets", n);
        cause |= COLLDIAG_MPIO_ERROR_WHILE_CHECKING;
    }
    if (io.code) {
        agree_neutral(&io, cause, v);
        size_t bad = 0;
        while (bad < io.nsub && !io.sub[bad].code) bad++;
        v[AG_FAIL] = multi_fail_word(f->rank, bad < io.nsub ? bad : SIZE_MAX, io.code); /* SIZE_MAX: the call's own arguments */
    } else {
        for (size_t d = 0; d < io.nsub; d++) agree_local(&io.sub[d], ds_local[d], &vs[d * AG_N]);
        multi_combine(&io, vs, v);
    }
    agree_env(&io, v);
    rc = MPI_Allreduce(v, io.g, AG_N, MPI_UINT64_T, f->op, f->comm);
    if (rc != MPI_SUCCESS) {
        cd_mpi_err(&io, rc, "MPI_Allreduce (cause agreement)");
        cd_free(vs);
        goto done;
    }
    agreed_env(&io);
    x->global_cause = (uint32_t)io.g[AG_CAUSE];
    if (io.g[AG_CAUSE] & COLLDIAG_MPIO_ERROR_WHILE_CHECKING) {
        const uint64_t w = io.g[AG_FAIL] / 16u, mask = ((uint64_t)1 << CD_MULTI_FAIL_SHIFT) - 1, bad = w & mask;
        char where[48] = "";
        if (bad != mask) snprintf(where, sizeof where, " in dataset %" PRIu64, bad);
        if (!io.code) {
            x->peer_code = -(int)(io.g[AG_FAIL] % 16u);
            io_fail(&io, COLLDIAG_ERR_PEER, "rank %" PRIu64 " found %s%s (%s); see its message", w >> CD_MULTI_FAIL_SHIFT,
                    x->peer_code == COLLDIAG_ERR_UNSUPPORTED ? "what colldiag cannot move" : "a bad argument", where,
                    colldiag_strerror(x->peer_code));
        }
        cd_free(vs);
        goto done;
    }
    if ((io.g[AG_LAYOUT] & io.g[AG_LAYOUT_NOT]) || (io.g[AG_SETTINGS] & io.g[AG_SETTINGS_NOT])) {
        report_disagreement(&io, v[AG_LAYOUT], v[AG_SETTINGS]);
        cd_free(vs);
        goto done;
    }
    /* reduction 2: every dataset's own vector, agreed like its single call's */
    if (io.nsub) {
        rc = MPI_Allreduce(MPI_IN_PLACE, vs, (int)(io.nsub * AG_N), MPI_UINT64_T, f->op, f->comm);
        if (rc != MPI_SUCCESS) {
            cd_mpi_err(&io, rc, "MPI_Allreduce (the datasets' agreement)");
            cd_free(vs);
            goto done;
        }
        for (size_t d = 0; d < io.nsub; d++) {
            cd_io *s = &io.sub[d];
            memcpy(s->g, vs + d * AG_N, sizeof s->g);
            uint64_t tb = 0;
            for (int w = 0; w < CD_TOUCH_WORDS; w++) tb += popcount64(s->g[AG_TOUCH + w]);
            s->disjoint = s->l->storage == STORE_CHUNKED && tb == s->g[AG_SUM_TOUCH];
            ds_global[d] = (uint32_t)s->g[AG_CAUSE];
        }
    }
    cd_free(vs);
    if (io.g[AG_VIEW] && dir != DIR_PLAN) view_reset(&io);
    if (read_past_eof(&io, io.g[AG_MAX_END], io.g[AG_MAX_FSIZE])) goto done;
    if (dir == DIR_WRITE && io.g[AG_MAX_END] > io.g[AG_MAX_FSIZE]) extend_file(&io, io.g[AG_MAX_END]);
    for (size_t d = 0; d < io.nsub; d++) {
        if (ds_global[d] & COLLDIAG_MPIO_FILTERS) {
            io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "dataset %zu is filtered: colldiag cannot write filtered chunks (cause FILTERS)", d);
            goto done;
        }
        if (io.sub[d].l->filtered && !f->plan_only) {
            io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "dataset %zu is filtered: colldiag cannot read filtered chunks", d);
            goto done;
        }
    }
    /* datasets whose causes rule collective I/O out move independently (as their single calls would) */
    int nchunked = 0, nmerged = 0;
    for (size_t d = 0; d < io.nsub; d++) {
        cd_io *s = &io.sub[d];
        ds_opt[d] = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
        ds_mode[d] = COLLDIAG_MPIO_NO_COLLECTIVE;
        if (ds_global[d]) {
            for (uint64_t i = 0; i < s->map.n; i++) s->map.pc[i].flags |= PF_IND;
            ind_pieces(s, NULL, s->map.n, 1);
        } else if (s->l->storage == STORE_CHUNKED) {
            nchunked++;
        } else {
            s->merged = 1;
            nmerged++;
            ds_mode[d] = COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE;
        }
    }
    const int opt = nchunked ? multi_scheme(&io) : COLLDIAG_MPIO_CHUNK_ONE_IO;
    if (!nchunked) set_reason(&io, "%d contiguous datasets: one collective call", nmerged);
    if (opt == COLLDIAG_MPIO_CHUNK_ONE_IO)
        for (size_t d = 0; d < io.nsub; d++)
            if (!ds_global[d] && io.sub[d].l->storage == STORE_CHUNKED) {
                io.sub[d].merged = 1;
                nmerged++;
                ds_opt[d] = COLLDIAG_MPIO_LINK_CHUNK;
                ds_mode[d] = COLLDIAG_MPIO_CHUNK_COLLECTIVE; /* every rank, even one with nothing: as HDF5 */
            }
    if (nmerged) multi_exec_merged(&io);
    if (opt != COLLDIAG_MPIO_CHUNK_ONE_IO) {
        char reason[sizeof x->reason];
        double est[4];
        snprintf(reason, sizeof reason, "%s", xfer_reason(x)); /* the per-dataset passes below set their own */
        memcpy(est, x->model_est, sizeof est);
        for (size_t d = 0; d < io.nsub; d++) {
            cd_io *s = &io.sub[d];
            if (ds_global[d] || s->l->storage != STORE_CHUNKED) continue;
            s->set.chunk_opt = opt;
            exec_chunked(s);
            ds_opt[d] = x->chunk_opt_done;
            ds_mode[d] = x->io_mode_done;
        }
        snprintf(x->reason, sizeof x->reason, "%s", reason);
        x->rz_auto = 0;
        memcpy(x->model_est, est, sizeof est);
    }
    /* the per-dataset passes set flags on the datasets' pieces: the call's copies become the chunk info */
    for (uint64_t i = 0, j = 0; !io.code && i < io.nsub; i++)
        for (uint64_t k = 0; k < io.sub[i].map.n; k++, j++) {
            const int flags = io.map.pc[j].flags & PF_COLL;
            io.map.pc[j] = io.sub[i].map.pc[k];
            io.map.pc[j].ds = (uint32_t)i;
            io.map.pc[j].flags |= flags;
        }
done:
    multi_first_code(&io);
    if (io.set.mode != COLLDIAG_MPIO_INDEPENDENT) {
        uint64_t sel = 0;
        for (uint64_t i = 0; i < io.map.n; i++) sel += io.map.pc[i].nelem * piece_fes(&io, &io.map.pc[i]);
        uint64_t kept = io.map.n;
        io.map.n = 0; /* agree_end's note on written bytes: over every dataset, below */
        rc = agree_end(&io);
        io.map.n = kept;
        if (rc && dir == DIR_WRITE && !strstr(io.msg, "selected bytes")) {
            const uint64_t done = x->cnt.bytes_collective + x->cnt.bytes_independent;
            size_t m = strlen(io.msg);
            snprintf(io.msg + m, CD_MSG_CAP - m, "; this rank handed %" PRIu64 " of its %" PRIu64
                     " selected bytes to the file before the call failed", done, sel);
        }
    } else {
        rc = io.code;
    }
    if (ds_local && !rc) {
        multi_results(&io, ds_opt, ds_mode, ds_local, ds_global);
        if (io.map.n && x->nds) {
            x->nchunks = 0;
            for (uint64_t i = 0; i < io.map.n; i++) /* chunk info: chunked datasets' pieces only, as single calls */
                if (io.sub[io.map.pc[i].ds].l->storage == STORE_CHUNKED) io.map.pc[x->nchunks++] = io.map.pc[i];
            io.keep_pieces = x->nchunks > 0;
        }
    }
    x->cnt.t_decide = cd_now() - t0 - x->cnt.t_io;
    cd_free(ds_local);
    cd_free(names);
    return multi_finish(&io, rc);
}

/* COLLDIAG_REPORT after a collective multi-dataset call, as after a single one. */
static void multi_env_report(colldiag_file *f, const colldiag_xfer *x)
{
    if (!f || !x || x->set.mode != COLLDIAG_MPIO_COLLECTIVE || f->plan_only || f->bridge) return;
    char keep[sizeof cd_errbuf];
    snprintf(keep, sizeof keep, "%s", cd_errbuf);
    env_report(f, x);
    snprintf(cd_errbuf, sizeof cd_errbuf, "%s", keep);
}

int colldiag_write_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[], const colldiag_sel *const file_sels[],
                         const colldiag_sel *const mem_sels[], const void *const bufs[], colldiag_xfer *x)
{
    cd_env_enter();
    int rc = cd_transfer_multi(f, n, layouts, file_sels, mem_sels, bufs, NULL, x, DIR_WRITE, "colldiag_write_multi");
    multi_env_report(f, x);
    cd_env_leave();
    return rc;
}

int colldiag_read_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[], const colldiag_sel *const file_sels[],
                        const colldiag_sel *const mem_sels[], void *const bufs[], colldiag_xfer *x)
{
    cd_env_enter();
    int rc = cd_transfer_multi(f, n, layouts, file_sels, mem_sels, NULL, bufs, x, DIR_READ, "colldiag_read_multi");
    multi_env_report(f, x);
    cd_env_leave();
    return rc;
}

int colldiag_plan_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[], const colldiag_sel *const file_sels[],
                        const colldiag_sel *const mem_sels[], colldiag_xfer *x)
{
    cd_env_enter();
    int rc = cd_transfer_multi(f, n, layouts, file_sels, mem_sels, NULL, NULL, x, DIR_PLAN, "colldiag_plan_multi");
    multi_env_report(f, x);
    cd_env_leave();
    return rc;
}

/* ====================================================================================================
 * 10. reporting
 * ==================================================================================================== */

static const struct {
    uint32_t bit;
    const char *name, *phrase;
} cd_causes[] = {
#define CD_CAUSE_ROW(NAME, VALUE, PHRASE) {VALUE, #NAME, PHRASE},
    COLLDIAG_CAUSE_TABLE(CD_CAUSE_ROW)
#undef CD_CAUSE_ROW
};
/* The table and the public constants must not drift apart. */
#define CD_CAUSE_CHECK(NAME, VALUE, PHRASE) _Static_assert(COLLDIAG_MPIO_##NAME == VALUE, "cause table mismatch: " #NAME);
COLLDIAG_CAUSE_TABLE(CD_CAUSE_CHECK)
#undef CD_CAUSE_CHECK

size_t colldiag_cause_string(uint32_t cause, char *buf, size_t len)
{
    size_t need = 0;
    uint32_t known = 0;
    char tmp[64];
    if (buf && len) buf[0] = 0;
    for (size_t i = 0; i < sizeof cd_causes / sizeof *cd_causes; i++) {
        known |= cd_causes[i].bit;
        if (!(cause & cd_causes[i].bit)) continue;
        const char *parts[2] = {need ? "; " : "", cd_causes[i].phrase};
        for (int j = 0; j < 2; j++) {
            size_t pl = strlen(parts[j]);
            if (buf && len && need < len - 1) {
                size_t room = len - 1 - need, c = pl < room ? pl : room;
                memcpy(buf + need, parts[j], c);
                buf[need + c] = 0;
            }
            need += pl;
        }
    }
    if (cause & ~known) {
        snprintf(tmp, sizeof tmp, "%sunknown cause bits 0x%x", need ? "; " : "", cause & ~known);
        size_t pl = strlen(tmp);
        if (buf && len && need < len - 1) {
            size_t room = len - 1 - need, c = pl < room ? pl : room;
            memcpy(buf + need, tmp, c);
            buf[need + c] = 0;
        }
        need += pl;
    }
    return need;
}

/* Enum names, generated once so the report, the JSON and the scenario runner print the same words. */
#define CD_CHUNK_OPT_NAMES(X) X(NO_CHUNK_OPTIMIZATION) X(LINK_CHUNK) X(MULTI_CHUNK) X(COLL_CHUNK_ATONCE) \
    X(ALL_CHUNK_IND) X(MULTI_CHUNK_NO_OPT) X(CHUNK_AGGREGATE)
#define CD_IO_MODE_NAMES(X) X(NO_COLLECTIVE) X(CHUNK_INDEPENDENT) X(CHUNK_COLLECTIVE) X(CHUNK_MIXED) X(CONTIGUOUS_COLLECTIVE)
#define CD_NAME_ROW(N) [COLLDIAG_MPIO_##N] = #N,
static const char *const cd_chunk_opt_names[] = {CD_CHUNK_OPT_NAMES(CD_NAME_ROW)};
static const char *const cd_io_mode_names[] = {CD_IO_MODE_NAMES(CD_NAME_ROW)};
#undef CD_NAME_ROW

const char *colldiag_chunk_opt_name(colldiag_actual_chunk_opt_mode_t v)
{
    return (unsigned)v < sizeof cd_chunk_opt_names / sizeof *cd_chunk_opt_names ? cd_chunk_opt_names[v] : "?";
}
const char *colldiag_io_mode_name(colldiag_actual_io_mode_t v)
{
    return (unsigned)v < sizeof cd_io_mode_names / sizeof *cd_io_mode_names ? cd_io_mode_names[v] : "?";
}

int colldiag_get_mpio_actual_chunk_opt_mode(const colldiag_xfer *x, colldiag_actual_chunk_opt_mode_t *out)
{
    static const char fn[] = "colldiag_get_mpio_actual_chunk_opt_mode";
    if (!x || !out) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", x ? "out" : "x");
    *out = (colldiag_actual_chunk_opt_mode_t)x->chunk_opt_done;
    return 0;
}

int colldiag_get_mpio_actual_io_mode(const colldiag_xfer *x, colldiag_actual_io_mode_t *out)
{
    static const char fn[] = "colldiag_get_mpio_actual_io_mode";
    if (!x || !out) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", x ? "out" : "x");
    *out = (colldiag_actual_io_mode_t)x->io_mode_done;
    return 0;
}

int colldiag_get_mpio_no_collective_cause(const colldiag_xfer *x, uint32_t *local, uint32_t *global)
{
    static const char fn[] = "colldiag_get_mpio_no_collective_cause";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (local) *local = x->local_cause;
    if (global) *global = x->global_cause;
    return 0;
}

int colldiag_get_ndatasets(const colldiag_xfer *x, size_t *n)
{
    if (!x || !n) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_ndatasets", "x or n is NULL");
    *n = x->nds ? x->nds : 1;
    return 0;
}

int colldiag_get_dataset_mpio(const colldiag_xfer *x, size_t i, colldiag_actual_chunk_opt_mode_t *chunk_opt,
                              colldiag_actual_io_mode_t *io_mode, uint32_t *local_cause, uint32_t *global_cause)
{
    static const char fn[] = "colldiag_get_dataset_mpio";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (i >= (x->nds ? x->nds : 1)) return cd_fail(COLLDIAG_ERR_ARG, fn, "dataset %zu of a call with %zu", i, x->nds ? x->nds : 1);
    const cd_dsres *r = x->nds ? &x->dsr[i] : NULL;
    if (chunk_opt) *chunk_opt = (colldiag_actual_chunk_opt_mode_t)(r ? r->chunk_opt : x->chunk_opt_done);
    if (io_mode) *io_mode = (colldiag_actual_io_mode_t)(r ? r->io_mode : x->io_mode_done);
    if (local_cause) *local_cause = r ? r->local_cause : x->local_cause;
    if (global_cause) *global_cause = r ? r->global_cause : x->global_cause;
    return 0;
}

const char *colldiag_xfer_errmsg(const colldiag_xfer *x) { return x ? x->errmsg : ""; }

int colldiag_get_chunk_info(const colldiag_xfer *x, uint64_t *nchunks, const colldiag_chunk_info **chunks)
{
    static const char fn[] = "colldiag_get_chunk_info";
    if (!x || !nchunks || !chunks) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", !x ? "x" : !nchunks ? "nchunks" : "chunks");
    const colldiag_chunk_info *v = chunks_view(x, x->nchunks);
    if (!v && x->nchunks) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "materialising %" PRIu64 " chunk records", x->nchunks);
    *nchunks = x->nchunks;
    *chunks = x->nchunks ? v : NULL;
    return 0;
}

int colldiag_get_counters(const colldiag_xfer *x, colldiag_counters *out)
{
    static const char fn[] = "colldiag_get_counters";
    if (!x || !out) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", x ? "out" : "x");
    *out = x->cnt;
    return 0;
}

int colldiag_get_auto_estimates(const colldiag_xfer *x, double *link_s, double *multi_s, double *aggregate_s)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_auto_estimates", "x is NULL");
    if (link_s) *link_s = x->auto_est[0];
    if (multi_s) *multi_s = x->auto_est[1];
    if (aggregate_s) *aggregate_s = x->auto_est[2];
    return 0;
}

int colldiag_get_model_estimates(const colldiag_xfer *x, double est[4])
{
    if (!x || !est) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_model_estimates", "%s is NULL", x ? "est" : "x");
    memcpy(est, x->model_est, 4 * sizeof *est);
    return 0;
}

int colldiag_get_auto_estimate_independent(const colldiag_xfer *x, double *independent_s)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_auto_estimate_independent", "x is NULL");
    if (independent_s) *independent_s = x->auto_est[3];
    return 0;
}

const char *colldiag_scheme_reason(const colldiag_xfer *x) { return x ? xfer_reason(x) : ""; }

/* --- the collective report --- */

typedef struct {
    int32_t bad, chunk_opt, io_mode, grid_rank;
    uint32_t local, global, thr, ratio0;
    uint64_t nchunks, sent;
    colldiag_counters cnt;
    uint64_t grid[COLLDIAG_MAX_RANK];
    uint64_t nds;                /* datasets of a multi-dataset call, 0 after a single call */
    char reason[256];
} cd_rep_hdr;

/* One rank's results for one dataset of a multi-dataset call. */
typedef struct { int32_t chunk_opt, io_mode; uint32_t local, global; } cd_rep_ds;

/* Chunks per rank the report carries: beyond this, the JSON and table say how many were left out. */
#define CD_REPORT_MAX_CHUNKS ((uint64_t)1 << 20)

typedef struct {
    int P;
    cd_rep_hdr *h;
    colldiag_chunk_info *ci;
    uint64_t *off;
    uint64_t nds;     /* multi-dataset call: datasets, and ds[rank * nds + dataset] on rank 0 */
    cd_rep_ds *ds;
} cd_rep;

/* Gathers every rank's results on rank 0. Collective: every rank returns 0, or an error on every rank
   (ERR_ARG on a rank that passed x = NULL, ERR_PEER naming it on the others; ERR_NOMEM everywhere when
   rank 0 cannot hold the report). Rank 0 first says whether it can receive the headers, so that no
   gather writes past a buffer it could not allocate. */
static int report_gather(colldiag_file *f, const colldiag_xfer *x, const char *fn, cd_rep *r)
{
    memset(r, 0, sizeof *r);
    if (!f) return cd_fail(COLLDIAG_ERR_ARG, fn, "f is NULL (this rank cannot take part)");
    cd_rep_hdr me;
    memset(&me, 0, sizeof me);
    me.bad = !x;
    if (x) {
        me.chunk_opt = x->chunk_opt_done;
        me.io_mode = x->io_mode_done;
        me.grid_rank = x->grid_rank;
        memcpy(me.grid, x->grid, sizeof me.grid);
        me.local = x->local_cause;
        me.global = x->global_cause;
        me.thr = x->thr;
        me.ratio0 = (uint32_t)x->ratio0;
        me.nchunks = x->nchunks;
        me.sent = x->nchunks < CD_REPORT_MAX_CHUNKS ? x->nchunks : CD_REPORT_MAX_CHUNKS;
        if (me.sent && !chunks_view(x, me.sent)) me.sent = 0; /* out of memory: the report goes on without chunk lines */
        me.cnt = x->cnt;
        me.nds = x->nds;
        snprintf(me.reason, sizeof me.reason, "%s", xfer_reason(x));
    }
    r->P = f->size;
    /* st[0]: 0 go on, 1 a rank passed x = NULL (st[1] the first), 2 rank 0 is out of memory */
    int st[2] = {0, -1};
    if (f->rank == 0) {
        r->h = cd_calloc((size_t)r->P, sizeof *r->h);
        r->off = cd_calloc((size_t)r->P + 1, sizeof *r->off);
        if (!r->h || !r->off) st[0] = 2;
    }
    MPI_Bcast(st, 2, MPI_INT, 0, f->comm);
    const int gathered = st[0] == 0; /* agreed: every rank takes the same steps below */
    if (gathered) MPI_Gather(&me, (int)sizeof me, MPI_BYTE, r->h, (int)sizeof me, MPI_BYTE, 0, f->comm);
    int *cnt = NULL, *dsp = NULL;
    uint64_t total = 0;
    if (f->rank == 0 && gathered) {
        for (int i = 0; i < r->P; i++) {
            r->off[i] = total;
            total += r->h[i].sent;
            if (r->h[i].bad && st[0] == 0) { st[0] = 1; st[1] = i; }
        }
        r->off[r->P] = total;
        if (st[0] == 0) {
            cnt = cd_malloc((size_t)r->P * sizeof *cnt);
            dsp = cd_malloc((size_t)r->P * sizeof *dsp);
            r->ci = cd_malloc((size_t)(total ? total : 1) * sizeof *r->ci);
            if (!cnt || !dsp || !r->ci || total * sizeof *r->ci > (uint64_t)INT_MAX) st[0] = 2;
        }
        for (int i = 0; i < r->P && st[0] == 0; i++) {
            cnt[i] = (int)(r->h[i].sent * sizeof *r->ci);
            dsp[i] = (int)(r->off[i] * sizeof *r->ci);
        }
    }
    /* rank 0 tells everyone whether the chunk lists can follow, so nobody blocks in a Gatherv alone */
    if (gathered) MPI_Bcast(st, 2, MPI_INT, 0, f->comm);
    int rc = 0;
    if (st[0] == 0)
        MPI_Gatherv(x && me.sent ? (void *)x->chunks : (void *)&me, (int)(me.sent * sizeof *r->ci), MPI_BYTE, r->ci, cnt, dsp, MPI_BYTE, 0,
                    f->comm);
    else if (st[0] == 1)
        rc = !x ? cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank's results cannot be reported)")
                : cd_fail(COLLDIAG_ERR_PEER, fn, "rank %d passed x = NULL", st[1]);
    else
        rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "gathering the report on rank 0");
    cd_free(cnt);
    cd_free(dsp);
    /* a multi-dataset call: every rank's results per dataset (rank 0's count; a rank whose own
       differs, passing another call's xfer, sends empty rows) */
    if (st[0] == 0) {
        uint64_t nd = f->rank == 0 ? r->h[0].nds : 0;
        if (f->rank == 0 && nd && !(r->ds = cd_calloc((size_t)(nd * (uint64_t)r->P), sizeof *r->ds))) nd = 0;
        if (nd * (uint64_t)r->P * sizeof *r->ds > (uint64_t)INT_MAX) nd = 0;
        MPI_Bcast(&nd, 1, MPI_UINT64_T, 0, f->comm);
        r->nds = nd;
        if (nd) {
            cd_rep_ds *mine = cd_calloc((size_t)nd, sizeof *mine);
            for (uint64_t d = 0; mine && x && x->nds == nd && d < nd; d++) {
                mine[d].chunk_opt = x->dsr[d].chunk_opt;
                mine[d].io_mode = x->dsr[d].io_mode;
                mine[d].local = x->dsr[d].local_cause;
                mine[d].global = x->dsr[d].global_cause;
            }
            int ok = mine != NULL, all = 0; /* nobody may be left alone in the gather */
            MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
            if (all) MPI_Gather(mine, (int)(nd * sizeof *mine), MPI_BYTE, r->ds, (int)(nd * sizeof *mine), MPI_BYTE, 0, f->comm);
            else r->nds = 0;
            cd_free(mine);
        }
    }
    return rc;
}

static void report_free(cd_rep *r)
{
    cd_free(r->ds);
    cd_free(r->h);
    cd_free(r->ci);
    cd_free(r->off);
}

/* Ranks touching chunk idx, from the gathered lists (exact whatever the scheme computed). */
static int report_nranks(const cd_rep *r, uint64_t idx, int *coll)
{
    int n = 0;
    *coll = 0;
    for (int p = 0; p < r->P; p++) {
        uint64_t lo = r->off[p], hi = r->off[p + 1];
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (r->ci[mid].index < idx) lo = mid + 1;
            else hi = mid;
        }
        if (lo < r->off[p + 1] && r->ci[lo].index == idx) {
            n++;
            *coll |= r->ci[lo].collective;
        }
    }
    return n;
}

static void chunk_reason(const cd_rep_hdr *h, const colldiag_chunk_info *c, int P, char *buf, size_t len)
{
    if (h->chunk_opt == COLLDIAG_MPIO_LINK_CHUNK) snprintf(buf, len, "collective: link-chunk moves all chunks together (one collective call a round)");
    else if (h->chunk_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE)
        snprintf(buf, len, "collective: aggregated, rank %d of the %d touching it moves the chunk", c->owner, c->nproc);
    else if (h->chunk_opt == COLLDIAG_MPIO_ALL_CHUNK_IND) snprintf(buf, len, "independent: all-independent scheme");
    else if (h->chunk_opt == COLLDIAG_MPIO_MULTI_CHUNK_NO_OPT)
        snprintf(buf, len, "%s: %s", c->collective ? "collective" : "independent",
                 c->collective ? "within the fewest-chunks rounds" : "beyond the fewest-chunks rounds");
    else if (h->chunk_opt == COLLDIAG_MPIO_MULTI_CHUNK || h->chunk_opt == COLLDIAG_MPIO_COLL_CHUNK_ATONCE) {
        if (h->ratio0) snprintf(buf, len, "collective: ratio 0 makes every chunk collective");
        else snprintf(buf, len, "%s: %d of %d ranks %s threshold %u", c->collective ? "collective" : "independent", c->nproc, P,
                      c->collective ? ">" : "<=", h->thr);
    } else {
        char cs[200];
        colldiag_cause_string(h->global, cs, sizeof cs);
        snprintf(buf, len, "independent: no collective I/O (%s)", h->global ? cs : "contiguous");
    }
}

/* The chunk grid's rank for a chunk line: its dataset's in a multi-dataset call (the layouts are
   agreed, so rank 0's own results know every dataset's grid), else the rank's. */
static int rep_grid_rank(const cd_rep *r, const colldiag_xfer *x, int p, const colldiag_chunk_info *c)
{
    if (r->nds && x->nds == r->nds && c->dataset >= 0 && (uint64_t)c->dataset < x->nds) return x->dsr[c->dataset].grid_rank;
    return r->h[p].grid_rank;
}

/* A multi-dataset call's datasets, one line each (per rank when the ranks differ), capped. */
static void report_print_datasets(const cd_rep *r, FILE *out)
{
    if (!r->nds) return;
    fprintf(out, "   %" PRIu64 " datasets in this call (chunk optimization / io mode, local/global causes, as each one's single call):\n", r->nds);
    for (uint64_t d = 0; d < r->nds && d < 64; d++) {
        const cd_rep_ds *a = &r->ds[d];
        int same = 1;
        for (int p = 1; p < r->P; p++) same &= !memcmp(&r->ds[(uint64_t)p * r->nds + d], a, sizeof *a);
        fprintf(out, "     dataset %" PRIu64 ":", d);
        for (int p = 0; p < (same ? 1 : r->P) && p < 16; p++) {
            const cd_rep_ds *b = &r->ds[(uint64_t)p * r->nds + d];
            char cs[256] = "";
            if (b->global) {
                cs[0] = ' ';
                cs[1] = '(';
                colldiag_cause_string(b->global, cs + 2, sizeof cs - 3);
                strcat(cs, ")");
            }
            if (!same) fprintf(out, "%s rank %d", p ? ";" : "", p);
            fprintf(out, " %s / %s, 0x%x/0x%x%s", colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)b->chunk_opt),
                    colldiag_io_mode_name((colldiag_actual_io_mode_t)b->io_mode), b->local, b->global, cs);
        }
        if (same && r->P > 1) fprintf(out, " (every rank)");
        if (!same && r->P > 16) fprintf(out, "; ...");
        fprintf(out, "\n");
    }
    if (r->nds > 64) fprintf(out, "     ... %" PRIu64 " more datasets (see the JSON report)\n", r->nds - 64);
}

int colldiag_report_print(colldiag_file *f, const colldiag_xfer *x, FILE *out)
{
    static const char fn[] = "colldiag_report_print";
    cd_rep r;
    int rc = report_gather(f, x, fn, &r);
    if (rc || f->rank != 0 || !out) { report_free(&r); return rc; }
    const cd_rep_hdr *h0 = &r.h[0];
    fprintf(out, "== colldiag %s report: %d rank%s, chunk optimization %s\n", colldiag_version(), r.P, r.P > 1 ? "s" : "",
            colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h0->chunk_opt));
    fprintf(out, "   why: %s\n", h0->reason[0] ? h0->reason : "(no transfer yet)");
    fprintf(out, "   rank  chunk_opt              io_mode                local    global   coll.bytes    ind.bytes  coll.calls  ind.calls  map+decide/io ms\n");
    for (int p = 0; p < r.P; p++) {
        const cd_rep_hdr *h = &r.h[p];
        fprintf(out, "   %4d  %-21s  %-21s  0x%-5x  0x%-5x  %10" PRIu64 "  %11" PRIu64 "  %10" PRIu64 "  %9" PRIu64 "  %.3f/%.3f\n", p,
                colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h->chunk_opt),
                colldiag_io_mode_name((colldiag_actual_io_mode_t)h->io_mode), h->local, h->global, h->cnt.bytes_collective,
                h->cnt.bytes_independent, h->cnt.calls_collective, h->cnt.calls_independent, 1e3 * (h->cnt.t_map + h->cnt.t_decide),
                1e3 * h->cnt.t_io);
    }
    if (x->planned) fprintf(out, "   (a plan: the bytes and calls are those the planned transfer makes; nothing moved)\n");
    /* causes, and which ranks raised them */
    uint32_t seen = 0;
    for (int p = 0; p < r.P; p++) seen |= r.h[p].local;
    if (seen) {
        char cs[512];
        for (uint32_t bit = 1; bit; bit <<= 1) {
            if (!(seen & bit)) continue;
            colldiag_cause_string(bit, cs, sizeof cs);
            fprintf(out, "   cause 0x%x (%s) raised by rank", bit, cs);
            int k = 0;
            for (int p = 0; p < r.P && k < 16; p++)
                if (r.h[p].local & bit) fprintf(out, "%s%d", k++ ? "," : "s ", p);
            fprintf(out, "%s\n", k >= 16 ? ",..." : "");
        }
    } else {
        fprintf(out, "   causes: none, collective I/O was possible\n");
    }
    report_print_datasets(&r, out);
    /* per-chunk truth, capped so a huge run stays readable */
    uint64_t shown = 0, total = 0;
    for (int p = 0; p < r.P; p++) {
        total += r.off[p + 1] - r.off[p];
        for (uint64_t i = r.off[p]; i < r.off[p + 1] && shown < 64; i++, shown++) {
            const colldiag_chunk_info *c = &r.ci[i];
            char why[256], co[128];
            int w = 0;
            co[0] = 0;
            for (int d = 0; d < rep_grid_rank(&r, x, p, c) && w < 100; d++) w += snprintf(co + w, sizeof co - (size_t)w, "%s%" PRIu64, d ? "," : "", c->coords[d]);
            chunk_reason(&r.h[p], c, r.P, why, sizeof why);
            char ds[32] = "";
            if (r.nds) snprintf(ds, sizeof ds, "dataset %d ", c->dataset);
            fprintf(out, "   rank %d %schunk %" PRIu64 " (%s) @%lld: %" PRIu64 " elements, %s\n", p, ds, c->index, co, (long long)c->addr,
                    c->nelem, why);
        }
    }
    if (total > shown) fprintf(out, "   ... %" PRIu64 " more rank/chunk lines (see the JSON report)\n", total - shown);
    /* the map of the chunk grid */
    int gr = h0->grid_rank;
    for (int p = 1; p < r.P && !gr; p++) gr = r.h[p].grid_rank;
    const uint64_t *g = NULL;
    for (int p = 0; p < r.P && !g; p++)
        if (r.h[p].grid_rank) g = r.h[p].grid;
    if (g && (gr == 1 || gr == 2)) {
        uint64_t rows = gr == 2 ? g[0] : 1, cols = gr == 2 ? g[1] : g[0];
        if (rows <= 32 && cols <= 32) {
            fprintf(out, "   chunk map (C collective, I independent, . untouched; digit = ranks touching it, + for 10 or more):\n");
            for (uint64_t i = 0; i < rows; i++) {
                fprintf(out, "     ");
                for (uint64_t j = 0; j < cols; j++) {
                    int coll, n = report_nranks(&r, i * cols + j, &coll);
                    if (!n) fprintf(out, " . ");
                    else fprintf(out, " %c%c", coll ? 'C' : 'I', n < 10 ? '0' + n : '+');
                }
                fprintf(out, "\n");
            }
        } else {
            uint64_t nc = 0, ni = 0, nt = 0;
            /* count distinct touched chunks by walking each rank's sorted list once */
            for (int p = 0; p < r.P; p++)
                for (uint64_t i = r.off[p]; i < r.off[p + 1]; i++) {
                    int coll, first = 1;
                    for (int q = 0; q < p && first; q++) {
                        uint64_t lo = r.off[q], hi = r.off[q + 1];
                        while (lo < hi) { uint64_t mid = (lo + hi) / 2; if (r.ci[mid].index < r.ci[i].index) lo = mid + 1; else hi = mid; }
                        if (lo < r.off[q + 1] && r.ci[lo].index == r.ci[i].index) first = 0;
                    }
                    if (!first) continue;
                    report_nranks(&r, r.ci[i].index, &coll);
                    nt++;
                    if (coll) nc++; else ni++;
                }
            fprintf(out, "   chunk map omitted (%" PRIu64 " x %" PRIu64 " chunks): %" PRIu64 " touched, %" PRIu64 " collective, %" PRIu64
                         " independent\n", rows, cols, nt, nc, ni);
        }
    }
    fflush(out);
    report_free(&r);
    return 0;
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

int colldiag_report_json(colldiag_file *f, const colldiag_xfer *x, FILE *out)
{
    static const char fn[] = "colldiag_report_json";
    cd_rep r;
    int rc = report_gather(f, x, fn, &r);
    if (rc || f->rank != 0 || !out) { report_free(&r); return rc; }
    fprintf(out, "{\"colldiag\":\"%s\",\"nprocs\":%d,\"scheme\":{\"chunk_opt\":\"%s\",\"reason\":", colldiag_version(), r.P,
            colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)r.h[0].chunk_opt));
    json_str(out, r.h[0].reason);
    /* a plan's bytes and calls are what the planned transfer would make; nothing moved */
    fprintf(out, "},\"counters\":\"%s\",\"ranks\":[", x->planned ? "planned" : "moved");
    for (int p = 0; p < r.P; p++) {
        const cd_rep_hdr *h = &r.h[p];
        fprintf(out, "%s{\"rank\":%d,\"chunk_opt\":\"%s\",\"io_mode\":\"%s\",\"local_cause\":%u,\"global_cause\":%u,", p ? "," : "", p,
                colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h->chunk_opt), colldiag_io_mode_name((colldiag_actual_io_mode_t)h->io_mode),
                h->local, h->global);
        fprintf(out, "\"bytes_collective\":%" PRIu64 ",\"bytes_independent\":%" PRIu64 ",\"calls_collective\":%" PRIu64
                     ",\"calls_independent\":%" PRIu64 ",\"t_map\":%.9f,\"t_decide\":%.9f,\"t_io\":%.9f,\"chunks_omitted\":%" PRIu64 ",\"chunks\":[",
                h->cnt.bytes_collective, h->cnt.bytes_independent, h->cnt.calls_collective, h->cnt.calls_independent, h->cnt.t_map,
                h->cnt.t_decide, h->cnt.t_io, h->nchunks - h->sent);
        for (uint64_t i = r.off[p]; i < r.off[p + 1]; i++) {
            const colldiag_chunk_info *c = &r.ci[i];
            fprintf(out, "%s{\"index\":%" PRIu64 ",\"coords\":[", i > r.off[p] ? "," : "", c->index);
            for (int d = 0; d < rep_grid_rank(&r, x, p, c); d++) fprintf(out, "%s%" PRIu64, d ? "," : "", c->coords[d]);
            fprintf(out, "],\"addr\":%lld,\"nelem\":%" PRIu64 ",\"nproc\":%d,\"collective\":%s,\"owner\":%d", (long long)c->addr, c->nelem,
                    c->nproc, c->collective ? "true" : "false", c->owner);
            if (r.nds) fprintf(out, ",\"dataset\":%d", c->dataset);
            fprintf(out, "}");
        }
        fprintf(out, "]}");
    }
    fprintf(out, "]");
    if (r.nds) { /* a multi-dataset call: each dataset, each rank's results for it */
        fprintf(out, ",\"datasets\":[");
        for (uint64_t d = 0; d < r.nds; d++) {
            fprintf(out, "%s{\"dataset\":%" PRIu64 ",\"ranks\":[", d ? "," : "", d);
            for (int p = 0; p < r.P; p++) {
                const cd_rep_ds *b = &r.ds[(uint64_t)p * r.nds + d];
                fprintf(out, "%s{\"chunk_opt\":\"%s\",\"io_mode\":\"%s\",\"local_cause\":%u,\"global_cause\":%u}", p ? "," : "",
                        colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)b->chunk_opt),
                        colldiag_io_mode_name((colldiag_actual_io_mode_t)b->io_mode), b->local, b->global);
            }
            fprintf(out, "]}");
        }
        fprintf(out, "]");
    }
    fprintf(out, "}\n");
    fflush(out);
    report_free(&r);
    return 0;
}

/* --- the HTML page ---
   One self-contained page: tables in plain HTML (readable without JavaScript) and the chunk grid on a
   canvas drawn from compact arrays by a small script (no network, fonts or external files). The page
   head (style and script) is written once; each call is a <section> that hands its data to the
   script, so COLLDIAG_REPORT=html:PATH appends an entry per call to one page per run. Per touched
   chunk the page carries the chunk's index, ranks, elements, address, mode and reason, delta-encoded
   where it helps: about 16 bytes a chunk, 4 MB for 262,144 touched chunks. */

static const char cd_html_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>colldiag report</title>\n<style>\n"
    "body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222}h1{font-size:20px}h2{font-size:17px;margin-top:1.6em}"
    "section{border-top:2px solid #888;margin-top:2em}table{border-collapse:collapse;margin:.5em 0}"
    "td,th{border:1px solid #bbb;padding:2px 8px;text-align:left}th{background:#eee}"
    ".agree{color:#070}.disagree{color:#b00;font-weight:bold}.grid{display:flex;gap:1.5em;align-items:flex-start}"
    "canvas{border:1px solid #888;image-rendering:pixelated;cursor:crosshair}.legend span{display:inline-block;width:12px;"
    "height:12px;margin:0 4px 0 12px;vertical-align:middle;border:1px solid #888}.info{min-width:22em;font:13px monospace;"
    "white-space:pre;background:#f7f7f7;padding:6px;border:1px solid #ccc}\n</style>\n<script>\n"
    "var CD=[];\n"
    "function cdDec(a){var o=new Array(a.length),v=0;for(var i=0;i<a.length;i++){v+=a[i];o[i]=v;}return o;}\n"
    "function cdFind(d,idx){var lo=0,hi=d.T.length-1;while(lo<=hi){var m=(lo+hi)>>1;if(d.T[m]===idx)return m;"
    "if(d.T[m]<idx)lo=m+1;else hi=m-1;}return -1;}\n"
    "function cdLow(d,idx){var lo=0,hi=d.T.length;while(lo<hi){var m=(lo+hi)>>1;if(d.T[m]<idx)lo=m+1;else hi=m;}return lo;}\n"
    "function cdColor(d,k){if(d.S[k]==='I')return[230,120,40];if(d.O&&d.O[k]>=0){var h=(d.O[k]*0.618034)%1;"
    "return cdHsl(h,0.65,0.45);}var n=d.N[k],f=Math.min(1,(n-1)/Math.max(1,d.P-1));return[Math.round(60-40*f),"
    "Math.round(170-90*f),Math.round(80-40*f)];}\n"
    "function cdHsl(h,s,l){function f(n){var k=(n+h*12)%12,a=s*Math.min(l,1-l);return Math.round(255*(l-a*Math.max(-1,"
    "Math.min(k-3,9-k,1))));}return[f(0),f(8),f(4)];}\n"
    "function cdDims(d){var g=d.G,r=g.length;var rows=r>=2?g[r-2]:1,cols=g[r-1],slices=1;for(var i=0;i<r-2;i++)slices*=g[i];"
    "return{rows:rows,cols:cols,slices:slices,per:rows*cols};}\n"
    "function cdDraw(d){var D=cdDims(d),s=d.slice,img=d.ctx0.createImageData(D.cols,D.rows),px=img.data;"
    "for(var i=0;i<px.length;i+=4){px[i]=232;px[i+1]=232;px[i+2]=232;px[i+3]=255;}"
    "var a=cdLow(d,s*D.per),b=cdLow(d,(s+1)*D.per),drawn=0;for(var k=a;k<b;k++){var c=d.T[k]-s*D.per,q=4*c,col=cdColor(d,k);"
    "px[q]=col[0];px[q+1]=col[1];px[q+2]=col[2];drawn++;}d.ctx0.putImageData(img,0,0);var ctx=d.cv.getContext('2d');"
    "ctx.imageSmoothingEnabled=false;ctx.clearRect(0,0,d.cv.width,d.cv.height);ctx.drawImage(d.off,0,0,d.cv.width,d.cv.height);"
    "var cw=d.cv.width/D.cols,chh=d.cv.height/D.rows;if(cw>=6&&chh>=6){ctx.strokeStyle='#fff';ctx.beginPath();"
    "for(var x=1;x<D.cols;x++){ctx.moveTo(x*cw,0);ctx.lineTo(x*cw,d.cv.height);}for(var y=1;y<D.rows;y++){ctx.moveTo(0,y*chh);"
    "ctx.lineTo(d.cv.width,y*chh);}ctx.stroke();}"
    "d.el.querySelector('.slicelabel').textContent=D.slices>1?('slice '+s+' of '+D.slices+' (leading coordinates '+cdCoords(d,s*D.per).slice(0,d.G.length-2).join(',')+')'):'';"
    "var st=d.el.querySelector('.cd-stats');st.setAttribute('data-drawn',drawn);st.setAttribute('data-slice',s);}\n"
    "function cdCoords(d,idx){var c=[],g=d.G;for(var i=g.length-1;i>=0;i--){c[i]=idx%g[i];idx=Math.floor(idx/g[i]);}return c;}\n"
    "function cdInfo(d,ev){var D=cdDims(d),r=d.cv.getBoundingClientRect();var col=Math.floor((ev.clientX-r.left)/r.width*D.cols),"
    "row=Math.floor((ev.clientY-r.top)/r.height*D.rows);if(col<0||row<0||col>=D.cols||row>=D.rows)return;"
    "cdShow(d,d.slice*D.per+row*D.cols+col);}\n"
    "function cdShow(d,idx){var k=cdFind(d,idx),t='chunk '+idx+' ('+cdCoords(d,idx).join(',')+')\\n';"
    "if(k<0)t+='untouched by this call';else{t+='address   '+d.A[k]+'\\nelements  '+d.E[k]+'\\nranks     '+(d.R[k]>=0?d.R[k]:d.RL[-d.R[k]-1])+"
    "' ('+d.N[k]+')\\nmode      '+(d.S[k]==='C'?'collective':'independent')+(d.O&&d.O[k]>=0?'\\nowner     rank '+d.O[k]:'')+"
    "'\\nwhy       '+d.W[d.Y[k]];}d.el.querySelector('.info').textContent=t;}\n"
    "function cdAdd(d){d.T=cdDec(d.T);d.A=cdDec(d.A);var el=document.getElementById(d.id);d.el=el;d.cv=el.querySelector('canvas');"
    "var D=cdDims(d);d.off=document.createElement('canvas');d.off.width=D.cols;d.off.height=D.rows;d.ctx0=d.off.getContext('2d');"
    "var sc=Math.max(1,Math.floor(Math.min(720/D.cols,480/D.rows)));d.cv.width=Math.max(D.cols*sc,Math.min(D.cols,720));"
    "d.cv.height=Math.max(D.rows*sc,Math.min(D.rows,480));d.slice=0;var rg=el.querySelector('input');"
    "if(D.slices>1){rg.max=D.slices-1;rg.oninput=function(){d.slice=+rg.value;cdDraw(d);};}else rg.style.display='none';"
    "d.cv.onmousemove=function(e){cdInfo(d,e);};d.cv.onclick=function(e){cdInfo(d,e);};var nc=0;for(var k=0;k<d.S.length;k++)"
    "if(d.S[k]==='C')nc++;var st=el.querySelector('.cd-stats');st.setAttribute('data-touched',d.T.length);"
    "st.setAttribute('data-collective',nc);st.setAttribute('data-independent',d.T.length-nc);cdDraw(d);CD.push(d);"
    "var m=/probe=([0-9]+)/.exec(location.hash);if(m){var D2=cdDims(d),pi=+m[1];d.slice=Math.min(D2.slices-1,Math.floor(pi/D2.per));"
    "cdDraw(d);cdShow(d,pi);}}\n"
    "</script></head><body>\n<h1>colldiag: was it collective, and if not, why?</h1>\n";

static void html_esc(FILE *o, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<') fputs("&lt;", o);
        else if (*s == '>') fputs("&gt;", o);
        else if (*s == '&') fputs("&amp;", o);
        else if (*s == '"') fputs("&quot;", o);
        else fputc(*s, o);
    }
}

/* One touched chunk, merged over the ranks that reported it. */
typedef struct {
    uint64_t idx, nelem;
    MPI_Offset addr;
    int nproc, owner, coll, first, rl; /* rl: -1 single rank (first), else an index into the rank lists */
    int why;
} cd_html_chunk;

typedef struct { uint64_t idx; int rank; uint64_t pos; } cd_html_ref;

static int html_ref_cmp(const void *a, const void *b)
{
    const cd_html_ref *x = a, *y = b;
    if (x->idx != y->idx) return x->idx < y->idx ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* A small string table (reasons, rank lists): linear search is fine, entries are few. Out of memory,
   a string maps to entry 0 (or -1 with none yet), which the page shows as that entry's text. */
typedef struct { char **v; uint64_t n, cap; } cd_strtab;
static int strtab_id(cd_strtab *t, const char *s)
{
    for (uint64_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i], s)) return (int)i;
    size_t l = strlen(s) + 1;
    char *c = cd_malloc(l);
    if (!c || cd_grow((void **)&t->v, &t->cap, t->n + 1, sizeof *t->v)) {
        cd_free(c);
        return t->n ? 0 : -1;
    }
    memcpy(c, s, l);
    t->v[t->n] = c;
    return (int)t->n++;
}
static void strtab_free(cd_strtab *t)
{
    for (uint64_t i = 0; i < t->n; i++) cd_free(t->v[i]);
    cd_free(t->v);
}

static void html_js_strings(FILE *o, const cd_strtab *t)
{
    fputc('[', o);
    for (uint64_t i = 0; i < t->n; i++) {
        if (i) fputc(',', o);
        json_str(o, t->v[i]); /* JSON strings are JavaScript strings; '<' never closes the script: */
    }
    fputc(']', o);
}

/* One chunk grid: every rank's touched chunks merged by index (ds >= 0: dataset ds's only, in a
   multi-dataset call), drawn by the page's script into the element with this id. */
static void report_html_grid(FILE *o, const cd_rep *r, const char *id, int grid_rank, const uint64_t *grid, int chunk_opt, int ds)
{
    /* merge every rank's touched chunks (of dataset ds) by index */
    uint64_t total = 0, nu = 0;
    for (uint64_t i = 0; i < r->off[r->P]; i++) total += ds < 0 || r->ci[i].dataset == ds;
    if (total == 0 && ds >= 0) return;
    cd_html_ref *ref = cd_malloc((size_t)total * sizeof *ref);
    cd_html_chunk *ch = cd_malloc((size_t)total * sizeof *ch);
    cd_strtab why = {0}, rl = {0};
    if (!ref || !ch) {
        fprintf(o, "<p>Out of memory for the chunk grid (%" PRIu64 " chunk entries).</p>\n", total);
        cd_free(ref);
        cd_free(ch);
        return;
    }
    uint64_t nref = 0;
    for (int p = 0; p < r->P; p++)
        for (uint64_t i = r->off[p]; i < r->off[p + 1]; i++)
            if (ds < 0 || r->ci[i].dataset == ds) ref[nref++] = (cd_html_ref){r->ci[i].index, p, i};
    qsort(ref, (size_t)total, sizeof *ref, html_ref_cmp);
    for (uint64_t i = 0; i < total;) {
        uint64_t j = i;
        cd_html_chunk *c = &ch[nu++];
        const colldiag_chunk_info *ci = &r->ci[ref[i].pos];
        memset(c, 0, sizeof *c);
        c->idx = ref[i].idx;
        c->addr = ci->addr;
        c->owner = ci->owner;
        c->coll = ci->collective;
        c->first = ref[i].rank;
        char list[160];
        int ll = 0;
        list[0] = 0;
        for (; j < total && ref[j].idx == c->idx; j++) {
            c->nelem += r->ci[ref[j].pos].nelem;
            if (c->nproc < 8) ll += snprintf(list + ll, sizeof list - (size_t)ll, "%s%d", c->nproc ? "," : "", ref[j].rank);
            c->nproc++;
        }
        if (c->nproc > 8) snprintf(list + ll, sizeof list - (size_t)ll, ",... (%d ranks)", c->nproc);
        c->rl = c->nproc > 1 ? strtab_id(&rl, list) : -1;
        colldiag_chunk_info tmp = *ci;
        tmp.nproc = c->nproc;
        char reason[256];
        chunk_reason(&r->h[ref[i].rank], &tmp, r->P, reason, sizeof reason);
        c->why = strtab_id(&why, reason);
        i = j;
    }
    uint64_t omitted = 0;
    for (int p = 0; p < r->P; p++) omitted += r->h[p].nchunks - r->h[p].sent;
    if (ds >= 0) fprintf(o, "<h3>Chunk grid of dataset %d</h3><p>%" PRIu64 " chunks touched; grid ", ds, nu);
    else fprintf(o, "<h3>Chunk grid</h3><p>%" PRIu64 " chunks touched; grid ", nu);
    for (int d = 0; d < grid_rank; d++) fprintf(o, "%s%" PRIu64, d ? " &times; " : "", grid[d]);
    if (omitted) fprintf(o, "; %" PRIu64 " chunk entries beyond the report's limit are not drawn", omitted);
    fprintf(o, ". Hover or click a chunk for its details.</p>\n<p class=\"legend\"><span style=\"background:rgb(60,170,80)\"></span>collective, "
               "one rank<span style=\"background:rgb(20,80,40)\"></span>collective, all ranks<span style=\"background:rgb(230,120,40)\">"
               "</span>independent<span style=\"background:rgb(232,232,232)\"></span>untouched%s</p>\n",
            chunk_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE ? " (aggregation: one colour per owner rank)" : "");
    fprintf(o, "<div id=\"%s\"><div class=\"grid\"><div><canvas></canvas><br><input type=\"range\" min=\"0\" value=\"0\"> <span class=\"slicelabel\"></span>"
               "</div><div class=\"info\">(chunk details)</div></div>\n<div class=\"cd-stats\" hidden></div></div>\n", id);
    /* the data, for the script: index and address deltas, mode letters, counts, ranks, reasons */
    fprintf(o, "<script>cdAdd({id:\"%s\",P:%d,G:[", id, r->P);
    for (int d = 0; d < grid_rank; d++) fprintf(o, "%s%" PRIu64, d ? "," : "", grid[d]);
    fprintf(o, "],\nT:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%" PRIu64, k ? "," : "", ch[k].idx - (k ? ch[k - 1].idx : 0));
    fprintf(o, "],\nA:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%lld", k ? "," : "", (long long)(ch[k].addr - (k ? ch[k - 1].addr : 0)));
    fprintf(o, "],\nS:\"");
    for (uint64_t k = 0; k < nu; k++) fputc(ch[k].coll ? 'C' : 'I', o);
    fprintf(o, "\",\nN:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%d", k ? "," : "", ch[k].nproc);
    fprintf(o, "],\nE:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%" PRIu64, k ? "," : "", ch[k].nelem);
    fprintf(o, "],\nR:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%d", k ? "," : "", ch[k].rl < 0 ? ch[k].first : -ch[k].rl - 1);
    fprintf(o, "],\nY:[");
    for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%d", k ? "," : "", ch[k].why);
    fprintf(o, "],\n");
    if (chunk_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE) {
        fprintf(o, "O:[");
        for (uint64_t k = 0; k < nu; k++) fprintf(o, "%s%d", k ? "," : "", ch[k].owner);
        fprintf(o, "],\n");
    }
    fprintf(o, "RL:");
    html_js_strings(o, &rl);
    fprintf(o, ",\nW:");
    html_js_strings(o, &why);
    fprintf(o, "});</script>\n");
    strtab_free(&why);
    strtab_free(&rl);
    cd_free(ref);
    cd_free(ch);
}

static void report_html_section(FILE *o, const cd_rep *r, const colldiag_xfer *x, const char *title, const char *verdict, int seq)
{
    const cd_rep_hdr *h0 = &r->h[0];
    fprintf(o, "<section id=\"cd%d\">\n<h2>", seq);
    html_esc(o, title && *title ? title : "colldiag call");
    fprintf(o, "</h2>\n");
    if (verdict && *verdict) {
        fprintf(o, "<p class=\"%s\">", strstr(verdict, "DISAGREE") ? "disagree" : "agree");
        html_esc(o, verdict);
        fprintf(o, "</p>\n");
    }
    fprintf(o, "<table><tr><th>ranks</th><td>%d</td></tr><tr><th>chunk optimisation</th><td>%s</td></tr><tr><th>why</th><td>", r->P,
            colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h0->chunk_opt));
    html_esc(o, h0->reason[0] ? h0->reason : "(no transfer yet)");
    fprintf(o, "</td></tr>");
    if (x && x->auto_est[0] >= 0)
        fprintf(o, "<tr><th>AUTO's estimates</th><td>link %.3g s, multi %.3g s, aggregation %.3g s, independent %.3g s (the least was chosen)</td></tr>",
                x->auto_est[0], x->auto_est[1], x->auto_est[2], x->auto_est[3]);
    fprintf(o, "</table>\n<table class=\"ranks\"><tr><th>rank</th><th>chunk_opt</th><th>io_mode</th><th>local cause</th><th>global cause</th>"
               "<th>bytes coll.</th><th>bytes ind.</th><th>calls coll.</th><th>calls ind.</th><th>map ms</th><th>decide ms</th><th>io ms</th>"
               "<th>chunks</th></tr>\n");
    for (int p = 0; p < r->P; p++) {
        const cd_rep_hdr *h = &r->h[p];
        fprintf(o, "<tr class=\"rank\"><td>%d</td><td>%s</td><td>%s</td><td>0x%x</td><td>0x%x</td><td>%" PRIu64 "</td><td>%" PRIu64
                   "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%" PRIu64 "</td></tr>\n",
                p, colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h->chunk_opt),
                colldiag_io_mode_name((colldiag_actual_io_mode_t)h->io_mode), h->local, h->global, h->cnt.bytes_collective,
                h->cnt.bytes_independent, h->cnt.calls_collective, h->cnt.calls_independent, 1e3 * h->cnt.t_map, 1e3 * h->cnt.t_decide,
                1e3 * h->cnt.t_io, h->nchunks);
    }
    fprintf(o, "</table>\n<p>");
    uint32_t seen = 0;
    for (int p = 0; p < r->P; p++) seen |= r->h[p].local;
    if (!seen) fprintf(o, "Causes: none, collective I/O was possible.");
    for (uint32_t bit = 1; bit; bit <<= 1) {
        if (!(seen & bit)) continue;
        char cs[256];
        colldiag_cause_string(bit, cs, sizeof cs);
        fprintf(o, "Cause 0x%x (", bit);
        html_esc(o, cs);
        fprintf(o, ") raised by rank");
        int k = 0;
        for (int p = 0; p < r->P && k < 32; p++)
            if (r->h[p].local & bit) fprintf(o, "%s%d", k++ ? "," : "s ", p);
        fprintf(o, "%s.<br>", k >= 32 ? ",..." : "");
    }
    fprintf(o, "</p>\n");
    if (r->nds && x && x->nds == r->nds) { /* a multi-dataset call: the datasets, then one grid per chunked dataset */
        fprintf(o, "<h3>%" PRIu64 " datasets in this call</h3><table class=\"datasets\"><tr><th>dataset</th><th>rank</th><th>chunk_opt</th>"
                   "<th>io_mode</th><th>local cause</th><th>global cause</th></tr>\n", r->nds);
        for (uint64_t d = 0; d < r->nds; d++) {
            int same = 1;
            for (int p = 1; p < r->P; p++) same &= !memcmp(&r->ds[(uint64_t)p * r->nds + d], &r->ds[d], sizeof r->ds[d]);
            for (int p = 0; p < (same ? 1 : r->P); p++) {
                const cd_rep_ds *b = &r->ds[(uint64_t)p * r->nds + d];
                char who[16];
                snprintf(who, sizeof who, "%d", p);
                fprintf(o, "<tr class=\"dataset\"><td>%" PRIu64 "</td><td>%s</td><td>%s</td><td>%s</td><td>0x%x</td><td>0x%x</td></tr>\n", d,
                        same ? "every" : who, colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)b->chunk_opt),
                        colldiag_io_mode_name((colldiag_actual_io_mode_t)b->io_mode), b->local, b->global);
            }
        }
        fprintf(o, "</table>\n");
        for (uint64_t d = 0; d < r->nds; d++) {
            const cd_dsres *ds = &x->dsr[d];
            if (ds->grid_rank < 1) continue;
            char id[48];
            snprintf(id, sizeof id, "cd%d_ds%" PRIu64, seq, d);
            report_html_grid(o, r, id, ds->grid_rank, ds->grid, r->ds[d].chunk_opt, (int)d);
        }
        fprintf(o, "</section>\n");
        return;
    }
    if (h0->grid_rank < 1) { fprintf(o, "<p>Not chunked: no chunk grid.</p></section>\n"); return; }
    char id[32];
    snprintf(id, sizeof id, "cd%d_grid", seq);
    report_html_grid(o, r, id, h0->grid_rank, h0->grid, h0->chunk_opt, -1);
    fprintf(o, "</section>\n");
}

/* head: write the page head first (a new page); title/verdict: the call's heading and, from the HDF5
   preload, HDF5's verdict. Collective; rank 0 writes. */
static int report_html(colldiag_file *f, const colldiag_xfer *x, FILE *out, int head, const char *title, const char *verdict)
{
    static const char fn[] = "colldiag_report_html";
    static int seq;
    cd_rep r;
    int rc = report_gather(f, x, fn, &r);
    if (rc || f->rank != 0 || !out) { report_free(&r); return rc; }
    if (head) fputs(cd_html_head, out);
    report_html_section(out, &r, x, title, verdict, seq++);
    if (head) fputs("</body></html>\n", out);
    fflush(out);
    report_free(&r);
    return 0;
}

int colldiag_report_html(colldiag_file *f, const colldiag_xfer *x, FILE *out)
{
    return report_html(f, x, out, 1, NULL, NULL);
}

/* COLLDIAG_REPORT=html:PATH: the page head when PATH is new or empty, then one section per call. */
static void html_append(colldiag_file *f, const colldiag_xfer *x, const char *path, const char *title, const char *verdict)
{
    FILE *out = NULL;
    int fresh = 0;
    if (f->rank == 0 && path) {
        out = fopen(path, "a");
        if (out) {
            fseek(out, 0, SEEK_END);
            fresh = ftell(out) == 0;
            if (fresh) fputs(cd_html_head, out);
        }
    }
    report_html(f, x, out, 0, title, verdict);
    if (out) fclose(out);
}

/* ====================================================================================================
 * 11. HDF5 bridge (only with -DCOLLDIAG_WITH_HDF5; needs parallel HDF5 1.10.8 or later)
 *
 * A layout from an open dataset and a selection from a dataspace. Whatever colldiag cannot represent
 * exactly fails with a message: no silent approximation.
 * ==================================================================================================== */
#ifdef COLLDIAG_WITH_HDF5

/* ---- reading a dataset's chunk index from the file ----
   HDF5 1.10 has no call that lists a dataset's chunk addresses in one pass (H5Dget_chunk_info walks the
   whole index for every chunk: 5.8 ms a chunk at 262,144 chunks), so colldiag reads the index as the
   HDF5 file format specification (version 3.0) defines it: the object header's layout message, then
   whichever index it names -- a version 1 B-tree (every file written with the default format), or,
   with the 1.10 format, a single chunk, the implicit index, a fixed array, an extensible array or a
   version 2 B-tree. Only indexes of unfiltered chunks are read (filtered chunks colldiag never moves).
   The file must be flushed first (H5Fflush): the reader sees the disk, not HDF5's metadata cache.
   Every structure with a checksum is verified; anything unexpected stops the reader with a reason,
   and the caller lets HDF5 do the work instead. Addresses in the file are relative to its base (the
   userblock's size); the table holds absolute file offsets. */

/* Jenkins' lookup3 hashlittle() with initial value 0, which HDF5 uses for its metadata checksums. */
static uint32_t ix_lookup3(const unsigned char *k, size_t length)
{
#define IX_ROT(x, s) (((x) << (s)) | ((x) >> (32 - (s))))
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)length;
    while (length > 12) {
        a += k[0] + ((uint32_t)k[1] << 8) + ((uint32_t)k[2] << 16) + ((uint32_t)k[3] << 24);
        b += k[4] + ((uint32_t)k[5] << 8) + ((uint32_t)k[6] << 16) + ((uint32_t)k[7] << 24);
        c += k[8] + ((uint32_t)k[9] << 8) + ((uint32_t)k[10] << 16) + ((uint32_t)k[11] << 24);
        a -= c; a ^= IX_ROT(c, 4); c += b;
        b -= a; b ^= IX_ROT(a, 6); a += c;
        c -= b; c ^= IX_ROT(b, 8); b += a;
        a -= c; a ^= IX_ROT(c, 16); c += b;
        b -= a; b ^= IX_ROT(a, 19); a += c;
        c -= b; c ^= IX_ROT(b, 4); b += a;
        length -= 12;
        k += 12;
    }
    switch (length) { /* the last bytes, each case falling through */
    case 12: c += (uint32_t)k[11] << 24; /* fall through */
    case 11: c += (uint32_t)k[10] << 16; /* fall through */
    case 10: c += (uint32_t)k[9] << 8; /* fall through */
    case 9: c += k[8]; /* fall through */
    case 8: b += (uint32_t)k[7] << 24; /* fall through */
    case 7: b += (uint32_t)k[6] << 16; /* fall through */
    case 6: b += (uint32_t)k[5] << 8; /* fall through */
    case 5: b += k[4]; /* fall through */
    case 4: a += (uint32_t)k[3] << 24; /* fall through */
    case 3: a += (uint32_t)k[2] << 16; /* fall through */
    case 2: a += (uint32_t)k[1] << 8; /* fall through */
    case 1: a += k[0]; break;
    case 0: return c;
    }
    c ^= b; c -= IX_ROT(b, 14);
    a ^= c; a -= IX_ROT(c, 11);
    b ^= a; b -= IX_ROT(a, 25);
    c ^= b; c -= IX_ROT(b, 16);
    a ^= c; a -= IX_ROT(c, 4);
    b ^= a; b -= IX_ROT(a, 14);
    c ^= b; c -= IX_ROT(b, 24);
    return c;
#undef IX_ROT
}

/* Unsigned little-endian integer of n bytes. */
static uint64_t ix_u(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;) v = v << 8 | p[i];
    return v;
}

/* An address of n bytes that is all ones: undefined (not allocated). */
static int ix_undef(const unsigned char *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (p[i] != 0xff) return 0;
    return 1;
}

static unsigned ix_log2(uint64_t x)
{
    unsigned r = 0;
    while (x > 1) { x >>= 1; r++; }
    return r;
}

/* Index types of the layout message (version 4; version 3 is always the v1 B-tree). */
enum { IX_BTREE1 = 0, IX_SINGLE = 1, IX_IMPLICIT = 2, IX_FARRAY = 3, IX_EARRAY = 4, IX_BTREE2 = 5 };
static const char *const ix_names[] = {"version 1 B-tree", "single chunk", "implicit", "fixed array", "extensible array",
                                        "version 2 B-tree"};

typedef struct {
    MPI_File fh;
    uint64_t base;                       /* file offset of address 0 (the userblock) */
    unsigned sa, ss;                     /* bytes of an address, of a length */
    int rank;                            /* the dataset's */
    uint64_t cdims[COLLDIAG_MAX_RANK];   /* chunk dims */
    uint64_t grid[COLLDIAG_MAX_RANK];    /* chunks per dimension over the current extent */
    uint64_t down[COLLDIAG_MAX_RANK];    /* linear index strides of the array indexes (max dims, maybe swizzled) */
    int order[COLLDIAG_MAX_RANK];        /* dimension at each linear position (the swizzle) */
    MPI_Offset *tab;                     /* out (whole-table mode): absolute address per chunk of the current
                                            grid, -1 none */
    uint64_t ntab;
    /* targeted mode (want != NULL): only these chunks (current-grid indices, ascending), into got; the
       walks descend only into the blocks that can hold one of them */
    const uint64_t *want;
    MPI_Offset *got;
    uint64_t nwant;
    struct ix_ew *ew;                    /* array indexes: (element index, position in want), by element */
    uint64_t nodes;                      /* index blocks read: a bound against cycles in a damaged file */
    char why[256];                       /* the first problem */
} ix_rd;

typedef struct ix_ew { uint64_t e, pos; } ix_ew;
static int ix_cmp_ew(const void *a, const void *b)
{
    const ix_ew *x = a, *y = b;
    return x->e < y->e ? -1 : x->e > y->e;
}

static int ix_fail(ix_rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ix_fail(ix_rd *r, const char *fmt, ...)
{
    if (!r->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, sizeof r->why, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Up to n bytes at relative address addr (fewer only at the end of the file): *got of them. */
static int ix_read_upto(ix_rd *r, uint64_t addr, void *buf, size_t n, size_t *got)
{
    if (++r->nodes > (r->want ? r->nwant * 8 : r->ntab * 4) + 4096)
        return ix_fail(r, "more index blocks than chunks: the index looks damaged");
    MPI_Status st;
    int k = -1;
    if (n > (size_t)INT_MAX || addr > (uint64_t)CD_MAX_OFFSET - r->base ||
        MPI_File_read_at(r->fh, (MPI_Offset)(r->base + addr), buf, (int)n, MPI_BYTE, &st) != MPI_SUCCESS ||
        MPI_Get_count(&st, MPI_BYTE, &k) != MPI_SUCCESS || k < 0)
        return ix_fail(r, "cannot read %zu bytes at address %" PRIu64 " (is the file flushed?)", n, addr);
    *got = (size_t)k;
    return 0;
}

/* n bytes at relative address addr, all of them. */
static int ix_read(ix_rd *r, uint64_t addr, void *buf, size_t n)
{
    size_t got = 0;
    if (ix_read_upto(r, addr, buf, n, &got)) return -1;
    return got == n ? 0 : ix_fail(r, "cannot read %zu bytes at address %" PRIu64 " (is the file flushed?)", n, addr);
}

/* A block read whole, its 4-letter signature checked, and (sum != 0) its checksum: the last 4 bytes of
   the first sum bytes hold lookup3 of what precedes them. Returns the buffer (caller frees) or NULL. */
static unsigned char *ix_block(ix_rd *r, uint64_t addr, size_t n, const char *sig, size_t sum)
{
    unsigned char *b = cd_malloc(n);
    if (!b) { ix_fail(r, "no memory for a %zu-byte index block", n); return NULL; }
    if (ix_read(r, addr, b, n)) { cd_free(b); return NULL; }
    if (sig && memcmp(b, sig, 4)) {
        ix_fail(r, "no %s signature at address %" PRIu64 " (the file is not flushed, or not what colldiag expects)", sig, addr);
        cd_free(b);
        return NULL;
    }
    if (sum && (sum < 4 || sum > n || ix_lookup3(b, sum - 4) != (uint32_t)ix_u(b + sum - 4, 4))) {
        ix_fail(r, "the %s at address %" PRIu64 " fails its checksum (the file is not flushed?)", sig ? sig : "block", addr);
        cd_free(b);
        return NULL;
    }
    return b;
}

/* Position of chunk idx in want, or nwant. */
static uint64_t ix_want_pos(const ix_rd *r, uint64_t idx)
{
    uint64_t lo = 0, hi = r->nwant;
    while (lo < hi) {
        const uint64_t m = lo + (hi - lo) / 2;
        if (r->want[m] < idx) lo = m + 1;
        else hi = m;
    }
    return lo < r->nwant && r->want[lo] == idx ? lo : r->nwant;
}

/* A chunk given by its scaled coordinates (chunk units) lies at relative address a. Chunks past the
   current extent (left behind by a smaller H5Dset_extent) are not the dataset's. */
static void ix_put_scaled(ix_rd *r, const uint64_t *s, uint64_t a)
{
    uint64_t idx = 0;
    for (int d = 0; d < r->rank; d++) {
        if (s[d] >= r->grid[d]) return;
        idx = idx * r->grid[d] + s[d];
    }
    if (!r->want) { r->tab[idx] = (MPI_Offset)(r->base + a); return; }
    const uint64_t k = ix_want_pos(r, idx);
    if (k < r->nwant) r->got[k] = (MPI_Offset)(r->base + a);
}

/* Lexicographic order of scaled coordinates: the order of both B-trees' keys, and (for chunks inside
   the current grid) the order of their linear indices, so want is sorted in it too. */
static int ix_cmp_scaled(const ix_rd *r, const uint64_t *a, const uint64_t *b)
{
    for (int d = 0; d < r->rank; d++)
        if (a[d] != b[d]) return a[d] < b[d] ? -1 : 1;
    return 0;
}

/* 1 if a wanted chunk lies after lo (from lo on when lo_in; NULL: from the start) and before hi
   (NULL: to the end). The B-tree walks descend only where this holds. Whole-table mode: always 1. */
static int ix_want_between(const ix_rd *r, const uint64_t *lo, int lo_in, const uint64_t *hi)
{
    if (!r->want) return 1;
    uint64_t a = 0, b = r->nwant, c[COLLDIAG_MAX_RANK];
    while (lo && a < b) { /* the first wanted chunk not before lo */
        const uint64_t m = a + (b - a) / 2;
        uint64_t idx = r->want[m];
        for (int d = r->rank - 1; d >= 0; d--) { c[d] = idx % r->grid[d]; idx /= r->grid[d]; }
        const int k = ix_cmp_scaled(r, c, lo);
        if (k < 0 || (k == 0 && !lo_in)) a = m + 1;
        else b = m;
    }
    if (a >= r->nwant) return 0;
    if (!hi) return 1;
    uint64_t idx = r->want[a];
    for (int d = r->rank - 1; d >= 0; d--) { c[d] = idx % r->grid[d]; idx /= r->grid[d]; }
    return ix_cmp_scaled(r, c, hi) < 0;
}

/* First entry of ew with an element index >= e. */
static uint64_t ix_ew_from(const ix_rd *r, uint64_t e)
{
    uint64_t a = 0, b = r->nwant;
    while (a < b) {
        const uint64_t m = a + (b - a) / 2;
        if (r->ew[m].e < e) a = m + 1;
        else b = m;
    }
    return a;
}

/* 1 if a wanted chunk is element e0 .. e0 + n - 1 of an array index (whole-table mode: always 1). */
static int ix_want_elems(const ix_rd *r, uint64_t e0, uint64_t n)
{
    if (!r->want) return 1;
    const uint64_t a = ix_ew_from(r, e0);
    return a < r->nwant && r->ew[a].e - e0 < n;
}

/* A chunk given by its linear index over the (maybe swizzled) maximum chunk grid of the array indexes. */
static void ix_put_linear(ix_rd *r, uint64_t lin, uint64_t a)
{
    uint64_t s[COLLDIAG_MAX_RANK];
    for (int k = 0; k < r->rank; k++) {
        s[r->order[k]] = lin / r->down[k];
        lin %= r->down[k];
    }
    ix_put_scaled(r, s, a);
}

/* The layout message: version, class and, for chunked storage, the index. */
typedef struct {
    int version, cls;            /* class 0 compact, 1 contiguous, 2 chunked, 3 virtual */
    int type;                    /* H5I_* */
    unsigned flags;              /* version 4: bit 1 = a filtered single chunk */
    uint64_t iaddr;              /* index address (contiguous: data address) */
    unsigned ndims;              /* chunk dims + 1 (the last is the element size) */
    uint64_t dim[COLLDIAG_MAX_RANK + 1];
    unsigned p[5];               /* fixed array: page bits; extensible array: max bits, index block
                                    elements, minimum data pointers, minimum elements, page bits */
} ix_layout;

static int ix_parse_layout(ix_rd *r, const unsigned char *p, size_t n, ix_layout *L)
{
    memset(L, 0, sizeof *L);
    if (n < 2) return ix_fail(r, "a truncated layout message");
    L->version = p[0];
    L->cls = p[1];
    if (L->version < 3 || L->version > 4)
        return ix_fail(r, "layout message version %d (files of HDF5 1.6 or older, or newer than 1.10)", L->version);
    if (L->cls == 1) {
        if (n < 2 + r->sa) return ix_fail(r, "a truncated layout message");
        L->iaddr = ix_u(p + 2, r->sa);
        return 0;
    }
    if (L->cls != 2) return 0; /* compact or virtual: nothing to read */
    size_t q = 2;
    if (L->version == 3) {
        if (n < q + 1 + r->sa) return ix_fail(r, "a truncated layout message");
        L->ndims = p[q++];
        L->type = IX_BTREE1;
        L->iaddr = ix_u(p + q, r->sa);
        q += r->sa;
        if (L->ndims < 2 || L->ndims > COLLDIAG_MAX_RANK + 1 || n < q + 4 * L->ndims) return ix_fail(r, "a malformed layout message");
        for (unsigned d = 0; d < L->ndims; d++) L->dim[d] = ix_u(p + q + 4 * d, 4);
        return 0;
    }
    if (n < q + 3) return ix_fail(r, "a truncated layout message");
    L->flags = p[q++];
    L->ndims = p[q++];
    unsigned enc = p[q++];
    if (L->ndims < 2 || L->ndims > COLLDIAG_MAX_RANK + 1 || enc < 1 || enc > 8 || n < q + enc * L->ndims + 1)
        return ix_fail(r, "a malformed layout message");
    for (unsigned d = 0; d < L->ndims; d++) L->dim[d] = ix_u(p + q + enc * d, enc);
    q += enc * L->ndims;
    L->type = p[q++];
    static const unsigned nparam[6] = {0, 0, 0, 1, 5, 6};
    size_t extra = L->type == IX_SINGLE && (L->flags & 2) ? r->ss + 4 : L->type <= IX_BTREE2 ? nparam[L->type] : 0;
    if (L->type < IX_SINGLE || L->type > IX_BTREE2) return ix_fail(r, "chunk index type %d", L->type);
    if (n < q + extra + r->sa) return ix_fail(r, "a truncated layout message");
    for (unsigned i = 0; i < 5 && i < extra && L->type != IX_SINGLE; i++) L->p[i] = p[q + i];
    q += extra;
    L->iaddr = ix_u(p + q, r->sa);
    return 0;
}

/* Finds the layout message in the object header at relative address oh (version 1 or 2 headers, with
   their continuation blocks). */
static int ix_find_layout(ix_rd *r, uint64_t oh, ix_layout *L)
{
    unsigned char pre[64];
    if (ix_read(r, oh, pre, 16)) return -1;
    uint64_t caddr[64], clen[64];
    int nc = 0, v2 = !memcmp(pre, "OHDR", 4), oflags = 0;
    if (v2) {
        if (pre[4] != 2) return ix_fail(r, "object header version %d", pre[4]);
        oflags = pre[5];
        size_t q = 6 + ((oflags & 0x20) ? 16 : 0) + ((oflags & 0x10) ? 4 : 0);
        unsigned w = 1u << (oflags & 3);
        if (ix_read(r, oh, pre, q + w)) return -1;
        caddr[0] = oh; /* chunk 0 is read with its prefix, so the checksum covers the whole */
        clen[0] = q + w + ix_u(pre + q, w) + 4;
    } else if (pre[0] == 1) {
        caddr[0] = oh + 16;
        clen[0] = ix_u(pre + 8, 4);
    } else {
        return ix_fail(r, "no object header at address %" PRIu64, oh);
    }
    nc = 1;
    for (int c = 0; c < nc; c++) {
        if (clen[c] > ((size_t)1 << 24)) return ix_fail(r, "an object header chunk of %" PRIu64 " bytes", clen[c]);
        const char *sig = v2 ? (c ? "OCHK" : "OHDR") : NULL;
        unsigned char *b = ix_block(r, caddr[c], (size_t)clen[c], sig, v2 ? (size_t)clen[c] : 0);
        if (!b) return -1;
        /* messages: after chunk 0's prefix or a continuation's signature, before a version 2 checksum */
        size_t q = !v2 ? 0 : c ? 4 : 6 + ((oflags & 0x20) ? 16 : 0) + ((oflags & 0x10) ? 4 : 0) + (1u << (oflags & 3));
        const size_t end = (size_t)clen[c] - (v2 ? 4 : 0);
        const size_t mh = v2 ? 4 + ((oflags & 0x04) ? 2 : 0) : 8;
        int found = 0;
        while (q + mh <= end) {
            unsigned type = v2 ? b[q] : (unsigned)ix_u(b + q, 2);
            size_t sz = (size_t)ix_u(b + q + (v2 ? 1 : 2), 2);
            const unsigned char *d = b + q + mh;
            if (q + mh + sz > end) break;
            if (type == 0x08) {
                found = !ix_parse_layout(r, d, sz, L) ? 1 : -1;
                break;
            }
            if (type == 0x10 && sz >= r->sa + r->ss && nc < 64) {
                caddr[nc] = ix_u(d, r->sa);
                clen[nc] = ix_u(d + r->sa, r->ss);
                nc++;
            }
            q += mh + sz;
        }
        cd_free(b);
        if (found) return found > 0 ? 0 : -1;
    }
    return ix_fail(r, "the object header has no layout message");
}

/* --- the indexes --- */

/* Version 1 B-tree of raw data chunks: keys hold each chunk's offset in elements; level 0 points at chunks. */
static int ix_btree1(ix_rd *r, uint64_t addr, unsigned ndims, int depth)
{
    if (depth > 64) return ix_fail(r, "a v1 B-tree deeper than 64 levels");
    const size_t hdr = 8 + 2 * (size_t)r->sa, ks = 8 + 8 * (size_t)ndims;
    /* one read of a node of HDF5's default size (64 entries: istore_k 32) usually holds it all; a larger
       node is read again whole. Reads past the end of the file come back short, which is fine as long
       as they hold the node's entries. */
    const size_t guess = hdr + 65 * ks + 64 * (size_t)r->sa;
    unsigned char *b = cd_malloc(guess);
    size_t got = 0;
    if (!b) return ix_fail(r, "no memory for a %zu-byte index block", guess);
    if (ix_read_upto(r, addr, b, guess, &got) || got < hdr) { cd_free(b); return ix_fail(r, "cannot read a B-tree node at address %" PRIu64, addr); }
    if (memcmp(b, "TREE", 4) || b[4] != 1) {
        cd_free(b);
        return ix_fail(r, "no raw-data B-tree node at address %" PRIu64 " (the file is not flushed?)", addr);
    }
    const unsigned level = b[5], used = (unsigned)ix_u(b + 6, 2);
    const size_t n = hdr + (used + 1) * ks + used * (size_t)r->sa;
    if (n > got) {
        cd_free(b);
        b = ix_block(r, addr, n, "TREE", 0);
        if (!b) return -1;
    }
    int rc = 0;
    for (unsigned i = 0; i < used && !rc; i++) {
        const unsigned char *key = b + hdr + i * (ks + r->sa), *child = key + ks;
        const uint64_t ca = ix_u(child, r->sa);
        uint64_t s[COLLDIAG_MAX_RANK], t[COLLDIAG_MAX_RANK];
        for (int d = 0; d < r->rank; d++) s[d] = ix_u(key + 8 + 8 * (size_t)d, 8) / r->cdims[d];
        if (level > 0) {
            /* child i holds the chunks from key i up to (not including) key i + 1; past the last child
               nothing is trusted to bound it */
            for (int d = 0; d < r->rank && i + 1 < used; d++) t[d] = ix_u(key + ks + r->sa + 8 + 8 * (size_t)d, 8) / r->cdims[d];
            if (ix_want_between(r, s, 1, i + 1 < used ? t : NULL)) rc = ix_btree1(r, ca, ndims, depth + 1);
            continue;
        }
        if (!ix_undef(child, r->sa)) ix_put_scaled(r, s, ca);
    }
    cd_free(b);
    return rc;
}

/* Element index (linear over the maximum grid, maybe swizzled) of chunk idx of the current grid. */
static uint64_t ix_elem_of(const ix_rd *r, uint64_t idx)
{
    uint64_t s[COLLDIAG_MAX_RANK], lin = 0;
    for (int d = r->rank - 1; d >= 0; d--) { s[d] = idx % r->grid[d]; idx /= r->grid[d]; }
    for (int k = 0; k < r->rank; k++) lin += s[r->order[k]] * r->down[k];
    return lin;
}

/* The implicit index: chunk k (linear over the maximum grid) at index address + k x chunk bytes. */
static int ix_implicit(ix_rd *r, uint64_t iaddr, uint64_t chunk_bytes)
{
    const uint64_t n = r->want ? r->nwant : r->ntab;
    for (uint64_t i = 0; i < n; i++) {
        const MPI_Offset a = (MPI_Offset)(r->base + iaddr + ix_elem_of(r, r->want ? r->want[i] : i) * chunk_bytes);
        if (r->want) r->got[i] = a;
        else r->tab[i] = a;
    }
    return 0;
}

/* Elements (chunk addresses) of an array index: n of them from element index e0, in buf. */
static void ix_put_elements(ix_rd *r, const unsigned char *buf, uint64_t e0, uint64_t n, uint64_t limit)
{
    if (r->want) { /* the wanted ones only */
        for (uint64_t k = ix_ew_from(r, e0); k < r->nwant && r->ew[k].e - e0 < n && r->ew[k].e < limit; k++) {
            const unsigned char *p = buf + (r->ew[k].e - e0) * r->sa;
            if (!ix_undef(p, r->sa)) r->got[r->ew[k].pos] = (MPI_Offset)(r->base + ix_u(p, r->sa));
        }
        return;
    }
    for (uint64_t i = 0; i < n && e0 + i < limit; i++)
        if (!ix_undef(buf + i * r->sa, r->sa)) ix_put_linear(r, e0 + i, ix_u(buf + i * r->sa, r->sa));
}

/* n elements starting at element e0, in pages of pn elements (paged blocks: bit k of init, MSB first,
   says page k exists) or in the block itself (init NULL); prefix: the block's bytes before its elements. */
static int ix_array_block(ix_rd *r, const char *sig, uint64_t addr, size_t prefix, uint64_t e0, uint64_t n, uint64_t pn,
                           const unsigned char *init, uint64_t ibit0, uint64_t limit)
{
    if (!ix_want_elems(r, e0, n)) return 0;
    if (!init) {
        unsigned char *b = ix_block(r, addr, prefix + n * r->sa + 4, sig, prefix + n * r->sa + 4);
        if (!b) return -1;
        ix_put_elements(r, b + prefix, e0, n, limit);
        cd_free(b);
        return 0;
    }
    const uint64_t np = (n + pn - 1) / pn;
    for (uint64_t k = 0; k < np; k++) {
        const uint64_t bit = ibit0 + k;
        const uint64_t m = k + 1 < np ? pn : n - k * pn;
        if (!(init[bit / 8] & (0x80u >> (bit % 8))) || !ix_want_elems(r, e0 + k * pn, m)) continue;
        const uint64_t at = addr + prefix + k * (pn * r->sa + 4);
        unsigned char *b = ix_block(r, at, m * r->sa + 4, NULL, m * r->sa + 4);
        if (!b) return -1;
        ix_put_elements(r, b, e0 + k * pn, m, limit);
        cd_free(b);
    }
    return 0;
}

/* Fixed array: a header, one data block (its elements inline, or in pages). */
static int ix_farray(ix_rd *r, uint64_t addr, unsigned page_bits)
{
    const size_t hn = 4 + 4 + r->ss + r->sa + 4;
    unsigned char *h = ix_block(r, addr, hn, "FAHD", hn);
    if (!h) return -1;
    const unsigned client = h[5], es = h[6], pb = h[7];
    const uint64_t n = ix_u(h + 8, r->ss), db = ix_u(h + 8 + r->ss, r->sa);
    const int undef = ix_undef(h + 8 + r->ss, r->sa);
    cd_free(h);
    if (client != 0 || es != r->sa) return ix_fail(r, "a fixed array of filtered chunks");
    (void)page_bits;
    if (undef || n == 0) return 0;
    const uint64_t pn = (uint64_t)1 << pb;
    if (n <= pn) return ix_array_block(r, "FADB", db, 4 + 2 + r->sa, 0, n, pn, NULL, 0, n);
    const uint64_t np = (n + pn - 1) / pn;
    const size_t bm = (size_t)((np + 7) / 8), pre = 4 + 2 + r->sa + bm + 4;
    unsigned char *d = ix_block(r, db, pre, "FADB", pre);
    if (!d) return -1;
    int rc = ix_array_block(r, "FADB", db, pre, 0, n, pn, d + 4 + 2 + r->sa, 0, n);
    cd_free(d);
    return rc;
}

/* Extensible array: the index block holds the first elements, the addresses of the first data blocks
   and of the super blocks, which hold the addresses of the rest. Super block s has 2^(s/2) data blocks
   of 2^((s+1)/2) x (minimum elements) elements each. */
static int ix_earray(ix_rd *r, uint64_t addr)
{
    const size_t hn = 4 + 2 + 6 + 6 * (size_t)r->ss + r->sa + 4;
    unsigned char *h = ix_block(r, addr, hn, "EAHD", hn);
    if (!h) return -1;
    const unsigned client = h[5], es = h[6], maxbits = h[7], ib_elmts = h[8], dmin = h[9], ptrmin = h[10], pbits = h[11];
    const uint64_t max_idx = ix_u(h + 12 + 4 * (size_t)r->ss, r->ss);
    const uint64_t ib = ix_u(h + 12 + 6 * (size_t)r->ss, r->sa);
    const int ib_undef = ix_undef(h + 12 + 6 * (size_t)r->ss, r->sa);
    cd_free(h);
    if (client != 0 || es != r->sa) return ix_fail(r, "an extensible array of filtered chunks");
    if (!dmin || !ptrmin || (dmin & (dmin - 1)) || (ptrmin & (ptrmin - 1)) || maxbits > 64 || maxbits < ix_log2(dmin))
        return ix_fail(r, "an extensible array header with impossible parameters");
    if (ib_undef || max_idx == 0) return 0;
    const unsigned nsblks = 1 + maxbits - ix_log2(dmin), ib_nsblks = 2 * ix_log2(ptrmin);
    const size_t nd = 2 * ((size_t)ptrmin - 1), ns = nsblks > ib_nsblks ? nsblks - ib_nsblks : 0;
    const size_t aoff = (maxbits + 7) / 8, pre = 4 + 2 + r->sa;
    const uint64_t pn = (uint64_t)1 << pbits;
    const size_t ibn = pre + ib_elmts * (size_t)es + (nd + ns) * r->sa + 4;
    unsigned char *b = ix_block(r, ib, ibn, "EAIB", ibn);
    if (!b) return -1;
    ix_put_elements(r, b + pre, 0, ib_elmts, max_idx);
    const unsigned char *dad = b + pre + ib_elmts * (size_t)es, *sad = dad + nd * r->sa;
    int rc = 0;
    uint64_t start = 0, dblk = 0; /* first element (past the index block's own) and data block of super block s */
    for (unsigned s = 0; s < nsblks && !rc && ib_elmts + start < max_idx; s++) {
        const uint64_t ndb = (uint64_t)1 << (s / 2), dn = ((uint64_t)1 << ((s + 1) / 2)) * dmin;
        if (s < ib_nsblks) { /* data blocks whose addresses the index block holds */
            for (uint64_t j = 0; j < ndb && !rc; j++) {
                const unsigned char *a = dad + (dblk + j) * r->sa;
                if (dblk + j >= nd || ix_undef(a, r->sa)) continue;
                if (dn > pn) { rc = ix_fail(r, "a paged data block in an extensible array's index block"); break; }
                rc = ix_array_block(r, "EADB", ix_u(a, r->sa), pre + aoff, ib_elmts + start + j * dn, dn, pn, NULL, 0, max_idx);
            }
        } else if (!ix_undef(sad + (s - ib_nsblks) * r->sa, r->sa) && ix_want_elems(r, ib_elmts + start, ndb * dn)) {
            const uint64_t npages = dn > pn ? dn / pn : 0;
            const size_t bm = npages ? (size_t)(ndb * ((npages + 7) / 8)) : 0, sn = pre + aoff + bm + ndb * r->sa + 4;
            unsigned char *sb = ix_block(r, ix_u(sad + (s - ib_nsblks) * r->sa, r->sa), sn, "EASB", sn);
            if (!sb) { rc = -1; break; }
            for (uint64_t j = 0; j < ndb && !rc; j++) {
                const unsigned char *a = sb + pre + aoff + bm + j * r->sa;
                if (ix_undef(a, r->sa)) continue;
                /* a paged data block: its prefix (ending with its checksum), then pages */
                rc = ix_array_block(r, "EADB", ix_u(a, r->sa), npages ? pre + aoff + 4 : pre + aoff, ib_elmts + start + j * dn, dn, pn,
                                     npages ? sb + pre + aoff : NULL, j * npages, max_idx);
            }
            cd_free(sb);
        }
        start += ndb * dn;
        dblk += ndb;
    }
    cd_free(b);
    return rc;
}

/* Version 2 B-tree of unfiltered chunk records (type 10: address, then scaled offsets); internal nodes
   hold records too. */
typedef struct { unsigned node, rec, depth, leaf_nrec_size, cum_size[64]; } ix_bt2;
static unsigned ix_enc_size(uint64_t x) { return ix_log2(x) / 8 + 1; }

static int ix_bt2_node(ix_rd *r, const ix_bt2 *t, uint64_t addr, uint64_t nrec, unsigned depth)
{
    if (depth > t->depth || depth >= 64) return ix_fail(r, "a v2 B-tree node deeper than its header says");
    const size_t ptr = depth ? r->sa + t->leaf_nrec_size + (depth > 1 ? t->cum_size[depth - 1] : 0) : 0;
    const size_t n = 6 + nrec * t->rec + (depth ? (nrec + 1) * ptr : 0) + 4;
    if (n > t->node) return ix_fail(r, "a v2 B-tree node larger than its node size");
    unsigned char *b = ix_block(r, addr, n, depth ? "BTIN" : "BTLF", n);
    if (!b) return -1;
    int rc = 0;
    for (uint64_t i = 0; i < nrec; i++) {
        const unsigned char *q = b + 6 + i * t->rec;
        uint64_t s[COLLDIAG_MAX_RANK];
        for (int d = 0; d < r->rank; d++) s[d] = ix_u(q + r->sa + 8 * (size_t)d, 8);
        if (!ix_undef(q, r->sa)) ix_put_scaled(r, s, ix_u(q, r->sa));
    }
    for (uint64_t i = 0; depth && i <= nrec && !rc; i++) {
        /* child i holds the records between record i - 1 and record i */
        uint64_t lo[COLLDIAG_MAX_RANK], hi[COLLDIAG_MAX_RANK];
        for (int d = 0; d < r->rank; d++) {
            if (i > 0) lo[d] = ix_u(b + 6 + (i - 1) * t->rec + r->sa + 8 * (size_t)d, 8);
            if (i < nrec) hi[d] = ix_u(b + 6 + i * t->rec + r->sa + 8 * (size_t)d, 8);
        }
        if (!ix_want_between(r, i > 0 ? lo : NULL, 0, i < nrec ? hi : NULL)) continue;
        const unsigned char *q = b + 6 + nrec * t->rec + i * ptr;
        rc = ix_bt2_node(r, t, ix_u(q, r->sa), ix_u(q + r->sa, t->leaf_nrec_size), depth - 1);
    }
    cd_free(b);
    return rc;
}

static int ix_btree2(ix_rd *r, uint64_t addr)
{
    const size_t hn = 4 + 2 + 4 + 2 + 2 + 2 + r->sa + 2 + r->ss + 4;
    unsigned char *h = ix_block(r, addr, hn, "BTHD", hn);
    if (!h) return -1;
    ix_bt2 t;
    memset(&t, 0, sizeof t);
    const unsigned type = h[5];
    t.node = (unsigned)ix_u(h + 6, 4);
    t.rec = (unsigned)ix_u(h + 10, 2);
    t.depth = (unsigned)ix_u(h + 12, 2);
    const uint64_t root = ix_u(h + 16, r->sa), rn = ix_u(h + 16 + r->sa, 2);
    const int undef = ix_undef(h + 16, r->sa);
    cd_free(h);
    if (type != 10) return ix_fail(r, "a v2 B-tree of type %u (filtered chunks)", type);
    if (t.rec != r->sa + 8 * (unsigned)r->rank || t.node < 10 + t.rec || t.depth >= 64) return ix_fail(r, "a v2 B-tree header with impossible sizes");
    if (undef || rn == 0) return 0;
    uint64_t max = (t.node - 10) / t.rec, cum = max;
    t.leaf_nrec_size = ix_enc_size(max);
    for (unsigned u = 1; u <= t.depth; u++) {
        const size_t ptr = r->sa + t.leaf_nrec_size + (u > 1 ? t.cum_size[u - 1] : 0);
        const uint64_t m = (t.node - (10 + ptr)) / (t.rec + ptr);
        cum = (m + 1) * cum + m;
        t.cum_size[u] = ix_enc_size(cum);
    }
    return ix_bt2_node(r, &t, root, rn, t.depth);
}

/* A dataset's chunk index as its object header describes it, for its current extent: what a walk
   needs, read once per extent (the layout's resolver keeps it). Plain bytes but for r.fh, which is each
   rank's own, so one rank can read it and send it to the others. */
typedef struct {
    ix_rd r;            /* fh, base, sizes, rank, chunk dims, grid, array strides (no table, no want) */
    ix_layout L;
    uint64_t chunk_bytes;
} ix_index;

/* why = "<index type> index: msg" (type -1: msg alone). */
static void ix_reason(char *why, size_t wl, int type, const char *msg)
{
    if (!why || !wl) return;
    if (type >= IX_BTREE1 && type <= IX_BTREE2) snprintf(why, wl, "%s index: ", ix_names[type]);
    else why[0] = 0;
    const size_t k = strlen(why);
    snprintf(why + k, wl - k, "%s", msg);
}

/* What HDF5 says about a dataset that reading its index needs: the file's address and length sizes
   and userblock (its creation properties), the object header's address, the extent, chunk dims and
   element size. The bridge fills it from its caches (h5_ix_facts); ix_facts_read asks HDF5 for all. */
typedef struct {
    size_t sa, ss, esize;
    hsize_t ub;
    haddr_t oaddr;
    int rank;
    hsize_t dims[COLLDIAG_MAX_RANK], maxd[COLLDIAG_MAX_RANK], cd[COLLDIAG_MAX_RANK];
} ix_facts;

/* The file's part of ix_facts (sa, ss, ub). 0, or -1. */
static int ix_file_facts(hid_t obj, ix_facts *fx)
{
    hid_t file = H5Iget_file_id(obj), fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
    const int rc = fcpl < 0 || H5Pget_sizes(fcpl, &fx->sa, &fx->ss) < 0 || H5Pget_userblock(fcpl, &fx->ub) < 0 ? -1 : 0;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (file >= 0) H5Fclose(file);
    return rc;
}

/* Every fact from HDF5. 0, or -1 (some query failed). */
static int ix_facts_read(hid_t dset, ix_facts *fx)
{
    memset(fx, 0, sizeof *fx);
    H5O_info_t oi;
    hid_t space = H5Dget_space(dset), dcpl = H5Dget_create_plist(dset), type = H5Dget_type(dset);
    fx->rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    int rc = ix_file_facts(dset, fx) || space < 0 || dcpl < 0 || type < 0 || H5Oget_info2(dset, &oi, H5O_INFO_BASIC) < 0 || fx->rank < 1 ||
                     fx->rank > COLLDIAG_MAX_RANK || H5Sget_simple_extent_dims(space, fx->dims, fx->maxd) < 0 ||
                     H5Pget_chunk(dcpl, fx->rank, fx->cd) != fx->rank
                 ? -1
                 : 0;
    if (!rc) {
        fx->oaddr = oi.addr;
        fx->esize = H5Tget_size(type);
    }
    if (space >= 0) H5Sclose(space);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (type >= 0) H5Tclose(type);
    return rc;
}

/* Reads the dataset's layout message (at fx->oaddr's object header) and checks it against fx. Local.
   0, or -1 with the reason in why. fx NULL: HDF5 could not say (the reason is that). */
static int ix_open(const ix_facts *fx, MPI_File fh, uint64_t nchunks, ix_index *ix, char *why, size_t wl)
{
    ix_rd *r = &ix->r;
    ix_layout *L = &ix->L;
    memset(ix, 0, sizeof *ix);
    r->fh = fh;
    r->ntab = nchunks;
    if (!fx) {
        ix_reason(why, wl, -1, "cannot read the dataset's shape, chunking or file parameters");
        return -1;
    }
    int rc = -1;
    const size_t sa = fx->sa, ss = fx->ss, esize = fx->esize;
    const hsize_t ub = fx->ub, *dims = fx->dims, *maxd = fx->maxd, *cd = fx->cd;
    const int rank = fx->rank;
    if (sa < 2 || sa > 8 || ss < 2 || ss > 8) {
        ix_fail(r, "%zu-byte addresses or %zu-byte lengths", sa, ss);
        goto done;
    }
    r->sa = (unsigned)sa;
    r->ss = (unsigned)ss;
    r->base = ub;
    r->rank = rank;
    uint64_t n = 1;
    for (int d = 0; d < rank; d++) {
        r->cdims[d] = cd[d];
        r->grid[d] = dims[d] / cd[d] + (dims[d] % cd[d] != 0);
        n *= r->grid[d];
    }
    if (n != nchunks) {
        ix_fail(r, "the dataset has %" PRIu64 " chunks, not %" PRIu64, n, nchunks);
        goto done;
    }
    if (ix_find_layout(r, fx->oaddr, L)) goto done;
    if (L->cls != 2) {
        ix_fail(r, "the layout message says the dataset is not chunked");
        goto done;
    }
    int same = L->ndims == (unsigned)rank + 1 && L->dim[rank] == esize;
    for (int d = 0; d < rank && same; d++) same = L->dim[d] == cd[d];
    if (!same) {
        ix_fail(r, "the layout message's chunk dims differ from the dataset's");
        goto done;
    }
    if (L->type == IX_SINGLE && (L->flags & 2)) {
        ix_fail(r, "a filtered single chunk");
        goto done;
    }
    /* the array indexes number chunks over the grid of the maximum dims, the extensible array with its
       one unlimited dimension moved to the front */
    int unlim = -1, nunlim = 0;
    for (int d = 0; d < rank; d++)
        if (maxd[d] == H5S_UNLIMITED) { unlim = d; nunlim++; }
    for (int k = 0; k < rank; k++) r->order[k] = k;
    if (L->type == IX_EARRAY && nunlim == 1 && unlim > 0) {
        r->order[0] = unlim;
        for (int k = 1, d = 0; k < rank; d++)
            if (d != unlim) r->order[k++] = d;
    }
    for (int k = rank - 1; k >= 0; k--) { /* the first position's size never matters (it may be unlimited) */
        const uint64_t m = k == rank - 1 ? 0 : maxd[r->order[k + 1]], c = k == rank - 1 ? 1 : cd[r->order[k + 1]];
        r->down[k] = k == rank - 1 ? 1 : r->down[k + 1] * (m / c + (m % c != 0));
    }
    ix->chunk_bytes = esize;
    for (int d = 0; d < rank; d++) ix->chunk_bytes *= cd[d];
    rc = 0;
done:
    if (rc) ix_reason(why, wl, L->cls == 2 && L->type >= IX_BTREE1 && L->type <= IX_BTREE2 ? L->type : -1, r->why);
    return rc;
}

/* Walks an opened index: every chunk into tab (ntab of them), or (want != NULL) the nwant chunks of
   want (ascending current-grid indices) into got. Reads only; local. 0, or -1 with the reason in why. */
static int ix_walk(const ix_index *ix, MPI_Offset *tab, const uint64_t *want, uint64_t nwant, MPI_Offset *got, char *why, size_t wl)
{
    ix_rd r = ix->r;
    const ix_layout *L = &ix->L;
    r.tab = tab;
    r.want = want;
    r.got = got;
    r.nwant = nwant;
    r.ew = NULL;
    r.nodes = 0;
    r.why[0] = 0;
    if (want) {
        for (uint64_t i = 0; i < nwant; i++) got[i] = -1;
    } else {
        for (uint64_t i = 0; i < r.ntab; i++) tab[i] = -1;
    }
    int rc = 0;
    if (want && (L->type == IX_FARRAY || L->type == IX_EARRAY)) { /* element indices, in element order */
        r.ew = cd_malloc((size_t)nwant * sizeof *r.ew);
        if (!r.ew) rc = ix_fail(&r, "no memory for %" PRIu64 " wanted chunks", nwant);
        for (uint64_t i = 0; !rc && i < nwant; i++) { r.ew[i].e = ix_elem_of(&r, want[i]); r.ew[i].pos = i; }
        if (!rc && r.order[0] != 0) qsort(r.ew, (size_t)nwant, sizeof *r.ew, ix_cmp_ew); /* swizzled: another order */
    }
    const uint64_t sa = r.sa, undef = sa == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * sa)) - 1;
    if (!rc && L->iaddr != undef) switch (L->type) {
    case IX_BTREE1: rc = ix_btree1(&r, L->iaddr, L->ndims, 0); break;
    case IX_SINGLE:
        if (!want) tab[0] = (MPI_Offset)(r.base + L->iaddr);
        else if (nwant && want[0] == 0) got[0] = (MPI_Offset)(r.base + L->iaddr);
        break;
    case IX_IMPLICIT: rc = ix_implicit(&r, L->iaddr, ix->chunk_bytes); break;
    case IX_FARRAY: rc = ix_farray(&r, L->iaddr, L->p[0]); break;
    case IX_EARRAY: rc = ix_earray(&r, L->iaddr); break;
    case IX_BTREE2: rc = ix_btree2(&r, L->iaddr); break;
    default: rc = ix_fail(&r, "chunk index type %d", L->type); break;
    }
    cd_free(r.ew);
    if (rc && !r.why[0]) ix_fail(&r, "cannot read the %s chunk index", ix_names[L->type]);
    if (rc) ix_reason(why, wl, L->type, r.why);
    return rc ? -1 : 0;
}

/* The lazy layout's resolver (cd_resolve_fn) over an opened index. */
static int ix_resolve(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, char *why, size_t wl)
{
    return ix_walk(ctx, NULL, idx, n, addr, why, wl);
}

/* The chunk addresses of dset for its current chunk grid (nchunks of them) into tab: absolute file
   offsets, -1 for chunks not allocated. Local: no communication. 0, or -1 with the reason in why. */
static int h5_read_chunk_index(hid_t dset, MPI_File fh, MPI_Offset *tab, uint64_t nchunks, char *why, size_t wl)
{
    ix_index ix;
    for (uint64_t i = 0; i < nchunks; i++) tab[i] = -1;
    ix_facts fx;
    const int known = !ix_facts_read(dset, &fx);
    return ix_open(known ? &fx : NULL, fh, nchunks, &ix, why, wl) ? -1 : ix_walk(&ix, tab, NULL, 0, NULL, why, wl);
}

static int h5_mpi_file(hid_t dset, MPI_File *fh, int *rank, int *size, const char *fn);

int colldiag_h5_layout(hid_t dset, colldiag_layout **out)
{
    static const char fn[] = "colldiag_h5_layout";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    *out = NULL;
    int rc = 0;
    hid_t space = H5Dget_space(dset), type = H5Dget_type(dset), dcpl = H5Dget_create_plist(dset);
    if (space < 0 || type < 0 || dcpl < 0) {
        rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
        goto done;
    }
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t hd[COLLDIAG_MAX_RANK];
    uint64_t dims[COLLDIAG_MAX_RANK];
    if (rank < 0 || rank > COLLDIAG_MAX_RANK || H5Sget_simple_extent_dims(space, hd, NULL) < 0) {
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset's dataspace cannot be read");
        goto done;
    }
    for (int d = 0; d < rank; d++) dims[d] = hd[d];
    if (rank == 0) { rank = 1; dims[0] = 1; } /* a scalar dataset: one element */
    if (H5Sget_simple_extent_type(space) == H5S_NULL) {
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset has a null dataspace: it stores nothing");
        goto done;
    }
    size_t esize = H5Tget_size(type);
    switch (H5Pget_layout(dcpl)) {
    case H5D_CONTIGUOUS: {
        haddr_t a = H5Dget_offset(dset);
        if (a == HADDR_UNDEF) {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the contiguous dataset has no storage yet (use H5D_ALLOC_TIME_EARLY, "
                                                       "the default of parallel HDF5)");
            goto done;
        }
        rc = colldiag_layout_contiguous(rank, dims, esize, (MPI_Offset)a, out);
        break;
    }
    case H5D_COMPACT:
        /* compact data lives inside the object header, which HDF5 caches and rewrites */
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "compact datasets live in the object header; colldiag cannot address them");
        goto done;
    case H5D_CHUNKED: {
        hsize_t hc[COLLDIAG_MAX_RANK];
        uint64_t cdims[COLLDIAG_MAX_RANK];
        if (H5Pget_chunk(dcpl, rank, hc) != rank) {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the chunk dims");
            goto done;
        }
        for (int d = 0; d < rank; d++) cdims[d] = hc[d];
        rc = colldiag_layout_chunked(rank, dims, cdims, esize, 0, out);
        if (rc) goto done;
        colldiag_layout *l = *out;
        MPI_Offset *t = cd_malloc((size_t)l->nchunks * sizeof *t);
        if (!t) { rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "a table of %" PRIu64 " chunk addresses", l->nchunks); goto fail_layout; }
        for (uint64_t i = 0; i < l->nchunks; i++) t[i] = -1;
        hsize_t n = 0, ub = 0;
        MPI_File fh;
        int me, np;
        char why[256];
        if (H5Pget_nfilters(dcpl) == 0 && !h5_mpi_file(dset, &fh, &me, &np, fn) &&
            !h5_read_chunk_index(dset, fh, t, l->nchunks, why, sizeof why))
            goto addrs; /* one pass over the index on disk */
        for (uint64_t i = 0; i < l->nchunks; i++) t[i] = -1;
        {
            hid_t file = H5Iget_file_id(dset), fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
            if (fcpl < 0 || H5Pget_userblock(fcpl, &ub) < 0) ub = 0; /* H5Dget_chunk_info's addresses are relative to it */
            if (fcpl >= 0) H5Pclose(fcpl);
            if (file >= 0) H5Fclose(file);
        }
        if (H5Dget_num_chunks(dset, space, &n) < 0) n = 0; /* 1.10.8 rejects H5S_ALL here */
        /* HDF5 1.10 has no single-pass chunk iteration: H5Dget_chunk_info(i) walks the index up to i, so
           this is quadratic in the dataset's chunk count; it runs once per dataset, never per transfer. */
        for (hsize_t i = 0; i < n; i++) {
            hsize_t off[COLLDIAG_MAX_RANK];
            unsigned mask;
            haddr_t a;
            hsize_t sz;
            if (H5Dget_chunk_info(dset, space, i, off, &mask, &a, &sz) < 0) {
                cd_free(t);
                rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "H5Dget_chunk_info(%llu) failed", (unsigned long long)i);
                goto fail_layout;
            }
            uint64_t idx = 0;
            for (int d = 0; d < rank; d++) idx = idx * l->grid[d] + off[d] / cdims[d];
            if (idx < l->nchunks && a != HADDR_UNDEF) t[idx] = (MPI_Offset)(a + ub);
        }
    addrs:
        rc = colldiag_layout_set_chunk_addrs(l, l->nchunks, t);
        cd_free(t);
        if (rc) goto fail_layout;
        if (H5Pget_nfilters(dcpl) > 0) colldiag_layout_set_filtered(l, 1);
        break;
    fail_layout:
        colldiag_layout_free(*out);
        *out = NULL;
        goto done;
    }
    default:
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset's layout (virtual or unknown) is not supported");
        goto done;
    }
done:
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

/* ---- planning what H5Dwrite / H5Dread will do ----
   The plan needs the dataset's shape, chunking, filters and storage class, never its chunk addresses:
   HDF5 1.10's decisions do not depend on them, and reading them costs a walk of the whole chunk index
   per chunk (H5Dget_chunk_info) or per call (by coordinate). So a chunked dataset is planned on dense
   addresses (chunk k at k x chunk bytes), and the plan's chunk list shows those, not HDF5's. */
static int h5_plan_layout(hid_t dset, colldiag_layout **out, const char *fn)
{
    *out = NULL;
    int rc = 0;
    hid_t space = H5Dget_space(dset), type = H5Dget_type(dset), dcpl = H5Dget_create_plist(dset);
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    hsize_t hd[COLLDIAG_MAX_RANK], hc[COLLDIAG_MAX_RANK];
    uint64_t dims[COLLDIAG_MAX_RANK], cdims[COLLDIAG_MAX_RANK];
    if (space < 0 || type < 0 || dcpl < 0) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
    else if (H5Sget_simple_extent_type(space) == H5S_NULL) rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset has a null dataspace");
    else if (rank < 0 || rank > COLLDIAG_MAX_RANK || H5Sget_simple_extent_dims(space, hd, NULL) < 0)
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset's dataspace cannot be read");
    if (!rc) {
        for (int d = 0; d < rank; d++) dims[d] = hd[d];
        if (rank == 0) { rank = 1; dims[0] = 1; }
        size_t esize = H5Tget_size(type);
        H5D_layout_t lay = H5Pget_layout(dcpl);
        if (lay == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) > 0) {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset is stored in external files (H5Pset_external): colldiag plans "
                                                       "only storage inside the HDF5 file");
        } else if (lay == H5D_CONTIGUOUS) {
            haddr_t a = H5Dget_offset(dset);
            rc = colldiag_layout_contiguous(rank, dims, esize, a == HADDR_UNDEF ? 0 : (MPI_Offset)a, out);
        } else if (lay == H5D_COMPACT) {
            rc = colldiag_layout_compact(rank, dims, esize, 0, out);
        } else if (lay == H5D_CHUNKED) {
            if (H5Pget_chunk(dcpl, rank, hc) != rank) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the chunk dims");
            for (int d = 0; d < rank; d++) cdims[d] = hc[d];
            rc = colldiag_layout_chunked(rank, dims, cdims, esize, 0, out);
            if (!rc && H5Pget_nfilters(dcpl) > 0) colldiag_layout_set_filtered(*out, 1);
        } else {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset is virtual (or of an unknown layout): colldiag plans only "
                                                       "contiguous, chunked and compact datasets");
        }
    }
    if (space >= 0) H5Sclose(space);
    if (type >= 0) H5Tclose(type);
    if (dcpl >= 0) H5Pclose(dcpl);
    return rc;
}

/* HDF5 never calls a conversion or transform during a plan: these only mark the xfer. */
static int h5_never_convert(const void *src, void *dst, size_t n, colldiag_direction_t d, void *ctx)
{
    (void)src; (void)dst; (void)n; (void)d; (void)ctx;
    return -1;
}
static int h5_never_transform(void *e, size_t n, colldiag_direction_t d, void *ctx)
{
    (void)e; (void)n; (void)d; (void)ctx;
    return -1;
}

/* Reading a DXPL's settings costs ~8 us a call (five H5Pget through HDF5's skip lists, and the absence
   of a data transform is an HDF5 error, pushed and cleared): a quarter of what a warm small call adds
   to colldiag's own. A caller that sees every change a program can make to them sets h5_plist_watched
   and counts each change in h5_plist_gen: the preload, which wraps H5Pset_dxpl_mpio and its four
   siblings, H5Pset_data_transform, H5Pset, H5Premove, H5Pcopy_prop and H5close. The last DXPL's
   settings are then remembered until the count moves (HDF5 1.10 never gives a closed list's id to
   another while the library is open; H5close moves the count). Without the watch, every call reads
   them. */
static int h5_plist_watched;
static unsigned long h5_plist_gen;
static struct {
    int valid, rest; /* rest: the settings after the mode are read too */
    hid_t id;
    unsigned long gen;
    H5FD_mpio_xfer_t mode;
    H5FD_mpio_chunk_opt_t hard;
    H5FD_mpio_collective_opt_t copt;
    unsigned num, ratio;
    int xform;
} h5_dxpl_seen;

static int h5_dxpl_remembered(hid_t p)
{
    return h5_plist_watched && h5_dxpl_seen.valid && h5_dxpl_seen.id == p && h5_dxpl_seen.gen == h5_plist_gen;
}

/* The DXPL's transfer mode (what a call needs to know before h5_small_first_call). */
static int h5_dxpl_mode(hid_t dxpl, H5FD_mpio_xfer_t *mode, const char *fn)
{
    const hid_t p = dxpl == H5P_DEFAULT ? H5P_DATASET_XFER_DEFAULT : dxpl;
    if (h5_dxpl_remembered(p)) {
        *mode = h5_dxpl_seen.mode;
        return 0;
    }
    *mode = H5FD_MPIO_INDEPENDENT;
    if (H5Pget_dxpl_mpio(p, mode) < 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "dxpl is not a dataset transfer property list");
    h5_dxpl_seen.valid = 1;
    h5_dxpl_seen.rest = 0;
    h5_dxpl_seen.id = p;
    h5_dxpl_seen.gen = h5_plist_gen;
    h5_dxpl_seen.mode = *mode;
    return 0;
}

/* The mode (set in x first: a call that fails to read the rest still knows whether it is collective)
   and the rest of the DXPL's settings, into x. The four without public getters in 1.10 are read by
   their property names (H5Dprivate.h: H5D_XFER_MPIO_CHUNK_OPT_HARD_NAME, ...). */
static int h5_dxpl_rest(hid_t dxpl, H5FD_mpio_xfer_t mode, colldiag_xfer *x, const char *fn)
{
    H5FD_mpio_chunk_opt_t hard = H5FD_MPIO_CHUNK_DEFAULT;
    H5FD_mpio_collective_opt_t copt = H5FD_MPIO_COLLECTIVE_IO;
    unsigned num = 0, ratio = 60;
    hid_t p = dxpl == H5P_DEFAULT ? H5P_DATASET_XFER_DEFAULT : dxpl;
    int rc = colldiag_set_dxpl_mpio(x, mode == H5FD_MPIO_COLLECTIVE ? COLLDIAG_MPIO_COLLECTIVE : COLLDIAG_MPIO_INDEPENDENT);
    if (rc) return rc;
    int xform;
    if (h5_dxpl_remembered(p) && h5_dxpl_seen.rest) {
        hard = h5_dxpl_seen.hard;
        num = h5_dxpl_seen.num;
        ratio = h5_dxpl_seen.ratio;
        copt = h5_dxpl_seen.copt;
        xform = h5_dxpl_seen.xform;
    } else {
        herr_t e = 0;
        e |= H5Pget(p, "mpio_chunk_opt_hard", &hard);
        e |= H5Pget(p, "mpio_chunk_opt_num", &num);
        e |= H5Pget(p, "mpio_chunk_opt_ratio", &ratio);
        e |= H5Pget(p, "mpio_collective_opt", &copt);
        if (e < 0) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the DXPL's mpio_chunk_opt_* properties (not HDF5 1.10?)");
        /* "not set" is an HDF5 error (the caller's H5E_BEGIN_TRY keeps it off stderr) */
        xform = H5Pget_data_transform(p, NULL, 0) > 0;
        if (h5_dxpl_remembered(p)) { /* the mode was read by this call (h5_dxpl_mode): the rest joins it */
            h5_dxpl_seen.rest = 1;
            h5_dxpl_seen.hard = hard;
            h5_dxpl_seen.num = num;
            h5_dxpl_seen.ratio = ratio;
            h5_dxpl_seen.copt = copt;
            h5_dxpl_seen.xform = xform;
        }
    }
    rc = colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)hard);
    if (!rc) rc = colldiag_set_dxpl_mpio_chunk_opt_num(x, num);
    if (!rc) rc = colldiag_set_dxpl_mpio_chunk_opt_ratio(x, ratio);
    if (!rc) rc = colldiag_set_dxpl_mpio_collective_opt(x, (colldiag_collective_opt_t)copt);
    if (!rc) rc = colldiag_set_data_transform(x, xform ? h5_never_transform : NULL, NULL); /* a reused x forgets the last */
    return rc;
}

/* Every DXPL setting HDF5 1.10 reads for a parallel transfer, into x. */
static int h5_dxpl_settings(hid_t dxpl, colldiag_xfer *x, const char *fn)
{
    H5FD_mpio_xfer_t mode;
    const int rc = h5_dxpl_mode(dxpl, &mode, fn);
    return rc ? rc : h5_dxpl_rest(dxpl, mode, x, fn);
}

/* The file's MPI-IO handle and this rank's place in its communicator, all local calls: an independent
   H5Dwrite runs on some ranks only, so finding the file must not communicate. (H5Fget_access_plist
   would: copying an MPI-IO access list duplicates its communicator. H5Fget_mpi_atomicity answers only
   for the MPI-IO driver and asks MPI_File_get_atomicity, which is local.) */
static int h5_mpi_file(hid_t dset, MPI_File *fh, int *rank, int *size, const char *fn)
{
    hid_t file = H5Iget_file_id(dset);
    int rc = 0;
    hbool_t atomic = 0;
    herr_t mpio = -1;
    if (file >= 0) H5E_BEGIN_TRY { mpio = H5Fget_mpi_atomicity(file, &atomic); } H5E_END_TRY;
    if (file < 0) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "cannot find the dataset's file");
    else if (mpio < 0)
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the file is not opened with the MPI-IO driver (H5Pset_fapl_mpio): HDF5 does no "
                                                   "parallel I/O on it");
    void *vh = NULL;
    if (!rc && (H5Fget_vfd_handle(file, H5P_DEFAULT, &vh) < 0 || !vh)) rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot get the file's MPI_File");
    if (!rc) {
        MPI_Group g;
        *fh = *(MPI_File *)vh;
        MPI_File_get_group(*fh, &g);
        MPI_Group_rank(g, rank);
        MPI_Group_size(g, size);
        MPI_Group_free(&g);
    }
    if (file >= 0) H5Fclose(file);
    return rc;
}

/* A plan-only colldiag_file. Collective transfers get the file's communicator from HDF5 (a duplicate:
   collective, like the H5Dwrite it plans); independent ones get none, since they never communicate. */
static int h5_plan_file(hid_t dset, int collective, colldiag_file **out, const char *fn)
{
    *out = NULL;
    MPI_File fh;
    int rank, size, rc = h5_mpi_file(dset, &fh, &rank, &size, fn);
    if (rc) return rc;
    colldiag_file *f = cd_calloc(1, sizeof *f);
    if (!f) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the file");
    f->comm = MPI_COMM_NULL;
    f->op = MPI_OP_NULL;
    f->rank = rank;
    f->size = size;
    f->driver = COLLDIAG_DRIVER_MPIO; /* plan_only: no view is checked, nothing is extended or moved */
    f->fh = MPI_FILE_NULL;
    f->fd = -1;
    f->plan_only = 1;
    if (collective) {
        hid_t file = H5Iget_file_id(dset), fapl = H5Fget_access_plist(file);
        MPI_Info info = MPI_INFO_NULL;
        if (H5Pget_fapl_mpio(fapl, &f->comm, &info) < 0) f->comm = MPI_COMM_NULL;
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        H5Pclose(fapl);
        H5Fclose(file);
        if (f->comm == MPI_COMM_NULL) { cd_free(f); return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot get the file's communicator"); }
        MPI_Op_create(cd_agree_fn, 1, &f->op);
    }
    *out = f;
    return 0;
}

static int h5_plan(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, colldiag_direction_t dir,
                   colldiag_xfer *x, colldiag_file **file_out)
{
    static const char fn[] = "colldiag_h5_plan";
    if (file_out) *file_out = NULL;
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank cannot take part: its results have nowhere to go)");
    colldiag_layout *l = NULL;
    colldiag_sel *fs = NULL, *ms = NULL;
    colldiag_file *f = NULL;
    /* a bad argument found here still takes part in the plan's agreement below (a collective plan would
       otherwise leave the other ranks waiting): it only decides how this rank fails */
    int bad = !file_out ? cd_fail(COLLDIAG_ERR_ARG, fn, "file_out is NULL")
            : dir != COLLDIAG_TO_FILE && dir != COLLDIAG_TO_MEMORY ? cd_fail(COLLDIAG_ERR_ARG, fn, "dir = %d is not TO_FILE or TO_MEMORY", (int)dir)
                                                                     : 0;
    char badmsg[sizeof cd_errbuf];
    snprintf(badmsg, sizeof badmsg, "%s", bad ? cd_errbuf : "");
    int rc = h5_dxpl_settings(dxpl, x, fn);
    /* the transfer mode decides whether this call may communicate: read it before anything that might */
    if (!rc) rc = h5_plan_file(dset, x->set.mode == COLLDIAG_MPIO_COLLECTIVE, &f, fn);
    if (!rc) rc = h5_plan_layout(dset, &l, fn);
    if (!rc) {
        hid_t dtype = H5Dget_type(dset);
        htri_t same = -1;
        size_t msize = 0;
        H5E_BEGIN_TRY { /* a bad mem_type is the caller's error, reported as ours: no HDF5 stack on stderr */
            same = dtype >= 0 ? H5Tequal(mem_type, dtype) : -1;
            msize = H5Tget_size(mem_type);
        } H5E_END_TRY;
        if (dtype >= 0) H5Tclose(dtype);
        if (same < 0 || msize == 0) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "mem_type is not a datatype");
        else if (!same) rc = colldiag_set_type_conversion(x, msize, h5_never_convert, NULL);
        else rc = colldiag_set_type_conversion(x, 0, NULL, NULL);
    }
    /* H5S_ALL: the file selection is the whole dataset, the memory space is the file space */
    hid_t fsp = file_space == H5S_ALL ? H5Dget_space(dset) : file_space;
    if (!rc) rc = colldiag_h5_sel(fsp, &fs);
    if (!rc) rc = colldiag_h5_sel(mem_space == H5S_ALL ? fsp : mem_space, &ms);
    if (file_space == H5S_ALL && fsp >= 0) H5Sclose(fsp);
    if (!rc && bad) {
        rc = bad;
        snprintf(cd_errbuf, sizeof cd_errbuf, "%s", badmsg);
    }
    if (rc) {
        /* a collective plan that failed here must still meet the other ranks in colldiag_plan's agreement,
           or they would wait for this rank forever: plan with what we have, which fails everywhere */
        if (f && f->comm != MPI_COMM_NULL) {
            char keep[sizeof cd_errbuf];
            snprintf(keep, sizeof keep, "%s", cd_errbuf);
            cd_transfer(f, NULL, NULL, NULL, NULL, NULL, x, DIR_PLAN, fn);
            snprintf(cd_errbuf, sizeof cd_errbuf, "%s", keep);
            snprintf(x->errmsg, sizeof x->errmsg, "%s", keep);
        }
    } else {
        f->plan_read = dir == COLLDIAG_TO_MEMORY; /* HDF5 1.10 decides alike but for filtered chunks */
        rc = cd_transfer(f, l, fs, ms, NULL, NULL, x, DIR_PLAN, fn);
    }
    colldiag_sel_free(fs);
    colldiag_sel_free(ms);
    colldiag_layout_free(l);
    if (file_out) *file_out = f;
    else colldiag_file_close(f);
    return rc;
}

int colldiag_h5_plan(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, colldiag_direction_t dir,
                     colldiag_xfer *x, colldiag_file **file_out)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_plan(dset, mem_type, mem_space, file_space, dxpl, dir, x, file_out); } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

/* Whether the selection is shifted by an offset (H5Soffset_simple), which HDF5 1.10 cannot be asked for:
   H5Sget_select_bounds includes it, the block and point lists do not. */
static int h5_sel_offset(hid_t space, int rank, const hsize_t *const reg[4], const hsize_t *dims, int *inside)
{
    hsize_t lo[COLLDIAG_MAX_RANK], hi[COLLDIAG_MAX_RANK], mlo[COLLDIAG_MAX_RANK], mhi[COLLDIAG_MAX_RANK];
    *inside = 0;
    if (rank < 1 || rank > COLLDIAG_MAX_RANK || H5Sget_select_bounds(space, lo, hi) < 0) return 0; /* nothing selected */
    for (int d = 0; d < rank; d++) { mlo[d] = HSIZE_UNDEF; mhi[d] = 0; }
    if (reg) { /* a regular hyperslab, as colldiag_h5_sel read it: O(1) */
        const hsize_t *a = reg[0], *b = reg[1], *c = reg[2], *z = reg[3];
        for (int d = 0; d < rank; d++)
            if (c[d] && z[d] && (a[d] != lo[d] || a[d] + (c[d] - 1) * b[d] + z[d] - 1 != hi[d])) return 1;
        /* no offset, so the bounds are the blocks' own, which is what HDF5's H5Sselect_valid checks for a
           regular hyperslab (start >= 0, last element < extent, per dimension) */
        *inside = 1;
        for (int d = 0; d < rank; d++) *inside &= hi[d] < dims[d];
        return 0;
    }
    const int pts = H5Sget_select_type(space) == H5S_SEL_POINTS;
    hssize_t n = pts ? H5Sget_select_elem_npoints(space) : H5Sget_select_hyper_nblocks(space);
    const size_t per = (size_t)rank * (pts ? 1 : 2);
    hsize_t buf[2 * COLLDIAG_MAX_RANK * 64];
    for (hssize_t k = 0; k < n;) {
        const hsize_t m = (hsize_t)(n - k) < 64 ? (hsize_t)(n - k) : 64;
        herr_t e = pts ? H5Sget_select_elem_pointlist(space, (hsize_t)k, m, buf) : H5Sget_select_hyper_blocklist(space, (hsize_t)k, m, buf);
        if (e < 0) return 0;
        for (hsize_t i = 0; i < m; i++)
            for (int d = 0; d < rank; d++) {
                const hsize_t a = buf[i * per + (size_t)d], z = buf[i * per + (pts ? 0 : (size_t)rank) + (size_t)d];
                if (a < mlo[d]) mlo[d] = a;
                if (z > mhi[d]) mhi[d] = z;
            }
        k += (hssize_t)m;
    }
    for (int d = 0; d < rank; d++)
        if (n > 0 && (mlo[d] != lo[d] || mhi[d] != hi[d])) return 1;
    return 0;
}

/* What h5_sel_read proves about a selection without asking HDF5 again (each query costs 0.1-0.3 us in
   place, and a small call makes a dozen): */
enum {
    H5SEL_INSIDE = 1, /* within the extent (H5Sselect_valid would say so): all or none selected, or a
                         regular hyperslab, without offset, whose bounds are inside */
    H5SEL_COUNTED = 2 /* HDF5 counts what its block list holds: all or none selected (a hyperslab, even a
                         regular one, can be miscounted by 1.10.8: h5_sel_inconsistent) */
};

/* colldiag_h5_sel, and (known != NULL) the H5SEL_* facts proven about it. */
static int h5_sel_read(hid_t space, colldiag_sel **out, int *known)
{
    static const char fn[] = "colldiag_h5_sel";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    *out = NULL;
    if (known) *known = 0;
    hsize_t hd[H5S_MAX_RANK];
    const int rank = H5Sget_simple_extent_dims(space, hd, NULL); /* the rank of a simple dataspace, 0 for scalar and null ones */
    const H5S_class_t cls = rank > 0 ? H5S_SIMPLE : H5Sget_simple_extent_type(space);
    if (cls == H5S_NO_CLASS) return cd_fail(COLLDIAG_ERR_ARG, fn, "space is not a dataspace");
    if (cls == H5S_NULL) return colldiag_sel_create_null(out);
    int rc, is_regular = 0, inside = 0;
    colldiag_sel *s = NULL;
    const H5S_sel_type st = H5Sget_select_type(space);
    if (known && (st == H5S_SEL_ALL || st == H5S_SEL_NONE)) *known = H5SEL_INSIDE | H5SEL_COUNTED;
    hsize_t a[COLLDIAG_MAX_RANK], b[COLLDIAG_MAX_RANK], c[COLLDIAG_MAX_RANK], e[COLLDIAG_MAX_RANK];
    const hsize_t *const regular[4] = {a, b, c, e};
    if (cls == H5S_SCALAR) {
        rc = colldiag_sel_create_scalar(&s);
        if (!rc && st == H5S_SEL_NONE) rc = colldiag_sel_select_none(s);
        goto out;
    }
    uint64_t dims[COLLDIAG_MAX_RANK];
    if (rank < 1 || rank > COLLDIAG_MAX_RANK) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the dataspace's dims");
    for (int d = 0; d < rank; d++) dims[d] = hd[d];
    rc = colldiag_sel_create(rank, dims, &s);
    if (rc) return rc;
    switch (st) {
    case H5S_SEL_ALL: break;
    case H5S_SEL_NONE: rc = colldiag_sel_select_none(s); break;
    case H5S_SEL_POINTS: {
        hssize_t n = H5Sget_select_elem_npoints(space);
        hsize_t *p = n > 0 ? cd_malloc((size_t)n * (size_t)rank * sizeof *p) : NULL;
        if (n > 0 && !p) { rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "%lld points", (long long)n); break; }
        if (n > 0 && H5Sget_select_elem_pointlist(space, 0, (hsize_t)n, p) < 0) {
            cd_free(p);
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the point list");
            break;
        }
        /* hsize_t and uint64_t are both 64-bit unsigned here */
        _Static_assert(sizeof(hsize_t) == sizeof(uint64_t), "hsize_t is not 64-bit");
        rc = n > 0 ? colldiag_sel_select_elements(s, COLLDIAG_SELECT_SET, (uint64_t)n, (const uint64_t *)p) : colldiag_sel_select_none(s);
        cd_free(p);
        break;
    }
    case H5S_SEL_HYPERSLABS: {
        if (H5Sis_regular_hyperslab(space) > 0 && H5Sget_regular_hyperslab(space, a, b, c, e) >= 0) {
            is_regular = 1;
            rc = colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, (const uint64_t *)a, (const uint64_t *)b, (const uint64_t *)c,
                                               (const uint64_t *)e);
            break;
        }
        /* irregular: the union of HDF5's disjoint blocks, which iterates in the same row-major order */
        hssize_t nb = H5Sget_select_hyper_nblocks(space);
        rc = colldiag_sel_select_none(s);
        hsize_t *bl = nb > 0 ? cd_malloc((size_t)nb * 2 * (size_t)rank * sizeof *bl) : NULL;
        if (nb > 0 && (!bl || H5Sget_select_hyper_blocklist(space, 0, (hsize_t)nb, bl) < 0)) {
            cd_free(bl);
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the hyperslab block list");
            break;
        }
        for (hssize_t i = 0; i < nb && !rc; i++) {
            uint64_t st0[COLLDIAG_MAX_RANK], cnt[COLLDIAG_MAX_RANK], one[COLLDIAG_MAX_RANK];
            for (int d = 0; d < rank; d++) {
                st0[d] = bl[(size_t)i * 2 * (size_t)rank + (size_t)d];
                cnt[d] = bl[(size_t)i * 2 * (size_t)rank + (size_t)rank + (size_t)d] - st0[d] + 1;
                one[d] = 1;
            }
            rc = colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_OR, st0, NULL, one, cnt);
        }
        cd_free(bl);
        break;
    }
    default: rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "unknown selection type %d", (int)st); break;
    }
out:
    if (!rc && cls == H5S_SIMPLE && (st == H5S_SEL_POINTS || st == H5S_SEL_HYPERSLABS) &&
        h5_sel_offset(space, rank, is_regular ? regular : NULL, hd, &inside)) {
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataspace has an offset (H5Soffset_simple): colldiag does not shift selections");
    }
    if (rc) { colldiag_sel_free(s); return rc; }
    if (known && inside) *known |= H5SEL_INSIDE;
    *out = s;
    return 0;
}

int colldiag_h5_sel(hid_t space, colldiag_sel **out)
{
    return h5_sel_read(space, out, NULL);
}

/* ---- running H5Dwrite / H5Dread through colldiag's engine (colldiag_h5_write / _read) ----
   The call moves exactly the bytes HDF5 would move, through the file's own MPI_File, or it is refused
   (COLLDIAG_ERR_UNSUPPORTED with the reason) before any byte moves, on every rank of a collective call
   alike, and the caller runs HDF5's own call instead. What must hold, and why each rule:
   - the MPI-IO driver: the file's MPI_File is where the data goes;
   - contiguous or chunked storage, unfiltered, inside the file (no compact, virtual or external
     storage), every touched chunk allocated: those are the bytes colldiag can address;
   - no data transform, and the memory type H5Tequal to the dataset's: then HDF5 converts nothing and
     the bytes in memory are the bytes in the file;
   - fixed-size elements only (no variable-length data, no references): their file bytes are heap
     pointers HDF5 writes elsewhere;
   - the file writable for a write; no dataspace offset (H5Soffset_simple);
   - the chunk addresses known: read from the chunk index once per dataset and extent, in a collective
     call (the index must be flushed to disk first, and H5Fflush is collective); a dataset whose
     addresses are not cached yet makes an independent call HDF5's.
   A collective call's eligibility goes into colldiag's first reduction as a pre-set failure
   (x->pre_code): every rank leaves before any byte moves, or every rank goes on. When the only failure
   anywhere is "this rank needs the chunk index", every rank flushes, rank 0 reads the index, broadcasts
   it, and the call runs again, once. HDF5 never sees the bytes move: unfiltered chunks bypass its chunk
   cache when the file is opened for writing with MPI-IO, and the MPI-IO driver keeps no sieve buffer,
   so nothing HDF5 holds goes stale. */

/* Copies src into dst (n bytes), cut to fit: for messages, where a cut is better than none. */
static void h5_copy(char *dst, size_t n, const char *src)
{
    size_t k = strlen(src);
    if (k >= n) k = n - 1;
    memcpy(dst, src, k);
    dst[k] = 0;
}

typedef struct h5_fentry {
    unsigned long fileno;    /* H5Oget_info2's: unique per open file for the library's lifetime */
    colldiag_file *f;        /* on HDF5's MPI_File; comm: a duplicate of the file's, from the first collective call */
    int md_local;            /* 1: metadata reads are local (no H5Pset_all_coll_metadata_ops), so HDF5's own chunk
                                lookup may run on one rank; 0: unknown (no collective call yet) or collective */
    int writable;            /* 1: open for writing, 0: read-only, -1: not asked yet. H5Fget_intent answers for the
                                file HDF5 shares among all opens of it, which fileno names too: it never changes
                                while the file is open, and the entry goes when the file closes */
    int shrunk;              /* a dataset of the file shrank since the program last flushed it (h5_shrunk_why) */
    int read_only_all;       /* 1: open read-only on every rank of comm (agreed when comm is made) */
    int facts;               /* 1: fx's file facts (address and length sizes, userblock) are read; -1: unreadable */
    ix_facts fx;
    struct h5_fentry *next;
} h5_fentry;

typedef struct h5_dentry {
    unsigned long fileno;
    haddr_t addr;                        /* the dataset's object header */
    hid_t id;                            /* the id of the dataset's last call (h5_identify) */
    hid_t type;                          /* the dataset's type, for H5Tequal: a copy, or one shared (h5_type_share) */
    int type_shared;
    int learned;                         /* chunked, cdims and never are read (h5_learn) */
    int chunked;
    int rank;
    int cap;                             /* the dataset's rank (a scalar's 1), which never changes: the length of
                                            dims, u_dims and cdims, which point into the entry's own tail */
    hsize_t *dims;                       /* the extent l was built for */
    colldiag_layout *l;                  /* NULL: not built for this extent (or not buildable: why) */
    int by_hdf5;                         /* l finds addresses with HDF5's own lookup (h5_coord_resolve) */
    uint64_t defers;                     /* collective calls at this extent that HDF5 ran rather than flush (h5_defer_fetch) */
    /* What this rank's collective calls alone saw, and so every rank alike (h5_small_first_call): the
       extent of the last one, how many of them at it HDF5 ran without an agreement, whether the chunk
       index was read at it. An independent call changes rank, dims and l above on its rank alone. */
    int u_rank, u_fetched;
    hsize_t *u_dims;
    uint64_t u_defers;
    hsize_t *cdims;                      /* chunk dims (chunked) */
    /* Reasons, allocated when there is one (h5_text_set; NULL: none), because an entry lives as long as
       its file and a program may create a million datasets: the entry is ~200 bytes plus its dims (it was
       1,400 with two 256-byte texts and three arrays of COLLDIAG_MAX_RANK dims inside) */
    char *never;                         /* set once: why this dataset never runs through colldiag */
    char *why;                           /* why l could not be built for this extent */
    struct h5_dentry *next, *prev;       /* every entry (h5_dsets), both ways: one goes in O(1) (h5_drop_dentry) */
    struct h5_dentry *next_addr, *next_id; /* the hash chains of (fileno, addr) and of id */
    hsize_t dimv[];                      /* 3 x cap: dims, u_dims, cdims */
} h5_dentry;

/* An entry's reason: its text, or "" when it has none. */
static const char *h5_text(const char *t) { return t ? t : ""; }
static int h5_has_text(const char *t) { return t && t[0]; }
/* What a reason holds when there was no memory for its own text (never freed). */
static char h5_text_nomem[] = "no memory for the reason's text";
static void h5_text_clear(char **t)
{
    if (*t != h5_text_nomem) cd_free(*t);
    *t = NULL;
}
/* Sets *t to the formatted reason (at most 511 characters, as the fixed texts it replaces held 255). */
static void h5_text_set(char **t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    h5_text_clear(t);
    const size_t n = strlen(buf) + 1;
    *t = cd_malloc(n);
    if (*t) memcpy(*t, buf, n);
    else *t = h5_text_nomem;
}

static h5_fentry *h5_files;
static h5_dentry *h5_dsets;

/* The dataset cache's index: two hash chains through every entry, by (file, object address) and by the
   id of its last call, so that finding a dataset costs the same among ten datasets or ten thousand (a
   walk of the list cost 5 us a call among 500 netCDF variables, and a timestep writing them in turn
   walked all of them in every call). Every entry is in both; h5_dsets lists them for forgetting. */
static h5_dentry **h5_hash_addr, **h5_hash_id;
static size_t h5_hash_cap, h5_ndsets; /* cap: a power of two, 0 before the first entry */

static size_t h5_slot_addr(unsigned long fileno, haddr_t addr) { return (size_t)(cd_hash_u64(fileno, addr) & (h5_hash_cap - 1)); }
static size_t h5_slot_id(hid_t id) { return (size_t)(cd_mix64((uint64_t)id) & (h5_hash_cap - 1)); }

static void h5_link_id(h5_dentry *e)
{
    h5_dentry **head = &h5_hash_id[h5_slot_id(e->id)];
    e->next_id = *head;
    *head = e;
}

static void h5_unlink_id(h5_dentry *e)
{
    for (h5_dentry **pp = &h5_hash_id[h5_slot_id(e->id)]; *pp; pp = &(*pp)->next_id)
        if (*pp == e) { *pp = e->next_id; return; }
}

static void h5_link(h5_dentry *e)
{
    h5_dentry **head = &h5_hash_addr[h5_slot_addr(e->fileno, e->addr)];
    e->next_addr = *head;
    *head = e;
    h5_link_id(e);
}

static void h5_unlink(h5_dentry *e)
{
    h5_unlink_id(e);
    for (h5_dentry **pp = &h5_hash_addr[h5_slot_addr(e->fileno, e->addr)]; *pp; pp = &(*pp)->next_addr)
        if (*pp == e) { *pp = e->next_addr; return; }
}

/* Room in the index for one more entry: past one entry a slot the table doubles and every entry is
   linked again. 0, or -1 without memory (nothing changed). */
static int h5_index_room(void)
{
    if (h5_ndsets < h5_hash_cap) return 0;
    const size_t cap = h5_hash_cap ? 2 * h5_hash_cap : 64;
    h5_dentry **a = cd_calloc(cap, sizeof *a), **b = cd_calloc(cap, sizeof *b);
    if (!a || !b) { cd_free(a); cd_free(b); return -1; }
    cd_free(h5_hash_addr);
    cd_free(h5_hash_id);
    h5_hash_addr = a;
    h5_hash_id = b;
    h5_hash_cap = cap;
    for (h5_dentry *e = h5_dsets; e; e = e->next) h5_link(e);
    return 0;
}

/* The datasets' types, one copy for all the entries whose types are equal: a copy costs ~530 bytes
   of HDF5's memory (measured, H5Dget_type), and a program's many datasets have a few types. Only
   transient types (a committed one's copy refers to its file) and at most H5_TYPES_SHARED of them,
   so that finding one costs a few H5Tequal; past that, an entry keeps its own copy, as it did. */
enum { H5_TYPES_SHARED = 32 };
static struct { hid_t t; size_t refs; } h5_types[H5_TYPES_SHARED];
static int h5_ntypes;

/* The type to keep for t (a copy the caller owns, H5Dget_type's): t itself, or an equal one already
   kept (t is closed). *shared says which. */
static hid_t h5_type_share(hid_t t, int *shared)
{
    *shared = 0;
    if (t < 0 || H5Tcommitted(t) != 0) return t;
    for (int i = 0; i < h5_ntypes; i++)
        if (H5Tequal(h5_types[i].t, t) > 0) {
            H5Tclose(t);
            h5_types[i].refs++;
            *shared = 1;
            return h5_types[i].t;
        }
    if (h5_ntypes == H5_TYPES_SHARED) return t;
    h5_types[h5_ntypes].t = t;
    h5_types[h5_ntypes++].refs = 1;
    *shared = 1;
    return t;
}

static void h5_type_release(hid_t t, int shared)
{
    if (t < 0) return;
    for (int i = 0; shared && i < h5_ntypes; i++)
        if (h5_types[i].t == t) {
            if (--h5_types[i].refs) return;
            h5_types[i] = h5_types[--h5_ntypes];
            break;
        }
    H5Tclose(t);
}

static void h5_dentry_free(h5_dentry *e)
{
    h5_type_release(e->type, e->type_shared);
    h5_text_clear(&e->never);
    h5_text_clear(&e->why);
    colldiag_layout_free(e->l);
    cd_free(e);
}

/* The file's MPI communicator as HDF5 holds it, duplicated (collective: H5Fget_access_plist duplicates it),
   and whether its metadata reads are local (*md_local = 1) or collective (H5Pset_all_coll_metadata_ops). */
static MPI_Comm h5_file_comm(hid_t obj, int *md_local)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    hid_t file = H5Iget_file_id(obj), fapl = file >= 0 ? H5Fget_access_plist(file) : -1;
    hbool_t coll_md = 1;
    *md_local = fapl >= 0 && H5Pget_all_coll_metadata_ops(fapl, &coll_md) >= 0 && !coll_md;
    if (fapl < 0 || H5Pget_fapl_mpio(fapl, &c, &info) < 0) c = MPI_COMM_NULL;
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    if (fapl >= 0) H5Pclose(fapl);
    if (file >= 0) H5Fclose(file);
    return c;
}

/* 1 if the file is open for writing, 0 if read-only, -1 if HDF5 cannot say. Asked once a file. */
static int h5_file_writable(hid_t dset, h5_fentry *fe)
{
    if (fe->writable < 0) {
        hid_t file = H5Iget_file_id(dset);
        unsigned intent = 0;
        if (file >= 0 && H5Fget_intent(file, &intent) >= 0) fe->writable = (intent & H5F_ACC_RDWR) != 0;
        if (file >= 0) H5Fclose(file);
    }
    return fe->writable;
}

/* The bridge's file for dset's file, made on first use. A collective call gives it the file's
   communicator; every rank of a collective call asks here whether it has one, and ranks that do not
   (all of them, or none: a communicator is only ever made in a collective call, and forgotten in
   colldiag_h5_forget, which is collective for files) make it together. */
static int h5_bridge_file(hid_t dset, unsigned long fileno, int collective, h5_fentry **out, const char *fn)
{
    h5_fentry *e = h5_files;
    while (e && e->fileno != fileno) e = e->next;
    if (!e) {
        MPI_File fh;
        int rank, size, rc = h5_mpi_file(dset, &fh, &rank, &size, fn);
        if (rc) return rc;
        e = cd_calloc(1, sizeof *e);
        colldiag_file *f = cd_calloc(1, sizeof *f);
        if (!e || !f) { cd_free(e); cd_free(f); return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the bridge's file"); }
        f->comm = MPI_COMM_NULL;
        f->op = MPI_OP_NULL;
        f->rank = rank;
        f->size = size;
        f->driver = COLLDIAG_DRIVER_MPIO;
        f->fh = fh;
        f->own_fh = 0;
        f->fd = -1;
        f->bridge = 1;
        e->fileno = fileno;
        e->writable = -1;
        e->f = f;
        e->next = h5_files;
        h5_files = e;
    }
    if (collective && e->f->comm == MPI_COMM_NULL) {
        e->f->comm = h5_file_comm(dset, &e->md_local);
        if (e->f->comm == MPI_COMM_NULL) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot get the file's communicator");
        MPI_Op_create(cd_agree_fn, 1, &e->f->op);
        /* whether the file is read-only everywhere, agreed once (every rank makes comm in the same call):
           the no-agreement shortcut may then decide on it (h5_small_first_call); a rank's own intent
           alone would split the ranks of a program that opened the file with other flags on some */
        int ro = h5_file_writable(dset, e) == 0, all = 0;
        MPI_Allreduce(&ro, &all, 1, MPI_INT, MPI_MIN, e->f->comm);
        e->read_only_all = all;
    }
    *out = e;
    return 0;
}

/* Whether a type holds variable-length data anywhere, or cannot be told (1). H5Tdetect_class finds
   a VLEN nested anywhere, but through the API it counts a variable-length string as a string, not a
   VLEN, and H5Tis_variable_str answers only for the type itself: so strings are looked for member by
   member. A fixed-length string is raw bytes like any other member (the memory type must equal the
   dataset's, so HDF5 converts nothing: h5_ineligible). */
static int h5_type_variable(hid_t t)
{
    if (H5Tdetect_class(t, H5T_VLEN) != 0) return 1; /* < 0: cannot tell */
    const htri_t has_string = H5Tdetect_class(t, H5T_STRING);
    if (has_string <= 0) return has_string < 0;
    int v = 0;
    switch (H5Tget_class(t)) {
    case H5T_STRING: v = H5Tis_variable_str(t) != 0; break;
    case H5T_ARRAY: {
        hid_t b = H5Tget_super(t);
        v = b < 0 || h5_type_variable(b);
        if (b >= 0) H5Tclose(b);
        break;
    }
    case H5T_COMPOUND: {
        const int n = H5Tget_nmembers(t);
        v = n < 0;
        for (int i = 0; !v && i < n; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            v = m < 0 || h5_type_variable(m);
            if (m >= 0) H5Tclose(m);
        }
        break;
    }
    default: v = 1; /* a string elsewhere: a class this walk does not know */
    }
    return v;
}

/* What never changes about a dataset while its file is open: storage class, filters, the type's
   classes (e->type is read when the entry is made), from its creation property list dcpl. Local. */
static void h5_facts_of(hid_t dset, hid_t dcpl, h5_dentry *e)
{
    hid_t space = H5Dget_space(dset);
    H5D_layout_t lay = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    const char *no = NULL;
    if (dcpl < 0 || space < 0 || e->type < 0) no = "cannot read the dataset's creation properties, dataspace or type";
    else if (H5Sget_simple_extent_type(space) == H5S_NULL) no = "the dataset has a null dataspace";
    else if (lay == H5D_COMPACT) no = "a compact dataset (its data lives in the object header, which HDF5 caches)";
    else if (lay == H5D_VIRTUAL) no = "a virtual dataset";
    else if (lay != H5D_CONTIGUOUS && lay != H5D_CHUNKED) no = "an unknown storage layout";
    else if (H5Pget_external_count(dcpl) > 0) no = "external storage (H5Pset_external)";
    else if (lay == H5D_CHUNKED && H5Pget_nfilters(dcpl) > 0) no = "filtered chunks (HDF5 compresses them; colldiag moves only raw bytes)";
    else if (h5_type_variable(e->type)) no = "variable-length elements (their bytes in the file point into HDF5's heap)";
    else if (H5Tdetect_class(e->type, H5T_REFERENCE) > 0) no = "references (HDF5 encodes them)";
    if (no) h5_text_set(&e->never, "%s", no);
    e->chunked = lay == H5D_CHUNKED;
    const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (e->chunked && !no && (rank < 1 || rank > e->cap || H5Pget_chunk(dcpl, rank, e->cdims) != rank))
        h5_text_set(&e->never, "cannot read the chunk dims");
    if (space >= 0) H5Sclose(space);
    e->learned = 1;
}

/* The same from HDF5's copy of the list. Read at the first call that needs them, not at every
   dataset's first call: H5Dget_create_plist copies the whole list (3-10 us in a loop here, ~30 us right
   after creating a dataset of 16k chunks, with the caches cold: most of what learning a dataset
   costs), and a small first call that the shortcut leaves to HDF5 (h5_small_first_call) needs none of
   it. A dataset the program created under the preload was learned from the program's own list
   (colldiag_h5_created), with no copy. */
static void h5_dataset_facts(hid_t dset, h5_dentry *e)
{
    hid_t dcpl = H5Dget_create_plist(dset);
    h5_facts_of(dset, dcpl, e);
    if (dcpl >= 0) H5Pclose(dcpl);
}

static void h5_learn(hid_t dset, h5_dentry *e)
{
    if (!e->learned) h5_dataset_facts(dset, e);
}

/* The dataset's cache entry (made on its first call: its identity and type; h5_learn reads the rest). */
static h5_dentry *h5_dataset(hid_t dset, const H5O_info_t *oi)
{
    h5_dentry *e = h5_hash_cap ? h5_hash_addr[h5_slot_addr(oi->fileno, oi->addr)] : NULL;
    while (e && !(e->fileno == oi->fileno && e->addr == oi->addr)) e = e->next_addr;
    if (e) {
        if (e->id != dset) { /* another id for the same dataset (opened again) */
            h5_unlink_id(e);
            e->id = dset;
            h5_link_id(e);
        }
        return e;
    }
    if (h5_index_room()) return NULL;
    /* the dataset's rank sizes the entry: it never changes (H5Dset_extent keeps it) */
    const hid_t sp = H5Dget_space(dset);
    const int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    if (sp >= 0) H5Sclose(sp);
    const int cap = nd < 1 || nd > COLLDIAG_MAX_RANK ? (nd == 0 ? 1 : COLLDIAG_MAX_RANK) : nd;
    e = cd_calloc(1, sizeof *e + 3 * (size_t)cap * sizeof e->dimv[0]);
    if (!e) return NULL;
    e->cap = cap;
    e->dims = e->dimv;
    e->u_dims = e->dimv + cap;
    e->cdims = e->dimv + 2 * cap;
    e->fileno = oi->fileno;
    e->addr = oi->addr;
    e->id = dset;
    e->rank = -1;
    e->type = h5_type_share(H5Dget_type(dset), &e->type_shared);
    e->next = h5_dsets;
    if (h5_dsets) h5_dsets->prev = e;
    h5_dsets = e;
    h5_ndsets++;
    h5_link(e);
    return e;
}

/* The dataset's identity in oi (fileno and addr; nothing else is set), or -1 if dset is not an open
   object. Without asking HDF5 when dset is the id of the cached dataset's last call: HDF5 1.10 never
   gives an id value to a second object while the library is open (H5I's counter only grows), and an
   open object's header never moves, so an id that is still a dataset id names the object it named when
   it was cached. (H5Oget_info2 reads the object header through the metadata cache: 2-3 us a call in
   place, an eighth of a small call's whole overhead.) Across H5close, ids start again: the cache must be
   forgotten before (colldiag_h5_forget of every file, which closing the files needs anyway). */
static int h5_identify(hid_t dset, H5O_info_t *oi)
{
    for (const h5_dentry *e = h5_hash_cap ? h5_hash_id[h5_slot_id(dset)] : NULL; e; e = e->next_id)
        if (e->id == dset) {
            if (H5Iget_type(dset) != H5I_DATASET) break;
            oi->fileno = e->fileno;
            oi->addr = e->addr;
            return 0;
        }
    return H5Oget_info2(dset, oi, H5O_INFO_BASIC) < 0 ? -1 : 0;
}

/* The dataset's current extent and maximum dims (a scalar is one element of a 1-D extent); -1 if unreadable. */
static int h5_extent(hid_t dset, hsize_t *dims, hsize_t *maxd)
{
    _Static_assert(COLLDIAG_MAX_RANK >= H5S_MAX_RANK, "an HDF5 extent must fit in colldiag's arrays");
    hid_t sp = H5Dget_space(dset);
    int rank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, maxd) : -1; /* the rank; 0 for a scalar */
    if (rank == 0) { rank = 1; dims[0] = maxd[0] = 1; }
    if (sp >= 0) H5Sclose(sp);
    return rank;
}

static int h5_extent_is(const h5_dentry *e, int rank, const hsize_t *dims)
{
    if (e->rank != rank || rank > e->cap) return 0;
    for (int d = 0; d < rank; d++)
        if (e->dims[d] != dims[d]) return 0;
    return 1;
}

/* New storage may lie past the end of the file (HDF5 allocates it at its end of allocation and extends
   the file only at its next flush): the size write_extent saw no longer tells that a dataset's chunks
   are inside it. Every layout built (a dataset's first call, an extent changed) asks again. */
static void h5_file_size_unknown(unsigned long fileno)
{
    for (h5_fentry *fe = h5_files; fe; fe = fe->next)
        if (fe->fileno == fileno) fe->f->size_seen = 0;
}

/* Forgets a layout made for another extent: the addresses are found again for this one. */
static void h5_drop_layout(h5_dentry *e, int rank, const hsize_t *dims)
{
    h5_file_size_unknown(e->fileno);
    if (!h5_extent_is(e, rank, dims)) e->defers = 0;
    colldiag_layout_free(e->l);
    e->l = NULL;
    e->by_hdf5 = 0;
    h5_text_clear(&e->why);
    if (rank > e->cap) rank = -1; /* never: the dataset's rank is the entry's; as an extent unread, if it were */
    e->rank = rank;
    if (rank > 0) memcpy(e->dims, dims, (size_t)rank * sizeof *dims);
}

/* The extent of this collective call, in the view of the collective calls alone (e->u_*), which
   h5_small_first_call decides on: a rank's own layout and extent are not alike everywhere (one rank's
   independent call at an extent the dataset later leaves drops its layout there alone; test_h5accel
   part L: deciding on them, that rank left the call to HDF5 while the others waited in the
   agreement). */
static void h5_collective_extent(h5_dentry *e, int rank, const hsize_t *dims)
{
    if (rank > e->cap) rank = -1; /* never (as in h5_drop_layout) */
    int same = e->u_rank == rank;
    for (int d = 0; same && d < rank; d++) same = e->u_dims[d] == dims[d];
    if (same) return;
    e->u_rank = rank;
    if (rank > 0) memcpy(e->u_dims, dims, (size_t)rank * sizeof *dims);
    e->u_defers = 0;
    e->u_fetched = 0;
}

/* The identity of a lazy chunked layout in the agreement: which chunks it answers for (the dataset's
   object header and the userblock, file addresses alike on every rank, and the chunk grid), not how
   it finds them. A rank's independent calls may have left it the index read alone (a read-only file)
   while another's left it HDF5's lookup; both give the chunks' addresses, so a collective call on
   the two must agree (naming the way there made such a call fail with ERR_ARG on every rank). */
static uint64_t h5_chunks_ident(haddr_t oaddr, uint64_t ub, const colldiag_layout *l)
{
    uint64_t id = cd_hash_u64(cd_hash_u64(0xc4u, (uint64_t)oaddr), ub);
    for (int d = 0; d < l->rank; d++) id = cd_hash_u64(id, l->grid[d]);
    return id;
}

/* A layout for the dataset's current extent: contiguous at H5Dget_offset, or chunked with lazy
   addresses found through the opened index ix (copied). */
static int h5_build_layout(hid_t dset, h5_dentry *e, int rank, const hsize_t *dims, const ix_index *ix)
{
    h5_drop_layout(e, rank, dims);
    uint64_t d64[COLLDIAG_MAX_RANK], c64[COLLDIAG_MAX_RANK];
    for (int d = 0; d < rank; d++) d64[d] = dims[d];
    const size_t esize = H5Tget_size(e->type);
    int rc;
    if (!e->chunked) {
        haddr_t a = H5Dget_offset(dset); /* absolute: HDF5 adds the userblock */
        if (a == HADDR_UNDEF) {
            h5_text_set(&e->why, "the contiguous dataset has no storage yet");
            return -1;
        }
        rc = colldiag_layout_contiguous(rank, d64, esize, (MPI_Offset)a, &e->l);
    } else {
        h5_learn(dset, e); /* the chunk dims (read by every caller's h5_prepare already) */
        rc = h5_has_text(e->never) ? cd_fail(COLLDIAG_ERR_UNSUPPORTED, "colldiag_h5_write", "%s", e->never) : 0;
        for (int d = 0; d < rank && !rc; d++) c64[d] = e->cdims[d];
        if (!rc) rc = colldiag_layout_chunked(rank, d64, c64, esize, 0, &e->l);
        ix_index *own = rc ? NULL : cd_malloc(sizeof *own);
        if (!rc && own) *own = *ix;
        if (!rc && (!own || layout_set_resolver(e->l, ix_resolve, own, cd_free, h5_chunks_ident(e->addr, ix->r.base, e->l)))) {
            cd_free(own);
            rc = cd_fail(COLLDIAG_ERR_NOMEM, "colldiag_h5_write", "no memory for the chunk index's description");
        }
    }
    if (rc) {
        h5_text_set(&e->why, "cannot describe the dataset's storage: %s", cd_errbuf);
        colldiag_layout_free(e->l);
        e->l = NULL;
        return -1;
    }
    return 0;
}

/* The dataset's chunk count at extent dims (0: not chunked as far as the entry knows). */
static uint64_t h5_nchunks(hid_t dset, h5_dentry *e, int rank, const hsize_t *dims)
{
    h5_learn(dset, e);
    uint64_t n = e->chunked;
    for (int d = 0; d < rank && n; d++) n = e->cdims[d] ? n * (dims[d] / e->cdims[d] + (dims[d] % e->cdims[d] != 0)) : 0;
    return n;
}

/* What reading dset's index needs (ix_open), from the bridge's caches where it has them: the file's
   creation facts once a file, the chunk dims and type from the learned entry. NULL if HDF5 cannot say. */
static const ix_facts *h5_ix_facts(hid_t dset, h5_dentry *e, h5_fentry *fe, int rank, const hsize_t *dims, ix_facts *fx)
{
    if (!fe->facts) fe->facts = ix_file_facts(dset, &fe->fx) ? -1 : 1;
    hsize_t d[COLLDIAG_MAX_RANK];
    h5_learn(dset, e);
    if (fe->facts < 0 || !e->chunked || h5_has_text(e->never) || h5_extent(dset, d, fx->maxd) != rank) return NULL;
    fx->sa = fe->fx.sa;
    fx->ss = fe->fx.ss;
    fx->ub = fe->fx.ub;
    fx->oaddr = e->addr;
    fx->esize = H5Tget_size(e->type);
    fx->rank = rank;
    memcpy(fx->dims, dims, (size_t)rank * sizeof *dims);
    memcpy(fx->cd, e->cdims, (size_t)rank * sizeof *dims);
    return fx;
}

/* Collective over f's communicator: flush the file (the index to disk), rank 0 reads the dataset's
   layout message and sends every rank the index's description; every rank then builds a lazy layout
   (each finds the addresses of the chunks its calls touch, reading only the index blocks on their
   way), or every rank records why not. Nothing here grows with the dataset's chunk count. */
static void h5_fetch_index(hid_t dset, h5_dentry *e, h5_fentry *fe, int rank, const hsize_t *dims)
{
    colldiag_file *f = fe->f;
    struct { ix_index ix; int ok; char why[256]; } m;
    memset(&m, 0, sizeof m);
    herr_t fl;
    fl = H5Fflush(dset, H5F_SCOPE_LOCAL);
    int ok = fl >= 0, all = 0;
    ix_facts fx;
    if (f->rank == 0) m.ok = ok && !ix_open(h5_ix_facts(dset, e, fe, rank, dims, &fx), f->fh, h5_nchunks(dset, e, rank, dims), &m.ix, m.why, sizeof m.why);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, 0, f->comm);
    m.ix.r.fh = f->fh; /* each rank's own handle */
    h5_collective_extent(e, rank, dims); /* every rank is here: the shortcut stops at this extent */
    e->u_fetched = 1;
    if (all && m.ok) {
        h5_build_layout(dset, e, rank, dims, &m.ix);
    } else {
        h5_drop_layout(e, rank, dims);
        h5_text_set(&e->why, "%s", !all ? "H5Fflush failed on some rank: the chunk index cannot be read from the file"
                                                   : m.why[0] ? m.why : "rank 0 could not read the chunk index");
    }
}

/* The same for one rank alone, in an independent call on a file open read-only: such a file has
   nothing to flush (its metadata on disk is final), so this rank reads where the index is itself and
   walks it to its own chunks, communicating nothing. At scale every rank reads the layout message
   once, as HDF5's own independent metadata reads do. 0, or -1 with e->why. The collective view
   (e->u_*) is left alone: the other ranks did not take part. */
static int h5_fetch_index_alone(hid_t dset, h5_dentry *e, h5_fentry *fe, int rank, const hsize_t *dims)
{
    ix_index ix;
    ix_facts fx;
    char why[256];
    if (ix_open(h5_ix_facts(dset, e, fe, rank, dims, &fx), fe->f->fh, h5_nchunks(dset, e, rank, dims), &ix, why, sizeof why)) {
        h5_drop_layout(e, rank, dims);
        h5_text_set(&e->why, "%s", why);
        return -1;
    }
    return h5_build_layout(dset, e, rank, dims, &ix);
}

/* HDF5 1.10 fills the part of an edge chunk that a shrink leaves outside the extent through its chunk
   cache (H5D__chunk_prune_fill), and writes that cached chunk back at the file's next flush or close,
   over whatever its collective or independent writes put there meanwhile: a program that shrinks a
   dataset, grows it back and writes the pruned chunk loses that write in HDF5 (h5py_suite's "pruned",
   one rank or more). colldiag's own index flush, or its write after HDF5's lookup, would write the
   cached chunk back earlier and keep the program's data: a file unlike HDF5's. So from a shrink until
   the program flushes or closes the file, HDF5 runs every call on it and colldiag flushes nothing.
   (A shrink to a chunk boundary prunes nothing: HDF5 drops whole chunks only.) */
static const char h5_shrunk_why[] = "a dataset of this file shrank across a chunk: HDF5 1.10 keeps the edge chunks it pruned in its chunk cache and "
                                    "writes them back at the next flush or close, so HDF5 runs the calls on this file until the "
                                    "program flushes or closes it (the file then ends as HDF5 leaves it)";

/* Local: why this call cannot run through colldiag (a message into why), or 0. */
static int h5_ineligible(hid_t dset, const h5_dentry *e, h5_fentry *fe, hid_t mem_type, int wr, const colldiag_xfer *x, char *why, size_t wl)
{
    if (fe->shrunk) { snprintf(why, wl, "%s", h5_shrunk_why); return 1; }
    if (h5_has_text(e->never)) { snprintf(why, wl, "%s", e->never); return 1; }
    if (x->xform) { snprintf(why, wl, "the DXPL sets a data transform (HDF5 computes it)"); return 1; }
    htri_t same = -1;
    same = H5Tequal(mem_type, e->type);
    if (same < 0) { snprintf(why, wl, "mem_type is not a datatype"); return 1; }
    if (!same) { snprintf(why, wl, "the memory type differs from the dataset's (HDF5 converts)"); return 1; }
    if (wr && h5_file_writable(dset, fe) != 1) {
        snprintf(why, wl, "the file is not open for writing");
        return 1;
    }
    return 0;
}

/* 1 if the selection read from HDF5's block list holds another number of elements than HDF5 counts:
   1.10.8 can merge a union of boxes into blocks that cover other elements than the union (2-D 16x1:
   {10} | {4} | {1..3} counts 5 but lists 1..3 and 7..9). HDF5 then moves what its own iteration gives;
   colldiag cannot know which elements that is, so HDF5 runs the call. */
static int h5_sel_inconsistent(hid_t space, const colldiag_sel *s)
{
    hssize_t n = H5Sget_select_npoints(space);
    return n < 0 || (uint64_t)n != colldiag_sel_npoints(s);
}

/* The actual-mode properties HDF5 1.10 sets on the DXPL after a parallel transfer, with colldiag's
   answers: chunk optimisation as HDF5 names it (colldiag's own schemes, which HDF5 has no value for,
   read NO_CHUNK_OPTIMIZATION), I/O mode and causes as colldiag reports them. H5P_DEFAULT cannot be set.
   Under the watch (h5_plist_watched: the preload, which also counts every call HDF5 runs, since HDF5
   sets these itself) the four H5Pset (~4 us) are skipped when the list still holds the values this
   function last set on it. */
static struct {
    int valid;
    hid_t id;
    unsigned long gen;
    H5D_mpio_actual_chunk_opt_mode_t co;
    H5D_mpio_actual_io_mode_t io;
    uint32_t l, g;
} h5_actual_set;

static void h5_set_actual(hid_t dxpl, const colldiag_xfer *x)
{
    if (dxpl == H5P_DEFAULT) return;
    H5D_mpio_actual_chunk_opt_mode_t co = x->chunk_opt_done <= COLLDIAG_MPIO_MULTI_CHUNK ? (H5D_mpio_actual_chunk_opt_mode_t)x->chunk_opt_done
                                                                                          : H5D_MPIO_NO_CHUNK_OPTIMIZATION;
    H5D_mpio_actual_io_mode_t io = (H5D_mpio_actual_io_mode_t)x->io_mode_done;
    uint32_t l = x->local_cause, g = x->global_cause;
    if (h5_plist_watched && h5_actual_set.valid && h5_actual_set.id == dxpl && h5_actual_set.gen == h5_plist_gen && h5_actual_set.co == co &&
        h5_actual_set.io == io && h5_actual_set.l == l && h5_actual_set.g == g)
        return;
    H5Pset(dxpl, "actual_chunk_opt_mode", &co);
    H5Pset(dxpl, "actual_io_mode", &io);
    H5Pset(dxpl, "local_no_collective_cause", &l);
    H5Pset(dxpl, "global_no_collective_cause", &g);
    h5_actual_set.valid = 1;
    h5_actual_set.id = dxpl;
    h5_actual_set.gen = h5_plist_gen; /* the watcher does not count these four, set by colldiag itself */
    h5_actual_set.co = co;
    h5_actual_set.io = io;
    h5_actual_set.l = l;
    h5_actual_set.g = g;
}

/* Set by a caller that reports the call itself (the preload): COLLDIAG_REPORT is then not the bridge's. */
static int h5_bridge_quiet;
/* Set by a caller that has given every rank rank 0's COLLDIAG_* environment (the preload, when MPI
   starts): a variable then decides alike on every rank without being agreed (h5_small_first_call). */
static int h5_env_uniform;

/* ---- chunk addresses through HDF5's own lookup ----
   A dataset's first call that reads the chunk index from the file must flush the file first (collective,
   and it writes out every dirty metadata entry: ~1.5 ms a dataset here; a program that writes each of a
   thousand small variables once paid it a thousand times, 3x HDF5's own time). HDF5's
   H5Dget_chunk_info_by_coord needs no flush (it reads through HDF5's metadata cache) and is local, but
   walks the whole index for every chunk it is asked (6.5 ns a chunk of the index per lookup with the
   default format, 50 ns with the latest). So a dataset whose call can be answered within a budget of
   index visits (chunks of the dataset x chunks the selection's bounding box spans <= COLLDIAG_H5_LOOKUP_BUDGET,
   default 65,536: under 0.5 ms with the default format) uses it, also in an independent call; beyond
   the budget the collective path (flush, then colldiag's own walk of the index) takes over. Not when the
   file's metadata reads are collective (H5Pset_all_coll_metadata_ops: a lookup on one rank would wait
   for the others) or unknown (no collective call on the file yet), and not for a dataset with one
   unlimited dimension that is not the first: 1.10.8's lookup then gets extensible-array indexes wrong
   (test_h5accel part A shows it). */
typedef struct {
    hid_t dset;                          /* the current call's id of the dataset (set by every call) */
    int rank;
    uint64_t cdims[COLLDIAG_MAX_RANK], grid[COLLDIAG_MAX_RANK];
    uint64_t ub;                         /* the userblock: HDF5's addresses are relative to it */
} h5_coord_ctx;

static int h5_coord_resolve(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, char *why, size_t wl)
{
    const h5_coord_ctx *c = ctx;
    for (uint64_t i = 0; i < n; i++) {
        hsize_t off[COLLDIAG_MAX_RANK];
        uint64_t k = idx[i];
        for (int d = c->rank - 1; d >= 0; d--) { off[d] = (k % c->grid[d]) * c->cdims[d]; k /= c->grid[d]; }
        unsigned fm = 0;
        haddr_t a = HADDR_UNDEF;
        hsize_t sz = 0;
        herr_t e;
        e = H5Dget_chunk_info_by_coord(c->dset, off, &fm, &a, &sz);
        if (e < 0) {
            snprintf(why, wl, "H5Dget_chunk_info_by_coord failed for chunk %" PRIu64, idx[i]);
            return -1;
        }
        addr[i] = a == HADDR_UNDEF ? -1 : (MPI_Offset)(a + c->ub);
    }
    return 0;
}

/* 1 if this call finds its chunk addresses with HDF5's lookup (see above). fsp: the file selection. */
static int h5_lookup_affordable(const h5_dentry *e, int rank, const hsize_t *dims, const hsize_t *maxd, hid_t fsp, int md_local)
{
    if (md_local != 1) return 0;
    int unlim = 0, first = 0;
    for (int d = 0; d < rank; d++)
        if (maxd[d] == H5S_UNLIMITED) { unlim++; first = d == 0; }
    if (unlim == 1 && !first) return 0;
    const char *b = cd_getenv("COLLDIAG_H5_LOOKUP_BUDGET");
    const double budget = b && *b ? strtod(b, NULL) : 65536.0;
    double n = 1, k = 1;
    hsize_t lo[COLLDIAG_MAX_RANK], hi[COLLDIAG_MAX_RANK];
    const hssize_t np = H5Sget_select_npoints(fsp);
    if (np == 0) return budget > 0;
    if (np < 0 || H5Sget_select_bounds(fsp, lo, hi) < 0) return 0;
    for (int d = 0; d < rank; d++) {
        n *= (double)(dims[d] / e->cdims[d] + (dims[d] % e->cdims[d] != 0));
        k *= (double)(hi[d] / e->cdims[d] - lo[d] / e->cdims[d] + 1);
    }
    return n * k <= budget;
}

/* A lazy layout for the current extent answered by HDF5's lookup. 0, or -1 with e->why. */
static int h5_build_coord_layout(hid_t dset, const H5O_info_t *oi, h5_dentry *e, int rank, const hsize_t *dims)
{
    uint64_t d64[COLLDIAG_MAX_RANK], c64[COLLDIAG_MAX_RANK];
    for (int d = 0; d < rank; d++) { d64[d] = dims[d]; c64[d] = e->cdims[d]; }
    h5_coord_ctx *c = cd_calloc(1, sizeof *c);
    hsize_t ub = 0;
    hid_t file = H5Iget_file_id(dset), fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
    int rc = !c || fcpl < 0 || H5Pget_userblock(fcpl, &ub) < 0 ? -1 : 0;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (file >= 0) H5Fclose(file);
    if (!rc) rc = colldiag_layout_chunked(rank, d64, c64, H5Tget_size(e->type), 0, &e->l);
    if (!rc) {
        c->dset = dset;
        c->rank = rank;
        c->ub = ub;
        for (int d = 0; d < rank; d++) { c->cdims[d] = e->l->cdims[d]; c->grid[d] = e->l->grid[d]; }
        rc = layout_set_resolver(e->l, h5_coord_resolve, c, cd_free, h5_chunks_ident(oi->addr, ub, e->l));
    }
    if (rc) {
        cd_free(c);
        colldiag_layout_free(e->l);
        e->l = NULL;
        h5_text_set(&e->why, "cannot describe the dataset's chunks for HDF5's lookup");
        return -1;
    }
    e->by_hdf5 = 1;
    return 0;
}

/* One dataset's part of a bridge call, local: its cache entry, extent, selections, and either why
   colldiag cannot move it (why[0] set: HDF5 runs the call) or need = 1 when its chunk index must be
   read from the file first (in a collective call). fe: the file's entry. */
/* Why HDF5 runs a small call whose chunk index would have to be read first (h5_defer_fetch). */
static const char h5_small_call_why[] = "reading the chunk index needs a file flush, which a call this small does not pay for: HDF5 runs "
                                        "it (see COLLDIAG_H5_FETCH_BYTES and COLLDIAG_H5_FETCH_CALLS)";
/* The same, for a dataset whose storage colldiag has not read yet (h5_small_first_call decides without it). */
static const char h5_unlearned_why[] = "a small call, which HDF5 runs before colldiag reads more of the dataset: its storage is not contiguous at a "
                                       "known address, and if it is chunked, reading the chunk index needs a file flush, which a call this "
                                       "small does not pay for (see COLLDIAG_H5_FETCH_BYTES and COLLDIAG_H5_FETCH_CALLS)";

/* Whether a collective call is one h5_defer_fetch would leave to HDF5, decided on every rank alone:
   the agreement it saves is most of what such a call costs colldiag (netCDF-4 writing each of many
   small variables once: every call is one). Only where every input is the same on every rank, so
   that every rank decides alike: the environment is rank 0's on every rank (h5_env_uniform: the
   preload), the file's metadata reads are collective (then HDF5's own lookup is never used and a
   dataset's index is only ever read in collective calls, by every rank together; HDF5 itself needs
   every rank to set H5Pset_all_coll_metadata_ops alike), the dataset's storage, type and extent are
   the dataset's, and its bytes stay below COLLDIAG_H5_FETCH_BYTES (no rank's call can then move that
   much) while, at this extent, the index has not been read and HDF5 has run fewer than
   COLLDIAG_H5_FETCH_CALLS of the collective calls (e->u_*: counted by the collective calls alone, so
   alike on every rank). Not on a file read-only on every rank (agreed in h5_bridge_file): reading its
   index needs no flush, so colldiag runs the call (netCDF-4 reading an existing file's small
   variables: ~0.3 ms a call where HDF5 takes ~1 ms). 1: HDF5 runs the call. */
/* This rank's COLLDIAG_H5_FETCH_BYTES (default 1 MiB) and COLLDIAG_H5_FETCH_CALLS (default 2). */
static void h5_fetch_env(uint64_t *bytes, uint64_t *calls)
{
    const char *b = cd_getenv("COLLDIAG_H5_FETCH_BYTES"), *c = cd_getenv("COLLDIAG_H5_FETCH_CALLS");
    *bytes = b && *b ? strtoull(b, NULL, 10) : (uint64_t)1 << 20;
    *calls = c && *c ? strtoull(c, NULL, 10) : 2;
}

static int h5_small_first_call(hid_t dset, h5_dentry *e, const h5_fentry *fe, int rank, const hsize_t *dims)
{
    if (!h5_env_uniform || !e || rank < 1 || fe->f->comm == MPI_COMM_NULL || fe->md_local || fe->read_only_all) return 0;
    /* contiguous storage colldiag finds without an index: it runs the call. Any other (chunks; or
       storage colldiag never moves, whose calls HDF5 runs anyway) may be left to HDF5 here: decided
       without learning the dataset (h5_learn), whose facts one rank may know and another not yet */
    if (H5Dget_offset(dset) != HADDR_UNDEF) return 0;
    h5_collective_extent(e, rank, dims);
    if (e->u_fetched) return 0; /* the index was read at this extent: the addresses are known, or known not to be readable */
    uint64_t min_bytes, max_defers;
    h5_fetch_env(&min_bytes, &max_defers);
    double bytes = (double)H5Tget_size(e->type);
    for (int d = 0; d < rank; d++) bytes *= (double)dims[d];
    if (!(bytes < (double)min_bytes) || e->u_defers >= max_defers) return 0;
    if (!h5_extent_is(e, rank, dims)) h5_drop_layout(e, rank, dims); /* as h5_prepare would: defers start again */
    e->u_defers++;
    e->defers++; /* for the agreement of a later call at this extent (h5_defer_fetch) */
    return 1;
}

/* The dataset's entry (NULL: no memory) and current extent (rank < 1: unreadable), for h5_prepare;
   notes a shrink across a chunk in the file's entry (h5_shrunk_why). Local. */
typedef struct {
    h5_dentry *e;
    int rank;
    hsize_t dims[COLLDIAG_MAX_RANK], maxd[COLLDIAG_MAX_RANK];
} h5_located;

static void h5_locate(hid_t dset, const H5O_info_t *oi, h5_fentry *fe, h5_located *lo)
{
    h5_dentry *e = lo->e = h5_dataset(dset, oi);
    const int rank = lo->rank = h5_extent(dset, lo->dims, lo->maxd);
    int smaller = 0;
    for (int d = 0; e && rank > 0 && e->rank == rank && d < rank; d++) smaller |= lo->dims[d] < e->dims[d];
    if (smaller) h5_learn(dset, e); /* rare: the chunk dims tell a shrink across a chunk (h5_shrunk_why) */
    for (int d = 0; smaller && e->chunked && d < rank; d++)
        if (lo->dims[d] < e->dims[d] && lo->dims[d] % e->cdims[d]) fe->shrunk = 1;
}

/* The call's selections read from HDF5 (*fs_out, *ms_out; NULL with why set when HDF5 would reject
   them or they cannot be read). fsp: the file selection's dataspace. Local. */
static void h5_read_sels(hid_t fsp, hid_t mem_space, colldiag_sel **fs_out, colldiag_sel **ms_out, char *why, size_t wl)
{
    colldiag_sel *fs = NULL, *ms = NULL;
    /* what HDF5 need not be asked about the selections (H5SEL_*); H5S_ALL: the file selection again, checked once */
    int fk = 0, mk = H5SEL_INSIDE | H5SEL_COUNTED;
    int unread = h5_sel_read(fsp, &fs, &fk) || (mem_space != H5S_ALL && h5_sel_read(mem_space, &ms, &mk));
    char unread_why[sizeof cd_errbuf];
    if (unread) snprintf(unread_why, sizeof unread_why, "%s", cd_errbuf);
    if (!unread && mem_space == H5S_ALL && sel_clone(fs, &ms)) {
        unread = 1;
        snprintf(unread_why, sizeof unread_why, "no memory for the memory selection");
    }
    const htri_t vf = fk & H5SEL_INSIDE ? 1 : H5Sselect_valid(fsp), vm = mk & H5SEL_INSIDE ? 1 : H5Sselect_valid(mem_space);
    /* HDF5 refuses these (a union of overlapping boxes can come out of H5Sselect_hyperslab with
       blocks past the extent in 1.10.8): HDF5 runs the call and returns its own error */
    if (vf <= 0 || vm <= 0)
        snprintf(why, wl, "HDF5 rejects the %s selection (not within its extent, or not a dataspace)", vf <= 0 ? "file" : "memory");
    else if (unread)
        h5_copy(why, wl, unread_why);
    else {
        const int file_bad = !(fk & H5SEL_COUNTED) && h5_sel_inconsistent(fsp, fs);
        if (file_bad || (!(mk & H5SEL_COUNTED) && h5_sel_inconsistent(mem_space, ms)))
            snprintf(why, wl, "HDF5's %s selection is inconsistent: its blocks cover %llu elements, it counts %lld (HDF5 runs the call)",
                     file_bad ? "file" : "memory", (unsigned long long)colldiag_sel_npoints(file_bad ? fs : ms),
                     (long long)H5Sget_select_npoints(file_bad ? fsp : mem_space));
    }
    *fs_out = fs;
    *ms_out = ms;
}

/* The same for a call prepared without them (h5_prepare's may_skip): after its chunk index was read. */
static void h5_read_call_sels(hid_t dset, hid_t mem_space, hid_t file_space, colldiag_sel **fs_out, colldiag_sel **ms_out, char *why, size_t wl)
{
    const hid_t fsp = file_space == H5S_ALL ? H5Dget_space(dset) : file_space;
    h5_read_sels(fsp, mem_space, fs_out, ms_out, why, wl);
    if (file_space == H5S_ALL && fsp >= 0) H5Sclose(fsp);
}

/* may_skip: a collective call whose chunk index must come from the file (need) is not read further:
   what the agreement needs is the bytes it moves (*need_bytes, from HDF5's count), and most such
   calls are small ones HDF5 then runs (h5_defer_fetch): reading the selections cost a quarter of the
   bridge's part of such a call (perf, one rank). When the index is read after all, the caller reads
   them (h5_read_call_sels); a selection HDF5 rejects is then found there, or by HDF5 itself. */
static void h5_prepare(hid_t dset, const H5O_info_t *oi, hid_t mem_type, hid_t mem_space, hid_t file_space, const colldiag_xfer *x,
                       int dir, int collective, h5_fentry *fe, const h5_located *lo, colldiag_sel **fsp_out, colldiag_sel **msp_out,
                       hsize_t *dims, int *needp, char *why, size_t wl, int may_skip, uint64_t *need_bytes)
{
    colldiag_sel *fs = NULL, *ms = NULL;
    h5_dentry *e = lo->e;
    const int rank = lo->rank;
    const hsize_t *maxd = lo->maxd;
    memcpy(dims, lo->dims, sizeof lo->dims);
    int need = 0, lookup = 0;
    *fsp_out = *msp_out = NULL;
    *needp = 0;
    if (why[0]) return; /* the caller's reason already (the DXPL's settings unreadable) */
    if (e) h5_learn(dset, e);
    if (!e) snprintf(why, wl, "no memory for the dataset's cache entry");
    else if (rank < 1) snprintf(why, wl, "cannot read the dataset's extent");
    else if (!h5_ineligible(dset, e, fe, mem_type, dir == DIR_WRITE, x, why, wl)) {
        const int stale = !h5_extent_is(e, rank, dims) || (!e->l && !h5_has_text(e->why));
        if (stale && !e->chunked) h5_build_layout(dset, e, rank, dims, NULL);
        else if (stale) h5_drop_layout(e, rank, dims);
        lookup = e->chunked && (stale || e->by_hdf5); /* how this call finds its chunk addresses: decided below */
        if (!lookup && !e->l) snprintf(why, wl, "%s", h5_text(e->why));
    }
    if (!why[0]) {
        hid_t fsp = file_space == H5S_ALL ? H5Dget_space(dset) : file_space;
        const int affordable = lookup && h5_lookup_affordable(e, rank, dims, maxd, fsp, fe->md_local);
        const hssize_t np = may_skip && lookup && !affordable && collective ? H5Sget_select_npoints(fsp) : -1;
        if (np >= 0) { /* waits for the index: the selections are read if it is read (may_skip above) */
            need = 1;
            *need_bytes = (uint64_t)np * (uint64_t)H5Tget_size(e->type);
            lookup = 0;
        } else {
            h5_read_sels(fsp, mem_space, &fs, &ms, why, wl);
        }
        if (!why[0] && lookup) {
            if (affordable) {
                if (!e->l && h5_build_coord_layout(dset, oi, e, rank, dims)) snprintf(why, wl, "%s", h5_text(e->why));
                else ((h5_coord_ctx *)e->l->rctx)->dset = dset;
            } else if (!collective && h5_file_writable(dset, fe) == 0) {
                if (h5_fetch_index_alone(dset, e, fe, rank, dims)) snprintf(why, wl, "%s", h5_text(e->why));
            } else if (e->l && e->by_hdf5 && !collective) {
                snprintf(why, wl, "the call spans more chunks than HDF5's lookup can find cheaply, and an independent call cannot flush the "
                                  "file to read the chunk index");
            } else if (collective) {
                need = 1;
            } else {
                snprintf(why, wl, "the chunk addresses are not known yet (they are read in a collective call; an independent call cannot flush "
                                  "the file)");
            }
        }
        if (file_space == H5S_ALL && fsp >= 0) H5Sclose(fsp);
    }
    *fsp_out = fs;
    *msp_out = ms;
    *needp = need;
}

/* When the chunk index must come from the file, the flush before it costs what HDF5 holds dirty:
   ~1.5 ms for a small file here, far more just after creating a dataset of a million chunks (its whole
   index). That pays for a call that moves much, or for a dataset written again and again; for a small
   call on a dataset written once or twice it is pure loss (netCDF-4 files, whose metadata reads are
   collective so HDF5's lookup cannot be used, writing each of many variables once: 2.7x HDF5's time).
   So HDF5 runs such a call unless the largest rank moves COLLDIAG_H5_FETCH_BYTES (default 1 MiB) or
   more, or COLLDIAG_H5_FETCH_CALLS (default 2) calls at this extent already ran in HDF5; then the
   index is read. Decided on the values of the transfer's own reduction (the largest rank's bytes, the
   waiting ranks' counts), the same on every rank: all fetch or none, at no extra communication.
   A file open read-only on every waiting rank has nothing to flush (H5Fflush returns at once: 0.2 us
   against ~0.1 ms for a clean writable file here, 1.5 ms for a dirty one), so its index is read at
   once: a small first read of an existing file (an analysis job's) then runs through colldiag
   (bench-bridge's call: 0.44 ms, HDF5's 1.5 ms). 1: let HDF5 run the call. */
static int h5_defer_fetch(h5_dentry *e, const colldiag_xfer *x)
{
    if (!(x->bridge_global >> 8 & 1)) return 0; /* no waiting rank's flush writes anything */
    /* rank 0's thresholds (agree_env): a rank that flushes while another lets HDF5 run the call would hang */
    const uint64_t defers = x->bridge_global >> 4 & 15; /* waiting ranks' counts, ORed: never below any of them */
    if (x->bridge_max_bytes >= x->fetch_bytes || defers >= x->fetch_calls) return 0;
    e->defers = defers + 1;
    return 1;
}


static int h5_transfer(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *wbuf, void *rbuf,
                       colldiag_xfer *x, int dir, const char *fn)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    const colldiag_chunk_opt_t asked = x->set.chunk_opt;
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    int rc = h5_dxpl_mode(dxpl, &mode, fn);
    if (rc) { snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf); return rc; }
    const int collective = mode == H5FD_MPIO_COLLECTIVE;
    H5O_info_t oi;
    h5_fentry *fe = NULL;
    if (h5_identify(dset, &oi)) rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
    if (!rc) rc = h5_bridge_file(dset, oi.fileno, collective, &fe, fn); /* collective calls meet here first */
    colldiag_file *f = fe ? fe->f : NULL;
    h5_located lo;
    if (!rc) h5_locate(dset, &oi, fe, &lo);
    if (!rc && collective && h5_small_first_call(dset, lo.e, fe, lo.rank, lo.dims)) {
        /* HDF5 runs it, decided alike on every rank without an agreement, before the rest of the DXPL is
           read (its data transform costs an HDF5 error pushed and cleared: ~3.6 us, a tenth of such a
           call). The reason as far as this rank knows the dataset (the decision is alike everywhere, the
           words need not be). */
        const h5_dentry *e = lo.e;
        rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", !e->learned ? h5_unlearned_why : h5_has_text(e->never) ? e->never : h5_small_call_why);
    }
    if (rc) {
        x->set.chunk_opt = asked;
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return rc;
    }
    /* from here on a collective call reaches colldiag's agreement on every rank, whatever it finds (a
       DXPL whose settings cannot be read included: every rank then leaves the call to HDF5) */
    char why[512] = "";
    const int rest = h5_dxpl_rest(dxpl, mode, x, fn);
    if (rest) {
        if (!collective) {
            x->set.chunk_opt = asked;
            snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
            return rest;
        }
        h5_copy(why, sizeof why, cd_errbuf);
    }
    x->set.chunk_opt = asked == COLLDIAG_MPIO_CHUNK_DEFAULT ? COLLDIAG_MPIO_CHUNK_AUTO : asked; /* the scheme is colldiag's */
    colldiag_sel *fs = NULL, *ms = NULL;
    hsize_t dims[COLLDIAG_MAX_RANK];
    h5_dentry *e = lo.e;
    const int rank = lo.rank;
    int need = 0;
    uint64_t need_bytes = 0;
    h5_prepare(dset, &oi, mem_type, mem_space, file_space, x, dir, collective, fe, &lo, &fs, &ms, dims, &need, why, sizeof why, 1, &need_bytes);
    h5_fetch_env(&x->env_fetch_bytes, &x->env_fetch_calls); /* for the agreement: rank 0's decide (h5_defer_fetch) */
    for (int attempt = 0;; attempt++) {
        if (why[0] || need) {
            x->pre_code = COLLDIAG_ERR_UNSUPPORTED;
            x->pre_need_index = !why[0];
            x->pre_bytes = need ? need_bytes : 0;
            x->pre_defers = need ? e->defers : 0;
            x->pre_flush_writes = need && h5_file_writable(dset, fe) != 0; /* unknown: as if writable */
            snprintf(x->pre_msg, sizeof x->pre_msg, "%s", why[0] ? why : "waiting for the dataset's chunk index");
        }
        x->strict_alloc = 1;
        rc = cd_transfer(f, e && !need ? e->l : NULL, fs, ms, wbuf, rbuf, x, dir, fn);
        x->strict_alloc = 0;
        x->pre_code = x->pre_need_index = 0;
        x->pre_bytes = x->pre_defers = 0;
        x->pre_flush_writes = 0;
        if (!rc || !collective || (x->bridge_global & 3) != 1 || attempt > 0) break;
        /* every rank is healthy but some wait for the chunk index: fetch it together, then once more (or
           let HDF5 run a small call rather than flush) */
        if (h5_defer_fetch(e, x)) {
            rc = cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "%s", h5_small_call_why);
            snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
            break;
        }
        h5_fetch_index(dset, e, fe, rank, dims);
        need = 0;
        if (!e->l) snprintf(why, sizeof why, "%s", h5_text(e->why));
        else if (!fs) h5_read_call_sels(dset, mem_space, file_space, &fs, &ms, why, sizeof why); /* skipped while it waited */
    }
    x->set.chunk_opt = asked;
    x->env_fetch_bytes = x->env_fetch_calls = 0; /* a core call with this x has none */
    if (!rc) h5_set_actual(dxpl, x);
    if (collective && !h5_bridge_quiet) {
        char keep[sizeof cd_errbuf];
        snprintf(keep, sizeof keep, "%s", cd_errbuf);
        env_report(f, x);
        snprintf(cd_errbuf, sizeof cd_errbuf, "%s", keep);
    }
    colldiag_sel_free(fs);
    colldiag_sel_free(ms);
    return rc;
}

/* The bridge's entry points run every HDF5 call of theirs under one H5E_BEGIN_TRY: what fails there
   is an answer (HDF5 runs the call, or colldiag's error names it), never an HDF5 stack on stderr. One
   scope rather than one per query: each costs four API calls (H5Eauto_is_v2, H5Eget_auto2, two
   H5Eset_auto2), 24 of them a call when each query had its own. */
int colldiag_h5_write(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, const void *buf, colldiag_xfer *x)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_transfer(dset, mem_type, mem_space, file_space, dxpl, buf, NULL, x, DIR_WRITE, "colldiag_h5_write"); } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

int colldiag_h5_read(hid_t dset, hid_t mem_type, hid_t mem_space, hid_t file_space, hid_t dxpl, void *buf, colldiag_xfer *x)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_transfer(dset, mem_type, mem_space, file_space, dxpl, NULL, buf, x, DIR_READ, "colldiag_h5_read"); } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

/* H5Dwrite_multi / H5Dread_multi (HDF5 1.14) on 1.10: every dataset prepared as by h5_transfer, the
   chunk indexes the call lacks read together, then one colldiag multi-dataset call. All or nothing:
   a dataset colldiag cannot move on any rank makes every rank return COLLDIAG_ERR_UNSUPPORTED before
   a byte moves, and the caller runs HDF5's own calls. */
static int h5_transfer_multi(size_t count, const hid_t dsets[], const hid_t mem_types[], const hid_t mem_spaces[], const hid_t file_spaces[],
                             hid_t dxpl, const void *const wbufs[], void *const rbufs[], colldiag_xfer *x, int dir, const char *fn)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    /* dset_ids[0] names the file and its communicator, the DXPL whether the call is collective: a rank
       without them cannot take part (as f and x in colldiag_write_multi). Every other bad argument is
       found below and fails the call on every rank. */
    if (count > 0 && !dsets) return cd_fail(COLLDIAG_ERR_ARG, fn, "dset_ids is NULL with count = %zu", count);
    const colldiag_chunk_opt_t asked = x->set.chunk_opt;
    int rc = h5_dxpl_settings(dxpl, x, fn);
    if (rc) { snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf); return rc; }
    x->set.chunk_opt = asked == COLLDIAG_MPIO_CHUNK_DEFAULT ? COLLDIAG_MPIO_CHUNK_AUTO : asked;
    const int collective = x->set.mode == COLLDIAG_MPIO_COLLECTIVE;
    H5O_info_t oi0;
    h5_fentry *fe = NULL;
    if (count == 0 || h5_identify(dsets[0], &oi0))
        rc = cd_fail(COLLDIAG_ERR_ARG, fn, count ? "dset_ids[0] is not an open dataset" : "count is 0: nothing names the file");
    if (!rc) rc = h5_bridge_file(dsets[0], oi0.fileno, collective, &fe, fn);
    colldiag_file *f = fe ? fe->f : NULL;
    if (rc) {
        x->set.chunk_opt = asked;
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return rc;
    }
    /* from here on a collective call reaches colldiag's agreement on every rank, whatever it finds */
    h5_dentry **e = cd_calloc(count, sizeof *e);
    colldiag_sel **fs = cd_calloc(count, sizeof *fs), **ms = cd_calloc(count, sizeof *ms);
    const colldiag_layout **ls = cd_calloc(count, sizeof *ls);
    int *rk = cd_calloc(count, sizeof *rk), *need = cd_calloc(count + 1, sizeof *need);
    hsize_t(*dims)[COLLDIAG_MAX_RANK] = cd_calloc(count, sizeof *dims);
    char why[512] = "";
    int argcode = 0; /* a bad argument of this rank's (COLLDIAG_ERR_ARG), rather than a call colldiag cannot move */
    if (!mem_types || !mem_spaces || !file_spaces) {
        argcode = COLLDIAG_ERR_ARG;
        snprintf(why, sizeof why, "%s is NULL with count = %zu", !mem_types ? "mem_type_ids" : !mem_spaces ? "mem_space_ids" : "file_space_ids", count);
    }
    if (!why[0] && (!e || !fs || !ms || !ls || !rk || !need || !dims)) snprintf(why, sizeof why, "no memory for %zu datasets' entries", count);
    for (size_t i = 0; !why[0] && i < count; i++) {
        H5O_info_t oi;
        const int ie = h5_identify(dsets[i], &oi);
        char w[448] = "";
        if (ie < 0) snprintf(w, sizeof w, "not an open dataset");
        else if (oi.fileno != oi0.fileno) snprintf(w, sizeof w, "in another file than dataset 0 (one call moves one file's datasets)");
        else {
            h5_located lo;
            h5_locate(dsets[i], &oi, fe, &lo);
            e[i] = lo.e;
            rk[i] = lo.rank;
            h5_prepare(dsets[i], &oi, mem_types[i], mem_spaces[i], file_spaces[i], x, dir, collective, fe, &lo, &fs[i], &ms[i], dims[i],
                       &need[i + 1], w, sizeof w, 0, NULL);
        }
        if (w[0]) snprintf(why, sizeof why, "dataset %zu: %s", i, w);
    }
    /* the chunk indexes some rank lacks, read together (collective: flush and read), unless a dataset
       is ineligible somewhere and HDF5 runs the call anyway */
    if (collective && count) {
        int *g = cd_calloc(count + 1, sizeof *g);
        /* first whether every rank has memory and passes the same count (the second reduction's length;
           different lengths would be an MPI error, fatal by default): MIN of (memory, count, -count) */
        uint64_t mine[3] = {g != NULL && need, count, UINT64_MAX - count}, agreed[3];
        MPI_Allreduce(mine, agreed, 3, MPI_UINT64_T, MPI_MIN, f->comm);
        const int same_count = agreed[1] == UINT64_MAX - agreed[2], all = agreed[0] && same_count;
        if (!same_count && !why[0]) {
            argcode = COLLDIAG_ERR_ARG;
            snprintf(why, sizeof why, "the ranks pass different counts (%" PRIu64 " to %" PRIu64 " datasets)", agreed[1], UINT64_MAX - agreed[2]);
        }
        if (need) need[0] = why[0] != 0;
        if (all) MPI_Allreduce(need, g, (int)count + 1, MPI_INT, MPI_MAX, f->comm);
        for (size_t i = 0; all && !g[0] && i < count; i++)
            if (g[i + 1]) {
                h5_fetch_index(dsets[i], e[i], fe, rk[i], dims[i]);
                need[i + 1] = 0;
                if (!e[i]->l && !why[0]) snprintf(why, sizeof why, "dataset %zu: %s", i, h5_text(e[i]->why));
            }
        if (!all && !why[0]) snprintf(why, sizeof why, "no memory on some rank for the call's agreement");
        cd_free(g);
    }
    for (size_t i = 0; !why[0] && i < count; i++) {
        if (need[i + 1]) snprintf(why, sizeof why, "dataset %zu: the chunk addresses are not known yet", i);
        ls[i] = e[i]->l;
    }
    if (why[0]) {
        x->pre_code = argcode ? argcode : COLLDIAG_ERR_UNSUPPORTED;
        snprintf(x->pre_msg, sizeof x->pre_msg, "%s", why);
    }
    x->strict_alloc = 1;
    rc = cd_transfer_multi(f, why[0] ? 0 : count, ls, (const colldiag_sel *const *)fs, (const colldiag_sel *const *)ms, wbufs, rbufs, x, dir, fn);
    x->strict_alloc = 0;
    x->pre_code = x->pre_need_index = 0;
    if (rc == COLLDIAG_ERR_PEER && x->peer_code == COLLDIAG_ERR_UNSUPPORTED) rc = COLLDIAG_ERR_UNSUPPORTED; /* another rank's dataset: HDF5 runs it */
    x->set.chunk_opt = asked;
    if (!rc) h5_set_actual(dxpl, x);
    if (collective && !h5_bridge_quiet) multi_env_report(f, x);
    for (size_t i = 0; i < count; i++) {
        if (fs) colldiag_sel_free(fs[i]);
        if (ms) colldiag_sel_free(ms[i]);
    }
    cd_free(e);
    cd_free(fs);
    cd_free(ms);
    cd_free(ls);
    cd_free(rk);
    cd_free(need);
    cd_free(dims);
    return rc;
}

int colldiag_h5_write_multi(size_t count, const hid_t dset_ids[], const hid_t mem_type_ids[], const hid_t mem_space_ids[],
                            const hid_t file_space_ids[], hid_t dxpl, const void *const bufs[], colldiag_xfer *x)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY {
        rc = h5_transfer_multi(count, dset_ids, mem_type_ids, mem_space_ids, file_space_ids, dxpl, bufs, NULL, x, DIR_WRITE,
                               "colldiag_h5_write_multi");
    } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

int colldiag_h5_read_multi(size_t count, const hid_t dset_ids[], const hid_t mem_type_ids[], const hid_t mem_space_ids[],
                           const hid_t file_space_ids[], hid_t dxpl, void *const bufs[], colldiag_xfer *x)
{
    int rc;
    cd_env_enter();
    H5E_BEGIN_TRY {
        rc = h5_transfer_multi(count, dset_ids, mem_type_ids, mem_space_ids, file_space_ids, dxpl, NULL, bufs, x, DIR_READ,
                               "colldiag_h5_read_multi");
    } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

/* Drops the cache entries of the datasets of file *fileno (every file: NULL): the one at object
   address *addr, or all (addr NULL). Local. */
/* Drops one entry from the list and the index. */
static void h5_drop_dentry(h5_dentry *e)
{
    if (e->prev) e->prev->next = e->next;
    else h5_dsets = e->next;
    if (e->next) e->next->prev = e->prev;
    h5_unlink(e);
    h5_ndsets--;
    h5_dentry_free(e);
}

static void h5_forget_dsets(const unsigned long *fileno, const haddr_t *addr)
{
    if (fileno && addr) { /* one dataset (a creation at its address): its hash chain, not every entry (a
                             program creating its n-th dataset walked n-1 of them: 35 us a creation at 3,000) */
        h5_dentry *e = h5_hash_cap ? h5_hash_addr[h5_slot_addr(*fileno, *addr)] : NULL;
        while (e && !(e->fileno == *fileno && e->addr == *addr)) e = e->next_addr;
        if (e) h5_drop_dentry(e); /* at most one: h5_dataset makes one entry per (file, address) */
    } else {
        for (h5_dentry *e = h5_dsets, *next; e; e = next) {
            next = e->next;
            if ((!fileno || e->fileno == *fileno) && (!addr || e->addr == *addr)) h5_drop_dentry(e);
        }
    }
    if (!h5_ndsets) { /* nothing cached: the index goes too */
        cd_free(h5_hash_addr);
        cd_free(h5_hash_id);
        h5_hash_addr = h5_hash_id = NULL;
        h5_hash_cap = 0;
    }
}

void colldiag_h5_forget_datasets(hid_t obj)
{
    H5O_info_t oi;
    herr_t oe;
    H5E_BEGIN_TRY { oe = H5Oget_info2(obj, &oi, H5O_INFO_BASIC); } H5E_END_TRY;
    if (oe >= 0) h5_forget_dsets(&oi.fileno, NULL);
}

/* Drops the bridge's files (*fileno, or every one: NULL) with their communicators (collective over
   each, as closing the file is), and their datasets. */
static void h5_forget_files(const unsigned long *fileno)
{
    h5_forget_dsets(fileno, NULL);
    int fin = 0;
    MPI_Finalized(&fin);
    for (h5_fentry **pp = &h5_files; *pp;) {
        h5_fentry *e = *pp;
        if (fileno && e->fileno != *fileno) { pp = &e->next; continue; }
        *pp = e->next;
        if (!fin) {
            if (e->f->op != MPI_OP_NULL) MPI_Op_free(&e->f->op);
            if (e->f->comm != MPI_COMM_NULL) MPI_Comm_free(&e->f->comm);
        }
        cd_free(e->f);
        cd_free(e);
    }
}

void colldiag_h5_forget(hid_t obj)
{
    H5O_info_t oi;
    herr_t oe;
    H5E_BEGIN_TRY { oe = H5Oget_info2(obj, &oi, H5O_INFO_BASIC); } H5E_END_TRY;
    if (oe < 0) return;
    if (H5Iget_type(obj) == H5I_FILE) h5_forget_files(&oi.fileno);
    else h5_forget_dsets(&oi.fileno, &oi.addr);
}

int colldiag_h5_created(hid_t dset, hid_t dcpl)
{
    static const char fn[] = "colldiag_h5_created";
    int rc = 0;
    cd_env_enter();
    H5E_BEGIN_TRY {
        H5O_info_t oi;
        h5_fentry *fe = NULL;
        h5_dentry *e = NULL;
        if (H5Iget_type(dset) != H5I_DATASET || H5Oget_info2(dset, &oi, H5O_INFO_BASIC) < 0) {
            rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
        } else {
            /* whatever was cached at this address belonged to an object since deleted (an anonymous
               dataset closed, say): a new dataset starts afresh */
            h5_forget_dsets(&oi.fileno, &oi.addr);
            /* only where the bridge can ever move bytes: an MPI-IO file (found without communicating) */
            rc = h5_bridge_file(dset, oi.fileno, 0, &fe, fn);
        }
        if (!rc && !(e = h5_dataset(dset, &oi))) rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "no memory for the dataset's cache entry");
        if (!rc) {
            const hid_t p = dcpl == H5P_DEFAULT ? H5P_DATASET_CREATE_DEFAULT : dcpl;
            if (H5Pisa_class(p, H5P_DATASET_CREATE) <= 0)
                rc = cd_fail(COLLDIAG_ERR_ARG, fn, "dcpl is not a dataset creation property list");
            else
                h5_facts_of(dset, p, e);
        }
    } H5E_END_TRY;
    cd_env_leave();
    return rc;
}

#endif /* COLLDIAG_WITH_HDF5 */

/* ====================================================================================================
 * 12. Fortran support (colldiag.f90 binds these; everything else it binds directly)
 *
 * Fortran handles are MPI_Fint; the conversions are MPI's own. Kept here, not in the module, because
 * only C can call MPI_Comm_f2c and name stdout.
 * ==================================================================================================== */

int colldiag_file_open_f(MPI_Fint comm, const char *path, int amode, MPI_Fint info, colldiag_driver_t driver, colldiag_file **out)
{
    return colldiag_file_open(MPI_Comm_f2c(comm), path, amode, MPI_Info_f2c(info), driver, out);
}

int colldiag_file_wrap_f(MPI_Fint comm, MPI_Fint fh, colldiag_file **out)
{
    return colldiag_file_wrap(MPI_Comm_f2c(comm), MPI_File_f2c(fh), out);
}

int colldiag_report_print_stdout(colldiag_file *f, const colldiag_xfer *x)
{
    int rc = colldiag_report_print(f, x, stdout);
    fflush(stdout);
    return rc;
}
