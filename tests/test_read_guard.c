/* test_read_guard: colldiag's own collective reads return the file's bytes when ranks' selections
 * overlap, on every stack, including Open MPI 4.1.0-4.1.4's ompio, whose read data sieving returns
 * zeros for the bytes of one rank's request past the end of another's nested in it (Open MPI issue
 * #10546; plain MPI-IO: tests/mpi_read_overlap.c). There colldiag's read guard makes such a call's reads
 * independent; selections that do not meet, or are the same selection, stay collective.
 *
 *   mpirun -n P test_read_guard FILE [mixed]   (P >= 1; the defect shows from 3 ranks)
 *
 * mixed: Open MPI's rank 1 turns its read data sieving off before MPI_Init (as a rank started without
 * the others' variables does): the ranks' stacks differ, the guard must still decide alike (a rank
 * deciding alone would hang the others) and every byte be right.
 *
 * The file holds byte i = i % 251 + 1 (written with plain MPI-IO); every read is checked against that,
 * on every rank. Where the test itself finds the affected stack (the library's version string and the
 * environment, as an Open MPI user would), it also requires that overlapping reads went independent and
 * disjoint or identical ones collective; elsewhere that every read stayed collective. Exit 1 on any
 * failure (every rank agrees), 0 otherwise. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "colldiag.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FSIZE = 1 << 14 };
static int me, P, bad;

static unsigned char want(uint64_t i) { return (unsigned char)(i % 251 + 1); }

/* Open MPI 4.1.0 - 4.1.4 with ompio and its read data sieving on (the default) */
static int affected_stack(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0, a = 0, b = 0, c = 0;
    MPI_Get_library_version(v, &n);
    if (sscanf(v, "Open MPI v%d.%d.%d", &a, &b, &c) != 3 || a != 4 || b != 1 || c > 4) return 0;
    const char *io = getenv("OMPI_MCA_io"), *ds = getenv("OMPI_MCA_fbtl_posix_read_datasieving");
    if (io && strstr(io, "romio")) return 0;
    return !(ds && (!strcmp(ds, "0") || !strcmp(ds, "false")));
}

/* One collective read of 1-D selection [lo[k], lo[k] + n[k]) pieces (k < np) on this rank, checked
   byte by byte; expect_ind: 1 the read must have gone independent (where this rank read anything), 0
   collective, -1 either. */
static void check_read(colldiag_file *f, const colldiag_layout *l, const char *what, int np, const uint64_t *lo, const uint64_t *n,
                       int expect_ind, uint64_t stride, uint64_t count)
{
    const uint64_t dims = FSIZE;
    colldiag_sel *s = NULL;
    colldiag_xfer *x = NULL;
    colldiag_sel_create(1, &dims, &s);
    colldiag_sel_select_none(s);
    uint64_t tot = 0;
    if (stride) { /* one hyperslab: count blocks of n[0] from lo[0], stride apart */
        colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, &lo[0], &stride, &count, &n[0]);
        tot = count * n[0];
    } else
        for (int k = 0; k < np; k++) {
            colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_OR, &lo[k], NULL, &n[k], NULL);
            tot += n[k];
        }
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    unsigned char *buf = malloc(tot ? tot : 1);
    memset(buf, 0xa5, tot ? tot : 1);
    int rc = colldiag_read(f, l, s, NULL, buf, x);
    if (rc) {
        printf("rank %d: %s: colldiag_read: %s (%s)\n", me, what, colldiag_strerror(rc), colldiag_xfer_errmsg(x));
        bad++;
    } else {
        /* the selection's elements in ascending order: the pieces sorted, merged where they overlap */
        unsigned char *sel = calloc(FSIZE, 1);
        if (stride)
            for (uint64_t k = 0; k < count; k++) memset(sel + lo[0] + k * stride, 1, n[0]);
        else
            for (int k = 0; k < np; k++) memset(sel + lo[k], 1, n[k]);
        uint64_t j = 0, wrong = 0, first = 0;
        for (uint64_t i = 0; i < FSIZE; i++)
            if (sel[i]) {
                if (buf[j] != want(i) && !wrong++) first = i;
                j++;
            }
        if (wrong) {
            printf("rank %d: %s: %llu of %llu bytes read other than the file holds, from byte %llu on (0x%02x, the file 0x%02x); %s\n", me, what,
                   (unsigned long long)wrong, (unsigned long long)j, (unsigned long long)first, buf[0], want(first), colldiag_scheme_reason(x));
            bad++;
        }
        colldiag_counters c;
        colldiag_get_counters(x, &c);
        const int went_ind = c.calls_independent > 0 && c.calls_collective == 0;
        if (tot && expect_ind >= 0 && went_ind != expect_ind) {
            printf("rank %d: %s: the reads went %s (%llu collective, %llu independent calls), expected %s; %s\n", me, what,
                   went_ind ? "independent" : "collective", (unsigned long long)c.calls_collective, (unsigned long long)c.calls_independent,
                   expect_ind ? "independent" : "collective", colldiag_scheme_reason(x));
            bad++;
        }
        if (tot && went_ind && !strstr(colldiag_scheme_reason(x), "reads made independently")) {
            printf("rank %d: %s: independent reads the reason does not name: %s\n", me, what, colldiag_scheme_reason(x));
            bad++;
        }
        free(sel);
    }
    free(buf);
    colldiag_xfer_free(x);
    colldiag_sel_free(s);
}

