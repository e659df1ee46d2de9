/* fuzz_filtered: collective reads of filtered chunks through colldiag (colldiag_h5_read) against HDF5's
 * own independent read and against the image this program computes itself, every byte (issue 63).
 *
 *   mpirun -n P fuzz_filtered --seed S --cases N --out DIR
 *
 * Each case draws (from S and the case number, the same on every rank) a chunked dataset: 1-D to 3-D,
 * random chunk shapes (edge chunks when they do not divide), 1- to 8-byte integer and float types, the
 * default file format (v1 B-tree) or the latest (single chunk, implicit when allocated early, fixed
 * array, extensible array, v2 B-tree), deflate at a random level with shuffle and Fletcher-32 on or off
 * (at least one filter), data that compresses (a slow ramp) or does not (a hash), a fill value (the
 * default 0, or one set), allocation late or early. Rank 0 writes it alone with HDF5's serial driver:
 * random boxes through H5Dwrite (chunks outside every box stay unwritten and read as the fill value, or
 * are allocated early and hold it), and a chunk or two with H5Dwrite_chunk, every filter skipped (the
 * filter mask), their raw bytes. Then every rank opens the file with the MPI-IO driver and reads in
 * rounds: each rank's selection (a union of boxes, points in random order, all, none; ranks overlap
 * freely), a collective colldiag_h5_read, sometimes with a small collective buffer (many rounds), into a
 * buffer prefilled with one pattern, and HDF5's independent H5Dread into another (HDF5 1.10.8's
 * collective filtered read fails on unwritten chunks: docs/hdf5.md). Checked on every rank: the call ran
 * through colldiag (no refusal), both buffers equal, and equal to the image; over all ranks: each
 * allocated chunk some rank touched decoded once, and HDF5's inflations (colldiag_get_filtered_decode)
 * equal to the ranks touching each. Any difference prints the case and the outcome is agreed (exit 1). */
#include "colldiag.h"
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5_selcheck.h"

static int me, np, bad;
#define CHECK(c, ...) do { if (!(c)) { if (bad++ < 10) { printf("rank %d case %ld: ", me, cs_now); printf(__VA_ARGS__); printf("\n"); } } } while (0)
static long cs_now, n_broken, n_rounds, n_elems; /* rounds on HDF5's broken unions (refused), rounds checked, elements read */

static uint64_t rs; /* the case's generator: the same sequence on every rank (the selections: every rank draws every rank's) */
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

typedef struct {
    int rank;
    hsize_t dims[3], maxd[3], chunk[3];
    hid_t type;
    size_t es;
    int latest, early, smooth, shuffle, deflate, fletcher, fill_set;
} fcase;

enum { MAXN = 6000 };

/* The value of element k, es bytes: a slow ramp (deflate squeezes it) or a hash (it does not). */
static void value(const fcase *c, uint64_t k, unsigned char *out)
{
    uint64_t v = c->smooth ? (k / 5) * 3 + 1 : mix(k * 31 + 7) | 1;
    if (c->type == H5T_NATIVE_FLOAT) { float f = (float)(v % 100000) + 0.5f; memcpy(out, &f, 4); }
    else if (c->type == H5T_NATIVE_DOUBLE) { double d = (double)(v % 1000000) + 0.25; memcpy(out, &d, 8); }
    else memcpy(out, &v, c->es); /* little-endian: the low bytes */
}
static void fill_value(const fcase *c, unsigned char *out)
{
    memset(out, 0, c->es);
    if (!c->fill_set) return;
    if (c->type == H5T_NATIVE_FLOAT) { float f = -7.5f; memcpy(out, &f, 4); }
    else if (c->type == H5T_NATIVE_DOUBLE) { double d = -7.5; memcpy(out, &d, 8); }
    else memset(out, 0x5a, c->es);
}

static uint64_t nel(const fcase *c) { uint64_t n = 1; for (int d = 0; d < c->rank; d++) n *= c->dims[d]; return n; }
static void coords(const fcase *c, uint64_t k, hsize_t *x)
{
    for (int d = c->rank - 1; d >= 0; d--) { x[d] = k % c->dims[d]; k /= c->dims[d]; }
}
static uint64_t chunk_of(const fcase *c, uint64_t k)
{
    hsize_t x[3];
    coords(c, k, x);
    uint64_t idx = 0;
    for (int d = 0; d < c->rank; d++) idx = idx * ((c->dims[d] + c->chunk[d] - 1) / c->chunk[d]) + x[d] / c->chunk[d];
    return idx;
}
static uint64_t nchunks(const fcase *c)
{
    uint64_t n = 1;
    for (int d = 0; d < c->rank; d++) n *= (c->dims[d] + c->chunk[d] - 1) / c->chunk[d];
    return n;
}

