/* ====================================================================================================
 * 7. decision and 9. execution share one per-call context
 * ==================================================================================================== */

enum { DIR_WRITE = 0, DIR_READ = 1, DIR_PLAN = 2 };

#define CD_MSG_CAP sizeof cd_errbuf
typedef struct cd_io cd_io;
struct cd_io {
    const char *fn;
    colldiag_file *f;
    const colldiag_layout *l;
    const colldiag_sel *fs, *ms;
    const void *wbuf;
    void *rbuf;
    const void *risk_buf;     /* the bytes a write (or a plan given colldiag_set_plan_buffer) writes: risk_local's digest */
    colldiag_xfer *x;
    cd_settings set;
    int dir;
    size_t fes, mes;          /* file and memory element sizes */
    cd_map map;
    uint64_t *order;          /* piece indices in ascending address (NULL: index order is address order) */
    int code;                 /* first local error */
    char *msg;                /* its message, CD_MSG_CAP bytes, written once: the caller's buffer (a multi-dataset
                                 call's datasets share one, so a context costs no 1 KiB per dataset) */
    uint64_t g[AG_N];         /* the agreed vector */
    int disjoint;             /* agreed: no chunk is touched by two ranks (touch_map) */
    uint64_t types_built;
    int keep_pieces;          /* hand map.pc to the xfer at the end (the chunk info's source) */
    int prefail;              /* the code is the HDF5 bridge's pre_code: 2 when it only waits for the chunk index */
    /* multi-dataset calls (colldiag_write_multi): the call's context holds one context per dataset in
       sub (each a complete single-dataset context with its own map); a scheme that moves several
       datasets in one collective call runs on the call's context over a map of copies of their pieces
       (cd_piece.ds), switching l, fs, ms, the buffers and element sizes to the piece's dataset before
       walking it (io_use). Single calls: sub NULL, and every helper below is a no-op. */
    cd_io *sub;
    size_t nsub;
    int64_t mbase;            /* added to memory offsets: the current dataset's buffer's address when a multi-dataset
                                 call's context walks it (its memory type is then relative to MPI_BOTTOM); else 0 */
    int64_t buf_addr;         /* subs: their buffer's address (MPI_Get_address), for the call's context */
    size_t fes_max, fes_min;  /* element sizes over the call's datasets (single: fes) */
    int merged;               /* subs: this dataset's pieces are in the call's merged map */
    int fail_shift;           /* AG_FAIL holds ((rank << fail_shift) | dataset) * 16 + code (0: single) */
    int read_guard;           /* 0 not asked yet, 1 collective reads as planned, 2 read independently (read_guard) */
    int agg_indep;            /* agreed: aggregation moves its owners' runs by independent calls (AUTO measured it, measure.c) */
};

/* The dataset context a piece belongs to (the call's own in a single call). */
static const cd_map *piece_map(const cd_io *io, const cd_piece *p) { return io->sub ? &io->sub[p->ds].map : &io->map; }
static size_t piece_fes(const cd_io *io, const cd_piece *p) { return io->sub ? io->sub[p->ds].fes : io->fes; }
static const colldiag_layout *piece_layout(const cd_io *io, const cd_piece *p) { return io->sub ? io->sub[p->ds].l : io->l; }

/* Multi-dataset calls: makes the call's context describe the piece's dataset (selections, buffers,
   element sizes), so that the walkers' callbacks, which read them from the context, need no change. */
static void io_use(cd_io *io, const cd_piece *p)
{
    if (!io->sub) return;
    const cd_io *s = &io->sub[p->ds];
    io->l = s->l;
    io->fs = s->fs;
    io->ms = s->ms;
    io->wbuf = s->wbuf;
    io->rbuf = s->rbuf;
    io->fes = s->fes;
    io->mes = s->mes;
    io->mbase = s->buf_addr;
}

