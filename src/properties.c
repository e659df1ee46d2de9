/* ====================================================================================================
 * 5. transfer properties
 * ==================================================================================================== */

/* Names of the chunk optimisation settings accepted by COLLDIAG_CHUNK_OPT, indexed by the enum value. */
static const char *const cd_chunk_opt_env[] = {"default", "link", "multi", "atonce", "ind", "multi_no_opt",
                                               "aggregate", "auto"};

typedef struct {
    int mode;                   /* colldiag_xfer_mode_t */
    int chunk_opt;              /* colldiag_chunk_opt_t */
    unsigned num, ratio;
    int coll_opt;
    int opt_types_disabled;     /* env COLLDIAG_MPI_OPT_TYPES / HDF5_MPI_OPT_TYPES starts with 0 */
    unsigned pack_run;          /* env COLLDIAG_PACK_RUN_BYTES (0: never pack); a local choice, not agreed */
    uint64_t coll_buf;          /* collective buffer, bytes >= 1 (env COLLDIAG_COLL_BUFFER); agreed */
    double k[CD_K_N];           /* AUTO's constants (env COLLDIAG_AUTO_*); agreed */
    int rules;                  /* colldiag_hdf5_rules_t: whose decisions DEFAULT reproduces (env COLLDIAG_HDF5_RULES); agreed */
    int sel_io;                 /* colldiag_selection_io_t, under 1.14's rules; agreed */
    int auto_measure;           /* AUTO learns from measured calls (measure.c; env COLLDIAG_AUTO_MODE=measure|estimate); agreed */
    const char *chunk_opt_src;  /* "setting", "default" or the env text */
    char env_text[96];
} cd_settings;

