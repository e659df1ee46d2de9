/* ---------------------------------------------------------------------------------------------------
 * 7. and 9. many datasets in one call (colldiag_write_multi / read_multi / plan_multi)
 *
 * Each dataset is checked and mapped in its own context (cd_io.sub[i]), exactly as a single call
 * would. Two reductions agree on the call: the first on a call-wide vector (causes, the first failure
 * with its dataset, the layouts' and settings' digests with n, and what each rank moves over the
 * whole call: the AUTO model's inputs), the second on every dataset's own vector, so that each
 * dataset's causes, rounds and rank counts are what its single call would agree. The scheme is
 * chosen once for the call. Link-chunk (and every contiguous dataset, whatever the scheme) moves all
 * its datasets' pieces in one collective call per round: the call's context holds copies of every
 * piece in address order and switches to a piece's dataset as it walks it (io_use); the memory type
 * holds absolute addresses (MPI_BOTTOM), since the pieces come from n buffers. Multi-chunk, at-once,
 * aggregation and multi-no-opt run per chunked dataset, in dataset order, with that dataset's agreed
 * vector: they make calls per chunk (or an exchange per dataset) anyway. A dataset whose causes rule
 * collective I/O out moves independently, the others collectively.
 *
 * Under HDF5 1.14's rules (the bridge under HDF5 1.12+, or colldiag_set_hdf5_rules) the call is decided
 * as HDF5 1.14.5 decides H5Dwrite_multi / H5Dread_multi, as a whole (H5D__mpio_opt_possible ORs every
 * dataset's causes into one word, reduced once): any cause on any rank makes every dataset
 * independent, and reports the call's causes for each. Each dataset's causes are its single call's
 * under 1.14 (causes_114: selection I/O, which one dataset or rank without it turns off for the call).
 * With selection I/O and no cause, HDF5's default, forced link- and multi-chunk settings all move every
 * dataset's pieces in one collective call, reported as LINK_CHUNK, each dataset CHUNK_COLLECTIVE or
 * CONTIGUOUS_COLLECTIVE and the call their OR (CHUNK_CONTIGUOUS_COLLECTIVE when both kinds are in it):
 * checked against HDF5 1.14.5's own answers by tests/test_multi_entry.sh. Without selection I/O HDF5
 * takes H5D__piece_io's multi-dataset path, whose threshold over all datasets (link) or per-dataset
 * multi-chunk the scheme below follows.
 * --------------------------------------------------------------------------------------------------- */

/* AG_FAIL of a multi-dataset call: the lowest failing rank, then the lowest dataset, with its code. */
#define CD_MULTI_FAIL_SHIFT 24
static uint64_t multi_fail_word(int rank, size_t ds, int code)
{
    const uint64_t d = ds < ((size_t)1 << CD_MULTI_FAIL_SHIFT) ? (uint64_t)ds : ((uint64_t)1 << CD_MULTI_FAIL_SHIFT) - 1;
    return ((((uint64_t)rank << CD_MULTI_FAIL_SHIFT) | d) * 16u) + (uint64_t)(-code);
}

/* The call-wide vector from the datasets' own (agree_local on each): per rank, the whole call's bytes,
   runs, chunks and estimated times are sums over its datasets, the largest piece and the storage end
   maxima; the layouts chain into one digest, and n joins the settings digest so that ranks passing
   different counts disagree instead of reducing vectors of different lengths. Local and pure. */
