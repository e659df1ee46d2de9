/* test_memory — a collective call's memory stays bounded by the collective buffer, whatever the data size.
 *
 * colldiag.c is compiled in with a counting allocator (its COLLDIAG_MALLOC/... macros), so the test sees
 * every byte the kit allocates during a call. Each rank writes a slab of planes of a 3-D chunked dataset
 * from a packed buffer: 8-element chunk rows are 32-byte memory runs, so collective calls pack memory
 * into file order; then every rank writes every P-th element of the last dimension (interleaved, so
 * every chunk is shared and aggregation exchanges most bytes); then every rank writes the elements
 * (i, j, k) with (j + k) mod P = r, a union of one strided hyperslab per j (diagonal: next to each
 * other, a rank's chunk rows start at different offsets: link's runs do not compress, and aggregation
 * describes every row as a record of its own, 48 bytes for a few elements, so its rounds must budget
 * the records, not only the bytes). With a collective buffer far smaller
 * than a rank's data, for link-chunk, multi-chunk, aggregation and AUTO, writes and reads, the test checks:
 *   - the peak the call adds stays under  coll_buffer + 256 B per touched chunk + a fixed 16 KiB;
 *   - no MPI_File_{write,read}_at_all moves more than coll_buffer bytes from a rank (PMPI counter), and
 *     the MPI calls move exactly the rank's bytes (aggregation: all ranks' calls together move exactly
 *     the dataset's bytes, each byte once);
 *   - link-chunk makes exactly ceil(max elements per rank / floor(coll_buffer / 4)) collective calls (the
 *     diagonal's reads on Open MPI 4.1.0-4.1.4's ompio: none, and at most that many independent ones, the
 *     read guard's);
 *   - the file holds exactly the bytes of an image the test computes itself (rank 0 reads it raw), and
 *     every rank reads its slab back exactly.
 * The buffer comes from colldiag_set_coll_buffer or env COLLDIAG_COLL_BUFFER (both are tried).
 * Then colldiag_write_multi / read_multi of six datasets of the same extent (chunk shapes 8^3, 4x8x16,
 * 16x5x32 with edge chunks, and contiguous; element sizes 1 to 8 bytes), each rank its slab of every
 * one: the peak stays under coll_buffer + 256 B per touched chunk over all datasets (a contiguous
 * dataset counts as one) + 16 KiB + 1 KiB per dataset + 128 B per rank, no collective MPI call moves more than the buffer, the MPI calls
 * move exactly the rank's bytes (aggregation: all ranks together, each byte once), and the read
 * gives back every byte written. And 48 small datasets (1-D, contiguous or one chunk, a third of each
 * per rank), where each dataset's fixed cost shows: its agreement vector (240 B), results (288 B) and
 * context (720 B) exceed a touched chunk's 256 B, so the bound gains 1 KiB per dataset (colldiag.h).
 * And independent writes and reads of whole 512 KiB chunks from and into five memory layouts
 * (direct_case): the calls the rule for long runs makes, no staging copy where every run is one in
 * memory, the file's bytes, every element in its place and the bytes between untouched, zeros past
 * the file's end.
 *
 *   mpirun -n P tests/test_memory [DIR [quick]]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "count_alloc.h" /* colldiag's allocator, counted */
#include "../colldiag.c"
#include "pmpi_count.h"
#include "testutil.h"

#include <unistd.h>

enum { D0 = 50, D1 = 40, D2 = 32, C = 8, ES = 4 };

/* the value of global element (i, j, k): all four bytes vary */
static uint32_t val(uint64_t i, uint64_t j, uint64_t k) { return (uint32_t)(((i * D1 + j) * D2 + k) * 2654435761u + 12345u); }

/* byte offset of element (i, j, k) in the dense chunked layout: chunks of C^3 full-size elements in
   row-major grid order, row-major inside (edge chunks are stored full size) */
static uint64_t file_off(uint64_t i, uint64_t j, uint64_t k)
{
    const uint64_t g1 = (D1 + C - 1) / C, g2 = (D2 + C - 1) / C;
    uint64_t ci = ((i / C) * g1 + j / C) * g2 + k / C;
    return (ci * C * C * C + ((i % C) * C + j % C) * C + k % C) * ES;
}

static void slab(int r, uint64_t *lo, uint64_t *hi) /* rank r's planes [lo, hi): uneven, edges mid-chunk */
{
    *lo = (uint64_t)r * D0 / (uint64_t)P;
    *hi = (uint64_t)(r + 1) * D0 / (uint64_t)P;
}

