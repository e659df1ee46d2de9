#ifdef COLLDIAG_WITH_HDF5

/* ---- running H5Dwrite / H5Dread through colldiag's engine (colldiag_h5_write / _read) ----
   The call moves exactly the bytes HDF5 would move, through the file's own MPI_File, or it is refused
   (COLLDIAG_ERR_UNSUPPORTED with the reason) before any byte moves, on every rank of a collective call
   alike, and the caller runs HDF5's own call instead. What must hold, and why each rule:
   - the MPI-IO driver: the file's MPI_File is where the data goes;
   - contiguous or chunked storage, unfiltered, inside the file (no compact, virtual or external
     storage), every touched chunk allocated: those are the bytes colldiag can address;
   - no data transform, and the memory type H5Tequal to the dataset's: then HDF5 converts nothing and
     the bytes in memory are the bytes in the file;
   - fixed-size elements only (no variable-length data, no references): their file bytes are heap
     pointers HDF5 writes elsewhere;
   - the file writable for a write; no dataspace offset (H5Soffset_simple);
   - the chunk addresses known: read from the chunk index once per dataset and extent, in a collective
     call (the index must be flushed to disk first, and H5Fflush is collective); a dataset whose
     addresses are not cached yet makes an independent call HDF5's.
   A collective call's eligibility goes into colldiag's first reduction as a pre-set failure
   (x->pre_code): every rank leaves before any byte moves, or every rank goes on. When the only failure
   anywhere is "this rank needs the chunk index", every rank flushes, rank 0 reads the index, broadcasts
   it, and the call runs again, once. HDF5 never sees the bytes move: unfiltered chunks bypass its chunk
   cache when the file is opened for writing with MPI-IO, and the MPI-IO driver keeps no sieve buffer,
   so nothing HDF5 holds goes stale. */

/* Copies src into dst (n bytes), cut to fit: for messages, where a cut is better than none. */
static void h5_copy(char *dst, size_t n, const char *src)
{
    size_t k = strlen(src);
    if (k >= n) k = n - 1;
    memcpy(dst, src, k);
    dst[k] = 0;
}

typedef struct h5_fentry {
    unsigned long fileno;    /* H5Oget_info2's: unique per open file for the library's lifetime */
    colldiag_file *f;        /* on HDF5's MPI_File; comm: a duplicate of the file's, from the first collective call */
    int md_local;            /* 1: metadata reads are local (no H5Pset_all_coll_metadata_ops), so HDF5's own chunk
                                lookup may run on one rank; 0: unknown (no collective call yet) or collective */
    int writable;            /* 1: open for writing, 0: read-only, -1: not asked yet. H5Fget_intent answers for the
                                file HDF5 shares among all opens of it, which fileno names too: it never changes
                                while the file is open, and the entry goes when the file closes */
    int shrunk;              /* a dataset of the file shrank since the program last flushed it (h5_shrunk_why) */
    int read_only_all;       /* 1: open read-only on every rank of comm (agreed when comm is made) */
    int facts;               /* 1: fx's file facts (address and length sizes, userblock) are read; -1: unreadable */
    ix_facts fx;
    /* The preload's leases (COLLDIAG_ACCELERATE=1; tools/colldiag-preload.c, lease_take): a class of the
       file's datasets (lease_key) whose collective reads HDF5's path runs without colldiag's agreement,
       for left more calls; next: the length of the next lease. Changed alike on every rank of the file:
       granted in an agreed call, spent by collective calls (every rank makes the same ones) */
    struct {
        uint64_t key;
        uint32_t left, next;
        uint64_t group, esig;    /* the measured pattern that granted it (its reads' times join it) */
    } lease[4];
    unsigned lease_turn;     /* the slot a new class takes, in turn */
    struct h5_fentry *next;
} h5_fentry;

typedef struct h5_dentry {
    unsigned long fileno;
    haddr_t addr;                        /* the dataset's object header */
    hid_t id;                            /* the id of the dataset's last call (h5_identify) */
    hid_t type;                          /* the dataset's type, for H5Tequal: a copy, or one shared (h5_type_share) */
    int type_shared;
    int learned;                         /* chunked, cdims and never are read (h5_learn) */
    int chunked;
    int layout, filtered, external;      /* H5Pget_layout, filters, external files (h5_learn): what a plan needs */
    int fill_unwritten;                  /* HDF5 wrote no fill value at allocation (h5_fill_unwritten; h5_learn) */
    int file_ranks;                      /* its file's communicator: 2 one rank, 1 several, 3 none (not an MPI-IO file), 0 not
                                            asked (h5_one_rank_file) */
    int contig_known;                    /* contig_addr and contig_size hold its allocated contiguous storage (h5_contig_storage) */
    haddr_t contig_addr;
    uint64_t contig_size;
    int rank;
    int cap;                             /* the dataset's rank (a scalar's 1), which never changes: the length of
                                            dims, u_dims and cdims, which point into the entry's own tail */
    hsize_t *dims;                       /* the extent l was built for */
    colldiag_layout *l;                  /* NULL: not built for this extent (or not buildable: why) */
    int by_hdf5;                         /* l finds addresses with HDF5's own lookup (h5_coord_resolve) */
    uint64_t defers;                     /* collective calls at this extent that HDF5 ran rather than flush (h5_defer_fetch) */
    /* What this rank's collective calls alone saw, and so every rank alike (h5_small_first_call): the
       extent of the last one, how many of them at it HDF5 ran without an agreement, whether the chunk
       index was read at it. An independent call changes rank, dims and l above on its rank alone. */
    int u_rank, u_fetched;
    hsize_t *u_dims;
    uint64_t u_defers;
    hsize_t *cdims;                      /* chunk dims (chunked) */
    /* Reasons, allocated when there is one (h5_text_set; NULL: none), because an entry lives as long as
       its file and a program may create a million datasets: the entry is ~200 bytes plus its dims (it was
       1,400 with two 256-byte texts and three arrays of COLLDIAG_MAX_RANK dims inside) */
    char *never;                         /* set once: why this dataset never runs through colldiag */
    h5_pipeline *pipe;                   /* filtered chunks colldiag can decode (h5_filtered_readable): their
                                            pipeline, for collective reads; NULL otherwise */
    int never_fact;                      /* never is a fact of the dataset (storage, filters, type), alike on every
                                            rank: not a query that failed here (h5_never_fact) */
    char *why;                           /* why l could not be built for this extent */
    struct h5_dentry *next, *prev;       /* every entry (h5_dsets), both ways: one goes in O(1) (h5_drop_dentry) */
    struct h5_dentry *next_addr, *next_id; /* the hash chains of (fileno, addr) and of id */
    hsize_t dimv[];                      /* 3 x cap: dims, u_dims, cdims */
} h5_dentry;

/* An entry's reason: its text, or "" when it has none. */
static const char *h5_text(const char *t) { return t ? t : ""; }
static int h5_has_text(const char *t) { return t && t[0]; }
/* What a reason holds when there was no memory for its own text (never freed). */
static char h5_text_nomem[] = "no memory for the reason's text";
static void h5_text_clear(char **t)
{
    if (*t != h5_text_nomem) cd_free(*t);
    *t = NULL;
}
/* Sets *t to the formatted reason (at most 511 characters, as the fixed texts it replaces held 255). */
static void h5_text_set(char **t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    h5_text_clear(t);
    const size_t n = strlen(buf) + 1;
    *t = cd_malloc(n);
    if (*t) memcpy(*t, buf, n);
    else *t = h5_text_nomem;
}

static h5_fentry *h5_files;
static h5_dentry *h5_dsets;
static h5_dentry *h5_cached_entry(hid_t dset);
static haddr_t h5_contig_storage(hid_t dset, uint64_t *size);
/* The entry h5_cached_entry last found, and the call it found it in (cd_env.call): inside one call of
   colldiag's (an intercepted H5Dwrite, a bridge function), the program cannot close the ids it passed,
   so an id found valid once in the call is valid for the rest of it. The rules of one call asked for the
   same entry four to six times, each asking HDF5 whether the id is still a dataset (H5Iget_type: an API
   call, ~290 instructions of HDF5's entry and exit). With the storage's address and size asked again
   each time (h5_contig_storage), the preload's rules cost a 1 MiB write of a file a rank (IOR -F's
   shape) 7,200 instructions and a read 3,400; 3,200 and 1,000 with both kept (callgrind,
   docs/benchmarks.md). Outside a call (cd_env.depth 0: the H5Fclose and H5Dset_extent hooks) every
   lookup asks. Cleared when the entry goes (h5_drop_dentry) or changes its id (h5_dataset). */
static struct {
    hid_t id;
    h5_dentry *e;
    unsigned long call;
} h5_memo;
static int h5_identify(hid_t dset, h5_oid *oi);
static int h5_alloc_inside(hid_t dset);  /* below: storage HDF5 allocated since a file's last flush */
static void h5_alloc_covered(hid_t dset);

/* The dataset cache's index: two hash chains through every entry, by (file, object address) and by the
   id of its last call, so that finding a dataset costs the same among ten datasets or ten thousand (a
   walk of the list cost 5 us a call among 500 netCDF variables, and a timestep writing them in turn
   walked all of them in every call). Every entry is in both; h5_dsets lists them for forgetting. */
static h5_dentry **h5_hash_addr, **h5_hash_id;
static size_t h5_hash_cap, h5_ndsets; /* cap: a power of two, 0 before the first entry */

static size_t h5_slot_addr(unsigned long fileno, haddr_t addr) { return (size_t)(cd_hash_u64(fileno, addr) & (h5_hash_cap - 1)); }
static size_t h5_slot_id(hid_t id) { return (size_t)(cd_mix64((uint64_t)id) & (h5_hash_cap - 1)); }

static void h5_link_id(h5_dentry *e)
{
    h5_dentry **head = &h5_hash_id[h5_slot_id(e->id)];
    e->next_id = *head;
    *head = e;
}

static void h5_unlink_id(h5_dentry *e)
{
    for (h5_dentry **pp = &h5_hash_id[h5_slot_id(e->id)]; *pp; pp = &(*pp)->next_id)
        if (*pp == e) { *pp = e->next_id; return; }
}

static void h5_link(h5_dentry *e)
{
    h5_dentry **head = &h5_hash_addr[h5_slot_addr(e->fileno, e->addr)];
    e->next_addr = *head;
    *head = e;
    h5_link_id(e);
}

