/* A plain parallel HDF5 program (no colldiag in it) for the preload library's test: it writes and reads
 * with every DXPL setting HDF5 1.10 has, a type conversion, a data transform, point selections,
 * H5S_ALL, H5P_DEFAULT, independent transfers and contiguous, compact and compressed datasets. After
 * every call it reads HDF5's actual modes from its own DXPL and appends them, as one JSON line per rank,
 * to the file named by argv[2]: the reference tests/h5_explain_check.py compares the preload's lines
 * with. It also checks every read against what it wrote, so the preload cannot change the data unseen.
 *
 *   mpirun -n 3 [-x LD_PRELOAD=...] h5_client FILE.h5 OWN.jsonl
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* An object's header address, in the API of the HDF5 this is built with (tokens since 1.12). */
static void object_addr(hid_t obj, haddr_t *addr)
{
    *addr = HADDR_UNDEF;
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t oi;
    if (H5Oget_info3(obj, &oi, H5O_INFO_BASIC) >= 0) H5VLnative_token_to_addr(obj, oi.token, addr);
#else
    H5O_info_t oi;
    if (H5Oget_info2(obj, &oi, H5O_INFO_BASIC) >= 0) *addr = oi.addr;
#endif
}

static int me, P, bad;
static FILE *own;
static int ncall;

/* The DXPL's actual-mode properties: chunk optimisation, I/O mode, local and global causes (H5P_DEFAULT,
   which cannot be read back: none, no collective, no causes). */
static void actual_modes(hid_t dxpl, unsigned m[4])
{
    H5D_mpio_actual_chunk_opt_mode_t co = H5D_MPIO_NO_CHUNK_OPTIMIZATION;
    H5D_mpio_actual_io_mode_t io = H5D_MPIO_NO_COLLECTIVE;
    uint32_t l = 0, g = 0;
    if (dxpl != H5P_DEFAULT) {
        H5Pget_mpio_actual_chunk_opt_mode(dxpl, &co);
        H5Pget_mpio_actual_io_mode(dxpl, &io);
        H5Pget_mpio_no_collective_cause(dxpl, &l, &g);
    }
    m[0] = (unsigned)co;
    m[1] = (unsigned)io;
    m[2] = l;
    m[3] = g;
}

/* The call's own record: HDF5's answer on this rank, read from the DXPL HDF5 filled in. */
static void record_as(const char *op, const char *dset, hid_t dxpl, int coll, int plannable)
{
    unsigned m[4];
    actual_modes(dxpl, m);
    fprintf(own, "{\"call\":%d,\"rank\":%d,\"op\":\"%s\",\"dataset\":\"%s%s\",\"collective\":%s,\"known\":%s,\"chunk_opt\":%d,\"io_mode\":%d,"
                 "\"local_cause\":%u,\"global_cause\":%u,\"plannable\":%s}\n",
            ncall++, me, op, dset[0] ? "/" : "", dset, coll ? "true" : "false", dxpl != H5P_DEFAULT ? "true" : "false", (int)m[0], (int)m[1], m[2], m[3],
            plannable ? "true" : "false");
    fflush(own);
}
static void record(const char *op, const char *dset, hid_t dxpl, int coll) { record_as(op, dset, dxpl, coll, 1); }

