/* ====================================================================================================
 * 10. reporting
 * ==================================================================================================== */

static const struct {
    uint32_t bit;
    const char *name, *phrase;
} cd_causes[] = {
#define CD_CAUSE_ROW(NAME, VALUE, PHRASE) {VALUE, #NAME, PHRASE},
    COLLDIAG_CAUSE_TABLE(CD_CAUSE_ROW)
#undef CD_CAUSE_ROW
};
/* The table and the public constants must not drift apart. */
#define CD_CAUSE_CHECK(NAME, VALUE, PHRASE) _Static_assert(COLLDIAG_MPIO_##NAME == VALUE, "cause table mismatch: " #NAME);
COLLDIAG_CAUSE_TABLE(CD_CAUSE_CHECK)
#undef CD_CAUSE_CHECK

size_t colldiag_cause_string(uint32_t cause, char *buf, size_t len)
{
    size_t need = 0;
    uint32_t known = 0;
    char tmp[64];
    if (buf && len) buf[0] = 0;
    for (size_t i = 0; i < sizeof cd_causes / sizeof *cd_causes; i++) {
        known |= cd_causes[i].bit;
        if (!(cause & cd_causes[i].bit)) continue;
        const char *parts[2] = {need ? "; " : "", cd_causes[i].phrase};
        for (int j = 0; j < 2; j++) {
            size_t pl = strlen(parts[j]);
            if (buf && len && need < len - 1) {
                size_t room = len - 1 - need, c = pl < room ? pl : room;
                memcpy(buf + need, parts[j], c);
                buf[need + c] = 0;
            }
            need += pl;
        }
    }
    if (cause & ~known) {
        snprintf(tmp, sizeof tmp, "%sunknown cause bits 0x%x", need ? "; " : "", cause & ~known);
        size_t pl = strlen(tmp);
        if (buf && len && need < len - 1) {
            size_t room = len - 1 - need, c = pl < room ? pl : room;
            memcpy(buf + need, tmp, c);
            buf[need + c] = 0;
        }
        need += pl;
    }
    return need;
}

/* Enum names, generated once so the report, the JSON and the scenario runner print the same words. */
#define CD_CHUNK_OPT_NAMES(X) X(NO_CHUNK_OPTIMIZATION) X(LINK_CHUNK) X(MULTI_CHUNK) X(COLL_CHUNK_ATONCE) \
    X(ALL_CHUNK_IND) X(MULTI_CHUNK_NO_OPT) X(CHUNK_AGGREGATE)
#define CD_IO_MODE_NAMES(X) X(NO_COLLECTIVE) X(CHUNK_INDEPENDENT) X(CHUNK_COLLECTIVE) X(CHUNK_MIXED) X(CONTIGUOUS_COLLECTIVE) X(CHUNK_CONTIGUOUS_COLLECTIVE)
#define CD_NAME_ROW(N) [COLLDIAG_MPIO_##N] = #N,
static const char *const cd_chunk_opt_names[] = {CD_CHUNK_OPT_NAMES(CD_NAME_ROW)};
static const char *const cd_io_mode_names[] = {CD_IO_MODE_NAMES(CD_NAME_ROW)};
#undef CD_NAME_ROW

const char *colldiag_chunk_opt_name(colldiag_actual_chunk_opt_mode_t v)
{
    return (unsigned)v < sizeof cd_chunk_opt_names / sizeof *cd_chunk_opt_names ? cd_chunk_opt_names[v] : "?";
}
const char *colldiag_io_mode_name(colldiag_actual_io_mode_t v)
{
    return (unsigned)v < sizeof cd_io_mode_names / sizeof *cd_io_mode_names && cd_io_mode_names[v] ? cd_io_mode_names[v] : "?"; /* 5: none */
}

int colldiag_get_mpio_actual_chunk_opt_mode(const colldiag_xfer *x, colldiag_actual_chunk_opt_mode_t *out)
{
    static const char fn[] = "colldiag_get_mpio_actual_chunk_opt_mode";
    if (!x || !out) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", x ? "out" : "x");
    *out = (colldiag_actual_chunk_opt_mode_t)x->chunk_opt_done;
    return 0;
}

int colldiag_get_mpio_actual_io_mode(const colldiag_xfer *x, colldiag_actual_io_mode_t *out)
{
    static const char fn[] = "colldiag_get_mpio_actual_io_mode";
    if (!x || !out) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", x ? "out" : "x");
    *out = (colldiag_actual_io_mode_t)x->io_mode_done;
    return 0;
}

int colldiag_get_mpio_no_collective_cause(const colldiag_xfer *x, uint32_t *local, uint32_t *global)
{
    static const char fn[] = "colldiag_get_mpio_no_collective_cause";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (local) *local = x->local_cause;
    if (global) *global = x->global_cause;
    return 0;
}

/* The selection-I/O cause bits' phrases (HDF5 1.14's H5Pget_no_selection_io_cause), "; "-joined. */
static void sel_io_cause_string(uint32_t c, char *buf, size_t len)
{
    static const struct { uint32_t bit; const char *phrase; } t[] = {
        {COLLDIAG_SEL_IO_DISABLE_BY_API, "selection I/O was switched off (H5Pset_selection_io)"},
        {COLLDIAG_SEL_IO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET, "the dataset is neither contiguous nor chunked"},
        {COLLDIAG_SEL_IO_DATASET_FILTER, "the dataset has filters"},
        {COLLDIAG_SEL_IO_CHUNK_CACHE, "the file is read-only and a chunk fits the chunk cache"},
        {COLLDIAG_SEL_IO_TCONV_BUF_TOO_SMALL, "the type conversion buffer is smaller than the call's conversion"}};
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof t / sizeof *t && at < len; i++)
        if (c & t[i].bit) at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "; " : "", t[i].phrase);
}

int colldiag_get_no_selection_io_cause(const colldiag_xfer *x, uint32_t *cause)
{
    if (!x || !cause) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_no_selection_io_cause", "%s is NULL", x ? "cause" : "x");
    *cause = x->sel_io_cause;
    return 0;
}

