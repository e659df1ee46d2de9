/* scenario_run — executes one scenario file (tests/scenarios/FORMAT.md) with colldiag.
 *
 *   mpirun -n R tests/scenario_run [--hdf5] [--rules] [--keep] FILE
 *
 * Writes the dataset image (element i holds i+1) with colldiag, checks every byte of the file
 * against an image the runner computes on its own (brute force over the dataset, not colldiag's
 * mapping), reads it back into a canary-filled buffer and checks every byte, and compares each rank's
 * reported chunk optimisation, I/O mode and causes with the `expect` lines and, with --rules, with the
 * runner's own reference of SPEC.md's rules. Exit 0 when all matched, 1 otherwise, 2 for a malformed file.
 * tests/fuzz_io.c includes this file (SCENARIO_NO_MAIN) and runs run_case on generated scenarios.
 */
#define _GNU_SOURCE
#include "colldiag.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CANARY 0xA5u
#define MAXR COLLDIAG_MAX_RANK
#define NAME_LEN 256
#define MSG_LEN 512

enum { OP_NONE, OP_ALL, OP_HYPER, OP_POINTS };

typedef struct {
    int kind;
    int op; /* COLLDIAG_SELECT_SET / OR */
    uint64_t start[MAXR], stride[MAXR], count[MAXR], block[MAXR];
    int has_stride, has_block;
    uint64_t npts;
    uint64_t *coords;
    int line;
} selop;

typedef struct {
    selop *ops;
    int n;
} selops;

typedef struct {
    int set;
    char chunk_opt[32], io_mode[32];
    uint32_t local, global;
} expect_t;

typedef struct {
    char name[NAME_LEN];
    int ranks, rank;
    uint64_t dims[MAXR];
    size_t elem;
    int layout; /* 0 contiguous, 1 chunked, 2 compact */
    uint64_t cdims[MAXR];
    int filtered;
    int mode, chunk_opt, coll_opt, driver;
    unsigned num, ratio;
    size_t conv;
    int xform;
    int space_null, space_scalar;
    int direction;     /* 0: colldiag writes, then reads back; 1: the runner writes the image, colldiag reads */
    int64_t *addrs;    /* chunk address table (chunk_addrs), -1 = unallocated; NULL = dense */
    uint64_t naddrs;
    size_t buffer;     /* colldiag_set_buffer, 0 = default */
    size_t coll_buffer; /* colldiag_set_coll_buffer, 0 = default */
    char *env[64];
    int nenv;
    selops *fsel;      /* per rank */
    int *mrank;        /* per rank: memory space rank (0 = packed, -1 null space, -2 scalar space) */
    uint64_t (*mdims)[MAXR];
    selops *msel;
    expect_t *exp;
    int expect_error;  /* rank with the bad argument, -1 none */
    int null_rank;     /* rank that passes a NULL pointer (null R ARG), -1 none */
    int null_what;     /* NULL_LAYOUT, NULL_FILESEL or NULL_BUF */
    int has_expect;
} scenario;

enum { NULL_LAYOUT, NULL_FILESEL, NULL_BUF };
static const char *const null_names[] = {"layout", "file_sel", "buf"};

static const char *g_file;
static int g_line;
static int g_me;

static void malformed(const char *fmt, ...)
{
    if (g_me == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "%s:%d: malformed scenario: ", g_file, g_line);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    MPI_Finalize();
    exit(2);
}

static uint64_t parse_u64(const char *t)
{
    if (!t) malformed("a number is missing");
    char *e;
    errno = 0;
    unsigned long long v = strtoull(t, &e, 10);
    if (*e || errno || *t == '-') malformed("'%s' is not a decimal number", t);
    return (uint64_t)v;
}

static int parse_rank_id(const char *t, const scenario *s)
{
    uint64_t r = parse_u64(t);
    if (s->ranks <= 0) malformed("'ranks' must come before per-rank lines");
    if (r >= (uint64_t)s->ranks) malformed("rank %s is outside 0..%d", t, s->ranks - 1);
    return (int)r;
}

static void alloc_ranks(scenario *s)
{
    s->fsel = calloc((size_t)s->ranks, sizeof *s->fsel);
    s->msel = calloc((size_t)s->ranks, sizeof *s->msel);
    s->mrank = calloc((size_t)s->ranks, sizeof *s->mrank);
    s->mdims = calloc((size_t)s->ranks, sizeof *s->mdims);
    s->exp = calloc((size_t)s->ranks, sizeof *s->exp);
}

static selop *push_op(selops *so)
{
    so->ops = realloc(so->ops, (size_t)(so->n + 1) * sizeof *so->ops);
    memset(&so->ops[so->n], 0, sizeof *so->ops);
    so->ops[so->n].line = g_line;
    return &so->ops[so->n++];
}

/* Parses "... hyperslab set|or start A.. [stride S..] count C.. [block B..]" or "points [set|or] N ..." or all/none. */
static void parse_sel(char **tok, int nt, int rank, selops *so)
{
    if (nt < 1) malformed("a selection is missing");
    selop *op = push_op(so);
    if (!strcmp(tok[0], "none")) { op->kind = OP_NONE; return; }
    if (!strcmp(tok[0], "all")) { op->kind = OP_ALL; return; }
    if (!strcmp(tok[0], "hyperslab")) {
        op->kind = OP_HYPER;
        if (nt < 2) malformed("hyperslab needs set or or");
        if (!strcmp(tok[1], "set")) op->op = COLLDIAG_SELECT_SET;
        else if (!strcmp(tok[1], "or")) op->op = COLLDIAG_SELECT_OR;
        else malformed("hyperslab operation '%s' is not set or or", tok[1]);
        int i = 2, have_start = 0, have_count = 0;
        while (i < nt) {
            uint64_t *dst;
            if (!strcmp(tok[i], "start")) { dst = op->start; have_start = 1; }
            else if (!strcmp(tok[i], "stride")) { dst = op->stride; op->has_stride = 1; }
            else if (!strcmp(tok[i], "count")) { dst = op->count; have_count = 1; }
            else if (!strcmp(tok[i], "block")) { dst = op->block; op->has_block = 1; }
            else malformed("unknown hyperslab keyword '%s'", tok[i]);
            for (int d = 0; d < rank; d++) {
                if (i + 1 + d >= nt) malformed("'%s' needs %d values", tok[i], rank);
                dst[d] = parse_u64(tok[i + 1 + d]);
            }
            i += 1 + rank;
        }
        if (!have_start || !have_count) malformed("hyperslab needs start and count");
        return;
    }
    if (!strcmp(tok[0], "points")) {
        op->kind = OP_POINTS;
        op->op = COLLDIAG_SELECT_SET;
        int i = 1;
        if (i < nt && (!strcmp(tok[i], "set") || !strcmp(tok[i], "or"))) {
            op->op = !strcmp(tok[i], "or") ? COLLDIAG_SELECT_OR : COLLDIAG_SELECT_SET;
            i++;
        }
        if (i >= nt) malformed("points needs a count");
        op->npts = parse_u64(tok[i++]);
        if ((uint64_t)(nt - i) != op->npts * (uint64_t)rank)
            malformed("points: %" PRIu64 " points need %" PRIu64 " coordinates, found %d", op->npts, op->npts * (uint64_t)rank, nt - i);
        op->coords = malloc((size_t)(op->npts * (uint64_t)rank + 1) * sizeof(uint64_t));
        for (uint64_t k = 0; k < op->npts * (uint64_t)rank; k++) op->coords[k] = parse_u64(tok[i + (int)k]);
        return;
    }
    malformed("unknown selection '%s'", tok[0]);
}

static int lookup(const char *t, const char *const *names, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(t, names[i])) return i;
    malformed("unknown %s '%s'", what, t);
    return -1;
}

