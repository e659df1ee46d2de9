/* heap — what a fresh page costs, and how a process's earlier calls decide whether MPI-IO's collective
 * buffers are fresh (no HDF5, no colldiag in it: the machine and the MPI library alone).
 *
 *   1. A fresh 4 KiB page (mmap, first touch) against touching it again, on this rank.
 *   2. Six iterations of: open, one collective write of MIB a rank (what parallel HDF5's H5Dcreate
 *      does when it fills a chunked dataset), then the same bytes again as 1 MiB writes, collective
 *      ("c", each with its own view, as HDF5 makes them) or independent ("i", as colldiag's
 *      all-independent writes), close.
 *      The first write's time is printed per iteration. Where glibc's heap kept MPI-IO's buffers from
 *      the last iteration, it costs what the bytes cost; where they come back as fresh pages, it costs
 *      their faults on top (on a VM, 14 us a page: ~100 ms for 24 MiB on 3 ranks here).
 *
 *   mpirun -n 3 build/openmpi/heap DIR [MIB] [c|i|ci]      (make bench-heap; ci alternates)
 * Why it is here: the accelerated writes of the field's patterns once ran at 0.77x HDF5's rate for this
 * reason alone (docs/benchmarks.md, "What cost ~10 ms"). */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const char *dir = argc > 1 ? argv[1] : "/tmp", *mode = argc > 3 ? argv[3] : "ci";
    const size_t MB = (size_t)1 << 20, per = argc > 2 && atoi(argv[2]) > 0 ? (size_t)atoi(argv[2]) : 8;
    if (!*mode || strspn(mode, "ci") != strlen(mode)) mode = "ci";
    /* 1. fresh pages */
    const size_t n = 32 * MB;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 1);
    double t0 = now();
    for (size_t i = 0; i < n; i += 4096) p[i] = 1;
    double t1 = now();
    for (size_t i = 0; i < n; i += 4096) p[i] = 2;
    double t2 = now();
    munmap(p, n);
    if (me == 0)
        printf("a fresh 4 KiB page: %.2f us; the same page touched again: %.3f us (rank 0, 32 MiB)\n", (t1 - t0) / (double)(n / 4096) * 1e6,
               (t2 - t1) / (double)(n / 4096) * 1e6);
    /* 2. the same collective write after collective or independent writes */
    char path[4096];
    snprintf(path, sizeof path, "%s/colldiag_heap_%d.dat", dir, (int)getpid());
    int len = (int)strlen(path) + 1;
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(path, len, MPI_CHAR, 0, MPI_COMM_WORLD);
    char *big = calloc(per, MB), *buf = malloc(MB);
    if (!big || !buf) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int it = 0; it < 6; it++) {
        const int ind = mode[it % strlen(mode)] == 'i';
        MPI_File fh;
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        MPI_File_set_size(fh, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        double a = MPI_Wtime();
        MPI_File_write_at_all(fh, (MPI_Offset)(me * per * MB), big, (int)(per * MB), MPI_BYTE, MPI_STATUS_IGNORE);
        double b = MPI_Wtime(), w = b - a, wmax = 0;
        for (size_t i = 0; i < per; i++) {
            const MPI_Offset at = (MPI_Offset)(me * per * MB + i * MB);
            memset(buf, (int)i + 1, MB);
            if (ind) MPI_File_write_at(fh, at, buf, (int)MB, MPI_BYTE, MPI_STATUS_IGNORE);
            else { /* as HDF5 makes each collective call: a view at the data, the call, the view reset */
                MPI_File_set_view(fh, at, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
                MPI_File_write_at_all(fh, 0, buf, (int)MB, MPI_BYTE, MPI_STATUS_IGNORE);
                MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
            }
        }
        MPI_File_close(&fh);
        MPI_Reduce(&w, &wmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("iteration %d: the %zu MiB-a-rank collective write took %.1f ms (the iteration before wrote 1 MiB %s calls)\n", it, per, wmax * 1e3,
                   it == 0 ? "no" : mode[(it - 1) % strlen(mode)] == 'i' ? "independent" : "collective");
    }
    if (me == 0) unlink(path);
    free(big);
    free(buf);
    MPI_Finalize();
    return 0;
}
