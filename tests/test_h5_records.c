/* colldiag_h5_chunk_records against HDF5's own answer, chunk by chunk, on every chunk index HDF5 writes,
 * filtered and not (issue 63's first step: a filtered read needs each chunk's address, stored size and
 * filter mask, and HDF5 1.10 gives them one index walk per chunk).
 *
 * Rank 0 writes the file alone with HDF5's serial driver (filtered chunks, a few left unwritten, some
 * written with H5Dwrite_chunk and a filter skipped, data that compresses well, badly or not at all), then
 * every rank opens it with the MPI-IO driver and compares, for every chunk of every dataset, the
 * record colldiag reads from the file with H5Dget_chunk_info_by_coord's address, size and filter mask.
 * Every rank checks (the call is local) and the verdict is agreed. For the filtered datasets, every rank
 * then plans a collective read of its rows (overlapping its neighbour's by one) and checks what the plan
 * says HDF5 will read and inflate there (colldiag_get_filtered_read) against the test's own count. Each index type is checked to be the
 * one the case means to make (the layout message's, as h5debug would show it, is not asked: the shape
 * and format bounds choose it, as HDF5 documents).
 *
 *   test_h5_records FILE [quick]     (quick: the datasets of fewer than 500 chunks, for valgrind)
 */
#include "colldiag.h"
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, bad;
#define CHECK(c, ...) do { if (!(c)) { if (bad++ < 20) { printf("rank %d: ", me); printf(__VA_ARGS__); printf("\n"); } } } while (0)

typedef struct {
    const char *name;
    int latest;              /* libver bounds latest (the 1.10 indexes) or the default (v1 B-tree) */
    int rank;
    hsize_t dims[2], maxd[2], chunk[2];
    int shuffle, deflate, fletcher;
    hsize_t ub;              /* a userblock (its own file) */
} rcase;

/* 1-D and 2-D datasets of 4-byte elements; maxd 0 = dims. What index HDF5 gives each (format 1.10):
   fixed maxd and more than one chunk -> fixed array (paged from 1024 chunks), one chunk -> single
   chunk, one unlimited dimension -> extensible array, two -> v2 B-tree; the default format -> v1 B-tree. */
static const rcase cases[] = {
    {"v1 B-tree, deflate, multi-level", 0, 2, {60, 44}, {0, 0}, {4, 4}, 0, 6, 0, 0},
    {"v1 B-tree, shuffle + deflate + fletcher32, userblock", 0, 2, {20, 20}, {0, 0}, {5, 4}, 1, 1, 1, 512},
    {"v1 B-tree, unfiltered", 0, 1, {300}, {0}, {7}, 0, 0, 0, 0},
    {"single chunk, deflate", 1, 2, {9, 7}, {0, 0}, {9, 7}, 0, 4, 0, 0},
    {"single chunk, unfiltered", 1, 1, {50}, {0}, {50}, 0, 0, 0, 0},
    {"fixed array, shuffle + deflate", 1, 2, {30, 20}, {0, 0}, {3, 2}, 1, 1, 0, 0},
    {"fixed array paged, deflate", 1, 2, {80, 40}, {0, 0}, {2, 1}, 0, 1, 0, 0},
    {"extensible array, deflate + fletcher32", 1, 2, {2600, 2}, {H5S_UNLIMITED, 2}, {1, 2}, 0, 1, 1, 0},
    {"extensible array, unfiltered", 1, 1, {700}, {H5S_UNLIMITED}, {3}, 0, 0, 0, 0},
    {"v2 B-tree (type 11), deflate", 1, 2, {33, 30}, {H5S_UNLIMITED, H5S_UNLIMITED}, {3, 3}, 0, 1, 0, 0},
    {"v2 B-tree (type 11), shuffle + deflate, many chunks", 1, 2, {90, 60}, {H5S_UNLIMITED, H5S_UNLIMITED}, {2, 3}, 1, 5, 0, 0},
    {"v2 B-tree (type 10), unfiltered", 1, 2, {12, 12}, {H5S_UNLIMITED, H5S_UNLIMITED}, {5, 5}, 0, 0, 0, 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

static uint64_t nchunks_of(const rcase *c)
{
    uint64_t n = 1;
    for (int d = 0; d < c->rank; d++) n *= c->dims[d] / c->chunk[d] + (c->dims[d] % c->chunk[d] != 0);
    return n;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    return x;
}

/* Chunk k of case ci: 0 leave it unwritten, 1 write it through H5Dwrite, 2 write it with H5Dwrite_chunk
   and the last filter skipped (its mask bit set), 3 the same with every filter applied by HDF5. */
static int how(size_t ci, uint64_t k)
{
    const uint64_t h = mix(ci * 7919u + k * 104729u + 1);
    if (k == 0) return 1;
    if (h % 9 == 0) return 0;
    if (h % 13 == 0) return 2;
    return 1;
}

/* Element values of chunk k: constant (compresses to little), a ramp, or noise (does not compress). */
static uint32_t value(uint64_t k, uint64_t e)
{
    switch (mix(k + 99) % 3) {
    case 0: return (uint32_t)k;
    case 1: return (uint32_t)(k * 1000 + e);
    default: return (uint32_t)mix(k * 65537 + e);
    }
}

static hid_t create_dcpl(const rcase *c)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, c->rank, c->chunk);
    if (c->shuffle) H5Pset_shuffle(dcpl);
    if (c->deflate) H5Pset_deflate(dcpl, (unsigned)c->deflate);
    if (c->fletcher) H5Pset_fletcher32(dcpl);
    return dcpl;
}