__attribute__((unused)) static void parse(const char *path, scenario *s)
{
    FILE *fp = fopen(path, "r");
    if (!fp) { g_line = 0; malformed("cannot open: %s", strerror(errno)); }
    memset(s, 0, sizeof *s);
    s->elem = 4;
    s->layout = -1;
    s->mode = COLLDIAG_MPIO_COLLECTIVE;
    s->ratio = 60;
    s->expect_error = -1;
    s->null_rank = -1;
    const char *base = strrchr(path, '/');
    snprintf(s->name, sizeof s->name, "%s", base ? base + 1 : path);
    char *dot = strrchr(s->name, '.');
    if (dot && !strcmp(dot, ".scn")) *dot = 0;
    char *line = NULL;
    size_t cap = 0;
    g_line = 0;
    /* two passes: 'ranks' and 'dims' first, since per-rank lines may come before them */
    for (int pass = 0; pass < 2; pass++) {
        rewind(fp);
        g_line = 0;
        while (getline(&line, &cap, fp) >= 0) {
            g_line++;
            char *h = strchr(line, '#');
            if (h) *h = 0;
            char *tok[4096];
            int nt = 0;
            for (char *t = strtok(line, " \t\r\n"); t && nt < 4096; t = strtok(NULL, " \t\r\n")) tok[nt++] = t;
            if (nt == 0) continue;
            const char *k = tok[0];
            if (pass == 0) {
                if (!strcmp(k, "ranks")) {
                    if (nt != 2) malformed("ranks takes one number");
                    s->ranks = (int)parse_u64(tok[1]);
                    if (s->ranks < 1) malformed("ranks must be at least 1");
                } else if (!strcmp(k, "dims")) {
                    if (nt < 2 || nt - 1 > MAXR) malformed("dims takes 1..%d values", MAXR);
                    s->rank = nt - 1;
                    for (int d = 0; d < s->rank; d++) s->dims[d] = parse_u64(tok[1 + d]);
                }
                continue;
            }
            if (!strcmp(k, "ranks") || !strcmp(k, "dims")) continue;
            if (!strcmp(k, "name")) {
                size_t w = 0;
                s->name[0] = 0;
                for (int i = 1; i < nt; i++) w += (size_t)snprintf(s->name + w, sizeof s->name - w, "%s%s", i > 1 ? " " : "", tok[i]);
            } else if (!strcmp(k, "elem")) {
                if (nt != 2) malformed("elem takes one number");
                s->elem = (size_t)parse_u64(tok[1]);
                if (s->elem < 1 || s->elem > 64) malformed("elem must be 1..64 bytes");
            } else if (!strcmp(k, "layout")) {
                if (nt < 2) malformed("layout needs a kind");
                if (!strcmp(tok[1], "contiguous")) s->layout = 0;
                else if (!strcmp(tok[1], "compact")) s->layout = 2;
                else if (!strcmp(tok[1], "chunked")) {
                    s->layout = 1;
                    if (nt - 2 != s->rank) malformed("layout chunked needs %d chunk dims", s->rank);
                    for (int d = 0; d < s->rank; d++) s->cdims[d] = parse_u64(tok[2 + d]);
                } else malformed("unknown layout '%s'", tok[1]);
            } else if (!strcmp(k, "filtered")) {
                s->filtered = nt == 2 && parse_u64(tok[1]) != 0;
            } else if (!strcmp(k, "xfer")) {
                static const char *const n[] = {"independent", "collective"};
                if (nt != 2) malformed("xfer takes one word");
                s->mode = lookup(tok[1], n, 2, "transfer mode");
            } else if (!strcmp(k, "chunk_opt")) {
                static const char *const n[] = {"default", "one_io", "multi_io", "coll_chunk_atonce_io", "all_chunk_ind_io",
                                                "multi_io_no_opt", "aggregate_io", "auto"};
                if (nt != 2) malformed("chunk_opt takes one word");
                s->chunk_opt = lookup(tok[1], n, 8, "chunk_opt");
            } else if (!strcmp(k, "num")) {
                if (nt != 2) malformed("num takes one number");
                s->num = (unsigned)parse_u64(tok[1]);
            } else if (!strcmp(k, "ratio")) {
                if (nt != 2) malformed("ratio takes one number");
                s->ratio = (unsigned)parse_u64(tok[1]);
            } else if (!strcmp(k, "coll_opt")) {
                static const char *const n[] = {"collective_io", "individual_io"};
                if (nt != 2) malformed("coll_opt takes one word");
                s->coll_opt = lookup(tok[1], n, 2, "coll_opt");
            } else if (!strcmp(k, "driver")) {
                static const char *const n[] = {"mpio", "posix"};
                if (nt != 2) malformed("driver takes one word");
                s->driver = lookup(tok[1], n, 2, "driver");
            } else if (!strcmp(k, "conversion")) {
                if (nt != 2) malformed("conversion takes one number");
                s->conv = (size_t)parse_u64(tok[1]);
                if (s->conv != 4 && s->conv != 8) malformed("conversion MEMBYTES must be 4 or 8");
            } else if (!strcmp(k, "transform")) {
                s->xform = nt == 2 && parse_u64(tok[1]) != 0;
            } else if (!strcmp(k, "space")) {
                if (nt != 2 || (strcmp(tok[1], "null") && strcmp(tok[1], "scalar"))) malformed("space takes 'null' or 'scalar'");
                if (!strcmp(tok[1], "null")) s->space_null = 1;
                else s->space_scalar = 1;
            } else if (!strcmp(k, "direction")) {
                static const char *const n[] = {"both", "read"};
                if (nt != 2) malformed("direction takes one word");
                s->direction = lookup(tok[1], n, 2, "direction");
            } else if (!strcmp(k, "buffer")) {
                if (nt != 2) malformed("buffer takes one number");
                s->buffer = (size_t)parse_u64(tok[1]);
            } else if (!strcmp(k, "coll_buffer")) {
                if (nt != 2) malformed("coll_buffer takes one number");
                s->coll_buffer = (size_t)parse_u64(tok[1]);
            } else if (!strcmp(k, "chunk_addrs")) {
                free(s->addrs);
                s->naddrs = (uint64_t)(nt - 1);
                s->addrs = malloc((size_t)(nt) * sizeof *s->addrs);
                for (int i = 1; i < nt; i++) s->addrs[i - 1] = !strcmp(tok[i], "-1") ? -1 : (int64_t)parse_u64(tok[i]);
            } else if (!strcmp(k, "env")) {
                if (nt != 2 || !strchr(tok[1], '=')) malformed("env takes NAME=VALUE");
                if (s->nenv < 64) s->env[s->nenv++] = strdup(tok[1]);
            } else if (!strcmp(k, "sel") || !strcmp(k, "mem")) {
                if (!s->fsel) alloc_ranks(s);
                if (nt < 3) malformed("%s needs a rank and a selection", k);
                int r = parse_rank_id(tok[1], s);
                if (!strcmp(k, "mem") && (!strcmp(tok[2], "null") || !strcmp(tok[2], "scalar"))) {
                    if (nt != 3) malformed("mem R %s takes nothing more", tok[2]);
                    s->mrank[r] = !strcmp(tok[2], "null") ? -1 : -2;
                    s->msel[r].n = 0;
                    continue;
                }
                if (!strcmp(k, "mem") && !strcmp(tok[2], "dims")) {
                    if (nt - 3 < 1 || nt - 3 > MAXR) malformed("mem dims takes 1..%d values", MAXR);
                    s->mrank[r] = nt - 3;
                    for (int d = 0; d < nt - 3; d++) s->mdims[r][d] = parse_u64(tok[3 + d]);
                    s->msel[r].n = 0; /* a new memory space starts with ALL */
                    continue;
                }
                if (!strcmp(k, "mem") && s->mrank[r] <= 0) malformed("mem %d: 'mem R dims' must come first (null and scalar spaces take no selection)", r);
                parse_sel(tok + 2, nt - 2, !strcmp(k, "sel") ? s->rank : s->mrank[r], !strcmp(k, "sel") ? &s->fsel[r] : &s->msel[r]);
            } else if (!strcmp(k, "expect")) {
                if (!s->fsel) alloc_ranks(s);
                if (nt != 6) malformed("expect takes: R CHUNK_OPT IO_MODE LOCAL GLOBAL");
                int r = parse_rank_id(tok[1], s);
                expect_t *e = &s->exp[r];
                e->set = 1;
                snprintf(e->chunk_opt, sizeof e->chunk_opt, "%s", tok[2]);
                snprintf(e->io_mode, sizeof e->io_mode, "%s", tok[3]);
                char *end;
                e->local = (uint32_t)strtoul(tok[4], &end, 16);
                if (*end) malformed("'%s' is not a hex cause", tok[4]);
                e->global = (uint32_t)strtoul(tok[5], &end, 16);
                if (*end) malformed("'%s' is not a hex cause", tok[5]);
                s->has_expect = 1;
            } else if (!strcmp(k, "null")) { /* null R layout|file_sel|buf: rank R passes NULL for that argument */
                if (!s->fsel) alloc_ranks(s);
                if (nt != 3) malformed("null takes a rank and layout, file_sel or buf");
                s->null_rank = parse_rank_id(tok[1], s);
                s->null_what = -1;
                for (int i = 0; i < 3; i++)
                    if (!strcmp(tok[2], null_names[i])) s->null_what = i;
                if (s->null_what < 0) malformed("'%s' is not layout, file_sel or buf", tok[2]);
            } else if (!strcmp(k, "expect_error")) {
                if (!s->fsel) alloc_ranks(s);
                if (nt != 2) malformed("expect_error takes a rank");
                s->expect_error = parse_rank_id(tok[1], s);
            } else {
                malformed("unknown directive '%s'", k);
            }
        }
    }
    free(line);
    fclose(fp);
    g_line = 0;
    if (s->ranks <= 0) malformed("'ranks' is required");
    if (s->rank <= 0) malformed("'dims' is required");
    if (s->layout < 0) malformed("'layout' is required");
    if (!s->fsel) alloc_ranks(s);
    if (s->filtered && s->layout != 1) malformed("'filtered 1' needs a chunked layout");
    if ((s->conv || s->xform) && s->elem > 8) malformed("conversion and transform need elem <= 8 (integer elements)");
    if (s->space_null && s->space_scalar) malformed("space is null or scalar, not both");
    if (s->space_scalar)
        for (int d = 0; d < s->rank; d++)
            if (s->dims[d] != 1) malformed("space scalar needs dims of 1 (a one-element dataset)");
    if (s->addrs) {
        uint64_t nc = 1;
        for (int d = 0; d < s->rank && s->layout == 1; d++) nc *= (s->dims[d] + s->cdims[d] - 1) / s->cdims[d];
        if (s->layout != 1 || s->naddrs != nc) malformed("chunk_addrs needs a chunked layout and one address per chunk (%" PRIu64 ")", nc);
    }
}

/* ---- building colldiag selections ---- */

static int apply_ops(colldiag_sel *sel, const selops *so, int rank, char *err, size_t errlen)
{
    for (int i = 0; i < so->n; i++) {
        const selop *op = &so->ops[i];
        int rc = 0;
        switch (op->kind) {
        case OP_NONE: rc = colldiag_sel_select_none(sel); break;
        case OP_ALL: rc = colldiag_sel_select_all(sel); break;
        case OP_HYPER:
            rc = colldiag_sel_select_hyperslab(sel, (colldiag_seloper_t)op->op, op->start, op->has_stride ? op->stride : NULL,
                                               op->count, op->has_block ? op->block : NULL);
            break;
        case OP_POINTS: rc = colldiag_sel_select_elements(sel, (colldiag_seloper_t)op->op, op->npts, op->coords); break;
        }
        (void)rank;
        if (rc) {
            snprintf(err, errlen, "line %d: %s", op->line, colldiag_last_errmsg());
            return rc;
        }
    }
    return 0;
}

/* ---- the runner's own model of a selection: element offsets in iteration order (brute force) ---- */

static uint64_t prod(const uint64_t *d, int r)
{
    uint64_t p = 1;
    for (int i = 0; i < r; i++) p *= d[i];
    return p;
}