int colldiag_get_ndatasets(const colldiag_xfer *x, size_t *n)
{
    if (!x || !n) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_ndatasets", "x or n is NULL");
    *n = x->nds ? x->nds : 1;
    return 0;
}

int colldiag_get_dataset_mpio(const colldiag_xfer *x, size_t i, colldiag_actual_chunk_opt_mode_t *chunk_opt,
                              colldiag_actual_io_mode_t *io_mode, uint32_t *local_cause, uint32_t *global_cause)
{
    static const char fn[] = "colldiag_get_dataset_mpio";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (i >= (x->nds ? x->nds : 1)) return cd_fail(COLLDIAG_ERR_ARG, fn, "dataset %zu of a call with %zu", i, x->nds ? x->nds : 1);
    const cd_dsres *r = x->nds ? &x->dsr[i] : NULL;
    if (chunk_opt) *chunk_opt = (colldiag_actual_chunk_opt_mode_t)(r ? r->chunk_opt : x->chunk_opt_done);
    if (io_mode) *io_mode = (colldiag_actual_io_mode_t)(r ? r->io_mode : x->io_mode_done);
    if (local_cause) *local_cause = r ? r->local_cause : x->local_cause;
    if (global_cause) *global_cause = r ? r->global_cause : x->global_cause;
    return 0;
}

const char *colldiag_xfer_errmsg(const colldiag_xfer *x) { return x ? x->errmsg : ""; }

int colldiag_get_chunk_info(const colldiag_xfer *x, uint64_t *nchunks, const colldiag_chunk_info **chunks)
{
    static const char fn[] = "colldiag_get_chunk_info";
    if (!x || !nchunks || !chunks) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", !x ? "x" : !nchunks ? "nchunks" : "chunks");
    const colldiag_chunk_info *v = chunks_view(x, x->nchunks);
    if (!v && x->nchunks) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "materialising %" PRIu64 " chunk records", x->nchunks);
    *nchunks = x->nchunks;
    *chunks = x->nchunks ? v : NULL;
    return 0;
}

int colldiag_get_counters(const colldiag_xfer *x, colldiag_counters *out)
{
    static const char fn[] = "colldiag_get_counters";
    if (!x || !out) return cd_fail(COLLDIAG_ERR_ARG, fn, "%s is NULL", x ? "out" : "x");
    *out = x->cnt;
    return 0;
}

int colldiag_get_prefault(const colldiag_xfer *x, uint64_t *bytes, const char **why)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_prefault", "x is NULL");
    if (bytes) *bytes = x->pf_bytes;
    if (why) *why = cd_pf_note;
    return 0;
}

int colldiag_get_auto_estimates(const colldiag_xfer *x, double *link_s, double *multi_s, double *aggregate_s)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_auto_estimates", "x is NULL");
    if (link_s) *link_s = x->auto_est[0];
    if (multi_s) *multi_s = x->auto_est[1];
    if (aggregate_s) *aggregate_s = x->auto_est[2];
    return 0;
}

int colldiag_get_model_estimates(const colldiag_xfer *x, double est[4])
{
    if (!x || !est) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_model_estimates", "%s is NULL", x ? "est" : "x");
    memcpy(est, x->model_est, 4 * sizeof *est);
    return 0;
}

int colldiag_get_model_terms(const colldiag_xfer *x, double terms[4][4])
{
    if (!x || !terms) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_model_terms", "%s is NULL", x ? "terms" : "x");
    memcpy(terms, x->model_term, sizeof x->model_term);
    return 0;
}

int colldiag_get_model_aggregation(const colldiag_xfer *x, int *independent, double *collective_s)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_model_aggregation", "x is NULL");
    if (independent) *independent = x->model_agg_ind;
    if (collective_s) *collective_s = x->model_agg_ind >= 0 ? x->model_agg_coll : -1.0;
    return 0;
}

int colldiag_get_auto_measured(const colldiag_xfer *x, double seconds[4], unsigned calls[4], int *kind, int *chosen)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_auto_measured", "x is NULL");
    for (int k = 0; k < 4; k++) {
        if (seconds) seconds[k] = x->meas_kind ? x->meas_t[k] : -1;
        if (calls) calls[k] = x->meas_kind ? x->meas_n[k] : 0;
    }
    if (kind) *kind = x->meas_kind;
    if (chosen) *chosen = x->auto_s;
    return 0;
}

int colldiag_get_auto_aggregation_io(const colldiag_xfer *x, int *independent, double seconds[2])
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_auto_aggregation_io", "x is NULL");
    if (independent) *independent = x->meas_kind && x->meas_s == 2 ? x->meas_agg_ind : -1;
    if (seconds) {
        seconds[0] = x->meas_kind && x->meas_agg_t[0] > 0 ? x->meas_agg_t[0] : -1;
        seconds[1] = x->meas_kind && x->meas_agg_t[0] > 0 ? x->meas_agg_t[1] : -1;
    }
    return 0;
}

int colldiag_get_auto_corrected(const colldiag_xfer *x, double corrected[4])
{
    if (!x || !corrected) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_auto_corrected", "%s is NULL", x ? "corrected" : "x");
    memcpy(corrected, x->meas_kind ? x->meas_ec : x->model_est, 4 * sizeof *corrected);
    return 0;
}

int colldiag_file_get_link_rate(const colldiag_file *f, double *bytes_per_s)
{
    if (!f || !bytes_per_s) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_file_get_link_rate", "%s is NULL", f ? "bytes_per_s" : "f");
    *bytes_per_s = f->nodes > 1 ? f->bw_x : 0;
    return 0;
}

int colldiag_file_get_step_latency(const colldiag_file *f, double *seconds)
{
    if (!f || !seconds) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_file_get_step_latency", "%s is NULL", f ? "seconds" : "f");
    *seconds = f->lat_x;
    return 0;
}

void colldiag_auto_forget(void)
{
    meas_forget();
    probe_forget(); /* the link between nodes too: a cold start probes it again at the next file open */
}

void colldiag_auto_save_wisdom(void) { meas_save(); }