static void h5_unlink(h5_dentry *e)
{
    h5_unlink_id(e);
    for (h5_dentry **pp = &h5_hash_addr[h5_slot_addr(e->fileno, e->addr)]; *pp; pp = &(*pp)->next_addr)
        if (*pp == e) { *pp = e->next_addr; return; }
}

/* Room in the index for one more entry: past one entry a slot the table doubles and every entry is
   linked again. 0, or -1 without memory (nothing changed). */
static int h5_index_room(void)
{
    if (h5_ndsets < h5_hash_cap) return 0;
    const size_t cap = h5_hash_cap ? 2 * h5_hash_cap : 64;
    h5_dentry **a = cd_calloc(cap, sizeof *a), **b = cd_calloc(cap, sizeof *b);
    if (!a || !b) { cd_free(a); cd_free(b); return -1; }
    cd_free(h5_hash_addr);
    cd_free(h5_hash_id);
    h5_hash_addr = a;
    h5_hash_id = b;
    h5_hash_cap = cap;
    for (h5_dentry *e = h5_dsets; e; e = e->next) h5_link(e);
    return 0;
}

/* The datasets' types, one copy for all the entries whose types are equal: a copy costs ~530 bytes
   of HDF5's memory (measured, H5Dget_type), and a program's many datasets have a few types. Only
   transient types (a committed one's copy refers to its file) and at most H5_TYPES_SHARED of them,
   so that finding one costs a few H5Tequal; past that, an entry keeps its own copy, as it did. */
enum { H5_TYPES_SHARED = 32 };
static struct { hid_t t; size_t refs; } h5_types[H5_TYPES_SHARED];
static int h5_ntypes;

/* The type to keep for t (a copy the caller owns, H5Dget_type's): t itself, or an equal one already
   kept (t is closed). *shared says which. */
static hid_t h5_type_share(hid_t t, int *shared)
{
    *shared = 0;
    if (t < 0 || H5Tcommitted(t) != 0) return t;
    for (int i = 0; i < h5_ntypes; i++)
        if (H5Tequal(h5_types[i].t, t) > 0) {
            H5Tclose(t);
            h5_types[i].refs++;
            *shared = 1;
            return h5_types[i].t;
        }
    if (h5_ntypes == H5_TYPES_SHARED) return t;
    h5_types[h5_ntypes].t = t;
    h5_types[h5_ntypes++].refs = 1;
    *shared = 1;
    return t;
}

static void h5_type_release(hid_t t, int shared)
{
    if (t < 0) return;
    for (int i = 0; shared && i < h5_ntypes; i++)
        if (h5_types[i].t == t) {
            if (--h5_types[i].refs) return;
            h5_types[i] = h5_types[--h5_ntypes];
            break;
        }
    H5Tclose(t);
}

static void h5_dentry_free(h5_dentry *e)
{
    h5_type_release(e->type, e->type_shared);
    h5_text_clear(&e->never);
    h5_text_clear(&e->why);
    colldiag_layout_free(e->l);
    cd_free(e->pipe);
    cd_free(e);
}

/* The file's MPI communicator as HDF5 holds it, duplicated (collective: H5Fget_access_plist duplicates it),
   and whether its metadata reads are local (*md_local = 1) or collective (H5Pset_all_coll_metadata_ops).
   Three MPI_Comm_dup in all (H5Fget_access_plist copies the driver's settings twice, H5Pget_fapl_mpio
   once more): the slow way, for a file whose ranks are not all of MPI_COMM_WORLD's (h5_file_comm). */
static MPI_Comm h5_file_comm_from_fapl(hid_t obj, int *md_local)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    hid_t file = H5Iget_file_id(obj), fapl = file >= 0 ? H5Fget_access_plist(file) : -1;
    hbool_t coll_md = 1;
    *md_local = fapl >= 0 && H5Pget_all_coll_metadata_ops(fapl, &coll_md) >= 0 && !coll_md;
    if (fapl < 0 || H5Pget_fapl_mpio(fapl, &c, &info) < 0) c = MPI_COMM_NULL;
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    if (fapl >= 0) H5Pclose(fapl);
    if (file >= 0) H5Fclose(file);
    return c;
}

/* Whether the program's access list asked for local metadata reads in obj's file, as seen when the
   program opened it (1 local, 0 collective), or -1 not seen (the file was not opened in view). */
static int h5_alloc_md_seen(hid_t obj);

/* Communicators kept for the next file over the same ranks. A program that opens file after file on the
   same communicator (IOR: a file an iteration and direction; h5py scripts) paid a context-id agreement
   for each file's communicator, and the split, gathers and reductions that learn its nodes (file_nodes)
   at its first accelerated call: 1-2 ms a file with 3 ranks on 2 cores (PMPI timings of IOR). A kept
   communicator is lent to one open file at a time (two files open at once never share one: a program
   whose ranks call them in different orders would match one file's reductions with the other's), with
   what the files before learnt of its ranks' nodes and collective costs (every value alike on every
   rank, or this rank's part of an agreed state: as if the earlier file went on).
   Alike on every rank of the group, so that a rank never finds one its peers must make: an entry is
   kept only when every rank of the group has room (agreed in the file's first reduction), a lent
   entry comes back only when its file is forgotten (H5Fclose and H5close, collective), entries are
   never dropped, and a rank looks among its entries in the order they were made, which for one group's
   entries is the order of the group's collective calls. At most CD_H5_KEEP_COMMS; past that, files make
   and free their own as before. Freed by MPI_Finalize. */
#define CD_H5_KEEP_COMMS 8
typedef struct {
    MPI_Group group;
    MPI_Comm comm;
    int lent;
    uint64_t group_id;
    int node_n, nodes, node_idx, probe_due; /* what the files lent it learnt (colldiag_file's fields) */
    int *node_ranks;
    double bw_x, lat_x;
} h5_kept_comm;
static h5_kept_comm h5_kept[CD_H5_KEEP_COMMS];
static int h5_n_kept;

/* A kept communicator of group g not lent to a file, lent now to f (its learnt state copied in), or
   MPI_COMM_NULL. Local. */
static MPI_Comm h5_kept_lend(MPI_Group g, colldiag_file *f)
{
    for (int i = 0; i < h5_n_kept; i++) {
        h5_kept_comm *k = &h5_kept[i];
        int cmp = MPI_UNEQUAL;
        if (k->lent || MPI_Group_compare(g, k->group, &cmp) != MPI_SUCCESS || cmp != MPI_IDENT) continue;
        /* lent whatever happens (its peers lend theirs): without memory for the node's ranks, this rank
           says its node is not known (node_n -1, as file_nodes after a failure; nodes stays agreed) */
        int *nr = k->node_n > 0 ? cd_malloc((size_t)k->node_n * sizeof *nr) : NULL;
        if (nr) memcpy(nr, k->node_ranks, (size_t)k->node_n * sizeof *nr);
        k->lent = 1;
        f->node_ranks = nr;
        f->node_n = k->node_n > 0 && !nr ? -1 : k->node_n;
        f->nodes = k->nodes;
        f->node_idx = k->node_idx;
        f->probe_due = k->probe_due;
        f->bw_x = k->bw_x;
        f->lat_x = k->lat_x;
        f->group = k->group_id;
        f->comm_kept = i + 1;
        return k->comm;
    }
    return MPI_COMM_NULL;
}

/* f's communicator, made for it, kept for the files after it with its group g (every rank of the group
   agreed there is room: h5_bridge_file). */
static void h5_kept_add(colldiag_file *f, MPI_Group g)
{
    h5_kept_comm *k = &h5_kept[h5_n_kept];
    memset(k, 0, sizeof *k);
    k->group = g;
    k->comm = f->comm;
    k->lent = 1;
    f->comm_kept = ++h5_n_kept;
}

/* f's file is forgotten: its kept communicator goes back, with what f learnt of it. 1 if it was kept
   (then the caller does not free it). */
static int h5_kept_return(colldiag_file *f)
{
    if (!f->comm_kept) return 0;
    h5_kept_comm *k = &h5_kept[f->comm_kept - 1];
    cd_free(k->node_ranks);
    k->node_ranks = f->node_ranks; /* moved: f's own goes with it */
    f->node_ranks = NULL;
    k->node_n = f->node_n;
    k->nodes = f->nodes;
    k->node_idx = f->node_idx;
    k->probe_due = f->probe_due;
    k->bw_x = f->bw_x;
    k->lat_x = f->lat_x;
    k->group_id = f->group;
    k->lent = 0;
    f->comm_kept = 0;
    return 1;
}

/* A communicator of the ranks of the MPI_File HDF5 opened for obj's file, in its order, and whether the
   program's access list asked for local metadata reads when the preload saw it open the file (*md_seen:
   1 local, 0 collective, -1 not seen: h5_bridge_file agrees on asking HDF5 then). Collective over those
   ranks, on the same route on every one of them (decided by the group, which is theirs alike, and the
   kept communicators, alike on them too): a kept one when there is one free (h5_kept_lend: nothing to
   make), else one made from MPI_COMM_WORLD, a duplicate when the group is the world's, else
   MPI_Comm_create_group, which only the group's ranks call. Asking HDF5 for its communicator costs three
   duplicates instead (h5_file_comm_from_fapl), each a context-id agreement among the ranks: 5-20 ms in
   all on the first call of BD-CATS-IO's read with 3 ranks on 2 cores (PMPI timings), where HDF5's own
   call pays none. That slow way stays for ranks that are not all in MPI_COMM_WORLD (processes spawned
   later). *made: 1 when the communicator was made for this file (it may be kept: h5_bridge_file).
   MPI_COMM_NULL when a step fails (an MPI failure is every rank's: MPI_ERRORS_RETURN or abort). */