struct colldiag_xfer {
    cd_settings set;            /* what the code set (env applied per call into a copy) */
    size_t mem_esize;
    colldiag_convert_fn conv;
    void *conv_ctx;
    colldiag_transform_fn xform;
    void *xform_ctx;
    size_t bufsize;
    /* results of the last call */
    int chunk_opt_done, io_mode_done;
    uint32_t local_cause, global_cause;
    uint32_t sel_io_cause;                /* this rank's reasons for no selection I/O (1.14's rules), H5D_SEL_IO_* */
    int64_t chunk_cache;                  /* HDF5's chunk cache for the dataset, bytes (-1: HDF5's default, 1 MiB) */
    colldiag_chunk_info *chunks;          /* materialised on demand from pcs (about 300 bytes a chunk) */
    uint64_t nchunks, chunks_cap, chunks_ready;
    void *pcs;                            /* the last call's cd_piece array (56 bytes a chunk), kept */
    uint64_t data_buf_bytes;              /* most bytes of data copies (packing, aggregation) alive at once in
                                             the last call: what bench subtracts to see the per-chunk cost */
    uint64_t pcs_cap;
    uint64_t pf_bytes;                    /* bytes of the read's destination populated before it (memory.c), this rank */
    colldiag_counters cnt;
    char reason[384];                     /* read through xfer_reason: AUTO's may not be formatted yet */
    int reads_solo;                       /* the read guard made the collective reads independent (1; 2 once the
                                             reason says so: xfer_reason) */
    /* AUTO's reason (four estimates as %.3g, ~3 us a call: a twentieth of a small read) is formatted
       when something asks for it (xfer_reason), from auto_est and these; rz_auto 0: reason is final */
    int rz_auto, rz_P, rz_opt;
    uint64_t rz_runs, rz_chunks;
    size_t rz_nsub;                       /* 0: one dataset; else AUTO over rz_nsub datasets */
    char errmsg[1024];
    int grid_rank;                        /* chunk grid of the last call, for the report's map */
    uint64_t grid[COLLDIAG_MAX_RANK];
    unsigned thr;                         /* per-chunk threshold of the last multi/at-once call (0: none) */
    int ratio0;                           /* ratio 0: every chunk collective */
    double auto_est[4];                   /* AUTO's estimates (link, multi, aggregation, all-independent), -1 when not AUTO */
    double model_est[4];                  /* the same model for every collective chunked call, whatever ran; -1 otherwise */
    double model_term[4][4];              /* model_est term by term (measure.c's CD_T_*: rounds, bytes between ranks, collective
                                             MPI-IO, independent I/O); -1 where model_est is */
    int model_agg_ind;                    /* the model's way for aggregation's owners' runs: 1 independent calls (across nodes, where
                                             they are estimated cheaper than a collective call's shuffle), 0 collective, -1 none */
    double model_agg_coll;                /* aggregation's estimate by collective owners' calls (model_est[2] is the cheaper way's) */
    /* AUTO that measures (measure.c), the last call: 0 the model alone, 1 the pattern's first call (the corrected
       model), 2 the measured best, 3 trying a scheme not measured yet, 4 the measured best (aggregation) trying its
       owners' runs by independent calls; each scheme's median agreed time (-1
       none), calls measured, corrected estimate; the pattern */
    int meas_kind, meas_s;
    int auto_s;                           /* the scheme AUTO ran (0 link .. 3 all-independent), -1: not AUTO */
    int meas_agg_ind;                     /* ... aggregation, its owners' runs moved by independent calls (kind 4: tried; else kept) */
    double meas_agg_t[2];                 /* the pattern's aggregation by collective calls (median) and by independent ones (0: not tried) */
    double meas_t[4], meas_ec[4];
    double meas_term[4];                  /* the chosen scheme's estimate, term by term (measure.c's CD_T_*) */
    double meas_link;                     /* the link between nodes the model used, B/s, probed (files.c); 0: not probed */
    double meas_step;                     /* a collective step's seconds the model used, probed (files.c); 0: not probed */
    /* the preload's engine, measured (measure.c, meas_engine_choose): 0 not, 1 the rule (first calls), 2 the
       measured faster, 3 trying the other; its choice (0 HDF5's path, 1 colldiag's); each engine's fastest
       agreed time (-1 none) and calls; the pattern and group the time goes to */
    int eng_kind, eng_choice;
    double eng_t[2];
    uint32_t eng_n[2];
    uint64_t eng_sig, eng_group;
    uint32_t meas_n[4];
    uint64_t meas_sig;
    int planned;                          /* the last call was a plan: the counters are what it would move */
    /* HDF5 bridge (colldiag_h5_write/read), consumed by the next transfer: a rank that found its call
       ineligible (or waits for the chunk index) fails with pre_code in the first reduction, like a bad
       argument, so that every rank leaves before any byte moves; bridge_global is the BOR of AG_BRIDGE.
       A rank waiting for the index also sends the bytes its call moves (pre_bytes, into AG_MAX_BYTES:
       bridge_max_bytes), how many calls HDF5 already ran rather than flush (pre_defers, capped at 15,
       in AG_BRIDGE's bits 4-7) and whether flushing its file may write anything (pre_flush_writes bit 0:
       the file is open for writing; AG_BRIDGE's bit 8) or may leave HDF5's own later calls hanging (bit 1:
       h5_flush_unsafe; AG_BRIDGE's bit 9), so that deciding whether to read the index costs no
       reduction of its own */
    int pre_code, pre_need_index, pre_flush_writes, strict_alloc;
    char pre_msg[512];
    uint64_t bridge_global, pre_bytes, pre_defers, bridge_max_bytes;
    /* What the environment decides for every rank together is rank 0's, carried in the first reduction
       (agree_env): a variable set on some ranks only (mpirun passes a shell's variables to the ranks on
       its own node, not to the others, unless told with -x) must not make some ranks gather a report or
       flush a file while the others do not. env_fetch_*: this rank's thresholds (the bridge sets them
       before its transfer); fetch_* and report_kind: rank 0's, after a collective call's reduction. */
    uint64_t env_fetch_bytes, env_fetch_calls, fetch_bytes, fetch_calls;
    int report_kind;                      /* rank 0's COLLDIAG_REPORT: 0 none (and before any agreement), 1 text, 2 json:, 3 html: */
    /* multi-dataset calls: each dataset's results (NULL after a single call, whose results are the call's) */
    struct cd_dsres *dsr;
    size_t nds, dsr_cap;
    int peer_code;                        /* a multi-dataset call failed with ERR_PEER: the failing rank's code */
    /* The HDF5 preload under COLLDIAG_ACCELERATE=1 (0 otherwise, and for every caller of the API): a
       collective write of whole chunks, each rank's own, whose busiest rank moves at least this many
       bytes fails on every rank alike with COLLDIAG_ERR_UNSUPPORTED ("HDF5's path is as fast here"),
       decided on the agreed values before a byte moves, so that HDF5 runs it (COLLDIAG_ACCEL_WHOLE_BYTES) */
    uint64_t hdf5_as_fast_bytes;
    /* The HDF5 preload under COLLDIAG_ACCELERATE=1 (0 otherwise): a collective read of a contiguous
       dataset in which every rank reads one stretch of at least this many bytes, or nothing, runs as
       one independent read a rank; any other collective contiguous read fails on every rank alike with
       COLLDIAG_ERR_UNSUPPORTED ("HDF5's path is as fast here"), so that HDF5 runs it
       (COLLDIAG_ACCEL_STRETCH_BYTES) */
    uint64_t read_stretch_bytes;
    /* The bytes at risk of HDF5's own path in the last write (decision.c, risk_agreed; colldiag_get_bytes_at_risk),
       agreed in a collective call; the words are formatted only when some are */
    uint64_t risk_bytes, risk_ranks;      /* ranks: bit r for rank r < 63, bit 63 for any other */
    /* a planned read of filtered chunks (the HDF5 bridge, h5_filtered_facts): what HDF5 will read and
       inflate on this rank; filt_known 0: not known (not such a plan, or HDF5 could not say) */
    int filt_known;
    uint64_t filt_chunks, filt_stored, filt_raw, filt_shared;
    /* a read of filtered chunks colldiag ran (aggregation.c): the chunks this rank decoded as an owner,
       their stored bytes, the bytes they decoded to, the ranks that selected from them (each of which
       HDF5 would have had inflate the chunk) and the seconds the decoding took; each chunk is decoded
       once, on one rank */
    int filt_read;                        /* the last call read filtered chunks through colldiag (decision.c) */
    uint64_t filt_decoded, filt_decoded_stored, filt_decoded_raw, filt_decoded_readers;
    double filt_decode_s;
    uint64_t compact_kept, compact_file_bytes; /* colldiag_h5_write_compact: the merged pieces' bytes, the dataset's */
    /* Data bytes the last call's aggregation exchange sent from this rank to ranks on other nodes
       (colldiag_get_bytes_off_node); nodes_known 1 once the call's exchange knew the nodes (file_nodes) */
    uint64_t off_node_bytes;
    int nodes_known;
    unsigned risk_kinds;                  /* COLLDIAG_RISK_* */
    char risk_why[768], risk_adv[320];
    const void *plan_wbuf;                /* colldiag_set_plan_buffer: the next plan's data (compact digests) */
    /* The HDF5 preload under COLLDIAG_ACCELERATE (0 for every other caller): 1 for =1's rules, 2 for =all;
       a collective call then ends with the engine's rule on the agreed facts (engine.c, accel_rule), and
       engine_rule says which rule let colldiag move the call (CD_RULE_N: none decided) */
    int accel, engine_rule;
    /* HDF5's own path for the call, as the model sees it (decision.c, exec_chunked): the scheme HDF5 runs
       (0 link, 1 multi; -1 not a chunked collective call) and the model's seconds for it; the bridge
       tells the DXPL's chunk optimisation (h5_opt, h5_opt_set) before colldiag's own scheme replaces it */
    int hdf5_scheme, h5_opt, h5_opt_set;
    double hdf5_est;
};

