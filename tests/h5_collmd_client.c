/* A plain parallel HDF5 program (no colldiag in it) in netCDF-4's way: a file whose metadata reads and
 * writes are collective (H5Pset_all_coll_metadata_ops), a chunked dataset written independently by
 * every rank (most with nothing to write), a flush, an independent read by rank 0 alone, then
 * collective metadata work (an attribute written and checked, the file closed) and the file opened
 * again to read every value back on every rank. HDF5 1.12+ reads a dataset's object header
 * collectively on such a file: a preload that asks HDF5 for it on rank 0 alone (explaining the read)
 * leaves rank 0 in a broadcast that the other ranks' next collective read answers, and the file's
 * metadata goes wrong or the job hangs. Exit 1 on any failed call or wrong value.
 *   mpirun -n P h5_collmd_client FILE.h5 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

static hid_t open_file(const char *path, int create)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5Pclose(fapl);
    return f;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const char *path = argc > 1 ? argv[1] : "collmd.h5";
    enum { N = 64 };
    int v[N], back[N];
    for (int i = 0; i < N; i++) v[i] = 1000 + 7 * i;
    hid_t f = open_file(path, 1);
    const hsize_t dims = N, chunk = 8;
    hid_t sp = H5Screate_simple(1, &dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t d = H5Dcreate2(f, "v", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    /* every rank calls, rank 0 writes everything, the others nothing (netCDF's count 0) */
    hid_t fs = H5Dget_space(d);
    if (me) H5Sselect_none(fs);
    const hsize_t mn = me ? 1 : N;
    hid_t ms = H5Screate_simple(1, &mn, NULL);
    if (me) H5Sselect_none(ms);
    bad |= H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, v) < 0;
    bad |= H5Fflush(f, H5F_SCOPE_GLOBAL) < 0;
    /* rank 0 alone reads (netCDF skips the call where the count is 0) */
    if (me == 0) {
        for (int i = 0; i < N; i++) back[i] = -1;
        bad |= H5Dread(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, back) < 0;
        for (int i = 0; i < N; i++) bad |= back[i] != v[i];
    }
    /* collective metadata reads on every rank, of headers the flush left clean (netCDF's nc_close asks
       H5Aexists of the root group and of its variables), then writes */
    bad |= H5Aexists(f, "_NCProperties") != 0;
    bad |= H5Aexists(d, "provenance") != 0;
    const int a = 42 + P;
    hid_t as = H5Screate(H5S_SCALAR), at = H5Acreate2(d, "provenance", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT);
    bad |= at < 0 || H5Awrite(at, H5T_NATIVE_INT, &a) < 0;
    if (at >= 0) H5Aclose(at);
    bad |= H5Aexists(d, "provenance") <= 0;
    H5Sclose(as);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Sclose(sp);
    H5Pclose(dcpl);
    bad |= H5Dclose(d) < 0;
    bad |= H5Fclose(f) < 0;
    /* every value and the attribute, on every rank, from the file opened again */
    f = open_file(path, 0);
    d = f >= 0 ? H5Dopen2(f, "v", H5P_DEFAULT) : -1;
    for (int i = 0; i < N; i++) back[i] = -1;
    hid_t x = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
    bad |= d < 0 || H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, x, back) < 0;
    for (int i = 0; i < N; i++) bad |= back[i] != v[i];
    int got = 0;
    at = d >= 0 ? H5Aopen(d, "provenance", H5P_DEFAULT) : -1;
    bad |= at < 0 || H5Aread(at, H5T_NATIVE_INT, &got) < 0 || got != a;
    if (at >= 0) H5Aclose(at);
    H5Pclose(x);
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0) printf("h5_collmd_client: %s\n", all ? "FAILED" : "every call succeeded, every value read back equal");
    MPI_Finalize();
    return all != 0;
}
