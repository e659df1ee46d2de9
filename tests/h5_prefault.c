/* A plain HDF5 program (no colldiag) whose reads land in memory it never touched, for
 * tests/test_prefault.sh: the preload may populate such a destination before the call (its
 * prefault_dest); the program checks that this changes nothing it can see.
 * Each rank writes its band of a 1-D dataset of doubles (collective), then reads it back, collectively:
 *   1. into a fresh mapping, the band starting 100 bytes into the mapping's first page, guard bytes
 *      before it and after its end (in its last, partial page): the band's values and every guard byte
 *      checked; it prints the run's whole pages' bytes ("pages N"), as the test computes them;
 *   2. into the same memory again (now resident: nothing to populate);
 *   3. into a second fresh mapping through a memory selection with gaps (blocks of 2 pages, 2 pages
 *      apart): the values checked, and the pages wholly inside the gaps still not resident (mincore):
 *      no read may touch memory the selection skips;
 *   4. (HDF5 1.14: H5Dread_multi) into a third fresh mapping, 300 bytes in, through H5Dread_multi of the
 *      one dataset: the values and the guard bytes checked, and its pages printed as in 1.
 * Every rank prints "rank R: ok ..." or "rank R: FAIL ..."; the exit status is 1 on any failure.
 * Usage: h5_prefault FILE */
#define _DEFAULT_SOURCE
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PER_RANK 65536 /* doubles a rank: 512 KiB */
#define BLOCK 1024     /* doubles a block of the gapped selection: 8 KiB, two pages */

static double value(int rank, size_t i) { return rank * 1e6 + (double)i * 0.5 + 0.25; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, P = 1, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: h5_prefault FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE), bytes = PER_RANK * sizeof(double);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t n = (hsize_t)P * PER_RANK, start = (hsize_t)rank * PER_RANK, count = PER_RANK;
    hid_t fs = H5Screate_simple(1, &n, NULL);
    hid_t dset = H5Dcreate2(file, "band", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hid_t ms = H5Screate_simple(1, &count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    double *w = malloc(bytes);
    for (size_t i = 0; i < PER_RANK; i++) w[i] = value(rank, i);
    if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, ms, fs, dxpl, w) < 0) { printf("rank %d: FAIL write\n", rank); bad = 1; }
    free(w);

    /* 1 and 2: one run of bytes, 100 bytes into a fresh mapping, guards around it */
    const size_t map1 = bytes + 2 * pg;
    unsigned char *m1 = mmap(NULL, map1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m1 == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 3);
    unsigned char *dst = m1 + 100;
    memset(m1, 0xAB, 100);
    memset(dst + bytes, 0xCD, 64); /* in the run's last, partial page */
    const uintptr_t a = (uintptr_t)dst, from = (a + pg - 1) & ~(uintptr_t)(pg - 1), to = (a + bytes) & ~(uintptr_t)(pg - 1);
    printf("rank %d: pages %zu\n", rank, (size_t)(to - from));
    for (int pass = 1; pass <= 2; pass++) {
        if (H5Dread(dset, H5T_NATIVE_DOUBLE, ms, fs, dxpl, dst) < 0) { printf("rank %d: FAIL read %d\n", rank, pass); bad = 1; continue; }
        size_t wrong = 0, guards = 0;
        for (size_t i = 0; i < PER_RANK; i++) {
            double v;
            memcpy(&v, dst + i * sizeof v, sizeof v);
            wrong += v != value(rank, i);
        }
        for (size_t i = 0; i < 100; i++) guards += m1[i] != 0xAB;
        for (size_t i = 0; i < 64; i++) guards += dst[bytes + i] != 0xCD;
        for (size_t i = bytes + 64; 100 + i < map1; i++) guards += dst[i] != 0; /* the mapping's untouched rest: zeros */
        if (wrong || guards) { printf("rank %d: FAIL read %d: %zu values wrong, %zu guard bytes changed\n", rank, pass, wrong, guards); bad = 1; }
        else printf("rank %d: ok read %d: %d values, guards unchanged\n", rank, pass, PER_RANK);
    }
    munmap(m1, map1);

    /* 3: blocks of 2 pages, 2 pages apart, in a fresh mapping */
    const hsize_t nblocks = PER_RANK / BLOCK, mext = 2 * (hsize_t)PER_RANK, mstart = 0, mstride = 2 * BLOCK, mblock = BLOCK;
    hid_t gs = H5Screate_simple(1, &mext, NULL);
    H5Sselect_hyperslab(gs, H5S_SELECT_SET, &mstart, &mstride, &nblocks, &mblock);
    const size_t map2 = 2 * bytes;
    unsigned char *m2 = mmap(NULL, map2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m2 == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 3);
    if (H5Dread(dset, H5T_NATIVE_DOUBLE, gs, fs, dxpl, m2) < 0) { printf("rank %d: FAIL read 3\n", rank); bad = 1; }
    else {
        /* the gaps' residency first: reading the values below would fault nothing in (blocks only) */
        const size_t npages = map2 / pg;
        unsigned char *in = malloc(npages);
        size_t gap_pages = 0, touched = 0, wrong = 0;
        if (mincore(m2, map2, in) != 0) { printf("rank %d: FAIL mincore\n", rank); bad = 1; }
        else
            for (size_t p = 0; p < npages; p++) {
                const size_t lo = p * pg, hi = lo + pg, blk = lo / (BLOCK * sizeof(double));
                if (blk % 2 == 1 && (hi - 1) / (BLOCK * sizeof(double)) == blk) { gap_pages++; touched += in[p] & 1; }
            }
        free(in);
        for (size_t i = 0; i < PER_RANK; i++) {
            const size_t at = (i / BLOCK) * 2 * BLOCK + i % BLOCK;
            double v;
            memcpy(&v, m2 + at * sizeof v, sizeof v);
            wrong += v != value(rank, i);
        }
        if (wrong || touched || !gap_pages) {
            printf("rank %d: FAIL read 3: %zu values wrong, %zu of %zu pages inside the gaps resident\n", rank, wrong, touched, gap_pages);
            bad = 1;
        } else printf("rank %d: ok read 3: %d values, %zu pages inside the gaps untouched\n", rank, PER_RANK, gap_pages);
    }
    munmap(m2, map2);
