/* ---------------------------------------------------------------------------------------------------
 * 7. decision: per-chunk rank counts without a chunks x ranks gather
 *
 * Chunk c is counted by its owner rank, hash(c) mod P: every rank sends the ids of the chunks it
 * touches to their owners (one Alltoallv), owners count duplicates and send the counts back (one
 * Alltoallv). Work and memory are O(chunks this rank touches + chunks it owns), never O(total chunks)
 * nor O(chunks x ranks). Multi-chunk also needs the list of collective chunks on every rank (each
 * rank joins every collective chunk's call): owners contribute theirs to one Allgatherv.
 * --------------------------------------------------------------------------------------------------- */

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

typedef struct { uint64_t id; int src; int at; } cd_idsrc;
static int cmp_idsrc(const void *a, const void *b)
{
    const cd_idsrc *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->src > y->src) - (x->src < y->src);
}

/* Fills pc[i].nproc and pc[i].owner; with want_list, *glist gets the ascending ids of chunks with
   nproc > thr (all touched chunks when ratio0); with want_bytes (aggregation: every rank passes the
   same), pc[i].abytes the bytes all ranks' pieces of the chunk hold plus, with words (per piece,
   agg_count_words), their records' bytes, so an owner knows what it will receive before anything
   moves. Collective; a rank that already failed still takes part. */
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
    int *sc = cd_calloc((size_t)P * 4 + 2, sizeof(int));
    int *rcnt = sc ? sc + P : NULL, *sd = sc ? sc + 2 * P : NULL, *rd = sc ? sc + 3 * P : NULL;
    int lerr = !sc || cd_inject(io, "exchange");
    uint64_t *sid = NULL, *rid = NULL, *pos = NULL, *uniq = NULL;
    uint64_t *sby = NULL, *rby = NULL; /* want_bytes: [0, n) sent (then returned totals), [0, nr) received */
    int *rep = NULL, *back = NULL, *srcs = NULL;
    cd_idsrc *rec = NULL;
    uint64_t nr = 0;
    if (!lerr) {
        for (uint64_t i = 0; i < n; i++) sc[owner_of(m->pc[i].idx, P)]++;
        sid = cd_malloc((size_t)n * sizeof *sid);
        pos = cd_malloc((size_t)n * sizeof *pos);
        if (want_bytes) sby = cd_malloc((size_t)(n ? n : 1) * sizeof *sby);
        lerr = !sid || !pos || (want_bytes && !sby);
    }
    /* every rank must enter each collective, so failures only shrink what a rank sends */
    if (lerr) { n = 0; if (sc) memset(sc, 0, (size_t)P * sizeof(int)); }
    if (sc) {
        for (int r = 1; r < P; r++) sd[r] = sd[r - 1] + sc[r - 1];
        int *fill = cd_calloc((size_t)P, sizeof(int));
        if (!fill) { lerr = 1; n = 0; memset(sc, 0, (size_t)P * sizeof(int)); memset(sd, 0, (size_t)P * sizeof(int)); }
        for (uint64_t i = 0; i < n; i++) {
            int o = owner_of(m->pc[i].idx, P);
            pos[i] = (uint64_t)(sd[o] + fill[o]++);
            sid[pos[i]] = m->pc[i].idx;
            if (sby) sby[pos[i]] = m->pc[i].flags & PF_UNALLOC ? 0 : m->pc[i].nelem * io->fes + (words ? words[i] * 8 : 0);
        }
        cd_free(fill);
    }
    int dummy[2] = {0, 0};
    MPI_Alltoall(sc ? sc : dummy, 1, MPI_INT, rcnt ? rcnt : dummy, 1, MPI_INT, comm);
    /* (a rank whose small arrays failed to allocate cannot even join; that is the one unrecoverable case) */
    for (int r = 0; r < P; r++) { rd[r] = (int)nr; nr += (uint64_t)rcnt[r]; }
    rid = cd_malloc((size_t)nr * sizeof *rid);
    rep = cd_malloc((size_t)nr * 2 * sizeof *rep);   /* per entry: (rank count, owner) */
    back = cd_malloc((size_t)n * 2 * sizeof *back);
    if (!rid || !rep || !back) lerr = 1;
    MPI_Alltoallv(sid, sc, sd, MPI_UINT64_T, rid ? rid : (uint64_t *)dummy, rcnt, rd, MPI_UINT64_T, comm);
    if (want_bytes) {
        rby = cd_malloc((size_t)(nr ? nr : 1) * sizeof *rby);
        if (!rby) lerr = 1;
        MPI_Alltoallv(sby ? sby : (uint64_t *)dummy, sc, sd, MPI_UINT64_T, rby ? rby : (uint64_t *)dummy, rcnt, rd,
                      MPI_UINT64_T, comm);
    }
    /* counter side: group the ids it received by (id, source rank) */
    uint64_t nu = 0;
    if (rid && rep) {
        rec = cd_malloc((size_t)nr * sizeof *rec);
        uniq = cd_malloc((size_t)nr * sizeof *uniq);
        srcs = cd_malloc((size_t)nr * sizeof *srcs);
        if (rec && uniq && srcs) {
            for (int r = 0; r < P; r++)
                for (int i = rd[r]; i < rd[r] + rcnt[r]; i++) { rec[i].id = rid[i]; rec[i].src = r; rec[i].at = i; }
            qsort(rec, (size_t)nr, sizeof *rec, cmp_idsrc);
            for (uint64_t i = 0; i < nr;) {
                uint64_t e = i;
                while (e < nr && rec[e].id == rec[i].id) { srcs[e - i] = rec[e].src; e++; }
                int own = choose_owner(rec[i].id, P, srcs, e - i);
                for (uint64_t j = i; j < e; j++) { rep[2 * rec[j].at] = (int)(e - i); rep[2 * rec[j].at + 1] = own; }
                if (rby) { /* each entry's bytes become the chunk's total, in place */
                    uint64_t tot = 0;
                    for (uint64_t j = i; j < e; j++) tot += rby[rec[j].at];
                    for (uint64_t j = i; j < e; j++) rby[rec[j].at] = tot;
                }
                if (ratio0 || (e - i) > thr) uniq[nu++] = rec[i].id;
                i = e;
            }
        } else {
            lerr = 1;
            for (uint64_t i = 0; i < 2 * nr; i++) rep[i] = 0;
        }
    }
    MPI_Alltoallv(rep ? rep : dummy, rcnt, rd, MPI_2INT, back ? back : dummy, sc, sd, MPI_2INT, comm);
    if (want_bytes)
        MPI_Alltoallv(rby ? rby : (uint64_t *)dummy, rcnt, rd, MPI_UINT64_T, sby ? sby : (uint64_t *)dummy, sc, sd,
                      MPI_UINT64_T, comm);
    for (uint64_t i = 0; i < n && back; i++) {
        m->pc[i].nproc = back[2 * pos[i]];
        m->pc[i].owner = back[2 * pos[i] + 1];
        m->pc[i].abytes = sby ? sby[pos[i]] : 0;
    }
    if (want_list) {
        int mine = (int)nu, *all = cd_malloc((size_t)P * sizeof(int)), *dsp = cd_malloc((size_t)P * sizeof(int));
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
    cd_free(sc);
    cd_free(sid);
    cd_free(rid);
    cd_free(pos);
    cd_free(uniq);
    cd_free(srcs);
    cd_free(rec);
    cd_free(rep);
    cd_free(back);
    cd_free(sby);
    cd_free(rby);
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