/* One dataset's results in a multi-dataset call: what a single call of that dataset reports. */
typedef struct cd_dsres {
    int chunk_opt, io_mode;
    uint32_t local_cause, global_cause;
    int grid_rank;                          /* its chunk grid, for the chunk info's coordinates */
    uint64_t grid[COLLDIAG_MAX_RANK];
    uint64_t nchunks;                       /* pieces this rank has in it */
} cd_dsres;

/* A transfer's defaults (HDF5's DXPL defaults), on storage the caller owns: colldiag_xfer_create's, and
   the preload's one transfer per intercepted call, which must not depend on an allocation that could
   fail on one rank (that rank would run HDF5's collective call while the others wait in colldiag's). */
static void xfer_init(colldiag_xfer *x)
{
    memset(x, 0, sizeof *x);
    x->set.mode = COLLDIAG_MPIO_INDEPENDENT;
    x->set.chunk_opt = COLLDIAG_MPIO_CHUNK_DEFAULT;
    x->set.num = 0;      /* HDF5's H5D_ONE_LINK_CHUNK_IO_THRESHOLD default */
    x->set.ratio = 60;   /* HDF5's H5D_MULTI_CHUNK_IO_COL_THRESHOLD default */
    x->set.coll_opt = COLLDIAG_MPIO_COLLECTIVE_IO;
    x->bufsize = CD_DEFAULT_BUFFER;
    x->set.coll_buf = COLLDIAG_COLL_BUFFER_BYTES;
    x->set.rules = COLLDIAG_HDF5_RULES_1_10; /* SPEC.md's contract; the bridge follows the HDF5 it runs with */
    x->set.sel_io = COLLDIAG_SELECTION_IO_DEFAULT;
    x->set.auto_measure = 1;
    x->chunk_cache = -1;
    x->auto_est[0] = x->auto_est[1] = x->auto_est[2] = x->auto_est[3] = -1.0;
    x->model_est[0] = x->model_est[1] = x->model_est[2] = x->model_est[3] = -1.0;
    x->model_agg_ind = -1;
    x->model_agg_coll = -1.0;
}

