/* h5_defects: plain parallel HDF5 (no colldiag in it) showing where HDF5 + MPI-IO do not leave in the file
 * what the program wrote, one case each, and controls that must stay right. Every case writes into a
 * fresh file, closes it, and rank 0 reads the file back through HDF5 and checks every element against
 * what the program wrote (0 where no rank wrote: a fresh file's bytes, as HDF5 reads unwritten storage of
 * a dataset whose fill value was written or is never read).
 *
 *   mpirun -n P h5_defects DIR [--case NAME]... [--must-be-right NAME,NAME|all] [--quiet]
 *
 * Prints one line a case: `NAME: DEFECT ...` or `NAME: right`. The exit status is 0 unless a case named in
 * --must-be-right (or a control, always) shows a defect, or HDF5 failed: the defects are the stack's,
 * reported, not failed, so that the suite says on which stacks they are present (tests/check.sh,
 * tests/check_hdf5.sh) and the preload's run (COLLDIAG_ACCELERATE=1) can require its cases right.
 *
 * The classes (docs/hdf5.md, "What HDF5 and MPI-IO get wrong"):
 *  holes-*   a collective (or data-sieved) write to a contiguous dataset, fresh in the file (its storage
 *            past the end of the file, no fill value written), with gaps between the ranks' pieces:
 *            MPI-IO's read-modify-write of the stretch past the end reads nothing and writes back what its
 *            buffer held. The heap is dirtied first with a pattern (as a real program's is) so that the
 *            bytes are visible; they are whatever memory held.
 *  compact-* a compact dataset (its data lives in the object header) written by several ranks with
 *            different selections: every rank's copy of the header changes, one rank's is written.
 *  control-* the same shapes where nothing is at risk: a written fill value, a file already long enough,
 *            chunked storage, a full write, identical compact data on every rank.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

static int me, P;

typedef struct {
    const char *name;
    int layout;     /* 0 contiguous, 1 chunked, 2 compact */
    int coll;       /* collective DXPL (2: with H5Pset_dxpl_mpio_collective_opt(H5FD_MPIO_INDIVIDUAL_IO)) */
    int fill;       /* 0 HDF5's default, 1 H5D_FILL_TIME_ALLOC, 2 H5D_FILL_TIME_NEVER, 3 a fill value (0) set,
                       4 the fill value undefined (H5Pset_fill_value with NULL) */
    int flush;      /* H5Fflush before the write: the file is then as long as its allocation */
    int shape;      /* 0 sparse pieces a rank, 1 every element (a full write), 2 the same full data on every rank,
                       3 rank 0 alone, sparse; 4 as 0 in reverse order (HDF5 then hands MPI-IO other types) */
    int conv;       /* the memory type is native int, the file's uint16: a conversion (2: on rank 1 only, which under
                       HDF5 1.10's rules makes every rank's write independent: cause 0x04) */
    int control;    /* nothing is at risk: must be right */
    int prior;      /* another dataset is created and written whole first: the file is then longer than the first
                       dataset's storage, and the case's dataset (created after) lies past its end at other addresses
                       than a fresh file's (2: and the case's dataset is written whole once before its sparse write) */
    int collmd;     /* the file's metadata reads are collective (H5Pset_all_coll_metadata_ops, as netCDF-4's) */
    int read;       /* a read case (run_read_case): 1 rank 0 reads a band and rank 1 a part of it that ends inside it,
                       2 every rank reads the same band, 3 each rank its own band */
    int multi;      /* HDF5 1.14's H5Dwrite_multi: the case's dataset written in one call after another contiguous dataset,
                       "first", created before it (its storage ends before the case's: only the case's is past its end) */
} h5case;

