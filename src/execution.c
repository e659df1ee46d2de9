/* ---------------------------------------------------------------------------------------------------
 * 9. execution: primitives
 * --------------------------------------------------------------------------------------------------- */

static int io_raw(cd_io *io, int write, MPI_Offset off, void *p, uint64_t len)
{
    colldiag_counters *c = &io->x->cnt;
    if (cd_inject(io, "io")) return io_fail(io, COLLDIAG_ERR_IO, "%s at offset %lld failed (injected)", write ? "pwrite" : "pread", (long long)off);
    while (len > 0) {
        uint64_t part = len > CD_MAX_INT_COUNT ? CD_BIG_BLOCK : len;
        uint64_t done = 0;
        if (io->f->driver == COLLDIAG_DRIVER_POSIX) {
            ssize_t r = write ? pwrite(io->f->fd, p, (size_t)part, (off_t)off) : pread(io->f->fd, p, (size_t)part, (off_t)off);
            c->calls_independent++;
            if (r < 0) {
                if (errno == EINTR) continue;
                return io_fail(io, COLLDIAG_ERR_IO, "%s at offset %lld failed: %s", write ? "pwrite" : "pread",
                               (long long)off, strerror(errno));
            }
            if (r == 0 && !write) { memset(p, 0, (size_t)part); r = (ssize_t)part; } /* past EOF: zeros, as unwritten storage */
            if (r == 0) return io_fail(io, COLLDIAG_ERR_IO, "pwrite at offset %lld wrote nothing", (long long)off);
            done = (uint64_t)r;
        } else {
            MPI_Status st;
            int rc = write ? MPI_File_write_at(io->f->fh, off, p, (int)part, MPI_BYTE, &st)
                           : MPI_File_read_at(io->f->fh, off, p, (int)part, MPI_BYTE, &st);
            c->calls_independent++;
            if (rc != MPI_SUCCESS) {
                char es[MPI_MAX_ERROR_STRING];
                int n;
                MPI_Error_string(rc, es, &n);
                return io_fail(io, COLLDIAG_ERR_MPI, "%s at offset %lld failed: %s", write ? "MPI_File_write_at" : "MPI_File_read_at",
                               (long long)off, es);
            }
            int got = 0;
            MPI_Get_count(&st, MPI_BYTE, &got);
            if (got < 0 || (uint64_t)got > part) got = (int)part;
            if ((uint64_t)got < part) {
                if (write) return io_fail(io, COLLDIAG_ERR_IO, "MPI_File_write_at wrote %d of %" PRIu64 " bytes", got, part);
                memset((char *)p + got, 0, (size_t)(part - (uint64_t)got)); /* past EOF */
            }
            done = part;
        }
        c->bytes_independent += done;
        off += (MPI_Offset)done;
        p = (char *)p + done;
        len -= done;
    }
    return 0;
}

/* cnt rows of len bytes, src_step and dst_step apart. Chunk rows are often a few dozen bytes (B4: 32),
   where a call to memcpy costs more than the copy: the common sizes are copied with a fixed length the
   compiler inlines. */
static void copy_rows(unsigned char *dst, size_t dst_step, const unsigned char *src, size_t src_step, size_t len, uint64_t cnt)
{
#define CD_COPY_ROWS(L)                                                                              \
    for (uint64_t c = 0; c < cnt; c++, dst += dst_step, src += src_step) memcpy(dst, src, L);        \
    return
    switch (len) {
    case 4: CD_COPY_ROWS(4);
    case 8: CD_COPY_ROWS(8);
    case 16: CD_COPY_ROWS(16);
    case 32: CD_COPY_ROWS(32);
    case 64: CD_COPY_ROWS(64);
    default: CD_COPY_ROWS(len);
    }
#undef CD_COPY_ROWS
}

/* --- independent runs through a staging buffer --- */

/* A read's scatter record: cnt runs of n elements, the c-th from iteration index k + c * kstr, lying
   one after the other in the staging buffer (a block of rows adjacent in the file is one record). */
typedef struct { uint64_t k, n, cnt, kstr; } cd_kn;

typedef struct {
    cd_io *io;
    unsigned char *fst;   /* file-typed staging */
    size_t fcap;          /* bytes */
    unsigned char *mst;   /* memory-typed staging (conversion only) */
    MPI_Offset poff;      /* pending file region */
    uint64_t plen;        /* bytes */
    cd_kn *kl;            /* reads: the (k, n) runs of the pending region, at most kmax */
    uint64_t nk, kmax;
    int unalloc;          /* pending region belongs to unallocated chunks (reads: zeros) */
    unsigned char *dp;    /* the pending direct region (stage_direct): the caller's bytes (a write only reads them), */
    MPI_Offset doff;      /* their place in the file */
    uint64_t dlen;        /* and length (0: none) */
} cd_stage;

/* Memory runs copied to (in) or from (out) a cursor that advances: gathering writes, scattering reads. */
typedef struct { cd_io *io; unsigned char *cursor; } cd_copy;
static int mrun_copy_in(void *ctx, uint64_t moff, uint64_t n)
{
    cd_copy *c = ctx;
    size_t es = c->io->mes;
    memcpy(c->cursor, (const unsigned char *)c->io->wbuf + moff * es, (size_t)(n * es));
    c->cursor += n * es;
    return 0;
}
static int mrun_copy_out(void *ctx, uint64_t moff, uint64_t n)
{
    cd_copy *c = ctx;
    size_t es = c->io->mes;
    memcpy((unsigned char *)c->io->rbuf + moff * es, c->cursor, (size_t)(n * es));
    c->cursor += n * es;
    return 0;
}

static int stage_convert(cd_stage *st, unsigned char *felems, uint64_t n, colldiag_direction_t dir)
{
    cd_io *io = st->io;
    colldiag_xfer *x = io->x;
    if (dir == COLLDIAG_TO_FILE) {
        if (x->conv) {
            int r = x->conv(st->mst, felems, (size_t)n, COLLDIAG_TO_FILE, x->conv_ctx);
            if (r) return io_fail(io, COLLDIAG_ERR_ARG, "the type conversion callback returned %d (TO_FILE)", r);
        }
        if (x->xform) {
            int r = x->xform(felems, (size_t)n, COLLDIAG_TO_FILE, x->xform_ctx);
            if (r) return io_fail(io, COLLDIAG_ERR_ARG, "the data transform callback returned %d (TO_FILE)", r);
        }
    } else {
        if (x->xform) {
            int r = x->xform(felems, (size_t)n, COLLDIAG_TO_MEMORY, x->xform_ctx);
            if (r) return io_fail(io, COLLDIAG_ERR_ARG, "the data transform callback returned %d (TO_MEMORY)", r);
        }
        if (x->conv) {
            int r = x->conv(felems, st->mst, (size_t)n, COLLDIAG_TO_MEMORY, x->conv_ctx);
            if (r) return io_fail(io, COLLDIAG_ERR_ARG, "the type conversion callback returned %d (TO_MEMORY)", r);
        }
    }
    return 0;
}

