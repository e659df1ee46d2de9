/* ---------------------------------------------------------------------------------------------------
 * 7. decision: per-chunk rank counts without a chunks x ranks gather
 *
 * Chunk c is counted by its owner rank, hash(c) mod P: every rank sends the ids of the chunks it
 * touches to their owners, owners count duplicates and send the counts back, each in one sparse
 * exchange (below: a rank talks only to the ranks it has ids for, and to those that sent it some).
 * Work and memory are O(chunks this rank touches + chunks it owns), never O(total chunks), O(chunks x
 * ranks) nor O(ranks). Multi-chunk also needs the list of collective chunks on every rank (each rank
 * joins every collective chunk's call): owners contribute theirs to one Allgatherv.
 * --------------------------------------------------------------------------------------------------- */

/* The sparse exchange. Each rank sends words to the ranks it names and learns who sent it anything,
   without an MPI_Alltoall of counts (O(P) messages, or O(P log P) bytes a rank under Bruck, and P-sized
   arrays everywhere). NBX (Hoefler, Siebert and Lumsdaine, "Scalable communication protocols for dynamic
   sparse data exchange", PPoPP 2010): synchronous sends to the destinations, a loop receiving whatever
   arrives; once this rank's sends are all matched it enters a non-blocking barrier, and the barrier
   completes once every rank's sends are matched, so nothing is left in flight. A rank sends O(its
   destinations + log P) messages and holds O(words sent + received).
   - Messages are fragments of at most SPX_FRAG words, so a rank out of memory still receives every one
     (into spx_discard, never read) and no peer's send is left unmatched (a hang); it reports *lost.
     Fragments from one source arrive in order (MPI's non-overtaking rule) and are joined per source.
   - A rank that cannot post its sends sends nothing and reports *lost: its peers expect nothing.
   - The barrier of one exchange completes on one rank while a peer may still be probing it, so the next
     exchange on the communicator must use another tag (SPX_TAG_*) or follow another collective; the
     one after that may reuse the tag (every rank has left this one's loop before that one's sends).
   - Collective: every rank of comm calls it, with any number of destinations (0 included). */
typedef struct {
    int n;          /* ranks that sent something, ascending */
    int *src;
    uint64_t *cnt;  /* words from src[i] ... */
    uint64_t *dsp;  /* ... at buf + dsp[i] */
    uint64_t *buf;
} cd_spx;
#define SPX_FRAG 4096u
enum { SPX_TAG_IDS = 81, SPX_TAG_COUNTS = 82, SPX_TAG_AGG = 83 }; /* one a use: see above (agg_p2p: 71, 72) */

static void spx_free(cd_spx *x)
{
    cd_free(x->src);
    cd_free(x->cnt);
    cd_free(x->dsp);
    cd_free(x->buf);
    memset(x, 0, sizeof *x);
}

#ifdef CD_SPX_EXCHANGE /* bench/virtual.c answers the exchange as P ranks would (it defines this function) */
static int CD_SPX_EXCHANGE(MPI_Comm comm, int tag, int nd, const int *dest, const uint64_t *cnt, const uint64_t *dsp,
                           const uint64_t *sbuf, cd_spx *in, int *lost);
#define spx_exchange CD_SPX_EXCHANGE
#else
typedef struct { int src; uint64_t seq, at, n; } cd_spx_frag;
static int cmp_spx_frag(const void *a, const void *b)
{
    const cd_spx_frag *x = a, *y = b;
    if (x->src != y->src) return x->src < y->src ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}
static uint64_t spx_discard[SPX_FRAG]; /* what a rank out of memory receives and drops: never read */

/* Sends cnt[i] words at sbuf + dsp[i] to dest[i] (i < nd); fills *in (ownership: the caller's, spx_free).
   Returns an MPI code; *lost is 1 when this rank could not keep what it was sent or could not send. */