int colldiag_get_auto_estimate_independent(const colldiag_xfer *x, double *independent_s)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_auto_estimate_independent", "x is NULL");
    if (independent_s) *independent_s = x->auto_est[3];
    return 0;
}

const char *colldiag_scheme_reason(const colldiag_xfer *x) { return x ? xfer_reason(x) : ""; }

int colldiag_get_bytes_at_risk(const colldiag_xfer *x, uint64_t *bytes, unsigned *kinds)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_bytes_at_risk", "x is NULL");
    if (bytes) *bytes = x->risk_bytes;
    if (kinds) *kinds = x->risk_kinds;
    return 0;
}

int colldiag_get_filtered_read(const colldiag_xfer *x, uint64_t *chunks, uint64_t *stored, uint64_t *inflated, uint64_t *shared, int *known)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_filtered_read", "x is NULL");
    if (chunks) *chunks = x->filt_chunks;
    if (stored) *stored = x->filt_stored;
    if (inflated) *inflated = x->filt_raw;
    if (shared) *shared = x->filt_shared;
    if (known) *known = x->filt_known;
    return 0;
}

int colldiag_get_filtered_decoded(const colldiag_xfer *x, uint64_t *chunks, uint64_t *stored)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_filtered_decoded", "x is NULL");
    if (chunks) *chunks = x->filt_decoded;
    if (stored) *stored = x->filt_decoded_stored;
    return 0;
}

int colldiag_get_filtered_decode(const colldiag_xfer *x, uint64_t *chunks, uint64_t *stored, uint64_t *decoded, uint64_t *readers,
                                 double *seconds)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_filtered_decode", "x is NULL");
    if (chunks) *chunks = x->filt_decoded;
    if (stored) *stored = x->filt_decoded_stored;
    if (decoded) *decoded = x->filt_decoded_raw;
    if (readers) *readers = x->filt_decoded_readers;
    if (seconds) *seconds = x->filt_decode_s;
    return 0;
}

int colldiag_get_bytes_off_node(const colldiag_xfer *x, uint64_t *bytes, int *known)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_get_bytes_off_node", "x is NULL");
    if (bytes) *bytes = x->off_node_bytes;
    if (known) *known = x->nodes_known;
    return 0;
}

const char *colldiag_risk_reason(const colldiag_xfer *x) { return x && x->risk_bytes ? x->risk_why : ""; }
const char *colldiag_risk_advice(const colldiag_xfer *x) { return x && x->risk_bytes ? x->risk_adv : ""; }

int colldiag_set_plan_buffer(colldiag_xfer *x, const void *buf)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_set_plan_buffer", "x is NULL");
    x->plan_wbuf = buf;
    return 0;
}

/* --- the collective report --- */

typedef struct {
    int32_t bad, chunk_opt, io_mode, grid_rank;
    uint32_t local, global, thr, ratio0;
    uint32_t sel_io;             /* no-selection-I/O cause (HDF5 1.14's rules), 0 when none */
    uint64_t nchunks, sent;
    colldiag_counters cnt;
    uint64_t grid[COLLDIAG_MAX_RANK];
    uint64_t nds;                /* datasets of a multi-dataset call, 0 after a single call */
    uint64_t off_node;           /* data bytes the aggregation exchange sent to other nodes (x->off_node_bytes) */
    int32_t nodes_known;         /* x->nodes_known */
    int32_t node_lead;           /* the lowest rank of its node (file_nodes): the report counts nodes by these */
    int32_t filt_known, filt_read; /* a plan's HDF5 filtered read (x->filt_known); a filtered read colldiag ran */
    uint64_t filt_chunks, filt_stored, filt_raw, filt_shared; /* colldiag_get_filtered_read */
    uint64_t dec_chunks, dec_stored, dec_raw, dec_readers;    /* colldiag_get_filtered_decode */
    double dec_s;
    char reason[256];
} cd_rep_hdr;

/* One rank's results for one dataset of a multi-dataset call. */
typedef struct { int32_t chunk_opt, io_mode; uint32_t local, global; } cd_rep_ds;

/* Chunk entries the report carries in all, shared evenly by the ranks (at least one each): beyond a
   rank's share, the JSON and the table say how many it left out. A cap on the total, not on each rank,
   because rank 0 holds them all: 318 bytes an entry, so at most about 330 MB there. Each rank carried
   up to 2^20 before: bench/virtual.c found rank 0 needing 1.5 GB at 100,000 ranks of 48 chunks and
   running out of memory at 128 (3.7 GB). Up to 2^20 / P a rank, every chunk of every test's call. */
#define CD_REPORT_MAX_CHUNKS ((uint64_t)1 << 20)
static uint64_t report_share(int P)
{
    const uint64_t s = CD_REPORT_MAX_CHUNKS / (uint64_t)(P > 0 ? P : 1);
    return s ? s : 1;
}

typedef struct {
    int P;
    cd_rep_hdr *h;
    colldiag_chunk_info *ci;
    uint64_t *off;
    uint64_t nds;     /* multi-dataset call: datasets, and ds[rank * nds + dataset] on rank 0 */
    cd_rep_ds *ds;
} cd_rep;

/* The report's line for the ranks that did not use selection I/O (HDF5 1.14's rules), or nothing. */
static void report_sel_io(const cd_rep *r, FILE *out, int html)
{
    uint32_t seen = 0;
    for (int p = 0; p < r->P; p++) seen |= r->h[p].sel_io;
    if (!seen) return;
    char cs[512];
    sel_io_cause_string(seen, cs, sizeof cs);
    fprintf(out, html ? "Selection I/O (HDF5 1.14) off on rank" : "   selection I/O (HDF5 1.14) off on rank");
    int k = 0;
    for (int p = 0; p < r->P && k < 16; p++)
        if (r->h[p].sel_io) fprintf(out, "%s%d", k++ ? "," : "s ", p);
    fprintf(out, "%s: 0x%x, %s%s", k >= 16 ? ",..." : "", seen, cs, html ? ".<br>" : "\n");
}

/* The nodes the aggregation exchange crossed, when it ran (every rank knows its node then): the node
   count (ranks that lead their node), the data bytes sent between nodes and the rank that sent most. */
