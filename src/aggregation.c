/* ---------------------------------------------------------------------------------------------------
 * 9. execution: chunk aggregation (AGGREGATE_IO)
 *
 * Fine-grained interleaved access (every rank a few bytes of every row of every chunk) makes MPI-IO
 * sort and merge millions of tiny runs. Aggregation first moves each chunk's pieces to one owner
 * (chosen by nproc_exchange: a rank touching the chunk, rotating over ranks), so the file sees each
 * chunk's covered bytes as a few long runs:
 *   1. each rank describes its piece of a chunk as two-level strided records (chunk-local offset,
 *      length, stride, count, then stride2 and count2 repeating that row) -- a chunk's every-third
 *      column is one record, not one per chunk row -- and, for writes, packs the piece's bytes;
 *      records and bytes go to the owners in one point-to-point exchange;
 *   2. an owner lays the pieces of each owned chunk into an image of the chunk's touched window with a
 *      coverage bitmap and emits the covered bytes as runs, in address order;
 *   3. one collective call (split so no rank moves more than the collective buffer per call) moves
 *      them; the datatype layer merges runs that touch across chunk boundaries;
 *   4. reads run step 2 backwards and send every rank its bytes in the order of its records.
 * Only covered bytes are written. Where ranks' pieces overlap, the highest rank's bytes win.
 * Memory: the whole cycle runs in agreed rounds of chunk-index windows in which no rank holds more
 * than three quarters of the collective buffer in its send buffer (reused for the owner's pack), the
 * pieces it receives as an owner and the records both ways (agg_budget; records are counted before
 * the first round), plus one chunk window; lists grow with the chunks touched. A chunk is never
 * split: one chunk larger than the budget is a round of its own.
 * --------------------------------------------------------------------------------------------------- */

/* Chunk-local bytes: count2 rows stride2 apart, each count runs of len bytes stride apart, in order. */
typedef struct { uint64_t off, len, stride, count, stride2, count2; } cd_rec;
#define AGG_HDR 6u   /* words before a piece's records: chunk index, record count, bytes, chunk address (the
                        sender's: an owner of a lazy layout may not have resolved a chunk it does not touch),
                        and for a filtered chunk its stored bytes and filter mask (0 otherwise) */
#define AGG_REC 6u   /* words per record */

typedef struct {
    cd_io *io;
    uint64_t *meta;            /* words: headers and records of every piece, grouped by owner */
    uint64_t mlen, mcap;
    uint64_t rec0;             /* first record word of the current piece */
    MPI_Offset base;           /* the current chunk's address */
    unsigned char *cursor;     /* writes: where the next bytes of the current piece go */
    uint64_t mk, mn;           /* writes from a packed buffer: pending memory elements [mk, mk + mn) */
    uint64_t seen, kfirst;     /* elements walked; the first iteration index after mark was set */
    int mark;
    int pack;                  /* writes: copy the bytes too (0 when only counting records) */
    int nojoin;                /* the next run starts a record of its own (the first row of a block) */
    uint64_t fence;            /* no record at or after this word folds into one before it (0: none) */
    int nomem;
} cd_agg_send;

/* Packed memory: consecutive runs of a chunk row are usually consecutive in memory; copy them at once. */
static void agg_flush_mem(cd_agg_send *s)
{
    if (!s->mn) return;
    size_t es = s->io->mes;
    memcpy(s->cursor, (const unsigned char *)s->io->wbuf + s->mk * es, (size_t)(s->mn * es));
    s->cursor += s->mn * es;
    s->mn = 0;
}

/* The last record of the current piece is complete: fold it into the one before as one more row when
   it repeats that record's row at its row stride. */
static void agg_rec_close(cd_agg_send *s)
{
    if (s->nomem || s->mlen < s->rec0 + 2 * AGG_REC || s->mlen - 2 * AGG_REC < s->fence) return;
    cd_rec *p = (cd_rec *)(s->meta + s->mlen - 2 * AGG_REC), *r = p + 1;
    if (r->count2 != 1 || r->len != p->len || r->count != p->count || (r->count > 1 && r->stride != p->stride)) return;
    if (p->count2 == 1) {
        if (r->off <= p->off) return;
        p->stride2 = r->off - p->off;
    } else if (r->off != p->off + p->count2 * p->stride2) {
        return;
    }
    p->count2++;
    s->mlen -= AGG_REC;
}

/* Appends one run to the current piece, extending or striding the last record when it can. */
static void agg_rec_add(cd_agg_send *s, uint64_t off, uint64_t len)
{
    if (s->nomem) return;
    if (!s->nojoin && s->mlen > s->rec0 && ((cd_rec *)(s->meta + s->mlen - AGG_REC))->count2 == 1) {
        cd_rec *c = (cd_rec *)(s->meta + s->mlen - AGG_REC); /* open: only a row block (agg_rows_send) or a
                                                               closed record repeats */
        uint64_t end = c->off + (c->count - 1) * c->stride + c->len;
        if (c->count == 1 && off == end) { c->len += len; return; }
        if (len == c->len && c->count == 1 && off > c->off) { c->stride = off - c->off; c->count = 2; return; }
        if (len == c->len && c->count > 1 && off == c->off + c->count * c->stride) { c->count++; return; }
    }
    agg_rec_close(s);
    if (cd_grow((void **)&s->meta, &s->mcap, s->mlen + AGG_REC, sizeof *s->meta)) { s->nomem = 1; return; }
    cd_rec *r = (cd_rec *)(s->meta + s->mlen);
    r->off = off;
    r->len = len;
    r->stride = len;
    r->count = 1;
    r->stride2 = 0;
    r->count2 = 1;
    s->mlen += AGG_REC;
    s->nojoin = 0;
}

static int agg_run_send(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    cd_agg_send *s = ctx;
    if (s->mark) { s->kfirst = k; s->mark = 0; }
    s->seen += n;
    agg_rec_add(s, (uint64_t)(foff - s->base), n * s->io->fes);
    if (!s->pack) return 0;
    if (!s->io->ms) {
        if (s->mn && k == s->mk + s->mn) { s->mn += n; return 0; }
        agg_flush_mem(s);
        s->mk = k;
        s->mn = n;
        return 0;
    }
    cd_copy c = {s->io, s->cursor};
    int rc = cd_mem_runs(s->io->ms, k, n, mrun_copy_in, &c);
    s->cursor = c.cursor;
    return rc;
}
/* Rows 1..nrows-1 of a block repeat row 0's m elements (first iteration index k0) at kstride: copied
   row by row between memory and the contiguous cursor, in or out. */
static int agg_rows_copy(cd_copy *c, uint64_t k0, uint64_t m, uint64_t nrows, uint64_t kstride, int in)
{
    const cd_io *io = c->io;
    const size_t es = io->mes;
    for (uint64_t r = 1; r < nrows; r++) {
        const uint64_t k = k0 + r * kstride;
        if (!io->ms) {
            if (in) memcpy(c->cursor, (const unsigned char *)io->wbuf + k * es, (size_t)(m * es));
            else memcpy((unsigned char *)io->rbuf + k * es, c->cursor, (size_t)(m * es));
            c->cursor += m * es;
        } else {
            int rc = cd_mem_runs(io->ms, k, m, in ? mrun_copy_in : mrun_copy_out, c);
            if (rc) return rc;
        }
    }
    return 0;
}

