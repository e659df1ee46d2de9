/* colldiag_write_multi / read_multi / plan_multi: many datasets in one collective call.
 *
 * Seven datasets (chunked 2-D/3-D/1-D with edge chunks and a permuted address table, contiguous 1-D
 * and 2-D, a compact one, one selected by rank 0 only) of 1-, 2-, 4- and 8-byte elements, row-cyclic
 * selections (points in reverse order on some ranks), packed and strided memory. For every scheme
 * and mode: every byte of the file against the image this test computes from its own formulas
 * (element -> chunk -> address), every byte of the read buffers, each dataset's modes and causes by
 * the rules, the chunk info's dataset field; PMPI counts: one collective data call per rank for a
 * link call that fits the collective buffer, n for n single calls. Errors: one bad dataset on one
 * rank, ranks passing different n, NULL arrays, overlapping storage: every rank fails, names the rank
 * and the dataset, and no byte of the file changes.
 * Run: mpirun -n 1..4 test_multi [path] */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "colldiag.h"
#include "pmpi_count.h"
#include "testutil.h"
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#define ND 7      /* the fixed cases' datasets */
#define MAXD 8    /* --fuzz: 1..MAXD datasets a call */
#define FILL 0xEE
typedef struct {
    int kind; /* 0 contiguous, 1 chunked, 2 compact */
    int rank;
    uint64_t dims[3], cdims[3];
    size_t es;
    MPI_Offset base;
    int permuted;
    uint64_t grid[3], nchunks, cbytes, nelem;
    MPI_Offset *addrs;
    int *owner;            /* the rank that selects each row (index along dim 0), -1 none */
    uint64_t *c0, *c1;     /* the row's selected range of the last dim (rank >= 2) */
    int points[8];         /* rank r selects its elements as points in a shuffled order */
    uint64_t seed;
} dspec;

static dspec D[MAXD];
static int nd = ND;
static MPI_Offset file_size;

static void spec_place(void);
static void spec_init(void)
{
    static const dspec s[ND] = {
        {.kind = 1, .rank = 2, .dims = {13, 10}, .cdims = {4, 3}, .es = 4},
        {.kind = 0, .rank = 1, .dims = {37}, .es = 8},
        {.kind = 1, .rank = 3, .dims = {5, 6, 7}, .cdims = {2, 3, 4}, .es = 2, .permuted = 1},
        {.kind = 0, .rank = 2, .dims = {9, 11}, .es = 1},
        {.kind = 1, .rank = 1, .dims = {100}, .cdims = {7}, .es = 8},
        {.kind = 2, .rank = 1, .dims = {16}, .es = 4},
        {.kind = 1, .rank = 2, .dims = {8, 8}, .cdims = {4, 4}, .es = 4},
    };
    for (int d = 0; d < ND; d++) D[d] = s[d];
    nd = ND;
    for (int d = 0; d < ND; d++) {
        D[d].owner = malloc(D[d].dims[0] * sizeof *D[d].owner);
        D[d].c0 = calloc(D[d].dims[0], sizeof *D[d].c0);
        D[d].c1 = malloc(D[d].dims[0] * sizeof *D[d].c1);
        for (uint64_t i = 0; i < D[d].dims[0]; i++) {
            D[d].owner[i] = d == 6 ? 0 : (int)(i % (uint64_t)P); /* row-cyclic; dataset 6 rank 0 only */
            D[d].c1[i] = D[d].dims[D[d].rank - 1] - 1;
        }
        for (int r = 1; r < 8; r += 2) D[d].points[r] = d == 4; /* dataset 4: points, reversed below, on odd ranks */
    }
    spec_place();
}

static void spec_free(void)
{
    for (int d = 0; d < nd; d++) {
        free(D[d].addrs);
        free(D[d].owner);
        free(D[d].c0);
        free(D[d].c1);
    }
    memset(D, 0, sizeof D);
}

/* addresses: datasets one after another with gaps, chunk tables permuted where asked */
static void spec_place(void)
{
    MPI_Offset at = 100;
    for (int d = 0; d < nd; d++) {
        D[d].nelem = 1;
        for (int k = 0; k < D[d].rank; k++) D[d].nelem *= D[d].dims[k];
        D[d].base = at;
        if (D[d].kind == 1) {
            D[d].nchunks = 1;
            D[d].cbytes = D[d].es;
            for (int k = 0; k < D[d].rank; k++) {
                D[d].grid[k] = (D[d].dims[k] + D[d].cdims[k] - 1) / D[d].cdims[k];
                D[d].nchunks *= D[d].grid[k];
                D[d].cbytes *= D[d].cdims[k];
            }
            D[d].addrs = malloc(D[d].nchunks * sizeof *D[d].addrs);
            for (uint64_t c = 0; c < D[d].nchunks; c++) /* permuted: chunk c stored in slot nchunks-1-c */
                D[d].addrs[c] = at + (MPI_Offset)((D[d].permuted ? D[d].nchunks - 1 - c : c) * D[d].cbytes);
            at += (MPI_Offset)(D[d].nchunks * D[d].cbytes);
        } else {
            at += (MPI_Offset)(D[d].nelem * D[d].es);
        }
        at += 24 + 8 * d; /* gaps between datasets */
    }
    file_size = at;
}

static colldiag_layout *make_layout(int d)
{
    colldiag_layout *l = NULL;
    if (D[d].kind == 0) colldiag_layout_contiguous(D[d].rank, D[d].dims, D[d].es, D[d].base, &l);
    else if (D[d].kind == 2) colldiag_layout_compact(D[d].rank, D[d].dims, D[d].es, D[d].base, &l);
    else {
        colldiag_layout_chunked(D[d].rank, D[d].dims, D[d].cdims, D[d].es, 0, &l);
        colldiag_layout_set_chunk_addrs(l, D[d].nchunks, D[d].addrs);
    }
    return l;
}