/* Returns the elements (linear offsets) in transfer order; *n their number; -1 if the ops are invalid. */
static int model_elems(const selops *so, int rank, const uint64_t *dims, uint64_t **out, uint64_t *n)
{
    uint64_t N = prod(dims, rank);
    unsigned char *bm = calloc((size_t)N + 1, 1);
    uint64_t *pts = NULL, np = 0;
    int is_points = 0;
    for (uint64_t i = 0; i < N; i++) bm[i] = 1; /* a new space has ALL */
    for (int i = 0; i < so->n; i++) {
        const selop *op = &so->ops[i];
        if (op->kind == OP_NONE || op->kind == OP_ALL) {
            memset(bm, op->kind == OP_ALL, (size_t)N);
            is_points = 0;
            np = 0;
        } else if (op->kind == OP_HYPER) {
            for (int d = 0; d < rank; d++) {
                uint64_t st = op->has_stride ? op->stride[d] : 1, bl = op->has_block ? op->block[d] : 1;
                if (op->count[d] && (bl == 0 || (op->count[d] > 1 && st < bl) ||
                                     op->start[d] + (op->count[d] - 1) * st + bl > dims[d])) {
                    free(bm); free(pts);
                    return -1;
                }
            }
            if (op->op == COLLDIAG_SELECT_SET || is_points) { memset(bm, 0, (size_t)N); is_points = 0; np = 0; }
            for (uint64_t e = 0; e < N; e++) {
                uint64_t off = e;
                int in = 1;
                for (int d = rank - 1; d >= 0 && in; d--) {
                    uint64_t c = off % dims[d];
                    off /= dims[d];
                    uint64_t st = op->has_stride ? op->stride[d] : 1, bl = op->has_block ? op->block[d] : 1;
                    if (c < op->start[d] || op->count[d] == 0) { in = 0; break; }
                    uint64_t rel = c - op->start[d];
                    if (op->count[d] == 1) in = rel < bl; /* HDF5 allows any stride with one block */
                    else if (rel / st >= op->count[d] || rel % st >= bl) in = 0;
                }
                if (in) bm[e] = 1;
            }
        } else {
            if (op->op == COLLDIAG_SELECT_SET || !is_points) np = 0;
            is_points = 1;
            pts = realloc(pts, (size_t)(np + op->npts + 1) * sizeof *pts);
            for (uint64_t k = 0; k < op->npts; k++) {
                uint64_t off = 0;
                for (int d = 0; d < rank; d++) {
                    uint64_t c = op->coords[k * (uint64_t)rank + (uint64_t)d];
                    if (c >= dims[d]) { free(bm); free(pts); return -1; }
                    off = off * dims[d] + c;
                }
                for (uint64_t j = 0; j < np; j++)
                    if (pts[j] == off) { free(bm); free(pts); return -1; }
                pts[np++] = off;
            }
        }
    }
    if (is_points) {
        free(bm);
        *out = pts;
        *n = np;
        return 0;
    }
    free(pts);
    uint64_t c = 0;
    for (uint64_t e = 0; e < N; e++) c += bm[e];
    uint64_t *r = malloc((size_t)(c + 1) * sizeof *r);
    c = 0;
    for (uint64_t e = 0; e < N; e++)
        if (bm[e]) r[c++] = e;
    free(bm);
    *out = r;
    *n = c;
    return 0;
}

/* ---- values ---- */

typedef struct {
    size_t elem, mbytes;
} convctx;

static uint64_t mask_of(size_t elem) { return elem >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * elem)) - 1); }
/* An element's bytes: the value little-endian; past 8 bytes (odd wide elements) the low bytes again, mixed
   with the byte's position, so a misplaced byte inside a wide element still shows. */
static void put_le(unsigned char *p, uint64_t v, size_t w)
{
    for (size_t i = 0; i < w; i++) p[i] = (unsigned char)(i < 8 ? v >> (8 * i) : (v >> (8 * (i % 8))) ^ (0x5bu * i));
}
static uint64_t get_le(const unsigned char *p, size_t w)
{
    uint64_t v = 0;
    for (size_t i = 0; i < w; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Whose rules colldiag follows here: HDF5 1.14's where the HDF5 this runner is linked with (the oracle)
   is 1.14 or later, or env COLLDIAG_HDF5_RULES=1.14 says so; else HDF5 1.10's (SPEC.md). The scenarios'
   expect lines are HDF5 1.10.8's answers: under 1.14's rules the oracle and the reference below check. */
static int rules_114(void)
{
    const char *e = getenv("COLLDIAG_HDF5_RULES");
    if (e && *e) return !strcmp(e, "1.14") || !strcmp(e, "114");
#ifdef COLLDIAG_WITH_HDF5
    unsigned v[3] = {0, 0, 0};
    H5get_libversion(&v[0], &v[1], &v[2]);
    return v[0] > 1 || (v[0] == 1 && v[1] >= 14);
#else
    return 0;
#endif
}

/* HDF5 1.14's reasons for no selection I/O on rank r (0: selection I/O), H5D_SEL_IO_* bits: filtered;
   compact; a read (the runner opens the file read-only to read) of chunks that fit the 1 MiB chunk
   cache; a conversion whose buffer for the call exceeds the conversion buffer (in place only for a read
   of one piece whose memory is its whole extent, as colldiag.h documents). */
static uint32_t rules_sel_io(const scenario *s, int dir, uint64_t nelem, uint64_t npieces, int mem_all)
{
    uint32_t c = 0;
    if (s->layout == 2) c |= 0x0002;
    if (s->filtered) c |= 0x0020;
    uint64_t cbytes = s->elem;
    for (int d = 0; d < s->rank; d++) cbytes *= s->cdims[d];
    if (s->layout == 1 && dir == 1 && cbytes <= ((uint64_t)1 << 20)) c |= 0x0040;
    if (s->conv && !c) {
        const uint64_t big = (uint64_t)(s->conv > s->elem ? s->conv : s->elem);
        const int in_place = dir == 1 && (unsigned)s->conv >= (unsigned)s->elem && npieces <= 1 && mem_all;
        const uint64_t buf = s->buffer ? s->buffer : ((uint64_t)1 << 20);
        if (!in_place && nelem * big > buf) c |= 0x0080;
    }
    return c;
}

static int conv_fn(const void *src, void *dst, size_t n, colldiag_direction_t dir, void *vctx)
{
    const convctx *c = vctx;
    for (size_t i = 0; i < n; i++) {
        if (dir == COLLDIAG_TO_FILE) {
            const unsigned char *m = (const unsigned char *)src + i * c->mbytes;
            uint64_t u;
            if (c->mbytes == 8) { double v; memcpy(&v, m, 8); u = (uint64_t)(int64_t)v; }
            else { int32_t v; memcpy(&v, m, 4); u = (uint64_t)(int64_t)v; }
            put_le((unsigned char *)dst + i * c->elem, u & mask_of(c->elem), c->elem);
        } else {
            uint64_t u = get_le((const unsigned char *)src + i * c->elem, c->elem);
            unsigned char *m = (unsigned char *)dst + i * c->mbytes;
            if (c->mbytes == 8) { double v = (double)u; memcpy(m, &v, 8); }
            else { int32_t v = (int32_t)(uint32_t)u; memcpy(m, &v, 4); }
        }
    }
    return 0;
}

static int xform_fn(void *f, size_t n, colldiag_direction_t dir, void *vctx)
{
    const convctx *c = vctx;
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = (unsigned char *)f + i * c->elem;
        uint64_t u = get_le(p, c->elem);
        u = dir == COLLDIAG_TO_FILE ? u + 1 : u - 1;
        put_le(p, u & mask_of(c->elem), c->elem);
    }
    return 0;
}

/* The memory bytes that pair with file element e: on write, what the buffer must hold so the file gets
   e+1; on read, what must come back. Both go through the same conversion as colldiag uses. */
static void mem_value(const scenario *s, const convctx *c, uint64_t e, unsigned char *out)
{
    unsigned char fe[64];
    uint64_t v = (e + 1) & mask_of(s->elem);
    if (s->xform) v = (v - 1) & mask_of(s->elem);
    put_le(fe, v, s->elem);
    if (s->conv) conv_fn(fe, out, 1, COLLDIAG_TO_MEMORY, (void *)c);
    else memcpy(out, fe, s->elem);
}

/* ---- file image ---- */

static uint64_t storage_bytes(const scenario *s, MPI_Offset base)
{
    uint64_t N = prod(s->dims, s->rank);
    if (s->layout != 1) return (uint64_t)base + N * s->elem;
    uint64_t nc = 1, ce = 1;
    for (int d = 0; d < s->rank; d++) {
        nc *= (s->dims[d] + s->cdims[d] - 1) / s->cdims[d];
        ce *= s->cdims[d];
    }
    if (s->addrs) { /* a table: the file ends after its last allocated chunk */
        uint64_t end = (uint64_t)base;
        for (uint64_t c = 0; c < s->naddrs; c++)
            if (s->addrs[c] >= 0 && (uint64_t)s->addrs[c] + ce * s->elem > end) end = (uint64_t)s->addrs[c] + ce * s->elem;
        return end;
    }
    return (uint64_t)base + nc * ce * s->elem;
}

#define NOT_STORED UINT64_MAX /* elem_addr of an element in an unallocated chunk */

static uint64_t elem_addr(const scenario *s, MPI_Offset base, uint64_t e)
{
    if (s->layout != 1) return (uint64_t)base + e * s->elem;
    uint64_t c[MAXR], off = e, ci = 0, co = 0, ce = 1;
    for (int d = s->rank - 1; d >= 0; d--) { c[d] = off % s->dims[d]; off /= s->dims[d]; }
    for (int d = 0; d < s->rank; d++) {
        uint64_t g = (s->dims[d] + s->cdims[d] - 1) / s->cdims[d];
        ci = ci * g + c[d] / s->cdims[d];
        co = co * s->cdims[d] + c[d] % s->cdims[d];
        ce *= s->cdims[d];
    }
    if (s->addrs) return s->addrs[ci] < 0 ? NOT_STORED : (uint64_t)s->addrs[ci] + co * s->elem;
    return (uint64_t)base + (ci * ce + co) * s->elem;
}

/* The chunk-grid index of element e (chunked layouts). */
static uint64_t elem_chunk(const scenario *s, uint64_t e)
{
    uint64_t c[MAXR], off = e, ci = 0;
    for (int d = s->rank - 1; d >= 0; d--) { c[d] = off % s->dims[d]; off /= s->dims[d]; }
    for (int d = 0; d < s->rank; d++) ci = ci * ((s->dims[d] + s->cdims[d] - 1) / s->cdims[d]) + c[d] / s->cdims[d];
    return ci;
}

static const char *errname(int rc)
{
    switch (rc) {
    case COLLDIAG_OK: return "OK";
    case COLLDIAG_ERR_ARG: return "ERR_ARG";
    case COLLDIAG_ERR_NOMEM: return "ERR_NOMEM";
    case COLLDIAG_ERR_MPI: return "ERR_MPI";
    case COLLDIAG_ERR_IO: return "ERR_IO";
    case COLLDIAG_ERR_UNSUPPORTED: return "ERR_UNSUPPORTED";
    case COLLDIAG_ERR_PEER: return "ERR_PEER";
    default: return "ERR_?";
    }
}


#ifdef COLLDIAG_WITH_HDF5
/* ---- HDF5 as the oracle: the same write through parallel HDF5, its three answers per rank ---- */

typedef struct {
    int ran;              /* 1 ran, 0 n/a */
    int rc;
    int chunk_opt, io_mode;
    uint32_t local, global;
    uint64_t risk;        /* colldiag_h5_plan's bytes at risk of this very call, before HDF5 ran it (every rank alike) */
    char why[512];        /* ... and in words */
} h5res_t;

static int h5_apply(hid_t space, const selops *so, int rank)
{
    for (int i = 0; i < so->n; i++) {
        const selop *op = &so->ops[i];
        herr_t e = 0;
        hsize_t st[MAXR], sr[MAXR], cn[MAXR], bl[MAXR];
        for (int d = 0; d < rank; d++) {
            st[d] = op->start[d];
            sr[d] = op->has_stride ? op->stride[d] : 1;
            cn[d] = op->count[d];
            bl[d] = op->has_block ? op->block[d] : 1;
        }
        switch (op->kind) {
        case OP_NONE: e = H5Sselect_none(space); break;
        case OP_ALL: e = H5Sselect_all(space); break;
        case OP_HYPER: {
            int empty = 0;
            for (int d = 0; d < rank; d++) empty |= cn[d] == 0;
            if (empty) e = op->op == COLLDIAG_SELECT_SET ? H5Sselect_none(space) : 0;
            else e = H5Sselect_hyperslab(space, op->op == COLLDIAG_SELECT_SET ? H5S_SELECT_SET : H5S_SELECT_OR, st, sr, cn, bl);
            break;
        }
        case OP_POINTS:
            if (op->npts == 0) e = op->op == COLLDIAG_SELECT_SET ? H5Sselect_none(space) : 0;
            else e = H5Sselect_elements(space, op->op == COLLDIAG_SELECT_SET ? H5S_SELECT_SET : H5S_SELECT_APPEND, op->npts,
                                        (const hsize_t *)op->coords);
            break;
        }
        if (e < 0) return -1;
    }
    return 0;
}

/* The chunk settings HDF5 would get: the scenario's, overridden by the COLLDIAG_* environment as colldiag
   does (HDF5 has no such variables). Returns 0 when HDF5 has the scheme. */
static int h5_settings(const scenario *s, int *opt, unsigned *num, unsigned *ratio)
{
    *opt = s->chunk_opt;
    *num = s->num;
    *ratio = s->ratio;
    const char *e = getenv("COLLDIAG_CHUNK_OPT");
    if (e && *e) {
        static const char *const n[] = {"default", "link", "multi"};
        *opt = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(e, n[i])) *opt = i;
        if (*opt < 0) return -1;
    }
    if ((e = getenv("COLLDIAG_CHUNK_OPT_NUM")) && *e) *num = (unsigned)strtoul(e, NULL, 10);
    if ((e = getenv("COLLDIAG_CHUNK_OPT_RATIO")) && *e) *ratio = (unsigned)strtoul(e, NULL, 10);
    return *opt <= 2 ? 0 : -1;
}

