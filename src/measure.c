/* ====================================================================================================
 * 7b. measure: AUTO learns what each scheme costs from the job's own calls
 *
 * AUTO's model (decision.c, auto_choose) prices each scheme with constants measured on one machine; on
 * another, or across a slow network, they are guesses, and nothing corrects them while the job runs.
 * But every call AUTO decides is a measurement, and a time-step loop calls the same pattern hundreds of
 * times: as FFTW's planner times candidates and keeps wisdom, AUTO times what it runs
 * (COLLDIAG_AUTO_MODE=measure, the default; =estimate keeps the pure model).
 *
 * - A call's time is its slowest rank's: each rank keeps its own elapsed time of the last AUTO call of a
 *   group of ranks (the communicator's members), and the group's next collective call carries it in its
 *   one reduction (AG_MEAS_*: MAX of the times, with the call's pattern and scheme, checked alike), so
 *   that every rank adds the same number to the same table: no collective of its own, and no rank's
 *   clock alone decides anything.
 * - A pattern is a signature of agreed facts only (a rank with another would choose another scheme):
 *   storage and chunk shape, element size, direction, the ranks and nodes, and the agreement's totals
 *   (bytes, chunks, runs, shared pieces) in buckets of a factor of 1.4: a time-step loop's calls share one.
 * - The first call of a pattern runs the model's best, its estimates corrected by what the job has seen
 *   of the model's error: a scheme that ran has its own measured/estimated ratio (a geometric mean over
 *   every pattern of the group that ran it in the call's direction); a scheme that never ran has its
 *   terms (latency, bytes between ranks, collective MPI-IO, independent I/O: decision.c, auto_terms)
 *   scaled by the ratios of the schemes that ran with them (meas_corrected: the network's two terms
 *   from reads and writes alike, the file system's two from the call's direction); a scheme whose one
 *   call was the group's first (it paid the job's set-up: 20x a warm call under IOR) counts as one that
 *   never ran, while that call still lends to the others. From the second call on, the measured best runs
 *   (the median of its last 8 calls), unless a scheme not run yet could beat it: on the pattern's
 *   second and third calls by more than 15% against the best's fastest call once even that ran over
 *   4x its estimate, else by half (a pattern's first call pays for a cold start, which can double it, and a
 *   scheme tried pays its own MPI-IO set-up); from the fourth call by half only (tries belong to a
 *   loop's first calls); or link-chunk or multi-chunk ties with a best that ran as priced (meas_tie).
 *   Then that scheme is
 *   tried, on a real call (never by repeating I/O), at most twice a pattern:
 *   of those that could, the one the lent errors make cheapest. "Could" by the lent estimate while the
 *   best ran within 4x of its estimate; once it ran further off (the model is wrong here), by the lower
 *   of a scheme's own estimate and the lent one, so that no scheme is ruled out by another's error
 *   alone when the choice itself is far off; once two schemes ran over 4x their estimates, by its
 *   estimate times the smaller of their errors at least when it has a term of theirs (the model is off
 *   here across the board it shares with them). A
 *   scheme estimated slower than the best is never tried. The pattern's first call (a cold start) is
 *   left out of its scheme's median once that scheme has others, and ranks at half while it is the only
 *   one (meas_rank_time); it allows a try only when even a quarter of it is over 4x its estimate
 *   and no other scheme has run in the pattern, else the best runs once more, warm, before anything is
 *   tried; and the same once more for the best's second call (a cold start can last two calls).
 * - Wisdom (COLLDIAG_WISDOM=PATH): what was measured is saved when MPI finalizes (the group's first
 *   file's rank 0) and loaded at a group's first collective call, keyed by where it was measured (ranks,
 *   nodes, ranks per node, the MPI library and its I/O component, the file system): wisdom from
 *   elsewhere is ignored, with one line saying why. Every rank reads the file; the
 *   first call's reduction checks they read the same (or none uses it), so a later run starts right at
 *   its first call.
 * Memory: the patterns a group has seen (at most CD_MEAS_SIGS, ~200 bytes each); work: a lookup a call.
 * Tests never time: in test builds COLLDIAG_INJECT=clock:L,M,A,I[,skew[,cold]] gives each scheme its cost
 * (rank r sees scheme k's times 1 + skew ((r + k) mod 4): ranks that disagree on the cheapest; the
 * pattern's first call cold times its cost: a cold start).
 * ==================================================================================================== */

#define CD_MEAS_SAMPLES 8   /* agreed times kept per scheme and pattern: the median of the last ones decides */
#define CD_MEAS_TRIES 2     /* calls a pattern may spend on schemes it has not measured */
#define CD_MEAS_MISJUDGED 2.0 /* a warm best whose fastest call ran over 2x its estimate: the model's ranking is in doubt by
                                 as much as the 2x the halving bar allows for, so a try with no collective MPI-IO set-up
                                 to pay needs only 15% (meas_try_bar) */
#define CD_MEAS_AGG_SWITCH 1.25 /* aggregation's owners' way kept is looked at again once its median exceeds the other
                                   way's time by this (meas_agg_slowed): the preload's engines' CD_ENG_SWITCH, for the
                                   same reason (noise between calls of one way, +-30% here, must not flip it) */
#define CD_MEAS_AGG_RELOOKS 4   /* ... at most this many times a pattern (as CD_ENG_RELOOKS) */
#define CD_MEAS_SIGS 1024   /* patterns remembered per group (the oldest go first beyond) */
#define CD_MEAS_GAIN 0.87   /* an untried scheme is tried when its estimate beats a best far off its own by > 15% */
#define CD_MEAS_TIE 1.1     /* an untried scheme guessed within 10% of the measured best's fastest call (or of its estimate,
                               when it ran under that) is a tie the model cannot break (meas_tie): tried once the best,
                               warm, ran as the model priced it */
#define CD_MEAS_TIE_FIT 1.4 /* ... within 1.4x its estimate, either way: under 1/0.7, so a best the halving bar keeps against a guess
                               15-50% under it (test_auto 3e: the best at 1/0.7 of the next estimate or more) is
                               never a tie */
#define CD_MEAS_PRIOR 1.0   /* the model's constants weigh as much as one call's measurement in a term's correction */
#define CD_MEAS_COLD 0.5    /* ... or, otherwise, halves it (a cold start can double a call; meas_try_bar) */
#define CD_MEAS_FAR 4.0     /* a best measured over 4x its estimate (a cold start's 2x, times the 2x the defaults can be
                               off on a busy or oversubscribed machine) says the model is wrong for this pattern */
