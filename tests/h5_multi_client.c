/* A plain HDF5 1.14 program (no colldiag) calling the raw-data entry points HDF5 1.14 added beside
 * H5Dwrite/H5Dread: H5Dwrite_multi over a chunked and a contiguous dataset (/a, /b), then over two
 * chunked ones (/a again, /d), H5Dread_multi over all three, and H5Dwrite_async / H5Dread_async (/c)
 * with an event set, and at the end without one (H5ES_NONE); then more H5Dwrite_multi calls of the same values for what HDF5 decides: /b
 * alone, /a + /d independent, /a + /b and /a + /d with selection I/O off (default and forced
 * multi-chunk). Each rank writes its band of rows, reads every value back and checks it against the
 * value it computes itself; exit 1 on any difference. With OWN.jsonl, each rank appends there, after
 * every multi-dataset call, HDF5's own answer from the DXPL (one line per call and rank: "call", "rank",
 * "op", "datasets", "chunk_opt", "io_mode", "local_cause", "global_cause", HDF5's numbers), which
 * tests/test_multi_entry.sh compares with the preload's explanation. Built only against HDF5 1.14+.
 *   mpirun -n P h5_multi_client FILE.h5 [OWN.jsonl] */
#include <hdf5.h>
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !H5_VERSION_GE(1, 14, 0)
int main(void) { fprintf(stderr, "h5_multi_client needs HDF5 1.14 or later\n"); return 2; }
#else
enum { ROWS = 4, COLS = 16 };
static int value(int d, int row, int col) { return d * 100000 + row * 100 + col; }

static const char *own; /* OWN.jsonl, or NULL */
static int me, ncall;