static int stage_flush(cd_stage *st)
{
    cd_io *io = st->io;
    if (st->plen == 0) return 0;
    int rc = 0;
    if (io->dir == DIR_WRITE) {
        rc = io_raw(io, 1, st->poff, st->fst, st->plen);
    } else {
        if (st->unalloc) memset(st->fst, 0, (size_t)st->plen);
        else rc = io_raw(io, 0, st->poff, st->fst, st->plen);
        unsigned char *fp = st->fst;
        const int conv = io->x->conv || io->x->xform;
        for (uint64_t i = 0; i < st->nk && !rc; i++) {
            const uint64_t n = st->kl[i].n;
            if (!conv && !io->ms) { /* packed buffer: a run's place is its index */
                copy_rows((unsigned char *)io->rbuf + st->kl[i].k * io->mes, (size_t)(st->kl[i].kstr * io->mes), fp,
                          (size_t)(n * io->fes), (size_t)(n * io->fes), st->kl[i].cnt);
                fp += st->kl[i].cnt * n * io->fes;
                continue;
            }
            for (uint64_t c = 0; c < st->kl[i].cnt && !rc; c++, fp += n * io->fes) {
                const uint64_t k = st->kl[i].k + c * st->kl[i].kstr;
                cd_copy cp = {io, fp};
                if (conv) {
                    rc = stage_convert(st, fp, n, COLLDIAG_TO_MEMORY);
                    if (io->x->conv) cp.cursor = st->mst;
                }
                if (!rc) rc = cd_mem_runs(io->ms, k, n, mrun_copy_out, &cp);
            }
        }
    }
    st->plen = 0;
    st->nk = 0;
    return rc;
}

/* A write's long run goes to the file straight from the caller's buffer when it is one run there too
   and nothing converts it, as read_stretch reads: staging it copies every byte for nothing, and a
   fresh staging buffer's pages fault in first (IOR's 1 MiB transfers of 128 KiB chunks under the
   preload on ROMIO: colldiag's first call 5.6-7.8 ms against 0.7 ms warm, most of it copying into
   a fresh buffer; bench-field, 2026-12-01). A read's long run comes straight into the caller's buffer
   the same way: staged, each 4 MiB fill of a fresh buffer was read and then copied out (1-D bands of
   whole 512 KiB chunks on ROMIO, 3 ranks: all-independent 1.9-2.7 ms a call against link-chunk's
   1.2-2.2 ms, which ROMIO reads straight into the buffer; bench-auto's X1d, 2026-12-02). Runs that
   follow each other in both the file and memory are one call, as staged runs are. Shorter runs are
   staged: merged with their neighbours in the file into one call, their copy costs less than a call
   each (an independent call, the model's IND, 4.5 us, is about 45 KB of memcpy). */
#define CD_DIRECT_BYTES ((uint64_t)64 << 10)

static int direct_flush(cd_stage *st)
{
    if (st->dlen == 0) return 0;
    const uint64_t len = st->dlen;
    st->dlen = 0;
    if (st->io->dir != DIR_WRITE && st->unalloc) { memset(st->dp, 0, (size_t)len); return 0; } /* as a staged read's zeros */
    return io_raw(st->io, st->io->dir == DIR_WRITE, st->doff, st->dp, len);
}

/* Whether the memory runs walked are one run: each must start where the last ended (a memory
   selection's walk gives a run per row even where rows span its width). */
typedef struct { uint64_t moff, end; int runs; } cd_first_mrun;
static int mrun_first(void *ctx, uint64_t moff, uint64_t n)
{
    cd_first_mrun *o = ctx;
    if (o->runs && moff != o->end) return 1; /* a gap: not one run (stops the walk) */
    if (!o->runs) o->moff = moff;
    o->runs = 1;
    o->end = moff + n;
    return 0;
}

/* 1 when the write or read of elements [k, k + n) at foff was taken as a direct region (*rc: the
   flushes' result), 0 when it is to be staged. */
static int stage_direct(cd_stage *st, MPI_Offset foff, uint64_t k, uint64_t n, int *rc)
{
    cd_io *io = st->io;
    const uint64_t bytes = n * io->fes;
    *rc = 0;
    if ((io->dir != DIR_WRITE && io->dir != DIR_READ) || io->x->conv || io->x->xform || io->fes != io->mes || bytes < CD_DIRECT_BYTES)
        return 0;
    cd_first_mrun o = {0, 0, 0};
    if (cd_mem_runs(io->ms, k, n, mrun_first, &o) || o.runs != 1) return 0;
    unsigned char *p = (io->dir == DIR_WRITE ? (unsigned char *)(uintptr_t)io->wbuf : (unsigned char *)io->rbuf) + o.moff * io->mes;
    if ((*rc = stage_flush(st))) return 1; /* the staged bytes before it go first: the file's order */
    if (st->dlen && st->doff + (MPI_Offset)st->dlen == foff && st->dp + st->dlen == p) {
        st->dlen += bytes;
        return 1;
    }
    if ((*rc = direct_flush(st))) return 1;
    st->dp = p;
    st->doff = foff;
    st->dlen = bytes;
    return 1;
}

static int stage_alloc(cd_stage *st);

/* Stages cnt runs of n elements that lie one after the other in the file from foff (the c-th from
   iteration index k + c * kstr), all in the current fill: a write gathers them, a read records them
   (one scatter record). The caller made sure they fit (stage_room). */
static int stage_rows(cd_stage *st, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, uint64_t kstr)
{
    cd_io *io = st->io;
    if (st->dlen) { /* a direct region before it goes first: the file's order */
        const int rc = direct_flush(st);
        if (rc) return rc;
    }
    if (!st->fst) {
        const int rc = stage_alloc(st);
        if (rc) return rc;
    }
    if (st->plen == 0) st->poff = foff;
    unsigned char *dst = st->fst + st->plen;
    if (io->dir == DIR_WRITE) {
        const int conv = io->x->conv || io->x->xform;
        if (!conv && !io->ms) /* packed buffer: a run's place is its index */
            copy_rows(dst, (size_t)(n * io->fes), (const unsigned char *)io->wbuf + k * io->mes, (size_t)(kstr * io->mes),
                      (size_t)(n * io->fes), cnt);
        for (uint64_t c = 0; (conv || io->ms) && c < cnt; c++, dst += n * io->fes) {
            cd_copy cp = {io, io->x->conv ? st->mst : dst};
            int rc = cd_mem_runs(io->ms, k + c * kstr, n, mrun_copy_in, &cp);
            if (!rc && conv) rc = stage_convert(st, dst, n, COLLDIAG_TO_FILE);
            if (rc) return rc;
        }
    } else {
        if (!st->kl && !(st->kl = cd_malloc((size_t)st->kmax * sizeof *st->kl)))
            return io_fail(io, COLLDIAG_ERR_NOMEM, "staging a read");
        st->kl[st->nk++] = (cd_kn){k, n, cnt, kstr};
    }
    st->plen += cnt * n * io->fes;
    return 0;
}