static int nfilters(const rcase *c) { return (c->shuffle != 0) + (c->deflate != 0) + (c->fletcher != 0); }

static void write_case(const char *path, size_t ci)
{
    const rcase *c = &cases[ci];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (c->latest) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    if (c->ub) H5Pset_userblock(fcpl, c->ub);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    hsize_t maxd[2] = {c->maxd[0] ? c->maxd[0] : c->dims[0], c->maxd[1] ? c->maxd[1] : c->dims[1]};
    hid_t sp = H5Screate_simple(c->rank, c->dims, maxd), dcpl = create_dcpl(c);
    hid_t ds = H5Dcreate2(f, "d", H5T_NATIVE_UINT32, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(ds >= 0, "%s: H5Dcreate2 failed", c->name);
    const uint64_t n = nchunks_of(c);
    uint64_t grid[2] = {1, 1}, cn = 1;
    for (int d = 0; d < c->rank; d++) { grid[d] = c->dims[d] / c->chunk[d] + (c->dims[d] % c->chunk[d] != 0); cn *= c->chunk[d]; }
    uint32_t *buf = malloc(cn * sizeof *buf);
    for (uint64_t k = 0; k < n && ds >= 0; k++) {
        const int h = how(ci, k);
        if (h == 0) continue;
        hsize_t start[2] = {0, 0};
        uint64_t kk = k;
        for (int d = c->rank - 1; d >= 0; d--) { start[d] = (kk % grid[d]) * c->chunk[d]; kk /= grid[d]; }
        for (uint64_t e = 0; e < cn; e++) buf[e] = value(k, e);
        if (h == 2 && nfilters(c) > 0) {
            /* the stored bytes as HDF5 would read them with the last filter skipped: only the ones a
               test can make without zlib (skip everything but shuffle, which it does by hand) */
            uint32_t mask = 0;
            unsigned char *raw = malloc(cn * 4);
            if (c->shuffle) { /* byte k of every element, then the next byte plane */
                for (uint64_t e = 0; e < cn; e++)
                    for (int b = 0; b < 4; b++) raw[b * cn + e] = (unsigned char)(buf[e] >> (8 * b));
                mask = ~1u & ((1u << nfilters(c)) - 1); /* deflate and fletcher32 skipped */
            } else {
                memcpy(raw, buf, cn * 4);
                mask = (1u << nfilters(c)) - 1; /* every filter skipped */
            }
            CHECK(H5Dwrite_chunk(ds, H5P_DEFAULT, mask, start, cn * 4, raw) >= 0, "%s: H5Dwrite_chunk of chunk %llu failed", c->name,
                  (unsigned long long)k);
            free(raw);
            continue;
        }
        hsize_t cnt[2] = {c->chunk[0], c->rank > 1 ? c->chunk[1] : 1};
        for (int d = 0; d < c->rank; d++)
            if (start[d] + cnt[d] > c->dims[d]) cnt[d] = c->dims[d] - start[d]; /* an edge chunk: its part inside */
        hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(c->rank, cnt, NULL);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
        CHECK(H5Dwrite(ds, H5T_NATIVE_UINT32, ms, fs, H5P_DEFAULT, buf) >= 0, "%s: H5Dwrite of chunk %llu failed", c->name, (unsigned long long)k);
        H5Sclose(fs);
        H5Sclose(ms);
    }
    free(buf);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Fclose(f);
    H5Pclose(fapl);
    H5Pclose(fcpl);
}

/* HDF5's H5Dget_chunk_info addresses are relative to the userblock before 1.14.4 */
static hsize_t info_base(hsize_t ub)
{
    unsigned a, b, r;
    H5get_libversion(&a, &b, &r);
    return a > 1 || (a == 1 && (b > 14 || (b == 14 && r >= 4))) ? 0 : ub;
}

/* Rank r's rows of a collective read: its share of dimension 0 and one row of the next rank's (so that
   neighbours share chunks), the whole of dimension 1. [lo, hi). */
static void rows_of(const rcase *c, int r, int np, hsize_t *lo, hsize_t *hi)
{
    *lo = c->dims[0] * (hsize_t)r / (hsize_t)np;
    *hi = c->dims[0] * (hsize_t)(r + 1) / (hsize_t)np + 1;
    if (*hi > c->dims[0]) *hi = c->dims[0];
}

/* The plan of a collective H5Dread (multi-chunk: HDF5's filtered path on both versions, whose plan
   knows each chunk's ranks) must count what HDF5 will read and inflate on this rank: every allocated
   chunk the rank's rows reach, its stored bytes, the chunk's bytes inflated, and those another rank's
   rows reach too. The reference is this test's own: the rows' geometry and HDF5's chunk records. */
static void check_plan(const rcase *c, hid_t ds, const colldiag_chunk_record *rec)
{
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    hsize_t lo, hi;
    rows_of(c, me, np, &lo, &hi);
    hid_t fs = H5Dget_space(ds);
    hsize_t start[2] = {lo, 0}, count[2] = {hi - lo, c->rank > 1 ? c->dims[1] : 1};
    if (hi > lo) H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    else H5Sselect_none(fs);
    hsize_t mn = (hi - lo) * count[1];
    hid_t ms = H5Screate_simple(1, &mn, NULL);
    if (!mn) H5Sselect_none(ms);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_MULTI_IO);
    colldiag_xfer *x = NULL;
    colldiag_file *pf = NULL;
    colldiag_xfer_create(&x);
    int rc = colldiag_h5_plan(ds, H5T_NATIVE_UINT32, ms, fs, dxpl, COLLDIAG_TO_MEMORY, x, &pf);
    CHECK(rc == 0, "%s: colldiag_h5_plan: %s", c->name, colldiag_xfer_errmsg(x));
    uint64_t chunks = 0, stored = 0, inflated = 0, shared = 0;
    int known = 0;
    colldiag_get_filtered_read(x, &chunks, &stored, &inflated, &shared, &known);
    /* the reference */
    uint64_t grid[2] = {1, 1}, cb = 4, w_chunks = 0, w_stored = 0, w_shared = 0;
    for (int d = 0; d < c->rank; d++) { grid[d] = c->dims[d] / c->chunk[d] + (c->dims[d] % c->chunk[d] != 0); cb *= c->chunk[d]; }
    for (uint64_t k = 0; hi > lo && k < grid[0] * grid[1]; k++) {
        const uint64_t row = k / grid[1], r0 = row * c->chunk[0], r1 = r0 + c->chunk[0]; /* the chunk's rows [r0, r1) */
        if (r1 <= lo || r0 >= hi || rec[k].addr < 0) continue;
        w_chunks++;
        w_stored += rec[k].stored;
        int other = 0;
        for (int q = 0; q < np && !other; q++) {
            hsize_t ql, qh;
            rows_of(c, q, np, &ql, &qh);
            other = q != me && qh > ql && r1 > ql && r0 < qh;
        }
        w_shared += other;
    }
    CHECK(known == 1 && chunks == w_chunks && stored == w_stored && inflated == w_chunks * cb && shared == w_shared,
          "%s: the plan counts %llu chunks, %llu stored, %llu inflated, %llu shared (known %d); the test %llu, %llu, %llu, %llu", c->name,
          (unsigned long long)chunks, (unsigned long long)stored, (unsigned long long)inflated, (unsigned long long)shared, known,
          (unsigned long long)w_chunks, (unsigned long long)w_stored, (unsigned long long)(w_chunks * cb), (unsigned long long)w_shared);
    if (np > 1 && me == 0 && hi > lo) CHECK(w_shared > 0, "%s: the rows were meant to share chunks", c->name);
    colldiag_file_close(pf);
    pf = NULL;
    if (np > 1) { /* rank 0 plans the call as a read, the others as a write: every rank fails, none waits
                     (a filtered read's plan counts each chunk's ranks, a write's does not) */
        rc = colldiag_h5_plan(ds, H5T_NATIVE_UINT32, ms, fs, dxpl, me == 0 ? COLLDIAG_TO_MEMORY : COLLDIAG_TO_FILE, x, &pf);
        CHECK(rc == COLLDIAG_ERR_ARG && strstr(colldiag_xfer_errmsg(x), "disagree"),
              "%s: a plan read on rank 0 and written elsewhere returned %d (%s), not ARG naming the disagreement", c->name, rc,
              colldiag_xfer_errmsg(x));
        colldiag_file_close(pf);
    }
    colldiag_xfer_free(x);
    H5Pclose(dxpl);
    H5Sclose(ms);
    H5Sclose(fs);
}