/* What a transfer holds from its last call (chunk info, pieces, per-dataset results). */
static void xfer_release(colldiag_xfer *x)
{
    cd_free(x->chunks);
    cd_free(x->pcs);
    cd_free(x->dsr);
    x->chunks = NULL;
    x->pcs = NULL;
    x->dsr = NULL;
}

int colldiag_xfer_create(colldiag_xfer **out)
{
    static const char fn[] = "colldiag_xfer_create";
    if (!out) return cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    colldiag_xfer *x = cd_malloc(sizeof *x);
    if (!x) return cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the transfer properties");
    xfer_init(x);
    *out = x;
    return 0;
}

void colldiag_xfer_free(colldiag_xfer *x)
{
    if (!x) return;
    xfer_release(x);
    cd_free(x);
}

int colldiag_set_auto_measure(colldiag_xfer *x, int on)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_set_auto_measure", "x is NULL");
    x->set.auto_measure = on != 0;
    return 0;
}

int colldiag_set_dxpl_mpio(colldiag_xfer *x, colldiag_xfer_mode_t mode)
{
    static const char fn[] = "colldiag_set_dxpl_mpio";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (mode != COLLDIAG_MPIO_INDEPENDENT && mode != COLLDIAG_MPIO_COLLECTIVE)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "mode = %d is not INDEPENDENT (0) or COLLECTIVE (1)", (int)mode);
    x->set.mode = mode;
    return 0;
}

int colldiag_set_dxpl_mpio_collective_opt(colldiag_xfer *x, colldiag_collective_opt_t opt)
{
    static const char fn[] = "colldiag_set_dxpl_mpio_collective_opt";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (opt != COLLDIAG_MPIO_COLLECTIVE_IO && opt != COLLDIAG_MPIO_INDIVIDUAL_IO)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "opt = %d is not COLLECTIVE_IO (0) or INDIVIDUAL_IO (1)", (int)opt);
    x->set.coll_opt = opt;
    return 0;
}

int colldiag_set_dxpl_mpio_chunk_opt(colldiag_xfer *x, colldiag_chunk_opt_t opt)
{
    static const char fn[] = "colldiag_set_dxpl_mpio_chunk_opt";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if ((int)opt < COLLDIAG_MPIO_CHUNK_DEFAULT || (int)opt > COLLDIAG_MPIO_CHUNK_AUTO)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "opt = %d is not a colldiag_chunk_opt_t (0..7)", (int)opt);
    x->set.chunk_opt = opt;
    return 0;
}

int colldiag_set_dxpl_mpio_chunk_opt_num(colldiag_xfer *x, unsigned num)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_set_dxpl_mpio_chunk_opt_num", "x is NULL");
    x->set.num = num;
    return 0;
}