static int spx_exchange(MPI_Comm comm, int tag, int nd, const int *dest, const uint64_t *cnt, const uint64_t *dsp,
                        const uint64_t *sbuf, cd_spx *in, int *lost)
{
    memset(in, 0, sizeof *in);
    *lost = 0;
    uint64_t nq = 0, q = 0;
    for (int i = 0; i < nd; i++) nq += (cnt[i] + SPX_FRAG - 1) / SPX_FRAG;
    MPI_Request *rq = cd_malloc((size_t)(nq ? nq : 1) * sizeof *rq);
    MPI_Status *rst = cd_malloc((size_t)(nq ? nq : 1) * sizeof *rst); /* not MPI_STATUSES_IGNORE: see agg_p2p */
    if (!rq || !rst) *lost = 1; /* send nothing: the peers learn of messages only by receiving them */
    int rc = MPI_SUCCESS;
    for (int i = 0; i < nd && !*lost && rc == MPI_SUCCESS; i++)
        for (uint64_t o = 0; o < cnt[i] && rc == MPI_SUCCESS; o += SPX_FRAG)
            rc = MPI_Issend(sbuf + dsp[i] + o, (int)(cnt[i] - o < SPX_FRAG ? cnt[i] - o : SPX_FRAG), MPI_UINT64_T, dest[i], tag,
                            comm, &rq[q++]);
    cd_spx_frag *fr = NULL;
    uint64_t nfr = 0, frcap = 0, len = 0, cap = 0;
    uint64_t *buf = NULL;
    MPI_Request bar = MPI_REQUEST_NULL;
    int barrier_on = 0, done = 0;
    while (!done && rc == MPI_SUCCESS) {
        int flag = 0;
        MPI_Status stt;
        rc = MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &stt);
        if (rc != MPI_SUCCESS) break;
        if (flag) {
            int c = 0;
            MPI_Get_count(&stt, MPI_UINT64_T, &c);
            uint64_t *to = spx_discard;
            if (!*lost && !cd_grow((void **)&buf, &cap, len + (uint64_t)c, sizeof *buf) &&
                !cd_grow((void **)&fr, &frcap, nfr + 1, sizeof *fr)) {
                fr[nfr] = (cd_spx_frag){stt.MPI_SOURCE, nfr, len, (uint64_t)c};
                nfr++;
                to = buf + len;
                len += (uint64_t)c;
            } else {
                *lost = 1;
            }
            rc = MPI_Recv(to, c, MPI_UINT64_T, stt.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
            continue; /* drain what has arrived before testing */
        }
        if (!barrier_on) {
            int all = 1;
            if (q) rc = MPI_Testall((int)q, rq, &all, rst);
            if (rc == MPI_SUCCESS && all) { rc = MPI_Ibarrier(comm, &bar); barrier_on = 1; }
        } else {
            rc = MPI_Test(&bar, &done, MPI_STATUS_IGNORE);
        }
    }
    cd_free(rq);
    cd_free(rst);
    /* join each source's fragments, in the order they were sent */
    if (!*lost && nfr) {
        qsort(fr, (size_t)nfr, sizeof *fr, cmp_spx_frag);
        int ns = 0;
        for (uint64_t i = 0; i < nfr; i++) ns += !i || fr[i].src != fr[i - 1].src;
        in->src = cd_malloc((size_t)ns * sizeof *in->src);
        in->cnt = cd_malloc((size_t)ns * sizeof *in->cnt);
        in->dsp = cd_malloc((size_t)ns * sizeof *in->dsp);
        in->buf = cd_malloc((size_t)len * sizeof *in->buf);
        if (in->src && in->cnt && in->dsp && in->buf) {
            uint64_t w = 0;
            for (uint64_t i = 0; i < nfr; i++) {
                if (!i || fr[i].src != fr[i - 1].src) {
                    in->src[in->n] = fr[i].src;
                    in->dsp[in->n] = w;
                    in->cnt[in->n++] = 0;
                }
                memcpy(in->buf + w, buf + fr[i].at, (size_t)fr[i].n * sizeof *buf);
                w += fr[i].n;
                in->cnt[in->n - 1] += fr[i].n;
            }
        } else {
            *lost = 1;
        }
    }
    if (*lost) spx_free(in);
    cd_free(buf);
    cd_free(fr);
    return rc;
}
#endif

static int owner_of(uint64_t c, int P) { return (int)(cd_mix64(c) % (uint64_t)P); }

/* The owner of a chunk under aggregation, chosen by its counter from the ranks touching it (ascending in
   src[0..n)): the first toucher at or after c mod P, cyclically. A rank that touches the chunk never
   ships its piece, and chunks every rank touches rotate over the ranks, so owners spread evenly. */
static int choose_owner(uint64_t c, int P, const int *src, uint64_t n)
{
    int start = (int)(c % (uint64_t)P);
    for (uint64_t i = 0; i < n; i++)
        if (src[i] >= start) return src[i];
    return src[0];
}

typedef struct { uint64_t id; int src; uint64_t at; } cd_idsrc;
static int cmp_idsrc(const void *a, const void *b)
{
    const cd_idsrc *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}