static const char *h5_na_reason(const scenario *s)
{
    int o;
    unsigned n, r;
    if (s->expect_error >= 0 && !s->filtered) return "an error scenario: HDF5 does not agree errors across ranks and would hang";
    if (s->driver == 1) return "the POSIX driver";
    if (h5_settings(s, &o, &n, &r)) return "a chunk optimization HDF5 1.10 does not have";
    if (s->elem != 1 && s->elem != 2 && s->elem != 4 && s->elem != 8) return "an element size without an HDF5 integer type";
    if (s->addrs) return "a chunk address table (HDF5 places its chunks itself)";
    if (s->direction == 1) return "a read-only scenario";
    if (s->space_scalar) return "a scalar dataspace";
    if (s->space_null && s->layout == 1)
        return "HDF5 1.10.8 and 1.14.5 refuse a write of a null dataspace to a chunked dataset on every rank; colldiag runs it with cause "
               "0x10, as SPEC.md asks";
    for (int r = 0; r < s->ranks; r++)
        if (s->mrank[r] < 0) return "a null or scalar memory space";
    return NULL;
}

/* Writes through HDF5; rank 0 then checks the HDF5 file's values. *data_ok: 1 same values as colldiag's image. */
static void h5_run(const scenario *s, MPI_Comm comm, const char *path, const void *wbuf, uint64_t nf, int me, h5res_t *res, int *data_ok)
{
    memset(res, 0, sizeof *res);
    *data_ok = 1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    res->ran = 1;
    hid_t ftype = s->elem == 1 ? H5T_STD_U8LE : s->elem == 2 ? H5T_STD_U16LE : s->elem == 4 ? H5T_STD_U32LE : H5T_STD_U64LE;
    hid_t mtype = s->conv == 8 ? H5T_NATIVE_DOUBLE : s->conv == 4 ? H5T_NATIVE_INT32 : ftype;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t hd[MAXR], hc[MAXR];
    for (int d = 0; d < s->rank; d++) { hd[d] = s->dims[d]; hc[d] = s->cdims[d]; }
    hid_t fspace = s->space_null ? H5Screate(H5S_NULL) : H5Screate_simple(s->rank, hd, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (s->layout == 1) {
        H5Pset_chunk(dcpl, s->rank, hc);
        if (s->filtered) H5Pset_deflate(dcpl, 1);
    } else if (s->layout == 2) {
        H5Pset_layout(dcpl, H5D_COMPACT);
    }
    hid_t dset = H5Dcreate2(file, "data", ftype, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t fsel = H5S_ALL, msel = H5S_ALL;
    int bad = file < 0 || dset < 0;
    if (!s->space_null && !bad) {
        fsel = H5Dget_space(dset);
        H5Sselect_none(fsel);
        bad |= h5_apply(fsel, &s->fsel[me], s->rank) < 0;
        if (s->mrank[me]) {
            hsize_t md[MAXR];
            for (int d = 0; d < s->mrank[me]; d++) md[d] = s->mdims[me][d];
            msel = H5Screate_simple(s->mrank[me], md, NULL);
            bad |= h5_apply(msel, &s->msel[me], s->mrank[me]) < 0;
        } else {
            hsize_t one = nf ? nf : 1;
            msel = H5Screate_simple(1, &one, NULL);
            if (!nf) H5Sselect_none(msel);
        }
    }
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    int opt;
    unsigned num, ratio;
    h5_settings(s, &opt, &num, &ratio);
    H5Pset_dxpl_mpio(dxpl, s->mode ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    if (opt == 1) H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_ONE_IO);
    if (opt == 2) H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_MULTI_IO);
    H5Pset_dxpl_mpio_chunk_opt_num(dxpl, num);
    H5Pset_dxpl_mpio_chunk_opt_ratio(dxpl, ratio);
    if (s->coll_opt) H5Pset_dxpl_mpio_collective_opt(dxpl, H5FD_MPIO_INDIVIDUAL_IO);
    if (s->xform) H5Pset_data_transform(dxpl, "x+1");
    /* colldiag's prediction of HDF5's own call, with exactly its arguments and bytes, before it runs: what
       HDF5 + MPI-IO will not leave in the file as written (colldiag_get_bytes_at_risk). The plan is
       collective exactly when the call is, and fails alike on every rank or on none */
    if (!bad) {
        colldiag_xfer *px = NULL;
        colldiag_file *pf = NULL;
        colldiag_xfer_create(&px);
        colldiag_set_plan_buffer(px, wbuf);
        if (colldiag_h5_plan(dset, mtype, msel, fsel, dxpl, COLLDIAG_TO_FILE, px, &pf) == 0) {
            colldiag_get_bytes_at_risk(px, &res->risk, NULL);
            snprintf(res->why, sizeof res->why, "%s", colldiag_risk_reason(px));
        }
        colldiag_file_close(pf);
        colldiag_xfer_free(px);
    }
    res->rc = bad ? -1 : H5Dwrite(dset, mtype, msel, fsel, dxpl, wbuf) < 0 ? -1 : 0;
    H5D_mpio_actual_chunk_opt_mode_t co = H5D_MPIO_NO_CHUNK_OPTIMIZATION;
    H5D_mpio_actual_io_mode_t im = H5D_MPIO_NO_COLLECTIVE;
    H5Pget_mpio_actual_chunk_opt_mode(dxpl, &co);
    H5Pget_mpio_actual_io_mode(dxpl, &im);
    H5Pget_mpio_no_collective_cause(dxpl, &res->local, &res->global);
    res->chunk_opt = (int)co;
    res->io_mode = (int)im;
    if (fsel != H5S_ALL) H5Sclose(fsel);
    if (msel != H5S_ALL) H5Sclose(msel);
    H5Pclose(dxpl);
    H5Pclose(dcpl);
    H5Sclose(fspace);
    if (dset >= 0) H5Dclose(dset);
    if (file >= 0) H5Fclose(file);
    H5Pclose(fapl);
    MPI_Barrier(comm);
    (void)data_ok;
}

/* Rank 0: the HDF5 file holds e+1 at every element some rank selected, 0 (the fill value) elsewhere. */
static int h5_check_data(const scenario *s, const char *path, const uint64_t *allel, uint64_t nall, char *why, size_t wl)
{
    if (s->space_null) return 1;
    uint64_t N = prod(s->dims, s->rank);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dset = file >= 0 ? H5Dopen2(file, "data", H5P_DEFAULT) : -1;
    uint64_t *v = calloc((size_t)N + 1, sizeof *v), *want = calloc((size_t)N + 1, sizeof *want);
    int ok = dset >= 0 && H5Dread(dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0;
    if (!ok) snprintf(why, wl, "HDF5 could not read its own file");
    for (uint64_t i = 0; i < nall; i++) want[allel[i]] = (allel[i] + 1) & mask_of(s->elem);
    for (uint64_t e = 0; ok && e < N; e++)
        if (v[e] != want[e]) {
            snprintf(why, wl, "HDF5's file holds %" PRIu64 " at element %" PRIu64 ", colldiag's image %" PRIu64, v[e], e, want[e]);
            ok = 0;
        }
    free(v);
    free(want);
    if (dset >= 0) H5Dclose(dset);
    if (file >= 0) H5Fclose(file);
    return ok;
}
#endif

typedef struct {
    int rc, chunk_opt, io_mode;
    uint32_t local, global;
    char msg[MSG_LEN];
} result_t;

/* What each rank's colldiag_get_chunk_info said, gathered on rank 0: rank r's chunks are
   v[off[r] .. off[r+1]), four numbers each (index, nelem, collective, nproc as int64). */
typedef struct { uint64_t *v, *off; } chunkrep_t;

static int me_in(MPI_Comm comm)
{
    int r;
    MPI_Comm_rank(comm, &r);
    return r;
}

/* One transfer on every rank of comm; results gathered on its rank 0 (res has s->ranks entries there). */
static void transfer(const scenario *s, MPI_Comm comm, const char *path, int dir, colldiag_layout *l, colldiag_sel *fsel,
                     colldiag_sel *msel, int sel_failed, const char *sel_err, void *buf, const convctx *cc, result_t *res,
                     chunkrep_t *cr)
{
    result_t mine;
    memset(&mine, 0, sizeof mine);
    uint64_t *civ = NULL, nci = 0;
    colldiag_file *f = NULL;
    int amode = dir == 0 ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
    int rc = colldiag_file_open(comm, path, amode, MPI_INFO_NULL, (colldiag_driver_t)s->driver, &f);
    if (rc) {
        mine.rc = rc;
        snprintf(mine.msg, sizeof mine.msg, "file_open: %s", colldiag_last_errmsg());
    } else {
        colldiag_xfer *x;
        colldiag_xfer_create(&x);
        colldiag_set_dxpl_mpio(x, (colldiag_xfer_mode_t)s->mode);
        colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)s->chunk_opt);
        colldiag_set_dxpl_mpio_chunk_opt_num(x, s->num);
        if (colldiag_set_dxpl_mpio_chunk_opt_ratio(x, s->ratio)) mine.rc = COLLDIAG_ERR_ARG;
        colldiag_set_dxpl_mpio_collective_opt(x, (colldiag_collective_opt_t)s->coll_opt);
        if (s->conv) colldiag_set_type_conversion(x, s->conv, conv_fn, (void *)cc);
        if (s->xform) colldiag_set_data_transform(x, xform_fn, (void *)cc);
        if (s->buffer) colldiag_set_buffer(x, s->buffer);
        if (s->coll_buffer) colldiag_set_coll_buffer(x, s->coll_buffer);
        if (rules_114()) colldiag_set_hdf5_rules(x, COLLDIAG_HDF5_RULES_1_14);
        /* a selection that could not be built is passed as NULL: the collective call must then fail
           on every rank, which is what the scenario checks */
        const colldiag_sel *fs = sel_failed ? NULL : fsel;
        /* null R ARG: this rank passes NULL for that argument (the call must fail everywhere, never crash) */
        const int nul = s->null_rank == me_in(comm) ? s->null_what : -1;
        const colldiag_layout *la = nul == NULL_LAYOUT ? NULL : l;
        if (nul == NULL_FILESEL) fs = NULL;
        if (nul == NULL_BUF) buf = NULL;
        rc = dir == 0 ? colldiag_write(f, la, fs, msel, buf, x) : colldiag_read(f, la, fs, msel, buf, x);
        mine.rc = rc;
        colldiag_actual_chunk_opt_mode_t co;
        colldiag_actual_io_mode_t im;
        colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
        colldiag_get_mpio_actual_io_mode(x, &im);
        colldiag_get_mpio_no_collective_cause(x, &mine.local, &mine.global);
        mine.chunk_opt = (int)co;
        mine.io_mode = (int)im;
        const colldiag_chunk_info *ci = NULL;
        if (!rc && colldiag_get_chunk_info(x, &nci, &ci) == 0) {
            civ = malloc((size_t)(4 * nci + 1) * sizeof *civ);
            for (uint64_t k = 0; k < nci; k++) {
                civ[4 * k] = ci[k].index;
                civ[4 * k + 1] = ci[k].nelem;
                civ[4 * k + 2] = (uint64_t)ci[k].collective;
                civ[4 * k + 3] = (uint64_t)(int64_t)ci[k].nproc;
            }
        } else nci = 0;
        if (rc) snprintf(mine.msg, sizeof mine.msg, "%s%s%s", sel_failed ? sel_err : "", sel_failed ? " / " : "", colldiag_xfer_errmsg(x));
        colldiag_xfer_free(x);
        int crc = colldiag_file_close(f);
        if (crc && !rc) { mine.rc = crc; snprintf(mine.msg, sizeof mine.msg, "file_close: %s", colldiag_last_errmsg()); }
    }
    MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, res, (int)sizeof mine, MPI_BYTE, 0, comm);
    /* the chunk info, for the rules */
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    uint64_t n4 = 4 * nci, *all = me == 0 ? malloc((size_t)P * sizeof *all) : NULL;
    MPI_Gather(&n4, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, comm);
    int *cnt = NULL, *dsp = NULL;
    if (me == 0) {
        cnt = malloc((size_t)P * sizeof *cnt);
        dsp = malloc((size_t)P * sizeof *dsp);
        cr->off = malloc((size_t)(P + 1) * sizeof *cr->off);
        cr->off[0] = 0;
        for (int r = 0; r < P; r++) { cnt[r] = (int)all[r]; dsp[r] = (int)cr->off[r]; cr->off[r + 1] = cr->off[r] + all[r]; }
        cr->v = malloc((size_t)(cr->off[P] + 1) * sizeof *cr->v);
    }
    MPI_Gatherv(civ, (int)n4, MPI_UINT64_T, me == 0 ? cr->v : NULL, cnt, dsp, MPI_UINT64_T, 0, comm);
    free(civ);
    free(all);
    free(cnt);
    free(dsp);
}

