/* mpi_valgrind_baseline — what valgrind reports for an MPI program that has no colldiag in it: MPI_Init,
 * one collective write of fully initialised bytes, MPI_Finalize. Every report it gets belongs to the MPI
 * stack itself; tests/valgrind.supp suppresses exactly those stacks and nothing else (make check-valgrind
 * runs this program first and requires it clean with the suppressions, and shows what it reports without).
 *
 *   mpirun -n 3 valgrind --suppressions=tests/valgrind.supp build/openmpi/mpi_valgrind_baseline FILE [--gap]
 *
 * --gap adds a write that Open MPI 4.1's ompio gets wrong (see below). valgrind reports it as uninitialised
 * bytes reaching pwrite; it is not suppressed (the same stack would hide colldiag's own bytes), so the
 * tests avoid the pattern instead: their files exist before a write leaves gaps in them.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *path = argc > 1 ? argv[1] : "mpi_valgrind_baseline.bin";
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == MPI_SUCCESS) {
        char buf[4096];
        memset(buf, 'a' + me, sizeof buf); /* every byte initialised */
        MPI_File_write_at_all(fh, (MPI_Offset)me * (MPI_Offset)sizeof buf, buf, (int)sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
        /* Open MPI 4.1's ompio: two small pieces with a gap between them, past the end of an empty file, in
           one collective write (the odd ranks write nothing, as a rank does whose selection is empty). The
           aggregator's data sieving (mca_fbtl_posix_pwritev) merges the pieces into a buffer of its own,
           cannot read the gap back from beyond the end of the file, and writes the gap's uninitialised bytes
           into the file (OMPI_MCA_fbtl_posix_write_datasieving=0 avoids it). colldiag's test_errors made
           exactly such a call when one rank failed, until its file was given its size first. */
        if (argc > 2 && !strcmp(argv[2], "--gap")) {
            MPI_File_set_size(fh, 0);
            MPI_File_write_at_all(fh, (MPI_Offset)me * 16, buf, me % 2 ? 0 : 8, MPI_BYTE, MPI_STATUS_IGNORE);
        }
        MPI_File_close(&fh);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) MPI_File_delete(path, MPI_INFO_NULL);
    MPI_Finalize();
    return 0;
}
