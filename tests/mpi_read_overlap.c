/* mpi_read_overlap: plain MPI-IO (no HDF5, no colldiag) showing Open MPI 4.1.0-4.1.4's ompio returning
 * bytes a file does not hold from a collective read whose ranks' requests overlap: rank 0 reads bytes
 * [0, 100) of a file that holds byte i = i % 251 + 1, rank 1 reads [50, 60), any other rank nothing, in
 * one MPI_File_read_at_all. ompio's read data sieving (fbtl posix) reads from the first request of a
 * group to the end of its last one, sorted by offset: [0, 100) then [50, 60), so [60, 100) is never
 * read and rank 0 gets zeros there (Open MPI issue #10546; fixed in 4.1.5 and 5.0.0 by "fbtl/posix: fix
 * length calculation for data sieving"). Two ranks do not show it (one aggregator reads each rank's
 * request apart); three do. ROMIO, MPICH and Open MPI 5.0.7 read it right; so does 4.1.4 with
 * OMPI_MCA_fbtl_posix_read_datasieving=0, what the colldiag preload sets under COLLDIAG_ACCELERATE.
 *
 *   mpirun -n 3 mpi_read_overlap FILE
 *
 * Prints one line (rank 0): "read-overlap: DEFECT (...)" or "read-overlap: right (...)"; exits 0 either way
 * (the defect is the stack's, reported: tests/test_defects.sh prints it beside HDF5's). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2) {
        if (me == 0) fprintf(stderr, "usage: mpi_read_overlap FILE\n");
        MPI_Finalize();
        return 2;
    }
    enum { FSIZE = 4096, N0 = 100, OFF1 = 50, N1 = 10 };
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        if (me == 0) fprintf(stderr, "mpi_read_overlap: cannot open %s\n", argv[1]);
        MPI_Finalize();
        return 1;
    }
    if (me == 0) {
        unsigned char b[FSIZE];
        for (int i = 0; i < FSIZE; i++) b[i] = (unsigned char)(i % 251 + 1);
        MPI_File_write_at(fh, 0, b, FSIZE, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    /* MPI-IO's consistency: the write is visible to every rank after sync, barrier, sync */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    const int n = me == 0 ? N0 : me == 1 ? N1 : 0, start = me == 1 ? OFF1 : 0;
    unsigned char m[N0];
    memset(m, 0xa5, sizeof m);
    MPI_File_read_at_all(fh, start, m, n, MPI_BYTE, MPI_STATUS_IGNORE);
    int wrong = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (m[i] != (unsigned char)((start + i) % 251 + 1)) {
            if (first < 0) first = start + i;
            wrong++;
        }
    int all = 0, f = 0, f0 = first < 0 ? FSIZE : first;
    MPI_Reduce(&wrong, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&f0, &f, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int ll = 0;
    MPI_Get_library_version(lib, &ll);
    char *nl = strchr(lib, '\n');
    if (nl) *nl = 0;
    if (me == 0)
        printf("read-overlap: %s (%d ranks, %s: %d of %d bytes read other than the file holds%s)\n", all ? "DEFECT" : "right", P, lib, all,
               N0 + (P > 1 ? N1 : 0), all ? ", from the end of rank 1's request on" : "");
    (void)f;
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) MPI_File_delete(argv[1], MPI_INFO_NULL);
    MPI_Finalize();
    return 0;
}