static void multi_combine(const cd_io *io, const uint64_t *vs, uint64_t v[AG_N])
{
    memset(v, 0, AG_N * sizeof *v);
    uint64_t ld = cd_mix64(0x6d756c7469ull ^ io->nsub), chunks = 0;
    for (size_t d = 0; d < io->nsub; d++) {
        const uint64_t *w = &vs[d * AG_N];
        ld = cd_mix64(ld ^ w[AG_LAYOUT]);
        v[AG_CAUSE] |= w[AG_CAUSE];
        v[AG_VIEW] |= w[AG_VIEW];
        chunks += w[AG_SUM_CHUNKS];
        static const int sums[] = {AG_MAX_BYTES, AG_MAX_RUNS, AG_SUM_RUNS, AG_SUM_PARTIAL, AG_MAX_MRUNS, AG_MAX_MULTI_NS, AG_MAX_IND_NS};
        for (size_t k = 0; k < sizeof sums / sizeof *sums; k++) v[sums[k]] += w[sums[k]];
        static const int maxs[] = {AG_MAX_PIECE, AG_MAX_END, AG_MAX_FSIZE, AG_RISK_HI, AG_RISK_FSIZE};
        for (size_t k = 0; k < sizeof maxs / sizeof *maxs; k++)
            if (w[maxs[k]] > v[maxs[k]]) v[maxs[k]] = w[maxs[k]];
        /* bytes at risk (risk_local): the call's extent over every dataset, the compact datasets' digests chained */
        if (d == 0 || w[AG_RISK_LO] < v[AG_RISK_LO]) v[AG_RISK_LO] = w[AG_RISK_LO];
        v[AG_RISK_PAST] += w[AG_RISK_PAST];
        v[AG_RISK_CBYTES] += w[AG_RISK_CBYTES];
        v[AG_RISK_RANKS] |= w[AG_RISK_RANKS];
        if (w[AG_RISK_CBYTES]) v[AG_RISK_DIG] = cd_mix64(v[AG_RISK_DIG] ^ w[AG_RISK_DIG]);
    }
    v[AG_RISK_DIG_NOT] = ~v[AG_RISK_DIG];
    if (!io->nsub) v[AG_RISK_LO] = UINT64_MAX;
    const uint64_t sd = settings_digest(&io->set) ^ cd_mix64(io->nsub + 1) ^ plan_dir_digest(io->f, io->dir);
    v[AG_LAYOUT] = ld;
    v[AG_LAYOUT_NOT] = ~ld;
    v[AG_SETTINGS] = sd;
    v[AG_SETTINGS_NOT] = ~sd;
    v[AG_FAIL] = UINT64_MAX;
    v[AG_SUM_CHUNKS] = v[AG_MIN_CHUNKS] = v[AG_MAX_CHUNKS] = chunks;
}

/* Copies of every dataset's pieces into the call's map (dataset order, so ascending (dataset, index)),
   in address order, refusing datasets whose storage overlaps: one collective call's file type must
   ascend. Local, before the agreement. */
static int multi_merge(cd_io *io)
{
    uint64_t n = 0;
    for (size_t d = 0; d < io->nsub; d++) n += io->sub[d].map.n;
    if (n == 0) return 0;
    io->map.pc = cd_malloc((size_t)n * sizeof *io->map.pc);
    io->map.cap = io->map.pc ? n : 0;
    io->order = cd_malloc((size_t)n * sizeof *io->order);
    cd_addr_idx *t = cd_malloc((size_t)n * sizeof *t);
    if (!io->map.pc || !io->order || !t) {
        cd_free(t);
        return io_fail(io, COLLDIAG_ERR_NOMEM, "listing %" PRIu64 " pieces of %zu datasets", n, io->nsub);
    }
    for (size_t d = 0; d < io->nsub; d++)
        for (uint64_t i = 0; i < io->sub[d].map.n; i++) {
            cd_piece *p = &io->map.pc[io->map.n];
            *p = io->sub[d].map.pc[i];
            p->ds = (uint32_t)d;
            t[io->map.n].addr = p->addr;
            t[io->map.n].i = io->map.n;
            io->map.n++;
        }
    qsort(t, (size_t)n, sizeof *t, cmp_addr_idx);
    for (uint64_t i = 0; i < n; i++) io->order[i] = t[i].i;
    cd_free(t);
    /* a plan of HDF5 calls (colldiag_h5_plan_multi) gives chunks dense addresses (index x chunk bytes,
       nothing is read from the file), which overlap between datasets; a plan moves nothing */
    if (io->f->plan_only) return 0;
    const cd_piece *prev = NULL;
    MPI_Offset prev_end = 0;
    for (uint64_t i = 0; i < n; i++) {
        const cd_piece *p = &io->map.pc[io->order[i]];
        if (p->addr < 0) continue;
        const colldiag_layout *l = piece_layout(io, p);
        const MPI_Offset span = (MPI_Offset)(l->storage == STORE_CHUNKED ? l->chunk_bytes : l->nelem * l->esize);
        if (prev && prev->ds != p->ds && prev_end > p->addr)
            return io_fail(io, COLLDIAG_ERR_ARG, "the storage of datasets %u and %u overlaps in the file (bytes %lld and %lld)", prev->ds,
                           p->ds, (long long)prev_end - 1, (long long)p->addr);
        if (!prev || p->addr + span > prev_end) {
            prev = p;
            prev_end = p->addr + span;
        }
    }
    return 0;
}

