/* test_untouched — colldiag never writes a byte it was not given.
 *
 * Every scheme (HDF5's link, multi, at-once, all-independent, multi-no-opt, independent, INDIVIDUAL_IO,
 * and colldiag's aggregation and AUTO) x both drivers (MPI-IO, POSIX) x contiguous and chunked storage x
 * two sparse selections (points in a scrambled order; a union of strided boxes) x two files:
 *  - fresh: the file holds a 96-byte header and nothing else, so the dataset's storage lies past the
 *    end of the file (where MPI-IO's collective read-modify-write fills holes from its buffer: HDF5's
 *    own path gets that wrong, tests/h5_defects.c);
 *  - with data: header, storage and a trailer prefilled with patterns.
 * Each rank writes its own sparse part (gaps inside it and between the ranks'); rank 0 then reads the
 * raw file and checks every byte against the image this test computes itself: the header and trailer
 * unchanged, selected elements the values written, every other byte of the storage what was there
 * before (0 past the end of a fresh file), and a fresh file no longer than the storage. Every rank's
 * return code must be 0.
 *
 *   mpirun -n P tests/test_untouched DIR
 */
#define _GNU_SOURCE
#include "colldiag.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { HDR = 96, TRAILER = 64, ROWS = 12, CR = 4, CC = 4, ES = 4 };
static const unsigned char HDR_BYTE = 0x5A, OLD_BYTE = 0xC3, TRAILER_BYTE = 0x3C;

typedef struct {
    const char *name;
    colldiag_xfer_mode_t mode;
    colldiag_chunk_opt_t opt;
    unsigned ratio;
    colldiag_collective_opt_t coll_opt;
} scheme_t;
static const scheme_t schemes[] = {
    {"link", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_ONE_IO, 60, COLLDIAG_MPIO_COLLECTIVE_IO},
    {"multi", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_MULTI_IO, 60, COLLDIAG_MPIO_COLLECTIVE_IO},
    {"multi r0", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_MULTI_IO, 0, COLLDIAG_MPIO_COLLECTIVE_IO},
    {"at-once", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO, 34, COLLDIAG_MPIO_COLLECTIVE_IO},
    {"all-independent", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_ALL_CHUNK_IND_IO, 60, COLLDIAG_MPIO_COLLECTIVE_IO},
    {"multi-no-opt", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT, 60, COLLDIAG_MPIO_COLLECTIVE_IO},
    {"aggregation", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO, 60, COLLDIAG_MPIO_COLLECTIVE_IO},
    {"auto", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_AUTO, 60, COLLDIAG_MPIO_COLLECTIVE_IO},
    {"individual_io", COLLDIAG_MPIO_COLLECTIVE, COLLDIAG_MPIO_CHUNK_DEFAULT, 60, COLLDIAG_MPIO_INDIVIDUAL_IO},
    {"independent", COLLDIAG_MPIO_INDEPENDENT, COLLDIAG_MPIO_CHUNK_DEFAULT, 60, COLLDIAG_MPIO_COLLECTIVE_IO},
};
enum { NSCHEMES = sizeof schemes / sizeof schemes[0] };

static int me, P, failures, checks;

#define CHECK(cond, ...)                                                                                                           \
    do {                                                                                                                           \
        checks++;                                                                                                                  \
        if (!(cond)) {                                                                                                             \
            failures++;                                                                                                            \
            printf("rank %d FAIL [%s] ", me, what);                                                                                \
            printf(__VA_ARGS__);                                                                                                   \
            printf("\n");                                                                                                          \
        }                                                                                                                          \
    } while (0)

static uint32_t value_of(uint64_t e) { return (uint32_t)((e + 1) * 2654435761u) | 1u; } /* never 0 */

/* The rank that owns element (r, c): columns dealt round-robin, so every rank's part has gaps. */
static int owner_of(uint64_t c) { return (int)(c % (uint64_t)P); }