/* file offset of element lin of dataset d: the test's own arithmetic */
static MPI_Offset elem_off(int d, uint64_t lin)
{
    if (D[d].kind != 1) return D[d].base + (MPI_Offset)(lin * D[d].es);
    uint64_t c[3], r = lin;
    for (int k = D[d].rank - 1; k >= 0; k--) { c[k] = r % D[d].dims[k]; r /= D[d].dims[k]; }
    uint64_t idx = 0, in = 0;
    for (int k = 0; k < D[d].rank; k++) {
        idx = idx * D[d].grid[k] + c[k] / D[d].cdims[k];
        in = in * D[d].cdims[k] + c[k] % D[d].cdims[k];
    }
    return D[d].addrs[idx] + (MPI_Offset)(in * D[d].es);
}

static unsigned char val(int d, uint64_t lin, size_t b, int gen) { return (unsigned char)(lin * 7 + (uint64_t)d * 31 + b * 13 + 1 + (uint64_t)gen * 5); }

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* rank r's elements of dataset d in iteration order: the rows it owns, each within [c0, c1] of the
   last dim, row-major; as points, in an order shuffled by the dataset's seed (the fixed cases:
   reversed) */
static uint64_t rank_elems(int d, int r, uint64_t *out)
{
    uint64_t n = 0, row = D[d].nelem / D[d].dims[0], last = D[d].dims[D[d].rank - 1];
    for (uint64_t i = 0; i < D[d].dims[0]; i++) {
        if (D[d].owner[i] != r) continue;
        for (uint64_t j = 0; j < row; j++) {
            uint64_t c = D[d].rank >= 2 ? j % last : 0;
            if (D[d].rank < 2 || (c >= D[d].c0[i] && c <= D[d].c1[i])) out[n++] = i * row + j;
        }
    }
    if (D[d].points[r] && !D[d].seed)
        for (uint64_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) { uint64_t t = out[a]; out[a] = out[b]; out[b] = t; }
    else if (D[d].points[r])
        for (uint64_t a = n; a > 1; a--) {
            uint64_t b = mix(D[d].seed ^ (a * 977 + (uint64_t)r)) % a, t = out[a - 1];
            out[a - 1] = out[b];
            out[b] = t;
        }
    return n;
}

static colldiag_sel *make_fsel(int d, int r, const uint64_t *el, uint64_t n)
{
    colldiag_sel *s = NULL;
    colldiag_sel_create(D[d].rank, D[d].dims, &s);
    colldiag_sel_select_none(s);
    if (n && D[d].points[r]) {
        uint64_t *co = malloc(n * (size_t)D[d].rank * sizeof *co);
        for (uint64_t k = 0; k < n; k++) /* linear index -> coordinates */
            for (int j = D[d].rank - 1, q = 0; j >= 0; j--, q++) {
                uint64_t div = 1;
                for (int t = j + 1; t < D[d].rank; t++) div *= D[d].dims[t];
                co[k * (uint64_t)D[d].rank + (uint64_t)j] = el[k] / div % D[d].dims[j];
                (void)q;
            }
        int rc = colldiag_sel_select_elements(s, COLLDIAG_SELECT_SET, n, co);
        CHECK(rc == 0, "dataset %d's points: %s", d, colldiag_last_errmsg());
        free(co);
    } else if (n && d == 6 && !D[d].seed) { /* the fixed cases: one regular hyperslab */
        uint64_t start[3] = {0, 0, 0}, count[3] = {1, 1, 1}, block[3] = {D[d].dims[0], D[d].dims[1], 1};
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, start, NULL, count, block);
    } else if (n && !D[d].seed) { /* rows r, r+P, ...: one strided hyperslab */
        uint64_t start[3] = {(uint64_t)r, 0, 0}, stride[3] = {(uint64_t)P, 1, 1}, count[3], block[3] = {1, 1, 1};
        count[0] = (D[d].dims[0] - start[0] + stride[0] - 1) / stride[0];
        for (int k = 1; k < D[d].rank; k++) { count[k] = 1; block[k] = D[d].dims[k]; }
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, start, stride, count, block);
    } else {
        for (uint64_t i = 0; i < D[d].dims[0]; i++) { /* a union of one box per owned row */
            if (D[d].owner[i] != r) continue;
            uint64_t start[3] = {i, 0, 0}, count[3] = {1, 1, 1}, block[3] = {1, 1, 1};
            for (int k = 1; k < D[d].rank; k++) block[k] = D[d].dims[k];
            if (D[d].rank >= 2) { start[D[d].rank - 1] = D[d].c0[i]; block[D[d].rank - 1] = D[d].c1[i] - D[d].c0[i] + 1; }
            int rc = colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_OR, start, NULL, count, block);
            CHECK(rc == 0, "building dataset %d's union: %s", d, colldiag_last_errmsg());
        }
    }
    return s;
}

/* odd datasets: memory 1 + 2n elements, element k at 1 + 2k */
static colldiag_sel *make_msel(int d, uint64_t n)
{
    if (d % 2 == 0) return NULL;
    colldiag_sel *s = NULL;
    uint64_t dim = 2 * n + 1, start = 1, stride = 2, count = n, block = 1;
    colldiag_sel_create(1, &dim, &s);
    if (n) colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, &start, &stride, &count, &block);
    else colldiag_sel_select_none(s);
    return s;
}
static uint64_t mem_pos(int d, uint64_t k) { return d % 2 ? 1 + 2 * k : k; }
static uint64_t mem_elems(int d, uint64_t n) { return d % 2 ? 2 * n + 1 : n; }

typedef struct {
    colldiag_layout *l[MAXD];
    colldiag_sel *fs[MAXD], *ms[MAXD];
    uint64_t *el[MAXD], n[MAXD];
    unsigned char *buf[MAXD], *rbuf[MAXD];
} call;

