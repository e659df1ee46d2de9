/* A netCDF-4 parallel program (no colldiag in it) that exercises what netCDF-C's own parallel tests
 * do, for the preload's COLLDIAG_ACCELERATE=1 test: plain and accelerated runs must print the same,
 * exit alike and leave the same file. It checks its own data: every rank keeps a model of every
 * variable (what each write of every rank put where, the fill value elsewhere), computed from the
 * decomposition alone, and compares every read with it.
 *
 * What it covers (one file, closed and reopened twice):
 *   - every fixed-size netCDF type (byte .. uint64, float, double, char), 1-D with edge chunks,
 *     written collectively through nc_put_vara with the variable's own type;
 *   - 2-D slabs per rank, collective and independent, contiguous and chunked (edge chunks);
 *   - an unlimited 4-D variable extended by collective writes (one record by every rank, one by
 *     rank 0 alone while the others write nothing, more after reopening), and an independent write
 *     past its extent, which netCDF refuses (NC_ECANTEXTEND) in both runs alike;
 *   - uneven hyperslabs (blocks of different shapes per rank), overwritten by another decomposition;
 *   - strided writes (nc_put_vars: every P-th column per rank) and strided reads;
 *   - ranks with nothing to write in a collective call; nc_put_var1 on every rank;
 *   - a variable switched between collective and independent access between writes;
 *   - a short variable written from ints and read as doubles (HDF5 converts: memory type differs);
 *   - a deflated variable (filtered: HDF5 writes it), a NOFILL variable, a custom _FillValue;
 *   - reads by another decomposition than the writes (rank r reads rank r+1's part), whole-variable
 *     reads on every rank, in both access modes.
 *
 *   mpirun -n 3 [-x LD_PRELOAD=... -x COLLDIAG_ACCELERATE] nc_suite FILE.nc
 */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, P, bad, checks;

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        int e_ = (call);                                                                              \
        if (e_ != NC_NOERR) { printf("rank %d line %d: %s: %s\n", me, __LINE__, #call, nc_strerror(e_)); bad++; } \
    } while (0)

/* One variable and the model of its contents: img holds what the file must hold, element by element
   in the variable's own type, for records 0 .. len0 - 1 of an unlimited first dimension. */
typedef struct {
    const char *name;
    nc_type t;
    int nd, unlim, varid;
    size_t dims[4];   /* dims[0]: the records the model holds room for, when unlimited */
    size_t len0;      /* records written so far (unlimited), else dims[0] */
    size_t es;
    unsigned char *img;
} var_t;

static size_t type_size(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_UBYTE: case NC_CHAR: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    default: return 8;
    }
}

/* v as an element of type t (the bytes netCDF would store for a value written in type t itself) */
static void put_elem(unsigned char *p, nc_type t, long long v)
{
    switch (t) {
    case NC_BYTE: { signed char x = (signed char)v; memcpy(p, &x, 1); break; }
    case NC_CHAR: { char x = (char)('a' + (v % 26 + 26) % 26); memcpy(p, &x, 1); break; }
    case NC_UBYTE: { unsigned char x = (unsigned char)v; memcpy(p, &x, 1); break; }
    case NC_SHORT: { short x = (short)v; memcpy(p, &x, 2); break; }
    case NC_USHORT: { unsigned short x = (unsigned short)v; memcpy(p, &x, 2); break; }
    case NC_INT: { int x = (int)v; memcpy(p, &x, 4); break; }
    case NC_UINT: { unsigned x = (unsigned)v; memcpy(p, &x, 4); break; }
    case NC_FLOAT: { float x = (float)v * 0.5f; memcpy(p, &x, 4); break; }
    case NC_INT64: { long long x = v * 1000003LL; memcpy(p, &x, 8); break; }
    case NC_UINT64: { unsigned long long x = (unsigned long long)v * 7919ULL; memcpy(p, &x, 8); break; }
    default: { double x = (double)v * 0.25; memcpy(p, &x, 8); break; }
    }
}

