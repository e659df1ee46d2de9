/* An LD_PRELOAD library that counts the MPI-IO calls a program makes (through PMPI), whoever makes
 * them: the program, HDF5 or the preload. At MPI_Finalize each rank appends one line to the file
 * named by PMPI_FILE_CALLS:
 *   rank R coll_data N ind_data N set_view N set_size N get_size N sync N open N preallocate N set_info N
 *          comm_new N comm_coll N
 * comm_new: communicators made (dup, idup, split, split_type, create, create_group); comm_coll: the collective calls
 * colldiag's agreements and set-up make (Allreduce, Iallreduce, Allgather, Bcast, Barrier).
 * tests/test_contig_calls.sh compares a plain run's lines with an accelerated run's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { C_COLL, C_IND, C_VIEW, C_SETSIZE, C_GETSIZE, C_SYNC, C_OPEN, C_PREALLOC, C_INFO, C_COMM_NEW, C_COMM_COLL, C_N };
static const char *const names[C_N] = {"coll_data", "ind_data", "set_view", "set_size", "get_size", "sync", "open", "preallocate", "set_info",
                                       "comm_new", "comm_coll"};
static unsigned long long n[C_N];

int MPI_File_open(MPI_Comm c, const char *p, int am, MPI_Info i, MPI_File *fh) { n[C_OPEN]++; return PMPI_File_open(c, p, am, i, fh); }
int MPI_File_set_size(MPI_File fh, MPI_Offset s) { n[C_SETSIZE]++; return PMPI_File_set_size(fh, s); }
int MPI_File_get_size(MPI_File fh, MPI_Offset *s) { n[C_GETSIZE]++; return PMPI_File_get_size(fh, s); }
int MPI_File_preallocate(MPI_File fh, MPI_Offset s) { n[C_PREALLOC]++; return PMPI_File_preallocate(fh, s); }
int MPI_File_sync(MPI_File fh) { n[C_SYNC]++; return PMPI_File_sync(fh); }
int MPI_File_set_info(MPI_File fh, MPI_Info i) { n[C_INFO]++; return PMPI_File_set_info(fh, i); }
int MPI_File_set_view(MPI_File fh, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *r, MPI_Info i)
{
    n[C_VIEW]++;
    return PMPI_File_set_view(fh, d, e, f, r, i);
}
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *o) { n[C_COMM_NEW]++; return PMPI_Comm_dup(c, o); }
int MPI_Comm_idup(MPI_Comm c, MPI_Comm *o, MPI_Request *r) { n[C_COMM_NEW]++; return PMPI_Comm_idup(c, o, r); }
int MPI_Comm_split(MPI_Comm c, int col, int key, MPI_Comm *o) { n[C_COMM_NEW]++; return PMPI_Comm_split(c, col, key, o); }
int MPI_Comm_split_type(MPI_Comm c, int t, int key, MPI_Info i, MPI_Comm *o) { n[C_COMM_NEW]++; return PMPI_Comm_split_type(c, t, key, i, o); }
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *o) { n[C_COMM_NEW]++; return PMPI_Comm_create(c, g, o); }
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm *o) { n[C_COMM_NEW]++; return PMPI_Comm_create_group(c, g, tag, o); }
int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm cm)
{
    n[C_COMM_COLL]++;
    return PMPI_Allreduce(s, r, c, t, op, cm);
}
int MPI_Iallreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op op, MPI_Comm cm, MPI_Request *q)
{
    n[C_COMM_COLL]++;
    return PMPI_Iallreduce(s, r, c, t, op, cm, q);
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm cm)
{
    n[C_COMM_COLL]++;
    return PMPI_Allgather(s, sc, st, r, rc, rt, cm);
}
int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm cm) { n[C_COMM_COLL]++; return PMPI_Bcast(b, c, t, root, cm); }
int MPI_Barrier(MPI_Comm cm) { n[C_COMM_COLL]++; return PMPI_Barrier(cm); }
int MPI_File_write_at_all(MPI_File fh, MPI_Offset o, const void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    n[C_COLL]++;
    return PMPI_File_write_at_all(fh, o, b, c, t, s);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    n[C_COLL]++;
    return PMPI_File_read_at_all(fh, o, b, c, t, s);
}
int MPI_File_write_at(MPI_File fh, MPI_Offset o, const void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    n[C_IND]++;
    return PMPI_File_write_at(fh, o, b, c, t, s);
}
int MPI_File_read_at(MPI_File fh, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    n[C_IND]++;
    return PMPI_File_read_at(fh, o, b, c, t, s);
}

int MPI_Finalize(void)
{
    int me = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *path = getenv("PMPI_FILE_CALLS");
    FILE *o = path ? fopen(path, "a") : NULL;
    if (o) {
        fprintf(o, "rank %d", me);
        for (int i = 0; i < C_N; i++) fprintf(o, " %s %llu", names[i], n[i]);
        fprintf(o, "\n");
        fclose(o);
    }
    return PMPI_Finalize();
}