/* Flushes the pending region unless bytes at foff can join it (adjacent, room left, a record free). */
static int stage_room(cd_stage *st, MPI_Offset foff, uint64_t bytes)
{
    if (st->plen && (foff != st->poff + (MPI_Offset)st->plen || st->plen + bytes > st->fcap || (st->kmax && st->nk == st->kmax)))
        return stage_flush(st);
    return 0;
}

static int stage_run(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    cd_stage *st = ctx;
    const size_t fes = st->io->fes;
    const uint64_t per = st->fcap / fes; /* elements per staging fill */
    int drc;
    if (stage_direct(st, foff, k, n, &drc)) return drc;
    while (n > 0) {
        uint64_t t = n < per ? n : per;
        int rc = stage_room(st, foff, t * fes);
        if (!rc) rc = stage_rows(st, foff, k, t, 1, 0);
        if (rc) return rc;
        foff += (MPI_Offset)(t * fes);
        k += t;
        n -= t;
    }
    return 0;
}

/* A block of rows from the walker. Rows adjacent in the file (a piece whose rows span its chunk's
   width) that fit in one fill are staged as one: one gather loop or one scatter record instead of a
   call per row, which is most of a small independent call's own cost (B2's 64 chunks of 8 rows of 32
   bytes each: 512 calls). Anything else goes row by row. */
static int stage_srun1(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride)
{
    cd_stage *st = ctx;
    const uint64_t fes = st->io->fes;
    int drc; /* rows adjacent in the file whose elements follow each other: one run (stage_direct) */
    if (cnt > 1 && (uint64_t)fstride == n * fes && kstride == n && stage_direct(st, foff, k, n * cnt, &drc)) return drc;
    if (cnt > 1 && (uint64_t)fstride == n * fes && cnt * n * fes <= st->fcap) {
        int rc = stage_room(st, foff, cnt * n * fes);
        return rc ? rc : stage_rows(st, foff, k, n, cnt, kstride);
    }
    for (uint64_t c = 0; c < cnt; c++) {
        int rc = stage_run(ctx, foff + (MPI_Offset)c * fstride, k + c * kstride, n);
        if (rc) return rc;
    }
    return 0;
}

static int stage_srun(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride,
                      uint64_t planes, MPI_Offset fplane, uint64_t kplane)
{
    return srun_by_plane(stage_srun1, ctx, foff, k, n, cnt, fstride, kstride, planes, fplane, kplane);
}

/* need: the elements the calls will move, so that a small transfer does not fault in a 4 MiB buffer
   (B2 multi-chunk reads of 16 KB: 1.5x the read limit with it, 1.0x without). */
static int stage_init(cd_stage *st, cd_io *io, uint64_t need)
{
    memset(st, 0, sizeof *st);
    st->io = io;
    int conv = io->x->conv || io->x->xform;
    size_t cap = conv ? io->x->bufsize : CD_STAGE_BYTES;
    if (!conv && cap > io->set.coll_buf) cap = (size_t)io->set.coll_buf; /* the call's memory bound holds here too */
    size_t big = io->fes > io->mes ? io->fes : io->mes;
    if (!conv && need < cap / big) { /* the data plus a quarter for a read's scatter records */
        size_t fit = (size_t)need * big + (size_t)need * big / 4 + 64;
        if (fit < cap) cap = fit;
    }
    if (cap < big) cap = big; /* at least one element of either type */
    uint64_t nel = cap / big;
    if (io->dir == DIR_READ) { /* an eighth of the buffer records the runs to scatter, the rest holds data */
        st->kmax = cap / 8 / sizeof(cd_kn);
        if (st->kmax == 0) st->kmax = 1;
        const size_t rec = (size_t)st->kmax * sizeof(cd_kn);
        nel = cap > rec ? (cap - rec) / big : 0;
        if (nel == 0) nel = 1; /* a buffer smaller than a record and an element: one element a fill */
    }
    st->fcap = (size_t)(nel * io->fes);
    return 0; /* the buffer is allocated when a run is first staged (stage_alloc): a write whose runs all
                 go direct (stage_direct) allocates none */
}

static int stage_alloc(cd_stage *st)
{
    cd_io *io = st->io;
    const size_t nel = st->fcap / io->fes;
    st->fst = cd_malloc(st->fcap);
    if (st->fcap > io->x->data_buf_bytes) io->x->data_buf_bytes = st->fcap; /* a data copy, not per-chunk state */
    if (io->x->conv) st->mst = cd_malloc(nel * io->mes);
    if (!st->fst || (io->x->conv && !st->mst)) return io_fail(io, COLLDIAG_ERR_NOMEM, "allocating a %zu-byte staging buffer", st->fcap);
    return 0;
}

static void stage_done(cd_stage *st)
{
    cd_free(st->fst);
    cd_free(st->mst);
    cd_free(st->kl);
}

/* A plan moves nothing: it counts what the transfer it describes would move, as this rank's counters
   (the reports label them planned). Collective: `rounds` calls; independent: a call per piece (HDF5
   1.10 makes one per chunk, with a derived type; colldiag's own, one per contiguous stretch). */
static void plan_count(cd_io *io, const uint64_t *list, uint64_t n, int all, int coll, uint64_t rounds)
{
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < n; i++) {
        const cd_piece *p = &io->map.pc[all ? i : list[i]];
        bytes += p->nelem * piece_fes(io, p);
    }
    colldiag_counters *c = &io->x->cnt;
    if (coll) {
        c->calls_collective += rounds;
        c->bytes_collective += bytes;
    } else {
        c->calls_independent += n;
        c->bytes_independent += bytes;
    }
}

/* Moves the given pieces with independent calls (no view change, no collective call). */
static int ind_pieces(cd_io *io, const uint64_t *list, uint64_t n, int all)
{
    if (io->dir == DIR_PLAN && !io->code) plan_count(io, list, n, all, 0, 0);
    if (io->dir == DIR_PLAN || io->code) return io->code;
    if (n == 0) return 0;
    double t0 = cd_now();
    cd_stage st;
    uint64_t need = 0;
    for (uint64_t i = 0; i < n; i++) need += io->map.pc[all ? i : list[i]].nelem;
    int rc = stage_init(&st, io, need);
    for (uint64_t i = 0; i < n && !rc; i++) {
        const cd_piece *p = &io->map.pc[all ? i : list[i]];
        int un = (p->flags & PF_UNALLOC) != 0;
        if (un && io->dir == DIR_WRITE) {
            rc = io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " is not allocated (address -1) and cannot be written", p->idx);
            break;
        }
        if (un != st.unalloc) { /* both pending regions are read (or zeroed) by what they were */
            rc = stage_flush(&st);
            if (!rc) rc = direct_flush(&st);
            st.unalloc = un;
        }
        if (!rc) rc = cd_walk_piece_rows(&io->map, io->fs, p, stage_run, stage_srun, &st);
    }
    if (!rc) rc = stage_flush(&st);
    if (!rc) rc = direct_flush(&st);
    stage_done(&st);
    io->x->cnt.t_io += cd_now() - t0;
    return rc ? io_fail(io, rc, "independent I/O failed") : 0;
}