static void fill_elem(unsigned char *p, nc_type t)
{
    switch (t) {
    case NC_BYTE: { signed char x = NC_FILL_BYTE; memcpy(p, &x, 1); break; }
    case NC_CHAR: { char x = NC_FILL_CHAR; memcpy(p, &x, 1); break; }
    case NC_UBYTE: { unsigned char x = NC_FILL_UBYTE; memcpy(p, &x, 1); break; }
    case NC_SHORT: { short x = NC_FILL_SHORT; memcpy(p, &x, 2); break; }
    case NC_USHORT: { unsigned short x = NC_FILL_USHORT; memcpy(p, &x, 2); break; }
    case NC_INT: { int x = NC_FILL_INT; memcpy(p, &x, 4); break; }
    case NC_UINT: { unsigned x = NC_FILL_UINT; memcpy(p, &x, 4); break; }
    case NC_FLOAT: { float x = NC_FILL_FLOAT; memcpy(p, &x, 4); break; }
    case NC_INT64: { long long x = NC_FILL_INT64; memcpy(p, &x, 8); break; }
    case NC_UINT64: { unsigned long long x = NC_FILL_UINT64; memcpy(p, &x, 8); break; }
    default: { double x = NC_FILL_DOUBLE; memcpy(p, &x, 8); break; }
    }
}

/* The value rank `who` writes at element g of variable k in write number seq: a function of all
   four, so that a byte landing at the wrong place, from the wrong rank or the wrong write shows. */
static long long value(int k, int seq, int who, size_t g)
{
    return (long long)(((uint64_t)k * 977 + (uint64_t)seq * 131 + (uint64_t)who * 7 + (uint64_t)g * 31) % 20011) - 10005;
}

static size_t nelem(const var_t *v)
{
    size_t n = 1;
    for (int d = 0; d < v->nd; d++) n *= v->dims[d];
    return n;
}

static void model_init(var_t *v, const void *fill)
{
    v->es = type_size(v->t);
    v->len0 = v->unlim ? 0 : v->dims[0];
    const size_t n = nelem(v);
    v->img = malloc(n * v->es);
    for (size_t i = 0; i < n; i++) {
        if (fill) memcpy(v->img + i * v->es, fill, v->es);
        else fill_elem(v->img + i * v->es, v->t);
    }
}

/* Calls f for every element of the strided box (start, count, stride) in C order: its position in
   the variable (g) and in the box (b). */
static void box_each(const var_t *v, const size_t *start, const size_t *count, const ptrdiff_t *stride,
                     void (*f)(const var_t *, size_t g, size_t b, void *), void *ctx)
{
    size_t n = 1, idx[4] = {0, 0, 0, 0};
    for (int d = 0; d < v->nd; d++) n *= count[d];
    for (size_t b = 0; b < n; b++) {
        size_t g = 0;
        for (int d = 0; d < v->nd; d++) g = g * v->dims[d] + start[d] + idx[d] * (size_t)(stride ? stride[d] : 1);
        f(v, g, b, ctx);
        for (int d = v->nd - 1; d >= 0; d--) {
            if (++idx[d] < count[d]) break;
            idx[d] = 0;
        }
    }
}

typedef struct { int k, seq, who; unsigned char *buf; } gen_ctx;
static void gen_one(const var_t *v, size_t g, size_t b, void *c)
{
    const gen_ctx *x = c;
    put_elem(x->buf + b * v->es, v->t, value(x->k, x->seq, x->who, g));
}
static void apply_one(const var_t *v, size_t g, size_t b, void *c)
{
    const gen_ctx *x = c;
    put_elem(v->img + g * v->es, v->t, value(x->k, x->seq, x->who, g));
    (void)b;
}
typedef struct { const unsigned char *got; int wrong; } cmp_ctx;
static void cmp_one(const var_t *v, size_t g, size_t b, void *c)
{
    cmp_ctx *x = c;
    x->wrong += memcmp(x->got + b * v->es, v->img + g * v->es, v->es) != 0;
}

static size_t box_n(const var_t *v, const size_t *count)
{
    size_t n = 1;
    for (int d = 0; d < v->nd; d++) n *= count[d];
    return n;
}

/* What rank `who` writes (start, count, stride) in write seq, applied to the model on every rank;
   the calling rank also writes it when who is itself. */