/* A block of rows (cd_bfn) on the sending side: the first row is walked run by run, starting a record
   of its own; when it became exactly one record, the other rows are that record repeated (count2 rows, stride2 apart) and
   their bytes are copied a row at a time instead of a run at a time (B3: 85 single elements a row,
   256 rows a chunk). Otherwise every row is walked. */
static int agg_rows_send(void *ctx, const cd_walk *w, const cd_node *down, uint64_t off, uint64_t k, uint64_t nrows,
                         uint64_t pitch, uint64_t kstride)
{
    cd_agg_send *s = ctx;
    const uint64_t before = s->mlen, seen0 = s->seen;
    s->mark = 1;
    /* the row must stay apart from the records before it: neither continue the last one (nojoin) nor
       have its first record folded into an earlier one as another row (fence); either would leave
       the row split across records, and repeating "its" record would lose bytes */
    s->nojoin = 1;
    s->fence = before;
    int rc = cd_walk_row(w, down, off, k);
    s->nojoin = 0;
    s->fence = 0;
    if (rc) return rc;
    const uint64_t m = s->seen - seen0, k0 = s->kfirst;
    cd_rec *r = (cd_rec *)(s->meta + before);
    if (s->nomem || m == 0 || s->mlen != before + AGG_REC || r->count2 != 1) {
        for (uint64_t x = 1; x < nrows && !rc; x++) rc = cd_walk_row(w, down, off + x * pitch, k + x * kstride);
        return rc;
    }
    r->count2 = nrows;
    r->stride2 = pitch * w->esize;
    s->seen += m * (nrows - 1);
    if (!s->pack) return 0;
    agg_flush_mem(s); /* row 0's bytes first */
    cd_copy c = {s->io, s->cursor};
    rc = agg_rows_copy(&c, k0, m, nrows, kstride, 1);
    s->cursor = c.cursor;
    return rc;
}

/* Appends piece p's header and records to s->meta (and, with s->pack, its bytes at s->cursor).
   Returns nonzero when the walk failed; s->nomem says the records did not fit. */
static int agg_describe_piece(cd_agg_send *s, const cd_piece *p)
{
    cd_io *io = s->io;
    if (cd_grow((void **)&s->meta, &s->mcap, s->mlen + AGG_HDR, sizeof *s->meta)) { s->nomem = 1; return 0; }
    const uint64_t h = s->mlen;
    s->meta[h] = p->idx;
    s->meta[h + 2] = p->nelem * io->fes;
    s->meta[h + 3] = (uint64_t)p->addr;
    s->meta[h + 4] = p->stored;
    s->meta[h + 5] = p->fmask;
    s->mlen += AGG_HDR;
    s->rec0 = s->mlen;
    s->base = p->addr;
    int rc = cd_walk_piece_blocks(&io->map, io->fs, p, agg_run_send, NULL, agg_rows_send, s);
    agg_flush_mem(s);
    agg_rec_close(s);
    if (!s->nomem) s->meta[h + 1] = (s->mlen - s->rec0) / AGG_REC;
    return rc;
}

/* The words (header and records) each piece sends its owner, counted before any round by describing
   every piece once without its bytes, so that rounds can budget the records as well as the data:
   records of fine-grained pieces (single elements, a record per chunk row or point) can outweigh
   their bytes. words[i] is 0 for unallocated pieces. Returns NULL (io failed) when out of memory. */
static uint64_t *agg_count_words(cd_io *io)
{
    const cd_map *m = &io->map;
    uint64_t *words = cd_inject(io, "records") ? NULL : cd_calloc((size_t)(m->n ? m->n : 1), sizeof *words);
    cd_agg_send s;
    memset(&s, 0, sizeof s);
    s.io = io;
    for (uint64_t i = 0; words && i < m->n && !io->code; i++) {
        if (m->pc[i].flags & PF_UNALLOC) continue;
        s.mlen = 0;
        if (agg_describe_piece(&s, &m->pc[i])) io_fail(io, COLLDIAG_ERR_ARG, "describing chunk %" PRIu64, m->pc[i].idx);
        if (s.nomem) break;
        words[i] = s.mlen;
    }
    cd_free(s.meta);
    if (!words || s.nomem) {
        cd_free(words);
        if (!io->code) io_fail(io, COLLDIAG_ERR_NOMEM, "counting the records of %" PRIu64 " chunks for aggregation", m->n);
        return NULL;
    }
    return words;
}

/* The receiving side of a read (scatter into memory), in the order agg_run_send described it. */
typedef struct { cd_copy c; uint64_t seen, kfirst; int mark; } cd_agg_recv;
static int agg_run_recv(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    (void)foff;
    cd_agg_recv *a = ctx;
    if (a->mark) { a->kfirst = k; a->mark = 0; }
    a->seen += n;
    return cd_mem_runs(a->c.io->ms, k, n, mrun_copy_out, &a->c);
}
static int agg_rows_recv(void *ctx, const cd_walk *w, const cd_node *down, uint64_t off, uint64_t k, uint64_t nrows,
                         uint64_t pitch, uint64_t kstride)
{
    (void)pitch;
    cd_agg_recv *a = ctx;
    const uint64_t seen0 = a->seen;
    a->mark = 1;
    int rc = cd_walk_row(w, down, off, k);
    if (rc) return rc;
    const uint64_t m = a->seen - seen0;
    /* every row of a block holds the same m elements, whether or not the sender folded them */
    if (m) rc = agg_rows_copy(&a->c, a->kfirst, m, nrows, kstride, 0);
    a->seen += m * (nrows - 1);
    return rc;
}

/* Messages of an exchange: every message is at most COLLDIAG_COLL_MAX_BYTES, so counts stay ints. */
static uint64_t agg_nmsg(const uint64_t *cnt, int P, int step, uint64_t scale)
{
    const uint64_t M = COLLDIAG_COLL_MAX_BYTES;
    uint64_t k = 0;
    for (int r = 0; r < P; r++) k += (cnt[step * r] * scale + M - 1) / M;
    return k;
}

typedef struct { MPI_Request *rq; MPI_Status *st; } cd_reqs; /* sized before the exchanges are agreed */

/* Point-to-point exchange of byte segments (per-peer counts and displacements). Collective in effect:
   both sides derive the same counts from one sparse exchange of counts (agg_round). Returns an MPI code. */
static int agg_p2p(cd_io *io, const cd_reqs *rs, const unsigned char *sb, const uint64_t *scnt, const uint64_t *sdsp,
                   unsigned char *rb, const uint64_t *rcnt, const uint64_t *rdsp, int tag)
{
    const int P = io->f->size;
    const uint64_t M = COLLDIAG_COLL_MAX_BYTES;
    MPI_Request *rq = rs->rq;
    uint64_t q = 0;
    int rc = MPI_SUCCESS;
    for (int r = 0; r < P && rc == MPI_SUCCESS; r++)
        for (uint64_t o = 0; o < rcnt[r] && rc == MPI_SUCCESS; o += M)
            rc = MPI_Irecv(rb + rdsp[r] + o, (int)(rcnt[r] - o < M ? rcnt[r] - o : M), MPI_BYTE, r, tag, io->f->comm, &rq[q++]);
    for (int r = 0; r < P && rc == MPI_SUCCESS; r++)
        for (uint64_t o = 0; o < scnt[r] && rc == MPI_SUCCESS; o += M)
            rc = MPI_Isend(sb + sdsp[r] + o, (int)(scnt[r] - o < M ? scnt[r] - o : M), MPI_BYTE, r, tag, io->f->comm, &rq[q++]);
    if (q) {
        int w = MPI_Waitall((int)q, rq, rs->st); /* not MPI_STATUSES_IGNORE: MPICH's header then trips
                                                    gcc's -Wstringop-overflow */
        if (rc == MPI_SUCCESS) rc = w;
    }
    return rc;
}

