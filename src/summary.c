/* ====================================================================================================
 * 11. the run's summary (COLLDIAG_REPORT=summary, and every report at its end)
 *
 * Darshan's way: each call only adds to this rank's counters (no message, no collective), keyed by
 * dataset and direction; the ranks combine once, when the program's I/O ends (cd_sum_finish: in
 * MPI_Finalize, where every rank is), by a binomial tree that merges their tables by key, so that rank
 * 0 receives one table whatever the rank count: memory grows with the datasets, never with the ranks.
 * Rank 0 then prints one screen (text), or one JSON object, or the HTML page's first section. The
 * counters are one X-macro list (CD_SUM_SUMS: summed over ranks; CD_SUM_MAXES: seconds, the largest
 * rank's, which for collective calls is the calls' time). Only the HDF5 preload records calls today
 * (tools/colldiag-preload.c); the core has no hook into MPI_Finalize of its own.
 * ==================================================================================================== */

/* Summed over ranks. A call is counted once: a collective call by rank 0 of its file, an independent
   call by the rank that made it (CALLS); every rank counts its own in RANK_CALLS. */
#define CD_SUM_SUMS(X)                                                                                                             \
    X(CALLS) X(RANK_CALLS) X(CALLS_COLLECTIVE) X(BYTES) X(BYTES_COLL) X(BYTES_IND) X(CALLS_CD) X(BYTES_CD) X(CALLS_H5) X(BYTES_H5)    \
    X(RISK) X(RISK_CALLS) X(SAFE) X(SAFE_CALLS) X(KEPT) X(KEPT_CALLS) X(PLANNED) X(DISAGREE) X(EST_CALLS)                      \
    X(FILT_CALLS) X(FILT_CHUNKS) X(FILT_STORED) X(FILT_RAW) X(FILT_SHARED) X(DEC_CALLS) X(DEC_CHUNKS) X(DEC_STORED) \
    X(DEC_RAW) X(DEC_HDF5) X(DEC_NS) X(CALLS_LEASED) X(PF_CALLS) X(PF_BYTES)
/* (FILT_*: planned reads of filtered chunks, colldiag_get_filtered_read: every rank's chunks read and
   inflated, as stored and inflated bytes, and those other ranks inflated too; FILT_CALLS counted once a
   call, as CALLS. DEC_*: reads of filtered chunks colldiag ran, colldiag_get_filtered_decode: the
   chunks decoded, once each, their stored and decoded bytes, the inflations HDF5 would have made of
   them (one on every rank selecting from a chunk), and the nanoseconds the decoding took, summed over
   ranks. CALLS_LEASED: of CALLS_H5, the reads HDF5's path ran under a lease, without colldiag's agreement:
   the preload's lease_take. PF_*: reads whose destination, memory never touched, the preload populated
   before the call (its prefault_dest), counted a rank's each, in the run's entry: their whole pages'
   bytes) */
/* The largest rank's total: seconds in the calls (all, through colldiag, through HDF5), and the model's
   estimates scaled to them: what colldiag's best scheme would save over HDF5's path in the calls HDF5
   ran (SAVE_*, by the best scheme), what colldiag saved in the calls it ran. */
#define CD_SUM_MAXES(X) X(SECS) X(SECS_CD) X(SECS_H5) X(SAVE_LINK) X(SAVE_MULTI) X(SAVE_AGG) X(SAVE_IND) X(SAVED)
#define CD_SUM_ENUM(n) CD_SUM_##n,
enum { CD_SUM_SUMS(CD_SUM_ENUM) CD_SUM_NU };
enum { CD_SUM_MAXES(CD_SUM_ENUM) CD_SUM_NT };
#define CD_SUM_STR(n) #n,
static const char *const cd_sum_names[CD_SUM_NU] = {CD_SUM_SUMS(CD_SUM_STR)};
#define CD_SUM_NCAUSE 18 /* cause bits 0x1 .. 0x20000 (COLLDIAG_CAUSE_TABLE) */
#define CD_SUM_NMODE 7   /* colldiag_actual_io_mode_t's values */
#define CD_SUM_RANKS 8   /* ranks named per cause (the count is exact) */
enum { CD_SUM_MEAS_AUTO = 1, CD_SUM_MEAS_ENGINES = 2 };

typedef struct {
    uint32_t n;                  /* ranks in the set */
    int32_t r[CD_SUM_RANKS];     /* the lowest of them, ascending */
} cd_rset;

/* One dataset and direction's counters: plain data, merged by value (cd_sum_merge). */
typedef struct {
    uint64_t u[CD_SUM_NU];
    double t[CD_SUM_NT];
    uint64_t cause_calls[CD_SUM_NCAUSE], cause_bytes[CD_SUM_NCAUSE];
    double cause_secs[CD_SUM_NCAUSE];
    cd_rset cause_ranks[CD_SUM_NCAUSE];
    uint64_t mode_calls[CD_SUM_NMODE], mode_bytes[CD_SUM_NMODE];
    char risk_why[240];          /* the first reason recorded */
    /* direct chunk writes (H5Dwrite_chunk) into a file open on several ranks, which parallel HDF5 keeps
       only when every rank makes the same calls with the same bytes (tests/h5_direct_chunk.c): calls and
       bytes summed; each rank's calls hashed in order, the least and greatest hash over the ranks that
       made any; those ranks (count and the lowest) and the file's rank count */
    uint64_t dc_calls, dc_bytes, dc_hmin, dc_hmax;
    uint32_t dc_ranks, dc_size;
    cd_rset dc_who;
    /* what was measured at the dataset's last measured call (cd_sum_call's meas_*): agreed times, alike on
       every rank of a collective call; merged, the entry of the rank that counted more calls of it
       (meas_seq: its count of calls then) */
    uint64_t meas_seq;
    int32_t meas_of, meas_ran;
    double meas_t[4];
    uint32_t meas_n[4];
} cd_sum_data;

typedef struct {
    char *key;                   /* "FILE\tDATASET\tW" or "...\tR" */
    cd_sum_data d;
} cd_sum_ent;

typedef struct {
    cd_sum_ent *e;
    size_t n, cap;
    size_t *slot;                /* open addressing over e: index + 1, 0 empty */
    size_t nslot;
} cd_sum_tab;

static cd_sum_tab cd_sum; /* this rank's */
/* The table's one entry that is no dataset: the whole run's ranks by cause (a rank counts once however
   many datasets it raised a cause on: the sets of one entry are of different ranks, so they merge exactly). */
static const char cd_sum_run_key[] = "\t\t*";
static int cd_sum_done;    /* the summary was written (or this process will not write one) */
/* What the summary could not see, said first (rank 0's): the HDF5 preload sets it for a program whose
   HDF5 is linked statically, whose calls no wrapper sees. NULL: nothing known to be unseen. */
static const char *cd_sum_unseen;
/* The preload's decision on prefaulting reads' destinations (rank 0's, its prefault_decide), or NULL. */
static const char *cd_sum_pf_note;

/* What one call was, on this rank. */
typedef struct {
    const char *file, *dataset;  /* the key; copied when the entry is made */
    int stable;                  /* the two strings stay where they are (until cd_sum_forget_last): the last entry is kept */
    int write, colldiag, collective;
    int counts;                  /* this rank counts the call: an independent call's, a collective call's rank 0 of its file */
    int io_mode;
    uint32_t local_cause, global_cause;
    uint64_t bytes;              /* this rank's file bytes */
    uint64_t bytes_coll, bytes_ind; /* split, when known; else by io_mode */
    double secs;                 /* this rank's time in the call */
    uint64_t risk;               /* bytes at risk of HDF5's path (agreed: alike on every rank) */
    const char *risk_why;
    uint64_t made_safe;          /* bytes the file grew before HDF5's call (colldiag_h5_make_safe) */
    uint64_t kept;               /* compact bytes merged across ranks before HDF5's call (colldiag_h5_write_compact) */
    double est_hdf5, est_best;   /* the model's seconds for HDF5's path and the best scheme; < 0 unknown */
    int best;                    /* the best scheme: 0 link, 1 multi, 2 aggregation, 3 all-independent */
    int planned, agree;          /* a plan ran (1) and HDF5 agreed with it (1); -1: no plan */
    int leased;                  /* HDF5's path ran it under a lease, without colldiag's agreement (the preload's lease_take) */
    int filt_known;              /* a planned read of filtered chunks: this rank's (colldiag_get_filtered_read) */
    uint64_t filt_chunks, filt_stored, filt_raw, filt_shared;
    int dec_known;               /* a read of filtered chunks colldiag ran: this rank's decodes (colldiag_get_filtered_decoded) */
    uint64_t dec_chunks, dec_stored, dec_raw, dec_readers;
    double dec_secs;
    /* what the choice of this call measured before it ran (agreed: alike on every rank): 0 nothing; CD_SUM_MEAS_AUTO
       AUTO's schemes (meas_t[0..3]: link, multi, aggregation, all-independent); CD_SUM_MEAS_ENGINES the
       preload's engines (meas_t[0] HDF5's path, meas_t[1] colldiag's). Each a median agreed call in seconds
       (< 0: none) and its calls; meas_ran the scheme or engine the call ran */
    int meas_of, meas_ran;
    double meas_t[4];
    uint32_t meas_n[4];
    int direct;                  /* a direct chunk write (H5Dwrite_chunk): dc_hash its offsets, mask, size and bytes */
    uint64_t dc_hash;
    int dc_size;                 /* the file's ranks */
} cd_sum_call;

static uint64_t cd_sum_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The entry of key in t, made when absent; NULL without memory. */
static cd_sum_data *cd_sum_find(cd_sum_tab *t, const char *key)
{
    if (2 * (t->n + 1) > t->nslot) { /* grow the slots (and rehash) */
        size_t ns = t->nslot ? 2 * t->nslot : 64;
        size_t *s = cd_calloc(ns, sizeof *s);
        if (!s) return NULL;
        for (size_t i = 0; i < t->n; i++) {
            size_t k = (size_t)(cd_sum_hash(t->e[i].key) & (ns - 1));
            while (s[k]) k = (k + 1) & (ns - 1);
            s[k] = i + 1;
        }
        cd_free(t->slot);
        t->slot = s;
        t->nslot = ns;
    }
    size_t k = (size_t)(cd_sum_hash(key) & (t->nslot - 1));
    for (; t->slot[k]; k = (k + 1) & (t->nslot - 1))
        if (!strcmp(t->e[t->slot[k] - 1].key, key)) return &t->e[t->slot[k] - 1].d;
    uint64_t cap = t->cap;
    if (cd_grow((void **)&t->e, &cap, t->n + 1, sizeof *t->e)) return NULL;
    t->cap = (size_t)cap;
    const size_t kl = strlen(key) + 1;
    char *kc = cd_malloc(kl);
    if (!kc) return NULL;
    memcpy(kc, key, kl);
    cd_sum_ent *e = &t->e[t->n];
    memset(e, 0, sizeof *e);
    e->key = kc;
    t->slot[k] = ++t->n;
    return &e->d;
}

