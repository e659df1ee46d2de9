/* ====================================================================================================
 * 3. layouts
 * ==================================================================================================== */

enum { STORE_CONTIG = 0, STORE_CHUNKED = 1, STORE_COMPACT = 2 };

/* An address a lazy layout does not hold yet: mapping records it, map_resolve replaces it. */
#define CD_ADDR_PENDING ((MPI_Offset)-2)

/* Finds the addresses of n chunks (idx ascending, distinct) into addr (-1: not allocated). 0, or -1
   with the reason in why. Local: it may read the file, never communicate. */
typedef int (*cd_resolve_fn)(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, char *why, size_t wl);
/* The same for filtered chunks: their stored sizes and filter masks too (0 for chunks not allocated). */
typedef int (*cd_resolve_rec_fn)(void *ctx, uint64_t n, const uint64_t *idx, MPI_Offset *addr, uint64_t *stored, uint32_t *mask,
                                 char *why, size_t wl);
/* A filtered chunk's values (want bytes, into out) from its n stored bytes; tmp: want bytes of scratch.
   0; -1 with why when the bytes do not decode. Local, pure but for ctx (the HDF5 bridge's pipeline). */
typedef int (*cd_unfilter_fn)(const void *ctx, uint32_t mask, const unsigned char *stored, size_t n, unsigned char *out, unsigned char *tmp,
                              size_t want, char *why, size_t wl);

/* The resolved addresses of a lazy layout: open addressing (linear probing, at most half full), keys
   stored + 1 so that 0 is an empty slot, each key beside its address. Bounded (acache_room): a cache,
   not a table.
   The slot keeps neighbours together: a block of ACACHE_RUN consecutive chunk indices hashes to one home
   and keeps its order inside it, so a call's chunks (mostly runs along the fastest dimension) are read
   from consecutive slots rather than one cache miss each (a hash of the index alone scattered them:
   0.5 us a chunk in B4's warm mapping, against 0.15 for a dense layout). Strided indices (a column
   of chunks) still land one per block, spread by the hash. */
#define ACACHE_RUN 16
typedef struct cd_aslot {
    uint64_t key;      /* chunk index + 1; 0: empty */
    MPI_Offset val;
} cd_aslot;
typedef struct cd_acache {
    cd_aslot *s;
    uint64_t cap, n;   /* cap: a power of two >= 64, or 0 */
} cd_acache;

static uint64_t acache_slot(const cd_acache *c, uint64_t idx)
{
    const uint64_t home = (idx / ACACHE_RUN) * 0x9e3779b97f4a7c15ULL >> 7; /* middle bits: the low ones of a product mix poorly */
    return (home * ACACHE_RUN + idx % ACACHE_RUN) & (c->cap - 1);
}

static MPI_Offset acache_get(const cd_acache *c, uint64_t idx)
{
    if (!c || !c->cap) return CD_ADDR_PENDING;
    for (uint64_t s = acache_slot(c, idx);; s = (s + 1) & (c->cap - 1)) {
        if (c->s[s].key == idx + 1) return c->s[s].val;
        if (!c->s[s].key) return CD_ADDR_PENDING;
    }
}

static void acache_clear(cd_acache *c)
{
    cd_free(c->s);
    c->s = NULL;
    c->cap = c->n = 0;
}

static void acache_insert(cd_acache *c, uint64_t key, MPI_Offset a)
{
    uint64_t s = acache_slot(c, key - 1);
    while (c->s[s].key && c->s[s].key != key) s = (s + 1) & (c->cap - 1);
    if (!c->s[s].key) c->n++;
    c->s[s].key = key;
    c->s[s].val = a;
}

/* Room for n more entries. A program whose calls wander over a huge dataset would otherwise grow the
   cache towards the whole index: past max(65,536, 2n) entries (2 MiB of slots) it starts again, so it holds at
   most twice what one call touches plus a constant. -1: no memory (the cache is then empty). */
static int acache_room(cd_acache *c, uint64_t n)
{
    const uint64_t limit = n * 2 > ((uint64_t)1 << 16) ? n * 2 : (uint64_t)1 << 16;
    if (c->n + n > limit) acache_clear(c);
    if (2 * (c->n + n) <= c->cap) return 0;
    uint64_t cap = c->cap ? c->cap : 64;
    while (cap < 2 * (c->n + n)) cap *= 2;
    cd_acache g = {cd_calloc((size_t)cap, sizeof *g.s), cap, 0};
    if (!g.s) { acache_clear(c); return -1; }
    for (uint64_t i = 0; i < c->cap; i++)
        if (c->s[i].key) acache_insert(&g, c->s[i].key, c->s[i].val);
    acache_clear(c);
    *c = g;
    return 0;
}

