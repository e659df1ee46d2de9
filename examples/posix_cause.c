/* posix_cause — the POSIX driver is never collective: asking for collective I/O on it gives the cause
 * SET_MPIPOSIX on every rank, and the data is still written (independently, with pwrite).
 *
 *   mpirun -n 3 ./posix_cause [file]
 */
#include "colldiag.h"

#include <stdlib.h>

static void check(int rc, const char *what)
{
    if (rc) {
        fprintf(stderr, "%s failed: %s\n", what, colldiag_last_errmsg());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "posix_cause.bin";
    const uint64_t dims[2] = {(uint64_t)size * 4, 12};
    colldiag_file *f;
    check(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_POSIX, &f), "open");
    colldiag_layout *l;
    check(colldiag_layout_contiguous(2, dims, sizeof(int), 0, &l), "layout");
    colldiag_sel *s;
    check(colldiag_sel_create(2, dims, &s), "sel");
    uint64_t start[2] = {(uint64_t)rank * 4, 0}, count[2] = {4, 12};
    check(colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, start, NULL, count, NULL), "hyperslab");
    int buf[48];
    for (int i = 0; i < 48; i++) buf[i] = rank * 48 + i;
    colldiag_xfer *x;
    check(colldiag_xfer_create(&x), "xfer");
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    check(colldiag_write(f, l, s, NULL, buf, x), "write");
    uint32_t lc, gc;
    colldiag_get_mpio_no_collective_cause(x, &lc, &gc);
    char lw[256], gw[256];
    colldiag_cause_string(lc, lw, sizeof lw);
    colldiag_cause_string(gc, gw, sizeof gw);
    for (int r = 0; r < size; r++) {
        if (r == rank) printf("rank %d: local cause 0x%x (%s), global cause 0x%x (%s)\n", rank, lc, lw, gc, gw);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* the data is there all the same: read it back */
    int back[48] = {0};
    check(colldiag_read(f, l, s, NULL, back, x), "read");
    int ok = 1, all_ok;
    for (int i = 0; i < 48; i++) ok &= back[i] == buf[i];
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("=> no collective I/O on the POSIX driver, yet every rank's %d values were written and read back %s\n",
                          48, all_ok ? "correctly" : "WRONG");
    colldiag_xfer_free(x);
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    check(colldiag_file_close(f), "close");
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
