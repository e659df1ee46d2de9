/* rfc_modes — the example of the HDF5 RFC "Allow a user to determine which type of I/O was performed".
 *
 * A 1-D dataset of three chunks (30 ints, chunks of 10). Rank 0 writes part of chunk 0, rank 1 parts of
 * chunks 0 and 1, rank 2 part of chunk 2. Collective, ratio 40 (threshold max(1, 3*40/100) = 1), so
 * chunk 0 (2 ranks) is collective and chunks 1 and 2 (1 rank each) are independent. Run with 3 ranks:
 *
 *   mpirun -n 3 ./rfc_modes [file]
 */
#include "colldiag.h"

#include <stdlib.h>
#include <string.h>

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
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "rfc_modes needs exactly 3 ranks (mpirun -n 3)\n");
        MPI_Finalize();
        return 1;
    }
    const char *path = argc > 1 ? argv[1] : "rfc_modes.bin";
    const uint64_t dims[1] = {30}, chunk[1] = {10};
    /* rank 0: [1,6)   rank 1: [6,14) spans chunks 0 and 1   rank 2: [22,28) */
    const uint64_t start[3] = {1, 6, 22}, count[3] = {5, 8, 6};

    colldiag_file *f;
    check(colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f), "open");
    colldiag_layout *l;
    check(colldiag_layout_chunked(1, dims, chunk, sizeof(int), 0, &l), "layout");
    colldiag_sel *s;
    check(colldiag_sel_create(1, dims, &s), "sel");
    check(colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, &start[rank], NULL, &count[rank], NULL), "hyperslab");
    int buf[8];
    for (uint64_t i = 0; i < count[rank]; i++) buf[i] = (int)(start[rank] + i);

    const colldiag_chunk_opt_t opts[2] = {COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO};
    const char *optname[2] = {"MULTI_IO", "COLL_CHUNK_ATONCE_IO"};
    for (int i = 0; i < 2; i++) {
        colldiag_xfer *x;
        check(colldiag_xfer_create(&x), "xfer");
        colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(x, opts[i]);
        colldiag_set_dxpl_mpio_chunk_opt_ratio(x, 40);
        check(colldiag_write(f, l, s, NULL, buf, x), "write");
        colldiag_actual_chunk_opt_mode_t co;
        colldiag_actual_io_mode_t io;
        uint32_t lc, gc;
        colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
        colldiag_get_mpio_actual_io_mode(x, &io);
        colldiag_get_mpio_no_collective_cause(x, &lc, &gc);
        char line[256];
        snprintf(line, sizeof line, "%-20s rank %d: chunk optimization %-17s I/O mode %-17s causes local 0x%x global 0x%x\n",
                 optname[i], rank, colldiag_chunk_opt_name(co), colldiag_io_mode_name(io), lc, gc);
        /* print in rank order */
        char all[3][256];
        MPI_Gather(line, 256, MPI_CHAR, all, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            if (i == 0) printf("RFC example: 3 chunks; rank 0 in chunk 0, rank 1 in chunks 0 and 1, rank 2 in chunk 2; ratio 40\n");
            for (int r = 0; r < 3; r++) fputs(all[r], stdout);
        }
        check(colldiag_report_print(f, x, stdout), "report");
        colldiag_xfer_free(x);
    }
    if (rank == 0)
        printf("=> rank 0 only touched the shared chunk 0 (collective), rank 1 touched chunk 0 (collective) and chunk 1 "
               "(independent): mixed, rank 2 only chunk 2 (independent).\n");
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    check(colldiag_file_close(f), "close");
    MPI_Finalize();
    return 0;
}