/* The last key's entry (cd_sum_record), for callers whose name strings stay where they are until they
   say otherwise (cd_sum_forget_last). */
static const char *cd_sum_last_file, *cd_sum_last_dset;
static int cd_sum_last_write = -1;
static size_t cd_sum_last;
static void cd_sum_forget_last(void) { cd_sum_last_file = cd_sum_last_dset = NULL; }

static void cd_sum_free(cd_sum_tab *t)
{
    if (t == &cd_sum) cd_sum_forget_last();
    for (size_t i = 0; i < t->n; i++) cd_free(t->e[i].key);
    cd_free(t->e);
    cd_free(t->slot);
    memset(t, 0, sizeof *t);
}

/* The union of two sets of different ranks (each rank adds itself once, to its own table): the count
   exact, the lowest ranks kept. */
static void cd_rset_merge(cd_rset *a, const cd_rset *b)
{
    int32_t out[CD_SUM_RANKS];
    uint32_t i = 0, j = 0, k = 0;
    const uint32_t na = a->n < CD_SUM_RANKS ? a->n : CD_SUM_RANKS, nb = b->n < CD_SUM_RANKS ? b->n : CD_SUM_RANKS;
    while (k < CD_SUM_RANKS && (i < na || j < nb)) out[k++] = j >= nb || (i < na && a->r[i] < b->r[j]) ? a->r[i++] : b->r[j++];
    memcpy(a->r, out, k * sizeof *out);
    a->n += b->n;
}

/* What the choice of a call colldiag ran measured (x: its transfer), into c: the preload's engines where
   they were measured (the choice between colldiag and HDF5 is the one a program under the preload
   asks about), else AUTO's schemes where AUTO measured (not COLLDIAG_AUTO_MODE=estimate). */
static void cd_sum_measured(cd_sum_call *c, const colldiag_xfer *x)
{
    if (x->eng_kind) {
        c->meas_of = CD_SUM_MEAS_ENGINES;
        c->meas_ran = 1;
        for (int e = 0; e < 2; e++) { c->meas_t[e] = x->eng_t[e]; c->meas_n[e] = x->eng_n[e]; }
    } else if (x->auto_s >= 0 && x->meas_kind > 0) {
        c->meas_of = CD_SUM_MEAS_AUTO;
        c->meas_ran = x->auto_s;
        memcpy(c->meas_t, x->meas_t, sizeof c->meas_t);
        memcpy(c->meas_n, x->meas_n, sizeof c->meas_n);
    }
}

/* The call, into this rank's counters. Local: no communication. The last key's entry is remembered (a
   program writes a dataset many times in a row): no key is formatted or hashed for it again. */
static void cd_sum_record(const cd_sum_call *c)
{
    static int me = -1;
    const char *last_file = cd_sum_last_file, *last_dset = cd_sum_last_dset;
    const int last_write = cd_sum_last_write;
    const size_t last = cd_sum_last;
    if (cd_sum_done) return;
    cd_sum_data *d = NULL;
    if (c->stable && c->file == last_file && c->dataset == last_dset && c->write == last_write && last < cd_sum.n) d = &cd_sum.e[last].d;
    if (!d) {
        char key[2100];
        snprintf(key, sizeof key, "%s\t%s\t%c", c->file ? c->file : "", c->dataset ? c->dataset : "", c->write ? 'W' : 'R');
        d = cd_sum_find(&cd_sum, key);
        if (!d) return;
        cd_sum_last = (size_t)(((const char *)d - (const char *)&cd_sum.e[0].d) / (ptrdiff_t)sizeof *cd_sum.e);
        cd_sum_last_file = c->stable ? c->file : NULL;
        cd_sum_last_dset = c->stable ? c->dataset : NULL;
        cd_sum_last_write = c->write;
    }
    if (me < 0) MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const uint64_t cnt = c->counts != 0;
    d->u[CD_SUM_CALLS] += cnt;
    d->u[CD_SUM_RANK_CALLS]++;
    d->u[CD_SUM_CALLS_COLLECTIVE] += cnt && c->collective;
    d->u[CD_SUM_BYTES] += c->bytes;
    uint64_t bc = c->bytes_coll, bi = c->bytes_ind;
    if (bc + bi != c->bytes) { /* not split by the engine: by the call's I/O mode (a mixed call's bytes count as collective) */
        const int coll = c->io_mode == COLLDIAG_MPIO_CHUNK_COLLECTIVE || c->io_mode == COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE ||
                         c->io_mode == COLLDIAG_MPIO_CHUNK_MIXED || c->io_mode == COLLDIAG_MPIO_CHUNK_CONTIGUOUS_COLLECTIVE;
        bc = coll ? c->bytes : 0;
        bi = coll ? 0 : c->bytes;
    }
    d->u[CD_SUM_BYTES_COLL] += bc;
    d->u[CD_SUM_BYTES_IND] += bi;
    d->u[c->colldiag ? CD_SUM_CALLS_CD : CD_SUM_CALLS_H5] += cnt;
    d->u[c->colldiag ? CD_SUM_BYTES_CD : CD_SUM_BYTES_H5] += c->bytes;
    d->u[CD_SUM_CALLS_LEASED] += cnt && c->leased;
    if (c->meas_of) {
        d->meas_seq = d->u[CD_SUM_RANK_CALLS];
        d->meas_of = c->meas_of;
        d->meas_ran = c->meas_ran;
        memcpy(d->meas_t, c->meas_t, sizeof d->meas_t);
        memcpy(d->meas_n, c->meas_n, sizeof d->meas_n);
    }
    d->t[CD_SUM_SECS] += c->secs;
    d->t[c->colldiag ? CD_SUM_SECS_CD : CD_SUM_SECS_H5] += c->secs;
    if (cnt && c->risk) {
        d->u[CD_SUM_RISK] += c->risk;
        d->u[CD_SUM_RISK_CALLS]++;
        if (!d->risk_why[0] && c->risk_why) { /* the first reason, cut to fit */
            const size_t n = strnlen(c->risk_why, sizeof d->risk_why - 1);
            memcpy(d->risk_why, c->risk_why, n);
            d->risk_why[n] = 0;
        }
    }
    if (c->filt_known) { /* every rank its own chunks: summed, they are HDF5's inflations */
        d->u[CD_SUM_FILT_CALLS] += cnt;
        d->u[CD_SUM_FILT_CHUNKS] += c->filt_chunks;
        d->u[CD_SUM_FILT_STORED] += c->filt_stored;
        d->u[CD_SUM_FILT_RAW] += c->filt_raw;
        d->u[CD_SUM_FILT_SHARED] += c->filt_shared;
    }
    if (c->dec_known) { /* every rank its own decodes: summed, each chunk once */
        d->u[CD_SUM_DEC_CALLS] += cnt;
        d->u[CD_SUM_DEC_CHUNKS] += c->dec_chunks;
        d->u[CD_SUM_DEC_STORED] += c->dec_stored;
        d->u[CD_SUM_DEC_RAW] += c->dec_raw;
        d->u[CD_SUM_DEC_HDF5] += c->dec_readers;
        d->u[CD_SUM_DEC_NS] += c->dec_secs > 0 ? (uint64_t)(c->dec_secs * 1e9 + 0.5) : 0;
    }
    if (cnt && c->made_safe) {
        d->u[CD_SUM_SAFE] += c->made_safe;
        d->u[CD_SUM_SAFE_CALLS]++;
    }
    if (cnt && c->kept) {
        d->u[CD_SUM_KEPT] += c->kept;
        d->u[CD_SUM_KEPT_CALLS]++;
    }
    if (cnt && c->planned >= 0) {
        d->u[CD_SUM_PLANNED] += c->planned > 0;
        d->u[CD_SUM_DISAGREE] += c->planned > 0 && !c->agree;
    }
    /* the model's estimates, scaled to the measured time: its ratios, not its seconds, are what it knows */
    if (c->est_hdf5 > 0 && c->est_best >= 0 && c->est_best < c->est_hdf5 && c->best >= 0 && c->best < 4) {
        d->u[CD_SUM_EST_CALLS] += cnt;
        const double save = c->secs * (1.0 - c->est_best / c->est_hdf5);
        if (c->colldiag) d->t[CD_SUM_SAVED] += save;
        else d->t[CD_SUM_SAVE_LINK + c->best] += save;
    }
    if (c->io_mode >= 0 && c->io_mode < CD_SUM_NMODE) {
        d->mode_calls[c->io_mode] += cnt;
        d->mode_bytes[c->io_mode] += c->bytes;
    }
    /* a cause that kept this call independent: the call's global cause (a collective call's, alike
       everywhere; counted once), the ranks that raised it by their local cause */
    const uint32_t g = c->collective ? c->global_cause : c->local_cause;
    for (int b = 0; b < CD_SUM_NCAUSE; b++) {
        const uint32_t bit = 1u << b;
        if (g & bit) {
            d->cause_calls[b] += cnt;
            d->cause_bytes[b] += c->bytes;
            d->cause_secs[b] += c->secs;
        }
        if ((c->local_cause & bit) && d->cause_ranks[b].n == 0) { /* this rank raised it (in its own table: once) */
            d->cause_ranks[b].n = 1;
            d->cause_ranks[b].r[0] = me;
        }
    }
    if (c->direct) { /* this rank's direct chunk writes, hashed in the order it made them */
        if (!d->dc_ranks) {
            d->dc_ranks = 1;
            d->dc_who.n = 1;
            d->dc_who.r[0] = me;
            d->dc_hmin = 1469598103934665603ull;
        }
        d->dc_calls++;
        d->dc_bytes += c->bytes;
        d->dc_hmin = d->dc_hmax = (d->dc_hmin ^ c->dc_hash) * 1099511628211ull;
        if ((uint32_t)c->dc_size > d->dc_size) d->dc_size = (uint32_t)c->dc_size;
    }
    cd_sum_data *run = c->local_cause ? cd_sum_find(&cd_sum, cd_sum_run_key) : NULL;
    for (int b = 0; run && b < CD_SUM_NCAUSE; b++)
        if ((c->local_cause & 1u << b) && run->cause_ranks[b].n == 0) {
            run->cause_ranks[b].n = 1;
            run->cause_ranks[b].r[0] = me;
        }
}