/* The HDF5 preload's read of one stretch a rank (decision.c, reads_by_stretch): straight into the
   caller's buffer where the memory side is one stretch too and nothing converts, one call (no staging
   buffer: a fresh 1 MiB of it costs ~5 ms on this machine, and ROMIO's own read of the same call goes
   straight into the buffer); otherwise through the staging buffer, as any independent read. */
static int read_stretch(cd_io *io)
{
    const uint64_t n = colldiag_sel_npoints(io->fs);
    uint64_t f0 = 0, m0 = 0;
    if (n == 0 || io->map.n != 1 || (io->map.pc[0].flags & PF_UNALLOC) || io->x->conv || io->x->xform || !sel_stretch(io->fs, &f0) ||
        (io->ms && !sel_stretch(io->ms, &m0)))
        return ind_pieces(io, NULL, io->map.n, 1);
    const double t0 = cd_now();
    const int rc = io_raw(io, 0, io->map.pc[0].addr + (MPI_Offset)(f0 * io->fes), (unsigned char *)io->rbuf + m0 * io->mes, n * io->fes);
    io->x->cnt.t_io += cd_now() - t0;
    return rc;
}

/* --- collective calls --- */

typedef struct {
    cd_io *io;
    cd_stream fs, ms;
    uint64_t pos, lo, hi;  /* this round takes the elements [lo, hi) of this rank's stream */
    uint64_t mruns;        /* memory runs counted by the first walk */
    uint64_t pbytes;       /* WALK_PROBE: bytes seen */
    int walk;              /* what run_coll does with a run (WALK_*) */
    unsigned char *pk;     /* packing: the round's bytes in file order, and the copy cursor */
    int pk_out;            /* packing direction: 0 memory -> pk, 1 pk -> memory */
    /* memory runs of a block of rows waiting to become one strided item: g_cnt runs of g_len bytes,
       g_str apart, from g_off (srun_coll with a memory selection) */
    int64_t g_off, g_str;
    uint64_t g_len, g_cnt;
} cd_coll_build;
enum {
    WALK_FILE,   /* file stream, memory runs counted (packing expected) */
    WALK_BOTH,   /* file and memory streams (memory type expected) */
    WALK_MEM,    /* memory stream only (after WALK_FILE guessed wrong) */
    WALK_PACK,   /* memory copied to or from pk */
    WALK_PROBE   /* memory runs and bytes of the first runs only: which of FILE and BOTH to start with */
};
#define CD_PROBE_RUNS 64

static int mrun_count(void *ctx, uint64_t moff, uint64_t n)
{
    (void)moff;
    (void)n;
    ((cd_coll_build *)ctx)->mruns++;
    return 0;
}
static int mrun_stream(void *ctx, uint64_t moff, uint64_t n)
{
    cd_coll_build *b = ctx;
    b->mruns++;
    stream_add(&b->ms, (int64_t)(moff * b->io->mes) + b->io->mbase, n * b->io->mes);
    return 0;
}
static int mrun_pack(void *ctx, uint64_t moff, uint64_t n)
{
    cd_coll_build *b = ctx;
    const size_t es = b->io->mes, len = (size_t)(n * es);
    if (b->pk_out) memcpy((unsigned char *)b->io->rbuf + moff * es, b->pk, len);
    else memcpy(b->pk, (const unsigned char *)b->io->wbuf + moff * es, len);
    b->pk += len;
    return 0;
}
/* Packing during the walk that describes the file (writes): a memory run counted and copied. */
static int mrun_count_pack(void *ctx, uint64_t moff, uint64_t n)
{
    ((cd_coll_build *)ctx)->mruns++;
    return mrun_pack(ctx, moff, n);
}
static int mrun_zero(void *ctx, uint64_t moff, uint64_t n)
{
    cd_io *io = ctx;
    memset((unsigned char *)io->rbuf + moff * io->mes, 0, (size_t)(n * io->mes));
    return 0;
}
static int run_coll(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    cd_coll_build *b = ctx;
    uint64_t a = b->pos, e = b->pos + n; /* this run's elements in the rank's stream */
    b->pos = e;
    if (e <= b->lo || a >= b->hi) return 0;
    uint64_t skip = a < b->lo ? b->lo - a : 0, take = (e < b->hi ? e : b->hi) - (a + skip);
    switch (b->walk) {
    case WALK_PACK: return cd_mem_runs(b->io->ms, k + skip, take, mrun_pack, b);
    case WALK_MEM: return cd_mem_runs(b->io->ms, k + skip, take, mrun_stream, b);
    case WALK_PROBE:
        b->pbytes += take * b->io->fes;
        cd_mem_runs(b->io->ms, k + skip, take, mrun_count, b);
        return b->mruns >= CD_PROBE_RUNS; /* enough seen: stop the walk */
    default: break;
    }
    stream_add(&b->fs, (int64_t)foff + (int64_t)(skip * b->io->fes), take * b->io->fes);
    return cd_mem_runs(b->io->ms, k + skip, take, b->walk == WALK_BOTH ? mrun_stream : b->pk ? mrun_count_pack : mrun_count, b);
}
static void mrun_group_flush(cd_coll_build *b)
{
    if (b->g_cnt) stream_add_strided(&b->ms, b->g_off, b->g_len, b->g_cnt, b->g_cnt > 1 ? b->g_str : (int64_t)b->g_len);
    b->g_cnt = 0;
}
/* A memory run of a block of rows: joins the pending group when it continues it at the same stride. */
static int mrun_group(void *ctx, uint64_t moff, uint64_t n)
{
    cd_coll_build *b = ctx;
    const int64_t off = (int64_t)(moff * b->io->mes) + b->io->mbase;
    const uint64_t len = n * b->io->mes;
    b->mruns++;
    if (b->g_cnt && len == b->g_len && b->g_cnt < CD_MAX_INT_COUNT) {
        const int64_t d = off - (b->g_off + (int64_t)(b->g_cnt - 1) * b->g_str);
        if (b->g_cnt == 1 && d > 0) b->g_str = d;
        if (d > 0 && d == b->g_str) {
            b->g_cnt++;
            return 0;
        }
    }
    mrun_group_flush(b);
    b->g_off = off;
    b->g_len = len;
    b->g_cnt = 1;
    return 0;
}

/* A block of rows: described whole when it all falls in this round (the file side as one strided item,
   memory as one too for the plain buffer, or as its runs grouped by stride for a memory selection);
   otherwise row by row, exactly as run_coll would see them. */