/* One owned chunk on its owner: the pieces sent for it, and where its covered runs went. */
typedef struct {
    uint64_t idx;
    MPI_Offset addr;
    int src;
    int64_t local;            /* a read's chunk only its owner touches (agg_local): the piece's index */
    const uint64_t *hdr;      /* header, then records */
    uint64_t doff;            /* the piece's bytes: offset in the received (write) or reply (read) buffer */
} cd_agg_ent;
static int cmp_agg_ent(const void *a, const void *b)
{
    const cd_agg_ent *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    if (x->idx != y->idx) return x->idx < y->idx ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}

typedef struct { MPI_Offset foff; uint64_t len; } cd_frun;

static void bits_set(uint64_t *b, uint64_t a, uint64_t n)
{
    while (n > 0 && (a & 63)) { b[a >> 6] |= 1ULL << (a & 63); a++; n--; }
    while (n >= 64) { b[a >> 6] = ~0ULL; a += 64; n -= 64; }
    while (n > 0) { b[a >> 6] |= 1ULL << (a & 63); a++; n--; }
}

/* Next covered run [*a, *b) at or after from, 0 if none. */
static int bits_next_run(const uint64_t *b, uint64_t nbits, uint64_t from, uint64_t *ra, uint64_t *rb)
{
    uint64_t i = from;
    while (i < nbits) {
        uint64_t w = b[i >> 6] >> (i & 63);
        if (w == 0) { i = (i | 63) + 1; continue; }
        i += (uint64_t)__builtin_ctzll(w);
        break;
    }
    if (i >= nbits) return 0;
    *ra = i;
    while (i < nbits) {
        uint64_t w = ~b[i >> 6] >> (i & 63);
        if ((i & 63) && w == 0) { i = (i | 63) + 1; continue; }
        if (w == 0) { i += 64; continue; }
        i += (uint64_t)__builtin_ctzll(w);
        break;
    }
    *rb = i < nbits ? i : nbits;
    return 1;
}

static uint64_t rec_end(const cd_rec *r) { return r->off + (r->count2 - 1) * r->stride2 + (r->count - 1) * r->stride + r->len; }

typedef struct {
    cd_agg_ent *ent;
    uint64_t nent;
    cd_frun *run;              /* covered runs of every owned chunk, address order */
    uint64_t nrun, runcap;
    uint64_t *grun;            /* per entry group (indexed by its first entry): first run */
    unsigned char *pack;       /* covered bytes, in run order: the round's send buffer, whose bytes are
                                  dead by then (agg_round), or packbuf when that is too small */
    uint64_t packlen, packcap;
    unsigned char *img;        /* one chunk window */
    uint64_t imgcap;
    unsigned char *tmp;        /* filtered reads: scratch for decoding one chunk */
    uint64_t tmpcap;
    uint64_t *bits;
    uint64_t bitscap;
} cd_agg_own;

/* The entries [i, return) are the pieces of one chunk; [*wlo, *whi) the chunk-local bytes they touch. */
static uint64_t agg_group(const cd_agg_own *o, uint64_t i, uint64_t *wlo, uint64_t *whi)
{
    uint64_t e = i;
    *wlo = UINT64_MAX;
    *whi = 0;
    while (e < o->nent && o->ent[e].idx == o->ent[i].idx) {
        const uint64_t *h = o->ent[e].hdr;
        const cd_rec *r = (const cd_rec *)(h + AGG_HDR);
        if (h[1]) {
            if (r[0].off < *wlo) *wlo = r[0].off;
            if (rec_end(&r[h[1] - 1]) > *whi) *whi = rec_end(&r[h[1] - 1]);
        }
        e++;
    }
    return e;
}

/* count single elements of es bytes, stride bytes apart from chunk-window offset off: their coverage
   bits, and for writes (img) their bytes from d. Element indices advance by addition: a division per
   element (es is not a constant) cost more than the copy. Fixed-size copies for 4 and 8 bytes. */
static void agg_place_elems(uint64_t *bits, unsigned char *img, const unsigned char *d, uint64_t off, uint64_t stride,
                            uint64_t count, size_t es)
{
    const uint64_t es_stride = stride / es;
    for (uint64_t c = 0, e = off / es; c < count; c++, e += es_stride) bits[e >> 6] |= 1ULL << (e & 63);
    if (!img) return;
    switch (es) {
    case 4: for (uint64_t c = 0; c < count; c++, off += stride, d += 4) memcpy(img + off, d, 4); break;
    case 8: for (uint64_t c = 0; c < count; c++, off += stride, d += 8) memcpy(img + off, d, 8); break;
    default: for (uint64_t c = 0; c < count; c++, off += stride, d += es) memcpy(img + off, d, es); break;
    }
}

/* The reverse for reads: count elements of len bytes, stride apart from off in the window, into d. */
static unsigned char *agg_take_runs(unsigned char *d, const unsigned char *img, uint64_t off, uint64_t stride,
                                    uint64_t count, uint64_t len)
{
    switch (len) {
    case 4: for (uint64_t c = 0; c < count; c++, off += stride, d += 4) memcpy(d, img + off, 4); break;
    case 8: for (uint64_t c = 0; c < count; c++, off += stride, d += 8) memcpy(d, img + off, 8); break;
    default: for (uint64_t c = 0; c < count; c++, off += stride, d += len) memcpy(d, img + off, (size_t)len); break;
    }
    return d;
}

/* A read of filtered chunks (the layout can decode them): owners read stored chunks whole. */
static int agg_filtered(const cd_io *io) { return io->dir != DIR_WRITE && io->l && io->l->unfilter; }

/* A read of a chunk no other rank touches (its owner is its only reader): the owner reads it in the
   round's collective call as any owned chunk, but places its bytes straight from the chunk window into
   its own memory. Its bytes neither go to the reply buffer nor come back through the exchange to
   itself, so they cost the round's budget once (the pack), not three times: row and column blocks,
   where nearly every chunk has one reader, then fit in the rounds the shared chunks need, instead of
   ranks taking rounds in turn over their own index ranges (a filtered read of 2048^2 f64 row blocks on
   3 ranks took 4 rounds, each with one rank at work). Its records still go to the owner (itself): they
   say which bytes of the chunk to read. */
static int agg_local(const cd_io *io, const cd_piece *p)
{
    return io->dir != DIR_WRITE && p->nproc == 1 && p->owner == io->f->rank && !(p->flags & PF_UNALLOC);
}

/* Owner, step 2: for writes fills pack with the covered bytes; for reads only computes the runs
   (filtered reads: each chunk's stored bytes, whole). */
