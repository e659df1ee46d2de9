/* A plain MPI program (no colldiag, no HDF5): after MPI_Init, does a 4 MiB block come from glibc's heap
 * or from a mapping of its own? Under the preload with COLLDIAG_ACCELERATE set, the heap keeps it
 * (tools/colldiag-preload.c, keep_heap_warm: mmap threshold 32 MiB); plain glibc maps it (threshold 128
 * KiB until a mapped block is freed); a malloc setting of the user's own is left as it is. Each rank
 * prints "rank R: heap" or "rank R: mapped" (tests/test_heap_kept.sh checks every rank).
 * First, how many page faults does writing a new 3 MiB block take (getrusage's minor faults around its
 * malloc and a write to each page)? Fresh memory faults each 4 KiB page in (768); under the preload with
 * COLLDIAG_ACCELERATE the heap's top was faulted in at MPI_Init (warm_heap_top), so almost none. Each
 * rank prints "rank R: top B" (the heap's free top, mallinfo2's keepcost) and "rank R: faults N".
 *   mpirun -n P heap_kept */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    printf("rank %d: top %zu\n", me, mallinfo2().keepcost);
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    const size_t m = (size_t)3 << 20;
    volatile char *q = malloc(m); /* volatile: a memset before free is a dead store the compiler drops */
    for (size_t i = 0; q && i < m; i += 4096) q[i] = 1;
    getrusage(RUSAGE_SELF, &r1);
    if (!q) {
        fprintf(stderr, "heap_kept: no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("rank %d: faults %ld\n", me, r1.ru_minflt - r0.ru_minflt);
    free((void *)q);
    const size_t n = (size_t)4 << 20;
    const struct mallinfo2 before = mallinfo2();
    char *p = malloc(n);
    const struct mallinfo2 after = mallinfo2();
    if (!p) {
        fprintf(stderr, "heap_kept: no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 1, n);
    printf("rank %d: %s\n", me, after.hblks > before.hblks ? "mapped" : "heap");
    fflush(stdout);
    free(p);
    MPI_Finalize();
    return 0;
}