/* elements of the last dimension rank r writes when interleaved: k = r, r + P, ... */
static uint64_t inter_count(int r) { return (uint64_t)r < D2 ? (D2 - (uint64_t)r + (uint64_t)P - 1) / (uint64_t)P : 0; }

/* the diagonal pattern: whether rank r writes element (i, j, k), and how many it writes */
static int diag_mine(uint64_t j, uint64_t k, int r) { return (j + k) % (uint64_t)P == (uint64_t)r; }
static uint64_t diag_count(int r)
{
    uint64_t n = 0;
    for (uint64_t j = 0; j < D1; j++)
        for (uint64_t k = 0; k < D2; k++) n += diag_mine(j, k, r);
    return n * D0;
}
static const char *const pattern_name[3] = {"slabs", "interleaved", "diagonal"};

/* Open MPI 4.1.0 - 4.1.4's ompio with its read data sieving on: colldiag's read guard makes a read whose
   ranks' selections may share an element independent (the diagonal's unions of hyperslabs: their boxes
   meet although they never share one), in the same rounds. The test's own reading of the stack. */
static int guard_stack(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0, a = 0, b = 0, c = 0, mine, any = 0;
    MPI_Get_library_version(v, &n);
    const char *io = getenv("OMPI_MCA_io"), *ds = getenv("OMPI_MCA_fbtl_posix_read_datasieving");
    mine = sscanf(v, "Open MPI v%d.%d.%d", &a, &b, &c) == 3 && a == 4 && b == 1 && c <= 4 && !(io && strstr(io, "romio")) &&
           !(ds && (!strcmp(ds, "0") || !strcmp(ds, "false")));
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static const char *opt_name(int opt)
{
    switch (opt) {
    case COLLDIAG_MPIO_CHUNK_ONE_IO: return "link";
    case COLLDIAG_MPIO_CHUNK_MULTI_IO: return "multi";
    case COLLDIAG_MPIO_CHUNK_AGGREGATE_IO: return "aggregate";
    default: return "auto";
    }
}

static void one(const char *path, int opt, size_t cbuf, int by_env, int inter)
{
    snprintf(g_case, sizeof g_case, "%s, chunk_opt %s, collective buffer %zu (%s)", pattern_name[inter],
             opt_name(opt), cbuf, by_env ? "env" : "setting");
    uint64_t dims[3] = {D0, D1, D2}, cd[3] = {C, C, C}, lo, hi;
    slab(me, &lo, &hi);
    if (inter) { lo = 0; hi = D0; }
    colldiag_layout *l;
    colldiag_layout_chunked(3, dims, cd, ES, 0, &l);
    colldiag_sel *fs;
    colldiag_sel_create(3, dims, &fs);
    const uint64_t kn = inter ? inter_count(me) : D2, k0 = inter ? (uint64_t)me : 0, ks = inter ? (uint64_t)P : 1;
    uint64_t st[3] = {lo, 0, k0}, sr[3] = {1, 1, ks}, cn[3] = {hi - lo, D1, kn};
    const uint64_t n = inter == 2 ? diag_count(me) : (hi - lo) * D1 * kn;
    uint32_t *buf = malloc(n * ES + 1), *back = malloc(n * ES + 1);
    if (inter == 2) { /* selected in row-major order: the union iterates that way whatever the OR order */
        colldiag_sel_select_none(fs);
        for (uint64_t j = 0; j < D1; j++) {
            uint64_t k1 = ((uint64_t)me + (uint64_t)P - j % (uint64_t)P) % (uint64_t)P; /* the first k with (j + k) % P == me */
            uint64_t s3[3] = {0, j, k1}, r3[3] = {1, 1, (uint64_t)P}, c3[3] = {D0, 1, k1 < D2 ? (D2 - k1 + (uint64_t)P - 1) / (uint64_t)P : 0};
            if (c3[2]) colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_OR, s3, r3, c3, NULL);
        }
        for (uint64_t i = 0, e = 0; i < D0; i++)
            for (uint64_t j = 0; j < D1; j++)
                for (uint64_t k = 0; k < D2; k++)
                    if (diag_mine(j, k, me)) buf[e++] = val(i, j, k);
    } else {
        colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, st, sr, cn, NULL);
        for (uint64_t i = lo, e = 0; i < hi; i++)
            for (uint64_t j = 0; j < D1; j++)
                for (uint64_t k = k0; k < D2; k += ks) buf[e++] = val(i, j, k);
    }
    /* the chunks this rank touches, counted by the test: planes lo..hi-1 cover chunk rows lo/C..(hi-1)/C
       (interleaved and diagonal, P <= C: every rank touches every chunk) */
    const uint64_t touched = n ? ((hi - 1) / C - lo / C + 1) * ((D1 + C - 1) / C) * ((D2 + C - 1) / C) : 0;
    /* the most elements any rank moves (slabs differ by a plane) */
    uint64_t maxn = 0;
    for (int r = 0; r < P; r++) {
        uint64_t a, b;
        slab(r, &a, &b);
        uint64_t nr = inter == 2 ? diag_count(r) : inter ? D0 * D1 * inter_count(r) : (b - a) * D1 * D2;
        if (nr > maxn) maxn = nr;
    }
    char cb[32];
    snprintf(cb, sizeof cb, "%zu", cbuf);
    if (by_env) setenv("COLLDIAG_COLL_BUFFER", cb, 1);
    colldiag_file *f;
    int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    CHECK(rc == 0, "open: %s", colldiag_last_errmsg());
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)opt);
    if (!by_env) colldiag_set_coll_buffer(x, cbuf);
    const size_t bound = cbuf + 256 * touched + 16384;
    for (int dir = 0; dir < 2; dir++) {
        const char *what = dir ? "read" : "write";
        memset(back, 0xEE, n * ES);
        pmpi_reset();
        size_t base = g_live;
        g_peak = g_live;
        rc = dir ? colldiag_read(f, l, fs, NULL, back, x) : colldiag_write(f, l, fs, NULL, buf, x);
        size_t added = g_peak - base;
        CHECK(rc == 0, "%s: rc %d: %s", what, rc, colldiag_xfer_errmsg(x));
        CHECK(added <= bound, "%s added %zu bytes at its peak, bound %zu (buffer %zu + 256 x %llu chunks + 16 KiB); data %llu bytes",
              what, added, bound, cbuf, (unsigned long long)touched, (unsigned long long)(n * ES));
        CHECK(g_pmpi.coll_max <= cbuf, "%s: one collective MPI call moved %llu bytes, more than the %zu-byte buffer", what,
              (unsigned long long)g_pmpi.coll_max, cbuf);
        colldiag_actual_chunk_opt_mode_t co = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
        colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
        if (co == COLLDIAG_MPIO_LINK_CHUNK) {
            uint64_t cap = cbuf / ES ? cbuf / ES : 1, want = (maxn + cap - 1) / cap;
            if (dir && inter == 2 && P > 1 && guard_stack()) /* the read guard: the same rounds, independent */
                CHECK(g_pmpi.coll_calls == 0 && g_pmpi.ind_calls <= want, "%s: link-chunk under the read guard made %llu collective and %llu "
                      "independent calls, expected none and at most %llu", what, (unsigned long long)g_pmpi.coll_calls,
                      (unsigned long long)g_pmpi.ind_calls, (unsigned long long)want);
            else
                CHECK(g_pmpi.coll_calls == want, "%s: link-chunk made %llu collective calls, expected %llu", what,
                      (unsigned long long)g_pmpi.coll_calls, (unsigned long long)want);
        }
        if (co == COLLDIAG_MPIO_CHUNK_AGGREGATE) { /* owners move other ranks' bytes: check the sum */
            unsigned long long mine = g_pmpi.coll_bytes + g_pmpi.ind_bytes, all = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            CHECK(all == (unsigned long long)D0 * D1 * D2 * ES, "%s: MPI calls moved %llu bytes in all, expected %llu", what,
                  all, (unsigned long long)D0 * D1 * D2 * ES);
        } else {
            CHECK(g_pmpi.coll_bytes + g_pmpi.ind_bytes == n * ES, "%s: MPI calls moved %llu + %llu bytes, expected %llu", what,
                  (unsigned long long)g_pmpi.coll_bytes, (unsigned long long)g_pmpi.ind_bytes, (unsigned long long)(n * ES));
        }
        if (dir == 1) CHECK(!memcmp(back, buf, n * ES), "read back differs from what was written");
        if (dir == 0 && co == COLLDIAG_MPIO_CHUNK_AGGREGATE) {
            /* aggregation keeps its data buffers for the file's next call (a time-step loop maps no fresh
               pages): what the call leaves alive stays within the bound (the buffers, at most 3/4 of the
               collective buffer, and the call's per-chunk results), and the same call again allocates
               less than the same call on a file that kept nothing, by at least a quarter of the smaller
               of the rank's data and the buffer (its send buffer alone holds a round of its data) */
            const size_t left = g_live - base, total0 = g_total;
            CHECK(left <= bound, "aggregation left %zu bytes alive after its call, bound %zu", left, bound);
            rc = colldiag_write(f, l, fs, NULL, buf, x);
            const size_t again = g_total - total0;
            colldiag_file *f2 = NULL;
            CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f2) == 0, "reopen: %s",
                  colldiag_last_errmsg());
            const size_t t1 = g_total;
            CHECK(colldiag_write(f2, l, fs, NULL, buf, x) == 0 && rc == 0, "repeated writes: %s", colldiag_xfer_errmsg(x));
            const size_t first = g_total - t1, data = n * ES < cbuf ? n * ES : cbuf;
            colldiag_file_close(f2);
            /* up to C ranks: every rank holds a share of every chunk row it touches, and a round carries
               its data. Beyond (16 ranks, 8-element chunks) a rank holds at most one element of a chunk
               row, every piece is runs of one element, and rounds are bounded by the run records each
               owner receives: a rank's send buffer held 1.8 KB a round of its 16 KB. The buffers kept are
               that small; the check would measure records, not data */
            if (P > 1 && P <= C && cbuf >= 65536)
                CHECK(again + data / 4 <= first, "a repeated aggregation call allocated %zu bytes, the same call on a fresh file %zu: "
                      "the data buffers (%zu bytes or more) were not kept", again, first, data / 4);
        }
        if (dir == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0) { /* the whole file against the test's own image */
                const uint64_t fb = file_off(D0 - 1, D1 - 1, D2 - 1) + ES;
                unsigned char *img = malloc(fb), *got = malloc(fb);
                memset(img, 0, fb);
                for (uint64_t i = 0; i < D0; i++)
                    for (uint64_t j = 0; j < D1; j++)
                        for (uint64_t k = 0; k < D2; k++) {
                            uint32_t v = val(i, j, k);
                            memcpy(img + file_off(i, j, k), &v, ES);
                        }
                memset(got, 0, fb);
                FILE *fp = fopen(path, "rb");
                size_t rd = fp ? fread(got, 1, fb, fp) : 0;
                if (fp) fclose(fp);
                uint64_t bad = fb, nbad = 0, last = 0;
                for (uint64_t b = 0; b < fb; b++)
                    if (img[b] != got[b]) {
                        if (bad == fb) bad = b;
                        nbad++;
                        last = b;
                    }
                CHECK(rd == fb && bad == fb, "file: %zu of %llu bytes read, %llu wrong, first %llu (0x%02x, expected 0x%02x), last %llu",
                      rd, (unsigned long long)fb, (unsigned long long)nbad, (unsigned long long)bad, bad < fb ? got[bad] : 0,
                      bad < fb ? img[bad] : 0, (unsigned long long)last);
                free(img);
                free(got);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    if (by_env) unsetenv("COLLDIAG_COLL_BUFFER");
    if (me == 0) unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    free(back);
    colldiag_sel_free(fs);
    colldiag_layout_free(l);
}