static void call_init(call *c, int gen)
{
    for (int d = 0; d < nd; d++) {
        c->l[d] = make_layout(d);
        c->el[d] = malloc((D[d].nelem + 1) * sizeof(uint64_t));
        c->n[d] = rank_elems(d, me, c->el[d]);
        c->fs[d] = make_fsel(d, me, c->el[d], c->n[d]);
        c->ms[d] = make_msel(d, c->n[d]);
        size_t bytes = (size_t)(mem_elems(d, c->n[d]) * D[d].es) + 1;
        c->buf[d] = malloc(bytes);
        c->rbuf[d] = malloc(bytes);
        memset(c->buf[d], 0x55, bytes);
        for (uint64_t k = 0; k < c->n[d]; k++)
            for (size_t b = 0; b < D[d].es; b++) c->buf[d][mem_pos(d, k) * D[d].es + b] = val(d, c->el[d][k], b, gen);
    }
}
static void call_free(call *c)
{
    for (int d = 0; d < nd; d++) {
        colldiag_layout_free(c->l[d]);
        colldiag_sel_free(c->fs[d]);
        colldiag_sel_free(c->ms[d]);
        free(c->el[d]);
        free(c->buf[d]);
        free(c->rbuf[d]);
    }
}

/* The whole file as it must be after every rank wrote generation gen of datasets [0, nd). */
static unsigned char *expected_image(int ndw, int gen)
{
    unsigned char *img = malloc((size_t)file_size);
    memset(img, FILL, (size_t)file_size);
    uint64_t most = 1;
    for (int d = 0; d < ndw; d++) most = D[d].nelem > most ? D[d].nelem : most;
    uint64_t *el = malloc(most * sizeof *el);
    for (int d = 0; d < ndw; d++)
        for (int r = 0; r < P; r++) {
            uint64_t n = rank_elems(d, r, el);
            for (uint64_t k = 0; k < n; k++)
                for (size_t b = 0; b < D[d].es; b++) img[elem_off(d, el[k]) + (MPI_Offset)b] = val(d, el[k], b, gen);
        }
    free(el);
    return img;
}

static const char *path;
static void reset_file(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        unsigned char *img = malloc((size_t)file_size);
        memset(img, FILL, (size_t)file_size);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(fd >= 0 && write(fd, img, (size_t)file_size) == (ssize_t)file_size, "writing the initial file");
        if (fd >= 0) close(fd);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}
/* rank 0 compares the file with img (after every rank closed or synced) */
static void check_file(const unsigned char *img, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (me != 0) return;
    unsigned char *got = malloc((size_t)file_size + 16);
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, got, (size_t)file_size + 16) : -1;
    if (fd >= 0) close(fd);
    CHECK(n == (ssize_t)file_size, "%s: file is %zd bytes, want %lld", what, n, (long long)file_size);
    int bad = 0;
    for (MPI_Offset i = 0; n == (ssize_t)file_size && i < file_size; i++)
        if (got[i] != img[i] && bad++ < 3) CHECK(0, "%s: byte %lld is 0x%02x, want 0x%02x", what, (long long)i, got[i], img[i]);
    CHECK(bad == 0, "%s: %d bytes differ", what, bad);
    free(got);
}

static int has(const char *s, const char *sub) { return s && strstr(s, sub) != NULL; }

/* every scheme: bytes written, bytes read back, each dataset's modes and causes by the rules */
static const struct { int mode, opt, coll_opt; const char *name; } sch[] = {
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_ONE_IO, 0, "link"},
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_MULTI_IO, 0, "multi ratio 0"},
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO, 0, "at-once"},
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO, 0, "aggregation"},
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT, 0, "multi no-opt"},
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_ALL_CHUNK_IND_IO, 0, "all independent"},
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_AUTO, 0, "auto"},
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_DEFAULT, 0, "default"},
        {COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_ONE_IO, 1, "link, INDIVIDUAL_IO"},
        {COLLDIAG_MPIO_INDEPENDENT, COLLDIAG_MPIO_CHUNK_DEFAULT, 0, "independent"},
};
#define NSCH (sizeof sch / sizeof *sch)

/* One write_multi and read_multi of the datasets in D with scheme si, generation gen (the elements'
   values), the collective buffer cb (0: default). */