/* ---- the rules of SPEC.md sections 2-4: the runner's own small reference, never colldiag's code ---- */

typedef struct { int chunk_opt, io_mode; uint32_t local, global; } rule_t;
/* one chunk a rank touched: grid index, the rank's elements in it, collective or not, ranks touching it */
typedef struct { uint64_t idx, nelem; int coll, nproc; } rchunk_t;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every rank's expected (chunk_opt, io_mode, causes) for one call (dir 0 write, 1 read), from the scenario,
   the environment the call saw, and each rank's selected file elements (allel, counts per rank); and, in
   ch[choff[r] .. choff[r+1]), the chunks rank r touched, ascending. AUTO's choice is not predicted: the
   caller names the scheme it ran (scheme) and checks whether the rules of that scheme hold. */
static void rules_expect(const scenario *s, int P, int dir, int scheme, const uint64_t *allel, const uint64_t *counts,
                         rule_t *out, rchunk_t *ch, uint64_t *choff)
{
    static const char *const envn[] = {"default", "link", "multi", "atonce", "ind", "multi_no_opt", "aggregate", "auto"};
    int opt = s->chunk_opt;
    unsigned num = s->num, ratio = s->ratio;
    const char *e = getenv("COLLDIAG_CHUNK_OPT");
    if (e)
        for (int i = 0; i < 8; i++)
            if (!strcmp(e, envn[i])) opt = i;
    if ((e = getenv("COLLDIAG_CHUNK_OPT_NUM"))) num = (unsigned)strtoul(e, NULL, 10);
    if ((e = getenv("COLLDIAG_CHUNK_OPT_RATIO"))) ratio = (unsigned)strtoul(e, NULL, 10);
    e = getenv("COLLDIAG_MPI_OPT_TYPES");
    if (!e) e = getenv("HDF5_MPI_OPT_TYPES");
    uint32_t common = 0;
    if (s->mode == COLLDIAG_MPIO_INDEPENDENT) common |= 0x01;
    if (s->conv) common |= 0x02;
    if (s->xform) common |= 0x04;
    if (e && e[0] == '0') common |= 0x08;
    if (s->space_null) common |= 0x10;
    if (s->layout == 2) common |= 0x20;
    if (s->filtered && dir == 0) common |= 0x40;
    if (s->driver == 1) common |= 0x10000;
    uint32_t global = 0;
    const int r114 = rules_114();
    int *sel_on = calloc((size_t)P, sizeof *sel_on);
    for (int r = 0; r < P; r++) {
        out[r].local = common | (s->mrank[r] == -1 ? 0x10u : 0u);
        if (r114) { /* HDF5 1.14: selection I/O keeps conversions and transforms collective */
            uint64_t np = 0;
            if (s->layout == 1) { /* this rank's chunks, for the conversion buffer's in-place case */
                uint64_t at0 = 0;
                for (int q = 0; q < r; q++) at0 += counts[q];
                for (uint64_t i = 0; i < counts[r] && np < 2; i++)
                    if (elem_chunk(s, allel[at0 + i]) != elem_chunk(s, allel[at0])) np = 2;
                if (counts[r] && np < 2) np = 1;
            }
            const int mem_all = s->mrank[r] > 0 && (s->msel[r].n == 0 || (s->msel[r].n == 1 && s->msel[r].ops[0].kind == OP_ALL));
            sel_on[r] = rules_sel_io(s, dir, counts[r], s->layout == 1 ? np : 1, mem_all) == 0;
            const uint32_t cx = 0x02u | 0x04u;
            if (sel_on[r]) out[r].local &= ~cx;
            else if (out[r].local && !(out[r].local & ~cx)) out[r].local |= 0x100u;
        }
        global |= out[r].local;
    }
    /* each rank's touched chunks, ascending, and how many ranks touch each */
    uint64_t **tc = calloc((size_t)P, sizeof *tc), *nt = calloc((size_t)P, sizeof *nt), tot = 0, at = 0;
    for (int r = 0; r < P; r++) tot += counts[r];
    uint64_t *all = malloc((size_t)(tot + 1) * sizeof *all), nall = 0;
    choff[0] = 0;
    for (int r = 0; r < P; r++) {
        tc[r] = malloc((size_t)(counts[r] + 1) * sizeof **tc);
        for (uint64_t i = 0; i < counts[r]; i++) tc[r][i] = s->layout == 1 ? elem_chunk(s, allel[at + i]) : 0;
        at += counts[r];
        qsort(tc[r], (size_t)counts[r], sizeof **tc, cmp_u64);
        choff[r + 1] = choff[r];
        for (uint64_t i = 0; i < counts[r]; i++) {
            if (i == 0 || tc[r][i] != tc[r][i - 1]) {
                tc[r][nt[r]++] = tc[r][i];
                all[nall++] = tc[r][i];
                rchunk_t *c = &ch[choff[r + 1]++];
                c->idx = tc[r][i];
                c->nelem = 0;
                c->coll = 0;
            }
            ch[choff[r + 1] - 1].nelem++;
        }
        if (s->layout != 1) choff[r + 1] = choff[r]; /* contiguous and compact layouts report no chunks */
    }
    qsort(all, (size_t)nall, sizeof *all, cmp_u64);
    uint64_t sum = 0, mn = UINT64_MAX;
    for (int r = 0; r < P; r++) { sum += nt[r]; if (nt[r] < mn) mn = nt[r]; }
    unsigned thr = (unsigned)((uint64_t)P * ratio / 100);
    if (thr < 1) thr = 1;
    const int req = opt; /* HDF5's own (DEFAULT, ONE_IO, MULTI_IO) become link-chunk under 1.14's selection I/O */
    if (opt == COLLDIAG_MPIO_CHUNK_DEFAULT) opt = sum / (uint64_t)P >= num ? COLLDIAG_MPIO_CHUNK_ONE_IO : COLLDIAG_MPIO_CHUNK_MULTI_IO;
    if (opt == COLLDIAG_MPIO_CHUNK_AUTO) opt = scheme;
    for (int r = 0; r < P; r++) {
        rule_t *o = &out[r];
        o->global = (o->local & 0x01) ? o->local : global;
        o->chunk_opt = o->io_mode = 0;
        for (uint64_t k = 0; k < nt[r] && s->layout == 1; k++) { /* ranks touching chunk tc[r][k]: its run in the sorted list */
            uint64_t lo = 0, hi = nall;
            while (lo < hi) { uint64_t m = (lo + hi) / 2; if (all[m] < tc[r][k]) lo = m + 1; else hi = m; }
            uint64_t n = 0;
            while (lo + n < nall && all[lo + n] == tc[r][k]) n++;
            ch[choff[r] + k].nproc = (int)n;
        }
        if (o->global) continue; /* every touched chunk went independent */
        if (s->layout != 1) {
            o->io_mode = COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE;
            if (sel_on[r]) o->chunk_opt = COLLDIAG_MPIO_LINK_CHUNK; /* HDF5 1.14 reports selection I/O so */
            continue;
        }
        /* HDF5 1.14's selection I/O: every chunk in one collective call, whatever HDF5's chunk opt asks */
        const int ropt = sel_on[r] && (req == COLLDIAG_MPIO_CHUNK_DEFAULT || req == COLLDIAG_MPIO_CHUNK_ONE_IO || req == COLLDIAG_MPIO_CHUNK_MULTI_IO)
                             ? COLLDIAG_MPIO_CHUNK_ONE_IO : opt;
        o->chunk_opt = ropt == COLLDIAG_MPIO_CHUNK_AGGREGATE_IO ? COLLDIAG_MPIO_CHUNK_AGGREGATE : ropt;
        for (uint64_t k = 0; k < nt[r]; k++) {
            rchunk_t *c = &ch[choff[r] + k];
            if (ropt == COLLDIAG_MPIO_CHUNK_ONE_IO || ropt == COLLDIAG_MPIO_CHUNK_AGGREGATE_IO) c->coll = 1;
            else if (ropt == COLLDIAG_MPIO_ALL_CHUNK_IND_IO) c->coll = 0;
            else if (ropt == COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT) c->coll = k < mn;
            else c->coll = ratio == 0 || (unsigned)c->nproc > thr;
            o->io_mode |= c->coll ? COLLDIAG_MPIO_CHUNK_COLLECTIVE : COLLDIAG_MPIO_CHUNK_INDEPENDENT;
        }
        if (ropt == COLLDIAG_MPIO_CHUNK_ONE_IO || ropt == COLLDIAG_MPIO_CHUNK_AGGREGATE_IO) o->io_mode = COLLDIAG_MPIO_CHUNK_COLLECTIVE;
    }
    free(sel_on);
    for (int r = 0; r < P; r++) free(tc[r]);
    free(tc);
    free(nt);
    free(all);
}

