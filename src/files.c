/* ====================================================================================================
 * 4. files
 * ==================================================================================================== */

/* Indices of the agreement vector reduced by cd_agree_op: one reduction decides causes, layout/settings
   agreement, the first failing rank and the chunk counts the schemes need. */
enum {
    AG_CAUSE = 0,      /* BOR */
    AG_LAYOUT,         /* BOR of the layout digest ... */
    AG_LAYOUT_NOT,     /* ... and of its complement: both equal everywhere iff AND of the two is 0 */
    AG_SETTINGS,
    AG_SETTINGS_NOT,
    AG_VIEW,           /* BOR: some rank's wrapped file has a non-default view */
    AG_FAIL,           /* MIN: rank*16 + (-code) of the lowest failing rank, UINT64_MAX if none */
    AG_SUM_CHUNKS,     /* SUM */
    AG_MIN_CHUNKS,     /* MIN */
    AG_MAX_CHUNKS,     /* MAX */
    AG_MAX_BYTES,      /* MAX: bytes a rank moves in the call */
    AG_MAX_PIECE,      /* MAX: bytes of the largest piece of any rank */
    AG_MAX_RUNS,       /* MAX: file runs a rank hands MPI-IO (mapping-time estimate, the AUTO model's input) */
    AG_SUM_RUNS,       /* SUM */
    AG_SUM_PARTIAL,    /* SUM: pieces that do not cover their chunk (the ones other ranks may share) */
    AG_MAX_MRUNS,      /* MAX: memory runs a rank hands MPI unpacked in one collective call (AUTO) */
    AG_MAX_MULTI_NS,   /* MAX: the rank's own part of multi-chunk's estimated time, ns (AUTO) */
    AG_MAX_IND_NS,     /* MAX: the rank's estimated time with independent calls only, ns (AUTO) */
    AG_MAX_END,        /* MAX: end of the storage a rank's collective write touches (0 when not writing) */
    AG_MAX_FSIZE,      /* MAX: the file's size as each rank sees it before a collective write */
    AG_SUM_TOUCH,      /* SUM: bits each rank sets in the touched-chunk map (touch_map) */
    AG_BRIDGE,         /* BOR: HDF5 bridge: 1 = a rank waits only for the dataset's chunk index, 2 = a rank failed otherwise
                          (bits 4-9: see colldiag_xfer's pre_defers and pre_flush_writes) */
    AG_RANK0,          /* BOR, rank 0's alone (agree_env): its COLLDIAG_REPORT kind (bits 0-1), its fetch-call count (bits 2-9) */
    AG_RANK0_BYTES,    /* BOR, rank 0's alone: its fetch byte threshold (COLLDIAG_H5_FETCH_BYTES) */
    AG_ENV,            /* BOR of every rank's digests of those variables (21 bits each) ... */
    AG_ENV_NOT,        /* ... and of their complements: a variable differs somewhere iff its bits of the AND are not 0 */
    /* bytes at risk of HDF5's own path (decision.c, risk_local): */
    AG_RISK_LO,        /* MIN: first selected file byte of a write whose holes may lie past the end of the file (0: some
                          selected byte lies before it; UINT64_MAX: none) */
    AG_RISK_HI,        /* MAX: end of the last selected byte past the end of the file (0: none) */
    AG_RISK_PAST,      /* SUM: selected bytes past the end of the file */
    AG_RISK_OWN,       /* SUM: each rank's holes past the end of the file within its own extent (a sieved independent write's) */
    AG_RISK_FSIZE,     /* MAX: the file's size as each rank sees it */
    AG_RISK_RANKS,     /* BOR: bit r (r < 63; bit 63 for the others) for a rank that writes past the end / into compact storage */
    AG_RISK_DIG,       /* BOR of a digest of this rank's compact write (selection and bytes) ... */
    AG_RISK_DIG_NOT,   /* ... and of its complement: every rank writes the same iff AND of the two is 0 */
    AG_RISK_CBYTES,    /* SUM: bytes written into compact storage */
    AG_RISK_UNK,       /* SUM: bytes of the touched chunks a rank did not select, where the plan could not learn the chunks'
                          addresses (colldiag_layout's addr_unknown): they may lie past the end */
    AG_RISK_RD_NHI,    /* MAX: a collective read's ~(end of this rank's extent), on a stack whose reads are at risk
                          (risk_read_local): ~ of the smallest end. The read also uses LO (MIN first byte), HI (MAX end),
                          PAST (SUM bytes) and FSIZE (MAX first byte) */
    AG_MEAS_T,         /* MAX: the group's last AUTO call's time on this rank, ns + 1 (measure.c; 0: none) */
    AG_MEAS_SIG,       /* BOR of that call's pattern and scheme ... */
    AG_MEAS_SIG_NOT,   /* ... and of its complement: every rank had the same iff AND of the two is 0 */
    AG_WIS,            /* BOR of a digest of the AUTO wisdom this rank read for the group (measure.c; 0: none) ... */
    AG_WIS_NOT,        /* ... and of its complement (all ones: none): every rank read the same iff AND of the two is 0 */
    AG_STACK,          /* BOR: bit 0, this rank's MPI-IO layer loses bytes of overlapping collective reads (risk_read_stack:
                          set before MPI_Init, so it can differ between ranks; the read guard and the prediction use the OR) */
    AG_SUM_NODE_TOUCH, /* SUM: buckets of the node map (node_map) each rank touches */
    AG_NODE_MAP,       /* BOR: the node map, CD_NODE_WORDS words from here: which nodes touch each bucket of chunks */
    AG_TOUCH = AG_NODE_MAP + 8, /* BOR: the touched-chunk map, CD_TOUCH_WORDS words from here */
    AG_N = AG_TOUCH + 8 /* 480 bytes in all: see touch_map and node_map */
};
#define CD_NODE_WORDS (AG_TOUCH - AG_NODE_MAP)
#define CD_TOUCH_WORDS (AG_N - AG_TOUCH)

