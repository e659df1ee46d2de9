/* PMPI interposer for the tests: counts, per rank, the MPI-IO data calls colldiag really makes and the
 * bytes they move, so tests can prove that what colldiag reports is what happened. Linked into the
 * test executables only. */
#include "pmpi_count.h"

pmpi_counts g_pmpi;

static void add(uint64_t *calls, uint64_t *bytes, int count, MPI_Datatype t)
{
    MPI_Count sz = 0;
    if (count > 0) PMPI_Type_size_x(t, &sz);
    (*calls)++;
    *bytes += (uint64_t)count * (uint64_t)sz;
}

static void add_coll(int count, MPI_Datatype t)
{
    uint64_t before = g_pmpi.coll_bytes;
    add(&g_pmpi.coll_calls, &g_pmpi.coll_bytes, count, t);
    if (g_pmpi.coll_bytes - before > g_pmpi.coll_max) g_pmpi.coll_max = g_pmpi.coll_bytes - before;
}

/* byte_call: which file bytes this call moved (the view's etype is a byte, as colldiag sets it) */
static void record_bytes(MPI_File fh, MPI_Offset off, int count, MPI_Datatype t)
{
    MPI_Count sz = 0;
    if (!g_pmpi.byte_call || count <= 0) return;
    PMPI_Type_size_x(t, &sz);
    for (MPI_Count j = 0; j < (MPI_Count)count * sz; j++) {
        MPI_Offset at = -1;
        PMPI_File_get_byte_offset(fh, off + (MPI_Offset)j, &at);
        if (at < 0 || (uint64_t)at >= g_pmpi.byte_cap) continue;
        if (g_pmpi.byte_call[at] >= 0) g_pmpi.byte_twice++;
        g_pmpi.byte_call[at] = (int)g_pmpi.coll_calls;
    }
}

static void info_value(MPI_Info info, const char *key, char *out, int len)
{
    int flag = 0;
    out[0] = 0;
    if (info != MPI_INFO_NULL) PMPI_Info_get(info, key, len - 1, out, &flag);
    if (!flag) out[0] = 0;
}

int MPI_File_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File *fh)
{
    info_value(info, "cb_buffer_size", g_pmpi.open_cb, (int)sizeof g_pmpi.open_cb);
    info_value(info, "striping_factor", g_pmpi.open_striping, (int)sizeof g_pmpi.open_striping);
    return PMPI_File_open(comm, path, amode, info, fh);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype t, MPI_Status *st)
{
    add_coll(count, t);
    record_bytes(fh, off, count, t);
    return PMPI_File_write_at_all(fh, off, buf, count, t, st);
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t, MPI_Status *st)
{
    add_coll(count, t);
    record_bytes(fh, off, count, t);
    return PMPI_File_read_at_all(fh, off, buf, count, t, st);
}
int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype t, MPI_Status *st)
{
    add(&g_pmpi.ind_calls, &g_pmpi.ind_bytes, count, t);
    return PMPI_File_write_at(fh, off, buf, count, t, st);
}
int MPI_File_read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t, MPI_Status *st)
{
    add(&g_pmpi.ind_calls, &g_pmpi.ind_bytes, count, t);
    return PMPI_File_read_at(fh, off, buf, count, t, st);
}
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft, const char *rep, MPI_Info info)
{
    g_pmpi.set_view++;
    return PMPI_File_set_view(fh, disp, et, ft, rep, info);
}
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
    g_pmpi.comm_calls++;
    return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Alltoallv(const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r, const int *rc, const int *rd,
                  MPI_Datatype rt, MPI_Comm c)
{
    g_pmpi.comm_calls++;
    g_pmpi.alltoall_calls++;
    return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, c);
}
int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm c)
{
    g_pmpi.comm_calls++;
    g_pmpi.alltoall_calls++;
    return PMPI_Alltoall(s, sc, st, r, rc, rt, c);
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm c)
{
    g_pmpi.comm_calls++;
    return PMPI_Allgather(s, sc, st, r, rc, rt, c);
}
int MPI_Ibarrier(MPI_Comm c, MPI_Request *rq)
{
    g_pmpi.comm_calls++;
    return PMPI_Ibarrier(c, rq);
}
int MPI_Issend(const void *b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request *rq)
{
    g_pmpi.spx_msgs++;
    return PMPI_Issend(b, n, t, dest, tag, c, rq);
}
int MPI_Type_commit(MPI_Datatype *t)
{
    g_pmpi.type_commits++;
    return PMPI_Type_commit(t);
}