/* One collective call per round over the pieces of the datasets marked `merged`, in address order. */
static void multi_exec_merged(cd_io *io)
{
    /* zeroed: with no piece, coll_call_rounds gets a list of none, which gcc 14 cannot see is never
       read (-Wmaybe-uninitialized where the kit is one unit with a program: tests/fuzz_h5.c) */
    uint64_t *list = cd_calloc(io->map.n ? io->map.n : 1, sizeof *list), k = 0;
    if (!list) io_fail(io, COLLDIAG_ERR_NOMEM, "listing %" PRIu64 " pieces", io->map.n);
    for (uint64_t i = 0; list && !io->code && i < io->map.n; i++) {
        cd_piece *p = &io->map.pc[io->order[i]];
        if (io->sub[p->ds].merged) {
            list[k++] = io->order[i];
            p->flags |= PF_COLL;
        }
    }
    /* rounds from the merged datasets only: each rank's bytes over them, agreed */
    uint64_t mb = 0;
    for (size_t d = 0; d < io->nsub; d++)
        if (io->sub[d].merged) mb += io->sub[d].g[AG_MAX_BYTES];
    coll_call_rounds(io, list, io->code ? 0 : k, rounds_for(io, mb));
    if (io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(io);
    cd_free(list);
}

/* The scheme for the whole call, from the call-wide vector (as exec_chunked decides a single call). */
static int multi_scheme(cd_io *io)
{
    colldiag_xfer *x = io->x;
    const int P = io->f->size;
    int opt = io->set.chunk_opt;
    const int best = auto_choose(io, x->model_est);
    if (opt == COLLDIAG_MPIO_CHUNK_AUTO) {
        memcpy(x->auto_est, x->model_est, sizeof x->auto_est);
        io->agg_indep = best == COLLDIAG_MPIO_CHUNK_AGGREGATE_IO && x->model_agg_ind == 1; /* the model's way (auto_terms) */
        set_reason_auto(io, 0, 0, P, best, io->nsub);
        return best;
    }
    if (opt == COLLDIAG_MPIO_CHUNK_SELECTION_IO) {
        set_reason(io, "HDF5 1.14's rules: selection I/O moves every piece of the %zu datasets in one collective call (reported as LINK_CHUNK)",
                   io->nsub);
        return COLLDIAG_MPIO_CHUNK_ONE_IO;
    }
    if (opt == COLLDIAG_MPIO_CHUNK_DEFAULT) {
        const uint64_t avg = io->g[AG_SUM_CHUNKS] / (uint64_t)P;
        const int link = avg >= io->set.num;
        set_reason(io, "DEFAULT over %zu datasets: average %" PRIu64 " chunks/rank %s num %u -> %s", io->nsub, avg, link ? ">=" : "<",
                   io->set.num, link ? "link-chunk" : "multi-chunk");
        return link ? COLLDIAG_MPIO_CHUNK_ONE_IO : COLLDIAG_MPIO_CHUNK_MULTI_IO;
    }
    set_reason(io, "%s (%s) for %zu datasets", forced_by(io), cd_chunk_opt_env[opt], io->nsub);
    return opt;
}

/* Each dataset's results, the call's (the scheme; CHUNK_MIXED when the datasets' modes differ; the OR
   of the causes) and the chunk info of every dataset's pieces. */
static void multi_results(cd_io *io, const int *ds_opt, const int *ds_mode, const uint32_t *ds_local, const uint32_t *ds_global)
{
    colldiag_xfer *x = io->x;
    if (io->nsub > x->dsr_cap) {
        cd_dsres *r = cd_calloc(io->nsub, sizeof *r);
        if (!r) {
            x->nds = 0;
            return;
        }
        cd_free(x->dsr);
        x->dsr = r;
        x->dsr_cap = io->nsub;
    }
    x->nds = io->nsub;
    int opt = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION, mode = -1;
    uint32_t lc = 0, gc = 0;
    for (size_t d = 0; d < io->nsub; d++) {
        cd_dsres *r = &x->dsr[d];
        const colldiag_layout *l = io->sub[d].l;
        memset(r, 0, sizeof *r);
        r->chunk_opt = ds_opt[d];
        r->io_mode = ds_mode[d];
        r->local_cause = ds_local[d];
        r->global_cause = ds_global[d];
        r->nchunks = io->sub[d].map.n;
        if (l && l->storage == STORE_CHUNKED) {
            r->grid_rank = l->rank;
            memcpy(r->grid, l->grid, (size_t)l->rank * sizeof *l->grid);
        }
        if (ds_opt[d] != COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION) opt = ds_opt[d];
        if (io->set.rules == COLLDIAG_HDF5_RULES_1_14 && mode > COLLDIAG_MPIO_CHUNK_INDEPENDENT && ds_mode[d] > COLLDIAG_MPIO_CHUNK_INDEPENDENT &&
            ds_mode[d] != COLLDIAG_MPIO_CHUNK_MIXED && mode != COLLDIAG_MPIO_CHUNK_MIXED)
            mode |= ds_mode[d]; /* HDF5 1.14 ORs the kinds of one collective call: CHUNK_CONTIGUOUS_COLLECTIVE */
        else
            mode = mode < 0 || mode == ds_mode[d] ? ds_mode[d] : COLLDIAG_MPIO_CHUNK_MIXED;
        lc |= ds_local[d];
        gc |= ds_global[d];
    }
    x->chunk_opt_done = opt;
    x->io_mode_done = mode < 0 ? COLLDIAG_MPIO_NO_COLLECTIVE : mode;
    x->local_cause = lc;
    x->global_cause = gc;
}

static int multi_finish(cd_io *io, int rc)
{
    if (io->sub) {
        for (size_t d = 0; d < io->nsub; d++) {
            map_free(&io->sub[d].map);
            cd_free(io->sub[d].order);
        }
        cd_free(io->sub);
        io->sub = NULL;
    }
    return finish(io, rc);
}

/* The first failure among the call's and its datasets' contexts, as the call's. */
static int multi_first_code(cd_io *io)
{
    for (size_t d = 0; !io->code && d < io->nsub; d++)
        if (io->sub[d].code) {
            io->code = io->sub[d].code;
            snprintf(io->msg, CD_MSG_CAP, "%s", io->sub[d].msg);
        }
    return io->code;
}

static int cd_transfer_multi(colldiag_file *f, size_t n, const colldiag_layout *const ls[], const colldiag_sel *const fss[],
                             const colldiag_sel *const mss[], const void *const wbufs[], void *const rbufs[], colldiag_xfer *x, int dir,
                             const char *fn)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank cannot take part: its results have nowhere to go)");
    xfer_reset(x);
    x->planned = dir == DIR_PLAN;
    if (!f) {
        cd_fail(COLLDIAG_ERR_ARG, fn, "f is NULL (this rank cannot take part in the collective call)");
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return COLLDIAG_ERR_ARG;
    }
    cd_io io;
    char msg[CD_MSG_CAP] = "", ds_msg[CD_MSG_CAP] = ""; /* the call's, and its datasets' (the first failure) */
    memset(&io, 0, sizeof io);
    io.msg = msg;
    io.fn = fn;
    io.f = f;
    io.x = x;
    io.dir = dir;
    io.fail_shift = CD_MULTI_FAIL_SHIFT;
    double t0 = cd_now();
    /* the call's own checks: a rank failing them takes part in the agreement with nothing */
    if (settings_effective(fn, x, &io.set)) {
        io.code = COLLDIAG_ERR_ARG;
        snprintf(io.msg, CD_MSG_CAP, "%s", cd_errbuf);
    } else if (n > 0 && !ls) io_fail(&io, COLLDIAG_ERR_ARG, "layouts is NULL with n = %zu", n);
    else if (n > 0 && !fss) io_fail(&io, COLLDIAG_ERR_ARG, "file_sels is NULL with n = %zu", n);
    else if (n > 0 && dir == DIR_WRITE && !wbufs) io_fail(&io, COLLDIAG_ERR_ARG, "bufs is NULL with n = %zu", n);
    else if (n > 0 && dir == DIR_READ && !rbufs) io_fail(&io, COLLDIAG_ERR_ARG, "bufs is NULL with n = %zu", n);
    else if (n > UINT32_MAX) io_fail(&io, COLLDIAG_ERR_ARG, "n = %zu datasets is more than one call can carry", n);
    else if (x->conv) io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "multi-dataset calls do not convert types (one conversion cannot fit n datasets)");
    else if (x->pre_code) io_fail(&io, x->pre_code, "%s", x->pre_msg);
    x->pre_code = x->pre_need_index = 0;
    io.nsub = io.code ? 0 : n;
    io.sub = io.nsub ? cd_calloc(io.nsub, sizeof *io.sub) : NULL;
    char (*names)[64] = io.nsub ? cd_malloc(io.nsub * sizeof *names) : NULL;
    if (io.nsub && (!io.sub || !names)) {
        io_fail(&io, COLLDIAG_ERR_NOMEM, "allocating the contexts of %zu datasets", n);
        cd_free(io.sub);
        io.sub = NULL;
        io.nsub = 0;
    }
    uint32_t *ds_local = io.nsub ? cd_calloc(io.nsub, 4 * sizeof(uint32_t) + 2 * sizeof(int)) : NULL;
    if (io.nsub && !ds_local) io_fail(&io, COLLDIAG_ERR_NOMEM, "allocating the results of %zu datasets", n);
    uint32_t *ds_global = ds_local ? ds_local + io.nsub : NULL;
    int *ds_opt = ds_local ? (int *)(ds_local + 2 * io.nsub) : NULL, *ds_mode = ds_opt ? ds_opt + io.nsub : NULL;
    uint32_t cause = 0, sel_cause = 0;
    const int rules_114 = io.set.rules == COLLDIAG_HDF5_RULES_1_14;
    int sel_on = rules_114; /* 1.14's rules: every dataset of the call goes through selection I/O on this rank */
    io.fes_max = 0;
    io.fes_min = SIZE_MAX;
    for (size_t d = 0; d < io.nsub && !io.code; d++) {
        cd_io *s = &io.sub[d];
        snprintf(names[d], sizeof names[d], "%s (dataset %zu)", fn, d);
        s->fn = names[d];
        s->msg = ds_msg;
        s->f = f;
        s->x = x;
        s->dir = dir;
        s->set = io.set;
        s->l = ls[d];
        s->fs = fss[d];
        s->ms = mss ? mss[d] : NULL;
        s->wbuf = s->risk_buf = dir == DIR_WRITE ? wbufs[d] : NULL;
        s->rbuf = dir == DIR_READ ? rbufs[d] : NULL;
        s->fes = s->mes = s->fes_max = s->fes_min = s->l ? s->l->esize : 1;
        const void *b = dir == DIR_WRITE ? s->wbuf : s->rbuf;
        MPI_Aint a = 0;
        if (b) MPI_Get_address(b, &a);
        s->buf_addr = (int64_t)a;
        check_args(s);
        ds_local[d] = local_causes(s);
        map_selection(s, ds_local[d]);
        if (rules_114 && !s->code) {
            int on = 0;
            ds_local[d] = causes_114(s, ds_local[d], &on);
            sel_on &= on;
            sel_cause |= x->sel_io_cause;
        }
        if (s->code) ds_local[d] |= COLLDIAG_MPIO_ERROR_WHILE_CHECKING;
        cause |= ds_local[d];
        if (s->fes > io.fes_max) io.fes_max = s->fes;
        if (s->fes < io.fes_min) io.fes_min = s->fes;
    }
    if (io.fes_max == 0) io.fes_max = io.fes_min = 1;
    multi_first_code(&io);
    if (!io.code) multi_merge(&io);
    io.fes = io.mes = io.fes_max;
    if (io.code) cause |= COLLDIAG_MPIO_ERROR_WHILE_CHECKING | local_causes(&io);
    x->local_cause = cause;
    x->sel_io_cause = sel_cause;
    x->cnt.t_map = cd_now() - t0;
    t0 = cd_now();
    int rc = 0;
    if (io.set.mode == COLLDIAG_MPIO_INDEPENDENT) {
        x->global_cause = cause;
        for (size_t d = 0; d < io.nsub && !io.code; d++) {
            cd_io *s = &io.sub[d];
            exec_independent(s, ds_local[d]);
            ds_global[d] = ds_local[d];
            ds_opt[d] = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
            ds_mode[d] = COLLDIAG_MPIO_NO_COLLECTIVE;
            multi_first_code(&io);
        }
        goto done;
    }
    /* reduction 1: the call-wide vector */
    uint64_t v[AG_N];
    uint64_t *vs = io.nsub ? cd_malloc(io.nsub * AG_N * sizeof *vs) : NULL; /* reduced in place */
    if (io.nsub && !vs && !io.code) {
        io_fail(&io, COLLDIAG_ERR_NOMEM, "allocating the agreement vectors of %zu datasets", n);
        cause |= COLLDIAG_MPIO_ERROR_WHILE_CHECKING;
    }
    if (io.code) {
        agree_neutral(&io, cause, v);
        size_t bad = 0;
        while (bad < io.nsub && !io.sub[bad].code) bad++;
        v[AG_FAIL] = multi_fail_word(f->rank, bad < io.nsub ? bad : SIZE_MAX, io.code); /* SIZE_MAX: the call's own arguments */
    } else {
        for (size_t d = 0; d < io.nsub; d++) agree_local(&io.sub[d], ds_local[d], &vs[d * AG_N]);
        multi_combine(&io, vs, v);
    }
    agree_env(&io, v);
    /* 1.14's rules: one rank without selection I/O (a dataset it turns off on) takes the call off it for
       every rank (as in single calls: the ranks must take one path); an internal bit, never reported */
    if (rules_114 && !sel_on) v[AG_CAUSE] |= CD_CAUSE_SEL_OFF_114;
    rc = MPI_Allreduce(v, io.g, AG_N, MPI_UINT64_T, f->op, f->comm);
    if (rc != MPI_SUCCESS) {
        cd_mpi_err(&io, rc, "MPI_Allreduce (cause agreement)");
        cd_free(vs);
        goto done;
    }
    agreed_env(&io);
    if (io.g[AG_CAUSE] & CD_CAUSE_SEL_OFF_114) sel_on = 0;
    x->global_cause = (uint32_t)(io.g[AG_CAUSE] & ~(uint64_t)(CD_CAUSE_SEL_OFF_114 | CD_CAUSE_CONVERTS_114));
    if (!(x->global_cause & COLLDIAG_MPIO_ERROR_WHILE_CHECKING)) risk_agreed(&io, x->global_cause, UINT64_MAX);
    if (io.g[AG_CAUSE] & COLLDIAG_MPIO_ERROR_WHILE_CHECKING) {
        const uint64_t w = io.g[AG_FAIL] / 16u, mask = ((uint64_t)1 << CD_MULTI_FAIL_SHIFT) - 1, bad = w & mask;
        char where[48] = "";
        if (bad != mask) snprintf(where, sizeof where, " in dataset %" PRIu64, bad);
        if (!io.code) {
            x->peer_code = -(int)(io.g[AG_FAIL] % 16u);
            io_fail(&io, COLLDIAG_ERR_PEER, "rank %" PRIu64 " found %s%s (%s); see its message", w >> CD_MULTI_FAIL_SHIFT,
                    x->peer_code == COLLDIAG_ERR_UNSUPPORTED ? "what colldiag cannot move" : "a bad argument", where,
                    colldiag_strerror(x->peer_code));
        }
        cd_free(vs);
        goto done;
    }
    if ((io.g[AG_LAYOUT] & io.g[AG_LAYOUT_NOT]) || (io.g[AG_SETTINGS] & io.g[AG_SETTINGS_NOT])) {
        report_disagreement(&io, v[AG_LAYOUT], v[AG_SETTINGS]);
        cd_free(vs);
        goto done;
    }
    /* reduction 2: every dataset's own vector, agreed like its single call's */
    if (io.nsub) {
        rc = MPI_Allreduce(MPI_IN_PLACE, vs, (int)(io.nsub * AG_N), MPI_UINT64_T, f->op, f->comm);
        if (rc != MPI_SUCCESS) {
            cd_mpi_err(&io, rc, "MPI_Allreduce (the datasets' agreement)");
            cd_free(vs);
            goto done;
        }
        for (size_t d = 0; d < io.nsub; d++) {
            cd_io *s = &io.sub[d];
            memcpy(s->g, vs + d * AG_N, sizeof s->g);
            uint64_t tb = 0;
            for (int w = 0; w < CD_TOUCH_WORDS; w++) tb += popcount64(s->g[AG_TOUCH + w]);
            s->disjoint = s->l->storage == STORE_CHUNKED && tb == s->g[AG_SUM_TOUCH];
            ds_global[d] = (uint32_t)s->g[AG_CAUSE];
        }
    }
    cd_free(vs);
    if (io.g[AG_VIEW] && dir != DIR_PLAN) view_reset(&io);
    if (read_past_eof(&io, io.g[AG_MAX_END], io.g[AG_MAX_FSIZE])) goto done;
    if (dir == DIR_WRITE && io.g[AG_MAX_END] > io.g[AG_MAX_FSIZE]) extend_file(&io, io.g[AG_MAX_END]);
    for (size_t d = 0; d < io.nsub; d++) {
        if (ds_global[d] & COLLDIAG_MPIO_FILTERS) {
            io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "dataset %zu is filtered: colldiag cannot write filtered chunks (cause FILTERS)", d);
            goto done;
        }
        if (io.sub[d].l->filtered && !f->plan_only) {
            io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "dataset %zu is filtered: colldiag cannot read filtered chunks", d);
            goto done;
        }
    }
    /* HDF5 1.14 decides the call as a whole: the call's causes are every dataset's */
    if (rules_114 && x->global_cause)
        for (size_t d = 0; d < io.nsub; d++) ds_global[d] = x->global_cause;
    /* datasets whose causes rule collective I/O out move independently (as their single calls would) */
    int nchunked = 0, nmerged = 0;
    for (size_t d = 0; d < io.nsub; d++) {
        cd_io *s = &io.sub[d];
        ds_opt[d] = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
        ds_mode[d] = COLLDIAG_MPIO_NO_COLLECTIVE;
        if (ds_global[d]) {
            for (uint64_t i = 0; i < s->map.n; i++) s->map.pc[i].flags |= PF_IND;
            ind_pieces(s, NULL, s->map.n, 1);
        } else if (s->l->storage == STORE_CHUNKED) {
            nchunked++;
        } else {
            s->merged = 1;
            nmerged++;
            ds_mode[d] = COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE;
        }
    }
    /* 1.14's selection I/O moves every piece in one collective call whatever HDF5's own chunk
       optimisation asks (colldiag's own schemes stay what they are) */
    const int hdf5_opt = io.set.chunk_opt == COLLDIAG_MPIO_CHUNK_DEFAULT || io.set.chunk_opt == COLLDIAG_MPIO_CHUNK_ONE_IO ||
                         io.set.chunk_opt == COLLDIAG_MPIO_CHUNK_MULTI_IO;
    const int sel_link = sel_on && !x->global_cause && hdf5_opt;
    if (sel_link) io.set.chunk_opt = COLLDIAG_MPIO_CHUNK_SELECTION_IO;
    const int opt = nchunked ? multi_scheme(&io) : COLLDIAG_MPIO_CHUNK_ONE_IO;
    if (!nchunked && nmerged)
        set_reason(&io, sel_link ? "HDF5 1.14's rules: %d contiguous datasets, selection I/O: one collective call (reported as LINK_CHUNK)"
                                 : "%d contiguous datasets: one collective call", nmerged);
    else if (!nchunked && rules_114 && x->global_cause) {
        char cs[256];
        colldiag_cause_string(x->global_cause, cs, sizeof cs);
        set_reason(&io, "HDF5 1.14 decides a multi-dataset call as a whole: no collective I/O for any of its %zu datasets: %s", io.nsub, cs);
    }
    /* 1.14 links contiguous datasets' pieces with the chunks (H5D__link_piece_collective_io) */
    if (sel_link || (rules_114 && nchunked && opt == COLLDIAG_MPIO_CHUNK_ONE_IO))
        for (size_t d = 0; d < io.nsub; d++)
            if (!ds_global[d] && io.sub[d].l->storage != STORE_CHUNKED) ds_opt[d] = COLLDIAG_MPIO_LINK_CHUNK;
    if (opt == COLLDIAG_MPIO_CHUNK_ONE_IO)
        for (size_t d = 0; d < io.nsub; d++)
            if (!ds_global[d] && io.sub[d].l->storage == STORE_CHUNKED) {
                io.sub[d].merged = 1;
                nmerged++;
                ds_opt[d] = COLLDIAG_MPIO_LINK_CHUNK;
                ds_mode[d] = COLLDIAG_MPIO_CHUNK_COLLECTIVE; /* every rank, even one with nothing: as HDF5 */
            }
    if (nmerged) multi_exec_merged(&io);
    if (opt != COLLDIAG_MPIO_CHUNK_ONE_IO) {
        char reason[sizeof x->reason];
        double est[4];
        snprintf(reason, sizeof reason, "%s", xfer_reason(x)); /* the per-dataset passes below set their own */
        memcpy(est, x->model_est, sizeof est);
        for (size_t d = 0; d < io.nsub; d++) {
            cd_io *s = &io.sub[d];
            if (ds_global[d] || s->l->storage != STORE_CHUNKED) continue;
            s->set.chunk_opt = opt;
            exec_chunked(s);
            ds_opt[d] = x->chunk_opt_done;
            ds_mode[d] = x->io_mode_done;
        }
        snprintf(x->reason, sizeof x->reason, "%s", reason);
        x->rz_auto = 0;
        memcpy(x->model_est, est, sizeof est);
    }
    /* the per-dataset passes set flags on the datasets' pieces: the call's copies become the chunk info */
    for (uint64_t i = 0, j = 0; !io.code && i < io.nsub; i++)
        for (uint64_t k = 0; k < io.sub[i].map.n; k++, j++) {
            const int flags = io.map.pc[j].flags & PF_COLL;
            io.map.pc[j] = io.sub[i].map.pc[k];
            io.map.pc[j].ds = (uint32_t)i;
            io.map.pc[j].flags |= flags;
        }