static void cd_agree_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int base = 0; base + AG_N <= *len; base += AG_N) {
        for (int i = 0; i < AG_N; i++) {
            uint64_t x = a[base + i], *y = &b[base + i];
            switch (i) {
            case AG_FAIL: case AG_MIN_CHUNKS: case AG_RISK_LO: if (x < *y) *y = x; break;
            case AG_MAX_CHUNKS: case AG_MAX_BYTES: case AG_MAX_PIECE: case AG_MAX_RUNS: case AG_MAX_END: case AG_MAX_FSIZE:
            case AG_MAX_MULTI_NS: case AG_MAX_IND_NS: case AG_MAX_MRUNS: case AG_RISK_HI: case AG_RISK_FSIZE: case AG_RISK_RD_NHI: case AG_MEAS_T:
                if (x > *y) *y = x;
                break;
            case AG_SUM_CHUNKS: case AG_SUM_RUNS: case AG_SUM_PARTIAL: case AG_SUM_TOUCH: case AG_SUM_NODE_TOUCH: case AG_RISK_PAST: case AG_RISK_OWN: case AG_RISK_CBYTES:
            case AG_RISK_UNK: *y += x; break;
            default: *y |= x; break;
            }
        }
    }
}

struct colldiag_file {
    MPI_Comm comm;       /* private duplicate: colldiag's messages never meet the application's */
    int rank, size;
    int driver;
    MPI_File fh;
    int own_fh;
    int fd;
    MPI_Op op;
    int plan_only;       /* HDF5 bridge: a file to plan on (no data moves, COLLDIAG_REPORT stays silent) */
    int comm_lent;       /* plan_only: comm and op are the bridge's file's, lent for the call (h5_plan_file) */
    int plan_read;       /* HDF5 bridge: the planned call is H5Dread (HDF5 treats filtered reads apart) */
    int bridge;          /* HDF5 bridge: HDF5's own MPI_File (never closed here); the bridge reports, not the core */
    uint64_t size_seen;  /* the largest size this rank has seen the file have (write_extent) */
    MPI_File size_fh;    /* HDF5 bridge, plan_only: HDF5's own MPI_File, asked only for its size (risk_local) */
    uint64_t covered_to; /* agreed in collective writes, alike on every rank: the file is at least this long (file_covered) */
    int ds_write;        /* the MPI-IO layer may sieve independent writes (read-modify-write): 1, 0, -1 not asked yet (risk_ds) */
    int reads_lose;      /* agreed at the last collective call (AG_STACK): some rank's MPI-IO layer loses bytes of
                            overlapping collective reads; the read guard asks only then (execution.c) */
    int read_only;       /* opened (or wrapped) MPI_MODE_RDONLY: under HDF5 1.14's rules, its small chunks are cached */
    int node_n;          /* ranks of comm on this rank's node (MPI_COMM_TYPE_SHARED), learnt by file_nodes: 0 not yet, -1 unknown */
    int *node_ranks;     /* their ranks in comm, ascending (node_n of them) */
    int nodes;           /* nodes of comm, agreed by every rank (file_nodes; 0: not known), AUTO's H */
    int node_idx;        /* this rank's node, 0 .. nodes - 1 (file_nodes; the nodes' lowest ranks in order): the touched
                            chunks' node map (node_map) */
    double bw_x;         /* a node's link, B/s, probed once for the ranks' group (file_probe_link); 0: not probed */
    int md_local;        /* HDF5 bridge, plan_only: the HDF5 file's metadata reads are local (not H5Pset_all_coll_metadata_ops),
                            so HDF5's chunk lookup may run on one rank (h5_plan_chunk_addrs) */
    uint64_t group;      /* comm's members, hashed (comm_group_id; 0: no communicator): AUTO's measurements are its (measure.c) */
    uint64_t fs_type;    /* the file system's type (statfs), 0 unknown: part of AUTO's patterns */
    struct {             /* aggregation's data buffers kept between calls (exec_aggregate, agg_keep_put): a time-step
                            loop would otherwise map fresh pages for them every call */
        unsigned char *sdata, *rdata, *packbuf;
        uint64_t scap, rcap, packbufcap;
    } keep;
    double lat_x;        /* a collective step's seconds, probed once for the ranks' group (file_probe_step); 0: not probed */
    int comm_kept;       /* HDF5 bridge: 1 + the kept communicator's index when comm is lent from h5_kept (not freed with the file) */
    int probe_due;       /* agreed by file_nodes, alike on every rank: 1 the link, 2 the step are still to be probed
                            (file_probes, where AUTO's model first prices a call) */
};

