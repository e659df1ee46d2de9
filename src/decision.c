/* ---------------------------------------------------------------------------------------------------
 * 7. decision: AUTO's cost model
 *
 * Inputs are the agreed totals every rank already holds after the first reduction, so choosing costs
 * no extra communication and every rank chooses the same. Estimated seconds, with the constants k of
 * the settings (COLLDIAG_AUTO_*), P ranks, and
 *   R = max(runs on the busiest rank, all runs / P)   -- two-phase I/O handles every rank's runs on the
 *                                                        aggregators, spread over about P of them
 *   B = bytes of the busiest rank, C = chunks of the busiest rank,
 *   RUN(n) = what n file runs a rank cost two-phase I/O (run_price: RUN x RUN_LOW a run up to RUN_KNEE
 *       runs, RUN from 64K runs, where calibrate measures it; a run costs more the more there are),
 *   N = collective chunks under multi-chunk, estimated before the rank counts exist: pieces that do
 *       not cover their chunk (only those can be shared), summed over ranks, over the fewest ranks
 *       that make a chunk collective (thr + 1 of the ratio rule);
 *   M = the busiest rank's own part of multi-chunk (multi_local): whole-chunk pieces go independent,
 *       partial ones collective;
 *   link        LAT + RUN(R) + MR MRUN + B x K / BW_NET_X + B / BW_IO
 *               (MR: memory blocks of the busiest rank too long to be packed, link_mem_runs; two-phase
 *               I/O's shuffle to its aggregators, about one a node, sends x of the bytes off the node,
 *               x and K as for aggregation: 0 on one node)
 *   multi       N LAT + 3 S LAT_X + M,    M = bytes_whole / BW_IND + stretches IND + bytes_partial / BW_IO + RUN(runs_partial)
 *               (S = 1 when some chunk may be shared (touch_map): the ranks per chunk are counted in
 *                three exchange steps: the ids to their counters and the answers back (two sparse
 *                exchanges, nproc_exchange), then the list of collective chunks (an Allgatherv))
 *   aggregation LAT + (5 + 2 S) LAT_X + R COPY + RUN(C) + B (2 / BW_COPY + (1 - x) / BW_NET + x K / BW_NET_X) + B / BW_IO
 *               (a round's five exchange steps: its end, counts, buffers agreed, records and bytes,
 *                the move agreed, after two that find the owners of shared chunks (the ids with their
 *                bytes to the counters, the owners back); pack and assemble; owners write about one run per chunk they own,
 *                at most the chunks they touch; H nodes of K = P / H ranks, x = (H - 1) / H of the bytes
 *                leave their node, whose link carries its K ranks' share: file_nodes, H agreed;
 *                BW_NET_X probed once for the ranks when they span nodes, file_probe_link, unless set)
 *               LAT_X, multi's and aggregation's exchange step, is probed once for the ranks (file_probe_step)
 *               unless set: what a step costs depends on the ranks' cores and network, not on this machine
 *   independent I,  I = bytes / BW_IND + (stretches + runs_partial) (IND + IND_DIRTY if writing)
 *               (each write call dirties a page of its own and takes the file's inode lock; a long
 *               run's further pages are in BW_IND, measured by writing)
 *               (the busiest rank's own, no collective data call: what multi-chunk costs when nothing
 *               is shared, and the answer when pieces two ranks share are few long runs, e.g. slabs and
 *               row blocks whose edge chunks are split; every call of ALL_CHUNK_IND is one contiguous
 *               file stretch)
 * Ties go to the earlier of link, multi, aggregation, independent.
 * Where N overestimates (partial pieces nobody shares), multi looks dearer than it is: AUTO then errs
 * toward link, never toward thousands of collective calls.
 * --------------------------------------------------------------------------------------------------- */

/* What two-phase I/O costs `runs` file runs a rank: RUN x RUN_LOW a run up to RUN_KNEE runs, RUN at
   COLLDIAG_RUN_FULL and beyond, between them RUN x RUN_LOW^(1 - g), g the count's place from the knee
   to the full count on a log scale (internal.h: the per-run cost grows with the count). Linear in RUN,
   continuous, never less per run at more runs while RUN_LOW <= 1. slow: run_slow's factor, by which
   the low price is raised, never past RUN. Pure. */
static double run_price(const double *k, double runs, double slow)
{
    const double knee = k[CD_K_RUN_KNEE], low = k[CD_K_RUN_LOW] * slow < 1 ? k[CD_K_RUN_LOW] * slow : 1;
    if (runs <= 0) return 0;
    if (runs <= knee) return runs * k[CD_K_RUN] * low;
    if (runs >= COLLDIAG_RUN_FULL) return runs * k[CD_K_RUN];
    const double g = meas_ln(runs / knee) / meas_ln(COLLDIAG_RUN_FULL / knee);
    return runs * k[CD_K_RUN] * meas_exp((1 - g) * meas_ln(low));
}

/* How much slower than the defaults' machine a collective step probed for the file's ranks (files.c,
   file_probe_step), by which a run's low price is raised (run_price): 1 unless the step probed slower
   than LAT_X's default and LAT, LAT_X, RUN and RUN_LOW are all at their defaults. Measured beside
   those defaults: on 8 ranks of 2 cores a run of a few hundred cost 6-7 us against 0.8 on 3 ranks
   (calibrate's runs mode), and whole row blocks' link-chunk writes, priced at 0.9 us a run, tied
   all-independent's estimate and ran 2.5x its time for the three calls before a try (bench-auto,
   8-rank B1 writes: 1.48x the best scheme's total). auto_terms raises LAT alike. Pure. */
static double run_slow(const cd_io *io)
{
    const double *k = io->set.k;
    const int dflt = k[CD_K_LAT] == COLLDIAG_AUTO_LAT && k[CD_K_LAT_X] == COLLDIAG_AUTO_LAT_X && k[CD_K_RUN] == COLLDIAG_AUTO_RUN &&
                     k[CD_K_RUN_LOW] == COLLDIAG_AUTO_RUN_LOW;
    return dflt && io->f->lat_x > COLLDIAG_AUTO_LAT_X ? io->f->lat_x / COLLDIAG_AUTO_LAT_X : 1.0;
}

/* The call's direction for the model: a write (or a plan of one) pays IND_DIRTY per independent call. */
static int model_writes(const cd_io *io) { return io->dir == DIR_WRITE || (io->dir == DIR_PLAN && !io->f->plan_read); }

/* This rank's inputs to multi-chunk's estimate: its pieces that do not cover their chunk, its own
   part M of multi's time, and its time I with independent calls only (see above), in ns. Local and
   pure. */
static void multi_local(const cd_io *io, uint64_t *partial, uint64_t *ns, uint64_t *ind_ns)
{
    *partial = 0;
    *ns = *ind_ns = 0;
    if (io->l->storage != STORE_CHUNKED) return;
    const double *k = io->set.k;
    /* every independent write call pays IND_DIRTY on top of a read's IND: a small run dirties a page of
       its own, and any write call takes the file's inode lock the ranks share. Until 2026-12-02 only
       runs under a page on average were charged it (a longer run's pages were taken to be in its bytes,
       BW_IND being measured by writing): rows of 8 KiB dealt round-robin (bench-auto's Xrr, 341 write
       calls a rank) ran 17-20 us a call on 2 and 3 ranks against 7 us for their reads, and AUTO, pricing
       the writes like the reads, stayed on all-independent at 2.8x link-chunk's time (MPICH) */
    const double dirty = model_writes(io) ? k[CD_K_IND_DIRTY] : 0.0;
    double bw = 0, bp = 0, rp = 0, stretches = 0;
    MPI_Offset end = -1;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const cd_piece *p = &io->map.pc[i];
        const double b = (double)(p->nelem * io->fes);
        if (p->nelem < chunk_elems_in(io->l, p->idx)) {
            (*partial)++;
            bp += b;
            rp += (double)p->nruns;
            continue;
        }
        bw += b;
        if (p->addr != end) stretches++; /* whole chunks next to each other go as one independent call */
        end = p->addr + (MPI_Offset)(p->nelem * io->fes);
    }
    double t = bw / k[CD_K_BW_IND] + stretches * k[CD_K_IND] + bp / k[CD_K_BW_IO] + run_price(k, rp, run_slow(io));
    double ti = (bw + bp) / k[CD_K_BW_IND] + (stretches + rp) * (k[CD_K_IND] + dirty);
    *ns = t * 1e9 < 1.8e19 ? (uint64_t)(t * 1e9) : UINT64_MAX / 2;
    *ind_ns = ti * 1e9 < 1.8e19 ? (uint64_t)(ti * 1e9) : UINT64_MAX / 2;
}

/* The touched-chunk map: a coarse bitmap of the chunk grid (chunk idx sets bit idx / ceil(nchunks /
   bits)), OR-reduced with the agreement, with the ranks' own bit counts summed beside it. When the
   sum equals the bits of the OR, no bit and so no chunk has two ranks: counting ranks per chunk
   (nproc_exchange: two sparse exchanges and, for multi-chunk, an Allgatherv) has nothing to find, and multi-chunk or
   aggregation over disjoint blocks (B2) costs the one reduction every collective call makes anyway.
   Coarse, so a sufficient test only: ranks that share a bit but no chunk count as before. 512 bits,
   so that the whole agreement vector stays under 256 bytes: 64 words cost every call 12 us more on
   3 ranks (two reductions a call; Open MPI's allreduce changes algorithm above that size). Local work
   O(touched chunks). */
static void touch_map(const cd_io *io, uint64_t *bits, uint64_t *nbits)
{
    const uint64_t nb = 64 * (uint64_t)CD_TOUCH_WORDS, per = io->l->nchunks / nb + (io->l->nchunks % nb != 0);
    memset(bits, 0, CD_TOUCH_WORDS * sizeof *bits);
    *nbits = 0;
    if (io->l->storage != STORE_CHUNKED || per == 0) return;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const uint64_t b = io->map.pc[i].idx / per;
        bits[b / 64] |= (uint64_t)1 << (b % 64);
    }
    for (int w = 0; w < CD_TOUCH_WORDS; w++) *nbits += popcount64(bits[w]);
}

/* The node map: which nodes touch each of 64 coarse buckets of the chunk grid (chunk idx in bucket idx /
   ceil(nchunks / 64)), 8 bits a bucket, bit node mod 8 (file_nodes' node_idx), OR-reduced with the
   agreement, with each rank's own count of buckets summed beside it (AG_SUM_NODE_TOUCH). It tells
   aggregation's estimate how much of its exchange leaves a node (exchange_off_node): an owner is one of
   its chunk's ranks (choose_owner), so chunks whose ranks share a node (B3 blocks of 64 columns over
   128-column chunks, node-mates side by side) move nothing across the link, where the uniform guess
   (H - 1) / H had aggregation's exchange at 34-47 ms a call over 200 Mbit/s links and its calls ran
   6-7 ms. 64 bytes, every rank and call; zeros on one node (nothing to tell). Local, O(touched chunks). */
static void node_map(const cd_io *io, uint64_t *bits, uint64_t *nb)
{
    const uint64_t per = io->l->nchunks / 64 + (io->l->nchunks % 64 != 0);
    memset(bits, 0, CD_NODE_WORDS * sizeof *bits);
    *nb = 0;
    if (io->f->nodes <= 1 || io->l->storage != STORE_CHUNKED || per == 0) return;
    uint64_t mine = 0;
    const unsigned node = (unsigned)io->f->node_idx % 8u;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const uint64_t b = io->map.pc[i].idx / per;
        mine |= (uint64_t)1 << b;
        bits[b / 8] |= (uint64_t)1 << ((b % 8) * 8 + node);
    }
    *nb = popcount64(mine);
}

/* The share of aggregation's exchange that leaves its node, from the agreed node map: each bucket's ranks
   beyond its first, R - U in all (R the ranks' buckets summed, U the buckets touched), are the pieces
   sent to owners; those on another node than the owner's are about (n - 1) k for a bucket of n nodes,
   k = R / N ranks a node in a bucket (N the nodes summed over buckets). Exact for sharers spread evenly
   (B3 blocks of 16 columns over 4 nodes of 2: 6 of the 7 pieces leave), 0 where every bucket has one
   node, or no bucket two ranks. Coarse: chunks that share a bucket but no rank count as shared; nodes 8
   apart share a bit (more than 8 nodes read as fewer, so the share is a floor). (H - 1) / H, the uniform
   guess, without a map (a multi-dataset call's call-wide vector). Pure: agreed facts. */
static double exchange_off_node(const cd_io *io)
{
    const double H = (double)io->f->nodes;
    if (H <= 1) return 0.0;
    double U = 0, N = 0, cross = 0;
    for (int b = 0; b < 64; b++) {
        const unsigned m = (unsigned)(io->g[AG_NODE_MAP + b / 8] >> ((b % 8) * 8)) & 0xffu;
        if (!m) continue;
        const double n = (double)popcount64(m);
        U += 1;
        N += n;
        cross += n - 1;
    }
    const double R = (double)io->g[AG_SUM_NODE_TOUCH];
    if (U == 0) return (H - 1) / H; /* no map (a multi-dataset call's call-wide vector): the uniform guess */
    if (R <= U) return 0.0;         /* no bucket has two ranks: the exchange moves nothing */
    const double k = R / N > 1 ? R / N : 1.0, x = cross * k / (R - U);
    return x < 1 ? x : 1.0;
}

/* Memory runs this rank would hand MPI's datatype engine under link-chunk: pieces whose rows are long
   enough not to be packed (COLLDIAG_PACK_RUN_BYTES) keep one memory block per row. Local and pure. */
static uint64_t link_mem_runs(const cd_io *io)
{
    uint64_t mr = 0;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const cd_piece *p = &io->map.pc[i];
        if (p->mruns > 1 && io->set.pack_run && p->nelem * io->mes >= (uint64_t)io->set.pack_run * p->mruns) mr += p->mruns;
    }
    return mr;
}