static int agg_owner_build(cd_io *io, cd_agg_own *o, const unsigned char *rdata)
{
    const size_t es = io->fes;
    int wr = io->dir == DIR_WRITE;
    MPI_Offset prev_end = -1;
    for (uint64_t i = 0; i < o->nent;) {
        uint64_t wlo, whi, e = agg_group(o, i, &wlo, &whi);
        o->grun[i] = o->nrun;
        if (whi > wlo && agg_filtered(io)) { /* a filtered chunk: its stored bytes, whole */
            const uint64_t st = o->ent[i].hdr[4];
            if (o->ent[i].addr < prev_end)
                return io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " overlaps another chunk in the index", o->ent[i].idx);
            prev_end = o->ent[i].addr + (MPI_Offset)st;
            if (cd_grow((void **)&o->run, &o->runcap, o->nrun + 1, sizeof *o->run))
                return io_fail(io, COLLDIAG_ERR_NOMEM, "listing aggregated runs");
            o->run[o->nrun].foff = o->ent[i].addr;
            o->run[o->nrun].len = st;
            o->nrun++;
            o->packlen += st;
        } else if (whi > wlo) {
            uint64_t nel = (whi - wlo) / es, nw = nel / 64 + 1;
            /* writes assemble the window right where its covered bytes will go in the pack when it fits
               (covered runs then only move left); a separate window buffer otherwise */
            int inplace = wr && o->packcap - o->packlen >= whi - wlo;
            if ((wr && !inplace && cd_grow((void **)&o->img, &o->imgcap, whi - wlo, 1)) ||
                cd_grow((void **)&o->bits, &o->bitscap, nw, sizeof *o->bits))
                return io_fail(io, COLLDIAG_ERR_NOMEM, "a %" PRIu64 "-byte chunk window for aggregation", whi - wlo);
            unsigned char *img = inplace ? o->pack + o->packlen : o->img;
            memset(o->bits, 0, (size_t)nw * sizeof *o->bits);
            for (uint64_t j = i; j < e; j++) {
                const uint64_t *h = o->ent[j].hdr;
                const cd_rec *r = (const cd_rec *)(h + AGG_HDR);
                const unsigned char *d = wr ? rdata + o->ent[j].doff : NULL;
                for (uint64_t q = 0, row = 0; q < h[1]; row = row + 1 < r[q].count2 ? row + 1 : (q++, 0)) {
                    const uint64_t off0 = r[q].off + row * r[q].stride2 - wlo;
                    uint64_t off = off0;
                    if (r[q].len == es && r[q].stride % es == 0) { /* single elements (interleaved access): the hot case */
                        agg_place_elems(o->bits, wr ? img : NULL, d, off0, r[q].stride, r[q].count, es);
                        if (wr) d += r[q].count * es;
                        continue;
                    }
                    const uint64_t nel_run = r[q].len / es;
                    for (uint64_t c = 0; c < r[q].count; c++, off += r[q].stride) {
                        if (wr) {
                            memcpy(img + off, d, (size_t)r[q].len);
                            d += r[q].len;
                        }
                        bits_set(o->bits, off / es, nel_run);
                    }
                }
            }
            const MPI_Offset base = o->ent[i].addr + (MPI_Offset)wlo;
            uint64_t a, b, from = 0;
            while (bits_next_run(o->bits, nel, from, &a, &b)) {
                from = b;
                MPI_Offset f0 = base + (MPI_Offset)(a * es);
                uint64_t len = (b - a) * es;
                if (f0 < prev_end)
                    return io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " overlaps another chunk in the address table", o->ent[i].idx);
                prev_end = f0 + (MPI_Offset)len;
                if (cd_grow((void **)&o->run, &o->runcap, o->nrun + 1, sizeof *o->run))
                    return io_fail(io, COLLDIAG_ERR_NOMEM, "listing aggregated runs");
                o->run[o->nrun].foff = f0;
                o->run[o->nrun].len = len;
                o->nrun++;
                if (wr && o->pack + o->packlen != img + a * es) memmove(o->pack + o->packlen, img + a * es, (size_t)len);
                o->packlen += len;
            }
        }
        i = e;
    }
    return 0;
}

/* Owner, step 4 for a filtered chunk: its stored bytes (at pk in the pack) decoded into the whole
   chunk's image, o->img (the records' offsets are chunk-local). A chunk that does not decode fails
   this rank (agreed at the end of the call: every rank fails) and replies zeros, never stale bytes.
   readers: the ranks whose pieces of it came (HDF5 would have each inflate it). */
static int agg_owner_unfilter(cd_io *io, cd_agg_own *o, uint64_t i, uint64_t pk, uint64_t readers)
{
    const colldiag_layout *l = io->l;
    const uint64_t cb = l->chunk_bytes;
    if (cd_grow((void **)&o->img, &o->imgcap, cb, 1) || cd_grow((void **)&o->tmp, &o->tmpcap, cb, 1))
        return io_fail(io, COLLDIAG_ERR_NOMEM, "a %" PRIu64 "-byte chunk to decode", cb);
    char why[256] = "";
    const double t0 = cd_now();
    const int rc = l->unfilter(l->uctx, (uint32_t)o->ent[i].hdr[5], o->pack + pk, (size_t)o->ent[i].hdr[4], o->img, o->tmp, (size_t)cb, why, sizeof why);
    io->x->filt_decode_s += cd_now() - t0;
    if (rc) {
        memset(o->img, 0, (size_t)cb);
        return io_fail(io, COLLDIAG_ERR_IO, "chunk %" PRIu64 " (%" PRIu64 " bytes stored at %lld): %s", o->ent[i].idx, o->ent[i].hdr[4],
                       (long long)o->ent[i].addr, why);
    }
    io->x->filt_decoded++;
    io->x->filt_decoded_stored += o->ent[i].hdr[4];
    io->x->filt_decoded_raw += cb;
    io->x->filt_decoded_readers += readers;
    return 0;
}

/* A local piece (agg_local) from its chunk's window into memory: each run of the piece's walk is at
   its chunk-local offset in the window, which starts at chunk-local byte wlo. */
typedef struct { cd_copy c; const unsigned char *img; MPI_Offset base; } cd_agg_place;
static int agg_run_place(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    cd_agg_place *a = ctx;
    a->c.cursor = (unsigned char *)a->img + (foff - a->base);
    return cd_mem_runs(a->c.io->ms, k, n, mrun_copy_out, &a->c);
}

/* Owner, step 4 (reads): the pack back into chunk windows, and every piece's bytes into its reply (a
   local piece's into this rank's memory). */