/* Frees what a file keeps between calls (aggregation's buffers). */
static void file_keep_free(colldiag_file *f)
{
    cd_free(f->keep.sdata);
    cd_free(f->keep.rdata);
    cd_free(f->keep.packbuf);
    memset(&f->keep, 0, sizeof f->keep);
}

/* The file system a path lies on (statfs's f_type; 0 when unknown): part of where AUTO's wisdom was
   measured (measure.c). */
static uint64_t path_fs_type(const char *path)
{
#ifdef __linux__
    struct statfs st;
    if (path && statfs(path, &st) == 0) return (uint64_t)(unsigned long)st.f_type;
#else
    (void)path;
#endif
    return 0;
}

/* A communicator's members as world ranks, hashed: what AUTO's measurements are kept under (measure.c).
   Local (group operations); O(size). Every member computes the same. */
static uint64_t comm_group_id(MPI_Comm c)
{
    MPI_Group g = MPI_GROUP_NULL, w = MPI_GROUP_NULL;
    int n = 0;
    if (c == MPI_COMM_NULL || MPI_Comm_group(c, &g) != MPI_SUCCESS) return 0;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_size(g, &n);
    uint64_t h = cd_hash_u64(0x6770u, (uint64_t)n);
    int in[256], out[256];
    for (int at = 0; at < n; at += 256) {
        const int k = n - at < 256 ? n - at : 256;
        for (int i = 0; i < k; i++) in[i] = at + i;
        MPI_Group_translate_ranks(g, k, in, w, out);
        for (int i = 0; i < k; i++) h = cd_hash_u64(h, (uint64_t)(uint32_t)out[i]);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return h ? h : 1;
}

static int cd_mpi_fail(const char *fn, int mpirc, const char *what)
{
    char es[MPI_MAX_ERROR_STRING];
    int n = 0;
    es[0] = 0;
    MPI_Error_string(mpirc, es, &n);
    return cd_fail(COLLDIAG_ERR_MPI, fn, "%s failed: %s", what, es);
}

static int cd_any_fail(MPI_Comm comm, int failed);
static void file_nodes(colldiag_file *f);
static void file_probes(colldiag_file *f);

/* A file on a duplicate of comm, for colldiag_file_open and _wrap. Collective from the first line: the
   duplicate is made on every rank before anything is checked, and the checks (the caller's own,
   code, then out and memory) are agreed in one reduction, so that one rank's bad argument fails
   every rank (the others with COLLDIAG_ERR_PEER naming it) instead of leaving them in MPI_Comm_dup.
   Only comm itself, which names the ranks, fails at once. 0 and *made, or the error. */
static int file_alloc(const char *fn, MPI_Comm comm, colldiag_file **out, int code, const char *peer_what, colldiag_file **made)
{
    if (out) *out = NULL;
    if (comm == MPI_COMM_NULL) return cd_fail(COLLDIAG_ERR_ARG, fn, "comm is MPI_COMM_NULL");
    MPI_Comm dup = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(comm, &dup);
    if (rc != MPI_SUCCESS) return cd_mpi_fail(fn, rc, "MPI_Comm_dup");
    colldiag_file *f = code ? NULL : cd_calloc(1, sizeof *f);
    if (!code && !out) code = cd_fail(COLLDIAG_ERR_ARG, fn, "out is NULL");
    else if (!code && !f) code = cd_fail(COLLDIAG_ERR_NOMEM, fn, "allocating the file");
    const int first = cd_any_fail(dup, code != 0);
    if (first >= 0) {
        cd_free(f);
        MPI_Comm_free(&dup);
        return code ? code : cd_fail(COLLDIAG_ERR_PEER, fn, "rank %d %s", first, peer_what);
    }
    f->comm = dup;
    MPI_Comm_rank(f->comm, &f->rank);
    MPI_Comm_size(f->comm, &f->size);
    f->group = comm_group_id(dup);
    MPI_Op_create(cd_agree_fn, 1, &f->op);
    f->fh = f->size_fh = MPI_FILE_NULL;
    f->fd = -1;
    f->ds_write = -1;
    file_nodes(f); /* every rank is here (the checks are agreed): the nodes are learnt with the file, not in a call */
    file_probes(f); /* and what AUTO's model prices with: a kit's file is opened outside its time-step loop */
    *made = f;
    return 0;
}

static void file_dealloc(colldiag_file *f)
{
    file_keep_free(f);
    cd_free(f->node_ranks);
    if (f->op != MPI_OP_NULL) MPI_Op_free(&f->op);
    MPI_Comm_free(&f->comm);
    cd_free(f);
}

/* Which ranks of f's communicator share this rank's node, learnt once a file: what the reports count as
   bytes crossing nodes (aggregation's exchange, colldiag_get_bytes_off_node). One MPI_Comm_split_type
   (MPI_COMM_TYPE_SHARED: the ranks MPI says share memory, one group a node) and an MPI_Allgather of
   the ranks inside it: O(ranks on the node) memory, nothing that grows with the job. Collective over
   f->comm the first time (later calls return at once); after a failure on any rank of a node, that node's ranks say "not known" (node_n -1), never hang: the
   allocation is agreed inside the node before the gather. Split by key rank, so the gather comes back
   in ascending order. Then one reduction over comm, on every rank whatever happened inside its node,
   counts the nodes (their lowest ranks) for AUTO's model (decision.c: the exchange's bytes that leave
   a node); a node that does not know makes the count 0, "not known", everywhere. Called when a file
   is opened or wrapped (file_alloc, collective), so that no call pays it: one split, one gather inside
   the node and one reduction of two ints. The HDF5 bridge's files, made locally, learn it in their
   first collective chunked call (exec_chunked: agreed branches, every rank is there) or in the first
   call whose engine the preload measures (the pattern names the nodes). The probes of AUTO's
   constants this reduction finds due run apart (file_probes), where the model first needs them. */
#ifdef COLLDIAG_TESTING
/* COLLDIAG_INJECT=nodes:RANK (test builds only, as cd_inject): RANK cannot allocate its node's list. */
static int file_inject_nodes(const colldiag_file *f)
{
    const char *e = cd_getenv("COLLDIAG_INJECT");
    int r;
    return e && sscanf(e, "nodes:%d", &r) == 1 && r == f->rank;
}
#else
#define file_inject_nodes(f) 0
#endif

/* The link between nodes, probed once per group of ranks (the same members, comm_group_id) when they span
   nodes, so that AUTO's first calls across a slow network are right (a wrong one cost 50-270 of the
   right one's time across 200 Mbit/s links: make bench-auto). The default BW_NET_X is a 100 Gb/s link;
   nothing else in a job says what the link is until a call has paid for it. The nodes' lowest ranks
   form a ring and each sends the next CD_PROBE_BYTES while receiving as many from the previous (one
   byte first, so that connection set-up is not timed); the slowest link's time, agreed, gives the
   bandwidth. 1 MiB: long enough for bandwidth to dominate latency on a 200 Gb/s link (40 us against a
   few), short enough to cost 42 ms at 200 Mbit/s, once a job. Not when COLLDIAG_AUTO_BW_NET_X is set
   (the user's value rules) or COLLDIAG_AUTO_MODE=estimate (the pure model, as before). The memo keeps
   a few groups (a job's communicators), forgotten with colldiag_auto_forget. */
#define CD_PROBE_BYTES (1 << 20)
enum { CD_PROBE_MEMO = 16 };
typedef struct { uint64_t id; double bw, step; } cd_probe_entry; /* a group's probed link (B/s) and step (s); 0: not probed */
static cd_probe_entry cd_probe_memo[CD_PROBE_MEMO];
static int cd_probe_n;

/* The group's memo entry, NULL when it has none. */
static const cd_probe_entry *probe_memo_of(uint64_t id)
{
    for (int i = 0; i < cd_probe_n && i < CD_PROBE_MEMO; i++)
        if (cd_probe_memo[i].id == id) return &cd_probe_memo[i];
    return NULL;
}

static double probe_memo(uint64_t id)
{
    const cd_probe_entry *m = probe_memo_of(id);
    return m ? m->bw : 0;
}

static double probe_memo_step(uint64_t id)
{
    const cd_probe_entry *m = probe_memo_of(id);
    return m ? m->step : 0;
}

/* Records a probe's result for the group (bw or step, the other kept; 0 leaves a value alone). */
static void probe_remember(uint64_t id, double bw, double step)
{
    int i = 0;
    while (i < cd_probe_n && cd_probe_memo[i].id != id) i++;
    if (i == cd_probe_n && cd_probe_n < CD_PROBE_MEMO) {
        cd_probe_n++;
        cd_probe_memo[i].id = id;
        cd_probe_memo[i].bw = cd_probe_memo[i].step = 0;
    }
    if (i >= CD_PROBE_MEMO) return;
    if (bw > 0) cd_probe_memo[i].bw = bw;
    if (step > 0) cd_probe_memo[i].step = step;
}

static void probe_forget(void) { cd_probe_n = 0; }

/* Whether this rank wants a constant probed: the model will use it (agreed by the caller's reduction).
   name: the constant's variable, which when set rules. */
static int probe_wanted_of(const colldiag_file *f, const char *name, double memo)
{
    const char *e = cd_getenv(name), *m = cd_getenv("COLLDIAG_AUTO_MODE");
    return !f->plan_only && f->group && !(e && *e) && !(m && !strcmp(m, "estimate")) && memo <= 0;
}

/* In test builds not while COLLDIAG_INJECT injects anything (as the step below): a probe of the real
   link gives every fresh group (after colldiag_auto_forget) another bandwidth, and the tests of AUTO
   compare the model's estimates across files (tests/test_auto.c across simulated nodes failed on that). */
static int probe_wanted(const colldiag_file *f)
{
#ifdef COLLDIAG_TESTING
    const char *inj = cd_getenv("COLLDIAG_INJECT");
    if (inj && *inj) return 0;
#endif
    return probe_wanted_of(f, "COLLDIAG_AUTO_BW_NET_X", probe_memo(f->group));
}

/* A collective step's latency (AUTO's LAT_X), probed once per group of ranks, as the link is: the
   default (7 us) is three ranks on this machine's two cores, and a step costs what the ranks' cores and
   network make it: 170-265 us with 8 ranks on 2 cores (make calibrate), where aggregation's seven
   steps, priced at 49 us, sent B1's first write to a scheme 3x dearer than all-independent (make
   bench-auto). Three blocks of four one-int reductions from a common start, each block's slowest
   rank's time agreed, the median block's time over its four: thirteen reductions once per group (about
   3 ms with 8 ranks on 2 cores, tens of microseconds where cores are the ranks' own).
   Not when COLLDIAG_AUTO_LAT_X is set, COLLDIAG_AUTO_MODE=estimate, on one rank, and in test builds
   while COLLDIAG_INJECT injects anything else (tests of AUTO stay deterministic);
   COLLDIAG_INJECT=step:SECONDS (test builds) gives the probe's answer. Collective over f->comm, agreed
   by file_nodes' reduction; a failure leaves f->lat_x 0 (the default) on every rank. */
enum { CD_STEP_REPS = 4 }; /* reductions a block; three blocks (the median) */
#define CD_STEP_BLOCKS 3
#ifdef COLLDIAG_TESTING
static int step_inject(double *s)
{
    const char *e = cd_getenv("COLLDIAG_INJECT");
    *s = 0;
    if (!e || !*e) return 0;
    if (!strncmp(e, "step:", 5)) *s = atof(e + 5);
    return 1;
}
#else
#define step_inject(s) 0
#endif

static int step_wanted(const colldiag_file *f)
{
    return f->size > 1 && probe_wanted_of(f, "COLLDIAG_AUTO_LAT_X", probe_memo_step(f->group));
}

static void file_probe_step(colldiag_file *f)
{
    double inj = 0, t[CD_STEP_BLOCKS] = {0}, g[CD_STEP_BLOCKS] = {0};
    /* every rank makes the same MPI calls whatever its environment says (an injection is a test build's
       local setting): the injected answer replaces the timing before the one agreement */
    const int injected = step_inject(&inj);
    int one = 1, sum = 0, bad = MPI_Barrier(f->comm) != MPI_SUCCESS;
    for (int b = 0; b < CD_STEP_BLOCKS && !bad; b++) {
        const double t0 = MPI_Wtime();
        for (int i = 0; i < CD_STEP_REPS && !bad; i++) bad = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, f->comm) != MPI_SUCCESS;
        t[b] = (MPI_Wtime() - t0) / CD_STEP_REPS;
    }
    if (bad) t[0] = -1; /* an MPI failure in a one-int reduction is every rank's (MPI_ERRORS_RETURN or abort) */
    for (int b = 0; injected && b < CD_STEP_BLOCKS; b++) t[b] = inj > 0 ? inj : -1;
    if (MPI_Allreduce(t, g, CD_STEP_BLOCKS, MPI_DOUBLE, MPI_MAX, f->comm) != MPI_SUCCESS) return;
    /* the median of the three blocks, the slowest rank's each (a failure everywhere shows as a negative block) */
    const double lo = g[0] < g[1] ? g[0] : g[1], hi = g[0] < g[1] ? g[1] : g[0];
    const double mid = g[2] < lo ? lo : g[2] > hi ? hi : g[2];
    f->lat_x = g[0] < 0 || g[1] < 0 || g[2] < 0 ? 0 : mid;
    if (f->lat_x > 0) probe_remember(f->group, 0, f->lat_x);
}