static int srun_coll1(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride)
{
    cd_coll_build *b = ctx;
    const uint64_t tot = n * cnt;
    const colldiag_sel *ms = b->io->ms;
    if ((b->walk == WALK_FILE || b->walk == WALK_BOTH) && b->pos >= b->lo && b->pos + tot <= b->hi) {
        b->pos += tot;
        stream_add_strided(&b->fs, (int64_t)foff, n * b->io->fes, cnt, (int64_t)fstride);
        if (!ms) {
            const size_t es = b->io->mes, len = (size_t)(n * es);
            if (b->walk == WALK_BOTH) stream_add_strided(&b->ms, (int64_t)(k * es) + b->io->mbase, len, cnt, (int64_t)(kstride * es));
            if (b->pk) { /* packing in the same walk */
                copy_rows(b->pk, len, (const unsigned char *)b->io->wbuf + k * es, (size_t)(kstride * es), len, cnt);
                b->pk += len * cnt;
            }
            b->mruns += cnt;
            return 0;
        }
        int rc = 0;
        for (uint64_t c = 0; c < cnt && !rc; c++)
            rc = cd_mem_runs(ms, k + c * kstride, n, b->walk == WALK_BOTH ? mrun_group : b->pk ? mrun_count_pack : mrun_count, b);
        if (b->walk == WALK_BOTH) mrun_group_flush(b);
        return rc;
    }
    if (b->walk == WALK_PACK && !ms && b->pos >= b->lo && b->pos + tot <= b->hi) { /* the rows straight to or from pk */
        const size_t es = b->io->mes, len = (size_t)(n * es), step = (size_t)(kstride * es);
        b->pos += tot;
        if (b->pk_out) copy_rows((unsigned char *)b->io->rbuf + k * es, step, b->pk, len, len, cnt);
        else copy_rows(b->pk, len, (const unsigned char *)b->io->wbuf + k * es, step, len, cnt);
        b->pk += len * cnt;
        return 0;
    }
    for (uint64_t c = 0; c < cnt; c++) {
        int rc = run_coll(ctx, foff + (MPI_Offset)c * fstride, k + c * kstride, n);
        if (rc) return rc;
    }
    return 0;
}
/* Planes of blocks of rows: with the plain buffer and the whole box in this round, described and
   (un)packed here plane by plane without going back through the per-block checks; a box that is
   contiguous in the file (whole chunk rows and planes) adds one file run. Otherwise block by block. */
static int srun_coll(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n, uint64_t cnt, MPI_Offset fstride, uint64_t kstride,
                     uint64_t planes, MPI_Offset fplane, uint64_t kplane)
{
    cd_coll_build *b = ctx;
    const uint64_t tot = n * cnt * planes;
    if (planes > 1 && !b->io->ms && (b->walk == WALK_FILE || b->walk == WALK_BOTH || b->walk == WALK_PACK) && b->pos >= b->lo &&
        b->pos + tot <= b->hi) {
        const size_t es = b->io->mes, len = (size_t)(n * es), step = (size_t)(kstride * es);
        const uint64_t fl = n * b->io->fes;
        b->pos += tot;
        if (b->walk != WALK_PACK) {
            if ((uint64_t)fstride == fl && (uint64_t)fplane == fl * cnt) stream_add(&b->fs, (int64_t)foff, fl * cnt * planes);
            else
                for (uint64_t q = 0; q < planes; q++) stream_add_strided(&b->fs, (int64_t)(foff + (MPI_Offset)q * fplane), fl, cnt, (int64_t)fstride);
            if (b->walk == WALK_BOTH)
                for (uint64_t q = 0; q < planes; q++)
                    stream_add_strided(&b->ms, (int64_t)((k + q * kplane) * es) + b->io->mbase, len, cnt, (int64_t)step);
            b->mruns += cnt * planes;
        }
        if (b->pk) {
            for (uint64_t q = 0; q < planes; q++, b->pk += len * cnt) {
                const size_t at = (size_t)((k + q * kplane) * es);
                if (b->pk_out) copy_rows((unsigned char *)b->io->rbuf + at, step, b->pk, len, len, cnt);
                else copy_rows(b->pk, len, (const unsigned char *)b->io->wbuf + at, step, len, cnt);
            }
        }
        return 0;
    }
    return srun_by_plane(srun_coll1, ctx, foff, k, n, cnt, fstride, kstride, planes, fplane, kplane);
}
static int pack_pays(const cd_io *io, uint64_t bytes, uint64_t mruns)
{
    return bytes && mruns > 1 && bytes / mruns < io->set.pack_run;
}
typedef struct { uint64_t i, cp, cf; } cd_resume; /* where a round's walk starts: list index, both cursors */

/* The round's pieces, in file order, each walked with b->pos set to where it starts in this rank's
   stream. The stream puts the pieces that do not cover their chunk (PF_PARTIAL, `part` elements in
   all) before the whole ones, each group in file order, so the rounds take them first. Why: the
   chunks ranks share are partial ones, and when one rank moves its share of such a chunk in its last
   round and another in its first, both calls hand MPI thousands of holes between the other rank's
   rows (B4's slab edges: 90 ms for such a round on ompio, against 6 ms for the others). Taken first
   by every rank, a shared chunk is complete in one call. Any split is correct: every walk of a round
   uses these same positions, and a round's pieces still go to MPI in file order.
   The walk starts at `from`; `next` (if given) receives where the next round may start: the first
   piece that ends beyond this round, so a call's rounds together scan the list about once.
   first_only: stop after the first piece in the round (the probe). */
static void round_pieces(cd_io *io, cd_coll_build *b, const uint64_t *list, uint64_t n, uint64_t part, int first_only,
                         const cd_resume *from, cd_resume *next)
{
    uint64_t cp = from->cp, cf = from->cf; /* the next positions of the partial and of the whole pieces */
    int found = next == NULL;
    uint64_t i = from->i;
    for (; i < n && ((part > b->lo && cp < part && cp < b->hi) || cf < b->hi); i++) {
        const cd_piece *p = &io->map.pc[list ? list[i] : (io->order ? io->order[i] : i)];
        uint64_t *c = (p->flags & PF_PARTIAL) ? &cp : &cf, at = *c;
        if (!found && at + p->nelem > b->hi) { /* every piece before this one is done after this round */
            next->i = i;
            next->cp = cp;
            next->cf = cf;
            found = 1;
        }
        *c += p->nelem;
        if ((p->flags & PF_UNALLOC) || at + p->nelem <= b->lo || at >= b->hi) continue;
        b->pos = at;
        io_use(io, p);
        cd_walk_piece_rows(piece_map(io, p), io->fs, p, run_coll, srun_coll, b);
        if (first_only) return;
    }
    if (!found) { /* every piece the walk saw is done: the next round starts where it stopped */
        next->i = i;
        next->cp = cp;
        next->cf = cf;
    }
}
/* The round's pieces again: the memory stream (pk NULL), or packing (unpacking) memory in file order. */
static void coll_pack_walk(cd_io *io, cd_coll_build *b, const uint64_t *list, uint64_t n, uint64_t part, const cd_resume *from,
                           unsigned char *pk, int out)
{
    b->walk = pk ? WALK_PACK : WALK_MEM;
    b->pk = pk;
    b->pk_out = out;
    round_pieces(io, b, list, n, part, 0, from, NULL);
    b->pk = NULL;
    b->walk = WALK_FILE;
}
static int run_zero(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    (void)foff;
    cd_io *io = ctx;
    return cd_mem_runs(io->ms, k, n, mrun_zero, io);
}
/* Reads of a layout with a fill element (io->l->fill: a filtered dataset of the HDF5 bridge, whose file
   and memory types are the same): chunks never written read as it, element by element. */
