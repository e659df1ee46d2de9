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
    uint64_t comm_calls;               /* Allreduce, Alltoallv, Allgather */
    uint64_t type_commits;             /* MPI_Type_commit */
    char open_cb[32];                  /* cb_buffer_size in the info of the last MPI_File_open ("" if none) */
    char open_striping[32];            /* striping_factor there: proves the caller's other hints pass through */
} pmpi_counts;

extern pmpi_counts g_pmpi;
static inline void pmpi_reset(void) { memset(&g_pmpi, 0, sizeof g_pmpi); }

#endif