typedef struct { int known, nodes, most_rank; uint64_t bytes, most; } cd_rep_nodes;
static cd_rep_nodes report_nodes_of(const cd_rep *r)
{
    cd_rep_nodes n = {1, 0, 0, 0, 0};
    for (int p = 0; p < r->P; p++) {
        const cd_rep_hdr *h = &r->h[p];
        if (!h->nodes_known) { n.known = 0; return n; }
        n.nodes += h->node_lead != 0;
        n.bytes += h->off_node;
        if (h->off_node > n.most) { n.most = h->off_node; n.most_rank = p; }
    }
    n.known = r->P > 0;
    return n;
}
/* A read of filtered chunks, summed over ranks: what colldiag decoded (each chunk once, on its owner)
   and what HDF5 would have inflated (every rank selecting from a chunk), or a plan's HDF5 read. */
/* The inflate the HDF5 bridge last decoded a deflated chunk with ("libdeflate" or "zlib": h5_filters.c),
   for the report's filtered block; NULL before any. A fact of the process, alike for every call. */
static const char *cd_inflater;

typedef struct { int dec, plan; uint64_t chunks, stored, raw, hdf5, shared; double s_max, s_sum; int s_rank; } cd_rep_filt;
static cd_rep_filt report_filt_of(const cd_rep *r)
{
    cd_rep_filt f;
    memset(&f, 0, sizeof f);
    for (int p = 0; p < r->P; p++) {
        const cd_rep_hdr *h = &r->h[p];
        if (h->filt_read) {
            f.dec = 1;
            f.chunks += h->dec_chunks;
            f.stored += h->dec_stored;
            f.raw += h->dec_raw;
            f.hdf5 += h->dec_readers;
            f.s_sum += h->dec_s;
            if (h->dec_s > f.s_max) { f.s_max = h->dec_s; f.s_rank = p; }
        } else if (h->filt_known) {
            f.plan = 1;
            f.chunks += h->filt_chunks;
            f.stored += h->filt_stored;
            f.raw += h->filt_raw;
            f.shared += h->filt_shared;
        }
    }
    return f;
}
static void report_filt(const cd_rep *r, FILE *out, int html)
{
    const cd_rep_filt f = report_filt_of(r);
    const char *pre = html ? "" : "   ", *end = html ? ".<br>" : "\n";
    if (f.dec)
        fprintf(out, "%sfiltered: colldiag read %" PRIu64 " chunks whole (%" PRIu64 " bytes stored, %" PRIu64 " decoded), each decoded once by one rank; "
                     "decoding took %.6f s over all ranks (slowest rank %d: %.6f s); HDF5 would inflate them %" PRIu64 " times (once on every "
                     "rank selecting from a chunk)%s",
                pre, f.chunks, f.stored, f.raw, f.s_sum, f.s_rank, f.s_max, f.hdf5, end);
    else if (f.plan)
        fprintf(out, "%sfiltered: HDF5 reads and inflates %" PRIu64 " chunks over all ranks (%" PRIu64 " bytes stored, %" PRIu64 " inflated); %" PRIu64
                     " of those inflations are of chunks another rank inflates too%s",
                pre, f.chunks, f.stored, f.raw, f.shared, end);
}

static void report_nodes(const cd_rep *r, FILE *out)
{
    const cd_rep_nodes n = report_nodes_of(r);
    if (!n.known) return;
    fprintf(out, "   across nodes: %d node%s (MPI_COMM_TYPE_SHARED); the aggregation exchange sent %" PRIu64 " data bytes between them", n.nodes,
            n.nodes == 1 ? "" : "s", n.bytes);
    if (n.bytes) fprintf(out, " (rank %d the most: %" PRIu64 ")", n.most_rank, n.most);
    fprintf(out, "; MPI-IO's own two-phase traffic is not counted\n");
}

/* Gathers every rank's results on rank 0. Collective: every rank returns 0, or an error on every rank
   (ERR_ARG on a rank that passed x = NULL, ERR_PEER naming it on the others; ERR_NOMEM everywhere when
   rank 0 cannot hold the report). Rank 0 first says whether it can receive the headers, so that no
   gather writes past a buffer it could not allocate. */