static int mrun_fill(void *ctx, uint64_t moff, uint64_t n)
{
    cd_io *io = ctx;
    unsigned char *d = (unsigned char *)io->rbuf + moff * io->mes;
    for (uint64_t i = 0; i < n; i++, d += io->mes) memcpy(d, io->l->fill, io->mes);
    return 0;
}
static int run_fill(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    (void)foff;
    cd_io *io = ctx;
    return cd_mem_runs(io->ms, k, n, mrun_fill, io);
}

static int cd_mpi_err(cd_io *io, int rc, const char *what)
{
    char es[MPI_MAX_ERROR_STRING];
    int n = 0;
    es[0] = 0;
    MPI_Error_string(rc, es, &n);
    return io_fail(io, COLLDIAG_ERR_MPI, "%s failed: %s", what, es);
}

/* Resets the view to bytes; collective. */
static void view_reset(cd_io *io)
{
    int rc = MPI_File_set_view(io->f->fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (rc != MPI_SUCCESS) cd_mpi_err(io, rc, "MPI_File_set_view (reset)");
}

/* ---- the read guard: collective reads on a stack that loses bytes of overlapping ones ----
   Open MPI 4.1.0-4.1.4's ompio returns zeros for the bytes of one rank's read request past the end of
   another's nested inside it, in one collective read (decision.c, "reads at risk", has the story). HDF5
   runs into it as it will; colldiag's own reads must not. On that stack (risk_read_stack), a read's first
   collective data call asks whether two ranks' selections may share an element: each rank's bounding box
   and shape digest (sel_bbox), gathered once a call. Selections whose boxes meet, unless they are the
   same selection (which the defect spares: every rank's requests alike), may put one rank's request
   inside another's; the call's collective data calls are then made as independent reads of the same
   views: each rank's own requests, disjoint and in file order, which the sieving reads right. The modes
   reported stay the scheme's (they are HDF5's answer for it); the reason and the counters say how the
   bytes moved. A multi-dataset call's merged reads take the independent way without asking. */
static int risk_read_stack(void)
{
#ifdef OPEN_MPI
    static int version = -1; /* 1: Open MPI 4.1.0 - 4.1.4, 0: another */
    if (version < 0) {
        char v[MPI_MAX_LIBRARY_VERSION_STRING];
        int n = 0, a = 0, b = 0, c = 0;
        version = MPI_Get_library_version(v, &n) == MPI_SUCCESS && sscanf(v, "Open MPI v%d.%d.%d", &a, &b, &c) == 3 && a == 4 && b == 1 && c <= 4;
    }
    if (!version) return 0;
    const char *io = getenv("OMPI_MCA_io"), *ds = getenv("OMPI_MCA_fbtl_posix_read_datasieving");
    if (io && strstr(io, "romio") && !strchr(io, '^')) return 0;
    return !(ds && (!strcmp(ds, "0") || !strcmp(ds, "false") || !strcmp(ds, "no") || !strcmp(ds, "FALSE")));
#else
    return 0;
#endif
}

/* 1 when two of the gathered selections (rec words a rank: non-empty, over, digest, then a regular set
   a dimension: sel_regular_dims) may share an element and are not the same selection. Sweeps along the
   dimension they span least (slabs of rows: rows), keeping those not yet ended there: a decomposition
   costs O(P log P). key: P scratch entries. Pure. */
typedef struct { uint64_t lo; int p; } cd_box_key;
static int box_key_cmp(const void *a, const void *b)
{
    const uint64_t x = ((const cd_box_key *)a)->lo, y = ((const cd_box_key *)b)->lo;
    return x < y ? -1 : x > y;
}
static uint64_t reg_end(const uint64_t *r) { return r[0] + (r[2] - 1) * r[1] + r[3] - 1; }
static int boxes_meet(const uint64_t *w, int P, int r, cd_box_key *key)
{
    const size_t rec = 3 + 4 * (size_t)r;
    int n = 0, best = 0;
    for (int p = 0; p < P; p++)
        if (w[(size_t)p * rec]) key[n++].p = p;
    if (n < 2 || r == 0) return 0; /* scalars: one element, read alike */
    double cover = -1;
    for (int d = 0; d < r; d++) {
        double c = 0;
        for (int i = 0; i < n; i++) {
            const uint64_t *g = &w[(size_t)key[i].p * rec + 3 + 4 * (size_t)d];
            c += (double)(reg_end(g) - g[0]) + 1.0;
        }
        if (cover < 0 || c < cover) { cover = c; best = d; }
    }
    for (int i = 0; i < n; i++) key[i].lo = w[(size_t)key[i].p * rec + 3 + 4 * (size_t)best];
    qsort(key, (size_t)n, sizeof *key, box_key_cmp);
    /* key[a..i) are the selections still open at selection i's start along `best`; an ended one is
       swapped out to a */
    int a = 0;
    for (int i = 1; i < n; i++) {
        const uint64_t *si = &w[(size_t)key[i].p * rec];
        for (int j = a; j < i; j++) {
            const uint64_t *sj = &w[(size_t)key[j].p * rec];
            if (reg_end(&sj[3 + 4 * best]) < si[3 + 4 * best]) { /* ended before selection i (and every later one) starts */
                const cd_box_key t = key[j];
                key[j] = key[a];
                key[a] = t;
                a++;
                continue;
            }
            int meet = 1;
            for (int d = 0; d < r && meet; d++) meet = regular_meet(&si[3 + 4 * d], &sj[3 + 4 * d]);
            if (!meet) continue;
            int same = !si[1] && !sj[1] && si[2] == sj[2];
            for (int d = 0; d < 4 * r && same; d++) same = si[3 + d] == sj[3 + d];
            if (!same) return 1;
        }
    }
    return 0;
}

/* The guard's answer for this call (collective the first time: every rank makes the call's first
   collective data call together): 1 collective reads as planned, 2 independent reads (see above). */
static int read_guard(cd_io *io)
{
    if (io->read_guard) return io->read_guard;
    io->read_guard = 1;
    if (io->dir != DIR_READ || !io->f->reads_lose || io->f->size < 2) return 1; /* agreed (AG_STACK) */
    if (io->disjoint) return 1; /* agreed: no chunk is touched by two ranks, so no element is (touch_map) */
    if (io->sub) { /* several datasets' merged pieces: not asked (rare; every rank alike) */
        io->read_guard = 2;
        io->x->reads_solo = 1;
        return 2;
    }
    /* the dataset's rank (every rank's alike, unlike its selection's space): the gather's record */
    const int r = io->l && io->l->rank <= COLLDIAG_MAX_RANK ? io->l->rank : 0, P = io->f->size;
    const size_t rec = 3 + 4 * (size_t)r;
    uint64_t mine[3 + 4 * COLLDIAG_MAX_RANK];
    cd_bbox b;
    mine[0] = sel_bbox(io->fs, &b, &mine[2]) && !io->code && (io->fs->space == SPACE_SIMPLE ? io->fs->rank : 0) == r;
    mine[1] = (uint64_t)b.over;
    if (mine[0]) sel_regular_dims(io->fs, &b, &mine[3]);
    else memset(&mine[3], 0, 4 * (size_t)r * sizeof *mine);
    /* the gather's memory (rec words and an index a rank), or every rank reads independently */
    uint64_t *all = cd_malloc((size_t)P * rec * sizeof *all);
    cd_box_key *key = cd_malloc((size_t)P * sizeof *key);
    int ok = all && key, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, io->f->comm);
    int solo = 1;
    if (all_ok && MPI_Allgather(mine, (int)rec, MPI_UINT64_T, all, (int)rec, MPI_UINT64_T, io->f->comm) == MPI_SUCCESS)
        solo = boxes_meet(all, P, r, key);
    cd_free(all);
    cd_free(key);
    io->read_guard = solo ? 2 : 1;
    if (solo) io->x->reads_solo = 1;
    return io->read_guard;
}