static MPI_Comm h5_file_comm(hid_t obj, colldiag_file *f, int *md_seen, int *made)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Group g = MPI_GROUP_NULL, w = MPI_GROUP_NULL, in = MPI_GROUP_NULL;
    void *vh = NULL;
    hid_t file = H5Iget_file_id(obj);
    const int ok = file >= 0 && H5Fget_vfd_handle(file, H5P_DEFAULT, &vh) >= 0 && vh;
    if (file >= 0) H5Fclose(file);
    *md_seen = h5_alloc_md_seen(obj);
    *made = 0;
    if (!ok || MPI_File_get_group(*(MPI_File *)vh, &g) != MPI_SUCCESS) {
        int md_local = 0;
        c = h5_file_comm_from_fapl(obj, &md_local);
        *md_seen = md_local;
        return c;
    }
    if ((c = h5_kept_lend(g, f)) != MPI_COMM_NULL) {
        MPI_Group_free(&g);
        return c;
    }
    int n = 0, k = -1, cmp = MPI_UNEQUAL;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_size(g, &n);
    MPI_Group_compare(g, w, &cmp);
    if (cmp != MPI_IDENT && MPI_Group_intersection(g, w, &in) == MPI_SUCCESS) MPI_Group_size(in, &k);
    if (in != MPI_GROUP_NULL) MPI_Group_free(&in);
    MPI_Group_free(&w);
    int rc = MPI_SUCCESS;
    if (cmp == MPI_IDENT) rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
    else if (k == n) rc = MPI_Comm_create_group(MPI_COMM_WORLD, g, 0x6364 /* "cd" */, &c);
    else { /* not all in the world: alike on every rank of g */
        int md_local = 0;
        c = h5_file_comm_from_fapl(obj, &md_local);
        *md_seen = md_local;
    }
    MPI_Group_free(&g);
    *made = rc == MPI_SUCCESS && c != MPI_COMM_NULL;
    return rc == MPI_SUCCESS ? c : MPI_COMM_NULL;
}

/* 1 if the file is open for writing, 0 if read-only, -1 if HDF5 cannot say. Asked once a file. */
static int h5_file_writable(hid_t dset, h5_fentry *fe)
{
    if (fe->writable < 0) {
        hid_t file = H5Iget_file_id(dset);
        unsigned intent = 0;
        if (file >= 0 && H5Fget_intent(file, &intent) >= 0) fe->writable = (intent & H5F_ACC_RDWR) != 0;
        if (file >= 0) H5Fclose(file);
    }
    return fe->writable;
}

/* The bridge's file for dset's file, made on first use; local (h5_bridge_file gives it its
   communicator). */
static int h5_bridge_entry(hid_t dset, unsigned long fileno, h5_fentry **out, const char *fn)
{
    h5_fentry *e = h5_files;
    while (e && e->fileno != fileno) e = e->next;
    if (!e) {
        MPI_File fh;
        int rank, size, rc = h5_mpi_file(dset, &fh, &rank, &size, fn);
        if (rc) return rc;
        e = cd_calloc(1, sizeof *e);
        colldiag_file *f = cd_calloc(1, sizeof *f);
        if (!e || !f) { cd_free(e); cd_free(f); return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the bridge's file"); }
        f->comm = MPI_COMM_NULL;
        f->op = MPI_OP_NULL;
        f->rank = rank;
        f->size = size;
        f->driver = COLLDIAG_DRIVER_MPIO;
        f->fh = fh;
        f->own_fh = 0;
        f->fd = -1;
        f->ds_write = -1;
        f->bridge = 1;
        e->fileno = fileno;
        e->writable = -1;
        e->f = f;
        e->next = h5_files;
        h5_files = e;
    }
    *out = e;
    return 0;
}

/* Whether every one of the n datasets has contiguous storage (an address: H5Dget_offset). */
static int h5_all_contiguous(const hid_t *dsets, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        haddr_t a = HADDR_UNDEF;
        H5E_BEGIN_TRY { a = H5Dget_offset(dsets[i]); } H5E_END_TRY;
        if (a == HADDR_UNDEF) return 0;
    }
    return 1;
}

/* HDF5's own call is as fast on a file whose communicator is one rank, under COLLDIAG_ACCELERATE=1:
   MPI-IO's collective call on one rank is that rank's own I/O (ROMIO and ompio alike read and write it
   independently), so none of colldiag's gains applies, and learning the file costs a first call
   0.1-0.6 ms here (IOR -F, a file a rank: 0.66-0.78x HDF5's read rate before this rule). The engine's
   rule list decides (engine.c). Alike everywhere: one rank. Made safe only when every dataset of the
   call (dsets, n) is contiguous, the storage the preload can make safe before HDF5's collective write (h5_make_safe);
   a chunked write's bytes at risk are learnt in the agreement instead (one rank, ROMIO, a chunked
   dataset without a written fill: MPI-IO's collective write left its buffer's bytes in the holes). */
static int h5_one_rank_as_fast(const h5_fentry *fe, const colldiag_xfer *x, int dir, int collective, const hid_t *dsets, size_t n)
{
    if (fe->f->size != 1 || !x->accel) return 0;
    const int contiguous = dir == DIR_WRITE && collective ? h5_all_contiguous(dsets, n) : 1;
    /* a collective write's bytes at risk are not known here; the preload makes HDF5's path safe first */
    const cd_engine_facts ef = {.all = x->accel == 2, .risk = dir == DIR_WRITE && collective ? -1 : 0, .can_make_safe = contiguous, .one_rank = 1,
                                .whole_chunks = -1, .many_stretches = -1};
    return engine_of(engine_rule(&ef)) == CD_ENGINE_HDF5;
}

#define h5_one_rank_why (cd_rule_why[CD_RULE_ONE_RANK])

/* h5_bridge_entry's file, with the file's communicator for a collective call: every rank of a
   collective call asks here whether it has one, and ranks that do not (all of them, or none: a
   communicator is only ever made in a collective call, and forgotten in colldiag_h5_forget, which is
   collective for files) make it together. */
static int h5_bridge_file(hid_t dset, unsigned long fileno, int collective, h5_fentry **out, const char *fn)
{
    h5_fentry *e = NULL;
    const int rc = h5_bridge_entry(dset, fileno, &e, fn);
    if (rc) return rc;
    if (collective && e->f->comm == MPI_COMM_NULL) {
        int md_seen = -1, made = 0;
        e->f->comm = h5_file_comm(dset, e->f, &md_seen, &made);
        if (e->f->comm == MPI_COMM_NULL) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot get the file's communicator");
        MPI_Op_create(cd_agree_fn, 1, &e->f->op);
        if (made) e->f->group = comm_group_id(e->f->comm); /* AUTO's measurements are the group's (measure.c) */
        {
            char name[4096] = "";
            hid_t file = H5Iget_file_id(dset);
            if (file >= 0 && H5Fget_name(file, name, sizeof name) > 0) e->f->fs_type = path_fs_type(name);
            if (file >= 0) H5Fclose(file);
        }
        /* whether the file is read-only everywhere, agreed once (every rank makes comm in the same call):
           the no-agreement shortcut may then decide on it (h5_small_first_call); a rank's own intent
           alone would split the ranks of a program that opened the file with other flags on some */
        /* ... and in the same reduction, whether every rank saw the program's access list (md_seen): if
           one did not, every rank asks HDF5's copy of it (collective: it duplicates the communicator) */
        /* ... and whether every rank has room to keep a communicator it made (h5_kept_add) */
        MPI_Group kg = MPI_GROUP_NULL;
        const int room = made && h5_n_kept < CD_H5_KEEP_COMMS && MPI_Comm_group(e->f->comm, &kg) == MPI_SUCCESS;
        int mine[3] = {h5_file_writable(dset, e) != 0, md_seen < 0, !room}, all[3] = {1, 1, 1};
        MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, e->f->comm);
        e->read_only_all = !all[0];
        if (room && !all[2]) h5_kept_add(e->f, kg);
        else if (kg != MPI_GROUP_NULL) MPI_Group_free(&kg);
        if (all[1]) {
            MPI_Comm d = h5_file_comm_from_fapl(dset, &e->md_local);
            if (d != MPI_COMM_NULL) MPI_Comm_free(&d);
        } else
            e->md_local = md_seen;
        h5_note_file_md(h5_fileno_of(dset), e->md_local == 0); /* a collective call: every rank learns it here */
    }
    *out = e;
    return 0;
}

/* The bridge's communicator for dset's file, its agreement's reduction and whether its metadata reads are
   local, lent to a plan (h5_plan_file, under h5_plan_lends). Collective the first time a file (as
   h5_bridge_file is in a collective call). */
static int h5_bridge_comm(hid_t dset, MPI_Comm *comm, MPI_Op *op, int *md_local, const char *fn)
{
    h5_oid oi;
    h5_fentry *fe = NULL;
    if (h5_identify(dset, &oi)) return cd_fail(COLLDIAG_ERR_ARG, fn, "cannot identify the dataset");
    const int rc = h5_bridge_file(dset, oi.fileno, 1, &fe, fn);
    if (rc) return rc;
    *comm = fe->f->comm;
    *op = fe->f->op;
    *md_local = fe->md_local;
    return 0;
}

/* COLLDIAG_ACCELERATE: HDF5's own collective write made safe before it runs (engine.c). HDF5 allocates
   contiguous storage at its end of allocation when it creates the dataset, and extends the file only at
   its next flush, so the storage lies past the end of the file, where MPI-IO's collective write fills
   the holes between the ranks' pieces with whatever its buffer held (tests/h5_defects.c, every stack).
   With the file extended to the storage's end first, those holes read zeros, as after a flush. (HDF5's
   end of allocation would cover every dataset at once, but H5Fget_eoa refuses the MPI-IO driver and
   H5Fget_filesize answers its end of file; chunked storage gets its fill written at allocation unless
   told otherwise, and colldiag moves the chunked writes whose bytes are at risk itself.) Collective over
   the file's communicator, as the write is: nothing when the file is agreed to be that long already
   (covered_to, alike on every rank, as the storage's address and size are), else one MPI_Allreduce of
   the ranks' sizes (the file never shrinks here) and MPI_File_set_size when it must grow; on a file of
   one rank, its size alone. *from, *to: the size before and after (equal when nothing grew). 0, or -1
   when the dataset is not contiguous or a step failed (its HDF5 call then runs as without the preload). */
#if H5_VERSION_GE(1, 14, 0)
static int h5_chunk_end_cb(const hsize_t *offset, unsigned filter_mask, haddr_t addr, hsize_t size, void *op_data)
{
    (void)offset;
    (void)filter_mask;
    uint64_t *end = op_data;
    if (addr != HADDR_UNDEF && size && (uint64_t)addr + size > *end) *end = (uint64_t)addr + size;
    return H5_ITER_CONT;
}
#endif

/* The end of a chunked dataset's storage when its chunks have no written fill and may lie past the end of
   the file (h5_alloc_inside), else 0. HDF5 1.12 and later only, and there only where colldiag may not
   read the index after a flush (a writable file whose metadata reads are collective: h5_flush_unsafe):
   H5Dchunk_iter walks the whole index once (every rank alike, in the same order: a collective metadata
   read on one rank meets the others'). HDF5 1.10 has no H5Dchunk_iter, and there the accelerated path
   flushes and moves such a write itself. O(chunks) once a dataset until the file is flushed. */