static hid_t xfer(int coll, int hard, int num, int ratio, int indiv, const char *xform)
{
    hid_t d = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(d, coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    if (hard >= 0) H5Pset_dxpl_mpio_chunk_opt(d, (H5FD_mpio_chunk_opt_t)hard);
    if (num >= 0) H5Pset_dxpl_mpio_chunk_opt_num(d, (unsigned)num);
    if (ratio >= 0) H5Pset_dxpl_mpio_chunk_opt_ratio(d, (unsigned)ratio);
    if (indiv) H5Pset_dxpl_mpio_collective_opt(d, H5FD_MPIO_INDIVIDUAL_IO);
    if (xform) H5Pset_data_transform(d, xform);
    return d;
}

/* 12 x 12 ints; rank r's rows [4r, 4r + 4) (with P = 3), or a column band that shares chunks. */
enum { N = 12 };

static hid_t rows_space(hid_t ds, int band)
{
    hid_t s = H5Dget_space(ds);
    hsize_t st[2], cn[2];
    if (!band) { st[0] = (hsize_t)(N * me / P); st[1] = 0; cn[0] = (hsize_t)(N * (me + 1) / P) - st[0]; cn[1] = N; }
    else { st[0] = 0; st[1] = (hsize_t)(2 + 3 * me); cn[0] = N; cn[1] = 3; } /* 3-wide bands: chunks shared by 2 ranks */
    H5Sselect_hyperslab(s, H5S_SELECT_SET, st, NULL, cn, NULL);
    return s;
}

static void value_fill(int *b, hid_t fs)
{
    hssize_t n = H5Sget_select_npoints(fs);
    for (hssize_t i = 0; i < n; i++) b[i] = 1000 * me + (int)i;
}

/* Writes with the given DXPL (a fresh one per call), reads back with the same settings, checks. */
static void rw(hid_t file, const char *name, int band, int coll, int hard, int num, int ratio, int indiv)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT), fs = rows_space(ds, band);
    hssize_t n = H5Sget_select_npoints(fs);
    hsize_t mn = (hsize_t)n;
    hid_t ms = H5Screate_simple(1, &mn, NULL);
    int *w = malloc((size_t)n * sizeof *w), *r = malloc((size_t)n * sizeof *r);
    value_fill(w, fs);
    hid_t d = xfer(coll, hard, num, ratio, indiv, NULL);
    if (H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, d, w) < 0) bad++;
    record("H5Dwrite", name, d, coll);
    H5Pclose(d);
    d = xfer(coll, hard, num, ratio, indiv, NULL);
    memset(r, 0, (size_t)n * sizeof *r);
    if (H5Dread(ds, H5T_NATIVE_INT, ms, fs, d, r) < 0) bad++;
    record("H5Dread", name, d, coll);
    H5Pclose(d);
    if (memcmp(r, w, (size_t)n * sizeof *r)) { bad++; printf("rank %d: %s read back wrong\n", me, name); }
    free(w);
    free(r);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(ds);
}

/* A collective write of the whole 1-D dataset, each rank its share (base + index), read back and checked. */
static void write_1d(hid_t ds, const char *name, int base)
{
    hid_t fs = H5Dget_space(ds);
    hsize_t n = 0;
    H5Sget_simple_extent_dims(fs, &n, NULL);
    hsize_t st = n * (hsize_t)me / (hsize_t)P, cn = n * (hsize_t)(me + 1) / (hsize_t)P - st;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &st, NULL, &cn, NULL);
    hid_t ms = H5Screate_simple(1, &cn, NULL);
    int *w = malloc((size_t)cn * sizeof *w + 1), *r = calloc((size_t)cn + 1, sizeof *r);
    for (hsize_t i = 0; i < cn; i++) w[i] = base + (int)(st + i);
    hid_t d = xfer(1, -1, -1, -1, 0, NULL);
    if (H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, d, w) < 0) bad++;
    record("H5Dwrite", name, d, 1);
    H5Pclose(d);
    d = xfer(1, -1, -1, -1, 0, NULL);
    if (H5Dread(ds, H5T_NATIVE_INT, ms, fs, d, r) < 0) bad++;
    record("H5Dread", name, d, 1);
    H5Pclose(d);
    if (memcmp(r, w, (size_t)cn * sizeof *r)) { bad++; printf("rank %d: %s read back wrong\n", me, name); }
    free(w);
    free(r);
    H5Sclose(ms);
    H5Sclose(fs);
}