/* 1 when the element is selected at all: a scattered subset, so gaps lie inside each part too. */
static int chosen(uint64_t r, uint64_t c, int shape)
{
    if (shape == 0) return (r * 7 + c * 3) % 5 < 2;
    return r % 3 != 1 && (c / (uint64_t)P) % 2 == 0; /* strided boxes: every other column group, two rows in three */
}

/* Element (r, c)'s byte offset in dense chunked storage (chunk k at k x chunk bytes, row-major inside). */
static uint64_t chunk_offset(uint64_t r, uint64_t c, uint64_t cols)
{
    const uint64_t k = (r / CR) * (cols / CC) + c / CC;
    return (k * CR * CC + (r % CR) * CC + c % CC) * ES;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    char path[1024];
    snprintf(path, sizeof path, "%s/colldiag_untouched_%d.bin", dir, (int)getppid());
    const uint64_t cols = (uint64_t)CC * (uint64_t)(P < 2 ? 2 : P), dims[2] = {ROWS, cols}, cd[2] = {CR, CC};
    const uint64_t N = ROWS * cols, store = N * ES; /* chunked: the grid divides exactly, so storage is N * ES too */
    unsigned char *img = malloc(HDR + store + TRAILER), *got = malloc(HDR + store + TRAILER);
    uint64_t *coords = malloc(2 * N * sizeof *coords);
    uint32_t *vals = malloc(N * sizeof *vals);
    char what[200];
    for (int layout = 0; layout < 2; layout++)
        for (int drv = 0; drv < 2; drv++)
            for (int fresh = 0; fresh < 2; fresh++)
                for (int shape = 0; shape < 2; shape++)
                    for (int s = 0; s < NSCHEMES; s++) {
                        const scheme_t *sc = &schemes[s];
                        snprintf(what, sizeof what, "%s, %s driver, %s file, %s, %s", layout ? "chunked" : "contiguous", drv ? "POSIX" : "MPI-IO",
                                 fresh ? "fresh" : "with data", shape ? "strided boxes" : "scattered points", sc->name);
                        /* the file before: header (and storage and trailer when not fresh), by rank 0 */
                        if (me == 0) {
                            FILE *fp = fopen(path, "wb");
                            memset(img, HDR_BYTE, HDR);
                            memset(img + HDR, fresh ? 0 : OLD_BYTE, store);
                            memset(img + HDR + store, fresh ? 0 : TRAILER_BYTE, TRAILER);
                            if (fp) {
                                fwrite(img, 1, fresh ? HDR : HDR + store + TRAILER, fp);
                                fclose(fp);
                            }
                        }
                        MPI_Barrier(MPI_COMM_WORLD);
                        colldiag_file *f = NULL;
                        colldiag_layout *l = NULL;
                        colldiag_sel *fs = NULL;
                        colldiag_xfer *x = NULL;
                        int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL,
                                                    drv ? COLLDIAG_DRIVER_POSIX : COLLDIAG_DRIVER_MPIO, &f);
                        CHECK(rc == 0, "open: %s", colldiag_strerror(rc));
                        rc = layout ? colldiag_layout_chunked(2, dims, cd, ES, HDR, &l) : colldiag_layout_contiguous(2, dims, ES, HDR, &l);
                        CHECK(rc == 0, "layout: %s", colldiag_strerror(rc));
                        colldiag_sel_create(2, dims, &fs);
                        /* this rank's elements; points in a scrambled order (the k-th value pairs with the k-th point) */
                        uint64_t n = 0;
                        for (uint64_t e = 0; e < N; e++) {
                            const uint64_t r = e / cols, c = e % cols;
                            if (owner_of(c) != me || !chosen(r, c, shape)) continue;
                            coords[2 * n] = r;
                            coords[2 * n + 1] = c;
                            n++;
                        }
                        if (shape == 0) {
                            for (uint64_t i = 0; i + 1 < n; i += 2) { /* swap neighbours, then reverse: not row-major */
                                uint64_t t0 = coords[2 * i], t1 = coords[2 * i + 1];
                                coords[2 * i] = coords[2 * i + 2];
                                coords[2 * i + 1] = coords[2 * i + 3];
                                coords[2 * i + 2] = t0;
                                coords[2 * i + 3] = t1;
                            }
                            if (n) colldiag_sel_select_elements(fs, COLLDIAG_SELECT_SET, n, coords);
                            else colldiag_sel_select_none(fs);
                            for (uint64_t i = 0; i < n; i++) vals[i] = value_of(coords[2 * i] * cols + coords[2 * i + 1]);
                        } else { /* the same elements as a union of one-element boxes, walked in row-major order */
                            colldiag_sel_select_none(fs);
                            for (uint64_t i = 0; i < n; i++) {
                                const uint64_t st[2] = {coords[2 * i], coords[2 * i + 1]}, one[2] = {1, 1};
                                colldiag_sel_select_hyperslab(fs, i ? COLLDIAG_SELECT_OR : COLLDIAG_SELECT_SET, st, NULL, one, NULL);
                            }
                            for (uint64_t i = 0; i < n; i++) vals[i] = value_of(coords[2 * i] * cols + coords[2 * i + 1]); /* row-major already */
                        }
                        colldiag_xfer_create(&x);
                        colldiag_set_dxpl_mpio(x, sc->mode);
                        colldiag_set_dxpl_mpio_chunk_opt(x, sc->opt);
                        colldiag_set_dxpl_mpio_chunk_opt_ratio(x, sc->ratio);
                        colldiag_set_dxpl_mpio_collective_opt(x, sc->coll_opt);
                        rc = f && l ? colldiag_write(f, l, fs, NULL, vals, x) : -1;
                        int all = 0;
                        MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
                        int any = 0;
                        MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                        CHECK(rc == 0 && all == 0 && any == 0, "write: rc %s here (%s)", colldiag_strerror(rc), x ? colldiag_xfer_errmsg(x) : "");
                        colldiag_xfer_free(x);
                        colldiag_sel_free(fs);
                        colldiag_file_close(f);
                        MPI_Barrier(MPI_COMM_WORLD);
                        /* every rank's elements, from the same rule: the image */
                        if (me == 0) {
                            for (uint64_t e = 0; e < N; e++) {
                                const uint64_t r = e / cols, c = e % cols;
                                if (!chosen(r, c, shape)) continue;
                                const uint32_t v = value_of(e);
                                const uint64_t off = layout ? chunk_offset(r, c, cols) : e * ES;
                                memcpy(img + HDR + off, &v, ES); /* little-endian host: the file's bytes */
                            }
                            FILE *fp = fopen(path, "rb");
                            size_t len = fp ? fread(got, 1, HDR + store + TRAILER, fp) : 0;
                            if (fp) fclose(fp);
                            memset(got + len, 0, HDR + store + TRAILER - len); /* past the end of the file: zeros */
                            const size_t want_len = fresh ? HDR + store : HDR + store + TRAILER;
                            CHECK(len <= want_len && len >= HDR, "the file has %zu bytes; at most %zu expected", len, want_len);
                            uint64_t bad = 0, first = 0;
                            for (size_t b = 0; b < HDR + store + TRAILER; b++)
                                if (got[b] != img[b] && !bad++) first = b;
                            CHECK(bad == 0, "%" PRIu64 " bytes differ, the first at byte %" PRIu64 " (0x%02x, expected 0x%02x: %s)", bad, first,
                                  got[first], img[first], first < HDR ? "the header" : first >= HDR + store ? "the trailer" : "the storage");
                        }
                        colldiag_layout_free(l);
                        MPI_Barrier(MPI_COMM_WORLD);
                    }
    if (me == 0) unlink(path);
    int tf = 0;
    MPI_Allreduce(&failures, &tf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("test_untouched P=%d: %d checks on rank 0, %d failed in all\n", P, checks, tf);
    free(img);
    free(got);
    free(coords);
    free(vals);
    MPI_Finalize();
    return tf != 0;
}