static uint64_t h5_chunked_end(hid_t dset)
{
#if H5_VERSION_GE(1, 14, 0)
    if (!h5_reads_need_all_ranks(dset) || h5_alloc_inside(dset)) return 0;
    hid_t dcpl = H5Dget_create_plist(dset);
    const int risky = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_nfilters(dcpl) == 0 && h5_fill_unwritten(dcpl, H5D_CHUNKED);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (!risky) return 0;
    hsize_t ub = 0;
    hid_t file = H5Iget_file_id(dset), fcpl = file >= 0 ? H5Fget_create_plist(file) : -1;
    if (fcpl < 0 || H5Pget_userblock(fcpl, &ub) < 0) ub = 0;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (file >= 0) H5Fclose(file);
    uint64_t end = 0;
    if (H5Dchunk_iter(dset, H5P_DEFAULT, h5_chunk_end_cb, &end) < 0) return 0;
    return end ? end + h5_chunk_info_base(ub) : 0;
#else
    (void)dset;
    return 0;
#endif
}

/* 1 when a selection of the file space fs (H5S_ALL: the dataset's) is one run of consecutive elements
   in the dataset's row-major order: a block whose dimensions after the first one wider than 1 span the
   dataset whole. Local: the selection is this rank's. */
static int h5_one_run(hid_t dset, hid_t fs)
{
    if (fs == H5S_ALL) return 1;
    const H5S_sel_type t = H5Sget_select_type(fs);
    if (t == H5S_SEL_ALL || t == H5S_SEL_NONE) return 1;
    /* a regular hyperslab (count blocks of 1 is how most programs select a box): a box when each
       dimension's blocks touch (one block, or stride == block) */
    if (t != H5S_SEL_HYPERSLABS || H5Sis_regular_hyperslab(fs) <= 0) return 0;
    const int nd = H5Sget_simple_extent_ndims(fs);
    hsize_t dims[H5S_MAX_RANK], st[H5S_MAX_RANK], sd[H5S_MAX_RANK], ct[H5S_MAX_RANK], bk[H5S_MAX_RANK];
    /* the extent only where a dimension after the first can be wide (one API call fewer a 1-D call) */
    if (nd <= 0 || nd > H5S_MAX_RANK || (nd > 1 && H5Sget_simple_extent_dims(fs, dims, NULL) < 0) || H5Sget_regular_hyperslab(fs, st, sd, ct, bk) < 0) return 0;
    (void)dset;
    int wide = 0; /* past the first dimension wider than 1, every dimension spans the dataset */
    for (int i = 0; i < nd; i++) {
        if (ct[i] > 1 && sd[i] != bk[i]) return 0; /* gaps between its blocks */
        const hsize_t w = ct[i] * bk[i];
        if (wide && (st[i] != 0 || w != dims[i])) return 0;
        if (w > 1) wide = 1;
    }
    return 1;
}

/* Whether dset's file is opened on one rank (its MPI_File's group), without the bridge's file: local.
   Kept in the dataset's entry when it has one (a file's communicator never changes while it is open,
   and the entry goes when the file closes): asking HDF5 for the MPI_File and MPI for its group was a
   sixth of what the preload added to a 1 MiB write of a file a rank (perf, IOR -F's shape). */
static h5_dentry *h5_dataset(hid_t dset, const h5_oid *oi);
static int h5_one_rank_file(hid_t dset)
{
    h5_dentry *e = h5_cached_entry(dset);
    h5_oid oi;
    if (!e && !h5_reads_need_all_ranks(dset) && h5_object_id(dset, &oi) >= 0) e = h5_dataset(dset, &oi); /* identified once, by id after */
    if (e && e->file_ranks) return e->file_ranks == 2;
    MPI_File fh;
    int rank = 0, size = 0;
    const int mpio = h5_mpi_file(dset, &fh, &rank, &size, "colldiag_h5_make_safe") == 0, one = mpio && size == 1;
    if (e) e->file_ranks = !mpio ? 3 : one ? 2 : 1; /* a file's driver and communicator stay while it is open */
    return one;
}

/* How many open datasets h5_open_contig_end looks at: past it, a write covers its own storage only. */
#define CD_H5_OPEN_SCAN 4096

/* The end of the storage of the contiguous datasets open in dset's file, as this rank sees them, or 0.
   Parallel HDF5 allocates a contiguous dataset's storage when it creates it, so every such end lies
   inside HDF5's end of allocation, the size HDF5 gives the file at its next flush or close anyway
   (H5FD_mpio's truncate sets the size to that end whenever it has moved): extending the file that far
   now changes no byte of the file HDF5 leaves. A dataset unlinked while open keeps its storage until
   it is closed. Local; O(open datasets), once a write finds its storage past what the file covers. */
static uint64_t h5_open_contig_end(hid_t dset)
{
    const hid_t file = H5Iget_file_id(dset);
    if (file < 0) return 0;
    uint64_t end = 0;
    const ssize_t n = H5Fget_obj_count(file, H5F_OBJ_DATASET);
    hid_t *ids = n > 0 && n <= CD_H5_OPEN_SCAN ? cd_malloc((size_t)n * sizeof *ids) : NULL;
    const ssize_t m = ids ? H5Fget_obj_ids(file, H5F_OBJ_DATASET, (size_t)n, ids) : 0;
    for (ssize_t i = 0; i < m; i++) {
        const haddr_t a = H5Dget_offset(ids[i]);
        if (a == HADDR_UNDEF) continue; /* chunked, compact, external, virtual: none of it is covered here */
        const uint64_t e = (uint64_t)a + H5Dget_storage_size(ids[i]);
        if (e > end) end = e;
    }
    cd_free(ids);
    H5Fclose(file);
    return end;
}

/* fs: the call's file selection on this rank, or H5I_INVALID_HID when not known (colldiag_h5_make_safe).
   wide: the preload's, which may extend the file over the storage of every contiguous dataset open in it
   (h5_open_contig_end), so that one extension serves a time step's datasets: VPIC-IO creates eight a
   step and writes each once, and each write paid a size asked, a reduction and MPI_File_set_size
   (ROMIO: 0.93x HDF5's rate in VPIC-IO's 2-D and 3-D writes). The extent is agreed in the reduction
   the step makes anyway (the largest any rank sees), so every rank sets the same size and remembers
   the same coverage. colldiag_h5_make_safe extends over its dataset only, as it says. */
static int h5_make_safe(hid_t dset, hid_t fs, int wide, uint64_t *from, uint64_t *to)
{
    static const char fn[] = "colldiag_h5_make_safe";
    *from = *to = 0;
    uint64_t csize = 0;
    const haddr_t a = h5_contig_storage(dset, &csize);
    const int chunked = a == HADDR_UNDEF;
    /* contiguous storage's end; chunks' where they may be at risk (h5_chunked_end): alike on every rank */
    const uint64_t end = !chunked ? (uint64_t)a + csize : h5_chunked_end(dset);
    if (!end) return -1; /* no storage at risk colldiag can cover */
    /* A file of one rank written in one run: MPI-IO's collective write has no hole between pieces to
       fill, so nothing is at risk and nothing is extended. Extending cost ROMIO's writes after it:
       IOR -F (a file a rank, 1 MiB transfers) wrote at 0.6-0.7x HDF5's rate made safe, 1.0x without.
       Decided before the bridge's file is made, from the MPI_File's group (local): making it (a
       communicator duplicate, the node split) cost each file of IOR -F 1 ms on this oversubscribed
       machine, a third of a 8 MiB write (0.70x HDF5's rate), for nothing. */
    if (!chunked && fs != H5I_INVALID_HID && h5_one_rank_file(dset) && h5_one_run(dset, fs)) return 0;
    h5_oid oi;
    h5_fentry *fe = NULL;
    if (h5_identify(dset, &oi) || h5_bridge_file(dset, oi.fileno, 1, &fe, fn)) return -1;
    colldiag_file *f = fe->f;
    if (end <= f->covered_to) return 0;
    MPI_Offset sz = 0;
    if (MPI_File_get_size(f->fh, &sz) != MPI_SUCCESS || sz < 0) sz = 0;
    const uint64_t open_end = wide && !chunked ? h5_open_contig_end(dset) : 0;
    uint64_t mine[2] = {(uint64_t)sz, open_end > end ? open_end : end}, most[2] = {mine[0], mine[1]}; /* the size; the extent */
    if (f->size > 1 && MPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, f->comm) != MPI_SUCCESS) return -1;
    *from = *to = most[0];
    if (most[1] > most[0]) {
        if (MPI_File_set_size(f->fh, (MPI_Offset)most[1]) != MPI_SUCCESS) return -1;
        *to = most[1];
    }
    if (*to > f->covered_to) f->covered_to = *to;
    if (chunked) h5_alloc_covered(dset); /* its chunks are inside the file now */
    return 0;
}

/* colldiag_h5_make_safe, knowing the call's file selection fs (the preload's; H5I_INVALID_HID: not known);
   wide: over every open contiguous dataset's storage (the preload's, h5_make_safe). */
CD_MAYBE_UNUSED static int h5_make_safe_for(hid_t dset, hid_t fs, int wide, uint64_t *size_before, uint64_t *size_after)
{
    uint64_t from = 0, to = 0;
    int rc;
    if (size_before) *size_before = 0;
    if (size_after) *size_after = 0;
    /* h5_make_safe's first case, where the dataset's entry knows its storage and file: decided before
       HDF5's error handler is set aside (four API calls, ~1,000 instructions of a 1 MiB write of IOR -F's
       otherwise), since these queries cannot fail (fs checked to be a dataspace first: H5Iget_type
       reports no error) */
    const h5_dentry *e = fs != H5I_INVALID_HID ? h5_cached_entry(dset) : NULL;
    if (e && e->contig_known && e->file_ranks == 2 && (fs == H5S_ALL || H5Iget_type(fs) == H5I_DATASPACE) && h5_one_run(dset, fs)) return 0;
    cd_env_enter();
    H5E_BEGIN_TRY { rc = h5_make_safe(dset, fs, wide, &from, &to); } H5E_END_TRY;
    cd_env_leave();
    if (size_before) *size_before = from;
    if (size_after) *size_after = to;
    return rc;
}