/* Records the first local error of this call (message kept for the xfer and the thread). */
static int io_fail(cd_io *io, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int io_fail(cd_io *io, int code, const char *fmt, ...)
{
    if (io->code) return io->code;
    char m[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    cd_fail(code, io->fn, "%s", m);
    if (!io->msg[0]) snprintf(io->msg, CD_MSG_CAP, "%s", cd_errbuf); /* shared by datasets: the first failure's stays */
    io->code = code;
    return code;
}

/* A call handed back to HDF5's path by the preload's engine choice (x->accel): COLLDIAG_ERR_UNSUPPORTED to
   the caller, but a decision, not a failure, taken alike on every rank: its message is the reason alone,
   without io_fail's "function: rank R:" and "(not supported by colldiag)", since the report shows it as
   the call's why. */
static int io_hand_back(cd_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int io_hand_back(cd_io *io, const char *fmt, ...)
{
    if (io->code) return io->code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cd_errbuf, sizeof cd_errbuf, fmt, ap);
    va_end(ap);
    if (!io->msg[0]) snprintf(io->msg, CD_MSG_CAP, "%s", cd_errbuf);
    io->code = COLLDIAG_ERR_UNSUPPORTED;
    return io->code;
}

/* Fault injection for the error-agreement tests, compiled only with -DCOLLDIAG_TESTING:
   env COLLDIAG_INJECT=PHASE:RANK makes RANK fail in PHASE (map, exchange, types, io). */
#ifdef COLLDIAG_TESTING
static int cd_inject(const cd_io *io, const char *phase)
{
    const char *e = cd_getenv("COLLDIAG_INJECT");
    char p[32];
    int r;
    if (!e || sscanf(e, "%31[^:]:%d", p, &r) != 2) return 0;
    return !strcmp(p, phase) && r == io->f->rank;
}
#else
#define cd_inject(io, phase) 0
#endif

/* --- argument checks (local, pure) --- */

static int sel_dims_match(const colldiag_sel *s, const colldiag_layout *l)
{
    if (s->space == SPACE_NULL) return 1;
    if (s->space == SPACE_SCALAR) return l->nelem == 1;
    if (s->rank != l->rank) return 0;
    for (int d = 0; d < l->rank; d++)
        if (s->dims[d] != l->dims[d]) return 0;
    return 1;
}

static int check_args(cd_io *io)
{
    const colldiag_layout *l = io->l;
    const colldiag_sel *fs = io->fs, *ms = io->ms;
    if (!l) return io_fail(io, COLLDIAG_ERR_ARG, "layout l is NULL");
    if (!fs) return io_fail(io, COLLDIAG_ERR_ARG, "file_sel is NULL");
    if (!sel_dims_match(fs, l)) {
        if (fs->space == SPACE_SCALAR)
            return io_fail(io, COLLDIAG_ERR_ARG, "file_sel is scalar but the layout has %" PRIu64 " elements", l->nelem);
        char a[256], b[256];
        int wa = 0, wb = 0;
        for (int d = 0; d < fs->rank && wa < 200; d++) wa += snprintf(a + wa, sizeof a - (size_t)wa, "%s%" PRIu64, d ? "x" : "", fs->dims[d]);
        for (int d = 0; d < l->rank && wb < 200; d++) wb += snprintf(b + wb, sizeof b - (size_t)wb, "%s%" PRIu64, d ? "x" : "", l->dims[d]);
        return io_fail(io, COLLDIAG_ERR_ARG, "file_sel dims %s (rank %d) differ from the layout's %s (rank %d)", a,
                       fs->rank, b, l->rank);
    }
    uint64_t nf = colldiag_sel_npoints(fs);
    if (ms) {
        uint64_t nm = colldiag_sel_npoints(ms);
        if (fs->space != SPACE_NULL && ms->space != SPACE_NULL && nm != nf)
            return io_fail(io, COLLDIAG_ERR_ARG, "mem_sel selects %" PRIu64 " elements but file_sel selects %" PRIu64, nm, nf);
    }
    if (io->x->conv && io->x->mem_esize == 0) return io_fail(io, COLLDIAG_ERR_ARG, "conversion without a memory element size");
    if (io->dir != DIR_PLAN && nf > 0 && fs->space != SPACE_NULL && !(ms && ms->space == SPACE_NULL)) {
        if (io->dir == DIR_WRITE && !io->wbuf) return io_fail(io, COLLDIAG_ERR_ARG, "buf is NULL but %" PRIu64 " elements are selected", nf);
        if (io->dir == DIR_READ && !io->rbuf) return io_fail(io, COLLDIAG_ERR_ARG, "buf is NULL but %" PRIu64 " elements are selected", nf);
    }
    uint64_t tb;
    if (cd_mul(nf, io->mes, &tb) || tb > CD_MAX_OFFSET || (ms && cd_mul(ms->nelem_space, io->mes, &tb)) || tb > CD_MAX_OFFSET)
        return io_fail(io, COLLDIAG_ERR_ARG, "the memory buffer's size in bytes overflows");
    /* A memory selection of every element of its extent is the packed buffer (the counts are equal,
       checked above): the walkers then take memory as one run. Kept, it costs a derived memory type
       in every MPI call: twice the time of B4's independent writes through the HDF5 bridge, whose
       H5Screate_simple memory spaces select all. */
    if (ms && ms->type == SEL_ALL && ms->space != SPACE_NULL) io->ms = NULL;
    return 0;
}

typedef struct { MPI_Offset addr; uint64_t i; } cd_addr_idx;
static int cmp_addr_idx(const void *a, const void *b)
{
    const cd_addr_idx *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Chunked layouts with addresses (a table, or a lazy layout's, resolved by map_resolve): pieces in
   address order, and refuse chunks whose storage overlaps. One collective call's file type must
   ascend (MPI-IO refuses it otherwise: MPI_ERR_TYPE at MPI_File_set_view), and chunk indexes do not
   keep index order in the file: an extensible array or a v2 B-tree allocates the chunks an extension
   adds at the end. Already ascending (the common case): no order array, no sort. */
static int order_by_addr(cd_io *io)
{
    const cd_map *m = &io->map;
    if (io->l->storage != STORE_CHUNKED || !(io->l->addrs || io->l->resolve) || m->n == 0) return 0;
    int ascending = 1;
    for (uint64_t i = 0, k = 0; ascending && i < m->n; i++) {
        if (m->pc[i].addr < 0) continue;
        ascending = !k || m->pc[k - 1].addr <= m->pc[i].addr;
        k = i + 1;
    }
    if (!ascending) {
        io->order = cd_malloc((size_t)m->n * sizeof *io->order);
        cd_addr_idx *t = cd_malloc((size_t)m->n * sizeof *t); /* plain qsort: qsort_r is not portable */
        if (!io->order || !t) {
            cd_free(t);
            return io_fail(io, COLLDIAG_ERR_NOMEM, "ordering %" PRIu64 " chunks by address", m->n);
        }
        for (uint64_t i = 0; i < m->n; i++) { t[i].addr = m->pc[i].addr; t[i].i = i; }
        qsort(t, (size_t)m->n, sizeof *t, cmp_addr_idx);
        for (uint64_t i = 0; i < m->n; i++) io->order[i] = t[i].i;
        cd_free(t);
    }
    const cd_piece *prev = NULL;
    for (uint64_t i = 0; i < m->n; i++) {
        const cd_piece *p = &m->pc[io->order ? io->order[i] : i];
        if (p->addr < 0) continue;
        /* a filtered chunk's storage is its stored bytes (the layout decodes them), a raw one's the chunk's */
        const uint64_t span = io->l->unfilter && prev ? prev->stored : io->l->chunk_bytes;
        if (prev && prev->addr + (MPI_Offset)span > p->addr)
            return io_fail(io, COLLDIAG_ERR_ARG, "chunks %" PRIu64 " and %" PRIu64 " overlap in the address table (%lld, %lld)",
                           prev->idx, p->idx, (long long)prev->addr, (long long)p->addr);
        prev = p;
    }
    return 0;
}
