/* colldiag_read into memory never touched (src/memory.c): every value read against the pattern this
 * program wrote with plain MPI-IO, guard bytes around each destination, which pages are resident after
 * the read (mincore), and colldiag_get_prefault's bytes against the whole pages this program computes.
 * One process decides once whether to populate, so the run's expectation comes from the command line:
 *   on   the first read into each fresh one-run destination is populated (its whole pages' bytes)
 *   off  nothing is populated (COLLDIAG_PREFAULT=0, or the probe said no)
 *   auto the probe of this machine decides: the why string says which, and the bytes must agree with it
 * Cases, on every rank (each reads its own block of ROWS rows of a (ROWS x P) x COLS table of doubles):
 *   packed    no memory selection, the destination 200 bytes into a fresh mapping (not page aligned)
 *   again     the same buffer read again: resident, nothing populated
 *   remapped  a fresh mapping in its place (often at the same address): populated again
 *   smallrun  a 512 KiB run (under 1 MiB colldiag asks once a run): populated the first time only
 *   onerun    a hyperslab memory selection of whole rows inside a larger fresh extent: populated from
 *             its first row only; the rows before and after it stay untouched
 *   gapped    every other row of a fresh extent: never populated; the skipped rows stay untouched
 *   small     a read under 64 KiB: never populated (the query would cost what the faults do)
 * Usage: mpirun -n P test_prefault_kit DIR on|off|auto   (tests/check.sh) */
#define _GNU_SOURCE
#include "colldiag.h"
#include "testutil.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ROWS 128 /* a rank's block: 1 MiB, the size from which colldiag asks every call (src/memory.c) */
#define COLS 1024 /* 8 KiB a row: two whole pages */

static double value(uint64_t row, uint64_t col) { return (double)(row * 1000003u + col) + 0.25; }
static size_t pg;

/* resident pages of [a, a + n) that are whole pages (a, n page multiples) */
static size_t resident(const char *a, size_t n)
{
    size_t np = n / pg, k = 0;
    unsigned char *v = malloc(np ? np : 1);
    if (!v || mincore((void *)a, n, v) != 0) { free(v); return (size_t)-1; }
    for (size_t i = 0; i < np; i++) k += v[i] & 1;
    free(v);
    return k;
}

/* the bytes of [a, a + n)'s whole pages: what colldiag populates of a one-run destination */
static uint64_t whole_pages(uintptr_t a, size_t n)
{
    uintptr_t from = (a + pg - 1) & ~(uintptr_t)(pg - 1), to = (a + n) & ~(uintptr_t)(pg - 1);
    return to > from ? (uint64_t)(to - from) : 0;
}