static int agg_owner_reply(cd_io *io, cd_agg_own *o, unsigned char *reply)
{
    uint64_t pk = 0;
    for (uint64_t i = 0; i < o->nent;) {
        uint64_t wlo, whi, e = agg_group(o, i, &wlo, &whi);
        if (whi > wlo && agg_filtered(io)) { /* the whole chunk, decoded: the image starts at the chunk */
            agg_owner_unfilter(io, o, i, pk, e - i);
            pk += o->ent[i].hdr[4];
            wlo = 0;
        } else if (whi > wlo) { /* the covered runs read, laid back into the window [wlo, whi) */
            if (cd_grow((void **)&o->img, &o->imgcap, whi - wlo, 1))
                return io_fail(io, COLLDIAG_ERR_NOMEM, "a %" PRIu64 "-byte chunk window for aggregation", whi - wlo);
            const MPI_Offset base = o->ent[i].addr + (MPI_Offset)wlo;
            uint64_t rend = e < o->nent ? o->grun[e] : o->nrun;
            for (uint64_t q = o->grun[i]; q < rend; q++) {
                memcpy(o->img + (o->run[q].foff - base), o->pack + pk, (size_t)o->run[q].len);
                pk += o->run[q].len;
            }
        }
        for (uint64_t j = i; whi > wlo && j < e; j++) {
            if (o->ent[j].local >= 0) {
                const cd_piece *p = &io->map.pc[o->ent[j].local];
                cd_agg_place a = {{io, NULL}, o->img, p->addr + (MPI_Offset)wlo};
                if (cd_walk_piece_blocks(&io->map, io->fs, p, agg_run_place, NULL, NULL, &a))
                    return io_fail(io, COLLDIAG_ERR_ARG, "placing chunk %" PRIu64, p->idx);
                continue;
            }
            const uint64_t *h = o->ent[j].hdr;
            const cd_rec *r = (const cd_rec *)(h + AGG_HDR);
            unsigned char *d = reply + o->ent[j].doff;
            for (uint64_t q = 0; q < h[1]; q++)
                for (uint64_t row = 0; row < r[q].count2; row++)
                    d = agg_take_runs(d, o->img, r[q].off + row * r[q].stride2 - wlo, r[q].stride, r[q].count, r[q].len);
        }
        i = e;
    }
    return 0;
}

/* Step 3: the owner's runs in agreed rounds of collective calls (independent calls with INDIVIDUAL_IO, or
   where AUTO measured them faster: io->agg_indep, measure.c's meas_agg_judge; each run is contiguous, so
   no MPI-IO layer sieves it). Every rank calls this, failed or not; gfail (agreed) skips the data. */
static void agg_move(cd_io *io, const cd_agg_own *o, uint64_t gmax)
{
    if (io->set.coll_opt == COLLDIAG_MPIO_INDIVIDUAL_IO || io->agg_indep) {
        double t0 = cd_now();
        uint64_t pk = 0;
        for (uint64_t q = 0; q < o->nrun && !io->code; q++) {
            io_raw(io, io->dir == DIR_WRITE, o->run[q].foff, o->pack + pk, o->run[q].len);
            pk += o->run[q].len;
        }
        io->x->cnt.t_io += cd_now() - t0;
        return;
    }
    /* calls of at most the collective buffer per rank (more only when one chunk's window is bigger) */
    const uint64_t cap = io->set.coll_buf < COLLDIAG_COLL_MAX_BYTES ? io->set.coll_buf : COLLDIAG_COLL_MAX_BYTES;
    uint64_t rounds = gmax / cap + (gmax % cap != 0) + (gmax == 0), total = io->code ? 0 : o->packlen;
    const uint64_t per = total / rounds + (total % rounds != 0);
    uint64_t q = 0, pos = 0; /* run cursor, and the pack offset where run q starts */
    for (uint64_t rd = 0; rd < rounds; rd++) {
        double t0 = cd_now();
        uint64_t lo = rd * per, hi = lo + per > total ? total : lo + per;
        if (lo > total) lo = total;
        cd_stream fs;
        memset(&fs, 0, sizeof fs);
        fs.flush_at = stream_flush_items(io);
        while (!io->code && q < o->nrun && pos < hi) {
            uint64_t a = pos > lo ? pos : lo, b = pos + o->run[q].len < hi ? pos + o->run[q].len : hi;
            stream_add(&fs, (int64_t)(o->run[q].foff + (MPI_Offset)(a - pos)), b - a);
            if (pos + o->run[q].len <= hi) { pos += o->run[q].len; q++; }
            else break;
        }
        if (fs.nomem) io_fail(io, COLLDIAG_ERR_NOMEM, "describing %" PRIu64 " aggregated runs", o->nrun);
        MPI_Datatype ft = MPI_DATATYPE_NULL;
        if (!io->code && cd_inject(io, "types")) io_fail(io, COLLDIAG_ERR_NOMEM, "building the MPI datatypes (injected)");
        if (!io->code && fs.bytes) {
            int rc = stream_type(&fs, &ft, &io->types_built);
            if (rc) cd_mpi_err(io, rc, "building the MPI datatypes");
        }
        if (!io->code && cd_inject(io, "io")) io_fail(io, COLLDIAG_ERR_MPI, "MPI_File_write_at_all failed (injected)");
        int have = !io->code && ft != MPI_DATATYPE_NULL;
        int rc = MPI_File_set_view(io->f->fh, 0, MPI_BYTE, have ? ft : MPI_BYTE, "native", MPI_INFO_NULL);
        if (rc != MPI_SUCCESS) { cd_mpi_err(io, rc, "MPI_File_set_view"); have = 0; }
        const uint64_t cnt = hi - lo; /* <= COLLDIAG_COLL_MAX_BYTES by the rounds */
        MPI_Count got = coll_data_call(io, o->pack + lo, (int)cnt, MPI_BYTE, cnt, have);
        if (got >= 0 && (uint64_t)got < cnt && io->dir == DIR_READ) /* past EOF: zeros, as unwritten storage */
            memset(o->pack + lo + got, 0, (size_t)(cnt - (uint64_t)got));
        if (ft != MPI_DATATYPE_NULL) MPI_Type_free(&ft);
        stream_free(&fs);
        io->x->cnt.t_io += cd_now() - t0;
    }
    view_reset(io);
}

/* Buffers of an aggregated call, reused by every round and grown to the largest round's needs. */
typedef struct {
    uint64_t *cnt;             /* 8P words: per peer r, [2r] record words and [2r+1] data bytes sent, their
                                  displacements, the same received, their displacements; then 4P for one
                                  exchange's byte counts and displacements; then P + 1 and P for grouping;
                                  then dcnt and ddsp, P each: the counts' sparse exchange */
    uint64_t *dcnt, *ddsp;
    int *dest;                 /* the owners this rank tells its counts (P at most) */
    uint64_t *by;              /* the round's allocated pieces, grouped by owner, ascending chunk inside */
    cd_agg_send s;
    unsigned char *sdata, *rdata, *packbuf;
    uint64_t scap, rcap, packbufcap;
    uint64_t *rmeta;
    uint64_t rmcap, entcap, gruncap, rqcap, stcap;
    cd_reqs rs;
    cd_agg_own o;
} cd_agg_state;

/* Buffers of a round (data, and records) grow to exactly what it needs, need elements of es bytes,
   their old contents dropped: doubling would round a 4 MiB budget up to 8 MiB. */
static int agg_reserve(void **p, uint64_t *cap, uint64_t need, size_t es)
{
    if (*p && need <= *cap) return 0;
    cd_free(*p);
    *p = cd_malloc((size_t)(need ? need : 1) * es);
    *cap = *p ? need : 0;
    return *p ? 0 : -1;
}

/* What one round may hold, as a rank estimates it before the round: the send buffer (its data, and
   later the owner's pack of covered bytes, at most what the owner received, in the same buffer), the
   received data, and the records both ways, reserved exactly:
       max(sent data, received) + received + sent records,  received = data + records,
   at most three quarters of the collective buffer, beside one chunk window. (A quarter each for the
   send copy, the received pieces and a separate pack, as before, cut B3's 5.6 MB per rank into two
   rounds of every exchange and collective call, and did not count the records.) */