static void acache_put(cd_acache *c, uint64_t idx, MPI_Offset a) { acache_insert(c, idx + 1, a); }

struct colldiag_layout {
    int storage;
    int rank;
    uint64_t dims[COLLDIAG_MAX_RANK];
    uint64_t nelem;                       /* product of dims */
    size_t esize;
    MPI_Offset addr;                      /* contiguous/compact address, or dense chunk base */
    uint64_t cdims[COLLDIAG_MAX_RANK];    /* chunk dims */
    uint64_t grid[COLLDIAG_MAX_RANK];     /* chunks per dimension */
    uint64_t nchunks;
    uint64_t chunk_elems, chunk_bytes;
    MPI_Offset *addrs;                    /* table, or NULL for dense */
    uint64_t table_hash;                  /* computed once, so agreement checks stay O(1) per call */
    int filtered;
    /* HDF5 left the storage unwritten when it allocated it (no fill value written): a collective write's
       holes past the end of the file then hold what MPI-IO's buffer held (decision.c, risk_local). The
       default is HDF5's own for each storage class under parallel HDF5, which allocates at creation:
       contiguous storage gets no fill unless H5D_FILL_TIME_ALLOC or a fill value is set, chunks get
       theirs unless H5D_FILL_TIME_NEVER or the fill value is undefined (tests/h5_defects.c, both). */
    int fill_unwritten;
    /* A plan's chunk addresses are placeholders (dense), on this rank: HDF5 knows where the chunks are and
       the plan could not ask it (h5_plan_chunk_addrs). The bytes at risk then count this rank's touched
       chunks as if they lay past the end of the file (risk_local, AG_RISK_UNK). Not part of the digest:
       ranks may differ. */
    int addr_unknown;
    /* Lazy addresses (the HDF5 bridge): no table; a call's mapping asks the resolver for the chunks it
       touches that the cache does not hold (map_resolve), so work and memory follow touched chunks,
       never the dataset's chunk count. table_hash then names the index (same on every rank). */
    cd_resolve_fn resolve;
    void *rctx;
    void (*rctx_free)(void *);
    struct cd_acache *cache;
    /* Filtered chunks colldiag reads (the HDF5 bridge, collective reads through aggregation): the
       resolver's records give each touched chunk's stored size and mask (map_resolve, every call: the
       cache holds addresses only), and the chunk's owner reads its stored bytes whole and decodes them
       with unfilter (aggregation.c). NULL: filtered chunks are only planned, never moved. */
    cd_resolve_rec_fn resolve_rec;
    cd_unfilter_fn unfilter;
    const void *uctx;                     /* owned by whoever set unfilter (the bridge's dataset entry) */
    const unsigned char *fill;            /* such a layout's chunks never written read as this element (esize
                                             bytes, the file's type; owned alike); NULL: zeros */
};

static int layout_common(const char *fn, int rank, const uint64_t *dims, size_t esize, MPI_Offset addr,
                         colldiag_layout **out, colldiag_layout **made)
{
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    *out = NULL;
    uint64_t prod, bytes;
    int rc = sel_check_dims(fn, rank, dims, &prod);
    if (rc) return rc;
    if (esize == 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "elem_size is 0");
    if (cd_mul(prod, esize, &bytes) || bytes > CD_MAX_OFFSET)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "the dataset's size in bytes overflows (%" PRIu64 " elements of %zu bytes)",
                       prod, esize);
    if (addr < 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "address %lld is negative", (long long)addr);
    colldiag_layout *l = cd_calloc(1, sizeof *l);
    if (!l) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the layout");
    l->rank = rank;
    memcpy(l->dims, dims, (size_t)rank * sizeof *dims);
    l->nelem = prod;
    l->esize = esize;
    l->addr = addr;
    *made = l;
    return 0;
}