#define CD_MEAS_COLD_FAR 0.25 /* a pattern's lone cold first call is "far" only when a quarter of it is: on 8 ranks of 2
                                 cores all-independent's first B1 write ran 21-26 ms, 10x its warm calls and its 2.3 ms
                                 estimate, and half of it sent AUTO to try link-chunk (55-69 ms a call; bench-auto 4x the
                                 best scheme's total); a slow network's error (aggregation at 23-50x) still shows */

/* The model's terms (decision.c, auto_terms): the collective rounds' latency, moving bytes between ranks,
   collective MPI-IO, independent I/O. A scheme's estimate is their sum. */
enum { CD_T_SYNC, CD_T_NET, CD_T_COLL, CD_T_IND, CD_T_N };

static const char *const cd_meas_name[4] = {"link", "multi", "aggregation", "independent"};

/* ln and exp without libm (the kit needs MPI and libc only): ratios of times, within 1e-12..1e12; the
   same arithmetic on every rank, so every rank decides alike. */
static double meas_ln(double x)
{
    if (!(x > 1e-300)) return -690.0;
    int e = 0;
    while (x >= 2.0) { x *= 0.5; e++; }
    while (x < 1.0) { x *= 2.0; e--; }
    const double z = (x - 1.0) / (x + 1.0), z2 = z * z; /* ln x = 2 atanh z, z <= 1/3 */
    double t = z, sum = 0;
    for (int k = 1; k < 30; k += 2) { sum += t / k; t *= z2; }
    return 2.0 * sum + e * 0.69314718055994530942;
}
static double meas_exp(double y)
{
    if (y > 690) y = 690;
    if (y < -690) return 0;
    int k = (int)(y / 0.69314718055994530942);
    double r = y - k * 0.69314718055994530942, term = 1, sum = 1;
    for (int i = 1; i < 25; i++) { term *= r / i; sum += term; }
    for (; k > 0; k--) sum *= 2.0;
    for (; k < 0; k++) sum *= 0.5;
    return sum;
}

typedef struct {
    uint64_t sig;
    double est[4];                  /* the model's estimates at the pattern's last call */
    double t[4][CD_MEAS_SAMPLES];   /* agreed seconds of the scheme's last calls (a ring) */
    uint32_t n[4];                  /* calls measured, each scheme */
    uint32_t tries;                 /* calls spent on schemes not measured before */
    uint32_t engine;                /* 1: the preload's engines of a pattern (t[0] HDF5's path, t[1] colldiag's), not AUTO's schemes */
    uint32_t relooks;               /* engines: times the engine not chosen was measured again */
    double eng_base;                /* engines: the chosen engine's median when it was chosen */
    uint8_t cold1;                  /* k + 1: scheme k's first kept time is the pattern's first call (a cold start); 0 none */
    uint8_t eng_cur, eng_fresh;     /* engines: 1 + the engine chosen (0 learning); 1 + the engine measured afresh (0 none) */
    uint8_t agg_tried, agg_ind;     /* aggregation's owners' runs: moved once by independent calls (a try); kept so (meas_agg_judge) */
    uint8_t agg_relooks;            /* ... times the way not kept was measured again (meas_agg_slowed) */
    double agg_t[2];                /* ... the two ways measured: by collective calls (their median while kept, or a
                                       relook's one call), by independent calls (the try's or a relook's one call, or
                                       their median while kept) */
} cd_sig;

typedef struct cd_group {
    uint64_t id;                    /* the members, hashed (comm_group_id) */
    cd_sig *s;
    size_t n;
    uint64_t cap;
    /* the model's error on this job, per direction (0 writes, 1 reads: their file-system terms are different
       constants, and a read's error is no evidence about a write's; meas_corrected) and scheme */
    double lr[2][4];                /* sum of log(measured / estimated) */
    uint32_t lrn[2][4];
    int setup1;                     /* 1 + 4 direction + the scheme of the group's first agreed call, whose error is in lr
                                       (0 none yet; -1 the first is past): it paid the job's set-up, see meas_corrected */
    double ws[2][4][CD_T_N];        /* sum of each term's share of the scheme's measured estimates */
    int pend, pend_s;               /* the last AUTO call's measurement, carried by the next call's reduction (pend_s -1: no scheme) */
    int pend_v;                     /* ... that call measured aggregation's owners' way not kept (kind 4 or 5) */
    int pend_way;                   /* ... which: 1 independent calls, 0 collective ones */
    int pend_dir;                   /* ... its direction (0 writes, 1 reads) */
    int pend_e;                     /* ... and the preload's engine that ran it (0 HDF5, 1 colldiag; -1 none), of pattern pend_esig */
    uint32_t pend_reps;             /* ... the engine's calls pend_t stands for: 1, or the reads of a lease, at their mean time
                                       (meas_engine_leased) */
    int pend_leased;                /* ... pend_t is a lease's reads' (1), not one agreed call's */
    uint64_t pend_sig, pend_esig;
    double pend_t, pend_est, pend_term[CD_T_N];
    int wis;                        /* wisdom: 0 not asked yet, 1 asked (loaded or not) */
    uint64_t wis_dig;               /* what this rank read (0: nothing), agreed in the first call */
    cd_sig *wis_s;                  /* ... held until the agreement says every rank read the same */
    size_t wis_n;
    int saver;                      /* this rank writes the group's wisdom at the end */
    char where[300];                /* ranks, nodes, ranks per node, MPI, I/O component */
    struct cd_group *next;
} cd_group;
static cd_group *cd_groups;

static cd_group *meas_group(uint64_t id)
{
    if (!id) return NULL;
    cd_group *g = cd_groups;
    while (g && g->id != id) g = g->next;
    if (!g && (g = cd_calloc(1, sizeof *g))) {
        g->id = id;
        g->next = cd_groups;
        cd_groups = g;
    }
    return g;
}

/* Forgets what every group measured (colldiag_auto_forget). */
static void meas_forget(void)
{
    for (cd_group *g = cd_groups, *n; g; g = n) {
        n = g->next;
        cd_free(g->s);
        cd_free(g->wis_s);
        cd_free(g);
    }
    cd_groups = NULL;
}

static int meas_on(const cd_io *io) { return io->set.auto_measure && io->f->group && !io->f->plan_only; }

/* Buckets of a factor of sqrt(2): 0 for 0. */
static uint64_t meas_bucket(uint64_t x)
{
    if (!x) return 0;
    uint64_t b = 0;
    while (x >> (b / 2 + 1)) b += 2;               /* b/2 = floor(log2 x) */
    return b + 1 + (x >= (uint64_t)(1.41421356 * (double)((uint64_t)1 << (b / 2))));
}

/* The call's pattern, from agreed facts only (alike on every rank). */
static uint64_t meas_sig(const cd_io *io)
{
    const colldiag_layout *l = io->l;
    const uint64_t *g = io->g;
    const uint64_t P = (uint64_t)io->f->size;
    uint64_t h = cd_hash_u64(0x5165u, (uint64_t)l->storage * 16u + (uint64_t)l->rank);
    for (int d = 0; d < l->rank; d++) h = cd_hash_u64(h, l->cdims[d]);
    h = cd_hash_u64(h, (uint64_t)l->esize * 4u + (uint64_t)(io->dir == DIR_WRITE || (io->dir == DIR_PLAN && !io->f->plan_read)) * 2u +
                           (uint64_t)io->disjoint);
    h = cd_hash_u64(h, P * 65536u + (uint64_t)(io->f->nodes > 0 ? io->f->nodes : 0));
    h = cd_hash_u64(h, meas_bucket(g[AG_MAX_BYTES]) << 48 | meas_bucket(g[AG_SUM_CHUNKS]) << 32 |
                           meas_bucket(g[AG_MAX_RUNS] > g[AG_SUM_RUNS] / P ? g[AG_MAX_RUNS] : g[AG_SUM_RUNS] / P) << 16 |
                           meas_bucket(g[AG_SUM_PARTIAL]));
    return h;
}

/* The call's direction for the model's errors: 0 writes (a plan of one too), 1 reads. */
static int meas_dir(const cd_io *io) { return !(io->dir == DIR_WRITE || (io->dir == DIR_PLAN && !io->f->plan_read)); }

static cd_sig *meas_find(cd_group *gr, uint64_t sig, int make)
{
    for (size_t i = 0; i < gr->n; i++)
        if (gr->s[i].sig == sig) return &gr->s[i];
    if (!make) return NULL;
    if (gr->n >= CD_MEAS_SIGS) { /* the oldest pattern goes */
        memmove(gr->s, gr->s + 1, (gr->n - 1) * sizeof *gr->s);
        gr->n--;
    }
    if (cd_grow((void **)&gr->s, &gr->cap, gr->n + 1, sizeof *gr->s)) return NULL;
    cd_sig *s = &gr->s[gr->n++];
    memset(s, 0, sizeof *s);
    s->sig = sig;
    return s;
}

static int meas_cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The calls of a pattern measured so far, every scheme's. */
static uint32_t meas_calls(const cd_sig *s) { return s->n[0] + s->n[1] + s->n[2] + s->n[3]; }

/* The pattern's first call is still among scheme k's kept times, and k has others: it is left out of
   k's median. A pattern's first call pays for a cold start (the file's pages, MPI-IO's buffers and
   two-phase set-up: 1.3-3.2x the next calls across 4x2 simulated nodes in bench-auto's trace; a scheme
   first run later in the pattern, 0.9-1.3x), and with it in a median of two, aggregation's 0.083 s cold
   call kept it behind link's 0.05 s while it ran 0.026 s warm (B3w64 writes, unshaped nodes: 2.3x the
   best scheme's total). Wisdom's saved medians are no cold calls. */
static int meas_cold_kept(const cd_sig *s, int k) { return s->cold1 == k + 1 && s->n[k] >= 2 && s->n[k] <= CD_MEAS_SAMPLES; }

/* The median of slot k's kept times (a scheme's, or an engine's), its oldest left out when skip (a cold
   call still kept, with others beside it); -1: never measured. */
static double meas_median_of(const cd_sig *s, int k, int skip)
{
    const uint32_t n = s->n[k] < CD_MEAS_SAMPLES ? s->n[k] : CD_MEAS_SAMPLES, sk = skip && n >= 2 ? 1 : 0;
    if (!n) return -1;
    double v[CD_MEAS_SAMPLES];
    memcpy(v, s->t[k] + sk, (n - sk) * sizeof *v);
    const uint32_t m = n - sk;
    qsort(v, m, sizeof *v, meas_cmp_d);
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

/* The median of a scheme's kept times, the pattern's cold first call left out once the scheme has
   others (meas_cold_kept; -1: never measured). */
static double meas_median(const cd_sig *s, int k) { return meas_median_of(s, k, meas_cold_kept(s, k)); }

/* Scheme k's one call so far is the pattern's first (cold): the measured best has no warm call yet. */
static int meas_cold_only(const cd_sig *s, int k) { return s->n[k] == 1 && s->cold1 == k + 1; }

/* Scheme k ran the pattern's first (cold) call and one more: its median is that second call alone,
   which can still run cold (meas_choose). */
static int meas_one_warm(const cd_sig *s, int k) { return s->n[k] == 2 && s->cold1 == k + 1; }

/* What a scheme's measurement is worth when AUTO picks the measured best: its median, or, when its one
   call so far was the pattern's first (cold), half of it (CD_MEAS_COLD: a cold start can double a
   call), so that the model's first choice runs once more before a scheme measured warm displaces it for
   good. At most once a pattern (then it has two calls). */
static double meas_rank_time(const cd_sig *s, int k)
{
    const double t = meas_median(s, k);
    return t >= 0 && meas_cold_only(s, k) ? CD_MEAS_COLD * t : t;
}

/* The fastest of a scheme's kept times. */
static double meas_min(const cd_sig *s, int k)
{
    const uint32_t n = s->n[k] < CD_MEAS_SAMPLES ? s->n[k] : CD_MEAS_SAMPLES;
    double m = n ? s->t[k][0] : -1;
    for (uint32_t i = 1; i < n; i++) m = s->t[k][i] < m ? s->t[k][i] : m;
    return m;
}

/* Each scheme's estimate corrected by the model's error on this job, two ways.
   ec, the best guess, orders the schemes: a scheme that ran (in any pattern of the group, in the call's
   direction) has its own error, exp(mean log(measured / estimated)), direct evidence; one that never ran
   has its terms, each scaled by the errors of the schemes that ran with it, each scheme's mean error
   weighted by the term's mean share of its estimates, against the model's own word, which weighs as one
   scheme's (CD_MEAS_PRIOR). So a scheme 50 times slower than estimated across a slow network, whose
   estimate was mostly bytes between ranks, makes another that moves bytes between ranks look several
   times slower, and one that does independent I/O only not at all; a scheme counts once however often it
   ran (its calls repeat one error; they do not say more about how it splits among the terms).
   Directions: the collective rounds and the bytes between ranks are the same network either way, so
   their terms learn from reads and writes alike; collective MPI-IO and independent I/O are the file
   system's, priced by other constants for reads and for writes, so a scheme's own error and those two
   terms learn from the call's direction only. Pooled, all-independent's B1 reads at 3x their estimate
   (3 ranks, page cache) priced its writes at 3x too, and the job's first B1 write went to aggregation:
   84 ms against all-independent's 2.7 ms.
   opt, the optimistic guess: the scheme's own evidence if it ran, else the lower of its estimate and ec.
   ec decides whether a try is worth a call while the measured best ran near its estimate (the model
   holds here: across a slow network, once all-independent ran as estimated, link is not tried after
   aggregation ran 50 times its estimate); opt decides once the best ran far over its estimate (the
   model is wrong here, and the lent errors may be what misleads: AUTO must not stay on a choice 20
   times its estimate because the others share a term with it). */
static void meas_corrected(const cd_group *gr, int d, const double est[4], const double term[4][CD_T_N], double ec[4], double opt[4])
{
    for (int k = 0; k < 4; k++) {
        /* A scheme whose one call in the job was the group's first (meas_setup_only) is priced as one
           that never ran, by the others' errors: that call paid the job's set-up */
        const int own = gr->lrn[d][k] > (uint32_t)(gr->setup1 == 1 + 4 * d + k);
        if (own) { ec[k] = opt[k] = est[k] * meas_exp(gr->lr[d][k] / gr->lrn[d][k]); continue; }
        double th[CD_T_N];
        for (int j = 0; j < CD_T_N; j++) {
            double l = 0, w = 0;
            for (int e = 0; e < 2; e++) {
                if (e != d && j != CD_T_SYNC && j != CD_T_NET) continue; /* the file system's terms: this direction's */
                for (int i = 0; i < 4; i++)
                    if (gr->lrn[e][i] && (i != k || e != d)) { /* its own set-up call lends to the others, not to itself */
                        const double share = gr->ws[e][i][j] / gr->lrn[e][i];
                        l += share * gr->lr[e][i] / gr->lrn[e][i];
                        w += share;
                    }
            }
            th[j] = meas_exp(l / (CD_MEAS_PRIOR + w));
        }
        ec[k] = 0;
        for (int j = 0; j < CD_T_N; j++) ec[k] += term[k][j] * th[j];
        opt[k] = ec[k] < est[k] ? ec[k] : est[k];
    }
}

/* The pending measurement's identity: the pattern and scheme AUTO ran, and the pattern and engine the
   preload ran, as far as each applies. Alike on every rank that ran the same call. */
static uint64_t meas_pend_id(const cd_group *gr)
{
    uint64_t id = gr->pend_s >= 0 ? cd_hash_u64(gr->pend_sig, (uint64_t)gr->pend_s + 1 + 16u * (uint64_t)gr->pend_v) : 0x656e67u;
    if (gr->pend_e >= 0) id = cd_hash_u64(id ^ gr->pend_esig, (uint64_t)gr->pend_e + 7 + 16u * (uint64_t)gr->pend_reps);
    return id ? id : 1;
}

/* This rank's part of the group's pending measurement, into the reduction's vector (AG_MEAS_*). */
static void meas_wisdom_local(const cd_io *io, uint64_t v[AG_N]);
static void meas_wisdom_agreed(const cd_io *io);
static void meas_local(const cd_io *io, uint64_t v[AG_N])
{
    meas_wisdom_local(io, v);
    /* no measurement pending: a pattern no id has (all ones in the complement), so that a rank without
       one makes every rank drop the others' (they would record what it does not) */
    v[AG_MEAS_T] = v[AG_MEAS_SIG] = 0;
    v[AG_MEAS_SIG_NOT] = UINT64_MAX;
    cd_group *gr = io->f->plan_only ? NULL : meas_group(io->f->group);
    if (!gr || !gr->pend) return;
    const uint64_t id = meas_pend_id(gr);
    v[AG_MEAS_T] = gr->pend_t > 0 ? (uint64_t)(gr->pend_t * 1e9) + 1 : 1;
    v[AG_MEAS_SIG] = id;
    v[AG_MEAS_SIG_NOT] = ~id;
}

/* Aggregation's owners' runs, collective calls or independent ones: after the one call that moved them
   by independent calls (kind 4, meas_choose), alike on every rank (agreed times). The owners hold whole
   chunks' covered bytes, disjoint, so a collective call adds only its own work: on this machine ompio's
   two-phase moved the owners' data between ranks a second time, aggregation's calls with independent
   owners' I/O ran 0.7x (3 and 8 ranks) and 0.3-0.5x (4x2 simulated nodes) the collective ones'; on a
   parallel file system whose locks are stripes, the collective call may be what keeps owners of
   neighbouring chunks apart. Measured, not ruled: the independent way is kept when its call beat the
   collective calls' median by the try's margin (CD_MEAS_GAIN), and aggregation's kept times become its
   (what aggregation now costs: its median and fastest call, which later choices compare). */
/* A relook (kind 5, meas_agg_slowed) is judged the same way, either way round: kept, the way whose
   median aggregation's kept times were (its pace while it ran); tried, the one call of the other way
   (way: 1 independent calls, 0 collective ones), which is kept when it beat that median by
   CD_MEAS_GAIN. */
static void meas_agg_judge(cd_sig *s, double kept, double tried, int way)
{
    s->agg_t[!way] = kept;
    s->agg_t[way] = tried;
    if (!(kept > 0 && tried < CD_MEAS_GAIN * kept)) return;
    s->agg_ind = (uint8_t)way;
    for (uint32_t i = 0; i < s->n[2] && i < CD_MEAS_SAMPLES; i++) s->t[2][i] = tried;
}

/* Aggregation's owners' way, once judged, is looked at again when the way kept slowed: its median (the
   pattern's aggregation calls, all of that way since the judgement but a losing try's one call) now
   exceeds the other way's measured time by CD_MEAS_AGG_SWITCH, as the preload's engines are (a file system
   that got busy, a file that grew, another job's traffic on the owners' links: the way kept was judged
   in another phase of the job). The other way then gets one call (kind 5), at most CD_MEAS_AGG_RELOOKS
   times a pattern: without the bound, two ways slowing in turn would alternate for ever. */
static int meas_agg_slowed(const cd_sig *s)
{
    const double other = s->agg_t[!s->agg_ind];
    return s->agg_tried && s->agg_relooks < CD_MEAS_AGG_RELOOKS && other > 0 && meas_median(s, 2) > CD_MEAS_AGG_SWITCH * other;
}

/* After the reduction, alike on every rank: the previous call's time, its slowest rank's, into the
   table, if every rank had the same pending measurement. */
static void meas_agreed(const cd_io *io)
{
    cd_group *gr = io->f->plan_only ? NULL : meas_group(io->f->group);
    if (!gr) return;
    meas_wisdom_agreed(io);
    const uint64_t *g = io->g;
    const int same = g[AG_MEAS_SIG] && !(g[AG_MEAS_SIG] & g[AG_MEAS_SIG_NOT]);
    if (gr->pend && same && g[AG_MEAS_SIG] == meas_pend_id(gr)) {
        const double t = (double)(g[AG_MEAS_T] - 1) * 1e-9;
        if (gr->pend_e >= 0) { /* the preload's engine */
            cd_sig *e = meas_find(gr, gr->pend_esig, 1);
            /* a lease's reads count as calls, each at their mean (the slowest rank's): the chosen
               engine's median then follows the pace of the calls it runs, leased or not */
            for (uint32_t r = 0; e && r < (gr->pend_reps > 1 ? (gr->pend_reps < CD_MEAS_SAMPLES ? gr->pend_reps : CD_MEAS_SAMPLES) : 1); r++) {
                e->engine = 1;
                e->t[gr->pend_e][e->n[gr->pend_e] % CD_MEAS_SAMPLES] = t;
                e->n[gr->pend_e]++;
            }
        }
        const int k = gr->pend_s;
        if (k < 0) { gr->pend = 0; return; }
        cd_sig *s = meas_find(gr, gr->pend_sig, 1);
        if (s) {
            const double kept = gr->pend_v ? meas_median(s, k) : -1; /* aggregation the way kept, before the try */
            if (!meas_calls(s)) s->cold1 = (uint8_t)(k + 1); /* the pattern's first call */
            s->t[k][s->n[k] % CD_MEAS_SAMPLES] = t;
            s->n[k]++;
            if (gr->pend_v) meas_agg_judge(s, kept, t, gr->pend_way);
        }
        /* The group's first call pays the job's set-up (the file's first agreement and node map,
           MPI-IO's first collective): IOR's first 64 KiB write ran 4.1 ms through multi, 20x its warm
           calls; as multi's only error it priced multi 150x in every other pattern of the job, never
           tried again (IOR's reads ran link, 3.6x multi's time). Its error still lends to the other
           schemes (across a slow network the first call is what tells AUTO the network is slow) but,
           while it is that scheme's only one, not to itself (meas_corrected). */
        const int d = gr->pend_dir;
        if (!gr->setup1 && gr->pend_est > 0 && t > 0) gr->setup1 = 1 + 4 * d + k;
        else if (gr->setup1 == 0) gr->setup1 = -1;
        if (gr->pend_est > 0 && t > 0) {
            const double r = meas_ln(t / gr->pend_est);
            gr->lr[d][k] += r;
            gr->lrn[d][k]++;
            for (int j = 0; j < CD_T_N; j++) gr->ws[d][k][j] += gr->pend_term[j] / gr->pend_est;
        }
    }
    gr->pend = 0;
}

/* What an untried scheme's estimate must beat for a try, against the measured best (scheme b of
   pattern s; far: it ran over CD_MEAS_FAR times its estimate). Tries belong to a pattern's first
   calls, where they pay for the rest of the loop: on the second and third calls by 15% against the
   best's fastest call once it ran far off its estimate (the model is wrong here: a cold start does not
   explain 4x); otherwise the try must halve it. Halve, while the best runs near its estimate, because
   the scheme tried pays its MPI-IO path's own set-up on its first call, on top of the model's error,
   and a try that loses costs a whole call: on this VM link-chunk's first collective read on 8 ranks ran
   57 ms against 6 ms warm and 1.5 ms estimated, and in the project's bench-auto run every try made at
   the third call by a 15% bar (then applied once the best had run twice: 8 ranks B1 and B4 reads, B3w64
   reads across unshaped simulated nodes, B3w16 reads across 200 Mbit/s) lost or tied (B1 reads 1.96x
   the best scheme's total). After the best's first call alone, a cold start can double a call. Later
   only by half: by then the best's times and the others' corrected estimates move with noise alone
   (the best's fastest call creeps down, a shared term's correction creeps with it), and a 15% bar let
   a loop of 10 calls try a loser at its last call (bench-auto, 3 ranks, B1 writes: 1.46x the best
   scheme's total); a try that late must be worth a whole call. The price: a scheme the model misjudges
   by less than 2x against a choice that runs near its estimate is not found.
   misjudged (the caller's, for a scheme whose try makes no collective MPI-IO call: all-independent, and
   aggregation, tried by its owners' independent way): the best, warm, ran over CD_MEAS_MISJUDGED times
   its estimate; then, on calls 3 and 4, 15%. The halving guards against two things: a collective
   path's first-call set-up (the 57 ms above), which such a try does not pay (aggregation's first call by
   independent owners' runs ran 1-2x its next ones in bench-auto's traces), and the model's error, which
   the best's own 2x-4x already shows to be of the size the halving allows for. Across 4x2 simulated
   nodes B3w64 reads ran all-independent at 2-2.6x its estimate for whole loops (1.38-1.49x the best
   scheme's total) while aggregation by independent owners' runs, estimated at 1.1-1.4x
   all-independent's estimate and never tried, ran 0.3x its time; at 200 Mbit/s B3w64 writes the same.
   Link-chunk and multi-chunk keep the halving bar (their first collective call is the set-up). */
static double meas_try_bar(const cd_sig *s, int b, int far, int misjudged)
{
    const int early = meas_calls(s) <= 2, soon = meas_calls(s) <= 4;
    return ((early && far) || (soon && misjudged) ? CD_MEAS_GAIN : CD_MEAS_COLD) * (meas_cold_only(s, b) ? meas_rank_time(s, b) : meas_min(s, b));
}

/* An untried scheme whose best guess (ec, the others' errors lent) ties the measured best b's fastest warm
   call (within CD_MEAS_TIE), while b itself ran as the model priced it (within CD_MEAS_TIE_FIT of its
   estimate, either way): the model holds here and cannot tell the two apart, so which is faster is
   a question only a call answers. The halving bar (meas_try_bar) never lets a tie be tried: rows dealt
   round-robin (bench-auto's Xrr, 8 KiB rows, 3 ranks) priced link-chunk and aggregation at 3.2 ms each;
   aggregation ran 3.5-4 ms a call and link-chunk, never tried, 2 ms (ROMIO: 1.76x, MPICH: 1.96x the
   best scheme's total). A tie lost costs one call at about the best's time, as both the guess and the
   best's own fit to the model say, and counts against the pattern's bound (CD_MEAS_TRIES). When b ran
   faster than priced, down to 1/CD_MEAS_TIE_FIT of its estimate, the guess is held against b's estimate,
   not its time: the two prices within 10% of each other are the tie, in the model's own units, and b's
   favourable error is as likely the other's (rows round-robin, 3 ranks: aggregation's owners' independent
   way ran 2.3 ms, 0.72x the 3.2 ms the model put on aggregation and on link-chunk alike; link-chunk, not
   tried because aggregation ran under its price, ran 1.8 ms: 1.3-2.1x the best scheme's total). Not
   further under (the model is then wrong about b, and says nothing of the rest), nor over
   CD_MEAS_TIE_FIT times it (then the lent errors may mislead: 8 ranks of 2 cores, B1 reads, all-independent at 3.8x its
   estimate, link-chunk's guess within 10% of it, link-chunk's calls 5x all-independent's; and a best
   near 2x its estimate is where a guess that beats it by 15-50% waits, meas_try_bar). Only link-chunk
   and multi-chunk, and only once a scheme of this pattern has made collective MPI-IO calls twice (link,
   multi, or aggregation's owners' collective way): a collective scheme's first calls pay a set-up (two
   or three calls at 50 ms on this VM, whichever collective scheme runs first on the file), which those
   calls have paid, and its terms are the ones the best's calls have just priced. Not aggregation's
   owners' independent way nor all-independent (their own lower bar is meas_try_bar's misjudged one):
   tried as ties, aggregation's independent way, guessed at 4.5 ms beside all-independent's 3.6 ms
   (B1 writes, 3 and 8 ranks), ran one call at 25 ms (bench-auto 1.7x and 2.1x the best scheme's
   total). The cheapest guess of the ties, or -1. Alike on every rank. */
static int meas_tie(const cd_sig *s, int b, const double est[4], const double ec[4], const double t[4])
{
    const double fast = meas_min(s, b), at = fast > est[b] ? fast : est[b];
    if (fast * CD_MEAS_TIE_FIT < est[b] || fast > CD_MEAS_TIE_FIT * est[b]) return -1;
    /* aggregation's calls were collective while its owners' way is; a judged pattern's collective way ran
       its median's calls (agg_t[0]) before the independent way was kept */
    const uint32_t agg_coll = s->agg_ind ? (s->agg_t[0] > 0 ? 2 : 0) : s->n[2];
    if (s->n[0] + s->n[1] + agg_coll < 2) return -1; /* the collective set-up not yet paid */
    int k = -1;
    for (int i = 0; i < 2; i++)
        if (t[i] < 0 && ec[i] <= CD_MEAS_TIE * at && (k < 0 || ec[i] < ec[k])) k = i;
    return k;
}

/* How far off the model is for scheme k of this pattern, as far as it shows: when two or more schemes
   ran over CD_MEAS_FAR times their estimates, the smaller of their errors (measured / estimated), by
   which k's estimate is raised before it may be tried; else 0 (no floor). One scheme far off may be the
   model's error about that scheme (its terms lend their error to the others, partly); two far off say
   the model is off here across the board, and the terms they share with an untried one do not carry
   it: across 4x2 simulated nodes aggregation ran 10x and multi-chunk 9.5x their estimates, and
   link-chunk, estimated at 2x aggregation's, was still tried (and lost: B3w64 writes, 1.41x the best
   scheme's total with both tries lost). "Across the board" is the board the far ones stand on: their
   terms (CD_T_*, each at least a tenth of an estimate). A scheme that has none of those terms has not
   been shown off at all: all-independent (independent I/O only) after link-chunk and aggregation both
   ran hundreds of times their estimates over a slow network (collective rounds, collective MPI-IO),
   floored by their error, was never tried and the loop stayed on aggregation at 10x its time.
   Measured medians t (-1: not run), estimates est, their terms term. */
static double meas_off_everywhere(const double t[4], const double est[4], const double term[4][CD_T_N], int k)
{
    double least = 0;
    int n = 0, shared = 0;
    for (int i = 0; i < 4; i++)
        if (t[i] >= 0 && est[i] > 0 && t[i] > CD_MEAS_FAR * est[i]) {
            const double r = t[i] / est[i];
            least = n++ && least < r ? least : r;
            for (int j = 0; j < CD_T_N; j++) shared |= term[i][j] >= 0.1 * est[i] && term[k][j] >= 0.1 * est[k];
        }
    return n >= 2 && shared ? least : 0;
}

/* AUTO's choice for this call (0 link .. 3 independent), measured where it can be: est, the model's
   estimates; x gets what was measured and why. A plan chooses the same as the call would, without
   counting a try. Alike on every rank: agreed facts and the group's table only. */
static int meas_choose(cd_io *io, const double est[4], const double term[4][CD_T_N])
{
    colldiag_xfer *x = io->x;
    int best_est = 0;
    for (int k = 1; k < 4; k++)
        if (est[k] < est[best_est]) best_est = k;
    x->meas_kind = 0;
    x->meas_agg_ind = 0;
    x->meas_agg_t[0] = x->meas_agg_t[1] = 0;
    x->meas_link = io->f->nodes > 1 ? io->f->bw_x : 0;
    x->meas_step = io->set.k[CD_K_LAT_X] == COLLDIAG_AUTO_LAT_X ? io->f->lat_x : 0;
    for (int k = 0; k < 4; k++) { x->meas_t[k] = -1; x->meas_n[k] = 0; x->meas_ec[k] = est[k]; }
    cd_group *gr = meas_on(io) ? meas_group(io->f->group) : NULL;
    if (!gr) return best_est;
    const uint64_t sig = meas_sig(io);
    cd_sig *s = meas_find(gr, sig, io->dir != DIR_PLAN);
    double opt[4];
    meas_corrected(gr, meas_dir(io), est, term, x->meas_ec, opt);
    int best_ec = 0, best_m = -1, cand = -1;
    for (int k = 0; k < 4; k++) {
        if (x->meas_ec[k] < x->meas_ec[best_ec]) best_ec = k;
        x->meas_t[k] = s ? meas_median(s, k) : -1;
        x->meas_n[k] = s ? s->n[k] : 0;
        if (x->meas_t[k] >= 0 && (best_m < 0 || meas_rank_time(s, k) < meas_rank_time(s, best_m))) best_m = k;
    }
    if (s && io->dir != DIR_PLAN) memcpy(s->est, est, sizeof s->est);
    x->meas_sig = sig;
    if (best_m < 0) { /* the pattern's first call: the corrected model */
        x->meas_kind = 1;
        x->meas_s = best_ec;
        /* aggregation by the model's way (auto_terms: across nodes, its owners' independent calls where
           those are estimated cheaper than a collective call's shuffle), kept for the pattern as a try's is */
        x->meas_agg_ind = best_ec == 2 && x->model_agg_ind == 1;
        if (s && io->dir != DIR_PLAN && x->meas_agg_ind) s->agg_ind = 1;
    } else {
        /* a try must beat the fastest of the best's calls, not their median (a try that loses costs a
           whole call), by meas_try_bar's margin. Whether a scheme could: by the best
           guess (the others' errors lent), unless the best ran far over its own estimate: then the model
           is wrong here, the lent errors may be the ones misleading, and the optimistic guess decides.
           Of the schemes that could, the best guess picks. */
        /* While the best's one call is the pattern's first (cold), it is judged at half (meas_rank_time),
           and it runs once more, warm, before any try unless even a quarter of it is far off its estimate:
           a cold first call alone said "far" in bench-auto's 3-rank B1 loops (all-independent's first
           call 6.5x its estimate, its next ones 1.2-2x) and the tries it allowed (aggregation, link-chunk,
           each run 3-20x all-independent's warm call) cost those loops 2-5x the best scheme's total. */
        /* ... and it waits too, far or not, once another scheme has been measured: its half is then a
           guess ranked against a measurement, and a try judged against a guess is a call spent on a
           guess's guess (4x2 simulated nodes, B3w64 writes: aggregation's cold 0.086 s call, halved, came
           back ahead of multi-chunk's median as that drifted from 0.038 to 0.044 s over six calls; half of
           it was just over 4x its estimate, "far", and link-chunk was tried: 0.115 s) */
        int others = 0;
        for (int k = 0; k < 4; k++) others |= k != best_m && x->meas_t[k] >= 0;
        /* ... and the same for its second call: a job's first calls can run cold for two calls, not one
           (all-independent's B1 writes on 3 and 8 ranks of 2 cores, a process's first loop: 11-29 ms, then
           10-21 ms, then 2.4-3 ms warm, on ompio and ROMIO alike); judged on that second call alone, it was
           "far" (9x its estimate) and the early bar let aggregation or link-chunk be tried at the third
           call (45-90 ms a call there: bench-auto 5.3x and 2.2x the best scheme's total). So the best
           runs a third time, warm, before anything is tried unless a quarter of its second call is far
           off too; of the tries that wait, the project's bench-auto runs showed none that won by more than
           noise at the third call (4x2 simulated nodes, B4: two tries there, one lost, one tied). */
        const int young = meas_cold_only(s, best_m) || meas_one_warm(s, best_m);
        /* far: the best's measurements say the model is wrong here; a young best's calls say so only when
           a quarter of them is far off (CD_MEAS_COLD_FAR: a cold start cost up to 12x a warm call here);
           an older best's when even its fastest call is: its median can still hold the second call's
           cold start (8 ranks, B4 writes: multi-chunk's 3x after a slow second call read as far, and
           all-independent, estimated alike, was tried at 9x its estimate: 1.39x the best's total) */
        const double judged = young ? CD_MEAS_COLD_FAR * meas_median(s, best_m) : meas_min(s, best_m);
        const int far = judged > CD_MEAS_FAR * est[best_m];
        const int wait = young && (!far || others);
        /* misjudged: the best, warm, ran over CD_MEAS_MISJUDGED times its estimate; aggregation (k 2, tried
           by its independent way) and all-independent (k 3) are then judged by bar_ind (meas_try_bar) */
        const int misjudged = !young && meas_min(s, best_m) > CD_MEAS_MISJUDGED * est[best_m];
        const double bar = meas_try_bar(s, best_m, far, 0), bar_ind = meas_try_bar(s, best_m, far, misjudged);
        double cand_could = 0;
        for (int k = 0; k < 4 && !wait; k++) {
            const double off = meas_off_everywhere(x->meas_t, est, term, k);
            double could = far ? opt[k] : x->meas_ec[k];
            could = could > off * est[k] ? could : off * est[k];
            if (x->meas_t[k] < 0 && could < (k >= 2 ? bar_ind : bar) && (cand < 0 || x->meas_ec[k] < x->meas_ec[cand])) { cand = k; cand_could = could; }
        }
        /* a tie the model cannot break (meas_tie): an untried scheme guessed within CD_MEAS_TIE of the best's
           fastest call (or estimate, when it ran under it), while the best, warm, ran as the model priced it */
        if (cand < 0 && !wait && !far) cand = meas_tie(s, best_m, est, x->meas_ec, x->meas_t);
        /* no try while the preload's engines are compared for this call's pattern (x->eng_kind: 1 the
           rule's call, 3 a try, both before the comparison; meas_engine_choose runs first): a scheme
           tried then pays its own set-up inside colldiag's engine's few calls, and loses the comparison
           for it (IOR's 1 MiB-chunk writes on ROMIO: link-chunk tried at colldiag's second call, 6.1 ms
           against multi-chunk's 0.54 ms warm, during the 8 calls that decide the engine) */
        const int engines_compared = x->eng_kind == 1 || x->eng_kind == 3;
        /* aggregation the measured best with two warm calls (a median the try's one call is judged
           against; with one, a slow second call of a loop's first pattern kept the independent way or a fast
           one dropped it by noise alone): its owners' runs moved once the other way (meas_agg_judge), a
           try of the bound's, and before any untried scheme: it changes the best's own time, which every
           other try is judged against (200 Mbit/s simulated nodes, B3w16 writes: aggregation's collective
           calls ran 3.5x their estimate, 165 ms, and link-chunk, estimated at 104-110 ms, would have been
           tried first; the independent way then ran 34 ms). The other way is the independent one, as a
           pattern's aggregation starts collective (SPEC.md's row) on one node; or, where aggregation came in
           as a try by its independent way (below) or started that way across nodes (the model's way,
           auto_terms), the collective one, and only when the collective way's estimate halves the
           independent way's fastest call: across simulated nodes the collective way ran 2-20x the
           independent one (its two-phase shuffle crosses the link), and one such call cost more than the
           loop had gained */
        const double agg_coll = x->model_agg_ind == 1 ? x->model_agg_coll : est[2]; /* the collective way's estimate */
        const int agg_gate = !s->agg_ind || agg_coll < CD_MEAS_COLD * meas_min(s, 2);
        /* ... unless aggregation is far off its estimate and an untried scheme could halve its fastest call:
           the model is wrong about aggregation, and its other way is a refinement of a scheme that is
           losing, where the other scheme is a different ground (a slow network: aggregation and link-chunk,
           tried, ran 300x their estimates; the other way of aggregation took the bound's last try and
           all-independent, estimated at a tenth of aggregation's time, was never run) */
        const int agg_yields = cand >= 0 && far && cand_could < CD_MEAS_COLD * meas_min(s, 2);
        const int agg_first = best_m == 2 && s->n[2] >= 3 && !s->agg_tried && s->tries < CD_MEAS_TRIES && !engines_compared && agg_gate && !agg_yields;
        const int worth = cand >= 0 && s && s->tries < CD_MEAS_TRIES && !engines_compared && !agg_first;
        const int agg_try = !worth && agg_first;
        /* else, aggregation the measured best, its owners' way judged but slower now than the other way
           ran: the other way once more (meas_agg_slowed), not a try of the bound's (a try finds a scheme;
           this keeps a found one at its pace) */
        const int agg_relook = !worth && !agg_try && best_m == 2 && !engines_compared && meas_agg_slowed(s);
        if ((worth || agg_try) && io->dir != DIR_PLAN) s->tries++;
        if (agg_try && io->dir != DIR_PLAN) s->agg_tried = 1;
        if (agg_relook && io->dir != DIR_PLAN) s->agg_relooks++;
        x->meas_kind = worth ? 3 : agg_try ? 4 : agg_relook ? 5 : 2;
        x->meas_s = worth ? cand : best_m;
        /* aggregation tried as a scheme not measured yet: by its owners' independent way, the way that ran
           faster in every B3 case of bench-auto (0.2-0.8x the collective way's time: one host, 4x2 simulated
           nodes, 200 Mbit/s), and the way its lower try bar (bar_ind) assumes; kept for the pattern */
        const int a_tried = worth && cand == 2;
        if (a_tried && io->dir != DIR_PLAN) s->agg_ind = 1;
        x->meas_agg_ind = x->meas_s == 2 && (a_tried || (agg_try || agg_relook ? !s->agg_ind : s->agg_ind));
        x->meas_agg_t[0] = s->agg_t[0];
        x->meas_agg_t[1] = s->agg_t[1];
    }
    memcpy(x->meas_term, term[x->meas_s], sizeof x->meas_term);
    return x->meas_s;
}

/* After an AUTO call ran scheme k (0..3) and succeeded on this rank: its elapsed time, to be agreed in
   the group's next call. In test builds, COLLDIAG_INJECT=clock:L,M,A,I[,skew] gives the time. */
static void meas_done(const cd_io *io, int k, double elapsed)
{
    cd_group *gr = meas_on(io) && io->dir != DIR_PLAN ? meas_group(io->f->group) : NULL;
    if (!gr || k < 0 || k > 3) return;
#ifdef COLLDIAG_TESTING
    /* rank r sees scheme k cost c[k] (1 + skew ((r + k) mod 4)): with a skew, the ranks disagree on which
       scheme is cheapest, and only the agreed (slowest) time keeps them together; cold (clock:L,M,A,I,
       skew,cold): the pattern's first call costs cold times that (a cold start) */
    const char *e = cd_getenv("COLLDIAG_INJECT");
    double c[4], skew = 0, cold = 1, agg_ind = -1;
    const int got = e && !strncmp(e, "clock:", 6) ? sscanf(e + 6, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &c[0], &c[1], &c[2], &c[3], &skew, &cold, &agg_ind) : 0;
    if (got >= 4) {
        const cd_sig *s = meas_find(gr, io->x->meas_sig, 0);
        const int first = !s || !meas_calls(s);
        if (k == 2 && io->x->meas_agg_ind && got >= 7) c[2] = agg_ind; /* aggregation's owners' runs by independent calls */
        elapsed = c[k] * (1.0 + skew * ((io->f->rank + k) % 4)) * (first ? cold : 1.0);
    }
#endif
    gr->pend = 1;
    gr->pend_s = k;
    gr->pend_v = io->x->meas_kind == 4 || io->x->meas_kind == 5;
    gr->pend_way = io->x->meas_agg_ind;
    gr->pend_dir = meas_dir(io);
    gr->pend_e = -1;
    gr->pend_reps = 1;
    gr->pend_leased = 0;
    gr->pend_sig = io->x->meas_sig;
    gr->pend_t = elapsed;
    gr->pend_est = io->x->model_est[k];
    memcpy(gr->pend_term, io->x->meas_term, sizeof gr->pend_term);
}

/* ---- the preload's engine, measured (COLLDIAG_ACCELERATE=1) ----
   The preload's speed rules (engine.c: WHOLE_CHUNKS and STRETCHES give a call to HDF5's path, FASTER to
   colldiag's) are one machine's timings; on another file system or network they can be wrong (IOR with
   32 KiB chunks wrote at 0.85x of HDF5 here under WHOLE_CHUNKS). For a pattern a program repeats, they
   become the prior: the pattern's first 2 x CD_ENG_CALLS calls run the engines in turn after two
   calls of the rule's (rule, rule, other, rule, other, rule, other, other), and from then on the engine whose warm median is lower
   (meas_engine_median: each engine's first call of the pattern left out, a cold start). In turn, not
   one engine's calls then the other's: a job's first calls of a pattern run slower than its later ones
   whichever engine runs them (the page cache, ROMIO's buffers, HDF5's metadata cache warming), and the
   engine measured first lost to that: IOR's 1 MiB whole chunks on ROMIO kept colldiag's path at 0.86x
   of HDF5's write rate (HDF5's 4 calls measured first, 1.5-7 ms, colldiag's after them, ~1 ms), and
   h5bench's 3-D reads kept HDF5's after colldiag's 4 first calls ran 10 ms (later calls: 0.8 ms).
   The rule's two calls first: a pattern run twice (a file's write and its check, a two-step job)
   runs the rule's engine only, and one run four times pays one call of the other, not two; each
   engine still has three warm calls spread over the eight.
   Medians, not fastest calls: the chosen engine's fastest call only falls as it keeps running while
   the other's stays what two calls showed, so the fastest calls of IOR's 64 KiB reads (HDF5's path
   0.40 ms a call, colldiag's 0.13 ms warm but 1.1 ms and 0.7 ms in its first two) kept HDF5's path
   for the rest of the run, 0.3x of colldiag's rate. When the chosen engine's median (its last
   CD_MEAS_SAMPLES calls) rises above the other's by CD_ENG_SWITCH (the file system got busy, the file
   grew), or, after a close choice, falls under CD_ENG_FASTER of what it was when chosen (the engines
   were compared in a slower phase of the job: a first time step), the other is measured afresh (its old times dropped,
   CD_ENG_CALLS calls) and the lower median runs (at most CD_ENG_RELOOKS times a pattern). A
   call's time is the whole intercepted call's on each rank (the agreement included: HDF5's path under
   the preload pays it too), its slowest rank's agreed in the group's next collective call as AUTO's are
   (the same pending slot: one call, one time, its scheme and its engine). Correctness rules (cannot
   move it, bytes at risk, COLLDIAG_ACCELERATE=all) are absolute and never measured; neither are the
   rules decided before the agreement (contiguous writes, one-rank files, independent contiguous reads),
   which have no agreed call to carry a time. Engines' patterns are the same signature as AUTO's, tagged.
   COLLDIAG_AUTO_MODE=estimate keeps the rules alone. */
#define CD_ENG_RELOOKS 4
/* Calls each engine runs before the engines are compared. ROMIO-style rationale: the first is cold
   (colldiag's first call of a pattern ran 5-14x its warm calls here: its plan, views and buffers are
   built), so three warm calls make the median, which one noisy call cannot move. Four calls of the
   slower engine, once a pattern: in a loop of a hundred calls that costs little; a pattern run twice
   runs its rule's engine only (R R O R O R O O). */
#define CD_ENG_CALLS 4
/* The other engine is measured again once the chosen one's median exceeds its median by this factor:
   below it, noise between calls of one engine (+-30% on this machine) would flip the choice back and
   forth. */
#define CD_ENG_SWITCH 1.25
/* ... and once the chosen engine's median falls under this fraction of what it was when chosen, where
   the choice was a close one (the other's median within CD_ENG_SWITCH of it): the engines were compared
   in a slower phase of the job, where noise decided, and the faster phase may not favour the same one.
   h5bench's 3-D reads on ROMIO: its first time step's eight reads (the engines' learning calls) ran
   7-10 ms on either engine, every later read 0.35 ms. Half: noise between calls of one engine here is
   +-30%, so only a change of pace crosses it. Only a close choice: a clear one (IOR's 1 MiB-chunk
   reads, colldiag's path about 10x HDF5's) would be checked again and again as colldiag's path keeps
   warming, four calls of the slow engine each time (without the condition those reads fell from
   2795 to 626 MiB/s, bench-field 2026-11-30 19:13). */
#define CD_ENG_FASTER 0.5

/* An engine's warm median: its first call of the pattern left out while it is still kept (a cold start;
   the engines' patterns count calls per engine, and each engine's first call is cold); -1 none. */
static double meas_engine_median(const cd_sig *s, int e) { return meas_median_of(s, e, s->n[e] >= 2 && s->n[e] <= CD_MEAS_SAMPLES); }

/* The engine for this call (0 HDF5's path, 1 colldiag's), by_rule the rule's. After the agreement,
   alike on every rank (agreed times only). x gets what was measured. The pattern's state: eng_cur
   (1 + the engine the last comparison chose; 0 still learning) and eng_fresh (1 + an engine being
   measured afresh after a relook; 0 none). */
static int meas_engine_choose(cd_io *io, int by_rule)
{
    colldiag_xfer *x = io->x;
    x->eng_kind = 0;
    x->eng_t[0] = x->eng_t[1] = -1;
    x->eng_n[0] = x->eng_n[1] = 0;
    cd_group *gr = meas_on(io) && io->dir != DIR_PLAN ? meas_group(io->f->group) : NULL;
    const uint64_t esig = gr ? cd_hash_u64(meas_sig(io), 0x656e67u) : 0;
    cd_sig *s = gr ? meas_find(gr, esig, 1) : NULL;
    if (!s) return by_rule;
    s->engine = 1;
    x->eng_sig = esig;
    x->eng_group = io->f->group;
    int choice = by_rule, kind = 1; /* 1 the rule, 2 the measured faster, 3 a try */
    if (!s->eng_cur) { /* learning: the engines in turn after the rule's two first calls (above) */
        const uint32_t a = s->n[by_rule], b = s->n[!by_rule];
        if (a < CD_ENG_CALLS && (a <= b + 1 || b >= CD_ENG_CALLS)) choice = by_rule, kind = 1;
        else if (b < CD_ENG_CALLS) choice = !by_rule, kind = 3;
        else {
            choice = meas_engine_median(s, 0) <= meas_engine_median(s, 1) ? 0 : 1;
            s->eng_cur = (uint8_t)(choice + 1);
            s->eng_base = meas_engine_median(s, choice);
            kind = 2;
        }
    } else if (s->eng_fresh) { /* an engine measured afresh: its calls, then the lower median */
        const int e = s->eng_fresh - 1;
        if (s->n[e] < CD_ENG_CALLS) choice = e, kind = 3;
        else {
            choice = meas_engine_median(s, 0) <= meas_engine_median(s, 1) ? 0 : 1;
            s->eng_cur = (uint8_t)(choice + 1);
            s->eng_fresh = 0;
            s->eng_base = meas_engine_median(s, choice);
            kind = 2;
        }
    } else {
        const int cur = s->eng_cur - 1;
        choice = cur;
        kind = 2;
        /* the chosen engine now runs slower than the other ran, or at under half the pace it ran when
           chosen after a close choice (the comparison was of a slower phase): the other measured
           again, its old times dropped (they are of another pace) */
        const double now = meas_engine_median(s, cur), other = meas_engine_median(s, !cur);
        const int phase = now < CD_ENG_FASTER * s->eng_base && other < CD_ENG_SWITCH * s->eng_base;
        if ((now > CD_ENG_SWITCH * other || phase) && s->relooks < CD_ENG_RELOOKS) {
            s->relooks++;
            s->n[!cur] = 0;
            s->eng_fresh = (uint8_t)(!cur + 1);
            choice = !cur;
            kind = 3;
        }
    }
    for (int e = 0; e < 2; e++) { x->eng_t[e] = meas_engine_median(s, e); x->eng_n[e] = s->n[e]; }
    x->eng_kind = kind;
    x->eng_choice = choice;
    return choice;
}

/* After the preload ran a call whose engine was measured (x->eng_kind), on this rank: its whole time,
   carried by the group's next collective call. A colldiag call that AUTO measured already left its
   pending scheme (meas_done): the engine joins it and the time becomes the whole call's. In test builds,
   COLLDIAG_INJECT=engine:H,C[,H2,C2,N[,COLD1,COLD2]] gives the time: HDF5's path H, colldiag's C, and from
   this process's N-th engine measurement on (counted from 0) H2 and C2 (a file system that changes
   pace); colldiag's first measured call COLD1 times that and its second COLD2 times (its cold start,
   two calls long, as its first IOR calls here: 10x, then 3x; HDF5's path's first ran as its others). */
static double meas_engine_injected(int engine, double elapsed)
{
#ifdef COLLDIAG_TESTING
    static unsigned long count, each[2];
    const char *e = cd_getenv("COLLDIAG_INJECT");
    double c[6];
    unsigned long step = 0;
    const int got = e && !strncmp(e, "engine:", 7) ? sscanf(e + 7, "%lf,%lf,%lf,%lf,%lu,%lf,%lf", &c[0], &c[1], &c[2], &c[3], &step, &c[4], &c[5]) : 0;
    if (got >= 2) elapsed = got >= 5 && count >= step ? c[2 + engine] : c[engine];
    if (got == 7 && engine == 1 && each[engine] < 2) elapsed *= c[4 + each[engine]];
    count++;
    each[engine]++;
#else
    (void)engine;
#endif
    return elapsed;
}

CD_MAYBE_UNUSED static void meas_engine_done(uint64_t group, uint64_t esig, int engine, double elapsed)
{
    cd_group *gr = meas_group(group);
    if (!gr || engine < 0 || engine > 1) return;
    elapsed = meas_engine_injected(engine, elapsed);
    gr->pend_reps = 1;
    gr->pend_leased = 0;
    if (!(gr->pend && gr->pend_s >= 0 && engine == 1)) {
        gr->pend = 1;
        gr->pend_s = -1;
        gr->pend_v = 0;
    }
    gr->pend_e = engine;
    gr->pend_esig = esig;
    gr->pend_t = elapsed;
}

/* A read HDF5's path ran under a lease (the preload's lease_take: no agreement) on this rank in elapsed
   seconds: it joins the lease's pending time, which the call that granted the lease left (HDF5's path,
   pattern esig), as the mean of the lease's reads so far, carried by the next agreed call as that many
   calls (meas_agreed). Every rank runs the same leased reads, so the count is alike; a rank whose
   pending is another (a call in between) keeps it, and the agreement then drops the time (ids differ). */
CD_MAYBE_UNUSED static void meas_engine_leased(uint64_t group, uint64_t esig, double elapsed)
{
    cd_group *gr = meas_group(group);
    elapsed = meas_engine_injected(0, elapsed);
    if (!gr || !gr->pend || gr->pend_s >= 0 || gr->pend_e != 0 || gr->pend_esig != esig) return;
    if (!gr->pend_leased) gr->pend_reps = 0; /* the granting call's own time: replaced */
    gr->pend_t = (gr->pend_t * gr->pend_reps + elapsed) / (gr->pend_reps + 1);
    gr->pend_reps++;
    gr->pend_leased = 1;
}

/* The reason's words for a measured AUTO call (xfer_reason): what each scheme measured, or its
   corrected estimate, and why the choice. */
static void meas_reason(const colldiag_xfer *x, char *b, size_t n, const char *chosen)
{
    static const char *const why[6] = {"", "the pattern's first call, the model corrected by the job's measurements",
                                       "the measured best", "trying a scheme not measured yet, whose estimate could beat the measured best",
                                       "the measured best, trying its owners' runs by independent calls once",
                                       "the measured best, its owners' runs the other way once more: the way kept slowed"};
    size_t k = (size_t)snprintf(b, n, "AUTO (measured):");
    for (int s = 0; s < 4 && k < n; s++) {
        if (x->meas_t[s] >= 0)
            k += (size_t)snprintf(b + k, n - k, "%s %s %.3g s (%u call%s)", s ? "," : "", cd_meas_name[s], x->meas_t[s], x->meas_n[s],
                                  x->meas_n[s] == 1 ? "" : "s");
        else
            k += (size_t)snprintf(b + k, n - k, "%s %s est. %.3g s", s ? "," : "", cd_meas_name[s], x->meas_ec[s]);
    }
    if (k < n && x->meas_link > 0) k += (size_t)snprintf(b + k, n - k, "; the link between nodes probed at %.3g MB/s", x->meas_link * 1e-6);
    if (k < n && x->meas_step > 0) k += (size_t)snprintf(b + k, n - k, "; a collective step probed at %.3g us", x->meas_step * 1e6);
    if (k < n && x->meas_agg_t[0] > 0)
        k += (size_t)snprintf(b + k, n - k, "; aggregation's owners' runs by collective calls %.3g s, by independent calls %.3g s", x->meas_agg_t[0],
                              x->meas_agg_t[1]);
    if (k < n) snprintf(b + k, n - k, " -> %s%s (%s)", chosen, x->meas_agg_ind ? ", its owners' runs by independent calls" : "", why[x->meas_kind]);
}

/* ---- wisdom (COLLDIAG_WISDOM=PATH) ----
   A text file, a block a place:
     colldiag-wisdom 2
     where ranks=3 nodes=1 per_node=3 mpi=Open_MPI_v4.1.4 io=ompio fs=ef53
     scale writes LR0 N0 LR1 N1 LR2 N2 LR3 N3           (the model's error per scheme: sum of logs, count; and
     scale reads LR0 N0 LR1 N1 LR2 N2 LR3 N3             for reads; version 1's one undirected line is not read)
     shares writes|reads K W0 W1 W2 W3                   (scheme K: its terms' shares of its estimates, summed)
     sig HEX tries T link SECONDS CALLS multi - 0 aggregation SECONDS CALLS independent - 0 [owners WAY COLL IND]
                                                         (aggregation's owners' I/O once measured both ways,
                                                          meas_agg_judge: WAY independent or collective)
   The where is what the group's first call knew (its ranks, its nodes where known, the MPI library and
   its I/O component, the file system of that call's file): a later run of the same program there
   computes the same at its first call. Blocks of other places are kept when the file is written again. */
#define CD_WIS_LINE 512

static void meas_where(const colldiag_file *f, char *b, size_t n)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", mpi[96];
    int ll = 0;
    MPI_Get_library_version(lib, &ll);
    size_t k = 0;
    for (const char *p = lib; *p && *p != '\n' && *p != ',' && k + 1 < sizeof mpi; p++) mpi[k++] = isalnum((unsigned char)*p) || *p == '.' ? *p : '_';
    mpi[k] = 0;
    const char *io = "romio";
#ifdef OPEN_MPI
    const char *e = getenv("OMPI_MCA_io");
    io = e && strstr(e, "romio") && !strchr(e, '^') ? "romio" : "ompio";
#endif
    snprintf(b, n, "ranks=%d nodes=%d per_node=%d mpi=%s io=%s fs=%" PRIx64, f->size, f->nodes > 0 ? f->nodes : 0, f->node_n > 0 ? f->node_n : 0,
             mpi, io, f->fs_type);
}

static const char *meas_path(void)
{
    const char *p = cd_getenv("COLLDIAG_WISDOM");
    return p && *p ? p : NULL;
}

static int meas_finalize_kv = MPI_KEYVAL_INVALID;
static void meas_save(void);
static int meas_at_finalize(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm; (void)key; (void)val; (void)extra;
    meas_save();
    return MPI_SUCCESS;
}

/* The blocks of the wisdom file (at most 64 KiB of them are kept per place), or NULL. */
static char *meas_read_file(const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    char line[CD_WIS_LINE];
    while (m && fgets(line, sizeof line, in)) fputs(line, m);
    if (m) fclose(m);
    fclose(in);
    return text;
}

/* Forgets a group's model errors (wisdom read but not kept). */
static void meas_unscale(cd_group *gr)
{
    memset(gr->lr, 0, sizeof gr->lr);
    memset(gr->lrn, 0, sizeof gr->lrn);
    memset(gr->ws, 0, sizeof gr->ws);
}

/* The group's first collective call, before its reduction (every rank of it, alike): this rank reads
   the wisdom of this place into gr->wis_s and its digest; meas_wisdom_agreed keeps it if every rank read
   the same. The end of the run saves it (meas_save, registered here). */
static void meas_wisdom_load(cd_io *io)
{
    cd_group *gr = meas_on(io) ? meas_group(io->f->group) : NULL;
    if (!gr || gr->wis) return;
    gr->wis = 1;
    const char *path = meas_path();
    if (!path) return;
    meas_where(io->f, gr->where, sizeof gr->where);
    gr->saver = io->f->rank == 0;
    if (meas_finalize_kv == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, meas_at_finalize, &meas_finalize_kv, NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, meas_finalize_kv, NULL);
    char *text = meas_read_file(path);
    if (!text) return;
    uint64_t dig = 0x77697364u, cap = 0;
    int here = 0, blocks = 0;
    char other[300] = "";
    for (char *line = text, *nl; line && *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl) *nl++ = 0;
        if (!strncmp(line, "where ", 6)) {
            blocks++;
            here = !strcmp(line + 6, gr->where);
            if (!here && !other[0]) snprintf(other, sizeof other, "%s", line + 6);
            continue;
        }
        if (!here) continue;
        dig = cd_hash_u64(dig, cd_hash_u64(0, strlen(line)) ^ (uint64_t)(unsigned char)line[0]);
        for (const char *c = line; *c; c++) dig = dig * 131u + (unsigned char)*c;
        double lr[4];
        unsigned ln[4];
        char dw[8];
        /* "scale writes|reads" and "shares writes|reads" (colldiag-wisdom 2); version 1's undirected lines
           match neither and are left out: its patterns' times still load */
        if (sscanf(line, "scale %7s %lf %u %lf %u %lf %u %lf %u", dw, &lr[0], &ln[0], &lr[1], &ln[1], &lr[2], &ln[2], &lr[3], &ln[3]) == 9 &&
            (!strcmp(dw, "writes") || !strcmp(dw, "reads"))) {
            const int d = !strcmp(dw, "reads");
            for (int k = 0; k < 4; k++) { gr->lr[d][k] = lr[k]; gr->lrn[d][k] = ln[k]; } /* applied only once agreed: see below */
            continue;
        }
        int sk = -1;
        double w[CD_T_N];
        if (sscanf(line, "shares %7s %d %lf %lf %lf %lf", dw, &sk, &w[0], &w[1], &w[2], &w[3]) == 2 + CD_T_N && sk >= 0 && sk < 4 &&
            (!strcmp(dw, "writes") || !strcmp(dw, "reads"))) {
            memcpy(gr->ws[!strcmp(dw, "reads")][sk], w, sizeof w);
            continue;
        }
        unsigned long long sig = 0;
        unsigned tries = 0;
        char tk[4][24];
        unsigned cn[4];
        if (sscanf(line, "sig %llx tries %u link %23s %u multi %23s %u aggregation %23s %u independent %23s %u", &sig, &tries, tk[0], &cn[0], tk[1],
                   &cn[1], tk[2], &cn[2], tk[3], &cn[3]) != 10)
            continue;
        if (cd_grow((void **)&gr->wis_s, &cap, gr->wis_n + 1, sizeof *gr->wis_s)) break;
        cd_sig *s = &gr->wis_s[gr->wis_n++];
        memset(s, 0, sizeof *s);
        s->sig = (uint64_t)sig;
        s->tries = tries;
        for (int k = 0; k < 4; k++)
            if (strcmp(tk[k], "-") && cn[k]) {
                s->t[k][0] = strtod(tk[k], NULL);
                s->n[k] = 1; /* one sample, the saved median: this run's own calls soon outnumber it */
            }
        char way[24];
        double at[2];
        const char *o = strstr(line, " owners ");
        if (o && sscanf(o, " owners %23s %lf %lf", way, &at[0], &at[1]) == 3) { /* measured: not tried again */
            s->agg_tried = 1;
            s->agg_ind = !strcmp(way, "independent");
            s->agg_t[0] = at[0];
            s->agg_t[1] = at[1];
        }
    }
    free(text);
    gr->wis_dig = gr->wis_n ? (dig ? dig : 1) : 0;
    if (!gr->wis_n) {
        meas_unscale(gr);
        if (gr->saver && blocks)
            fprintf(stderr, "colldiag: wisdom %s was measured elsewhere (%s), not here (%s): ignored\n", path, other[0] ? other : "?", gr->where);
    }
}