/* The multi-dataset call's six datasets: chunk shape (0: contiguous) and element size. */
static const struct { uint64_t c[3]; size_t es; } MD[] = {
    {{8, 8, 8}, 4}, {{4, 8, 16}, 8}, {{16, 5, 32}, 1}, {{0, 0, 0}, 2}, {{8, 8, 8}, 2}, {{0, 0, 0}, 4},
};
enum { NMD = sizeof MD / sizeof MD[0] };

static unsigned char mval(int d, uint64_t lin, size_t b) { return (unsigned char)(lin * 2654435761u >> (8 * (b & 3))) ^ (unsigned char)(d * 37 + (int)b); }

static void multi_case(const char *path, int opt, size_t cbuf)
{
    snprintf(g_case, sizeof g_case, "write_multi of %d datasets, chunk_opt %s, collective buffer %zu", NMD, opt_name(opt), cbuf);
    uint64_t dims[3] = {D0, D1, D2}, lo, hi;
    slab(me, &lo, &hi);
    const uint64_t n = (hi - lo) * D1 * D2;
    colldiag_layout *l[NMD];
    colldiag_sel *fs[NMD];
    unsigned char *buf[NMD], *back[NMD];
    uint64_t touched = 0, mine = 0, all_bytes = 0;
    MPI_Offset base = 0;
    for (int d = 0; d < NMD; d++) {
        const uint64_t *c = MD[d].c;
        if (c[0]) {
            colldiag_layout_chunked(3, dims, c, MD[d].es, base, &l[d]);
            uint64_t g[3];
            for (int i = 0; i < 3; i++) g[i] = (dims[i] + c[i] - 1) / c[i];
            base += (MPI_Offset)(g[0] * g[1] * g[2] * c[0] * c[1] * c[2] * MD[d].es);
            if (n) touched += ((hi - 1) / c[0] - lo / c[0] + 1) * g[1] * g[2];
        } else {
            colldiag_layout_contiguous(3, dims, MD[d].es, base, &l[d]);
            base += (MPI_Offset)(D0 * D1 * D2 * MD[d].es);
            touched += n ? 1 : 0;
        }
        colldiag_sel_create(3, dims, &fs[d]);
        uint64_t st[3] = {lo, 0, 0}, cn[3] = {hi - lo, D1, D2};
        colldiag_sel_select_hyperslab(fs[d], COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
        buf[d] = malloc(n * MD[d].es + 1);
        back[d] = malloc(n * MD[d].es + 1);
        for (uint64_t e = 0; e < n * MD[d].es; e++) buf[d][e] = mval(d, lo * D1 * D2 + e / MD[d].es, e % MD[d].es);
        mine += n * MD[d].es;
        all_bytes += D0 * D1 * D2 * MD[d].es;
    }
    colldiag_file *f;
    int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    CHECK(rc == 0, "open: %s", colldiag_last_errmsg());
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)opt);
    colldiag_set_coll_buffer(x, cbuf);
    /* as one(), plus what a multi-dataset call holds for each dataset (its context, ~1 KiB) and the
       aggregation's counts and displacements, 16 words a rank (colldiag.h): 16 ranks went 1.5-5 KB
       over the one-dataset bound, six contexts and the exchange's counts beside few chunks a rank */
    const size_t bound = cbuf + 256 * touched + 16384 + 1280 * NMD + 128 * (size_t)P;
    const colldiag_layout *cl[NMD];
    const colldiag_sel *cf[NMD];
    const void *cw[NMD];
    void *rb[NMD];
    for (int d = 0; d < NMD; d++) {
        cl[d] = l[d];
        cf[d] = fs[d];
        cw[d] = buf[d];
        rb[d] = back[d];
        memset(back[d], 0xEE, n * MD[d].es);
    }
    for (int dir = 0; dir < 2; dir++) {
        const char *what = dir ? "read_multi" : "write_multi";
        pmpi_reset();
        size_t base_live = g_live;
        g_peak = g_live;
        rc = dir ? colldiag_read_multi(f, NMD, cl, cf, NULL, rb, x) : colldiag_write_multi(f, NMD, cl, cf, NULL, cw, x);
        size_t added = g_peak - base_live;
        CHECK(rc == 0, "%s: rc %d: %s", what, rc, colldiag_xfer_errmsg(x));
        CHECK(added <= bound, "%s added %zu bytes at its peak, bound %zu (buffer %zu + 256 x %llu chunks + 16 KiB + 1.25 KiB x %d datasets + 128 B x %d ranks); data %llu bytes", what,
              added, bound, cbuf, (unsigned long long)touched, NMD, P, (unsigned long long)mine);
        CHECK(g_pmpi.coll_max <= cbuf, "%s: one collective MPI call moved %llu bytes, more than the %zu-byte buffer", what,
              (unsigned long long)g_pmpi.coll_max, cbuf);
        colldiag_actual_chunk_opt_mode_t co = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
        colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
        if (co == COLLDIAG_MPIO_CHUNK_AGGREGATE) { /* owners move other ranks' bytes: check the sum */
            unsigned long long moved = g_pmpi.coll_bytes + g_pmpi.ind_bytes, sum = 0;
            MPI_Allreduce(&moved, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            CHECK(sum == (unsigned long long)all_bytes, "%s: MPI calls moved %llu bytes in all, expected %llu", what, sum,
                  (unsigned long long)all_bytes);
        } else {
            CHECK(g_pmpi.coll_bytes + g_pmpi.ind_bytes == mine, "%s: MPI calls moved %llu + %llu bytes, expected %llu", what,
                  (unsigned long long)g_pmpi.coll_bytes, (unsigned long long)g_pmpi.ind_bytes, (unsigned long long)mine);
        }
    }
    for (int d = 0; d < NMD; d++) CHECK(!memcmp(back[d], buf[d], n * MD[d].es), "read_multi: dataset %d differs from what was written", d);
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    if (me == 0) unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int d = 0; d < NMD; d++) {
        free(buf[d]);
        free(back[d]);
        colldiag_sel_free(fs[d]);
        colldiag_layout_free(l[d]);
    }
}