static void run_scheme(size_t si, int gen, size_t cb, int bad_rank, int bad_ds)
{
    colldiag_file *f = NULL;
    {
        reset_file();
        CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open");
        call c;
        call_init(&c, gen);
        colldiag_xfer *x = NULL;
        colldiag_xfer_create(&x);
        if (cb) colldiag_set_coll_buffer(x, cb);
        colldiag_set_dxpl_mpio(x, (colldiag_xfer_mode_t)sch[si].mode);
        colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)sch[si].opt);
        colldiag_set_dxpl_mpio_collective_opt(x, (colldiag_collective_opt_t)sch[si].coll_opt);
        if (sch[si].opt == COLLDIAG_MPIO_CHUNK_MULTI_IO) colldiag_set_dxpl_mpio_chunk_opt_ratio(x, 0);
        const void *wb[MAXD];
        void *rb[MAXD];
        for (int d = 0; d < nd; d++) { wb[d] = c.buf[d]; rb[d] = c.rbuf[d]; }
        if (bad_rank >= 0) { /* one dataset of one rank is bad: every rank fails, names both, and no byte moves */
            colldiag_sel *wrong = NULL;
            const colldiag_sel *fsa[MAXD];
            for (int d = 0; d < nd; d++) fsa[d] = c.fs[d];
            uint64_t dims[COLLDIAG_MAX_RANK] = {0};
            for (int k = 0; k < D[bad_ds].rank; k++) dims[k] = D[bad_ds].dims[k];
            dims[D[bad_ds].rank] = 2;
            if (me == bad_rank) { /* one dimension more than the dataset has */
                colldiag_sel_create(D[bad_ds].rank + 1, dims, &wrong);
                fsa[bad_ds] = wrong;
            }
            for (int dir = 0; dir < 2; dir++) {
                for (int d = 0; d < nd; d++) memset(c.rbuf[d], 0x55, (size_t)(mem_elems(d, c.n[d]) * D[d].es) + 1);
                int rc = dir ? colldiag_read_multi(f, (size_t)nd, (const colldiag_layout *const *)c.l, fsa, (const colldiag_sel *const *)c.ms, rb, x)
                             : colldiag_write_multi(f, (size_t)nd, (const colldiag_layout *const *)c.l, fsa, (const colldiag_sel *const *)c.ms, wb, x);
                const char *msg = colldiag_xfer_errmsg(x);
                char want[96];
                if (me == bad_rank) {
                    snprintf(want, sizeof want, "(dataset %d)", bad_ds);
                    CHECK(rc == COLLDIAG_ERR_ARG && has(msg, want), "%s, the bad rank: rc %d, message lacks '%s': %s", dir ? "read" : "write", rc, want, msg);
                } else {
                    snprintf(want, sizeof want, "rank %d found a bad argument in dataset %d", bad_rank, bad_ds);
                    CHECK(rc == COLLDIAG_ERR_PEER && has(msg, want), "%s, another rank: rc %d, message lacks '%s': %s", dir ? "read" : "write", rc, want,
                          msg);
                }
                for (int d = 0; d < nd; d++) {
                    const unsigned char *rbd = c.rbuf[d];
                    uint64_t nb = mem_elems(d, c.n[d]) * D[d].es + 1, changed = 0;
                    for (uint64_t i = 0; i < nb; i++) changed += rbd[i] != 0x55;
                    CHECK(changed == 0, "failed read: %" PRIu64 " bytes of dataset %d's buffer changed", changed, d);
                }
            }
            colldiag_sel_free(wrong);
            colldiag_file_close(f);
            unsigned char *img = expected_image(0, gen); /* no dataset written: the initial file */
            check_file(img, "after the failed call");
            free(img);
            colldiag_xfer_free(x);
            call_free(&c);
            return;
        }
        int rc = colldiag_write_multi(f, (size_t)nd, (const colldiag_layout *const *)c.l, (const colldiag_sel *const *)c.fs,
                                      (const colldiag_sel *const *)c.ms, wb, x);
        CHECK(rc == 0, "write_multi: %d %s", rc, colldiag_xfer_errmsg(x));
        /* each dataset by the rules */
        size_t nds = 0;
        CHECK(colldiag_get_ndatasets(x, &nds) == 0 && nds == (size_t)nd, "ndatasets %zu", nds);
        const int coll = sch[si].mode == COLLDIAG_MPIO_COLLECTIVE;
        int modes[MAXD];
        uint32_t call_cause = 0;
        for (int d = 0; d < nd; d++) {
            colldiag_actual_chunk_opt_mode_t o;
            colldiag_actual_io_mode_t m;
            uint32_t lc, gc;
            CHECK(colldiag_get_dataset_mpio(x, (size_t)d, &o, &m, &lc, &gc) == 0, "dataset getter");
            modes[d] = (int)m;
            uint32_t want_cause = (coll ? 0u : (uint32_t)COLLDIAG_MPIO_SET_INDEPENDENT) |
                                  (D[d].kind == 2 ? (uint32_t)COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET : 0u);
            call_cause |= want_cause;
            CHECK(gc == want_cause && lc == want_cause, "dataset %d causes local %#x global %#x, want %#x", d, lc, gc, want_cause);
            if (!coll || D[d].kind == 2) {
                CHECK(m == COLLDIAG_MPIO_NO_COLLECTIVE && o == COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION, "dataset %d: %s/%s, want none", d,
                      colldiag_chunk_opt_name(o), colldiag_io_mode_name(m));
            } else if (D[d].kind == 0) {
                CHECK(m == COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE && o == COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION, "dataset %d: %s/%s, want contiguous", d,
                      colldiag_chunk_opt_name(o), colldiag_io_mode_name(m));
            } else if (sch[si].opt == COLLDIAG_MPIO_CHUNK_ONE_IO) {
                CHECK(o == COLLDIAG_MPIO_LINK_CHUNK && m == COLLDIAG_MPIO_CHUNK_COLLECTIVE, "dataset %d: %s/%s, want link", d,
                      colldiag_chunk_opt_name(o), colldiag_io_mode_name(m));
            } else if (sch[si].opt == COLLDIAG_MPIO_CHUNK_MULTI_IO) { /* ratio 0: every touched chunk collective */
                CHECK(o == COLLDIAG_MPIO_MULTI_CHUNK && m == (c.n[d] ? COLLDIAG_MPIO_CHUNK_COLLECTIVE : COLLDIAG_MPIO_NO_COLLECTIVE),
                      "dataset %d: %s/%s, want multi", d, colldiag_chunk_opt_name(o), colldiag_io_mode_name(m));
            } else if (sch[si].opt == COLLDIAG_MPIO_ALL_CHUNK_IND_IO) {
                CHECK(o == COLLDIAG_MPIO_ALL_CHUNK_IND && m == (c.n[d] ? COLLDIAG_MPIO_CHUNK_INDEPENDENT : COLLDIAG_MPIO_NO_COLLECTIVE),
                      "dataset %d: %s/%s, want all-independent", d, colldiag_chunk_opt_name(o), colldiag_io_mode_name(m));
            } else if (sch[si].opt == COLLDIAG_MPIO_CHUNK_AGGREGATE_IO) {
                CHECK(o == COLLDIAG_MPIO_CHUNK_AGGREGATE && m == COLLDIAG_MPIO_CHUNK_COLLECTIVE, "dataset %d: %s/%s, want aggregation", d,
                      colldiag_chunk_opt_name(o), colldiag_io_mode_name(m));
            }
        }
        /* the call: CHUNK_MIXED when the datasets' modes differ, the OR of the causes */
        colldiag_actual_io_mode_t cm;
        uint32_t cl, cg;
        colldiag_get_mpio_actual_io_mode(x, &cm);
        colldiag_get_mpio_no_collective_cause(x, &cl, &cg);
        int same = 1;
        for (int d = 1; d < nd; d++) same &= modes[d] == modes[0];
        CHECK((int)cm == (same ? modes[0] : COLLDIAG_MPIO_CHUNK_MIXED), "call io mode %s", colldiag_io_mode_name(cm));
        CHECK(cg == call_cause && cl == call_cause, "call causes %#x %#x, want %#x", cl, cg, call_cause);
        /* the reports show every dataset (the fixed link case: what the rules say for each kind) */
        if (!D[0].seed && sch[si].opt == COLLDIAG_MPIO_CHUNK_ONE_IO && sch[si].coll_opt == 0) {
            char *js = NULL, *tx = NULL;
            size_t jn = 0, tn = 0;
            FILE *jf = me == 0 ? open_memstream(&js, &jn) : NULL, *tf = me == 0 ? open_memstream(&tx, &tn) : NULL;
            CHECK(colldiag_report_json(f, x, jf) == 0 && colldiag_report_print(f, x, tf) == 0, "reports");
            if (me == 0) {
                fclose(jf);
                fclose(tf);
                for (int d = 0; d < nd; d++) {
                    const char *co = D[d].kind == 1 ? "LINK_CHUNK" : "NO_CHUNK_OPTIMIZATION";
                    const char *io = D[d].kind == 1 ? "CHUNK_COLLECTIVE" : D[d].kind == 0 ? "CONTIGUOUS_COLLECTIVE" : "NO_COLLECTIVE";
                    const unsigned cause = D[d].kind == 2 ? COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET : 0;
                    char want[256];
                    snprintf(want, sizeof want, "{\"dataset\":%d,\"ranks\":[{\"chunk_opt\":\"%s\",\"io_mode\":\"%s\",\"local_cause\":%u,\"global_cause\":%u}",
                             d, co, io, cause, cause);
                    CHECK(has(js, want), "JSON lacks %s", want);
                    snprintf(want, sizeof want, "dataset %d: %s / %s, 0x%x/0x%x", d, co, io, cause, cause);
                    CHECK(has(tx, want), "text report lacks '%s':\n%s", want, tx);
                }
                char want[64];
                snprintf(want, sizeof want, "%d datasets in this call", nd);
                CHECK(has(tx, want), "text report lacks '%s'", want);
                CHECK(has(js, "\"dataset\":6}") && has(js, "\"dataset\":0}"), "JSON chunk entries carry their dataset (rank 0 touches 0 and 6)");
                free(js);
                free(tx);
            }
        }
        /* chunk info: chunked datasets' pieces, each with its dataset and this rank's element count */
        uint64_t nci = 0, per[MAXD] = {0};
        const colldiag_chunk_info *ci = NULL;
        CHECK(colldiag_get_chunk_info(x, &nci, &ci) == 0, "chunk info");
        for (uint64_t i = 0; i < nci; i++) {
            int d = ci[i].dataset;
            CHECK(d >= 0 && d < nd && D[d].kind == 1, "chunk %" PRIu64 " dataset %d", i, d);
            if (d < 0 || d >= nd || D[d].kind != 1) continue;
            per[d] += ci[i].nelem;
            uint64_t idx = 0;
            for (int k = 0; k < D[d].rank; k++) idx = idx * D[d].grid[k] + ci[i].coords[k];
            CHECK(idx == ci[i].index && ci[i].addr == D[d].addrs[ci[i].index], "chunk %" PRIu64 " of dataset %d: coords/addr", i, d);
        }
        for (int d = 0; d < nd; d++)
            if (D[d].kind == 1) CHECK(per[d] == c.n[d], "dataset %d: chunk info holds %" PRIu64 " elements, selected %" PRIu64, d, per[d], c.n[d]);
        colldiag_file_close(f);
        unsigned char *img = expected_image(nd, gen);
        check_file(img, sch[si].name);
        free(img);
        /* read back every dataset in one call */
        CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open");
        for (int d = 0; d < nd; d++) memset(c.rbuf[d], 0x55, (size_t)(mem_elems(d, c.n[d]) * D[d].es) + 1);
        rc = colldiag_read_multi(f, (size_t)nd, (const colldiag_layout *const *)c.l, (const colldiag_sel *const *)c.fs, (const colldiag_sel *const *)c.ms,
                                 rb, x);
        CHECK(rc == 0, "read_multi: %d %s", rc, colldiag_xfer_errmsg(x));
        for (int d = 0; d < nd; d++)
            CHECK(!memcmp(c.rbuf[d], c.buf[d], (size_t)(mem_elems(d, c.n[d]) * D[d].es) + 1), "dataset %d: read buffer differs", d);
        colldiag_file_close(f);
        colldiag_xfer_free(x);
        call_free(&c);
    }
}