/* Collective over f->comm (every rank, the call agreed by file_nodes' reduction). A failure anywhere
   (a leader's buffer, an MPI call) leaves f->bw_x 0 on every rank: the model's default. */
static void file_probe_link(colldiag_file *f)
{
    const int leader = f->node_n > 0 && f->node_ranks[0] == f->rank;
    MPI_Comm lc = MPI_COMM_NULL;
    double mine[2] = {0, 0}, all[2] = {0, 1}; /* the slowest link's seconds, failures */
    if (MPI_Comm_split(f->comm, leader ? 0 : MPI_UNDEFINED, f->rank, &lc) != MPI_SUCCESS) { lc = MPI_COMM_NULL; mine[1] = 1; }
    if (lc != MPI_COMM_NULL) {
        int h = 0, me = 0, bad = 0, any = 1;
        MPI_Comm_size(lc, &h);
        MPI_Comm_rank(lc, &me);
        char *b = cd_calloc(2, CD_PROBE_BYTES); /* zeroed: no uninitialised byte leaves through MPI */
        bad = b == NULL;
        if (MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, lc) == MPI_SUCCESS && !any && h > 1) {
            const int to = (me + 1) % h, from = (me + h - 1) % h;
            if (MPI_Sendrecv(b, 1, MPI_BYTE, to, 0x70, b + CD_PROBE_BYTES, 1, MPI_BYTE, from, 0x70, lc, MPI_STATUS_IGNORE) != MPI_SUCCESS) mine[1] = 1;
            const double t0 = MPI_Wtime();
            if (!mine[1] && MPI_Sendrecv(b, CD_PROBE_BYTES, MPI_BYTE, to, 0x71, b + CD_PROBE_BYTES, CD_PROBE_BYTES, MPI_BYTE, from, 0x71, lc,
                                         MPI_STATUS_IGNORE) != MPI_SUCCESS)
                mine[1] = 1;
            mine[0] = MPI_Wtime() - t0;
        } else mine[1] = 1;
        cd_free(b);
        MPI_Comm_free(&lc);
    }
    if (MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, f->comm) != MPI_SUCCESS || all[1] > 0 || !(all[0] > 0)) return;
    f->bw_x = (double)CD_PROBE_BYTES / all[0];
    probe_remember(f->group, f->bw_x, 0);
}