/* A read whose destination the preload populated before the call (bytes: its whole pages), on this rank. */
CD_MAYBE_UNUSED static void cd_sum_prefault(uint64_t bytes)
{
    cd_sum_data *run = cd_sum_find(&cd_sum, cd_sum_run_key);
    if (!run) return;
    run->u[CD_SUM_PF_CALLS]++;
    run->u[CD_SUM_PF_BYTES] += bytes;
}

/* b's counters into a's (the same key). */
static void cd_sum_merge(cd_sum_data *a, const cd_sum_data *b)
{
    for (int i = 0; i < CD_SUM_NU; i++) a->u[i] += b->u[i];
    for (int i = 0; i < CD_SUM_NT; i++)
        if (b->t[i] > a->t[i]) a->t[i] = b->t[i];
    for (int k = 0; k < CD_SUM_NCAUSE; k++) {
        a->cause_calls[k] += b->cause_calls[k];
        a->cause_bytes[k] += b->cause_bytes[k];
        if (b->cause_secs[k] > a->cause_secs[k]) a->cause_secs[k] = b->cause_secs[k];
        cd_rset_merge(&a->cause_ranks[k], &b->cause_ranks[k]);
    }
    for (int k = 0; k < CD_SUM_NMODE; k++) {
        a->mode_calls[k] += b->mode_calls[k];
        a->mode_bytes[k] += b->mode_bytes[k];
    }
    if (!a->risk_why[0]) memcpy(a->risk_why, b->risk_why, sizeof a->risk_why);
    if (b->meas_of && (!a->meas_of || b->meas_seq > a->meas_seq)) {
        a->meas_seq = b->meas_seq;
        a->meas_of = b->meas_of;
        a->meas_ran = b->meas_ran;
        memcpy(a->meas_t, b->meas_t, sizeof a->meas_t);
        memcpy(a->meas_n, b->meas_n, sizeof a->meas_n);
    }
    if (b->dc_ranks) {
        if (!a->dc_ranks) { a->dc_hmin = b->dc_hmin; a->dc_hmax = b->dc_hmax; }
        if (b->dc_hmin < a->dc_hmin) a->dc_hmin = b->dc_hmin;
        if (b->dc_hmax > a->dc_hmax) a->dc_hmax = b->dc_hmax;
        a->dc_ranks += b->dc_ranks;
        a->dc_calls += b->dc_calls;
        a->dc_bytes += b->dc_bytes;
        if (b->dc_size > a->dc_size) a->dc_size = b->dc_size;
        cd_rset_merge(&a->dc_who, &b->dc_who);
    }
}

/* A table as bytes: for each entry its key's length (uint32), the key, its counters (every rank runs
   the same binary: the struct's bytes are alike). *len; NULL without memory. */
static unsigned char *cd_sum_pack(const cd_sum_tab *t, uint64_t *len)
{
    uint64_t n = 0;
    for (size_t i = 0; i < t->n; i++) n += sizeof(uint32_t) + strlen(t->e[i].key) + sizeof(cd_sum_data);
    unsigned char *b = cd_malloc(n ? n : 1), *p = b;
    if (!b) return NULL;
    for (size_t i = 0; i < t->n; i++) {
        const uint32_t kl = (uint32_t)strlen(t->e[i].key);
        memcpy(p, &kl, sizeof kl);
        memcpy(p + sizeof kl, t->e[i].key, kl);
        memcpy(p + sizeof kl + kl, &t->e[i].d, sizeof t->e[i].d);
        p += sizeof kl + kl + sizeof t->e[i].d;
    }
    *len = n;
    return b;
}

/* A packed table's entries, merged into t by key. -1 if the bytes do not parse (or no memory). */
static int cd_sum_unpack_merge(cd_sum_tab *t, const unsigned char *b, uint64_t len)
{
    uint64_t k = 0;
    char key[2200];
    while (k < len) {
        uint32_t kl;
        if (len - k < sizeof kl) return -1;
        memcpy(&kl, b + k, sizeof kl);
        if (kl >= sizeof key || len - k - sizeof kl < (uint64_t)kl + sizeof(cd_sum_data)) return -1;
        memcpy(key, b + k + sizeof kl, kl);
        key[kl] = 0;
        cd_sum_data d;
        memcpy(&d, b + k + sizeof kl + kl, sizeof d);
        cd_sum_data *a = cd_sum_find(t, key);
        if (!a) return -1;
        cd_sum_merge(a, &d);
        k += sizeof kl + kl + sizeof d;
    }
    return 0;
}

/* Collective over comm: every rank's table merged into rank 0's by a binomial tree (log2 P steps, each
   message one subtree's merged table: rank 0 never holds more than one table per step). A rank whose
   table cannot be packed sends an empty one: its counters are lost, nobody waits. */
static void cd_sum_combine(MPI_Comm comm, cd_sum_tab *t)
{
    int me = 0, P = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    for (int step = 1; step < P; step <<= 1) {
        if (me & step) { /* send this subtree's table to its parent, and stop */
            uint64_t len = 0;
            unsigned char *b = cd_sum_pack(t, &len);
            if (!b || len > (uint64_t)INT_MAX) len = 0;
            MPI_Send(&len, 1, MPI_UINT64_T, me - step, 7301, comm);
            if (len) MPI_Send(b, (int)len, MPI_BYTE, me - step, 7302, comm);
            cd_free(b);
            return;
        }
        if (me + step < P) {
            uint64_t len = 0;
            MPI_Recv(&len, 1, MPI_UINT64_T, me + step, 7301, comm, MPI_STATUS_IGNORE);
            unsigned char *b = len ? cd_malloc(len) : NULL;
            if (len) MPI_Recv(b ? (void *)b : (void *)&len, b ? (int)len : 0, MPI_BYTE, me + step, 7302, comm, MPI_STATUS_IGNORE);
            if (b) cd_sum_unpack_merge(t, b, len);
            cd_free(b);
        }
    }
}

/* ---- bytes at risk found by the summary alone ----
   COLLDIAG_REPORT=summary plans no call (a plan agrees, which costs a collective a call), yet the most
   important line of a run must not depend on the expensive mode. A collective write that may be at risk
   (storage past the end of the file without a written fill, or compact storage: the preload's
   sum_risk_possible, from the dataset's facts and the file's size) records this rank's words of the
   prediction (cd_risk_local: the same as a plan's first reduction), keyed by its file, dataset and the
   ordinal of the collective write on it, which every rank of the file's communicator counts alike. At the
   end the ranks merge the records by key with the agreement's own operator (cd_agree_fn), in the same
   binomial tree as the counters, and rank 0 counts each call's bytes at risk as the plan would have
   (risk_count): exact, at no communication per call. Memory: one record (~400 bytes) a write that may
   be at risk, at most CD_SUM_RISK_MAX a rank; beyond, the calls are counted as not examined. */
#define CD_SUM_RISK_MAX 4096
typedef struct {
    char *key;                   /* "FILE\tDATASET\tW\tN": the N-th collective write of the dataset */
    uint64_t v[AG_N];            /* the words, merged by cd_agree_fn */
    uint32_t kind;               /* bit 0: HDF5's path was one collective write; bit 1: sieved independent writes;
                                    bit 2: a collective read (COLLDIAG_RISK_READS) */
    uint64_t cap;                /* the dataset's bytes (compact storage's bound) */
} cd_sum_rrec;
static cd_sum_rrec *cd_sum_rr;
static size_t cd_sum_nrr;
static uint64_t cd_sum_rr_cap, cd_sum_rr_over; /* records not kept: over CD_SUM_RISK_MAX */

static cd_sum_rrec *cd_sum_rr_find(const char *key, int make)
{
    for (size_t i = 0; i < cd_sum_nrr; i++)
        if (!strcmp(cd_sum_rr[i].key, key)) return &cd_sum_rr[i];
    if (!make || cd_grow((void **)&cd_sum_rr, &cd_sum_rr_cap, cd_sum_nrr + 1, sizeof *cd_sum_rr)) return NULL;
    cd_sum_rrec *r = &cd_sum_rr[cd_sum_nrr];
    const size_t kl = strlen(key) + 1;
    if (!(r->key = cd_malloc(kl))) return NULL;
    memcpy(r->key, key, kl);
    cd_sum_nrr++;
    return r;
}

/* b into a (the same key): the agreement's operator on the words. */
static void cd_sum_rr_merge(cd_sum_rrec *a, const uint64_t *v, uint32_t kind, uint64_t cap)
{
    int n = AG_N;
    cd_agree_fn((void *)v, a->v, &n, NULL);
    a->kind |= kind;
    if (cap > a->cap) a->cap = cap;
}

/* The call's words, into this rank's records (local). */
CD_MAYBE_UNUSED static void cd_sum_risk_record(const char *file, const char *dset, uint64_t seq, const uint64_t v[AG_N], uint32_t kind, uint64_t cap)
{
    if (cd_sum_done) return;
    char key[2200];
    snprintf(key, sizeof key, "%s\t%s\t%c\t%" PRIu64, file ? file : "", dset ? dset : "", kind & 4 ? 'R' : 'W', seq);
    cd_sum_rrec *r = cd_sum_nrr < CD_SUM_RISK_MAX ? cd_sum_rr_find(key, 1) : NULL;
    if (!r) { cd_sum_rr_over++; return; }
    memcpy(r->v, v, sizeof r->v);
    r->kind = kind;
    r->cap = cap;
}

static void cd_sum_rr_free(void)
{
    for (size_t i = 0; i < cd_sum_nrr; i++) cd_free(cd_sum_rr[i].key);
    cd_free(cd_sum_rr);
    cd_sum_rr = NULL;
    cd_sum_nrr = 0;
    cd_sum_rr_cap = 0;
}