int colldiag_set_dxpl_mpio_chunk_opt_ratio(colldiag_xfer *x, unsigned percent)
{
    static const char fn[] = "colldiag_set_dxpl_mpio_chunk_opt_ratio";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (percent > 100) return cd_fail(COLLDIAG_ERR_ARG, fn, "percent = %u is above 100", percent);
    x->set.ratio = percent;
    return 0;
}

int colldiag_set_type_conversion(colldiag_xfer *x, size_t mem_elem_size, colldiag_convert_fn fn_, void *ctx)
{
    static const char fn[] = "colldiag_set_type_conversion";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (fn_ && mem_elem_size == 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "mem_elem_size is 0");
    x->conv = fn_;
    x->conv_ctx = ctx;
    x->mem_esize = fn_ ? mem_elem_size : 0;
    return 0;
}

int colldiag_set_data_transform(colldiag_xfer *x, colldiag_transform_fn fn_, void *ctx)
{
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_set_data_transform", "x is NULL");
    x->xform = fn_;
    x->xform_ctx = ctx;
    return 0;
}

int colldiag_set_hdf5_rules(colldiag_xfer *x, colldiag_hdf5_rules_t rules)
{
    static const char fn[] = "colldiag_set_hdf5_rules";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (rules != COLLDIAG_HDF5_RULES_1_10 && rules != COLLDIAG_HDF5_RULES_1_14)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "rules = %d is not 110 (HDF5 1.10) or 114 (HDF5 1.14)", (int)rules);
    x->set.rules = rules;
    return 0;
}

int colldiag_set_selection_io(colldiag_xfer *x, colldiag_selection_io_t mode)
{
    static const char fn[] = "colldiag_set_selection_io";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (mode != COLLDIAG_SELECTION_IO_DEFAULT && mode != COLLDIAG_SELECTION_IO_OFF && mode != COLLDIAG_SELECTION_IO_ON)
        return cd_fail(COLLDIAG_ERR_ARG, fn, "mode = %d is not DEFAULT (0), OFF (1) or ON (2)", (int)mode);
    x->set.sel_io = mode;
    return 0;
}

int colldiag_set_buffer(colldiag_xfer *x, size_t bytes)
{
    static const char fn[] = "colldiag_set_buffer";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (bytes < 64) return cd_fail(COLLDIAG_ERR_ARG, fn, "bytes = %zu is below the minimum of 64", bytes);
    x->bufsize = bytes;
    return 0;
}

int colldiag_set_coll_buffer(colldiag_xfer *x, size_t bytes)
{
    static const char fn[] = "colldiag_set_coll_buffer";
    if (!x) return cd_fail(COLLDIAG_ERR_ARG, fn, "x is NULL");
    if (bytes == 0) return cd_fail(COLLDIAG_ERR_ARG, fn, "bytes = 0: the collective buffer needs at least one byte");
    x->set.coll_buf = bytes;
    return 0;
}

/* "16777216", "16m", "64K", "1G": a byte count >= 1 with an optional binary suffix. */
static int cd_parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    unsigned sh = 0;
    switch (*end) {
    case 'k': case 'K': sh = 10; end++; break;
    case 'm': case 'M': sh = 20; end++; break;
    case 'g': case 'G': sh = 30; end++; break;
    default: break;
    }
    if (*end || v == 0 || v > (UINT64_MAX >> sh)) return -1;
    *out = (uint64_t)v << sh;
    return 0;
}

/* Parses a whole unsigned decimal; -1 if it is not one. */
static int cd_parse_uint(const char *s, unsigned *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > UINT_MAX || *s == '-') return -1;
    *out = (unsigned)v;
    return 0;
}