static void file_nodes(colldiag_file *f)
{
    if (f->node_n) return;
    f->node_n = -1;
    f->nodes = 0;
    MPI_Comm nc = MPI_COMM_NULL;
    if (MPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, f->rank, MPI_INFO_NULL, &nc) == MPI_SUCCESS && nc != MPI_COMM_NULL) {
        int k = 0;
        MPI_Comm_size(nc, &k);
        int *r = k > 0 && !file_inject_nodes(f) ? cd_malloc((size_t)k * sizeof *r) : NULL;
        int bad = r == NULL, any = 1;
        if (MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, nc) == MPI_SUCCESS && !any &&
            MPI_Allgather(&f->rank, 1, MPI_INT, r, 1, MPI_INT, nc) == MPI_SUCCESS) {
            f->node_ranks = r;
            f->node_n = k;
            r = NULL;
        }
        cd_free(r);
    }
    const int lead = f->node_n > 0 && f->node_ranks[0] == f->rank;
    /* the node's index: its lowest rank's count of lower nodes' lowest ranks, which that rank lends its
       node-mates (every rank of comm is in both calls, its node's communicator or not) */
    int below = 0;
    if (MPI_Exscan(&lead, &below, 1, MPI_INT, MPI_SUM, f->comm) != MPI_SUCCESS || f->rank == 0) below = 0;
    if (nc != MPI_COMM_NULL) {
        if (MPI_Bcast(&below, 1, MPI_INT, 0, nc) != MPI_SUCCESS) below = 0;
        MPI_Comm_free(&nc);
    }
    int mine[4] = {lead, f->node_n <= 0, probe_wanted(f), step_wanted(f)}, all[4] = {0, 1, 0, 0};
    if (MPI_Allreduce(mine, all, 4, MPI_INT, MPI_SUM, f->comm) != MPI_SUCCESS) return;
    if (all[1] == 0) {
        f->nodes = all[0];
        f->node_idx = below;
    }
    /* the link between nodes and a collective step: to be probed if some rank wants it (the same sum on
       every rank), else remembered */
    f->probe_due = (f->nodes > 1 && all[2] > 0 ? 1 : 0) | (all[3] > 0 ? 2 : 0);
    if (f->nodes > 1 && !(f->probe_due & 1)) f->bw_x = probe_memo(f->group);
    if (!(f->probe_due & 2)) f->lat_x = probe_memo_step(f->group);
}