static uint64_t agg_budget(const cd_io *io)
{
    const uint64_t b = io->set.coll_buf / 4 * 3;
    return b ? b : 1;
}

/* "Every remaining chunk": INT64_MAX, not UINT64_MAX, because MPICH 4.0.2 reduces MPI_UINT64_T with
   MPI_MIN/MPI_MAX as signed (MIN(UINT64_MAX, 48) = UINT64_MAX there). Chunk indices stay below it: a
   layout's storage must fit an MPI_Offset. */
#define AGG_ALL ((uint64_t)INT64_MAX)

/* This rank's proposal for the end of the round starting at piece j: the first chunk index it cannot
   take without going over the budget (its next chunk is always taken, so a round makes progress even
   when one chunk alone is bigger), AGG_ALL when all its remaining pieces fit. words: agg_count_words.
   Pure. */
static uint64_t agg_round_end(const cd_io *io, const uint64_t *words, uint64_t j, uint64_t n)
{
    const cd_map *m = &io->map;
    const uint64_t budget = agg_budget(io);
    const int filt = agg_filtered(io);
    /* sd: this rank's pieces' bytes (sent, or received back); sw: their records; rb: what it receives
       as an owner (pieces and records; a read's replies); pk: its pack of owned chunks (covered bytes,
       or a filtered chunk's stored bytes: the owner selects from the chunk, so its own piece knows
       them). The send buffer holds sd, then the pack. */
    uint64_t sd = 0, sw = 0, rb = 0, pk = 0, e = j;
    for (; e < n; e++) {
        const cd_piece *p = &m->pc[e];
        const int un = (p->flags & PF_UNALLOC) != 0, loc = agg_local(io, p), own = !un && p->owner == io->f->rank;
        const uint64_t w = un ? 0 : words[e] * 8, d = un || loc ? 0 : p->nelem * io->fes;
        const uint64_t r = !own ? 0 : loc ? w : p->abytes;
        const uint64_t k = !own ? 0 : filt ? p->stored : loc ? p->nelem * io->fes : p->abytes;
        const uint64_t d2 = sd + d, r2 = rb + r, k2 = pk + k;
        if (e > j && (d2 > k2 ? d2 : k2) + r2 + sw + w > budget) break;
        sd = d2;
        sw += w;
        rb = r2;
        pk = k2;
    }
    return e < n ? m->pc[e].idx : AGG_ALL;
}

/* One round over this rank's pieces [j0, j1): describe and pack them by owner, exchange, assemble on
   the owners, move the covered runs collectively, and for reads send the bytes back. Collective; a
   failed rank still takes part. Returns nonzero when the round failed on some rank (agreed), so that
   no further round starts. */
