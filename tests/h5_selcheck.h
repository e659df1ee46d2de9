/* Shared by the HDF5 testers (fuzz_h5.c, fuzz_filtered.c): whether HDF5 selected what the tester asked. */
#ifndef COLLDIAG_TESTS_H5_SELCHECK_H
#define COLLDIAG_TESTS_H5_SELCHECK_H
#include <hdf5.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 1 if HDF5's hyperslab selection is not exactly the cnt elements lin[] the tester drew: 1.10.8 can merge
   a union of boxes into blocks that cover other elements than it counts (2-D 16x1: {10} | {4} | {1..3}
   counts 5 but lists the blocks 1..3 and 7..9; seed 1795598026 case 11025), and then reads and writes
   those. Points are taken as given. */
static int hdf5_sel_differs(hid_t fsp, int rank, const hsize_t *dims, const uint64_t *lin, uint64_t cnt)
{
    if (H5Sget_select_type(fsp) != H5S_SEL_HYPERSLABS) return 0;
    if ((uint64_t)H5Sget_select_npoints(fsp) != cnt) return 1;
    hssize_t nb = H5Sget_select_hyper_nblocks(fsp);
    hsize_t *bl = malloc(((size_t)nb + 1) * 2 * (size_t)rank * sizeof *bl);
    if (nb > 0) H5Sget_select_hyper_blocklist(fsp, 0, (hsize_t)nb, bl);
    uint64_t total = 1, covered = 0;
    for (int d = 0; d < rank; d++) total *= dims[d];
    unsigned char *mark = calloc(total, 1);
    for (uint64_t i = 0; i < cnt; i++) mark[lin[i]] = 1;
    int bad = 0;
    for (hssize_t b = 0; b < nb && !bad; b++) {
        const hsize_t *lo = bl + (size_t)b * 2 * (size_t)rank, *hi = lo + rank;
        hsize_t idx[4];
        memcpy(idx, lo, (size_t)rank * sizeof *idx);
        for (;;) { /* every element of the block, row-major */
            uint64_t k = 0;
            for (int d = 0; d < rank; d++) {
                if (idx[d] >= dims[d]) { bad = 1; break; }
                k = k * dims[d] + idx[d];
            }
            if (bad || mark[k] != 1) { bad = 1; break; }
            mark[k] = 2;
            covered++;
            int d = rank - 1;
            while (d >= 0 && idx[d] == hi[d]) { idx[d] = lo[d]; d--; }
            if (d < 0) break;
            idx[d]++;
        }
    }
    free(mark);
    free(bl);
    return bad || covered != cnt;
}

#endif