static int layout_flat(const char *fn, int storage, int rank, const uint64_t *dims, size_t esize, MPI_Offset addr,
                       colldiag_layout **out)
{
    colldiag_layout *l = NULL;
    int rc = layout_common(fn, rank, dims, esize, addr, out, &l);
    if (rc) return rc;
    uint64_t end;
    if (cd_add((uint64_t)addr, l->nelem * esize, &end) || end > CD_MAX_OFFSET) {
        cd_free(l);
        return cd_fail(COLLDIAG_ERR_ARG, fn, "address + size overflows a file offset");
    }
    l->storage = storage;
    l->fill_unwritten = storage == STORE_CONTIG;
    *out = l;
    return 0;
}

int colldiag_layout_contiguous(int rank, const uint64_t *dims, size_t elem_size, MPI_Offset addr, colldiag_layout **out)
{
    return layout_flat("colldiag_layout_contiguous", STORE_CONTIG, rank, dims, elem_size, addr, out);
}

int colldiag_layout_compact(int rank, const uint64_t *dims, size_t elem_size, MPI_Offset addr, colldiag_layout **out)
{
    return layout_flat("colldiag_layout_compact", STORE_COMPACT, rank, dims, elem_size, addr, out);
}

int colldiag_layout_chunked(int rank, const uint64_t *dims, const uint64_t *chunk_dims, size_t elem_size,
                            MPI_Offset base, colldiag_layout **out)
{
    static const char fn[] = "colldiag_layout_chunked";
    colldiag_layout *l = NULL;
    int rc = layout_common(fn, rank, dims, elem_size, base, out, &l);
    if (rc) return rc;
    if (!chunk_dims) { cd_free(l); return cd_fail(COLLDIAG_ERR_ARG, fn, "chunk_dims is NULL"); }
    uint64_t ce = 1, nc = 1, cb, end;
    for (int d = 0; d < rank; d++) {
        if (chunk_dims[d] == 0) { cd_free(l); return cd_fail(COLLDIAG_ERR_ARG, fn, "chunk_dims[%d] is 0", d); }
        l->cdims[d] = chunk_dims[d];
        l->grid[d] = dims[d] / chunk_dims[d] + (dims[d] % chunk_dims[d] != 0);
        if (cd_mul(ce, chunk_dims[d], &ce) || cd_mul(nc, l->grid[d], &nc)) {
            cd_free(l);
            return cd_fail(COLLDIAG_ERR_ARG, fn, "the chunk size or chunk count overflows at dimension %d", d);
        }
    }
    if (cd_mul(ce, elem_size, &cb) || cb > CD_MAX_OFFSET || cd_mul(nc, cb, &end) ||
        cd_add(end, (uint64_t)base, &end) || end > CD_MAX_OFFSET) {
        cd_free(l);
        return cd_fail(COLLDIAG_ERR_ARG, fn, "dense chunk storage (%" PRIu64 " chunks of %" PRIu64
                       " elements) overflows a file offset", nc, ce);
    }
    l->storage = STORE_CHUNKED;
    l->chunk_elems = ce;
    l->chunk_bytes = cb;
    l->nchunks = nc;
    *out = l;
    return 0;
}

int colldiag_layout_set_chunk_addrs(colldiag_layout *l, uint64_t nchunks, const MPI_Offset *addrs)
{
    static const char fn[] = "colldiag_layout_set_chunk_addrs";
    if (!l) return cd_fail(COLLDIAG_ERR_ARG, fn, "l is NULL");
    if (l->storage != STORE_CHUNKED) return cd_fail(COLLDIAG_ERR_ARG, fn, "the layout is not chunked");
    if (nchunks != l->nchunks)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "nchunks = %" PRIu64 " but the chunk grid has %" PRIu64, nchunks, l->nchunks);
    if (!addrs) return cd_fail(COLLDIAG_ERR_ARG, fn, "addrs is NULL");
    if (nchunks > (uint64_t)SIZE_MAX / sizeof(MPI_Offset))
        return cd_fail(COLLDIAG_ERR_NOMEM, fn, "table of %" PRIu64 " addresses", nchunks);
    uint64_t h = 0x7ab1e;
    for (uint64_t i = 0; i < nchunks; i++) {
        if (addrs[i] < -1 || (addrs[i] >= 0 && (uint64_t)addrs[i] > CD_MAX_OFFSET - l->chunk_bytes))
            return cd_fail(COLLDIAG_ERR_ARG, fn, "addrs[%" PRIu64 "] = %lld is not a valid chunk address", i,
                           (long long)addrs[i]);
        h = cd_hash_u64(h, (uint64_t)addrs[i]);
    }
    MPI_Offset *t = cd_malloc((size_t)nchunks * sizeof *t);
    if (!t) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "table of %" PRIu64 " addresses", nchunks);
    memcpy(t, addrs, (size_t)nchunks * sizeof *t);
    cd_free(l->addrs);
    l->addrs = t;
    l->table_hash = h;
    return 0;
}