static hid_t make(hid_t file, const char *name, H5D_layout_t lay, int deflate)
{
    hsize_t dims[2] = {N, N}, ch[2] = {4, 4};
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, lay);
    if (lay == H5D_CHUNKED) H5Pset_chunk(dcpl, 2, ch);
    if (deflate) H5Pset_deflate(dcpl, 1);
    hid_t ds = H5Dcreate2(file, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return ds;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 3) { if (!me) fprintf(stderr, "usage: h5_client FILE.h5 OWN.jsonl\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    if (me == 0) remove(argv[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    own = fopen(argv[2], "a");
    /* H5close with a file still open: HDF5 closes the file itself, then numbers files, ids and object
       addresses from the start again, so the next file gets the closed one's file number and its first
       dataset the old first dataset's id and object address, with another chunk shape here. Nothing
       cached about the old file may serve the new one (the accelerated run wrote the new dataset into
       the old one's chunk addresses, through a closed MPI_File, before the preload forgot at H5close). */
    for (int session = 0; session < 2; session++) {
        hid_t fa = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_mpio(fa, MPI_COMM_WORLD, MPI_INFO_NULL);
        hid_t f0 = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fa);
        hsize_t n = 24, c = session ? 3 : 4;
        hid_t sp = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, &c);
        hid_t d0 = H5Dcreate2(f0, session ? "first" : "before_h5close", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        write_1d(d0, session ? "first" : "before_h5close", session ? 900 : 700);
        if (session == 0) { H5close(); continue; } /* every id above is gone */
        H5Dclose(d0);
        H5Pclose(dcpl);
        H5Sclose(sp);
        H5Fclose(f0);
        H5Pclose(fa);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fopen(argv[1], H5F_ACC_RDWR, fapl); /* holds "first" */
    H5Dclose(make(file, "chunked", H5D_CHUNKED, 0));
    H5Dclose(make(file, "contig", H5D_CONTIGUOUS, 0));
    H5Dclose(make(file, "compact", H5D_COMPACT, 0));
    H5Dclose(make(file, "deflate", H5D_CHUNKED, 1));

    /* every DXPL setting: default, link forced, multi forced, num above the chunks a rank touches, ratio
       0 and 100, collective_opt INDIVIDUAL_IO, independent; row blocks and chunk-sharing bands */
    for (int band = 0; band < 2; band++) {
        rw(file, "chunked", band, 1, -1, -1, -1, 0);
        rw(file, "chunked", band, 1, H5FD_MPIO_CHUNK_ONE_IO, -1, -1, 0);
        rw(file, "chunked", band, 1, H5FD_MPIO_CHUNK_MULTI_IO, -1, -1, 0);
        rw(file, "chunked", band, 1, -1, 100, -1, 0);
        rw(file, "chunked", band, 1, H5FD_MPIO_CHUNK_MULTI_IO, -1, 100, 0);
        rw(file, "chunked", band, 1, H5FD_MPIO_CHUNK_MULTI_IO, -1, 0, 0);
        rw(file, "chunked", band, 1, -1, -1, -1, 1);
        rw(file, "chunked", band, 0, -1, -1, -1, 0);
    }
    rw(file, "contig", 0, 1, -1, -1, -1, 0);
    rw(file, "contig", 0, 0, -1, -1, -1, 0);
    rw(file, "compact", 0, 1, -1, -1, -1, 0);
    /* compressed chunks: HDF5 1.10 writes link-chunk but reads through its filtered multi-chunk path,
       and under multi-chunk moves every filtered chunk collectively, whatever the ratio */
    rw(file, "deflate", 0, 1, -1, -1, -1, 0);
    rw(file, "deflate", 1, 1, H5FD_MPIO_CHUNK_MULTI_IO, -1, -1, 0);

    hid_t ds = H5Dopen2(file, "chunked", H5P_DEFAULT);
    /* a type conversion: doubles in memory, ints in the file */
    {
        hid_t fs = rows_space(ds, 0);
        double *b = malloc(N * N * sizeof *b); /* memory space H5S_ALL: the file space, whole-extent buffer */
        for (int i = 0; i < N * N; i++) b[i] = (double)i;
        hid_t d = xfer(1, -1, -1, -1, 0, NULL);
        if (H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, fs, d, b) < 0) bad++;
        record("H5Dwrite", "chunked", d, 1);
        H5Pclose(d);
        free(b);
        /* a data transform (memory space = the file space with its selection: a whole-extent buffer) */
        int *v = malloc(N * N * sizeof *v);
        for (int i = 0; i < N * N; i++) v[i] = i;
        d = xfer(1, -1, -1, -1, 0, "x+1");
        if (H5Dwrite(ds, H5T_NATIVE_INT, fs, fs, d, v) < 0) bad++;
        record("H5Dwrite", "chunked", d, 1);
        H5Pclose(d);
        /* H5P_DEFAULT: independent, and HDF5's answer cannot be read back by the program */
        if (H5Dwrite(ds, H5T_NATIVE_INT, fs, fs, H5P_DEFAULT, v) < 0) bad++;
        record("H5Dwrite", "chunked", H5P_DEFAULT, 0);
        free(v);
        H5Sclose(fs);
    }
    /* points: 4 per rank, in two chunks */
    {
        hid_t fs = H5Dget_space(ds);
        hsize_t pts[8] = {(hsize_t)me, 0, (hsize_t)me, 1, (hsize_t)me + 8, 11, (hsize_t)me + 8, 5};
        H5Sselect_elements(fs, H5S_SELECT_SET, 4, pts);
        hsize_t four = 4;
        hid_t ms = H5Screate_simple(1, &four, NULL);
        int v[4] = {1, 2, 3, 4};
        hid_t d = xfer(1, -1, -1, -1, 0, NULL);
        if (H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, d, v) < 0) bad++;
        record("H5Dwrite", "chunked", d, 1);
        H5Pclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
    }
    /* H5S_ALL on both sides, collective: every rank reads the whole dataset */
    {
        int *all = malloc(N * N * sizeof *all);
        hid_t d = xfer(1, -1, -1, -1, 0, NULL);
        if (H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, d, all) < 0) bad++;
        record("H5Dread", "chunked", d, 1);
        H5Pclose(d);
        free(all);
    }
    H5Dclose(ds);
    /* compressed: HDF5 1.10 writes filtered chunks collectively */
    {
        hid_t dz = H5Dopen2(file, "deflate", H5P_DEFAULT), fs = rows_space(dz, 0);
        int *v = calloc(N * N, sizeof *v); /* memory space = the file space: a whole-extent buffer */
        hid_t d = xfer(1, -1, -1, -1, 0, NULL);
        if (H5Dwrite(dz, H5T_NATIVE_INT, fs, fs, d, v) < 0) bad++;
        record("H5Dwrite", "deflate", d, 1);
        H5Pclose(d);
        free(v);
        H5Sclose(fs);
        H5Dclose(dz);
    }
    /* a rank that selects nothing still takes part in a collective write; a scalar dataset */
    {
        hid_t dc = H5Dopen2(file, "chunked", H5P_DEFAULT), fs = rows_space(dc, 0);
        if (me == P - 1) H5Sselect_none(fs);
        hssize_t n = H5Sget_select_npoints(fs);
        hsize_t mn = n > 0 ? (hsize_t)n : 1;
        hid_t ms = H5Screate_simple(1, &mn, NULL);
        if (n == 0) H5Sselect_none(ms);
        int *v = calloc((size_t)mn, sizeof *v);
        hid_t d = xfer(1, -1, -1, -1, 0, NULL);
        if (H5Dwrite(dc, H5T_NATIVE_INT, ms, fs, d, v) < 0) bad++;
        record("H5Dwrite", "chunked", d, 1);
        H5Pclose(d);
        free(v);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(dc);
        hid_t sc = H5Screate(H5S_SCALAR), dsc = H5Dcreate2(file, "scalar", H5T_NATIVE_INT, sc, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        /* every rank the same value: ranks writing different bytes into the same element in one
           collective call is an erroneous MPI-IO program, whose file depends on timing (an MPICH run
           of the accelerated comparison once kept another rank's value than the plain run) */
        int one = 7;
        d = xfer(1, -1, -1, -1, 0, NULL);
        if (H5Dwrite(dsc, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, d, &one) < 0) bad++;
        record("H5Dwrite", "scalar", d, 1);
        H5Pclose(d);
        H5Dclose(dsc);
        H5Sclose(sc);
    }
    /* an independent write by rank 0 alone while the others wait at a barrier: planning it must not
       communicate (HDF5's H5Fget_access_plist would: it duplicates the file's communicator) */
    {
        hid_t dc = H5Dopen2(file, "chunked", H5P_DEFAULT), fs = rows_space(dc, 0);
        if (me == 0) {
            int *v = calloc(N * N, sizeof *v);
            if (H5Dwrite(dc, H5T_NATIVE_INT, fs, fs, H5P_DEFAULT, v) < 0) bad++;
            record("H5Dwrite", "chunked", H5P_DEFAULT, 0);
            free(v);
        } else {
            ncall++; /* the call's number is the same on every rank; only rank 0 made it */
        }
        MPI_Barrier(MPI_COMM_WORLD);
        H5Sclose(fs);
        H5Dclose(dc);
    }
    /* HDF5 gives a deleted dataset's object address to the next dataset created, and a dataset shrunk
       and grown back has new chunks (here: where another dataset grew meanwhile) under the extent it
       had: a cache of chunk addresses that knows a dataset by its address and extent alone would write
       into freed space. The files of the plain and accelerated runs must be the same. */
    {
        hsize_t n = 24, mx = H5S_UNLIMITED, c = 4, small = 4, big = 48, bigger = 72;
        hid_t sp = H5Screate_simple(1, &n, &mx), dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, &c);
        hid_t grown = H5Dcreate2(file, "grown", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        hid_t gone = H5Dcreate2(file, "gone", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        write_1d(gone, "gone", 100);
        H5Dclose(gone);
        if (H5Ldelete(file, "gone", H5P_DEFAULT) < 0 || H5Dset_extent(grown, &big) < 0) bad++; /* gone's chunks to grown */
        write_1d(grown, "grown", 200);
        hid_t reborn = H5Dcreate2(file, "reborn", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT); /* gone's address */
        write_1d(reborn, "reborn", 300);
        H5Dclose(reborn);
        hid_t shrunk = H5Dcreate2(file, "shrunk", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        write_1d(shrunk, "shrunk", 400);
        if (H5Dset_extent(shrunk, &small) < 0 || H5Dset_extent(grown, &bigger) < 0) bad++; /* shrunk's chunks to grown */
        write_1d(grown, "grown", 500);
        if (H5Dset_extent(shrunk, &n) < 0) bad++;
        write_1d(shrunk, "shrunk", 600);
        H5Dclose(shrunk);
        H5Dclose(grown);
        /* an anonymous dataset is deleted when closed, with no deletion call to see: the next dataset
           created takes its address, here with other chunks (the preload learns of the creation) */
        hid_t anon = H5Dcreate_anon(file, H5T_NATIVE_INT, sp, dcpl, H5P_DEFAULT);
        write_1d(anon, "", 700); /* no name: HDF5 names an anonymous dataset "" */
        haddr_t oa, oh;
        object_addr(anon, &oa);
        H5Dclose(anon);
        hsize_t c2 = 2; /* chunk offsets of 4 are chunk offsets of 2 too: a stale grid finds chunks, the wrong ones */
        H5Pset_chunk(dcpl, 1, &c2);
        hid_t heir = H5Dcreate2(file, "heir", H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        object_addr(heir, &oh);
        if (me == 0 && oa != oh) printf("h5_client: HDF5 put heir elsewhere than the anonymous dataset: that case tests nothing\n");
        write_1d(heir, "heir", 800);
        H5Dclose(heir);
        H5Pclose(dcpl);
        H5Sclose(sp);
    }
    /* one DXPL kept and changed between calls, as programs do: what the bridge remembers of a DXPL under
       the preload (colldiag.c, h5_dxpl_rest) must follow every change. Each step changes the list, then
       writes and reads back with it: made independent, with rank 0 alone calling (a stale "collective"
       would leave it waiting for the others: a hang); collective again with multi-chunk forced; a data
       transform set, applied on the way in and out (a stale "no transform" would move raw values);
       another transform. (H5Pcopy_prop of "data_transform" leaves 1.10.8's list without the property:
       HDF5's own next call fails.) Every value read is checked against
       what the transforms make of the values written. */
    {
        hid_t dc = H5Dopen2(file, "chunked", H5P_DEFAULT), fs = rows_space(dc, 0);
        hssize_t n = H5Sget_select_npoints(fs);
        hsize_t mn = (hsize_t)n;
        hid_t ms = H5Screate_simple(1, &mn, NULL), d = xfer(1, -1, -1, -1, 0, NULL);
        int *w = malloc((size_t)n * sizeof *w), *r = malloc((size_t)n * sizeof *r);
        for (int step = 0; step < 5; step++) {
            int coll = step != 1, mul = 1, add = 0; /* the transform: x * mul + add */
            if (step == 1) H5Pset_dxpl_mpio(d, H5FD_MPIO_INDEPENDENT);
            if (step == 2) { H5Pset_dxpl_mpio(d, H5FD_MPIO_COLLECTIVE); H5Pset_dxpl_mpio_chunk_opt(d, H5FD_MPIO_CHUNK_MULTI_IO); }
            if (step == 3) { H5Pset_data_transform(d, "x*3"); mul = 3; }
            if (step == 4) { H5Pset_data_transform(d, "x+7"); add = 7; }
            if (coll || me == 0) {
                for (hssize_t i = 0; i < n; i++) w[i] = 100000 * step + 1000 * me + (int)i;
                if (H5Dwrite(dc, H5T_NATIVE_INT, ms, fs, d, w) < 0) bad++;
                record("H5Dwrite", "chunked", d, coll);
                memset(r, 0, (size_t)n * sizeof *r);
                if (H5Dread(dc, H5T_NATIVE_INT, ms, fs, d, r) < 0) bad++;
                record("H5Dread", "chunked", d, coll);
                int wrong = 0;
                for (hssize_t i = 0; i < n; i++) wrong += r[i] != (w[i] * mul + add) * mul + add;
                if (wrong) { bad++; printf("rank %d: the reused DXPL, step %d: %d values read back wrong\n", me, step, wrong); }
            } else {
                ncall += 2; /* the calls' numbers are the same on every rank; only rank 0 made them */
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        free(w);
        free(r);
        H5Pclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(dc);
    }
    /* the actual-mode properties of a kept DXPL: after each call the program reads that call's answers,
       whatever it or HDF5 set on the list before (under the preload the bridge skips setting the values
       it set last unless something changed the list since: here the program's own H5Pset of them, and
       a call HDF5 runs, a type conversion). The same call made again must read the same answers: with
       AUTO's choice by the model (COLLDIAG_AUTO_MODE=estimate, for this block), since AUTO that measures
       may move the same call to another scheme once it has timed it (and then reports that scheme: under
       valgrind, all-independent). */
    {
        char *was = getenv("COLLDIAG_AUTO_MODE") ? strdup(getenv("COLLDIAG_AUTO_MODE")) : NULL;
        setenv("COLLDIAG_AUTO_MODE", "estimate", 1);
        hid_t dc = H5Dopen2(file, "chunked", H5P_DEFAULT), fs = rows_space(dc, 0), d = xfer(1, -1, -1, -1, 0, NULL);
        hssize_t n = H5Sget_select_npoints(fs);
        hsize_t mn = (hsize_t)n;
        hid_t ms = H5Screate_simple(1, &mn, NULL);
        int *w = calloc((size_t)n, sizeof *w);
        double *wd = calloc((size_t)n, sizeof *wd);
        unsigned first[4] = {0, 0, 0, 0};
        for (int step = 0; step < 4; step++) {
            if (step == 1) { /* the program's own values */
                H5D_mpio_actual_chunk_opt_mode_t co = (H5D_mpio_actual_chunk_opt_mode_t)77;
                H5D_mpio_actual_io_mode_t io = (H5D_mpio_actual_io_mode_t)77;
                uint32_t c = 77;
                H5Pset(d, "actual_chunk_opt_mode", &co);
                H5Pset(d, "actual_io_mode", &io);
                H5Pset(d, "local_no_collective_cause", &c);
                H5Pset(d, "global_no_collective_cause", &c);
            }
            const int conv = step == 2;
            if ((conv ? H5Dwrite(dc, H5T_NATIVE_DOUBLE, ms, fs, d, wd) : H5Dwrite(dc, H5T_NATIVE_INT, ms, fs, d, w)) < 0) bad++;
            record("H5Dwrite", "chunked", d, 1);
            unsigned now[4];
            actual_modes(d, now);
            if (step == 0) memcpy(first, now, sizeof first);
            else if (!conv && memcmp(first, now, sizeof first)) {
                bad++;
                printf("rank %d: the kept DXPL, step %d: actual modes %u %u %u %u, the same call first %u %u %u %u\n", me, step, now[0], now[1],
                       now[2], now[3], first[0], first[1], first[2], first[3]);
            }
        }
        free(w);
        free(wd);
        H5Pclose(d);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(dc);
        if (was) setenv("COLLDIAG_AUTO_MODE", was, 1);
        else unsetenv("COLLDIAG_AUTO_MODE");
        free(was);
    }
    H5Fclose(file);
    H5Pclose(fapl);
    /* a file of this rank's own, without the MPI-IO driver: colldiag cannot plan it (and says why),
       the call runs all the same (independent: HDF5 refuses collective access there) */
    {
        char path[1100];
        snprintf(path, sizeof path, "%s.rank%d", argv[1], me);
        hid_t lf = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t dl = make(lf, "serial", H5D_CHUNKED, 0);
        int *v = calloc(N * N, sizeof *v), *r = calloc(N * N, sizeof *r);
        for (int i = 0; i < N * N; i++) v[i] = i - me;
        if (H5Dwrite(dl, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) bad++;
        record_as("H5Dwrite", "serial", H5P_DEFAULT, 0, 0);
        if (H5Dread(dl, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, r) < 0 || memcmp(r, v, N * N * sizeof *r)) bad++;
        record_as("H5Dread", "serial", H5P_DEFAULT, 0, 0);
        free(v);
        free(r);
        H5Dclose(dl);
        H5Fclose(lf);
        remove(path);
    }
    fclose(own);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("h5_client: %d calls per rank, %d failures\n", ncall, any);
    MPI_Finalize();
    return any != 0;
}