/* A collective read through colldiag (colldiag_h5_read) of every rank's rows (overlapping its
   neighbour's by one, so chunks are shared), in two selections: whole rows, and every other column of
   them (a piece that is not a run). Every value against HDF5's own collective H5Dread of the same
   selection; filtered cases run through colldiag (never left to HDF5), each touched allocated chunk
   decoded once over all ranks (colldiag_get_filtered_decoded), counted by the test from the records. */
static void check_read(const rcase *c, hid_t ds, const colldiag_chunk_record *rec)
{
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    hsize_t lo, hi;
    rows_of(c, me, np, &lo, &hi);
    const hsize_t cols = c->rank > 1 ? c->dims[1] : 1;
    for (int sel = 0; sel < 2; sel++) {
        if (sel == 1 && c->rank < 2) break;
        hid_t fs = H5Dget_space(ds);
        hsize_t start[2] = {lo, 0}, stride[2] = {1, sel ? 2 : 1}, count[2] = {hi - lo, sel ? (cols + 1) / 2 : cols};
        if (hi > lo) H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, NULL);
        else H5Sselect_none(fs);
        hsize_t mn = (hi - lo) * count[1];
        hid_t ms = H5Screate_simple(1, mn ? &mn : (hsize_t[]){1}, NULL);
        if (!mn) H5Sselect_none(ms);
        hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
        uint32_t *got = malloc((mn ? mn : 1) * 4), *want = malloc((mn ? mn : 1) * 4);
        memset(got, 0xab, (mn ? mn : 1) * 4);
        memset(want, 0xcd, (mn ? mn : 1) * 4);
        colldiag_xfer *x = NULL;
        colldiag_xfer_create(&x);
        int rc = colldiag_h5_read(ds, H5T_NATIVE_UINT32, ms, fs, dxpl, got, x);
        /* (an unfiltered dataset's unwritten chunks are HDF5's to read: UNSUPPORTED there is the answer) */
        CHECK(rc == 0 || (nfilters(c) == 0 && (rc == COLLDIAG_ERR_UNSUPPORTED || rc == COLLDIAG_ERR_PEER)), "%s: colldiag_h5_read (selection %d): %d, %s", c->name, sel, rc,
              colldiag_xfer_errmsg(x));
        /* HDF5's independent read: 1.10.8's collective filtered read fails or crashes on chunks stored with
           a filter skipped (H5Dwrite_chunk's mask): it runs every filter whatever the mask says */
        CHECK(H5Dread(ds, H5T_NATIVE_UINT32, ms, fs, H5P_DEFAULT, want) >= 0, "%s: HDF5's H5Dread failed", c->name);
        uint64_t diff = 0, first = UINT64_MAX;
        for (hsize_t i = 0; rc == 0 && i < mn; i++)
            if (got[i] != want[i]) { diff++; if (first == UINT64_MAX) first = i; }
        CHECK(diff == 0, "%s: selection %d: %llu of %llu values read through colldiag differ from HDF5's (first at %llu: %u, HDF5 %u)", c->name,
              sel, (unsigned long long)diff, (unsigned long long)mn, (unsigned long long)first, first < mn ? got[first] : 0,
              first < mn ? want[first] : 0);
        uint64_t dec = 0, dst = 0, all[4] = {0, 0, 0, 0}, draw = 0, drd = 0;
        double dsec = -1;
        colldiag_get_filtered_decoded(x, &dec, &dst);
        uint64_t dec2 = 0, dst2 = 0;
        colldiag_get_filtered_decode(x, &dec2, &dst2, &draw, &drd, &dsec);
        CHECK(dec2 == dec && dst2 == dst && dsec >= 0 && (dec || dsec == 0), "%s: colldiag_get_filtered_decode says %llu chunks, %llu bytes, %g s; "
              "colldiag_get_filtered_decoded %llu, %llu", c->name, (unsigned long long)dec2, (unsigned long long)dst2, dsec,
              (unsigned long long)dec, (unsigned long long)dst);
        uint64_t mine[4] = {dec, dst, draw, drd};
        MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (nfilters(c) > 0 && rc == 0) {
            /* the reference: allocated chunks whose rows some rank reads (every column block holds a selected column) */
            uint64_t grid[2] = {1, 1}, w = 0, ws = 0, wr = 0, cb = 4; /* cb: a chunk's bytes (32-bit elements) */
            for (int d = 0; d < c->rank; d++) cb *= c->chunk[d];
            for (int d = 0; d < c->rank; d++) grid[d] = c->dims[d] / c->chunk[d] + (c->dims[d] % c->chunk[d] != 0);
            for (uint64_t k = 0; k < grid[0] * grid[1]; k++) {
                const uint64_t r0 = (k / grid[1]) * c->chunk[0], r1 = r0 + c->chunk[0];
                const uint64_t c0 = c->rank > 1 ? (k % grid[1]) * c->chunk[1] : 0, cw = c->rank > 1 ? c->chunk[1] : 1;
                int read = 0; /* ranks reading from the chunk: HDF5 would inflate it on each */
                if (sel == 1 && cw < 2 && c0 % 2) continue; /* every other column: a chunk of one odd column is not read */
                for (int q = 0; q < np; q++) {
                    hsize_t ql, qh;
                    rows_of(c, q, np, &ql, &qh);
                    read += qh > ql && r1 > ql && r0 < qh;
                }
                if (read && rec[k].addr >= 0) { w++; ws += rec[k].stored; wr += (uint64_t)read; }
            }
            CHECK(all[0] == w && all[1] == ws, "%s: selection %d: %llu chunks (%llu bytes) decoded over all ranks, the call touches %llu (%llu bytes)",
                  c->name, sel, (unsigned long long)all[0], (unsigned long long)all[1], (unsigned long long)w, (unsigned long long)ws);
            CHECK(all[2] == w * cb && all[3] == wr, "%s: selection %d: decoded to %llu bytes, %llu HDF5 inflations; the call's %llu chunks decode to %llu "
                  "bytes, and %llu times a rank selects from one", c->name, sel, (unsigned long long)all[2], (unsigned long long)all[3],
                  (unsigned long long)w, (unsigned long long)(w * cb), (unsigned long long)wr);
            colldiag_actual_chunk_opt_mode_t co = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
            colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
            CHECK(co == COLLDIAG_MPIO_CHUNK_AGGREGATE, "%s: a filtered read ran as %s, not aggregation", c->name, colldiag_chunk_opt_name(co));
            if (me == 0 && sel == 0)
                printf("%-55s %6llu chunks read through colldiag, each decoded once (%llu stored bytes), values equal to HDF5's\n", "",
                       (unsigned long long)all[0], (unsigned long long)all[1]);
        } else {
            CHECK(all[0] == 0, "%s: an unfiltered read decoded %llu chunks", c->name, (unsigned long long)all[0]);
        }
        /* an independent read of filtered chunks is HDF5's (colldiag decodes in collective calls only) */
        if (nfilters(c) > 0 && sel == 0) {
            hid_t ind = H5Pcreate(H5P_DATASET_XFER);
            rc = colldiag_h5_read(ds, H5T_NATIVE_UINT32, ms, fs, ind, got, x);
            CHECK(rc == COLLDIAG_ERR_UNSUPPORTED, "%s: an independent filtered read returned %d, not UNSUPPORTED", c->name, rc);
            H5Pclose(ind);
        }
        colldiag_xfer_free(x);
        free(got);
        free(want);
        H5Pclose(dxpl);
        H5Sclose(ms);
        H5Sclose(fs);
    }
}