typedef struct { int owner; uint64_t i; } cd_ownpos; /* a touched chunk's counter, and the piece */
static int cmp_ownpos(const void *a, const void *b)
{
    const cd_ownpos *x = a, *y = b;
    if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* The counter's side: every (chunk id, bytes) pair received, in place, becomes (rank count << 32 | owner,
   the chunk's bytes over all ranks); ids of chunks with count > thr (all with ratio0) go to uniq (if
   given, sized for every pair). A pair answered 0 tells its sender the counter failed. */
static int count_received(cd_spx *in, int P, unsigned thr, int ratio0, uint64_t *uniq, uint64_t *nu)
{
    uint64_t nr = 0;
    for (int s = 0; s < in->n; s++) nr += in->cnt[s] / 2;
    *nu = 0;
    cd_idsrc *rec = cd_malloc((size_t)(nr ? nr : 1) * sizeof *rec);
    int *srcs = cd_malloc((size_t)(nr ? nr : 1) * sizeof *srcs);
    if (!rec || !srcs) {
        for (int s = 0; s < in->n; s++) memset(in->buf + in->dsp[s], 0, (size_t)in->cnt[s] * sizeof *in->buf);
        cd_free(rec);
        cd_free(srcs);
        return -1;
    }
    uint64_t k = 0;
    for (int s = 0; s < in->n; s++)
        for (uint64_t w = in->dsp[s]; w + 2 <= in->dsp[s] + in->cnt[s]; w += 2)
            rec[k++] = (cd_idsrc){in->buf[w], in->src[s], w};
    qsort(rec, (size_t)nr, sizeof *rec, cmp_idsrc);
    for (uint64_t i = 0; i < nr;) {
        uint64_t e = i, tot = 0;
        while (e < nr && rec[e].id == rec[i].id) { srcs[e - i] = rec[e].src; tot += in->buf[rec[e].at + 1]; e++; }
        const uint64_t own = (uint64_t)choose_owner(rec[i].id, P, srcs, e - i);
        if (uniq && (ratio0 || (e - i) > thr)) uniq[(*nu)++] = rec[i].id;
        for (uint64_t j = i; j < e; j++) { in->buf[rec[j].at] = (e - i) << 32 | own; in->buf[rec[j].at + 1] = tot; }
        i = e;
    }
    cd_free(rec);
    cd_free(srcs);
    return 0;
}

/* Fills pc[i].nproc and pc[i].owner; with want_list, *glist gets the ascending ids of chunks with
   nproc > thr (all touched chunks when ratio0); with want_bytes (aggregation: every rank passes the
   same), pc[i].abytes the bytes all ranks' pieces of the chunk hold plus, with words (per piece,
   agg_count_words), their records' bytes, so an owner knows what it will receive before anything
   moves. Collective; a rank that already failed still takes part (it sends nothing, and answers). */