static int agg_round(cd_io *io, cd_agg_state *st, const uint64_t *words, uint64_t j0, uint64_t j1)
{
    const int P = io->f->size;
    const cd_map *m = &io->map;
    const int wr = io->dir == DIR_WRITE;
    double t0 = cd_now();
    uint64_t *sc = st->cnt, *sd = sc + 2 * P, *rc_ = sc + 4 * P, *rdp = sc + 6 * P; /* [2r] words, [2r+1] bytes */
    uint64_t *scb = sc + 8 * P, *sdb = scb + P, *rcb = scb + 2 * P, *rdbb = scb + 3 * P;
    uint64_t *gstart = sc + 12 * P, *fill = gstart + P + 1;
    memset(sc, 0, (size_t)P * 8 * sizeof *sc);
    cd_agg_send *s = &st->s;
    s->mlen = 0;
    s->mk = s->mn = 0;
    s->nomem = 0;
    s->pack = wr;
    cd_agg_own *o = &st->o;
    o->nent = o->nrun = o->packlen = 0;
    uint64_t dtotal = 0, nby = 0, rown = 0, mwords = 0;
    if (!io->code) {
        memset(gstart, 0, (size_t)(2 * P + 1) * sizeof *gstart);
        for (uint64_t i = j0; i < j1; i++) {
            if (m->pc[i].flags & PF_UNALLOC) continue; /* reads give zeros here; writes failed earlier */
            const uint64_t d = agg_local(io, &m->pc[i]) ? 0 : m->pc[i].nelem * io->fes; /* local: no bytes move */
            sc[2 * m->pc[i].owner + 1] += d;
            dtotal += d;
            if (m->pc[i].owner == io->f->rank) rown += m->pc[i].abytes; /* what the owner will receive */
            mwords += words[i];
            gstart[m->pc[i].owner + 1]++;
        }
        for (int r = 0; r < P; r++) gstart[r + 1] += gstart[r];
        for (uint64_t i = j0; i < j1; i++)
            if (!(m->pc[i].flags & PF_UNALLOC)) st->by[gstart[m->pc[i].owner] + fill[m->pc[i].owner]++] = i;
        nby = gstart[P];
        /* sized for the pack as well, which takes this buffer over once its bytes are sent */
        if (agg_reserve((void **)&st->sdata, &st->scap, dtotal > rown ? dtotal : rown, 1) ||
            agg_reserve((void **)&s->meta, &s->mcap, mwords, sizeof *s->meta))
            io_fail(io, COLLDIAG_ERR_NOMEM, "a %" PRIu64 "-byte aggregation send buffer", dtotal > rown ? dtotal : rown);
        /* describe (and for writes pack) every piece, owner by owner */
        s->cursor = st->sdata;
        for (int r = 0; r < P && !io->code; r++) {
            sd[2 * r] = s->mlen;
            sd[2 * r + 1] = (uint64_t)(s->cursor - st->sdata);
            for (uint64_t j = gstart[r]; j < gstart[r + 1] && !io->code; j++) {
                const cd_piece *p = &m->pc[st->by[j]];
                const uint64_t h = s->mlen;
                const int loc = agg_local(io, p);
                if (!wr && !loc) s->cursor += p->nelem * io->fes;
                if (agg_describe_piece(s, p)) io_fail(io, COLLDIAG_ERR_ARG, "gathering chunk %" PRIu64, p->idx);
                if (s->nomem) break;
                if (loc) s->meta[h + 2] = 0; /* its bytes are placed by the owner, itself */
            }
            sc[2 * r] = s->mlen - sd[2 * r];
        }
        if (s->nomem) io_fail(io, COLLDIAG_ERR_NOMEM, "describing %" PRIu64 " chunks for aggregation", j1 - j0);
    }
    if (!io->code && cd_inject(io, "exchange")) io_fail(io, COLLDIAG_ERR_NOMEM, "the aggregation exchange (injected)");
    if (io->code) memset(sc, 0, (size_t)P * 2 * sizeof *sc); /* a failed rank sends nothing; peers expect nothing */
    file_nodes(io->f); /* collective the first time a file: every rank of the round is here */
    file_probes(io->f);
    /* each rank tells the owners it has pieces for what they will receive (words, bytes); the ranks
       that told this one are those it receives from: a sparse exchange, O(owners) a rank, not an
       MPI_Alltoall's O(P) messages (or O(P log P) bytes). The pair to itself needs no message. */
    int ndst = 0, spx_lost = 0;
    const int me = io->f->rank;
    for (int r = 0; r < P; r++)
        if (r != me && (sc[2 * r] || sc[2 * r + 1])) {
            st->dest[ndst] = r;
            st->dcnt[ndst] = 2;
            st->ddsp[ndst++] = 2 * (uint64_t)r;
        }
    cd_spx in;
    int mrc = spx_exchange(io->f->comm, SPX_TAG_AGG, ndst, st->dest, st->dcnt, st->ddsp, sc, &in, &spx_lost);
    if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "the sparse exchange of aggregation counts");
    memset(rc_, 0, (size_t)P * 2 * sizeof *rc_);
    rc_[2 * me] = sc[2 * me];
    rc_[2 * me + 1] = sc[2 * me + 1];
    for (int i = 0; i < in.n; i++)
        if (in.cnt[i] == 2 && in.src[i] != me) { rc_[2 * in.src[i]] = in.buf[in.dsp[i]]; rc_[2 * in.src[i] + 1] = in.buf[in.dsp[i] + 1]; }
        else spx_lost = 1; /* a malformed count: receive nothing rather than guess */
    spx_free(&in);
    /* the data bytes this rank sends to ranks on other nodes: its pieces to their owners (writes), or as
       an owner the bytes it read back to the ranks that asked (reads); records not counted */
    if (io->f->node_n > 0 && mrc == MPI_SUCCESS && !io->code) {
        io->x->nodes_known = 1;
        for (int r = 0; r < P; r++)
            if (!file_same_node(io->f, r)) io->x->off_node_bytes += wr ? sc[2 * r + 1] : rc_[2 * r + 1];
    }
    uint64_t rmw = 0, rdb = 0;
    for (int r = 0; r < P; r++) { rdp[2 * r] = rmw; rdp[2 * r + 1] = rdb; rmw += rc_[2 * r]; rdb += rc_[2 * r + 1]; }
    /* request arrays for the largest of the exchanges (records; bytes; and the reply, its mirror) */
    uint64_t nm = agg_nmsg(sc, P, 2, 8) + agg_nmsg(rc_, P, 2, 8), nd = agg_nmsg(sc + 1, P, 2, 1) + agg_nmsg(rc_ + 1, P, 2, 1);
    uint64_t nreq = nm > nd ? nm : nd;
    /* a rank that cannot post its receives would leave its peers' sends hanging: agree first */
    int lost = spx_lost || agg_reserve((void **)&st->rmeta, &st->rmcap, rmw, sizeof *st->rmeta) ||
               agg_reserve((void **)&st->rdata, &st->rcap, rdb, 1) ||
               (rdb > st->scap && agg_reserve((void **)&st->packbuf, &st->packbufcap, rdb, 1)) ||
               cd_grow((void **)&st->rs.rq, &st->rqcap, nreq ? nreq : 1, sizeof(MPI_Request)) ||
               cd_grow((void **)&st->rs.st, &st->stcap, nreq ? nreq : 1, sizeof(MPI_Status));
    o->pack = rdb > st->scap ? st->packbuf : st->sdata;
    o->packcap = rdb > st->scap ? st->packbufcap : st->scap;
    int glost = 1;
    if (!lost && !io->code && cd_inject(io, "buffers")) lost = 1;
    if (lost) io_fail(io, COLLDIAG_ERR_NOMEM, "aggregation exchange buffers (%" PRIu64 " bytes to receive)", rdb);
    mrc = MPI_Allreduce(&lost, &glost, 1, MPI_INT, MPI_MAX, io->f->comm);
    if (mrc != MPI_SUCCESS) { cd_mpi_err(io, mrc, "MPI_Allreduce (aggregation buffers)"); glost = 1; }
    if (!glost) {
        for (int r = 0; r < P; r++) {
            scb[r] = sc[2 * r] * 8; sdb[r] = sd[2 * r] * 8; rcb[r] = rc_[2 * r] * 8; rdbb[r] = rdp[2 * r] * 8;
        }
        mrc = agg_p2p(io, &st->rs, (const unsigned char *)s->meta, scb, sdb, (unsigned char *)st->rmeta, rcb, rdbb, 71);
        if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "exchanging chunk pieces");
        if (wr) {
            for (int r = 0; r < P; r++) {
                scb[r] = sc[2 * r + 1]; sdb[r] = sd[2 * r + 1]; rcb[r] = rc_[2 * r + 1]; rdbb[r] = rdp[2 * r + 1];
            }
            mrc = agg_p2p(io, &st->rs, st->sdata, scb, sdb, st->rdata, rcb, rdbb, 72);
            if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "exchanging chunk bytes");
        }
    }
    /* owner: entries for every piece received, sorted by chunk address (nothing was received when a
       rank could not take part in the exchange) */
    if (!io->code && !glost) {
        const uint64_t *rmeta = st->rmeta;
        uint64_t ne = 0;
        for (uint64_t w = 0; w < rmw;) {
            if (w + AGG_HDR > rmw || rmeta[w + 1] > (rmw - w - AGG_HDR) / AGG_REC) { io_fail(io, COLLDIAG_ERR_MPI, "a malformed aggregation message"); break; }
            w += AGG_HDR + rmeta[w + 1] * AGG_REC;
            ne++;
        }
        if (cd_grow((void **)&o->ent, &st->entcap, ne ? ne : 1, sizeof *o->ent) ||
            cd_grow((void **)&o->grun, &st->gruncap, ne ? ne : 1, sizeof *o->grun))
            io_fail(io, COLLDIAG_ERR_NOMEM, "listing %" PRIu64 " received pieces", ne);
        for (int r = 0; r < P && !io->code; r++) {
            uint64_t doff = rdp[2 * r + 1], k = gstart[io->f->rank]; /* this rank's own pieces came in st->by's order */
            for (uint64_t w = rdp[2 * r]; w < rdp[2 * r] + rc_[2 * r];) {
                cd_agg_ent *e = &o->ent[o->nent++];
                e->local = -1;
                if (r == io->f->rank) {
                    if (k >= gstart[r + 1] || m->pc[st->by[k]].idx != rmeta[w]) {
                        io_fail(io, COLLDIAG_ERR_MPI, "an aggregation message to itself out of order");
                        break;
                    }
                    if (agg_local(io, &m->pc[st->by[k]])) e->local = (int64_t)st->by[k];
                    k++;
                }
                e->idx = rmeta[w];
                e->addr = io->l->storage == STORE_CHUNKED && e->idx < io->l->nchunks ? (MPI_Offset)rmeta[w + 3] : -1;
                e->src = r;
                e->hdr = rmeta + w;
                e->doff = doff;
                doff += rmeta[w + 2];
                if (e->addr < 0) { io_fail(io, COLLDIAG_ERR_MPI, "aggregation message for chunk %" PRIu64 " without storage", e->idx); break; }
                w += AGG_HDR + rmeta[w + 1] * AGG_REC;
            }
        }
        if (!io->code) {
            qsort(o->ent, (size_t)o->nent, sizeof *o->ent, cmp_agg_ent);
            agg_owner_build(io, o, st->rdata);
            /* reads: the owned chunks' stored bytes may outgrow the pieces' (a piece of one element
               needs its whole filtered chunk), and local pieces' bytes were never received: the pack
               grows (before the agreement below) */
            if (!io->code && !wr && o->packlen > o->packcap) {
                if (agg_reserve((void **)&st->packbuf, &st->packbufcap, o->packlen, 1))
                    io_fail(io, COLLDIAG_ERR_NOMEM, "%" PRIu64 " bytes of stored chunks", o->packlen);
                else { o->pack = st->packbuf; o->packcap = st->packbufcap; }
            }
        }
    }
    uint64_t held = st->scap + st->rcap + st->packbufcap + o->imgcap;
    if (held > io->x->data_buf_bytes) io->x->data_buf_bytes = held;
    /* the exchange and the owners' assembly count as moving data */
    io->x->cnt.t_io += cd_now() - t0;
    /* agree on the round's calls and on whether anybody failed: nobody moves data unless everybody can */
    uint64_t v[2] = {io->code ? 0 : o->packlen, io->code != 0}, g[2] = {0, 0};
    mrc = MPI_Allreduce(v, g, 2, MPI_UINT64_T, MPI_MAX, io->f->comm);
    if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "MPI_Allreduce (aggregation rounds)");
    if (g[1] || glost || mrc != MPI_SUCCESS) return 1;
    agg_move(io, o, g[0]);
    if (!wr) {
        t0 = cd_now();
        /* replies: each owner returns every piece's bytes in the order its records came */
        if (!io->code) agg_owner_reply(io, o, st->rdata);
        held = st->scap + st->rcap + st->packbufcap + o->imgcap; /* the reply's chunk window is a data copy too */
        if (held > io->x->data_buf_bytes) io->x->data_buf_bytes = held;
        for (int r = 0; r < P; r++) {
            scb[r] = rc_[2 * r + 1]; sdb[r] = rdp[2 * r + 1]; rcb[r] = sc[2 * r + 1]; rdbb[r] = sd[2 * r + 1];
        }
        mrc = agg_p2p(io, &st->rs, st->rdata, scb, sdb, st->sdata, rcb, rdbb, 73);
        if (mrc != MPI_SUCCESS) cd_mpi_err(io, mrc, "returning chunk bytes");
        /* scatter into memory, owner group by owner group in the order the pieces were described */
        cd_agg_recv c;
        memset(&c, 0, sizeof c);
        c.c.io = io;
        c.c.cursor = st->sdata;
        for (uint64_t j = 0; j < nby && !io->code; j++) {
            const cd_piece *p = &m->pc[st->by[j]];
            if (agg_local(io, p)) continue; /* placed by the owner's reply, itself */
            if (cd_walk_piece_blocks(m, io->fs, p, agg_run_recv, NULL, agg_rows_recv, &c))
                io_fail(io, COLLDIAG_ERR_ARG, "scattering chunk %" PRIu64, p->idx);
        }
        io->x->cnt.t_io += cd_now() - t0;
    }
    return 0;
}

