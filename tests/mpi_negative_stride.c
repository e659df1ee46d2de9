/* mpi_negative_stride — shows, without colldiag, the MPI datatype behaviour behind issue 12's silent
 * corruption: Open MPI 4.1.4 packs hvector(count 2, blocklen 1, stride -1) of one byte as the bytes at
 * displacements 1 and 2 instead of 1 and 0 (a descending 1-byte pair taken for a contiguous run). MPICH
 * packs it right; 2- and 4-byte elements are right everywhere. colldiag therefore never builds a
 * negative stride (item_absorb in colldiag.c): descending runs stay separate items.
 *
 *   mpicc.openmpi tests/mpi_negative_stride.c -o ns && mpirun.openmpi -n 1 ./ns
 *
 * Prints one line per element size and exits 1 when this MPI packs any of them wrong (informational:
 * the suite does not require MPI to be right, only colldiag never to depend on it).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrong = 0;
    for (int es = 1; es <= 4; es *= 2) {
        unsigned char src[16], got[16], want[16];
        for (int i = 0; i < 16; i++) src[i] = (unsigned char)(i + 1);
        MPI_Datatype el, pair, t;
        MPI_Type_contiguous(es, MPI_BYTE, &el);
        MPI_Type_create_hvector(2, 1, -(MPI_Aint)es, el, &pair); /* element at es, then the one at 0 */
        MPI_Aint disp = es;
        MPI_Type_create_hindexed_block(1, 1, &disp, pair, &t);
        MPI_Type_commit(&t);
        int pos = 0;
        MPI_Pack(src, 1, t, got, (int)sizeof got, &pos, MPI_COMM_WORLD);
        memcpy(want, src + es, (size_t)es);
        memcpy(want + es, src, (size_t)es);
        int ok = pos == 2 * es && !memcmp(got, want, (size_t)(2 * es));
        wrong |= !ok;
        printf("%d-byte elements, stride -%d: %s\n", es, es, ok ? "packed right" : "PACKED WRONG");
        MPI_Type_free(&t);
        MPI_Type_free(&pair);
        MPI_Type_free(&el);
    }
    MPI_Finalize();
    return wrong;
}
