/* A plain MPI program (no colldiag, no HDF5): after MPI_Init, does a 4 MiB block come from glibc's heap
 * or from a mapping of its own? Under the preload with COLLDIAG_ACCELERATE set, the heap keeps it
 * (tools/colldiag-preload.c, keep_heap_warm: mmap threshold 32 MiB); plain glibc maps it (threshold 128
 * KiB until a mapped block is freed); a malloc setting of the user's own is left as it is. Each rank
 * prints "rank R: heap" or "rank R: mapped" (tests/test_heap_kept.sh checks every rank).
 *   mpirun -n P heap_kept */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
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