/* The model's estimate of each scheme, term by term (CD_T_*: the collective rounds' latency, moving bytes
   between ranks, collective MPI-IO, independent I/O): est[k] is the sum of term[k][]. The terms let
   AUTO that measures (measure.c) lend what it measured of one scheme to another that shares its terms.
   Pure: agreed facts and settings only. */
static void auto_terms(const cd_io *io, double term[4][CD_T_N], int *agg_ind, double *agg_coll)
{
    const uint64_t *g = io->g;
    const int P = io->f->size;
    const double *k = io->set.k;
    const double R = (double)(g[AG_MAX_RUNS] > g[AG_SUM_RUNS] / (uint64_t)P ? g[AG_MAX_RUNS] : g[AG_SUM_RUNS] / (uint64_t)P);
    const double B = (double)g[AG_MAX_BYTES], C = (double)g[AG_MAX_CHUNKS];
    const unsigned need = ratio_threshold(P, io->set.ratio) + 1; /* ranks that make a chunk collective */
    const double S = (double)g[AG_SUM_CHUNKS] / (double)P;
    const double N = io->set.ratio == 0 ? (C > S ? C : S) /* every touched chunk is collective */
                   : (unsigned)P >= need ? (double)g[AG_SUM_PARTIAL] / (double)need : 0.0;
    /* the exchange's bytes that leave a node: of a node's K B bytes, (H-1)/H go through its link (H
       nodes, agreed), at the link's rate: probed once for the group when it spans nodes (file_probe_link),
       unless COLLDIAG_AUTO_BW_NET_X is set (then the constant is not its default) */
    const double H = (double)io->f->nodes, K = H > 1 ? (double)P / H : 1.0, off = H > 1 ? (H - 1) / H : 0.0;
    const double bwx = io->f->bw_x > 0 && k[CD_K_BW_NET_X] == COLLDIAG_AUTO_BW_NET_X ? io->f->bw_x : k[CD_K_BW_NET_X];
    /* an exchange step: probed once for the group (file_probe_step), unless COLLDIAG_AUTO_LAT_X is set */
    const double latx = io->f->lat_x > 0 && k[CD_K_LAT_X] == COLLDIAG_AUTO_LAT_X ? io->f->lat_x : k[CD_K_LAT_X];
    /* a collective MPI-IO call's latency (LAT: set_view's and two-phase's rounds are such steps) slowed
       by as much as the probed step is over the default's: LAT was measured beside that default (3 ranks,
       2 cores). With 8 ranks on those cores a step probes 25-40x slower, and link-chunk's first B1 write,
       priced at LAT, ran 59 ms against 1.5 ms estimated, where all-independent's ran 2.3 ms as estimated
       (make bench-auto: 2.8-4.1x the best scheme's total, from that one call). Never faster than the
       default: part of LAT is the file system's, which the probe does not see. Only when neither
       constant is set (one that is set rules, as the step's does). */
    const double lat = k[CD_K_LAT] == COLLDIAG_AUTO_LAT && latx > COLLDIAG_AUTO_LAT_X && k[CD_K_LAT_X] == COLLDIAG_AUTO_LAT_X
                     ? k[CD_K_LAT] * (latx / COLLDIAG_AUTO_LAT_X) : k[CD_K_LAT];
    const double slow = run_slow(io); /* a run's low price, raised alike */
    memset(term, 0, 4 * sizeof *term);
    term[0][CD_T_SYNC] = lat;
    /* two-phase I/O's shuffle to the aggregators (about one a node) crosses nodes as aggregation's does;
       within a node it is in BW_IO, measured there */
    term[0][CD_T_NET] = B * off * K / bwx;
    term[0][CD_T_COLL] = run_price(k, R, slow) + (double)g[AG_MAX_MRUNS] * k[CD_K_MRUN] + B / k[CD_K_BW_IO];
    /* counting the ranks of shared chunks (nproc_exchange: the ids to their counters, the answers back,
       and for multi the list of collective chunks; aggregation's ids carry their bytes); nothing when
       the touched-chunk map shows no chunk shared */
    const double sx = io->disjoint ? 0.0 : 1.0;
    term[1][CD_T_SYNC] = N * lat + 3 * sx * latx;
    term[1][CD_T_IND] = (double)g[AG_MAX_MULTI_NS] * 1e-9;
    /* aggregation's exchange: the share that leaves a node from the agreed node map (exchange_off_node) */
    const double xo = exchange_off_node(io);
    term[2][CD_T_SYNC] = lat + (5 + 2 * sx) * latx;
    term[2][CD_T_NET] = R * k[CD_K_COPY] + B * (2 / k[CD_K_BW_COPY] + (1 - xo) / k[CD_K_BW_NET] + xo * K / bwx);
    /* the owners' runs: one collective call, whose two-phase shuffle to the aggregators (about one a node)
       crosses nodes as link-chunk's does, or, across nodes, independent calls (about a run a chunk owned,
       at most the chunks touched) where they are estimated cheaper: the owners hold whole chunks' covered
       bytes, disjoint, and a collective call adds only its shuffle and its latency. Across 200 Mbit/s
       simulated nodes (B3 blocks of 64 columns) aggregation's collective calls ran 134 ms and its
       independent ones 6-7 ms. On one node the collective call, always (SPEC.md's row; on one node the
       independent way is a measured try, measure.c) */
    const double coll = run_price(k, C, slow) + B / k[CD_K_BW_IO], shuffle = B * off * K / bwx;
    const double ind = B / k[CD_K_BW_IND] + C * k[CD_K_IND];
    const int way = H > 1 && ind < coll + shuffle;
    if (agg_coll) *agg_coll = term[2][CD_T_SYNC] + term[2][CD_T_NET] + coll + shuffle;
    if (agg_ind) *agg_ind = way;
    if (way) { /* (LAT kept: the move agreed is a collective step either way, and the estimate errs high) */
        term[2][CD_T_IND] = ind;
    } else {
        term[2][CD_T_NET] += shuffle;
        term[2][CD_T_COLL] = coll;
    }
    term[3][CD_T_IND] = (double)g[AG_MAX_IND_NS] * 1e-9;
}

static int auto_choose(const cd_io *io, double est[4])
{
    double term[4][CD_T_N];
    auto_terms(io, term, &io->x->model_agg_ind, &io->x->model_agg_coll);
    for (int s = 0; s < 4; s++) est[s] = term[s][CD_T_SYNC] + term[s][CD_T_NET] + term[s][CD_T_COLL] + term[s][CD_T_IND];
    memcpy(io->x->model_term, term, sizeof io->x->model_term);
    int best = 0;
    for (int i = 1; i < 4; i++)
        if (est[i] < est[best]) best = i;
    static const int opt[4] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO,
                               COLLDIAG_MPIO_ALL_CHUNK_IND_IO};
    return opt[best];
}

/* Chunked collective execution: the scheme, its per-chunk decisions, and the data. */
/* HDF5's own scheme for this chunked call, as HDF5 decides it from its DXPL and the agreed chunk counts:
   0 link-chunk (1.14's selection I/O included), 1 multi-chunk, -1 not HDF5's to say (a colldiag scheme
   asked). x->h5_opt: the DXPL's own, where colldiag's scheme replaced it (the bridge). */
static int hdf5_scheme_of(const cd_io *io)
{
    const colldiag_xfer *x = io->x;
    const int h = x->h5_opt_set ? x->h5_opt : io->set.chunk_opt;
    const int sel = h == COLLDIAG_MPIO_CHUNK_SELECTION_IO ||
                    (x->h5_opt_set && io->set.rules == COLLDIAG_HDF5_RULES_1_14 && !(io->g[AG_CAUSE] & CD_CAUSE_SEL_OFF_114));
    return sel || h == COLLDIAG_MPIO_CHUNK_ONE_IO ? 0 : h == COLLDIAG_MPIO_CHUNK_MULTI_IO ? 1
         : h == COLLDIAG_MPIO_CHUNK_DEFAULT ? (io->g[AG_SUM_CHUNKS] / (uint64_t)io->f->size >= io->set.num ? 0 : 1) : -1;
}