/* Compares every rank's result and chunk info with the rules; AUTO may have run link, multi, aggregation or all-independent,
   the same on every rank. nproc, where a scheme reports it (not -1), must be exact; multi and at-once with
   ratio != 0 must report it. */
static int rules_check(const scenario *s, int P, int dir, const result_t *res, const chunkrep_t *cr, const uint64_t *allel,
                       const uint64_t *counts, char *why, size_t wl)
{
    static const int schemes[] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO,
                                  COLLDIAG_MPIO_ALL_CHUNK_IND_IO};
    rule_t *ex = calloc((size_t)P, sizeof *ex);
    uint64_t tot = 0, *choff = calloc((size_t)P + 1, sizeof *choff);
    for (int r = 0; r < P; r++) tot += counts[r];
    rchunk_t *ch = calloc((size_t)tot + 1, sizeof *ch);
    int ok = 0;
    for (int a = 0; a < 4 && !ok; a++) {
        rules_expect(s, P, dir, schemes[a], allel, counts, ex, ch, choff);
        ok = 1;
        for (int r = 0; r < P && ok && cr->v; r++) { /* the chunk info, chunk by chunk */
            uint64_t n = (cr->off[r + 1] - cr->off[r]) / 4;
            if (n != choff[r + 1] - choff[r]) {
                ok = 0;
                snprintf(why, wl, "rank %d %s: chunk info lists %" PRIu64 " chunks, the rank touched %" PRIu64, r, dir ? "read" : "write", n,
                         choff[r + 1] - choff[r]);
                break;
            }
            for (uint64_t k = 0; k < n && ok; k++) {
                const uint64_t *g = cr->v + cr->off[r] + 4 * k;
                const rchunk_t *w = &ch[choff[r] + k];
                int nproc = (int)(int64_t)g[3];
                const char *er = getenv("COLLDIAG_CHUNK_OPT_RATIO");
                unsigned ratio = er ? (unsigned)strtoul(er, NULL, 10) : s->ratio;
                int must = (res[r].chunk_opt == COLLDIAG_MPIO_MULTI_CHUNK || res[r].chunk_opt == COLLDIAG_MPIO_COLL_CHUNK_ATONCE) && ratio != 0;
                if (g[0] != w->idx || g[1] != w->nelem || (int)g[2] != w->coll || (nproc != -1 && nproc != w->nproc) || (must && nproc == -1)) {
                    ok = 0;
                    snprintf(why, wl, "rank %d %s: chunk info #%" PRIu64 " says chunk %" PRIu64 ", %" PRIu64 " elements, %s, nproc %d; the rules give "
                             "chunk %" PRIu64 ", %" PRIu64 " elements, %s, nproc %d", r, dir ? "read" : "write", k, g[0], g[1],
                             g[2] ? "collective" : "independent", nproc, w->idx, w->nelem, w->coll ? "collective" : "independent", w->nproc);
                }
            }
        }
        for (int r = 0; r < P && ok; r++) {
            const result_t *x = &res[r];
            if (x->chunk_opt != ex[r].chunk_opt || x->io_mode != ex[r].io_mode || x->local != ex[r].local || x->global != ex[r].global) {
                ok = 0;
                snprintf(why, wl, "rank %d %s reported %s %s 0x%02x 0x%02x, the rules give %s %s 0x%02x 0x%02x", r, dir ? "read" : "write",
                         colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)x->chunk_opt),
                         colldiag_io_mode_name((colldiag_actual_io_mode_t)x->io_mode), x->local, x->global,
                         colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)ex[r].chunk_opt),
                         colldiag_io_mode_name((colldiag_actual_io_mode_t)ex[r].io_mode), ex[r].local, ex[r].global);
            }
        }
        int opt = s->chunk_opt;
        const char *e = getenv("COLLDIAG_CHUNK_OPT");
        if (!(opt == COLLDIAG_MPIO_CHUNK_AUTO || (e && !strcmp(e, "auto")))) break; /* only AUTO has alternatives */
    }
    free(ex);
    free(ch);
    free(choff);
    return ok;
}

/* ---- one scenario run ---- */

typedef struct {
    int hdf5;   /* also run it through parallel HDF5 and compare */
    int keep;   /* keep the data files */
    int rules;  /* check every rank's report against rules_expect */
    FILE *out;  /* the canonical output (rank 0) */
} run_opts;

/* Sets the scenario's env lines for the run; restore_env puts the previous values back. */
static char **set_env(const scenario *s, int want_hdf5)
{
    char **old = calloc((size_t)s->nenv + 2, sizeof *old);
    for (int i = 0; i < s->nenv; i++) {
        char name[256];
        const char *eq = strchr(s->env[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - s->env[i]), s->env[i]);
        const char *prev = getenv(name);
        old[i] = prev ? strdup(prev) : NULL;
        setenv(name, eq + 1, 1);
    }
    /* HDF5 reads its own name for the same switch */
    const char *ot = getenv("COLLDIAG_MPI_OPT_TYPES");
    if (want_hdf5 && ot && !getenv("HDF5_MPI_OPT_TYPES")) {
        setenv("HDF5_MPI_OPT_TYPES", ot, 1);
        old[s->nenv] = strdup("set");
    }
    return old;
}
static void restore_env(const scenario *s, char **old)
{
    for (int i = 0; i < s->nenv; i++) {
        char name[256];
        const char *eq = strchr(s->env[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - s->env[i]), s->env[i]);
        if (old[i]) setenv(name, old[i], 1);
        else unsetenv(name);
        free(old[i]);
    }
    if (old[s->nenv]) unsetenv("HDF5_MPI_OPT_TYPES");
    free(old[s->nenv]);
    free(old);
}

/* Runs scenario s on comm (which has s->ranks ranks): colldiag writes (or the runner does, for direction read),
   colldiag reads back, everything is checked. Returns 0 when all matched, 1 otherwise, on every rank; rank 0
   prints the canonical output to o->out. */