int colldiag_h5_make_safe(hid_t dset, uint64_t *size_before, uint64_t *size_after)
{
    const int rc = h5_make_safe_for(dset, H5I_INVALID_HID, 0, size_before, size_after);
    return rc ? cd_fail(COLLDIAG_ERR_UNSUPPORTED, "colldiag_h5_make_safe", "not a contiguous dataset of an MPI-IO file, or the file's size "
                                                                          "cannot be read, or the file cannot grow") : 0;
}

/* Whether a type holds variable-length data anywhere, or cannot be told (1). H5Tdetect_class finds
   a VLEN nested anywhere, but through the API it counts a variable-length string as a string, not a
   VLEN, and H5Tis_variable_str answers only for the type itself: so strings are looked for member by
   member. A fixed-length string is raw bytes like any other member (the memory type must equal the
   dataset's, so HDF5 converts nothing: h5_ineligible). */
static int h5_type_variable(hid_t t)
{
    if (H5Tdetect_class(t, H5T_VLEN) != 0) return 1; /* < 0: cannot tell */
    const htri_t has_string = H5Tdetect_class(t, H5T_STRING);
    if (has_string <= 0) return has_string < 0;
    int v = 0;
    switch (H5Tget_class(t)) {
    case H5T_STRING: v = H5Tis_variable_str(t) != 0; break;
    case H5T_ARRAY: {
        hid_t b = H5Tget_super(t);
        v = b < 0 || h5_type_variable(b);
        if (b >= 0) H5Tclose(b);
        break;
    }
    case H5T_COMPOUND: {
        const int n = H5Tget_nmembers(t);
        v = n < 0;
        for (int i = 0; !v && i < n; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            v = m < 0 || h5_type_variable(m);
            if (m >= 0) H5Tclose(m);
        }
        break;
    }
    default: v = 1; /* a string elsewhere: a class this walk does not know */
    }
    return v;
}

/* Filtered chunks colldiag can read: every filter one it undoes (deflate with zlib in the process,
   shuffle, Fletcher-32), and chunks never written read as zeros, as HDF5 reads them (the fill value
   is the default or a user's all-zero one, written at allocation). Then e->pipe holds the pipeline;
   otherwise why says what stops it. Local, a fact of the dataset: alike on every rank. */
static int h5_filtered_readable(hid_t dcpl, h5_dentry *e, char *why, size_t wl)
{
    const size_t es = H5Tget_size(e->type);
    h5_pipeline *p = es ? cd_calloc(1, sizeof *p + es) : NULL;
    if (!p) return snprintf(why, wl, "no memory for the filter pipeline, or a type of no size"), 0;
    int ok = !h5_pipeline_of(dcpl, p, why, wl);
    for (int i = 0; ok && i < p->n; i++)
        if (p->id[i] == H5Z_FILTER_DEFLATE && !h5_have_inflate())
            ok = 0, snprintf(why, wl, "deflated chunks, and no zlib in this process (or colldiag built without zlib.h)");
    H5D_fill_value_t fv = H5D_FILL_VALUE_ERROR;
    H5D_fill_time_t ft = H5D_FILL_TIME_ERROR;
    if (ok && (H5Pfill_value_defined(dcpl, &fv) < 0 || H5Pget_fill_time(dcpl, &ft) < 0))
        ok = 0, snprintf(why, wl, "HDF5 cannot say the dataset's fill value");
    if (ok && (fv == H5D_FILL_VALUE_UNDEFINED || ft == H5D_FILL_TIME_NEVER))
        ok = 0, snprintf(why, wl, "the fill value is undefined or never written: unwritten chunks read as HDF5 leaves them");
    /* a user's fill value (netCDF-4 sets one for every variable) in the dataset's own type: what HDF5
       reads where no chunk was written */
    if (ok && fv == H5D_FILL_VALUE_USER_DEFINED) {
        if (H5Pget_fill_value(dcpl, e->type, p->fill) < 0) ok = 0, snprintf(why, wl, "HDF5 cannot give the fill value");
        for (size_t b = 0; ok && b < es; b++) p->fill_set |= p->fill[b] != 0;
    }
    if (!ok) {
        cd_free(p);
        return 0;
    }
    e->pipe = p;
    return 1;
}

/* The layout's decoder (cd_unfilter_fn) over a dataset entry's pipeline. */
static int h5_unfilter_cb(const void *ctx, uint32_t mask, const unsigned char *stored, size_t n, unsigned char *out, unsigned char *tmp,
                          size_t want, char *why, size_t wl)
{
    return h5_unfilter(ctx, mask, stored, n, out, tmp, want, why, wl) ? -1 : 0;
}

/* The dataspace of a dataset the program is creating, while the preload tells the bridge of it
   (h5_created): the program's own id, whose extent the new dataset copied, read in place of
   H5Dget_space's copy. Why: each id HDF5 hands out is a block of its free lists (H5FL) that HDF5 keeps
   for the rest of the run; one more id alive at once is one more block malloc'ed, wherever glibc has
   room, often just above the large blocks an open file holds, where it then keeps the heap from
   shrinking (docs/hdf5.md, "A warm heap"). Asking HDF5 for no id it need not hand out leaves its heap
   as the program alone would. */
static hid_t h5_known_space = H5I_INVALID_HID;

static hid_t h5_space_get(hid_t dset) { return h5_known_space >= 0 ? h5_known_space : H5Dget_space(dset); }
static void h5_space_put(hid_t sp)
{
    if (sp >= 0 && sp != h5_known_space) H5Sclose(sp);
}

/* What never changes about a dataset while its file is open: storage class, filters, the type's
   classes (e->type is read when the entry is made), from its creation property list dcpl. Local. */
static void h5_facts_of(hid_t dset, hid_t dcpl, h5_dentry *e)
{
    char fwhy[200] = "";
    hid_t space = h5_space_get(dset);
    H5D_layout_t lay = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    const char *no = NULL;
    if (dcpl < 0 || space < 0 || e->type < 0) no = "cannot read the dataset's creation properties, dataspace or type";
    else if (H5Sget_simple_extent_type(space) == H5S_NULL) no = "the dataset has a null dataspace";
    else if (lay == H5D_COMPACT) no = "a compact dataset (its data lives in the object header, which HDF5 caches)";
    else if (lay == H5D_VIRTUAL) no = "a virtual dataset";
    else if (lay != H5D_CONTIGUOUS && lay != H5D_CHUNKED) no = "an unknown storage layout";
    else if (H5Pget_external_count(dcpl) > 0) no = "external storage (H5Pset_external)";
    else if (lay == H5D_CHUNKED && H5Pget_nfilters(dcpl) > 0 && !e->pipe && !h5_filtered_readable(dcpl, e, fwhy, sizeof fwhy))
        no = "filtered chunks colldiag cannot read"; /* completed with fwhy below */
    else if (h5_type_variable(e->type)) no = "variable-length elements (their bytes in the file point into HDF5's heap)";
    else if (H5Tdetect_class(e->type, H5T_REFERENCE) > 0) no = "references (HDF5 encodes them)";
    if (no) h5_text_set(&e->never, "%s%s%s", no, fwhy[0] ? ": " : "", fwhy);
    e->never_fact = no && dcpl >= 0 && space >= 0 && e->type >= 0;
    e->chunked = lay == H5D_CHUNKED;
    e->layout = (int)lay;
    e->filtered = lay == H5D_CHUNKED && H5Pget_nfilters(dcpl) > 0;
    e->external = lay == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) > 0;
    e->fill_unwritten = h5_fill_unwritten(dcpl, lay);
    const int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    /* the chunk dims of a dataset colldiag never moves too: a plan needs them (h5_plan_layout_learned) */
    const int cd_ok = e->chunked && rank >= 1 && rank <= e->cap && H5Pget_chunk(dcpl, rank, e->cdims) == rank;
    if (e->chunked && !no && !cd_ok) h5_text_set(&e->never, "cannot read the chunk dims");
    h5_space_put(space);
    e->learned = 1;
}

/* The same from HDF5's copy of the list. Read at the first call that needs them, not at every
   dataset's first call: H5Dget_create_plist copies the whole list (3-10 us in a loop here, ~30 us right
   after creating a dataset of 16k chunks, with the caches cold: most of what learning a dataset
   costs), and a small first call that the shortcut leaves to HDF5 (h5_small_first_call) needs none of
   it. A dataset the program created under the preload was learned from the program's own list
   (colldiag_h5_created), with no copy. */
static void h5_dataset_facts(hid_t dset, h5_dentry *e)
{
    hid_t dcpl = H5Dget_create_plist(dset);
    h5_facts_of(dset, dcpl, e);
    if (dcpl >= 0) H5Pclose(dcpl);
}

static void h5_learn(hid_t dset, h5_dentry *e)
{
    if (!e->learned) h5_dataset_facts(dset, e);
}

/* The dataset's cache entry (made on its first call: its identity and type; h5_learn reads the rest). */
static h5_dentry *h5_dataset(hid_t dset, const h5_oid *oi)
{
    h5_dentry *e = h5_hash_cap ? h5_hash_addr[h5_slot_addr(oi->fileno, oi->addr)] : NULL;
    while (e && !(e->fileno == oi->fileno && e->addr == oi->addr)) e = e->next_addr;
    if (e) {
        if (e->id != dset) { /* another id for the same dataset (opened again) */
            if (h5_memo.e == e) h5_memo.e = NULL;
            h5_unlink_id(e);
            e->id = dset;
            h5_link_id(e);
        }
        return e;
    }
    if (h5_index_room()) return NULL;
    /* the dataset's rank sizes the entry: it never changes (H5Dset_extent keeps it) */
    const hid_t sp = h5_space_get(dset);
    const int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    h5_space_put(sp);
    const int cap = nd < 1 || nd > COLLDIAG_MAX_RANK ? (nd == 0 ? 1 : COLLDIAG_MAX_RANK) : nd;
    e = cd_calloc(1, sizeof *e + 3 * (size_t)cap * sizeof e->dimv[0]);
    if (!e) return NULL;
    e->cap = cap;
    e->dims = e->dimv;
    e->u_dims = e->dimv + cap;
    e->cdims = e->dimv + 2 * cap;
    e->fileno = oi->fileno;
    e->addr = oi->addr;
    e->id = dset;
    e->rank = -1;
    e->type = h5_type_share(H5Dget_type(dset), &e->type_shared);
    e->next = h5_dsets;
    if (h5_dsets) h5_dsets->prev = e;
    h5_dsets = e;
    h5_ndsets++;
    h5_link(e);
    return e;
}