static void exec_chunked(cd_io *io)
{
    colldiag_xfer *x = io->x;
    cd_map *m = &io->map;
    const int P = io->f->size;
    int opt = io->set.chunk_opt;
    x->auto_est[0] = x->auto_est[1] = x->auto_est[2] = x->auto_est[3] = -1.0;
    /* the model's H: collective, once a file (a plan-only file of the HDF5 bridge lives for one call: its
       model counts one node) */
    if (!io->f->plan_only) {
        file_nodes(io->f);
        file_probes(io->f); /* and the constants it prices with, the first time a file (a contiguous job never pays them) */
    }
    int model_best = auto_choose(io, x->model_est); /* O(1): the report's advice compares every scheme */
    /* HDF5's own scheme for this call (the summary's time saved): its DXPL's, as HDF5 decides it */
    x->hdf5_scheme = hdf5_scheme_of(io);
    x->hdf5_est = x->hdf5_scheme >= 0 ? x->model_est[x->hdf5_scheme] : -1.0;
    if (opt == COLLDIAG_MPIO_CHUNK_AUTO) {
        static const int scheme_opt[4] = {COLLDIAG_MPIO_CHUNK_ONE_IO, COLLDIAG_MPIO_CHUNK_MULTI_IO, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO,
                                          COLLDIAG_MPIO_ALL_CHUNK_IND_IO};
        if (io->set.auto_measure) { /* measure.c */
            double term[4][CD_T_N];
            auto_terms(io, term, NULL, NULL);
            model_best = scheme_opt[meas_choose(io, x->model_est, term)];
            io->agg_indep = x->meas_agg_ind; /* agreed: the group's table decided it (agg_move) */
        } else {
            io->agg_indep = model_best == COLLDIAG_MPIO_CHUNK_AGGREGATE_IO && x->model_agg_ind == 1; /* the model's way (auto_terms) */
        }
        opt = model_best;
        for (int k = 0; k < 4; k++)
            if (scheme_opt[k] == opt) x->auto_s = k;
        memcpy(x->auto_est, x->model_est, sizeof x->auto_est);
        set_reason_auto(io, io->g[AG_SUM_RUNS], io->g[AG_SUM_CHUNKS], P, opt, 0);
    } else if (opt == COLLDIAG_MPIO_CHUNK_SELECTION_IO) {
        set_reason(io, "HDF5 1.14's rules: selection I/O moves every chunk in one collective call (reported as LINK_CHUNK)");
        opt = COLLDIAG_MPIO_CHUNK_ONE_IO;
    } else if (opt == COLLDIAG_MPIO_CHUNK_DEFAULT) {
        uint64_t avg = io->g[AG_SUM_CHUNKS] / (uint64_t)P;
        int link = avg >= io->set.num;
        set_reason(io, "DEFAULT: average %" PRIu64 " chunks/rank (%" PRIu64 " over %d ranks) %s num %u -> %s", avg,
                   io->g[AG_SUM_CHUNKS], P, link ? ">=" : "<", io->set.num, link ? "link-chunk" : "multi-chunk");
        opt = link ? COLLDIAG_MPIO_CHUNK_ONE_IO : COLLDIAG_MPIO_CHUNK_MULTI_IO;
    } else {
        set_reason(io, "%s (%s)", forced_by(io), cd_chunk_opt_env[opt]);
    }
    uint64_t *list = cd_malloc((size_t)(m->n ? m->n : 1) * sizeof *list);
    if (!list) io_fail(io, COLLDIAG_ERR_NOMEM, "listing %" PRIu64 " chunks", m->n);
    const uint64_t n = io->code ? 0 : m->n;
    /* HDF5 1.10 on filtered chunks, for the HDF5 bridge's plans (colldiag moves no filtered data): a
       link-chunk read and every multi-chunk transfer take HDF5's filtered multi-chunk path, which moves
       every chunk collectively (H5Dmpio.c: "Multi-chunk IO must be forced for parallel filtered read") */
    if (io->f->plan_only && io->l->filtered &&
        (opt == COLLDIAG_MPIO_CHUNK_MULTI_IO || (opt == COLLDIAG_MPIO_CHUNK_ONE_IO && io->f->plan_read && io->set.rules != COLLDIAG_HDF5_RULES_1_14))) {
        /* (HDF5 1.14 reads filtered chunks by link-chunk when asked to: only multi-chunk is forced there) */
        char was[sizeof x->reason];
        snprintf(was, sizeof was, "%s", xfer_reason(x));
        set_reason(io, "%s; filtered chunks: HDF5's filtered multi-chunk path, every chunk collective", was);
        /* each chunk's ranks (nproc): a read's chunks are read and inflated by every rank that selects
           from them (colldiag_get_filtered_read counts those other ranks inflate too). Collective, on
           agreed facts: every rank of the plan is here */
        if (io->f->plan_read) nproc_exchange(io, 1, 1, 0, 0, NULL, NULL, NULL);
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= PF_COLL;
        x->chunk_opt_done = COLLDIAG_MPIO_MULTI_CHUNK;
        x->io_mode_done = COLLDIAG_MPIO_CHUNK_COLLECTIVE;
        cd_free(list);
        return;
    }
    switch (opt) {
    case COLLDIAG_MPIO_CHUNK_ONE_IO:
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= PF_COLL;
        coll_call(io, NULL, n);
        if (io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(io);
        x->chunk_opt_done = COLLDIAG_MPIO_LINK_CHUNK;
        x->io_mode_done = COLLDIAG_MPIO_CHUNK_COLLECTIVE; /* every rank, even one with nothing: as HDF5 */
        break;
    case COLLDIAG_MPIO_CHUNK_MULTI_IO:
    case COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO: {
        int multi = opt == COLLDIAG_MPIO_CHUNK_MULTI_IO;
        unsigned thr = ratio_threshold(P, io->set.ratio);
        x->thr = thr;
        x->ratio0 = io->set.ratio == 0;
        uint64_t *gl = NULL, gn = 0;
        int want = multi && io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO;
        nproc_exchange(io, thr, io->set.ratio == 0, want, 0, NULL, &gl, &gn);
        for (uint64_t i = 0; i < n; i++)
            m->pc[i].flags |= (io->set.ratio == 0 || (unsigned)m->pc[i].nproc > thr) ? PF_COLL : PF_IND;
        if (multi) {
            if (want) {
                /* one collective call per collective chunk anybody touched, ascending index */
                uint64_t j = 0;
                for (uint64_t g = 0; g < gn; g++) {
                    while (j < n && m->pc[j].idx < gl[g]) j++;
                    int mine = j < n && m->pc[j].idx == gl[g] && !io->code;
                    coll_call_piece(io, mine ? &j : NULL, mine ? 1 : 0);
                }
                if (gn) view_reset(io);
            } else {
                uint64_t k = list ? pick_pieces(io, 1, list) : 0;
                for (uint64_t i = 0; i < k; i++) coll_call_piece(io, &list[i], 1);
            }
        } else {
            uint64_t k = list && !io->code ? pick_pieces(io, 1, list) : 0;
            coll_call(io, list, k);
            if (io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(io);
        }
        cd_free(gl);
        if (list && !io->code) ind_pieces(io, list, pick_pieces(io, 0, list), 0);
        x->chunk_opt_done = multi ? COLLDIAG_MPIO_MULTI_CHUNK : COLLDIAG_MPIO_COLL_CHUNK_ATONCE;
        x->io_mode_done = piece_io_mode(m);
        break;
    }
    case COLLDIAG_MPIO_ALL_CHUNK_IND_IO:
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= PF_IND;
        ind_pieces(io, NULL, n, 1);
        x->chunk_opt_done = COLLDIAG_MPIO_ALL_CHUNK_IND;
        x->io_mode_done = piece_io_mode(m);
        break;
    case COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT: {
        uint64_t rounds = io->g[AG_MIN_CHUNKS];
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= i < rounds ? PF_COLL : PF_IND;
        for (uint64_t r = 0; r < rounds; r++) {
            uint64_t j = r;
            coll_call_piece(io, io->code ? NULL : &j, io->code ? 0 : 1);
        }
        if (rounds && io->dir != DIR_PLAN && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(io);
        if (list && !io->code) ind_pieces(io, list, pick_pieces(io, 0, list), 0);
        set_reason(io, "%s (multi_no_opt): %" PRIu64 " collective rounds = fewest chunks on any rank", forced_by(io), rounds);
        x->chunk_opt_done = COLLDIAG_MPIO_MULTI_CHUNK_NO_OPT;
        x->io_mode_done = piece_io_mode(m);
        break;
    }
    case COLLDIAG_MPIO_CHUNK_AGGREGATE_IO: {
        /* owners come from the same exchange that counts ranks per chunk, so nproc is exact too; the
           records each piece will send are counted first, so that owners learn their incoming records
           with their incoming bytes */
        uint64_t *words = io->dir != DIR_PLAN && !io->code ? agg_count_words(io) : NULL;
        nproc_exchange(io, 1, 1, 0, io->dir != DIR_PLAN, words, NULL, NULL);
        for (uint64_t i = 0; i < n; i++) m->pc[i].flags |= PF_COLL;
        if (io->dir != DIR_PLAN) exec_aggregate(io, words);
        cd_free(words);
        x->chunk_opt_done = COLLDIAG_MPIO_CHUNK_AGGREGATE;
        x->io_mode_done = COLLDIAG_MPIO_CHUNK_COLLECTIVE; /* every rank joins the exchange and the call */
        break;
    }
    default:
        io_fail(io, COLLDIAG_ERR_UNSUPPORTED, "chunk optimization %s is not implemented in this version", cd_chunk_opt_env[opt]);
        break;
    }
    cd_free(list);
}

/* --- results --- */

static int fill_chunk_info(cd_io *io)
{
    colldiag_xfer *x = io->x;
    const colldiag_layout *l = io->l;
    x->nchunks = 0;
    x->chunks_ready = 0;
    if (l && l->storage == STORE_CHUNKED) {
        x->grid_rank = l->rank;
        memcpy(x->grid, l->grid, (size_t)l->rank * sizeof *l->grid);
    }
    if (!l || l->storage != STORE_CHUNKED || io->map.n == 0) return 0;
    x->nchunks = io->map.n;
    io->keep_pieces = 1; /* finish() hands the piece array to the xfer */
    return 0;
}

/* The public chunk info of the first upto chunks, built from the kept pieces on first request: a call
   touching a million chunks does not pay 300 bytes a chunk unless somebody looks. */
static const colldiag_chunk_info *chunks_view(const colldiag_xfer *cx, uint64_t upto)
{
    colldiag_xfer *x = (colldiag_xfer *)cx; /* a cache: the results do not change */
    if (upto > x->nchunks) upto = x->nchunks;
    if (upto <= x->chunks_ready) return x->chunks;
    if (cd_grow((void **)&x->chunks, &x->chunks_cap, upto, sizeof *x->chunks)) return NULL;
    const cd_piece *pc = x->pcs;
    for (uint64_t i = x->chunks_ready; i < upto; i++) {
        const cd_piece *p = &pc[i];
        colldiag_chunk_info *c = &x->chunks[i];
        memset(c, 0, sizeof *c);
        c->index = p->idx;
        uint64_t idx = p->idx;
        for (int d = x->grid_rank - 1; d >= 0; d--) { c->coords[d] = idx % x->grid[d]; idx /= x->grid[d]; }
        c->addr = p->addr;
        c->nelem = p->nelem;
        c->nproc = p->nproc;
        c->collective = (p->flags & PF_COLL) != 0;
        c->owner = x->chunk_opt_done == COLLDIAG_MPIO_CHUNK_AGGREGATE ? p->owner : -1;
        c->dataset = (int)p->ds;
        if (x->nds) { /* a multi-dataset call: the piece's own dataset's grid and scheme */
            const cd_dsres *r = &x->dsr[p->ds];
            idx = p->idx;
            for (int d = r->grid_rank - 1; d >= 0; d--) { c->coords[d] = idx % r->grid[d]; idx /= r->grid[d]; }
            c->owner = r->chunk_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE ? p->owner : -1;
        }
    }
    x->chunks_ready = upto;
    return x->chunks;
}

/* A plan's direction (the HDF5 bridge's plan files: plan_read), folded into the settings digest, so
   that ranks planning one collective call as a read on some and a write on others fail its agreement
   everywhere, naming them: the plan of a filtered read exchanges chunk counts that a write's does not. */
static uint64_t plan_dir_digest(const colldiag_file *f, int dir) { return dir == DIR_PLAN && f->plan_read ? 0xd1b54a32d192ed03ull : 0; }

/* The agreement vector of a rank that contributes nothing but its causes and its failure (if any): the
   identity of every other entry (0 for OR, SUM and MAX, UINT64_MAX for MIN), so the reduction gives what
   the other ranks alone would. A rank whose checks failed sends it to the first reduction (it must not
   map, digest or measure arguments it has just rejected); every rank sends it to the closing one. */
static void agree_neutral(const cd_io *io, uint32_t cause, uint64_t v[AG_N])
{
    memset(v, 0, AG_N * sizeof *v);
    v[AG_CAUSE] = cause;
    /* a bridge rank that only waits for the chunk index has not failed: the first failure named to the
       others must be a real one */
    v[AG_FAIL] = io->code && io->prefail != 2 ? (uint64_t)io->f->rank * 16u + (uint64_t)(-io->code) : UINT64_MAX;
    v[AG_MIN_CHUNKS] = v[AG_RISK_LO] = UINT64_MAX;
    if (io->code)
        v[AG_BRIDGE] = io->prefail == 2 ? 1 | (io->x->pre_defers < 15 ? io->x->pre_defers : 15) << 4 | (uint64_t)(io->x->pre_flush_writes & 3) << 8 : 2;
    if (io->code && io->prefail == 2) v[AG_MAX_BYTES] = io->x->pre_bytes;
    meas_local(io, v); /* the group's pending measurement: a rank that failed has it too */
}

/* COLLDIAG_REPORT's kind: 0 none (unset, "" or "0"), 1 text, 2 json:PATH, 3 html:PATH. */
static int report_kind_of(const char *e)
{
    if (!e || !*e || !strcmp(e, "0") || !strncmp(e, "summary", 7)) return 0; /* the summary is written at the end (summary.c) */
    return !strncmp(e, "json:", 5) ? 2 : !strncmp(e, "html:", 5) ? 3 : 1;
}

/* The variables rank 0 decides for every rank, in the order of their 21-bit fields in AG_ENV. */
static const char *const cd_rank0_env[3] = {"COLLDIAG_REPORT", "COLLDIAG_H5_FETCH_BYTES", "COLLDIAG_H5_FETCH_CALLS"};
#define CD_ENV_FIELD ((UINT64_C(1) << 21) - 1)

/* The environment's part of the first reduction, on every rank (failed or not): rank 0 sends what it
   decides for all (the report's kind: every rank then takes part in gathering it; the HDF5 bridge's
   fetch thresholds: every rank then reads the chunk index, or none), every rank a digest of its own
   values, so that rank 0 can say that they differ. Differing is not an error: the variables change
   what is reported and when an index is read, never which bytes move where. */
static void agree_env(const cd_io *io, uint64_t v[AG_N])
{
    const colldiag_xfer *x = io->x;
    const char *rep = cd_getenv("COLLDIAG_REPORT");
    const int kind = report_kind_of(rep);
    v[AG_RANK0] = v[AG_RANK0_BYTES] = v[AG_ENV] = v[AG_ENV_NOT] = 0;
    v[AG_STACK] = (uint64_t)risk_read_stack(); /* the process's own fact: agreed by the reduction (read_guard) */
    if (io->f->rank == 0) {
        v[AG_RANK0] = (uint64_t)kind | (x->env_fetch_calls < 255 ? x->env_fetch_calls : 255) << 2;
        v[AG_RANK0_BYTES] = x->env_fetch_bytes;
    }
    uint64_t h[3] = {0x7265706fu, cd_mix64(x->env_fetch_bytes), cd_mix64(x->env_fetch_calls + 1)};
    for (const char *c = kind ? rep : ""; *c; c++) h[0] = cd_hash_u64(h[0], (unsigned char)*c);
    for (int i = 0; i < 3; i++) {
        v[AG_ENV] |= (h[i] & CD_ENV_FIELD) << (21 * i);
        v[AG_ENV_NOT] |= (~h[i] & CD_ENV_FIELD) << (21 * i);
    }
}

/* After the first reduction: rank 0's values into x, and rank 0 says once per process which of them
   differed somewhere (a rank's own value is simply not used). */
static void agreed_env(cd_io *io)
{
    static int told[3];
    colldiag_xfer *x = io->x;
    io->f->reads_lose = (int)(io->g[AG_STACK] & 1);
    x->report_kind = (int)(io->g[AG_RANK0] & 3);
    x->fetch_calls = io->g[AG_RANK0] >> 2 & 255;
    x->fetch_bytes = io->g[AG_RANK0_BYTES];
    const uint64_t d = io->g[AG_ENV] & io->g[AG_ENV_NOT];
    for (int i = 0; i < 3 && io->f->rank == 0; i++)
        if (d >> (21 * i) & CD_ENV_FIELD && !told[i]) {
            told[i] = 1;
            fprintf(stderr, "colldiag: %s differs between the ranks of a collective call; rank 0's value is every rank's "
                            "(give every rank the same environment: Open MPI's mpirun -x %s, MPICH's -genv %s VALUE)\n",
                    cd_rank0_env[i], cd_rank0_env[i], cd_rank0_env[i]);
        }
}

/* After the data moved: one reduction so that a failure anywhere fails the call everywhere. Its time
   counts as data movement (t_io), not deciding: it is mostly this rank waiting for the slowest rank's
   data (B4 all-independent: 20-45 ms of a 150 ms call, against 4 ms of actual deciding). */
static int agree_end(cd_io *io)
{
    uint64_t v[AG_N], g[AG_N];
    agree_neutral(io, 0, v);
    const double t0 = cd_now();
    int rc = MPI_Allreduce(v, g, AG_N, MPI_UINT64_T, io->f->op, io->f->comm);
    io->x->cnt.t_io += cd_now() - t0;
    if (rc != MPI_SUCCESS) return cd_mpi_err(io, rc, "MPI_Allreduce (error agreement)");
    if (g[AG_FAIL] == UINT64_MAX) return 0;
    if (!io->code)
        io_fail(io, COLLDIAG_ERR_PEER, "rank %" PRIu64 " failed in this collective call (%s); see its message",
                g[AG_FAIL] / 16u, colldiag_strerror(-(int)(g[AG_FAIL] % 16u)));
    if (io->dir == DIR_WRITE) {
        /* what may be in the file: the bytes this rank handed to MPI-IO (or pwrite) before the failure */
        uint64_t sel = 0, done = io->x->cnt.bytes_collective + io->x->cnt.bytes_independent;
        for (uint64_t i = 0; i < io->map.n; i++) sel += io->map.pc[i].nelem * io->fes;
        size_t l = strlen(io->msg);
        snprintf(io->msg + l, CD_MSG_CAP - l, "; this rank handed %" PRIu64 " of its %" PRIu64
                 " selected bytes to the file before the call failed (those may be written; nothing outside the selection was)", done, sel);
    }
    return io->code;
}

/* Names the ranks that disagree with rank 0 about the layout or settings (error path only: O(P)). */
/* Collective writes into storage past the end of the file. MPI-IO's collective writes fill the holes
   between a call's pieces by read-modify-write; past the end of the file that read returns nothing and
   both Open MPI 4.1's ompio (write data sieving) and ROMIO (two-phase) then write whatever their buffer
   held into the holes (tests/mpi_valgrind_baseline.c --gap, tests/test_memory.c on ROMIO: edge chunks'
   padding came back 0xff), where a fresh file must read zeros. So a collective write first extends the
   file to the end of the storage it touches: the holes then read as zeros and stay zeros. The extent is
   agreed in the first reduction (no extra communication); the file grows only, never shrinks, and only
   when every rank sees it shorter. Costs one lseek per rank and call, and an ftruncate when it grows. */
/* The HDF5 bridge refuses a read that reaches storage past the end of the file (never written since
   the file grew in HDF5's accounting only): HDF5 returns zeros there, MPI-IO returns nothing and leaves
   the buffer as it was. end and fsize are write_extent's, agreed in a collective call. */
static int read_past_eof(cd_io *io, uint64_t end, uint64_t fsize)
{
    if (io->dir != DIR_READ || !io->x->strict_alloc || end <= fsize) return 0;
    io_fail(io, COLLDIAG_ERR_UNSUPPORTED, "the read reaches storage past the end of the file (byte %" PRIu64 " of a %" PRIu64
            "-byte file), where HDF5 returns zeros", end, fsize);
    return 1;
}

/* Under the HDF5 preload (x->accel) and HDF5 1.10's rules, a collective read of filtered chunks this
   rank would read through colldiag touches a chunk never written or stored with a filter skipped:
   HDF5 1.10.8's own collective filtered read fails there ("addr overflow" on an unallocated chunk) or
   runs every filter whatever the chunk's mask says (a crash in its Fletcher-32 check, tests/
   test_h5_records.c), where colldiag would read the right values. The preload changes no return value:
   HDF5 runs such a call (the bridge's own callers get colldiag's read). Local and pure; its bit
   (CD_CAUSE_FILT_H5_FAILS) is agreed. */
static int filt_hdf5_fails(const cd_io *io)
{
    if (!io->x->accel || io->set.rules == COLLDIAG_HDF5_RULES_1_14 || io->dir != DIR_READ || !io->l || !io->l->unfilter) return 0;
    for (uint64_t i = 0; i < io->map.n; i++)
        if (io->map.pc[i].nelem && ((io->map.pc[i].flags & PF_UNALLOC) || io->map.pc[i].fmask)) return 1;
    return 0;
}

/* The HDF5 preload's collective contiguous reads (x->read_stretch_bytes, COLLDIAG_ACCEL_STRETCH_BYTES'
   rationale): each runs as one independent read a rank, or is left to HDF5. Pure. */
static int stretch_reads(const cd_io *io)
{
    return io->x->read_stretch_bytes && io->dir == DIR_READ && io->l && io->l->storage == STORE_CONTIG &&
           io->set.mode == COLLDIAG_MPIO_COLLECTIVE && io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO;
}

static void write_extent(const cd_io *io, uint64_t *end, uint64_t *fsize)
{
    *end = *fsize = 0;
    /* the HDF5 bridge's reads too: past the end of the file HDF5 returns zeros, MPI-IO nothing (read_past_eof) */
    const int bridge_read = io->dir == DIR_READ && io->x->strict_alloc && io->f->driver == COLLDIAG_DRIVER_MPIO;
    /* the preload's contiguous read needs no size: it runs as independent reads, which fill what lies
       past the end of the file with zeros as HDF5 does (io_raw), or HDF5 runs it (read_too_short) */
    if (bridge_read && stretch_reads(io)) return;
    if (!bridge_read && (io->dir != DIR_WRITE || io->set.mode != COLLDIAG_MPIO_COLLECTIVE || io->f->driver != COLLDIAG_DRIVER_MPIO ||
                         io->set.coll_opt != COLLDIAG_MPIO_COLLECTIVE_IO))
        return;
    const uint64_t span = io->l->storage == STORE_CHUNKED ? io->l->chunk_bytes : io->l->nelem * io->fes;
    for (uint64_t i = 0; i < io->map.n; i++) {
        const cd_piece *p = &io->map.pc[i];
        const uint64_t sp = io->l->unfilter && p->stored ? p->stored : span; /* a filtered chunk: its stored bytes */
        if (p->addr >= 0 && p->nelem && (uint64_t)p->addr + sp > *end) *end = (uint64_t)p->addr + sp;
    }
    /* A file does not shrink while colldiag writes or reads it (MPI-IO writes only extend it; HDF5's
       MPI-IO driver only ever extends its file, to its end of allocation, which covers every allocated
       chunk): chunks within a size once seen need no MPI_File_get_size, a system call in every small
       call otherwise. A file truncated behind colldiag's back costs only the protection: the write
       extends it anyway. */
    if (*end && *end <= io->f->size_seen) {
        *fsize = io->f->size_seen;
        *end = 0;
        return;
    }
    MPI_Offset sz = 0;
    if (*end && MPI_File_get_size(io->f->fh, &sz) == MPI_SUCCESS && sz > 0) *fsize = (uint64_t)sz;
    if (*fsize > io->f->size_seen) io->f->size_seen = *fsize;
    if (*end && *fsize >= *end) *end = 0; /* nothing to grow on this rank */
}

/* 1 when the HDF5 preload leaves this write to HDF5 (x->hdf5_as_fast_bytes, COLLDIAG_ACCEL_WHOLE_BYTES'
   rationale): no global cause, chunked and unfiltered storage, no chunk two ranks touch (the coarse
   touch map is a sufficient test), no piece that covers only part of its chunk, the busiest rank
   moves at least the threshold, and, under HDF5 1.10's rules, the call leaves some of the dataset's
   chunks to other calls (one call that writes the whole dataset, as VPIC-IO's per variable, stays
   colldiag's there; under 1.14's, HDF5 writes it too in one collective call through selection I/O).
   Agreed values only: every rank decides alike. Pure. */
static int hdf5_as_fast(const cd_io *io, uint32_t global)
{
    const uint64_t min = io->x->hdf5_as_fast_bytes;
    return min && io->dir == DIR_WRITE && !global && io->l && io->l->storage == STORE_CHUNKED && !io->l->filtered && io->disjoint &&
           io->g[AG_SUM_PARTIAL] == 0 && io->g[AG_MAX_BYTES] >= min &&
           (io->g[AG_SUM_CHUNKS] < io->l->nchunks || io->set.rules == COLLDIAG_HDF5_RULES_1_14);
}

/* 1 when this rank's part of such a read is not one stretch of the file of at least that many bytes
   (a rank that reads nothing has none too short). Local and pure: its bit (CD_CAUSE_SHORT_READ) is
   agreed with the causes. */
static int read_too_short(const cd_io *io)
{
    const uint64_t n = colldiag_sel_npoints(io->fs);
    uint64_t first;
    return stretch_reads(io) && n && (!sel_stretch(io->fs, &first) || n * io->fes < io->x->read_stretch_bytes);
}

/* 1 when the preload's contiguous read runs as one independent read a rank: every rank reads one long
   stretch of its own, or nothing (agreed values only: every rank decides alike). Pure. */
static int reads_by_stretch(const cd_io *io)
{
    return stretch_reads(io) && !(io->g[AG_CAUSE] & CD_CAUSE_SHORT_READ);
}

/* ... and 1 when some rank's part is not: HDF5's path, one collective call, is then left to run it. */
static int hdf5_reads_it(const cd_io *io)
{
    return stretch_reads(io) && (io->g[AG_CAUSE] & CD_CAUSE_SHORT_READ);
}

/* The preload's engine rule for a collective call, on the agreed facts (engine.c): the bytes at risk
   (risk_agreed), the shape of every rank's part, the file's communicator. Pure. */
static int accel_rule(const cd_io *io, uint32_t global)
{
    const colldiag_xfer *x = io->x;
    cd_engine_facts ef;
    ef.all = x->accel == 2;
    ef.cannot = 0; /* the bridge refused what colldiag cannot move before the agreement */
    ef.risk = x->risk_bytes > 0;
    ef.can_make_safe = 0; /* known: nothing to make safe without cause */
    ef.contig_write = io->dir == DIR_WRITE && io->l && io->l->storage == STORE_CONTIG;
    ef.ind_contig_read = 0; /* a collective call */
    ef.one_rank = io->f->size == 1;
    ef.whole_chunks = hdf5_as_fast(io, global);
    ef.many_stretches = hdf5_reads_it(io);
    return engine_rule(&ef);
}

/* After a collective write's agreement: the size the file is known to have, alike on every rank (the
   largest any rank saw, or what extend_file made it), which only grows while the file is open. The
   HDF5 preload leaves a contiguous write to HDF5 without an agreement once its storage lies within it
   (nothing can lie past the end of the file then: no byte is at risk). */
static void file_covered(cd_io *io, uint32_t global)
{
    colldiag_file *f = io->f;
    uint64_t c = io->g[AG_MAX_FSIZE] > io->g[AG_RISK_FSIZE] ? io->g[AG_MAX_FSIZE] : io->g[AG_RISK_FSIZE];
    if (!global && io->dir == DIR_WRITE && io->g[AG_MAX_END] > c) c = io->g[AG_MAX_END];
    if (c > f->covered_to) f->covered_to = c;
}

/* Collective; called on agreed values only (every rank or none). A protection, not the operation: if
   the file cannot grow (a size limit, a chunk address beyond it), the call goes on and the data calls
   themselves report what fails, on the rank it fails on. */
static void extend_file(cd_io *io, uint64_t end)
{
    MPI_File_set_size(io->f->fh, (MPI_Offset)end);
}

static void report_disagreement(cd_io *io, uint64_t ld, uint64_t sd)
{
    const int P = io->f->size;
    uint64_t mine[2] = {ld, sd}, *all = cd_malloc((size_t)P * 2 * sizeof(uint64_t));
    uint64_t dummy[2];
    MPI_Allgather(mine, 2, MPI_UINT64_T, all ? all : dummy, all ? 2 : 0, MPI_UINT64_T, io->f->comm);
    char who[200] = "";
    int w = 0, what = 0, nd = 0;
    for (int r = 1; all && r < P; r++) {
        int dl = all[2 * r] != all[0], ds = all[2 * r + 1] != all[1];
        if (!dl && !ds) continue;
        what |= (dl ? 1 : 0) | (ds ? 2 : 0);
        if (nd++ < 8 && w < 150) w += snprintf(who + w, sizeof who - (size_t)w, "%s%d", w ? ", " : "", r);
    }
    cd_free(all);
    io_fail(io, COLLDIAG_ERR_ARG, "ranks disagree on the %s of this collective call: rank%s %s%s differ%s from rank 0",
            what == 3 ? "layout and the transfer settings"
            : what == 2 ? "transfer settings (chunk opt, num, ratio, collective opt, collective buffer; a plan's direction)"
                                                              : "layout (dims, chunk dims, element size, storage, addresses)",
            nd > 1 ? "s" : "", who, nd > 8 ? ", ..." : "", nd > 1 ? "" : "s");
}

static void xfer_reset(colldiag_xfer *x)
{
    x->filt_known = 0;
    x->filt_chunks = x->filt_stored = x->filt_raw = x->filt_shared = 0;
    x->filt_decoded = x->filt_decoded_stored = x->filt_decoded_raw = x->filt_decoded_readers = 0;
    x->filt_decode_s = 0;
    x->filt_read = 0;
    x->pf_bytes = 0;
    x->grid_rank = 0;
    x->thr = 0;
    x->ratio0 = 0;
    x->auto_est[0] = x->auto_est[1] = x->auto_est[2] = x->auto_est[3] = -1.0;
    x->meas_kind = 0;
    x->meas_agg_ind = 0;
    x->auto_s = -1;
    x->model_est[0] = x->model_est[1] = x->model_est[2] = x->model_est[3] = -1.0;
    for (int s = 0; s < 4; s++)
        for (int j = 0; j < 4; j++) x->model_term[s][j] = -1.0;
    x->model_agg_ind = -1;
    x->model_agg_coll = -1.0;
    x->planned = 0;
    x->chunk_opt_done = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
    x->io_mode_done = COLLDIAG_MPIO_NO_COLLECTIVE;
    x->local_cause = x->global_cause = 0;
    x->nchunks = 0;
    x->chunks_ready = 0;
    x->data_buf_bytes = 0;
    memset(&x->cnt, 0, sizeof x->cnt);
    x->reason[0] = 0;
    x->rz_auto = 0;
    x->errmsg[0] = 0;
    x->nds = 0;
    x->peer_code = 0;
    x->report_kind = 0;
    x->fetch_bytes = x->fetch_calls = 0;
    x->risk_bytes = x->risk_ranks = 0;
    x->risk_kinds = 0;
    x->off_node_bytes = 0;
    x->nodes_known = 0;
    x->risk_why[0] = x->risk_adv[0] = 0;
    x->engine_rule = CD_RULE_N;
    x->eng_kind = 0;
    x->reads_solo = 0;
    x->hdf5_scheme = -1;
    x->hdf5_est = -1.0;
}

static uint32_t local_causes(const cd_io *io)
{
    uint32_t c = 0;
    if (io->set.mode == COLLDIAG_MPIO_INDEPENDENT) c |= COLLDIAG_MPIO_SET_INDEPENDENT;
    if (io->x->conv) c |= COLLDIAG_MPIO_DATATYPE_CONVERSION;
    if (io->x->xform) c |= COLLDIAG_MPIO_DATA_TRANSFORMS;
    if (io->set.opt_types_disabled) c |= COLLDIAG_MPIO_MPI_OPT_TYPES_ENV_VAR_DISABLED;
    if ((io->fs && io->fs->space == SPACE_NULL) || (io->ms && io->ms->space == SPACE_NULL))
        c |= COLLDIAG_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES;
    if (io->l && io->l->storage == STORE_COMPACT) c |= COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET;
    if (io->l && io->l->filtered && io->dir == DIR_WRITE) c |= COLLDIAG_MPIO_FILTERS;
    if (io->f->driver == COLLDIAG_DRIVER_POSIX) c |= COLLDIAG_MPIO_SET_MPIPOSIX;
    return c;
}

/* ---- HDF5 1.14's rules (colldiag_set_hdf5_rules; HDF5 1.14.5's H5Dio.c, H5Dmpio.c, H5Dchunk.c,
   H5Dcontig.c) ----
   A collective call on the MPI-IO driver goes through selection I/O (the driver's vector call, one
   collective MPI-IO call for every piece) unless something turns it off on this rank, each with its
   H5D_SEL_IO_* bit (what H5Pget_no_selection_io_cause reports):
   - the DXPL says OFF (H5Pset_selection_io): DISABLE_BY_API;
   - a filtered dataset: DATASET_FILTER;
   - a chunked dataset in a file not open for writing whose chunk fits the chunk cache (1 MiB unless
     the dataset access says otherwise): CHUNK_CACHE (HDF5 caches such chunks, and selection I/O would
     bypass its cache);
   - a type conversion whose buffer for the whole call would exceed the conversion buffer
     (H5Pset_buffer, 1 MiB): TCONV_BUF_TOO_SMALL. The buffer holds every piece's elements at the larger
     of the two element sizes, except pieces converted in place (reads only, memory elements at least
     as large as the file's, the piece's memory one contiguous block). colldiag counts a piece in place
     only when it is the rank's one piece and memory is its whole extent: the difference matters only
     for reads over 1 MiB a rank with conversion, and errs toward HDF5's independent path.
   With selection I/O on, type conversion and data transforms are no cause; with it off, a call kept
   independent by them alone also raises NO_SELECTION_IO (0x100). A collective call with no global cause
   then moves every piece in one collective call, which HDF5 reports as LINK_CHUNK with CHUNK_COLLECTIVE
   (CONTIGUOUS_COLLECTIVE for a contiguous dataset) on every rank, whatever the chunk optimisation
   asks. Decided on this rank's own facts; the global cause agrees them (a rank that converts without
   selection I/O makes every rank independent, as in HDF5). */
static uint32_t sel_io_causes(const cd_io *io)
{
    uint32_t c = 0;
    if (io->set.sel_io == COLLDIAG_SELECTION_IO_OFF) c |= COLLDIAG_SEL_IO_DISABLE_BY_API;
    if (!io->l) return c;
    if (io->l->storage == STORE_COMPACT) c |= COLLDIAG_SEL_IO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET;
    if (io->l->filtered) c |= COLLDIAG_SEL_IO_DATASET_FILTER;
    const uint64_t cache = io->x->chunk_cache < 0 ? (uint64_t)1 << 20 : (uint64_t)io->x->chunk_cache;
    if (io->l->storage == STORE_CHUNKED && io->f->read_only && io->l->chunk_bytes <= cache) c |= COLLDIAG_SEL_IO_CHUNK_CACHE;
    if (io->x->conv && !c) {
        const uint64_t big = io->mes > io->fes ? io->mes : io->fes;
        const int in_place = io->dir != DIR_WRITE && io->mes >= io->fes && io->map.n <= 1 && io->ms && io->ms->type == SEL_ALL;
        uint64_t bytes = 0;
        for (uint64_t i = 0; !in_place && i < io->map.n; i++) bytes += io->map.pc[i].nelem * big;
        if (io->l->storage != STORE_CHUNKED && !in_place && io->fs) bytes = colldiag_sel_npoints(io->fs) * big;
        if (bytes > io->x->bufsize) c |= COLLDIAG_SEL_IO_TCONV_BUF_TOO_SMALL;
    }
    return c;
}

/* This rank's causes under 1.14's rules, from 1.10's (local_causes) and its selection I/O (*sel_on). */
static uint32_t causes_114(const cd_io *io, uint32_t cause, int *sel_on)
{
    const uint32_t conv_xform = COLLDIAG_MPIO_DATATYPE_CONVERSION | COLLDIAG_MPIO_DATA_TRANSFORMS;
    io->x->sel_io_cause = sel_io_causes(io);
    *sel_on = io->x->sel_io_cause == 0;
    if (*sel_on) return cause & ~conv_xform;
    if (cause && !(cause & ~conv_xform)) cause |= COLLDIAG_MPIO_NO_SELECTION_IO;
    return cause;
}

static int view_is_default(const colldiag_file *f)
{
    if (f->driver != COLLDIAG_DRIVER_MPIO || f->plan_only) return 1;
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    if (MPI_File_get_view(f->fh, &disp, &et, &ft, rep) != MPI_SUCCESS) return 0;
    int ok = disp == 0 && et == MPI_BYTE && ft == MPI_BYTE && !strcmp(rep, "native");
    int ni, na, nt, comb;
    /* get_view hands out copies of derived types: free them */
    if (MPI_Type_get_envelope(ft, &ni, &na, &nt, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED) MPI_Type_free(&ft);
    if (MPI_Type_get_envelope(et, &ni, &na, &nt, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED) MPI_Type_free(&et);
    return ok;
}

static int finish(cd_io *io, int rc)
{
    if (rc && io->x) {
        snprintf(io->x->errmsg, sizeof io->x->errmsg, "%s", io->msg[0] ? io->msg : cd_errbuf);
        if (io->msg[0]) snprintf(cd_errbuf, sizeof cd_errbuf, "%s", io->msg);
    }
    if (rc && io->x) { /* modes are reported only when the I/O succeeded */
        io->x->chunk_opt_done = COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION;
        io->x->io_mode_done = COLLDIAG_MPIO_NO_COLLECTIVE;
    }
    if (io->keep_pieces) { /* the pieces become the xfer's chunk info, materialised when asked for */
        void *old = io->x->pcs;
        uint64_t oldcap = io->x->pcs_cap;
        io->x->pcs = io->map.pc;
        io->x->pcs_cap = io->map.cap;
        io->map.pc = old;
        io->map.cap = oldcap;
    }
    map_free(&io->map);
    cd_free(io->order);
    return rc;
}

/* ---- bytes at risk of HDF5's own path (colldiag_get_bytes_at_risk) ----
   What HDF5 + MPI-IO would leave in the file other than what the program wrote, predicted from the plan
   before anything moves. tests/h5_defects.c shows each class with HDF5 alone, on every stack CI runs
   (HDF5 1.10.8 and 1.14.5; ompio, ROMIO, MPICH), and docs/hdf5.md has the table:
   - holes: HDF5's path is one collective MPI-IO write (a collective call with no cause; under 1.14's
     selection I/O, converting calls too) whose extent reaches past the end of the file, into storage
     whose fill value HDF5 did not write at allocation. MPI-IO fills the gaps between the pieces by
     read-modify-write (ROMIO's two phases, ompio's aggregators), past the end of the file that read
     returns nothing, and the gaps get whatever its buffer held. At risk: the gaps past the end between
     the call's first and last selected byte. An upper bound: with several aggregators a gap between
     their file domains is not written at all, and multi-chunk calls that go independent chunk by chunk
     are counted as collective ones; bytes written by two ranks count twice, which can only lower the
     count (their order is undefined anyway).
   - the same for a collective call with H5FD_MPIO_INDIVIDUAL_IO, which HDF5 moves with independent
     MPI-IO writes of the collective call's derived types, where the MPI-IO layer sieves them (ROMIO's
     data sieving: each rank reads, patches and writes back the stretch from its first to its last
     byte; ompio does not): each rank's own gaps past the end (fuzz_h5 found it under ROMIO, seed 7 case
     33; h5_defects' holes-individual-io). Independent calls, and collective ones with a cause, HDF5
     writes run by run, with nothing to sieve.
   - compact: the data lives in the object header, of which every rank changes its own copy, and HDF5
     writes one rank's copy (which one follows its metadata cache's distribution: rank 2 of 3, 4 of 8
     here): every byte written is at risk unless every rank writes the same selection with the same
     bytes. An independent call cannot know what the others write: on a file of more than one rank,
     every byte it writes is at risk.
   Local facts go into the first reduction (AG_RISK_*); the count is made from the agreed values, alike
   on every rank. Work: nothing unless the storage's fill is unwritten and the call reaches past the
   size the file was last seen to have (one size query, then one walk of the pieces that lie past it),
   or the storage is compact on more than one rank (a digest of the bytes written). */

/* Whether the MPI-IO layer may sieve this file's independent writes: ROMIO names its data sieving in the
   file's hints (MPICH: romio_ds_write, "automatic" unless disabled); Open MPI's romio gives no hints
   back, and is chosen with its MCA parameter io; its ompio does not sieve writes. Asked once a file. */
static int risk_ds(colldiag_file *f)
{
    if (f->ds_write >= 0) return f->ds_write;
    MPI_File fh = f->fh != MPI_FILE_NULL ? f->fh : f->size_fh;
    MPI_Info info = MPI_INFO_NULL;
    char v[64] = "";
    int flag = 0;
    if (fh != MPI_FILE_NULL && MPI_File_get_info(fh, &info) == MPI_SUCCESS && info != MPI_INFO_NULL) {
        MPI_Info_get(info, "romio_ds_write", (int)sizeof v - 1, v, &flag);
        MPI_Info_free(&info);
    }
    if (flag) f->ds_write = strcmp(v, "disable") != 0;
    else {
#ifdef OPEN_MPI
        const char *io = getenv("OMPI_MCA_io");
        f->ds_write = io && strstr(io, "romio") && !strchr(io, '^');
#else
        f->ds_write = 0;
#endif
    }
    return f->ds_write;
}

/* The call writes (a plan of a write: colldiag_h5_plan marks its reads). */
static int risk_writes(const cd_io *io)
{
    return io->l && (io->dir == DIR_WRITE || (io->dir == DIR_PLAN && !io->f->plan_read));
}

/* ... or reads. */
static int risk_reads(const cd_io *io)
{
    return io->l && (io->dir == DIR_READ || (io->dir == DIR_PLAN && io->f->plan_read));
}

/* 1 when HDF5's path for this call may fill holes of unwritten storage by read-modify-write: a
   collective MPI-IO write, or independent ones the layer sieves (the local half: the agreed global cause
   decides which, risk_agreed). */
static int risk_holes_possible(cd_io *io)
{
    return risk_writes(io) && io->l->storage != STORE_COMPACT && io->l->fill_unwritten && io->f->driver == COLLDIAG_DRIVER_MPIO &&
           io->set.mode == COLLDIAG_MPIO_COLLECTIVE &&
           (io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO || risk_ds(io->f) || io->l->storage == STORE_CHUNKED); /* chunked: see risk_agreed's multi */
}

/* The file's size as this rank sees it now: the file colldiag writes, or for a plan HDF5's own. */
static uint64_t risk_file_size(const cd_io *io)
{
    MPI_File fh = io->f->fh != MPI_FILE_NULL ? io->f->fh : io->f->size_fh;
    MPI_Offset sz = 0;
    if (fh == MPI_FILE_NULL || MPI_File_get_size(fh, &sz) != MPI_SUCCESS || sz < 0) sz = 0;
    if ((uint64_t)sz > io->f->size_seen) io->f->size_seen = (uint64_t)sz;
    return (uint64_t)sz;
}

typedef struct { uint64_t fsize, lo, hi, past; size_t es; } cd_risk_walk;

/* One run of selected bytes: where it starts, ends, and how much of it lies past the end of the file. */
static int risk_run(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    (void)k;
    cd_risk_walk *w = ctx;
    const uint64_t a = (uint64_t)foff, b = a + n * w->es;
    if (a < w->lo) w->lo = a;
    if (b > w->fsize) {
        w->past += b - (a > w->fsize ? a : w->fsize);
        if (b > w->hi) w->hi = b;
    }
    return 0;
}

/* The gaps past the end of the file (fsize) between lo and hi that past bytes do not fill. */
static uint64_t risk_gaps(uint64_t lo, uint64_t hi, uint64_t past, uint64_t fsize)
{
    const uint64_t from = lo > fsize ? lo : fsize;
    const uint64_t span = hi > from ? hi - from : 0;
    return span > past ? span - past : 0;
}

typedef struct { const cd_io *io; const unsigned char *buf; uint64_t h; } cd_risk_dig;

static int risk_dig_mrun(void *ctx, uint64_t moff, uint64_t n)
{
    cd_risk_dig *d = ctx;
    const unsigned char *p = d->buf + moff * d->io->mes;
    uint64_t len = n * d->io->mes, w;
    for (; len >= 8; len -= 8, p += 8) { memcpy(&w, p, 8); d->h = cd_hash_u64(d->h, w); }
    for (w = 0; len; len--) w = w << 8 | *p++;
    d->h = cd_hash_u64(d->h, w);
    return 0;
}

/* Each run's place and, with the data, its bytes in the order the file holds them. */
static int risk_dig_run(void *ctx, MPI_Offset foff, uint64_t k, uint64_t n)
{
    cd_risk_dig *d = ctx;
    d->h = cd_hash_u64(cd_hash_u64(d->h, (uint64_t)foff), n);
    return d->buf ? cd_mem_runs(d->io->ms, k, n, risk_dig_mrun, d) : 0;
}

/* ---- reads at risk: Open MPI 4.1.0-4.1.4's ompio ----
   Its read data sieving (fbtl posix, on by default for reads whose requests average under 1 MiB with
   gaps under 4 KiB) reads from the first request of a group to the end of the group's *last* request,
   assuming the last ends furthest. In a collective read the aggregator's requests are every rank's, sorted
   by offset: where one rank's request ends inside another's (ranks reading overlapping ranges, one
   starting later and ending sooner), the bytes past the inner one's end are never read and come back as
   whatever the buffer held, zeros mostly: HDF5's reads and colldiag's alike. Open MPI issue #10546, fixed
   in 4.1.5 and 5.0.0 (fbtl/posix: fix length calculation for data sieving). Shown with plain MPI-IO by
   tests/mpi_read_overlap.c and with HDF5 by tests/h5_defects.c (reads-overlap-collective); it was
   fuzz_h5's "same bytes, not the file's" reads (all of them, with HDF5's lone wrong reads: seed 7, 300
   cases, 18 and 57 of them, none with the sieving off). Predicted from the agreement: ranks' read extents
   (the selection's first and last byte for contiguous storage, the touched chunks' storage for chunked)
   whose bytes add up to more than the span they cover must overlap (pigeonhole); reads whose extents are
   all the same are left out (ranks reading the same selection, which the bug spares). Sound, not
   complete: an estimate (COLLDIAG_RISK_MAYBE). Prevented under the HDF5 preload's COLLDIAG_ACCELERATE by
   turning the sieving off (OMPI_MCA_fbtl_posix_read_datasieving=0) before MPI_Init, and in colldiag's own
   reads by the read guard (execution.c: read_guard). risk_read_stack: execution.c. */

/* This rank's part of a collective read's prediction: its extent and bytes (see above). */
static void risk_read_local(cd_io *io, uint64_t v[AG_N])
{
    uint64_t lo = UINT64_MAX, hi = 0, bytes = 0;
    if (io->l->storage == STORE_CHUNKED) {
        for (uint64_t i = 0; i < io->map.n; i++) {
            const cd_piece *p = &io->map.pc[i];
            if (p->addr < 0 || !p->nelem) continue;
            bytes += p->nelem * io->fes;
            if ((uint64_t)p->addr < lo) lo = (uint64_t)p->addr;
            if ((uint64_t)p->addr + io->l->chunk_bytes > hi) hi = (uint64_t)p->addr + io->l->chunk_bytes;
        }
    } else if (io->l->storage == STORE_CONTIG) {
        uint64_t first, last;
        for (uint64_t i = 0; i < io->map.n; i++) bytes += io->map.pc[i].nelem * io->fes;
        if (bytes && sel_first_last(io->fs, &first, &last)) {
            lo = (uint64_t)io->l->addr + first * io->fes;
            hi = (uint64_t)io->l->addr + (last + 1) * io->fes;
        }
    }
    if (!bytes || lo >= hi) return;
    v[AG_RISK_LO] = lo;
    v[AG_RISK_HI] = hi;
    v[AG_RISK_PAST] = bytes;
    v[AG_RISK_FSIZE] = lo;
    v[AG_RISK_RD_NHI] = ~hi;
    v[AG_RISK_RANKS] = (uint64_t)1 << (io->f->rank < 63 ? io->f->rank : 63);
}

/* This rank's part of the prediction, into the first reduction's vector (AG_RISK_*). */
static void risk_local(cd_io *io, uint64_t v[AG_N])
{
    v[AG_RISK_LO] = UINT64_MAX;
    v[AG_RISK_HI] = v[AG_RISK_PAST] = v[AG_RISK_OWN] = v[AG_RISK_FSIZE] = v[AG_RISK_RANKS] = 0;
    v[AG_RISK_DIG] = v[AG_RISK_DIG_NOT] = v[AG_RISK_CBYTES] = v[AG_RISK_UNK] = v[AG_RISK_RD_NHI] = 0;
    const uint64_t me = (uint64_t)1 << (io->f->rank < 63 ? io->f->rank : 63);
    if (risk_reads(io) && io->set.mode == COLLDIAG_MPIO_COLLECTIVE && io->f->driver == COLLDIAG_DRIVER_MPIO) {
        /* every rank's part, whatever its own stack: the agreed AG_STACK says whether it counts */
        risk_read_local(io, v);
    } else if (risk_holes_possible(io) && io->l->addr_unknown) {
        /* the plan does not know where HDF5 put this rank's chunks: each may lie past the end of the file,
           and then its bytes this rank does not select are holes (an estimate: another rank may select
           them, and gaps between chunks are not counted) */
        uint64_t unk = 0;
        for (uint64_t i = 0; i < io->map.n; i++) {
            const cd_piece *p = &io->map.pc[i];
            if (p->addr < 0 || !p->nelem) continue;
            unk += (chunk_elems_in(io->l, p->idx) - p->nelem) * io->fes;
        }
        v[AG_RISK_UNK] = unk;
        if (unk) v[AG_RISK_RANKS] = me;
    } else if (risk_holes_possible(io)) {
        const uint64_t span = io->l->storage == STORE_CHUNKED ? io->l->chunk_bytes : io->l->nelem * io->fes;
        uint64_t end = 0;
        for (uint64_t i = 0; i < io->map.n; i++) {
            const cd_piece *p = &io->map.pc[i];
            if (p->addr >= 0 && p->nelem && (uint64_t)p->addr + span > end) end = (uint64_t)p->addr + span;
        }
        /* storage within a size once seen needs no query: a file does not shrink under its writers */
        cd_risk_walk w = {end > io->f->size_seen ? risk_file_size(io) : io->f->size_seen, UINT64_MAX, 0, 0, io->fes};
        for (uint64_t i = 0; i < io->map.n; i++) {
            const cd_piece *p = &io->map.pc[i];
            if (p->addr < 0 || !p->nelem) continue;
            if ((uint64_t)p->addr + span <= w.fsize) w.lo = 0; /* before the end: the holes start at the end */
            else cd_walk_piece(&io->map, io->fs, p, risk_run, &w);
        }
        v[AG_RISK_LO] = w.lo;
        v[AG_RISK_HI] = w.hi;
        v[AG_RISK_PAST] = w.past;
        v[AG_RISK_FSIZE] = w.fsize;
        v[AG_RISK_OWN] = risk_ds(io->f) ? risk_gaps(w.lo, w.hi, w.past, w.fsize) : 0;
        if (w.past) v[AG_RISK_RANKS] = me;
    } else if (risk_writes(io) && io->l->storage == STORE_COMPACT && io->f->size > 1) {
        /* without the bytes (a plan not given them) the digest is the rank's own: any writer is at risk */
        cd_risk_dig d = {io, io->risk_buf, io->risk_buf ? 0x636f6d70ull : cd_mix64((uint64_t)io->f->rank + 1)};
        uint64_t bytes = 0;
        for (uint64_t i = 0; i < io->map.n; i++) {
            bytes += io->map.pc[i].nelem * io->fes;
            cd_walk_piece(&io->map, io->fs, &io->map.pc[i], risk_dig_run, &d);
        }
        d.h = cd_hash_u64(d.h, bytes);
        v[AG_RISK_DIG] = d.h;
        v[AG_RISK_DIG_NOT] = ~d.h;
        v[AG_RISK_CBYTES] = bytes;
        if (bytes) v[AG_RISK_RANKS] = me;
    }
}

/* "rank 2", "ranks 0, 1, 5", "ranks 0, 1 and ranks past 62" from a rank mask. */
static void risk_ranks_text(uint64_t m, char *b, size_t n)
{
    size_t k = (size_t)snprintf(b, n, "rank%s", (m & (m - 1)) ? "s" : "");
    int first = 1;
    for (int r = 0; r < 63 && k < n; r++)
        if (m >> r & 1) { k += (size_t)snprintf(b + k, n - k, "%s%d", first ? " " : ", ", r); first = 0; }
    if (m >> 63 && k < n) snprintf(b + k, n - k, "%sranks past 62", first ? " " : " and ");
}

/* The bytes at risk from merged words g (the agreement's AG_RISK_*, or the run's summary's merge of the
   same words: summary.c): coll, HDF5's path is one collective MPI-IO write; sieved, independent writes of
   a collective call's types a sieving MPI-IO layer fills (see risk_agreed); compact_cap, the compact
   storage's bytes. *holes: the holes' part (of which *unk counted without known addresses), *compact:
   the compact part. Pure. */
static void risk_count(const uint64_t g[AG_N], int coll, int sieved, uint64_t compact_cap, uint64_t *holes, uint64_t *unk, uint64_t *compact)
{
    const uint64_t known = coll ? risk_gaps(g[AG_RISK_LO], g[AG_RISK_HI], g[AG_RISK_PAST], g[AG_RISK_FSIZE]) : sieved ? g[AG_RISK_OWN] : 0;
    *unk = coll || sieved ? g[AG_RISK_UNK] : 0;
    *holes = known + *unk;
    *compact = g[AG_RISK_CBYTES] && (g[AG_RISK_DIG] & g[AG_RISK_DIG_NOT]) ? (g[AG_RISK_CBYTES] < compact_cap ? g[AG_RISK_CBYTES] : compact_cap) : 0;
}

/* A collective read's bytes at risk from merged words (risk_read_local's; the agreement or the run's
   summary): the bytes read by more than one rank, at least, on a stack whose reads are at risk. Pure
   (the stack's facts: AG_STACK, some rank's risk_read_stack). */
static uint64_t risk_read_count(const uint64_t g[AG_N])
{
    if (!g[AG_RISK_PAST] || g[AG_RISK_HI] <= g[AG_RISK_LO] || !(g[AG_STACK] & 1)) return 0;
    const uint64_t span = g[AG_RISK_HI] - g[AG_RISK_LO];
    const int same = g[AG_RISK_FSIZE] == g[AG_RISK_LO] && ~g[AG_RISK_RD_NHI] == g[AG_RISK_HI];
    return g[AG_RISK_PAST] > span && !same ? g[AG_RISK_PAST] - span : 0;
}

/* The prediction from the agreed values (every rank alike): x->risk_*. global: the agreed causes (any
   makes HDF5's path independent, which writes no holes); compact_cap: the compact storage's bytes. */
static void risk_agreed(cd_io *io, uint32_t global, uint64_t compact_cap)
{
    colldiag_xfer *x = io->x;
    const uint64_t *g = io->g;
    char who[160];
    /* a collective read on a stack whose reads are at risk (risk_read_stack): the words are the read's */
    if (risk_reads(io)) {
        const uint64_t over = global ? 0 : risk_read_count(g);
        if (over) {
            x->risk_bytes = over;
            x->risk_kinds |= COLLDIAG_RISK_READS | COLLDIAG_RISK_MAYBE;
            x->risk_ranks = g[AG_RISK_RANKS];
            risk_ranks_text(x->risk_ranks, who, sizeof who);
            snprintf(x->risk_why, sizeof x->risk_why,
                     "a collective read whose ranks' selections overlap (at least %" PRIu64 " bytes read by more than one rank; %s read), on "
                     "Open MPI 4.1.0-4.1.4's ompio, whose read data sieving returns zeros for the bytes that follow one rank's request "
                     "ending inside another's (Open MPI issue #10546, fixed in 4.1.5)", x->risk_bytes, who);
            snprintf(x->risk_adv, sizeof x->risk_adv,
                     "OMPI_MCA_fbtl_posix_read_datasieving=0 (every rank, before MPI_Init: mpirun -x), or Open MPI 4.1.5 or later, or "
                     "ROMIO (OMPI_MCA_io=romio321), or COLLDIAG_ACCELERATE=1 under the preload (it turns the sieving off)");
        }
        return;
    }
    /* HDF5's path: one collective MPI-IO write (no cause, collective_opt COLLECTIVE_IO), or with
       INDIVIDUAL_IO independent MPI-IO writes of the same derived types, which only a sieving MPI-IO layer
       fills holes of (each rank's own). An independent call, or a collective one with a cause, HDF5
       writes run by run (no derived type): nothing to sieve */
    /* HDF5 1.10's multi-chunk path writes each collective chunk with MPI_File_write_at_all whatever the
       collective_opt (INDIVIDUAL_IO included: its per-chunk calls are collective for the chunks enough
       ranks share), so there the holes are a collective write's (fuzz_h5, seed 7 case 12 on ompio) */
    const int multi = io->l && io->l->storage == STORE_CHUNKED && io->set.rules != COLLDIAG_HDF5_RULES_1_14 && hdf5_scheme_of(io) == 1;
    const int coll = !global && (io->set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO || multi);
    const int sieved = !global && io->set.mode == COLLDIAG_MPIO_COLLECTIVE && io->set.coll_opt == COLLDIAG_MPIO_INDIVIDUAL_IO && !coll;
    uint64_t gaps, unk, compact;
    risk_count(g, coll, sieved, compact_cap, &gaps, &unk, &compact);
    const uint64_t known = gaps - unk;
    if (unk) {
        x->risk_bytes = gaps;
        x->risk_kinds |= COLLDIAG_RISK_HOLES | COLLDIAG_RISK_MAYBE;
        x->risk_ranks = g[AG_RISK_RANKS];
        risk_ranks_text(x->risk_ranks, who, sizeof who);
        snprintf(x->risk_why, sizeof x->risk_why,
                 "holes past the end of the file may be left in HDF5's %s: the chunks' addresses are not known to the plan (HDF5's "
                 "chunk lookup would %s), so up to %" PRIu64 " bytes of the touched chunks that %s do not select are counted as if "
                 "the chunks lay past the end of the file (storage without a written fill value)%s",
                 coll ? "collective write" : "sieved independent writes",
                 io->f->md_local ? "walk too much of the index" : "read metadata collectively in this file", unk, who,
                 known ? "; with the holes of the chunks whose addresses are known" : "");
        snprintf(x->risk_adv, sizeof x->risk_adv,
                 "give the dataset a fill value (H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) or H5Pset_fill_value; netCDF: do not "
                 "set NC_NOFILL), or H5Fflush the file after creating it, or COLLDIAG_ACCELERATE=1");
    } else if (known) {
        x->risk_bytes = gaps;
        x->risk_kinds |= COLLDIAG_RISK_HOLES;
        x->risk_ranks = g[AG_RISK_RANKS];
        risk_ranks_text(x->risk_ranks, who, sizeof who);
        if (coll)
            snprintf(x->risk_why, sizeof x->risk_why,
                     "holes past the end of the file (byte %" PRIu64 ") in HDF5's collective write: %" PRIu64 " bytes between its first and "
                     "last byte past the end (byte %" PRIu64 ") that no rank selected get whatever MPI-IO's buffer holds (storage without a "
                     "written fill value); %s write past the end", g[AG_RISK_FSIZE], gaps, g[AG_RISK_HI], who);
        else
            snprintf(x->risk_why, sizeof x->risk_why,
                     "holes past the end of the file (byte %" PRIu64 ") in HDF5's independent writes of a collective call with "
                     "H5FD_MPIO_INDIVIDUAL_IO, which the MPI-IO layer sieves (ROMIO's read-modify-write of each rank's stretch): %" PRIu64
                     " bytes between a rank's first and last byte that it did not select get whatever its buffer holds (storage without a "
                     "written fill value); %s write past the end", g[AG_RISK_FSIZE], gaps, who);
        snprintf(x->risk_adv, sizeof x->risk_adv,
                 "give the dataset a fill value (H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC) or H5Pset_fill_value), or H5Fflush the file "
                 "after creating it, or COLLDIAG_ACCELERATE=1 (colldiag then extends the file before HDF5's collective write, or writes the call itself)");
    }
    if (compact) {
        x->risk_bytes = compact;
        x->risk_kinds |= COLLDIAG_RISK_COMPACT;
        x->risk_ranks = g[AG_RISK_RANKS];
        risk_ranks_text(x->risk_ranks, who, sizeof who);
        snprintf(x->risk_why, sizeof x->risk_why,
                 "compact storage written with different selections or bytes on different ranks: HDF5 keeps one rank's copy of the object "
                 "header, so the others' writes are lost (%s write)", who);
        snprintf(x->risk_adv, sizeof x->risk_adv,
                 "write the same selection with the same bytes on every rank, or use contiguous or chunked storage (colldiag cannot move "
                 "compact data)");
    }
}

/* An independent write's prediction, this rank alone: compact storage on a file of several ranks (HDF5
   writes an independent call run by run: no holes to sieve). */
static void risk_independent(cd_io *io)
{
    if (!risk_writes(io) || io->l->storage != STORE_COMPACT || io->f->size < 2) return;
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < io->map.n; i++) bytes += io->map.pc[i].nelem * io->fes;
    if (!bytes) return;
    colldiag_xfer *x = io->x;
    x->risk_bytes = bytes;
    x->risk_kinds = COLLDIAG_RISK_COMPACT;
    x->risk_ranks = (uint64_t)1 << (io->f->rank < 63 ? io->f->rank : 63);
    snprintf(x->risk_why, sizeof x->risk_why,
             "compact storage written independently on a file of %d ranks: HDF5 keeps one rank's copy of the object header, so these "
             "bytes survive only if every rank writes the same (rank %d writes)", io->f->size, io->f->rank);
    snprintf(x->risk_adv, sizeof x->risk_adv,
             "write the same selection with the same bytes on every rank, or use contiguous or chunked storage (colldiag cannot move "
             "compact data)");
}

/* The agreement vector of a rank whose arguments passed every check and whose selection is mapped:
   its causes, layout and settings digests, view, chunk counts and the AUTO model's inputs. The
   functions it calls read the layout, the selections and the map without guarding against bad ones:
   agree_neutral stands in for a rank that failed. */
static void agree_local(cd_io *io, uint32_t cause, uint64_t v[AG_N])
{
    const uint64_t ld = layout_digest(io->l), sd = settings_digest(&io->set) ^ plan_dir_digest(io->f, io->dir);
    v[AG_CAUSE] = cause;
    v[AG_LAYOUT] = ld;
    v[AG_LAYOUT_NOT] = ~ld;
    v[AG_SETTINGS] = sd;
    v[AG_SETTINGS_NOT] = ~sd;
    v[AG_VIEW] = !view_is_default(io->f);
    v[AG_FAIL] = UINT64_MAX;
    v[AG_BRIDGE] = 0; /* this rank neither waits nor failed (every word is set: all of them leave through MPI) */
    v[AG_RANK0] = v[AG_RANK0_BYTES] = v[AG_ENV] = v[AG_ENV_NOT] = 0; /* the call's own: agree_env */
    v[AG_SUM_CHUNKS] = v[AG_MIN_CHUNKS] = v[AG_MAX_CHUNKS] = io->map.n;
    v[AG_MAX_BYTES] = v[AG_MAX_PIECE] = v[AG_MAX_RUNS] = 0;
    for (uint64_t i = 0; i < io->map.n; i++) {
        uint64_t b = io->map.pc[i].nelem * io->fes;
        v[AG_MAX_RUNS] += io->map.pc[i].nruns;
        v[AG_MAX_BYTES] += b;
        if (b > v[AG_MAX_PIECE]) v[AG_MAX_PIECE] = b;
    }
    v[AG_SUM_RUNS] = v[AG_MAX_RUNS];
    multi_local(io, &v[AG_SUM_PARTIAL], &v[AG_MAX_MULTI_NS], &v[AG_MAX_IND_NS]);
    v[AG_MAX_MRUNS] = link_mem_runs(io);
    write_extent(io, &v[AG_MAX_END], &v[AG_MAX_FSIZE]);
    touch_map(io, &v[AG_TOUCH], &v[AG_SUM_TOUCH]);
    node_map(io, &v[AG_NODE_MAP], &v[AG_SUM_NODE_TOUCH]);
    risk_local(io, v);
    meas_local(io, v);
}

/* Maps a checked selection onto the layout's chunks (nothing for null spaces) and refuses what cannot
   move: unallocated chunks on writes (and on the HDF5 bridge's reads). Local. */
static void map_selection(cd_io *io, uint32_t cause)
{
    const colldiag_xfer *x = io->x;
    const int dir = io->dir;
    if (io->code || (cause & COLLDIAG_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES)) return;
    char why[256] = "";
    int nomem = 0;
    if (map_build(&io->map, io->l, io->fs) || cd_inject(io, "map")) {
        io_fail(io, COLLDIAG_ERR_NOMEM, "mapping the selection onto chunks");
    } else {
        int rf = map_resolve(&io->map, &nomem, why, sizeof why);
        if (!rf && io->l && io->l->resolve && cd_inject(io, "resolve")) rf = snprintf(why, sizeof why, "the index could not be read (injected)");
        if (rf) {
            io_fail(io, nomem ? COLLDIAG_ERR_NOMEM : COLLDIAG_ERR_UNSUPPORTED, "finding the chunk addresses: %s", why);
        } else {
            map_trim(&io->map);
            order_by_addr(io);
        }
    }
    /* the HDF5 bridge reads no unallocated chunk either: HDF5 would return the fill value there (but
       filtered chunks the bridge decodes: their layout carries the fill value, which aggregation reads
       there) */
    if (!io->code && (dir == DIR_WRITE || (dir == DIR_READ && x->strict_alloc && !(io->l && io->l->unfilter))))
        for (uint64_t i = 0; i < io->map.n; i++)
            if (io->map.pc[i].flags & PF_UNALLOC) {
                if (dir == DIR_WRITE && !x->strict_alloc)
                    io_fail(io, COLLDIAG_ERR_ARG, "chunk %" PRIu64 " is not allocated (address -1) and cannot be written", io->map.pc[i].idx);
                else
                    io_fail(io, COLLDIAG_ERR_UNSUPPORTED, "chunk %" PRIu64 " is not allocated in the file (HDF5 would %s)",
                            io->map.pc[i].idx, dir == DIR_WRITE ? "allocate it" : "return the fill value");
                break;
            }
}

#ifdef COLLDIAG_WITH_HDF5
/* This rank's words of a collective write's bytes at risk (risk_local) without the agreement: the run's
   summary records them per call and merges them at its end with the agreement's own operator
   (summary.c, cd_sum_risk_record), so that the summary alone names the bytes a plan would, without a
   collective per call. x: the call's settings (a collective DXPL); wbuf: its bytes (compact storage's
   digest). v: AG_N words, the AG_RISK_* ones set (the rest neutral for cd_agree_fn). 0, or the error
   that kept the selection from being mapped (then nothing is known). Local. */
static int cd_risk_local(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *fs, const colldiag_sel *ms, const void *wbuf,
                         colldiag_xfer *x, uint64_t v[AG_N])
{
    cd_io io;
    char msg[CD_MSG_CAP] = "";
    memset(&io, 0, sizeof io);
    memset(v, 0, AG_N * sizeof *v);
    v[AG_FAIL] = v[AG_MIN_CHUNKS] = UINT64_MAX;
    io.msg = msg;
    io.fn = "colldiag summary";
    io.f = f;
    io.l = l;
    io.fs = fs;
    io.ms = ms;
    io.risk_buf = wbuf;
    io.x = x;
    io.dir = DIR_PLAN;
    io.fes = l ? l->esize : 1;
    io.mes = x->conv ? x->mem_esize : io.fes;
    io.fes_max = io.fes_min = io.fes;
    if (settings_effective(io.fn, x, &io.set)) return COLLDIAG_ERR_ARG;
    if (check_args(&io)) return finish(&io, io.code);
    map_selection(&io, 0);
    if (!io.code) risk_local(&io, v);
    v[AG_STACK] = (uint64_t)risk_read_stack(); /* merged with the others' at the end, as the reduction would */
    return finish(&io, io.code);
}
#endif

/* An independent call (or one dataset of an independent multi-dataset call): no communication; the
   data moves with independent calls. */
static int exec_independent(cd_io *io, uint32_t cause)
{
    colldiag_file *f = io->f;
    if (io->l->filtered && !f->plan_only) /* the HDF5 bridge plans filtered chunks; colldiag moves none */
        return io_fail(io, COLLDIAG_ERR_UNSUPPORTED, "the layout is filtered; colldiag cannot %s filtered chunks",
                       io->dir == DIR_READ ? "read" : "write");
    uint64_t end, fsize;
    write_extent(io, &end, &fsize);
    if (read_past_eof(io, end, fsize)) return io->code;
    if (!view_is_default(f))
        return io_fail(io, COLLDIAG_ERR_ARG, "the file's view is not (0, MPI_BYTE, MPI_BYTE, \"native\"); independent calls cannot reset it");
    char cs[256];
    colldiag_cause_string(cause, cs, sizeof cs);
    set_reason(io, "no collective I/O: %s", cs);
    ind_pieces(io, NULL, io->map.n, 1);
    for (uint64_t i = 0; i < io->map.n; i++) io->map.pc[i].flags |= PF_IND;
    return io->code;
}

/* The whole transfer: checks, causes, agreement, scheme, data, results. */
static int cd_transfer_core(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *fs, const colldiag_sel *ms,
                       const void *wbuf, void *rbuf, colldiag_xfer *x, int dir, const char *fn)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank cannot take part: its results have nowhere to go)");
    const double t_call = cd_now(); /* AUTO's measurement: the call as the program sees it (measure.c) */
    xfer_reset(x);
    x->planned = dir == DIR_PLAN;
    if (!f) {
        cd_fail(COLLDIAG_ERR_ARG, fn, "f is NULL (this rank cannot take part in the collective call)");
        snprintf(x->errmsg, sizeof x->errmsg, "%s", cd_errbuf);
        return COLLDIAG_ERR_ARG;
    }
    cd_io io;
    char msg[CD_MSG_CAP] = "";
    memset(&io, 0, sizeof io);
    io.msg = msg;
    io.fn = fn;
    io.f = f;
    io.l = l;
    io.fs = fs;
    io.ms = ms;
    io.wbuf = wbuf;
    io.rbuf = rbuf;
    io.risk_buf = dir == DIR_PLAN ? x->plan_wbuf : wbuf;
    x->plan_wbuf = NULL; /* the next call's only */
    io.x = x;
    io.dir = dir;
    io.fes = l ? l->esize : 1;
    io.mes = x->conv ? x->mem_esize : io.fes;
    io.fes_max = io.fes_min = io.fes;
    double t0 = cd_now();
    if (settings_effective(fn, x, &io.set)) {
        io.code = COLLDIAG_ERR_ARG; /* settings_effective already wrote the message */
        snprintf(io.msg, CD_MSG_CAP, "%s", cd_errbuf);
    } else if (x->pre_code) { /* the HDF5 bridge found the call ineligible on this rank (its arguments may be NULL) */
        io_fail(&io, x->pre_code, "%s", x->pre_msg);
        io.prefail = x->pre_need_index ? 2 : 1;
    } else {
        check_args(&io);
    }
    x->bridge_global = io.code ? (io.prefail == 2 ? 1 : 2) : 0; /* independent calls: this rank's own */
    x->bridge_max_bytes = 0;
    x->pre_code = x->pre_need_index = 0; /* pre_bytes, pre_defers and pre_flush_writes are read by the reduction below */
    prefault_read(&io); /* a fresh destination populated first, where it pays (memory.c); this rank's own memory */
    uint32_t cause = local_causes(&io);
    map_selection(&io, cause);
    x->sel_io_cause = 0;
    int sel_on = 0; /* 1.14's rules: this rank's call goes through selection I/O */
    if (io.set.rules == COLLDIAG_HDF5_RULES_1_14 && !io.code) cause = causes_114(&io, cause, &sel_on);
    x->cnt.t_map = cd_now() - t0;
    if (io.code) cause |= COLLDIAG_MPIO_ERROR_WHILE_CHECKING;
    x->local_cause = cause;
    t0 = cd_now();
    int rc;
    if (io.set.mode == COLLDIAG_MPIO_INDEPENDENT) {
        /* independent: no communication at all, global = local */
        x->global_cause = cause;
        if (io.code) return finish(&io, io.code);
        risk_independent(&io);
        if (exec_independent(&io, cause)) return finish(&io, io.code);
        fill_chunk_info(&io);
        x->cnt.t_decide = cd_now() - t0 - x->cnt.t_io;
        return finish(&io, io.code);
    }
    /* collective: one reduction decides causes, agreement, first failure and chunk counts. This is the
       one place where a rank whose arguments failed their checks parts from the others: it contributes
       the neutral vector and nothing after this line reads its arguments (it leaves right after the
       reduction, as does everybody, since its ERROR_WHILE_CHECKING bit is in the global cause). */
    uint64_t v[AG_N];
    meas_wisdom_load(&io); /* AUTO's wisdom, at the group's first collective call (measure.c) */
    if (io.code) agree_neutral(&io, cause, v);
    else agree_local(&io, cause, v);
    agree_env(&io, v);
    if (!io.code && read_too_short(&io)) v[AG_CAUSE] |= CD_CAUSE_SHORT_READ;
    if (!io.code && filt_hdf5_fails(&io)) v[AG_CAUSE] |= CD_CAUSE_FILT_H5_FAILS;
    /* 1.14's rules: a rank that converts or transforms under selection I/O, which HDF5 runs collectively;
       colldiag's collective paths do not convert, so then every rank moves its data with independent
       calls and reports HDF5's modes (as INDIVIDUAL_IO does). An internal bit of the cause word, never
       reported: every rank must take the same path. */
    if (sel_on && (x->conv || x->xform)) v[AG_CAUSE] |= CD_CAUSE_CONVERTS_114;
    /* ranks whose facts differ (a chunk cache set on some ranks only) must not take different schemes:
       one rank without selection I/O makes every rank follow 1.10's path */
    if (io.set.rules == COLLDIAG_HDF5_RULES_1_14 && !sel_on) v[AG_CAUSE] |= CD_CAUSE_SEL_OFF_114;
    rc = MPI_Allreduce(v, io.g, AG_N, MPI_UINT64_T, f->op, f->comm);
    if (rc != MPI_SUCCESS) return finish(&io, cd_mpi_err(&io, rc, "MPI_Allreduce (cause agreement)"));
    agreed_env(&io);
    meas_agreed(&io); /* the group's previous AUTO call's agreed time, into its table (measure.c) */
    x->bridge_global = io.g[AG_BRIDGE];
    x->bridge_max_bytes = io.g[AG_MAX_BYTES];
    x->pre_bytes = x->pre_defers = 0;
    x->pre_flush_writes = 0;
    uint64_t touched_bits = 0;
    for (int w = 0; w < CD_TOUCH_WORDS; w++) touched_bits += popcount64(io.g[AG_TOUCH + w]);
    io.disjoint = l && l->storage == STORE_CHUNKED && touched_bits == io.g[AG_SUM_TOUCH];
    if (io.g[AG_CAUSE] & CD_CAUSE_SEL_OFF_114) sel_on = 0;
    const int converts_114 = sel_on && (io.g[AG_CAUSE] & CD_CAUSE_CONVERTS_114) != 0;
    uint32_t global = (uint32_t)(io.g[AG_CAUSE] & ~(uint64_t)(CD_CAUSE_CONVERTS_114 | CD_CAUSE_SEL_OFF_114 | CD_CAUSE_SHORT_READ |
                                                              CD_CAUSE_FILT_H5_FAILS));
    x->global_cause = global;
    if (!(global & COLLDIAG_MPIO_ERROR_WHILE_CHECKING) && l) risk_agreed(&io, global, l->nelem * io.fes);
    if (global & COLLDIAG_MPIO_ERROR_WHILE_CHECKING) {
        if (io.code && io.prefail == 2 && io.g[AG_FAIL] != UINT64_MAX) { /* waited, but another rank failed: name it */
            io.code = 0;
            io.msg[0] = 0;
        }
        if (io.code) return finish(&io, io.code);
        if (io.g[AG_FAIL] == UINT64_MAX) /* no rank failed: some wait for an HDF5 dataset's chunk index */
            return finish(&io, io_fail(&io, COLLDIAG_ERR_PEER, "another rank waits for the dataset's chunk index"));
        return finish(&io, io_fail(&io, COLLDIAG_ERR_PEER, "rank %" PRIu64 " found a bad argument (%s); see its message",
                                   io.g[AG_FAIL] / 16u, colldiag_strerror(-(int)(io.g[AG_FAIL] % 16u))));
    }
    if ((io.g[AG_LAYOUT] & io.g[AG_LAYOUT_NOT]) || (io.g[AG_SETTINGS] & io.g[AG_SETTINGS_NOT])) {
        report_disagreement(&io, v[AG_LAYOUT], v[AG_SETTINGS]);
        return finish(&io, io.code);
    }
    if (io.g[AG_VIEW] && dir != DIR_PLAN) view_reset(&io);
    if (read_past_eof(&io, io.g[AG_MAX_END], io.g[AG_MAX_FSIZE])) return finish(&io, io.code);
    if (!global && dir == DIR_WRITE && io.g[AG_MAX_END] > io.g[AG_MAX_FSIZE]) extend_file(&io, io.g[AG_MAX_END]);
    file_covered(&io, global);
    if (x->accel) { /* the HDF5 preload under COLLDIAG_ACCELERATE: the engine, on every agreed fact (engine.c) */
        const int rule = accel_rule(&io, global);
        int eng = engine_of(rule);
        /* the speed rules are a prior where the pattern repeats: measured (measure.c); the others absolute */
        if (x->accel == 1 && dir != DIR_PLAN && (rule == CD_RULE_WHOLE_CHUNKS || rule == CD_RULE_STRETCHES || rule == CD_RULE_FASTER)) {
            if (!f->plan_only) file_nodes(f); /* the pattern names the nodes: learnt before its first call, whichever engine runs it */
            eng = meas_engine_choose(&io, eng == CD_ENGINE_COLLDIAG) ? CD_ENGINE_COLLDIAG : CD_ENGINE_HDF5;
        }
        /* a kept choice may now run a little slower than the other ran: the reason says so (measure.c,
           CD_ENG_SWITCH: within that factor noise would flip it back and forth) */
        if (eng == CD_ENGINE_HDF5 && x->eng_kind >= 2) {
            char how[96], t[2][64];
            if (x->eng_kind == 3) snprintf(how, sizeof how, "tried (each engine runs a pattern's calls before they are compared)");
            else if (x->eng_t[1] < 0 || x->eng_t[0] <= x->eng_t[1]) snprintf(how, sizeof how, "measured faster");
            else snprintf(how, sizeof how, "measured faster when compared, kept while within %.3gx of colldiag's", CD_ENG_SWITCH);
            for (int e = 0; e < 2; e++)
                if (x->eng_n[e] == 0 || x->eng_t[e] < 0) snprintf(t[e], sizeof t[e], "not measured yet");
                else snprintf(t[e], sizeof t[e], "median call %.3g s (%u call%s)", x->eng_t[e], x->eng_n[e], x->eng_n[e] == 1 ? "" : "s");
            return finish(&io, io_hand_back(&io, "HDF5's path, %s: its %s, colldiag's %s", how, t[0], t[1]));
        }
        if (eng == CD_ENGINE_HDF5) {
            if (rule == CD_RULE_WHOLE_CHUNKS)
                return finish(&io, io_hand_back(&io, "%s; %" PRIu64 " bytes on the busiest rank", engine_why(rule), io.g[AG_MAX_BYTES]));
            return finish(&io, io_hand_back(&io, "%s", engine_why(rule)));
        }
        x->engine_rule = rule;
    }
    if (global & COLLDIAG_MPIO_FILTERS)
        return finish(&io, io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "the layout is filtered: colldiag cannot write filtered chunks (cause FILTERS)"));
    if (l->filtered && !f->plan_only) {
        /* filtered chunks move in one way only: a collective read by aggregation, whose owner of each chunk
           reads its stored bytes whole and decodes them once (the layout's decoder: the HDF5 bridge's);
           every condition here is agreed (the decoder's presence is in the layout's digest) */
        if (io.g[AG_CAUSE] & CD_CAUSE_FILT_H5_FAILS)
            return finish(&io, io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "HDF5 1.10's collective read of filtered chunks fails on chunks never "
                                                                       "written or stored with a filter skipped (1.14's does not): HDF5 runs "
                                                                       "it, so that the program gets HDF5's own answer"));
        if (!l->unfilter || dir != DIR_READ || global || converts_114)
            return finish(&io, io_fail(&io, COLLDIAG_ERR_UNSUPPORTED, "the layout is filtered: colldiag %s",
                                       !l->unfilter       ? "cannot decode its chunks"
                                       : dir != DIR_READ  ? "reads filtered chunks but writes none"
                                                          : "reads filtered chunks only in a collective call without conversion"));
        io.set.chunk_opt = COLLDIAG_MPIO_CHUNK_AGGREGATE_IO;
        x->filt_read = 1;
    }
    if (global) {
        char cs[256];
        colldiag_cause_string(global, cs, sizeof cs);
        set_reason(&io, "no collective I/O: %s", cs);
        for (uint64_t i = 0; i < io.map.n; i++) io.map.pc[i].flags |= PF_IND;
        ind_pieces(&io, NULL, io.map.n, 1);
    } else if (converts_114) {
        set_reason(&io, "HDF5 1.14's rules: selection I/O converts collectively (reported as HDF5 reports it); colldiag converts "
                        "through independent calls");
        for (uint64_t i = 0; i < io.map.n; i++) io.map.pc[i].flags |= PF_COLL; /* collective as HDF5 reports it */
        ind_pieces(&io, NULL, io.map.n, 1);
        x->chunk_opt_done = COLLDIAG_MPIO_LINK_CHUNK;
        x->io_mode_done = l->storage == STORE_CHUNKED ? COLLDIAG_MPIO_CHUNK_COLLECTIVE : COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE;
    } else if (reads_by_stretch(&io)) {
        set_reason(&io, "contiguous dataset, one stretch a rank: independent reads, as ROMIO's collective read when parts "
                        "do not interleave; modes as HDF5 reports them");
        for (uint64_t i = 0; i < io.map.n; i++) io.map.pc[i].flags |= PF_COLL; /* collective as HDF5 reports it */
        read_stretch(&io);
        x->io_mode_done = COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE;
        if (sel_on) x->chunk_opt_done = COLLDIAG_MPIO_LINK_CHUNK;
    } else if (l->storage != STORE_CHUNKED) {
        set_reason(&io, sel_on ? "HDF5 1.14's rules: contiguous dataset, selection I/O: one collective call (reported as LINK_CHUNK)"
                               : "contiguous dataset: one collective call");
        coll_call(&io, NULL, io.map.n);
        if (dir != DIR_PLAN && io.set.coll_opt == COLLDIAG_MPIO_COLLECTIVE_IO) view_reset(&io);
        x->io_mode_done = COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE;
        if (sel_on) x->chunk_opt_done = COLLDIAG_MPIO_LINK_CHUNK;
    } else {
        /* 1.14's selection I/O moves every piece in one collective call whatever HDF5's own chunk
           optimisation asks: link-chunk (colldiag's own schemes stay what they are) */
        const int hdf5_opt = io.set.chunk_opt == COLLDIAG_MPIO_CHUNK_DEFAULT || io.set.chunk_opt == COLLDIAG_MPIO_CHUNK_ONE_IO ||
                             io.set.chunk_opt == COLLDIAG_MPIO_CHUNK_MULTI_IO;
        if (sel_on && hdf5_opt) io.set.chunk_opt = COLLDIAG_MPIO_CHUNK_SELECTION_IO;
        exec_chunked(&io);
        if (l->filtered && !f->plan_only)
            set_reason(&io, "filtered chunks: each one's owner (a rank that selects from it) reads it whole as stored, decodes it once and "
                            "sends every rank its pieces (aggregation)");
    }
    fill_chunk_info(&io);
    rc = agree_end(&io);
    x->cnt.t_decide = cd_now() - t0 - x->cnt.t_io;
    if (!rc && x->meas_kind) meas_done(&io, x->meas_s, cd_now() - t_call); /* the next call of the group agrees it */
    return finish(&io, rc);
}