/* The wisdom's words in the first call's reduction (AG_WIS*), and after it: kept if every rank read the
   same, else dropped by every rank. */
static void meas_wisdom_local(const cd_io *io, uint64_t v[AG_N])
{
    cd_group *gr = io->f->plan_only ? NULL : meas_group(io->f->group);
    const uint64_t d = gr && gr->wis_s ? gr->wis_dig : 0;
    v[AG_WIS] = d;
    v[AG_WIS_NOT] = d ? ~d : UINT64_MAX;
}

static void meas_wisdom_agreed(const cd_io *io)
{
    cd_group *gr = io->f->plan_only ? NULL : meas_group(io->f->group);
    if (!gr || !gr->wis_s) return;
    const int same = io->g[AG_WIS] && !(io->g[AG_WIS] & io->g[AG_WIS_NOT]);
    if (same) {
        for (size_t i = 0; i < gr->wis_n; i++) {
            cd_sig *s = meas_find(gr, gr->wis_s[i].sig, 1);
            if (s && !s->n[0] && !s->n[1] && !s->n[2] && !s->n[3]) *s = gr->wis_s[i];
        }
    } else {
        meas_unscale(gr);
        if (io->f->rank == 0) fprintf(stderr, "colldiag: the ranks read different wisdom from %s (or some none): ignored\n", meas_path() ? meas_path() : "");
    }
    cd_free(gr->wis_s);
    gr->wis_s = NULL;
    gr->wis_n = 0;
}