/* The probes file_nodes found due (f->probe_due, agreed), run where AUTO's model first prices a call of
   the file: at open for the kit's files (file_alloc), at the first collective chunked call for the HDF5
   bridge's (exec_chunked, aggregation's exchange). Only the model uses what they measure, so a job of
   the preload that only reads or writes contiguous datasets never pays them: a barrier and thirteen
   reductions, about 1 ms on 3 ranks of 2 cores, on the first accelerated call of a file. Collective
   over f->comm when something is due (every caller is a point every rank of an agreed collective call
   reaches), a no-op after. What is due is probed even if another file over the same ranks has probed
   it meanwhile: the memo keeps a few groups a rank, so a rank in many groups may have forgotten what
   its peers remember, and only the agreed flags may decide a collective. */
static void file_probes(colldiag_file *f)
{
    const int due = f->probe_due;
    f->probe_due = 0;
    if (due & 1) file_probe_link(f);
    if (due & 2) file_probe_step(f);
}

/* Whether rank r of f's communicator is on this rank's node (file_nodes known). */
static int file_same_node(const colldiag_file *f, int r)
{
    int lo = 0, hi = f->node_n - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        if (f->node_ranks[mid] == r) return 1;
        if (f->node_ranks[mid] < r) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0;
}

/* Collective agreement on a local failure: -1 if no rank failed, else the lowest failing rank. */
static int cd_any_fail(MPI_Comm comm, int failed)
{
    int rank, r, first;
    MPI_Comm_rank(comm, &rank);
    r = failed ? rank : INT_MAX;
    MPI_Allreduce(&r, &first, 1, MPI_INT, MPI_MIN, comm);
    return first == INT_MAX ? -1 : first;
}

