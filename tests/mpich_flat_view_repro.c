/* One file view that MPICH 4.1-4.2's ROMIO aborts on (tools/mpich_flat_views.h): HDF5 1.14.5's type
 * for one rank's irregular selection (MPI_Type_get_contents of what it passed to MPI_File_set_view in
 * fuzz_h5 seed 20796 case 0, 2 ranks), rebuilt with MPI alone. By hand its pieces are bytes 68-79,
 * 84-95, 100-103, 108-111, 116-119, 124-127 past the displacement (40 bytes).
 *
 * It writes 40 bytes through the view and checks every byte of the file against those pieces. make
 * builds it with -DWITH_FLAT_VIEWS (tools/mpich_flat_views.h: on MPICH 4.2 the view goes to ROMIO
 * flattened, and the program says so); built by hand without it
 * (mpicc.mpich -Itests tests/mpich_flat_view_repro.c), MPICH 4.2 aborts in MPI_File_set_view:
 * the reproducer to send upstream. Elsewhere MPI takes the view as it is.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#ifdef WITH_FLAT_VIEWS
#include "../tools/mpich_flat_views.h"
#endif

static MPI_Datatype hdf5s_type(void)
{
    MPI_Datatype e2, B, A, D, C, T1a, T1, F, E, T2a, T2, S, V;
    MPI_Aint d4 = 4, d0 = 0;
    int b2 = 2, b4 = 4;
    MPI_Type_contiguous(2, MPI_BYTE, &e2);
    MPI_Type_create_hindexed(1, &b2, &d4, e2, &B); /* bytes 4-7 */
    MPI_Type_create_hvector(1, 1, 8, B, &A);
    MPI_Type_create_hindexed(1, &b4, &d0, e2, &D); /* bytes 0-7 */
    MPI_Type_create_hvector(1, 1, 8, D, &C);
    {
        int bl[2] = {1, 1};
        MPI_Aint ds[2] = {0, 8};
        MPI_Datatype ts[2] = {A, C};
        MPI_Type_create_struct(2, bl, ds, ts, &T1a); /* 4-15 */
    }
    MPI_Type_create_hvector(2, 1, 16, T1a, &T1);   /* 4-15, 20-31 */
    MPI_Type_create_hindexed(1, &b2, &d4, e2, &F); /* 4-7 */
    MPI_Type_create_hvector(2, 1, 8, F, &E);       /* 4-7, 12-15 */
    {
        int bl = 1;
        MPI_Aint ds = 0;
        MPI_Type_create_struct(1, &bl, &ds, &E, &T2a);
    }
    MPI_Type_create_hvector(2, 1, 16, T2a, &T2); /* 4-7, 12-15, 20-23, 28-31 */
    {
        int bl[2] = {1, 1};
        MPI_Aint ds[2] = {64, 96};
        MPI_Datatype ts[2] = {T1, T2};
        MPI_Type_create_struct(2, bl, ds, ts, &S);
    }
    MPI_Type_dup(S, &V);
    MPI_Type_commit(&V);
    MPI_Datatype all[] = {e2, B, A, D, C, T1a, T1, F, E, T2a, T2, S};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) MPI_Type_free(&all[i]);
    return V;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *path = argc > 1 ? argv[1] : "mpich_flat_view_repro.bin";
    const MPI_Offset disp = 512;
    MPI_Datatype v = hdf5s_type();
    MPI_Count sz;
    MPI_Aint lb, ext;
    MPI_Type_size_x(v, &sz);
    MPI_Type_get_extent(v, &lb, &ext);
    int bad = sz != 40 || lb != 68 || ext != 60;
    if (bad) printf("the type: size %lld lb %ld extent %ld, expected 40, 68, 60\n", (long long)sz, (long)lb, (long)ext);
    MPI_File fh;
    MPI_File_delete(path, MPI_INFO_NULL);
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    unsigned char zero[1024] = {0}, data[40], back[1024];
    MPI_File_write_at(fh, 0, zero, (int)sizeof zero, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_set_view(fh, disp, MPI_BYTE, v, "native", MPI_INFO_NULL);
    for (int i = 0; i < 40; i++) data[i] = (unsigned char)(i + 1);
    MPI_File_write_at(fh, 0, data, 40, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_read_at(fh, 0, back, (int)sizeof back, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    /* the reference, by hand: the pieces in order, each byte its position in data */
    static const int piece[][2] = {{68, 12}, {84, 12}, {100, 4}, {108, 4}, {116, 4}, {124, 4}};
    unsigned char want[1024];
    memset(want, 0, sizeof want);
    for (int p = 0, k = 0; p < 6; p++)
        for (int j = 0; j < piece[p][1]; j++, k++) want[disp + piece[p][0] + j] = (unsigned char)(k + 1);
    for (int i = 0; i < (int)sizeof want; i++)
        if (back[i] != want[i]) {
            printf("byte %d of the file: %d, expected %d\n", i, back[i], want[i]);
            bad = 1;
            break;
        }
#ifdef WITH_FLAT_VIEWS
    printf("mpich_flat_view_repro: %s; %ld view(s) handed to MPI flattened\n", bad ? "FAILED" : "every byte where the view puts it", flat_views_done);
#else
    printf("mpich_flat_view_repro: %s (MPI took the view)\n", bad ? "FAILED" : "every byte where the view puts it");
#endif
    MPI_Type_free(&v);
    MPI_Finalize();
    return bad;
}
