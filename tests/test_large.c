/* test_large — more than 2 GiB and more than 2^31 elements per rank, in one call, in each kind of
 * execution: link-chunk (one collective call whose MPI types describe > 2 GiB), all-independent
 * (staged independent calls) and contiguous collective. The chunks sit in a sparse file (1 GiB chunks
 * 2 GiB apart), so the disk holds only what is written. Skips, saying so, when memory is short.
 *
 *   mpirun -n 2 tests/test_large [DIR]
 */
#define _GNU_SOURCE
#include "colldiag.h"
#include "testutil.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static uint64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    uint64_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %" SCNu64, &kb) == 1) break;
    if (f) fclose(f);
    return kb * 1024;
}

static unsigned char pat(uint64_t i) { return (unsigned char)((i * 131u + (uint64_t)me * 7u) >> 3); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const uint64_t N = ((uint64_t)1 << 31) + ((uint64_t)1 << 27); /* 2.125 GiB of 1-byte elements per rank */
    int enough = mem_available() > (uint64_t)P * N + ((uint64_t)2 << 30), all_enough;
    MPI_Allreduce(&enough, &all_enough, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_enough) {
        if (me == 0) printf("test_large: SKIPPED: needs %.1f GiB of available memory\ntest_large: 0 passed, 0 failed, 1 skipped\n",
                            (double)(P * N) / (1 << 30) + 2);
        MPI_Finalize();
        return 0;
    }
    char path[512];
    if (me == 0) snprintf(path, sizeof path, "%s/colldiag_large_%d.bin", argc > 1 ? argv[1] : "/tmp", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    unsigned char *buf = malloc(N);
    CHECK(buf != NULL, "cannot allocate %" PRIu64 " bytes", N);
    const uint64_t dims[2] = {(uint64_t)P, N}, chunk[2] = {1, (uint64_t)1 << 30};
    uint64_t start[2] = {(uint64_t)me, 0}, count[2] = {1, N};
    colldiag_sel *s;
    colldiag_sel_create(2, dims, &s);
    colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, start, NULL, count, NULL);
    for (int k = 0; k < 3 && buf; k++) {
        colldiag_layout *l;
        const char *name = k == 0 ? "link" : k == 1 ? "all-independent" : "contiguous";
        if (k < 2) {
            colldiag_layout_chunked(2, dims, chunk, 1, 0, &l);
            uint64_t nc = (uint64_t)P * 3;
            MPI_Offset *t = malloc(nc * sizeof *t);
            for (uint64_t i = 0; i < nc; i++) t[i] = (MPI_Offset)(i << 31); /* a 1 GiB hole after every chunk */
            colldiag_layout_set_chunk_addrs(l, nc, t);
            free(t);
        } else {
            colldiag_layout_contiguous(2, dims, 1, 4096, &l);
        }
        for (uint64_t i = 0; i < N; i++) buf[i] = pat(i);
        colldiag_file *f;
        int rc = colldiag_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
        CHECK(rc == 0, "open: %s", colldiag_last_errmsg());
        colldiag_xfer *x;
        colldiag_xfer_create(&x);
        colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
        colldiag_set_dxpl_mpio_chunk_opt(x, k == 1 ? COLLDIAG_MPIO_ALL_CHUNK_IND_IO : COLLDIAG_MPIO_CHUNK_ONE_IO);
        double t0 = MPI_Wtime();
        rc = colldiag_write(f, l, s, NULL, buf, x);
        CHECK(rc == 0, "%s write: %s", name, colldiag_xfer_errmsg(x));
        colldiag_counters c;
        colldiag_get_counters(x, &c);
        CHECK(c.bytes_collective + c.bytes_independent == N, "%s write moved %" PRIu64 " bytes", name, c.bytes_collective + c.bytes_independent);
        CHECK(k == 1 ? c.bytes_independent == N : c.bytes_collective == N, "%s write: wrong path", name);
        memset(buf, 0, N);
        rc = colldiag_read(f, l, s, NULL, buf, x);
        CHECK(rc == 0, "%s read: %s", name, colldiag_xfer_errmsg(x));
        uint64_t bad = UINT64_MAX;
        for (uint64_t i = 0; i < N && bad == UINT64_MAX; i++)
            if (buf[i] != pat(i)) bad = i;
        CHECK(bad == UINT64_MAX, "%s: byte %" PRIu64 " reads back 0x%02x, wrote 0x%02x", name, bad, bad < N ? buf[bad] : 0, bad < N ? pat(bad) : 0);
        if (me == 0) printf("test_large: %s, %d ranks x %.3f GiB written and read back in %.1f s\n", name, P, (double)N / (1 << 30), MPI_Wtime() - t0);
        colldiag_xfer_free(x);
        colldiag_file_close(f);
        colldiag_layout_free(l);
        if (me == 0) unlink(path);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    colldiag_sel_free(s);
    free(buf);
    int status = test_summary("test_large");
    MPI_Finalize();
    return status;
}