/* A random box: start and count per dimension. */
static void draw_box(const fcase *c, hsize_t *st, hsize_t *cn)
{
    for (int d = 0; d < c->rank; d++) {
        st[d] = below(c->dims[d]);
        cn[d] = 1 + below(c->dims[d] - st[d]);
        if (below(3)) cn[d] = 1 + below(cn[d] < 4 ? cn[d] : cn[d] / 3); /* mostly small boxes */
    }
}
static int in_box(const fcase *c, const hsize_t *x, const hsize_t *st, const hsize_t *cn)
{
    for (int d = 0; d < c->rank; d++)
        if (x[d] < st[d] || x[d] >= st[d] + cn[d]) return 0;
    return 1;
}

/* Rank 0 writes the file alone (serial driver); img gets every element's value (fill where unwritten). */
static int write_file(const char *path, const fcase *c, unsigned char *img)
{
    const uint64_t N = nel(c);
    unsigned char fv[8];
    fill_value(c, fv);
    for (uint64_t k = 0; k < N; k++) memcpy(img + k * c->es, fv, c->es);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (c->latest) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    hid_t sp = H5Screate_simple(c->rank, c->dims, c->maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, c->rank, c->chunk);
    int nf = 0;
    if (c->shuffle) { H5Pset_shuffle(dcpl); nf++; }
    if (c->deflate >= 0) { H5Pset_deflate(dcpl, (unsigned)c->deflate); nf++; }
    if (c->fletcher) { H5Pset_fletcher32(dcpl); nf++; }
    if (c->fill_set) H5Pset_fill_value(dcpl, c->type, fv);
    if (c->early) H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    hid_t ds = H5Dcreate2(f, "d", c->type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    if (f < 0 || ds < 0) return -1;
    /* boxes through H5Dwrite (the values land in the image); rounds keep the rng in step on rank 0 only */
    const int nbox = (int)below(4);
    unsigned char *buf = malloc(N * c->es + 1);
    for (int b = 0; b < nbox; b++) {
        hsize_t st[3], cn[3], x[3];
        draw_box(c, st, cn);
        hid_t fs = H5Scopy(sp);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cn, NULL);
        uint64_t m = 0;
        for (uint64_t k = 0; k < N; k++) {
            coords(c, k, x);
            if (!in_box(c, x, st, cn)) continue;
            value(c, k, buf + m * c->es);
            memcpy(img + k * c->es, buf + m * c->es, c->es);
            m++;
        }
        hsize_t mm = m;
        hid_t ms = H5Screate_simple(1, &mm, NULL);
        if (H5Dwrite(ds, c->type, ms, fs, H5P_DEFAULT, buf) < 0) return -1;
        H5Sclose(ms);
        H5Sclose(fs);
    }
    /* a chunk or two stored raw, every filter skipped (the chunk's filter mask), its values whole
       (an edge chunk's bytes past the extent are stored too, never read) */
    /* (not into chunks allocated early: HDF5 1.10.8's H5Dwrite_chunk then writes the bytes where the
       chunk is but keeps its record's filter mask 0 when the size is unchanged -- a shuffle-only chunk --
       so the file says the raw bytes are shuffled: HDF5 and colldiag read the same wrong values, found by
       this tester, seed 1 case 63; H5Dget_chunk_info_by_coord shows the mask 0) */
    const int nraw = c->early ? 0 : (int)below(3);
    hsize_t ce = 1;
    for (int d = 0; d < c->rank; d++) ce *= c->chunk[d];
    unsigned char *raw = calloc(ce * c->es + 1, 1);
    for (int q = 0; q < nraw; q++) {
        hsize_t off[3], x[3];
        for (int d = 0; d < c->rank; d++) off[d] = below((c->dims[d] + c->chunk[d] - 1) / c->chunk[d]) * c->chunk[d];
        for (uint64_t j = 0; j < ce; j++) {
            uint64_t r = j, k = 0;
            int inside = 1;
            for (int d = c->rank - 1; d >= 0; d--) { x[d] = off[d] + r % c->chunk[d]; r /= c->chunk[d]; }
            for (int d = 0; d < c->rank; d++) { inside &= x[d] < c->dims[d]; k = k * c->dims[d] + x[d]; }
            if (!inside) { memset(raw + j * c->es, 0x77, c->es); continue; }
            value(c, k * 7 + 3, raw + j * c->es);
            memcpy(img + k * c->es, raw + j * c->es, c->es);
        }
        if (H5Dwrite_chunk(ds, H5P_DEFAULT, (1u << nf) - 1, off, ce * c->es, raw) < 0) return -1;
    }
    free(raw);
    free(buf);
    H5Dclose(ds);
    H5Sclose(sp);
    return H5Fclose(f) < 0 ? -1 : 0;
}