/* HDF5's answer for the multi-dataset call just made with dxpl, one line (one write: O_APPEND) */
static void record(const char *op, const char *datasets, hid_t dxpl)
{
    ncall++;
    if (!own) return;
    H5D_mpio_actual_chunk_opt_mode_t co = H5D_MPIO_NO_CHUNK_OPTIMIZATION;
    H5D_mpio_actual_io_mode_t io = H5D_MPIO_NO_COLLECTIVE;
    uint32_t l = 0, g = 0;
    H5Pget_mpio_actual_chunk_opt_mode(dxpl, &co);
    H5Pget_mpio_actual_io_mode(dxpl, &io);
    H5Pget_mpio_no_collective_cause(dxpl, &l, &g);
    char line[256];
    const int n = snprintf(line, sizeof line,
                           "{\"call\":%d,\"rank\":%d,\"op\":\"%s\",\"datasets\":\"%s\",\"chunk_opt\":%d,\"io_mode\":%d,\"local_cause\":%u,\"global_cause\":%u}\n",
                           ncall, me, op, datasets, (int)co, (int)io, l, g);
    const int fd = open(own, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) != n) perror("h5_multi_client: OWN.jsonl");
        close(fd);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, bad = 0;
    own = argc > 2 ? argv[2] : NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = H5Fcreate(argc > 1 ? argv[1] : "multi.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    const hsize_t dims[2] = {(hsize_t)ROWS * (hsize_t)P, COLS}, cdims[2] = {ROWS, COLS / 2}, st[2] = {(hsize_t)me * ROWS, 0}, ct[2] = {ROWS, COLS};
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, cdims);
    hid_t ds[4] = {H5Dcreate2(f, "a", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                   H5Dcreate2(f, "b", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dcreate2(f, "c", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                   H5Dcreate2(f, "d", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT)};
    H5Sselect_hyperslab(sp, H5S_SELECT_SET, st, NULL, ct, NULL);
    hid_t ms = H5Screate_simple(2, ct, NULL), x = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
    int w[4][ROWS * COLS], r[4][ROWS * COLS];
    for (int d = 0; d < 4; d++)
        for (int i = 0; i < ROWS * COLS; i++) w[d][i] = value(d, me * ROWS + i / COLS, i % COLS), r[d][i] = -1;
    hid_t types[3] = {H5T_NATIVE_INT, H5T_NATIVE_INT, H5T_NATIVE_INT}, mss[3] = {ms, ms, ms}, fss[3] = {sp, sp, sp};
    hid_t ad[2] = {ds[0], ds[3]}, abd[3] = {ds[0], ds[1], ds[3]};
    const void *wb[2] = {w[0], w[1]}, *wd[2] = {w[0], w[3]};
    void *rb[3] = {r[0], r[1], r[3]};
    bad |= H5Dwrite_multi(2, ds, types, mss, fss, x, wb) < 0;
    record("H5Dwrite_multi", "/a /b", x);
    bad |= H5Dwrite_multi(2, ad, types, mss, fss, x, wd) < 0;
    record("H5Dwrite_multi", "/a /d", x);
    hid_t es = H5EScreate();
    size_t pending = 0;
    hbool_t failed = 0;
    bad |= H5Dwrite_async(ds[2], H5T_NATIVE_INT, ms, sp, x, w[2], es) < 0;
    bad |= H5ESwait(es, H5ES_WAIT_FOREVER, &pending, &failed) < 0 || failed;
    bad |= H5Dread_multi(3, abd, types, mss, fss, x, rb) < 0;
    record("H5Dread_multi", "/a /b /d", x);
    /* the same values again, for HDF5's decisions: one contiguous dataset; an independent call; no
       selection I/O (H5D__piece_io's multi-dataset path), by default and forced multi-chunk */
    hid_t xi = H5Pcreate(H5P_DATASET_XFER), xs = H5Pcreate(H5P_DATASET_XFER), xm = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xi, H5FD_MPIO_INDEPENDENT);
    H5Pset_dxpl_mpio(xs, H5FD_MPIO_COLLECTIVE);
    H5Pset_selection_io(xs, H5D_SELECTION_IO_MODE_OFF);
    H5Pset_dxpl_mpio(xm, H5FD_MPIO_COLLECTIVE);
    H5Pset_selection_io(xm, H5D_SELECTION_IO_MODE_OFF);
    H5Pset_dxpl_mpio_chunk_opt(xm, H5FD_MPIO_CHUNK_MULTI_IO);
    const void *wbb[1] = {w[1]};
    bad |= H5Dwrite_multi(1, &ds[1], types, mss, fss, x, wbb) < 0;
    record("H5Dwrite_multi", "/b", x);
    bad |= H5Dwrite_multi(2, ad, types, mss, fss, xi, wd) < 0;
    record("H5Dwrite_multi", "/a /d", xi);
    bad |= H5Dwrite_multi(2, ds, types, mss, fss, xs, wb) < 0;
    record("H5Dwrite_multi", "/a /b", xs);
    bad |= H5Dwrite_multi(2, ad, types, mss, fss, xm, wd) < 0;
    record("H5Dwrite_multi", "/a /d", xm);
    H5Pclose(xi);
    H5Pclose(xs);
    H5Pclose(xm);
    bad |= H5Dread_async(ds[2], H5T_NATIVE_INT, ms, sp, x, r[2], es) < 0;
    bad |= H5ESwait(es, H5ES_WAIT_FOREVER, &pending, &failed) < 0 || failed;
    H5ESclose(es);
    /* without an event set (H5ES_NONE, as h5bench's SYNC mode) HDF5 runs them as H5Dwrite / H5Dread */
    static int rs[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++) rs[i] = -1;
    bad |= H5Dwrite_async(ds[2], H5T_NATIVE_INT, ms, sp, x, w[2], H5ES_NONE) < 0;
    bad |= H5Dread_async(ds[2], H5T_NATIVE_INT, ms, sp, x, rs, H5ES_NONE) < 0;
    int wrong = 0;
    for (int i = 0; i < ROWS * COLS; i++) wrong += rs[i] != w[2][i];
    for (int d = 0; d < 4; d++)
        for (int i = 0; i < ROWS * COLS; i++) wrong += r[d][i] != w[d][i];
    if (bad || wrong) printf("h5_multi_client rank %d: %d calls failed, %d values wrong\n", me, bad, wrong);
    for (int d = 0; d < 4; d++) H5Dclose(ds[d]);
    H5Pclose(x);
    H5Pclose(dcpl);
    H5Sclose(ms);
    H5Sclose(sp);
    H5Fclose(f);
    H5Pclose(fapl);
    int any = bad || wrong, all = 0;
    MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("h5_multi_client: %s\n", all ? "FAILED" : "every value read back equal");
    MPI_Finalize();
    return all != 0;
}
#endif