done:
    multi_first_code(&io);
    if (io.set.mode != COLLDIAG_MPIO_INDEPENDENT) {
        uint64_t sel = 0;
        for (uint64_t i = 0; i < io.map.n; i++) sel += io.map.pc[i].nelem * piece_fes(&io, &io.map.pc[i]);
        uint64_t kept = io.map.n;
        io.map.n = 0; /* agree_end's note on written bytes: over every dataset, below */
        rc = agree_end(&io);
        io.map.n = kept;
        if (rc && dir == DIR_WRITE && !strstr(io.msg, "selected bytes")) {
            const uint64_t done = x->cnt.bytes_collective + x->cnt.bytes_independent;
            size_t m = strlen(io.msg);
            snprintf(io.msg + m, CD_MSG_CAP - m, "; this rank handed %" PRIu64 " of its %" PRIu64
                     " selected bytes to the file before the call failed", done, sel);
        }
    } else {
        rc = io.code;
    }
    if (ds_local && !rc) {
        multi_results(&io, ds_opt, ds_mode, ds_local, ds_global);
        if (io.map.n && x->nds) {
            x->nchunks = 0;
            for (uint64_t i = 0; i < io.map.n; i++) /* chunk info: chunked datasets' pieces only, as single calls */
                if (io.sub[io.map.pc[i].ds].l->storage == STORE_CHUNKED) io.map.pc[x->nchunks++] = io.map.pc[i];
            io.keep_pieces = x->nchunks > 0;
        }
    }
    x->cnt.t_decide = cd_now() - t0 - x->cnt.t_io;
    cd_free(ds_local);
    cd_free(names);
    return multi_finish(&io, rc);
}

