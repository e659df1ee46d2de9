/* A plain netCDF-4 parallel program (no colldiag in it) for the preload library's test: chunked
 * variables written and read with NC_COLLECTIVE and NC_INDEPENDENT, and one deflated variable (netCDF
 * requires collective access for it). netCDF-4 stores through HDF5, so its H5Dwrite/H5Dread calls are
 * what the preload library sees. Every read is checked against what was written.
 *
 *   mpirun -n 3 [-x LD_PRELOAD=...] nc_client FILE.nc
 */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 12
#define CHECK(call)                                                                       \
    do {                                                                                  \
        int e_ = (call);                                                                  \
        if (e_ != NC_NOERR) { printf("rank %d: %s: %s\n", me, #call, nc_strerror(e_)); bad++; } \
    } while (0)

int main(int argc, char **argv)
{
    int me, P, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 2) { if (!me) fprintf(stderr, "usage: nc_client FILE.nc\n"); MPI_Abort(MPI_COMM_WORLD, 2); }
    int nc, dim[2], vcoll, vind, vz;
    size_t ch[2] = {4, 4};
    CHECK(nc_create_par(argv[1], NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &nc));
    CHECK(nc_def_dim(nc, "y", N, &dim[0]));
    CHECK(nc_def_dim(nc, "x", N, &dim[1]));
    CHECK(nc_def_var(nc, "coll", NC_INT, 2, dim, &vcoll));
    CHECK(nc_def_var(nc, "ind", NC_INT, 2, dim, &vind));
    CHECK(nc_def_var(nc, "zipped", NC_INT, 2, dim, &vz));
    CHECK(nc_def_var_chunking(nc, vcoll, NC_CHUNKED, ch));
    CHECK(nc_def_var_chunking(nc, vind, NC_CHUNKED, ch));
    CHECK(nc_def_var_chunking(nc, vz, NC_CHUNKED, ch));
    CHECK(nc_def_var_deflate(nc, vz, 0, 1, 1));
    CHECK(nc_enddef(nc));
    CHECK(nc_var_par_access(nc, vcoll, NC_COLLECTIVE));
    CHECK(nc_var_par_access(nc, vind, NC_INDEPENDENT));
    CHECK(nc_var_par_access(nc, vz, NC_COLLECTIVE));
    size_t lo = (size_t)(N * me / P), hi = (size_t)(N * (me + 1) / P);
    size_t st[2] = {lo, 0}, cn[2] = {hi - lo, N};
    int *w = malloc(N * N * sizeof *w), *r = malloc(N * N * sizeof *r);
    for (int i = 0; i < N * N; i++) w[i] = 1000 * me + i;
    const int vars[3] = {vcoll, vind, vz};
    for (int k = 0; k < 3; k++) {
        CHECK(nc_put_vara_int(nc, vars[k], st, cn, w));
        memset(r, 0, N * N * sizeof *r);
        CHECK(nc_get_vara_int(nc, vars[k], st, cn, r));
        if (memcmp(r, w, (hi - lo) * N * sizeof *r)) { printf("rank %d: variable %d read back wrong\n", me, k); bad++; }
    }
    CHECK(nc_close(nc));
    free(w);
    free(r);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) printf("nc_client: %d failures\n", any);
    MPI_Finalize();
    return any != 0;
}