int main(int argc, char **argv)
{
    const char *wr = getenv("OMPI_COMM_WORLD_RANK");
    if (argc > 2 && !strcmp(argv[2], "mixed") && wr && !strcmp(wr, "1")) setenv("OMPI_MCA_fbtl_posix_read_datasieving", "0", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2) {
        if (me == 0) fprintf(stderr, "usage: test_read_guard FILE\n");
        MPI_Finalize();
        return 2;
    }
    /* the file's bytes, plain MPI-IO */
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (me == 0) {
        unsigned char *b = malloc(FSIZE);
        for (int i = 0; i < FSIZE; i++) b[i] = want((uint64_t)i);
        MPI_File_write_at(fh, 0, b, FSIZE, MPI_BYTE, MPI_STATUS_IGNORE);
        free(b);
    }
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    colldiag_file *f = NULL;
    if (colldiag_file_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f)) {
        printf("rank %d: colldiag_file_open: %s\n", me, colldiag_last_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const uint64_t dims = FSIZE, cdim = 64;
    colldiag_layout *contig = NULL, *chunked = NULL;
    colldiag_layout_contiguous(1, &dims, 1, 0, &contig);
    colldiag_layout_chunked(1, &dims, &cdim, 1, 0, &chunked);
    /* the guard's stack: any rank's (the ranks' own facts can differ: mixed) */
    int aff = 0, mine = affected_stack();
    MPI_Allreduce(&mine, &aff, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    aff = aff && P > 1;
    for (int li = 0; li < 2; li++) {
        const colldiag_layout *l = li ? chunked : contig;
        char what[96];
        /* nested: rank 0 [0, 100), rank 1 [50, 60), the others nothing (the plain MPI-IO reproducer's) */
        {
            const uint64_t lo = me == 1 ? 50 : 0, n = me == 0 ? 100 : me == 1 ? 10 : 0;
            snprintf(what, sizeof what, "%s, nested requests", li ? "chunked" : "contiguous");
            check_read(f, l, what, n ? 1 : 0, &lo, &n, aff ? 1 : 0, 0, 0);
        }
        /* every rank a stretch overlapping its neighbour's, and a few bytes inside rank 0's */
        {
            const uint64_t lo[2] = {(uint64_t)me * 300, 0 + (uint64_t)me % 7 * 3}, n[2] = {400, 2};
            snprintf(what, sizeof what, "%s, overlapping stretches", li ? "chunked" : "contiguous");
            check_read(f, l, what, 2, lo, n, aff ? 1 : 0, 0, 0);
        }
        /* disjoint slabs, interleaved: rank r bytes [16 (r + P k), +16) for k < 8 (their boxes meet:
           independent where affected, which errs safe) */
        {
            uint64_t lo[8], n[8];
            for (int k = 0; k < 8; k++) { lo[k] = 16 * ((uint64_t)me + (uint64_t)P * k); n[k] = 16; }
            snprintf(what, sizeof what, "%s, interleaved", li ? "chunked" : "contiguous");
            check_read(f, l, what, 8, lo, n, -1, 0, 0);
        }
        /* cyclic blocks, one strided hyperslab a rank (rank r: 16 bytes at 16 r, 16 P apart): they never
           share a byte, which the guard sees exactly: collective everywhere */
        {
            const uint64_t lo = 16 * (uint64_t)me, n = 16;
            snprintf(what, sizeof what, "%s, cyclic blocks", li ? "chunked" : "contiguous");
            check_read(f, l, what, 1, &lo, &n, 0, 16 * (uint64_t)P, FSIZE / (16 * (uint64_t)P) - 1);
        }
        /* the same, shifted by 8 bytes on odd ranks: neighbours' blocks overlap by half */
        {
            const uint64_t lo = 16 * (uint64_t)me + (me % 2 ? 8 : 0), n = 16;
            snprintf(what, sizeof what, "%s, cyclic blocks overlapping", li ? "chunked" : "contiguous");
            check_read(f, l, what, 1, &lo, &n, aff && P > 1 ? 1 : 0, 16 * (uint64_t)P, FSIZE / (16 * (uint64_t)P) - 1);
        }
        /* disjoint slabs: collective everywhere */
        {
            const uint64_t lo = (uint64_t)me * (FSIZE / P), n = FSIZE / P;
            snprintf(what, sizeof what, "%s, disjoint slabs", li ? "chunked" : "contiguous");
            check_read(f, l, what, 1, &lo, &n, 0, 0, 0);
        }
        /* the same selection on every rank: collective everywhere (the defect spares it) */
        {
            const uint64_t lo[2] = {3, 900}, n[2] = {500, 77};
            snprintf(what, sizeof what, "%s, the same selection", li ? "chunked" : "contiguous");
            check_read(f, l, what, 2, lo, n, 0, 0, 0);
        }
    }
    colldiag_layout_free(contig);
    colldiag_layout_free(chunked);
    colldiag_file_close(f);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("test_read_guard: %d ranks, %s: %s\n", P, aff ? "Open MPI 4.1.0-4.1.4's ompio (the guard's stack)" : "a stack that reads overlaps right",
               all ? "FAILED" : "every byte the file's");
        MPI_File_delete(argv[1], MPI_INFO_NULL);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
