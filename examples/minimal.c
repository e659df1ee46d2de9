/* minimal — the README's example: every rank writes a band of 64 rows of a chunked 2-D array of doubles,
 * collectively, then prints whether the call was collective and colldiag's report.
 *   mpirun -n 3 ./minimal [file]
 * (tests/check.sh checks that the lines the README shows are this program's, in order.) */
#include "colldiag.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    colldiag_file *f;
    colldiag_file_open(MPI_COMM_WORLD, argc > 1 ? argv[1] : "minimal.bin", MPI_MODE_CREATE | MPI_MODE_RDWR,
                       MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    uint64_t dims[2] = {64 * (uint64_t)nprocs, 100}, chunk[2] = {16, 25};
    colldiag_layout *l;
    colldiag_layout_chunked(2, dims, chunk, sizeof(double), 0, &l);   /* chunks back to back from offset 0 */
    colldiag_sel *s;
    colldiag_sel_create(2, dims, &s);                                 /* starts as ALL, like an HDF5 dataspace */
    uint64_t start[2] = {64 * (uint64_t)rank, 0}, count[2] = {64, 100};
    colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, start, NULL, count, NULL);
    double *buf = malloc(64 * 100 * sizeof *buf);
    for (int i = 0; i < 64 * 100; i++) buf[i] = rank * 1e6 + i;
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    int rc = colldiag_write(f, l, s, NULL /* packed buffer */, buf, x);   /* collective over the file's communicator */
    if (rc) fprintf(stderr, "rank %d: %s\n", rank, colldiag_xfer_errmsg(x)); /* the same failure on every rank */
    colldiag_actual_io_mode_t mode;
    uint32_t local, global;
    colldiag_get_mpio_actual_io_mode(x, &mode);
    colldiag_get_mpio_no_collective_cause(x, &local, &global);
    printf("rank %d: %s, causes 0x%x/0x%x\n", rank, colldiag_io_mode_name(mode), local, global);
    colldiag_report_print(f, x, stdout);                              /* collective; rank 0 prints */
    colldiag_xfer_free(x);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    colldiag_file_close(f);
    free(buf);
    MPI_Finalize();
    return rc != 0;
}