/* Rank q's selection for a round, drawn by every rank alike: the elements in HDF5's order (lin). */
static hid_t draw_sel(const fcase *c, hid_t space, int q, uint64_t *lin, uint64_t *npts)
{
    const uint64_t N = nel(c);
    hid_t fs = H5Scopy(space);
    const int kind = (int)below(8);
    *npts = 0;
    if (kind == 0) { H5Sselect_none(fs); return fs; }
    if (kind == 1) {
        H5Sselect_all(fs);
        for (uint64_t k = 0; k < N; k++) lin[(*npts)++] = k;
        return fs;
    }
    if (kind == 2) { /* points, in random order, no repeats */
        const uint64_t n = 1 + below(N < 200 ? N : 200);
        hsize_t *pt = malloc(n * c->rank * sizeof *pt);
        unsigned char *taken = calloc(N, 1);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t k = below(N);
            while (taken[k]) k = (k + 1) % N;
            taken[k] = 1;
            lin[(*npts)++] = k;
            coords(c, k, pt + i * c->rank);
        }
        H5Sselect_elements(fs, H5S_SELECT_SET, n, pt);
        free(pt);
        free(taken);
        return fs;
    }
    /* a union of boxes, some strided by a block of one (every other row or column) */
    const int nb = 1 + (int)below(3);
    hsize_t st[3][3], cn[3][3];
    for (int b = 0; b < nb; b++) {
        draw_box(c, st[b], cn[b]);
        H5Sselect_hyperslab(fs, b ? H5S_SELECT_OR : H5S_SELECT_SET, st[b], NULL, cn[b], NULL);
    }
    hsize_t x[3];
    for (uint64_t k = 0; k < N; k++) {
        coords(c, k, x);
        int in = 0;
        for (int b = 0; b < nb && !in; b++) in = in_box(c, x, st[b], cn[b]);
        if (in) lin[(*npts)++] = k;
    }
    (void)q;
    return fs;
}