/* Many datasets of one piece per rank: the per-dataset cost, bounded. */
static void multi_small(const char *path, int opt)
{
    enum { NS = 48, E = 999 };
    snprintf(g_case, sizeof g_case, "write_multi of %d one-piece datasets, chunk_opt %s", NS, opt_name(opt));
    const size_t cbuf = 4096;
    uint64_t dims[1] = {E}, lo = (uint64_t)me * E / (uint64_t)P, hi = (uint64_t)(me + 1) * E / (uint64_t)P, n = hi - lo;
    colldiag_layout *l[NS];
    colldiag_sel *fs[NS];
    const colldiag_layout *cl[NS];
    const colldiag_sel *cf[NS];
    const void *cw[NS];
    void *rb[NS];
    uint32_t *buf = malloc(NS * n * 4 + 4), *back = malloc(NS * n * 4 + 4);
    for (int d = 0; d < NS; d++) {
        if (d % 2) colldiag_layout_chunked(1, dims, dims, 4, (MPI_Offset)d * E * 4, &l[d]);
        else colldiag_layout_contiguous(1, dims, 4, (MPI_Offset)d * E * 4, &l[d]);
        colldiag_sel_create(1, dims, &fs[d]);
        uint64_t cnt[1] = {n};
        colldiag_sel_select_hyperslab(fs[d], COLLDIAG_SELECT_SET, &lo, NULL, cnt, NULL);
        for (uint64_t e = 0; e < n; e++) buf[d * n + e] = (uint32_t)((d * E + lo + e) * 2654435761u);
        cl[d] = l[d];
        cf[d] = fs[d];
        cw[d] = buf + d * n;
        rb[d] = back + d * n;
    }
    memset(back, 0xEE, NS * n * 4);
    colldiag_file *f;
    int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    CHECK(rc == 0, "open: %s", colldiag_last_errmsg());
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, (colldiag_chunk_opt_t)opt);
    colldiag_set_coll_buffer(x, cbuf);
    const size_t touched = n ? NS : 0, bound = cbuf + 256 * touched + 1280 * NS + 16384;
    for (int dir = 0; dir < 2; dir++) {
        pmpi_reset();
        size_t base_live = g_live;
        g_peak = g_live;
        rc = dir ? colldiag_read_multi(f, NS, cl, cf, NULL, rb, x) : colldiag_write_multi(f, NS, cl, cf, NULL, cw, x);
        size_t added = g_peak - base_live;
        CHECK(rc == 0, "%s: rc %d: %s", dir ? "read" : "write", rc, colldiag_xfer_errmsg(x));
        CHECK(added <= bound, "%s added %zu bytes at its peak, bound %zu (buffer %zu + 256 x %zu chunks + 1.25 KiB x %d datasets + 16 KiB)",
              dir ? "read" : "write", added, bound, cbuf, touched, NS);
        CHECK(g_pmpi.coll_max <= cbuf, "one collective MPI call moved %llu bytes, more than the %zu-byte buffer", (unsigned long long)g_pmpi.coll_max,
              cbuf);
    }
    CHECK(!memcmp(back, buf, NS * n * 4), "read_multi gave back other bytes than were written");
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    if (me == 0) unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int d = 0; d < NS; d++) {
        colldiag_sel_free(fs[d]);
        colldiag_layout_free(l[d]);
    }
    free(buf);
    free(back);
}

