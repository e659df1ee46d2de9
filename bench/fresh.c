/* A kit read into memory never touched, against the same read into warm memory (src/memory.c):
 * each rank reads its MiB of a contiguous file with colldiag_read, CALLS times, into a fresh mapping
 * each call (fresh) or into one buffer it touched first (warm), and prints the median call's time (the
 * slowest rank's) and what colldiag said it did. bench/fresh.sh runs it with COLLDIAG_PREFAULT=0 and
 * unset (this process's probe decides), alternating, and gives the ratios (make bench-fresh).
 * Usage: mpirun -n P bench-fresh FILE KIB fresh|warm */
#define _GNU_SOURCE
#include "colldiag.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CALLS 21

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 4) {
        if (!me) fprintf(stderr, "usage: bench-fresh FILE KIB fresh|warm\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const size_t n = (size_t)atoi(argv[2]) << 10;
    const int warm = !strcmp(argv[3], "warm");
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    char *w = malloc(n);
    memset(w, me + 1, n);
    MPI_File_write_at_all(fh, (MPI_Offset)me * (MPI_Offset)n, w, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    colldiag_file *f = NULL;
    colldiag_layout *l = NULL;
    colldiag_xfer *x = NULL;
    colldiag_sel *fs = NULL;
    const uint64_t dims[1] = {(uint64_t)P * n}, st[1] = {(uint64_t)me * n}, ct[1] = {n};
    if (colldiag_file_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f) || colldiag_layout_contiguous(1, dims, 1, 0, &l) ||
        colldiag_xfer_create(&x) || colldiag_sel_create(1, dims, &fs) || colldiag_sel_select_hyperslab(fs, COLLDIAG_SELECT_SET, st, NULL, ct, NULL))
        MPI_Abort(MPI_COMM_WORLD, 3);
    colldiag_read(f, l, fs, NULL, w, x); /* the file's pages cached, the file's first call made: neither is timed */
    double t[CALLS];
    uint64_t pop = 0, bad = 0;
    for (int i = 0; i < CALLS; i++) {
        char *b = warm ? w : mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 4);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        colldiag_read(f, l, fs, NULL, b, x);
        const double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        uint64_t got = 0;
        colldiag_get_prefault(x, &got, NULL);
        pop += got;
        bad += b[0] != me + 1 || b[n - 1] != me + 1;
        if (!warm) munmap(b, n);
    }
    const char *why = NULL;
    colldiag_get_prefault(x, NULL, &why);
    qsort(t, CALLS, sizeof *t, cmp);
    uint64_t all[2] = {pop, bad}, sum[2];
    MPI_Reduce(all, sum, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!me)
        printf("%s %zu KiB median %.4f ms, populated %.1f MiB over %d calls x %d ranks, %llu wrong; %s\n", warm ? "warm" : "fresh", n >> 10, t[CALLS / 2] * 1e3,
               sum[0] / 1048576.0, CALLS, P, (unsigned long long)sum[1], why && *why ? why : "(nothing fresh seen)");
    colldiag_sel_free(fs);
    colldiag_xfer_free(x);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    free(w);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!me) remove(argv[1]);
    MPI_Finalize();
    return 0;
}