/* env COLLDIAG_REPORT=1 prints the report after every collective call, =json:PATH appends JSON lines
   to PATH, =html:PATH a section per call to one HTML page (rank 0 writes): diagnosis with no code change. Independent calls cannot gather, so they
   never report. */
static void html_append(colldiag_file *f, const colldiag_xfer *x, const char *path, const char *title, const char *verdict);
static void env_report(colldiag_file *f, const colldiag_xfer *x)
{
    /* the kind is rank 0's, agreed in the call (every rank gathers, or none); so is the path: rank 0 writes */
    const char *e = f->rank == 0 ? cd_getenv("COLLDIAG_REPORT") : NULL;
    if (report_kind_of(e) != x->report_kind) e = NULL; /* not rank 0 (it cannot change within a call's snapshot) */
    if (x->report_kind == 2) {
        FILE *out = e ? fopen(e + 5, "a") : NULL;
        colldiag_report_json(f, x, out);
        if (out) fclose(out);
    } else if (x->report_kind == 3) {
        html_append(f, x, e ? e + 5 : NULL, "colldiag call", NULL);
    } else if (x->report_kind == 1) {
        colldiag_report_print(f, x, f->rank == 0 ? stdout : NULL);
    }
}

static void cd_sum_kit_record(const colldiag_file *f, const colldiag_layout *l, const colldiag_xfer *x, int write, double secs); /* summary.c */

