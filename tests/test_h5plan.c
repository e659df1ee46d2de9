/* colldiag_h5_plan's collective safety and its answers, with 3 ranks on a parallel HDF5 file:
 *  - a collective plan in which one rank (first, middle, last) passes a bad argument (a memory type, a NULL
 *    file_out, a direction) returns an error on every rank (ERR_ARG on that rank, ERR_PEER naming it
 *    elsewhere) instead of hanging the others;
 *  - an independent plan on one rank only communicates nothing (the other ranks are busy elsewhere);
 *  - a good collective plan, then the real H5Dwrite with the same arguments: colldiag's three answers
 *    equal HDF5's on every rank, for link (row blocks) and multi-chunk (bands sharing chunks).
 *   mpirun -n 3 test_h5plan FILE.h5 */
#include "colldiag.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

static hid_t dset_make(hid_t file)
{
    hsize_t dims[2] = {12, 12}, ch[2] = {4, 4};
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, ch);
    hid_t ds = H5Dcreate2(file, "d", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return ds;
}

static hid_t band(hid_t ds, int multi)
{
    hid_t s = H5Dget_space(ds);
    hsize_t st[2] = {(hsize_t)(4 * me), 0}, cn[2] = {4, 12};
    if (multi) { st[0] = 0; st[1] = (hsize_t)(2 + 3 * me); cn[0] = 12; cn[1] = 3; }
    H5Sselect_hyperslab(s, H5S_SELECT_SET, st, NULL, cn, NULL);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2 || P != 3) { if (!me) fprintf(stderr, "usage: mpirun -n 3 test_h5plan FILE.h5\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl), ds = dset_make(file);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);

    /* one rank with a bad memory type: every rank returns, the others name it */
    for (int bad = 0; bad < P; bad++) {
        snprintf(g_case, sizeof g_case, "bad mem_type on rank %d", bad);
        hid_t fs = band(ds, 0);
        colldiag_xfer *x;
        colldiag_file *f = NULL;
        colldiag_xfer_create(&x);
        int rc = colldiag_h5_plan(ds, me == bad ? H5I_INVALID_HID : H5T_NATIVE_INT, fs, fs, coll, COLLDIAG_TO_FILE, x, &f);
        if (me == bad) CHECK(rc == COLLDIAG_ERR_ARG, "rc %d (%s), expected ERR_ARG", rc, colldiag_xfer_errmsg(x));
        else {
            char want[32];
            snprintf(want, sizeof want, "rank %d", bad);
            CHECK(rc == COLLDIAG_ERR_PEER && strstr(colldiag_xfer_errmsg(x), want), "rc %d (%s), expected ERR_PEER naming %s", rc,
                  colldiag_xfer_errmsg(x), want);
        }
        colldiag_file_close(f);
        colldiag_xfer_free(x);
        H5Sclose(fs);
    }
    /* one rank with a NULL file_out, or a direction that is neither: the same, no hang */
    for (int what = 0; what < 2; what++)
        for (int bad = 0; bad < P; bad++) {
            snprintf(g_case, sizeof g_case, "%s on rank %d", what ? "invalid dir" : "NULL file_out", bad);
            hid_t fs = band(ds, 0);
            colldiag_xfer *x;
            colldiag_file *f = NULL;
            colldiag_xfer_create(&x);
            const int isbad = me == bad;
            int rc = colldiag_h5_plan(ds, H5T_NATIVE_INT, fs, fs, coll, what && isbad ? (colldiag_direction_t)7 : COLLDIAG_TO_FILE, x,
                                      !what && isbad ? NULL : &f);
            if (isbad) CHECK(rc == COLLDIAG_ERR_ARG && strstr(colldiag_xfer_errmsg(x), what ? "dir" : "file_out"), "rc %d (%s), expected ERR_ARG",
                             rc, colldiag_xfer_errmsg(x));
            else {
                char want[32];
                snprintf(want, sizeof want, "rank %d", bad);
                CHECK(rc == COLLDIAG_ERR_PEER && strstr(colldiag_xfer_errmsg(x), want), "rc %d (%s), expected ERR_PEER naming %s", rc,
                      colldiag_xfer_errmsg(x), want);
            }
            colldiag_file_close(f);
            colldiag_xfer_free(x);
            H5Sclose(fs);
        }
    /* colldiag_h5_plan_multi over d and a second dataset, one rank passing a memory type that differs
       from the second's (multi-dataset plans do not convert): every rank returns, that rank naming
       the dataset, the others naming that rank; then the same plan with every rank alike succeeds */
    {
        hsize_t dims[2] = {12, 12};
        hid_t sp = H5Screate_simple(2, dims, NULL);
        hid_t e2 = H5Dcreate2(file, "e", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT); /* contiguous */
        H5Sclose(sp);
        for (int bad = -1; bad < P; bad++) {
            snprintf(g_case, sizeof g_case, bad < 0 ? "multi plan, every rank alike" : "multi plan, other mem_type on rank %d", bad);
            hid_t fs = band(ds, 0), fs2 = band(e2, 0);
            const hid_t dsets[2] = {ds, e2}, mts[2] = {H5T_NATIVE_INT, me == bad ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT};
            const hid_t mss[2] = {fs, fs2}, fss[2] = {fs, fs2};
            colldiag_xfer *x;
            colldiag_file *f = NULL;
            colldiag_xfer_create(&x);
            const int rc = colldiag_h5_plan_multi(2, dsets, mts, mss, fss, coll, COLLDIAG_TO_FILE, x, &f);
            char want[32];
            snprintf(want, sizeof want, me == bad ? "dataset 1" : "rank %d", bad);
            if (bad < 0) CHECK(rc == 0, "rc %d (%s), expected success", rc, colldiag_xfer_errmsg(x));
            else CHECK(rc != 0 && strstr(colldiag_xfer_errmsg(x), want), "rc %d (%s), expected a failure naming %s", rc, colldiag_xfer_errmsg(x), want);
            colldiag_file_close(f);
            colldiag_xfer_free(x);
            H5Sclose(fs);
            H5Sclose(fs2);
        }
        H5Dclose(e2);
    }
    /* an independent plan on rank 1 alone: it must not wait for anyone */
    snprintf(g_case, sizeof g_case, "independent plan on one rank");
    if (me == 1) {
        hid_t fs = band(ds, 0);
        colldiag_xfer *x;
        colldiag_file *f = NULL;
        colldiag_xfer_create(&x);
        int rc = colldiag_h5_plan(ds, H5T_NATIVE_INT, fs, fs, H5P_DEFAULT, COLLDIAG_TO_FILE, x, &f);
        uint32_t l = 0, g = 0;
        colldiag_get_mpio_no_collective_cause(x, &l, &g);
        CHECK(rc == 0 && l == COLLDIAG_MPIO_SET_INDEPENDENT && g == l, "rc %d, causes 0x%x 0x%x", rc, l, g);
        colldiag_file_close(f);
        colldiag_xfer_free(x);
        H5Sclose(fs);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* one xfer reused: a transform planned once must not stick to the next plan (its DXPL has none) */
    {
        snprintf(g_case, sizeof g_case, "xfer reused after a transform");
        hid_t fs = band(ds, 0), d = H5Pcopy(coll);
        H5Pset_data_transform(d, "x+1");
        uint32_t want = COLLDIAG_MPIO_DATA_TRANSFORMS;
#if H5_VERSION_GE(1, 14, 0)
        /* HDF5 1.14 transforms collectively under selection I/O: off, the transform is a cause again */
        H5Pset_selection_io(d, H5D_SELECTION_IO_MODE_OFF);
        want |= COLLDIAG_MPIO_NO_SELECTION_IO;
#endif
        colldiag_xfer *x;
        colldiag_file *f = NULL;
        colldiag_xfer_create(&x);
        int rc = colldiag_h5_plan(ds, H5T_NATIVE_INT, fs, fs, d, COLLDIAG_TO_FILE, x, &f);
        uint32_t l = 0, g = 0;
        colldiag_get_mpio_no_collective_cause(x, &l, &g);
        CHECK(rc == 0 && l == want, "with a transform: rc %d, local cause 0x%x, expected 0x%x", rc, l, want);
        colldiag_file_close(f);
        rc = colldiag_h5_plan(ds, H5T_NATIVE_INT, fs, fs, coll, COLLDIAG_TO_FILE, x, &f);
        colldiag_get_mpio_no_collective_cause(x, &l, &g);
        CHECK(rc == 0 && l == 0 && g == 0, "without: rc %d, causes 0x%x 0x%x", rc, l, g);
        colldiag_file_close(f);
        colldiag_xfer_free(x);
        H5Pclose(d);
        H5Sclose(fs);
    }
    /* good plans against HDF5's own answers */
    /* multi 2 (HDF5 1.14 only): multi-chunk asked with selection I/O on, which HDF5 1.14 runs as link-chunk;
       multi 1 there turns selection I/O off, so that HDF5 runs multi-chunk as 1.10 does */
    const int variants = H5_VERSION_GE(1, 14, 0) ? 3 : 2;
    for (int multi = 0; multi < variants; multi++) {
        snprintf(g_case, sizeof g_case, "%s against HDF5", multi == 2 ? "multi-chunk bands, selection I/O" : multi ? "multi-chunk bands" : "link row blocks");
        hid_t fs = band(ds, multi != 0), d = H5Pcopy(coll);
        if (multi) H5Pset_dxpl_mpio_chunk_opt(d, H5FD_MPIO_CHUNK_MULTI_IO);
#if H5_VERSION_GE(1, 14, 0)
        if (multi == 1) H5Pset_selection_io(d, H5D_SELECTION_IO_MODE_OFF);
#endif
        hssize_t n = H5Sget_select_npoints(fs);
        hsize_t mn = (hsize_t)n;
        hid_t ms = H5Screate_simple(1, &mn, NULL);
        colldiag_xfer *x;
        colldiag_file *f = NULL;
        colldiag_xfer_create(&x);
        int rc = colldiag_h5_plan(ds, H5T_NATIVE_INT, ms, fs, d, COLLDIAG_TO_FILE, x, &f);
        int *v = calloc((size_t)n, sizeof *v);
        herr_t e = H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, d, v);
        colldiag_actual_chunk_opt_mode_t co;
        colldiag_actual_io_mode_t io;
        uint32_t l, g, hl, hg;
        H5D_mpio_actual_chunk_opt_mode_t hco;
        H5D_mpio_actual_io_mode_t hio;
        colldiag_get_mpio_actual_chunk_opt_mode(x, &co);
        colldiag_get_mpio_actual_io_mode(x, &io);
        colldiag_get_mpio_no_collective_cause(x, &l, &g);
        H5Pget_mpio_actual_chunk_opt_mode(d, &hco);
        H5Pget_mpio_actual_io_mode(d, &hio);
        H5Pget_mpio_no_collective_cause(d, &hl, &hg);
        CHECK(rc == 0 && e >= 0 && (int)co == (int)hco && (int)io == (int)hio && l == hl && g == hg,
              "rc %d, H5Dwrite %d: colldiag %s %s 0x%x 0x%x, HDF5 %s %s 0x%x 0x%x", rc, (int)e, colldiag_chunk_opt_name(co),
              colldiag_io_mode_name(io), l, g, colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)hco),
              colldiag_io_mode_name((colldiag_actual_io_mode_t)hio), hl, hg);
        CHECK(multi == 1 ? hco == H5D_MPIO_MULTI_CHUNK : hco == H5D_MPIO_LINK_CHUNK, "HDF5 chose %d", (int)hco);
        free(v);
        colldiag_file_close(f);
        colldiag_xfer_free(x);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Pclose(d);
    }
    H5Pclose(coll);
    H5Dclose(ds);
    H5Fclose(file);
    H5Pclose(fapl);
    if (me == 0) remove(argv[1]);
    int status = test_summary("test_h5plan");
    MPI_Finalize();
    return status;
}