/* One collective data call (every rank makes it; have = 0 joins with nothing), counted, with a short
   write reported as an error. Returns the bytes moved, -1 if the call failed or moved nothing. */
static MPI_Count coll_data_call(cd_io *io, void *buf, int count, MPI_Datatype t, uint64_t want, int have)
{
    MPI_Status st;
    if (io->dir == DIR_READ && read_guard(io) == 2) { /* the same view, read independently */
        if (!have) return -1;
        const int rc = MPI_File_read_at(io->f->fh, 0, buf, count, t, &st);
        io->x->cnt.calls_independent++;
        if (rc != MPI_SUCCESS) {
            cd_mpi_err(io, rc, "MPI_File_read_at (the read guard's)");
            return -1;
        }
        io->x->cnt.bytes_independent += want;
        MPI_Count got = 0;
        MPI_Get_elements_x(&st, MPI_BYTE, &got);
        return got;
    }
    int rc = io->dir == DIR_WRITE ? MPI_File_write_at_all(io->f->fh, 0, buf, have ? count : 0, have ? t : MPI_BYTE, &st)
                                  : MPI_File_read_at_all(io->f->fh, 0, buf, have ? count : 0, have ? t : MPI_BYTE, &st);
    io->x->cnt.calls_collective++;
    if (rc != MPI_SUCCESS) {
        cd_mpi_err(io, rc, io->dir == DIR_WRITE ? "MPI_File_write_at_all" : "MPI_File_read_at_all");
        return -1;
    }
    if (!have) return -1;
    MPI_Count got = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &got);
    if (got >= 0 && (uint64_t)got < want && io->dir == DIR_WRITE)
        io_fail(io, COLLDIAG_ERR_IO, "MPI_File_write_at_all wrote %lld of %" PRIu64 " bytes", (long long)got, want);
    io->x->cnt.bytes_collective += want;
    return got;
}

/* The packing buffer, at least `bytes` (at most a round's share: the collective buffer), grown at most
   once in practice since rounds are equal shares; NULL without memory. */
static unsigned char *pack_buffer(cd_io *io, unsigned char **buf, size_t *cap, uint64_t bytes)
{
    if (bytes > *cap) {
        cd_free(*buf);
        *buf = cd_malloc((size_t)bytes);
        *cap = *buf ? (size_t)bytes : 0;
        if (*cap > io->x->data_buf_bytes) io->x->data_buf_bytes = *cap;
    }
    return *buf;
}

/* Items a stream holds before it flushes into MPI types (cd_stream): a power of two near a 64th of the
   collective buffer in items (2,048 for 16 MiB, about 240 KB), at least CD_STREAM_FLUSH_MIN (16; the
   test build of fuzz_io_rounds uses 2, so that its cases go through flushes too). */
#ifndef CD_STREAM_FLUSH_MIN
#define CD_STREAM_FLUSH_MIN 16
#endif
static uint64_t stream_flush_items(const cd_io *io)
{
    uint64_t k = CD_STREAM_FLUSH_MIN;
    while (k * 2 * sizeof(cd_item) * 64 <= io->set.coll_buf) k *= 2;
    return k;
}

/* The collective data calls over the given pieces: `rounds` calls (agreed by every rank, rounds_for),
   each moving at most a 1/rounds share of this rank's elements, so no rank ever hands MPI more than
   the collective buffer (or COLLDIAG_COLL_MAX_BYTES) in one call, and packing reuses one buffer of
   that size. Every rank makes every call (count 0 when it has nothing or has already failed). The view
   is left set; callers reset it once after their last call. With INDIVIDUAL_IO the same pieces move
   with independent calls instead and nothing collective happens. */