static int nproc_exchange(cd_io *io, unsigned thr, int ratio0, int want_list, int want_bytes, const uint64_t *words,
                          uint64_t **glist, uint64_t *gn)
{
    MPI_Comm comm = io->f->comm;
    const int P = io->f->size;
    cd_map *m = &io->map;
    uint64_t n = io->code ? 0 : m->n;
    if (io->disjoint && !(want_list && ratio0)) {
        /* no chunk has two ranks (agreed, so every rank is here): each count is 1, each chunk its own
           rank's, and no chunk passes a threshold of at least 1, so the list is empty; nothing to send */
        (void)thr;
        for (uint64_t i = 0; i < n; i++) {
            m->pc[i].nproc = 1;
            m->pc[i].owner = io->f->rank;
            m->pc[i].abytes = want_bytes && !(m->pc[i].flags & PF_UNALLOC) ? m->pc[i].nelem * io->fes + (words ? words[i] * 8 : 0) : 0;
        }
        if (want_list) {
            *glist = NULL;
            *gn = 0;
        }
        /* the fault-injection point of the exchange stays live here (test_errors: a rank failing while
           counting fails every rank) */
        return cd_inject(io, "exchange") ? io_fail(io, COLLDIAG_ERR_NOMEM, "counting the ranks per chunk") : 0;
    }
    /* this rank's pairs (chunk id, its piece's bytes), grouped by counter: one segment a counter */
    int lerr = cd_inject(io, "exchange");
    cd_ownpos *op = NULL;
    uint64_t *sw = NULL, *sdsp = NULL, *scnt = NULL;
    int *dest = NULL, nd = 0;
    if (lerr) n = 0;
    if (n) {
        op = cd_malloc((size_t)n * sizeof *op);
        sw = cd_malloc((size_t)n * 2 * sizeof *sw);
        dest = cd_malloc((size_t)n * sizeof *dest);
        sdsp = cd_malloc((size_t)n * sizeof *sdsp);
        scnt = cd_malloc((size_t)n * sizeof *scnt);
        if (!op || !sw || !dest || !sdsp || !scnt) { lerr = 1; n = 0; }
    }
    for (uint64_t i = 0; i < n; i++) op[i] = (cd_ownpos){owner_of(m->pc[i].idx, P), i};
    if (n) qsort(op, (size_t)n, sizeof *op, cmp_ownpos);
    for (uint64_t k = 0; k < n; k++) {
        const cd_piece *p = &m->pc[op[k].i];
        if (!k || op[k].owner != op[k - 1].owner) { dest[nd] = op[k].owner; sdsp[nd] = 2 * k; scnt[nd++] = 0; }
        scnt[nd - 1] += 2;
        sw[2 * k] = p->idx;
        sw[2 * k + 1] = !want_bytes || (p->flags & PF_UNALLOC) ? 0 : p->nelem * io->fes + (words ? words[op[k].i] * 8 : 0);
    }
    cd_spx in, back;
    int lost = 0, lost2 = 0;
    spx_exchange(comm, SPX_TAG_IDS, nd, dest, scnt, sdsp, sw, &in, &lost);
    /* counter side: every pair becomes its chunk's answer, in place, and goes back where it came from */
    uint64_t nu = 0, *uniq = NULL;
    if (want_list) {
        uint64_t nr = 0;
        for (int s = 0; s < in.n; s++) nr += in.cnt[s] / 2;
        uniq = cd_malloc((size_t)(nr ? nr : 1) * sizeof *uniq);
        if (!uniq) lerr = 1;
    }
    if (count_received(&in, P, thr, ratio0, uniq, &nu)) lerr = 1;
    spx_exchange(comm, SPX_TAG_COUNTS, in.n, in.src, in.cnt, in.dsp, in.buf, &back, &lost2);
    if (lost || lost2) lerr = 1;
    /* sender side: the answers of each counter, in the order the pairs went (both lists ascend) */
    for (uint64_t i = 0; i < n; i++) { m->pc[i].nproc = 1; m->pc[i].owner = io->f->rank; m->pc[i].abytes = 0; }
    for (int d = 0, b = 0; d < nd && !lerr; d++) {
        while (b < back.n && back.src[b] < dest[d]) b++;
        if (b >= back.n || back.src[b] != dest[d] || back.cnt[b] != scnt[d]) { lerr = 1; break; }
        for (uint64_t w = 0; w < scnt[d]; w += 2) {
            const uint64_t a = back.buf[back.dsp[b] + w], k = (sdsp[d] + w) / 2;
            if (!a) { lerr = 1; break; } /* the counter failed */
            m->pc[op[k].i].nproc = (int)(a >> 32);
            m->pc[op[k].i].owner = (int)(a & 0xffffffffu);
            m->pc[op[k].i].abytes = want_bytes ? back.buf[back.dsp[b] + w + 1] : 0;
        }
    }
    spx_free(&in);
    spx_free(&back);
    cd_free(op);
    cd_free(sw);
    cd_free(dest);
    cd_free(sdsp);
    cd_free(scnt);
    if (want_list) {
        int mine = (int)nu, dummy[2] = {0, 0}, *all = cd_malloc((size_t)P * sizeof(int)), *dsp = cd_malloc((size_t)P * sizeof(int));
        if (!all || !dsp) lerr = 1;
        MPI_Allgather(&mine, 1, MPI_INT, all ? all : dummy, 1, MPI_INT, comm);
        uint64_t tot = 0;
        for (int r = 0; r < P && all && dsp; r++) { dsp[r] = (int)tot; tot += (uint64_t)all[r]; }
        *glist = cd_malloc((size_t)tot * sizeof(uint64_t));
        if (!*glist) lerr = 1;
        MPI_Allgatherv(uniq ? uniq : (uint64_t *)dummy, mine, MPI_UINT64_T, *glist ? *glist : (uint64_t *)dummy,
                       all, dsp, MPI_UINT64_T, comm);
        if (*glist) qsort(*glist, (size_t)tot, sizeof(uint64_t), cmp_u64);
        *gn = tot;
        cd_free(all);
        cd_free(dsp);
    }
    cd_free(uniq);
    if (lerr) return io_fail(io, COLLDIAG_ERR_NOMEM, "counting the ranks per chunk");
    return 0;
}