static int cd_transfer(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *fs, const colldiag_sel *ms,
                       const void *wbuf, void *rbuf, colldiag_xfer *x, int dir, const char *fn)
{
    cd_env_enter();
    const double t0 = cd_now();
    int rc = cd_transfer_core(f, l, fs, ms, wbuf, rbuf, x, dir, fn);
    /* the run's summary: the kit's own calls that moved data, this rank's counters only (summary.c) */
    if (!rc && f && x && !f->plan_only && !f->bridge && dir != DIR_PLAN) {
        const char *rep = cd_getenv("COLLDIAG_REPORT");
        if (rep && *rep && strcmp(rep, "0")) cd_sum_kit_record(f, l, x, dir == DIR_WRITE, cd_now() - t0);
    }
    if (f && x && x->set.mode == COLLDIAG_MPIO_COLLECTIVE && !f->plan_only && !f->bridge) {
        char keep[sizeof cd_errbuf];
        snprintf(keep, sizeof keep, "%s", cd_errbuf);
        env_report(f, x);
        snprintf(cd_errbuf, sizeof cd_errbuf, "%s", keep); /* the transfer's message is the one that matters */
    }
    cd_env_leave();
    return rc;
}

int colldiag_write(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel, const colldiag_sel *mem_sel,
                   const void *buf, colldiag_xfer *x)
{
    return cd_transfer(f, l, file_sel, mem_sel, buf, NULL, x, DIR_WRITE, "colldiag_write");
}

int colldiag_read(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel, const colldiag_sel *mem_sel,
                  void *buf, colldiag_xfer *x)
{
    return cd_transfer(f, l, file_sel, mem_sel, NULL, buf, x, DIR_READ, "colldiag_read");
}

int colldiag_plan(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel, const colldiag_sel *mem_sel,
                  colldiag_xfer *x)
{
    return cd_transfer(f, l, file_sel, mem_sel, NULL, NULL, x, DIR_PLAN, "colldiag_plan");
}

int colldiag_plan_read(colldiag_file *f, const colldiag_layout *l, const colldiag_sel *file_sel, const colldiag_sel *mem_sel,
                       colldiag_xfer *x)
{
    /* the plan's direction is the file's plan_read for the call (the HDF5 bridge's plan files carry it) */
    const int was = f ? f->plan_read : 0;
    if (f) f->plan_read = 1;
    int rc = cd_transfer(f, l, file_sel, mem_sel, NULL, NULL, x, DIR_PLAN, "colldiag_plan_read");
    if (f) f->plan_read = was;
    return rc;
}