static void test_schemes(void)
{
    for (size_t si = 0; si < NSCH; si++) {
        snprintf(g_case, sizeof g_case, "scheme %s", sch[si].name);
        run_scheme(si, (int)si, 0, -1, -1);
    }
}

/* --fuzz SEED CASES: random calls. 1..MAXD datasets (contiguous, chunked with edge chunks and permuted
   address tables, compact), 1-D to 3-D, 1/2/4/8-byte elements, rows owned by random ranks (or none)
   with random column ranges (unions of boxes) or as shuffled points, packed or strided memory, every
   scheme, sometimes a collective buffer of a few bytes (many rounds). */
static void spec_random(uint64_t seed)
{
    uint64_t r = seed;
#define RND(n) ((r = mix(r)) % (uint64_t)(n))
    nd = 1 + (int)RND(MAXD);
    for (int d = 0; d < nd; d++) {
        dspec *s = &D[d];
        memset(s, 0, sizeof *s);
        uint64_t k = RND(100);
        s->kind = k < 30 ? 0 : k < 85 ? 1 : 2;
        s->rank = 1 + (int)RND(3);
        s->es = (size_t)1 << RND(4);
        s->nelem = 1;
        for (int j = 0; j < s->rank; j++) {
            s->dims[j] = 1 + RND(s->rank == 3 ? 6 : 12);
            s->cdims[j] = 1 + RND(s->dims[j]);
            s->nelem *= s->dims[j];
        }
        s->permuted = (int)RND(2);
        s->seed = seed ^ ((uint64_t)d << 40) ^ 1;
        s->owner = malloc(s->dims[0] * sizeof *s->owner);
        s->c0 = malloc(s->dims[0] * sizeof *s->c0);
        s->c1 = malloc(s->dims[0] * sizeof *s->c1);
        const uint64_t last = s->dims[s->rank - 1];
        for (uint64_t i = 0; i < s->dims[0]; i++) {
            s->owner[i] = (int)RND((uint64_t)P + 1) - 1;
            s->c0[i] = RND(last);
            s->c1[i] = s->c0[i] + RND(last - s->c0[i]);
        }
        for (int q = 0; q < 8; q++) s->points[q] = RND(4) == 0;
    }
#undef RND
    spec_place();
}