#if H5_VERSION_GE(1, 14, 0)
    { /* 4: H5Dread_multi into a fresh mapping, 300 bytes in */
        unsigned char *m3 = mmap(NULL, map1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m3 == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 3);
        unsigned char *d3 = m3 + 300;
        memset(m3, 0xAB, 300);
        memset(d3 + bytes, 0xCD, 64);
        const uintptr_t a3 = (uintptr_t)d3, f3 = (a3 + pg - 1) & ~(uintptr_t)(pg - 1), t3 = (a3 + bytes) & ~(uintptr_t)(pg - 1);
        printf("rank %d: pages %zu\n", rank, (size_t)(t3 - f3));
        hid_t ds[1] = {dset}, mt[1] = {H5T_NATIVE_DOUBLE}, mss[1] = {ms}, fss[1] = {fs};
        void *bufs[1] = {d3};
        size_t wrong = 0, guards = 0;
        if (H5Dread_multi(1, ds, mt, mss, fss, dxpl, bufs) < 0) { printf("rank %d: FAIL read 4\n", rank); bad = 1; }
        else {
            for (size_t i = 0; i < PER_RANK; i++) {
                double v;
                memcpy(&v, d3 + i * sizeof v, sizeof v);
                wrong += v != value(rank, i);
            }
            for (size_t i = 0; i < 300; i++) guards += m3[i] != 0xAB;
            for (size_t i = 0; i < 64; i++) guards += d3[bytes + i] != 0xCD;
            if (wrong || guards) { printf("rank %d: FAIL read 4: %zu values wrong, %zu guard bytes changed\n", rank, wrong, guards); bad = 1; }
            else printf("rank %d: ok read 4: %d values (H5Dread_multi), guards unchanged\n", rank, PER_RANK);
        }
        munmap(m3, map1);
    }
    printf("rank %d: reads 4\n", rank);
#else
    printf("rank %d: reads 3\n", rank);
#endif
    H5Sclose(gs);
    H5Pclose(dxpl);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(fapl);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