static int run_case(const scenario *s, MPI_Comm comm, const run_opts *o)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    FILE *out = o->out ? o->out : stdout;
    char **oldenv = set_env(s, o->hdf5);

    const MPI_Offset base = 512; /* a non-zero base catches offset mistakes */
    convctx cc = {s->elem, s->conv ? s->conv : s->elem};
    size_t mes = cc.mbytes;

    /* layout */
    colldiag_layout *l = NULL;
    int rc = s->layout == 0 ? colldiag_layout_contiguous(s->rank, s->dims, s->elem, base, &l)
           : s->layout == 2 ? colldiag_layout_compact(s->rank, s->dims, s->elem, base, &l)
                            : colldiag_layout_chunked(s->rank, s->dims, s->cdims, s->elem, base, &l);
    if (!rc && s->filtered) rc = colldiag_layout_set_filtered(l, 1);
    if (!rc && s->addrs) rc = colldiag_layout_set_chunk_addrs(l, s->naddrs, (const MPI_Offset *)s->addrs);
    if (rc) {
        if (me == 0) fprintf(out, "scenario %s\nthe layout is invalid: %s\n", s->name, colldiag_last_errmsg());
        colldiag_layout_free(l);
        restore_env(s, oldenv);
        return 1;
    }

    /* this rank's selections */
    colldiag_sel *fsel = NULL, *msel = NULL;
    char sel_err[MSG_LEN] = "";
    int sel_failed = 0;
    if (s->space_null) {
        colldiag_sel_create_null(&fsel);
    } else {
        if (s->space_scalar) colldiag_sel_create_scalar(&fsel);
        else colldiag_sel_create(s->rank, s->dims, &fsel);
        colldiag_sel_select_none(fsel); /* FORMAT.md: a rank without sel lines selects nothing */
        sel_failed = apply_ops(fsel, &s->fsel[me], s->rank, sel_err, sizeof sel_err) != 0;
    }
    if (s->mrank[me] == -1) colldiag_sel_create_null(&msel);
    else if (s->mrank[me] == -2) colldiag_sel_create_scalar(&msel);
    else if (s->mrank[me] > 0) {
        colldiag_sel_create(s->mrank[me], s->mdims[me], &msel);
        if (!sel_failed) sel_failed = apply_ops(msel, &s->msel[me], s->mrank[me], sel_err, sizeof sel_err) != 0;
    }
    /* the runner's own model of every selection; a null space on either side moves nothing */
    uint64_t *fel = NULL, nf = 0, *mel = NULL, nm = 0;
    int model_bad = 0, moves_nothing = s->space_null || s->mrank[me] == -1;
    if (!moves_nothing) {
        selops none_first = s->fsel[me];
        selop noneop;
        memset(&noneop, 0, sizeof noneop);
        noneop.kind = OP_NONE;
        selops tmp;
        tmp.n = none_first.n + 1;
        tmp.ops = malloc((size_t)tmp.n * sizeof *tmp.ops);
        tmp.ops[0] = noneop;
        if (none_first.n) memcpy(tmp.ops + 1, none_first.ops, (size_t)none_first.n * sizeof *tmp.ops); /* ops may be NULL then */
        model_bad |= model_elems(&tmp, s->rank, s->dims, &fel, &nf) != 0;
        free(tmp.ops);
        if (s->mrank[me] > 0) model_bad |= model_elems(&s->msel[me], s->mrank[me], s->mdims[me], &mel, &nm) != 0;
        else if (s->mrank[me] == -2) { nm = 1; mel = calloc(1, sizeof *mel); }
        else { nm = nf; mel = NULL; }
        if (!model_bad && nm != nf) model_bad = 1;
    }
    uint64_t mspace = s->mrank[me] > 0 ? prod(s->mdims[me], s->mrank[me]) : s->mrank[me] == -2 ? 1 : s->mrank[me] == -1 ? 0 : nf;

    /* file path, decided on rank 0 */
    char path[512];
    static unsigned serial;
    if (me == 0) {
        const char *tmpd = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/colldiag_scn_%d_%u_%s.bin", tmpd && *tmpd ? tmpd : "/tmp", (int)getpid(), serial++, s->name);
        for (char *p = path + strlen(tmpd && *tmpd ? tmpd : "/tmp") + 1; *p; p++)
            if (*p == '/' || *p == ' ') *p = '_';
    }
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, comm);
    uint64_t fbytes = storage_bytes(s, base) + 64;
    const uint64_t N = prod(s->dims, s->rank);
    if (me == 0) {
        /* canary everywhere; for a read-only scenario every stored element holds its value */
        unsigned char *img = malloc((size_t)fbytes + 1);
        memset(img, CANARY, (size_t)fbytes);
        if (s->direction == 1)
            for (uint64_t e = 0; e < N; e++) {
                uint64_t a = elem_addr(s, base, e);
                if (a != NOT_STORED) put_le(img + a, (e + 1) & mask_of(s->elem), s->elem);
            }
        FILE *fp = fopen(path, "wb");
        if (fp) { fwrite(img, 1, (size_t)fbytes, fp); fclose(fp); }
        free(img);
    }
    MPI_Barrier(comm);

    /* write */
    unsigned char *wbuf = malloc((size_t)(mspace * mes) + 1);
    memset(wbuf, 0x5A, (size_t)(mspace * mes));
    if (!model_bad)
        for (uint64_t k = 0; k < nf; k++) mem_value(s, &cc, fel[k], wbuf + (mel ? mel[k] : k) * mes);
    result_t *wres = me == 0 ? calloc((size_t)P, sizeof *wres) : NULL;
    result_t *rres = me == 0 ? calloc((size_t)P, sizeof *rres) : NULL;
    chunkrep_t wcr = {NULL, NULL}, rcr = {NULL, NULL};
    if (s->direction == 0) transfer(s, comm, path, 0, l, fsel, msel, sel_failed, sel_err, wbuf, &cc, wres, &wcr);

    /* read back into a canary-filled buffer; every rank checks its own bytes */
    unsigned char *rbuf = malloc((size_t)(mspace * mes) + 1);
    memset(rbuf, 0x3C, (size_t)(mspace * mes));
    transfer(s, comm, path, 1, l, fsel, msel, sel_failed, sel_err, rbuf, &cc, rres, &rcr);
    char rbad[MSG_LEN] = "";
    if (!model_bad && s->expect_error < 0 && !s->filtered) {
        unsigned char *want = calloc(1, mes + 64);
        unsigned char *selm = calloc((size_t)mspace + 1, 1);
        for (uint64_t k = 0; k < nf && !rbad[0]; k++) {
            uint64_t mo = mel ? mel[k] : k;
            selm[mo] = 1;
            if (elem_addr(s, base, fel[k]) == NOT_STORED) memset(want, 0, mes); /* unallocated chunks read as zeros */
            else mem_value(s, &cc, fel[k], want);
            if (memcmp(rbuf + mo * mes, want, mes))
                snprintf(rbad, sizeof rbad, "rank %d read: memory element %" PRIu64 " (file element %" PRIu64 ") is wrong", me, mo, fel[k]);
        }
        for (uint64_t e = 0; e < mspace && !rbad[0]; e++)
            if (!selm[e])
                for (size_t b = 0; b < mes; b++)
                    if (rbuf[e * mes + b] != 0x3C) {
                        snprintf(rbad, sizeof rbad, "rank %d read: unselected memory element %" PRIu64 " was overwritten", me, e);
                        break;
                    }
        free(want);
        free(selm);
    }
    char *allbad = me == 0 ? malloc((size_t)P * MSG_LEN) : NULL;
    MPI_Gather(rbad, MSG_LEN, MPI_CHAR, allbad, MSG_LEN, MPI_CHAR, 0, comm);

    /* rank 0 needs every rank's file elements for the image and the rules: ship them */
    int status = 0;
    uint64_t mynf = model_bad ? 0 : nf;
    uint64_t *counts = me == 0 ? malloc((size_t)P * sizeof *counts) : NULL;
    MPI_Gather(&mynf, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T, 0, comm);
    int *rc_i = NULL, *dsp = NULL;
    uint64_t *allel = NULL;
    if (me == 0) {
        rc_i = malloc((size_t)P * sizeof *rc_i);
        dsp = malloc((size_t)P * sizeof *dsp);
        uint64_t t = 0;
        for (int r = 0; r < P; r++) { rc_i[r] = (int)counts[r]; dsp[r] = (int)t; t += counts[r]; }
        allel = malloc((size_t)(t + 1) * sizeof *allel);
    }
    MPI_Gatherv(fel, (int)mynf, MPI_UINT64_T, allel, rc_i, dsp, MPI_UINT64_T, 0, comm);

    /* HDF5 as the oracle: the same write through parallel HDF5, on every rank */
    const char *h5na = "colldiag was built without -DCOLLDIAG_WITH_HDF5";
    int any_bad = 0;
    MPI_Allreduce(&model_bad, &any_bad, 1, MPI_INT, MPI_LOR, comm);
#ifdef COLLDIAG_WITH_HDF5
    h5res_t h5mine, *h5all = me == 0 ? calloc((size_t)P, sizeof *h5all) : NULL;
    memset(&h5mine, 0, sizeof h5mine);
    char h5path[600];
    snprintf(h5path, sizeof h5path, "%s.h5", path);
    h5na = h5_na_reason(s);
    if (!h5na && any_bad) h5na = "a selection the scenario's model could not build";
    if (o->hdf5 && !h5na) {
        int dummy;
        h5_run(s, comm, h5path, wbuf, nf, me, &h5mine, &dummy);
    }
    MPI_Gather(&h5mine, (int)sizeof h5mine, MPI_BYTE, h5all, (int)sizeof h5mine, MPI_BYTE, 0, comm);