static int report_gather(colldiag_file *f, const colldiag_xfer *x, const char *fn, cd_rep *r)
{
    memset(r, 0, sizeof *r);
    if (!f) return cd_fail(COLLDIAG_ERR_ARG, fn, "f is NULL (this rank cannot take part)");
    cd_rep_hdr me;
    memset(&me, 0, sizeof me);
    me.bad = !x;
    if (x) {
        me.chunk_opt = x->chunk_opt_done;
        me.io_mode = x->io_mode_done;
        me.grid_rank = x->grid_rank;
        memcpy(me.grid, x->grid, sizeof me.grid);
        me.local = x->local_cause;
        me.global = x->global_cause;
        me.sel_io = x->sel_io_cause;
        me.thr = x->thr;
        me.ratio0 = (uint32_t)x->ratio0;
        me.nchunks = x->nchunks;
        me.sent = x->nchunks < report_share(f->size) ? x->nchunks : report_share(f->size);
        if (me.sent && !chunks_view(x, me.sent)) me.sent = 0; /* out of memory: the report goes on without chunk lines */
        me.cnt = x->cnt;
        me.nds = x->nds;
        me.off_node = x->off_node_bytes;
        me.nodes_known = x->nodes_known;
        me.node_lead = f->node_n > 0 && f->node_ranks[0] == f->rank;
        me.filt_known = x->filt_known;
        me.filt_chunks = x->filt_chunks;
        me.filt_stored = x->filt_stored;
        me.filt_raw = x->filt_raw;
        me.filt_shared = x->filt_shared;
        me.filt_read = x->filt_read;
        me.dec_chunks = x->filt_decoded;
        me.dec_stored = x->filt_decoded_stored;
        me.dec_raw = x->filt_decoded_raw;
        me.dec_readers = x->filt_decoded_readers;
        me.dec_s = x->filt_decode_s;
        snprintf(me.reason, sizeof me.reason, "%s", xfer_reason(x));
    }
    r->P = f->size;
    /* st[0]: 0 go on, 1 a rank passed x = NULL (st[1] the first), 2 rank 0 is out of memory */
    int st[2] = {0, -1};
    if (f->rank == 0) {
        r->h = cd_calloc((size_t)r->P, sizeof *r->h);
        r->off = cd_calloc((size_t)r->P + 1, sizeof *r->off);
        if (!r->h || !r->off) st[0] = 2;
    }
    MPI_Bcast(st, 2, MPI_INT, 0, f->comm);
    const int gathered = st[0] == 0; /* agreed: every rank takes the same steps below */
    if (gathered) MPI_Gather(&me, (int)sizeof me, MPI_BYTE, r->h, (int)sizeof me, MPI_BYTE, 0, f->comm);
    int *cnt = NULL, *dsp = NULL;
    uint64_t total = 0;
    if (f->rank == 0 && gathered) {
        for (int i = 0; i < r->P; i++) {
            r->off[i] = total;
            total += r->h[i].sent;
            if (r->h[i].bad && st[0] == 0) { st[0] = 1; st[1] = i; }
        }
        r->off[r->P] = total;
        if (st[0] == 0) {
            cnt = cd_malloc((size_t)r->P * sizeof *cnt);
            dsp = cd_malloc((size_t)r->P * sizeof *dsp);
            r->ci = cd_malloc((size_t)(total ? total : 1) * sizeof *r->ci);
            if (!cnt || !dsp || !r->ci || total * sizeof *r->ci > (uint64_t)INT_MAX) st[0] = 2;
        }
        for (int i = 0; i < r->P && st[0] == 0; i++) {
            cnt[i] = (int)(r->h[i].sent * sizeof *r->ci);
            dsp[i] = (int)(r->off[i] * sizeof *r->ci);
        }
    }
    /* rank 0 tells everyone whether the chunk lists can follow, so nobody blocks in a Gatherv alone */
    if (gathered) MPI_Bcast(st, 2, MPI_INT, 0, f->comm);
    int rc = 0;
    if (st[0] == 0)
        MPI_Gatherv(x && me.sent ? (void *)x->chunks : (void *)&me, (int)(me.sent * sizeof *r->ci), MPI_BYTE, r->ci, cnt, dsp, MPI_BYTE, 0,
                    f->comm);
    else if (st[0] == 1)
        rc = !x ? cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL (this rank's results cannot be reported)")
                : cd_fail(COLLDIAG_ERR_PEER, fn, "rank %d passed x = NULL", st[1]);
    else
        rc = cd_fail(COLLDIAG_ERR_NOMEM, fn, "gathering the report on rank 0");
    cd_free(cnt);
    cd_free(dsp);
    /* a multi-dataset call: every rank's results per dataset (rank 0's count; a rank whose own
       differs, passing another call's xfer, sends empty rows) */
    if (st[0] == 0) {
        uint64_t nd = f->rank == 0 ? r->h[0].nds : 0;
        if (f->rank == 0 && nd && !(r->ds = cd_calloc((size_t)(nd * (uint64_t)r->P), sizeof *r->ds))) nd = 0;
        if (nd * (uint64_t)r->P * sizeof *r->ds > (uint64_t)INT_MAX) nd = 0;
        MPI_Bcast(&nd, 1, MPI_UINT64_T, 0, f->comm);
        r->nds = nd;
        if (nd) {
            cd_rep_ds *mine = cd_calloc((size_t)nd, sizeof *mine);
            for (uint64_t d = 0; mine && x && x->nds == nd && d < nd; d++) {
                mine[d].chunk_opt = x->dsr[d].chunk_opt;
                mine[d].io_mode = x->dsr[d].io_mode;
                mine[d].local = x->dsr[d].local_cause;
                mine[d].global = x->dsr[d].global_cause;
            }
            int ok = mine != NULL, all = 0; /* nobody may be left alone in the gather */
            MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
            if (all) MPI_Gather(mine, (int)(nd * sizeof *mine), MPI_BYTE, r->ds, (int)(nd * sizeof *mine), MPI_BYTE, 0, f->comm);
            else r->nds = 0;
            cd_free(mine);
        }
    }
    return rc;
}

static void report_free(cd_rep *r)
{
    cd_free(r->ds);
    cd_free(r->h);
    cd_free(r->ci);
    cd_free(r->off);
}

/* A gathered chunk entry reduced to what counting distinct chunks needs, and its order. */
typedef struct { uint64_t index; int coll; } cd_rep_idx;
static int rep_idx_cmp(const void *a, const void *b)
{
    const cd_rep_idx *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* Ranks touching chunk idx, from the gathered lists (exact whatever the scheme computed). */
static int report_nranks(const cd_rep *r, uint64_t idx, int *coll)
{
    int n = 0;
    *coll = 0;
    for (int p = 0; p < r->P; p++) {
        uint64_t lo = r->off[p], hi = r->off[p + 1];
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (r->ci[mid].index < idx) lo = mid + 1;
            else hi = mid;
        }
        if (lo < r->off[p + 1] && r->ci[lo].index == idx) {
            n++;
            *coll |= r->ci[lo].collective;
        }
    }
    return n;
}

static void chunk_reason(const cd_rep_hdr *h, const colldiag_chunk_info *c, int P, char *buf, size_t len)
{
    if (h->chunk_opt == COLLDIAG_MPIO_LINK_CHUNK) snprintf(buf, len, "collective: link-chunk moves all chunks together (one collective call a round)");
    else if (h->chunk_opt == COLLDIAG_MPIO_CHUNK_AGGREGATE)
        snprintf(buf, len, "collective: aggregated, rank %d of the %d touching it moves the chunk", c->owner, c->nproc);
    else if (h->chunk_opt == COLLDIAG_MPIO_ALL_CHUNK_IND) snprintf(buf, len, "independent: all-independent scheme");
    else if (h->chunk_opt == COLLDIAG_MPIO_MULTI_CHUNK_NO_OPT)
        snprintf(buf, len, "%s: %s", c->collective ? "collective" : "independent",
                 c->collective ? "within the fewest-chunks rounds" : "beyond the fewest-chunks rounds");
    else if (h->chunk_opt == COLLDIAG_MPIO_MULTI_CHUNK || h->chunk_opt == COLLDIAG_MPIO_COLL_CHUNK_ATONCE) {
        if (h->ratio0) snprintf(buf, len, "collective: ratio 0 makes every chunk collective");
        else snprintf(buf, len, "%s: %d of %d ranks %s threshold %u", c->collective ? "collective" : "independent", c->nproc, P,
                      c->collective ? ">" : "<=", h->thr);
    } else {
        char cs[200];
        colldiag_cause_string(h->global, cs, sizeof cs);
        snprintf(buf, len, "independent: no collective I/O (%s)", h->global ? cs : "contiguous");
    }
}

/* The chunk grid's rank for a chunk line: its dataset's in a multi-dataset call (the layouts are
   agreed, so rank 0's own results know every dataset's grid), else the rank's. */
static int rep_grid_rank(const cd_rep *r, const colldiag_xfer *x, int p, const colldiag_chunk_info *c)
{
    if (r->nds && x->nds == r->nds && c->dataset >= 0 && (uint64_t)c->dataset < x->nds) return x->dsr[c->dataset].grid_rank;
    return r->h[p].grid_rank;
}

/* A multi-dataset call's datasets, one line each (per rank when the ranks differ), capped. */
static void report_print_datasets(const cd_rep *r, FILE *out)
{
    if (!r->nds) return;
    fprintf(out, "   %" PRIu64 " datasets in this call (chunk optimization / io mode, local/global causes, as each one's single call):\n", r->nds);
    for (uint64_t d = 0; d < r->nds && d < 64; d++) {
        const cd_rep_ds *a = &r->ds[d];
        int same = 1;
        for (int p = 1; p < r->P; p++) same &= !memcmp(&r->ds[(uint64_t)p * r->nds + d], a, sizeof *a);
        fprintf(out, "     dataset %" PRIu64 ":", d);
        for (int p = 0; p < (same ? 1 : r->P) && p < 16; p++) {
            const cd_rep_ds *b = &r->ds[(uint64_t)p * r->nds + d];
            char cs[256] = "";
            if (b->global) {
                cs[0] = ' ';
                cs[1] = '(';
                colldiag_cause_string(b->global, cs + 2, sizeof cs - 3);
                strcat(cs, ")");
            }
            if (!same) fprintf(out, "%s rank %d", p ? ";" : "", p);
            fprintf(out, " %s / %s, 0x%x/0x%x%s", colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)b->chunk_opt),
                    colldiag_io_mode_name((colldiag_actual_io_mode_t)b->io_mode), b->local, b->global, cs);
        }
        if (same && r->P > 1) fprintf(out, " (every rank)");
        if (!same && r->P > 16) fprintf(out, "; ...");
        fprintf(out, "\n");
    }
    if (r->nds > 64) fprintf(out, "     ... %" PRIu64 " more datasets (see the JSON report)\n", r->nds - 64);
}