static const h5case cases[] = {
    {"holes-collective", 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"holes-independent", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"holes-rank0-collective", 0, 1, 0, 0, 3, 0, 0, 0, 0, 0, 0},
    {"holes-rank0-independent", 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0},
    {"holes-unordered-independent", 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0},
    {"holes-unordered-collective", 0, 1, 0, 0, 4, 0, 0, 0, 0, 0, 0},
    {"holes-converting-collective", 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    {"holes-one-rank-converting", 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0},
    {"holes-individual-io", 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"holes-chunked-fill-never", 1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0},
    {"holes-chunked-fill-undefined", 1, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0},
    {"compact-ranks-differ", 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"compact-rank0-alone", 2, 1, 0, 0, 3, 0, 0, 0, 0, 0, 0},
    {"compact-rank0-alone-independent", 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0},
    {"control-fill-alloc", 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0},
    {"control-fill-value", 0, 1, 3, 0, 0, 0, 1, 0, 0, 0, 0},
    {"control-flushed", 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0},
    {"control-chunked", 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0},
    {"control-full-write", 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0},
    {"control-compact-same", 2, 1, 0, 0, 2, 0, 1, 0, 0, 0, 0},
    /* chunks without a written fill in a file that is already longer than a fresh one: the chunks lie past
       its end all the same (issue 61: predicted 0 when the plan assumed dense addresses) */
    {"holes-chunked-individual-io", 1, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0},
#if H5_VERSION_GE(1, 14, 0)
    {"holes-multi-collective", 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1},
#endif
    {"holes-chunked-fill-never-after-data", 1, 1, 2, 0, 0, 0, 0, 1, 0, 0, 0},
    {"holes-chunked-fill-never-collmd", 1, 1, 2, 0, 0, 0, 0, 1, 1, 0, 0},
    {"control-chunked-fill-never-flushed", 1, 1, 2, 1, 0, 0, 1, 1, 0, 0, 0},
    {"control-chunked-fill-never-flushed-collmd", 1, 1, 2, 1, 0, 0, 1, 1, 1, 0, 0},
    {"control-chunked-fill-never-written", 1, 1, 2, 0, 0, 0, 1, 2, 0, 0, 0},
    {"control-chunked-fill-value", 1, 1, 3, 0, 0, 0, 1, 1, 0, 0, 0},
    /* reads of a written contiguous dataset: ranks whose selections overlap, one ending inside the other's
       (Open MPI 4.1.0-4.1.4's ompio returns zeros past the inner one's end: tests/mpi_read_overlap.c) */
    {"reads-overlap-collective", 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"reads-overlap-independent", 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"control-reads-same", 0, 1, 0, 0, 0, 0, 1, 0, 0, 2, 0},
    {"control-reads-disjoint", 0, 1, 0, 0, 0, 0, 1, 0, 0, 3, 0},
    /* right in HDF5, but an independent call cannot know that every rank writes the same: at risk */
    {"compact-same-independent", 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* The dataset: ROWS x COLS uint16, rows = 2 a rank (at least 4), 16 columns; chunks of 2 x 8. */
#define COLS 16
static hsize_t rows(void) { return (hsize_t)(P < 2 ? 4 : 2 * P); }
static uint16_t value_of(hsize_t e) { return (uint16_t)(e * 7 + 1) | 1u; } /* never 0 */

/* This rank's elements (row-major indices) for the case's shape; returns how many. Sparse: rank r writes
   every third element of its rows, from column r % 3 (gaps inside each rank's part and between ranks). */
static hsize_t my_elements(const h5case *c, hsize_t *out)
{
    const hsize_t R = rows(), N = R * COLS;
    hsize_t n = 0;
    if (c->shape == 1) { /* a full write: rank r its two rows */
        for (hsize_t e = 0; e < N; e++)
            if ((int)(e / COLS / 2) % P == me) out[n++] = e;
    } else if (c->shape == 2) { /* every rank every element, the same values */
        for (hsize_t e = 0; e < N; e++) out[n++] = e;
    } else if (c->shape == 3) { /* rank 0 alone, every third element of the first rows */
        if (me == 0)
            for (hsize_t e = 1; e < 3 * COLS; e += 3) out[n++] = e;
    } else {
        for (hsize_t e = 0; e < N; e++) {
            const hsize_t r = e / COLS, col = e % COLS;
            if ((int)(r / 2) % P == me && col % 3 == (hsize_t)(me % 3)) out[n++] = e;
        }
        for (hsize_t i = 0; c->shape == 4 && i < n / 2; i++) { const hsize_t t = out[i]; out[i] = out[n - 1 - i]; out[n - 1 - i] = t; }
    }
    return n;
}

/* A real program's heap holds its own bytes: blocks of the sizes MPI-IO's buffers take (up to 32 MiB, a
   collective buffer's), filled with a pattern and freed, so that a buffer written to the file unfilled
   shows as such. Twice: freeing the first 32 MiB block (mapped) raises glibc's mmap threshold, as a
   long-running program's heap has, so that the second round's blocks, and MPI-IO's, come from the heap. */
static void dirty_heap(void)
{
    for (int round = 0; round < 2; round++)
        for (size_t sz = 64; sz <= ((size_t)32 << 20); sz *= 2) {
            void *p = malloc(sz);
            if (p) memset(p, 0xA5, sz);
            free(p);
        }
}

/* A contiguous dataset of 4 KiB a rank, written whole by every rank collectively (the file then ends
   after it). */
static void write_prior(hid_t file)
{
    const hsize_t n = 1024 * (hsize_t)P, mine = 1024, start = 1024 * (hsize_t)me;
    hid_t sp = H5Screate_simple(1, &n, NULL), d = H5Dcreate2(file, "prior", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &mine, NULL), dx = H5Pcreate(H5P_DATASET_XFER);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &mine, NULL);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    int *v = malloc(1024 * sizeof *v);
    for (int i = 0; i < 1024; i++) v[i] = i;
    H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dx, v);
    free(v);
    H5Pclose(dx);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Sclose(sp);
    H5Dclose(d);
}

/* The case's dataset written whole, every element 0 (its rows a rank), collectively: a written dataset's
   later sparse writes are not at risk. 1, or 0 when HDF5 failed. */
static int write_whole(hid_t dset)
{
    const hsize_t R = rows(), start[2] = {0, 0}, all[2] = {R, COLS};
    hid_t fs = H5Dget_space(dset), dx = H5Pcreate(H5P_DATASET_XFER);
    uint16_t *z = calloc((size_t)(R * COLS), sizeof *z);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    if (me != 0) H5Sselect_none(fs); /* rank 0 writes it, in the collective call */
    else H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, all, NULL);
    const hsize_t mn = me == 0 ? R * COLS : 1;
    hid_t ms = H5Screate_simple(1, &mn, NULL);
    if (me != 0) H5Sselect_none(ms);
    const int ok = H5Dwrite(dset, H5T_NATIVE_UINT16, ms, fs, dx, z) >= 0;
    free(z);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Pclose(dx);
    return ok;
}