/* The cache entry of dset's id, asking HDF5 nothing that reads the file; NULL if none. */
static h5_dentry *h5_cached_entry(hid_t dset)
{
    if (h5_memo.e && h5_memo.id == dset && cd_env.depth && h5_memo.call == cd_env.call) return h5_memo.e;
    for (h5_dentry *e = h5_hash_cap ? h5_hash_id[h5_slot_id(dset)] : NULL; e; e = e->next_id)
        if (e->id == dset) {
            if (H5Iget_type(dset) != H5I_DATASET) return NULL;
            h5_memo.id = dset;
            h5_memo.e = e;
            h5_memo.call = cd_env.call;
            return e;
        }
    return NULL;
}

/* dset's allocated contiguous storage: its address (absolute, as H5Dget_offset gives it; HADDR_UNDEF for
   any other storage, or storage not allocated yet) and its bytes in *size (0 then). Kept in the
   dataset's entry once known: allocated contiguous storage never moves or changes size while the
   dataset exists (HDF5 extends only chunked datasets; the H5Dset_extent hook forgets it anyway,
   h5_contig_forget), and an entry goes when its dataset may have been deleted. The preload's rules ask
   it two or three times a call (safe_early, h5_make_safe, hdf5_runs_it). Local. */
static haddr_t h5_contig_storage(hid_t dset, uint64_t *size)
{
    h5_dentry *e = h5_cached_entry(dset);
    if (e && e->contig_known) {
        *size = e->contig_size;
        return e->contig_addr;
    }
    const haddr_t a = H5Dget_offset(dset);
    *size = a == HADDR_UNDEF ? 0 : (uint64_t)H5Dget_storage_size(dset);
    if (e && a != HADDR_UNDEF) {
        e->contig_known = 1;
        e->contig_addr = a;
        e->contig_size = *size;
    }
    return a;
}

/* The extent of dset changed (H5Dset_extent): what h5_contig_storage kept is asked again. */
CD_MAYBE_UNUSED static void h5_contig_forget(hid_t dset)
{
    h5_dentry *e = h5_cached_entry(dset);
    if (e) e->contig_known = 0;
}

/* The dataset's identity in oi (fileno and addr; nothing else is set), or -1 if dset is not an open
   object. Without asking HDF5 when dset is the id of the cached dataset's last call: HDF5 1.10 never
   gives an id value to a second object while the library is open (H5I's counter only grows), and an
   open object's header never moves, so an id that is still a dataset id names the object it named when
   it was cached. (H5Oget_info2 reads the object header through the metadata cache: 2-3 us a call in
   place, an eighth of a small call's whole overhead.) Across H5close, ids start again: the cache must be
   forgotten before (colldiag_h5_forget of every file, which closing the files needs anyway). */
static int h5_identify(hid_t dset, h5_oid *oi)
{
    const h5_dentry *e = h5_cached_entry(dset);
    if (e) {
        oi->fileno = e->fileno;
        oi->addr = e->addr;
        return 0;
    }
    return h5_object_id(dset, oi) < 0 ? -1 : 0;
}

/* Whether dset's file is open on one rank, as far as the bridge already knows it (its file entry, made
   at the file's first call through the bridge and dropped at H5Fclose): 1 or 0, or -1 when the bridge
   has no entry for the file yet. Local; asks HDF5 nothing but the dataset's identity. The preload's rules
   run before the bridge (hdf5_runs_it): a call that the one-rank rule gives to HDF5 then skips the
   bridge's whole path, which it only entered to be refused (IOR -F reads: every 1 MiB read of a file a
   rank went through the bridge to hear "one rank"). */
CD_MAYBE_UNUSED static int h5_file_one_rank_known(hid_t dset)
{
    if (!h5_files) return -1;
    h5_oid oi;
    const h5_dentry *e = h5_cached_entry(dset);
    if (e) {
        oi.fileno = e->fileno;
        oi.addr = e->addr;
    } else if (h5_reads_need_all_ranks(dset) || h5_object_id(dset, &oi) < 0) /* identified where every rank does */
        return -1;
    for (const h5_fentry *fe = h5_files; fe; fe = fe->next)
        if (fe->fileno == oi.fileno) {
            /* the dataset's entry, so that its next calls are identified by id (H5Oget_info2 reads the
               object header: a third of what a 1 MiB read from the page cache gained under the preload) */
            if (!e && fe->f->size == 1) h5_dataset(dset, &oi);
            return fe->f->size == 1;
        }
    return -1;
}

/* Whether dset's file is open on one rank, for the preload's rules (hdf5_runs_it): the bridge's entry
   where it has met the file, else the MPI_File's group (h5_one_rank_file: local, kept in the dataset's
   entry); 0 when neither tells (not an MPI-IO file). Until 2026-12-02 a file's first call went through
   the bridge to learn it: each file of IOR -F (a file a rank, reopened every iteration) then made a
   bridge entry at its first read only to be refused there, and the next H5Fopen ran slower on some rank
   (one in three iterations, 1-2 ms; cause inside HDF5 and MPI-IO not found): IOR -F reads at 0.84x
   HDF5's rate, 0.96x asked here (medians of 10 interleaved runs, 3 ranks). The caller keeps the file
   id h5_mpi_file opens and closes from the application's H5Fclose hook (cd_internal). */
CD_MAYBE_UNUSED static int h5_file_one_rank(hid_t dset)
{
    const int known = h5_file_one_rank_known(dset);
    return known >= 0 ? known : h5_one_rank_file(dset);
}

/* The dataset's current extent and maximum dims (a scalar is one element of a 1-D extent); -1 if unreadable. */
/* ---- storage HDF5 allocated since a file's last flush ----
   Parallel HDF5 allocates a dataset's storage when it creates or extends the dataset, at its end of
   allocation, and extends the file only at its next flush or close: until then that storage lies past
   the end of the file, where a collective write's holes get MPI-IO's buffer (decision.c, risk_local).
   A plan that cannot ask HDF5 where a dataset's chunks are (h5_plan_chunk_addrs: a file whose metadata
   reads are collective, as netCDF-4's) still knows they lie inside the file when the program opened or
   created the file in view (h5_alloc_watch) and has neither created nor extended the dataset since its
   last flush: netCDF-4 creates its variables, then flushes at nc_enddef, so its NC_NOFILL writes are
   not at risk until a variable grows along an unlimited dimension. The preload tells it every such call;
   each is collective in parallel HDF5, so every rank knows alike. Memory: the datasets created or grown
   since a file's last flush. */
typedef struct h5_alloc {
    unsigned long fileno;
    int md_local;                        /* the program's access list asked for local metadata reads (1) or not (0) */
    uint64_t size_seen;                  /* the largest size the run's summary saw the file have (sum_risk_possible) */
    size_t n;
    uint64_t cap;
    haddr_t *fresh;                      /* object addresses of datasets created or grown since the last flush */
    struct h5_alloc *next;
} h5_alloc;
static h5_alloc *h5_allocs;

static h5_alloc *h5_alloc_of(hid_t obj, int make)
{
    h5_oid oi;
    if (h5_object_id(obj, &oi) < 0) return NULL;
    h5_alloc *a = h5_allocs;
    while (a && a->fileno != oi.fileno) a = a->next;
    if (!a && make && (a = cd_calloc(1, sizeof *a))) {
        a->fileno = oi.fileno;
        a->next = h5_allocs;
        h5_allocs = a;
    }
    return a;
}

/* The program created or opened file with the access list fapl: its storage is inside it (a new file
   has none yet). */
static void h5_alloc_watch(hid_t file, hid_t fapl)
{
    h5_alloc *a = file >= 0 ? h5_alloc_of(file, 1) : NULL;
    hbool_t coll = 0;
    if (!a) return;
    a->n = 0;
    a->size_seen = 0;
    a->md_local = fapl == H5P_DEFAULT || (H5Pget_all_coll_metadata_ops(fapl, &coll) >= 0 && !coll);
}

static int h5_alloc_md_seen(hid_t obj)
{
    const h5_alloc *a = h5_allocs ? h5_alloc_of(obj, 0) : NULL;
    return a ? a->md_local : -1;
}

/* Whether the program opened obj's file with local metadata reads (1), or that is not known (0). */
static int h5_alloc_md_local(hid_t obj)
{
    const h5_alloc *a = h5_allocs ? h5_alloc_of(obj, 0) : NULL;
    return a ? a->md_local : 0;
}

/* dset was created or extended: its new storage may lie past the end until the file's next flush. A
   dataset that cannot be recorded (no memory) makes its file unwatched: not known, never "inside". */
static void h5_alloc_fresh_at(const h5_oid *oi)
{
    h5_alloc *a = h5_allocs;
    while (a && a->fileno != oi->fileno) a = a->next;
    if (!a) return;
    for (size_t i = 0; i < a->n; i++)
        if (a->fresh[i] == oi->addr) return;
    if (cd_grow((void **)&a->fresh, &a->cap, a->n + 1, sizeof *a->fresh)) {
        h5_alloc **pp = &h5_allocs;
        while (*pp != a) pp = &(*pp)->next;
        *pp = a->next;
        cd_free(a->fresh);
        cd_free(a);
        return;
    }
    a->fresh[a->n++] = oi->addr;
}

/* h5_alloc_fresh_at of dset, identified once (H5Oget_info reads the object header: ~550 instructions). */
static void h5_alloc_fresh(hid_t dset)
{
    h5_oid oi;
    if (dset >= 0 && h5_allocs && h5_identify(dset, &oi) == 0) h5_alloc_fresh_at(&oi);
}

/* The file of obj was flushed (H5Fflush extends it to HDF5's end of allocation): every storage is inside. */
static void h5_alloc_flushed(hid_t obj)
{
    h5_alloc *a = h5_allocs ? h5_alloc_of(obj, 0) : NULL;
    if (a) a->n = 0;
}

/* The file *fileno closes (NULL: every file, H5close). */
static void h5_alloc_forget(const unsigned long *fileno)
{
    for (h5_alloc **pp = &h5_allocs; *pp;) {
        h5_alloc *a = *pp;
        if (fileno && a->fileno != *fileno) { pp = &a->next; continue; }
        *pp = a->next;
        cd_free(a->fresh);
        cd_free(a);
    }
}

/* dset's storage now lies inside its file (colldiag extended the file over it: h5_make_safe). */
static void h5_alloc_covered(hid_t dset)
{
    h5_oid oi;
    h5_alloc *a = h5_allocs ? h5_alloc_of(dset, 0) : NULL;
    if (!a || h5_object_id(dset, &oi) < 0) return;
    for (size_t i = 0; i < a->n; i++)
        if (a->fresh[i] == oi.addr) { a->fresh[i] = a->fresh[--a->n]; return; }
}