int colldiag_report_print(colldiag_file *f, const colldiag_xfer *x, FILE *out)
{
    static const char fn[] = "colldiag_report_print";
    cd_rep r;
    int rc = report_gather(f, x, fn, &r);
    if (rc || f->rank != 0 || !out) { report_free(&r); return rc; }
    const cd_rep_hdr *h0 = &r.h[0];
    fprintf(out, "== colldiag %s report: %d rank%s, chunk optimization %s\n", colldiag_version(), r.P, r.P > 1 ? "s" : "",
            colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h0->chunk_opt));
    fprintf(out, "   why: %s\n", h0->reason[0] ? h0->reason : "(no transfer yet)");
    fprintf(out, "   rank  chunk_opt              io_mode                local    global   coll.bytes    ind.bytes  coll.calls  ind.calls  map+decide/io ms\n");
    for (int p = 0; p < r.P; p++) {
        const cd_rep_hdr *h = &r.h[p];
        fprintf(out, "   %4d  %-21s  %-21s  0x%-5x  0x%-5x  %10" PRIu64 "  %11" PRIu64 "  %10" PRIu64 "  %9" PRIu64 "  %.3f/%.3f\n", p,
                colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h->chunk_opt),
                colldiag_io_mode_name((colldiag_actual_io_mode_t)h->io_mode), h->local, h->global, h->cnt.bytes_collective,
                h->cnt.bytes_independent, h->cnt.calls_collective, h->cnt.calls_independent, 1e3 * (h->cnt.t_map + h->cnt.t_decide),
                1e3 * h->cnt.t_io);
    }
    if (x->planned) fprintf(out, "   (a plan: the bytes and calls are those the planned transfer makes; nothing moved)\n");
    /* causes, and which ranks raised them */
    uint32_t seen = 0;
    for (int p = 0; p < r.P; p++) seen |= r.h[p].local;
    if (seen) {
        char cs[512];
        for (uint32_t bit = 1; bit; bit <<= 1) {
            if (!(seen & bit)) continue;
            colldiag_cause_string(bit, cs, sizeof cs);
            fprintf(out, "   cause 0x%x (%s) raised by rank", bit, cs);
            int k = 0;
            for (int p = 0; p < r.P && k < 16; p++)
                if (r.h[p].local & bit) fprintf(out, "%s%d", k++ ? "," : "s ", p);
            fprintf(out, "%s\n", k >= 16 ? ",..." : "");
        }
    } else {
        fprintf(out, "   causes: none, collective I/O was possible\n");
    }
    report_sel_io(&r, out, 0);
    if (x->risk_bytes) fprintf(out, "   bytes at risk: %" PRIu64 " (%s)\n   to keep them: %s\n", x->risk_bytes, x->risk_why, x->risk_adv);
    report_nodes(&r, out);
    report_filt(&r, out, 0);
    report_print_datasets(&r, out);
    /* per-chunk truth, capped so a huge run stays readable */
    uint64_t shown = 0, total = 0;
    for (int p = 0; p < r.P; p++) {
        total += r.h[p].nchunks; /* beyond a rank's share (report_share), its lines were not carried */
        for (uint64_t i = r.off[p]; i < r.off[p + 1] && shown < 64; i++, shown++) {
            const colldiag_chunk_info *c = &r.ci[i];
            char why[256], co[128];
            int w = 0;
            co[0] = 0;
            for (int d = 0; d < rep_grid_rank(&r, x, p, c) && w < 100; d++) w += snprintf(co + w, sizeof co - (size_t)w, "%s%" PRIu64, d ? "," : "", c->coords[d]);
            chunk_reason(&r.h[p], c, r.P, why, sizeof why);
            char ds[32] = "";
            if (r.nds) snprintf(ds, sizeof ds, "dataset %d ", c->dataset);
            fprintf(out, "   rank %d %schunk %" PRIu64 " (%s) @%lld: %" PRIu64 " elements, %s\n", p, ds, c->index, co, (long long)c->addr,
                    c->nelem, why);
        }
    }
    if (total > shown) fprintf(out, "   ... %" PRIu64 " more rank/chunk lines (see the JSON report)\n", total - shown);
    /* the map of the chunk grid */
    int gr = h0->grid_rank;
    for (int p = 1; p < r.P && !gr; p++) gr = r.h[p].grid_rank;
    const uint64_t *g = NULL;
    for (int p = 0; p < r.P && !g; p++)
        if (r.h[p].grid_rank) g = r.h[p].grid;
    if (g && (gr == 1 || gr == 2)) {
        uint64_t rows = gr == 2 ? g[0] : 1, cols = gr == 2 ? g[1] : g[0];
        if (rows <= 32 && cols <= 32) {
            fprintf(out, "   chunk map (C collective, I independent, . untouched; digit = ranks touching it, + for 10 or more):\n");
            for (uint64_t i = 0; i < rows; i++) {
                fprintf(out, "     ");
                for (uint64_t j = 0; j < cols; j++) {
                    int coll, n = report_nranks(&r, i * cols + j, &coll);
                    if (!n) fprintf(out, " . ");
                    else fprintf(out, " %c%c", coll ? 'C' : 'I', n < 10 ? '0' + n : '+');
                }
                fprintf(out, "\n");
            }
        } else {
            uint64_t nc = 0, ni = 0, nt = 0;
            /* distinct touched chunks: every rank's entries sorted by index, then counted in one pass.
               O(T log T) for T gathered entries; it was a search of every earlier rank's list for each
               entry, O(T P log), which bench/virtual.c found taking 1.3 s on rank 0 at 1,000 ranks (B1:
               48 chunks a rank) and so hours at 100,000 */
            const uint64_t T = r.off[r.P];
            cd_rep_idx *ix = cd_malloc((size_t)(T ? T : 1) * sizeof *ix);
            for (uint64_t i = 0; ix && i < T; i++) ix[i] = (cd_rep_idx){r.ci[i].index, r.ci[i].collective != 0};
            if (ix) qsort(ix, (size_t)T, sizeof *ix, rep_idx_cmp);
            for (uint64_t i = 0; ix && i < T;) {
                int coll = 0;
                const uint64_t idx = ix[i].index;
                for (; i < T && ix[i].index == idx; i++) coll |= ix[i].coll;
                nt++;
                if (coll) nc++; else ni++;
            }
            if (!ix) fprintf(out, "   (no memory to count the %" PRIu64 " chunk entries)\n", T);
            cd_free(ix);
            fprintf(out, "   chunk map omitted (%" PRIu64 " x %" PRIu64 " chunks): %" PRIu64 " touched, %" PRIu64 " collective, %" PRIu64
                         " independent%s\n", rows, cols, nt, nc, ni, total > T ? " (among the chunk entries the report carries)" : "");
        }
    }
    fflush(out);
    report_free(&r);
    return 0;
}