/* Case i of seed: the same call whether run in a campaign or alone (--case). */
static void fuzz_case(uint64_t seed, uint64_t i)
{
    const uint64_t cs = mix(seed * 1000003u + i);
    spec_random(cs);
    const size_t si = (size_t)(mix(cs ^ 7) % NSCH), cb = mix(cs ^ 9) % 3 == 0 ? (size_t)(16 + mix(cs ^ 11) % 512) : 0;
    snprintf(g_case, sizeof g_case, "fuzz seed %" PRIu64 " case %" PRIu64 ": %d datasets, %s, buffer %zu", seed, i, nd, sch[si].name, cb);
    /* one call in six (collective schemes): one rank's selection in one dataset is bad */
    const int bad = sch[si].mode == COLLDIAG_MPIO_COLLECTIVE && mix(cs ^ 13) % 6 == 0;
    const int bad_rank = bad ? (int)(mix(cs ^ 15) % (uint64_t)P) : -1, bad_ds = bad ? (int)(mix(cs ^ 17) % (uint64_t)nd) : -1;
    if (bad) {
        const size_t l = strlen(g_case);
        snprintf(g_case + l, sizeof g_case - l, ", rank %d bad in dataset %d", bad_rank, bad_ds);
    }
    const int before = failures;
    run_scheme(si, (int)(i % 200), cb, bad_rank, bad_ds);
    if (failures != before && me == 0) printf("replay: mpirun -n %d test_multi --fuzz %" PRIu64 " 1 --case %" PRIu64 "\n", P, seed, i);
    spec_free();
}

static void fuzz(uint64_t seed, uint64_t cases)
{
    for (uint64_t i = 0; i < cases; i++) fuzz_case(seed, i);
}

/* a link call over the collective datasets that fit the buffer: one collective data call per rank;
   the same datasets in single calls: one each */
static void test_one_call(void)
{
    snprintf(g_case, sizeof g_case, "one collective call");
    reset_file();
    colldiag_file *f = NULL;
    colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    call c;
    call_init(&c, 3);
    colldiag_xfer *x = NULL;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_ONE_IO);
    /* every dataset but the compact one (5), which moves independently */
    const colldiag_layout *l[ND];
    const colldiag_sel *fs[ND], *ms[ND];
    const void *wb[ND];
    size_t n = 0;
    for (int d = 0; d < ND; d++)
        if (D[d].kind != 2) { l[n] = c.l[d]; fs[n] = c.fs[d]; ms[n] = c.ms[d]; wb[n] = c.buf[d]; n++; }
    pmpi_reset();
    int rc = colldiag_write_multi(f, n, l, fs, ms, wb, x);
    CHECK(rc == 0, "write_multi: %s", colldiag_xfer_errmsg(x));
    CHECK(g_pmpi.coll_calls == 1 && g_pmpi.ind_calls == 0, "one call: %" PRIu64 " collective, %" PRIu64 " independent data calls",
          g_pmpi.coll_calls, g_pmpi.ind_calls);
    colldiag_counters cnt;
    colldiag_get_counters(x, &cnt);
    uint64_t mine = 0;
    for (int d = 0; d < ND; d++)
        if (D[d].kind != 2) mine += c.n[d] * D[d].es;
    CHECK(cnt.calls_collective == 1 && cnt.bytes_collective == mine, "counters: %" PRIu64 " calls, %" PRIu64 " bytes, want 1, %" PRIu64,
          cnt.calls_collective, cnt.bytes_collective, mine);
    /* the plan says the same */
    colldiag_xfer *px = NULL;
    colldiag_xfer_create(&px);
    colldiag_set_dxpl_mpio(px, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(px, COLLDIAG_MPIO_CHUNK_ONE_IO);
    pmpi_reset();
    CHECK(colldiag_plan_multi(f, n, l, fs, ms, px) == 0, "plan_multi: %s", colldiag_xfer_errmsg(px));
    colldiag_get_counters(px, &cnt);
    CHECK(g_pmpi.coll_calls == 0 && cnt.calls_collective == 1 && cnt.bytes_collective == mine, "plan: %" PRIu64 " data calls made, %" PRIu64 " planned",
          g_pmpi.coll_calls, cnt.calls_collective);
    colldiag_xfer_free(px);
    /* n single calls: n collective calls */
    pmpi_reset();
    for (size_t i = 0; i < n; i++) CHECK(colldiag_write(f, l[i], fs[i], ms[i], wb[i], x) == 0, "single %zu", i);
    CHECK(g_pmpi.coll_calls == n, "%zu single calls made %" PRIu64 " collective data calls", n, g_pmpi.coll_calls);
    /* a collective buffer smaller than the call: more rounds, every byte still right */
    colldiag_set_coll_buffer(x, 64);
    CHECK(colldiag_write_multi(f, n, l, fs, ms, wb, x) == 0, "small buffer: %s", colldiag_xfer_errmsg(x));
    colldiag_file_close(f);
    /* the image: every dataset but 5 */
    unsigned char *img = expected_image(ND, 3);
    for (uint64_t i = 0; i < D[5].nelem * D[5].es; i++) img[D[5].base + (MPI_Offset)i] = FILL;
    check_file(img, "one call");
    free(img);
    colldiag_xfer_free(x);
    call_free(&c);
}