int colldiag_layout_set_fill_written(colldiag_layout *l, int written)
{
    static const char fn[] = "colldiag_layout_set_fill_written";
    if (!l) return cd_fail(COLLDIAG_ERR_ARG, fn, "l is NULL");
    l->fill_unwritten = !written;
    return 0;
}

int colldiag_layout_set_filtered(colldiag_layout *l, int filtered)
{
    static const char fn[] = "colldiag_layout_set_filtered";
    if (!l) return cd_fail(COLLDIAG_ERR_ARG, fn, "l is NULL");
    if (l->storage != STORE_CHUNKED && filtered) return cd_fail(COLLDIAG_ERR_ARG, fn, "only chunked layouts can be filtered");
    l->filtered = filtered != 0;
    return 0;
}

void colldiag_layout_free(colldiag_layout *l)
{
    if (!l) return;
    cd_free(l->addrs);
    if (l->rctx_free) l->rctx_free(l->rctx);
    if (l->cache) acache_clear(l->cache);
    cd_free(l->cache);
    cd_free(l);
}

#ifdef COLLDIAG_WITH_HDF5 /* only the HDF5 bridge makes lazy layouts */
/* Makes a chunked layout lazy: resolve (which owns ctx; ctx_free frees it with the layout) finds the
   addresses a call touches. ident names the index for the agreement: every rank must pass the same. */
static int layout_set_resolver(colldiag_layout *l, cd_resolve_fn resolve, void *ctx, void (*ctx_free)(void *), uint64_t ident)
{
    l->cache = cd_calloc(1, sizeof *l->cache);
    if (!l->cache) return -1;
    cd_free(l->addrs);
    l->addrs = NULL;
    l->resolve = resolve;
    l->rctx = ctx;
    l->rctx_free = ctx_free;
    l->table_hash = cd_hash_u64(0x1a2e5u, ident);
    return 0;
}
#endif

/* Chunk idx's address: the table's, the cache's (CD_ADDR_PENDING when a lazy layout has not resolved
   it yet), or dense storage's. */
static MPI_Offset layout_chunk_addr(const colldiag_layout *l, uint64_t idx)
{
    if (l->resolve_rec) return CD_ADDR_PENDING; /* a stored size and mask every call, not only an address */
    if (l->addrs) return l->addrs[idx];
    if (l->resolve) return acache_get(l->cache, idx);
    return l->addr + (MPI_Offset)(idx * l->chunk_bytes);
}

/* Elements of chunk idx inside the dataset (edge chunks are clipped). */
static uint64_t chunk_elems_in(const colldiag_layout *l, uint64_t idx)
{
    uint64_t n = 1;
    for (int d = l->rank - 1; d >= 0; d--) {
        uint64_t c = idx % l->grid[d], lo = c * l->cdims[d];
        idx /= l->grid[d];
        n *= l->dims[d] - lo < l->cdims[d] ? l->dims[d] - lo : l->cdims[d];
    }
    return n;
}

/* Digest of everything ranks must agree on about a layout. */
static uint64_t layout_digest(const colldiag_layout *l)
{
    uint64_t h = cd_hash_u64(0x1a70u, (uint64_t)l->storage);
    h = cd_hash_u64(h, (uint64_t)l->rank);
    for (int d = 0; d < l->rank; d++) h = cd_hash_u64(cd_hash_u64(h, l->dims[d]), l->cdims[d]);
    h = cd_hash_u64(h, (uint64_t)l->esize);
    h = cd_hash_u64(h, (uint64_t)l->addr);
    h = cd_hash_u64(h, l->addrs || l->resolve ? l->table_hash : 0);
    h = cd_hash_u64(h, (uint64_t)(l->unfilter != NULL)); /* ranks that could decode and ranks that could not would part ways */
    return cd_hash_u64(h, (uint64_t)l->filtered);
}