/* 1 when the dataset oi's storage is known to lie inside its file (see above); 0 when not known. */
static int h5_alloc_inside_oi(const h5_oid *oi)
{
    const h5_alloc *a = h5_allocs;
    while (a && a->fileno != oi->fileno) a = a->next;
    if (!a) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->fresh[i] == oi->addr) return 0;
    return 1;
}

static int h5_alloc_inside(hid_t dset)
{
    h5_oid oi;
    return h5_allocs && h5_object_id(dset, &oi) >= 0 && h5_alloc_inside_oi(&oi);
}

static int h5_extent(hid_t dset, hsize_t *dims, hsize_t *maxd)
{
    _Static_assert(COLLDIAG_MAX_RANK >= H5S_MAX_RANK, "an HDF5 extent must fit in colldiag's arrays");
    hid_t sp = H5Dget_space(dset);
    int rank = sp >= 0 ? H5Sget_simple_extent_dims(sp, dims, maxd) : -1; /* the rank; 0 for a scalar */
    if (rank == 0) { rank = 1; dims[0] = maxd[0] = 1; }
    if (sp >= 0) H5Sclose(sp);
    return rank;
}

static int h5_extent_is(const h5_dentry *e, int rank, const hsize_t *dims)
{
    if (e->rank != rank || rank > e->cap) return 0;
    for (int d = 0; d < rank; d++)
        if (e->dims[d] != dims[d]) return 0;
    return 1;
}

/* The plan's layout on a file whose metadata reads need every rank (h5_reads_need_all_ranks), from what
   the bridge learned of the dataset (learning it here in a collective call, where every rank does the
   same), never from H5Dget_create_plist in an independent call; collective < 0: a collective call that
   must not learn either (a multi-dataset plan, whose ranks may stop at different datasets). 0, or a
   COLLDIAG_ERR_* with the reason. */
static int h5_plan_layout_learned(hid_t dset, int collective, colldiag_layout **out, const char *fn)
{
    *out = NULL;
    h5_dentry *e = h5_cached_entry(dset);
    if (!e || !e->learned) {
        if (collective < 0)
            return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "a dataset colldiag has not learned, in a file whose metadata reads are collective "
                                                         "(colldiag_h5_opened after H5Dopen2 learns it; the preload does)");
        if (!collective)
            return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "an independent call on a dataset colldiag has not learned, in a file whose metadata "
                                                         "reads are collective: HDF5 1.12+ would read its object header collectively, with "
                                                         "this rank alone (colldiag_h5_opened after H5Dopen2 learns it; the preload does)");
        h5_oid oi;
        if (h5_identify(dset, &oi) < 0 || !(e = h5_dataset(dset, &oi))) return cd_fail(COLLDIAG_ERR_ARG, fn, "dset is not an open dataset");
        h5_learn(dset, e);
    }
    hsize_t hd[COLLDIAG_MAX_RANK], mx[COLLDIAG_MAX_RANK];
    uint64_t dims[COLLDIAG_MAX_RANK], cdims[COLLDIAG_MAX_RANK];
    hid_t space = H5Dget_space(dset);
    const int null = space >= 0 && H5Sget_simple_extent_type(space) == H5S_NULL;
    if (space >= 0) H5Sclose(space);
    if (null) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset has a null dataspace");
    const int rank = h5_extent(dset, hd, mx);
    const size_t esize = e->type >= 0 ? H5Tget_size(e->type) : 0;
    if (rank < 1 || rank > COLLDIAG_MAX_RANK || esize == 0) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset's dataspace cannot be read");
    for (int d = 0; d < rank; d++) dims[d] = hd[d];
    if (e->layout == H5D_CONTIGUOUS && e->external)
        return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset is stored in external files (H5Pset_external): colldiag plans "
                                                     "only storage inside the HDF5 file");
    if (e->layout == H5D_CONTIGUOUS) {
        const haddr_t a = H5Dget_offset(dset);
        const int rc = colldiag_layout_contiguous(rank, dims, esize, a == HADDR_UNDEF ? 0 : (MPI_Offset)a, out);
        if (!rc) colldiag_layout_set_fill_written(*out, !e->fill_unwritten);
        return rc;
    }
    if (e->layout == H5D_COMPACT) return colldiag_layout_compact(rank, dims, esize, 0, out);
    if (e->layout == H5D_CHUNKED) {
        if (rank > e->cap) return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "cannot read the chunk dims");
        for (int d = 0; d < rank; d++) cdims[d] = e->cdims[d];
        int rc = colldiag_layout_chunked(rank, dims, cdims, esize, 0, out);
        if (!rc && e->filtered) colldiag_layout_set_filtered(*out, 1);
        if (!rc) colldiag_layout_set_fill_written(*out, !e->fill_unwritten);
        return rc;
    }
    return cd_fail(COLLDIAG_ERR_UNSUPPORTED, fn, "the dataset is virtual (or of an unknown layout): colldiag plans only "
                                                 "contiguous, chunked and compact datasets");
}

/* New storage may lie past the end of the file (HDF5 allocates it at its end of allocation and extends
   the file only at its next flush): the size write_extent saw no longer tells that a dataset's chunks
   are inside it. Every layout built (a dataset's first call, an extent changed) asks again. */
static void h5_file_size_unknown(unsigned long fileno)
{
    for (h5_fentry *fe = h5_files; fe; fe = fe->next)
        if (fe->fileno == fileno) fe->f->size_seen = 0;
}

/* Forgets a layout made for another extent: the addresses are found again for this one. */
static void h5_drop_layout(h5_dentry *e, int rank, const hsize_t *dims)
{
    h5_file_size_unknown(e->fileno);
    if (!h5_extent_is(e, rank, dims)) e->defers = 0;
    colldiag_layout_free(e->l);
    e->l = NULL;
    e->by_hdf5 = 0;
    h5_text_clear(&e->why);
    if (rank > e->cap) rank = -1; /* never: the dataset's rank is the entry's; as an extent unread, if it were */
    e->rank = rank;
    if (rank > 0) memcpy(e->dims, dims, (size_t)rank * sizeof *dims);
}

/* The extent of this collective call, in the view of the collective calls alone (e->u_*), which
   h5_small_first_call decides on: a rank's own layout and extent are not alike everywhere (one rank's
   independent call at an extent the dataset later leaves drops its layout there alone; test_h5accel
   part L: deciding on them, that rank left the call to HDF5 while the others waited in the
   agreement). */
static void h5_collective_extent(h5_dentry *e, int rank, const hsize_t *dims)
{
    if (rank > e->cap) rank = -1; /* never (as in h5_drop_layout) */
    int same = e->u_rank == rank;
    for (int d = 0; same && d < rank; d++) same = e->u_dims[d] == dims[d];
    if (same) return;
    e->u_rank = rank;
    if (rank > 0) memcpy(e->u_dims, dims, (size_t)rank * sizeof *dims);
    e->u_defers = 0;
    e->u_fetched = 0;
}

/* The identity of a lazy chunked layout in the agreement: which chunks it answers for (the dataset's
   object header and the userblock, file addresses alike on every rank, and the chunk grid), not how
   it finds them. A rank's independent calls may have left it the index read alone (a read-only file)
   while another's left it HDF5's lookup; both give the chunks' addresses, so a collective call on
   the two must agree (naming the way there made such a call fail with ERR_ARG on every rank). */
static uint64_t h5_chunks_ident(haddr_t oaddr, uint64_t ub, const colldiag_layout *l)
{
    uint64_t id = cd_hash_u64(cd_hash_u64(0xc4u, (uint64_t)oaddr), ub);
    for (int d = 0; d < l->rank; d++) id = cd_hash_u64(id, l->grid[d]);
    return id;
}

/* A filtered dataset's layout (e->pipe): its chunks' records come from resolve_rec, and owners decode
   them with the entry's pipeline (aggregation.c). */
static void h5_layout_filters(colldiag_layout *l, const h5_dentry *e, cd_resolve_rec_fn resolve_rec)
{
    colldiag_layout_set_filtered(l, 1);
    l->resolve_rec = resolve_rec;
    l->unfilter = h5_unfilter_cb;
    l->uctx = e->pipe;
    l->fill = e->pipe->fill_set ? e->pipe->fill : NULL;
}

/* A layout for the dataset's current extent: contiguous at H5Dget_offset, or chunked with lazy
   addresses found through the opened index ix (copied). */
static int h5_build_layout(hid_t dset, h5_dentry *e, int rank, const hsize_t *dims, const ix_index *ix)
{
    h5_drop_layout(e, rank, dims);
    uint64_t d64[COLLDIAG_MAX_RANK], c64[COLLDIAG_MAX_RANK];
    for (int d = 0; d < rank; d++) d64[d] = dims[d];
    const size_t esize = H5Tget_size(e->type);
    int rc;
    if (!e->chunked) {
        haddr_t a = H5Dget_offset(dset); /* absolute: HDF5 adds the userblock */
        if (a == HADDR_UNDEF) {
            h5_text_set(&e->why, "the contiguous dataset has no storage yet");
            return -1;
        }
        rc = colldiag_layout_contiguous(rank, d64, esize, (MPI_Offset)a, &e->l);
        if (!rc && e->learned) colldiag_layout_set_fill_written(e->l, !e->fill_unwritten);
    } else {
        h5_learn(dset, e); /* the chunk dims (read by every caller's h5_prepare already) */
        rc = h5_has_text(e->never) ? cd_fail(COLLDIAG_ERR_UNSUPPORTED, "colldiag_h5_write", "%s", e->never) : 0;
        for (int d = 0; d < rank && !rc; d++) c64[d] = e->cdims[d];
        if (!rc) rc = colldiag_layout_chunked(rank, d64, c64, esize, 0, &e->l);
        if (!rc) colldiag_layout_set_fill_written(e->l, !e->fill_unwritten);
        ix_index *own = rc ? NULL : cd_malloc(sizeof *own);
        if (!rc && own) *own = *ix;
        if (!rc && (!own || layout_set_resolver(e->l, ix_resolve, own, cd_free, h5_chunks_ident(e->addr, ix->r.base, e->l)))) {
            cd_free(own);
            rc = cd_fail(COLLDIAG_ERR_NOMEM, "colldiag_h5_write", "no memory for the chunk index's description");
        }
        if (!rc && e->pipe) h5_layout_filters(e->l, e, ix_resolve_rec);
    }
    if (rc) {
        h5_text_set(&e->why, "cannot describe the dataset's storage: %s", cd_errbuf);
        colldiag_layout_free(e->l);
        e->l = NULL;
        return -1;
    }
    return 0;
}