/* COLLDIAG_REPORT after a collective multi-dataset call, as after a single one. */
static void multi_env_report(colldiag_file *f, const colldiag_xfer *x)
{
    if (!f || !x || x->set.mode != COLLDIAG_MPIO_COLLECTIVE || f->plan_only || f->bridge) return;
    char keep[sizeof cd_errbuf];
    snprintf(keep, sizeof keep, "%s", cd_errbuf);
    env_report(f, x);
    snprintf(cd_errbuf, sizeof cd_errbuf, "%s", keep);
}

int colldiag_write_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[], const colldiag_sel *const file_sels[],
                         const colldiag_sel *const mem_sels[], const void *const bufs[], colldiag_xfer *x)
{
    cd_env_enter();
    int rc = cd_transfer_multi(f, n, layouts, file_sels, mem_sels, bufs, NULL, x, DIR_WRITE, "colldiag_write_multi");
    multi_env_report(f, x);
    cd_env_leave();
    return rc;
}

int colldiag_read_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[], const colldiag_sel *const file_sels[],
                        const colldiag_sel *const mem_sels[], void *const bufs[], colldiag_xfer *x)
{
    cd_env_enter();
    int rc = cd_transfer_multi(f, n, layouts, file_sels, mem_sels, NULL, bufs, x, DIR_READ, "colldiag_read_multi");
    multi_env_report(f, x);
    cd_env_leave();
    return rc;
}

int colldiag_plan_multi(colldiag_file *f, size_t n, const colldiag_layout *const layouts[], const colldiag_sel *const file_sels[],
                        const colldiag_sel *const mem_sels[], colldiag_xfer *x)
{
    cd_env_enter();
    int rc = cd_transfer_multi(f, n, layouts, file_sels, mem_sels, NULL, NULL, x, DIR_PLAN, "colldiag_plan_multi");
    multi_env_report(f, x);
    cd_env_leave();
    return rc;
}