/* The caller's info plus cb_buffer_size (COLLDIAG_CB_BUFFER_HINT) where the caller set none, as a new
   info the caller frees; MPI_INFO_NULL when nothing is added (the caller's info is used as is). */
static MPI_Info open_hints(MPI_Info info)
{
    MPI_Info out = MPI_INFO_NULL;
    int len = 0, set = 0;
    if (COLLDIAG_CB_BUFFER_HINT == 0) return MPI_INFO_NULL;
    if (info != MPI_INFO_NULL) MPI_Info_get_valuelen(info, "cb_buffer_size", &len, &set);
    if (set) return MPI_INFO_NULL;
    if ((info != MPI_INFO_NULL ? MPI_Info_dup(info, &out) : MPI_Info_create(&out)) != MPI_SUCCESS) return MPI_INFO_NULL;
    char v[32];
    snprintf(v, sizeof v, "%" PRIu64, (uint64_t)COLLDIAG_CB_BUFFER_HINT);
    MPI_Info_set(out, "cb_buffer_size", v);
    return out;
}

int colldiag_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, colldiag_driver_t driver,
                       colldiag_file **out)
{
    static const char fn[] = "colldiag_file_open";
    colldiag_file *f = NULL;
    int code = 0;
    if (!path) code = cd_fail(COLLDIAG_ERR_ARG, fn, "path is NULL");
    else if (driver != COLLDIAG_DRIVER_MPIO && driver != COLLDIAG_DRIVER_POSIX)
        code = cd_fail(COLLDIAG_ERR_ARG, fn, "driver = %d is not COLLDIAG_DRIVER_MPIO or COLLDIAG_DRIVER_POSIX", (int)driver);
    /* the argument checks agree before anything else collective starts */
    int rc = file_alloc(fn, comm, out, code, "failed its argument checks", &f);
    if (rc) return rc;
    if (driver == COLLDIAG_DRIVER_MPIO) {
        MPI_Info hint = open_hints(info);
        int mrc = MPI_File_open(f->comm, path, amode, hint != MPI_INFO_NULL ? hint : info, &f->fh);
        if (hint != MPI_INFO_NULL) MPI_Info_free(&hint);
        if (mrc != MPI_SUCCESS) {
            rc = cd_mpi_fail(fn, mrc, "MPI_File_open");
            file_dealloc(f);
            return rc; /* MPI_File_open is collective and fails on every rank together */
        }
        MPI_File_set_errhandler(f->fh, MPI_ERRORS_RETURN);
        f->own_fh = 1;
        f->read_only = (amode & MPI_MODE_RDONLY) != 0;
    } else {
        int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : (amode & MPI_MODE_WRONLY) ? O_WRONLY : O_RDWR;
        int err = 0;
        /* rank 0 creates (honouring EXCL) before the others open, so EXCL means "new file" once */
        if (f->rank == 0) {
            int cf = flags | ((amode & MPI_MODE_CREATE) ? O_CREAT : 0) | ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
            f->fd = open(path, cf, 0666);
            if (f->fd < 0) err = errno;
        }
        MPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
        if (!err && f->rank != 0) {
            f->fd = open(path, flags);
            if (f->fd < 0) err = errno;
        }
        int bad = cd_any_fail(f->comm, err != 0);
        if (bad >= 0) {
            if (err) cd_fail(COLLDIAG_ERR_IO, fn, "open(\"%s\") failed: %s", path, strerror(err));
            else cd_fail(COLLDIAG_ERR_PEER, fn, "rank %d could not open \"%s\"", bad, path);
            if (f->fd >= 0) close(f->fd);
            file_dealloc(f);
            return err ? COLLDIAG_ERR_IO : COLLDIAG_ERR_PEER;
        }
    }
    f->driver = driver;
    f->fs_type = path_fs_type(path);
    *out = f;
    return 0;
}