/* colldiag_h5_chunk_unfilter on every allocated chunk of a filtered case (spread over the ranks): the
   stored bytes as the test reads them from the file itself at the record's address (checked against
   HDF5's above), decoded, against the values HDF5's own H5Dread gives for the chunk's part inside the
   extent. Then bytes that must not decode: one flipped (a checksum, or zlib's own) and one missing. */
static void check_unfilter(const char *path, const rcase *c, hid_t ds, const colldiag_chunk_record *rec, int np)
{
    const uint64_t n = nchunks_of(c);
    uint64_t grid[2] = {1, 1}, cn = 1, decoded = 0, refused = 0;
    for (int d = 0; d < c->rank; d++) { grid[d] = c->dims[d] / c->chunk[d] + (c->dims[d] % c->chunk[d] != 0); cn *= c->chunk[d]; }
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL, "%s: cannot open the file to read stored chunks", c->name);
    uint32_t *vals = malloc(cn * 4), *want = malloc(cn * 4);
    unsigned char *st = NULL;
    for (uint64_t k = (uint64_t)me; rec && fp && k < n; k += (uint64_t)np) {
        if (rec[k].addr < 0) continue;
        st = realloc(st, rec[k].stored ? rec[k].stored : 1);
        CHECK(fseek(fp, (long)rec[k].addr, SEEK_SET) == 0 && fread(st, 1, rec[k].stored, fp) == rec[k].stored,
              "%s: cannot read chunk %llu's stored bytes", c->name, (unsigned long long)k);
        memset(vals, 0xee, cn * 4);
        int rc = colldiag_h5_chunk_unfilter(ds, rec[k].filter_mask, st, rec[k].stored, vals, cn * 4);
        CHECK(rc == 0, "%s: chunk %llu (mask 0x%x, %llu bytes stored) does not decode: %s", c->name, (unsigned long long)k, rec[k].filter_mask,
              (unsigned long long)rec[k].stored, colldiag_last_errmsg());
        if (rc) continue;
        hsize_t start[2] = {0, 0}, cnt[2] = {1, 1};
        uint64_t kk = k;
        for (int d = c->rank - 1; d >= 0; d--) { start[d] = (kk % grid[d]) * c->chunk[d]; kk /= grid[d]; }
        for (int d = 0; d < c->rank; d++) cnt[d] = start[d] + c->chunk[d] > c->dims[d] ? c->dims[d] - start[d] : c->chunk[d];
        hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(c->rank, cnt, NULL);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
        CHECK(H5Dread(ds, H5T_NATIVE_UINT32, ms, fs, H5P_DEFAULT, want) >= 0, "%s: H5Dread of chunk %llu failed", c->name, (unsigned long long)k);
        H5Sclose(fs);
        H5Sclose(ms);
        const hsize_t c1 = c->rank > 1 ? c->chunk[1] : 1;
        uint64_t diff = 0;
        for (hsize_t i = 0; i < cnt[0]; i++)
            for (hsize_t j = 0; j < cnt[1]; j++) diff += vals[i * c1 + j] != want[i * cnt[1] + j];
        CHECK(diff == 0, "%s: chunk %llu: %llu values decoded differ from HDF5's", c->name, (unsigned long long)k, (unsigned long long)diff);
        decoded++;
        if (nfilters(c) > 0 && rec[k].filter_mask == 0 && refused < 2) { /* bytes that must not decode */
            st[rec[k].stored / 2] ^= 0x5a;
            rc = colldiag_h5_chunk_unfilter(ds, 0, st, rec[k].stored, vals, cn * 4);
            st[rec[k].stored / 2] ^= 0x5a;
            if (c->deflate || c->fletcher)
                CHECK(rc == COLLDIAG_ERR_IO, "%s: chunk %llu with a byte flipped: %d (%s), not IO", c->name, (unsigned long long)k, rc, colldiag_last_errmsg());
            if (c->deflate) {
                rc = colldiag_h5_chunk_unfilter(ds, 0, st, rec[k].stored - 1, vals, cn * 4);
                CHECK(rc == COLLDIAG_ERR_IO, "%s: chunk %llu one byte short: %d (%s), not IO", c->name, (unsigned long long)k, rc, colldiag_last_errmsg());
            }
            CHECK(colldiag_h5_chunk_unfilter(ds, 0, st, rec[k].stored, vals, cn * 4 - 4) == COLLDIAG_ERR_ARG, "%s: a short out was not refused",
                  c->name);
            refused++;
        }
    }
    uint64_t all = 0;
    MPI_Allreduce(&decoded, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    uint64_t alloc = 0;
    for (uint64_t k = 0; rec && k < n; k++) alloc += rec[k].addr >= 0;
    CHECK(all == alloc || bad, "%s: %llu chunks decoded of %llu allocated", c->name, (unsigned long long)all, (unsigned long long)alloc);
    if (me == 0) printf("%-55s %6llu chunks decoded by colldiag_h5_chunk_unfilter, equal to HDF5's values\n", "", (unsigned long long)all);
    free(st);
    free(vals);
    free(want);
    if (fp) fclose(fp);
}