static void model_apply(var_t *vs, int k, int seq, int who, const size_t *start, const size_t *count, const ptrdiff_t *stride)
{
    var_t *v = &vs[k];
    gen_ctx c = {k, seq, who, NULL};
    box_each(v, start, count, stride, apply_one, &c);
    if (v->unlim && box_n(v, count) && start[0] + (count[0] - 1) * (size_t)(stride ? stride[0] : 1) + 1 > v->len0)
        v->len0 = start[0] + (count[0] - 1) * (size_t)(stride ? stride[0] : 1) + 1;
}

/* Writes this rank's box of write seq (every rank calls it for a collective variable), and applies
   every rank's box to the model: box(r, start, count) says rank r's part. */
typedef void (*box_fn)(const var_t *v, int r, size_t *start, size_t *count, ptrdiff_t *stride);

static void put_all(int nc, var_t *vs, int k, int seq, box_fn box, int strided)
{
    var_t *v = &vs[k];
    for (int r = 0; r < P; r++) {
        size_t st[4] = {0}, cn[4] = {0};
        ptrdiff_t sd[4] = {1, 1, 1, 1};
        box(v, r, st, cn, sd);
        if (r == me) {
            const size_t n = box_n(v, cn);
            unsigned char *buf = malloc(n * v->es + 1);
            gen_ctx c = {k, seq, me, buf};
            box_each(v, st, cn, strided ? sd : NULL, gen_one, &c);
            if (strided) CHECK(nc_put_vars(nc, v->varid, st, cn, sd, buf));
            else CHECK(nc_put_vara(nc, v->varid, st, cn, buf));
            free(buf);
        }
    }
    for (int r = 0; r < P; r++) { /* the model after every rank's write, in rank order (no overlaps) */
        size_t st[4] = {0}, cn[4] = {0};
        ptrdiff_t sd[4] = {1, 1, 1, 1};
        box(v, r, st, cn, sd);
        model_apply(vs, k, seq, r, st, cn, strided ? sd : NULL);
    }
}

/* Reads box (start, count, stride) on this rank and compares it with the model. */
static void get_check(int nc, const var_t *v, const size_t *st, const size_t *cn, const ptrdiff_t *sd)
{
    const size_t n = box_n(v, cn);
    unsigned char *buf = malloc(n * v->es + 1);
    memset(buf, 0xA5, n * v->es + 1);
    if (sd) CHECK(nc_get_vars(nc, v->varid, st, cn, sd, buf));
    else CHECK(nc_get_vara(nc, v->varid, st, cn, buf));
    cmp_ctx c = {buf, 0};
    box_each(v, st, cn, sd, cmp_one, &c);
    if (c.wrong) {
        printf("rank %d: %s: %d of %zu elements read differ from what was written\n", me, v->name, c.wrong, n);
        bad++;
    }
    checks++;
    free(buf);
}

/* ---- the decompositions ---- */
static size_t part_lo(size_t n, int r) { return n * (size_t)r / (size_t)P; }
static size_t part_n(size_t n, int r) { return part_lo(n, r + 1) - part_lo(n, r); }

static void box_1d(const var_t *v, int r, size_t *st, size_t *cn, ptrdiff_t *sd)
{
    st[0] = part_lo(v->dims[0], r);
    cn[0] = part_n(v->dims[0], r);
    (void)sd;
}

static void box_cols(const var_t *v, int r, size_t *st, size_t *cn, ptrdiff_t *sd) /* every row, a range of columns */
{
    st[0] = 0; cn[0] = v->dims[0];
    st[1] = part_lo(v->dims[1], r); cn[1] = part_n(v->dims[1], r);
    (void)sd;
}

/* Uneven blocks: ranks 0 .. P-2 split the left half's rows, the last rank takes the right half
   whole (one rank: everything). */