static int run_case(long cs, uint64_t seed, const char *dir)
{
    cs_now = cs;
    bad = 0;
    rs = mix(seed * 7919u + (uint64_t)cs) | 1;
    fcase c;
    memset(&c, 0, sizeof c);
    const hid_t types[] = {H5T_NATIVE_SCHAR, H5T_NATIVE_USHORT, H5T_NATIVE_INT, H5T_NATIVE_FLOAT, H5T_NATIVE_LLONG, H5T_NATIVE_DOUBLE};
    c.type = types[below(6)];
    c.es = H5Tget_size(c.type);
    c.rank = 1 + (int)below(3);
    const uint64_t cap = c.rank == 1 ? MAXN : c.rank == 2 ? 70 : 16;
    for (int d = 0; d < c.rank; d++) {
        c.dims[d] = 1 + below(cap);
        c.maxd[d] = c.dims[d];
        c.chunk[d] = 1 + below(c.dims[d]);
    }
    c.latest = (int)below(2);
    if (below(3) == 0) c.maxd[0] = below(2) ? H5S_UNLIMITED : c.dims[0] + below(10);
    c.early = below(4) == 0;
    c.smooth = (int)below(2);
    c.shuffle = (int)below(2);
    c.fletcher = below(3) == 0;
    c.deflate = below(5) == 0 && (c.shuffle || c.fletcher) ? -1 : (int)below(10);
    c.fill_set = (int)below(2);
    const uint64_t N = nel(&c), NC = nchunks(&c);
    char path[600];
    snprintf(path, sizeof path, "%s/fuzz_filtered.h5", dir);
    unsigned char *img = malloc(N * c.es + 1);
    int wrc = 0;
    if (me == 0) wrc = write_file(path, &c, img);
    MPI_Bcast(&wrc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (wrc) { if (me == 0) printf("case %ld: rank 0 could not write the file\n", cs); return 1; }
    /* the image and the generator's state from rank 0: the draws that wrote are its own */
    MPI_Bcast(img, (int)(N * c.es), MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&rs, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    hid_t ds = f >= 0 ? H5Dopen2(f, "d", H5P_DEFAULT) : -1;
    if (ds < 0) { printf("rank %d case %ld: cannot open the file\n", me, cs); return 1; }
    hid_t space = H5Dget_space(ds);
    /* allocated chunks, by HDF5's own lookup */
    unsigned char *alloc = calloc(NC, 1), *touch = malloc(NC), *mine = malloc(NC);
    int *readers = malloc(NC * sizeof *readers);
    for (uint64_t k = 0; k < N; k++) {
        const uint64_t ci = chunk_of(&c, k);
        if (alloc[ci]) continue;
        hsize_t x[3], off[3];
        coords(&c, k, x);
        for (int d = 0; d < c.rank; d++) off[d] = x[d] / c.chunk[d] * c.chunk[d];
        unsigned fm = 0;
        haddr_t a = HADDR_UNDEF;
        hsize_t sz = 0;
        H5Dget_chunk_info_by_coord(ds, off, &fm, &a, &sz);
        alloc[ci] = a == HADDR_UNDEF ? 2 : 1; /* 2: looked up, not allocated */
    }
    uint64_t *lin = malloc(N * sizeof *lin), *tmp = malloc(N * sizeof *tmp);
    unsigned char *got = malloc(N * c.es + 1), *want = malloc(N * c.es + 1);
    const int rounds = 1 + (int)below(3);
    for (int rd = 0; rd < rounds; rd++) {
        hid_t fs = -1;
        uint64_t npts = 0;
        memset(readers, 0, NC * sizeof *readers);
        for (int q = 0; q < np; q++) { /* every rank draws every rank's selection, in rank order */
            uint64_t n = 0;
            hid_t s = draw_sel(&c, space, q, q == me ? lin : tmp, &n);
            const uint64_t *l = q == me ? lin : tmp;
            memset(touch, 0, NC);
            for (uint64_t i = 0; i < n; i++) touch[chunk_of(&c, l[i])] = 1;
            for (uint64_t ci = 0; ci < NC; ci++) readers[ci] += touch[ci];
            if (q == me) { fs = s; npts = n; memcpy(mine, touch, NC); }
            else H5Sclose(s);
        }
        const size_t cb = below(3) == 0 ? (size_t)(64 + below(4096)) : 0; /* a small collective buffer: many rounds */
        hsize_t mn = npts ? npts : 1;
        hid_t ms = H5Screate_simple(1, &mn, NULL);
        if (!npts) H5Sselect_none(ms);
        hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
        memset(got, 0xa5, N * c.es + 1);
        memset(want, 0xa5, N * c.es + 1);
        colldiag_xfer *x = NULL;
        colldiag_xfer_create(&x);
        if (cb) colldiag_set_coll_buffer(x, cb);
        /* HDF5's independent read first (local). HDF5 1.10's union of overlapping boxes can count fewer
           elements than its blocks cover, or select other elements than asked (fuzz_h5's "HDF5's broken
           union", h5_selcheck.h): its own read fails or reads those. Such a round checks that colldiag
           refuses it on every rank (the bridge saw it: HDF5 runs the call) or reads what HDF5 reads. */
        const int h5fail = H5Dread(ds, c.type, ms, fs, H5P_DEFAULT, want) < 0;
        int broken = h5fail || hdf5_sel_differs(fs, c.rank, c.dims, lin, npts), gbroken = 0;
        MPI_Allreduce(&broken, &gbroken, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        int rc = colldiag_h5_read(ds, c.type, ms, fs, dxpl, got, x);
        if (gbroken) { /* colldiag refuses (the bridge saw the inconsistency: HDF5 runs the call) or reads what HDF5 reads */
            CHECK(rc == 0 || rc == COLLDIAG_ERR_UNSUPPORTED || rc == COLLDIAG_ERR_PEER, "round %d: HDF5's broken union: colldiag_h5_read returned %d: %s",
                  rd, rc, colldiag_xfer_errmsg(x));
            CHECK(rc || h5fail || !memcmp(got, want, npts * c.es), "round %d: HDF5's broken union: colldiag read other bytes than HDF5", rd);
            n_broken++;
            colldiag_xfer_free(x);
            H5Pclose(dxpl);
            H5Sclose(ms);
            H5Sclose(fs);
            continue;
        }
        CHECK(rc == 0, "colldiag_h5_read returned %d: %s", rc, colldiag_xfer_errmsg(x));
        n_rounds++;
        n_elems += npts;
        uint64_t diff = 0, first = 0, idiff = 0, ifirst = 0;
        for (uint64_t i = 0; i < npts; i++) {
            const unsigned char *g = got + i * c.es, *w = want + i * c.es, *m = img + lin[i] * c.es;
            if (memcmp(g, w, c.es) && !diff++) first = i;
            if (memcmp(w, m, c.es) && !idiff++) ifirst = i;
        }
        CHECK(rc || diff == 0, "round %d: %llu of %llu elements read through colldiag differ from HDF5's (first: the %lluth, element %llu)", rd,
              (unsigned long long)diff, (unsigned long long)npts, (unsigned long long)first, (unsigned long long)(npts ? lin[first] : 0));
        CHECK(idiff == 0, "round %d: %llu of HDF5's %llu elements differ from the image (first: element %llu)", rd, (unsigned long long)idiff,
              (unsigned long long)npts, (unsigned long long)(npts ? lin[ifirst] : 0));
        CHECK(got[npts * c.es] == 0xa5, "round %d: colldiag wrote past the selection's bytes", rd);
        /* each allocated chunk some rank touched decoded once, on one rank; HDF5 would inflate it on each */
        uint64_t dc = 0, ds_ = 0, draw = 0, drd = 0;
        double sec = 0;
        colldiag_get_filtered_decode(x, &dc, &ds_, &draw, &drd, &sec);
        uint64_t v[2] = {dc, drd}, all[2] = {0, 0}, wc = 0, wr = 0;
        MPI_Allreduce(v, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        for (uint64_t ci = 0; ci < NC; ci++)
            if (readers[ci] && alloc[ci] == 1) { wc++; wr += (uint64_t)readers[ci]; }
        CHECK(rc || (all[0] == wc && all[1] == wr), "round %d: %llu chunks decoded over all ranks, HDF5 would inflate %llu times; the ranks touch %llu "
              "allocated chunks, %llu times", rd, (unsigned long long)all[0], (unsigned long long)all[1], (unsigned long long)wc,
              (unsigned long long)wr);
        colldiag_xfer_free(x);
        H5Pclose(dxpl);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    free(lin); free(tmp); free(got); free(want); free(alloc); free(touch); free(mine); free(readers); free(img);
    H5Sclose(space);
    H5Dclose(ds);
    H5Fclose(f);
    int b = bad, gb = 0;
    MPI_Allreduce(&b, &gb, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (gb && me == 0)
        printf("case %ld: rank %dD dims %llu,%llu,%llu chunk %llu,%llu,%llu es %zu latest %d early %d smooth %d shuffle %d deflate %d fletcher %d fill %d\n",
               cs, c.rank, (unsigned long long)c.dims[0], (unsigned long long)c.dims[1], (unsigned long long)c.dims[2], (unsigned long long)c.chunk[0],
               (unsigned long long)c.chunk[1], (unsigned long long)c.chunk[2], c.es, c.latest, c.early, c.smooth, c.shuffle, c.deflate, c.fletcher,
               c.fill_set);
    return gb != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    uint64_t seed = 1;
    long cases = 50, first = 0;
    const char *dir = ".";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--cases")) cases = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--first")) first = strtol(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--out")) dir = argv[i + 1];
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int failed = 0;
    for (long cs = first; cs < cases; cs++) failed += run_case(cs, seed, dir);
    if (me == 0) {
        char p[600];
        snprintf(p, sizeof p, "%s/fuzz_filtered.h5", dir);
        if (!getenv("FUZZ_KEEP")) remove(p);
        printf("fuzz_filtered: %ld cases (seed %llu), %ld rounds read, %ld elements on rank 0, %ld rounds on HDF5's broken unions (refused, or read as HDF5 reads); %s\n",
               cases - first, (unsigned long long)seed, n_rounds, n_elems, n_broken,
               failed ? "SOME FAILED" : "every byte equal to HDF5's and to the image, each touched chunk decoded once");
    }
    MPI_Finalize();
    return failed != 0;
}