/* HDF5 1.14's rules (colldiag_set_hdf5_rules 114): a multi-dataset call is decided as a whole, as HDF5
   1.14.5's H5Dwrite_multi (checked against HDF5 itself by tests/test_multi_entry.sh). With the compact
   dataset (a cause of its own: NOT_CONTIGUOUS_OR_CHUNKED) every dataset goes independent and reports
   the call's causes, where 1.10's rules keep the others collective; the bytes are still every
   dataset's. Without it, selection I/O links every dataset whatever the chunk optimisation asks
   (LINK_CHUNK; chunked CHUNK_COLLECTIVE, contiguous CONTIGUOUS_COLLECTIVE, the call the OR of both);
   with selection I/O off, forced multi-chunk is multi-chunk again. */
static void test_rules_114(void)
{
    snprintf(g_case, sizeof g_case, "HDF5 1.14's rules");
    reset_file();
    colldiag_file *f = NULL;
    CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open");
    call c;
    call_init(&c, 4);
    const colldiag_layout *l[ND];
    const colldiag_sel *fs[ND], *ms[ND];
    const void *wb[ND];
    int kind[ND], has_kind[3] = {0, 0, 0};
    size_t n = 0;
    for (int d = 0; d < ND; d++) { l[d] = c.l[d]; fs[d] = c.fs[d]; ms[d] = c.ms[d]; wb[d] = c.buf[d]; kind[d] = D[d].kind; }
    for (int rules = 110; rules <= 114; rules += 4) { /* every dataset, the compact one too */
        colldiag_xfer *x = NULL;
        colldiag_xfer_create(&x);
        colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_hdf5_rules(x, (colldiag_hdf5_rules_t)rules);
        CHECK(colldiag_plan_multi(f, ND, l, fs, ms, x) == 0, "rules %d plan: %s", rules, colldiag_xfer_errmsg(x));
        uint32_t lc = 0, gc = 0;
        colldiag_get_mpio_no_collective_cause(x, &lc, &gc);
        CHECK(gc == COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET, "rules %d: the call's causes 0x%x", rules, gc);
        for (int d = 0; d < ND; d++) {
            colldiag_actual_io_mode_t io = COLLDIAG_MPIO_NO_COLLECTIVE;
            uint32_t g = 0;
            colldiag_get_dataset_mpio(x, (size_t)d, NULL, &io, NULL, &g);
            const int indep = rules == 114 || kind[d] == 2; /* 1.14: the whole call; 1.10: the compact one */
            CHECK(indep ? io == COLLDIAG_MPIO_NO_COLLECTIVE && g == COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET : io != COLLDIAG_MPIO_NO_COLLECTIVE && g == 0,
                  "rules %d dataset %d (kind %d): io mode %s, causes 0x%x", rules, d, kind[d], colldiag_io_mode_name(io), g);
        }
        if (rules == 114) { /* and the bytes: every dataset written, independently */
            CHECK(colldiag_write_multi(f, ND, l, fs, ms, wb, x) == 0, "1.14 write: %s", colldiag_xfer_errmsg(x));
            colldiag_counters cnt;
            colldiag_get_counters(x, &cnt);
            CHECK(cnt.calls_collective == 0, "1.14 write: %" PRIu64 " collective calls", cnt.calls_collective);
        }
        colldiag_xfer_free(x);
    }
    colldiag_file_close(f);
    unsigned char *img = expected_image(ND, 4);
    check_file(img, "1.14's rules, whole call independent");
    free(img);
    CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open");
    for (int d = 0; d < ND; d++)
        if (kind[d] != 2) { l[n] = c.l[d]; fs[n] = c.fs[d]; ms[n] = c.ms[d]; kind[n] = kind[d]; has_kind[kind[d]] = 1; n++; }
    static const struct { int opt, sel_off; } v[] = {{COLLDIAG_MPIO_CHUNK_DEFAULT, 0}, {COLLDIAG_MPIO_CHUNK_ONE_IO, 0}, {COLLDIAG_MPIO_CHUNK_MULTI_IO, 0},
                                                     {COLLDIAG_MPIO_CHUNK_MULTI_IO, 1}};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
        colldiag_xfer *x = NULL;
        colldiag_xfer_create(&x);
        colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_hdf5_rules(x, COLLDIAG_HDF5_RULES_1_14);
        colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)v[k].opt);
        if (v[k].sel_off) colldiag_set_selection_io(x, COLLDIAG_SELECTION_IO_OFF);
        CHECK(colldiag_plan_multi(f, n, l, fs, ms, x) == 0, "case %zu plan: %s", k, colldiag_xfer_errmsg(x));
        colldiag_actual_chunk_opt_mode_t co = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
        colldiag_actual_io_mode_t io = COLLDIAG_MPIO_NO_COLLECTIVE;
        colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
        colldiag_get_mpio_actual_io_mode(x, &io);
        if (!v[k].sel_off) {
            const colldiag_actual_io_mode_t want = has_kind[0] && has_kind[1] ? COLLDIAG_MPIO_CHUNK_CONTIGUOUS_COLLECTIVE
                                                 : has_kind[1] ? COLLDIAG_MPIO_CHUNK_COLLECTIVE : COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE;
            CHECK(co == COLLDIAG_MPIO_LINK_CHUNK && io == want, "case %zu: the call %s/%s, want LINK_CHUNK/%s", k, colldiag_chunk_opt_name(co),
                  colldiag_io_mode_name(io), colldiag_io_mode_name(want));
        }
        for (size_t d = 0; d < n; d++) {
            colldiag_actual_chunk_opt_mode_t dco = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
            colldiag_actual_io_mode_t dio = COLLDIAG_MPIO_NO_COLLECTIVE;
            colldiag_get_dataset_mpio(x, d, &dco, &dio, NULL, NULL);
            if (v[k].sel_off && kind[d] == 1)
                CHECK(dco == COLLDIAG_MPIO_MULTI_CHUNK, "case %zu dataset %zu: %s, want MULTI_CHUNK", k, d, colldiag_chunk_opt_name(dco));
            else if (!v[k].sel_off)
                CHECK(dco == COLLDIAG_MPIO_LINK_CHUNK && dio == (kind[d] ? COLLDIAG_MPIO_CHUNK_COLLECTIVE : COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE),
                      "case %zu dataset %zu (kind %d): %s/%s", k, d, kind[d], colldiag_chunk_opt_name(dco), colldiag_io_mode_name(dio));
        }
        colldiag_xfer_free(x);
    }
    colldiag_file_close(f);
    call_free(&c);
}