/* The data buffers (send, receive, pack) live on in the file between calls: a time-step loop that
   freed them each call paid the kernel for every fresh page again (B1's row blocks written by
   aggregation on 2 ranks: 41 ms a call with fresh pages, 2.5 ms with kept ones, this machine; glibc
   returns blocks this large to the kernel on free). Kept only while together they fit the budget
   (agg_budget: three quarters of the collective buffer, what the call held anyway); a round that
   needed more (one chunk larger than the budget) gives them back. Freed with the file. */
static void agg_keep_take(colldiag_file *f, cd_agg_state *st)
{
    st->sdata = f->keep.sdata; st->scap = f->keep.scap;
    st->rdata = f->keep.rdata; st->rcap = f->keep.rcap;
    st->packbuf = f->keep.packbuf; st->packbufcap = f->keep.packbufcap;
    memset(&f->keep, 0, sizeof f->keep);
}

static void agg_keep_put(const cd_io *io, cd_agg_state *st)
{
    colldiag_file *f = io->f;
    file_keep_free(f);
    if (st->scap + st->rcap + st->packbufcap <= agg_budget(io)) {
        f->keep.sdata = st->sdata; f->keep.scap = st->scap;
        f->keep.rdata = st->rdata; f->keep.rcap = st->rcap;
        f->keep.packbuf = st->packbuf; f->keep.packbufcap = st->packbufcap;
    } else {
        cd_free(st->sdata);
        cd_free(st->rdata);
        cd_free(st->packbuf);
    }
    st->sdata = st->rdata = st->packbuf = NULL;
}

/* The whole scheme after owners are known (pc[].owner, and on owners pc[].abytes), in agreed rounds of
   chunk-index windows: each rank proposes where its budget (agg_budget) ends, one MIN-reduction picks
   the earliest proposal, and every chunk below it moves in that round, so all of a chunk's pieces meet
   on its owner in the same round (the highest rank's bytes win where pieces overlap). A round carries
   the agreed failure of the one before, so a failure anywhere stops every rank before the next. The
   number of rounds is about the largest rank's bytes over the budget when the load is even, and never
   more than the sum over ranks. Collective; a failed rank still takes part. */
static void exec_aggregate(cd_io *io, const uint64_t *words)
{
    const int P = io->f->size;
    const cd_map *m = &io->map;
    uint64_t n = io->code ? 0 : m->n;
    cd_agg_state st;
    memset(&st, 0, sizeof st);
    st.s.io = io;
    agg_keep_take(io->f, &st);
    st.cnt = cd_calloc((size_t)P * 16 + 1, sizeof *st.cnt);
    st.dcnt = st.cnt ? st.cnt + (size_t)P * 14 + 1 : NULL;
    st.ddsp = st.cnt ? st.dcnt + P : NULL;
    st.dest = cd_malloc((size_t)P * sizeof *st.dest);
    st.by = cd_malloc((size_t)(n ? n : 1) * sizeof *st.by);
    if (!st.cnt || !st.by || !st.dest) { io_fail(io, COLLDIAG_ERR_NOMEM, "aggregation counts for %d ranks and %" PRIu64 " chunks", P, n); n = 0; }
    for (uint64_t j = 0;;) {
        uint64_t v[2] = {io->code ? AGG_ALL : agg_round_end(io, words, j, n), io->code ? 0 : 1}, g[2] = {0, 0};
        int mrc = MPI_Allreduce(v, g, 2, MPI_UINT64_T, MPI_MIN, io->f->comm);
        if (mrc != MPI_SUCCESS) { cd_mpi_err(io, mrc, "MPI_Allreduce (aggregation round)"); break; }
        if (!g[1]) break; /* some rank failed: nobody starts another round */
        uint64_t k = j;
        while (k < n && m->pc[k].idx < g[0]) k++;
        if (agg_round(io, &st, words, j, k) || g[0] == AGG_ALL) break;
        j = k;
    }
    /* reads: unallocated chunks read as zeros (or a filtered dataset's fill value), locally */
    for (uint64_t i = 0; i < n && io->dir != DIR_WRITE && !io->code; i++)
        if (m->pc[i].flags & PF_UNALLOC) cd_walk_piece(m, io->fs, &m->pc[i], io->l->fill ? run_fill : run_zero, io);
    cd_free(st.cnt);
    cd_free(st.dest);
    cd_free(st.by);
    cd_free(st.rs.rq);
    cd_free(st.rs.st);
    cd_free(st.s.meta);
    cd_free(st.rmeta);
    agg_keep_put(io, &st);
    cd_free(st.o.ent);
    cd_free(st.o.grun);
    cd_free(st.o.run);
    cd_free(st.o.img);
    cd_free(st.o.tmp);
    cd_free(st.o.bits);
}
