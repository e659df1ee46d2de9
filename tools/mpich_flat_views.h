/* MPICH 4.1-4.2's ROMIO aborts on valid file views: ADIOI_Flatten_datatype counts a view's pieces with
 * MPIX_Type_iov_len, flattens it with MPIX_Type_iov and asserts the two counts are equal, and for some
 * nested types the first over-counts (pieces that MPIX_Type_iov merges). HDF5 1.14.5 builds such types
 * (nested struct/hvector/hindexed with nonzero lower bounds) for irregular selections in collective
 * calls, and MPICH 4.2 (Debian 13) then aborts inside HDF5's own H5Dwrite/H5Dread: fuzz_h5 on 2 ranks
 * hit it on 3 of the 8 daily CI seeds after 20786 (30 cases), with -DFUZZ_H5_PLAIN too (colldiag moves no byte).
 * tests/mpich_flat_view_repro.c rebuilds one such type (from MPI_Type_get_contents of HDF5's) with MPI
 * alone and aborts in MPI_File_set_view; Debian 12's MPICH 4.0 and Open MPI's ROMIO take it.
 *
 * ROMIO flattens the memory types of data calls the same way, with the same assertion.
 *
 * A program that includes this file (the preload, tools/colldiag-preload.c; the test programs) defines
 * MPI_File_set_view and MPI_File_{read,write}_at{,_all}: an LD_PRELOAD library's or the program's own
 * definitions are the ones HDF5's shared library calls. Where the two counts differ (where ROMIO would
 * abort), it hands ROMIO the same type as one hindexed type of the runs MPIX_Type_iov lists (checked:
 * they hold the type's size), resized to the same lower bound and extent: the same bytes at the same
 * offsets, which ROMIO flattens without the count. Every other call goes to PMPI_* untouched; the cost
 * is one MPIX_Type_iov_len a call with a derived type (ROMIO caches its own flattening per type), and
 * the runs listed once where it would abort. colldiag's own types are hindexed runs of bytes, whose
 * two counts agree: in the runs that found this, every type flattened was HDF5's (its caller's stack
 * went through libhdf5). FLAT_VIEWS_SAY: say so on stderr the first time in a process.
 */
#ifndef MPICH_FLAT_VIEWS_H
#define MPICH_FLAT_VIEWS_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long flat_views_done __attribute__((unused)); /* views and memory types handed over flattened */

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40100000
static void flat_views_count(const char *call)
{
    if (flat_views_done++) return;
#ifdef FLAT_VIEWS_SAY
    int me = -1, init = 0;
    MPI_Initialized(&init);
    if (init) MPI_Comm_rank(MPI_COMM_WORLD, &me);
    fprintf(stderr, "colldiag: rank %d: MPICH %s's ROMIO would abort (ADIOI_Flatten_datatype: actual == num_iovs) on an MPI datatype "
                    "passed to %s (HDF5 1.14 builds such types); handed to it as the same bytes, flattened (docs/hdf5.md)\n",
            me, MPICH_VERSION, call);
#else
    (void)call;
#endif
}
#endif

#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40100000
/* The type ft (a view's file type, or a data call's memory type) as one flat type of byte runs when
   MPICH's two counts disagree; MPI_DATATYPE_NULL when they agree (or the type is predefined, or
   anything fails: then the original goes through as it would have). The runs are bytes, so the type
   signature stays right only for types built of bytes, as HDF5's and colldiag's are (their views'
   etype is MPI_BYTE). */
static MPI_Datatype flat_type_of(MPI_Datatype ft)
{
    int ni, na, nd, comb;
    MPI_Count size = 0, n = 0, bytes = 0, actual = 0;
    MPI_Datatype out = MPI_DATATYPE_NULL;
    if (MPI_Type_get_envelope(ft, &ni, &na, &nd, &comb) != MPI_SUCCESS || comb == MPI_COMBINER_NAMED) return out;
    if (MPI_Type_size_x(ft, &size) != MPI_SUCCESS || size <= 0) return out;
    if (MPIX_Type_iov_len(ft, size, &n, &bytes) != MPI_SUCCESS || n <= 0 || n > (1 << 28)) return out;
    MPIX_Iov *iov = malloc((size_t)n * sizeof *iov);
    int *bl = malloc((size_t)n * sizeof *bl);
    MPI_Aint *d = malloc((size_t)n * sizeof *d);
    if (iov && bl && d && MPIX_Type_iov(ft, 0, iov, n, &actual) == MPI_SUCCESS && actual > 0 && actual < n) {
        MPI_Count sum = 0;
        for (MPI_Count i = 0; i < actual; i++) {
            bl[i] = (int)iov[i].iov_len;
            d[i] = (MPI_Aint)(char *)iov[i].iov_base;
            sum += iov[i].iov_len;
        }
        MPI_Aint lb, ext;
        MPI_Datatype t;
        if (sum == size && MPI_Type_get_extent(ft, &lb, &ext) == MPI_SUCCESS &&
            MPI_Type_create_hindexed((int)actual, bl, d, MPI_BYTE, &t) == MPI_SUCCESS) {
            if (MPI_Type_create_resized(t, lb, ext, &out) == MPI_SUCCESS && MPI_Type_commit(&out) != MPI_SUCCESS) MPI_Type_free(&out);
            MPI_Type_free(&t);
        }
    }
    free(iov);
    free(bl);
    free(d);
    return out;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    MPI_Datatype flat = etype == MPI_BYTE ? flat_type_of(filetype) : MPI_DATATYPE_NULL;
    const int rc = PMPI_File_set_view(fh, disp, etype, flat != MPI_DATATYPE_NULL ? flat : filetype, datarep, info);
    if (flat != MPI_DATATYPE_NULL) {
        MPI_Type_free(&flat);
        flat_views_count("MPI_File_set_view");
    }
    return rc;
}

/* ROMIO flattens a data call's memory type the same way (ADIOI_Flatten_datatype of the buffer's type:
   HDF5 1.14.5's H5FD_write_selection -> MPI_File_write_at_all, fuzz_h5 seed 4 case 22) */
#define FLAT_DATA_CALL(name, BUF)                                                                                   \
    int name(MPI_File fh, MPI_Offset off, BUF buf, int count, MPI_Datatype t, MPI_Status *st)                       \
    {                                                                                                               \
        MPI_Datatype flat = flat_type_of(t);                                                                        \
        const int rc = P##name(fh, off, buf, count, flat != MPI_DATATYPE_NULL ? flat : t, st);                      \
        if (flat != MPI_DATATYPE_NULL) {                                                                            \
            MPI_Type_free(&flat);                                                                                   \
            flat_views_count(#name);                                                                                \
        }                                                                                                           \
        return rc;                                                                                                  \
    }
FLAT_DATA_CALL(MPI_File_write_at_all, const void *)
FLAT_DATA_CALL(MPI_File_write_at, const void *)
FLAT_DATA_CALL(MPI_File_read_at_all, void *)
FLAT_DATA_CALL(MPI_File_read_at, void *)
#endif
#endif