static void check_case(const char *path, size_t ci)
{
    const rcase *c = &cases[ci];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    hid_t ds = H5Dopen2(f, "d", H5P_DEFAULT);
    CHECK(ds >= 0, "%s: cannot open the dataset", c->name);
    const uint64_t n = nchunks_of(c);
    colldiag_chunk_record *rec = calloc(n, sizeof *rec);
    int rc = colldiag_h5_chunk_records(ds, n, rec);
    CHECK(rc == 0, "%s: colldiag_h5_chunk_records: %s", c->name, colldiag_last_errmsg());
    /* a wrong count is refused with ARG */
    colldiag_chunk_record one;
    CHECK(colldiag_h5_chunk_records(ds, n + 1, &one) == COLLDIAG_ERR_ARG, "%s: a wrong chunk count was not refused", c->name);
    uint64_t grid[2] = {1, 1}, unwritten = 0, skipped = 0, filtered_diff = 0;
    for (int d = 0; d < c->rank; d++) grid[d] = c->dims[d] / c->chunk[d] + (c->dims[d] % c->chunk[d] != 0);
    const hsize_t base = info_base(c->ub);
    uint64_t chunk_bytes = 4;
    for (int d = 0; d < c->rank; d++) chunk_bytes *= c->chunk[d];
    for (uint64_t k = 0; k < n && rc == 0; k++) {
        hsize_t off[2] = {0, 0};
        uint64_t kk = k;
        for (int d = c->rank - 1; d >= 0; d--) { off[d] = (kk % grid[d]) * c->chunk[d]; kk /= grid[d]; }
        unsigned fm = 0;
        haddr_t a = HADDR_UNDEF;
        hsize_t sz = 0;
        if (H5Dget_chunk_info_by_coord(ds, off, &fm, &a, &sz) < 0) { CHECK(0, "%s: H5Dget_chunk_info_by_coord(%llu) failed", c->name, (unsigned long long)k); continue; }
        if (a == HADDR_UNDEF) {
            unwritten++;
            CHECK(rec[k].addr == -1 && rec[k].stored == 0 && rec[k].filter_mask == 0, "%s: chunk %llu is not allocated, colldiag says %lld, %llu bytes, mask 0x%x",
                  c->name, (unsigned long long)k, (long long)rec[k].addr, (unsigned long long)rec[k].stored, rec[k].filter_mask);
            CHECK(how(ci, k) == 0, "%s: chunk %llu was written but HDF5 says it is not allocated", c->name, (unsigned long long)k);
            continue;
        }
        CHECK(rec[k].addr == (int64_t)(a + base) && rec[k].stored == sz && rec[k].filter_mask == fm,
              "%s: chunk %llu: colldiag %lld, %llu bytes, mask 0x%x; HDF5 %llu + %llu, %llu bytes, mask 0x%x", c->name, (unsigned long long)k,
              (long long)rec[k].addr, (unsigned long long)rec[k].stored, rec[k].filter_mask, (unsigned long long)a, (unsigned long long)base,
              (unsigned long long)sz, fm);
        skipped += fm != 0;
        filtered_diff += sz != chunk_bytes;
    }
    /* the case made what it means to make: unwritten chunks, skipped filters, compressed sizes */
    uint64_t want_unwritten = 0, want_skipped = 0;
    for (uint64_t k = 0; k < n; k++) {
        want_unwritten += how(ci, k) == 0;
        want_skipped += how(ci, k) == 2 && nfilters(c) > 0;
    }
    CHECK(unwritten == want_unwritten, "%s: %llu chunks unallocated, the test left %llu unwritten", c->name, (unsigned long long)unwritten,
          (unsigned long long)want_unwritten);
    CHECK(skipped == want_skipped, "%s: %llu chunks with a filter skipped, the test wrote %llu", c->name, (unsigned long long)skipped,
          (unsigned long long)want_skipped);
    if (c->deflate) CHECK(filtered_diff > 0, "%s: no chunk's stored size differs from the chunk's bytes (not filtered?)", c->name);
    if (me == 0)
        printf("%-55s %6llu chunks: %llu unwritten, %llu with a filter skipped, %llu stored at another size than %llu bytes\n", c->name,
               (unsigned long long)n, (unsigned long long)unwritten, (unsigned long long)skipped, (unsigned long long)filtered_diff,
               (unsigned long long)chunk_bytes);
    if (nfilters(c) > 0 && c->deflate) check_plan(c, ds, rec);
    int np = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check_unfilter(path, c, ds, rc == 0 ? rec : NULL, np); /* collective: every rank calls it */
    if (rc == 0) check_read(c, ds, rec); /* rc is alike on every rank: the records come from the same file */
    free(rec);
    H5Dclose(ds);
    H5Fclose(f);
    H5Pclose(fapl);
}