/* Runs one case; returns 1 when the file is what the program wrote, 0 when not, -1 when HDF5 failed.
   detail: what differs (rank 0). */
static int run_case(const char *dir, const h5case *c, char *detail, size_t dl)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/h5_defects-%s.h5", dir, c->name);
    const hsize_t R = rows(), N = R * COLS, dims[2] = {R, COLS}, cdims[2] = {2, 8};
    hsize_t *el = malloc((size_t)N * sizeof *el);
    const hsize_t n = my_elements(c, el);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    if (c->collmd) H5Pset_all_coll_metadata_ops(fapl, 1);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (c->prior && file >= 0) write_prior(file);
    hid_t space = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (c->layout == 1) H5Pset_chunk(dcpl, 2, cdims);
    if (c->layout == 2) H5Pset_layout(dcpl, H5D_COMPACT);
    if (c->fill == 1) H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC);
    if (c->fill == 2) H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    const uint16_t zero = 0;
    if (c->fill == 3) H5Pset_fill_value(dcpl, H5T_NATIVE_UINT16, &zero);
    if (c->fill == 4) H5Pset_fill_value(dcpl, H5T_NATIVE_UINT16, NULL);
    /* multi: "first", N ints, rank r its share [r N / P, (r + 1) N / P), created before "data" */
    const hsize_t fn = N, f0 = fn * (hsize_t)me / (hsize_t)P, f1 = fn * (hsize_t)(me + 1) / (hsize_t)P;
    hid_t fspace = c->multi ? H5Screate_simple(1, &fn, NULL) : -1;
    hid_t first = c->multi ? H5Dcreate2(file, "first", H5T_STD_I32LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    hid_t dset = H5Dcreate2(file, "data", H5T_STD_U16LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int ok = file >= 0 && dset >= 0 && (!c->multi || first >= 0);
    if (c->flush && ok) ok = H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0;
    if (c->prior == 2 && ok) ok = write_whole(dset);
    /* the selection in the file and the packed values */
    hid_t fsel = H5Dget_space(dset);
    hsize_t *coord = malloc((size_t)(2 * (n ? n : 1)) * sizeof *coord);
    for (hsize_t i = 0; i < n; i++) { coord[2 * i] = el[i] / COLS; coord[2 * i + 1] = el[i] % COLS; }
    if (n) H5Sselect_elements(fsel, H5S_SELECT_SET, (size_t)n, coord);
    else H5Sselect_none(fsel);
    const hsize_t mn = n ? n : 1;
    hid_t msel = H5Screate_simple(1, &mn, NULL);
    if (!n) H5Sselect_none(msel);
    uint16_t *v16 = malloc((size_t)mn * sizeof *v16);
    int *vi = malloc((size_t)mn * sizeof *vi);
    for (hsize_t i = 0; i < n; i++) { v16[i] = value_of(el[i]); vi[i] = v16[i]; }
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, c->coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    if (c->coll == 2) H5Pset_dxpl_mpio_collective_opt(dxpl, H5FD_MPIO_INDIVIDUAL_IO);
    dirty_heap();
    const int conv = c->conv == 1 || (c->conv == 2 && me == 1 % P);
    int *fv = malloc((size_t)(f1 > f0 ? f1 - f0 : 1) * sizeof *fv);
    for (hsize_t i = f0; i < f1; i++) fv[i - f0] = (int)i * 3 + 5;
    if (ok && c->multi) {
#if H5_VERSION_GE(1, 14, 0)
        const hsize_t cnt1 = f1 - f0, one = cnt1 ? cnt1 : 1;
        hid_t ffs = H5Dget_space(first), fms = H5Screate_simple(1, &one, NULL);
        if (cnt1) H5Sselect_hyperslab(ffs, H5S_SELECT_SET, &f0, NULL, &cnt1, NULL);
        else { H5Sselect_none(ffs); H5Sselect_none(fms); }
        hid_t ds[2] = {first, dset}, mt[2] = {H5T_NATIVE_INT, H5T_NATIVE_UINT16}, ms[2] = {fms, msel}, fs[2] = {ffs, fsel};
        const void *bufs[2] = {fv, v16};
        ok = H5Dwrite_multi(2, ds, mt, ms, fs, dxpl, bufs) >= 0;
        H5Sclose(ffs);
        H5Sclose(fms);
#endif
    } else if (ok) {
        ok = H5Dwrite(dset, conv ? H5T_NATIVE_INT : H5T_NATIVE_UINT16, msel, fsel, dxpl, conv ? (void *)vi : (void *)v16) >= 0;
    }
    free(fv);
    H5Pclose(dxpl);
    H5Sclose(msel);
    H5Sclose(fsel);
    H5Sclose(space);
    H5Pclose(dcpl);
    if (dset >= 0) H5Dclose(dset);
    if (first >= 0) H5Dclose(first);
    if (fspace >= 0) H5Sclose(fspace);
    if (file >= 0) H5Fclose(file);
    H5Pclose(fapl);
    /* every rank's elements, to rank 0: the image it checks the file against */
    int mine = (int)n, *cnt = malloc((size_t)P * sizeof *cnt), *dsp = malloc((size_t)P * sizeof *dsp);
    MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
    int tot = 0;
    for (int r = 0; r < P; r++) { dsp[r] = tot; tot += cnt[r]; }
    unsigned long long *all = malloc((size_t)(tot ? tot : 1) * sizeof *all), *mine_ull = malloc((size_t)mn * sizeof *mine_ull);
    for (hsize_t i = 0; i < n; i++) mine_ull[i] = el[i];
    MPI_Gatherv(mine_ull, mine, MPI_UNSIGNED_LONG_LONG, all, cnt, dsp, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    int allok = 0;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int verdict = allok ? 1 : -1;
    if (me == 0 && allok) {
        uint16_t *want = calloc((size_t)N, sizeof *want), *got = calloc((size_t)N, sizeof *got);
        unsigned char *written = calloc((size_t)N, 1);
        int *owner = malloc((size_t)N * sizeof *owner), *kept = calloc((size_t)P, sizeof *kept);
        for (int r = 0; r < P; r++)
            for (int i = dsp[r]; i < dsp[r] + cnt[r]; i++) { want[all[i]] = value_of(all[i]); written[all[i]] = 1; owner[all[i]] = r; }
        hid_t f2 = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d2 = f2 >= 0 ? H5Dopen2(f2, "data", H5P_DEFAULT) : -1;
        if (d2 < 0 || H5Dread(d2, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) < 0) {
            verdict = -1;
            snprintf(detail, dl, "HDF5 could not read its own file");
        } else {
            hsize_t holes = 0, garbage = 0, lost = 0, nw = 0, first = N;
            for (hsize_t e = 0; e < N; e++) {
                if (written[e]) { nw++; if (got[e] != want[e]) { lost++; if (first == N) first = e; } else kept[owner[e]]++; }
                else { holes++; if (got[e] != 0) { garbage++; if (first == N) first = e; } }
            }
            if (garbage) {
                verdict = 0;
                snprintf(detail, dl, "%llu of %llu elements no rank wrote are not 0 (0x%04x at element %llu: bytes MPI-IO's buffer held)",
                         (unsigned long long)garbage, (unsigned long long)holes, got[first], (unsigned long long)first);
            } else if (lost) {
                verdict = 0;
                size_t k = (size_t)snprintf(detail, dl, "%llu of %llu written elements lost; kept:", (unsigned long long)lost, (unsigned long long)nw);
                for (int r = 0; r < P && k < dl; r++)
                    if (kept[r]) k += (size_t)snprintf(detail + k, dl - k, " rank %d's %d", r, kept[r]);
            } else {
                snprintf(detail, dl, "%llu written elements and %llu holes as written", (unsigned long long)nw, (unsigned long long)holes);
            }
        }
        if (verdict == 1 && c->multi) { /* the call's other dataset, written whole */
            hid_t d3 = H5Dopen2(f2, "first", H5P_DEFAULT);
            int *fg = malloc((size_t)fn * sizeof *fg);
            hsize_t bad = fn;
            if (d3 < 0 || H5Dread(d3, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, fg) < 0) verdict = -1;
            for (hsize_t e = 0; verdict == 1 && e < fn && bad == fn; e++)
                if (fg[e] != (int)e * 3 + 5) bad = e;
            if (verdict == -1) snprintf(detail, dl, "HDF5 could not read its own file's /first");
            else if (bad < fn) { verdict = 0; snprintf(detail, dl, "/first element %llu holds %d", (unsigned long long)bad, fg[bad]); }
            if (d3 >= 0) H5Dclose(d3);
            free(fg);
        }
        if (d2 >= 0) H5Dclose(d2);
        if (f2 >= 0) H5Fclose(f2);
        free(want);
        free(got);
        free(written);
        free(owner);
        free(kept);
    }
    MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(el);
    free(coord);
    free(v16);
    free(vi);
    free(cnt);
    free(dsp);
    free(all);
    free(mine_ull);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 && !getenv("H5_DEFECTS_KEEP")) remove(path);
    return verdict;
}

/* A read case: the dataset written whole by rank 0 and closed, opened again, read by the case's shape;
   every rank checks its own buffer. 1 when every rank read what the file holds, 0 when not, -1 when HDF5
   failed. */
static int run_read_case(const char *dir, const h5case *c, char *detail, size_t dl)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/h5_defects-%s.h5", dir, c->name);
    const hsize_t R = rows(), N = R * COLS, dims[2] = {R, COLS};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "data", H5T_STD_U16LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    uint16_t *all = malloc((size_t)N * sizeof *all), *got = malloc((size_t)N * sizeof *got);
    for (hsize_t e = 0; e < N; e++) all[e] = value_of(e);
    hid_t fs = H5Dget_space(dset);
    if (me != 0) H5Sselect_none(fs);
    const hsize_t mn0 = me == 0 ? N : 1;
    hid_t ms0 = H5Screate_simple(1, &mn0, NULL);
    if (me != 0) H5Sselect_none(ms0);
    int ok = file >= 0 && dset >= 0 && H5Dwrite(dset, H5T_NATIVE_UINT16, ms0, fs, H5P_DEFAULT, all) >= 0;
    H5Sclose(ms0);
    H5Sclose(fs);
    H5Dclose(dset);
    H5Fclose(file);
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    dset = H5Dopen2(file, "data", H5P_DEFAULT);
    ok &= file >= 0 && dset >= 0;
    /* the elements this rank reads: a run of the row-major order */
    hsize_t lo = 0, n = 0;
    if (c->read == 1 && me == 0) { lo = 0; n = N; }                 /* the whole dataset */
    if (c->read == 1 && me == 1) { lo = N / 4; n = N / 8; }         /* a part that ends inside rank 0's */
    if (c->read == 2) { lo = 0; n = N; }
    if (c->read == 3) { lo = N * (hsize_t)me / (hsize_t)P; n = N * (hsize_t)(me + 1) / (hsize_t)P - lo; }
    fs = H5Dget_space(dset);
    H5Sselect_none(fs);
    for (hsize_t e = lo; e < lo + n; e++) { /* as rows: one hyperslab block a row's part */
        hsize_t st[2] = {e / COLS, e % COLS}, cnt[2] = {1, 1};
        hsize_t k = COLS - e % COLS < lo + n - e ? COLS - e % COLS : lo + n - e;
        cnt[1] = k;
        H5Sselect_hyperslab(fs, H5S_SELECT_OR, st, NULL, cnt, NULL);
        e += k - 1;
    }
    const hsize_t mn = n ? n : 1;
    hid_t ms = H5Screate_simple(1, &mn, NULL);
    if (!n) H5Sselect_none(ms);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, c->coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    memset(got, 0, (size_t)N * sizeof *got);
    ok &= H5Dread(dset, H5T_NATIVE_UINT16, ms, fs, dxpl, got) >= 0;
    long wrong = 0, first = -1;
    for (hsize_t i = 0; i < n; i++)
        if (got[i] != all[lo + i]) { if (first < 0) first = (long)(lo + i); wrong++; }
    H5Pclose(dxpl);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Sclose(space);
    if (dset >= 0) H5Dclose(dset);
    if (file >= 0) H5Fclose(file);
    H5Pclose(fapl);
    long tw = 0;
    int allok = 0;
    MPI_Allreduce(&wrong, &tw, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    long f0 = first < 0 ? LONG_MAX : first, ff = 0;
    MPI_Allreduce(&f0, &ff, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (!allok) snprintf(detail, dl, "HDF5 failed");
    else if (tw) snprintf(detail, dl, "%ld elements read other than the file holds (from element %ld)", tw, ff);
    else snprintf(detail, dl, "every element read as the file holds");
    free(all);
    free(got);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 && !getenv("H5_DEFECTS_KEEP")) remove(path);
    return !allok ? -1 : tw ? 0 : 1;
}

static int listed(const char *list, const char *name)
{
    if (!list) return 0;
    if (!strcmp(list, "all")) return 1;
    const size_t l = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += l)
        if ((p == list || p[-1] == ',') && (p[l] == 0 || p[l] == ',')) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2) {
        if (me == 0) fprintf(stderr, "usage: h5_defects DIR [--case NAME]... [--must-be-right NAME,...|all] [--quiet]\n");
        MPI_Finalize();
        return 2;
    }
    const char *dir = argv[1], *must = NULL, *only[NCASES];
    int nonly = 0, quiet = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--case") && i + 1 < argc && nonly < NCASES) only[nonly++] = argv[++i];
        else if (!strcmp(argv[i], "--must-be-right") && i + 1 < argc) must = argv[++i];
        else if (!strcmp(argv[i], "--quiet")) quiet = 1;
        else {
            if (me == 0) fprintf(stderr, "h5_defects: unknown argument %s\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    int status = 0, ndef = 0;
    for (int k = 0; k < NCASES; k++) {
        const h5case *c = &cases[k];
        int want = !nonly;
        for (int i = 0; i < nonly; i++) want |= !strcmp(only[i], c->name);
        if (!want) continue;
        char detail[512] = "";
        const int v = c->read ? run_read_case(dir, c, detail, sizeof detail) : run_case(dir, c, detail, sizeof detail);
        const int required = c->control || listed(must, c->name);
        if (v < 0) status = 1;
        if (v == 0) ndef++;
        if (v == 0 && required) status = 1;
        if (me == 0 && (!quiet || v != 1))
            printf("%s: %s (%s)%s\n", c->name, v > 0 ? "right" : v == 0 ? "DEFECT" : "HDF5 FAILED", detail,
                   v == 0 && required ? (c->control ? "  <- a control: nothing was at risk" : "  <- required right") : "");
    }
    if (me == 0) printf("h5_defects: HDF5 %u.%u.%u, %d ranks: %d case%s with a defect\n", maj, min, rel, P, ndef, ndef == 1 ? "" : "s");
    MPI_Finalize();
    return status;
}