static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

int colldiag_report_json(colldiag_file *f, const colldiag_xfer *x, FILE *out)
{
    static const char fn[] = "colldiag_report_json";
    cd_rep r;
    int rc = report_gather(f, x, fn, &r);
    if (rc || f->rank != 0 || !out) { report_free(&r); return rc; }
    fprintf(out, "{\"colldiag\":\"%s\",\"nprocs\":%d,\"scheme\":{\"chunk_opt\":\"%s\",\"reason\":", colldiag_version(), r.P,
            colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)r.h[0].chunk_opt));
    json_str(out, r.h[0].reason);
    if (x->meas_kind) { /* AUTO that measures (measure.c): alike on every rank, so rank 0's is the call's */
        static const char *const kinds[6] = {"", "first call", "measured best", "trying", "measured best, trying independent owners' I/O",
                                             "measured best, owners' I/O the other way again"};
        fprintf(out, ",\"auto\":{\"kind\":\"%s\",\"measured\":{", kinds[x->meas_kind]);
        for (int k = 0, any = 0; k < 4; k++)
            if (x->meas_n[k]) fprintf(out, "%s\"%s\":{\"seconds\":%.9g,\"calls\":%u}", any++ ? "," : "", cd_meas_name[k], x->meas_t[k], x->meas_n[k]);
        fprintf(out, "},\"estimates\":{\"link\":%.6g,\"multi\":%.6g,\"aggregation\":%.6g,\"independent\":%.6g}", x->meas_ec[0], x->meas_ec[1],
                x->meas_ec[2], x->meas_ec[3]);
        if (x->meas_link > 0) fprintf(out, ",\"link_between_nodes_Bps\":%.6g", x->meas_link);
        if (x->meas_step > 0) fprintf(out, ",\"collective_step_s\":%.6g", x->meas_step);
        if (x->meas_s == 2)
            fprintf(out, ",\"aggregation_owners_io\":\"%s\"", x->meas_agg_ind ? "independent" : "collective");
        if (x->meas_agg_t[0] > 0)
            fprintf(out, ",\"aggregation_owners_measured\":{\"collective\":%.9g,\"independent\":%.9g}", x->meas_agg_t[0], x->meas_agg_t[1]);
        fprintf(out, "}");
    }
    /* a plan's bytes and calls are what the planned transfer would make; nothing moved */
    fprintf(out, "},\"counters\":\"%s\",\"ranks\":[", x->planned ? "planned" : "moved");
    for (int p = 0; p < r.P; p++) {
        const cd_rep_hdr *h = &r.h[p];
        fprintf(out, "%s{\"rank\":%d,\"chunk_opt\":\"%s\",\"io_mode\":\"%s\",\"local_cause\":%u,\"global_cause\":%u,", p ? "," : "", p,
                colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)h->chunk_opt), colldiag_io_mode_name((colldiag_actual_io_mode_t)h->io_mode),
                h->local, h->global);
        if (h->sel_io) fprintf(out, "\"no_selection_io_cause\":%u,", h->sel_io);
        if (h->nodes_known) fprintf(out, "\"bytes_off_node\":%" PRIu64 ",", h->off_node);
        if (h->filt_read)
            fprintf(out, "\"filtered_decoded\":{\"chunks\":%" PRIu64 ",\"stored_bytes\":%" PRIu64 ",\"decoded_bytes\":%" PRIu64
                         ",\"hdf5_inflations\":%" PRIu64 ",\"seconds\":%.9f},",
                    h->dec_chunks, h->dec_stored, h->dec_raw, h->dec_readers, h->dec_s);
        else if (h->filt_known)
            fprintf(out, "\"filtered_read\":{\"chunks\":%" PRIu64 ",\"stored_bytes\":%" PRIu64 ",\"inflated_bytes\":%" PRIu64 ",\"shared\":%" PRIu64 "},",
                    h->filt_chunks, h->filt_stored, h->filt_raw, h->filt_shared);
        fprintf(out, "\"bytes_collective\":%" PRIu64 ",\"bytes_independent\":%" PRIu64 ",\"calls_collective\":%" PRIu64
                     ",\"calls_independent\":%" PRIu64 ",\"t_map\":%.9f,\"t_decide\":%.9f,\"t_io\":%.9f,\"chunks_omitted\":%" PRIu64 ",\"chunks\":[",
                h->cnt.bytes_collective, h->cnt.bytes_independent, h->cnt.calls_collective, h->cnt.calls_independent, h->cnt.t_map,
                h->cnt.t_decide, h->cnt.t_io, h->nchunks - h->sent);
        for (uint64_t i = r.off[p]; i < r.off[p + 1]; i++) {
            const colldiag_chunk_info *c = &r.ci[i];
            fprintf(out, "%s{\"index\":%" PRIu64 ",\"coords\":[", i > r.off[p] ? "," : "", c->index);
            for (int d = 0; d < rep_grid_rank(&r, x, p, c); d++) fprintf(out, "%s%" PRIu64, d ? "," : "", c->coords[d]);
            fprintf(out, "],\"addr\":%lld,\"nelem\":%" PRIu64 ",\"nproc\":%d,\"collective\":%s,\"owner\":%d", (long long)c->addr, c->nelem,
                    c->nproc, c->collective ? "true" : "false", c->owner);
            if (r.nds) fprintf(out, ",\"dataset\":%d", c->dataset);
            fprintf(out, "}");
        }
        fprintf(out, "]}");
    }
    fprintf(out, "]");
    const cd_rep_nodes nn = report_nodes_of(&r);
    if (nn.known) fprintf(out, ",\"nodes\":%d,\"bytes_off_node\":%" PRIu64, nn.nodes, nn.bytes);
    const cd_rep_filt ft = report_filt_of(&r);
    if (ft.dec)
        fprintf(out, ",\"filtered\":{\"engine\":\"colldiag\",\"chunks\":%" PRIu64 ",\"stored_bytes\":%" PRIu64 ",\"decoded_bytes\":%" PRIu64
                     ",\"decodes\":%" PRIu64 ",\"hdf5_inflations\":%" PRIu64 ",\"seconds\":%.9f,\"seconds_slowest_rank\":%.9f%s%s%s}",
                ft.chunks, ft.stored, ft.raw, ft.chunks, ft.hdf5, ft.s_sum, ft.s_max, cd_inflater ? ",\"inflater\":\"" : "",
                cd_inflater ? cd_inflater : "", cd_inflater ? "\"" : "");
    else if (ft.plan)
        fprintf(out, ",\"filtered\":{\"engine\":\"hdf5\",\"chunk_inflations\":%" PRIu64 ",\"stored_bytes\":%" PRIu64 ",\"inflated_bytes\":%" PRIu64
                     ",\"shared\":%" PRIu64 "}",
                ft.chunks, ft.stored, ft.raw, ft.shared);
    fprintf(out, ",\"bytes_at_risk\":%" PRIu64 ",\"risk\":", x->risk_bytes);
    json_str(out, colldiag_risk_reason(x));
    if (x->risk_bytes) {
        fprintf(out, ",\"risk_advice\":");
        json_str(out, x->risk_adv);
    }
    if (x->accel && x->engine_rule < CD_RULE_N) fprintf(out, ",\"engine_rule\":\"%s\"", engine_rule_name(x->engine_rule));
    if (r.nds) { /* a multi-dataset call: each dataset, each rank's results for it */
        fprintf(out, ",\"datasets\":[");
        for (uint64_t d = 0; d < r.nds; d++) {
            fprintf(out, "%s{\"dataset\":%" PRIu64 ",\"ranks\":[", d ? "," : "", d);
            for (int p = 0; p < r.P; p++) {
                const cd_rep_ds *b = &r.ds[(uint64_t)p * r.nds + d];
                fprintf(out, "%s{\"chunk_opt\":\"%s\",\"io_mode\":\"%s\",\"local_cause\":%u,\"global_cause\":%u}", p ? "," : "",
                        colldiag_chunk_opt_name((colldiag_actual_chunk_opt_mode_t)b->chunk_opt),
                        colldiag_io_mode_name((colldiag_actual_io_mode_t)b->io_mode), b->local, b->global);
            }
            fprintf(out, "]}");
        }
        fprintf(out, "]");
    }
    fprintf(out, "}\n");
    fflush(out);
    report_free(&r);
    return 0;
}