/* The settings of one call: the code's, overridden by the environment (read at each call). */
static int settings_effective(const char *fn, const colldiag_xfer *x, cd_settings *s)
{
    *s = x->set;
    s->chunk_opt_src = "setting";
    const char *e = cd_getenv("COLLDIAG_CHUNK_OPT");
    if (e && *e) {
        int found = -1;
        for (int i = 0; i < (int)(sizeof cd_chunk_opt_env / sizeof *cd_chunk_opt_env); i++)
            if (!strcmp(e, cd_chunk_opt_env[i])) found = i;
        if (found < 0)
            return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_CHUNK_OPT=\"%.40s\" is not one of "
                           "default|link|multi|atonce|ind|multi_no_opt|aggregate|auto", e);
        s->chunk_opt = found;
        snprintf(s->env_text, sizeof s->env_text, "env COLLDIAG_CHUNK_OPT=%s", e);
        s->chunk_opt_src = s->env_text;
    }
    e = cd_getenv("COLLDIAG_CHUNK_OPT_NUM");
    if (e && *e && cd_parse_uint(e, &s->num))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_CHUNK_OPT_NUM=\"%.40s\" is not an unsigned number", e);
    e = cd_getenv("COLLDIAG_CHUNK_OPT_RATIO");
    if (e && *e && (cd_parse_uint(e, &s->ratio) || s->ratio > 100))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_CHUNK_OPT_RATIO=\"%.40s\" is not a percentage 0..100", e);
    e = cd_getenv("COLLDIAG_MPI_OPT_TYPES");
    if (!e) e = cd_getenv("HDF5_MPI_OPT_TYPES");
    s->opt_types_disabled = e && e[0] == '0';
    s->pack_run = COLLDIAG_PACK_RUN_BYTES;
    e = cd_getenv("COLLDIAG_PACK_RUN_BYTES");
    if (e && *e && cd_parse_uint(e, &s->pack_run))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_PACK_RUN_BYTES=\"%.40s\" is not an unsigned number", e);
    e = cd_getenv("COLLDIAG_HDF5_RULES");
    if (e && *e) {
        if (!strcmp(e, "1.10") || !strcmp(e, "110")) s->rules = COLLDIAG_HDF5_RULES_1_10;
        else if (!strcmp(e, "1.14") || !strcmp(e, "114")) s->rules = COLLDIAG_HDF5_RULES_1_14;
        else return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_HDF5_RULES=\"%.40s\" is not 1.10 or 1.14", e);
    }
    e = cd_getenv("COLLDIAG_AUTO_MODE");
    if (e && *e) {
        if (!strcmp(e, "measure")) s->auto_measure = 1;
        else if (!strcmp(e, "estimate")) s->auto_measure = 0;
        else return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_AUTO_MODE=\"%.40s\" is not measure or estimate", e);
    }
    e = cd_getenv("COLLDIAG_COLL_BUFFER");
    if (e && *e && cd_parse_bytes(e, &s->coll_buf))
        return cd_fail(COLLDIAG_ERR_ARG, fn, "env COLLDIAG_COLL_BUFFER=\"%.40s\" is not a byte count >= 1 (suffix k, m or g allowed)", e);
    static const char *const kname[CD_K_N] = {
#define CD_AUTO_NAME(n) "COLLDIAG_AUTO_" #n,
        CD_AUTO_CONSTANTS(CD_AUTO_NAME)
#undef CD_AUTO_NAME
    };
    static const double kdef[CD_K_N] = {
#define CD_AUTO_DEF(n) COLLDIAG_AUTO_##n,
        CD_AUTO_CONSTANTS(CD_AUTO_DEF)
#undef CD_AUTO_DEF
    };
    for (int i = 0; i < CD_K_N; i++) {
        s->k[i] = kdef[i];
        e = cd_getenv(kname[i]);
        if (!e || !*e) continue;
        char *end;
        errno = 0;
        double v = strtod(e, &end);
        if (errno || *end || !(v > 0) || v > 1e30)
            return cd_fail(COLLDIAG_ERR_ARG, fn, "env %s=\"%.40s\" is not a positive number", kname[i], e);
        s->k[i] = v;
    }
    return 0;
}

static uint64_t settings_digest(const cd_settings *s)
{
    uint64_t h = cd_hash_u64(0x5e77u, (uint64_t)s->chunk_opt);
    h = cd_hash_u64(h, s->num);
    h = cd_hash_u64(h, s->ratio);
    h = cd_hash_u64(h, s->coll_buf);
    for (int i = 0; i < CD_K_N; i++) {
        uint64_t bits;
        memcpy(&bits, &s->k[i], sizeof bits);
        h = cd_hash_u64(h, bits);
    }
    h = cd_hash_u64(h, (uint64_t)s->rules * 4u + (uint64_t)s->sel_io + 64u * (uint64_t)s->auto_measure);
    return cd_hash_u64(h, (uint64_t)s->coll_opt);
}