/* Collective over comm, as cd_sum_combine: every rank's records merged into rank 0's by key. The count
   of records not kept travels in the first word. */
static void cd_sum_rr_combine(MPI_Comm comm)
{
    int me = 0, P = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    const size_t rec = sizeof(uint32_t) + AG_N * sizeof(uint64_t) + sizeof(uint32_t) + sizeof(uint64_t);
    for (int step = 1; step < P; step <<= 1) {
        if (me & step) {
            uint64_t len = sizeof(uint64_t);
            for (size_t i = 0; i < cd_sum_nrr; i++) len += rec + strlen(cd_sum_rr[i].key);
            unsigned char *b = len <= (uint64_t)INT_MAX ? cd_malloc(len) : NULL, *p = b;
            if (b) {
                memcpy(p, &cd_sum_rr_over, sizeof cd_sum_rr_over);
                p += sizeof cd_sum_rr_over;
                for (size_t i = 0; i < cd_sum_nrr; i++) {
                    const cd_sum_rrec *r = &cd_sum_rr[i];
                    const uint32_t kl = (uint32_t)strlen(r->key);
                    memcpy(p, &kl, sizeof kl); p += sizeof kl;
                    memcpy(p, r->key, kl); p += kl;
                    memcpy(p, r->v, sizeof r->v); p += sizeof r->v;
                    memcpy(p, &r->kind, sizeof r->kind); p += sizeof r->kind;
                    memcpy(p, &r->cap, sizeof r->cap); p += sizeof r->cap;
                }
            } else {
                len = 0;
            }
            MPI_Send(&len, 1, MPI_UINT64_T, me - step, 7303, comm);
            if (len) MPI_Send(b, (int)len, MPI_BYTE, me - step, 7304, comm);
            cd_free(b);
            return;
        }
        if (me + step < P) {
            uint64_t len = 0;
            MPI_Recv(&len, 1, MPI_UINT64_T, me + step, 7303, comm, MPI_STATUS_IGNORE);
            unsigned char *b = len ? cd_malloc(len) : NULL;
            if (len) MPI_Recv(b ? (void *)b : (void *)&len, b ? (int)len : 0, MPI_BYTE, me + step, 7304, comm, MPI_STATUS_IGNORE);
            if (b && len >= sizeof(uint64_t)) {
                uint64_t k = 0, over = 0;
                memcpy(&over, b, sizeof over);
                cd_sum_rr_over += over;
                k = sizeof over;
                char key[2200];
                while (k + sizeof(uint32_t) <= len) {
                    uint32_t kl, kind;
                    uint64_t v[AG_N], cap;
                    memcpy(&kl, b + k, sizeof kl);
                    if (kl >= sizeof key || len - k < rec + kl) break;
                    k += sizeof kl;
                    memcpy(key, b + k, kl); key[kl] = 0; k += kl;
                    memcpy(v, b + k, sizeof v); k += sizeof v;
                    memcpy(&kind, b + k, sizeof kind); k += sizeof kind;
                    memcpy(&cap, b + k, sizeof cap); k += sizeof cap;
                    cd_sum_rrec *r = cd_sum_rr_find(key, 0);
                    if (r) cd_sum_rr_merge(r, v, kind, cap);
                    else if ((r = cd_sum_rr_find(key, 1))) { memcpy(r->v, v, sizeof v); r->kind = kind; r->cap = cap; }
                    else cd_sum_rr_over++;
                }
            }
            cd_free(b);
        }
    }
}

/* Rank 0, after the merge: each recorded call's bytes at risk, as the plan counts them, into its
   dataset's counters. */
static void cd_sum_rr_fold(cd_sum_tab *t)
{
    for (size_t i = 0; i < cd_sum_nrr; i++) {
        const cd_sum_rrec *r = &cd_sum_rr[i];
        uint64_t holes = 0, unk = 0, compact = 0;
        const uint64_t reads = r->kind & 4 ? risk_read_count(r->v) : 0;
        if (!(r->kind & 4)) risk_count(r->v, r->kind & 1, (r->kind >> 1) & 1, r->cap, &holes, &unk, &compact);
        const uint64_t bytes = reads ? reads : compact ? compact : holes;
        if (!bytes) continue;
        char key[2200];
        snprintf(key, sizeof key, "%s", r->key);
        char *tab = strrchr(key, '\t');
        if (tab) *tab = 0; /* the dataset's own key: "FILE\tDATASET\tW" (or R) */
        cd_sum_data *d = cd_sum_find(t, key);
        if (!d) continue;
        d->u[CD_SUM_RISK] += bytes;
        d->u[CD_SUM_RISK_CALLS]++;
        if (!d->risk_why[0])
            snprintf(d->risk_why, sizeof d->risk_why, "%s",
                     reads   ? "a collective read whose ranks overlap, on Open MPI 4.1.0-4.1.4's ompio: its read data sieving returns zeros"
                     : compact ? "compact storage written with different selections or bytes on different ranks: HDF5 keeps one rank's copy"
                     : unk   ? "holes past the end of the file may be left in HDF5's collective write (chunk addresses not known: an estimate)"
                             : "holes past the end of the file in HDF5's collective write: the bytes between the ranks' pieces get MPI-IO's buffer");
    }
}

/* Rank 0, after the merge: direct chunk writes the ranks did not all make alike (some ranks made none,
   or their calls differ) are bytes at risk, all of them: parallel HDF5 keeps its chunk index right only
   when every rank of the file makes the same calls with the same bytes, and says it succeeded either
   way (tests/h5_direct_chunk.c: 126 of 128 values lost on 2 ranks, HDF5 1.10.8). */
static void cd_sum_ranks_text(const cd_rset *s, char *b, size_t n);
static void cd_sum_dc_fold(cd_sum_tab *t)
{
    for (size_t i = 0; i < t->n; i++) {
        cd_sum_data *d = &t->e[i].d;
        if (!d->dc_ranks || d->dc_size < 2 || (d->dc_ranks >= d->dc_size && d->dc_hmin == d->dc_hmax)) continue;
        d->u[CD_SUM_RISK] += d->dc_bytes;
        d->u[CD_SUM_RISK_CALLS] += d->dc_calls;
        if (!d->risk_why[0]) {
            char who[64];
            cd_sum_ranks_text(&d->dc_who, who, sizeof who);
            char why[400] = ""; /* every byte set: the table travels through MPI whole (cd_sum_pack) */
            snprintf(why, sizeof why,
                     "H5Dwrite_chunk by %u of %u ranks (%s), not the same calls on all: parallel HDF5 keeps direct chunk writes only "
                     "then (it says it succeeded); write collectively with H5Dwrite, or every rank every chunk alike",
                     d->dc_ranks, d->dc_size, who);
            memcpy(d->risk_why, why, sizeof d->risk_why - 1); /* cut to fit, as every reason */
            d->risk_why[sizeof d->risk_why - 1] = 0;
        }
    }
}

/* ---- what the summary says ---- */

/* A key's parts: file, dataset, direction. */
static void cd_sum_key(const char *key, char *file, size_t fl, char *dset, size_t dl, int *write)
{
    const char *a = strchr(key, '\t'), *b = a ? strchr(a + 1, '\t') : NULL;
    snprintf(file, fl, "%.*s", a ? (int)(a - key) : (int)strlen(key), key);
    snprintf(dset, dl, "%.*s", b ? (int)(b - a - 1) : 0, a ? a + 1 : "");
    if (!dset[0]) snprintf(dset, dl, "(anonymous)");
    *write = b && b[1] == 'W';
}

/* One piece of advice: what to change, the seconds it would save (an estimate), why, and where. */
typedef struct {
    int kind;                /* 0 bytes at risk (always first), 1 a cause, 2 a scheme */
    double save;             /* estimated seconds saved (bytes at risk: their count, ranked apart) */
    uint64_t risk;
    char change[256], why[400], where[600];
} cd_sum_adv;

/* A cause bit's name, from the table of causes (colldiag.h), like every other report's. */
static const char *cd_sum_cause_name(int b)
{
#define CD_SUM_CAUSE_NAME(n, v, p) if ((1u << b) == (v)) return #n;
    COLLDIAG_CAUSE_TABLE(CD_SUM_CAUSE_NAME)
#undef CD_SUM_CAUSE_NAME
    return "UNKNOWN_CAUSE";
}

/* What removes a cause, in the program's terms. */
static const char *cd_sum_cause_change(int b)
{
    switch (1u << b) {
    case COLLDIAG_MPIO_SET_INDEPENDENT: return "use a collective transfer: H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) (h5py: with dset.collective)";
    case COLLDIAG_MPIO_DATATYPE_CONVERSION: return "write and read the dataset's own type (the memory type differs: HDF5 converts, and without "
                                                   "selection I/O that keeps the call independent)";
    case COLLDIAG_MPIO_DATA_TRANSFORMS: return "drop the data transform (H5Pset_data_transform) and transform in memory";
    case COLLDIAG_MPIO_MPI_OPT_TYPES_ENV_VAR_DISABLED: return "unset HDF5_MPI_OPT_TYPES (or set it to 1)";
    case COLLDIAG_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES: return "give the call a simple or scalar dataspace (a null space moves nothing)";
    case COLLDIAG_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET: return "use contiguous or chunked storage (compact data lives in the object header)";
    case COLLDIAG_MPIO_FILTERS: return "HDF5 writes filtered chunks collectively from 1.10.2 on; check the HDF5 in use";
    case COLLDIAG_MPIO_NO_SELECTION_IO: return "let selection I/O run (H5Pset_selection_io; a conversion's buffer large enough: H5Pset_buffer)";
    case COLLDIAG_MPIO_SET_MPIPOSIX: return "use the MPI-IO driver (H5Pset_fapl_mpio)";
    default: return "see the per-call report (COLLDIAG_REPORT=json:PATH)";
    }
}

static int cd_sum_adv_cmp(const void *x, const void *y)
{
    const cd_sum_adv *a = x, *b = y;
    if (a->kind == 0 || b->kind == 0) { /* bytes at risk first, the most first */
        if (a->kind != b->kind) return a->kind == 0 ? -1 : 1;
        return a->risk < b->risk ? 1 : a->risk > b->risk ? -1 : 0;
    }
    return a->save < b->save ? 1 : a->save > b->save ? -1 : 0;
}

