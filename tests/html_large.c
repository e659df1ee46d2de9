/* A large chunk grid for the HTML report's test: 512^3 ints in 8^3 chunks (262,144 chunks), rank r a
 * slab of planes, planned (colldiag_plan moves no data) with the chunk optimisation named by argv[2]
 * (link, multi, aggregate), and reported with colldiag_report_html to argv[3]; argv[4], if given, is
 * another edge than 512 (a multiple of 8).
 *   mpirun -n 3 html_large FILE {link|multi|aggregate} PAGE.html [EDGE] */
#include "colldiag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 4) { if (!me) fprintf(stderr, "usage: html_large FILE link|multi|aggregate PAGE.html\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    const uint64_t n = argc > 4 ? strtoull(argv[4], NULL, 10) : 512, c = 8, dims[3] = {n, n, n}, cd[3] = {c, c, c};
    uint64_t lo = n * (uint64_t)me / (uint64_t)P, hi = n * (uint64_t)(me + 1) / (uint64_t)P;
    uint64_t st[3] = {lo, 0, 0}, cn[3] = {hi - lo, n, n};
    colldiag_sel *s;
    colldiag_layout *l;
    colldiag_file *f;
    colldiag_xfer *x;
    colldiag_sel_create(3, dims, &s);
    colldiag_sel_select_hyperslab(s, COLLDIAG_SELECT_SET, st, NULL, cn, NULL);
    colldiag_layout_chunked(3, dims, cd, 4, 0, &l);
    colldiag_file_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, COLLDIAG_DRIVER_MPIO, &f);
    colldiag_xfer_create(&x);
    colldiag_set_dxpl_mpio(x, COLLDIAG_MPIO_COLLECTIVE);
    colldiag_chunk_opt_t opt = !strcmp(argv[2], "multi") ? COLLDIAG_MPIO_CHUNK_MULTI_IO
                               : !strcmp(argv[2], "aggregate") ? COLLDIAG_MPIO_CHUNK_AGGREGATE_IO : COLLDIAG_MPIO_CHUNK_ONE_IO;
    colldiag_set_dxpl_mpio_chunk_opt(x, opt);
    int rc = colldiag_plan(f, l, s, NULL, x);
    FILE *out = me == 0 ? fopen(argv[3], "w") : NULL;
    int hrc = colldiag_report_html(f, x, out);
    if (out) fclose(out);
    /* the reference: chunk layers [lo/c, (hi-1)/c] of 64 x 64 chunks each; a layer is shared when a
       slab boundary falls inside it */
    uint64_t mine = ((hi - 1) / c - lo / c + 1) * (n / c) * (n / c);
    uint64_t all = 0;
    MPI_Reduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("html_large: plan rc %d, html rc %d, chunk entries over all ranks %llu, grid %llu^3\n", rc, hrc, (unsigned long long)all,
               (unsigned long long)(n / c));
    colldiag_xfer_free(x);
    colldiag_file_close(f);
    colldiag_layout_free(l);
    colldiag_sel_free(s);
    MPI_Finalize();
    return rc || hrc;
}