static char *fresh(size_t n)
{
    char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    pg = (size_t)sysconf(_SC_PAGESIZE);
    if (argc < 3) {
        if (!me) fprintf(stderr, "usage: test_prefault_kit DIR on|off|auto\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[512];
    snprintf(path, sizeof path, "%s/colldiag_prefault_kit_%s.bin", argv[1], argv[2]);
    int expect = !strcmp(argv[2], "on") ? 1 : !strcmp(argv[2], "off") ? 0 : -1;

    /* the reference: this rank's rows written with plain MPI-IO */
    const size_t rowb = COLS * sizeof(double), blockb = ROWS * rowb;
    double *w = malloc(blockb);
    for (uint64_t r = 0; r < ROWS; r++)
        for (uint64_t c = 0; c < COLS; c++) w[r * COLS + c] = value((uint64_t)me * ROWS + r, c);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)me * (MPI_Offset)blockb, w, (int)blockb, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    free(w);

    colldiag_file *f = NULL;
    colldiag_layout *l = NULL;
    colldiag_xfer *x = NULL;
    colldiag_sel *fs = NULL;
    const uint64_t dims[2] = {(uint64_t)ROWS * (uint64_t)P, COLS}, start[2] = {(uint64_t)me * ROWS, 0}, count[2] = {ROWS, COLS};
    CHECK(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) == 0, "open");
    CHECK(colldiag_layout_contiguous(2, dims, sizeof(double), 0, &l) == 0, "layout");
    CHECK(colldiag_xfer_create(&x) == 0, "xfer");
    CHECK(colldiag_sel_create(2, dims, &fs) == 0 && colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, start, NULL, count, NULL) == 0, "fs");

    /* packed: the destination 200 bytes into page 1 of a fresh mapping, 16 guard bytes either side */
    snprintf(g_case, sizeof g_case, "packed");
    const size_t map1 = blockb + 3 * pg;
    char *m1 = fresh(map1);
    CHECK(m1 != NULL, "mmap");
    double *d1 = (double *)(m1 + pg + 200);
    memset((char *)d1 - 16, 0xA5, 16);
    memset((char *)d1 + blockb, 0x5A, 16);
    CHECK(resident((char *)(((uintptr_t)d1 + blockb) & ~(uintptr_t)(pg - 1)) - pg, pg) == 0, "the run's last whole page is fresh before the read");
    CHECK(colldiag_read(f, l, fs, NULL, d1, x) == 0, "colldiag_read: %s", colldiag_xfer_errmsg(x));
    uint64_t got = 99;
    const char *why = NULL;
    CHECK(colldiag_get_prefault(x, &got, &why) == 0 && why, "colldiag_get_prefault");
    const int said_on = why && (!strncmp(why, "prefaulted:", 11) || !strcmp(why, "COLLDIAG_PREFAULT=1"));
    if (expect < 0) expect = said_on;
    CHECK(why && said_on == expect, "the decision says \"%s\", the run expects %s", why ? why : "(null)", expect ? "on" : "off");
    const uint64_t want1 = expect ? whole_pages((uintptr_t)d1, blockb) : 0;
    CHECK(got == want1, "populated %llu bytes, want %llu", (unsigned long long)got, (unsigned long long)want1);
    uint64_t bad = 0;
    for (uint64_t r = 0; r < ROWS; r++)
        for (uint64_t c = 0; c < COLS; c++) bad += d1[r * COLS + c] != value((uint64_t)me * ROWS + r, c);
    CHECK(bad == 0, "%llu wrong values", (unsigned long long)bad);
    for (int i = 0; i < 16; i++) {
        CHECK(((unsigned char *)d1)[-1 - i] == 0xA5, "guard byte %d before the destination changed", i);
        CHECK(((unsigned char *)d1)[blockb + (size_t)i] == 0x5A, "guard byte %d after the destination changed", i);
    }
    CHECK(resident(m1 + map1 - pg, pg) == 0, "the page after the guard was touched");

    /* again: the same buffer, now resident */
    snprintf(g_case, sizeof g_case, "again");
    memset(d1, 0, blockb);
    CHECK(colldiag_read(f, l, fs, NULL, d1, x) == 0, "colldiag_read: %s", colldiag_xfer_errmsg(x));
    CHECK(colldiag_get_prefault(x, &got, NULL) == 0 && got == 0, "populated %llu bytes of resident memory", (unsigned long long)got);
    bad = 0;
    for (uint64_t r = 0; r < ROWS; r++)
        for (uint64_t c = 0; c < COLS; c++) bad += d1[r * COLS + c] != value((uint64_t)me * ROWS + r, c);
    CHECK(bad == 0, "%llu wrong values", (unsigned long long)bad);

    /* remapped: the mapping unmapped and a fresh one made (the kernel often gives the same address, as
       glibc's malloc of a large block does a time step after another): fresh again, populated again */
    snprintf(g_case, sizeof g_case, "remapped");
    munmap(m1, map1);
    m1 = fresh(map1);
    CHECK(m1 != NULL, "mmap");
    d1 = (double *)(m1 + pg + 200);
    CHECK(colldiag_read(f, l, fs, NULL, d1, x) == 0, "colldiag_read: %s", colldiag_xfer_errmsg(x));
    CHECK(colldiag_get_prefault(x, &got, NULL) == 0 && got == want1, "populated %llu bytes, want %llu", (unsigned long long)got,
          (unsigned long long)want1);
    bad = 0;
    for (uint64_t r = 0; r < ROWS; r++)
        for (uint64_t c = 0; c < COLS; c++) bad += d1[r * COLS + c] != value((uint64_t)me * ROWS + r, c);
    CHECK(bad == 0, "%llu wrong values", (unsigned long long)bad);

    /* smallrun: half the block, into a fresh mapping twice at the same place: a run under 1 MiB is
       looked at once (the second, fresh again, is not asked: the heap's blocks of that size stay resident) */
    snprintf(g_case, sizeof g_case, "smallrun");
    {
        colldiag_sel *fh2 = NULL;
        const uint64_t hcount[2] = {ROWS / 2, COLS};
        const size_t hb = blockb / 2;
        CHECK(colldiag_sel_create(2, dims, &fh2) == 0 && colldiag_sel_select_hyperslab(fh2, COLLDIAG_SELECT_SET, start, NULL, hcount, NULL) == 0, "fh2");
        for (int k = 0; k < 2; k++) {
            char *m5 = fresh(hb + pg);
            CHECK(m5 != NULL, "mmap");
            if (!m5) break;
            CHECK(colldiag_read(f, l, fh2, NULL, m5 + 64, x) == 0, "colldiag_read: %s", colldiag_xfer_errmsg(x));
            const uint64_t want5 = expect && k == 0 ? whole_pages((uintptr_t)m5 + 64, hb) : 0;
            uint64_t g5 = 99;
            CHECK(colldiag_get_prefault(x, &g5, NULL) == 0 && (k == 0 ? g5 == want5 : g5 == 0 || g5 == whole_pages((uintptr_t)m5 + 64, hb)),
                  "read %d populated %llu bytes, want %llu", k, (unsigned long long)g5, (unsigned long long)want5);
            const double *v5 = (const double *)(m5 + 64);
            bad = 0;
            for (uint64_t r = 0; r < ROWS / 2; r++)
                for (uint64_t c = 0; c < COLS; c++) bad += v5[r * COLS + c] != value((uint64_t)me * ROWS + r, c);
            CHECK(bad == 0, "%llu wrong values", (unsigned long long)bad);
            munmap(m5, hb + pg);
        }
        colldiag_sel_free(fh2);
    }

    /* onerun: rows 8 .. 8 + ROWS - 1 of a fresh (ROWS + 16)-row extent (page aligned: rows are whole pages) */
    snprintf(g_case, sizeof g_case, "onerun");
    const uint64_t mdims[2] = {ROWS + 16, COLS}, mstart[2] = {8, 0};
    char *m2 = fresh((ROWS + 16) * rowb);
    colldiag_sel *ms = NULL;
    CHECK(m2 && colldiag_sel_create(2, mdims, &ms) == 0 && colldiag_sel_select_hyperslab(ms, COLLDIAG_SELECT_SET, mstart, NULL, count, NULL) == 0, "ms");
    CHECK(colldiag_read(f, l, fs, ms, m2, x) == 0, "colldiag_read: %s", colldiag_xfer_errmsg(x));
    CHECK(colldiag_get_prefault(x, &got, NULL) == 0 && got == (expect ? blockb : 0), "populated %llu bytes, want %llu", (unsigned long long)got,
          (unsigned long long)(expect ? blockb : 0));
    const double *v2 = (const double *)m2;
    bad = 0;
    for (uint64_t r = 0; r < ROWS; r++)
        for (uint64_t c = 0; c < COLS; c++) bad += v2[(r + 8) * COLS + c] != value((uint64_t)me * ROWS + r, c);
    CHECK(bad == 0, "%llu wrong values", (unsigned long long)bad);
    CHECK(resident(m2, 8 * rowb) == 0 && resident(m2 + (8 + ROWS) * rowb, 8 * rowb) == 0, "rows outside the selection were touched");
    colldiag_sel_free(ms);
    ms = NULL;

    /* gapped: every other row of a fresh 2 x ROWS-row extent */
    snprintf(g_case, sizeof g_case, "gapped");
    const uint64_t gdims[2] = {2 * ROWS, COLS}, gstart[2] = {0, 0}, gstride[2] = {2, 1}, gcount[2] = {ROWS, 1}, gblock[2] = {1, COLS};
    char *m3 = fresh(2 * ROWS * rowb);
    CHECK(m3 && colldiag_sel_create(2, gdims, &ms) == 0 && colldiag_sel_select_hyperslab(ms, COLLDIAG_SELECT_SET, gstart, gstride, gcount, gblock) == 0, "ms");
    CHECK(colldiag_read(f, l, fs, ms, m3, x) == 0, "colldiag_read: %s", colldiag_xfer_errmsg(x));
    CHECK(colldiag_get_prefault(x, &got, NULL) == 0 && got == 0, "populated %llu bytes of a gapped selection", (unsigned long long)got);
    const double *v3 = (const double *)m3;
    bad = 0;
    size_t skipped_resident = 0;
    for (uint64_t r = 0; r < ROWS; r++) {
        for (uint64_t c = 0; c < COLS; c++) bad += v3[2 * r * COLS + c] != value((uint64_t)me * ROWS + r, c);
        skipped_resident += resident(m3 + (2 * r + 1) * rowb, rowb);
    }
    CHECK(bad == 0, "%llu wrong values", (unsigned long long)bad);
    CHECK(skipped_resident == 0, "%zu pages of skipped rows were touched", skipped_resident);
    colldiag_sel_free(ms);

    /* small: 4 rows (32 KiB) into fresh memory */
    snprintf(g_case, sizeof g_case, "small");
    const uint64_t scount[2] = {4, COLS};
    colldiag_sel *fs4 = NULL;
    char *m4 = fresh(4 * rowb + pg);
    CHECK(m4 && colldiag_sel_create(2, dims, &fs4) == 0 && colldiag_sel_select_hyperslab(fs4, COLLDIAG_SELECT_SET, start, NULL, scount, NULL) == 0, "fs4");
    CHECK(colldiag_read(f, l, fs4, NULL, m4, x) == 0, "colldiag_read: %s", colldiag_xfer_errmsg(x));
    CHECK(colldiag_get_prefault(x, &got, NULL) == 0 && got == 0, "populated %llu bytes of a 32 KiB read", (unsigned long long)got);
    bad = 0;
    for (uint64_t r = 0; r < 4; r++)
        for (uint64_t c = 0; c < COLS; c++) bad += ((const double *)m4)[r * COLS + c] != value((uint64_t)me * ROWS + r, c);
    CHECK(bad == 0, "%llu wrong values", (unsigned long long)bad);
    colldiag_sel_free(fs4);
    CHECK(colldiag_get_prefault(NULL, &got, NULL) != 0, "a NULL xfer accepted");

    if (me == 0 && why) printf("decision (rank 0): %s\n", why);
    colldiag_sel_free(fs);
    colldiag_xfer_free(x);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    munmap(m1, map1);
    if (m2) munmap(m2, (ROWS + 16) * rowb);
    if (m3) munmap(m3, 2 * ROWS * rowb);
    if (m4) munmap(m4, 4 * rowb + pg);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) remove(path);
    int rc = test_summary("test_prefault_kit");
    MPI_Finalize();
    return rc;
}