/* The whole run's view, from the merged table (rank 0). */
typedef struct {
    int P;
    uint64_t u[CD_SUM_NU];
    double secs, secs_cd, secs_h5;   /* seconds: the sum over datasets of each one's largest rank's */
    uint64_t cause_calls[CD_SUM_NCAUSE], cause_bytes[CD_SUM_NCAUSE];
    double cause_secs[CD_SUM_NCAUSE];
    cd_rset cause_ranks[CD_SUM_NCAUSE];
    uint64_t mode_calls[CD_SUM_NMODE], mode_bytes[CD_SUM_NMODE];
    cd_sum_adv *adv;
    size_t nadv;
    size_t *top, ntop;               /* the datasets' entry indices by seconds, most first */
} cd_sum_view;

static void cd_sum_where_add(char *w, size_t wl, const char *file, const char *dset, int write)
{
    const size_t k = strlen(w);
    if (k + 8 >= wl) return;
    if (k > wl - 40) { snprintf(w + k, wl - k, ", ..."); return; }
    snprintf(w + k, wl - k, "%s%s:%s (%s)", k ? ", " : "", file, dset, write ? "write" : "read");
}

static const cd_sum_tab *cd_sum_sort_tab; /* qsort's comparator reads it */
static int cd_sum_top_cmp(const void *x, const void *y)
{
    const double a = cd_sum_sort_tab->e[*(const size_t *)x].d.t[CD_SUM_SECS], b = cd_sum_sort_tab->e[*(const size_t *)y].d.t[CD_SUM_SECS];
    return a < b ? 1 : a > b ? -1 : 0;
}

/* The run's totals, causes and advice (rank 0, after cd_sum_combine). 0, or -1 without memory. */
static int cd_sum_build(const cd_sum_tab *t, int P, cd_sum_view *v)
{
    memset(v, 0, sizeof *v);
    v->P = P;
    v->adv = cd_calloc(t->n + CD_SUM_NCAUSE + 3, sizeof *v->adv); /* a risk a dataset, a cause a bit, three schemes */
    v->top = cd_calloc(t->n + 1, sizeof *v->top);
    if (!v->adv || !v->top) return -1;
    /* the rate this run's collective calls achieved: what a call a cause kept independent might have had */
    double coll_secs = 0;
    uint64_t coll_bytes = 0;
    for (size_t i = 0; i < t->n; i++) {
        const cd_sum_data *d = &t->e[i].d;
        uint32_t causes = 0;
        for (int b = 0; b < CD_SUM_NCAUSE; b++) causes |= d->cause_calls[b] || d->cause_bytes[b] ? 1u << b : 0;
        if (!causes) { coll_secs += d->t[CD_SUM_SECS]; coll_bytes += d->u[CD_SUM_BYTES]; }
    }
    const double rate = coll_secs > 0 && coll_bytes ? (double)coll_bytes / coll_secs : 0;
    cd_sum_adv *scheme = &v->adv[v->nadv++]; /* the engine's advice, over every dataset: COLLDIAG_ACCELERATE=1 */
    scheme->kind = 2;
    cd_sum_adv *chunk_opt[2] = {&v->adv[v->nadv++], &v->adv[v->nadv++]}; /* the DXPL's chunk optimisation: link, multi */
    chunk_opt[0]->kind = chunk_opt[1]->kind = 2;
    size_t ntop = 0;
    for (size_t i = 0; i < t->n; i++) {
        const cd_sum_data *d = &t->e[i].d;
        if (!strcmp(t->e[i].key, cd_sum_run_key)) { /* the run's ranks by cause */
            memcpy(v->cause_ranks, d->cause_ranks, sizeof v->cause_ranks);
            v->u[CD_SUM_PF_CALLS] += d->u[CD_SUM_PF_CALLS];
            v->u[CD_SUM_PF_BYTES] += d->u[CD_SUM_PF_BYTES];
            continue;
        }
        char file[1024], dset[1024];
        int w;
        cd_sum_key(t->e[i].key, file, sizeof file, dset, sizeof dset, &w);
        v->top[ntop++] = i;
        for (int k = 0; k < CD_SUM_NU; k++) v->u[k] += d->u[k];
        v->secs += d->t[CD_SUM_SECS];
        v->secs_cd += d->t[CD_SUM_SECS_CD];
        v->secs_h5 += d->t[CD_SUM_SECS_H5];
        for (int k = 0; k < CD_SUM_NMODE; k++) {
            v->mode_calls[k] += d->mode_calls[k];
            v->mode_bytes[k] += d->mode_bytes[k];
        }
        if (d->u[CD_SUM_RISK]) {
            cd_sum_adv *a = &v->adv[v->nadv++];
            a->kind = 0;
            a->risk = d->u[CD_SUM_RISK];
            snprintf(a->change, sizeof a->change, "%s", strstr(d->risk_why, "compact") ? "write the same bytes on every rank, or use contiguous or "
                                                                                         "chunked storage"
                                                                                       : "give the dataset a fill value (H5Pset_fill_time(dcpl, "
                                                                                         "H5D_FILL_TIME_ALLOC)), or COLLDIAG_ACCELERATE=1");
            snprintf(a->why, sizeof a->why, "%" PRIu64 " bytes at risk in %" PRIu64 " call%s: %s", d->u[CD_SUM_RISK], d->u[CD_SUM_RISK_CALLS],
                     d->u[CD_SUM_RISK_CALLS] == 1 ? "" : "s", d->risk_why);
            cd_sum_where_add(a->where, sizeof a->where, file, dset, w);
        }
        for (int b = 0; b < CD_SUM_NCAUSE; b++) {
            if (!d->cause_calls[b] && !d->cause_bytes[b] && !d->cause_ranks[b].n) continue;
            v->cause_calls[b] += d->cause_calls[b];
            v->cause_bytes[b] += d->cause_bytes[b];
            v->cause_secs[b] += d->cause_secs[b];
        }
        /* the model's best scheme over HDF5's path: colldiag runs any of them (COLLDIAG_ACCELERATE=1); link and
           multi-chunk the DXPL can ask of HDF5 itself */
        const double sv[4] = {d->t[CD_SUM_SAVE_LINK], d->t[CD_SUM_SAVE_MULTI], d->t[CD_SUM_SAVE_AGG], d->t[CD_SUM_SAVE_IND]};
        const double all = sv[0] + sv[1] + sv[2] + sv[3];
        if (all > 0) {
            scheme->save += all;
            cd_sum_where_add(scheme->where, sizeof scheme->where, file, dset, w);
        }
        for (int k = 0; k < 2; k++)
            if (sv[k] > 0) {
                chunk_opt[k]->save += sv[k];
                cd_sum_where_add(chunk_opt[k]->where, sizeof chunk_opt[k]->where, file, dset, w);
            }
    }
    /* a cause's advice: the time of the calls it kept independent, less what they would take at the rate of
       this run's collective calls (all of it when there were none to compare with) */
    for (int b = 0; b < CD_SUM_NCAUSE; b++) {
        if (!v->cause_calls[b] && !v->cause_bytes[b]) continue;
        cd_sum_adv *a = &v->adv[v->nadv++];
        a->kind = 1;
        const double at_rate = rate > 0 ? (double)v->cause_bytes[b] / rate : 0;
        a->save = v->cause_secs[b] > at_rate ? v->cause_secs[b] - at_rate : 0;
        snprintf(a->change, sizeof a->change, "%s", cd_sum_cause_change(b));
        snprintf(a->why, sizeof a->why, "cause 0x%x %s kept %" PRIu64 " call%s independent (%" PRIu64 " bytes, %.3g s)%s", 1u << b, cd_sum_cause_name(b),
                 v->cause_calls[b], v->cause_calls[b] == 1 ? "" : "s", v->cause_bytes[b], v->cause_secs[b],
                 rate > 0 ? ", saving estimated at the rate of this run's collective calls" : "");
        for (size_t i = 0; i < t->n; i++)
            if (t->e[i].d.cause_calls[b] || t->e[i].d.cause_bytes[b]) {
                char file[1024], dset[1024];
                int w;
                cd_sum_key(t->e[i].key, file, sizeof file, dset, sizeof dset, &w);
                cd_sum_where_add(a->where, sizeof a->where, file, dset, w);
            }
    }
    snprintf(scheme->change, sizeof scheme->change, "COLLDIAG_ACCELERATE=1 (colldiag runs the calls HDF5 runs slower: aggregation, all-independent, "
                                                    "or HDF5's own schemes where they are best)");
    snprintf(scheme->why, sizeof scheme->why, "the cost model's best scheme beats HDF5's path on these calls (estimated from the plans of the "
                                              "calls HDF5 ran)");
    snprintf(chunk_opt[0]->change, sizeof chunk_opt[0]->change, "H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_ONE_IO)");
    snprintf(chunk_opt[0]->why, sizeof chunk_opt[0]->why, "link-chunk is the model's best for these calls and HDF5 chose multi-chunk");
    snprintf(chunk_opt[1]->change, sizeof chunk_opt[1]->change, "H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_MULTI_IO)");
    snprintf(chunk_opt[1]->why, sizeof chunk_opt[1]->why, "multi-chunk is the model's best for these calls and HDF5 chose link-chunk");
    /* advice that saves nothing is not advice */
    size_t k = 0;
    for (size_t i = 0; i < v->nadv; i++)
        if (v->adv[i].kind != 2 || v->adv[i].save > 0) v->adv[k++] = v->adv[i]; /* a cause stays: its saving is a guess */
    v->nadv = k;
    qsort(v->adv, v->nadv, sizeof *v->adv, cd_sum_adv_cmp);
    cd_sum_sort_tab = t;
    v->ntop = ntop;
    qsort(v->top, ntop, sizeof *v->top, cd_sum_top_cmp);
    return 0;
}

static void cd_sum_view_free(cd_sum_view *v)
{
    cd_free(v->adv);
    cd_free(v->top);
}