/* Independent writes of long runs go to the file from the program's own buffer (src/execution.c,
   stage_direct): rows of 4096 doubles, chunks of 16 whole rows (512 KiB, one run each in the file),
   each rank its 32 rows (two chunks, adjacent in the file), by independent calls. Per memory layout:
   the MPI calls the test expects from the rule (a run of 64 KiB or more that is one run in memory is
   written from it; runs that follow each other in both the file and memory are one call; shorter
   runs are staged and merged while they follow each other in the file), the peak the call allocates
   (no staging buffer where every run goes direct: under 64 KiB of the 1 MiB written), the file's bytes
   against an image the test computes (rank 0 reads it raw) and a read back. */
enum { DR = 32, DC = 4096, DCH = 16 };
/* One direct_case call (what: "write" or "read"), since pmpi_reset: it succeeded, made want_calls
   independent MPI-IO calls moving `bytes` and no collective one, and, where every run goes direct
   (peak_checked), allocated under 64 KiB at its peak (`added`): its 1 MiB was not staged. */
static void direct_call_checks(const char *what, int rc, colldiag_xfer *x, uint64_t want_calls, uint64_t bytes, size_t added, int peak_checked)
{
    CHECK(rc == 0, "%s: %s", what, colldiag_xfer_errmsg(x));
    CHECK(g_pmpi.ind_calls == want_calls && g_pmpi.ind_bytes == bytes && g_pmpi.coll_calls == 0,
          "%s: %llu independent calls (%llu bytes), %llu collective; expected %llu independent calls of %llu bytes in all", what,
          (unsigned long long)g_pmpi.ind_calls, (unsigned long long)g_pmpi.ind_bytes, (unsigned long long)g_pmpi.coll_calls,
          (unsigned long long)want_calls, (unsigned long long)bytes);
    if (peak_checked) CHECK(added < 65536, "the %s allocated %zu bytes at its peak: its 1 MiB was staged", what, added);
}
static double dval(int c, uint64_t i, uint64_t j) { return (double)(i * DC + j) + 0.25 + 1e7 * c; }
static void direct_case(const char *path, int c)
{
    static const char *const what[5] = {"packed buffer", "rows apart in memory (32 KiB runs)", "one run at an offset in memory",
                                        "a memory break inside the first chunk", "the two chunks apart in memory"};
    snprintf(g_case, sizeof g_case, "independent write and read of whole chunks, %s", what[c]);
    const uint64_t NR = (uint64_t)DR * (uint64_t)P, n = (uint64_t)DR * DC, r0 = (uint64_t)me * DR;
    uint64_t dims[2] = {NR, DC}, cd[2] = {DCH, DC};
    colldiag_layout *l;
    colldiag_layout_chunked(2, dims, cd, sizeof(double), 0, &l);
    colldiag_sel *fs, *ms = NULL;
    colldiag_sel_create(2, dims, &fs);
    uint64_t st[2] = {r0, 0}, cn[2] = {DR, DC};
    colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    /* where the k-th selected element lies in the memory buffer, and the calls the rule makes */
    uint64_t mlen = n, gap_at = n, gap = 0, want_calls = 1;
    if (c == 1) {
        uint64_t md[2] = {DR, 2 * DC}, ms0[2] = {0, 0};
        colldiag_sel_create(2, md, &ms);
        colldiag_sel_select_hyperslab(ms, COLLDIAG_SELECT_SET, ms0, NULL, cn, NULL);
        mlen = 2 * n;
    } else if (c == 2) {
        uint64_t md[2] = {2 * DR, DC}, ms0[2] = {DR, 0};
        colldiag_sel_create(2, md, &ms);
        colldiag_sel_select_hyperslab(ms, COLLDIAG_SELECT_SET, ms0, NULL, cn, NULL);
        mlen = 2 * n;
    } else if (c >= 3) {
        gap_at = c == 3 ? 30000 : n / 2;
        gap = 100;
        mlen = n + gap;
        uint64_t md[1] = {mlen}, a0[1] = {0}, a1[1] = {gap_at}, b0[1] = {gap_at + gap}, b1[1] = {n - gap_at};
        colldiag_sel_create(1, md, &ms);
        colldiag_sel_select_hyperslab(ms, COLLDIAG_SELECT_SET, a0, NULL, a1, NULL);
        colldiag_sel_select_hyperslab(ms, COLLDIAG_SELECT_OR, b0, NULL, b1, NULL);
        want_calls = 2; /* c 3: the first chunk staged, the second direct; c 4: each chunk direct, apart */
    }
    double *mem = malloc(mlen * sizeof *mem), *back = malloc(n * sizeof *back);
    memset(mem, 0xEE, mlen * sizeof *mem);
    for (uint64_t k = 0; k < n; k++) {
        const uint64_t i = r0 + k / DC, j = k % DC;
        const uint64_t pos = c == 1 ? (k / DC) * 2 * DC + j : c == 2 ? n + k : k < gap_at ? k : k + gap;
        mem[pos] = dval(c, i, j);
    }
    colldiag_file *f;
    CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open: %s",
          colldiag_last_errmsg());
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_INDEPENDENT);
    pmpi_reset();
    size_t base = g_live;
    g_peak = g_live;
    int rc = colldiag_write(f, l, fs, ms, mem, x);
    direct_call_checks("write", rc, x, want_calls, n * sizeof(double), g_peak - base, c != 1 && c != 3);
    memset(back, 0, n * sizeof *back);
    CHECK(colldiag_read(f, l, fs, NULL, back, x) == 0, "read: %s", colldiag_xfer_errmsg(x));
    uint64_t bad = 0;
    for (uint64_t k = 0; k < n; k++) bad += back[k] != dval(c, r0 + k / DC, k % DC);
    CHECK(bad == 0, "%llu of %llu elements read back differ", (unsigned long long)bad, (unsigned long long)n);
    /* reads by the same rule, into the same memory layout: the same calls, no staging buffer where every
       run goes direct, every element in its place and the bytes between untouched (0xEE) */
    double *mem2 = malloc(mlen * sizeof *mem2);
    memset(mem2, 0xEE, mlen * sizeof *mem2);
    pmpi_reset();
    base = g_live;
    g_peak = g_live;
    rc = colldiag_read(f, l, fs, ms, mem2, x);
    direct_call_checks("read", rc, x, want_calls, n * sizeof(double), g_peak - base, c != 1 && c != 3);
    CHECK(memcmp(mem2, mem, mlen * sizeof *mem) == 0, "the read into the memory layout differs from what was written from it");
    /* past the file's end (the same rows of a dataset twice as tall, the lower half never written):
       zeros, as a staged read gives, in the same places */
    {
        uint64_t dims2[2] = {2 * NR, DC}, st2[2] = {NR + r0, 0};
        colldiag_layout *l2;
        colldiag_sel *fs2;
        colldiag_layout_chunked(2, dims2, cd, sizeof(double), 0, &l2);
        colldiag_sel_create(2, dims2, &fs2);
        colldiag_sel_select_hyperslab(fs2, COLLDIAG_SELECT_SET, st2, NULL, cn, NULL);
        memset(mem2, 0xEE, mlen * sizeof *mem2);
        CHECK(colldiag_read(f, l2, fs2, ms, mem2, x) == 0, "read past the end: %s", colldiag_xfer_errmsg(x));
        uint64_t nz = 0, gaps = 0;
        for (uint64_t e = 0; e < mlen; e++) {
            unsigned char want[sizeof(double)];
            memcpy(want, &mem[e], sizeof want); /* 0xEE where nothing was selected, an element's place else */
            const int sel = want[0] != 0xEE || want[1] != 0xEE || want[7] != 0xEE;
            if (sel) nz += mem2[e] != 0.0;
            else gaps += memcmp(&mem2[e], &mem[e], sizeof(double)) != 0;
        }
        CHECK(nz == 0 && gaps == 0, "read past the end: %llu elements not zero, %llu gap elements overwritten", (unsigned long long)nz,
              (unsigned long long)gaps);
        colldiag_sel_free(fs2);
        colldiag_layout_free(l2);
    }
    free(mem2);
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) { /* the file: row-major rows, chunk after chunk (whole rows), every element its value */
        FILE *fp = fopen(path, "rb");
        double v;
        uint64_t wrong = 0, got = 0;
        for (uint64_t e = 0; fp && e < NR * DC && fread(&v, sizeof v, 1, fp) == 1; e++, got++) wrong += v != dval(c, e / DC, e % DC);
        if (fp) fclose(fp);
        CHECK(got == NR * DC && wrong == 0, "the file: %llu of %llu elements there, %llu wrong", (unsigned long long)got,
              (unsigned long long)(NR * DC), (unsigned long long)wrong);
        unlink(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    colldiag_sel_free(fs);
    if (ms) colldiag_sel_free(ms);
    colldiag_layout_free(l);
    free(mem);
    free(back);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* AUTO's model is what this program checks (tests/test_auto.c checks its measurements): the
       measured choice of a pattern's later calls follows the machine's timings */
    if (!getenv("COLLDIAG_AUTO_MODE")) setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    char path[512];
    snprintf(path, sizeof path, "%s/colldiag_test_memory_%d.bin", argc > 1 ? argv[1] : "/tmp", 0);
    if (me == 0) snprintf(path, sizeof path, "%s/colldiag_test_memory_%d.bin", argc > 1 ? argv[1] : "/tmp", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    const int opts[4] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO,
                         COLLDIAG_MPIO_CHUNK_AUTO};
    const size_t bufs[3] = {65536, 4096, 1001}; /* two rounds, a page, not a multiple of the element size */
    /* quick (MPICH in CI, ~8 ms a collective oversubscribed): small buffers make hundreds of rounds;
       keep the largest buffer everywhere and a page-sized one for link, multi and AUTO on slabs */
    const int quick = argc > 2 && !strcmp(argv[2], "quick");
    for (int inter = 0; inter < 3; inter++)
        for (int o = 0; o < 4; o++)
            for (int b = 0; b < 3; b++)
                if (!quick || b == 0 || (b == 1 && !inter && opts[o] != COLLDIAG_MPIO_CHUNK_AGGREGATE_IO))
                    one(path, opts[o], bufs[b], b == 2, inter);
    /* multi-dataset calls; quick: link and AUTO over mixed datasets, link and aggregation over small ones */
    for (int o = 0; o < 4; o++)
        for (int b = 0; b < 3; b++)
            if (!quick || (b == 0 && (o == 0 || o == 3))) multi_case(path, opts[o], bufs[b]);
    for (int o = 0; o < 4; o++)
        if (!quick || o == 0 || o == 2) multi_small(path, opts[o]);
    for (int c = 0; c < 5; c++) direct_case(path, c);
    int rc = test_summary("test_memory");
    MPI_Finalize();
    return rc;
}