/* errors: every rank fails, the messages name the rank and the dataset, no byte moves */
static void test_errors(void)
{
    for (int t = 0; t < 6; t++) {
        static const char *names[] = {"bad selection in dataset 3 on the last rank", "rank 0 passes n - 1", "NULL layouts on the last rank",
                                      "NULL buffer in dataset 2 on rank 0", "overlapping datasets", "n = 0"};
        snprintf(g_case, sizeof g_case, "error: %s", names[t]);
        reset_file();
        colldiag_file *f = NULL;
        colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
        call c;
        call_init(&c, 1);
        colldiag_xfer *x = NULL;
        colldiag_xfer_create(&x);
        colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_ONE_IO);
        const void *wb[ND];
        for (int d = 0; d < ND; d++) wb[d] = c.buf[d];
        const colldiag_layout *la[ND], **l = la;
        const colldiag_sel *fsa[ND];
        for (int d = 0; d < ND; d++) { la[d] = c.l[d]; fsa[d] = c.fs[d]; }
        colldiag_sel *wrong = NULL;
        size_t n = ND;
        colldiag_layout *ov = NULL;
        int bad = -1, want_ds = -1;
        if (t == 0 && me == P - 1) {
            uint64_t dims[2] = {9, 12};
            colldiag_sel_create(2, dims, &wrong);
            fsa[3] = wrong;
        }
        if (t == 0) { bad = P - 1; want_ds = 3; }
        if (t == 1 && me == 0) n = ND - 1;
        if (t == 2) bad = P - 1;
        if (t == 2 && me == P - 1) l = NULL;
        if (t == 3) { bad = 0; want_ds = 2; }
        if (t == 3 && me == 0) wb[2] = NULL;
        if (t == 4) { /* dataset 1 moved onto dataset 0's storage */
            colldiag_layout_contiguous(1, D[1].dims, 8, D[0].addrs[0] + 8, &ov);
            la[1] = ov;
        }
        if (t == 5) n = 0;
        int rc = colldiag_write_multi(f, n, l, fsa, (const colldiag_sel *const *)c.ms, wb, x);
        const char *msg = colldiag_xfer_errmsg(x);
        if (t == 5) {
            CHECK(rc == 0, "n = 0: %d %s", rc, msg);
        } else if (bad >= 0) {
            char want[64];
            if (me == bad) {
                CHECK(rc == COLLDIAG_ERR_ARG, "failing rank: rc %d %s", rc, msg);
                snprintf(want, sizeof want, "(dataset %d)", want_ds);
                CHECK(want_ds < 0 || has(msg, want), "failing rank's message lacks '%s': %s", want, msg);
            } else {
                CHECK(rc == COLLDIAG_ERR_PEER, "other rank: rc %d %s", rc, msg);
                snprintf(want, sizeof want, "rank %d found a bad argument", bad);
                CHECK(has(msg, want), "message lacks '%s': %s", want, msg);
                snprintf(want, sizeof want, "in dataset %d", want_ds);
                CHECK(want_ds < 0 || has(msg, want), "message lacks '%s': %s", want, msg);
            }
        } else if (t == 1) {
            if (P == 1) CHECK(rc == 0, "P = 1, n - 1: a valid call: %d %s", rc, msg);
            else CHECK(rc == COLLDIAG_ERR_ARG && has(msg, "disagree"), "n differs: rc %d %s", rc, msg);
        } else {
            /* the overlap is found from the ranks' pieces (every chunk address of both datasets would grow
               with their chunk counts): a rank with no piece in the overlapping storage (at 16 ranks, some
               select no row of it) cannot see it and names the rank that did; at least one must */
            const int found = rc == COLLDIAG_ERR_ARG && has(msg, "overlaps");
            CHECK(found || (rc == COLLDIAG_ERR_PEER && has(msg, "found a bad argument")), "overlap: rc %d %s", rc, msg);
            int any = 0;
            MPI_Allreduce(&found, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            CHECK(any, "overlap: no rank found it");
        }
        colldiag_file_close(f);
        /* nothing moved (P = 1 with n - 1 is a valid call: 6 datasets written) */
        unsigned char *img = expected_image(t == 1 && P == 1 ? ND - 1 : 0, 1);
        check_file(img, names[t]);
        free(img);
        colldiag_sel_free(wrong);
        colldiag_layout_free(ov);
        colldiag_xfer_free(x);
        call_free(&c);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* AUTO's model is what this program checks (tests/test_auto.c checks its measurements): the
       measured choice of a pattern's later calls follows the machine's timings */
    if (!getenv("COLLDIAG_AUTO_MODE")) setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    path = "test_multi.bin";
    uint64_t seed = 0, cases = 0, only = UINT64_MAX;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fuzz") && i + 2 < argc) {
            seed = strtoull(argv[i + 1], NULL, 10);
            cases = strtoull(argv[i + 2], NULL, 10);
            i += 2;
        } else if (!strcmp(argv[i], "--case") && i + 1 < argc) {
            only = strtoull(argv[++i], NULL, 10);
        } else {
            path = argv[i];
        }
    }
    if (cases) {
        if (only != UINT64_MAX) {
            fuzz_case(seed, only);
        } else {
            fuzz(seed, cases);
        }
    } else {
        spec_init();
        test_schemes();
        test_one_call();
        test_rules_114();
        test_errors();
        spec_free();
    }
    if (me == 0) unlink(path);
    int rc = test_summary(cases ? "test_multi --fuzz" : "test_multi");
    MPI_Finalize();
    return rc;
}