/* A filter colldiag does not undo (scale-offset, built into every HDF5) is refused by name, not guessed. */
static void check_unsupported(const char *path)
{
    if (me == 0) {
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hsize_t dims[1] = {64}, ch[1] = {16};
        hid_t sp = H5Screate_simple(1, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, ch);
        H5Pset_scaleoffset(dcpl, H5Z_SO_INT, H5Z_SO_INT_MINBITS_DEFAULT);
        hid_t ds = H5Dcreate2(f, "so", H5T_NATIVE_INT32, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        CHECK(ds >= 0, "cannot create the scale-offset dataset");
        H5Dclose(ds);
        H5Pclose(dcpl);
        H5Sclose(sp);
        H5Fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), ds = H5Dopen2(f, "so", H5P_DEFAULT);
    unsigned char st[64] = {0}, out[64];
    int rc = colldiag_h5_chunk_unfilter(ds, 0, st, sizeof st, out, sizeof out);
    CHECK(rc == COLLDIAG_ERR_UNSUPPORTED && strstr(colldiag_last_errmsg(), "scaleoffset"), "a scale-offset chunk: %d (%s), not UNSUPPORTED naming it", rc,
          colldiag_last_errmsg());
    H5Dclose(ds);
    H5Fclose(f);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) remove(path);
}