/* MPI_Finalize (an attribute of MPI_COMM_SELF): world rank 0 writes the groups it saves (it was rank 0
   of their first file), each as its place's block, keeping the file's blocks of other places. */
static void meas_save(void)
{
    const char *path = getenv("COLLDIAG_WISDOM");
    int me = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!path || !*path || me != 0) return;
    char *old = meas_read_file(path), *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) { free(old); return; }
    fprintf(m, "colldiag-wisdom 2\n");
    for (cd_group *gr = cd_groups; gr; gr = gr->next) {
        if (!gr->saver || !gr->where[0]) continue;
        fprintf(m, "where %s\n", gr->where);
        for (int d = 0; d < 2; d++) {
            fprintf(m, "scale %s", d ? "reads" : "writes");
            for (int k = 0; k < 4; k++) fprintf(m, " %.17g %u", gr->lr[d][k], gr->lrn[d][k]);
            fprintf(m, "\n");
        }
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < 4; k++) {
                fprintf(m, "shares %s %d", d ? "reads" : "writes", k);
                for (int j = 0; j < CD_T_N; j++) fprintf(m, " %.17g", gr->ws[d][k][j]);
                fprintf(m, "\n");
            }
        for (size_t i = 0; i < gr->n; i++) {
            const cd_sig *s = &gr->s[i];
            if (s->engine) continue; /* the preload's engines are measured afresh each run */
            fprintf(m, "sig %016" PRIx64 " tries %u", s->sig, s->tries);
            for (int k = 0; k < 4; k++) {
                const double t = meas_median(s, k);
                if (t >= 0) fprintf(m, " %s %.9g %u", cd_meas_name[k], t, s->n[k]);
                else fprintf(m, " %s - 0", cd_meas_name[k]);
            }
            if (s->agg_tried && s->agg_t[0] > 0)
                fprintf(m, " owners %s %.9g %.9g", s->agg_ind ? "independent" : "collective", s->agg_t[0], s->agg_t[1]);
            fprintf(m, "\n");
        }
    }
    /* the other places' blocks, as they were */
    int keep = 0;
    for (char *line = old, *nl; line && *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl) *nl++ = 0;
        if (!strncmp(line, "where ", 6)) {
            keep = 1;
            for (cd_group *gr = cd_groups; gr; gr = gr->next)
                if (gr->saver && !strcmp(line + 6, gr->where)) keep = 0;
        }
        if (keep && strncmp(line, "colldiag-wisdom", 15)) fprintf(m, "%s\n", line);
    }
    fclose(m);
    free(old);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *o = fopen(tmp, "w");
    if (o) {
        fwrite(text, 1, len, o);
        if (fclose(o) == 0) rename(tmp, path);
        else remove(tmp);
    }
    free(text);
}