/* Threshold of the per-chunk ratio rule: collective iff nproc > max(1, floor(P * ratio / 100)). */
static unsigned ratio_threshold(int P, unsigned ratio)
{
    unsigned t = (unsigned)(((uint64_t)P * ratio) / 100u);
    return t < 1 ? 1 : t;
}

static int piece_io_mode(const cd_map *m)
{
    int mode = 0;
    for (uint64_t i = 0; i < m->n; i++) {
        if (m->pc[i].flags & PF_COLL) mode |= COLLDIAG_MPIO_CHUNK_COLLECTIVE;
        if (m->pc[i].flags & PF_IND) mode |= COLLDIAG_MPIO_CHUNK_INDEPENDENT;
    }
    return mode;
}

/* Indices of the pieces with (or without) PF_COLL, in address order. */
static uint64_t pick_pieces(const cd_io *io, int coll, uint64_t *out)
{
    uint64_t k = 0;
    for (uint64_t i = 0; i < io->map.n; i++) {
        uint64_t pi = io->order ? io->order[i] : i;
        if (((io->map.pc[pi].flags & PF_COLL) != 0) == coll) out[k++] = pi;
    }
    return k;
}

static void set_reason(cd_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_reason(cd_io *io, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(io->x->reason, sizeof io->x->reason, fmt, ap);
    va_end(ap);
    io->x->rz_auto = 0;
}

/* AUTO's reason, to be formatted when asked (xfer_reason): its estimates are x->auto_est. */
static void meas_reason(const colldiag_xfer *x, char *b, size_t n, const char *chosen); /* measure.c */
static void set_reason_auto(cd_io *io, uint64_t runs, uint64_t chunks, int P, int opt, size_t nsub)
{
    colldiag_xfer *x = io->x;
    x->reason[0] = 0;
    x->rz_auto = 1;
    x->rz_runs = runs;
    x->rz_chunks = chunks;
    x->rz_P = P;
    x->rz_opt = opt;
    x->rz_nsub = nsub;
}

/* The last call's scheme reason, formatted now if AUTO left it pending. Readers hold x as const (the
   report, colldiag_scheme_reason); every x is the caller's writable storage (colldiag_xfer_create,
   xfer_init), so formatting into it is a cache fill, as a const reader of the reason expects. */
static const char *xfer_reason(const colldiag_xfer *cx)
{
    colldiag_xfer *x = (colldiag_xfer *)cx;
    if (x->rz_auto) {
        x->rz_auto = 0;
        if (x->meas_kind && !x->rz_nsub)
            meas_reason(x, x->reason, sizeof x->reason, cd_chunk_opt_env[x->rz_opt]);
        else if (x->rz_nsub)
            snprintf(x->reason, sizeof x->reason, "AUTO over %zu datasets: estimated link %.3g s, multi %.3g s, aggregation %.3g s, independent "
                     "%.3g s -> %s", x->rz_nsub, x->auto_est[0], x->auto_est[1], x->auto_est[2], x->auto_est[3], cd_chunk_opt_env[x->rz_opt]);
        else
            snprintf(x->reason, sizeof x->reason, "AUTO: estimated link %.3g s, multi %.3g s, aggregation %.3g s, independent %.3g s (%" PRIu64
                     " runs, %" PRIu64 " chunks over %d ranks) -> %s", x->auto_est[0], x->auto_est[1], x->auto_est[2], x->auto_est[3],
                     x->rz_runs, x->rz_chunks, x->rz_P, cd_chunk_opt_env[x->rz_opt]);
        if (!x->meas_kind && x->rz_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE_IO && x->model_agg_ind == 1) { /* the model's way (auto_terms) */
            const size_t k = strlen(x->reason);
            snprintf(x->reason + k, sizeof x->reason - k, ", its owners' runs by independent calls (across nodes: a collective call's shuffle, "
                     "est. %.3g s, crosses the link)", x->model_agg_coll);
        }
    }
    if (x->reads_solo == 1) {
        x->reads_solo = 2;
        const size_t k = strlen(x->reason);
        snprintf(x->reason + k, sizeof x->reason - k, "%sits reads made independently: ranks' selections overlap, and Open MPI "
                 "4.1.0-4.1.4's ompio loses bytes of overlapping collective reads", k ? "; " : "");
    }
    return x->reason;
}

static const char *forced_by(const cd_io *io)
{
    return io->set.chunk_opt_src == io->set.env_text ? io->set.env_text : "forced by setting";
}