/* The dataset's chunk count at extent dims (0: not chunked as far as the entry knows). */
static uint64_t h5_nchunks(hid_t dset, h5_dentry *e, int rank, const hsize_t *dims)
{
    h5_learn(dset, e);
    uint64_t n = e->chunked;
    for (int d = 0; d < rank && n; d++) n = e->cdims[d] ? n * (dims[d] / e->cdims[d] + (dims[d] % e->cdims[d] != 0)) : 0;
    return n;
}

/* What reading dset's index needs (ix_open), from the bridge's caches where it has them: the file's
   creation facts once a file, the chunk dims and type from the learned entry. NULL if HDF5 cannot say. */
static const ix_facts *h5_ix_facts(hid_t dset, h5_dentry *e, h5_fentry *fe, int rank, const hsize_t *dims, ix_facts *fx)
{
    if (!fe->facts) fe->facts = ix_file_facts(dset, &fe->fx) ? -1 : 1;
    hsize_t d[COLLDIAG_MAX_RANK];
    h5_learn(dset, e);
    if (fe->facts < 0 || !e->chunked || h5_has_text(e->never) || h5_extent(dset, d, fx->maxd) != rank) return NULL;
    fx->sa = fe->fx.sa;
    fx->ss = fe->fx.ss;
    fx->ub = fe->fx.ub;
    fx->oaddr = e->addr;
    fx->esize = H5Tget_size(e->type);
    fx->rank = rank;
    memcpy(fx->dims, dims, (size_t)rank * sizeof *dims);
    memcpy(fx->cd, e->cdims, (size_t)rank * sizeof *dims);
    return fx;
}

/* Collective over f's communicator: flush the file (the index to disk), rank 0 reads the dataset's
   layout message and sends every rank the index's description; every rank then builds a lazy layout
   (each finds the addresses of the chunks its calls touch, reading only the index blocks on their
   way), or every rank records why not. Nothing here grows with the dataset's chunk count. */
static void h5_fetch_index(hid_t dset, h5_dentry *e, h5_fentry *fe, int rank, const hsize_t *dims)
{
    colldiag_file *f = fe->f;
    struct { ix_index ix; int ok; char why[256]; } m;
    memset(&m, 0, sizeof m);
    herr_t fl;
    fl = H5Fflush(dset, H5F_SCOPE_LOCAL);
    int ok = fl >= 0, all = 0;
    ix_facts fx;
    if (f->rank == 0) m.ok = ok && !ix_open(h5_ix_facts(dset, e, fe, rank, dims, &fx), f->fh, h5_nchunks(dset, e, rank, dims), &m.ix, m.why, sizeof m.why);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
    MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, 0, f->comm);
    m.ix.r.fh = f->fh; /* each rank's own handle */
    h5_collective_extent(e, rank, dims); /* every rank is here: the shortcut stops at this extent */
    e->u_fetched = 1;
    if (all && m.ok) {
        h5_build_layout(dset, e, rank, dims, &m.ix);
    } else {
        h5_drop_layout(e, rank, dims);
        h5_text_set(&e->why, "%s", !all ? "H5Fflush failed on some rank: the chunk index cannot be read from the file"
                                                   : m.why[0] ? m.why : "rank 0 could not read the chunk index");
    }
}

/* The same for one rank alone, in an independent call on a file open read-only: such a file has
   nothing to flush (its metadata on disk is final), so this rank reads where the index is itself and
   walks it to its own chunks, communicating nothing. At scale every rank reads the layout message
   once, as HDF5's own independent metadata reads do. 0, or -1 with e->why. The collective view
   (e->u_*) is left alone: the other ranks did not take part. */
static int h5_fetch_index_alone(hid_t dset, h5_dentry *e, h5_fentry *fe, int rank, const hsize_t *dims)
{
    ix_index ix;
    ix_facts fx;
    char why[256];
    if (ix_open(h5_ix_facts(dset, e, fe, rank, dims, &fx), fe->f->fh, h5_nchunks(dset, e, rank, dims), &ix, why, sizeof why)) {
        h5_drop_layout(e, rank, dims);
        h5_text_set(&e->why, "%s", why);
        return -1;
    }
    return h5_build_layout(dset, e, rank, dims, &ix);
}

/* HDF5 1.10 fills the part of an edge chunk that a shrink leaves outside the extent through its chunk
   cache (H5D__chunk_prune_fill), and writes that cached chunk back at the file's next flush or close,
   over whatever its collective or independent writes put there meanwhile: a program that shrinks a
   dataset, grows it back and writes the pruned chunk loses that write in HDF5 (h5py_suite's "pruned",
   one rank or more). colldiag's own index flush, or its write after HDF5's lookup, would write the
   cached chunk back earlier and keep the program's data: a file unlike HDF5's. So from a shrink until
   the program flushes or closes the file, HDF5 runs every call on it and colldiag flushes nothing.
   (A shrink to a chunk boundary prunes nothing: HDF5 drops whole chunks only.) */
static const char h5_shrunk_why[] = "a dataset of this file shrank across a chunk: HDF5 1.10 keeps the edge chunks it pruned in its chunk cache and "
                                    "writes them back at the next flush or close, so HDF5 runs the calls on this file until the "
                                    "program flushes or closes it (the file then ends as HDF5 leaves it)";

/* Local: why this call cannot run through colldiag (a message into why), or 0. */
static int h5_ineligible(hid_t dset, const h5_dentry *e, h5_fentry *fe, hid_t mem_type, int wr, const colldiag_xfer *x, char *why, size_t wl)
{
    if (fe->shrunk) { snprintf(why, wl, "%s", h5_shrunk_why); return 1; }
    if (h5_has_text(e->never)) { snprintf(why, wl, "%s", e->never); return 1; }
    if (e->filtered && wr) { snprintf(why, wl, "filtered chunks (HDF5 compresses them; colldiag reads filtered chunks but writes none)"); return 1; }
    if (e->filtered && x->set.mode != COLLDIAG_MPIO_COLLECTIVE) {
        snprintf(why, wl, "filtered chunks in an independent call (colldiag reads them in collective calls: one rank reads and decodes "
                          "each chunk for all)");
        return 1;
    }
    if (x->xform) { snprintf(why, wl, "the DXPL sets a data transform (HDF5 computes it)"); return 1; }
    htri_t same = -1;
    same = H5Tequal(mem_type, e->type);
    if (same < 0) { snprintf(why, wl, "mem_type is not a datatype"); return 1; }
    if (!same) { snprintf(why, wl, "the memory type differs from the dataset's (HDF5 converts)"); return 1; }
    if (wr && h5_file_writable(dset, fe) != 1) {
        snprintf(why, wl, "the file is not open for writing");
        return 1;
    }
    return 0;
}

/* 1 if the selection read from HDF5's block list holds another number of elements than HDF5 counts:
   1.10.8 can merge a union of boxes into blocks that cover other elements than the union (2-D 16x1:
   {10} | {4} | {1..3} counts 5 but lists 1..3 and 7..9). HDF5 then moves what its own iteration gives;
   colldiag cannot know which elements that is, so HDF5 runs the call. */
static int h5_sel_inconsistent(hid_t space, const colldiag_sel *s)
{
    hssize_t n = H5Sget_select_npoints(space);
    return n < 0 || (uint64_t)n != colldiag_sel_npoints(s);
}

/* The actual-mode properties HDF5 1.10 sets on the DXPL after a parallel transfer, with colldiag's
   answers: chunk optimisation as HDF5 names it (colldiag's own schemes, which HDF5 has no value for,
   read NO_CHUNK_OPTIMIZATION), I/O mode and causes as colldiag reports them. H5P_DEFAULT cannot be set.
   Under the watch (h5_plist_watched: the preload, which also counts every call HDF5 runs, since HDF5
   sets these itself) the four H5Pset (~4 us) are skipped when the list still holds the values this
   function last set on it. */
static struct {
    int valid;
    hid_t id;
    unsigned long gen, ran;
    H5D_mpio_actual_chunk_opt_mode_t co;
    H5D_mpio_actual_io_mode_t io;
    uint32_t l, g;
} h5_actual_set;

static void h5_set_actual(hid_t dxpl, const colldiag_xfer *x)
{
    if (dxpl == H5P_DEFAULT) return;
    H5D_mpio_actual_chunk_opt_mode_t co = x->chunk_opt_done <= COLLDIAG_MPIO_MULTI_CHUNK ? (H5D_mpio_actual_chunk_opt_mode_t)x->chunk_opt_done
                                                                                          : H5D_MPIO_NO_CHUNK_OPTIMIZATION;
    H5D_mpio_actual_io_mode_t io = (H5D_mpio_actual_io_mode_t)x->io_mode_done;
    uint32_t l = x->local_cause, g = x->global_cause;
    if (h5_plist_watched && h5_actual_set.valid && h5_actual_set.id == dxpl && h5_actual_set.gen == h5_plist_gen && h5_actual_set.ran == h5_hdf5_ran && h5_actual_set.co == co &&
        h5_actual_set.io == io && h5_actual_set.l == l && h5_actual_set.g == g)
        return;
    H5Pset(dxpl, "actual_chunk_opt_mode", &co);
    H5Pset(dxpl, "actual_io_mode", &io);
    H5Pset(dxpl, "local_no_collective_cause", &l);
    H5Pset(dxpl, "global_no_collective_cause", &g);
    h5_actual_set.valid = 1;
    h5_actual_set.id = dxpl;
    h5_actual_set.gen = h5_plist_gen; /* the watcher does not count these four, set by colldiag itself */
    h5_actual_set.ran = h5_hdf5_ran;
    h5_actual_set.co = co;
    h5_actual_set.io = io;
    h5_actual_set.l = l;
    h5_actual_set.g = g;
}

/* Set by a caller that reports the call itself (the preload): COLLDIAG_REPORT is then not the bridge's. */
static int h5_bridge_quiet;
/* Set by a caller that has given every rank rank 0's COLLDIAG_* environment (the preload, when MPI
   starts): a variable then decides alike on every rank without being agreed (h5_small_first_call). */
static int h5_env_uniform;

#endif /* COLLDIAG_WITH_HDF5 */