static void box_hyper(const var_t *v, int r, size_t *st, size_t *cn, ptrdiff_t *sd)
{
    const size_t half = P > 1 ? v->dims[1] / 2 : v->dims[1];
    if (r < P - 1 || P == 1) {
        const int q = P > 1 ? P - 1 : 1;
        st[0] = v->dims[0] * (size_t)r / (size_t)q;
        cn[0] = v->dims[0] * (size_t)(r + 1) / (size_t)q - st[0];
        st[1] = 0; cn[1] = half;
    } else {
        st[0] = 0; cn[0] = v->dims[0];
        st[1] = half; cn[1] = v->dims[1] - half;
    }
    (void)sd;
}
/* The same blocks, each written by the next rank: another rank's data over every block */
static void box_hyper_shift(const var_t *v, int r, size_t *st, size_t *cn, ptrdiff_t *sd) { box_hyper(v, (r + 1) % P, st, cn, sd); }

static void box_stride(const var_t *v, int r, size_t *st, size_t *cn, ptrdiff_t *sd) /* columns r, r+P, ... */
{
    st[0] = 0; cn[0] = v->dims[0]; sd[0] = 1;
    st[1] = (size_t)r; cn[1] = v->dims[1] > (size_t)r ? (v->dims[1] - (size_t)r + (size_t)P - 1) / (size_t)P : 0; sd[1] = P;
}

static void box_even_rows(const var_t *v, int r, size_t *st, size_t *cn, ptrdiff_t *sd) /* odd ranks write nothing */
{
    st[0] = (size_t)r; cn[0] = r % 2 ? 0 : 1;
    st[1] = 0; cn[1] = v->dims[1];
    (void)sd;
}

static size_t record; /* the unlimited variable's record the next write goes to */
static void box_record(const var_t *v, int r, size_t *st, size_t *cn, ptrdiff_t *sd) /* one record, split by the last dim */
{
    st[0] = record; cn[0] = 1;
    for (int d = 1; d < v->nd - 1; d++) { st[d] = 0; cn[d] = v->dims[d]; }
    st[v->nd - 1] = part_lo(v->dims[v->nd - 1], r); cn[v->nd - 1] = part_n(v->dims[v->nd - 1], r);
    (void)sd;
}
static void box_record_rank0(const var_t *v, int r, size_t *st, size_t *cn, ptrdiff_t *sd) /* rank 0 writes it all */
{
    st[0] = record; cn[0] = r == 0;
    for (int d = 1; d < v->nd; d++) { st[d] = 0; cn[d] = r == 0 ? v->dims[d] : 0; }
    (void)sd;
}