int colldiag_file_wrap(MPI_Comm comm, MPI_File fh, colldiag_file **out)
{
    static const char fn[] = "colldiag_file_wrap";
    colldiag_file *f = NULL;
    const int code = fh == MPI_FILE_NULL ? cd_fail(COLLDIAG_ERR_ARG, fn, "fh is MPI_FILE_NULL") : 0;
    int rc = file_alloc(fn, comm, out, code, "failed its argument checks (fh or out)", &f);
    if (rc) return rc;
    f->fh = fh;
    f->driver = COLLDIAG_DRIVER_MPIO;
    int amode = 0;
    if (MPI_File_get_amode(fh, &amode) == MPI_SUCCESS) f->read_only = (amode & MPI_MODE_RDONLY) != 0;
    int mrc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (mrc != MPI_SUCCESS) {
        rc = cd_mpi_fail(fn, mrc, "MPI_File_set_view");
        file_dealloc(f);
        return rc;
    }
    *out = f;
    return 0;
}

int colldiag_file_close(colldiag_file *f)
{
    static const char fn[] = "colldiag_file_close";
    if (!f) return 0;
    if (f->plan_only) { /* the HDF5 bridge's: HDF5 owns the file; the communicator, if any, is ours */
        if (f->op != MPI_OP_NULL && !f->comm_lent) MPI_Op_free(&f->op);
        if (f->comm != MPI_COMM_NULL && !f->comm_lent) MPI_Comm_free(&f->comm);
        file_keep_free(f);
        cd_free(f->node_ranks);
        cd_free(f);
        return 0;
    }
    int rc = 0;
    if (f->own_fh && f->fh != MPI_FILE_NULL) {
        int mrc = MPI_File_close(&f->fh);
        if (mrc != MPI_SUCCESS) rc = cd_mpi_fail(fn, mrc, "MPI_File_close");
    }
    if (f->fd >= 0 && close(f->fd) != 0) rc = cd_fail(COLLDIAG_ERR_IO, fn, "close failed: %s", strerror(errno));
    if (f->driver == COLLDIAG_DRIVER_POSIX) MPI_Barrier(f->comm); /* every rank's data is out before anyone proceeds */
    file_dealloc(f);
    return rc;
}