#endif
    if (me == 0) {
        fprintf(out, "scenario %s\n", s->name);
        int expect_fail = s->expect_error >= 0;
        const result_t *shown = s->direction == 0 ? wres : rres;
        for (int r = 0; r < P; r++) {
            if (shown[r].rc) fprintf(out, "rank %d %s: %s\n", r, errname(shown[r].rc), shown[r].msg);
            else
                fprintf(out, "rank %d %s %s 0x%02x 0x%02x\n", r, colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)shown[r].chunk_opt),
                        colldiag_io_mode_name((colldiag_actual_io_mode_t)shown[r].io_mode), shown[r].local, shown[r].global);
        }
        /* expectations */
        for (int r = 0; r < P; r++) {
            const expect_t *e = &s->exp[r];
            for (int pass = s->direction; pass < 2; pass++) {
                const result_t *x = pass ? &rres[r] : &wres[r];
                const char *what = pass ? "read" : "write";
                if (expect_fail) {
                    if (x->rc == 0) { fprintf(out, "FAIL: rank %d's %s succeeded; the scenario expects every rank to fail\n", r, what); status = 1; }
                    else if (r == s->expect_error && x->rc == COLLDIAG_ERR_PEER) {
                        fprintf(out, "FAIL: rank %d's %s failed with ERR_PEER but it is the rank with the bad argument\n", r, what);
                        status = 1;
                    }
                    continue;
                }
                if (x->rc) {
                    if (!(pass == 1 && s->filtered)) {
                        fprintf(out, "FAIL: rank %d's %s failed: %s: %s\n", r, what, errname(x->rc), x->msg);
                        status = 1;
                    }
                    continue;
                }
                if (!e->set || rules_114()) continue; /* HDF5 1.10.8's answers: the oracle and the reference check 1.14's */
                const char *co = colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)x->chunk_opt);
                const char *im = colldiag_io_mode_name((colldiag_actual_io_mode_t)x->io_mode);
                if (strcmp(co, e->chunk_opt) || strcmp(im, e->io_mode) || x->local != e->local || x->global != e->global) {
                    fprintf(out, "FAIL: rank %d %s reported %s %s 0x%02x 0x%02x, expected %s %s 0x%02x 0x%02x\n", r, what, co, im, x->local,
                            x->global, e->chunk_opt, e->io_mode, e->local, e->global);
                    status = 1;
                }
            }
        }
        /* the rules of SPEC.md, on every rank and both calls */
        int calls_ok = 1;
        for (int r = 0; r < P; r++) calls_ok &= (s->direction == 1 || wres[r].rc == 0) && rres[r].rc == 0;
        if (o->rules && !expect_fail && !any_bad && calls_ok && !s->filtered)
            for (int pass = s->direction; pass < 2; pass++) {
                char why[MSG_LEN];
                if (!rules_check(s, P, pass, pass ? rres : wres, pass ? &rcr : &wcr, allel, counts, why, sizeof why)) {
                    fprintf(out, "FAIL: %s\n", why);
                    status = 1;
                }
            }
        /* the file image */
        char fbad[MSG_LEN] = "";
        FILE *fp = fopen(path, "rb");
        unsigned char *img = malloc((size_t)fbytes + 1), *want = malloc((size_t)fbytes + 1);
        size_t got = fp ? fread(img, 1, (size_t)fbytes, fp) : 0;
        if (fp) fclose(fp);
        memset(want, CANARY, (size_t)fbytes);
        int write_ok = 1;
        for (int r = 0; r < P; r++) write_ok &= wres[r].rc == 0;
        if (s->direction == 1) {
            for (uint64_t e = 0; e < N; e++) {
                uint64_t a = elem_addr(s, base, e);
                if (a != NOT_STORED) put_le(want + a, (e + 1) & mask_of(s->elem), s->elem);
            }
        } else if (write_ok && !expect_fail) {
            uint64_t t = 0;
            for (int r = 0; r < P; r++) t += counts[r];
            for (uint64_t i = 0; i < t; i++) put_le(want + elem_addr(s, base, allel[i]), (allel[i] + 1) & mask_of(s->elem), s->elem);
        }
        if (got < fbytes) snprintf(fbad, sizeof fbad, "the file has %zu bytes, expected %" PRIu64, got, fbytes);
        for (uint64_t b = 0; b < fbytes && !fbad[0]; b++)
            if (img[b] != want[b])
                snprintf(fbad, sizeof fbad, "file byte %" PRIu64 " is 0x%02x, expected 0x%02x%s", b, img[b], want[b],
                         want[b] == CANARY ? " (untouched)" : "");
        free(img);
        free(want);
        int model_ok = 1;
        for (int r = 0; r < P; r++) model_ok &= !allbad[r * MSG_LEN];
        if (fbad[0]) { fprintf(out, "data MISMATCH: %s\n", fbad); status = 1; }
        else if (!model_ok) {
            for (int r = 0; r < P; r++)
                if (allbad[r * MSG_LEN]) fprintf(out, "data MISMATCH: %s\n", allbad + r * MSG_LEN);
            status = 1;
        } else if (expect_fail) fprintf(out, "error ok (file untouched)\n");
        else fprintf(out, "data ok\n");
        if (o->hdf5 && h5na) fprintf(out, "hdf5 n/a (%s)\n", h5na);
#ifdef COLLDIAG_WITH_HDF5
        if (o->hdf5 && !h5na) {
            int agree = 1;
            for (int r = 0; r < P; r++) {
                const h5res_t *h = &h5all[r];
                if (h->rc) { fprintf(out, "hdf5 rank %d error (H5Dwrite failed)\n", r); agree = 0; continue; }
                fprintf(out, "hdf5 rank %d %s %s 0x%02x 0x%02x\n", r, colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h->chunk_opt),
                        colldiag_io_mode_name((colldiag_actual_io_mode_t)h->io_mode), h->local, h->global);
                if (wres[r].rc || h->chunk_opt != wres[r].chunk_opt || h->io_mode != wres[r].io_mode || h->local != wres[r].local ||
                    h->global != wres[r].global)
                    agree = 0;
            }
            char why[256] = "";
            uint64_t t = 0;
            for (int r = 0; r < P; r++) t += counts[r];
            int data_same = h5_check_data(s, h5path, allel, t, why, sizeof why);
            /* three outcomes kept apart: HDF5's modes or causes differ from colldiag's (colldiag's failure);
               HDF5's file differs where colldiag's is right, predicted (the plan named bytes at risk: HDF5's
               and MPI-IO's defect, seen coming) or NOT predicted (a gap in the prediction: colldiag's
               failure); or both agree */
            const uint64_t risk = h5all[0].risk;
            int h5_refused = 0, cd_refused = 0;
            for (int r = 0; r < P; r++) { h5_refused += h5all[r].rc != 0; cd_refused += wres[r].rc != 0; }
            if (s->filtered && h5_refused == P && cd_refused == P) {
                /* both engines refuse (HDF5 writes filtered chunks only collectively): two refusals that
                   agree are agreement, if neither file changed (HDF5's holds only its fill value, 0) */
                char why0[256] = "";
                const int untouched = h5_check_data(s, h5path, allel, 0, why0, sizeof why0);
                fprintf(out, "hdf5 agrees: both refuse the filtered write on every rank (HDF5's H5Dwrite failed; colldiag: cause FILTERS)%s\n",
                        untouched ? ", HDF5's file untouched" : "; but HDF5's file changed");
                if (!untouched) { fprintf(out, "  %s\n", why0); status = 1; }
            } else if (s->filtered && h5_refused) {
                fprintf(out, "hdf5 DISAGREES: HDF5's filtered write failed on %d of %d ranks\n", h5_refused, P);
                status = 1;
            } else if (s->filtered) {
                fprintf(out, "hdf5 differs, deliberately: HDF5 (1.10.2 on) writes filtered chunks collectively with compression; colldiag refuses "
                             "them (cause FILTERS)%s\n", data_same ? "" : "; HDF5's data check failed too");
                if (!data_same) { fprintf(out, "  %s\n", why); status = 1; }
            } else if (!agree) {
                fprintf(out, "hdf5 DISAGREES%s%s\n", data_same ? "" : ": ", data_same ? "" : why);
                status = 1;
            } else if (!data_same && risk) {
                fprintf(out, "hdf5 bytes differ, predicted: %s (%" PRIu64 " bytes at risk: %s)\n", why, risk, h5all[0].why);
            } else if (!data_same) {
                fprintf(out, "hdf5 bytes differ, NOT predicted: %s (colldiag's plan named no byte at risk)\n", why);
                status = 1;
            } else {
                if (risk) fprintf(out, "hdf5 bytes at risk: %" PRIu64 " (%s); HDF5's file came out right this time\n", risk, h5all[0].why);
                fprintf(out, "hdf5 agrees\n");
            }
            if (!o->keep) unlink(h5path);
        }
        free(h5all);
#endif
        fflush(out);
        if (!o->keep) unlink(path);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, comm);
    restore_env(s, oldenv);
    colldiag_sel_free(fsel);
    colldiag_sel_free(msel);
    colldiag_layout_free(l);
    free(wbuf);
    free(rbuf);
    free(fel);
    free(mel);
    free(wres);
    free(rres);
    free(allbad);
    free(counts);
    free(rc_i);
    free(dsp);
    free(allel);
    free(wcr.v);
    free(wcr.off);
    free(rcr.v);
    free(rcr.off);
    return status;
}

static void scenario_free(scenario *s)
{
    for (int r = 0; r < s->ranks && s->fsel; r++) {
        for (int i = 0; i < s->fsel[r].n; i++) free(s->fsel[r].ops[i].coords);
        for (int i = 0; i < s->msel[r].n; i++) free(s->msel[r].ops[i].coords);
        free(s->fsel[r].ops);
        free(s->msel[r].ops);
    }
    for (int i = 0; i < s->nenv; i++) free(s->env[i]);
    free(s->fsel);
    free(s->msel);
    free(s->mrank);
    free(s->mdims);
    free(s->exp);
    free(s->addrs);
    memset(s, 0, sizeof *s);
}

#ifndef SCENARIO_NO_MAIN
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* AUTO's model is what this program checks (tests/test_auto.c checks its measurements): the
       measured choice of a pattern's later calls follows the machine's timings */
    if (!getenv("COLLDIAG_AUTO_MODE")) setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_me);
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    run_opts o = {0, 0, 0, stdout};
    /* several files run one after the other in this one launch (valgrind's and the sanitizers' runs:
       their start-up costs more than a scenario); each needs the launch's rank count */
    const char **files = calloc((size_t)argc, sizeof *files);
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hdf5")) o.hdf5 = 1;
        else if (!strcmp(argv[i], "--keep")) o.keep = 1;
        else if (!strcmp(argv[i], "--rules")) o.rules = 1;
        else if (files) files[nfiles++] = argv[i];
    }
    if (!nfiles) {
        if (g_me == 0) fprintf(stderr, "usage: mpirun -n R %s [--hdf5] [--rules] [--keep] FILE.scn [FILE.scn ...]\n", argv[0]);
        free(files);
        MPI_Finalize();
        return 2;
    }
    int status = 0;
    for (int k = 0; k < nfiles; k++) {
        const char *file = g_file = files[k];
        scenario s;
        parse(file, &s);
        if (s.ranks != P) {
            if (g_me == 0) fprintf(stderr, "%s: the scenario needs %d ranks; run it with mpirun -n %d (this run has %d)\n", file, s.ranks, s.ranks, P);
            scenario_free(&s);
            status = 1;
            continue;
        }
        const int st = run_case(&s, MPI_COMM_WORLD, &o);
        if (st && nfiles > 1 && g_me == 0) fprintf(stderr, "%s: failed\n", file);
        if (st && !status) status = st;
        scenario_free(&s);
    }
    free(files);
    MPI_Finalize();
    return status;
}
#endif