enum { V_TYPES = 0, NTYPES = 11, V_COLL = NTYPES, V_IND, V_CONTIG, V_HYPER, V_STRIDE, V_SPARSE, V_UNLIM, V_SWITCH, V_CONV, V_ZIP, V_NOFILL,
       V_MYFILL, NV };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2) { if (!me) fprintf(stderr, "usage: nc_suite FILE.nc\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    const char *path = argv[1];
    static const nc_type types[NTYPES] = {NC_BYTE, NC_UBYTE, NC_CHAR, NC_SHORT, NC_USHORT, NC_INT, NC_UINT, NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE};
    static const char *tnames[NTYPES] = {"t_byte", "t_ubyte", "t_char", "t_short", "t_ushort", "t_int", "t_uint", "t_int64", "t_uint64", "t_float", "t_double"};
    var_t v[NV];
    memset(v, 0, sizeof v);
    const size_t Pz = (size_t)P;
    for (int k = 0; k < NTYPES; k++) v[k] = (var_t){tnames[k], types[k], 1, 0, -1, {Pz * 37}, 0, 0, NULL};
    v[V_COLL] = (var_t){"coll", NC_INT, 2, 0, -1, {4, Pz * 64}, 0, 0, NULL};
    v[V_IND] = (var_t){"ind", NC_INT, 2, 0, -1, {4, Pz * 64}, 0, 0, NULL};
    v[V_CONTIG] = (var_t){"contig", NC_DOUBLE, 2, 0, -1, {Pz * 5, 7}, 0, 0, NULL};
    v[V_HYPER] = (var_t){"hyper", NC_INT, 2, 0, -1, {9, 25}, 0, 0, NULL};
    v[V_STRIDE] = (var_t){"strided", NC_SHORT, 2, 0, -1, {16, 30}, 0, 0, NULL};
    v[V_SPARSE] = (var_t){"sparse", NC_FLOAT, 2, 0, -1, {Pz, 50}, 0, 0, NULL};
    v[V_UNLIM] = (var_t){"unlim", NC_INT, 4, 1, -1, {8, 4, 4, Pz * 96}, 0, 0, NULL};
    v[V_SWITCH] = (var_t){"switched", NC_DOUBLE, 1, 0, -1, {Pz * 10}, 0, 0, NULL};
    v[V_CONV] = (var_t){"converted", NC_SHORT, 1, 0, -1, {Pz * 20}, 0, 0, NULL};
    v[V_ZIP] = (var_t){"zipped", NC_INT, 2, 0, -1, {Pz * 16, 8}, 0, 0, NULL};
    v[V_NOFILL] = (var_t){"nofill", NC_INT, 1, 0, -1, {Pz * 33}, 0, 0, NULL};
    v[V_MYFILL] = (var_t){"myfill", NC_INT, 2, 0, -1, {6, Pz * 8}, 0, 0, NULL};
    const int myfill = -4242;
    for (int k = 0; k < NV; k++) model_init(&v[k], k == V_MYFILL ? &myfill : NULL);

    /* ---- phase 1: define, write ---- */
    int nc, ecantextend = 0;
    CHECK(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &nc));
    for (int k = 0; k < NV; k++) {
        int dim[4];
        for (int d = 0; d < v[k].nd; d++) {
            char dn[64];
            snprintf(dn, sizeof dn, "%s_d%d", v[k].name, d);
            CHECK(nc_def_dim(nc, dn, d == 0 && v[k].unlim ? NC_UNLIMITED : v[k].dims[d], &dim[d]));
        }
        CHECK(nc_def_var(nc, v[k].name, v[k].t, v[k].nd, dim, &v[k].varid));
        size_t ch[4] = {16, 16, 16, 16};
        if (k < NTYPES) { CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, (size_t[]){16})); continue; } /* edge chunks */
        switch (k) {
        case V_COLL: case V_IND: ch[0] = 3; ch[1] = 40; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); break;
        case V_CONTIG: CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CONTIGUOUS, NULL)); break;
        case V_HYPER: ch[0] = 4; ch[1] = 6; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); break;
        case V_STRIDE: ch[0] = 5; ch[1] = 7; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); break;
        case V_SPARSE: ch[0] = 1; ch[1] = 16; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); break;
        case V_UNLIM: ch[0] = 1; ch[1] = 2; ch[2] = 4; ch[3] = 64; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); break;
        case V_SWITCH: ch[0] = 7; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); break;
        case V_CONV: ch[0] = 9; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); break;
        case V_ZIP: ch[0] = 4; ch[1] = 8; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); CHECK(nc_def_var_deflate(nc, v[k].varid, 0, 1, 1)); break;
        case V_NOFILL: ch[0] = 10; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); CHECK(nc_def_var_fill(nc, v[k].varid, 1, NULL)); break;
        case V_MYFILL: ch[0] = 4; ch[1] = 5; CHECK(nc_def_var_chunking(nc, v[k].varid, NC_CHUNKED, ch)); CHECK(nc_def_var_fill(nc, v[k].varid, 0, &myfill)); break;
        }
    }
    CHECK(nc_enddef(nc));
    for (int k = 0; k < NV; k++) CHECK(nc_var_par_access(nc, v[k].varid, k == V_IND ? NC_INDEPENDENT : NC_COLLECTIVE));

    for (int k = 0; k < NTYPES; k++) put_all(nc, v, k, 1, box_1d, 0);
    put_all(nc, v, V_COLL, 1, box_cols, 0);
    put_all(nc, v, V_IND, 1, box_cols, 0);
    put_all(nc, v, V_CONTIG, 1, box_1d, 0); /* rows */
    put_all(nc, v, V_HYPER, 1, box_hyper, 0);
    put_all(nc, v, V_HYPER, 2, box_hyper_shift, 0); /* overwritten: every block by another rank */
    put_all(nc, v, V_STRIDE, 1, box_stride, 1);
    put_all(nc, v, V_SPARSE, 1, box_even_rows, 0);
    record = 0;
    put_all(nc, v, V_UNLIM, 1, box_record, 0); /* extends the variable to one record */
    record = 1;
    put_all(nc, v, V_UNLIM, 2, box_record_rank0, 0); /* to two: rank 0 writes, the others take part with nothing */
    put_all(nc, v, V_SWITCH, 1, box_1d, 0);
    CHECK(nc_var_par_access(nc, v[V_SWITCH].varid, NC_INDEPENDENT));
    if (me % 2) { /* odd ranks rewrite their part independently */
        size_t st = part_lo(v[V_SWITCH].dims[0], me), cn = part_n(v[V_SWITCH].dims[0], me);
        double *b = malloc(cn * sizeof *b + 1);
        gen_ctx c = {V_SWITCH, 2, me, (unsigned char *)b};
        box_each(&v[V_SWITCH], &st, &cn, NULL, gen_one, &c);
        CHECK(nc_put_vara_double(nc, v[V_SWITCH].varid, &st, &cn, b));
        free(b);
    }
    for (int r = 1; r < P; r += 2) {
        size_t st = part_lo(v[V_SWITCH].dims[0], r), cn = part_n(v[V_SWITCH].dims[0], r);
        model_apply(v, V_SWITCH, 2, r, &st, &cn, NULL);
    }
    CHECK(nc_var_par_access(nc, v[V_SWITCH].varid, NC_COLLECTIVE));
    { /* shorts written from ints: netCDF hands HDF5 a memory type that differs from the file's */
        var_t *c = &v[V_CONV];
        size_t st = part_lo(c->dims[0], me), cn = part_n(c->dims[0], me);
        int *b = malloc(cn * sizeof *b + 1);
        for (size_t i = 0; i < cn; i++) b[i] = (int)value(V_CONV, 1, me, st + i);
        CHECK(nc_put_vara_int(nc, c->varid, &st, &cn, b));
        free(b);
        for (int r = 0; r < P; r++) {
            size_t s = part_lo(c->dims[0], r), n = part_n(c->dims[0], r);
            model_apply(v, V_CONV, 1, r, &s, &n, NULL);
        }
    }
    put_all(nc, v, V_ZIP, 1, box_1d, 0); /* rows; deflated: netCDF requires collective access */
    put_all(nc, v, V_NOFILL, 1, box_1d, 0); /* written whole: its unwritten bytes would be undefined */
    put_all(nc, v, V_MYFILL, 1, box_hyper, 0); /* the rest keeps the variable's own fill value */
    { /* nc_put_var1 on every rank: element (rank, rank) of myfill */
        var_t *m = &v[V_MYFILL];
        size_t at[2] = {(size_t)me % m->dims[0], (size_t)me % m->dims[1]}, one[2] = {1, 1};
        int x = (int)value(V_MYFILL, 2, me, at[0] * m->dims[1] + at[1]);
        CHECK(nc_put_var1_int(nc, m->varid, at, &x));
        for (int r = 0; r < P; r++) {
            size_t a[2] = {(size_t)r % m->dims[0], (size_t)r % m->dims[1]};
            model_apply(v, V_MYFILL, 2, r, a, one, NULL);
        }
    }
    { /* an independent write past the unlimited variable's extent: netCDF refuses it on every rank */
        var_t *u = &v[V_UNLIM];
        CHECK(nc_var_par_access(nc, u->varid, NC_INDEPENDENT));
        size_t st[4] = {5, 0, 0, 0}, cn[4] = {1, 1, 1, 1};
        int x = 1;
        const int e = nc_put_vara_int(nc, u->varid, st, cn, &x);
        ecantextend = e == NC_ECANTEXTEND;
        if (!ecantextend) { printf("rank %d: an independent write past the extent returned %d (%s)\n", me, e, nc_strerror(e)); bad++; }
        CHECK(nc_var_par_access(nc, u->varid, NC_COLLECTIVE));
    }
    /* reads while the file is open for writing: another rank's part, collectively */
    for (int k = 0; k < NV; k++) {
        if (k == V_UNLIM) continue;
        size_t st[4] = {0}, cn[4] = {0};
        ptrdiff_t sd[4] = {1, 1, 1, 1};
        box_1d(&v[k], (me + 1) % P, st, cn, sd);
        for (int d = 1; d < v[k].nd; d++) { st[d] = 0; cn[d] = v[k].dims[d]; }
        get_check(nc, &v[k], st, cn, NULL);
    }
    CHECK(nc_close(nc));

    /* ---- phase 2: reopen for writing, more records, reads in both modes ---- */
    CHECK(nc_open_par(path, NC_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &nc));
    for (int k = 0; k < NV; k++) CHECK(nc_inq_varid(nc, v[k].name, &v[k].varid));
    for (int k = 0; k < NV; k++) CHECK(nc_var_par_access(nc, v[k].varid, NC_COLLECTIVE));
    for (record = 2; record < 5; record++) put_all(nc, v, V_UNLIM, (int)record + 1, box_record, 0);
    for (int mode = 0; mode < 2; mode++) {
        for (int k = 0; k < NV; k++) {
            if (mode == 1 && k == V_ZIP) continue; /* netCDF reads a filtered variable collectively only */
            CHECK(nc_var_par_access(nc, v[k].varid, mode ? NC_INDEPENDENT : NC_COLLECTIVE));
            size_t st[4] = {0}, cn[4] = {0};
            ptrdiff_t sd[4] = {1, 1, 1, 1};
            if (k == V_UNLIM) {
                record = (size_t)((me + mode) % 5);
                box_record(&v[k], (me + 1) % P, st, cn, sd);
            } else {
                box_1d(&v[k], (me + mode + 1) % P, st, cn, sd);
                for (int d = 1; d < v[k].nd; d++) { st[d] = 0; cn[d] = v[k].dims[d]; }
            }
            get_check(nc, &v[k], st, cn, NULL);
        }
        /* a strided read: every other row, every third column */
        size_t st[2] = {(size_t)me % 2, 0}, cn[2] = {8, 10};
        ptrdiff_t sd[2] = {2, 3};
        get_check(nc, &v[V_STRIDE], st, cn, sd);
    }
    CHECK(nc_close(nc));

    /* ---- phase 3: read-only, every variable whole on every rank ---- */
    CHECK(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &nc));
    for (int k = 0; k < NV; k++) {
        CHECK(nc_inq_varid(nc, v[k].name, &v[k].varid));
        CHECK(nc_var_par_access(nc, v[k].varid, NC_COLLECTIVE));
        size_t st[4] = {0}, cn[4];
        for (int d = 0; d < v[k].nd; d++) cn[d] = v[k].dims[d];
        if (v[k].unlim) {
            size_t len = 0;
            int dim0;
            CHECK(nc_inq_vardimid(nc, v[k].varid, &dim0));
            CHECK(nc_inq_dimlen(nc, dim0, &len));
            if (len != v[k].len0) { printf("rank %d: %s has %zu records, %zu written\n", me, v[k].name, len, v[k].len0); bad++; }
            cn[0] = v[k].len0;
        }
        get_check(nc, &v[k], st, cn, NULL);
    }
    { /* the converted shorts, read as doubles (HDF5 converts) */
        var_t *c = &v[V_CONV];
        size_t st = 0, cn = c->dims[0];
        double *d = malloc(cn * sizeof *d);
        CHECK(nc_get_vara_double(nc, c->varid, &st, &cn, d));
        int wrong = 0;
        for (size_t i = 0; i < cn; i++) {
            short s;
            memcpy(&s, c->img + i * 2, 2);
            wrong += d[i] != (double)s;
        }
        if (wrong) { printf("rank %d: converted: %d of %zu doubles differ\n", me, wrong, cn); bad++; }
        checks++;
        free(d);
    }
    CHECK(nc_close(nc));

    int all_bad = 0, all_checks = 0, all_ecant = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&checks, &all_checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&ecantextend, &all_ecant, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("nc_suite: %d variables, %d reads checked against the model on %d ranks: %s\n", NV, all_checks, P,
               all_bad ? "FAILED" : "every element as written");
        printf("nc_suite: independent write past the unlimited extent refused (NC_ECANTEXTEND) on %d of %d ranks\n", all_ecant, P);
    }
    for (int k = 0; k < NV; k++) free(v[k].img);
    MPI_Finalize();
    return all_bad != 0;
}