static void cd_sum_ranks_text(const cd_rset *s, char *b, size_t n)
{
    size_t k = 0;
    const uint32_t m = s->n < CD_SUM_RANKS ? s->n : CD_SUM_RANKS;
    for (uint32_t i = 0; i < m && k < n; i++) k += (size_t)snprintf(b + k, n - k, "%s%d", i ? "," : "", s->r[i]);
    if (s->n > m && k < n) snprintf(b + k, n - k, ",... (%u ranks)", s->n);
}

static void cd_sum_bytes_text(uint64_t b, char *o, size_t n)
{
    if (b >= (uint64_t)1 << 30) snprintf(o, n, "%.2f GiB", (double)b / (1 << 30));
    else if (b >= (uint64_t)1 << 20) snprintf(o, n, "%.2f MiB", (double)b / (1 << 20));
    else if (b >= 1024) snprintf(o, n, "%.1f KiB", (double)b / 1024);
    else snprintf(o, n, "%" PRIu64 " B", b);
}

#define CD_SUM_TOP 10 /* datasets in the table of the top ones */
#define CD_SUM_ADVICE 8

/* The names of what a dataset's last measured call measured: AUTO's schemes or the preload's engines. */
static const char *cd_sum_meas_name(int of, int k, int json)
{
    static const char *const schemes[4] = {"link", "multi", "aggregation", "independent"};
    static const char *const engines[2][2] = {{"HDF5's path", "colldiag's"}, {"hdf5", "colldiag"}};
    if (of == CD_SUM_MEAS_ENGINES) return k >= 0 && k < 2 ? engines[json != 0][k] : "?";
    return k >= 0 && k < 4 ? schemes[k] : "?";
}

/* Under a dataset's row of the text summary, what the choice of its last measured call knew: "measured
   (the engines, at its last measured call): HDF5's path 1.02 ms a call (7 calls), colldiag's 10 ms a call
   (4 calls); it ran HDF5's path" (each a median agreed call). */
static void cd_sum_measured_text(const cd_sum_data *d, FILE *o)
{
    if (!d->meas_of) return;
    const int n = d->meas_of == CD_SUM_MEAS_ENGINES ? 2 : 4;
    fprintf(o, "        measured (%s, at its last measured call):", d->meas_of == CD_SUM_MEAS_ENGINES ? "the engines" : "AUTO's schemes");
    int any = 0;
    for (int k = 0; k < n; k++) {
        if (!d->meas_n[k] || d->meas_t[k] < 0) continue;
        fprintf(o, "%s %s %.3g ms a call (%u call%s)", any ? "," : "", cd_sum_meas_name(d->meas_of, k, 0), d->meas_t[k] * 1e3, d->meas_n[k],
                d->meas_n[k] == 1 ? "" : "s");
        any = 1;
    }
    fprintf(o, "%s; it ran %s\n", any ? "" : " nothing yet", cd_sum_meas_name(d->meas_of, d->meas_ran, 0));
}

/* The one screen (rank 0). cost: the seconds the combine took. */
static void cd_sum_print_text(const cd_sum_tab *t, const cd_sum_view *v, double cost, const char *scope, FILE *o)
{
    char b1[64], b2[64], b3[64];
    cd_sum_bytes_text(v->u[CD_SUM_BYTES], b1, sizeof b1);
    fprintf(o, "== colldiag run summary%s: %d rank%s, %" PRIu64 " calls (%" PRIu64 " collective), %s, %.3f s in the calls\n", scope, v->P,
            v->P == 1 ? "" : "s", v->u[CD_SUM_CALLS], v->u[CD_SUM_CALLS_COLLECTIVE], b1, v->secs);
    cd_sum_bytes_text(v->u[CD_SUM_BYTES_CD], b1, sizeof b1);
    cd_sum_bytes_text(v->u[CD_SUM_BYTES_H5], b2, sizeof b2);
    fprintf(o, "   engine:   colldiag %" PRIu64 " calls, %s, %.3f s; HDF5 %" PRIu64 " calls, %s, %.3f s", v->u[CD_SUM_CALLS_CD], b1, v->secs_cd,
            v->u[CD_SUM_CALLS_H5], b2, v->secs_h5);
    if (v->u[CD_SUM_CALLS_LEASED])
        fprintf(o, " (%" PRIu64 " of them reads leased to HDF5's path by measurement, without colldiag's agreement)", v->u[CD_SUM_CALLS_LEASED]);
    fputc('\n', o);
    cd_sum_bytes_text(v->u[CD_SUM_BYTES_COLL], b1, sizeof b1);
    cd_sum_bytes_text(v->u[CD_SUM_BYTES_IND], b2, sizeof b2);
    fprintf(o, "   bytes:    collective %s, independent %s\n", b1, b2);
    if (cd_sum_unseen) fprintf(o, "   NOT SEEN: %s\n", cd_sum_unseen);
    if (v->u[CD_SUM_PF_CALLS] || cd_sum_pf_note) {
        cd_sum_bytes_text(v->u[CD_SUM_PF_BYTES], b1, sizeof b1);
        fprintf(o, "   memory:   %" PRIu64 " read%s into memory never touched, %s, populated before the call", v->u[CD_SUM_PF_CALLS],
                v->u[CD_SUM_PF_CALLS] == 1 ? "" : "s", b1);
        if (cd_sum_pf_note) fprintf(o, " (rank 0: %s)", cd_sum_pf_note);
        fputc('\n', o);
    }
    fprintf(o, "   io mode:  ");
    for (int k = 0, any = 0; k < CD_SUM_NMODE; k++)
        if (v->mode_calls[k] || v->mode_bytes[k]) {
            cd_sum_bytes_text(v->mode_bytes[k], b1, sizeof b1);
            fprintf(o, "%s%s %" PRIu64 " calls %s", any++ ? "; " : "", colldiag_io_mode_name((colldiag_actual_io_mode_t)k), v->mode_calls[k], b1);
        }
    fprintf(o, "\n");
    int nc = 0;
    for (int b = 0; b < CD_SUM_NCAUSE; b++) {
        if (!v->cause_calls[b] && !v->cause_bytes[b]) continue;
        if (!nc++) fprintf(o, "   causes that broke collective I/O:\n");
        char rk[160];
        cd_sum_ranks_text(&v->cause_ranks[b], rk, sizeof rk);
        cd_sum_bytes_text(v->cause_bytes[b], b1, sizeof b1);
        fprintf(o, "     0x%x %s: %" PRIu64 " calls, %s, %.3f s; raised by rank%s %s\n", 1u << b, cd_sum_cause_name(b), v->cause_calls[b], b1,
                v->cause_secs[b], v->cause_ranks[b].n == 1 ? "" : "s", rk);
        for (size_t i = 0, shown = 0; i < t->n; i++)
            if (t->e[i].d.cause_calls[b] && shown++ < 4) {
                char file[1024], dset[1024];
                int w;
                cd_sum_key(t->e[i].key, file, sizeof file, dset, sizeof dset, &w);
                fprintf(o, "       %s:%s (%s) %" PRIu64 " calls\n", file, dset, w ? "write" : "read", t->e[i].d.cause_calls[b]);
            }
    }
    if (!nc && !v->u[CD_SUM_CALLS]) fprintf(o, "   causes:   none seen: colldiag saw no H5Dwrite or H5Dread call%s\n", cd_sum_unseen ? " (see NOT SEEN)" : "");
    else if (!nc) fprintf(o, "   causes:   none: every call that could be collective was\n");
    if (v->u[CD_SUM_RISK]) {
        fprintf(o, "   bytes at risk in HDF5's path: %" PRIu64 " in %" PRIu64 " calls\n", v->u[CD_SUM_RISK], v->u[CD_SUM_RISK_CALLS]);
        for (size_t i = 0; i < t->n; i++)
            if (t->e[i].d.u[CD_SUM_RISK]) {
                char file[1024], dset[1024];
                int w;
                cd_sum_key(t->e[i].key, file, sizeof file, dset, sizeof dset, &w);
                fprintf(o, "     %s:%s %" PRIu64 " bytes (%.120s)\n", file, dset, t->e[i].d.u[CD_SUM_RISK], t->e[i].d.risk_why);
            }
    }
    if (cd_sum_rr_over)
        fprintf(o, "   bytes at risk not examined: %" PRIu64 " collective writes that may be at risk (past %d a rank; COLLDIAG_REPORT=1 plans every call)\n",
                cd_sum_rr_over, CD_SUM_RISK_MAX);
    if (v->u[CD_SUM_SAFE]) fprintf(o, "   made safe: the file extended by %" PRIu64 " bytes before %" PRIu64 " of HDF5's collective writes\n",
                                   v->u[CD_SUM_SAFE], v->u[CD_SUM_SAFE_CALLS]);
    if (v->u[CD_SUM_KEPT]) fprintf(o, "   kept: %" PRIu64 " bytes of compact data merged across ranks before %" PRIu64 " of HDF5's collective writes\n",
                                   v->u[CD_SUM_KEPT], v->u[CD_SUM_KEPT_CALLS]);
    if (v->u[CD_SUM_FILT_CHUNKS]) {
        char b2[64];
        cd_sum_bytes_text(v->u[CD_SUM_FILT_STORED], b1, sizeof b1);
        cd_sum_bytes_text(v->u[CD_SUM_FILT_RAW], b2, sizeof b2);
        fprintf(o, "   filtered reads: HDF5 inflated %" PRIu64 " chunks in %" PRIu64 " calls (%s read as stored, %s inflated): every rank reads and "
                   "inflates each chunk it selects from; %" PRIu64 " of those inflations were of chunks other ranks inflated too\n",
                v->u[CD_SUM_FILT_CHUNKS], v->u[CD_SUM_FILT_CALLS], b1, b2, v->u[CD_SUM_FILT_SHARED]);
        for (size_t i = 0, shown = 0; i < t->n; i++)
            if (t->e[i].d.u[CD_SUM_FILT_CHUNKS] && shown++ < 4) {
                char file[1024], dset[1024];
                int w;
                cd_sum_key(t->e[i].key, file, sizeof file, dset, sizeof dset, &w);
                cd_sum_bytes_text(t->e[i].d.u[CD_SUM_FILT_STORED], b1, sizeof b1);
                fprintf(o, "     %s:%s %" PRIu64 " chunk inflations, %s stored, %" PRIu64 " shared\n", file, dset, t->e[i].d.u[CD_SUM_FILT_CHUNKS], b1,
                        t->e[i].d.u[CD_SUM_FILT_SHARED]);
            }
    }
    if (v->u[CD_SUM_DEC_CALLS]) {
        char b2[64];
        cd_sum_bytes_text(v->u[CD_SUM_DEC_STORED], b1, sizeof b1);
        cd_sum_bytes_text(v->u[CD_SUM_DEC_RAW], b2, sizeof b2);
        const double s = (double)v->u[CD_SUM_DEC_NS] / 1e9;
        const uint64_t ch = v->u[CD_SUM_DEC_CHUNKS], h5 = v->u[CD_SUM_DEC_HDF5];
        fprintf(o, "   filtered reads through colldiag: %" PRIu64 " calls, %" PRIu64 " chunks (%s stored, %s decoded) each read whole by one rank and "
                   "decoded once, %.3f s decoding over all ranks; HDF5 would inflate them %" PRIu64 " times (each on every rank selecting from it)",
                v->u[CD_SUM_DEC_CALLS], ch, b1, b2, s, h5);
        /* HDF5's inflations at colldiag's measured cost per chunk: the decoding the run did not do */
        if (ch && h5 > ch) fprintf(o, ", about %.3f s at the same cost a chunk", s * (double)h5 / (double)ch);
        fprintf(o, "\n");
    }
    if (v->nadv) {
        fprintf(o, "   what to change first (by the time it would save, estimated):\n");
        for (size_t i = 0; i < v->nadv && i < CD_SUM_ADVICE; i++) {
            const cd_sum_adv *a = &v->adv[i];
            if (a->kind == 0) fprintf(o, "     %zu. %s\n        %s; in %.200s\n", i + 1, a->change, a->why, a->where);
            else fprintf(o, "     %zu. %s (saves ~%.3g s)\n        %s; in %.200s\n", i + 1, a->change, a->save, a->why, a->where);
        }
    } else if (cd_sum_unseen) {
        fprintf(o, "   what to change first: let colldiag see the program's HDF5 calls (NOT SEEN above)\n");
    } else {
        fprintf(o, "   what to change first: nothing the summary can estimate%s\n",
                v->u[CD_SUM_PLANNED] ? "" : " (its estimates come from plans: COLLDIAG_REPORT=json:PATH plans every call, at a cost)");
    }
    fprintf(o, "   top datasets by time:\n     %-40s %-5s %7s %11s %9s %s\n", "file:dataset", "op", "calls", "bytes", "seconds", "engine (calls)");
    for (size_t i = 0; i < v->ntop && i < CD_SUM_TOP; i++) {
        const cd_sum_data *d = &t->e[v->top[i]].d;
        char file[1024], dset[1024], name[2100];
        int w;
        cd_sum_key(t->e[v->top[i]].key, file, sizeof file, dset, sizeof dset, &w);
        const char *base = strrchr(file, '/');
        snprintf(name, sizeof name, "%s:%s", base ? base + 1 : file, dset);
        cd_sum_bytes_text(d->u[CD_SUM_BYTES], b3, sizeof b3);
        fprintf(o, "     %-40.40s %-5s %7" PRIu64 " %11s %9.4f colldiag %" PRIu64 ", HDF5 %" PRIu64 "\n", name, w ? "write" : "read", d->u[CD_SUM_CALLS],
                b3, d->t[CD_SUM_SECS], d->u[CD_SUM_CALLS_CD], d->u[CD_SUM_CALLS_H5]);
        cd_sum_measured_text(d, o);
    }
    if (v->ntop > CD_SUM_TOP) fprintf(o, "     ... %zu more (COLLDIAG_REPORT=summary:PATH writes every one)\n", v->ntop - CD_SUM_TOP);
    fprintf(o, "   (the summary's own cost at the end: %.6f s)\n", cost);
    fflush(o);
}

