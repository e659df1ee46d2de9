/* hdf5_interop — colldiag moving the raw data of a real HDF5 file, next to HDF5 doing the same.
 *
 * HDF5 creates the file and two identical chunked datasets; colldiag writes the first through the
 * file's own MPI_File (H5Fget_vfd_handle), HDF5 writes the second with H5Dwrite and the same transfer
 * settings; both print their answers (chunk optimization, I/O mode, causes); then HDF5 reads both
 * datasets back with H5Dread and checks every value. Run with 3 ranks:
 *
 *   mpirun -n 3 ./hdf5_interop [file.h5]      then:   h5dump -d /colldiag file.h5
 *
 * The safe sequence (see docs/hdf5.md): create datasets with HDF5 (parallel HDF5 allocates all chunks at
 * creation) -> H5Fflush -> colldiag_h5_layout -> colldiag I/O on the wrapped handle (or on a separate
 * colldiag_file_open of the same path) -> colldiag_file_close -> H5Fflush/H5Fclose before HDF5 reads.
 */
#include "colldiag.h"

#include <stdlib.h>
#include <string.h>

static void check(int bad, const char *what)
{
    if (bad) {
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
    const char *path = argc > 1 ? argv[1] : "hdf5_interop.h5";
    const hsize_t dims[2] = {(hsize_t)size * 6, 8}, chunk[2] = {4, 4};

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t dc = H5Dcreate2(file, "colldiag", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t dh = H5Dcreate2(file, "hdf5", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    check(file < 0 || dc < 0 || dh < 0, "creating the HDF5 file");
    H5Fflush(file, H5F_SCOPE_GLOBAL);

    /* each rank a band of 6 rows: rows straddle chunk boundaries, so some chunks have 2 ranks */
    hsize_t start[2] = {(hsize_t)rank * 6, 0}, count[2] = {6, 8};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    int *buf = malloc(48 * sizeof *buf);
    for (int i = 0; i < 48; i++) buf[i] = rank * 48 + i;
    hsize_t n48 = 48;
    hid_t mspace = H5Screate_simple(1, &n48, NULL);

    /* colldiag through the bridge */
    colldiag_layout *l;
    colldiag_sel *s;
    check(colldiag_h5_layout(dc, &l), "colldiag_h5_layout");
    check(colldiag_h5_sel(space, &s), "colldiag_h5_sel");
    void *vfd = NULL;
    H5Fget_vfd_handle(file, fapl, &vfd);
    colldiag_file *f;
    check(colldiag_file_wrap(MPI_COMM_WORLD, *(MPI_File *)vfd, &f), "colldiag_file_wrap");
    colldiag_xfer *x;
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_set_dxpl_mpio_chunk_opt(x, COLLDIAG_MPIO_CHUNK_MULTI_IO);
    /* explain the HDF5 this program runs with: 1.14 sends the call through selection I/O (link-chunk) */
    unsigned maj = 1, min = 10, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    if (maj > 1 || min >= 14) colldiag_set_hdf5_rules(x, COLLDIAG_HDF5_RULES_1_14);
    check(colldiag_write(f, l, s, NULL, buf, x), "colldiag_write");

    /* HDF5 with the same settings */
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_MULTI_IO);
    check(H5Dwrite(dh, H5T_NATIVE_INT, mspace, space, dxpl, buf) < 0, "H5Dwrite");
    H5D_mpio_actual_chunk_opt_mode_t hco;
    H5D_mpio_actual_io_mode_t hio;
    uint32_t hl, hg;
    H5Pget_mpio_actual_chunk_opt_mode(dxpl, &hco);
    H5Pget_mpio_actual_io_mode(dxpl, &hio);
    H5Pget_mpio_no_collective_cause(dxpl, &hl, &hg);
    colldiag_actual_chunk_opt_mode_t cco;
    colldiag_actual_io_mode_t cio;
    uint32_t cl, cg;
    colldiag_get_mpio_actual_chunk_opt_mode(x, &cco);
    colldiag_get_mpio_actual_io_mode(x, &cio);
    colldiag_get_mpio_no_collective_cause(x, &cl, &cg);
    int same = (int)hco == (int)cco && (int)hio == (int)cio && hl == cl && hg == cg, all_same;
    char line[300], lines[64][300];
    snprintf(line, sizeof line, "rank %d  colldiag: %-12s %-18s 0x%x/0x%x   HDF5: %-12s %-18s 0x%x/0x%x  %s\n", rank,
             colldiag_chunk_opt_name(cco), colldiag_io_mode_name(cio), cl, cg, colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)hco),
             colldiag_io_mode_name((colldiag_actual_io_mode_t)hio), hl, hg, same ? "same" : "DIFFERENT");
    if (size <= 64) MPI_Gather(line, 300, MPI_CHAR, lines, 300, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("multi-chunk write of %d row bands into 4x4 chunks of an HDF5 dataset:\n", size);
        for (int r = 0; r < size && r < 64; r++) fputs(lines[r], stdout);
    }
    colldiag_report_print(f, x, stdout);
    colldiag_xfer_free(x);
    check(colldiag_file_close(f), "colldiag_file_close"); /* the MPI_File stays HDF5's */
    colldiag_sel_free(s);
    colldiag_layout_free(l);
    H5Pclose(dxpl);
    H5Dclose(dc);
    H5Dclose(dh);
    H5Fclose(file); /* everything on disk before HDF5 reads it back */

    /* HDF5 reads both datasets: every value must be what the ranks wrote */
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    int ok = 1, all_ok;
    const char *names[2] = {"colldiag", "hdf5"};
    for (int k = 0; k < 2; k++) {
        hid_t d = H5Dopen2(file, names[k], H5P_DEFAULT);
        int *back = calloc(48, sizeof *back);
        H5Dread(d, H5T_NATIVE_INT, mspace, space, H5P_DEFAULT, back);
        for (int i = 0; i < 48; i++) ok &= back[i] == buf[i];
        free(back);
        H5Dclose(d);
    }
    H5Fclose(file);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("=> HDF5 reads back %s values from the dataset colldiag wrote; colldiag and HDF5 report %s\n",
               all_ok ? "exactly the written" : "WRONG", all_same ? "the same modes and causes" : "DIFFERENT modes");
    H5Sclose(mspace);
    H5Sclose(space);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    free(buf);
    MPI_Finalize();
    return all_ok && all_same ? 0 : 1;
}