static void coll_call_rounds(cd_io *io, const uint64_t *list, uint64_t n, uint64_t rounds)
{
    if (io->dir == DIR_PLAN) {
        if (!io->code) plan_count(io, list, n, list == NULL, io->set.coll_opt != COLLDIAG_MPIO_INDIVIDUAL_IO, rounds < 1 ? 1 : rounds);
        return;
    }
    if (io->set.coll_opt == COLLDIAG_MPIO_INDIVIDUAL_IO) {
        if (io->sub) { /* a multi-dataset call's merged pieces: each dataset's own, independently */
            for (size_t d = 0; d < io->nsub; d++)
                if (io->sub[d].merged) ind_pieces(&io->sub[d], NULL, io->sub[d].map.n, 1);
            return;
        }
        ind_pieces(io, list, n, list == NULL);
        return;
    }
    if (rounds < 1) rounds = 1;
    uint64_t mine = 0, part = 0; /* this rank's elements, and those in pieces that do not cover their chunk */
    for (uint64_t i = 0; i < n && !io->code; i++) {
        cd_piece *p = &io->map.pc[list ? list[i] : i];
        mine += p->nelem;
        p->flags &= ~PF_PARTIAL;
        const colldiag_layout *pl = piece_layout(io, p);
        if (pl->storage == STORE_CHUNKED && p->nelem < chunk_elems_in(pl, p->idx)) {
            p->flags |= PF_PARTIAL;
            part += p->nelem;
        }
        if (p->flags & PF_UNALLOC) {
            /* writes were refused at mapping, before any rank moved data; this is only a guard */
            if (io->dir == DIR_WRITE) io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " is not allocated (address -1) and cannot be written", p->idx);
            /* unallocated chunks read as zeros, all at once: the rounds' walks stop at their window's
               end, so a round cannot be trusted to reach every such piece (a later round skips them) */
            else {
                io_use(io, p);
                cd_walk_piece(piece_map(io, p), io->fs, p, run_zero, io);
            }
        }
    }
    const uint64_t per = mine / rounds + (mine % rounds != 0);
    unsigned char *packbuf = NULL; /* one packing buffer for every round (a round is at most the collective buffer) */
    size_t packcap = 0;
    cd_resume from = {0, 0, part}, next = from; /* rounds walk on from the first piece not yet done */
    for (uint64_t r = 0; r < rounds; r++, from = next) {
        double t0 = cd_now();
        cd_coll_build b;
        memset(&b, 0, sizeof b);
        b.io = io;
        b.fs.flush_at = b.ms.flush_at = stream_flush_items(io);
        b.lo = r * per;
        b.hi = b.lo + per;
        MPI_Datatype ft = MPI_DATATYPE_NULL, mt = MPI_DATATYPE_NULL;
        int fused = 0; /* packed while describing the file */
        if (!io->code) {
            /* a look at the first runs decides whether to describe memory now or count it for packing,
               so that one walk usually does (a wrong guess costs one more walk, never correctness) */
            b.walk = WALK_PROBE; /* only the first piece of the round */
            round_pieces(io, &b, list, n, part, 1, &from, NULL);
            b.walk = pack_pays(io, b.pbytes, b.mruns) ? WALK_FILE : WALK_BOTH;
            b.mruns = 0;
            /* a write expected to pack packs in this same walk, into a buffer sized for the whole round */
            const uint64_t ra = b.lo < mine ? b.lo : mine, re = b.hi < mine ? b.hi : mine;
            if (b.walk == WALK_FILE && io->dir == DIR_WRITE && re > ra) b.pk = pack_buffer(io, &packbuf, &packcap, (re - ra) * io->fes_max);
            fused = b.pk != NULL;
            round_pieces(io, &b, list, n, part, 0, &from, &next);
            b.pk = NULL;
            if (b.fs.nomem || b.ms.nomem) io_fail(io, COLLDIAG_ERR_NOMEM, "describing the data of %" PRIu64 " chunks", n);
        }
        if (!io->code && cd_inject(io, "types")) io_fail(io, COLLDIAG_ERR_NOMEM, "building the MPI datatypes (injected)");
        /* many short memory runs: pack them in file order here instead of handing MPI the memory type
           (already done if the walk packed: then the packed bytes are used whatever the count says) */
        unsigned char *pack = NULL;
        if (!io->code && fused) {
            pack = packbuf;
        } else if (!io->code && b.walk == WALK_FILE && pack_pays(io, b.fs.bytes, b.mruns)) {
            pack = pack_buffer(io, &packbuf, &packcap, b.fs.bytes); /* NULL (no memory): the memory type below instead, slower but exact */
            if (pack && io->dir == DIR_WRITE) coll_pack_walk(io, &b, list, n, part, &from, pack, 0);
        }
        if (!io->code && b.fs.bytes && !pack && b.walk == WALK_FILE) {
            coll_pack_walk(io, &b, list, n, part, &from, NULL, 0); /* the probe guessed packing wrong: describe memory now */
            if (b.ms.nomem) io_fail(io, COLLDIAG_ERR_NOMEM, "describing the memory of %" PRIu64 " chunks", n);
        }
        if (!io->code && b.fs.bytes) {
            int rc = stream_type(&b.fs, &ft, &io->types_built);
            if (!rc && !pack) rc = stream_type(&b.ms, &mt, &io->types_built);
            if (!rc && pack) {
                rc = type_bytes(b.fs.bytes, &mt);
                if (!rc) rc = MPI_Type_commit(&mt);
            }
            if (rc) cd_mpi_err(io, rc, "building the MPI datatypes");
        }
        if (!io->code && cd_inject(io, "io")) io_fail(io, COLLDIAG_ERR_MPI, "MPI_File_write_at_all failed (injected)");
        int have = !io->code && ft != MPI_DATATYPE_NULL && mt != MPI_DATATYPE_NULL;
        int rc = MPI_File_set_view(io->f->fh, 0, MPI_BYTE, have ? ft : MPI_BYTE, "native", MPI_INFO_NULL);
        if (rc != MPI_SUCCESS) {
            cd_mpi_err(io, rc, "MPI_File_set_view");
            have = 0;
        }
        /* several datasets' buffers: the memory type holds absolute addresses */
        void *buf = pack ? pack : io->sub ? MPI_BOTTOM : io->dir == DIR_WRITE ? (void *)io->wbuf : io->rbuf;
        if (coll_data_call(io, buf, 1, mt, b.fs.bytes, have) >= 0 && pack && io->dir == DIR_READ)
            coll_pack_walk(io, &b, list, n, part, &from, pack, 1);
        if (ft != MPI_DATATYPE_NULL) MPI_Type_free(&ft);
        if (mt != MPI_DATATYPE_NULL) MPI_Type_free(&mt);
        stream_free(&b.fs);
        stream_free(&b.ms);
        io->x->cnt.t_io += cd_now() - t0;
    }
    cd_free(packbuf);
}

/* Agreed rounds for a call in which no rank moves more than `bytes`: enough that a round's share of
   any rank's elements fits the collective buffer (at least one element a round) and stays under
   COLLDIAG_COLL_MAX_BYTES. Every call is split, packing or not: which ranks pack is a local choice
   made per round, so the rounds cannot wait for it, and a round of 16 MiB per rank is what two-phase
   I/O moves per cycle anyway. Also bounds a round's datatype description (at most an item per run). */
static uint64_t rounds_for(const cd_io *io, uint64_t bytes)
{
    /* several datasets: elements of the largest size bound a round's bytes, of the smallest its elements */
    const uint64_t es = io->fes_max ? io->fes_max : 1, es_min = io->fes_min ? io->fes_min : es;
    uint64_t cap = io->set.coll_buf / es; /* elements a round may take from one rank */
    if (cap == 0) cap = 1;
    if (cap > COLLDIAG_COLL_MAX_BYTES / es) cap = COLLDIAG_COLL_MAX_BYTES / es ? COLLDIAG_COLL_MAX_BYTES / es : 1;
    const uint64_t elems = bytes / es_min + (bytes % es_min != 0);
    return elems / cap + (elems % cap != 0) + (elems == 0);
}
/* Rounds for calls over many pieces (by the most bytes any rank moves) and for one piece per call. */
static uint64_t rounds_all(const cd_io *io) { return rounds_for(io, io->g[AG_MAX_BYTES]); }
static uint64_t rounds_piece(const cd_io *io) { return rounds_for(io, io->g[AG_MAX_PIECE]); }
#define coll_call(io, list, n) coll_call_rounds((io), (list), (n), rounds_all(io))
#define coll_call_piece(io, list, n) coll_call_rounds((io), (list), (n), rounds_piece(io))
