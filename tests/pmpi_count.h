#ifndef PMPI_COUNT_H
#define PMPI_COUNT_H
#include <mpi.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t coll_calls, coll_bytes;   /* MPI_File_{write,read}_at_all */
    uint64_t coll_max;                 /* most bytes one of them moved from this rank */
    uint64_t ind_calls, ind_bytes;     /* MPI_File_{write,read}_at */
    uint64_t set_view;                 /* MPI_File_set_view */
    uint64_t comm_calls;               /* Allreduce, Alltoall, Alltoallv, Allgather, Ibarrier */
    uint64_t alltoall_calls;           /* Alltoall, Alltoallv: O(P) a rank, which colldiag no longer makes */
    uint64_t spx_msgs;                 /* MPI_Issend (the sparse exchange's messages) */
    uint64_t type_commits;             /* MPI_Type_commit */
    char open_cb[32];                  /* cb_buffer_size in the info of the last MPI_File_open ("" if none) */
    char open_striping[32];            /* striping_factor there: proves the caller's other hints pass through */
    /* when byte_call is set (by the test, with byte_cap entries): for every file byte a collective data
       call moves, byte_call[byte] = that call's number on this rank (coll_calls after it), found with
       MPI_File_get_byte_offset through the view; byte_twice counts bytes moved more than once */
    int *byte_call;
    uint64_t byte_cap, byte_twice;
} pmpi_counts;

extern pmpi_counts g_pmpi;
static inline void pmpi_reset(void)
{
    int *bc = g_pmpi.byte_call;
    uint64_t cap = g_pmpi.byte_cap;
    memset(&g_pmpi, 0, sizeof g_pmpi);
    g_pmpi.byte_call = bc; /* the recorder stays on until the test takes it off */
    g_pmpi.byte_cap = cap;
}

#endif