/* One chunk whose stored bytes no longer decode (a byte flipped under its Fletcher-32 checksum): a
   collective read through colldiag fails on every rank, none waits: the chunk's owner with IO naming
   the chunk, the others with PEER. Case ci must have Fletcher-32 and its chunk 0 written whole. */
static void check_corrupt(const char *path, size_t ci)
{
    const rcase *c = &cases[ci];
    if (me == 0) {
        write_case(path, ci);
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), ds = H5Dopen2(f, "d", H5P_DEFAULT);
        hsize_t off[2] = {0, 0}, sz = 0;
        unsigned fm = 0;
        haddr_t a = HADDR_UNDEF;
        CHECK(H5Dget_chunk_info_by_coord(ds, off, &fm, &a, &sz) >= 0 && a != HADDR_UNDEF && fm == 0, "%s: chunk 0 is not stored whole", c->name);
        H5Dclose(ds);
        H5Fclose(f);
        FILE *fp = fopen(path, "r+b");
        const long at = (long)(a + info_base(c->ub) + sz / 2);
        int b = fp && fseek(fp, at, SEEK_SET) == 0 ? fgetc(fp) : EOF;
        CHECK(b != EOF && fseek(fp, at, SEEK_SET) == 0 && fputc(b ^ 0x5a, fp) != EOF, "%s: cannot flip a byte of chunk 0", c->name);
        if (fp) fclose(fp);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl), ds = H5Dopen2(f, "d", H5P_DEFAULT);
    hsize_t n = c->dims[0] * (c->rank > 1 ? c->dims[1] : 1);
    uint32_t *buf = malloc(n * 4);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    colldiag_xfer *x = NULL;
    colldiag_xfer_create(&x);
    int rc = colldiag_h5_read(ds, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, dxpl, buf, x); /* every rank reads it all */
    int io = rc == COLLDIAG_ERR_IO, nio = 0;
    CHECK(rc == COLLDIAG_ERR_IO || rc == COLLDIAG_ERR_PEER, "%s, chunk 0 corrupt: colldiag_h5_read returned %d (%s), not IO or PEER", c->name, rc,
          colldiag_xfer_errmsg(x));
    if (io) CHECK(strstr(colldiag_xfer_errmsg(x), "chunk 0 ") && strstr(colldiag_xfer_errmsg(x), "Fletcher-32"),
                  "%s: the failing rank's message does not name chunk 0 and its checksum: %s", c->name, colldiag_xfer_errmsg(x));
    MPI_Allreduce(&io, &nio, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(nio == 1, "%s, chunk 0 corrupt: %d ranks failed with IO, not its owner alone", c->name, nio);
    if (me == 0 && !bad) printf("%-55s a corrupt chunk: every rank failed (its owner with IO naming it), none waited\n", c->name);
    colldiag_xfer_free(x);
    free(buf);
    H5Pclose(dxpl);
    H5Dclose(ds);
    H5Fclose(f);
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) remove(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *base = argc > 1 ? argv[1] : "test_h5_records";
    const int quick = argc > 2 && !strcmp(argv[2], "quick"); /* under valgrind: the cases of fewer than 500 chunks */
    char path[4096];
    size_t ran = 0;
    for (size_t ci = 0; ci < NCASES; ci++) {
        if (quick && nchunks_of(&cases[ci]) >= 500) continue;
        ran++;
        snprintf(path, sizeof path, "%s.%zu.h5", base, ci);
        if (me == 0) write_case(path, ci);
        MPI_Barrier(MPI_COMM_WORLD);
        check_case(path, ci);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) remove(path);
    }
    snprintf(path, sizeof path, "%s.so.h5", base);
    check_unsupported(path);
    snprintf(path, sizeof path, "%s.bad.h5", base);
    check_corrupt(path, 1); /* v1 B-tree, shuffle + deflate + fletcher32, userblock */
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("test_h5_records: %s (%zu cases, every chunk against H5Dget_chunk_info_by_coord on every rank)\n", all ? "FAILED" : "every record equal", ran);
    MPI_Finalize();
    return all != 0;
}