static void cd_sum_json_str(FILE *o, const char *s) { json_str(o, s); }

/* The same as one JSON object on one line (rank 0). */
static void cd_sum_print_json(const cd_sum_tab *t, const cd_sum_view *v, double cost, const char *scope, FILE *o)
{
    fprintf(o, "{\"summary\":true,\"colldiag\":\"%s\",\"scope\":", colldiag_version());
    cd_sum_json_str(o, scope[0] ? scope + 2 : "every rank");
    fprintf(o, ",\"nprocs\":%d,\"calls\":%" PRIu64 ",\"calls_collective\":%" PRIu64 ",\"rank_calls\":%" PRIu64 ",\"bytes\":%" PRIu64
               ",\"seconds\":%.9f,\"bytes_collective\":%" PRIu64 ",\"bytes_independent\":%" PRIu64, v->P, v->u[CD_SUM_CALLS],
            v->u[CD_SUM_CALLS_COLLECTIVE], v->u[CD_SUM_RANK_CALLS], v->u[CD_SUM_BYTES], v->secs, v->u[CD_SUM_BYTES_COLL], v->u[CD_SUM_BYTES_IND]);
    fprintf(o, ",\"engines\":{\"colldiag\":{\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"seconds\":%.9f},\"hdf5\":{\"calls\":%" PRIu64
               ",\"bytes\":%" PRIu64 ",\"seconds\":%.9f,\"leased\":%" PRIu64 "}}",
            v->u[CD_SUM_CALLS_CD], v->u[CD_SUM_BYTES_CD], v->secs_cd, v->u[CD_SUM_CALLS_H5], v->u[CD_SUM_BYTES_H5], v->secs_h5,
            v->u[CD_SUM_CALLS_LEASED]);
    if (cd_sum_unseen) {
        fprintf(o, ",\"not_seen\":");
        cd_sum_json_str(o, cd_sum_unseen);
    }
    if (v->u[CD_SUM_PF_CALLS] || cd_sum_pf_note) {
        fprintf(o, ",\"prefault\":{\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64, v->u[CD_SUM_PF_CALLS], v->u[CD_SUM_PF_BYTES]);
        if (cd_sum_pf_note) {
            fprintf(o, ",\"why\":");
            cd_sum_json_str(o, cd_sum_pf_note);
        }
        fputc('}', o);
    }
    fprintf(o, ",\"io_modes\":{");
    for (int k = 0, any = 0; k < CD_SUM_NMODE; k++)
        if (v->mode_calls[k] || v->mode_bytes[k])
            fprintf(o, "%s\"%s\":{\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", any++ ? "," : "", colldiag_io_mode_name((colldiag_actual_io_mode_t)k),
                    v->mode_calls[k], v->mode_bytes[k]);
    fprintf(o, "},\"causes\":[");
    for (int b = 0, any = 0; b < CD_SUM_NCAUSE; b++) {
        if (!v->cause_calls[b] && !v->cause_bytes[b]) continue;
        fprintf(o, "%s{\"cause\":\"%s\",\"bit\":%u,\"calls\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"seconds\":%.9f,\"nranks\":%u,\"ranks\":[",
                any++ ? "," : "", cd_sum_cause_name(b), 1u << b, v->cause_calls[b], v->cause_bytes[b], v->cause_secs[b], v->cause_ranks[b].n);
        for (uint32_t i = 0; i < v->cause_ranks[b].n && i < CD_SUM_RANKS; i++) fprintf(o, "%s%d", i ? "," : "", v->cause_ranks[b].r[i]);
        fprintf(o, "],\"datasets\":[");
        for (size_t i = 0, k = 0; i < t->n; i++)
            if (t->e[i].d.cause_calls[b] || t->e[i].d.cause_bytes[b]) {
                char file[1024], dset[1024], both[2100];
                int w;
                cd_sum_key(t->e[i].key, file, sizeof file, dset, sizeof dset, &w);
                snprintf(both, sizeof both, "%s:%s", file, dset);
                fprintf(o, "%s", k++ ? "," : "");
                cd_sum_json_str(o, both);
            }
        fprintf(o, "]}");
    }
    fprintf(o, "],\"bytes_at_risk\":%" PRIu64 ",\"risk\":[", v->u[CD_SUM_RISK]);
    for (size_t i = 0, k = 0; i < t->n; i++)
        if (t->e[i].d.u[CD_SUM_RISK]) {
            char file[1024], dset[1024], both[2100];
            int w;
            cd_sum_key(t->e[i].key, file, sizeof file, dset, sizeof dset, &w);
            snprintf(both, sizeof both, "%s:%s", file, dset);
            fprintf(o, "%s{\"dataset\":", k++ ? "," : "");
            cd_sum_json_str(o, both);
            fprintf(o, ",\"bytes\":%" PRIu64 ",\"calls\":%" PRIu64 ",\"why\":", t->e[i].d.u[CD_SUM_RISK], t->e[i].d.u[CD_SUM_RISK_CALLS]);
            cd_sum_json_str(o, t->e[i].d.risk_why);
            fprintf(o, "}");
        }
    fprintf(o, "],\"made_safe\":{\"bytes\":%" PRIu64 ",\"calls\":%" PRIu64 "},\"compact_kept\":{\"bytes\":%" PRIu64 ",\"calls\":%" PRIu64 "},",
            v->u[CD_SUM_SAFE], v->u[CD_SUM_SAFE_CALLS], v->u[CD_SUM_KEPT], v->u[CD_SUM_KEPT_CALLS]);
    fprintf(o, "\"filtered_reads\":{\"calls\":%" PRIu64 ",\"chunk_inflations\":%" PRIu64 ",\"stored_bytes\":%" PRIu64 ",\"inflated_bytes\":%" PRIu64
               ",\"shared\":%" PRIu64 "},\"filtered_decoded\":{\"calls\":%" PRIu64 ",\"chunks\":%" PRIu64 ",\"stored_bytes\":%" PRIu64
               ",\"decoded_bytes\":%" PRIu64 ",\"hdf5_inflations\":%" PRIu64 ",\"seconds\":%.9f},\"advice\":[",
            v->u[CD_SUM_FILT_CALLS], v->u[CD_SUM_FILT_CHUNKS], v->u[CD_SUM_FILT_STORED], v->u[CD_SUM_FILT_RAW], v->u[CD_SUM_FILT_SHARED],
            v->u[CD_SUM_DEC_CALLS], v->u[CD_SUM_DEC_CHUNKS], v->u[CD_SUM_DEC_STORED], v->u[CD_SUM_DEC_RAW], v->u[CD_SUM_DEC_HDF5],
            (double)v->u[CD_SUM_DEC_NS] / 1e9);
    for (size_t i = 0; i < v->nadv; i++) {
        const cd_sum_adv *a = &v->adv[i];
        fprintf(o, "%s{\"change\":", i ? "," : "");
        cd_sum_json_str(o, a->change);
        fprintf(o, ",\"kind\":\"%s\",\"saves_seconds\":%.9f,\"why\":", a->kind == 0 ? "bytes at risk" : a->kind == 1 ? "cause" : "scheme", a->save);
        cd_sum_json_str(o, a->why);
        fprintf(o, ",\"where\":");
        cd_sum_json_str(o, a->where);
        fprintf(o, "}");
    }
    fprintf(o, "],\"datasets\":[");
    for (size_t i = 0; i < v->ntop; i++) {
        const cd_sum_data *d = &t->e[v->top[i]].d;
        char file[1024], dset[1024];
        int w;
        cd_sum_key(t->e[v->top[i]].key, file, sizeof file, dset, sizeof dset, &w);
        fprintf(o, "%s{\"file\":", i ? "," : "");
        cd_sum_json_str(o, file);
        fprintf(o, ",\"dataset\":");
        cd_sum_json_str(o, dset);
        fprintf(o, ",\"op\":\"%s\"", w ? "H5Dwrite" : "H5Dread");
        for (int k = 0; k < CD_SUM_NU; k++) fprintf(o, ",\"%s\":%" PRIu64, cd_sum_names[k], d->u[k]);
        fprintf(o, ",\"seconds\":%.9f,\"seconds_colldiag\":%.9f,\"seconds_hdf5\":%.9f", d->t[CD_SUM_SECS], d->t[CD_SUM_SECS_CD], d->t[CD_SUM_SECS_H5]);
        if (d->meas_of) { /* {"of":"engines"|"auto","ran":NAME,NAME:{"seconds","calls"},...}: each measured one's median call */
            fprintf(o, ",\"measured\":{\"of\":\"%s\",\"ran\":\"%s\"", d->meas_of == CD_SUM_MEAS_ENGINES ? "engines" : "auto",
                    cd_sum_meas_name(d->meas_of, d->meas_ran, 1));
            for (int k = 0; k < (d->meas_of == CD_SUM_MEAS_ENGINES ? 2 : 4); k++)
                if (d->meas_n[k] && d->meas_t[k] >= 0)
                    fprintf(o, ",\"%s\":{\"seconds\":%.9g,\"calls\":%u}", cd_sum_meas_name(d->meas_of, k, 1), d->meas_t[k], d->meas_n[k]);
            fprintf(o, "}");
        }
        fprintf(o, "}");
    }
    fprintf(o, "],\"summary_seconds\":%.9f}\n", cost);
    fflush(o);
}

/* html:PATH: the page opens with the summary: a section put right after the page's heading (the file
   rewritten once, at the end; a page not made yet gets the head first). */
static void cd_sum_html(const cd_sum_tab *t, const cd_sum_view *v, double cost, const char *scope, const char *path)
{
    char *text = NULL, *page = NULL;
    size_t tl = 0, pl = 0;
    FILE *m = open_memstream(&text, &tl);
    if (!m) return;
    cd_sum_print_text(t, v, cost, scope, m);
    fclose(m);
    FILE *in = fopen(path, "r");
    if (in) {
        FILE *pm = open_memstream(&page, &pl);
        char buf[65536];
        size_t n;
        while (pm && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, pm);
        if (pm) fclose(pm);
        fclose(in);
    }
    const char *h1 = page ? strstr(page, "</h1>\n") : NULL;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.summary.tmp", path);
    FILE *o = fopen(tmp, "w");
    if (!o) { free(text); free(page); return; }
    if (h1) fwrite(page, 1, (size_t)(h1 + 6 - page), o);
    else fputs(cd_html_head, o);
    fprintf(o, "<section id=\"cd-summary\" class=\"summary\">\n<h2>The run: what its I/O did and what to change first</h2>\n<pre>");
    html_esc(o, text);
    fprintf(o, "</pre>\n<p>Below, one section per collective call, in the order they ran; from the %d-th on they are collapsed (open one "
               "to draw its chunk grid), so that a page of 10,000 calls opens at once.</p>\n</section>\n", CD_HTML_EAGER + 1);
    if (h1) fwrite(h1 + 6, 1, pl - (size_t)(h1 + 6 - page), o);
    else fputs("</body></html>\n", o);
    fclose(o);
    rename(tmp, path);
    free(text);
    free(page);
}

/* COLLDIAG_REPORT's summary destination: 0 none, 1 text on stdout, 2 JSON to *path (a new file), 3 a JSON
   line appended to *path, 4 the HTML page *path. */
static int cd_sum_dest(const char *mode, const char **path)
{
    *path = NULL;
    if (!mode || !*mode || !strcmp(mode, "0")) return 0;
    if (!strncmp(mode, "summary:", 8)) { *path = mode + 8; return 2; }
    if (!strncmp(mode, "json:", 5)) { *path = mode + 5; return 3; }
    if (!strncmp(mode, "html:", 5)) { *path = mode + 5; return 4; }
    return 1;
}

/* The end of the program's I/O: every rank's counters combined over comm (collective: MPI_Finalize,
   where every rank is), or, when combine is 0 (an exit without MPI_Finalize: no rank may wait for
   another), this rank's alone, written by rank 0 of MPI_COMM_WORLD and marked so. Once a process. */
static void cd_sum_finish(MPI_Comm comm, int combine, const char *mode)
{
    if (cd_sum_done) return;
    cd_sum_done = 1;
    const char *path = NULL;
    const int dest = cd_sum_dest(mode, &path);
    int me = 0, P = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const double t0 = MPI_Wtime();
    if (combine && dest) {
        MPI_Comm c = MPI_COMM_NULL;
        if (MPI_Comm_dup(comm, &c) == MPI_SUCCESS) {
            MPI_Comm_rank(c, &me);
            cd_sum_combine(c, &cd_sum);
            cd_sum_rr_combine(c);
            MPI_Comm_free(&c);
        }
    }
    if (me == 0 && dest) cd_sum_rr_fold(&cd_sum);
    if (me == 0 && dest) cd_sum_dc_fold(&cd_sum);
    if (me == 0 && dest) {
        cd_sum_view v;
        const char *scope = combine ? "" : ": rank 0 only (the program ended without MPI_Finalize; the other ranks' calls are not in it)";
        if (cd_sum_build(&cd_sum, P, &v) == 0) {
            const double cost = MPI_Wtime() - t0;
            FILE *o = dest == 1 ? stdout : dest == 2 ? fopen(path, "w") : dest == 3 ? fopen(path, "a") : NULL;
            if (dest == 4) cd_sum_html(&cd_sum, &v, cost, scope, path);
            else if (o && dest == 1) cd_sum_print_text(&cd_sum, &v, cost, scope, o);
            else if (o) cd_sum_print_json(&cd_sum, &v, cost, scope, o);
            if (o && o != stdout) fclose(o);
        }
        cd_sum_view_free(&v);
    }
    cd_sum_free(&cd_sum);
    cd_sum_rr_free();
}

/* A call of the kit's own (colldiag_write/read), recorded when COLLDIAG_REPORT is set: its key is the
   layout (the kit knows no names). */
static void cd_sum_kit_record(const colldiag_file *f, const colldiag_layout *l, const colldiag_xfer *x, int write, double secs)
{
    char shape[200] = "";
    size_t k = 0;
    for (int d = 0; l && d < l->rank && k < sizeof shape; d++) k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%" PRIu64, d ? "x" : "", l->dims[d]);
    if (l && l->storage == STORE_CHUNKED && k < sizeof shape) {
        k += (size_t)snprintf(shape + k, sizeof shape - k, " in chunks of ");
        for (int d = 0; d < l->rank && k < sizeof shape; d++) k += (size_t)snprintf(shape + k, sizeof shape - k, "%s%" PRIu64, d ? "x" : "", l->cdims[d]);
    }
    char name[260];
    snprintf(name, sizeof name, "%s %s", l ? (l->storage == STORE_CHUNKED ? "chunked" : l->storage == STORE_COMPACT ? "compact" : "contiguous") : "?",
             shape);
    const int coll = x->set.mode == COLLDIAG_MPIO_COLLECTIVE;
    const int hp = x->chunk_opt_done == COLLDIAG_MPIO_MULTI_CHUNK ? 1 : 0;
    cd_sum_call c;
    memset(&c, 0, sizeof c);
    c.file = "(colldiag_write/read)";
    c.dataset = name;
    c.write = write;
    c.colldiag = 1;
    c.collective = coll;
    c.counts = !coll || f->rank == 0;
    c.io_mode = x->io_mode_done;
    c.local_cause = x->local_cause;
    c.global_cause = x->global_cause;
    c.bytes_coll = x->cnt.bytes_collective;
    c.bytes_ind = x->cnt.bytes_independent;
    c.bytes = c.bytes_coll + c.bytes_ind;
    c.secs = secs;
    c.risk = x->risk_bytes;
    c.risk_why = x->risk_why;
    c.est_hdf5 = c.est_best = -1;
    c.planned = -1;
    if (x->model_est[0] >= 0) { /* the kit's own call: what it ran against the best (no HDF5 here) */
        int best = 0;
        for (int i = 1; i < 4; i++)
            if (x->model_est[i] < x->model_est[best]) best = i;
        c.est_hdf5 = x->model_est[hp];
        c.est_best = x->model_est[best];
        c.best = best;
        c.colldiag = 0; /* a scheme HDF5 also has: what another one would save is advice (the kit's engine ran it) */
    }
    cd_sum_measured(&c, x);
    cd_sum_record(&c);
}

int colldiag_summary_write(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL) return cd_fail(COLLDIAG_ERR_ARG, "colldiag_summary_write", "comm is MPI_COMM_NULL");
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const char *mode = me == 0 ? cd_getenv("COLLDIAG_REPORT") : NULL;
    /* rank 0's report setting decides where it goes; every rank takes part in the combine */
    char m[1024] = "";
    if (mode) snprintf(m, sizeof m, "%s", mode);
    MPI_Bcast(m, (int)sizeof m, MPI_CHAR, 0, comm);
    cd_sum_finish(comm, 1, m[0] ? m : "summary");
    return 0;
}
